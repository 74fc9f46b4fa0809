/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Binary search over a sorted array, one typed function per use.  A
 * macro writes the function (the loop lives here once); being static
 * inline and typed, the compiler inlines the predicate, which a
 * bsearch-style function pointer per probe would not let it do on the
 * scan's hot lookups.
 *
 *   SEARCH_FIRST(name, T, K, before)
 *
 * defines size_t name(const T *v, size_t n, K key): the index of the
 * first element e of v[0..n) for which before(e, key) is false, or n if
 * none (C++'s lower_bound, partition_point).  before(const T *e, K key)
 * is a function or function-like macro, true for a prefix of v and false
 * for the rest: "e lies wholly before key".  Then
 *
 *   an exact match:	before = e->k < key; found when i < n && v[i].k == key
 *   the range holding key (sorted, disjoint ranges):
 *			before = e->end <= key; found when i < n && v[i].start <= key
 *   the last element at or before key:
 *			before = e->k <= key; it is i - 1 when i > 0
 */
#ifndef CORE_SEARCH_H
#define CORE_SEARCH_H

#include <stddef.h>

#define SEARCH_FIRST(name, T, K, before)				\
static inline size_t name(const T *v, size_t n, K key)			\
{									\
	size_t lo = 0, hi = n;						\
									\
	while (lo < hi) {						\
		size_t mid = lo + (hi - lo) / 2;			\
									\
		if (before(&v[mid], key))				\
			lo = mid + 1;					\
		else							\
			hi = mid;					\
	}								\
	return lo;							\
}

#endif
