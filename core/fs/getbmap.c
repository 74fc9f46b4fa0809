/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/fs/getbmap.h"
#include "core/base/array.h"
#include "core/fs/refcount.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LFS_FILESIZE	0x7fffffffffffffffull

struct gbctx {
	struct fs *fs;
	const struct inode *ip;
	struct getbmap *out;
	unsigned flags;
	size_t max_rows;	/* 0 = unlimited */
	int64_t bmv_end;	/* bb */
	int64_t bmv_offset;
	int64_t bmv_length;
	/* refcount records of the AG last looked at */
	struct refc_set refc;
	uint32_t refc_agno;
	bool refc_loaded;
};

static uint64_t fsb_to_bb(const struct fs *fs, uint64_t fsb)
{
	return fsb << fs->geo.bbshift;
}

static uint64_t bb_to_fsb_up(const struct fs *fs, uint64_t bb)
{
	uint64_t mask = (1ull << fs->geo.bbshift) - 1;

	return (bb + mask) >> fs->geo.bbshift;
}

static uint64_t b_to_fsb_up(const struct fs *fs, uint64_t bytes)
{
	return (bytes + fs->geo.blocksize - 1) >> fs->geo.blocklog;
}

static bool gb_full(const struct gbctx *c)
{
	return c->bmv_length == 0 ||
	       (c->max_rows && c->out->n >= c->max_rows);
}

static int gb_push(struct gbctx *c, const struct getbmap_row *r,
		   struct err *e)
{
	struct getbmap *o = c->out;

	if (array_grow((void **)&o->v, &o->cap, o->n, sizeof(*o->v), 32))
		return err_set(e, -ENOMEM, "out of memory");
	o->v[o->n++] = *r;
	c->bmv_offset = r->offset + r->length;
	c->bmv_length = c->bmv_end - c->bmv_offset;
	if (c->bmv_length < 0)
		c->bmv_length = 0;
	return 0;
}

static int gb_hole(struct gbctx *c, uint64_t bno, uint64_t end, struct err *e)
{
	struct getbmap_row r = { 0 };

	r.block = -1;
	r.offset = (int64_t)fsb_to_bb(c->fs, bno);
	r.length = (int64_t)fsb_to_bb(c->fs, end - bno);
	return gb_push(c, &r, e);
}

/* xfs_reflink_trim_around_shared: shorten rec to its first shared or
 * unshared stretch; *shared says which. */
static int gb_trim_shared(struct gbctx *c, struct od_irec *rec, bool *shared,
			  struct err *e)
{
	const struct od_geo *g = &c->fs->geo;
	uint32_t agno, agbno, fbno, flen;
	int ret;

	*shared = false;
	if (!(c->ip->di.flags2 & OD_DIFLAG2_REFLINK) || rec->unwritten ||
	    (c->flags & GETBMAP_ATTRFORK))
		return 0;
	agno = od_fsb_agno(g, rec->startblock);
	agbno = od_fsb_agbno(g, rec->startblock);
	if (!c->refc_loaded || c->refc_agno != agno) {
		refc_free(&c->refc);
		c->refc_loaded = false;
		ret = refc_load(c->fs, agno, &c->refc, e);
		if (ret)
			return ret;
		c->refc_agno = agno;
		c->refc_loaded = true;
	}
	refc_find_shared(&c->refc, agbno, rec->blockcount, &fbno, &flen);
	if (fbno == OD_NULLAGBLOCK)
		return 0;
	if (fbno == agbno) {
		rec->blockcount = flen;
		*shared = true;
	} else {
		rec->blockcount = fbno - agbno;
	}
	return 0;
}

static int gb_one(struct gbctx *c, struct od_irec *rec, struct err *e)
{
	struct getbmap_row r = { 0 };
	bool shared;
	int ret;

	ret = gb_trim_shared(c, rec, &shared, e);
	if (ret)
		return ret;
	/* xfs_fsb_to_db: realtime blocks are linear already */
	if (!(c->flags & GETBMAP_ATTRFORK) &&
	    (c->ip->di.flags & OD_DIFLAG_REALTIME))
		r.block = (int64_t)(rec->startblock << c->fs->geo.bbshift);
	else
		r.block = (int64_t)(od_fsb_lin(&c->fs->geo, rec->startblock) <<
				    c->fs->geo.bbshift);
	if (rec->unwritten && (c->flags & GETBMAP_PREALLOC))
		r.oflags |= GETBMAP_OF_PREALLOC;
	if (shared)
		r.oflags |= GETBMAP_OF_SHARED;
	r.offset = (int64_t)fsb_to_bb(c->fs, rec->startoff);
	r.length = (int64_t)fsb_to_bb(c->fs, rec->blockcount);
	return gb_push(c, &r, e);
}

