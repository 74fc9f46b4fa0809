/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/model/tree.h"
#include "core/base/array.h"
#include "core/model/readback.h"
#include "ondisk/geo.h"
#include "core/base/search.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Children of each directory, in the order the scan recorded them. */
struct kids {
	uint64_t *start;	/* n + 1 */
	uint32_t *child;
};

uint32_t tree_index(const struct tree *t, uint64_t ino)
{
	const struct m_ag *ag;
	const struct m_ino *mi = model_find(t->m, ino, &ag);

	if (!mi)
		return TREE_NONE;
	return (uint32_t)(t->base[ag->agno] + (uint64_t)(mi - ag->ino));
}

static inline bool base_at_or_before(const uint64_t *base, uint32_t d)
{
	return *base <= d;
}

SEARCH_FIRST(base_search, uint64_t, uint32_t, base_at_or_before)

static const struct m_ino *inode_of(const struct tree *t, uint32_t d,
				    const struct m_ag **agp)
{
	/* the last AG whose base is <= d */
	size_t lo = base_search(t->base, t->m->agcount, d);

	lo = lo ? lo - 1 : 0;
	*agp = &t->m->ag[lo];
	return &t->m->ag[lo].ino[d - t->base[lo]];
}

static int build_kids(const struct tree *t, struct kids *k, struct err *e)
{
	const struct model *m = t->m;
	uint64_t *fill = NULL, total = 0;
	uint32_t a;
	size_t i;
	int pass;

	k->start = calloc(t->n + 1, sizeof(*k->start));
	if (!k->start)
		return err_set(e, -ENOMEM, "out of memory");
	/* count, then place: two passes over every AG's links */
	for (pass = 0; pass < 2; pass++) {
		for (a = 0; a < m->agcount; a++)
			for (i = 0; i < m->ag[a].nlink; i++) {
				const struct m_link *l = &m->ag[a].link[i];
				uint32_t p = tree_index(t, l->parent);
				uint32_t c = tree_index(t, l->child);

				if (p == TREE_NONE || c == TREE_NONE)
					continue;
				if (pass == 0)
					k->start[p + 1]++;
				else
					k->child[fill[p]++] = c;
			}
		if (pass)
			break;
		for (i = 0; i < t->n; i++)
			k->start[i + 1] += k->start[i];
		total = k->start[t->n];
		k->child = malloc((total ? total : 1) * sizeof(*k->child));
		fill = malloc((t->n ? t->n : 1) * sizeof(*fill));
		if (!k->child || !fill) {
			free(fill);
			return err_set(e, -ENOMEM, "out of memory");
		}
		memcpy(fill, k->start, t->n * sizeof(*fill));
	}
	free(fill);
	return 0;
}

/* Blocks of both forks, and whether it is a directory. */
static uint64_t blocks_of(const struct m_ag *ag, const struct m_ino *mi)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < mi->nde + mi->nae; i++) {
		struct od_irec r;

		m_ext_get(&ag->ext[mi->ext + i], &r);
		n += r.blockcount;
	}
	return n;
}

/*
 * Depth first from the root, each inode at its first entry: parent[]
 * and the preorder (every directory before what it holds).
 */
static int walk(struct tree *t, const struct kids *k, uint32_t root,
		uint32_t **order, size_t *norder, struct err *e)
{
	uint32_t *stack = malloc((t->n ? t->n : 1) * sizeof(*stack));
	uint32_t *out = malloc((t->n ? t->n : 1) * sizeof(*out));
	size_t sp = 0, no = 0;
	uint64_t j;

	if (!stack || !out) {
		free(stack);
		free(out);
		return err_set(e, -ENOMEM, "out of memory");
	}
	t->parent[root] = root;
	stack[sp++] = root;
	while (sp) {
		uint32_t d = stack[--sp];

		out[no++] = d;
		/* pushed last first, so popped in the scan's order */
		for (j = k->start[d + 1]; j > k->start[d]; j--) {
			uint32_t c = k->child[j - 1];

			if (t->parent[c] != TREE_NONE)
				continue;	/* reached before: a hard link */
			t->parent[c] = d;
			stack[sp++] = c;
		}
	}
	free(stack);
	*order = out;
	*norder = no;
	return 0;
}

