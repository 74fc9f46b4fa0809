/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Explicit big-/little-endian accessors over byte buffers.  Callers check
 * the buffer length first; these never cast structs over disk bytes.
 */
#ifndef OD_BE_H
#define OD_BE_H

#include <stdint.h>

static inline uint16_t od_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t od_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t od_get_be64(const uint8_t *p)
{
	return (uint64_t)od_get_be32(p) << 32 | od_get_be32(p + 4);
}

static inline uint32_t od_get_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

static inline void od_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void od_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void od_put_be64(uint8_t *p, uint64_t v)
{
	od_put_be32(p, (uint32_t)(v >> 32));
	od_put_be32(p + 4, (uint32_t)v);
}

static inline void od_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

#endif
