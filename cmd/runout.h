/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What run prints of a struct run_result: figures, and run --json. */
#ifndef CMD_RUNOUT_H
#define CMD_RUNOUT_H

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

#endif
