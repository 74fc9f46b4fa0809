/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inode renumbering planner (issue 10), no root: on the committed
 * fixtures (4 KiB and 1 KiB blocks, 4 and 16 AGs, v4 and v5, sparse
 * inodes on and off, inodes of 256, 512 and 1024 bytes), scanned from
 * memory, a plan that renumbers every inode it may must keep:
 *   - the inodes the superblock names where they are;
 *   - every new number unique, in a chunk the run allocates, that chunk
 *     on an inode-alignment boundary inside its AG;
 *   - every block of every AG owned by exactly one thing after the run
 *     (headers, log, AGFL, chunks kept, chunks made, data, bmap btree
 *     blocks, the rebuilt AG btrees' run, free space): no new chunk on
 *     anything else, and nothing lost;
 *   - each freed chunk empty (all its inodes moved);
 *   - no number that was below 2^32 at or above it;
 *   - walk order: a moved file's inode before its data, its chunk after
 *     the data the walk read before the chunk's first inode.
 * The same for the walk by name.  --renumber none gives the plan of no
 * options at all.  On a hand-made
 * model with AGs above 2^32 (no disk behind it: the planner reads
 * none), --inode32 brings every inode below 2^32, or fails with the
 * count when the low AGs have no room.
 */
#include "t.h"
#include "fixture.h"
#include "memfs.h"
#include "core/base/img.h"
#include "core/fs/fs.h"
#include "core/fs/fork.h"
#include "core/model/scan.h"
#include "core/relocate/plan.h"
#include "ondisk/inode.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>


/* ---- the block census ---- */

enum { C_NONE, C_HDR, C_LOG, C_AGFL, C_KEPT, C_NEW, C_DATA, C_BMBT, C_BT,
       C_FREE };

struct census {
	const struct od_geo *g;
	uint8_t **own;		/* per AG, per block */
	uint64_t clash;		/* blocks claimed twice (data on data aside) */
	uint64_t clash_new;	/* of them, a new chunk's */
	uint64_t outside;	/* claims past an AG's end */
};

static void claim(struct census *c, uint32_t agno, uint32_t agbno,
		  uint64_t len, uint8_t what)
{
	uint64_t k;

	if (agno >= c->g->agcount)
		return;
	for (k = 0; k < len; k++) {
		uint8_t *o;

		if (agbno + k >= od_ag_blocks(c->g, agno)) {
			c->outside++;
			continue;
		}
		o = &c->own[agno][agbno + k];
		/* reflinked data; inode groups that share a block */
		if (*o && !(*o == what && (what == C_DATA || what == C_KEPT))) {
			if (getenv("T_VERBOSE") && c->clash < 4)
				printf("block %u/%llu: %d and %d\n", agno,
				       (unsigned long long)(agbno + k), *o, what);
			c->clash++;
			if (*o == C_NEW || what == C_NEW)
				c->clash_new++;
		}
		*o = what;
	}
}

static bool freed_chunk(const struct plan *p, uint64_t startino)
{
	size_t i;

	for (i = 0; i < p->nich; i++)
		if (!p->ich[i].alloc && p->ich[i].startino == startino)
			return true;
	return false;
}

static const struct plan_ichunk *alloc_chunk_of(const struct plan *p,
						uint64_t ino)
{
	size_t i;

	for (i = 0; i < p->nich; i++)
		if (p->ich[i].alloc && ino >= p->ich[i].startino &&
		    ino < p->ich[i].startino + OD_INODES_PER_CHUNK)
			return &p->ich[i];
	return NULL;
}

static void census_fill(struct census *c, const struct model *m,
			const struct plan *p)
{
	const struct od_geo *g = c->g;
	const struct od_sb *sb = &m->fs->sb;
	uint32_t a, k, hdr = (uint32_t)((3ull * g->sectsize) >> g->blocklog) + 1;
	size_t i, j;

	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];
		const struct plan_ag *pa = plan_ag(p, a);

		claim(c, a, 0, hdr, C_HDR);
		if (sb->logstart && od_fsb_agno(g, sb->logstart) == a)
			claim(c, a, od_fsb_agbno(g, sb->logstart),
			      sb->logblocks, C_LOG);
		for (k = 0; k < ag->nagfl; k++)
			claim(c, a, ag->agfl[k], 1, C_AGFL);
		for (i = 0; i < ag->nchunk; i++) {
			const struct od_inobt_rec *r = &ag->chunk[i];
			uint32_t grp;

			if (freed_chunk(p, od_agino_ino(g, a, r->startino)))
				continue;
			for (grp = 0; grp < OD_INODES_PER_CHUNK;
			     grp += OD_INODES_PER_HOLEMASK_BIT) {
				uint32_t b0, b1;

				if (!od_inobt_present(r, grp))
					continue;
				b0 = od_agino_agbno(g, r->startino + grp);
				b1 = od_agino_agbno(g, r->startino + grp +
						    OD_INODES_PER_HOLEMASK_BIT - 1);
				claim(c, a, b0, b1 - b0 + 1, C_KEPT);
			}
		}
		claim(c, a, pa->bt_start, pa->bt_len, C_BT);
		for (i = 0; i < pa->nfreesp; i++)
			claim(c, a, pa->freesp[i].agbno, pa->freesp[i].len,
			      C_FREE);
		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];
			int fork;

			for (fork = FORK_DATA; fork <= FORK_ATTR; fork++) {
				const struct plan_fork *pf =
					plan_fork_find(p, mi->ino, fork);
				uint32_t first = fork == FORK_DATA ? 0 : mi->nde;
				uint32_t n = fork == FORK_DATA ? mi->nde : mi->nae;

				if (fork == FORK_DATA && (mi->flags & MI_REALTIME))
					continue;
				if (pf) {
					for (j = 0; j < pf->nrecs; j++)
						claim(c, od_fsb_agno(g, pf->recs[j].startblock),
						      od_fsb_agbno(g, pf->recs[j].startblock),
						      pf->recs[j].blockcount, C_DATA);
					for (j = 0; j < pf->nbmbt; j++)
						claim(c, od_fsb_agno(g, pf->bmbt[j]),
						      od_fsb_agbno(g, pf->bmbt[j]),
						      1, C_BMBT);
					continue;
				}
				for (k = 0; k < n; k++) {
					struct od_irec r;

					m_ext_get(&ag->ext[mi->ext + first + k], &r);
					claim(c, od_fsb_agno(g, r.startblock),
					      od_fsb_agbno(g, r.startblock),
					      r.blockcount, C_DATA);
				}
			}
		}
	}
	for (i = 0; i < p->nich; i++) {
		if (!p->ich[i].alloc)
			continue;
		claim(c, od_ino_agno(g, p->ich[i].startino),
		      od_agino_agbno(g, od_ino_agino(g, p->ich[i].startino)),
		      g->ialloc_blks, C_NEW);
	}
}

