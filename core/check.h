/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The consistency checker: everything the read path verifies (CRCs,
 * magics, self addresses, owners, btree order), plus what only a whole
 * view shows: every block of every AG accounted for exactly once (free,
 * AGFL, headers, log, inode chunks, AG btree blocks, file extents and
 * bmbt blocks; shared blocks exactly as often as the refcount btree
 * says), bnobt and cntbt agreeing, the rmapbt matching the owners found,
 * and the AGF/AGI/superblock counters matching what was counted.  It is
 * the check a relocation run must pass before it reports success, and
 * the "check" command.
 */
#ifndef CORE_CHECK_H
#define CORE_CHECK_H

#include <stdint.h>

#include "fs.h"

struct check_result {
	uint64_t problems;	/* 0: consistent */
	uint64_t inodes, blocks_checked;
	/* each problem is reported through the callback, one line each,
	 * naming the structure and where: "ag 2: block 123 is both free and
	 * used by inode 4567" */
};

typedef void (*check_report_fn)(void *priv, const char *msg);

/* Check fs; 0 when the checks ran (see res->problems), <0 if they could
 * not run at all. */
int check_fs(struct fs *fs, unsigned threads, check_report_fn fn, void *priv,
	     struct check_result *res, struct err *e);

#endif
