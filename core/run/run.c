/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The safe-write sequence (run.h): refuse, fence, pre-check, passes. */
#include "core/run/run_priv.h"
#include "core/relocate/refuse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t run_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool run_opts_limited(const struct run_opts *o)
{
	return o->max_time > 0 || o->max_rate > 0 || o->po.max_write ||
	       plan_limits_any(&o->lim);
}

void run_say(struct run_ctx *c, enum run_say kind, const char *fmt, ...)
{
	const struct run_ev *ev = c->o->ev;
	char msg[1536];
	va_list ap;

	if (!ev || !ev->say)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ev->say(ev->priv, kind, msg);
}

static int refuse(struct run_ctx *c, int code, const char *msg)
{
	struct run_result *r = c->r;

	r->status = RUN_REFUSED;
	if (!r->e.code)
		err_set(&r->e, code, "%s", msg);
	return r->e.code;
}

/* Our checker must find the filesystem consistent before we write. */
static int pre_check(struct run_ctx *c)
{
	struct run_result *r = c->r;
	const struct run_ev *ev = c->o->ev;
	struct check_result cr = { 0 };
	char msg[160];

	if (check_fs(c->fs, c->o->threads, ev ? ev->problem : NULL,
		     ev ? ev->priv : NULL, &cr, &r->e)) {
		r->status = RUN_FAILED;
		return r->e.code;
	}
	if (!cr.problems)
		return 0;
	snprintf(msg, sizeof(msg), "refusing to write: the pre-check found "
		 "%llu problem(s); run xfs_repair first",
		 (unsigned long long)cr.problems);
	return refuse(c, -EFSCORRUPTED, msg);
}

static bool time_up(struct run_ctx *c)
{
	const struct run_opts *o = c->o;

	if (o->stop && *o->stop && o->by_ag) {
		c->r->stop_signal = (int)*o->stop;
		return true;
	}
	return o->max_time > 0 && c->r->npass &&
	       (double)(run_now_ns() - o->t0) / 1e9 >= o->max_time;
}

/*
 * Is the run worth it?  The plan of everything the run may do (within
 * the limits), judged as plan's verdict judges it; a run that is not
 * worth it writes nothing.  A run that does it all in one pass keeps
 * the plan for that pass.
 */
static int judge(struct run_ctx *c)
{
	struct run_result *r = c->r;
	int ret;

	ret = run_plan_now(c, NULL, &c->whole, &r->e);
	if (ret) {
		/* a shrink the filesystem cannot take: nothing written */
		r->status = run_shrink_refused(c->o, ret) ? RUN_REFUSED :
			    RUN_FAILED;
		return ret;
	}
	c->have_whole = true;
	verdict_judge(&c->whole, 0, c->o->max_rate, &r->verdict);
	r->judged = true;
	/* nothing to move is said as such (no_work), not as a verdict */
	if (run_plan_has_work(&c->whole) && !r->verdict.worth_running)
		r->not_worth = true;
	if (c->o->by_ag || r->not_worth) {
		plan_free(&c->whole);
		c->have_whole = false;
	}
	return 0;
}

/* Pass over each AG the user allows, then over whatever they left. */
static int passes(struct run_ctx *c)
{
	const struct run_opts *o = c->o;
	struct run_result *r = c->r;
	uint32_t g, agcount = c->fs->geo.agcount;
	bool *one = NULL, did;
	char what[32];
	int ret = 0;

	if (o->by_ag && !(one = calloc(agcount, sizeof(*one)))) {
		r->status = RUN_FAILED;
		return err_set(&r->e, -ENOMEM, "out of memory");
	}
	for (g = 0; o->by_ag && g < agcount && !ret; g++) {
		if (o->lim.ags && !o->lim.ags[g])
			continue;
		if (time_up(c)) {
			r->stopped = true;
			break;
		}
		memset(one, 0, agcount * sizeof(*one));
		one[g] = true;
		snprintf(what, sizeof(what), "AG %u", g);
		ret = run_one_pass(c, one, what, &did);
	}
	free(one);
	if (!ret && !r->stopped && time_up(c))
		r->stopped = true;
	else if (!ret && !r->stopped)
		ret = run_one_pass(c, NULL, o->by_ag ? "the rest" : "all",
				   &did);
	return ret;
}

