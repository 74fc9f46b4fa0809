/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The radix sorts (core/base/sort.h) against qsort: sort_u64 for every
 * size class (the small arrays' 8-bit digits, the large ones' 11-bit),
 * values that need few passes or all of them, digits all values share;
 * sort_u64_from keeping the order of values equal in the bits it sorts
 * by (a key in the high bits, the input position in the low ones).
 */
#include "t.h"
#include "core/base/sort.h"

#include <stdint.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t shifted;

/* by v >> shifted, then by position (the low 32 bits) */
static int cmp_from(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	if (x >> shifted != y >> shifted)
		return x >> shifted < y >> shifted ? -1 : 1;
	return (uint32_t)x < (uint32_t)y ? -1 : (uint32_t)x > (uint32_t)y;
}

/* n values masked to mask, with or'd in fixed bits */
static void fill(uint64_t *v, size_t n, uint64_t mask, uint64_t fixed)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (next() & mask) | fixed;
}

static void one(struct t_state *ts, size_t n, uint64_t mask, uint64_t fixed)
{
	uint64_t *a = malloc((n ? n : 1) * sizeof(*a));
	uint64_t *b = malloc((n ? n : 1) * sizeof(*b));

	fill(a, n, mask, fixed);
	memcpy(b, a, n * sizeof(*a));
	T_CHECK(ts, sort_u64(a, n) == 0);
	if (n)
		qsort(b, n, sizeof(*b), cmp_u64);
	T_CHECK(ts, memcmp(a, b, n * sizeof(*a)) == 0);
	free(a);
	free(b);
}

static void one_from(struct t_state *ts, size_t n, unsigned from,
		     uint64_t keymask)
{
	uint64_t *a = malloc((n ? n : 1) * sizeof(*a));
	uint64_t *b = malloc((n ? n : 1) * sizeof(*b));
	size_t i;

	/* few distinct keys: many ties, which must keep their order */
	for (i = 0; i < n; i++)
		a[i] = (next() & keymask) << from | (uint32_t)i;
	memcpy(b, a, n * sizeof(*a));
	T_CHECK(ts, sort_u64_from(a, n, from) == 0);
	shifted = from;
	if (n)
		qsort(b, n, sizeof(*b), cmp_from);
	T_CHECK(ts, memcmp(a, b, n * sizeof(*a)) == 0);
	free(a);
	free(b);
}

int main(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 17, 1000, 16383, 16384,
					100000 };
	struct t_state ts = { 0, 0 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];

		one(&ts, n, UINT64_MAX, 0);
		one(&ts, n, 0xff, 0);			/* one pass */
		one(&ts, n, 0xfff, 0);			/* two small digits */
		one(&ts, n, 0xffff00000000ull, 0);	/* low digits shared */
		one(&ts, n, 0xff, 0x0123000000000000ull); /* high shared */
		one(&ts, n, 0, 0);			/* all zero */
		one(&ts, n, 0, 42);			/* all equal */
		one_from(&ts, n, 32, 0x7);
		one_from(&ts, n, 32, 0xffffffffull);
		one_from(&ts, n, 40, 0xfff);
	}
	return t_done(&ts, "test_sort");
}
