/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trees phase, per AG: every AG btree walked strictly, its blocks
 * noted for the ownership map, the records the cross-checks need kept;
 * then bnobt against cntbt, finobt against inobt, the inode chunks'
 * own sanity, the AGFL, and the CoW/refcount records.
 */
#include "core/check/check_bt.h"
#include "core/base/bigmem.h"
#include "core/base/sort.h"
#include "ondisk/refcount.h"
#include "ondisk/rmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tree_ctx {
	struct check_ctx *c;
	struct check_ag *ca;
	enum check_kind kind;
	struct err *e;
	uint32_t nrec;
	/* refcountbt: the previous record, for merge and overlap checks */
	struct check_refc prev;
	bool have_prev;
};

static int tree_block(void *priv, uint64_t fsbno, unsigned level,
		      struct err *e)
{
	struct tree_ctx *t = priv;
	struct check_ag *ca = t->ca;
	uint32_t agbno = od_fsb_agbno(t->c->g, fsbno);
	uint32_t src = check_span_src(t->kind, 0, ca->agno);

	(void)level;
	if (check_spans_add(&ca->meta, agbno, 1, level, src))
		return err_set(e, -ENOMEM, "out of memory");
	return 0;
}

/* bnobt and inobt records are in the model: only count them here */
static int count_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct tree_ctx *t = priv;

	(void)rec;
	(void)e;
	t->nrec++;
	return 0;
}

static int cnt_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct tree_ctx *t = priv;
	struct check_ag *ca = t->ca;
	struct od_alloc_rec r;

	od_alloc_rec_decode(rec, &r);
	t->nrec++;
	if (r.blockcount == 0 ||
	    (uint64_t)r.startblock + r.blockcount > ca->blocks) {
		check_problem(&ca->log, CNT_RANGE, ca->agno, t->nrec - 1,
			      r.startblock, r.blockcount);
		return 0;
	}
	if (bigmem_grow((void **)&ca->cnt, &ca->cap_cnt, ca->ncnt,
			sizeof(*ca->cnt)))
		return err_set(e, -ENOMEM, "out of memory");
	ca->cnt[ca->ncnt].agbno = r.startblock;
	ca->cnt[ca->ncnt].len = r.blockcount;
	ca->ncnt++;
	return 0;
}

static int fino_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct tree_ctx *t = priv;
	struct check_ag *ca = t->ca;
	struct od_inobt_rec r;
	const char *field;
	enum od_err oe;

	t->nrec++;
	oe = od_inobt_rec_decode(rec, t->c->g, ca->agno, &r, &field);
	if (oe) {
		check_problem(&ca->log, FINO_REC,
			      ca->agno, t->nrec - 1, field ? field : "record");
		return 0;
	}
	if (bigmem_grow((void **)&ca->fino, &ca->cap_fino, ca->nfino,
			sizeof(*ca->fino)))
		return err_set(e, -ENOMEM, "out of memory");
	ca->fino[ca->nfino++] = r;
	return 0;
}

static int rmap_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct tree_ctx *t = priv;
	struct check_ag *ca = t->ca;
	struct od_rmap_rec d;
	struct check_rmap r;
	char own[96];

	t->nrec++;
	od_rmap_rec_decode(rec, &d);
	r.start = d.startblock;
	r.len = d.blockcount;
	r.owner = d.owner;
	r.offset = d.offset;
	check_rmap_owner_str(&r, own, sizeof(own));
	if (r.len == 0 || (uint64_t)r.start + r.len > ca->blocks) {
		check_problem(&ca->log, RMAP_RANGE, ca->agno, t->nrec - 1,
			      r.start, r.len, own);
		return 0;
	}
	if (!od_rmap_rec_plausible(t->c->g, &d))
		check_problem(&ca->log, RMAP_OWNER,
			      ca->agno, t->nrec - 1, r.start, r.len, own,
			      (unsigned long long)r.offset);
	if (bigmem_grow((void **)&ca->rmap, &ca->cap_rmap, ca->nrmap,
			sizeof(*ca->rmap)))
		return err_set(e, -ENOMEM, "out of memory");
	ca->rmap[ca->nrmap++] = r;
	return 0;
}

