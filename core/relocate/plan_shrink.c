/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shrinking: the planner with a forbidden region (plan_shrink.h).
 *
 * Blocks at or beyond the new end are no free space, and everything
 * there moves: the AGs past the new last one are gone (no windows, no
 * room, never a target), the new last AG's windows end at its new length
 * and none of its units past it stays; inode chunks that reach past the
 * end are dropped and their inodes renumbered into chunks inside
 * (plan_inodes.c moves them whatever --renumber says); a log that reaches
 * past it gets a new place inside, chosen before placement: the tail of
 * the largest free extent now of an AG near the middle (as mkfs puts the
 * log there), so nothing moves for it and its blocks need no undo record;
 * the old log's blocks inside the end are free for placement (the undo
 * file journals them before they are written, and those left free at
 * the seal).  AGFL blocks past the end leave the free list
 * (exec_shrink.c).
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_shrink.h"

#include <stdlib.h>
#include <string.h>

#define MIN_AG_BYTES	(16ull << 20)	/* mkfs: XFS_AG_MIN_BYTES */
/* the moved log's first cycle, past the old head: as xfs_repair, a few
 * cycles ahead, so no metadata LSN can be at or above it */
#define LOG_CYCLE_BUMP	3
#define MIN_STEP_BYTES	(1ull << 20)	/* --min: sizes closer are one */

uint32_t plan_shrink_min_ag(const struct od_geo *g)
{
	uint64_t n = MIN_AG_BYTES >> g->blocklog;

	return n < g->agblocks ? (uint32_t)n : g->agblocks;
}

uint64_t plan_shrink_round_up(const struct od_geo *g, uint64_t n)
{
	uint64_t rem = n % g->agblocks;

	if (n == 0)
		return plan_shrink_min_ag(g);
	if (rem && rem < plan_shrink_min_ag(g))
		n += plan_shrink_min_ag(g) - rem;
	return n;
}

/* The largest valid size at or below n (0: none). */
static uint64_t round_down(const struct od_geo *g, uint64_t n)
{
	uint64_t rem = n % g->agblocks;

	if (rem && rem < plan_shrink_min_ag(g))
		n -= rem;
	return n;
}

int plan_shrink_geometry(const struct od_geo *g, uint64_t dblocks,
			 uint32_t *agcount, uint32_t *last_len, struct err *e)
{
	uint64_t n, rem = dblocks % g->agblocks, lo, hi;
	uint32_t min = plan_shrink_min_ag(g);

	if (dblocks >= g->dblocks)
		return err_set(e, -EINVAL, "refusing to shrink: %llu blocks is "
			       "not smaller than the filesystem's %llu (xfs_growfs "
			       "grows a mounted filesystem)",
			       (unsigned long long)dblocks,
			       (unsigned long long)g->dblocks);
	n = dblocks / g->agblocks + (rem ? 1 : 0);
	if (dblocks == 0 || (rem && rem < min)) {
		lo = round_down(g, dblocks);
		hi = plan_shrink_round_up(g, dblocks);
		if (lo)
			return err_set(e, -EINVAL, "refusing to shrink: the new "
				       "last AG (AG %llu) would have %llu blocks, "
				       "below the minimum AG size of %u blocks "
				       "(%llu MiB); choose %llu blocks or fewer, "
				       "or %llu or more",
				       (unsigned long long)(n ? n - 1 : 0),
				       (unsigned long long)rem, min,
				       (unsigned long long)(MIN_AG_BYTES >> 20),
				       (unsigned long long)lo,
				       (unsigned long long)hi);
		return err_set(e, -EINVAL, "refusing to shrink: the filesystem "
			       "would be smaller than the minimum AG size of %u "
			       "blocks (%llu MiB)", min,
			       (unsigned long long)(MIN_AG_BYTES >> 20));
	}
	*agcount = (uint32_t)n;
	*last_len = rem ? (uint32_t)rem : g->agblocks;
	return 0;
}

uint32_t plan_ag_len(const struct planner *pl, uint32_t agno)
{
	const struct plan_shrink *s = pl->shr;

	if (!s)
		return od_ag_blocks(pl->g, agno);
	if (agno >= s->agcount)
		return 0;
	if (agno + 1 == s->agcount)
		return s->last_len;
	return od_ag_blocks(pl->g, agno);
}

