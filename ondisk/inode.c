/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/inode.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <string.h>

/* xfs_format.h: bigtime counts nanoseconds from the old epoch, -2^31 s. */
#define BIGTIME_EPOCH_OFFSET	2147483648ll

static struct od_time decode_time(uint64_t raw, bool bigtime)
{
	struct od_time t;

	if (bigtime) {
		uint64_t ns = raw;

		t.sec = (int64_t)(ns / 1000000000ull) - BIGTIME_EPOCH_OFFSET;
		t.nsec = (uint32_t)(ns % 1000000000ull);
	} else {
		t.sec = (int32_t)(raw >> 32);
		t.nsec = (uint32_t)raw;
	}
	return t;
}

struct od_time od_inode_time(const struct od_inode *ip, int which)
{
	return decode_time(ip->time_raw[which],
			   (ip->flags2 & OD_DIFLAG2_BIGTIME) != 0);
}

const char *od_metafile_name(unsigned type)
{
	static const char *const n[OD_META_MAX] = {
		"unknown", "dir", "usrquota", "grpquota", "prjquota",
		"rtbitmap", "rtsummary", "rtrmap", "rtrefcount",
	};

	return type < OD_META_MAX ? n[type] : NULL;
}

bool od_inode_has_magic(const uint8_t *buf, size_t len)
{
	return len >= 2 && od_get_be16(buf) == OD_DINODE_MAGIC;
}

static bool fork_fmt_ok(uint16_t mode, uint8_t fmt, uint64_t flags2)
{
	switch (mode & 0170000) {
	case 0020000: case 0060000: case 0010000: case 0140000:
		return fmt == OD_FMT_DEV;
	case 0100000:
		/* a realtime group's rmap or refcount btree (metadir) */
		if (fmt == OD_FMT_META_BTREE)
			return (flags2 & OD_DIFLAG2_METADATA) != 0;
		return fmt == OD_FMT_EXTENTS || fmt == OD_FMT_BTREE;
	case 0040000:
	case 0120000:
		/* a remote symlink or a non-inline directory is never local */
		return fmt == OD_FMT_LOCAL || fmt == OD_FMT_EXTENTS ||
		       fmt == OD_FMT_BTREE;
	case 0:
		return true;	/* free inode: nothing to check */
	}
	return false;
}

static bool is_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/*
 * lean: for the scan, which never uses the owners, project, times,
 * generation, unlinked pointer, change count, LSN, cowextsize, DMAPI
 * fields and padding; they are left zero (a tenth of its decode time).
 */
