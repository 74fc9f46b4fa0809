/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo file of a relocation run (our own format, not XFS's): a
 * 4096-byte header naming the filesystem, then records holding the
 * original bytes of image ranges, then the proof of the state the run
 * left (block checksums, moves, a seal), then an end record when the run
 * completed.  Everything big-endian.  CRCs are CRC-32C (initial value
 * ~0, result inverted) stored big-endian.  Specified for users in
 * xfsdefrag(8), "UNDO FILE"; the offsets are pinned below.
 *
 * Header (OD_UNDO_HDR_LEN bytes):
 *     0  magic "XFSDFUND"          8
 *     8  version (4; 1-3 are read) 4
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
 *    96  log: byte offset          8   v2: the internal log, as the run
 *   104  log: length, bytes        8   began (0: none to check)
 *   112  log: crc32c of its bytes  4
 *   116  superblock crc           4   v3: crc32c of the superblock sector
 *                                      as the run began
 *   120  zero                      8
 *   128  image path as given    1024   NUL-padded, at most 1023 bytes
 *  1152  pass                      4   v3: the pass of a run in passes
 *                                      whose file this is (1: the first,
 *                                      or a run in one pass)
 *  1156  zero                      4
 *  1160  chain                     8   v3: pass 1's nonce (pass 1: its own)
 *  1168  previous nonce            8   v3: pass - 1's file: its nonce,
 *  1176  previous seal crc         4   and the crc32c of its seal
 *                                      record's data (pass 1: both 0)
 *  1180  zero                   2912
 *  4092  crc32c of bytes 0..4091   4
 *
 * Record header (OD_UNDO_REC_LEN bytes), followed by len data bytes:
 *     0  magic "UREC" data, "UREF" references, "UPRF" proof, "UMOV"
 *        moves, "USEA" seal, "UEND" end, "UNXT" next   4
 *     4  len                       4   data bytes (UEND: 0)
 *     8  seq                       8   0, 1, 2, ... (UEND: record count)
 *    16  offset in the image       8   (UEND: total UREC data bytes;
 *                                      UREF, UPRF, UMOV, USEA, UNXT: 0)
 *    24  batch                     8   seq of the first record appended
 *                                      since the journal was last fsync'd
 *                                      (UEND, UNXT: its own seq)
 *    32  crc32c of the data        4
 *    36  crc32c of nonce (8 bytes, big-endian) then bytes 0..35   4
 *
 * Version 3: record 0 is written with the header, in one write, and
 * synced before the run writes the image: the original of block 0
 * (UREC at offset 0).  A v3 file without it is cut short.
 *
 * UREF data (v4): entries of [block be64, copy be64, count be32, crc32c
 * of the count original blocks be32] (OD_UNDO_REF_ENT bytes): the
 * originals of blocks [block, block+count), which the run overwrote,
 * are the bytes it had written at [copy, copy+count) and not written
 * since.  A later UREC holding any of those blocks supersedes the entry
 * (the run was about to write the copy): a block's latest record counts.
 * Undo copies the live entries back, last first, after the UMOV copies
 * and before any UREC's bytes.
 *
 * UPRF data: runs of [first linear block be64, count be32, zero be32,
 * count crc32c be32], the blocks as the run left them (block 0 with its
 * first sector taken as zeros: the superblock is checked on its own).
 * UMOV data: entries of [block be64, copy be64, count be32, zero be32]:
 * blocks the run vacated whose original bytes are the bytes it left at
 * the copy.  USEA data (OD_UNDO_SEAL_LEN): crc32c of the superblock
 * sector as the run leaves it be32, zero be32, proof blocks be64, move
 * blocks be64, data bytes before the seal be64, zero 32.
 * UNXT data (OD_UNDO_NEXT_LEN, v3): the next pass's file began: its
 * nonce be64, its pass be32, zero be32.  Appended after UEND (seq: the
 * end record's + 1) by the next pass before its first image write; a
 * torn UNXT is none (the next pass had not written yet).
 *
 * While a run or an undo is writing, the primary superblock has
 * NEEDSREPAIR set and, at OD_UNDO_MARK_OFF of its sector, a mark: magic
 * "XFSDFRUN" (a run) or "XFSDFUDO" (an undo), 8 bytes, then the undo
 * file's nonce be64.  The sector's crc covers it; the run's last
 * write and the undo's last write leave those bytes zero.
 */
#ifndef OD_UNDO_H
#define OD_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"

#define OD_UNDO_MAGIC		"XFSDFUND"
#define OD_UNDO_VERSION		4
#define OD_UNDO_VERSION_MIN	1	/* read, then refused by undo */
#define OD_UNDO_VERSION_CHAIN	3	/* first with the chain fields */
#define OD_UNDO_VERSION_REF	4	/* first with reference records */
#define OD_UNDO_HDR_LEN		4096
#define OD_UNDO_PATH_OFF	128
#define OD_UNDO_PATH_LEN	1024
#define OD_UNDO_CHAIN_OFF	1152
#define OD_UNDO_HDR_CRC_OFF	4092

#define OD_UNDO_REC_MAGIC	0x55524543u	/* "UREC" */
#define OD_UNDO_END_MAGIC	0x55454e44u	/* "UEND" */
#define OD_UNDO_PRF_MAGIC	0x55505246u	/* "UPRF" */
#define OD_UNDO_MOV_MAGIC	0x554d4f56u	/* "UMOV" */
#define OD_UNDO_SEA_MAGIC	0x55534541u	/* "USEA" */
#define OD_UNDO_NXT_MAGIC	0x554e5854u	/* "UNXT" */
#define OD_UNDO_REF_MAGIC	0x55524546u	/* "UREF" */
#define OD_UNDO_SEAL_LEN	64
#define OD_UNDO_NEXT_LEN	16
#define OD_UNDO_MOV_ENT		24
#define OD_UNDO_REF_ENT		24
#define OD_UNDO_PRF_RUNHDR	16
#define OD_UNDO_MARK_OFF	480	/* in the superblock sector */
#define OD_UNDO_MARK_LEN	16
#define OD_UNDO_MARK_RUN	"XFSDFRUN"
#define OD_UNDO_MARK_UNDO	"XFSDFUDO"
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
	uint64_t log_off, log_len;	/* v2 */
	uint32_t log_crc;
	uint32_t sb_crc;		/* v3 (0 before) */
	char path[OD_UNDO_PATH_LEN];	/* NUL-terminated */
	/* v3: the chain of a run in passes (pass 0 before v3) */
	uint32_t pass;
	uint64_t chain;
	uint64_t prev_nonce;
	uint32_t prev_seal;
};

enum od_undo_kind { OD_UNDO_DATA, OD_UNDO_END, OD_UNDO_PROOF, OD_UNDO_MOVES,
		    OD_UNDO_SEAL, OD_UNDO_NEXT, OD_UNDO_REFS };

struct od_undo_rec {
	enum od_undo_kind kind;
	bool end;		/* UEND (kind == OD_UNDO_END) */
	uint32_t len;
	uint64_t seq;
	uint64_t off;
	uint64_t batch;
	uint32_t dcrc;
};

struct od_undo_seal {
	uint32_t sb_crc;
	uint64_t proof_blocks, move_blocks;
	uint64_t data_bytes;
};

/* CRC-32C of a buffer as the undo file stores it (~0 seed, inverted). */
uint32_t od_undo_crc(const void *buf, size_t len);

/* Encode into buf (OD_UNDO_HDR_LEN bytes), crc included; version 0 is
 * the current one (tests write older ones). */
void od_undo_hdr_encode(const struct od_undo_hdr *h, uint8_t *buf);
/*
 * Decode and verify: magic, crc, version, header length, sane geometry
 * (power-of-two block and sector sizes, nonzero counts) and, from v3, a
 * chain that holds together (pass 1 is its own chain and has no
 * previous file; a later pass has one).  *field names what failed.
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

void od_undo_seal_encode(const struct od_undo_seal *s, uint8_t *buf);
/* OD_ESHORT unless len == OD_UNDO_SEAL_LEN; OD_EFIELD if padding is set. */
enum od_err od_undo_seal_decode(const uint8_t *buf, size_t len,
				struct od_undo_seal *s);

/* The UNXT record's data: the next pass's file. */
struct od_undo_next {
	uint64_t nonce;
	uint32_t pass;
};
void od_undo_next_encode(const struct od_undo_next *n, uint8_t *buf);
/* OD_ESHORT unless len == OD_UNDO_NEXT_LEN; OD_EFIELD if padding is set
 * or pass < 2. */
enum od_err od_undo_next_decode(const uint8_t *buf, size_t len,
				struct od_undo_next *n);

/* Superblock marks (kind: 0 none, 1 run, 2 undo). */
enum { OD_UNDO_MARK_NONE, OD_UNDO_MARK_BY_RUN, OD_UNDO_MARK_BY_UNDO };
/* The mark in a superblock sector (sectlen >= 512), and its nonce. */
int od_undo_mark_get(const uint8_t *sector, uint64_t *nonce);
/* Write (or with OD_UNDO_MARK_NONE clear) the mark; no crc, no flag. */
void od_undo_mark_put(uint8_t *sector, int kind, uint64_t nonce);

/* A move record's entry (OD_UNDO_MOV_ENT bytes): n blocks from x to y. */
struct od_undo_move {
	uint64_t x, y;
	uint32_t n;
};
void od_undo_move_encode(const struct od_undo_move *m, uint8_t *p);
void od_undo_move_decode(const uint8_t *p, struct od_undo_move *m);
/* A reference record's entry (OD_UNDO_REF_ENT bytes): the originals of
 * blocks [block, block+n) are at [copy, copy+n); crc: of those n blocks. */
struct od_undo_ref {
	uint64_t block, copy;
	uint32_t n, crc;
};
void od_undo_ref_encode(const struct od_undo_ref *r, uint8_t *p);
void od_undo_ref_decode(const uint8_t *p, struct od_undo_ref *r);
/*
 * A proof record is runs: a header (OD_UNDO_PRF_RUNHDR bytes: first block,
 * count) then count crc32c words, one per block.
 */
void od_undo_prf_run_encode(uint64_t block, uint32_t n, uint8_t *p);
void od_undo_prf_run_decode(const uint8_t *p, uint64_t *block, uint32_t *n);
void od_undo_prf_crc_put(uint8_t *p, uint32_t crc);
uint32_t od_undo_prf_crc_get(const uint8_t *p);

#endif
