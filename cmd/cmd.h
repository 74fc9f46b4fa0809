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

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

int cmd_info(int argc, char **argv);
int cmd_bmap(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_undo(int argc, char **argv);
int cmd_debug_scribble(int argc, char **argv);	/* test aid, hidden */
int cmd_complete(int argc, char **argv);	/* shell completion, hidden */
int cmd_debug_compare(int argc, char **argv);	/* test aid, hidden */
int cmd_debug_inoruns(int argc, char **argv);	/* bench aid, hidden */
int cmd_tui(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_shrink(int argc, char **argv);

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
 * and the reader tuning from XFSDEFRAG_READER (a benchmarking aid:
 * how[:depth[:request KiB[:gap KiB]]], xfsdefrag(8) ENVIRONMENT).
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
