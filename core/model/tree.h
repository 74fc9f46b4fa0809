/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The directory tree of the model, with what each directory holds below
 * it: the totals ncdu shows (bytes, files, extents), and what reading the
 * directory back costs on its own.  Built from the directory entries the
 * scan recorded (model.h, m_link): each inode is counted once, under the
 * first entry that reaches it from the root, as du counts hard links;
 * inodes no entry reaches are in no total.
 *
 * A directory's own read cost is the read-back model's (readback.h) for
 * the directory alone, in readdir order: its inode and blocks, then each
 * entry's inode cluster (each cluster once) and each regular file's
 * written extents, the head starting at the directory's inode.  It ranks
 * directories by how scattered their own contents are; the cost of the
 * whole tree is readback.h's.
 */
#ifndef CORE_MODEL_TREE_H
#define CORE_MODEL_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"

struct tree_tot {
	uint64_t bytes;		/* sizes of the regular files below */
	uint64_t blocks;	/* data and attr fork blocks, dirs too */
	uint64_t files;		/* inodes below that are not directories */
	uint64_t dirs;		/* directories below (not itself) */
	uint64_t extents;	/* data fork records, dirs too */
};

struct tree {
	const struct model *m;
	uint64_t *base;		/* agcount + 1: first dense index per AG */
	uint64_t n;		/* inodes */
	uint32_t *parent;	/* dense -> dense; TREE_NONE: unreached */
	struct tree_tot *tot;	/* dense: directories' subtree totals */
	double *own_s;		/* dense: a directory's own read seconds */
};

#define TREE_NONE	UINT32_MAX

int tree_build(const struct model *m, struct tree *t, struct err *e);
void tree_free(struct tree *t);
/* The dense index of ino, or TREE_NONE when the model lacks it. */
uint32_t tree_index(const struct tree *t, uint64_t ino);
/* Totals below directory ino (NULL: not a directory of the model). */
const struct tree_tot *tree_totals(const struct tree *t, uint64_t ino);
/* A directory's own modelled read seconds (0: not a directory). */
double tree_own_seconds(const struct tree *t, uint64_t ino);
/*
 * The n directories whose own read costs most, most first: their inode
 * numbers in out (at most n; returns how many).
 */
size_t tree_costliest(const struct tree *t, uint64_t *out, size_t n);

#endif
