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
 * block journals the whole block, once.  A block whose original the run
 * already copied elsewhere (undo_note_move, that copy intact) is
 * journaled as a reference to the copy instead (undo_ref.c).  Journaled and free-at-start
 * blocks are tracked in bitmaps over linear block numbers (byte offset /
 * blocksize, i.e. agno * agblocks + agbno), covering the whole image.
 *
 * Ordering rule: a write reaches the layer below only after the journal
 * records of every live block it touches are durable (fsync'd), and the
 * copies its references name too (the image flushed); a write to such a
 * copy first turns the reference into a durable data record.  Any
 * failure to write or fsync the journal fails the image write and every
 * later journaling call (the error sticks: see undo_error); nothing is
 * ever written unjournaled.
 *
 * Undo checks that the filesystem is as the run left it (undo_seal.c
 * writes the proof, undo_verify.c checks it): the log as it was when the
 * run began (crc in the header), the superblock (NEEDSREPAIR and the
 * run's mark while the run writes; its final crc once sealed), and once
 * sealed the crc of every block the run wrote; the blocks the run
 * vacated are journaled or found at their copies, so later writes to them
 * lose nothing.
 *
 * File format: ondisk/undo.h (offsets) and xfsdefrag(8), "UNDO FILE".
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
 * Create journal file path (must not exist: O_EXCL) for fs, write its
 * header and the original of block 0 (the first block the run writes,
 * for the superblock's mark) in one write, fsync it (and its directory),
 * and stack the journaling layer on fs->img (the fs then writes through
 * it).  fs must be open read-write.  Call undo_end before fs_close.
 */
int undo_begin(struct fs *fs, const char *path, struct undo **out,
	       struct err *e);
/*
 * The same for pass link->pass of a run in passes (chain.h): link->prev
 * is the file of the pass before (pass > 1), complete, and fs must be as
 * that pass left it (the superblock its seal names).  The new file names
 * its pass and the file before; once it is durable, a link record naming
 * it is appended to the file before and synced, before any image write.
 * link NULL, or pass 1: as undo_begin.
 */
struct undo_link {
	unsigned pass;		/* from 1 */
	const char *prev;	/* pass - 1's undo file (pass > 1) */
};
int undo_begin_pass(struct fs *fs, const char *path,
		    const struct undo_link *link, struct undo **out,
		    struct err *e);
/*
 * Blocks [linblock, linblock+len) (linear block numbers) were free when
 * the run began: writes there need no journal record, and undo leaves
 * whatever the run wrote there (the restored metadata calls them free).
 * Call it before writing there; a block already journaled stays so.
 */
int undo_mark_free(struct undo *u, uint64_t linblock, uint64_t len,
		   struct err *e);
/* Were blocks [linblock, linblock+n) all free when the run began? */
bool undo_was_free(const struct undo *u, uint64_t linblock, uint64_t n);
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
/* Bytes of the journal's data and reference records so far. */
uint64_t undo_bytes(const struct undo *u);
/*
 * Blocks [linblock, linblock+len) are free when the run ends (its new
 * free space): blocks live at the start, free at the end and never
 * written are what a later writer may reuse; undo_seal makes undo
 * independent of them.  Without any such call, nothing is taken as free.
 */
int undo_mark_free_end(struct undo *u, uint64_t linblock, uint64_t len,
		       struct err *e);
/*
 * The run copied blocks [src, src+n) to [dst, dst+n) (written through the
 * layer just now); nocopy: an unwritten range remapped without copying,
 * whose old blocks hold nothing anyone reads.
 */
int undo_note_move(struct undo *u, uint64_t src, uint64_t dst, uint64_t n,
		   bool nocopy, struct err *e);
/*
 * Seal the journal once every write but the last superblock write is
 * done: journal the vacated blocks no intact copy holds, append the move
 * and proof records, and the seal with the crc of sb_final (the
 * superblock sector as it will be written next; NULL: as it is now);
 * fsync.  Afterwards writes that need a record fail.  Idempotent.
 */
int undo_seal(struct undo *u, const uint8_t *sb_final, struct err *e);
/*
 * Mark a superblock sector (in memory) as the run's while it writes: set
 * NEEDSREPAIR and the run's mark (on), or clear both (off); re-crc.
 */
void undo_sb_mark(const struct undo *u, uint8_t *sector, uint32_t sectsize,
		  bool on);
/*
 * Seal if not yet sealed, append the completion record and fsync; the
 * layer stays in place, and later writes that would need a record fail.
 */
int undo_finish(struct undo *u, struct err *e);
uint64_t undo_nonce(const struct undo *u);
/* Image writes that reached the layer below (0: the image is untouched). */
uint64_t undo_image_writes(const struct undo *u);
const char *undo_path(const struct undo *u);
/* The internal log's byte range in the image (0, 0 when external). */
void undo_log_range(const struct fs *fs, uint64_t *off, uint64_t *len);
/* crc32c (undo file style) of image bytes [off, off+len). */
int undo_crc_range(struct img *im, uint64_t off, uint64_t len,
		   uint32_t *crc);
/* The same, continuing the running (not yet inverted) crc in *crc. */
int undo_crc_update(struct img *im, uint64_t off, uint64_t len,
		    uint32_t *crc);
/* Unstack the layer from the fs's img and close the journal (u may be
 * NULL).  Does not sync: undo_finish does. */
void undo_end(struct fs *fs, struct undo *u);

/* How far the run got, by its undo file. */
enum undo_state {
	UNDO_INTERRUPTED,	/* no seal: the run stopped while writing */
	UNDO_SEALED,		/* sealed, no end record: stopped at the end */
	UNDO_COMPLETE,		/* end record: the run finished */
};

/* Where undo found the filesystem, by a file (undo_chain_undo). */
enum undo_found {
	UNDO_FOUND_NONE,	/* not checked (an earlier file failed) */
	UNDO_FOUND_END,		/* as the run (pass) left it */
	UNDO_FOUND_START,	/* as before it: never written, or undone */
	UNDO_FOUND_MIDWAY,	/* an undo of it was interrupted */
	UNDO_FOUND_RUN,		/* the run was interrupted while writing */
	UNDO_FOUND_DONE,	/* undone by an earlier undo of the chain */
};

/* What undo_check learned about a journal. */
struct undo_info {
	uint8_t uuid[16];
	uint64_t dblocks;
	uint32_t blocksize;
	uint64_t records;	/* valid records */
	uint64_t bytes;		/* original bytes they hold */
	uint64_t ref_blocks;	/* v4: blocks whose originals are at copies */
	uint64_t ref_bytes;	/* v4: bytes of the records saying so */
	bool complete;		/* the run finished (UEND present) */
	bool torn_tail;		/* torn final records, ignored */
	char image[1024];	/* the image path recorded */
	/* more than the executor needs, for "undo --check" */
	uint64_t image_size;	/* recorded in the header */
	uint64_t ctime;		/* unix seconds */
	uint64_t torn;		/* records ignored as torn (torn_tail) */
	uint32_t version;
	enum undo_state state;
	uint64_t proof_blocks;	/* blocks whose state the proof records */
	uint64_t move_blocks;	/* vacated blocks found at their copies */
	uint64_t copies;	/* of those, reused since: undo copies back */
	bool log_checked;	/* the log's crc was in the header */
	bool undo_begun;	/* the superblock carries this file's undo mark */
	/* v3: its pass (0 before), and the next pass's file began */
	unsigned pass;
	bool has_next;
	enum undo_found found;	/* where the filesystem is, by this file */
	bool present;		/* the file exists (chains) */
};

/*
 * Verify journal path: header, every record's checksums, that it belongs
 * to the filesystem fs (uuid, geometry), and that the filesystem is as
 * the run left it (undo_verify.c).  Writes nothing.
 *   -EXDEV          the journal belongs to another filesystem (the
 *                   message names what differs)
 *   -EFSCORRUPTED,  the journal is damaged: a bad header, a bad record
 *   -EFSBADCRC      that is not the torn tail of an interrupted run
 *   -ESTALE         the filesystem changed since the run: undoing would
 *                   destroy what was written since (the message says
 *                   what changed)
 *   -EPROTO         a version 1 file: it holds no proof of the state the
 *                   run left, so undo refuses it
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
 * Verify as undo_check, then restore (fs must be open read-write): mark
 * the superblock (NEEDSREPAIR and this file's undo mark), copy back the
 * vacated blocks reused since, write every record's original bytes but
 * the superblock's, read them back, and last the original superblock,
 * with an fsync after each step.  Again after an interrupted undo, it
 * finishes; once the filesystem is as before, it writes nothing.  The
 * file alone, whatever its pass (chain.h undoes a run in passes).
 */
int undo_apply(const char *path, struct fs *fs, struct undo_info *info,
	       struct err *e);

/* The image size the undo file's header records (its run began with). */
int undo_image_size(const char *journal, uint64_t *size, struct err *e);

/*
 * Open image for undo (flags: 0 or FS_RDWR, and FS_PART(N)) as fs_open
 * does.  An image file shorter than the undo file's run began with (a
 * shrink cut it) reads as that long, zeros past its end, until
 * undo_apply extends it.  If its primary superblock is unreadable (the
 * run overwrote it) and journal holds the original, open it with that
 * original in place of sector 0 (an overlay for reads; writes go to the
 * image), provided a secondary superblock of the image shows it is the
 * journal's filesystem (else -EXDEV).  Returns 0, 1 when it used the
 * journal's superblock, or <0.
 * Sets fs->mounted in both cases.
 */
int undo_open_fs(const char *journal, const char *image, unsigned flags,
		 struct fs **out, struct err *e);
/* The same over an open img (taken over, closed on failure), named name. */
int undo_open_img(const char *journal, struct img *im, const char *name,
		  unsigned flags, struct fs **out, struct err *e);

#endif
