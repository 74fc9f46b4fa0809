/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Undo file header and record headers: encode, decode, verify. */
#include "ondisk/undo.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <assert.h>
#include <string.h>

static_assert(OD_UNDO_PATH_OFF + OD_UNDO_PATH_LEN <= OD_UNDO_CHAIN_OFF,
	      "undo header: path overlaps the chain");
static_assert(OD_UNDO_CHAIN_OFF + 28 <= OD_UNDO_HDR_CRC_OFF,
	      "undo header: chain overlaps the crc");
static_assert(OD_UNDO_REC_HCRC_OFF + 4 == OD_UNDO_REC_LEN,
	      "undo record: header crc is its last field");
/* after the superblock's fields (xfs_dsb: under 320 bytes in Linux 6.18) */
static_assert(OD_UNDO_MARK_OFF >= 320 &&
	      OD_UNDO_MARK_OFF + OD_UNDO_MARK_LEN <= 512,
	      "undo mark: inside the first 512 bytes, after the superblock");

uint32_t od_undo_crc(const void *buf, size_t len)
{
	return ~od_crc32c(0xffffffffu, buf, len);
}

void od_undo_hdr_encode(const struct od_undo_hdr *h, uint8_t *buf)
{
	size_t plen = strnlen(h->path, OD_UNDO_PATH_LEN - 1);

	memset(buf, 0, OD_UNDO_HDR_LEN);
	memcpy(buf, OD_UNDO_MAGIC, 8);
	od_put_be32(buf + 8, h->version ? h->version : OD_UNDO_VERSION);
	od_put_be32(buf + 12, OD_UNDO_HDR_LEN);
	od_put_be64(buf + 16, h->nonce);
	memcpy(buf + 24, h->uuid, 16);
	memcpy(buf + 40, h->meta_uuid, 16);
	od_put_be64(buf + 56, h->dblocks);
	od_put_be32(buf + 64, h->blocksize);
	od_put_be32(buf + 68, h->sectsize);
	od_put_be32(buf + 72, h->agblocks);
	od_put_be32(buf + 76, h->agcount);
	od_put_be64(buf + 80, h->image_size);
	od_put_be64(buf + 88, h->ctime);
	od_put_be64(buf + 96, h->log_off);
	od_put_be64(buf + 104, h->log_len);
	od_put_be32(buf + 112, h->log_crc);
	od_put_be32(buf + 116, h->sb_crc);
	memcpy(buf + OD_UNDO_PATH_OFF, h->path, plen);
	od_put_be32(buf + OD_UNDO_CHAIN_OFF, h->pass);
	od_put_be64(buf + OD_UNDO_CHAIN_OFF + 8, h->chain);
	od_put_be64(buf + OD_UNDO_CHAIN_OFF + 16, h->prev_nonce);
	od_put_be32(buf + OD_UNDO_CHAIN_OFF + 24, h->prev_seal);
	od_put_be32(buf + OD_UNDO_HDR_CRC_OFF,
		    od_undo_crc(buf, OD_UNDO_HDR_CRC_OFF));
}

static bool pow2_in(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi && (v & (v - 1)) == 0;
}


