/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drawing helpers shared by the screens: colours, bars, names, numbers. */
#include "tui/tui.h"
#include "core/model/frag.h"

#include <stdio.h>
#include <string.h>

enum {
	CP_BAR = 1, CP_FREE, CP_INODES, CP_META, CP_DATA, CP_FRAG, CP_MARKED,
	CP_OTHER, CP_DIR,
};

void draw_colors_init(struct tui *t)
{
	if (!t->color)
		return;
	if (!has_colors() || start_color() == ERR) {
		t->color = false;
		return;
	}
	use_default_colors();
	init_pair(CP_BAR, COLOR_WHITE, COLOR_BLUE);
	init_pair(CP_FREE, -1, -1);
	init_pair(CP_INODES, COLOR_BLACK, COLOR_YELLOW);
	init_pair(CP_META, COLOR_WHITE, COLOR_MAGENTA);
	init_pair(CP_DATA, COLOR_BLACK, COLOR_GREEN);
	init_pair(CP_FRAG, COLOR_WHITE, COLOR_RED);
	init_pair(CP_MARKED, COLOR_BLACK, COLOR_CYAN);
	init_pair(CP_OTHER, COLOR_RED, -1);
	init_pair(CP_DIR, COLOR_BLUE, -1);
}

/* The same character in colour and monochrome: the map reads without colour. */
char draw_class_char(unsigned cls)
{
	static const char ch[BC_NCLASS + 1] = {
		[BC_FREE] = '.', [BC_INODES] = 'i', [BC_META] = 'M',
		[BC_DATA] = '#', [BC_FRAG] = 'x', [BC_MARKED] = '@',
		[BC_OTHER] = '?', [BC_OUTSIDE] = ' ',
	};

	return cls <= BC_NCLASS ? ch[cls] : ' ';
}

attr_t draw_class_attr(const struct tui *t, unsigned cls)
{
	static const short pair[BC_NCLASS + 1] = {
		[BC_FREE] = CP_FREE, [BC_INODES] = CP_INODES,
		[BC_META] = CP_META, [BC_DATA] = CP_DATA,
		[BC_FRAG] = CP_FRAG, [BC_MARKED] = CP_MARKED,
		[BC_OTHER] = CP_OTHER, [BC_OUTSIDE] = 0,
	};

	if (cls > BC_NCLASS)
		return A_NORMAL;
	if (!t->color)
		return cls == BC_MARKED ? A_BOLD : A_NORMAL;
	return COLOR_PAIR(pair[cls]) | (cls == BC_MARKED ? A_BOLD : 0);
}

static attr_t bar_attr(const struct tui *t)
{
	return t->color ? COLOR_PAIR(CP_BAR) : A_REVERSE;
}

void draw_text(int y, int x, int width, const char *s)
{
	int n = (int)strlen(s);

	if (width <= 0 || x >= COLS || y >= LINES || y < 0)
		return;
	if (x + width > COLS)
		width = COLS - x;
	mvaddnstr(y, x, s, n < width ? n : width);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* C1 controls act on terminals too; overlongs and surrogates */
	if (k == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	if (k == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) ||
		       (s[0] == 0xed && s[1] >= 0xa0)))
		return 0;
	if (k == 4 && ((s[0] == 0xf0 && s[1] < 0x90) ||
		       (s[0] == 0xf4 && s[1] >= 0x90)))
		return 0;
	return k;
}

