/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/fs/fork.h"
#include "core/base/array.h"
#include "core/fs/btwalk.h"
#include "core/base/search.h"

#include <stdio.h>
#include <stdlib.h>


static inline bool rec_before(const struct od_irec *r, uint64_t off)
{
	return r->startoff + r->blockcount <= off;
}

SEARCH_FIRST(rec_search, struct od_irec, uint64_t, rec_before)

const struct od_irec *fork_rec_at(const struct od_irec *v, size_t n,
				  uint64_t off)
{
	size_t i = rec_search(v, n, off);

	return i < n && v[i].startoff <= off ? &v[i] : NULL;
}

void extmap_free(struct extmap *m)
{
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
	m->btblocks = 0;
}

struct fork_ctx {
	struct fs *fs;
	const struct inode *ip;
	int whichfork;
	struct extmap *m;
	uint64_t limit;		/* records the inode says there are */
	int (*blk)(void *, uint64_t, unsigned, struct err *);
	void *priv;
	bool realtime;		/* data fork of a realtime file: rt blocks */
};

static const char *fork_name(int whichfork)
{
	return whichfork == FORK_DATA ? "data" : "attr";
}

int fork_check_rec(struct fs *fs, uint64_t ino, int whichfork, bool realtime,
		   const struct od_irec *prev, const struct od_irec *r,
		   size_t idx, struct err *e)
{
	unsigned long long i = (unsigned long long)ino;

	if (r->blockcount == 0)
		return err_set(e, -EFSCORRUPTED, "inode %llu: %s fork extent "
			       "%zu has zero length", i, fork_name(whichfork),
			       idx);
	if (realtime ? r->startblock + r->blockcount > fs->sb.rblocks :
	    !od_fsb_valid(&fs->geo, r->startblock, r->blockcount))
		return err_set(e, -EFSCORRUPTED, "inode %llu: %s fork extent "
			       "%zu (block 0x%llx, %u blocks) is outside the "
			       "filesystem", i, fork_name(whichfork), idx,
			       (unsigned long long)r->startblock,
			       r->blockcount);
	if (r->startoff + r->blockcount > FORK_MAX_FILEOFF)
		return err_set(e, -EFSCORRUPTED, "inode %llu: %s fork extent "
			       "%zu ends past the largest file offset", i,
			       fork_name(whichfork), idx);
	if (prev && r->startoff < prev->startoff + prev->blockcount)
		return err_set(e, -EFSCORRUPTED, "inode %llu: %s fork extents "
			       "%zu and %zu overlap or are out of order", i,
			       fork_name(whichfork), idx - 1, idx);
	return 0;
}

static int fork_add(struct fork_ctx *c, const struct od_irec *r,
		    struct err *e)
{
	struct extmap *m = c->m;
	int ret;

	if (m->n >= c->limit)
		return err_set(e, -EFSCORRUPTED, "inode %llu: %s fork has more "
			       "extent records than the %llu it claims",
			       (unsigned long long)c->ip->di.ino,
			       fork_name(c->whichfork),
			       (unsigned long long)c->limit);
	ret = fork_check_rec(c->fs, c->ip->di.ino, c->whichfork, c->realtime,
			     m->n ? &m->v[m->n - 1] : NULL, r, m->n, e);
	if (ret)
		return ret;
	if (array_grow((void **)&m->v, &m->cap, m->n, sizeof(*m->v), 16))
		return err_set(e, -ENOMEM, "out of memory");
	m->v[m->n++] = *r;
	return 0;
}

static int bmbt_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct od_irec r;

	od_bmbt_rec_unpack(rec, &r);
	return fork_add(priv, &r, e);
}

static int bmbt_block(void *priv, uint64_t fsbno, unsigned level,
		      struct err *e)
{
	struct fork_ctx *c = priv;

	c->m->btblocks++;
	return c->blk ? c->blk(c->priv, fsbno, level, e) : 0;
}

static int fork_btree(struct fork_ctx *c, const uint8_t *fork, uint32_t len,
		      struct err *e)
{
	unsigned long long ino = (unsigned long long)c->ip->di.ino;
	uint64_t ptrs[256];
	struct od_bmdr root;
	struct btwalk w = { 0 };
	const char *field;
	char what[64];
	enum od_err oe;
	uint32_t i;

