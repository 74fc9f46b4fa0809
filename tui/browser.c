/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The directory browser: one directory at a time, as ncdu shows it.  A
 * directory is read once when it is entered (dir_iterate), its entries'
 * figures looked up in the model, sorted once; drawing touches only the
 * rows on screen, so huge directories scroll at no cost.
 */
#include "tui/tui.h"
#include "core/fs/dir.h"
#include "core/model/model_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column widths; the name takes the rest. */
#define W_SIZE	9
#define W_EXT	7
#define W_FILES	7
#define W_DIST	10
#define W_TYPE	4
#define W_FIXED	(W_SIZE + 1 + W_EXT + 1 + W_FILES + 1 + W_DIST + 1 + W_TYPE + 2)
#define LIST_TOP 3

struct loadctx {
	struct browser *nb;	/* being filled */
	uint64_t parent;
};

static int load_entry(void *priv, const uint8_t *name, size_t len,
		      uint64_t ino, uint8_t ftype, struct err *e)
{
	struct loadctx *lc = priv;
	struct browser *b = lc->nb;
	struct br_ent *be;

	if (len == 1 && name[0] == '.')
		return 0;
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		lc->parent = ino;
		return 0;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		struct br_ent *v = realloc(b->ent, cap * sizeof(*v));

		if (!v)
			return err_set(e, -ENOMEM, "out of memory");
		b->ent = v;
		b->cap = cap;
	}
	if (b->nlen + len > b->ncap) {
		size_t cap = b->ncap ? b->ncap * 2 : 4096;
		char *v;

		while (cap < b->nlen + len)
			cap *= 2;
		if (cap > UINT32_MAX)
			return err_set(e, -EOVERFLOW, "directory too large");
		v = realloc(b->names, cap);
		if (!v)
			return err_set(e, -ENOMEM, "out of memory");
		b->names = v;
		b->ncap = cap;
	}
	be = &b->ent[b->n++];
	memset(be, 0, sizeof(*be));
	be->ino = ino;
	be->name = (uint32_t)b->nlen;
	be->namelen = (uint16_t)len;
	be->ftype = ftype;
	memcpy(b->names + b->nlen, name, len);
	b->nlen += len;
	return 0;
}

/* Size, type, extents and distance from the model; totals for a directory. */
static void entry_figures(const struct tui *t, struct br_ent *be)
{
	const struct m_ag *ag;
	const struct m_ino *mi = model_find(t->m, be->ino, &ag);
	const struct tree_tot *tot;

	if (!mi)
		return;
	be->flags |= BE_MODEL;
	be->mode = mi->mode;
	be->size = mi->size;
	be->nexts = mi->nde;
	if (model_data_dist(t->m, ag, mi, &be->dist, NULL))
		be->flags |= BE_DIST;
	/* a directory shows what it holds, all the way down (ncdu) */
	tot = t->tree ? tree_totals(t->tree, be->ino) : NULL;
	if (tot) {
		be->flags |= BE_TOTAL;
		be->size = tot->bytes;
		be->nexts = tot->extents;
		be->files = tot->files;
	}
}

int browser_load(struct tui *t, uint64_t dir, const char *path)
{
	struct browser *b = &t->br, nb;
	struct loadctx lc;
	struct err e = { 0 };
	struct dir d;
	char *p;
	size_t i;
	int ret;

	memset(&nb, 0, sizeof(nb));
	lc.nb = &nb;
	lc.parent = dir;
	ret = dir_open(t->fs, dir, &d, &e);
	if (ret) {
		tui_message(t, "%s", e.msg);
		return ret;
	}
	ret = dir_iterate(&d, load_entry, &lc, &e);
	dir_close(&d);
	p = strdup(path);
	if (ret || !p) {
		tui_message(t, "%s", ret ? e.msg : "out of memory");
		free(nb.ent);
		free(nb.names);
		free(p);
		return ret ? ret : -ENOMEM;
	}
	for (i = 0; i < nb.n; i++)
		entry_figures(t, &nb.ent[i]);
	/* keep the sort and the last search across directories */
	nb.sort = b->sort;
	nb.rev = b->rev;
	memcpy(nb.query, b->query, sizeof(nb.query));
	browser_free(b);
	*b = nb;
	b->dir = dir;
	b->parent = lc.parent;
	b->path = p;
	browser_sort(b);
	b->cur = 0;
	return 0;
}

