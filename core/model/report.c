/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/model/report.h"
#include "core/model/frag.h"
#include "core/fs/fork.h"
#include "core/model/model_paths.h"
#include "core/base/bigmem.h"
#include "core/base/heap.h"
#include "core/base/par.h"
#include "core/base/select.h"
#include "core/base/sort.h"
#include "ondisk/inode.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

/*
 * Keep the cap largest items by value (ties: lower inode first).  The
 * items stay in the slots they were put in — a new one goes into the next
 * free slot, or into the least one's — so the lists (and how they merge)
 * are the same as a scan for the least would make them; a heap of slot
 * numbers finds the least in log2(cap) steps instead (a rising value, as
 * the distance often is, replaces it each time).  floor caches its value
 * once the list is full, so the common case — not among the largest —
 * costs one comparison.
 */
struct topk {
	struct rpt_item *t;
	unsigned *h;		/* slots, a heap: the least item first */
	unsigned n, cap;
	uint64_t floor;
};

static bool item_below(const struct rpt_item *x, const struct rpt_item *y)
{
	return x->value < y->value || (x->value == y->value && x->ino > y->ino);
}

#define SLOT_BELOW(k, a, b)	item_below(&(k)->t[*(a)], &(k)->t[*(b)])
HEAP_DEFINE(slot, unsigned, const struct topk *, SLOT_BELOW)

static void heap_up(struct topk *k, unsigned i)
{
	slot_up(k->h, i, k);
}

static void heap_down(struct topk *k)
{
	slot_down(k->h, k->n, 0, k);
}

static void top_put(struct topk *k, uint64_t ino, uint64_t value,
		    uint64_t value2)
{
	struct rpt_item it = { ino, value, value2, NULL };

	if (!k->cap)
		return;
	if (k->n < k->cap) {
		k->t[k->n] = it;
		k->h[k->n] = k->n;
		heap_up(k, k->n);
		if (++k->n == k->cap)
			k->floor = k->t[k->h[0]].value;
		return;
	}
	if (value <= k->floor)
		return;
	k->t[k->h[0]] = it;
	heap_down(k);
	k->floor = k->t[k->h[0]].value;
}

/* The common case, not among the largest, without a call. */
static inline void top_add(struct topk *k, uint64_t ino, uint64_t value,
			   uint64_t value2)
{
	if (k->n == k->cap && value <= k->floor)
		return;
	top_put(k, ino, value, value2);
}

/* A list of cap items in t (the caller's; NULL: out of memory). */
static int topk_init(struct topk *k, struct rpt_item *t, unsigned cap)
{
	k->t = t;
	k->h = t ? malloc((cap ? cap : 1) * sizeof(*k->h)) : NULL;
	k->n = 0;
	k->cap = cap;
	k->floor = 0;
	return k->h ? 0 : -ENOMEM;
}

