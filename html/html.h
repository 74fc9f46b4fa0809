/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML report (report --html, plan --html): one self-contained file,
 * no scripts, no fetches (a Content-Security-Policy says so to the
 * browser), inline CSS and SVG only.  html.c holds the writer and the
 * drawing primitives, html_map.c the per-AG block maps (now, and after a
 * plan), html_doc.c the document.  A front end: it reads the model, the
 * report and the plan, and writes nothing but the HTML file.
 */
#ifndef HTML_HTML_H
#define HTML_HTML_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/model/blkmap.h"
#include "core/model/report.h"
#include "core/relocate/plan.h"

/* The map grid: cells per row; a cell is one class over bpc blocks. */
#define HTML_MAP_COLS		128
#define HTML_MAP_MAXCELLS	4096
#define HTML_MAP_MINCELLS	128
#define HTML_MAP_BUDGET		65536	/* cells over all maps: at most ~1.2 MB of SVG */
/* Rows of xfs_bmap -v shown per fragmented file. */
#define HTML_BMAP_ROWS		256

struct html {
	FILE *f;
};

/* Text, escaped: & < > " ' as entities; control characters, C1
 * controls and invalid UTF-8 as a visible \xNN (a backslash as \\). */
void html_text(struct html *h, const char *s);
/* Markup, written as is: only for literals and numbers we format. */
void html_raw(struct html *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void html_head(struct html *h, const char *title, const char *image);
void html_tail(struct html *h);

/*
 * A figure row: <tr><th>label</th><td data-key="key">value</td>...</tr>.
 * The key names the figure in `report --json` / `plan --json` terms
 * (dotted path), so tests compare the two outputs.
 */
void html_row_u64(struct html *h, const char *label, const char *key,
		  uint64_t v);
void html_row_f2(struct html *h, const char *label, const char *key,
		 double v, const char *unit);
/* now/after pair: keys key_now and key_after. */
void html_row2_u64(struct html *h, const char *label, const char *key_now,
		   uint64_t now, const char *key_after, uint64_t after);
void html_row2_f2(struct html *h, const char *label, const char *key_now,
		  double now, const char *key_after, double after,
		  const char *unit);

/* A bar chart (log scale): n bars with labels and values. */
struct html_bar {
	char label[32];
	uint64_t value;
	char title[96];		/* the tooltip, e.g. "3-4 extents: 17 files" */
};
void html_hist(struct html *h, const char *id, const char *caption,
	       const char *xlabel, const struct html_bar *b, size_t n);

/* One AG's map: the class of each cell, and blocks per class. */
struct html_map {
	uint32_t agno;
	uint32_t ncells;	/* cells inside the AG */
	uint64_t bpc;		/* blocks per cell */
	uint8_t *cls;		/* enum bm_class, ncells of them */
	uint64_t blocks[BC_NCLASS];	/* blocks of each class in the AG */
};

/* Cells per map for nmaps maps of agblocks-block AGs; blocks per cell. */
uint64_t htmlmap_bpc(uint32_t agblocks, uint64_t nmaps);
/*
 * Maps of every AG (maps[agcount]) as the model has it now (p NULL), or
 * as the plan p leaves it.  0 or -ENOMEM.
 */
int htmlmap_build(const struct model *m, const struct plan *p, uint64_t bpc,
		  struct html_map *maps);
void htmlmap_free(struct html_map *maps, uint32_t n);
/* The SVG of one map and its legend; when: "now" or "after". */
void html_map_svg(struct html *h, const struct html_map *m,
		  const char *when);
/* The colour legend of the maps. */
void html_map_legend(struct html *h);

/* One read-back figure (cost model), now and, from a plan, after. */
struct html_fig {
	char label[64];
	char key[48];		/* data-key for tests: its JSON name */
	char unit[16];
	double now, after;
	bool has_after;
	bool integer;		/* a count: printed without decimals */
};

/* What the document shows. */
struct html_input {
	const char *image;
	struct fs *fs;
	const struct model *m;
	const struct report *r;		/* today's figures, top lists, paths */
	const struct plan *p;		/* NULL: a report, not a plan */
	const struct rb_fig *rb;	/* read-back cost now (plan: p->rb_*) */
	enum walk_order order;		/* ... for a reader in this order */
	char *const *note_paths;	/* plan: paths of p->note[] */
	const char *refusal;		/* plan: why run would refuse */
};

/*
 * Write the document to path ("-": standard output).  Refuses to write
 * over the image itself or a device.  0 or -errno with a message.
 */
int html_write(const char *path, const struct html_input *in,
	       struct err *e);

#endif
