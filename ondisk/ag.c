/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/ag.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <string.h>

/* The AG headers fit in one sector; v5 CRCs cover exactly that sector. */
static enum od_err ag_sector_check(const uint8_t *buf, size_t len,
				   const struct od_geo *g, uint32_t magic,
				   size_t crc_off, size_t uuid_off,
				   const char **field)
{
	*field = "magicnum";
	if (len < g->sectsize || len < 344)
		return OD_ESHORT;
	if (od_get_be32(buf) != magic)
		return OD_EMAGIC;
	if (g->v5) {
		*field = "crc";
		if (!od_cksum_ok(buf, g->sectsize, crc_off))
			return OD_ECRC;
		if (memcmp(buf + uuid_off, g->uuid, 16) != 0)
			return od_bad_field(field, "uuid");
	}
	*field = NULL;
	return OD_OK;
}

enum od_err od_agf_decode(const uint8_t *buf, size_t len,
			  const struct od_geo *g, uint32_t agno,
			  struct od_agf *agf, const char **field)
{
	uint32_t aglen = od_ag_blocks(g, agno), flsize = od_agfl_size(g);
	enum od_err err;
	int i;

	memset(agf, 0, sizeof(*agf));
	err = ag_sector_check(buf, len, g, OD_AGF_MAGIC, OD_AGF_CRC_OFF, 64,
			      field);
	if (err)
		return err;
	agf->magicnum = od_get_be32(buf);
	agf->versionnum = od_get_be32(buf + 4);
	agf->seqno = od_get_be32(buf + 8);
	agf->length = od_get_be32(buf + 12);
	for (i = 0; i < 3; i++) {
		agf->roots[i] = od_get_be32(buf + 16 + 4 * i);
		agf->levels[i] = od_get_be32(buf + 28 + 4 * i);
	}
	agf->flfirst = od_get_be32(buf + 40);
	agf->fllast = od_get_be32(buf + 44);
	agf->flcount = od_get_be32(buf + 48);
	agf->freeblks = od_get_be32(buf + 52);
	agf->longest = od_get_be32(buf + 56);
	agf->btreeblks = od_get_be32(buf + 60);
	memcpy(agf->uuid, buf + 64, 16);
	agf->rmap_blocks = od_get_be32(buf + 80);
	agf->refcount_blocks = od_get_be32(buf + 84);
	agf->refcount_root = od_get_be32(buf + 88);
	agf->refcount_level = od_get_be32(buf + 92);
	agf->lsn = od_get_be64(buf + 208);
	agf->crc = od_get_le32(buf + OD_AGF_CRC_OFF);

	if (agf->versionnum != 1)
		return od_bad_field(field, "versionnum");
	if (agf->seqno != agno)
		return od_bad_field(field, "seqno");
	if (agf->length != aglen)
		return od_bad_field(field, "length");
	for (i = 0; i < 3; i++) {
		static const char *const rn[] = { "bnoroot", "cntroot",
						  "rmaproot" };
		static const char *const ln[] = { "bnolevel", "cntlevel",
						  "rmaplevel" };

		if (i == OD_BTNUM_RMAP && !g->rmapbt)
			continue;
		if (agf->roots[i] == 0 || agf->roots[i] >= aglen)
			return od_bad_field(field, rn[i]);
		if (agf->levels[i] < 1 || agf->levels[i] > OD_BTREE_MAXLEVELS)
			return od_bad_field(field, ln[i]);
	}
	if (g->reflink) {
		if (agf->refcount_root == 0 || agf->refcount_root >= aglen)
			return od_bad_field(field, "refcntroot");
		if (agf->refcount_level < 1 ||
		    agf->refcount_level > OD_BTREE_MAXLEVELS)
			return od_bad_field(field, "refcntlevel");
	}
	if (agf->flfirst >= flsize)
		return od_bad_field(field, "flfirst");
	if (agf->fllast >= flsize)
		return od_bad_field(field, "fllast");
	if (agf->flcount > flsize)
		return od_bad_field(field, "flcount");
	if (agf->freeblks > aglen)
		return od_bad_field(field, "freeblks");
	if (agf->longest > agf->freeblks)
		return od_bad_field(field, "longest");
	return OD_OK;
}

