/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The interactive browser (ncurses), modelled on ncdu 1.x: each screen
 * exports _draw and _key (and its own set-up), a stack of screen values
 * picks the active one, and all state lives in struct tui.  The screens
 * read the filesystem only through core/ (model, block map, directories,
 * getbmap); nothing here touches disk bytes.
 */
#ifndef TUI_TUI_H
#define TUI_TUI_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "core/model/blkmap.h"
#include "core/fs/inode.h"
#include "core/model/model.h"
#include "core/model/report.h"
#include "core/model/tree.h"

enum tui_screen { TS_BROWSER, TS_FILE, TS_MAP, TS_HELP, TS_WORST };

/* A key: code is a curses KEY_* value, or 0 for the character ch. */
struct tui_key {
	int code;
	wint_t ch;
};

static inline bool tui_key_ch(struct tui_key k, wint_t c)
{
	return k.code == 0 && k.ch == c;
}

/* ---- directory browser (browser.c, browser_sort.c) ---- */

enum br_sort { BS_NAME, BS_TYPE, BS_SIZE, BS_EXTENTS, BS_FILES, BS_DIST,
	       BS_NKEYS };

#define BE_MODEL	0x1	/* inode found in the model */
#define BE_DIST		0x2	/* dist is known (has data on this device) */
#define BE_TOTAL	0x4	/* a directory: size, nexts, files are totals */

struct br_ent {
	uint64_t ino;
	uint64_t size;		/* BE_TOTAL: of every file below */
	uint64_t dist;		/* blocks from the inode to its first data */
	uint64_t nexts;		/* data fork extent records (BE_TOTAL: below) */
	uint64_t files;		/* BE_TOTAL: files below */
	uint32_t name;		/* offset of the name in browser.names */
	uint16_t namelen;
	uint16_t mode;
	uint8_t ftype;		/* directory entry file type */
	uint8_t flags;		/* BE_* */
};

struct browser {
	uint64_t dir, parent;	/* listed directory and its ".." */
	char *path;		/* its path from the root, raw bytes */
	struct br_ent *ent;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
	size_t cur, top;	/* selected row, first row shown */
	enum br_sort sort;
	bool rev;
	bool searching;		/* the "/" prompt is open */
	wchar_t in[128];	/* what is typed at the prompt */
	size_t nin;
	char query[512];	/* the last search, UTF-8 */
};

/* ---- file view (fileview.c) ---- */

struct fileview {
	uint64_t ino;
	char *path;		/* NULL: named by number */
	struct inode ip;
	bool have_ip;
	bool attr;		/* showing the attr fork */
	char **line;		/* xfs_bmap -v lines: header, then rows */
	size_t nline;
	size_t top, left;	/* scrolling */
	char err[512];
};

/* ---- AG map (agmap.c, agmap_view.c) ---- */

#define AGMAP_MAXLEVELS	48

struct agmap {
	uint64_t mark;		/* the selected file's inode, 0: none */
	char *mark_path;
	uint64_t cursor;	/* linear block under the cursor */
	uint64_t origin;	/* linear block of the top-left cell */
	unsigned level;		/* index in the zoom levels */
	bool fit;		/* next draw: frame the marked file */
	bool going;		/* the "g" prompt is open */
	char in[64];
	size_t nin;
	uint8_t *cls;		/* enum bm_class per cell */
	size_t cap;
	int cols, rows;		/* grid of the last layout */
	uint64_t path_ino;	/* readout: path of the last owner named */
	char *path;
};

/* The grid geometry for a screen size (agmap_view.c). */
struct agmap_layout {
	int top, left;		/* first grid row, first cell column */
	int cols, rows;		/* cells */
	int gutter;		/* width of the row labels */
	uint64_t steps[AGMAP_MAXLEVELS];	/* blocks per cell, per level */
	unsigned nlevels;
};

/* ---- the worst offenders (worst.c) ---- */

enum worst_list { WL_FRAG, WL_DIST, WL_DIRS, WL_N };

struct worst {
	enum worst_list list;
	size_t cur[WL_N], top;
	/* the costliest directories, by their own read-back (tree.h) */
	uint64_t *dir;
	char **dir_path;
	size_t ndir;
	bool loaded;
};

