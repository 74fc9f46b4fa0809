/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the writer side of the undo journal (undo.c: the layer and
 * its records; undo_seal.c: the proof; undo_map.c: block maps).  Not a
 * public interface: see undo.h.
 */
#ifndef CORE_UNDO_PRIV_H
#define CORE_UNDO_PRIV_H

#include "core/undo/undo.h"
#include "ondisk/undo.h"

/*
 * A bitmap over block numbers in chunks allocated when first set: the
 * journaled set stays small, and free space is set only where it is; a
 * chunk set whole is one shared chunk.  Chunks are a page: a run that
 * rewrites the headers of 256 AGs touches a few chunks in each.
 */
#define BM_CHUNK_SHIFT	15			/* 2^15 bits: 4 KiB */
#define BM_CHUNK_BITS	(1ull << BM_CHUNK_SHIFT)
#define BM_CHUNK_WORDS	(BM_CHUNK_BITS / 64)

struct bitmap {
	uint64_t **chunk;
	size_t nchunks;
	uint64_t nbits;
};

int bm_init(struct bitmap *bm, uint64_t nbits);
void bm_free(struct bitmap *bm);
bool bm_test(const struct bitmap *bm, uint64_t bit);
/* Set bits [bit, bit+n); the caller checked the range.  0 or -ENOMEM. */
int bm_set(struct bitmap *bm, uint64_t bit, uint64_t n);
/* 0 or -ENOMEM (a chunk whose bits were all set gets its own copy). */
int bm_clear(struct bitmap *bm, uint64_t bit);
/* The first set bit >= bit, or nbits. */
uint64_t bm_next(const struct bitmap *bm, uint64_t bit);
/* Bits 64 w ... 64 w + 63 (bit 0: the first), zero past nbits. */
uint64_t bm_word(const struct bitmap *bm, uint64_t w);
/* The chunk holding bit: 0 all clear, 1 all set, -1 mixed (or unknown). */
int bm_chunk_state(const struct bitmap *bm, uint64_t bit);

/* A crc per block, in chunks allocated when first set. */
#define CM_CHUNK_SHIFT	10			/* 1024 crcs: 4 KiB */

struct crcmap {
	uint32_t **chunk;
	size_t nchunks;
	/* the chunks allocated, so that freeing never reads the whole
	 * table (a 15 TiB filesystem's is 32 MiB of mostly untouched
	 * pages) */
	size_t *used, nused, cap_used;
};

int cm_init(struct crcmap *cm, uint64_t nblocks);
void cm_free(struct crcmap *cm);
uint32_t cm_get(const struct crcmap *cm, uint64_t b);
int cm_set(struct crcmap *cm, uint64_t b, uint32_t crc);

/* A copy the executor made: blocks [src, src+n) now also at dst. */
struct umove {
	uint64_t src, dst, n;
	bool nocopy;		/* unwritten: remapped, nothing copied */
	bool usable;		/* every copy one whole-block write */
	size_t crc0;		/* the copies' crcs: mvcrc[crc0 .. crc0+n) */
};

struct undo {
	struct fs *fs;
	struct img *layer;	/* ours while stacked, NULL once closed */
	char *path;
	int fd;
	uint64_t nonce;
	uint32_t bs;
	unsigned blocklog;
	uint64_t size;		/* image bytes */
	uint64_t nblocks;	/* blocks covering the image (last partial) */
	struct bitmap done;	/* journaled */
	struct bitmap free;	/* free when the run began */
	void *index;		/* tsearch tree of record_loc, by block */
	uint64_t end;		/* journal length: next record here */
	uint64_t seq;		/* next record's sequence number */
	uint64_t batch;		/* first unsynced record (seq: none) */
	uint64_t bytes;		/* original bytes journaled */
	bool sealed;		/* proof written: no more data records */
	bool finished;		/* UEND written */
	struct err err;		/* sticky: the journal failed */
	uint8_t *buf;		/* record header + data */
	/* what the run leaves, for the proof (undo_seal.c) */
	struct bitmap wrote;	/* written through the layer */
	struct bitmap partial;	/* written in part: crc read back at seal */
	struct bitmap free_end;	/* free when the run ends */
	bool free_end_known;
	struct crcmap crc;	/* of each block as last written */
	struct umove *mv;
	size_t nmv, capmv;
	uint32_t *mvcrc;
	size_t nmvcrc, capmvcrc;
	uint64_t image_writes;	/* writes that reached the layer below */
	uint64_t log_off, log_len;
	uint32_t log_crc;
	/* references (undo_ref.c): originals found at the run's copies */
	struct crcmap srcmv;	/* per block: 1 + the last move from it */
	struct crcmap cpmv;	/* per block: 1 + the last move to it */
	struct crcmap wgen;	/* per block: flush generation of its write */
	uint32_t gen;		/* image flushes so far, plus one */
	bool need_flush;	/* a reference's copy is not yet flushed */
	struct bitmap refcopy;	/* blocks holding a live reference's copy */
	struct crcmap refat;	/* per copy block: 1 + the live reference
				 * naming it (0: none) */
	struct crcmap refof;	/* per block journaled by reference: 1 +
				 * its live reference (0: none) */
	struct uref *rf;	/* every reference made, in journal order */
	size_t nrf, caprf;
	uint8_t *refbuf;	/* entries not yet appended */
	uint32_t reflen;
	uint64_t refbytes;	/* data bytes of the reference records */
	uint8_t *rbuf;		/* originals read ahead of their records */
};

