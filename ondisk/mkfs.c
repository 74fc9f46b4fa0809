/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/mkfs.h"
#include "ondisk/btree.h"

/* Records (leaf, [0]) and pointers (node, [1]) a block holds at the
 * least: half of what it can hold. */
static void min_recs(const struct od_geo *g, enum od_bt_type t,
		     uint32_t hdr_len, uint32_t mnr[2])
{
	const struct od_bt_ops *ops = od_bt_ops(t);

	mnr[0] = od_bt_maxrecs(ops, hdr_len, g->blocksize, true) / 2;
	mnr[1] = od_bt_maxrecs(ops, hdr_len, g->blocksize, false) / 2;
}

/* The height a tree of records needs when every block is at its
 * minimum (xfs_btree_compute_maxlevels). */
static unsigned height_for_records(const uint32_t mnr[2], uint64_t records)
{
	uint64_t blocks;
	unsigned h = 1;

	if (mnr[0] == 0 || mnr[1] < 2)
		return OD_BTREE_MAXLEVELS_ANY;	/* no such geometry */
	blocks = (records + mnr[0] - 1) / mnr[0];
	while (blocks > 1) {
		blocks = (blocks + mnr[1] - 1) / mnr[1];
		h++;
	}
	return h;
}

/* The height a tree reaches when it fills leaf_blocks blocks, the root
 * holding two pointers (xfs_btree_space_to_height). */
static unsigned height_for_space(const uint32_t mnr[2], uint64_t leaf_blocks)
{
	uint64_t node_blocks = 2, left = leaf_blocks - 1;
	unsigned h = 1;

	if (leaf_blocks < 1)
		return 0;
	if (mnr[1] < 2)
		return OD_BTREE_MAXLEVELS_ANY;
	while (node_blocks < left) {
		left -= node_blocks;
		node_blocks *= mnr[1];
		h++;
	}
	return h;
}

unsigned od_alloc_maxlevels(const struct od_geo *g)
{
	uint32_t mnr[2];

	min_recs(g, OD_BT_BNO, g->crc ? OD_SBLOCK_CRC_LEN : OD_SBLOCK_LEN,
		 mnr);
	/* at most one free extent per two blocks */
	return height_for_records(mnr, ((uint64_t)g->agblocks + 1) / 2);
}

unsigned od_rmap_maxlevels(const struct od_geo *g)
{
	uint32_t mnr[2];

	if (!g->rmapbt)
		return 0;
	min_recs(g, OD_BT_RMAP, OD_SBLOCK_CRC_LEN, mnr);
	/* with reflink every block may have many owners: the tree is
	 * bounded by the AG's space, else by one record per block */
	if (g->reflink)
		return height_for_space(mnr, g->agblocks);
	return height_for_records(mnr, g->agblocks);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

uint32_t od_min_freelist(const struct od_geo *g)
{
	/* each tree one level now (mkfs), so room to split to two */
	uint32_t n = 2 * min_u32(2, od_alloc_maxlevels(g));

	if (g->rmapbt)
		n += min_u32(2, od_rmap_maxlevels(g));
	return n;
}

static uint64_t roundup_u64(uint64_t v, uint32_t to)
{
	return (v + to - 1) / to * to;
}

uint64_t od_mkfs_rootino(const struct od_sb *sb, const struct od_geo *g,
			 uint32_t sunit)
{
	bool align = sb->versionnum & OD_SB_VERSION_ALIGN;
	bool dalign = sb->versionnum & OD_SB_VERSION_DALIGN;
	uint32_t cluster_align = align && sb->inoalignmt >=
				 g->blocks_per_cluster ? sb->inoalignmt : 1;
	uint32_t mask = cluster_align - 1;
	/* xfs_ialloc_setup_geometry: chunks follow the stripe unit only
	 * when it is a multiple of the chunk alignment */
	uint32_t dalign_blocks = dalign ? sb->unit : 0;
	bool ialloc_align = dalign_blocks && mask && !(dalign_blocks & mask);
	/* the four AG headers (one sector each) */
	uint64_t first = ((uint64_t)4 * sb->sectsize + sb->blocksize - 1) /
			 sb->blocksize;

	first += 2 + 1;		/* bnobt, cntbt and inobt roots */
	first += od_min_freelist(g);
	first += g->finobt + g->rmapbt + g->reflink;	/* their roots */
	if (sb->logstart && od_fsb_agno(g, sb->logstart) == 0)
		first += sb->logblocks;
	if (dalign && ialloc_align && sunit)
		first = roundup_u64(first, sunit);
	else if (align && sb->inoalignmt > 1)
		first = roundup_u64(first, sb->inoalignmt);
	return od_agino_ino(g, 0, (uint32_t)(first << g->inopblog));
}
