// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inodes phase of a renumbering run, before the copy phase (which may
 * put data where a dropped chunk was): every moved inode is written whole
 * at its new slot with di_ino and its CRC (generation and timestamps
 * kept; a shortform directory's entries renumbered, shrinking to 4-byte
 * numbers where none needs 8, and shortform parent pointers naming a
 * moved directory).  The slots of a new chunk that receive no
 * inode become free inodes as the kernel initialises them; a vacated slot
 * of a chunk that stays becomes a free inode with the next generation.
 * Shortform directories that stay but name a moved inode, and inodes
 * that stay whose shortform parent pointers name a moved directory, are
 * rewritten in place.  Writes go block by block through the journaling layer.
 *
 * The slots are written in windows of a bounded number of moved inodes,
 * in the order of their new numbers: a window's moved inodes are read in
 * the order of their old numbers, as they were before the run (from the
 * journal where an earlier window wrote over them: chains of moves
 * through each other's slots are fine), then its blocks are journaled and
 * written.  Memory is the slot list (16 bytes a slot) and one window.
 */
#include "core/relocate/exec_priv.h"
#include "core/base/sort.h"
#include "ondisk/inode.h"
#include "ondisk/renum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A slot to write: ino, and where its bytes come from: the moved inode
 * src, or one of these (inode numbers never come near them).
 */
struct slot_write {
	uint64_t ino;
	uint64_t src;
};

#define SRC_NEW		(~0ull)		/* a new chunk's: a free inode */
#define SRC_VACATED	(~1ull)		/* free, the next generation */
#define SRC_STAYS	(~2ull)		/* an inode that stays: its shortform
					 * entries or parent pointers change */
#define SRC_MOVED_MAX	(~3ull)		/* below: a moved inode's old number */

/* Bytes of moved inodes a window holds (and more: a run whole). */
#define WINDOW_BYTES	(32u << 20)
/* Source blocks read at once (consecutive ones: a block between two
 * may be one a window wrote that was free when the run began, whose
 * original is nowhere) */
#define SRC_READ_BYTES	(1u << 20)

struct islots {
	struct slot_write *v;
	size_t n, cap;
};

static int slot_add(struct islots *s, uint64_t ino, uint64_t src)
{
	if (s->n == s->cap)
		return -ENOMEM;
	s->v[s->n].ino = ino;
	s->v[s->n++].src = src;
	return 0;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct slot_write *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/*
 * Renumber the shortform directory in raw (inode ino), fixing di_size.
 * 1 if it changed, 0 if not (or not a shortform directory).
 */
static int fix_sf(struct xctx *x, uint8_t *raw, uint64_t ino)
{
	struct od_inode di;
	const char *field;
	uint32_t size;
	int ret;

	if (od_inode_decode(raw, x->g->inodesize, x->g, ino, &di, &field) !=
	    OD_OK)
		return err_set(x->e, -EFSCORRUPTED, "inode %llu: does not "
			       "decode (%s)", (unsigned long long)ino,
			       field ? field : "?");
	if (!od_mode_isdir(di.mode) || di.format != OD_FMT_LOCAL)
		return 0;
	size = (uint32_t)di.size;
	ret = od_dir2_sf_renumber(raw + di.dfork_off, di.dfork_len, &size,
				  x->g->ftype, xr_map, x);
	if (ret < 0)
		return err_set(x->e, ret == -EOVERFLOW ? -EINVAL : ret,
			       "inode %llu: shortform directory %s",
			       (unsigned long long)ino, ret == -EOVERFLOW ?
			       "would need 8-byte numbers" : "does not decode");
	if (ret && size != di.size)
		od_dinode_set_size(raw, size);
	return ret;
}

/*
 * May an inode that stays change: a shortform directory (naming a moved
 * inode), or shortform attributes holding parent pointers to a moved
 * directory?
 */
static bool stays_changed(const struct xctx *x, const struct m_ino *mi)
{
	if (xr_new(x, mi->ino) != mi->ino)
		return false;
	if (od_mode_isdir(mi->mode) && m_dfmt(mi) == OD_FMT_LOCAL)
		return true;
	return !(mi->flags & MI_NOATTR) && m_afmt(mi) == OD_FMT_LOCAL &&
	       exec_pptr_target(x, mi->ino);
}

/*
 * The shortform forks of inode ino (its bytes at raw) renumbered: 1 if
 * they changed, 0 if not, or < 0.
 */
static int fix_forks(struct xctx *x, uint8_t *raw, uint64_t ino)
{
	int ret = fix_sf(x, raw, ino), r2;

	if (ret < 0)
		return ret;
	r2 = exec_pptr_sf(x, raw, ino);
	return r2 < 0 ? r2 : ret | r2;
}

/*
 * How many slots collect fills, at most (a shortform directory may turn
 * out unchanged), so that the list is allocated once.
 */
static size_t count_slots(struct xctx *x)
{
	const struct plan *p = x->p;
	size_t i, n = 0;
	uint32_t a, k;

	for (i = 0; i < p->nino; i++) {
		uint64_t old = p->ino[i].old;

		if (p->ino[i].new == old)
			continue;
		n++;
		if (!xr_chunk_freed(x, old) && !xr_is_dest(x, old))
			n++;
	}
	for (i = 0; i < p->nich; i++) {
		const struct plan_ichunk *c = &p->ich[i];
		struct od_inobt_rec r = { .holemask = c->holemask };

		for (k = 0; c->alloc && k < 64; k++)
			if (od_inobt_present(&r, k) &&
			    !xr_is_dest(x, c->startino + k))
				n++;
	}
	for (a = 0; a < x->m->agcount; a++) {
		const struct m_ag *ag = &x->m->ag[a];

		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];

			if (stays_changed(x, mi))
				n++;
		}
	}
	return n;
}