/* The figures after, and (passes, limits) what a plan would still move. */
static int after(struct run_ctx *c)
{
	struct run_result *r = c->r;
	struct plan left = { 0 };
	uint32_t g;
	int ret;

	ret = run_fresh_model(c, &r->e);
	if (!ret)
		ret = run_measure(c, c->m, &r->after, &r->rb_after, &r->e);
	if (ret)
		return ret;
	r->have_after = true;
	if (!c->o->by_ag && !run_opts_limited(c->o))
		return 0;
	ret = run_plan_now(c, NULL, &left, &r->e);
	if (!ret && run_plan_has_work(&left)) {
		r->left_blocks = left.moved_blocks ? left.moved_blocks : 1;
		for (g = 0; g < r->agcount; g++)
			r->left_ags[g] = plan_ag(&left, g)->moved_blocks > 0;
	}
	plan_free(&left);
	return ret;
}

int run_fs(struct fs *fs, const struct run_opts *o, struct run_result *r)
{
	struct run_ctx c;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(&c, 0, sizeof(c));
	c.fs = fs;
	c.o = o;
	c.r = r;
	outfile_init(&c.out);
	/* passes and limited runs keep inode numbers (plan.h) */
	c.keep_inodes = o->by_ag || run_opts_limited(o);
	r->agcount = fs->geo.agcount;
	r->blocksize = fs->geo.blocksize;
	r->left_ags = calloc(r->agcount ? r->agcount : 1,
			     sizeof(*r->left_ags));
	if (!r->left_ags) {
		r->status = RUN_FAILED;
		ret = err_set(&r->e, -ENOMEM, "out of memory");
		goto out;
	}
	ret = refuse_write(fs, &r->e);
	if (ret) {
		r->status = RUN_REFUSED;
		goto out;
	}
	if (run_shrinking(o) && (o->by_ag || run_opts_limited(o))) {
		r->status = RUN_REFUSED;
		ret = err_set(&r->e, -EINVAL, "a shrink is one pass over the "
			      "whole filesystem: not with --passes, --max-time "
			      "or limits");
		goto out;
	}
	r->dblocks_before = fs->geo.dblocks;
	r->agcount_before = fs->geo.agcount;
	r->image_before = fs->img->size;
	ret = run_fence(&c, &r->e);
	if (ret) {
		r->status = ret == -EEXIST || ret == -EINVAL ? RUN_REFUSED :
			    RUN_FAILED;
		goto out;
	}
	ret = pre_check(&c);
	if (!ret && !o->force)
		ret = judge(&c);
	if (!ret && r->not_worth)
		goto out;
	if (!ret)
		ret = passes(&c);
	if (!ret && !r->npass)
		r->no_work = true;
	/* the run stands: the image file is cut last (undo extends it) */
	if (!ret && r->npass && r->shrink.dblocks)
		ret = run_shrink_cut(&c);
	if (!ret && after(&c))
		r->status = RUN_FAILED;
	if (!ret && r->status == RUN_OK && o->discard)
		ret = run_discard(&c);
out:
	{
		struct err me = { 0 };

		if (run_map_close(&c, &me) && r->status == RUN_OK) {
			r->status = RUN_FAILED;
			r->e = me;
		}
	}
	if (c.have_whole)
		plan_free(&c.whole);
	run_drop_model(&c);
	outfile_release(&c.out);
	return r->status == RUN_OK ? 0 : (r->e.code ? r->e.code : -EIO);
}

void run_result_free(struct run_result *r)
{
	report_free(&r->before);
	report_free(&r->after);
	free(r->pass);
	free(r->left_ags);
	r->pass = NULL;
	r->left_ags = NULL;
	r->npass = 0;
}
