/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bar charts of the HTML report: SVG, heights on a log scale. */
#include "html/priv.h"

#include <math.h>

double html_hist_lmax(const struct html_bar *b, size_t n)
{
	double lmax = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (log10(1.0 + (double)b[i].value) > lmax)
			lmax = log10(1.0 + (double)b[i].value);
	return lmax;
}

void html_hist(struct html *h, const char *id, const char *caption,
	       const char *xlabel, const struct html_bar *b, size_t n,
	       double lmax, bool after)
{
	const unsigned bw = 26, gap = 3, ph = 150, top = 16, bot = 64;
	unsigned width = (unsigned)n * (bw + gap) + 50;
	size_t i;

	if (lmax <= 0)
		lmax = html_hist_lmax(b, n);
	html_raw(h, "<figure><figcaption>");
	html_text(h, caption);
	html_raw(h, "</figcaption>\n"
		 "<svg class=\"hist%s\" data-hist=\"%s\" width=\"%u\" "
		 "height=\"%u\" viewBox=\"0 0 %u %u\" role=\"img\">\n",
		 after ? " after" : "", id, width, top + ph + bot, width,
		 top + ph + bot);
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
