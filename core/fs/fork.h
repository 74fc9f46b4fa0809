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
 * The record of v[0..n) (in file-offset order, none overlapping) that
 * maps file block off, or NULL in a hole.
 */
const struct od_irec *fork_rec_at(const struct od_irec *v, size_t n,
				  uint64_t off);

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

/* xfs_format.h: XFS_MAX_FILEOFF, the 54-bit file offset space */
#define FORK_MAX_FILEOFF	((1ull << 54) - 1)

/*
 * fork_check_rec's verdict on a data-device record, without a message,
 * inline for the scan's loop over every extent; prev_end is where the
 * previous record ends (0 for the first).  False: ask fork_check_rec.
 */
static inline bool fork_rec_ok(const struct od_geo *g, uint64_t prev_end,
			       const struct od_irec *r)
{
	uint64_t agno = r->startblock >> g->agblklog;

	return r->blockcount != 0 && agno < g->agcount &&
	       od_fsb_agbno(g, r->startblock) + (uint64_t)r->blockcount <=
	       od_ag_blocks(g, (uint32_t)agno) &&
	       r->startoff + r->blockcount <= FORK_MAX_FILEOFF &&
	       r->startoff >= prev_end;
}

#endif
