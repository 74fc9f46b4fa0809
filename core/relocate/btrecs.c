/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/relocate/btrecs.h"
#include "core/base/sort.h"
#include "ondisk/be.h"

#include <stdlib.h>
#include <string.h>

void btrec_alloc(uint8_t *rec, uint32_t startblock, uint32_t blockcount)
{
	od_put_be32(rec, startblock);
	od_put_be32(rec + 4, blockcount);
}

void btrec_inobt(const struct od_geo *g, uint8_t *rec,
		 const struct od_inobt_rec *r)
{
	od_put_be32(rec, r->startino);
	if (g->sparse) {
		od_put_be16(rec + 4, r->holemask);
		rec[6] = r->count;
		rec[7] = r->freecount;
	} else {
		od_put_be32(rec + 4, r->freecount);
	}
	od_put_be64(rec + 8, r->free);
}

static uint64_t rmap_offset_pack(uint64_t offset, unsigned flags)
{
	uint64_t x = offset & BTREC_RMAP_OFF_MASK;

	if (flags & BTREC_RMAP_ATTR_FORK)
		x |= BTREC_RMAP_OFF_ATTR_FORK;
	if (flags & BTREC_RMAP_BMBT_BLOCK)
		x |= BTREC_RMAP_OFF_BMBT_BLOCK;
	if (flags & BTREC_RMAP_UNWRITTEN)
		x |= BTREC_RMAP_OFF_UNWRITTEN;
	return x;
}

void btrec_rmap(uint8_t *rec, uint32_t startblock, uint32_t blockcount,
		uint64_t owner, uint64_t offset, unsigned flags)
{
	od_put_be32(rec, startblock);
	od_put_be32(rec + 4, blockcount);
	od_put_be64(rec + 8, owner);
	od_put_be64(rec + 16, rmap_offset_pack(offset, flags));
}

void btrec_rmap_pack(uint8_t *rec, const struct btrec_rmap *r)
{
	btrec_rmap(rec, r->startblock, r->blockcount, r->owner, r->offset,
		   r->flags);
}

void btrec_rmap_unpack(const uint8_t *rec, struct btrec_rmap *r)
{
	uint64_t off = od_get_be64(rec + 16);

	r->startblock = od_get_be32(rec);
	r->blockcount = od_get_be32(rec + 4);
	r->owner = od_get_be64(rec + 8);
	r->offset = off & BTREC_RMAP_OFF_MASK;
	r->flags = 0;
	if (off & BTREC_RMAP_OFF_ATTR_FORK)
		r->flags |= BTREC_RMAP_ATTR_FORK;
	if (off & BTREC_RMAP_OFF_BMBT_BLOCK)
		r->flags |= BTREC_RMAP_BMBT_BLOCK;
	if (off & BTREC_RMAP_OFF_UNWRITTEN)
		r->flags |= BTREC_RMAP_UNWRITTEN;
}

bool btrec_rmap_mergeable(const struct btrec_rmap *r1,
			  const struct btrec_rmap *r2)
{
	if (r1->owner != r2->owner)
		return false;
	if ((uint64_t)r1->startblock + r1->blockcount != r2->startblock)
		return false;
	if ((uint64_t)r1->blockcount + r2->blockcount > BTREC_RMAP_LEN_MAX)
		return false;
	if (btrec_rmap_non_inode(r2->owner))
		return true;
	if (r1->flags != r2->flags)
		return false;
	if (r1->flags & BTREC_RMAP_BMBT_BLOCK)
		return true;
	return r1->offset + r1->blockcount == r2->offset;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
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
	struct btrec_rmap x, y;
	unsigned cx, cy;
	int c;

	btrec_rmap_unpack(a, &x);
	btrec_rmap_unpack(b, &y);
	c = cmp_u64(x.owner, y.owner);
	if (c)
		return c;
	if (btrec_rmap_non_inode(x.owner)) {
		c = cmp_u64(x.startblock, y.startblock);
		return c ? c : cmp_u64(x.blockcount, y.blockcount);
	}
	cx = x.flags & (BTREC_RMAP_ATTR_FORK | BTREC_RMAP_BMBT_BLOCK);
	cy = y.flags & (BTREC_RMAP_ATTR_FORK | BTREC_RMAP_BMBT_BLOCK);
	c = cmp_u64(cx, cy);
	if (c)
		return c;
	if (!(x.flags & BTREC_RMAP_BMBT_BLOCK)) {
		c = cmp_u64(x.offset, y.offset);
		if (c)
			return c;
	}
	c = cmp_u64(x.startblock, y.startblock);
	if (!c)
		c = cmp_u64(x.flags, y.flags);
	if (!c)
		c = cmp_u64(x.offset, y.offset);
	return c ? c : cmp_u64(x.blockcount, y.blockcount);
}

size_t btrec_rmap_merge(uint8_t *recs, size_t n)
{
	struct btrec_rmap prev, cur;
	size_t i, out = 0;

	if (n == 0)
		return 0;
	sort_any(recs, n, BTREC_RMAP_LEN, rmap_merge_cmp);
	btrec_rmap_unpack(recs, &prev);
	for (i = 1; i < n; i++) {
		btrec_rmap_unpack(recs + i * BTREC_RMAP_LEN, &cur);
		if (btrec_rmap_mergeable(&prev, &cur)) {
			prev.blockcount += cur.blockcount;
			continue;
		}
		btrec_rmap_pack(recs + out++ * BTREC_RMAP_LEN, &prev);
		prev = cur;
	}
	btrec_rmap_pack(recs + out++ * BTREC_RMAP_LEN, &prev);
	sort_any(recs, out, BTREC_RMAP_LEN, btrec_cmp(OD_BT_RMAP));
	return out;
}

void btrec_refc(uint8_t *rec, uint32_t startblock, uint32_t blockcount,
		uint32_t refcount)
{
	od_put_be32(rec, startblock);
	od_put_be32(rec + 4, blockcount);
	od_put_be32(rec + 8, refcount);
}

void btrec_bmap(uint8_t *rec, const struct od_irec *r)
{
	od_bmbt_rec_pack(r, rec);
}

static int cmp_be32_at(const void *a, const void *b, size_t off)
{
	return cmp_u64(od_get_be32((const uint8_t *)a + off),
		       od_get_be32((const uint8_t *)b + off));
}

static int cmp_cnt(const void *a, const void *b)
{
	int c = cmp_be32_at(a, b, 4);

	return c ? c : cmp_be32_at(a, b, 0);
}

static int cmp_first32(const void *a, const void *b)
{
	return cmp_be32_at(a, b, 0);
}

static int cmp_rmap(const void *a, const void *b)
{
	const uint8_t *x = a, *y = b;
	int c = cmp_be32_at(a, b, 0);

	if (!c)
		c = cmp_u64(od_get_be64(x + 8), od_get_be64(y + 8));
	if (!c)
		c = cmp_u64(od_get_be64(x + 16) & ~BTREC_RMAP_OFF_UNWRITTEN,
			    od_get_be64(y + 16) & ~BTREC_RMAP_OFF_UNWRITTEN);
	return c;
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
	case OD_BT_INO:
	case OD_BT_FINO:
	case OD_BT_REFC:
		return cmp_first32;
	case OD_BT_RMAP:
		return cmp_rmap;
	case OD_BT_BMAP:
		return cmp_bmap;
	}
	return cmp_first32;
}
