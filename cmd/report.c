/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag report: one scan, then what is wrong and where.  The
 * fragmentation and free-space sections print xfs_db's own lines (frag,
 * freesp -s) byte for byte, so scripts written for xfs_db keep working;
 * the rest is ours.  --json gives the same figures in one schema,
 * documented in xfsdefrag(8).
 */
#include "cmd/cmd.h"
#include "html/html.h"
#include "cmd/json.h"
#include "cmd/rbfmt.h"
#include "cmd/verdict.h"
#include "core/base/par.h"
#include "core/model/frag.h"
#include "core/model/report.h"
#include "core/model/scan.h"
#include "core/relocate/plan.h"
#include "core/relocate/refuse.h"

#include <stddef.h>
#include <time.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rctx {
	const char *image;
	struct fs *fs;
	struct model *m;
	struct report r;
	struct rb_fig rb;
	enum walk_order order;
	bool tty;
	bool judged;		/* v holds the verdict */
	struct verdict v;
	bool keep_plan;		/* the HTML shows the plan judged */
	bool planned;		/* p holds it */
	struct plan p;
	const char *refusal;
	struct err refuse_err;
};

static void progress(void *priv, const struct scan_progress *p)
{
	const struct rctx *c = priv;
	uint64_t done = __atomic_load_n(&p->inodes_done, __ATOMIC_RELAXED);

	(void)c;
	fprintf(stderr, "\rscanning: %llu of ~%llu inodes, %u of %u AGs done",
		(unsigned long long)done,
		(unsigned long long)p->inodes_total,
		__atomic_load_n(&p->ags_done, __ATOMIC_RELAXED),
		c->fs->geo.agcount);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
}

/* The time since the last step, to the hooks (the test binary's). */
struct phases {
	const struct cmd_hooks *h;
	struct timespec last;
};

static void phase(struct phases *ph, const char *name)
{
	if (!ph->h->timing)
		return;
	if (name)
		ph->h->timing(ph->h->priv, name, ms_since(&ph->last));
	clock_gettime(CLOCK_MONOTONIC, &ph->last);
}

/*
 * The figures (then the paths of the files they list) and the read-back
 * cost only read the model: they run at once, each on its share of the
 * model's threads (share[i]: the model with threads set so), half each;
 * on two CPUs that is one each, as both on two would mean twice the
 * threads there are CPUs, and the walk and the read-back on threads do
 * more work than on one (copies, records, a replay).  The read-back takes
 * longest, and the paths, which read some directories, fit in beside it.
 */
struct analyse {
	struct rctx *c;
	struct model share[2];
	int agsel;
	unsigned top;
	int ret[2];
	struct err e[2];
	double ms[3];		/* figures, paths, read-back */
};

static void analyse_one(void *priv, unsigned i)
{
	struct analyse *an = priv;
	struct rctx *c = an->c;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (i == 1) {
		an->ret[1] = rbfmt_measure(&an->share[1], c->order, &c->rb,
					   &an->e[1]);
		an->ms[2] = ms_since(&t0);
		return;
	}
	an->ret[0] = report_build(&an->share[0], an->agsel, an->top, &c->r,
				  &an->e[0]);
	an->ms[0] = ms_since(&t0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!an->ret[0])
		an->ret[0] = report_paths(&an->share[0], &c->r, &an->e[0]);
	an->ms[1] = ms_since(&t0);
}

static double pctof(uint64_t part, uint64_t whole)
{
	return whole ? (double)part * 100.0 / (double)whole : 0.0;
}

static void put_path(const char *path, uint64_t ino)
{
	if (path)
		cmd_put_escaped(stdout, path);
	else
		printf("(inode %llu)", (unsigned long long)ino);
}

