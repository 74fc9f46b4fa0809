/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The block maps drawn: one SVG per AG, a path per class (each run of
 * equal cells in a row a box), then a transparent path per run of cells
 * held by the same thing, whose <title> is the tooltip naming it (the
 * file's path, or the structure), and an outline around the log.
 */
#include "html/priv.h"
#include "core/base/sort.h"
#include "core/model/model_paths.h"
#include "ondisk/geo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool names_file(const struct html_holder *hd)
{
	return hd->kind == HH_DATA || hd->kind == HH_ATTR ||
	       hd->kind == HH_BMBT;
}

static int names_collect(const struct html_map *maps, uint32_t n,
			 uint64_t **v, size_t *nv, size_t *cap)
{
	uint32_t a, i;

	for (a = 0; maps && a < n; a++)
		for (i = 0; maps[a].hold && i < maps[a].ncells; i++) {
			if (!names_file(&maps[a].hold[i]))
				continue;
			if (*nv == *cap) {
				size_t nc = *cap ? *cap * 2 : 256;
				uint64_t *nb = realloc(*v, nc * sizeof(*nb));

				if (!nb)
					return -ENOMEM;
				*v = nb;
				*cap = nc;
			}
			(*v)[(*nv)++] = maps[a].hold[i].id;
		}
	return 0;
}

int html_names_get(const struct model *m, const struct html_map *now,
		   const struct html_map *after, uint32_t n,
		   struct html_names *nm, struct err *e)
{
	size_t nv = 0, cap = 0, i, j = 0;
	uint64_t *v = NULL;
	int ret;

	memset(nm, 0, sizeof(*nm));
	if (names_collect(now, n, &v, &nv, &cap) ||
	    names_collect(after, n, &v, &nv, &cap) || sort_u64(v, nv)) {
		free(v);
		return err_set(e, -ENOMEM, "HTML block maps: out of memory");
	}
	for (i = 0; i < nv; i++)
		if (!j || v[j - 1] != v[i])
			v[j++] = v[i];
	nm->ino = v;
	nm->n = j;
	if (!j)
		return 0;
	nm->path = calloc(j, sizeof(*nm->path));
	if (!nm->path) {
		html_names_free(nm);
		return err_set(e, -ENOMEM, "HTML block maps: out of memory");
	}
	ret = model_paths(m, v, j, nm->path, e);
	if (ret)
		html_names_free(nm);
	return ret;
}

void html_names_free(struct html_names *nm)
{
	size_t i;

	for (i = 0; nm->path && i < nm->n; i++)
		free(nm->path[i]);
	free(nm->path);
	free(nm->ino);
	memset(nm, 0, sizeof(*nm));
}

static const char *names_find(const struct html_names *nm, uint64_t ino)
{
	size_t lo = 0, hi = nm ? nm->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nm->ino[mid] < ino)
			lo = mid + 1;
		else if (nm->ino[mid] > ino)
			hi = mid;
		else
			return nm->path ? nm->path[mid] : NULL;
	}
	return NULL;
}

static const char *btree_name(unsigned kind)
{
	switch (kind) {
	case MM_BNOBT:	return "free space btree (by block: bnobt)";
	case MM_CNTBT:	return "free space btree (by size: cntbt)";
	case MM_INOBT:	return "inode btree (inobt)";
	case MM_FINOBT:	return "free inode btree (finobt)";
	case MM_RMAPBT:	return "reverse mapping btree (rmapbt)";
	case MM_REFCBT:	return "reference count btree (refcountbt)";
	default:	return "AG metadata";
	}
}

/* What holds a cell, as its tooltip names it. */
static void hold_text(const struct html_holder *hd, uint32_t nhold,
		      const struct html_names *nm, char *buf, size_t len)
{
	static const char *const sub[] = { "file data", "directory blocks",
					   "symlink target" };
	const char *path = names_file(hd) ? names_find(nm, hd->id) : NULL;
	char ino[48];
	int n = 0;

	snprintf(ino, sizeof(ino), "(inode %llu)", (unsigned long long)hd->id);
	switch (hd->kind) {
	case HH_FREE:
		n = snprintf(buf, len, "free space");
		break;
	case HH_AGFL:
		n = snprintf(buf, len, "free list (AGFL) blocks: free space "
			     "kept for the btrees");
		break;
	case HH_HDR:
		n = snprintf(buf, len, "AG headers (superblock, AGF, AGI, "
			     "AGFL)");
		break;
	case HH_BTREE:
		n = snprintf(buf, len, "%s blocks", btree_name(hd->sub));
		break;
	case HH_REBUILT:
		n = snprintf(buf, len, "the AG's btrees, rebuilt here by the "
			     "run");
		break;
	case HH_LOG:
		n = snprintf(buf, len, "the log");
		break;
	case HH_CHUNK:
		n = snprintf(buf, len, "inode chunk: inodes %llu-%llu",
			     (unsigned long long)hd->id,
			     (unsigned long long)hd->id + 63);
		break;
	case HH_DATA:
		n = snprintf(buf, len, "%s (%s)", path ? path : ino,
			     sub[hd->sub < 3 ? hd->sub : 0]);
		break;
	case HH_ATTR:
		n = snprintf(buf, len, "%s (extended attributes)",
			     path ? path : ino);
		break;
	case HH_BMBT:
		n = snprintf(buf, len, "%s (extent tree block)",
			     path ? path : ino);
		break;
	case HH_GONE:
		n = snprintf(buf, len, "past the new end: the shrink cuts it "
			     "off");
		break;
	default:
		n = snprintf(buf, len, "in use, by nothing the scan knows");
		break;
	}
	if (n < 0 || (size_t)n >= len)
		n = (int)len - 1;
	if (nhold > 1)
		snprintf(buf + n, len - (size_t)n, "; and %u other%s in the "
			 "cell", nhold - 1, nhold > 2 ? "s" : "");
}

