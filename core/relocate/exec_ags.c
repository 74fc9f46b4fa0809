/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG phase: every AG's btrees are rebuilt from the final layout —
 * bnobt and cntbt from the free extents, inobt and finobt from the
 * (unmoved) inode chunks, the refcount btree from how often each block is
 * mapped, the rmapbt from every owner — into the run of blocks the plan
 * reserved, and the AGF and AGI are rewritten to match.  The run is used
 * from its start; what is left over rejoins free space, which changes
 * the free-space records, so the block count is found as a fixed point.
 */
#include "core/relocate/exec_priv.h"
#include "core/base/array.h"
#include "core/relocate/btbuild.h"
#include "core/relocate/btrecs.h"
#include "core/fs/btwalk.h"
#include "core/fs/fork.h"
#include "core/base/sort.h"
#include "ondisk/inobt.h"
#include "ondisk/refcount.h"
#include "ondisk/rmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vec {
	void *v;
	size_t n, cap;
};

static int vec_push(struct vec *vc, const void *item, size_t size)
{
	if (array_grow(&vc->v, &vc->cap, vc->n, size, 256))
		return -ENOMEM;
	memcpy((uint8_t *)vc->v + vc->n * size, item, size);
	vc->n++;
	return 0;
}

/* Append, merging with the previous record when xfs_repair would. */
static int rr_add(struct vec *vc, const struct od_rmap_rec *r)
{
	struct od_rmap_rec *last = vc->n ? (struct od_rmap_rec *)vc->v +
					   vc->n - 1 : NULL;

	if (last && btrec_rmap_mergeable(last, r)) {
		last->blockcount += r->blockcount;
		return 0;
	}
	return vec_push(vc, r, sizeof(*r));
}

struct exec_agprep {
	struct vec *statics;	/* per AG: struct od_rmap_rec */
};

/* What stays from the old rmapbt: headers, log, inode chunks. */
struct old_rmap {
	struct vec *vc;
	bool cow;
};

static int old_rmap_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct old_rmap *o = priv;
	struct od_rmap_rec r;

	(void)e;
	od_rmap_rec_decode(rec, &r);
	if (r.owner == OD_RMAP_OWN_COW)
		o->cow = true;
	if (r.owner == OD_RMAP_OWN_FS || r.owner == OD_RMAP_OWN_LOG ||
	    r.owner == OD_RMAP_OWN_INODES)
		return vec_push(o->vc, &r, sizeof(r)) ? -ENOMEM : 0;
	return 0;
}

struct ag_rebuild {
	struct xctx *x;
	uint32_t agno, agblocks;
	const struct m_ag *ag;
	const struct plan_ag *pa;
	struct vec maps;	/* od_rmap_rec of file mappings, merged per fork */
	struct vec statics;	/* od_rmap_rec kept from the old rmapbt */
	struct vec refc;	/* packed refcount records */
	uint8_t *ino_recs, *fino_recs;
	size_t nino_recs, nfino_recs;
	/* the layout being tried */
	struct m_free *freesp;
	size_t nfree;
	uint32_t used;
	uint32_t nb[6];		/* blocks: bno, cnt, rmap, ino, fino, refc */
	uint8_t *rmap;		/* packed rmap records, merged, final */
	size_t nrmap, cap_rmap;
};

enum { T_BNO, T_CNT, T_RMAP, T_INO, T_FINO, T_REFC, T_N };

