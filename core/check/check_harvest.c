/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory blocks kept from the scan's reads, for the inodes phase.
 * The scan reads inode chunks in large requests joined across small
 * holes, and directory blocks often lie in those holes: on the 1M-inode
 * bench image 37 of its 45 MB of directory blocks, 33 MB of them after
 * their directory's inode in the same AG.  As each directory's inode is
 * decoded, its blocks are wanted (a heap by disk offset, per part of an
 * AG); as each request comes in whole, the wanted blocks inside it are
 * copied out; the inodes phase then reads them from memory (fs->held).
 * Blocks before the inode, or in a part of the AG another thread reads,
 * are read as before: on that image 22 MB were kept, and check made
 * 2,775 requests instead of 3,807.  The bytes are those the device
 * returned, so every verdict is the same.
 */
#include "core/check/check_int.h"
#include "core/base/bigmem.h"
#include "core/base/sort.h"
#include "core/base/heap.h"
#include "core/base/search.h"
#include "ondisk/inode.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Directory bytes kept, at most. */
#define HARVEST_BUDGET	(64ull << 20)

struct hv_want {
	uint64_t off, len;	/* bytes on disk, whole blocks */
};

/* One part of an AG being scanned: what it wants, what it got. */
struct hv_part {
	struct hv_want *want;		/* a min-heap by off */
	size_t nwant, cap_want;
	struct check_hblk *got;
	size_t ngot, cap_got;
};

#define WANT_BELOW(ctx, a, b)	((a)->off < (b)->off)
HEAP_DEFINE(want, struct hv_want, const void *, WANT_BELOW)

static void heap_up(struct hv_want *h, size_t i)
{
	want_up(h, i, NULL);
}

static void heap_pop(struct hv_part *p)
{
	p->want[0] = p->want[--p->nwant];
	want_down(p->want, p->nwant, 0, NULL);
}

static struct hv_part *part_of(void **part)
{
	if (!*part)
		*part = calloc(1, sizeof(struct hv_part));
	return *part;
}

void check_harvest_want(struct check_ctx *c, void **part,
			const struct m_ag *ag, const struct m_ino *mi)
{
	const struct od_geo *g = c->g;
	struct hv_part *p;
	uint32_t k;

	if (!c->hv.ag || !mi->nde || (mi->flags & MI_DAMAGED) ||
	    m_dfmt(mi) == OD_FMT_LOCAL || !(p = part_of(part)))
		return;
	for (k = 0; k < mi->nde; k++) {
		struct od_irec r;

		m_ext_get(&ag->ext[mi->ext + k], &r);
		if (!od_fsb_valid(g, r.startblock, r.blockcount))
			continue;
		if (bigmem_grow((void **)&p->want, &p->cap_want, p->nwant,
				sizeof(*p->want)))
			return;
		p->want[p->nwant].off = od_fsb_daddr(g, r.startblock) << 9;
		p->want[p->nwant].len = (uint64_t)r.blockcount << g->blocklog;
		heap_up(p->want, p->nwant++);
	}
}

/* Keep the block at off (bs bytes at src); false when out of room. */
static bool keep(struct check_ctx *c, struct hv_part *p, uint64_t off,
		 const uint8_t *src, size_t bs)
{
	uint8_t *b;

	if (__atomic_add_fetch(&c->hv.used, bs, __ATOMIC_RELAXED) >
	    HARVEST_BUDGET || bigmem_grow((void **)&p->got, &p->cap_got,
					  p->ngot, sizeof(*p->got)) ||
	    !(b = malloc(bs))) {
		__atomic_sub_fetch(&c->hv.used, bs, __ATOMIC_RELAXED);
		return false;
	}
	memcpy(b, src, bs);
	p->got[p->ngot].off = off;
	p->got[p->ngot++].data = b;
	return true;
}

void check_harvest_bytes(struct check_ctx *c, void **part, uint64_t off,
			 const uint8_t *buf, size_t len)
{
	struct hv_part *p = *part;
	uint64_t end = off + len, bs = (uint64_t)1 << c->g->blocklog;

	if (!p || __atomic_load_n(&c->hv.used, __ATOMIC_RELAXED) >=
		  HARVEST_BUDGET)
		return;
	while (p->nwant && p->want[0].off < end) {
		struct hv_want w = p->want[0];
		uint64_t b;

		heap_pop(p);
		if (w.off + w.len <= off)
			continue;	/* behind this part's reads */
		for (b = w.off; b + bs <= w.off + w.len; b += bs) {
			if (b < off)
				continue;
			if (b + bs > end) {
				/* the rest may be in the next request */
				w.len -= b - w.off;
				w.off = b;
				p->want[p->nwant] = w;
				heap_up(p->want, p->nwant++);
				break;
			}
			if (!keep(c, p, b, buf + (b - off), (size_t)bs))
				return;
		}
	}
}