enum od_err od_undo_hdr_decode(const uint8_t *buf, size_t len,
			       struct od_undo_hdr *h, const char **field)
{
	*field = NULL;
	memset(h, 0, sizeof(*h));
	if (len < OD_UNDO_HDR_LEN)
		return OD_ESHORT;
	if (memcmp(buf, OD_UNDO_MAGIC, 8) != 0)
		return OD_EMAGIC;
	if (od_get_be32(buf + OD_UNDO_HDR_CRC_OFF) !=
	    od_undo_crc(buf, OD_UNDO_HDR_CRC_OFF))
		return OD_ECRC;
	h->version = od_get_be32(buf + 8);
	h->nonce = od_get_be64(buf + 16);
	memcpy(h->uuid, buf + 24, 16);
	memcpy(h->meta_uuid, buf + 40, 16);
	h->dblocks = od_get_be64(buf + 56);
	h->blocksize = od_get_be32(buf + 64);
	h->sectsize = od_get_be32(buf + 68);
	h->agblocks = od_get_be32(buf + 72);
	h->agcount = od_get_be32(buf + 76);
	h->image_size = od_get_be64(buf + 80);
	h->ctime = od_get_be64(buf + 88);
	h->log_off = od_get_be64(buf + 96);
	h->log_len = od_get_be64(buf + 104);
	h->log_crc = od_get_be32(buf + 112);
	h->sb_crc = od_get_be32(buf + 116);
	h->pass = od_get_be32(buf + OD_UNDO_CHAIN_OFF);
	h->chain = od_get_be64(buf + OD_UNDO_CHAIN_OFF + 8);
	h->prev_nonce = od_get_be64(buf + OD_UNDO_CHAIN_OFF + 16);
	h->prev_seal = od_get_be32(buf + OD_UNDO_CHAIN_OFF + 24);
	memcpy(h->path, buf + OD_UNDO_PATH_OFF, OD_UNDO_PATH_LEN - 1);
	h->path[OD_UNDO_PATH_LEN - 1] = '\0';
	if (h->version < OD_UNDO_VERSION_MIN || h->version > OD_UNDO_VERSION)
		return od_bad_field(field, "version");
	if (od_get_be32(buf + 12) != OD_UNDO_HDR_LEN)
		return od_bad_field(field, "header length");
	if (!pow2_in(h->blocksize, 512, 65536))
		return od_bad_field(field, "blocksize");
	if (!pow2_in(h->sectsize, 512, h->blocksize))
		return od_bad_field(field, "sectsize");
	if (h->agblocks == 0 || h->agcount == 0 || h->dblocks == 0 ||
	    h->dblocks > (uint64_t)h->agblocks * h->agcount)
		return od_bad_field(field, "dblocks");
	if (h->image_size / h->blocksize < h->dblocks)
		return od_bad_field(field, "image size");
	if (h->log_len && (h->log_off > h->image_size ||
			   h->log_len > h->image_size - h->log_off))
		return od_bad_field(field, "log");
	if (h->version < OD_UNDO_VERSION_CHAIN)
		return OD_OK;
	if (h->pass == 0 || od_get_be32(buf + OD_UNDO_CHAIN_OFF + 4))
		return od_bad_field(field, "pass");
	if (h->pass == 1 ? h->chain != h->nonce || h->prev_nonce ||
			   h->prev_seal :
			   h->prev_nonce == 0 || h->chain == h->nonce)
		return od_bad_field(field, "chain");
	return OD_OK;
}

void od_undo_rec_encode(const struct od_undo_rec *r, uint64_t nonce,
			uint8_t *buf)
{
	uint8_t n[8];
	uint32_t crc;

	static const uint32_t magic[] = {
		[OD_UNDO_DATA] = OD_UNDO_REC_MAGIC,
		[OD_UNDO_END] = OD_UNDO_END_MAGIC,
		[OD_UNDO_PROOF] = OD_UNDO_PRF_MAGIC,
		[OD_UNDO_MOVES] = OD_UNDO_MOV_MAGIC,
		[OD_UNDO_SEAL] = OD_UNDO_SEA_MAGIC,
		[OD_UNDO_NEXT] = OD_UNDO_NXT_MAGIC,
		[OD_UNDO_REFS] = OD_UNDO_REF_MAGIC,
	};

	od_put_be32(buf, r->end ? OD_UNDO_END_MAGIC : magic[r->kind]);
	od_put_be32(buf + 4, r->len);
	od_put_be64(buf + 8, r->seq);
	od_put_be64(buf + 16, r->off);
	od_put_be64(buf + 24, r->batch);
	od_put_be32(buf + OD_UNDO_REC_DCRC_OFF, r->dcrc);
	od_put_be64(n, nonce);
	crc = od_crc32c(0xffffffffu, n, sizeof(n));
	crc = ~od_crc32c(crc, buf, OD_UNDO_REC_HCRC_OFF);
	od_put_be32(buf + OD_UNDO_REC_HCRC_OFF, crc);
}

