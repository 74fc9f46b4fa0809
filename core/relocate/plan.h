/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The relocation planner: a pure function from a scanned model to a target
 * layout.  In each AG, file data is packed front to back in the order a
 * reader walks the tree (walk.h: readdir order by default, or by name; a
 * directory's own blocks before its entries' data; a file's extents one
 * after another, so each file becomes one extent), skipping what does not
 * move (AG headers, the log, inode chunks, AGFL blocks); bmap btree and AG
 * btree blocks are rebuilt after the data; free space is left in one run,
 * in the AG's largest obstacle-free window.  In inode order, data follows
 * its inode's chunk instead.
 *
 * The unit of placement is a physical range: an extent, or for reflinked
 * blocks the union of all mappings that overlap, moved as one piece so
 * every owner shifts by the same amount and sharing is kept.  A unit that
 * fits in no free window whole is split across windows (and the owners
 * say why they are not contiguous).  Data stays in its AG.
 */
#ifndef CORE_PLAN_H
#define CORE_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model/model.h"
#include "core/model/readback.h"

/* plan_move.flags */
#define PM_NOCOPY	0x1	/* unwritten only: remap, copy nothing */

/* A contiguous physical copy, linear block numbers. */
struct plan_move {
	uint64_t src, dst;
	uint32_t len;
	uint32_t flags;
};

/* A fork whose mapping changes: its complete new extent list. */
struct plan_fork {
	uint64_t ino;
	uint8_t whichfork;	/* FORK_DATA / FORK_ATTR */
	uint8_t ftype;		/* PF_* : what its blocks hold */
	uint32_t nrecs;
	struct od_irec *recs;	/* merged, in file-offset order */
	uint32_t nbmbt;		/* bmbt blocks the new list needs (0: extents) */
	uint64_t *bmbt;		/* their addresses (packed fsbno) */
};

/* plan_fork.ftype: which blocks carry self-describing headers (v5). */
enum { PF_DATA, PF_DIR, PF_ATTR, PF_SYMLINK };

/* Why a file could not be made contiguous. */
struct plan_note {
	uint64_t ino;
	uint32_t extents;	/* data fork records after the run */
	const char *why;
};

struct plan_ag {
	uint32_t agno;
	uint64_t moved_blocks;
	uint32_t bt_start, bt_len;	/* run reserved for rebuilt AG btrees */
	uint32_t free_before, free_after;	/* free blocks (bnobt) */
	uint32_t longest_before, longest_after;
	uint64_t nfree_after;		/* free extents after */
	struct m_free *freesp;		/* free extents after, by agbno */
	size_t nfreesp;
	bool changed;			/* needs its btrees rebuilt */
	uint32_t newino;		/* AGI newino after the run (agino);
					 * NULLAGINO (~0u): leave it */
};

/*
 * Inode renumbering.  An inode that moves gets a new number:
 * its slot in a chunk the run allocates, or a free slot of a chunk that
 * stays.  The executor copies the inode there (di_ino, CRC), frees the old
 * slot and rewrites every reference (shared/XFS-NOTES.md, "Renumbering an
 * inode").  Fixed: root's chunk, the inodes the superblock names.  A new
 * number is >= 2^32 only if the old one was (a shortform directory never
 * grows from 4- to 8-byte entries).
 */
struct plan_ino {
	uint64_t old, new;
};

/* An inode chunk record that the run adds (alloc) or drops (free: every
 * inode in it moved out; its blocks become free space). */
struct plan_ichunk {
	uint64_t startino;	/* first of its 64 inode numbers */
	uint16_t holemask;	/* sparse chunks: set bit = 4 inodes absent */
	bool alloc;
};

enum plan_renumber {
	PR_AUTO,	/* renumber where it shortens the walk (default) */
	PR_ALL,		/* every inode that may move gets a place in walk order */
	PR_NONE,	/* inodes stay */
};

struct plan_limits;

struct plan_opts {
	enum walk_order order;	/* the reader to lay the tree out for */
	enum plan_renumber renumber;
	bool inode32;		/* every inode below 2^32, or -ENOSPC */
	/* limits (plan_limits.h); NULL: none */
	const struct plan_limits *lim;
	/*
	 * Bytes the run may copy, 0: no limit.  The plan then moves what
	 * gains most per byte copied (plan_budget.c) and keeps inode
	 * numbers.
	 */
	uint64_t max_write;
	/* shrink the filesystem to this many blocks (plan_shrink.h); 0: no */
	uint64_t shrink_to;
};

