/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The consistency checker: everything the read path verifies (CRCs,
 * magics, self addresses, owners, btree order), plus what only a whole
 * view shows: every block of every AG accounted for exactly once (free,
 * AGFL, headers, log, inode chunks, AG btree blocks, file extents and
 * bmbt blocks; shared blocks exactly as often as the refcount btree
 * says), bnobt and cntbt agreeing, the rmapbt matching the owners found,
 * btrees well formed (sibling chains, node keys, half-full blocks), the
 * AGF/AGI/superblock counters and link counts matching what was counted,
 * every directory and attribute block carrying its owner and address.
 * It is the check a relocation run must pass before it reports success,
 * and the "check" command.  Read only.  core/check/check_int.h describes the
 * phases.
 */
#ifndef CORE_CHECK_H
#define CORE_CHECK_H

#include <stdint.h>

#include "core/check/problems.h"
#include "core/fs/fs.h"

enum check_step {
	CHECK_STEP_SCAN, CHECK_STEP_SB, CHECK_STEP_INODES,
	CHECK_STEP_DISTRIBUTE, CHECK_STEP_SPACE, CHECK_STEP_LINKS,
	CHECK_STEP_COUNTERS, CHECK_NSTEPS
};

/* "scan", "sb", ...: the step's name. */
const char *check_step_name(enum check_step s);

struct check_result {
	uint64_t problems;	/* 0: consistent */
	uint64_t inodes;	/* allocated inodes scanned */
	uint64_t blocks_checked;	/* blocks some owner claims */
	/* NULL, or what could not be checked because the scan could not
	 * read everything (a static string) */
	const char *skipped;
	/* how long each step took (XFSDEFRAG_TIMING): the scan, then the
	 * phases in order, the last the whole-filesystem counters */
	uint64_t step_ns[CHECK_NSTEPS];
};

/* One problem found: its stable code (problems.h) and its message. */
struct check_msg {
	enum check_code code;
	const char *name;	/* the code's short name: "agf-freeblks" */
	const char *structure;	/* what it is about: "agf" */
	/* one line naming the structure and where, e.g. "ag 2: block 123
	 * is free in the bnobt (extent 120+10) and mapped by inode 4567
	 * data fork offset 10" */
	const char *text;
};

/*
 * Called once per problem, from the calling thread, in a fixed order (AG
 * by AG, then the whole-filesystem problems) whatever the number of
 * threads.  Past a few thousand messages in one AG the rest are only
 * counted in res->problems.
 */
typedef void (*check_report_fn)(void *priv, const struct check_msg *m);

/*
 * Check fs with up to threads threads (0: one per CPU).  0 when the
 * checks ran (see res->problems), <0 with e set if they could not run
 * at all (out of memory, an unreadable image).
 */
int check_fs(struct fs *fs, unsigned threads, check_report_fn fn, void *priv,
	     struct check_result *res, struct err *e);

struct check_opts {
	unsigned threads;	/* as check_fs's */
	/*
	 * Read every inode chunk again for the inodes phase, as the scan
	 * left it in the page cache, rather than only those the scan's
	 * look at the inodes did not settle (the same verdicts: tests).
	 */
	bool reread;
	/* bytes of inodes the scan may keep for that phase (0: 64 MiB;
	 * tests give a few to mix kept inodes and chunks read again) */
	uint64_t keep;
	/* every directory entry judged after the inodes phase, its findings
	 * put back in place, as those naming an AG not yet scanned are
	 * (check_pipe.c; the same verdicts: tests) */
	bool defer;
};

int check_fs_with(struct fs *fs, const struct check_opts *o,
		  check_report_fn fn, void *priv, struct check_result *res,
		  struct err *e);

#endif
