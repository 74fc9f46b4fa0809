/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/bmbt.h"
#include "ondisk/be.h"
#include "ondisk/btree.h"

void od_bmbt_rec_pack(const struct od_irec *r, uint8_t *p)
{
	uint64_t l0, l1;

	l0 = (uint64_t)r->unwritten << 63 |
	     (r->startoff & ((1ull << 54) - 1)) << 9 |
	     (r->startblock & ((1ull << 52) - 1)) >> 43;
	l1 = (r->startblock & ((1ull << 43) - 1)) << 21 |
	     (r->blockcount & ((1u << 21) - 1));
	od_put_be64(p, l0);
	od_put_be64(p + 8, l1);
}

enum od_err od_bmdr_decode(const uint8_t *fork, size_t len,
			   struct od_bmdr *root, const char **field)
{
	*field = "bmdr";
	if (len < OD_BMDR_HDR_LEN + 16)
		return OD_ESHORT;
	root->level = od_get_be16(fork);
	root->numrecs = od_get_be16(fork + 2);
	/* xfs_bmdr_maxrecs: key (8) + ptr (8) per slot */
	root->maxrecs = (uint32_t)((len - OD_BMDR_HDR_LEN) / 16);
	*field = "bmdr level";
	if (root->level == 0 || root->level >= OD_BTREE_MAXLEVELS_ANY)
		return OD_EFIELD;
	*field = "bmdr numrecs";
	if (root->numrecs == 0 || root->numrecs > root->maxrecs)
		return OD_EFIELD;
	*field = NULL;
	return OD_OK;
}

void od_bmdr_encode(const struct od_bmdr *root, uint8_t *fork)
{
	od_put_be16(fork, root->level);
	od_put_be16(fork + 2, root->numrecs);
}

uint64_t od_bmdr_key(const uint8_t *fork, uint32_t i)
{
	return od_get_be64(fork + OD_BMDR_HDR_LEN + 8 * (size_t)i);
}

uint64_t od_bmdr_ptr(const uint8_t *fork, const struct od_bmdr *root,
		     uint32_t i)
{
	return od_get_be64(fork + OD_BMDR_HDR_LEN + 8 * (size_t)root->maxrecs +
			   8 * (size_t)i);
}

void od_bmdr_set_ptr(uint8_t *fork, const struct od_bmdr *root, uint32_t i,
		     uint64_t fsbno)
{
	od_put_be64(fork + OD_BMDR_HDR_LEN + 8 * (size_t)root->maxrecs +
		    8 * (size_t)i, fsbno);
}

void od_bmbt_key_encode(uint64_t startoff, uint8_t *p)
{
	od_put_be64(p, startoff);
}
