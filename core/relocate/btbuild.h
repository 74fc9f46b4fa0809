/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bulk-loading btrees: given sorted leaf records, build every block of a
 * new tree (all levels, sibling links, node keys, v5 headers with blkno,
 * owner, uuid and CRC) into memory, at block addresses the caller chose.
 * Each level gets the fewest blocks that hold it, filled evenly, so
 * every non-root block holds at least half of what it can (the minrecs
 * xfs_repair checks).  Records come packed and sorted (core/relocate/btrecs.h).
 * Used to rebuild the AG
 * btrees (bnobt, cntbt, inobt, finobt, rmapbt with its overlapping
 * low/high keys, refcountbt) and file bmap btrees (whose root lives in
 * the inode fork).
 */
#ifndef CORE_BTBUILD_H
#define CORE_BTBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"
#include "ondisk/btree.h"
#include "ondisk/geo.h"

/*
 * How many blocks a tree of nrecs records needs (0 records: 1 block, an
 * empty root leaf).  Blocks are packed full (no slack), so this is the
 * fewest blocks the tree can have.  For OD_BT_BMAP, fork_len is the size
 * of the inode fork holding the root (struct xfs_bmdr_block) and the
 * count excludes that root; it is 0 when the records fit in the fork as
 * an extent list (nrecs * 16 <= fork_len: no btree, and xfs_repair
 * rejects a btree fork that could be extents).  Also 0 when the tree
 * cannot be built: rmapbt/refcountbt on a v4 filesystem, a fork too
 * small for a root with one pointer, a tree deeper than
 * OD_BTREE_MAXLEVELS_ANY.
 */
uint32_t btbuild_nblocks(const struct od_geo *g, enum od_bt_type t,
			 size_t nrecs, uint32_t fork_len);

struct btbuild_out {
	uint8_t *buf;		/* nblocks * blocksize bytes, block i at i */
	uint64_t *addr;		/* where block i goes: agbno, or fsbno (bmbt);
				 * a copy of the caller's array */
	uint32_t nblocks;
	uint64_t root;		/* root block address (AG trees); 0 for bmbt */
	uint32_t levels;	/* tree height, 1 = a single leaf; bmbt: the
				 * fork root counts (2 = root + leaves) */
	/* bmbt only: the in-inode root (struct xfs_bmdr_block), fork_len
	 * bytes, keys and pointers placed for fork_len's maxrecs */
	uint8_t *fork_root;
};

/*
 * Build the tree.  recs: nrecs packed on-disk records (core/relocate/btrecs.h),
 * strictly increasing in the tree's key order (btrec_cmp); anything else
 * is refused.  addr: btbuild_nblocks() distinct block addresses (agbnos
 * inside AG agno, or fsbnos for the bmbt), none at agbno 0.  They are
 * used in array order: leaves first, left to right, then each level up
 * left to right, the root last (AG trees: addr[nblocks - 1]).  Sort addr
 * ascending to lay each level out in key order on disk.  The v5 owner
 * is agno for AG trees (owner is then ignored) and owner, the inode
 * number, for the bmbt.  On success fill *out (free with btbuild_free);
 * on failure *out is empty and e says why.  No I/O: the caller writes
 * block i at addr[i] and links the root (AGF/AGI root and level, or
 * fork_root into the inode with format btree).
 */
int btbuild(const struct od_geo *g, enum od_bt_type t, uint32_t agno,
	    uint64_t owner, const uint8_t *recs, size_t nrecs,
	    const uint64_t *addr, uint32_t fork_len, struct btbuild_out *out,
	    struct err *e);
void btbuild_free(struct btbuild_out *out);

#endif
