/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inodes phase's share of the scan: as each run of inodes is read
 * and decoded, note which in-use inodes the phase has nothing to read
 * for (the common regular file: its core passes check_dinode_quick, its
 * link count is the model's, di_nblocks is what its extents map) and
 * keep the bytes of the others, up to a budget.  The phase then reads
 * again only the chunks holding any other inode, so that the scan can
 * read from the device directly rather than fill the page cache for a
 * second pass.
 */
#include "core/check/check_int.h"
#include "core/base/bigmem.h"
#include "core/model/inorun.h"
#include "ondisk/inode_lite.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of inodes kept, at most: beyond it chunks are read again. */
#define KEEP_BUDGET	(64ull << 20)

/* check_nblocks (check_inodes.c) would say nothing: same sum, same end. */
static bool nblocks_quiet(const struct od_geo *g, const struct m_ext *x,
			  uint32_t n, uint64_t nblocks)
{
	uint64_t maxoff = (uint64_t)INT64_MAX >> g->blocklog;
	uint64_t blocks = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct od_irec r;

		m_ext_get(&x[i], &r);
		if (r.startoff + r.blockcount - 1 > maxoff)
			return false;
		blocks += r.blockcount;
	}
	return blocks == nblocks;
}

/* The inodes phase would find nothing in this in-use inode. */
static bool quiet(const struct check_ctx *c, const struct m_ag *ag,
		  const struct m_ino *mi, const uint8_t *raw)
{
	if ((mi->flags & MI_DAMAGED) || !check_simple_inode(mi) ||
	    !check_dinode_quick(c, raw, mi->ino))
		return false;
	/* v3 (the quick look's first rule) */
	return od_dinode_nlink(raw) == mi->nlink &&
	       nblocks_quiet(c->g, ag->ext + mi->ext, mi->nde + mi->nae,
			     od_dinode_nblocks(raw));
}

/* The AG's chunk records, made by whichever part of it gets here first. */
static struct check_qchunk *ag_chunks(struct check_ctx *c,
				      const struct m_ag *ag)
{
	struct check_qag *qa = &c->q.ag[ag->agno];
	struct check_qchunk *v = __atomic_load_n(&qa->ch, __ATOMIC_ACQUIRE);
	struct check_qchunk *none = NULL;

	if (v || !ag->nchunk)
		return v;
	v = bigmem_calloc(ag->nchunk, sizeof(*v));
	if (!v)
		return NULL;
	if (!__atomic_compare_exchange_n(&qa->ch, &none, v, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		bigmem_free(v, ag->nchunk, sizeof(*v));
		return none;
	}
	qa->nchunk = ag->nchunk;
	return v;
}

/* Keep one inode's bytes (slots come in ascending order), if there is
 * room: else its chunk is read again. */
static void keep(struct check_ctx *c, struct check_qchunk *q, unsigned i,
		 const uint8_t *raw)
{
	size_t isz = c->g->inodesize;
	unsigned n = (unsigned)__builtin_popcountll(q->kept);
	uint8_t *p;

	if (__atomic_add_fetch(&c->q.used, isz, __ATOMIC_RELAXED) >
	    c->q.budget) {
		__atomic_sub_fetch(&c->q.used, isz, __ATOMIC_RELAXED);
		__atomic_store_n(&c->q.full, true, __ATOMIC_RELAXED);
		return;
	}
	/* room doubles at each power of two */
	if ((n & (n - 1)) == 0) {
		p = realloc(q->raw, (n ? 2 * (size_t)n : 1) * isz);
		if (!p) {
			__atomic_sub_fetch(&c->q.used, isz, __ATOMIC_RELAXED);
			return;
		}
		q->raw = p;
	}
	memcpy(q->raw + (size_t)n * isz, raw, isz);
	q->kept |= 1ull << i;
}

/* scan_opts.run: ag's inodes from k on were decoded from this run. */
static void quick_run(void *hpriv, void **part, const struct m_ag *ag,
		      size_t k, size_t ci, unsigned i, const uint8_t *buf,
		      uint64_t len)
{
	struct check_ctx *c = hpriv;
	const struct od_geo *g = c->g;
	struct check_qchunk *v;
	uint64_t off;

	if (!buf || !(v = ag_chunks(c, ag)))
		return;		/* read again, and judged then */
	for (off = 0; off < len; off += g->inodesize, i++) {
		const struct od_inobt_rec *r;
		uint64_t ino;

		if (!inorun_present(ag, &ci, &i))
			break;
		r = &ag->chunk[ci];
		if (od_inobt_inuse(r, i)) {
			ino = od_agino_ino(g, ag->agno, r->startino + i);
			while (k < ag->nino && ag->ino[k].ino < ino)
				k++;
			if (k < ag->nino && ag->ino[k].ino == ino &&
			    quiet(c, ag, &ag->ino[k], buf + off)) {
				v[ci].quick |= 1ull << i;
				continue;
			}
			if (k < ag->nino && ag->ino[k].ino == ino &&
			    od_mode_isdir(ag->ino[k].mode))
				check_harvest_want(c, part, ag, &ag->ino[k]);
		}
		keep(c, &v[ci], i, buf + off);
	}
}

/* scan_opts.bytes: the directory blocks wanted in a request read whole */
static void quick_bytes(void *hpriv, void **part, const struct m_ag *ag,
			uint64_t off, const uint8_t *buf, size_t len)
{
	(void)ag;
	check_harvest_bytes(hpriv, part, off, buf, len);
}

static void quick_part_done(void *hpriv, void **part, const struct m_ag *ag)
{
	check_harvest_part_done(hpriv, part, ag);
}

/* scan_opts.fill_cache: once inodes cannot be kept, chunks are read
 * again: leave them in the page cache. */
static bool quick_fill(void *hpriv, const struct m_ag *ag, size_t c0,
		       size_t c1)
{
	struct check_ctx *c = hpriv;

	(void)ag;
	(void)c0;
	(void)c1;
	return __atomic_load_n(&c->q.full, __ATOMIC_RELAXED);
}

int check_quick_init(struct check_ctx *c, struct scan_opts *so,
		     uint64_t budget)
{
	c->q.ag = calloc(c->g->agcount, sizeof(*c->q.ag));
	if (!c->q.ag)
		return -ENOMEM;
	c->q.budget = budget ? budget : KEEP_BUDGET;
	so->run = quick_run;
	so->fill_cache = quick_fill;
	so->bytes = quick_bytes;
	so->part_done = quick_part_done;
	so->hpriv = c;
	return 0;
}

const struct check_qchunk *check_quick_chunk(const struct check_ctx *c,
					     uint32_t agno, size_t ci)
{
	const struct check_qag *qa;

	if (!c->q.ag || agno >= c->g->agcount)
		return NULL;
	qa = &c->q.ag[agno];
	return qa->ch && ci < qa->nchunk ? &qa->ch[ci] : NULL;
}

void check_quick_free(struct check_ctx *c)
{
	uint32_t a;
	size_t ci;

	if (!c->q.ag)
		return;
	for (a = 0; a < c->g->agcount; a++) {
		struct check_qag *qa = &c->q.ag[a];

		if (!qa->ch)
			continue;
		for (ci = 0; ci < qa->nchunk; ci++)
			free(qa->ch[ci].raw);
		bigmem_free(qa->ch, qa->nchunk, sizeof(*qa->ch));
	}
	free(c->q.ag);
	c->q.ag = NULL;
}