static wchar_t utf8_decode(const unsigned char *s, size_t k)
{
	static const unsigned char mask[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	wchar_t c = s[0] & mask[k];
	size_t i;

	for (i = 1; i < k; i++)
		c = (c << 6) | (s[i] & 0x3f);
	return c;
}

/*
 * Names as cmd_put_escaped writes them: printable ASCII and valid UTF-8
 * as they are, backslash doubled, everything else \xNN.  Returns the
 * columns drawn.
 */
int draw_name(const struct tui *t, int y, int x, int width, const char *str,
	      size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	wchar_t buf[1024];
	size_t i = 0, nb = 0;
	int used = 0;

	if (x + width > COLS)
		width = COLS - x;
	while (i < len && nb + 8 < sizeof(buf) / sizeof(buf[0])) {
		size_t k = utf8_len(s + i, len - i);
		char esc[8];
		int w, j;

		if (k == 1 && s[i] >= 0x20 && s[i] != 0x7f && s[i] != '\\') {
			if (used + 1 > width)
				break;
			buf[nb++] = s[i++];
			used++;
			continue;
		}
		if (k > 1 && t->utf8) {
			wchar_t c = utf8_decode(s + i, k);

			w = wcwidth(c);
			if (w >= 0) {
				if (used + w > width)
					break;
				buf[nb++] = c;
				used += w;
				i += k;
				continue;
			}
		}
		if (k == 1 && s[i] == '\\')
			snprintf(esc, sizeof(esc), "\\\\");
		else
			snprintf(esc, sizeof(esc), "\\x%02x", s[i]);
		w = (int)strlen(esc);
		if (used + w > width)
			break;
		for (j = 0; j < w; j++)
			buf[nb++] = (wchar_t)esc[j];
		used += w;
		i++;
	}
	if (nb && width > 0)
		mvaddnwstr(y, x, buf, (int)nb);
	return used;
}

void draw_title(const struct tui *t, int y, const char *label,
		const char *path)
{
	int x;

	move(y, 0);
	clrtoeol();
	draw_text(y, 0, COLS, "--- ");
	x = 4;
	if (label) {
		draw_text(y, x, COLS - x, label);
		x += (int)strlen(label);
	}
	if (path) {
		x += draw_name(t, y, x, COLS - x - 1, path, strlen(path));
	}
	if (x < COLS - 1) {
		mvaddch(y, x, ' ');
		mvhline(y, x + 1, '-', COLS - x - 1);
	}
}

/* The image's name without its directory. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

void draw_header(const struct tui *t)
{
	const struct od_geo *g = &t->fs->geo;
	const struct report *r = t->rpt;
	const char *img = base_name(t->image);
	char buf[512];
	double frag = frag_factor(r->frag_actual, r->frag_ideal);
	double freep = g->dblocks ? (double)r->freesp.blocks * 100.0 /
				    (double)g->dblocks : 0.0;
	unsigned bs = g->blocksize >= 1024 ? g->blocksize / 1024 :
					     g->blocksize;
	const char *bu = g->blocksize >= 1024 ? "K" : "";
	int x;

	attron(bar_attr(t));
	mvhline(0, 0, ' ', COLS);
	x = draw_name(t, 0, 0, COLS / 3, img, strlen(img));
	snprintf(buf, sizeof(buf), "  %u AGs x %u x %u%s  %llu inodes  "
		 "frag %.2f%%  free %.1f%%  dist median %llu", g->agcount,
		 g->agblocks, bs, bu, (unsigned long long)t->m->ninodes, frag,
		 freep, (unsigned long long)r->dist_first.median);
	/* a narrow terminal gets the same figures, tersely */
	if (x + (int)strlen(buf) > COLS)
		snprintf(buf, sizeof(buf), " %u AG x %u x %u%s  %llu ino  "
			 "frag %.2f%%  free %.1f%%  dist %llu", g->agcount,
			 g->agblocks, bs, bu,
			 (unsigned long long)t->m->ninodes, frag, freep,
			 (unsigned long long)r->dist_first.median);
	draw_text(0, x, COLS - x, buf);
	attroff(bar_attr(t));
}

void draw_status(const struct tui *t, const char *text)
{
	attron(bar_attr(t));
	mvhline(LINES - 1, 0, ' ', COLS);
	if (t->msg[0])
		draw_name(t, LINES - 1, 0, COLS, t->msg, strlen(t->msg));
	else
		draw_text(LINES - 1, 0, COLS, text);
	attroff(bar_attr(t));
}

/* Human-readable, ncdu style: "  6.3 MiB", "512   B". */
void draw_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB",
					    "PiB", "EiB" };
	double v = (double)bytes;
	unsigned u = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu   B", (unsigned long long)bytes);
		return;
	}
	v /= 1024.0;
	while (v >= 1023.95 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
}

const char *draw_type_name(uint16_t mode, uint8_t ftype)
{
	switch (mode & 0170000) {
	case 0040000: return "dir";
	case 0100000: return "file";
	case 0120000: return "link";
	case 0020000: return "chr";
	case 0060000: return "blk";
	case 0010000: return "fifo";
	case 0140000: return "sock";
	default: break;
	}
	switch (ftype) {
	case 1: return "file";
	case 2: return "dir";
	case 3: return "chr";
	case 4: return "blk";
	case 5: return "fifo";
	case 6: return "sock";
	case 7: return "link";
	default: return "?";
	}
}

bool draw_key_back(struct tui_key k)
{
	return tui_key_ch(k, 'q') || tui_key_ch(k, 27) ||
	       tui_key_ch(k, 127) || tui_key_ch(k, 8) ||
	       k.code == KEY_BACKSPACE || k.code == KEY_LEFT ||
	       tui_key_ch(k, 'h');
}

bool draw_key_enter(struct tui_key k)
{
	return k.code == KEY_ENTER || tui_key_ch(k, '\n') ||
	       tui_key_ch(k, '\r');
}
