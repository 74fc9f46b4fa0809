// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The references phase of a renumbering run, after the forks phase (every
 * block at its final place, every fork final): the entries of every
 * block-, leaf-, node- and btree-format directory that name a moved
 * inode ("." and ".." included, so hard links in several directories
 * and moved parents are covered), and the v5 owner of every block a
 * moved inode owns: bmap btree blocks of both forks, directory data,
 * leaf, node and free blocks, attribute leaf, node and remote value
 * blocks, remote symlink blocks; each with its CRC.  (Shortform
 * directories live in the inode: exec_inodes.c.)
 */
#include "core/relocate/exec_priv.h"
#include "core/base/array.h"
#include "core/fs/fork.h"
#include "core/fs/inode.h"
#include "ondisk/dir2.h"
#include "ondisk/inode.h"
#include "ondisk/renum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Changed blocks wait here and go out in batches: their live originals
 * journaled with one sync per batch, not one per block.  No block is
 * read again after it is queued (each belongs to one inode's fork).
 */
#define XB_BLOCKS	1024

struct xbatch {
	uint64_t lin[XB_BLOCKS];
	uint8_t *data;		/* XB_BLOCKS blocks */
	size_t n;
};

static int xb_flush(struct xctx *x, struct xbatch *b)
{
	size_t i, bs = x->g->blocksize;
	int ret = 0;

	for (i = 0; i < b->n && !ret; i++)
		ret = undo_prepare(x->u, x_off(x, b->lin[i]), bs, x->e);
	if (!ret && b->n)
		ret = undo_sync(x->u, x->e);
	for (i = 0; i < b->n && !ret; i++)
		ret = x_write(x, b->lin[i], b->data + i * bs, 1,
			      "renumbered block");
	b->n = 0;
	return ret;
}

/* Queue nblocks blocks from buf at lin. */
static int xb_add(struct xctx *x, struct xbatch *b, uint64_t lin,
		  const uint8_t *buf, uint64_t nblocks)
{
	size_t bs = x->g->blocksize;
	uint64_t k;
	int ret;

	for (k = 0; k < nblocks; k++) {
		if (b->n == XB_BLOCKS) {
			ret = xb_flush(x, b);
			if (ret)
				return ret;
		}
		b->lin[b->n] = lin + k;
		memcpy(b->data + b->n * bs, buf + k * bs, bs);
		b->n++;
	}
	return 0;
}

struct xqueue {
	struct xctx *x;
	struct xbatch *xb;
};

struct bmblks {
	uint64_t *v;
	size_t n, cap;
};

static int bm_blk(void *priv, uint64_t fsbno, unsigned level, struct err *e)
{
	struct bmblks *b = priv;

	(void)level;
	(void)e;
	if (array_grow((void **)&b->v, &b->cap, b->n, sizeof(*b->v), 16))
		return -ENOMEM;
	b->v[b->n++] = fsbno;
	return 0;
}


/* One directory block (n fs blocks at file block fo). */
static int dir_unit(struct xctx *x, struct xbatch *xb,
		    const struct extmap *em, uint64_t fo, uint32_t n,
		    uint64_t ino, uint64_t nino)
{
	uint32_t bs = x->g->blocksize, k;
	size_t len = (size_t)n * bs;
	uint64_t lin[64];
	int ret;

	if (n > 64 || len > XBUF)
		return err_set(x->e, -EINVAL, "directory blocks of %u fs "
			       "blocks", n);
	for (k = 0; k < n; k++) {
		lin[k] = x_rec_lin(x, em->v, em->n, fo + k);
		if (lin[k] == UINT64_MAX)
			return 0;	/* a hole */
		ret = x_read(x, lin[k], x->buf + (size_t)k * bs, 1,
			     "directory block");
		if (ret)
			return ret;
	}
	if ((fo << x->g->blocklog) < OD_DIR2_LEAF_OFFSET)
		ret = od_dir2_data_renumber(x->buf, len, x->g, xr_map, x,
					    nino != ino ? nino : 0);
	else if (nino != ino && x->g->v5)
		ret = od_selfowner_set(x->buf, len, OD_SELF_DIR, nino);
	else
		ret = 0;
	if (ret == -EINVAL)
		ret = 0;	/* not a v5 header block: nothing to own */
	if (ret < 0)
		return err_set(x->e, -EFSCORRUPTED, "directory %llu: block "
			       "at offset %llu does not decode",
			       (unsigned long long)ino,
			       (unsigned long long)fo);
	for (k = 0; ret > 0 && k < n; k++) {
		int w = xb_add(x, xb, lin[k], x->buf + (size_t)k * bs, 1);

		if (w)
			return w;
	}
	return 0;
}

static int fix_dir(struct xctx *x, struct xbatch *xb,
		   const struct extmap *em, uint64_t ino, uint64_t nino)
{
	uint32_t n = x->g->dirblkfsbs;
	uint64_t last = UINT64_MAX;
	size_t i;
	int ret = 0;

	for (i = 0; i < em->n && !ret; i++) {
		const struct od_irec *r = &em->v[i];
		uint64_t fo = r->startoff & ~(uint64_t)(n - 1);

		for (; fo < r->startoff + r->blockcount && !ret; fo += n) {
			if (last != UINT64_MAX && fo <= last)
				continue;
			last = fo;
			ret = dir_unit(x, xb, em, fo, n, ino, nino);
		}
	}
	return ret;
}

/*
 * Owner of every block of an attr fork (leaf, node and remote value
 * blocks: one header per fs block, xfs_attr3_rmt_hdr included) or of a
 * remote symlink (one header per mapping: the kernel reads each extent
 * as one buffer, xfs_readlink_bmap).
 */
static int own_blocks(struct xctx *x, struct xbatch *xb,
		      const struct extmap *em, enum od_self_fork f,
		      uint64_t nino, const char *what)
{
	size_t i;
	uint64_t k, step;
	int ret = 0;

	for (i = 0; i < em->n && !ret; i++) {
		uint64_t lin0 = od_fsb_lin(x->g, em->v[i].startblock);

		step = f == OD_SELF_SYMLINK ? em->v[i].blockcount : 1;
		if ((step << x->g->blocklog) > XBUF)
			return err_set(x->e, -EFSCORRUPTED, "inode %llu: "
				       "symlink extent of %llu blocks",
				       (unsigned long long)nino,
				       (unsigned long long)step);
		for (k = 0; k < em->v[i].blockcount && !ret; k += step) {
			size_t len = (size_t)step << x->g->blocklog;

			ret = x_read(x, lin0 + k, x->buf, step, what);
			if (ret)
				break;
			ret = od_selfowner_set(x->buf, len, f, nino);
			ret = ret > 0 ? xb_add(x, xb, lin0 + k, x->buf, step)
				      : 0;
		}
	}
	return ret;
}

static int own_bmbt(struct xctx *x, struct xbatch *xb,
		    const struct bmblks *b, uint64_t nino)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < b->n && !ret; i++) {
		uint64_t lin = od_fsb_lin(x->g, b->v[i]);

		ret = x_read(x, lin, x->buf, 1, "bmbt block");
		if (ret)
			break;
		ret = od_bmbt_block_set_owner(x->buf, x->g->blocksize, nino);
		if (ret < 0)
			return err_set(x->e, -EFSCORRUPTED, "bmbt block %llu of "
				       "inode %llu has no bmbt magic",
				       (unsigned long long)b->v[i],
				       (unsigned long long)nino);
		ret = ret > 0 ? xb_add(x, xb, lin, x->buf, 1) : 0;
	}
	return ret;
}

