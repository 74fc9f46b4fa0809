/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The data pass over a directory (check_dir.h): every data block (and
 * the single block of a block-format directory) held to the kernel's
 * data block verifier (__xfs_dir3_data_check): entries and free regions
 * tiling the block, no two free regions side by side, the bestfree
 * table sorted, exact for the regions it names and naming the three
 * largest; each entry's inode number, file type and name.  Each entry's
 * name hash and address, and each block's largest free region, are kept
 * for the index pass.
 */
#include "core/check/check_dir.h"
#include "core/base/array.h"
#include "core/base/bigmem.h"
#include "ondisk/dahash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dirck_problem(struct dirck *k, enum check_code code, const char *what,
		   const char *msg)
{
	struct check_log *log = &k->ca->log;

	if (k->problems++ >= DIRCK_MAX_PROBLEMS) {
		log->count++;
		return;
	}
	switch (code) {
	case PR_DIR_HASH:
		check_problem(log, DIR_HASH, what, msg);
		break;
	case PR_DIR_BESTFREE:
		check_problem(log, DIR_BESTFREE, what, msg);
		break;
	case PR_DIR_FREEINDEX:
		check_problem(log, DIR_FREEINDEX, what, msg);
		break;
	case PR_DIR_NODE:
		check_problem(log, DIR_NODE, what, msg);
		break;
	default:
		check_problem(log, DIR_DATA, what, msg);
		break;
	}
}

int dirck_read(struct dirck *k, uint64_t dablk, const char *kind, char *what,
	       size_t len)
{
	struct err e = { 0 };

	snprintf(what, len, "directory %llu %s block %llu", k->ino, kind,
		 (unsigned long long)dablk);
	if (dir_read_block(k->d, dablk, k->buf, &e)) {
		if (e.code == -ENOMEM) {
			check_fatal(k->c, e.code);
			return e.code;
		}
		dirck_problem(k, PR_DIR_DATA, what, e.msg);
		return e.code ? e.code : -EFSCORRUPTED;
	}
	dir_block_name(k->d, kind, dablk, what, len);
	return 0;
}

int dirck_add(struct dirck *k, const uint8_t *name, uint8_t namelen,
	      uint32_t addr)
{
	struct dirck_ent *x;

	if (bigmem_grow((void **)&k->ent, &k->cap_ent, k->nent,
			sizeof(*k->ent)))
		return -ENOMEM;
	if (array_reserve((void **)&k->names, &k->cap_names,
			  k->nnames + namelen, 1, 4096))
		return -ENOMEM;
	x = &k->ent[k->nent++];
	x->hash = k->ci ? od_da_hashname_ci(name, namelen) :
			  od_da_hashname(name, namelen);
	x->addr = addr;
	x->name = (uint32_t)k->nnames;
	x->namelen = namelen;
	memcpy(k->names + k->nnames, name, namelen);
	k->nnames += namelen;
	return 0;
}

static int set_best(struct dirck *k, uint64_t db, uint16_t v)
{
	while (k->nbest <= db) {
		if (bigmem_grow((void **)&k->best, &k->cap_best, k->nbest,
				sizeof(*k->best)))
			return -ENOMEM;
		k->best[k->nbest++] = OD_DIR2_NULL_DATAOFF;
	}
	k->best[db] = v;
	return 0;
}

/* The bestfree table itself: zero slots at the end, largest first. */
static int bestfree_table(struct dirck *k, const char *what,
			  const struct od_dir2_data_hdr *h, unsigned *seen)
{
	char msg[96];
	unsigned i;

	for (i = 0; i < 3; i++) {
		if (h->best_len[i])
			continue;
		if (h->best_off[i]) {
			snprintf(msg, sizeof(msg), "bestfree[%u]: length 0 at "
				 "offset %u", i, h->best_off[i]);
			dirck_problem(k, PR_DIR_BESTFREE, what, msg);
			return -1;
		}
		*seen |= 1u << i;
	}
	if (h->best_len[0] < h->best_len[1] ||
	    h->best_len[1] < h->best_len[2]) {
		snprintf(msg, sizeof(msg), "bestfree lengths %u, %u, %u are "
			 "not largest first", h->best_len[0], h->best_len[1],
			 h->best_len[2]);
		dirck_problem(k, PR_DIR_BESTFREE, what, msg);
		return -1;
	}
	return 0;
}

/* One free region at off, len bytes, against the table
 * (xfs_dir2_data_freefind_verify, then the accounting of data_check). */
