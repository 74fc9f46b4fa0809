/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/dir2.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <string.h>

enum od_err od_dir2_sf_hdr(const uint8_t *fork, size_t size,
			   struct od_dir2_sf *hdr, const char **field)
{
	memset(hdr, 0, sizeof(*hdr));
	*field = "sf header";
	if (size < 6)
		return OD_ESHORT;
	hdr->count = fork[0];
	hdr->i8count = fork[1];
	hdr->hdr_len = hdr->i8count ? 10 : 6;
	if (size < hdr->hdr_len)
		return OD_ESHORT;
	hdr->parent = hdr->i8count ? od_get_be64(fork + 2) :
				     od_get_be32(fork + 2);
	/* the parent counts too: an empty directory under a parent
	 * above 2^32 has count 0, i8count 1 (xfs_dir2_sf_verify) */
	if (hdr->i8count > hdr->count + 1)
		return od_bad_field(field, "i8count");
	*field = NULL;
	return OD_OK;
}

enum od_err od_dir2_sf_entry(const uint8_t *fork, size_t size,
			     const struct od_dir2_sf *hdr, bool ftype,
			     uint32_t *pos, struct od_dirent *de,
			     const char **field)
{
	uint32_t p = *pos, inolen = hdr->i8count ? 8 : 4, need;

	*field = "sf entry";
	if (p + 3 > size)
		return OD_ESHORT;
	de->namelen = fork[p];
	de->offset = od_get_be16(fork + p + 1);
	need = 3 + de->namelen + (ftype ? 1 : 0) + inolen;
	if (p + need > size)
		return OD_ESHORT;
	if (de->namelen == 0)
		return od_bad_field(field, "sf entry namelen");
	de->name = fork + p + 3;
	de->ftype = ftype ? fork[p + 3 + de->namelen] : OD_FT_UNKNOWN;
	p += 3 + de->namelen + (ftype ? 1 : 0);
	de->ino = inolen == 8 ? od_get_be64(fork + p) : od_get_be32(fork + p);
	*pos = p + inolen;
	*field = NULL;
	return OD_OK;
}

enum od_err od_dir2_data_hdr(const uint8_t *buf, size_t len,
			     const struct od_geo *g,
			     struct od_dir2_data_hdr *hdr, const char **field)
{
	unsigned i;

	memset(hdr, 0, sizeof(*hdr));
	*field = "magic";
	hdr->hdr_len = g->v5 ? 64 : 16;
	if (len < hdr->hdr_len + 16 || len > UINT32_MAX)
		return OD_ESHORT;
	hdr->magic = od_get_be32(buf);
	if (hdr->magic == (g->v5 ? OD_DIR3_BLOCK_MAGIC : OD_DIR2_BLOCK_MAGIC))
		hdr->block = true;
	else if (hdr->magic != (g->v5 ? OD_DIR3_DATA_MAGIC :
					OD_DIR2_DATA_MAGIC))
		return OD_EMAGIC;
	if (g->v5) {
		*field = "crc";
		if (!od_cksum_ok(buf, len, OD_DIR3_DATA_CRC_OFF))
			return OD_ECRC;
		hdr->blkno = od_get_be64(buf + 8);
		hdr->lsn = od_get_be64(buf + 16);
		hdr->owner = od_get_be64(buf + 40);
		if (memcmp(buf + 24, g->uuid, 16) != 0)
			return od_bad_field(field, "uuid");
	}
	for (i = 0; i < 3; i++) {
		const uint8_t *bf = buf + (g->v5 ? 48 : 4) + 4 * i;

		hdr->best_off[i] = od_get_be16(bf);
		hdr->best_len[i] = od_get_be16(bf + 2);
	}
	hdr->end = (uint32_t)len;
	if (hdr->block) {
		uint64_t leafbytes;

		hdr->leaf_count = od_get_be32(buf + len - 8);
		hdr->leaf_stale = od_get_be32(buf + len - 4);
		leafbytes = (uint64_t)hdr->leaf_count * 8 + 8;
		if (leafbytes > len - hdr->hdr_len)
			return od_bad_field(field, "block tail count");
		if (hdr->leaf_stale > hdr->leaf_count)
			return od_bad_field(field, "block tail stale");
		hdr->end = (uint32_t)(len - leafbytes);
	}
	*field = NULL;
	return OD_OK;
}

