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
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/model/ahead.h"
#include "core/model/inorun.h"
#include "core/fs/fork.h"
#include "core/fs/symlink.h"
#include "ondisk/be.h"
#include "ondisk/da.h"
#include "ondisk/selfhdr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ATTR_READ	16u		/* attr blocks read at once, at most */
#define AHEAD_INODES	64u		/* inodes with blocks announced ahead */
#define AHEAD_BYTES	(32u << 20)	/* and their bytes, at most */

struct ipass {
	struct check_ctx *c;
	struct check_ag *ca;
	const struct od_geo *g;
	struct err e;
	uint8_t *abuf;		/* ATTR_READ blocks */
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
	struct ipass *p = priv;
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
static void merge_bmbt(struct ipass *p)
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
static int check_bmbt_fork(struct ipass *p, int whichfork)
{
	const struct od_inode *di = &p->ip->di;
	struct check_bt w;
	uint32_t len;
	const uint8_t *fork = inode_fork(p->ip, whichfork, &len);
	uint64_t nrecs = inode_fork_nextents(p->ip, whichfork);
	char what[64];
	int ret;

	if (nrecs <= len / OD_BMBT_REC_LEN)
		check_problem(&p->ca->log, "inode %llu: %s fork is in btree "
			      "format but its %llu extents fit in the inode "
			      "(extent count too low for btree format)",
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
		check_problem(&p->ca->log, "%s", p->e.msg);
		p->ca->nbmbt = p->bmbt_first;
		return ret;
	}
	if (w.nrecs != nrecs)
		check_problem(&p->ca->log, "inode %llu: %s fork bmbt holds "
			      "%llu records, the inode says %llu",
			      (unsigned long long)di->ino, fork_name(whichfork),
			      (unsigned long long)w.nrecs,
			      (unsigned long long)nrecs);
	merge_bmbt(p);
	return 0;
}

/* One attribute fork block (v5): a dabtree block or a remote value. */
static void check_attr_block(struct ipass *p, const uint8_t *buf,
			     uint64_t fsb, uint64_t off)
{
	const struct od_geo *g = p->g;
	uint64_t ino = p->ip->di.ino, daddr = od_fsb_daddr(g, fsb);
	const char *field;
	enum od_err oe;

	if (od_get_be32(buf) == OD_ATTR3_RMT_MAGIC) {
		struct od_attr_rmt_hdr h;

		oe = od_attr_rmt_hdr(buf, g->blocksize, g, &h, &field);
		if (oe)
			check_problem(&p->ca->log, "inode %llu attr fork block "
				      "%llu (remote value): bad %s",
				      (unsigned long long)ino,
				      (unsigned long long)off,
				      oe == OD_ECRC ? "crc" : field);
		else if (h.owner != ino || h.blkno != daddr)
			check_problem(&p->ca->log, "inode %llu attr fork block "
				      "%llu (remote value): owner %llu, blkno "
				      "0x%llx, expected %llu, 0x%llx",
				      (unsigned long long)ino,
				      (unsigned long long)off,
				      (unsigned long long)h.owner,
				      (unsigned long long)h.blkno,
				      (unsigned long long)ino,
				      (unsigned long long)daddr);
	} else {
		struct od_da_blkinfo bi;

		oe = od_da_blkinfo(buf, g->blocksize, g, &bi, &field);
		if (!oe && bi.magic != OD_ATTR3_LEAF_MAGIC &&
		    bi.magic != OD_DA3_NODE_MAGIC)
			oe = OD_EMAGIC;
		if (oe)
			check_problem(&p->ca->log, "inode %llu attr fork block "
				      "%llu: %s", (unsigned long long)ino,
				      (unsigned long long)off,
				      oe == OD_EMAGIC ? "bad magic number" :
				      oe == OD_ECRC ? "bad crc" : field);
		else if (bi.owner != ino || bi.blkno != daddr)
			check_problem(&p->ca->log, "inode %llu attr fork block "
				      "%llu: owner %llu, blkno 0x%llx, "
				      "expected %llu, 0x%llx",
				      (unsigned long long)ino,
				      (unsigned long long)off,
				      (unsigned long long)bi.owner,
				      (unsigned long long)bi.blkno,
				      (unsigned long long)ino,
				      (unsigned long long)daddr);
	}
}

/*
 * Attribute fork blocks.  v5: every block is self-describing.  v4: only
 * the dabtree root (offset 0) is recognisable (remote values have no
 * header).
 */
static void check_attr(struct ipass *p, const struct m_ino *mi)
{
	const struct od_geo *g = p->g;
	const struct m_ext *x = p->ca->ag->ext + mi->ext + mi->nde;
	uint32_t i, b, n;
	char what[64];

	snprintf(what, sizeof(what), "inode %llu attr fork",
		 (unsigned long long)mi->ino);
	if (!p->abuf) {
		p->abuf = malloc((size_t)ATTR_READ << g->blocklog);
		if (!p->abuf) {
			check_fatal(p->c, -ENOMEM);
			return;
		}
	}
	for (i = 0; i < mi->nae; i++) {
		struct od_irec r;

		m_ext_get(&x[i], &r);
		for (b = 0; b < r.blockcount; b += n) {
			uint32_t k;

			n = r.blockcount - b < ATTR_READ ? r.blockcount - b :
			    ATTR_READ;
			if (!g->v5 && r.startoff + b != 0)
				break;
			err_clear(&p->e);
			if (fs_read_fsb(p->c->fs, r.startblock + b, n, p->abuf,
					&p->e, what)) {
				check_problem(&p->ca->log, "%s", p->e.msg);
				return;
			}
			for (k = 0; k < n; k++) {
				const uint8_t *blk = p->abuf +
					((size_t)k << g->blocklog);
				struct od_da_blkinfo bi;
				const char *field;

				if (g->v5) {
					check_attr_block(p, blk,
							 r.startblock + b + k,
							 r.startoff + b + k);
					continue;
				}
				if (od_da_blkinfo(blk, g->blocksize, g, &bi,
						  &field) ||
				    (bi.magic != OD_ATTR_LEAF_MAGIC &&
				     bi.magic != OD_DA_NODE_MAGIC))
					check_problem(&p->ca->log, "inode %llu "
						      "attr fork block 0: bad "
						      "magic number",
						      (unsigned long long)
						      mi->ino);
				break;
			}
		}
	}
}

/*
 * Inodes needing no more than nblocks and nlink: no directory, symlink,
 * bmbt or attribute blocks to look at.
 */
static bool simple_inode(const struct m_ino *mi)
{
	return !od_mode_isdir(mi->mode) && !od_mode_islnk(mi->mode) &&
	       m_dfmt(mi) != OD_FMT_BTREE && m_afmt(mi) != OD_FMT_BTREE &&
	       mi->nae == 0;
}

/* di_nblocks: every block the forks map, plus the bmbt blocks. */
static void check_nblocks(struct ipass *p, const struct m_ino *mi,
			  uint64_t nblocks, uint64_t bmbt_blocks)
{
	const struct m_ext *x = p->ca->ag->ext + mi->ext;
	uint64_t blocks = bmbt_blocks;
	uint32_t i;

	for (i = 0; i < mi->nde + mi->nae; i++) {
		struct od_irec r;

		m_ext_get(&x[i], &r);
		blocks += r.blockcount;
	}
	if (nblocks != blocks)
		check_problem(&p->ca->log, "inode %llu: nblocks %llu, but its "
			      "forks map %llu blocks (extents and bmbt blocks)",
			      (unsigned long long)mi->ino,
			      (unsigned long long)nblocks,
			      (unsigned long long)blocks);
}

static void check_inode(struct ipass *p, const struct m_ino *mi)
{
	const struct od_inode *di = &p->ip->di;
	bool counted = true;
	char target[OD_SYMLINK_MAXLEN + 1];

	p->bmbt_blocks = 0;
	if (di->format == OD_FMT_BTREE && check_bmbt_fork(p, FORK_DATA))
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
		if (symlink_read(p->c->fs, p->ip, target, &p->e))
			check_problem(&p->ca->log, "%s", p->e.msg);
	}
	if (mi->nae && (m_afmt(mi) == OD_FMT_EXTENTS ||
			m_afmt(mi) == OD_FMT_BTREE))
		check_attr(p, mi);
}

