/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The headers phase: v5 directory, attribute and symlink blocks say where
 * they are (blkno) and carry a CRC over themselves; after a move both are
 * stale.  Each such block of every rewritten fork is read at its new place
 * and, if its blkno is not its address, fixed and written back.
 * (xfs_da_format.h: xfs_dir3_blk_hdr, xfs_da3_blkinfo, xfs_attr3_rmt_hdr;
 * xfs_format.h: xfs_dsymlink_hdr.)
 */
#include "core/relocate/exec_priv.h"
#include "core/fs/fork.h"
#include "ondisk/selfhdr.h"
#include "ondisk/symlink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Linear block of file block fo of the fork, or UINT64_MAX if a hole. */
static uint64_t fork_lin(const struct xctx *x, const struct plan_fork *pf,
			 uint64_t fo)
{
	return x_rec_lin(x, pf->recs, pf->nrecs, fo);
}

/*
 * Fix one self-describing unit of nfsb file blocks at fo: read its
 * blocks (which may lie apart), patch, write back if needed.
 */
static int fix_unit(struct xctx *x, const struct plan_fork *pf, uint64_t fo,
		    uint32_t nfsb, bool attr)
{
	uint32_t bs = x->g->blocksize, k;
	size_t len = (size_t)nfsb * bs;
	struct od_selfaddr sa;
	uint64_t lin0 = fork_lin(x, pf, fo), daddr;
	uint8_t *b = x->buf;
	int ret;

	if (lin0 == UINT64_MAX || len > XBUF)
		return 0;	/* a hole: nothing there */
	for (k = 0; k < nfsb; k++) {
		uint64_t lin = fork_lin(x, pf, fo + k);

		if (lin == UINT64_MAX)
			return 0;
		ret = x_read(x, lin, b + (size_t)k * bs, 1, "moved block");
		if (ret)
			return ret;
	}
	if (!od_selfaddr_find(b, len, attr ? OD_SELF_ATTR : OD_SELF_DIR, &sa))
		return 0;	/* not a v5 header block (or damaged) */
	daddr = lin0 << x->g->bbshift;
	if (od_selfaddr_get(b, &sa) == daddr)
		return 0;
	od_selfaddr_set(b, len, &sa, daddr);
	for (k = 0; k < nfsb; k++) {
		ret = x_write(x, fork_lin(x, pf, fo + k), b + (size_t)k * bs, 1,
			      "moved block header");
		if (ret)
			return ret;
	}
	return 0;
}

static int fix_symlink(struct xctx *x, const struct plan_fork *pf)
{
	uint32_t i;
	int ret;

	for (i = 0; i < pf->nrecs; i++) {
		const struct od_irec *r = &pf->recs[i];
		uint64_t lin = od_fsb_lin(x->g, r->startblock);
		size_t len = (size_t)r->blockcount << x->g->blocklog;
		uint64_t daddr = lin << x->g->bbshift;
		struct od_selfaddr sa;

		if (len > XBUF || len < OD_SYMLINK_HDR_LEN)
			continue;
		ret = x_read(x, lin, x->buf, r->blockcount, "symlink block");
		if (ret)
			return ret;
		if (!od_selfaddr_find(x->buf, len, OD_SELF_SYMLINK, &sa) ||
		    od_selfaddr_get(x->buf, &sa) == daddr)
			continue;
		od_selfaddr_set(x->buf, len, &sa, daddr);
		ret = x_write(x, lin, x->buf, r->blockcount, "symlink block");
		if (ret)
			return ret;
	}
	return 0;
}

int exec_headers(struct xctx *x)
{
	const struct plan *p = x->p;
	size_t i;
	int ret = 0;

	if (!x->g->v5)
		return 0;	/* v4 blocks do not describe themselves */
	for (i = 0; i < p->npf && !ret; i++) {
		const struct plan_fork *pf = &p->pf[i];
		uint32_t k;

		if (pf->ftype == PF_SYMLINK) {
			ret = fix_symlink(x, pf);
		} else if (pf->ftype == PF_DIR) {
			uint32_t n = x->g->dirblkfsbs;

			/* every directory block: aligned groups of n blocks */
			for (k = 0; k < pf->nrecs && !ret; k++) {
				const struct od_irec *r = &pf->recs[k];
				uint64_t fo = r->startoff & ~(uint64_t)(n - 1);

				for (; fo < r->startoff + r->blockcount && !ret;
				     fo += n)
					if (fo >= r->startoff || k == 0 ||
					    pf->recs[k - 1].startoff +
					    pf->recs[k - 1].blockcount <= fo)
						ret = fix_unit(x, pf, fo, n,
							       false);
			}
		} else if (pf->ftype == PF_ATTR) {
			for (k = 0; k < pf->nrecs && !ret; k++) {
				const struct od_irec *r = &pf->recs[k];
				uint64_t fo;

				for (fo = r->startoff;
				     fo < r->startoff + r->blockcount && !ret;
				     fo++)
					ret = fix_unit(x, pf, fo, 1, true);
			}
		}
		x_progress(x, "headers", i + 1, p->npf);
	}
	return ret;
}