void browser_free(struct browser *b)
{
	free(b->ent);
	free(b->names);
	free(b->path);
	memset(b, 0, sizeof(*b));
}

/* "/a" + "b" -> "/a/b"; caller frees. */
static char *path_join(const char *dir, const char *name, size_t len)
{
	size_t dl = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
	char *p = malloc(dl + len + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, len);
	p[dl + 1 + len] = '\0';
	return p;
}

static void select_ino(struct browser *b, uint64_t ino)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		if (b->ent[i].ino == ino) {
			b->cur = i;
			return;
		}
	}
}

static void select_name(struct browser *b, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		if (b->ent[i].namelen == len &&
		    memcmp(b->names + b->ent[i].name, name, len) == 0) {
			b->cur = i;
			return;
		}
	}
}

static bool ent_is_dir(const struct br_ent *be)
{
	return strcmp(draw_type_name(be->mode, be->ftype), "dir") == 0;
}

/*
 * Start at path (NULL: the root).  Each component is looked up through
 * the directory's hash index; a last component that is not a directory
 * opens its file view over its directory's listing.  Symlinks are not
 * followed.  Called before the terminal is set up.
 */
/* One component of --path, looked up in directory dir. */
static int lookup(struct tui *t, uint64_t dir, const char *comp,
		  const char *path, uint64_t *ino, struct err *e)
{
	struct dir d;
	int ret;

	ret = dir_open(t->fs, dir, &d, e);
	if (ret)
		return ret;
	ret = dir_lookup(&d, (const uint8_t *)comp, strlen(comp), ino, e);
	dir_close(&d);
	if (ret == -ENOENT)
		ret = err_set(e, -ENOENT, "%s: no such file or directory",
			      path);
	return ret;
}

/* List dir; a failure's message goes to e, not to the status bar. */
static int load_into(struct tui *t, uint64_t dir, const char *p,
		     struct err *e)
{
	int ret = browser_load(t, dir, p);

	if (ret)
		err_set(e, ret, "%s", t->msg);
	t->msg[0] = '\0';
	return ret;
}

/* A file at the end of --path: its directory's listing, then its view. */
static int open_file(struct tui *t, uint64_t dir, const char *dpath,
		     const char *name, uint64_t ino, const char *fpath,
		     struct err *e)
{
	int ret = load_into(t, dir, dpath, e);

	if (ret)
		return ret;
	select_name(&t->br, name, strlen(name));
	ret = fileview_open(t, ino, fpath);
	if (!ret)
		tui_push(t, TS_FILE, ino);
	return ret;
}

/*
 * Start at path (NULL: the root).  Each component is looked up through
 * the directory's hash index; a last component that is not a directory
 * opens its file view over its directory's listing.  Symlinks are not
 * followed.  Called before the terminal is set up.
 */
int browser_init(struct tui *t, const char *path, struct err *e)
{
	uint64_t cur = t->fs->sb.rootino, ino;
	char *buf, *acc, *comp, *next, *np;
	const struct m_ino *mi;
	bool done = false;
	int ret = 0;

	if (!path || !*path)
		return load_into(t, cur, "/", e);
	buf = strdup(path);
	acc = strdup("/");
	if (!buf || !acc) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (comp = buf; comp && !ret && !done; comp = next) {
		next = strchr(comp, '/');
		if (next)
			*next++ = '\0';
		if (!*comp || strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			ret = err_set(e, -EINVAL, "%s: '..' is not supported "
				      "in --path", path);
			break;
		}
		ret = lookup(t, cur, comp, path, &ino, e);
		np = ret ? NULL : path_join(acc, comp, strlen(comp));
		if (!ret && !np)
			ret = err_set(e, -ENOMEM, "out of memory");
		if (ret)
			break;
		mi = model_find(t->m, ino, NULL);
		if (mi && od_mode_isdir(mi->mode)) {
			free(acc);
			acc = np;
			cur = ino;
			continue;
		}
		while (next && *next == '/')
			next++;
		if (next && *next)
			ret = err_set(e, -ENOTDIR, "%s: %s is not a directory",
				      path, comp);
		else
			ret = open_file(t, cur, acc, comp, ino, np, e);
		free(np);
		done = true;
	}
	if (!ret && !done)
		ret = load_into(t, cur, acc, e);
out:
	free(buf);
	free(acc);
	return ret;
}

