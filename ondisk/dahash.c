/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/dahash.h"

static inline uint32_t rol32(uint32_t w, unsigned s)
{
	return (w << s) | (w >> (32 - s));
}

/* Four bytes at a time, each shifted by 7 more bits, then the tail. */
uint32_t od_da_hashname(const uint8_t *n, size_t len)
{
	uint32_t hash = 0;

	for (; len >= 4; len -= 4, n += 4)
		hash = (uint32_t)n[0] << 21 ^ (uint32_t)n[1] << 14 ^
		       (uint32_t)n[2] << 7 ^ (uint32_t)n[3] ^ rol32(hash, 7 * 4);
	switch (len) {
	case 3:
		return (uint32_t)n[0] << 14 ^ (uint32_t)n[1] << 7 ^
		       (uint32_t)n[2] ^ rol32(hash, 7 * 3);
	case 2:
		return (uint32_t)n[0] << 7 ^ (uint32_t)n[1] ^ rol32(hash, 7 * 2);
	case 1:
		return (uint32_t)n[0] ^ rol32(hash, 7 * 1);
	}
	return hash;
}

uint8_t od_ascii_ci_fold(uint8_t c)
{
	/* A-Z and the Latin-1 capitals (xfs_dir2.h: xfs_ascii_ci_need_xfrm) */
	if ((c >= 0x41 && c <= 0x5a) || (c >= 0xc0 && c <= 0xd6) ||
	    (c >= 0xd8 && c <= 0xde))
		return (uint8_t)(c + 0x20);
	return c;
}

/* One byte at a time (xfs_ascii_ci_hashname). */
uint32_t od_da_hashname_ci(const uint8_t *n, size_t len)
{
	uint32_t hash = 0;
	size_t i;

	for (i = 0; i < len; i++)
		hash = od_ascii_ci_fold(n[i]) ^ rol32(hash, 7);
	return hash;
}
