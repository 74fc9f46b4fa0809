/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/sort.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * 11-bit digits for large arrays; small ones (a directory's entries)
 * take 8-bit digits, where clearing and summing 2048 counters would
 * cost more than moving the values.  Only as many passes as the largest
 * value needs, and none for a digit all values share.
 */
#define DIGIT_BIG	11
#define DIGIT_SMALL	8
#define SMALL		(1u << 14)

/*
 * The first place of each digit (bits shift.. of v, masked) in the
 * next pass's output: count[d] for buckets digits.  False when one
 * digit holds every value: the pass would leave the order as it is.
 */
static bool digit_places(const uint64_t *v, size_t n, unsigned shift,
			 uint64_t mask, size_t *count, size_t buckets)
{
	size_t i, sum = 0;

	memset(count, 0, buckets * sizeof(count[0]));
	for (i = 0; i < n; i++)
		count[(v[i] >> shift) & mask]++;
	if (count[(v[0] >> shift) & mask] == n)
		return false;
	for (i = 0; i < buckets; i++) {
		size_t c = count[i];

		count[i] = sum;
		sum += c;
	}
	return true;
}

int sort_u64_from(uint64_t *v, size_t n, unsigned from)
{
	uint64_t max = 0, *tmp, *src = v, *dst;
	size_t count[1u << DIGIT_BIG], i;
	unsigned shift, digit = n < SMALL ? DIGIT_SMALL : DIGIT_BIG;
	size_t buckets = (size_t)1 << digit;
	uint64_t mask = buckets - 1;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	if (n < 2 || from >= 64 || (max >> from) == 0)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (shift = from; shift < 64 && (max >> shift); shift += digit) {
		uint64_t *t;

		if (!digit_places(src, n, shift, mask, count, buckets))
			continue;	/* one digit for all: order stands */
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return 0;
}

int sort_u64(uint64_t *v, size_t n)
{
	return sort_u64_from(v, n, 0);
}

/*
 * Radix passes over (key, index) pairs, stable: idx[] comes back in key
 * order (key[i] is the key of idx[i]; both reordered).
 */
static int order_by_key(uint64_t *key, uint32_t *idx, size_t n)
{
	uint64_t max = 0, *ksrc = key, *kdst, *kt;
	uint32_t *isrc = idx, *idst, *it;
	size_t count[1u << DIGIT_BIG], i;
	unsigned shift, digit = n < SMALL ? DIGIT_SMALL : DIGIT_BIG;
	size_t buckets = (size_t)1 << digit;
	uint64_t mask = buckets - 1;
	bool sorted = true;
	void *tmp;

	for (i = 0; i < n; i++) {
		if (key[i] > max)
			max = key[i];
		if (i && key[i - 1] > key[i])
			sorted = false;
	}
	if (sorted)
		return 0;	/* often: the input was built in this order */
	tmp = malloc(n * (sizeof(*key) + sizeof(*idx)));
	if (!tmp)
		return -ENOMEM;
	kdst = tmp;
	idst = (uint32_t *)(kdst + n);
	for (shift = 0; shift < 64 && (max >> shift); shift += digit) {
		if (!digit_places(ksrc, n, shift, mask, count, buckets))
			continue;	/* one digit for all: order stands */
		for (i = 0; i < n; i++) {
			size_t at = count[(ksrc[i] >> shift) & mask]++;

			kdst[at] = ksrc[i];
			idst[at] = isrc[i];
		}
		kt = ksrc;
		ksrc = kdst;
		kdst = kt;
		it = isrc;
		isrc = idst;
		idst = it;
	}
	if (ksrc != key) {
		memcpy(key, ksrc, n * sizeof(*key));
		memcpy(idx, isrc, n * sizeof(*idx));
	}
	free(tmp);
	return 0;
}

/* Copy one element (constant sizes inline: most callers' are). */
static inline void put(unsigned char *dst, const unsigned char *src,
		       size_t size)
{
	switch (size) {
	case 8:
		memcpy(dst, src, 8);
		break;
	case 16:
		memcpy(dst, src, 16);
		break;
	case 24:
		memcpy(dst, src, 24);
		break;
	case 32:
		memcpy(dst, src, 32);
		break;
	default:
		memcpy(dst, src, size);
	}
}

int sort_by_fields(void *base, size_t n, size_t size, unsigned nfields,
		   sort_key_fn key_of, const void *arg)
{
	unsigned char *b = base, *copy = NULL;
	uint64_t *key = NULL;
	uint32_t *idx = NULL;
	size_t i;
	unsigned f;
	int ret = 0;

	if (n < 2 || !nfields)
		return 0;
	if (n > UINT32_MAX || size > SIZE_MAX / n)
		return -E2BIG;
	key = malloc(n * sizeof(*key));
	idx = malloc(n * sizeof(*idx));
	copy = malloc(n * size);
	if (!key || !idx || !copy) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	/* least significant field first: each pass keeps the order of ties */
	for (f = nfields; f-- > 0 && !ret;) {
		for (i = 0; i < n; i++)
			key[i] = key_of(b + (size_t)idx[i] * size, f, arg);
		ret = order_by_key(key, idx, n);
	}
	if (ret)
		goto out;
	/*
	 * Gathered into a copy (as much memory as qsort's merge takes):
	 * the reads do not wait on each other, where moving the elements
	 * in place along the permutation's cycles waits a cache miss per
	 * step on a large array.
	 */
	for (i = 0; i < n; i++)
		put(copy + i * size, b + (size_t)idx[i] * size, size);
	memcpy(b, copy, n * size);
out:
	free(key);
	free(idx);
	free(copy);
	return ret;
}
