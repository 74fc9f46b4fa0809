/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Order statistics (core/base/select.h) against sorting: every rank of
 * small unions, and the report's percentiles of large ones, over values
 * spread wide, bunched in one bucket, all equal, and at the top of the
 * range; the four-byte variant over the same values where they fit.
 */
#include "core/base/select.h"
#include "core/base/sort.h"
#include "tests/unit/t.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* kind 0: wide; 1: bunched in a narrow range; 2: equal; 3: near 2^64 */
static uint64_t value(uint64_t *s, int kind)
{
	switch (kind) {
	case 0: return rnd(s) % 5000000;
	case 1: return 1000000 + rnd(s) % 37;
	case 2: return 42;
	default: return UINT64_MAX - rnd(s) % 1000;
	}
}

static void check(struct t_state *ts, size_t n, unsigned narr, int kind,
		  uint64_t seed, bool every)
{
	static const unsigned pct[] = { 50, 90, 99, 100 };
	uint64_t *arr[4], *all, got[8], want, s = seed;
	uint32_t *arr32[4];
	size_t len[4], total = 0, i, at = 0;
	unsigned a, k;

	for (a = 0; a < narr; a++) {
		len[a] = n / narr + (a == 0 ? n % narr : 0);
		arr[a] = malloc((len[a] ? len[a] : 1) * sizeof(**arr));
		for (i = 0; i < len[a]; i++)
			arr[a][i] = value(&s, kind);
		total += len[a];
	}
	all = malloc((total ? total : 1) * sizeof(*all));
	for (a = 0; a < narr; a++) {
		memcpy(all + at, arr[a], len[a] * sizeof(*all));
		at += len[a];
	}
	T_CHECK(ts, sort_u64(all, total) == 0);
	T_CHECK(ts, select_pct_u64((const uint64_t *const *)arr, len, narr,
				   pct, 4, got) == 0);
	for (k = 0; k < 4; k++) {
		uint64_t r = (total * pct[k] + 99) / 100;

		want = total ? all[(r ? r : 1) - 1] : 0;
		T_CHECK(ts, got[k] == want);
	}
	for (i = 1; every && i <= total; i++) {
		uint64_t ks[2] = { i, total + 1 - i };

		T_CHECK(ts, select_u64((const uint64_t *const *)arr, len, narr,
				       ks, 2, got) == 0);
		T_CHECK(ts, got[0] == all[i - 1] && got[1] == all[total - i]);
	}
	for (a = 0; kind < 3 && a < narr; a++) {
		arr32[a] = malloc((len[a] ? len[a] : 1) * sizeof(**arr32));
		for (i = 0; i < len[a]; i++)
			arr32[a][i] = (uint32_t)arr[a][i];
	}
	if (kind < 3) {
		T_CHECK(ts, select_pct_u32((const uint32_t *const *)arr32, len,
					   narr, pct, 4, got) == 0);
		for (k = 0; k < 4; k++) {
			uint64_t r = (total * pct[k] + 99) / 100;

			want = total ? all[(r ? r : 1) - 1] : 0;
			T_CHECK(ts, got[k] == want);
		}
	}
	for (i = 1; kind < 3 && every && i <= total; i++) {
		uint64_t ks[2] = { i, total + 1 - i };

		T_CHECK(ts, select_u32((const uint32_t *const *)arr32, len,
				       narr, ks, 2, got) == 0);
		T_CHECK(ts, got[0] == all[i - 1] && got[1] == all[total - i]);
	}
	for (a = 0; kind < 3 && a < narr; a++)
		free(arr32[a]);
	for (a = 0; a < narr; a++)
		free(arr[a]);
	free(all);
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	int kind;

	for (kind = 0; kind < 4; kind++) {
		check(&ts, 0, 1, kind, 1, true);
		check(&ts, 1, 1, kind, 2, true);
		check(&ts, 7, 3, kind, 3, true);
		check(&ts, 300, 4, kind, 4, true);
		check(&ts, 200000, 4, kind, 5, false);
		check(&ts, 99999, 1, kind, 6, false);
	}
	return t_done(&ts, "test_select");
}