static void totals(struct tree *t, const uint32_t *order, size_t norder)
{
	size_t i;

	for (i = norder; i-- > 0;) {
		uint32_t d = order[i], p = t->parent[d];
		const struct m_ag *ag;
		const struct m_ino *mi = inode_of(t, d, &ag);
		struct tree_tot *tp = &t->tot[p];
		uint64_t blocks = blocks_of(ag, mi);

		if (S_ISDIR(mi->mode)) {
			struct tree_tot *td = &t->tot[d];

			td->blocks += blocks;
			td->extents += mi->nde;
			if (p == d)
				continue;	/* the root */
			tp->bytes += td->bytes;
			tp->blocks += td->blocks;
			tp->files += td->files;
			tp->dirs += td->dirs + 1;
			tp->extents += td->extents;
			continue;
		}
		tp->bytes += S_ISREG(mi->mode) ? mi->size : 0;
		tp->blocks += blocks;
		tp->files++;
		tp->extents += mi->nde;
	}
}

static inline bool chunk_at_or_before(const struct od_inobt_rec *r,
				      uint32_t agino)
{
	return r->startino <= agino;
}

SEARCH_FIRST(chunk_search, struct od_inobt_rec, uint32_t, chunk_at_or_before)

/* Where the inode cluster holding ino starts, in bytes, and its length. */
static uint64_t cluster_of(const struct model *m, uint64_t ino, uint64_t *len)
{
	const struct od_geo *g = &m->fs->geo;
	uint32_t agno = od_ino_agno(g, ino), agino = od_ino_agino(g, ino);
	uint32_t bpc = g->blocks_per_cluster ? g->blocks_per_cluster : 1;
	uint32_t agbno = od_agino_agbno(g, agino), cb = agbno;
	/* lo - 1: the last chunk starting at or before it */
	size_t lo = agno < m->agcount ?
		    chunk_search(m->ag[agno].chunk, m->ag[agno].nchunk, agino) : 0;

	if (lo) {
		uint32_t c0 = od_agino_agbno(g,
					     m->ag[agno].chunk[lo - 1].startino);

		if (agbno >= c0)
			cb = c0 + (agbno - c0) / bpc * bpc;
	}
	*len = (uint64_t)bpc << g->blocklog;
	return od_agb_lin(g, agno, cb) << g->blocklog;
}

/* The written extents of an inode's data fork, read in file order. */
static void read_data(struct rb_acc *acc, const struct model *m,
		      const struct m_ag *ag, const struct m_ino *mi)
{
	const struct od_geo *g = &m->fs->geo;
	uint32_t i;

	if (mi->flags & MI_REALTIME)
		return;
	for (i = 0; i < mi->nde; i++) {
		struct od_irec r;

		m_ext_get(&ag->ext[mi->ext + i], &r);
		if (!r.unwritten)
			rb_acc_read(acc, od_fsb_lin(g, r.startblock) <<
				    g->blocklog,
				    (uint64_t)r.blockcount << g->blocklog);
	}
}

/* Cluster offsets already read while costing one directory. */
struct seen {
	uint64_t *slot;		/* 0: empty (offset + 1 stored) */
	size_t cap;
};

static bool seen_add(struct seen *s, uint64_t off)
{
	size_t h = (size_t)((off >> 9) * 0x9e3779b97f4a7c15ull) & (s->cap - 1);

	while (s->slot[h]) {
		if (s->slot[h] == off + 1)
			return false;
		h = (h + 1) & (s->cap - 1);
	}
	s->slot[h] = off + 1;
	return true;
}

static int own_cost(struct tree *t, const struct kids *k, uint32_t d,
		    struct seen *s, uint8_t *done, struct err *e)
{
	const struct model *m = t->m;
	uint64_t nk = k->start[d + 1] - k->start[d], j, off, len;
	const struct m_ag *ag;
	const struct m_ino *mi = inode_of(t, d, &ag);
	struct rb_fig f;
	struct rb_acc acc;

	if (array_reserve((void **)&s->slot, &s->cap, 2 * (nk + 1),
			  sizeof(*s->slot), 16))
		return err_set(e, -ENOMEM, "out of memory");
	memset(s->slot, 0, s->cap * sizeof(*s->slot));
	memset(&f, 0, sizeof(f));
	rb_acc_init(&acc, &f);
	off = cluster_of(m, mi->ino, &len);
	rb_acc_start(&acc, off);	/* the head starts at the directory */
	seen_add(s, off);
	rb_acc_read(&acc, off, len);
	read_data(&acc, m, ag, mi);
	for (j = k->start[d]; j < k->start[d + 1]; j++) {
		const struct m_ag *cag;
		const struct m_ino *cm;

		/* an inode is read once, at its first name (readback.h):
		 * the other links to it, here or elsewhere, read nothing */
		if (t->parent[k->child[j]] != d || done[k->child[j]])
			continue;
		done[k->child[j]] = 1;
		cm = inode_of(t, k->child[j], &cag);

		off = cluster_of(m, cm->ino, &len);
		if (seen_add(s, off))
			rb_acc_read(&acc, off, len);
		if (S_ISREG(cm->mode))
			read_data(&acc, m, cag, cm);
	}
	t->own_s[d] = f.hdd_seconds;
	return 0;
}

