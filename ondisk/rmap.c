/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/rmap.h"
#include "ondisk/be.h"

void od_rmap_rec_decode(const uint8_t *p, struct od_rmap_rec *r)
{
	r->startblock = od_get_be32(p);
	r->blockcount = od_get_be32(p + 4);
	r->owner = od_get_be64(p + 8);
	r->offset = od_get_be64(p + 16);
}

void od_rmap_rec_encode(const struct od_rmap_rec *r, uint8_t *p)
{
	od_put_be32(p, r->startblock);
	od_put_be32(p + 4, r->blockcount);
	od_put_be64(p + 8, r->owner);
	od_put_be64(p + 16, r->offset);
}

bool od_rmap_rec_plausible(const struct od_geo *g, const struct od_rmap_rec *r)
{
	uint64_t off = r->offset;

	if (od_rmap_owner_special(r->owner)) {
		if (r->owner <= OD_RMAP_OWN_MIN || r->owner > OD_RMAP_OWN_FS)
			return false;
		return off == 0;
	}
	if (!od_ino_valid(g, r->owner))
		return false;
	if (off & ~(OD_RMAP_OFF_MASK | OD_RMAP_OFF_FLAGS))
		return false;
	if ((off & OD_RMAP_OFF_BMBT_BLOCK) &&
	    (off & (OD_RMAP_OFF_UNWRITTEN | OD_RMAP_OFF_MASK)))
		return false;
	return true;
}

void od_rmap_rec_low_key(const struct od_rmap_rec *r, struct od_rmap_key *k)
{
	k->startblock = r->startblock;
	k->owner = r->owner;
	k->offset = r->offset & ~OD_RMAP_OFF_UNWRITTEN;
}

void od_rmap_rec_high_key(const struct od_rmap_rec *r, struct od_rmap_key *k)
{
	uint32_t adj = r->blockcount - 1u;

	od_rmap_rec_low_key(r, k);
	k->startblock += adj;
	if (od_rmap_owner_special(r->owner) ||
	    (r->offset & OD_RMAP_OFF_BMBT_BLOCK))
		return;
	/* adj is the kernel's signed blockcount - 1, widened */
	k->offset = ((k->offset & OD_RMAP_OFF_MASK) +
		     (uint64_t)(int64_t)(int32_t)adj) |
		    (k->offset & ~OD_RMAP_OFF_MASK);
}

void od_rmap_key_decode(const uint8_t *p, struct od_rmap_key *k)
{
	k->startblock = od_get_be32(p);
	k->owner = od_get_be64(p + 4);
	k->offset = od_get_be64(p + 12);
}

void od_rmap_key_encode(const struct od_rmap_key *k, uint8_t *p)
{
	od_put_be32(p, k->startblock);
	od_put_be64(p + 4, k->owner);
	od_put_be64(p + 12, k->offset);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

int od_rmap_key_cmp(const struct od_rmap_key *a, const struct od_rmap_key *b)
{
	int c = cmp_u64(a->startblock, b->startblock);

	if (!c)
		c = cmp_u64(a->owner, b->owner);
	if (!c)
		c = cmp_u64(a->offset & ~OD_RMAP_OFF_UNWRITTEN,
			    b->offset & ~OD_RMAP_OFF_UNWRITTEN);
	return c;
}
