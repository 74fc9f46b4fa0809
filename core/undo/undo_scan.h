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

struct urec {
	uint64_t seq;
	uint64_t pos;		/* of the record header in the journal */
	uint64_t off;		/* in the image (data records) */
	uint32_t len;
	uint32_t dcrc;
	enum od_undo_kind kind;
};

struct scan {
	const char *path;
	int fd;
	uint64_t fsize;
	struct od_undo_hdr h;
	struct urec *v;		/* valid data records (by offset, once checked) */
	size_t n, cap;
	struct urec *m;		/* proof and move records, in journal order */
	size_t nm, capm;
	uint64_t bytes;
	uint64_t torn;
	bool complete;		/* an end record */
	bool sealed;		/* a seal record (its counts checked later) */
	struct od_undo_seal seal;
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

struct uverify {
	uint8_t *orig_sb;	/* the original superblock sector, or NULL */
	bool undo_begun;	/* it carries this file's undo mark */
	struct ucopy *cp;
	size_t ncp, capcp;
	uint64_t copy_blocks;
	uint64_t proof_blocks, move_blocks;
};

int undo_verify(struct scan *s, struct fs *fs, struct uverify *v,
		struct err *e);
void undo_verify_free(struct uverify *v);

#endif
