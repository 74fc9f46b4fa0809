/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The executor's driver: the phases in order (their shared I/O: exec_io.c). */
#include "core/relocate/exec_priv.h"
#include "core/relocate/refuse.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int flush(struct xctx *x)
{
	int ret = img_flush(x->fs->img);

	return ret ? err_set(x->e, ret, "%s: flushing the image failed: %s",
			     x->fs->path, strerror(-ret)) : 0;
}

/*
 * The superblock with NEEDSREPAIR and the run's mark set (on), or both
 * cleared (off), into buf (sectsize bytes).
 */
static int sb_marked(struct xctx *x, bool on, uint8_t *buf)
{
	int ret = fs_pread(x->fs, 0, buf, x->g->sectsize, x->e, "superblock");

	if (!ret)
		undo_sb_mark(x->u, buf, x->g->sectsize, on);
	return ret;
}

/* First write of the run: NEEDSREPAIR and the mark, synced. */
static int mark_sb(struct xctx *x)
{
	uint8_t buf[32768];
	int ret = sb_marked(x, true, buf);

	if (!ret)
		ret = x_pwrite(x, 0, buf, x->g->sectsize, x->e, "superblock");
	return ret ? ret : flush(x);
}

/*
 * The blocks the remapped unwritten extents land on hold nobody's bytes
 * when the run ends, as free space does: a later run (or its undo) may
 * leave anything there.  So the seal treats those that held data at the
 * start as vacated: their originals are journaled, or found at the copy
 * this run made, and undo copies them back (mark_unwritten's rule, seen
 * from the run after this one).
 */
static int mark_unwritten_end(struct xctx *x)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < x->p->nmv && !ret; i++)
		if (x->p->mv[i].flags & PM_NOCOPY)
			ret = undo_mark_free_end(x->u, x->p->mv[i].dst,
						 x->p->mv[i].len, x->e);
	return ret;
}

/*
 * The end: seal the undo file with the crc of the superblock as it will
 * be (NEEDSREPAIR and the mark cleared), make that durable, then write
 * it, then the end record.  A filesystem a kernel can mount always has a
 * sealed undo file.
 */
static int finish(struct xctx *x)
{
	uint8_t buf[32768];
	int ret = flush(x);

	if (!ret)
		ret = sb_marked(x, false, buf);
	if (!ret)
		ret = undo_seal(x->u, buf, x->e);
	if (!ret)
		ret = x_pwrite(x, 0, buf, x->g->sectsize, x->e, "superblock");
	if (!ret)
		ret = flush(x);
	if (!ret)
		ret = undo_finish(x->u, x->e);
	return ret;
}

/*
 * What the journal need not keep: free space, and the blocks of the
 * unwritten extents the run remaps without copying.  Those read as zeros
 * through the mapping undo restores whatever they hold (an unwritten
 * extent is never shared with a written one: a write to a shared extent
 * copies it first), so their bytes are nobody's.
 */
static int mark_free(struct xctx *x)
{
	uint32_t a;
	size_t i;
	int ret = 0;

	for (a = 0; a < x->m->agcount && !ret; a++) {
		const struct m_ag *ag = &x->m->ag[a];

		for (i = 0; i < ag->nfree && !ret; i++)
			ret = undo_mark_free(x->u, od_agb_lin(x->g, a,
							      ag->freesp[i].agbno),
					     ag->freesp[i].len, x->e);
	}
	for (i = 0; i < x->p->nmv && !ret; i++)
		if (x->p->mv[i].flags & PM_NOCOPY)
			ret = undo_mark_free(x->u, x->p->mv[i].src,
					     x->p->mv[i].len, x->e);
	return ret;
}

int exec_run(struct fs *fs, const struct model *m, const struct plan *p,
	     const struct exec_opts *o, struct exec_stats *st,
	     struct err *e)
{
	struct xctx x;
	uint64_t t0 = now_ns(), t1;
	int ret;

	memset(&x, 0, sizeof(x));
	memset(st, 0, sizeof(*st));
	x.fs = fs;
	x.g = &fs->geo;
	x.m = m;
	x.p = p;
	x.o = o;
	x.st = st;
	x.e = e;
	if (!x.g->v5)	/* refuse_write says so first; never write v4 */
		return err_set(e, -EPERM, "refusing to write: not a v5 "
			       "filesystem");
	x.nlin = (uint64_t)x.g->agcount * x.g->agblocks;
	x.written = calloc((x.nlin + 63) / 64, sizeof(*x.written));
	x.buf = malloc(XBUF);
	if (!x.written || !x.buf) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	/* read what the old btrees say before anything overwrites them */
	ret = exec_ags_prepare(&x);
	/* renumbering: refused, or checked and planned out, before a write */
	if (!ret && (p->nino || p->nich))
		ret = refuse_renumber(fs, e);
	if (!ret)
		ret = exec_renum_prepare(&x);
	if (!ret)
		ret = exec_pptr_prepare(&x);
	if (!ret)
		ret = exec_shrink_prepare(&x);
	if (ret)
		goto out;
	if (o->fault_after >= 0) {
		ret = img_push_fault(&fs->img, o->fault_after, o->fault_err,
				     o->fault_sticky);
		if (ret) {
			err_set(e, ret, "cannot stack the fault layer");
			goto out;
		}
	}
	ret = undo_begin_pass(fs, o->undo_path, &o->undo_link, &x.u, e);
	if (ret)
		goto out;
	st->undo_created = true;
	ret = mark_free(&x);
	x_progress(&x, "mark", 0, 1);
	if (!ret)
		ret = mark_sb(&x);
	/* copies into free space first: what is overwritten after them
	 * mostly has its original there (the journal names the copy) */
	t1 = now_ns();
	if (!ret)
		ret = exec_copy(&x, true);
	st->ns_copy = now_ns() - t1;
	st->w_inodes[0] = st->writes + 1;
	if (!ret)
		ret = exec_inodes(&x);	/* before copy may reuse freed chunks */
	st->w_inodes[1] = st->writes;
	t1 = now_ns();
	if (!ret)
		ret = exec_copy(&x, false);
	st->ns_copy += now_ns() - t1;
	if (!ret)
		ret = exec_headers(&x);
	if (!ret)
		ret = exec_forks(&x);
	st->w_refs[0] = st->writes + 1;
	if (!ret)
		ret = exec_irefs(&x);
	st->w_refs[1] = st->writes;
	st->inodes_renumbered = x.xr ? x.xr->moved : 0;
	st->w_geometry[0] = st->writes + 1;
	if (!ret)
		ret = exec_ags(&x);
	if (!ret)
		ret = exec_shrink(&x);
	st->w_geometry[1] = st->writes;
	if (!p->shrink.dblocks)
		st->w_geometry[0] = st->w_geometry[1] = 0;
	if (!ret)
		ret = mark_unwritten_end(&x);
	if (!ret)
		ret = finish(&x);
	st->journal_bytes = undo_bytes(x.u);
	undo_end(fs, x.u);
out:
	exec_ags_release(&x);
	exec_pptr_release(&x);
	exec_renum_release(&x);
	exec_shrink_release(&x);
	free(x.written);
	free(x.buf);
	st->ns_total = now_ns() - t0;
	return ret;
}
