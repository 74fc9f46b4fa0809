/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tiny assertion harness for the unit tests: count, report, exit. */
#ifndef TESTS_T_H
#define TESTS_T_H

#include <stdio.h>
#include <stdlib.h>

struct t_state {
	int run, failed;
};

#define T_CHECK(ts, cond) do {						\
	(ts)->run++;							\
	if (!(cond)) {							\
		(ts)->failed++;						\
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,	\
			__LINE__, #cond);				\
	}								\
} while (0)

static inline int t_done(const struct t_state *ts, const char *name)
{
	printf("%s: %d checks, %d failed\n", name, ts->run, ts->failed);
	return ts->failed ? 1 : 0;
}

#endif
