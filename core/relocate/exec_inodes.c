// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inodes phase of a renumbering run, before the copy phase (which may
 * put data where a dropped chunk was): every moved inode is read first
 * (so chains of moves through each other's slots are fine), then written
 * whole at its new slot with di_ino and its CRC (generation and
 * timestamps kept; a shortform directory's entries renumbered, shrinking
 * to 4-byte numbers where none needs 8).  The slots of a new chunk that
 * receive no inode become free inodes as the kernel initialises them;
 * a vacated slot of a chunk that stays becomes a free inode with the
 * next generation.  Shortform directories that stay but name a moved
 * inode are rewritten in place.  Writes go block by block through the
 * journaling layer.
 */
#include "core/relocate/exec_priv.h"
#include "core/base/sort.h"
#include "ondisk/inode.h"
#include "ondisk/renum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A slot to write: its bytes kept, or a free inode made when written. */
struct islot {
	uint64_t ino;
	size_t at;		/* its bytes in the slot buffer, or NOBYTES */
	uint32_t gen;		/* a free inode's generation */
};

#define NOBYTES	((size_t)-1)

struct islots {
	struct islot *v;
	size_t n, cap;
	uint8_t *raw;		/* bytes of up to rawcap slots */
	size_t nraw, rawcap;
};

/* A slot whose bytes are kept: NULL when count_slots counted too few. */
static uint8_t *slot_add(struct xctx *x, struct islots *s, uint64_t ino)
{
	size_t isz = x->g->inodesize;

	if (s->n == s->cap || s->nraw == s->rawcap)
		return NULL;
	s->v[s->n].ino = ino;
	s->v[s->n++].at = s->nraw * isz;
	return s->raw + isz * s->nraw++;
}

/* A slot that becomes a free inode of generation gen. */
static int slot_add_free(struct islots *s, uint64_t ino, uint32_t gen)
{
	if (s->n == s->cap)
		return -ENOMEM;
	s->v[s->n].ino = ino;
	s->v[s->n].at = NOBYTES;
	s->v[s->n++].gen = gen;
	return 0;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct islot *x = a, *y = b;

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
 * How many slots collect fills, at most (a shortform directory may turn
 * out unchanged), and how many of them keep their bytes (*raw: moved
 * inodes and shortform directories; free inodes are made as they are
 * written), so that the bytes, a whole inode each, are allocated once:
 * kept for every slot and doubled as they came, they took up to twice
 * the size of all the inodes, and more (a gigabyte for a million).
 */
static size_t count_slots(struct xctx *x, size_t *raw)
{
	const struct plan *p = x->p;
	size_t i, n = 0;
	uint32_t a, k;

	for (i = 0; i < p->nino; i++) {
		uint64_t old = p->ino[i].old;

		if (p->ino[i].new == old)
			continue;
		n++;
		(*raw)++;
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

			if (od_mode_isdir(mi->mode) &&
			    m_dfmt(mi) == OD_FMT_LOCAL &&
			    xr_new(x, mi->ino) == mi->ino) {
				n++;
				(*raw)++;
			}
		}
	}
	return n;
}

static int collect(struct xctx *x, struct islots *s)
{
	const struct plan *p = x->p;
	const struct od_geo *g = x->g;
	uint32_t isz = g->inodesize, a, k;
	size_t i;
	int ret;

	/* moved inodes: read where they are, before anything is written
	 * (one that keeps its number stays as it is) */
	for (i = 0; i < p->nino; i++) {
		uint8_t *raw;

		if (p->ino[i].new == p->ino[i].old)
			continue;
		raw = slot_add(x, s, p->ino[i].new);
		if (!raw)
			return err_set(x->e, -ENOMEM, "out of memory");
		ret = fs_pread(x->fs, xr_ino_off(x, p->ino[i].old), raw, isz,
			       x->e, "moved inode");
		if (!ret)
			ret = fix_sf(x, raw, p->ino[i].old);
		if (ret >= 0)
			ret = exec_pptr_sf(x, raw, p->ino[i].old);
		if (ret < 0)
			return ret;
		od_dinode_set_ino(raw, isz, g, p->ino[i].new);
	}
	/* vacated slots of chunks that stay: free, the next generation
	 * (the moved copies are the first slots, in plan order) */
	for (i = 0, k = 0; i < p->nino; i++) {
		uint64_t old = p->ino[i].old;
		uint32_t gen;

		if (p->ino[i].new == old)
			continue;
		gen = od_dinode_gen(s->raw + (size_t)k++ * isz);
		if (xr_chunk_freed(x, old) || xr_is_dest(x, old))
			continue;
		if (slot_add_free(s, old, gen + 1))
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
			if (slot_add_free(s, c->startino + k, 0))
				return err_set(x->e, -ENOMEM, "out of memory");
		}
	}
	/* shortform directories that stay and name a moved inode, and
	 * shortform parent pointers to a moved directory */
	for (a = 0; a < x->m->agcount; a++) {
		const struct m_ag *ag = &x->m->ag[a];

		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];
			uint8_t *raw;
			int r2;

			if (xr_new(x, mi->ino) != mi->ino ||
			    ((!od_mode_isdir(mi->mode) ||
			      m_dfmt(mi) != OD_FMT_LOCAL) &&
			     ((mi->flags & MI_NOATTR) ||
			      m_afmt(mi) != OD_FMT_LOCAL ||
			      !exec_pptr_target(x, mi->ino))))
				continue;
			raw = slot_add(x, s, mi->ino);
			if (!raw)
				return err_set(x->e, -ENOMEM, "out of memory");
			ret = fs_pread(x->fs, xr_ino_off(x, mi->ino), raw, isz,
				       x->e, "directory inode");
			if (!ret)
				ret = fix_sf(x, raw, mi->ino);
			r2 = ret >= 0 ? exec_pptr_sf(x, raw, mi->ino) : 0;
			if (r2 < 0)
				return r2;
			ret |= r2;
			if (ret < 0)
				return ret;
			if (!ret) {
				s->n--;		/* unchanged: drop it */
				s->nraw--;
				continue;
			}
			od_dinode_set_ino(raw, isz, g, mi->ino); /* and CRC */
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

/*
 * Write the slots (sorted by number: blocks in disk order) in runs of
 * consecutive blocks: each run read, its slots overlaid, written back.
 * Every live block is journaled first with one sync.
 */
static int write_slots(struct xctx *x, struct islots *s)
{
	const struct od_geo *g = x->g;
	uint32_t isz = g->inodesize;
	uint64_t lin0, nblk;
	size_t i, j;
	int ret = 0;

	sort_any(s->v, s->n, sizeof(*s->v), cmp_slot);
	for (i = 1; i < s->n; i++)
		if (s->v[i].ino == s->v[i - 1].ino)
			return err_set(x->e, -EINVAL, "inode %llu written "
				       "twice", (unsigned long long)s->v[i].ino);
	for (i = 0; i < s->n && !ret; i = j) {
		j = run_end(x, s, i, &lin0, &nblk);
		ret = undo_prepare(x->u, x_off(x, lin0), nblk << g->blocklog,
				   x->e);
	}
	if (!ret)
		ret = undo_sync(x->u, x->e);
	for (i = 0; i < s->n && !ret; i = j) {
		uint64_t base;
		size_t k;

		j = run_end(x, s, i, &lin0, &nblk);
		base = x_off(x, lin0);
		ret = x_read(x, lin0, x->buf, nblk, "inode blocks");
		for (k = i; !ret && k < j; k++) {
			uint8_t *to = x->buf + (xr_ino_off(x, s->v[k].ino) -
						base);

			if (s->v[k].at == NOBYTES)
				od_dinode_init_free(to, isz, g, s->v[k].ino,
						    s->v[k].gen);
			else
				memcpy(to, s->raw + s->v[k].at, isz);
		}
		if (!ret)
			ret = x_write(x, lin0, x->buf, nblk, "inode blocks");
		x_progress(x, "inodes", j, s->n);
	}
	return ret;
}

int exec_inodes(struct xctx *x)
{
	struct islots s = { 0 };
	int ret;

	if (!x->xr)
		return 0;
	s.cap = count_slots(x, &s.rawcap);
	s.v = malloc((s.cap ? s.cap : 1) * sizeof(*s.v));
	s.raw = malloc((s.rawcap ? s.rawcap : 1) * (size_t)x->g->inodesize);
	if (!s.v || !s.raw)
		ret = err_set(x->e, -ENOMEM, "out of memory");
	else
		ret = collect(x, &s);
	if (!ret)
		ret = write_slots(x, &s);
	free(s.v);
	free(s.raw);
	return ret;
}
