/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The block ownership map, per AG: every claim on the AG's blocks as a
 * span (headers, log, inode chunks, AG btree blocks, AGFL, free
 * extents, file extents and bmbt blocks from inodes of any AG), sorted
 * by start and swept once.  Every block must be claimed exactly once,
 * except that file extents may share blocks (reflink): there a block
 * mapped k times must carry refcount k in the refcount btree, and the
 * refcount btree must say nothing else.
 */
#include "check_int.h"
#include "bigmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- span arrays ---- */

int check_spans_add(struct check_spans *s, uint32_t start, uint32_t len,
		    uint32_t idx, uint32_t src)
{
	struct check_span *v;

	if (s->n) {
		/* blocks of one tree often come in runs: one span */
		v = &s->v[s->n - 1];
		if (v->src == src && v->start + v->len == start &&
		    check_span_kind(v) != CK_AGFL &&
		    check_span_kind(v) < CK_FREE && v->len < UINT32_MAX - len) {
			v->len += len;
			return 0;
		}
	}
	if (bigmem_grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v)))
		return -ENOMEM;
	v = &s->v[s->n++];
	v->start = start;
	v->len = len;
	v->idx = idx;
	v->src = src;
	return 0;
}

void check_spans_free(struct check_spans *s)
{
	bigmem_free(s->v, s->cap, sizeof(*s->v));
	memset(s, 0, sizeof(*s));
}

