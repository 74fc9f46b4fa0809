/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directories, for the inodes phase: every block verified (data blocks
 * by iterating every entry, the hash index and free-index blocks by
 * their self-describing headers), and every entry checked: it names an
 * allocated inode, its file type matches that inode's mode, "." is the
 * directory itself, ".." is a directory (the root's is the root).  Each
 * entry adds one to the link count found for the inode it names.
 */
#include "core/check/check_dir.h"

#include <stdio.h>
#include <stdlib.h>
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

/*
 * The blocks and names of a directory that read well (check_dir.h):
 * what the kernel's verifiers and xfs_repair hold against them.
 */
static void check_deep(struct check_ctx *c, struct check_ag *ca,
		       struct dir *d)
{
	struct dirck k;

	memset(&k, 0, sizeof(k));
	k.c = c;
	k.ca = ca;
	k.d = d;
	k.g = c->g;
	k.ino = (unsigned long long)d->ip.di.ino;
	k.ci = od_sb_has_asciici(&c->fs->sb);
	if (d->fmt == DIR_SHORTFORM) {
		dirck_shortform(&k);
		dirck_names(&k, false);
		goto out;
	}
	k.buf = malloc(c->g->dirblksize);
	if (!k.buf) {
		check_fatal(c, -ENOMEM);
		goto out;
	}
	if (dirck_data(&k) == 0) {
		dirck_index(&k);
		dirck_names(&k, true);
	}
out:
	free(k.buf);
	free(k.ent);
	free(k.names);
	free(k.best);
	free(k.lv);
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
	if (!ret)
		check_deep(c, ca, &d);
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
