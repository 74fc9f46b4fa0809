/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What plan --shrink and shrink share: the size argument, the lines. */
#ifndef CMD_SHRINKFMT_H
#define CMD_SHRINKFMT_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/json.h"
#include "core/relocate/plan.h"

/*
 * A size: bytes, or with a suffix K, M, G, T or P (powers of 1024, also
 * KiB, MiB...), case-insensitive; "min" sets *min.  0, or -1 when s is
 * neither.
 */
int shrinkfmt_parse(const char *s, uint64_t *bytes, bool *min);

/* Bytes to whole blocks of fs (rounded down). */
uint64_t shrinkfmt_blocks(const struct fs *fs, uint64_t bytes);

/*
 * The lines saying what a shrink plan p does: the size, the AGs, what
 * lies past the new end, the log; with --min, how it was found.
 */
void shrinkfmt_text(const struct fs *fs, const struct plan *p, bool min,
		    unsigned tries, uint64_t floor);
void shrinkfmt_json(struct json *j, const struct fs *fs,
		    const struct plan *p, bool min, unsigned tries,
		    uint64_t floor);

#endif
