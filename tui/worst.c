/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The worst offenders, three lists a key apart: the most fragmented files
 * and the inodes farthest from their data (the report's own top lists),
 * and the directories whose own read-back costs most (tree.h).  Enter
 * opens the file view of the selected one.
 */
#include "tui/tui.h"
#include "core/model/model_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORST_DIRS	100
#define LIST_TOP	4

static const char *const list_name[WL_N] = {
	"fragmented files", "farthest inodes", "slowest directories",
};

/* The directory list and its paths, the first time it is shown. */
static void load_dirs(struct tui *t)
{
	struct worst *w = &t->worst;
	struct err e = { 0 };

	w->loaded = true;
	if (!t->tree)
		return;
	w->dir = calloc(WORST_DIRS, sizeof(*w->dir));
	w->dir_path = calloc(WORST_DIRS, sizeof(*w->dir_path));
	if (!w->dir || !w->dir_path)
		return;
	w->ndir = tree_costliest(t->tree, w->dir, WORST_DIRS);
	if (model_paths(t->m, w->dir, w->ndir, w->dir_path, &e))
		tui_message(t, "%s", e.msg);
}

static size_t count(const struct tui *t, enum worst_list l)
{
	switch (l) {
	case WL_FRAG: return t->rpt ? t->rpt->ntop_frag : 0;
	case WL_DIST: return t->rpt ? t->rpt->ntop_dist : 0;
	default: return t->worst.ndir;
	}
}

/* Row i of list l: its inode, path and the figures to show. */
static uint64_t item(const struct tui *t, enum worst_list l, size_t i,
		     const char **path, char *fig, size_t len)
{
	const struct rpt_item *it;
	char size[32];

	switch (l) {
	case WL_FRAG:
		it = &t->rpt->top_frag[i];
		draw_size(size, sizeof(size), it->value2);
		snprintf(fig, len, "%9llu %9s", (unsigned long long)it->value,
			 size);
		break;
	case WL_DIST:
		it = &t->rpt->top_dist[i];
		snprintf(fig, len, "%12llu %5llu", (unsigned long long)it->value,
			 (unsigned long long)it->value2);
		break;
	default:
		*path = t->worst.dir_path && t->worst.dir_path[i] ?
			t->worst.dir_path[i] : "?";
		snprintf(fig, len, "%9.1f %9llu",
			 tree_own_seconds(t->tree, t->worst.dir[i]) * 1000.0,
			 (unsigned long long)(tree_totals(t->tree,
				t->worst.dir[i]) ? tree_totals(t->tree,
				t->worst.dir[i])->files : 0));
		return t->worst.dir[i];
	}
	*path = it->path ? it->path : "?";
	return it->ino;
}

static const char *heading(enum worst_list l)
{
	switch (l) {
	case WL_FRAG: return "  extents      size  path";
	case WL_DIST: return "blocks to data    AG  path";
	default: return "   own ms files below  path";
	}
}

void worst_draw(struct tui *t)
{
	struct worst *w = &t->worst;
	enum worst_list l = w->list;
	size_t n, i, *cur = &w->cur[l];
	int h = LINES - LIST_TOP - 1, x = 1, k;
	char fig[64], status[160];

	if (!w->loaded)
		load_dirs(t);
	n = count(t, l);
	if (h < 1)
		h = 1;
	if (*cur >= n)
		*cur = n ? n - 1 : 0;
	if (*cur < w->top)
		w->top = *cur;
	if (*cur >= w->top + (size_t)h)
		w->top = *cur - (size_t)h + 1;
	/* the three lists, the shown one underlined */
	for (k = 0; k < WL_N; k++) {
		char tab[48];

		snprintf(tab, sizeof(tab), "%d %s", k + 1, list_name[k]);
		if (k == (int)l)
			attron(A_BOLD | A_UNDERLINE);
		draw_text(1, x, COLS - x, tab);
		attroff(A_BOLD | A_UNDERLINE);
		x += (int)strlen(tab) + 3;
	}
	attron(A_BOLD);
	draw_text(LIST_TOP - 1, 0, COLS, heading(l));
	attroff(A_BOLD);
	for (i = w->top; i < n && i < w->top + (size_t)h; i++) {
		const char *path = "?";
		int y = LIST_TOP + (int)(i - w->top), fw;

		item(t, l, i, &path, fig, sizeof(fig));
		if (i == *cur) {
			attron(A_REVERSE);
			mvhline(y, 0, ' ', COLS);
		}
		draw_text(y, 0, COLS, fig);
		fw = (int)strlen(fig) + 2;
		if (fw < COLS)
			draw_name(t, y, fw, COLS - fw, path, strlen(path));
		attroff(A_REVERSE);
	}
	if (!n)
		draw_text(LIST_TOP, 2, COLS - 2, l == WL_DIRS && !t->tree ?
			  "(no directory tree: the scan found no root)" :
			  "(nothing to show)");
	snprintf(status, sizeof(status), " %zu %s  1-3/Tab:list  "
		 "Enter:file view  ?:help  q:back", n, list_name[l]);
	draw_status(t, status);
}

void worst_key(struct tui *t, struct tui_key k)
{
	struct worst *w = &t->worst;
	size_t n = count(t, w->list), *cur = &w->cur[w->list];

	if (k.code == KEY_UP || tui_key_ch(k, 'k')) {
		if (*cur)
			(*cur)--;
	} else if (k.code == KEY_DOWN || tui_key_ch(k, 'j')) {
		if (*cur + 1 < n)
			(*cur)++;
	} else if (k.code == KEY_PPAGE) {
		*cur = *cur > 10 ? *cur - 10 : 0;
	} else if (k.code == KEY_NPAGE) {
		*cur = n && *cur + 10 >= n ? n - 1 : *cur + 10;
	} else if (k.code == KEY_HOME || tui_key_ch(k, 'g')) {
		*cur = 0;
	} else if (k.code == KEY_END || tui_key_ch(k, 'G')) {
		*cur = n ? n - 1 : 0;
	} else if (tui_key_ch(k, '\t')) {
		w->list = (w->list + 1) % WL_N;
		w->top = 0;
	} else if (k.code == KEY_BTAB) {
		w->list = (w->list + WL_N - 1) % WL_N;
		w->top = 0;
	} else if (k.code == 0 && k.ch >= '1' && k.ch < '1' + WL_N) {
		w->list = (enum worst_list)(k.ch - '1');
		w->top = 0;
	} else if (draw_key_enter(k) && n) {
		const char *path = "?";
		char fig[64];
		uint64_t ino = item(t, w->list, *cur, &path, fig, sizeof(fig));

		if (fileview_open(t, ino, path) == 0)
			tui_push(t, TS_FILE, ino);
	} else if (tui_key_ch(k, '?')) {
		tui_push(t, TS_HELP, 0);
	} else if (draw_key_back(k)) {
		tui_pop(t);
	}
}

void worst_free(struct worst *w)
{
	size_t i;

	for (i = 0; w->dir_path && i < w->ndir; i++)
		free(w->dir_path[i]);
	free(w->dir_path);
	free(w->dir);
	memset(w, 0, sizeof(*w));
}
