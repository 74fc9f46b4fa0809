/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The file view: an inode's placement, then its extent map exactly as
 * `xfs_bmap -v` prints it (getbmap + bmapfmt, as the bmap command), data
 * or attr fork.
 */
#include "tui/tui.h"
#include "core/fs/bmapfmt.h"
#include "core/fs/getbmap.h"
#include "core/model/model_dist.h"
#include "core/model/model_paths.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INFO_TOP	2
#define LINES_TOP	7

static void free_lines(struct fileview *fv)
{
	size_t i;

	for (i = 0; i < fv->nline; i++)
		free(fv->line[i]);
	free(fv->line);
	fv->line = NULL;
	fv->nline = 0;
}

void fileview_free(struct fileview *fv)
{
	free_lines(fv);
	free(fv->path);
	memset(fv, 0, sizeof(*fv));
}

static void add_line(void *priv, const char *line)
{
	struct fileview *fv = priv;
	char **v, *s;

	s = strdup(line);
	v = realloc(fv->line, (fv->nline + 1) * sizeof(*v));
	if (!s || !v) {
		free(s);
		if (v)
			fv->line = v;
		snprintf(fv->err, sizeof(fv->err), "out of memory");
		return;
	}
	fv->line = v;
	fv->line[fv->nline++] = s;
}

/* Read the inode and format the current fork's map. */
static int load(struct tui *t)
{
	struct fileview *fv = &t->fv;
	struct getbmap gb = { 0 };
	struct err e = { 0 };
	int ret;

	free_lines(fv);
	fv->err[0] = '\0';
	fv->top = fv->left = 0;
	ret = inode_read(t->fs, fv->ino, &fv->ip, &e);
	fv->have_ip = ret == 0;
	if (!ret)
		ret = getbmap(t->fs, &fv->ip, fv->attr ? GETBMAP_ATTRFORK : 0,
			      0, &gb, &e);
	if (ret) {
		memcpy(fv->err, e.msg, sizeof(fv->err));
	} else if (gb.n) {
		struct bmapfmt_opts fo = { fv->attr, false, false, 1 };

		bmapfmt(t->fs, &fv->ip, gb.v, gb.n, &fo, add_line, fv);
	}
	getbmap_free(&gb);
	return ret;
}

int fileview_open(struct tui *t, uint64_t ino, const char *path)
{
	struct fileview *fv = &t->fv;
	char *p = NULL;

	if (path) {
		p = strdup(path);
	} else {
		struct err e = { 0 };

		if (model_paths(t->m, &ino, 1, &p, &e))
			p = NULL;
	}
	free_lines(fv);
	free(fv->path);
	fv->path = p;
	fv->ino = ino;
	fv->attr = false;
	load(t);
	return 0;
}

static const char *fmt_name(int fmt)
{
	static const char *const names[] = {
		"dev", "local", "extents", "btree", "uuid", "rmap",
	};

	if (fmt < 0)
		return "none";
	return (size_t)fmt < sizeof(names) / sizeof(names[0]) ? names[fmt] :
								"?";
}

/* di_flags and di_flags2 by name (xfs_fs.h: XFS_XFLAG_* order). */
static void flag_names(const struct od_inode *di, char *buf, size_t len)
{
	static const char *const f1[] = {
		"realtime", "prealloc", "newrtbm", "immutable", "append",
		"sync", "noatime", "nodump", "rtinherit", "projinherit",
		"nosymlinks", "extsize", "extszinherit", "nodefrag",
		"filestream",
	};
	static const char *const f2[] = {
		"dax", "reflink", "cowextsize", "bigtime", "nrext64",
	};
	size_t o = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(f1) / sizeof(f1[0]); i++)
		if (di->flags & (1u << i))
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0,
					      "%s ", f1[i]);
	for (i = 0; i < sizeof(f2) / sizeof(f2[0]); i++)
		if (di->flags2 & (1ull << i))
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0,
					      "%s ", f2[i]);
	if (!buf[0])
		snprintf(buf, len, "none");
}

