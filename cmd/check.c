/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag check [-j N] [-n N] IMAGE: the consistency checker, read only.
 * Problems go to stderr, one line each (the first N of them); the verdict
 * goes to stdout.  Exit 0 consistent, 3 problems found, 1 could not run.
 */
#include "cmd/cmd.h"
#include "core/check/check.h"

#include <getopt.h>
#include <stdlib.h>

struct cctx {
	uint64_t printed, max;	/* max 0: no limit */
};

static void problem(void *priv, const char *msg)
{
	struct cctx *c = priv;

	if (c->max && c->printed >= c->max)
		return;
	c->printed++;
	cmd_error("%s", msg);
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		CMD_SCAN_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_result res;
	struct cctx c = { 0, 100 };
	struct err e = { 0 };
	struct fs *fs;
	const char *image;
	struct cmd_scan sc = { 0 };
	long max;
	char *end;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+j:n:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			max = strtol(optarg, &end, 10);
			if (*end || max < 0)
				return cmd_usage("check");
			c.max = (uint64_t)max;
			break;
		case 'h':
			cmd_usage("check");
			return EXIT_OK;
		default:
			if (cmd_scan_opt(&sc, opt, optarg) <= 0)
				return cmd_usage("check");
		}
	}
	if (argc - optind != 1)
		return cmd_usage("check");
	image = argv[optind];
	if (fs_open(image, 0, &fs, &e))
		return cmd_fail(&e);
	cmd_scan_setup(&sc, fs);
	if (fs->mounted)
		cmd_error("warning: %s is mounted%s%s; what is read may be "
			  "stale", image, fs->mountpoint[0] ? " on " : "",
			  fs->mountpoint);
	if (check_fs(fs, sc.threads, problem, &c, &res, &e)) {
		fs_close(fs);
		cmd_error("check: %s", e.msg);
		return EXIT_ERROR;
	}
	fs_close(fs);
	if (res.skipped)
		cmd_error("note: %s", res.skipped);
	if (res.problems > c.printed)
		cmd_error("... and %llu more problem%s",
			  (unsigned long long)(res.problems - c.printed),
			  res.problems - c.printed == 1 ? "" : "s");
	if (res.problems == 0) {
		printf("check: ");
		cmd_put_escaped(stdout, image);
		printf(" is consistent: %llu inodes, %llu blocks accounted "
		       "for\n", (unsigned long long)res.inodes,
		       (unsigned long long)res.blocks_checked);
		return EXIT_OK;
	}
	printf("check: %llu problem%s found\n",
	       (unsigned long long)res.problems,
	       res.problems == 1 ? "" : "s");
	return EXIT_CORRUPT;
}
