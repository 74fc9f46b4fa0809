/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The test binary's own commands and hooks (tests/aids/README.md): what
 * the test suite and the benchmarks need and the product must not ship.
 */
#ifndef TESTS_AIDS_AIDS_H
#define TESTS_AIDS_AIDS_H

#include "cmd/cmd.h"

/* Commands that read their own argv (c->argc, c->argv). */
cmd_fn aid_scribble;	/* debug-scribble: the undo journal's stand-in run */
cmd_fn aid_compare;	/* debug-compare: every block in use identical? */
cmd_fn aid_inoruns;	/* debug-inoruns: the bytes the scan reads */

/* Print an aid command's usage line to stderr; EXIT_USAGE. */
int aid_usage(const char *name);

/* --bench-map N: time n map (and directory) redraws without a terminal. */
int aid_benchmap(struct tui *t, const char *dir, unsigned n);

#endif
