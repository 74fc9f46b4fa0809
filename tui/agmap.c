/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG map: a grid of cells, each a range of blocks drawn as the class
 * that dominates it (free, inodes, metadata, data of contiguous or of
 * fragmented files, the selected file), zoomable from the whole
 * filesystem down to single blocks, with a readout naming what lies under
 * the cursor.  Geometry and cell classes come from agmap_view.c.
 */
#include "tui/tui.h"
#include "core/model/model_paths.h"
#include "ondisk/geo.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void agmap_free(struct agmap *a)
{
	free(a->cls);
	free(a->path);
	free(a->mark_path);
	memset(a, 0, sizeof(*a));
}

/* Open the map with mark selected (0: none), framing its extents. */
void agmap_show(struct tui *t, uint64_t mark, const char *path)
{
	struct agmap *a = &t->map;

	free(a->mark_path);
	a->mark_path = mark && path ? strdup(path) : NULL;
	a->mark = model_find(t->m, mark, NULL) ? mark : 0;
	a->fit = a->mark != 0;
	a->going = false;
}

/* The path of an inode, remembered for the next draw. */
static const char *owner_path(struct tui *t, uint64_t ino)
{
	struct agmap *a = &t->map;
	struct err e = { 0 };
	char *p = NULL;

	if (ino == a->mark && a->mark_path)
		return a->mark_path;
	if (a->path && a->path_ino == ino)
		return a->path;
	if (model_paths(t->m, &ino, 1, &p, &e))
		return "(path unknown)";
	free(a->path);
	a->path = p;
	a->path_ino = ino;
	return p;
}

/* The cell under the cursor: its first block and blocks per cell. */
static void cursor_cell(const struct agmap *a, const struct agmap_layout *l,
			uint64_t *cs, uint64_t *step)
{
	*step = l->steps[a->level];
	*cs = a->origin + (a->cursor - a->origin) / *step * *step;
}

static void describe(struct tui *t, const struct bm_summary *s,
		     enum bm_class dom, char *buf, size_t len)
{
	const struct bm_span *sp = dom < BC_NCLASS ? s->top[dom] : NULL;
	uint32_t agno = dom < BC_NCLASS ? s->top_agno[dom] : 0;
	const struct m_ino *mi;

	if (dom == BC_OUTSIDE) {
		snprintf(buf, len, "past the end of the filesystem");
		return;
	}
	if (!sp) {
		snprintf(buf, len, "in use, but nothing in the model covers "
			 "it (a bmbt block of an inode in another AG?)");
		return;
	}
	switch (sp->kind) {
	case BK_FREE:
		snprintf(buf, len, "free extent %u:%u, %u blocks", agno,
			 sp->agbno, sp->len);
		break;
	case BK_META:
		snprintf(buf, len, "metadata: %s (AG %u, blocks %u-%u)",
			 blkmap_meta_name(sp->meta), agno, sp->agbno,
			 bm_span_end(sp) - 1);
		break;
	case BK_INODES:
		snprintf(buf, len, "%sinode chunk of inodes %" PRIu64 "-%"
			 PRIu64 " (AG %u, blocks %u-%u)",
			 dom == BC_MARKED ? "the selected file's inode, in the "
			 : "", sp->owner, sp->owner + OD_INODES_PER_CHUNK - 1,
			 agno, sp->agbno, bm_span_end(sp) - 1);
		break;
	case BK_BMBT:
		snprintf(buf, len, "owner %s  inode %" PRIu64 "  bmbt block",
			 owner_path(t, sp->owner), sp->owner);
		break;
	default:
		mi = model_find(t->m, sp->owner, NULL);
		snprintf(buf, len, "owner %s  inode %" PRIu64 "  %s extent "
			 "%u of %u  blocks %u:%u+%u%s",
			 owner_path(t, sp->owner), sp->owner,
			 sp->kind == BK_ATTR ? "attr" : "data", sp->idx + 1,
			 mi ? (sp->kind == BK_ATTR ? mi->nae : mi->nde) : 0,
			 agno, sp->agbno, sp->len,
			 sp->flags & BMS_UNWRITTEN ? " unwritten" : "");
		break;
	}
}

