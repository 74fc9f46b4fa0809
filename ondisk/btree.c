/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/btree.h"
#include "ondisk/be.h"
#include "ondisk/bmbt.h"
#include "ondisk/crc32c.h"
#include "ondisk/inobt.h"
#include "ondisk/refcount.h"
#include "ondisk/rmap.h"

#include <string.h>

static const struct od_bt_ops bt_ops[] = {
	[OD_BT_BNO]  = { "bnobt", OD_ABTB_MAGIC, OD_ABTB3_MAGIC, false, 8, 8, 4 },
	[OD_BT_CNT]  = { "cntbt", OD_ABTC_MAGIC, OD_ABTC3_MAGIC, false, 8, 8, 4 },
	[OD_BT_INO]  = { "inobt", OD_IBT_MAGIC, OD_IBT3_MAGIC, false, 16, 4, 4 },
	[OD_BT_FINO] = { "finobt", OD_FIBT_MAGIC, OD_FIBT3_MAGIC, false, 16, 4, 4 },
	/* rmapbt keys are overlapping: a low and a high key per slot */
	[OD_BT_RMAP] = { "rmapbt", 0, OD_RMAP3_MAGIC, false, 24, 40, 4 },
	[OD_BT_REFC] = { "refcountbt", 0, OD_REFC3_MAGIC, false, 12, 4, 4 },
	[OD_BT_BMAP] = { "bmbt", OD_BMAP_MAGIC, OD_BMAP3_MAGIC, true, 16, 8, 8 },
	[OD_BT_RTRMAP] = { "rtrmapbt", 0, OD_RTRMAP_MAGIC, true, 24, 40, 8 },
	[OD_BT_RTREFC] = { "rtrefcountbt", 0, OD_RTREFC_MAGIC, true, 12, 4, 8 },
};

/* The realtime trees compare their records as the AG trees do. */
static enum od_bt_type rec_type(enum od_bt_type t)
{
	return t == OD_BT_RTRMAP ? OD_BT_RMAP :
	       t == OD_BT_RTREFC ? OD_BT_REFC : t;
}

const struct od_bt_ops *od_bt_ops(enum od_bt_type t)
{
	return &bt_ops[t];
}

enum od_err od_broot_decode(enum od_bt_type t, const uint8_t *fork,
			    size_t len, struct od_broot *root)
{
	const struct od_bt_ops *ops = od_bt_ops(t);

	memset(root, 0, sizeof(*root));
	if (len < OD_BROOT_HDR_LEN)
		return OD_ESHORT;
	root->level = od_get_be16(fork);
	root->numrecs = od_get_be16(fork + 2);
	root->key_len = ops->key_len;
	root->maxrecs = (uint32_t)((len - OD_BROOT_HDR_LEN) /
				   (root->level ? ops->key_len + ops->ptr_len :
				    ops->rec_len));
	return OD_OK;
}

uint64_t od_broot_ptr(const uint8_t *fork, const struct od_broot *root,
		      uint32_t i)
{
	return od_get_be64(fork + OD_BROOT_HDR_LEN +
			   (size_t)root->maxrecs * root->key_len +
			   (size_t)i * 8);
}

uint32_t od_bt_maxrecs(const struct od_bt_ops *ops, uint32_t hdr_len,
		       size_t len, bool leaf)
{
	if (len <= hdr_len)
		return 0;
	if (leaf)
		return (uint32_t)((len - hdr_len) / ops->rec_len);
	return (uint32_t)((len - hdr_len) / (ops->key_len + ops->ptr_len));
}

static uint32_t bt_hdr_len(const struct od_geo *g, bool long_ptrs)
{
	if (long_ptrs)
		return g->v5 ? OD_LBLOCK_CRC_LEN : OD_LBLOCK_LEN;
	return g->v5 ? OD_SBLOCK_CRC_LEN : OD_SBLOCK_LEN;
}

enum od_err od_btblock_decode(const uint8_t *buf, size_t len,
			      const struct od_geo *g, enum od_bt_type t,
			      struct od_btblock *hdr, const char **field)
{
	const struct od_bt_ops *ops = &bt_ops[t];
	uint32_t magic = g->v5 ? ops->magic_v5 : ops->magic_v4;
	uint32_t hl = bt_hdr_len(g, ops->long_ptrs), max;

