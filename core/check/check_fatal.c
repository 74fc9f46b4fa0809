/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The first fatal error of a check (out of memory, an unreadable image),
 * kept from whichever thread meets it first; every phase stops on it.
 * A leaf: the phases call it, it calls nothing of theirs.
 */
#include "core/check/check_int.h"

void check_fatal(struct check_ctx *c, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&c->fatal, &zero, err, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
