/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Version 2/3 directories (xfs_da_format.h).  A directory's data fork is
 * shortform (entries inside the inode) or a logical space of directory
 * blocks: data blocks from offset 0, the hash index (leaf/node blocks)
 * from 32 GiB, the free-space index from 64 GiB.  A single "block"
 * directory holds data, hash index and a tail in one block.
 */
#ifndef OD_DIR2_H
#define OD_DIR2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/be.h"
#include "ondisk/da.h"
#include "ondisk/err.h"
#include "ondisk/geo.h"

#define OD_DIR2_BLOCK_MAGIC	0x58443242u	/* "XD2B" */
#define OD_DIR3_BLOCK_MAGIC	0x58444233u	/* "XDB3" */
#define OD_DIR2_DATA_MAGIC	0x58443244u	/* "XD2D" */
#define OD_DIR3_DATA_MAGIC	0x58444433u	/* "XDD3" */
#define OD_DIR2_FREE_MAGIC	0x58443246u	/* "XD2F" */
#define OD_DIR3_FREE_MAGIC	0x58444633u	/* "XDF3" */

#define OD_DIR2_LEAF_OFFSET	(32ull << 30)	/* bytes */
#define OD_DIR2_FREE_OFFSET	(64ull << 30)
#define OD_DIR2_DATA_ALIGN	8
#define OD_DIR2_DATA_FREE_TAG	0xffff
#define OD_DIR2_NULL_DATAPTR	0u
#define OD_DIR3_DATA_CRC_OFF	4

/* File types in directory entries (xfs_da_format.h: XFS_DIR3_FT_*). */
enum {
	OD_FT_UNKNOWN, OD_FT_REG_FILE, OD_FT_DIR, OD_FT_CHRDEV, OD_FT_BLKDEV,
	OD_FT_FIFO, OD_FT_SOCK, OD_FT_SYMLINK, OD_FT_WHT, OD_FT_MAX
};

/* One directory entry, pointing into the buffer it was decoded from. */
struct od_dirent {
	uint64_t ino;
	const uint8_t *name;
	uint8_t namelen;
	uint8_t ftype;		/* OD_FT_UNKNOWN without the ftype feature */
	uint32_t offset;	/* sf: stored offset; data: byte offset in block */
};

/* ---- shortform (inside the inode fork) ---- */
struct od_dir2_sf {
	uint8_t count;
	uint8_t i8count;	/* nonzero: inode numbers are 8 bytes */
	uint64_t parent;
	uint32_t hdr_len;
};

enum od_err od_dir2_sf_hdr(const uint8_t *fork, size_t size,
			   struct od_dir2_sf *hdr, const char **field);
/*
 * Decode the entry at *pos (start with hdr->hdr_len) and advance *pos.
 * Checks the entry lies inside size bytes and its name is not empty.
 */
enum od_err od_dir2_sf_entry(const uint8_t *fork, size_t size,
			     const struct od_dir2_sf *hdr, bool ftype,
			     uint32_t *pos, struct od_dirent *de,
			     const char **field);

/* ---- data and block-format blocks ---- */
struct od_dir2_data_hdr {
	uint32_t magic;
	bool block;		/* single-block directory (XD2B/XDB3) */
	uint32_t hdr_len;	/* entries start here */
	uint32_t end;		/* entries end here (block: before leaf area) */
	uint64_t blkno, owner;	/* v5 */
	uint64_t lsn;		/* v5 */
	/* the three largest free regions (offset, length), largest first */
	uint16_t best_off[3], best_len[3];
	uint32_t leaf_count, leaf_stale;	/* block format only */
};

/*
 * Decode a data or block-format directory block of len (directory block
 * size) bytes: magic, CRC and uuid (v5), and for block format the tail
 * and leaf area bounds.
 */
enum od_err od_dir2_data_hdr(const uint8_t *buf, size_t len,
			     const struct od_geo *g,
			     struct od_dir2_data_hdr *hdr, const char **field);
/*
 * Decode the entry or unused region at *pos and advance *pos.  Sets
 * *unused for free space.  Checks lengths, alignment and the tag.
 */
enum od_err od_dir2_data_entry(const uint8_t *buf,
			       const struct od_dir2_data_hdr *hdr, bool ftype,
			       uint32_t *pos, struct od_dirent *de,
			       bool *unused, const char **field);
/* Bytes an entry with this name length occupies (8-byte aligned). */
static inline uint32_t od_dir2_data_entsize(bool ftype, uint32_t namelen)
{
	uint32_t len = 8 + 1 + namelen + (ftype ? 1 : 0) + 2;

	return (len + OD_DIR2_DATA_ALIGN - 1) &
	       ~(uint32_t)(OD_DIR2_DATA_ALIGN - 1);
}

/*
 * The entry at byte pos of a data block whose entries end at end, read
 * inline for the scans that list every entry of every directory: its
 * size, with *de, when it is in use and od_dir2_data_entry would accept
 * it as it stands; 0 for free space and anything doubtful, which
 * od_dir2_data_entry then decodes.
 */
static inline uint32_t od_dir2_data_entry_quick(const uint8_t *buf,
						uint32_t pos, uint32_t end,
						bool ftype,
						struct od_dirent *de)
{
	const uint8_t *b = buf + pos;
	uint32_t nl, size;

	if (pos + 11 > end || pos % OD_DIR2_DATA_ALIGN ||
	    od_get_be16(b) == OD_DIR2_DATA_FREE_TAG)
		return 0;
	nl = b[8];
	size = od_dir2_data_entsize(ftype, nl);
	if (!nl || size > end - pos || od_get_be16(b + size - 2) != pos)
		return 0;
	de->ino = od_get_be64(b);
	de->name = b + 9;
	de->namelen = (uint8_t)nl;
	de->ftype = ftype ? b[9 + nl] : OD_FT_UNKNOWN;
	de->offset = pos;
	return size;
}

/* ---- leaf blocks (hash index) ---- */
struct od_dir2_leaf_hdr {
	struct od_da_blkinfo info;
	uint16_t count, stale;
	uint32_t hdr_len;
	bool leaf1;		/* LEAF1 (single leaf) vs LEAFN */
};

enum od_err od_dir2_leaf_hdr(const uint8_t *buf, size_t len,
			     const struct od_geo *g,
			     struct od_dir2_leaf_hdr *hdr, const char **field);

/* Hash/address pair i in a leaf area starting at ents (xfs_dir2_leaf_entry). */
struct od_dir2_leaf_ent {
	uint32_t hashval;
	uint32_t address;	/* data block address, 8-byte units */
};

void od_dir2_leaf_ent(const uint8_t *ents, uint32_t i,
		      struct od_dir2_leaf_ent *le);

/* The same, decoded: hash value and address (8-byte units, 0: stale). */
void od_dir2_leaf_entry(const uint8_t *ents, uint32_t i, uint32_t *hash,
			uint32_t *addr);

/*
 * A leaf1 block's tail: the bests table (the largest free region of each
 * data block, 0xffff for a hole) and its length.  The table ends 4
 * bytes before the block's end; od_dir2_leaf_hdr checked it fits.
 */
uint32_t od_dir2_leaf1_bestcount(const uint8_t *buf, size_t len);
uint16_t od_dir2_leaf1_best(const uint8_t *buf, size_t len, uint32_t i);
/* Where the leaf1 bests table starts (entries must end before it). */
size_t od_dir2_leaf1_bests_off(const uint8_t *buf, size_t len);

#define OD_DIR2_NULL_DATAOFF	0xffffu	/* a bests slot for a hole */

#endif
