/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `xfsdefrag-test --bench-map N tui [--path DIR] IMAGE`: time redraws
 * without a terminal.
 * The map, for a small and a large screen and for the whole-filesystem,
 * one-AG and one-block zoom levels: the cell classes alone (blkmap
 * sweep), then the full redraw (classes, grid, readout, legend) through
 * curses into /dev/null, repainted from scratch each time.  With a
 * directory: reading, looking up and sorting it, each sort key, and
 * paging through it.  Figures go to stdout; nothing is asserted.
 */
#include "tests/aids/aids.h"
#include "tui/tui.h"
#include "core/model/model_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct bench_size {
	int cols, lines;
};

/* Cursor in the middle of the filesystem, at the given level. */
static void bench_view(struct tui *t, const struct agmap_layout *l,
		       unsigned level)
{
	t->map.level = level;
	t->map.cursor = t->bm->dblocks / 2;
	t->map.fit = false;
	agmap_place(&t->map, t->bm, l, true);
}

static int bench_compute(struct tui *t, const struct bench_size *sz,
			 unsigned n)
{
	struct agmap_layout l;
	unsigned lv, i, levels[3];
	const char *what[3] = { "whole fs", "one AG", "one block" };

	agmap_layout(t->bm, sz->lines, sz->cols, &l);
	levels[0] = 0;
	levels[1] = l.nlevels > 1 ? 1 : 0;
	levels[2] = l.nlevels - 1;
	for (lv = 0; lv < 3; lv++) {
		double t0;

		bench_view(t, &l, levels[lv]);
		t0 = now_ms();
		for (i = 0; i < n; i++)
			if (agmap_compute(&t->map, t->bm, &l))
				return -ENOMEM;
		printf("  %dx%d %-9s (%dx%d cells of %llu blocks): classes "
		       "%.3f ms\n", sz->cols, sz->lines, what[lv], l.cols,
		       l.rows, (unsigned long long)l.steps[levels[lv]],
		       (now_ms() - t0) / n);
	}
	return 0;
}

/* A curses screen writing into /dev/null, sized lines x cols. */
struct null_term {
	FILE *out, *in;
	SCREEN *scr;
};

static int null_term_open(struct null_term *nt, int cols, int lines)
{
	const char *term = getenv("TERM");

	memset(nt, 0, sizeof(*nt));
	nt->out = fopen("/dev/null", "w");
	nt->in = fopen("/dev/null", "r");
	if (nt->out && nt->in)
		nt->scr = newterm(term && *term && strcmp(term, "dumb") ?
				  term : "xterm-256color", nt->out, nt->in);
	if (!nt->scr) {
		if (nt->out)
			fclose(nt->out);
		if (nt->in)
			fclose(nt->in);
		printf("  (no terminal: full redraw not timed)\n");
		return -1;
	}
	set_term(nt->scr);
	resize_term(lines, cols);
	return 0;
}

static void null_term_close(struct null_term *nt)
{
	endwin();
	delscreen(nt->scr);
	fclose(nt->out);
	fclose(nt->in);
}

static void bench_redraw(struct tui *t, const struct bench_size *sz,
			 unsigned n)
{
	struct null_term nt;
	struct agmap_layout l;
	unsigned lv, i, levels[3];
	const char *what[3] = { "whole fs", "one AG", "one block" };

	if (null_term_open(&nt, sz->cols, sz->lines))
		return;
	draw_colors_init(t);
	agmap_layout(t->bm, LINES, COLS, &l);
	levels[0] = 0;
	levels[1] = l.nlevels > 1 ? 1 : 0;
	levels[2] = l.nlevels - 1;
	for (lv = 0; lv < 3; lv++) {
		double t0;

		bench_view(t, &l, levels[lv]);
		t0 = now_ms();
		for (i = 0; i < n; i++) {
			erase();
			draw_header(t);
			agmap_draw(t);
			clearok(curscr, TRUE);	/* repaint everything */
			refresh();
		}
		printf("  %dx%d %-9s full redraw %.3f ms\n", COLS, LINES,
		       what[lv], (now_ms() - t0) / n);
	}
	null_term_close(&nt);
}

static int bench_dir(struct tui *t, const char *path, unsigned n)
{
	struct browser *b = &t->br;
	struct null_term nt;
	struct err e = { 0 };
	unsigned i;
	int k;
	double t0;

	t0 = now_ms();
	if (browser_init(t, path, &e)) {
		printf("directory %s: %s\n", path, e.msg);
		return -1;
	}
	printf("directory %s: %zu entries read, looked up and sorted in "
	       "%.1f ms\n", path, b->n, now_ms() - t0);
	for (k = BS_NKEYS - 1; k >= 0; k--) {
		t0 = now_ms();
		b->sort = (enum br_sort)k;
		browser_sort(b);
		printf("  sort by %-8s %.2f ms\n", browser_sort_name(b->sort),
		       now_ms() - t0);
	}
	if (null_term_open(&nt, 80, 24))
		return 0;
	draw_colors_init(t);
	t0 = now_ms();
	for (i = 0; i < n; i++) {
		struct tui_key pgdn = { KEY_NPAGE, 0 };

		if (b->cur + 1 >= b->n)
			b->cur = 0;
		browser_key(t, pgdn);
		erase();
		draw_header(t);
		browser_draw(t);
		clearok(curscr, TRUE);
		refresh();
	}
	printf("  80x24 page down + full redraw %.3f ms\n",
	       (now_ms() - t0) / n);
	null_term_close(&nt);
	return 0;
}

/* The readout names a new owner by its path: one model_paths call. */
static void bench_path(struct tui *t)
{
	const struct blkmap *bm = t->bm;
	uint32_t a;
	size_t i;

	for (a = bm->agcount / 2; a < bm->agcount; a++) {
		for (i = bm->ag[a].nspan / 2; i < bm->ag[a].nspan; i++) {
			const struct bm_span *sp = &bm->ag[a].span[i];
			struct err e = { 0 };
			uint64_t ino = sp->owner;
			char *p = NULL;
			double t0;

			if (sp->kind != BK_DATA)
				continue;
			t0 = now_ms();
			if (model_paths(t->m, &ino, 1, &p, &e) == 0)
				printf("readout: path of inode %llu (%s) in "
				       "%.1f ms\n", (unsigned long long)ino, p,
				       now_ms() - t0);
			free(p);
			return;
		}
	}
}

int aid_benchmap(struct tui *t, const char *path, unsigned n)
{
	static const struct bench_size sizes[] = { { 80, 24 }, { 200, 60 } };
	struct bm_summary sum;
	unsigned c;
	size_t s;

	if (!n)
		n = 1;
	printf("block map: %llu spans, built in %.1f ms\n",
	       (unsigned long long)t->bm->nspans,
	       (double)t->bm->build_ns / 1e6);
	blkmap_summary(t->bm, 0, t->bm->dblocks, 0, &sum);
	printf("  blocks:");
	for (c = 0; c < BC_NCLASS; c++)
		if (c != BC_MARKED)
			printf(" %s %llu%s", blkmap_class_name(c),
			       (unsigned long long)sum.blocks[c],
			       c + 1 < BC_NCLASS ? "," : "\n");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		if (bench_compute(t, &sizes[s], n))
			return -ENOMEM;
		bench_redraw(t, &sizes[s], n);
	}
	bench_path(t);
	if (path && bench_dir(t, path, n))
		return -1;
	return 0;
}
