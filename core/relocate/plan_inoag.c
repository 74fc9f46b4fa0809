/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode renumbering: the AG each moving inode ends up in (plan_priv.h,
 * plan_ino_ags).  An inode follows its directory's AG while that AG has
 * room for it and its data, else stays in its own.
 *
 * The room is counted so that the answer does not depend on where things
 * are now, only on what the AGs hold once the choice is made: an AG's
 * room is its size, less its header, log and the inode chunks that stay,
 * less a sixteenth kept free, less the blocks of every inode it ends up
 * with (all its fork blocks, wherever they are now, plus its share of a
 * new chunk).  A run lays the AGs out as chosen; the choice on its result
 * then starts where the first one ended, and so comes to the same end.
 *
 * The choice is a walk in walk order (a parent's AG is known before its
 * children's), repeated until nothing changes: an inode refused for want
 * of room early in a walk may fit once inodes later in it have left, and
 * a child follows its parent when the parent moves on a later walk.
 *
 * A shrink: an AG's size is its length inside the new end (an AG past
 * it has none and takes nothing), the log is counted where it ends up,
 * and an inode whose own AG is gone falls back to the AG it went to on
 * an earlier walk, or else to the one with the most room.
 */
#include "core/relocate/plan_priv.h"
#include "ondisk/inode.h"

#include <stdlib.h>

/* Blocks an AG keeps free when it takes other AGs' inodes and data. */
#define ROOM_KEEP	16
/* Walks over the inodes at most: the choice settles in two or three. */
#define AG_SWEEPS	8

/* Blocks of the inode's forks (not realtime data), wherever they are. */
static uint64_t ino_data(const struct m_ag *ag, const struct m_ino *mi)
{
	uint64_t n = 0;
	uint32_t k;

	for (k = 0; k < mi->nde + mi->nae; k++) {
		struct od_irec r;

		if (k < mi->nde && (mi->flags & MI_REALTIME))
			continue;
		m_ext_get(&ag->ext[mi->ext + k], &r);
		n += r.blockcount;
	}
	return n;
}

/* Its own AG if numbers below 2^32 fit there, else the nearest below. */
static uint32_t low_ag(const struct od_geo *g, uint32_t own)
{
	uint32_t a = own + 1;

	while (a-- > 0)
		if (plan_ino_limit32(g, a) >= g->ialloc_blks)
			return a;
	return 0;
}

/* Blocks of the AG that no choice changes: header, log, chunks that stay. */
static uint64_t fixed_blocks(const struct planner *pl, uint32_t agno,
			     const uint8_t *stays)
{
	const struct od_geo *g = pl->g;
	const struct model *m = pl->m;
	const struct m_ag *ag = &m->ag[agno];
	uint64_t n = (((uint64_t)3 * g->sectsize) >> g->blocklog) + 1;
	uint64_t log0 = m->fs->sb.logstart;
	uint32_t lb, ll;
	size_t k;

	if (plan_shrink_log_moves(pl)) {
		if (plan_shrink_log_in(pl, agno, &lb, &ll))
			n += ll;
	} else if (log0 && od_fsb_agno(g, log0) == agno) {
		n += m->fs->sb.logblocks;
	}
	for (k = 0; k < ag->nchunk; k++) {
		const struct od_inobt_rec *r = &ag->chunk[k];
		uint32_t grp, last = ~0u;

		if (!stays[k])
			continue;
		for (grp = 0; grp < OD_INODES_PER_CHUNK;
		     grp += OD_INODES_PER_HOLEMASK_BIT) {
			uint32_t b0, b1;

			if (!od_inobt_present(r, grp))
				continue;
			b0 = od_agino_agbno(g, r->startino + grp);
			b1 = od_agino_agbno(g, r->startino + grp +
					    OD_INODES_PER_HOLEMASK_BIT - 1);
			if (last != ~0u && b0 <= last)
				b0 = last + 1;
			if (b1 >= b0 && (last == ~0u || b1 > last)) {
				n += b1 - b0 + 1;
				last = b1;
			}
		}
	}
	return n;
}

/*
 * Which model chunks stay whatever the choice: those holding an inode
 * that does not move (or whose in-use inodes the model does not all
 * have: chunk_ok false).
 */
