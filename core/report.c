/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report.h"
#include "model_paths.h"
#include "../ondisk/inode.h"

#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

static void swap64(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;

	*a = *b;
	*b = t;
}

/* k-th smallest of v[0..n) (quickselect, reorders v). */
static uint64_t select_k(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint64_t pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swap64(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* Nearest-rank percentile p (0..100) of v[0..n). */
static uint64_t pct(uint64_t *v, size_t n, unsigned p)
{
	size_t k;

	if (!n)
		return 0;
	k = (size_t)(((unsigned __int128)n * p + 99) / 100);
	k = k ? k - 1 : 0;
	return select_k(v, n, k);
}

static void dist_fill(struct rpt_dist *d, uint64_t *v, size_t n)
{
	size_t i;

	d->n = n;
	if (!n)
		return;
	d->median = pct(v, n, 50);
	d->p90 = pct(v, n, 90);
	d->p99 = pct(v, n, 99);
	d->max = v[0];
	for (i = 1; i < n; i++)
		if (v[i] > d->max)
			d->max = v[i];
}

/* Keep the n largest items by (value, then lower ino). */
static void top_add(struct rpt_item *t, unsigned *n, unsigned cap,
		    uint64_t ino, uint64_t value, uint64_t value2)
{
	unsigned i, min = 0;

	if (!cap)
		return;
	if (*n < cap) {
		t[*n].ino = ino;
		t[*n].value = value;
		t[*n].value2 = value2;
		t[*n].path = NULL;
		(*n)++;
		return;
	}
	for (i = 1; i < *n; i++)
		if (t[i].value < t[min].value ||
		    (t[i].value == t[min].value && t[i].ino > t[min].ino))
			min = i;
	if (value > t[min].value) {
		t[min].ino = ino;
		t[min].value = value;
		t[min].value2 = value2;
	}
}

static int cmp_item(const void *a, const void *b)
{
	const struct rpt_item *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static unsigned ext_bucket(uint64_t n)
{
	unsigned b = 0;

	/* 1, 2, 3-4, 5-8, 9-16, ... */
	while (b + 1 < RPT_EXT_BUCKETS && n > (1ull << b))
		b++;
	return b;
}

/* ---- free space, exactly as xfs_db freesp -s ---- */

static void freesp_add(struct rpt_freesp *f, uint32_t len)
{
	uint32_t i;

	f->extents++;
	f->blocks += len;
	for (i = 0; i < f->nbins; i++) {
		if (f->bin[i].high >= len) {
			f->bin[i].count++;
			f->bin[i].blocks += len;
			return;
		}
	}
}

void report_freesp(const struct model *m, int agsel, struct rpt_freesp *f)
{
	uint32_t agblocks = m->fs->sb.agblocks, low, i, a;

	memset(f, 0, sizeof(*f));
	/* bins 1, 2, 4, ... below agblocks; the last one ends at agblocks */
	for (low = 1; low < agblocks && f->nbins < RPT_MAX_BINS; low *= 2)
		f->bin[f->nbins++].low = low;
	for (i = 0; i < f->nbins; i++)
		f->bin[i].high = i + 1 < f->nbins ? f->bin[i + 1].low - 1 :
						    agblocks;
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];
		size_t k;

		if (agsel >= 0 && a != (uint32_t)agsel)
			continue;
		for (k = 0; k < ag->nagfl; k++)
			freesp_add(f, 1);
		for (k = 0; k < ag->nfree; k++)
			freesp_add(f, ag->freesp[k].len);
	}
}

/* ---- per-inode passes ---- */

struct acc {
	struct report *r;
	const struct model *m;
	uint64_t *dist_first, *dist_centre;
	size_t ndist, capdist;
	uint64_t *dirmean;
	size_t ndirmean;
};

/* xfs_db frag: which forks count, and actual/ideal record runs. */
static void frag_fork(struct report *r, const struct m_ag *ag,
		      const struct m_ino *mi, uint32_t first, uint32_t n)
{
	struct od_irec cur, prev;
	uint32_t i;

	for (i = 0; i < n; i++) {
		m_ext_get(&ag->ext[first + i], &cur);
		r->frag_actual++;
		if (i == 0 || cur.startoff != prev.startoff + prev.blockcount)
			r->frag_ideal++;
		prev = cur;
	}
	(void)mi;
}

static bool frag_data_counts(const struct m_ino *mi)
{
	uint16_t t = mi->mode & 0170000;

	return t == 0040000 || t == 0100000 || t == 0120000;
}

static int push_dist(struct acc *a, uint64_t first, uint64_t centre)
{
	if (a->ndist == a->capdist) {
		size_t cap = a->capdist ? a->capdist * 2 : 1024;
		uint64_t *f = realloc(a->dist_first, cap * sizeof(*f));
		uint64_t *c;

		if (!f)
			return -ENOMEM;
		a->dist_first = f;
		c = realloc(a->dist_centre, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		a->dist_centre = c;
		a->capdist = cap;
	}
	a->dist_first[a->ndist] = first;
	a->dist_centre[a->ndist] = centre;
	a->ndist++;
	return 0;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Blocks of file data, directories and attributes, where they lie. */
static void data_blocks(const struct model *m, struct report *r)
{
	const struct od_geo *g = &m->fs->geo;
	uint32_t a;
	size_t i, k;

	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];

			for (k = 0; k < (size_t)mi->nde + mi->nae; k++) {
				struct od_irec x;
				uint32_t agno;

				if (k < mi->nde && (mi->flags & MI_REALTIME))
					continue;
				m_ext_get(&ag->ext[mi->ext + k], &x);
				agno = od_fsb_agno(g, x.startblock);
				if (agno < r->nag)
					r->ag[agno].data_blocks += x.blockcount;
			}
		}
	}
}

