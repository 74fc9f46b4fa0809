/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The block ownership map, per AG: every claim on the AG's blocks as a
 * span (headers, log, inode chunks, AG btree blocks, AGFL, free
 * extents, file extents and bmbt blocks from inodes of any AG), sorted
 * by start and swept once.  Every block must be claimed exactly once,
 * except that file extents may share blocks when the filesystem has
 * reflink (check_refcount.c then compares the sharing with the refcount
 * btree).
 */
#include "core/check/check_int.h"

#include <stdio.h>

/* The AG's own claims: headers, log, btrees, AGFL, chunks, free space. */
static int add_own(struct check_ctx *c, struct check_ag *ca)
{
	const struct od_geo *g = c->g;
	const struct m_ag *ag = ca->ag;
	uint32_t ino_end = 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < ca->meta.n && !ret; i++)
		ret = check_spans_add(&ca->spans, ca->meta.v[i].start,
				      ca->meta.v[i].len, ca->meta.v[i].idx,
				      ca->meta.v[i].src);
	for (i = 0; i < ag->nfree && !ret; i++)
		ret = check_spans_add(&ca->spans, ag->freesp[i].agbno,
				      ag->freesp[i].len, (uint32_t)i,
				      check_span_src(CK_FREE, 0, ca->agno));
	for (i = 0; i < ag->nchunk && !ret; i++) {
		const struct od_inobt_rec *r = &ag->chunk[i];
		uint32_t b0 = 0, b1 = 0;
		unsigned grp;

		/* present inodes, by groups of 4: runs of whole blocks */
		for (grp = 0; grp <= OD_INODES_PER_CHUNK; grp += 4) {
			uint32_t s, e;

			if (grp < OD_INODES_PER_CHUNK &&
			    od_inobt_present(r, grp)) {
				s = od_agino_agbno(g, r->startino + grp);
				e = od_agino_agbno(g, r->startino + grp +
						   3) + 1;
				if (b1 > b0 && s <= b1) {
					if (e > b1)
						b1 = e;
					continue;
				}
			} else {
				s = e = 0;
			}
			if (b1 > b0) {
				/* chunks smaller than a block share it */
				if (b0 < ino_end)
					b0 = ino_end;
				if (b1 > b0)
					ret = check_spans_add(&ca->spans, b0,
						b1 - b0, (uint32_t)i,
						check_span_src(CK_INODES, 0,
							       ca->agno));
				if (b1 > ino_end)
					ino_end = b1;
			}
			b0 = s;
			b1 = e;
			if (ret)
				break;
		}
	}
	return ret;
}

static void report_conflict(struct check_ctx *c, struct check_ag *ca,
			    const struct check_span *a,
			    const struct check_span *b)
{
	const struct check_span *fr = NULL, *other = NULL;
	uint32_t s = a->start > b->start ? a->start : b->start;
	uint64_t ea = (uint64_t)a->start + a->len;
	uint64_t eb = (uint64_t)b->start + b->len;
	uint32_t e = (uint32_t)(ea < eb ? ea : eb);
	char r[48], x[128], y[128];

	check_range_str(s, e, r, sizeof(r));
	if (check_span_kind(a) == CK_FREE) {
		fr = a;
		other = b;
	} else if (check_span_kind(b) == CK_FREE) {
		fr = b;
		other = a;
	}
	if (fr && check_kind_is_file(check_span_kind(other))) {
		check_span_str(c, ca, other, s, y, sizeof(y));
		check_problem(&ca->log, SPACE_FREE_MAPPED, ca->agno, r,
			      e - s == 1 ? "is" : "are", fr->start, fr->len, y);
		return;
	}
	check_span_str(c, ca, a, s, x, sizeof(x));
	check_span_str(c, ca, b, s, y, sizeof(y));
	check_problem(&ca->log, SPACE_TWICE,
		      ca->agno, r, e - s == 1 ? "is" : "are", x, y);
}

static void report_gap(struct check_ag *ca, uint32_t s, uint32_t e)
{
	char r[48];

	check_range_str(s, e, r, sizeof(r));
	check_problem(&ca->log, SPACE_LOST, ca->agno, r, e - s,
		      e - s == 1 ? "is" : "are");
}

/* Every block claimed once; file extents may share only with reflink. */
static void sweep(struct check_ctx *c, struct check_ag *ca, bool gaps)
{
	const struct check_span *v = ca->spans.v;
	bool share = c->g->reflink;
	uint64_t maxend = 0, nf_end = 0, f_end = 0;
	size_t i, nf = 0, f = 0;

	for (i = 0; i < ca->spans.n; i++) {
		const struct check_span *s = &v[i];
		uint64_t end = (uint64_t)s->start + s->len;
		bool file = share && check_kind_is_file(check_span_kind(s));

		if (end > ca->blocks) {
			char x[128];

			check_span_str(c, ca, s, s->start, x, sizeof(x));
			check_problem(&ca->log, SPACE_PAST_END, ca->agno,
				      s->start, (unsigned long long)end - 1, x);
			end = ca->blocks;
			if (s->start >= end)
				continue;
		}
		if (gaps && s->start > maxend)
			report_gap(ca, (uint32_t)maxend, s->start);
		if (s->start < nf_end)
			report_conflict(c, ca, s, &v[nf]);
		if (!file && s->start < f_end)
			report_conflict(c, ca, s, &v[f]);
		if (file) {
			if (end > f_end) {
				f_end = end;
				f = i;
			}
		} else if (end > nf_end) {
			nf_end = end;
			nf = i;
		}
		if (end > maxend) {
			ca->claimed += end - (s->start > maxend ? s->start :
					      maxend);
			maxend = end;
		}
	}
	if (gaps && maxend < ca->blocks)
		report_gap(ca, (uint32_t)maxend, ca->blocks);
}


void check_ag_space(struct check_ctx *c, uint32_t agno)
{
	struct check_ag *ca = &c->cag[agno];
	/* a claim the model could not read leaves blocks unclaimed */
	bool whole = !c->incomplete && ca->tree_ok[CT_BNO] &&
		     ca->tree_ok[CT_INO] && ca->ag->have_agf &&
		     ca->ag->have_agi;

	if (c->fatal)
		return;
	if (add_own(c, ca) || check_spans_sort(&ca->spans)) {
		check_fatal(c, -ENOMEM);
		return;
	}
	sweep(c, ca, whole);
	if (c->g->reflink && whole && ca->tree_ok[CT_REFC] &&
	    check_ag_refcounts(c, ca))
		check_fatal(c, -ENOMEM);
	if (c->g->rmapbt && whole && ca->tree_ok[CT_RMAP])
		check_ag_rmap(c, agno);
}

