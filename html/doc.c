/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML report's document: summary figures (keyed by their names in
 * `report --json`, and `plan --json` under "plan."), per-AG block maps
 * (now, and after a plan), histograms, the most fragmented files with
 * their xfs_bmap -v tables, the read-back figures, the per-AG table.
 */
#include "html/html.h"
#include "core/base/outfile.h"
#include "core/fs/bmapfmt.h"
#include "core/fs/getbmap.h"
#include "core/fs/inode.h"
#include "core/model/model_dist.h"
#include "ondisk/geo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double pct(uint64_t a, uint64_t b)
{
	return b ? (double)a * 100.0 / (double)b : 0.0;
}

static double factor(uint64_t actual, uint64_t ideal)
{
	return actual ? (double)(actual - ideal) * 100.0 / (double)actual : 0;
}

static void section(struct html *h, const char *id, const char *title)
{
	html_raw(h, "<section id=\"%s\">\n<h2>", id);
	html_text(h, title);
	html_raw(h, "</h2>\n");
}

static void section_end(struct html *h)
{
	html_raw(h, "</section>\n");
}

static void put_path(struct html *h, const char *path, uint64_t ino)
{
	char buf[48];

	if (path) {
		html_text(h, path);
		return;
	}
	snprintf(buf, sizeof(buf), "(inode %llu)", (unsigned long long)ino);
	html_text(h, buf);
}

static void summary(struct html *h, const struct html_input *in)
{
	const struct report *r = in->r;
	const struct od_geo *g = &in->fs->geo;

	section(h, "summary", "Summary");
	if (r->agsel >= 0)
		html_raw(h, "<p>AG %d only.</p>\n", r->agsel);
	html_raw(h, "<table class=\"figs grid\">\n");
	html_row_u64(h, "block size (bytes)", "geometry.blocksize",
		     g->blocksize);
	html_row_u64(h, "allocation groups", "geometry.agcount", g->agcount);
	html_row_u64(h, "blocks per AG", "geometry.agblocks", g->agblocks);
	html_row_u64(h, "data blocks", "geometry.dblocks", g->dblocks);
	html_row_u64(h, "inode size (bytes)", "geometry.inodesize",
		     g->inodesize);
	html_row_u64(h, "inodes scanned", "scan.inodes", in->m->ninodes);
	html_row_u64(h, "extent records (xfs_db frag actual)",
		     "fragmentation.actual", r->frag_actual);
	html_row_u64(h, "ideal (xfs_db frag)", "fragmentation.ideal",
		     r->frag_ideal);
	html_row_f2(h, "fragmentation factor (xfs_db frag)",
		    "fragmentation.factor_pct",
		    factor(r->frag_actual, r->frag_ideal), "%");
	html_row_u64(h, "regular files", "fragmentation.files", r->files);
	html_row_u64(h, "files with data", "fragmentation.files_with_data",
		     r->files_data);
	html_row_u64(h, "files in more than one extent",
		     "fragmentation.files_multi_extent", r->files_multi);
	html_row_u64(h, "file bytes", "fragmentation.bytes", r->bytes);
	html_row_u64(h, "bytes in files of more than one extent",
		     "fragmentation.bytes_multi_extent", r->bytes_multi);
	html_row_u64(h, "data extents of regular files",
		     "fragmentation.data_extents", r->data_extents);
	html_row_u64(h, "free extents (xfs_db freesp)", "free_space.extents",
		     r->freesp.extents);
	html_row_u64(h, "free blocks (xfs_db freesp)", "free_space.blocks",
		     r->freesp.blocks);
	html_row_u64(h, "files measured for inode-to-data distance",
		     "inode_data_distance.files", r->dist_first.n);
	html_row_u64(h, "inode to first data block, median (blocks)",
		     "inode_data_distance.to_first_block.median",
		     r->dist_first.median);
	html_row_u64(h, "inode to first data block, p90",
		     "inode_data_distance.to_first_block.p90",
		     r->dist_first.p90);
	html_row_u64(h, "inode to first data block, p99",
		     "inode_data_distance.to_first_block.p99",
		     r->dist_first.p99);
	html_row_u64(h, "inode to first data block, max",
		     "inode_data_distance.to_first_block.max",
		     r->dist_first.max);
	html_row_u64(h, "inode to centre of data, median",
		     "inode_data_distance.to_data_centre.median",
		     r->dist_centre.median);
	html_row_u64(h, "first data block in another AG (files)",
		     "inode_data_distance.cross_ag", r->dist_first.cross_ag);
	html_row_f2(h, "first data block in another AG",
		    "inode_data_distance.cross_ag_pct",
		    pct(r->dist_first.cross_ag, r->dist_first.n), "%");
	html_row_u64(h, "directories", "directory_locality.directories",
		     r->dirs);
	html_row_u64(h, "directory entries", "directory_locality.entries",
		     r->dir_children);
	html_row_u64(h, "directories with children in several AGs",
		     "directory_locality.multi_ag", r->dirs_multi_ag);
	html_row_u64(h, "median of the mean child distance (blocks)",
		     "directory_locality.median_mean_distance",
		     r->dir_median_mean);
	html_row_u64(h, "consecutive file pairs", "allocation_order.pairs",
		     r->order_pairs);
	html_row_f2(h, "pairs whose data rises with the inode number",
		    "allocation_order.rising_pct",
		    pct(r->order_rising, r->order_pairs), "%");
	html_raw(h, "</table>\n");
	section_end(h);
}

