/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Direct indexes over the model's inodes and chunks (inoidx.h). */
#include "core/model/inoidx.h"
#include "core/base/bigmem.h"
#include "ondisk/geo.h"
#include "ondisk/inode.h"

#include <stdlib.h>

#define SLOT_SHIFT	6	/* 64 inodes a slot: one chunk's worth */

/* Table size for n keys: a power of two, at most half full. */
static uint32_t tab_bits(size_t n)
{
	uint32_t bits = 4;

	while (((size_t)1 << bits) < 2 * n)
		bits++;
	return bits;
}

static inline uint32_t slot_hash(uint32_t key, uint32_t bits)
{
	return (uint32_t)(key * 2654435761u) >> (32 - bits);
}

/* ---- inode number -> model inode ---- */

/* Index one AG; leaves it unindexed (tab NULL) where it cannot. */
int inoidx_ag_build(const struct model *m, uint32_t agno,
		    struct inoidx_ag *xa)
{
	const struct od_geo *g = &m->fs->geo;
	const struct m_ag *ag = &m->ag[agno];
	struct inoidx_slot *cur = NULL;
	uint64_t prev = 0;
	uint32_t mask;
	size_t k, nslots = 0;

	xa->tab = NULL;
	if (!ag->nino || ag->nino > UINT32_MAX ||
	    od_ino_agno(g, ag->ino[0].ino) != agno ||
	    od_ino_agno(g, ag->ino[ag->nino - 1].ino) != agno)
		return 0;	/* search there, as model_find */
	/* an AG holds whole slots: ino / 64 names one */
	for (k = 0; k < ag->nino; k++) {
		uint64_t ino = ag->ino[k].ino;

		if (k && ino <= ag->ino[k - 1].ino)
			return 0;	/* (then all are this AG's) */
		nslots += !k || ino >> SLOT_SHIFT != prev;
		prev = ino >> SLOT_SHIFT;
	}
	xa->bits = tab_bits(nslots);
	xa->tab = calloc((size_t)1 << xa->bits, sizeof(*xa->tab));
	if (!xa->tab)
		return -ENOMEM;
	mask = ((uint32_t)1 << xa->bits) - 1;
	for (k = 0; k < ag->nino; k++) {
		uint64_t ino = ag->ino[k].ino, bit = 1ull << (ino & 63);

		/* increasing: a slot's inodes come together, each slot's
		 * entry is new when its first inode comes */
		if (!cur || ino >> SLOT_SHIFT != prev) {
			uint32_t key = (od_ino_agino(g, ino) >> SLOT_SHIFT) + 1;
			uint32_t h = slot_hash(key, xa->bits);

			while (xa->tab[h].key)
				h = (h + 1) & mask;
			cur = &xa->tab[h];
			cur->key = key;
			cur->first = (uint32_t)k;
			prev = ino >> SLOT_SHIFT;
		}
		cur->mask |= bit;
		if (od_mode_isdir(ag->ino[k].mode))
			cur->dirs |= bit;
	}
	return 0;
}

int inoidx_build(const struct model *m, struct inoidx *x, struct err *e)
{
	uint32_t a;

	x->m = m;
	x->ag = calloc(m->agcount ? m->agcount : 1, sizeof(*x->ag));
	if (!x->ag)
		return err_set(e, -ENOMEM, "out of memory");
	for (a = 0; a < m->agcount; a++) {
		if (inoidx_ag_build(m, a, &x->ag[a])) {
			inoidx_free(x);
			return err_set(e, -ENOMEM, "out of memory");
		}
	}
	return 0;
}

void inoidx_free(struct inoidx *x)
{
	uint32_t a;

	for (a = 0; x->ag && a < x->m->agcount; a++)
		inoidx_ag_free(&x->ag[a]);
	free(x->ag);
	x->ag = NULL;
}

/* The slot of ino in an indexed AG and its bit there, or NULL. */
static const struct inoidx_slot *slot_of(const struct inoidx_ag *xa,
					 uint32_t agino, uint64_t *bit)
{
	uint32_t key = (agino >> SLOT_SHIFT) + 1;
	uint32_t h = slot_hash(key, xa->bits);
	uint32_t mask = ((uint32_t)1 << xa->bits) - 1;

	while (xa->tab[h].key != key) {
		if (!xa->tab[h].key)
			return NULL;
		h = (h + 1) & mask;
	}
	*bit = 1ull << (agino & 63);
	return xa->tab[h].mask & *bit ? &xa->tab[h] : NULL;
}

