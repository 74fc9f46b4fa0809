/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Order statistics of integers without sorting them: the values that given
 * ranks would hold if the arrays were sorted together.  Two passes over
 * the values (a histogram of their high bits, then the values of the
 * buckets the ranks fall in) and a sort of those buckets only.
 */
#ifndef CORE_SELECT_H
#define CORE_SELECT_H

#include <stddef.h>
#include <stdint.h>

/*
 * out[i]: the value of rank ks[i] (1 = the smallest) of the union of
 * arr[0..narr), each of len[a] values, which stay as they are.  Each
 * ks[i] must be in [1, total].  0 or -ENOMEM.
 */
int select_u64(const uint64_t *const *arr, const size_t *len, unsigned narr,
	       const uint64_t *ks, unsigned nk, uint64_t *out);

/*
 * The nearest-rank percentile pctile (1..100) of the union: the smallest
 * value with at least ceil(total * pctile / 100) of them at or below it,
 * 0 for no values.  0 or -ENOMEM.
 */
int select_pct_u64(const uint64_t *const *arr, const size_t *len,
		   unsigned narr, const unsigned *pct, unsigned npct,
		   uint64_t *out);

/* The same over arrays of four-byte values. */
int select_u32(const uint32_t *const *arr, const size_t *len, unsigned narr,
	       const uint64_t *ks, unsigned nk, uint64_t *out);
int select_pct_u32(const uint32_t *const *arr, const size_t *len,
		   unsigned narr, const unsigned *pct, unsigned npct,
		   uint64_t *out);

#endif
