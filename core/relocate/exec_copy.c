/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copy phase: every move, in destination order, in batches whose
 * live destinations are journaled (one fsync) before any is written.
 * Moves into space free when the run began go first, a group of their
 * own, before the inodes phase: the blocks that phase and the other
 * moves overwrite then mostly hold data already copied there, which the
 * journal names instead of holding (undo.h).
 * Sources overwritten earlier in the run are read back from the journal.
 *
 * Moves are mostly a few blocks (a small file each) with their sources
 * anywhere: a read and a write each, one waited for after the other,
 * kept the copy far below the device's rate.  So a batch is copied in
 * pieces of up to CBUF bytes: the piece's sources are announced to the
 * kernel (img_willneed: it reads them many at once), read in disk order
 * into one buffer laid out in destination order, and written in runs of
 * adjacent destinations (the plan packs them: mostly one write a piece).
 * Every source of a piece is read before any of its writes, so a source
 * the piece overwrites is read as it was; one that an earlier piece
 * overwrote comes from the journal (x_read_orig).
 */
#include "core/relocate/exec_priv.h"

#include <stdlib.h>

/*
 * Journaled with one sync.  Small enough that data moving down by more
 * than a batch was copied in an earlier one, so the block it leaves is
 * journaled as a reference to the copy (most moves of a dense layout go
 * a few MiB down: 64 MiB batches journaled 78% of the bytes moved on
 * bench/mkbig.sh's image, 8 MiB ones 56%, at the same copy time).
 */
#define BATCH_BYTES	(8ull << 20)
#define CBUF		(16u << 20)	/* copied at once */