static void draw_info(struct tui *t)
{
	struct fileview *fv = &t->fv;
	const struct od_geo *g = &t->fs->geo;
	const struct od_inode *di = &fv->ip.di;
	const struct m_ag *ag;
	const struct m_ino *mi = model_find(t->m, fv->ino, &ag);
	uint32_t agno = od_ino_agno(g, fv->ino);
	uint32_t agino = od_ino_agino(g, fv->ino);
	uint64_t dist, first;
	char buf[512], flags[256];

	snprintf(buf, sizeof(buf), "inode %" PRIu64 "  AG %u  agino %u  "
		 "inode block %u:%u (linear %" PRIu64 ")", fv->ino, agno, agino,
		 agno, od_agino_agbno(g, agino),
		 model_ino_lin(t->fs, fv->ino));
	draw_text(INFO_TOP, 0, COLS, buf);
	if (!fv->have_ip)
		return;
	snprintf(buf, sizeof(buf), "size %" PRIu64 "  type %s  format %s  "
		 "attr fork %s  blocks %" PRIu64, di->size,
		 draw_type_name(di->mode, 0), fmt_name(di->format),
		 fmt_name(di->forkoff ? di->aformat : -1), di->nblocks);
	draw_text(INFO_TOP + 1, 0, COLS, buf);
	flag_names(di, flags, sizeof(flags));
	snprintf(buf, sizeof(buf), "extents %" PRIu64 " data, %u attr  "
		 "flags %s", di->nextents, di->anextents, flags);
	draw_text(INFO_TOP + 2, 0, COLS, buf);
	if (mi && model_data_dist(t->m, ag, mi, &dist, &first))
		snprintf(buf, sizeof(buf), "inode-to-data distance %" PRIu64
			 " blocks (first data block %u:%u)", dist,
			 (uint32_t)(first / g->agblocks),
			 (uint32_t)(first % g->agblocks));
	else
		snprintf(buf, sizeof(buf), "inode-to-data distance -  (no "
			 "data blocks on the data device)");
	draw_text(INFO_TOP + 3, 0, COLS, buf);
}

static int page_rows(void)
{
	int h = LINES - LINES_TOP - 1;

	return h > 0 ? h : 1;
}

void fileview_draw(struct tui *t)
{
	struct fileview *fv = &t->fv;
	int h = page_rows(), i;
	char label[64];

	snprintf(label, sizeof(label), "inode %" PRIu64 ": ", fv->ino);
	draw_title(t, 1, label, fv->path ? fv->path : "(no path)");
	draw_info(t);
	attron(A_BOLD);
	draw_text(LINES_TOP - 1, 0, COLS, fv->attr ?
		  "attr fork, as xfs_bmap -a -v prints it:" :
		  "data fork, as xfs_bmap -v prints it:");
	attroff(A_BOLD);
	if (fv->top + (size_t)h > fv->nline)
		fv->top = fv->nline > (size_t)h ? fv->nline - (size_t)h : 0;
	if (fv->err[0]) {
		draw_name(t, LINES_TOP, 0, COLS, fv->err, strlen(fv->err));
	} else if (!fv->nline) {
		draw_text(LINES_TOP, 0, COLS, "no extents");
	}
	for (i = 0; i < h && fv->top + (size_t)i < fv->nline; i++) {
		const char *l = fv->line[fv->top + (size_t)i];

		if (strlen(l) > fv->left)
			draw_text(LINES_TOP + i, 0, COLS, l + fv->left);
	}
	draw_status(t, " j/k:scroll  </>:sideways  a:attr fork  m:map  "
		    "q:back  ?:help");
}

void fileview_key(struct tui *t, struct tui_key k)
{
	struct fileview *fv = &t->fv;
	size_t page = (size_t)page_rows();

	if (k.code == KEY_UP || tui_key_ch(k, 'k')) {
		if (fv->top)
			fv->top--;
	} else if (k.code == KEY_DOWN || tui_key_ch(k, 'j')) {
		if (fv->top + page < fv->nline)
			fv->top++;
	} else if (k.code == KEY_PPAGE) {
		fv->top = fv->top > page ? fv->top - page : 0;
	} else if (k.code == KEY_NPAGE || tui_key_ch(k, ' ')) {
		fv->top += page;	/* clamped when drawn */
	} else if (k.code == KEY_HOME || tui_key_ch(k, 'g')) {
		fv->top = 0;
	} else if (k.code == KEY_END || tui_key_ch(k, 'G')) {
		fv->top = fv->nline;
	} else if (tui_key_ch(k, '<')) {
		fv->left = fv->left > 8 ? fv->left - 8 : 0;
	} else if (tui_key_ch(k, '>')) {
		size_t i, w = 0;

		for (i = 0; i < fv->nline; i++)
			if (strlen(fv->line[i]) > w)
				w = strlen(fv->line[i]);
		if (fv->left + 8 < w)
			fv->left += 8;
	} else if (tui_key_ch(k, 'a')) {
		fv->attr = !fv->attr;
		load(t);
	} else if (tui_key_ch(k, 'm')) {
		agmap_show(t, fv->ino, fv->path);
		tui_push(t, TS_MAP, 0);
	} else if (tui_key_ch(k, '?')) {
		tui_push(t, TS_HELP, 0);
	} else if (draw_key_back(k)) {
		tui_pop(t);
	}
}