static void go_up(struct tui *t)
{
	struct browser *b = &t->br;
	uint64_t from = b->dir;
	char *up, *slash;

	if (b->dir == t->fs->sb.rootino || !b->path) {
		tui_message(t, "already at the root");
		return;
	}
	up = strdup(b->path);
	if (!up)
		return;
	slash = strrchr(up, '/');
	if (slash == up)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	if (browser_load(t, b->parent, up) == 0)
		select_ino(&t->br, from);
	free(up);
}

static void open_entry(struct tui *t, bool as_file)
{
	struct browser *b = &t->br;
	const struct br_ent *be;
	char *p;

	if (!b->n)
		return;
	be = &b->ent[b->cur];
	p = path_join(b->path, b->names + be->name, be->namelen);
	if (!p)
		return;
	if (ent_is_dir(be) && !as_file) {
		browser_load(t, be->ino, p);
	} else if (fileview_open(t, be->ino, p) == 0) {
		tui_push(t, TS_FILE, be->ino);
	}
	free(p);
}

static void show_map(struct tui *t)
{
	struct browser *b = &t->br;
	const struct br_ent *be;
	char *p;

	if (!b->n) {
		agmap_show(t, 0, NULL);
		tui_push(t, TS_MAP, 0);
		return;
	}
	be = &b->ent[b->cur];
	p = path_join(b->path, b->names + be->name, be->namelen);
	agmap_show(t, be->ino, p);
	free(p);
	tui_push(t, TS_MAP, 0);
}

