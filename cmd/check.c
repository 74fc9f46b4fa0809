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

#include <stddef.h>
#include <stdint.h>
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
			 const struct check_result *res,
			 const struct cmd_call *cc)
{
	json_arr_end(j);
	json_u64(j, "problems", res->problems);
	json_u64(j, "problems_not_listed", res->problems - c->printed);
	json_bool(j, "consistent", res->problems == 0);
	json_u64(j, "inodes", res->inodes);
	json_u64(j, "blocks_checked", res->blocks_checked);
	json_str(j, "skipped", res->skipped);
	cmd_json_failure(j, cc);
	json_obj_end(j);
	json_end(j);
}

struct check_args {
	bool json;
	uint64_t max;		/* problems listed; UINT64_MAX: not given */
	struct cmd_scan sc;
};

static int check(struct cmd_call *cc)
{
	struct check_args *a = cc->args;
	const struct cmd_hooks *h = cc->hooks;
	struct check_result res;
	struct cctx c = { 0, 100, NULL };
	struct json j;
	struct err e = { 0 };
	struct fs *fs;
	const char *image = cc->ops[0];
	struct check_opts co = { 0 };

	/*
	 * The scan settles most inodes for the inodes phase, which reads
	 * again only the chunks of the others (core/check/check_quick.c):
	 * so the scan need not fill the page cache, unless the test
	 * binary's hook has every chunk read again.
	 */
	if (h->check)
		h->check(h->priv, &co);
	a->sc.again = co.reread;
	a->sc.hooks = h;
	if (fs_open(image, FS_PART(a->sc.partition), &fs, &e))
		return cmd_fail(cc, &e);
	cmd_scan_setup(&a->sc, fs);
	if (fs->mounted)
		cmd_error("warning: %s is mounted%s%s; what is read may be "
			  "stale", image, fs->mountpoint[0] ? " on " : "",
			  fs->mountpoint);
	/* every problem kept is listed with --json unless -n says not */
	if (a->max != UINT64_MAX)
		c.max = a->max;
	else if (a->json)
		c.max = 0;
	if (a->json) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_u64(&j, "schema_version", 1);
		json_str(&j, "image", image);
		json_arr_begin(&j, "findings");
		c.j = &j;
		cc->json_done = true;
	}
	co.threads = a->sc.threads;
	if (check_fs_with(fs, &co, problem, &c, &res, &e)) {
		fs_close(fs);
		cmd_failf(cc, e.code, EXIT_ERROR, "check: %s", e.msg);
		if (a->json) {
			/* still one valid JSON object on stdout */
			json_arr_end(&j);
			cmd_json_failure(&j, cc);
			json_obj_end(&j);
			json_end(&j);
		}
		return EXIT_ERROR;
	}
	fs_close(fs);
	if (h->timing) {
		enum check_step st;

		for (st = 0; st < CHECK_NSTEPS; st++)
			h->timing(h->priv, check_step_name(st),
				  (double)res.step_ns[st] / 1e6);
	}
	if (a->json) {
		json_verdict(&j, &c, &res, cc);
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

#define C struct check_args
static const struct opt opts[] = {
	CMD_JSON_OPT(C, json, "print one JSON object instead: every "
		     "finding, the counts, the verdict"),
	CMD_SCAN_OPTS(C, sc),
	{ .letter = 'n', .kind = OPT_UINT, .arg = "MAX", .min = 0,
	  .max = 4294967295.0, OPT_AT(C, max),
	  .help = "list at most MAX problems, 0 for all",
	  .dflt = "100; all with --json" },
	OPT_END,
};
#undef C

static const struct check_args defaults = { .max = UINT64_MAX };

const struct cmd cmd_check = {
	.name = "check", .fn = check,
	.summary = "verify every structure and that every block is "
		   "accounted for",
	.operands = "IMAGE", .min_ops = 1, .max_ops = 1, .opts = opts,
	.args_size = sizeof(struct check_args), .defaults = &defaults,
};
