/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the scan of one AG (core/model/scan_ag.c: inodes, forks and
 * directories; scan_trees.c: headers and btrees): its state and what
 * the two halves share.
 */
#ifndef CORE_SCAN_PRIV_H
#define CORE_SCAN_PRIV_H

#include "core/fs/fork.h"
#include "core/fs/inode.h"
#include "core/model/ahead.h"
#include "core/model/scan.h"

struct agscan {
	struct fs *fs;
	const struct od_geo *g;
	struct m_ag *ag;
	const struct scan_opts *o;
	struct scan_progress *p;
	struct err e;		/* scratch for the current item */
	const uint8_t *buf;	/* the run being decoded */
	struct inode tmp;	/* btree forks and directories */
	struct extmap map;
	uint32_t *ag_seen;	/* per-AG stamp, for counting AGs per dir */
	uint32_t stamp;
	struct ahead_q dirq;	/* directories waiting for their blocks */
	uint64_t dmg_pos;	/* where the first damage was met */
	void *hook_part;	/* scan_opts' hooks' state for this part */
};

/*
 * Remember the first damage in this AG; keep counting the rest.  pos
 * orders damage as if every directory had been read at once: 2 * index
 * of the next inode (scan_damage), and 2 * index + 1 for a directory
 * read later.
 */
void scan_damage_at(struct agscan *s, struct err *e, uint64_t pos);
void scan_damage(struct agscan *s, struct err *e);

/* The priv of scan_meta_block: where a walked block goes in the model. */
struct meta_ctx {
	struct agscan *s;
	enum m_meta kind;
	uint64_t owner;
};

/* btwalk block callback: note a btree block (bmbt: maybe another AG). */
int scan_meta_block(void *priv, uint64_t fsbno, unsigned level,
		    struct err *e);
/* The AG headers and every AG btree, into s->ag. */
void scan_trees(struct agscan *s);
/* After the inodes: header, AGFL and log blocks noted, metadata sorted. */
void scan_trees_finish(struct agscan *s);

/* In-use inodes of a chunk: what the inode array keeps room for. */
static inline size_t scan_chunk_inuse(const struct od_inobt_rec *r)
{
	return (size_t)r->count - r->freecount;
}

/*
 * An AG in parts (scan.c): scan_open each part's state (the first on the
 * AG, the later ones on an m_ag of their own whose inodes go to a slice
 * of the AG's array), scan_ag_trees on the first, scan_range for every
 * part, then scan_join the later ones in order, scan_trees_finish, and
 * scan_close each.  scan_ag does it in one part.
 */
int scan_open(struct agscan *s, struct fs *fs, struct m_ag *ag,
	      const struct scan_opts *o, struct scan_progress *p);
void scan_ag_trees(struct agscan *s);
int scan_range(struct agscan *s, size_t c0, size_t c1, size_t n);
int scan_join(struct agscan *s, struct agscan *ps);
void scan_close(struct agscan *s);

#endif
