/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The raw figures, last on the page: the report's summary (keyed by
 * their names in `report --json`), what the plan does (`plan --json`'s,
 * under "plan."), the read-back model's figures, the most fragmented
 * files with their xfs_bmap -v tables, the per-AG table.
 */
#include "html/priv.h"
#include "core/fs/bmapfmt.h"
#include "core/fs/getbmap.h"
#include "core/fs/inode.h"
#include "core/model/model_paths.h"
#include "ondisk/geo.h"

#include <stdlib.h>
#include <string.h>

/* One read-back figure (cost model), now and, from a plan, after. */
struct html_fig {
	char label[64];
	char key[48];		/* data-key for tests: its JSON name */
	char unit[16];
	double now, after;
	bool has_after;
	bool integer;		/* a count: printed without decimals */
};

static void summary(struct html *h, const struct html_input *in)
{
	const struct report *r = in->r;
	const struct od_geo *g = &in->fs->geo;

	html_section(h, "summary", "Summary");
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
		    html_frag_factor(r->frag_actual, r->frag_ideal), "%");
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
		    html_pct(r->dist_first.cross_ag, r->dist_first.n), "%");
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
		    html_pct(r->order_rising, r->order_pairs), "%");
	html_raw(h, "</table>\n");
	html_section_end(h);
}

/* The paths of the plan's notes (NULL: not known: named by number). */
static char **note_paths(const struct html_input *in)
{
	const struct plan *p = in->p;
	uint64_t *inos = malloc(p->nnote * sizeof(*inos));
	char **paths = calloc(p->nnote, sizeof(*paths));
	struct err e = { 0 };
	size_t i;

	if (inos && paths) {
		for (i = 0; i < p->nnote; i++)
			inos[i] = p->note[i].ino;
		if (!model_paths(in->m, inos, p->nnote, paths, &e)) {
			free(inos);
			return paths;
		}
	}
	free(inos);
	free(paths);
	return NULL;
}

static void plan_figures(struct html *h, const struct html_input *in)
{
	const struct plan *p = in->p;
	const struct report *b = in->r;
	uint64_t bs = in->fs->geo.blocksize;
	size_t i;

	html_section(h, "plan", "What a run would do (dry run, nothing written)");
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
	/* today's figures of report -a are one AG's: not the plan's */
	if (b->agsel < 0) {
		html_row2_f2(h, "fragmentation factor (xfs_db frag)",
			     "plan.now.frag_factor_pct",
			     html_frag_factor(b->frag_actual, b->frag_ideal),
			     "plan.after.frag_factor_pct",
			     html_frag_factor(p->frag_actual_after,
					      p->frag_ideal_after), "%");
		html_row2_u64(h, "files in more than one extent",
			      "plan.now.files_multi_extent", b->files_multi,
			      "plan.after.files_multi_extent",
			      p->files_multi_after);
		html_row2_u64(h, "inode-to-data distance, median",
			      "plan.now.distance_median",
			      b->dist_first.median,
			      "plan.after.distance_median",
			      p->dist_median_after);
		html_row2_u64(h, "inode-to-data distance, p90",
			      "plan.now.distance_p90", b->dist_first.p90,
			      "plan.after.distance_p90", p->dist_p90_after);
		html_row2_u64(h, "inode-to-data distance, max",
			      "plan.now.distance_max", b->dist_first.max,
			      "plan.after.distance_max", p->dist_max_after);
	}
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
		char **paths = in->note_paths ? NULL : note_paths(in);

		html_raw(h, "<h3>Not contiguous after the run (%zu files)</h3>\n"
			 "<ul class=\"notes\">\n", p->nnote);
		for (i = 0; i < p->nnote; i++) {
			html_raw(h, "<li><code>");
			html_path(h, in->note_paths ? in->note_paths[i] :
				  paths ? paths[i] : NULL, p->note[i].ino);
			html_raw(h, "</code>: %u extents: ", p->note[i].extents);
			html_text(h, p->note[i].why);
			html_raw(h, "</li>\n");
		}
		html_raw(h, "</ul>\n");
		for (i = 0; paths && i < p->nnote; i++)
			free(paths[i]);
		free(paths);
	}
	if (in->refusal) {
		html_raw(h, "<p class=\"refusal\"><strong>run would refuse:"
			 "</strong> ");
		html_text(h, in->refusal);
		html_raw(h, "</p>\n");
	}
	html_section_end(h);
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
	html_path(h, it->path, it->ino);
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

	html_section(h, "fragmented", "Most fragmented files");
	if (!r->ntop_frag)
		html_raw(h, "<p>No regular file has data.</p>\n");
	for (i = 0; i < r->ntop_frag; i++)
		file_bmap(h, in->fs, &r->top_frag[i]);
	html_section_end(h);
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
	/* now: the report's own figures, or the plan's */
	const struct rb_fig *a = in->rb ? in->rb :
				 in->p ? &in->p->rb_now : NULL;
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

	html_section(h, "readback", "Read-back cost");
	if (!n) {
		html_raw(h, "<p>No read-back figures.</p>\n");
		html_section_end(h);
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
				 in->rb ? "readback." : "plan.now.readback.",
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
	html_section_end(h);
}

static void ag_table(struct html *h, const struct html_input *in)
{
	const struct report *r = in->r;
	uint32_t a;

	html_section(h, "ags", "Per AG");
	html_raw(h, "<table class=\"grid\">\n<tr><th>AG</th><th>inodes</th>"
		 "<th>free inodes</th><th>chunks</th><th>data blocks</th>"
		 "<th>free blocks</th><th>free extents</th><th>longest free</th>"
		 "<th>median distance</th>%s</tr>\n",
		 in->p ? "<th>longest free after</th><th>blocks moved</th>" : "");
	for (a = 0; a < r->nag; a++) {
		const struct rpt_ag *g = &r->ag[a];

		if (!html_ag_shown(r, a))
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
	html_section_end(h);
}

void html_raw_figures(struct html *h, const struct html_input *in)
{
	html_raw(h, "<section id=\"raw\">\n<h2>Raw figures</h2>\n"
		 "<p class=\"note\">Every figure as the text and JSON "
		 "outputs of <code>%s</code> give it.</p>\n", in->command);
	summary(h, in);
	if (in->p)
		plan_figures(h, in);
	readback(h, in);
	fragmented(h, in);
	ag_table(h, in);
	html_raw(h, "</section>\n");
}
