/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parent pointers (the parent feature; ondisk/pptr.h) against the
 * directory entries they mirror, as xfs_repair 6.15 (repair/pptr.c)
 * holds them: every entry but "." and ".." has a parent pointer on the
 * inode it names with the same name, the directory's inode number and
 * its generation, and every parent pointer has such an entry.  Each
 * pointer's own form is judged where its attribute is read: a 12-byte
 * local value naming a directory inode, a name a directory entry could
 * have, and in a leaf block the hash of name and parent.
 *
 * The directories' and attribute forks' checks, on the threads of the
 * inodes phase, note both sides in their AG's list (the directory's AG
 * for entries, the inode's AG for pointers) with the name in the AG's
 * pool; once every AG is done, check_pptrs sorts them all together by
 * inode, parent and name, and pairs them off.  An inode whose attribute
 * fork could not be read whole, or whose inode is damaged, gets no
 * verdict; nor does anything when a directory could not be read.
 */
#include "core/check/check_int.h"
#include "core/base/bigmem.h"
#include "core/base/sort.h"
#include "ondisk/pptr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 64-bit FNV-1a of a name: equal names, equal digests. */
static uint64_t digest(const uint8_t *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= name[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void note(struct check_ctx *c, struct check_ag *ca, uint8_t kind,
		 uint64_t child, uint64_t parent, uint32_t gen,
		 const uint8_t *name, size_t len)
{
	struct check_pp *p;

	if (len > 255)
		len = 255;
	if (bigmem_grow((void **)&ca->pp, &ca->cap_pp, ca->npp,
			sizeof(*ca->pp)) ||
	    ca->names_len + len > UINT32_MAX) {
		check_fatal(c, -ENOMEM);
		return;
	}
	/* bigmem_grow makes room for one more: a name may need more */
	while (ca->names_len + len >= ca->cap_names)
		if (bigmem_grow_slow((void **)&ca->names, &ca->cap_names,
				     ca->cap_names, 1)) {
			check_fatal(c, -ENOMEM);
			return;
		}
	p = &ca->pp[ca->npp++];
	p->child = child;
	p->parent = parent;
	p->digest = digest(name, len);
	p->gen = gen;
	p->name = (uint32_t)ca->names_len;
	p->namelen = (uint8_t)len;
	p->kind = kind;
	p->agno = ca->agno;
	if (len)	/* an unknown mark has no name (NULL) */
		memcpy(ca->names + ca->names_len, name, len);
	ca->names_len += len;
}

void check_pptr_dirent(struct check_ctx *c, struct check_ag *ca,
		       uint64_t dir, uint32_t dirgen, const uint8_t *name,
		       size_t len, uint64_t ino)
{
	if (c->g->parent)
		note(c, ca, CPP_DIRENT, ino, dir, dirgen, name, len);
}

static void pptr_bad(struct check_ag *ca, uint64_t ino, const uint8_t *name,
		     size_t len, const char *msg)
{
	check_problem(&ca->log, PPTR, (unsigned long long)ino,
		      (int)(len > 64 ? 64 : len), (const char *)name, msg);
}

bool check_pptr_attr(struct check_ctx *c, struct check_ag *ca, uint64_t ino,
		     const uint8_t *name, size_t namelen, const uint8_t *value,
		     size_t valuelen, bool local, const uint32_t *hash)
{
	struct od_pptr_rec r;
	uint32_t want;
	char msg[96];

	if (!c->g->parent) {
		pptr_bad(ca, ino, name, namelen, "a parent pointer without "
			 "the parent feature");
		return false;
	}
	if (!local || !value || !od_pptr_decode(value, valuelen, &r)) {
		snprintf(msg, sizeof(msg), "its value is %s%zu bytes, not a "
			 "12-byte parent record", local ? "" : "remote, ",
			 valuelen);
		pptr_bad(ca, ino, name, namelen, msg);
		return false;
	}
	if (!od_pptr_name_ok(name, namelen)) {
		pptr_bad(ca, ino, name, namelen, "not a name a directory "
			 "entry can have (a '/' or NUL, or too long)");
		return false;
	}
	if (!od_ino_valid(c->g, r.ino)) {
		snprintf(msg, sizeof(msg), "parent %llu is not an inode "
			 "number", (unsigned long long)r.ino);
		pptr_bad(ca, ino, name, namelen, msg);
		return false;
	}
	want = od_pptr_hash(name, namelen, r.ino,
			    od_sb_has_asciici(&c->fs->sb));
	if (hash && *hash != want) {
		snprintf(msg, sizeof(msg), "hash 0x%x, the name and parent "
			 "%llu hash to 0x%x", *hash,
			 (unsigned long long)r.ino, want);
		pptr_bad(ca, ino, name, namelen, msg);
		return false;
	}
	note(c, ca, CPP_PPTR, ino, r.ino, r.gen, name, namelen);
	return true;
}

void check_pptr_unknown(struct check_ctx *c, struct check_ag *ca,
			uint64_t ino)
{
	if (c->g->parent)
		note(c, ca, CPP_UNKNOWN, ino, 0, 0, NULL, 0);
}

static const uint8_t *name_of(const struct check_ctx *c,
			      const struct check_pp *p)
{
	return c->cag[p->agno].names + p->name;
}

static int cmp_pp(const void *a, const void *b)
{
	const struct check_pp *x = a, *y = b;

	if (x->child != y->child)
		return x->child < y->child ? -1 : 1;
	/* an inode's "unknown" mark first, ahead of its records */
	if ((x->kind == CPP_UNKNOWN) != (y->kind == CPP_UNKNOWN))
		return x->kind == CPP_UNKNOWN ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->digest != y->digest)
		return x->digest < y->digest ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return 0;
}

/* Is inode ino's link count left without a verdict (damaged, unread)? */
static bool no_verdict(const struct check_ctx *c, uint64_t ino)
{
	const struct m_ag *agp = NULL;
	const struct m_ino *mi;
	const struct check_ag *ca;

	if (!od_ino_valid(c->g, ino))
		return false;
	mi = model_find(c->m, ino, &agp);
	if (!mi)
		return false;
	ca = &c->cag[agp->agno];
	return (mi->flags & MI_DAMAGED) ||
	       (ca->skip_nlink && ca->skip_nlink[mi - agp->ino]);
}

static void report(struct check_ctx *c, const struct check_pp *p,
		   const struct check_pp *twin)
{
	struct check_ag *ca = &c->cag[od_ino_valid(c->g, p->child) ?
				      od_ino_agno(c->g, p->child) : 0];
	int nl = p->namelen > 64 ? 64 : p->namelen;
	const char *name = (const char *)name_of(c, p);

	if (twin) {
		check_problem(&ca->log, PPTR_GEN,
			      (unsigned long long)p->child, nl, name,
			      (unsigned long long)p->parent, p->gen,
			      twin->gen);
	} else if (p->kind == CPP_DIRENT) {
		check_problem(&ca->log, PPTR_MISSING,
			      (unsigned long long)p->child, nl, name,
			      (unsigned long long)p->parent);
	} else {
		check_problem(&ca->log, PPTR_DANGLING,
			      (unsigned long long)p->child, nl, name,
			      (unsigned long long)p->parent, p->gen);
	}
}

void check_pptrs(struct check_ctx *c)
{
	struct check_pp *v = NULL;
	size_t n = 0, cap, i, j;
	uint32_t a;

	if (!c->g->parent)
		return;
	for (a = 0; a < c->g->agcount; a++)
		n += c->cag[a].npp;
	cap = n ? n : 1;
	v = bigmem_calloc(cap, sizeof(*v));
	if (!v) {
		check_fatal(c, -ENOMEM);
		return;
	}
	n = 0;
	for (a = 0; a < c->g->agcount; a++) {
		struct check_ag *ca = &c->cag[a];

		if (ca->npp)
			memcpy(v + n, ca->pp, ca->npp * sizeof(*v));
		n += ca->npp;
		bigmem_free(ca->pp, ca->cap_pp, sizeof(*ca->pp));
		ca->pp = NULL;
		ca->npp = ca->cap_pp = 0;
	}
	sort_any(v, n, sizeof(*v), cmp_pp);
	for (i = 0; i < n; i = j) {
		uint64_t child = v[i].child;
		bool skip = v[i].kind == CPP_UNKNOWN || no_verdict(c, child);

		for (j = i; j < n && v[j].child == child; j++)
			;
		if (skip)
			continue;
		for (size_t k = i; k < j; k++) {
			const struct check_pp *p = &v[k], *q = k + 1 < j ?
						   &v[k + 1] : NULL;

			/* an entry and its pointer sort next to each other */
			if (q && p->kind == CPP_DIRENT && q->kind == CPP_PPTR &&
			    q->parent == p->parent && q->digest == p->digest &&
			    q->namelen == p->namelen &&
			    memcmp(name_of(c, p), name_of(c, q),
				   p->namelen) == 0) {
				if (q->gen != p->gen)
					report(c, q, p);
				k++;
				continue;
			}
			report(c, p, NULL);
		}
	}
	bigmem_free(v, cap, sizeof(*v));
}

void check_pptr_free(struct check_ag *ca)
{
	bigmem_free(ca->pp, ca->cap_pp, sizeof(*ca->pp));
	bigmem_free(ca->names, ca->cap_names, 1);
	ca->pp = NULL;
	ca->names = NULL;
	ca->npp = ca->cap_pp = ca->names_len = ca->cap_names = 0;
}
