/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits_priv.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/model/frag.h"

#include <stdlib.h>
#include <string.h>

/* The walk's order: ref[d].order is dense inode d's place in it, from 1. */
static int walk_order(struct planner *pl, enum walk_order o)
{
	size_t k;
	int ret = walk_build(pl->m, o, &pl->walk, pl->e);

	if (ret)
		return ret;
	for (k = 0; k < pl->walk.n; k++)
		pl->ref[pl->walk.seq[k]].order = k + 1;
	return 0;
}

/* Blocks for each changed fork's bmap btree, in the AG of its data. */
static int reserve_bmbt(struct planner *pl, struct agplan *aps)
{
	const struct od_geo *g = pl->g;
	struct plan *p = pl->p;
	size_t i;

	for (i = 0; i < p->npf; i++) {
		struct plan_fork *pf = &p->pf[i];
		uint32_t agno, at, k, got = 0, tries;

		if (!pf->nbmbt)
			continue;
		pf->bmbt = malloc(pf->nbmbt * sizeof(*pf->bmbt));
		if (!pf->bmbt)
			return -ENOMEM;
		agno = od_fsb_agno(g, pf->recs[0].startblock);
		/* contiguous if possible, else wherever there is room */
		for (tries = 0; tries < g->agcount && got < pf->nbmbt; tries++) {
			struct agplan *ap = &aps[(agno + tries) % g->agcount];

			if (!plan_lim_rebuild(pl, ap->agno))
				continue;
			if (!got && plan_seg_take(ap, pf->nbmbt, &at)) {
				for (k = 0; k < pf->nbmbt; k++)
					pf->bmbt[k] = od_agb_fsb(g, ap->agno,
								 at + k);
				got = pf->nbmbt;
				break;
			}
			while (got < pf->nbmbt) {
				uint32_t n = plan_seg_take_some(ap, pf->nbmbt - got,
							   &at);

				if (!n)
					break;
				for (k = 0; k < n; k++)
					pf->bmbt[got++] = od_agb_fsb(g, ap->agno,
								     at + k);
			}
		}
		if (got < pf->nbmbt)
			return -ENOSPC;
	}
	return 0;
}

static int cmp_u32pair(const void *a, const void *b)
{
	const struct m_free *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

/* Blocks of the AG's units that land somewhere else. */
static uint64_t ag_moved(const struct agplan *ap)
{
	uint64_t n = 0;
	size_t i;
	uint32_t k;

	for (i = 0; i < ap->nunit; i++) {
		const struct unit *un = &ap->unit[i];

		for (k = 0; k < un->npieces; k++)
			if (un->target != ap->agno ||
			    ap->piece[un->piece0 + k].dst !=
			    un->start + ap->piece[un->piece0 + k].off)
				n += ap->piece[un->piece0 + k].len;
	}
	return n;
}

static int finish_ag(struct planner *pl, struct agplan *ap)
{
	const struct m_ag *ag = &pl->m->ag[ap->agno];
	struct plan_ag *pa = &pl->p->ag[ap->agno];
	size_t i, n = 0;
	uint32_t at;

	pa->agno = ap->agno;
	pa->changed = true;
	if (ap->bt_len) {
		pa->bt_len = ap->bt_len;
		pa->bt_start = ap->bt_at;
	} else {
		pa->bt_len = plan_agbt_estimate(pl, ap);
		if (!plan_seg_take(ap, pa->bt_len, &at))
			return -ENOSPC;
		pa->bt_start = at;
	}
	pa->freesp = malloc((ap->nseg + ap->nhole + 1) * sizeof(*pa->freesp));
	if (!pa->freesp)
		return -ENOMEM;
	for (i = 0; i < ap->nseg; i++) {
		if (ap->seg[i].cur == ap->seg[i].end)
			continue;
		pa->freesp[n].agbno = ap->seg[i].cur;
		pa->freesp[n].len = ap->seg[i].end - ap->seg[i].cur;
		n++;
	}
	for (i = 0; i < ap->nhole; i++)
		pa->freesp[n++] = ap->hole[i];
	sort_any(pa->freesp, n, sizeof(*pa->freesp), cmp_u32pair);
	/* a hole the stream stepped over may touch a window's rest */
	for (i = 1, at = 0; i < n; i++) {
		if (pa->freesp[at].agbno + pa->freesp[at].len ==
		    pa->freesp[i].agbno)
			pa->freesp[at].len += pa->freesp[i].len;
		else
			pa->freesp[++at] = pa->freesp[i];
	}
	if (n)
		n = at + 1;
	pa->nfreesp = n;
	pa->nfree_after = n;
	for (i = 0; i < n; i++) {
		pa->free_after += pa->freesp[i].len;
		if (pa->freesp[i].len > pa->longest_after)
			pa->longest_after = pa->freesp[i].len;
	}
	/* the btree run's unused tail will rejoin free space: count it */
	pa->free_before = ag->have_agf ? ag->agf.freeblks : 0;
	for (i = 0; i < ag->nfree; i++)
		if (ag->freesp[i].len > pa->longest_before)
			pa->longest_before = ag->freesp[i].len;
	pa->moved_blocks = ag_moved(ap);
	return 0;
}

const struct plan_fork *plan_fork_find(const struct plan *p, uint64_t ino,
				       int fork)
{
	size_t lo = 0, hi = p->npf;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct plan_fork *f = &p->pf[mid];

		if (f->ino < ino || (f->ino == ino && f->whichfork < fork))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->npf && p->pf[lo].ino == ino &&
	    p->pf[lo].whichfork == fork)
		return &p->pf[lo];
	return NULL;
}