/* Make room for n more spans at once. */
static int spans_reserve(struct check_spans *s, size_t n)
{
	struct check_span *v;

	if (s->cap - s->n >= n)
		return 0;
	v = bigmem_calloc(s->n + n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (s->n)
		memcpy(v, s->v, s->n * sizeof(*v));
	bigmem_free(s->v, s->cap, sizeof(*s->v));
	s->v = v;
	s->cap = s->n + n;
	return 0;
}

/* LSD radix sort on start, two 16-bit digits: stable. */
int check_spans_sort(struct check_spans *s)
{
	struct check_span *tmp, *src = s->v, *dst;
	size_t *count, i;
	unsigned pass;

	if (s->n < 2)
		return 0;
	tmp = malloc(s->n * sizeof(*tmp));
	count = malloc(65536 * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	dst = tmp;
	for (pass = 0; pass < 2; pass++) {
		unsigned shift = pass * 16;
		size_t sum = 0;
		struct check_span *t;

		memset(count, 0, 65536 * sizeof(*count));
		for (i = 0; i < s->n; i++)
			count[(src[i].start >> shift) & 0xffff]++;
		for (i = 0; i < 65536; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < s->n; i++)
			dst[count[(src[i].start >> shift) & 0xffff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	/* two passes: the result is back in s->v */
	free(tmp);
	free(count);
	return 0;
}

/* ---- naming things ---- */

const struct m_ino *check_ext_owner(const struct check_ctx *c, uint32_t src,
				    uint32_t idx)
{
	const struct m_ag *ag = &c->m->ag[src];
	size_t lo = 0, hi = ag->nino;

	/* the last inode whose extents start at or before idx */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ag->ino[mid].ext <= idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	if (idx >= ag->ino[lo - 1].ext + ag->ino[lo - 1].nde +
		   ag->ino[lo - 1].nae)
		return NULL;
	return &ag->ino[lo - 1];
}

void check_span_str(const struct check_ctx *c, const struct check_ag *ca,
		    const struct check_span *s, uint32_t b, char *buf,
		    size_t len)
{
	static const char *const tree[] = {
		[CK_BNOBT] = "bnobt", [CK_CNTBT] = "cntbt",
		[CK_INOBT] = "inobt", [CK_FINOBT] = "finobt",
		[CK_RMAPBT] = "rmapbt", [CK_REFCBT] = "refcountbt",
	};
	enum check_kind k = check_span_kind(s);
	const struct od_geo *g = c->g;
	const struct m_ag *sag = &c->m->ag[check_span_ag(s)];
	const char *fork = check_span_flags(s) & CHECK_SPAN_ATTRFORK ?
			   "attr" : "data";

	switch (k) {
	case CK_FS:
		snprintf(buf, len, "the AG headers");
		break;
	case CK_LOG:
		snprintf(buf, len, "the log");
		break;
	case CK_INODES:
		snprintf(buf, len, "inode chunk %llu",
			 (unsigned long long)od_agino_ino(g, ca->agno,
				ca->ag->chunk[s->idx].startino));
		break;
	case CK_BNOBT: case CK_CNTBT: case CK_INOBT: case CK_FINOBT:
	case CK_RMAPBT: case CK_REFCBT:
		snprintf(buf, len, "a %s block", tree[k]);
		break;
	case CK_AGFL:
		snprintf(buf, len, "the AGFL");
		break;
	case CK_FREE:
		snprintf(buf, len, "free space in the bnobt (extent %u+%u)",
			 s->start, s->len);
		break;
	case CK_BMBT:
		snprintf(buf, len, "a bmbt block of inode %llu (%s fork)",
			 (unsigned long long)sag->ino[s->idx].ino, fork);
		break;
	case CK_DATA:
	case CK_ATTR: {
		const struct m_ino *mi = check_ext_owner(c, check_span_ag(s),
							 s->idx);
		struct od_irec r;

		m_ext_get(&sag->ext[s->idx], &r);
		snprintf(buf, len, "inode %llu %s fork offset %llu",
			 mi ? (unsigned long long)mi->ino : 0ull,
			 k == CK_ATTR ? "attr" : "data",
			 (unsigned long long)(r.startoff + (b - s->start)));
		break;
	}
	default:
		snprintf(buf, len, "something");
		break;
	}
}

static void range_str(uint32_t a, uint32_t b, char *buf, size_t len)
{
	if (b - a == 1)
		snprintf(buf, len, "block %u", a);
	else
		snprintf(buf, len, "blocks %u-%u", a, b - 1);
}

/* ---- handing file extents and bmbt blocks to their AGs ---- */

struct dist {
	struct check_ctx *c;
	uint64_t *count;	/* per target AG */
	bool fill;
};

static int dist_put(struct dist *d, uint64_t fsb, uint32_t len, uint32_t idx,
		    uint32_t src)
{
	const struct od_geo *g = d->c->g;
	uint32_t t = od_fsb_agno(g, fsb);

	if (t >= d->c->m->agcount)
		return 0;	/* the scan checked extents: cannot happen */
	if (!d->fill) {
		d->count[t]++;
		return 0;
	}
	return check_spans_add(&d->c->cag[t].spans, od_fsb_agbno(g, fsb), len,
			       idx, src);
}

/* One fork's extents, merged into runs contiguous on disk and in file. */
static int dist_fork(struct dist *d, uint32_t s, const struct m_ino *mi,
		     uint32_t first, uint32_t n, enum check_kind kind)
{
	const struct od_geo *g = d->c->g;
	const struct m_ext *x = d->c->m->ag[s].ext;
	struct od_irec run = { 0, 0, 0, false }, r;
	uint32_t i, runidx = 0;
	uint64_t runlen = 0;
	int ret;

	(void)mi;
	for (i = 0; i < n; i++) {
		m_ext_get(&x[first + i], &r);
		if (runlen && r.unwritten == run.unwritten &&
		    run.startoff + runlen == r.startoff &&
		    run.startblock + runlen == r.startblock &&
		    od_fsb_agno(g, run.startblock) ==
		    od_fsb_agno(g, r.startblock) &&
		    runlen + r.blockcount <= UINT32_MAX) {
			runlen += r.blockcount;
			continue;
		}
		if (runlen) {
			ret = dist_put(d, run.startblock, (uint32_t)runlen,
				       runidx, check_span_src(kind,
					run.unwritten ? CHECK_SPAN_UNWRITTEN :
					0, s));
			if (ret)
				return ret;
		}
		run = r;
		runlen = r.blockcount;
		runidx = first + i;
	}
	if (!runlen)
		return 0;
	return dist_put(d, run.startblock, (uint32_t)runlen, runidx,
			check_span_src(kind, run.unwritten ?
				       CHECK_SPAN_UNWRITTEN : 0, s));
}

static int dist_pass(struct dist *d)
{
	struct check_ctx *c = d->c;
	uint32_t s;
	size_t i;
	int ret;

	for (s = 0; s < c->m->agcount; s++) {
		const struct m_ag *ag = &c->m->ag[s];
		const struct check_ag *ca = &c->cag[s];

		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];

			if (!(mi->flags & MI_REALTIME)) {
				ret = dist_fork(d, s, mi, mi->ext, mi->nde,
						CK_DATA);
				if (ret)
					return ret;
			}
			ret = dist_fork(d, s, mi, mi->ext + mi->nde, mi->nae,
					CK_ATTR);
			if (ret)
				return ret;
		}
		for (i = 0; i < ca->nbmbt; i++) {
			const struct check_bmbt *b = &ca->bmbt[i];

			ret = dist_put(d, b->fsbno, b->len, b->idx,
				       check_span_src(CK_BMBT, b->flags, s));
			if (ret)
				return ret;
		}
	}
	return 0;
}

int check_distribute(struct check_ctx *c)
{
	struct dist d = { c, NULL, false };
	uint32_t a;
	int ret;

	d.count = calloc(c->m->agcount, sizeof(*d.count));
	if (!d.count)
		return -ENOMEM;
	ret = dist_pass(&d);
	for (a = 0; a < c->m->agcount && !ret; a++) {
		const struct check_ag *ca = &c->cag[a];
		size_t more = d.count[a] + ca->meta.n + ca->ag->nfree;

		/* chunks: a span per chunk, a few more when sparse */
		more += ca->ag->nchunk * 2 + 16;
		ret = spans_reserve(&c->cag[a].spans, more);
	}
	if (!ret) {
		d.fill = true;
		ret = dist_pass(&d);
	}
	free(d.count);
	return ret;
}

/* ---- the sweep ---- */

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
				e = od_agino_agbno(g, r->startino + grp + 3) + 1;
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

	range_str(s, e, r, sizeof(r));
	if (check_span_kind(a) == CK_FREE) {
		fr = a;
		other = b;
	} else if (check_span_kind(b) == CK_FREE) {
		fr = b;
		other = a;
	}
	if (fr && check_kind_is_file(check_span_kind(other))) {
		check_span_str(c, ca, other, s, y, sizeof(y));
		check_problem(&ca->log, "ag %u: %s %s free in the bnobt (extent "
			      "%u+%u) and mapped by %s", ca->agno, r,
			      e - s == 1 ? "is" : "are", fr->start, fr->len, y);
		return;
	}
	check_span_str(c, ca, a, s, x, sizeof(x));
	check_span_str(c, ca, b, s, y, sizeof(y));
	check_problem(&ca->log, "ag %u: %s %s claimed twice: by %s and by %s",
		      ca->agno, r, e - s == 1 ? "is" : "are", x, y);
}

static void report_gap(struct check_ag *ca, uint32_t s, uint32_t e)
{
	char r[48];

	range_str(s, e, r, sizeof(r));
	check_problem(&ca->log, "ag %u: %s (%u) %s not accounted for: neither "
		      "free nor in use (lost)", ca->agno, r, e - s,
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
			check_problem(&ca->log, "ag %u: blocks %u-%llu (%s) run "
				      "past the end of the AG", ca->agno,
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

/* ---- refcounts ---- */

struct heap {
	uint64_t *v;		/* end << 32 | span index */
	size_t n, cap;
};

static int heap_push(struct heap *h, uint64_t x)
{
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		uint64_t *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	while (i && h->v[(i - 1) / 2] > x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
	return 0;
}

static void heap_pop(struct heap *h)
{
	uint64_t x = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < h->n && h->v[l] < x)
			m = l;
		if (l + 1 < h->n && h->v[l + 1] < (m == i ? x : h->v[l]))
			m = l + 1;
		if (m == i)
			break;
		h->v[i] = h->v[m];
		i = m;
	}
	if (h->n)
		h->v[i] = x;
}

struct refcmp {
	struct check_ctx *c;
	struct check_ag *ca;
	size_t r;		/* refcount record cursor */
	/* a mismatch run being extended */
	uint32_t ms, me, mk, md;
	bool have;
};

static void flush_mismatch(struct refcmp *rc)
{
	struct check_ag *ca = rc->ca;
	char r[48];

	if (!rc->have)
		return;
	rc->have = false;
	range_str(rc->ms, rc->me, r, sizeof(r));
	if (rc->md == 0)
		check_problem(&ca->log, "ag %u: %s %s mapped %u times by file "
			      "forks, but the refcount btree has no record for "
			      "them", ca->agno, r,
			      rc->me - rc->ms == 1 ? "is" : "are", rc->mk);
	else if (rc->mk <= 1)
		check_problem(&ca->log, "ag %u: %s %s refcount %u in the "
			      "refcount btree, but %s mapped %s", ca->agno, r,
			      rc->me - rc->ms == 1 ? "has" : "have", rc->md,
			      rc->me - rc->ms == 1 ? "is" : "are",
			      rc->mk ? "once" : "by no file");
	else
		check_problem(&ca->log, "ag %u: %s %s mapped %u times by file "
			      "forks, but the refcount btree says %u", ca->agno,
			      r, rc->me - rc->ms == 1 ? "is" : "are", rc->mk,
			      rc->md);
}

/* Compare blocks [s, e), each mapped k times, with the refcount btree. */
static void compare_refc(struct refcmp *rc, uint32_t s, uint32_t e,
			 uint32_t k)
{
	const struct check_ag *ca = rc->ca;

	while (s < e) {
		const struct check_refc *x;
		uint32_t d = 0, next = e;

		while (rc->r < ca->nrefc &&
		       ca->refc[rc->r].start + ca->refc[rc->r].len <= s)
			rc->r++;
		x = rc->r < ca->nrefc ? &ca->refc[rc->r] : NULL;
		if (x && x->start <= s) {
			d = x->refcount;
			if (x->start + x->len < next)
				next = x->start + x->len;
		} else if (x && x->start < next) {
			next = x->start;
		}
		if ((k >= 2 || d >= 2) && k != d) {
			if (rc->have && rc->me == s && rc->mk == k &&
			    rc->md == d) {
				rc->me = next;
			} else {
				flush_mismatch(rc);
				rc->have = true;
				rc->ms = s;
				rc->me = next;
				rc->mk = k;
				rc->md = d;
			}
		}
		s = next;
	}
}

/* Sharing needs the reflink flag on every inode involved. */
static void check_flags(struct refcmp *rc, const struct heap *h, uint32_t s,
			uint32_t e)
{
	struct check_ag *ca = rc->ca;
	size_t i;

	for (i = 0; i < h->n; i++) {
		const struct check_span *sp = &ca->spans.v[(uint32_t)h->v[i]];
		const struct m_ino *mi = check_ext_owner(rc->c,
							 check_span_ag(sp),
							 sp->idx);

		if (mi && !(mi->flags & MI_REFLINK))
			check_problem(&ca->log, "inode %llu shares ag %u blocks "
				      "%u-%u with other files but has no "
				      "reflink flag", (unsigned long long)mi->ino,
				      ca->agno, s, e - 1);
	}
}

/* Sweep the file spans alone: how many times each block is mapped. */
static int refcounts(struct check_ctx *c, struct check_ag *ca)
{
	const struct check_span *v = ca->spans.v;
	struct refcmp rc = { c, ca, 0, 0, 0, 0, 0, false };
	struct heap h = { NULL, 0, 0 };
	size_t i = 0, n = ca->spans.n;
	uint32_t pos = 0, next;
	int ret = 0;

#define SKIP_NONFILE() \
	while (i < n && !check_kind_is_file(check_span_kind(&v[i]))) i++

	SKIP_NONFILE();
	for (;;) {
		if (!h.n) {
			next = i < n ? v[i].start : ca->blocks;
			if (next > ca->blocks)
				next = ca->blocks;
			if (next > pos)
				compare_refc(&rc, pos, next, 0);
			if (i >= n)
				break;
			pos = v[i].start;
		}
		while (i < n && v[i].start == pos) {
			uint64_t end = (uint64_t)v[i].start + v[i].len;

			if (end > ca->blocks)
				end = ca->blocks;
			if (end > pos && heap_push(&h, end << 32 | i)) {
				ret = -ENOMEM;
				goto out;
			}
			i++;
			SKIP_NONFILE();
		}
		if (!h.n)
			continue;
		next = (uint32_t)(h.v[0] >> 32);
		if (i < n && v[i].start < next)
			next = v[i].start;
		compare_refc(&rc, pos, next, (uint32_t)h.n);
		if (h.n >= 2)
			check_flags(&rc, &h, pos, next);
		pos = next;
		while (h.n && (uint32_t)(h.v[0] >> 32) == pos)
			heap_pop(&h);
	}
#undef SKIP_NONFILE
	flush_mismatch(&rc);
out:
	free(h.v);
	return ret;
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
	    refcounts(c, ca))
		check_fatal(c, -ENOMEM);
	if (c->g->rmapbt && whole && ca->tree_ok[CT_RMAP])
		check_ag_rmap(c, agno);
}
