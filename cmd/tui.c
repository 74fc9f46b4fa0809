/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag tui: scan the filesystem once (progress on the terminal),
 * then browse it interactively: directories, a file's extents exactly as
 * xfs_bmap -v prints them, and AG block maps.  Read-only.
 */
#include "cmd/cmd.h"
#include "core/model/blkmap.h"
#include "core/model/report.h"
#include "core/model/scan.h"
#include "core/model/tree.h"
#include "tui/tui.h"

#include <errno.h>
#include <stddef.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The worst screen's lists: files ranked by fragmentation and distance. */
#define TUI_TOP	100

struct tui_cmd {
	const char *image;
	struct fs *fs;
	struct model *m;
	struct blkmap *bm;
	struct report rpt;
	struct tree tree;	/* directory totals */
	bool tty;
	char damage[600];	/* first damage met by the scan, "" if none */
	struct cmd_scan scan;	/* -j, --direct */
};

static void progress(void *priv, const struct scan_progress *p)
{
	const struct tui_cmd *c = priv;

	fprintf(stderr, "\rscanning: %llu of ~%llu inodes, %u of %u AGs done",
		(unsigned long long)__atomic_load_n(&p->inodes_done,
						    __ATOMIC_RELAXED),
		(unsigned long long)p->inodes_total,
		__atomic_load_n(&p->ags_done, __ATOMIC_RELAXED),
		c->fs->geo.agcount);
}

/* Scan, analyse and index; 0 or an exit code. */
static int prepare(struct tui_cmd *c, struct cmd_call *cc, struct err *e)
{
	struct scan_opts so = { 0 };
	int ret;

	so.dirs = true;
	so.threads = c->scan.threads;
	if (c->tty) {
		so.progress = progress;
		so.priv = c;
	}
	ret = scan_fs(c->fs, &so, &c->m, e);
	if (c->tty)
		fprintf(stderr, "\r\033[K");
	if (ret && !c->m)
		return cmd_fail(cc, e);
	if (ret) {
		/* a damaged AG: browse what was read, say so */
		cmd_error("%s", e->msg);
		snprintf(c->damage, sizeof(c->damage), "damaged: %s", e->msg);
		err_clear(e);
	}
	/* the worst screen's lists, with their paths; directory totals */
	if (report_build(c->m, -1, TUI_TOP, &c->rpt, e) ||
	    report_paths(c->m, &c->rpt, e) ||
	    blkmap_build(c->m, &c->bm, e) || tree_build(c->m, &c->tree, e))
		return cmd_fail(cc, e);
	return EXIT_OK;
}

struct tui_args {
	bool no_color;
	const char *path;
	struct cmd_scan sc;
};

static int tui(struct cmd_call *cc)
{
	struct tui_args *a = cc->args;
	const struct cmd_hooks *h = cc->hooks;
	struct tui_cmd c;
	struct tui_opts o = { !a->no_color, a->path, NULL };
	struct err e = { 0 };
	struct tui t;
	const char *nc = getenv("NO_COLOR");
	int status;

	memset(&c, 0, sizeof(c));
	setlocale(LC_ALL, "");
	c.scan = a->sc;
	if (nc && *nc)
		o.color = false;
	if (!h->tui && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return cmd_failf(cc, -ENOTTY, EXIT_USAGE, "tui needs a "
				 "terminal on standard input and output");
	c.image = cc->ops[0];
	c.tty = isatty(STDERR_FILENO) == 1;
	if (cmd_open_ro(c.image, FS_PART(c.scan.partition), &c.fs, &e))
		return cmd_fail(cc, &e);
	c.scan.hooks = h;
	cmd_scan_setup(&c.scan, c.fs);
	status = prepare(&c, cc, &e);
	if (status)
		goto out;
	tui_init(&t, c.fs, c.m, c.bm, &c.rpt, c.image);
	t.tree = &c.tree;
	if (c.damage[0])
		o.notice = c.damage;
	if (h->tui) {
		if (h->tui(h->priv, &t, o.path))
			status = EXIT_ERROR;
	} else if (tui_run(&t, &o, &e)) {
		status = cmd_fail(cc, &e);
	}
	tui_free(&t);
	if (!status && c.damage[0])
		status = EXIT_CORRUPT;
out:
	blkmap_free(c.bm);
	report_free(&c.rpt);
	tree_free(&c.tree);
	model_free(c.m);
	fs_close(c.fs);
	return status;
}

#define T struct tui_args
static const struct opt opts[] = {
	{ .name = "no-color", .kind = OPT_FLAG, OPT_AT(T, no_color),
	  .help = "draw without colours (so does NO_COLOR set and not "
		  "empty)" },
	{ .name = "path", .kind = OPT_STR, .arg = "PATH", OPT_AT(T, path),
	  .help = "start at this directory or file of the filesystem",
	  .dflt = "the root" },
	CMD_SCAN_OPTS(T, sc),
	OPT_END,
};
#undef T

const struct cmd cmd_tui = {
	.name = "tui", .fn = tui,
	.summary = "browse directories, extents and AG block maps (ncurses)",
	.operands = "IMAGE", .min_ops = 1, .max_ops = 1, .opts = opts,
	.args_size = sizeof(struct tui_args),
};
