/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the block ownership index: a synthetic model (three AGs,
 * the last one short; free extents, metadata runs, a full and a sparse
 * inode chunk, inodes whose extents lie in other AGs, shared blocks)
 * checked block by block against a brute-force scan of the same model,
 * and map cells checked against per-cell summaries.
 */
#include "t.h"
#include "core/model/blkmap.h"
#include "core/fs/fs.h"

#include <string.h>

#define AGS	3
#define AGBLK	1000u
#define LASTAG	900u
#define NINO	40

struct world {
	struct fs fs;
	struct model m;
	struct m_ag ag[AGS];
	struct m_ino ino[AGS][NINO];
	struct m_ext ext[AGS][NINO * 8];
	struct od_inobt_rec chunk[AGS][1];
	struct m_free freesp[AGS][8];
	struct m_meta_blk meta[AGS][16];
};

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

static void geo_init(struct od_geo *g)
{
	memset(g, 0, sizeof(*g));
	g->blocksize = 4096;
	g->blocklog = 12;
	g->agblocks = AGBLK;
	g->agblklog = 10;
	g->agcount = AGS;
	g->dblocks = (uint64_t)AGBLK * (AGS - 1) + LASTAG;
	g->inodesize = 512;
	g->inodelog = 9;
	g->inopblock = 8;
	g->inopblog = 3;
	g->agino_log = 13;
	g->ialloc_blks = 8;
}

static void world_init(struct world *w, uint32_t seed)
{
	const struct od_geo *g = &w->fs.geo;
	uint32_t a, i, s = seed;

	memset(w, 0, sizeof(*w));
	geo_init(&w->fs.geo);
	w->m.fs = &w->fs;
	w->m.agcount = AGS;
	w->m.ag = w->ag;
	w->m.threads = 2;
	for (a = 0; a < AGS; a++) {
		struct m_ag *ag = &w->ag[a];
		uint32_t b = 200;

		ag->agno = a;
		ag->blocks = od_ag_blocks(g, a);
		/* headers, a btree block, a log run in AG 1, an AGFL slot */
		ag->meta = w->meta[a];
		ag->meta[ag->nmeta++] = (struct m_meta_blk){ 0, MM_SB, a };
		ag->meta[ag->nmeta++] = (struct m_meta_blk){ 1, MM_BNOBT, a };
		ag->meta[ag->nmeta++] =
			(struct m_meta_blk){ 2, MM_AGFL_FREE, a };
		if (a == 1)
			for (i = 0; i < 10; i++)
				ag->meta[ag->nmeta++] = (struct m_meta_blk){
					50 + i, MM_LOG, a };
		/* inode chunk at block 16 (inodes 128..191); AG 2's sparse */
		ag->chunk = w->chunk[a];
		ag->chunk[0].startino = 128;
		ag->chunk[0].holemask = a == 2 ? 0x00f0 : 0;
		ag->chunk[0].count = a == 2 ? 48 : 64;
		ag->nchunk = 1;
		/* free extents from block 200 on */
		ag->freesp = w->freesp[a];
		for (i = 0; i < 5 && b < ag->blocks; i++) {
			uint32_t len = 1 + rnd(&s) % 60;

			if (b + len > ag->blocks)
				len = ag->blocks - b;
			ag->freesp[ag->nfree++] = (struct m_free){ b, len };
			b += len + 1 + rnd(&s) % 40;
		}
		/* inodes with 1..6 extents anywhere, some overlapping */
		ag->ino = w->ino[a];
		ag->ext = w->ext[a];
		for (i = 0; i < NINO; i++) {
			struct m_ino *mi = &ag->ino[ag->nino++];
			uint32_t k, n = 1 + rnd(&s) % 6;

			mi->ino = od_agino_ino(g, a, 128 + i);
			mi->mode = 0100644;
			mi->ext = (uint32_t)ag->next;
			mi->nde = n;
			mi->nae = (i % 5 == 0);
			for (k = 0; k < mi->nde + mi->nae; k++) {
				uint32_t t = rnd(&s) % AGS;
				uint32_t start = 100 + rnd(&s) %
						 (od_ag_blocks(g, t) - 140);
				struct od_irec r;

				r.startoff = (uint64_t)k * 64;
				r.startblock = od_agb_fsb(g, t, start);
				r.blockcount = 1 + rnd(&s) % 30;
				r.unwritten = (rnd(&s) & 7) == 0;
				od_bmbt_rec_pack(&r, ag->ext[ag->next++].rec);
			}
		}
	}
	/* a bmbt block of AG 0's first inode */
	w->ag[0].meta[w->ag[0].nmeta++] = (struct m_meta_blk){
		40, MM_BMBT, w->ag[0].ino[0].ino };
}

