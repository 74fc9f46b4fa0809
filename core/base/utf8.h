/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names on disk are bytes: the front ends print them escaped (a control
 * character or invalid UTF-8 as \xNN), so a file name cannot drive a
 * terminal or break a document.  This says which bytes pass as they are.
 */
#ifndef CORE_UTF8_H
#define CORE_UTF8_H

#include <stddef.h>

/*
 * Length of the valid UTF-8 sequence at s (1 for ASCII, control
 * characters included), or 0 when it is invalid or a C1 control.
 * s is NUL-terminated: a sequence cut short is invalid.
 */
size_t utf8_seq_len(const unsigned char *s);

#endif
