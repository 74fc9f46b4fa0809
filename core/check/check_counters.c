/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counters against what was counted, as xfs_repair compares them
 * (repair/scan.c validate_agf, validate_agi, scan_ags):
 *   AGF freeblks, longest, btreeblks (lazy-count only), rmap_blocks,
 *   refcount_blocks; AGI count, freecount, iblocks/fblocks (inobtcount),
 *   unlinked buckets; superblock icount, ifree and
 *   fdblocks = sum over AGs of free blocks + AGFL blocks + every
 *   non-root bnobt, cntbt and rmapbt block (all of which a full
 *   filesystem gives back);
 * and link counts: di_nlink against the directory entries naming the
 * inode ("." and ".." included, so a directory counts its own "." and
 * each subdirectory's "..").
 */
#include "core/check/check_int.h"
#include "ondisk/inode.h"

#include <stdio.h>

/* Non-root blocks of the trees whose blocks count as free space. */
static uint64_t counted_btreeblks(const struct od_geo *g,
				  const struct check_ag *ca)
{
	uint64_t n = ca->tree_blocks[CT_BNO] - 1 + ca->tree_blocks[CT_CNT] - 1;

	if (g->rmapbt)
		n += ca->tree_blocks[CT_RMAP] - 1;
	return n;
}

static bool space_trees_ok(const struct od_geo *g, const struct check_ag *ca)
{
	return ca->tree_ok[CT_BNO] && ca->tree_ok[CT_CNT] &&
	       (!g->rmapbt || ca->tree_ok[CT_RMAP]);
}

static void check_agf(struct check_ctx *c, struct check_ag *ca)
{
	const struct od_geo *g = c->g;
	const struct od_agf *agf = &ca->ag->agf;
	uint64_t free = 0, longest = 0, bt;
	size_t i;

	if (ca->tree_ok[CT_BNO]) {
		for (i = 0; i < ca->ag->nfree; i++) {
			free += ca->ag->freesp[i].len;
			if (ca->ag->freesp[i].len > longest)
				longest = ca->ag->freesp[i].len;
		}
		if (agf->freeblks != free)
			check_problem(&ca->log, AGF_FREEBLKS, ca->agno,
				      agf->freeblks, (unsigned long long)free);
		if (agf->longest != longest)
			check_problem(&ca->log, AGF_LONGEST,
				      ca->agno, agf->longest,
				      (unsigned long long)longest);
	}
	if (od_sb_has_lazysbcount(&c->fs->sb) && space_trees_ok(g, ca)) {
		bt = counted_btreeblks(g, ca);
		if (agf->btreeblks != bt)
			check_problem(&ca->log, AGF_BTREEBLKS, ca->agno,
				      agf->btreeblks,
				      g->rmapbt ? " and rmap" : "",
				      (unsigned long long)bt);
	}
	if (g->rmapbt && ca->tree_ok[CT_RMAP] &&
	    agf->rmap_blocks != ca->tree_blocks[CT_RMAP])
		check_problem(&ca->log, AGF_RMAPBLOCKS, ca->agno,
			      agf->rmap_blocks, ca->tree_blocks[CT_RMAP]);
	if (g->reflink && ca->tree_ok[CT_REFC] &&
	    agf->refcount_blocks != ca->tree_blocks[CT_REFC])
		check_problem(&ca->log, AGF_REFCBLOCKS, ca->agno,
			      agf->refcount_blocks, ca->tree_blocks[CT_REFC]);
}

static bool agino_ok(const struct od_geo *g, const struct check_ag *ca,
		     uint32_t agino)
{
	return agino == OD_NULLAGINO ||
	       (agino < ((uint64_t)ca->blocks << g->inopblog) &&
		od_agino_agbno(g, agino) > 0);
}

static void check_agi(struct check_ctx *c, struct check_ag *ca)
{
	const struct od_geo *g = c->g;
	const struct od_agi *agi = &ca->ag->agi;
	uint64_t count = 0, freecount = 0, ffree = 0;
	size_t i;

	if (ca->tree_ok[CT_INO]) {
		for (i = 0; i < ca->ag->nchunk; i++) {
			count += ca->ag->chunk[i].count;
			freecount += ca->ag->chunk[i].freecount;
		}
		if (agi->count != count)
			check_problem(&ca->log, AGI_COUNT, ca->agno,
				      agi->count, (unsigned long long)count);
		if (agi->freecount != freecount)
			check_problem(&ca->log, AGI_FREECOUNT, ca->agno,
				      agi->freecount,
				      (unsigned long long)freecount);
	}
	if (g->finobt && ca->tree_ok[CT_FINO]) {
		for (i = 0; i < ca->nfino; i++)
			ffree += ca->fino[i].freecount;
		if (agi->freecount != ffree)
			check_problem(&ca->log, AGI_FINO_FREECOUNT, ca->agno,
				      agi->freecount,
				      (unsigned long long)ffree);
	}
	if (g->inobtcnt) {
		if (ca->tree_ok[CT_INO] &&
		    agi->iblocks != ca->tree_blocks[CT_INO])
			check_problem(&ca->log, AGI_IBLOCKS, ca->agno,
				      agi->iblocks, ca->tree_blocks[CT_INO]);
		if (ca->tree_ok[CT_FINO] &&
		    agi->fblocks != ca->tree_blocks[CT_FINO])
			check_problem(&ca->log, AGI_FBLOCKS, ca->agno,
				      agi->fblocks, ca->tree_blocks[CT_FINO]);
	}
	if (!agino_ok(g, ca, agi->newino))
		check_problem(&ca->log, AGI_NEWINO, ca->agno, agi->newino);
	if (!agino_ok(g, ca, agi->dirino))
		check_problem(&ca->log, AGI_DIRINO, ca->agno, agi->dirino);
	for (i = 0; i < OD_AGI_UNLINKED; i++)
		if (agi->unlinked[i] != OD_NULLAGINO)
			check_problem(&ca->log, AGI_UNLINKED, ca->agno,
				      i, (unsigned long long)od_agino_ino(g,
					ca->agno, agi->unlinked[i]));
}

void check_ag_counters(struct check_ctx *c, uint32_t agno)
{
	struct check_ag *ca = &c->cag[agno];

	if (ca->ag->have_agf)
		check_agf(c, ca);
	if (ca->ag->have_agi)
		check_agi(c, ca);
}

void check_sb_counters(struct check_ctx *c)
{
	const struct od_geo *g = c->g;
	const struct od_sb *sb = &c->fs->sb;
	uint64_t icount = 0, ifree = 0, fdblocks = 0;
	bool inodes_ok = true, space_ok = true;
	uint32_t a;
	size_t i;

	for (a = 0; a < c->m->agcount; a++) {
		const struct check_ag *ca = &c->cag[a];

		if (ca->tree_ok[CT_INO]) {
			for (i = 0; i < ca->ag->nchunk; i++) {
				icount += ca->ag->chunk[i].count;
				ifree += ca->ag->chunk[i].freecount;
			}
		} else {
			inodes_ok = false;
		}
		if (space_trees_ok(g, ca) && ca->ag->have_agf) {
			for (i = 0; i < ca->ag->nfree; i++)
				fdblocks += ca->ag->freesp[i].len;
			fdblocks += ca->ag->nagfl + counted_btreeblks(g, ca);
		} else {
			space_ok = false;
		}
	}
	if (inodes_ok && sb->icount != icount)
		check_problem(&c->glog, SB_ICOUNT, (unsigned long long)sb->icount,
			      (unsigned long long)icount);
	if (inodes_ok && sb->ifree != ifree)
		check_problem(&c->glog, SB_IFREE, (unsigned long long)sb->ifree,
			      (unsigned long long)ifree);
	if (space_ok && sb->fdblocks != fdblocks)
		check_problem(&c->glog, SB_FDBLOCKS,
			      (unsigned long long)sb->fdblocks,
			      (unsigned long long)fdblocks,
			      g->rmapbt ? " and rmap" : "");
}

/* Is ino one of the inodes no directory names? */
static bool is_meta_inode(const struct od_sb *sb, uint64_t ino)
{
	return ino == sb->rbmino || ino == sb->rsumino ||
	       ino == sb->uquotino || ino == sb->gquotino ||
	       ino == sb->pquotino;
}

void check_ag_links(struct check_ctx *c, uint32_t agno)
{
	struct check_ag *ca = &c->cag[agno];
	const struct od_sb *sb = &c->fs->sb;
	size_t i;

	if (!ca->nlink)
		return;
	for (i = 0; i < ca->ag->nino; i++) {
		const struct m_ino *mi = &ca->ag->ino[i];
		uint32_t refs = __atomic_load_n(&ca->refs[i], __ATOMIC_RELAXED);

		if (ca->skip_nlink[i] || is_meta_inode(sb, mi->ino))
			continue;
		if (ca->nlink[i] == refs)
			continue;
		if (refs == 0)
			check_problem(&ca->log, NLINK_ORPHAN,
				      (unsigned long long)mi->ino,
				      ca->nlink[i]);
		else
			check_problem(&ca->log, NLINK,
				      (unsigned long long)mi->ino,
				      ca->nlink[i], refs,
				      refs == 1 ? "y" : "ies",
				      od_mode_isdir(mi->mode) ?
				      " (with \".\" and its subdirectories' "
				      "\"..\")" : "");
	}
}
