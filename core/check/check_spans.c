/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The spans of the block ownership map: growable arrays, a stable radix
 * sort by start, naming a span for messages, and handing every file
 * extent and bmbt block (found AG by AG of the inodes) to the AG it lies
 * in.  File spans are runs of extent records contiguous on disk and in
 * the file with the same state: one span, one expected rmap record.
 */
#include "core/check/check_int.h"
#include "core/base/bigmem.h"
#include "core/base/par.h"
#include "core/base/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- span arrays ---- */

int check_spans_add(struct check_spans *s, uint32_t start, uint32_t len,
		    uint32_t idx, uint32_t src)
{
	struct check_span *v;

	if (s->n) {
		/* blocks of one tree often come in runs: one span */
		v = &s->v[s->n - 1];
		if (v->src == src && v->start + v->len == start &&
		    check_span_kind(v) != CK_AGFL &&
		    check_span_kind(v) < CK_FREE && v->len < UINT32_MAX - len) {
			v->len += len;
			return 0;
		}
	}
	if (bigmem_grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v)))
		return -ENOMEM;
	v = &s->v[s->n++];
	v->start = start;
	v->len = len;
	v->idx = idx;
	v->src = src;
	return 0;
}

void check_spans_free(struct check_spans *s)
{
	bigmem_free(s->v, s->cap, sizeof(*s->v));
	memset(s, 0, sizeof(*s));
}

