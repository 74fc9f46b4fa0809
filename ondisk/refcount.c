/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/refcount.h"
#include "ondisk/be.h"

void od_refc_rec_decode(const uint8_t *p, struct od_refc_rec *r)
{
	uint32_t start = od_get_be32(p);

	r->startblock = start & ~OD_REFC_COWFLAG;
	r->cow = (start & OD_REFC_COWFLAG) != 0;
	r->blockcount = od_get_be32(p + 4);
	r->refcount = od_get_be32(p + 8);
}

void od_refc_rec_encode(const struct od_refc_rec *r, uint8_t *p)
{
	od_put_be32(p, od_refc_key(r));
	od_put_be32(p + 4, r->blockcount);
	od_put_be32(p + 8, r->refcount);
}
