/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag run with limits, a time box or in passes (run_passes.h).
 * Every pass works on a fresh view of the image (a borrowed writable
 * img: the writer's lock stays held once, by the caller's fs), plans from
 * a fresh scan, executes with its own undo file and is verified by the
 * checker on another fresh view; a pass that fails is rolled back from
 * its own undo file, leaving the filesystem as the pass before left it.
 */
#include "cmd/run_passes.h"
#include "cmd/rbfmt.h"
#include "core/check/check.h"
#include "core/model/scan.h"
#include "core/fs/fork.h"
#include "core/undo/chain.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rp {
	struct fs *fs;		/* the writer's handle: holds the lock */
	struct run_args *a;
	struct fs *pfs;		/* view the model was scanned from */
	struct model *m;	/* valid until a pass writes */
	struct plan_home *home;	/* of m, by a full plan (NULL: not yet) */
	size_t nhome;
	struct report before, after;
	struct rb_fig rb_before, rb_after;
	bool have_before, have_after;
	struct run_pass_rec *pass;
	size_t npass;
	bool tty;
	uint64_t last_ns, copy_t0;
	struct err e;
};

/*
 * SIGINT or SIGTERM during a run in passes: finish the pass under way
 * (stopping inside it would leave it for undo), then stop as --max-time
 * does.  The handler puts the default back, so a second signal ends the
 * process at once, as a crash would (undo restores the pass).  The one
 * global: a signal handler has nowhere else to write.
 */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
	signal(sig, SIG_DFL);
}

