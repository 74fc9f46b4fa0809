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
#include "ondisk/undo.h"
#include <stdlib.h>
#include <string.h>

/* The records of a fork after the plan: pf's (new), or the model's. */
static uint32_t fork_after(const struct planner *pl, size_t idx, int fork,
			   const struct plan_fork *pf, struct od_irec *buf,
			   uint32_t cap, const struct od_irec **out)
{
	const struct m_ino *mi = pl->ref[idx].mi;
	const struct m_ag *ag = plan_ref_ag(pl, idx);
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

/* Does the plan add the inode chunk starting at startino? */
static bool ichunk_added(const struct plan *p, uint64_t startino)
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
		if (p->ich[lo].alloc)
			return true;
	return false;
}

/* The largest undo record's data (undo_priv.h): a record header each. */
#define UNDO_RECORD_DATA	(1u << 20)

/*
 * The undo file's size, AG by AG, from the plan's ranges in a sweep:
 * the blocks live when the run begins that it writes (copies, inode
 * blocks: new chunks and the slots changed in chunks that stay, the run
 * for the AG btrees, bmap btree blocks, the AG headers), journaled when
 * first written; and those it leaves free that no copy keeps (dropped
 * inode chunks, the old btrees' blocks), journaled when the file is
 * sealed.  A renumbering run rewrites the blocks with headers naming
 * their inode (v5) of the inodes it renumbers, and every directory's:
 * in place (written), or after the copy (the copy changed: its source
 * journaled at the seal).  Each journaled run costs a record header per
 * MiB, each written block live at the end a crc in the proof.  A block
 * whose data moves into space free at the start is copied before
 * anything overwrites it (exec_copy.c): the journal names the copy, a
 * reference entry (and about a record header) a run of such blocks.  So
 * does a block whose data was copied before its first overwrite: the
 * inodes phase follows the copies into free space only; the other
 * copies go in destination order, 8 MiB at a time, each batch's live
 * destinations journaled before it is written (data moving to a lower
 * address a batch or more away was copied first); the bmap and AG btree
 * blocks and the renumbered directories are written after every copy.
 */
enum { UE_FREE0, UE_FREE1,
       UE_WRITE,	/* by the copies into live space */
       UE_IWRITE,	/* by the inodes phase */
       UE_LWRITE,	/* after the copies */
       UE_SRC, UE_CHANGED,
       UE_REFSRC,	/* its data copied into space free at the start */
       UE_REFDOWN,	/* ... to a lower address, a batch or more away */
       UE_REFANY,	/* ... copied somewhere */
       UE_NKINDS };

/* Event: block << 5 | 16 (a start; an end sorts first) | kind. */
#define UE_START	16u
#define UE_KIND		15u
#define UE_SHIFT	5
/* the copy's batch (exec_copy.c), twice: a margin for sparse moves */
#define UE_BATCH_BYTES	(16ull << 20)

struct uevents {
	uint64_t *v;
	size_t n, cap;
};

/* [b0, b1) of kind k: two events, the end sorted before a start. */
static int ue_add(struct uevents *ev, uint32_t b0, uint64_t b1, unsigned k)
{
	if (b1 <= b0)
		return 0;
	if (b1 > UINT32_MAX)
		b1 = UINT32_MAX;
	if (bigmem_grow((void **)&ev->v, &ev->cap, ev->n + 1, sizeof(*ev->v)))
		return -ENOMEM;
	ev->v[ev->n++] = (uint64_t)b0 << UE_SHIFT | UE_START | k;
	ev->v[ev->n++] = b1 << UE_SHIFT | k;
	return 0;
}

/* The blocks of AG a the inodes phase writes. */
static int ue_inodes(const struct planner *pl, uint32_t a, struct uevents *ev)
{
	const struct od_geo *g = pl->g;
	const struct plan *p = pl->p;
	uint32_t run0 = 0, run1 = 0, b, k;
	size_t i;
	int ret = 0;

	for (i = 0; i < p->nich && !ret; i++) {
		const struct plan_ichunk *c = &p->ich[i];
		struct od_inobt_rec r = { .holemask = c->holemask };
		uint32_t at = od_agino_agbno(g, od_ino_agino(g, c->startino));

		if (!c->alloc || od_ino_agno(g, c->startino) != a)
			continue;
		for (k = 0; k < g->ialloc_blks && !ret; k++)
			if (od_inobt_block_present(g, &r, k))
				ret = ue_add(ev, at + k, (uint64_t)at + k + 1,
					     UE_IWRITE);
	}
	/* slots of chunks that stay: old ones vacated (p->ino is sorted
	 * by old number: their blocks come in order), new ones filled */
	for (i = 0; i < p->nino && !ret; i++) {
		uint64_t old = p->ino[i].old, new = p->ino[i].new;

		if (od_ino_agno(g, old) == a && old != new &&
		    !plan_ichunk_freed(p, old & ~(uint64_t)63)) {
			b = od_agino_agbno(g, od_ino_agino(g, old));
			if (run1 && b >= run0 && b <= run1) {
				run1 = b + 1 > run1 ? b + 1 : run1;
			} else {
				ret = ue_add(ev, run0, run1, UE_IWRITE);
				run0 = b;
				run1 = b + 1;
			}
		}
		if (od_ino_agno(g, new) == a && old != new &&
		    !ichunk_added(p, new & ~(uint64_t)63)) {
			b = od_agino_agbno(g, od_ino_agino(g, new));
			if (!ret)
				ret = ue_add(ev, b, (uint64_t)b + 1, UE_IWRITE);
		}
	}
	return ret ? ret : ue_add(ev, run0, run1, UE_IWRITE);
}

