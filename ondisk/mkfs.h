/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What mkfs lays out where, computed from the geometry alone, as libxfs
 * does (xfs_ialloc.c: xfs_ialloc_calc_rootino; xfs_alloc.c:
 * xfs_alloc_min_freelist and the btree height limits it uses).
 * xfs_repair expects the root directory, and the realtime bitmap and
 * summary inodes right after it, exactly there.
 */
#ifndef OD_MKFS_H
#define OD_MKFS_H

#include <stdint.h>

#include "ondisk/geo.h"
#include "ondisk/sb.h"

/* Height limits of the free space and reverse-map btrees of an AG of
 * sb->agblocks blocks (xfs_alloc_compute_maxlevels,
 * xfs_rmapbt_compute_maxlevels; 0 for the rmapbt of an fs without). */
unsigned od_alloc_maxlevels(const struct od_geo *g);
unsigned od_rmap_maxlevels(const struct od_geo *g);

/* Blocks mkfs puts on each AG's free list: two per free space btree
 * and one more for the rmapbt, fewer where a tree can never grow past
 * one level. */
uint32_t od_min_freelist(const struct od_geo *g);

/* The root directory's inode number mkfs chose (its first chunk in AG
 * 0), for a stripe unit of sunit blocks (sb->unit at mkfs time). */
uint64_t od_mkfs_rootino(const struct od_sb *sb, const struct od_geo *g,
			 uint32_t sunit);

#endif
