/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading an undo file back (undo_scan.c), shared with the state check
 * (undo_verify.c) and the restore (undo_apply.c).  Not a public
 * interface: see undo.h.
 */
#ifndef CORE_UNDO_SCAN_H
#define CORE_UNDO_SCAN_H

#include "core/undo/undo.h"
#include "ondisk/undo.h"

struct journal_rec {
	uint64_t seq;
	uint64_t pos;		/* of the record header in the journal */
	uint64_t off;		/* in the image (data records) */
	uint32_t len;
	uint32_t dcrc;
	enum od_undo_kind kind;
};

/* A reference entry (v4): the originals of [d, d+n) are at [c, c+n). */
struct scan_ref {
	uint64_t d, c;
	uint32_t n, crc;
	uint64_t seq, pos;	/* its record */
	bool live;		/* no later data record supersedes it */
};

struct scan {
	const char *path;
	int fd;
	uint64_t fsize;
	struct od_undo_hdr h;
	struct journal_rec *v;	/* valid data records (by offset, once checked) */
	size_t n, cap;
	struct journal_rec *m;	/* proof and move records, in journal order */
	size_t nm, capm;
	struct scan_ref *rf;	/* reference entries, in journal order */
	size_t nrf, caprf;
	const struct scan_ref **lv;	/* the live ones, by block */
	size_t nlv;
	uint64_t ref_blocks;	/* blocks of the live ones */
	uint64_t ref_bytes;	/* data bytes of the reference records */
	uint64_t bytes;
	uint64_t torn;
	bool complete;		/* an end record */
	bool sealed;		/* a seal record (its counts checked later) */
	struct od_undo_seal seal;
	uint32_t seal_dcrc;	/* its data's crc: the file's identity in a chain */
	uint64_t end_at;	/* complete: the byte after the end record */
	bool has_next;		/* v3: a link record after the end record */
	bool next_torn;		/* v3: bytes after the end record, no link */
	struct od_undo_next next;
	uint8_t *buf;		/* record data */
	size_t buflen;
	undo_each_fn each;	/* may be NULL */
	void *priv;
};

/*
 * Header, identity (if fs), records, overlaps: everything but the state
 * of the filesystem.  Free with scan_free, also after a failure.
 */
int scan_all(struct scan *s, const char *path, struct fs *fs,
	     undo_each_fn each, void *priv, struct err *e);
void scan_free(struct scan *s);
void scan_fill_info(const struct scan *s, struct undo_info *info);
int scan_read_at(struct scan *s, void *buf, size_t len, uint64_t pos,
		 struct err *e);
/* Make room for len bytes in s->buf. */
int scan_data_buf(struct scan *s, size_t len, struct err *e);
int scan_damaged(struct scan *s, struct err *e, uint64_t pos,
		 const char *what);
void undo_fmt_uuid(const uint8_t *u, char *out);

/* The image below the superblock overlay (undo_open_fs), for raw reads. */
struct img *undo_raw_img(struct fs *fs);

/*
 * Is the filesystem as the run left it?  (undo_verify.c)  Fills what
 * undo_apply needs: the original superblock sector and the copies to make.
 */
struct ucopy {
	uint64_t x, y, n;	/* blocks [x, x+n) get the bytes at [y, y+n) */
};

/* A proof record's run: blocks [b, b+n), their crcs at crc[c0 ..]. */
struct proof_run {
	uint64_t b;
	uint32_t n;
	size_t c0;
};

/* The proof and move records of a file. */
struct uproof {
	struct proof_run *run;
	size_t nrun, caprun;
	uint32_t *crc;
	size_t ncrc, capcrc;
	struct ucopy *mv;	/* the move entries, as recorded */
	size_t nmv, capmv;
};

/* Where the file's run is, by the filesystem (a view of it). */
enum uv_where {
	UV_NONE,
	UV_AT_END,	/* as the run left it (sealed) */
	UV_AT_START,	/* as before the run: never written, or undone */
	UV_MIDWAY,	/* an undo of this file had begun (its mark) */
	UV_RUN,		/* the run was interrupted (its mark) */
};

/* UV_TOP: any state a file alone may be found in; UV_END: as left. */
enum uv_mode { UV_TOP, UV_END };

struct uverify {
	uint8_t *orig_sb;	/* the original superblock sector, or NULL */
	bool undo_begun;	/* it carries this file's undo mark */
	enum uv_where where;
	struct ucopy *cp;	/* the vacated blocks to copy back */
	size_t ncp, capcp;
	uint64_t copy_blocks;
	uint64_t proof_blocks, move_blocks;
	struct uproof p;
};

/* The log's crc now: computed once for the files of a chain. */
struct log_now {
	uint64_t off, len;
	uint32_t crc;
	bool have;
};

/*
 * Check s against fs as seen through view (NULL: the image): fills v;
 * log may be NULL.  0, or the refusal in e (nothing was written).
 */
int undo_verify(struct scan *s, struct fs *fs, struct img *view,
		enum uv_mode mode, struct log_now *log, struct uverify *v,
		struct err *e);
void undo_verify_free(struct uverify *v);

/* Read s's proof and move records (a seal they do not add up to, from a
 * torn batch, is no seal: s->sealed cleared). */
int undo_proof_load(struct scan *s, uint64_t nblocks, struct uproof *p,
		    struct err *e);
void undo_proof_free(struct uproof *p);
/* Index into p->crc of block b, or SIZE_MAX. */
size_t undo_proof_at(const struct uproof *p, uint64_t b);

#define UNDO_NFIRST	4
struct bitmap;
int undo_cmp_records(struct scan *s, const struct uproof *p, struct fs *fs,
		     struct img *im, struct bitmap *covered, bool skip_sb,
		     uint64_t *differ, uint64_t *first, int *nfirst,
		     struct err *e);
/* The live reference holding image block b, or NULL. */
const struct scan_ref *scan_ref_of(const struct scan *s, uint64_t b);
/* The data record holding image block b, or NULL (s->v sorted). */
const struct journal_rec *scan_record_of(const struct scan *s, uint64_t b);

/*
 * The references (undo_verify.c): every live one restorable in view im
 * (its blocks hold the original, or its copy does); sealed (p): its copy
 * in the proof.  0, or the refusal in e.
 */
int undo_check_refs(struct scan *s, const struct uproof *p, struct fs *fs,
		    struct img *im, struct err *e);
/*
 * -ESTALE: neither reference f's blocks nor its copy hold the original
 * (image img, undo file undo); what then ends the message (undo_verify.c).
 */
int undo_ref_lost(struct err *e, const char *img, const char *undo,
		  const struct scan_ref *f, const char *then);
/* Copy the live references back, last first (undo_apply.c); fsync. */
int undo_write_refs(struct scan *s, struct fs *fs, struct err *e);

/* "ag A block B (the agf), ..." for the first n of first[]. */
void undo_name_blocks(const struct fs *fs, const uint64_t *first, int n,
		      char *out, size_t len);

#endif