/* Wide characters typed at the prompt, as UTF-8. */
static void prompt_utf8(const struct browser *b, char *out, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < b->nin && o + 5 < len; i++) {
		uint32_t c = (uint32_t)b->in[i];

		if (c < 0x80) {
			out[o++] = (char)c;
		} else if (c < 0x800) {
			out[o++] = (char)(0xc0 | c >> 6);
			out[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			out[o++] = (char)(0xe0 | c >> 12);
			out[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			out[o++] = (char)(0xf0 | c >> 18);
			out[o++] = (char)(0x80 | ((c >> 12) & 0x3f));
			out[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out[o] = '\0';
}

static void search(struct tui *t, size_t from, int dir)
{
	struct browser *b = &t->br;
	long i;

	if (!b->query[0]) {
		tui_message(t, "no search yet: / to search");
		return;
	}
	i = browser_find(b, from, b->query, dir);
	if (i < 0)
		tui_message(t, "not found: %s", b->query);
	else
		b->cur = (size_t)i;
}

static void prompt_key(struct tui *t, struct tui_key k)
{
	struct browser *b = &t->br;

	if (tui_key_ch(k, 27)) {
		b->searching = false;
	} else if (draw_key_enter(k)) {
		b->searching = false;
		prompt_utf8(b, b->query, sizeof(b->query));
		/* from the selected entry itself */
		search(t, b->n ? (b->cur + b->n - 1) % b->n : 0, 1);
	} else if (k.code == KEY_BACKSPACE || tui_key_ch(k, 127) ||
		   tui_key_ch(k, 8)) {
		if (b->nin)
			b->nin--;
	} else if (k.code == 0 && k.ch >= 0x20 && k.ch != 0x7f &&
		   b->nin + 1 < sizeof(b->in) / sizeof(b->in[0])) {
		b->in[b->nin++] = (wchar_t)k.ch;
	}
}

/* A new order shows its top: the ranking is what one sorts for. */
static void resort(struct browser *b)
{
	browser_sort(b);
	b->cur = 0;
	b->top = 0;
}

static void set_sort(struct browser *b, enum br_sort s)
{
	if (b->sort == s) {
		b->rev = !b->rev;
	} else {
		b->sort = s;
		b->rev = false;
	}
	resort(b);
}

static int list_rows(void)
{
	int h = LINES - LIST_TOP - 1;

	return h > 0 ? h : 1;
}

void browser_key(struct tui *t, struct tui_key k)
{
	struct browser *b = &t->br;
	size_t page = (size_t)list_rows();

	if (b->searching) {
		prompt_key(t, k);
		return;
	}
	if (k.code == KEY_UP || tui_key_ch(k, 'k')) {
		if (b->cur)
			b->cur--;
	} else if (k.code == KEY_DOWN || tui_key_ch(k, 'j')) {
		if (b->cur + 1 < b->n)
			b->cur++;
	} else if (k.code == KEY_PPAGE) {
		b->cur = b->cur > page ? b->cur - page : 0;
	} else if (k.code == KEY_NPAGE) {
		b->cur = b->cur + page < b->n ? b->cur + page :
						(b->n ? b->n - 1 : 0);
	} else if (k.code == KEY_HOME || tui_key_ch(k, 'g')) {
		b->cur = 0;
	} else if (k.code == KEY_END || tui_key_ch(k, 'G')) {
		b->cur = b->n ? b->n - 1 : 0;
	} else if (draw_key_enter(k) || k.code == KEY_RIGHT ||
		   tui_key_ch(k, 'l')) {
		open_entry(t, false);
	} else if (tui_key_ch(k, 'i')) {
		open_entry(t, true);
	} else if (k.code == KEY_BACKSPACE || k.code == KEY_LEFT ||
		   tui_key_ch(k, 'h') || tui_key_ch(k, 127) ||
		   tui_key_ch(k, 8)) {
		go_up(t);
	} else if (tui_key_ch(k, 'm')) {
		show_map(t);
	} else if (tui_key_ch(k, 'w')) {
		tui_push(t, TS_WORST, 0);
	} else if (tui_key_ch(k, 's')) {
		b->sort = (b->sort + 1) % BS_NKEYS;
		b->rev = false;
		resort(b);
	} else if (tui_key_ch(k, 'S')) {
		b->rev = !b->rev;
		resort(b);
	} else if (k.code == 0 && k.ch >= '1' && k.ch < '1' + BS_NKEYS) {
		set_sort(b, (enum br_sort)(k.ch - '1'));
	} else if (tui_key_ch(k, '/')) {
		b->searching = true;
		b->nin = 0;
	} else if (tui_key_ch(k, 'n')) {
		search(t, b->cur, 1);
	} else if (tui_key_ch(k, 'N')) {
		search(t, b->cur, -1);
	} else if (tui_key_ch(k, '?')) {
		tui_push(t, TS_HELP, 0);
	} else if (tui_key_ch(k, 'q')) {
		t->quit = true;
	}
}

static void heading(const struct browser *b, int y, int namew)
{
	static const char *const label[BS_NKEYS] = {
		"name", "type", "size", "exts", "files", "dist",
	};
	static const enum br_sort order[BS_NKEYS] = {
		BS_SIZE, BS_EXTENTS, BS_FILES, BS_DIST, BS_TYPE, BS_NAME,
	};
	static const int width[BS_NKEYS] = {
		0, W_TYPE, W_SIZE, W_EXT, W_FILES, W_DIST,
	};
	char cell[64];
	int x = 0, i;

	move(y, 0);
	clrtoeol();
	attron(A_BOLD);
	for (i = 0; i < BS_NKEYS; i++) {
		enum br_sort s = order[i];
		int w = s == BS_NAME ? namew : width[s];
		const char *mark = b->sort == s ? (b->rev ? " ^" : " v") : "";

		/* numbers right-aligned, text left-aligned, as the rows */
		if (s == BS_SIZE || s == BS_EXTENTS || s == BS_FILES ||
		    s == BS_DIST)
			snprintf(cell, sizeof(cell), "%*s%s",
				 w - (int)strlen(mark), label[s], mark);
		else
			snprintf(cell, sizeof(cell), "%s%s", label[s], mark);
		if (b->sort == s)
			attron(A_UNDERLINE);
		draw_text(y, x, w, cell);
		attroff(A_UNDERLINE);
		x += w + (s == BS_TYPE ? 2 : 1);
	}
	attroff(A_BOLD);
}

static void row(const struct tui *t, const struct br_ent *be, int y,
		int namew, bool sel)
{
	char size[32], ext[32], files[32], dist[32], buf[160];
	int x;

	snprintf(files, sizeof(files), "%s", "");
	if (be->flags & BE_MODEL) {
		draw_size(size, sizeof(size), be->size);
		snprintf(ext, sizeof(ext), "%llu",
			 (unsigned long long)be->nexts);
		if (be->flags & BE_TOTAL)
			snprintf(files, sizeof(files), "%llu",
				 (unsigned long long)be->files);
	} else {
		snprintf(size, sizeof(size), "-");
		snprintf(ext, sizeof(ext), "-");
	}
	if (be->flags & BE_DIST)
		snprintf(dist, sizeof(dist), "%llu",
			 (unsigned long long)be->dist);
	else
		snprintf(dist, sizeof(dist), "-");
	snprintf(buf, sizeof(buf), "%*s %*s %*s %*s %-*s  ", W_SIZE, size,
		 W_EXT, ext, W_FILES, files, W_DIST, dist, W_TYPE,
		 draw_type_name(be->mode, be->ftype));
	if (sel)
		attron(A_REVERSE);
	move(y, 0);
	clrtoeol();
	if (sel)
		mvhline(y, 0, ' ', COLS);
	draw_text(y, 0, COLS, buf);
	x = W_FIXED;
	x += draw_name(t, y, x, namew, t->br.names + be->name, be->namelen);
	if (ent_is_dir(be) && x < COLS)
		mvaddch(y, x, '/');
	if (sel)
		attroff(A_REVERSE);
}

void browser_draw(struct tui *t)
{
	struct browser *b = &t->br;
	int h = list_rows(), namew = COLS - W_FIXED, i;
	char status[256];

	if (namew < 1)
		namew = 1;
	if (b->cur >= b->n)
		b->cur = b->n ? b->n - 1 : 0;
	/* scroll just enough to keep the selection visible */
	if (b->cur < b->top)
		b->top = b->cur;
	if (b->cur >= b->top + (size_t)h)
		b->top = b->cur - (size_t)h + 1;
	if (b->top + (size_t)h > b->n)
		b->top = b->n > (size_t)h ? b->n - (size_t)h : 0;

	draw_title(t, 1, NULL, b->path);
	heading(b, 2, namew);
	for (i = 0; i < h && b->top + (size_t)i < b->n; i++)
		row(t, &b->ent[b->top + (size_t)i], LIST_TOP + i, namew,
		    b->top + (size_t)i == b->cur);
	if (!b->n)
		draw_text(LIST_TOP, 2, COLS - 2, "(empty directory)");

	if (b->searching) {
		char q[512];

		prompt_utf8(b, q, sizeof(q));
		snprintf(status, sizeof(status), "search: ");
		draw_status(t, status);
		attron(t->color ? A_BOLD : A_REVERSE);
		draw_name(t, LINES - 1, 8, COLS - 9, q, strlen(q));
		attroff(t->color ? A_BOLD : A_REVERSE);
		return;
	}
	snprintf(status, sizeof(status), " %zu entries  sort: %s%s  "
		 "s/1-6:sort  /:search  m:map  w:worst  ?:help  q:quit", b->n,
		 browser_sort_name(b->sort), b->rev ? " (reversed)" : "");
	draw_status(t, status);
}
