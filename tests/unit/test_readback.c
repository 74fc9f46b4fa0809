/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The walk and the read-back cost model on a model built by hand, where
 * every access can be worked out on paper (comments give the arithmetic),
 * and the accumulator's rules on bare accesses.
 */
#include "core/model/readback.h"
#include "core/base/img.h"
#include "core/model/scan.h"
#include "ondisk/inode.h"
#include "tests/unit/fixture.h"
#include "tests/unit/memfs.h"
#include "tests/unit/t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define KiB 1024ull
#define MiB (1024ull * 1024)

static double seek_s(uint64_t dist)
{
	return 4.17e-3 + 0.8e-3 + 8e-3 * sqrt((double)dist / 1099511627776.0);
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_acc(struct t_state *ts)
{
	const uint64_t e4 = 3 * MiB + MiB / 2 + 7 * MiB / 10;	/* 4.2 MiB */
	struct rb_fig f;
	struct rb_acc a;

	rb_acc_init(&a, &f);
	/* a cold drive: the first read positions the head, even at 0; the
	 * drive then reads on 1 MiB into a segment: [0, 4 MiB) */
	rb_acc_read(&a, 0, 3 * MiB);
	T_CHECK(ts, f.jumps == 0 && f.requests == 3 && f.hdd_seeks == 1);
	rb_acc_read(&a, 3 * MiB, MiB / 2);	/* the third request was full */
	T_CHECK(ts, f.jumps == 0 && f.requests == 4);
	rb_acc_read(&a, 3 * MiB + MiB / 2, 7 * MiB / 10);	/* fills, spills */
	T_CHECK(ts, f.requests == 5);
	/* the segment grew with the stream and keeps its last 4 MiB:
	 * [1.2, 5.2 MiB); forward 0.8 MiB is in it, the head stays */
	rb_acc_read(&a, 5 * MiB, 4096);
	T_CHECK(ts, f.jumps == 1 && f.far_jumps == 0 && f.requests == 6);
	T_CHECK(ts, f.hdd_hits == 1 && f.hdd_seeks == 1);
	rb_acc_read(&a, 7 * MiB, 4096);		/* forward, > 1 MiB: far */
	T_CHECK(ts, f.jumps == 2 && f.far_jumps == 1 && f.requests == 7);
	rb_acc_read(&a, 6 * MiB, 4096);		/* back 1 MiB + 4 KiB: far */
	T_CHECK(ts, f.jumps == 3 && f.far_jumps == 2);
	/* back 12 KiB: near, but before every segment: a seek */
	rb_acc_read(&a, 6 * MiB - 8192, 4096);
	T_CHECK(ts, f.jumps == 4 && f.far_jumps == 2 && f.accesses == 7);
	T_CHECK(ts, f.hdd_seeks == 4 && f.hdd_hits == 1);
	T_CHECK(ts, near(f.hdd_seconds,
			 seek_s(0) + (double)e4 / 150e6 + 4096 / 600e6 +
			 seek_s(7 * MiB - e4) + 4096 / 150e6 +
			 seek_s(MiB + 4096) + 4096 / 150e6 +
			 seek_s(12 * KiB) + 4096 / 150e6));
	/* file data only: the metadata walk read nothing */
	T_CHECK(ts, f.meta.accesses == 0 && f.meta.hdd_seconds == 0);

	/* a metadata read counts in both walks, each with a drive of its own */
	rb_acc_init(&a, &f);
	rb_acc_read(&a, 0, MiB);
	rb_acc_read_meta(&a, 8 * MiB, 16 * KiB);
	T_CHECK(ts, f.accesses == 2 && f.meta.accesses == 1);
	T_CHECK(ts, f.meta.bytes == 16 * KiB && f.meta.requests == 1);
	T_CHECK(ts, near(f.meta.hdd_seconds, seek_s(8 * MiB) + 16 * KiB / 150e6));
	T_CHECK(ts, near(f.hdd_seconds, seek_s(0) + (double)MiB / 150e6 +
			 seek_s(7 * MiB) + 16 * KiB / 150e6));
}

/* ---- a hand-built model ---- */

struct hm {
	struct memfs mf;
	struct model m;
	struct m_ag ag[2];
	struct m_ino ino[16];
	struct m_ext ext[16];
	struct m_link link[16];
	struct od_inobt_rec chunk[1];
};

static void add_ino(struct hm *h, uint64_t ino, uint16_t mode, uint8_t fmt,
		    const struct od_irec *r, uint32_t nr)
{
	struct m_ag *ag = &h->ag[0];
	struct m_ino *mi = &ag->ino[ag->nino++];
	uint32_t k;

	memset(mi, 0, sizeof(*mi));
	mi->ino = ino;
	mi->mode = mode;
	mi->fmt = fmt;
	mi->flags = MI_NOATTR;
	mi->ext = (uint32_t)ag->next;
	mi->nde = nr;
	for (k = 0; k < nr; k++)
		od_bmbt_rec_pack(&r[k], ag->ext[ag->next++].rec);
}

static void add_link(struct hm *h, uint64_t parent, uint64_t child)
{
	struct m_ag *ag = &h->ag[0];

	ag->link[ag->nlink].parent = parent;
	ag->link[ag->nlink].child = child;
	ag->nlink++;
}

static struct od_irec rec(const struct od_geo *g, uint32_t agno,
			  uint32_t agbno, uint32_t len, uint64_t off, bool unw)
{
	struct od_irec r = { off, od_agb_fsb(g, agno, agbno), len, unw };

	return r;
}

/*
 * 4 KiB blocks, 512-byte v5 inodes: a chunk is 8 blocks and a cluster 4
 * (16 KiB, 32 inodes).  The chunk at inode 128 (AG 0, block 16) holds:
 *
 *   /          128  shortform: b, a, c (readdir order; not by name or number)
 *   /b         130  2 blocks at 200
 *   /a         129  a block directory, its block at 100: x, y
 *   /a/x       160  second cluster (block 20); 1 block at 101
 *   /a/y       132  3 blocks at 102, right after x
 *   /c         131  1 block at AG 1 block 0, then an unwritten block
 */
static int build(struct hm *h)
{
	const struct od_geo *g;
	struct od_irec r[2];

	memset(h, 0, sizeof(*h));
	if (memfs_open(&h->mf, true, 12))
		return -1;
	g = h->mf.g;
	h->m.fs = h->mf.fs;
	h->m.agcount = 2;
	h->m.ag = h->ag;
	h->ag[0].agno = 0;
	h->ag[1].agno = 1;
	h->ag[0].ino = h->ino;
	h->ag[0].ext = h->ext;
	h->ag[0].link = h->link;
	h->ag[0].chunk = h->chunk;
	h->ag[0].nchunk = 1;
	h->chunk[0].startino = 128;
	h->chunk[0].count = 64;
	h->chunk[0].freecount = 59;
	add_ino(h, 128, 0040755, OD_FMT_LOCAL, NULL, 0);
	r[0] = rec(g, 0, 100, 1, 0, false);
	add_ino(h, 129, 0040755, OD_FMT_EXTENTS, r, 1);
	r[0] = rec(g, 0, 200, 2, 0, false);
	add_ino(h, 130, 0100644, OD_FMT_EXTENTS, r, 1);
	r[0] = rec(g, 1, 0, 1, 0, false);
	r[1] = rec(g, 1, 1, 1, 1, true);
	add_ino(h, 131, 0100644, OD_FMT_EXTENTS, r, 2);
	r[0] = rec(g, 0, 102, 3, 0, false);
	add_ino(h, 132, 0100644, OD_FMT_EXTENTS, r, 1);
	r[0] = rec(g, 0, 101, 1, 0, false);
	add_ino(h, 160, 0100644, OD_FMT_EXTENTS, r, 1);
	h->m.ninodes = h->ag[0].nino;
	/* the scan records each directory's entries together, in its order */
	add_link(h, 128, 130);
	add_link(h, 128, 129);
	add_link(h, 128, 131);
	add_link(h, 129, 160);
	add_link(h, 129, 132);
	return 0;
}

static void test_walk(struct t_state *ts, struct hm *h)
{
	static const uint64_t want[] = { 128, 130, 129, 160, 132, 131 };
	struct err e = { 0 };
	struct walk w;
	size_t i;

	T_CHECK(ts, walk_build(&h->m, WALK_READDIR, &w, &e) == 0);
	T_CHECK(ts, w.n == 6 && w.nreached == 6);
	for (i = 0; i < w.n && i < 6; i++)
		T_CHECK(ts, walk_inode(&w, w.seq[i], NULL)->ino == want[i]);
	walk_free(&w);
	T_CHECK(ts, walk_build(&h->m, WALK_INODE, &w, &e) == 0);
	for (i = 1; i < w.n; i++)
		T_CHECK(ts, walk_inode(&w, w.seq[i - 1], NULL)->ino <
			    walk_inode(&w, w.seq[i], NULL)->ino);
	walk_free(&w);
}

/*
 * Hard links across the root's entries, and a directory entered twice
 * (damage): the walk on threads cuts the root's entries into slices, and
 * must still visit each inode where one walk first meets it.
 *
 *   /          128  a, f, b, then (a second run of entries) g
 *   /a         129  x, y
 *   /f         130
 *   /b         131  x (a hard link), a (again), z
 *   /g         136  y, z (hard links), w
 */
static void test_walk_links(struct t_state *ts, struct hm *h)
{
	static const uint64_t want[] = { 128, 129, 132, 133, 130, 131, 134,
					 136, 135 };
	static const unsigned segs[] = { 2, 3, 4, 9 };
	struct err e = { 0 };
	struct walk w;
	size_t i, k;
	struct m_ag *ag = &h->ag[0];

	ag->nino = ag->next = ag->nlink = 0;
	add_ino(h, 128, 0040755, OD_FMT_LOCAL, NULL, 0);
	add_ino(h, 129, 0040755, OD_FMT_LOCAL, NULL, 0);
	add_ino(h, 130, 0100644, OD_FMT_EXTENTS, NULL, 0);
	add_ino(h, 131, 0040755, OD_FMT_LOCAL, NULL, 0);
	add_ino(h, 132, 0100644, OD_FMT_EXTENTS, NULL, 0);	/* x */
	add_ino(h, 133, 0100644, OD_FMT_EXTENTS, NULL, 0);	/* y */
	add_ino(h, 134, 0100644, OD_FMT_EXTENTS, NULL, 0);	/* z */
	add_ino(h, 135, 0100644, OD_FMT_EXTENTS, NULL, 0);	/* w */
	add_ino(h, 136, 0040755, OD_FMT_LOCAL, NULL, 0);	/* g */
	add_ino(h, 137, 0100644, OD_FMT_EXTENTS, NULL, 0);	/* unreached */
	h->m.ninodes = ag->nino;
	add_link(h, 128, 129);
	add_link(h, 128, 130);
	add_link(h, 128, 131);
	add_link(h, 129, 132);
	add_link(h, 129, 133);
	add_link(h, 131, 132);
	add_link(h, 131, 129);
	add_link(h, 131, 134);
	add_link(h, 128, 136);
	add_link(h, 136, 133);
	add_link(h, 136, 134);
	add_link(h, 136, 135);
	for (k = 0; k <= sizeof(segs) / sizeof(segs[0]); k++) {
		T_CHECK(ts, walk_build_segs(&h->m, WALK_READDIR,
					    k ? segs[k - 1] : 1, &w, &e) == 0);
		T_CHECK(ts, w.nreached == 9 && w.n == 10);
		for (i = 0; i < w.nreached && i < 9; i++)
			T_CHECK(ts, walk_inode(&w, w.seq[i], NULL)->ino ==
				    want[i]);
		T_CHECK(ts, walk_inode(&w, w.seq[9], NULL)->ino == 137);
		walk_free(&w);
	}
}

/* /b moved to AG 0 block 96, just before /a's directory block. */
static bool moved_b(void *priv, const struct m_ino *mi,
		    const struct od_irec **recs, uint32_t *n)
{
	static struct od_irec r;

	if (mi->ino != 130)
		return false;
	r = rec(priv, 0, 96, 2, 0, false);
	*recs = &r;
	*n = 1;
	return true;
}

static void test_model(struct t_state *ts, struct hm *h)
{
	const uint64_t B = 4096;
	struct err e = { 0 };
	struct rb_fig f;
	struct walk w;
	double t;

	T_CHECK(ts, h->mf.g->blocks_per_cluster == 4);
	T_CHECK(ts, walk_build(&h->m, WALK_READDIR, &w, &e) == 0);
	T_CHECK(ts, readback_model(&w, NULL, NULL, &f, &e) == 0);
	/*
	 * The drive reads on 1 MiB after each platter read (drive.h):
	 * 1 /        cluster 0, blocks 16-19: a cold drive, a seek from 0;
	 *            the drive holds blocks 16-275 after it
	 * 2 /b       block 200 (2): in the drive's cache
	 * 3 /a       block 100: in the cache (102 blocks back: a jump)
	 * 4 /a/x     cluster 1, blocks 20-23: where the head is, no seek
	 * 5          block 101: in the cache
	 * 6 /a/y     blocks 102-104: in the cache, the same SSD request
	 * 7 /c       AG 1 block 0 (linear 2048): far, a seek from block 24;
	 *            its unwritten block is not read
	 */
	T_CHECK(ts, f.dirs == 2 && f.files == 4 && f.clusters == 2);
	T_CHECK(ts, f.accesses == 7 && f.jumps == 6 && f.far_jumps == 1);
	T_CHECK(ts, f.requests == 6);
	T_CHECK(ts, f.bytes == 16 * B && f.data_bytes == 8 * B);
	T_CHECK(ts, f.out_of_order == 1);	/* /a after /b */
	T_CHECK(ts, f.hdd_seeks == 2 && f.hdd_hits == 4);
	t = seek_s(16 * B) + (double)(4 * B) / 150e6 +
	    (double)(2 * B + B) / 600e6 + (double)(4 * B) / 150e6 +
	    (double)(B + 3 * B) / 600e6 +
	    seek_s(2048 * B - 24 * B) + (double)B / 150e6;
	T_CHECK(ts, near(f.hdd_seconds, t));
	/* the metadata walk: cluster 0, /a's block (cached), cluster 1 */
	T_CHECK(ts, f.meta.accesses == 3 && f.meta.bytes == 9 * B);
	T_CHECK(ts, f.meta.requests == 3 && f.meta.seeks == 1 &&
		    f.meta.hits == 1);
	t = seek_s(16 * B) + (double)(4 * B) / 150e6 + (double)B / 600e6 +
	    (double)(4 * B) / 150e6;
	T_CHECK(ts, near(f.meta.hdd_seconds, t));

	/* a predicted layout: /b at block 96, also in the cache */
	T_CHECK(ts, readback_model(&w, moved_b, (void *)h->mf.g, &f, &e) == 0);
	T_CHECK(ts, f.jumps == 6 && f.far_jumps == 1 && f.out_of_order == 0);
	T_CHECK(ts, f.hdd_seeks == 2 && f.hdd_hits == 4);
	t = seek_s(16 * B) + (double)(4 * B) / 150e6 +
	    (double)(2 * B + B) / 600e6 + (double)(4 * B) / 150e6 +
	    (double)(B + 3 * B) / 600e6 +
	    seek_s(2048 * B - 24 * B) + (double)B / 150e6;
	T_CHECK(ts, near(f.hdd_seconds, t));
	walk_free(&w);
}

/*
 * A predicted layout for the fork callback: every third file of one
 * extent moved to AG 0, block 1000 + its inode number modulo 4096.  Read
 * only once built, as a plan is: the segments' threads call it at once.
 * wide: the moved extents 2^21 blocks long or more, longer than a
 * recorded access holds (the segments record them whole).
 */
struct moved {
	uint64_t *ino;
	struct od_irec *rec;
	size_t n;
};

static int moved_build(struct moved *mv, const struct model *m, bool wide)
{
	const struct od_geo *g = &m->fs->geo;
	uint32_t a;
	size_t k;

	memset(mv, 0, sizeof(*mv));
	for (a = 0; a < m->agcount; a++)
		mv->n += m->ag[a].nino;
	mv->ino = calloc(mv->n + 1, sizeof(*mv->ino));
	mv->rec = calloc(mv->n + 1, sizeof(*mv->rec));
	if (!mv->ino || !mv->rec)
		return -1;
	mv->n = 0;
	for (a = 0; a < m->agcount; a++)
		for (k = 0; k < m->ag[a].nino; k++) {
			const struct m_ino *mi = &m->ag[a].ino[k];
			struct od_irec *r = &mv->rec[mv->n];

			if (mi->ino % 3 || mi->nde != 1 || !od_mode_isreg(mi->mode))
				continue;
			m_ext_get(&m->ag[a].ext[mi->ext], r);
			r->startblock = od_agb_fsb(g, 0, 1000 + mi->ino % 4096);
			if (wide)
				r->blockcount = (1u << 21) + mi->ino % 5;
			mv->ino[mv->n++] = mi->ino;
		}
	return 0;
}

static bool moved_fork(void *priv, const struct m_ino *mi,
		       const struct od_irec **recs, uint32_t *n)
{
	const struct moved *mv = priv;
	size_t lo = 0, hi = mv->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mv->ino[mid] < mi->ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == mv->n || mv->ino[lo] != mi->ino)
		return false;
	*recs = &mv->rec[lo];
	*n = 1;
	return true;
}