enum od_err od_dir2_data_entry(const uint8_t *buf,
			       const struct od_dir2_data_hdr *hdr, bool ftype,
			       uint32_t *pos, struct od_dirent *de,
			       bool *unused, const char **field)
{
	uint32_t p = *pos, size;

	*field = "data entry";
	memset(de, 0, sizeof(*de));
	if (p % OD_DIR2_DATA_ALIGN || p + 8 > hdr->end)
		return od_bad_field(field, "data entry offset");
	if (od_get_be16(buf + p) == OD_DIR2_DATA_FREE_TAG) {
		size = od_get_be16(buf + p + 2);
		if (size < 8 || size % OD_DIR2_DATA_ALIGN ||
		    size > hdr->end - p)
			return od_bad_field(field, "unused entry length");
		if (od_get_be16(buf + p + size - 2) != p)
			return od_bad_field(field, "unused entry tag");
		*unused = true;
		*pos = p + size;
		*field = NULL;
		return OD_OK;
	}
	*unused = false;
	if (p + 11 > hdr->end)
		return od_bad_field(field, "data entry length");
	de->ino = od_get_be64(buf + p);
	de->namelen = buf[p + 8];
	de->name = buf + p + 9;
	de->offset = p;
	size = od_dir2_data_entsize(ftype, de->namelen);
	if (de->namelen == 0)
		return od_bad_field(field, "data entry namelen");
	if (size > hdr->end - p)
		return od_bad_field(field, "data entry length");
	de->ftype = ftype ? buf[p + 9 + de->namelen] : OD_FT_UNKNOWN;
	if (od_get_be16(buf + p + size - 2) != p)
		return od_bad_field(field, "data entry tag");
	*pos = p + size;
	*field = NULL;
	return OD_OK;
}

void od_dir2_leaf_ent(const uint8_t *ents, uint32_t i,
		      struct od_dir2_leaf_ent *le)
{
	const uint8_t *p = ents + 8 * (size_t)i;

	le->hashval = od_get_be32(p);
	le->address = od_get_be32(p + 4);
}

enum od_err od_dir2_leaf_hdr(const uint8_t *buf, size_t len,
			     const struct od_geo *g,
			     struct od_dir2_leaf_hdr *hdr, const char **field)
{
	size_t off = g->v5 ? OD_DA3_BLKINFO_LEN : OD_DA_BLKINFO_LEN;
	enum od_err oe;

	memset(hdr, 0, sizeof(*hdr));
	oe = od_da_blkinfo(buf, len, g, &hdr->info, field);
	if (oe)
		return oe;
	*field = "magic";
	if (hdr->info.magic == (g->v5 ? OD_DIR3_LEAF1_MAGIC :
					OD_DIR2_LEAF1_MAGIC))
		hdr->leaf1 = true;
	else if (hdr->info.magic != (g->v5 ? OD_DIR3_LEAFN_MAGIC :
					     OD_DIR2_LEAFN_MAGIC))
		return OD_EMAGIC;
	hdr->hdr_len = g->v5 ? 64 : 16;
	if (len < hdr->hdr_len + 4)
		return OD_ESHORT;
	hdr->count = od_get_be16(buf + off);
	hdr->stale = od_get_be16(buf + off + 2);
	if ((size_t)hdr->count * 8 > len - hdr->hdr_len)
		return od_bad_field(field, "leaf count");
	if (hdr->stale > hdr->count)
		return od_bad_field(field, "leaf stale");
	if (hdr->leaf1) {
		/* leaf1 ends with bests[bestcount] and the bestcount word */
		uint32_t bestcount = od_get_be32(buf + len - 4);

		if ((uint64_t)bestcount * 2 + 4 + (uint64_t)hdr->count * 8 >
		    len - hdr->hdr_len)
			return od_bad_field(field, "leaf bestcount");
	}
	*field = NULL;
	return OD_OK;
}

void od_dir2_leaf_entry(const uint8_t *ents, uint32_t i, uint32_t *hash,
			uint32_t *addr)
{
	const uint8_t *p = ents + 8 * (size_t)i;

	*hash = od_get_be32(p);
	*addr = od_get_be32(p + 4);
}

uint32_t od_dir2_leaf1_bestcount(const uint8_t *buf, size_t len)
{
	return od_get_be32(buf + len - 4);
}

size_t od_dir2_leaf1_bests_off(const uint8_t *buf, size_t len)
{
	return len - 4 - 2 * (size_t)od_dir2_leaf1_bestcount(buf, len);
}

uint16_t od_dir2_leaf1_best(const uint8_t *buf, size_t len, uint32_t i)
{
	return od_get_be16(buf + od_dir2_leaf1_bests_off(buf, len) +
			   2 * (size_t)i);
}