static int add_fork_maps(struct ag_rebuild *ax, const struct m_ag *ag,
			 const struct m_ino *mi, int fork)
{
	const struct od_geo *g = ax->x->g;
	const struct plan_fork *pf = plan_fork_find(ax->x->p, mi->ino, fork);
	uint32_t k, n = pf ? pf->nrecs : (fork == FORK_DATA ? mi->nde : mi->nae);
	uint32_t first = fork == FORK_DATA ? 0 : mi->nde;
	uint64_t flag = fork == FORK_ATTR ? OD_RMAP_OFF_ATTR_FORK : 0;

	for (k = 0; k < n; k++) {
		struct od_irec r;
		struct od_rmap_rec rr;

		if (pf)
			r = pf->recs[k];
		else
			m_ext_get(&ag->ext[mi->ext + first + k], &r);
		if (od_fsb_agno(g, r.startblock) != ax->agno)
			continue;
		rr.startblock = od_fsb_agbno(g, r.startblock);
		rr.blockcount = r.blockcount;
		rr.owner = xr_new(ax->x, mi->ino);
		rr.offset = r.startoff | flag |
			    (r.unwritten ? OD_RMAP_OFF_UNWRITTEN : 0);
		if (rr_add(&ax->maps, &rr))
			return -ENOMEM;
	}
	for (k = 0; pf && k < pf->nbmbt; k++) {
		struct od_rmap_rec rr;

		if (od_fsb_agno(g, pf->bmbt[k]) != ax->agno)
			continue;
		rr.startblock = od_fsb_agbno(g, pf->bmbt[k]);
		rr.blockcount = 1;
		rr.owner = xr_new(ax->x, mi->ino);
		rr.offset = OD_RMAP_OFF_BMBT_BLOCK | flag;
		if (rr_add(&ax->maps, &rr))
			return -ENOMEM;
	}
	return 0;
}

/* File mappings of this AG, merged per fork as xfs_repair collects them. */
static int gather(struct ag_rebuild *ax)
{
	const struct model *m = ax->x->m;
	uint32_t a;
	size_t i;
	int ret = 0;

	for (a = 0; a < m->agcount && !ret; a++) {
		const struct m_ag *ag = &m->ag[a];

		for (i = 0; i < ag->nino && !ret; i++) {
			const struct m_ino *mi = &ag->ino[i];

			if (mi->flags & MI_REALTIME)
				continue;
			ret = add_fork_maps(ax, ag, mi, FORK_DATA);
			if (!ret)
				ret = add_fork_maps(ax, ag, mi, FORK_ATTR);
		}
	}
	return ret;
}

