/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo file of a relocation run (our own format, not XFS's): a
 * 4096-byte header naming the filesystem, then records holding the
 * original bytes of image ranges, then an end record when the run
 * completed.  Everything big-endian.  CRCs are CRC-32C (initial value
 * ~0, result inverted) stored big-endian.  Specified for users in
 * xfsdefrag(8), "UNDO FILE"; the offsets are pinned below.
 *
 * Header (OD_UNDO_HDR_LEN bytes):
 *     0  magic "XFSDFUND"          8
 *     8  version (1)               4
 *    12  header length (4096)      4
 *    16  nonce                     8   random; seeds every record's crc
 *    24  sb_uuid                  16
 *    40  sb_meta_uuid             16
 *    56  dblocks                   8
 *    64  blocksize                 4
 *    68  sectsize                  4
 *    72  agblocks                  4
 *    76  agcount                   4
 *    80  image size, bytes         8
 *    88  created, unix seconds     8
 *    96  zero                     32
 *   128  image path as given    1024   NUL-padded, at most 1023 bytes
 *  1152  zero                   2940
 *  4092  crc32c of bytes 0..4091   4
 *
 * Record header (OD_UNDO_REC_LEN bytes), followed by len data bytes:
 *     0  magic "UREC" or "UEND"    4
 *     4  len                       4   data bytes (UEND: 0)
 *     8  seq                       8   0, 1, 2, ... (UEND: record count)
 *    16  offset in the image       8   (UEND: total data bytes)
 *    24  batch                     8   seq of the first record appended
 *                                      since the journal was last fsync'd
 *                                      (UEND: its own seq)
 *    32  crc32c of the data        4
 *    36  crc32c of nonce (8 bytes, big-endian) then bytes 0..35   4
 */
#ifndef OD_UNDO_H
#define OD_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"

#define OD_UNDO_MAGIC		"XFSDFUND"
#define OD_UNDO_VERSION		1
#define OD_UNDO_HDR_LEN		4096
#define OD_UNDO_PATH_OFF	128
#define OD_UNDO_PATH_LEN	1024
#define OD_UNDO_HDR_CRC_OFF	4092

#define OD_UNDO_REC_MAGIC	0x55524543u	/* "UREC" */
#define OD_UNDO_END_MAGIC	0x55454e44u	/* "UEND" */
#define OD_UNDO_REC_LEN		40
#define OD_UNDO_REC_DCRC_OFF	32
#define OD_UNDO_REC_HCRC_OFF	36
/* Largest data length a reader accepts (writers use far less). */
#define OD_UNDO_REC_MAXDATA	(16u << 20)

struct od_undo_hdr {
	uint32_t version;
	uint64_t nonce;
	uint8_t uuid[16];
	uint8_t meta_uuid[16];
	uint64_t dblocks;
	uint32_t blocksize;
	uint32_t sectsize;
	uint32_t agblocks;
	uint32_t agcount;
	uint64_t image_size;
	uint64_t ctime;
	char path[OD_UNDO_PATH_LEN];	/* NUL-terminated */
};

struct od_undo_rec {
	bool end;		/* UEND */
	uint32_t len;
	uint64_t seq;
	uint64_t off;
	uint64_t batch;
	uint32_t dcrc;
};

/* CRC-32C of a buffer as the undo file stores it (~0 seed, inverted). */
uint32_t od_undo_crc(const void *buf, size_t len);

/* Encode into buf (OD_UNDO_HDR_LEN bytes), crc included. */
void od_undo_hdr_encode(const struct od_undo_hdr *h, uint8_t *buf);
/*
 * Decode and verify: magic, crc, version, header length, and sane
 * geometry (power-of-two block and sector sizes, nonzero counts).
 * *field names what failed.
 */
enum od_err od_undo_hdr_decode(const uint8_t *buf, size_t len,
			       struct od_undo_hdr *h, const char **field);

/* Encode a record header (OD_UNDO_REC_LEN bytes), header crc included. */
void od_undo_rec_encode(const struct od_undo_rec *r, uint64_t nonce,
			uint8_t *buf);
/*
 * Decode a record header: OD_EMAGIC for an unknown magic, OD_ECRC when
 * the header crc does not match (a torn or foreign record), OD_EFIELD for
 * an impossible length (*field says which).  The data crc is the
 * caller's to check.
 */
enum od_err od_undo_rec_decode(const uint8_t *buf, size_t len,
			       uint64_t nonce, struct od_undo_rec *r,
			       const char **field);

#endif
