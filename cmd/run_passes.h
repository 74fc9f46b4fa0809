/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag run in passes (issue 14): each pass plans from the filesystem
 * as the previous pass left it, executes with its own undo file, and is
 * verified by the checker before the next begins, so between passes the
 * filesystem is whole (NEEDSREPAIR cleared, the pass's undo file
 * complete).  By AG (--passes, implied by --max-time): one pass per AG
 * that has work, over the files whose inode or some extent lies in it
 * (plan_limits.h, focus), then one over everything if anything is left.  Nothing is kept between passes but the undo
 * files, so a later run just plans again and finds what is left.
 */
#ifndef CMD_RUN_PASSES_H
#define CMD_RUN_PASSES_H

#include "cmd/cmd.h"
#include "cmd/limits.h"
#include "core/relocate/exec.h"
#include "core/relocate/plan.h"
#include "core/model/report.h"

struct run_args {
	const char *image, *undo_path;
	struct plan_opts po;
	struct cmd_scan sc;
	struct cmd_limits lim;
	double max_time;	/* seconds, 0: none */
	bool by_ag, json;
	long fault;		/* tests: as run --fault-after, in pass */
	unsigned fault_pass;	/* (from 1) */
	int fault_err;
	bool fault_sticky;
	uint64_t t0;		/* when the command began (ns) */
	FILE *map;		/* --map: old and new inode numbers, or NULL */
};

/* The --map lines of plan p: "old new" per renumbered inode (run.c). */
void run_map_lines(FILE *f, const struct plan *p);

/* Does the run need run_passes (any option of issue 14)? */
bool run_args_passes(const struct run_args *a);
/* fs: open read-write, refuse_write and the pre-check passed.  The
 * exit status. */
int run_passes(struct fs *fs, struct run_args *a);
/* The run JSON (cmd/runjson.c). */
struct run_pass_rec {
	unsigned n;
	char what[64];		/* "AG 3", "all" */
	char undo[1024];
	struct exec_stats st;
	uint64_t moved_blocks;
	double seconds;		/* plan, execute, verify */
};
struct run_summary {
	const char *image;
	enum walk_order order;
	const struct run_args *a;
	const struct report *before, *after;
	const struct rb_fig *rb_before, *rb_after;
	const struct run_pass_rec *pass;
	size_t npass;
	bool complete, stopped_by_time, failed;
	uint64_t left_blocks;		/* still to move (the limits' work) */
	const bool *left_ags;		/* per AG with work left */
	uint32_t agcount;
	double seconds;
	const char *error;
	int stop_signal;		/* stopped by SIGINT/SIGTERM (0: no) */
};
void run_json(const struct run_summary *s);

/* run.c */
uint64_t run_now_ns(void);
void failed_run(struct fs *fs, const struct exec_stats *st,
		const char *undo_path, const char *image);
void run_print_figures(const struct report *b, const struct report *a,
		       const struct rb_fig *rb, const struct rb_fig *ra,
		       enum walk_order o);

#endif
