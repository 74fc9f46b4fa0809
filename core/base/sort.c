/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/sort.h"

#include <errno.h>
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
		size_t sum = 0;
		uint64_t *t;

		memset(count, 0, buckets * sizeof(count[0]));
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) & mask]++;
		if (count[(src[0] >> shift) & mask] == n)
			continue;	/* one digit for all: order stands */
		for (i = 0; i < buckets; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
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

/* Radix passes over (key, index) pairs: idx[] comes back in key order. */
static int order_by_key(uint64_t *key, uint32_t *idx, size_t n)
{
	uint64_t max = 0, *ksrc = key, *kdst, *kt;
	uint32_t *isrc = idx, *idst, *it;
	size_t count[1u << DIGIT_BIG], i;
	unsigned shift, digit = n < SMALL ? DIGIT_SMALL : DIGIT_BIG;
	size_t buckets = (size_t)1 << digit;
	uint64_t mask = buckets - 1;
	void *tmp;

	for (i = 0; i < n; i++) {
		idx[i] = (uint32_t)i;
		if (key[i] > max)
			max = key[i];
	}
	if (!max)
		return 0;
	tmp = malloc(n * (sizeof(*key) + sizeof(*idx)));
	if (!tmp)
		return -ENOMEM;
	kdst = tmp;
	idst = (uint32_t *)(kdst + n);
	for (shift = 0; shift < 64 && (max >> shift); shift += digit) {
		size_t sum = 0;

		memset(count, 0, buckets * sizeof(count[0]));
		for (i = 0; i < n; i++)
			count[(ksrc[i] >> shift) & mask]++;
		if (count[(ksrc[0] >> shift) & mask] == n)
			continue;	/* one digit for all: order stands */
		for (i = 0; i < buckets; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
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

int sort_by_key(void *base, size_t n, size_t size, uint64_t *key)
{
	unsigned char *b = base, *hold;
	uint32_t *idx;
	size_t i;
	int ret;

	for (i = 1; i < n && key[i - 1] <= key[i]; i++)
		;
	if (i >= n)
		return 0;	/* in order already (often: input built so) */
	if (n > UINT32_MAX)
		return -E2BIG;
	idx = malloc(n * sizeof(*idx));
	hold = malloc(size);
	if (!idx || !hold) {
		ret = -ENOMEM;
		goto out;
	}
	ret = order_by_key(key, idx, n);
	if (ret)
		goto out;
	/*
	 * Place i takes element idx[i]: walk each cycle of the permutation
	 * with one element held aside; a place done is marked idx[i] = i.
	 */
	for (i = 0; i < n; i++) {
		size_t at = i, from;

		if (idx[i] == i)
			continue;
		memcpy(hold, b + i * size, size);
		for (;;) {
			from = idx[at];
			idx[at] = (uint32_t)at;
			if (from == i)
				break;
			memcpy(b + at * size, b + from * size, size);
			at = from;
		}
		memcpy(b + at * size, hold, size);
	}
out:
	free(idx);
	free(hold);
	return ret;
}
