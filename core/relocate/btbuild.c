/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bulk loading, after the shape of xfs_btree_bload (xfs_btree_staging.c)
 * with no slack: each level gets the fewest blocks that hold its items,
 * ceil(n / maxrecs), and the items are spread evenly, the first n % blocks
 * blocks taking one more.  Every non-root block then holds at least
 * maxrecs / 2, the minrecs xfs_repair and the kernel verifiers insist on.
 * A level whose items fit one block is the root; for the bmbt, a level
 * (above the leaves) whose items fit the fork's bmdr root goes there.
 */
#include "core/relocate/btbuild.h"
#include "core/base/sort.h"
#include "core/relocate/btrecs.h"
#include "ondisk/bmbt.h"
#include "ondisk/rmap.h"

#include <stdlib.h>
#include <string.h>

struct bb_geom {
	const struct od_bt_ops *ops;
	uint32_t hdr_len;
	uint32_t leafmax, nodemax;
	uint32_t bmdrmax;	/* bmbt: slots in the fork root */
	uint32_t nblevels;	/* levels made of blocks */
	uint32_t levels;	/* tree height (bmbt: + the fork root) */
	uint32_t nblk[OD_BTREE_MAXLEVELS_ANY];
	uint32_t base[OD_BTREE_MAXLEVELS_ANY];	/* first block index */
	uint32_t root_recs;	/* bmbt: pointers in the fork root */
	uint32_t total;
};

static uint32_t hdr_len(const struct od_geo *g, bool long_ptrs)
{
	if (long_ptrs)
		return g->v5 ? OD_LBLOCK_CRC_LEN : OD_LBLOCK_LEN;
	return g->v5 ? OD_SBLOCK_CRC_LEN : OD_SBLOCK_LEN;
}

/* xfs_bmdr_maxrecs(fork_len, 0): key + pointer per slot after 4 bytes. */
static uint32_t bmdr_maxrecs(uint32_t fork_len)
{
	if (fork_len < OD_BMDR_HDR_LEN)
		return 0;
	return (fork_len - OD_BMDR_HDR_LEN) / 16;
}

/*
 * Shape of the tree.  0 and geom filled; 1 when the bmbt records fit the
 * fork as an extent list; -EINVAL when the tree cannot be built here (no
 * such tree on this version, fork too small for a root); -E2BIG when too
 * deep.
 */
static int bb_geometry(const struct od_geo *g, enum od_bt_type t,
		       size_t nrecs, uint32_t fork_len, struct bb_geom *geo)
{
	bool bmap = t == OD_BT_BMAP;
	uint64_t nr = nrecs, total = 0;
	uint32_t lvl = 0;

	memset(geo, 0, sizeof(*geo));
	geo->ops = od_bt_ops(t);
	if ((g->v5 ? geo->ops->magic_v5 : geo->ops->magic_v4) == 0)
		return -EINVAL;
	geo->hdr_len = hdr_len(g, geo->ops->long_ptrs);
	geo->leafmax = od_bt_maxrecs(geo->ops, geo->hdr_len, g->blocksize,
				     true);
	geo->nodemax = od_bt_maxrecs(geo->ops, geo->hdr_len, g->blocksize,
				     false);
	if (geo->leafmax < 2 || geo->nodemax < 2)
		return -EINVAL;
	if (bmap) {
		if ((uint64_t)nrecs * OD_BMBT_REC_LEN <= fork_len)
			return 1;
		geo->bmdrmax = bmdr_maxrecs(fork_len);
		if (geo->bmdrmax == 0)
			return -EINVAL;
	}
	for (;;) {
		uint32_t max = lvl == 0 ? geo->leafmax : geo->nodemax;
		uint64_t n;

		if (!bmap && nr <= max) {
			geo->nblk[lvl] = 1;
			total++;
			geo->nblevels = lvl + 1;
			geo->levels = lvl + 1;
			break;
		}
		/* bmbt leaves never live in the inode (bload forbids it) */
		if (bmap && lvl > 0 && nr <= geo->bmdrmax) {
			geo->root_recs = (uint32_t)nr;
			geo->nblevels = lvl;
			geo->levels = lvl + 1;
			break;
		}
		/* levels + 1 must stay below what any walker accepts */
		if (lvl + 2 > OD_BTREE_MAXLEVELS_ANY)
			return -E2BIG;
		n = (nr + max - 1) / max;
		geo->nblk[lvl] = (uint32_t)n;
		total += n;
		if (total > UINT32_MAX)
			return -E2BIG;
		nr = n;
		lvl++;
	}
	for (lvl = 1; lvl < geo->nblevels; lvl++)
		geo->base[lvl] = geo->base[lvl - 1] + geo->nblk[lvl - 1];
	geo->total = (uint32_t)total;
	return 0;
}

