// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plan's inode moves, checked and turned into final chunk records
 * before the run writes anything.  A move frees its old slot and takes
 * its new one; the two passes are apart so that chains (A to B's slot, B
 * elsewhere) are fine while two inodes taking one slot, or a slot taken
 * that stays in use, are not.
 */
#include "core/relocate/exec_priv.h"
#include "core/base/array.h"
#include "core/base/sort.h"
#include "core/base/search.h"
#include "ondisk/renum.h"
#include "ondisk/rmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t xr_new(const struct xctx *x, uint64_t ino)
{
	return x->p->nino ? plan_ino_new(x->p, ino) : ino;
}

uint64_t xr_ino_off(const struct xctx *x, uint64_t ino)
{
	const struct od_geo *g = x->g;
	uint32_t agino = od_ino_agino(g, ino);

	return x_off(x, od_agb_lin(g, od_ino_agno(g, ino),
				   od_agino_agbno(g, agino))) +
	       (uint64_t)od_agino_offset(g, agino) * g->inodesize;
}

uint64_t xr_map(void *priv, uint64_t ino)
{
	return xr_new(priv, ino);
}

bool xr_chunk_freed(const struct xctx *x, uint64_t ino)
{
	return plan_ichunk_freed(x->p, ino & ~63ull);
}

static inline bool ino_before(const uint64_t *v, uint64_t ino)
{
	return *v < ino;
}

SEARCH_FIRST(ino_search, uint64_t, uint64_t, ino_before)

bool xr_is_dest(const struct xctx *x, uint64_t ino)
{
	size_t lo = ino_search(x->dst, x->ndst, ino);

	return lo < x->ndst && x->dst[lo] == ino;
}

static inline bool chunk_before(const struct od_inobt_rec *r, uint32_t agino)
{
	return r->startino + 64 <= agino;
}

SEARCH_FIRST(chunk_search, struct od_inobt_rec, uint32_t, chunk_before)

/* The record of the chunk holding agino in xa, or NULL. */
static struct od_inobt_rec *rec_of(struct renum_ag *xa, uint32_t agino)
{
	size_t lo = chunk_search(xa->rec, xa->nrec, agino);

	if (lo < xa->nrec && xa->rec[lo].startino <= agino)
		return &xa->rec[lo];
	return NULL;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct od_inobt_rec *x = a, *y = b;

	return x->startino < y->startino ? -1 : x->startino > y->startino;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static unsigned popc64(uint64_t v)
{
	return (unsigned)__builtin_popcountll(v);
}

static uint64_t present_mask(const struct od_inobt_rec *r)
{
	uint64_t m = 0;
	unsigned i;

	for (i = 0; i < 64; i++)
		if (od_inobt_present(r, i))
			m |= 1ull << i;
	return m;
}

/*
 * The moves in three steps over the records: old slots freed in the
 * model's chunks; the dropped chunks (which must be empty by then) left
 * out and the new ones (all free) put in; new slots taken.  A chunk may
 * be dropped and a new one added at the same place (another holemask,
 * other inodes).
 */
static int slot_rec(struct xctx *x, size_t i, int pass,
		    struct od_inobt_rec **rp, uint64_t *bitp)
{
	const struct od_geo *g = x->g;
	const struct plan_ino *pi = &x->p->ino[i];
	uint64_t ino = pass ? pi->new : pi->old;
	uint32_t agno = od_ino_agno(g, ino), agino = od_ino_agino(g, ino);
	struct od_inobt_rec *r = agno < x->m->agcount ?
		rec_of(&x->xr->ag[agno], agino) : NULL;