/* Two lines: where the cursor is and what the cell holds; what owns it. */
static void readout(struct tui *t, const struct agmap_layout *l, int y)
{
	struct agmap *a = &t->map;
	const struct blkmap *bm = t->bm;
	struct bm_summary s;
	enum bm_class dom;
	uint64_t cs, step, ce;
	char buf[1024];
	size_t o;
	unsigned c, done = 0, n;
	const char *name;
	double pct;

	cursor_cell(a, l, &cs, &step);
	ce = cs + step - 1 < bm->dblocks ? cs + step - 1 : bm->dblocks - 1;
	blkmap_summary(bm, cs, step, a->mark, &s);
	dom = blkmap_dominant(&s);
	if (step == 1)
		o = (size_t)snprintf(buf, sizeof(buf), "AG %u block %u "
				     "(linear %" PRIu64 "):",
				     (uint32_t)(cs / bm->agblocks),
				     (uint32_t)(cs % bm->agblocks), cs);
	else
		o = (size_t)snprintf(buf, sizeof(buf), "AG %u blocks %u-%s%u "
				     "(%" PRIu64 " blocks):",
				     (uint32_t)(cs / bm->agblocks),
				     (uint32_t)(cs % bm->agblocks),
				     ce / bm->agblocks != cs / bm->agblocks ?
				     "next AG " : "",
				     (uint32_t)(ce % bm->agblocks),
				     ce - cs + 1);
	/* the classes present, largest first */
	for (n = 0; n < BC_NCLASS && o < sizeof(buf); n++) {
		unsigned best = BC_NCLASS;

		for (c = 0; c < BC_NCLASS; c++)
			if (s.blocks[c] && !(done & (1u << c)) &&
			    (best == BC_NCLASS || s.blocks[c] > s.blocks[best]))
				best = c;
		if (best == BC_NCLASS)
			break;
		done |= 1u << best;
		name = blkmap_class_name(best);
		pct = s.inside ? (double)s.blocks[best] * 100.0 /
				 (double)s.inside : 0.0;
		if (pct < 1.0)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o,
					      " %s <1%%", name);
		else if (pct > 99.0 && pct < 100.0)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o,
					      " %s >99%%", name);
		else
			o += (size_t)snprintf(buf + o, sizeof(buf) - o,
					      " %s %.0f%%", name, pct);
	}
	move(y, 0);
	clrtoeol();
	draw_text(y, 0, COLS, buf);
	describe(t, &s, dom, buf, sizeof(buf));
	move(y + 1, 0);
	clrtoeol();
	draw_name(t, y + 1, 0, COLS, buf, strlen(buf));
}

static void legend(const struct tui *t, int y)
{
	static const struct {
		unsigned cls;
		const char *name;
	} item[] = {
		{ BC_MARKED, "selected" }, { BC_DATA, "data" },
		{ BC_FRAG, "fragmented" }, { BC_INODES, "inodes" },
		{ BC_META, "metadata" }, { BC_FREE, "free" },
		{ BC_OTHER, "other" },
	};
	int x = 0;
	size_t i;

	move(y, 0);
	clrtoeol();
	for (i = 0; i < sizeof(item) / sizeof(item[0]) && x < COLS; i++) {
		unsigned cls = item[i].cls;

		if (cls == BC_MARKED && !t->map.mark)
			continue;
		mvaddch(y, x, (chtype)(unsigned char)draw_class_char(cls) |
			draw_class_attr(t, cls));
		draw_text(y, x + 2, COLS - x - 2, item[i].name);
		x += (int)strlen(item[i].name) + 4;
	}
}

static void grid(struct tui *t, const struct agmap_layout *l)
{
	const struct agmap *a = &t->map;
	const struct blkmap *bm = t->bm;
	uint64_t step = l->steps[a->level];
	uint64_t cur = (a->cursor - a->origin) / step;
	int r, c;

	for (r = 0; r < l->rows; r++) {
		uint64_t lin = a->origin +
			       (uint64_t)r * (uint64_t)l->cols * step;
		char lab[48];

		if (lin < bm->dblocks) {
			snprintf(lab, sizeof(lab), "%u:%u",
				 (uint32_t)(lin / bm->agblocks),
				 (uint32_t)(lin % bm->agblocks));
			draw_text(l->top + r, l->gutter - 1 - (int)strlen(lab),
				  (int)strlen(lab), lab);
		}
		move(l->top + r, l->left);
		for (c = 0; c < l->cols; c++) {
			size_t i = (size_t)r * (size_t)l->cols + (size_t)c;
			unsigned cls = a->cls[i];
			chtype ch = (unsigned char)draw_class_char(cls);

			ch |= draw_class_attr(t, cls);

			if (i == cur)
				ch |= A_REVERSE | A_BOLD;
			addch(ch);
		}
	}
}