static int queue_block(void *q, uint64_t lin, const uint8_t *buf)
{
	struct xqueue *xq = q;

	return xb_add(xq->x, xq->xb, lin, buf, 1);
}

static int fix_inode(struct xctx *x, struct xbatch *xb,
		     const struct m_ino *mi)
{
	uint64_t ino = mi->ino, nino = xr_new(x, ino);
	bool moved = nino != ino, dir = od_mode_isdir(mi->mode);
	bool pptr = !(mi->flags & MI_NOATTR) &&
		    (m_afmt(mi) == OD_FMT_EXTENTS ||
		     m_afmt(mi) == OD_FMT_BTREE) && exec_pptr_target(x, ino);
	struct xqueue xq = { x, xb };
	struct bmblks b = { 0 };
	struct extmap em = { 0 };
	struct inode ip;
	int fork, ret;

	if (!(dir && m_dfmt(mi) != OD_FMT_LOCAL) && !(moved && x->g->v5) &&
	    !pptr)
		return 0;
	ret = fs_pread(x->fs, xr_ino_off(x, nino), ip.raw, x->g->inodesize,
		       x->e, "inode");
	if (ret)
		return ret;
	/* decoded under its old number: its bmbt blocks still say so */
	if (moved)
		od_dinode_set_ino(ip.raw, x->g->inodesize, x->g, ino);
	ret = inode_decode(x->fs, ino, ip.raw, &ip, x->e);
	for (fork = FORK_DATA; fork <= FORK_ATTR && !ret; fork++) {
		int fmt = inode_fork_format(&ip, fork);

		if (fmt != OD_FMT_EXTENTS && fmt != OD_FMT_BTREE)
			continue;
		b.n = 0;
		ret = fork_map(x->fs, &ip, fork, &em, bm_blk, &b, x->e);
		if (!ret && fork == FORK_DATA && dir)
			ret = fix_dir(x, xb, &em, ino, nino);
		else if (!ret && pptr && fork == FORK_ATTR)
			ret = exec_pptr_blocks(x, &em, ino, nino, queue_block,
					       &xq);
		else if (!ret && moved && fork == FORK_ATTR)
			ret = own_blocks(x, xb, &em, OD_SELF_ATTR, nino,
					 "attr block");
		else if (!ret && moved && od_mode_islnk(mi->mode))
			ret = own_blocks(x, xb, &em, OD_SELF_SYMLINK, nino,
					 "symlink block");
		if (!ret && moved)
			ret = own_bmbt(x, xb, &b, nino);
		extmap_free(&em);
		memset(&em, 0, sizeof(em));
	}
	free(b.v);
	return ret;
}

int exec_irefs(struct xctx *x)
{
	struct xbatch *xb;
	uint32_t a;
	size_t i;
	int ret = 0;

	if (!x->xr)
		return 0;
	xb = calloc(1, sizeof(*xb));
	if (xb)
		xb->data = malloc((size_t)XB_BLOCKS * x->g->blocksize);
	if (!xb || !xb->data) {
		free(xb);
		return err_set(x->e, -ENOMEM, "out of memory");
	}
	for (a = 0; a < x->m->agcount && !ret; a++) {
		const struct m_ag *ag = &x->m->ag[a];

		for (i = 0; i < ag->nino && !ret; i++)
			ret = fix_inode(x, xb, &ag->ino[i]);
		x_progress(x, "references", a + 1, x->m->agcount);
	}
	if (!ret)
		ret = xb_flush(x, xb);
	free(xb->data);
	free(xb);
	return ret;
}
