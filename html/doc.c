/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML report's document, in the order a reader wants it: the
 * verdict, the figures before and after, the block maps (now, and after
 * a plan), the histograms, why the inode chunks sit where they do, and
 * the raw figures last.
 */
#include "html/priv.h"
#include "core/base/outfile.h"
#include "ondisk/geo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The maps of the shown AGs, now and after the plan, and their names. */
struct maps {
	struct html_map *now, *after;
	struct html_names names;
	uint32_t n;
};

static void maps_free(struct maps *mp)
{
	htmlmap_free(mp->now, mp->n);
	htmlmap_free(mp->after, mp->n);
	html_names_free(&mp->names);
}

static int maps_build(const struct html_input *in, struct maps *mp,
		      struct err *e)
{
	uint32_t a, n = in->m->agcount, shown = 0;
	bool *show = calloc(n ? n : 1, sizeof(*show));
	uint64_t bpc;
	int ret = 0;

	memset(mp, 0, sizeof(*mp));
	mp->n = n;
	for (a = 0; show && a < n; a++) {
		show[a] = html_ag_shown(in->r, a);
		shown += show[a];
	}
	bpc = htmlmap_bpc(in->fs->geo.agblocks, (uint64_t)shown *
			  (in->p ? 2 : 1));
	mp->now = calloc(n ? n : 1, sizeof(*mp->now));
	mp->after = in->p ? calloc(n ? n : 1, sizeof(*mp->after)) : NULL;
	if (!show || !mp->now || (in->p && !mp->after) ||
	    htmlmap_build(in->m, NULL, bpc, show, mp->now) ||
	    (in->p && htmlmap_build(in->m, in->p, bpc, show, mp->after)))
		ret = err_set(e, -ENOMEM, "HTML block maps: out of memory");
	else
		ret = html_names_get(in->m, mp->now, mp->after, n, &mp->names,
				     e);
	free(show);
	if (ret)
		maps_free(mp);
	return ret;
}

/* Where the log is: in an AG (outlined on its maps), or elsewhere. */
static void log_note(struct html *h, const struct html_input *in)
{
	const struct model *m = in->m;
	char sz[32];
	uint32_t a;

	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		if (!ag->log_blocks)
			continue;
		html_raw(h, "<p class=\"lognote\">The log is in AG %u, blocks "
			 "%u-%u (%s), outlined on its maps%s.", a,
			 ag->log_agbno, ag->log_agbno + ag->log_blocks - 1,
			 html_bytes((uint64_t)ag->log_blocks *
				    in->fs->geo.blocksize, sz, sizeof(sz)),
			 html_ag_shown(in->r, a) ? "" : " (not shown here)");
		if (in->p && in->p->shrink.logstart) {
			uint64_t ls = in->p->shrink.logstart;
			uint32_t b = od_fsb_agbno(&in->fs->geo, ls);

			html_raw(h, "  The shrink moves it to AG %u, blocks "
				 "%u-%u.", od_fsb_agno(&in->fs->geo, ls), b,
				 b + in->fs->sb.logblocks - 1);
		}
		html_raw(h, "</p>\n");
		return;
	}
	if (in->fs->sb.logstart == 0)
		html_raw(h, "<p class=\"lognote\">The log is on an external "
			 "device: no AG holds it.</p>\n");
}

static void maps(struct html *h, const struct html_input *in,
		 const struct maps *mp)
{
	uint32_t a, bs = in->fs->geo.blocksize;

	html_section(h, "maps", in->p ? "Block maps per AG: now and after a "
		     "run" : "Block maps per AG");
	log_note(h, in);
	html_map_legend(h);
	for (a = 0; a < mp->n; a++) {
		if (!html_ag_shown(in->r, a))
			continue;
		html_raw(h, "<div class=\"agrow\">\n");
		html_map_svg(h, &mp->now[a], "now", &mp->names, bs);
		if (mp->after)
			html_map_svg(h, &mp->after[a], "after", &mp->names, bs);
		html_raw(h, "</div>\n");
	}
	html_section_end(h);
}

static int doc_open(const char *path, const struct html_input *in,
		    struct html *h, struct err *e)
{
	/* never over the image, by any path to it (outfile.h) */
	struct outfile_set keep;
	bool created;
	int fd, ret;

	if (strcmp(path, "-") == 0) {
		h->f = stdout;
		return 0;
	}
	outfile_init(&keep);
	ret = outfile_keep_image(&keep, in->image, e);
	if (!ret)
		ret = outfile_open(&keep, path, "HTML report", false, &fd,
				   &created, e);
	outfile_release(&keep);
	if (ret)
		return ret;
	h->f = fdopen(fd, "w");
	if (!h->f) {
		close(fd);
		return err_set(e, -ENOMEM, "out of memory");
	}
	return 0;
}

int html_write(const char *path, const struct html_input *in, struct err *e)
{
	bool to_stdout = strcmp(path, "-") == 0;
	char title[32];
	struct maps mp;
	struct html h;
	int ret;

	/* everything that can fail before the first byte */
	ret = maps_build(in, &mp, e);
	if (ret)
		return ret;
	ret = doc_open(path, in, &h, e);
	if (ret) {
		maps_free(&mp);
		return ret;
	}
	snprintf(title, sizeof(title), "xfsdefrag %s", in->command);
	html_head(&h, title, in->image);
	html_verdict(&h, in);
	html_story(&h, in);
	maps(&h, in, &mp);
	maps_free(&mp);
	ret = html_histograms(&h, in, e);
	if (!ret) {
		html_inode_legend(&h, in);
		html_raw_figures(&h, in);
		html_tail(&h);
	}
	if (to_stdout) {
		if (!ret && fflush(stdout) != 0)
			ret = err_set(e, -errno, "writing the HTML report: %s",
				      strerror(errno));
		return ret;
	}
	if (ferror(h.f) && !ret)
		ret = err_set(e, -EIO, "%s: write error", path);
	if (fclose(h.f) != 0 && !ret)
		ret = err_set(e, -errno, "%s: %s", path, strerror(errno));
	return ret;
}