static void core_decode(const uint8_t *buf, const struct od_geo *g,
			uint64_t ino, struct od_inode *ip, bool lean)
{
	memset(ip, 0, sizeof(*ip));
	ip->ino = ino;
	ip->magic = od_get_be16(buf);
	ip->mode = od_get_be16(buf + 2);
	ip->version = buf[4];
	ip->format = buf[5];
	ip->onlink = od_get_be16(buf + 6);
	if (ip->version == 1) {
		ip->nlink = ip->onlink;
		ip->v1_nlink = od_get_be32(buf + 16);
	} else {
		ip->nlink = od_get_be32(buf + 16);
	}
	ip->flags2 = ip->version == 3 ? od_get_be64(buf + 120) : 0;
	if (!lean) {
		ip->uid = od_get_be32(buf + 8);
		ip->gid = od_get_be32(buf + 12);
		if (ip->version != 1)
			ip->projid = (uint32_t)od_get_be16(buf + 22) << 16 |
				     od_get_be16(buf + 20);
		ip->projid_hi = od_get_be16(buf + 22);
		ip->time_raw[OD_ATIME] = od_get_be64(buf + 32);
		ip->time_raw[OD_MTIME] = od_get_be64(buf + 40);
		ip->time_raw[OD_CTIME] = od_get_be64(buf + 48);
	}
	ip->size = od_get_be64(buf + 56);
	ip->nblocks = od_get_be64(buf + 64);
	ip->extsize = od_get_be32(buf + 72);
	if (ip->flags2 & OD_DIFLAG2_NREXT64) {
		ip->nextents = od_get_be64(buf + 24);
		ip->anextents = od_get_be32(buf + 76);
		ip->nrext64_pad = od_get_be16(buf + 80);
	} else {
		ip->nextents = od_get_be32(buf + 76);
		ip->anextents = od_get_be16(buf + 80);
		/* v3: di_v3_pad; v2: di_v2_pad[6] and di_flushiter */
		ip->v3_pad = od_get_be64(buf + 24);
	}
	ip->forkoff = buf[82];
	ip->aformat = buf[83];
	ip->flags = od_get_be16(buf + 90);
	if (ip->version == 3) {
		ip->di_ino = od_get_be64(buf + 152);
		ip->uuid_ok = memcmp(buf + 160, g->uuid, 16) == 0;
	} else {
		ip->uuid_ok = true;
	}
	if (!lean) {
		ip->flushiter = od_get_be16(buf + 30);
		ip->dmevmask = od_get_be32(buf + 84);
		ip->dmstate = od_get_be16(buf + 88);
		ip->gen = od_get_be32(buf + 92);
		ip->next_unlinked = od_get_be32(buf + 96);
		ip->pad2_zero = true;
		if (ip->version == 3) {
			ip->changecount = od_get_be64(buf + 104);
			ip->lsn = od_get_be64(buf + 112);
			ip->cowextsize = od_get_be32(buf + 128);
			ip->pad2_zero = is_zero(buf + 132, 12);
			ip->time_raw[OD_CRTIME] = od_get_be64(buf + 144);
		}
		ip->v2_pad_zero = ip->version == 3 || is_zero(buf + 24, 6);
	}
	/* where the forks would be: the checker looks even when invalid */
	ip->dfork_off = ip->version == 3 ? OD_DINODE_V3_CORE :
					   OD_DINODE_V2_CORE;
	ip->lit = g->inodesize - ip->dfork_off;
	if (ip->forkoff && (uint32_t)ip->forkoff * 8 < ip->lit) {
		ip->dfork_len = (uint32_t)ip->forkoff * 8;
		ip->afork_off = ip->dfork_off + ip->dfork_len;
		ip->afork_len = ip->lit - ip->dfork_len;
	} else {
		ip->dfork_len = ip->lit;
	}
}

void od_inode_core(const uint8_t *buf, const struct od_geo *g, uint64_t ino,
		   struct od_inode *ip)
{
	core_decode(buf, g, ino, ip, false);
}

static enum od_err inode_decode(const uint8_t *buf, size_t len,
				const struct od_geo *g, uint64_t ino,
				struct od_inode *ip, const char **field,
				bool crc_checked);

enum od_err od_inode_decode(const uint8_t *buf, size_t len,
			    const struct od_geo *g, uint64_t ino,
			    struct od_inode *ip, const char **field)
{
	return inode_decode(buf, len, g, ino, ip, field, false);
}

enum od_err od_inode_decode_crc_ok(const uint8_t *buf, size_t len,
				   const struct od_geo *g, uint64_t ino,
				   struct od_inode *ip, const char **field)
{
	return inode_decode(buf, len, g, ino, ip, field, true);
}

