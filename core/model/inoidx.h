/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Direct indexes over the model's inodes and chunks, so that a lookup
 * costs the same whatever the layout: a walk that follows directory
 * entries reaches inodes in any order, and a search per lookup (or a
 * "last one looked up" shortcut) is fast only where a directory's files
 * lie together.  Both are hash tables keyed by the 64-inode slot an
 * inode number falls in (agino / 64), built in one pass; memory is a
 * few bytes per slot in use, not per inode and not per AG block.
 *
 *   inoidx    inode number -> its place in its AG's array of the model
 *             (m_ag.ino), the answer model_find gives
 *   chunkidx  one AG's inode chunks, a sorted array of first aginos ->
 *             the chunk holding an agino (the last starting at or before
 *             it, if it covers it), the answer a binary search gives
 */
#ifndef CORE_MODEL_INOIDX_H
#define CORE_MODEL_INOIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"

/* ---- inode number -> model inode ---- */

struct inoidx_slot {
	uint32_t key;		/* agino / 64 + 1; 0: empty */
	uint32_t first;		/* index in m_ag.ino of its first inode */
	uint64_t mask;		/* which of its 64 inodes the model holds */
	uint64_t dirs;		/* which of them are directories */
};

struct inoidx_ag {
	struct inoidx_slot *tab;	/* NULL: no index, search (see below) */
	uint32_t bits;			/* tab has 1 << bits entries */
};

struct inoidx {
	const struct model *m;
	struct inoidx_ag *ag;
};

/*
 * Index m's inodes (m must outlive it); 0 or -ENOMEM.  An AG whose
 * inodes are not strictly increasing, or not all its own (a damaged
 * model), is not indexed: lookups there search as model_find does.
 */
int inoidx_build(const struct model *m, struct inoidx *x, struct err *e);
void inoidx_free(struct inoidx *x);
/* As model_find: the model's inode of number ino, or NULL. */
const struct m_ino *inoidx_find(const struct inoidx *x, uint64_t ino,
				const struct m_ag **agp);
/*
 * The slot a look-up found last (zeroed: none): where a directory's
 * files lie in order, the next one is mostly in it, and no hash needed.
 */
struct inoidx_cur {
	const struct inoidx_slot *s;
	uint64_t ino6;		/* its inode numbers / 64 (AG and slot) */
	uint32_t agno;
};

/*
 * The same without reading the inode: true and its AG, its index in
 * the AG's m_ag.ino and whether it is a directory, or false.  A walk
 * reaches inodes in any order, and each one read is a cache miss.  cur
 * (may be NULL) is tried first and left at the slot found.
 */
bool inoidx_locate_slow(const struct inoidx *x, struct inoidx_cur *cur,
			uint64_t ino, uint32_t *agno, uint32_t *k, bool *dir);
static inline bool inoidx_locate(const struct inoidx *x,
				 struct inoidx_cur *cur, uint64_t ino,
				 uint32_t *agno, uint32_t *k, bool *dir)
{
	/* an AG holds a whole number of slots: ino / 64 names the slot */
	if (cur && cur->s && ino >> 6 == cur->ino6) {
		uint64_t bit = 1ull << (ino & 63);

		if (!(cur->s->mask & bit))
			return false;
		*agno = cur->agno;
		*k = cur->s->first +
		     (uint32_t)__builtin_popcountll(cur->s->mask & (bit - 1));
		*dir = (cur->s->dirs & bit) != 0;
		return true;
	}
	return inoidx_locate_slow(x, cur, ino, agno, k, dir);
}

/*
 * One AG's index alone, for AG agno of m once its model is whole (the
 * checker's AGs are ready one by one): 0 or -ENOMEM, and the look-up of
 * an inode number of that AG, as model_find.
 */
int inoidx_ag_build(const struct model *m, uint32_t agno,
		    struct inoidx_ag *xa);
void inoidx_ag_free(struct inoidx_ag *xa);
const struct m_ino *inoidx_ag_find(const struct model *m, uint32_t agno,
				   const struct inoidx_ag *xa, uint64_t ino);

/* ---- agino -> chunk, for one AG's sorted chunk starts ---- */

struct chunkidx_slot {
	uint32_t key;		/* agino / 64 + 1; 0: empty */
	uint32_t last;		/* the last chunk that covers part of it */
};

struct chunkidx {
	const uint32_t *start;	/* first agino of each chunk, sorted */
	size_t n;
	struct chunkidx_slot *tab;
	uint32_t bits;
};

/*
 * Index the n chunk starts (sorted, not decreasing; the array must
 * outlive the index).  0 or -ENOMEM.
 */
int chunkidx_build(struct chunkidx *x, const uint32_t *start, size_t n);
void chunkidx_free(struct chunkidx *x);
/*
 * The chunk holding agino: true and its index k (start[k] <= agino <
 * start[k] + 64, the last chunk starting at or before agino), or false
 * when the last chunk starting at or before agino does not cover it (or
 * there is none).
 */
bool chunkidx_find(const struct chunkidx *x, uint32_t agino, size_t *k);

#endif
