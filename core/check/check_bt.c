/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/check/check_bt.h"
#include "ondisk/be.h"
#include "ondisk/bmbt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The key a leaf record sorts by, as the kernel compares keys. */
static void rec_low(enum od_bt_type t, const uint8_t *rec, struct od_btkey *k)
{
	od_bt_rec_key(t, rec, k);
	if (t == OD_BT_RMAP)
		k->c &= ~CHECK_RMAP_UNWRITTEN;	/* status, not key */
}

/* rmapbt: the highest key a record covers (init_high_key_from_rec). */
static void rec_high(const uint8_t *rec, struct od_btkey *k)
{
	uint32_t adj = od_get_be32(rec + 4) - 1;

	rec_low(OD_BT_RMAP, rec, k);
	k->a += adj;
	if (check_rmap_inode_owner(k->b) && !(k->c & CHECK_RMAP_BMBT))
		k->c = ((k->c & CHECK_RMAP_OFFMASK) + adj) |
		       (k->c & ~CHECK_RMAP_OFFMASK);
}

/* Node key slot p (low key; high key for the rmapbt's second half). */
static void node_key(enum od_bt_type t, const uint8_t *p, struct od_btkey *k)
{
	k->a = k->b = k->c = 0;
	switch (t) {
	case OD_BT_BNO:
	case OD_BT_INO:
	case OD_BT_FINO:
	case OD_BT_REFC:
		k->a = od_get_be32(p);
		break;
	case OD_BT_CNT:
		k->a = od_get_be32(p + 4);
		k->b = od_get_be32(p);
		break;
	case OD_BT_RMAP:
		k->a = od_get_be32(p);
		k->b = od_get_be64(p + 4);
		k->c = od_get_be64(p + 12) & ~CHECK_RMAP_UNWRITTEN;
		break;
	case OD_BT_BMAP:
		k->a = od_get_be64(p);
		break;
	}
}

static void key_str(enum od_bt_type t, const struct od_btkey *k, char *buf,
		    size_t len)
{
	if (t == OD_BT_RMAP)
		snprintf(buf, len, "(%llu, %lld, 0x%llx)",
			 (unsigned long long)k->a, (long long)k->b,
			 (unsigned long long)k->c);
	else if (t == OD_BT_CNT)
		snprintf(buf, len, "(len %llu, start %llu)",
			 (unsigned long long)k->a, (unsigned long long)k->b);
	else
		snprintf(buf, len, "%llu", (unsigned long long)k->a);
}

static bool long_ptrs(const struct check_bt *w)
{
	return od_bt_ops(w->type)->long_ptrs;
}

static uint64_t ptr_fsb(const struct check_bt *w, uint64_t ptr)
{
	return long_ptrs(w) ? ptr : od_agb_fsb(&w->fs->geo, w->agno,
					       (uint32_t)ptr);
}

static bool ptr_ok(const struct check_bt *w, uint64_t ptr)
{
	const struct od_geo *g = &w->fs->geo;

	if (long_ptrs(w))
		return od_fsb_valid(g, ptr, 1);
	return ptr != 0 && ptr < od_ag_blocks(g, w->agno);
}

static const char *sib_str(uint64_t ptr, char *buf, size_t len)
{
	if (ptr == OD_NULLFSBLOCK)
		return "none";
	snprintf(buf, len, "0x%llx", (unsigned long long)ptr);
	return buf;
}

/* The sibling chain of one level, checked one block at a time. */
static void check_siblings(struct check_bt *w, unsigned level, uint64_t ptr,
			   const struct od_btblock *h, const char *what)
{
	char a[24], b[24];

	if (!w->have_prev[level]) {
		if (h->leftsib != OD_NULLFSBLOCK)
			check_problem(w->log, BT_LEFTSIB_FIRST, what,
				      sib_str(h->leftsib, a, sizeof(a)), level);
	} else {
		if (h->leftsib != w->prev_ptr[level])
			check_problem(w->log, BT_LEFTSIB, what,
				      sib_str(h->leftsib, a, sizeof(a)),
				      (unsigned long long)w->prev_ptr[level]);
		if (w->prev_right[level] != ptr)
			check_problem(w->log, BT_RIGHTSIB, w->what,
				      (unsigned long long)w->prev_ptr[level],
				      sib_str(w->prev_right[level], a,
					      sizeof(a)),
				      sib_str(ptr, b, sizeof(b)));
	}
	w->have_prev[level] = true;
	w->prev_ptr[level] = ptr;
	w->prev_right[level] = h->rightsib;
}