static int refc_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct tree_ctx *t = priv;
	struct check_ag *ca = t->ca;
	struct od_refc_rec d;
	struct check_refc r;

	t->nrec++;
	od_refc_rec_decode(rec, &d);
	r.start = d.startblock;
	r.len = d.blockcount;
	r.refcount = d.refcount;
	if (r.len == 0 || (uint64_t)r.start + r.len > ca->blocks) {
		check_problem(&ca->log, REFC_RANGE, ca->agno, t->nrec - 1,
			      r.start, r.len);
		return 0;
	}
	if (d.cow) {
		/*
		 * CoW staging extents live only while a file is being
		 * written: the kernel frees them at unmount and recovers
		 * leftovers at mount; xfs_repair reports them.
		 */
		check_problem(&ca->log, REFC_COW, ca->agno, r.start, r.start + r.len - 1,
			      t->nrec - 1, r.refcount);
		return 0;
	}
	if (r.refcount < 2) {
		check_problem(&ca->log, REFC_COUNT, ca->agno, t->nrec - 1,
			      r.start, r.start + r.len - 1, r.refcount);
		return 0;
	}
	if (t->have_prev && t->prev.start + t->prev.len > r.start) {
		check_problem(&ca->log, REFC_OVERLAP, ca->agno, r.start);
		return 0;
	}
	if (t->have_prev && t->prev.start + t->prev.len == r.start &&
	    t->prev.refcount == r.refcount)
		check_problem(&ca->log, REFC_MERGE, ca->agno, t->nrec - 1,
			      r.start, r.start + r.len - 1, r.refcount);
	t->prev = r;
	t->have_prev = true;
	if (bigmem_grow((void **)&ca->refc, &ca->cap_refc, ca->nrefc,
			sizeof(*ca->refc)))
		return err_set(e, -ENOMEM, "out of memory");
	ca->refc[ca->nrefc++] = r;
	return 0;
}

static void walk_tree(struct check_ctx *c, struct check_ag *ca, int tree,
		      enum od_bt_type type, enum check_kind kind,
		      uint32_t root, uint32_t levels,
		      int (*rec)(void *, const uint8_t *, struct err *))
{
	struct tree_ctx t = { c, ca, kind, NULL, 0, { 0, 0, 0 }, false };
	struct check_bt w;
	struct err e = { 0 };
	char what[64];
	int ret;

	memset(&w, 0, sizeof(w));
	snprintf(what, sizeof(what), "ag %u %s", ca->agno,
		 od_bt_ops(type)->name);
	w.fs = c->fs;
	w.type = type;
	w.agno = ca->agno;
	w.owner = ca->agno;
	w.what = what;
	w.log = &ca->log;
	w.lsn = &ca->lsn;
	w.rec = rec;
	w.block = tree_block;
	w.priv = &t;
	t.e = &e;
	ret = check_bt_ag(&w, root, levels, &e);
	ca->tree_blocks[tree] = (uint32_t)w.nblocks;
	if (ret == -ENOMEM) {
		check_fatal(c, ret);
		return;
	}
	if (ret) {
		/* the scan met it first when it names the same tree */
		if (!ca->ag->err || strncmp(ca->ag->errmsg, what,
					    strlen(what)) != 0)
			check_problem(&ca->log, BT_DAMAGED, e.msg);
		return;
	}
	/* the scan stopped early in a tree whose blocks all read well */
	if ((type == OD_BT_BNO && t.nrec != ca->ag->nfree) ||
	    (type == OD_BT_INO && t.nrec != ca->ag->nchunk))
		return;
	ca->tree_ok[tree] = true;
}

/* AG headers, the log, the AGFL: spans and sanity. */
static void note_fixed(struct check_ctx *c, struct check_ag *ca)
{
	const struct od_geo *g = c->g;
	const struct od_agf *agf = &ca->ag->agf;
	uint64_t log0 = c->fs->sb.logstart;
	uint32_t hdr_end = ((3 * g->sectsize) >> g->blocklog) + 1, i;
	uint32_t flsize = od_agfl_size(g), active;
	int ret = 0;

	ret |= check_spans_add(&ca->meta, 0, hdr_end, 0,
			       check_span_src(CK_FS, 0, ca->agno));
	if (log0 && od_fsb_agno(g, log0) == ca->agno) {
		uint32_t b = od_fsb_agbno(g, log0);

		if ((uint64_t)b + c->fs->sb.logblocks > ca->blocks)
			check_problem(&ca->log, AG_LOG_PAST_END, ca->agno,
				      b, c->fs->sb.logblocks);
		else
			ret |= check_spans_add(&ca->meta, b,
					       c->fs->sb.logblocks, 0,
					       check_span_src(CK_LOG, 0,
							      ca->agno));
	}
	if (!ca->ag->have_agf) {
		if (ret)
			check_fatal(c, -ENOMEM);
		return;
	}
	/* xfs_agfl_needs_reset: the count must match the active range */
	if (agf->flcount && agf->fllast >= agf->flfirst)
		active = agf->fllast - agf->flfirst + 1;
	else if (agf->flcount)
		active = flsize - agf->flfirst + agf->fllast + 1;
	else
		active = 0;
	if (active != agf->flcount)
		check_problem(&ca->log, AGF_FLCOUNT, ca->agno,
			      agf->flcount, agf->flfirst, agf->fllast, active);
	for (i = 0; i < ca->ag->nagfl; i++)
		ret |= check_spans_add(&ca->meta, ca->ag->agfl[i], 1, i,
				       check_span_src(CK_AGFL, 0, ca->agno));
	if (ret)
		check_fatal(c, -ENOMEM);
}

