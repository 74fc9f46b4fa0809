/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Taking blocks from an AG's windows: first fit, near a hint, or split
 * over the largest windows; each take recorded as a piece of its unit.
 */
#include "core/relocate/plan_priv.h"
#include "core/base/bigmem.h"

#define FIRST_FIT_SCAN	256	/* segments looked at before splitting */

/*
 * Take len contiguous blocks, first fit from the first open segment; if
 * none within reach has room, return 0 and let the caller split.
 */
bool plan_seg_take(struct agplan *ap, uint32_t len, uint32_t *at)
{
	size_t i, n = 0;

	while (ap->seg_first < ap->nseg &&
	       ap->seg[ap->seg_first].cur == ap->seg[ap->seg_first].end)
		ap->seg_first++;
	for (i = ap->seg_first; i < ap->nseg && n < FIRST_FIT_SCAN; i++, n++) {
		struct seg *sg = &ap->seg[i];

		if (sg->end - sg->cur >= len) {
			*at = sg->cur;
			sg->cur += len;
			return true;
		}
	}
	/* the big window, last in order, is worth a look too */
	if (ap->nseg && i < ap->nseg) {
		struct seg *sg = &ap->seg[ap->nseg - 1];

		if (sg->end - sg->cur >= len) {
			*at = sg->cur;
			sg->cur += len;
			return true;
		}
	}
	return false;
}

/*
 * Like seg_take, but first look in the windows at or after hint (the
 * inode's block), so data lands just after its inode, then in the nearest
 * ones before it; the big window, kept last for free space, is left
 * alone here.
 */
bool plan_seg_take_near(struct agplan *ap, uint32_t len, uint32_t hint,
			uint32_t *at)
{
	size_t lo = 0, hi = ap->nseg ? ap->nseg - 1 : 0, i, n = 0;

	while (lo < hi) {	/* segments [0, nseg-1) are in block order */
		size_t mid = lo + (hi - lo) / 2;

		if (ap->seg[mid].end <= hint)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i + 1 < ap->nseg && n < FIRST_FIT_SCAN; i++, n++) {
		struct seg *sg = &ap->seg[i];

		if (sg->end - sg->cur >= len) {
			*at = sg->cur;
			sg->cur += len;
			return true;
		}
	}
	for (i = lo, n = 0; i > ap->seg_first && n < FIRST_FIT_SCAN; i--, n++) {
		struct seg *sg = &ap->seg[i - 1];

		if (sg->end - sg->cur >= len) {
			*at = sg->cur;
			sg->cur += len;
			return true;
		}
	}
	return plan_seg_take(ap, len, at);
}

/* Take up to len blocks from the first open segment (for splitting). */
uint32_t plan_seg_take_some(struct agplan *ap, uint32_t len, uint32_t *at)
{
	while (ap->seg_first < ap->nseg) {
		struct seg *sg = &ap->seg[ap->seg_first];
		uint32_t n = sg->end - sg->cur;

		if (n) {
			if (n > len)
				n = len;
			*at = sg->cur;
			sg->cur += n;
			return n;
		}
		ap->seg_first++;
	}
	return 0;
}

int plan_add_piece(struct agplan *ap, struct unit *un, uint32_t off,
		   uint32_t len, uint32_t dst)
{
	struct piece *pc;

	if (bigmem_grow((void **)&ap->piece, &ap->cap_piece, ap->npiece,
			sizeof(*ap->piece)))
		return -ENOMEM;
	if (!un->npieces)
		un->piece0 = (uint32_t)ap->npiece;
	pc = &ap->piece[ap->npiece++];
	pc->off = off;
	pc->len = len;
	pc->dst = dst;
	un->npieces++;
	return 0;
}

#define SPLIT_SCAN	4096	/* windows looked at for the largest */

/* The window with the most room left, or NULL when the AG is full. */
static struct seg *largest_window(struct agplan *ap)
{
	struct seg *best = NULL;
	size_t i, n = 0;

	while (ap->seg_first < ap->nseg &&
	       ap->seg[ap->seg_first].cur == ap->seg[ap->seg_first].end)
		ap->seg_first++;
	for (i = ap->seg_first; i < ap->nseg && n < SPLIT_SCAN; i++, n++)
		if (ap->seg[i].cur < ap->seg[i].end &&
		    (!best || ap->seg[i].end - ap->seg[i].cur >
			      best->end - best->cur))
			best = &ap->seg[i];
	if (ap->nseg && ap->seg[ap->nseg - 1].cur < ap->seg[ap->nseg - 1].end &&
	    (!best || ap->seg[ap->nseg - 1].end - ap->seg[ap->nseg - 1].cur >
		      best->end - best->cur))
		best = &ap->seg[ap->nseg - 1];
	return best;
}

/*
 * A fork no window holds whole: its units in file order as one stream
 * over the largest windows, so it ends up in as few extents as the AG
 * allows; a unit is cut where a window ends.
 */
int plan_place_split(struct agplan *aps, const struct unit_ref *u, size_t nu,
		     struct agplan *dst, struct window_room *wr)
{
	uint32_t off = 0;
	size_t k = 0;
	int ret = 0;

	while (k < nu && !ret) {
		struct seg *sg = largest_window(dst);

		if (!sg)
			return -ENOSPC;
		while (k < nu && sg->cur < sg->end && !ret) {
			struct agplan *src = &aps[u[k].agno];
			struct unit *un = &src->unit[u[k].idx];
			uint32_t len = un->len - off;

			if (len > sg->end - sg->cur)
				len = sg->end - sg->cur;
			ret = plan_add_piece(src, un, off, len, sg->cur);
			plan_room_take(wr, sg->cur, len);
			sg->cur += len;
			off += len;
			if (off == un->len) {
				k++;
				off = 0;
			}
		}
	}
	return ret;
}