	memset(hdr, 0, sizeof(*hdr));
	*field = "magic";
	if (len < hl)
		return OD_ESHORT;
	hdr->magic = od_get_be32(buf);
	if (hdr->magic != magic || magic == 0)
		return OD_EMAGIC;
	hdr->level = od_get_be16(buf + 4);
	hdr->numrecs = od_get_be16(buf + 6);
	hdr->hdr_len = hl;
	if (ops->long_ptrs) {
		hdr->leftsib = od_get_be64(buf + 8);
		hdr->rightsib = od_get_be64(buf + 16);
		if (g->v5) {
			*field = "crc";
			if (!od_cksum_ok(buf, len, OD_LBLOCK_CRC_OFF))
				return OD_ECRC;
			hdr->blkno = od_get_be64(buf + 24);
			hdr->lsn = od_get_be64(buf + 32);
			hdr->owner = od_get_be64(buf + 56);
			*field = "uuid";
			if (memcmp(buf + 40, g->uuid, 16) != 0)
				return OD_EFIELD;
		}
	} else {
		uint32_t l = od_get_be32(buf + 8), r = od_get_be32(buf + 12);

		hdr->leftsib = l == 0xffffffffu ? OD_NULLFSBLOCK : l;
		hdr->rightsib = r == 0xffffffffu ? OD_NULLFSBLOCK : r;
		if (g->v5) {
			*field = "crc";
			if (!od_cksum_ok(buf, len, OD_SBLOCK_CRC_OFF))
				return OD_ECRC;
			hdr->blkno = od_get_be64(buf + 16);
			hdr->lsn = od_get_be64(buf + 24);
			hdr->owner = od_get_be32(buf + 48);
			*field = "uuid";
			if (memcmp(buf + 32, g->uuid, 16) != 0)
				return OD_EFIELD;
		}
	}
	*field = "level";
	if (hdr->level >= OD_BTREE_MAXLEVELS_ANY)
		return OD_EFIELD;
	max = od_bt_maxrecs(ops, hl, len, hdr->level == 0);
	*field = "numrecs";
	if (hdr->numrecs > max)
		return OD_EFIELD;
	*field = NULL;
	return OD_OK;
}

void od_btblock_encode_hdr(const struct od_btblock *hdr,
			   const struct od_geo *g, enum od_bt_type t,
			   uint8_t *buf)
{
	const struct od_bt_ops *ops = &bt_ops[t];

	od_put_be32(buf, g->v5 ? ops->magic_v5 : ops->magic_v4);
	od_put_be16(buf + 4, hdr->level);
	od_put_be16(buf + 6, hdr->numrecs);
	if (ops->long_ptrs) {
		od_put_be64(buf + 8, hdr->leftsib);
		od_put_be64(buf + 16, hdr->rightsib);
		if (g->v5) {
			od_put_be64(buf + 24, hdr->blkno);
			od_put_be64(buf + 32, 0);	/* lsn */
			memcpy(buf + 40, g->uuid, 16);
			od_put_be64(buf + 56, hdr->owner);
			od_put_be32(buf + 68, 0);
		}
	} else {
		od_put_be32(buf + 8, hdr->leftsib == OD_NULLFSBLOCK ?
			    0xffffffffu : (uint32_t)hdr->leftsib);
		od_put_be32(buf + 12, hdr->rightsib == OD_NULLFSBLOCK ?
			    0xffffffffu : (uint32_t)hdr->rightsib);
		if (g->v5) {
			od_put_be64(buf + 16, hdr->blkno);
			od_put_be64(buf + 24, 0);	/* lsn */
			memcpy(buf + 32, g->uuid, 16);
			od_put_be32(buf + 48, (uint32_t)hdr->owner);
		}
	}
}

void od_btblock_set_crc(const struct od_geo *g, enum od_bt_type t,
			uint8_t *buf, size_t len)
{
	if (!g->v5)
		return;
	od_cksum_set(buf, len, bt_ops[t].long_ptrs ? OD_LBLOCK_CRC_OFF :
						      OD_SBLOCK_CRC_OFF);
}

