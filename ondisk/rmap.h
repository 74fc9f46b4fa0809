/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reverse-mapping btree records and keys (xfs_format.h: struct
 * xfs_rmap_rec, struct xfs_rmap_key).  A record says who owns a run of
 * an AG's blocks: an inode (its data or attribute fork at a file offset,
 * or a bmbt block of that fork) or one of the special owners below.  The
 * fork and state flags live in the top bits of the 64-bit offset word;
 * the decoded record keeps that word as it is on disk, so a checker can
 * see stray bits, and od_rmap_fileoff() gives the offset itself.
 */
#ifndef OD_RMAP_H
#define OD_RMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "ondisk/geo.h"

#define OD_RMAP_REC_LEN		24
#define OD_RMAP_KEY_LEN		20	/* a node slot holds a low and a high key */
#define OD_RMAP_LEN_MAX		0xffffffffu	/* rm_blockcount is 32 bits */

/* Special owners (XFS_RMAP_OWN_*): bit 63 set, counting down from -1. */
#define OD_RMAP_OWN_NULL	(~0ull)		/* -1: growfs placeholder */
#define OD_RMAP_OWN_UNKNOWN	(~0ull - 1)	/* -2 */
#define OD_RMAP_OWN_FS		(~0ull - 2)	/* -3: AG headers */
#define OD_RMAP_OWN_LOG		(~0ull - 3)	/* -4: the internal log */
#define OD_RMAP_OWN_AG		(~0ull - 4)	/* -5: bnobt, cntbt, rmapbt, AGFL */
#define OD_RMAP_OWN_INOBT	(~0ull - 5)	/* -6: inobt, finobt */
#define OD_RMAP_OWN_INODES	(~0ull - 6)	/* -7: inode chunks */
#define OD_RMAP_OWN_REFC	(~0ull - 7)	/* -8: refcount btree */
#define OD_RMAP_OWN_COW		(~0ull - 8)	/* -9: CoW staging extents */
#define OD_RMAP_OWN_MIN		(~0ull - 9)	/* below every owner we know */

/* The offset word: flags in bits 63..61, the file offset in bits 53..0. */
#define OD_RMAP_OFF_ATTR_FORK	(1ull << 63)
#define OD_RMAP_OFF_BMBT_BLOCK	(1ull << 62)
#define OD_RMAP_OFF_UNWRITTEN	(1ull << 61)
#define OD_RMAP_OFF_FLAGS	(OD_RMAP_OFF_ATTR_FORK | \
				 OD_RMAP_OFF_BMBT_BLOCK | OD_RMAP_OFF_UNWRITTEN)
#define OD_RMAP_OFF_MASK	((1ull << 54) - 1)

struct od_rmap_rec {
	uint32_t startblock;	/* agbno */
	uint32_t blockcount;
	uint64_t owner;		/* inode number or OD_RMAP_OWN_* */
	uint64_t offset;	/* the on-disk word: file offset | OD_RMAP_OFF_* */
};

/* The comparable part of a record: what the btree is ordered by. */
struct od_rmap_key {
	uint32_t startblock;
	uint64_t owner;
	uint64_t offset;	/* as in the record, unwritten bit cleared */
};

/* XFS_RMAP_NON_INODE_OWNER: a special owner, not an inode number. */
static inline bool od_rmap_owner_special(uint64_t owner)
{
	return (owner >> 63) != 0;
}

static inline uint64_t od_rmap_fileoff(const struct od_rmap_rec *r)
{
	return r->offset & OD_RMAP_OFF_MASK;
}

void od_rmap_rec_decode(const uint8_t *p, struct od_rmap_rec *r);
void od_rmap_rec_encode(const struct od_rmap_rec *r, uint8_t *p);

/*
 * Could this record exist on a filesystem of geometry g?  A known owner
 * (a valid inode number or an OD_RMAP_OWN_* from FS down to COW), no
 * offset bits outside the flags and the 54-bit offset, special owners
 * with a zero offset word, bmbt blocks without offset or unwritten bit.
 * Its range against the AG is the caller's to check.
 */
bool od_rmap_rec_plausible(const struct od_geo *g, const struct od_rmap_rec *r);

/*
 * The keys of one record (xfs_rmapbt_init_key_from_rec and
 * _init_high_key_from_rec): the low key is where it starts; the high key
 * its last block and, for file data (not bmbt blocks, not special
 * owners), its last file offset.  The unwritten bit is a record
 * attribute and never part of a key.
 */
void od_rmap_rec_low_key(const struct od_rmap_rec *r, struct od_rmap_key *k);
void od_rmap_rec_high_key(const struct od_rmap_rec *r, struct od_rmap_key *k);
void od_rmap_key_decode(const uint8_t *p, struct od_rmap_key *k);
void od_rmap_key_encode(const struct od_rmap_key *k, uint8_t *p);
/* Key order: startblock, owner, offset (unwritten bit ignored). */
int od_rmap_key_cmp(const struct od_rmap_key *a, const struct od_rmap_key *b);

#endif
