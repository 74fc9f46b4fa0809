/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG map's geometry: the grid for a screen size, the zoom levels
 * (whole filesystem, one AG, then halving down to one block per cell),
 * where the view starts so the cursor stays on it, framing a file, and
 * the class of every cell (one blkmap sweep).  No drawing here.
 */
#include "tui/tui.h"
#include "ondisk/geo.h"

#include <stdlib.h>
#include <string.h>

#define MAP_TOP		2	/* header, title */
#define MAP_BOTTOM	4	/* two readout lines, legend, status */

static int ndigits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

void agmap_layout(const struct blkmap *bm, int lines, int cols,
		  struct agmap_layout *l)
{
	uint64_t cells, s0, s1, p;

	memset(l, 0, sizeof(*l));
	/* row labels "AG:agbno " */
	l->gutter = ndigits(bm->agcount ? bm->agcount - 1 : 0) + 1 +
		    ndigits(bm->agblocks ? bm->agblocks - 1 : 0) + 1;
	l->top = MAP_TOP;
	l->left = l->gutter;
	l->rows = lines - MAP_TOP - MAP_BOTTOM;
	if (l->rows < 1)
		l->rows = 1;
	l->cols = cols - l->gutter;
	if (l->cols < 1)
		l->cols = 1;
	cells = (uint64_t)l->rows * (uint64_t)l->cols;
	s0 = div_up(bm->dblocks ? bm->dblocks : 1, cells);
	l->steps[l->nlevels++] = s0;
	s1 = div_up(bm->agblocks ? bm->agblocks : 1, cells);
	if (s1 < s0)
		l->steps[l->nlevels++] = s1;
	s1 = l->steps[l->nlevels - 1];
	if (s1 <= 1)
		return;
	for (p = 1; p * 2 < s1; p *= 2)
		;
	for (; l->nlevels < AGMAP_MAXLEVELS; p >>= 1) {
		l->steps[l->nlevels++] = p;
		if (p == 1)
			break;
	}
}

static uint64_t ag_start(const struct blkmap *bm, uint64_t lin)
{
	return bm->agblocks ? lin / bm->agblocks * bm->agblocks : 0;
}

static uint64_t ag_size(const struct blkmap *bm, uint64_t lin)
{
	uint32_t agno = bm->agblocks ? (uint32_t)(lin / bm->agblocks) : 0;

	return agno < bm->agcount ? bm->ag[agno].blocks : bm->agblocks;
}

/*
 * The view's first block for the cursor: the whole filesystem from 0;
 * a view that holds an AG starts at the cursor's AG; finer views scroll
 * by whole rows (recentre: put the cursor's row mid-screen, not before
 * its AG's start).
 */
void agmap_place(struct agmap *a, const struct blkmap *bm,
		 const struct agmap_layout *l, bool recentre)
{
	uint64_t step, rowb, span, base, row, back;

	if (a->level >= l->nlevels)
		a->level = l->nlevels - 1;
	if (a->cursor >= bm->dblocks)
		a->cursor = bm->dblocks ? bm->dblocks - 1 : 0;
	step = l->steps[a->level];
	rowb = step * (uint64_t)l->cols;
	span = rowb * (uint64_t)l->rows;
	if (a->level == 0 || span >= bm->dblocks) {
		a->origin = 0;
		return;
	}
	base = ag_start(bm, a->cursor);
	if (span >= ag_size(bm, a->cursor)) {
		a->origin = base;
		return;
	}
	if (!recentre) {
		if (a->cursor < a->origin) {
			uint64_t k = div_up(a->origin - a->cursor, rowb);

			a->origin = a->origin > k * rowb ?
				    a->origin - k * rowb : 0;
		} else if (a->cursor >= a->origin + span) {
			uint64_t k = (a->cursor - a->origin - span) / rowb + 1;

			a->origin += k * rowb;
		}
		return;
	}
	row = (a->cursor - base) / rowb;
	back = (uint64_t)(l->rows / 2);
	a->origin = row > back ? base + (row - back) * rowb : base;
}

/*
 * Frame the marked file: the finest level whose view holds its inode and
 * every extent on this device, the cursor on its first data block (or
 * its inode when it has none).
 */
void agmap_fit(struct agmap *a, const struct tui *t,
	       const struct agmap_layout *l)
{
	const struct od_geo *g = &t->fs->geo;
	const struct m_ag *ag;
	const struct m_ino *mi = model_find(t->m, a->mark, &ag);
	uint64_t lo, hi, first;
	uint32_t k;
	unsigned lv;

	if (!mi) {
		agmap_place(a, t->bm, l, true);
		return;
	}
	lo = hi = first = model_ino_lin(t->fs, mi->ino);
	for (k = 0; k < mi->nde + mi->nae; k++) {
		struct od_irec r;
		uint64_t s;

		if (k < mi->nde && (mi->flags & MI_REALTIME))
			continue;
		m_ext_get(&ag->ext[mi->ext + k], &r);
		s = od_fsb_lin(g, r.startblock);
		if (k == 0)
			first = s;
		if (s < lo)
			lo = s;
		if (s + r.blockcount - 1 > hi)
			hi = s + r.blockcount - 1;
	}
	a->cursor = first;
	for (lv = l->nlevels; lv-- > 0;) {
		uint64_t rowb = l->steps[lv] * (uint64_t)l->cols;
		uint64_t span = rowb * (uint64_t)l->rows;
		uint64_t base = ag_start(t->bm, lo), origin, spare;

		if (lv == 0 || span >= t->bm->dblocks) {
			origin = 0;
		} else if (span >= ag_size(t->bm, lo)) {
			origin = base;
		} else {
			origin = base + (lo - base) / rowb * rowb;
			/* centre the file's rows when there is room */
			if (hi < origin + span) {
				spare = (origin + span - 1 - hi) / rowb / 2;
				if (origin - base >= spare * rowb)
					origin -= spare * rowb;
			}
		}
		if (hi < origin + span || lv == 0) {
			a->level = lv;
			a->origin = origin;
			return;
		}
	}
}

int agmap_compute(struct agmap *a, const struct blkmap *bm,
		  const struct agmap_layout *l)
{
	size_t n = (size_t)l->rows * (size_t)l->cols;

	if (n > a->cap) {
		uint8_t *v = realloc(a->cls, n);

		if (!v)
			return -ENOMEM;
		a->cls = v;
		a->cap = n;
	}
	a->cols = l->cols;
	a->rows = l->rows;
	return blkmap_cells(bm, a->origin, l->steps[a->level], n, a->mark,
			    a->cls);
}
