/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/attr.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <errno.h>
#include <string.h>

enum od_err od_attr_sf_hdr(const uint8_t *fork, size_t len,
			   struct od_attr_sf_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len < OD_ATTR_SF_HDR_LEN)
		return OD_ESHORT;
	h->totsize = od_get_be16(fork);
	h->count = fork[2];
	return OD_OK;
}

enum od_err od_attr_sf_entry(const uint8_t *fork, size_t end, uint32_t *pos,
			     struct od_attr_sf_ent *e)
{
	uint32_t p = *pos;

	memset(e, 0, sizeof(*e));
	if ((size_t)p + OD_ATTR_SF_ENT_LEN > end)
		return OD_ESHORT;
	e->namelen = fork[p];
	e->valuelen = fork[p + 1];
	e->flags = fork[p + 2];
	e->name = fork + p + OD_ATTR_SF_ENT_LEN;
	e->size = OD_ATTR_SF_ENT_LEN + e->namelen + e->valuelen;
	if ((size_t)p + e->size > end)
		return OD_ESHORT;
	*pos = p + e->size;
	return OD_OK;
}

enum od_err od_attr_leaf_hdr(const uint8_t *buf, size_t len,
			     const struct od_geo *g,
			     struct od_attr_leaf_hdr *h, const char **field)
{
	size_t off = g->v5 ? OD_DA3_BLKINFO_LEN : OD_DA_BLKINFO_LEN;
	const uint8_t *p;
	enum od_err oe;
	unsigned i;

	memset(h, 0, sizeof(*h));
	oe = od_da_blkinfo(buf, len, g, &h->info, field);
	if (oe)
		return oe;
	*field = "magic";
	if (h->info.magic != (g->v5 ? OD_ATTR3_LEAF_MAGIC :
				      OD_ATTR_LEAF_MAGIC))
		return OD_EMAGIC;
	/* v4: blkinfo, 8 bytes, freemap (12); v5: blkinfo, 8, 12, pad 4 */
	h->hdr_len = g->v5 ? 80 : 32;
	*field = "header";
	if (len < h->hdr_len)
		return OD_ESHORT;
	p = buf + off;
	h->count = od_get_be16(p);
	h->usedbytes = od_get_be16(p + 2);
	h->firstused = od_get_be16(p + 4);
	h->holes = p[6];
	for (i = 0; i < 3; i++) {
		h->free_base[i] = od_get_be16(p + 8 + 4 * i);
		h->free_size[i] = od_get_be16(p + 10 + 4 * i);
	}
	/* xfs_attr3_leaf_firstused_from_disk: 64 KiB blocks store 0 */
	if (g->v5 && h->firstused == 0 && len > 0xffff)
		h->firstused = (uint32_t)len;
	*field = NULL;
	return OD_OK;
}

int od_attr_leaf_fill(uint8_t *buf, size_t len, const struct od_geo *g,
		      const struct od_attr_item *v, size_t n)
{
	uint32_t hdr = len - od_attr_leaf_room(len), used = 0, at = (uint32_t)len;
	uint8_t *p;
	size_t i;

	if (!g->v5 || len < hdr || len > 0x10000 ||
	    od_get_be16(buf + 8) != OD_ATTR3_LEAF_MAGIC)
		return -EINVAL;
	for (i = 0; i < n; i++)
		used += od_attr_item_bytes(&v[i]);
	if (n > 0xffff || used > od_attr_leaf_room(len))
		return -ENOSPC;
	memset(buf + OD_DA3_BLKINFO_LEN, 0, len - OD_DA3_BLKINFO_LEN);
	used = 0;
	for (i = 0; i < n; i++) {
		const struct od_attr_item *it = &v[i];
		uint32_t sz = od_attr_item_bytes(it) - 8;

		at -= sz;
		used += sz;
		p = buf + hdr + 8 * i;
		od_put_be32(p, it->hash);
		od_put_be16(p + 4, (uint16_t)at);
		p[6] = it->flags;
		p = buf + at;
		if (it->flags & OD_ATTR_LOCAL) {
			od_put_be16(p, (uint16_t)it->valuelen);
			p[2] = it->namelen;
			memcpy(p + 3, it->name, it->namelen + it->valuelen);
		} else {
			od_put_be32(p, it->valueblk);
			od_put_be32(p + 4, it->valuelen);
			p[8] = it->namelen;
			memcpy(p + 9, it->name, it->namelen);
		}
	}
	p = buf + OD_DA3_BLKINFO_LEN;
	od_put_be16(p, (uint16_t)n);
	od_put_be16(p + 2, (uint16_t)used);
	/* xfs_attr3_leaf_firstused_to_disk: a 64 KiB block's end is 0 */
	od_put_be16(p + 4, (uint16_t)(at == 0x10000 ? 0 : at));
	od_put_be16(p + 8, (uint16_t)(hdr + 8 * n));
	od_put_be16(p + 10, (uint16_t)(at - (hdr + 8 * n)));
	od_cksum_set(buf, len, OD_DA3_CRC_OFF);
	return 0;
}

void od_attr_leaf_entry(const uint8_t *buf, const struct od_attr_leaf_hdr *h,
			uint32_t i, struct od_attr_leaf_ent *e)
{
	const uint8_t *p = buf + h->hdr_len + 8 * (size_t)i;

	memset(e, 0, sizeof(*e));
	e->hash = od_get_be32(p);
	e->nameidx = od_get_be16(p + 4);
	e->flags = p[6];
}

enum od_err od_attr_leaf_name(const uint8_t *buf, size_t len,
			      struct od_attr_leaf_ent *e)
{
	const uint8_t *p = buf + e->nameidx;

	if (e->flags & OD_ATTR_LOCAL) {
		/* valuelen (2), namelen (1), name, value */
		if ((size_t)e->nameidx + 3 > len)
			return OD_ESHORT;
		e->valuelen = od_get_be16(p);
		e->namelen = p[2];
		e->name = p + 3;
		e->size = od_attr_local_size(e->namelen, e->valuelen);
	} else {
		/* valueblk (4), valuelen (4), namelen (1), name */
		if ((size_t)e->nameidx + 9 > len)
			return OD_ESHORT;
		e->valueblk = od_get_be32(p);
		e->valuelen = od_get_be32(p + 4);
		e->namelen = p[8];
		e->name = p + 9;
		e->size = od_attr_remote_size(e->namelen);
	}
	if ((size_t)e->nameidx + e->size > len)
		return OD_ESHORT;
	return OD_OK;
}
