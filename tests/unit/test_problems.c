/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's problem table (core/check/problems.h): every code has a
 * unique number inside its structure's group, a unique short name made
 * of lowercase words and dashes, a structure and a format; lookups find
 * each one and nothing else.  The numbers are the stable interface of
 * `check --json`, so a few are pinned here: changing one breaks users.
 */
#include "t.h"
#include "core/check/problems.h"

#include <ctype.h>
#include <string.h>

static int name_ok(const char *n)
{
	size_t i, len = strlen(n);

	if (len == 0 || n[0] == '-' || n[len - 1] == '-')
		return 0;
	for (i = 0; i < len; i++)
		if (!islower((unsigned char)n[i]) && !isdigit((unsigned char)n[i]) &&
		    n[i] != '-')
			return 0;
	return 1;
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	const struct check_problem_info *t, *p;
	unsigned n, i, j;

	t = check_problem_table(&n);
	T_CHECK(&ts, n > 50);
	for (i = 0; i < n; i++) {
		unsigned group = (unsigned)t[i].code >> 8;

		T_CHECK(&ts, group >= 1 && group <= 0x0f);
		T_CHECK(&ts, ((unsigned)t[i].code & 0xff) != 0);
		T_CHECK(&ts, name_ok(t[i].name));
		T_CHECK(&ts, t[i].structure && *t[i].structure);
		T_CHECK(&ts, t[i].fmt && strchr(t[i].fmt, '%'));
		p = check_problem_lookup(t[i].code);
		T_CHECK(&ts, p == &t[i]);
		for (j = 0; j < i; j++) {
			T_CHECK(&ts, t[j].code != t[i].code);
			T_CHECK(&ts, strcmp(t[j].name, t[i].name) != 0);
		}
		/* numbers ascend within the table: one place per group */
		if (i)
			T_CHECK(&ts, t[i - 1].code < t[i].code);
	}
	T_CHECK(&ts, check_problem_lookup((enum check_code)0) == NULL);
	T_CHECK(&ts, check_problem_lookup((enum check_code)0xffff) == NULL);
	/* pinned: documented in xfsdefrag(8) and matched by scripts */
	T_CHECK(&ts, PR_AGF_FREEBLKS == 0x0202 &&
		!strcmp(check_problem_lookup(PR_AGF_FREEBLKS)->name,
			"agf-freeblks"));
	T_CHECK(&ts, PR_SB_FDBLOCKS == 0x0e03);
	T_CHECK(&ts, PR_DIR_HASH == 0x0808);
	return t_done(&ts, "test_problems");
}