/* An inode the inobt says is free: it must decode and have mode 0. */
static void check_free_inode(struct ipass *p, uint64_t ino,
			     const uint8_t *raw)
{
	err_clear(&p->e);
	if (inode_decode(p->c->fs, ino, raw, p->ip, &p->e))
		check_problem(&p->ca->log, "free %s", p->e.msg);
	else if (p->ip->di.mode != 0)
		check_problem(&p->ca->log, "inode %llu is in use on disk (mode "
			      "0%o) but free in the inobt",
			      (unsigned long long)ino, p->ip->di.mode);
}

/*
 * Keep the blocks of the next few inodes that have some (directories,
 * symlinks, attribute forks) announced, so that they are in the page
 * cache when check_inode reads them one by one.
 */
static void read_ahead(struct ipass *p)
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

		if (!simple_inode(mi) && !(mi->flags & MI_DAMAGED))
			b = ahead_fork(p->c->fs, ag->ext + mi->ext +
				       (data ? 0 : mi->nde),
				       (data ? mi->nde : 0) + mi->nae,
				       UINT64_MAX, AHEAD_BYTES);
		if (b) {
			unsigned k = (p->ah + p->an++) % AHEAD_INODES;

			p->aring[k].idx = p->ahead;
			p->aring[k].bytes = b;
			p->asum += b;
		}
		p->ahead++;
	}
}

