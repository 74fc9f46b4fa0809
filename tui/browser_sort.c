/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Ordering and searching a directory listing: once per change, not per draw. */
#include "tui/tui.h"

#include <stdlib.h>
#include <string.h>

const char *browser_sort_name(enum br_sort s)
{
	static const char *const names[BS_NKEYS] = {
		"name", "type", "size", "extents", "files", "distance",
	};

	return (unsigned)s < BS_NKEYS ? names[s] : "?";
}

static int cmp_name(const struct browser *b, const struct br_ent *x,
		    const struct br_ent *y)
{
	size_t n = x->namelen < y->namelen ? x->namelen : y->namelen;
	int c = memcmp(b->names + x->name, b->names + y->name, n);

	if (c)
		return c;
	return x->namelen < y->namelen ? -1 : x->namelen > y->namelen;
}

static int type_rank(const struct br_ent *e)
{
	const char *t = draw_type_name(e->mode, e->ftype);

	if (strcmp(t, "dir") == 0)
		return 0;
	if (strcmp(t, "file") == 0)
		return 1;
	if (strcmp(t, "link") == 0)
		return 2;
	return 3;
}

/* Larger first; equal values fall through to the name. */
static int cmp_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int cmp_ent(const void *pa, const void *pb, void *priv)
{
	const struct browser *b = priv;
	const struct br_ent *x = pa, *y = pb;
	int c = 0;

	switch (b->sort) {
	case BS_TYPE:
		c = type_rank(x) - type_rank(y);
		break;
	case BS_SIZE:
		c = cmp_desc(x->size, y->size);
		break;
	case BS_EXTENTS:
		c = cmp_desc(x->nexts, y->nexts);
		break;
	case BS_FILES:
		c = cmp_desc(x->files, y->files);
		break;
	case BS_DIST:
		/* unknown distances after every known one */
		c = cmp_desc(x->flags & BE_DIST ? x->dist + 1 : 0,
			     y->flags & BE_DIST ? y->dist + 1 : 0);
		break;
	default:
		break;
	}
	if (!c)
		c = cmp_name(b, x, y);
	if (!c)
		c = x->ino < y->ino ? -1 : x->ino > y->ino;
	return b->rev ? -c : c;
}

void browser_sort(struct browser *b)
{
	/* an entry's name offset is unique: keep the selection on it */
	uint32_t sel = b->n && b->cur < b->n ? b->ent[b->cur].name : 0;
	size_t i;

	qsort_r(b->ent, b->n, sizeof(*b->ent), cmp_ent, b);
	for (i = 0; i < b->n; i++) {
		if (b->ent[i].name == sel) {
			b->cur = i;
			break;
		}
	}
}

long browser_find(const struct browser *b, size_t from, const char *q,
		  int dir)
{
	size_t qlen = strlen(q), k, i;

	if (!b->n || !qlen)
		return -1;
	for (k = 1; k <= b->n; k++) {
		i = dir > 0 ? (from + k) % b->n : (from + b->n - k) % b->n;
		if (memmem(b->names + b->ent[i].name, b->ent[i].namelen, q,
			   qlen))
			return (long)i;
	}
	return -1;
}
