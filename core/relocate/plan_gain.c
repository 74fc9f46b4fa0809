/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a plan gains, whole and inode by inode (plan_priv.h).
 *
 * Whole: a plan is worth running when it joins a file's extents (fewer
 * records after), or when it saves enough on one figure of the read-back
 * model without losing on the other: at least GAIN_HDD_MIN_MS of the
 * modelled 7200 rpm read, and GAIN_HDD_MS_PER_MIB for each MiB it copies;
 * or at least GAIN_SSD_MIN SSD requests, and GAIN_SSD_PER_MIB for each
 * MiB.  Moving files that already follow one another in walk order back
 * by a gap saves one read-through: a few milliseconds and one request
 * for all their bytes, below either.
 *
 * Inode by inode: the read-back model is run over the walk now and after
 * the plan, one access at a time, and what each access costs (the jump
 * to it and its transfer) is put down to the inode it reads for.  An
 * access that does not move can still cost more or less after the plan,
 * when the access before it moved: that change goes to the inode whose
 * read came before it.  The sums over inodes are the plan's gains.
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits_priv.h"
#include "core/base/bigmem.h"
#include "core/fs/fork.h"
#include "ondisk/inode.h"

#include <stdlib.h>
#include <string.h>

/* Per walk entry: the costs now, or now less after. */
struct gcost {
	double hc, hd;		/* hdd seconds: its cluster read, its data */
	int32_t rc, rd;		/* SSD requests, the same */
};

#define GF_CLUSTER	0x1	/* after the plan: its cluster is read here */
#define GF_DATA		0x2	/* after the plan: some data is read */

struct plan_gain {
	size_t n;
	struct gcost *now;	/* the costs now, once per model */
	bool have_now;
	struct rb_fig fig_now;
	struct gcost *diff;	/* of the plan costed: now less after */
	uint8_t *flag;		/* GF_*, of the plan costed */
};

bool plan_gain_worth(const struct od_geo *g, double hdd, int64_t req,
		     uint64_t blocks, int64_t joined)
{
	double mib = (double)(blocks << g->blocklog) / 1048576.0;
	double want_h = mib * GAIN_HDD_MS_PER_MIB / 1e3;
	double want_r = mib * GAIN_SSD_PER_MIB;

	if (want_h < GAIN_HDD_MIN_MS / 1e3)
		want_h = GAIN_HDD_MIN_MS / 1e3;
	if (want_r < GAIN_SSD_MIN)
		want_r = GAIN_SSD_MIN;
	if (joined > 0)
		return true;
	if (hdd >= want_h && req >= 0)
		return true;
	return (double)req >= want_r && hdd >= -1e-9;
}

int plan_gain_new(size_t ninodes, struct plan_gain **out)
{
	struct plan_gain *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g->n = ninodes ? ninodes : 1;
	g->now = bigmem_calloc(g->n, sizeof(*g->now));
	g->diff = bigmem_calloc(g->n, sizeof(*g->diff));
	g->flag = calloc(g->n, 1);
	if (!g->now || !g->diff || !g->flag) {
		plan_gain_free(g);
		return -ENOMEM;
	}
	*out = g;
	return 0;
}

void plan_gain_free(struct plan_gain *g)
{
	if (!g)
		return;
	bigmem_free(g->now, g->n, sizeof(*g->now));
	bigmem_free(g->diff, g->n, sizeof(*g->diff));
	free(g->flag);
	free(g);
}

static void trace_now(void *priv, uint32_t d, bool cluster, double h,
		      uint64_t r)
{
	struct gcost *c = &((struct plan_gain *)priv)->now[d];

	if (cluster) {
		c->hc += h;
		c->rc += (int32_t)r;
	} else {
		c->hd += h;
		c->rd += (int32_t)r;
	}
}

static void trace_after(void *priv, uint32_t d, bool cluster, double h,
			uint64_t r)
{
	struct plan_gain *g = priv;
	struct gcost *c = &g->diff[d];

	if (cluster) {
		c->hc -= h;
		c->rc -= (int32_t)r;
		g->flag[d] |= GF_CLUSTER;
	} else {
		c->hd -= h;
		c->rd -= (int32_t)r;
		g->flag[d] |= GF_DATA;
	}
}

int plan_gain_now(struct planner *pl, struct rb_fig *f)
{
	struct plan_gain *g = pl->gain;
	struct rb_trace t = { trace_now, g };
	int ret;

	if (!g->have_now) {
		ret = readback_model_trace(&pl->walk, NULL, NULL, NULL, &t,
					   &g->fig_now, pl->e);
		if (ret)
			return ret;
		g->have_now = true;
	}
	*f = g->fig_now;
	return 0;
}