static void plan_figures(struct html *h, const struct html_input *in)
{
	const struct plan *p = in->p;
	const struct report *b = in->r;
	uint64_t bs = in->fs->geo.blocksize;
	size_t i;

	section(h, "plan", "What a run would do (dry run, nothing written)");
	html_raw(h, "<p>Would move %llu blocks (%.1f MiB) in %zu pieces, "
		 "copying %.1f MiB, and rewrite %zu forks; the undo file would "
		 "hold about %.1f MiB.</p>\n",
		 (unsigned long long)p->moved_blocks,
		 (double)(p->moved_blocks * bs) / 1048576.0, p->nmv,
		 (double)(p->copied_blocks * bs) / 1048576.0, p->npf,
		 (double)p->undo_estimate / 1048576.0);
	html_raw(h, "<table class=\"figs grid\">\n<tr><th></th><th>now</th>"
		 "<th>after</th></tr>\n");
	html_row2_u64(h, "extent records (all forks)", "plan.now.extents",
		      p->extents_before, "plan.after.extents",
		      p->extents_after);
	html_row2_f2(h, "fragmentation factor (xfs_db frag)",
		     "plan.now.frag_factor_pct",
		     factor(b->frag_actual, b->frag_ideal),
		     "plan.after.frag_factor_pct",
		     factor(p->frag_actual_after, p->frag_ideal_after), "%");
	html_row2_u64(h, "files in more than one extent",
		      "plan.now.files_multi_extent", b->files_multi,
		      "plan.after.files_multi_extent", p->files_multi_after);
	html_row2_u64(h, "inode-to-data distance, median",
		      "plan.now.distance_median", b->dist_first.median,
		      "plan.after.distance_median", p->dist_median_after);
	html_row2_u64(h, "inode-to-data distance, p90",
		      "plan.now.distance_p90", b->dist_first.p90,
		      "plan.after.distance_p90", p->dist_p90_after);
	html_row2_u64(h, "inode-to-data distance, max",
		      "plan.now.distance_max", b->dist_first.max,
		      "plan.after.distance_max", p->dist_max_after);
	html_raw(h, "</table>\n<table class=\"figs grid\">\n");
	html_row_u64(h, "blocks moved", "plan.moved_blocks", p->moved_blocks);
	html_row_u64(h, "blocks copied", "plan.copied_blocks",
		     p->copied_blocks);
	html_row_u64(h, "moves", "plan.moves", p->nmv);
	html_row_u64(h, "forks rewritten", "plan.forks_rewritten", p->npf);
	html_row_u64(h, "undo file estimate (bytes)",
		     "plan.undo_bytes_estimate", p->undo_estimate);
	html_raw(h, "</table>\n");
	if (p->nnote) {
		html_raw(h, "<h3>Not contiguous after the run (%zu files)</h3>\n"
			 "<ul class=\"notes\">\n", p->nnote);
		for (i = 0; i < p->nnote; i++) {
			html_raw(h, "<li><code>");
			put_path(h, in->note_paths ? in->note_paths[i] : NULL,
				 p->note[i].ino);
			html_raw(h, "</code>: %u extents: ", p->note[i].extents);
			html_text(h, p->note[i].why);
			html_raw(h, "</li>\n");
		}
		html_raw(h, "</ul>\n");
	}
	if (in->refusal) {
		html_raw(h, "<p class=\"refusal\"><strong>run would refuse:"
			 "</strong> ");
		html_text(h, in->refusal);
		html_raw(h, "</p>\n");
	}
	section_end(h);
}

