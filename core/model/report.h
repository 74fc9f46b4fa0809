/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Analyses over a scanned model: fragmentation (xfs_db frag's numbers and
 * figures a person can act on), free space (xfs_db freesp's histogram),
 * inode-to-data distance, directory locality, allocation order, and a
 * per-AG table.  Pure computation: the front ends format it.
 */
#ifndef CORE_REPORT_H
#define CORE_REPORT_H

#include <stdint.h>

#include "core/model/model.h"

#define RPT_EXT_BUCKETS	12	/* 1, 2, 3-4, 5-8, ... 1025+ extents */
#define RPT_MAX_BINS	40

struct rpt_freesp {
	uint32_t nbins;
	struct {
		uint32_t low, high;
		uint64_t count, blocks;
	} bin[RPT_MAX_BINS];
	uint64_t extents, blocks;
};

struct rpt_dist {
	uint64_t n;		/* files measured */
	uint64_t median, p90, p99, max;
	uint64_t cross_ag;	/* first data block in another AG */
};

struct rpt_item {
	uint64_t ino;
	uint64_t value;		/* what it is ranked by */
	uint64_t value2;	/* a second figure (see each list) */
	char *path;		/* filled by report_paths */
};

struct rpt_ag {
	uint32_t agno;
	uint32_t blocks;
	uint64_t inodes_used, inodes_free;
	uint64_t chunks;
	uint32_t chunk_lo, chunk_hi;	/* first and past-last chunk block */
	uint64_t data_blocks;	/* file and directory blocks that lie here */
	uint64_t free_blocks;	/* AGF freeblks */
	uint32_t longest;	/* longest free extent */
	uint64_t nfree;		/* free extents */
	uint64_t median_dist;	/* of files whose inode is here */
	uint64_t order_pairs, order_rising;
	const char *damage;	/* first damage message, NULL if none */
	uint32_t ndamaged;
};

struct report {
	int agsel;		/* -1: whole filesystem */
	unsigned top;
	/* xfs_db frag */
	uint64_t frag_actual, frag_ideal;
	/* files */
	uint64_t files, files_data, files_multi;
	uint64_t bytes, bytes_multi;
	uint64_t ext_hist[RPT_EXT_BUCKETS];
	uint64_t data_extents;	/* regular file data fork records */
	/* free space */
	struct rpt_freesp freesp;
	/* inode-to-data distance, in blocks */
	struct rpt_dist dist_first, dist_centre;
	/* directories */
	uint64_t dirs, dirs_multi_ag, dir_children;
	uint64_t dir_median_mean;	/* median of per-directory mean distance */
	/* allocation order over all AGs */
	uint64_t order_pairs, order_rising;
	/* per AG */
	struct rpt_ag *ag;
	uint32_t nag;
	/* the worst offenders */
	struct rpt_item *top_frag;	/* value: extents, value2: size */
	struct rpt_item *top_dist;	/* value: blocks to first data, value2: ag */
	struct rpt_item *top_dirs;	/* value: AGs spanned, value2: mean dist */
	unsigned ntop_frag, ntop_dist, ntop_dirs;
	/* damage */
	uint32_t damaged_ags;
	uint64_t damaged_items;
};

/* Compute the report for one AG (agsel >= 0) or all (-1). */
int report_build(const struct model *m, int agsel, unsigned top,
		 struct report *r, struct err *e);
/* Resolve the paths of every listed item (reads some directories). */
int report_paths(const struct model *m, struct report *r, struct err *e);
void report_free(struct report *r);

/* xfs_db freesp over one AG (agno >= 0) or all; AGFL slots count too. */
void report_freesp(const struct model *m, int agsel, struct rpt_freesp *f);

#endif
