/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the undo of a chain (chain.c: the files and their checks;
 * chain_view.c: the image as undoing later passes would leave it;
 * chain_apply.c: the writes).  Not a public interface: see chain.h.
 */
#ifndef CORE_UNDO_CHAIN_PRIV_H
#define CORE_UNDO_CHAIN_PRIV_H

#include "core/undo/chain.h"
#include "core/undo/undo_priv.h"
#include "core/undo/undo_scan.h"

/* One file of the chain (pass k: m[k]). */
struct chain_member {
	unsigned pass;		/* as named (alone: as its header says) */
	char *path;
	bool present;
	bool scanned;		/* s is open and read */
	struct scan s;
	int bad;		/* why it cannot be used (0: it can) */
	struct err why;
	struct uverify v;
	bool verified;		/* v is filled */
	enum undo_found found;
	uint64_t blocks;	/* blocks its records hold */
};

/* Blocks [b, b+n) of a view read from a file (src >= 1: m[src]'s
 * journal) or the image (src 0), at byte base for block b. */
struct view_ext {
	uint64_t b, n;
	unsigned src;
	uint64_t base;
};

struct view_map {
	struct view_ext *e;
	size_t n, cap;
};

struct uchain {
	struct fs *fs;
	const struct undo_chain_opts *o;
	struct undo_chain_result *r;
	struct err *e;
	const char *file;
	bool alone;		/* the file by itself (o->alone, or a
				 * later pass's file named, the last) */
	struct chain_member *m;		/* m[1 .. n] */
	unsigned n;
	unsigned top, stop;
	int mark;		/* the superblock's mark (OD_UNDO_MARK_*) */
	uint64_t mark_nonce;
	struct view_map map;	/* undoing m[top .. k+1] (views) */
	struct img view;	/* the image through map */
	struct log_now log;
	uint32_t bs, ss;
	unsigned blocklog;
	uint64_t nblocks;
};

/* chain.c */
void chain_say(struct uchain *c, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* chain_view.c */
/* c->view reads the image as c->map says; call once. */
void chain_view_init(struct uchain *c);
/* Lay m[k]'s undo over the map: its copies, then its records. */
int chain_view_add(struct uchain *c, unsigned k);
void chain_view_free(struct uchain *c);

/*
 * Compare the image with what undoing m[hi .. lo] leaves (the lowest
 * file holding a block decides it), the superblock's sector aside:
 * *differ blocks differ, the first few named in where.
 */
int chain_cmp(struct uchain *c, unsigned lo, unsigned hi, uint64_t *differ,
	      char *where, size_t len);

/* chain_apply.c: restore m[top .. stop+1] (chain.h) and finish. */
int chain_apply(struct uchain *c);

/* undo_apply.c: the steps of one file's restore */
int undo_write_mark(struct fs *fs, const uint8_t *orig, uint64_t nonce,
		    struct err *e);
int undo_write_copies(struct scan *s, struct fs *fs, const struct uverify *v,
		      struct err *e);
int undo_write_records(struct scan *s, struct fs *fs, bool skip_sb,
		       struct err *e);
int undo_put_sb(struct fs *fs, const uint8_t *sector, struct err *e);
/* An image file shorter than the run found it (a shrink): extended. */
int undo_extend(struct scan *s, struct fs *fs, struct err *e);
void undo_fill_info(const struct scan *s, const struct uverify *v,
		    struct undo_info *info);

#endif