/* Blocks no one owns after the plan. */
static uint64_t census_unowned(const struct census *c)
{
	uint64_t n = 0;
	uint32_t a, b;

	for (a = 0; a < c->g->agcount; a++)
		for (b = 0; b < od_ag_blocks(c->g, a); b++)
			n += c->own[a][b] == C_NONE;
	return n;
}

/* ---- the invariants of one plan ---- */

static bool fixed(const struct od_sb *sb, uint64_t ino)
{
	return ino == sb->rootino || ino == sb->rbmino || ino == sb->rsumino ||
	       ino == sb->uquotino || ino == sb->gquotino || ino == sb->pquotino;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first data block (linear) of the fork after the plan, or ~0. */
static uint64_t first_data(const struct model *m, const struct plan *p,
			   const struct m_ag *ag, const struct m_ino *mi)
{
	const struct plan_fork *pf = plan_fork_find(p, mi->ino, FORK_DATA);
	struct od_irec r;

	if (pf && pf->nrecs)
		return od_fsb_lin(&m->fs->geo, pf->recs[0].startblock);
	if (pf || !mi->nde)
		return ~0ull;
	m_ext_get(&ag->ext[mi->ext], &r);
	return od_fsb_lin(&m->fs->geo, r.startblock);
}

static void check_plan(struct t_state *ts, const char *name,
		       const struct model *m, const struct plan *p)
{
	const struct od_geo *g = &m->fs->geo;
	const struct od_sb *sb = &m->fs->sb;
	struct census c = { g, NULL, 0, 0, 0 };
	uint64_t *nw = malloc((p->nino + 1) * sizeof(*nw));
	uint64_t bad_slot = 0, bad_align = 0, bad32 = 0, dup = 0, notempty = 0;
	uint64_t before = 0, files = 0, unowned, overlap = 0, same = 0;
	uint32_t align = sb->inoalignmt > g->blocks_per_cluster ?
			 sb->inoalignmt : g->blocks_per_cluster, a;
	size_t i, k;

	T_CHECK(ts, nw != NULL);
	if (!nw)
		return;
	for (i = 0; i < p->nino; i++) {
		const struct plan_ichunk *ch = alloc_chunk_of(p, p->ino[i].new);

		T_CHECK(ts, !fixed(sb, p->ino[i].old));
		if (i)
			T_CHECK(ts, p->ino[i - 1].old < p->ino[i].old);
		bad_slot += !ch;
		same += p->ino[i].old == p->ino[i].new;
		bad32 += p->ino[i].old < (1ull << 32) &&
			 p->ino[i].new >= (1ull << 32);
		nw[i] = p->ino[i].new;
		T_CHECK(ts, plan_ino_new(p, p->ino[i].old) == p->ino[i].new);
	}
	qsort(nw, p->nino, sizeof(*nw), cmp_u64);
	for (i = 1; i < p->nino; i++)
		dup += nw[i] == nw[i - 1];
	free(nw);
	T_CHECK(ts, bad_slot == 0 && dup == 0 && bad32 == 0);
	T_CHECK(ts, plan_ino_new(p, sb->rootino) == sb->rootino);
	for (i = 0; i < p->nich; i++) {
		uint64_t s = p->ich[i].startino;
		uint32_t agino = od_ino_agino(g, s), agbno = od_agino_agbno(g, agino);
		const struct m_ag *ag = &m->ag[od_ino_agno(g, s)];

		if (i)
			T_CHECK(ts, p->ich[i - 1].startino <= s);
		if (p->ich[i].alloc) {
			/* its numbers are no kept chunk's (sparse holes too) */
			for (k = 0; k < ag->nchunk; k++) {
				uint64_t ks = od_agino_ino(g, ag->agno,
							   ag->chunk[k].startino);

				if (!freed_chunk(p, ks) &&
				    ks < s + OD_INODES_PER_CHUNK &&
				    s < ks + OD_INODES_PER_CHUNK)
					overlap++;
			}
			bad_align += agbno % align != 0 ||
				     od_agino_offset(g, agino) != 0 ||
				     agbno + g->ialloc_blks >
				     od_ag_blocks(g, od_ino_agno(g, s));
			continue;
		}
		/* freed: every inode the model has in it moves */
		for (k = 0; k < ag->nino; k++)
			if (ag->ino[k].ino >= s &&
			    ag->ino[k].ino < s + OD_INODES_PER_CHUNK &&
			    plan_ino_new(p, ag->ino[k].ino) == ag->ino[k].ino)
				notempty++;
		T_CHECK(ts, !(sb->rootino >= s &&
			      sb->rootino < s + OD_INODES_PER_CHUNK));
	}
	T_CHECK(ts, bad_align == 0 && notempty == 0 && overlap == 0);
	/* one owner per block */
	c.own = calloc(g->agcount, sizeof(*c.own));
	for (a = 0; c.own && a < g->agcount; a++)
		c.own[a] = calloc(od_ag_blocks(g, a), 1);
	census_fill(&c, m, p);
	unowned = census_unowned(&c);
	T_CHECK(ts, c.clash == 0 && c.clash_new == 0 && c.outside == 0);
	T_CHECK(ts, unowned == 0);
	for (a = 0; c.own && a < g->agcount; a++)
		free(c.own[a]);
	free(c.own);
	/* walk order: a moved file's inode before its data (same AG) */
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		for (k = 0; k < ag->nino; k++) {
			const struct m_ino *mi = &ag->ino[k];
			uint64_t ni = plan_ino_new(p, mi->ino), d;

			if (ni == mi->ino || !od_mode_isreg(mi->mode) ||
			    (mi->flags & (MI_REFLINK | MI_REALTIME)))
				continue;
			d = first_data(m, p, ag, mi);
			if (d == ~0ull || d / g->agblocks != od_ino_agno(g, ni))
				continue;
			files++;
			before += model_ino_lin(m->fs, ni) < d;
		}
	}
	T_CHECK(ts, before * 100 >= files * 98);
	if (getenv("T_VERBOSE") || c.clash || unowned || bad_slot || dup ||
	    before * 100 < files * 98)
		printf("%s: %zu inodes renumbered (%llu to themselves), %zu chunk records; "
		       "%llu blocks claimed twice, %llu unowned; %llu of %llu "
		       "moved files have their inode before their data\n",
		       name, p->nino, (unsigned long long)same, p->nich,
		       (unsigned long long)c.clash,
		       (unsigned long long)unowned, (unsigned long long)before,
		       (unsigned long long)files);
}