static int walk(struct check_bt *w, uint64_t ptr, unsigned level, bool top,
		struct od_btkey *lo, struct od_btkey *hi, struct err *e);

static int walk_leaf(struct check_bt *w, const uint8_t *buf,
		     const struct od_btblock *h, const char *what,
		     struct od_btkey *lo, struct od_btkey *hi, struct err *e)
{
	const struct od_bt_ops *ops = od_bt_ops(w->type);
	uint32_t i;
	int ret;

	for (i = 0; i < h->numrecs; i++) {
		const uint8_t *rec = buf + od_bt_rec_off(ops, h->hdr_len, i);
		struct od_btkey k;

		rec_low(w->type, rec, &k);
		if (w->have_last && od_btkey_cmp(&w->last, &k) >= 0)
			return err_set(e, -EFSCORRUPTED, "%s: record %u is out "
				       "of order", what, i);
		w->last = k;
		w->have_last = true;
		if (i == 0)
			*lo = k;
		if (w->type == OD_BT_RMAP) {
			struct od_btkey kh;

			rec_high(rec, &kh);
			if (i == 0 || od_btkey_cmp(&kh, hi) > 0)
				*hi = kh;
		}
		w->nrecs++;
		ret = w->rec ? w->rec(w->priv, rec, e) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

static int walk_node(struct check_bt *w, unsigned level, const char *what,
		     const struct od_btblock *h, struct od_btkey *lo,
		     struct od_btkey *hi, struct err *e)
{
	const struct od_bt_ops *ops = od_bt_ops(w->type);
	uint32_t maxrecs = od_bt_maxrecs(ops, h->hdr_len, w->fs->geo.blocksize,
					 false), i;
	char a[64], b[64];
	int ret;

	for (i = 0; i < h->numrecs; i++) {
		/* levels below use their own buffers: this one stays */
		const uint8_t *buf = w->buf[level];
		size_t koff = od_bt_key_off(ops, h->hdr_len, i);
		size_t poff = od_bt_ptr_off(ops, h->hdr_len, maxrecs, i);
		uint64_t child = ops->ptr_len == 8 ? od_get_be64(buf + poff) :
				 od_get_be32(buf + poff);
		struct od_btkey klo, khi, clo, chi;

		node_key(w->type, buf + koff, &klo);
		if (w->type == OD_BT_RMAP)
			node_key(w->type, buf + koff + 20, &khi);
		ret = walk(w, child, level - 1, false, &clo, &chi, e);
		if (ret)
			return ret;
		if (od_btkey_cmp(&klo, &clo) != 0) {
			key_str(w->type, &klo, a, sizeof(a));
			key_str(w->type, &clo, b, sizeof(b));
			check_problem(w->log, BT_KEY, what, i, a,
				      (unsigned long long)child, b);
		}
		if (w->type == OD_BT_RMAP && od_btkey_cmp(&khi, &chi) != 0) {
			key_str(w->type, &khi, a, sizeof(a));
			key_str(w->type, &chi, b, sizeof(b));
			check_problem(w->log, BT_HIGHKEY, what, i, a,
				      (unsigned long long)child, b);
		}
		if (i == 0)
			*lo = klo;
		if (w->type == OD_BT_RMAP &&
		    (i == 0 || od_btkey_cmp(&khi, hi) > 0))
			*hi = khi;
	}
	return 0;
}

static int walk(struct check_bt *w, uint64_t ptr, unsigned level, bool top,
		struct od_btkey *lo, struct od_btkey *hi, struct err *e)
{
	const struct od_bt_ops *ops = od_bt_ops(w->type);
	const struct od_geo *g = &w->fs->geo;
	uint64_t fsb = ptr_fsb(w, ptr);
	struct od_btblock h;
	const char *field;
	enum od_err oe;
	uint32_t minrecs;
	char what[128];
	int ret;

	memset(lo, 0, sizeof(*lo));
	memset(hi, 0, sizeof(*hi));
	if (level >= OD_BTREE_MAXLEVELS_ANY)
		return err_set(e, -EFSCORRUPTED, "%s: tree too deep", w->what);
	if (!ptr_ok(w, ptr))
		return err_set(e, -EFSCORRUPTED, "%s: block pointer 0x%llx is "
			       "out of range", w->what,
			       (unsigned long long)ptr);
	if (!w->buf[level]) {
		w->buf[level] = malloc(g->blocksize);
		if (!w->buf[level])
			return err_set(e, -ENOMEM, "out of memory");
	}
	snprintf(what, sizeof(what), "%s block 0x%llx", w->what,
		 (unsigned long long)ptr);
	ret = fs_read_fsb(w->fs, fsb, 1, w->buf[level], e, what);
	if (ret)
		return ret;
	w->nblocks++;
	oe = od_btblock_decode(w->buf[level], g->blocksize, g, w->type, &h,
			       &field);
	if (oe)
		return err_od(e, oe, field, what);
	if (h.level != level)
		return err_set(e, -EFSCORRUPTED, "%s: level %u, expected %u",
			       what, h.level, level);
	if (g->v5 && h.blkno != od_fsb_daddr(g, fsb))
		return err_set(e, -EFSCORRUPTED, "%s: blkno 0x%llx does not "
			       "match its address", what,
			       (unsigned long long)h.blkno);
	if (g->v5 && h.owner != w->owner)
		return err_set(e, -EFSCORRUPTED, "%s: owner %llu, expected "
			       "%llu", what, (unsigned long long)h.owner,
			       (unsigned long long)w->owner);
	if (h.numrecs == 0 && !(top && !long_ptrs(w)))
		return err_set(e, -EFSCORRUPTED, "%s: empty block", what);
	check_siblings(w, level, ptr, &h, what);
	minrecs = od_bt_maxrecs(ops, h.hdr_len, g->blocksize, level == 0) / 2;
	if (!top && h.numrecs < minrecs)
		check_problem(w->log, BT_MINRECS, what, h.numrecs, minrecs);
	if (w->block) {
		ret = w->block(w->priv, fsb, level, e);
		if (ret)
			return ret;
	}
	if (level == 0)
		return walk_leaf(w, w->buf[level], &h, what, lo, hi, e);
	return walk_node(w, level, what, &h, lo, hi, e);
}

/* Every level's chain must end with a NULL right sibling. */
static void check_chain_ends(struct check_bt *w)
{
	char a[24];
	unsigned l;

	for (l = 0; l < OD_BTREE_MAXLEVELS_ANY; l++)
		if (w->have_prev[l] && w->prev_right[l] != OD_NULLFSBLOCK)
			check_problem(w->log, BT_RIGHTSIB_LAST, w->what,
				      (unsigned long long)w->prev_ptr[l],
				      sib_str(w->prev_right[l], a, sizeof(a)),
				      l);
}

static void walk_done(struct check_bt *w, int ret)
{
	unsigned l;

	if (!ret)
		check_chain_ends(w);
	for (l = 0; l < OD_BTREE_MAXLEVELS_ANY; l++) {
		free(w->buf[l]);
		w->buf[l] = NULL;
	}
}

int check_bt_ag(struct check_bt *w, uint32_t root, uint32_t levels,
		struct err *e)
{
	struct od_btkey lo, hi;
	int ret;

	if (levels == 0 || levels > OD_BTREE_MAXLEVELS_ANY)
		return err_set(e, -EFSCORRUPTED, "%s: %u levels", w->what,
			       levels);
	ret = walk(w, root, levels - 1, true, &lo, &hi, e);
	walk_done(w, ret);
	return ret;
}

int check_bt_bmbt(struct check_bt *w, const uint8_t *fork, uint32_t forklen,
		  struct err *e)
{
	struct od_bmdr root;
	const char *field;
	enum od_err oe;
	uint32_t i;
	int ret = 0;

	oe = od_bmdr_decode(fork, forklen, &root, &field);
	if (oe)
		return err_od(e, oe, field, w->what);
	for (i = 0; i < root.numrecs && !ret; i++) {
		uint64_t key = od_bmdr_key(fork, i);
		struct od_btkey lo, hi;

		ret = walk(w, od_bmdr_ptr(fork, &root, i), root.level - 1u,
			   true, &lo, &hi, e);
		if (!ret && lo.a != key)
			check_problem(w->log, BT_ROOTKEY, w->what, i,
				      (unsigned long long)key,
				      (unsigned long long)lo.a);
	}
	walk_done(w, ret);
	return ret;
}