static enum od_err inode_decode(const uint8_t *buf, size_t len,
				const struct od_geo *g, uint64_t ino,
				struct od_inode *ip, const char **field,
				bool crc_checked)
{
	enum od_err oe = OD_OK;

	*field = "magic";
	if (len < g->inodesize) {
		memset(ip, 0, sizeof(*ip));
		ip->ino = ino;
		return OD_ESHORT;
	}
	/* one pass over *ip (core_decode clears it), whatever the verdict */
	core_decode(buf, g, ino, ip, crc_checked);
	if (ip->magic != OD_DINODE_MAGIC)
		return OD_EMAGIC;
	if (g->v5) {
		*field = "crc";
		if (buf[4] != 3)
			oe = od_bad_field(field, "version");
		else if (!crc_checked &&
			 !od_cksum_ok(buf, g->inodesize, OD_DINODE_CRC_OFF))
			oe = OD_ECRC;
	} else if (buf[4] != 1 && buf[4] != 2) {
		oe = od_bad_field(field, "version");
	}
	if (oe)
		return oe;
	if (g->v5 && !ip->uuid_ok)
		return od_bad_field(field, "uuid");
	if (g->v5 && ip->di_ino != ino)
		return od_bad_field(field, "ino");

	if ((ip->flags2 & OD_DIFLAG2_NREXT64) && !g->nrext64)
		return od_bad_field(field, "flags2");
	if ((ip->flags2 & OD_DIFLAG2_BIGTIME) && !g->bigtime)
		return od_bad_field(field, "flags2");
	if ((int64_t)ip->size < 0)
		return od_bad_field(field, "size");
	if (ip->mode == 0)
		return OD_OK;	/* a free slot in an allocated chunk */
	if (!fork_fmt_ok(ip->mode, ip->format, ip->flags2))
		return od_bad_field(field, "format");
	if (ip->forkoff) {
		if ((uint32_t)ip->forkoff * 8 >= ip->lit)
			return od_bad_field(field, "forkoff");
		if (ip->aformat != OD_FMT_LOCAL &&
		    ip->aformat != OD_FMT_EXTENTS &&
		    ip->aformat != OD_FMT_BTREE)
			return od_bad_field(field, "aformat");
	} else if (ip->anextents != 0) {
		/* without a fork, only "extents, 0 records" is valid */
		return od_bad_field(field, "anextents");
	}
	/* nextents is 64 bits with nrext64: divide, a product can wrap */
	if (ip->format == OD_FMT_EXTENTS &&
	    ip->nextents > ip->dfork_len / 16)
		return od_bad_field(field, "nextents");
	if (ip->format == OD_FMT_LOCAL && ip->size > ip->dfork_len)
		return od_bad_field(field, "size");
	if (ip->forkoff && ip->aformat == OD_FMT_EXTENTS &&
	    (uint64_t)ip->anextents * 16 > ip->afork_len)
		return od_bad_field(field, "anextents");
	if (ip->nblocks > g->dblocks)
		return od_bad_field(field, "nblocks");
	return OD_OK;
}

const uint8_t *od_inode_fork(const struct od_inode *ip, const uint8_t *buf,
			     int whichfork, uint32_t *len)
{
	if (whichfork == 0) {
		*len = ip->dfork_len;
		return buf + ip->dfork_off;
	}
	*len = ip->afork_len;
	return ip->afork_len ? buf + ip->afork_off : NULL;
}

uint32_t od_inode_nlink_raw(const uint8_t *buf)
{
	return buf[4] == 1 ? od_get_be16(buf + 6) : od_get_be32(buf + 16);
}

uint64_t od_inode_nblocks_raw(const uint8_t *buf)
{
	return od_get_be64(buf + 64);
}

void od_inode_set_nblocks(uint8_t *buf, uint64_t nblocks)
{
	od_put_be64(buf + 64, nblocks);
}

void od_inode_set_nextents(uint8_t *buf, const struct od_inode *ip,
			   int whichfork, uint64_t n)
{
	if (ip->flags2 & OD_DIFLAG2_NREXT64) {
		if (whichfork == 0)
			od_put_be64(buf + 24, n);
		else
			od_put_be32(buf + 76, (uint32_t)n);
	} else if (whichfork == 0) {
		od_put_be32(buf + 76, (uint32_t)n);
	} else {
		od_put_be16(buf + 80, (uint16_t)n);
	}
}
