/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag plan: a dry run.  Scans, plans the relocation exactly as
 * `run` would, and prints what would move and the figures predicted
 * after it, next to today's.  Writes nothing.
 */
#include "cmd/cmd.h"
#include "html/html.h"
#include "cmd/json.h"
#include "cmd/planlim.h"
#include "cmd/rbfmt.h"
#include "cmd/shrinkfmt.h"
#include "cmd/verdict.h"
#include "core/model/model_paths.h"
#include "core/relocate/plan.h"
#include "core/relocate/plan_shrink.h"
#include "core/relocate/refuse.h"
#include "core/model/frag.h"
#include "core/model/report.h"
#include "core/model/scan.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pctx {
	const char *image;
	struct fs *fs;
	struct model *m;
	struct report before;
	struct plan p;
	char **note_paths;
	const char *refusal;
	struct err refuse_err;
	struct cmd_limits lim;
	char **inway_paths;
	/* --shrink */
	bool shrink, shrink_min;
	unsigned tries;
	uint64_t floor;
	struct verdict v;
};

static double pct(uint64_t a, uint64_t b)
{
	return b ? (double)a * 100.0 / (double)b : 0.0;
}

/* What a write budget chose, and what the rest of the plan would gain. */
static void budget_text(const struct plan *p, uint64_t bs)
{
	if (!p->cut) {
		printf("within --max-write %.1f MiB: the whole plan fits\n",
		       (double)p->max_write / 1048576.0);
		return;
	}
	printf("within --max-write %.1f MiB: the moves that gain most per "
	       "byte copied, %.1f of the whole plan's %.1f MiB; the rest "
	       "would take the read-back from %.2f s to %.2f s on an HDD and "
	       "from %llu to %llu SSD requests\n",
	       (double)p->max_write / 1048576.0,
	       (double)(p->copied_blocks * bs) / 1048576.0,
	       (double)(p->whole_copied * bs) / 1048576.0,
	       p->rb_after.hdd_seconds, p->rb_whole.hdd_seconds,
	       (unsigned long long)p->rb_after.requests,
	       (unsigned long long)p->rb_whole.requests);
}

static void budget_json(struct json *j, const struct plan *p, uint64_t bs)
{
	if (!p->max_write) {
		json_null(j, "budget");
		return;
	}
	json_obj_begin(j, "budget");
	json_u64(j, "max_write_bytes", p->max_write);
	json_bool(j, "cut", p->cut);
	json_u64(j, "copied_bytes", p->copied_blocks * bs);
	json_u64(j, "whole_copied_bytes", p->whole_copied * bs);
	json_obj_begin(j, "rest");
	json_u64(j, "copied_bytes", (p->whole_copied - p->copied_blocks) * bs);
	json_f2(j, "hdd_ms_after", p->rb_whole.hdd_seconds * 1e3);
	json_u64(j, "ssd_requests_after", p->rb_whole.requests);
	json_f2(j, "hdd_ms_gain", (p->rb_after.hdd_seconds -
				   p->rb_whole.hdd_seconds) * 1e3);
	json_i64(j, "ssd_requests_gain", (int64_t)p->rb_after.requests -
		 (int64_t)p->rb_whole.requests);
	json_obj_end(j);
	json_obj_end(j);
}