static int bestfree_region(struct dirck *k, const char *what,
			   const struct od_dir2_data_hdr *h, uint32_t off,
			   uint32_t len, unsigned *seen)
{
	const char *why = NULL;
	bool seenzero = false, matched = false;
	char msg[128];
	int found = -1;
	unsigned i;

	for (i = 0; i < 3 && !why; i++) {
		uint32_t bo = h->best_off[i], bl = h->best_len[i];

		if (!bo) {
			if (bl)
				why = "a slot with no offset has a length";
			seenzero = true;
			continue;
		}
		if (seenzero)
			why = "a used slot after an empty one";
		else if (bo == off) {
			matched = true;
			found = (int)i;
			if (bl != len)
				why = "the slot naming it has another length";
		} else if (bo > off ? off + len > bo : bo + bl > off) {
			why = "a slot overlaps it";
		}
		if (!why && !matched && bl < len)
			why = "the table omits it though it is larger than a "
			      "slot";
	}
	if (!why && found >= 0 && (*seen & (1u << found)))
		why = "two regions claim one slot";
	if (!why && found < 0 && len > h->best_len[2])
		why = "it is larger than the smallest slot but not in the "
		      "table";
	if (why) {
		snprintf(msg, sizeof(msg), "free region at %u (%u bytes): %s",
			 off, len, why);
		dirck_problem(k, PR_DIR_BESTFREE, what, msg);
		return -1;
	}
	if (found >= 0)
		*seen |= 1u << found;
	return 0;
}

/* A zero byte in v (the classic bit trick: exact, no false hits). */
static inline bool has_zero(uint64_t v)
{
	return ((v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull) != 0;
}

/* No '/' and no NUL: eight bytes at a time, then the tail. */
static bool name_ok(const uint8_t *name, uint8_t len)
{
	unsigned i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t v;

		memcpy(&v, name + i, sizeof(v));
		if (has_zero(v) || has_zero(v ^ 0x2f2f2f2f2f2f2f2full))
			return false;
	}
	for (; i < len; i++)
		if (name[i] == '/' || name[i] == '\0')
			return false;
	return true;
}

/* Where data_entries is in one block. */
struct dent {
	uint64_t base;		/* the block's byte offset in the data space */
	unsigned seen;		/* bestfree slots matched */
	bool lastfree;
	uint32_t count;		/* entries so far */
};

/* The entry (or free region, if unused) from at to pos, parsed. */
static int data_entry(struct dirck *k, const char *what,
		      const struct od_dir2_data_hdr *h, struct dent *st,
		      uint32_t at, uint32_t pos, const struct od_dirent *de,
		      bool unused)
{
	const struct od_geo *g = k->g;
	char msg[160];
	int ret;

	if (unused) {
		if (st->lastfree) {
			snprintf(msg, sizeof(msg), "free regions side by side "
				 "at offset %u (not merged)", at);
			dirck_problem(k, PR_DIR_DATA, what, msg);
			return -1;
		}
		if (bestfree_region(k, what, h, at, pos - at, &st->seen))
			return -1;
		st->lastfree = true;
		return 0;
	}
	st->lastfree = false;
	st->count++;
	if (!od_ino_valid(g, de->ino) || (g->ftype && de->ftype >= OD_FT_MAX)) {
		snprintf(msg, sizeof(msg), "entry at offset %u: inode %llu, "
			 "file type %u", at, (unsigned long long)de->ino,
			 de->ftype);
		dirck_problem(k, PR_DIR_DATA, what, msg);
		return -1;
	}
	if (!name_ok(de->name, de->namelen)) {
		snprintf(msg, sizeof(msg), "at offset %u: the name holds '/' "
			 "or a NUL byte", at);
		check_problem(&k->ca->log, DIR_NAME, what, st->count, msg);
	}
	ret = dirck_add(k, de->name, de->namelen,
			(uint32_t)((st->base + at) >> 3));
	if (ret) {
		check_fatal(k->c, ret);
		return ret;
	}
	return 0;
}

/* After the last entry: every bestfree slot named a free region. */
static int data_entries_end(struct dirck *k, const char *what,
			    const struct dent *st)
{
	if (st->seen != 7) {
		dirck_problem(k, PR_DIR_BESTFREE, what, "a bestfree slot "
			      "names no free region");
		return -1;
	}
	return 0;
}

