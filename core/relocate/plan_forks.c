/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The new extent lists: each fork's mappings through the pieces its
 * units were placed as (the moves), then every fork's new records
 * gathered from all AGs, sorted and merged; the forks that change, and
 * why what stays apart does, go into the plan.
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits_priv.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/relocate/btbuild.h"
#include "core/fs/fork.h"
#include "ondisk/inode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* New mapping records of every fork, from all AGs, before merging. */
struct nrec {
	uint32_t ino_idx;
	uint8_t fork;
	uint8_t why;		/* NR_SPLIT | NR_SHARED: of the unit it came from */
	struct od_irec r;
};

#define NR_SPLIT	0x1
#define NR_SHARED	0x2

static int nrec_add(struct nrecs *nr, uint32_t ino_idx, uint8_t fork,
		    uint8_t why, const struct od_irec *r)
{
	if (bigmem_grow((void **)&nr->v, &nr->cap, nr->n, sizeof(*nr->v)))
		return -ENOMEM;
	nr->v[nr->n].ino_idx = ino_idx;
	nr->v[nr->n].fork = fork;
	nr->v[nr->n].why = why;
	nr->v[nr->n].r = *r;
	nr->n++;
	return 0;
}

/* Map each fork mapping through its unit's pieces; record the moves. */
int plan_remap(struct agplan *ap, struct nrecs *nr)
{
	struct planner *pl = ap->pl;
	const struct od_geo *g = pl->g;
	struct plan *p = pl->p;
	size_t i;
	uint32_t k;

	for (i = 0; i < ap->nmap; i++) {
		const struct pmap *pm = &ap->map[i];
		const struct unit *un = &ap->unit[pm->unit];
		uint32_t off = pm->start - un->start;

		for (k = 0; k < un->npieces; k++) {
			const struct piece *pc = &ap->piece[un->piece0 + k];
			uint32_t lo = off > pc->off ? off : pc->off;
			uint32_t hi = off + pm->len < pc->off + pc->len ?
				      off + pm->len : pc->off + pc->len;
			struct od_irec r;

			if (lo >= hi)
				continue;
			r.startoff = pm->startoff + (lo - off);
			r.startblock = od_agb_fsb(g, un->target,
						  pc->dst + (lo - pc->off));
			r.blockcount = hi - lo;
			r.unwritten = pm->unwritten;
			if (nrec_add(nr, pm->ino_idx, pm->fork,
				     (uint8_t)((un->npieces > 1 ? NR_SPLIT : 0) |
					       (un->shared ? NR_SHARED : 0)),
				     &r))
				return -ENOMEM;
		}
	}
	/* the copies: every piece that lands somewhere new */
	for (i = 0; i < ap->nunit; i++) {
		const struct unit *un = &ap->unit[i];
		/* unwritten blocks read as zeroes wherever they are */
		bool nocopy = !un->written;

		for (k = 0; k < un->npieces; k++) {
			const struct piece *pc = &ap->piece[un->piece0 + k];
			struct plan_move *mv;

			if (un->target == ap->agno &&
			    pc->dst == un->start + pc->off)
				continue;
			if (bigmem_grow((void **)&p->mv, &p->cap_mv, p->nmv,
					sizeof(*p->mv)))
				return -ENOMEM;
			mv = &p->mv[p->nmv++];
			mv->src = od_agb_lin(g, ap->agno, un->start + pc->off);
			mv->dst = od_agb_lin(g, un->target, pc->dst);
			mv->len = pc->len;
			mv->flags = nocopy ? PM_NOCOPY : 0;
			p->moved_blocks += pc->len;
			if (!nocopy)
				p->copied_blocks += pc->len;
		}
	}
	return 0;
}

/* The new records by inode, fork, then file offset. */
static uint64_t nrec_field(const void *e, unsigned f, const void *arg)
{
	const struct nrec *r = e;

	(void)arg;
	return f == 0 ? (uint64_t)r->ino_idx << 8 | r->fork : r->r.startoff;
}

/* Can b follow a in one record?  (Symlink headers sit at record starts.) */
static bool can_merge(const struct od_irec *a, const struct od_irec *b,
		      uint8_t ftype)
{
	return ftype != PF_SYMLINK &&
	       a->startoff + a->blockcount == b->startoff &&
	       a->startblock + a->blockcount == b->startblock &&
	       a->unwritten == b->unwritten &&
	       (uint64_t)a->blockcount + b->blockcount <= OD_MAX_EXTLEN;
}

static bool same_as_model(const struct planner *pl, uint32_t idx, int fork,
			  const struct od_irec *r, uint32_t n)
{
	const struct m_ino *mi = pl->ref[idx].mi;
	const struct m_ag *ag = plan_ref_ag(pl, idx);
	uint32_t first = fork == FORK_DATA ? 0 : mi->nde;
	uint32_t cnt = fork == FORK_DATA ? mi->nde : mi->nae, k;

	if (cnt != n)
		return false;
	for (k = 0; k < n; k++) {
		struct od_irec x;

		m_ext_get(&ag->ext[mi->ext + first + k], &x);
		if (memcmp(&x, &r[k], sizeof(x)) != 0 &&
		    (x.startoff != r[k].startoff ||
		     x.startblock != r[k].startblock ||
		     x.blockcount != r[k].blockcount ||
		     x.unwritten != r[k].unwritten))
			return false;
	}
	return true;
}

