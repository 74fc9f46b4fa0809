/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scan's fast read of a common inode straight from its bytes, inline
 * (ondisk/inode.h has the full decode): the scan reads every inode, most
 * of them plain files, and the full decode into a struct od_inode was
 * near a quarter of the scan's instructions.
 */
#ifndef OD_INODE_LITE_H
#define OD_INODE_LITE_H

#include <string.h>

#include "ondisk/be.h"
#include "ondisk/inode.h"

/*
 * What the scan keeps of a common inode, read straight from its bytes
 * (od_inode_scan_lite): the fields of struct od_inode of the same names.
 */
struct od_inode_lite {
	uint64_t size;
	uint64_t nextents;	/* data fork records */
	uint64_t flags2;
	uint32_t nlink;
	uint32_t extsize;
	uint16_t mode;
	uint16_t flags;
	uint8_t format, aformat, forkoff;
	uint32_t dfork_off;	/* OD_DINODE_V3_CORE */
};

/*
 * The scan's fast path, for a v5 inode of len bytes whose CRC was
 * verified already: true when od_inode_decode_crc_ok would accept it, it
 * is in use and it is a common one: a regular file with an extents data
 * fork or a local or extents symlink, not realtime, whose attribute fork
 * is absent, local or extents without records.  The fields then equal
 * that decode's.  False: decode it with od_inode_decode_crc_ok, which
 * gives the verdict.  These are inode_decode's checks in a form that only
 * says yes.
 */
static inline bool od_inode_scan_lite(const uint8_t *buf, size_t len,
				      const struct od_geo *g, uint64_t ino,
				      struct od_inode_lite *l)
{
	uint32_t lit = g->inodesize - OD_DINODE_V3_CORE, dlen = lit;
	uint64_t flags2, nblocks;
	uint32_t anext;

	if (len < g->inodesize || len < OD_DINODE_V3_CORE)
		return false;
	if (!g->v5 || od_get_be16(buf) != OD_DINODE_MAGIC || buf[4] != 3 ||
	    memcmp(buf + 160, g->uuid, 16) != 0 ||
	    od_get_be64(buf + 152) != ino)
		return false;
	flags2 = od_get_be64(buf + 120);
	if (((flags2 & OD_DIFLAG2_NREXT64) && !g->nrext64) ||
	    ((flags2 & OD_DIFLAG2_BIGTIME) && !g->bigtime) ||
	    (flags2 & OD_DIFLAG2_METADATA))
		return false;
	l->flags2 = flags2;
	l->size = od_get_be64(buf + 56);
	if ((int64_t)l->size < 0)
		return false;
	l->mode = od_get_be16(buf + 2);
	l->format = buf[5];
	switch (l->mode & 0170000) {
	case 0100000:
		if (l->format != OD_FMT_EXTENTS)
			return false;
		break;
	case 0120000:
		if (l->format != OD_FMT_EXTENTS && l->format != OD_FMT_LOCAL)
			return false;
		break;
	default:
		return false;	/* free, directory, device, bad: decode */
	}
	l->flags = od_get_be16(buf + 90);
	if (l->flags & OD_DIFLAG_REALTIME)
		return false;
	if (flags2 & OD_DIFLAG2_NREXT64) {
		l->nextents = od_get_be64(buf + 24);
		anext = od_get_be32(buf + 76);
	} else {
		l->nextents = od_get_be32(buf + 76);
		anext = od_get_be16(buf + 80);
	}
	l->forkoff = buf[82];
	l->aformat = buf[83];
	if (l->forkoff) {
		if ((uint32_t)l->forkoff * 8 >= lit)
			return false;
		dlen = (uint32_t)l->forkoff * 8;
		/* an attr fork with extents (or a btree) takes the full path */
		if (l->aformat != OD_FMT_LOCAL &&
		    (l->aformat != OD_FMT_EXTENTS || anext != 0))
			return false;
	} else if (anext != 0) {
		return false;
	}
	if (l->format == OD_FMT_EXTENTS ? l->nextents > dlen / 16 :
					  l->size > dlen)
		return false;
	nblocks = od_get_be64(buf + 64);
	if (nblocks > g->dblocks)
		return false;
	l->nlink = od_get_be32(buf + 16);
	l->extsize = od_get_be32(buf + 72);
	l->dfork_off = OD_DINODE_V3_CORE;
	return true;
}

#endif
