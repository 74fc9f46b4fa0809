/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Walk orders over the model's directory links (walk.h).  Memory: four
 * bytes per inode for the order, one bit per inode for "seen", sixteen
 * bytes per directory for the index into the links, and one frame per
 * level of the walk, and the index from inode numbers to the model's
 * inodes (inoidx.h: a few bytes per 64-inode slot in use); on threads
 * (dfs_par), each slice after the first has an order and a "seen" of
 * its own as well.
 */
#include "core/model/walk.h"
#include "core/base/array.h"
#include "core/base/bigmem.h"
#include "core/base/par.h"
#include "core/base/sort.h"
#include "core/base/search.h"
#include "core/fs/dir.h"
#include "core/model/inoidx.h"

#include <stdlib.h>
#include <string.h>

/* One directory's entries in an AG's link array. */
struct drun {
	uint64_t parent;
	uint32_t first, count;
};

/* A level of the walk: the entries of one directory still to visit. */
struct frame {
	uint32_t *kids;		/* WALK_NAME: sorted children (owned), or */
	bool lent;		/* a slice of the root's (not owned) */
	size_t nkids, pos;
	/* WALK_READDIR: a range of links, run after run of one parent */
	uint32_t agno;
	size_t run, link, end;
};

struct walker {
	const struct model *m;
	struct walk *w;
	struct err *e;
	const struct inoidx *idx;	/* inode number -> model inode */
	struct inoidx_cur cur;		/* its last slot */
	struct drun **runs;	/* per AG, sorted by parent */
	size_t *nruns, *capruns;	/* capruns: bigmem's, for the free */
	uint64_t *seen;		/* bit per dense index */
	uint32_t *out;		/* the order: w->seq, or a segment's own */
	size_t nout;
	struct frame *st;
	size_t top, cap;
};

/*
 * An inode to visit: its dense index and, when dir >= 0, whether it is
 * a directory and its number (found without reading its m_ino: the
 * walk reaches them in any order, and each read is a cache miss).
 */
struct kid {
	uint32_t d;
	int dir;
	uint64_t ino;
};

