/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening directories and reading their (possibly multi-block) blocks. */
#include "core/fs/dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dir_format_name(enum dir_format f)
{
	static const char *const n[] = { "shortform", "block", "leaf",
					 "node" };
	return n[f];
}

/*
 * xfs_dir2_isblock/xfs_dir2_isleaf: the format follows from where the
 * last extent ends: one directory block, or the single leaf block.
 */
static enum dir_format dir_classify(const struct dir *d)
{
	const struct od_geo *g = &d->fs->geo;
	uint64_t leafblk = (OD_DIR2_LEAF_OFFSET >> g->blocklog), last;
	const struct od_irec *r;

	if (d->map.n == 0)
		return DIR_BLOCK;	/* caught as a hole when read */
	r = &d->map.v[d->map.n - 1];
	last = r->startoff + r->blockcount;
	if (last == g->dirblkfsbs)
		return DIR_BLOCK;
	if (last == leafblk + g->dirblkfsbs)
		return DIR_LEAF;
	return DIR_NODE;
}

int dir_open_inode(struct fs *fs, const struct inode *ip, struct dir *d,
		   struct err *e)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->fs = fs;
	d->ip = *ip;
	if (!od_mode_isdir(ip->di.mode))
		return err_set(e, -ENOTDIR, "inode %llu is not a directory",
			       (unsigned long long)ip->di.ino);
	if (ip->di.format == OD_FMT_LOCAL) {
		d->fmt = DIR_SHORTFORM;
		return 0;
	}
	ret = fork_map(fs, ip, FORK_DATA, &d->map, NULL, NULL, e);
	if (ret) {
		dir_close(d);	/* the records read before the damage */
		return ret;
	}
	d->buf = malloc(fs->geo.dirblksize);
	d->buf2 = malloc(fs->geo.dirblksize);
	if (!d->buf || !d->buf2) {
		dir_close(d);
		return err_set(e, -ENOMEM, "out of memory");
	}
	d->fmt = dir_classify(d);
	return 0;
}

int dir_open(struct fs *fs, uint64_t ino, struct dir *d, struct err *e)
{
	struct inode ip;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = inode_read(fs, ino, &ip, e);
	if (ret)
		return ret;
	return dir_open_inode(fs, &ip, d, e);
}

void dir_close(struct dir *d)
{
	extmap_free(&d->map);
	free(d->buf);
	free(d->buf2);
	d->buf = d->buf2 = NULL;
}

int dir_read_block(struct dir *d, uint64_t dablk, uint8_t *buf,
		   struct err *e)
{
	const struct od_geo *g = &d->fs->geo;
	uint64_t off = dablk, end = dablk + g->dirblkfsbs;
	char what[96];
	int ret;

	snprintf(what, sizeof(what), "directory %llu block %llu",
		 (unsigned long long)d->ip.di.ino, (unsigned long long)dablk);
	while (off < end) {
		const struct od_irec *r = fork_rec_at(d->map.v, d->map.n, off);
		uint64_t n;

		if (!r)
			return err_set(e, -EFSCORRUPTED, "%s: file block %llu "
				       "is not mapped", what,
				       (unsigned long long)off);
		n = r->startoff + r->blockcount - off;
		if (n > end - off)
			n = end - off;
		if (off == dablk)
			d->last_daddr = od_fsb_daddr(g, r->startblock +
						     (off - r->startoff));
		ret = fs_read_fsb(d->fs, r->startblock + (off - r->startoff),
				  (uint32_t)n,
				  buf + ((off - dablk) << g->blocklog), e,
				  what);
		if (ret)
			return ret;
		off += n;
	}
	d->dirblocks_read++;
	return 0;
}

void dir_block_name(const struct dir *d, const char *kind, uint64_t dablk,
		    char *buf, size_t len)
{
	snprintf(buf, len, "directory %llu %s%sblock %llu (daddr 0x%llx)",
		 (unsigned long long)d->ip.di.ino, kind, *kind ? " " : "",
		 (unsigned long long)dablk, (unsigned long long)d->last_daddr);
}

int dir_check_self(struct dir *d, uint64_t dablk, uint64_t blkno,
		   uint64_t owner, struct err *e)
{
	if (!d->fs->geo.v5)
		return 0;
	if (blkno != d->last_daddr)
		return err_set(e, -EFSCORRUPTED, "directory %llu block %llu: "
			       "blkno 0x%llx does not match its address 0x%llx",
			       (unsigned long long)d->ip.di.ino,
			       (unsigned long long)dablk,
			       (unsigned long long)blkno,
			       (unsigned long long)d->last_daddr);
	if (owner != d->ip.di.ino)
		return err_set(e, -EFSCORRUPTED, "directory %llu block %llu: "
			       "owner is inode %llu",
			       (unsigned long long)d->ip.di.ino,
			       (unsigned long long)dablk,
			       (unsigned long long)owner);
	return 0;
}