/* A reference the writer made: the originals of [d, d+n) are at e. */
struct uref {
	uint64_t d, e;
	uint32_t n, crc;
	bool live;		/* not superseded by a data record */
};

/* Where a block's original is (the tsearch index over blocks). */
struct record_loc {
	uint64_t b, n;		/* blocks [b, b+n) */
	uint64_t pos;		/* data record's header in the journal */
	size_t ref;		/* or a reference (u->rf index), SIZE_MAX */
};

int undo_index_add(struct undo *u, uint64_t b, uint64_t n, uint64_t pos,
		   size_t ref);
/* The index entry holding block b, or NULL. */
struct record_loc *undo_index_find(struct undo *u, uint64_t b);
void undo_index_del(struct undo *u, uint64_t b);
/*
 * Append a data record of blocks [b, b+n) whose bytes (len of them: the
 * image's last block may be partial) are in u->buf after the record
 * header; mark them journaled and index them.
 */
int undo_put_data(struct undo *u, uint64_t b, uint64_t n, uint64_t len,
		  struct err *e);

/* undo_ref.c */
/* The block holding d's original as the run copied it, if that copy is
 * intact and outside blocks [wfirst, wlast] (about to be written), and
 * d's original has crc; else UINT64_MAX. */
uint64_t uref_copy_of(struct undo *u, uint64_t d, uint32_t crc,
		      uint64_t wfirst, uint64_t wlast);
/* Reference [d, d+n) -> [c, c+n) (crc: of the n blocks), appended with
 * the next uref_flush. */
int uref_add(struct undo *u, uint64_t d, uint64_t c, uint32_t n,
	     uint32_t crc, struct err *e);
int uref_flush(struct undo *u, struct err *e);
/* Before blocks [first, last] are written: every live reference whose
 * copy they touch becomes a data record (*any: one did). */
int uref_supersede_range(struct undo *u, uint64_t first, uint64_t last,
			 bool *any, struct err *e);
/* At the seal: references whose copy is not in the proof become data
 * records (a later writer may reuse the copy). */
int uref_seal(struct undo *u, struct err *e);
void uref_free(struct undo *u);

/* Largest record the writer appends: one read, one pwrite. */
#define UNDO_REC_DATA	(1u << 20)

/* Record the journal's failure; it sticks.  Returns code. */
int undo_fail(struct undo *u, int code, const char *what);
/* The sticky error into e (0 if none). */
int undo_sticky(const struct undo *u, struct err *e);
int undo_journal_sync(struct undo *u);
/* Append a data record of the originals of blocks [b, b+n), read below. */
int undo_append_data(struct undo *u, uint64_t b, uint64_t n, struct err *e);
/* Append a record of another kind holding len bytes of data. */
int undo_append_meta(struct undo *u, enum od_undo_kind kind,
		     const uint8_t *data, uint32_t len, struct err *e);
/* Note a successful write of [off, off+len) for the proof. */
int undo_note_written(struct undo *u, const uint8_t *buf, uint64_t off,
		      uint64_t len);
/* fsync the directory holding path (its new or removed entry). */
int undo_sync_dir(const char *path);

/* The end of a finished undo file (chain_link.c), read from its end. */
struct undo_tail {
	uint64_t fsize;
	uint64_t nonce, chain;
	uint32_t pass, version;
	uint64_t end_at;	/* the byte after its end record */
	uint32_t seal_dcrc;	/* its seal record's data crc */
	uint32_t seal_sb_crc;	/* the superblock it left */
	bool has_next;		/* a link record follows */
	struct od_undo_next next;
};
/* 0, or -EFSCORRUPTED (no end record, no seal before it) in e. */
int undo_tail_read(const char *path, struct undo_tail *t, struct err *e);
/* Append (in place of any) the link record naming the next pass's file;
 * fsync. */
int undo_link_put(const char *path, uint64_t next_nonce, unsigned next_pass,
		  struct err *e);
/* Drop the link record, if it names only (0: whichever); fsync. */
int undo_link_drop(const char *path, uint64_t only, struct err *e);

#endif
