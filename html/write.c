/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The HTML writer: escaping, the page's head and style, figure rows,
 * human units. */
#include "html/priv.h"
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
 * yellow, metadata magenta, free light grey.  The verdict box: green
 * edge when a run is worth it, amber when not, grey when not judged. */
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
	"svg.agmap{border:1px solid #999;background:#fff;display:block}"
	"figure.agmap{width:514px}\n"
	".k0{fill:#e8e8e8}.k1{fill:#e6b800}.k2{fill:#a04cc8}.k3{fill:#3a9a3a}"
	".k4{fill:#d62728}.k5{fill:#17becf}.k6{fill:#555}\n"
	"path.tip{fill:#000;fill-opacity:0}path.tip:hover{fill-opacity:.25}"
	"path.log{fill:none;stroke:#000;stroke-width:.5;pointer-events:none}\n"
	".sw{display:inline-block;width:1em;height:1em;vertical-align:middle;"
	"margin-right:.3em;border:1px solid #999}"
	".s0{background:#e8e8e8}.s1{background:#e6b800}.s2{background:#a04cc8}"
	".s3{background:#3a9a3a}.s4{background:#d62728}.s5{background:#17becf}"
	".s6{background:#555}.slog{border:2px solid #000;background:#fff}\n"
	"table.legend{font-size:.8em}table.legend td{padding:0 .4em}"
	"table.legend td:first-child{text-align:left}\n"
	"svg.hist .bar{fill:#3b7dd8}svg.hist.after .bar{fill:#3a9a3a}"
	"svg.hist text{font-size:10px;fill:#333}\n"
	".pair{display:flex;flex-wrap:wrap;gap:0 1.5em}\n"
	"#verdict{border:3px solid #888;border-radius:6px;padding:.3em 1.2em "
	".8em;margin:1em 0;background:#f4f4f4}"
	"#verdict.yes{border-color:#2e8b3e;background:#eaf6ec}"
	"#verdict.no{border-color:#d08c00;background:#fdf5e4}"
	"#verdict h2{border:0;margin:.4em 0 .2em;font-size:1.4em}"
	"#verdict .why{margin:.2em 0 .6em}"
	"#verdict table{background:#fff}#verdict td.good{color:#1d6b2a;"
	"font-weight:bold}#verdict td.bad{color:#a33}\n"
	"table.story td.good{color:#1d6b2a}table.story td.bad{color:#a33}\n"
	".hook{color:#666;font-style:italic}.note{color:#555;font-size:.9em}\n";

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


void html_section(struct html *h, const char *id, const char *title)
{
	html_raw(h, "<section id=\"%s\">\n<h2>", id);
	html_text(h, title);
	html_raw(h, "</h2>\n");
}

void html_section_end(struct html *h)
{
	html_raw(h, "</section>\n");
}

const char *html_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	unsigned u = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	v /= 1024.0;
	while (v >= 1024.0 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" :
		 "%.0f %s", v, unit[u]);
	return buf;
}

const char *html_secs(double s, char *buf, size_t len)
{
	if (s < 0.01)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else if (s < 1)
		snprintf(buf, len, "%.0f ms", s * 1e3);
	else if (s < 10)
		snprintf(buf, len, "%.2f s", s);
	else if (s < 100)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%.0f s (%.0f min)", s, s / 60);
	else
		snprintf(buf, len, "%.0f s (%.1f h)", s, s / 3600);
	return buf;
}

const char *html_count(uint64_t n, char *buf, size_t len)
{
	char tmp[32];
	size_t k, d, o = 0;

	d = (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)n);
	for (k = 0; k < d && o + 2 < len; k++) {
		if (k && (d - k) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[k];
	}
	buf[o] = '\0';
	return buf;
}

const char *html_change(double now, double after, bool count, char *buf,
			size_t len, bool *good)
{
	double pc = now > 0 ? (now - after) * 100.0 / now : 0.0;

	*good = pc >= 0.5;
	if (now <= 0 && after > 0)
		snprintf(buf, len, "more");
	else if (pc >= 99.5 && after > 0)	/* not all gone: no "100%" */
		snprintf(buf, len, "%.1f%% %s", pc > 99.9 ? 99.9 : pc,
			 count ? "fewer" : "less");
	else if (pc >= 0.5)
		snprintf(buf, len, "%.0f%% %s", pc, count ? "fewer" : "less");
	else if (pc <= -0.5)
		snprintf(buf, len, "%.0f%% more", -pc);
	else
		snprintf(buf, len, "the same");
	return buf;
}

double html_pct(uint64_t a, uint64_t b)
{
	return b ? (double)a * 100.0 / (double)b : 0.0;
}

double html_frag_factor(uint64_t actual, uint64_t ideal)
{
	return actual ? (double)(actual - ideal) * 100.0 / (double)actual : 0;
}

bool html_ag_shown(const struct report *r, uint32_t a)
{
	return r->agsel < 0 || (uint32_t)r->agsel == a;
}

void html_path(struct html *h, const char *path, uint64_t ino)
{
	char buf[48];

	if (path) {
		html_text(h, path);
		return;
	}
	snprintf(buf, sizeof(buf), "(inode %llu)", (unsigned long long)ino);
	html_text(h, buf);
}
