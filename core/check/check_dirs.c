/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directories, for the inodes phase: every block verified (data blocks
 * by iterating every entry, the hash index and free-index blocks by
 * their self-describing headers), and every entry checked: it names an
 * allocated inode, its file type matches that inode's mode, "." is the
 * directory itself, ".." is a directory (the root's is the root).  Each
 * entry adds one to the link count found for the inode it names.
 */
#include "core/check/check_int.h"
#include "core/fs/dir.h"
#include "ondisk/selfhdr.h"

#include <stdio.h>
#include <string.h>

struct dctx {
	struct check_ctx *c;
	struct check_ag *ca;
	uint64_t dir;
	/* the inode the last entry named: entries often come in order */
	const struct m_ag *hag;
	size_t hidx;
};

static const struct m_ino *lookup(struct dctx *d, uint64_t ino,
				  const struct m_ag **agp)
{
	const struct m_ino *mi;

	if (d->hag && d->hidx + 1 < d->hag->nino &&
	    d->hag->ino[d->hidx + 1].ino == ino) {
		*agp = d->hag;
		return &d->hag->ino[++d->hidx];
	}
	mi = model_find(d->c->m, ino, agp);
	if (mi) {
		d->hag = *agp;
		d->hidx = (size_t)(mi - d->hag->ino);
	}
	return mi;
}

static uint8_t mode_ftype(uint16_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return OD_FT_REG_FILE;
	case 0040000: return OD_FT_DIR;
	case 0020000: return OD_FT_CHRDEV;
	case 0060000: return OD_FT_BLKDEV;
	case 0010000: return OD_FT_FIFO;
	case 0140000: return OD_FT_SOCK;
	case 0120000: return OD_FT_SYMLINK;
	}
	return OD_FT_UNKNOWN;
}

static int entry(void *priv, const uint8_t *name, size_t namelen,
		 uint64_t ino, uint8_t ftype, struct err *e)
{
	struct dctx *d = priv;
	struct check_ctx *c = d->c;
	struct check_log *log = &d->ca->log;
	unsigned long long dir = (unsigned long long)d->dir;
	bool dot = namelen == 1 && name[0] == '.';
	bool dotdot = namelen == 2 && name[0] == '.' && name[1] == '.';
	int nl = namelen > 64 ? 64 : (int)namelen;
	const struct m_ag *agp = NULL;
	const struct m_ino *mi;

	(void)e;
	if (!od_ino_valid(c->g, ino) ||
	    !(mi = lookup(d, ino, &agp))) {
		/* the scan could not read all of that AG: no verdict */
		if (od_ino_valid(c->g, ino) &&
		    c->m->ag[od_ino_agno(c->g, ino)].err)
			return 0;
		check_problem(log, DIR_ENT_FREE_INODE, dir, nl,
			      (const char *)name, (unsigned long long)ino);
		return 0;
	}
	__atomic_add_fetch(&c->cag[agp->agno].refs[mi - agp->ino], 1,
			   __ATOMIC_RELAXED);
	if (c->g->ftype && ftype != mode_ftype(mi->mode))
		check_problem(log, DIR_ENT_FTYPE, dir, nl,
			      (const char *)name, ftype,
			      (unsigned long long)ino, mi->mode);
	if (dot && ino != d->dir)
		check_problem(log, DIR_DOT,
			      dir, (unsigned long long)ino);
	if (dotdot && !od_mode_isdir(mi->mode))
		check_problem(log, DIR_DOTDOT_NOTDIR, dir,
			      (unsigned long long)ino);
	if (dotdot && d->dir == c->fs->sb.rootino && ino != d->dir)
		check_problem(log, DIR_ROOT_DOTDOT, dir, (unsigned long long)ino);
	if (!dot && !dotdot && ino == c->fs->sb.rootino)
		check_problem(log, DIR_ENT_ROOT, dir, nl, (const char *)name);
	return 0;
}

/* Hash index (leaf, node) and free-index blocks: their headers. */
static int check_index(struct dir *d, struct err *e)
{
	const struct od_geo *g = &d->fs->geo;
	uint64_t leafblk = OD_DIR2_LEAF_OFFSET >> g->blocklog;
	uint64_t freeblk = OD_DIR2_FREE_OFFSET >> g->blocklog;
	char what[96];
	size_t i;
	int ret;

	for (i = 0; i < d->map.n; i++) {
		const struct od_irec *r = &d->map.v[i];
		uint64_t off = r->startoff, end = r->startoff + r->blockcount;

		off = (off + g->dirblkfsbs - 1) &
		      ~(uint64_t)(g->dirblkfsbs - 1);
		if (off < leafblk)
			off = leafblk;
		for (; off < end; off += g->dirblkfsbs) {
			const char *field;
			enum od_err oe;
			uint64_t blkno, owner;

			snprintf(what, sizeof(what), "directory %llu block "
				 "%llu", (unsigned long long)d->ip.di.ino,
				 (unsigned long long)off);
			ret = dir_read_block(d, off, d->buf, e);
			if (ret)
				return ret;
			if (off < freeblk) {
				struct od_da_blkinfo bi;
				uint16_t m1 = g->v5 ? OD_DIR3_LEAF1_MAGIC :
					      OD_DIR2_LEAF1_MAGIC;
				uint16_t mn = g->v5 ? OD_DIR3_LEAFN_MAGIC :
					      OD_DIR2_LEAFN_MAGIC;

				oe = od_da_blkinfo(d->buf, g->dirblksize, g,
						   &bi, &field);
				if (!oe && bi.magic != m1 && bi.magic != mn &&
				    !od_da_is_node(g, bi.magic))
					oe = OD_EMAGIC;
				blkno = bi.blkno;
				owner = bi.owner;
			} else {
				struct od_dir_free_hdr fh;

				oe = od_dir_free_hdr(d->buf, g->dirblksize, g,
						     &fh, &field);
				blkno = fh.blkno;
				owner = fh.owner;
			}
			if (oe)
				return err_od(e, oe, field, what);
			ret = dir_check_self(d, off, blkno, owner, e);
			if (ret)
				return ret;
		}
	}
	return 0;
}

void check_dir(struct check_ctx *c, struct check_ag *ca,
	       const struct inode *ip, struct err *e)
{
	struct dctx dc = { c, ca, ip->di.ino, NULL, 0 };
	struct dir d;
	int ret;

	err_clear(e);
	ret = dir_open_inode(c->fs, ip, &d, e);
	if (ret)
		goto bad;
	ret = dir_iterate(&d, entry, &dc, e);
	if (!ret && d.fmt != DIR_SHORTFORM)
		ret = check_index(&d, e);
	dir_close(&d);
	if (!ret)
		return;
bad:
	if (ret == -ENOMEM) {
		check_fatal(c, ret);
		return;
	}
	check_problem(&ca->log, DIR_DAMAGED, e->msg);
	__atomic_store_n(&c->links_unknown, true, __ATOMIC_RELAXED);
}