/* Windows, units and placement of every AG (two passes, see below). */
static int place(struct planner *pl, struct agplan *aps, bool *compact)
{
	const struct model *m = pl->m;
	uint32_t a;
	int pass, ret = 0;

	memset(compact, 0, m->agcount * sizeof(*compact));
	/*
	 * Pass 1 pins what is already contiguous and fills only the holes;
	 * an AG that would still keep less than 90% of its free space in one
	 * extent is compacted whole in pass 2.
	 */
	for (pass = 0; pass < 2 && !ret; pass++) {
		bool again = false;

		for (a = 0; a < m->agcount && !ret; a++) {
			struct agplan *ap = &aps[a];

			plan_agplan_free(ap);
			ap->pl = pl;
			ap->agno = a;
			ap->agblocks = plan_ag_len(pl, a);
			ap->compact = compact[a];
			ret = plan_gather_obstacles(ap);
			if (!ret)
				ret = plan_gather_maps(ap);
			if (!ret)
				ret = plan_build_units(ap);
			if (!ret)
				ret = plan_pin_units(ap);
			if (!ret)
				ret = plan_build_segments(ap);
		}
		if (pl->ip)
			for (a = 0; a < m->agcount; a++)
				pl->ip->npad[a] = 0;
		if (!ret)
			ret = plan_place_all(pl, aps);
		for (a = 0; a < m->agcount && !ret && pass == 0; a++)
			if (!plan_consolidated(&aps[a]) && plan_lim_ag(pl, a)) {
				compact[a] = true;
				again = true;
			}
		if (!again)
			break;
	}
	return ret;
}

#define INO_ATTEMPTS	6	/* placements tried, each with fewer movers */

/*
 * Renumbering: choose the movers, place, and when some new chunk found
 * no room, again without (or nearer to) those; in the end without any.
 */