static void print_text(const struct pctx *c)
{
	const struct plan *p = &c->p;
	const struct report *b = &c->before;
	uint64_t bs = c->fs->geo.blocksize;
	uint32_t a;
	size_t i;

	printf("xfsdefrag plan: ");
	cmd_put_escaped(stdout, c->image);
	printf(" (dry run, nothing written)\n\n");
	if (c->shrink) {
		shrinkfmt_text(c->fs, p, c->shrink_min, c->tries, c->floor);
		printf("\n");
	}
	printf("would move %llu blocks (%.1f MiB) in %zu pieces; %.1f MiB "
	       "copied (unwritten extents are remapped, not copied)\n",
	       (unsigned long long)p->moved_blocks,
	       (double)(p->moved_blocks * bs) / 1048576.0, p->nmv,
	       (double)(p->copied_blocks * bs) / 1048576.0);
	printf("would rewrite %zu forks; the undo file would take about "
	       "%.1f MiB\n", p->npf,
	       (double)p->undo_estimate / 1048576.0);
	if (p->max_write)
		budget_text(p, bs);
	if (p->nino || p->nich) {
		size_t na = 0;

		for (i = 0; i < p->nich; i++)
			na += p->ich[i].alloc;
		printf("would renumber %zu inodes into %zu new inode chunks "
		       "and free %zu chunks (inode numbers change: see "
		       "run --map)\n", p->nino, na, p->nich - na);
	}
	printf("\n%-34s %14s %14s\n", "", "now", "after");
	printf("%-34s %14llu %14llu\n", "extent records (all forks)",
	       (unsigned long long)p->extents_before,
	       (unsigned long long)p->extents_after);
	printf("%-34s %13.2f%% %13.2f%%\n",
	       "fragmentation factor (xfs_db frag)",
	       frag_factor(b->frag_actual, b->frag_ideal),
	       frag_factor(p->frag_actual_after, p->frag_ideal_after));
	printf("%-34s %14s %13.2f%%\n", "  leaving out the files named below",
	       "", frag_factor(p->frag_actual_rest, p->frag_ideal_rest));
	printf("%-34s %14llu %14llu\n", "files in more than one extent",
	       (unsigned long long)b->files_multi,
	       (unsigned long long)p->files_multi_after);
	printf("%-34s %14llu %14llu\n", "inode-to-data distance, median",
	       (unsigned long long)b->dist_first.median,
	       (unsigned long long)p->dist_median_after);
	printf("%-34s %14llu %14llu\n", "inode-to-data distance, p90",
	       (unsigned long long)b->dist_first.p90,
	       (unsigned long long)p->dist_p90_after);
	printf("%-34s %14llu %14llu\n", "inode-to-data distance, max",
	       (unsigned long long)b->dist_first.max,
	       (unsigned long long)p->dist_max_after);
	rbfmt_rows(&p->rb_now, &p->rb_after, p->order);
	printf("\n%4s %12s %12s %12s %8s %12s\n", "AG", "free-blocks",
	       "longest-now", "longest-after", "after%", "moved-blocks");
	for (a = 0; a < c->m->agcount; a++) {
		const struct plan_ag *pa = plan_ag(p, a);

		if (c->shrink && a >= p->shrink.agcount) {
			printf("%4u %12u %12u %12s %8s %12s\n", a,
			       pa->free_before, pa->longest_before, "gone",
			       "", "all");
			continue;
		}
		printf("%4u %12u %12u %12u %7.1f%% %12llu\n", a,
		       pa->free_before, pa->longest_before,
		       pa->longest_after,
		       pct(pa->longest_after, pa->free_after),
		       (unsigned long long)pa->moved_blocks);
	}
	if (p->nnote) {
		printf("\nnot contiguous after the run (%zu files):\n",
		       p->nnote);
		for (i = 0; i < p->nnote; i++) {
			printf("  ");
			cmd_put_escaped(stdout, c->note_paths && c->note_paths[i] ?
					c->note_paths[i] : "?");
			printf(": %u extents: %s\n", p->note[i].extents,
			       p->note[i].why);
		}
	}
	if (p->limited || c->lim.max_rate > 0) {
		printf("\n");
		planlim_text(p, &c->lim, c->inway_paths, (uint32_t)bs);
	}
	if (c->refusal) {
		printf("\nrun would refuse: ");
		cmd_put_escaped(stdout, c->refusal);
		printf("\n");
	}
	printf("\n");
	cmd_verdict_text(&c->v);
}