uint32_t btbuild_nblocks(const struct od_geo *g, enum od_bt_type t,
			 size_t nrecs, uint32_t fork_len)
{
	struct bb_geom geo;

	if (bb_geometry(g, t, nrecs, fork_len, &geo) != 0)
		return 0;
	return geo.total;
}

/* ---- keys ---- */

/* Bytes of one node slot's keys: low + high for the overlapping rmapbt. */
static uint32_t slot_len(enum od_bt_type t)
{
	return od_bt_ops(t)->key_len;
}

/* xfs_rmapbt_diff_two_keys over packed keys: startblock, owner, offset. */
static int rmap_key_cmp(const uint8_t *a, const uint8_t *b)
{
	struct od_rmap_key x, y;

	od_rmap_key_decode(a, &x);
	od_rmap_key_decode(b, &y);
	return od_rmap_key_cmp(&x, &y);
}

/* The rmapbt node slot's high key: the largest over the records. */
static void rmap_high_keys(const uint8_t *recs, uint32_t n, uint8_t *key)
{
	struct od_rmap_key best, k;
	struct od_rmap_rec r;
	uint32_t i;

	for (i = 0; i < n; i++) {
		od_rmap_rec_decode(recs + (size_t)i * OD_RMAP_REC_LEN, &r);
		od_rmap_rec_high_key(&r, &k);
		if (i == 0 || od_rmap_key_cmp(&k, &best) > 0)
			best = k;
	}
	od_rmap_key_encode(&best, key);
}

/* The node slot (keys) for a leaf holding n >= 1 records. */
static void leaf_slot(enum od_bt_type t, const uint8_t *recs, uint32_t n,
		      uint8_t *slot)
{
	od_bt_key_from_rec(t, recs, slot);
	if (t == OD_BT_RMAP)
		rmap_high_keys(recs, n, slot + OD_RMAP_KEY_LEN);
}

/* The slot for a node from its n >= 1 slots: first low key, max high. */
static void node_slot(enum od_bt_type t, const uint8_t *slots, uint32_t n,
		      uint8_t *slot)
{
	uint32_t sl = slot_len(t), i;

	memcpy(slot, slots, sl);
	if (t != OD_BT_RMAP)
		return;
	for (i = 1; i < n; i++) {
		const uint8_t *hk = slots + (size_t)i * sl + OD_RMAP_KEY_LEN;

		if (rmap_key_cmp(hk, slot + OD_RMAP_KEY_LEN) > 0)
			memcpy(slot + OD_RMAP_KEY_LEN, hk, OD_RMAP_KEY_LEN);
	}
}

/* ---- checks on the input ---- */

static int cmp_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int check_addrs(const struct od_geo *g, enum od_bt_type t,
		       uint32_t agno, const uint64_t *addr, uint32_t n,
		       struct err *e)
{
	uint64_t *s;
	uint32_t i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		bool ok;

		if (t == OD_BT_BMAP)
			ok = od_fsb_valid(g, addr[i], 1) &&
			     od_fsb_agbno(g, addr[i]) != 0;
		else
			ok = addr[i] != 0 && addr[i] < od_ag_blocks(g, agno);
		if (!ok)
			return err_set(e, -EINVAL, "%s rebuild: block %u "
				       "address 0x%llx is out of range",
				       od_bt_ops(t)->name, i,
				       (unsigned long long)addr[i]);
	}
	s = malloc((size_t)n * sizeof(*s));
	if (!s)
		return err_set(e, -ENOMEM, "out of memory");
	memcpy(s, addr, (size_t)n * sizeof(*s));
	sort_any(s, n, sizeof(*s), cmp_addr);
	for (i = 1; i < n && !ret; i++)
		if (s[i] == s[i - 1])
			ret = err_set(e, -EINVAL, "%s rebuild: block address "
				      "0x%llx given twice", od_bt_ops(t)->name,
				      (unsigned long long)s[i]);
	free(s);
	return ret;
}

static int check_order(enum od_bt_type t, const uint8_t *recs, size_t n,
		       struct err *e)
{
	btrec_cmp_fn cmp = btrec_cmp(t);
	size_t rl = od_bt_ops(t)->rec_len, i;

