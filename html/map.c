/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML report's block maps: per AG, a grid of cells, each the class
 * that holds most of its blocks (the TUI map's rule, blkmap_query.c), and
 * what holds most of that class in it (a file, a chunk, a btree...), for
 * the cell's tooltip.  Both come straight from the model, with blkmap.c's
 * rules (sparse chunk holes left out, AGFL slots free, realtime data not
 * on this device, a fork in several physical runs fragmented, the log
 * metadata); "after" puts what a plan changes in place: the moved forks'
 * new extents and bmap btree blocks, the AG's free extents after the run
 * and the run reserved for its rebuilt btrees, the inode chunks it makes
 * and frees.  AG headers, the log and AGFL blocks stay where they are
 * (plan.h).
 */
#include "html/priv.h"
#include "core/fs/fork.h"
#include "ondisk/geo.h"
#include "ondisk/inobt.h"
#include "ondisk/inode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The largest holder of one class in a cell so far. */
struct own {
	struct html_holder h;
	uint64_t n;
};

struct acc {
	uint64_t (*cnt)[BC_NCLASS];
	struct own (*own)[BC_NCLASS];
	struct html_holder *last;	/* the cell's last holder added */
	uint32_t *nhold;		/* changes of holder in the cell */
	uint32_t ncells;
	uint32_t blocks;	/* of the AG */
	uint32_t gone;		/* a shrink: blocks from here on are gone */
	uint64_t bpc;
	uint64_t total[BC_NCLASS];
};

uint64_t htmlmap_bpc(uint32_t agblocks, uint64_t nmaps)
{
	uint64_t cells = nmaps ? HTML_MAP_BUDGET / nmaps : HTML_MAP_MAXCELLS;

	if (cells > HTML_MAP_MAXCELLS)
		cells = HTML_MAP_MAXCELLS;
	if (cells < HTML_MAP_MINCELLS)
		cells = HTML_MAP_MINCELLS;
	return agblocks > cells ? (agblocks + cells - 1) / cells : 1;
}

static bool same_holder(const struct html_holder *a,
			const struct html_holder *b)
{
	return a->kind == b->kind && a->sub == b->sub && a->id == b->id;
}

static struct html_holder holder(enum html_hold kind, unsigned sub,
				 uint64_t id)
{
	struct html_holder h = { (uint8_t)kind, (uint8_t)sub, id };

	return h;
}

/*
 * Count blocks [agbno, agbno + len) of class c held by hd, clipped to
 * the AG.  A cell's holder of a class is the one with most blocks of it
 * added in one go (a file's extents in one cell come one after another,
 * so they add up).
 */
static void acc_add(struct acc *a, uint64_t agbno, uint64_t len,
		    enum bm_class c, struct html_holder hd)
{
	uint64_t end = agbno + len, k;

	if (end > a->blocks)
		end = a->blocks;
	if (agbno >= end || !a->cnt)
		return;
	a->total[c] += end - agbno;
	for (k = agbno / a->bpc; k <= (end - 1) / a->bpc; k++) {
		uint64_t cs = k * a->bpc, ce = cs + a->bpc;
		uint64_t n = (end < ce ? end : ce) - (agbno > cs ? agbno : cs);
		struct own *o = &a->own[k][c];

		a->cnt[k][c] += n;
		if (a->nhold[k] == 0 || !same_holder(&a->last[k], &hd)) {
			a->nhold[k]++;
			a->last[k] = hd;
		}
		if (same_holder(&o->h, &hd))
			o->n += n;
		else if (n > o->n) {
			o->h = hd;
			o->n = n;
		}
	}
}

/* blkmap_query.c's order for ties: fragmented data first, other last. */
static uint8_t dominant(const uint64_t *blocks, uint64_t inside)
{
	static const enum bm_class prio[] = {
		BC_FRAG, BC_DATA, BC_INODES, BC_META, BC_FREE, BC_OTHER,
	};
	uint64_t known = 0, b[BC_NCLASS];
	enum bm_class best = prio[0];
	unsigned c;

	memcpy(b, blocks, sizeof(b));
	for (c = 0; c < BC_OTHER; c++)
		known += b[c];
	b[BC_OTHER] = inside > known ? inside - known : 0;
	for (c = 1; c < sizeof(prio) / sizeof(prio[0]); c++)
		if (b[prio[c]] > b[best])
			best = prio[c];
	return (uint8_t)best;
}

static void acc_release(struct acc *a)
{
	free(a->cnt);
	free(a->own);
	free(a->last);
	free(a->nhold);
	a->cnt = NULL;
	a->own = NULL;
	a->last = NULL;
	a->nhold = NULL;
}

/* An AG not shown gets no cells: acc_add skips it. */
static int acc_init(struct acc *a, uint32_t blocks, uint64_t bpc, bool show)
{
	size_t n;

	memset(a, 0, sizeof(*a));
	a->blocks = blocks;
	a->bpc = bpc;
	a->ncells = (uint32_t)((blocks + bpc - 1) / bpc);
	a->gone = UINT32_MAX;
	if (!show)
		return 0;
	n = a->ncells ? a->ncells : 1;
	a->cnt = calloc(n, sizeof(*a->cnt));
	a->own = calloc(n, sizeof(*a->own));
	a->last = calloc(n, sizeof(*a->last));
	a->nhold = calloc(n, sizeof(*a->nhold));
	if (!a->cnt || !a->own || !a->last || !a->nhold) {
		acc_release(a);
		return -ENOMEM;
	}
	return 0;
}

/* Turn the counts into the map's cells, and free them. */
static int acc_finish(struct acc *a, uint32_t agno, struct html_map *m)
{
	uint64_t known = 0;
	uint32_t i;
	unsigned c;

	m->agno = agno;
	m->ncells = a->ncells;
	m->agblocks = a->blocks;
	m->bpc = a->bpc;
	m->cls = malloc(a->ncells ? a->ncells : 1);
	m->hold = malloc((a->ncells ? a->ncells : 1) * sizeof(*m->hold));
	if (!m->cls || !m->hold) {
		acc_release(a);
		return -ENOMEM;
	}
	for (i = 0; i < a->ncells; i++) {
		uint64_t cs = (uint64_t)i * a->bpc, ce = cs + a->bpc;

		if (ce > a->blocks)
			ce = a->blocks;
		m->cls[i] = dominant(a->cnt[i], ce - cs);
		m->hold[i] = m->cls[i] == BC_OTHER ?
			     holder(cs >= a->gone ? HH_GONE : HH_NONE, 0, 0) :
			     a->own[i][m->cls[i]].h;
	}
	m->nhold = a->nhold;	/* the map keeps it */
	a->nhold = NULL;
	for (c = 0; c < BC_OTHER; c++) {
		m->blocks[c] = a->total[c];
		known += a->total[c];
	}
	/* shared blocks count once per owner, so known may exceed blocks */
	m->blocks[BC_OTHER] = a->blocks > known ? a->blocks - known : 0;
	acc_release(a);
	return 0;
}

/* Metadata that the plan keeps in place (the rest is rebuilt). */
static bool meta_stays(const struct plan *p, const struct m_meta_blk *mb)
{
	if (!p)
		return true;
	if (mb->kind == MM_BMBT)
		return !plan_fork_find(p, mb->owner, FORK_DATA) &&
		       !plan_fork_find(p, mb->owner, FORK_ATTR);
	return mb->kind == MM_SB || mb->kind == MM_AGF || mb->kind == MM_AGI ||
	       mb->kind == MM_AGFL || mb->kind == MM_AGFL_FREE ||
	       mb->kind == MM_LOG;
}

static struct html_holder meta_holder(const struct m_meta_blk *mb)
{
	switch (mb->kind) {
	case MM_SB: case MM_AGF: case MM_AGI: case MM_AGFL:
		return holder(HH_HDR, 0, 0);
	case MM_AGFL_FREE:
		return holder(HH_AGFL, 0, 0);
	case MM_LOG:
		return holder(HH_LOG, 0, 0);
	case MM_BMBT:
		return holder(HH_BMBT, 0, mb->owner);
	default:
		return holder(HH_BTREE, mb->kind, 0);
	}
}

/* Records of a fork in more than one physical run (blkmap's BMS_FRAG). */
static bool recs_split(const struct od_irec *r, uint32_t n)
{
	uint32_t k;

	for (k = 1; k < n; k++)
		if (r[k].startblock != r[k - 1].startblock + r[k - 1].blockcount)
			return true;
	return false;
}

static void add_recs(struct acc *accs, const struct od_geo *g,
		     const struct od_irec *r, uint32_t n,
		     struct html_holder hd)
{
	enum bm_class c = recs_split(r, n) ? BC_FRAG : BC_DATA;
	uint32_t k, agno;

	for (k = 0; k < n; k++) {
		agno = od_fsb_agno(g, r[k].startblock);
		if (agno < g->agcount)
			acc_add(&accs[agno], od_fsb_agbno(g, r[k].startblock),
				r[k].blockcount, c, hd);
	}
}

static struct html_holder fork_holder(uint64_t ino, unsigned fork,
				      unsigned sub)
{
	return fork == FORK_ATTR ? holder(HH_ATTR, 0, ino) :
	       holder(HH_DATA, sub, ino);
}

static unsigned mode_sub(uint16_t mode)
{
	if (od_mode_isdir(mode))
		return HS_DIR;
	if (od_mode_islnk(mode))
		return HS_SYMLINK;
	return HS_FILE;
}

/* One fork of the model, unless the plan gives it new records. */
static int add_fork(struct acc *accs, const struct od_geo *g,
		    const struct m_ag *ag, const struct m_ino *mi,
		    unsigned fork, struct od_irec **buf, uint32_t *cap)
{
	uint32_t first = fork == FORK_DATA ? 0 : mi->nde;
	uint32_t n = fork == FORK_DATA ? mi->nde : mi->nae, k;

	/* realtime data is not on this device */
	if (!n || (fork == FORK_DATA && (mi->flags & MI_REALTIME)))
		return 0;
	if (n > *cap) {
		struct od_irec *nb = realloc(*buf, n * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = n;
	}
	for (k = 0; k < n; k++)
		m_ext_get(&ag->ext[mi->ext + first + k], &(*buf)[k]);
	add_recs(accs, g, *buf, n, fork_holder(mi->ino, fork,
					       mode_sub(mi->mode)));
	return 0;
}

static unsigned pf_sub(const struct plan_fork *pf)
{
	return pf->ftype == PF_DIR ? HS_DIR : pf->ftype == PF_SYMLINK ?
	       HS_SYMLINK : HS_FILE;
}

/* An AG's free space, headers, btree blocks, log and inode chunks. */
static void count_ag(const struct model *m, const struct plan *p, uint32_t a,
		     struct acc *acc)
{
	const struct od_geo *g = &m->fs->geo;
	const struct m_ag *ag = &m->ag[a];
	uint32_t nblk = g->ialloc_blks ? g->ialloc_blks : 1, b;
	size_t i;

	if (p && p->shrink.dblocks) {
		/* a shrink: an AG past the new end holds nothing after it */
		if (a >= p->shrink.agcount) {
			acc->gone = 0;
			return;
		}
		if (a + 1 == p->shrink.agcount)
			acc->gone = p->shrink.last_len;
	}
	if (!p) {
		for (i = 0; i < ag->nfree; i++)
			acc_add(acc, ag->freesp[i].agbno, ag->freesp[i].len,
				BC_FREE, holder(HH_FREE, 0, 0));
	} else {
		const struct plan_ag *pa = plan_ag(p, a);

		for (i = 0; i < pa->nfreesp; i++)
			acc_add(acc, pa->freesp[i].agbno, pa->freesp[i].len,
				BC_FREE, holder(HH_FREE, 0, 0));
		acc_add(acc, pa->bt_start, pa->bt_len, BC_META,
			holder(HH_REBUILT, 0, 0));
	}
	for (i = 0; i < ag->nmeta; i++)
		if (meta_stays(p, &ag->meta[i]))
			acc_add(acc, ag->meta[i].agbno, 1,
				ag->meta[i].kind == MM_AGFL_FREE ?
				BC_FREE : BC_META, meta_holder(&ag->meta[i]));
	/* the log (kept out of meta: one run) stays, unless a shrink
	 * moves it (count) */
	if (ag->log_blocks && !(p && p->shrink.logstart))
		acc_add(acc, ag->log_agbno, ag->log_blocks, BC_META,
			holder(HH_LOG, 0, 0));
	for (i = 0; i < ag->nchunk; i++) {
		const struct od_inobt_rec *r = &ag->chunk[i];
		uint32_t base = od_agino_agbno(g, r->startino);
		uint64_t ino = od_agino_ino(g, a, r->startino);

		if (p && plan_ichunk_freed(p, ino))
			continue;
		for (b = 0; b < nblk; b++)
			if (od_inobt_block_present(g, r, b))
				acc_add(acc, base + b, 1, BC_INODES,
					holder(HH_CHUNK, 0, ino));
	}
}

/*
 * Count every AG's blocks by class: as the model has them (p NULL), or
 * as the plan leaves them.  Order does not matter, so no index is built.
 */
static int count(const struct model *m, const struct plan *p,
		 struct acc *accs)
{
	const struct od_geo *g = &m->fs->geo;
	uint32_t nblk = g->ialloc_blks ? g->ialloc_blks : 1, cap = 0, a, b;
	struct od_irec *buf = NULL;
	size_t i;

	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		count_ag(m, p, a, &accs[a]);
		/* every AG's files: their data may lie in a shown AG */
		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];
			unsigned fork;

			for (fork = FORK_DATA; fork <= FORK_ATTR; fork++)
				if ((!p || !plan_fork_find(p, mi->ino, (int)fork)) &&
				    add_fork(accs, g, ag, mi, fork, &buf, &cap)) {
					free(buf);
					return -ENOMEM;
				}
		}
	}
	free(buf);
	/* the log where a shrink puts it */
	if (p && p->shrink.logstart) {
		a = od_fsb_agno(g, p->shrink.logstart);
		if (a < g->agcount)
			acc_add(&accs[a], od_fsb_agbno(g, p->shrink.logstart),
				m->fs->sb.logblocks, BC_META,
				holder(HH_LOG, 0, 0));
	}
	/* the inode chunks the plan makes (whole: 64 inodes) */
	for (i = 0; p && i < p->nich; i++) {
		uint64_t s = p->ich[i].startino;

		a = od_ino_agno(g, s);
		if (p->ich[i].alloc && a < g->agcount)
			acc_add(&accs[a], od_agino_agbno(g, od_ino_agino(g, s)),
				nblk, BC_INODES, holder(HH_CHUNK, 0, s));
	}
	for (i = 0; p && i < p->npf; i++) {
		const struct plan_fork *pf = &p->pf[i];

		add_recs(accs, g, pf->recs, pf->nrecs,
			 fork_holder(pf->ino, pf->whichfork, pf_sub(pf)));
		for (b = 0; b < pf->nbmbt; b++) {
			a = od_fsb_agno(g, pf->bmbt[b]);
			if (a < g->agcount)
				acc_add(&accs[a], od_fsb_agbno(g, pf->bmbt[b]),
					1, BC_META, holder(HH_BMBT, 0, pf->ino));
		}
	}
	return 0;
}