void inoidx_ag_free(struct inoidx_ag *xa)
{
	free(xa->tab);
	xa->tab = NULL;
}

/* Inode ino of AG agno: true and its index there, and if it is a dir. */
static bool ag_locate(const struct model *m, uint32_t agno,
		      const struct inoidx_ag *xa, struct inoidx_cur *cur,
		      uint64_t ino, uint32_t *k, bool *dir)
{
	const struct inoidx_slot *s;
	const struct m_ino *mi;
	uint32_t agino;
	uint64_t bit;

	if (!xa->tab) {
		mi = model_find(m, ino, NULL);
		if (!mi)
			return false;
		*k = (uint32_t)(mi - m->ag[agno].ino);
		*dir = od_mode_isdir(mi->mode);
		return true;
	}
	agino = od_ino_agino(&m->fs->geo, ino);
	s = slot_of(xa, agino, &bit);
	if (!s)
		return false;
	if (cur) {
		cur->s = s;
		cur->agno = agno;
		cur->ino6 = ino >> SLOT_SHIFT;
	}
	*k = s->first + (uint32_t)__builtin_popcountll(s->mask & (bit - 1));
	*dir = (s->dirs & bit) != 0;
	return true;
}

bool inoidx_locate_slow(const struct inoidx *x, struct inoidx_cur *cur,
			uint64_t ino, uint32_t *agno, uint32_t *k, bool *dir)
{
	*agno = od_ino_agno(&x->m->fs->geo, ino);
	if (*agno >= x->m->agcount)
		return false;
	return ag_locate(x->m, *agno, &x->ag[*agno], cur, ino, k, dir);
}

const struct m_ino *inoidx_ag_find(const struct model *m, uint32_t agno,
				   const struct inoidx_ag *xa, uint64_t ino)
{
	uint32_t k;
	bool dir;

	if (od_ino_agno(&m->fs->geo, ino) != agno ||
	    !ag_locate(m, agno, xa, NULL, ino, &k, &dir))
		return NULL;
	return &m->ag[agno].ino[k];
}

const struct m_ino *inoidx_find(const struct inoidx *x, uint64_t ino,
				const struct m_ag **agp)
{
	uint32_t agno, k;
	bool dir;

	if (!inoidx_locate(x, NULL, ino, &agno, &k, &dir))
		return NULL;
	if (agp)
		*agp = &x->m->ag[agno];
	return &x->m->ag[agno].ino[k];
}

/* ---- agino -> chunk ---- */

int chunkidx_build(struct chunkidx *x, const uint32_t *start, size_t n)
{
	uint32_t mask;
	size_t k;

	x->start = start;
	x->n = n;
	x->bits = tab_bits(2 * n);	/* a chunk covers at most two slots */
	x->tab = calloc((size_t)1 << x->bits, sizeof(*x->tab));
	if (!x->tab)
		return -ENOMEM;
	mask = ((uint32_t)1 << x->bits) - 1;
	for (k = 0; k < n && k <= UINT32_MAX; k++) {
		uint64_t lo = start[k] >> SLOT_SHIFT;
		uint64_t hi = ((uint64_t)start[k] + 63) >> SLOT_SHIFT;
		uint64_t q;

		for (q = lo; q <= hi; q++) {
			uint32_t key = (uint32_t)(q + 1);
			uint32_t h = slot_hash(key, x->bits);

			while (x->tab[h].key && x->tab[h].key != key)
				h = (h + 1) & mask;
			x->tab[h].key = key;
			x->tab[h].last = (uint32_t)k;	/* increasing */
		}
	}
	return 0;
}

void chunkidx_free(struct chunkidx *x)
{
	free(x->tab);
	x->tab = NULL;
}

bool chunkidx_find(const struct chunkidx *x, uint32_t agino, size_t *k)
{
	uint32_t key = (agino >> SLOT_SHIFT) + 1;
	uint32_t h = slot_hash(key, x->bits), mask = ((uint32_t)1 << x->bits) - 1;
	size_t c;

	while (x->tab[h].key != key) {
		if (!x->tab[h].key)
			return false;	/* no chunk covers any of its slot */
		h = (h + 1) & mask;
	}
	/*
	 * The last chunk covering part of the slot: the chunks after it
	 * start past the slot, so the one wanted is it or one before it
	 * that also covers part of the slot (they are sorted)
	 */
	c = x->tab[h].last;
	while (x->start[c] > agino) {
		if (!c)
			return false;
		c--;
	}
	if ((uint64_t)agino >= (uint64_t)x->start[c] + 64)
		return false;
	*k = c;
	return true;
}
