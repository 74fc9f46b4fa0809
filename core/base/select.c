/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/select.h"
#include "core/base/sort.h"

#include <errno.h>
#include <stdlib.h>

#define NBUCKET	8192	/* high-bit buckets */
#define MAXK	8	/* ranks asked at once */

/*
 * Every value of the union, as v, in body: the arrays hold four-byte or
 * eight-byte values (width), a loop for each so that neither tests the
 * width per value.
 */
#define EACH_VALUE(arr, len, narr, width, v, body)			\
	do {								\
		unsigned a_;						\
		size_t i_;						\
									\
		for (a_ = 0; a_ < (narr); a_++) {			\
			if ((width) == 4) {				\
				const uint32_t *p_ = (arr)[a_];		\
									\
				for (i_ = 0; i_ < (len)[a_]; i_++) {	\
					uint64_t v = p_[i_];		\
					body;				\
				}					\
			} else {					\
				const uint64_t *p_ = (arr)[a_];		\
									\
				for (i_ = 0; i_ < (len)[a_]; i_++) {	\
					uint64_t v = p_[i_];		\
					body;				\
				}					\
			}						\
		}							\
	} while (0)

static int select_w(const void *const *arr, unsigned width, const size_t *len,
		    unsigned narr, const uint64_t *ks, unsigned nk,
		    uint64_t *out)
{
	uint64_t max = 0, *list[MAXK] = { NULL }, rank[MAXK], *cnt;
	size_t nlist[MAXK] = { 0 };
	uint32_t bucket[MAXK];
	unsigned k, shift = 0, nb = 0, kslot[MAXK];
	uint8_t *slot;
	int ret = 0;

	if (nk > MAXK)
		return -EINVAL;
	EACH_VALUE(arr, len, narr, width, v, if (v > max) max = v);
	while ((max >> shift) >= NBUCKET)
		shift++;
	cnt = calloc(NBUCKET, sizeof(*cnt));
	slot = calloc(NBUCKET, 1);	/* bucket -> its list + 1, or 0 */
	if (!cnt || !slot) {
		ret = -ENOMEM;
		goto out;
	}
	EACH_VALUE(arr, len, narr, width, v, cnt[v >> shift]++);
	/* the bucket each rank falls in, and the rank within it */
	for (k = 0; k < nk; k++) {
		uint64_t below = 0;
		uint32_t b = 0;

		while (b + 1 < NBUCKET && below + cnt[b] < ks[k])
			below += cnt[b++];
		rank[k] = ks[k] - below;
		if (!slot[b]) {
			bucket[nb] = b;
			slot[b] = (uint8_t)++nb;
		}
		kslot[k] = slot[b] - 1u;
	}
	for (k = 0; k < nb; k++) {
		list[k] = malloc((cnt[bucket[k]] ? cnt[bucket[k]] : 1) *
				 sizeof(**list));
		if (!list[k]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	EACH_VALUE(arr, len, narr, width, v, {
		unsigned s = slot[v >> shift];

		if (s)
			list[s - 1][nlist[s - 1]++] = v;
	});
	for (k = 0; k < nb && !ret; k++)
		ret = sort_u64(list[k], nlist[k]);
	for (k = 0; k < nk && !ret; k++) {
		size_t r = (size_t)rank[k];

		/* a rank past the values (a caller's error): the largest */
		if (r > nlist[kslot[k]])
			r = nlist[kslot[k]];
		out[k] = r ? list[kslot[k]][r - 1] : 0;
	}
out:
	for (k = 0; k < nb; k++)
		free(list[k]);
	free(cnt);
	free(slot);
	return ret;
}

int select_u64(const uint64_t *const *arr, const size_t *len, unsigned narr,
	       const uint64_t *ks, unsigned nk, uint64_t *out)
{
	return select_w((const void *const *)arr, 8, len, narr, ks, nk, out);
}

int select_u32(const uint32_t *const *arr, const size_t *len, unsigned narr,
	       const uint64_t *ks, unsigned nk, uint64_t *out)
{
	return select_w((const void *const *)arr, 4, len, narr, ks, nk, out);
}

static int select_pct_w(const void *const *arr, unsigned width,
			const size_t *len, unsigned narr, const unsigned *pct,
			unsigned npct, uint64_t *out)
{
	uint64_t total = 0, ks[MAXK];
	unsigned a, k;

	if (npct > MAXK)
		return -EINVAL;
	for (a = 0; a < narr; a++)
		total += len[a];
	for (k = 0; k < npct; k++) {
		out[k] = 0;
		ks[k] = (uint64_t)(((unsigned __int128)total * pct[k] + 99) /
				   100);
		if (!ks[k])
			ks[k] = 1;
	}
	if (!total)
		return 0;
	return select_w(arr, width, len, narr, ks, npct, out);
}

int select_pct_u64(const uint64_t *const *arr, const size_t *len,
		   unsigned narr, const unsigned *pct, unsigned npct,
		   uint64_t *out)
{
	return select_pct_w((const void *const *)arr, 8, len, narr, pct, npct,
			    out);
}

int select_pct_u32(const uint32_t *const *arr, const size_t *len,
		   unsigned narr, const unsigned *pct, unsigned npct,
		   uint64_t *out)
{
	return select_pct_w((const void *const *)arr, 4, len, narr, pct, npct,
			    out);
}
