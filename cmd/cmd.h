/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The subcommands and what they share: opening, warnings, exit codes. */
#ifndef CMD_CMD_H
#define CMD_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "core/fs/fs.h"

/* Exit status, documented in xfsdefrag(8). */
enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1,		/* operational: not found, I/O, not XFS... */
	EXIT_USAGE = 2,
	EXIT_CORRUPT = 3,	/* the filesystem is damaged */
	EXIT_REFUSED = 4,	/* a writer refused to touch the filesystem */
};

struct check_opts;
struct run_fault;
struct tui;

/*
 * What the test binary (tests/aids) changes in the commands it shares
 * with the product; the product's front end passes hooks that are all
 * NULL, so none of this is reachable from /usr/sbin/xfsdefrag.
 */
struct cmd_hooks {
	void *priv;
	/* a scanning command's filesystem is open: tune its reader */
	void (*scan)(void *priv, struct fs *fs);
	/* check's options, before it runs (the inodes phase's modes) */
	void (*check)(void *priv, struct check_opts *co);
	/* how long a step of report or check took */
	void (*timing)(void *priv, const char *step, double ms);
	/* run: the fault to inject into the image writes */
	const struct run_fault *fault;
	/* tui: called instead of the interactive browser, no terminal */
	int (*tui)(void *priv, struct tui *t, const char *path);
};

typedef int cmd_fn(int argc, char **argv, const struct cmd_hooks *h);

struct cmd {
	const char *name;
	cmd_fn *fn;
	const char *usage;
	const char *summary;	/* NULL: not listed by --help */
};

cmd_fn cmd_info, cmd_bmap, cmd_report, cmd_check, cmd_undo, cmd_tui,
       cmd_plan, cmd_run;
cmd_fn cmd_complete;		/* shell completion, hidden */

/*
 * The front end: argv[1] names a command of the product's table or of
 * extra (ending with a NULL name; NULL: none), run with hooks.
 */
int cmd_main(int argc, char **argv, const struct cmd *extra,
	     const struct cmd_hooks *h);

extern const char *progname;

/* Print "xfsdefrag: msg" to stderr, control characters escaped. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the error held in e and return the exit code for its errno. */
int cmd_fail(const struct err *e);
int cmd_exit_code(int err);
/* Print a subcommand's usage line to stderr and return EXIT_USAGE. */
int cmd_usage(const char *name);

/*
 * Open IMAGE read-only, verify every AG's headers, and warn (stderr)
 * about what makes its contents doubtful: mounted, dirty log, pending
 * unlinked inodes.
 */
int cmd_open_ro(const char *path, struct fs **fs, struct err *e);

/*
 * What every scanning command (report, check, plan, run, tui) takes:
 * -j/--threads N and --direct.  Put CMD_SCAN_LONGOPTS in the option
 * table and "j:" in the short options, offer each option to
 * cmd_scan_opt, and call cmd_scan_setup on the opened filesystem.
 */
struct cmd_scan {
	unsigned threads;	/* 0: one per online CPU */
	bool direct;
	/* the command reads the inodes more than once (check, run): a
	 * cold scan fills the page cache for the next, unless --direct */
	bool again;
	const struct cmd_hooks *hooks;	/* its scan hook tunes the reader */
};

#define CMD_OPT_DIRECT	0x100
#define CMD_SCAN_LONGOPTS \
	{ "threads", required_argument, NULL, 'j' }, \
	{ "direct", no_argument, NULL, CMD_OPT_DIRECT }

/* 1: opt was one of ours and is taken, 0: not ours, -1: a bad value. */
int cmd_scan_opt(struct cmd_scan *o, int opt, const char *arg);

/*
 * The planner's options shared by plan and run: --order, --renumber
 * auto|all|none, --inode32.  Put CMD_PLAN_LONGOPTS in the table, offer
 * each option to cmd_plan_opt, then call cmd_plan_setup.
 */
struct plan_opts;
#define CMD_OPT_RENUMBER	0x101
#define CMD_OPT_INODE32		0x102
#define CMD_PLAN_LONGOPTS \
	{ "order", required_argument, NULL, 'O' }, \
	{ "renumber", required_argument, NULL, CMD_OPT_RENUMBER }, \
	{ "inode32", no_argument, NULL, CMD_OPT_INODE32 }

struct cmd_plan {
	bool renumber_given;
};

/* 1: taken, 0: not ours, -1: a bad value. */
int cmd_plan_opt(struct cmd_plan *c, struct plan_opts *po, int opt,
		 const char *arg);
/* The default --renumber, when none was given: auto. */
void cmd_plan_setup(const struct cmd_plan *c, struct plan_opts *po);
/*
 * Direct I/O if asked for (a warning if the image does not take it),
 * then the hooks' reader tuning (the test binary's).
 */
void cmd_scan_setup(const struct cmd_scan *o, struct fs *fs);

/*
 * Write s to f, escaping control characters (and invalid UTF-8) as \xNN
 * so a file name cannot drive the terminal.
 */
void cmd_put_escaped(FILE *f, const char *s);
/*
 * Length of the valid UTF-8 sequence at s (1 for ASCII, control
 * characters included), or 0 when it is invalid or a C1 control.
 */
size_t cmd_utf8_len(const unsigned char *s);
/* Does stdout go to a terminal? */
bool cmd_stdout_tty(void);

#endif
