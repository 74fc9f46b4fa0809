/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading ahead (core/model/ahead.c): ahead_merge against a bitmap of
 * the bytes the ranges cover (random ranges, and the cases by hand: a
 * directory's blocks out of file order, overlaps, gaps kept), and
 * ahead_fork's byte count with the below and max limits, in and past a
 * batch.
 */
#include "t.h"
#include "memfs.h"
#include "core/model/ahead.h"
#include "ondisk/bmbt.h"

#include <string.h>

#define UNITS	200		/* the random ranges' space, in units */

/* out[0..m) must cover exactly what in[0..n) covers, in order, apart. */
static void check_merged(struct t_state *ts, const struct ahead_span *in,
			 unsigned n, const struct ahead_span *out, unsigned m)
{
	bool want[UNITS] = { false }, got[UNITS] = { false };
	unsigned i;
	uint64_t u;

	for (i = 0; i < n; i++)
		for (u = in[i].off; u < in[i].off + in[i].len; u++)
			want[u] = true;
	for (i = 0; i < m; i++) {
		T_CHECK(ts, out[i].len > 0);
		/* sorted, and a hole between neighbours */
		if (i)
			T_CHECK(ts, out[i].off > out[i - 1].off +
					out[i - 1].len);
		for (u = out[i].off; u < out[i].off + out[i].len; u++)
			got[u] = true;
	}
	T_CHECK(ts, memcmp(want, got, sizeof(want)) == 0);
}

static void test_merge(struct t_state *ts)
{
	/* one of bench/mkbig.sh's directories: file blocks 0-10 at disk
	 * blocks 15 13 12 10 82 84 14 80-81 83 11 */
	static const uint64_t dir[][2] = {
		{ 15, 1 }, { 13, 1 }, { 12, 1 }, { 10, 1 }, { 82, 1 },
		{ 84, 1 }, { 14, 1 }, { 80, 2 }, { 83, 1 }, { 11, 1 },
	};
	struct ahead_span v[64], in[64];
	struct memfs_rng r = { 0x2545f4914f6cdd1dull };
	unsigned i, n, m, round;

	T_CHECK(ts, ahead_merge(v, 0) == 0);
	v[0].off = 7;
	v[0].len = 3;
	T_CHECK(ts, ahead_merge(v, 1) == 1 && v[0].off == 7 &&
		    v[0].len == 3);

	for (i = 0; i < 10; i++) {
		v[i].off = dir[i][0];
		v[i].len = dir[i][1];
	}
	m = ahead_merge(v, 10);
	T_CHECK(ts, m == 2);
	T_CHECK(ts, v[0].off == 10 && v[0].len == 6);
	T_CHECK(ts, v[1].off == 80 && v[1].len == 5);

	/* overlapping, contained, repeated; a one-unit hole stays */
	v[0] = (struct ahead_span){ 20, 10 };
	v[1] = (struct ahead_span){ 22, 3 };
	v[2] = (struct ahead_span){ 25, 10 };
	v[3] = (struct ahead_span){ 20, 10 };
	v[4] = (struct ahead_span){ 36, 1 };
	m = ahead_merge(v, 5);
	T_CHECK(ts, m == 2);
	T_CHECK(ts, v[0].off == 20 && v[0].len == 15);
	T_CHECK(ts, v[1].off == 36 && v[1].len == 1);

	for (round = 0; round < 2000; round++) {
		n = 1 + (unsigned)(memfs_rnd(&r) % 64);
		for (i = 0; i < n; i++) {
			in[i].len = 1 + memfs_rnd(&r) % (round % 3 ? 4 : 20);
			in[i].off = memfs_rnd(&r) % (UNITS - in[i].len);
		}
		memcpy(v, in, n * sizeof(*v));
		m = ahead_merge(v, n);
		T_CHECK(ts, m >= 1 && m <= n);
		check_merged(ts, in, n, v, m);
	}
}

/* Fork records: file block i at fs block blocks[i], one block each. */
static void fork_of(struct m_ext *x, const uint64_t *blocks, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		struct od_irec ir = { i, blocks[i], 1, false };

		od_bmbt_rec_pack(&ir, x[i].rec);
	}
}

static void test_fork(struct t_state *ts)
{
	static const uint64_t blocks[] = { 15, 13, 12, 10, 82, 84, 14, 80,
					   81, 83, 11 };
	struct m_ext x[200];
	uint64_t many[200];
	struct memfs tf;
	uint64_t bs;
	unsigned i;

	if (memfs_open(&tf, true, 12)) {
		T_CHECK(ts, !"memfs_open");
		return;
	}
	bs = 1ull << tf.g->blocklog;
	fork_of(x, blocks, 11);
	T_CHECK(ts, ahead_fork(tf.fs, x, 11, UINT64_MAX, UINT64_MAX) ==
		    11 * bs);
	/* file blocks below 4 only */
	T_CHECK(ts, ahead_fork(tf.fs, x, 11, 4, UINT64_MAX) == 4 * bs);
	/* at most 5 blocks' bytes, and at most half a block */
	T_CHECK(ts, ahead_fork(tf.fs, x, 11, UINT64_MAX, 5 * bs) == 5 * bs);
	T_CHECK(ts, ahead_fork(tf.fs, x, 11, UINT64_MAX, bs / 2) == bs / 2);
	/* a block past the filesystem is not announced */
	{
		static const uint64_t bad[] = { 10, 1ull << 40, 11 };

		fork_of(x, bad, 3);
		T_CHECK(ts, ahead_fork(tf.fs, x, 3, UINT64_MAX, UINT64_MAX) ==
			    2 * bs);
	}
	/* more records than a batch, every other block: all announced */
	for (i = 0; i < 200; i++)
		many[i] = 100 + 2 * (uint64_t)(199 - i);
	fork_of(x, many, 200);
	T_CHECK(ts, ahead_fork(tf.fs, x, 200, UINT64_MAX, UINT64_MAX) ==
		    200 * bs);
	T_CHECK(ts, ahead_fork(tf.fs, x, 200, UINT64_MAX, 150 * bs) ==
		    150 * bs);
	memfs_close(&tf);
}

int main(void)
{
	struct t_state ts = { 0, 0 };

	test_merge(&ts);
	test_fork(&ts);
	return t_done(&ts, "test_ahead");
}
