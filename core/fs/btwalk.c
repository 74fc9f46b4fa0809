/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/fs/btwalk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parent {
	const uint8_t *key;	/* NULL: none (a root) */
	uint64_t ptr;
	uint32_t idx;
	bool top;		/* the child hangs from an in-inode root */
};

static int walk_block(struct btwalk *w, uint64_t ptr, unsigned level,
		      bool is_root, const struct parent *par, struct err *e);

static uint64_t ptr_to_fsb(struct btwalk *w, uint64_t ptr)
{
	if (od_bt_ops(w->type)->long_ptrs)
		return ptr;
	return od_agb_fsb(&w->fs->geo, w->agno, (uint32_t)ptr);
}

static bool ptr_in_range(const struct btwalk *w, uint64_t ptr)
{
	const struct od_geo *g = &w->fs->geo;

	if (od_bt_ops(w->type)->long_ptrs)
		return od_fsb_valid(g, ptr, 1);
	return ptr != 0 && ptr < od_ag_blocks(g, w->agno);
}

static int check_ptr(struct btwalk *w, uint64_t ptr, struct err *e)
{
	if (!ptr_in_range(w, ptr))
		return err_set(e, -EFSCORRUPTED, "%s: block pointer 0x%llx is "
			       "out of range", w->what,
			       (unsigned long long)ptr);
	return 0;
}

static int walk_leaf(struct btwalk *w, const uint8_t *buf,
		     const struct od_btblock *hdr, uint64_t fsb,
		     struct err *e)
{
	const struct od_bt_ops *ops = od_bt_ops(w->type);
	uint32_t i;
	int ret;

