/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/inobt.h"
#include "ondisk/be.h"

uint32_t od_inobt_rec_startino(const uint8_t *p)
{
	return od_get_be32(p);
}

enum od_err od_inobt_rec_decode(const uint8_t *p, const struct od_geo *g,
				uint32_t agno, struct od_inobt_rec *r,
				const char **field)
{
	uint32_t aginos = od_ag_blocks(g, agno) << g->inopblog, i, present = 0;
	unsigned freecnt = 0;

	r->startino = od_inobt_rec_startino(p);
	r->free = od_get_be64(p + 8);
	if (g->sparse) {
		r->holemask = od_get_be16(p + 4);
		r->count = p[6];
		r->freecount = p[7];
	} else {
		uint32_t fc = od_get_be32(p + 4);

		r->holemask = 0;
		r->count = OD_INODES_PER_CHUNK;
		r->freecount = fc > 255 ? 255 : (uint8_t)fc;
	}
	*field = NULL;
	/* chunks need not be 64-aligned (v4 without inode alignment) */
	if (r->startino >= aginos ||
	    aginos - r->startino < OD_INODES_PER_CHUNK)
		return od_bad_field(field, "startino");
	for (i = 0; i < OD_INODES_PER_CHUNK; i++) {
		if (od_inobt_present(r, i)) {
			present++;
			if (r->free & (1ull << i))
				freecnt++;
		}
	}
	if (present != r->count)
		return od_bad_field(field, "count");
	if (freecnt != r->freecount)
		return od_bad_field(field, "freecount");
	return OD_OK;
}

void od_alloc_rec_decode(const uint8_t *p, struct od_alloc_rec *r)
{
	r->startblock = od_get_be32(p);
	r->blockcount = od_get_be32(p + 4);
}

void od_alloc_rec_encode(const struct od_alloc_rec *r, uint8_t *p)
{
	od_put_be32(p, r->startblock);
	od_put_be32(p + 4, r->blockcount);
}

void od_inobt_rec_encode(const struct od_geo *g, const struct od_inobt_rec *r,
			 uint8_t *p)
{
	od_put_be32(p, r->startino);
	if (g->sparse) {
		od_put_be16(p + 4, r->holemask);
		p[6] = r->count;
		p[7] = r->freecount;
	} else {
		od_put_be32(p + 4, r->freecount);
	}
	od_put_be64(p + 8, r->free);
}
