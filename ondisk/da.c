/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/da.h"
#include "ondisk/be.h"
#include "ondisk/btree.h"
#include "ondisk/crc32c.h"

#include <string.h>

uint16_t od_da_magic(const uint8_t *buf)
{
	return od_get_be16(buf + 8);	/* xfs_da_blkinfo.magic */
}

enum od_err od_da_blkinfo(const uint8_t *buf, size_t len,
			  const struct od_geo *g, struct od_da_blkinfo *bi,
			  const char **field)
{
	memset(bi, 0, sizeof(*bi));
	*field = "blkinfo";
	if (len < (g->v5 ? OD_DA3_BLKINFO_LEN : OD_DA_BLKINFO_LEN))
		return OD_ESHORT;
	bi->forw = od_get_be32(buf);
	bi->back = od_get_be32(buf + 4);
	bi->magic = od_get_be16(buf + 8);
	if (g->v5) {
		*field = "crc";
		if (!od_cksum_ok(buf, len, OD_DA3_CRC_OFF))
			return OD_ECRC;
		bi->blkno = od_get_be64(buf + 16);
		bi->lsn = od_get_be64(buf + 24);
		bi->owner = od_get_be64(buf + 48);
		*field = "uuid";
		if (memcmp(buf + 32, g->uuid, 16) != 0)
			return OD_EFIELD;
	}
	*field = NULL;
	return OD_OK;
}

bool od_da_is_node(const struct od_geo *g, uint16_t magic)
{
	return magic == (g->v5 ? OD_DA3_NODE_MAGIC : OD_DA_NODE_MAGIC);
}

enum od_err od_da_node_decode(const uint8_t *buf, size_t len,
			      const struct od_geo *g, struct od_da_node *node,
			      const char **field)
{
	enum od_err oe;
	uint32_t hl = g->v5 ? OD_DA3_NODE_HDR_LEN : OD_DA_NODE_HDR_LEN;
	size_t off = g->v5 ? OD_DA3_BLKINFO_LEN : OD_DA_BLKINFO_LEN;

	memset(node, 0, sizeof(*node));
	oe = od_da_blkinfo(buf, len, g, &node->info, field);
	if (oe)
		return oe;
	*field = "magic";
	if (!od_da_is_node(g, node->info.magic))
		return OD_EMAGIC;
	*field = "node header";
	if (len < hl)
		return OD_ESHORT;
	node->count = od_get_be16(buf + off);
	node->level = od_get_be16(buf + off + 2);
	node->hdr_len = hl;
	*field = "level";
	if (node->level == 0 || node->level > OD_BTREE_MAXLEVELS_ANY)
		return OD_EFIELD;
	*field = "count";
	if (node->count == 0 || (size_t)node->count * 8 > len - hl)
		return OD_EFIELD;
	*field = NULL;
	return OD_OK;
}

void od_da_node_set_hash(uint8_t *buf, const struct od_da_node *node,
			 uint32_t i, uint32_t hash)
{
	od_put_be32(buf + node->hdr_len + 8 * (size_t)i, hash);
}

void od_da_node_entry(const uint8_t *buf, const struct od_da_node *node,
		      uint32_t i, uint32_t *hash, uint32_t *before)
{
	const uint8_t *p = buf + node->hdr_len + 8 * (size_t)i;

	*hash = od_get_be32(p);
	*before = od_get_be32(p + 4);
}
