/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reverse-mapping btree against the owners found, per AG.
 *
 * The expected records are built as xfs_repair builds them
 * (repair/rmap.c): file extents merged while contiguous on disk and in
 * the file with the same flags (the spans already are), bmbt blocks of
 * one fork merged when adjacent (the inode pass did that), and the
 * AG's own metadata merged per owner when adjacent: OWN_FS for the
 * header blocks, OWN_LOG, OWN_INODES for inode chunks, OWN_AG for the
 * bnobt, cntbt and rmapbt blocks and the AGFL, OWN_INOBT for the inobt
 * and finobt, OWN_REFC for the refcountbt.  Free space has no record.
 * The kernel merges the same way, so the rmapbt must hold exactly these
 * records: each one missing, different or extra is reported.
 */
#include "core/check/check_int.h"
#include "core/base/array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void check_rmap_owner_str(const struct check_rmap *r, char *buf, size_t len)
{
	static const char *const own[] = {
		"OWN_FS (AG headers)", "OWN_LOG (the log)",
		"OWN_AG (free space btrees, AGFL)", "OWN_INOBT (inode btrees)",
		"OWN_INODES (inode chunks)", "OWN_REFC (refcount btree)",
		"OWN_COW (CoW staging)",
	};
	const char *fork = r->offset & OD_RMAP_OFF_ATTR_FORK ? "attr" : "data";

	if (od_rmap_owner_special(r->owner)) {
		if (r->owner <= OD_RMAP_OWN_FS &&
		    r->owner > OD_RMAP_OWN_MIN)
			snprintf(buf, len, "%s",
				 own[OD_RMAP_OWN_FS - r->owner]);
		else
			snprintf(buf, len, "owner %lld", (long long)r->owner);
	} else if (r->offset & OD_RMAP_OFF_BMBT_BLOCK) {
		snprintf(buf, len, "inode %llu %s fork bmbt",
			 (unsigned long long)r->owner, fork);
	} else {
		snprintf(buf, len, "inode %llu %s fork offset %llu%s",
			 (unsigned long long)r->owner, fork,
			 (unsigned long long)(r->offset & OD_RMAP_OFF_MASK),
			 r->offset & OD_RMAP_OFF_UNWRITTEN ? " unwritten" : "");
	}
}

/* rmapbt key order: startblock, owner, offset (flags but unwritten). */
static int cmp_key(const struct check_rmap *a, const struct check_rmap *b)
{
	uint64_t x = a->offset & ~OD_RMAP_OFF_UNWRITTEN;
	uint64_t y = b->offset & ~OD_RMAP_OFF_UNWRITTEN;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	if (x != y)
		return x < y ? -1 : 1;
	return 0;
}

struct rmaps {
	struct check_rmap *v;
	size_t n, cap;
	size_t last[8];		/* per non-inode owner: last record + 1 */
};

static int push(struct rmaps *e, uint32_t start, uint32_t len,
		uint64_t owner, uint64_t offset)
{
	struct check_rmap *r;

	if (od_rmap_owner_special(owner)) {
		size_t *l = &e->last[OD_RMAP_OWN_FS - owner];

		/* adjacent blocks of one owner: one record */
		if (*l && e->v[*l - 1].start + e->v[*l - 1].len == start &&
		    e->v[*l - 1].len <= UINT32_MAX - len) {
			e->v[*l - 1].len += len;
			return 0;
		}
	}
	if (array_grow((void **)&e->v, &e->cap, e->n, sizeof(*e->v), 1024))
		return -ENOMEM;
	r = &e->v[e->n++];
	r->start = start;
	r->len = len;
	r->owner = owner;
	r->offset = offset;
	if (od_rmap_owner_special(owner))
		e->last[OD_RMAP_OWN_FS - owner] = e->n;
	return 0;
}

