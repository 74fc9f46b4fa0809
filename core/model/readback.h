/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The read-back cost model: what reading the whole tree back costs, in
 * the order a walk (walk.h) visits it, as `find DIR -type f | xargs cat`
 * does for the readdir walk.
 *
 * The walk reads, for each directory, its inode and then its blocks (data,
 * leaf and free blocks, in file order), and for each regular file its inode
 * and then its written extents in file order (holes and unwritten extents
 * read no disk; realtime data is not on this device).  Other files are not
 * read.  An inode costs an access only the first time its inode cluster is
 * needed: the kernel reads whole clusters and keeps them.  Bmap btree
 * blocks are not counted.
 *
 * Over the stream of accesses (byte ranges of the data device):
 *   jumps      accesses that do not start where the previous one ended
 *   far jumps  jumps over more than 1 MiB
 *   hdd        modelled 7200 rpm time with a drive cache (drive.h): bytes
 *              / 150 MB/s; per jump either the gap read through (forward,
 *              at most 1 MiB) or 4.17 ms rotation + 0.8 ms + 8 ms *
 *              sqrt(distance / 1 TiB); a read inside what the drive read
 *              on (1 MiB after each platter read, 16 segments) at 600 MB/s
 *   requests   SSD read requests: runs of contiguous accesses, each cut
 *              into pieces of at most 1 MiB
 * the same for the metadata walk alone (du, find -printf, ls -lR: every
 * inode cluster and directory block in the same order, no file data),
 * and, for checking a layout, data accesses (not inodes) that start
 * before the end of the previous data access in the same AG (the walk
 * going back on the disk), leaving out files flagged reflink (their
 * shared blocks cannot follow every owner).
 */
#ifndef CORE_MODEL_READBACK_H
#define CORE_MODEL_READBACK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model/drive.h"
#include "core/model/walk.h"
#include "ondisk/bmbt.h"

#define RB_READAHEAD	(1ull << 20)	/* forward gaps read through */
#define RB_FAR		(1ull << 20)	/* a far jump is longer */
#define RB_MAXREQ	(1ull << 20)	/* largest merged SSD request */

struct rb_fig {
	uint64_t accesses, bytes;
	uint64_t jumps, far_jumps;
	uint64_t requests;
	double hdd_seconds;
	uint64_t clusters;	/* inode cluster reads */
	uint64_t dirs, files;	/* read */
	uint64_t data_bytes;	/* of the bytes: directory and file blocks */
	uint64_t out_of_order;	/* data accesses behind the previous one */
	uint64_t hdd_seeks, hdd_hits;	/* the drive's repositionings, hits */
	struct rb_meta {	/* the metadata walk: clusters, directories */
		uint64_t accesses, bytes, requests, seeks, hits;
		double hdd_seconds;
	} meta;
};

/* A stream of accesses being costed, and its metadata alone. */
struct rb_acc {
	struct rb_fig *f;
	uint64_t pos;		/* where the last access ended */
	uint64_t fill;		/* bytes in the open SSD request */
	uint64_t mpos, mfill;	/* the same for the metadata walk */
	struct drive d, md;
};

void rb_acc_init(struct rb_acc *a, struct rb_fig *f);
/* The heads put at off, as if an access had just ended there. */
void rb_acc_start(struct rb_acc *a, uint64_t off);
/* One read of len bytes at byte offset off of the device: file data. */
void rb_acc_read(struct rb_acc *a, uint64_t off, uint64_t len);
/* The same for an inode cluster or a directory block: both walks. */
void rb_acc_read_meta(struct rb_acc *a, uint64_t off, uint64_t len);

/*
 * Where an inode's data fork is when not where the model saw it (a
 * plan's predicted layout): true and its records in file order, or false
 * for "as the model has it".
 */
typedef bool (*rb_fork_fn)(void *priv, const struct m_ino *mi,
			   const struct od_irec **recs, uint32_t *n);

/*
 * Cost the walk's reads; fork may be NULL.  0 or -ENOMEM.  A long walk is
 * costed on the model's threads, so fork (and rb_layout.ino) may be
 * called from several threads at once; the figures are exactly those of
 * one pass.
 */
int readback_model(const struct walk *w, rb_fork_fn fork, void *priv,
		   struct rb_fig *f, struct err *e);

/*
 * Where inodes are when a plan renumbers them: each inode's number after
 * it (ino, given the model's inode), and per AG the chunks after it
 * (first agino of each, sorted), which then stand for the model's chunks.
 */
struct rb_layout {
	uint64_t (*ino)(void *priv, const struct m_ino *mi);
	void *priv;
	uint32_t *const *chunks;
	const size_t *nchunks;
};

/* The same with the inodes laid out as lay says (NULL: as scanned). */
int readback_model_layout(const struct walk *w, rb_fork_fn fork, void *priv,
			  const struct rb_layout *lay, struct rb_fig *f,
			  struct err *e);
/*
 * Each access of a walk, in walk order, as it is costed: the walk's dense
 * number of the inode it is for, whether it reads the inode's cluster
 * (else its data), and what it added to the figures (its transfer and
 * the jump to it).
 */
struct rb_trace {
	void (*fn)(void *priv, uint32_t dense, bool cluster, double hdd_s,
		   uint64_t requests);
	void *priv;
};

/* readback_model_layout on one thread, each access passed to t. */
int readback_model_trace(const struct walk *w, rb_fork_fn fork, void *priv,
			 const struct rb_layout *lay, const struct rb_trace *t,
			 struct rb_fig *f, struct err *e);
/* The same in nseg segments (threads), whatever the walk's length. */
int readback_model_segs(const struct walk *w, rb_fork_fn fork, void *priv,
			const struct rb_layout *lay, unsigned nseg,
			struct rb_fig *f, struct err *e);

#endif