/* The slots, before anything is written: which, and from where. */
static int collect(struct xctx *x, struct islots *s)
{
	const struct plan *p = x->p;
	uint32_t isz = x->g->inodesize, a, k;
	uint8_t *raw = x->buf;
	size_t i;
	int ret;

	/* moved inodes (one that keeps its number stays as it is), and
	 * the slots they leave in chunks that stay: free, the next
	 * generation */
	for (i = 0; i < p->nino; i++) {
		uint64_t old = p->ino[i].old;

		if (p->ino[i].new == old)
			continue;
		if (slot_add(s, p->ino[i].new, old))
			return err_set(x->e, -ENOMEM, "out of memory");
		if (xr_chunk_freed(x, old) || xr_is_dest(x, old))
			continue;
		if (slot_add(s, old, SRC_VACATED))
			return err_set(x->e, -ENOMEM, "out of memory");
	}
	/* new chunks: every present slot no inode moves into is free */
	for (i = 0; i < p->nich; i++) {
		const struct plan_ichunk *c = &p->ich[i];
		struct od_inobt_rec r = { .holemask = c->holemask };

		for (k = 0; c->alloc && k < 64; k++) {
			if (!od_inobt_present(&r, k) ||
			    xr_is_dest(x, c->startino + k))
				continue;
			if (slot_add(s, c->startino + k, SRC_NEW))
				return err_set(x->e, -ENOMEM, "out of memory");
		}
	}
	/* inodes that stay whose shortform directory names a moved inode
	 * or whose shortform parent pointers a moved directory (read here
	 * to leave out the others, again when written: counted then) */
	for (a = 0; a < x->m->agcount; a++) {
		const struct m_ag *ag = &x->m->ag[a];

		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];
			uint64_t counted = x->st->pptr_rewritten;

			if (!stays_changed(x, mi))
				continue;
			ret = fs_pread(x->fs, xr_ino_off(x, mi->ino), raw, isz,
				       x->e, "inode");
			if (!ret)
				ret = fix_forks(x, raw, mi->ino);
			x->st->pptr_rewritten = counted;
			if (ret < 0)
				return ret;
			if (ret && slot_add(s, mi->ino, SRC_STAYS))
				return err_set(x->e, -ENOMEM, "out of memory");
		}
	}
	return 0;
}

/* Blocks per write: runs of consecutive inode blocks go out together. */
#define RUN_BLOCKS_MAX	(1u << 20)	/* bytes */

