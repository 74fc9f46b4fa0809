/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading ahead of the scan and the checker: small reads that would
 * each wait for the device (directory blocks, above all) are announced
 * early with img_willneed, so the kernel reads many at once, and read
 * when the page cache has them.  The scan keeps directories in a short
 * queue for that, in inode order: what they add to the model comes out
 * in the same order as if each had been read at once.
 */
#ifndef CORE_AHEAD_H
#define CORE_AHEAD_H

#include "core/fs/inode.h"
#include "core/model/model.h"

/*
 * Announce the blocks of a fork's extent records (packed, as the model
 * keeps them) that start below file block below, up to max bytes, in
 * disk order 64 records at a time, blocks adjacent on disk as one range
 * whatever their order in the file.  A directory's data, hash and
 * free-index blocks are often adjacent on disk but out of file order
 * (file blocks at 15 13 12 10 82 84, 14 80-81 83, 11: two ranges, not
 * ten), and announced one by one they would cost a request each.
 * Returns the bytes announced.
 */
uint64_t ahead_fork(struct fs *fs, const struct m_ext *x, uint32_t n,
		    uint64_t below, uint64_t max);
/* The same ranges, each passed to fn rather than announced. */
uint64_t ahead_fork_each(const struct od_geo *g, const struct m_ext *x,
			 uint32_t n, uint64_t below, uint64_t max,
			 void (*fn)(void *priv, uint64_t off, uint64_t len),
			 void *priv);

/* A range of bytes on disk. */
struct ahead_span {
	uint64_t off, len;
};

/* Sort v[0..n) by offset and merge the ranges that touch or overlap, in
 * place; returns how many are left. */
unsigned ahead_merge(struct ahead_span *v, unsigned n);

/* Directories waiting for their blocks. */
struct ahead_dir {
	struct inode ip;	/* a copy: the run it came from is gone */
	size_t idx;		/* m_ag.ino index */
	uint64_t bytes;		/* announced for it */
};

struct ahead_q {
	struct fs *fs;
	struct ahead_dir *v;	/* ring */
	unsigned head, n;
	uint64_t bytes;		/* announced and not yet read */
};

void ahead_q_init(struct ahead_q *q, struct fs *fs);
/* No room for another directory: pop one first. */
bool ahead_q_full(const struct ahead_q *q);
/*
 * Queue directory idx (decoded di, raw inode bytes, its data fork
 * extents x[0..n)) and announce its directory blocks.  0 or -ENOMEM
 * (then nothing was queued).
 */
int ahead_q_push(struct ahead_q *q, const struct od_inode *di,
		 const uint8_t *raw, size_t idx, const struct m_ext *x,
		 uint32_t n);
/* The oldest queued directory, removed; valid until the next push.
 * NULL when empty. */
const struct ahead_dir *ahead_q_pop(struct ahead_q *q);
void ahead_q_free(struct ahead_q *q);

#endif
