/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode renumbering, the outcome: once the stream has placed the new
 * chunks (plan_stream.c), every moving inode's new number, the chunk
 * records the run adds and drops, the alignment gaps back into free
 * space, and AGI newino.
 */
#include "core/relocate/plan_priv.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/relocate/btbuild.h"

#include <stdlib.h>
#include <string.h>

int plan_ino_pad(struct planner *pl, uint32_t agno, uint32_t start,
		 uint32_t len)
{
	struct inoplan *ip = pl->ip;

	if (!len)
		return 0;
	if (bigmem_grow((void **)&ip->pad[agno], &ip->cap_pad[agno],
			ip->npad[agno], sizeof(**ip->pad)))
		return -ENOMEM;
	ip->pad[agno][ip->npad[agno]].agbno = start;
	ip->pad[agno][ip->npad[agno]].len = len;
	ip->npad[agno]++;
	return 0;
}

/* The inode map by old number. */
static uint64_t pino_old(const void *e, unsigned f, const void *arg)
{
	(void)f;
	(void)arg;
	return ((const struct plan_ino *)e)->old;
}

static int cmp_ich(const void *a, const void *b)
{
	const struct plan_ichunk *x = a, *y = b;

	if (x->startino != y->startino)
		return x->startino < y->startino ? -1 : 1;
	return (int)x->alloc - (int)y->alloc;	/* the freed one first */
}

