/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Limits on what a plan may touch: some AGs only, the files
 * under some directories only, the files with at least N extents only.
 *
 * An AG outside the set is left byte for byte as it is: no unit moves in
 * or out of it, no bmap btree block is freed or allocated there, its AG
 * btrees are not rebuilt (plan_ag.changed false).  So a file may move only
 * if its inode, every extent and every bmap btree block lie in the set.
 * A btree fork whose bmap blocks span both sides is rebuilt when an AG of
 * the set changes, which changes the AG outside too (no data moves there;
 * the plan says so in plan.ag_added).  Only AGs that change are rebuilt
 * (plan_ag.changed): those data moves out of or into, and those holding
 * bmap blocks of a fork that is rebuilt; any other AG stays as it is.
 *
 * Path, extent and focus limits are soft: a file outside them stays where it is
 * (an obstacle that placement fills around), unless it shares blocks with
 * a file that moves (reflink: the blocks move with all their owners);
 * those are the files "in the way" that the plan names (plan.inway).
 */
#ifndef CORE_PLAN_LIMITS_H
#define CORE_PLAN_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a full plan puts an inode's data (plan_limits.home). */
struct plan_home {
	uint64_t ino;
	uint32_t agno;
};

struct plan_limits {
	const bool *ags;	/* per AG (agcount): may change; NULL: all */
	const uint64_t *roots;	/* inode numbers: only what is under them */
	size_t nroots;		/* 0: every file */
	uint32_t min_extents;	/* data fork records; 0 or 1: no limit */
	/*
	 * A pass over some AGs (per AG, NULL: none): only files whose inode
	 * or some extent lies in them, a soft limit.  Each file still goes
	 * to the AG the planner gives it (its inode's, room permitting), so
	 * a pass over AG k gathers AG k's files from everywhere and sends
	 * the others in AG k home: AG k ends as a full plan lays it out.
	 */
	const bool *focus;
	/*
	 * With focus: the AG a full plan of the same model gives each
	 * inode's data (sorted by inode; NULL: its inode's AG).  A pass then
	 * takes the files a full plan puts in its AGs, plus those in its
	 * AGs that a full plan puts elsewhere, and sends each where the full
	 * plan does, so no file moves twice for want of room.
	 */
	const struct plan_home *home;
	size_t nhome;
	/*
	 * Per inode, in the model's order (AG by AG, as scanned; NULL:
	 * all): only the inodes marked may move, a soft limit like paths
	 * (the write budget's choice, plan_budget.c).
	 */
	const uint8_t *only;
};

/* Does l limit anything at all? */
bool plan_limits_any(const struct plan_limits *l);

#endif
