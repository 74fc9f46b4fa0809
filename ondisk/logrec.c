/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/logrec.h"
#include "ondisk/be.h"

#include <string.h>

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

/* struct xlog_rec_header offsets (xfs_log_format.h) */
#define RH_MAGIC	0
#define RH_CYCLE	4
#define RH_VERSION	8
#define RH_LEN		12
#define RH_LSN		16
#define RH_TAIL_LSN	24
#define RH_CRC		32
#define RH_PREV_BLOCK	36
#define RH_NUM_LOGOPS	40
#define RH_CYCLE_DATA	44
#define RH_FMT		300
#define RH_UUID		304
#define RH_SIZE		320
/* struct xlog_op_header */
#define OH_TID		0
#define OH_LEN		4
#define OH_CLIENTID	8
#define OH_FLAGS	9
#define UNMOUNT_TID	0xb0c0d0d0u	/* mkfs's: written by a formatter */

void od_logrec_clear_encode(uint8_t *buf, uint32_t nbb,
			    const struct od_logrec_fmt *f, uint64_t lsn,
			    uint64_t tail_lsn)
{
	uint32_t bytes = nbb * OD_LOG_BBSIZE, hdrs = 1, i;
	uint32_t cycle = (uint32_t)(lsn >> 32);
	uint8_t *op;

	memset(buf, 0, bytes);
	if (f->version == 2 && bytes > OD_LOG_HEADER_CYCLE_SIZE)
		hdrs = (bytes + OD_LOG_HEADER_CYCLE_SIZE - 1) /
		       OD_LOG_HEADER_CYCLE_SIZE;
	od_put_be32(buf + RH_MAGIC, OD_LOG_HEADER_MAGIC);
	od_put_be32(buf + RH_CYCLE, cycle);
	od_put_be32(buf + RH_VERSION, f->version);
	od_put_be32(buf + RH_LEN, bytes - hdrs * OD_LOG_BBSIZE);
	od_put_be64(buf + RH_LSN, lsn);
	od_put_be64(buf + RH_TAIL_LSN, tail_lsn);
	od_put_be32(buf + RH_PREV_BLOCK, 0xffffffffu);
	od_put_be32(buf + RH_NUM_LOGOPS, 1);
	od_put_be32(buf + RH_FMT, OD_LOG_FMT_LINUX_LE);
	memcpy(buf + RH_UUID, f->uuid, 16);
	od_put_be32(buf + RH_SIZE, bytes > OD_LOG_HEADER_CYCLE_SIZE ? bytes :
		    OD_LOG_HEADER_CYCLE_SIZE);
	/* extension headers: xh_cycle first */
	for (i = 1; i < hdrs; i++)
		od_put_be32(buf + (size_t)i * OD_LOG_BBSIZE, cycle);
	/* the unmount operation and its 8 bytes of data */
	op = buf + (size_t)hdrs * OD_LOG_BBSIZE;
	od_put_be32(op + OH_TID, UNMOUNT_TID);
	od_put_be32(op + OH_LEN, 8);
	op[OH_CLIENTID] = OD_LOG_CLIENT_LOG;
	op[OH_FLAGS] = OD_LOG_UNMOUNT_TRANS;
	op[OD_LOG_OP_HDR_LEN] = OD_LOG_UNMOUNT_TYPE & 0xff;
	op[OD_LOG_OP_HDR_LEN + 1] = OD_LOG_UNMOUNT_TYPE >> 8;
	/* its first word moves to the cycle data, the cycle takes its place;
	 * the other blocks held zeros there, which the cycle data keeps */
	memcpy(buf + RH_CYCLE_DATA, op, 4);
	od_put_be32(op, cycle);
	for (i = hdrs + 1; i < nbb; i++)
		od_put_be32(buf + (size_t)i * OD_LOG_BBSIZE, cycle);
}
