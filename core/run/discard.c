/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --discard: once the run stands (written, sealed, verified, and a
 * shrink's file cut), the free space of the result goes back to the
 * storage, as fstrim does for a mounted filesystem: holes punched in an
 * image file (it keeps its size, its allocated size shrinks), BLKDISCARD
 * on a block device.  Only the free extents of the free-space btrees:
 * never a block in use, the log, an AG header or an AGFL block.
 *
 * The undo file still holds: undo restores from it the blocks the run
 * overwrote and those it vacated (live before, free after) that no
 * intact copy holds; for the others, the move records name the copy,
 * which is live and so never discarded, and undo copies a vacated block
 * back from it whenever the block no longer holds its original (reused,
 * or discarded here).  Blocks free before the run are not restored at
 * all.  So nothing undo reads is discarded.
 */
#include "core/run/run_priv.h"

#include <string.h>
#include <sys/stat.h>

static uint64_t allocated(const struct img *im, bool *ok)
{
	struct stat st;

	*ok = img_stat(im, &st) == 0 && S_ISREG(st.st_mode);
	return *ok ? (uint64_t)st.st_blocks * 512 : 0;
}

int run_discard(struct run_ctx *c)
{
	struct run_result *r = c->r;
	const struct model *m = c->m;
	const struct od_geo *g;
	uint32_t a;
	size_t i;
	int ret = run_fresh_model(c, &r->e);

	if (ret) {
		r->status = RUN_FAILED;
		return ret;
	}
	m = c->m;
	g = &m->fs->geo;
	r->alloc_before = allocated(c->fs->img, &r->have_alloc);
	for (a = 0; a < m->agcount && !ret; a++) {
		const struct m_ag *ag = &m->ag[a];

		for (i = 0; i < ag->nfree && !ret; i++) {
			uint64_t off = od_agb_lin(g, a, ag->freesp[i].agbno) <<
				       g->blocklog;
			uint64_t len = (uint64_t)ag->freesp[i].len << g->blocklog;

			ret = img_discard(c->fs->img, off, len);
			if (ret)
				break;
			r->discard_bytes += len;
			r->discard_extents++;
		}
	}
	if (ret) {
		r->status = RUN_FAILED;
		return err_set(&r->e, ret, "%s: the run stands, but giving free "
			       "space back failed after %llu bytes: %s",
			       c->o->image,
			       (unsigned long long)r->discard_bytes,
			       strerror(-ret));
	}
	r->discarded = true;
	r->alloc_after = allocated(c->fs->img, &r->have_alloc);
	return 0;
}
