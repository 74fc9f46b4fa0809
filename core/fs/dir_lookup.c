/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Name lookup through the directory hash index: the block tail's leaf
 * area, the single leaf block, or a dabtree descent to leafn blocks.
 * Only blocks on the path of the name's hash are read.
 */
#include "core/fs/dir.h"
#include "ondisk/dahash.h"

#include <stdio.h>
#include <string.h>

#define MAX_LEAF_CHAIN	4096	/* leaves one hash value may span, at most */

struct lookup {
	struct dir *d;
	const uint8_t *name;
	size_t namelen;
	uint32_t hash;
	bool ci;
	uint64_t ino;
	uint64_t cached_db;	/* data block in buf2, or UINT64_MAX */
	uint64_t cached_daddr;	/* and where it is */
};

static bool name_eq(const struct lookup *l, const uint8_t *n, size_t len)
{
	size_t i;

	if (len != l->namelen)
		return false;
	if (!l->ci)
		return memcmp(n, l->name, len) == 0;
	for (i = 0; i < len; i++)
		if (od_ascii_ci_fold(n[i]) != od_ascii_ci_fold(l->name[i]))
			return false;
	return true;
}

static int lookup_sf(struct lookup *l, struct err *e)
{
	struct dir *d = l->d;
	const struct od_geo *g = &d->fs->geo;
	struct od_dir2_sf hdr;
	const uint8_t *fork;
	const char *field;
	uint32_t len, pos, i;
	enum od_err oe;
	char what[64];

	snprintf(what, sizeof(what), "directory %llu (shortform)",
		 (unsigned long long)d->ip.di.ino);
	fork = inode_fork(&d->ip, FORK_DATA, &len);
	if (d->ip.di.size < len)
		len = (uint32_t)d->ip.di.size;
	oe = od_dir2_sf_hdr(fork, len, &hdr, &field);
	if (oe)
		return err_od(e, oe, field, what);
	if (l->namelen == 2 && memcmp(l->name, "..", 2) == 0) {
		l->ino = hdr.parent;
		return 0;
	}
	if (l->namelen == 1 && l->name[0] == '.') {
		l->ino = d->ip.di.ino;
		return 0;
	}
	pos = hdr.hdr_len;
	for (i = 0; i < hdr.count; i++) {
		struct od_dirent de;

		oe = od_dir2_sf_entry(fork, len, &hdr, g->ftype, &pos, &de,
				      &field);
		if (oe == OD_ESHORT)
			return err_set(e, -EFSCORRUPTED, "%s: entry %u runs "
				       "past the end of the fork (%u bytes)",
				       what, i, len);
		if (oe)
			return err_od(e, oe, field, what);
		if (name_eq(l, de.name, de.namelen)) {
			l->ino = de.ino;
			return 0;
		}
	}
	return -ENOENT;
}

/* Check the entry at dataptr addr (8-byte units) is our name. */
static int check_dataptr(struct lookup *l, uint32_t addr, bool *found,
			 struct err *e)
{
	struct dir *d = l->d;
	const struct od_geo *g = &d->fs->geo;
	uint64_t byte = (uint64_t)addr * OD_DIR2_DATA_ALIGN;
	uint64_t db = byte / g->dirblksize;
	uint32_t off = (uint32_t)(byte % g->dirblksize);
	struct od_dir2_data_hdr hdr;
	struct od_dirent de;
	const char *field;
	enum od_err oe;
	char what[128];
	bool unused;
	int ret;