bool plan_shrink_gone(const struct planner *pl, uint32_t agno)
{
	return pl->shr && agno >= pl->shr->agcount;
}

bool plan_shrink_chunk_forced(const struct planner *pl, uint32_t agno,
			      const struct od_inobt_rec *r)
{
	if (!pl->shr)
		return false;
	return agno >= pl->shr->agcount ||
	       od_agino_agbno(pl->g, r->startino + OD_INODES_PER_CHUNK - 1) >=
	       plan_ag_len(pl, agno);
}

bool plan_shrink_has_forced(const struct planner *pl)
{
	return pl->shr && pl->shr->chunks_beyond;
}

/* The internal log: its AG and blocks (false: external). */
static bool old_log(const struct planner *pl, uint32_t *agno,
		    uint32_t *agbno, uint32_t *len)
{
	const struct od_sb *sb = &pl->m->fs->sb;

	if (!sb->logstart || !sb->logblocks)
		return false;
	*agno = od_fsb_agno(pl->g, sb->logstart);
	*agbno = od_fsb_agbno(pl->g, sb->logstart);
	*len = sb->logblocks;
	return true;
}

bool plan_shrink_log_in(const struct planner *pl, uint32_t agno,
			uint32_t *agbno, uint32_t *len)
{
	const struct plan_shrink *s = pl->shr;

	if (!s || !s->logstart || od_fsb_agno(pl->g, s->logstart) != agno)
		return false;
	*agbno = od_fsb_agbno(pl->g, s->logstart);
	*len = pl->m->fs->sb.logblocks;
	return true;
}

/* Where the log may start: the stripe unit and the log's own. */
static uint32_t log_align(const struct planner *pl)
{
	const struct od_sb *sb = &pl->m->fs->sb;
	uint32_t a = pl->g->sunit > 1 ? pl->g->sunit : 1;
	uint32_t l = sb->logsunit > pl->g->blocksize ?
		     sb->logsunit >> pl->g->blocklog : 1;

	return l > a ? l : a;
}

/* The AGs in the order the log's new place is looked for: the middle
 * of the new AG count first, then outwards. */
static uint32_t nth_ag(uint32_t n, uint32_t i)
{
	uint32_t mid = n / 2, k = (i + 1) / 2;

	if (i % 2)
		return mid >= k ? mid - k : mid + i;
	return mid + k < n ? mid + k : mid - i;
}

/* The tail of the largest free extent (now) of AG a that holds the log. */
static bool log_in_free(const struct planner *pl, uint32_t a, uint32_t len,
			uint32_t align, uint32_t *at)
{
	const struct m_ag *ag = &pl->m->ag[a];
	uint32_t end = plan_ag_len(pl, a), best = 0;
	bool found = false;
	size_t k;

	for (k = 0; k < ag->nfree; k++) {
		uint32_t s = ag->freesp[k].agbno;
		uint64_t e = (uint64_t)s + ag->freesp[k].len, p;

		if (e > end)
			e = end;
		if (e < s + (uint64_t)len)
			continue;
		p = (e - len) / align * align;
		if (p < s)
			continue;
		if (!found || e - s > best) {
			best = (uint32_t)(e - s);
			*at = (uint32_t)p;
			found = true;
		}
	}
	return found;
}

/* What never moves in AG a: headers, AGFL blocks, every inode chunk,
 * the old log's blocks; sorted into v (m_free runs). */
static int fixed_ranges(const struct planner *pl, uint32_t a,
			struct m_free **out, size_t *n)
{
	const struct od_geo *g = pl->g;
	const struct m_ag *ag = &pl->m->ag[a];
	uint32_t la, lb, ll, k;
	struct m_free *v;
	size_t c = 0;