	snprintf(what, sizeof(what), "inode %llu %s fork bmbt", ino,
		 fork_name(c->whichfork));
	oe = od_bmdr_decode(fork, len, &root, &field);
	if (oe)
		return err_od(e, oe, field, what);
	if (root.numrecs > sizeof(ptrs) / sizeof(ptrs[0]))
		return err_set(e, -EFSCORRUPTED, "%s: root too large", what);
	for (i = 0; i < root.numrecs; i++)
		ptrs[i] = od_bmdr_ptr(fork, &root, i);
	w.fs = c->fs;
	w.type = OD_BT_BMAP;
	w.owner = c->ip->di.ino;
	w.what = what;
	w.rec = bmbt_rec;
	w.block = bmbt_block;
	w.priv = c;
	return btwalk_from_ptrs(&w, ptrs, root.numrecs, root.level - 1u, e);
}

/*
 * A metadata btree fork (metadir: a realtime group's rmap or refcount
 * btree, xfs_rtrmap_root and xfs_rtrefcount_root): its records map
 * realtime space, so nothing of it goes in the map; the blocks under an
 * in-inode node root are the inode's, visited (blk) and counted.
 */
static int fork_meta_btree(struct fork_ctx *c, const uint8_t *fork,
			   uint32_t len, struct err *e)
{
	unsigned long long ino = (unsigned long long)c->ip->di.ino;
	uint16_t type = od_inode_metatype(&c->ip->di);
	enum od_bt_type t = type == OD_META_RTRMAP ? OD_BT_RTRMAP :
			    OD_BT_RTREFC;
	const struct od_bt_ops *ops = od_bt_ops(t);
	uint64_t ptrs[256];
	struct btwalk w = { 0 };
	struct od_broot root;
	uint32_t level, n, maxrecs, i;
	char what[64];

	snprintf(what, sizeof(what), "inode %llu %s root", ino, ops->name);
	if (type != OD_META_RTRMAP && type != OD_META_RTREFCOUNT)
		return err_set(e, -EFSCORRUPTED, "inode %llu: metadata btree "
			       "fork in a %s metadata file", ino,
			       od_metafile_name(type) ? od_metafile_name(type) :
			       "unknown");
	if (od_broot_decode(t, fork, len, &root))
		return err_set(e, -EFSCORRUPTED, "%s: no room", what);
	level = root.level;
	n = root.numrecs;
	maxrecs = root.maxrecs;
	if (n > maxrecs || level >= OD_BTREE_MAXLEVELS_ANY ||
	    (level && !n) || n > sizeof(ptrs) / sizeof(ptrs[0]))
		return err_set(e, -EFSCORRUPTED, "%s: level %u, %u records "
			       "(%u fit)", what, level, n, maxrecs);
	if (!level)
		return 0;
	for (i = 0; i < n; i++)
		ptrs[i] = od_broot_ptr(fork, &root, i);
	w.fs = c->fs;
	w.type = t;
	w.owner = c->ip->di.ino;
	w.what = what;
	w.block = bmbt_block;
	w.priv = c;
	w.skip_leaves = true;
	return btwalk_from_ptrs(&w, ptrs, n, level - 1u, e);
}

int fork_map(struct fs *fs, const struct inode *ip, int whichfork,
	     struct extmap *m,
	     int (*blk)(void *priv, uint64_t fsbno, unsigned level,
			struct err *e),
	     void *priv, struct err *e)
{
	struct fork_ctx c = { fs, ip, whichfork, m, 0, blk, priv,
			      whichfork == FORK_DATA &&
			      (ip->di.flags & OD_DIFLAG_REALTIME) };
	int fmt = inode_fork_format(ip, whichfork);
	const uint8_t *fork;
	uint32_t len, i;
	int ret = 0;

	m->n = 0;
	m->btblocks = 0;
	c.limit = inode_fork_nextents(ip, whichfork);
	fork = inode_fork(ip, whichfork, &len);
	switch (fmt) {
	case OD_FMT_EXTENTS:
		/* od_inode_decode checked nextents * 16 fits the fork */
		for (i = 0; i < c.limit && !ret; i++) {
			struct od_irec r;

			od_bmbt_rec_unpack(fork + OD_BMBT_REC_LEN * (size_t)i,
					   &r);
			ret = fork_add(&c, &r, e);
		}
		break;
	case OD_FMT_BTREE:
		ret = fork_btree(&c, fork, len, e);
		if (!ret && m->n != c.limit)
			ret = err_set(e, -EFSCORRUPTED, "inode %llu: %s fork "
				      "bmbt holds %zu records, inode says "
				      "%llu", (unsigned long long)ip->di.ino,
				      fork_name(whichfork), m->n,
				      (unsigned long long)c.limit);
		break;
	case OD_FMT_META_BTREE:
		if (whichfork == FORK_DATA)
			ret = fork_meta_btree(&c, fork, len, e);
		break;
	default:
		break;	/* local, device, or no fork: nothing mapped */
	}
	return ret;
}