	if (!r || !od_inobt_present(r, agino - r->startino))
		return err_set(x->e, -EINVAL, "plan moves inode %llu %s %llu, "
			       "which is in no inode chunk",
			       (unsigned long long)pi->old,
			       pass ? "to" : "from", (unsigned long long)ino);
	*rp = r;
	*bitp = 1ull << (agino - r->startino);
	return 0;
}

static int free_old(struct xctx *x)
{
	const struct plan *p = x->p;
	struct od_inobt_rec *r;
	uint64_t bit;
	size_t i;
	uint32_t a;
	int ret;

	for (a = 0; a < x->m->agcount; a++) {
		const struct m_ag *ag = &x->m->ag[a];
		struct renum_ag *xa = &x->xr->ag[a];

		xa->rec = malloc((ag->nchunk + p->nich + 1) * sizeof(*xa->rec));
		if (!xa->rec)
			return err_set(x->e, -ENOMEM, "out of memory");
		if (ag->nchunk)	/* an AG without chunks has no array */
			memcpy(xa->rec, ag->chunk,
			       ag->nchunk * sizeof(*xa->rec));
		xa->nrec = ag->nchunk;
	}
	for (i = 0; i < p->nino; i++) {
		if (i && p->ino[i - 1].old >= p->ino[i].old)
			return err_set(x->e, -EINVAL, "plan's inode moves are "
				       "not sorted");
		ret = slot_rec(x, i, 0, &r, &bit);
		if (ret)
			return ret;
		if (r->free & bit)
			return err_set(x->e, -EINVAL, "plan moves inode %llu, "
				       "which is free",
				       (unsigned long long)p->ino[i].old);
		r->free |= bit;
	}
	return 0;
}

static int swap_chunks(struct xctx *x)
{
	const struct od_geo *g = x->g;
	const struct plan *p = x->p;
	uint32_t a;
	size_t i;

	for (i = 0; i < p->nich; i++) {	/* drop: count 0 marks it */
		const struct plan_ichunk *c = &p->ich[i];
		uint32_t agno = od_ino_agno(g, c->startino);
		uint32_t agino = od_ino_agino(g, c->startino);
		struct od_inobt_rec *r;

		if (c->alloc)
			continue;
		r = agno < x->m->agcount ? rec_of(&x->xr->ag[agno], agino) :
		    NULL;
		if (!r || r->startino != agino || !r->count)
			return err_set(x->e, -EINVAL, "plan frees inode chunk "
				       "%llu, which does not exist",
				       (unsigned long long)c->startino);
		if ((r->free & present_mask(r)) != present_mask(r))
			return err_set(x->e, -EINVAL, "plan frees inode chunk "
				       "%llu, which still holds inodes",
				       (unsigned long long)c->startino);
		r->count = 0;
		x->xr->ag[agno].chunks_changed = true;
	}
	for (i = 0; i < p->nich; i++) {	/* add, all free */
		const struct plan_ichunk *c = &p->ich[i];
		uint32_t agno = od_ino_agno(g, c->startino);
		uint32_t agino = od_ino_agino(g, c->startino);
		struct od_inobt_rec nr, *r;
		struct renum_ag *xa, view;

		if (!c->alloc)
			continue;
		if (agno >= x->m->agcount)
			return err_set(x->e, -EINVAL, "plan adds inode chunk "
				       "%llu past the last AG",
				       (unsigned long long)c->startino);
		xa = &x->xr->ag[agno];
		/* only the model's records are sorted yet */
		view.rec = xa->rec;
		view.nrec = x->m->ag[agno].nchunk;
		r = rec_of(&view, agino);
		if ((agino & 63) || (r && r->count) ||
		    (!g->sparse && c->holemask) || c->holemask == 0xffff)
			return err_set(x->e, -EINVAL, "plan adds inode chunk "
				       "%llu where it cannot be",
				       (unsigned long long)c->startino);
		memset(&nr, 0, sizeof(nr));
		nr.startino = agino;
		nr.holemask = c->holemask;
		nr.count = (uint8_t)(64 - 4 * popc64(c->holemask));
		nr.free = ~0ull;
		if (r) {
			*r = nr;	/* where a dropped one was */
		} else {
			/* appended: sorted below, once per AG (a second
			 * add at the same place shows up there) */
			xa->rec[xa->nrec++] = nr;
		}
		xa->chunks_changed = true;
	}
	for (a = 0; a < x->m->agcount; a++) {
		struct renum_ag *xa = &x->xr->ag[a];

		if (!xa->chunks_changed)
			continue;
		sort_any(xa->rec, xa->nrec, sizeof(*xa->rec), cmp_rec);
		for (i = 1; i < xa->nrec; i++)
			if (xa->rec[i].startino == xa->rec[i - 1].startino &&
			    xa->rec[i].count && xa->rec[i - 1].count)
				return err_set(x->e, -EINVAL, "plan adds inode "
					       "chunk %llu twice",
					       (unsigned long long)
					       od_agino_ino(g, a,
							    xa->rec[i].startino));
	}
	return 0;
}

static int take_new(struct xctx *x)
{
	const struct plan *p = x->p;
	struct od_inobt_rec *r;
	uint64_t bit;
	size_t i;
	int ret;

	for (i = 0; i < p->nino; i++) {
		ret = slot_rec(x, i, 1, &r, &bit);
		if (ret)
			return ret;
		if (!r->count || !(r->free & bit))
			return err_set(x->e, -EINVAL, "plan moves inode %llu to "
				       "%llu, which is taken",
				       (unsigned long long)p->ino[i].old,
				       (unsigned long long)p->ino[i].new);
		if (p->ino[i].new > OD_DIR2_MAX_SHORT_INUM &&
		    p->ino[i].old <= OD_DIR2_MAX_SHORT_INUM)
			return err_set(x->e, -EINVAL, "plan moves inode %llu to "
				       "%llu: above 2^32",
				       (unsigned long long)p->ino[i].old,
				       (unsigned long long)p->ino[i].new);
		r->free &= ~bit;
		x->xr->moved += p->ino[i].new != p->ino[i].old;
	}
	return 0;
}

/* Drop the dropped records; the figures. */
static void finish_recs(struct xctx *x)
{
	struct xrenum *xr = x->xr;
	uint32_t a;
	size_t i, k;

	for (a = 0; a < x->m->agcount; a++) {
		struct renum_ag *xa = &xr->ag[a];

		xa->count = xa->freecount = 0;
		for (i = k = 0; i < xa->nrec; i++) {
			struct od_inobt_rec *r = &xa->rec[i];

			if (!r->count)
				continue;
			r->freecount = (uint8_t)popc64(r->free & present_mask(r));
			xa->count += r->count;
			xa->freecount += r->freecount;
			xa->rec[k++] = *r;
		}
		xa->nrec = k;
		xr->icount += xa->count;
		xr->ifree += xa->freecount;
	}
}

static int check_fixed(struct xctx *x)
{
	const struct od_sb *sb = &x->fs->sb;
	const uint64_t fixed[] = { sb->rootino, sb->rbmino, sb->rsumino,
				   sb->uquotino, sb->gquotino, sb->pquotino };
	size_t i;

	if (x->g->inopblock > 64)
		return err_set(x->e, -EINVAL, "renumbering: more than 64 "
			       "inodes per block is not supported");
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i] && fixed[i] != ~0ull && xr_new(x, fixed[i]) !=
		    fixed[i])
			return err_set(x->e, -EINVAL, "plan moves inode %llu, "
				       "which the superblock names",
				       (unsigned long long)fixed[i]);
	return 0;
}