static int add_note(struct plan *p, uint64_t ino, uint32_t extents,
		    const char *why)
{
	if (bigmem_grow((void **)&p->note, &p->cap_note, p->nnote,
			sizeof(*p->note)))
		return -ENOMEM;
	p->note[p->nnote].ino = ino;
	p->note[p->nnote].extents = extents;
	p->note[p->nnote].why = why;
	p->nnote++;
	return 0;
}

/* Why logically adjacent records of a fork stay apart after the run. */
static const char *unmerged_reason(const struct od_geo *g,
				   const struct od_irec *r, size_t n,
				   uint8_t why)
{
	bool state = false, agx = false, maxlen = false;
	size_t k;

	for (k = 1; k < n; k++) {
		if (r[k].startoff != r[k - 1].startoff + r[k - 1].blockcount)
			continue;
		if (r[k].unwritten != r[k - 1].unwritten)
			state = true;
		else if (od_fsb_agno(g, r[k].startblock) !=
			 od_fsb_agno(g, r[k - 1].startblock))
			agx = true;
		else if (r[k - 1].startblock + r[k - 1].blockcount ==
			 r[k].startblock)
			maxlen = true;
	}
	if (why & NR_SHARED)
		return "shares blocks with other files (reflink): those move "
		       "as one piece with all their owners";
	if (state)
		return "written and unwritten (preallocated) ranges alternate; "
		       "one extent record cannot hold both";
	if (why & NR_SPLIT)
		return "no free window is large enough (inode chunks, the log "
		       "or the AG end are in the way)";
	if (agx)
		return "its data is in more than one AG: no room for all of it "
		       "in one";
	if (maxlen)
		return "longer than the largest extent record (2^21-1 blocks)";
	return "no free window is large enough for all of it (inode chunks, "
	       "the log or the AG end are in the way)";
}

/*
 * Merge each fork's new records; keep the forks that change, or whose
 * bmap btree must be rebuilt anyway (its old blocks are not kept).  The
 * merged records go into nr's own array, over the ones already read
 * (a record is smaller than a struct nrec, and a fork never has more
 * merged records than new ones), which becomes the plan's p->recpool.
 */
int plan_collect_forks(struct planner *pl, struct nrecs *nr)
{
	const struct od_geo *g = pl->g;
	struct plan *p = pl->p;
	struct od_irec *pool = (struct od_irec *)(void *)nr->v;
	size_t i = 0, out = 0;

	_Static_assert(sizeof(struct od_irec) <= sizeof(struct nrec),
		       "records merged in place");
	if (sort_by_fields(nr->v, nr->n, sizeof(*nr->v), 2, nrec_field, NULL))
		return -ENOMEM;
	while (i < nr->n) {
		uint32_t idx = nr->v[i].ino_idx;
		uint8_t fork = nr->v[i].fork, why = 0;
		const struct m_ino *mi = pl->ref[idx].mi;
		uint8_t ftype = plan_fork_ftype(mi, fork);
		struct od_irec *recs = pool + out;
		size_t j = i, n = 0, cnt;
		int fmt = fork == FORK_DATA ? m_dfmt(mi) : m_afmt(mi);
		struct plan_fork *pf;
		uint64_t runs = 0;

		while (j < nr->n && nr->v[j].ino_idx == idx &&
		       nr->v[j].fork == fork)
			j++;
		for (; i < j; i++) {
			/* read whole before recs[n] may overlap it */
			struct od_irec r = nr->v[i].r;

			why |= nr->v[i].why;
			if (n && can_merge(&recs[n - 1], &r, ftype))
				recs[n - 1].blockcount += r.blockcount;
			else
				recs[n++] = r;
		}
		for (cnt = 0; cnt < n; cnt++)
			if (!cnt || recs[cnt].startoff != recs[cnt - 1].startoff +
						       recs[cnt - 1].blockcount)
				runs++;
		if (fork == FORK_DATA && od_mode_isreg(mi->mode) && n > runs &&
		    plan_lim_movable(pl, idx) && add_note(p, mi->ino, (uint32_t)n,
			     unmerged_reason(g, recs, n, why)))
			return -ENOMEM;
		if ((fmt != OD_FMT_BTREE || plan_lim_keep(pl, idx)) &&
		    same_as_model(pl, idx, fork, recs, (uint32_t)n))
			continue;	/* (its records are written over) */
		if (bigmem_grow((void **)&p->pf, &p->cap_pf, p->npf,
				sizeof(*p->pf)))
			return -ENOMEM;
		pf = &p->pf[p->npf++];
		memset(pf, 0, sizeof(*pf));
		pf->ino = mi->ino;
		pf->whichfork = fork;
		pf->ftype = ftype;
		pf->nrecs = (uint32_t)n;
		pf->recs = recs;
		pf->nbmbt = btbuild_nblocks(g, OD_BT_BMAP, n,
					    plan_fork_len(g, mi, fork));
		out += n;
	}
	/* the pool is the plan's now; what it no longer uses goes back */
	p->recpool = pool;
	p->recpool_bytes = nr->cap * sizeof(*nr->v);
	bigmem_release_tail(pool, p->recpool_bytes, out * sizeof(*pool));
	nr->v = NULL;
	nr->n = nr->cap = 0;
	return 0;
}

void plan_nrecs_free(struct nrecs *nr)
{
	bigmem_free(nr->v, nr->cap, sizeof(*nr->v));
	nr->v = NULL;
	nr->n = nr->cap = 0;
}