	*found = false;
	snprintf(what, sizeof(what), "directory %llu data block %llu",
		 (unsigned long long)d->ip.di.ino,
		 (unsigned long long)(db << g->dirblklog));
	if (byte >= OD_DIR2_LEAF_OFFSET)
		return err_set(e, -EFSCORRUPTED, "%s: hash entry points past "
			       "the data space", what);
	if (l->cached_db != db) {
		l->cached_db = UINT64_MAX;
		ret = dir_read_block(d, db << g->dirblklog, d->buf2, e);
		if (ret)
			return ret;
		dir_block_name(d, "data", db << g->dirblklog, what,
			       sizeof(what));
		oe = od_dir2_data_hdr(d->buf2, g->dirblksize, g, &hdr, &field);
		if (oe)
			return err_od(e, oe, field, what);
		ret = dir_check_self(d, db << g->dirblklog, hdr.blkno,
				     hdr.owner, e);
		if (ret)
			return ret;
		l->cached_db = db;
		l->cached_daddr = d->last_daddr;
	} else {
		snprintf(what, sizeof(what), "directory %llu data block %llu "
			 "(daddr 0x%llx)", (unsigned long long)d->ip.di.ino,
			 (unsigned long long)(db << g->dirblklog),
			 (unsigned long long)l->cached_daddr);
		oe = od_dir2_data_hdr(d->buf2, g->dirblksize, g, &hdr, &field);
		if (oe)
			return err_od(e, oe, field, what);
	}
	if (off < hdr.hdr_len)
		return err_set(e, -EFSCORRUPTED, "%s: hash entry points into "
			       "the header", what);
	oe = od_dir2_data_entry(d->buf2, &hdr, g->ftype, &off, &de, &unused,
				&field);
	if (oe)
		return err_od(e, oe, field, what);
	if (unused)
		return err_set(e, -EFSCORRUPTED, "%s: hash entry points at "
			       "free space", what);
	if (name_eq(l, de.name, de.namelen)) {
		*found = true;
		l->ino = de.ino;
	}
	return 0;
}

