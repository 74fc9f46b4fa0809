/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One pass: plan from the image as it is now, write the map lines of
 * what it renumbers, execute behind the pass's own undo file, verify on
 * a fresh view, and keep the pass or roll it back.
 */
#include "core/run/run_priv.h"
#include "core/undo/chain.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull),
			       (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* The executor's progress; with --max-rate the copy waits for the clock. */
static void progress(void *priv, const struct exec_progress *p)
{
	struct run_ctx *c = priv;
	const struct run_ev *ev = c->o->ev;
	double rate = c->o->max_rate * 1048576.0;
	uint64_t t = run_now_ns();

	if (strcmp(p->phase, "mark") == 0)
		c->copy_t0 = t;
	if (rate > 0 && strcmp(p->phase, "copy") == 0) {
		double wait = (double)p->done / rate * 1e9;
		uint64_t due = c->copy_t0 + (uint64_t)wait;

		if (due > t)
			sleep_ns(due - t);
	}
	if (ev && ev->progress)
		ev->progress(ev->priv, c->pass, p);
}

static void problem(void *priv, const struct check_msg *m)
{
	const struct run_ev *ev = ((struct run_ctx *)priv)->o->ev;

	if (ev && ev->problem)
		ev->problem(ev->priv, m);
}

/* The pass is written: look at it again, as another program would. */
static int verify(struct run_ctx *c, struct err *e)
{
	struct check_result cr = { 0 };
	struct fs *vfs = NULL;
	int ret = img_recheck_writers(c->fs->img, e);

	if (ret)
		return err_set(e, ret, "%s; what it wrote during the run may "
			       "be lost, and the run is rolled back", e->msg);
	ret = run_view(c, false, &vfs, e);
	if (!ret)
		ret = check_fs(vfs, c->o->threads, problem, c, &cr, e);
	fs_close(vfs);
	if (!ret && cr.problems)
		ret = err_set(e, -EFSCORRUPTED, "verification of %s FAILED "
			      "(%llu problems)", c->o->image,
			      (unsigned long long)cr.problems);
	return ret;
}

static void fail(struct run_ctx *c, enum run_status s, struct err *e)
{
	c->r->status = s;
	c->r->e = *e;
}

static int keep(struct run_ctx *c, const struct run_pass *rec)
{
	struct run_result *r = c->r;
	struct run_pass *nv = realloc(r->pass, (r->npass + 1) * sizeof(*nv));
	const struct run_ev *ev = c->o->ev;

	if (!nv)
		return err_set(&r->e, -ENOMEM, "out of memory");
	r->pass = nv;
	r->pass[r->npass++] = *rec;
	r->map_lines += rec->renumbered;
	if (ev && ev->pass_done)
		ev->pass_done(ev->priv, rec);
	return 0;
}

int run_one_pass(struct run_ctx *c, const bool *focus, const char *what,
		 bool *did)
{
	const struct run_opts *o = c->o;
	struct exec_opts xo = { 0 };
	struct run_pass rec;
	struct plan p = { 0 };
	struct err e = { 0 };
	uint64_t t0 = run_now_ns();
	int ret;

	*did = false;
	memset(&rec, 0, sizeof(rec));
	if (!focus && c->have_whole) {
		/* the verdict's plan: the model has not changed since */
		p = c->whole;
		c->have_whole = false;
		ret = 0;
	} else {
		ret = run_plan_now(c, focus, &p, &e);
	}
	if (ret) {
		/* a shrink the filesystem cannot take: nothing written */
		fail(c, run_shrink_refused(o, ret) ? RUN_REFUSED : RUN_FAILED,
		     &e);
		goto out;
	}
	c->r->shrink = p.shrink;
	if (!run_plan_has_work(&p))
		goto out;
	rec.n = (unsigned)c->r->npass + 1;
	c->pass = rec.n;
	snprintf(rec.what, sizeof(rec.what), "%s", what);
	rec.moved_blocks = p.moved_blocks;
	rec.renumbered = p.nino;
	undo_chain_name(o->undo, rec.n, rec.undo, sizeof(rec.undo));
	if (!c->r->undo_needed)
		c->r->undo_needed = p.undo_estimate;
	/* nothing is written yet: each refusal leaves the image as it is */
	ret = o->fault && o->fault->no_room_check ? 0 :
	      run_undo_room(rec.undo, p.undo_estimate, &e);
	if (!ret)
		ret = run_map_pass(c, &p, &e);
	if (ret) {
		fail(c, RUN_REFUSED, &e);
		goto out;
	}
	xo.undo_path = rec.undo;
	xo.undo_link.pass = rec.n;
	xo.undo_link.prev = rec.n > 1 ? c->r->pass[c->r->npass - 1].undo :
			    NULL;
	xo.fault_after = -1;
	if (o->fault)
		xo.inode_window = o->fault->inode_window;
	if (o->fault && o->fault->pass == rec.n) {
		xo.fault_after = o->fault->after;
		xo.fault_err = o->fault->err;
		xo.fault_sticky = o->fault->sticky;
	}
	xo.progress = progress;
	xo.priv = c;
	ret = exec_run(c->pfs, c->m, &p, &xo, &rec.st, &e);
	plan_free(&p);		/* before its model goes */
	if (ret) {
		/* a refusal found late (cow staging extents): nothing written */
		fail(c, rec.st.writes_done == 0 && ret == -EPERM ?
		     RUN_REFUSED : RUN_FAILED, &e);
		run_say(c, RUN_SAY_ERROR, "%s", e.msg);
		c->r->said = true;
		if (rec.n > 1 || o->by_ag)
			run_say(c, RUN_SAY_ERROR, "pass %u (%s) failed", rec.n,
				what);
		run_failed_pass(c, c->pfs, &rec.st, rec.undo);
		run_map_settle(c, false);
		run_drop_model(c);
		goto out;
	}
	run_drop_model(c);
	ret = verify(c, &e);
	if (ret) {
		fail(c, RUN_FAILED, &e);
		run_say(c, RUN_SAY_ERROR, "%s; restoring the filesystem from %s",
			e.msg, rec.undo);
		c->r->said = true;
		run_failed_pass(c, c->fs, &rec.st, rec.undo);
		run_map_settle(c, false);
		goto out;
	}
	run_map_settle(c, true);
	rec.seconds = (double)(run_now_ns() - t0) / 1e9;
	ret = keep(c, &rec);
	if (ret)
		c->r->status = RUN_FAILED;
	*did = !ret;
out:
	plan_free(&p);
	return ret;
}