	for (i = 1; i < n; i++)
		if (cmp(recs + (i - 1) * rl, recs + i * rl) >= 0)
			return err_set(e, -EINVAL, "%s rebuild: record %zu is "
				       "not above record %zu in key order",
				       od_bt_ops(t)->name, i, i - 1);
	return 0;
}

/* ---- building ---- */

struct bb_ctx {
	const struct od_geo *g;
	enum od_bt_type t;
	uint32_t agno;
	uint64_t owner;
	const struct bb_geom *geo;
	struct btbuild_out *out;
};

/* Header of block b (index within its level) of level lvl. */
static uint8_t *bb_block(const struct bb_ctx *c, uint32_t lvl, uint32_t b,
			 uint32_t numrecs)
{
	const struct bb_geom *geo = c->geo;
	uint32_t i = geo->base[lvl] + b, n = geo->nblk[lvl];
	uint8_t *buf = c->out->buf + (size_t)i * c->g->blocksize;
	const uint64_t *addr = c->out->addr;
	struct od_btblock hdr;
	uint64_t fsb;

	memset(&hdr, 0, sizeof(hdr));
	hdr.level = (uint16_t)lvl;
	hdr.numrecs = (uint16_t)numrecs;
	/* the encoder narrows NULLFSBLOCK to NULLAGBLOCK for short ptrs */
	hdr.leftsib = b > 0 ? addr[i - 1] : OD_NULLFSBLOCK;
	hdr.rightsib = b + 1 < n ? addr[i + 1] : OD_NULLFSBLOCK;
	fsb = geo->ops->long_ptrs ? addr[i] :
	      od_agb_fsb(c->g, c->agno, (uint32_t)addr[i]);
	hdr.blkno = od_fsb_daddr(c->g, fsb);
	hdr.owner = c->owner;
	od_btblock_encode_hdr(&hdr, c->g, c->t, buf);
	return buf;
}

/* Items on block b of a level of n items over nb blocks. */
static uint32_t per_block(uint64_t n, uint32_t nb, uint32_t b)
{
	return (uint32_t)(n / nb + (b < n % nb ? 1 : 0));
}

static void build_leaves(const struct bb_ctx *c, const uint8_t *recs,
			 size_t nrecs, uint8_t *slots)
{
	const struct od_bt_ops *ops = c->geo->ops;
	uint32_t nb = c->geo->nblk[0], b, sl = slot_len(c->t);
	size_t r = 0;

	for (b = 0; b < nb; b++) {
		uint32_t cnt = per_block(nrecs, nb, b);
		uint8_t *buf = bb_block(c, 0, b, cnt);
		const uint8_t *src;

		if (cnt == 0)	/* the empty root leaf; recs may be NULL */
			continue;
		src = recs + r * ops->rec_len;
		memcpy(buf + c->geo->hdr_len, src, (size_t)cnt * ops->rec_len);
		leaf_slot(c->t, src, cnt, slots + (size_t)b * sl);
		r += cnt;
	}
}

/* Write node level lvl from the children's slots; fill this level's. */
static void build_nodes(const struct bb_ctx *c, uint32_t lvl,
			const uint8_t *child_slots, uint8_t *slots)
{
	const struct bb_geom *geo = c->geo;
	const struct od_bt_ops *ops = geo->ops;
	uint32_t nb = geo->nblk[lvl], nchild = geo->nblk[lvl - 1];
	uint32_t sl = slot_len(c->t), b, j, ch = 0;

	for (b = 0; b < nb; b++) {
		uint32_t cnt = per_block(nchild, nb, b);
		uint8_t *buf = bb_block(c, lvl, b, cnt);

		memcpy(buf + geo->hdr_len, child_slots + (size_t)ch * sl,
		       (size_t)cnt * sl);
		for (j = 0; j < cnt; j++) {
			uint64_t a = c->out->addr[geo->base[lvl - 1] + ch + j];
			size_t off = od_bt_ptr_off(ops, geo->hdr_len,
						   geo->nodemax, j);

			od_bt_ptr_put(ops, buf, off, a);
		}
		node_slot(c->t, child_slots + (size_t)ch * sl, cnt,
			  slots + (size_t)b * sl);
		ch += cnt;
	}
}

