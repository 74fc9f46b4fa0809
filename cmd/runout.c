/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run's figures before and after, as text (cmd/runout.h). */
#include "cmd/rbfmt.h"
#include "cmd/runout.h"
#include "core/model/frag.h"

#include <stdio.h>

void run_print_figures(const struct report *b, const struct report *a,
			  const struct rb_fig *rb, const struct rb_fig *ra,
			  enum walk_order o)
{
	uint32_t g;

	printf("%-34s %14s %14s\n", "", "before", "after");
	printf("%-34s %13.2f%% %13.2f%%\n",
	       "fragmentation factor (xfs_db frag)",
	       frag_factor(b->frag_actual, b->frag_ideal),
	       frag_factor(a->frag_actual, a->frag_ideal));
	printf("%-34s %14llu %14llu\n", "extent records",
	       (unsigned long long)b->frag_actual,
	       (unsigned long long)a->frag_actual);
	printf("%-34s %14llu %14llu\n", "files in more than one extent",
	       (unsigned long long)b->files_multi,
	       (unsigned long long)a->files_multi);
	printf("%-34s %14llu %14llu\n", "inode-to-data distance, median",
	       (unsigned long long)b->dist_first.median,
	       (unsigned long long)a->dist_first.median);
	printf("%-34s %14llu %14llu\n", "inode-to-data distance, p90",
	       (unsigned long long)b->dist_first.p90,
	       (unsigned long long)a->dist_first.p90);
	rbfmt_rows(rb, ra, o);
	for (g = 0; g < b->nag && g < a->nag; g++)
		printf("AG %-3u longest free extent %7s %13.1f%% %13.1f%%\n", g,
		       "(share)",
		       b->ag[g].free_blocks ? (double)b->ag[g].longest * 100.0 /
		       (double)b->ag[g].free_blocks : 0.0,
		       a->ag[g].free_blocks ? (double)a->ag[g].longest * 100.0 /
		       (double)a->ag[g].free_blocks : 0.0);
}