static void catch_stop_signals(bool on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_stop_signal : SIG_DFL;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool run_args_passes(const struct run_args *a)
{
	return a->by_ag || a->json || a->max_time > 0 ||
	       a->lim.max_rate > 0 || cmd_limits_any(&a->lim);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull),
			       (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Progress on a terminal; and --max-rate: the copy waits for the clock. */
static void progress(void *priv, const struct exec_progress *p)
{
	struct rp *r = priv;
	double rate = r->a->lim.max_rate * 1048576.0;
	uint64_t t = run_now_ns();

	if (strcmp(p->phase, "mark") == 0)
		r->copy_t0 = t;
	if (rate > 0 && strcmp(p->phase, "copy") == 0) {
		uint64_t due = r->copy_t0 +
			       (uint64_t)((double)p->done / rate * 1e9);

		if (due > t) {
			sleep_ns(due - t);
			t = run_now_ns();
		}
	}
	if (!r->tty || (t - r->last_ns < 100000000ull && p->done < p->total))
		return;
	r->last_ns = t;
	if (strcmp(p->phase, "copy") == 0 && p->total)
		fprintf(stderr, "\r\033[Kpass %zu: copy: %.1f of %.1f MiB",
			r->npass + 1, (double)p->done / 1048576.0,
			(double)p->total / 1048576.0);
	else
		fprintf(stderr, "\r\033[Kpass %zu: %s: %llu of %llu",
			r->npass + 1, p->phase, (unsigned long long)p->done,
			(unsigned long long)p->total);
}

static void clear_line(const struct rp *r)
{
	if (r->tty)
		fprintf(stderr, "\r\033[K");
}

static void print_problem(void *priv, const struct check_msg *m)
{
	(void)priv;
	cmd_error("check: %s [%s]", m->text, m->name);
}

/* A second filesystem over the writer's image (writable or not). */
static int view_open(struct rp *r, bool writable, struct fs **out,
		     struct err *e)
{
	struct img *view;

	if (img_borrow(r->fs->img, writable, &view))
		return err_set(e, -ENOMEM, "out of memory");
	if (fs_open_img(view, r->a->image, writable ? FS_RDWR : 0, out, e)) {
		img_close(view);	/* fs_open_img did not take it */
		return e->code ? e->code : -EIO;
	}
	cmd_scan_setup(&r->a->sc, *out);
	return 0;
}

static void drop_model(struct rp *r)
{
	free(r->home);
	r->home = NULL;
	r->nhome = 0;
	model_free(r->m);
	fs_close(r->pfs);
	r->m = NULL;
	r->pfs = NULL;
}

/* The model of the image as it is now (scanned once per change). */
static int fresh_model(struct rp *r)
{
	struct scan_opts so = { 0 };
	int ret;

	if (r->m)
		return 0;
	ret = view_open(r, true, &r->pfs, &r->e);
	if (ret)
		return ret;
	so.dirs = true;
	so.threads = r->a->sc.threads;
	if (scan_fs(r->pfs, &so, &r->m, &r->e))
		return r->e.code ? r->e.code : -EFSCORRUPTED;
	if (!r->have_before) {
		ret = report_build(r->m, -1, 0, &r->before, &r->e);
		if (!ret)
			ret = rbfmt_measure(r->m, r->a->po.order,
					    &r->rb_before, &r->e);
		if (ret)
			return ret;
		r->have_before = true;
	}
	return 0;
}

/* Does the plan change anything beyond rebuilding a bmap btree as is? */
static bool plan_has_work(const struct plan *p)
{
	size_t i;
	uint32_t k;

	if (p->moved_blocks)
		return true;
	for (i = 0; i < p->npf; i++) {
		const struct plan_fork *pf = &p->pf[i];
		const struct m_ag *ag;
		const struct m_ino *mi = model_find(p->m, pf->ino, &ag);
		uint32_t first, n;

		if (!mi)
			return true;
		first = pf->whichfork == FORK_DATA ? 0 : mi->nde;
		n = pf->whichfork == FORK_DATA ? mi->nde : mi->nae;
		if (n != pf->nrecs)
			return true;
		for (k = 0; k < n; k++) {
			struct od_irec x;

			m_ext_get(&ag->ext[mi->ext + first + k], &x);
			if (x.startoff != pf->recs[k].startoff ||
			    x.startblock != pf->recs[k].startblock ||
			    x.blockcount != pf->recs[k].blockcount ||
			    x.unwritten != pf->recs[k].unwritten)
				return true;
		}
	}
	return false;
}

/*
 * Where a full plan of the model puts each inode's data: the AG of its
 * new first data record, or of its first record when it stays.
 */
static int homes(struct rp *r)
{
	struct plan_limits pl = r->a->lim.pl;
	struct plan_opts po = r->a->po;
	struct plan full = { 0 };
	const struct od_geo *g = &r->pfs->geo;
	uint32_t a;
	size_t k, n = 0;
	int ret;

	if (r->home)
		return 0;
	po.lim = &pl;
	po.renumber = PR_NONE;	/* passes keep inode numbers */
	po.inode32 = false;
	ret = plan_build(r->m, &po, &full, &r->e);
	if (!ret) {
		r->home = malloc((r->m->ninodes ? r->m->ninodes : 1) *
				 sizeof(*r->home));
		if (!r->home)
			ret = err_set(&r->e, -ENOMEM, "out of memory");
	}
	for (a = 0; !ret && a < r->m->agcount; a++)
		for (k = 0; k < r->m->ag[a].nino && n < r->m->ninodes; k++) {
			const struct m_ino *mi = &r->m->ag[a].ino[k];
			const struct plan_fork *pf =
				plan_fork_find(&full, mi->ino, FORK_DATA);
			struct od_irec x;

			if (pf && pf->nrecs) {
				x = pf->recs[0];
			} else if (mi->nde && !(mi->flags & MI_REALTIME)) {
				m_ext_get(&r->m->ag[a].ext[mi->ext], &x);
			} else {
				continue;
			}
			r->home[n].ino = mi->ino;
			r->home[n++].agno = od_fsb_agno(g, x.startblock);
		}
	r->nhome = n;
	plan_free(&full);
	return ret;
}

static int plan_now(struct rp *r, const bool *focus, struct plan *p)
{
	struct plan_limits pl = r->a->lim.pl;
	struct plan_opts po = r->a->po;
	int ret = fresh_model(r);

	if (!ret && focus)
		ret = homes(r);
	if (ret)
		return ret;
	pl.focus = focus;
	pl.home = r->home;
	pl.nhome = r->nhome;
	po.lim = &pl;
	if (r->a->by_ag) {	/* passes keep inode numbers (plan.h) */
		po.renumber = PR_NONE;
		po.inode32 = false;
	}
	return plan_build(r->m, &po, p, &r->e);
}

static double secs_since(uint64_t t0)
{
	return (double)(run_now_ns() - t0) / 1e9;
}

/* After a failed pass: what the passes before it left. */
static void earlier_passes(const struct rp *r, unsigned n)
{
	if (n <= 1)
		return;
	cmd_error("(\"before the run\" means before pass %u: passes 1 to %u "
		  "stay done, each verified; xfsdefrag undo %s %s undoes them)",
		  n, n - 1, r->a->undo_path, r->a->image);
}

/*
 * One pass over the files of the AGs in focus (NULL: all) that the
 * user's limits allow: 0 and *did
 * false when there is nothing to do; 0 and *did after a verified pass;
 * <0 (an exit status, negated) after a failure, rolled back.
 */
static int one_pass(struct rp *r, const bool *focus, const char *what,
		    bool *did)
{
	struct run_args *a = r->a;
	struct exec_opts xo = { 0 };
	struct check_result cr = { 0 };
	struct run_pass_rec rec;
	struct plan p = { 0 };
	struct fs *vfs = NULL;
	uint64_t t0 = run_now_ns();
	int ret;

	*did = false;
	memset(&rec, 0, sizeof(rec));
	ret = plan_now(r, focus, &p);
	if (ret) {
		cmd_fail(&r->e);
		plan_free(&p);
		return -EXIT_ERROR;
	}
	if (!plan_has_work(&p)) {
		plan_free(&p);
		return 0;
	}
	rec.n = (unsigned)r->npass + 1;
	snprintf(rec.what, sizeof(rec.what), "%s", what);
	rec.moved_blocks = p.moved_blocks;
	undo_chain_name(a->undo_path, rec.n, rec.undo, sizeof(rec.undo));
	if (access(rec.undo, F_OK) == 0) {
		cmd_error("refusing to write pass %u: undo file %s already "
			  "exists", rec.n, rec.undo);
		plan_free(&p);
		return -EXIT_REFUSED;
	}
	xo.undo_path = rec.undo;
	xo.fault_after = a->fault_pass == rec.n ? a->fault : -1;
	xo.fault_err = a->fault_err;
	xo.fault_sticky = a->fault_sticky;
	xo.progress = progress;
	xo.priv = r;
	ret = exec_run(r->pfs, r->m, &p, &xo, &rec.st, &r->e);
	clear_line(r);
	if (!ret && a->map)
		run_map_lines(a->map, &p);
	plan_free(&p);
	if (ret) {
		cmd_fail(&r->e);
		cmd_error("pass %u (%s) failed", rec.n, what);
		failed_run(r->pfs, &rec.st, rec.undo, a->image);
		earlier_passes(r, rec.n);
		drop_model(r);
		return rec.st.writes_done == 0 && r->e.code == -EPERM ?
		       -EXIT_REFUSED : -EXIT_ERROR;
	}
	drop_model(r);
	/* the pass is done: verify it with a fresh look at the disk */
	ret = view_open(r, false, &vfs, &r->e);
	if (!ret)
		ret = check_fs(vfs, a->sc.threads, print_problem, NULL, &cr,
			       &r->e);
	fs_close(vfs);
	if (ret || cr.problems) {
		if (ret)
			cmd_fail(&r->e);
		cmd_error("verification of pass %u FAILED (%llu problems); "
			  "restoring it from %s", rec.n,
			  (unsigned long long)cr.problems, rec.undo);
		failed_run(r->fs, &rec.st, rec.undo, a->image);
		earlier_passes(r, rec.n);
		return -EXIT_ERROR;
	}
	rec.seconds = secs_since(t0);
	{
		struct run_pass_rec *nv = realloc(r->pass, (r->npass + 1) *
						  sizeof(*nv));

		if (!nv) {
			cmd_error("out of memory");
			return -EXIT_ERROR;
		}
		r->pass = nv;
		r->pass[r->npass++] = rec;
	}
	if (!a->json) {
		printf("pass %u (%s): moved %.1f MiB (%llu blocks remapped "
		       "without copying) in %.1f s, %llu image writes; undo "
		       "file %s; verified: consistent\n", rec.n, what,
		       (double)rec.st.bytes_copied / 1048576.0,
		       (unsigned long long)rec.st.blocks_remapped,
		       rec.seconds, (unsigned long long)rec.st.writes,
		       rec.undo);
		fflush(stdout);
	}
	*did = true;
	return 0;
}

static bool time_up(const struct rp *r)
{
	if (stop_signal && r->a->by_ag)
		return true;
	return r->a->max_time > 0 && r->npass &&
	       secs_since(r->a->t0) >= r->a->max_time;
}

static void print_text(const struct rp *r, const struct run_summary *s)
{
	uint64_t bytes = 0;
	uint32_t g;
	bool first = true;
	size_t i;

	for (i = 0; i < s->npass; i++)
		bytes += s->pass[i].st.bytes_copied;
	if (s->npass)
		printf("%zu pass%s: moved %.1f MiB in %.1f s; undo %s %s%s%s"
		       " (xfsdefrag undo %s undoes %s)\n", s->npass,
		       s->npass == 1 ? "" : "es", (double)bytes / 1048576.0,
		       s->seconds, s->npass == 1 ? "file" : "files",
		       s->pass[0].undo, s->npass > 1 ? " to " : "",
		       s->npass > 1 ? s->pass[s->npass - 1].undo : "",
		       s->pass[0].undo, s->npass == 1 ? "it" :
		       "them all, last first");
	if (s->failed)
		return;
	if (s->stopped_by_time && s->left_blocks) {
		if (stop_signal)
			printf("stopped by signal %d after the pass under way "
			       "(%.1f s)", (int)stop_signal, s->seconds);
		else
			printf("stopped: --max-time %g s reached (%.1f s)",
			       s->a->max_time, s->seconds);
		printf("; left: %llu blocks (%.1f MiB) to move, in AG",
		       (unsigned long long)s->left_blocks,
		       (double)(s->left_blocks * r->fs->geo.blocksize) /
		       1048576.0);
		for (g = 0; g < s->agcount; g++)
			if (s->left_ags[g]) {
				printf("%s %u", first ? "" : ",", g);
				first = false;
			}
		printf("; run again to continue (name another --undo "
		       "file)\n");
	} else if (s->left_blocks) {
		printf("left: %llu blocks the passes could not move\n",
		       (unsigned long long)s->left_blocks);
	} else if (!s->npass) {
		printf("nothing to move: every file %sis already in place\n",
		       cmd_limits_any(&s->a->lim) ? "the limits select " : "");
	} else {
		printf("done: nothing left to move%s\n",
		       cmd_limits_any(&s->a->lim) ? " within the limits" : "");
	}
	if (s->after) {
		printf("\n");
		run_print_figures(s->before, s->after, s->rb_before,
				  s->rb_after, s->order);
	}
}

int run_passes(struct fs *fs, struct run_args *a)
{
	struct rp r;
	struct run_summary s;
	struct plan left = { 0 };
	bool *one = NULL, *left_ags = NULL, did;
	const bool *user = a->lim.pl.ags;
	uint32_t g, agcount = fs->geo.agcount;
	int ret = 0, status = EXIT_OK;
	bool stopped = false;
	char what[32];

	memset(&r, 0, sizeof(r));
	memset(&s, 0, sizeof(s));
	r.fs = fs;
	r.a = a;
	r.tty = isatty(STDERR_FILENO) == 1;
	if (a->by_ag)
		catch_stop_signals(true);
	one = calloc(agcount, sizeof(*one));
	left_ags = calloc(agcount, sizeof(*left_ags));
	if (!one || !left_ags) {
		cmd_error("out of memory");
		status = EXIT_ERROR;
		goto out;
	}
	for (g = 0; a->by_ag && g < agcount && !ret; g++) {
		if (user && !user[g])
			continue;
		if (time_up(&r)) {
			stopped = true;
			break;
		}
		memset(one, 0, agcount * sizeof(*one));
		one[g] = true;
		snprintf(what, sizeof(what), "AG %u", g);
		ret = one_pass(&r, one, what, &did);
	}
	/* then whatever the AG passes left (an AG too full for its files) */
	if (!ret && !stopped && time_up(&r))
		stopped = true;
	else if (!ret && !stopped)
		ret = one_pass(&r, NULL, a->by_ag ? "the rest" : "all", &did);
	if (ret) {
		status = -ret;
		s.failed = true;
	}
	/* the figures after, and what is left */
	if (!ret && !fresh_model(&r) &&
	    !report_build(r.m, -1, 0, &r.after, &r.e) &&
	    !rbfmt_measure(r.m, a->po.order, &r.rb_after, &r.e)) {
		r.have_after = true;
		if (!plan_now(&r, NULL, &left) && plan_has_work(&left)) {
			s.left_blocks = left.moved_blocks ? left.moved_blocks : 1;
			for (g = 0; g < agcount; g++)
				left_ags[g] = plan_ag(&left, g)->moved_blocks > 0;
		}
	} else if (!ret) {
		cmd_fail(&r.e);
		status = EXIT_ERROR;
		s.failed = true;
	}
	s.image = a->image;
	s.order = a->po.order;
	s.a = a;
	s.before = r.have_before ? &r.before : NULL;
	s.after = r.have_after ? &r.after : NULL;
	s.rb_before = &r.rb_before;
	s.rb_after = &r.rb_after;
	s.pass = r.pass;
	s.npass = r.npass;
	s.stopped_by_time = stopped;
	s.stop_signal = stop_signal;
	s.complete = !s.failed && !s.left_blocks;
	s.left_ags = left_ags;
	s.agcount = agcount;
	s.seconds = secs_since(a->t0);
	s.error = s.failed ? (r.e.msg[0] ? r.e.msg : "the run failed") : NULL;
	if (a->json)
		run_json(&s);
	else
		print_text(&r, &s);
out:
	if (a->by_ag)
		catch_stop_signals(false);
	plan_free(&left);
	drop_model(&r);
	report_free(&r.before);
	report_free(&r.after);
	free(r.pass);
	free(one);
	free(left_ags);
	return status;
}