/*
 * The walk order's other half: the new chunks of an AG dense, in the
 * order the walk first reaches them, and together: the AG's moved data
 * and directories come after them, not between.
 */
static void check_chunk_order(struct t_state *ts, const char *name,
			      const struct model *m, const struct plan *p)
{
	const struct od_geo *g = &m->fs->geo;
	struct err e = { 0 };
	struct walk w;
	uint64_t *last, *lo, *hi, ok = 0, n = 0, full = 0, nalloc = 0;
	uint64_t between = 0, cblk = (uint64_t)g->ialloc_blks;
	size_t i, k;
	uint32_t a;

	T_CHECK(ts, walk_build(m, p->order, &w, &e) == 0);
	last = calloc(g->agcount, sizeof(*last));
	lo = calloc(g->agcount, sizeof(*lo));
	hi = calloc(g->agcount, sizeof(*hi));
	if (!last || !lo || !hi)
		goto out;
	for (a = 0; a < g->agcount; a++)
		lo[a] = UINT64_MAX;
	for (i = 0; i < w.nreached; i++) {
		const struct m_ino *mi = walk_inode(&w, w.seq[i], NULL);
		uint64_t ni = plan_ino_new(p, mi->ino), b;
		const struct plan_ichunk *ch = alloc_chunk_of(p, ni);

		if (!ch || ni != ch->startino)
			continue;
		/* the chunk's first slot: its first member */
		a = od_ino_agno(g, ni);
		b = model_ino_lin(m->fs, ch->startino);
		n++;
		ok += b >= last[a];
		last[a] = b;
		if (b < lo[a])
			lo[a] = b;
		if (b + cblk > hi[a])
			hi[a] = b + cblk;
	}
	/* full chunks: 64 inodes each but the last of an AG's */
	for (k = 0; k < p->nich; k++) {
		const struct plan_ichunk *c = &p->ich[k];
		uint64_t used = 0;
		size_t j;

		if (!c->alloc)
			continue;
		nalloc++;
		for (j = 0; j < p->nino; j++)
			used += p->ino[j].new >= c->startino &&
				p->ino[j].new < c->startino + OD_INODES_PER_CHUNK;
		full += used == OD_INODES_PER_CHUNK;
	}
	for (k = 0; k < p->npf; k++) {
		const struct plan_fork *pf = &p->pf[k];
		size_t r;

		for (r = 0; r < pf->nrecs; r++) {
			uint64_t s = od_fsb_lin(g, pf->recs[r].startblock);

			a = od_fsb_agno(g, pf->recs[r].startblock);
			if (a < g->agcount && s >= lo[a] && s < hi[a])
				between++;
		}
	}
	T_CHECK(ts, ok == n);
	T_CHECK(ts, between == 0);
	T_CHECK(ts, full + g->agcount >= nalloc);
	if (getenv("T_VERBOSE") || ok != n || between ||
	    full + g->agcount < nalloc)
		printf("%s: %llu of %llu new chunks in walk order, %llu of %llu "
		       "full, %llu moved extents among them\n", name,
		       (unsigned long long)ok, (unsigned long long)n,
		       (unsigned long long)full, (unsigned long long)nalloc,
		       (unsigned long long)between);
out:
	free(last);
	free(lo);
	free(hi);
	walk_free(&w);
}

