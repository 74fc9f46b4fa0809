/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Placement for the walk orders: in each AG the new inode chunks first,
 * then the units one after another (the directories' in walk order,
 * then the files') through the AG's windows in block order, so a reader
 * walking the tree reads every AG front to back and a metadata walk one
 * zone at its front.
 *
 * - A fork whose blocks already sit where the stream reaches them stays:
 *   nothing to copy (so a second run moves nothing); so does one that
 *   sits a little further on in the same window (STAY_SLACK): moving it
 *   back would only save reading the gap through, and the gap stays free.
 * - A fork that does not fit what is left of a window goes to the next
 *   window that holds it, when the room skipped is no more than the fork
 *   or 1 MiB (a forward gap the reader's drive reads through; the holes
 *   are what bmap btree and AG btree blocks fill later).  Otherwise it
 *   leaves the stream: into a hole the stream left behind, the largest
 *   window, any window, or split over the largest windows.  Past the end
 *   of the windows, what is left goes to the largest window together.
 * - The AG's largest window keeps the free space: the stream takes from
 *   it only what the windows after it cannot hold, from its front, so the
 *   rest stays one extent.
 * - Reflinked blocks move as one piece with all their owners and are
 *   placed with the first owner the walk reaches.  When that piece ends
 *   a fork, another owner whose data goes on, unshared, right where the
 *   piece ends (a copy appended to, a source truncated after the copy)
 *   gets its unshared run placed right after the piece: that owner is
 *   then contiguous there too, where its walk turn would have left a
 *   break.
 */
#include "core/relocate/plan_priv.h"
#include "core/base/sort.h"

#include <stdlib.h>
#include <string.h>

#define LOOKAHEAD	256	/* windows looked at for one that fits */
#define WASTE_MIN	(1024u << 10)	/* bytes a fork may always skip */
#define STAY_SLACK	(64u << 10)	/* bytes a fork may lie past the stream */

struct strm {
	size_t *ord;		/* ap->seg indices in block order */
	size_t nord, at;	/* the window the stream is in */
	uint64_t rem;		/* blocks the stream still brings here */
	bool in_big;		/* has entered the big window */
	uint64_t big_limit;	/* and may fill it up to this block */
	uint32_t waste_min;	/* blocks a fork may always skip */
	uint32_t slack;		/* blocks a fork may lie past the cursor */
	/* the room a stay's gap may cost: the windows' free blocks and rem
	 * when the stream began, and the gaps stays have left since */
	uint64_t free0, rem0, gaps;
};

static bool is_big(const struct agplan *ap, size_t si)
{
	return si + 1 == ap->nseg;
}

/*
 * Where the stream may fill the big window ord[k] up to: as much as the
 * windows after it cannot hold of what is still to come.  Fixed when the
 * stream enters it.
 */
static uint64_t big_limit(const struct agplan *ap, const struct strm *st,
			  size_t k)
{
	const struct seg *big = &ap->seg[st->ord[k]];
	uint64_t after = 0, want;
	size_t j;

	if (st->in_big)
		return st->big_limit;
	for (j = k + 1; j < st->nord; j++)
		after += ap->seg[st->ord[j]].end - ap->seg[st->ord[j]].cur;
	want = st->rem > after ? st->rem - after : 0;
	return big->cur + want < big->end ? big->cur + want : big->end;
}

/* Room the stream may use in window ord[k]. */
static uint64_t room_at(const struct agplan *ap, const struct strm *st,
			size_t k)
{
	size_t si = st->ord[k];
	const struct seg *sg = &ap->seg[si];
	uint64_t end = is_big(ap, si) ? big_limit(ap, st, k) : sg->end;

	return end > sg->cur ? end - sg->cur : 0;
}

static int strm_init(struct strm *st, const struct agplan *ap)
{
	size_t i, k = 0, last = ap->nseg ? ap->nseg - 1 : 0;
	bool big_in = false;

	memset(st, 0, sizeof(*st));
	st->ord = malloc((ap->nseg + 1) * sizeof(*st->ord));
	if (!st->ord)
		return -ENOMEM;
	if (!ap->nseg)
		return 0;
	/* segments [0, nseg-1) are in block order; the big one goes between */
	for (i = 0; i < last; i++) {
		if (!big_in && ap->seg[last].start < ap->seg[i].start) {
			st->ord[k++] = last;
			big_in = true;
		}
		st->ord[k++] = i;
	}
	if (!big_in)
		st->ord[k++] = last;
	st->nord = k;
	return 0;
}

/* Put the fork's units side by side at block at of its target AG. */
static int put(struct agplan *aps, const struct unit_ref *u, size_t nu,
	       uint32_t at)
{
	size_t k;
	int ret = 0;

	for (k = 0; k < nu && !ret; k++) {
		struct agplan *s = &aps[u[k].agno];
		struct unit *un = &s->unit[u[k].idx];

		ret = plan_add_piece(s, un, 0, un->len, at);
		at += un->len;
	}
	return ret;
}

/*
 * May a stay leave gap blocks behind the cursor?  Only while what the AG
 * has free, less the gap, still holds everything the stream has to bring
 * here: in a tight AG a checkerboard of files that all stay would leave
 * every other block a hole and the last forks no room (rem counts each
 * new chunk's worst alignment, so the sum errs on the safe side).
 */
static bool gap_affordable(const struct strm *st, uint64_t gap)
{
	uint64_t used = st->rem0 > st->rem ? st->rem0 - st->rem : 0;
	uint64_t left = st->free0 > used + st->gaps ?
			st->free0 - used - st->gaps : 0;

	return left >= st->rem + gap;
}

/*
 * Does the fork already lie, in file order and unbroken, at the cursor of
 * the window the stream is in, or at most st->slack blocks past it (and
 * within what the stream may fill there)?  Then it stays.
 */
static bool stays(const struct agplan *aps, const struct unit_ref *u, size_t nu,
		  const struct agplan *dst, const struct strm *st,
		  uint32_t *at)
{
	const struct unit *u0 = &aps[u[0].agno].unit[u[0].idx];
	const struct seg *sg;
	uint32_t end = u0->start;
	size_t k;

	if (st->at >= st->nord || u[0].agno != dst->agno)
		return false;
	for (k = 0; k < nu; k++) {
		const struct unit *un = &aps[u[k].agno].unit[u[k].idx];

		if (u[k].agno != dst->agno || un->start != end)
			return false;
		end += un->len;
	}
	sg = &dst->seg[st->ord[st->at]];
	if (u0->start < sg->cur || end > sg->end)
		return false;
	if (u0->start > sg->cur && (u0->start - sg->cur > st->slack ||
				    end - sg->cur > room_at(dst, st, st->at) ||
				    !gap_affordable(st, u0->start - sg->cur)))
		return false;
	*at = u0->start;
	return true;
}

/* Blocks [at, at+len) the stream steps over: free after the run. */
static int add_hole(struct agplan *ap, uint32_t at, uint32_t len)
{
	if (!len)
		return 0;
	if (ap->nhole == ap->cap_hole) {
		size_t cap = ap->cap_hole ? 2 * ap->cap_hole : 16;
		struct m_free *nv = realloc(ap->hole, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		ap->hole = nv;
		ap->cap_hole = cap;
	}
	ap->hole[ap->nhole].agbno = at;
	ap->hole[ap->nhole].len = len;
	ap->nhole++;
	return 0;
}

static void took(struct agplan *dst, struct strm *st, size_t si,
		 uint32_t at, uint64_t total)
{
	dst->seg[si].cur = at + (uint32_t)total;
	st->rem -= total < st->rem ? total : st->rem;
}

/* total blocks from the big window's room, wherever the stream is. */
static bool big_take(struct agplan *dst, struct strm *st, uint64_t total,
		     uint32_t *at)
{
	struct seg *big;

	if (!dst->nseg)
		return false;
	big = &dst->seg[dst->nseg - 1];
	if (big->end - big->cur < total)
		return false;
	*at = big->cur;
	took(dst, st, dst->nseg - 1, *at, total);
	return true;
}

static int place_fork(struct agplan *aps, const struct unit_ref *u, size_t nu,
		      uint64_t total, struct agplan *dst, struct strm *st)
{
	uint64_t waste = 0;
	uint32_t at;
	size_t k, n;

	if (stays(aps, u, nu, dst, st, &at)) {
		size_t si = st->ord[st->at];
		int ret = add_hole(dst, dst->seg[si].cur,
				   at - dst->seg[si].cur);

		st->gaps += at - dst->seg[si].cur;

		took(dst, st, si, at, total);
		return ret ? ret : put(aps, u, nu, at);
	}
	for (k = st->at, n = 0; k < st->nord && n < LOOKAHEAD; k++, n++) {
		uint64_t room = room_at(dst, st, k);

		if (room >= total) {
			size_t si = st->ord[k];

			if (is_big(dst, si) && !st->in_big) {
				st->big_limit = big_limit(dst, st, k);
				st->in_big = true;
			}
			st->at = k;
			at = dst->seg[si].cur;
			took(dst, st, si, at, total);
			return put(aps, u, nu, at);
		}
		/* skipping what is left here costs free space, not reads */
		waste += room;
		if (waste > (total > st->waste_min ? total : st->waste_min))
			break;
	}
	/*
	 * Out of the stream: past its end, the big window (what comes last
	 * stays together there); in mid stream, a hole it left behind.
	 */
	if (k == st->nord && big_take(dst, st, total, &at))
		return put(aps, u, nu, at);
	for (k = 0; k < st->at && k < st->nord; k++) {
		size_t si = st->ord[k];

		if (!is_big(dst, si) && dst->seg[si].end - dst->seg[si].cur >=
		    total) {
			at = dst->seg[si].cur;
			dst->seg[si].cur += (uint32_t)total;
			st->rem -= total < st->rem ? total : st->rem;
			return put(aps, u, nu, at);
		}
	}
	if (big_take(dst, st, total, &at))
		return put(aps, u, nu, at);
	st->rem -= total < st->rem ? total : st->rem;
	if (plan_seg_take(dst, (uint32_t)total, &at))
		return put(aps, u, nu, at);
	return plan_place_split(aps, u, nu, dst, NULL);
}

/*
 * Aligned start for len blocks in window sg below end whose inode
 * numbers no kept chunk has, or NOAGBNO.
 */
static uint32_t fit_aligned(const struct planner *pl, uint32_t agno,
			    const struct seg *sg, uint64_t end, uint32_t len,
			    uint32_t align)
{
	uint64_t at = (sg->cur + align - 1) / align * align;

	if (end > sg->end)
		end = sg->end;
	for (; at + len <= end; at += align)
		if (plan_ino_span_free(pl, agno, (uint32_t)at))
			return (uint32_t)at;
	return NOAGBNO;
}

/* Take [at, at+len) of window si; the alignment gap stays free. */
static int chunk_take(struct planner *pl, struct agplan *dst, size_t si,
		      uint32_t at, struct nchunk *c)
{
	struct seg *sg = &dst->seg[si];
	int ret = plan_ino_pad(pl, dst->agno, sg->cur, at - sg->cur);

	sg->cur = at + pl->g->ialloc_blks;
	c->agbno = at;
	return ret;
}

/*
 * A new inode chunk, where the stream is (all of them before any data:
 * plan_place_stream), else in the first window further on, else
 * anywhere it fits below its limit; left unplaced (the planner tries
 * again without its members) when nothing holds it.
 */
static int place_chunk(struct planner *pl, struct agplan *dst,
		       struct strm *st, struct nchunk *c)
{
	uint32_t len = pl->g->ialloc_blks, align = pl->ip->align, at;
	size_t k, n;

	for (k = st->at, n = 0; k < st->nord && n < LOOKAHEAD; k++, n++) {
		size_t si = st->ord[k];
		uint64_t end = dst->seg[si].cur + room_at(dst, st, k);

		if (end > c->limit)
			end = c->limit;
		at = fit_aligned(pl, dst->agno, &dst->seg[si], end, len, align);
		if (at == NOAGBNO)
			continue;
		if (is_big(dst, si) && !st->in_big) {
			st->big_limit = big_limit(dst, st, k);
			st->in_big = true;
		}
		st->at = k;
		st->rem -= len < st->rem ? len : st->rem;
		return chunk_take(pl, dst, si, at, c);
	}
	for (k = 0; k < dst->nseg; k++) {
		at = fit_aligned(pl, dst->agno, &dst->seg[k], c->limit, len,
				 align);
		if (at != NOAGBNO) {
			st->rem -= len < st->rem ? len : st->rem;
			return chunk_take(pl, dst, k, at, c);
		}
	}
	return 0;
}

/* The new chunks due before stream key key2 (all: UINT64_MAX). */
static int chunks_before(struct planner *pl, struct agplan *aps,
			 struct strm *st, uint64_t key2)
{
	struct inoplan *ip = pl->ip;
	int ret = 0;

	while (ip && ip->next < ip->nch && !ret) {
		struct nchunk *c = &ip->ch[ip->order[ip->next]];

		if (c->key2 > key2)
			break;
		ret = place_chunk(pl, &aps[c->agno], &st[c->agno], c);
		ip->next++;
	}
	return ret;
}

/* A fork mapping, found by its owner and file offset (owned tails). */
struct mref {
	uint32_t ino_idx;
	uint8_t fork;
	uint64_t startoff;
	uint32_t agno;
	size_t map;
};

struct tails {
	struct mref *v;
	size_t n;
	bool built;
};

static int cmp_mref(const void *a, const void *b)
{
	const struct mref *x = a, *y = b;

	if (x->ino_idx != y->ino_idx)
		return x->ino_idx < y->ino_idx ? -1 : 1;
	if (x->fork != y->fork)
		return x->fork < y->fork ? -1 : 1;
	return x->startoff < y->startoff ? -1 : x->startoff > y->startoff;
}

static int tails_build(struct tails *t, const struct agplan *aps,
		       uint32_t agcount)
{
	size_t n = 0, i;
	uint32_t a;

	t->built = true;
	for (a = 0; a < agcount; a++)
		n += aps[a].nmap;
	t->v = malloc((n ? n : 1) * sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	for (a = 0; a < agcount; a++)
		for (i = 0; i < aps[a].nmap; i++) {
			const struct pmap *pm = &aps[a].map[i];

			t->v[t->n].ino_idx = pm->ino_idx;
			t->v[t->n].fork = pm->fork;
			t->v[t->n].startoff = pm->startoff;
			t->v[t->n].agno = a;
			t->v[t->n].map = i;
			t->n++;
		}
	sort_any(t->v, t->n, sizeof(*t->v), cmp_mref);
	return 0;
}

/* The mapping of (ino_idx, fork) starting at file offset off, or NULL. */
static const struct mref *tails_find(const struct tails *t, uint32_t ino_idx,
				     uint8_t fork, uint64_t off)
{
	struct mref key = { ino_idx, fork, off, 0, 0 };
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_mref(&t->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && !cmp_mref(&t->v[lo], &key) ? &t->v[lo] : NULL;
}

/*
 * The shared unit last (of AG la) ends where window si of dst has its
 * cursor: the unshared run of another owner that goes on from where the
 * unit ends goes there, and what follows it in that owner's file,
 * unshared, too (only one owner's: the first found).
 */
static int owned_tail(struct agplan *aps, uint32_t agcount, struct tails *t,
		      uint32_t la, const struct unit *last, struct agplan *dst,
		      size_t si, struct strm *st)
{
	const struct agplan *src = &aps[la];
	size_t first = (size_t)(last - src->unit), i;
	struct seg *sg = &dst->seg[si];
	int ret;

	if (!t->built && (ret = tails_build(t, aps, agcount)) != 0)
		return ret;
	for (i = 0; i < src->nmap; i++) {
		const struct pmap *pm = &src->map[i];
		uint64_t off;
		bool took_any = false;

		if (pm->unit != first ||
		    pm->start + pm->len != last->start + last->len)
			continue;
		off = pm->startoff + pm->len;
		for (;;) {
			const struct mref *r = tails_find(t, pm->ino_idx,
							  pm->fork, off);
			struct agplan *oa;
			struct unit *un;
			const struct pmap *om;

			if (!r)
				break;
			oa = &aps[r->agno];
			om = &oa->map[r->map];
			un = &oa->unit[om->unit];
			if (un->shared || un->npieces || oa->pinned[om->unit] ||
			    un->target != dst->agno || un->start != om->start ||
			    un->len != om->len || sg->end - sg->cur < un->len)
				break;
			ret = plan_add_piece(oa, un, 0, un->len, sg->cur);
			if (ret)
				return ret;
			took(dst, st, si, sg->cur, un->len);
			off += un->len;
			took_any = true;
		}
		if (took_any)
			break;
	}
	return 0;
}

/* After placing a fork that ends with shared unit last, in the stream. */
static int tail_after(struct agplan *aps, uint32_t agcount, struct tails *t,
		      uint32_t la, const struct unit *last, struct agplan *dst,
		      struct strm *st)
{
	size_t si;

	if (st->at >= st->nord || !last->npieces)
		return 0;
	si = st->ord[st->at];
	if (aps[la].piece[last->piece0].dst + last->len != dst->seg[si].cur)
		return 0;	/* placed out of the stream */
	return owned_tail(aps, agcount, t, la, last, dst, si, st);
}

/* The window that starts at block b, or nseg. */
static size_t seg_at(const struct agplan *ap, uint32_t b)
{
	size_t lo = 0, hi = ap->nseg ? ap->nseg - 1 : 0;

	if (ap->nseg && ap->seg[ap->nseg - 1].start == b)
		return ap->nseg - 1;	/* the big one, out of order */
	while (lo < hi) {	/* segments [0, nseg-1) are in block order */
		size_t mid = lo + (hi - lo) / 2;

		if (ap->seg[mid].start < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ap->nseg - 1 && ap->seg[lo].start == b ? lo : ap->nseg;
}

/*
 * Shared units that stay where they are: a window that begins where one
 * ends takes that unit's owned tail first, before the stream fills it.
 */
static int tails_of_pinned(struct agplan *aps, uint32_t agcount,
			   struct tails *t, struct strm *st)
{
	uint32_t a;
	size_t i, k;
	int ret = 0;

	for (a = 0; a < agcount && !ret; a++) {
		struct agplan *ap = &aps[a];

		for (i = 0; i < ap->nunit && !ret; i++) {
			const struct unit *un = &ap->unit[i];

			if (!un->shared || !ap->pinned[i])
				continue;
			k = seg_at(ap, un->start + un->len);
			if (k < ap->nseg && ap->seg[k].cur == ap->seg[k].start)
				ret = owned_tail(aps, agcount, t, a, un, ap, k,
						 &st[a]);
		}
	}
	return ret;
}

/*
 * Pass 2 in stream mode: all[] holds every movable unit in placement
 * order, each with its target AG chosen.
 */
int plan_place_stream(struct planner *pl, struct agplan *aps,
		      const struct unit_ref *all, size_t n)
{
	const struct od_geo *g = pl->g;
	struct tails tl = { NULL, 0, false };
	struct unit_ref *grp;
	struct strm *st;
	uint32_t a;
	size_t i;
	int ret = 0;

	st = calloc(g->agcount, sizeof(*st));
	grp = malloc((n ? n : 1) * sizeof(*grp));
	if (!st || !grp) {
		free(st);
		free(grp);
		return -ENOMEM;
	}
	for (a = 0; a < g->agcount && !ret; a++) {
		ret = strm_init(&st[a], &aps[a]);
		st[a].waste_min = WASTE_MIN >> g->blocklog;
		st[a].slack = STAY_SLACK >> g->blocklog;
	}
	for (i = 0; i < n && !ret; i++) {
		const struct unit *un = &aps[all[i].agno].unit[all[i].idx];

		st[un->target].rem += un->len;
	}
	for (a = 0; a < g->agcount && pl->ip; a++)
		st[a].rem += pl->ip->blocks[a];
	for (a = 0; a < g->agcount; a++) {
		st[a].rem0 = st[a].rem;
		for (i = 0; i < aps[a].nseg; i++)
			st[a].free0 += aps[a].seg[i].end - aps[a].seg[i].cur;
	}
	if (pl->ip) {
		/* a second pass places every chunk afresh */
		pl->ip->next = 0;
		for (i = 0; i < pl->ip->nch; i++)
			pl->ip->ch[i].agbno = NOAGBNO;
	}
	ret = tails_of_pinned(aps, g->agcount, &tl, st);
	/* the new inode chunks first, together at the front of each AG's
	 * stream in walk order: a metadata walk reads them in one sweep */
	if (!ret)
		ret = chunks_before(pl, aps, st, UINT64_MAX);
	for (i = 0; i < n && !ret;) {
		const struct unit *un = &aps[all[i].agno].unit[all[i].idx];
		uint64_t total;
		size_t j = plan_fork_run(aps, all, i, n, true, &total), k;
		size_t ng = 0;

		/* the fork's units, but those placed already (owned tails) */
		for (k = i; k < j; k++)
			if (!aps[all[k].agno].unit[all[k].idx].npieces)
				grp[ng++] = all[k];
		ret = chunks_before(pl, aps, st, un->key2);
		if (!ret && ng)
			ret = place_fork(aps, grp, ng, total, &aps[un->target],
					 &st[un->target]);
		if (!ret && ng &&
		    aps[grp[ng - 1].agno].unit[grp[ng - 1].idx].shared)
			ret = tail_after(aps, g->agcount, &tl, grp[ng - 1].agno,
					 &aps[grp[ng - 1].agno].unit[
						grp[ng - 1].idx],
					 &aps[un->target], &st[un->target]);
		i = j;
	}
	if (!ret)
		ret = chunks_before(pl, aps, st, UINT64_MAX);
	for (a = 0; a < g->agcount; a++)
		free(st[a].ord);
	free(st);
	free(grp);
	free(tl.v);
	return ret;
}
