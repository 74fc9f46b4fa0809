/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e && e->code == 0) {
		e->code = code;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

void err_clear(struct err *e)
{
	e->code = 0;
	e->msg[0] = '\0';
}

int err_from_od(enum od_err oe)
{
	return oe == OD_ECRC ? -EFSBADCRC : -EFSCORRUPTED;
}

int err_od(struct err *e, enum od_err oe, const char *field, const char *what)
{
	switch (oe) {
	case OD_OK:
		return 0;
	case OD_ECRC:
		return err_set(e, -EFSBADCRC, "%s: bad crc", what);
	case OD_EMAGIC:
		return err_set(e, -EFSCORRUPTED, "%s: bad magic number", what);
	case OD_ESHORT:
		return err_set(e, -EFSCORRUPTED, "%s: truncated%s%s", what,
			       field ? " at " : "", field ? field : "");
	case OD_EFIELD:
		break;
	}
	return err_set(e, -EFSCORRUPTED, "%s: bad %s", what,
		       field ? field : "field");
}
