/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/geo.h"

#include <string.h>

/* xfs_ialloc.c: xfs_ialloc_setup_geometry */
#define INODE_BIG_CLUSTER_SIZE	8192u
#define DINODE_MIN_SIZE		256u

void od_geo_init(struct od_geo *g, const struct od_sb *sb)
{
	uint32_t cluster_raw, chunk_inodes;

	g->v5 = od_sb_is_v5(sb);
	g->crc = g->v5;
	g->blocksize = sb->blocksize;
	g->blocklog = sb->blocklog;
	g->bbshift = sb->blocklog - OD_BBSHIFT;
	g->sectsize = sb->sectsize;
	g->agblocks = sb->agblocks;
	g->agblklog = sb->agblklog;
	g->agcount = sb->agcount;
	g->dblocks = sb->dblocks;
	g->inodesize = sb->inodesize;
	g->inodelog = sb->inodelog;
	g->inopblock = sb->inopblock;
	g->inopblog = sb->inopblog;
	g->agino_log = sb->inopblog + sb->agblklog;

	chunk_inodes = OD_INODES_PER_CHUNK > sb->inopblock ?
		       OD_INODES_PER_CHUNK : sb->inopblock;
	g->ialloc_blks = chunk_inodes >> sb->inopblog;

	cluster_raw = INODE_BIG_CLUSTER_SIZE;
	if (g->v5) {
		uint32_t new_size = cluster_raw * (sb->inodesize / DINODE_MIN_SIZE);

		if (sb->inoalignmt >= (new_size >> sb->blocklog))
			cluster_raw = new_size;
	}
	if (cluster_raw > sb->blocksize)
		g->blocks_per_cluster = cluster_raw >> sb->blocklog;
	else
		g->blocks_per_cluster = 1;
	g->inodes_per_cluster = g->blocks_per_cluster << sb->inopblog;
	if ((sb->versionnum & OD_SB_VERSION_ALIGN || g->v5) &&
	    sb->inoalignmt >= g->blocks_per_cluster)
		g->cluster_align = sb->inoalignmt;
	else
		g->cluster_align = 1;

	g->dinode_core = g->v5 ? OD_DINODE_V3_CORE : OD_DINODE_V2_CORE;
	g->dirblklog = sb->dirblklog;
	g->dirblkfsbs = 1u << sb->dirblklog;
	g->dirblksize = sb->blocksize << sb->dirblklog;
	g->sunit = sb->unit;
	g->swidth = sb->width;

	g->ftype = od_sb_has_ftype(sb);
	g->sparse = od_sb_has_sparse(sb);
	g->finobt = od_sb_has_finobt(sb);
	g->rmapbt = od_sb_has_rmapbt(sb);
	g->reflink = od_sb_has_reflink(sb);
	g->nrext64 = od_sb_has_nrext64(sb);
	g->bigtime = od_sb_has_bigtime(sb);
	g->metadir = od_sb_has_metadir(sb);
	g->parent = od_sb_has_parent(sb);
	g->inobtcnt = od_sb_has_inobtcnt(sb);
	g->meta_uuid = od_sb_has_meta_uuid(sb);
	memcpy(g->uuid, g->meta_uuid ? sb->meta_uuid : sb->uuid, 16);
}

bool od_agb_valid(const struct od_geo *g, uint32_t agno, uint32_t agbno,
		  uint64_t len)
{
	if (agno >= g->agcount)
		return false;
	return (uint64_t)agbno + len <= od_ag_blocks(g, agno);
}

bool od_fsb_valid(const struct od_geo *g, uint64_t fsb, uint64_t len)
{
	if (fsb >> g->agblklog >= g->agcount)
		return false;
	return od_agb_valid(g, od_fsb_agno(g, fsb), od_fsb_agbno(g, fsb), len);
}