static int cmp_free(const void *a, const void *b)
{
	const struct m_free *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The new number of member k of chunk c (placed). */
static uint64_t new_ino(const struct od_geo *g, const struct nchunk *c,
			uint32_t slot)
{
	return od_agino_ino(g, c->agno, (c->agbno << g->inopblog) + slot);
}

/* Index of the model chunk of the AG starting at agino, or nchunk. */
static size_t chunk_at(const struct m_ag *ag, uint32_t agino)
{
	size_t lo = 0, hi = ag->nchunk;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ag->chunk[mid].startino < agino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A new chunk where a freed one was, holding exactly its inodes in their
 * slots (a second run on its own result): nothing moves, the chunk stays.
 */
static void drop_identity(struct planner *pl, struct nchunk *c)
{
	const struct od_geo *g = pl->g;
	const struct m_ag *ag = &pl->m->ag[c->agno];
	uint32_t agino = c->agbno << g->inopblog, i, have = 0;
	size_t k = chunk_at(ag, agino), j, lo, hi;

	/* (a sparse one's holes were free for the new, whole chunk) */
	if (k == ag->nchunk || ag->chunk[k].startino != agino ||
	    !pl->ip->vacated[c->agno][k] || ag->chunk[k].holemask)
		return;
	for (i = 0; i < c->used; i++)
		if (pl->ref[pl->ip->mem[c->first + i]].mi->ino !=
		    new_ino(g, c, i))
			return;
	/* the model's inodes in the chunk: from the first at or after it */
	lo = 0;
	hi = ag->nino;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (od_ino_agino(g, ag->ino[mid].ino) < agino)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (j = lo; j < ag->nino &&
	     od_ino_agino(g, ag->ino[j].ino) < agino + OD_INODES_PER_CHUNK; j++)
		have++;
	if (have != c->used)
		return;
	pl->ip->vacated[c->agno][k] = 0;
	c->same = true;
}

bool plan_ino_span_free(const struct planner *pl, uint32_t agno,
			uint32_t agbno)
{
	const struct od_geo *g = pl->g;
	const struct m_ag *ag = &pl->m->ag[agno];
	uint32_t lo = agbno << g->inopblog, hi = lo + OD_INODES_PER_CHUNK;
	size_t k = chunk_at(ag, lo);

	/* the chunk starting before it, and those starting inside it */
	if (k > 0 && !plan_ino_vacated(pl, agno, k - 1) &&
	    ag->chunk[k - 1].startino + OD_INODES_PER_CHUNK > lo)
		return false;
	for (; k < ag->nchunk && ag->chunk[k].startino < hi; k++)
		if (!plan_ino_vacated(pl, agno, k))
			return false;
	return true;
}

int plan_ino_finish(struct planner *pl, uint8_t *nomove)
{
	const struct od_geo *g = pl->g;
	struct inoplan *ip = pl->ip;
	struct plan *p = pl->p;
	bool retry = false;
	size_t k, i;
	uint32_t a;

	for (k = 0; k < ip->nch; k++) {
		const struct nchunk *c = &ip->ch[k];

		if (c->agbno != NOAGBNO)
			continue;
		retry = true;
		/* next time: its own AG, and after that it stays */
		for (i = c->first; i < c->first + c->used; i++) {
			uint32_t d = ip->mem[i];
			uint32_t own = od_ino_agno(g, pl->ref[d].mi->ino);

			nomove[d] = nomove[d] || own == c->agno ? 2 : 1;
		}
	}
	if (retry)
		return -EAGAIN;
	for (k = 0; k < ip->nch; k++)
		drop_identity(pl, &ip->ch[k]);
	p->ino = malloc((ip->nmem ? ip->nmem : 1) * sizeof(*p->ino));
	if (!p->ino)
		return -ENOMEM;
	p->cap_ino = ip->nmem;
	for (k = 0; k < ip->nch; k++) {
		const struct nchunk *c = &ip->ch[k];

		for (i = 0; i < c->used && !c->same; i++) {
			uint32_t d = ip->mem[c->first + i];

			p->ino[p->nino].old = pl->ref[d].mi->ino;
			p->ino[p->nino].new = new_ino(g, c, (uint32_t)i);
			p->nino++;
		}
	}
	if (sort_by_fields(p->ino, p->nino, sizeof(*p->ino), 1, pino_old, NULL))
		return -ENOMEM;
	for (a = 0; a < pl->m->agcount; a++)
		for (k = 0; k < pl->m->ag[a].nchunk; k++)
			p->nich += ip->vacated[a][k];
	for (k = 0; k < ip->nch; k++)
		p->nich += !ip->ch[k].same;
	p->ich = malloc((p->nich ? p->nich : 1) * sizeof(*p->ich));
	if (!p->ich)
		return -ENOMEM;
	p->cap_ich = p->nich;
	p->nich = 0;
	for (k = 0; k < ip->nch; k++) {
		if (ip->ch[k].same)
			continue;
		p->ich[p->nich].startino = new_ino(g, &ip->ch[k], 0);
		p->ich[p->nich].holemask = 0;
		p->ich[p->nich].alloc = true;
		p->nich++;
	}
	for (a = 0; a < pl->m->agcount; a++) {
		const struct m_ag *ag = &pl->m->ag[a];

		for (k = 0; k < ag->nchunk; k++) {
			if (!ip->vacated[a][k])
				continue;
			p->ich[p->nich].startino = od_agino_ino(g, a,
							ag->chunk[k].startino);
			p->ich[p->nich].holemask = ag->chunk[k].holemask;
			p->ich[p->nich].alloc = false;
			p->nich++;
		}
	}
	sort_any(p->ich, p->nich, sizeof(*p->ich), cmp_ich);
	return 0;
}

uint32_t plan_ino_agbt_extra(const struct planner *pl, uint32_t agno)
{
	const struct od_geo *g = pl->g;
	size_t k, n = 0;
	uint32_t b;

	if (!pl->ip)
		return 0;
	for (k = 0; k < pl->ip->nch; k++)
		n += pl->ip->ch[k].agno == agno;
	if (!n)
		return 0;
	b = btbuild_nblocks(g, OD_BT_INO, n, 0);
	if (g->finobt)
		b += btbuild_nblocks(g, OD_BT_FINO, n, 0);
	if (g->rmapbt)
		b += btbuild_nblocks(g, OD_BT_RMAP, 2 * n, 0);
	return b + 1;
}

int plan_ino_chunks_after(const struct planner *pl, uint32_t agno,
			  uint32_t **out, size_t *n)
{
	const struct od_geo *g = pl->g;
	const struct m_ag *ag = &pl->m->ag[agno];
	const struct inoplan *ip = pl->ip;
	uint32_t *v;
	size_t k, c = 0;

	v = malloc((ag->nchunk + (ip ? ip->nch : 0) + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (k = 0; k < ag->nchunk; k++)
		if (!plan_ino_vacated(pl, agno, k))
			v[c++] = ag->chunk[k].startino;
	for (k = 0; ip && k < ip->nch; k++)
		if (ip->ch[k].agno == agno && ip->ch[k].agbno != NOAGBNO &&
		    !ip->ch[k].same)
			v[c++] = ip->ch[k].agbno << g->inopblog;
	sort_any(v, c, sizeof(*v), cmp_u32);
	*out = v;
	*n = c;
	return 0;
}

/* Sorted free extents with the gaps added, touching ones merged. */
static int merge_pads(struct plan_ag *pa, const struct m_free *pad,
		      size_t npad)
{
	struct m_free *v;
	size_t i, n, k = 0;

	if (!npad)
		return 0;
	n = pa->nfreesp + npad;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, pa->freesp, pa->nfreesp * sizeof(*v));
	memcpy(v + pa->nfreesp, pad, npad * sizeof(*v));
	sort_any(v, n, sizeof(*v), cmp_free);
	for (i = 1; i < n; i++) {
		if (v[i].agbno == v[k].agbno + v[k].len)
			v[k].len += v[i].len;
		else
			v[++k] = v[i];
	}
	free(pa->freesp);
	pa->freesp = v;
	pa->nfreesp = k + 1;
	pa->nfree_after = pa->nfreesp;
	pa->free_after = 0;
	pa->longest_after = 0;
	for (i = 0; i < pa->nfreesp; i++) {
		pa->free_after += pa->freesp[i].len;
		if (pa->freesp[i].len > pa->longest_after)
			pa->longest_after = pa->freesp[i].len;
	}
	return 0;
}

/*
 * AGI newino: the kernel puts its next chunk right after newino's
 * (xfs_ialloc_ag_alloc tries newino's block + a chunk first), so name
 * the chunk that ends last at or before the AG's largest free extent
 * (else the AG's first): new chunks then start that free space, next
 * to the data.  Its first inode that is there (a sparse chunk's first
 * present group), as the kernel sets it.
 */
static void set_newino(const struct planner *pl, struct plan_ag *pa)
{
	const struct od_geo *g = pl->g;
	const struct m_ag *ag = &pl->m->ag[pa->agno];
	const struct inoplan *ip = pl->ip;
	const struct m_free *big = NULL;
	uint32_t best = ~0u, best_end = 0, first = ~0u;
	size_t k;

	for (k = 0; k < pa->nfreesp; k++)
		if (!big || pa->freesp[k].len > big->len)
			big = &pa->freesp[k];
	if (!big)
		return;
	for (k = 0; k < ag->nchunk; k++) {
		const struct od_inobt_rec *r = &ag->chunk[k];
		uint32_t grp = 0, last = 0, s, e;

		if (plan_ino_vacated(pl, pa->agno, k))
			continue;
		while (grp < OD_INODES_PER_CHUNK && !od_inobt_present(r, grp))
			grp += OD_INODES_PER_HOLEMASK_BIT;
		for (s = 0; s < OD_INODES_PER_CHUNK; s++)
			if (od_inobt_present(r, s))
				last = s;
		if (grp >= OD_INODES_PER_CHUNK)
			continue;
		s = r->startino + grp;
		e = od_agino_agbno(g, r->startino + last) + 1;
		if (first == ~0u || s < first)
			first = s;
		if (e <= big->agbno && (best == ~0u || e > best_end)) {
			best = s;
			best_end = e;
		}
	}
	for (k = 0; ip && k < ip->nch; k++) {
		const struct nchunk *c = &ip->ch[k];
		uint32_t e = c->agbno + g->ialloc_blks;

		if (c->agno != pa->agno || c->agbno == NOAGBNO || c->same)
			continue;
		if (first == ~0u || (c->agbno << g->inopblog) < first)
			first = c->agbno << g->inopblog;
		if (e <= big->agbno && (best == ~0u || e > best_end)) {
			best = c->agbno << g->inopblog;
			best_end = e;
		}
	}
	pa->newino = best != ~0u ? best : first;
}

int plan_ino_finish_ag(struct planner *pl, uint32_t agno, bool newino)
{
	struct plan_ag *pa = &pl->p->ag[agno];
	int ret = 0;

	if (pl->ip)
		ret = merge_pads(pa, pl->ip->pad[agno], pl->ip->npad[agno]);
	if (!ret && newino)
		set_newino(pl, pa);
	return ret;
}
