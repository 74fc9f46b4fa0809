/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The btree bulk loader: for every tree type, v4 and v5 and several block
 * sizes, many record counts, build a tree, place its blocks in a memory
 * filesystem and read it back with the verifying walker (core/fs/btwalk.c);
 * then check independently what the walker does not: node keys against
 * the first record below them, rmapbt high keys against the maximum over
 * the subtree, minrecs, sibling chains, every block used once.
 */
#include "t.h"
#include "memfs.h"
#include "core/relocate/btbuild.h"
#include "core/relocate/btrecs.h"
#include "core/fs/btwalk.h"
#include "core/fs/fs.h"
#include "ondisk/be.h"
#include "ondisk/bmbt.h"
#include "ondisk/inobt.h"
#include "ondisk/refcount.h"
#include "ondisk/rmap.h"

#include <string.h>

/* ---- records ---- */

static uint8_t *gen_recs(const struct od_geo *g, enum od_bt_type t, size_t n,
			 struct memfs_rng *r)
{
	size_t rl = od_bt_ops(t)->rec_len, i;
	uint8_t *recs = calloc(n + 1, rl);

	for (i = 0; recs && i < n; i++) {
		uint8_t *p = recs + i * rl;

		switch (t) {
		case OD_BT_BNO: {
			struct od_alloc_rec ar = { (uint32_t)(1 + 4 * i),
				(uint32_t)(1 + memfs_rnd(r) % 3) };

			od_alloc_rec_encode(&ar, p);
			break;
		}
		case OD_BT_CNT: {	/* sorted below: count, then start */
			struct od_alloc_rec ar = { (uint32_t)(1 + 7 * i),
				(uint32_t)(1 + memfs_rnd(r) % 50) };

			od_alloc_rec_encode(&ar, p);
			break;
		}
		case OD_BT_INO:
		case OD_BT_FINO: {
			struct od_inobt_rec ir = { (uint32_t)(64 * i), 0, 64,
						   0, memfs_rnd(r) };

			ir.freecount = (uint8_t)__builtin_popcountll(ir.free);
			od_inobt_rec_encode(g, &ir, p);
			break;
		}
		case OD_BT_RMAP: {
			/* pairs at one startblock: an inode, then a special
			 * owner; lengths overlap later records, so the high
			 * key of a block is seldom its last record's */
			struct od_rmap_rec rr = { (uint32_t)(i / 2), 0, 0, 0 };
			uint64_t fl;

			rr.blockcount = (uint32_t)(1 + memfs_rnd(r) % 64);
			if (i % 2) {
				rr.owner = OD_RMAP_OWN_AG - memfs_rnd(r) % 4;
				od_rmap_rec_encode(&rr, p);
				break;
			}
			/* any of attr fork (63), bmbt (62), unwritten (61) */
			fl = (memfs_rnd(r) % 8) << 61;
			if (fl & OD_RMAP_OFF_BMBT_BLOCK)
				fl &= ~OD_RMAP_OFF_UNWRITTEN;
			rr.owner = 128 + memfs_rnd(r) % 8;
			rr.offset = fl | (fl & OD_RMAP_OFF_BMBT_BLOCK ? 0 :
				    memfs_rnd(r) % (1ull << 40));
			od_rmap_rec_encode(&rr, p);
			break;
		}
		case OD_BT_REFC: {
			struct od_refc_rec fr = { (uint32_t)(4 * i),
				(uint32_t)(1 + memfs_rnd(r) % 3),
				(uint32_t)(2 + memfs_rnd(r) % 5),
				i >= n * 3 / 4 };

			od_refc_rec_encode(&fr, p);
			break;
		}
		case OD_BT_BMAP: {
			struct od_irec ir = { 3 * (uint64_t)i,
					      1000 + 5 * (uint64_t)i,
					      (uint32_t)(1 + memfs_rnd(r) % 2),
					      i % 5 == 0 };

			od_bmbt_rec_pack(&ir, p);
			break;
		}
		case OD_BT_RTRMAP:
		case OD_BT_RTREFC:
			break;	/* not built in AGs: not here */
		}
	}
	if (recs && t == OD_BT_CNT)
		qsort(recs, n, rl, btrec_cmp(t));
	return recs;
}