/* Everything of the model covering block agbno of AG agno, by brute force. */
static size_t ref_owners(const struct world *w, uint32_t agno, uint32_t agbno,
			 uint64_t *owner, uint8_t *kind, size_t max)
{
	const struct od_geo *g = &w->fs.geo;
	const struct m_ag *ag = &w->ag[agno];
	size_t n = 0, i;
	uint32_t a, k;

#define ADD(o, kd) do { if (n < max) { owner[n] = (o); kind[n] = (kd); } \
			n++; } while (0)
	for (i = 0; i < ag->nfree; i++)
		if (agbno >= ag->freesp[i].agbno &&
		    agbno < ag->freesp[i].agbno + ag->freesp[i].len)
			ADD(agno, BK_FREE);
	for (i = 0; i < ag->nmeta; i++)
		if (ag->meta[i].agbno == agbno)
			ADD(ag->meta[i].owner, ag->meta[i].kind == MM_BMBT ?
			    BK_BMBT : BK_META);
	for (i = 0; i < ag->nchunk; i++) {
		uint32_t b0 = od_agino_agbno(g, ag->chunk[i].startino);

		if (agbno >= b0 && agbno < b0 + 8 &&
		    od_inobt_present(&ag->chunk[i], (agbno - b0) * 8))
			ADD(od_agino_ino(g, agno, ag->chunk[i].startino),
			    BK_INODES);
	}
	for (a = 0; a < AGS; a++) {
		for (i = 0; i < w->ag[a].nino; i++) {
			const struct m_ino *mi = &w->ag[a].ino[i];

			for (k = 0; k < mi->nde + mi->nae; k++) {
				struct od_irec r;

				m_ext_get(&w->ag[a].ext[mi->ext + k], &r);
				if (od_fsb_agno(g, r.startblock) == agno &&
				    agbno >= od_fsb_agbno(g, r.startblock) &&
				    agbno < od_fsb_agbno(g, r.startblock) +
					    r.blockcount)
					ADD(mi->ino, k < mi->nde ? BK_DATA :
					    BK_ATTR);
			}
		}
	}
#undef ADD
	return n;
}

static void test_owners(struct t_state *ts, const struct world *w,
			const struct blkmap *bm)
{
	uint32_t a, b;
	size_t bad = 0, checked = 0;

	for (a = 0; a < AGS; a++) {
		for (b = 0; b < w->ag[a].blocks; b++) {
			const struct bm_span *sp[16];
			uint64_t owner[16];
			uint8_t kind[16];
			size_t n = blkmap_owners(bm, a, b, sp, 16);
			size_t nr = ref_owners(w, a, b, owner, kind, 16);
			size_t i, j;

			checked++;
			if (n != nr) {
				bad++;
				continue;
			}
			/* same multiset of (owner, kind) */
			for (i = 0; i < n && i < 16; i++) {
				for (j = 0; j < nr; j++)
					if (owner[j] == sp[i]->owner &&
					    kind[j] == sp[i]->kind)
						break;
				if (j == nr) {
					bad++;
					break;
				}
				kind[j] = 0xff;
			}
		}
	}
	T_CHECK(ts, checked == AGBLK * (AGS - 1) + LASTAG);
	T_CHECK(ts, bad == 0);
	if (bad)
		fprintf(stderr, "blkmap: %zu of %zu blocks differ\n", bad,
			checked);
}