/* Entries and free regions of one block; adds entries to k. */
static int data_entries(struct dirck *k, uint64_t dablk, const char *what,
			const struct od_dir2_data_hdr *h)
{
	const struct od_geo *g = k->g;
	struct dent st = { dablk << g->blocklog, 0, false, 0 };
	uint32_t pos;
	char msg[160];
	int ret;

	if (bestfree_table(k, what, h, &st.seen))
		return -1;
	for (pos = h->hdr_len; pos < h->end;) {
		struct od_dirent de;
		const char *field;
		uint32_t at = pos;
		bool unused;

		if (od_dir2_data_entry(k->buf, h, g->ftype, &pos, &de, &unused,
				       &field)) {
			snprintf(msg, sizeof(msg), "at offset %u: bad %s", at,
				 field);
			dirck_problem(k, PR_DIR_DATA, what, msg);
			return -1;
		}
		ret = data_entry(k, what, h, &st, at, pos, &de, unused);
		if (ret)
			return ret;
	}
	return data_entries_end(k, what, &st);
}

/* The hash index inside a block-format directory block. */
static int block_leaves(struct dirck *k, const char *what,
			const struct od_dir2_data_hdr *h)
{
	const uint8_t *ents = k->buf + h->end;
	uint32_t i, hash, addr, prev = 0, stale = 0;
	char msg[96];

	for (i = 0; i < h->leaf_count; i++) {
		od_dir2_leaf_entry(ents, i, &hash, &addr);
		if (i && hash < prev) {
			snprintf(msg, sizeof(msg), "leaf entry %u: hash 0x%x "
				 "below the one before it (0x%x)", i, hash,
				 prev);
			dirck_problem(k, PR_DIR_HASH, what, msg);
			return -1;
		}
		prev = hash;
		if (addr == OD_DIR2_NULL_DATAPTR) {
			stale++;
		} else if (dirck_leaf_add(k, hash, addr)) {
			check_fatal(k->c, -ENOMEM);
			return -ENOMEM;
		}
	}
	if (stale != h->leaf_stale) {
		snprintf(msg, sizeof(msg), "tail says %u stale leaf entries, "
			 "there are %u", h->leaf_stale, stale);
		dirck_problem(k, PR_DIR_HASH, what, msg);
		return -1;
	}
	dirck_compare(k, what);
	return 0;
}

/* A data block read into k->buf whose header h decoded: what
 * data_block holds against it before its entries. */
static int data_block_pre(struct dirck *k, uint64_t dablk, const char *what,
			  const struct od_dir2_data_hdr *h)
{
	const struct od_geo *g = k->g;
	bool want_block = k->d->fmt == DIR_BLOCK;
	struct err e = { 0 };

	if (h->block != want_block) {
		dirck_problem(k, PR_DIR_DATA, what, want_block ?
			      "a data block where the single block of a "
			      "block-format directory belongs" :
			      "a block-format magic in a leaf or node "
			      "directory");
		return -1;
	}
	if (dir_check_self(k->d, dablk, h->blkno, h->owner, &e)) {
		dirck_problem(k, PR_DIR_DATA, what, e.msg);
		return -1;
	}
	if (g->v5)
		check_note_lsn(&k->ca->lsn, h->lsn, "%s", what);
	return 0;
}

/* And after them: the block's best free region, its hash index. */
static int data_block_post(struct dirck *k, uint64_t dablk, const char *what,
			   const struct od_dir2_data_hdr *h)
{
	int ret;

	ret = set_best(k, dablk >> k->g->dirblklog, h->best_len[0]);
	if (ret) {
		check_fatal(k->c, ret);
		return ret;
	}
	return h->block ? block_leaves(k, what, h) : 0;
}

static int data_block_hdr(struct dirck *k, uint64_t dablk, const char *what,
			  const struct od_dir2_data_hdr *h)
{
	int ret;

	ret = data_block_pre(k, dablk, what, h);
	if (ret)
		return ret;
	ret = data_entries(k, dablk, what, h);
	if (ret)
		return ret;
	return data_block_post(k, dablk, what, h);
}

static int data_block(struct dirck *k, uint64_t dablk)
{
	const struct od_geo *g = k->g;
	struct od_dir2_data_hdr h;
	const char *field;
	char what[128], msg[64];
	int ret;

	ret = dirck_read(k, dablk, "data", what, sizeof(what));
	if (ret)
		return ret;
	if (od_dir2_data_hdr(k->buf, g->dirblksize, g, &h, &field)) {
		snprintf(msg, sizeof(msg), "bad %s", field ? field : "header");
		dirck_problem(k, PR_DIR_DATA, what, msg);
		return -1;
	}
	return data_block_hdr(k, dablk, what, &h);
}

/*
 * The data pass over the map's extents from the one at index from: every
 * data block (a block-format directory: the first of each extent), to
 * the first one with a problem.
 */
