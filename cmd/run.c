/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag run: relocate in place.  The options become a struct
 * run_opts; core/run/ carries out the safe-write sequence (refuse, fence,
 * pre-check, then per pass plan, execute, verify, keep or roll back);
 * this file prints what it says and what it did.  The image stays open,
 * and the writer's lock held, from before the pre-check's first read to
 * the end.  shrink (cmd/shrink.c) goes through the same driver
 * (cmd_run_go) with its own options.
 */
#include "cmd/cmd.h"
#include "cmd/verdict.h"
#include "cmd/limits.h"
#include "cmd/rbfmt.h"
#include "cmd/runout.h"
#include "core/model/frag.h"

#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uuid/uuid.h>

struct run_cli {
	struct cmd_scan sc;
	bool tty, json, passes;
	uint64_t last_ns, t0;
	struct cmd_call *cc;	/* its failures, for --json */
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

static void progress(void *priv, unsigned pass, const struct exec_progress *p)
{
	struct run_cli *c = priv;
	uint64_t t = run_now_ns();
	char tag[32] = "";

	if (!c->tty || (t - c->last_ns < 100000000ull && p->done < p->total))
		return;
	c->last_ns = t;
	if (c->passes)
		snprintf(tag, sizeof(tag), "pass %u: ", pass);
	if (strcmp(p->phase, "mark") == 0)
		c->t0 = t;
	if (strcmp(p->phase, "copy") == 0 && p->total) {
		double secs = (double)(t - c->t0) / 1e9;
		double rate = secs > 0 ? (double)p->done / secs : 0;
		double eta = rate > 0 ? (double)(p->total - p->done) / rate : 0;

		fprintf(stderr, "\r\033[K%scopy: %.1f of %.1f MiB, %.0f MiB/s, "
			"%.0f s left", tag, (double)p->done / 1048576.0,
			(double)p->total / 1048576.0, rate / 1048576.0, eta);
	} else {
		fprintf(stderr, "\r\033[K%s%s: %llu of %llu", tag, p->phase,
			(unsigned long long)p->done,
			(unsigned long long)p->total);
	}
}

static void clear_line(const struct run_cli *c)
{
	if (c->tty)
		fprintf(stderr, "\r\033[K");
}

static void problem(void *priv, const struct check_msg *m)
{
	(void)priv;
	cmd_error("check: %s [%s]", m->text, m->name);
}

static void say(void *priv, enum run_say kind, const char *msg)
{
	clear_line(priv);
	if (kind == RUN_SAY_ERROR) {
		/* its errno is the run's, known at its end */
		cmd_failf(((struct run_cli *)priv)->cc, 0, 0, "%s", msg);
	} else {
		printf("%s\n", msg);
		fflush(stdout);
	}
}

static void pass_done(void *priv, const struct run_pass *rec)
{
	struct run_cli *c = priv;

	clear_line(c);
	if (c->json || !c->passes)
		return;
	printf("pass %u (%s): moved %.1f MiB (%llu blocks remapped without "
	       "copying) in %.1f s, %llu image writes; undo file %s; "
	       "verified: consistent\n", rec->n, rec->what,
	       (double)rec->st.bytes_copied / 1048576.0,
	       (unsigned long long)rec->st.blocks_remapped, rec->seconds,
	       (unsigned long long)rec->st.writes, rec->undo);
	fflush(stdout);
}

static void view(void *priv, struct fs *fs)
{
	cmd_scan_setup(&((struct run_cli *)priv)->sc, fs);
}

static double mib(uint64_t bytes)
{
	return (double)bytes / 1048576.0;
}

/* A shrink: the geometry, where the file ends, how to undo it. */
static void print_shrink(const struct run_opts *o, const struct run_result *r)
{
	const struct plan_shrink *s = &r->shrink;
	uint64_t bytes = s->dblocks * r->blocksize;

	printf("shrank %s from %llu blocks (%u AGs, %.1f MiB) to %llu blocks "
	       "(%u AG%s, %.1f MiB; the last AG %u blocks)\n", o->image,
	       (unsigned long long)r->dblocks_before, r->agcount_before,
	       mib(r->dblocks_before * r->blocksize),
	       (unsigned long long)s->dblocks, s->agcount,
	       s->agcount == 1 ? "" : "s", mib(bytes), s->last_len);
	if (o->shrink_min)
		printf("the smallest size that fits: %llu blocks in use before "
		       "(log included), %u sizes planned\n",
		       (unsigned long long)r->min_floor, r->min_tries);
	if (s->logstart)
		printf("the log moved inside the new end, formatted clean at "
		       "cycle %u\n", s->log_cycle);
	if (r->truncated)
		printf("the image file is cut to %llu bytes (it was %llu); "
		       "undo extends it again\n", (unsigned long long)bytes,
		       (unsigned long long)r->image_before);
	else if (r->blockdev)
		printf("%s is a block device and keeps its size (%llu bytes): "
		       "the filesystem now ends at byte %llu; the partition "
		       "may be shrunk to no less than that, for example with "
		       "parted's resizepart or sfdisk (a shrink of the device "
		       "also ends the way back: undo needs the old size)\n",
		       o->image, (unsigned long long)r->image_before,
		       (unsigned long long)bytes);
	printf("\n");
}

static void print_discard(const struct run_result *r)
{
	if (!r->discarded)
		return;
	printf("discard: %.1f MiB of free space in %llu extents given back",
	       mib(r->discard_bytes), (unsigned long long)r->discard_extents);
	if (r->have_alloc)
		printf(" (the image file's allocated size %.1f MiB -> %.1f MiB)",
		       mib(r->alloc_before), mib(r->alloc_after));
	printf("\n");
}

/* A full run in one pass: what it did, as it always said it. */
static void print_single(const struct run_opts *o, const struct run_result *r)
{
	const struct run_pass *p = &r->pass[0];
	const struct exec_stats *st = &p->st;

	printf("moved %.1f MiB (%llu blocks remapped without copying) in "
	       "%.1f s (copy %.1f MiB/s); journal %.1f MiB in %s\n",
	       (double)st->bytes_copied / 1048576.0,
	       (unsigned long long)st->blocks_remapped,
	       (double)st->ns_total / 1e9,
	       st->ns_copy ? (double)st->bytes_copied / 1048576.0 /
	       ((double)st->ns_copy / 1e9) : 0.0,
	       (double)st->journal_bytes / 1048576.0, p->undo);
	printf("%llu image writes; verified: consistent (own checker)\n\n",
	       (unsigned long long)st->writes);
	if (st->w_geometry[0])
		printf("shrink: the AG headers, btrees, log and superblocks in "
		       "image writes %llu-%llu\n%s",
		       (unsigned long long)st->w_geometry[0],
		       (unsigned long long)st->w_geometry[1],
		       st->inodes_renumbered ? "" : "\n");
	if (st->inodes_renumbered)
		printf("renumbered %llu inodes (image writes %llu-%llu, "
		       "references %llu-%llu)\n\n",
		       (unsigned long long)st->inodes_renumbered,
		       (unsigned long long)st->w_inodes[0],
		       (unsigned long long)st->w_inodes[1],
		       (unsigned long long)st->w_refs[0],
		       (unsigned long long)st->w_refs[1]);
	if (st->pptr_rewritten)
		printf("rewrote %llu parent pointers naming a renumbered "
		       "directory, on %llu inodes (%llu attribute forks "
		       "dealt out again in hash order)\n\n",
		       (unsigned long long)st->pptr_rewritten,
		       (unsigned long long)st->pptr_inodes,
		       (unsigned long long)st->pptr_forks_dealt);
	if (r->have_after)
		run_print_figures(&r->before, &r->after, &r->rb_before,
				  &r->rb_after, o->po.order);
}

/* A run in passes or with limits: the passes, what is left, figures. */
static void print_passes(const struct run_opts *o, const struct cmd_limits *l,
			 const struct run_result *r, double seconds)
{
	uint64_t bytes = 0;
	bool first = true;
	uint32_t g;
	size_t i;

	for (i = 0; i < r->npass; i++)
		bytes += r->pass[i].st.bytes_copied;
	if (r->npass)
		printf("%zu pass%s: moved %.1f MiB in %.1f s; undo %s %s%s%s"
		       " (xfsdefrag undo %s undoes %s)\n", r->npass,
		       r->npass == 1 ? "" : "es", (double)bytes / 1048576.0,
		       seconds, r->npass == 1 ? "file" : "files",
		       r->pass[0].undo, r->npass > 1 ? " to " : "",
		       r->npass > 1 ? r->pass[r->npass - 1].undo : "",
		       r->pass[0].undo, r->npass == 1 ? "it" :
		       "them all, last first");
	if (r->status != RUN_OK)
		return;
	if (r->stopped && r->left_blocks) {
		if (r->stop_signal)
			printf("stopped by signal %d after the pass under way "
			       "(%.1f s)", r->stop_signal, seconds);
		else
			printf("stopped: --max-time %g s reached (%.1f s)",
			       o->max_time, seconds);
		printf("; left: %llu blocks (%.1f MiB) to move, in AG",
		       (unsigned long long)r->left_blocks,
		       (double)r->left_blocks *
		       (double)r->blocksize / 1048576.0);
		for (g = 0; g < r->agcount; g++)
			if (r->left_ags[g]) {
				printf("%s %u", first ? "" : ",", g);
				first = false;
			}
		printf("; run again to continue (name another --undo "
		       "file)\n");
	} else if (r->left_blocks) {
		printf("left: %llu blocks the passes could not move\n",
		       (unsigned long long)r->left_blocks);
	} else if (!r->npass) {
		printf("nothing to move: every file %sis already in place\n",
		       cmd_limits_any(l) ? "the limits select " : "");
	} else {
		printf("done: nothing left to move%s\n",
		       cmd_limits_any(l) ? " within the limits" : "");
	}
	if (r->have_after) {
		printf("\n");
		run_print_figures(&r->before, &r->after, &r->rb_before,
				  &r->rb_after, o->po.order);
	}
}

static int exit_status(const struct run_result *r)
{
	if (r->status == RUN_OK)
		return EXIT_OK;
	if (r->status == RUN_REFUSED)
		return EXIT_REFUSED;
	return EXIT_ERROR;
}

int cmd_run_go(struct cmd_call *cc, struct cmd_run_call *rc)
{
	struct run_cli cli = { .sc = rc->sc, .json = rc->json, .cc = cc };
	struct run_ev ev = { progress, problem, pass_done, say, view, &cli };
	struct run_opts o = rc->o;
	struct run_result r;
	struct cmd_limits *lim = rc->lim;
	struct fs *fs = NULL;
	struct err e = { 0 };
	char undo_default[96];
	int ret, status;

	o.t0 = run_now_ns();
	cli.sc.again = true;
	cli.sc.hooks = cc->hooks;
	o.image = cc->ops[0];
	o.max_rate = lim->max_rate;
	if (o.by_ag && o.po.max_write)
		return cmd_usagef(cc, "--max-write is a budget for one pass "
				  "over everything: not with --passes or "
				  "--max-time");
	if ((o.by_ag || o.max_rate > 0 || cmd_limits_any(lim)) &&
	    (o.po.renumber == PR_ALL || o.po.inode32))
		return cmd_usagef(cc, "--renumber all and --inode32 renumber "
				  "the whole filesystem at once: not with "
				  "--passes, --max-time or limits");
	if (fs_open(o.image, FS_RDWR | FS_PART(cli.sc.partition), &fs,
		    &e))
		return e.code == -EBUSY || e.code == -EROFS ?
		       (cmd_fail(cc, &e), EXIT_REFUSED) : cmd_fail(cc, &e);
	if (rc->shrink_bytes) {
		o.shrink_to = rc->shrink_bytes >> fs->geo.blocklog;
		if (!o.shrink_to) {
			status = cmd_usagef(cc, "--size %llu: less than one "
					    "block (%u bytes)",
					    (unsigned long long)rc->shrink_bytes,
					    fs->geo.blocksize);
			goto out;
		}
	}
	cmd_scan_setup(&cli.sc, fs);
	status = cmd_limits_setup(lim, fs, cc);
	if (status)
		goto out;
	if (!o.undo) {
		char uuid[37];

		uuid_unparse(fs->sb.uuid, uuid);
		snprintf(undo_default, sizeof(undo_default),
			 "xfsdefrag-%s.undo", uuid);
		o.undo = undo_default;
	}
	o.lim = lim->pl;
	o.threads = cli.sc.threads;
	o.fault = cc->hooks->fault;	/* the test binary's; the product: NULL */
	o.stop = &stop_signal;
	o.ev = &ev;
	cli.tty = isatty(STDERR_FILENO) == 1;
	cli.passes = o.by_ag || run_opts_limited(&o) || cli.json;
	if (o.by_ag)
		catch_stop_signals(true);
	ret = run_fs(fs, &o, &r);
	if (o.by_ag)
		catch_stop_signals(false);
	clear_line(&cli);
	if (ret && !r.said)
		cmd_fail(cc, &r.e);
	status = exit_status(&r);
	if (status == EXIT_OK)
		cc->fail.set = false;	/* what was said did not stop it */
	if (status != EXIT_OK && !cc->fail.set)
		cmd_failf(cc, r.e.code ? r.e.code : -EIO, 0, "the run failed");
	if (cc->fail.set && !cc->fail.err)
		cc->fail.err = r.e.code ? r.e.code : -EIO;
	if (cli.json) {
		run_json(&o, lim, &r, (double)(run_now_ns() - o.t0) / 1e9, cc);
		cc->json_done = true;
	} else if (r.status == RUN_OK && r.not_worth) {
		printf("nothing written: ");
		cmd_verdict_text(&r.verdict);
		printf("(--force runs it anyway)\n");
	} else if (cli.passes) {
		print_passes(&o, lim, &r, (double)(run_now_ns() - o.t0) /
			     1e9);
	} else if (r.status == RUN_OK && r.no_work) {
		printf("nothing to move: every file is already in place\n");
	} else if (r.status == RUN_OK) {
		if (r.shrink.dblocks)
			print_shrink(&o, &r);
		print_single(&o, &r);
	}
	if (r.status == RUN_OK && !cli.json)
		print_discard(&r);
	if (r.status == RUN_OK && !cli.json && r.map_lines)
		printf("\n%zu inodes renumbered: old and new numbers in %s\n",
		       r.map_lines, r.map);
	run_result_free(&r);
out:
	fs_close(fs);
	return status;
}

struct run_args {
	const char *undo, *map;
	bool passes, json, discard, force;
	double max_time;	/* 0: none */
	struct plan_opts po;
	struct cmd_limits lim;
	struct cmd_scan sc;
};

static int run(struct cmd_call *cc)
{
	struct run_args *a = cc->args;
	struct cmd_run_call rc = { .lim = &a->lim, .sc = a->sc,
				   .json = a->json };

	rc.o.undo = a->undo;
	rc.o.map = a->map;
	rc.o.po = a->po;
	rc.o.max_time = a->max_time;
	rc.o.by_ag = a->passes || a->max_time > 0;
	rc.o.discard = a->discard;
	rc.o.force = a->force;
	return cmd_run_go(cc, &rc);
}

static void release(void *args)
{
	cmd_limits_free(&((struct run_args *)args)->lim);
}

#define R struct run_args
static const struct opt opts[] = {
	{ .name = "undo", .kind = OPT_STR, .arg = "FILE",
	  OPT_AT(R, undo),
	  .help = "the undo file to write (must not exist; keep it on "
		  "another filesystem)", .dflt = "xfsdefrag-UUID.undo" },
	{ .name = "map", .kind = OPT_STR, .arg = "FILE", OPT_AT(R, map),
	  .help = "where renumbered inodes' \"old new\" numbers go",
	  .dflt = "the undo file's name plus .map" },
	CMD_SCAN_OPTS(R, sc),
	CMD_PLAN_OPTS(R, po),
	{ .name = "passes", .kind = OPT_FLAG, OPT_AT(R, passes),
	  .help = "work AG by AG, each pass checked and with its own undo "
		  "file" },
	{ .name = "max-time", .kind = OPT_REAL, .arg = "SECONDS",
	  .min = 0.001, .max = 1e9, OPT_AT(R, max_time),
	  .help = "stop at the first pass boundary after SECONDS (implies "
		  "--passes)", .dflt = "no limit" },
	CMD_JSON_OPT(R, json, "print one JSON document instead of text"),
	CMD_DISCARD_OPT(R, discard),
	CMD_LIMIT_OPTS(R, lim),
	{ .name = "max-write", .kind = OPT_CALL, .arg = "SIZE",
	  .call = cmd_size_opt, OPT_AT(R, po.max_write),
	  .help = "copy at most SIZE bytes (K, M, G, T suffixes): the moves "
		  "that gain most per byte first", .dflt = "no limit" },
	{ .name = "force", .kind = OPT_FLAG, OPT_AT(R, force),
	  .help = "run even when the verdict says it is not worth it" },
	OPT_END,
};
#undef R

static const struct run_args defaults = {
	.po = { .order = WALK_READDIR, .renumber = PR_AUTO },
};

const struct cmd cmd_run = {
	.name = "run", .fn = run,
	.summary = "relocate in place: contiguous files packed front to "
		   "back",
	.operands = "IMAGE", .min_ops = 1, .max_ops = 1, .opts = opts,
	.args_size = sizeof(struct run_args), .defaults = &defaults,
	.release = release,
};