/* Spans sorted, maxend right, data flags from the model. */
static void test_order(struct t_state *ts, const struct blkmap *bm)
{
	uint32_t a;
	size_t i, bad = 0;

	for (a = 0; a < AGS; a++) {
		const struct bm_ag *ag = &bm->ag[a];
		uint32_t maxend = 0;

		for (i = 0; i < ag->nspan; i++) {
			if (bm_span_end(&ag->span[i]) > maxend)
				maxend = bm_span_end(&ag->span[i]);
			if ((i && ag->span[i].agbno < ag->span[i - 1].agbno) ||
			    ag->maxend[i] != maxend ||
			    bm_span_end(&ag->span[i]) > ag->blocks)
				bad++;
		}
	}
	T_CHECK(ts, bad == 0);
	/* AG 1's log blocks merged into one span */
	{
		const struct bm_span *sp[4];

		T_CHECK(ts, blkmap_owners(bm, 1, 55, sp, 4) >= 1);
		T_CHECK(ts, sp[0]->kind == BK_META && sp[0]->meta == MM_LOG &&
			    sp[0]->agbno == 50 && sp[0]->len == 10);
	}
	/* AG 2's sparse chunk: holemask 0x00f0 leaves blocks 2..3 out */
	{
		const struct bm_span *sp[4];

		T_CHECK(ts, blkmap_owners(bm, 2, 16 + 2, sp, 4) == 0 ||
			    sp[0]->kind != BK_INODES);
		T_CHECK(ts, blkmap_owners(bm, 2, 16 + 4, sp, 4) >= 1 &&
			    sp[0]->kind == BK_INODES);
	}
	T_CHECK(ts, blkmap_owners(bm, AGS, 0, NULL, 0) == 0);
}

/* Cells of a sweep equal the summary of each cell on its own. */
static void test_cells(struct t_state *ts, const struct blkmap *bm,
		       uint64_t mark, uint32_t seed)
{
	uint8_t cls[512];
	size_t bad = 0, i, round;
	uint32_t s = seed;

	for (round = 0; round < 200; round++) {
		uint64_t step = 1 + rnd(&s) % 97;
		size_t n = 1 + rnd(&s) % 500;
		uint64_t lin = rnd(&s) % (bm->dblocks + 50);

		if (blkmap_cells(bm, lin, step, n, mark, cls)) {
			bad++;
			continue;
		}
		for (i = 0; i < n; i++) {
			struct bm_summary sum;

			blkmap_summary(bm, lin + i * step, step, mark, &sum);
			if (blkmap_dominant(&sum) != cls[i])
				bad++;
		}
	}
	T_CHECK(ts, bad == 0);
	/* the whole filesystem in one cell: every block accounted for */
	{
		struct bm_summary sum;
		uint64_t tot = 0;
		unsigned c;

		blkmap_summary(bm, 0, bm->dblocks, mark, &sum);
		T_CHECK(ts, sum.inside == bm->dblocks);
		for (c = 0; c < BC_NCLASS; c++)
			tot += sum.blocks[c];
		T_CHECK(ts, tot >= bm->dblocks);
		blkmap_summary(bm, bm->dblocks, 10, mark, &sum);
		T_CHECK(ts, blkmap_dominant(&sum) == BC_OUTSIDE);
	}
}

/* The marked inode's own block and its extents show as marked. */
static void test_mark(struct t_state *ts, const struct world *w,
		      const struct blkmap *bm)
{
	const struct od_geo *g = &w->fs.geo;
	const struct m_ino *mi = &w->ag[1].ino[3];
	struct bm_summary sum;
	struct od_irec r;
	uint64_t lin;

	/* inode 128 + 3 of AG 1 lives in block 16 + 3 / 8 = 16 */
	lin = (uint64_t)AGBLK + 16;
	blkmap_summary(bm, lin, 1, mi->ino, &sum);
	T_CHECK(ts, blkmap_dominant(&sum) == BC_MARKED);
	blkmap_summary(bm, lin, 1, 0, &sum);
	T_CHECK(ts, blkmap_dominant(&sum) == BC_INODES);
	m_ext_get(&w->ag[1].ext[mi->ext], &r);
	lin = od_fsb_lin(g, r.startblock);
	blkmap_summary(bm, lin, 1, mi->ino, &sum);
	T_CHECK(ts, blkmap_dominant(&sum) == BC_MARKED);
	T_CHECK(ts, sum.top[BC_MARKED] &&
		    sum.top[BC_MARKED]->owner == mi->ino);
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	static struct world w;
	struct blkmap *bm;
	struct err e = { 0 };
	uint32_t seed;

	for (seed = 1; seed <= 5; seed++) {
		world_init(&w, seed);
		T_CHECK(&ts, blkmap_build(&w.m, &bm, &e) == 0);
		if (!bm)
			break;
		test_owners(&ts, &w, bm);
		test_order(&ts, bm);
		test_cells(&ts, bm, 0, seed);
		test_cells(&ts, bm, w.ag[seed % AGS].ino[seed].ino, seed * 7);
		test_mark(&ts, &w, bm);
		blkmap_free(bm);
	}
	return t_done(&ts, "blkmap");
}
