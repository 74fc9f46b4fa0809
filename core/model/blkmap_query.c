/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Questions to the block ownership index: who owns a block, and what a
 * range of blocks (or a row of map cells) is mostly made of.
 */
#include "core/model/blkmap.h"
#include "ondisk/geo.h"
#include "core/base/search.h"

#include <stdlib.h>
#include <string.h>

static inline bool end_before(const uint32_t *maxend, uint32_t agbno)
{
	return *maxend <= agbno;
}

SEARCH_FIRST(maxend_search, uint32_t, uint32_t, end_before)

size_t blkmap_seek(const struct bm_ag *ag, uint32_t agbno)
{
	/* maxend never decreases: spans before the one found all end at
	 * or before agbno */
	return maxend_search(ag->maxend, ag->nspan, agbno);
}

size_t blkmap_owners(const struct blkmap *bm, uint32_t agno, uint32_t agbno,
		     const struct bm_span **out, size_t max)
{
	const struct bm_ag *ag;
	size_t i, n = 0;

	if (agno >= bm->agcount)
		return 0;
	ag = &bm->ag[agno];
	for (i = blkmap_seek(ag, agbno);
	     i < ag->nspan && ag->span[i].agbno <= agbno; i++) {
		if (bm_span_end(&ag->span[i]) <= agbno)
			continue;
		if (n < max)
			out[n] = &ag->span[i];
		n++;
	}
	return n;
}

enum bm_class blkmap_class(const struct bm_span *s, uint64_t mark)
{
	bool marked = mark && s->owner == mark;

	switch (s->kind) {
	case BK_FREE:
		return BC_FREE;
	case BK_INODES:
		return BC_INODES;
	case BK_META:
		return s->meta == MM_AGFL_FREE ? BC_FREE : BC_META;
	case BK_BMBT:
		return marked ? BC_MARKED : BC_META;
	default:
		if (marked)
			return BC_MARKED;
		return (s->flags & BMS_FRAG) ? BC_FRAG : BC_DATA;
	}
}

/* Receives each piece of a span inside the swept range, linear blocks. */
typedef void (*piece_fn)(void *priv, uint64_t s, uint64_t e,
			 enum bm_class c, const struct bm_span *sp,
			 uint32_t agno);

/*
 * Every span overlapping linear [lin, end), clipped to it, in span order
 * per AG.  The block holding the marked inode itself is a piece of its
 * own (BC_MARKED) inside its chunk's span.
 */
static void sweep(const struct blkmap *bm, uint64_t lin, uint64_t end,
		  uint64_t mark, piece_fn fn, void *priv)
{
	const struct od_geo *g = &bm->m->fs->geo;
	uint32_t mark_agno = UINT32_MAX, mark_agbno = 0, agno;

	if (mark && od_ino_valid(g, mark)) {
		mark_agno = od_ino_agno(g, mark);
		mark_agbno = od_agino_agbno(g, od_ino_agino(g, mark));
	}
	if (end > bm->dblocks)
		end = bm->dblocks;
	if (lin >= end || !bm->agblocks)
		return;
	for (agno = (uint32_t)(lin / bm->agblocks); agno < bm->agcount;
	     agno++) {
		const struct bm_ag *ba = &bm->ag[agno];
		uint64_t base = blkmap_lin(bm, agno, 0);
		uint32_t lo, hi;
		size_t i;

		if (base >= end)
			break;
		lo = lin > base ? (uint32_t)(lin - base) : 0;
		hi = end - base < ba->blocks ? (uint32_t)(end - base) :
					       ba->blocks;
		for (i = blkmap_seek(ba, lo);
		     i < ba->nspan && ba->span[i].agbno < hi; i++) {
			const struct bm_span *sp = &ba->span[i];
			uint32_t s = sp->agbno > lo ? sp->agbno : lo;
			uint32_t e = bm_span_end(sp);

			if (e > hi)
				e = hi;
			if (s >= e)
				continue;
			if (sp->kind == BK_INODES && agno == mark_agno &&
			    mark_agbno >= s && mark_agbno < e) {
				if (s < mark_agbno)
					fn(priv, base + s, base + mark_agbno,
					   BC_INODES, sp, agno);
				fn(priv, base + mark_agbno,
				   base + mark_agbno + 1, BC_MARKED, sp, agno);
				if (mark_agbno + 1 < e)
					fn(priv, base + mark_agbno + 1,
					   base + e, BC_INODES, sp, agno);
				continue;
			}
			fn(priv, base + s, base + e, blkmap_class(sp, mark),
			   sp, agno);
		}
	}
}

/* Blocks of linear [s, e) inside the filesystem. */
static uint64_t inside(const struct blkmap *bm, uint64_t s, uint64_t e)
{
	if (e > bm->dblocks)
		e = bm->dblocks;
	return e > s ? e - s : 0;
}

