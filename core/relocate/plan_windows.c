/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What stays fixed in an AG (headers, log, inode chunks, AGFL, data
 * pinned where it is) and the windows between, which placement fills.
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits_priv.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/fs/fork.h"
#include "ondisk/inode.h"

#include <stdlib.h>
#include <string.h>

static int add_obst(struct agplan *ap, uint32_t start, uint32_t len)
{
	if (!len)
		return 0;
	if (bigmem_grow((void **)&ap->obst, &ap->cap_obst, ap->nobst,
			sizeof(*ap->obst)))
		return -ENOMEM;
	ap->obst[ap->nobst].agbno = start;
	ap->obst[ap->nobst].len = len;
	ap->nobst++;
	return 0;
}

static int cmp_free(const void *a, const void *b)
{
	const struct m_free *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

/* AG headers, log, inode chunks, AGFL: what this run does not move. */
int plan_gather_obstacles(struct agplan *ap)
{
	const struct model *m = ap->pl->m;
	const struct od_geo *g = ap->pl->g;
	const struct m_ag *ag = &m->ag[ap->agno];
	uint64_t log0 = m->fs->sb.logstart;
	uint32_t hdr_end, i, k, lb, ll;
	int ret = 0;

	/* sb, agf, agi, agfl sectors: blocks up to the AGFL's, inclusive */
	hdr_end = (uint32_t)(((uint64_t)3 * g->sectsize) >> g->blocklog) + 1;
	ret |= add_obst(ap, 0, hdr_end);
	/* a shrink that moves the log: its new place, and the old is free */
	if (plan_shrink_log_in(ap->pl, ap->agno, &lb, &ll))
		ret |= add_obst(ap, lb, ll);
	if (log0 && od_fsb_agno(g, log0) == ap->agno &&
	    !plan_shrink_log_moves(ap->pl))
		ret |= add_obst(ap, od_fsb_agbno(g, log0),
				m->fs->sb.logblocks);
	for (i = 0; i < ag->nagfl; i++)
		ret |= add_obst(ap, ag->agfl[i], 1);
	/* the blocks holding any present inode group of each chunk */
	for (k = 0; k < ag->nchunk; k++) {
		const struct od_inobt_rec *r = &ag->chunk[k];
		uint32_t grp;

		if (plan_ino_vacated(ap->pl, ap->agno, k))
			continue;	/* its blocks are free after the run */
		for (grp = 0; grp < OD_INODES_PER_CHUNK;
		     grp += OD_INODES_PER_HOLEMASK_BIT) {
			uint32_t b0, b1;

			if (!od_inobt_present(r, grp))
				continue;
			b0 = od_agino_agbno(g, r->startino + grp);
			b1 = od_agino_agbno(g, r->startino + grp +
					    OD_INODES_PER_HOLEMASK_BIT - 1);
			ret |= add_obst(ap, b0, b1 - b0 + 1);
		}
	}
	return ret ? -ENOMEM : 0;
}

/* Sort and merge touching or overlapping obstacles. */
static void merge_obstacles(struct agplan *ap)
{
	size_t i, k;

	sort_any(ap->obst, ap->nobst, sizeof(*ap->obst), cmp_free);
	for (i = 1, k = 0; i < ap->nobst; i++) {
		struct m_free *p = &ap->obst[k], *c = &ap->obst[i];

		if (c->agbno <= p->agbno + p->len) {
			if (c->agbno + c->len > p->agbno + p->len)
				p->len = c->agbno + c->len - p->agbno;
		} else {
			ap->obst[++k] = *c;
		}
	}
	if (ap->nobst)
		ap->nobst = k + 1;
}

/*
 * Is the fork already one physically contiguous run in file-offset order
 * (holes allowed)?  Then moving it gains nothing by itself.
 */
static bool fork_in_order(struct planner *pl, uint32_t idx, int fork)
{
	uint8_t *st = &pl->in_order[2 * (size_t)idx + (size_t)fork];
	const struct m_ino *mi = pl->ref[idx].mi;
	const struct m_ag *ag = plan_ref_ag(pl, idx);
	uint32_t first = fork == FORK_DATA ? 0 : mi->nde;
	uint32_t n = fork == FORK_DATA ? mi->nde : mi->nae, k;
	struct od_irec prev, cur;

	if (*st)
		return *st == 1;
	*st = 1;
	for (k = 0; k < n; k++) {
		m_ext_get(&ag->ext[mi->ext + first + k], &cur);
		if (k && cur.startblock != prev.startblock + prev.blockcount) {
			*st = 2;
			break;
		}
		prev = cur;
	}
	return *st == 1;
}

/*
 * Pin what is fine where it is: shared units, and (inode order) the units
 * of files that are already contiguous in their inode's AG.  Pinned units
 * become obstacles, so placement only fills the holes around them.  In a
 * walk stream a file left where it is would cost the reader a jump there
 * and one back: the stream keeps in place only what already sits where
 * the stream reaches it (plan_stream.c).
 */
int plan_pin_units(struct agplan *ap)
{
	size_t i;

	ap->pinned = calloc(ap->nunit ? ap->nunit : 1, 1);
	if (!ap->pinned)
		return -ENOMEM;

	for (i = 0; i < ap->nunit; i++)
		ap->pinned[i] = !ap->compact &&
				(!ap->pl->stream || ap->unit[i].shared);
	for (i = 0; i < ap->nmap; i++) {
		const struct pmap *pm = &ap->map[i];
		const struct unit *un = &ap->unit[pm->unit];

		if (un->shared || !ap->pinned[pm->unit])
			continue;
		if (un->owner_ag != ap->agno ||
		    !fork_in_order(ap->pl, pm->ino_idx, pm->fork))
			ap->pinned[pm->unit] = 0;
	}
	if (plan_lim_pin(ap))
		return -ENOMEM;
	plan_shrink_unpin(ap);
	for (i = 0; i < ap->nunit; i++)
		if (ap->pinned[i] &&
		    add_obst(ap, ap->unit[i].start, ap->unit[i].len))
			return -ENOMEM;
	merge_obstacles(ap);
	return 0;
}

/* The complement of the obstacles up to the AG's end (a shrink cuts
 * it short); the largest window is filled last so free space gathers
 * there. */
int plan_build_segments(struct agplan *ap)
{
	uint32_t pos = 0, i, big = 0;
	size_t n = 0;

	ap->seg = calloc(ap->nobst + 1, sizeof(*ap->seg));
	if (!ap->seg)
		return -ENOMEM;
	for (i = 0; i <= ap->nobst && pos < ap->agblocks; i++) {
		uint32_t end = i < ap->nobst ? ap->obst[i].agbno : ap->agblocks;

		if (end > ap->agblocks)
			end = ap->agblocks;
		if (end > pos) {
			ap->seg[n].start = ap->seg[n].cur = pos;
			ap->seg[n].end = end;
			n++;
		}
		if (i < ap->nobst)
			pos = ap->obst[i].agbno + ap->obst[i].len;
	}
	ap->nseg = n;
	for (i = 1; i < n; i++)
		if (ap->seg[i].end - ap->seg[i].start >
		    ap->seg[big].end - ap->seg[big].start)
			big = i;
	if (n > 1 && big != n - 1) {
		struct seg w = ap->seg[big];

		memmove(&ap->seg[big], &ap->seg[big + 1],
			(n - big - 1) * sizeof(*ap->seg));
		ap->seg[n - 1] = w;
	}
	ap->seg_first = 0;
	return 0;
}
