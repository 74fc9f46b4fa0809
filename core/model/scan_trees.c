/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scanning one AG, its headers and btrees: AGF, AGI and AGFL, the free
 * space, reverse-map, refcount and inode btrees (their blocks noted in
 * the model's metadata, the free extents and inode chunks kept).
 */
#include "core/model/scan_priv.h"
#include "core/base/bigmem.h"
#include "core/base/sort.h"
#include "core/fs/btwalk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_meta(struct agscan *s, uint32_t agbno, enum m_meta kind,
		    uint64_t owner)
{
	struct m_ag *ag = s->ag;

	if (bigmem_grow((void **)&ag->meta, &ag->cap_meta, ag->nmeta,
		 sizeof(*ag->meta)))
		return -ENOMEM;
	ag->meta[ag->nmeta].agbno = agbno;
	ag->meta[ag->nmeta].kind = kind;
	ag->meta[ag->nmeta].owner = owner;
	ag->nmeta++;
	return 0;
}

int scan_meta_block(void *priv, uint64_t fsbno, unsigned level,
		    struct err *e)
{
	struct meta_ctx *mc = priv;
	struct agscan *s = mc->s;
	uint32_t agno = od_fsb_agno(s->g, fsbno);

	(void)level;
	/* bmbt blocks may live in other AGs: kept aside, moved after the scan */
	if (agno != s->ag->agno) {
		struct m_ag *ag = s->ag;
		struct m_meta_blk *mb;

		if (bigmem_grow((void **)&ag->xmeta, &ag->cap_xmeta, ag->nxmeta,
				sizeof(*ag->xmeta)))
			return err_set(e, -ENOMEM, "out of memory");
		mb = &ag->xmeta[ag->nxmeta++];
		mb->agbno = od_fsb_agbno(s->g, fsbno);
		mb->kind = agno;	/* which AG; kind is MM_BMBT */
		mb->owner = mc->owner;
		return 0;
	}
	if (add_meta(s, od_fsb_agbno(s->g, fsbno), mc->kind, mc->owner))
		return err_set(e, -ENOMEM, "out of memory");
	return 0;
}

/* Walk an AG btree noting its blocks; rec may be NULL. */
static int walk_tree(struct agscan *s, enum od_bt_type t, uint32_t root,
		     uint32_t levels, enum m_meta kind, bool skip_leaves,
		     int (*rec)(void *, const uint8_t *, struct err *),
		     void *recpriv)
{
	struct meta_ctx mc = { s, kind, s->ag->agno };
	struct btwalk w;
	char what[64];

	memset(&w, 0, sizeof(w));
	snprintf(what, sizeof(what), "ag %u %s", s->ag->agno,
		 od_bt_ops(t)->name);
	w.fs = s->fs;
	w.type = t;
	w.agno = s->ag->agno;
	w.owner = s->ag->agno;
	w.what = what;
	w.rec = rec;
	w.priv = rec ? recpriv : &mc;
	w.block = scan_meta_block;
	w.skip_leaves = skip_leaves;
	if (levels == 0)
		return err_set(&s->e, -EFSCORRUPTED, "%s: zero levels", what);
	/*
	 * The block callback gets w.priv too: record contexts start with a
	 * struct meta_ctx so meta_block can use them.
	 */
	return btwalk_from_block(&w, root, levels - 1, &s->e);
}

struct free_ctx {
	struct meta_ctx mc;	/* first: meta_block sees it as its priv */
	struct agscan *s;
};

static int free_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct free_ctx *fc = priv;
	struct m_ag *ag = fc->s->ag;
	struct od_alloc_rec r;

	od_alloc_rec_decode(rec, &r);
	if (r.blockcount == 0 ||
	    (uint64_t)r.startblock + r.blockcount > ag->blocks)
		return err_set(e, -EFSCORRUPTED, "ag %u bnobt: free extent "
			       "%u+%u is outside the AG", ag->agno,
			       r.startblock, r.blockcount);
	if (ag->nfree && ag->freesp[ag->nfree - 1].agbno +
	    ag->freesp[ag->nfree - 1].len > r.startblock)
		return err_set(e, -EFSCORRUPTED, "ag %u bnobt: free extents "
			       "overlap at block %u", ag->agno, r.startblock);
	if (bigmem_grow((void **)&ag->freesp, &ag->cap_free, ag->nfree,
		 sizeof(*ag->freesp)))
		return err_set(e, -ENOMEM, "out of memory");
	ag->freesp[ag->nfree].agbno = r.startblock;
	ag->freesp[ag->nfree].len = r.blockcount;
	ag->nfree++;
	return 0;
}

struct chunk_ctx {
	struct meta_ctx mc;	/* first, see free_ctx */
	struct agscan *s;
};

