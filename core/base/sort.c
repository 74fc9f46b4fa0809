/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* 11-bit digits; only as many passes as the largest value needs. */
#define DIGIT	11
#define BUCKETS	(1u << DIGIT)

int sort_u64(uint64_t *v, size_t n)
{
	uint64_t max = 0, *tmp, *src = v, *dst;
	size_t count[BUCKETS], i;
	unsigned shift;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	if (n < 2 || max == 0)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (shift = 0; shift < 64 && (max >> shift); shift += DIGIT) {
		size_t sum = 0;
		uint64_t *t;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) & (BUCKETS - 1)]++;
		for (i = 0; i < BUCKETS; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & (BUCKETS - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return 0;
}
