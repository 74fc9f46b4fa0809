/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/symlink.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <string.h>

enum od_err od_symlink_hdr(const uint8_t *buf, size_t len,
			   const struct od_geo *g, struct od_symlink_hdr *h,
			   const char **field)
{
	memset(h, 0, sizeof(*h));
	*field = "magic";
	if (len < OD_SYMLINK_HDR_LEN)
		return OD_ESHORT;
	if (od_get_be32(buf) != OD_SYMLINK_MAGIC)
		return OD_EMAGIC;
	*field = "crc";
	if (!od_cksum_ok(buf, len, OD_SYMLINK_CRC_OFF))
		return OD_ECRC;
	h->offset = od_get_be32(buf + 4);
	h->bytes = od_get_be32(buf + 8);
	h->owner = od_get_be64(buf + 32);
	h->blkno = od_get_be64(buf + 40);
	h->lsn = od_get_be64(buf + 48);
	*field = "uuid";
	if (memcmp(buf + 16, g->uuid, 16) != 0)
		return OD_EFIELD;
	*field = "bytes";
	if ((uint64_t)h->offset + h->bytes >= OD_SYMLINK_MAXLEN ||
	    h->bytes > len - OD_SYMLINK_HDR_LEN)
		return OD_EFIELD;
	*field = NULL;
	return OD_OK;
}