static int chunk_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct chunk_ctx *cc = priv;
	struct m_ag *ag = cc->s->ag;
	struct od_inobt_rec r;
	const char *field;
	char what[64];
	enum od_err oe;

	oe = od_inobt_rec_decode(rec, cc->s->g, ag->agno, &r, &field);
	if (oe) {
		snprintf(what, sizeof(what), "ag %u inobt record %zu", ag->agno,
			 ag->nchunk);
		return err_od(e, oe, field, what);
	}
	if (bigmem_grow((void **)&ag->chunk, &ag->cap_chunk, ag->nchunk,
		 sizeof(*ag->chunk)))
		return err_set(e, -ENOMEM, "out of memory");
	ag->chunk[ag->nchunk++] = r;
	return 0;
}

void scan_trees(struct agscan *s)
{
	struct m_ag *ag = s->ag;
	struct fs *fs = s->fs;
	uint32_t slots[8192], n = 0;

	if (fs_read_agf(fs, ag->agno, &ag->agf, &s->e) == 0)
		ag->have_agf = true;
	else
		scan_damage(s, &s->e);
	if (fs_read_agi(fs, ag->agno, &ag->agi, &s->e) == 0)
		ag->have_agi = true;
	else
		scan_damage(s, &s->e);

	if (ag->have_agf) {
		struct free_ctx fc = { { s, MM_BNOBT, ag->agno }, s };

		if (fs_read_agfl(fs, ag->agno, &ag->agf, slots, &n, &s->e) == 0 &&
		    n <= sizeof(slots) / sizeof(slots[0])) {
			ag->agfl = malloc((n ? n : 1) * sizeof(*ag->agfl));
			if (ag->agfl) {
				memcpy(ag->agfl, slots, n * sizeof(*slots));
				ag->nagfl = n;
			}
		} else {
			scan_damage(s, &s->e);
		}
		if (walk_tree(s, OD_BT_BNO, ag->agf.roots[OD_BTNUM_BNO],
			      ag->agf.levels[OD_BTNUM_BNO], MM_BNOBT, false,
			      free_rec, &fc))
			scan_damage(s, &s->e);
		if (walk_tree(s, OD_BT_CNT, ag->agf.roots[OD_BTNUM_CNT],
			      ag->agf.levels[OD_BTNUM_CNT], MM_CNTBT, true,
			      NULL, NULL))
			scan_damage(s, &s->e);
		if (s->g->rmapbt &&
		    walk_tree(s, OD_BT_RMAP, ag->agf.roots[OD_BTNUM_RMAP],
			      ag->agf.levels[OD_BTNUM_RMAP], MM_RMAPBT, true,
			      NULL, NULL))
			scan_damage(s, &s->e);
		if (s->g->reflink &&
		    walk_tree(s, OD_BT_REFC, ag->agf.refcount_root,
			      ag->agf.refcount_level, MM_REFCBT, true, NULL,
			      NULL))
			scan_damage(s, &s->e);
	}
	if (ag->have_agi) {
		struct chunk_ctx cc = { { s, MM_INOBT, ag->agno }, s };

		if (walk_tree(s, OD_BT_INO, ag->agi.root, ag->agi.level,
			      MM_INOBT, false, chunk_rec, &cc))
			scan_damage(s, &s->e);
		if (s->g->finobt &&
		    walk_tree(s, OD_BT_FINO, ag->agi.free_root,
			      ag->agi.free_level, MM_FINOBT, true, NULL, NULL))
			scan_damage(s, &s->e);
	}
}

static void note_headers(struct agscan *s)
{
	const struct od_geo *g = s->g;
	struct m_ag *ag = s->ag;
	uint64_t log0 = s->fs->sb.logstart;
	uint32_t b, i;

	/* sb, agf, agi, agfl: sectors 0..3, in one or more blocks */
	for (i = 0; i < 4; i++) {
		b = (uint32_t)(((uint64_t)i * g->sectsize) >> g->blocklog);
		if (i == 0 || b != (uint32_t)(((uint64_t)(i - 1) * g->sectsize)
					      >> g->blocklog))
			add_meta(s, b, (enum m_meta)(MM_SB + i), ag->agno);
	}
	for (i = 0; i < ag->nagfl; i++)
		add_meta(s, ag->agfl[i], MM_AGFL_FREE, ag->agno);
	if (log0 && od_fsb_agno(g, log0) == ag->agno) {
		ag->log_agbno = od_fsb_agbno(g, log0);
		ag->log_blocks = s->fs->sb.logblocks;
	}
}

static int cmp_meta(const void *a, const void *b)
{
	const struct m_meta_blk *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

void scan_trees_finish(struct agscan *s)
{
	note_headers(s);
	sort_any(s->ag->meta, s->ag->nmeta, sizeof(*s->ag->meta), cmp_meta);
}
