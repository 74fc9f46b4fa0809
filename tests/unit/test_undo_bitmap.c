/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the undo journal's sparse bitmaps (undo_map.c) against a
 * plain array of bools: random runs set (short ones, whole chunks, runs
 * across chunk ends), single bits cleared (also inside a chunk held as
 * the shared all-set chunk), then every bit, every word, bm_next from
 * every position near a boundary and the chunk states compared.  The
 * size is not a multiple of 64, so the last word is partial.
 */
#include "t.h"
#include "core/undo/undo_priv.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define NBITS	(5 * BM_CHUNK_BITS + 1000)

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t naive_next(const bool *v, uint64_t bit)
{
	while (bit < NBITS && !v[bit])
		bit++;
	return bit < NBITS ? bit : NBITS;
}

static void compare(struct t_state *ts, const struct bitmap *bm, const bool *v)
{
	uint64_t b, w, bad = 0, badw = 0, badn = 0, bads = 0;

	for (b = 0; b < NBITS; b++)
		bad += bm_test(bm, b) != v[b];
	for (w = 0; w * 64 < NBITS + 64; w++) {
		uint64_t want = 0, k;

		for (k = 0; k < 64; k++)
			if (w * 64 + k < NBITS && v[w * 64 + k])
				want |= 1ull << k;
		badw += bm_word(bm, w) != want;
	}
	/* bm_next from around every chunk and word boundary, and at random */
	for (b = 0; b < NBITS; b += b % BM_CHUNK_BITS < 130 ? 1 : 997)
		badn += bm_next(bm, b) != naive_next(v, b);
	badn += bm_next(bm, NBITS) != NBITS;
	for (b = 0; b < NBITS; b += BM_CHUNK_BITS) {
		uint64_t k, n = NBITS - b < BM_CHUNK_BITS ? NBITS - b :
			       BM_CHUNK_BITS, set = 0;
		int st = bm_chunk_state(bm, b);

		for (k = 0; k < n; k++)
			set += v[b + k];
		/* 0 and 1 are promises; -1 may be said of anything */
		if ((st == 0 && set) || (st == 1 && set != BM_CHUNK_BITS))
			bads++;
	}
	T_CHECK(ts, bad == 0);
	T_CHECK(ts, badw == 0);
	T_CHECK(ts, badn == 0);
	T_CHECK(ts, bads == 0);
}

int main(void)
{
	static bool v[NBITS];
	struct t_state ts = { 0 };
	struct bitmap bm;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int round, i;

	T_CHECK(&ts, bm_init(&bm, NBITS) == 0);
	compare(&ts, &bm, v);
	T_CHECK(&ts, bm_chunk_state(&bm, 0) == 0);

	/* a whole chunk set at once is the shared one; clearing copies it */
	T_CHECK(&ts, bm_set(&bm, BM_CHUNK_BITS, BM_CHUNK_BITS) == 0);
	for (i = 0; i < (int)BM_CHUNK_BITS; i++)
		v[BM_CHUNK_BITS + i] = true;
	T_CHECK(&ts, bm_chunk_state(&bm, BM_CHUNK_BITS) == 1);
	compare(&ts, &bm, v);
	T_CHECK(&ts, bm_clear(&bm, BM_CHUNK_BITS + 77) == 0);
	v[BM_CHUNK_BITS + 77] = false;
	T_CHECK(&ts, bm_chunk_state(&bm, BM_CHUNK_BITS) == -1);
	compare(&ts, &bm, v);
	/* a run over three chunks, the middle one whole */
	T_CHECK(&ts, bm_set(&bm, 3 * BM_CHUNK_BITS - 5,
			    BM_CHUNK_BITS + 10) == 0);
	for (i = 0; i < (int)BM_CHUNK_BITS + 10; i++)
		v[3 * BM_CHUNK_BITS - 5 + i] = true;
	T_CHECK(&ts, bm_chunk_state(&bm, 3 * BM_CHUNK_BITS) == 1);
	compare(&ts, &bm, v);
	/* setting bits inside an all-set chunk keeps it shared */
	T_CHECK(&ts, bm_set(&bm, 3 * BM_CHUNK_BITS + 9, 3) == 0);
	T_CHECK(&ts, bm_chunk_state(&bm, 3 * BM_CHUNK_BITS) == 1);
	/* the partial last chunk, to its very last bit */
	T_CHECK(&ts, bm_set(&bm, NBITS - 70, 70) == 0);
	for (i = 0; i < 70; i++)
		v[NBITS - 70 + i] = true;
	compare(&ts, &bm, v);

	for (round = 0; round < 40; round++) {
		uint64_t at = rnd(&seed) % NBITS, n;

		switch (rnd(&seed) % 4) {
		case 0:		/* short */
			n = 1 + rnd(&seed) % 200;
			break;
		case 1:		/* whole chunks, aligned */
			at &= ~(BM_CHUNK_BITS - 1);
			n = BM_CHUNK_BITS * (1 + rnd(&seed) % 2);
			break;
		default:	/* long, anywhere */
			n = 1 + rnd(&seed) % (2 * BM_CHUNK_BITS);
			break;
		}
		if (n > NBITS - at)
			n = NBITS - at;
		T_CHECK(&ts, bm_set(&bm, at, n) == 0);
		while (n--)
			v[at++] = true;
		for (i = 0; i < 50; i++) {
			uint64_t c = rnd(&seed) % NBITS;

			T_CHECK(&ts, bm_clear(&bm, c) == 0);
			v[c] = false;
		}
		if (round % 8 == 7)
			compare(&ts, &bm, v);
	}
	compare(&ts, &bm, v);
	bm_free(&bm);
	return t_done(&ts, "test_undo_bitmap");
}