/* Inode chunks: alignment, overlap, sparse holes marked free. */
static void check_chunks(struct check_ctx *c, struct check_ag *ca)
{
	const struct od_geo *g = c->g;
	const struct m_ag *ag = ca->ag;
	bool align = (c->fs->sb.versionnum & OD_SB_VERSION_ALIGN) &&
		     c->fs->sb.inoalignmt;
	size_t i;

	ca->chunks_ok = true;
	for (i = 0; i < ag->nchunk; i++) {
		const struct od_inobt_rec *r = &ag->chunk[i];
		uint32_t off = od_agino_offset(g, r->startino);
		uint32_t agbno = od_agino_agbno(g, r->startino);
		uint64_t holes = 0;
		unsigned j;

		if (r->startino == 0 ||
		    (g->inopblock <= OD_INODES_PER_CHUNK && off != 0) ||
		    (g->inopblock > OD_INODES_PER_CHUNK &&
		     off % OD_INODES_PER_CHUNK != 0) ||
		    (align && agbno % c->fs->sb.inoalignmt != 0)) {
			check_problem(&ca->log, CHUNK_ALIGN, ca->agno,
				      (unsigned long long)od_agino_ino(g,
					ca->agno, r->startino));
			ca->chunks_ok = false;
		}
		if (i && r->startino < ag->chunk[i - 1].startino +
		    OD_INODES_PER_CHUNK) {
			check_problem(&ca->log, CHUNK_OVERLAP, ca->agno,
				      (unsigned long long)od_agino_ino(g,
					ca->agno, ag->chunk[i - 1].startino),
				      (unsigned long long)od_agino_ino(g,
					ca->agno, r->startino));
			ca->chunks_ok = false;
		}
		for (j = 0; j < OD_INODES_PER_CHUNK; j++)
			if (!od_inobt_present(r, j))
				holes |= 1ull << j;
		if ((r->free & holes) != holes)
			check_problem(&ca->log, CHUNK_HOLES, ca->agno,
				      (unsigned long long)od_agino_ino(g,
					ca->agno, r->startino), r->holemask,
				      (unsigned long long)r->free);
	}
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* The cntbt must hold exactly the bnobt's extents. */
static void compare_bno_cnt(struct check_ctx *c, struct check_ag *ca)
{
	const struct m_ag *ag = ca->ag;
	uint64_t *k;
	size_t i, j;

	k = malloc((ca->ncnt ? ca->ncnt : 1) * sizeof(*k));
	if (!k) {
		check_fatal(c, -ENOMEM);
		return;
	}
	for (i = 0; i < ca->ncnt; i++)
		k[i] = (uint64_t)ca->cnt[i].agbno << 32 | ca->cnt[i].len;
	if (sort_u64(k, ca->ncnt)) {
		free(k);
		check_fatal(c, -ENOMEM);
		return;
	}
	for (i = j = 0; i < ag->nfree || j < ca->ncnt;) {
		uint64_t b = i < ag->nfree ?
			     (uint64_t)ag->freesp[i].agbno << 32 |
			     ag->freesp[i].len : UINT64_MAX;
		uint64_t x = j < ca->ncnt ? k[j] : UINT64_MAX;
		int d = cmp_u64(b, x);

		if (d == 0) {
			i++;
			j++;
		} else if (d < 0) {
			check_problem(&ca->log, BNO_CNT_MISSING,
				      ca->agno, ag->freesp[i].agbno,
				      ag->freesp[i].len);
			i++;
		} else {
			check_problem(&ca->log, CNT_BNO_MISSING,
				      ca->agno, (uint32_t)(x >> 32),
				      (uint32_t)x);
			j++;
		}
	}
	free(k);
}

/* The finobt must hold exactly the inobt records with free inodes. */
static void compare_ino_fino(struct check_ctx *c, struct check_ag *ca)
{
	const struct m_ag *ag = ca->ag;
	size_t i = 0, j = 0;

	while (i < ag->nchunk || j < ca->nfino) {
		const struct od_inobt_rec *a = i < ag->nchunk ? &ag->chunk[i] :
					       NULL;
		const struct od_inobt_rec *b = j < ca->nfino ? &ca->fino[j] :
					       NULL;
		uint32_t start = a && (!b || a->startino <= b->startino) ?
				 a->startino : b->startino;
		unsigned long long ino = (unsigned long long)od_agino_ino(c->g,
							ca->agno, start);

		if (a && b && a->startino == b->startino) {
			if (a->freecount == 0)
				check_problem(&ca->log, FINO_NOFREE,
					      ca->agno, ino);
			else if (a->holemask != b->holemask ||
				 a->count != b->count ||
				 a->freecount != b->freecount ||
				 a->free != b->free)
				check_problem(&ca->log, FINO_DIFFERS, ca->agno, ino,
					      (unsigned long long)b->free,
					      b->freecount,
					      (unsigned long long)a->free,
					      a->freecount);
			i++;
			j++;
		} else if (a && a->startino == start) {
			if (a->freecount)
				check_problem(&ca->log, FINO_MISSING,
					      ca->agno, ino, a->freecount,
					      a->freecount == 1 ? "" : "s");
			i++;
		} else {
			check_problem(&ca->log, FINO_EXTRA, ca->agno, ino);
			j++;
		}
	}
}

/*
 * The AGFL's LSN: the kernel's AGFL verifier compares it with the log
 * head whenever it reads the list, xfs_repair when the list is not
 * empty.  The scan kept only the slots, so its sector is read again.
 */
static void agfl_lsn(struct check_ctx *c, struct check_ag *ca)
{
	const struct od_geo *g = c->g;
	uint64_t daddr = (od_agb_lin(g, ca->agno, 0) << g->bbshift) +
			 3 * (g->sectsize >> OD_BBSHIFT);
	struct err e = { 0 };
	uint8_t *buf = malloc(g->sectsize);
	char what[32];
	uint64_t lsn;

	if (!buf) {
		check_fatal(c, -ENOMEM);
		return;
	}
	snprintf(what, sizeof(what), "ag %u AGFL", ca->agno);
	/* a sector that does not read or decode was named by the scan */
	if (!fs_read_daddr(c->fs, daddr, buf, g->sectsize, &e, what) &&
	    od_agfl_lsn(buf, g->sectsize, g, &lsn) == OD_OK)
		check_note_lsn(&ca->lsn, lsn, "%s", what);
	free(buf);
}

void check_ag_trees(struct check_ctx *c, uint32_t agno)
{
	struct check_ag *ca = &c->cag[agno];
	const struct od_geo *g = c->g;
	const struct od_agf *agf = &ca->ag->agf;
	const struct od_agi *agi = &ca->ag->agi;

	note_fixed(c, ca);
	/* the headers' LSNs too: xfs_repair rejects any metadata LSN ahead
	 * of the log head (check_lsn_verdict) */
	if (g->v5 && ca->ag->have_agf)
		check_note_lsn(&ca->lsn, agf->lsn, "ag %u AGF", agno);
	if (g->v5 && ca->ag->have_agi)
		check_note_lsn(&ca->lsn, agi->lsn, "ag %u AGI", agno);
	if (g->v5 && ca->ag->have_agf)
		agfl_lsn(c, ca);
	if (ca->ag->have_agf) {
		walk_tree(c, ca, CT_BNO, OD_BT_BNO, CK_BNOBT,
			  agf->roots[OD_BTNUM_BNO], agf->levels[OD_BTNUM_BNO],
			  count_rec);
		walk_tree(c, ca, CT_CNT, OD_BT_CNT, CK_CNTBT,
			  agf->roots[OD_BTNUM_CNT], agf->levels[OD_BTNUM_CNT],
			  cnt_rec);
		if (g->rmapbt)
			walk_tree(c, ca, CT_RMAP, OD_BT_RMAP, CK_RMAPBT,
				  agf->roots[OD_BTNUM_RMAP],
				  agf->levels[OD_BTNUM_RMAP], rmap_rec);
		if (g->reflink)
			walk_tree(c, ca, CT_REFC, OD_BT_REFC, CK_REFCBT,
				  agf->refcount_root, agf->refcount_level,
				  refc_rec);
	}
	if (ca->ag->have_agi) {
		walk_tree(c, ca, CT_INO, OD_BT_INO, CK_INOBT, agi->root,
			  agi->level, count_rec);
		if (g->finobt)
			walk_tree(c, ca, CT_FINO, OD_BT_FINO, CK_FINOBT,
				  agi->free_root, agi->free_level, fino_rec);
	}
	if (c->fatal)
		return;
	if (ca->tree_ok[CT_INO])
		check_chunks(c, ca);
	if (ca->tree_ok[CT_BNO] && ca->tree_ok[CT_CNT])
		compare_bno_cnt(c, ca);
	if (ca->tree_ok[CT_INO] && ca->tree_ok[CT_FINO])
		compare_ino_fino(c, ca);
	check_ag_counters(c, agno);
}
