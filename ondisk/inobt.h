/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode btree records (xfs_format.h: xfs_inobt_rec): a 64-inode chunk,
 * its free mask and, on sparse-inode filesystems, a 16-bit hole mask
 * (one bit per 4 inodes that were never allocated on disk).
 */
#ifndef OD_INOBT_H
#define OD_INOBT_H

#include <stdbool.h>
#include <stdint.h>

#include "ondisk/err.h"
#include "ondisk/geo.h"

#define OD_INOBT_REC_LEN		16
#define OD_INODES_PER_HOLEMASK_BIT	4

struct od_inobt_rec {
	uint32_t startino;	/* agino of the chunk's first inode */
	uint16_t holemask;	/* sparse: set bit = 4 inodes absent */
	uint8_t count;		/* inodes physically present */
	uint8_t freecount;
	uint64_t free;		/* set bit = inode free (holes too) */
};

/* The first inode of the chunk a packed record describes (its key). */
uint32_t od_inobt_rec_startino(const uint8_t *p);

/* Decode and check one record against the geometry of AG agno. */
enum od_err od_inobt_rec_decode(const uint8_t *p, const struct od_geo *g,
				uint32_t agno, struct od_inobt_rec *r,
				const char **field);

/*
 * Pack one record.  On sparse-inode filesystems it carries holemask,
 * count and an 8-bit freecount; otherwise a 32-bit freecount, and the
 * holemask and count are implied (0 and 64).
 */
void od_inobt_rec_encode(const struct od_geo *g, const struct od_inobt_rec *r,
			 uint8_t *p);

/* Is inode i (0..63) of the chunk physically present / in use? */
static inline bool od_inobt_present(const struct od_inobt_rec *r, unsigned i)
{
	return !(r->holemask & (1u << (i / OD_INODES_PER_HOLEMASK_BIT)));
}

static inline bool od_inobt_inuse(const struct od_inobt_rec *r, unsigned i)
{
	return od_inobt_present(r, i) && !(r->free & (1ull << i));
}

/* Is any inode of block b (from 0) of the chunk physically present? */
static inline bool od_inobt_block_present(const struct od_geo *g,
					  const struct od_inobt_rec *r,
					  uint32_t b)
{
	uint32_t i = b * g->inopblock, end = i + g->inopblock;

	if (end > OD_INODES_PER_CHUNK)
		end = OD_INODES_PER_CHUNK;
	for (; i < end; i++)
		if (od_inobt_present(r, i))
			return true;
	return false;
}

/* Free-space btree records: start and length within the AG. */
struct od_alloc_rec {
	uint32_t startblock, blockcount;
};

#define OD_ALLOC_REC_LEN	8

void od_alloc_rec_decode(const uint8_t *p, struct od_alloc_rec *r);
void od_alloc_rec_encode(const struct od_alloc_rec *r, uint8_t *p);

#endif