int plan_gain_after(struct planner *pl, rb_fork_fn fork, void *priv,
		    const struct rb_layout *lay, struct rb_fig *f)
{
	struct plan_gain *g = pl->gain;
	struct rb_trace t = { trace_after, g };

	memcpy(g->diff, g->now, g->n * sizeof(*g->diff));
	memset(g->flag, 0, g->n);
	return readback_model_trace(&pl->walk, fork, priv, lay, &t, f, pl->e);
}

static bool fork_same(const struct m_ag *ag, const struct m_ino *mi,
		      const struct plan_fork *pf)
{
	uint32_t first = pf->whichfork == FORK_DATA ? 0 : mi->nde;
	uint32_t n = pf->whichfork == FORK_DATA ? mi->nde : mi->nae, k;

	if (n != pf->nrecs)
		return false;
	for (k = 0; k < n; k++) {
		struct od_irec x;

		m_ext_get(&ag->ext[mi->ext + first + k], &x);
		if (x.startoff != pf->recs[k].startoff ||
		    x.startblock != pf->recs[k].startblock ||
		    x.blockcount != pf->recs[k].blockcount ||
		    x.unwritten != pf->recs[k].unwritten)
			return false;
	}
	return true;
}

/*
 * Written blocks of the fork's new records that do not stay where the
 * model's records have them: what moving it copies.
 */
static uint64_t fork_copied(const struct m_ag *ag, const struct m_ino *mi,
			    const struct plan_fork *pf)
{
	uint32_t first = pf->whichfork == FORK_DATA ? 0 : mi->nde;
	uint32_t n = pf->whichfork == FORK_DATA ? mi->nde : mi->nae, i = 0, k;
	uint64_t moved = 0;

	for (k = 0; k < pf->nrecs; k++) {
		const struct od_irec *r = &pf->recs[k];
		uint64_t off = r->startoff, end = off + r->blockcount;

		if (r->unwritten)
			continue;
		moved += r->blockcount;
		/* less what an old record maps to the same blocks */
		for (; i < n; i++) {
			struct od_irec x;
			uint64_t lo, hi;

			m_ext_get(&ag->ext[mi->ext + first + i], &x);
			if (x.startoff + x.blockcount <= off)
				continue;
			if (x.startoff >= end)
				break;
			lo = x.startoff > off ? x.startoff : off;
			hi = x.startoff + x.blockcount < end ?
			     x.startoff + x.blockcount : end;
			if (x.startblock - x.startoff ==
			    r->startblock - r->startoff)
				moved -= hi - lo;
			if (x.startoff + x.blockcount > end)
				break;
		}
	}
	return moved;
}

void plan_gain_moved(const struct plan *p, struct plan_gain_val *val)
{
	const struct model *m = p->m;
	size_t i, c = 0, d = 0;
	uint32_t a;

	for (a = 0; a < m->agcount; a++)
		for (i = 0; i < m->ag[a].nino; i++, d++) {
			const struct m_ag *ag = &m->ag[a];
			const struct m_ino *mi = &ag->ino[i];

			memset(&val[d], 0, sizeof(val[d]));
			while (c < p->npf && p->pf[c].ino < mi->ino)
				c++;
			for (; c < p->npf && p->pf[c].ino == mi->ino; c++) {
				if (fork_same(ag, mi, &p->pf[c]))
					continue;
				val[d].moved = true;
				val[d].blocks += fork_copied(ag, mi, &p->pf[c]);
				val[d].joined += (int64_t)(p->pf[c].whichfork ==
					FORK_DATA ? mi->nde : mi->nae) -
					(int64_t)p->pf[c].nrecs;
			}
		}
}

int plan_gain_values(struct planner *pl, struct plan_gain_val *val)
{
	const struct walk *w = &pl->walk;
	const struct plan_gain *g = pl->gain;
	uint32_t prev = NOSLOT;	/* whose read came last, if it moved */
	size_t k;

	plan_gain_moved(pl->p, val);
	for (k = 0; k < w->nreached; k++) {
		uint32_t d = w->seq[k];
		const struct gcost *c = &g->diff[d];
		const struct m_ino *mi = pl->ref[d].mi;

		if (!od_mode_isdir(mi->mode) && !od_mode_isreg(mi->mode))
			continue;
		/* its cluster read: the inode before it when the plan keeps
		 * inode numbers (only that move changes it) */
		if (prev != NOSLOT) {
			val[prev].hdd += c->hc;
			val[prev].req += c->rc;
		}
		if (g->flag[d] & GF_CLUSTER)
			prev = NOSLOT;
		if (val[d].moved) {
			val[d].hdd += c->hd;
			val[d].req += c->rd;
			prev = d;
			continue;
		}
		/* read where it was: its first read gains or loses with the
		 * move of the read before it */
		if (prev != NOSLOT) {
			val[prev].hdd += c->hd;
			val[prev].req += c->rd;
		}
		if (g->flag[d] & GF_DATA)
			prev = NOSLOT;
	}
	return 0;
}

