/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inodes phase, per AG: every physically present inode read again,
 * in the same large sequential runs the scan uses.  In-use inodes:
 * di_nblocks against the blocks their forks map plus their bmbt blocks,
 * bmbt forks walked strictly (and flagged when their records would fit
 * in the inode, as xfs_repair does), directories verified block by
 * block with their entries checked and counted, symlinks read, attribute
 * blocks' self-describing headers verified.  Free inodes: must decode
 * and have mode 0.
 */
#include "core/check/check_bt.h"
#include "core/check/check_dir.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/model/ahead.h"
#include "core/model/inorun.h"
#include "core/fs/fork.h"
#include "core/fs/symlink.h"
#include "ondisk/inode_lite.h"
#include "ondisk/da.h"
#include "ondisk/inode.h"
#include "ondisk/selfhdr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AHEAD_INODES	64u		/* inodes with blocks announced ahead */
#define AHEAD_BYTES	(32u << 20)	/* and their bytes, at most */

struct inode_pass {
	struct check_ctx *c;
	struct check_ag *ca;
	const struct od_geo *g;
	struct err e;
	struct inode *ip;
	size_t cur;		/* cursor in ag->ino */
	/* read_ahead: inodes before ahead are announced; the ring holds
	 * those not yet checked, asum their bytes */
	size_t ahead;
	struct { size_t idx; uint64_t bytes; } aring[AHEAD_INODES];
	unsigned ah, an;
	uint64_t asum;
	size_t idx;		/* m_ag.ino index of the inode being checked */
	uint64_t bmbt_blocks;	/* of the inode being checked */
	uint32_t bmbt_flags;
	size_t bmbt_first;	/* its first entry in ca->bmbt */
};

static const char *fork_name(int whichfork)
{
	return whichfork == FORK_DATA ? "data" : "attr";
}

static int bmbt_block(void *priv, uint64_t fsbno, unsigned level,
		      struct err *e)
{
	struct inode_pass *p = priv;
	struct check_ag *ca = p->ca;

	(void)level;
	if (bigmem_grow((void **)&ca->bmbt, &ca->cap_bmbt, ca->nbmbt,
			sizeof(*ca->bmbt)))
		return err_set(e, -ENOMEM, "out of memory");
	ca->bmbt[ca->nbmbt].fsbno = fsbno;
	ca->bmbt[ca->nbmbt].idx = (uint32_t)p->idx;
	ca->bmbt[ca->nbmbt].len = 1;
	ca->bmbt[ca->nbmbt].flags = (uint16_t)p->bmbt_flags;
	ca->nbmbt++;
	p->bmbt_blocks++;
	return 0;
}

static int cmp_bmbt(const void *a, const void *b)
{
	const struct check_bmbt *x = a, *y = b;

	return x->fsbno < y->fsbno ? -1 : x->fsbno > y->fsbno;
}

/* Sort one fork's bmbt blocks and merge physically adjacent ones. */
static void merge_bmbt(struct inode_pass *p)
{
	struct check_ag *ca = p->ca;
	const struct od_geo *g = p->g;
	struct check_bmbt *v = ca->bmbt + p->bmbt_first;
	size_t n = ca->nbmbt - p->bmbt_first, i, o = 0;

	if (n < 2)
		return;
	sort_any(v, n, sizeof(*v), cmp_bmbt);
	for (i = 1; i < n; i++) {
		struct check_bmbt *l = &v[o];

		if (l->fsbno + l->len == v[i].fsbno && l->len < UINT16_MAX &&
		    od_fsb_agno(g, l->fsbno) == od_fsb_agno(g, v[i].fsbno) &&
		    od_fsb_agbno(g, l->fsbno) + l->len ==
		    od_fsb_agbno(g, v[i].fsbno))
			l->len++;
		else
			v[++o] = v[i];
	}
	ca->nbmbt = p->bmbt_first + o + 1;
}

/* A btree fork: walk it strictly, note its blocks.  0, or <0 if the
 * walk failed (then the block count is unknown). */
