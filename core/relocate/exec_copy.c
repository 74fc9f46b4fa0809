/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copy phase: every move, in destination order, in batches whose
 * live destinations are journaled (one fsync) before any is written.
 * Sources overwritten earlier in the run are read back from the journal.
 */
#include "core/relocate/exec_priv.h"

#include <stdlib.h>

#define BATCH_BYTES	(64ull << 20)

static int cmp_dst(const void *a, const void *b, void *arg)
{
	const struct plan_move *mv = arg;
	const struct plan_move *x = &mv[*(const size_t *)a];
	const struct plan_move *y = &mv[*(const size_t *)b];

	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

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

int exec_copy(struct xctx *x)
{
	const struct plan *p = x->p;
	uint64_t total = 0;
	size_t *order, i, b0;
	int ret = 0;

	order = malloc((p->nmv ? p->nmv : 1) * sizeof(*order));
	if (!order)
		return err_set(x->e, -ENOMEM, "out of memory");
	for (i = 0; i < p->nmv; i++) {
		order[i] = i;
		if (!(p->mv[i].flags & PM_NOCOPY))
			total += (uint64_t)p->mv[i].len << x->g->blocklog;
	}
	qsort_r(order, p->nmv, sizeof(*order), cmp_dst, p->mv);
	for (b0 = 0; b0 < p->nmv && !ret;) {
		uint64_t bytes = 0;
		size_t b1;

		/* journal the batch's live destinations, one sync */
		for (b1 = b0; b1 < p->nmv && bytes < BATCH_BYTES; b1++) {
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
		for (i = b0; i < b1 && !ret; i++) {
			const struct plan_move *mv = &p->mv[order[i]];

			if (mv->flags & PM_NOCOPY) {
				x->st->blocks_remapped += mv->len;
				ret = undo_note_move(x->u, mv->src, mv->dst,
						     mv->len, true, x->e);
				continue;
			}
			ret = copy_one(x, mv);
			x_progress(x, "copy", x->st->bytes_copied, total);
		}
		b0 = b1;
	}
	free(order);
	if (!ret)
		ret = img_flush(x->fs->img) ? err_set(x->e, -EIO,
			"flushing the image after the copy failed") : 0;
	return ret;
}
