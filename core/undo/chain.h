/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo files of a run in passes (chain*.c): FILE for the first pass,
 * FILE.2, FILE.3, ... for the next, undone together, all or nothing.
 *
 * Each file names its pass and the file before it (its nonce and the
 * crc of its seal, and the superblock as the pass began, which is the
 * one the pass before left); the next pass, before its first write,
 * appends a link record naming it to the file before, so that a missing
 * last file is seen.  Before writing anything, undo verifies the whole
 * chain: every file present, complete (the last may be an interrupted
 * pass), its records intact, linked to its neighbours, and the state of
 * the filesystem each pass left: the last pass's against the image, each
 * earlier one's against the image as undoing the passes after it would
 * leave it (the records of those passes laid over the image: a view).
 * A chain that fails is refused with nothing written, naming the file
 * and what is wrong, and which later passes could still be undone alone
 * (undo_chain_opts.to_pass).
 *
 * The restore goes pass by pass, last first, and keeps its progress in
 * the superblock: NEEDSREPAIR and the undo mark of the file being
 * restored (ondisk/undo.h).  After each pass but the last it writes the
 * superblock that pass began with, still with NEEDSREPAIR, marked with
 * the next file to restore; a later undo finishes whatever an
 * interrupted one began.  Only when every pass is restored, and every
 * block is read back as the files say it was, is the original
 * superblock written, without NEEDSREPAIR.
 */
#ifndef CORE_UNDO_CHAIN_H
#define CORE_UNDO_CHAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/undo/undo.h"

/* Pass n's undo file (n from 1): base, then base.2, base.3, ... */
void undo_chain_name(const char *base, unsigned n, char *buf, size_t len);

/* A line to print (error: for standard error); the front end prints. */
typedef void (*undo_chain_say_fn)(void *priv, bool error, const char *line);

struct undo_chain_opts {
	/* leave the filesystem as pass to_pass left it (undo the passes
	 * after it only); 0: as before the run */
	unsigned to_pass;
	bool check;		/* verify only; write nothing */
	/* the file alone, whatever its pass (the run's own rollback of a
	 * pass it could not finish) */
	bool alone;
	undo_chain_say_fn say;	/* progress, one line per pass; may be NULL */
	void *priv;
	undo_each_fn each;	/* every record, as undo_check_each */
	void *each_priv;
};

enum undo_outcome {
	UNDO_RESTORED,		/* restored (with check: would restore) */
	UNDO_NOTHING,		/* nothing to undo: already as asked */
	UNDO_REFUSED,		/* nothing written: e says why */
};

struct undo_chain_result {
	enum undo_outcome outcome;
	unsigned npass;		/* files of the chain (passes) */
	unsigned top;		/* the last pass whose work is in place */
	unsigned stop;		/* the passes after it are (to be) undone */
	bool resumed;		/* an undo of the chain had begun */
	/* refused: the pass whose file is at fault (0: none, the
	 * filesystem changed), and the --to-pass that would still work
	 * (0: none) */
	unsigned bad, can_to;
	uint64_t blocks, bytes, copies;	/* written back */
	struct undo_info *info;	/* per pass, info[1 .. npass] */
};

/*
 * Undo the chain of file (alone: the file by itself) on fs, open
 * read-write unless o->check.  0 with r filled, or a negative errno with
 * the reason in e (and r->outcome UNDO_REFUSED when nothing was
 * written):
 *   -EFSCORRUPTED  a file of the chain is damaged, cut short, missing,
 *                  out of place or of another run
 *   -ESTALE        the filesystem changed since the run
 *   -EXDEV         the files belong to another filesystem
 *   -EPROTO        version 1 files
 *   -EINVAL        to_pass is not a pass an undo can go back to
 *   others         an I/O error; after the first write, NEEDSREPAIR and
 *                  the undo mark stay, and undo again finishes
 * Free r with undo_chain_result_free.
 */
int undo_chain_undo(const char *file, struct fs *fs,
		    const struct undo_chain_opts *o,
		    struct undo_chain_result *r, struct err *e);
void undo_chain_result_free(struct undo_chain_result *r);

/*
 * The run's side.  A pass's undo file, made by undo_begin_pass, links to
 * the file before it; undo_discard removes a pass's file the run rolled
 * back (or never wrote with), and the link to it from the file before.
 */
int undo_discard(const char *path, struct err *e);

#endif
