/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The I/O every phase of the executor shares: counted image writes,
 * reads of the blocks as they were before the run (from the journal once
 * overwritten), the superblock, progress.  A leaf: it calls no phase.
 */
#include "core/relocate/exec_priv.h"

int x_pwrite(struct xctx *x, uint64_t off, const void *buf, size_t len,
	     struct err *e, const char *what)
{
	int ret;

	x->st->writes++;
	ret = fs_pwrite(x->fs, off, buf, len, e, what);
	if (!ret)
		x->st->writes_done++;
	return ret;
}

int x_write(struct xctx *x, uint64_t lin, const void *buf, uint64_t nblocks,
	    const char *what)
{
	int ret = x_pwrite(x, x_off(x, lin), buf,
			   (size_t)(nblocks << x->g->blocklog), x->e, what);

	if (!ret)
		x_set_written(x, lin, nblocks);
	return ret;
}

int x_read(struct xctx *x, uint64_t lin, void *buf, uint64_t nblocks,
	   const char *what)
{
	return fs_pread(x->fs, x_off(x, lin), buf,
			(size_t)(nblocks << x->g->blocklog), x->e, what);
}

int x_read_orig(struct xctx *x, uint64_t lin, void *buf, uint64_t nblocks,
		const char *what)
{
	uint8_t *p = buf;
	uint64_t i = 0;
	int ret;

	while (i < nblocks) {
		bool w = x_written(x, lin + i);
		uint64_t j = i + 1;
		size_t len;

		while (j < nblocks && x_written(x, lin + j) == w)
			j++;
		len = (size_t)((j - i) << x->g->blocklog);
		if (w)
			ret = undo_read_original(x->u, x_off(x, lin + i),
						 p + ((i) << x->g->blocklog), len,
						 x->e);
		else
			ret = x_read(x, lin + i, p + (i << x->g->blocklog),
				     j - i, what);
		if (ret)
			return ret;
		i = j;
	}
	return 0;
}

void x_progress(struct xctx *x, const char *phase, uint64_t done,
		uint64_t total)
{
	struct exec_progress pr = { phase, done, total };

	if (x->o->progress)
		x->o->progress(x->o->priv, &pr);
}

int x_sb_read(struct xctx *x, uint8_t *buf, struct od_sb *sb)
{
	int ret = fs_pread(x->fs, 0, buf, x->g->sectsize, x->e, "superblock");

	if (ret)
		return ret;
	if (od_sb_decode(buf, x->g->sectsize, sb) != OD_OK)
		return err_set(x->e, -EFSCORRUPTED, "superblock: no longer "
			       "decodes");
	return 0;
}

int x_sb_write(struct xctx *x, uint8_t *buf, const struct od_sb *sb)
{
	od_sb_encode(sb, buf, x->g->sectsize);
	return x_pwrite(x, 0, buf, x->g->sectsize, x->e, "superblock");
}