static bool same_recs(const struct od_irec *a, const struct od_irec *b,
		      uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (a[k].startoff != b[k].startoff ||
		    a[k].startblock != b[k].startblock ||
		    a[k].blockcount != b[k].blockcount ||
		    a[k].unwritten != b[k].unwritten)
			return false;
	return true;
}

static void test_fixture(struct t_state *ts, const char *name)
{
	struct plan_opts o = { .order = WALK_READDIR, .renumber = PR_ALL };
	struct plan pa, pn, p0;
	struct model *m;
	struct fixture fx;
	struct err e = { 0 };
	size_t i;
	uint32_t a;

	if (fixture_scan(&fx, "test_renumber", name)) {
		T_CHECK(ts, !"fixture opens and scans");
		goto out;
	}
	m = fx.m;
	T_CHECK(ts, plan_build(m, &o, &pa, &e) == 0);
	T_CHECK(ts, pa.nino > 0);
	check_plan(ts, name, m, &pa);
	check_chunk_order(ts, name, m, &pa);
	plan_free(&pa);
	/* the walk by name lays chunks out in its own order */
	o.order = WALK_NAME;
	T_CHECK(ts, plan_build(m, &o, &pa, &e) == 0);
	T_CHECK(ts, pa.nino > 0);
	check_plan(ts, name, m, &pa);
	check_chunk_order(ts, name, m, &pa);
	plan_free(&pa);
	o.order = WALK_READDIR;
	o.renumber = PR_AUTO;
	T_CHECK(ts, plan_build(m, &o, &pa, &e) == 0);
	check_plan(ts, name, m, &pa);
	/* auto: newino is set, to an inode that is there after the run */
	for (a = 0; a < m->agcount; a++) {
		const struct od_geo *g = &m->fs->geo;
		uint64_t ni = od_agino_ino(g, a, pa.ag[a].newino);
		const struct m_ag *ag = &m->ag[a];
		bool there = alloc_chunk_of(&pa, ni) != NULL;

		for (i = 0; i < ag->nchunk && !there; i++) {
			const struct od_inobt_rec *r = &ag->chunk[i];

			there = pa.ag[a].newino >= r->startino &&
				pa.ag[a].newino < r->startino + OD_INODES_PER_CHUNK &&
				od_inobt_present(r, pa.ag[a].newino - r->startino) &&
				!freed_chunk(&pa, od_agino_ino(g, a, r->startino));
		}
		size_t after = 0;

		for (i = 0; i < ag->nchunk; i++)
			after += !freed_chunk(&pa, od_agino_ino(g, a,
							ag->chunk[i].startino));
		for (i = 0; i < pa.nich; i++)
			after += pa.ich[i].alloc &&
				 od_ino_agno(g, pa.ich[i].startino) == a;
		/* (~0u, "leave it", only where no chunk is left) */
		T_CHECK(ts, pa.ag[a].newino == ~0u ? after == 0 : there);
	}
	/* none: the plan of no options, field by field */
	o.renumber = PR_NONE;
	T_CHECK(ts, plan_build(m, &o, &pn, &e) == 0);
	T_CHECK(ts, plan_build(m, NULL, &p0, &e) == 0);
	T_CHECK(ts, pn.nino == 0 && pn.nich == 0 && pn.nmv == p0.nmv &&
		    pn.npf == p0.npf);
	T_CHECK(ts, pn.nmv == 0 ||
		    memcmp(pn.mv, p0.mv, pn.nmv * sizeof(*pn.mv)) == 0);
	for (i = 0; i < pn.npf && i < p0.npf; i++)
		T_CHECK(ts, pn.pf[i].ino == p0.pf[i].ino &&
			    pn.pf[i].nrecs == p0.pf[i].nrecs &&
			    same_recs(pn.pf[i].recs, p0.pf[i].recs,
				      pn.pf[i].nrecs));
	for (a = 0; a < m->agcount; a++)
		T_CHECK(ts, pn.ag[a].newino == ~0u &&
			    pn.ag[a].nfreesp == p0.ag[a].nfreesp &&
			    pn.ag[a].bt_start == p0.ag[a].bt_start);
	T_CHECK(ts, !memcmp(&pn.rb_after, &p0.rb_after, sizeof(pn.rb_after)));
	/* renumbering: the metadata walk no slower than without it (the
	 * inodes go together, away from their data: the distance grows) */
	T_CHECK(ts, pa.rb_after.meta.hdd_seconds <=
		    pn.rb_after.meta.hdd_seconds);
	T_CHECK(ts, pa.rb_after.hdd_seconds <= pn.rb_after.hdd_seconds);
	plan_free(&pn);
	plan_free(&p0);
	plan_free(&pa);
out:
	fixture_close(&fx);
}

