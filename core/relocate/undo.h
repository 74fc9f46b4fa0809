/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo journal of a relocation run, and the image layers that make it
 * safe: every in-place overwrite of a block that held live data when the
 * run began is preceded, durably, by a journal record of its original
 * bytes.  Replaying the journal restores the filesystem as it was.
 *
 * The journal is an img layer (struct img) stacked over the image: writes
 * pass through it.  A write to a block not yet journaled reads the
 * original from the layer below, appends a record and fsyncs the journal
 * before passing the write down.  undo_prepare() journals many ranges with
 * one fsync ahead of a batch of writes, so the per-write path rarely has
 * to sync.  Blocks the executor declares free-at-start (undo_mark_free) are
 * not journaled: after an undo they are free again, their bytes irrelevant.
 *
 * Granularity is the filesystem block: a write touching any byte of a
 * block journals the whole block, once.  Journaled and free-at-start
 * blocks are tracked in bitmaps over linear block numbers (byte offset /
 * blocksize, i.e. agno * agblocks + agbno), covering the whole image.
 *
 * Ordering rule: a write reaches the layer below only after the journal
 * records of every live block it touches are durable (fsync'd).  Any
 * failure to write or fsync the journal fails the image write and every
 * later journaling call (the error sticks: see undo_error); nothing is
 * ever written unjournaled.
 *
 * File format: ondisk/undo.h (offsets) and xfsdefrag(8), "UNDO FILE".
 *   header, 4096 bytes: magic "XFSDFUND", version, a random nonce, the
 *     filesystem's sb_uuid, sb_meta_uuid, dblocks, blocksize, sectsize,
 *     agblocks, agcount, the image size, creation time, the image path
 *     as given; crc32c of the header.
 *   records: magic "UREC", length, sequence number, byte offset in the
 *     image, batch (first record since the last fsync), crc32c of the
 *     data, crc32c of the record header seeded with the nonce; then the
 *     original bytes.
 *   a final "UEND" record when the run completed (state: complete).
 *
 * The layer is not for concurrent writers: one thread writes (reads may
 * come from any thread; they pass straight down).
 */
#ifndef CORE_UNDO_H
#define CORE_UNDO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fs/fs.h"

struct undo;

/*
 * Create journal file path (must not exist: O_EXCL) for fs, write and
 * fsync its header (and its directory), and stack the journaling layer on
 * fs->img (the fs then writes through it).  fs must be open read-write.
 * Call undo_end before fs_close.
 */
int undo_begin(struct fs *fs, const char *path, struct undo **out,
	       struct err *e);
/*
 * Blocks [linblock, linblock+len) (linear block numbers) were free when
 * the run began: writes there need no journal record, and undo leaves
 * whatever the run wrote there (the restored metadata calls them free).
 * Call it before writing there; a block already journaled stays so.
 */
int undo_mark_free(struct undo *u, uint64_t linblock, uint64_t len,
		   struct err *e);
/*
 * Journal the originals of the live blocks touching [off, off+len) bytes
 * now (those not yet journaled), without writing the image; make a batch
 * of them durable with one undo_sync.  (If a write comes first, it syncs.)
 */
int undo_prepare(struct undo *u, uint64_t off, uint64_t len, struct err *e);
int undo_sync(struct undo *u, struct err *e);
/* The sticky journal error, if any (0, or <0 with its message in e). */
int undo_error(const struct undo *u, struct err *e);
/*
 * The original bytes of [off, off+len), every block of which has been
 * journaled (the executor reads a move's source back from here when the
 * run already wrote over it).  -ENOENT if a block is not journaled.
 */
int undo_read_original(struct undo *u, uint64_t off, void *buf, size_t len,
		       struct err *e);
/* Bytes of original data journaled so far. */
uint64_t undo_bytes(const struct undo *u);
/*
 * Sync what is pending, append the completion record and fsync; the layer
 * stays in place, and later writes that would need a record fail.
 */
int undo_finish(struct undo *u, struct err *e);
/* Unstack the layer from the fs's img and close the journal (u may be
 * NULL).  Does not sync: undo_finish does. */
void undo_end(struct fs *fs, struct undo *u);

/* What undo_check learned about a journal. */
struct undo_info {
	uint8_t uuid[16];
	uint64_t dblocks;
	uint32_t blocksize;
	uint64_t records;	/* valid records */
	uint64_t bytes;		/* original bytes they hold */
	bool complete;		/* the run finished (UEND present) */
	bool torn_tail;		/* torn final records, ignored */
	char image[1024];	/* the image path recorded */
	/* more than the executor needs, for "undo --check" */
	uint64_t image_size;	/* recorded in the header */
	uint64_t ctime;		/* unix seconds */
	uint64_t torn;		/* records ignored as torn (torn_tail) */
};

/*
 * Verify journal path: header, every record's checksums, and that it
 * belongs to the filesystem fs (uuid, geometry).  Writes nothing.
 *   -EXDEV          the journal belongs to another filesystem (the
 *                   message names what differs)
 *   -EFSCORRUPTED,  the journal is damaged: a bad header, a bad record
 *   -EFSBADCRC      that is not the torn tail of an interrupted run
 * A torn tail is not an error: the records of the final, unsynced batch
 * whose checksums fail are ignored (info->torn_tail), because the ordering
 * rule kept their image writes from happening.
 */
int undo_check(const char *path, struct fs *fs, struct undo_info *info,
	       struct err *e);
/*
 * undo_check, calling each for every record in journal order (pos: byte
 * offset of its header in the journal; torn: ignored as a torn tail).
 */
typedef void (*undo_each_fn)(void *priv, uint64_t seq, uint64_t pos,
			     uint64_t off, uint32_t len, bool torn);
int undo_check_each(const char *path, struct fs *fs, struct undo_info *info,
		    undo_each_fn each, void *priv, struct err *e);
/*
 * Verify as undo_check, then write every record's original bytes back to
 * the image (fs must be open read-write) and fsync.  Idempotent.
 */
int undo_apply(const char *path, struct fs *fs, struct undo_info *info,
	       struct err *e);

/*
 * Open image for undo (flags: 0 or FS_RDWR) as fs_open does.  If its
 * primary superblock is unreadable (the run overwrote it) and journal
 * holds the original, open it with that original in place of sector 0
 * (an overlay for reads; writes go to the image), provided a secondary
 * superblock of the image shows it is the journal's filesystem (else
 * -EXDEV).  Returns 0, 1 when it used the journal's superblock, or <0.
 * Sets fs->mounted in both cases.
 */
int undo_open_fs(const char *journal, const char *image, unsigned flags,
		 struct fs **out, struct err *e);

#endif
