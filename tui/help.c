/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The help screen: every key, per screen. */
#include "tui/tui.h"

static const char *const help_text[] = {
	"xfsdefrag tui - keys",
	"",
	"Everywhere",
	"  ?              this help (q, Esc or ? to leave it)",
	"  q, Esc         back to the previous screen; quit from the browser",
	"",
	"Directory browser",
	"  Up/Down, k/j   move; PgUp/PgDn, Home/End (g/G) jump",
	"  Enter, Right, l  open a directory, or a file's view",
	"  Backspace, Left, h  up to the parent directory",
	"  i              the selected entry's file view (also for directories)",
	"  m              the AG map with the selected entry's blocks marked",
	"  s              next sort key: name, type, size, extents, files,",
	"                 distance",
	"  S              reverse the order",
	"  1 2 3 4 5 6    sort by name, type, size, extents, files, distance;",
	"                 the same key again reverses",
	"  w              the worst offenders",
	"  /              search this directory's names (substring)",
	"  n N            next / previous match",
	"",
	"File view",
	"  Up/Down, k/j   scroll the extent rows; PgUp/PgDn, Home/End",
	"  < >            scroll sideways",
	"  a              toggle data / attribute fork",
	"  m              the AG map showing this file's extents",
	"  q, Esc, Backspace, Left, h  back",
	"",
	"Worst offenders",
	"  1 2 3, Tab     the most fragmented files, the inodes farthest from",
	"                 their data, the directories slowest to read back",
	"  Up/Down, k/j   move; PgUp/PgDn, Home/End (g/G) jump",
	"  Enter          the selected one's file view",
	"  q, Esc, Backspace, Left, h  back",
	"A directory's time is the read-back model's for it alone: its inode",
	"and blocks, then each entry's inode cluster and each file's data, in",
	"readdir order, at 7200 rpm.",
	"",
	"AG map",
	"  arrows, hjkl   move the cursor a cell / a row; PgUp/PgDn a screen",
	"  Home/End       first / last block of the filesystem",
	"  + -            zoom in / out: whole filesystem, one AG, ... one block",
	"  Tab, n / Shift-Tab, N  next / previous extent of the selected file",
	"  g              go to a block: AG:AGBNO or a linear block number",
	"  Enter          open the view of the file owning the cell",
	"  c              clear the selection",
	"  q, Esc, Backspace  back",
	"",
	"Map cells (the character is the same without colour)",
	"  @ selected file   # data of a contiguous file",
	"  x data of a fragmented file (its extents are not one run)",
	"  i inode chunks    M metadata (AG headers, btrees, log, bmbt)",
	"  . free space      ? in use, not in the model",
	"A cell shows what most of its blocks are; the selected file wins any cell",
	"it touches.  The readout names what lies under the cursor.",
	"",
	"Columns: size (bytes), extents (data fork records), files, dist (blocks",
	"from the inode to its first data block), type, name.  A directory shows",
	"what it holds all the way down: the bytes of its files, their extents",
	"and its own, and how many files (an inode with several links counts",
	"once, under the first name reached, as du counts it).  Names are shown",
	"as they are (UTF-8), control characters and invalid bytes as \\xNN.",
};

#define HELP_LINES	(sizeof(help_text) / sizeof(help_text[0]))

void help_draw(struct tui *t)
{
	struct help *h = &t->help;
	int rows = LINES - 2, i;

	if (rows < 1)
		rows = 1;
	if (h->top + (size_t)rows > HELP_LINES)
		h->top = HELP_LINES > (size_t)rows ?
			 HELP_LINES - (size_t)rows : 0;
	for (i = 0; i < rows && h->top + (size_t)i < HELP_LINES; i++) {
		if (h->top + (size_t)i == 0)
			attron(A_BOLD);
		draw_text(1 + i, 1, COLS - 1, help_text[h->top + (size_t)i]);
		attroff(A_BOLD);
	}
	draw_status(t, " Up/Down:scroll  q/Esc/?:back");
}

void help_key(struct tui *t, struct tui_key k)
{
	struct help *h = &t->help;

	if (k.code == KEY_UP || tui_key_ch(k, 'k')) {
		if (h->top)
			h->top--;
	} else if (k.code == KEY_DOWN || tui_key_ch(k, 'j')) {
		h->top++;	/* clamped when drawn */
	} else if (k.code == KEY_PPAGE) {
		h->top = h->top > 10 ? h->top - 10 : 0;
	} else if (k.code == KEY_NPAGE || tui_key_ch(k, ' ')) {
		h->top += 10;
	} else if (draw_key_back(k) || tui_key_ch(k, '?') ||
		   draw_key_enter(k)) {
		h->top = 0;
		tui_pop(t);
	}
}
