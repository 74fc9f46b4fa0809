/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checker's btree checks, as hooks on the generic walker (check_bt.h). */
#include "core/check/check_bt.h"
#include "core/fs/btwalk.h"
#include "ondisk/bmbt.h"

#include <stdio.h>
#include <string.h>

/* The key a leaf record sorts by, as the kernel compares keys. */
static void rec_low(enum od_bt_type t, const uint8_t *rec, struct od_btkey *k)
{
	od_bt_rec_key(t, rec, k);
	if (t == OD_BT_RMAP)
		k->c &= ~OD_RMAP_OFF_UNWRITTEN;	/* status, not key */
}

/* rmapbt: the highest key a record covers (init_high_key_from_rec). */
static void rec_high(const uint8_t *rec, struct od_btkey *k)
{
	struct od_rmap_rec r;
	uint32_t adj;

	od_rmap_rec_decode(rec, &r);
	adj = r.blockcount - 1;

	rec_low(OD_BT_RMAP, rec, k);
	k->a += adj;
	if (!od_rmap_owner_special(k->b) && !(k->c & OD_RMAP_OFF_BMBT_BLOCK))
		k->c = ((k->c & OD_RMAP_OFF_MASK) + adj) |
		       (k->c & ~OD_RMAP_OFF_MASK);
}

