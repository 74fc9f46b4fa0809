/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The order in which a reader visits the inodes of the tree, from the
 * model: the read-back cost model walks it, the planner lays data out in
 * it (and inode placement can lay chunks into it).
 *
 *   WALK_READDIR  depth first from the root, each directory before its
 *                 entries, entries in readdir order (what find, tar, cp -r
 *                 and du read): the order the scan recorded them in, which
 *                 is the directory's own order (shortform: literal area;
 *                 block, leaf, node: data-block order, then entry order)
 *   WALK_NAME     the same walk with each directory's entries sorted by
 *                 name, bytewise (ls -R, rsync, tar --sort=name); names
 *                 are not in the model, so each directory is read again
 *   WALK_INODE    every inode by number (bulkstat: xfsdump)
 *
 * Inodes are named by a dense index: AG by AG, each AG's inodes in the
 * model's (inode number) order.  A hard-linked inode is visited once, at
 * its first link.  seq[0, nreached) is what the walk reaches; the rest of
 * the inodes follow by number.
 */
#ifndef CORE_MODEL_WALK_H
#define CORE_MODEL_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"

enum walk_order { WALK_READDIR, WALK_NAME, WALK_INODE };

struct walk {
	const struct model *m;
	enum walk_order order;
	uint32_t *seq;		/* dense indices, every inode once */
	size_t n, nreached;
	uint64_t *base;		/* agcount + 1: first dense index of each AG */
};

int walk_build(const struct model *m, enum walk_order order, struct walk *w,
	       struct err *e);
/*
 * The same; the readdir walk on nseg threads (walk_build: the model's,
 * for a large tree).  The order does not depend on nseg.
 */
int walk_build_segs(const struct model *m, enum walk_order order,
		    unsigned nseg, struct walk *w, struct err *e);
void walk_free(struct walk *w);

/* The inode of dense index d (and its AG). */
const struct m_ino *walk_inode(const struct walk *w, uint32_t d,
			       const struct m_ag **agp);
/* Dense index of an inode of the model. */
static inline uint32_t walk_dense(const struct walk *w, const struct m_ag *ag,
				  const struct m_ino *mi)
{
	return (uint32_t)(w->base[ag->agno] + (uint64_t)(mi - ag->ino));
}

/* "walk", "name", "inode"; parse: 0, or -EINVAL for another word. */
const char *walk_order_name(enum walk_order o);
int walk_order_parse(const char *s, enum walk_order *o);

#endif
