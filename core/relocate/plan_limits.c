/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Limits on a plan (plan_limits.h).  Each inode gets flags: HARD, its
 * inode, extents and bmap blocks all lie in AGs that may change (else it
 * must not move at all); SOFT, the path and extent limits select it.  A
 * unit moves only if every owner is HARD and some owner is SOFT.
 */
#include "core/relocate/plan_limits_priv.h"
#include "core/base/sort.h"
#include "ondisk/inode.h"

#include <stdlib.h>
#include <string.h>

#define LF_HARD		0x01	/* may move as far as the AGs go */
#define LF_SOFT		0x02	/* the path and extent limits select it */
#define LF_BMBT_IN	0x04	/* has bmap blocks in AGs that may change */
#define LF_BMBT_OUT	0x08	/* ... and in AGs that may not */
#define LF_REBUILT	0x10	/* a bmap btree of it is rebuilt (settle) */

struct plim {
	bool near;		/* limits.only: a few chosen inodes move */
	bool *ag;		/* per AG: data may move in and out */
	uint32_t *home;		/* per dense inode: AG a full plan gives it */
	uint32_t **uhome;	/* per AG, per unit: its first owner's home */
	bool *touched;		/* per AG: changes, its btrees rebuilt */
	bool settled;		/* touched[] is known (after placement) */
	uint8_t *f;		/* per dense inode index */
};

bool plan_limits_any(const struct plan_limits *l)
{
	return l && (l->ags || l->nroots || l->min_extents > 1 || l->focus ||
		     l->only);
}

bool plan_lim_ag(const struct planner *pl, uint32_t agno)
{
	return !pl->lim || pl->lim->ag[agno];
}

bool plan_lim_near(const struct planner *pl)
{
	return pl->lim && pl->lim->near;
}

bool plan_lim_movable(const struct planner *pl, uint32_t idx)
{
	return !pl->lim || (pl->lim->f[idx] & (LF_HARD | LF_SOFT)) ==
			   (LF_HARD | LF_SOFT);
}

bool plan_lim_rebuild(const struct planner *pl, uint32_t agno)
{
	return !pl->lim || !pl->lim->settled || pl->lim->touched[agno];
}

bool plan_lim_keep(const struct planner *pl, uint32_t idx)
{
	return pl->lim && pl->lim->settled &&
	       !(pl->lim->f[idx] & LF_REBUILT);
}

static int dense_of(const struct planner *pl, uint64_t ino, uint32_t *idx)
{
	const struct m_ag *ag;
	const struct m_ino *mi = model_find(pl->m, ino, &ag);

	if (!mi)
		return -ENOENT;
	*idx = walk_dense(&pl->walk, ag, mi);
	return 0;
}

/* bmap btree blocks: which side of the AG set each owner's lie on. */
static void mark_bmbt(struct planner *pl, struct plim *l)
{
	const struct model *m = pl->m;
	uint32_t a, idx;
	size_t k;

	for (k = 0; k < pl->nref; k++)
		l->f[k] &= (uint8_t)~(LF_BMBT_IN | LF_BMBT_OUT);
	for (a = 0; a < m->agcount; a++)
		for (k = 0; k < m->ag[a].nmeta; k++) {
			const struct m_meta_blk *mb = &m->ag[a].meta[k];

			if (mb->kind != MM_BMBT || dense_of(pl, mb->owner, &idx))
				continue;
			l->f[idx] |= l->ag[a] ? LF_BMBT_IN : LF_BMBT_OUT;
		}
}

static int cmp_link(const void *a, const void *b)
{
	const struct m_link *x = a, *y = b;

	return x->parent < y->parent ? -1 : x->parent > y->parent;
}