/* The blocks of fork whichfork of mi that lie in AG a. */
static int ue_fork(const struct planner *pl, const struct m_ag *ag,
		   const struct m_ino *mi, int whichfork, unsigned kind,
		   struct uevents *ev)
{
	const struct od_geo *g = pl->g;
	uint32_t first = whichfork == FORK_DATA ? 0 : mi->nde;
	uint32_t n = whichfork == FORK_DATA ? mi->nde : mi->nae, k;
	int ret = 0;

	for (k = 0; k < n && !ret; k++) {
		struct od_irec r;

		m_ext_get(&ag->ext[mi->ext + first + k], &r);
		if (od_fsb_agno(g, r.startblock) == ag->agno)
			ret = ue_add(ev, od_fsb_agbno(g, r.startblock),
				     (uint64_t)od_fsb_agbno(g, r.startblock) +
				     r.blockcount, kind);
	}
	return ret;
}

/*
 * Renumbering: the blocks with headers that name their inode (of the
 * inodes renumbered) or hold entries (every directory's), of the
 * inodes of AG a, rewritten in place or changed after their copy.
 */
static int ue_owners(const struct planner *pl, uint32_t a, struct uevents *ev)
{
	const struct m_ag *ag = &pl->m->ag[a];
	size_t i;
	int ret = 0, f;

	for (i = 0; i < ag->nino && !ret; i++) {
		const struct m_ino *mi = &ag->ino[i];
		bool dir = od_mode_isdir(mi->mode), moved;

		if (!dir && !mi->nae && !od_mode_islnk(mi->mode))
			continue;
		moved = plan_ino_new(pl->p, mi->ino) != mi->ino;
		for (f = FORK_DATA; f <= FORK_ATTR && !ret; f++) {
			if (!moved && !(dir && f == FORK_DATA))
				continue;
			ret = ue_fork(pl, ag, mi, f,
				      plan_fork_find(pl->p, mi->ino, f) ?
				      UE_CHANGED : UE_LWRITE, ev);
		}
	}
	return ret;
}