static const char *bucket_label(unsigned b, char *buf, size_t len)
{
	uint64_t lo = b == 0 ? 1 : (1ull << (b - 1)) + 1, hi = 1ull << b;

	if (b + 1 == RPT_EXT_BUCKETS)
		snprintf(buf, len, "%llu+", (unsigned long long)lo);
	else if (lo == hi)
		snprintf(buf, len, "%llu", (unsigned long long)lo);
	else
		snprintf(buf, len, "%llu-%llu", (unsigned long long)lo,
			 (unsigned long long)hi);
	return buf;
}

/* xfs_db's three frag lines, including its arithmetic quirks. */
static void print_frag_xfsdb(const struct report *r)
{
	double answer = frag_factor(r->frag_actual, r->frag_ideal);

	printf("actual %llu, ideal %llu, fragmentation factor %.2f%%\n",
	       (unsigned long long)r->frag_actual,
	       (unsigned long long)r->frag_ideal, answer);
	printf("Note, this number is largely meaningless.\n");
	answer = (double)r->frag_actual / (double)r->frag_ideal;
	printf("Files on this filesystem average %.2f extents per file\n",
	       answer);
}

static int width(long long v, int min)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%lld", v);

	return n > min ? n : min;
}

/*
 * xfs_db freesp -s, column for column: as xfsprogs 6.1 prints it, or as
 * 6.15 does (libfrog's histogram: columns as wide as their widest value,
 * and the cumulative shares of blocks and extents from each bin up) for
 * a filesystem with the features 6.1 did not know (cmd_layout_615).
 */
static void print_freesp_xfsdb(const struct rpt_freesp *f, bool now)
{
	int fw = 7, tw = 7, ew = 7, bw = 6;
	long long cb = 0, ce = 0;
	uint32_t i;

	if (!now) {
		printf("%7s %7s %7s %7s %6s\n", "from", "to", "extents",
		       "blocks", "pct");
		for (i = 0; i < f->nbins; i++)
			if (f->bin[i].count)
				printf("%7u %7u %7lld %7lld %6.2f\n",
				       f->bin[i].low, f->bin[i].high,
				       (long long)f->bin[i].count,
				       (long long)f->bin[i].blocks,
				       (double)f->bin[i].blocks * 100.0 /
				       (double)f->blocks);
	} else {
		for (i = 0; i < f->nbins; i++) {
			if (!f->bin[i].count)
				continue;
			fw = width(f->bin[i].low, fw);
			tw = width(f->bin[i].high, tw);
			ew = width((long long)f->bin[i].count, ew);
			bw = width((long long)f->bin[i].blocks, bw);
			cb += (long long)f->bin[i].blocks;
			ce += (long long)f->bin[i].count;
		}
		printf("%*s %*s %*s %*s %6s %6s %6s\n", fw, "from", tw, "to",
		       ew, "extents", bw, "blocks", "pct", "blkcdf", "extcdf");
		for (i = 0; i < f->nbins; i++) {
			if (!f->bin[i].count)
				continue;
			printf("%*u %*u %*lld %*lld %6.2f %6.2f %6.2f\n", fw,
			       f->bin[i].low, tw, f->bin[i].high, ew,
			       (long long)f->bin[i].count, bw,
			       (long long)f->bin[i].blocks,
			       (double)f->bin[i].blocks * 100.0 /
			       (double)f->blocks, (double)cb * 100.0 /
			       (double)f->blocks, (double)ce * 100.0 /
			       (double)f->extents);
			cb -= (long long)f->bin[i].blocks;
			ce -= (long long)f->bin[i].count;
		}
	}
	printf("total free extents %lld\n", (long long)f->extents);
	printf("total free blocks %lld\n", (long long)f->blocks);
	printf("average free extent size %g\n",
	       (double)f->blocks / (double)f->extents);
}