/* The same with slots of its own. */
static int topk_alloc(struct topk *k, unsigned cap)
{
	return topk_init(k, calloc(cap ? cap : 1, sizeof(*k->t)), cap);
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

/* ---- per-AG passes, run in parallel, then merged ---- */

/* What one AG contributes; merged into struct report afterwards. */
struct part {
	const struct model *m;
	const struct report *r;	/* selection and top count only */
	uint32_t agno;
	int err;
	struct frag_count frag;
	uint64_t files, files_data, files_multi, bytes, bytes_multi;
	uint64_t data_extents, ext_hist[RPT_EXT_BUCKETS];
	uint64_t cross_ag, order_pairs, order_rising;
	/* room for every inode, of dsize bytes each: four when every linear
	 * block number fits in them (the distances are below it), as a fresh
	 * page costs and so they take half the pages; slices of two arrays
	 * for all AGs, one mapping each (a page fault per 2 MiB) */
	void *dfirst, *dcentre;
	size_t dsize;
	size_t nd;
	uint64_t median_dist;		/* of dfirst */
	uint64_t dirs, dirs_multi_ag, dir_children;
	uint64_t *dirmean;
	size_t ndm;
	uint64_t *data_blocks;		/* per AG where the blocks lie */
	struct topk top_frag, top_dist, top_dirs;	/* slots owned */
};

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static void dist_put(const struct part *p, void *arr, uint64_t v)
{
	if (p->dsize == 4)
		((uint32_t *)arr)[p->nd] = (uint32_t)v;
	else
		((uint64_t *)arr)[p->nd] = v;
}

/* Percentiles of arrays of dsize-byte values. */
static int dist_pct(void *const *arr, const size_t *len, unsigned narr,
		    size_t dsize, const unsigned *pct, unsigned npct,
		    uint64_t *out)
{
	if (dsize == 4)
		return select_pct_u32((const uint32_t *const *)arr, len, narr,
				      pct, npct, out);
	return select_pct_u64((const uint64_t *const *)arr, len, narr, pct,
			      npct, out);
}

static void part_inode(struct part *p, const struct m_ag *ag,
		       const struct m_ino *mi, struct od_irec *x,
		       uint64_t *prev_first, bool *have_prev)
{
	const struct od_geo *g = &p->m->fs->geo;
	uint32_t k, n = mi->nde + mi->nae;
	uint64_t ilin, flin, blocks = 0;
	double wsum = 0;

	for (k = 0; k < n; k++) {
		m_ext_get(&ag->ext[mi->ext + k], &x[k]);
		if (k < mi->nde && (mi->flags & MI_REALTIME))
			continue;
		p->data_blocks[od_fsb_agno(g, x[k].startblock)] +=
			x[k].blockcount;
	}
	if (frag_fork_counts(mi, FORK_DATA))
		frag_add(&p->frag, x, mi->nde);
	if (frag_fork_counts(mi, FORK_ATTR))
		frag_add(&p->frag, x + mi->nde, mi->nae);
	/* the metadata directory's files (xfs_db frag counts them) are
	 * no files of the user's: not in the file figures */
	if (!od_mode_isreg(mi->mode) || (mi->flags & MI_METADATA))
		return;
	p->files++;
	p->bytes += mi->size;
	if (!mi->nde)
		return;
	p->files_data++;
	p->data_extents += mi->nde;
	p->ext_hist[ext_bucket(mi->nde)]++;
	if (mi->nde > 1) {
		p->files_multi++;
		p->bytes_multi += mi->size;
	}
	top_add(&p->top_frag, mi->ino, mi->nde, mi->size);
	if (mi->flags & MI_REALTIME)
		return;
	ilin = model_ino_lin(p->m->fs, mi->ino);
	flin = od_fsb_lin(g, x[0].startblock);
	for (k = 0; k < mi->nde; k++) {
		wsum += (double)x[k].blockcount *
			((double)od_fsb_lin(g, x[k].startblock) +
			 (double)x[k].blockcount / 2.0);
		blocks += x[k].blockcount;
	}
	dist_put(p, p->dfirst, absdiff(flin, ilin));
	dist_put(p, p->dcentre, absdiff((uint64_t)(wsum / (double)blocks),
					ilin));
	p->nd++;
	if (od_fsb_agno(g, x[0].startblock) != ag->agno)
		p->cross_ag++;
	top_add(&p->top_dist, mi->ino, absdiff(flin, ilin),
		od_fsb_agno(g, x[0].startblock));
	/* allocation order: does data rise with inode number? */
	if (*have_prev) {
		p->order_pairs++;
		if (flin > *prev_first)
			p->order_rising++;
	}
	*prev_first = flin;
	*have_prev = true;
}

static void part_run(void *priv, unsigned i)
{
	struct part *p = (struct part *)priv + i;
	const struct m_ag *ag = &p->m->ag[p->agno];
	static const unsigned half = 50;
	struct od_irec small[64], *x = small;
	size_t cap = 64, k;
	uint64_t prev_first = 0;
	bool have_prev = false;

	if (p->r->agsel >= 0 && p->agno != (uint32_t)p->r->agsel)
		return;
	p->dirmean = malloc((ag->ndir ? ag->ndir : 1) * sizeof(*p->dirmean));
	if (!p->dirmean)
		goto nomem;
	for (k = 0; k < ag->nino; k++) {
		const struct m_ino *mi = &ag->ino[k];

		if ((size_t)mi->nde + mi->nae > cap) {
			struct od_irec *nx;

			cap = (size_t)mi->nde + mi->nae;
			nx = malloc(cap * sizeof(*nx));
			if (!nx)
				goto nomem;
			if (x != small)
				free(x);
			x = nx;
		}
		part_inode(p, ag, mi, x, &prev_first, &have_prev);
	}
	for (k = 0; k < ag->ndir; k++) {
		const struct m_dir *d = &ag->dir[k];
		uint64_t mean;

		p->dirs++;
		p->dir_children += d->nchildren;
		if (d->nags > 1)
			p->dirs_multi_ag++;
		if (!d->nchildren)
			continue;
		mean = d->sum_dist / d->nchildren;
		p->dirmean[p->ndm++] = mean;
		/* rank by AGs spanned first, then by mean distance */
		top_add(&p->top_dirs, d->ino,
			(uint64_t)d->nags << 40 | (mean & ((1ull << 40) - 1)),
			mean);
	}
	if (dist_pct(&p->dfirst, &p->nd, 1, p->dsize, &half, 1,
		     &p->median_dist))
		goto nomem;
	if (x != small)
		free(x);
	return;
nomem:
	if (x != small)
		free(x);
	p->err = -ENOMEM;
}

/* The percentiles over all AGs: three at once (first, centre, dirs). */
struct ag_percentiles {
	void **arr[3];
	size_t *len[3];
	size_t dsize[3];
	unsigned narr;
	uint64_t out[3][4];
	int err[3];
};

static void pcts_one(void *priv, unsigned i)
{
	static const unsigned dist[4] = { 50, 90, 99, 100 };
	struct ag_percentiles *pc = priv;

	pc->err[i] = dist_pct(pc->arr[i], pc->len[i], pc->narr, pc->dsize[i],
			      dist, i < 2 ? 4 : 1, pc->out[i]);
}

static void dist_set(struct rpt_dist *d, const size_t *len, unsigned narr,
		     const uint64_t *v)
{
	unsigned a;

	d->n = 0;
	for (a = 0; a < narr; a++)
		d->n += len[a];
	d->median = v[0];
	d->p90 = v[1];
	d->p99 = v[2];
	d->max = v[3];
}

static void top_merge(struct topk *dst, const struct topk *src)
{
	unsigned i;

	for (i = 0; i < src->n; i++)
		top_add(dst, src->t[i].ino, src->t[i].value, src->t[i].value2);
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
	uint32_t n = m->agcount, a, b;
	struct part *parts;
	struct topk tk[3] = { { 0 } };	/* frag, dist, dirs */
	void **arr1 = NULL, **arr2 = NULL, **arr3 = NULL;
	size_t *len1 = NULL, *len3 = NULL, ncap = 1, at;
	uint8_t *dfirst = NULL, *dcentre = NULL;
	/* an AG of slack: the centre of data rounds */
	size_t dsize = (uint64_t)(n + 1) * m->fs->geo.agblocks <= UINT32_MAX ?
		       4 : 8;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->agsel = agsel;
	r->top = top;
	r->nag = n;
	r->ag = calloc(n, sizeof(*r->ag));
	r->top_frag = calloc(top ? top : 1, sizeof(*r->top_frag));
	r->top_dist = calloc(top ? top : 1, sizeof(*r->top_dist));
	r->top_dirs = calloc(top ? top : 1, sizeof(*r->top_dirs));
	parts = calloc(n, sizeof(*parts));
	for (a = 0; a < n; a++)
		ncap += m->ag[a].nino;
	dfirst = bigmem_calloc(ncap, dsize);
	dcentre = bigmem_calloc(ncap, dsize);
	arr1 = calloc(n, sizeof(*arr1));
	arr2 = calloc(n, sizeof(*arr2));
	arr3 = calloc(n, sizeof(*arr3));
	len1 = calloc(n, sizeof(*len1));
	len3 = calloc(n, sizeof(*len3));
	if (!r->ag || !r->top_frag || !r->top_dist || !r->top_dirs ||
	    !parts || !dfirst || !dcentre || !arr1 || !arr2 || !arr3 || !len1 || !len3 ||
	    topk_init(&tk[0], r->top_frag, top) ||
	    topk_init(&tk[1], r->top_dist, top) ||
	    topk_init(&tk[2], r->top_dirs, top)) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (a = 0, at = 0; a < n; a++) {
		struct part *p = &parts[a];

		p->dfirst = dfirst + at * dsize;
		p->dcentre = dcentre + at * dsize;
		at += m->ag[a].nino;
		p->m = m;
		p->r = r;
		p->agno = a;
		p->dsize = dsize;
		p->data_blocks = calloc(n, sizeof(*p->data_blocks));
		if (!p->data_blocks || topk_alloc(&p->top_frag, top) ||
		    topk_alloc(&p->top_dist, top) ||
		    topk_alloc(&p->top_dirs, top)) {
			ret = err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
	}
	par_for(n, m->threads, part_run, parts);

	for (a = 0; a < n; a++) {
		struct part *p = &parts[a];
		unsigned k;

		if (p->err) {
			ret = err_set(e, p->err, "out of memory");
			goto out;
		}
		ag_table(m, &m->ag[a], &r->ag[a]);
		if (m->ag[a].err) {
			r->damaged_ags++;
			r->damaged_items += m->ag[a].ndamaged;
		}
		for (b = 0; b < n; b++)
			r->ag[b].data_blocks += p->data_blocks[b];
		r->frag_actual += p->frag.actual;
		r->frag_ideal += p->frag.ideal;
		r->files += p->files;
		r->files_data += p->files_data;
		r->files_multi += p->files_multi;
		r->bytes += p->bytes;
		r->bytes_multi += p->bytes_multi;
		r->data_extents += p->data_extents;
		for (k = 0; k < RPT_EXT_BUCKETS; k++)
			r->ext_hist[k] += p->ext_hist[k];
		r->dist_first.cross_ag += p->cross_ag;
		r->order_pairs += p->order_pairs;
		r->order_rising += p->order_rising;
		r->ag[a].order_pairs = p->order_pairs;
		r->ag[a].order_rising = p->order_rising;
		r->ag[a].median_dist = p->median_dist;
		r->dirs += p->dirs;
		r->dirs_multi_ag += p->dirs_multi_ag;
		r->dir_children += p->dir_children;
		top_merge(&tk[0], &p->top_frag);
		top_merge(&tk[1], &p->top_dist);
		top_merge(&tk[2], &p->top_dirs);
		arr1[a] = p->dfirst;
		arr2[a] = p->dcentre;
		len1[a] = p->nd;
		arr3[a] = p->dirmean;
		len3[a] = p->ndm;
	}
	{
		struct ag_percentiles pc = {
			{ arr1, arr2, arr3 }, { len1, len1, len3 },
			{ dsize, dsize, sizeof(uint64_t) }, n, { { 0 } }, { 0 }
		};

		par_for(3, m->threads, pcts_one, &pc);
		if (pc.err[0] || pc.err[1] || pc.err[2]) {
			ret = err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
		dist_set(&r->dist_first, len1, n, pc.out[0]);
		dist_set(&r->dist_centre, len1, n, pc.out[1]);
		r->dir_median_mean = pc.out[2][0];
	}
	report_freesp(m, agsel, &r->freesp);
	r->ntop_frag = tk[0].n;
	r->ntop_dist = tk[1].n;
	r->ntop_dirs = tk[2].n;
	sort_any(r->top_frag, r->ntop_frag, sizeof(*r->top_frag), cmp_item);
	sort_any(r->top_dist, r->ntop_dist, sizeof(*r->top_dist), cmp_item);
	sort_any(r->top_dirs, r->ntop_dirs, sizeof(*r->top_dirs), cmp_item);
	for (a = 0; a < r->ntop_dirs; a++)
		r->top_dirs[a].value >>= 40;	/* back to AGs spanned */
out:
	for (a = 0; parts && a < n; a++) {
		free(parts[a].dirmean);
		free(parts[a].data_blocks);
		free(parts[a].top_frag.t);
		free(parts[a].top_frag.h);
		free(parts[a].top_dist.t);
		free(parts[a].top_dist.h);
		free(parts[a].top_dirs.t);
		free(parts[a].top_dirs.h);
	}
	for (a = 0; a < 3; a++)
		free(tk[a].h);
	bigmem_free(dfirst, ncap, dsize);
	bigmem_free(dcentre, ncap, dsize);
	free(parts);
	free(arr1);
	free(arr2);
	free(arr3);
	free(len1);
	free(len3);
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
