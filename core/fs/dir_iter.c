/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Listing every entry of a directory, in on-disk order. */
#include "core/fs/dir.h"

#include <stdio.h>

static int iter_sf(struct dir *d, dir_iter_fn fn, void *priv, struct err *e)
{
	const struct od_geo *g = &d->fs->geo;
	struct od_dir2_sf hdr;
	const uint8_t *fork;
	const char *field;
	uint32_t len, pos, i;
	enum od_err oe;
	char what[64];
	int ret;

	snprintf(what, sizeof(what), "directory %llu (shortform)",
		 (unsigned long long)d->ip.di.ino);
	fork = inode_fork(&d->ip, FORK_DATA, &len);
	if (d->ip.di.size < len)
		len = (uint32_t)d->ip.di.size;
	oe = od_dir2_sf_hdr(fork, len, &hdr, &field);
	if (oe)
		return err_od(e, oe, field, what);
	/* "." and ".." are implicit in shortform directories */
	ret = fn(priv, (const uint8_t *)".", 1, d->ip.di.ino, OD_FT_DIR, e);
	if (!ret)
		ret = fn(priv, (const uint8_t *)"..", 2, hdr.parent, OD_FT_DIR,
			 e);
	pos = hdr.hdr_len;
	for (i = 0; i < hdr.count && !ret; i++) {
		struct od_dirent de;

		oe = od_dir2_sf_entry(fork, len, &hdr, g->ftype, &pos, &de,
				      &field);
		if (oe == OD_ESHORT)
			return err_set(e, -EFSCORRUPTED, "%s: entry %u runs "
				       "past the end of the fork (%u bytes)",
				       what, i, len);
		if (oe)
			return err_od(e, oe, field, what);
		ret = fn(priv, de.name, de.namelen, de.ino, de.ftype, e);
	}
	return ret;
}

/*
 * A data block went wrong: name it in the message as it was read, at
 * daddr (a callback may have read other blocks since).
 */
static int block_err(struct dir *d, uint64_t dablk, uint64_t daddr,
		     enum od_err oe, const char *field, struct err *e)
{
	uint64_t last = d->last_daddr;
	char what[128];

	d->last_daddr = daddr;
	dir_block_name(d, "data", dablk, what, sizeof(what));
	d->last_daddr = last;
	return err_od(e, oe, field, what);
}

static int iter_block(struct dir *d, uint64_t dablk, dir_iter_fn fn,
		      void *priv, struct err *e)
{
	const struct od_geo *g = &d->fs->geo;
	struct od_dir2_data_hdr hdr;
	const char *field;
	enum od_err oe;
	uint64_t daddr;
	uint32_t pos;
	int ret;

	ret = dir_read_block(d, dablk, d->buf, e);
	if (ret)
		return ret;
	daddr = d->last_daddr;
	/* the block's name is only formatted for a message: snprintf per
	 * block was 6% of the instructions listing 4 KiB blocks */
	oe = od_dir2_data_hdr(d->buf, g->dirblksize, g, &hdr, &field);
	if (oe)
		return block_err(d, dablk, daddr, oe, field, e);
	ret = dir_check_self(d, dablk, hdr.blkno, hdr.owner, e);
	if (ret)
		return ret;
	for (pos = hdr.hdr_len; pos < hdr.end;) {
		struct od_dirent de, q;	/* q stays in registers */
		uint32_t size;
		bool unused;

		/* an entry in use read inline (the scan lists every entry of
		 * every directory); free space and anything doubtful are
		 * left to od_dir2_data_entry */
		size = od_dir2_data_entry_quick(d->buf, pos, hdr.end, g->ftype,
						&q);
		if (size) {
			ret = fn(priv, q.name, q.namelen, q.ino, q.ftype, e);
			if (ret)
				return ret;
			pos += size;
			continue;
		}
		oe = od_dir2_data_entry(d->buf, &hdr, g->ftype, &pos, &de,
					&unused, &field);
		if (oe)
			return block_err(d, dablk, daddr, oe, field, e);
		if (unused)
			continue;
		ret = fn(priv, de.name, de.namelen, de.ino, de.ftype, e);
		if (ret)
			return ret;
	}
	return 0;
}

int dir_iterate(struct dir *d, dir_iter_fn fn, void *priv, struct err *e)
{
	const struct od_geo *g = &d->fs->geo;
	uint64_t leafblk = OD_DIR2_LEAF_OFFSET >> g->blocklog;
	size_t i;
	int ret;

	if (d->fmt == DIR_SHORTFORM)
		return iter_sf(d, fn, priv, e);
	/* every directory block that starts inside the data space */
	for (i = 0; i < d->map.n; i++) {
		const struct od_irec *r = &d->map.v[i];
		uint64_t off = r->startoff, end = r->startoff + r->blockcount;

		/* directory blocks are aligned to the directory block size */
		off = (off + g->dirblkfsbs - 1) & ~(uint64_t)(g->dirblkfsbs - 1);
		if (off >= leafblk)
			break;
		for (; off < end && off < leafblk; off += g->dirblkfsbs) {
			ret = iter_block(d, off, fn, priv, e);
			if (ret)
				return ret;
		}
	}
	return 0;
}
