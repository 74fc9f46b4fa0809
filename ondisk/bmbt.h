/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File extent records (xfs_format.h: xfs_bmbt_rec, 128 bits packed) and the
 * bmap btree root that lives in an inode fork (struct xfs_bmdr_block).
 */
#ifndef OD_BMBT_H
#define OD_BMBT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/be.h"
#include "ondisk/err.h"

#define OD_BMBT_REC_LEN		16
#define OD_BMDR_HDR_LEN		4
#define OD_MAX_EXTLEN		((1u << 21) - 1)

/* One unpacked extent (struct xfs_bmbt_irec). */
struct od_irec {
	uint64_t startoff;	/* file offset, fs blocks (54 bits) */
	uint64_t startblock;	/* packed fsbno (52 bits) */
	uint32_t blockcount;	/* 21 bits */
	bool unwritten;		/* bit 127 */
};

/*
 * Unpack the 16-byte record at p: flag:1 startoff:54 startblock:52 count:21.
 * Inline: the scan unpacks every extent of every file.
 */
static inline void od_bmbt_rec_unpack(const uint8_t *p, struct od_irec *r)
{
	uint64_t l0 = od_get_be64(p), l1 = od_get_be64(p + 8);

	r->unwritten = (l0 >> 63) != 0;
	r->startoff = (l0 & ((1ull << 63) - 1)) >> 9;
	r->startblock = (l0 & ((1ull << 9) - 1)) << 43 | l1 >> 21;
	r->blockcount = (uint32_t)(l1 & ((1ull << 21) - 1));
}
void od_bmbt_rec_pack(const struct od_irec *r, uint8_t *p);

/* In-inode bmap btree root: level, numrecs, then keys and pointers. */
struct od_bmdr {
	uint16_t level;
	uint16_t numrecs;
	uint32_t maxrecs;	/* slots, from the fork size */
};

enum od_err od_bmdr_decode(const uint8_t *fork, size_t len,
			   struct od_bmdr *root, const char **field);
/* Write the root's level and numrecs (keys and pointers: below). */
void od_bmdr_encode(const struct od_bmdr *root, uint8_t *fork);

/* The most slots a root can have (a 2 KiB inode's whole literal area). */
#define OD_BMDR_MAXPTRS		128

/* Key (startoff) and child pointer (fsbno) of slot i of the root. */
uint64_t od_bmdr_key(const uint8_t *fork, uint32_t i);
uint64_t od_bmdr_ptr(const uint8_t *fork, const struct od_bmdr *root,
		     uint32_t i);
void od_bmdr_set_ptr(uint8_t *fork, const struct od_bmdr *root, uint32_t i,
		     uint64_t fsbno);

/* A bmbt key (struct xfs_bmbt_key): the file offset, 8 bytes. */
#define OD_BMBT_KEY_LEN		8
void od_bmbt_key_encode(uint64_t startoff, uint8_t *p);

/* The root's keys in place: 8-byte startoffs, as in bmbt node blocks. */
static inline const uint8_t *od_bmdr_keys(const uint8_t *fork)
{
	return fork + OD_BMDR_HDR_LEN;
}

#endif
