/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Large I/O buffers kept for the next reader of the same image.  The
 * kernel zeroes every new anonymous page on its first touch, and on a
 * virtual machine that ran at under 1 GB/s: the bulk reader's buffers
 * (a few MiB per AG) cost more to fault than their reads took.  A
 * buffer given back is handed to the next bulk reader as it is (its
 * contents are stale, not zeroed).  Thread-safe.
 */
#ifndef CORE_BUFPOOL_H
#define CORE_BUFPOOL_H

#include <pthread.h>
#include <stddef.h>

#define BUFPOOL_MAX	8

struct bufpool {
	pthread_mutex_t mu;
	unsigned n;
	struct { void *p; size_t len; } v[BUFPOOL_MAX];
};

void bufpool_init(struct bufpool *bp);
/* The smallest kept buffer of at least len bytes (*got: its size), or a
 * new zeroed one of len; NULL without memory. */
void *bufpool_get(struct bufpool *bp, size_t len, size_t *got);
/* Keep p (len bytes, from bufpool_get) for the next caller, or free it. */
void bufpool_put(struct bufpool *bp, void *p, size_t len);
/* Free every buffer kept (the pool stays usable). */
void bufpool_trim(struct bufpool *bp);
void bufpool_destroy(struct bufpool *bp);

#endif
