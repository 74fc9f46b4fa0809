/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the directory and attribute checks (check_dir*.c, check_da.c,
 * check_attr.c, check_sf.c): what the kernel's read verifiers and
 * xfs_repair's directory passes demand of every block, beyond what
 * reading a directory needs.
 *
 * A directory is checked in two passes over its blocks.  The data pass
 * (check_dirdata.c) verifies every data block (entries, free regions,
 * the bestfree table; the hash index of a block-format directory) and
 * collects each entry's name hash and address and each block's largest
 * free region.  The index pass (check_dirhash.c) holds the leaf, node
 * and free-index blocks against what was collected: every entry indexed
 * once under its name's hash, in hash order, the stale counts, and the
 * bests tables.  Names are checked across the directory (check_sf.c
 * for shortform ones): no duplicates, no '/' or NUL, one "." and "..".
 */
#ifndef CORE_CHECK_DIR_H
#define CORE_CHECK_DIR_H

#include "core/check/check_int.h"
#include "core/fs/dir.h"

/* Problems reported per directory or attr fork, at most (then counted). */
#define DIRCK_MAX_PROBLEMS	8

/* One data entry: its name's hash and its address in the data space. */
struct dirck_ent {
	uint32_t hash;
	uint32_t addr;		/* byte offset in the data space / 8 */
	uint32_t name;		/* offset in dirck.names */
	uint8_t namelen;
};

/* One hash index entry that is not stale. */
struct dirck_leaf {
	uint32_t hash, addr;
};

struct check_da;

struct dirck {
	struct check_ctx *c;
	struct check_ag *ca;
	struct dir *d;
	const struct od_geo *g;
	unsigned long long ino;
	bool ci;		/* ascii-ci name hashes */
	unsigned problems;	/* reported so far */
	/* the data pass's findings */
	struct dirck_ent *ent;
	size_t nent, cap_ent;
	char *names;
	size_t nnames, cap_names;
	uint16_t *best;		/* per data block: bestfree[0], or a hole */
	size_t nbest, cap_best;
	bool data_ok;		/* every data block read and verified */
	/* the index pass's: every live leaf entry */
	struct dirck_leaf *lv;
	size_t nlv, cap_lv;
	uint8_t *buf;		/* one directory block */
	const struct check_da *da;	/* the node walk, while it runs */
};

/* Report a problem of code with text msg about directory block what
 * ("directory 131 leaf block 8388608 (daddr 0x...)"), capped. */
void dirck_problem(struct dirck *k, enum check_code code, const char *what,
		   const char *msg);

/* Read the directory block at fork offset dablk into k->buf; names it
 * in what (kind: "data", "leaf", ...).  0, or <0 with a problem logged. */
int dirck_read(struct dirck *k, uint64_t dablk, const char *kind, char *what,
	       size_t len);

/* Keep a live leaf entry (0 or -ENOMEM), and hold k->lv against the
 * data entries: every entry indexed exactly once under its name's hash
 * (check_dirhash.c).  what names the index for messages. */
int dirck_leaf_add(struct dirck *k, uint32_t hash, uint32_t addr);
void dirck_compare(struct dirck *k, const char *what);

/* Passes (check_dirdata.c, check_dirhash.c). */
int dirck_data(struct dirck *k);
/*
 * dir_iterate (fn for every entry, the same walk, errors and messages:
 * its return) and dirck_data (its return in *dret) in one read of each
 * data block of a block, leaf or node directory.  The data pass's
 * findings come as the blocks do, interleaved with fn's: a caller that
 * wants dir_iterate's then dirck_data's in that order keeps them apart.
 */
int dirck_iterate(struct dirck *k, dir_iter_fn fn, void *priv, struct err *e,
		  int *dret);
void dirck_index(struct dirck *k);
/* Names across the directory (check_sf.c): duplicates, ".", "..". */
void dirck_names(struct dirck *k, bool longform);
/* A shortform directory's fork (check_sf.c). */
void dirck_shortform(struct dirck *k);
/* Add an entry found by a pass; 0 or -ENOMEM. */
int dirck_add(struct dirck *k, const uint8_t *name, uint8_t namelen,
	      uint32_t addr);

/* ---- dabtrees: directory hash index nodes and attr forks (check_da.c) ---- */

struct check_da {
	struct check_ctx *c;
	struct check_ag *ca;
	unsigned long long ino;
	const char *what;		/* "directory 131", "inode 9 attr fork" */
	const struct extmap *map;	/* the fork's blocks */
	uint32_t blksize;		/* bytes in one dabtree block */
	uint32_t fsbs;			/* fs blocks in one */
	uint64_t root;			/* fork offset of the root block */
	uint64_t lo, hi;		/* children lie in [lo, hi) */
	enum check_code code;		/* PR_DIR_NODE or PR_ATTR_NODE */
	/*
	 * Each leaf, left to right: verify it, and give its lowest and
	 * highest hash (count 0: an empty leaf).  <0 stops the walk.
	 */
	int (*leaf)(void *priv, uint64_t dablk, const uint8_t *buf,
		    uint32_t *lohash, uint32_t *hihash, uint32_t *count);
	void *priv;
	unsigned *problems;		/* shared cap with the caller */
	/* private */
	uint8_t *buf[6];		/* XFS_DA_NODE_MAXDEPTH levels + leaf */
	bool have_prev[6];
	uint64_t prev[6];
	uint32_t prev_forw[6];
	uint64_t leaf_daddr;		/* of the block handed to leaf */
	uint32_t last_hash;
	bool have_hash;
	uint64_t visits;
};

/*
 * Walk a dabtree from w->root: nodes (counts, levels, hash order, every
 * entry's hash the highest hash below it, children inside the fork's
 * space), sibling chains at every level, leaves in hash order.  0, or <0
 * when the walk had to stop (the problem is logged).
 */
int check_da_walk(struct check_da *w);
void check_da_done(struct check_da *w);
/* Read dabtree block dablk (w->fsbs blocks) into buf; daddr of its first
 * block in *daddr.  0 or <0 (problem logged). */
int check_da_read(struct check_da *w, uint64_t dablk, uint8_t *buf,
		  uint64_t *daddr);
void check_da_problem(struct check_da *w, enum check_code code,
		      uint64_t dablk, const char *msg);

/* The attr fork of an inode (check_attr.c). */
struct inode;
void check_attr_fork(struct check_ctx *c, struct check_ag *ca,
		     const struct inode *ip, const struct m_ino *mi);

#endif