static int place_renumbered(struct planner *pl, struct agplan *aps,
			    bool *compact, enum plan_renumber mode,
			    bool inode32)
{
	uint8_t *nomove = calloc(pl->nref ? pl->nref : 1, 1);
	int ret = nomove ? 0 : -ENOMEM, k;

	for (k = 0; k <= INO_ATTEMPTS && !ret; k++) {
		plan_ino_free(pl->ip);
		pl->ip = NULL;
		if (k == INO_ATTEMPTS)
			break;		/* inodes stay */
		ret = plan_ino_choose(pl, mode, inode32, nomove);
		if (!ret)
			ret = place(pl, aps, compact);
		if (!ret)
			ret = plan_ino_finish(pl, nomove);
		if (ret != -EAGAIN)
			break;
		ret = 0;
	}
	if (!ret && !pl->ip)
		ret = place(pl, aps, compact);
	free(nomove);
	return ret;
}

/*
 * Mappings placed in another AG than the one they are in now: the rmap
 * records the target AG gains (the btree estimate of finish_ag counts
 * what an AG holds now; renumbering and home-coming files bring more).
 */
static int count_maps_in(struct planner *pl, const struct agplan *aps)
{
	uint32_t a;
	size_t i;

	pl->maps_in = calloc(pl->m->agcount ? pl->m->agcount : 1,
			     sizeof(*pl->maps_in));
	if (!pl->maps_in)
		return -ENOMEM;
	for (a = 0; a < pl->m->agcount; a++)
		for (i = 0; i < aps[a].nunit; i++) {
			const struct unit *un = &aps[a].unit[i];
			uint64_t n = un->npieces ? un->npieces : 1;

			if (un->target != a && un->target < pl->m->agcount)
				pl->maps_in[un->target] += un->shared ? 2 * n : n;
		}
	return 0;
}

/* Inodes numbered 2^32 or more after the plan. */
static uint64_t above32(const struct planner *pl)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < pl->nref; i++)
		n += plan_ino_new(pl->p, pl->ref[i].mi->ino) >= (1ull << 32);
	return n;
}

/*
 * What a build does besides planning (plan_gain.c): keep some inodes
 * where they are, cost the read-back inode by inode, judge the plan;
 * and a shrink's new end (plan_shrink.c), which is never judged.
 */
struct bctx {
	uint64_t shrink_to;	/* blocks (0: no shrink) */
	struct plan_gain *gain;	/* cost inode by inode (NULL: not) */
	struct plan_gain_val *val;	/* and put what each gains here */
	bool judge;		/* a plan not worth it whole moves nothing */
	bool *drop;		/* per AG: judged alone, left as it is
				 * (NULL: not judged so) */
	size_t ndrop;
};

/*
 * The plan moves nothing after all: no moves, forks, inodes or chunks;
 * every AG as it is; the figures after are those of now.
 */
static int clear_plan(struct planner *pl)
{
	const struct model *m = pl->m;
	struct plan *p = pl->p;
	size_t i;
	uint32_t a;

	for (i = 0; i < p->npf; i++)
		free(p->pf[i].bmbt);
	p->npf = p->nmv = p->nnote = p->nino = p->nich = 0;
	p->ninway = p->nag_added = 0;
	p->moved_blocks = p->copied_blocks = 0;
	p->extents_before = p->extents_after = 0;
	p->frag_actual_after = p->frag_ideal_after = 0;
	p->frag_actual_rest = p->frag_ideal_rest = 0;
	p->files_multi_after = p->undo_estimate = 0;
	p->dist_median_after = p->dist_p90_after = p->dist_max_after = 0;
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];
		struct plan_ag *pa = &p->ag[a];

		free(pa->freesp);
		pa->freesp = malloc((ag->nfree ? ag->nfree : 1) *
				    sizeof(*pa->freesp));
		if (!pa->freesp)
			return -ENOMEM;
		memcpy(pa->freesp, ag->freesp, ag->nfree * sizeof(*pa->freesp));
		pa->nfreesp = pa->nfree_after = ag->nfree;
		pa->free_after = pa->free_before;
		pa->longest_after = pa->longest_before;
		pa->bt_start = pa->bt_len = 0;
		pa->moved_blocks = 0;
		pa->changed = false;
		pa->newino = ~0u;
	}
	return plan_metrics(pl);
}