/* The end (exclusive, in slots) of the run of blocks starting at slot i. */
static size_t run_end(const struct xctx *x, const struct islots *s, size_t i,
		      uint64_t *lin0, uint64_t *nblk)
{
	uint32_t bs = x->g->blocksize;
	uint64_t maxb = RUN_BLOCKS_MAX / bs ? RUN_BLOCKS_MAX / bs : 1;
	uint64_t first = xr_ino_off(x, s->v[i].ino) >> x->g->blocklog, last;
	size_t j;

	last = first;
	for (j = i; j < s->n; j++) {
		uint64_t b = xr_ino_off(x, s->v[j].ino) >> x->g->blocklog;

		if (b != last && (b != last + 1 || b - first + 1 > maxb))
			break;
		last = b;
	}
	*lin0 = first;
	*nblk = last - first + 1;
	return j;
}

/* A moved inode of the window, by its old number. */
struct wsrc {
	uint64_t src;
	size_t k;		/* its slot */
};

static int cmp_wsrc(const void *a, const void *b)
{
	const struct wsrc *x = a, *y = b;

	return x->src < y->src ? -1 : x->src > y->src;
}

struct window {
	uint8_t *raw;		/* the moved inodes' bytes */
	size_t *at;		/* per slot of the window: its bytes' index */
	struct wsrc *ws;
	size_t cap;		/* moved inodes a window holds */
	size_t maxslots;	/* slots a window holds */
	uint8_t *rbuf;		/* SRC_READ_BYTES */
};

/*
 * The slots [i, end) of the next window: whole runs of blocks, up to
 * w->cap moved inodes and w->maxslots slots, or the first run.
 */
static size_t window_end(const struct xctx *x, const struct islots *s,
			 const struct window *w, size_t i)
{
	size_t end = i, nmoved = 0;
	uint64_t lin0, nblk;

	while (end < s->n) {
		size_t j = run_end(x, s, end, &lin0, &nblk), k, more = 0;

		for (k = end; k < j; k++)
			more += s->v[k].src <= SRC_MOVED_MAX;
		if (end > i && (nmoved + more > w->cap ||
				j - i > w->maxslots))
			break;
		nmoved += more;
		end = j;
	}
	return end;
}

/*
 * Read the window's moved inodes as they were before the run, in the
 * order of their old numbers, in runs of nearby blocks; renumber them.
 */
static int read_window(struct xctx *x, const struct islots *s,
		       struct window *w, size_t i, size_t end)
{
	const struct od_geo *g = x->g;
	uint32_t isz = g->inodesize;
	uint64_t maxb = SRC_READ_BYTES >> g->blocklog;
	size_t n = 0, a, b, k;
	int ret = 0;

	for (k = i; k < end; k++)
		if (s->v[k].src <= SRC_MOVED_MAX) {
			w->ws[n].src = s->v[k].src;
			w->ws[n++].k = k;
		}
	sort_any(w->ws, n, sizeof(*w->ws), cmp_wsrc);
	for (a = 0; a < n && !ret; a = b) {
		uint64_t first = xr_ino_off(x, w->ws[a].src) >> g->blocklog;
		uint64_t last = first;

		for (b = a + 1; b < n; b++) {
			uint64_t bl = xr_ino_off(x, w->ws[b].src) >> g->blocklog;

			if (bl > last + 1 || bl - first + 1 > maxb)
				break;
			last = bl;
		}
		ret = x_read_orig(x, first, w->rbuf, last - first + 1,
				  "moved inodes");
		for (k = a; k < b && !ret; k++) {
			uint8_t *raw = w->raw + k * (size_t)isz;
			uint64_t old = w->ws[k].src, new = s->v[w->ws[k].k].ino;

			memcpy(raw, w->rbuf + (xr_ino_off(x, old) -
					       x_off(x, first)), isz);
			w->at[w->ws[k].k - i] = k;
			ret = fix_forks(x, raw, old);
			if (ret > 0)
				ret = 0;
			if (!ret)
				od_dinode_set_ino(raw, isz, g, new);
		}
	}
	return ret;
}