/* The bmbt root in the inode fork: keys and pointers of the top level. */
static int build_fork_root(const struct bb_ctx *c, uint32_t fork_len,
			   const uint8_t *top_slots, struct err *e)
{
	const struct bb_geom *geo = c->geo;
	uint32_t top = geo->nblevels - 1, j;
	struct od_bmdr root;
	uint8_t *f;

	f = calloc(1, fork_len);
	if (!f)
		return err_set(e, -ENOMEM, "out of memory");
	root.level = (uint16_t)geo->nblevels;
	root.numrecs = (uint16_t)geo->root_recs;
	root.maxrecs = geo->bmdrmax;
	od_bmdr_encode(&root, f);
	for (j = 0; j < geo->root_recs; j++) {
		memcpy(f + OD_BMDR_HDR_LEN + OD_BMBT_KEY_LEN * (size_t)j,
		       top_slots + OD_BMBT_KEY_LEN * (size_t)j,
		       OD_BMBT_KEY_LEN);
		od_bmdr_set_ptr(f, &root, j, c->out->addr[geo->base[top] + j]);
	}
	c->out->fork_root = f;
	return 0;
}

static int bb_fill(const struct bb_ctx *c, const uint8_t *recs, size_t nrecs,
		   uint32_t fork_len, struct err *e)
{
	const struct bb_geom *geo = c->geo;
	uint32_t sl = slot_len(c->t), lvl, i;
	uint8_t *slots[2];
	int ret = 0;

	/* slots of one level, then of the next: the leaf level is widest */
	slots[0] = malloc((size_t)geo->nblk[0] * sl);
	slots[1] = malloc((size_t)geo->nblk[0] * sl);
	if (!slots[0] || !slots[1]) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	build_leaves(c, recs, nrecs, slots[0]);
	for (lvl = 1; lvl < geo->nblevels; lvl++)
		build_nodes(c, lvl, slots[(lvl - 1) & 1], slots[lvl & 1]);
	if (c->t == OD_BT_BMAP)
		ret = build_fork_root(c, fork_len,
				      slots[(geo->nblevels - 1) & 1], e);
	for (i = 0; i < geo->total; i++)
		od_btblock_set_crc(c->g, c->t, c->out->buf +
				   (size_t)i * c->g->blocksize,
				   c->g->blocksize);
out:
	free(slots[0]);
	free(slots[1]);
	return ret;
}

int btbuild(const struct od_geo *g, enum od_bt_type t, uint32_t agno,
	    uint64_t owner, const uint8_t *recs, size_t nrecs,
	    const uint64_t *addr, uint32_t fork_len, struct btbuild_out *out,
	    struct err *e)
{
	const char *name = od_bt_ops(t)->name;
	struct bb_geom geo;
	struct bb_ctx c;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = bb_geometry(g, t, nrecs, fork_len, &geo);
	if (ret == 1)
		return err_set(e, -EINVAL, "%s rebuild: %zu records fit in a "
			       "%u-byte fork as an extent list", name, nrecs,
			       fork_len);
	if (ret == -E2BIG)
		return err_set(e, ret, "%s rebuild: %zu records make too "
			       "deep a tree", name, nrecs);
	if (ret)
		return err_set(e, ret, "%s rebuild: not possible on this "
			       "filesystem%s", name, t == OD_BT_BMAP ?
			       " (fork too small for a root)" : "");
	if (t != OD_BT_BMAP && agno >= g->agcount)
		return err_set(e, -EINVAL, "%s rebuild: no ag %u", name, agno);
	ret = check_order(t, recs, nrecs, e);
	if (!ret)
		ret = check_addrs(g, t, agno, addr, geo.total, e);
	if (ret)
		return ret;

	out->buf = calloc(geo.total, g->blocksize);
	out->addr = malloc((size_t)geo.total * sizeof(*out->addr));
	if (!out->buf || !out->addr) {
		btbuild_free(out);
		return err_set(e, -ENOMEM, "out of memory");
	}
	memcpy(out->addr, addr, (size_t)geo.total * sizeof(*out->addr));
	out->nblocks = geo.total;
	out->levels = geo.levels;
	out->root = t == OD_BT_BMAP ? 0 : addr[geo.total - 1];

	c.g = g;
	c.t = t;
	c.agno = agno;
	c.owner = t == OD_BT_BMAP ? owner : agno;
	c.geo = &geo;
	c.out = out;
	ret = bb_fill(&c, recs, nrecs, fork_len, e);
	if (ret)
		btbuild_free(out);
	return ret;
}

void btbuild_free(struct btbuild_out *out)
{
	free(out->buf);
	free(out->addr);
	free(out->fork_root);
	memset(out, 0, sizeof(*out));
}