static bool ag_shown(const struct report *r, uint32_t a)
{
	return r->agsel < 0 || (uint32_t)r->agsel == a;
}

static int maps(struct html *h, const struct html_input *in, struct err *e)
{
	const struct report *r = in->r;
	struct html_map *now = NULL, *after = NULL;
	uint32_t a, n = in->m->agcount, shown = 0;
	uint64_t bpc;
	int ret = 0;

	for (a = 0; a < n; a++)
		shown += ag_shown(r, a);
	bpc = htmlmap_bpc(in->fs->geo.agblocks, (uint64_t)shown *
			  (in->p ? 2 : 1));
	now = calloc(n ? n : 1, sizeof(*now));
	after = in->p ? calloc(n ? n : 1, sizeof(*after)) : NULL;
	if (!now || (in->p && !after) || htmlmap_build(in->m, NULL, bpc, now) ||
	    (in->p && htmlmap_build(in->m, in->p, bpc, after))) {
		ret = err_set(e, -ENOMEM, "HTML block maps: out of memory");
		goto out;
	}
	section(h, "maps", in->p ? "Block maps per AG: now and after the plan"
				 : "Block maps per AG");
	html_map_legend(h);
	for (a = 0; a < n; a++) {
		if (!ag_shown(r, a))
			continue;
		html_raw(h, "<div class=\"agrow\">\n");
		html_map_svg(h, &now[a], "now");
		if (after)
			html_map_svg(h, &after[a], "after");
		html_raw(h, "</div>\n");
	}
	section_end(h);
out:
	htmlmap_free(now, n);
	htmlmap_free(after, n);
	return ret;
}

/* Bucket b of a power-of-two histogram: 0, 1, 2-3, 4-7, ... */
static void pow2_label(unsigned b, char *buf, size_t len)
{
	static const char suf[] = " KMGTPE";
	uint64_t lo = b ? 1ull << (b - 1) : 0;
	unsigned s = 0;

	if (b <= 10) {
		if (b <= 1)
			snprintf(buf, len, "%llu", (unsigned long long)lo);
		else
			snprintf(buf, len, "%llu-%llu", (unsigned long long)lo,
				 (unsigned long long)(2 * lo - 1));
		return;
	}
	while (lo >= 1024 && s + 1 < sizeof(suf) - 1) {
		lo >>= 10;
		s++;
	}
	if (snprintf(buf, len, "%llu%ci-%llu%ci", (unsigned long long)lo,
		     suf[s], (unsigned long long)(2 * lo), suf[s]) >= (int)len)
		buf[len - 1] = '\0';
}

/* A bar's value and tooltip: "LABEL UNIT: VALUE WHAT" plus more. */
static void bar_set(struct html_bar *b, uint64_t v, const char *unit,
		    const char *what, const char *more)
{
	int n;

	b->value = v;
	n = snprintf(b->title, sizeof(b->title), "%s %s: %llu %s%s", b->label,
		     unit, (unsigned long long)v, what, more ? more : "");
	if (n < 0)
		b->title[0] = '\0';
}

/* report.c's labels of the extents-per-file buckets. */
static void ext_label(unsigned b, char *buf, size_t len)
{
	uint64_t lo = b == 0 ? 1 : (1ull << (b - 1)) + 1, hi = 1ull << b;

	if (b + 1 == RPT_EXT_BUCKETS)
		snprintf(buf, len, "%llu+", (unsigned long long)lo);
	else if (lo == hi)
		snprintf(buf, len, "%llu", (unsigned long long)lo);
	else
		snprintf(buf, len, "%llu-%llu", (unsigned long long)lo,
			 (unsigned long long)hi);
}

