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
#include "core/base/bigmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dctx {
	struct check_ctx *c;
	struct check_ag *ca;
	struct check_log *log;	/* the entries' problems go here */
	uint64_t dir;
	uint32_t dirgen;	/* its generation (parent pointers) */
	bool dirmeta;		/* dir is a metadata directory */
	/* the inode the last entry named: entries often come in order;
	 * else the AG's index (a directory's entries may name inodes
	 * anywhere) */
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
	mi = inoidx_ag_find(d->c->m, od_ino_agno(d->c->g, ino),
			    &d->c->cag[od_ino_agno(d->c->g, ino)].idx, ino);
	if (mi) {
		*agp = &d->c->m->ag[od_ino_agno(d->c->g, ino)];
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

/*
 * The verdict on one entry (dir's, named name, nl bytes of it shown;
 * dots 1 for ".", 2 for ".."), into log: ino in use and of the type
 * ftype says, "." the directory itself, ".." a directory.  ino's AG is
 * ready (check_pipe_ready).
 */
static void verdict(struct dctx *d, struct check_log *log, uint64_t dir,
		    bool dirmeta, const char *name, int nl, unsigned dots,
		    uint64_t ino, uint8_t ftype)
{
	const struct od_sb *sb = &d->c->fs->sb;
	struct check_ctx *c = d->c;
	const struct m_ag *agp = NULL;
	const struct m_ino *mi;

	if (!od_ino_valid(c->g, ino) ||
	    !(mi = lookup(d, ino, &agp))) {
		/* the scan could not read all of that AG: no verdict */
		if (od_ino_valid(c->g, ino) &&
		    c->m->ag[od_ino_agno(c->g, ino)].err)
			return;
		check_problem(log, DIR_ENT_FREE_INODE,
			      (unsigned long long)dir, nl, name,
			      (unsigned long long)ino);
		return;
	}
	__atomic_add_fetch(&c->cag[agp->agno].refs[mi - agp->ino], 1,
			   __ATOMIC_RELAXED);
	if (c->g->ftype && ftype != mode_ftype(mi->mode))
		check_problem(log, DIR_ENT_FTYPE, (unsigned long long)dir, nl,
			      name, ftype, (unsigned long long)ino, mi->mode);
	if (dots == 1 && ino != dir)
		check_problem(log, DIR_DOT, (unsigned long long)dir,
			      (unsigned long long)ino);
	if (dots == 2 && !od_mode_isdir(mi->mode))
		check_problem(log, DIR_DOTDOT_NOTDIR, (unsigned long long)dir,
			      (unsigned long long)ino);
	if (dots == 2 && dir == c->fs->sb.rootino && ino != dir)
		check_problem(log, DIR_ROOT_DOTDOT, (unsigned long long)dir,
			      (unsigned long long)ino);
	if (!dots && ino == c->fs->sb.rootino)
		check_problem(log, DIR_ENT_ROOT, (unsigned long long)dir, nl,
			      name);
	if (!c->g->metadir)
		return;
	/* the metadata directory tree and the user's never meet */
	if (dirmeta != !!(mi->flags & MI_METADATA))
		check_problem(log, DIR_METADIR, (unsigned long long)dir, nl,
			      name, (unsigned long long)ino, dirmeta ?
			      "a metadata directory names a file that is not "
			      "metadata" : "a metadata file named from "
			      "outside the metadata directory");
	else if (!dots && ino == sb->metadirino)
		check_problem(log, DIR_METADIR, (unsigned long long)dir, nl,
			      name, (unsigned long long)ino, "the root of "
			      "the metadata directory has no parent");
	else if (dots == 2 && dir == sb->metadirino && ino != dir)
		check_problem(log, DIR_METADIR, (unsigned long long)dir, nl,
			      name, (unsigned long long)ino, "the \"..\" of "
			      "the metadata directory's root is not itself");
}

static int entry(void *priv, const uint8_t *name, size_t namelen,
		 uint64_t ino, uint8_t ftype, struct err *e)
{
	struct dctx *d = priv;
	struct check_ctx *c = d->c;
	unsigned dots = namelen == 1 && name[0] == '.' ? 1 :
			namelen == 2 && name[0] == '.' && name[1] == '.' ?
			2 : 0;
	int nl = namelen > 64 ? 64 : (int)namelen;
	uint32_t agno = od_ino_agno(c->g, ino);

	(void)e;
	if (!dots)
		check_pptr_dirent(c, d->ca, d->dir, d->dirgen, name, namelen,
				  ino);
	if (od_ino_valid(c->g, ino) &&
	    (c->defer || !check_pipe_ready(c, agno))) {
		struct check_dent de;

		/* its AG is still being read: later, or once it is */
		de.pos = d->log->count;
		de.dir = d->dir;
		de.ino = ino;
		de.ftype = ftype;
		de.dots = (uint8_t)dots;
		de.nl = (uint8_t)nl;
		de.dirmeta = d->dirmeta;
		memcpy(de.name, name, (size_t)nl);
		if (check_pipe_defer(c, d->ca, &de) == 0 ||
		    !check_pipe_wait(c, agno))
			return 0;
	}
	verdict(d, d->log, d->dir, d->dirmeta, (const char *)name, nl, dots,
		ino, ftype);
	return 0;
}

struct resolve {
	struct dctx dc;
	const struct check_dent *de;
};

/* check_log_splice: the verdict on put-off entry i, into out. */
static void resolve_one(void *priv, size_t i, struct check_log *out)
{
	struct resolve *r = priv;
	const struct check_dent *de = &r->de[i];

	verdict(&r->dc, out, de->dir, de->dirmeta, de->name, de->nl,
		de->dots, de->ino, de->ftype);
}

void check_dirs_resolve(struct check_ctx *c, struct check_ag *ca)
{
	struct resolve r = { { c, ca, NULL, 0, 0, false, NULL, 0 }, ca->dent };
	uint64_t *at;
	size_t i;

	if (!ca->ndent)
		return;
	at = malloc(ca->ndent * sizeof(*at));
	if (!at) {
		check_fatal(c, -ENOMEM);
		return;
	}
	for (i = 0; i < ca->ndent; i++)
		at[i] = ca->dent[i].pos;
	check_log_splice(&ca->log, ca->ndent, at, resolve_one, &r);
	free(at);
	bigmem_free(ca->dent, ca->cap_dent, sizeof(*ca->dent));
	ca->dent = NULL;
	ca->ndent = ca->cap_dent = 0;
}

static void dirck_init(struct dirck *k, struct check_ctx *c,
		       struct check_ag *ca, struct dir *d)
{
	memset(k, 0, sizeof(*k));
	k->c = c;
	k->ca = ca;
	k->d = d;
	k->g = c->g;
	k->ino = (unsigned long long)d->ip.di.ino;
	k->ci = od_sb_has_asciici(&c->fs->sb);
}

/* What the passes collected (bigmem_grow's arrays may be mapped). */
static void dirck_free(struct dirck *k)
{
	bigmem_free(k->ent, k->cap_ent, sizeof(*k->ent));
	free(k->names);
	bigmem_free(k->best, k->cap_best, sizeof(*k->best));
	bigmem_free(k->lv, k->cap_lv, sizeof(*k->lv));
	k->ent = NULL;
	k->names = NULL;
	k->best = NULL;
	k->lv = NULL;
	k->nent = k->nnames = k->nbest = k->nlv = 0;
	k->cap_ent = k->cap_names = k->cap_best = k->cap_lv = 0;
}

/* A shortform directory: its entries, then its names. */
static int check_short(struct check_ctx *c, struct check_ag *ca,
		       struct dir *d, struct dctx *dc, struct err *e)
{
	struct dirck k;
	int ret;

	ret = dir_iterate(d, entry, dc, e);
	if (ret)
		return ret;
	dirck_init(&k, c, ca, d);
	dirck_shortform(&k);
	dirck_names(&k, false);
	dirck_free(&k);
	return 0;
}

/*
 * A block, leaf or node directory (check_dir.h): first every entry
 * (entry), then, if they all read, the blocks and names.  The data
 * pass rides along with the entries' walk (dirck_iterate), its
 * problems (and LSNs) held apart until the walk has succeeded; when it
 * found any, it is run again on its own, so that the log comes out as
 * from the two passes one after the other.
 */
static int check_long(struct check_ctx *c, struct check_ag *ca,
		      struct dir *d, struct dctx *dc, struct err *e)
{
	struct check_log real = ca->log, held;
	struct check_lsn lsn = ca->lsn;
	struct dirck k;
	int ret, dret;

	dirck_init(&k, c, ca, d);
	k.buf = malloc(c->g->dirblksize);
	if (!k.buf) {
		check_fatal(c, -ENOMEM);
		return 0;
	}
	memset(&ca->log, 0, sizeof(ca->log));
	dc->log = &real;
	ret = dirck_iterate(&k, entry, dc, e, &dret);
	held = ca->log;
	ca->log = real;
	dc->log = &ca->log;
	if (ret || held.count) {
		ca->lsn = lsn;
		dirck_free(&k);
		k.problems = 0;
		if (!ret)
			dret = dirck_data(&k);
	}
	check_log_free(&held);
	if (!ret && dret == 0) {
		dirck_index(&k);
		dirck_names(&k, true);
	}
	free(k.buf);
	dirck_free(&k);
	return ret;
}

void check_dir(struct check_ctx *c, struct check_ag *ca,
	       const struct inode *ip, struct err *e)
{
	struct dctx dc = { c, ca, &ca->log, ip->di.ino, ip->di.gen,
			   od_inode_is_meta(&ip->di), NULL, 0 };
	struct dir d;
	int ret;

	err_clear(e);
	ret = dir_open_inode(c->fs, ip, &d, e);
	if (ret)
		goto bad;
	if (d.fmt == DIR_SHORTFORM)
		ret = check_short(c, ca, &d, &dc, e);
	else
		ret = check_long(c, ca, &d, &dc, e);
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
