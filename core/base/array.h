/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growable arrays on the heap, for the small and middling ones (the
 * model's big arrays use bigmem_grow: mapped, with huge pages).  The
 * capacity doubles from a first size the caller picks.
 */
#ifndef CORE_ARRAY_H
#define CORE_ARRAY_H

#include <stddef.h>

/*
 * Make *v (room for *cap elements of size bytes) hold at least need: the
 * capacity doubles from first (or from *cap) until it does.  0, or
 * -ENOMEM with *v and *cap unchanged.
 */
int array_reserve(void **v, size_t *cap, size_t need, size_t size,
		  size_t first);

/* Room for one more element after the n in use. */
static inline int array_grow(void **v, size_t *cap, size_t n, size_t size,
			     size_t first)
{
	return n < *cap ? 0 : array_reserve(v, cap, n + 1, size, first);
}

#endif