static int scan_files(struct acc *a, const struct m_ag *ag,
		      struct rpt_ag *ra)
{
	const struct od_geo *g = &a->m->fs->geo;
	struct report *r = a->r;
	size_t i, agdist0 = a->ndist;
	uint64_t prev_first = 0;
	bool have_prev = false;

	for (i = 0; i < ag->nino; i++) {
		const struct m_ino *mi = &ag->ino[i];
		struct od_irec x;
		uint64_t ilin, flin, blocks = 0;
		double wsum = 0;
		uint32_t k;

		if (frag_data_counts(mi) && mi->nde)
			frag_fork(r, ag, mi, mi->ext, mi->nde);
		if (!(mi->flags & MI_NOATTR) && mi->nae)
			frag_fork(r, ag, mi, mi->ext + mi->nde, mi->nae);
		if (!od_mode_isreg(mi->mode))
			continue;
		r->files++;
		r->bytes += mi->size;
		if (!mi->nde)
			continue;
		r->files_data++;
		r->data_extents += mi->nde;
		r->ext_hist[ext_bucket(mi->nde)]++;
		if (mi->nde > 1) {
			r->files_multi++;
			r->bytes_multi += mi->size;
		}
		top_add(r->top_frag, &r->ntop_frag, r->top, mi->ino, mi->nde,
			mi->size);
		if (mi->flags & MI_REALTIME)
			continue;
		ilin = model_ino_lin(a->m->fs, mi->ino);
		m_ext_get(&ag->ext[mi->ext], &x);
		flin = od_fsb_lin(g, x.startblock);
		for (k = 0; k < mi->nde; k++) {
			m_ext_get(&ag->ext[mi->ext + k], &x);
			wsum += (double)x.blockcount *
				((double)od_fsb_lin(g, x.startblock) +
				 (double)x.blockcount / 2.0);
			blocks += x.blockcount;
		}
		if (push_dist(a, absdiff(flin, ilin),
			      absdiff((uint64_t)(wsum / (double)blocks), ilin)))
			return -ENOMEM;
		m_ext_get(&ag->ext[mi->ext], &x);
		if (od_fsb_agno(g, x.startblock) != ag->agno)
			r->dist_first.cross_ag++;
		top_add(r->top_dist, &r->ntop_dist, r->top, mi->ino,
			absdiff(flin, ilin), od_fsb_agno(g, x.startblock));
		/* allocation order: does data rise with inode number? */
		if (have_prev) {
			ra->order_pairs++;
			if (flin > prev_first)
				ra->order_rising++;
		}
		prev_first = flin;
		have_prev = true;
	}
	if (a->ndist > agdist0) {
		/* median of this AG's files; copy: quickselect reorders */
		size_t n = a->ndist - agdist0;
		uint64_t *tmp = malloc(n * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		memcpy(tmp, a->dist_first + agdist0, n * sizeof(*tmp));
		ra->median_dist = pct(tmp, n, 50);
		free(tmp);
	}
	r->order_pairs += ra->order_pairs;
	r->order_rising += ra->order_rising;
	return 0;
}

static int scan_dirs(struct acc *a, const struct m_ag *ag)
{
	struct report *r = a->r;
	size_t i;

	for (i = 0; i < ag->ndir; i++) {
		const struct m_dir *d = &ag->dir[i];
		uint64_t mean;

		r->dirs++;
		r->dir_children += d->nchildren;
		if (d->nags > 1)
			r->dirs_multi_ag++;
		if (!d->nchildren)
			continue;
		mean = d->sum_dist / d->nchildren;
		a->dirmean[a->ndirmean++] = mean;
		/* rank by AGs spanned first, then by mean distance */
		top_add(r->top_dirs, &r->ntop_dirs, r->top, d->ino,
			(uint64_t)d->nags << 40 | (mean & ((1ull << 40) - 1)),
			mean);
	}
	return 0;
}

static void ag_table(const struct model *m, const struct m_ag *ag,
		     struct rpt_ag *ra)
{
	const struct od_geo *g = &m->fs->geo;
	size_t i;

