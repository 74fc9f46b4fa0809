/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The top of the page: the verdict box (is a run worth it and why, what
 * each reader the read-back model knows gains, what the run writes, its
 * undo file, how long it takes), then the figures before and after in
 * human units; and, after the maps, why the plan's inode chunks sit where
 * they do.  Each figure carries its JSON name and exact value
 * (data-key, data-value) beside the human text, for tests.
 */
#include "html/priv.h"

#include <string.h>

/* How a figure is shown and keyed. */
enum unit {
	U_SECS,		/* seconds; keyed as milliseconds, two decimals */
	U_COUNT,	/* a count */
	U_BYTES,	/* bytes */
	U_BLOCKS,	/* blocks, shown as bytes; keyed as blocks */
	U_PCT,		/* a percentage, two decimals */
};

struct fig {
	const char *label;
	enum unit unit;
	double now, after;
	const char *key_now, *key_after;	/* NULL: not keyed */
	bool more_good;		/* a run wants it larger */
};

static const char *human(const struct html_input *in, enum unit u, double v,
			 char *buf, size_t len)
{
	switch (u) {
	case U_SECS:
		return html_secs(v, buf, len);
	case U_COUNT:
		return html_count((uint64_t)v, buf, len);
	case U_BYTES:
		return html_bytes((uint64_t)v, buf, len);
	case U_BLOCKS:
		return html_bytes((uint64_t)v * in->fs->geo.blocksize, buf,
				  len);
	case U_PCT:
		snprintf(buf, len, "%.1f%%", v);
		return buf;
	}
	return "";
}

static void fig_set(struct fig *f, const char *label, enum unit u,
		    double now, double after, const char *key_now,
		    const char *key_after)
{
	f->label = label;
	f->unit = u;
	f->now = now;
	f->after = after;
	f->key_now = key_now;
	f->key_after = key_after;
	f->more_good = false;
}

/* A cell: the human text, keyed with the exact value as JSON has it. */
static void cell(struct html *h, const struct html_input *in, enum unit u,
		 double v, const char *key, const char *cls)
{
	char buf[64];

	html_raw(h, "<td");
	if (cls)
		html_raw(h, " class=\"%s\"", cls);
	if (key) {
		html_raw(h, " data-key=\"%s\"", key);
		if (u == U_SECS)
			html_raw(h, " data-value=\"%.2f\"", v * 1e3);
		else if (u == U_PCT)
			html_raw(h, " data-value=\"%.2f\"", v);
		else
			html_raw(h, " data-value=\"%llu\"",
				 (unsigned long long)v);
	}
	html_raw(h, ">%s</td>", human(in, u, v, buf, sizeof(buf)));
}

/* A row: label, now, after and the change (after: with a plan). */
static void fig_row(struct html *h, const struct html_input *in,
		    const struct fig *f, bool after)
{
	char buf[48];
	bool good = false;

	html_raw(h, "<tr><th>");
	html_text(h, f->label);
	html_raw(h, "</th>");
	cell(h, in, f->unit, f->now, f->key_now, NULL);
	if (after) {
		const char *ch;

		if (f->unit == U_PCT) {
			double d = f->now - f->after;

			good = d >= 0.05;
			if (d >= 0.05)
				snprintf(buf, sizeof(buf), "%.1f points less", d);
			else if (d <= -0.05)
				snprintf(buf, sizeof(buf), "%.1f points more", -d);
			else
				snprintf(buf, sizeof(buf), "the same");
			ch = buf;
		} else {
			ch = html_change(f->now, f->after, f->unit == U_COUNT,
					 buf, sizeof(buf), &good);
			if (f->more_good && strcmp(ch, "the same"))
				good = !good;
		}
		cell(h, in, f->unit, f->after, f->key_after, NULL);
		html_raw(h, "<td class=\"%s\">", good ? "good" :
			 strcmp(ch, "the same") ? "bad" : "same");
		html_text(h, ch);
		html_raw(h, "</td>");
	}
	html_raw(h, "</tr>\n");
}

/* The reader a walk order stands for. */
static const char *reader(enum walk_order o)
{
	switch (o) {
	case WALK_READDIR:
		return "reading the whole tree in readdir order (find | xargs "
		       "cat, tar, cp -r)";
	case WALK_NAME:
		return "reading the whole tree in name order (ls -R, rsync, "
		       "tar --sort=name)";
	case WALK_INODE:
		return "reading the whole tree in inode order (bulkstat, "
		       "xfsdump)";
	}
	return "reading the whole tree";
}

static enum walk_order order_of(const struct html_input *in)
{
	return in->p ? in->p->order : in->order;
}

static void key(char *buf, size_t len, const char *base, const char *name)
{
	snprintf(buf, len, "%s.%s", base, name);
}