/* ---- AGs above 2^32: a model by hand ---- */

struct m32 {
	struct memfs mf;
	struct model m;
	struct m_ag ag[3];
	struct m_ino ino[2][4];
	struct m_ext ext[2][4];
	struct m_link link[2][4];
	struct od_inobt_rec chunk[2];
	struct m_free fr[3];
};

static void add32(struct m_ag *ag, uint64_t ino, uint16_t mode,
		  const struct od_irec *r)
{
	struct m_ino *mi = &ag->ino[ag->nino++];

	memset(mi, 0, sizeof(*mi));
	mi->ino = ino;
	mi->mode = mode;
	mi->fmt = r ? OD_FMT_EXTENTS : OD_FMT_LOCAL;
	mi->flags = MI_NOATTR;
	mi->nlink = 1;
	mi->version = 3;
	mi->ext = (uint32_t)ag->next;
	if (r) {
		mi->nde = 1;
		od_bmbt_rec_pack(r, ag->ext[ag->next++].rec);
	}
}

/*
 * 4 KiB blocks, 512-byte inodes, AGs of 2^29 blocks: inode numbers have
 * 32 bits of AG inode number, so only AG 0's are below 2^32.  Chunks
 * align on 64 blocks.  AG 0: the root (inode 512, chunk at block 64) and
 * the log from block 72 on, for logblocks (what is left before the root
 * chunk holds AG btrees, but no aligned chunk).  AG 2: directory /d (2 << 32 | 256) and its files f1, f2
 * (data in AG 2).
 */
