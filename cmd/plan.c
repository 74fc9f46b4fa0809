/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag plan: a dry run.  Scans, plans the relocation exactly as
 * `run` would, and prints what would move and the figures predicted
 * after it, next to today's.  Writes nothing.
 */
#include "cmd/cmd.h"
#include "cmd/html.h"
#include "cmd/json.h"
#include "cmd/planlim.h"
#include "cmd/rbfmt.h"
#include "cmd/shrinkfmt.h"
#include "core/model/model_paths.h"
#include "core/relocate/plan.h"
#include "core/relocate/plan_shrink.h"
#include "core/relocate/refuse.h"
#include "core/model/frag.h"
#include "core/model/report.h"
#include "core/model/scan.h"

#include <getopt.h>
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
};

static double pct(uint64_t a, uint64_t b)
{
	return b ? (double)a * 100.0 / (double)b : 0.0;
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
	printf("would rewrite %zu forks; the undo file would hold about "
	       "%.1f MiB of original data plus metadata\n", p->npf,
	       (double)p->undo_estimate / 1048576.0);
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
	json_str(&j, "refusal", c->refusal);
	json_obj_end(&j);
	json_end(&j);
}

int cmd_plan(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "html", required_argument, NULL, 'H' },
		{ "top", required_argument, NULL, 'T' },
		{ "shrink", required_argument, NULL, 'S' },
		CMD_PLAN_LONGOPTS,
		CMD_LIMIT_LONGOPTS,
		CMD_SCAN_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct scan_opts so = { 0 };
	struct plan_opts po = { 0 };
	struct cmd_scan sc = { 0 };
	struct cmd_plan cp = { false };
	struct pctx c;
	struct err e = { 0 };
	bool json = false;
	const char *html = NULL;
	long top = 10;
	uint64_t shrink_bytes = 0;
	char *end;
	int opt, ret, status = EXIT_OK;
	size_t i;

	memset(&c, 0, sizeof(c));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+j:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'J': json = true; break;
		case 'H': html = optarg; break;
		case 'S':
			if (shrinkfmt_parse(optarg, &shrink_bytes,
					    &c.shrink_min))
				return cmd_usage("plan");
			c.shrink = true;
			break;
		case 'T':
			top = strtol(optarg, &end, 10);
			if (*end || top < 0 || top > 100000)
				return cmd_usage("plan");
			break;
		case 'h':
			cmd_usage("plan");
			return EXIT_OK;
		default:
			ret = cmd_plan_opt(&cp, &po, opt, optarg);
			if (!ret)
				ret = cmd_limits_opt(&c.lim, opt, optarg);
			if (!ret)
				ret = cmd_scan_opt(&sc, opt, optarg);
			if (ret <= 0)
				return cmd_usage("plan");
		}
	}
	if (argc - optind != 1)
		return cmd_usage("plan");
	cmd_plan_setup(&cp, &po);
	if (c.shrink && (cmd_limits_any(&c.lim) || po.order == WALK_INODE)) {
		cmd_error("--shrink lays out the whole filesystem in a walk "
			  "order: not with --order inode or limits");
		cmd_limits_free(&c.lim);
		return EXIT_USAGE;
	}
	c.image = argv[optind];
	if (cmd_open_ro(c.image, &c.fs, &e))
		return cmd_fail(&e);
	cmd_scan_setup(&sc, c.fs);
	so.threads = sc.threads;
	if (refuse_write(c.fs, &c.refuse_err))
		c.refusal = c.refuse_err.msg;
	so.dirs = true;
	if (cmd_limits_setup(&c.lim, c.fs, &e)) {
		status = cmd_fail(&e);
		goto out;
	}
	po.lim = &c.lim.pl;
	if (scan_fs(c.fs, &so, &c.m, &e)) {
		status = cmd_fail(&e);
		goto out;
	}
	/* the HTML lists the most fragmented files: rank them too */
	if (report_build(c.m, -1, html ? (unsigned)top : 0, &c.before, &e) ||
	    (html && report_paths(c.m, &c.before, &e))) {
		status = cmd_fail(&e);
		goto out;
	}
	if (c.shrink) {
		c.floor = plan_shrink_floor(c.m);
		po.shrink_to = shrinkfmt_blocks(c.fs, shrink_bytes);
		ret = c.shrink_min ?
		      plan_shrink_min(c.m, &po, &c.p, &c.tries, &e) :
		      plan_build(c.m, &po, &c.p, &e);
		/* a shrink that cannot be: the one line run would say */
		if (ret == -EINVAL || ret == -ENOSPC || ret == -EPERM) {
			cmd_fail(&e);
			status = EXIT_REFUSED;
			goto out;
		}
	} else {
		ret = plan_build(c.m, &po, &c.p, &e);
	}
	if (ret) {
		status = cmd_fail(&e);
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
	if (html) {
		struct html_input hi = { .image = c.image, .fs = c.fs,
					 .m = c.m, .r = &c.before, .p = &c.p,
					 .note_paths = c.note_paths,
					 .refusal = c.refusal };

		if (html_write(html, &hi, &e)) {
			status = cmd_fail(&e);
			goto out;
		}
		if (strcmp(html, "-") == 0)
			goto out;	/* the HTML took standard output */
		cmd_error("HTML plan written to %s", html);
	}
	if (json)
		print_json(&c);
	else
		print_text(&c);
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
