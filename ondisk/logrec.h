/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log, as far as telling a clean one from a dirty one needs
 * (xfs_log_format.h): a ring of 512-byte basic blocks, each stamped with
 * the cycle in which it was written, either in its first word or, for a
 * record header (magic XLOG_HEADER_MAGIC_NUM), in h_cycle; a record
 * header, and the header of the first operation in a record.
 */
#ifndef OD_LOGREC_H
#define OD_LOGREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"

#define OD_LOG_BBSIZE		512
#define OD_LOG_HEADER_MAGIC	0xfeedbabeu
#define OD_LOG_HEADER_CYCLE_SIZE (32 * 1024)	/* v2: data per header block */
#define OD_LOG_REC_HDR_LEN	324		/* through h_size */
#define OD_LOG_OP_HDR_LEN	12
#define OD_LOG_UNMOUNT_TRANS	0x20		/* op flag: the unmount record */

/* struct xlog_rec_header: the fields we use */
struct od_logrec_hdr {
	uint32_t magic;
	uint32_t cycle;
	uint32_t version;	/* 1 or 2 */
	uint32_t len;		/* bytes of log data after the header */
	uint32_t num_logops;
	uint32_t size;		/* v2: iclog size, so header blocks = size / 32k */
	uint32_t hblks;		/* basic blocks the header itself takes */
};

/* struct xlog_op_header */
struct od_logop_hdr {
	uint32_t tid;
	uint32_t len;
	uint8_t clientid;
	uint8_t flags;
};

/* What a formatted (clean) log's records carry. */
struct od_logrec_fmt {
	uint32_t version;	/* 2 for v2 logs, else 1 */
	uint8_t uuid[16];	/* sb_uuid */
};

#define OD_LOG_FMT_LINUX_LE	1	/* h_fmt: the byte order of op data */
#define OD_LOG_CLIENT_LOG	0xaa	/* XFS_LOG: the log's own operations */
#define OD_LOG_UNMOUNT_TYPE	0x556e	/* "Un" */
#define OD_LOG_MIN_RECORD_BBS	2	/* a header and a data block */

static inline uint64_t od_log_lsn(uint32_t cycle, uint32_t block)
{
	return (uint64_t)cycle << 32 | block;
}

/*
 * One log record of nbb basic blocks (nbb >= 2) at buf (nbb * 512
 * bytes), as mkfs and xfs_repair format a log (libxfs_log_header): a
 * record header (v2: with extension headers when the record holds more
 * than 32 KiB), a single unmount operation, and every block after the
 * header stamped with the record's cycle (the first word each displaced
 * block held goes to the header's cycle data).  lsn names the record
 * (its cycle and block in the log), tail_lsn the oldest record still
 * needed.  h_crc is left 0, which the kernel accepts from mkfs; h_fmt
 * says little-endian, and the unmount record's magic is written so.
 */
void od_logrec_clear_encode(uint8_t *buf, uint32_t nbb,
			    const struct od_logrec_fmt *f, uint64_t lsn,
			    uint64_t tail_lsn);

/* Does this basic block start a record header? */
bool od_log_is_rec_hdr(const uint8_t *bb, size_t len);
/* The cycle a basic block was written in (header or not); 0 if short. */
uint32_t od_log_block_cycle(const uint8_t *bb, size_t len);

/* Decode a record header; OD_EMAGIC if bb does not hold one. */
enum od_err od_logrec_hdr_decode(const uint8_t *bb, size_t len,
				 struct od_logrec_hdr *h);
/* Decode the operation header at the start of a record's data. */
enum od_err od_logop_hdr_decode(const uint8_t *p, size_t len,
				struct od_logop_hdr *op);

#endif