/* Node key slot p (low key; high key for the rmapbt's second half). */
static void node_key(enum od_bt_type t, const uint8_t *p, struct od_btkey *k)
{
	od_bt_node_key(t, p, k);
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

static const char *sib_str(uint64_t ptr, char *buf, size_t len)
{
	if (ptr == OD_NULLFSBLOCK)
		return "none";
	snprintf(buf, len, "0x%llx", (unsigned long long)ptr);
	return buf;
}

/* The sibling chain of one level, checked one block at a time. */
static void check_siblings(struct check_bt *w, const struct btwalk_block *b)
{
	const struct od_btblock *h = b->hdr;
	unsigned level = b->level;
	char x[24], y[24];

	if (!w->have_prev[level]) {
		if (h->leftsib != OD_NULLFSBLOCK)
			check_problem(w->log, BT_LEFTSIB_FIRST, b->what,
				      sib_str(h->leftsib, x, sizeof(x)), level);
	} else {
		if (h->leftsib != w->prev_ptr[level])
			check_problem(w->log, BT_LEFTSIB, b->what,
				      sib_str(h->leftsib, x, sizeof(x)),
				      (unsigned long long)w->prev_ptr[level]);
		if (w->prev_right[level] != b->ptr)
			check_problem(w->log, BT_RIGHTSIB, w->what,
				      (unsigned long long)w->prev_ptr[level],
				      sib_str(w->prev_right[level], x,
					      sizeof(x)),
				      sib_str(b->ptr, y, sizeof(y)));
	}
	w->have_prev[level] = true;
	w->prev_ptr[level] = b->ptr;
	w->prev_right[level] = h->rightsib;
}

/* The lowest key of a block, and for the rmapbt its highest key. */
static void block_keys(const struct check_bt *w, const struct btwalk_block *b,
		       struct od_btkey *lo, struct od_btkey *hi)
{
	const struct od_bt_ops *ops = od_bt_ops(w->type);
	const struct od_btblock *h = b->hdr;
	uint32_t i;

	memset(hi, 0, sizeof(*hi));
	if (b->level == 0)
		rec_low(w->type, b->buf + od_bt_rec_off(ops, h->hdr_len, 0), lo);
	else
		node_key(w->type, b->buf + od_bt_key_off(ops, h->hdr_len, 0),
			 lo);
	if (w->type != OD_BT_RMAP)
		return;
	for (i = 0; i < h->numrecs; i++) {
		struct od_btkey k;

		if (b->level == 0)
			rec_high(b->buf + od_bt_rec_off(ops, h->hdr_len, i), &k);
		else
			node_key(w->type, b->buf + od_bt_key_off(ops,
				 h->hdr_len, i) + 20, &k);
		if (i == 0 || od_btkey_cmp(&k, hi) > 0)
			*hi = k;
	}
}

/* The parent's key (and rmapbt high key) against this block's keys. */
static void check_parent_keys(struct check_bt *w, const struct btwalk_block *b)
{
	struct od_btkey lo, hi, klo, khi;
	char pwhat[96], x[64], y[64];

	if (!b->pkey || b->hdr->numrecs == 0)
		return;
	block_keys(w, b, &lo, &hi);
	node_key(w->type, b->pkey, &klo);
	if (b->pptr == UINT64_MAX) {
		/* the in-inode bmbt root */
		if (klo.a != lo.a)
			check_problem(w->log, BT_ROOTKEY, w->what, b->pidx,
				      (unsigned long long)klo.a,
				      (unsigned long long)lo.a);
		return;
	}
	snprintf(pwhat, sizeof(pwhat), "%s block 0x%llx", w->what,
		 (unsigned long long)b->pptr);
	if (od_btkey_cmp(&klo, &lo) != 0) {
		key_str(w->type, &klo, x, sizeof(x));
		key_str(w->type, &lo, y, sizeof(y));
		check_problem(w->log, BT_KEY, pwhat, b->pidx, x,
			      (unsigned long long)b->ptr, y);
	}
	if (w->type != OD_BT_RMAP)
		return;
	node_key(w->type, b->pkey + 20, &khi);
	if (od_btkey_cmp(&khi, &hi) != 0) {
		key_str(w->type, &khi, x, sizeof(x));
		key_str(w->type, &hi, y, sizeof(y));
		check_problem(w->log, BT_HIGHKEY, pwhat, b->pidx, x,
			      (unsigned long long)b->ptr, y);
	}
}

static int visit(void *priv, const struct btwalk_block *b, struct err *e)
{
	struct check_bt *w = priv;
	const struct od_bt_ops *ops = od_bt_ops(w->type);
	uint32_t minrecs;

	(void)e;
	if (w->lsn && w->fs->geo.v5)
		check_note_lsn(w->lsn, b->hdr->lsn, "%s", b->what);
	check_siblings(w, b);
	minrecs = od_bt_maxrecs(ops, b->hdr->hdr_len, w->fs->geo.blocksize,
				b->level == 0) / 2;
	if (!b->top && b->hdr->numrecs < minrecs)
		check_problem(w->log, BT_MINRECS, b->what, b->hdr->numrecs,
			      minrecs);
	check_parent_keys(w, b);
	return 0;
}

/* Records in strictly increasing key order, the rmapbt's without the
 * unwritten flag (a status, not part of the key); then the caller's. */
static int rec(void *priv, const uint8_t *r, struct err *e)
{
	struct check_bt *w = priv;
	struct od_btkey k;

	rec_low(w->type, r, &k);
	if (w->have_last && od_btkey_cmp(&w->last, &k) >= 0)
		return err_set(e, -EFSCORRUPTED, "%s: record %llu is out of "
			       "order", w->what, (unsigned long long)w->nrecs);
	w->last = k;
	w->have_last = true;
	w->nrecs++;
	return w->rec ? w->rec(w->priv, r, e) : 0;
}

static int block(void *priv, uint64_t fsbno, unsigned level, struct err *e)
{
	struct check_bt *w = priv;

	return w->block ? w->block(w->priv, fsbno, level, e) : 0;
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

static void setup(struct check_bt *w, struct btwalk *bw)
{
	memset(bw, 0, sizeof(*bw));
	bw->fs = w->fs;
	bw->type = w->type;
	bw->agno = w->agno;
	bw->owner = w->owner;
	bw->what = w->what;
	bw->rec = rec;
	bw->block = block;
	bw->visit = visit;
	bw->priv = w;
	w->nrecs = 0;
	w->have_last = false;
	memset(w->have_prev, 0, sizeof(w->have_prev));
}

int check_bt_ag(struct check_bt *w, uint32_t root, uint32_t levels,
		struct err *e)
{
	struct btwalk bw;
	int ret;

	if (levels == 0 || levels > OD_BTREE_MAXLEVELS_ANY)
		return err_set(e, -EFSCORRUPTED, "%s: %u levels", w->what,
			       levels);
	setup(w, &bw);
	ret = btwalk_from_block(&bw, root, levels - 1, e);
	w->nblocks = bw.nblocks;
	if (!ret)
		check_chain_ends(w);
	return ret;
}

int check_bt_bmbt(struct check_bt *w, const uint8_t *fork, uint32_t forklen,
		  struct err *e)
{
	uint64_t ptrs[OD_BMDR_MAXPTRS];
	struct od_bmdr root;
	struct btwalk bw;
	const char *field;
	enum od_err oe;
	uint32_t i;
	int ret;

	oe = od_bmdr_decode(fork, forklen, &root, &field);
	if (oe)
		return err_od(e, oe, field, w->what);
	if (root.numrecs > OD_BMDR_MAXPTRS)
		return err_set(e, -EFSCORRUPTED, "%s: root too large", w->what);
	for (i = 0; i < root.numrecs; i++)
		ptrs[i] = od_bmdr_ptr(fork, &root, i);
	setup(w, &bw);
	bw.root_keys = od_bmdr_keys(fork);
	ret = btwalk_from_ptrs(&bw, ptrs, root.numrecs, root.level - 1u, e);
	w->nblocks = bw.nblocks;
	if (!ret)
		check_chain_ends(w);
	return ret;
}
