/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fragmentation count xfs_db's frag command makes (db/frag.c), in
 * one place for the report, the planner's prediction and run's before
 * and after: which forks count, "actual" (extent records) and "ideal"
 * (runs of records contiguous in file offset; placement on disk does not
 * matter, every hole starts a new run), and the factor it prints.
 */
#ifndef CORE_FRAG_H
#define CORE_FRAG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fs/fork.h"
#include "core/model/model.h"
#include "ondisk/bmbt.h"
#include "ondisk/inode.h"

struct frag_count {
	uint64_t actual, ideal;
};

/* Does this fork (FORK_DATA, FORK_ATTR) of the inode count?  Data forks
 * of directories, regular files and symlinks; attribute forks.  (Inline,
 * as frag_add: the report asks for every inode.) */
static inline bool frag_fork_counts(const struct m_ino *mi, int fork)
{
	if (fork == FORK_ATTR)
		return !(mi->flags & MI_NOATTR);
	return od_mode_isdir(mi->mode) || od_mode_isreg(mi->mode) ||
	       od_mode_islnk(mi->mode);
}

/* Add one fork's n extent records, in file order, to the count. */
static inline void frag_add(struct frag_count *c, const struct od_irec *r,
			    uint32_t n)
{
	uint32_t i;

	c->actual += n;
	for (i = 0; i < n; i++)
		if (i == 0 || r[i].startoff != r[i - 1].startoff +
						r[i - 1].blockcount)
			c->ideal++;
}

/* (actual - ideal) / actual, in percent; 0 when nothing counted. */
double frag_factor(uint64_t actual, uint64_t ideal);

#endif