static int cmp_drun(const void *a, const void *b)
{
	const struct drun *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * Index each AG's links by directory.  The scan stores one directory's
 * entries together, in the order it read them; sorting the runs (not
 * the links) keeps that order whatever order the directories came in.
 * One AG per thread: they are independent.
 */
struct index_job {
	struct walker *wk;
	int err;
};

static void index_ag(void *priv, unsigned a)
{
	struct index_job *job = priv;
	struct walker *wk = job->wk;
	const struct m_ag *ag = &wk->m->ag[a];
	struct drun *runs = NULL;
	size_t k, n = 0, cap = 0;

	/* one pass over the links (they are the model's largest array
	 * after the inodes): the runs' array grows as they come */
	for (k = 0; k < ag->nlink; k++) {
		if (!k || ag->link[k].parent != ag->link[k - 1].parent) {
			if (bigmem_grow((void **)&runs, &cap, n, sizeof(*runs))) {
				bigmem_free(runs, cap, sizeof(*runs));
				__atomic_store_n(&job->err, -ENOMEM,
						 __ATOMIC_RELAXED);
				return;
			}
			runs[n].parent = ag->link[k].parent;
			runs[n].first = (uint32_t)k;
			runs[n].count = 0;
			n++;
		}
		runs[n - 1].count++;
	}
	sort_any(runs, n, sizeof(*runs), cmp_drun);
	wk->runs[a] = runs;
	wk->nruns[a] = n;
	wk->capruns[a] = cap;
}

static int index_links(struct walker *wk, unsigned threads)
{
	const struct model *m = wk->m;
	struct index_job job = { wk, 0 };

	wk->runs = calloc(m->agcount ? m->agcount : 1, sizeof(*wk->runs));
	wk->nruns = calloc(m->agcount ? m->agcount : 1, sizeof(*wk->nruns));
	wk->capruns = calloc(m->agcount ? m->agcount : 1,
			     sizeof(*wk->capruns));
	if (!wk->runs || !wk->nruns || !wk->capruns)
		return -ENOMEM;
	par_for(m->agcount, threads, index_ag, &job);
	return job.err;
}

static bool seen_test_set(struct walker *wk, uint32_t d)
{
	uint64_t bit = 1ull << (d & 63);
	bool was = wk->seen[d >> 6] & bit;

	wk->seen[d >> 6] |= bit;
	return was;
}

static inline int dense_of(struct walker *wk, uint64_t ino, struct kid *kd)
{
	uint32_t agno, k;
	bool dir;

	if (!inoidx_locate(wk->idx, &wk->cur, ino, &agno, &k, &dir))
		return -ENOENT;
	kd->d = (uint32_t)(wk->w->base[agno] + k);
	kd->dir = dir;
	kd->ino = ino;
	return 0;
}

/* ---- WALK_NAME: a directory's entries sorted by name ---- */

struct nent {
	uint32_t off, len;	/* name bytes in the pool */
	uint32_t dense;
};

struct ncollect {
	struct walker *wk;
	struct nent *v;
	size_t n, cap;
	uint8_t *pool;
	size_t used, pcap;
};

static int name_cb(void *priv, const uint8_t *name, size_t len, uint64_t ino,
		   uint8_t ftype, struct err *e)
{
	struct ncollect *nc = priv;
	struct kid kd;

	(void)ftype;
	(void)e;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (dense_of(nc->wk, ino, &kd))
		return 0;	/* not an inode the scan kept */
	if (array_grow((void **)&nc->v, &nc->cap, nc->n, sizeof(*nc->v), 64))
		return -ENOMEM;
	if (nc->used + len > nc->pcap) {
		size_t cap = (nc->pcap ? nc->pcap * 2 : 4096) + len;
		uint8_t *p = realloc(nc->pool, cap);

		if (!p)
			return -ENOMEM;
		nc->pool = p;
		nc->pcap = cap;
	}
	memcpy(nc->pool + nc->used, name, len);
	nc->v[nc->n].off = (uint32_t)nc->used;
	nc->v[nc->n].len = (uint32_t)len;
	nc->v[nc->n].dense = kd.d;
	nc->used += len;
	nc->n++;
	return 0;
}

static int cmp_nent(const void *a, const void *b, void *arg)
{
	const struct nent *x = a, *y = b;
	const uint8_t *pool = arg;
	uint32_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(pool + x->off, pool + y->off, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Sorted children of dir; *nkids 0 and NULL when it cannot be read. */
static int sorted_kids(struct walker *wk, uint64_t ino, uint32_t **kids,
		       size_t *nkids)
{
	struct ncollect nc = { 0 };
	struct dir d;
	struct err e2 = { 0 };
	size_t i;
	int ret = 0;

	nc.wk = wk;
	*kids = NULL;
	*nkids = 0;
	if (dir_open(wk->m->fs, ino, &d, &e2))
		return 0;	/* damaged: the caller falls back on the links */
	ret = dir_iterate(&d, name_cb, &nc, &e2);
	dir_close(&d);
	if (ret == -ENOMEM)
		goto out;
	ret = 0;
	if (nc.n > 1)
		qsort_r(nc.v, nc.n, sizeof(*nc.v), cmp_nent, nc.pool);
	*kids = malloc((nc.n ? nc.n : 1) * sizeof(**kids));
	if (!*kids) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nc.n; i++)
		(*kids)[i] = nc.v[i].dense;
	*nkids = nc.n;
out:
	free(nc.v);
	free(nc.pool);
	return ret;
}

/* ---- the depth-first walk ---- */

static inline bool run_before(const struct drun *r, uint64_t parent)
{
	return r->parent < parent;
}

SEARCH_FIRST(run_search, struct drun, uint64_t, run_before)

static int push_dir(struct walker *wk, uint64_t ino)
{
	const struct od_geo *g = &wk->m->fs->geo;
	uint32_t agno = od_ino_agno(g, ino);
	struct frame *f;
	size_t lo;

	if (array_grow((void **)&wk->st, &wk->cap, wk->top,
		       sizeof(*wk->st), 64))
		return -ENOMEM;
	f = &wk->st[wk->top];
	memset(f, 0, sizeof(*f));
	if (wk->w->order == WALK_NAME) {
		int ret = sorted_kids(wk, ino, &f->kids, &f->nkids);

		if (ret)
			return ret;
		if (f->kids) {
			wk->top++;
			return 0;
		}
	}
	if (agno >= wk->m->agcount)
		return 0;
	lo = run_search(wk->runs[agno], wk->nruns[agno], ino);
	if (lo == wk->nruns[agno] || wk->runs[agno][lo].parent != ino)
		return 0;	/* no entries */
	f->agno = agno;
	f->run = lo;
	f->link = wk->runs[agno][lo].first;
	f->end = f->link + wk->runs[agno][lo].count;
	wk->top++;
	return 0;
}

/* The next child of the top frame: 1 and the child, or 0 when it is done. */
static inline int frame_next(struct walker *wk, struct frame *f,
			     struct kid *kd)
{
	if (f->kids) {
		if (f->pos == f->nkids)
			return 0;
		kd->d = f->kids[f->pos++];
		kd->dir = -1;	/* the caller looks it up */
		return 1;
	}
	for (;;) {
		const struct drun *r;

		if (f->link < f->end) {
			uint64_t ino = wk->m->ag[f->agno].link[f->link++].child;

			if (dense_of(wk, ino, kd) == 0)
				return 1;
			continue;
		}
		/* a directory whose entries came in more than one run */
		r = &wk->runs[f->agno][f->run];
		if (f->run + 1 >= wk->nruns[f->agno] || r[1].parent != r[0].parent)
			return 0;
		f->run++;
		f->link = r[1].first;
		f->end = f->link + r[1].count;
	}
}

static inline int visit(struct walker *wk, const struct kid *kd)
{
	if (seen_test_set(wk, kd->d))
		return 0;
	wk->out[wk->nout++] = kd->d;
	if (kd->dir < 0) {
		const struct m_ino *mi = walk_inode(wk->w, kd->d, NULL);

		if (od_mode_isdir(mi->mode))
			return push_dir(wk, mi->ino);
		return 0;
	}
	return kd->dir ? push_dir(wk, kd->ino) : 0;
}

static void pop(struct walker *wk)
{
	struct frame *f = &wk->st[--wk->top];

	if (!f->lent)
		free(f->kids);
}

/* Walk until the stack is empty. */
static int dfs_run(struct walker *wk)
{
	struct kid kd;
	int ret = 0;

	while (!ret && wk->top) {
		struct frame *f = &wk->st[wk->top - 1];

		if (frame_next(wk, f, &kd) == 0) {
			pop(wk);
			continue;
		}
		ret = visit(wk, &kd);
	}
	while (wk->top)
		pop(wk);
	return ret;
}

static int dfs(struct walker *wk)
{
	struct kid kd;
	int ret;

	if (dense_of(wk, wk->m->fs->sb.rootino, &kd))
		return 0;	/* no root: nothing is reached */
	ret = visit(wk, &kd);
	return ret ? ret : dfs_run(wk);
}

/*
 * ---- the readdir walk on several threads ----
 *
 * The root's entries are cut into slices, one per thread, each walked
 * depth first with a "seen" of its own; the orders are then put end to
 * end, each leaving out what a slice before it reached.  That is the
 * order one walk gives: whatever an earlier slice reached, one walk had
 * seen before this slice began, and so had everything reachable from it
 * (its directories were done with); a later slice that walks there again
 * finds only such inodes, which it drops, and marks only them seen, so
 * what it decides for the others is what one walk decides.
 */
#define WALK_PAR_MIN	65536	/* inodes, at least, for the threads */

struct slice {
	struct walker wk;
	const uint32_t *kids;
	size_t nkids;
	int err;
};

static void slice_run(void *priv, unsigned i)
{
	struct slice *sl = (struct slice *)priv + i;
	struct walker *wk = &sl->wk;

	if (!sl->nkids)
		return;
	wk->st = malloc(64 * sizeof(*wk->st));
	if (!wk->st) {
		sl->err = -ENOMEM;
		return;
	}
	wk->cap = 64;
	memset(&wk->st[0], 0, sizeof(wk->st[0]));
	wk->st[0].kids = (uint32_t *)sl->kids;
	wk->st[0].lent = true;
	wk->st[0].nkids = sl->nkids;
	wk->top = 1;
	sl->err = dfs_run(wk);
}

/* The root visited by wk (w->seq[0]): its entries, in walk order. */
static int root_kids(struct walker *wk, uint32_t **kids, size_t *n)
{
	size_t cap = 1024;
	struct kid kd;

	*n = 0;
	*kids = malloc(cap * sizeof(**kids));
	if (!*kids)
		return -ENOMEM;
	while (wk->top && frame_next(wk, &wk->st[0], &kd)) {
		if (array_grow((void **)kids, &cap, *n, sizeof(**kids), 1024))
			return -ENOMEM;
		(*kids)[(*n)++] = kd.d;
	}
	while (wk->top)
		pop(wk);
	return 0;
}

static int dfs_par(struct walker *wk, unsigned nseg, uint64_t total)
{
	struct walk *w = wk->w;
	struct slice *sl = NULL;
	struct kid kd;
	uint32_t *kids = NULL;
	size_t nkids = 0, words = total / 64 + 1, i, k;
	unsigned s;
	int ret;

	if (dense_of(wk, wk->m->fs->sb.rootino, &kd))
		return 0;	/* no root: nothing is reached */
	w->seq[0] = kd.d;
	ret = visit(wk, &kd);
	if (!ret)
		ret = root_kids(wk, &kids, &nkids);
	if (ret)
		goto out;
	if (nkids < nseg)
		nseg = nkids ? (unsigned)nkids : 1;
	sl = calloc(nseg, sizeof(*sl));
	if (!sl) {
		ret = -ENOMEM;
		goto out;
	}
	for (s = 0; s < nseg; s++) {
		struct walker *sw = &sl[s].wk;

		sw->m = wk->m;
		sw->w = w;
		sw->e = wk->e;
		sw->idx = wk->idx;
		sw->runs = wk->runs;
		sw->nruns = wk->nruns;
		sw->seen = malloc(words * sizeof(*sw->seen));
		sw->out = s ? bigmem_calloc(total ? total : 1,
					    sizeof(*sw->out)) :
			      w->seq + 1;	/* the first goes in place */
		if (!sw->seen || !sw->out) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(sw->seen, wk->seen, words * sizeof(*sw->seen));
		sl[s].kids = kids + nkids * s / nseg;
		sl[s].nkids = nkids * (s + 1) / nseg - nkids * s / nseg;
	}
	par_for(nseg, nseg, slice_run, sl);
	for (s = 0; s < nseg && !ret; s++)
		ret = sl[s].err;
	if (ret)
		goto out;
	/* end to end, each without what the ones before it reached */
	w->n = 1 + sl[0].wk.nout;
	memcpy(wk->seen, sl[0].wk.seen, words * sizeof(*wk->seen));
	for (s = 1; s < nseg; s++) {
		const struct walker *sw = &sl[s].wk;

		for (i = 0; i < sw->nout; i++) {
			uint32_t d = sw->out[i];

			if (!(wk->seen[d >> 6] & (1ull << (d & 63))))
				w->seq[w->n++] = d;
		}
		for (k = 0; k < words; k++)
			wk->seen[k] |= sw->seen[k];
	}
out:
	for (s = 0; sl && s < nseg; s++) {
		free(sl[s].wk.seen);
		free(sl[s].wk.st);
		if (s)
			bigmem_free(sl[s].wk.out, total ? total : 1,
				    sizeof(*sl[s].wk.out));
	}
	free(sl);
	free(kids);
	return ret;
}

int walk_build(const struct model *m, enum walk_order order, struct walk *w,
	       struct err *e)
{
	unsigned nseg = m->threads ? m->threads : par_ncpus();
	uint64_t total = 0;
	uint32_t a;

	for (a = 0; a < m->agcount; a++)
		total += m->ag[a].nino;
	if (total < WALK_PAR_MIN)
		nseg = 1;
	return walk_build_segs(m, order, nseg, w, e);
}

int walk_build_segs(const struct model *m, enum walk_order order,
		    unsigned nseg, struct walk *w, struct err *e)
{
	struct walker wk = { 0 };
	struct inoidx idx = { 0 };
	uint64_t total = 0;
	uint32_t a;
	size_t i;
	int ret = 0;

	memset(w, 0, sizeof(*w));
	w->m = m;
	w->order = order;
	w->base = malloc((m->agcount + 1) * sizeof(*w->base));
	if (!w->base)
		goto nomem;
	for (a = 0; a < m->agcount; a++) {
		w->base[a] = total;
		total += m->ag[a].nino;
	}
	w->base[m->agcount] = total;
	if (total >= UINT32_MAX) {
		walk_free(w);
		return err_set(e, -EOVERFLOW, "walk: %llu inodes are more "
			       "than the walk can number",
			       (unsigned long long)total);
	}
	w->seq = bigmem_calloc(total ? total : 1, sizeof(*w->seq));
	wk.seen = calloc(total / 64 + 1, sizeof(*wk.seen));
	if (!w->seq || !wk.seen)
		goto nomem;
	wk.m = m;
	wk.w = w;
	wk.e = e;
	if (order == WALK_INODE) {
		for (i = 0; i < total; i++)
			w->seq[i] = (uint32_t)i;
		w->n = w->nreached = total;
		goto out;
	}
	wk.out = w->seq;
	if (inoidx_build(m, &idx, e))
		goto nomem;
	wk.idx = &idx;
	ret = index_links(&wk, nseg ? nseg : 1);
	/* by name, directories are read again: one thread */
	if (!ret && (order != WALK_READDIR || nseg < 2)) {
		ret = dfs(&wk);
		w->n = wk.nout;
	} else if (!ret) {
		ret = dfs_par(&wk, nseg, total);
	}
	if (ret)
		goto nomem;
	w->nreached = w->n;
	for (i = 0; i < total; i++) {
		if (!(i & 63) && wk.seen[i >> 6] == ~0ull) {
			i += 63;	/* a word of reached inodes */
			continue;
		}
		if (!(wk.seen[i >> 6] & (1ull << (i & 63))))
			w->seq[w->n++] = (uint32_t)i;
	}
	goto out;
nomem:
	ret = err_set(e, -ENOMEM, "out of memory");
out:
	inoidx_free(&idx);
	for (a = 0; wk.runs && wk.capruns && a < m->agcount; a++)
		bigmem_free(wk.runs[a], wk.capruns[a], sizeof(**wk.runs));
	free(wk.runs);
	free(wk.nruns);
	free(wk.capruns);
	free(wk.seen);
	free(wk.st);
	if (ret)
		walk_free(w);	/* only nomem comes here with an error */
	return ret;
}

void walk_free(struct walk *w)
{
	size_t total = w->base && w->m ? w->base[w->m->agcount] : 0;

	if (w->seq)
		bigmem_free(w->seq, total ? total : 1, sizeof(*w->seq));
	free(w->base);
	memset(w, 0, sizeof(*w));
}

static inline bool base_at_or_before(const uint64_t *base, uint32_t d)
{
	return *base <= d;
}

SEARCH_FIRST(base_search, uint64_t, uint32_t, base_at_or_before)

const struct m_ino *walk_inode(const struct walk *w, uint32_t d,
			       const struct m_ag **agp)
{
	/* the last AG whose base is <= d */
	size_t lo = base_search(w->base, w->m->agcount, d);

	lo = lo ? lo - 1 : 0;
	if (agp)
		*agp = &w->m->ag[lo];
	return &w->m->ag[lo].ino[d - w->base[lo]];
}

const char *walk_order_name(enum walk_order o)
{
	switch (o) {
	case WALK_READDIR: return "walk";
	case WALK_NAME: return "name";
	case WALK_INODE: return "inode";
	}
	return "?";
}

int walk_order_parse(const char *s, enum walk_order *o)
{
	if (strcmp(s, "walk") == 0)
		*o = WALK_READDIR;
	else if (strcmp(s, "name") == 0)
		*o = WALK_NAME;
	else if (strcmp(s, "inode") == 0)
		*o = WALK_INODE;
	else
		return -EINVAL;
	return 0;
}