	v = malloc((ag->nchunk + ag->nagfl + 2) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[c].agbno = 0;
	v[c++].len = (uint32_t)(((uint64_t)3 * g->sectsize) >> g->blocklog) + 1;
	for (k = 0; k < ag->nagfl; k++) {
		v[c].agbno = ag->agfl[k];
		v[c++].len = 1;
	}
	for (k = 0; k < ag->nchunk; k++) {
		uint32_t b0 = od_agino_agbno(g, ag->chunk[k].startino);
		uint32_t b1 = od_agino_agbno(g, ag->chunk[k].startino +
					     OD_INODES_PER_CHUNK - 1);

		v[c].agbno = b0;
		v[c++].len = b1 - b0 + 1;
	}
	if (old_log(pl, &la, &lb, &ll) && la == a) {
		v[c].agbno = lb;
		v[c++].len = ll;
	}
	*out = v;
	*n = c;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct m_free *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

/* The highest aligned place in AG a missing every fixed range. */
static int log_anywhere(const struct planner *pl, uint32_t a, uint32_t len,
			uint32_t align, uint32_t *at, bool *found)
{
	struct m_free *v = NULL;
	uint64_t top = plan_ag_len(pl, a), hi;
	size_t n = 0, i, k = 0;
	int ret = fixed_ranges(pl, a, &v, &n);

	*found = false;
	if (ret)
		return ret;
	qsort(v, n, sizeof(*v), cmp_range);
	for (i = 1; i < n; i++) {	/* merge overlapping and touching */
		uint64_t e = (uint64_t)v[k].agbno + v[k].len;

		if (v[i].agbno <= e) {
			if ((uint64_t)v[i].agbno + v[i].len > e)
				v[k].len = v[i].agbno + v[i].len - v[k].agbno;
		} else {
			v[++k] = v[i];
		}
	}
	n = n ? k + 1 : 0;
	/* the gaps from the end down: [end of range i-1, start of range i) */
	for (i = n + 1, hi = top; i-- > 0 && !*found;) {
		uint64_t lo = i ? (uint64_t)v[i - 1].agbno + v[i - 1].len : 0;
		uint64_t end = i < n && v[i].agbno < hi ? v[i].agbno : hi, p;

		if (end >= lo + len) {
			p = (end - len) / align * align;
			if (p >= lo) {
				*at = (uint32_t)p;
				*found = true;
			}
		}
	}
	free(v);
	return 0;
}

/*
 * May the log go to AG a?  xfs_repair expects the root inode after the
 * log when the log is in AG 0 (xfs_ialloc_calc_rootino), so it stays in
 * AG 0 if it was there, and goes there only then.
 */
static bool log_ag_ok(const struct planner *pl, uint32_t a)
{
	uint32_t la, lb, ll;

	return old_log(pl, &la, &lb, &ll) && (a == 0) == (la == 0);
}

static int place_log(struct planner *pl, struct plan_shrink *s)
{
	const struct fs *fs = pl->m->fs;
	uint32_t len = fs->sb.logblocks, align = log_align(pl), i, a = 0;
	uint32_t at = 0;
	bool found = false;
	int ret = 0;

	if (!fs->log_head_known)
		return err_set(pl->e, -EPERM, "refusing to shrink: the log "
			       "must move inside the new end, and its head "
			       "cannot be found (%s)", fs->log_detail);
	for (i = 0; i < s->agcount && !found; i++) {
		a = nth_ag(s->agcount, i);
		found = log_ag_ok(pl, a) && log_in_free(pl, a, len, align, &at);
	}
	s->log_in_free = found;
	for (i = 0; i < s->agcount && !found && !ret; i++) {
		a = nth_ag(s->agcount, i);
		if (log_ag_ok(pl, a))
			ret = log_anywhere(pl, a, len, align, &at, &found);
	}
	if (!found && s->agcount == 1 && !log_ag_ok(pl, 0))
		return err_set(pl->e, -ENOSPC, "refusing to shrink: the log "
			       "would have to move into AG 0, where xfs_repair "
			       "expects the root directory after it: keep at "
			       "least 2 AGs");
	if (ret)
		return err_set(pl->e, ret, "out of memory");
	if (!found)
		return err_set(pl->e, -ENOSPC, "refusing to shrink: not enough room: no AG "
			       "inside the new end has room for the %u-block "
			       "log", len);
	s->logstart = od_agb_fsb(pl->g, a, at);
	s->log_cycle = fs->log_head_cycle + LOG_CYCLE_BUMP;
	return 0;
}

/* Blocks of [b0, b1) of AG a in free extents now. */
static uint64_t free_in(const struct m_ag *ag, uint64_t b0, uint64_t b1)
{
	uint64_t n = 0;
	size_t k;

	for (k = 0; k < ag->nfree; k++) {
		uint64_t lo = ag->freesp[k].agbno, hi = lo + ag->freesp[k].len;

		if (lo < b0)
			lo = b0;
		if (hi > b1)
			hi = b1;
		if (lo < hi)
			n += hi - lo;
	}
	return n;
}

/* What lies past the new end now. */
static void beyond(struct planner *pl, struct plan_shrink *s)
{
	const struct od_geo *g = pl->g;
	const struct model *m = pl->m;
	uint32_t a, k;
	size_t i;

	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];
		uint64_t cut = plan_ag_len(pl, a), len = od_ag_blocks(g, a);

		if (cut >= len)
			continue;
		s->used_beyond += len - cut - free_in(ag, cut, len);
		for (i = 0; i < ag->nchunk; i++) {
			const struct od_inobt_rec *r = &ag->chunk[i];

			if (!plan_shrink_chunk_forced(pl, a, r))
				continue;
			s->chunks_beyond++;
			for (k = 0; k < OD_INODES_PER_CHUNK; k++)
				s->inodes_beyond += od_inobt_inuse(r, k);
		}
	}
	/* file mappings past the end, wherever their inodes are */
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];

			for (k = 0; k < mi->nde + mi->nae; k++) {
				struct od_irec r;
				uint64_t lo, hi, cut;
				uint32_t t;

				if (k < mi->nde && (mi->flags & MI_REALTIME))
					continue;
				m_ext_get(&ag->ext[mi->ext + k], &r);
				t = od_fsb_agno(g, r.startblock);
				if (t >= m->agcount)
					continue;
				cut = plan_ag_len(pl, t);
				lo = od_fsb_agbno(g, r.startblock);
				hi = lo + r.blockcount;
				if (lo < cut)
					lo = cut;
				if (lo < hi)
					s->data_beyond += hi - lo;
			}
		}
	}
}

