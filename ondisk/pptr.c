/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/pptr.h"
#include "ondisk/be.h"
#include "ondisk/dahash.h"

#include <string.h>

bool od_pptr_decode(const uint8_t *val, size_t len, struct od_pptr_rec *r)
{
	if (len != OD_PPTR_REC_LEN)
		return false;
	r->ino = od_get_be64(val);
	r->gen = od_get_be32(val + 8);
	return true;
}

void od_pptr_encode(uint8_t *val, const struct od_pptr_rec *r)
{
	od_put_be64(val, r->ino);
	od_put_be32(val + 8, r->gen);
}

uint32_t od_pptr_hash(const uint8_t *name, size_t len, uint64_t parent,
		      bool asciici)
{
	uint32_t h = asciici ? od_da_hashname_ci(name, len) :
			       od_da_hashname(name, len);

	return h ^ (uint32_t)(parent >> 32) ^ (uint32_t)parent;
}

bool od_pptr_name_ok(const uint8_t *name, size_t len)
{
	return len > 0 && len < OD_MAXNAMELEN && !memchr(name, '/', len) &&
	       !memchr(name, 0, len);
}