static int check_bmbt_fork(struct inode_pass *p, int whichfork)
{
	const struct od_inode *di = &p->ip->di;
	struct check_bt w;
	uint32_t len;
	const uint8_t *fork = inode_fork(p->ip, whichfork, &len);
	uint64_t nrecs = inode_fork_nextents(p->ip, whichfork);
	char what[64];
	int ret;

	if (nrecs <= len / OD_BMBT_REC_LEN)
		check_problem(&p->ca->log, BMBT_FITS,
			      (unsigned long long)di->ino,
			      fork_name(whichfork), (unsigned long long)nrecs);
	memset(&w, 0, sizeof(w));
	snprintf(what, sizeof(what), "inode %llu %s fork bmbt",
		 (unsigned long long)di->ino, fork_name(whichfork));
	w.fs = p->c->fs;
	w.type = OD_BT_BMAP;
	w.owner = di->ino;
	w.what = what;
	w.log = &p->ca->log;
	w.lsn = &p->ca->lsn;
	w.block = bmbt_block;
	w.priv = p;
	p->bmbt_flags = whichfork == FORK_ATTR ? CHECK_SPAN_ATTRFORK : 0;
	p->bmbt_first = p->ca->nbmbt;
	err_clear(&p->e);
	ret = check_bt_bmbt(&w, fork, len, &p->e);
	if (ret == -ENOMEM) {
		check_fatal(p->c, ret);
		return ret;
	}
	if (ret) {
		check_problem(&p->ca->log, BMBT_DAMAGED, p->e.msg);
		p->ca->nbmbt = p->bmbt_first;
		return ret;
	}
	if (w.nrecs != nrecs)
		check_problem(&p->ca->log, BMBT_NRECS,
			      (unsigned long long)di->ino, fork_name(whichfork),
			      (unsigned long long)w.nrecs,
			      (unsigned long long)nrecs);
	merge_bmbt(p);
	return 0;
}

/*
 * A metadata btree fork (a realtime group's rmap or refcount btree):
 * its blocks noted as the bmbt's are (its records map realtime space).
 * 0, or <0 if it could not be read.
 */
static int check_meta_btree_fork(struct inode_pass *p)
{
	struct extmap em = { 0 };
	int ret;

	p->bmbt_flags = 0;
	p->bmbt_first = p->ca->nbmbt;
	err_clear(&p->e);
	ret = fork_map(p->c->fs, p->ip, FORK_DATA, &em, bmbt_block, p, &p->e);
	extmap_free(&em);
	if (ret == -ENOMEM) {
		check_fatal(p->c, ret);
		return ret;
	}
	if (ret) {
		check_problem(&p->ca->log, BMBT_DAMAGED, p->e.msg);
		p->ca->nbmbt = p->bmbt_first;
		return ret;
	}
	merge_bmbt(p);
	return 0;
}

/* di_nblocks: every block the forks map, plus the bmbt blocks. */
static void check_nblocks(struct inode_pass *p, const struct m_ino *mi,
			  uint64_t nblocks, uint64_t bmbt_blocks)
{
	const struct m_ext *x = p->ca->ag->ext + mi->ext;
	/* xfs_repair: no block past what a byte offset (loff_t) reaches */
	uint64_t maxoff = (uint64_t)INT64_MAX >> p->g->blocklog;
	uint64_t blocks = bmbt_blocks;
	bool reported = false;
	uint32_t i;

	for (i = 0; i < mi->nde + mi->nae; i++) {
		struct od_irec r;

		m_ext_get(&x[i], &r);
		blocks += r.blockcount;
		if (r.startoff + r.blockcount - 1 <= maxoff || reported)
			continue;
		reported = true;
		check_problem(&p->ca->log, EXTENT_BAD,
			      (unsigned long long)mi->ino,
			      i < mi->nde ? "data" : "attr",
			      i < mi->nde ? i : i - mi->nde,
			      (unsigned long long)r.startoff,
			      (unsigned long long)r.startblock,
			      (unsigned long long)r.blockcount,
			      "ends past the largest file offset");
	}
	if (nblocks != blocks)
		check_problem(&p->ca->log, NBLOCKS,
			      (unsigned long long)mi->ino,
			      (unsigned long long)nblocks,
			      (unsigned long long)blocks);
}