static int chunks_staying(const struct planner *pl, uint32_t agno,
			  const uint8_t *member, const uint8_t *chunk_ok,
			  uint8_t *stays)
{
	const struct od_geo *g = pl->g;
	const struct m_ag *ag = &pl->m->ag[agno];
	size_t k, i = 0;

	for (k = 0; k < ag->nchunk; k++) {
		const struct od_inobt_rec *r = &ag->chunk[k];

		stays[k] = !chunk_ok[k];
		while (i < ag->nino &&
		       od_ino_agino(g, ag->ino[i].ino) < r->startino)
			i++;
		for (; i < ag->nino && od_ino_agino(g, ag->ino[i].ino) <
		     r->startino + OD_INODES_PER_CHUNK; i++)
			if (!member[walk_dense(&pl->walk, ag, &ag->ino[i])])
				stays[k] = 1;
	}
	return 0;
}

/* The AG inside a shrink's new end with the most room. */
static uint32_t roomiest(const struct planner *pl, const int64_t *room,
			 const uint8_t *agok)
{
	uint32_t a, best = 0;

	for (a = 0; a < pl->m->agcount; a++)
		if (!plan_shrink_gone(pl, a) && agok[a] &&
		    (plan_shrink_gone(pl, best) || room[a] > room[best]))
			best = a;
	return best;
}

int plan_ino_ags(struct planner *pl, const uint32_t *par,
		 const uint8_t *member, const uint8_t *nomove,
		 uint8_t *const *chunk_ok, const uint8_t *agok, bool inode32,
		 int64_t per64, uint32_t *ag_of, int64_t *room)
{
	const struct model *m = pl->m;
	const struct od_geo *g = pl->g;
	int64_t *need = malloc((pl->nref ? pl->nref : 1) * sizeof(*need));
	uint8_t *stays = NULL;
	uint32_t a;
	size_t k, maxc = 1;
	int sweep, ret = 0;

	if (!need)
		return -ENOMEM;
	for (a = 0; a < m->agcount; a++)
		if (m->ag[a].nchunk > maxc)
			maxc = m->ag[a].nchunk;
	stays = malloc(maxc);
	if (!stays) {
		free(need);
		return -ENOMEM;
	}
	for (a = 0; a < m->agcount; a++) {
		chunks_staying(pl, a, member, chunk_ok[a], stays);
		room[a] = ((int64_t)plan_ag_len(pl, a) -
			   (int64_t)fixed_blocks(pl, a, stays) -
			   (int64_t)(plan_ag_len(pl, a) / ROOM_KEEP)) * 64;
	}
	/* to begin with, every inode where it is */
	for (k = 0; k < pl->nref; k++) {
		const struct m_ino *mi = pl->ref[k].mi;

		ag_of[k] = od_ino_agno(g, mi->ino);
		need[k] = (int64_t)ino_data(plan_ref_ag(pl, k), mi) * 64 +
			  (member[k] ? per64 : 0);
		room[ag_of[k]] -= need[k];
	}
	for (sweep = 0; sweep < AG_SWEEPS; sweep++) {
		bool changed = false;

		for (k = 0; k < pl->walk.nreached; k++) {
			uint32_t d = pl->walk.seq[k], own, home, t;
			const struct m_ino *mi = pl->ref[d].mi;

			if (!member[d])
				continue;
			own = od_ino_agno(g, mi->ino);
			/* where it stays when it follows no one: its own AG,
			 * or, that AG past a shrink's end, one inside */
			home = own;
			if (plan_shrink_gone(pl, home))
				home = plan_shrink_gone(pl, ag_of[d]) ?
				       roomiest(pl, room, agok) : ag_of[d];
			/* its directory's AG (where that went), if it has room */
			t = nomove && nomove[d] ? home : ag_of[par[d]];
			if (!agok[t] || plan_shrink_gone(pl, t) ||
			    (t != home && t != ag_of[d] && room[t] < need[d]))
				t = home;
			if ((mi->ino < (1ull << 32) || inode32) &&
			    plan_ino_limit32(g, t) < g->ialloc_blks)
				t = low_ag(g, home);
			if (t == ag_of[d])
				continue;
			room[ag_of[d]] += need[d];
			room[t] -= need[d];
			ag_of[d] = t;
			changed = true;
		}
		if (!changed)
			break;
	}
	free(stays);
	free(need);
	return ret;
}
