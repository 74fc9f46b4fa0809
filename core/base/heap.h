/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Binary min-heaps over plain arrays, one typed pair of functions per
 * use (as search.h: a macro writes them, the compiler inlines the
 * order).
 *
 *   HEAP_DEFINE(name, T, C, below)
 *
 * defines, over an array h of T kept as a heap (the least first):
 *   void name_up(T *h, size_t i, C ctx): h[i] rises to its place;
 *   void name_down(T *h, size_t n, size_t i, C ctx): h[i] sinks to its
 *       place in h[0..n).
 * below(ctx, const T *a, const T *b) is true when a comes out before b.
 * A push is h[n] = x, name_up(h, n, ctx), n++; a pop is h[0] = h[--n],
 * name_down(h, n, 0, ctx).  Of two children that tie, the left one
 * rises.
 */
#ifndef CORE_HEAP_H
#define CORE_HEAP_H

#include <stddef.h>

#define HEAP_DEFINE(name, T, C, below)					\
static inline void name##_up(T *h, size_t i, C ctx)			\
{									\
	T x = h[i];							\
									\
	(void)ctx;							\
	while (i) {							\
		size_t p = (i - 1) / 2;					\
									\
		if (!below(ctx, &x, &h[p]))				\
			break;						\
		h[i] = h[p];						\
		i = p;							\
	}								\
	h[i] = x;							\
}									\
									\
static inline void name##_down(T *h, size_t n, size_t i, C ctx)	\
{									\
	T x = h[i];							\
									\
	(void)ctx;							\
	for (;;) {							\
		size_t c = 2 * i + 1;					\
									\
		if (c >= n)						\
			break;						\
		if (c + 1 < n && below(ctx, &h[c + 1], &h[c]))		\
			c++;						\
		if (!below(ctx, &h[c], &x))				\
			break;						\
		h[i] = h[c];						\
		i = c;							\
	}								\
	h[i] = x;							\
}

#endif