/* ---- independent key computations ---- */

/* The kernel key of a record, as bytes of a node slot's low key. */
static void rec_key(enum od_bt_type t, const uint8_t *rec, uint8_t *k)
{
	struct od_irec ir;

	switch (t) {
	case OD_BT_BNO:
	case OD_BT_CNT:
		memcpy(k, rec, 8);
		break;
	case OD_BT_INO:
	case OD_BT_FINO:
	case OD_BT_REFC:
	case OD_BT_RTREFC:
		memcpy(k, rec, 4);
		break;
	case OD_BT_RMAP:
	case OD_BT_RTRMAP:
		memcpy(k, rec, 4);
		memcpy(k + 4, rec + 8, 8);
		od_put_be64(k + 12, od_get_be64(rec + 16) & ~(1ull << 61));
		break;
	case OD_BT_BMAP:
		od_bmbt_rec_unpack(rec, &ir);
		od_put_be64(k, ir.startoff);
		break;
	}
}

struct hkey {
	uint64_t sb, owner, off;	/* off: 54-bit offset | attr | bmbt */
};

static struct hkey rmap_high(const uint8_t *rec)
{
	uint32_t count = od_get_be32(rec + 4);
	uint64_t off = od_get_be64(rec + 16);
	struct hkey h;

	h.sb = od_get_be32(rec) + count - 1;
	h.owner = od_get_be64(rec + 8);
	h.off = off & ((1ull << 54) - 1);
	if (!(h.owner >> 63) && !(off & (1ull << 62)))
		h.off += count - 1;
	h.off |= off & (3ull << 62);	/* attr fork, bmbt block */
	return h;
}

static int hkey_cmp(const struct hkey *a, const struct hkey *b)
{
	if (a->sb != b->sb)
		return a->sb < b->sb ? -1 : 1;
	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return 0;
}

/* ---- structure check over the built blocks ---- */

struct tcheck {
	struct t_state *ts;
	const struct od_geo *g;
	enum od_bt_type t;
	const struct btbuild_out *out;
	int32_t *idx_of;	/* address -> block index */
	size_t nslots;
	uint32_t *lv_list[OD_BTREE_MAXLEVELS_ANY];	/* visit order */
	uint32_t lv_n[OD_BTREE_MAXLEVELS_ANY];
	uint32_t visited;
	bool bad;
};

#define TC(tc, cond) do {						\
	T_CHECK((tc)->ts, cond);					\
	if (!(cond))							\
		(tc)->bad = true;					\
} while (0)

/*
 * Check block idx at level lvl; return its first record (NULL if
 * empty) and, for the rmapbt, the largest high key under it.
 */
