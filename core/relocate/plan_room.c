/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Room left in one AG's windows, by block order: a Fenwick tree over the
 * windows so the room from any window on is a quick sum while placement
 * takes blocks; plan_room_anchor() uses it to keep room for the forks
 * after one.
 */
#include "core/relocate/plan_priv.h"

#include <stdlib.h>
#include <string.h>

static void room_add(struct window_room *w, size_t i, int64_t d)
{
	w->total += (uint64_t)d;
	for (i++; i <= w->n; i += i & (~i + 1))
		w->fw[i] += d;
}

/* Room in windows [0, i). */
static uint64_t room_before(const struct window_room *w, size_t i)
{
	int64_t sum = 0;

	for (; i; i -= i & (~i + 1))
		sum += w->fw[i];
	return (uint64_t)sum;
}

/* Index of the window holding block at (the last starting at or before). */
static size_t room_find(const struct window_room *w, uint32_t at)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->start[mid] <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

static void room_push(struct window_room *w, size_t *k,
		      const struct seg *sg)
{
	w->start[*k] = sg->start;
	room_add(w, (*k)++, (int64_t)(sg->end - sg->cur));
}

int plan_room_init(struct window_room *w, const struct agplan *ap)
{
	size_t i, k = 0, last = ap->nseg ? ap->nseg - 1 : 0;
	bool big_in = false;

	memset(w, 0, sizeof(*w));
	w->start = malloc((ap->nseg + 1) * sizeof(*w->start));
	w->fw = calloc(ap->nseg + 1, sizeof(*w->fw));
	if (!w->start || !w->fw)
		return -ENOMEM;
	if (!ap->nseg)
		return 0;
	w->n = ap->nseg;
	/* segments [0, nseg-1) are in block order; the big one goes between */
	for (i = 0; i < last; i++) {
		if (!big_in && ap->seg[last].start < ap->seg[i].start) {
			room_push(w, &k, &ap->seg[last]);
			big_in = true;
		}
		room_push(w, &k, &ap->seg[i]);
	}
	if (!big_in)
		room_push(w, &k, &ap->seg[last]);
	return 0;
}

void plan_room_free(struct window_room *w)
{
	free(w->start);
	free(w->fw);
}

void plan_room_take(struct window_room *w, uint32_t at, uint32_t len)
{
	if (w && w->n)
		room_add(w, room_find(w, at), -(int64_t)len);
}

/*
 * Where a fork whose inode sits at block hint should start looking for
 * room: at the hint while the windows from there on can still hold the
 * data of every fork after it that wants to be near its inode (rem
 * blocks, this one's included), else at the latest window that leaves
 * them room.  In a nearly full AG this stops each chunk's data spilling
 * past the next chunks until the last ones wrap to the AG's front.
 */
uint32_t plan_room_anchor(const struct window_room *w, uint32_t hint,
			  uint64_t rem)
{
	size_t lo = 0, hi, i;

	if (!w->n)
		return hint;
	i = room_find(w, hint);
	if (w->total - room_before(w, i) >= rem)
		return hint;
	hi = i;		/* the last window i' < i with room after it >= rem */
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;

		if (w->total - room_before(w, mid) >= rem)
			lo = mid;
		else
			hi = mid - 1;
	}
	return w->start[lo];
}
