/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Paths of a few inodes, from the model's parent links: find each
 * wanted inode's parent, then the parent's parent, up to the root; then
 * read each parent directory once to learn the names.
 */
#include "core/model/model_paths.h"
#include "core/base/array.h"
#include "core/base/sort.h"
#include "core/fs/dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH	4096

struct node {
	uint64_t ino, parent;	/* parent 0: not known */
	char *name;
};

struct link_set {
	struct node *v;
	size_t n, cap;
	uint64_t bloom[64];	/* 4096 bits: most links are rejected here */
};

static unsigned bloom_bit(uint64_t ino)
{
	return (unsigned)((ino * 0x9e3779b97f4a7c15ull) >> 52);
}

static int cmp_node(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static struct node *pset_search(const struct link_set *s, uint64_t ino)
{
	struct node key = { ino, 0, NULL };

	return bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_node);
}

/* Inline: the pass over every link calls it for each, and the filter
 * answers nearly all of them. */
static inline struct node *pset_find(const struct link_set *s, uint64_t ino)
{
	unsigned b = bloom_bit(ino);

	if (!(s->bloom[b >> 6] & (1ull << (b & 63))))
		return NULL;
	return pset_search(s, ino);
}

static int pset_add(struct link_set *s, uint64_t ino)
{
	if (array_grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v), 64))
		return -ENOMEM;
	s->bloom[bloom_bit(ino) >> 6] |= 1ull << (bloom_bit(ino) & 63);
	s->v[s->n].ino = ino;
	s->v[s->n].parent = 0;
	s->v[s->n].name = NULL;
	s->n++;
	return 0;
}

/* Sort and drop duplicates. */
static void pset_sort(struct link_set *s)
{
	size_t i, j = 0;

	sort_any(s->v, s->n, sizeof(*s->v), cmp_node);
	for (i = 0; i < s->n; i++) {
		if (j && s->v[j - 1].ino == s->v[i].ino) {
			free(s->v[i].name);
			continue;
		}
		s->v[j++] = s->v[i];
	}
	s->n = j;
}

struct namectx {
	struct link_set *s;
	uint64_t parent;
};

static int name_cb(void *priv, const uint8_t *name, size_t len, uint64_t ino,
		   uint8_t ftype, struct err *e)
{
	struct namectx *nc = priv;
	struct node *nd;

	(void)ftype;
	(void)e;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	nd = pset_find(nc->s, ino);
	if (nd && nd->parent == nc->parent && !nd->name) {
		nd->name = malloc(len + 1);
		if (!nd->name)
			return -ENOMEM;
		memcpy(nd->name, name, len);
		nd->name[len] = '\0';
	}
	return 0;
}

static char *build(const struct link_set *s, uint64_t ino, uint64_t root)
{
	const char *parts[MAX_DEPTH];
	size_t n = 0, len = 1, i;
	char *p, *q;

	while (ino != root && n < MAX_DEPTH) {
		struct node *nd = pset_find(s, ino);

		if (!nd || !nd->parent || !nd->name) {
			char buf[48];

			snprintf(buf, sizeof(buf), "(inode %llu)",
				 (unsigned long long)ino);
			/* unreachable: name it by number */
			p = malloc(len + strlen(buf) + 1);
			if (!p)
				return NULL;
			strcpy(p, buf);
			q = p + strlen(buf);
			goto tail;
		}
		parts[n++] = nd->name;
		len += strlen(nd->name) + 1;
		ino = nd->parent;
	}
	p = malloc(len + 1);
	if (!p)
		return NULL;
	q = p;
tail:
	if (n == 0 && q == p) {
		strcpy(p, "/");
		return p;
	}
	for (i = n; i-- > 0;) {
		*q++ = '/';
		strcpy(q, parts[i]);
		q += strlen(parts[i]);
	}
	*q = '\0';
	return p;
}

int model_paths(const struct model *m, const uint64_t *inos, size_t n,
		char **out, struct err *e)
{
	uint64_t root = m->fs->sb.rootino;
	struct link_set s = { 0 };
	size_t i, done = 0;
	uint32_t a;
	int ret = 0;

	for (i = 0; i < n; i++)
		out[i] = NULL;
	for (i = 0; i < n; i++)
		if (pset_add(&s, inos[i]))
			goto nomem;
	pset_sort(&s);

	/* find parents, level by level, until every chain reaches the root */
	while (done < s.n) {
		size_t before = s.n, k;

		for (a = 0; a < m->agcount; a++) {
			const struct m_ag *ag = &m->ag[a];

			for (k = 0; k < ag->nlink; k++) {
				struct node *nd = pset_find(&s, ag->link[k].child);

				if (nd && !nd->parent && nd->ino != root)
					nd->parent = ag->link[k].parent;
			}
		}
		for (k = 0; k < before; k++)
			if (s.v[k].parent && s.v[k].parent != root &&
			    !pset_find(&s, s.v[k].parent) &&
			    pset_add(&s, s.v[k].parent))
				goto nomem;
		done = before;
		if (s.n == before)
			break;
		pset_sort(&s);
	}

	/* names: read each parent directory once */
	for (i = 0; i < s.n; i++) {
		uint64_t parent = s.v[i].parent;
		struct namectx nc = { &s, parent };
		struct dir d;
		size_t k;
		bool seen = false;

		if (!parent || s.v[i].name)
			continue;
		for (k = 0; k < i && !seen; k++)
			seen = s.v[k].parent == parent;
		if (seen)
			continue;
		if (dir_open(m->fs, parent, &d, e) == 0) {
			ret = dir_iterate(&d, name_cb, &nc, e);
			dir_close(&d);
			if (ret == -ENOMEM)
				goto nomem;
		}
		err_clear(e);
		ret = 0;
	}
	for (i = 0; i < n; i++) {
		out[i] = build(&s, inos[i], root);
		if (!out[i])
			goto nomem;
	}
	goto out;
nomem:
	ret = err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		free(out[i]);
		out[i] = NULL;
	}
out:
	for (i = 0; i < s.n; i++)
		free(s.v[i].name);
	free(s.v);
	return ret;
}