/* Unwritten extents belong in regular files' data forks only. */
static void check_unwritten(struct inode_pass *p, const struct m_ino *mi)
{
	const struct m_ext *x = p->ca->ag->ext + mi->ext;
	uint32_t i;

	for (i = 0; i < mi->nde + mi->nae; i++) {
		struct od_irec r;
		bool attr = i >= mi->nde;

		m_ext_get(&x[i], &r);
		if (!r.unwritten || (!attr && od_mode_isreg(mi->mode)))
			continue;
		check_problem(&p->ca->log, EXTENT_BAD,
			      (unsigned long long)mi->ino, attr ? "attr" :
			      "data", attr ? i - mi->nde : i,
			      (unsigned long long)r.startoff,
			      (unsigned long long)r.startblock,
			      (unsigned long long)r.blockcount,
			      attr ? "unwritten in an attr fork" :
			      "unwritten in a file that is not regular");
		return;
	}
}

/* symlink_read_hdrs: a remote block's LSN, which the kernel's and
 * xfs_repair's symlink verifier compare with the log head. */
static void symlink_lsn(void *priv, const struct od_symlink_hdr *h)
{
	struct inode_pass *p = priv;

	check_note_lsn(&p->ca->lsn, h->lsn, "symlink inode %llu block "
		       "(daddr 0x%llx)", (unsigned long long)p->ip->di.ino,
		       (unsigned long long)h->blkno);
}

static void check_inode(struct inode_pass *p, const struct m_ino *mi)
{
	const struct od_inode *di = &p->ip->di;
	bool counted = true;
	char target[OD_SYMLINK_MAXLEN + 1];

	p->bmbt_blocks = 0;
	check_unwritten(p, mi);
	if (di->format == OD_FMT_BTREE && check_bmbt_fork(p, FORK_DATA))
		counted = false;
	if (di->format == OD_FMT_META_BTREE && check_meta_btree_fork(p))
		counted = false;
	if (di->forkoff && di->aformat == OD_FMT_BTREE &&
	    check_bmbt_fork(p, FORK_ATTR))
		counted = false;
	if (counted)
		check_nblocks(p, mi, di->nblocks, p->bmbt_blocks);
	if (od_mode_isdir(di->mode)) {
		check_dir(p->c, p->ca, p->ip, &p->e);
	} else if (od_mode_islnk(di->mode)) {
		err_clear(&p->e);
		if (symlink_read_hdrs(p->c->fs, p->ip, target, symlink_lsn, p,
				      &p->e))
			check_problem(&p->ca->log, SYMLINK_DAMAGED, p->e.msg);
	}
	check_attr_fork(p->c, p->ca, p->ip, mi);
}

/* An inode the inobt says is free: it must decode and have mode 0. */
static void check_free_inode(struct inode_pass *p, uint64_t ino,
			     const uint8_t *raw)
{
	err_clear(&p->e);
	if (inode_decode(p->c->fs, ino, raw, p->ip, &p->e))
		check_problem(&p->ca->log, INODE_FREE_DAMAGED, p->e.msg);
	else if (p->ip->di.mode != 0)
		check_problem(&p->ca->log, INODE_FREE_INUSE,
			      (unsigned long long)ino, p->ip->di.mode);
	else
		check_dinode(p->c, p->ca, &p->ip->di, false);
}

/* ahead_fork_each: announce a range but for the blocks the scan kept. */
static void announce(void *priv, uint64_t off, uint64_t len)
{
	struct check_ctx *c = priv;
	uint64_t bs = (uint64_t)1 << c->g->blocklog, b, from = off;

	for (b = off; b < off + len; b += bs) {
		if (!check_harvest_has(c, b))
			continue;
		if (b > from)
			img_willneed(c->fs->img, from, b - from);
		from = b + bs;
	}
	if (from < off + len)
		img_willneed(c->fs->img, from, off + len - from);
}