/* ---- help (help.c) ---- */

struct help {
	size_t top;
};

/* ---- the whole state (tui.c) ---- */

#define TUI_STACK	64

struct tui {
	struct fs *fs;
	struct model *m;
	struct blkmap *bm;
	const struct report *rpt;	/* with top lists and their paths */
	const struct tree *tree;	/* NULL: no directory totals */
	const char *image;
	bool color, utf8;
	bool quit;
	struct {
		enum tui_screen screen;
		uint64_t ino;	/* TS_FILE: the inode it showed */
	} stack[TUI_STACK];
	unsigned depth;
	char msg[256];		/* status bar message until the next key */
	struct browser br;
	struct fileview fv;
	struct agmap map;
	struct worst worst;
	struct help help;
};

struct tui_opts {
	bool color;		/* false: --no-color */
	const char *path;	/* --path: start there */
	const char *notice;	/* shown on the status bar at first */
};

/* tui.c: run the interactive loop until q; 0 or a negative errno. */
int tui_run(struct tui *t, const struct tui_opts *o, struct err *e);
void tui_init(struct tui *t, struct fs *fs, struct model *m,
	      struct blkmap *bm, const struct report *rpt, const char *image);
void tui_free(struct tui *t);
void tui_push(struct tui *t, enum tui_screen s, uint64_t ino);
void tui_pop(struct tui *t);
void tui_message(struct tui *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* browser.c */
int browser_init(struct tui *t, const char *path, struct err *e);
int browser_load(struct tui *t, uint64_t dir, const char *path);
void browser_draw(struct tui *t);
void browser_key(struct tui *t, struct tui_key k);
void browser_free(struct browser *b);
/* browser_sort.c */
void browser_sort(struct browser *b);
const char *browser_sort_name(enum br_sort s);
/* Find the next entry after from (wrapping) whose name has q; -1 none. */
long browser_find(const struct browser *b, size_t from, const char *q,
		  int dir);

/* fileview.c */
int fileview_open(struct tui *t, uint64_t ino, const char *path);
void fileview_draw(struct tui *t);
void fileview_key(struct tui *t, struct tui_key k);
void fileview_free(struct fileview *fv);

/* agmap.c */
void agmap_show(struct tui *t, uint64_t mark, const char *path);
void agmap_draw(struct tui *t);
void agmap_key(struct tui *t, struct tui_key k);
void agmap_free(struct agmap *a);
/* agmap_view.c: geometry, zoom and the cell classes (no curses) */
void agmap_layout(const struct blkmap *bm, int lines, int cols,
		  struct agmap_layout *l);
void agmap_place(struct agmap *a, const struct blkmap *bm,
		 const struct agmap_layout *l, bool recentre);
void agmap_fit(struct agmap *a, const struct tui *t,
	       const struct agmap_layout *l);
int agmap_compute(struct agmap *a, const struct blkmap *bm,
		  const struct agmap_layout *l);

/* worst.c */
void worst_draw(struct tui *t);
void worst_key(struct tui *t, struct tui_key k);
void worst_free(struct worst *w);

/* help.c */
void help_draw(struct tui *t);
void help_key(struct tui *t, struct tui_key k);

/* draw.c: shared drawing helpers */
void draw_colors_init(struct tui *t);
void draw_header(const struct tui *t);
void draw_status(const struct tui *t, const char *text);
void draw_title(const struct tui *t, int y, const char *label,
		const char *path);
/* Name bytes escaped (\xNN for controls and invalid UTF-8), clipped. */
int draw_name(const struct tui *t, int y, int x, int width, const char *s,
	      size_t len);
/* Plain ASCII text, clipped to the screen. */
void draw_text(int y, int x, int width, const char *s);
void draw_size(char *buf, size_t len, uint64_t bytes);
char draw_class_char(unsigned cls);
attr_t draw_class_attr(const struct tui *t, unsigned cls);
const char *draw_type_name(uint16_t mode, uint8_t ftype);
bool draw_key_back(struct tui_key k);
bool draw_key_enter(struct tui_key k);

#endif
