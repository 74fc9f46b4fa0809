/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef OD_CRC32C_H
#define OD_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Raw CRC-32C update (no pre/post inversion). */
uint32_t od_crc32c(uint32_t crc, const void *buf, size_t len);
/*
 * For tests: od_crc32c by one implementation, *crc updated; -ENOTSUP
 * when this CPU lacks it.  The folding ones (carry-less multiplication)
 * take whole 64- or 16-byte steps and leave the rest to crc32.
 */
enum { OD_CRC_TABLE, OD_CRC_INSN, OD_CRC_PCLMUL, OD_CRC_VPCLMUL };
int od_crc32c_by(int impl, uint32_t *crc, const void *buf, size_t len);
/* od_crc32c over len zero bytes, in time logarithmic in len. */
uint32_t od_crc32c_zeros(uint32_t crc, uint64_t len);

/* XFS checksum of buf[0..len) with the 4-byte field at crc_off zeroed. */
uint32_t od_cksum(const uint8_t *buf, size_t len, size_t crc_off);
/* Does the stored checksum at crc_off match?  False if crc_off is out of range. */
bool od_cksum_ok(const uint8_t *buf, size_t len, size_t crc_off);
/* od_cksum_ok of three structures of the same length at once (faster). */
void od_cksum3(const uint8_t *const buf[3], size_t len, size_t crc_off,
	       bool ok[3]);
/* Compute and store the checksum at crc_off. */
void od_cksum_set(uint8_t *buf, size_t len, size_t crc_off);

#endif