enum od_err od_agi_decode(const uint8_t *buf, size_t len,
			  const struct od_geo *g, uint32_t agno,
			  struct od_agi *agi, const char **field)
{
	uint32_t aglen = od_ag_blocks(g, agno);
	enum od_err err;
	int i;

	memset(agi, 0, sizeof(*agi));
	err = ag_sector_check(buf, len, g, OD_AGI_MAGIC, OD_AGI_CRC_OFF, 296,
			      field);
	if (err)
		return err;
	agi->magicnum = od_get_be32(buf);
	agi->versionnum = od_get_be32(buf + 4);
	agi->seqno = od_get_be32(buf + 8);
	agi->length = od_get_be32(buf + 12);
	agi->count = od_get_be32(buf + 16);
	agi->root = od_get_be32(buf + 20);
	agi->level = od_get_be32(buf + 24);
	agi->freecount = od_get_be32(buf + 28);
	agi->newino = od_get_be32(buf + 32);
	agi->dirino = od_get_be32(buf + 36);
	for (i = 0; i < OD_AGI_UNLINKED; i++)
		agi->unlinked[i] = od_get_be32(buf + 40 + 4 * i);
	memcpy(agi->uuid, buf + 296, 16);
	agi->crc = od_get_le32(buf + OD_AGI_CRC_OFF);
	agi->lsn = od_get_be64(buf + 320);
	agi->free_root = od_get_be32(buf + 328);
	agi->free_level = od_get_be32(buf + 332);
	agi->iblocks = od_get_be32(buf + 336);
	agi->fblocks = od_get_be32(buf + 340);

	if (agi->versionnum != 1)
		return od_bad_field(field, "versionnum");
	if (agi->seqno != agno)
		return od_bad_field(field, "seqno");
	if (agi->length != aglen)
		return od_bad_field(field, "length");
	if (agi->root == 0 || agi->root >= aglen)
		return od_bad_field(field, "root");
	if (agi->level < 1 || agi->level > OD_BTREE_MAXLEVELS)
		return od_bad_field(field, "level");
	if (agi->freecount > agi->count)
		return od_bad_field(field, "freecount");
	if (g->finobt) {
		if (agi->free_root == 0 || agi->free_root >= aglen)
			return od_bad_field(field, "free_root");
		if (agi->free_level < 1 ||
		    agi->free_level > OD_BTREE_MAXLEVELS)
			return od_bad_field(field, "free_level");
	}
	return OD_OK;
}

bool od_agf_has_magic(const uint8_t *buf, size_t len)
{
	return len >= 4 && od_get_be32(buf) == OD_AGF_MAGIC;
}

uint32_t od_agfl_slot(const uint8_t *slots, uint32_t idx)
{
	return od_get_be32(slots + 4 * (size_t)idx);
}

uint32_t od_agfl_size(const struct od_geo *g)
{
	return (g->sectsize - (g->v5 ? OD_AGFL_V5_HDR : 0)) / 4;
}

enum od_err od_agfl_slots(const uint8_t *buf, size_t len,
			  const struct od_geo *g, uint32_t agno,
			  const uint8_t **slots, const char **field)
{
	*field = NULL;
	*slots = NULL;
	if (len < g->sectsize)
		return OD_ESHORT;
	if (g->v5) {
		*field = "magicnum";
		if (od_get_be32(buf) != OD_AGFL_MAGIC)
			return OD_EMAGIC;
		*field = "crc";
		if (!od_cksum_ok(buf, g->sectsize, OD_AGFL_CRC_OFF))
			return OD_ECRC;
		if (od_get_be32(buf + 4) != agno)
			return od_bad_field(field, "seqno");
		if (memcmp(buf + 8, g->uuid, 16) != 0)
			return od_bad_field(field, "uuid");
		*field = NULL;
		*slots = buf + OD_AGFL_V5_HDR;
	} else {
		*slots = buf;
	}
	return OD_OK;
}

