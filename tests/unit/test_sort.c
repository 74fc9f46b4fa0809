/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The radix sorts (core/base/sort.h) against qsort: sort_u64 for every
 * size class (the small arrays' 8-bit digits, the large ones' 11-bit),
 * values that need few passes or all of them, digits all values share;
 * sort_u64_from keeping the order of values equal in the bits it sorts
 * by (a key in the high bits, the input position in the low ones);
 * sort_by_fields moving records of an odd size, stably, by one field and
 * by two.
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

static size_t sized;

static uint64_t first_u64(const void *e, unsigned f, const void *arg)
{
	uint64_t k;

	(void)f;
	(void)arg;
	memcpy(&k, e, sizeof(k));
	return k;
}

/* by the first 8 bytes, then by the rest (where it started, unique) */
static int cmp_first(const void *a, const void *b)
{
	uint64_t x = first_u64(a, 0, NULL), y = first_u64(b, 0, NULL);

	if (x != y)
		return x < y ? -1 : 1;
	return memcmp((const char *)a + 8, (const char *)b + 8, sized - 8);
}

/* A record of an odd size: a key, a second key, where it started. */
struct rec {
	uint64_t k;
	uint32_t k2;
	uint32_t pos;
	unsigned char pad[3];
};

/* by k2 then k then position */
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

/* field 0: k2 when sorting by two fields, else k; field 1: k */
static uint64_t rec_field(const void *e, unsigned f, const void *arg)
{
	const struct rec *r = e;
	bool two = *(const bool *)arg;

	return two && f == 0 ? r->k2 : r->k;
}

static void one_keyed(struct t_state *ts, size_t n, uint64_t mask, bool two)
{
	struct rec *a = calloc(n ? n : 1, sizeof(*a));
	struct rec *b = calloc(n ? n : 1, sizeof(*b));
	size_t i;

	for (i = 0; i < n; i++) {
		a[i].k = next() & mask;
		a[i].k2 = (uint32_t)(next() & 0x3f);
		a[i].pos = (uint32_t)i;
		a[i].pad[0] = (unsigned char)i;
	}
	memcpy(b, a, n * sizeof(*a));
	T_CHECK(ts, sort_by_fields(a, n, sizeof(*a), two ? 2 : 1, rec_field,
				   &two) == 0);
	if (n)
		qsort(b, n, sizeof(*b), two ? cmp_rec2 : cmp_rec);
	T_CHECK(ts, memcmp(a, b, n * sizeof(*a)) == 0);
	free(a);
	free(b);
}

/* Records of each size the copy treats apart, by one 64-bit field. */
static void one_sized(struct t_state *ts, size_t n, size_t size)
{
	unsigned char *a = malloc((n ? n : 1) * size);
	unsigned char *b = malloc((n ? n : 1) * size);
	size_t i, j;

	for (i = 0; i < n; i++) {
		uint64_t k = next() & 0xffff;

		/* where it started, big-endian after the key: memcmp of
		 * the rest orders ties by it */
		for (j = 8; j < size; j++)
			a[i * size + j] = j < 12 ?
				(unsigned char)(i >> ((11 - j) * 8)) : 0x5a;
		memcpy(a + i * size, &k, sizeof(k));
	}
	memcpy(b, a, n * size);
	T_CHECK(ts, sort_by_fields(a, n, size, 1, first_u64, NULL) == 0);
	sized = size;
	if (n)
		qsort(b, n, size, cmp_first);
	T_CHECK(ts, memcmp(a, b, n * size) == 0);
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
		one_keyed(&ts, n, UINT64_MAX, false);
		one_keyed(&ts, n, 0xff, false);		/* many ties */
		one_keyed(&ts, n, 0, false);		/* all equal */
		one_keyed(&ts, n, 0xfff000, true);
		one_sized(&ts, n, 8);
		one_sized(&ts, n, 16);
		one_sized(&ts, n, 24);
		one_sized(&ts, n, 32);
		one_sized(&ts, n, 40);
	}
	return t_done(&ts, "test_sort");
}
