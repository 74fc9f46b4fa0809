/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sorting large arrays of integers (LSD radix: linear, no comparisons). */
#ifndef CORE_SORT_H
#define CORE_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Sort v[0..n) ascending; needs n words of scratch.  0 or -ENOMEM. */
int sort_u64(uint64_t *v, size_t n);
/*
 * Sort v[0..n) stably by v >> from: values equal there keep their
 * order.  A key in the high bits and an index (or a second key the
 * input is already sorted by) in the low ones sorts in the passes the
 * high bits need.  0 or -ENOMEM.
 */
int sort_u64_from(uint64_t *v, size_t n, unsigned from);

/* Field f (0: the most significant) of an element, as a number. */
typedef uint64_t (*sort_key_fn)(const void *elem, unsigned f,
				 const void *arg);
/*
 * Reorder n elements of size bytes at base stably by fields 0 to
 * nfields - 1 of key_of, the first deciding first.  Linear: LSD radix
 * on the fields' values, carrying the elements' indexes, then the
 * elements moved once (where qsort pays a comparison call per step);
 * scratch: n * (size + 24) bytes.  n < 2^32.  0, or -ENOMEM or -E2BIG
 * with base untouched.
 */
int sort_by_fields(void *base, size_t n, size_t size, unsigned nfields,
		   sort_key_fn key_of, const void *arg);
/* qsort, but an empty array may be NULL (C leaves qsort(NULL, 0) undefined). */
static inline void sort_any(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
