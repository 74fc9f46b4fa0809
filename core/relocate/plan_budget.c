/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plan within a write budget (plan_opts.max_write): on flash every
 * byte written wears the device, so move first what gains most per byte
 * copied (FragPicker, SOSP'21, made the same gain with a third of the
 * writes by moving only the pieces that split requests).
 *
 * The whole plan (inode numbers kept) is built first and costed inode by
 * inode (plan_gain.c: the read-back seconds and SSD requests each
 * inode's move saves, and the blocks it copies).  Each figure is taken
 * as a share of the whole plan's, the two shares added, and the inodes
 * ranked by that per block copied; they are taken in that order while
 * they fit the budget.  The plan is then made with only those free to
 * move (plan_limits.only: each lands in the free space nearest after
 * the data read before it, plan_near.c) and costed again: those that
 * gain nothing where they land are dropped and the next best taken, a
 * few times, and the best of these plans is kept.  A plan that copies
 * more than the budget (a file laid out anew can copy blocks the whole
 * plan left in place) is made again with a smaller choice.  The whole
 * plan's figures are kept so that the caller can say what the rest
 * would gain.
 */
#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits.h"
#include "core/base/sort.h"

#include <stdlib.h>
#include <string.h>

#define BUDGET_TRIES	6	/* builds that try to fit the budget */

struct cand {
	uint32_t d;		/* dense index */
	double score;		/* share of the whole gain per block */
	double h, r;		/* its shares of the HDD and SSD gains */
	uint64_t blocks;
};

/* The candidates in order of one figure's share per block. */
struct ord {
	double key;
	uint32_t k;		/* index in the candidates */
};

static int cmp_ord(const void *a, const void *b)
{
	const struct ord *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->d < y->d ? -1 : x->d > y->d;
}

/* The inodes worth moving, best first; their number in *n. */
static int rank(const struct model *m, const struct plan_gain_val *val,
		struct cand **out, size_t *n)
{
	size_t ninodes = m->ninodes, i, k = 0;
	double hdd = 0, req = 0;
	struct cand *c;

	for (i = 0; i < ninodes; i++) {
		if (!val[i].moved)
			continue;
		if (val[i].hdd > 0)
			hdd += val[i].hdd;
		if (val[i].req > 0)
			req += (double)val[i].req;
	}
	c = malloc((ninodes ? ninodes : 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (i = 0; i < ninodes; i++) {
		double s = 0;

		if (!val[i].moved)
			continue;
		c[k].h = hdd > 0 ? val[i].hdd / hdd : 0;
		c[k].r = req > 0 ? (double)val[i].req / req : 0;
		s = c[k].h + c[k].r;
		if (s <= 0 && val[i].joined <= 0)
			continue;	/* gains nothing by itself */
		c[k].d = (uint32_t)i;
		c[k].blocks = val[i].blocks;
		c[k].score = s / (double)(val[i].blocks ? val[i].blocks : 1);
		k++;
	}
	sort_any(c, k, sizeof(*c), cmp_cand);
	*out = c;
	*n = k;
	return 0;
}

/* What state a candidate is in (choose, plan_budget). */
enum { C_FREE, C_TAKEN, C_OUT };

/*
 * The candidates by each figure's share per block (by[0]: HDD seconds,
 * by[1]: SSD requests).
 */
static int order_by(const struct cand *c, size_t n, struct ord *by[2])
{
	size_t k;
	int f;

	for (f = 0; f < 2; f++) {
		by[f] = malloc((n ? n : 1) * sizeof(*by[f]));
		if (!by[f])
			return -ENOMEM;
		for (k = 0; k < n; k++) {
			by[f][k].key = (f ? c[k].r : c[k].h) /
				       (double)(c[k].blocks ? c[k].blocks : 1);
			by[f][k].k = (uint32_t)k;
		}
		sort_any(by[f], n, sizeof(*by[f]), cmp_ord);
	}
	return 0;
}

/*
 * Take the free candidates while they fit in budget, each from the
 * figure whose share taken so far is the smaller, best per block first:
 * a budget spent on one figure alone (the HDD's seeks, or the SSD's
 * requests) would leave the other as it is.
 */
static void choose(const struct cand *c, size_t n, struct ord *const by[2],
		   uint64_t budget, uint8_t *st, uint8_t *only,
		   size_t ninodes)
{
	uint64_t take = 0;
	double got[2] = { 0, 0 };
	size_t k, at[2] = { 0, 0 };

	for (k = 0; k < n; k++)
		if (st[c[k].d] == C_TAKEN) {
			if (take + c[k].blocks <= budget) {
				take += c[k].blocks;
				got[0] += c[k].h;
				got[1] += c[k].r;
			} else {
				st[c[k].d] = C_FREE;	/* no room now */
			}
		}
	for (;;) {
		int f = got[0] <= got[1] ? 0 : 1, tries;
		bool took = false;

		for (tries = 0; tries < 2 && !took; tries++, f = !f) {
			while (at[f] < n) {
				const struct cand *x = &c[by[f][at[f]++].k];

				if (st[x->d] != C_FREE ||
				    take + x->blocks > budget)
					continue;	/* never fits again */
				take += x->blocks;
				got[0] += x->h;
				got[1] += x->r;
				st[x->d] = C_TAKEN;
				took = true;
				break;
			}
		}
		if (!took)
			break;
	}
	memset(only, 0, ninodes ? ninodes : 1);
	for (k = 0; k < n; k++)
		only[c[k].d] = st[c[k].d] == C_TAKEN;
}

/* A plan's gain as a share of the whole plan's, both figures added. */
static double share(const struct plan *p, const struct plan *whole)
{
	double h = whole->rb_now.hdd_seconds - whole->rb_after.hdd_seconds;
	double r = (double)whole->rb_now.requests -
		   (double)whole->rb_after.requests, s = 0;

	if (h > 0)
		s += (p->rb_now.hdd_seconds - p->rb_after.hdd_seconds) / h;
	if (r > 0)
		s += ((double)p->rb_now.requests -
		      (double)p->rb_after.requests) / r;
	return s;
}

/*
 * Out with the taken inodes that gain nothing where this plan puts
 * them (val: what each gains in it); how many went.
 */
static size_t weed(const struct cand *c, size_t n,
		   const struct plan_gain_val *val, const struct plan *whole,
		   uint8_t *st)
{
	double h = whole->rb_now.hdd_seconds - whole->rb_after.hdd_seconds;
	double r = (double)whole->rb_now.requests -
		   (double)whole->rb_after.requests;
	size_t k, out = 0;

	for (k = 0; k < n; k++) {
		const struct plan_gain_val *v = &val[c[k].d];
		double s = 0;

		if (st[c[k].d] != C_TAKEN)
			continue;
		if (h > 0)
			s += v->hdd / h;
		if (r > 0)
			s += (double)v->req / r;
		if (s <= 0 && v->joined <= 0) {
			st[c[k].d] = C_OUT;
			out++;
		}
	}
	return out;
}

int plan_budget(const struct model *m, const struct plan_opts *o,
		struct plan *p, struct err *e)
{
	const struct od_geo *g = &m->fs->geo;
	struct plan_opts po = *o;
	struct plan_limits lim = { 0 };
	struct plan whole = { 0 };
	struct plan_gain_val *val = NULL;
	struct cand *c = NULL;
	struct ord *by[2] = { NULL, NULL };
	uint8_t *only = NULL, *st = NULL;
	uint64_t limit = o->max_write >> g->blocklog, budget;
	bool have = false;
	size_t n = 0;
	int ret, k;

	memset(p, 0, sizeof(*p));
	/* a budget is for one plan: each pass would spend it again */
	if (o->lim && o->lim->focus)
		return err_set(e, -EINVAL, "a write budget is for one plan: "
			       "not with passes");
	po.max_write = 0;
	if (o->lim)
		lim = *o->lim;
	po.lim = &lim;
	val = calloc(m->ninodes ? m->ninodes : 1, sizeof(*val));
	only = malloc(m->ninodes ? m->ninodes : 1);
	if (!val || !only) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	ret = plan_build_kept(m, &po, val, &whole, e);
	if (ret)
		goto out;
	if (whole.copied_blocks <= limit) {
		*p = whole;
		memset(&whole, 0, sizeof(whole));
		p->whole_copied = p->copied_blocks;
		p->rb_whole = p->rb_after;
		goto done;
	}
	ret = rank(m, val, &c, &n);
	if (!ret)
		ret = order_by(c, n, by);
	if (ret) {
		err_set(e, ret, "out of memory");
		goto out;
	}
	lim.only = only;
	st = calloc(m->ninodes ? m->ninodes : 1, 1);
	if (!st) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	/*
	 * Each build: drop the taken inodes that gain nothing where this
	 * plan puts them, take the next best instead; keep the best plan.
	 */
	for (k = 0, budget = limit; k < BUDGET_TRIES; k++) {
		struct plan b;
		size_t out = 0;

		choose(c, n, by, budget, st, only, m->ninodes);
		ret = plan_build_kept(m, &po, val, &b, e);
		if (ret)
			break;
		if (b.copied_blocks > limit) {
			/* it copied more than chosen: choose less */
			budget = (uint64_t)((double)budget * (double)limit /
					    (double)b.copied_blocks * 0.95);
			plan_free(&b);
			continue;
		}
		out = weed(c, n, val, &whole, st);
		if (!have || share(&b, &whole) > share(p, &whole)) {
			if (have)
				plan_free(p);
			*p = b;
			have = true;
		} else {
			plan_free(&b);
		}
		if (!out)
			break;
	}
	if (!ret && !have) {
		/* no choice fitted: keep everything where it is */
		memset(only, 0, m->ninodes ? m->ninodes : 1);
		ret = plan_build_kept(m, &po, NULL, p, e);
	}
	if (ret) {
		if (have)
			plan_free(p);
		goto out;
	}
	if (!plan_limits_any(o->lim)) {
		/* the choice is the budget's, not the user's limits */
		p->limited = false;
		p->files_selected = 0;
		p->nag_added = 0;
	}
	p->cut = true;
	p->whole_copied = whole.copied_blocks;
	p->rb_whole = whole.rb_after;
done:
	p->max_write = o->max_write;
out:
	plan_free(&whole);
	free(val);
	free(only);
	free(st);
	free(c);
	free(by[0]);
	free(by[1]);
	return ret;
}