static int data_extents(struct dirck *k, size_t from)
{
	const struct od_geo *g = k->g;
	uint64_t leafblk = OD_DIR2_LEAF_OFFSET >> g->blocklog;
	const struct extmap *m = &k->d->map;
	size_t i;
	int ret;

	for (i = from; i < m->n; i++) {
		const struct od_irec *r = &m->v[i];
		uint64_t off = r->startoff, end = r->startoff + r->blockcount;

		off = (off + g->dirblkfsbs - 1) & ~(uint64_t)(g->dirblkfsbs - 1);
		for (; off < end && off < leafblk; off += g->dirblkfsbs) {
			ret = data_block(k, off);
			if (ret)
				return ret;
			if (k->d->fmt == DIR_BLOCK)
				break;
		}
	}
	return 0;
}

int dirck_data(struct dirck *k)
{
	int ret;

	k->data_ok = false;
	ret = data_extents(k, 0);
	if (ret)
		return ret;
	k->data_ok = true;
	return 0;
}

/*
 * One block for dirck_iterate: what dir_iterate's iter_block does (the
 * same reads, checks and messages; fn for every entry), and, if data,
 * the data pass's data_block on the same bytes and the same parse of
 * each entry, its verdict in *dret (it stops at its first problem, the
 * walk goes on).
 */
static int iter_block(struct dirck *k, uint64_t dablk, dir_iter_fn fn,
		      void *priv, struct err *e, bool data, int *dret)
{
	const struct od_geo *g = k->g;
	struct od_dir2_data_hdr hdr;
	struct dent st = { dablk << g->blocklog, 0, false, 0 };
	const char *field;
	enum od_err oe;
	char what[128];
	uint32_t pos;
	int ret;

	ret = dir_read_block(k->d, dablk, k->buf, e);
	if (ret)
		return ret;
	dir_block_name(k->d, "data", dablk, what, sizeof(what));
	oe = od_dir2_data_hdr(k->buf, g->dirblksize, g, &hdr, &field);
	if (oe)
		return err_od(e, oe, field, what);
	ret = dir_check_self(k->d, dablk, hdr.blkno, hdr.owner, e);
	if (ret)
		return ret;
	if (data) {
		*dret = data_block_pre(k, dablk, what, &hdr);
		if (!*dret && bestfree_table(k, what, &hdr, &st.seen))
			*dret = -1;
		data = *dret == 0;
	}
	for (pos = hdr.hdr_len; pos < hdr.end;) {
		struct od_dirent de;
		uint32_t at = pos;
		bool unused;

		oe = od_dir2_data_entry(k->buf, &hdr, g->ftype, &pos, &de,
					&unused, &field);
		if (oe)
			return err_od(e, oe, field, what);
		if (data) {
			*dret = data_entry(k, what, &hdr, &st, at, pos, &de,
					   unused);
			data = *dret == 0;
		}
		if (unused)
			continue;
		ret = fn(priv, de.name, de.namelen, de.ino, de.ftype, e);
		if (ret)
			return ret;
	}
	if (data) {
		*dret = data_entries_end(k, what, &st);
		if (!*dret)
			*dret = data_block_post(k, dablk, what, &hdr);
	}
	return 0;
}

int dirck_iterate(struct dirck *k, dir_iter_fn fn, void *priv, struct err *e,
		  int *dret)
{
	const struct od_geo *g = k->g;
	uint64_t leafblk = OD_DIR2_LEAF_OFFSET >> g->blocklog;
	const struct extmap *m = &k->d->map;
	size_t i;
	int ret;

	k->data_ok = false;
	*dret = 0;
	/* dir_iterate's walk; the data pass's (dirck_data) rides along */
	for (i = 0; i < m->n; i++) {
		const struct od_irec *r = &m->v[i];
		uint64_t off = r->startoff, end = r->startoff + r->blockcount;
		bool first = true;

		off = (off + g->dirblkfsbs - 1) & ~(uint64_t)(g->dirblkfsbs - 1);
		if (off >= leafblk)
			break;
		for (; off < end && off < leafblk; off += g->dirblkfsbs) {
			/* dirck_data stops at a bad block, and takes only
			 * the first block of each extent of a block-format
			 * directory */
			bool data = *dret == 0 &&
				    (first || k->d->fmt != DIR_BLOCK);

			ret = iter_block(k, off, fn, priv, e, data, dret);
			if (ret)
				return ret;
			first = false;
		}
	}
	/* the extents dir_iterate's walk stops before */
	if (*dret == 0)
		*dret = data_extents(k, i);
	k->data_ok = *dret == 0;
	return 0;
}