/* xfs_getbmap_next_rec: the rest of the record after what was reported. */
static bool gb_next_rec(struct od_irec *rec, uint64_t total_end)
{
	uint64_t end = rec->startoff + rec->blockcount;

	if (end == total_end)
		return false;
	rec->startoff += rec->blockcount;
	rec->startblock += rec->blockcount;
	rec->blockcount = (uint32_t)(total_end - end);
	return true;
}

/* xfs_trim_extent */
static void gb_trim(struct od_irec *r, uint64_t bno, uint64_t len)
{
	uint64_t end = bno + len, d;

	if (r->startoff + r->blockcount <= bno || r->startoff >= end) {
		r->blockcount = 0;
		return;
	}
	if (r->startoff < bno) {
		d = bno - r->startoff;
		r->startblock += d;
		r->startoff += d;
		r->blockcount -= (uint32_t)d;
	}
	if (end < r->startoff + r->blockcount)
		r->blockcount -= (uint32_t)(r->startoff + r->blockcount - end);
}

static int gb_run(struct gbctx *c, const struct extmap *m, struct err *e)
{
	struct fs *fs = c->fs;
	const struct od_inode *di = &c->ip->di;
	bool attr = (c->flags & GETBMAP_ATTRFORK) != 0;
	uint64_t max_len, bno, first_bno, len;
	size_t idx;
	int ret;

	if (attr) {
		max_len = 1ull << 32;
	} else if ((di->flags & (OD_DIFLAG_PREALLOC | OD_DIFLAG_APPEND)) ||
		   ((di->flags & OD_DIFLAG_EXTSIZE) && di->extsize)) {
		max_len = MAX_LFS_FILESIZE;
	} else {
		max_len = di->size;
	}
	max_len = fsb_to_bb(fs, b_to_fsb_up(fs, max_len));
	c->bmv_offset = 0;
	c->bmv_length = (int64_t)max_len;
	c->bmv_end = c->bmv_length;
	first_bno = bno = 0;
	len = bb_to_fsb_up(fs, (uint64_t)c->bmv_length);

	/* xfs_iext_lookup_extent: first extent ending after bno */
	for (idx = 0; idx < m->n; idx++)
		if (m->v[idx].startoff + m->v[idx].blockcount > bno)
			break;
	if (idx == m->n)
		return 0;

	while (!gb_full(c)) {
		struct od_irec got = m->v[idx], rec;

		gb_trim(&got, first_bno, len);
		if (got.startoff > bno) {
			ret = gb_hole(c, bno, got.startoff, e);
			if (ret)
				return ret;
			if (gb_full(c))
				break;
		}
		bno = got.startoff + got.blockcount;
		rec = got;
		do {
			ret = gb_one(c, &rec, e);
			if (ret)
				return ret;
			if (gb_full(c))
				return 0;
		} while (gb_next_rec(&rec, bno));

		if (++idx == m->n) {
			uint64_t end = b_to_fsb_up(fs, di->size);

			c->out->v[c->out->n - 1].oflags |= GETBMAP_OF_LAST;
			if (!attr && bno < end && !gb_full(c))
				return gb_hole(c, bno, end, e);
			break;
		}
		if (bno >= first_bno + len)
			break;
	}
	return 0;
}

int getbmap(struct fs *fs, const struct inode *ip, unsigned flags,
	    size_t max_rows, struct getbmap *out, struct err *e)
{
	struct gbctx c;
	struct extmap m = { 0 };
	int whichfork = (flags & GETBMAP_ATTRFORK) ? FORK_ATTR : FORK_DATA;
	int fmt = inode_fork_format(ip, whichfork), ret;

	memset(&c, 0, sizeof(c));
	c.fs = fs;
	c.ip = ip;
	c.out = out;
	c.flags = flags;
	c.max_rows = max_rows;
	out->n = 0;
	/* the kernel returns nothing for a missing or local-format fork */
	if (fmt != OD_FMT_EXTENTS && fmt != OD_FMT_BTREE)
		return 0;
	ret = fork_map(fs, ip, whichfork, &m, NULL, NULL, e);
	if (!ret)
		ret = gb_run(&c, &m, e);
	refc_free(&c.refc);
	extmap_free(&m);
	return ret;
}

void getbmap_free(struct getbmap *gb)
{
	free(gb->v);
	gb->v = NULL;
	gb->n = gb->cap = 0;
}
