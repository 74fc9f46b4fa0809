/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The subcommands and what they share: opening, warnings, exit codes. */
#ifndef CMD_CMD_H
#define CMD_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/opt.h"
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

struct cmd_call;
typedef int cmd_fn(struct cmd_call *c);

/*
 * A command: its name, its function, and what the front end checks for
 * it before calling it (cmd/dispatch.c): its options (one table, which
 * is also its help, the completion's source and what the man page is
 * tested against) parsed into a struct of args_size bytes that starts as
 * defaults, and its operands counted.
 */
struct cmd {
	const char *name;
	cmd_fn *fn;
	const char *summary;	/* NULL: not listed by --help */
	const char *operands;	/* "IMAGE", "FILE IMAGE", "IMAGE PATH..." */
	int min_ops, max_ops;	/* max_ops < 0: no limit */
	const struct opt *opts;	/* NULL: the command reads argv itself */
	size_t args_size;
	const void *defaults;	/* args_size bytes */
	void (*release)(void *args);	/* frees what parsing allocated */
};

/* The first failure of a command, for --json (cmd_fail, cmd_failf). */
struct cmd_failure {
	bool set;
	bool usage;		/* a usage error: code "usage" */
	int err;		/* else its negative errno */
	char msg[1024];
	char structure[64];	/* what it is about ("agf 3"), or "" */
};

/* One call of a command: what it was given, what it did. */
struct cmd_call {
	const struct cmd *cmd;
	const struct cmd *const *extra;	/* the front end's other commands */
	const struct cmd_hooks *hooks;	/* never NULL; its members may be */
	void *args;		/* the parsed options (struct of the command) */
	char **ops;		/* the operands */
	int nops;
	int argc;		/* argv[0] the command's name: for raw */
	char **argv;		/* commands (opts NULL) */
	bool json;		/* --json: a failure is a JSON object too */
	bool json_done;		/* stdout has had the command's JSON document */
	struct cmd_failure fail;
};

/* The product's commands (one file each). */
extern const struct cmd cmd_info, cmd_bmap, cmd_report, cmd_check,
			cmd_undo, cmd_tui, cmd_plan, cmd_run, cmd_shrink;
extern const struct cmd cmd_complete;	/* shell completion, hidden */

/*
 * The front end: argv[1] names a command of the product's or of extra
 * (NULL-terminated; NULL: none), run with hooks.  Parses its options
 * and counts its operands (a usage error exits 2, one line), prints its
 * help, and with --json prints a failure as one JSON object.
 */
int cmd_main(int argc, char **argv, const struct cmd *const *extra,
	     const struct cmd_hooks *h);
/* The product's commands, NULL last. */
const struct cmd *const *cmd_product(void);
/* The command called name, or NULL. */
const struct cmd *cmd_find(const char *name, const struct cmd *const *extra);

extern const char *progname;

/* Print "xfsdefrag: msg" to stderr, control characters escaped. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A failure: print e's message (cmd_error), keep it for --json, return
 * the exit status its errno calls for (cmd_exit_code).
 */
