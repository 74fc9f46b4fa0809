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
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/da.h"
#include "ondisk/dir2.h"
#include "ondisk/symlink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XARM_MAGIC	0x5841524du	/* remote attribute value block */

/* Where a block of a dir/attr fork keeps blkno and crc: 0 if unknown. */
static bool hdr_fields(const uint8_t *b, bool attr, size_t *blkno_off,
		       size_t *crc_off)
{
	uint32_t m32 = od_get_be32(b);
	uint16_t m16 = od_get_be16(b + 8);

	if (!attr && (m32 == OD_DIR3_BLOCK_MAGIC || m32 == OD_DIR3_DATA_MAGIC ||
		      m32 == OD_DIR3_FREE_MAGIC)) {
		*blkno_off = 8;
		*crc_off = 4;
		return true;
	}
	if (attr && m32 == XARM_MAGIC) {
		*blkno_off = 40;
		*crc_off = 12;
		return true;
	}
	if ((!attr && (m16 == OD_DIR3_LEAF1_MAGIC ||
		       m16 == OD_DIR3_LEAFN_MAGIC)) ||
	    (attr && m16 == OD_ATTR3_LEAF_MAGIC) || m16 == OD_DA3_NODE_MAGIC) {
		*blkno_off = 16;
		*crc_off = 12;
		return true;
	}
	return false;
}

/* Linear block of file block fo of the fork, or UINT64_MAX if a hole. */
static uint64_t fork_lin(const struct xctx *x, const struct plan_fork *pf,
			 uint64_t fo)
{
	uint32_t lo = 0, hi = pf->nrecs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct od_irec *r = &pf->recs[mid];

		if (fo < r->startoff)
			hi = mid;
		else if (fo >= r->startoff + r->blockcount)
			lo = mid + 1;
		else
			return od_fsb_lin(x->g, r->startblock + (fo - r->startoff));
	}
	return UINT64_MAX;
}

/*
 * Fix one self-describing unit of nfsb file blocks at fo: read its
 * blocks (which may lie apart), patch, write back if needed.
 */
static int fix_unit(struct xctx *x, const struct plan_fork *pf, uint64_t fo,
		    uint32_t nfsb, bool attr)
{
	uint32_t bs = x->g->blocksize, k;
	size_t blkno_off, crc_off, len = (size_t)nfsb * bs;
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
	if (!hdr_fields(b, attr, &blkno_off, &crc_off))
		return 0;	/* not a v5 header block (or damaged) */
	daddr = lin0 << x->g->bbshift;
	if (od_get_be64(b + blkno_off) == daddr)
		return 0;
	od_put_be64(b + blkno_off, daddr);
	od_cksum_set(b, len, crc_off);
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

		if (len > XBUF || len < OD_SYMLINK_HDR_LEN)
			continue;
		ret = x_read(x, lin, x->buf, r->blockcount, "symlink block");
		if (ret)
			return ret;
		if (od_get_be32(x->buf) != OD_SYMLINK_MAGIC ||
		    od_get_be64(x->buf + 40) == daddr)
			continue;
		od_put_be64(x->buf + 40, daddr);
		od_cksum_set(x->buf, len, OD_SYMLINK_CRC_OFF);
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