static void histograms(struct html *h, const struct html_input *in)
{
	const struct report *r = in->r;
	const struct model *m = in->m;
	struct html_bar bars[RPT_MAX_BINS > 66 ? RPT_MAX_BINS : 66];
	uint64_t dist[66] = { 0 };
	char more[40];
	unsigned i, n, last = 0;
	uint32_t a;
	size_t k;

	section(h, "histograms", "Histograms");
	for (i = 0; i < RPT_EXT_BUCKETS; i++) {
		ext_label(i, bars[i].label, sizeof(bars[i].label));
		bar_set(&bars[i], r->ext_hist[i], "extents", "files", NULL);
	}
	html_hist(h, "extents", "Extents per file (regular files with data)",
		  "extents", bars, RPT_EXT_BUCKETS);

	/* the files the report measures: regular, data on this device */
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		if (!ag_shown(r, a))
			continue;
		for (k = 0; k < ag->nino; k++) {
			const struct m_ino *mi = &ag->ino[k];
			uint64_t d;
			unsigned b = 0;

			if (!od_mode_isreg(mi->mode) || !mi->nde ||
			    !model_data_dist(m, ag, mi, &d, NULL))
				continue;
			while (d >> b)
				b++;	/* 0 -> 0, 1 -> 1, 2-3 -> 2, ... */
			dist[b]++;
			if (b > last)
				last = b;
		}
	}
	for (i = 0; i <= last; i++) {
		pow2_label(i, bars[i].label, sizeof(bars[i].label));
		bar_set(&bars[i], dist[i], "blocks", "files", NULL);
	}
	html_hist(h, "distance", "Inode-to-data distance (to the first data "
		  "block)", "blocks", bars, last + 1);

	for (i = 0, n = 0; i < r->freesp.nbins && i < RPT_MAX_BINS; i++)
		if (r->freesp.bin[i].count)
			n = i + 1;
	for (i = 0; i < n; i++) {
		snprintf(bars[i].label, sizeof(bars[i].label), "%u-%u",
			 r->freesp.bin[i].low, r->freesp.bin[i].high);
		snprintf(more, sizeof(more), ", %llu blocks",
			 (unsigned long long)r->freesp.bin[i].blocks);
		bar_set(&bars[i], r->freesp.bin[i].count, "blocks",
			"free extents", more);
	}
	html_hist(h, "freesp", "Free extent sizes (xfs_db freesp)", "blocks",
		  bars, n);
	section_end(h);
}

static void bmap_line(void *priv, const char *line)
{
	struct html *h = priv;

	html_text(h, line);
	html_raw(h, "\n");
}

/* One file's xfs_bmap -v table, at most HTML_BMAP_ROWS rows. */
static void file_bmap(struct html *h, struct fs *fs, const struct rpt_item *it)
{
	struct bmapfmt_opts fo = { .vflag = 1 };
	struct getbmap gb = { 0 };
	struct err e = { 0 };
	struct inode ip;
	size_t n;

	html_raw(h, "<div class=\"file\" data-ino=\"%llu\" data-extents=\"%llu\">"
		 "<h3>", (unsigned long long)it->ino,
		 (unsigned long long)it->value);
	put_path(h, it->path, it->ino);
	html_raw(h, "</h3>\n<p>inode %llu, %llu extents, %llu bytes</p>\n",
		 (unsigned long long)it->ino, (unsigned long long)it->value,
		 (unsigned long long)it->value2);
	if (inode_read(fs, it->ino, &ip, &e) ||
	    getbmap(fs, &ip, 0, HTML_BMAP_ROWS + 1, &gb, &e)) {
		html_raw(h, "<p class=\"error\">");
		html_text(h, e.msg);
		html_raw(h, "</p>\n</div>\n");
		getbmap_free(&gb);
		return;
	}
	n = gb.n > HTML_BMAP_ROWS ? HTML_BMAP_ROWS : gb.n;
	html_raw(h, "<pre class=\"bmap\">");
	bmapfmt(fs, &ip, gb.v, n, &fo, bmap_line, h);
	html_raw(h, "</pre>\n");
	if (gb.n > n)
		html_raw(h, "<p>The first %zu rows; <code>xfsdefrag bmap -v"
			 "</code> prints them all.</p>\n", n);
	html_raw(h, "</div>\n");
	getbmap_free(&gb);
}

