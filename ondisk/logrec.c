/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/logrec.h"
#include "ondisk/be.h"

bool od_log_is_rec_hdr(const uint8_t *bb, size_t len)
{
	return len >= 4 && od_get_be32(bb) == OD_LOG_HEADER_MAGIC;
}

uint32_t od_log_block_cycle(const uint8_t *bb, size_t len)
{
	if (len < 8)
		return 0;
	return od_get_be32(od_log_is_rec_hdr(bb, len) ? bb + 4 : bb);
}

enum od_err od_logrec_hdr_decode(const uint8_t *bb, size_t len,
				 struct od_logrec_hdr *h)
{
	if (len < OD_LOG_REC_HDR_LEN)
		return OD_ESHORT;
	h->magic = od_get_be32(bb);
	if (h->magic != OD_LOG_HEADER_MAGIC)
		return OD_EMAGIC;
	h->cycle = od_get_be32(bb + 4);
	h->version = od_get_be32(bb + 8);
	h->len = od_get_be32(bb + 12);
	h->num_logops = od_get_be32(bb + 40);
	/* h_cycle_data[64] at 44, h_fmt at 300, h_fs_uuid at 304 */
	h->size = od_get_be32(bb + 320);
	h->hblks = 1;
	if (h->version == 2 && h->size > OD_LOG_HEADER_CYCLE_SIZE)
		h->hblks = (h->size + OD_LOG_HEADER_CYCLE_SIZE - 1) /
			   OD_LOG_HEADER_CYCLE_SIZE;
	return OD_OK;
}

enum od_err od_logop_hdr_decode(const uint8_t *p, size_t len,
				struct od_logop_hdr *op)
{
	if (len < OD_LOG_OP_HDR_LEN)
		return OD_ESHORT;
	op->tid = od_get_be32(p);
	op->len = od_get_be32(p + 4);
	op->clientid = p[8];
	op->flags = p[9];
	return OD_OK;
}
