/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checker's problem logs: one per AG (one writer at a time) and one
 * for the whole filesystem; messages kept up to a limit, all counted. */
#include "core/check/check_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void check_problem(struct check_log *l, const char *fmt, ...)
{
	char msg[512];
	size_t n;
	va_list ap;

	l->count++;
	if (l->count > CHECK_LOG_KEEP)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = strlen(msg) + 1;
	if (l->len + n > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		char *b;

		while (cap < l->len + n)
			cap *= 2;
		b = realloc(l->buf, cap);
		if (!b)
			return;		/* counted, not kept */
		l->buf = b;
		l->cap = cap;
	}
	memcpy(l->buf + l->len, msg, n);
	l->len += n;
}

void check_log_free(struct check_log *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}
