/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's btree walk: the generic walker (core/fs/btwalk.c, which
 * the read path uses and which accepts whatever the kernel can read:
 * magic, CRC, uuid, blkno, owner, level, record order) with hooks that
 * add what a tree rebuilt by a rewriter can get wrong while staying
 * readable, as xfs_scrub layers its checks on the kernel's btree cursor:
 *   - sibling pointers: each level is one left-to-right chain, NULL at
 *     both ends (the kernel stops iterating at a NULL right sibling);
 *   - every node key equals the first key of its child, and for the
 *     overlapping rmapbt every high key equals the largest high key
 *     below it (what xfs_scrub requires);
 *   - every non-root block holds at least half of what it can
 *     (xfs_repair's "bad btree nrecs").  As in xfs_repair the blocks
 *     right below an in-inode bmbt root are exempt;
 *   - every block's LSN is noted for the log head comparison.
 * Structural damage stops the walk (an error with a message); the soft
 * problems above go to the log and the walk goes on.
 */
#ifndef CORE_CHECK_BT_H
#define CORE_CHECK_BT_H

#include "core/check/check_int.h"

struct check_bt {
	struct fs *fs;
	enum od_bt_type type;
	uint32_t agno;		/* AG trees: pointers are agbnos here */
	uint64_t owner;		/* v5 owner field expected in every block */
	const char *what;	/* "ag 3 cntbt", "inode 131 data fork bmbt" */
	struct check_log *log;	/* soft problems */
	struct check_lsn *lsn;	/* where block LSNs are noted; may be NULL */
	/* each leaf record in key order; nonzero stops the walk */
	int (*rec)(void *priv, const uint8_t *rec, struct err *e);
	/* each block visited (packed fsbno, level); may be NULL */
	int (*block)(void *priv, uint64_t fsbno, unsigned level,
		     struct err *e);
	void *priv;
	/* results */
	uint64_t nblocks, nrecs;
	/* private */
	struct od_btkey last;
	bool have_last;
	bool have_prev[OD_BTREE_MAXLEVELS_ANY];
	uint64_t prev_ptr[OD_BTREE_MAXLEVELS_ANY];
	uint64_t prev_right[OD_BTREE_MAXLEVELS_ANY];
};

/* Walk an AG btree from its root block; levels as the AGF/AGI says. */
int check_bt_ag(struct check_bt *w, uint32_t root, uint32_t levels,
		struct err *e);
/* Walk a bmbt from the root in an inode fork of forklen bytes. */
int check_bt_bmbt(struct check_bt *w, const uint8_t *fork, uint32_t forklen,
		  struct err *e);

#endif