/*
 * Keep the blocks of the next few inodes that have some (directories,
 * symlinks, attribute forks) announced, so that they are in the page
 * cache when check_inode reads them one by one.
 */
static void read_ahead(struct inode_pass *p)
{
	const struct m_ag *ag = p->ca->ag;

	while (p->an && p->aring[p->ah].idx < p->cur) {
		p->asum -= p->aring[p->ah].bytes;
		p->ah = (p->ah + 1) % AHEAD_INODES;
		p->an--;
	}
	while (p->ahead < ag->nino && p->an < AHEAD_INODES &&
	       p->asum < AHEAD_BYTES) {
		const struct m_ino *mi = &ag->ino[p->ahead];
		/* a file's data is not read here, only its attr blocks */
		bool data = od_mode_isdir(mi->mode) || od_mode_islnk(mi->mode);
		uint64_t b = 0;

		if (!check_simple_inode(mi) && !(mi->flags & MI_DAMAGED))
			b = ahead_fork_each(p->g, ag->ext + mi->ext +
					    (data ? 0 : mi->nde),
					    (data ? mi->nde : 0) + mi->nae,
					    UINT64_MAX, AHEAD_BYTES,
					    announce, p->c);
		if (b) {
			unsigned k = (p->ah + p->an++) % AHEAD_INODES;

			p->aring[k].idx = p->ahead;
			p->aring[k].bytes = b;
			p->asum += b;
		}
		p->ahead++;
	}
}

/* raw NULL: an inode the scan's look settled (check_quick.c): in use,
 * simple, and all that is left is its link count. */
static void one_inode(struct inode_pass *p, const struct od_inobt_rec *r,
		      unsigned i, const uint8_t *raw)
{
	struct check_ag *ca = p->ca;
	const struct m_ag *ag = ca->ag;
	uint64_t ino = od_agino_ino(p->g, ca->agno, r->startino + i);
	const struct m_ino *mi;

	if (!od_inobt_inuse(r, i)) {
		check_free_inode(p, ino, raw);
		return;
	}
	while (p->cur < ag->nino && ag->ino[p->cur].ino < ino)
		p->cur++;
	if (p->cur == ag->nino || ag->ino[p->cur].ino != ino) {
		ca->damaged_inodes++;	/* the scan reported it */
		return;
	}
	read_ahead(p);
	mi = &ag->ino[p->cur];
	p->idx = p->cur;
	if (mi->flags & MI_DAMAGED) {
		ca->skip_nlink[p->cur] = true;
		ca->damaged_inodes++;
		return;
	}
	if (!raw) {
		ca->nlink[p->cur] = mi->nlink;
		return;
	}
	if (check_simple_inode(mi)) {
		/* the scan verified this inode: the core's rules remain */
		struct od_inode di;

		if (check_dinode_quick(p->c, raw, ino)) {
			/* v3 (the quick look's first rule) */
			ca->nlink[p->cur] = od_dinode_nlink(raw);
			check_nblocks(p, mi, od_dinode_nblocks(raw), 0);
			return;
		}
		od_inode_core(raw, p->g, ino, &di);
		ca->nlink[p->cur] = di.nlink;
		check_nblocks(p, mi, di.nblocks, 0);
		check_dinode(p->c, ca, &di, true);
		return;
	}
	err_clear(&p->e);
	if (inode_decode(p->c->fs, ino, raw, p->ip, &p->e)) {
		check_problem(&ca->log, INODE_DAMAGED, p->e.msg);
		ca->skip_nlink[p->cur] = true;
		return;
	}
	ca->nlink[p->cur] = p->ip->di.nlink;
	check_dinode(p->c, ca, &p->ip->di, true);
	check_inode(p, mi);
}

