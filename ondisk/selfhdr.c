/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/selfhdr.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/dir2.h"

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

uint16_t od_dir_free_best(const uint8_t *buf, const struct od_dir_free_hdr *h,
			  uint32_t i)
{
	return od_get_be16(buf + h->hdr_len + 2 * (size_t)i);
}