/* After plan_metrics: a plan not worth it moves nothing (plan_gain.c). */
static int judge_plan(struct planner *pl)
{
	const struct plan *p = pl->p;

	if (plan_gain_worth(pl->g, p->rb_now.hdd_seconds -
			    p->rb_after.hdd_seconds,
			    (int64_t)p->rb_now.requests -
			    (int64_t)p->rb_after.requests, p->copied_blocks,
			    (int64_t)p->extents_before -
			    (int64_t)p->extents_after))
		return 0;
	return clear_plan(pl);
}

/*
 * In a plan that renumbers and has no limits, the AGs' fork mappings
 * once remapped, and all the AGs' placement (all) once their figures are
 * taken: nothing reads them again (the limits and the AG judge do, in
 * plans that keep inode numbers; the btree estimate counts the
 * mappings, and the units are freed by that count: ap->nmap stays).
 */
static void drop_aps(const struct model *m, struct agplan *aps, bool all)
{
	uint32_t a;

	for (a = 0; a < m->agcount; a++) {
		if (all) {
			plan_agplan_free(&aps[a]);
			continue;
		}
		bigmem_free(aps[a].map, aps[a].cap_map, sizeof(*aps[a].map));
		aps[a].map = NULL;
		aps[a].cap_map = 0;
	}
}

static int build_once(const struct model *m, enum walk_order order,
		      enum plan_renumber mode, bool inode32,
		      const struct plan_limits *lim, struct bctx *bc,
		      struct plan *p, struct err *e)
{
	struct planner pl = { 0 };
	struct agplan *aps = NULL;
	struct nrecs nr = { 0 };
	bool *compact = NULL;
	/* (inode order: inodes keep their numbers, data follows them) */
	bool renumber = (mode == PR_ALL || inode32) && order != WALK_INODE;
	uint64_t big = 0, shrink_to = bc ? bc->shrink_to : 0;
	uint32_t a;
	size_t k;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->m = m;
	p->order = order;
	pl.stream = p->order != WALK_INODE;
	pl.m = m;
	pl.g = &m->fs->geo;
	pl.p = p;
	pl.e = e;
	pl.gain = bc ? bc->gain : NULL;
	p->ag = calloc(m->agcount, sizeof(*p->ag));
	aps = calloc(m->agcount, sizeof(*aps));
	pl.ref = malloc((m->ninodes ? m->ninodes : 1) * sizeof(*pl.ref));
	if (!p->ag || !aps || !pl.ref) {
		ret = -ENOMEM;
		goto out;
	}
	for (a = 0; a < m->agcount; a++)
		p->ag[a].newino = ~0u;
	for (a = 0; a < m->agcount; a++)
		for (k = 0; k < m->ag[a].nino; k++) {
			pl.ref[pl.nref].mi = &m->ag[a].ino[k];
			pl.nref++;
		}
	ret = plan_shrink_setup(&pl, shrink_to);
	/* a shrink moves the inodes past the new end, whatever the mode */
	if (plan_shrink_has_forced(&pl))
		renumber = true;
	if (!ret)
		ret = walk_order(&pl, p->order);
	if (ret == -EOVERFLOW)
		goto out;
	if (!ret)
		ret = plan_lim_setup(&pl, lim);
	pl.in_order = calloc(2 * (pl.nref ? pl.nref : 1), 1);
	compact = calloc(m->agcount, sizeof(*compact));
	if (!pl.in_order || !compact)
		ret = -ENOMEM;
	if (!ret)
		ret = renumber ? place_renumbered(&pl, aps, compact, mode,
						  inode32) :
				 place(&pl, aps, compact);
	if (!ret)
		ret = plan_lim_settle(&pl, aps);
	for (a = 0; a < m->agcount && !ret; a++)
		ret = plan_remap(&aps[a], &nr);
	if (!ret && !pl.lim && p->nino)
		drop_aps(m, aps, false);
	if (!ret)
		ret = plan_collect_forks(&pl, &nr);
	if (!ret)
		ret = reserve_bmbt(&pl, aps);
	if (!ret && pl.g->rmapbt)
		ret = count_maps_in(&pl, aps);
	for (a = 0; a < m->agcount && !ret; a++) {
		p->ag[a].agno = a;
		if (plan_shrink_gone(&pl, a)) {
			/* past the new end: all of it moves, nothing is left */
			p->ag[a].moved_blocks = ag_moved(&aps[a]);
			continue;
		}
		ret = finish_ag(&pl, &aps[a]);
		if (!ret && (mode != PR_NONE || inode32 || pl.shr))
			ret = plan_ino_finish_ag(&pl, a, true);
	}
	if (!ret)
		ret = plan_shrink_verify(&pl, aps);
	if (!ret)
		ret = plan_lim_finish(&pl, aps);
	if (!ret && !pl.lim && p->nino)
		drop_aps(m, aps, true);
	if (!ret)
		ret = plan_metrics(&pl);
	if (!ret)
		plan_shrink_figures(&pl);
	if (!ret && bc && bc->val)
		ret = plan_gain_values(&pl, bc->val);
	if (!ret && bc && bc->drop && !p->nino)
		ret = plan_gain_ags(&pl, aps, bc->drop, &bc->ndrop);
	if (!ret && bc && bc->judge && !(bc->drop && bc->ndrop))
		ret = judge_plan(&pl);
	if (!ret && inode32 && (big = above32(&pl)) != 0)
		ret = -ENOSPC;
out:
	for (a = 0; aps && a < m->agcount; a++)
		plan_agplan_free(&aps[a]);
	free(aps);
	free(pl.ref);
	walk_free(&pl.walk);
	plan_lim_release(&pl);
	free(pl.in_order);
	free(compact);
	plan_ino_free(pl.ip);
	free(pl.maps_in);
	plan_nrecs_free(&nr);
	if (ret)
		plan_free(p);	/* (a zeroed plan: plan_free again is harmless) */
	if (ret == -ENOSPC && big)
		return err_set(e, ret, "--inode32: %llu inodes do not fit "
			       "below inode number 2^32 (no room there, or "
			       "they may not move)", (unsigned long long)big);
	if (ret == -ENOSPC && shrink_to)
		return err_set(e, ret, "refusing to shrink: not enough room "
			       "inside %llu blocks for the data, inodes, log and "
			       "rebuilt btrees", (unsigned long long)shrink_to);
	if (ret == -ENOSPC)
		return err_set(e, ret, "not enough free space to rebuild the "
			       "btrees after packing");
	if (ret)
		return e->code ? e->code : err_set(e, ret, "out of memory");
	return 0;
}