static void title(struct tui *t, const struct agmap_layout *l)
{
	const struct agmap *a = &t->map;
	uint64_t step = l->steps[a->level];
	char label[160];

	snprintf(label, sizeof(label), "map: %s, %" PRIu64 " block%s per cell"
		 "%s", a->level == 0 ? "whole filesystem" :
		 step * (uint64_t)l->rows * (uint64_t)l->cols >= t->bm->agblocks
		 ? "one AG" : "zoomed", step, step == 1 ? "" : "s",
		 a->mark ? "  selected: " : "");
	draw_title(t, 1, label, a->mark ? (a->mark_path ? a->mark_path :
					   owner_path(t, a->mark)) : NULL);
}

void agmap_draw(struct tui *t)
{
	struct agmap *a = &t->map;
	struct agmap_layout l;

	agmap_layout(t->bm, LINES, COLS, &l);
	if (a->fit) {
		agmap_fit(a, t, &l);
		a->fit = false;
	} else {
		agmap_place(a, t->bm, &l, false);
	}
	if (agmap_compute(a, t->bm, &l)) {
		tui_message(t, "out of memory");
		return;
	}
	title(t, &l);
	grid(t, &l);
	readout(t, &l, LINES - 4);
	legend(t, LINES - 2);
	if (a->going) {
		char buf[96];

		snprintf(buf, sizeof(buf), "go to block (AG:AGBNO or linear): "
			 "%.*s", (int)a->nin, a->in);
		draw_status(t, buf);
		return;
	}
	draw_status(t, " hjkl:move  +/-:zoom  Tab:next extent  g:go to  "
		    "Enter:open  q:back  ?:help");
}

/* Move the cursor to the next (dir > 0) or previous extent of the mark. */
static void jump_extent(struct tui *t, const struct agmap_layout *l, int dir)
{
	struct agmap *a = &t->map;
	const struct od_geo *g = &t->fs->geo;
	const struct m_ag *ag;
	const struct m_ino *mi = model_find(t->m, a->mark, &ag);
	uint64_t cs, step, best = UINT64_MAX, wrap = UINT64_MAX;
	uint32_t k;

	if (!mi) {
		tui_message(t, "no file selected: m on a file first");
		return;
	}
	cursor_cell(a, l, &cs, &step);
	for (k = 0; k < mi->nde + mi->nae; k++) {
		struct od_irec r;
		uint64_t s;

		if (k < mi->nde && (mi->flags & MI_REALTIME))
			continue;
		m_ext_get(&ag->ext[mi->ext + k], &r);
		s = od_fsb_lin(g, r.startblock);
		if (dir > 0) {
			if (s >= cs + step && (best == UINT64_MAX || s < best))
				best = s;
			if (wrap == UINT64_MAX || s < wrap)
				wrap = s;
		} else {
			if (s < cs && (best == UINT64_MAX || s > best))
				best = s;
			if (wrap == UINT64_MAX || s > wrap)
				wrap = s;
		}
	}
	if (best == UINT64_MAX)
		best = wrap;
	if (best == UINT64_MAX) {
		tui_message(t, "the selected file has no extents here");
		return;
	}
	a->cursor = best;
}

static void open_owner(struct tui *t, const struct agmap_layout *l)
{
	struct agmap *a = &t->map;
	struct bm_summary s;
	enum bm_class dom;
	uint64_t cs, step, ino;
	const struct bm_span *sp;

	cursor_cell(a, l, &cs, &step);
	blkmap_summary(t->bm, cs, step, a->mark, &s);
	dom = blkmap_dominant(&s);
	sp = dom < BC_NCLASS ? s.top[dom] : NULL;
	if (!sp || (sp->kind != BK_DATA && sp->kind != BK_ATTR &&
		    sp->kind != BK_BMBT && dom != BC_MARKED)) {
		tui_message(t, "no file owns this cell");
		return;
	}
	ino = dom == BC_MARKED ? a->mark : sp->owner;
	if (fileview_open(t, ino, owner_path(t, ino)) == 0)
		tui_push(t, TS_FILE, ino);
}

