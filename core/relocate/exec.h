/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The relocation executor: carries out a plan on a filesystem opened
 * read-write, in named phases:
 *
 *   begin     undo journal created; every block free at the start is
 *             marked so (writes there need no record); a renumbering
 *             plan is checked (exec_renum.c) and refused where the
 *             filesystem has references it cannot rewrite (refuse.h)
 *   mark      NEEDSREPAIR set in the superblock (journaled, synced), so
 *             no kernel mounts a half-written filesystem
 *   inodes    renumbering: moved inodes written whole at their new
 *             slots, new chunks initialised, vacated slots freed,
 *             shortform directories renumbered (exec_inodes.c); before
 *             the copy, which may reuse a dropped chunk's blocks
 *   copy      data copied to its new place, in destination order, in
 *             batches: the batch's live destinations journaled and synced
 *             first; a source already overwritten is read back from the
 *             journal
 *   headers   v5 self-describing blocks that moved (directory, attribute,
 *             symlink blocks) get their new address and CRC
 *   forks     inodes get their new extent lists or rebuilt bmap btrees
 *   references  renumbering: directory entries naming moved inodes, and
 *             the v5 owner of every block a moved inode owns
 *             (exec_irefs.c)
 *   ags       every AG's btrees rebuilt (bnobt, cntbt, inobt, finobt,
 *             rmapbt, refcountbt) and its AGF/AGI counters (inode
 *             chunks, counts, newino and rmap owners as renumbered)
 *   geometry  a shrink (exec_shrink.c): the log at its new place, the
 *             new geometry in the secondary superblocks that stay
 *   sb        superblock counters (and a shrink's geometry); then
 *             NEEDSREPAIR cleared, synced, and the journal marked
 *             complete
 *
 * A crash anywhere leaves NEEDSREPAIR set and a journal from which
 * `xfsdefrag undo` restores the filesystem as it was.
 */
#ifndef CORE_EXEC_H
#define CORE_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/relocate/plan.h"
#include "core/undo/undo.h"

struct exec_progress {
	const char *phase;
	uint64_t done, total;	/* bytes in the copy phase, else items */
};

struct exec_opts {
	const char *undo_path;
	/* a run in passes: this pass and the undo file of the pass before
	 * (undo_begin_pass); { 0, NULL }: a run in one pass */
	struct undo_link undo_link;
	long fault_after;	/* tests: crash after this many writes; <0 none */
	int fault_err;		/* tests: fail that write with it, not crash */
	bool fault_sticky;	/* ... and every write after it */
	/* tests: bytes of moved inodes the inodes phase holds at once
	 * (exec_inodes.c); 0: its own */
	size_t inode_window;
	void (*progress)(void *priv, const struct exec_progress *p);
	void *priv;
};

struct exec_stats {
	uint64_t bytes_copied;
	uint64_t blocks_remapped;	/* unwritten: remapped, not copied */
	uint64_t journal_bytes;
	uint64_t forks_written, btree_blocks_written;
	uint64_t ns_copy, ns_total;
	uint64_t writes;	/* image writes issued (fault points) */
	uint64_t writes_done;	/* of those, completed */
	bool undo_created;	/* the undo file was made (and is ours) */
	/* renumbering: inodes moved, and the image writes (numbered as
	 * writes counts them, from 1) of its two phases */
	uint64_t inodes_renumbered;
	uint64_t w_inodes[2], w_refs[2];	/* first, last; 0 0: none */
	/* parent pointers: inodes a moved directory names, pointers
	 * rewritten, node-format attr forks dealt out again */
	uint64_t pptr_inodes, pptr_rewritten, pptr_forks_dealt;
	/* a shrink: the writes of the AG and geometry phases (the new
	 * AG headers, btrees, log and superblocks), numbered likewise */
	uint64_t w_geometry[2];
};

/*
 * Run plan p (made from model m of fs) on fs, which must be open
 * read-write and have passed refuse_write and the pre-check.  On error,
 * st->writes_done == 0 means the image was not written; otherwise the
 * filesystem is left marked NEEDSREPAIR with a usable undo file (the
 * caller rolls back from it).
 */
int exec_run(struct fs *fs, const struct model *m, const struct plan *p,
	     const struct exec_opts *o, struct exec_stats *st,
	     struct err *e);

#endif