/* AUTO takes the renumbering only when it cuts the modelled read-back. */
#define AUTO_GAIN	0.97

/*
 * A plan judged whole; one that keeps inode numbers is judged AG by AG
 * first (plan_gain_ags), and built again without the AGs that are not
 * worth it (left as they are, as --ag would), which changes no other
 * AG.  Plans that must renumber (--inode32) are not judged, nor is a
 * shrink (shrink_to blocks, 0: none): what lies past its new end moves
 * whatever the figures gain, or the shrink cuts it off.
 */
static int build_ags(const struct model *m, enum walk_order order,
		     enum plan_renumber mode, bool inode32,
		     const struct plan_limits *lim, uint64_t shrink_to,
		     struct plan_gain_val *val, bool **left, struct plan *p,
		     struct err *e)
{
	struct bctx bc = { shrink_to, NULL, NULL, !inode32 && !shrink_to,
			   NULL, 0 };
	struct plan_limits l2;
	bool *ags = NULL, *drop = NULL, user = plan_limits_any(lim);
	uint32_t a;
	int ret;

	if (inode32 || shrink_to)
		return build_once(m, order, mode, inode32, lim, &bc, p, e);
	bc.drop = drop = calloc(m->agcount ? m->agcount : 1, sizeof(*drop));
	if (!drop)
		return err_set(e, -ENOMEM, "out of memory");
	/* what each inode gains: of the last build, which overwrites it */
	bc.val = val;
	if (val && plan_gain_new(m->ninodes, &bc.gain)) {
		free(drop);
		return err_set(e, -ENOMEM, "out of memory");
	}
	ret = build_once(m, order, mode, inode32, lim, &bc, p, e);
	if (ret || !bc.ndrop)
		goto out;
	plan_free(p);
	ags = malloc(m->agcount * sizeof(*ags));
	if (!ags) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	l2 = user ? *lim : (struct plan_limits){ 0 };
	for (a = 0; a < m->agcount; a++)
		ags[a] = (!user || !lim->ags || lim->ags[a]) && !drop[a];
	l2.ags = ags;
	bc.drop = NULL;
	ret = build_once(m, order, mode, inode32, &l2, &bc, p, e);
	if (!ret && !user) {
		/* the AGs left alone are the judge's, not the user's limits */
		p->limited = false;
		p->files_selected = 0;
		p->nag_added = 0;
	}
out:
	free(ags);
	plan_gain_free(bc.gain);
	if (!ret && left && bc.ndrop) {
		*left = drop;	/* the AGs the judge left alone */
		return 0;
	}
	free(drop);
	return ret;
}

