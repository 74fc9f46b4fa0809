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

/*
 * What a visit hook sees of each block (after it was read and passed the
 * checks above, before its records or children are walked): the hooks
 * are how a stricter walker (the checker's, core/check/check_bt.c) layers
 * its checks on this one, as xfs_scrub layers on the btree cursor.
 */
struct btwalk_block {
	uint64_t ptr;		/* as the parent stores it (agbno or fsbno) */
	uint64_t fsb;		/* packed fsbno */
	unsigned level;
	bool root;		/* the tree's root block */
	bool top;		/* a root, or a child of an in-inode root */
	const struct od_btblock *hdr;
	const uint8_t *buf;	/* the whole block */
	/* the parent's key for this block (raw, NULL for a root block) and
	 * where it is: the parent's pointer (UINT64_MAX: the inode root)
	 * and slot */
	const uint8_t *pkey;
	uint64_t pptr;
	uint32_t pidx;
	const char *what;	/* "ag 3 cntbt block 0x12 (daddr 0x90)" */
};

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
	/* optional: each block, before its records or children; nonzero
	 * stops the walk */
	int (*visit)(void *priv, const struct btwalk_block *b, struct err *e);
	/* btwalk_from_ptrs: the in-inode root's keys, parallel to its
	 * pointers (raw, ops->key_len apart), for visit's pkey; may be NULL */
	const uint8_t *root_keys;
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