int tree_build(const struct model *m, struct tree *t, struct err *e)
{
	struct kids k = { 0 };
	struct seen s = { 0 };
	uint8_t *done = NULL;
	uint32_t *order = NULL, a, root;
	size_t norder = 0, i;
	int ret;

	memset(t, 0, sizeof(*t));
	t->m = m;
	t->base = calloc(m->agcount + 1, sizeof(*t->base));
	if (!t->base)
		return err_set(e, -ENOMEM, "out of memory");
	for (a = 0; a < m->agcount; a++)
		t->base[a + 1] = t->base[a] + m->ag[a].nino;
	t->n = t->base[m->agcount];
	if (t->n >= TREE_NONE)
		return err_set(e, -EOVERFLOW, "too many inodes for the tree");
	t->parent = malloc((t->n ? t->n : 1) * sizeof(*t->parent));
	t->tot = calloc(t->n ? t->n : 1, sizeof(*t->tot));
	t->own_s = calloc(t->n ? t->n : 1, sizeof(*t->own_s));
	if (!t->parent || !t->tot || !t->own_s)
		return err_set(e, -ENOMEM, "out of memory");
	memset(t->parent, 0xff, t->n * sizeof(*t->parent));
	root = tree_index(t, m->fs->sb.rootino);
	if (root == TREE_NONE)
		return 0;	/* no root in the model: no tree */
	ret = build_kids(t, &k, e);
	if (!ret)
		ret = walk(t, &k, root, &order, &norder, e);
	if (!ret)
		totals(t, order, norder);
	if (!ret && !(done = calloc(t->n ? t->n : 1, 1)))
		ret = err_set(e, -ENOMEM, "out of memory");
	for (i = 0; !ret && i < norder; i++) {
		const struct m_ag *ag;

		if (S_ISDIR(inode_of(t, order[i], &ag)->mode))
			ret = own_cost(t, &k, order[i], &s, done, e);
	}
	free(done);
	free(order);
	free(k.start);
	free(k.child);
	free(s.slot);
	return ret;
}

void tree_free(struct tree *t)
{
	free(t->base);
	free(t->parent);
	free(t->tot);
	free(t->own_s);
	memset(t, 0, sizeof(*t));
}

const struct tree_tot *tree_totals(const struct tree *t, uint64_t ino)
{
	uint32_t d = t->base ? tree_index(t, ino) : TREE_NONE;
	const struct m_ag *ag;

	if (d == TREE_NONE || !S_ISDIR(inode_of(t, d, &ag)->mode) ||
	    t->parent[d] == TREE_NONE)
		return NULL;
	return &t->tot[d];
}

double tree_own_seconds(const struct tree *t, uint64_t ino)
{
	uint32_t d = t->base ? tree_index(t, ino) : TREE_NONE;

	return d == TREE_NONE ? 0.0 : t->own_s[d];
}

static int by_cost(const void *a, const void *b, void *priv)
{
	const double *s = priv;
	double x = s[*(const uint32_t *)a], y = s[*(const uint32_t *)b];

	return x > y ? -1 : x < y ? 1 : 0;
}

size_t tree_costliest(const struct tree *t, uint64_t *out, size_t n)
{
	uint32_t *idx;
	size_t nd = 0, i;
	uint64_t d;

	if (!t->own_s || !n)
		return 0;
	idx = malloc((t->n ? t->n : 1) * sizeof(*idx));
	if (!idx)
		return 0;
	for (d = 0; d < t->n; d++)
		if (t->own_s[d] > 0)
			idx[nd++] = (uint32_t)d;
	qsort_r(idx, nd, sizeof(*idx), by_cost, t->own_s);
	for (i = 0; i < nd && i < n; i++) {
		const struct m_ag *ag;

		out[i] = inode_of(t, idx[i], &ag)->ino;
	}
	free(idx);
	return i;
}