static int build(const struct model *m, enum walk_order order,
		 enum plan_renumber mode, bool inode32,
		 const struct plan_limits *lim, uint64_t shrink_to,
		 struct plan *p, struct err *e)
{
	return build_ags(m, order, mode, inode32, lim, shrink_to, NULL, NULL,
			 p, e);
}

int plan_build_kept(const struct model *m, const struct plan_opts *o,
		    struct plan_gain_val *val, struct plan *p, struct err *e)
{
	return build_ags(m, o->order, PR_NONE, false,
			 plan_limits_any(o->lim) ? o->lim : NULL, 0, val, NULL,
			 p, e);
}

/*
 * A limited plan (inode numbers kept).  One pass over some AGs (focus)
 * moves only what the whole plan under the same limits moves, and only
 * if that plan is worth it whole: the pass does part of that plan's
 * work, so passes end where one run ends, and on its result find
 * nothing to do.
 */
static int pass_build(const struct model *m, enum walk_order order,
		      const struct plan_limits *lim, struct plan *p,
		      struct err *e)
{
	struct plan_limits whole = *lim, part = *lim;
	struct bctx bc = { 0, NULL, NULL, false, NULL, 0 };
	struct plan full;
	bool *left = NULL, *ags = NULL;
	uint32_t a;
	int ret;

	if (!lim->focus)
		return build(m, order, PR_NONE, false, lim, 0, p, e);
	whole.focus = NULL;
	whole.home = NULL;
	whole.nhome = 0;
	ret = build_ags(m, order, PR_NONE, false,
			plan_limits_any(&whole) ? &whole : NULL, 0, NULL, &left,
			&full, e);
	if (ret)
		return ret;
	if (!full.nmv && !full.npf) {
		*p = full;	/* nothing to do, the pass neither */
		free(left);
		return 0;
	}
	plan_free(&full);
	if (left) {
		/* the AGs the whole plan leaves alone, the pass does too */
		ags = malloc(m->agcount * sizeof(*ags));
		if (!ags) {
			free(left);
			return err_set(e, -ENOMEM, "out of memory");
		}
		for (a = 0; a < m->agcount; a++)
			ags[a] = (!lim->ags || lim->ags[a]) && !left[a];
		part.ags = ags;
	}
	ret = build_once(m, order, PR_NONE, false, &part, &bc, p, e);
	free(left);
	free(ags);
	return ret;
}

int plan_build(const struct model *m, const struct plan_opts *o,
	       struct plan *p, struct err *e)
{
	enum walk_order order = o ? o->order : WALK_READDIR;
	enum plan_renumber mode = o ? o->renumber : PR_NONE;
	bool inode32 = o && o->inode32;
	const struct plan_limits *lim = o ? o->lim : NULL;
	uint64_t to = o ? o->shrink_to : 0;
	struct plan alt = { 0 };
	double kept_hdd;
	bool kept_fits;
	int ret;

