/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The histograms, now and (with a plan) after it, side by side on one
 * scale: extents per file, inode-to-data distance, free extent sizes.
 * Now is the report's (report.h); after is counted here from the model
 * and the plan as plan_metrics counts its figures: a moved fork's new
 * records, an inode at its new number, the AG's free extents after.
 */
#include "html/priv.h"
#include "core/fs/fork.h"
#include "core/model/model_dist.h"
#include "ondisk/geo.h"
#include "ondisk/inode.h"

#include <stdlib.h>
#include <string.h>

#define DIST_BUCKETS	66

struct hdata {
	uint64_t ext[RPT_EXT_BUCKETS];
	uint64_t dist[DIST_BUCKETS];
	unsigned ndist;			/* buckets up to the last used */
	struct rpt_freesp fsp;
};

/* report.c's buckets of extents per file: 1, 2, 3-4, 5-8, ... */
static unsigned ext_bucket(uint64_t n)
{
	unsigned b = 0;

	while (b + 1 < RPT_EXT_BUCKETS && n > (1ull << b))
		b++;
	return b;
}

static void dist_add(struct hdata *d, uint64_t dist)
{
	unsigned b = 0;

	while (b + 1 < DIST_BUCKETS && (dist >> b))
		b++;	/* 0 -> 0, 1 -> 1, 2-3 -> 2, ... */
	d->dist[b]++;
	if (b + 1 > d->ndist)
		d->ndist = b + 1;
}

/* report_freesp's bins, counting one extent of len blocks. */
static void freesp_add(struct rpt_freesp *f, uint32_t len)
{
	uint32_t i;

	f->extents++;
	f->blocks += len;
	for (i = 0; i < f->nbins; i++)
		if (f->bin[i].high >= len) {
			f->bin[i].count++;
			f->bin[i].blocks += len;
			return;
		}
}

/* The distances now: the files the report measures. */
static void count_now(const struct html_input *in, struct hdata *d)
{
	const struct model *m = in->m;
	uint32_t a;
	size_t k;

	memcpy(d->ext, in->r->ext_hist, sizeof(d->ext));
	d->fsp = in->r->freesp;
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		if (!html_ag_shown(in->r, a))
			continue;
		for (k = 0; k < ag->nino; k++) {
			const struct m_ino *mi = &ag->ino[k];
			uint64_t dist;

			if (od_mode_isreg(mi->mode) && mi->nde &&
			    model_data_dist(m, ag, mi, &dist, NULL))
				dist_add(d, dist);
		}
	}
}

/* The same files after the plan. */
static void count_after(const struct html_input *in, struct hdata *d)
{
	const struct model *m = in->m;
	const struct plan *p = in->p;
	const struct od_geo *g = &m->fs->geo;
	uint32_t a, i;
	size_t k;

	d->fsp = in->r->freesp;
	d->fsp.extents = d->fsp.blocks = 0;
	for (i = 0; i < d->fsp.nbins; i++)
		d->fsp.bin[i].count = d->fsp.bin[i].blocks = 0;
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];
		const struct plan_ag *pa = plan_ag(p, a);

		if (!html_ag_shown(in->r, a))
			continue;
		for (k = 0; k < ag->nagfl; k++)
			freesp_add(&d->fsp, 1);
		for (k = 0; k < pa->nfreesp; k++)
			freesp_add(&d->fsp, pa->freesp[k].len);
		for (k = 0; k < ag->nino; k++) {
			const struct m_ino *mi = &ag->ino[k];
			const struct plan_fork *pf;
			uint64_t first, ilin;

			if (!od_mode_isreg(mi->mode) || !mi->nde)
				continue;
			pf = plan_fork_find(p, mi->ino, FORK_DATA);
			d->ext[ext_bucket(pf ? pf->nrecs : mi->nde)]++;
			if (mi->flags & MI_REALTIME)
				continue;
			if (pf && pf->nrecs)
				first = od_fsb_lin(g, pf->recs[0].startblock);
			else if (pf || !model_data_dist(m, ag, mi, &ilin,
							&first))
				continue;
			ilin = model_ino_lin(m->fs, plan_ino_new(p, mi->ino));
			dist_add(d, first > ilin ? first - ilin : ilin - first);
		}
	}
}

/* Bucket b of a power-of-two histogram: 0, 1, 2-3, 4-7, ... */
static void pow2_label(unsigned b, char *buf, size_t len)
{
	static const char suf[] = " KMGTPE";
	uint64_t lo = b ? 1ull << (b - 1) : 0;
	unsigned s = 0;

	if (b <= 10) {
		if (b <= 1)
			snprintf(buf, len, "%llu", (unsigned long long)lo);
		else
			snprintf(buf, len, "%llu-%llu", (unsigned long long)lo,
				 (unsigned long long)(2 * lo - 1));
		return;
	}
	while (lo >= 1024 && s + 1 < sizeof(suf) - 1) {
		lo >>= 10;
		s++;
	}
	if (snprintf(buf, len, "%llu%ci-%llu%ci", (unsigned long long)lo,
		     suf[s], (unsigned long long)(2 * lo), suf[s]) >= (int)len)
		buf[len - 1] = '\0';
}

/* A bar's value and tooltip: "LABEL UNIT: VALUE WHAT" plus more. */
static void bar_set(struct html_bar *b, uint64_t v, const char *unit,
		    const char *what, const char *more)
{
	int n;

	b->value = v;
	n = snprintf(b->title, sizeof(b->title), "%s %s: %llu %s%s", b->label,
		     unit, (unsigned long long)v, what, more ? more : "");
	if (n < 0)
		b->title[0] = '\0';
}

