/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The safe-write sequence every writer follows (run, and each of its
 * passes):
 *
 *   refuse     refuse_write: mounted, dirty log, features we do not write...
 *   fence      every output path named before anything is written, none
 *              of them the image or each other (outfile.h); the undo
 *              files must not exist; the lock held since the open
 *   pre-check  our checker finds the filesystem consistent
 *   verdict    the whole plan is worth running (verdict.h), or nothing
 *              is written (unless forced)
 *   then, per pass:
 *     plan     from a fresh scan of the image as it is now
 *     execute  behind the pass's own undo file (exec.h)
 *     verify   a fresh view checked again; nobody else opened it for
 *              writing meanwhile
 *     seal     the pass stands (its undo file complete) ... or roll back:
 *              a pass that fails is restored from its own undo file,
 *              leaving the filesystem as the pass before left it
 *
 * A full run is one pass over everything; --passes and --max-time make
 * one pass per AG, then one over the rest; limits make one pass over
 * what they select.  Passes and limited runs keep inode numbers.
 *
 * Nothing here prints: what happens reaches the caller through run_ev,
 * and the outcome in struct run_result.
 */
#ifndef CORE_RUN_H
#define CORE_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/check/check.h"
#include "core/model/readback.h"
#include "core/model/report.h"
#include "core/relocate/exec.h"
#include "core/relocate/plan.h"
#include "core/relocate/plan_limits.h"
#include "core/relocate/verdict.h"

/* Fault injection for tests: as exec_opts' fault fields, in one pass. */
struct run_fault {
	long after;		/* crash after this many writes; <0: none */
	unsigned pass;		/* in this pass (from 1) */
	int err;		/* fail that write with it, not crash */
	bool sticky;		/* ... and every write after it */
	size_t inode_window;	/* exec_opts' (every pass); 0: none */
	/* skip the undo file's room check (to reach a full undo
	 * filesystem mid-run, which the check otherwise forestalls) */
	bool no_room_check;
};

struct run_pass {
	unsigned n;		/* from 1 */
	char what[64];		/* "AG 3", "the rest", "all" */
	char undo[1024];
	struct exec_stats st;
	uint64_t moved_blocks;
	size_t renumbered;	/* inodes, their lines in the map */
	double seconds;		/* plan, execute, verify */
};

enum run_say {
	RUN_SAY_ERROR,		/* stderr: what went wrong, what is left */
	RUN_SAY_INFO,		/* stdout */
};

struct run_ev {
	/* progress of pass (from 1); the executor's phases */
	void (*progress)(void *priv, unsigned pass,
			 const struct exec_progress *p);
	/* a problem the pre-check or a verification found */
	void (*problem)(void *priv, const struct check_msg *m);
	/* a pass was verified and stands (only when passes were asked) */
	void (*pass_done)(void *priv, const struct run_pass *rec);
	/* one line to show */
	void (*say)(void *priv, enum run_say kind, const char *msg);
	/* a fresh view of the image is about to be scanned: tune it */
	void (*view)(void *priv, struct fs *fs);
	void *priv;
};

struct run_opts {
	const char *image;	/* as the user named it */
	const char *undo;	/* pass 1's undo file; the others .2, .3 ... */
	/*
	 * The inode map ("old new" per renumbered inode); NULL: UNDO.map
	 * beside the undo file, made only when a pass renumbers.
	 */
	const char *map;
	struct plan_opts po;	/* po.lim: NULL, set from lim below */
	struct plan_limits lim;	/* the user's limits (none: all zero) */
	double max_rate;	/* MiB/s of copying; 0: no limit */
	double max_time;	/* seconds; 0: none */
	bool by_ag;		/* one pass per AG, then the rest */
	unsigned threads;	/* 0: one per CPU */
	uint64_t t0;		/* when the command began (run_now_ns) */
	/* set by a signal handler: stop at the next pass boundary */
	const volatile sig_atomic_t *stop;
	const struct run_fault *fault;	/* tests; NULL */
	const struct run_ev *ev;
	/*
	 * Run even when the verdict on the whole plan says it is not worth
	 * it (verdict.h); without it such a run writes nothing.
	 */
	bool force;
	/*
	 * A shrink (plan_shrink.h): to shrink_to blocks, or (shrink_min) the
	 * smallest size that fits; one full pass, and an image file is cut
	 * to the new size once the pass is verified.  Not with passes or
	 * limits.
	 */
	uint64_t shrink_to;
	bool shrink_min;
	/* when the run stands: give the free space back to the storage */
	bool discard;
};


enum run_status {
	RUN_OK,
	RUN_REFUSED,		/* nothing written: it is not safe */
	RUN_FAILED,		/* an error; see rollback */
};

/* What a failed pass left. */
enum run_rollback {
	RUN_RB_NONE,		/* no pass failed */
	RUN_RB_UNTOUCHED,	/* the pass had written nothing */
	RUN_RB_DONE,		/* restored from its undo file */
	RUN_RB_FAILED,		/* restoring failed: NEEDSREPAIR, undo file kept */
};

struct run_result {
	enum run_status status;
	struct err e;		/* why, when not RUN_OK */
	bool said;		/* e was said already, through ev->say */
	enum run_rollback rollback;
	uint64_t rb_blocks;	/* restored by the roll-back */
	/* the passes that stand, in order */
	struct run_pass *pass;
	size_t npass;
	bool failed_pass;	/* a pass failed (after those that stand) */
	bool no_work;		/* the plan moved nothing: nothing written */
	/* the verdict on the whole plan, before anything was written */
	struct verdict verdict;
	bool judged;		/* verdict holds it (not with force) */
	bool not_worth;		/* not worth running: nothing written */
	/* the figures, when measured */
	struct report before, after;
	struct rb_fig rb_before, rb_after;
	bool have_before, have_after;
	/* what a plan of the result would still move, with the limits */
	uint64_t left_blocks;
	bool *left_ags;		/* per AG (agcount) */
	uint32_t agcount, blocksize;
	bool stopped;		/* by --max-time or a signal */
	int stop_signal;
	char map[1024];		/* the map file written ("": none) */
	size_t map_lines;
	uint64_t undo_needed;	/* the pre-run estimate of the undo file */
	/* a shrink: the plan's geometry (shrink.dblocks 0: none) */
	struct plan_shrink shrink;
	uint64_t dblocks_before;
	uint32_t agcount_before;
	unsigned min_tries;	/* shrink_min: sizes planned */
	uint64_t min_floor;	/* blocks in use before, log included */
	uint64_t image_before;	/* bytes */
	bool truncated;		/* the image file was cut to the new size */
	bool blockdev;		/* a block device: it keeps its size */
	/* discard */
	bool discarded;
	uint64_t discard_bytes;	/* free space given back */
	uint64_t discard_extents;
	bool have_alloc;	/* an image file: its allocated bytes (du) */
	uint64_t alloc_before, alloc_after;
};

uint64_t run_now_ns(void);
/* Does anything in o need passes (limits, a time box, a rate)? */
bool run_opts_limited(const struct run_opts *o);

/*
 * Run the sequence on fs, opened read-write (it holds the writer's lock
 * until the caller closes it).  The outcome is in r (run_result_free);
 * the return value is 0 when r->status is RUN_OK, else r->e.code.
 */
int run_fs(struct fs *fs, const struct run_opts *o, struct run_result *r);
void run_result_free(struct run_result *r);

#endif
