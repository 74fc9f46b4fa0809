/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared blocks, per AG: the file spans swept alone with a heap of
 * their ends give how many times each block is mapped; a block mapped
 * k > 1 times must have refcount k in the refcount btree and every
 * other block none (xfs_repair's compute_refcounts and check_refcounts),
 * and every inode sharing a block must have the reflink flag.
 */
#include "core/check/check_int.h"
#include "core/base/array.h"
#include "core/base/heap.h"

#include <stdio.h>
#include <stdlib.h>

struct heap {
	uint64_t *v;		/* end << 32 | span index */
	size_t n, cap;
};

#define END_BELOW(ctx, a, b)	(*(a) < *(b))
HEAP_DEFINE(ends, uint64_t, const void *, END_BELOW)

static int heap_push(struct heap *h, uint64_t x)
{
	if (array_grow((void **)&h->v, &h->cap, h->n, sizeof(*h->v), 64))
		return -ENOMEM;
	h->v[h->n] = x;
	ends_up(h->v, h->n++, NULL);
	return 0;
}

static void heap_pop(struct heap *h)
{
	h->v[0] = h->v[--h->n];
	ends_down(h->v, h->n, 0, NULL);
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
	check_range_str(rc->ms, rc->me, r, sizeof(r));
	if (rc->md == 0)
		check_problem(&ca->log, REFC_NORECORD, ca->agno, r,
			      rc->me - rc->ms == 1 ? "is" : "are", rc->mk);
	else if (rc->mk <= 1)
		check_problem(&ca->log, REFC_UNSHARED, ca->agno, r,
			      rc->me - rc->ms == 1 ? "has" : "have", rc->md,
			      rc->me - rc->ms == 1 ? "is" : "are",
			      rc->mk ? "once" : "by no file");
	else
		check_problem(&ca->log, REFC_WRONG, ca->agno,
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
			check_problem(&ca->log, REFLINK_FLAG,
				      (unsigned long long)mi->ino, ca->agno, s,
				      e - 1);
	}
}

/* Sweep the file spans alone: how many times each block is mapped. */
int check_ag_refcounts(struct check_ctx *c, struct check_ag *ca)
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