static void fragmented(struct html *h, const struct html_input *in)
{
	const struct report *r = in->r;
	unsigned i;

	section(h, "fragmented", "Most fragmented files");
	if (!r->ntop_frag)
		html_raw(h, "<p>No regular file has data.</p>\n");
	for (i = 0; i < r->ntop_frag; i++)
		file_bmap(h, in->fs, &r->top_frag[i]);
	section_end(h);
}

static void fig(struct html_fig *f, const char *label, const char *key,
		const char *unit, double now, const double *after)
{
	snprintf(f->label, sizeof(f->label), "%s", label);
	snprintf(f->key, sizeof(f->key), "%s", key);
	snprintf(f->unit, sizeof(f->unit), "%s", unit);
	f->now = now;
	f->has_after = after != NULL;
	f->after = after ? *after : 0;
	f->integer = strcmp(unit, "ms") != 0 && strcmp(unit, "MiB") != 0;
}

/* The read-back cost model's figures (core/model/readback.h), named as
 * in report --json's "readback" object. */
static size_t html_readback_figs(const struct html_input *in,
				 struct html_fig *figs, size_t max)
{
	const struct rb_fig *a = in->p ? &in->p->rb_now : in->rb;
	const struct rb_fig *b = in->p ? &in->p->rb_after : NULL;
	double v[7], w[7];
	size_t i;
	static const char *const label[7] = {
		"modelled 7200 rpm read time", "SSD read requests",
		"jumps", "far jumps (> 1 MiB)", "inode cluster reads",
		"accesses", "bytes read" };
	static const char *const key[7] = {
		"hdd_ms", "ssd_requests", "jumps", "far_jumps",
		"inode_clusters", "accesses", "" };
	static const char *const unit[7] = {
		"ms", "", "", "", "", "", "MiB" };

	if (!a || max < 7)
		return 0;
	v[0] = a->hdd_seconds * 1e3;
	v[1] = (double)a->requests;
	v[2] = (double)a->jumps;
	v[3] = (double)a->far_jumps;
	v[4] = (double)a->clusters;
	v[5] = (double)a->accesses;
	v[6] = (double)a->bytes / 1048576.0;
	if (b) {
		w[0] = b->hdd_seconds * 1e3;
		w[1] = (double)b->requests;
		w[2] = (double)b->jumps;
		w[3] = (double)b->far_jumps;
		w[4] = (double)b->clusters;
		w[5] = (double)b->accesses;
		w[6] = (double)b->bytes / 1048576.0;
	}
	for (i = 0; i < 7; i++)
		fig(&figs[i], label[i], key[i], unit[i], v[i], b ? &w[i] : NULL);
	return 7;
}

static void readback(struct html *h, const struct html_input *in)
{
	struct html_fig figs[32];
	size_t i, n = html_readback_figs(in, figs, 32);

	section(h, "readback", "Read-back cost");
	if (!n) {
		html_raw(h, "<p>No read-back figures.</p>\n");
		section_end(h);
		return;
	}
	html_raw(h, "<p>Reading the whole tree back in %s order (the cost "
		 "model of <code>report</code>: a directory before its "
		 "entries, each file's inode then its data).</p>\n",
		 walk_order_name(in->p ? in->p->order : in->order));
	html_raw(h, "<table class=\"figs grid\">\n<tr><th></th><th>now</th>%s"
		 "<th></th></tr>\n", in->p ? "<th>after</th>" : "");
	for (i = 0; i < n; i++) {
		const struct html_fig *f = &figs[i];
		int prec = f->integer ? 0 : 2;

		html_raw(h, "<tr><th>");
		html_text(h, f->label);
		html_raw(h, "</th>");
		/* keyed as in the JSON of report, or of plan (now, after) */
		if (f->key[0])
			html_raw(h, "<td data-key=\"%s%s\">%.*f</td>",
				 in->p ? "plan.now.readback." : "readback.",
				 f->key, prec, f->now);
		else
			html_raw(h, "<td>%.*f</td>", prec, f->now);
		if (in->p && f->key[0])
			html_raw(h, "<td data-key=\"plan.after.readback.%s\">"
				 "%.*f</td>", f->key, prec, f->after);
		else if (in->p)
			html_raw(h, "<td>%.*f</td>", prec, f->after);
		html_raw(h, "<td>");
		html_text(h, figs[i].unit);
		html_raw(h, "</td></tr>\n");
	}
	html_raw(h, "</table>\n");
	section_end(h);
}

