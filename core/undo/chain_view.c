/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The image as undoing the later passes of a run would leave it, without
 * writing it: a map of extents over the image saying where each block's
 * bytes would come from (chain.c checks each earlier pass's proof
 * through it).  Undoing pass k writes its vacated blocks from their
 * copies (as they are before pass k is undone), then its records; so
 * laying pass k over the map resolves its copies in the map as it is,
 * then puts its records on top.  A block no pass holds reads the image.
 */
#include "core/undo/chain_priv.h"
#include "core/base/array.h"
#include "core/base/sort.h"
#include "core/base/search.h"

#include <stdlib.h>
#include <string.h>

static int push(struct view_map *m, const struct view_ext *x)
{
	if (array_grow((void **)&m->e, &m->cap, m->n, sizeof(*m->e), 256))
		return -ENOMEM;
	m->e[m->n++] = *x;
	return 0;
}

static inline bool ext_before(const struct view_ext *x, uint64_t b)
{
	return x->b + x->n <= b;
}

SEARCH_FIRST(ext_search, struct view_ext, uint64_t, ext_before)

/* The first extent ending after block b (m->n if none). */
static size_t first_after(const struct view_map *m, uint64_t b)
{
	return ext_search(m->e, m->n, b);
}

/* Blocks [y, y+n) as the map has them, pushed to out as [x, x+n). */
static int resolve(const struct view_map *m, uint32_t bs, uint64_t x,
		   uint64_t y, uint64_t n, struct view_map *out)
{
	uint64_t cur = y, end = y + n;
	size_t i = first_after(m, y);
	int ret = 0;

	while (cur < end && !ret) {
		const struct view_ext *e = i < m->n ? &m->e[i] : NULL;
		struct view_ext p;

		if (e && e->b <= cur) {
			uint64_t stop = e->b + e->n < end ? e->b + e->n : end;

			p = (struct view_ext){ x + (cur - y), stop - cur,
					       e->src,
					       e->base + (cur - e->b) * bs };
			i++;
		} else {
			uint64_t stop = e && e->b < end ? e->b : end;

			p = (struct view_ext){ x + (cur - y), stop - cur, 0,
					   cur * bs };
		}
		cur += p.n;
		ret = push(out, &p);
	}
	return ret;
}

static int by_block(const void *a, const void *b)
{
	const struct view_ext *x = a, *y = b;

	return x->b < y->b ? -1 : x->b > y->b;
}

/* map := top over map (top sorted, its extents disjoint). */
static int overlay(struct view_map *map, const struct view_map *top,
		   uint32_t bs)
{
	struct view_map rest = { 0 }, out = { 0 };
	size_t i, j = 0, a = 0, b = 0;
	int ret = 0;

	for (i = 0; i < map->n && !ret; i++) {
		const struct view_ext *o = &map->e[i];
		uint64_t cur = o->b, end = o->b + o->n;

		while (cur < end && !ret) {
			while (j < top->n && top->e[j].b + top->e[j].n <= cur)
				j++;
			if (j < top->n && top->e[j].b < end) {
				if (top->e[j].b > cur)
					ret = push(&rest, &(struct view_ext){
						cur, top->e[j].b - cur, o->src,
						o->base + (cur - o->b) * bs });
				cur = top->e[j].b + top->e[j].n;
			} else {
				ret = push(&rest, &(struct view_ext){
					cur, end - cur, o->src,
					o->base + (cur - o->b) * bs });
				cur = end;
			}
		}
	}
	while (!ret && (a < rest.n || b < top->n)) {
		if (b == top->n || (a < rest.n && rest.e[a].b < top->e[b].b))
			ret = push(&out, &rest.e[a++]);
		else
			ret = push(&out, &top->e[b++]);
	}
	free(rest.e);
	if (ret) {
		free(out.e);
		return ret;
	}
	free(map->e);
	*map = out;
	return 0;
}

/* Sort top and lay it over the map; top emptied. */
static int lay(struct uchain *c, struct view_map *top)
{
	int ret;

	if (top->n > 1)
		sort_any(top->e, top->n, sizeof(*top->e), by_block);
	ret = overlay(&c->map, top, c->bs);
	top->n = 0;
	return ret;
}

/*
 * Pass k's references, last first: each block reads its copy as the
 * map has it then.  References resolve together until one's copy is a
 * block an earlier one of the group writes.
 */
