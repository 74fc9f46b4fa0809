/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reference-count btree records (xfs_format.h: struct xfs_refcount_rec):
 * a run of an AG's blocks mapped by refcount >= 2 file extents.  CoW
 * staging extents, which live only while a write is in flight, have the
 * top bit of the start block set (XFS_REFC_COWFLAG) and sort after every
 * shared extent; the key is the first 32-bit word with that bit.
 */
#ifndef OD_REFCOUNT_H
#define OD_REFCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#define OD_REFC_REC_LEN		12
#define OD_REFC_KEY_LEN		4
#define OD_REFC_COWFLAG		(1u << 31)

struct od_refc_rec {
	uint32_t startblock;	/* agbno, without the CoW flag */
	uint32_t blockcount;
	uint32_t refcount;
	bool cow;		/* a CoW staging extent */
};

void od_refc_rec_decode(const uint8_t *p, struct od_refc_rec *r);
void od_refc_rec_encode(const struct od_refc_rec *r, uint8_t *p);

/* The key word: start block with the CoW flag, as the tree orders it. */
static inline uint32_t od_refc_key(const struct od_refc_rec *r)
{
	return r->startblock | (r->cow ? OD_REFC_COWFLAG : 0);
}

#endif
