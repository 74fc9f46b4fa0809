// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TEMPORARY test hook until the inode planner lands: with
 * XFSDEFRAG_DEBUG_RENUM=N set, the executor moves the inodes of the
 * first N chunks (not root's) into new chunks placed in space free
 * before and after the plan, and drops the old chunks.
 */
#include "core/relocate/exec_priv.h"
#include "core/base/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool free_in(const struct m_free *f, size_t n, uint32_t b, uint32_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b >= f[i].agbno && b + len <= f[i].agbno + f[i].len)
			return true;
	return false;
}

static int cmp_free(const void *a, const void *b)
{
	const struct m_free *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

/* Take [b, b+len) out of pa's free list, give [ob, ob+len) to it. */
static int carve(struct plan_ag *pa, uint32_t b, uint32_t len, uint32_t ob)
{
	struct m_free *nf = malloc((pa->nfreesp + 2) * sizeof(*nf));
	size_t i, n = 0, k;

	if (!nf)
		return -ENOMEM;
	for (i = 0; i < pa->nfreesp; i++) {
		struct m_free f = pa->freesp[i];

		if (b >= f.agbno && b + len <= f.agbno + f.len) {
			if (b > f.agbno)
				nf[n++] = (struct m_free){ f.agbno, b - f.agbno };
			if (b + len < f.agbno + f.len)
				nf[n++] = (struct m_free){ b + len,
					f.agbno + f.len - b - len };
		} else {
			nf[n++] = f;
		}
	}
	nf[n++] = (struct m_free){ ob, len };
	sort_any(nf, n, sizeof(*nf), cmp_free);
	for (i = 1, k = 1; i < n; i++) {
		if (nf[k - 1].agbno + nf[k - 1].len == nf[i].agbno)
			nf[k - 1].len += nf[i].len;
		else
			nf[k++] = nf[i];
	}
	pa->freesp = nf;	/* the copy's own; the old one is the plan's */
	pa->nfreesp = k;
	pa->free_after = pa->free_after;
	return 0;
}

int exec_debug_plan(const struct model *m, const struct plan *p,
		    struct plan *q, struct err *e)
{
	const char *env = getenv("XFSDEFRAG_DEBUG_RENUM");
	const struct od_geo *g = &m->fs->geo;
	long want = env ? strtol(env, NULL, 10) : 0;
	uint32_t cb = g->inopblock >= 64 ? 1 : 64 / g->inopblock;
	uint32_t al = g->cluster_align > cb ? g->cluster_align : cb;
	uint64_t root = m->fs->sb.rootino;
	uint32_t a;
	size_t i, k;
	long done = 0;

	*q = *p;
	if (want <= 0 || p->nino || p->nich)
		return 0;
	q->ag = malloc(m->agcount * sizeof(*q->ag));
	q->ino = malloc(m->ninodes * sizeof(*q->ino) + 1);
	q->ich = malloc(2 * (size_t)want * sizeof(*q->ich) + 1);
	if (!q->ag || !q->ino || !q->ich)
		return err_set(e, -ENOMEM, "out of memory");
	memcpy(q->ag, p->ag, m->agcount * sizeof(*q->ag));
	q->nino = q->nich = 0;
	for (a = 0; a < m->agcount && done < want; a++) {
		const struct m_ag *ag = &m->ag[a];
		struct plan_ag *pa = &q->ag[a];

		for (i = 0; i < ag->nchunk && done < want; i++) {
			const struct od_inobt_rec *c = &ag->chunk[i];
			uint64_t s0 = od_agino_ino(g, a, c->startino);
			uint32_t ob = od_agino_agbno(g, c->startino), b = 0;
			bool found = false;

			if (root >= s0 && root < s0 + 64)
				continue;
			for (k = 0; k < pa->nfreesp && !found; k++) {
				uint32_t fb = pa->freesp[k].agbno;

				b = (fb + al - 1) / al * al;
				/* a sparse chunk keeps its offset */
				for (; b + cb <= fb + pa->freesp[k].len; b += al)
					if (free_in(ag->freesp, ag->nfree, b,
						    cb)) {
						found = true;
						break;
					}
			}
			if (!found)
				break;
			if (carve(pa, b, cb, ob))
				return err_set(e, -ENOMEM, "out of memory");
			q->ich[q->nich++] = (struct plan_ichunk){
				od_agino_ino(g, a, b << g->inopblog),
				c->holemask, true };
			q->ich[q->nich++] = (struct plan_ichunk){ s0,
				c->holemask, false };
			for (k = 0; k < 64; k++)
				if (od_inobt_inuse(c, (unsigned)k))
					q->ino[q->nino++] = (struct plan_ino){
						s0 + k, od_agino_ino(g, a,
						(b << g->inopblog) + (uint32_t)k) };
			done++;
		}
	}
	/* sort ich by startino, ino by old */
	for (i = 1; i < q->nich; i++)
		for (k = i; k > 0 && q->ich[k - 1].startino >
		     q->ich[k].startino; k--) {
			struct plan_ichunk t = q->ich[k];

			q->ich[k] = q->ich[k - 1];
			q->ich[k - 1] = t;
		}
	fprintf(stderr, "debug: renumbering %zu inodes, %zu chunk changes\n",
		q->nino, q->nich);
	return 0;
}

void exec_debug_free(const struct plan *p, struct plan *q)
{
	uint32_t a;

	if (q->ag == p->ag)
		return;
	for (a = 0; q->m && a < q->m->agcount; a++)
		if (q->ag[a].freesp != p->ag[a].freesp)
			free(q->ag[a].freesp);
	free(q->ag);
	free(q->ino);
	free(q->ich);
}
