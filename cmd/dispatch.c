/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command dispatch: the product's table, and what every command shares
 * before and after it runs: its options parsed from its table and its
 * operands counted (a usage error: one line, exit status 2), its help,
 * a failure as one JSON object on stdout under --json, the final check
 * that stdout was written.  main() is cmd/main.c's (the product) or the
 * test binary's, which adds commands and hooks.
 */
#include "cmd/cmd.h"
#include "cmd/json.h"
#include "core/base/bigmem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *progname = "xfsdefrag";

static const struct cmd *const commands[] = {
	&cmd_info, &cmd_bmap, &cmd_report, &cmd_check, &cmd_undo, &cmd_tui,
	&cmd_plan, &cmd_run, &cmd_shrink, &cmd_complete, NULL,
};

const struct cmd *const *cmd_product(void)
{
	return commands;
}

const struct cmd *cmd_find(const char *name, const struct cmd *const *extra)
{
	const struct cmd *const *p;

	for (p = commands; *p; p++)
		if (strcmp(name, (*p)->name) == 0)
			return *p;
	for (p = extra; p && *p; p++)
		if (strcmp(name, (*p)->name) == 0)
			return *p;
	return NULL;
}

static void list(FILE *f, const struct cmd *const *p)
{
	for (; p && *p; p++)
		if ((*p)->summary)
			fprintf(f, "  %-14s %s\n", (*p)->name, (*p)->summary);
}

static void usage(FILE *f, const struct cmd *const *extra)
{
	fprintf(f, "usage: %s COMMAND [OPTIONS] IMAGE ...\n\n", progname);
	fprintf(f, "Reads an unmounted XFS filesystem (image file or block "
		"device).\n\ncommands:\n");
	list(f, commands);
	list(f, extra);
	fprintf(f, "\n'%s help COMMAND' (or '%s COMMAND --help') lists a "
		"command's options; see xfsdefrag(8).\n", progname, progname);
}

static void cmd_synopsis(FILE *f, const struct cmd *c)
{
	fprintf(f, "usage: %s %s ", progname, c->name);
	if (c->opts && !opt_is_end(c->opts)) {
		opt_synopsis(f, c->opts);
		fputc(' ', f);
	}
	fprintf(f, "%s\n", c->operands);
}

/* xfsdefrag COMMAND --help, xfsdefrag help COMMAND */
static void cmd_help(FILE *f, const struct cmd *c)
{
	cmd_synopsis(f, c);
	if (c->summary)
		fprintf(f, "%s\n", c->summary);
	if (c->opts) {
		fprintf(f, "\noptions:\n");
		opt_help(f, c->opts);
	}
	fprintf(f, "\nSee xfsdefrag(8) for the details.\n");
}

/* An unknown command: one line, what was meant if it is close. */
static int unknown(const char *name, const struct cmd *const *extra)
{
	const char *cand[64];
	const struct cmd *const *p;
	const char *near;
	size_t n = 0;

	for (p = commands; *p && n < 63; p++)
		if ((*p)->summary)
			cand[n++] = (*p)->name;
	for (p = extra; p && *p && n < 63; p++)
		if ((*p)->summary)
			cand[n++] = (*p)->name;
	cand[n++] = "help";
	near = opt_suggest(name, cand, n);
	if (near)
		cmd_error("unknown command '%s' (did you mean %s?); '%s "
			  "--help' lists the commands", name, near, progname);
	else
		cmd_error("unknown command '%s'; '%s --help' lists the "
			  "commands", name, progname);
	return EXIT_USAGE;
}

/* The one JSON object of a failure under --json. */
static void json_failure(const struct cmd_call *c)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	cmd_json_failure(&j, c);
	json_obj_end(&j);
	json_end(&j);
}

static bool json_asked(const struct cmd *c, const void *args)
{
	const struct opt *o;

	for (o = c->opts; o && !opt_is_end(o); o++)
		if ((o->flags & OPT_F_JSON) &&
		    *(const bool *)((const char *)args + o->off))
			return true;
	return false;
}

