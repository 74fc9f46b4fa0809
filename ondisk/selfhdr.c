/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/selfhdr.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/da.h"
#include "ondisk/dir2.h"
#include "ondisk/symlink.h"

#include <string.h>

enum od_err od_dir_free_hdr(const uint8_t *buf, size_t len,
			    const struct od_geo *g, struct od_dir_free_hdr *h,
			    const char **field)
{
	size_t hl = g->v5 ? 64 : 16;

	memset(h, 0, sizeof(*h));
	*field = "magic";
	if (len < hl)
		return OD_ESHORT;
	h->hdr_len = (uint32_t)hl;
	h->max_bests = (uint32_t)((len - hl) / 2);
	h->magic = od_get_be32(buf);
	if (h->magic != (g->v5 ? OD_DIR3_FREE_MAGIC : OD_DIR2_FREE_MAGIC))
		return OD_EMAGIC;
	if (g->v5) {
		*field = "crc";
		if (!od_cksum_ok(buf, len, OD_DIR3_FREE_CRC_OFF))
			return OD_ECRC;
		h->blkno = od_get_be64(buf + 8);
		h->lsn = od_get_be64(buf + 16);
		*field = "uuid";
		if (memcmp(buf + 24, g->uuid, 16) != 0)
			return OD_EFIELD;
		h->owner = od_get_be64(buf + 40);
		buf += 48;
	} else {
		buf += 4;
	}
	h->firstdb = od_get_be32(buf);
	h->nvalid = od_get_be32(buf + 4);
	h->nused = od_get_be32(buf + 8);
	*field = "nvalid";
	if (h->nused > h->nvalid || (size_t)h->nvalid * 2 > len - hl)
		return OD_EFIELD;
	*field = NULL;
	return OD_OK;
}

bool od_attr_rmt_has_magic(const uint8_t *buf, size_t len)
{
	return len >= 4 && od_get_be32(buf) == OD_ATTR3_RMT_MAGIC;
}

enum od_err od_attr_rmt_hdr(const uint8_t *buf, size_t len,
			    const struct od_geo *g, struct od_attr_rmt_hdr *h,
			    const char **field)
{
	memset(h, 0, sizeof(*h));
	*field = "magic";
	if (len < OD_ATTR3_RMT_HDR_LEN)
		return OD_ESHORT;
	if (od_get_be32(buf) != OD_ATTR3_RMT_MAGIC)
		return OD_EMAGIC;
	*field = "crc";
	if (!od_cksum_ok(buf, len, OD_ATTR3_RMT_CRC_OFF))
		return OD_ECRC;
	h->offset = od_get_be32(buf + 4);
	h->bytes = od_get_be32(buf + 8);
	*field = "uuid";
	if (memcmp(buf + 16, g->uuid, 16) != 0)
		return OD_EFIELD;
	h->owner = od_get_be64(buf + 32);
	h->blkno = od_get_be64(buf + 40);
	h->lsn = od_get_be64(buf + 48);
	*field = "bytes";
	if (h->bytes > len - OD_ATTR3_RMT_HDR_LEN)
		return OD_EFIELD;
	*field = NULL;
	return OD_OK;
}

bool od_selfaddr_find(const uint8_t *b, size_t len, enum od_self_fork f,
		      struct od_selfaddr *a)
{
	uint32_t m32;
	uint16_t m16;

	if (len < OD_ATTR3_RMT_HDR_LEN)
		return false;
	m32 = od_get_be32(b);
	m16 = od_get_be16(b + 8);
	if (f == OD_SELF_SYMLINK) {
		*a = (struct od_selfaddr){ 40, OD_SYMLINK_CRC_OFF };
		return m32 == OD_SYMLINK_MAGIC;
	}
	if (f == OD_SELF_DIR && (m32 == OD_DIR3_BLOCK_MAGIC ||
				 m32 == OD_DIR3_DATA_MAGIC ||
				 m32 == OD_DIR3_FREE_MAGIC)) {
		*a = (struct od_selfaddr){ 8, 4 };
		return true;
	}
	if (f == OD_SELF_ATTR && m32 == OD_ATTR3_RMT_MAGIC) {
		*a = (struct od_selfaddr){ 40, OD_ATTR3_RMT_CRC_OFF };
		return true;
	}
	if ((f == OD_SELF_DIR && (m16 == OD_DIR3_LEAF1_MAGIC ||
				  m16 == OD_DIR3_LEAFN_MAGIC)) ||
	    (f == OD_SELF_ATTR && m16 == OD_ATTR3_LEAF_MAGIC) ||
	    m16 == OD_DA3_NODE_MAGIC) {
		*a = (struct od_selfaddr){ 16, 12 };
		return true;
	}
	return false;
}

uint64_t od_selfaddr_get(const uint8_t *b, const struct od_selfaddr *a)
{
	return od_get_be64(b + a->blkno_off);
}

void od_selfaddr_set(uint8_t *b, size_t len, const struct od_selfaddr *a,
		     uint64_t daddr)
{
	od_put_be64(b + a->blkno_off, daddr);
	od_cksum_set(b, len, a->crc_off);
}

uint16_t od_dir_free_best(const uint8_t *buf, const struct od_dir_free_hdr *h,
			  uint32_t i)
{
	return od_get_be16(buf + h->hdr_len + 2 * (size_t)i);
}
