/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directories: look a name up through the hash index (block, leaf and
 * node formats read only the blocks on the hash path), or list every
 * entry.  Works for every data fork format (local, extents, btree).
 */
#ifndef CORE_DIR_H
#define CORE_DIR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fs/fork.h"
#include "ondisk/dir2.h"

enum dir_format { DIR_SHORTFORM, DIR_BLOCK, DIR_LEAF, DIR_NODE };

/* An opened directory: its inode and (non-local) extent map. */
struct dir {
	struct fs *fs;
	struct inode ip;
	struct extmap map;
	enum dir_format fmt;
	uint64_t dirblocks_read;	/* directory blocks read so far */
	uint64_t last_daddr;		/* where the last block read starts */
	uint8_t *buf;			/* one directory block */
	uint8_t *buf2;			/* a second one (leaf + data) */
	/* set by dir_lookup when the hash index missed a name that a
	 * linear scan found: the index is damaged (warn names it) */
	bool index_damaged;
	char index_warn[320];
};

int dir_open(struct fs *fs, uint64_t ino, struct dir *d, struct err *e);
/* Open from an inode already read (the scanner). */
int dir_open_inode(struct fs *fs, const struct inode *ip, struct dir *d,
		   struct err *e);
void dir_close(struct dir *d);

/*
 * Find name; 0 and *ino on success, -ENOENT when absent (no message), or
 * another error with a message naming the damaged block.  When the hash
 * index does not lead to the name, the data blocks are scanned: a name
 * found that way is returned with d->index_damaged set and
 * d->index_warn saying which index is damaged.
 */
int dir_lookup(struct dir *d, const uint8_t *name, size_t namelen,
	       uint64_t *ino, struct err *e);

/* Called for every entry ("." and ".." included); nonzero stops. */
typedef int (*dir_iter_fn)(void *priv, const uint8_t *name, size_t namelen,
			   uint64_t ino, uint8_t ftype, struct err *e);
int dir_iterate(struct dir *d, dir_iter_fn fn, void *priv, struct err *e);

/* Read directory block at fs-block offset dablk of the fork into buf. */
int dir_read_block(struct dir *d, uint64_t dablk, uint8_t *buf,
		   struct err *e);
/*
 * Name the directory block last read, for messages: "directory INO KIND
 * block DABLK (daddr 0x...)" (KIND "data", "leaf", "node" or "").
 */
void dir_block_name(const struct dir *d, const char *kind, uint64_t dablk,
		    char *buf, size_t len);
/* Check a v5 block's self-describing blkno and owner after a read. */
int dir_check_self(struct dir *d, uint64_t dablk, uint64_t blkno,
		   uint64_t owner, struct err *e);

const char *dir_format_name(enum dir_format f);

#endif