static void goto_key(struct tui *t, const struct agmap_layout *l,
		     struct tui_key k)
{
	struct agmap *a = &t->map;
	unsigned agno, agbno;
	unsigned long long lin;
	char c;

	if (tui_key_ch(k, 27)) {
		a->going = false;
	} else if (draw_key_enter(k)) {
		a->going = false;
		a->in[a->nin] = '\0';
		if (sscanf(a->in, "%u:%u%c", &agno, &agbno, &c) == 2 &&
		    agno < t->bm->agcount && agbno < t->bm->ag[agno].blocks) {
			a->cursor = blkmap_lin(t->bm, agno, agbno);
		} else if (sscanf(a->in, "%llu%c", &lin, &c) == 1 &&
			   lin < t->bm->dblocks) {
			a->cursor = lin;
		} else {
			tui_message(t, "no such block: %s", a->in);
			return;
		}
		agmap_place(a, t->bm, l, true);
	} else if (k.code == KEY_BACKSPACE || tui_key_ch(k, 127) ||
		   tui_key_ch(k, 8)) {
		if (a->nin)
			a->nin--;
	} else if (k.code == 0 && ((k.ch >= '0' && k.ch <= '9') ||
				   k.ch == ':') && a->nin + 1 < sizeof(a->in)) {
		a->in[a->nin++] = (char)k.ch;
	}
}

void agmap_key(struct tui *t, struct tui_key k)
{
	struct agmap *a = &t->map;
	struct agmap_layout l;
	uint64_t step, row, page, last;

	agmap_layout(t->bm, LINES, COLS, &l);
	if (a->level >= l.nlevels)
		a->level = l.nlevels - 1;
	step = l.steps[a->level];
	row = step * (uint64_t)l.cols;
	page = row * (uint64_t)l.rows;
	last = t->bm->dblocks ? t->bm->dblocks - 1 : 0;
	if (a->going) {
		goto_key(t, &l, k);
		return;
	}
	if (k.code == KEY_LEFT || tui_key_ch(k, 'h')) {
		a->cursor = a->cursor >= step ? a->cursor - step : 0;
	} else if (k.code == KEY_RIGHT || tui_key_ch(k, 'l')) {
		a->cursor = a->cursor + step <= last ? a->cursor + step : last;
	} else if (k.code == KEY_UP || tui_key_ch(k, 'k')) {
		a->cursor = a->cursor >= row ? a->cursor - row : a->cursor;
	} else if (k.code == KEY_DOWN || tui_key_ch(k, 'j')) {
		a->cursor = a->cursor + row <= last ? a->cursor + row :
						      a->cursor;
	} else if (k.code == KEY_PPAGE) {
		a->cursor = a->cursor >= page ? a->cursor - page : 0;
	} else if (k.code == KEY_NPAGE) {
		a->cursor = a->cursor + page <= last ? a->cursor + page : last;
	} else if (k.code == KEY_HOME) {
		a->cursor = 0;
	} else if (k.code == KEY_END) {
		a->cursor = last;
	} else if (tui_key_ch(k, '+') || tui_key_ch(k, '=')) {
		if (a->level + 1 < l.nlevels)
			a->level++;
		agmap_place(a, t->bm, &l, true);
	} else if (tui_key_ch(k, '-')) {
		if (a->level)
			a->level--;
		agmap_place(a, t->bm, &l, true);
	} else if (tui_key_ch(k, '\t') || tui_key_ch(k, 'n')) {
		jump_extent(t, &l, 1);
	} else if (k.code == KEY_BTAB || tui_key_ch(k, 'N')) {
		jump_extent(t, &l, -1);
	} else if (tui_key_ch(k, 'g')) {
		a->going = true;
		a->nin = 0;
	} else if (tui_key_ch(k, 'c')) {
		a->mark = 0;
	} else if (draw_key_enter(k)) {
		open_owner(t, &l);
	} else if (tui_key_ch(k, '?')) {
		tui_push(t, TS_HELP, 0);
	} else if (tui_key_ch(k, 'q') || tui_key_ch(k, 27) ||
		   k.code == KEY_BACKSPACE || tui_key_ch(k, 127) ||
		   tui_key_ch(k, 8)) {
		tui_pop(t);
	}
}
