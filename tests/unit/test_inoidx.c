/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The direct indexes (core/model/inoidx.h) against the searches they
 * replace, on every inode number of two small AGs: inoidx against
 * model_find over models dense, sparse, spread one inode a slot, empty,
 * and damaged (out of order, duplicated, another AG's inode); chunkidx
 * against a binary search over chunk starts aligned, unaligned,
 * overlapping and repeated.
 */
#include "core/model/inoidx.h"
#include "ondisk/inode.h"
#include "tests/unit/memfs.h"
#include "tests/unit/t.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define NAG 2

struct tm {
	struct memfs mf;
	struct model m;
	struct m_ag ag[NAG];
	uint32_t aginos;	/* inode numbers an AG has room for */
};

/* Each AG's inodes: agino kept with probability keep / 1000 (density
 * kind 0: all of some chunks; 1: scattered; 2: one an aligned slot). */
static void fill(struct tm *t, uint64_t *s, int kind)
{
	const struct od_geo *g = t->mf.g;
	uint32_t a, agino;

	for (a = 0; a < NAG; a++) {
		struct m_ag *ag = &t->ag[a];

		ag->nino = 0;
		for (agino = 0; agino < t->aginos; agino++) {
			bool keep;

			switch (kind) {
			case 0: keep = ((agino >> 6) * 7 + a) % 5 == 0 &&
				       rnd(s) % 10; break;
			case 1: keep = rnd(s) % 100 < 3; break;
			default: keep = (agino & 63) == (rnd(s) & 63) &&
					((agino >> 6) & 1); break;
			}
			if (!keep)
				continue;
			memset(&ag->ino[ag->nino], 0, sizeof(ag->ino[0]));
			ag->ino[ag->nino].ino = od_agino_ino(g, a, agino);
			ag->ino[ag->nino].mode = rnd(s) % 4 ? 0100644 : 0040755;
			ag->nino++;
		}
	}
}

/* Every inode number of both AGs, and some past them, both ways. */
static void compare(struct t_state *ts, struct tm *t, const char *what)
{
	const struct od_geo *g = t->mf.g;
	struct inoidx x;
	struct inoidx_ag xa[NAG];
	struct inoidx_cur cur = { 0 };
	struct err e;
	uint64_t ino, bad = 0;
	uint32_t a, agino;

	T_CHECK(ts, inoidx_build(&t->m, &x, &e) == 0);
	for (a = 0; a < NAG; a++)
		T_CHECK(ts, inoidx_ag_build(&t->m, a, &xa[a]) == 0);
	for (a = 0; a < NAG + 1; a++) {
		for (agino = 0; agino < t->aginos; agino++) {
			const struct m_ag *ga = NULL, *gb = NULL;
			const struct m_ino *want, *got;
			uint32_t agno = 99, k = 0;
			bool dir = false, found;

			ino = od_agino_ino(g, a, agino);
			want = model_find(&t->m, ino, &ga);
			got = inoidx_find(&x, ino, &gb);
			found = inoidx_locate(&x, agino & 1 ? &cur : NULL, ino,
					      &agno, &k, &dir);
			/* one AG's index alone, as the checker's */
			if (a < NAG &&
			    (inoidx_ag_find(&t->m, a, &xa[a], ino) != want ||
			     inoidx_ag_find(&t->m, !a, &xa[!a], ino)))
				bad++;
			if (got != want || (want && ga != gb) ||
			    found != (want != NULL) ||
			    (want && (agno != a || &t->ag[a].ino[k] != want ||
				      dir != od_mode_isdir(want->mode))))
				bad++;
		}
	}
	if (bad)
		fprintf(stderr, "%s: %llu inode numbers answered otherwise\n",
			what, (unsigned long long)bad);
	T_CHECK(ts, bad == 0);
	inoidx_free(&x);
	for (a = 0; a < NAG; a++)
		inoidx_ag_free(&xa[a]);
}

static void test_inoidx(struct t_state *ts)
{
	struct tm *t = calloc(1, sizeof(*t));
	uint64_t s = 88172645463325252ull;
	uint32_t a;
	int kind;

	T_CHECK(ts, memfs_open(&t->mf, true, 12) == 0);
	t->aginos = t->mf.g->agblocks << t->mf.g->inopblog;
	t->m.fs = t->mf.fs;
	t->m.agcount = NAG;
	t->m.ag = t->ag;
	for (a = 0; a < NAG; a++) {
		t->ag[a].agno = a;
		t->ag[a].ino = calloc(t->aginos, sizeof(struct m_ino));
	}
	for (kind = 0; kind < 3; kind++) {
		fill(t, &s, kind);
		T_CHECK(ts, t->ag[0].nino > 10 && t->ag[1].nino > 10);
		compare(ts, t, "sorted");
	}
	/* damaged models: AG 0 out of order, then a duplicate, then an
	 * inode of AG 1 in AG 0's array; AG 1 stays indexed */
	fill(t, &s, 1);
	{
		struct m_ino tmp = t->ag[0].ino[3];

		t->ag[0].ino[3] = t->ag[0].ino[4];
		t->ag[0].ino[4] = tmp;
		compare(ts, t, "out of order");
		t->ag[0].ino[4] = t->ag[0].ino[3];
		compare(ts, t, "duplicate");
		t->ag[0].ino[4] = tmp;
		t->ag[0].ino[t->ag[0].nino - 1].ino =
			od_agino_ino(t->mf.g, 1, 5);
		compare(ts, t, "foreign");
	}
	t->ag[0].nino = 0;
	compare(ts, t, "empty AG");
	for (a = 0; a < NAG; a++)
		free(t->ag[a].ino);
	memfs_close(&t->mf);
	free(t);
}

/* ---- chunkidx ---- */

/* The binary search readback did: true and the chunk, as chunkidx_find. */
static bool search(const uint32_t *start, size_t n, uint32_t agino, size_t *k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (start[mid] <= agino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || agino >= (uint64_t)start[lo - 1] + 64)
		return false;
	*k = lo - 1;
	return true;
}

static void check_chunks(struct t_state *ts, const uint32_t *start, size_t n,
			 const char *what)
{
	struct chunkidx x;
	uint32_t agino, top = n ? start[n - 1] + 200 : 300;
	uint64_t bad = 0;

	T_CHECK(ts, chunkidx_build(&x, start, n) == 0);
	for (agino = 0; agino < top; agino++) {
		size_t kw = 0, kg = 0;
		bool want = search(start, n, agino, &kw);
		bool got = chunkidx_find(&x, agino, &kg);

		if (want != got || (want && kw != kg))
			bad++;
	}
	if (bad)
		fprintf(stderr, "%s: %llu aginos answered otherwise\n", what,
			(unsigned long long)bad);
	T_CHECK(ts, bad == 0);
	chunkidx_free(&x);
}

static void test_chunkidx(struct t_state *ts)
{
	static uint32_t start[4096];
	uint64_t s = 2463534242ull;
	uint32_t at;
	size_t n;
	int kind;

	check_chunks(ts, start, 0, "none");
	/* aligned, unaligned (a block of 8 inodes), overlapping, repeated */
	for (kind = 0; kind < 4; kind++) {
		n = 0;
		at = (uint32_t)(rnd(&s) % 3) * 8;
		while (n < sizeof(start) / sizeof(start[0]) && at < 400000) {
			start[n++] = at;
			switch (kind) {
			case 0: at += 64 * (1 + (uint32_t)(rnd(&s) % 4)); break;
			case 1: at += 64 + 8 * (uint32_t)(rnd(&s) % 20); break;
			case 2: at += 8 * (1 + (uint32_t)(rnd(&s) % 12)); break;
			default: at += rnd(&s) % 3 ? 0 : 64; break;
			}
		}
		check_chunks(ts, start, n, kind == 0 ? "aligned" :
			     kind == 1 ? "unaligned" : kind == 2 ? "overlapping" :
			     "repeated");
	}
}

int main(void)
{
	struct t_state ts = { 0, 0 };

	test_inoidx(&ts);
	test_chunkidx(&ts);
	return t_done(&ts, "test_inoidx");
}