/*
 * The outline of cells [s, e] (row-major, HTML_MAP_COLS a row) as one
 * closed path: the row of s from its column on, the rows between whole,
 * the row of e up to its column.
 */
static void run_outline(struct html *h, uint32_t s, uint32_t e)
{
	const uint32_t W = HTML_MAP_COLS;
	uint32_t rs = s / W, xs = s % W, re = e / W, xe = e % W + 1;

	if (rs == re) {
		html_raw(h, "M%u %uH%uV%uH%uZ", xs, rs, xe, rs + 1, xs);
		return;
	}
	html_raw(h, "M%u %uH%uV%uH%uV%uH0V%uH%uZ", xs, rs, W, re, xe, re + 1,
		 rs + 1, xs);
}

/* The boxes of cells [i, j) row by row: what a tooltip covers. */
static void run_boxes(struct html *h, uint32_t i, uint32_t j)
{
	while (i < j) {
		uint32_t end = (i / HTML_MAP_COLS + 1) * HTML_MAP_COLS;

		if (end > j)
			end = j;
		html_raw(h, "M%u %uh%uv1h-%uz", i % HTML_MAP_COLS,
			 i / HTML_MAP_COLS, end - i, end - i);
		i = end;
	}
}

/* Cells of the same holder in a row share one tooltip. */
static void tooltips(struct html *h, const struct html_map *m,
		     const struct html_names *nm)
{
	char cur[1024], next[1024];
	uint64_t last = m->agblocks;
	uint32_t i = 0, j;

	if (!m->hold)
		return;
	html_raw(h, "<g class=\"tips\">\n");
	while (i < m->ncells) {
		uint64_t b0 = (uint64_t)i * m->bpc, b1;

		hold_text(&m->hold[i], m->nhold ? m->nhold[i] : 1, nm, cur,
			  sizeof(cur));
		for (j = i + 1; j < m->ncells; j++) {
			hold_text(&m->hold[j], m->nhold ? m->nhold[j] : 1, nm,
				  next, sizeof(next));
			if (strcmp(cur, next))
				break;
		}
		b1 = (uint64_t)j * m->bpc;
		if (b1 > last)
			b1 = last;
		html_raw(h, "<path class=\"tip\" data-cells=\"%u-%u\" d=\"", i,
			 j - 1);
		run_boxes(h, i, j);
		html_raw(h, "\"><title>AG %u, blocks %llu-%llu: ", m->agno,
			 (unsigned long long)b0, (unsigned long long)b1 - 1);
		html_text(h, cur);
		html_raw(h, "</title></path>\n");
		i = j;
	}
	html_raw(h, "</g>\n");
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
	html_raw(h, "<span class=\"sw slog\"></span>the log (outlined)"
		 "<br>Each cell is drawn as what holds most of its blocks; "
		 "its tooltip names that holder: a file's path, or the "
		 "structure.</p>\n");
}

void html_map_svg(struct html *h, const struct html_map *m, const char *when,
		  const struct html_names *nm, uint32_t blocksize)
{
	uint32_t rows = (m->ncells + HTML_MAP_COLS - 1) / HTML_MAP_COLS;
	const unsigned px = 4;
	char sz[32];
	unsigned c;

	html_raw(h, "<figure class=\"agmap\" data-ag=\"%u\" data-when=\"%s\">"
		 "<figcaption>AG %u, %s (a cell is %llu blocks, %s)",
		 m->agno, when, m->agno, when, (unsigned long long)m->bpc,
		 html_bytes(m->bpc * blocksize, sz, sizeof(sz)));
	if (m->log_len)
		html_raw(h, "; <span class=\"logname\" data-log=\"%u-%u\">the "
			 "log: blocks %u-%u (%s), outlined</span>",
			 m->log_start, m->log_start + m->log_len - 1,
			 m->log_start, m->log_start + m->log_len - 1,
			 html_bytes((uint64_t)m->log_len * blocksize, sz,
				    sizeof(sz)));
	html_raw(h, "</figcaption>\n"
		 "<svg class=\"agmap\" data-ag=\"%u\" data-when=\"%s\" "
		 "data-cells=\"%u\" data-bpc=\"%llu\" width=\"%u\" "
		 "height=\"%u\" viewBox=\"0 0 %u %u\" "
		 "preserveAspectRatio=\"none\" shape-rendering=\"crispEdges\" "
		 "role=\"img\"><title>AG %u %s</title>\n",
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
	if (m->log_len && m->log_start / m->bpc < m->ncells) {
		uint64_t e = (m->log_start + (uint64_t)m->log_len - 1) / m->bpc;

		html_raw(h, "<path class=\"log\" d=\"");
		run_outline(h, (uint32_t)(m->log_start / m->bpc),
			    (uint32_t)(e < m->ncells ? e : m->ncells - 1));
		html_raw(h, "\"/>\n");
	}
	tooltips(h, m, nm);
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
