/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What run prints of a struct run_result: figures, and run --json; the
 * driver run and shrink share.
 */
#ifndef CMD_RUNOUT_H
#define CMD_RUNOUT_H

#include "cmd/cmd.h"
#include "cmd/limits.h"
#include "core/run/run.h"

/* The figures before and after, as rows of a two-column table. */
void run_print_figures(const struct report *b, const struct report *a,
		       const struct rb_fig *rb, const struct rb_fig *ra,
		       enum walk_order o);
/*
 * run --json (xfsdefrag(8), "RUN JSON"); seconds: the whole command;
 * its "error" is c's first failure.
 */
struct cmd_call;
void run_json(const struct run_opts *o, const struct cmd_limits *l,
	      const struct run_result *r, double seconds,
	      const struct cmd_call *c);

/*
 * run and shrink: their options as a struct run_opts (image, undo file,
 * threads and the like are filled here), the limits (all zero: none),
 * and a shrink's --size in bytes (0: none; made blocks once the image is
 * open).  Opens the image, runs core/run's sequence, prints what it did
 * (text or JSON); the exit status.
 */
struct cmd_run_call {
	struct run_opts o;
	struct cmd_limits *lim;
	struct cmd_scan sc;
	bool json;
	uint64_t shrink_bytes;
};
int cmd_run_go(struct cmd_call *cc, struct cmd_run_call *rc);

/* --discard: run and shrink give the free space back. */
#define CMD_DISCARD_OPT(T, m) \
	{ .name = "discard", .kind = OPT_FLAG, OPT_AT(T, m), \
	  .help = "once the run stands, give the free space back to the " \
		  "storage (punched holes, BLKDISCARD)" }

#endif