/* The readers the read-back model knows: now and after a run. */
static void readers(struct html *h, const struct html_input *in)
{
	const struct verdict *v = in->v;
	const char *vk = in->verdict_key ? in->verdict_key : "verdict";
	char k[4][64];
	struct fig f[2];
	size_t i;

	key(k[0], sizeof(k[0]), vk, "hdd_ms_now");
	key(k[1], sizeof(k[1]), vk, "hdd_ms_after");
	key(k[2], sizeof(k[2]), vk, "ssd_requests_now");
	key(k[3], sizeof(k[3]), vk, "ssd_requests_after");
	fig_set(&f[0], "a 7200 rpm disk: modelled seconds", U_SECS,
		v->hdd_now, v->hdd_after, k[0], k[1]);
	fig_set(&f[1], "an SSD: read requests", U_COUNT, (double)v->ssd_now,
		(double)v->ssd_after, k[2], k[3]);
	html_raw(h, "<table class=\"readers grid\">\n<tr><th>");
	html_text(h, reader(order_of(in)));
	html_raw(h, ", on</th><th>now</th><th>after a run</th><th>gain</th>"
		 "</tr>\n");
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		fig_row(h, in, &f[i], true);
	html_raw(h, "</table>\n");
}

/* What the run writes, its undo file, its time. */
static void cost(struct html *h, const struct html_input *in)
{
	const struct verdict *v = in->v;
	const char *vk = in->verdict_key ? in->verdict_key : "verdict";
	char b1[32], b2[32], t[48];

	html_raw(h, "<p class=\"cost\">A run writes <b data-key=\"%s."
		 "write_bytes\" data-value=\"%llu\">%s</b> (the data it "
		 "copies); its undo file needs about <b data-key=\"%s."
		 "undo_bytes_estimate\" data-value=\"%llu\">%s</b>; ", vk,
		 (unsigned long long)v->write_bytes,
		 html_bytes(v->write_bytes, b1, sizeof(b1)), vk,
		 (unsigned long long)v->undo_bytes,
		 html_bytes(v->undo_bytes, b2, sizeof(b2)));
	if (v->rate > 0)
		html_raw(h, "it would take about <b class=\"time\">%s</b> on "
			 "this device (%s %.0f MiB/s).</p>\n",
			 html_secs(v->seconds, t, sizeof(t)),
			 v->rate_from && strcmp(v->rate_from, "probe") == 0 ?
			 "a timed read:" : "--max-rate", v->rate);
	else if (!v->write_bytes)
		html_raw(h, "there is nothing to copy.</p>\n");
	else
		html_raw(h, "its time is not estimated (no timed read of this "
			 "device).</p>\n");
}

void html_verdict(struct html *h, const struct html_input *in)
{
	const struct verdict *v = in->v;

	if (!v) {
		html_raw(h, "<section id=\"verdict\" class=\"none\">\n"
			 "<h2>No verdict</h2>\n<p class=\"why\">");
		html_text(h, in->no_verdict ? in->no_verdict :
			  "no plan was made");
		html_raw(h, "</p>\n</section>\n");
		return;
	}
	html_raw(h, "<section id=\"verdict\" class=\"%s\" data-worth=\"%s\">\n"
		 "<h2>%s</h2>\n<p class=\"why\">",
		 v->worth_running ? "yes" : "no",
		 v->worth_running ? "true" : "false",
		 v->worth_running ? "Worth running" : "Not worth running");
	/* core's phrase, as a sentence */
	if (v->why[0] >= 'a' && v->why[0] <= 'z') {
		html_raw(h, "%c", v->why[0] - 'a' + 'A');
		html_text(h, v->why + 1);
	} else {
		html_text(h, v->why);
	}
	html_raw(h, ".</p>\n");
	if (in->refusal) {
		html_raw(h, "<p class=\"refusal\"><strong>run would refuse:"
			 "</strong> ");
		html_text(h, in->refusal);
		html_raw(h, "</p>\n");
	}
	readers(h, in);
	cost(h, in);
	html_raw(h, "</section>\n");
}

static uint32_t longest(const struct html_input *in, bool after)
{
	uint32_t a, best = 0;

	for (a = 0; a < in->m->agcount; a++) {
		const struct plan_ag *pa = plan_ag(in->p, a);
		uint32_t l = after ? pa->longest_after : pa->longest_before;

		if (l > best)
			best = l;
	}
	return best;
}