static void decode_run(struct inode_pass *p, size_t ci, unsigned i,
		       const uint8_t *buf, uint64_t len)
{
	const struct od_geo *g = p->g;
	uint64_t off;

	for (off = 0; off < len && !p->c->fatal; off += g->inodesize, i++) {
		inorun_present(p->ca->ag, &ci, &i);
		one_inode(p, &p->ca->ag->chunk[ci], i, buf + off);
	}
}

/* Every present inode of chunk ci from the scan's record of it. */
static void settled_chunk(struct inode_pass *p, size_t ci,
			  const struct check_qchunk *q)
{
	const struct od_inobt_rec *r = &p->ca->ag->chunk[ci];
	size_t k = 0;
	unsigned i;

	for (i = 0; i < OD_INODES_PER_CHUNK && !p->c->fatal; i++) {
		if (!od_inobt_present(r, i))
			continue;
		if (q->quick & (1ull << i))
			one_inode(p, r, i, NULL);
		else
			one_inode(p, r, i, q->raw + k++ * p->g->inodesize);
	}
}

/* The chunks to read again: any present inode the scan left unsettled. */
static bool *chunks_wanted(struct inode_pass *p, size_t *nwant)
{
	const struct m_ag *ag = p->ca->ag;
	bool *want = malloc(ag->nchunk ? ag->nchunk : 1);
	size_t ci;
	unsigned i;

	if (!want)
		return NULL;
	for (ci = 0; ci < ag->nchunk; ci++) {
		const struct check_qchunk *q =
			p->c->reread ? NULL :
			check_quick_chunk(p->c, p->ca->agno, ci);
		uint64_t present = 0;

		for (i = 0; i < OD_INODES_PER_CHUNK; i++)
			if (od_inobt_present(&ag->chunk[ci], i))
				present |= 1ull << i;
		want[ci] = !q || (q->quick | q->kept) != present;
		*nwant += want[ci];
	}
	return want;
}

static void read_chunks(struct inode_pass *p)
{
	const struct m_ag *ag = p->ca->ag;
	struct inorun run;
	struct inorun_seg seg;
	struct rdr_item it;
	struct rdr *rd = NULL;
	size_t done = 0;	/* chunks before this one are checked */
	char what[64];
	size_t nwant = 0;
	bool *want = chunks_wanted(p, &nwant);

	/* no reader (its buffers) when the scan settled every chunk */
	if (!want || (nwant &&
		      inorun_read_want(&run, p->c->fs, ag, want, &rd))) {
		check_fatal(p->c, -ENOMEM);
		goto out;
	}
	snprintf(what, sizeof(what), "ag %u inode chunk", p->ca->agno);
	while (rd && !p->c->fatal && inorun_read(rd, &it, &seg)) {
		const uint8_t *buf = it.data;

		for (; done < seg.ci; done++)
			if (!want[done])
				settled_chunk(p, done, check_quick_chunk(
					p->c, p->ca->agno, done));
		err_clear(&p->e);
		if (!buf && fs_read_daddr(p->c->fs, seg.start >> 9, it.scratch,
					  (size_t)seg.len, &p->e, what) == 0)
			buf = it.scratch;
		if (buf)
			decode_run(p, seg.ci, seg.i, buf, seg.len);
		else
			p->ca->damaged_inodes++;	/* the scan met it */
	}
	for (; done < ag->nchunk && !p->c->fatal; done++)
		if (!want[done])
			settled_chunk(p, done,
				      check_quick_chunk(p->c, p->ca->agno,
							done));
out:
	rdr_close(rd);
	free(want);
}

void check_ag_inodes(struct check_ctx *c, uint32_t agno)
{
	struct check_ag *ca = &c->cag[agno];
	struct inode_pass p;

	if (c->fatal)
		return;
	memset(&p, 0, sizeof(p));
	p.c = c;
	p.ca = ca;
	p.g = c->g;
	p.ip = malloc(sizeof(*p.ip));
	if (!p.ip) {
		check_fatal(c, -ENOMEM);
		goto out;
	}
	read_chunks(&p);
out:
	free(p.ip);
}