/* sb_imax_pct: room for the inodes there are, and a few chunks more. */
static uint8_t imax_pct(const struct planner *pl, const struct plan_shrink *s)
{
	const struct od_sb *sb = &pl->m->fs->sb;
	uint64_t need = (sb->icount >> pl->g->inopblog) +
			2ull * pl->g->ialloc_blks, pct;

	if (!sb->imax_pct)
		return 0;	/* no limit */
	pct = (need * 100 + s->dblocks - 1) / s->dblocks;
	if (pct <= sb->imax_pct)
		return sb->imax_pct;
	return pct > 100 ? 100 : (uint8_t)pct;
}

int plan_shrink_setup(struct planner *pl, uint64_t to)
{
	struct plan_shrink *s = &pl->p->shrink;
	uint32_t la, lb, ll;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!to)
		return 0;
	ret = plan_shrink_geometry(pl->g, to, &s->agcount, &s->last_len, pl->e);
	if (ret)
		return ret;
	s->dblocks = to;
	pl->shr = s;
	if (old_log(pl, &la, &lb, &ll) &&
	    (la >= s->agcount || (uint64_t)lb + ll > plan_ag_len(pl, la))) {
		ret = place_log(pl, s);
		if (ret)
			return ret;
	}
	beyond(pl, s);
	s->imax_pct = imax_pct(pl, s);
	return 0;
}

void plan_shrink_unpin(struct agplan *ap)
{
	uint32_t lb = 0, ll = 0;
	bool log = plan_shrink_log_in(ap->pl, ap->agno, &lb, &ll);
	size_t i;

	if (!ap->pl->shr)
		return;
	for (i = 0; i < ap->nunit; i++) {
		const struct unit *un = &ap->unit[i];
		uint64_t e = (uint64_t)un->start + un->len;

		if (e > ap->agblocks || (log && un->start < lb + ll && e > lb))
			ap->pinned[i] = 0;
	}
}

bool plan_shrink_log_moves(const struct planner *pl)
{
	return pl->shr && pl->shr->logstart;
}

