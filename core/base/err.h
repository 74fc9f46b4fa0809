/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Error reporting for core: functions return 0 or a negative errno and
 * leave a message naming the structure and where it is in a struct err
 * that the caller owns (one per thread).  Front ends print err->msg.
 */
#ifndef CORE_ERR_H
#define CORE_ERR_H

#include <errno.h>

#include "ondisk/err.h"

/* The kernel's names for corruption (xfs_linux.h). */
#ifndef EFSCORRUPTED
#define EFSCORRUPTED	EUCLEAN
#endif
#ifndef EFSBADCRC
#define EFSBADCRC	EBADMSG
#endif

struct err {
	int code;		/* negative errno, 0 when clear */
	char msg[512];
};

/* Record an error (first one wins) and return code, which must be < 0. */
int err_set(struct err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void err_clear(struct err *e);
/* Map a decoder result to an errno: ECRC -> EFSBADCRC, others -> EFSCORRUPTED. */
int err_from_od(enum od_err oe);
/*
 * Report an ondisk decoder failure: "WHAT: bad crc" or "WHAT: bad FIELD".
 * what is already formatted by the caller ("agf 3 (daddr 0x...)").
 */
int err_od(struct err *e, enum od_err oe, const char *field, const char *what);

#endif
