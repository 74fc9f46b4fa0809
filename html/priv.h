/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the HTML report: the writer and its primitives (write.c), bar
 * charts (chart.c), the block maps (map.c builds them, map_svg.c draws
 * them), the story at the top (story.c), the histograms (hists.c), the
 * raw figures (raw.c) and the document (doc.c).
 */
#ifndef HTML_PRIV_H
#define HTML_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "html/html.h"
#include "core/model/blkmap.h"

/* The map grid: cells per row; a cell is one class over bpc blocks. */
#define HTML_MAP_COLS		128
#define HTML_MAP_MAXCELLS	4096
#define HTML_MAP_MINCELLS	128
#define HTML_MAP_BUDGET		65536	/* cells over all maps */
/* Rows of xfs_bmap -v shown per fragmented file. */
#define HTML_BMAP_ROWS		256

struct html {
	FILE *f;
};

/* ---- write.c ---- */

/* Text, escaped: & < > " ' as entities; control characters, C1
 * controls and invalid UTF-8 as a visible \xNN (a backslash as \\). */
void html_text(struct html *h, const char *s);
/* Markup, written as is: only for literals and numbers we format. */
void html_raw(struct html *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void html_head(struct html *h, const char *title, const char *image);
void html_tail(struct html *h);
void html_section(struct html *h, const char *id, const char *title);
void html_section_end(struct html *h);

/*
 * A figure row: <tr><th>label</th><td data-key="key">value</td>...</tr>.
 * The key names the figure in `report --json` / `plan --json` terms
 * (dotted path, "plan." before the plan's), so tests compare the two.
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

/* Human units, into buf: "26.7 MiB", "3.16 s", "4,134", "83% less". */
const char *html_bytes(uint64_t bytes, char *buf, size_t len);
const char *html_secs(double s, char *buf, size_t len);
const char *html_count(uint64_t n, char *buf, size_t len);
/* The change from now to after: "83% less" ("fewer" when count), "3%
 * more", "the same"; good: whether it went the way a run wants. */
const char *html_change(double now, double after, bool count, char *buf,
			size_t len, bool *good);
double html_pct(uint64_t a, uint64_t b);
/* xfs_db frag's factor: (actual - ideal) / actual, in percent. */
double html_frag_factor(uint64_t actual, uint64_t ideal);
/* Is AG a shown (report -a)? */
bool html_ag_shown(const struct report *r, uint32_t a);
/* A path, or "(inode N)". */
void html_path(struct html *h, const char *path, uint64_t ino);

/* ---- chart.c: a bar chart (log scale) ---- */

struct html_bar {
	char label[32];
	uint64_t value;
	char title[96];		/* the tooltip, e.g. "3-4 extents: 17 files" */
};
/* lmax: log10(1 + the largest value) the heights are scaled to, 0: this
 * chart's own (charts side by side share one to compare). */
void html_hist(struct html *h, const char *id, const char *caption,
	       const char *xlabel, const struct html_bar *b, size_t n,
	       double lmax, bool after);
double html_hist_lmax(const struct html_bar *b, size_t n);

/* ---- map.c: the block maps ---- */

/* What holds blocks of a cell, for its tooltip. */
enum html_hold {
	HH_NONE,	/* nothing known: "other" */
	HH_FREE,	/* free space (bnobt) */
	HH_AGFL,	/* AGFL slots: free list blocks */
	HH_HDR,		/* AG headers: superblock, AGF, AGI, AGFL */
	HH_BTREE,	/* an AG btree's blocks; sub: enum m_meta */
	HH_REBUILT,	/* the run for the AG btrees a run rebuilds */
	HH_LOG,		/* the internal log */
	HH_CHUNK,	/* an inode chunk; id: its first inode */
	HH_DATA,	/* a file's data fork; id: inode, sub: HS_* */
	HH_ATTR,	/* a file's attribute fork; id: inode */
	HH_BMBT,	/* a file's extent tree block; id: inode */
	HH_GONE,	/* past a shrink's new end: not there after it */
};
/* HH_DATA's sub: what the fork holds. */
enum { HS_FILE, HS_DIR, HS_SYMLINK };

struct html_holder {
	uint8_t kind;		/* enum html_hold */
	uint8_t sub;
	uint64_t id;
};

/* One AG's map: the class of each cell, what holds it, blocks per class. */
struct html_map {
	uint32_t agno;
	uint32_t ncells;	/* cells inside the AG */
	uint32_t agblocks;	/* of the AG */
	uint64_t bpc;		/* blocks per cell */
	uint8_t *cls;		/* enum bm_class, ncells of them */
	struct html_holder *hold;	/* of the cell's class, the largest */
	uint32_t *nhold;	/* holders of any class in the cell */
	uint64_t blocks[BC_NCLASS];	/* blocks of each class in the AG */
	uint32_t log_start, log_len;	/* the log in this AG (agbno, blocks) */
};

/* Cells per map for nmaps maps of agblocks-block AGs; blocks per cell. */
uint64_t htmlmap_bpc(uint32_t agblocks, uint64_t nmaps);
/*
 * Maps of the AGs show[a] marks (maps[agcount]; the others left empty)
 * as the model has them now (p NULL), or as the plan p leaves them.
 * 0 or -ENOMEM.
 */
int htmlmap_build(const struct model *m, const struct plan *p, uint64_t bpc,
		  const bool *show, struct html_map *maps);
void htmlmap_free(struct html_map *maps, uint32_t n);

/* ---- map_svg.c ---- */

/* Paths of the files that hold cells, for the tooltips. */
struct html_names {
	uint64_t *ino;		/* sorted */
	char **path;
	size_t n;
};
/* The names of every file that holds a cell of now[0..n) or after[0..n)
 * (NULL: none). */
int html_names_get(const struct model *m, const struct html_map *now,
		   const struct html_map *after, uint32_t n,
		   struct html_names *nm, struct err *e);
void html_names_free(struct html_names *nm);
/* The SVG of one map with its tooltips and legend; when: "now", "after". */
void html_map_svg(struct html *h, const struct html_map *m, const char *when,
		  const struct html_names *nm, uint32_t blocksize);
/* The colour legend of the maps. */
void html_map_legend(struct html *h);

/* ---- the document's parts ---- */

void html_story(struct html *h, const struct html_input *in);
void html_verdict(struct html *h, const struct html_input *in);
int html_histograms(struct html *h, const struct html_input *in,
		    struct err *e);
void html_inode_legend(struct html *h, const struct html_input *in);
void html_raw_figures(struct html *h, const struct html_input *in);

#endif