void od_agfl_set_slots(uint8_t *buf, size_t len, const struct od_geo *g,
		       const uint32_t *blocks, uint32_t n)
{
	uint32_t size = od_agfl_size(g), i;
	uint8_t *slots = buf + (g->v5 ? OD_AGFL_V5_HDR : 0);

	if (len < g->sectsize)
		return;
	for (i = 0; i < size; i++)
		od_put_be32(slots + 4 * (size_t)i, i < n ? blocks[i] :
			    OD_NULLAGBLOCK);
	if (g->v5)
		od_cksum_set(buf, g->sectsize, OD_AGFL_CRC_OFF);
}

enum od_err od_agfl_lsn(const uint8_t *buf, size_t len,
			const struct od_geo *g, uint64_t *lsn)
{
	*lsn = 0;
	if (!g->v5)
		return OD_EFIELD;
	if (len < OD_AGFL_V5_HDR)
		return OD_ESHORT;
	*lsn = od_get_be64(buf + OD_AGFL_LSN_OFF);
	return OD_OK;
}

void od_agf_encode(const struct od_agf *agf, const struct od_geo *g,
		   uint8_t *buf, size_t len)
{
	int i;

	od_put_be32(buf, agf->magicnum);
	od_put_be32(buf + 4, agf->versionnum);
	od_put_be32(buf + 8, agf->seqno);
	od_put_be32(buf + 12, agf->length);
	for (i = 0; i < 3; i++) {
		od_put_be32(buf + 16 + 4 * i, agf->roots[i]);
		od_put_be32(buf + 28 + 4 * i, agf->levels[i]);
	}
	od_put_be32(buf + 40, agf->flfirst);
	od_put_be32(buf + 44, agf->fllast);
	od_put_be32(buf + 48, agf->flcount);
	od_put_be32(buf + 52, agf->freeblks);
	od_put_be32(buf + 56, agf->longest);
	od_put_be32(buf + 60, agf->btreeblks);
	if (g->v5) {
		memcpy(buf + 64, agf->uuid, 16);
		od_put_be32(buf + 80, agf->rmap_blocks);
		od_put_be32(buf + 84, agf->refcount_blocks);
		od_put_be32(buf + 88, agf->refcount_root);
		od_put_be32(buf + 92, agf->refcount_level);
		od_put_be64(buf + 208, agf->lsn);
		od_cksum_set(buf, len < g->sectsize ? len : g->sectsize,
			     OD_AGF_CRC_OFF);
	}
}

void od_agi_encode(const struct od_agi *agi, const struct od_geo *g,
		   uint8_t *buf, size_t len)
{
	int i;

	od_put_be32(buf, agi->magicnum);
	od_put_be32(buf + 4, agi->versionnum);
	od_put_be32(buf + 8, agi->seqno);
	od_put_be32(buf + 12, agi->length);
	od_put_be32(buf + 16, agi->count);
	od_put_be32(buf + 20, agi->root);
	od_put_be32(buf + 24, agi->level);
	od_put_be32(buf + 28, agi->freecount);
	od_put_be32(buf + 32, agi->newino);
	od_put_be32(buf + 36, agi->dirino);
	for (i = 0; i < OD_AGI_UNLINKED; i++)
		od_put_be32(buf + 40 + 4 * i, agi->unlinked[i]);
	if (g->v5) {
		memcpy(buf + 296, agi->uuid, 16);
		od_put_be64(buf + 320, agi->lsn);
		od_put_be32(buf + 328, agi->free_root);
		od_put_be32(buf + 332, agi->free_level);
		od_put_be32(buf + 336, agi->iblocks);
		od_put_be32(buf + 340, agi->fblocks);
		od_cksum_set(buf, len < g->sectsize ? len : g->sectsize,
			     OD_AGI_CRC_OFF);
	}
}
