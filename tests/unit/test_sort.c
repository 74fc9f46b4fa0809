/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The radix sorts (core/base/sort.h) against qsort: sort_u64 for every
 * size class (the small arrays' 8-bit digits, the large ones' 11-bit),
 * values that need few passes or all of them, digits all values share;
 * sort_u64_from keeping the order of values equal in the bits it sorts
 * by (a key in the high bits, the input position in the low ones);
 * sort_by_key moving records of an odd size, stably, by one key and by
 * two in turn.
 */
#include "t.h"
#include "core/base/sort.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
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

/* A record of an odd size: a key, a second key, where it started. */
struct rec {
	uint64_t k;
	uint32_t k2;
	uint32_t pos;
	unsigned char pad[3];
};

/* by k2 then k then position (two sort_by_key calls: k, then k2) */
static int cmp_rec2(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* by k then position */
static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void one_keyed(struct t_state *ts, size_t n, uint64_t mask, bool two)
{
	struct rec *a = calloc(n ? n : 1, sizeof(*a));
	struct rec *b = calloc(n ? n : 1, sizeof(*b));
	uint64_t *key = malloc((n ? n : 1) * sizeof(*key));
	size_t i;

	for (i = 0; i < n; i++) {
		a[i].k = next() & mask;
		a[i].k2 = (uint32_t)(next() & 0x3f);
		a[i].pos = (uint32_t)i;
		a[i].pad[0] = (unsigned char)i;
	}
	memcpy(b, a, n * sizeof(*a));
	for (i = 0; i < n; i++)
		key[i] = a[i].k;
	T_CHECK(ts, sort_by_key(a, n, sizeof(*a), key) == 0);
	for (i = 0; two && i < n; i++)
		key[i] = a[i].k2;
	if (two)
		T_CHECK(ts, sort_by_key(a, n, sizeof(*a), key) == 0);
	if (n)
		qsort(b, n, sizeof(*b), two ? cmp_rec2 : cmp_rec);
	T_CHECK(ts, memcmp(a, b, n * sizeof(*a)) == 0);
	for (i = 1; i < n; i++)
		if (key[i - 1] > key[i])
			break;
	T_CHECK(ts, n < 2 || i == n);	/* the keys come back sorted */
	free(a);
	free(b);
	free(key);
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
		one_keyed(&ts, n, UINT64_MAX, false);
		one_keyed(&ts, n, 0xff, false);		/* many ties */
		one_keyed(&ts, n, 0, false);		/* all equal */
		one_keyed(&ts, n, 0xfff000, true);
	}
	return t_done(&ts, "test_sort");
}
