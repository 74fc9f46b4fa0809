/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The helpers of core/base that replaced hand-written copies, against the
 * plain definitions: SEARCH_FIRST (search.h) against a linear scan for
 * every key around sorted arrays with runs of equal values, empty and
 * one-element arrays included; HEAP_DEFINE (heap.h) popping in sorted
 * order, ties and a one-element heap included; array_grow and array_reserve
 * (array.h) doubling from the first size and keeping the contents;
 * fork_rec_at (core/fs/fork.h) finding the record mapping a block, NULL
 * in holes and past the end.
 */
#include "t.h"
#include "core/base/array.h"
#include "core/base/heap.h"
#include "core/base/search.h"
#include "core/fs/fork.h"

#include <stdint.h>
#include <string.h>

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static inline bool u32_before(const uint32_t *e, uint32_t key)
{
	return *e < key;
}

SEARCH_FIRST(u32_search, uint32_t, uint32_t, u32_before)

static void t_search(struct t_state *ts)
{
	uint32_t v[64];
	size_t n, i, bad = 0;
	uint32_t key;

	T_CHECK(ts, u32_search(NULL, 0, 5) == 0);
	for (n = 0; n <= 64; n++) {
		/* ascending with repeats: each step 0, 1 or 2 */
		for (i = 0; i < n; i++)
			v[i] = (i ? v[i - 1] : 1) + (uint32_t)(next() % 3);
		for (key = 0; key <= (n ? v[n - 1] + 1 : 2); key++) {
			size_t want = 0;

			while (want < n && v[want] < key)
				want++;
			if (u32_search(v, n, key) != want)
				bad++;
		}
	}
	T_CHECK(ts, bad == 0);
}

struct item {
	uint64_t key;
};

#define ITEM_BELOW(ctx, a, b)	((a)->key < (b)->key)
HEAP_DEFINE(items, struct item, const void *, ITEM_BELOW)

static void t_heap(struct t_state *ts)
{
	struct item h[200], x;
	uint64_t last = 0;
	size_t n = 0, popped = 0, i;
	bool sorted = true;

	for (i = 0; i < 200; i++) {
		h[n].key = next() % 50;		/* many ties */
		items_up(h, n++, NULL);
	}
	while (n) {
		x = h[0];
		h[0] = h[--n];
		items_down(h, n, 0, NULL);
		if (popped++ && x.key < last)
			sorted = false;
		last = x.key;
	}
	T_CHECK(ts, sorted);
	T_CHECK(ts, popped == 200);
	/* a pop from a one-element heap leaves it empty and intact */
	h[0].key = 7;
	n = 1;
	h[0] = h[--n];
	items_down(h, n, 0, NULL);
	T_CHECK(ts, n == 0 && h[0].key == 7);
}

static void t_array(struct t_state *ts)
{
	uint32_t *v = NULL;
	size_t cap = 0, n;
	bool kept = true;

	T_CHECK(ts, array_grow((void **)&v, &cap, 0, sizeof(*v), 16) == 0);
	T_CHECK(ts, cap == 16);
	for (n = 0; n < 1000; n++) {
		if (array_grow((void **)&v, &cap, n, sizeof(*v), 16))
			break;
		v[n] = (uint32_t)n * 7;
	}
	T_CHECK(ts, n == 1000 && cap == 1024);
	for (n = 0; n < 1000; n++)
		kept = kept && v[n] == (uint32_t)n * 7;
	T_CHECK(ts, kept);
	/* reserve: enough already changes nothing; more doubles past it */
	T_CHECK(ts, array_reserve((void **)&v, &cap, 1000, sizeof(*v), 16) == 0 &&
		    cap == 1024);
	T_CHECK(ts, array_reserve((void **)&v, &cap, 5000, sizeof(*v), 16) == 0 &&
		    cap == 8192 && v[999] == 999 * 7);
	/* a size past the address space: -ENOMEM, the array untouched */
	T_CHECK(ts, array_reserve((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v),
				  16) < 0 && cap == 8192 && v[999] == 999 * 7);
	free(v);
}

static void t_rec_at(struct t_state *ts)
{
	/* file blocks 10-14, 20, 21-29 (touching), a hole 30-39, 40-41 */
	const struct od_irec r[] = {
		{ .startoff = 10, .startblock = 100, .blockcount = 5 },
		{ .startoff = 20, .startblock = 200, .blockcount = 1 },
		{ .startoff = 21, .startblock = 300, .blockcount = 9 },
		{ .startoff = 40, .startblock = 400, .blockcount = 2 },
	};
	size_t n = sizeof(r) / sizeof(r[0]), bad = 0, k;
	uint64_t off;

	T_CHECK(ts, fork_rec_at(r, 0, 10) == NULL);
	for (off = 0; off < 50; off++) {
		const struct od_irec *want = NULL;

		for (k = 0; k < n; k++)
			if (off >= r[k].startoff &&
			    off < r[k].startoff + r[k].blockcount)
				want = &r[k];
		if (fork_rec_at(r, n, off) != want)
			bad++;
	}
	T_CHECK(ts, bad == 0);
}

int main(void)
{
	struct t_state ts = { 0, 0 };

	t_search(&ts);
	t_heap(&ts);
	t_array(&ts);
	t_rec_at(&ts);
	return t_done(&ts, "test_base_search");
}
