/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where every unit of data goes: its AG first (one per fork,
 * plan_target.c), then a window (plan_take.c), near its inode when the
 * data joins the inode's AG; stream orders hand over to plan_stream.c.
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits_priv.h"
#include "ondisk/inode.h"

#include <stdlib.h>

/* Blocks an AG keeps for rebuilt btrees and bmap blocks, roughly. */
static uint64_t ag_reserve(const struct agplan *ap)
{
	uint64_t space = 0;
	size_t i;

	for (i = 0; i < ap->nseg; i++)
		space += ap->seg[i].end - ap->seg[i].start;
	return plan_agbt_estimate(ap->pl, ap) + ap->nmap / 64 + space / 256 + 64;
}

/*
 * Choose each fork's AG (plan_choose_target), then place every AG's
 * units in tree order, a fork's units side by side in the first window
 * that holds them all; what fits nowhere whole is split.
 */
int plan_place_all(struct planner *pl, struct agplan *aps)
{
	const struct od_geo *g = pl->g;
	uint64_t *room, *have, *debt, *rem = NULL;
	struct window_room *wr = NULL;
	struct unit_ref *all;
	size_t n = 0, i;
	uint32_t a;
	int ret = 0;

	for (a = 0; a < g->agcount; a++)
		n += aps[a].nunit;
	all = malloc((n ? n : 1) * sizeof(*all));
	room = calloc(g->agcount, sizeof(*room));
	have = calloc(g->agcount, sizeof(*have));
	debt = calloc(g->agcount, sizeof(*debt));
	if (!all || !room || !have || !debt) {
		free(all);
		free(room);
		free(have);
		free(debt);
		return -ENOMEM;
	}
	for (a = 0, n = 0; a < g->agcount; a++) {
		struct agplan *ap = &aps[a];
		uint64_t space = 0, used = 0, reserve = ag_reserve(ap);

		/*
		 * Inode order: the AG btrees go first, into the lowest hole
		 * that fits; a stream takes them after the data.
		 */
		ap->bt_len = pl->stream ? 0 : plan_agbt_estimate(pl, ap);
		if (ap->bt_len && !plan_seg_take(ap, ap->bt_len, &ap->bt_at))
			ap->bt_len = 0;	/* taken at the end instead */
		for (i = 0; i < ap->nseg; i++)
			space += ap->seg[i].end - ap->seg[i].cur;
		for (i = 0; i < ap->nunit; i++) {
			if (ap->pinned[i]) {
				/* stays: a piece onto itself */
				if (plan_add_piece(ap, &ap->unit[i], 0,
					      ap->unit[i].len,
					      ap->unit[i].start)) {
					free(all);
					free(room);
					free(have);
					free(debt);
					return -ENOMEM;
				}
				continue;
			}
			used += ap->unit[i].len;
			all[n].agno = a;
			all[n++].idx = (uint32_t)i;
		}
		used += plan_ino_blocks(pl, a);
		room[a] = space > used + reserve ? space - used - reserve : 0;
		/* a shrink's last AG may hold more than fits inside its end */
		if (pl->shr && !room[a] && used + reserve > space)
			debt[a] = used + reserve - space;
		if (!plan_lim_ag(pl, a))
			room[a] = 0;	/* left alone: nothing moves in */
	}
	ret = plan_sort_unit_refs(aps, all, n);
	if (ret)
		goto out;
	/* pass 1: choose target AGs; a move frees room where it came from */
	for (i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && plan_same_fork(aps, &all[i], &all[j]))
			j++;
		plan_choose_target(g, aps, all + i, j - i, room, have, debt);
		i = j;
	}
	if (pl->stream && plan_lim_near(pl)) {
		ret = plan_place_near(pl, aps, all, n);
		goto out;
	}
	if (pl->stream) {
		ret = plan_place_stream(pl, aps, all, n);
		goto out;
	}
	/* what each fork near its inode leaves to place after it, per AG */
	wr = calloc(g->agcount, sizeof(*wr));
	rem = malloc((n ? n : 1) * sizeof(*rem));
	if (!wr || !rem)
		ret = -ENOMEM;
	for (a = 0; a < g->agcount && !ret; a++)
		ret = plan_room_init(&wr[a], &aps[a]);
	for (i = n; i > 0 && !ret; i--) {
		const struct unit *un = &aps[all[i - 1].agno].unit[all[i - 1].idx];

		if (un->owner_ag == un->target)
			have[un->target] += un->len;
		rem[i - 1] = have[un->target];
	}
	/*
	 * pass 2: place, in order, in the target AG's windows.  The units
	 * of one fork go into one window together when one is big enough,
	 * so the file ends up in one extent.
	 */
	for (i = 0; i < n && !ret;) {
		struct agplan *src = &aps[all[i].agno];
		struct unit *un = &src->unit[all[i].idx];
		struct agplan *dst = &aps[un->target];
		uint64_t total;
		uint32_t at, hint;
		size_t j = plan_fork_run(aps, all, i, n, false, &total);

		/* near the inode when the data joins the inode's AG */
		hint = 0;
		if (un->owner_ag == un->target)
			hint = plan_room_anchor(&wr[un->target], od_agino_agbno(g,
					od_ino_agino(g, un->key << 6)), rem[i]);
		if (plan_seg_take_near(dst, (uint32_t)total, hint, &at)) {
			plan_room_take(&wr[un->target], at, (uint32_t)total);
			for (; i < j && !ret; i++) {
				struct agplan *s2 = &aps[all[i].agno];
				struct unit *u2 = &s2->unit[all[i].idx];

				ret = plan_add_piece(s2, u2, 0, u2->len, at);
				at += u2->len;
			}
			continue;
		}
		ret = plan_place_split(aps, all + i, j - i, dst,
				       &wr[un->target]);
		i = j;
	}
out:
	for (a = 0; wr && a < g->agcount; a++)
		plan_room_free(&wr[a]);
	free(wr);
	free(rem);
	free(all);
	free(room);
	free(have);
	free(debt);
	return ret;
}