static void one_inode(struct ipass *p, const struct od_inobt_rec *r,
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
	if (simple_inode(mi)) {
		/* the scan verified this inode: two fields are enough */
		ca->nlink[p->cur] = raw[4] == 1 ? od_get_be16(raw + 6) :
				    od_get_be32(raw + 16);
		check_nblocks(p, mi, od_get_be64(raw + 64), 0);
		return;
	}
	err_clear(&p->e);
	if (inode_decode(p->c->fs, ino, raw, p->ip, &p->e)) {
		check_problem(&ca->log, "%s", p->e.msg);
		ca->skip_nlink[p->cur] = true;
		return;
	}
	ca->nlink[p->cur] = p->ip->di.nlink;
	check_inode(p, mi);
}

static void decode_run(struct ipass *p, size_t ci, unsigned i,
		       const uint8_t *buf, uint64_t len)
{
	const struct od_geo *g = p->g;
	uint64_t off;

	for (off = 0; off < len && !p->c->fatal; off += g->inodesize, i++) {
		inorun_present(p->ca->ag, &ci, &i);
		one_inode(p, &p->ca->ag->chunk[ci], i, buf + off);
	}
}

static void read_chunks(struct ipass *p)
{
	const struct m_ag *ag = p->ca->ag;
	struct inorun run;
	struct inorun_seg seg;
	struct rdr_item it;
	struct rdr *rd;
	char what[64];

	if (inorun_read_open(&run, p->c->fs, ag, &rd)) {
		check_fatal(p->c, -ENOMEM);
		return;
	}
	snprintf(what, sizeof(what), "ag %u inode chunk", p->ca->agno);
	while (!p->c->fatal && inorun_read(rd, &it, &seg)) {
		const uint8_t *buf = it.data;

		err_clear(&p->e);
		if (!buf && fs_read_daddr(p->c->fs, seg.start >> 9, it.scratch,
					  (size_t)seg.len, &p->e, what) == 0)
			buf = it.scratch;
		if (buf)
			decode_run(p, seg.ci, seg.i, buf, seg.len);
		else
			p->ca->damaged_inodes++;	/* the scan met it */
	}
	rdr_close(rd);
}

void check_ag_inodes(struct check_ctx *c, uint32_t agno)
{
	struct check_ag *ca = &c->cag[agno];
	struct ipass p;

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
	free(p.abuf);
	free(p.ip);
}