static const uint8_t *check_block(struct tcheck *tc, uint32_t idx,
				  unsigned lvl, bool exempt, struct hkey *hi)
{
	const struct od_bt_ops *ops = od_bt_ops(tc->t);
	const uint8_t *buf = tc->out->buf + (size_t)idx * tc->g->blocksize;
	const uint8_t *first = NULL;
	struct od_btblock h;
	const char *field;
	uint32_t max, i;

	if (tc->bad)
		return NULL;
	TC(tc, od_btblock_decode(buf, tc->g->blocksize, tc->g, tc->t, &h,
				 &field) == OD_OK);
	TC(tc, h.level == lvl && tc->visited < tc->out->nblocks);
	if (tc->bad)
		return NULL;
	tc->lv_list[lvl][tc->lv_n[lvl]++] = idx;
	tc->visited++;
	max = od_bt_maxrecs(ops, h.hdr_len, tc->g->blocksize, lvl == 0);
	TC(tc, h.numrecs <= max);
	TC(tc, exempt ? (h.numrecs >= 1 || lvl == 0) : h.numrecs >= max / 2);
	if (lvl == 0) {
		for (i = 0; i < h.numrecs; i++) {
			const uint8_t *rec = buf + od_bt_rec_off(ops,
							h.hdr_len, i);
			struct hkey k;

			if (tc->t == OD_BT_RMAP) {
				k = rmap_high(rec);
				if (i == 0 || hkey_cmp(&k, hi) > 0)
					*hi = k;
			}
		}
		return h.numrecs ? buf + h.hdr_len : NULL;
	}
	for (i = 0; i < h.numrecs && !tc->bad; i++) {
		const uint8_t *slot = buf + od_bt_key_off(ops, h.hdr_len, i);
		size_t po = od_bt_ptr_off(ops, h.hdr_len, max, i);
		uint64_t p = ops->ptr_len == 8 ? od_get_be64(buf + po) :
			     od_get_be32(buf + po);
		uint8_t want[20];
		const uint8_t *cf;
		struct hkey ch = { 0, 0, 0 }, sh;

		TC(tc, p < tc->nslots && tc->idx_of[p] >= 0);
		if (tc->bad)
			break;
		cf = check_block(tc, (uint32_t)tc->idx_of[p], lvl - 1, false,
				 &ch);
		TC(tc, cf != NULL);
		if (!cf)
			break;
		if (i == 0)
			first = cf;
		rec_key(tc->t, cf, want);
		TC(tc, memcmp(slot, want, tc->t == OD_BT_RMAP ? 20 :
			      ops->key_len) == 0);
		if (tc->t != OD_BT_RMAP)
			continue;
		/* the stored high key is exactly the subtree's maximum */
		sh.sb = od_get_be32(slot + 20);
		sh.owner = od_get_be64(slot + 24);
		sh.off = od_get_be64(slot + 32);
		TC(tc, hkey_cmp(&sh, &ch) == 0);
		if (i == 0 || hkey_cmp(&ch, hi) > 0)
			*hi = ch;
	}
	return first;
}

/* Sibling pointers along each level, in the order the tree visits. */
static void check_siblings(struct tcheck *tc, unsigned nlevels)
{
	bool lng = od_bt_ops(tc->t)->long_ptrs;
	unsigned l;
	uint32_t k;

	for (l = 0; l < nlevels && !tc->bad; l++) {
		for (k = 0; k < tc->lv_n[l]; k++) {
			const uint8_t *b = tc->out->buf +
				(size_t)tc->lv_list[l][k] * tc->g->blocksize;
			uint64_t left = lng ? od_get_be64(b + 8) :
					od_get_be32(b + 8);
			uint64_t right = lng ? od_get_be64(b + 16) :
					 od_get_be32(b + 12);
			uint64_t nul = lng ? OD_NULLFSBLOCK : 0xffffffffu;

			TC(tc, left == (k ? tc->out->addr[tc->lv_list[l][k - 1]]
					  : nul));
			TC(tc, right == (k + 1 < tc->lv_n[l] ?
					 tc->out->addr[tc->lv_list[l][k + 1]] :
					 nul));
		}
	}
}

/* ---- one build ---- */

struct walk_priv {
	const uint8_t *recs;
	size_t rl, n, i;
	bool mismatch;
};

static int walk_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct walk_priv *wp = priv;

	(void)e;
	if (wp->i >= wp->n || memcmp(rec, wp->recs + wp->i * wp->rl,
				     wp->rl) != 0)
		wp->mismatch = true;
	wp->i++;
	return 0;
}

/* Leaf and node capacity of tree t, for choosing interesting counts. */
static void caps(const struct od_geo *g, enum od_bt_type t, uint32_t *lmax,
		 uint32_t *nmax)
{
	const struct od_bt_ops *ops = od_bt_ops(t);
	uint32_t hl = ops->long_ptrs ? (g->v5 ? 72 : 24) : (g->v5 ? 56 : 16);

	*lmax = (g->blocksize - hl) / ops->rec_len;
	*nmax = (g->blocksize - hl) / (ops->key_len + ops->ptr_len);
}