/* SOFT for everything under the roots (directory links, breadth first). */
static int mark_paths(struct planner *pl, struct plim *l,
		      const struct plan_limits *lim, uint8_t *sel)
{
	const struct model *m = pl->m;
	struct m_link *lk = NULL;
	uint64_t *queue = NULL;
	size_t n = 0, i, qh = 0, qt = 0;
	uint32_t a, idx;
	int ret = 0;

	for (a = 0; a < m->agcount; a++)
		n += m->ag[a].nlink;
	lk = malloc((n ? n : 1) * sizeof(*lk));
	queue = malloc((pl->nref + lim->nroots + 1) * sizeof(*queue));
	if (!lk || !queue) {
		ret = -ENOMEM;
		goto out;
	}
	for (a = 0, n = 0; a < m->agcount; a++) {
		memcpy(lk + n, m->ag[a].link, m->ag[a].nlink * sizeof(*lk));
		n += m->ag[a].nlink;
	}
	sort_any(lk, n, sizeof(*lk), cmp_link);
	for (i = 0; i < lim->nroots; i++)
		if (!dense_of(pl, lim->roots[i], &idx) && !sel[idx]) {
			sel[idx] = 1;
			queue[qt++] = lim->roots[i];
		}
	while (qh < qt) {
		uint64_t dir = queue[qh++];
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (lk[mid].parent < dir)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && lk[lo].parent == dir; lo++) {
			if (dense_of(pl, lk[lo].child, &idx) || sel[idx])
				continue;
			sel[idx] = 1;
			queue[qt++] = lk[lo].child;
		}
	}
	(void)l;
out:
	free(lk);
	free(queue);
	return ret;
}

static int grow_push(uint32_t **v, size_t *n, uint32_t x)
{
	uint32_t *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = x;
	*v = nv;
	return 0;
}

int plan_lim_setup(struct planner *pl, const struct plan_limits *lim)
{
	const struct model *m = pl->m;
	const struct od_geo *g = pl->g;
	uint8_t *sel = NULL;
	struct plim *l;
	uint32_t a, k;
	size_t i;
	int ret = 0;

	if (!plan_limits_any(lim))
		return 0;
	pl->p->limited = true;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	pl->lim = l;
	l->ag = calloc(m->agcount, sizeof(*l->ag));
	l->f = calloc(pl->nref ? pl->nref : 1, 1);
	l->uhome = calloc(m->agcount, sizeof(*l->uhome));
	if (!l->ag || !l->f || !l->uhome)
		return -ENOMEM;
	if (lim->focus && lim->home) {
		uint32_t idx;

		l->home = malloc((pl->nref ? pl->nref : 1) * sizeof(*l->home));
		if (!l->home)
			return -ENOMEM;
		for (i = 0; i < pl->nref; i++)
			l->home[i] = od_ino_agno(g, pl->ref[i].mi->ino);
		for (i = 0; i < lim->nhome; i++)
			if (!dense_of(pl, lim->home[i].ino, &idx) &&
			    lim->home[i].agno < m->agcount)
				l->home[idx] = lim->home[i].agno;
	}
	l->near = lim->only != NULL;
	l->touched = calloc(m->agcount, sizeof(*l->touched));
	if (!l->touched)
		return -ENOMEM;
	for (a = 0; a < m->agcount; a++)
		l->ag[a] = !lim->ags || lim->ags[a];
	mark_bmbt(pl, l);
	if (lim->nroots) {
		sel = calloc(pl->nref ? pl->nref : 1, 1);
		if (!sel)
			return -ENOMEM;
		ret = mark_paths(pl, l, lim, sel);
	}
	for (i = 0; i < pl->nref && !ret; i++) {
		const struct m_ino *mi = pl->ref[i].mi;
		const struct m_ag *ag = plan_ref_ag(pl, i);
		bool hard = l->ag[od_ino_agno(g, mi->ino)] &&
			    !(l->f[i] & LF_BMBT_OUT);
		bool focus = !lim->focus || lim->focus[l->home ? l->home[i] :
						       od_ino_agno(g, mi->ino)];

		for (k = 0; k < mi->nde + mi->nae && (hard || !focus); k++) {
			struct od_irec x;
			uint32_t xa;

			if ((mi->flags & MI_REALTIME) && k < mi->nde)
				continue;
			m_ext_get(&ag->ext[mi->ext + k], &x);
			xa = od_fsb_agno(g, x.startblock);
			if (!l->ag[xa])
				hard = false;
			if (lim->focus && lim->focus[xa])
				focus = true;
		}
		if (hard)
			l->f[i] |= LF_HARD;
		if ((!sel || sel[i]) && focus && (!lim->only || lim->only[i]) &&
		    (lim->min_extents <= 1 || mi->nde >= lim->min_extents)) {
			l->f[i] |= LF_SOFT;
			if (hard && od_mode_isreg(mi->mode))
				pl->p->files_selected++;
		}
	}
	free(sel);
	return ret;
}

