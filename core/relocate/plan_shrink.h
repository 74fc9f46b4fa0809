/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shrinking an XFS filesystem offline: the planner pointed at a new end
 * (plan_opts.shrink_to).  Everything at or beyond the new end moves
 * inside it, AGs past the new last one are gone, and the geometry the run
 * leaves is in plan.shrink.  What a size must be, and the smallest size
 * the data fits in.
 */
#ifndef CORE_PLAN_SHRINK_H
#define CORE_PLAN_SHRINK_H

#include "core/relocate/plan.h"

/*
 * The smallest AG the geometry allows, in blocks: mkfs's minimum (16 MiB),
 * never more than the AG size.
 */
uint32_t plan_shrink_min_ag(const struct od_geo *g);

/*
 * The new AG count and last AG length of a filesystem of geometry g cut
 * to dblocks blocks; -EINVAL naming the reason when it cannot be (not
 * smaller, or a new last AG below plan_shrink_min_ag, with the nearest
 * sizes that work).
 */
int plan_shrink_geometry(const struct od_geo *g, uint64_t dblocks,
			 uint32_t *agcount, uint32_t *last_len, struct err *e);

/* The nearest size at or above dblocks whose last AG is not too small. */
uint64_t plan_shrink_round_up(const struct od_geo *g, uint64_t dblocks);

/*
 * A floor no shrink goes below: the blocks in use now (AG headers,
 * btrees, inode chunks, data) and the log.
 */
uint64_t plan_shrink_floor(const struct model *m);

/*
 * The smallest size the planner fits everything into (o->shrink_to is
 * ignored): a search over sizes between plan_shrink_floor and the
 * current size, each tried with a full plan.  The plan of that size is
 * left in p; -ENOSPC when no size below the current one fits.  *tries:
 * the plans built.
 */
int plan_shrink_min(const struct model *m, const struct plan_opts *o,
		    struct plan *p, unsigned *tries, struct err *e);

#endif
