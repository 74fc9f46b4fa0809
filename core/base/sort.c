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