static void ag_table(struct html *h, const struct html_input *in)
{
	const struct report *r = in->r;
	uint32_t a;

	section(h, "ags", "Per AG");
	html_raw(h, "<table class=\"grid\">\n<tr><th>AG</th><th>inodes</th>"
		 "<th>free inodes</th><th>chunks</th><th>data blocks</th>"
		 "<th>free blocks</th><th>free extents</th><th>longest free</th>"
		 "<th>median distance</th>%s</tr>\n",
		 in->p ? "<th>longest free after</th><th>blocks moved</th>" : "");
	for (a = 0; a < r->nag; a++) {
		const struct rpt_ag *g = &r->ag[a];

		if (!ag_shown(r, a))
			continue;
		html_raw(h, "<tr><th>%u</th>"
			 "<td data-key=\"ags.%u.inodes_used\">%llu</td>"
			 "<td data-key=\"ags.%u.inodes_free\">%llu</td>"
			 "<td data-key=\"ags.%u.chunks\">%llu</td>"
			 "<td data-key=\"ags.%u.data_blocks\">%llu</td>"
			 "<td data-key=\"ags.%u.free_blocks\">%llu</td>"
			 "<td data-key=\"ags.%u.free_extents\">%llu</td>"
			 "<td data-key=\"ags.%u.longest_free\">%u</td>"
			 "<td data-key=\"ags.%u.median_distance\">%llu</td>",
			 a, a, (unsigned long long)g->inodes_used,
			 a, (unsigned long long)g->inodes_free,
			 a, (unsigned long long)g->chunks,
			 a, (unsigned long long)g->data_blocks,
			 a, (unsigned long long)g->free_blocks,
			 a, (unsigned long long)g->nfree, a, g->longest,
			 a, (unsigned long long)g->median_dist);
		if (in->p) {
			const struct plan_ag *pa = plan_ag(in->p, a);

			html_raw(h, "<td data-key=\"plan.ags.%u.longest_free_after\">"
				 "%u</td><td data-key=\"plan.ags.%u.moved_blocks\">"
				 "%llu</td>", a, pa->longest_after, a,
				 (unsigned long long)pa->moved_blocks);
		}
		html_raw(h, "</tr>\n");
		if (g->damage) {
			html_raw(h, "<tr><td colspan=\"9\" class=\"error\">");
			html_text(h, g->damage);
			html_raw(h, "</td></tr>\n");
		}
	}
	html_raw(h, "</table>\n");
	section_end(h);
}

int html_write(const char *path, const struct html_input *in, struct err *e)
{
	bool to_stdout = strcmp(path, "-") == 0;
	struct html h;
	int ret;

	if (to_stdout) {
		h.f = stdout;
	} else {
		/* never over the image, by any path to it (outfile.h) */
		struct outfile_set keep;
		bool created;
		int fd;

		outfile_init(&keep);
		ret = outfile_keep_image(&keep, in->image, e);
		if (!ret)
			ret = outfile_open(&keep, path, "HTML report", false,
					   &fd, &created, e);
		outfile_release(&keep);
		if (ret)
			return ret;
		h.f = fdopen(fd, "w");
		if (!h.f) {
			close(fd);
			return err_set(e, -ENOMEM, "out of memory");
		}
	}
	html_head(&h, in->p ? "xfsdefrag plan" : "xfsdefrag report",
		  in->image);
	summary(&h, in);
	if (in->p)
		plan_figures(&h, in);
	ret = maps(&h, in, e);
	if (!ret) {
		histograms(&h, in);
		fragmented(&h, in);
		readback(&h, in);
		ag_table(&h, in);
		html_tail(&h);
	}
	if (to_stdout) {
		if (!ret && fflush(stdout) != 0)
			ret = err_set(e, -errno, "writing the HTML report: %s",
				      strerror(errno));
		return ret;
	}
	if (ferror(h.f) && !ret)
		ret = err_set(e, -EIO, "%s: write error", path);
	if (fclose(h.f) != 0 && !ret)
		ret = err_set(e, -errno, "%s: %s", path, strerror(errno));
	return ret;
}