struct edge {
	uint32_t at;
	int32_t delta;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * Refcount records: the maximal runs over which the number of file
 * mappings stays the same and is at least 2 (repair/rmap.c
 * compute_refcounts; the kernel keeps them merged the same way).
 */
static int build_refcounts(struct ag_rebuild *ax)
{
	const struct od_rmap_rec *mp = ax->maps.v;
	struct edge *ev;
	size_t n = 0, i;
	uint32_t count = 0, cstart = 0;

	ev = malloc((2 * ax->maps.n + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (i = 0; i < ax->maps.n; i++) {
		if (mp[i].offset & OD_RMAP_OFF_BMBT_BLOCK)
			continue;
		ev[n].at = mp[i].startblock;
		ev[n++].delta = 1;
		ev[n].at = mp[i].startblock + mp[i].blockcount;
		ev[n++].delta = -1;
	}
	sort_any(ev, n, sizeof(*ev), cmp_edge);
	for (i = 0; i < n;) {
		uint32_t at = ev[i].at, nc = count;
		uint8_t rec[OD_REFC_REC_LEN];

		while (i < n && ev[i].at == at)
			nc = (uint32_t)((int32_t)nc + ev[i++].delta);
		if (nc != count) {
			if (count > 1 && at > cstart) {
				struct od_refc_rec rc = { cstart, at - cstart,
							  count, false };

				od_refc_rec_encode(&rc, rec);
				if (vec_push(&ax->refc, rec, sizeof(rec))) {
					free(ev);
					return -ENOMEM;
				}
			}
			cstart = at;
			count = nc;
		}
	}
	free(ev);
	return 0;
}

static int build_inobt_recs(struct ag_rebuild *ax)
{
	const struct od_geo *g = ax->x->g;
	const struct m_ag *ag = ax->ag;
	/* renumbering: the chunk records as the run leaves them */
	const struct od_inobt_rec *recs = ax->x->xr ?
		ax->x->xr->ag[ax->agno].rec : ag->chunk;
	size_t i, nrecs = ax->x->xr ? ax->x->xr->ag[ax->agno].nrec :
			  ag->nchunk;

	ax->ino_recs = malloc((nrecs ? nrecs : 1) * OD_INOBT_REC_LEN);
	ax->fino_recs = malloc((nrecs ? nrecs : 1) * OD_INOBT_REC_LEN);
	if (!ax->ino_recs || !ax->fino_recs)
		return -ENOMEM;
	for (i = 0; i < nrecs; i++) {
		const struct od_inobt_rec *r = &recs[i];
		uint8_t *p = ax->ino_recs + OD_INOBT_REC_LEN * i;

		od_inobt_rec_encode(g, r, p);
		if (r->freecount)
			memcpy(ax->fino_recs + OD_INOBT_REC_LEN *
			       ax->nfino_recs++, p, OD_INOBT_REC_LEN);
	}
	ax->nino_recs = nrecs;
	return 0;
}

static int cmp_free(const void *a, const void *b)
{
	const struct m_free *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

/* Free extents if the btree run uses its first `used` blocks. */
static int layout_free(struct ag_rebuild *ax, uint32_t used)
{
	const struct plan_ag *pa = ax->pa;
	size_t i, n = pa->nfreesp, k = 0;

	free(ax->freesp);
	ax->freesp = malloc((n + 1) * sizeof(*ax->freesp));
	if (!ax->freesp)
		return -ENOMEM;
	memcpy(ax->freesp, pa->freesp, n * sizeof(*ax->freesp));
	if (used > pa->bt_len) {
		/* the trees outgrew the run: into the free extent after it
		 * (bt_room said it is there and long enough) */
		uint32_t d = used - pa->bt_len;

		for (i = 0; i < n; i++)
			if (ax->freesp[i].agbno == pa->bt_start + pa->bt_len &&
			    ax->freesp[i].len >= d) {
				ax->freesp[i].agbno += d;
				ax->freesp[i].len -= d;
				break;
			}
	}
	if (used < pa->bt_len) {
		ax->freesp[n].agbno = pa->bt_start + used;
		ax->freesp[n].len = pa->bt_len - used;
		n++;
	}
	sort_any(ax->freesp, n, sizeof(*ax->freesp), cmp_free);
	for (i = 0; i < n; i++) {
		if (!ax->freesp[i].len)
			continue;
		if (k && ax->freesp[k - 1].agbno + ax->freesp[k - 1].len ==
		    ax->freesp[i].agbno)
			ax->freesp[k - 1].len += ax->freesp[i].len;
		else
			ax->freesp[k++] = ax->freesp[i];
	}
	ax->nfree = k;
	return 0;
}

static int rmap_push(struct ag_rebuild *ax, const struct od_rmap_rec *r)
{
	if (array_grow((void **)&ax->rmap, &ax->cap_rmap, ax->nrmap,
		       OD_RMAP_REC_LEN, 1024))
		return -ENOMEM;
	od_rmap_rec_encode(r, ax->rmap + ax->nrmap * OD_RMAP_REC_LEN);
	ax->nrmap++;
	return 0;
}

/*
 * The complete rmap record set for the current layout, merged the way
 * xfs_repair expects (btrec_rmap_merge: per owner and fork, so pieces of
 * one file merge even when another owner's shared extent sorts between).
 */
static int layout_rmap(struct ag_rebuild *ax)
{
	const struct od_geo *g = ax->x->g;
	uint32_t at = ax->pa->bt_start, nagfl;
	const uint32_t *agfl;
	struct od_rmap_rec r;
	size_t i;
	int ret = 0;

	ax->nrmap = 0;
	if (!g->rmapbt)
		return 0;
	for (i = 0; i < ax->statics.n && !ret; i++)
		ret = rmap_push(ax, (struct od_rmap_rec *)ax->statics.v + i);
	for (i = 0; i < ax->maps.n && !ret; i++)
		ret = rmap_push(ax, (struct od_rmap_rec *)ax->maps.v + i);
	exec_shrink_agfl(ax->x, ax->agno, &agfl, &nagfl);
	for (i = 0; i < nagfl && !ret; i++) {
		r = (struct od_rmap_rec){ agfl[i], 1, OD_RMAP_OWN_AG, 0 };
		ret = rmap_push(ax, &r);
	}
	r = (struct od_rmap_rec){ at, ax->nb[T_BNO] + ax->nb[T_CNT] +
				  ax->nb[T_RMAP], OD_RMAP_OWN_AG, 0 };
	if (!ret && r.blockcount)
		ret = rmap_push(ax, &r);
	at += r.blockcount;
	r = (struct od_rmap_rec){ at, ax->nb[T_INO] + ax->nb[T_FINO],
				  OD_RMAP_OWN_INOBT, 0 };
	if (!ret && r.blockcount)
		ret = rmap_push(ax, &r);
	at += r.blockcount;
	r = (struct od_rmap_rec){ at, ax->nb[T_REFC], OD_RMAP_OWN_REFC, 0 };
	if (!ret && r.blockcount)
		ret = rmap_push(ax, &r);
	if (ret)
		return ret;
	ax->nrmap = btrec_rmap_merge(ax->rmap, ax->nrmap);
	return 0;
}

/* Blocks every tree needs for the current layout. */
static uint32_t layout_blocks(struct ag_rebuild *ax)
{
	const struct od_geo *g = ax->x->g;

	ax->nb[T_BNO] = btbuild_nblocks(g, OD_BT_BNO, ax->nfree, 0);
	ax->nb[T_CNT] = btbuild_nblocks(g, OD_BT_CNT, ax->nfree, 0);
	ax->nb[T_INO] = btbuild_nblocks(g, OD_BT_INO, ax->nino_recs, 0);
	ax->nb[T_FINO] = g->finobt ?
		btbuild_nblocks(g, OD_BT_FINO, ax->nfino_recs, 0) : 0;
	ax->nb[T_REFC] = g->reflink ?
		btbuild_nblocks(g, OD_BT_REFC, ax->refc.n, 0) : 0;
	ax->nb[T_RMAP] = g->rmapbt ?
		btbuild_nblocks(g, OD_BT_RMAP, ax->nrmap, 0) : 0;
	return ax->nb[T_BNO] + ax->nb[T_CNT] + ax->nb[T_INO] +
	       ax->nb[T_FINO] + ax->nb[T_REFC] + ax->nb[T_RMAP];
}

/*
 * Blocks the trees may take: the run the plan set aside, and the free
 * extent right after it should the estimate fall short (renumbering
 * can add inode chunk and rmap records the estimate did not foresee).
 */
static uint32_t bt_room(const struct ag_rebuild *ax)
{
	const struct plan_ag *pa = ax->pa;
	size_t i;

	for (i = 0; i < pa->nfreesp; i++)
		if (pa->freesp[i].agbno == pa->bt_start + pa->bt_len)
			return pa->bt_len + pa->freesp[i].len;
	return pa->bt_len;
}

/* Find how many blocks the run really needs: a fixed point. */
static int settle_layout(struct ag_rebuild *ax)
{
	uint32_t used = ax->pa->bt_len, need = 0, round, room = bt_room(ax);
	int ret;

	for (round = 0; round < 32; round++) {
		ret = layout_free(ax, used);
		if (ret)
			return ret;
		need = layout_blocks(ax);
		ret = layout_rmap(ax);	/* rmap count depends on the runs */
		if (ret)
			return ret;
		need = layout_blocks(ax);
		if (need > room)
			return err_set(ax->x->e, -ENOSPC, "ag %u: the rebuilt "
				       "btrees need %u blocks, %u were set "
				       "aside (bno %u cnt %u ino %u fino %u "
				       "rmap %u refc %u for %zu free extents, "
				       "%zu chunks, %zu rmaps)", ax->agno,
				       need, ax->pa->bt_len, ax->nb[T_BNO],
				       ax->nb[T_CNT], ax->nb[T_INO],
				       ax->nb[T_FINO], ax->nb[T_RMAP],
				       ax->nb[T_REFC], ax->nfree,
				       ax->nino_recs, ax->nrmap);
		if (need == used) {
			/* the runs' final lengths, then the same count again */
			ret = layout_rmap(ax);
			if (ret)
				return ret;
			if (layout_blocks(ax) != used)
				continue;
			ax->used = used;
			return 0;
		}
		used = need;
	}
	return err_set(ax->x->e, -EAGAIN, "ag %u: btree block count does "
		       "not settle", ax->agno);
}

static int cmp_cnt(const void *a, const void *b)
{
	const struct m_free *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

/* Build one tree at the next blocks of the run and write it. */
static int write_tree(struct ag_rebuild *ax, enum od_bt_type t,
		      const uint8_t *recs, size_t nrecs, uint32_t *at, uint32_t nblocks,
		      uint64_t *root, uint32_t *levels)
{
	struct xctx *x = ax->x;
	struct btbuild_out bo = { 0 };
	uint64_t *addr;
	uint32_t k;
	int ret;

	addr = malloc((nblocks ? nblocks : 1) * sizeof(*addr));
	if (!addr)
		return -ENOMEM;
	for (k = 0; k < nblocks; k++)
		addr[k] = *at + k;
	ret = btbuild(x->g, t, ax->agno, ax->agno, recs, nrecs, addr, 0, &bo,
		      x->e);
	free(addr);
	if (ret)
		return ret;
	for (k = 0; k < bo.nblocks && !ret; k++)
		ret = x_write(x, od_agb_lin(x->g, ax->agno, (uint32_t)bo.addr[k]),
			      bo.buf + ((size_t)k << x->g->blocklog), 1,
			      od_bt_ops(t)->name);
	*root = bo.root;
	*levels = bo.levels;
	*at += nblocks;
	x->st->btree_blocks_written += bo.nblocks;
	btbuild_free(&bo);
	return ret;
}

struct newhdr {
	uint64_t root[T_N];
	uint32_t levels[T_N];
	uint32_t freeblks, longest;
};

static int write_trees(struct ag_rebuild *ax, struct newhdr *h)
{
	const struct od_geo *g = ax->x->g;
	uint32_t at = ax->pa->bt_start;
	uint8_t *bno = NULL, *cnt = NULL;
	struct m_free *bycnt = NULL;
	size_t i;
	int ret = -ENOMEM;

	memset(h, 0, sizeof(*h));
	bno = malloc((ax->nfree ? ax->nfree : 1) * OD_ALLOC_REC_LEN);
	cnt = malloc((ax->nfree ? ax->nfree : 1) * OD_ALLOC_REC_LEN);
	bycnt = malloc((ax->nfree ? ax->nfree : 1) * sizeof(*bycnt));
	if (!bno || !cnt || !bycnt)
		goto out;
	for (i = 0; i < ax->nfree; i++) {
		struct od_alloc_rec r = { ax->freesp[i].agbno,
					  ax->freesp[i].len };

		od_alloc_rec_encode(&r, bno + OD_ALLOC_REC_LEN * i);
		h->freeblks += ax->freesp[i].len;
		if (ax->freesp[i].len > h->longest)
			h->longest = ax->freesp[i].len;
	}
	memcpy(bycnt, ax->freesp, ax->nfree * sizeof(*bycnt));
	sort_any(bycnt, ax->nfree, sizeof(*bycnt), cmp_cnt);
	for (i = 0; i < ax->nfree; i++) {
		struct od_alloc_rec r = { bycnt[i].agbno, bycnt[i].len };

		od_alloc_rec_encode(&r, cnt + OD_ALLOC_REC_LEN * i);
	}
	/* the run's order: bnobt, cntbt, rmapbt (OWN_AG), inobt, finobt, refc */
	ret = write_tree(ax, OD_BT_BNO, bno, ax->nfree, &at, ax->nb[T_BNO],
			 &h->root[T_BNO], &h->levels[T_BNO]);
	if (!ret)
		ret = write_tree(ax, OD_BT_CNT, cnt, ax->nfree, &at,
				 ax->nb[T_CNT], &h->root[T_CNT],
				 &h->levels[T_CNT]);
	if (!ret && g->rmapbt)
		ret = write_tree(ax, OD_BT_RMAP, ax->rmap, ax->nrmap, &at,
				 ax->nb[T_RMAP], &h->root[T_RMAP],
				 &h->levels[T_RMAP]);
	if (!ret)
		ret = write_tree(ax, OD_BT_INO, ax->ino_recs, ax->nino_recs,
				 &at, ax->nb[T_INO], &h->root[T_INO],
				 &h->levels[T_INO]);
	if (!ret && g->finobt)
		ret = write_tree(ax, OD_BT_FINO, ax->fino_recs,
				 ax->nfino_recs, &at, ax->nb[T_FINO],
				 &h->root[T_FINO], &h->levels[T_FINO]);
	if (!ret && g->reflink)
		ret = write_tree(ax, OD_BT_REFC, ax->refc.v, ax->refc.n, &at,
				 ax->nb[T_REFC], &h->root[T_REFC],
				 &h->levels[T_REFC]);
out:
	free(bno);
	free(cnt);
	free(bycnt);
	return ret == -ENOMEM ? err_set(ax->x->e, ret, "out of memory") : ret;
}

/* AG header sector n (1 AGF, 2 AGI) as a byte offset. */
static uint64_t hdr_off(const struct od_geo *g, uint32_t agno, unsigned n)
{
	return (od_agb_lin(g, agno, 0) << g->blocklog) +
	       (uint64_t)n * g->sectsize;
}

/* Read AG header sector n (1 AGF, 2 AGI), named what, at *off. */
static int read_hdr(struct ag_rebuild *ax, unsigned n, uint8_t *buf, char *what,
		    size_t wlen, uint64_t *off)
{
	struct xctx *x = ax->x;

	*off = hdr_off(x->g, ax->agno, n);
	snprintf(what, wlen, "%s %u", n == 1 ? "agf" : "agi", ax->agno);
	return fs_pread(x->fs, *off, buf, x->g->sectsize, x->e, what);
}

/* The AGF (xfs_format.h: struct xfs_agf): new roots, levels, counters. */
static int write_agf(struct ag_rebuild *ax, const struct newhdr *h,
		     uint32_t *btreeblks, uint32_t *freeblks)
{
	struct xctx *x = ax->x;
	const struct od_geo *g = x->g;
	uint8_t buf[32768];
	struct od_agf agf;
	const char *field;
	char what[32];
	uint64_t off;
	int ret = read_hdr(ax, 1, buf, what, sizeof(what), &off);

	if (ret)
		return ret;
	ret = od_agf_decode(buf, g->sectsize, g, ax->agno, &agf, &field);
	if (ret)
		return err_od(x->e, (enum od_err)ret, field, what);
	*btreeblks = (ax->nb[T_BNO] - 1) + (ax->nb[T_CNT] - 1) +
		     (g->rmapbt ? ax->nb[T_RMAP] - 1 : 0);
	*freeblks = h->freeblks;
	agf.roots[OD_BTNUM_BNO] = (uint32_t)h->root[T_BNO];
	agf.roots[OD_BTNUM_CNT] = (uint32_t)h->root[T_CNT];
	agf.levels[OD_BTNUM_BNO] = h->levels[T_BNO];
	agf.levels[OD_BTNUM_CNT] = h->levels[T_CNT];
	agf.freeblks = h->freeblks;
	agf.longest = h->longest;
	agf.btreeblks = *btreeblks;
	if (g->rmapbt) {
		agf.roots[OD_BTNUM_RMAP] = (uint32_t)h->root[T_RMAP];
		agf.levels[OD_BTNUM_RMAP] = h->levels[T_RMAP];
		agf.rmap_blocks = ax->nb[T_RMAP];
	}
	if (g->reflink) {
		agf.refcount_blocks = ax->nb[T_REFC];
		agf.refcount_root = (uint32_t)h->root[T_REFC];
		agf.refcount_level = h->levels[T_REFC];
	}
	exec_shrink_agf(x, ax->agno, &agf);
	od_agf_encode(&agf, g, buf, g->sectsize);	/* and its crc */
	ret = exec_shrink_write_agfl(x, ax->agno);
	return ret ? ret : x_pwrite(x, off, buf, g->sectsize, x->e, what);
}

/* The AGI (struct xfs_agi): the inode btrees' new roots and sizes. */
static int write_agi(struct ag_rebuild *ax, const struct newhdr *h)
{
	struct xctx *x = ax->x;
	const struct od_geo *g = x->g;
	uint8_t buf[32768];
	struct od_agi agi;
	const char *field;
	char what[32];
	uint64_t off;
	int ret = read_hdr(ax, 2, buf, what, sizeof(what), &off);

	if (ret)
		return ret;
	ret = od_agi_decode(buf, g->sectsize, g, ax->agno, &agi, &field);
	if (ret)
		return err_od(x->e, (enum od_err)ret, field, what);
	agi.root = (uint32_t)h->root[T_INO];
	agi.level = h->levels[T_INO];
	if (g->finobt) {
		agi.free_root = (uint32_t)h->root[T_FINO];
		agi.free_level = h->levels[T_FINO];
	}
	if (g->inobtcnt) {
		agi.iblocks = ax->nb[T_INO];
		agi.fblocks = ax->nb[T_FINO];
	}
	if (x->xr)
		exec_renum_agi(x, ax->agno, &agi);
	exec_shrink_agi(x, ax->agno, &agi);
	od_agi_encode(&agi, g, buf, g->sectsize);	/* and its crc */
	return x_pwrite(x, off, buf, g->sectsize, x->e, what);
}

static int write_headers(struct ag_rebuild *ax, const struct newhdr *h,
			 uint32_t *btreeblks, uint32_t *freeblks)
{
	int ret = write_agf(ax, h, btreeblks, freeblks);

	return ret ? ret : write_agi(ax, h);
}

static void agx_free(struct ag_rebuild *ax)
{
	free(ax->maps.v);
	free(ax->refc.v);
	free(ax->rmap);
	free(ax->ino_recs);
	free(ax->fino_recs);
	free(ax->freesp);
}

/* Rebuild one AG; its new AGF figures go to the superblock sum. */
static int rebuild_ag(struct xctx *x, uint32_t agno, uint64_t *fdblocks)
{
	const struct m_ag *ag = &x->m->ag[agno];
	struct ag_rebuild ax;
	struct newhdr h;
	uint32_t btreeblks = 0, freeblks = 0;
	int ret = 0;

	memset(&ax, 0, sizeof(ax));
	ax.x = x;
	ax.agno = agno;
	ax.ag = ag;
	ax.pa = plan_ag(x->p, agno);
	ax.agblocks = exec_shrink_ag_len(x, agno);
	if (!ag->have_agf || !ag->have_agi)
		return err_set(x->e, -EFSCORRUPTED, "ag %u: headers were not "
			       "readable", agno);
	/* the statics were read before the copy phase (exec_ags_prepare) */
	ret = exec_renum_statics(x, agno, &x->agprep->statics[agno].v,
				 &x->agprep->statics[agno].n,
				 &x->agprep->statics[agno].cap);
	if (!ret)
		ret = exec_shrink_statics(x, agno, &x->agprep->statics[agno].v,
					  &x->agprep->statics[agno].n,
					  &x->agprep->statics[agno].cap);
	ax.statics = x->agprep->statics[agno];
	if (!ret)
		ret = gather(&ax) ? err_set(x->e, -ENOMEM, "out of memory") : 0;
	if (!ret && x->g->reflink)
		ret = build_refcounts(&ax) ?
		      err_set(x->e, -ENOMEM, "out of memory") : 0;
	if (!ret)
		ret = build_inobt_recs(&ax) ?
		      err_set(x->e, -ENOMEM, "out of memory") : 0;
	if (!ret)
		ret = settle_layout(&ax);
	/* the AG's free space when the run ends, for the undo file's proof */
	for (size_t i = 0; !ret && i < ax.nfree; i++)
		ret = undo_mark_free_end(x->u, od_agb_lin(x->g, agno,
							  ax.freesp[i].agbno),
					 ax.freesp[i].len, x->e);
	if (!ret)
		ret = write_trees(&ax, &h);
	if (!ret)
		ret = write_headers(&ax, &h, &btreeblks, &freeblks);
	if (!ret) {
		const uint32_t *agfl;
		uint32_t nagfl;

		exec_shrink_agfl(x, agno, &agfl, &nagfl);
		*fdblocks += (uint64_t)freeblks + nagfl + btreeblks;
	}
	agx_free(&ax);
	return ret;
}

int exec_ags_prepare(struct xctx *x)
{
	const struct model *m = x->m;
	uint32_t a;
	int ret = 0;

	x->agprep = calloc(1, sizeof(*x->agprep));
	if (x->agprep)
		x->agprep->statics = calloc(m->agcount, sizeof(struct vec));
	if (!x->agprep || !x->agprep->statics)
		return err_set(x->e, -ENOMEM, "out of memory");
	for (a = 0; a < m->agcount && !ret && x->g->rmapbt; a++) {
		const struct m_ag *ag = &m->ag[a];
		struct old_rmap o = { &x->agprep->statics[a], false };

		if (!ag->have_agf)
			return err_set(x->e, -EFSCORRUPTED, "ag %u: agf was not "
				       "readable", a);
		ret = btwalk_ag(x->fs, a, OD_BT_RMAP,
				ag->agf.roots[OD_BTNUM_RMAP],
				ag->agf.levels[OD_BTNUM_RMAP], old_rmap_rec, &o,
				x->e);
		if (!ret && o.cow)
			ret = err_set(x->e, -EPERM, "refusing to write: ag %u "
				      "has copy-on-write staging extents left "
				      "over; mount and unmount the filesystem "
				      "first", a);
	}
	return ret;
}

void exec_ags_release(struct xctx *x)
{
	uint32_t a;

	if (!x->agprep)
		return;
	for (a = 0; x->agprep->statics && a < x->m->agcount; a++)
		free(x->agprep->statics[a].v);
	free(x->agprep->statics);
	free(x->agprep);
	x->agprep = NULL;
}

int exec_ags(struct xctx *x)
{
	uint64_t fdblocks = 0;
	uint8_t buf[32768];
	struct od_sb sb;
	uint32_t a;
	int ret = 0;

	for (a = 0; a < x->m->agcount && !ret; a++) {
		const struct od_agf *agf = &x->m->ag[a].agf;

		/* a shrink: the AGs past the new end are simply gone */
		if (exec_shrink_gone(x, a))
			continue;
		/* an AG the plan leaves alone (plan_limits.h) keeps its trees */
		if (!plan_ag(x->p, a)->changed)
			fdblocks += (uint64_t)agf->freeblks + agf->flcount +
				    agf->btreeblks;
		else
			ret = rebuild_ag(x, a, &fdblocks);
		x_progress(x, "ags", a + 1, x->m->agcount);
	}
	if (ret)
		return ret;
	/* the free block counter (xfs_repair checks it against the AGFs) */
	ret = x_sb_read(x, buf, &sb);
	if (ret)
		return ret;
	sb.fdblocks = fdblocks;
	if (x->xr) {
		sb.icount = x->xr->icount;
		sb.ifree = x->xr->ifree;
	}
	exec_shrink_sb(x, &sb);
	return x_sb_write(x, buf, &sb);
}
