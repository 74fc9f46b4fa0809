/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's problem log (core/check/check_log.c): check_log_splice,
 * which puts the findings of directory entries judged late back where
 * they belong (check_pipe.c), against a log that got every message in
 * order: the same messages kept, byte for byte, and the same count, for
 * logs shorter and longer than CHECK_LOG_KEEP, with none, one or two
 * messages put at a place, and places at the start, in a row and at the
 * end.
 */
#include "t.h"
#include "memfs.h"
#include "core/check/check_int.h"

#include <string.h>

/* One message of the sequence: a number that says which. */
static void add(struct check_log *l, uint64_t id)
{
	check_problem(l, DIR_DOT, (unsigned long long)id, 0ull);
}

struct late {
	const uint32_t *nmsg;	/* messages each place puts */
	const uint64_t *first;	/* their first id */
};

static void emit(void *priv, size_t i, struct check_log *out)
{
	const struct late *lt = priv;
	uint32_t k;

	for (k = 0; k < lt->nmsg[i]; k++)
		add(out, lt->first[i] + k);
}

static int same(const struct check_log *a, const struct check_log *b)
{
	return a->count == b->count && a->len == b->len &&
	       (a->len == 0 || memcmp(a->buf, b->buf, a->len) == 0);
}

int main(void)
{
	static const unsigned sizes[] = { 0, 1, 3, 40, 1999, 2000, 2001, 2600 };
	struct t_state ts = { 0, 0 };
	struct memfs_rng r = { 0x9e3779b97f4a7c15ull };
	unsigned si, round;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (round = 0; round < 12; round++) {
			unsigned n = sizes[si], nlate = 0, i;
			uint64_t at[64], first[64], id = 1, pos = 0;
			uint32_t nmsg[64];
			struct check_log l = { 0 }, ref = { 0 };
			struct late lt = { nmsg, first };

			/* the places, in order: some at 0, some at n, some
			 * together */
			nlate = 1 + (unsigned)(memfs_rnd(&r) % 63);
			for (i = 0; i < nlate; i++) {
				uint64_t p = round % 4 == 0 ? 0 :
					     round % 4 == 1 ? n :
					     memfs_rnd(&r) % (n + 1);

				at[i] = p;
				nmsg[i] = (uint32_t)(memfs_rnd(&r) % 3);
			}
			/* sort the places */
			for (i = 1; i < nlate; i++) {
				unsigned j = i;

				while (j && at[j - 1] > at[j]) {
					uint64_t t = at[j];
					uint32_t m = nmsg[j];

					at[j] = at[j - 1];
					nmsg[j] = nmsg[j - 1];
					at[j - 1] = t;
					nmsg[j - 1] = m;
					j--;
				}
			}
			/* the whole sequence in order into ref; the early
			 * messages alone into l */
			for (i = 0; i <= nlate; i++) {
				uint64_t upto = i < nlate ? at[i] : n;
				uint32_t k;

				for (; pos < upto; pos++) {
					add(&ref, 100000 + pos);
					add(&l, 100000 + pos);
				}
				if (i == nlate)
					break;
				first[i] = id;
				for (k = 0; k < nmsg[i]; k++)
					add(&ref, id++);
			}
			check_log_splice(&l, nlate, at, emit, &lt);
			T_CHECK(&ts, same(&l, &ref));
			check_log_free(&l);
			check_log_free(&ref);
		}
	}
	return t_done(&ts, "test_checklog");
}