	for (i = 0; i < hdr->numrecs; i++) {
		const uint8_t *rec = buf + od_bt_rec_off(ops, hdr->hdr_len, i);
		struct od_btkey k;

		od_bt_rec_key(w->type, rec, &k);
		if (w->have_last && od_btkey_cmp(&w->last, &k) >= 0)
			return err_set(e, -EFSCORRUPTED, "%s: block 0x%llx "
				       "record %u is out of order (loop or "
				       "damaged tree)", w->what,
				       (unsigned long long)fsb, i);
		w->last = k;
		w->have_last = true;
		w->nrecs++;
		ret = w->rec ? w->rec(w->priv, rec, e) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A node's children announced before the walk reads them one by one:
 * from a cold cache each read would wait its own round trip, at the
 * start of every AG's scan with no inode read in flight.
 */
static void children_ahead(struct btwalk *w, const uint8_t *buf,
			   const struct od_btblock *hdr, uint32_t maxrecs)
{
	const struct od_bt_ops *ops = od_bt_ops(w->type);
	const struct od_geo *g = &w->fs->geo;
	uint64_t start = 0, len = 0;
	uint32_t i;

	for (i = 0; i < hdr->numrecs; i++) {
		uint64_t child = od_bt_ptr_get(ops, buf, od_bt_ptr_off(ops,
					       hdr->hdr_len, maxrecs, i));
		uint64_t off;

		if (!ptr_in_range(w, child))
			continue;	/* the walk names it */
		off = od_fsb_daddr(g, ptr_to_fsb(w, child)) << 9;
		if (len && off == start + len) {
			len += g->blocksize;
			continue;
		}
		if (len)
			img_willneed(w->fs->img, start, len);
		start = off;
		len = g->blocksize;
	}
	if (len)
		img_willneed(w->fs->img, start, len);
}

static int walk_block(struct btwalk *w, uint64_t ptr, unsigned level,
		      bool is_root, const struct parent *par, struct err *e)
{
	const struct od_bt_ops *ops = od_bt_ops(w->type);
	struct fs *fs = w->fs;
	uint64_t fsb = ptr_to_fsb(w, ptr);
	struct od_btblock hdr;
	const char *field;
	enum od_err oe;
	uint8_t *buf;
	char what[128];
	uint32_t i, maxrecs;
	int ret;

	if (level >= OD_BTREE_MAXLEVELS_ANY)
		return err_set(e, -EFSCORRUPTED, "%s: tree too deep", w->what);
	ret = check_ptr(w, ptr, e);
	if (ret)
		return ret;
	if (!w->buf[level]) {
		w->buf[level] = malloc(fs->geo.blocksize);
		if (!w->buf[level])
			return err_set(e, -ENOMEM, "out of memory");
	}
	buf = w->buf[level];
	snprintf(what, sizeof(what), "%s block 0x%llx (daddr 0x%llx)",
		 w->what, (unsigned long long)ptr,
		 (unsigned long long)od_fsb_daddr(&fs->geo, fsb));
	ret = fs_read_fsb(fs, fsb, 1, buf, e, what);
	if (ret)
		return ret;
	w->nblocks++;
	oe = od_btblock_decode(buf, fs->geo.blocksize, &fs->geo, w->type, &hdr,
			       &field);
	if (oe)
		return err_od(e, oe, field, what);
	if (hdr.level != level)
		return err_set(e, -EFSCORRUPTED, "%s: level %u, expected %u",
			       what, hdr.level, level);
	if (fs->geo.v5 && hdr.blkno != od_fsb_daddr(&fs->geo, fsb))
		return err_set(e, -EFSCORRUPTED, "%s: blkno 0x%llx does not "
			       "match its address", what,
			       (unsigned long long)hdr.blkno);
	if (fs->geo.v5 && hdr.owner != w->owner)
		return err_set(e, -EFSCORRUPTED, "%s: owner %llu, expected "
			       "%llu", what, (unsigned long long)hdr.owner,
			       (unsigned long long)w->owner);
	/* only a root may be empty; refusing the rest bounds the walk */
	if (hdr.numrecs == 0 && !is_root)
		return err_set(e, -EFSCORRUPTED, "%s: empty block", what);
	if (w->visit) {
		struct btwalk_block b;

		b.ptr = ptr;
		b.fsb = fsb;
		b.level = level;
		b.root = is_root;
		b.top = is_root || par->top;
		b.hdr = &hdr;
		b.buf = buf;
		b.pkey = par->key;
		b.pptr = par->ptr;
		b.pidx = par->idx;
		b.what = what;
		ret = w->visit(w->priv, &b, e);
		if (ret)
			return ret;
	}
	if (w->block) {
		ret = w->block(w->priv, fsb, level, e);
		if (ret)
			return ret;
	}
	if (level == 0)
		return walk_leaf(w, buf, &hdr, fsb, e);

	maxrecs = od_bt_maxrecs(ops, hdr.hdr_len, fs->geo.blocksize, false);
	if (hdr.numrecs > 1 && !(level == 1 && w->skip_leaves))
		children_ahead(w, buf, &hdr, maxrecs);
	for (i = 0; i < hdr.numrecs; i++) {
		size_t off = od_bt_ptr_off(ops, hdr.hdr_len, maxrecs, i);
		uint64_t child = od_bt_ptr_get(ops, w->buf[level], off);

		if (level == 1 && w->skip_leaves) {
			ret = check_ptr(w, child, e);
			if (!ret && w->block)
				ret = w->block(w->priv, ptr_to_fsb(w, child),
					       0, e);
			w->nblocks++;
		} else {
			struct parent cp;

			cp.key = w->buf[level] + od_bt_key_off(ops, hdr.hdr_len,
							       i);
			cp.ptr = ptr;
			cp.idx = i;
			cp.top = false;
			ret = walk_block(w, child, level - 1, false, &cp, e);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static void walk_free(struct btwalk *w)
{
	unsigned i;

	for (i = 0; i < OD_BTREE_MAXLEVELS_ANY; i++) {
		free(w->buf[i]);
		w->buf[i] = NULL;
	}
}

int btwalk_from_block(struct btwalk *w, uint64_t root, unsigned level,
		      struct err *e)
{
	static const struct parent none = { NULL, UINT64_MAX, 0, false };
	int ret = walk_block(w, root, level, true, &none, e);

	walk_free(w);
	return ret;
}

int btwalk_from_ptrs(struct btwalk *w, const uint64_t *ptrs, uint32_t n,
		     unsigned child_level, struct err *e)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		struct parent p;

		p.key = w->root_keys ? w->root_keys +
			(size_t)i * od_bt_ops(w->type)->key_len : NULL;
		p.ptr = UINT64_MAX;
		p.idx = i;
		p.top = true;
		ret = walk_block(w, ptrs[i], child_level, false, &p, e);
	}
	walk_free(w);
	return ret;
}

int btwalk_ag(struct fs *fs, uint32_t agno, enum od_bt_type t, uint32_t root,
	      uint32_t levels,
	      int (*rec)(void *priv, const uint8_t *rec, struct err *e),
	      void *priv, struct err *e)
{
	struct btwalk w;
	char what[64];

	memset(&w, 0, sizeof(w));
	snprintf(what, sizeof(what), "ag %u %s", agno, od_bt_ops(t)->name);
	w.fs = fs;
	w.type = t;
	w.agno = agno;
	w.owner = agno;
	w.what = what;
	w.rec = rec;
	w.priv = priv;
	if (levels == 0)
		return err_set(e, -EFSCORRUPTED, "%s: zero levels", what);
	return btwalk_from_block(&w, root, levels - 1, e);
}