int htmlmap_build(const struct model *m, const struct plan *p, uint64_t bpc,
		  const bool *show, struct html_map *maps)
{
	const struct od_geo *g = &m->fs->geo;
	struct acc *accs = calloc(m->agcount ? m->agcount : 1, sizeof(*accs));
	int ret = -ENOMEM;
	uint32_t a;

	if (!accs)
		return -ENOMEM;
	for (a = 0; a < m->agcount; a++)
		if (acc_init(&accs[a], od_ag_blocks(g, a), bpc, show[a]))
			goto out;
	ret = count(m, p, accs);
	for (a = 0; a < m->agcount && !ret; a++) {
		memset(&maps[a], 0, sizeof(maps[a]));
		if (!show[a])
			continue;
		if (acc_finish(&accs[a], a, &maps[a]))
			ret = -ENOMEM;
		if (p && p->shrink.logstart) {
			if (od_fsb_agno(g, p->shrink.logstart) != a)
				continue;
			maps[a].log_start = od_fsb_agbno(g, p->shrink.logstart);
			maps[a].log_len = m->fs->sb.logblocks;
		} else {
			maps[a].log_start = m->ag[a].log_agbno;
			maps[a].log_len = m->ag[a].log_blocks;
		}
	}
out:
	for (a = 0; a < m->agcount; a++)
		acc_release(&accs[a]);
	free(accs);
	return ret;
}

void htmlmap_free(struct html_map *maps, uint32_t n)
{
	uint32_t a;

	for (a = 0; maps && a < n; a++) {
		free(maps[a].cls);
		free(maps[a].hold);
		free(maps[a].nhold);
	}
	free(maps);
}
