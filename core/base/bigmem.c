/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/bigmem.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define HUGE_SZ		(2u << 20)
#define MAP_FROM	(1u << 20)	/* arrays this big are mapped */

static size_t round_up(size_t n)
{
	return (n + HUGE_SZ - 1) & ~(size_t)(HUGE_SZ - 1);
}

static void *map_new(size_t bytes)
{
	void *q = mmap(NULL, round_up(bytes), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (q == MAP_FAILED)
		return NULL;
	/* a hint only: without THP these are plain 4 KiB pages */
	madvise(q, round_up(bytes), MADV_HUGEPAGE);
	return q;
}

void bigmem_setup(void)
{
#ifdef __GLIBC__
	/*
	 * glibc raises its threshold to the size of each mapped block
	 * freed (up to 32 MiB), after which such blocks come from the heap
	 * and stay there when freed: a plan's arrays of tens of MiB, built
	 * and freed one after another, held the heap at their high mark.
	 */
	mallopt(M_MMAP_THRESHOLD, MAP_FROM);
#endif
}

void *bigmem_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	if (n * size >= MAP_FROM)
		return map_new(n * size);
	return calloc(n ? n : 1, size ? size : 1);
}

int bigmem_grow_slow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap, old, new_bytes;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap + *cap / 2 : 64;
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	old = *cap * size;
	new_bytes = ncap * size;
	if (new_bytes < MAP_FROM) {
		nv = realloc(*v, new_bytes);
	} else if (old >= MAP_FROM) {
		nv = mremap(*v, round_up(old), round_up(new_bytes),
			    MREMAP_MAYMOVE);
		if (nv == MAP_FAILED)
			return -ENOMEM;
		madvise(nv, round_up(new_bytes), MADV_HUGEPAGE);
	} else {
		nv = map_new(new_bytes);
		if (nv && old)
			memcpy(nv, *v, old);
		if (nv)
			free(*v);
	}
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

void bigmem_release_tail(void *p, size_t cap_bytes, size_t used_bytes)
{
	size_t from = (used_bytes + HUGE_SZ - 1) & ~(size_t)(HUGE_SZ - 1);

	if (!p || cap_bytes < MAP_FROM || from >= round_up(cap_bytes))
		return;
	madvise((uint8_t *)p + from, round_up(cap_bytes) - from,
		MADV_DONTNEED);
}

void bigmem_free(void *p, size_t cap, size_t size)
{
	if (!p)
		return;
	if (cap * size >= MAP_FROM)
		munmap(p, round_up(cap * size));
	else
		free(p);
}