enum od_err od_undo_rec_decode(const uint8_t *buf, size_t len,
			       uint64_t nonce, struct od_undo_rec *r,
			       const char **field)
{
	uint32_t magic, crc;
	uint8_t n[8];

	*field = NULL;
	memset(r, 0, sizeof(*r));
	if (len < OD_UNDO_REC_LEN)
		return OD_ESHORT;
	magic = od_get_be32(buf);
	switch (magic) {
	case OD_UNDO_REC_MAGIC: r->kind = OD_UNDO_DATA; break;
	case OD_UNDO_END_MAGIC: r->kind = OD_UNDO_END; break;
	case OD_UNDO_PRF_MAGIC: r->kind = OD_UNDO_PROOF; break;
	case OD_UNDO_MOV_MAGIC: r->kind = OD_UNDO_MOVES; break;
	case OD_UNDO_SEA_MAGIC: r->kind = OD_UNDO_SEAL; break;
	case OD_UNDO_NXT_MAGIC: r->kind = OD_UNDO_NEXT; break;
	case OD_UNDO_REF_MAGIC: r->kind = OD_UNDO_REFS; break;
	default: return OD_EMAGIC;
	}
	od_put_be64(n, nonce);
	crc = od_crc32c(0xffffffffu, n, sizeof(n));
	crc = ~od_crc32c(crc, buf, OD_UNDO_REC_HCRC_OFF);
	if (od_get_be32(buf + OD_UNDO_REC_HCRC_OFF) != crc)
		return OD_ECRC;
	r->end = r->kind == OD_UNDO_END;
	r->len = od_get_be32(buf + 4);
	r->seq = od_get_be64(buf + 8);
	r->off = od_get_be64(buf + 16);
	r->batch = od_get_be64(buf + 24);
	r->dcrc = od_get_be32(buf + OD_UNDO_REC_DCRC_OFF);
	if (r->end ? r->len != 0 : (r->len == 0 ||
				    r->len > OD_UNDO_REC_MAXDATA))
		return od_bad_field(field, "len");
	if (r->batch > r->seq ||
	    ((r->end || r->kind == OD_UNDO_NEXT) && r->batch != r->seq))
		return od_bad_field(field, "batch");
	if ((r->kind == OD_UNDO_SEAL && r->len != OD_UNDO_SEAL_LEN) ||
	    (r->kind == OD_UNDO_NEXT && r->len != OD_UNDO_NEXT_LEN))
		return od_bad_field(field, "len");
	if (r->kind == OD_UNDO_REFS && r->len % OD_UNDO_REF_ENT)
		return od_bad_field(field, "len");
	if ((r->kind == OD_UNDO_PROOF || r->kind == OD_UNDO_MOVES ||
	     r->kind == OD_UNDO_REFS ||
	     r->kind == OD_UNDO_SEAL || r->kind == OD_UNDO_NEXT) && r->off != 0)
		return od_bad_field(field, "offset");
	return OD_OK;
}

void od_undo_seal_encode(const struct od_undo_seal *s, uint8_t *buf)
{
	memset(buf, 0, OD_UNDO_SEAL_LEN);
	od_put_be32(buf, s->sb_crc);
	od_put_be64(buf + 8, s->proof_blocks);
	od_put_be64(buf + 16, s->move_blocks);
	od_put_be64(buf + 24, s->data_bytes);
}