void plan_lim_release(struct planner *pl)
{
	if (!pl->lim)
		return;
	for (uint32_t a = 0; pl->lim->uhome && a < pl->m->agcount; a++)
		free(pl->lim->uhome[a]);
	free(pl->lim->uhome);
	free(pl->lim->home);
	free(pl->lim->ag);
	free(pl->lim->touched);
	free(pl->lim->f);
	free(pl->lim);
	pl->lim = NULL;
}

int plan_lim_pin(struct agplan *ap)
{
	const struct planner *pl = ap->pl;
	uint8_t *st;	/* per unit: 1 some owner selected, 2 some owner stuck */
	size_t i;

	if (!pl->lim)
		return 0;
	st = calloc(ap->nunit ? ap->nunit : 1, 1);
	if (!st)
		return -ENOMEM;
	if (pl->lim->home) {
		uint32_t **uh = &pl->lim->uhome[ap->agno];

		free(*uh);
		*uh = malloc((ap->nunit ? ap->nunit : 1) * sizeof(**uh));
		if (!*uh) {
			free(st);
			return -ENOMEM;
		}
		for (i = 0; i < ap->nunit; i++)
			(*uh)[i] = ~0u;
		for (i = 0; i < ap->nmap; i++)
			if ((*uh)[ap->map[i].unit] == ~0u)
				(*uh)[ap->map[i].unit] =
					pl->lim->home[ap->map[i].ino_idx];
	}
	for (i = 0; i < ap->nmap; i++) {
		const struct pmap *pm = &ap->map[i];
		uint8_t f = pl->lim->f[pm->ino_idx];

		if (!(f & LF_HARD))
			st[pm->unit] |= 2;
		else if (f & LF_SOFT)
			st[pm->unit] |= 1;
	}
	for (i = 0; i < ap->nunit; i++)
		if (st[i] != 1)
			ap->pinned[i] = 1;
	free(st);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

bool plan_lim_home(const struct agplan *aps, const struct unit_ref *u,
		   uint32_t *agno)
{
	const struct plim *l = aps[u->agno].pl->lim;

	if (!l || !l->home || !l->uhome[u->agno])
		return false;
	*agno = l->uhome[u->agno][u->idx];
	return *agno != ~0u;
}

static bool unit_moved(const struct agplan *ap, const struct unit *un)
{
	uint32_t k;

	for (k = 0; k < un->npieces; k++)
		if (un->target != ap->agno ||
		    ap->piece[un->piece0 + k].dst !=
		    un->start + ap->piece[un->piece0 + k].off)
			return true;
	return false;
}

/* The first extent's AG of a btree fork of idx (where its rebuilt bmap
 * blocks go first). */
static uint32_t first_ag(const struct planner *pl, uint32_t idx)
{
	const struct m_ino *mi = pl->ref[idx].mi;
	const struct m_ag *ag = plan_ref_ag(pl, idx);
	struct od_irec x;
	uint32_t k = m_dfmt(mi) == OD_FMT_BTREE ? 0 : mi->nde;

	if (k >= mi->nde + mi->nae)
		return od_ino_agno(pl->g, mi->ino);
	m_ext_get(&ag->ext[mi->ext + k], &x);
	return od_fsb_agno(pl->g, x.startblock);
}

/*
 * After placement: the AGs that change are those data moves out of or
 * into, and those holding bmap btree blocks of a fork that is rebuilt
 * (freed there) or taking the rebuilt blocks.  A btree fork is rebuilt
 * when its file moves, or when any of its bmap blocks lies in an AG that
 * changes (a rebuilt AG keeps only the bmap blocks the plan lists);
 * otherwise it is kept as it is.  Repeat until nothing more changes.
 */
int plan_lim_settle(struct planner *pl, struct agplan *aps)
{
	const struct model *m = pl->m;
	struct plim *l = pl->lim;
	bool again = true;
	uint32_t a, idx;
	size_t i, k;

	if (!l)
		return 0;
	for (a = 0; a < m->agcount; a++)
		for (i = 0; i < aps[a].nunit; i++) {
			const struct unit *un = &aps[a].unit[i];

			if (unit_moved(&aps[a], un))
				l->touched[a] = l->touched[un->target] = true;
		}
	for (k = 0; k < pl->nref; k++)
		if (plan_lim_movable(pl, (uint32_t)k))
			l->f[k] |= LF_REBUILT;
	while (again) {
		again = false;
		for (a = 0; a < m->agcount; a++)
			for (k = 0; k < m->ag[a].nmeta; k++) {
				const struct m_meta_blk *mb = &m->ag[a].meta[k];

				if (mb->kind != MM_BMBT ||
				    dense_of(pl, mb->owner, &idx))
					continue;
				if (l->touched[a] && !(l->f[idx] & LF_REBUILT)) {
					l->f[idx] |= LF_REBUILT;
					again = true;
				}
				if ((l->f[idx] & LF_REBUILT) && !l->touched[a]) {
					l->touched[a] = true;
					again = true;
				}
				if ((l->f[idx] & LF_REBUILT) &&
				    !l->touched[first_ag(pl, idx)]) {
					l->touched[first_ag(pl, idx)] = true;
					again = true;
				}
			}
	}
	l->settled = true;
	for (a = 0; a < m->agcount; a++)
		if (l->touched[a] && !l->ag[a] &&
		    grow_push(&pl->p->ag_added, &pl->p->nag_added, a))
			return -ENOMEM;
	return 0;
}

int plan_lim_finish(struct planner *pl, struct agplan *aps)
{
	const struct model *m = pl->m;
	struct plan *p = pl->p;
	size_t i, n = 0, cap = 0;
	uint32_t a;

	if (!pl->lim)
		return 0;
	/*
	 * Inodes that get new numbers, chunks added or dropped (plan.h,
	 * renumbering) change the inode btrees of their AGs: rebuild those.
	 */
	for (i = 0; i < p->nino; i++) {
		pl->lim->touched[od_ino_agno(pl->g, p->ino[i].old)] = true;
		pl->lim->touched[od_ino_agno(pl->g, p->ino[i].new)] = true;
	}
	for (i = 0; i < p->nich; i++)
		pl->lim->touched[od_ino_agno(pl->g, p->ich[i].startino)] = true;
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];
		struct plan_ag *pa = &p->ag[a];
		const struct agplan *ap = &aps[a];

		for (i = 0; i < ap->nmap; i++) {
			const struct pmap *pm = &ap->map[i];
			uint64_t *nv;

			if (pl->lim->f[pm->ino_idx] & LF_SOFT ||
			    !unit_moved(ap, &ap->unit[pm->unit]))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				nv = realloc(p->inway, cap * sizeof(*nv));
				if (!nv)
					return -ENOMEM;
				p->inway = nv;
			}
			p->inway[n++] = pl->ref[pm->ino_idx].mi->ino;
		}
		if (pl->lim->touched[a])
			continue;
		/* left alone: its free space stays as the model has it */
		free(pa->freesp);
		pa->freesp = malloc((ag->nfree ? ag->nfree : 1) *
				    sizeof(*pa->freesp));
		if (!pa->freesp)
			return -ENOMEM;
		memcpy(pa->freesp, ag->freesp, ag->nfree * sizeof(*pa->freesp));
		pa->nfreesp = ag->nfree;
		pa->nfree_after = ag->nfree;
		pa->free_after = pa->free_before;
		pa->longest_after = pa->longest_before;
		pa->bt_start = pa->bt_len = 0;
		pa->moved_blocks = 0;
		pa->changed = false;
	}
	sort_any(p->inway, n, sizeof(*p->inway), cmp_u64);
	for (i = 0, p->ninway = 0; i < n; i++)
		if (!p->ninway || p->inway[p->ninway - 1] != p->inway[i])
			p->inway[p->ninway++] = p->inway[i];
	return 0;
}