/* report.c's labels of the extents-per-file buckets. */
static void ext_label(unsigned b, char *buf, size_t len)
{
	uint64_t lo = b == 0 ? 1 : (1ull << (b - 1)) + 1, hi = 1ull << b;

	if (b + 1 == RPT_EXT_BUCKETS)
		snprintf(buf, len, "%llu+", (unsigned long long)lo);
	else if (lo == hi)
		snprintf(buf, len, "%llu", (unsigned long long)lo);
	else
		snprintf(buf, len, "%llu-%llu", (unsigned long long)lo,
			 (unsigned long long)hi);
}

#define MAXBARS	(RPT_MAX_BINS > DIST_BUCKETS ? RPT_MAX_BINS : DIST_BUCKETS)

static size_t bars_ext(const struct hdata *d, struct html_bar *bars)
{
	unsigned i;

	for (i = 0; i < RPT_EXT_BUCKETS; i++) {
		ext_label(i, bars[i].label, sizeof(bars[i].label));
		bar_set(&bars[i], d->ext[i], "extents", "files", NULL);
	}
	return RPT_EXT_BUCKETS;
}

static size_t bars_dist(const struct hdata *d, unsigned n,
			struct html_bar *bars)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		pow2_label(i, bars[i].label, sizeof(bars[i].label));
		bar_set(&bars[i], d->dist[i], "blocks", "files", NULL);
	}
	return n;
}

static size_t bars_freesp(const struct hdata *d, unsigned n,
			  struct html_bar *bars)
{
	char more[40];
	unsigned i;

	for (i = 0; i < n; i++) {
		snprintf(bars[i].label, sizeof(bars[i].label), "%u-%u",
			 d->fsp.bin[i].low, d->fsp.bin[i].high);
		snprintf(more, sizeof(more), ", %llu blocks",
			 (unsigned long long)d->fsp.bin[i].blocks);
		bar_set(&bars[i], d->fsp.bin[i].count, "blocks",
			"free extents", more);
	}
	return n;
}

/* One chart now and, with a plan, one after, on one scale. */
static void pair(struct html *h, const char *id, const char *caption,
		 const char *xlabel, const struct html_bar *now, size_t nn,
		 const struct html_bar *after, size_t na)
{
	char aid[48], cap[160];
	double lmax = html_hist_lmax(now, nn);

	if (after && html_hist_lmax(after, na) > lmax)
		lmax = html_hist_lmax(after, na);
	html_raw(h, "<div class=\"pair\">\n");
	snprintf(cap, sizeof(cap), "%s, now", caption);
	html_hist(h, id, after ? cap : caption, xlabel, now, nn, lmax, false);
	if (after) {
		snprintf(aid, sizeof(aid), "%s-after", id);
		snprintf(cap, sizeof(cap), "%s, after the run", caption);
		html_hist(h, aid, cap, xlabel, after, na, lmax, true);
	}
	html_raw(h, "</div>\n");
}

int html_histograms(struct html *h, const struct html_input *in,
		    struct err *e)
{
	struct html_bar *bn = NULL, *ba = NULL;
	struct hdata *now = NULL, *after = NULL;
	unsigned nd, nf, i;
	size_t n1, n2;
	char bs[32];

	now = calloc(1, sizeof(*now));
	after = in->p ? calloc(1, sizeof(*after)) : NULL;
	bn = calloc(MAXBARS, sizeof(*bn));
	ba = calloc(MAXBARS, sizeof(*ba));
	if (!now || (in->p && !after) || !bn || !ba) {
		free(now);
		free(after);
		free(bn);
		free(ba);
		return err_set(e, -ENOMEM, "HTML histograms: out of memory");
	}
	count_now(in, now);
	if (after)
		count_after(in, after);
	html_section(h, "histograms", in->p ? "Histograms, now and after the "
		     "run" : "Histograms");
	html_raw(h, "<p class=\"note\">Bar heights on a log scale, the same "
		 "for a chart now and after; a block is %s.</p>\n",
		 html_bytes(in->fs->geo.blocksize, bs, sizeof(bs)));

	n1 = bars_ext(now, bn);
	n2 = after ? bars_ext(after, ba) : 0;
	pair(h, "extents", "Extents per file (regular files with data)",
	     "extents", bn, n1, after ? ba : NULL, n2);

	nd = now->ndist;
	if (after && after->ndist > nd)
		nd = after->ndist;
	n1 = bars_dist(now, nd, bn);
	n2 = after ? bars_dist(after, nd, ba) : 0;
	pair(h, "distance", "Inode-to-data distance (to the first data "
	     "block)", "blocks", bn, n1, after ? ba : NULL, n2);

	for (i = 0, nf = 0; i < now->fsp.nbins && i < RPT_MAX_BINS; i++)
		if (now->fsp.bin[i].count ||
		    (after && after->fsp.bin[i].count))
			nf = i + 1;
	n1 = bars_freesp(now, nf, bn);
	n2 = after ? bars_freesp(after, nf, ba) : 0;
	pair(h, "freesp", "Free extent sizes (xfs_db freesp)", "blocks", bn,
	     n1, after ? ba : NULL, n2);
	html_section_end(h);
	free(now);
	free(after);
	free(bn);
	free(ba);
	return 0;
}
