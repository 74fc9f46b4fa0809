/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Walk every leaf record of a btree in key order, verifying each block on
 * the way: magic, CRC, uuid, blkno, owner, level, record counts, and that
 * records strictly increase (which also stops loops and shared subtrees).
 */
#ifndef CORE_BTWALK_H
#define CORE_BTWALK_H

#include "core/fs/fs.h"
#include "ondisk/btree.h"

struct btwalk {
	struct fs *fs;
	enum od_bt_type type;
	uint32_t agno;		/* AG btrees: pointers are agbnos here */
	uint64_t owner;		/* v5 owner field expected in every block */
	const char *what;	/* names the tree in messages: "agf 3 bnobt" */
	/* called for each leaf record, in order; nonzero stops the walk */
	int (*rec)(void *priv, const uint8_t *rec, struct err *e);
	/* optional: called for each block visited (packed fsbno, level) */
	int (*block)(void *priv, uint64_t fsbno, unsigned level,
		     struct err *e);
	void *priv;
	/* only note leaf addresses (block callback), do not read leaves */
	bool skip_leaves;
	/* private */
	struct od_btkey last;
	bool have_last;
	uint64_t nblocks;	/* blocks visited */
	uint64_t nrecs;		/* leaf records visited */
	uint8_t *buf[OD_BTREE_MAXLEVELS_ANY];
};

/* Walk a tree whose root is a block (AG btrees). */
int btwalk_from_block(struct btwalk *w, uint64_t root, unsigned level,
		      struct err *e);
/*
 * Walk from an in-inode root (bmbt): n child pointers (packed fsbnos),
 * each at child_level.
 */
int btwalk_from_ptrs(struct btwalk *w, const uint64_t *ptrs, uint32_t n,
		     unsigned child_level, struct err *e);

/* Walk an AG btree from its AGF/AGI root. */
int btwalk_ag(struct fs *fs, uint32_t agno, enum od_bt_type t, uint32_t root,
	      uint32_t levels,
	      int (*rec)(void *priv, const uint8_t *rec, struct err *e),
	      void *priv, struct err *e);

#endif