/* Expected shape, computed the plain way. */
static uint32_t expect_blocks(const struct od_geo *g, enum od_bt_type t,
			      size_t n, uint32_t fork_len, uint32_t *levels)
{
	uint32_t lmax, nmax;
	uint64_t total = 0, nr = n;

	caps(g, t, &lmax, &nmax);
	*levels = 1;
	if (t == OD_BT_BMAP) {
		if (n * 16 <= fork_len)
			return 0;
		nr = (n + lmax - 1) / lmax;
		for (total = nr; nr > (fork_len - 4) / 16; total += nr) {
			nr = (nr + nmax - 1) / nmax;
			++*levels;
		}
		++*levels;
		return (uint32_t)total;
	}
	if (nr <= lmax)
		return 1;
	nr = (nr + lmax - 1) / lmax;
	for (total = nr; nr > 1; total += nr) {
		nr = (nr + nmax - 1) / nmax;
		++*levels;
	}
	return (uint32_t)total;
}

static void build_one(struct t_state *ts, struct memfs *tf, enum od_bt_type t,
		      size_t n, uint32_t fork_len, struct memfs_rng *r)
{
	const struct od_geo *g = tf->g;
	const struct od_bt_ops *ops = od_bt_ops(t);
	uint32_t agno = 1, nb, i, lvls, span = g->agblocks - 16, nsp;
	uint64_t owner = t == OD_BT_BMAP ? 131 : agno, *addr, *pool;
	size_t nslots = (size_t)g->agcount << g->agblklog;
	struct tcheck tc;
	struct btbuild_out out;
	struct walk_priv wp;
	struct btwalk w;
	struct hkey hi;
	struct err e;
	uint8_t *recs = gen_recs(g, t, n, r);
	int ret;

	nb = btbuild_nblocks(g, t, n, fork_len);
	T_CHECK(ts, nb == expect_blocks(g, t, n, fork_len, &lvls));
	err_clear(&e);
	if (nb == 0) {	/* extent list: the builder refuses */
		T_CHECK(ts, btbuild(g, t, agno, owner, recs, n, NULL,
				    fork_len, &out, &e) == -EINVAL);
		free(recs);
		return;
	}
	/* shuffled addresses: AG 1 for AG trees, both AGs for the bmbt */
	nsp = t == OD_BT_BMAP ? 2 * span : span;
	pool = malloc(nsp * sizeof(*pool));
	addr = malloc(nb * sizeof(*addr));
	for (i = 0; i < nsp; i++)
		pool[i] = t == OD_BT_BMAP ?
			  od_agb_fsb(g, i / span, 16 + i % span) : 16 + i;
	for (i = 0; i < nb; i++) {
		uint32_t j = i + (uint32_t)(memfs_rnd(r) % (nsp - i));
		uint64_t x = pool[i];

		pool[i] = pool[j];
		pool[j] = x;
		addr[i] = pool[i];
	}
	ret = btbuild(g, t, agno, owner, recs, n, addr, fork_len, &out, &e);
	T_CHECK(ts, ret == 0);
	if (ret) {
		fprintf(stderr, "%s n=%zu: %s\n", ops->name, n, e.msg);
		goto out;
	}
	T_CHECK(ts, out.nblocks == nb && out.levels == lvls);
	for (i = 0; i < nb; i++) {
		uint64_t fsb = t == OD_BT_BMAP ? addr[i] :
			       od_agb_fsb(g, agno, (uint32_t)addr[i]);

		memcpy(tf->mem + (od_fsb_daddr(g, fsb) << 9),
		       out.buf + (size_t)i * g->blocksize, g->blocksize);
	}

	/* the project's verifying walker */
	memset(&w, 0, sizeof(w));
	memset(&wp, 0, sizeof(wp));
	wp.recs = recs;
	wp.rl = ops->rec_len;
	wp.n = n;
	w.fs = tf->fs;
	w.type = t;
	w.agno = agno;
	w.owner = owner;
	w.what = ops->name;
	w.rec = walk_rec;
	w.priv = &wp;
	if (t == OD_BT_BMAP) {
		struct od_bmdr root;
		const char *field;
		uint64_t ptrs[256];

		T_CHECK(ts, od_bmdr_decode(out.fork_root, fork_len, &root,
					   &field) == OD_OK);
		T_CHECK(ts, root.level == lvls - 1 && root.numrecs <= 256);
		for (i = 0; i < root.numrecs && i < 256; i++)
			ptrs[i] = od_bmdr_ptr(out.fork_root, &root, i);
		ret = btwalk_from_ptrs(&w, ptrs, root.numrecs, root.level - 1,
				       &e);
	} else {
		T_CHECK(ts, out.root == addr[nb - 1]);
		ret = btwalk_from_block(&w, out.root, lvls - 1, &e);
	}
	T_CHECK(ts, ret == 0);
	if (ret)
		fprintf(stderr, "%s n=%zu: walk: %s\n", ops->name, n, e.msg);
	T_CHECK(ts, !wp.mismatch && wp.i == n && w.nblocks == nb);

	/* keys, high keys, minrecs, siblings, every block once */
	memset(&tc, 0, sizeof(tc));
	tc.ts = ts;
	tc.g = g;
	tc.t = t;
	tc.out = &out;
	tc.nslots = nslots;
	tc.idx_of = malloc(nslots * sizeof(*tc.idx_of));
	memset(tc.idx_of, 0xff, nslots * sizeof(*tc.idx_of));
	for (i = 0; i < nb; i++)
		tc.idx_of[addr[i]] = (int32_t)i;
	for (i = 0; i < lvls; i++)
		tc.lv_list[i] = malloc(nb * sizeof(uint32_t));
	if (t == OD_BT_BMAP) {
		struct od_bmdr root;
		const char *field;

		od_bmdr_decode(out.fork_root, fork_len, &root, &field);
		for (i = 0; i < root.numrecs && !tc.bad; i++) {
			const uint8_t *cf;
			uint8_t want[8];
			int32_t ix = tc.idx_of[od_bmdr_ptr(out.fork_root,
							   &root, i)];

			TC(&tc, ix >= 0);
			if (ix < 0)
				break;
			/* children of the fork root are roots to repair */
			cf = check_block(&tc, (uint32_t)ix, root.level - 1,
					 true, &hi);
			TC(&tc, cf != NULL);
			if (!cf)
				break;
			rec_key(t, cf, want);
			TC(&tc, od_bmdr_key(out.fork_root, i) ==
				od_get_be64(want));
		}
	} else {
		check_block(&tc, nb - 1, lvls - 1, true, &hi);
	}
	check_siblings(&tc, t == OD_BT_BMAP ? lvls - 1 : lvls);
	T_CHECK(ts, tc.visited == nb);
	if (tc.bad)
		fprintf(stderr, "  in %s v%d n=%zu fork_len=%u\n", ops->name,
			g->v5 ? 5 : 4, n, fork_len);
	for (i = 0; i < lvls; i++)
		free(tc.lv_list[i]);
	free(tc.idx_of);
	btbuild_free(&out);
out:
	free(pool);
	free(addr);
	free(recs);
}

