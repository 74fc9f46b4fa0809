/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag check [--json] [-j N] [-n N] IMAGE: the consistency checker,
 * read only.  Problems go to stderr, one line each ending in the
 * problem's code name (the first N of them); the verdict goes to
 * stdout.  With --json, stdout is one JSON object with every problem's
 * code, structure and message.  Exit 0 consistent, 3 problems found, 1
 * could not run.
 */
#include "cmd/cmd.h"
#include "cmd/json.h"
#include "core/check/check.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

struct cctx {
	uint64_t printed, max;	/* max 0: no limit */
	struct json *j;		/* --json: the findings array is open */
};

static void problem(void *priv, const struct check_msg *m)
{
	struct cctx *c = priv;

	if (c->max && c->printed >= c->max)
		return;
	c->printed++;
	if (!c->j) {
		cmd_error("%s [%s]", m->text, m->name);
		return;
	}
	json_obj_begin(c->j, NULL);
	json_str(c->j, "code", m->name);
	json_u64(c->j, "number", (uint64_t)m->code);
	json_str(c->j, "structure", m->structure);
	json_str(c->j, "message", m->text);
	json_obj_end(c->j);
}

static void json_verdict(struct json *j, const struct cctx *c,
			 const struct check_result *res)
{
	json_arr_end(j);
	json_u64(j, "problems", res->problems);
	json_u64(j, "problems_not_listed", res->problems - c->printed);
	json_bool(j, "consistent", res->problems == 0);
	json_u64(j, "inodes", res->inodes);
	json_u64(j, "blocks_checked", res->blocks_checked);
	json_str(j, "skipped", res->skipped);
	json_obj_end(j);
	json_end(j);
}

int cmd_check(int argc, char **argv, const struct cmd_hooks *h)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		CMD_SCAN_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_result res;
	struct cctx c = { 0, 100, NULL };
	struct json j;
	bool json = false, max_set = false;
	struct err e = { 0 };
	struct fs *fs;
	const char *image;
	struct cmd_scan sc = { 0 };
	struct check_opts co = { 0 };
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
			max_set = true;
			break;
		case 'J':
			json = true;
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
	/*
	 * The scan settles most inodes for the inodes phase, which reads
	 * again only the chunks of the others (core/check/check_quick.c):
	 * so the scan need not fill the page cache, unless the test
	 * binary's hook has every chunk read again.
	 */
	if (h->check)
		h->check(h->priv, &co);
	sc.again = co.reread;
	sc.hooks = h;
	if (fs_open(image, 0, &fs, &e)) {
		if (json) {
			json_init(&j, stdout);
			json_obj_begin(&j, NULL);
			json_u64(&j, "schema_version", 1);
			json_str(&j, "image", image);
			json_str(&j, "error", e.msg);
			json_obj_end(&j);
			json_end(&j);
		}
		return cmd_fail(&e);
	}
	cmd_scan_setup(&sc, fs);
	if (fs->mounted)
		cmd_error("warning: %s is mounted%s%s; what is read may be "
			  "stale", image, fs->mountpoint[0] ? " on " : "",
			  fs->mountpoint);
	if (json) {
		/* every problem kept is listed unless -n says otherwise */
		if (!max_set)
			c.max = 0;
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_u64(&j, "schema_version", 1);
		json_str(&j, "image", image);
		json_arr_begin(&j, "findings");
		c.j = &j;
	}
	co.threads = sc.threads;
	if (check_fs_with(fs, &co, problem, &c, &res, &e)) {
		fs_close(fs);
		if (json) {
			/* still one valid JSON object on stdout */
			json_arr_end(&j);
			json_str(&j, "error", e.msg);
			json_obj_end(&j);
			json_end(&j);
		}
		cmd_error("check: %s", e.msg);
		return EXIT_ERROR;
	}
	fs_close(fs);
	if (h->timing) {
		enum check_step st;

		for (st = 0; st < CHECK_NSTEPS; st++)
			h->timing(h->priv, check_step_name(st),
				  (double)res.step_ns[st] / 1e6);
	}
	if (json) {
		json_verdict(&j, &c, &res);
		return res.problems ? EXIT_CORRUPT : EXIT_OK;
	}
	if (res.skipped)
		cmd_error("note: %s", res.skipped);
	if (res.problems > c.printed)
		cmd_error("... and %llu more problem%s in the filesystem "
			  "(-n sets how many are listed)",
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
