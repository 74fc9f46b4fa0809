/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The extent map of an inode fork, from the inline list or the bmbt. */
#ifndef CORE_FORK_H
#define CORE_FORK_H

#include "core/fs/inode.h"
#include "ondisk/bmbt.h"

enum { FORK_DATA = 0, FORK_ATTR = 1 };

struct extmap {
	struct od_irec *v;
	size_t n, cap;
	uint64_t btblocks;	/* bmbt blocks (not counting the inode root) */
};

void extmap_free(struct extmap *m);

/*
 * Read the extent records of a fork (extents or btree format) into m, in
 * file-offset order, verified: each in range, none overlapping, total as
 * the inode says.  Local and device forks give an empty map.  If blk is
 * not NULL it is called with each bmbt block (fsbno, level).
 */
int fork_map(struct fs *fs, const struct inode *ip, int whichfork,
	     struct extmap *m,
	     int (*blk)(void *priv, uint64_t fsbno, unsigned level,
			struct err *e),
	     void *priv, struct err *e);

/*
 * xfs_bmap_validate_extent and ordering: record idx of a fork must have a
 * length, lie inside the device (rt blocks for realtime data forks),
 * stay below the largest file offset and start after prev (NULL for the
 * first).  0 or -EFSCORRUPTED with a message.
 */
int fork_check_rec(struct fs *fs, uint64_t ino, int whichfork, bool realtime,
		   const struct od_irec *prev, const struct od_irec *r,
		   size_t idx, struct err *e);

#endif
