/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Leaf records for the btrees btbuild() writes: packing each tree's
 * on-disk record, the sort order each tree keeps (qsort comparators over
 * packed records), and the rmap merge rules xfs_repair applies, so a
 * rebuilt rmapbt holds exactly the records xfs_repair -n expects.
 */
#ifndef CORE_BTRECS_H
#define CORE_BTRECS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/bmbt.h"
#include "ondisk/btree.h"
#include "ondisk/geo.h"
#include "ondisk/inobt.h"

#define BTREC_ALLOC_LEN		8
#define BTREC_INOBT_LEN		16
#define BTREC_RMAP_LEN		24
#define BTREC_REFC_LEN		12
#define BTREC_BMAP_LEN		16

/* Free space (bnobt and cntbt share the record): start, length. */
void btrec_alloc(uint8_t *rec, uint32_t startblock, uint32_t blockcount);

/*
 * Inode chunk.  On sparse-inode filesystems the record carries holemask,
 * count and an 8-bit freecount; otherwise a 32-bit freecount and the
 * holemask/count are not stored (they must then be 0 and 64).
 */
void btrec_inobt(const struct od_geo *g, uint8_t *rec,
		 const struct od_inobt_rec *r);

/*
 * Reverse mapping (xfs_format.h: struct xfs_rmap_rec).  Flags are the
 * kernel's xfs_rmap_irec flags; on disk they live in the top bits of the
 * offset.  Owners with bit 63 set are the special non-inode owners.
 */
#define BTREC_RMAP_ATTR_FORK	0x1u
#define BTREC_RMAP_BMBT_BLOCK	0x2u
#define BTREC_RMAP_UNWRITTEN	0x4u

#define BTREC_RMAP_OFF_ATTR_FORK	(1ull << 63)
#define BTREC_RMAP_OFF_BMBT_BLOCK	(1ull << 62)
#define BTREC_RMAP_OFF_UNWRITTEN	(1ull << 61)
#define BTREC_RMAP_OFF_MASK		((1ull << 54) - 1)

#define BTREC_RMAP_OWN_NULL	(~0ull)		/* -1, growfs */
#define BTREC_RMAP_OWN_UNKNOWN	(~0ull - 1)	/* -2 */
#define BTREC_RMAP_OWN_FS	(~0ull - 2)	/* -3: AG headers */
#define BTREC_RMAP_OWN_LOG	(~0ull - 3)	/* -4 */
#define BTREC_RMAP_OWN_AG	(~0ull - 4)	/* -5: bnobt/cntbt/rmapbt, AGFL */
#define BTREC_RMAP_OWN_INOBT	(~0ull - 5)	/* -6: inobt, finobt */
#define BTREC_RMAP_OWN_INODES	(~0ull - 6)	/* -7: inode chunks */
#define BTREC_RMAP_OWN_REFC	(~0ull - 7)	/* -8 */
#define BTREC_RMAP_OWN_COW	(~0ull - 8)	/* -9 */
#define BTREC_RMAP_LEN_MAX	0xffffffffu

static inline bool btrec_rmap_non_inode(uint64_t owner)
{
	return (owner >> 63) != 0;
}

struct btrec_rmap {
	uint32_t startblock;	/* agbno */
	uint32_t blockcount;
	uint64_t owner;		/* inode number or BTREC_RMAP_OWN_* */
	uint64_t offset;	/* file offset, 54 bits; 0 for non-inode/bmbt */
	unsigned flags;		/* BTREC_RMAP_* */
};

void btrec_rmap(uint8_t *rec, uint32_t startblock, uint32_t blockcount,
		uint64_t owner, uint64_t offset, unsigned flags);
void btrec_rmap_pack(uint8_t *rec, const struct btrec_rmap *r);
void btrec_rmap_unpack(const uint8_t *rec, struct btrec_rmap *r);

/*
 * Could r2 be folded into r1 (r1 physically first)?  repair/rmap.c
 * rmaps_are_mergeable(): same owner, r2 starts where r1 ends, combined
 * length fits 32 bits; then non-inode owners always merge; inode owners
 * need identical flags (attr fork, bmbt block, unwritten), and bmbt
 * blocks merge regardless of offset while file data also needs
 * r1.offset + r1.blockcount == r2.offset.
 */
bool btrec_rmap_mergeable(const struct btrec_rmap *r1,
			  const struct btrec_rmap *r2);

/*
 * Merge n packed rmap records (one AG's) in place, as xfs_repair folds
 * its observations, and leave the result sorted in rmapbt order.
 * Returns the new count.  Every pair that rmaps_are_mergeable() accepts
 * is merged, also when other owners' records sort between the two
 * (reflink), so no two neighbours in the finished tree are mergeable
 * (xfs_repair's "should be merged with previous record") and every
 * mapping xfs_repair observes is covered by one record.  Works in place
 * (two qsorts), allocates nothing, cannot fail.
 *
 * Feed it one record per piece of space, any order, any splitting:
 * every data/attr fork extent in the AG (offset, ATTR_FORK for the attr
 * fork, UNWRITTEN as the extent says), every bmbt block (BMBT_BLOCK,
 * plus ATTR_FORK for an attr fork's, offset 0), the AG headers up to
 * the block after the AGFL (OWN_FS), the internal log (OWN_LOG), each
 * inode chunk's allocated blocks (OWN_INODES), bnobt/cntbt/rmapbt and
 * AGFL blocks (OWN_AG), inobt/finobt blocks (OWN_INOBT), refcountbt
 * blocks (OWN_REFC).  xfs_repair -n compares fork extents, bmbt blocks,
 * OWN_FS, OWN_LOG and OWN_INODES with what it finds (rmaps_verify_btree:
 * one tree record must cover each observation, same owner and flags);
 * the AG btree and AGFL owners only against its block map.
 */
size_t btrec_rmap_merge(uint8_t *recs, size_t n);

/* Refcount (struct xfs_refcount_rec); CoW staging extents have bit 31 of
 * startblock set (BTREC_REFC_COW) and sort after the shared ones. */
#define BTREC_REFC_COW		(1u << 31)
void btrec_refc(uint8_t *rec, uint32_t startblock, uint32_t blockcount,
		uint32_t refcount);

/* File extent (bmbt leaf record). */
void btrec_bmap(uint8_t *rec, const struct od_irec *r);

/*
 * qsort comparator for packed records of tree t, in that tree's key
 * order: bnobt startblock; cntbt blockcount then startblock; inobt and
 * finobt startino; rmapbt startblock, owner, offset with its flag bits
 * but without the unwritten bit (xfs_rmap_btree.c offset_keymask);
 * refcountbt startblock (CoW domain bit included); bmbt startoff.
 */
typedef int (*btrec_cmp_fn)(const void *a, const void *b);
btrec_cmp_fn btrec_cmp(enum od_bt_type t);

#endif