int cmd_fail(struct cmd_call *c, const struct err *e);
/* The same for a message of our own, its errno err and exit status. */
int cmd_failf(struct cmd_call *c, int err, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A usage error (exit status 2; "usage" in JSON), one line. */
int cmd_usagef(struct cmd_call *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cmd_exit_code(int err);
/*
 * What an error message is about, from its first words ("agf 3",
 * "inode 128", "superblock"), or "" when it names no structure.
 */
void cmd_err_structure(const char *msg, char *out, size_t len);
/* A stable name for a negative errno: "ENOENT", "EFSCORRUPTED"... */
const char *cmd_errno_name(int err);
/*
 * "error": the call's first failure as {"code", "message", "structure"}
 * (code "usage" or the errno's name; structure null when unknown), or
 * null; a command's own JSON document ends with it.
 */
struct json;
void cmd_json_failure(struct json *j, const struct cmd_call *c);

/*
 * Open IMAGE read-only, verify every AG's headers, and warn (stderr)
 * about what makes its contents doubtful: mounted, dirty log, pending
 * unlinked inodes.
 */
int cmd_open_ro(const char *path, unsigned flags, struct fs **fs,
		struct err *e);

/*
 * Which xfsprogs the outputs that copy its tools' look like (info as
 * xfs_info, report's xfs_db freesp): 6.15 changed them (xfs_info's lines
 * for exchange, metadir, parent, realtime groups and zoned, printed
 * whatever the features; freesp's column widths and cumulative shares).
 * A filesystem with one of the features 6.1 did not know gets 6.15's
 * look, any other 6.1's.
 */
bool cmd_layout_615(const struct od_sb *sb);

/*
 * --partition N, which every command takes: open partition N (GPT or
 * MBR) of the whole disk IMAGE names.  One row, CMD_PART_OPT(struct,
 * member), into an unsigned member (0: not given, the whole image);
 * the scanning commands have it in CMD_SCAN_OPTS.  FS_PART(member) is
 * what it adds to the flags of fs_open, cmd_open_ro and undo_open_fs.
 */
#define CMD_PART_OPT(T, m) \
	{ .name = "partition", .kind = OPT_UINT, .arg = "N", .min = 1, \
	  .max = 65535, OPT_AT(T, m), \
	  .help = "open partition N (GPT or MBR) of the whole disk IMAGE", \
	  .dflt = "the whole image" }

/*
 * What every scanning command (report, check, plan, run, tui) takes:
 * -j/--threads N, --direct and --partition N.  Put CMD_SCAN_OPTS(struct,
 * member) in its option table, open FS_PART(member.partition) and call
 * cmd_scan_setup on the opened filesystem.
 */
struct cmd_scan {
	unsigned threads;	/* 0: one per online CPU */
	unsigned partition;	/* --partition N; 0: the whole image */
	bool direct;
	/* the command reads the inodes more than once (check, run): a
	 * cold scan fills the page cache for the next, unless --direct */
	bool again;
	const struct cmd_hooks *hooks;	/* its scan hook tunes the reader */
};

#define CMD_SCAN_OPTS(T, m) \
	{ .name = "threads", .letter = 'j', .kind = OPT_UINT, .arg = "N", \
	  .min = 1, .max = 1024, OPT_AT(T, m.threads), \
	  .help = "scan with N threads", \
	  .dflt = "one per CPU" }, \
	{ .name = "direct", .kind = OPT_FLAG, OPT_AT(T, m.direct), \
	  .help = "read the inode chunks with direct I/O, cached or not" }, \
	CMD_PART_OPT(T, m.partition)

/*
 * Direct I/O if asked for (a warning if the image does not take it),
 * then the hooks' reader tuning (the test binary's).
 */
void cmd_scan_setup(const struct cmd_scan *o, struct fs *fs);

/* --json, with what it prints. */
#define CMD_JSON_OPT(T, m, what) \
	{ .name = "json", .kind = OPT_FLAG, OPT_AT(T, m), \
	  .flags = OPT_F_JSON, .help = what }

/*
 * The planner's options shared by plan and run: --order,
 * --renumber auto|all|none, --inode32, into a struct plan_opts member
 * (whose defaults are walk and auto).
 */
extern const struct opt_choice cmd_order_choices[];
extern const struct opt_choice cmd_renumber_choices[];
#define CMD_ORDER_OPT(T, m, what) \
	{ .name = "order", .kind = OPT_CHOICE, .arg = "ORDER", \
	  .choices = cmd_order_choices, OPT_AT(T, m), .help = what, \
	  .dflt = "walk" }
#define CMD_PLAN_OPTS(T, m) \
	CMD_ORDER_OPT(T, m.order, \
		      "lay the tree out in the order this reader walks it"), \
	{ .name = "renumber", .kind = OPT_CHOICE, .arg = "HOW", \
	  .choices = cmd_renumber_choices, OPT_AT(T, m.renumber), \
	  .help = "also move inodes next to their data (their numbers " \
		  "change)", .dflt = "auto" }, \
	{ .name = "inode32", .kind = OPT_FLAG, OPT_AT(T, m.inode32), \
	  .help = "every inode number below 2^32, or refuse" }

/*
 * Write s to f, escaping control characters (and invalid UTF-8) as \xNN
 * so a file name cannot drive the terminal.
 */
void cmd_put_escaped(FILE *f, const char *s);
/* Does stdout go to a terminal? */
bool cmd_stdout_tty(void);

#endif