static void print_text(struct rctx *c)
{
	const struct report *r = &c->r;
	const struct fs *fs = c->fs;
	uint64_t bs = fs->geo.blocksize;
	char buf[32];
	unsigned i;
	uint32_t a;

	printf("xfsdefrag report: ");
	cmd_put_escaped(stdout, c->image);
	printf(" (%u AGs of %u blocks of %llu bytes, %llu inodes", fs->geo.agcount,
	       fs->geo.agblocks, (unsigned long long)bs,
	       (unsigned long long)c->m->ninodes);
	if (r->agsel >= 0)
		printf("; AG %d only", r->agsel);
	printf(")\n\n");

	printf("== Fragmentation (xfs_db frag)\n");
	print_frag_xfsdb(r);
	printf("regular files: %llu, %llu with data; %llu (%.1f%%) in more "
	       "than one extent, holding %.1f%% of file bytes\n",
	       (unsigned long long)r->files,
	       (unsigned long long)r->files_data,
	       (unsigned long long)r->files_multi,
	       pctof(r->files_multi, r->files_data),
	       pctof(r->bytes_multi, r->bytes));
	printf("extents per file:");
	for (i = 0; i < RPT_EXT_BUCKETS; i++)
		if (r->ext_hist[i])
			printf("  %s: %llu", bucket_label(i, buf, sizeof(buf)),
			       (unsigned long long)r->ext_hist[i]);
	printf("\n");
	if (r->ntop_frag) {
		printf("most fragmented files:\n%10s %14s  %s\n", "extents",
		       "bytes", "path");
		for (i = 0; i < r->ntop_frag; i++) {
			printf("%10llu %14llu  ",
			       (unsigned long long)r->top_frag[i].value,
			       (unsigned long long)r->top_frag[i].value2);
			put_path(r->top_frag[i].path, r->top_frag[i].ino);
			printf("\n");
		}
	}

	printf("\n== Free space (xfs_db freesp -s)\n");
	print_freesp_xfsdb(&r->freesp, cmd_layout_615(&fs->sb));

	printf("\n== Inode-to-data distance (blocks, files with data)\n");
	printf("to first data block: median %llu, p90 %llu, p99 %llu, max %llu "
	       "(%llu files)\n", (unsigned long long)r->dist_first.median,
	       (unsigned long long)r->dist_first.p90,
	       (unsigned long long)r->dist_first.p99,
	       (unsigned long long)r->dist_first.max,
	       (unsigned long long)r->dist_first.n);
	printf("to centre of data:   median %llu, p90 %llu, p99 %llu, max %llu\n",
	       (unsigned long long)r->dist_centre.median,
	       (unsigned long long)r->dist_centre.p90,
	       (unsigned long long)r->dist_centre.p99,
	       (unsigned long long)r->dist_centre.max);
	printf("first data block in another AG than the inode: %llu files "
	       "(%.1f%%)\n", (unsigned long long)r->dist_first.cross_ag,
	       pctof(r->dist_first.cross_ag, r->dist_first.n));
	if (r->ntop_dist) {
		printf("farthest files:\n%10s %7s  %s\n", "blocks", "data-ag",
		       "path");
		for (i = 0; i < r->ntop_dist; i++) {
			printf("%10llu %7llu  ",
			       (unsigned long long)r->top_dist[i].value,
			       (unsigned long long)r->top_dist[i].value2);
			put_path(r->top_dist[i].path, r->top_dist[i].ino);
			printf("\n");
		}
	}

	printf("\n== Directory locality\n");
	printf("directories: %llu with %llu entries; %llu (%.1f%%) have "
	       "children in more than one AG; median of the mean child "
	       "distance: %llu blocks\n", (unsigned long long)r->dirs,
	       (unsigned long long)r->dir_children,
	       (unsigned long long)r->dirs_multi_ag,
	       pctof(r->dirs_multi_ag, r->dirs),
	       (unsigned long long)r->dir_median_mean);
	if (r->ntop_dirs) {
		printf("most scattered directories:\n%5s %10s  %s\n", "AGs",
		       "mean-dist", "path");
		for (i = 0; i < r->ntop_dirs; i++) {
			printf("%5llu %10llu  ",
			       (unsigned long long)r->top_dirs[i].value,
			       (unsigned long long)r->top_dirs[i].value2);
			put_path(r->top_dirs[i].path, r->top_dirs[i].ino);
			printf("\n");
		}
	}

	printf("\n== Allocation order (first data block rising with inode "
	       "number)\n");
	printf("%.1f%% of %llu consecutive file pairs rise front to back\n",
	       pctof(r->order_rising, r->order_pairs),
	       (unsigned long long)r->order_pairs);

	rbfmt_section(&c->rb, c->order);

	printf("\n== Per AG\n");
	printf("%4s %9s %9s %7s %15s %11s %11s %9s %6s %9s %6s\n", "AG",
	       "inodes", "ifree", "chunks", "chunk-blocks", "data-blks",
	       "free-blks", "longest", "lng%", "med-dist", "rise%");
	for (a = 0; a < r->nag; a++) {
		const struct rpt_ag *g = &r->ag[a];
		char span[32];

		if (r->agsel >= 0 && a != (uint32_t)r->agsel)
			continue;
		snprintf(span, sizeof(span), "%u-%u", g->chunk_lo, g->chunk_hi);
		printf("%4u %9llu %9llu %7llu %15s %11llu %11llu %9u %6.1f "
		       "%9llu %6.1f\n", g->agno,
		       (unsigned long long)g->inodes_used,
		       (unsigned long long)g->inodes_free,
		       (unsigned long long)g->chunks, g->chunks ? span : "-",
		       (unsigned long long)g->data_blocks,
		       (unsigned long long)g->free_blocks, g->longest,
		       pctof(g->longest, g->free_blocks),
		       (unsigned long long)g->median_dist,
		       pctof(g->order_rising, g->order_pairs));
	}
	if (c->judged) {
		printf("\n");
		cmd_verdict_text(&c->v);
	}
	if (r->damaged_ags) {
		printf("\n== Damage\n");
		for (a = 0; a < r->nag; a++) {
			if (!r->ag[a].damage)
				continue;
			printf("AG %u: %u item(s) skipped; first: ", a,
			       r->ag[a].ndamaged);
			cmd_put_escaped(stdout, r->ag[a].damage);
			printf("\n");
		}
	}
}

