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

/* The records of a fork after the plan (new or unchanged). */
static uint32_t fork_after(const struct planner *pl, size_t idx, int fork,
			   struct od_irec *buf, uint32_t cap,
			   const struct od_irec **out)
{
	const struct m_ino *mi = pl->ref[idx].mi;
	const struct m_ag *ag = pl->ref[idx].ag;
	const struct plan_fork *pf = plan_fork_find(pl->p, mi->ino, fork);
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

static int cmp_u64v(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Bytes of originally-live blocks the moves write over (undo size). */
static uint64_t live_overwrite(const struct planner *pl)
{
	const struct od_geo *g = pl->g;
	const struct plan *p = pl->p;
	uint64_t blocks = 0;
	size_t i;

	for (i = 0; i < p->nmv; i++) {
		const struct plan_move *mv = &p->mv[i];
		uint32_t agno = (uint32_t)(mv->dst / g->agblocks);
		uint32_t b0 = (uint32_t)(mv->dst % g->agblocks), b1 = b0 + mv->len;
		const struct m_ag *ag = &pl->m->ag[agno];
		uint64_t freeb = 0;
		size_t k;

		for (k = 0; k < ag->nfree; k++) {
			uint32_t lo = ag->freesp[k].agbno, hi = lo + ag->freesp[k].len;

			if (lo < b0)
				lo = b0;
			if (hi > b1)
				hi = b1;
			if (lo < hi)
				freeb += hi - lo;
		}
		blocks += mv->len - freeb;
	}
	return blocks << g->blocklog;
}

static bool noted(const struct plan *p, uint64_t ino)
{
	size_t lo = 0, hi = p->nnote;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->note[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nnote && p->note[lo].ino == ino;
}

/* The read-back model's view of the plan: each data fork's new records. */
static bool rb_fork(void *priv, const struct m_ino *mi,
		    const struct od_irec **recs, uint32_t *n)
{
	const struct plan_fork *pf = plan_fork_find(priv, mi->ino, FORK_DATA);

	if (!pf)
		return false;
	*recs = pf->recs;
	*n = pf->nrecs;
	return true;
}

static uint64_t rb_ino(void *priv, uint64_t ino)
{
	return plan_ino_new(priv, ino);
}

/* The read-back after the plan: new data maps, inodes where they go. */
static int rb_after(struct planner *pl)
{
	struct plan *p = pl->p;
	struct rb_layout lay = { rb_ino, p, NULL, NULL };
	uint32_t **ch = NULL, a;
	size_t *n = NULL;
	int ret = 0;

	if (!p->nino)
		return readback_model(&pl->walk, rb_fork, p, &p->rb_after,
				      pl->e) ? -ENOMEM : 0;
	ch = calloc(pl->m->agcount, sizeof(*ch));
	n = calloc(pl->m->agcount, sizeof(*n));
	if (!ch || !n)
		ret = -ENOMEM;
	for (a = 0; a < pl->m->agcount && !ret; a++)
		ret = plan_ino_chunks_after(pl, a, &ch[a], &n[a]);
	lay.chunks = ch;
	lay.nchunks = n;
	if (!ret && readback_model_layout(&pl->walk, rb_fork, p, &lay,
					  &p->rb_after, pl->e))
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
	uint64_t *dist = NULL;
	size_t i, nd = 0;

	dist = malloc((pl->nref ? pl->nref : 1) * sizeof(*dist));
	if (!dist)
		return -ENOMEM;
	for (i = 0; i < pl->nref; i++) {
		const struct m_ino *mi = pl->ref[i].mi;
		uint16_t t = mi->mode & 0170000;
		const struct od_irec *r;
		uint32_t n;
		int fork;

		p->extents_before += mi->nde + mi->nae;
		for (fork = FORK_DATA; fork <= FORK_ATTR; fork++) {
			uint32_t want = fork == FORK_DATA ? mi->nde : mi->nae;

			if (want > 64 && buf == small) {
				buf = malloc(((size_t)mi->nde + mi->nae + 64) *
					     sizeof(*buf));
				if (!buf) {
					free(dist);
					return -ENOMEM;
				}
			} else if (want > 64) {
				struct od_irec *nb = realloc(buf, ((size_t)want + 64) *
							     sizeof(*buf));

				if (!nb) {
					free(buf);
					free(dist);
					return -ENOMEM;
				}
				buf = nb;
			}
			n = fork_after(pl, i, fork, buf, want, &r);
			p->extents_after += n;
			if (frag_fork_counts(mi, fork)) {
				struct frag_count fc = { 0, 0 };

				frag_add(&fc, r, n);
				p->frag_actual_after += fc.actual;
				p->frag_ideal_after += fc.ideal;
				if (!noted(p, mi->ino)) {
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
						plan_ino_new(p, mi->ino));

					dist[nd++] = a > b ? a - b : b - a;
				}
			}
		}
	}
	if (buf != small)
		free(buf);
	if (nd) {
		sort_any(dist, nd, sizeof(*dist), cmp_u64v);
		p->dist_median_after = dist[(nd - 1) / 2];
		p->dist_p90_after = dist[(size_t)((nd * 90 + 99) / 100) - 1];
		p->dist_max_after = dist[nd - 1];
	}
	free(dist);
	p->undo_estimate = live_overwrite(pl);
	if (readback_model(&pl->walk, NULL, NULL, &p->rb_now, pl->e))
		return -ENOMEM;
	return rb_after(pl);
}