uint64_t od_bt_ptr_get(const struct od_bt_ops *ops, const uint8_t *node,
		       size_t off)
{
	return ops->ptr_len == 8 ? od_get_be64(node + off) :
				   od_get_be32(node + off);
}

void od_bt_ptr_put(const struct od_bt_ops *ops, uint8_t *node, size_t off,
		   uint64_t ptr)
{
	if (ops->ptr_len == 8)
		od_put_be64(node + off, ptr);
	else
		od_put_be32(node + off, (uint32_t)ptr);
}

void od_bt_key_from_rec(enum od_bt_type t, const uint8_t *rec, uint8_t *key)
{
	struct od_rmap_rec rr;
	struct od_rmap_key rk;
	struct od_irec ir;

	switch (rec_type(t)) {
	case OD_BT_BNO:
	case OD_BT_CNT:
		memcpy(key, rec, 8);
		break;
	case OD_BT_INO:
	case OD_BT_FINO:
	case OD_BT_REFC:
		memcpy(key, rec, 4);
		break;
	case OD_BT_BMAP:
		od_bmbt_rec_unpack(rec, &ir);
		od_bmbt_key_encode(ir.startoff, key);
		break;
	case OD_BT_RMAP:
		od_rmap_rec_decode(rec, &rr);
		od_rmap_rec_low_key(&rr, &rk);
		od_rmap_key_encode(&rk, key);
		break;
	case OD_BT_RTRMAP:
	case OD_BT_RTREFC:
		break;	/* rec_type made them RMAP and REFC */
	}
}

void od_bt_rec_key(enum od_bt_type t, const uint8_t *rec, struct od_btkey *k)
{
	struct od_alloc_rec ar;
	struct od_refc_rec fr;
	struct od_rmap_rec rr;
	struct od_irec ir;

	k->a = k->b = k->c = 0;
	switch (rec_type(t)) {
	case OD_BT_BNO:
		od_alloc_rec_decode(rec, &ar);
		k->a = ar.startblock;
		break;
	case OD_BT_CNT:
		od_alloc_rec_decode(rec, &ar);
		k->a = ar.blockcount;		/* length first, then start */
		k->b = ar.startblock;
		break;
	case OD_BT_INO:
	case OD_BT_FINO:
		k->a = od_inobt_rec_startino(rec);
		break;
	case OD_BT_REFC:
		od_refc_rec_decode(rec, &fr);
		k->a = od_refc_key(&fr);	/* CoW staging records last */
		break;
	case OD_BT_RMAP:
		od_rmap_rec_decode(rec, &rr);	/* startblock, owner, offset */
		k->a = rr.startblock;
		k->b = rr.owner;
		k->c = rr.offset;
		break;
	case OD_BT_BMAP:
		od_bmbt_rec_unpack(rec, &ir);
		k->a = ir.startoff;
		break;
	case OD_BT_RTRMAP:
	case OD_BT_RTREFC:
		break;	/* rec_type made them RMAP and REFC */
	}
}

void od_bt_node_key(enum od_bt_type t, const uint8_t *key, struct od_btkey *k)
{
	struct od_rmap_key rk;

	k->a = k->b = k->c = 0;
	switch (rec_type(t)) {
	case OD_BT_BNO:
	case OD_BT_INO:
	case OD_BT_FINO:
	case OD_BT_REFC:
		k->a = od_get_be32(key);
		break;
	case OD_BT_CNT:
		k->a = od_get_be32(key + 4);
		k->b = od_get_be32(key);
		break;
	case OD_BT_RMAP:
		od_rmap_key_decode(key, &rk);
		k->a = rk.startblock;
		k->b = rk.owner;
		k->c = rk.offset & ~OD_RMAP_OFF_UNWRITTEN;
		break;
	case OD_BT_BMAP:
		k->a = od_get_be64(key);
		break;
	case OD_BT_RTRMAP:
	case OD_BT_RTREFC:
		break;	/* rec_type made them RMAP and REFC */
	}
}

int od_btkey_cmp(const struct od_btkey *x, const struct od_btkey *y)
{
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->c != y->c)
		return x->c < y->c ? -1 : 1;
	return 0;
}