static void print_json(const struct pctx *c)
{
	const struct plan *p = &c->p;
	const struct report *b = &c->before;
	struct json j;
	uint32_t a;
	size_t i;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_u64(&j, "schema_version", 1);
	json_str(&j, "image", c->image);
	json_str(&j, "order", walk_order_name(p->order));
	json_u64(&j, "moved_blocks", p->moved_blocks);
	json_u64(&j, "copied_blocks", p->copied_blocks);
	json_u64(&j, "moves", p->nmv);
	json_u64(&j, "forks_rewritten", p->npf);
	json_u64(&j, "undo_bytes_estimate", p->undo_estimate);
	if (c->shrink)
		shrinkfmt_json(&j, c->fs, p, c->shrink_min, c->tries, c->floor);
	{
		size_t na = 0;

		for (i = 0; i < p->nich; i++)
			na += p->ich[i].alloc;
		json_u64(&j, "inodes_renumbered", p->nino);
		json_u64(&j, "inode_chunks_allocated", na);
		json_u64(&j, "inode_chunks_freed", p->nich - na);
	}
	json_obj_begin(&j, "now");
	json_u64(&j, "extents", p->extents_before);
	json_f2(&j, "frag_factor_pct", frag_factor(b->frag_actual, b->frag_ideal));
	json_u64(&j, "files_multi_extent", b->files_multi);
	json_u64(&j, "distance_median", b->dist_first.median);
	json_u64(&j, "distance_p90", b->dist_first.p90);
	json_u64(&j, "distance_max", b->dist_first.max);
	rbfmt_json(&j, "readback", &p->rb_now, p->order);
	json_obj_end(&j);
	json_obj_begin(&j, "after");
	json_u64(&j, "extents", p->extents_after);
	json_f2(&j, "frag_factor_pct", frag_factor(p->frag_actual_after,
					      p->frag_ideal_after));
	json_f2(&j, "frag_factor_pct_others", frag_factor(p->frag_actual_rest,
						     p->frag_ideal_rest));
	json_u64(&j, "files_multi_extent", p->files_multi_after);
	json_u64(&j, "distance_median", p->dist_median_after);
	json_u64(&j, "distance_p90", p->dist_p90_after);
	json_u64(&j, "distance_max", p->dist_max_after);
	rbfmt_json(&j, "readback", &p->rb_after, p->order);
	json_obj_end(&j);
	json_arr_begin(&j, "ags");
	for (a = 0; a < c->m->agcount; a++) {
		const struct plan_ag *pa = plan_ag(p, a);

		json_obj_begin(&j, NULL);
		json_u64(&j, "ag", a);
		if (c->shrink)
			json_bool(&j, "gone", a >= p->shrink.agcount);
		json_u64(&j, "free_blocks", pa->free_before);
		json_u64(&j, "longest_free_now", pa->longest_before);
		json_u64(&j, "longest_free_after", pa->longest_after);
		json_f2(&j, "longest_free_after_pct",
			pct(pa->longest_after, pa->free_after));
		json_u64(&j, "moved_blocks", pa->moved_blocks);
		if (pa->newino != ~0u)	/* the AGI newino the run sets */
			json_u64(&j, "newino", pa->newino);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "not_contiguous");
	for (i = 0; i < p->nnote; i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "path", c->note_paths ? c->note_paths[i] : NULL);
		json_u64(&j, "ino", p->note[i].ino);
		json_u64(&j, "extents", p->note[i].extents);
		json_str(&j, "why", p->note[i].why);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	planlim_json(&j, p, &c->lim, c->inway_paths, c->fs->geo.blocksize);
	budget_json(&j, p, c->fs->geo.blocksize);
	cmd_verdict_json(&j, &c->v);
	json_str(&j, "refusal", c->refusal);
	json_obj_end(&j);
	json_end(&j);
}

struct plan_args {
	bool json;
	bool no_probe;
	const char *html;
	uint32_t top;
	struct plan_opts po;
	struct cmd_limits lim;
	struct cmd_scan sc;
	struct shrinkfmt_size shrink;	/* --shrink (bytes 0, !min: none) */
};

