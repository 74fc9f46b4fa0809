/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/fs/refcount.h"
#include "core/base/array.h"
#include "core/fs/btwalk.h"
#include "ondisk/refcount.h"
#include "core/base/search.h"

#include <stdlib.h>

struct refc_ctx {
	struct refc_set *s;
	size_t cap;
	uint32_t agno, aglen;
};

static int refc_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct refc_ctx *c = priv;
	struct od_refc_rec d;
	struct refc_rec r;

	od_refc_rec_decode(rec, &d);
	if (d.cow)
		return 0;	/* staging extents are not shared data */
	r.start = d.startblock;
	r.len = d.blockcount;
	r.refcount = d.refcount;
	if (r.len == 0 || (uint64_t)r.start + r.len > c->aglen ||
	    r.refcount < 2)
		return err_set(e, -EFSCORRUPTED, "ag %u refcountbt: bad record "
			       "(start %u, len %u, refcount %u)", c->agno,
			       r.start, r.len, r.refcount);
	if (c->s->n && c->s->v[c->s->n - 1].start +
	    c->s->v[c->s->n - 1].len > r.start)
		return err_set(e, -EFSCORRUPTED, "ag %u refcountbt: records "
			       "overlap at block %u", c->agno, r.start);
	if (array_grow((void **)&c->s->v, &c->cap, c->s->n,
		       sizeof(*c->s->v), 64))
		return err_set(e, -ENOMEM, "out of memory");
	c->s->v[c->s->n++] = r;
	return 0;
}

int refc_load(struct fs *fs, uint32_t agno, struct refc_set *s,
	      struct err *e)
{
	struct refc_ctx c = { s, 0, agno, od_ag_blocks(&fs->geo, agno) };
	struct od_agf agf;
	int ret;

	s->v = NULL;
	s->n = 0;
	if (!fs->geo.reflink)
		return 0;
	ret = fs_read_agf(fs, agno, &agf, e);
	if (ret)
		return ret;
	ret = btwalk_ag(fs, agno, OD_BT_REFC, agf.refcount_root,
			agf.refcount_level, refc_rec, &c, e);
	if (ret)
		refc_free(s);
	return ret;
}

void refc_free(struct refc_set *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static inline bool rec_before(const struct refc_rec *r, uint32_t agbno)
{
	return (uint64_t)r->start + r->len <= agbno;
}

SEARCH_FIRST(rec_search, struct refc_rec, uint32_t, rec_before)

void refc_find_shared(const struct refc_set *s, uint32_t agbno, uint32_t len,
		      uint32_t *fbno, uint32_t *flen)
{
	uint64_t end = (uint64_t)agbno + len;
	/* first record ending after agbno */
	size_t lo = rec_search(s->v, s->n, agbno), i;

	*fbno = OD_NULLAGBLOCK;
	*flen = 0;
	if (lo == s->n || s->v[lo].start >= end)
		return;
	*fbno = s->v[lo].start > agbno ? s->v[lo].start : agbno;
	*flen = (uint32_t)((uint64_t)s->v[lo].start + s->v[lo].len - *fbno);
	if (*fbno + (uint64_t)*flen > end)
		*flen = (uint32_t)(end - *fbno);
	for (i = lo + 1; i < s->n && *fbno + (uint64_t)*flen < end; i++) {
		if (s->v[i].start != *fbno + *flen)
			break;
		*flen += s->v[i].len;
		if (*fbno + (uint64_t)*flen > end)
			*flen = (uint32_t)(end - *fbno);
	}
}