static int cmp_dst(const void *a, const void *b, void *arg)
{
	const struct plan_move *mv = arg;
	const struct plan_move *x = &mv[*(const size_t *)a];
	const struct plan_move *y = &mv[*(const size_t *)b];

	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* A read of a piece: a move's source, and where it goes in the buffer. */
struct piece_read {
	uint64_t src;
	uint64_t len;		/* blocks */
	size_t at;		/* bytes into the buffer */
};

static int cmp_rd(const void *a, const void *b)
{
	const struct piece_read *x = a, *y = b;

	return x->src < y->src ? -1 : x->src > y->src;
}

struct piece {
	uint8_t *buf;		/* CBUF bytes */
	struct piece_read *rd;	/* room for the most moves a piece holds */
};

/* A move larger than the buffer: through x->buf in turn. */
static int copy_one(struct xctx *x, const struct plan_move *mv)
{
	uint64_t per = XBUF >> x->g->blocklog, done = 0;
	int ret;

	while (done < mv->len) {
		uint64_t n = mv->len - done;

		if (n > per)
			n = per;
		ret = x_read_orig(x, mv->src + done, x->buf, n, "copy source");
		if (!ret)
			ret = x_write(x, mv->dst + done, x->buf, n,
				      "copy destination");
		if (ret)
			return ret;
		done += n;
		x->st->bytes_copied += n << x->g->blocklog;
	}
	/* its copy holds the source's original: undo may find it there */
	return undo_note_move(x->u, mv->src, mv->dst, mv->len, false, x->e);
}

/* Copy the moves order[i0, i1): copies, in destination order, CBUF bytes
 * at most in all. */
static int copy_piece(struct xctx *x, struct piece *pc, const size_t *order,
		      size_t i0, size_t i1)
{
	const struct plan_move *mv = x->p->mv;
	unsigned bl = x->g->blocklog;
	size_t n = i1 - i0, i, j, at = 0;
	int ret = 0;

	for (i = 0; i < n; i++) {
		const struct plan_move *m = &mv[order[i0 + i]];

		pc->rd[i].src = m->src;
		pc->rd[i].len = m->len;
		pc->rd[i].at = at;
		at += (size_t)m->len << bl;
	}
	qsort(pc->rd, n, sizeof(*pc->rd), cmp_rd);
	for (i = 0; i < n; i++) {
		if (!x_written(x, pc->rd[i].src))
			img_willneed(x->fs->img, x_off(x, pc->rd[i].src),
				     pc->rd[i].len << bl);
	}
	for (i = 0; i < n && !ret; i++)
		ret = x_read_orig(x, pc->rd[i].src, pc->buf + pc->rd[i].at,
				  pc->rd[i].len, "copy source");
	/* runs of adjacent destinations, one write each */
	for (i = 0, at = 0; i < n && !ret; i = j) {
		const struct plan_move *m = &mv[order[i0 + i]];
		uint64_t len = m->len;

		for (j = i + 1; j < n; j++) {
			const struct plan_move *q = &mv[order[i0 + j]];

			if (q->dst != m->dst + len)
				break;
			len += q->len;
		}
		ret = x_write(x, m->dst, pc->buf + at, len, "copy destination");
		at += (size_t)len << bl;
		if (!ret)
			x->st->bytes_copied += len << bl;
	}
	/* their copies hold the sources' originals: undo may find them */
	for (i = i0; i < i1 && !ret; i++) {
		const struct plan_move *m = &mv[order[i]];

		ret = undo_note_move(x->u, m->src, m->dst, m->len, false,
				     x->e);
	}
	return ret;
}

/*
 * Are blocks [lin, lin+n) free space at the start (the model's)?  Both
 * calls of exec_copy must split the moves the same way, whatever the
 * journal has been told since (exec.c marks more blocks as needing no
 * record), and the same way as plan's undo estimate does.
 */
static bool free_at_start(const struct xctx *x, uint64_t lin, uint32_t n)
{
	uint32_t a = (uint32_t)(lin / x->g->agblocks);
	uint32_t b = (uint32_t)(lin % x->g->agblocks);
	const struct m_ag *ag;
	size_t lo = 0, hi;

	if (a >= x->m->agcount)
		return false;
	ag = &x->m->ag[a];
	hi = ag->nfree;
	while (lo < hi) {	/* the last extent starting at or before b */
		size_t mid = lo + (hi - lo) / 2;

		if (ag->freesp[mid].agbno <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && (uint64_t)b + n <= (uint64_t)ag->freesp[lo - 1].agbno +
					 ag->freesp[lo - 1].len;
}

/* Copy the batch order[b0, b1), whose destinations are journaled. */
static int copy_batch(struct xctx *x, struct piece *pc, const size_t *order,
		      size_t b0, size_t b1, uint64_t total)
{
	const struct plan_move *mv = x->p->mv;
	unsigned bl = x->g->blocklog;
	size_t i = b0, i0;
	int ret = 0;

	while (i < b1 && !ret) {
		const struct plan_move *m = &mv[order[i]];
		uint64_t bytes = 0;

		if (m->flags & PM_NOCOPY) {
			x->st->blocks_remapped += m->len;
			ret = undo_note_move(x->u, m->src, m->dst, m->len,
					     true, x->e);
			i++;
			continue;
		}
		if (((uint64_t)m->len << bl) > CBUF) {
			ret = copy_one(x, m);
			i++;
			continue;
		}
		/* as many copies as the buffer holds, none too large */
		for (i0 = i; i < b1; i++) {
			m = &mv[order[i]];
			if ((m->flags & PM_NOCOPY) ||
			    bytes + ((uint64_t)m->len << bl) > CBUF)
				break;
			bytes += (uint64_t)m->len << bl;
		}
		ret = copy_piece(x, pc, order, i0, i);
		x_progress(x, "copy", x->st->bytes_copied, total);
	}
	return ret;
}

int exec_copy(struct xctx *x, bool first)
{
	const struct plan *p = x->p;
	struct piece pc = { 0 };
	uint64_t total = 0;
	size_t *order, i, b0, n = 0;
	int ret = 0;

	order = malloc((p->nmv ? p->nmv : 1) * sizeof(*order));
	pc.buf = malloc(CBUF);
	/* a piece holds one move a block at most */
	pc.rd = malloc((CBUF >> x->g->blocklog) * sizeof(*pc.rd));
	if (!order || !pc.buf || !pc.rd) {
		ret = err_set(x->e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < p->nmv; i++) {
		const struct plan_move *m = &p->mv[i];
		bool in_first = !(m->flags & PM_NOCOPY) &&
				free_at_start(x, m->dst, m->len);

		if (!(m->flags & PM_NOCOPY))
			total += (uint64_t)m->len << x->g->blocklog;
		if (in_first == first)
			order[n++] = i;
	}
	qsort_r(order, n, sizeof(*order), cmp_dst, p->mv);
	for (b0 = 0; b0 < n && !ret;) {
		uint64_t bytes = 0;
		size_t b1;

		/* journal the batch's live destinations, one sync */
		for (b1 = b0; b1 < n && bytes < BATCH_BYTES; b1++) {
			const struct plan_move *mv = &p->mv[order[b1]];

			if (mv->flags & PM_NOCOPY)
				continue;
			ret = undo_prepare(x->u, x_off(x, mv->dst),
					   (uint64_t)mv->len << x->g->blocklog,
					   x->e);
			if (ret)
				break;
			bytes += (uint64_t)mv->len << x->g->blocklog;
		}
		if (!ret)
			ret = undo_sync(x->u, x->e);
		if (!ret)
			ret = copy_batch(x, &pc, order, b0, b1, total);
		b0 = b1;
	}
	if (!ret)
		ret = img_flush(x->fs->img) ? err_set(x->e, -EIO,
			"flushing the image after the copy failed") : 0;
out:
	free(order);
	free(pc.buf);
	free(pc.rd);
	return ret;
}
