/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The on-disk inode (xfs_format.h: struct xfs_dinode), versions 1-3, and
 * the placement of its data and attribute forks in the literal area.
 */
#ifndef OD_INODE_H
#define OD_INODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"
#include "ondisk/geo.h"

#define OD_DINODE_MAGIC		0x494e	/* "IN" */
#define OD_DINODE_CRC_OFF	100

enum od_fork_fmt {
	OD_FMT_DEV = 0, OD_FMT_LOCAL = 1, OD_FMT_EXTENTS = 2, OD_FMT_BTREE = 3,
	OD_FMT_UUID = 4, OD_FMT_META_BTREE = 5,
};

/* di_flags */
#define OD_DIFLAG_REALTIME	(1u << 0)
#define OD_DIFLAG_PREALLOC	(1u << 1)
#define OD_DIFLAG_APPEND	(1u << 4)
#define OD_DIFLAG_EXTSIZE	(1u << 11)
#define OD_DIFLAG_EXTSZINHERIT	(1u << 12)
/* di_flags2 */
#define OD_DIFLAG2_REFLINK	(1ull << 1)
#define OD_DIFLAG2_COWEXTSIZE	(1ull << 2)
#define OD_DIFLAG2_BIGTIME	(1ull << 3)
#define OD_DIFLAG2_NREXT64	(1ull << 4)
#define OD_DIFLAG2_METADATA	(1ull << 5)	/* in the metadata directory */

/* di_metatype (xfs_format.h: enum xfs_metafile_type) */
enum od_metafile {
	OD_META_UNKNOWN, OD_META_DIR, OD_META_USRQUOTA, OD_META_GRPQUOTA,
	OD_META_PRJQUOTA, OD_META_RTBITMAP, OD_META_RTSUMMARY,
	OD_META_RTRMAP, OD_META_RTREFCOUNT, OD_META_MAX
};

/* A decoded timestamp: seconds since the Unix epoch, nanoseconds. */
struct od_time {
	int64_t sec;
	uint32_t nsec;
};

struct od_inode {
	uint64_t ino;		/* the number we read it as */
	uint16_t magic;
	uint16_t mode;
	uint8_t version;
	uint8_t format;		/* data fork format */
	uint8_t aformat;
	uint8_t forkoff;	/* attr fork offset, 8-byte units; 0 = none */
	uint32_t uid, gid, nlink, projid;
	/* raw timestamps (atime, mtime, ctime, crtime): od_inode_time() */
	uint64_t time_raw[4];
	uint64_t size;
	uint64_t nblocks;
	uint32_t extsize, cowextsize;
	uint64_t nextents;	/* data fork records */
	uint32_t anextents;	/* attr fork records */
	uint16_t flags;
	uint64_t flags2;
	uint32_t gen;
	uint32_t next_unlinked;
	uint64_t changecount;
	uint64_t lsn;
	uint64_t di_ino;	/* v3: stored inode number */
	/* fields no reader needs, all of which have fixed values (the
	 * checker's concern): */
	uint16_t onlink;	/* di_onlink: v1 link count, else 0 */
	uint32_t v1_nlink;	/* v1: di_nlink, which must be 0 */
	uint16_t projid_hi;
	uint16_t flushiter;	/* v2 */
	uint64_t v3_pad;	/* v3 without nrext64: zero */
	uint16_t nrext64_pad;	/* nrext64: zero */
	uint32_t dmevmask;
	uint16_t dmstate;
	bool v2_pad_zero;	/* v1/v2 di_v2_pad[6] */
	bool pad2_zero;		/* v3 di_pad2[12] */
	bool uuid_ok;		/* v3 di_uuid is the filesystem's */
	/* where the forks live inside the inode buffer */
	uint32_t lit;		/* literal area: both forks */
	uint32_t dfork_off, dfork_len;
	uint32_t afork_off, afork_len;	/* len 0: no attr fork */
};

/*
 * Decode one inode of g->inodesize bytes read as number ino.  Verifies
 * magic, version for the fs, CRC/uuid/di_ino (v3), the fork formats
 * against the file type, and that forkoff and extent counts fit.
 */
enum od_err od_inode_decode(const uint8_t *buf, size_t len,
			    const struct od_geo *g, uint64_t ino,
			    struct od_inode *ip, const char **field);
/*
 * Decode every field of the g->inodesize bytes at buf, validating
 * nothing (not even the magic): for the checker, which judges each field
 * itself.  The fork offsets are set as if forkoff were valid (the data
 * fork takes the whole literal area when it is not).
 */
void od_inode_core(const uint8_t *buf, const struct od_geo *g, uint64_t ino,
		   struct od_inode *ip);
/*
 * od_inode_decode, for the scan, which found the CRC good already
 * (od_cksum3): what it does not use (owners, project, times, generation,
 * unlinked pointer, change count, LSN, cowextsize, padding) is left zero.
 */
enum od_err od_inode_decode_crc_ok(const uint8_t *buf, size_t len,
				   const struct od_geo *g, uint64_t ino,
				   struct od_inode *ip, const char **field);

enum { OD_ATIME, OD_MTIME, OD_CTIME, OD_CRTIME };
/* Decode timestamp which (legacy seconds/nanoseconds, or bigtime). */
struct od_time od_inode_time(const struct od_inode *ip, int which);

/*
 * A metadata file (metadir): a v3 inode with the METADATA flag, whose
 * di_metatype (enum od_metafile) is the field that was di_onlink.
 */
static inline bool od_inode_is_meta(const struct od_inode *ip)
{
	return ip->version == 3 && (ip->flags2 & OD_DIFLAG2_METADATA);
}

static inline uint16_t od_inode_metatype(const struct od_inode *ip)
{
	return ip->onlink;
}

/* "dir", "usrquota", ... as xfs_db names them; NULL when out of range. */
const char *od_metafile_name(unsigned type);

/* Quick test of the magic, for scanning free slots. */
bool od_inode_has_magic(const uint8_t *buf, size_t len);

static inline bool od_mode_isreg(uint16_t m) { return (m & 0170000) == 0100000; }
static inline bool od_mode_isdir(uint16_t m) { return (m & 0170000) == 0040000; }
static inline bool od_mode_islnk(uint16_t m) { return (m & 0170000) == 0120000; }

/*
 * Two counters straight from an inode buffer the caller verified
 * already (the scan's fast path): di_nlink (di_onlink on v1) and
 * di_nblocks.
 */
uint32_t od_inode_nlink_raw(const uint8_t *buf);
uint64_t od_inode_nblocks_raw(const uint8_t *buf);

/*
 * Rewrite counters in the inode buffer ip was decoded from (the caller
 * then updates the CRC): di_nblocks, and the extent records of fork 0
 * (data) or 1 (attr): di_nextents/di_anextents, or with NREXT64 the
 * 64-bit di_big_nextents and 32-bit di_big_anextents.
 */
void od_inode_set_nblocks(uint8_t *buf, uint64_t nblocks);
void od_inode_set_nextents(uint8_t *buf, const struct od_inode *ip,
			   int whichfork, uint64_t n);

/* Data fork for fork 0, attr fork for fork 1 (pointer and length). */
const uint8_t *od_inode_fork(const struct od_inode *ip, const uint8_t *buf,
			     int whichfork, uint32_t *len);

#endif