static void json_items(struct json *j, const char *key,
		       const struct rpt_item *it, unsigned n, const char *k1,
		       const char *k2)
{
	unsigned i;

	json_arr_begin(j, key);
	for (i = 0; i < n; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "path", it[i].path);
		json_u64(j, "ino", it[i].ino);
		json_u64(j, k1, it[i].value);
		json_u64(j, k2, it[i].value2);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_dist(struct json *j, const char *key,
		      const struct rpt_dist *d)
{
	json_obj_begin(j, key);
	json_u64(j, "median", d->median);
	json_u64(j, "p90", d->p90);
	json_u64(j, "p99", d->p99);
	json_u64(j, "max", d->max);
	json_obj_end(j);
}

static void print_json(struct rctx *c)
{
	const struct report *r = &c->r;
	const struct fs *fs = c->fs;
	struct json j;
	char buf[32];
	unsigned i;
	uint32_t a;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_u64(&j, "schema_version", 1);
	json_str(&j, "image", c->image);
	if (r->agsel >= 0)
		json_u64(&j, "ag", (uint64_t)r->agsel);
	else
		json_null(&j, "ag");
	json_obj_begin(&j, "geometry");
	json_u64(&j, "blocksize", fs->geo.blocksize);
	json_u64(&j, "agcount", fs->geo.agcount);
	json_u64(&j, "agblocks", fs->geo.agblocks);
	json_u64(&j, "dblocks", fs->geo.dblocks);
	json_u64(&j, "inodesize", fs->geo.inodesize);
	json_obj_end(&j);
	json_obj_begin(&j, "scan");
	json_u64(&j, "inodes", c->m->ninodes);
	json_u64(&j, "threads", c->m->threads);
	json_f2(&j, "seconds", (double)c->m->scan_ns / 1e9);
	json_obj_end(&j);

	json_obj_begin(&j, "fragmentation");
	json_u64(&j, "actual", r->frag_actual);
	json_u64(&j, "ideal", r->frag_ideal);
	json_f2(&j, "factor_pct", frag_factor(r->frag_actual, r->frag_ideal));
	json_u64(&j, "files", r->files);
	json_u64(&j, "files_with_data", r->files_data);
	json_u64(&j, "files_multi_extent", r->files_multi);
	json_u64(&j, "bytes", r->bytes);
	json_u64(&j, "bytes_multi_extent", r->bytes_multi);
	json_u64(&j, "data_extents", r->data_extents);
	json_arr_begin(&j, "extents_histogram");
	for (i = 0; i < RPT_EXT_BUCKETS; i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "extents", bucket_label(i, buf, sizeof(buf)));
		json_u64(&j, "files", r->ext_hist[i]);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_items(&j, "worst", r->top_frag, r->ntop_frag, "extents", "bytes");
	json_obj_end(&j);

	json_obj_begin(&j, "free_space");
	json_arr_begin(&j, "histogram");
	for (i = 0; i < r->freesp.nbins; i++) {
		if (!r->freesp.bin[i].count)
			continue;
		json_obj_begin(&j, NULL);
		json_u64(&j, "from", r->freesp.bin[i].low);
		json_u64(&j, "to", r->freesp.bin[i].high);
		json_u64(&j, "extents", r->freesp.bin[i].count);
		json_u64(&j, "blocks", r->freesp.bin[i].blocks);
		json_f2(&j, "pct", pctof(r->freesp.bin[i].blocks,
					 r->freesp.blocks));
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_u64(&j, "extents", r->freesp.extents);
	json_u64(&j, "blocks", r->freesp.blocks);
	json_obj_end(&j);

	json_obj_begin(&j, "inode_data_distance");
	json_u64(&j, "files", r->dist_first.n);
	json_dist(&j, "to_first_block", &r->dist_first);
	json_dist(&j, "to_data_centre", &r->dist_centre);
	json_u64(&j, "cross_ag", r->dist_first.cross_ag);
	json_f2(&j, "cross_ag_pct", pctof(r->dist_first.cross_ag,
					  r->dist_first.n));
	json_items(&j, "worst", r->top_dist, r->ntop_dist, "blocks",
		   "data_ag");
	json_obj_end(&j);

	json_obj_begin(&j, "directory_locality");
	json_u64(&j, "directories", r->dirs);
	json_u64(&j, "entries", r->dir_children);
	json_u64(&j, "multi_ag", r->dirs_multi_ag);
	json_u64(&j, "median_mean_distance", r->dir_median_mean);
	json_items(&j, "worst", r->top_dirs, r->ntop_dirs, "ags",
		   "mean_distance");
	json_obj_end(&j);

	json_obj_begin(&j, "allocation_order");
	json_u64(&j, "pairs", r->order_pairs);
	json_u64(&j, "rising", r->order_rising);
	json_f2(&j, "rising_pct", pctof(r->order_rising, r->order_pairs));
	json_obj_end(&j);

	rbfmt_json(&j, "readback", &c->rb, c->order);

	json_arr_begin(&j, "ags");
	for (a = 0; a < r->nag; a++) {
		const struct rpt_ag *g = &r->ag[a];

		if (r->agsel >= 0 && a != (uint32_t)r->agsel)
			continue;
		json_obj_begin(&j, NULL);
		json_u64(&j, "ag", g->agno);
		json_u64(&j, "blocks", g->blocks);
		json_u64(&j, "inodes_used", g->inodes_used);
		json_u64(&j, "inodes_free", g->inodes_free);
		json_u64(&j, "chunks", g->chunks);
		json_u64(&j, "chunk_first_block", g->chunk_lo);
		json_u64(&j, "chunk_end_block", g->chunk_hi);
		json_u64(&j, "data_blocks", g->data_blocks);
		json_u64(&j, "free_blocks", g->free_blocks);
		json_u64(&j, "free_extents", g->nfree);
		json_u64(&j, "longest_free", g->longest);
		json_f2(&j, "longest_free_pct", pctof(g->longest,
						      g->free_blocks));
		json_u64(&j, "median_distance", g->median_dist);
		json_u64(&j, "order_pairs", g->order_pairs);
		json_f2(&j, "order_rising_pct", pctof(g->order_rising,
						      g->order_pairs));
		json_str(&j, "damage", g->damage);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_u64(&j, "damaged_ags", r->damaged_ags);
	if (c->judged)
		cmd_verdict_json(&j, &c->v);
	else
		json_null(&j, "verdict");
	json_obj_end(&j);
	json_end(&j);
}

/*
 * The verdict: is a run worth it?  The plan run would make (its default
 * options, in the walk order asked for), judged (cmd/verdict.h).
 */
static int judge_fs(struct rctx *c, bool probe, struct err *e)
{
	struct plan_opts po = { 0 };
	int ret;

	po.order = c->order;
	po.renumber = PR_AUTO;
	ret = plan_build(c->m, &po, &c->p, e);
	if (ret)
		return ret;
	if (refuse_write(c->fs, &c->refuse_err))
		c->refusal = c->refuse_err.msg;
	ret = cmd_verdict(c->fs, &c->p, probe, 0, c->refusal, &c->v, e);
	c->judged = !ret;
	if (ret || !c->keep_plan)
		plan_free(&c->p);
	else
		c->planned = true;
	return ret;
}

struct report_args {
	bool json;
	const char *html;
	uint32_t ag;		/* UINT32_MAX: every AG */
	uint32_t top;
	int order;		/* enum walk_order */
	bool no_verdict, no_probe;
	struct cmd_scan sc;
};

static int report(struct cmd_call *cc)
{
	struct report_args *a = cc->args;
	const struct cmd_hooks *h = cc->hooks;
	struct scan_opts so = { 0 };
	struct rctx c = { 0 };
	struct err e = { 0 };
	struct phases ph = { .h = h };
	int ret, status = EXIT_OK;

	c.image = cc->ops[0];
	c.order = (enum walk_order)a->order;
	if (cmd_open_ro(c.image, FS_PART(a->sc.partition), &c.fs, &e))
		return cmd_fail(cc, &e);
	a->sc.hooks = h;
	cmd_scan_setup(&a->sc, c.fs);
	if (a->ag != UINT32_MAX && a->ag >= c.fs->geo.agcount) {
		status = cmd_usagef(cc, "-a: '%u' is not an AG of %s (it has "
				    "AGs 0 to %u)", a->ag, c.image,
				    c.fs->geo.agcount - 1);
		fs_close(c.fs);
		return status;
	}
	c.tty = isatty(STDERR_FILENO) == 1;
	so.threads = a->sc.threads;
	so.dirs = true;
	if (c.tty) {
		so.progress = progress;
		so.priv = &c;
	}
	phase(&ph, NULL);
	ret = scan_fs(c.fs, &so, &c.m, &e);
	phase(&ph, "scan");
	if (c.tty)
		fprintf(stderr, "\r\033[K");
	if (ret && !c.m) {
		status = cmd_fail(cc, &e);
		goto out;
	}
	if (ret) {
		/* a damaged AG: report what was read, name it, fail at the end */
		cmd_error("%s", e.msg);
		status = EXIT_CORRUPT;
		err_clear(&e);
	}
	{
		struct analyse an;

		memset(&an, 0, sizeof(an));
		an.c = &c;
		an.agsel = a->ag == UINT32_MAX ? -1 : (int)a->ag;
		an.top = a->top;
		an.share[0] = *c.m;
		an.share[1] = *c.m;
		an.share[0].threads = c.m->threads > 1 ? c.m->threads / 2 : 1;
		an.share[1].threads = c.m->threads > 1 ?
				      c.m->threads - c.m->threads / 2 : 1;

		par_for(2, c.m->threads > 1 ? 2 : 1, analyse_one, &an);
		if (an.ret[0] || an.ret[1]) {
			status = cmd_fail(cc, &an.e[an.ret[0] ? 0 : 1]);
			goto out;
		}
		/* at once: figures, then paths, beside the read-back */
		if (h->timing) {
			h->timing(h->priv, "figures", an.ms[0]);
			h->timing(h->priv, "paths", an.ms[1]);
			h->timing(h->priv, "readback", an.ms[2]);
		}
	}
	phase(&ph, "analyse");
	if (!a->no_verdict && !c.r.damaged_ags && status == EXIT_OK) {
		c.keep_plan = a->html != NULL;
		ret = judge_fs(&c, !a->no_probe, &e);
		phase(&ph, "verdict");
		if (ret) {
			status = cmd_fail(cc, &e);
			goto out;
		}
	}
	if (a->html) {
		struct html_input hi = { .command = "report",
					 .image = c.image, .fs = c.fs,
					 .m = c.m, .r = &c.r, .rb = &c.rb,
					 .order = c.order,
					 .p = c.planned ? &c.p : NULL,
					 .v = c.judged ? &c.v : NULL,
					 .verdict_key = "verdict",
					 .refusal = c.refusal };

		if (!c.judged)
			hi.no_verdict = a->no_verdict ? "report --no-verdict: "
				"no run was planned to judge" :
				"the filesystem is damaged: no run was planned "
				"(check says what is wrong)";

		if (html_write(a->html, &hi, &e)) {
			status = cmd_fail(cc, &e);
			goto out;
		}
		phase(&ph, "html");
		if (strcmp(a->html, "-") == 0)
			goto done;	/* the HTML took standard output */
		cmd_error("HTML report written to %s", a->html);
	}
	if (a->json) {
		print_json(&c);
		cc->json_done = true;
	} else {
		print_text(&c);
	}
done:
	if (c.r.damaged_ags)
		status = EXIT_CORRUPT;
	phase(&ph, "print");
out:
	if (c.planned)
		plan_free(&c.p);
	report_free(&c.r);
	model_free(c.m);
	fs_close(c.fs);
	return status;
}

#define R struct report_args
static const struct opt opts[] = {
	CMD_JSON_OPT(R, json, "print one JSON document instead of text"),
	{ .name = "html", .kind = OPT_STR, .arg = "FILE", OPT_AT(R, html),
	  .help = "also write the report as one HTML file ('-': to "
		  "standard output instead)" },
	{ .letter = 'a', .kind = OPT_UINT, .arg = "AGNO", .min = 0,
	  .max = 4294967294.0, OPT_AT(R, ag),
	  .help = "only the files whose inode is in this AG, and its free "
		  "space", .dflt = "every AG" },
	{ .name = "top", .kind = OPT_UINT, .arg = "N", .min = 0,
	  .max = 100000, OPT_AT(R, top),
	  .help = "name the N worst files or directories per list",
	  .dflt = "10" },
	CMD_SCAN_OPTS(R, sc),
	CMD_ORDER_OPT(R, order, "the reader whose read-back cost is "
		      "reported"),
	{ .name = "no-verdict", .kind = OPT_FLAG, OPT_AT(R, no_verdict),
	  .help = "do not plan a run to say whether it is worth it" },
	CMD_NO_PROBE_OPT(R, no_probe),
	OPT_END,
};
#undef R

static const struct report_args defaults = { .ag = UINT32_MAX, .top = 10 };

const struct cmd cmd_report = {
	.name = "report", .fn = report,
	.summary = "fragmentation, free space, inode-to-data distance, "
		   "locality",
	.operands = "IMAGE", .min_ops = 1, .max_ops = 1, .opts = opts,
	.args_size = sizeof(struct report_args), .defaults = &defaults,
};
