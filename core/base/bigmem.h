/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growable arrays for the model.  Past a few MiB they live in anonymous
 * mappings that ask for transparent huge pages: filling hundreds of MiB
 * of model otherwise costs a page fault per 4 KiB, much of the scan's
 * time on a virtual machine.  Smaller ones use malloc.  Whether an array
 * is mapped follows from its capacity, so callers keep the capacity.
 */
#ifndef CORE_BIGMEM_H
#define CORE_BIGMEM_H

#include <stddef.h>

/*
 * Once, before anything is allocated: malloc's own large blocks (from
 * the size past which arrays here are mapped) get mappings of their own
 * too, given back when freed.
 */
void bigmem_setup(void);
/* Zeroed array of n elements of size bytes; NULL if out of memory. */
void *bigmem_calloc(size_t n, size_t size);
/*
 * Make room for one more element: *v holds *cap elements of size bytes,
 * n in use.  Grows by half.  0 or -ENOMEM (then *v is untouched).
 */
int bigmem_grow_slow(void **v, size_t *cap, size_t n, size_t size);

static inline int bigmem_grow(void **v, size_t *cap, size_t n, size_t size)
{
	return n < *cap ? 0 : bigmem_grow_slow(v, cap, n, size);
}
/*
 * The bytes of an array of cap_bytes past used_bytes are not needed
 * for now: a mapped array gives their whole pages back (they read as
 * zeroes if touched again).  The array stays where it is.
 */
void bigmem_release_tail(void *p, size_t cap_bytes, size_t used_bytes);
/* Free an array of cap elements of size bytes. */
void bigmem_free(void *p, size_t cap, size_t size);

#endif
