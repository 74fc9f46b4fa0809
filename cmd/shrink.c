/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag shrink: run pointed at a new end (--size, or --min: the
 * smallest size that fits), in one pass over the whole filesystem; the
 * same driver as run (cmd_run_go) and core/run/'s sequence, which cuts
 * an image file to the new size once the pass stands.
 */
#include "cmd/cmd.h"
#include "cmd/runout.h"
#include "cmd/shrinkfmt.h"

struct shrink_args {
	const char *undo, *map;
	struct shrinkfmt_size size;
	bool min, json, discard;
	struct plan_opts po;
	struct cmd_scan sc;
};

static int shrink(struct cmd_call *cc)
{
	struct shrink_args *a = cc->args;
	struct cmd_limits none = { 0 };
	struct cmd_run_call rc = { .lim = &none, .sc = a->sc,
				   .json = a->json };

	if (a->min && a->size.bytes)
		return cmd_usagef(cc, "shrink: --size and --min: one or the "
				  "other");
	if (!a->min && !a->size.min && !a->size.bytes)
		return cmd_usagef(cc, "shrink: the new size is missing "
				  "(--size SIZE, or --min)");
	rc.o.undo = a->undo;
	rc.o.map = a->map;
	rc.o.po = a->po;
	rc.o.shrink_min = a->min || a->size.min;
	rc.o.discard = a->discard;
	rc.shrink_bytes = rc.o.shrink_min ? 0 : a->size.bytes;
	return cmd_run_go(cc, &rc);
}

/* A shrink lays the whole tree out in a walk order (not inode order). */
static const struct opt_choice orders[] = {
	{ "walk", WALK_READDIR },
	{ "name", WALK_NAME },
	{ NULL, 0 },
};

#define S struct shrink_args
static const struct opt opts[] = {
	{ .name = "size", .kind = OPT_CALL, .arg = "SIZE",
	  .call = shrinkfmt_size_opt, OPT_AT(S, size),
	  .help = "the new size: bytes, or with K, M, G or T (rounded down "
		  "to whole blocks); min: as --min" },
	{ .name = "min", .kind = OPT_FLAG, OPT_AT(S, min),
	  .help = "the smallest size the filesystem fits in" },
	{ .name = "undo", .kind = OPT_STR, .arg = "FILE",
	  OPT_AT(S, undo),
	  .help = "the undo file to write (must not exist; keep it on "
		  "another filesystem)", .dflt = "xfsdefrag-UUID.undo" },
	{ .name = "map", .kind = OPT_STR, .arg = "FILE", OPT_AT(S, map),
	  .help = "where renumbered inodes' \"old new\" numbers go",
	  .dflt = "the undo file's name plus .map" },
	CMD_SCAN_OPTS(S, sc),
	{ .name = "order", .kind = OPT_CHOICE, .arg = "ORDER",
	  .choices = orders, OPT_AT(S, po.order),
	  .help = "lay the tree out in the order this reader walks it",
	  .dflt = "walk" },
	{ .name = "renumber", .kind = OPT_CHOICE, .arg = "HOW",
	  .choices = cmd_renumber_choices, OPT_AT(S, po.renumber),
	  .help = "also move inodes next to their data (those past the new "
		  "end move whatever this says)", .dflt = "auto" },
	CMD_JSON_OPT(S, json, "print one JSON document instead of text"),
	CMD_DISCARD_OPT(S, discard),
	OPT_END,
};
#undef S

static const struct shrink_args defaults = {
	.po = { .order = WALK_READDIR, .renumber = PR_AUTO },
};

const struct cmd cmd_shrink = {
	.name = "shrink", .fn = shrink,
	.summary = "make the filesystem smaller offline (an image file is "
		   "cut too)",
	.operands = "IMAGE", .min_ops = 1, .max_ops = 1, .opts = opts,
	.args_size = sizeof(struct shrink_args), .defaults = &defaults,
};
