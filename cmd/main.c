/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Command dispatch: one table, shared checks, the final stdout check. */
#include "cmd/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *progname = "xfsdefrag";

static const struct cmd commands[] = {
	{ "info", cmd_info, "info IMAGE",
	  "show geometry and features (like xfs_info)" },
	{ "bmap", cmd_bmap,
	  "bmap [-a] [-l] [-p] [-v[v]] [-n N] IMAGE PATH... | -i INO...",
	  "list a file's extents exactly as xfs_bmap does" },
	{ "report", cmd_report,
	  "report [--json] [--html FILE] [-a AGNO] [--top N] [-j THREADS] [--direct] [--order walk|name|inode] IMAGE",
	  "fragmentation, free space, inode-to-data distance, locality" },
	{ "check", cmd_check, "check [--json] [-j THREADS] [--direct] [-n MAXPRINT] IMAGE",
	  "verify every structure and that every block is accounted for" },
	{ "undo", cmd_undo, "undo [--check] [-v] FILE IMAGE",
	  "roll a relocation run back from its undo file" },
	/* test aid: no summary, so not listed (xfsdefrag(8), TEST AIDS) */
	{ "debug-scribble", cmd_debug_scribble,
	  "debug-scribble [--fault N] [--seed S] [--free-writes N] "
	  "[--plan FILE] [--keep-sb] [--no-finish] JOURNAL IMAGE [PATH...] "
	  "| --junk-free IMAGE",
	  NULL },
	{ "debug-compare", cmd_debug_compare, "debug-compare ORIG OTHER",
	  NULL },
	{ "debug-inoruns", cmd_debug_inoruns, "debug-inoruns [--gap BYTES] [--dirs] IMAGE", NULL },
	/* shell completion helper: not listed (xfsdefrag(8), SHELL COMPLETION) */
	{ "complete", cmd_complete, "complete IMAGE PREFIX", NULL },
	{ "tui", cmd_tui, "tui [--no-color] [--path PATH] [-j THREADS] [--direct] IMAGE",
	  "browse directories, extents and AG block maps (ncurses)" },
	{ "plan", cmd_plan, "plan [--json] [--html FILE] [--top N] [-j THREADS] [--direct] [--order walk|name|inode] [--renumber auto|all|none] [--inode32] [--shrink SIZE|min] [--ag AGS] [--path PATH] [--min-extents N] [--max-rate MIBS] IMAGE",
	  "what a relocation run would move, and the figures after it" },
	{ "run", cmd_run, "run [--undo FILE] [--map FILE] [-j THREADS] [--direct] [--order walk|name|inode] [--renumber auto|all|none] [--inode32] [--passes] [--max-time SECONDS] [--json] [--discard] [--ag AGS] [--path PATH] [--min-extents N] [--max-rate MIBS] IMAGE",
	  "relocate in place: contiguous files packed front to back" },
	{ "shrink", cmd_shrink, "shrink [--size SIZE] [--min] [--undo FILE] [--map FILE] [-j THREADS] [--direct] [--order walk|name] [--renumber auto|all|none] [--json] [--discard] IMAGE",
	  "make the filesystem smaller offline (an image file is cut too)" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s COMMAND [OPTIONS] IMAGE ...\n\n", progname);
	fprintf(f, "Reads an unmounted XFS filesystem (image file or block "
		"device).\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].summary)
			fprintf(f, "  %-8s %s\n", commands[i].name,
				commands[i].summary);
	fprintf(f, "\n'%s COMMAND --help' shows a command's options; "
		"see xfsdefrag(8).\n", progname);
}

int cmd_usage(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			fprintf(stderr, "usage: %s %s\n", progname,
				commands[i].usage);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	size_t i;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("%s version %s\n", progname, XFSDEFRAG_VERSION);
		return EXIT_OK;
	}
	for (i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		ret = commands[i].fn(argc - 1, argv + 1);
		/* output that could not be written is a failure */
		if (fflush(stdout) != 0 || ferror(stdout)) {
			if (errno != EPIPE)
				cmd_error("error writing output: %s",
					  strerror(errno));
			if (ret == EXIT_OK)
				ret = EXIT_ERROR;
		}
		return ret;
	}
	cmd_error("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
