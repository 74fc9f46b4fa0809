/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What plan --shrink and shrink share: the size argument, the lines. */
#ifndef CMD_SHRINKFMT_H
#define CMD_SHRINKFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/json.h"
#include "core/relocate/plan.h"

/* A shrink's size as given: bytes, or min (the smallest that fits). */
struct shrinkfmt_size {
	uint64_t bytes;		/* 0: not given */
	bool min;
};

/*
 * OPT_CALL takers of shrink --size and plan --shrink (dst: a struct
 * shrinkfmt_size): a size as cmd_parse_size reads it, or "min".
 */
int shrinkfmt_size_opt(void *dst, const char *val, char *why, size_t len);
int shrinkfmt_shrink_opt(void *dst, const char *val, char *why, size_t len);

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