/* Fill in "other" and pick the dominant class of per-class counts. */
static enum bm_class dominant(uint64_t *blocks, uint64_t in)
{
	static const enum bm_class prio[] = {
		BC_FRAG, BC_DATA, BC_INODES, BC_META, BC_FREE, BC_OTHER,
	};
	uint64_t known = 0;
	enum bm_class best = prio[0];
	unsigned c;

	for (c = 0; c < BC_OTHER; c++)
		known += blocks[c];
	blocks[BC_OTHER] = in > known ? in - known : 0;
	if (!in)
		return BC_OUTSIDE;
	if (blocks[BC_MARKED])
		return BC_MARKED;
	for (c = 1; c < sizeof(prio) / sizeof(prio[0]); c++)
		if (blocks[prio[c]] > blocks[best])
			best = prio[c];
	return best;
}

static void summary_piece(void *priv, uint64_t s, uint64_t e,
			  enum bm_class c, const struct bm_span *sp,
			  uint32_t agno)
{
	struct bm_summary *sum = priv;

	sum->blocks[c] += e - s;
	if (e - s > sum->top_len[c]) {
		sum->top[c] = sp;
		sum->top_agno[c] = agno;
		sum->top_len[c] = e - s;
	}
	sum->nspans++;
}

void blkmap_summary(const struct blkmap *bm, uint64_t lin, uint64_t len,
		    uint64_t mark, struct bm_summary *s)
{
	memset(s, 0, sizeof(*s));
	sweep(bm, lin, lin + len, mark, summary_piece, s);
	s->inside = inside(bm, lin, lin + len);
	dominant(s->blocks, s->inside);
}

enum bm_class blkmap_dominant(const struct bm_summary *s)
{
	uint64_t b[BC_NCLASS];

	memcpy(b, s->blocks, sizeof(b));
	return dominant(b, s->inside);
}

struct cells {
	uint64_t lin, step;
	uint64_t (*cnt)[BC_NCLASS];
};

static void cells_piece(void *priv, uint64_t s, uint64_t e, enum bm_class c,
			const struct bm_span *sp, uint32_t agno)
{
	struct cells *cl = priv;
	uint64_t c0 = (s - cl->lin) / cl->step;
	uint64_t c1 = (e - 1 - cl->lin) / cl->step;
	uint64_t k;

	(void)sp;
	(void)agno;
	if (c0 == c1) {
		cl->cnt[c0][c] += e - s;
		return;
	}
	for (k = c0; k <= c1; k++) {
		uint64_t cs = cl->lin + k * cl->step, ce = cs + cl->step;

		cl->cnt[k][c] += (e < ce ? e : ce) - (s > cs ? s : cs);
	}
}

int blkmap_cells(const struct blkmap *bm, uint64_t lin, uint64_t step,
		 size_t ncells, uint64_t mark, uint8_t *cls)
{
	struct cells cl = { lin, step ? step : 1, NULL };
	size_t i;

	if (!ncells)
		return 0;
	cl.cnt = calloc(ncells, sizeof(*cl.cnt));
	if (!cl.cnt)
		return -ENOMEM;
	sweep(bm, lin, lin + cl.step * ncells, mark, cells_piece, &cl);
	for (i = 0; i < ncells; i++) {
		uint64_t cs = lin + i * cl.step;

		cls[i] = (uint8_t)dominant(cl.cnt[i],
					   inside(bm, cs, cs + cl.step));
	}
	free(cl.cnt);
	return 0;
}

const char *blkmap_meta_name(unsigned kind)
{
	static const char *const names[MM_NKINDS] = {
		[MM_SB] = "superblock",
		[MM_AGF] = "AGF",
		[MM_AGI] = "AGI",
		[MM_AGFL] = "AGFL",
		[MM_BNOBT] = "bnobt block",
		[MM_CNTBT] = "cntbt block",
		[MM_INOBT] = "inobt block",
		[MM_FINOBT] = "finobt block",
		[MM_RMAPBT] = "rmapbt block",
		[MM_REFCBT] = "refcountbt block",
		[MM_AGFL_FREE] = "AGFL slot (free list block)",
		[MM_LOG] = "log",
		[MM_BMBT] = "bmbt block",
	};

	return kind < MM_NKINDS && names[kind] ? names[kind] : "metadata";
}

const char *blkmap_class_name(enum bm_class c)
{
	static const char *const names[BC_NCLASS + 1] = {
		[BC_FREE] = "free",
		[BC_INODES] = "inodes",
		[BC_META] = "metadata",
		[BC_DATA] = "data",
		[BC_FRAG] = "fragmented data",
		[BC_MARKED] = "selected file",
		[BC_OTHER] = "other",
		[BC_OUTSIDE] = "outside",
	};

	return (unsigned)c <= BC_NCLASS ? names[c] : "?";
}
