/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML report (report --html, plan --html): one self-contained file,
 * no scripts, no fetches (a Content-Security-Policy says so to the
 * browser), inline CSS and SVG only.  A front end beside cmd/ and tui/:
 * it reads the model, the report, the plan and its verdict, and writes
 * nothing but the HTML file; cmd/report.c and cmd/plan.c call it.
 *
 * The page tells the story first: the verdict (is a run worth it, what
 * each reader gains, what it writes and takes), the figures before and
 * after in human units, the block maps of every AG (now, and after the
 * plan), the histograms now and after, why the inode chunks sit where
 * they do; the raw figures last, keyed by their JSON names for tests.
 */
#ifndef HTML_HTML_H
#define HTML_HTML_H

#include <stdbool.h>

#include "core/base/err.h"
#include "core/model/report.h"
#include "core/relocate/plan.h"
#include "core/relocate/verdict.h"

/* What the document shows. */
struct html_input {
	const char *command;		/* "report" or "plan": the title */
	const char *image;
	struct fs *fs;
	const struct model *m;
	const struct report *r;		/* today's figures, top lists, paths */
	/*
	 * The plan a run would follow (NULL: none: the figures now only).
	 * Keyed in the document under "plan." (plan --json's names).
	 */
	const struct plan *p;
	const struct rb_fig *rb;	/* read-back cost now without a plan */
	enum walk_order order;		/* ... for a reader in this order */
	const struct verdict *v;	/* NULL: no verdict, see no_verdict */
	const char *no_verdict;		/* why there is none (a phrase) */
	/* the JSON name of the verdict object: "verdict", "plan.verdict" */
	const char *verdict_key;
	char *const *note_paths;	/* paths of p->note[] (NULL: unknown) */
	const char *refusal;		/* why run would refuse to write it */
};

/*
 * Write the document to path ("-": standard output).  Refuses to write
 * over the image itself or a device.  0 or -errno with a message.
 */
int html_write(const char *path, const struct html_input *in,
	       struct err *e);

#endif