enum od_err od_undo_seal_decode(const uint8_t *buf, size_t len,
				struct od_undo_seal *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	if (len != OD_UNDO_SEAL_LEN)
		return OD_ESHORT;
	for (i = 32; i < OD_UNDO_SEAL_LEN; i++)
		if (buf[i])
			return OD_EFIELD;
	if (od_get_be32(buf + 4))
		return OD_EFIELD;
	s->sb_crc = od_get_be32(buf);
	s->proof_blocks = od_get_be64(buf + 8);
	s->move_blocks = od_get_be64(buf + 16);
	s->data_bytes = od_get_be64(buf + 24);
	return OD_OK;
}

void od_undo_next_encode(const struct od_undo_next *n, uint8_t *buf)
{
	od_put_be64(buf, n->nonce);
	od_put_be32(buf + 8, n->pass);
	od_put_be32(buf + 12, 0);
}

enum od_err od_undo_next_decode(const uint8_t *buf, size_t len,
				struct od_undo_next *n)
{
	memset(n, 0, sizeof(*n));
	if (len != OD_UNDO_NEXT_LEN)
		return OD_ESHORT;
	n->nonce = od_get_be64(buf);
	n->pass = od_get_be32(buf + 8);
	if (od_get_be32(buf + 12) || n->pass < 2)
		return OD_EFIELD;
	return OD_OK;
}

int od_undo_mark_get(const uint8_t *sector, uint64_t *nonce)
{
	const uint8_t *m = sector + OD_UNDO_MARK_OFF;

	*nonce = od_get_be64(m + 8);
	if (memcmp(m, OD_UNDO_MARK_RUN, 8) == 0)
		return OD_UNDO_MARK_BY_RUN;
	if (memcmp(m, OD_UNDO_MARK_UNDO, 8) == 0)
		return OD_UNDO_MARK_BY_UNDO;
	*nonce = 0;
	return OD_UNDO_MARK_NONE;
}

void od_undo_mark_put(uint8_t *sector, int kind, uint64_t nonce)
{
	uint8_t *m = sector + OD_UNDO_MARK_OFF;

	memset(m, 0, OD_UNDO_MARK_LEN);
	if (kind == OD_UNDO_MARK_NONE)
		return;
	memcpy(m, kind == OD_UNDO_MARK_BY_RUN ? OD_UNDO_MARK_RUN :
	       OD_UNDO_MARK_UNDO, 8);
	od_put_be64(m + 8, nonce);
}

void od_undo_move_encode(const struct od_undo_move *m, uint8_t *p)
{
	od_put_be64(p, m->x);
	od_put_be64(p + 8, m->y);
	od_put_be32(p + 16, m->n);
	od_put_be32(p + 20, 0);
}

void od_undo_move_decode(const uint8_t *p, struct od_undo_move *m)
{
	m->x = od_get_be64(p);
	m->y = od_get_be64(p + 8);
	m->n = od_get_be32(p + 16);
}

void od_undo_ref_encode(const struct od_undo_ref *r, uint8_t *p)
{
	od_put_be64(p, r->block);
	od_put_be64(p + 8, r->copy);
	od_put_be32(p + 16, r->n);
	od_put_be32(p + 20, r->crc);
}

void od_undo_ref_decode(const uint8_t *p, struct od_undo_ref *r)
{
	r->block = od_get_be64(p);
	r->copy = od_get_be64(p + 8);
	r->n = od_get_be32(p + 16);
	r->crc = od_get_be32(p + 20);
}

void od_undo_prf_run_encode(uint64_t block, uint32_t n, uint8_t *p)
{
	od_put_be64(p, block);
	od_put_be32(p + 8, n);
	od_put_be32(p + 12, 0);
}

void od_undo_prf_run_decode(const uint8_t *p, uint64_t *block, uint32_t *n)
{
	*block = od_get_be64(p);
	*n = od_get_be32(p + 8);
}

void od_undo_prf_crc_put(uint8_t *p, uint32_t crc)
{
	od_put_be32(p, crc);
}

uint32_t od_undo_prf_crc_get(const uint8_t *p)
{
	return od_get_be32(p);
}

