/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per AG: the room the rebuilt AG btrees need, whether the AG's free space
 * ended in one piece, and an AG plan's memory (plan_priv.h).
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits_priv.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/relocate/btbuild.h"
#include "core/fs/fork.h"
#include "ondisk/inode.h"
#include <stdlib.h>
#include <string.h>

/* Enough blocks for every AG btree rebuilt from the final records. */
uint32_t plan_agbt_estimate(const struct planner *pl,
			      const struct agplan *ap)
{
	const struct od_geo *g = pl->g;
	const struct m_ag *ag = &pl->m->ag[ap->agno];
	size_t nfree = 0, nfino = 0, i, shared = 0;
	uint32_t n;

	for (i = 0; i < ap->nseg; i++)
		if (ap->seg[i].cur < ap->seg[i].end)
			nfree++;
	for (i = 0; i < ag->nchunk; i++)
		if (ag->chunk[i].freecount)
			nfino++;
	for (i = 0; i < ap->nunit; i++)
		if (ap->unit[i].shared)
			shared++;
	/* a few spare free-extent records: the run itself may split one */
	n = 2 * btbuild_nblocks(g, OD_BT_BNO, nfree + 4, 0);
	n += btbuild_nblocks(g, OD_BT_INO, ag->nchunk, 0);
	if (g->finobt)
		n += btbuild_nblocks(g, OD_BT_FINO, nfino, 0);
	if (g->rmapbt)
		n += btbuild_nblocks(g, OD_BT_RMAP, ap->nmap + ag->nchunk * 2 +
				     ag->nagfl + ap->nmap / 4 + 16 +
				     (pl->maps_in ? pl->maps_in[ap->agno] : 0),
				     0);
	if (g->reflink)
		n += btbuild_nblocks(g, OD_BT_REFC, 4 * shared + 4, 0);
	return n + 2 + plan_ino_agbt_extra(pl, ap->agno);
}

void plan_agplan_free(struct agplan *ap)
{
	bigmem_free(ap->map, ap->cap_map, sizeof(*ap->map));
	bigmem_free(ap->unit, ap->nmap ? ap->nmap : 1, sizeof(*ap->unit));
	bigmem_free(ap->piece, ap->cap_piece, sizeof(*ap->piece));
	bigmem_free(ap->obst, ap->cap_obst, sizeof(*ap->obst));
	free(ap->seg);
	free(ap->pinned);
	free(ap->hole);
	memset(ap, 0, sizeof(*ap));
}

/* Does the AG keep at least 90% of its free space in one extent? */
bool plan_consolidated(const struct agplan *ap)
{
	uint64_t total = 0, longest = 0;
	size_t i;

	for (i = 0; i < ap->nseg; i++) {
		uint64_t n = ap->seg[i].end - ap->seg[i].cur;

		total += n;
		if (n > longest)
			longest = n;
	}
	for (i = 0; i < ap->nhole; i++)
		total += ap->hole[i].len;
	return longest * 10 >= total * 9;
}