int exec_renum_prepare(struct xctx *x)
{
	const struct plan *p = x->p;
	size_t i;
	int ret;

	if (!p->nino && !p->nich)
		return 0;
	x->xr = calloc(1, sizeof(*x->xr));
	if (x->xr)
		x->xr->ag = calloc(x->m->agcount, sizeof(*x->xr->ag));
	x->dst = malloc((p->nino + 1) * sizeof(*x->dst));
	if (!x->xr || !x->xr->ag || !x->dst)
		return err_set(x->e, -ENOMEM, "out of memory");
	for (i = 0; i < p->nino; i++)
		x->dst[i] = p->ino[i].new;
	x->ndst = p->nino;
	sort_any(x->dst, x->ndst, sizeof(*x->dst), cmp_u64);
	ret = check_fixed(x);
	if (!ret)
		ret = free_old(x);
	if (!ret)
		ret = swap_chunks(x);
	if (!ret)
		ret = take_new(x);
	if (!ret)
		finish_recs(x);
	return ret;
}

void exec_renum_release(struct xctx *x)
{
	uint32_t a;

	if (x->xr) {
		for (a = 0; x->xr->ag && a < x->m->agcount; a++)
			free(x->xr->ag[a].rec);
		free(x->xr->ag);
	}
	free(x->xr);
	free(x->dst);
	x->xr = NULL;
	x->dst = NULL;
}

static int statics_push(void **v, size_t *n, size_t *cap,
			const struct od_rmap_rec *r)
{
	if (array_grow(v, cap, *n, sizeof(*r), 64))
		return -ENOMEM;
	((struct od_rmap_rec *)*v)[(*n)++] = *r;
	return 0;
}

int exec_renum_statics(struct xctx *x, uint32_t agno, void **v, size_t *n,
		       size_t *cap)
{
	const struct od_geo *g = x->g;
	struct od_rmap_rec *r = *v;
	const struct renum_ag *xa;
	size_t i, k;

	if (!x->xr || !g->rmapbt || !x->xr->ag[agno].chunks_changed)
		return 0;
	xa = &x->xr->ag[agno];
	for (i = k = 0; i < *n; i++)
		if (r[i].owner != OD_RMAP_OWN_INODES)
			r[k++] = r[i];
	*n = k;
	/* one record per present run of each chunk (btrec_rmap_merge
	 * joins neighbours as xfs_repair does) */
	for (i = 0; i < xa->nrec; i++) {
		const struct od_inobt_rec *c = &xa->rec[i];
		unsigned b = 0;

		while (b < 64) {
			unsigned e;
			struct od_rmap_rec rr;

			if (!od_inobt_present(c, b)) {
				b++;
				continue;
			}
			for (e = b; e < 64 && od_inobt_present(c, e); e++)
				;
			rr.startblock = od_agino_agbno(g, c->startino + b);
			rr.blockcount = od_agino_agbno(g, c->startino + e - 1) -
					rr.startblock + 1;
			rr.owner = OD_RMAP_OWN_INODES;
			rr.offset = 0;
			if (statics_push(v, n, cap, &rr))
				return err_set(x->e, -ENOMEM, "out of memory");
			b = e;
		}
	}
	return 0;
}

void exec_renum_agi(const struct xctx *x, uint32_t agno, struct od_agi *agi)
{
	const struct renum_ag *xa = &x->xr->ag[agno];
	const struct plan_ag *pa = plan_ag(x->p, agno);
	size_t i;
	bool ok = false;

	agi->count = xa->count;
	agi->freecount = xa->freecount;
	if (pa->newino != OD_NULLAGINO) {
		agi->newino = pa->newino;
		return;
	}
	/* a hint only, but never into a chunk that is gone */
	for (i = 0; i < xa->nrec && !ok; i++)
		ok = agi->newino >= xa->rec[i].startino &&
		     agi->newino < xa->rec[i].startino + 64;
	if (!ok)
		agi->newino = xa->nrec ? xa->rec[0].startino : OD_NULLAGINO;
}
