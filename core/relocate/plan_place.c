/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-AG placement: what stays fixed in an AG (headers, log, inode
 * chunks, AGFL, data already in place), the windows between, and where
 * every unit of data goes: its AG first (one per fork), then a window.
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits_priv.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/relocate/btbuild.h"
#include "core/fs/fork.h"
#include "ondisk/inode.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_FIT_SCAN	256	/* segments looked at before splitting */

static int add_obst(struct agplan *ap, uint32_t start, uint32_t len)
{
	if (!len)
		return 0;
	if (bigmem_grow((void **)&ap->obst, &ap->cap_obst, ap->nobst,
			sizeof(*ap->obst)))
		return -ENOMEM;
	ap->obst[ap->nobst].agbno = start;
	ap->obst[ap->nobst].len = len;
	ap->nobst++;
	return 0;
}

static int cmp_free(const void *a, const void *b)
{
	const struct m_free *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

/* AG headers, log, inode chunks, AGFL: what this run does not move. */
int plan_gather_obstacles(struct agplan *ap)
{
	const struct model *m = ap->pl->m;
	const struct od_geo *g = ap->pl->g;
	const struct m_ag *ag = &m->ag[ap->agno];
	uint64_t log0 = m->fs->sb.logstart;
	uint32_t hdr_end, i, k, lb, ll;
	int ret = 0;

	/* sb, agf, agi, agfl sectors: blocks up to the AGFL's, inclusive */
	hdr_end = (uint32_t)(((uint64_t)3 * g->sectsize) >> g->blocklog) + 1;
	ret |= add_obst(ap, 0, hdr_end);
	/* a shrink that moves the log: its new place, and the old is free */
	if (plan_shrink_log_in(ap->pl, ap->agno, &lb, &ll))
		ret |= add_obst(ap, lb, ll);
	if (log0 && od_fsb_agno(g, log0) == ap->agno &&
	    !plan_shrink_log_moves(ap->pl))
		ret |= add_obst(ap, od_fsb_agbno(g, log0),
				m->fs->sb.logblocks);
	for (i = 0; i < ag->nagfl; i++)
		ret |= add_obst(ap, ag->agfl[i], 1);
	/* the blocks holding any present inode group of each chunk */
	for (k = 0; k < ag->nchunk; k++) {
		const struct od_inobt_rec *r = &ag->chunk[k];
		uint32_t grp;

		if (plan_ino_vacated(ap->pl, ap->agno, k))
			continue;	/* its blocks are free after the run */
		for (grp = 0; grp < OD_INODES_PER_CHUNK;
		     grp += OD_INODES_PER_HOLEMASK_BIT) {
			uint32_t b0, b1;

			if (!od_inobt_present(r, grp))
				continue;
			b0 = od_agino_agbno(g, r->startino + grp);
			b1 = od_agino_agbno(g, r->startino + grp +
					    OD_INODES_PER_HOLEMASK_BIT - 1);
			ret |= add_obst(ap, b0, b1 - b0 + 1);
		}
	}
	return ret ? -ENOMEM : 0;
}

/* Sort and merge touching or overlapping obstacles. */
static void merge_obstacles(struct agplan *ap)
{
	size_t i, k;

	sort_any(ap->obst, ap->nobst, sizeof(*ap->obst), cmp_free);
	for (i = 1, k = 0; i < ap->nobst; i++) {
		struct m_free *p = &ap->obst[k], *c = &ap->obst[i];

		if (c->agbno <= p->agbno + p->len) {
			if (c->agbno + c->len > p->agbno + p->len)
				p->len = c->agbno + c->len - p->agbno;
		} else {
			ap->obst[++k] = *c;
		}
	}
	if (ap->nobst)
		ap->nobst = k + 1;
}

/* Bytes of fork whichfork in the inode (its literal-area share). */
uint32_t plan_fork_len(const struct od_geo *g, const struct m_ino *mi,
			 int whichfork)
{
	uint32_t lit = g->inodesize - (mi->version == 3 ? OD_DINODE_V3_CORE :
						       OD_DINODE_V2_CORE);

	if (whichfork == FORK_DATA)
		return mi->forkoff ? (uint32_t)mi->forkoff * 8 : lit;
	return mi->forkoff ? lit - (uint32_t)mi->forkoff * 8 : 0;
}

uint8_t plan_fork_ftype(const struct m_ino *mi, int whichfork)
{
	if (whichfork == FORK_ATTR)
		return PF_ATTR;
	if (od_mode_isdir(mi->mode))
		return PF_DIR;
	if (od_mode_islnk(mi->mode))
		return PF_SYMLINK;
	return PF_DATA;
}

/* Every fork mapping that lies in this AG. */
int plan_gather_maps(struct agplan *ap)
{
	struct planner *pl = ap->pl;
	const struct od_geo *g = pl->g;
	size_t i;
	uint32_t k;

	for (i = 0; i < pl->nref; i++) {
		const struct m_ino *mi = pl->ref[i].mi;
		const struct m_ag *ag = pl->ref[i].ag;

		for (k = 0; k < mi->nde + mi->nae; k++) {
			struct od_irec x;
			struct pmap *pm;
			int fork = k < mi->nde ? FORK_DATA : FORK_ATTR;

			if (fork == FORK_DATA && (mi->flags & MI_REALTIME))
				continue;
			m_ext_get(&ag->ext[mi->ext + k], &x);
			if (od_fsb_agno(g, x.startblock) != ap->agno)
				continue;
			if (bigmem_grow((void **)&ap->map, &ap->cap_map,
					ap->nmap, sizeof(*ap->map)))
				return -ENOMEM;
			pm = &ap->map[ap->nmap++];
			pm->start = od_fsb_agbno(g, x.startblock);
			pm->len = x.blockcount;
			pm->ino_idx = (uint32_t)i;
			pm->startoff = x.startoff;
			pm->fork = (uint8_t)fork;
			pm->unwritten = x.unwritten;
			pm->ftype = plan_fork_ftype(mi, fork);
			pm->unit = 0;
		}
	}
	return 0;
}

static int cmp_pmap_start(const void *a, const void *b)
{
	const struct pmap *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * The order a mapping asks to be placed in.  Walk orders: the inode's
 * place in the walk, data fork first, by file offset.  Inode order: by
 * the inode's chunk first (inodes do not move, so data follows its
 * inode's neighbourhood), then the same.
 */
static void map_key(const struct planner *pl, const struct pmap *pm,
		    uint64_t k[3])
{
	k[0] = pl->stream ? 0 : pl->ref[pm->ino_idx].mi->ino >> 6;
	k[1] = pl->ref[pm->ino_idx].order << 1 | pm->fork;
	k[2] = pm->startoff;
}

static bool key_less(const uint64_t a[3], const struct unit *u)
{
	if (a[0] != u->key)
		return a[0] < u->key;
	if (a[1] != u->key2)
		return a[1] < u->key2;
	return a[2] < u->key3;
}

/* Group overlapping mappings (shared blocks) into units. */
int plan_build_units(struct agplan *ap)
{
	size_t i, u = 0;
	uint32_t end = 0;

	sort_any(ap->map, ap->nmap, sizeof(*ap->map), cmp_pmap_start);
	ap->unit = bigmem_calloc(ap->nmap ? ap->nmap : 1, sizeof(*ap->unit));
	if (!ap->unit)
		return -ENOMEM;
	for (i = 0; i < ap->nmap; i++) {
		struct pmap *pm = &ap->map[i];
		uint64_t key[3];

		map_key(ap->pl, pm, key);

		if (i == 0 || pm->start >= end) {
			struct unit *un = &ap->unit[u++];

			un->start = pm->start;
			un->len = pm->len;
			un->key = key[0];
			un->key2 = key[1];
			un->key3 = key[2];
			un->written = !pm->unwritten;
			un->target = ap->agno;
			un->owner_ag = plan_ino_ag(ap->pl, pm->ino_idx);
			end = pm->start + pm->len;
		} else {
			struct unit *un = &ap->unit[u - 1];

			if (pm->start + pm->len > end)
				end = pm->start + pm->len;
			un->len = end - un->start;
			un->shared = true;
			if (!pm->unwritten)
				un->written = true;
			if (key_less(key, un)) {
				un->key = key[0];
				un->key2 = key[1];
				un->key3 = key[2];
			}
		}
		pm->unit = (uint32_t)(u - 1);
	}
	ap->nunit = u;
	return 0;
}


/*
 * Is the fork already one physically contiguous run in file-offset order
 * (holes allowed)?  Then moving it gains nothing by itself.
 */
static bool fork_in_order(struct planner *pl, uint32_t idx, int fork)
{
	uint8_t *st = &pl->in_order[2 * (size_t)idx + (size_t)fork];
	const struct m_ino *mi = pl->ref[idx].mi;
	const struct m_ag *ag = pl->ref[idx].ag;
	uint32_t first = fork == FORK_DATA ? 0 : mi->nde;
	uint32_t n = fork == FORK_DATA ? mi->nde : mi->nae, k;
	struct od_irec prev, cur;

	if (*st)
		return *st == 1;
	*st = 1;
	for (k = 0; k < n; k++) {
		m_ext_get(&ag->ext[mi->ext + first + k], &cur);
		if (k && cur.startblock != prev.startblock + prev.blockcount) {
			*st = 2;
			break;
		}
		prev = cur;
	}
	return *st == 1;
}

/*
 * Pin what is fine where it is: shared units, and (inode order) the units
 * of files that are already contiguous in their inode's AG.  Pinned units
 * become obstacles, so placement only fills the holes around them.  In a
 * walk stream a file left where it is would cost the reader a jump there
 * and one back: the stream keeps in place only what already sits where
 * the stream reaches it (plan_stream.c).
 */
int plan_pin_units(struct agplan *ap)
{
	size_t i;

	ap->pinned = calloc(ap->nunit ? ap->nunit : 1, 1);
	if (!ap->pinned)
		return -ENOMEM;

	for (i = 0; i < ap->nunit; i++)
		ap->pinned[i] = !ap->compact &&
				(!ap->pl->stream || ap->unit[i].shared);
	for (i = 0; i < ap->nmap; i++) {
		const struct pmap *pm = &ap->map[i];
		const struct unit *un = &ap->unit[pm->unit];

		if (un->shared || !ap->pinned[pm->unit])
			continue;
		if (un->owner_ag != ap->agno ||
		    !fork_in_order(ap->pl, pm->ino_idx, pm->fork))
			ap->pinned[pm->unit] = 0;
	}
	if (plan_lim_pin(ap))
		return -ENOMEM;
	plan_shrink_unpin(ap);
	for (i = 0; i < ap->nunit; i++)
		if (ap->pinned[i] &&
		    add_obst(ap, ap->unit[i].start, ap->unit[i].len))
			return -ENOMEM;
	merge_obstacles(ap);
	return 0;
}

/* The complement of the obstacles up to the AG's end (a shrink cuts
 * it short); the largest window is filled last so free space gathers
 * there. */
int plan_build_segments(struct agplan *ap)
{
	uint32_t pos = 0, i, big = 0;
	size_t n = 0;

	ap->seg = calloc(ap->nobst + 1, sizeof(*ap->seg));
	if (!ap->seg)
		return -ENOMEM;
	for (i = 0; i <= ap->nobst && pos < ap->agblocks; i++) {
		uint32_t end = i < ap->nobst ? ap->obst[i].agbno : ap->agblocks;

		if (end > ap->agblocks)
			end = ap->agblocks;
		if (end > pos) {
			ap->seg[n].start = ap->seg[n].cur = pos;
			ap->seg[n].end = end;
			n++;
		}
		if (i < ap->nobst)
			pos = ap->obst[i].agbno + ap->obst[i].len;
	}
	ap->nseg = n;
	for (i = 1; i < n; i++)
		if (ap->seg[i].end - ap->seg[i].start >
		    ap->seg[big].end - ap->seg[big].start)
			big = i;
	if (n > 1 && big != n - 1) {
		struct seg w = ap->seg[big];

		memmove(&ap->seg[big], &ap->seg[big + 1],
			(n - big - 1) * sizeof(*ap->seg));
		ap->seg[n - 1] = w;
	}
	ap->seg_first = 0;
	return 0;
}


/*
 * Take len contiguous blocks, first fit from the first open segment; if
 * none within reach has room, return 0 and let the caller split.
 */
bool plan_seg_take(struct agplan *ap, uint32_t len, uint32_t *at)
{
	size_t i, n = 0;

	while (ap->seg_first < ap->nseg &&
	       ap->seg[ap->seg_first].cur == ap->seg[ap->seg_first].end)
		ap->seg_first++;
	for (i = ap->seg_first; i < ap->nseg && n < FIRST_FIT_SCAN; i++, n++) {
		struct seg *sg = &ap->seg[i];

		if (sg->end - sg->cur >= len) {
			*at = sg->cur;
			sg->cur += len;
			return true;
		}
	}
	/* the big window, last in order, is worth a look too */
	if (ap->nseg && i < ap->nseg) {
		struct seg *sg = &ap->seg[ap->nseg - 1];

		if (sg->end - sg->cur >= len) {
			*at = sg->cur;
			sg->cur += len;
			return true;
		}
	}
	return false;
}

/*
 * Like seg_take, but first look in the windows at or after hint (the
 * inode's block), so data lands just after its inode, then in the nearest
 * ones before it; the big window, kept last for free space, is left
 * alone here.
 */
bool plan_seg_take_near(struct agplan *ap, uint32_t len, uint32_t hint,
			uint32_t *at)
{
	size_t lo = 0, hi = ap->nseg ? ap->nseg - 1 : 0, i, n = 0;

	while (lo < hi) {	/* segments [0, nseg-1) are in block order */
		size_t mid = lo + (hi - lo) / 2;

		if (ap->seg[mid].end <= hint)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i + 1 < ap->nseg && n < FIRST_FIT_SCAN; i++, n++) {
		struct seg *sg = &ap->seg[i];

		if (sg->end - sg->cur >= len) {
			*at = sg->cur;
			sg->cur += len;
			return true;
		}
	}
	for (i = lo, n = 0; i > ap->seg_first && n < FIRST_FIT_SCAN; i--, n++) {
		struct seg *sg = &ap->seg[i - 1];

		if (sg->end - sg->cur >= len) {
			*at = sg->cur;
			sg->cur += len;
			return true;
		}
	}
	return plan_seg_take(ap, len, at);
}

/* Take up to len blocks from the first open segment (for splitting). */
uint32_t plan_seg_take_some(struct agplan *ap, uint32_t len, uint32_t *at)
{
	while (ap->seg_first < ap->nseg) {
		struct seg *sg = &ap->seg[ap->seg_first];
		uint32_t n = sg->end - sg->cur;

		if (n) {
			if (n > len)
				n = len;
			*at = sg->cur;
			sg->cur += n;
			return n;
		}
		ap->seg_first++;
	}
	return 0;
}

int plan_add_piece(struct agplan *ap, struct unit *un, uint32_t off,
		   uint32_t len, uint32_t dst)
{
	struct piece *pc;

	if (bigmem_grow((void **)&ap->piece, &ap->cap_piece, ap->npiece,
			sizeof(*ap->piece)))
		return -ENOMEM;
	if (!un->npieces)
		un->piece0 = (uint32_t)ap->npiece;
	pc = &ap->piece[ap->npiece++];
	pc->off = off;
	pc->len = len;
	pc->dst = dst;
	un->npieces++;
	return 0;
}



static int cmp_uref(const void *a, const void *b, void *arg)
{
	const struct agplan *aps = arg;
	const struct uref *x = a, *y = b;
	const struct unit *ux = &aps[x->agno].unit[x->idx];
	const struct unit *uy = &aps[y->agno].unit[y->idx];

	if (ux->key != uy->key)
		return ux->key < uy->key ? -1 : 1;
	if (ux->key2 != uy->key2)
		return ux->key2 < uy->key2 ? -1 : 1;
	if (ux->key3 != uy->key3)
		return ux->key3 < uy->key3 ? -1 : 1;
	if (x->agno != y->agno)
		return x->agno < y->agno ? -1 : 1;
	return ux->start < uy->start ? -1 : ux->start > uy->start;
}

/* Blocks an AG keeps for rebuilt btrees and bmap blocks, roughly. */
static uint64_t ag_reserve(const struct agplan *ap)
{
	uint64_t space = 0;
	size_t i;

	for (i = 0; i < ap->nseg; i++)
		space += ap->seg[i].end - ap->seg[i].start;
	return plan_agbt_estimate(ap->pl, ap) + ap->nmap / 64 + space / 256 + 64;
}

/* Do two units (sorted by cmp_uref) ask to be placed as one fork? */
bool plan_same_fork(const struct agplan *aps, const struct uref *x,
		    const struct uref *y)
{
	const struct unit *ux = &aps[x->agno].unit[x->idx];
	const struct unit *uy = &aps[y->agno].unit[y->idx];

	return ux->key == uy->key && ux->key2 == uy->key2;
}

/*
 * debt[a]: what AG a holds beyond its room (a shrink's last AG, cut
 * short): units leaving it pay that first, and none of its forks may
 * stay while it is owed.
 */
static void retarget(struct agplan *aps, const struct uref *u, size_t nu,
		     uint32_t t, uint64_t *room, uint64_t *debt)
{
	size_t k;

	for (k = 0; k < nu; k++) {
		struct unit *un = &aps[u[k].agno].unit[u[k].idx];
		uint64_t pay;

		if (u[k].agno == t)
			continue;
		pay = debt[u[k].agno] < un->len ? debt[u[k].agno] : un->len;
		debt[u[k].agno] -= pay;
		room[t] -= un->len;
		room[u[k].agno] += un->len - pay;
		un->target = t;
	}
}

/*
 * The AG a fork's movable units go to (shared ones too: they are keyed to
 * their first owner and move with all owners), all of them together
 * so the file can end up in one extent: its inode's AG when that has
 * room, else the AG already holding most of it, else the next AG after
 * the inode's with room (as the kernel's allocator moves on); a fork
 * that fits whole nowhere keeps its units where they are, except those
 * its inode's AG can still take.  have[] is zero on entry and on return.
 */
static void choose_target(const struct od_geo *g, struct agplan *aps,
			  const struct uref *u, size_t nu, uint64_t *room,
			  uint64_t *have, uint64_t *debt)
{
	const struct planner *pl = aps[0].pl;
	uint32_t owner = aps[u[0].agno].unit[u[0].idx].owner_ag, t = 0, a;
	uint64_t total = 0, best = 0;
	bool found = false, one_ag = true;
	size_t k;

	for (k = 0; k < nu; k++) {
		const struct unit *un = &aps[u[k].agno].unit[u[k].idx];

		total += un->len;
		have[u[k].agno] += un->len;
		if (u[k].agno != u[0].agno)
			one_ag = false;
	}
	if (!total)
		goto out;
	/* a pass goes where the full plan goes (plan_limits.h, home) */
	if (plan_lim_home(aps, u, &t) && t < g->agcount &&
	    room[t] >= total - have[t]) {
		found = true;
	} else if (owner < g->agcount && !plan_shrink_gone(pl, owner) &&
		   !debt[owner] && room[owner] >= total - have[owner]) {
		t = owner;
		found = true;
	} else if (one_ag && !plan_shrink_gone(pl, u[0].agno) &&
		   !debt[u[0].agno]) {
		goto out;	/* contiguous or not, it can stay in its AG */
	}
	for (k = 0; k < nu && !found; k++) {	/* the AG with most of it */
		a = u[k].agno;
		if (have[a] > best && room[a] >= total - have[a] &&
		    !plan_shrink_gone(pl, a) && !debt[a]) {
			best = have[a];
			t = a;
		}
	}
	found = found || best;
	for (k = 1; k <= g->agcount && !found && owner < g->agcount; k++) {
		a = (uint32_t)((owner + k) % g->agcount);
		if (room[a] >= total - have[a] && !plan_shrink_gone(pl, a) &&
		    !debt[a]) {
			t = a;
			found = true;
		}
	}
	if (found) {
		retarget(aps, u, nu, t, room, debt);
		goto out;
	}
	for (k = 0; k < nu && owner < g->agcount; k++) {
		struct unit *un = &aps[u[k].agno].unit[u[k].idx];

		if (u[k].agno == owner || room[owner] < un->len ||
		    plan_shrink_gone(pl, owner) || debt[owner])
			continue;
		retarget(aps, &u[k], 1, owner, room, debt);
	}
	/* a shrink: what is still in a gone AG, or one owed, goes wherever
	 * it fits */
	for (k = 0; k < nu && pl->shr; k++) {
		struct unit *un = &aps[u[k].agno].unit[u[k].idx];
		uint32_t b = g->agcount;

		if (!plan_shrink_gone(pl, un->target) && !debt[un->target])
			continue;
		for (a = 0; a < g->agcount; a++)
			if (!plan_shrink_gone(pl, a) && !debt[a] &&
			    room[a] >= un->len &&
			    (b == g->agcount || room[a] > room[b]))
				b = a;
		if (b < g->agcount)
			retarget(aps, &u[k], 1, b, room, debt);
	}
out:
	for (k = 0; k < nu; k++)
		have[u[k].agno] = 0;
}

/*
 * Room left in one AG's windows, by block order, for anchor(): a Fenwick
 * tree over the windows so the room from any window on is a quick sum
 * while placement takes blocks.
 */
struct wroom {
	uint32_t *start;	/* window starts, ascending */
	int64_t *fw;		/* Fenwick tree of room, 1-based */
	uint64_t total;
	size_t n;
};

static void wroom_add(struct wroom *w, size_t i, int64_t d)
{
	w->total += (uint64_t)d;
	for (i++; i <= w->n; i += i & (~i + 1))
		w->fw[i] += d;
}

/* Room in windows [0, i). */
static uint64_t wroom_before(const struct wroom *w, size_t i)
{
	int64_t sum = 0;

	for (; i; i -= i & (~i + 1))
		sum += w->fw[i];
	return (uint64_t)sum;
}

/* Index of the window holding block at (the last starting at or before). */
static size_t wroom_find(const struct wroom *w, uint32_t at)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->start[mid] <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

static void wroom_push(struct wroom *w, size_t *k, const struct seg *sg)
{
	w->start[*k] = sg->start;
	wroom_add(w, (*k)++, (int64_t)(sg->end - sg->cur));
}

static int wroom_init(struct wroom *w, const struct agplan *ap)
{
	size_t i, k = 0, last = ap->nseg ? ap->nseg - 1 : 0;
	bool big_in = false;

	memset(w, 0, sizeof(*w));
	w->start = malloc((ap->nseg + 1) * sizeof(*w->start));
	w->fw = calloc(ap->nseg + 1, sizeof(*w->fw));
	if (!w->start || !w->fw)
		return -ENOMEM;
	if (!ap->nseg)
		return 0;
	w->n = ap->nseg;
	/* segments [0, nseg-1) are in block order; the big one goes between */
	for (i = 0; i < last; i++) {
		if (!big_in && ap->seg[last].start < ap->seg[i].start) {
			wroom_push(w, &k, &ap->seg[last]);
			big_in = true;
		}
		wroom_push(w, &k, &ap->seg[i]);
	}
	if (!big_in)
		wroom_push(w, &k, &ap->seg[last]);
	return 0;
}

static void wroom_free(struct wroom *w)
{
	free(w->start);
	free(w->fw);
}

static void wroom_take(struct wroom *w, uint32_t at, uint32_t len)
{
	if (w && w->n)
		wroom_add(w, wroom_find(w, at), -(int64_t)len);
}

/*
 * Where a fork whose inode sits at block hint should start looking for
 * room: at the hint while the windows from there on can still hold the
 * data of every fork after it that wants to be near its inode (rem
 * blocks, this one's included), else at the latest window that leaves
 * them room.  In a nearly full AG this stops each chunk's data spilling
 * past the next chunks until the last ones wrap to the AG's front.
 */
static uint32_t anchor(const struct wroom *w, uint32_t hint, uint64_t rem)
{
	size_t lo = 0, hi, i;

	if (!w->n)
		return hint;
	i = wroom_find(w, hint);
	if (w->total - wroom_before(w, i) >= rem)
		return hint;
	hi = i;		/* the last window i' < i with room after it >= rem */
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;

		if (w->total - wroom_before(w, mid) >= rem)
			lo = mid;
		else
			hi = mid - 1;
	}
	return w->start[lo];
}

#define SPLIT_SCAN	4096	/* windows looked at for the largest */

/* The window with the most room left, or NULL when the AG is full. */
static struct seg *largest_window(struct agplan *ap)
{
	struct seg *best = NULL;
	size_t i, n = 0;

	while (ap->seg_first < ap->nseg &&
	       ap->seg[ap->seg_first].cur == ap->seg[ap->seg_first].end)
		ap->seg_first++;
	for (i = ap->seg_first; i < ap->nseg && n < SPLIT_SCAN; i++, n++)
		if (ap->seg[i].cur < ap->seg[i].end &&
		    (!best || ap->seg[i].end - ap->seg[i].cur >
			      best->end - best->cur))
			best = &ap->seg[i];
	if (ap->nseg && ap->seg[ap->nseg - 1].cur < ap->seg[ap->nseg - 1].end &&
	    (!best || ap->seg[ap->nseg - 1].end - ap->seg[ap->nseg - 1].cur >
		      best->end - best->cur))
		best = &ap->seg[ap->nseg - 1];
	return best;
}

/*
 * A fork no window holds whole: its units in file order as one stream
 * over the largest windows, so it ends up in as few extents as the AG
 * allows; a unit is cut where a window ends.
 */
static int place_split(struct agplan *aps, const struct uref *u, size_t nu,
		       struct agplan *dst, struct wroom *wr)
{
	uint32_t off = 0;
	size_t k = 0;
	int ret = 0;

	while (k < nu && !ret) {
		struct seg *sg = largest_window(dst);

		if (!sg)
			return -ENOSPC;
		while (k < nu && sg->cur < sg->end && !ret) {
			struct agplan *src = &aps[u[k].agno];
			struct unit *un = &src->unit[u[k].idx];
			uint32_t len = un->len - off;

			if (len > sg->end - sg->cur)
				len = sg->end - sg->cur;
			ret = plan_add_piece(src, un, off, len, sg->cur);
			wroom_take(wr, sg->cur, len);
			sg->cur += len;
			off += len;
			if (off == un->len) {
				k++;
				off = 0;
			}
		}
	}
	return ret;
}

int plan_place_split(struct agplan *aps, const struct uref *u, size_t nu,
		     struct agplan *dst)
{
	return place_split(aps, u, nu, dst, NULL);
}

/*
 * Choose each fork's AG (choose_target), then place every AG's units in
 * tree order, a fork's units side by side in the first window that holds
 * them all; what fits nowhere whole is split.
 */
int plan_place_all(struct planner *pl, struct agplan *aps)
{
	const struct od_geo *g = pl->g;
	uint64_t *room, *have, *debt, *rem = NULL;
	struct wroom *wr = NULL;
	struct uref *all;
	size_t n = 0, i;
	uint32_t a;
	int ret = 0;

	for (a = 0; a < g->agcount; a++)
		n += aps[a].nunit;
	all = malloc((n ? n : 1) * sizeof(*all));
	room = calloc(g->agcount, sizeof(*room));
	have = calloc(g->agcount, sizeof(*have));
	debt = calloc(g->agcount, sizeof(*debt));
	if (!all || !room || !have || !debt) {
		free(all);
		free(room);
		free(have);
		free(debt);
		return -ENOMEM;
	}
	for (a = 0, n = 0; a < g->agcount; a++) {
		struct agplan *ap = &aps[a];
		uint64_t space = 0, used = 0, reserve = ag_reserve(ap);

		/*
		 * Inode order: the AG btrees go first, into the lowest hole
		 * that fits; a stream takes them after the data.
		 */
		ap->bt_len = pl->stream ? 0 : plan_agbt_estimate(pl, ap);
		if (ap->bt_len && !plan_seg_take(ap, ap->bt_len, &ap->bt_at))
			ap->bt_len = 0;	/* taken at the end instead */
		for (i = 0; i < ap->nseg; i++)
			space += ap->seg[i].end - ap->seg[i].cur;
		for (i = 0; i < ap->nunit; i++) {
			if (ap->pinned[i]) {
				/* stays: a piece onto itself */
				if (plan_add_piece(ap, &ap->unit[i], 0,
					      ap->unit[i].len,
					      ap->unit[i].start)) {
					free(all);
					free(room);
					free(have);
					free(debt);
					return -ENOMEM;
				}
				continue;
			}
			used += ap->unit[i].len;
			all[n].agno = a;
			all[n++].idx = (uint32_t)i;
		}
		used += plan_ino_blocks(pl, a);
		room[a] = space > used + reserve ? space - used - reserve : 0;
		/* a shrink's last AG may hold more than fits inside its end */
		if (pl->shr && !room[a] && used + reserve > space)
			debt[a] = used + reserve - space;
		if (!plan_lim_ag(pl, a))
			room[a] = 0;	/* left alone: nothing moves in */
	}
	qsort_r(all, n, sizeof(*all), cmp_uref, aps);
	/* pass 1: choose target AGs; a move frees room where it came from */
	for (i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && plan_same_fork(aps, &all[i], &all[j]))
			j++;
		choose_target(g, aps, all + i, j - i, room, have, debt);
		i = j;
	}
	if (pl->stream && plan_lim_near(pl)) {
		ret = plan_place_near(pl, aps, all, n);
		goto out;
	}
	if (pl->stream) {
		ret = plan_place_stream(pl, aps, all, n);
		goto out;
	}
	/* what each fork near its inode leaves to place after it, per AG */
	wr = calloc(g->agcount, sizeof(*wr));
	rem = malloc((n ? n : 1) * sizeof(*rem));
	if (!wr || !rem)
		ret = -ENOMEM;
	for (a = 0; a < g->agcount && !ret; a++)
		ret = wroom_init(&wr[a], &aps[a]);
	for (i = n; i > 0 && !ret; i--) {
		const struct unit *un = &aps[all[i - 1].agno].unit[all[i - 1].idx];

		if (un->owner_ag == un->target)
			have[un->target] += un->len;
		rem[i - 1] = have[un->target];
	}
	/*
	 * pass 2: place, in order, in the target AG's windows.  The units
	 * of one fork go into one window together when one is big enough,
	 * so the file ends up in one extent.
	 */
	for (i = 0; i < n && !ret;) {
		struct agplan *src = &aps[all[i].agno];
		struct unit *un = &src->unit[all[i].idx];
		struct agplan *dst = &aps[un->target];
		uint64_t total = un->len;
		uint32_t at, hint;
		size_t j = i + 1;

		while (j < n) {
			const struct unit *v = &aps[all[j].agno].unit[all[j].idx];

			if (!plan_same_fork(aps, &all[i], &all[j]) ||
			    v->target != un->target || total + v->len > UINT32_MAX)
				break;
			total += v->len;
			j++;
		}
		/* near the inode when the data joins the inode's AG */
		hint = 0;
		if (un->owner_ag == un->target)
			hint = anchor(&wr[un->target], od_agino_agbno(g,
					od_ino_agino(g, un->key << 6)), rem[i]);
		if (plan_seg_take_near(dst, (uint32_t)total, hint, &at)) {
			wroom_take(&wr[un->target], at, (uint32_t)total);
			for (; i < j && !ret; i++) {
				struct agplan *s2 = &aps[all[i].agno];
				struct unit *u2 = &s2->unit[all[i].idx];

				ret = plan_add_piece(s2, u2, 0, u2->len, at);
				at += u2->len;
			}
			continue;
		}
		ret = place_split(aps, all + i, j - i, dst, &wr[un->target]);
		i = j;
	}
out:
	for (a = 0; wr && a < g->agcount; a++)
		wroom_free(&wr[a]);
	free(wr);
	free(rem);
	free(all);
	free(room);
	free(have);
	free(debt);
	return ret;
}