void html_story(struct html *h, const struct html_input *in)
{
	const struct report *r = in->r;
	const struct plan *p = in->p;
	const struct rb_fig *a = p ? &p->rb_now : in->rb;
	const struct rb_fig *b = p ? &p->rb_after : NULL;
	/* a plan's figures are the whole filesystem's: report -a's are not */
	bool whole = r->agsel < 0;
	struct fig f[12];
	size_t n = 0, i;

	html_section(h, "story", p ? "Before and after a run" :
		     "The filesystem now");
	if (p && !whole)
		html_raw(h, "<p class=\"note\">The whole filesystem (the maps "
			 "and histograms below: AG %d only).</p>\n", r->agsel);
	if (a) {
		fig_set(&f[n++], "read-back: modelled 7200 rpm disk",
			U_SECS, a->hdd_seconds, b ? b->hdd_seconds : 0,
			p ? "plan.now.readback.hdd_ms" : "readback.hdd_ms",
			"plan.after.readback.hdd_ms");
		fig_set(&f[n++], "read-back: SSD read requests", U_COUNT,
			(double)a->requests, b ? (double)b->requests : 0,
			p ? "plan.now.readback.ssd_requests" :
			"readback.ssd_requests",
			"plan.after.readback.ssd_requests");
		fig_set(&f[n++], "read-back: jumps over 1 MiB", U_COUNT,
			(double)a->far_jumps, b ? (double)b->far_jumps : 0,
			p ? "plan.now.readback.far_jumps" :
			"readback.far_jumps", "plan.after.readback.far_jumps");
		fig_set(&f[n++], "read-back: bytes read", U_BYTES,
			(double)a->bytes, b ? (double)b->bytes : 0,
			p ? "plan.now.readback.bytes" : "readback.bytes",
			"plan.after.readback.bytes");
	}
	if (p)
		fig_set(&f[n++], "extent records (all forks)", U_COUNT,
			(double)p->extents_before, (double)p->extents_after,
			"plan.now.extents", "plan.after.extents");
	if (whole || !p) {
		fig_set(&f[n++], "fragmentation factor (xfs_db frag)",
			U_PCT, html_frag_factor(r->frag_actual, r->frag_ideal),
			p ? html_frag_factor(p->frag_actual_after,
					     p->frag_ideal_after) : 0,
			p ? "plan.now.frag_factor_pct" :
			"fragmentation.factor_pct",
			"plan.after.frag_factor_pct");
		fig_set(&f[n++], "files in more than one extent",
			U_COUNT, (double)r->files_multi,
			p ? (double)p->files_multi_after : 0,
			p ? "plan.now.files_multi_extent" :
			"fragmentation.files_multi_extent",
			"plan.after.files_multi_extent");
		fig_set(&f[n++], "... of the files with data", U_PCT,
			html_pct(r->files_multi, r->files_data),
			p ? html_pct(p->files_multi_after, r->files_data) : 0,
			NULL, NULL);
		fig_set(&f[n++], "inode to its data, median distance",
			U_BLOCKS, (double)r->dist_first.median,
			p ? (double)p->dist_median_after : 0,
			p ? "plan.now.distance_median" :
			"inode_data_distance.to_first_block.median",
			"plan.after.distance_median");
		fig_set(&f[n++], "inode to its data, 90th percentile",
			U_BLOCKS, (double)r->dist_first.p90,
			p ? (double)p->dist_p90_after : 0,
			p ? "plan.now.distance_p90" :
			"inode_data_distance.to_first_block.p90",
			"plan.after.distance_p90");
	}
	if (p) {
		fig_set(&f[n++], "longest free extent", U_BLOCKS,
			(double)longest(in, false), (double)longest(in, true),
			NULL, NULL);
		f[n - 1].more_good = true;
	}
	html_raw(h, "<table class=\"story grid\">\n<tr><th></th><th>now</th>%s"
		 "</tr>\n", p ? "<th>after a run</th><th>change</th>" : "");
	for (i = 0; i < n; i++)
		fig_row(h, in, &f[i], p != NULL);
	html_raw(h, "</table>\n<p class=\"note\">Read-back: ");
	html_text(h, reader(order_of(in)));
	html_raw(h, ", costed by the model of <code>report</code> (a directory "
		 "before its entries, each file's inode then its data).</p>\n");
	html_section_end(h);
}

void html_inode_legend(struct html *h, const struct html_input *in)
{
	const struct plan *p = in->p;
	size_t i, made = 0;

	if (!p)
		return;
	for (i = 0; i < p->nich; i++)
		made += p->ich[i].alloc;
	html_section(h, "inodes", "Why the inode chunks sit where they do");
	html_raw(h, "<p>Now, each inode chunk (64 inodes, yellow on the maps) "
		 "is where it was allocated: the kernel puts a file's inode "
		 "near its directory's when there is room, and spreads new "
		 "directories over the AGs, so a directory's files may sit "
		 "far from their data.</p>\n<p>");
	if (p->nino)
		html_raw(h, "After the run, %zu inodes have new numbers: each "
			 "directory's entries, in the order a reader walks "
			 "them, get new chunks in the data stream right "
			 "before their data, in the AG the directory ends up "
			 "in (%zu chunks made, %zu freed), so a reader finds "
			 "each inode cluster just before the data it points "
			 "to.  The root's chunk and the inodes the superblock "
			 "names stay.  Inode numbers change: NFS clients "
			 "remount, and <code>run --map FILE</code> lists old "
			 "and new numbers for backup catalogues.",
			 p->nino, made, p->nich - made);
	else
		html_raw(h, "After the run, the inode chunks are where they are "
			 "now: this plan keeps every inode number (<code>"
			 "--renumber none</code>, a limited run or a write "
			 "budget, or <code>auto</code> found that new places "
			 "would not shorten the walk).  The data is packed "
			 "front to back around them in walk order, so inodes "
			 "and their data may stay apart.");
	html_raw(h, "</p>\n");
	html_section_end(h);
}