static int add_refs(struct uchain *c, const struct scan *s)
{
	struct view_map top = { 0 };
	struct bitmap pend;
	bool dirty = false;
	size_t k;
	uint64_t i;
	int ret = 0;

	if (!s->nlv)
		return 0;
	if (bm_init(&pend, c->nblocks))
		return -ENOMEM;
	for (k = s->nrf; k-- > 0 && !ret;) {
		const struct scan_ref *f = &s->rf[k];
		bool hit = false;

		if (!f->live)
			continue;
		for (i = 0; dirty && !hit && i < f->n; i++)
			hit = bm_test(&pend, f->c + i);
		if (hit) {
			ret = lay(c, &top);
			bm_free(&pend);
			if (ret == 0 && bm_init(&pend, c->nblocks))
				ret = -ENOMEM;
			dirty = false;
		}
		if (ret == 0)
			ret = resolve(&c->map, c->bs, f->d, f->c, f->n, &top);
		if (ret == 0)
			ret = bm_set(&pend, f->d, f->n);
		dirty = true;
	}
	if (ret == 0 && top.n)
		ret = lay(c, &top);
	bm_free(&pend);
	free(top.e);
	return ret;
}

int chain_view_add(struct uchain *c, unsigned k)
{
	struct chain_member *m = &c->m[k];
	struct view_map top = { 0 };
	size_t i;
	int ret = 0;

	/* the vacated blocks' copies, then the references, then records */
	for (i = 0; i < m->v.ncp && !ret; i++)
		ret = resolve(&c->map, c->bs, m->v.cp[i].x, m->v.cp[i].y,
			      m->v.cp[i].n, &top);
	if (!ret && m->s.nlv) {
		ret = lay(c, &top);
		if (!ret)
			ret = add_refs(c, &m->s);
	}
	for (i = 0; i < m->s.n && !ret; i++) {
		const struct journal_rec *r = &m->s.v[i];

		ret = push(&top, &(struct view_ext){ r->off >> c->blocklog,
			   (r->len + c->bs - 1) >> c->blocklog, k,
			   r->pos + OD_UNDO_REC_LEN });
	}
	if (!ret)
		ret = lay(c, &top);
	free(top.e);
	return ret ? err_set(&m->why, -ENOMEM, "out of memory") : 0;
}

static int view_pread(struct img *im, void *buf, size_t len, uint64_t off)
{
	struct uchain *c = im->priv;
	struct img *raw = im->lower;
	uint8_t *p = buf;
	int ret = 0;

	while (len && !ret) {
		uint64_t b = off >> c->blocklog;
		size_t i = first_after(&c->map, b), n;
		const struct view_ext *e = i < c->map.n ? &c->map.e[i] : NULL;

		if (e && e->b <= b) {
			uint64_t in = off - (e->b << c->blocklog);
			uint64_t left = (e->n << c->blocklog) - in;
			struct err ignore = { 0 };

			n = left < len ? (size_t)left : len;
			if (e->src == 0)
				ret = img_pread(raw, p, n, e->base + in);
			else
				ret = scan_read_at(&c->m[e->src].s, p, n,
						   e->base + in, &ignore);
		} else {
			uint64_t left = e ? (e->b << c->blocklog) - off : len;

			n = left < len ? (size_t)left : len;
			ret = img_pread(raw, p, n, off);
		}
		p += n;
		off += n;
		len -= n;
	}
	return ret;
}

static int view_pwrite(struct img *im, const void *buf, size_t len,
		       uint64_t off)
{
	(void)im;
	(void)buf;
	(void)len;
	(void)off;
	return -EROFS;
}

static int view_flush(struct img *im)
{
	(void)im;
	return 0;
}

static void view_close(struct img *im)
{
	(void)im;
}

static const struct img_ops view_ops = {
	.name = "undo-view",
	.pread = view_pread,
	.pwrite = view_pwrite,
	.flush = view_flush,
	.close = view_close,
};

void chain_view_init(struct uchain *c)
{
	c->view.ops = &view_ops;
	c->view.priv = c;
	c->view.size = c->fs->img->size;
	c->view.writable = false;
	c->view.lower = undo_raw_img(c->fs);
}

void chain_view_free(struct uchain *c)
{
	free(c->map.e);
	memset(&c->map, 0, sizeof(c->map));
}

int chain_cmp(struct uchain *c, unsigned lo, unsigned hi, uint64_t *differ,
	      char *where, size_t len)
{
	struct bitmap covered;
	uint64_t first[UNDO_NFIRST];
	int nfirst = 0, ret = 0;
	unsigned k;

	*differ = 0;
	where[0] = '\0';
	if (bm_init(&covered, c->nblocks))
		return err_set(c->e, -ENOMEM, "out of memory");
	for (k = lo; k <= hi && !ret; k++) {
		struct chain_member *m = &c->m[k];

		ret = undo_cmp_records(&m->s, m->s.sealed ? &m->v.p : NULL,
				       c->fs, undo_raw_img(c->fs), &covered,
				       true, differ, first, &nfirst, c->e);
	}
	bm_free(&covered);
	if (ret == 0)
		undo_name_blocks(c->fs, first, nfirst, where, len);
	return ret;
}