/* Fill slot k (in the window from i) in its block's bytes at to. */
static int fill_slot(struct xctx *x, const struct islots *s,
		     const struct window *w, size_t i, size_t k, uint8_t *to)
{
	const struct od_geo *g = x->g;
	uint32_t isz = g->inodesize;
	uint64_t ino = s->v[k].ino;
	int ret;

	switch (s->v[k].src) {
	case SRC_NEW:
		od_dinode_init_free(to, isz, g, ino, 0);
		return 0;
	case SRC_VACATED:
		/* its moved inode's bytes: nothing wrote this slot yet */
		od_dinode_init_free(to, isz, g, ino, od_dinode_gen(to) + 1);
		return 0;
	case SRC_STAYS:
		ret = fix_forks(x, to, ino);
		if (ret < 0)
			return ret;
		od_dinode_set_ino(to, isz, g, ino);	/* and CRC */
		return 0;
	default:
		memcpy(to, w->raw + w->at[k - i] * (size_t)isz, isz);
		return 0;
	}
}

/*
 * Write the slots (sorted by number: blocks in disk order) window by
 * window, in runs of consecutive blocks: each run read, its slots
 * overlaid, written back.  A window's live blocks are journaled first
 * with one sync.
 */
static int write_slots(struct xctx *x, struct islots *s)
{
	const struct od_geo *g = x->g;
	uint32_t isz = g->inodesize;
	struct window w = { 0 };
	uint64_t lin0, nblk;
	size_t i, j, end, nraw;
	int ret = 0;

	sort_any(s->v, s->n, sizeof(*s->v), cmp_slot);
	for (i = 1; i < s->n; i++)
		if (s->v[i].ino == s->v[i - 1].ino)
			return err_set(x->e, -EINVAL, "inode %llu written "
				       "twice", (unsigned long long)s->v[i].ino);
	w.cap = (x->o->inode_window ? x->o->inode_window : WINDOW_BYTES) / isz;
	if (w.cap < g->inopblock)
		w.cap = g->inopblock;
	/* a run of blocks whole, and the free slots around its inodes */
	w.maxslots = 2 * w.cap + RUN_BLOCKS_MAX / isz;
	/* (a first run whole may hold more) */
	nraw = w.cap + RUN_BLOCKS_MAX / isz;
	w.raw = malloc(nraw * isz);
	w.at = malloc(w.maxslots * sizeof(*w.at));
	w.ws = malloc(nraw * sizeof(*w.ws));
	w.rbuf = malloc(SRC_READ_BYTES);
	if (!w.raw || !w.at || !w.ws || !w.rbuf)
		ret = err_set(x->e, -ENOMEM, "out of memory");
	for (i = 0; i < s->n && !ret; i = end) {
		end = window_end(x, s, &w, i);
		ret = read_window(x, s, &w, i, end);
		for (j = i; j < end && !ret;) {
			size_t next = run_end(x, s, j, &lin0, &nblk);

			ret = undo_prepare(x->u, x_off(x, lin0),
					   nblk << g->blocklog, x->e);
			j = next;
		}
		if (!ret)
			ret = undo_sync(x->u, x->e);
		for (j = i; j < end && !ret;) {
			size_t next = run_end(x, s, j, &lin0, &nblk), k;
			uint64_t base = x_off(x, lin0);

			ret = x_read(x, lin0, x->buf, nblk, "inode blocks");
			for (k = j; !ret && k < next; k++)
				ret = fill_slot(x, s, &w, i, k, x->buf +
						(xr_ino_off(x, s->v[k].ino) - base));
			if (!ret)
				ret = x_write(x, lin0, x->buf, nblk,
					      "inode blocks");
			x_progress(x, "inodes", next, s->n);
			j = next;
		}
	}
	free(w.raw);
	free(w.at);
	free(w.ws);
	free(w.rbuf);
	return ret;
}

int exec_inodes(struct xctx *x)
{
	struct islots s = { 0 };
	int ret;

	if (!x->xr)
		return 0;
	s.cap = count_slots(x);
	s.v = malloc((s.cap ? s.cap : 1) * sizeof(*s.v));
	if (!s.v)
		ret = err_set(x->e, -ENOMEM, "out of memory");
	else
		ret = collect(x, &s);
	if (!ret)
		ret = write_slots(x, &s);
	free(s.v);
	return ret;
}
