/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The HTML writer: escaping, figure rows, bar charts, block map SVGs. */
#include "html/html.h"
#include "core/base/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void html_text(struct html *h, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = utf8_seq_len(s);

		if (n > 1) {
			fwrite(s, 1, n, h->f);
			s += n;
			continue;
		}
		if (n == 0 || *s < 0x20 || *s == 0x7f)
			fprintf(h->f, "\\x%02x", *s);
		else if (*s == '&')
			fputs("&amp;", h->f);
		else if (*s == '<')
			fputs("&lt;", h->f);
		else if (*s == '>')
			fputs("&gt;", h->f);
		else if (*s == '"')
			fputs("&quot;", h->f);
		else if (*s == '\'')
			fputs("&#39;", h->f);
		else if (*s == '\\')
			fputs("\\\\", h->f);
		else
			fputc(*s, h->f);
		s++;
	}
}

void html_raw(struct html *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(h->f, fmt, ap);
	va_end(ap);
}

/* Colours follow the TUI's map: data green, fragmented red, inodes
 * yellow, metadata magenta, free light grey. */
static const char css[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222;background:#fff;"
	"max-width:72em}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;"
	"margin-top:1.8em}h3{font-size:1em;font-family:monospace}\n"
	"table{border-collapse:collapse;margin:.5em 0}"
	"th,td{padding:.15em .6em;text-align:left}"
	"td{text-align:right;font-variant-numeric:tabular-nums}"
	"table.grid td,table.grid th{border:1px solid #ddd}"
	"tr:nth-child(even){background:#f6f6f6}\n"
	"pre{background:#f6f6f6;padding:.5em;overflow:auto;font-size:.85em;"
	"max-height:30em}\n"
	"figure{display:inline-block;margin:.4em 1em .8em 0;"
	"vertical-align:top}figcaption{font-size:.9em;margin-bottom:.2em}\n"
	"svg.agmap{border:1px solid #999;background:#fff;display:block}\n"
	".k0{fill:#e8e8e8}.k1{fill:#e6b800}.k2{fill:#a04cc8}.k3{fill:#3a9a3a}"
	".k4{fill:#d62728}.k5{fill:#17becf}.k6{fill:#555}\n"
	".sw{display:inline-block;width:1em;height:1em;vertical-align:middle;"
	"margin-right:.3em;border:1px solid #999}"
	".s0{background:#e8e8e8}.s1{background:#e6b800}.s2{background:#a04cc8}"
	".s3{background:#3a9a3a}.s4{background:#d62728}.s5{background:#17becf}"
	".s6{background:#555}\n"
	"table.legend{font-size:.8em}table.legend td{padding:0 .4em}"
	"table.legend td:first-child{text-align:left}\n"
	"svg.hist .bar{fill:#3b7dd8}svg.hist text{font-size:10px;fill:#333}\n"
	".hook{color:#666;font-style:italic}\n";

void html_head(struct html *h, const char *title, const char *image)
{
	html_raw(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		 "<meta charset=\"utf-8\">\n"
		 /* nothing is ever fetched: the browser enforces it */
		 "<meta http-equiv=\"Content-Security-Policy\" "
		 "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		 "<meta name=\"generator\" content=\"xfsdefrag %s\">\n"
		 "<title>", XFSDEFRAG_VERSION);
	html_text(h, title);
	html_raw(h, ": ");
	html_text(h, image);
	html_raw(h, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>",
		 css);
	html_text(h, title);
	html_raw(h, ": <code>");
	html_text(h, image);
	html_raw(h, "</code></h1>\n");
}

void html_tail(struct html *h)
{
	html_raw(h, "<footer><p>Written by xfsdefrag %s, read only from the "
		 "unmounted filesystem.</p></footer>\n</body>\n</html>\n",
		 XFSDEFRAG_VERSION);
}

static void row_begin(struct html *h, const char *label)
{
	html_raw(h, "<tr><th>");
	html_text(h, label);
	html_raw(h, "</th>");
}

void html_row_u64(struct html *h, const char *label, const char *key,
		  uint64_t v)
{
	row_begin(h, label);
	html_raw(h, "<td data-key=\"%s\">%llu</td></tr>\n", key,
		 (unsigned long long)v);
}

void html_row_f2(struct html *h, const char *label, const char *key,
		 double v, const char *unit)
{
	row_begin(h, label);
	html_raw(h, "<td data-key=\"%s\">%.2f</td><td>%s</td></tr>\n", key, v,
		 unit ? unit : "");
}

void html_row2_u64(struct html *h, const char *label, const char *key_now,
		   uint64_t now, const char *key_after, uint64_t after)
{
	row_begin(h, label);
	html_raw(h, "<td data-key=\"%s\">%llu</td><td data-key=\"%s\">%llu</td>"
		 "</tr>\n", key_now, (unsigned long long)now, key_after,
		 (unsigned long long)after);
}

void html_row2_f2(struct html *h, const char *label, const char *key_now,
		  double now, const char *key_after, double after,
		  const char *unit)
{
	row_begin(h, label);
	html_raw(h, "<td data-key=\"%s\">%.2f</td><td data-key=\"%s\">%.2f</td>"
		 "<td>%s</td></tr>\n", key_now, now, key_after, after,
		 unit ? unit : "");
}

void html_hist(struct html *h, const char *id, const char *caption,
	       const char *xlabel, const struct html_bar *b, size_t n)
{
	const unsigned bw = 34, gap = 4, ph = 150, top = 16, bot = 64;
	unsigned width = (unsigned)n * (bw + gap) + 50;
	double lmax = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (log10(1.0 + (double)b[i].value) > lmax)
			lmax = log10(1.0 + (double)b[i].value);
	html_raw(h, "<figure><figcaption>");
	html_text(h, caption);
	html_raw(h, " (bar heights on a log scale)</figcaption>\n"
		 "<svg class=\"hist\" data-hist=\"%s\" width=\"%u\" "
		 "height=\"%u\" viewBox=\"0 0 %u %u\" role=\"img\">\n",
		 id, width, top + ph + bot, width, top + ph + bot);
	html_raw(h, "<line x1=\"40\" y1=\"%u\" x2=\"%u\" y2=\"%u\" "
		 "stroke=\"#999\"/>\n", top + ph, width, top + ph);
	for (i = 0; i < n; i++) {
		double frac = lmax > 0 ?
			log10(1.0 + (double)b[i].value) / lmax : 0;
		unsigned bh = (unsigned)lround(frac * ph);
		unsigned x = 44 + (unsigned)i * (bw + gap);

		if (b[i].value && bh == 0)
			bh = 1;
		html_raw(h, "<rect class=\"bar\" x=\"%u\" y=\"%u\" width=\"%u\" "
			 "height=\"%u\" data-label=\"", x, top + ph - bh, bw, bh);
		html_text(h, b[i].label);
		html_raw(h, "\" data-value=\"%llu\"><title>",
			 (unsigned long long)b[i].value);
		html_text(h, b[i].title);
		html_raw(h, "</title></rect>\n");
		if (b[i].value)
			html_raw(h, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">"
				 "%llu</text>\n", x + bw / 2, top + ph - bh - 3,
				 (unsigned long long)b[i].value);
		html_raw(h, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\" "
			 "transform=\"rotate(-45 %u %u)\">", x + bw / 2 + 4,
			 top + ph + 12, x + bw / 2 + 4, top + ph + 12);
		html_text(h, b[i].label);
		html_raw(h, "</text>\n");
	}
	html_raw(h, "<text x=\"2\" y=\"%u\">", top + ph + bot - 2);
	html_text(h, xlabel);
	html_raw(h, "</text>\n</svg></figure>\n");
}

void html_map_legend(struct html *h)
{
	static const enum bm_class show[] = {
		BC_DATA, BC_FRAG, BC_INODES, BC_META, BC_FREE, BC_OTHER,
	};
	size_t i;

	html_raw(h, "<p class=\"legend\">");
	for (i = 0; i < sizeof(show) / sizeof(show[0]); i++) {
		html_raw(h, "<span class=\"sw s%d\"></span>", (int)show[i]);
		html_text(h, blkmap_class_name(show[i]));
		html_raw(h, " &nbsp; ");
	}
	html_raw(h, "<br>Each cell is drawn as what holds most of its "
		 "blocks.</p>\n");
}

void html_map_svg(struct html *h, const struct html_map *m, const char *when)
{
	uint32_t rows = (m->ncells + HTML_MAP_COLS - 1) / HTML_MAP_COLS;
	const unsigned px = 4;
	unsigned c;

	html_raw(h, "<figure class=\"agmap\" data-ag=\"%u\" data-when=\"%s\">"
		 "<figcaption>AG %u, %s (a cell is %llu blocks)</figcaption>\n"
		 "<svg class=\"agmap\" data-ag=\"%u\" data-when=\"%s\" "
		 "data-cells=\"%u\" data-bpc=\"%llu\" width=\"%u\" "
		 "height=\"%u\" viewBox=\"0 0 %u %u\" "
		 "preserveAspectRatio=\"none\" shape-rendering=\"crispEdges\" "
		 "role=\"img\"><title>AG %u %s</title>\n",
		 m->agno, when, m->agno, when, (unsigned long long)m->bpc,
		 m->agno, when, m->ncells, (unsigned long long)m->bpc,
		 HTML_MAP_COLS * px, rows * px, HTML_MAP_COLS, rows, m->agno,
		 when);
	/* one path per class: each run of equal cells in a row is a box */
	for (c = 0; c < BC_NCLASS; c++) {
		uint32_t i = 0;
		bool any = false;

		while (i < m->ncells) {
			uint32_t j = i + 1;

			if (m->cls[i] != c) {
				i++;
				continue;
			}
			while (j < m->ncells && m->cls[j] == c &&
			       j % HTML_MAP_COLS != 0)
				j++;
			if (!any)
				html_raw(h, "<path class=\"k%u\" data-class=\"%s\" "
					 "d=\"", c, blkmap_class_name(c));
			any = true;
			html_raw(h, "M%u %uh%uv1h-%uz", i % HTML_MAP_COLS,
				 i / HTML_MAP_COLS, j - i, j - i);
			i = j;
		}
		if (any)
			html_raw(h, "\"/>\n");
	}
	html_raw(h, "</svg>\n<table class=\"legend\">");
	for (c = 0; c < BC_NCLASS; c++) {
		if (c == BC_MARKED)
			continue;
		html_raw(h, "<tr><td><span class=\"sw s%u\"></span>%s</td>"
			 "<td data-blocks=\"%s\">%llu</td></tr>", c,
			 blkmap_class_name(c), blkmap_class_name(c),
			 (unsigned long long)m->blocks[c]);
	}
	html_raw(h, "</table></figure>\n");
}
