/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The main loop: the screen on top of the stack draws itself and takes
 * the keys; a window resize (KEY_RESIZE) just draws again at the new size.
 */
#include "tui/tui.h"

#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_COLS	40
#define MIN_LINES	12

void tui_init(struct tui *t, struct fs *fs, struct model *m,
	      struct blkmap *bm, const struct report *rpt, const char *image)
{
	memset(t, 0, sizeof(*t));
	t->fs = fs;
	t->m = m;
	t->bm = bm;
	t->rpt = rpt;
	t->image = image;
	t->stack[0].screen = TS_BROWSER;
	t->depth = 1;
}

void tui_free(struct tui *t)
{
	browser_free(&t->br);
	fileview_free(&t->fv);
	agmap_free(&t->map);
	worst_free(&t->worst);
}

void tui_message(struct tui *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
}

void tui_push(struct tui *t, enum tui_screen s, uint64_t ino)
{
	if (t->depth == TUI_STACK) {
		/* forget the oldest screen above the browser */
		memmove(&t->stack[1], &t->stack[2],
			(TUI_STACK - 2) * sizeof(t->stack[0]));
		t->depth--;
	}
	t->stack[t->depth].screen = s;
	t->stack[t->depth].ino = ino;
	t->depth++;
}

void tui_pop(struct tui *t)
{
	unsigned top;

	if (t->depth <= 1) {
		t->quit = true;
		return;
	}
	top = --t->depth - 1;
	/* a file view further down showed another file: show it again */
	if (t->stack[top].screen == TS_FILE &&
	    t->stack[top].ino != t->fv.ino)
		fileview_open(t, t->stack[top].ino, NULL);
}

static enum tui_screen current(const struct tui *t)
{
	return t->stack[t->depth - 1].screen;
}

static void draw(struct tui *t)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		mvprintw(0, 0, "terminal too small (%dx%d, need %dx%d); q "
			 "quits", COLS, LINES, MIN_COLS, MIN_LINES);
		return;
	}
	draw_header(t);
	switch (current(t)) {
	case TS_BROWSER: browser_draw(t); break;
	case TS_FILE: fileview_draw(t); break;
	case TS_MAP: agmap_draw(t); break;
	case TS_HELP: help_draw(t); break;
	case TS_WORST: worst_draw(t); break;
	}
}

static void key(struct tui *t, struct tui_key k)
{
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		if (tui_key_ch(k, 'q'))
			t->quit = true;
		return;
	}
	switch (current(t)) {
	case TS_BROWSER: browser_key(t, k); break;
	case TS_FILE: fileview_key(t, k); break;
	case TS_MAP: agmap_key(t, k); break;
	case TS_HELP: help_key(t, k); break;
	case TS_WORST: worst_key(t, k); break;
	}
}

int tui_run(struct tui *t, const struct tui_opts *o, struct err *e)
{
	SCREEN *scr;
	int ret;

	ret = browser_init(t, o->path, e);
	if (ret)
		return ret;
	t->color = o->color;
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return err_set(e, -ENOTTY, "cannot set up the terminal "
			       "(TERM=%s)", getenv("TERM") ? getenv("TERM") :
			       "");
	set_term(scr);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	draw_colors_init(t);
	if (o->notice)
		tui_message(t, "%s", o->notice);

	while (!t->quit) {
		struct tui_key k = { 0, 0 };
		int r;

		draw(t);
		refresh();
		r = get_wch(&k.ch);
		if (r == ERR)
			break;	/* no more input */
		if (r == KEY_CODE_YES) {
			k.code = (int)k.ch;
			k.ch = 0;
		}
		t->msg[0] = '\0';
		if (k.code == KEY_RESIZE)
			continue;
		key(t, k);
	}
	endwin();
	delscreen(scr);
	return 0;
}
