/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the files of core/run share: one run's context. */
#ifndef CORE_RUN_PRIV_H
#define CORE_RUN_PRIV_H

#include <stdio.h>

#include "core/base/outfile.h"
#include "core/relocate/plan_limits.h"
#include "core/run/run.h"

struct run_ctx {
	struct fs *fs;		/* the writer's handle: holds the lock */
	const struct run_opts *o;
	struct run_result *r;
	struct plan_limits lim;	/* the user's, with a pass's focus */
	bool keep_inodes;	/* passes and limited runs keep numbers */
	/* the model of the image as it is now (replan.c) */
	struct fs *pfs;		/* the view it was scanned from */
	struct model *m;	/* valid until a pass writes */
	struct plan_home *home;	/* of m, by a full plan (NULL: not yet) */
	size_t nhome;
	/* outputs (fence.c, mapfile.c) */
	struct outfile_set out;
	char map_path[1024];
	FILE *map;		/* open once a pass renumbers */
	bool map_created;	/* by us: ours to remove if nothing stands */
	long map_len;		/* bytes of the passes that stand */
	uint64_t copy_t0;	/* the copy phase began (--max-rate) */
	unsigned pass;		/* the pass under way (from 1) */
	/* the verdict's plan of everything, for the pass that does it all */
	struct plan whole;
	bool have_whole;
};

/* Say one line through the caller (printf-style). */
void run_say(struct run_ctx *c, enum run_say kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* replan.c: a fresh view of the image, and plans of it */
int run_view(struct run_ctx *c, bool writable, struct fs **out,
	     struct err *e);
int run_fresh_model(struct run_ctx *c, struct err *e);
void run_drop_model(struct run_ctx *c);
/* plan what the user's limits, and focus (per AG; NULL: all), allow */
int run_plan_now(struct run_ctx *c, const bool *focus, struct plan *p,
		 struct err *e);
/* Does plan p change anything beyond rebuilding a bmap btree as is? */
bool run_plan_has_work(const struct plan *p);
/* the figures of model m (report and read-back) */
int run_measure(struct run_ctx *c, const struct model *m, struct report *rp,
		struct rb_fig *rb, struct err *e);

/* fence.c: outputs named and checked before the first write */
int run_fence(struct run_ctx *c, struct err *e);
/* Room for a pass's undo file of about need bytes?  0, or -ENOSPC. */
int run_undo_room(const char *undo, uint64_t need, struct err *e);

/* mapfile.c: the inode map */
int run_map_pass(struct run_ctx *c, const struct plan *p, struct err *e);
/* the pass stands (keep), or was rolled back (drop its lines) */
void run_map_settle(struct run_ctx *c, bool keep);
int run_map_close(struct run_ctx *c, struct err *e);

/* Is o a shrink? */
static inline bool run_shrinking(const struct run_opts *o)
{
	return o->shrink_to || o->shrink_min;
}

/*
 * Is ret, a plan's failure, a shrink the filesystem cannot take (a size
 * it refuses, no room inside, an inode that cannot move)?  Then nothing
 * is written and the run is refused, not failed.
 */
static inline bool run_shrink_refused(const struct run_opts *o, int ret)
{
	return run_shrinking(o) && (ret == -EINVAL || ret == -ENOSPC ||
				    ret == -EPERM);
}

/* shrink.c: cut the image file to the new size (the run stands) */
int run_shrink_cut(struct run_ctx *c);
/* discard.c: give the free space of the result back (the run stands) */
int run_discard(struct run_ctx *c);

/* pass.c: one pass; 0 with *did, or <0 with r's outcome set */
int run_one_pass(struct run_ctx *c, const bool *focus, const char *what,
		 bool *did);

/* rollback.c: pass n (writer fs) failed after st: restore from undo */
void run_failed_pass(struct run_ctx *c, struct fs *fs,
		     const struct exec_stats *st, const char *undo);

#endif