/*
 * A real tree costed in segments, as the threads do it, gives exactly
 * the figures of one pass (hdd_seconds too, bit for bit): whatever the
 * segments, clusters an earlier segment read are not read again and the
 * first data access of a segment is compared with the one before.
 */
static void test_segments(struct t_state *ts, const char *name)
{
	static const enum walk_order orders[] = { WALK_READDIR, WALK_NAME,
						  WALK_INODE };
	static const unsigned segs[] = { 2, 3, 7, 64 };
	struct fixture fx;
	struct model *m;
	struct err e = { 0 };
	struct moved mv[2] = { { 0 } };
	size_t o, k, v;

	if (fixture_scan(&fx, "test_readback", name)) {
		T_CHECK(ts, !"fixture opens and scans");
		goto out;
	}
	m = fx.m;
	T_CHECK(ts, moved_build(&mv[0], m, false) == 0);
	T_CHECK(ts, moved_build(&mv[1], m, true) == 0);
	for (o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
		struct walk w, w2;

		T_CHECK(ts, walk_build_segs(m, orders[o], 1, &w, &e) == 0);
		T_CHECK(ts, w.nreached > 100);
		/* the walk on threads: the same order */
		for (k = 0; k < sizeof(segs) / sizeof(segs[0]); k++) {
			T_CHECK(ts, walk_build_segs(m, orders[o], segs[k], &w2,
						    &e) == 0);
			T_CHECK(ts, w2.n == w.n && w2.nreached == w.nreached &&
				    memcmp(w2.seq, w.seq,
					   w.n * sizeof(*w.seq)) == 0);
			walk_free(&w2);
		}
		for (v = 0; v < 3; v++) {
			rb_fork_fn fn = v ? moved_fork : NULL;
			struct moved *mp = &mv[v == 2];
			struct rb_fig one, f;

			T_CHECK(ts, readback_model_segs(&w, fn, mp, NULL, 1,
							&one, &e) == 0);
			T_CHECK(ts, one.files > 100 && one.jumps > 10 &&
				    one.out_of_order > 0);
			for (k = 0; k < sizeof(segs) / sizeof(segs[0]); k++) {
				memset(&f, 0xa5, sizeof(f));
				T_CHECK(ts, readback_model_segs(&w, fn, mp,
						NULL, segs[k], &f, &e) == 0);
				T_CHECK(ts, memcmp(&f, &one, sizeof(f)) == 0);
			}
		}
		walk_free(&w);
	}
out:
	for (v = 0; v < 2; v++) {
		free(mv[v].ino);
		free(mv[v].rec);
	}
	fixture_close(&fx);
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	struct hm h;

	test_acc(&ts);
	if (build(&h) == 0) {
		test_walk(&ts, &h);
		test_model(&ts, &h);
		test_walk_links(&ts, &h);
		memfs_close(&h.mf);
	} else {
		T_CHECK(&ts, !"memfs");
	}
	test_segments(&ts, "aged");
	test_segments(&ts, "dirs");
	return t_done(&ts, "test_readback");
}
