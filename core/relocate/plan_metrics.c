/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plan's figures after the run: extents and fragmentation, the live
 * data it overwrites (the undo file's size), inode-to-data distances and
 * the read-back cost at the new places (plan.h).
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits_priv.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/relocate/btbuild.h"
#include "core/fs/fork.h"
#include "core/model/frag.h"
#include "ondisk/inode.h"
#include <stdlib.h>
#include <string.h>

/* The records of a fork after the plan: pf's (new), or the model's. */
static uint32_t fork_after(const struct planner *pl, size_t idx, int fork,
			   const struct plan_fork *pf, struct od_irec *buf,
			   uint32_t cap, const struct od_irec **out)
{
	const struct m_ino *mi = pl->ref[idx].mi;
	const struct m_ag *ag = pl->ref[idx].ag;
	uint32_t first = fork == FORK_DATA ? 0 : mi->nde;
	uint32_t n = fork == FORK_DATA ? mi->nde : mi->nae, k;

	if (pf) {
		*out = pf->recs;
		return pf->nrecs;
	}
	if (n > cap)
		n = cap;
	for (k = 0; k < n; k++)
		m_ext_get(&ag->ext[mi->ext + first + k], &buf[k]);
	*out = buf;
	return n;
}

/*
 * The plan's lists are sorted by inode number, as the planner's inodes
 * (pl->ref) are: one cursor into each, moved on inode by inode, finds
 * what plan_fork_find, plan_ino_new and a search of the notes would.
 */
struct cursors {
	size_t pf, ino, note;
};

/* The plan's new fork of (ino, fork), or NULL (plan_fork_find). */
static const struct plan_fork *cur_fork(const struct plan *p, size_t at,
					uint64_t ino, int fork)
{
	while (at < p->npf && p->pf[at].ino == ino && p->pf[at].whichfork < fork)
		at++;
	if (at < p->npf && p->pf[at].ino == ino && p->pf[at].whichfork == fork)
		return &p->pf[at];
	return NULL;
}

static void cur_seek(const struct plan *p, struct cursors *c, uint64_t ino)
{
	while (c->pf < p->npf && p->pf[c->pf].ino < ino)
		c->pf++;
	while (c->ino < p->nino && p->ino[c->ino].old < ino)
		c->ino++;
	while (c->note < p->nnote && p->note[c->note].ino < ino)
		c->note++;
}

/*
 * Whether an AG's free extents are in order and apart (as the bnobt
 * keeps them): then those a range overlaps are found by a search, not
 * by a pass over them all for every move.
 */
static bool free_in_order(const struct m_ag *ag)
{
	uint64_t end = 0;
	size_t k;

	for (k = 0; k < ag->nfree; k++) {
		uint64_t lo = ag->freesp[k].agbno, hi = lo + ag->freesp[k].len;

		if (lo < end || hi > UINT32_MAX)
			return false;
		end = hi;
	}
	return true;
}

/* Free blocks of ag in [b0, b1): every extent's overlap, added up. */
static uint64_t free_in(const struct m_ag *ag, bool ordered, uint32_t b0,
			uint32_t b1)
{
	uint64_t freeb = 0;
	size_t k = 0;

	if (ordered) {	/* the first extent ending past b0 */
		size_t hi = ag->nfree;

		while (k < hi) {
			size_t mid = k + (hi - k) / 2;

			if (ag->freesp[mid].agbno + ag->freesp[mid].len <= b0)
				k = mid + 1;
			else
				hi = mid;
		}
	}
	for (; k < ag->nfree; k++) {
		uint32_t lo = ag->freesp[k].agbno, hi = lo + ag->freesp[k].len;

		if (ordered && lo >= b1)
			break;	/* and so are all after it */
		if (lo < b0)
			lo = b0;
		if (hi > b1)
			hi = b1;
		if (lo < hi)
			freeb += hi - lo;
	}
	return freeb;
}

/* Bytes of originally-live blocks the moves write over (undo size). */
static uint64_t live_overwrite(const struct planner *pl)
{
	const struct od_geo *g = pl->g;
	const struct plan *p = pl->p;
	uint64_t blocks = 0;
	bool *ordered = calloc(pl->m->agcount + 1, sizeof(*ordered));
	uint32_t a;
	size_t i;

	for (a = 0; ordered && a < pl->m->agcount; a++)
		ordered[a] = free_in_order(&pl->m->ag[a]);
	for (i = 0; i < p->nmv; i++) {
		const struct plan_move *mv = &p->mv[i];
		uint32_t agno = (uint32_t)(mv->dst / g->agblocks);
		uint32_t b0 = (uint32_t)(mv->dst % g->agblocks), b1 = b0 + mv->len;

		blocks += mv->len - free_in(&pl->m->ag[agno],
					    ordered && ordered[agno], b0, b1);
	}
	free(ordered);
	return blocks << g->blocklog;
}

/*
 * The read-back model's view of the plan, by the walk's dense number of
 * each inode (the planner's pl->ref index): its new data fork, and its
 * number after the run.  Filled before the read-back and only read by
 * it, from its threads.
 */
struct after {
	const struct planner *pl;
	const struct plan_fork **dfork;	/* NULL: the data fork stays */
	uint64_t *ino;			/* NULL: no inode renumbered */
};

static uint32_t after_idx(const struct after *a, const struct m_ino *mi)
{
	const struct planner *pl = a->pl;

	return walk_dense(&pl->walk, &pl->m->ag[od_ino_agno(pl->g, mi->ino)],
			  mi);
}

static bool rb_fork(void *priv, const struct m_ino *mi,
		    const struct od_irec **recs, uint32_t *n)
{
	const struct after *a = priv;
	const struct plan_fork *pf = a->dfork[after_idx(a, mi)];

	if (!pf)
		return false;
	*recs = pf->recs;
	*n = pf->nrecs;
	return true;
}

static uint64_t rb_ino(void *priv, const struct m_ino *mi)
{
	const struct after *a = priv;

	return a->ino[after_idx(a, mi)];
}

/* The read-back after the plan: new data maps, inodes where they go. */
static int rb_after(struct planner *pl, struct after *af)
{
	struct plan *p = pl->p;
	struct rb_layout lay = { rb_ino, af, NULL, NULL };
	uint32_t **ch = NULL, a;
	size_t *n = NULL;
	int ret = 0;

	if (!p->nino && pl->gain)
		return plan_gain_after(pl, rb_fork, af, NULL, &p->rb_after) ?
		       -ENOMEM : 0;
	if (!p->nino)
		return readback_model(&pl->walk, rb_fork, af, &p->rb_after,
				      pl->e) ? -ENOMEM : 0;
	ch = calloc(pl->m->agcount, sizeof(*ch));
	n = calloc(pl->m->agcount, sizeof(*n));
	if (!ch || !n)
		ret = -ENOMEM;
	for (a = 0; a < pl->m->agcount && !ret; a++)
		ret = plan_ino_chunks_after(pl, a, &ch[a], &n[a]);
	lay.chunks = ch;
	lay.nchunks = n;
	if (!ret && (pl->gain ?
		     plan_gain_after(pl, rb_fork, af, &lay, &p->rb_after) :
		     readback_model_layout(&pl->walk, rb_fork, af, &lay,
					   &p->rb_after, pl->e)))
		ret = -ENOMEM;
	for (a = 0; ch && a < pl->m->agcount; a++)
		free(ch[a]);
	free(ch);
	free(n);
	return ret;
}

int plan_metrics(struct planner *pl)
{
	const struct od_geo *g = pl->g;
	struct plan *p = pl->p;
	struct od_irec small[64], *buf = small;
	struct after af = { pl, NULL, NULL };
	struct cursors cur = { 0, 0, 0 };
	uint64_t *dist = NULL;
	size_t i, nd = 0;
	int ret = -ENOMEM;

	dist = malloc((pl->nref ? pl->nref : 1) * sizeof(*dist));
	af.dfork = malloc((pl->nref ? pl->nref : 1) * sizeof(*af.dfork));
	if (p->nino)
		af.ino = malloc((pl->nref ? pl->nref : 1) * sizeof(*af.ino));
	if (!dist || !af.dfork || (p->nino && !af.ino))
		goto out;
	for (i = 0; i < pl->nref; i++) {
		const struct m_ino *mi = pl->ref[i].mi;
		uint16_t t = mi->mode & 0170000;
		const struct od_irec *r;
		uint64_t newino;
		bool noted;
		uint32_t n;
		int fork;

		cur_seek(p, &cur, mi->ino);
		noted = cur.note < p->nnote && p->note[cur.note].ino == mi->ino;
		newino = cur.ino < p->nino && p->ino[cur.ino].old == mi->ino ?
			 p->ino[cur.ino].new : mi->ino;
		if (af.ino)
			af.ino[i] = newino;
		p->extents_before += mi->nde + mi->nae;
		for (fork = FORK_DATA; fork <= FORK_ATTR; fork++) {
			uint32_t want = fork == FORK_DATA ? mi->nde : mi->nae;
			const struct plan_fork *pf = cur_fork(p, cur.pf, mi->ino,
							      fork);

			if (fork == FORK_DATA)
				af.dfork[i] = pf;
			if (want > 64 && buf == small) {
				buf = malloc(((size_t)mi->nde + mi->nae + 64) *
					     sizeof(*buf));
				if (!buf)
					goto out;
			} else if (want > 64) {
				struct od_irec *nb = realloc(buf, ((size_t)want + 64) *
							     sizeof(*buf));

				if (!nb)
					goto out;
				buf = nb;
			}
			n = fork_after(pl, i, fork, pf, buf, want, &r);
			p->extents_after += n;
			if (frag_fork_counts(mi, fork)) {
				struct frag_count fc = { 0, 0 };

				frag_add(&fc, r, n);
				p->frag_actual_after += fc.actual;
				p->frag_ideal_after += fc.ideal;
				if (!noted) {
					p->frag_actual_rest += fc.actual;
					p->frag_ideal_rest += fc.ideal;
				}
			}
			if (fork == FORK_DATA && t == 0100000 && n) {
				if (n > 1)
					p->files_multi_after++;
				if (!(mi->flags & MI_REALTIME)) {
					uint64_t a = od_fsb_lin(g, r[0].startblock);
					uint64_t b = model_ino_lin(pl->m->fs,
								   newino);

					dist[nd++] = a > b ? a - b : b - a;
				}
			}
		}
	}
	if (nd) {
		if (sort_u64(dist, nd))
			goto out;
		p->dist_median_after = dist[(nd - 1) / 2];
		p->dist_p90_after = dist[(size_t)((nd * 90 + 99) / 100) - 1];
		p->dist_max_after = dist[nd - 1];
	}
	p->undo_estimate = live_overwrite(pl);
	if (pl->gain ? plan_gain_now(pl, &p->rb_now) :
	    readback_model(&pl->walk, NULL, NULL, &p->rb_now, pl->e))
		goto out;
	ret = rb_after(pl, &af);
out:
	if (buf != small)
		free(buf);
	free(dist);
	free(af.dfork);
	free(af.ino);
	return ret;
}
