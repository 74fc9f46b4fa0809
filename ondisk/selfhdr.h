/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Self-describing headers the read path does not otherwise decode:
 * directory free-index blocks (xfs_da_format.h: xfs_dir3_free_hdr, v4
 * xfs_dir2_free_hdr) and v5 remote attribute value blocks
 * (xfs_da_format.h: xfs_attr3_rmt_hdr, one at the start of every fs
 * block of a remote value).
 */
#ifndef OD_SELFHDR_H
#define OD_SELFHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"
#include "ondisk/geo.h"

#define OD_ATTR3_RMT_MAGIC	0x5841524du	/* "XARM" */
#define OD_ATTR3_RMT_HDR_LEN	56
#define OD_ATTR3_RMT_CRC_OFF	12
#define OD_DIR3_FREE_CRC_OFF	4

struct od_dir_free_hdr {
	uint32_t magic;
	uint32_t firstdb, nvalid, nused;
	uint64_t blkno, owner;		/* v5 */
	uint64_t lsn;			/* v5 */
	uint32_t hdr_len;		/* bests[] start here */
	uint32_t max_bests;		/* slots a block holds */
};

/* Slot i of a free-index block's bests (i < nvalid, checked at decode). */
uint16_t od_dir_free_best(const uint8_t *buf, const struct od_dir_free_hdr *h,
			  uint32_t i);

/*
 * Decode a free-index block of len (directory block size) bytes: magic
 * for the fs version; on v5 CRC over len bytes and uuid.
 */
enum od_err od_dir_free_hdr(const uint8_t *buf, size_t len,
			    const struct od_geo *g, struct od_dir_free_hdr *h,
			    const char **field);

struct od_attr_rmt_hdr {
	uint32_t offset, bytes;
	uint64_t owner, blkno;
	uint64_t lsn;
};

/* Does buf start with a remote attribute value block's magic? */
bool od_attr_rmt_has_magic(const uint8_t *buf, size_t len);

/*
 * Decode the v5 header of one remote attribute value block of len (fs
 * block size) bytes: magic, CRC over len bytes, uuid, bytes in range.
 */
enum od_err od_attr_rmt_hdr(const uint8_t *buf, size_t len,
			    const struct od_geo *g, struct od_attr_rmt_hdr *h,
			    const char **field);

/*
 * Where a v5 block of a directory, attribute or symlink fork keeps its
 * own disk address and its CRC: directory data and free blocks
 * (xfs_dir3_blk_hdr), dabtree nodes and leaves (xfs_da3_blkinfo), remote
 * attribute values (xfs_attr3_rmt_hdr), remote symlinks
 * (xfs_dsymlink_hdr).  Found by magic alone (no CRC check), so a mover
 * can restamp a block it copied.
 */
enum od_self_fork { OD_SELF_DIR, OD_SELF_ATTR, OD_SELF_SYMLINK };

struct od_selfaddr {
	size_t blkno_off;	/* the be64 disk address (daddr) */
	size_t crc_off;
};

/* false: none of that fork's v5 header magics (v4, or damaged). */
bool od_selfaddr_find(const uint8_t *b, size_t len, enum od_self_fork f,
		      struct od_selfaddr *a);
uint64_t od_selfaddr_get(const uint8_t *b, const struct od_selfaddr *a);
/* Store daddr and recompute the CRC over the len bytes of the unit. */
void od_selfaddr_set(uint8_t *b, size_t len, const struct od_selfaddr *a,
		     uint64_t daddr);

#endif
