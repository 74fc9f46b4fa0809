/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG each fork's movable units go to, chosen fork by fork in
 * placement order before any block is placed.
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits_priv.h"
#include "core/base/sort.h"

#include <errno.h>
#include <stdlib.h>

/* A unit's placement order: key, key2, key3, then AG and start. */
static uint64_t unit_field(const void *e, unsigned f, const void *arg)
{
	const struct agplan *aps = arg;
	const struct unit_ref *r = e;
	const struct unit *u = &aps[r->agno].unit[r->idx];

	switch (f) {
	case 0:
		return u->key;
	case 1:
		return u->key2;
	case 2:
		return u->key3;
	default:
		return (uint64_t)r->agno << 32 | u->start;
	}
}

int plan_sort_unit_refs(const struct agplan *aps, struct unit_ref *all,
			size_t n)
{
	return sort_by_fields(all, n, sizeof(*all), 4, unit_field, aps);
}

/* Do two units (sorted by plan_sort_unit_refs) ask to be placed as one fork? */
bool plan_same_fork(const struct agplan *aps, const struct unit_ref *x,
		    const struct unit_ref *y)
{
	const struct unit *ux = &aps[x->agno].unit[x->idx];
	const struct unit *uy = &aps[y->agno].unit[y->idx];

	return ux->key == uy->key && ux->key2 == uy->key2;
}

/*
 * The end of the run of units from all[i] on that are its fork's and go
 * to its AG, UINT32_MAX blocks at most (a unit that would pass it starts
 * the next run); *total: their blocks, with unplaced only those that have
 * no piece yet.
 */
size_t plan_fork_run(const struct agplan *aps, const struct unit_ref *all,
		     size_t i, size_t n, bool unplaced, uint64_t *total)
{
	uint32_t t = aps[all[i].agno].unit[all[i].idx].target;
	uint64_t sum = 0;
	size_t j;

	for (j = i; j < n; j++) {
		const struct unit *v = &aps[all[j].agno].unit[all[j].idx];

		if (!plan_same_fork(aps, &all[i], &all[j]) || v->target != t ||
		    sum + v->len > UINT32_MAX)
			break;
		if (!unplaced || !v->npieces)
			sum += v->len;
	}
	*total = sum;
	return j;
}

/*
 * debt[a]: what AG a holds beyond its room (a shrink's last AG, cut
 * short): units leaving it pay that first, and none of its forks may
 * stay while it is owed.
 */
static void retarget(struct agplan *aps, const struct unit_ref *u, size_t nu,
		     uint32_t t, uint64_t *room, uint64_t *debt)
{
	size_t k;

	for (k = 0; k < nu; k++) {
		struct unit *un = &aps[u[k].agno].unit[u[k].idx];
		uint64_t pay;

		if (u[k].agno == t)
			continue;
		pay = debt[u[k].agno] < un->len ? debt[u[k].agno] : un->len;
		debt[u[k].agno] -= pay;
		room[t] -= un->len;
		room[u[k].agno] += un->len - pay;
		un->target = t;
	}
}

/*
 * The AG a fork's movable units go to (shared ones too: they are keyed to
 * their first owner and move with all owners), all of them together
 * so the file can end up in one extent: its inode's AG when that has
 * room, else the AG already holding most of it, else the next AG after
 * the inode's with room (as the kernel's allocator moves on); a fork
 * that fits whole nowhere keeps its units where they are, except those
 * its inode's AG can still take.  have[] is zero on entry and on return.
 * A shrink: never an AG past the new end nor one owed (debt, above);
 * what is left in one goes wherever it fits.
 */
void plan_choose_target(const struct od_geo *g, struct agplan *aps,
			const struct unit_ref *u, size_t nu, uint64_t *room,
			uint64_t *have, uint64_t *debt)
{
	const struct planner *pl = aps[0].pl;
	uint32_t owner = aps[u[0].agno].unit[u[0].idx].owner_ag, t = 0, a;
	uint64_t total = 0, best = 0;
	bool found = false, one_ag = true;
	size_t k;

	for (k = 0; k < nu; k++) {
		const struct unit *un = &aps[u[k].agno].unit[u[k].idx];

		total += un->len;
		have[u[k].agno] += un->len;
		if (u[k].agno != u[0].agno)
			one_ag = false;
	}
	if (!total)
		goto out;
	/* a pass goes where the full plan goes (plan_limits.h, home) */
	if (plan_lim_home(aps, u, &t) && t < g->agcount &&
	    room[t] >= total - have[t]) {
		found = true;
	} else if (owner < g->agcount && !plan_shrink_gone(pl, owner) &&
		   !debt[owner] && room[owner] >= total - have[owner]) {
		t = owner;
		found = true;
	} else if (one_ag && !plan_shrink_gone(pl, u[0].agno) &&
		   !debt[u[0].agno]) {
		goto out;	/* contiguous or not, it can stay in its AG */
	}
	for (k = 0; k < nu && !found; k++) {	/* the AG with most of it */
		a = u[k].agno;
		if (have[a] > best && room[a] >= total - have[a] &&
		    !plan_shrink_gone(pl, a) && !debt[a]) {
			best = have[a];
			t = a;
		}
	}
	found = found || best;
	for (k = 1; k <= g->agcount && !found && owner < g->agcount; k++) {
		a = (uint32_t)((owner + k) % g->agcount);
		if (room[a] >= total - have[a] && !plan_shrink_gone(pl, a) &&
		    !debt[a]) {
			t = a;
			found = true;
		}
	}
	if (found) {
		retarget(aps, u, nu, t, room, debt);
		goto out;
	}
	for (k = 0; k < nu && owner < g->agcount; k++) {
		struct unit *un = &aps[u[k].agno].unit[u[k].idx];

		if (u[k].agno == owner || room[owner] < un->len ||
		    plan_shrink_gone(pl, owner) || debt[owner])
			continue;
		retarget(aps, &u[k], 1, owner, room, debt);
	}
	/* a shrink: what is still in a gone AG, or one owed, goes wherever
	 * it fits */
	for (k = 0; k < nu && pl->shr; k++) {
		struct unit *un = &aps[u[k].agno].unit[u[k].idx];
		uint32_t b = g->agcount;

		if (!plan_shrink_gone(pl, un->target) && !debt[un->target])
			continue;
		for (a = 0; a < g->agcount; a++)
			if (!plan_shrink_gone(pl, a) && !debt[a] &&
			    room[a] >= un->len &&
			    (b == g->agcount || room[a] > room[b]))
				b = a;
		if (b < g->agcount)
			retarget(aps, &u[k], 1, b, room, debt);
	}
out:
	for (k = 0; k < nu; k++)
		have[u[k].agno] = 0;
}
