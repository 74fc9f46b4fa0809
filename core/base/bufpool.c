/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/bufpool.h"
#include "core/base/bigmem.h"

void bufpool_init(struct bufpool *bp)
{
	pthread_mutex_init(&bp->mu, NULL);
	bp->n = 0;
}

void *bufpool_get(struct bufpool *bp, size_t len, size_t *got)
{
	unsigned i, best = BUFPOOL_MAX;
	void *p = NULL;

	pthread_mutex_lock(&bp->mu);
	for (i = 0; i < bp->n; i++)
		if (bp->v[i].len >= len &&
		    (best == BUFPOOL_MAX || bp->v[i].len < bp->v[best].len))
			best = i;
	if (best < BUFPOOL_MAX) {
		p = bp->v[best].p;
		*got = bp->v[best].len;
		bp->v[best] = bp->v[--bp->n];
	}
	pthread_mutex_unlock(&bp->mu);
	if (p)
		return p;
	*got = len;
	return bigmem_calloc(1, len);
}

void bufpool_put(struct bufpool *bp, void *p, size_t len)
{
	if (!p)
		return;
	pthread_mutex_lock(&bp->mu);
	if (bp->n < BUFPOOL_MAX) {
		bp->v[bp->n].p = p;
		bp->v[bp->n++].len = len;
		p = NULL;
	}
	pthread_mutex_unlock(&bp->mu);
	if (p)
		bigmem_free(p, 1, len);
}

void bufpool_trim(struct bufpool *bp)
{
	unsigned n, i;
	struct { void *p; size_t len; } v[BUFPOOL_MAX];

	pthread_mutex_lock(&bp->mu);
	n = bp->n;
	for (i = 0; i < n; i++) {
		v[i].p = bp->v[i].p;
		v[i].len = bp->v[i].len;
	}
	bp->n = 0;
	pthread_mutex_unlock(&bp->mu);
	for (i = 0; i < n; i++)
		bigmem_free(v[i].p, 1, v[i].len);
}

void bufpool_destroy(struct bufpool *bp)
{
	bufpool_trim(bp);
	pthread_mutex_destroy(&bp->mu);
}