static int build32(struct m32 *h, uint32_t logblocks)
{
	struct od_sb *sb;
	struct od_geo *g;
	uint64_t d = 2ull << 32 | 256;
	struct od_irec r;
	uint32_t a;

	memset(h, 0, sizeof(*h));
	if (memfs_open(&h->mf, true, 12))
		return -1;
	sb = &h->mf.fs->sb;
	g = &h->mf.fs->geo;
	sb->agblklog = 29;
	sb->agblocks = 1u << 29;
	sb->agcount = 3;
	sb->dblocks = 3ull << 29;
	sb->rootino = 512;
	sb->inoalignmt = 64;
	sb->logstart = 72;
	sb->logblocks = logblocks;
	od_geo_init(g, sb);
	h->m.fs = h->mf.fs;
	h->m.agcount = 3;
	h->m.ag = h->ag;
	for (a = 0; a < 3; a++) {
		h->ag[a].agno = a;
		h->ag[a].blocks = 1u << 29;
		h->ag[a].have_agf = h->ag[a].have_agi = true;
		h->fr[a].agbno = a ? 64 : 72 + logblocks;
		h->fr[a].len = (1u << 29) - h->fr[a].agbno;
		h->ag[a].freesp = &h->fr[a];
		h->ag[a].nfree = 1;
		h->ag[a].agf.freeblks = h->fr[a].len;
	}
	for (a = 0; a < 2; a++) {
		struct m_ag *ag = &h->ag[a ? 2 : 0];

		ag->ino = h->ino[a];
		ag->ext = h->ext[a];
		ag->link = h->link[a];
		ag->chunk = &h->chunk[a];
		ag->nchunk = 1;
	}
	h->chunk[0].startino = 512;
	h->chunk[0].count = 64;
	h->chunk[0].freecount = 63;
	h->chunk[0].free = ~1ull;
	h->chunk[1].startino = 256;
	h->chunk[1].count = 64;
	h->chunk[1].freecount = 61;
	h->chunk[1].free = ~7ull;
	add32(&h->ag[0], 512, 0040755, NULL);
	add32(&h->ag[2], d, 0040755, NULL);
	r.startoff = 0;
	r.startblock = od_agb_fsb(g, 2, 1000);
	r.blockcount = 4;
	r.unwritten = false;
	add32(&h->ag[2], d + 1, 0100644, &r);
	r.startblock = od_agb_fsb(g, 2, 2000);
	r.blockcount = 2;
	add32(&h->ag[2], d + 2, 0100644, &r);
	h->ag[0].link[h->ag[0].nlink].parent = 512;
	h->ag[0].link[h->ag[0].nlink++].child = d;
	h->ag[2].link[h->ag[2].nlink].parent = d;
	h->ag[2].link[h->ag[2].nlink++].child = d + 1;
	h->ag[2].link[h->ag[2].nlink].parent = d;
	h->ag[2].link[h->ag[2].nlink++].child = d + 2;
	h->m.ninodes = 4;
	return 0;
}

