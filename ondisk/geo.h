/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Geometry derived from a validated superblock, and the address
 * conversions XFS uses (xfs_format.h: XFS_FSB_TO_AGNO, XFS_INO_TO_AGINO...).
 * Block numbers come in three flavours:
 *   fsbno  - packed: agno << agblklog | agbno (what extent records hold)
 *   agbno  - block within an AG
 *   daddr  - linear 512-byte sector: (agno * agblocks + agbno) << bbshift
 */
#ifndef OD_GEO_H
#define OD_GEO_H

#include <stdbool.h>
#include <stdint.h>

#include "ondisk/sb.h"

#define OD_BBSHIFT		9
#define OD_INODES_PER_CHUNK	64
#define OD_DINODE_V2_CORE	100	/* through di_next_unlinked */
#define OD_DINODE_V3_CORE	176
#define OD_BTREE_MAXLEVELS_ANY	10	/* deeper than any real btree */

struct od_geo {
	bool v5;
	uint32_t blocksize;
	unsigned blocklog;
	unsigned bbshift;	/* blocklog - 9 */
	uint32_t sectsize;
	uint32_t agblocks;
	unsigned agblklog;
	uint32_t agcount;
	uint64_t dblocks;
	uint32_t inodesize;
	unsigned inodelog;
	uint32_t inopblock;
	unsigned inopblog;
	unsigned agino_log;	/* inopblog + agblklog */
	uint32_t ialloc_blks;	/* blocks in a full 64-inode chunk */
	uint32_t blocks_per_cluster;
	uint32_t inodes_per_cluster;
	uint32_t cluster_align;	/* chunk alignment, blocks */
	uint32_t dinode_core;	/* 100 or 176 */
	uint32_t dirblksize;	/* directory block, bytes */
	unsigned dirblklog;	/* log2(fs blocks per directory block) */
	uint32_t dirblkfsbs;
	uint32_t sunit, swidth;	/* blocks */
	bool ftype, sparse, finobt, rmapbt, reflink, nrext64, bigtime;
	bool inobtcnt, meta_uuid, crc;
	bool metadir, parent;
	uint8_t uuid[16];	/* what v5 metadata blocks carry (meta_uuid) */
};

void od_geo_init(struct od_geo *g, const struct od_sb *sb);

static inline uint32_t od_fsb_agno(const struct od_geo *g, uint64_t fsb)
{
	return (uint32_t)(fsb >> g->agblklog);
}

static inline uint32_t od_fsb_agbno(const struct od_geo *g, uint64_t fsb)
{
	return (uint32_t)(fsb & ((1ull << g->agblklog) - 1));
}

static inline uint64_t od_agb_fsb(const struct od_geo *g, uint32_t agno,
				  uint32_t agbno)
{
	return (uint64_t)agno << g->agblklog | agbno;
}

/* Linear block number: agno * agblocks + agbno. */
static inline uint64_t od_agb_lin(const struct od_geo *g, uint32_t agno,
				  uint32_t agbno)
{
	return (uint64_t)agno * g->agblocks + agbno;
}

static inline uint64_t od_fsb_lin(const struct od_geo *g, uint64_t fsb)
{
	return od_agb_lin(g, od_fsb_agno(g, fsb), od_fsb_agbno(g, fsb));
}

static inline uint64_t od_fsb_daddr(const struct od_geo *g, uint64_t fsb)
{
	return od_fsb_lin(g, fsb) << g->bbshift;
}

/* Blocks in AG agno (the last AG may be short). */
static inline uint32_t od_ag_blocks(const struct od_geo *g, uint32_t agno)
{
	if (agno + 1 < g->agcount)
		return g->agblocks;
	return (uint32_t)(g->dblocks - (uint64_t)agno * g->agblocks);
}

/* Is the packed fsbno inside the data device, len blocks long? */
bool od_fsb_valid(const struct od_geo *g, uint64_t fsb, uint64_t len);
/* Is [agbno, agbno+len) inside AG agno? */
bool od_agb_valid(const struct od_geo *g, uint32_t agno, uint32_t agbno,
		  uint64_t len);

static inline uint32_t od_ino_agno(const struct od_geo *g, uint64_t ino)
{
	return (uint32_t)(ino >> g->agino_log);
}

static inline uint32_t od_ino_agino(const struct od_geo *g, uint64_t ino)
{
	return (uint32_t)(ino & ((1ull << g->agino_log) - 1));
}

static inline uint32_t od_agino_agbno(const struct od_geo *g, uint32_t agino)
{
	return agino >> g->inopblog;
}

static inline uint32_t od_agino_offset(const struct od_geo *g, uint32_t agino)
{
	return agino & (g->inopblock - 1);
}

static inline uint64_t od_agino_ino(const struct od_geo *g, uint32_t agno,
				    uint32_t agino)
{
	return (uint64_t)agno << g->agino_log | agino;
}

/* Does ino name a slot inside the data device?  (Inline: the scan asks
 * for every directory entry.) */
static inline bool od_ino_valid(const struct od_geo *g, uint64_t ino)
{
	if (ino >> g->agino_log >= g->agcount)
		return false;
	return od_agino_agbno(g, od_ino_agino(g, ino)) <
	       od_ag_blocks(g, od_ino_agno(g, ino));
}

#endif