int plan_shrink_verify(struct planner *pl, const struct agplan *aps)
{
	const struct model *m = pl->m;
	uint64_t out = 0, chunks = 0;
	uint32_t a, k;
	size_t i;

	if (!pl->shr)
		return 0;
	for (a = 0; a < m->agcount; a++) {
		const struct agplan *ap = &aps[a];

		for (i = 0; i < ap->nunit; i++) {
			const struct unit *un = &ap->unit[i];

			for (k = 0; k < un->npieces; k++) {
				const struct piece *pc = &ap->piece[un->piece0 + k];

				if (plan_shrink_gone(pl, un->target) ||
				    (uint64_t)pc->dst + pc->len >
				    plan_ag_len(pl, un->target))
					out += pc->len;
			}
			if (!un->npieces &&
			    (plan_shrink_gone(pl, a) ||
			     (uint64_t)un->start + un->len > plan_ag_len(pl, a)))
				out += un->len;
		}
		for (i = 0; i < m->ag[a].nchunk; i++)
			if (plan_shrink_chunk_forced(pl, a, &m->ag[a].chunk[i]) &&
			    !plan_ino_vacated(pl, a, i))
				chunks++;
	}
	if (out || chunks)
		return err_set(pl->e, -ENOSPC, "refusing to shrink: not enough "
			       "room inside %llu blocks (%llu blocks of data "
			       "and %llu inode chunks found no place inside)",
			       (unsigned long long)pl->shr->dblocks,
			       (unsigned long long)out,
			       (unsigned long long)chunks);
	return 0;
}

void plan_shrink_figures(struct planner *pl)
{
	const struct plan_shrink *s = pl->shr;
	uint32_t la, lb, ll;
	uint64_t meta;

	if (!s)
		return;
	/* what the seal journals: the live blocks past the end that no
	 * intact copy holds (inode chunks, btree blocks, headers, log) */
	meta = s->used_beyond > s->data_beyond ?
	       s->used_beyond - s->data_beyond : 0;
	/* a moved log: data may land on the old one's blocks inside the
	 * end, and the new one may have to go over live blocks */
	if (s->logstart && old_log(pl, &la, &lb, &ll) &&
	    lb < plan_ag_len(pl, la))
		meta += plan_ag_len(pl, la) - lb < ll ? plan_ag_len(pl, la) - lb :
			ll;
	if (s->logstart && !s->log_in_free)
		meta += pl->m->fs->sb.logblocks;
	pl->p->undo_estimate += meta << pl->g->blocklog;
}

/* ---- --min: the smallest size that fits ---- */

uint64_t plan_shrink_floor(const struct model *m)
{
	const struct od_geo *g = &m->fs->geo;
	uint64_t used = 0;
	uint32_t a;

	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		used += od_ag_blocks(g, a);
		if (ag->have_agf)
			used -= ag->agf.freeblks + ag->agf.flcount;
	}
	/* the log is in use already; the AGs the data needs keep headers */
	return used;
}

int plan_shrink_min(const struct model *m, const struct plan_opts *o,
		    struct plan *p, unsigned *tries, struct err *e)
{
	const struct od_geo *g = &m->fs->geo;
	struct plan_opts po = *o;
	struct plan best = { 0 };
	uint64_t lo, hi, step = MIN_STEP_BYTES >> g->blocklog;
	int ret;

	memset(p, 0, sizeof(*p));
	*tries = 0;
	if (!step)
		step = 1;
	hi = round_down(g, g->dblocks - 1);
	lo = plan_shrink_round_up(g, plan_shrink_floor(m));
	if (!hi || hi >= g->dblocks)
		return err_set(e, -ENOSPC, "refusing to shrink: the "
			       "filesystem is as small as its geometry allows");
	if (lo > hi)
		lo = hi;
	/* the largest size below now first: if even that fails, none will */
	po.shrink_to = hi;
	++*tries;
	ret = plan_build(m, &po, &best, e);
	if (ret)
		return ret;
	while (lo < hi && hi - lo > step) {
		uint64_t mid = plan_shrink_round_up(g, lo + (hi - lo) / 2);
		struct plan t;

		if (mid >= hi)
			mid = round_down(g, hi - 1);
		if (mid < lo || mid >= hi)
			break;
		po.shrink_to = mid;
		++*tries;
		ret = plan_build(m, &po, &t, e);
		/* too small: no room, or an inode it would cut off that
		 * cannot move (a larger size may keep it inside) */
		if (ret == -ENOSPC || ret == -EPERM) {
			err_clear(e);
			lo = mid + 1;
			continue;
		}
		if (ret) {
			plan_free(&best);
			return ret;
		}
		plan_free(&best);
		best = t;
		hi = mid;
	}
	*p = best;
	return 0;
}
