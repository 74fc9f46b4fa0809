/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Leaf records for the btrees btbuild() writes: the sort order each tree
 * keeps (qsort comparators over packed records) and the rmap merge rules
 * xfs_repair applies, so a rebuilt rmapbt holds exactly the records
 * xfs_repair -n expects.  The records themselves are packed by ondisk/
 * (od_alloc_rec_encode, od_inobt_rec_encode, od_rmap_rec_encode,
 * od_refc_rec_encode, od_bmbt_rec_pack).
 */
#ifndef CORE_BTRECS_H
#define CORE_BTRECS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/btree.h"
#include "ondisk/rmap.h"

/*
 * Could r2 be folded into r1 (r1 physically first)?  repair/rmap.c
 * rmaps_are_mergeable(): same owner, r2 starts where r1 ends, combined
 * length fits 32 bits; then non-inode owners always merge; inode owners
 * need identical flags (attr fork, bmbt block, unwritten), and bmbt
 * blocks merge regardless of offset while file data also needs
 * r1.offset + r1.blockcount == r2.offset.
 */
bool btrec_rmap_mergeable(const struct od_rmap_rec *r1,
			  const struct od_rmap_rec *r2);

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
 * every data/attr fork extent in the AG (offset, OD_RMAP_OFF_ATTR_FORK
 * for the attr fork, _UNWRITTEN as the extent says), every bmbt block
 * (_BMBT_BLOCK, plus _ATTR_FORK for an attr fork's, offset 0), the AG
 * headers up to the block after the AGFL (OWN_FS), the internal log (OWN_LOG), each
 * inode chunk's allocated blocks (OWN_INODES), bnobt/cntbt/rmapbt and
 * AGFL blocks (OWN_AG), inobt/finobt blocks (OWN_INOBT), refcountbt
 * blocks (OWN_REFC).  xfs_repair -n compares fork extents, bmbt blocks,
 * OWN_FS, OWN_LOG and OWN_INODES with what it finds (rmaps_verify_btree:
 * one tree record must cover each observation, same owner and flags);
 * the AG btree and AGFL owners only against its block map.
 */
size_t btrec_rmap_merge(uint8_t *recs, size_t n);

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