static void test_inode32(struct t_state *ts)
{
	struct plan_opts o = { .order = WALK_READDIR, .renumber = PR_AUTO, .inode32 = true };
	struct m32 h;
	struct plan p;
	struct err e = { 0 };
	uint64_t d = 2ull << 32 | 256;
	size_t i;

	/* room in AG 0: all three come below 2^32, with their data */
	T_CHECK(ts, build32(&h, 1000) == 0);
	T_CHECK(ts, plan_build(&h.m, &o, &p, &e) == 0);
	T_CHECK(ts, p.nino == 3);
	for (i = 0; i < p.nino; i++)
		T_CHECK(ts, p.ino[i].old >= d && p.ino[i].new < (1ull << 32));
	T_CHECK(ts, plan_ino_new(&p, 512) == 512);
	/* /d's children follow it, in walk order, into one new chunk */
	T_CHECK(ts, plan_ino_new(&p, d + 2) == plan_ino_new(&p, d + 1) + 1);
	/* /d shares its cluster with its children: one chunk made, one freed */
	T_CHECK(ts, plan_ino_new(&p, d + 1) == plan_ino_new(&p, d) + 1);
	T_CHECK(ts, p.nich == 2 && p.ich[0].alloc && !p.ich[1].alloc &&
		    p.ich[1].startino == d);
	{
		const struct plan_fork *pf = plan_fork_find(&p, d + 1, FORK_DATA);

		T_CHECK(ts, pf && od_fsb_agno(h.mf.g, pf->recs[0].startblock) == 0);
		T_CHECK(ts, pf && model_ino_lin(h.m.fs, plan_ino_new(&p, d + 1)) <
			    od_fsb_lin(h.mf.g, pf->recs[0].startblock));
	}
	plan_free(&p);
	/* without --inode32 the move to AG 0 is the walk's gain only */
	o.inode32 = false;
	o.renumber = PR_ALL;
	T_CHECK(ts, plan_build(&h.m, &o, &p, &e) == 0);
	for (i = 0; i < p.nino; i++)
		T_CHECK(ts, p.ino[i].old >= (1ull << 32) ||
			    p.ino[i].new < (1ull << 32));
	plan_free(&p);
	/* none: --inode32 alone still moves what is above */
	o.inode32 = true;
	o.renumber = PR_NONE;
	T_CHECK(ts, plan_build(&h.m, &o, &p, &e) == 0);
	T_CHECK(ts, p.nino == 3);
	plan_free(&p);
	memfs_close(&h.mf);

	/* AG 0 is all log: no room below 2^32 for the three */
	T_CHECK(ts, build32(&h, (1u << 29) - 72) == 0);
	o.renumber = PR_AUTO;
	err_clear(&e);
	T_CHECK(ts, plan_build(&h.m, &o, &p, &e) == -ENOSPC);
	T_CHECK(ts, strstr(e.msg, "3 inodes") != NULL);
	if (!strstr(e.msg, "3 inodes"))
		fprintf(stderr, "inode32: %s\n", e.msg);
	/* without --inode32 nothing has to move: a plan */
	o.inode32 = false;
	T_CHECK(ts, plan_build(&h.m, &o, &p, &e) == 0);
	plan_free(&p);
	memfs_close(&h.mf);
}


int main(void)
{
	static const char *const names[] = {
		"aged", "bs1k", "ag16", "v4", "isize1k-dir8k",
		"sect4k-noreflink", "rmap-nrext64", "dirs",
	};
	struct t_state ts = { 0, 0 };
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		test_fixture(&ts, names[i]);
	test_inode32(&ts);
	return t_done(&ts, "test_renumber");
}
