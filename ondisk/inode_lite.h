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
 * Fields of an inode core (xfs_dinode) read straight from its bytes, for
 * the fast paths that look at every inode without decoding it (the
 * scan, the checker's quick look).  The caller knows raw holds the
 * whole core: OD_DINODE_V3_CORE bytes (v3 fields) or OD_DINODE_V2_CORE.
 */
static inline uint16_t od_dinode_magic(const uint8_t *raw)
{
	return od_get_be16(raw);
}

static inline uint16_t od_dinode_mode(const uint8_t *raw)
{
	return od_get_be16(raw + 2);
}

static inline uint8_t od_dinode_version(const uint8_t *raw)
{
	return raw[4];
}

static inline uint8_t od_dinode_format(const uint8_t *raw)
{
	return raw[5];
}

/* v1's link count, zero in v2 and v3 inodes */
static inline uint16_t od_dinode_onlink(const uint8_t *raw)
{
	return od_get_be16(raw + 6);
}

/* v2 and v3 */
static inline uint32_t od_dinode_nlink(const uint8_t *raw)
{
	return od_get_be32(raw + 16);
}

static inline uint16_t od_dinode_projid_hi(const uint8_t *raw)
{
	return od_get_be16(raw + 22);
}

/* The nanoseconds of timestamp t (OD_ATIME ... OD_CRTIME, v3) when the
 * inode does not use big timestamps. */
static inline uint32_t od_dinode_nsec(const uint8_t *raw, unsigned t)
{
	static const uint8_t at[4] = { 36, 44, 52, 148 };

	return od_get_be32(raw + at[t & 3]);
}

static inline uint64_t od_dinode_size(const uint8_t *raw)
{
	return od_get_be64(raw + 56);
}

static inline uint64_t od_dinode_nblocks(const uint8_t *raw)
{
	return od_get_be64(raw + 64);
}

static inline uint32_t od_dinode_extsize(const uint8_t *raw)
{
	return od_get_be32(raw + 72);
}

/* The extent counters, where nrext64 (OD_DIFLAG2_NREXT64) puts them. */
static inline uint64_t od_dinode_nextents(const uint8_t *raw, bool nrext64)
{
	return nrext64 ? od_get_be64(raw + 24) : od_get_be32(raw + 76);
}

static inline uint32_t od_dinode_anextents(const uint8_t *raw, bool nrext64)
{
	return nrext64 ? od_get_be32(raw + 76) : od_get_be16(raw + 80);
}

/* The counter bytes the other layout uses, which must be zero: the
 * 16-bit pad after the big counters, or the v3 pad where they go. */
static inline bool od_dinode_counter_pad_zero(const uint8_t *raw,
					      bool nrext64)
{
	return nrext64 ? od_get_be16(raw + 80) == 0 :
			 od_get_be64(raw + 24) == 0;
}

static inline uint8_t od_dinode_forkoff(const uint8_t *raw)
{
	return raw[82];
}

static inline uint8_t od_dinode_aformat(const uint8_t *raw)
{
	return raw[83];
}

static inline uint16_t od_dinode_flags(const uint8_t *raw)
{
	return od_get_be16(raw + 90);
}

static inline uint32_t od_dinode_next_unlinked(const uint8_t *raw)
{
	return od_get_be32(raw + 96);
}

/* v3 */
static inline uint64_t od_dinode_flags2(const uint8_t *raw)
{
	return od_get_be64(raw + 120);
}

static inline uint32_t od_dinode_cowextsize(const uint8_t *raw)
{
	return od_get_be32(raw + 128);
}

static inline uint64_t od_dinode_ino(const uint8_t *raw)
{
	return od_get_be64(raw + 152);
}

static inline const uint8_t *od_dinode_uuid(const uint8_t *raw)
{
	return raw + 160;
}

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
	if (!g->v5 || od_dinode_magic(buf) != OD_DINODE_MAGIC ||
	    od_dinode_version(buf) != 3 ||
	    memcmp(od_dinode_uuid(buf), g->uuid, 16) != 0 ||
	    od_dinode_ino(buf) != ino)
		return false;
	flags2 = od_dinode_flags2(buf);
	if (((flags2 & OD_DIFLAG2_NREXT64) && !g->nrext64) ||
	    ((flags2 & OD_DIFLAG2_BIGTIME) && !g->bigtime) ||
	    (flags2 & OD_DIFLAG2_METADATA))
		return false;
	l->flags2 = flags2;
	l->size = od_dinode_size(buf);
	if ((int64_t)l->size < 0)
		return false;
	l->mode = od_dinode_mode(buf);
	l->format = od_dinode_format(buf);
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
	l->flags = od_dinode_flags(buf);
	if (l->flags & OD_DIFLAG_REALTIME)
		return false;
	l->nextents = od_dinode_nextents(buf, flags2 & OD_DIFLAG2_NREXT64);
	anext = od_dinode_anextents(buf, flags2 & OD_DIFLAG2_NREXT64);
	l->forkoff = od_dinode_forkoff(buf);
	l->aformat = od_dinode_aformat(buf);
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
	nblocks = od_dinode_nblocks(buf);
	if (nblocks > g->dblocks)
		return false;
	l->nlink = od_dinode_nlink(buf);
	l->extsize = od_dinode_extsize(buf);
	l->dfork_off = OD_DINODE_V3_CORE;
	return true;
}

#endif
