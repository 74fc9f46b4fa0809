/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Placement for a plan that moves a few chosen files among many that
 * stay (the write budget, plan_limits.only): each goes into the free
 * window nearest after the data the walk reads just before it, so that
 * read runs on into it instead of jumping to wherever a stream would
 * have put it.  Data the walk reads before it that stays is where it is;
 * data that moves is where this placement put it.
 */
#include "core/relocate/plan_priv.h"
#include "ondisk/inode.h"

#define NOEND	UINT64_MAX

/* Where the data the walk reads for inode d ends now (NOEND: none). */
static uint64_t end_now(const struct planner *pl, uint32_t d)
{
	const struct m_ino *mi = pl->ref[d].mi;
	const struct m_ag *ag = plan_ref_ag(pl, d);
	uint64_t end = NOEND;
	uint32_t k;

	if ((!od_mode_isdir(mi->mode) && !od_mode_isreg(mi->mode)) ||
	    (mi->flags & MI_REALTIME))
		return NOEND;
	for (k = 0; k < mi->nde; k++) {
		struct od_irec r;

		m_ext_get(&ag->ext[mi->ext + k], &r);
		if (!r.unwritten && od_fsb_agno(pl->g, r.startblock) <
		    pl->g->agcount)
			end = od_fsb_lin(pl->g, r.startblock) + r.blockcount;
	}
	return end;
}

/*
 * The units all[i, j) of one fork into dst, side by side near block
 * hint (*at: where they start), or split over the largest windows
 * (*at: NOAGBNO).
 */
static int place_one(struct agplan *aps, const struct unit_ref *all, size_t i,
		     size_t j, uint64_t total, struct agplan *dst,
		     uint32_t hint, uint32_t *at)
{
	uint32_t pos;
	size_t k;
	int ret = 0;

	*at = NOAGBNO;
	if (!plan_seg_take_near(dst, (uint32_t)total, hint, &pos))
		return plan_place_split(aps, all + i, j - i, dst, NULL);
	*at = pos;
	for (k = i; k < j && !ret; k++) {
		struct agplan *s = &aps[all[k].agno];
		struct unit *un = &s->unit[all[k].idx];

		ret = plan_add_piece(s, un, 0, un->len, pos);
		pos += un->len;
	}
	return ret;
}

int plan_place_near(struct planner *pl, struct agplan *aps,
		    const struct unit_ref *all, size_t n)
{
	const struct od_geo *g = pl->g;
	const struct walk *w = &pl->walk;
	uint64_t prev = NOEND;	/* where the last data read ends */
	size_t i = 0, k = 0;
	int ret = 0;

	/* walk position by walk position; all[] is in that order too */
	while (i < n && !ret) {
		const struct unit *un = &aps[all[i].agno].unit[all[i].idx];
		uint64_t order = un->key2 >> 1, total;
		uint32_t d = NOSLOT, t = un->target, hint = 0, at;
		size_t j = plan_fork_run(aps, all, i, n, false, &total);

		/* the inodes before it in the walk stay: their data ends */
		for (; k < w->nreached && order && k + 1 < order; k++) {
			uint64_t e = end_now(pl, w->seq[k]);

			if (e != NOEND)
				prev = e;
		}
		if (order && k + 1 == order)
			d = w->seq[k];
		if (prev != NOEND && prev / g->agblocks == t)
			hint = (uint32_t)(prev % g->agblocks);
		else if (d != NOSLOT &&
			 od_ino_agno(g, pl->ref[d].mi->ino) == t)
			hint = od_agino_agbno(g, od_ino_agino(g,
						pl->ref[d].mi->ino));
		ret = place_one(aps, all, i, j, total, &aps[t], hint, &at);
		/* its data fork read: the walk reads on from its end */
		if (!ret && at != NOAGBNO && d != NOSLOT && !(un->key2 & 1) &&
		    end_now(pl, d) != NOEND)
			prev = od_agb_lin(g, t, at) + total;
		/* the inode's other fork, or the next inode */
		if (d != NOSLOT && (j >= n ||
		    aps[all[j].agno].unit[all[j].idx].key2 >> 1 != order))
			k++;
		i = j;
	}
	return ret;
}