static int expected(struct check_ctx *c, struct check_ag *ca,
		    struct rmaps *e)
{
	static const uint64_t owner[CK_NKINDS] = {
		[CK_FS] = OD_RMAP_OWN_FS, [CK_LOG] = OD_RMAP_OWN_LOG,
		[CK_INODES] = OD_RMAP_OWN_INODES,
		[CK_BNOBT] = OD_RMAP_OWN_AG, [CK_CNTBT] = OD_RMAP_OWN_AG,
		[CK_RMAPBT] = OD_RMAP_OWN_AG, [CK_AGFL] = OD_RMAP_OWN_AG,
		[CK_INOBT] = OD_RMAP_OWN_INOBT,
		[CK_FINOBT] = OD_RMAP_OWN_INOBT,
		[CK_REFCBT] = OD_RMAP_OWN_REFC,
	};
	size_t i;
	int ret = 0;

	for (i = 0; i < ca->spans.n && !ret; i++) {
		const struct check_span *s = &ca->spans.v[i];
		enum check_kind k = check_span_kind(s);
		unsigned fl = check_span_flags(s);
		const struct m_ag *sag = &c->m->ag[check_span_ag(s)];
		const struct m_ino *mi;
		struct od_irec r;

		switch (k) {
		case CK_FREE:
			break;
		case CK_BMBT:
			ret = push(e, s->start, s->len, sag->ino[s->idx].ino,
				   OD_RMAP_OFF_BMBT_BLOCK |
				   (fl & CHECK_SPAN_ATTRFORK ?
				    OD_RMAP_OFF_ATTR_FORK : 0));
			break;
		case CK_DATA:
		case CK_ATTR:
			mi = check_ext_owner(c, check_span_ag(s), s->idx);
			if (!mi)
				break;
			m_ext_get(&sag->ext[s->idx], &r);
			ret = push(e, s->start, s->len, mi->ino, r.startoff |
				   (k == CK_ATTR ? OD_RMAP_OFF_ATTR_FORK : 0) |
				   (fl & CHECK_SPAN_UNWRITTEN ?
				    OD_RMAP_OFF_UNWRITTEN : 0));
			break;
		default:
			if (k < CK_NKINDS && owner[k])
				ret = push(e, s->start, s->len, owner[k], 0);
			break;
		}
	}
	if (ret)
		return ret;
	/* sorted by start already; order the records sharing a start */
	for (i = 1; i < e->n; i++) {
		struct check_rmap x = e->v[i];
		size_t j = i;

		while (j && e->v[j - 1].start == x.start &&
		       cmp_key(&e->v[j - 1], &x) > 0) {
			e->v[j] = e->v[j - 1];
			j--;
		}
		e->v[j] = x;
	}
	return 0;
}

static void report(struct check_ag *ca, const char *what,
		   const struct check_rmap *r)
{
	char own[96];

	check_rmap_owner_str(r, own, sizeof(own));
	check_problem(&ca->log, RMAP_MISMATCH, ca->agno, what,
		      r->start, r->start + r->len - 1, own);
}

void check_ag_rmap(struct check_ctx *c, uint32_t agno)
{
	struct check_ag *ca = &c->cag[agno];
	struct rmaps e;
	size_t i = 0, j = 0;

	memset(&e, 0, sizeof(e));
	if (expected(c, ca, &e)) {
		free(e.v);
		check_fatal(c, -ENOMEM);
		return;
	}
	while (i < e.n || j < ca->nrmap) {
		const struct check_rmap *x = i < e.n ? &e.v[i] : NULL;
		const struct check_rmap *y = j < ca->nrmap ? &ca->rmap[j] :
					     NULL;
		int d = !x ? 1 : !y ? -1 : cmp_key(x, y);

		if (d == 0 && x->len == y->len && x->offset == y->offset) {
			i++;
			j++;
		} else if (d == 0) {
			char own[96];

			check_rmap_owner_str(x, own, sizeof(own));
			check_problem(&ca->log, RMAP_SHORT,
				      ca->agno, y->start,
				      y->start + y->len - 1, own,
				      (x->offset ^ y->offset) &
				      OD_RMAP_OFF_UNWRITTEN ?
				      ", unwritten flag differs" : "",
				      x->start, x->start + x->len - 1);
			i++;
			j++;
		} else if (d < 0) {
			report(ca, "rmapbt has no record for", x);
			i++;
		} else {
			report(ca, "rmapbt record matches nothing found:", y);
			j++;
		}
	}
	free(e.v);
}