/* The k-th word of "FILE IMAGE" or "IMAGE PATH..." (the last repeats). */
static void operand_name(const char *ops, int k, char *out, size_t len)
{
	const char *w = ops, *sp;
	size_t n;

	while (k-- > 0 && (sp = strchr(w, ' ')))
		w = sp + 1;
	n = strcspn(w, " .");
	snprintf(out, len, "%.*s", (int)n, w);
}

/* Options, operands and help; -1: go on, else the exit status. */
static int prepare(struct cmd_call *c, int argc, char **argv)
{
	const struct cmd *cmd = c->cmd;
	char why[1024];
	int first, ret;

	c->argc = argc;
	c->argv = argv;
	if (!cmd->opts) {
		/* the command reads its arguments itself */
		c->ops = argv + 1;
		c->nops = argc - 1;
		return -1;
	}
	ret = opt_parse(cmd->opts, argc, argv, c->args, &first, why,
			sizeof(why));
	if (ret == 1) {
		cmd_help(stdout, cmd);
		return EXIT_OK;
	}
	c->json = ret ? opt_given(cmd->opts, OPT_F_JSON, argc, argv) :
			json_asked(cmd, c->args);
	if (ret)
		return cmd_usagef(c, "%s", why);
	c->ops = argv + first;
	c->nops = argc - first;
	if (c->nops < cmd->min_ops) {
		char what[64];

		operand_name(cmd->operands, c->nops, what, sizeof(what));
		return cmd_usagef(c, "%s: %s is missing (usage: %s %s "
				  "[OPTIONS] %s)", cmd->name, what, progname,
				  cmd->name, cmd->operands);
	}
	if (cmd->max_ops >= 0 && c->nops > cmd->max_ops) {
		const char *x = c->ops[cmd->max_ops];

		if (x[0] == '-' && x[1])
			return cmd_usagef(c, "%s: '%s' after %s: options go "
					  "before it", cmd->name, x,
					  cmd->operands);
		return cmd_usagef(c, "%s: too many arguments: '%s' (usage: "
				  "%s %s [OPTIONS] %s)", cmd->name, x,
				  progname, cmd->name, cmd->operands);
	}
	return -1;
}

static int call(const struct cmd *cmd, int argc, char **argv,
		const struct cmd *const *extra, const struct cmd_hooks *h)
{
	struct cmd_call c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.cmd = cmd;
	c.extra = extra;
	c.hooks = h;
	if (cmd->args_size) {
		c.args = calloc(1, cmd->args_size);
		if (!c.args) {
			cmd_error("out of memory");
			return EXIT_ERROR;
		}
		if (cmd->defaults)
			memcpy(c.args, cmd->defaults, cmd->args_size);
	}
	ret = prepare(&c, argc, argv);
	if (ret < 0)
		ret = cmd->fn(&c);
	if (c.json && ret != EXIT_OK && !c.json_done) {
		if (!c.fail.set)
			cmd_failf(&c, -EIO, ret, "%s failed (exit status %d)",
				  cmd->name, ret);
		json_failure(&c);
	}
	if (cmd->release && c.args)
		cmd->release(c.args);
	free(c.args);
	return ret;
}

int cmd_main(int argc, char **argv, const struct cmd *const *extra,
	     const struct cmd_hooks *h)
{
	const struct cmd *c;
	int ret;

	bigmem_setup();
	if (argc < 2) {
		usage(stderr, extra);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		usage(stdout, extra);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc > 3) {
			cmd_error("help: one COMMAND at most");
			return EXIT_USAGE;
		}
		c = cmd_find(argv[2], extra);
		if (!c)
			return unknown(argv[2], extra);
		cmd_help(stdout, c);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("%s version %s\n", progname, XFSDEFRAG_VERSION);
		return EXIT_OK;
	}
	c = cmd_find(argv[1], extra);
	if (!c)
		return unknown(argv[1], extra);
	ret = call(c, argc - 1, argv + 1, extra, h);
	/* output that could not be written is a failure */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			cmd_error("error writing output: %s", strerror(errno));
		if (ret == EXIT_OK)
			ret = EXIT_ERROR;
	}
	return ret;
}
