/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building the block ownership index (queries are in blkmap_query.c).
 *
 * Extents are stored in the model with the inode that owns them, and an
 * inode's extents may lie in any AG, so the build goes in three parallel
 * passes: (1) per AG, the AG's own spans (free space, metadata, inode
 * chunks) and a count of its inodes' extents per target AG; (2) per AG,
 * its inodes' extents written into each target AG's array at offsets
 * fixed by the counts (disjoint, so no locking); (3) per AG, a radix sort
 * by agbno and the running maximum of span ends.
 */
#include "core/model/blkmap.h"
#include "core/base/array.h"
#include "core/base/bigmem.h"
#include "core/base/par.h"
#include "core/base/sort.h"
#include "ondisk/geo.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct spanvec {
	struct bm_span *v;
	size_t n, cap;
};

struct build {
	const struct model *m;
	const struct od_geo *g;
	struct blkmap *bm;
	uint32_t n;		/* AGs */
	size_t *cnt;		/* [s * n + t]: AG s's inodes' extents in t */
	size_t *off;		/* next slot of source s in target t */
	struct spanvec *own;	/* per AG: free, metadata, inode spans */
	int err;		/* set atomically on failure */
};

static void fail(struct build *b, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&b->err, &zero, err, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static int push(struct spanvec *sv, uint32_t agbno, uint32_t len,
		uint8_t kind, uint8_t meta, uint32_t idx, uint64_t owner)
{
	struct bm_span *s;

	if (array_grow((void **)&sv->v, &sv->cap, sv->n, sizeof(*sv->v), 256))
		return -ENOMEM;
	s = &sv->v[sv->n++];
	memset(s, 0, sizeof(*s));
	s->agbno = agbno;
	s->len = len;
	s->kind = kind;
	s->meta = meta;
	s->idx = idx;
	s->owner = owner;
	return 0;
}

/* Metadata blocks (sorted by agbno in the model), merged into runs. */
static int own_meta(struct spanvec *sv, const struct m_ag *ag)
{
	size_t i = 0, j;

	while (i < ag->nmeta) {
		const struct m_meta_blk *mb = &ag->meta[i];
		uint8_t kind = mb->kind == MM_BMBT ? BK_BMBT : BK_META;

		for (j = i + 1; j < ag->nmeta; j++) {
			const struct m_meta_blk *x = &ag->meta[j];

			if (x->kind != mb->kind || x->owner != mb->owner ||
			    x->agbno != mb->agbno + (j - i))
				break;
		}
		if (push(sv, mb->agbno, (uint32_t)(j - i), kind,
			 (uint8_t)mb->kind, 0,
			 kind == BK_BMBT ? mb->owner : ag->agno))
			return -ENOMEM;
		i = j;
	}
	if (ag->log_blocks &&
	    push(sv, ag->log_agbno, ag->log_blocks, BK_META, MM_LOG, 0,
		 ag->agno))
		return -ENOMEM;
	return 0;
}

/* Inode chunks: runs of physically present blocks. */
static int own_chunks(struct spanvec *sv, const struct od_geo *g,
		      const struct m_ag *ag)
{
	uint32_t nblk = g->ialloc_blks ? g->ialloc_blks : 1;
	size_t c;

	for (c = 0; c < ag->nchunk; c++) {
		const struct od_inobt_rec *r = &ag->chunk[c];
		uint32_t base = od_agino_agbno(g, r->startino), b = 0, run;
		uint64_t owner = od_agino_ino(g, ag->agno, r->startino);

		while (b < nblk) {
			if (!od_inobt_block_present(g, r, b)) {
				b++;
				continue;
			}
			for (run = b + 1; run < nblk &&
			     od_inobt_block_present(g, r, run); run++)
				;
			if (push(sv, base + b, run - b, BK_INODES, 0,
				 (uint32_t)c, owner))
				return -ENOMEM;
			b = run;
		}
	}
	return 0;
}

/* Does this extent lie on the data device, inside a valid AG? */
static bool ext_counts(const struct build *b, const struct m_ino *mi,
		       uint32_t k, const struct od_irec *r, uint32_t *agno)
{
	if (k < mi->nde && (mi->flags & MI_REALTIME))
		return false;
	*agno = od_fsb_agno(b->g, r->startblock);
	if (*agno >= b->n)
		return false;
	return (uint64_t)od_fsb_agbno(b->g, r->startblock) + r->blockcount <=
	       b->bm->ag[*agno].blocks;
}

/* Pass 1 for AG a. */
static void pass_own(void *priv, unsigned a)
{
	struct build *b = priv;
	const struct m_ag *ag = &b->m->ag[a];
	struct spanvec *sv = &b->own[a];
	size_t i, *cnt = &b->cnt[(size_t)a * b->n];

	for (i = 0; i < ag->nfree; i++)
		if (push(sv, ag->freesp[i].agbno, ag->freesp[i].len, BK_FREE,
			 0, 0, ag->agno))
			goto nomem;
	if (own_meta(sv, ag) || own_chunks(sv, b->g, ag))
		goto nomem;
	for (i = 0; i < ag->nino; i++) {
		const struct m_ino *mi = &ag->ino[i];
		uint32_t k, t;
		struct od_irec r;

		for (k = 0; k < mi->nde + mi->nae; k++) {
			m_ext_get(&ag->ext[mi->ext + k], &r);
			if (ext_counts(b, mi, k, &r, &t))
				cnt[t]++;
		}
	}
	return;
nomem:
	fail(b, -ENOMEM);
}

/* Is the fork (records x[0..n)) in more than one physical run? */
static bool fork_split(const struct m_ag *ag, uint32_t first, uint32_t n)
{
	struct od_irec r, prev;
	uint32_t k;

	for (k = 0; k < n; k++) {
		m_ext_get(&ag->ext[first + k], &r);
		if (k && r.startblock != prev.startblock + prev.blockcount)
			return true;
		prev = r;
	}
	return false;
}

/* Pass 2 for source AG a. */
static void pass_fill(void *priv, unsigned a)
{
	struct build *b = priv;
	const struct m_ag *ag = &b->m->ag[a];
	size_t i, *off = &b->off[(size_t)a * b->n];

	for (i = 0; i < ag->nino; i++) {
		const struct m_ino *mi = &ag->ino[i];
		bool dfrag = mi->nde > 1 && fork_split(ag, mi->ext, mi->nde);
		bool afrag = mi->nae > 1 &&
			     fork_split(ag, mi->ext + mi->nde, mi->nae);
		uint32_t k, t;
		struct od_irec r;

		for (k = 0; k < mi->nde + mi->nae; k++) {
			struct bm_span *s;
			bool attr = k >= mi->nde;

			m_ext_get(&ag->ext[mi->ext + k], &r);
			if (!ext_counts(b, mi, k, &r, &t))
				continue;
			s = &b->bm->ag[t].span[off[t]++];
			s->agbno = od_fsb_agbno(b->g, r.startblock);
			s->len = r.blockcount;
			s->kind = attr ? BK_ATTR : BK_DATA;
			s->meta = 0;
			s->flags = (uint8_t)(((attr ? afrag : dfrag) ?
					      BMS_FRAG : 0) |
					     (r.unwritten ? BMS_UNWRITTEN : 0));
			s->pad = 0;
			s->idx = attr ? k - mi->nde : k;
			s->owner = mi->ino;
		}
	}
}

/*
 * Put span[] in the order of the sorted keys (agbno << 32 | old index)
 * in place, following each cycle of the permutation; bit 63 of a key
 * marks its slot done.
 */
static void permute(struct bm_span *span, uint64_t *key, size_t n)
{
	const uint64_t done = 1ull << 63;
	size_t j, k, s;

	for (j = 0; j < n; j++) {
		struct bm_span tmp;

		if (key[j] & done)
			continue;
		tmp = span[j];
		for (k = j;; k = s) {
			s = (size_t)(key[k] & 0xffffffffu);
			key[k] |= done;
			if (s == j) {
				span[k] = tmp;
				break;
			}
			span[k] = span[s];
		}
	}
}

/* Pass 3 for AG a: own spans in, sort by agbno, running maximum of ends. */
static void pass_sort(void *priv, unsigned a)
{
	struct build *b = priv;
	struct bm_ag *ba = &b->bm->ag[a];
	struct spanvec *sv = &b->own[a];
	uint64_t *key;
	uint32_t maxend = 0;
	size_t i;

	memcpy(ba->span + ba->nspan - sv->n, sv->v, sv->n * sizeof(*sv->v));
	free(sv->v);
	sv->v = NULL;
	key = malloc((ba->nspan ? ba->nspan : 1) * sizeof(*key));
	ba->maxend = bigmem_calloc(ba->nspan ? ba->nspan : 1,
				   sizeof(*ba->maxend));
	if (!key || !ba->maxend)
		goto nomem;
	for (i = 0; i < ba->nspan; i++)
		key[i] = (uint64_t)ba->span[i].agbno << 32 | i;
	if (sort_u64(key, ba->nspan))
		goto nomem;
	permute(ba->span, key, ba->nspan);
	for (i = 0; i < ba->nspan; i++) {
		if (bm_span_end(&ba->span[i]) > maxend)
			maxend = bm_span_end(&ba->span[i]);
		ba->maxend[i] = maxend;
	}
	free(key);
	return;
nomem:
	free(key);
	fail(b, -ENOMEM);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Allocate each target AG's array and fix where each source writes. */
static int place(struct build *b)
{
	uint32_t s, t;

	for (t = 0; t < b->n; t++) {
		struct bm_ag *ba = &b->bm->ag[t];
		size_t total = 0;

		for (s = 0; s < b->n; s++) {
			b->off[(size_t)s * b->n + t] = total;
			total += b->cnt[(size_t)s * b->n + t];
		}
		ba->nspan = total + b->own[t].n;
		if (ba->nspan > UINT32_MAX)
			return -EOVERFLOW;
		ba->span = bigmem_calloc(ba->nspan ? ba->nspan : 1,
					 sizeof(*ba->span));
		if (!ba->span)
			return -ENOMEM;
		b->bm->nspans += ba->nspan;
	}
	return 0;
}

int blkmap_build(const struct model *m, struct blkmap **out, struct err *e)
{
	struct build b;
	struct blkmap *bm;
	uint64_t t0 = now_ns();
	uint32_t a;
	int ret;

	*out = NULL;
	memset(&b, 0, sizeof(b));
	bm = calloc(1, sizeof(*bm));
	if (!bm)
		return err_set(e, -ENOMEM, "out of memory");
	bm->m = m;
	bm->agcount = m->agcount;
	bm->agblocks = m->fs->geo.agblocks;
	bm->dblocks = m->fs->geo.dblocks;
	bm->ag = calloc(m->agcount ? m->agcount : 1, sizeof(*bm->ag));
	b.m = m;
	b.g = &m->fs->geo;
	b.bm = bm;
	b.n = m->agcount;
	b.cnt = calloc((size_t)b.n * b.n + 1, sizeof(*b.cnt));
	b.off = calloc((size_t)b.n * b.n + 1, sizeof(*b.off));
	b.own = calloc(b.n + 1, sizeof(*b.own));
	if (!bm->ag || !b.cnt || !b.off || !b.own) {
		ret = -ENOMEM;
		goto out;
	}
	for (a = 0; a < b.n; a++)
		bm->ag[a].blocks = od_ag_blocks(b.g, a);

	par_for(b.n, m->threads, pass_own, &b);
	ret = b.err;
	if (!ret)
		ret = place(&b);
	if (!ret) {
		par_for(b.n, m->threads, pass_fill, &b);
		par_for(b.n, m->threads, pass_sort, &b);
		ret = b.err;
	}
out:
	for (a = 0; b.own && a < b.n; a++)
		free(b.own[a].v);
	free(b.own);
	free(b.cnt);
	free(b.off);
	if (ret) {
		blkmap_free(bm);
		return err_set(e, ret, "block map: %s", ret == -EOVERFLOW ?
			       "too many spans in one AG" : "out of memory");
	}
	bm->build_ns = now_ns() - t0;
	*out = bm;
	return 0;
}

void blkmap_free(struct blkmap *bm)
{
	uint32_t a;

	if (!bm)
		return;
	for (a = 0; bm->ag && a < bm->agcount; a++) {
		size_t cap = bm->ag[a].nspan ? bm->ag[a].nspan : 1;

		bigmem_free(bm->ag[a].span, cap, sizeof(*bm->ag[a].span));
		bigmem_free(bm->ag[a].maxend, cap, sizeof(*bm->ag[a].maxend));
	}
	free(bm->ag);
	free(bm);
}