/* Is [agbno, agbno+len) of ag free at the start (inside one extent)? */
static bool free0(const struct m_ag *ag, uint64_t agbno, uint64_t len)
{
	size_t lo = 0, hi = ag->nfree;

	while (lo < hi) {	/* the last extent starting at or before */
		size_t mid = lo + (hi - lo) / 2;

		if (ag->freesp[mid].agbno <= agbno)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && agbno + len <= (uint64_t)ag->freesp[lo - 1].agbno +
					ag->freesp[lo - 1].len;
}

static int ue_gather(const struct planner *pl, uint32_t a, struct uevents *ev)
{
	const struct od_geo *g = pl->g;
	const struct plan *p = pl->p;
	const struct m_ag *ag = &pl->m->ag[a];
	const struct plan_ag *pa = &p->ag[a];
	uint64_t batch = UE_BATCH_BYTES >> g->blocklog;
	size_t i;
	uint32_t k;
	int ret = 0;

	ev->n = 0;
	for (i = 0; i < ag->nfree && !ret; i++)
		ret = ue_add(ev, ag->freesp[i].agbno, (uint64_t)
			     ag->freesp[i].agbno + ag->freesp[i].len, UE_FREE0);
	for (i = 0; i < pa->nfreesp && !ret; i++)
		ret = ue_add(ev, pa->freesp[i].agbno, (uint64_t)
			     pa->freesp[i].agbno + pa->freesp[i].len, UE_FREE1);
	for (i = 0; i < p->nmv && !ret; i++) {
		const struct plan_move *mv = &p->mv[i];

		if (mv->src / g->agblocks == a)
			ret = ue_add(ev, (uint32_t)(mv->src % g->agblocks),
				     mv->src % g->agblocks + mv->len, UE_SRC);
		/* an unwritten extent's old blocks: nobody's bytes (exec.c) */
		if (!ret && mv->src / g->agblocks == a &&
		    (mv->flags & PM_NOCOPY))
			ret = ue_add(ev, (uint32_t)(mv->src % g->agblocks),
				     mv->src % g->agblocks + mv->len, UE_FREE0);
		if (!ret && mv->src / g->agblocks == a &&
		    !(mv->flags & PM_NOCOPY))
			ret = ue_add(ev, (uint32_t)(mv->src % g->agblocks),
				     mv->src % g->agblocks + mv->len,
				     mv->dst / g->agblocks < pl->m->agcount &&
				     free0(&pl->m->ag[mv->dst / g->agblocks],
					   mv->dst % g->agblocks, mv->len) ?
				     UE_REFSRC : mv->dst + mv->len + batch <=
				     mv->src ? UE_REFDOWN : UE_REFANY);
		if (!ret && mv->dst / g->agblocks == a &&
		    !(mv->flags & PM_NOCOPY))
			ret = ue_add(ev, (uint32_t)(mv->dst % g->agblocks),
				     mv->dst % g->agblocks + mv->len, UE_WRITE);
	}
	for (i = 0; i < p->npf && !ret; i++)
		for (k = 0; k < p->pf[i].nbmbt && !ret; k++)
			if (od_fsb_agno(g, p->pf[i].bmbt[k]) == a)
				ret = ue_add(ev, od_fsb_agbno(g, p->pf[i].bmbt[k]),
					     (uint64_t)od_fsb_agbno(g,
						p->pf[i].bmbt[k]) + 1, UE_LWRITE);
	if (!ret && pa->changed) {
		ret = ue_add(ev, pa->bt_start, (uint64_t)pa->bt_start +
			     pa->bt_len, UE_LWRITE);
		if (!ret)	/* the superblock, AGF, AGI and AGFL sectors */
			ret = ue_add(ev, 0, ((4ull * g->sectsize - 1) >>
					     g->blocklog) + 1, UE_LWRITE);
	}
	if (!ret && (p->nino || p->nich))
		ret = ue_inodes(pl, a, ev);
	if (!ret && p->nino)
		ret = ue_owners(pl, a, ev);
	return ret;
}

/* Journaled blocks and records, and proven blocks, of one AG's events. */
static int ue_sweep(struct uevents *ev, uint64_t maxrun, uint64_t *data,
		    uint64_t *recs, uint64_t *refs, uint64_t *proof)
{
	uint32_t cnt[UE_NKINDS] = { 0 };
	uint64_t prev = 0, span = 0;
	bool inref = false;
	size_t i;

	if (sort_u64(ev->v, ev->n))
		return -ENOMEM;
	for (i = 0; i < ev->n; i++) {
		uint64_t at = ev->v[i] >> UE_SHIFT, len = at - prev;
		unsigned k = ev->v[i] & UE_KIND, pk;
		bool live = !cnt[UE_FREE0];
		bool wr = cnt[UE_WRITE] || cnt[UE_IWRITE] || cnt[UE_LWRITE];
		/* copied before the first write there: the reference stands */
		bool first = cnt[UE_IWRITE] ? cnt[UE_REFSRC] > 0 :
			     cnt[UE_WRITE] ? cnt[UE_REFSRC] || cnt[UE_REFDOWN] :
			     cnt[UE_REFSRC] || cnt[UE_REFDOWN] ||
			     cnt[UE_REFANY];
		bool ref = live && wr && first && !cnt[UE_CHANGED];

		/* a reference entry per run of such blocks, and per move */
		pk = i ? (unsigned)(ev->v[i - 1] & UE_KIND) : 0;
		if (len && ref && (!inref || ((ev->v[i - 1] & UE_START) &&
					      (pk == UE_REFSRC ||
					       pk == UE_REFDOWN ||
					       pk == UE_REFANY))))
			(*refs)++;
		inref = len ? ref : inref;
		if (len && ref) {
			if (span)
				*recs += (span + maxrun - 1) / maxrun;
			span = 0;
		} else if (len && ((live && wr) ||
				   (live && cnt[UE_FREE1] && !wr &&
				    (!cnt[UE_SRC] || cnt[UE_CHANGED])))) {
			*data += len;
			span += len;
		} else if (len && span) {
			*recs += (span + maxrun - 1) / maxrun;
			span = 0;
		}
		if (len && wr && !cnt[UE_FREE1])
			*proof += len;
		if (ev->v[i] & UE_START)
			cnt[k]++;
		else if (cnt[k])
			cnt[k]--;
		prev = at;
	}
	*recs += (span + maxrun - 1) / maxrun;
	return 0;
}

static uint64_t undo_size(const struct planner *pl)
{
	const struct od_geo *g = pl->g;
	struct uevents ev = { 0 };
	uint64_t data = 0, recs = 0, refs = 0, proof = 0;
	uint64_t maxrun = UNDO_RECORD_DATA >> g->blocklog;
	uint32_t a;

	if (!pl->p->nmv && !pl->p->npf && !pl->p->nino && !pl->p->nich)
		return 0;
	for (a = 0; a < pl->m->agcount; a++)
		if (ue_gather(pl, a, &ev) ||
		    ue_sweep(&ev, maxrun ? maxrun : 1, &data, &recs, &refs,
			     &proof))
			break;
	bigmem_free(ev.v, ev.cap, sizeof(*ev.v));
	return (data << g->blocklog) + recs * OD_UNDO_REC_LEN +
	       refs * (OD_UNDO_REF_ENT + OD_UNDO_REC_LEN) + proof * 4 + (proof + 1) / 64 * OD_UNDO_PRF_RUNHDR;
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

	/* first: its sweep's events are gone before the arrays below */
	p->undo_estimate = undo_size(pl);
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