	ra->agno = ag->agno;
	ra->blocks = ag->blocks;
	ra->inodes_used = ag->nino;
	ra->chunks = ag->nchunk;
	ra->chunk_lo = UINT32_MAX;
	for (i = 0; i < ag->nchunk; i++) {
		uint32_t b = od_agino_agbno(g, ag->chunk[i].startino);

		ra->inodes_free += ag->chunk[i].freecount;
		if (b < ra->chunk_lo)
			ra->chunk_lo = b;
		if (b + g->ialloc_blks > ra->chunk_hi)
			ra->chunk_hi = b + g->ialloc_blks;
	}
	if (!ag->nchunk)
		ra->chunk_lo = 0;
	ra->free_blocks = ag->have_agf ? ag->agf.freeblks : 0;
	ra->nfree = ag->nfree;
	for (i = 0; i < ag->nfree; i++)
		if (ag->freesp[i].len > ra->longest)
			ra->longest = ag->freesp[i].len;
	ra->damage = ag->err ? ag->errmsg : NULL;
	ra->ndamaged = ag->ndamaged;
}

int report_build(const struct model *m, int agsel, unsigned top,
		 struct report *r, struct err *e)
{
	struct acc a;
	uint64_t ndirs = 0;
	uint32_t i;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	memset(&a, 0, sizeof(a));
	a.r = r;
	a.m = m;
	r->agsel = agsel;
	r->top = top;
	r->nag = m->agcount;
	r->ag = calloc(m->agcount, sizeof(*r->ag));
	r->top_frag = calloc(top ? top : 1, sizeof(*r->top_frag));
	r->top_dist = calloc(top ? top : 1, sizeof(*r->top_dist));
	r->top_dirs = calloc(top ? top : 1, sizeof(*r->top_dirs));
	for (i = 0; i < m->agcount; i++)
		ndirs += m->ag[i].ndir;
	a.dirmean = malloc((ndirs ? ndirs : 1) * sizeof(*a.dirmean));
	if (!r->ag || !r->top_frag || !r->top_dist || !r->top_dirs ||
	    !a.dirmean) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < m->agcount; i++) {
		const struct m_ag *ag = &m->ag[i];

		ag_table(m, ag, &r->ag[i]);
		if (ag->err) {
			r->damaged_ags++;
			r->damaged_items += ag->ndamaged;
		}
		if (agsel >= 0 && i != (uint32_t)agsel)
			continue;
		ret = scan_files(&a, ag, &r->ag[i]);
		if (!ret)
			ret = scan_dirs(&a, ag);
		if (ret) {
			ret = err_set(e, ret, "out of memory");
			goto out;
		}
	}
	data_blocks(m, r);
	dist_fill(&r->dist_first, a.dist_first, a.ndist);
	r->dist_centre.cross_ag = 0;
	dist_fill(&r->dist_centre, a.dist_centre, a.ndist);
	r->dir_median_mean = pct(a.dirmean, a.ndirmean, 50);
	report_freesp(m, agsel, &r->freesp);
	qsort(r->top_frag, r->ntop_frag, sizeof(*r->top_frag), cmp_item);
	qsort(r->top_dist, r->ntop_dist, sizeof(*r->top_dist), cmp_item);
	qsort(r->top_dirs, r->ntop_dirs, sizeof(*r->top_dirs), cmp_item);
	for (i = 0; i < r->ntop_dirs; i++)
		r->top_dirs[i].value >>= 40;	/* back to AGs spanned */
out:
	free(a.dist_first);
	free(a.dist_centre);
	free(a.dirmean);
	return ret;
}

void report_free(struct report *r)
{
	unsigned i;

	for (i = 0; i < r->ntop_frag; i++)
		free(r->top_frag[i].path);
	for (i = 0; i < r->ntop_dist; i++)
		free(r->top_dist[i].path);
	for (i = 0; i < r->ntop_dirs; i++)
		free(r->top_dirs[i].path);
	free(r->top_frag);
	free(r->top_dist);
	free(r->top_dirs);
	free(r->ag);
	memset(r, 0, sizeof(*r));
}

int report_paths(const struct model *m, struct report *r, struct err *e)
{
	struct rpt_item *lists[3] = { r->top_frag, r->top_dist, r->top_dirs };
	unsigned counts[3] = { r->ntop_frag, r->ntop_dist, r->ntop_dirs };
	size_t n = 0, k = 0, i, l;
	uint64_t *inos;
	char **paths;
	int ret;

	for (l = 0; l < 3; l++)
		n += counts[l];
	if (!n)
		return 0;
	inos = malloc(n * sizeof(*inos));
	paths = malloc(n * sizeof(*paths));
	if (!inos || !paths) {
		free(inos);
		free(paths);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (l = 0; l < 3; l++)
		for (i = 0; i < counts[l]; i++)
			inos[k++] = lists[l][i].ino;
	ret = model_paths(m, inos, n, paths, e);
	k = 0;
	for (l = 0; l < 3; l++)
		for (i = 0; i < counts[l]; i++, k++)
			lists[l][i].path = ret ? NULL : paths[k];
	free(inos);
	free(paths);
	return ret;
}
