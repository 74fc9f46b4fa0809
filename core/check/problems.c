/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of the checker's problem codes (problems.h). */
#include "core/check/problems.h"

#include <stddef.h>

static const struct check_problem_info table[] = {
#define CHECK_PROBLEM_ROW(code, num, name, what) \
	{ PR_##code, name, what, PRF_##code },
	CHECK_PROBLEMS(CHECK_PROBLEM_ROW)
#undef CHECK_PROBLEM_ROW
};

const struct check_problem_info *check_problem_table(unsigned *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct check_problem_info *check_problem_lookup(enum check_code code)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].code == code)
			return &table[i];
	return NULL;
}