static void test_geometry(struct t_state *ts, bool v5, unsigned blocklog,
			  struct memfs_rng *r)
{
	static const enum od_bt_type types[] = {
		OD_BT_BNO, OD_BT_CNT, OD_BT_INO, OD_BT_FINO, OD_BT_RMAP,
		OD_BT_REFC, OD_BT_BMAP,
	};
	static const uint32_t forks[] = { 24, 56, 336 };
	struct memfs tf;
	size_t ti, ci, fi;

	T_CHECK(ts, memfs_open(&tf, v5, blocklog) == 0);
	if (!tf.fs)
		return;
	for (ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
		enum od_bt_type t = types[ti];
		const struct od_bt_ops *ops = od_bt_ops(t);
		uint32_t l, n;
		size_t counts[12];
		struct err e;
		struct btbuild_out out;

		if ((v5 ? ops->magic_v5 : ops->magic_v4) == 0) {
			/* no v4 rmapbt/refcountbt: nothing to build */
			uint8_t rec[24] = { 0 };
			uint64_t a = 100;

			err_clear(&e);
			T_CHECK(ts, btbuild_nblocks(tf.g, t, 1, 0) == 0);
			T_CHECK(ts, btbuild(tf.g, t, 1, 1, rec, 1, &a, 0, &out,
					    &e) == -EINVAL);
			continue;
		}
		caps(tf.g, t, &l, &n);
		counts[0] = 0;
		counts[1] = 1;
		counts[2] = 2;
		counts[3] = l - 1;
		counts[4] = l;
		counts[5] = l + 1;
		counts[6] = 2 * (size_t)l + 1;
		counts[7] = (size_t)l * n;	/* two full levels */
		counts[8] = (size_t)l * n + 1;	/* one more: three */
		counts[9] = 5000;
		counts[10] = (size_t)l * (n / 2) * 3 - 7;
		counts[11] = (size_t)l * n * 2 + 3;
		for (fi = 0; fi < (t == OD_BT_BMAP ? 3u : 1u); fi++) {
			uint32_t fl = t == OD_BT_BMAP ? forks[fi] : 0;

			if (t == OD_BT_BMAP) {	/* around extent-list size */
				counts[0] = fl / 16;
				counts[1] = fl / 16 + 1;
				counts[2] = (fl - 4) / 16 * l + 1;
			}
			for (ci = 0; ci < 12; ci++)
				if (counts[ci] <= 200000)
					build_one(ts, &tf, t, counts[ci], fl,
						  r);
		}
	}
	memfs_close(&tf);
}