/*
 * AGs judged alone (plan_gain_ags): an AG whose moves all stay inside it
 * (no data comes in or leaves) is judged by what its moves add to the
 * rest of the plan: the read-back after the plan, against the same with
 * that AG's files where they are now.  That answer depends only on the
 * AG itself and the plan's layout of the rest, so a run on the result,
 * or a run in passes, judges the AG the same way.
 */
struct hybrid {
	const struct planner *pl;
	const struct plan_fork **dfork;	/* per dense: new data fork, NULL */
	const uint8_t *keep;		/* per dense: as now */
};

static bool hybrid_fork(void *priv, const struct m_ino *mi,
			const struct od_irec **recs, uint32_t *n)
{
	const struct hybrid *h = priv;
	const struct planner *pl = h->pl;
	uint32_t d = walk_dense(&pl->walk, &pl->m->ag[od_ino_agno(pl->g,
					mi->ino)], mi);
	const struct plan_fork *pf = h->dfork[d];

	if (!pf || h->keep[d])
		return false;
	*recs = pf->recs;
	*n = pf->nrecs;
	return true;
}

/* Unmark the inodes of AG ap's mappings. */
static void unmark(const struct agplan *ap, uint8_t *keep)
{
	size_t i;

	for (i = 0; i < ap->nmap; i++)
		keep[ap->map[i].ino_idx] = 0;
}

int plan_gain_ags(struct planner *pl, const struct agplan *aps, bool *drop,
		  size_t *ndrop)
{
	const struct model *m = pl->m;
	const struct plan *p = pl->p;
	struct hybrid h = { pl, NULL, NULL };
	bool *cross = calloc(m->agcount, sizeof(*cross));
	uint8_t *keep = calloc(pl->nref ? pl->nref : 1, 1);
	int64_t *joined = calloc(pl->nref ? pl->nref : 1, sizeof(*joined));
	size_t i, c = 0;
	uint32_t a;
	int ret = 0;

	*ndrop = 0;
	h.dfork = calloc(pl->nref ? pl->nref : 1, sizeof(*h.dfork));
	h.keep = keep;
	if (!cross || !keep || !joined || !h.dfork) {
		ret = -ENOMEM;
		goto out;
	}
	/* each inode's new data fork, and the records its forks join */
	for (i = 0; i < pl->nref; i++) {
		const struct m_ino *mi = pl->ref[i].mi;

		while (c < p->npf && p->pf[c].ino < mi->ino)
			c++;
		for (; c < p->npf && p->pf[c].ino == mi->ino; c++) {
			if (p->pf[c].whichfork == FORK_DATA)
				h.dfork[i] = &p->pf[c];
			joined[i] += (int64_t)(p->pf[c].whichfork == FORK_DATA ?
					       mi->nde : mi->nae) -
				     (int64_t)p->pf[c].nrecs;
		}
	}
	for (a = 0; a < m->agcount; a++)
		for (i = 0; i < aps[a].nunit; i++)
			if (aps[a].unit[i].target != a) {
				cross[a] = true;
				cross[aps[a].unit[i].target] = true;
			}
	for (a = 0; a < m->agcount && !ret; a++) {
		const struct agplan *ap = &aps[a];
		struct rb_fig f;
		int64_t join = 0;

		if (cross[a] || !p->ag[a].moved_blocks ||
		    !plan_lim_ag(pl, a))
			continue;
		for (i = 0; i < ap->nmap; i++) {
			uint32_t d = ap->map[i].ino_idx;

			if (!keep[d])
				join += joined[d];
			keep[d] = 1;
		}
		/* it joins extents: worth it, no need to measure */
		if (join > 0) {
			unmark(ap, keep);
			continue;
		}
		ret = readback_model(&pl->walk, hybrid_fork, &h, &f, pl->e) ?
		      -ENOMEM : 0;
		unmark(ap, keep);
		if (ret)
			break;
		if (plan_gain_worth(pl->g, f.hdd_seconds -
				    p->rb_after.hdd_seconds,
				    (int64_t)f.requests -
				    (int64_t)p->rb_after.requests,
				    p->ag[a].moved_blocks, join))
			continue;
		drop[a] = true;
		(*ndrop)++;
	}
out:
	free(cross);
	free(keep);
	free(joined);
	free(h.dfork);
	return ret;
}
