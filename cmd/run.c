/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag run: relocate in place.  Refuses unless the filesystem is
 * unmounted, writable, opened exclusively (no other writer by any path),
 * cleanly unmounted, of features we implement, and consistent by our own
 * checker; then plans, executes with an undo journal, verifies with the
 * checker, and prints the figures before and after.  A run that fails
 * (a write error, a full undo file's filesystem) or a failed verification
 * rolls itself back from its undo file, and says what state it left when
 * it cannot.  The image stays open, and the writer's lock held, from
 * before the pre-check's first read to the end.
 */
#include "cmd/cmd.h"
#include "cmd/rbfmt.h"
#include "cmd/run_passes.h"
#include "core/check/check.h"
#include "core/relocate/exec.h"
#include "core/relocate/plan.h"
#include "core/relocate/refuse.h"
#include "core/model/frag.h"
#include "core/model/report.h"
#include "core/model/scan.h"
#include "core/undo/chain.h"
#include "core/undo/undo.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

struct rctx {
	bool tty;
	uint64_t last_ns, t0;
};

uint64_t run_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void progress(void *priv, const struct exec_progress *p)
{
	struct rctx *c = priv;
	uint64_t t = run_now_ns();

	if (!c->tty || (t - c->last_ns < 100000000ull && p->done < p->total))
		return;
	c->last_ns = t;
	if (strcmp(p->phase, "copy") == 0 && p->total) {
		double secs = (double)(t - c->t0) / 1e9;
		double rate = secs > 0 ? (double)p->done / secs : 0;
		double eta = rate > 0 ? (double)(p->total - p->done) / rate : 0;

		fprintf(stderr, "\r\033[Kcopy: %.1f of %.1f MiB, %.0f MiB/s, "
			"%.0f s left", (double)p->done / 1048576.0,
			(double)p->total / 1048576.0, rate / 1048576.0, eta);
	} else {
		fprintf(stderr, "\r\033[K%s: %llu of %llu", p->phase,
			(unsigned long long)p->done,
			(unsigned long long)p->total);
	}
}

static void print_problem(void *priv, const struct check_msg *m)
{
	(void)priv;
	cmd_error("check: %s [%s]", m->text, m->name);
}

/*
 * Restore the image (held open in fs) from undo_path.  0 and what was
 * restored in *ui, or <0 with the reason in e.
 */
static int roll_back(struct fs *fs, const char *undo_path, const char *image,
		     struct undo_info *ui, struct err *e)
{
	struct fs *fs2 = NULL;
	struct img *view;
	int ret;

	if (img_borrow(fs->img, true, &view))
		return err_set(e, -ENOMEM, "out of memory");
	ret = undo_open_img(undo_path, view, image, FS_RDWR, &fs2, e);
	if (ret >= 0)
		ret = undo_apply(undo_path, fs2, ui, e);
	fs_close(fs2);
	return ret < 0 ? ret : 0;
}

/* The run failed after st->writes_done writes: roll back, say the state. */
void failed_run(struct fs *fs, const struct exec_stats *st,
		       const char *undo_path, const char *image)
{
	struct undo_info ui;
	struct err e = { 0 };

	if (st->writes_done == 0) {
		if (!st->undo_created || unlink(undo_path) == 0)
			cmd_error("nothing was written to %s: it is unchanged "
				  "(no undo file is left)", image);
		else
			cmd_error("nothing was written to %s: it is unchanged "
				  "(undo file %s is not needed)", image,
				  undo_path);
		return;
	}
	if (roll_back(fs, undo_path, image, &ui, &e) == 0) {
		unlink(undo_path);
		cmd_error("rolled back: %s is as it was before the run (%llu "
			  "blocks restored from %s, which is removed)", image,
			  (unsigned long long)(ui.blocksize ? (ui.bytes +
			  ui.blocksize - 1) / ui.blocksize : 0), undo_path);
		return;
	}
	cmd_error("rolling back failed: %s", e.msg);
	cmd_error("%s holds a partial run (%llu writes) and is marked "
		  "NEEDSREPAIR, so no kernel will mount it; %s holds what "
		  "it needs: once the cause is fixed, restore it with: "
		  "xfsdefrag undo %s %s", image,
		  (unsigned long long)st->writes_done, undo_path, undo_path,
		  image);
}

/* Scan and report (optionally check) a freshly opened filesystem. */
static int measure(struct fs *fs, unsigned threads, struct model **m,
		   struct report *r, struct err *e)
{
	struct scan_opts so = { 0 };

	so.dirs = true;
	so.threads = threads;
	if (scan_fs(fs, &so, m, e))
		return e->code ? e->code : -EFSCORRUPTED;
	return report_build(*m, -1, 0, r, e);
}

void run_print_figures(const struct report *b, const struct report *a,
			  const struct rb_fig *rb, const struct rb_fig *ra,
			  enum walk_order o)
{
	uint32_t g;

	printf("%-34s %14s %14s\n", "", "before", "after");
	printf("%-34s %13.2f%% %13.2f%%\n",
	       "fragmentation factor (xfs_db frag)",
	       frag_factor(b->frag_actual, b->frag_ideal),
	       frag_factor(a->frag_actual, a->frag_ideal));
	printf("%-34s %14llu %14llu\n", "extent records",
	       (unsigned long long)b->frag_actual,
	       (unsigned long long)a->frag_actual);
	printf("%-34s %14llu %14llu\n", "files in more than one extent",
	       (unsigned long long)b->files_multi,
	       (unsigned long long)a->files_multi);
	printf("%-34s %14llu %14llu\n", "inode-to-data distance, median",
	       (unsigned long long)b->dist_first.median,
	       (unsigned long long)a->dist_first.median);
	printf("%-34s %14llu %14llu\n", "inode-to-data distance, p90",
	       (unsigned long long)b->dist_first.p90,
	       (unsigned long long)a->dist_first.p90);
	rbfmt_rows(rb, ra, o);
	for (g = 0; g < b->nag && g < a->nag; g++)
		printf("AG %-3u longest free extent %7s %13.1f%% %13.1f%%\n", g,
		       "(share)",
		       b->ag[g].free_blocks ? (double)b->ag[g].longest * 100.0 /
		       (double)b->ag[g].free_blocks : 0.0,
		       a->ag[g].free_blocks ? (double)a->ag[g].longest * 100.0 /
		       (double)a->ag[g].free_blocks : 0.0);
}

/*
 * The --map file: "old new" per renumbered inode, decimal, by old number
 * (NFS exports and backup catalogues key on inode numbers).  Closes f.
 */
void run_map_lines(FILE *f, const struct plan *p)
{
	size_t i;

	for (i = 0; i < p->nino; i++)
		fprintf(f, "%llu %llu\n", (unsigned long long)p->ino[i].old,
			(unsigned long long)p->ino[i].new);
}

static int put_map(FILE *f, const struct plan *p)
{
	int bad;

	run_map_lines(f, p);
	bad = ferror(f);
	return fclose(f) || bad ? -EIO : 0;
}

static int write_map(const char *path, const struct plan *p)
{
	FILE *f = fopen(path, "w");

	if (!f || put_map(f, p)) {
		cmd_error("cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "undo", required_argument, NULL, 'u' },
		{ "map", required_argument, NULL, 'M' },
		{ "fault-after", required_argument, NULL, 'F' },
		{ "fault-error", required_argument, NULL, 'E' },
		{ "fault-dead", required_argument, NULL, 'D' },
		{ "max-time", required_argument, NULL, 'T' },
		{ "passes", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'J' },
		{ "fault-pass", required_argument, NULL, 'Q' },
		CMD_PLAN_LONGOPTS,
		CMD_LIMIT_LONGOPTS,
		CMD_SCAN_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_args ra = { 0 };
	struct exec_opts xo = { 0 };
	struct exec_stats st;
	struct scan_opts so = { 0 };
	struct plan_opts po = { 0 };
	struct rb_fig rb_after;
	struct cmd_scan sc = { .again = true };
	struct cmd_plan cp = { false };
	struct check_result cr;
	struct report before = { 0 }, after = { 0 };
	struct model *m = NULL, *m2 = NULL;
	struct plan p = { 0 };
	struct rctx rc = { 0 };
	struct fs *fs = NULL, *fs2 = NULL;
	struct err e = { 0 };
	char undo_default[96];
	const char *undo_path = NULL, *map_path = NULL, *image;
	FILE *map = NULL;
	struct img *view;
	long fault = -1;
	char *end;
	int opt, ret, status = EXIT_OK;

	ra.t0 = run_now_ns();
	ra.fault_pass = 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+u:j:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'T':
			if (cmd_parse_positive(optarg, &ra.max_time))
				return cmd_usage("run");
			ra.by_ag = true;
			break;
		case 'P': ra.by_ag = true; break;
		case 'J': ra.json = true; break;
		case 'Q':
			ra.fault_pass = (unsigned)strtoul(optarg, &end, 10);
			if (*end || !ra.fault_pass)
				return cmd_usage("run");
			break;
		case 'u': undo_path = optarg; break;
		case 'M': map_path = optarg; break;
		case 'F':
		case 'E':
		case 'D':
			fault = strtol(optarg, &end, 10);
			if (*end || fault < 0)
				return cmd_usage("run");
			xo.fault_err = opt == 'F' ? 0 : -EIO;
			xo.fault_sticky = opt == 'D';
			break;
		case 'h':
			cmd_usage("run");
			return EXIT_OK;
		default:
			ret = cmd_plan_opt(&cp, &po, opt, optarg);
			if (!ret)
				ret = cmd_limits_opt(&ra.lim, opt, optarg);
			if (!ret)
				ret = cmd_scan_opt(&sc, opt, optarg);
			if (ret <= 0)
				return cmd_usage("run");
		}
	}
	if (argc - optind != 1)
		return cmd_usage("run");
	cmd_plan_setup(&cp, &po);
	image = argv[optind];
	if (fs_open(image, FS_RDWR, &fs, &e))
		return e.code == -EBUSY || e.code == -EROFS ?
		       (cmd_fail(&e), EXIT_REFUSED) : cmd_fail(&e);
	cmd_scan_setup(&sc, fs);
	if (refuse_write(fs, &e)) {
		cmd_fail(&e);
		status = EXIT_REFUSED;
		goto out;
	}
	if (!undo_path) {
		char uuid[37];

		uuid_unparse(fs->sb.uuid, uuid);
		snprintf(undo_default, sizeof(undo_default),
			 "xfsdefrag-%s.undo", uuid);
		undo_path = undo_default;
	}
	if (ra.by_ag && (po.renumber == PR_ALL || po.inode32)) {
		cmd_error("--renumber all and --inode32 renumber the whole "
			  "filesystem at once: not with --passes or --max-time");
		status = EXIT_USAGE;
		goto out;
	}
	if (run_args_passes(&ra)) {
		char u2[1100];

		undo_chain_name(undo_path, 2, u2, sizeof(u2));
		if (access(u2, F_OK) == 0) {
			cmd_error("refusing to write: undo file %s already "
				  "exists (undo that run first, or name "
				  "another with --undo)", u2);
			status = EXIT_REFUSED;
			goto out;
		}
		if (cmd_limits_setup(&ra.lim, fs, &e)) {
			status = cmd_fail(&e);
			goto out;
		}
	}
	if (access(undo_path, F_OK) == 0) {
		cmd_error("refusing to write: undo file %s already exists "
			  "(undo that run first, or name another with --undo)",
			  undo_path);
		status = EXIT_REFUSED;
		goto out;
	}
	/* pre-check: our checker must find the filesystem consistent */
	if (check_fs(fs, sc.threads, print_problem, NULL, &cr, &e)) {
		status = cmd_fail(&e);
		goto out;
	}
	if (cr.problems) {
		cmd_error("refusing to write: the pre-check found %llu "
			  "problem(s); run xfs_repair first",
			  (unsigned long long)cr.problems);
		status = EXIT_REFUSED;
		goto out;
	}
	if (run_args_passes(&ra)) {
		/* each pass's renumbering, if any, is appended to the map */
		if (map_path && !(map = fopen(map_path, "w"))) {
			cmd_error("cannot create %s: %s", map_path,
				  strerror(errno));
			status = EXIT_ERROR;
			goto out;
		}
		ra.map = map;
		ra.image = image;
		ra.undo_path = undo_path;
		ra.po = po;
		ra.sc = sc;
		ra.fault = fault;
		ra.fault_err = xo.fault_err;
		ra.fault_sticky = xo.fault_sticky;
		status = run_passes(fs, &ra);
		if (map && status == EXIT_OK) {
			int bad = ferror(map);

			map = NULL;
			if (fclose(ra.map) || bad) {
				cmd_error("writing %s failed: the run itself is "
					  "done", map_path);
				status = EXIT_ERROR;
			}
		}
		goto out;
	}
	so.dirs = true;
	so.threads = sc.threads;
	if (scan_fs(fs, &so, &m, &e) ||
	    report_build(m, -1, 0, &before, &e) || plan_build(m, &po, &p, &e)) {
		status = cmd_fail(&e);
		goto out;
	}
	if (!p.nmv && !p.npf && !p.nino && !p.nich) {
		printf("nothing to move: every file is already in place\n");
		if (map_path && write_map(map_path, &p))
			status = EXIT_ERROR;
		goto out;
	}
	/* the map file is made now, so a path that cannot be written
	 * stops the run before it starts */
	if (map_path && !(map = fopen(map_path, "w"))) {
		cmd_error("cannot create %s: %s", map_path, strerror(errno));
		status = EXIT_ERROR;
		goto out;
	}
	rc.tty = isatty(STDERR_FILENO) == 1;
	rc.t0 = run_now_ns();
	xo.undo_path = undo_path;
	xo.fault_after = fault;
	xo.progress = progress;
	xo.priv = &rc;
	if (exec_run(fs, m, &p, &xo, &st, &e)) {
		if (rc.tty)
			fprintf(stderr, "\r\033[K");
		cmd_fail(&e);
		failed_run(fs, &st, undo_path, image);
		/* a refusal found late (cow staging extents): nothing written */
		status = st.writes_done == 0 && e.code == -EPERM ?
			 EXIT_REFUSED : EXIT_ERROR;
		goto out;
	}
	if (rc.tty)
		fprintf(stderr, "\r\033[K");

	/* verify the result with a fresh look at the disk (still ours) */
	if (img_borrow(fs->img, false, &view)) {
		err_set(&e, -ENOMEM, "out of memory");
	} else if (fs_open_img(view, image, 0, &fs2, &e)) {
		img_close(view);	/* fs_open_img did not take it */
	} else {
		cmd_scan_setup(&sc, fs2);
		if (!check_fs(fs2, sc.threads, print_problem, NULL, &cr, &e) &&
		    !measure(fs2, sc.threads, &m2, &after, &e))
			rbfmt_measure(m2, po.order, &rb_after, &e);
	}
	if (e.code) {
		status = cmd_fail(&e);
		cr.problems = cr.problems ? cr.problems : 1;
	}
	if (cr.problems) {
		cmd_error("verification FAILED (%llu problems); restoring the "
			  "filesystem from %s", (unsigned long long)cr.problems,
			  undo_path);
		fs_close(fs2);
		fs2 = NULL;
		failed_run(fs, &st, undo_path, image);
		status = EXIT_ERROR;
		goto out;
	}
	printf("moved %.1f MiB (%llu blocks remapped without copying) in "
	       "%.1f s (copy %.1f MiB/s); journal %.1f MiB in %s\n",
	       (double)st.bytes_copied / 1048576.0,
	       (unsigned long long)st.blocks_remapped,
	       (double)st.ns_total / 1e9,
	       st.ns_copy ? (double)st.bytes_copied / 1048576.0 /
	       ((double)st.ns_copy / 1e9) : 0.0,
	       (double)st.journal_bytes / 1048576.0, undo_path);
	printf("%llu image writes; verified: consistent (own checker)\n\n",
	       (unsigned long long)st.writes);
	if (st.inodes_renumbered)
		printf("renumbered %llu inodes (image writes %llu-%llu, "
		       "references %llu-%llu)\n\n",
		       (unsigned long long)st.inodes_renumbered,
		       (unsigned long long)st.w_inodes[0],
		       (unsigned long long)st.w_inodes[1],
		       (unsigned long long)st.w_refs[0],
		       (unsigned long long)st.w_refs[1]);
	run_print_figures(&before, &after, &p.rb_now, &rb_after, po.order);
	if (map) {
		int r = put_map(map, &p);

		map = NULL;
		if (r) {
			cmd_error("writing %s failed: the run itself is done "
				  "(undo file %s)", map_path, undo_path);
			status = EXIT_ERROR;
		} else if (p.nino) {
			printf("\n%zu inodes renumbered: old and new numbers "
			       "in %s\n", p.nino, map_path);
		}
	}
out:
	cmd_limits_free(&ra.lim);
	if (map) {	/* the run did not finish: no map */
		fclose(map);
		unlink(map_path);
	}
	report_free(&before);
	report_free(&after);
	plan_free(&p);
	model_free(m);
	model_free(m2);
	fs_close(fs);
	fs_close(fs2);
	return status;
}
