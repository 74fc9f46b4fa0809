/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The forks phase: each rewritten fork gets its new extent list in the
 * inode, or a freshly built bmap btree (root in the inode, blocks where
 * the plan put them), converting between the two formats as the kernel
 * would: a fork is a btree only when its records do not fit in the inode.
 * The inode's extent counts, format, block count and CRC follow.
 */
#include "core/relocate/exec_priv.h"
#include "core/relocate/btbuild.h"
#include "core/fs/fork.h"
#include "core/fs/inode.h"
#include "ondisk/crc32c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct plan_fork *find_pf(const struct plan *p, size_t from,
				       uint64_t ino, int fork)
{
	if (from < p->npf && p->pf[from].ino == ino &&
	    p->pf[from].whichfork == fork)
		return &p->pf[from];
	return NULL;
}

/* Blocks mapped by the records of one fork (as they are after the run). */
static uint64_t fork_blocks(const struct m_ag *ag, const struct m_ino *mi,
			    int fork, const struct plan_fork *pf)
{
	uint64_t n = 0;
	uint32_t k, first, cnt;

	if (pf) {
		for (k = 0; k < pf->nrecs; k++)
			n += pf->recs[k].blockcount;
		return n + pf->nbmbt;
	}
	first = fork == FORK_DATA ? 0 : mi->nde;
	cnt = fork == FORK_DATA ? mi->nde : mi->nae;
	for (k = 0; k < cnt; k++) {
		struct od_irec r;

		m_ext_get(&ag->ext[mi->ext + first + k], &r);
		n += r.blockcount;
	}
	return n;
}

/* Write one fork's new contents into the inode buffer (and its bmbt). */
static int write_fork(struct xctx *x, struct inode *ip,
		      const struct plan_fork *pf)
{
	uint32_t flen, k;
	uint8_t *fork = (uint8_t *)inode_fork(ip, pf->whichfork, &flen);
	struct btbuild_out bo = { 0 };
	size_t maxcnt;
	int ret;

	if (!fork)
		return err_set(x->e, -EFSCORRUPTED, "inode %llu has no attr "
			       "fork to rewrite", (unsigned long long)pf->ino);
	/* the 32-/16-bit counters of inodes without large extent counts */
	maxcnt = (ip->di.flags2 & OD_DIFLAG2_NREXT64) ? UINT32_MAX :
		 pf->whichfork == FORK_DATA ? INT32_MAX : INT16_MAX;
	if (pf->nrecs > maxcnt)
		return err_set(x->e, -EFBIG, "inode %llu: %u extents do not "
			       "fit its extent counter",
			       (unsigned long long)pf->ino, pf->nrecs);
	if (!pf->nbmbt) {
		memset(fork, 0, flen);
		for (k = 0; k < pf->nrecs; k++)
			od_bmbt_rec_pack(&pf->recs[k],
					 fork + OD_BMBT_REC_LEN * (size_t)k);
		ip->raw[pf->whichfork == FORK_DATA ? 5 : 83] = OD_FMT_EXTENTS;
	} else {
		uint8_t *recs = malloc((size_t)pf->nrecs * 16);

		if (!recs)
			return err_set(x->e, -ENOMEM, "out of memory");
		for (k = 0; k < pf->nrecs; k++)
			od_bmbt_rec_pack(&pf->recs[k],
					 recs + OD_BMBT_REC_LEN * (size_t)k);
		ret = btbuild(x->g, OD_BT_BMAP, 0, pf->ino, recs, pf->nrecs,
			      pf->bmbt, flen, &bo, x->e);
		free(recs);
		if (ret)
			return ret;
		for (k = 0; k < bo.nblocks && !ret; k++)
			ret = x_write(x, od_fsb_lin(x->g, bo.addr[k]),
				      bo.buf + ((size_t)k << x->g->blocklog), 1,
				      "bmbt block");
		if (!ret) {
			memcpy(fork, bo.fork_root, flen);
			ip->raw[pf->whichfork == FORK_DATA ? 5 : 83] =
				OD_FMT_BTREE;
			x->st->btree_blocks_written += bo.nblocks;
		}
		btbuild_free(&bo);
		if (ret)
			return ret;
	}
	od_inode_set_nextents(ip->raw, &ip->di, pf->whichfork, pf->nrecs);
	return 0;
}

int exec_forks(struct xctx *x)
{
	const struct plan *p = x->p;
	struct inode ip;
	size_t i = 0;
	int ret = 0;

	while (i < p->npf && !ret) {
		uint64_t ino = p->pf[i].ino, nino, daddr, off, nblocks = 0;
		const struct plan_fork *dpf, *apf;
		const struct m_ag *ag;
		const struct m_ino *mi = model_find(x->m, ino, &ag);
		uint32_t soff;
		char what[48];

		dpf = find_pf(p, i, ino, FORK_DATA);
		apf = find_pf(p, i + (dpf ? 1 : 0), ino, FORK_ATTR);
		i += (dpf ? 1 : 0) + (apf ? 1 : 0);
		if (!mi || (!dpf && !apf))
			return err_set(x->e, -EINVAL, "plan names inode %llu "
				       "the model does not have",
				       (unsigned long long)ino);
		/* a renumbered inode is at its new slot by now
		 * (exec_inodes); its bmbt blocks keep the plan's (old)
		 * number until exec_irefs restamps them all */
		nino = xr_new(x, ino);
		snprintf(what, sizeof(what), "inode %llu",
			 (unsigned long long)nino);
		daddr = inode_daddr(x->g, nino, &soff);
		off = (daddr << 9) + soff;
		ret = fs_pread(x->fs, off, ip.raw, x->g->inodesize, x->e, what);
		if (!ret)
			ret = inode_decode(x->fs, nino, ip.raw, &ip, x->e);
		if (!ret && dpf)
			ret = write_fork(x, &ip, dpf);
		if (!ret && apf)
			ret = write_fork(x, &ip, apf);
		if (ret)
			break;
		nblocks = fork_blocks(ag, mi, FORK_DATA, dpf) +
			  fork_blocks(ag, mi, FORK_ATTR, apf);
		od_inode_set_nblocks(ip.raw, nblocks);
		if (x->g->v5)
			od_cksum_set(ip.raw, x->g->inodesize, OD_DINODE_CRC_OFF);
		ret = x_pwrite(x, off, ip.raw, x->g->inodesize, x->e,
				what);
		x->st->forks_written += (dpf ? 1 : 0) + (apf ? 1 : 0);
		x_progress(x, "forks", i, p->npf);
	}
	return ret;
}
