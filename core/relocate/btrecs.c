/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/relocate/btrecs.h"
#include "core/base/sort.h"
#include "ondisk/bmbt.h"
#include "ondisk/inobt.h"
#include "ondisk/refcount.h"

#include <stdlib.h>
#include <string.h>

bool btrec_rmap_mergeable(const struct od_rmap_rec *r1,
			  const struct od_rmap_rec *r2)
{
	if (r1->owner != r2->owner)
		return false;
	if ((uint64_t)r1->startblock + r1->blockcount != r2->startblock)
		return false;
	if ((uint64_t)r1->blockcount + r2->blockcount > OD_RMAP_LEN_MAX)
		return false;
	if (od_rmap_owner_special(r2->owner))
		return true;
	if ((r1->offset & OD_RMAP_OFF_FLAGS) != (r2->offset & OD_RMAP_OFF_FLAGS))
		return false;
	if (r1->offset & OD_RMAP_OFF_BMBT_BLOCK)
		return true;
	return od_rmap_fileoff(r1) + r1->blockcount == od_rmap_fileoff(r2);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Fork/bmbt class of an inode owner's record: data, attr, then bmbt. */
static unsigned rmap_class(const struct od_rmap_rec *r)
{
	return (r->offset & OD_RMAP_OFF_ATTR_FORK ? 1u : 0u) |
	       (r->offset & OD_RMAP_OFF_BMBT_BLOCK ? 2u : 0u);
}

/* The flags in a fixed order: attr fork, bmbt block, unwritten. */
static unsigned rmap_flags(const struct od_rmap_rec *r)
{
	return rmap_class(r) | (r->offset & OD_RMAP_OFF_UNWRITTEN ? 4u : 0u);
}

/*
 * Merge order: records that may merge sit next to each other.  Group by
 * owner and fork/bmbt class, then by what must be contiguous: the file
 * offset for data mappings (the order xfs_repair meets them walking the
 * fork), the start block otherwise.  Ties broken on every field so the
 * result does not depend on qsort.
 */
static int rmap_merge_cmp(const void *a, const void *b)
{
	struct od_rmap_rec x, y;
	int c;

	od_rmap_rec_decode(a, &x);
	od_rmap_rec_decode(b, &y);
	c = cmp_u64(x.owner, y.owner);
	if (c)
		return c;
	if (od_rmap_owner_special(x.owner)) {
		c = cmp_u64(x.startblock, y.startblock);
		return c ? c : cmp_u64(x.blockcount, y.blockcount);
	}
	c = cmp_u64(rmap_class(&x), rmap_class(&y));
	if (c)
		return c;
	if (!(x.offset & OD_RMAP_OFF_BMBT_BLOCK)) {
		c = cmp_u64(od_rmap_fileoff(&x), od_rmap_fileoff(&y));
		if (c)
			return c;
	}
	c = cmp_u64(x.startblock, y.startblock);
	if (!c)
		c = cmp_u64(rmap_flags(&x), rmap_flags(&y));
	if (!c)
		c = cmp_u64(od_rmap_fileoff(&x), od_rmap_fileoff(&y));
	return c ? c : cmp_u64(x.blockcount, y.blockcount);
}

size_t btrec_rmap_merge(uint8_t *recs, size_t n)
{
	struct od_rmap_rec prev, cur;
	size_t i, out = 0;

	if (n == 0)
		return 0;
	sort_any(recs, n, OD_RMAP_REC_LEN, rmap_merge_cmp);
	od_rmap_rec_decode(recs, &prev);
	for (i = 1; i < n; i++) {
		od_rmap_rec_decode(recs + i * OD_RMAP_REC_LEN, &cur);
		if (btrec_rmap_mergeable(&prev, &cur)) {
			prev.blockcount += cur.blockcount;
			continue;
		}
		od_rmap_rec_encode(&prev, recs + out++ * OD_RMAP_REC_LEN);
		prev = cur;
	}
	od_rmap_rec_encode(&prev, recs + out++ * OD_RMAP_REC_LEN);
	sort_any(recs, out, OD_RMAP_REC_LEN, btrec_cmp(OD_BT_RMAP));
	return out;
}

static int cmp_bno(const void *a, const void *b)
{
	struct od_alloc_rec x, y;

	od_alloc_rec_decode(a, &x);
	od_alloc_rec_decode(b, &y);
	return cmp_u64(x.startblock, y.startblock);
}

static int cmp_cnt(const void *a, const void *b)
{
	struct od_alloc_rec x, y;
	int c;

	od_alloc_rec_decode(a, &x);
	od_alloc_rec_decode(b, &y);
	c = cmp_u64(x.blockcount, y.blockcount);
	return c ? c : cmp_u64(x.startblock, y.startblock);
}

/* inobt and finobt order by start inode */
static int cmp_ino(const void *a, const void *b)
{
	return cmp_u64(od_inobt_rec_startino(a), od_inobt_rec_startino(b));
}

static int cmp_refc(const void *a, const void *b)
{
	struct od_refc_rec x, y;

	od_refc_rec_decode(a, &x);
	od_refc_rec_decode(b, &y);
	return cmp_u64(od_refc_key(&x), od_refc_key(&y));
}

static int cmp_rmap(const void *a, const void *b)
{
	struct od_rmap_rec x, y;
	struct od_rmap_key kx, ky;

	od_rmap_rec_decode(a, &x);
	od_rmap_rec_decode(b, &y);
	od_rmap_rec_low_key(&x, &kx);
	od_rmap_rec_low_key(&y, &ky);
	return od_rmap_key_cmp(&kx, &ky);
}

static int cmp_bmap(const void *a, const void *b)
{
	struct od_irec x, y;

	od_bmbt_rec_unpack(a, &x);
	od_bmbt_rec_unpack(b, &y);
	return cmp_u64(x.startoff, y.startoff);
}

btrec_cmp_fn btrec_cmp(enum od_bt_type t)
{
	switch (t) {
	case OD_BT_CNT:
		return cmp_cnt;
	case OD_BT_BNO:
		return cmp_bno;
	case OD_BT_INO:
	case OD_BT_FINO:
		return cmp_ino;
	case OD_BT_REFC:
	case OD_BT_RTREFC:
		return cmp_refc;
	case OD_BT_RMAP:
	case OD_BT_RTRMAP:
		return cmp_rmap;
	case OD_BT_BMAP:
		return cmp_bmap;
	}
	return cmp_bno;
}