/* Edges: no records; refused: unsorted records, bad or repeated addresses. */
static void test_refusals(struct t_state *ts, struct memfs_rng *r)
{
	static const struct { uint32_t agno; uint64_t a2; } bad[] = {
		{ 1, 20 }, { 1, 0 }, { 1, 8192 }, { 2, 22 },
	};
	uint64_t addr[3] = { 20, 21, 22 };
	struct btbuild_out out;
	struct memfs tf;
	struct err e;
	uint8_t *recs;
	size_t i;

	T_CHECK(ts, memfs_open(&tf, true, 10) == 0);
	if (!tf.fs)
		return;
	recs = gen_recs(tf.g, OD_BT_BNO, 200, r);	/* 2 leaves + root */
	T_CHECK(ts, btbuild_nblocks(tf.g, OD_BT_BNO, 200, 0) == 3);
	err_clear(&e);
	T_CHECK(ts, btbuild(tf.g, OD_BT_BNO, 1, 1, recs, 200, addr, 0, &out,
			    &e) == 0 && out.root == 22 && out.levels == 2);
	btbuild_free(&out);
	/* no records at all: one empty root leaf; recs may be NULL */
	T_CHECK(ts, btbuild(tf.g, OD_BT_REFC, 1, 1, NULL, 0, addr, 0, &out,
			    &e) == 0 && out.root == 20 && out.levels == 1 &&
		    od_get_be16(out.buf + 6) == 0);
	btbuild_free(&out);
	memcpy(recs + 8 * 200, recs, 8);	/* out of order at the end */
	T_CHECK(ts, btbuild(tf.g, OD_BT_BNO, 1, 1, recs + 8, 200, addr, 0,
			    &out, &e) == -EINVAL && out.buf == NULL);
	/* a repeated address, agbno 0, past the AG, no such AG */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		addr[2] = bad[i].a2;
		err_clear(&e);
		T_CHECK(ts, btbuild(tf.g, OD_BT_BNO, bad[i].agno, 1, recs, 200,
				    addr, 0, &out, &e) == -EINVAL);
	}
	/* a fork too small for any root */
	T_CHECK(ts, btbuild_nblocks(tf.g, OD_BT_BMAP, 2, 16) == 0);
	free(recs);
	memfs_close(&tf);
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	struct memfs_rng r = { 0x9e3779b97f4a7c15ull };

	test_geometry(&ts, false, 9, &r);	/* v4, 512-byte blocks */
	test_geometry(&ts, false, 12, &r);	/* v4, 4 KiB */
	test_geometry(&ts, true, 10, &r);	/* v5, 1 KiB */
	test_geometry(&ts, true, 12, &r);	/* v5, 4 KiB */
	test_refusals(&ts, &r);
	return t_done(&ts, "test_btbuild");
}