/* Make room for n more spans at once. */
static int spans_reserve(struct check_spans *s, size_t n)
{
	struct check_span *v;

	if (s->cap - s->n >= n)
		return 0;
	v = bigmem_calloc(s->n + n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (s->n)
		memcpy(v, s->v, s->n * sizeof(*v));
	bigmem_free(s->v, s->cap, sizeof(*s->v));
	s->v = v;
	s->cap = s->n + n;
	return 0;
}

/*
 * LSD radix sort on start: stable.  Digits of 8, 11 or 16 bits as the
 * array is small or large (counters that outnumber the spans cost more
 * than they save), only as many passes as the largest start needs.
 */
int check_spans_sort(struct check_spans *s)
{
	struct check_span *tmp, *src = s->v, *dst;
	uint32_t max = 0;
	size_t *count, i, buckets;
	unsigned shift, digit;

	if (s->n < 2)
		return 0;
	for (i = 0; i < s->n; i++)
		if (s->v[i].start > max)
			max = s->v[i].start;
	if (max == 0)
		return 0;
	digit = s->n < (1u << 14) ? 8 : s->n < (1u << 20) ? 11 : 16;
	buckets = (size_t)1 << digit;
	/* large: mapped in huge pages, a few faults rather than one a page */
	tmp = bigmem_calloc(s->n, sizeof(*tmp));
	count = malloc(buckets * sizeof(*count));
	if (!tmp || !count) {
		bigmem_free(tmp, s->n, sizeof(*tmp));
		free(count);
		return -ENOMEM;
	}
	dst = tmp;
	for (shift = 0; shift < 32 && (max >> shift); shift += digit) {
		uint32_t mask = (uint32_t)buckets - 1;
		size_t sum = 0;
		struct check_span *t;

		memset(count, 0, buckets * sizeof(*count));
		for (i = 0; i < s->n; i++)
			count[(src[i].start >> shift) & mask]++;
		for (i = 0; i < buckets; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < s->n; i++)
			dst[count[(src[i].start >> shift) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != s->v)
		memcpy(s->v, src, s->n * sizeof(*src));
	bigmem_free(tmp, s->n, sizeof(*tmp));
	free(count);
	return 0;
}

/* ---- naming things ---- */

static inline bool ext_at_or_before(const struct m_ino *mi, uint32_t idx)
{
	return mi->ext <= idx;
}

SEARCH_FIRST(ext_search, struct m_ino, uint32_t, ext_at_or_before)

const struct m_ino *check_ext_owner(const struct check_ctx *c, uint32_t src,
				    uint32_t idx)
{
	const struct m_ag *ag = &c->m->ag[src];
	/* lo - 1: the last inode whose extents start at or before idx */
	size_t lo = ext_search(ag->ino, ag->nino, idx);

	if (lo == 0)
		return NULL;
	if (idx >= ag->ino[lo - 1].ext + ag->ino[lo - 1].nde +
		   ag->ino[lo - 1].nae)
		return NULL;
	return &ag->ino[lo - 1];
}

void check_span_str(const struct check_ctx *c, const struct check_ag *ca,
		    const struct check_span *s, uint32_t b, char *buf,
		    size_t len)
{
	static const char *const tree[] = {
		[CK_BNOBT] = "bnobt", [CK_CNTBT] = "cntbt",
		[CK_INOBT] = "inobt", [CK_FINOBT] = "finobt",
		[CK_RMAPBT] = "rmapbt", [CK_REFCBT] = "refcountbt",
	};
	enum check_kind k = check_span_kind(s);
	const struct od_geo *g = c->g;
	const struct m_ag *sag = &c->m->ag[check_span_ag(s)];
	const char *fork = check_span_flags(s) & CHECK_SPAN_ATTRFORK ?
			   "attr" : "data";

	switch (k) {
	case CK_FS:
		snprintf(buf, len, "the AG headers");
		break;
	case CK_LOG:
		snprintf(buf, len, "the log");
		break;
	case CK_INODES:
		snprintf(buf, len, "inode chunk %llu",
			 (unsigned long long)od_agino_ino(g, ca->agno,
				ca->ag->chunk[s->idx].startino));
		break;
	case CK_BNOBT: case CK_CNTBT: case CK_INOBT: case CK_FINOBT:
	case CK_RMAPBT: case CK_REFCBT:
		snprintf(buf, len, "a %s block", tree[k]);
		break;
	case CK_AGFL:
		snprintf(buf, len, "the AGFL");
		break;
	case CK_FREE:
		snprintf(buf, len, "free space in the bnobt (extent %u+%u)",
			 s->start, s->len);
		break;
	case CK_BMBT:
		snprintf(buf, len, "a bmbt block of inode %llu (%s fork)",
			 (unsigned long long)sag->ino[s->idx].ino, fork);
		break;
	case CK_DATA:
	case CK_ATTR: {
		const struct m_ino *mi = check_ext_owner(c, check_span_ag(s),
							 s->idx);
		struct od_irec r;

		m_ext_get(&sag->ext[s->idx], &r);
		snprintf(buf, len, "inode %llu %s fork offset %llu",
			 mi ? (unsigned long long)mi->ino : 0ull,
			 k == CK_ATTR ? "attr" : "data",
			 (unsigned long long)(r.startoff + (b - s->start)));
		break;
	}
	default:
		snprintf(buf, len, "something");
		break;
	}
}


void check_range_str(uint32_t a, uint32_t b, char *buf, size_t len)
{
	if (b - a == 1)
		snprintf(buf, len, "block %u", a);
	else
		snprintf(buf, len, "blocks %u-%u", a, b - 1);
}


/* ---- handing file extents and bmbt blocks to their AGs ---- */

/*
 * Two passes over every inode's extents: count the spans each source AG
 * hands to each target AG, then write them at offsets fixed by the
 * counts.  Sources are independent, so both passes run in parallel with
 * a matrix of counts (up to PAR_AGS AGs); the spans land in the same
 * order as in one sequential pass (source by source, inode by inode).
 */
#define PAR_AGS		512u

struct dist {
	struct check_ctx *c;
	uint64_t *count;	/* [s * n + t]: spans of source s in t */
	uint64_t *pos;		/* fill: next slot of source s in t */
	uint32_t n;		/* AGs */
	bool par;		/* a row per source; else one row for all */
	bool fill;
};

static void dist_put(struct dist *d, uint32_t s, uint64_t fsb, uint32_t len,
		     uint32_t idx, uint32_t src)
{
	const struct od_geo *g = d->c->g;
	uint32_t t = od_fsb_agno(g, fsb);
	size_t k = (d->par ? (size_t)s * d->n : 0) + t;
	struct check_span *v;

	if (t >= d->n)
		return;	/* the scan checked extents: cannot happen */
	if (!d->fill) {
		d->count[k]++;
		return;
	}
	v = &d->c->cag[t].spans.v[d->pos[k]++];
	v->start = od_fsb_agbno(g, fsb);
	v->len = len;
	v->idx = idx;
	v->src = src;
}

/* One fork's extents, merged into runs contiguous on disk and in file. */
static void dist_fork(struct dist *d, uint32_t s, uint32_t first, uint32_t n,
		      enum check_kind kind)
{
	const struct od_geo *g = d->c->g;
	const struct m_ext *x = d->c->m->ag[s].ext;
	struct od_irec run = { 0, 0, 0, false }, r;
	uint32_t i, runidx = 0;
	uint64_t runlen = 0;

	for (i = 0; i < n; i++) {
		m_ext_get(&x[first + i], &r);
		if (runlen && r.unwritten == run.unwritten &&
		    run.startoff + runlen == r.startoff &&
		    run.startblock + runlen == r.startblock &&
		    od_fsb_agno(g, run.startblock) ==
		    od_fsb_agno(g, r.startblock) &&
		    runlen + r.blockcount <= UINT32_MAX) {
			runlen += r.blockcount;
			continue;
		}
		if (runlen)
			dist_put(d, s, run.startblock, (uint32_t)runlen,
				 runidx, check_span_src(kind,
					run.unwritten ? CHECK_SPAN_UNWRITTEN :
					0, s));
		run = r;
		runlen = r.blockcount;
		runidx = first + i;
	}
	if (runlen)
		dist_put(d, s, run.startblock, (uint32_t)runlen, runidx,
			 check_span_src(kind, run.unwritten ?
					CHECK_SPAN_UNWRITTEN : 0, s));
}

/* Source AG s, one pass (count or fill). */
static void dist_source(struct dist *d, uint32_t s)
{
	const struct m_ag *ag = &d->c->m->ag[s];
	const struct check_ag *ca = &d->c->cag[s];
	size_t i;

	for (i = 0; i < ag->nino; i++) {
		const struct m_ino *mi = &ag->ino[i];

		/* most forks are empty (attr) or one extent: no call for
		 * the empty ones */
		if (mi->nde && !(mi->flags & MI_REALTIME))
			dist_fork(d, s, mi->ext, mi->nde, CK_DATA);
		if (mi->nae)
			dist_fork(d, s, mi->ext + mi->nde, mi->nae, CK_ATTR);
	}
	for (i = 0; i < ca->nbmbt; i++) {
		const struct check_bmbt *b = &ca->bmbt[i];

		dist_put(d, s, b->fsbno, b->len, b->idx,
			 check_span_src(CK_BMBT, b->flags, s));
	}
}

static void dist_one(void *priv, unsigned s)
{
	dist_source(priv, s);
}

static void dist_pass(struct dist *d)
{
	uint32_t s;

	if (d->par) {
		par_for(d->n, d->c->threads, dist_one, d);
		return;
	}
	for (s = 0; s < d->n; s++)
		dist_source(d, s);
}

int check_distribute(struct check_ctx *c)
{
	struct dist d = { c, NULL, NULL, c->m->agcount,
			  c->m->agcount <= PAR_AGS, false };
	/* past PAR_AGS, one row for all sources, one after the other */
	size_t rows = d.par ? d.n : 1, s;
	uint32_t a;
	int ret = 0;

	d.count = calloc(rows * d.n, sizeof(*d.count));
	d.pos = calloc(rows * d.n, sizeof(*d.pos));
	if (!d.count || !d.pos) {
		ret = -ENOMEM;
		goto out;
	}
	dist_pass(&d);
	for (a = 0; a < c->m->agcount && !ret; a++) {
		struct check_ag *ca = &c->cag[a];
		uint64_t total = 0, at;

		for (s = 0; s < rows; s++)
			total += d.count[s * d.n + a];
		/* chunks: a span per chunk, a few more when sparse */
		ret = spans_reserve(&ca->spans, total + ca->meta.n +
				    ca->ag->nfree + ca->ag->nchunk * 2 + 16);
		at = ca->spans.n;
		for (s = 0; s < rows; s++) {
			d.pos[s * d.n + a] = at;
			at += d.count[s * d.n + a];
		}
		ca->spans.n = at;
	}
	if (!ret) {
		d.fill = true;
		dist_pass(&d);
	}
out:
	free(d.count);
	free(d.pos);
	return ret;
}
