/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/model/ahead.h"
#include "ondisk/dir2.h"

#include <stdlib.h>
#include <string.h>

#define Q_DIRS		64		/* directories waiting, at most */
#define Q_BYTES		(32u << 20)	/* their blocks announced, at most */

/* Extents sorted at once, at most (more: in batches). */
#define BATCH		64

static int cmp_span(const void *a, const void *b)
{
	const struct ahead_span *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

unsigned ahead_merge(struct ahead_span *v, unsigned n)
{
	unsigned i, o = 0;

	if (n < 2)
		return n;
	qsort(v, n, sizeof(*v), cmp_span);
	for (i = 1; i < n; i++) {
		struct ahead_span *l = &v[o];

		if (v[i].off <= l->off + l->len) {
			if (v[i].off + v[i].len > l->off + l->len)
				l->len = v[i].off + v[i].len - l->off;
		} else {
			v[++o] = v[i];
		}
	}
	return o + 1;
}

struct each {
	void (*fn)(void *priv, uint64_t off, uint64_t len);
	void *priv;
};

/* Pass v[0..n), merged, to fn, up to max bytes in all (*done counts). */
static void announce(const struct each *to, struct ahead_span *v,
		     unsigned n, uint64_t max, uint64_t *done)
{
	unsigned i;

	n = ahead_merge(v, n);
	for (i = 0; i < n && *done < max; i++) {
		uint64_t len = v[i].len < max - *done ? v[i].len :
			       max - *done;

		to->fn(to->priv, v[i].off, len);
		*done += len;
	}
}

uint64_t ahead_fork_each(const struct od_geo *g, const struct m_ext *x,
			 uint32_t n, uint64_t below, uint64_t max,
			 void (*fn)(void *priv, uint64_t off, uint64_t len),
			 void *priv)
{
	const struct each to = { fn, priv };
	struct ahead_span v[BATCH];
	uint64_t done = 0;
	unsigned k = 0;
	uint32_t i;

	for (i = 0; i < n && done < max; i++) {
		struct od_irec r;
		uint64_t cnt;

		m_ext_get(&x[i], &r);
		if (r.startoff >= below)
			break;
		cnt = r.blockcount;
		if (cnt > below - r.startoff)
			cnt = below - r.startoff;
		if (!od_fsb_valid(g, r.startblock, cnt))
			continue;
		v[k].off = od_fsb_daddr(g, r.startblock) << 9;
		v[k].len = cnt << g->blocklog;
		if (++k == BATCH) {
			announce(&to, v, k, max, &done);
			k = 0;
		}
	}
	if (k)
		announce(&to, v, k, max, &done);
	return done;
}

static void willneed(void *priv, uint64_t off, uint64_t len)
{
	img_willneed(priv, off, len);
}

uint64_t ahead_fork(struct fs *fs, const struct m_ext *x, uint32_t n,
		    uint64_t below, uint64_t max)
{
	return ahead_fork_each(&fs->geo, x, n, below, max, willneed, fs->img);
}

void ahead_q_init(struct ahead_q *q, struct fs *fs)
{
	memset(q, 0, sizeof(*q));
	q->fs = fs;
}

bool ahead_q_full(const struct ahead_q *q)
{
	return q->n == Q_DIRS || (q->n && q->bytes >= Q_BYTES);
}

int ahead_q_push(struct ahead_q *q, const struct od_inode *di,
		 const uint8_t *raw, size_t idx, const struct m_ext *x,
		 uint32_t n)
{
	const struct od_geo *g = &q->fs->geo;
	struct ahead_dir *d;

	if (!q->v) {
		q->v = malloc(Q_DIRS * sizeof(*q->v));
		if (!q->v)
			return -ENOMEM;
	}
	if (q->n == Q_DIRS)
		return -ENOMEM;		/* the caller pops first */
	d = &q->v[(q->head + q->n) % Q_DIRS];
	d->ip.di = *di;
	memcpy(d->ip.raw, raw, g->inodesize);
	d->idx = idx;
	/* only the data space: leaf and free blocks are not iterated */
	d->bytes = di->format == OD_FMT_LOCAL ? 0 :
		   ahead_fork(q->fs, x, n, OD_DIR2_LEAF_OFFSET >> g->blocklog,
			      Q_BYTES);
	q->bytes += d->bytes;
	q->n++;
	return 0;
}

const struct ahead_dir *ahead_q_pop(struct ahead_q *q)
{
	const struct ahead_dir *d;

	if (!q->n)
		return NULL;
	d = &q->v[q->head];
	q->head = (q->head + 1) % Q_DIRS;
	q->n--;
	q->bytes -= d->bytes;
	return d;
}

void ahead_q_free(struct ahead_q *q)
{
	free(q->v);
	q->v = NULL;
	q->n = 0;
}
