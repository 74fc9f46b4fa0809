/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rows the kernel's XFS_IOC_GETBMAPX would return for a fork
 * (fs/xfs/xfs_bmap_util.c: xfs_getbmap), computed from the disk: the
 * mapping is cut at the file size (or s_maxbytes with a size hint or
 * preallocation flag), holes are rows of their own, and written extents
 * of reflinked files are split where sharing starts and stops.
 */
#ifndef CORE_GETBMAP_H
#define CORE_GETBMAP_H

#include <stdint.h>

#include "core/fs/fork.h"

#define GETBMAP_OF_PREALLOC	0x1	/* unwritten (only with GETBMAP_PREALLOC) */
#define GETBMAP_OF_LAST		0x4	/* last extent of the fork */
#define GETBMAP_OF_SHARED	0x8

#define GETBMAP_ATTRFORK	0x1	/* map the attr fork */
#define GETBMAP_PREALLOC	0x2	/* report unwritten extents as such */

struct getbmap_row {
	int64_t offset;		/* 512-byte units */
	int64_t block;		/* linear daddr, or -1 for a hole */
	int64_t length;
	uint32_t oflags;
};

struct getbmap {
	struct getbmap_row *v;
	size_t n, cap;
};

/*
 * Compute the rows for inode ip.  max_rows limits them as bmv_count - 1
 * does (0: no limit).  Reads the refcount btree for reflinked inodes.
 */
int getbmap(struct fs *fs, const struct inode *ip, unsigned flags,
	    size_t max_rows, struct getbmap *out, struct err *e);
void getbmap_free(struct getbmap *gb);

#endif