	if (to && (plan_limits_any(lim) || order == WALK_INODE ||
		   o->max_write)) {
		memset(p, 0, sizeof(*p));
		return err_set(e, -EINVAL, "a shrink lays out the whole "
			       "filesystem in a walk order and moves all that "
			       "lies past its new end: not with --order inode, "
			       "--ag, --path, --min-extents, --max-write or "
			       "passes");
	}
	/*
	 * Renumbering lays out every AG at once; a plan kept to some AGs,
	 * paths, one pass or a write budget keeps inode numbers (auto acts
	 * as none).
	 */
	if (plan_limits_any(lim) || (o && o->max_write)) {
		if (mode == PR_ALL || inode32) {
			memset(p, 0, sizeof(*p));
			return err_set(e, -EINVAL, "--renumber all and --inode32 "
				       "renumber the whole filesystem: not with "
				       "--ag, --path, --min-extents, --max-write "
				       "or passes");
		}
		if (o->max_write)
			return plan_budget(m, o, p, e);
		return pass_build(m, order, lim, p, e);
	}
	if (mode != PR_AUTO || inode32)
		return build(m, order, inode32 && mode == PR_AUTO ? PR_ALL :
			     mode, inode32, NULL, to, p, e);
	/*
	 * The layout without renumbering (PR_AUTO: AGI newino still set)
	 * first, its figure kept and the plan dropped: one plan in memory
	 * at a time.  It is built again only when renumbering loses.
	 */
	ret = build(m, order, PR_AUTO, false, NULL, to, &alt, e);
	if (ret && ret != -ENOSPC)
		return ret;
	kept_fits = !ret;
	kept_hdd = alt.rb_after.hdd_seconds;
	plan_free(&alt);
	err_clear(e);
	ret = build(m, order, PR_ALL, false, NULL, to, p, e);
	if (ret == -ENOSPC && kept_fits) {
		/* no room laid out that way: keep the inodes where they are */
		err_clear(e);
		return build(m, order, PR_AUTO, false, NULL, to, p, e);
	}
	/* (a plan that renumbers nothing, or the only layout that fits) */
	if (ret || !p->nino || !kept_fits ||
	    p->rb_after.hdd_seconds < AUTO_GAIN * kept_hdd)
		return ret;
	plan_free(p);
	return build(m, order, PR_AUTO, false, NULL, to, p, e);
}

void plan_free(struct plan *p)
{
	size_t i;

	for (i = 0; i < p->npf; i++)
		free(p->pf[i].bmbt);
	bigmem_free(p->pf, p->cap_pf, sizeof(*p->pf));
	bigmem_free(p->recpool, p->recpool_bytes, 1);
	bigmem_free(p->mv, p->cap_mv, sizeof(*p->mv));
	bigmem_free(p->note, p->cap_note, sizeof(*p->note));
	free(p->ino);
	free(p->ich);
	free(p->inway);
	free(p->ag_added);
	for (i = 0; p->ag && p->m && i < p->m->agcount; i++)
		free(p->ag[i].freesp);
	free(p->ag);
	memset(p, 0, sizeof(*p));
}

bool plan_ichunk_freed(const struct plan *p, uint64_t startino)
{
	size_t lo = 0, hi = p->nich;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->ich[mid].startino < startino)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < p->nich && p->ich[lo].startino == startino; lo++)
		if (!p->ich[lo].alloc)
			return true;
	return false;
}

uint64_t plan_ino_new(const struct plan *p, uint64_t ino)
{
	size_t lo = 0, hi = p->nino;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->ino[mid].old < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nino && p->ino[lo].old == ino ? p->ino[lo].new : ino;
}

const struct plan_ag *plan_ag(const struct plan *p, uint32_t agno)
{
	return &p->ag[agno];
}