void check_harvest_part_done(struct check_ctx *c, void **part,
			     const struct m_ag *ag)
{
	struct hv_part *p = *part;
	struct check_hag *h;

	if (!p)
		return;
	h = &c->hv.ag[ag->agno];
	pthread_mutex_lock(&c->hv.mu);
	while (h->cap < h->n + p->ngot &&
	       !bigmem_grow((void **)&h->v, &h->cap, h->cap, sizeof(*h->v)))
		;
	if (h->cap >= h->n + p->ngot) {
		if (p->ngot)
			memcpy(h->v + h->n, p->got, p->ngot * sizeof(*h->v));
		h->n += p->ngot;
		p->ngot = 0;
	}
	pthread_mutex_unlock(&c->hv.mu);
	while (p->ngot)
		free(p->got[--p->ngot].data);	/* no room to hand over */
	bigmem_free(p->got, p->cap_got, sizeof(*p->got));
	bigmem_free(p->want, p->cap_want, sizeof(*p->want));
	free(p);
	*part = NULL;
}

static int cmp_hblk(const void *a, const void *b)
{
	const struct check_hblk *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The block at byte off, or NULL. */
static inline bool blk_before(const struct check_hblk *b, uint64_t off)
{
	return b->off < off;
}

SEARCH_FIRST(blk_search, struct check_hblk, uint64_t, blk_before)

static const uint8_t *find(const struct check_ctx *c, uint64_t off)
{
	const struct od_geo *g = c->g;
	uint64_t lin = off >> g->blocklog;
	uint32_t agno = (uint32_t)(lin / g->agblocks);
	const struct check_hag *h;
	size_t lo;

	if (!c->hv.ag || agno >= g->agcount)
		return NULL;
	h = &c->hv.ag[agno];
	/* an AG's blocks are sorted, and final, once it is ready */
	if (!__atomic_load_n(&h->served, __ATOMIC_ACQUIRE))
		return NULL;
	lo = blk_search(h->v, h->n, off);
	return lo < h->n && h->v[lo].off == off ? h->v[lo].data : NULL;
}

bool check_harvest_has(const struct check_ctx *c, uint64_t off)
{
	return find(c, off) != NULL;
}

/* fs->held: every block of the read kept, or none of it is used. */
static int held(void *priv, uint64_t daddr, void *buf, size_t len)
{
	const struct check_ctx *c = priv;
	uint64_t off = daddr << 9, bs = (uint64_t)1 << c->g->blocklog, k;

	if (off % bs || len % bs)
		return -1;
	/* on a miss the caller reads all of buf from the image */
	for (k = 0; k < len; k += bs) {
		const uint8_t *b = find(c, off + k);

		if (!b)
			return -1;
		memcpy((uint8_t *)buf + k, b, (size_t)bs);
	}
	return 0;
}

int check_harvest_init(struct check_ctx *c)
{
	c->hv.ag = calloc(c->g->agcount, sizeof(*c->hv.ag));
	if (!c->hv.ag)
		return -ENOMEM;
	pthread_mutex_init(&c->hv.mu, NULL);
	/* each AG's blocks are served from check_harvest_ready on */
	c->fs->held = held;
	c->fs->held_priv = c;
	return 0;
}

void check_harvest_ready(struct check_ctx *c, uint32_t agno)
{
	struct check_hag *h;

	if (!c->hv.ag)
		return;
	h = &c->hv.ag[agno];
	/* its parts came in any order */
	if (h->n > 1)
		sort_any(h->v, h->n, sizeof(*h->v), cmp_hblk);
	__atomic_store_n(&h->served, true, __ATOMIC_RELEASE);
}

void check_harvest_free(struct check_ctx *c)
{
	uint32_t a;
	size_t i;

	if (c->fs->held_priv == c) {
		c->fs->held = NULL;
		c->fs->held_priv = NULL;
	}
	if (!c->hv.ag)
		return;
	for (a = 0; a < c->g->agcount; a++) {
		struct check_hag *h = &c->hv.ag[a];

		for (i = 0; i < h->n; i++)
			free(h->v[i].data);
		bigmem_free(h->v, h->cap, sizeof(*h->v));
	}
	free(c->hv.ag);
	c->hv.ag = NULL;
	pthread_mutex_destroy(&c->hv.mu);
}