static int plan(struct cmd_call *cc)
{
	struct plan_args *a = cc->args;
	struct scan_opts so = { 0 };
	struct plan_opts po = a->po;
	struct pctx c;
	struct err e = { 0 };
	const char *html = a->html;
	int ret, status = EXIT_OK;
	size_t i;

	memset(&c, 0, sizeof(c));
	c.shrink = a->shrink.bytes || a->shrink.min;
	c.shrink_min = a->shrink.min;
	if (c.shrink && (cmd_limits_any(&a->lim) || po.order == WALK_INODE ||
			 po.max_write))
		return cmd_usagef(cc, "--shrink lays out the whole filesystem "
				  "in a walk order and moves all that lies past "
				  "its new end: not with --order inode, limits or "
				  "--max-write");
	c.image = cc->ops[0];
	c.lim = a->lim;		/* the limits are ours now (c.lim freed) */
	memset(&a->lim, 0, sizeof(a->lim));
	if (cmd_open_ro(c.image, FS_PART(a->sc.partition), &c.fs, &e)) {
		status = cmd_fail(cc, &e);
		goto out;
	}
	a->sc.hooks = cc->hooks;
	cmd_scan_setup(&a->sc, c.fs);
	so.threads = a->sc.threads;
	if (refuse_write(c.fs, &c.refuse_err))
		c.refusal = c.refuse_err.msg;
	so.dirs = true;
	status = cmd_limits_setup(&c.lim, c.fs, cc);
	if (status)
		goto out;
	po.lim = &c.lim.pl;
	if (scan_fs(c.fs, &so, &c.m, &e)) {
		status = cmd_fail(cc, &e);
		goto out;
	}
	/* the HTML lists the most fragmented files: rank them too */
	if (report_build(c.m, -1, html ? a->top : 0, &c.before, &e) ||
	    (html && report_paths(c.m, &c.before, &e))) {
		status = cmd_fail(cc, &e);
		goto out;
	}
	if (c.shrink) {
		c.floor = plan_shrink_floor(c.m);
		po.shrink_to = shrinkfmt_blocks(c.fs, a->shrink.bytes);
		if (!c.shrink_min && !po.shrink_to) {
			status = cmd_usagef(cc, "--shrink %llu: less than one "
					    "block (%u bytes)",
					    (unsigned long long)a->shrink.bytes,
					    c.fs->geo.blocksize);
			goto out;
		}
		ret = c.shrink_min ?
		      plan_shrink_min(c.m, &po, &c.p, &c.tries, &e) :
		      plan_build(c.m, &po, &c.p, &e);
		/* a shrink that cannot be: the one line run would say */
		if (ret == -EINVAL || ret == -ENOSPC || ret == -EPERM) {
			cmd_fail(cc, &e);
			status = EXIT_REFUSED;
			goto out;
		}
	} else {
		ret = plan_build(c.m, &po, &c.p, &e);
	}
	if (ret) {
		status = cmd_fail(cc, &e);
		goto out;
	}
	if (c.p.nnote) {
		uint64_t *inos = malloc(c.p.nnote * sizeof(*inos));

		c.note_paths = calloc(c.p.nnote, sizeof(*c.note_paths));
		if (inos && c.note_paths) {
			for (i = 0; i < c.p.nnote; i++)
				inos[i] = c.p.note[i].ino;
			if (model_paths(c.m, inos, c.p.nnote, c.note_paths, &e))
				err_clear(&e);
		}
		free(inos);
	}
	c.inway_paths = planlim_paths(&c.p);
	if (cmd_verdict(c.fs, &c.p, !a->no_probe, c.lim.max_rate, c.refusal,
			&c.v, &e)) {
		status = cmd_fail(cc, &e);
		goto out;
	}
	if (html) {
		struct html_input hi = { .command = "plan",
					 .image = c.image, .fs = c.fs,
					 .m = c.m, .r = &c.before, .p = &c.p,
					 .order = c.p.order, .v = &c.v,
					 .verdict_key = "plan.verdict",
					 .note_paths = c.note_paths,
					 .refusal = c.refusal };

		if (html_write(html, &hi, &e)) {
			status = cmd_fail(cc, &e);
			goto out;
		}
		if (strcmp(html, "-") == 0)
			goto out;	/* the HTML took standard output */
		cmd_error("HTML plan written to %s", html);
	}
	if (a->json) {
		print_json(&c);
		cc->json_done = true;
	} else {
		print_text(&c);
	}
out:
	for (i = 0; c.note_paths && i < c.p.nnote; i++)
		free(c.note_paths[i]);
	free(c.note_paths);
	planlim_free_paths(&c.p, c.inway_paths);
	cmd_limits_free(&c.lim);
	plan_free(&c.p);
	report_free(&c.before);
	model_free(c.m);
	fs_close(c.fs);
	return status;
}

static void release(void *args)
{
	cmd_limits_free(&((struct plan_args *)args)->lim);
}

#define P struct plan_args
static const struct opt opts[] = {
	CMD_JSON_OPT(P, json, "print one JSON document instead of text"),
	{ .name = "html", .kind = OPT_STR, .arg = "FILE", OPT_AT(P, html),
	  .help = "also write the report and the plan as one HTML file "
		  "('-': to standard output instead)" },
	{ .name = "top", .kind = OPT_UINT, .arg = "N", .min = 0,
	  .max = 100000, OPT_AT(P, top),
	  .help = "how many of the most fragmented files the HTML names",
	  .dflt = "10" },
	CMD_SCAN_OPTS(P, sc),
	CMD_PLAN_OPTS(P, po),
	CMD_LIMIT_OPTS(P, lim),
	{ .name = "max-write", .kind = OPT_CALL, .arg = "SIZE",
	  .call = cmd_size_opt, OPT_AT(P, po.max_write),
	  .help = "copy at most SIZE bytes (K, M, G, T suffixes): the moves "
		  "that gain most per byte first", .dflt = "no limit" },
	CMD_NO_PROBE_OPT(P, no_probe),
	{ .name = "shrink", .kind = OPT_CALL, .arg = "SIZE",
	  .call = shrinkfmt_shrink_opt, OPT_AT(P, shrink),
	  .help = "plan a shrink to SIZE (bytes, or with K, M, G or T), or "
		  "min: the smallest size that fits" },
	OPT_END,
};
#undef P

static const struct plan_args defaults = {
	.top = 10, .po = { .order = WALK_READDIR, .renumber = PR_AUTO },
};

const struct cmd cmd_plan = {
	.name = "plan", .fn = plan,
	.summary = "what a relocation run would move, and the figures "
		   "after it",
	.operands = "IMAGE", .min_ops = 1, .max_ops = 1, .opts = opts,
	.args_size = sizeof(struct plan_args), .defaults = &defaults,
	.release = release,
};