/*
 * A shrink: the geometry the run leaves.  Everything at or beyond the
 * new end moves inside it; AGs past the new last one are gone.
 */
struct plan_shrink {
	uint64_t dblocks;	/* sb_dblocks after (0: not a shrink) */
	uint32_t agcount;	/* sb_agcount after */
	uint32_t last_len;	/* blocks of the new last AG */
	uint64_t logstart;	/* the log's new start (fsbno); 0: it stays */
	uint32_t log_cycle;	/* the moved log's first record's cycle */
	bool log_in_free;	/* the moved log goes where space is free now */
	uint8_t imax_pct;	/* sb_imax_pct after (raised where needed) */
	/* what lies at or beyond the new end now, all of which moves */
	uint64_t used_beyond;	/* blocks in use (data, metadata, log) */
	uint64_t data_beyond;	/* of those, file data and attr blocks */
	uint64_t inodes_beyond;	/* inodes (renumbered) */
	uint64_t chunks_beyond;	/* inode chunks (dropped) */
};

struct plan {
	const struct model *m;
	enum walk_order order;
	struct plan_move *mv;	size_t nmv, cap_mv;
	struct plan_fork *pf;	size_t npf, cap_pf;
	/* the records pf[].recs point into */
	struct od_irec *recpool; size_t recpool_bytes;
	struct plan_note *note;	size_t nnote, cap_note;
	struct plan_ag *ag;
	struct plan_ino *ino;	size_t nino, cap_ino;	/* sorted by old */
	struct plan_ichunk *ich; size_t nich, cap_ich;	/* sorted by startino */
	/* totals */
	uint64_t moved_blocks, copied_blocks;
	uint64_t extents_before, extents_after;	/* all fork records */
	uint64_t frag_actual_after, frag_ideal_after;
	/* the same, leaving out the files named in notes */
	uint64_t frag_actual_rest, frag_ideal_rest;
	uint64_t files_multi_after;
	uint64_t undo_estimate;	/* the undo file's bytes, about */
	uint64_t dist_median_after, dist_p90_after, dist_max_after;
	struct rb_fig rb_now, rb_after;	/* read-back in that order */
	/* limits (plan_limits.h) */
	bool limited;			/* plan_opts.lim limited something */
	uint64_t files_selected;	/* regular files the limits let move */
	uint64_t *inway;	size_t ninway;	/* outside the limits, moved
						 * anyway (shared blocks), sorted */
	uint32_t *ag_added;	size_t nag_added; /* AGs the limits had to add */
	struct plan_shrink shrink;	/* plan_opts.shrink_to */
	/* a write budget (plan_opts.max_write) */
	uint64_t max_write;		/* bytes; 0: none */
	bool cut;			/* the whole plan did not fit it */
	uint64_t whole_copied;		/* blocks the whole plan copies */
	struct rb_fig rb_whole;		/* read-back after the whole plan */
};

/*
 * Build a plan (o NULL: walk order).  0, or -ENOMEM / -ENOSPC (no room to
 * rebuild btrees).
 */
int plan_build(const struct model *m, const struct plan_opts *o,
	       struct plan *p, struct err *e);
void plan_free(struct plan *p);

/*
 * The new records of fork (FORK_DATA, FORK_ATTR) of inode ino, or NULL
 * when the plan leaves that fork as it is (p->pf is sorted by inode,
 * then fork).
 */
const struct plan_fork *plan_fork_find(const struct plan *p, uint64_t ino,
				       int fork);

/* Does the plan drop the inode chunk starting at startino?  (It may also
 * add one there: p->ich is sorted by startino, the dropped one first.) */
bool plan_ichunk_freed(const struct plan *p, uint64_t startino);

/* The number inode ino has after the plan (ino itself if it stays). */
uint64_t plan_ino_new(const struct plan *p, uint64_t ino);

/* Sorted free extents of AG a after the plan (for checks and reports). */
const struct plan_ag *plan_ag(const struct plan *p, uint32_t agno);

#endif