/* First index in ents[0..count) whose hash is >= l->hash. */
static uint32_t leaf_lower_bound(const uint8_t *ents, uint32_t count,
				 uint32_t hash)
{
	uint32_t lo = 0, hi = count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		struct od_dir2_leaf_ent le;

		od_dir2_leaf_ent(ents, mid, &le);
		if (le.hashval < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Scan hash entries from the lower bound.  *more is set when the last
 * entry still carried our hash, so the match may continue in the next
 * leaf.  Entries must be sorted; a violation is corruption.
 */
static int scan_leaf_ents(struct lookup *l, const uint8_t *ents,
			  uint32_t count, bool *found, bool *more,
			  struct err *e)
{
	uint32_t i = leaf_lower_bound(ents, count, l->hash);
	int ret;

	*found = false;
	*more = false;
	for (; i < count; i++) {
		struct od_dir2_leaf_ent le;

		od_dir2_leaf_ent(ents, i, &le);
		if (le.hashval != l->hash)
			return 0;
		if (le.address == OD_DIR2_NULL_DATAPTR)
			continue;	/* stale */
		ret = check_dataptr(l, le.address, found, e);
		if (ret || *found)
			return ret;
	}
	*more = true;
	return 0;
}

static int lookup_block(struct lookup *l, struct err *e)
{
	struct dir *d = l->d;
	const struct od_geo *g = &d->fs->geo;
	struct od_dir2_data_hdr hdr;
	const char *field;
	enum od_err oe;
	char what[128];
	bool found, more;
	int ret;

	/* data and hash entries share the block: read it as the data cache */
	ret = dir_read_block(d, 0, d->buf2, e);
	if (ret)
		return ret;
	dir_block_name(d, "", 0, what, sizeof(what));
	oe = od_dir2_data_hdr(d->buf2, g->dirblksize, g, &hdr, &field);
	if (oe)
		return err_od(e, oe, field, what);
	if (!hdr.block)
		return err_set(e, -EFSCORRUPTED, "%s: not a single-block "
			       "directory block", what);
	ret = dir_check_self(d, 0, hdr.blkno, hdr.owner, e);
	if (ret)
		return ret;
	l->cached_db = 0;
	l->cached_daddr = d->last_daddr;
	ret = scan_leaf_ents(l, d->buf2 + hdr.end, hdr.leaf_count, &found,
			     &more, e);
	if (ret)
		return ret;
	return found ? 0 : -ENOENT;
}

/* Read and check a leaf (leaf1 or leafn) block at dablk into d->buf. */
static int read_leaf(struct lookup *l, uint64_t dablk,
		     struct od_dir2_leaf_hdr *lh, struct err *e)
{
	struct dir *d = l->d;
	const struct od_geo *g = &d->fs->geo;
	const char *field;
	enum od_err oe;
	char what[128];
	int ret;

	ret = dir_read_block(d, dablk, d->buf, e);
	if (ret)
		return ret;
	dir_block_name(d, "leaf", dablk, what, sizeof(what));
	oe = od_dir2_leaf_hdr(d->buf, g->dirblksize, g, lh, &field);
	if (oe)
		return err_od(e, oe, field, what);
	return dir_check_self(d, dablk, lh->info.blkno, lh->info.owner, e);
}

static int lookup_leafn_chain(struct lookup *l, uint64_t dablk, struct err *e)
{
	struct od_dir2_leaf_hdr lh;
	bool found, more;
	unsigned n;
	int ret;

	for (n = 0; n < MAX_LEAF_CHAIN; n++) {
		ret = read_leaf(l, dablk, &lh, e);
		if (ret)
			return ret;
		ret = scan_leaf_ents(l, l->d->buf + lh.hdr_len, lh.count,
				     &found, &more, e);
		if (ret)
			return ret;
		if (found)
			return 0;
		if (!more || lh.info.forw == 0)
			return -ENOENT;
		dablk = lh.info.forw;
	}
	return err_set(e, -EFSCORRUPTED, "directory %llu: leaf sibling chain "
		       "too long (loop?)", (unsigned long long)l->d->ip.di.ino);
}

static int lookup_leaf(struct lookup *l, struct err *e)
{
	const struct od_geo *g = &l->d->fs->geo;
	uint64_t leafblk = OD_DIR2_LEAF_OFFSET >> g->blocklog;
	struct od_dir2_leaf_hdr lh;
	bool found, more;
	int ret;

	ret = read_leaf(l, leafblk, &lh, e);
	if (ret)
		return ret;
	if (!lh.leaf1)
		return err_set(e, -EFSCORRUPTED, "directory %llu: leaf block "
			       "has a leafn magic in a leaf-format directory",
			       (unsigned long long)l->d->ip.di.ino);
	ret = scan_leaf_ents(l, l->d->buf + lh.hdr_len, lh.count, &found,
			     &more, e);
	if (ret)
		return ret;
	return found ? 0 : -ENOENT;
}

/* xfs_da3_node_lookup_int: descend to the first entry whose hash >= ours. */
static int lookup_node(struct lookup *l, struct err *e)
{
	struct dir *d = l->d;
	const struct od_geo *g = &d->fs->geo;
	uint64_t dablk = OD_DIR2_LEAF_OFFSET >> g->blocklog;
	unsigned expect = 0, depth;
	char what[128];
	int ret;

	for (depth = 0; depth < OD_BTREE_MAXLEVELS_ANY; depth++) {
		struct od_da_blkinfo bi;
		struct od_da_node node;
		const char *field;
		enum od_err oe;
		uint32_t lo, hi, hash, before;

		ret = dir_read_block(d, dablk, d->buf, e);
		if (ret)
			return ret;
		oe = od_da_blkinfo(d->buf, g->dirblksize, g, &bi, &field);
		/* blkinfo has the magic even when the CRC is wrong */
		dir_block_name(d, od_da_is_node(g, bi.magic) ? "node" : "leaf",
			       dablk, what, sizeof(what));
		if (oe)
			return err_od(e, oe, field, what);
		if (!od_da_is_node(g, bi.magic)) {
			if (depth && expect != 0)
				return err_set(e, -EFSCORRUPTED, "%s: expected "
					       "a node at level %u", what,
					       expect);
			return lookup_leafn_chain(l, dablk, e);
		}
		oe = od_da_node_decode(d->buf, g->dirblksize, g, &node, &field);
		if (oe)
			return err_od(e, oe, field, what);
		ret = dir_check_self(d, dablk, bi.blkno, bi.owner, e);
		if (ret)
			return ret;
		if (depth && node.level != expect)
			return err_set(e, -EFSCORRUPTED, "%s: level %u, "
				       "expected %u", what, node.level, expect);
		lo = 0;
		hi = node.count;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			od_da_node_entry(d->buf, &node, mid, &hash, &before);
			if (hash < l->hash)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == node.count)
			lo = node.count - 1;
		od_da_node_entry(d->buf, &node, lo, &hash, &before);
		expect = node.level - 1u;
		if (before < (OD_DIR2_LEAF_OFFSET >> g->blocklog) ||
		    before >= (OD_DIR2_FREE_OFFSET >> g->blocklog))
			return err_set(e, -EFSCORRUPTED, "%s: child block %u "
				       "is outside the leaf space", what,
				       before);
		dablk = before;
	}
	return err_set(e, -EFSCORRUPTED, "directory %llu: node tree too deep",
		       (unsigned long long)d->ip.di.ino);
}

struct scan {
	struct lookup *l;
	bool found;
};

static int scan_entry(void *priv, const uint8_t *name, size_t namelen,
		      uint64_t ino, uint8_t ftype, struct err *e)
{
	struct scan *s = priv;

	(void)ftype;
	(void)e;
	if (!name_eq(s->l, name, namelen))
		return 0;
	s->l->ino = ino;
	s->found = true;
	return 1;	/* stop */
}

/* Shown in warnings: the name, control characters as '?'. */
static void safe_name(const uint8_t *name, size_t len, char *buf, size_t n)
{
	size_t i;

	if (len > n - 1)
		len = n - 1;
	for (i = 0; i < len; i++)
		buf[i] = name[i] < 0x20 || name[i] == 0x7f ? '?' :
			 (char)name[i];
	buf[len] = '\0';
}

/*
 * The hash index did not lead to the name (ret -ENOENT): look through
 * every data block.  Found: 0, with the index reported damaged.
 */
static int lookup_scan(struct lookup *l, int ret, struct err *e)
{
	struct dir *d = l->d;
	struct scan s = { l, false };
	struct err se = { 0 };
	char name[64];
	int sret;

	/* an unreadable index block is an error, as it is to the kernel */
	if (d->fmt == DIR_SHORTFORM || ret != -ENOENT)
		return ret;
	sret = dir_iterate(d, scan_entry, &s, &se);
	if (!s.found) {
		/* a data block the index never led to may be damaged too */
		if (sret < 0) {
			*e = se;
			return sret;
		}
		return ret;
	}
	safe_name(l->name, l->namelen, name, sizeof(name));
	d->index_damaged = true;
	snprintf(d->index_warn, sizeof(d->index_warn), "directory %llu: its "
		 "%s hash index (from block %llu) does not lead to \"%s\", "
		 "found by a linear scan (the index is damaged)",
		 (unsigned long long)d->ip.di.ino, dir_format_name(d->fmt),
		 d->fmt == DIR_BLOCK ? 0ull :
		 (unsigned long long)(OD_DIR2_LEAF_OFFSET >>
				      d->fs->geo.blocklog), name);
	return 0;
}

int dir_lookup(struct dir *d, const uint8_t *name, size_t namelen,
	       uint64_t *ino, struct err *e)
{
	struct lookup l;
	int ret;

	memset(&l, 0, sizeof(l));
	l.d = d;
	l.name = name;
	l.namelen = namelen;
	l.ci = od_sb_has_asciici(&d->fs->sb);
	l.hash = l.ci ? od_da_hashname_ci(name, namelen) :
			od_da_hashname(name, namelen);
	l.cached_db = UINT64_MAX;
	switch (d->fmt) {
	case DIR_SHORTFORM:
		ret = lookup_sf(&l, e);
		break;
	case DIR_BLOCK:
		ret = lookup_block(&l, e);
		break;
	case DIR_LEAF:
		ret = lookup_leaf(&l, e);
		break;
	default:
		ret = lookup_node(&l, e);
		break;
	}
	if (ret)
		ret = lookup_scan(&l, ret, e);
	if (ret == 0)
		*ino = l.ino;
	return ret;
}
