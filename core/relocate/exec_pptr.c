// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parent pointers in a renumbering run (the parent feature; see
 * ondisk/pptr.h).  Every entry of a directory has a parent pointer on
 * the inode it names, whose value holds the directory's number (and
 * generation, which a move keeps) and whose name hash mixes that number
 * in.  So when a directory moves, every inode it names gets its parent
 * pointers to it rewritten: the number, and in attr leaf blocks the
 * hash, after which the entries are sorted again.  In a node-format
 * attr fork that can upset the order across leaves: then every
 * attribute of the fork is dealt out again over the same leaf blocks in
 * hash order, and the nodes' hash values follow.
 *
 * The inodes named by a moved directory come from the model's links.
 * A shortform attr fork lives in the inode (exec_inodes.c asks
 * exec_pptr_sf); attr blocks are rewritten after the forks phase, when
 * every block is at its final place (exec_irefs.c asks
 * exec_pptr_blocks, which sets the blocks' v5 owner too).
 */
#include "core/relocate/exec_priv.h"
#include "core/base/sort.h"
#include "core/fs/fork.h"
#include "ondisk/attr.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/da.h"
#include "ondisk/inode.h"
#include "ondisk/pptr.h"
#include "ondisk/renum.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int exec_pptr_prepare(struct xctx *x)
{
	size_t n = 0, cap = 0, i, k;
	uint64_t *v = NULL;
	uint32_t a;

	if (!x->xr || !x->g->parent)
		return 0;
	for (a = 0; a < x->m->agcount; a++) {
		const struct m_ag *ag = &x->m->ag[a];

		for (i = 0; i < ag->nlink; i++) {
			const struct m_link *l = &ag->link[i];

			if (xr_new(x, l->parent) == l->parent)
				continue;
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 1024;
				uint64_t *nv = realloc(v, nc * sizeof(*nv));

				if (!nv) {
					free(v);
					return err_set(x->e, -ENOMEM,
						       "out of memory");
				}
				v = nv;
				cap = nc;
			}
			v[n++] = l->child;
		}
	}
	sort_any(v, n, sizeof(*v), cmp_u64);
	for (i = k = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	x->pptr = v;
	x->npptr = k;
	x->st->pptr_inodes = k;
	return 0;
}

void exec_pptr_release(struct xctx *x)
{
	free(x->pptr);
	x->pptr = NULL;
	x->npptr = 0;
}

bool exec_pptr_target(const struct xctx *x, uint64_t ino)
{
	size_t lo = 0, hi = x->npptr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->pptr[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->npptr && x->pptr[lo] == ino;
}

/*
 * A parent pointer's value, if name/value is one naming a moved
 * directory: rewritten in place, its new hash in *hash.  1 then.
 */
static int fix_value(struct xctx *x, uint8_t flags, const uint8_t *name,
		     uint32_t namelen, uint8_t *value, uint32_t valuelen,
		     uint32_t *hash)
{
	struct od_pptr_rec r;
	uint64_t n;

	if (!(flags & OD_ATTR_PARENT) || !(flags & OD_ATTR_LOCAL) ||
	    !od_pptr_decode(value, valuelen, &r))
		return 0;
	n = xr_new(x, r.ino);
	if (n == r.ino)
		return 0;
	r.ino = n;
	od_pptr_encode(value, &r);
	*hash = od_pptr_hash(name, namelen, n, od_sb_has_asciici(&x->fs->sb));
	x->st->pptr_rewritten++;
	return 1;
}

int exec_pptr_sf(struct xctx *x, uint8_t *raw, uint64_t ino)
{
	struct od_attr_sf_hdr h;
	struct od_inode di;
	const char *field;
	uint32_t pos, i, hash;
	uint8_t *fork;
	int changed = 0;

	if (!x->g->parent || !exec_pptr_target(x, ino))
		return 0;
	/* fix_sf may have changed it before us: its CRC is not final */
	if (od_inode_decode_crc_ok(raw, x->g->inodesize, x->g, ino, &di,
				   &field) != OD_OK)
		return err_set(x->e, -EFSCORRUPTED, "inode %llu: does not "
			       "decode (%s)", (unsigned long long)ino,
			       field ? field : "?");
	if (!di.forkoff || di.aformat != OD_FMT_LOCAL)
		return 0;
	fork = raw + di.afork_off;
	if (od_attr_sf_hdr(fork, di.afork_len, &h) ||
	    h.totsize > di.afork_len)
		return err_set(x->e, -EFSCORRUPTED, "inode %llu: shortform "
			       "attributes do not decode",
			       (unsigned long long)ino);
	pos = OD_ATTR_SF_HDR_LEN;
	for (i = 0; i < h.count; i++) {
		struct od_attr_sf_ent e;
		uint32_t at = pos;

		if (od_attr_sf_entry(fork, h.totsize, &pos, &e))
			return err_set(x->e, -EFSCORRUPTED, "inode %llu: "
				       "shortform attribute %u runs past its "
				       "fork", (unsigned long long)ino, i);
		/* shortform entries are not hashed */
		changed |= fix_value(x, e.flags | OD_ATTR_LOCAL, e.name,
				     e.namelen, fork + at + OD_ATTR_SF_ENT_LEN +
				     e.namelen, e.valuelen, &hash);
	}
	return changed;
}

/* ---- attr blocks ---------------------------------------------------- */

struct ablk {
	uint64_t fo, lin;
	uint8_t *data;
	bool dirty;
};

struct item {
	struct od_attr_item it;	/* it.name: set from off when written */
	size_t off;		/* name (and value) in the arena */
	size_t seq;		/* order found: ties keep it */
	size_t leaf;		/* which leaf it was in */
};

struct afork {
	struct xctx *x;
	struct ablk *b;
	size_t nb;
	size_t *leaf;		/* leaves in hash order: indexes into b */
	size_t nleaf;
	struct item *v;
	size_t nv;
	uint8_t *arena;
	size_t narena;
	uint64_t ino;
};

static struct ablk *blk_at(struct afork *f, uint64_t fo)
{
	size_t lo = 0, hi = f->nb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->b[mid].fo < fo)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nb && f->b[lo].fo == fo ? &f->b[lo] : NULL;
}

static uint16_t blk_magic(const struct ablk *b)
{
	return od_da_magic(b->data);
}

static int bad(struct afork *f, const char *what)
{
	return err_set(f->x->e, -EFSCORRUPTED, "inode %llu: attr fork: %s",
		       (unsigned long long)f->ino, what);
}

/* The leaves under fork block fo, in hash order, into f->leaf. */
static int find_leaves(struct afork *f, uint64_t fo, unsigned depth)
{
	const struct od_geo *g = f->x->g;
	struct ablk *b = blk_at(f, fo);
	struct od_da_node node;
	const char *field;
	uint32_t i, hash, before;
	int ret;

	if (!b || depth > OD_BTREE_MAXLEVELS_ANY)
		return bad(f, "a dabtree block is missing or the tree loops");
	if (blk_magic(b) == OD_ATTR3_LEAF_MAGIC) {
		f->leaf[f->nleaf++] = (size_t)(b - f->b);
		return 0;
	}
	if (od_da_node_decode(b->data, g->blocksize, g, &node, &field))
		return bad(f, "a node block does not decode");
	for (i = 0; i < node.count; i++) {
		od_da_node_entry(b->data, &node, i, &hash, &before);
		ret = find_leaves(f, before, depth + 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* Every attribute of the leaves, copied out, parent pointers fixed. */
static int collect_items(struct afork *f, bool *changed)
{
	const struct od_geo *g = f->x->g;
	size_t l, total = 0;
	int ret;

	*changed = false;
	for (l = 0; l < f->nleaf; l++) {
		const uint8_t *buf = f->b[f->leaf[l]].data;
		struct od_attr_leaf_hdr h;
		const char *field;
		uint32_t i;

		if (od_attr_leaf_hdr(buf, g->blocksize, g, &h, &field))
			return bad(f, "a leaf block does not decode");
		for (i = 0; i < h.count; i++) {
			struct od_attr_leaf_ent e;
			struct item *it;
			uint32_t vlen;
			uint8_t *dst;

			if (h.hdr_len + 8ull * (i + 1) > g->blocksize)
				return bad(f, "leaf entries overrun the block");
			od_attr_leaf_entry(buf, &h, i, &e);
			if (od_attr_leaf_name(buf, g->blocksize, &e))
				return bad(f, "a leaf name overruns the block");
			vlen = (e.flags & OD_ATTR_LOCAL) ? e.valuelen : 0;
			if (f->narena + e.namelen + vlen > total) {
				size_t nt = (total + e.namelen + vlen) * 2 +
					    4096;
				uint8_t *na = realloc(f->arena, nt);

				if (!na)
					return err_set(f->x->e, -ENOMEM,
						       "out of memory");
				f->arena = na;
				total = nt;
			}
			dst = f->arena + f->narena;
			memcpy(dst, e.name, e.namelen + vlen);
			f->narena += e.namelen + vlen;
			it = &f->v[f->nv];
			it->it.hash = e.hash;
			it->it.flags = e.flags;
			it->it.namelen = e.namelen;
			it->it.valuelen = e.valuelen;
			it->it.valueblk = e.valueblk;
			it->it.name = NULL;
			it->off = f->narena - e.namelen - vlen;
			it->seq = f->nv;
			it->leaf = l;
			f->nv++;
			ret = fix_value(f->x, e.flags, dst, e.namelen,
					dst + e.namelen, vlen, &it->it.hash);
			if (ret)
				*changed = true;
		}
	}
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->it.hash != y->it.hash)
		return x->it.hash < y->it.hash ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_item_leaf(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	return cmp_item(a, b);
}

/* Fill leaf l with items v[from, to). */
static int fill_leaf(struct afork *f, size_t l, size_t from, size_t to)
{
	const struct od_geo *g = f->x->g;
	struct ablk *b = &f->b[f->leaf[l]];
	struct od_attr_item *it;
	size_t k;
	int ret;

	it = malloc((to - from ? to - from : 1) * sizeof(*it));
	if (!it)
		return err_set(f->x->e, -ENOMEM, "out of memory");
	for (k = from; k < to; k++) {
		it[k - from] = f->v[k].it;
		it[k - from].name = f->arena + f->v[k].off;
	}
	ret = od_attr_leaf_fill(b->data, g->blocksize, g, it, to - from);
	free(it);
	if (ret)
		return bad(f, ret == -ENOSPC ? "the attributes no longer fit "
			   "their leaf blocks in hash order" :
			   "a leaf block is not one");
	b->dirty = true;
	return 0;
}

/*
 * Deal the items (sorted by hash) out over the leaves in order: each
 * leaf gets about its share of the bytes, never more than it holds, and
 * at least one item.
 */
static int deal(struct afork *f)
{
	uint32_t room = od_attr_leaf_room(f->x->g->blocksize);
	uint64_t left = 0;
	size_t i = 0, l, k;
	int ret;

	for (k = 0; k < f->nv; k++)
		left += od_attr_item_bytes(&f->v[k].it);
	for (l = 0; l < f->nleaf; l++) {
		size_t leaves = f->nleaf - l, from = i;
		uint64_t share = (left + leaves - 1) / leaves, took = 0;

		while (i < f->nv) {
			uint32_t sz = od_attr_item_bytes(&f->v[i].it);

			if (took + sz > room)
				break;
			/* past its share, or the leaves after it would
			 * be left without an item each */
			if (i > from && (took >= share || f->nv - i < leaves))
				break;
			took += sz;
			i++;
		}
		if (i == from)
			return bad(f, "too few attributes for the leaves");
		left -= took;
		ret = fill_leaf(f, l, from, i);
		if (ret)
			return ret;
	}
	if (i != f->nv)
		return bad(f, "the attributes no longer fit their leaf blocks "
			   "in hash order");
	return 0;
}

/* The last hash under fork block fo; node hash values set on the way. */
static int set_hashes(struct afork *f, uint64_t fo, unsigned depth,
		      uint32_t *last)
{
	const struct od_geo *g = f->x->g;
	struct ablk *b = blk_at(f, fo);
	struct od_attr_leaf_hdr h;
	struct od_attr_leaf_ent ent;
	struct od_da_node node;
	const char *field;
	uint32_t i, hash, before, child;
	int ret;

	if (!b || depth > OD_BTREE_MAXLEVELS_ANY)
		return bad(f, "a dabtree block is missing or the tree loops");
	if (blk_magic(b) == OD_ATTR3_LEAF_MAGIC) {
		if (od_attr_leaf_hdr(b->data, g->blocksize, g, &h, &field) ||
		    !h.count || h.hdr_len + 8ull * h.count > g->blocksize)
			return bad(f, "a leaf block is empty or undecodable");
		od_attr_leaf_entry(b->data, &h, h.count - 1u, &ent);
		*last = ent.hash;
		return 0;
	}
	if (od_da_node_decode(b->data, g->blocksize, g, &node, &field) ||
	    !node.count)
		return bad(f, "a node block does not decode");
	for (i = 0; i < node.count; i++) {
		od_da_node_entry(b->data, &node, i, &hash, &before);
		ret = set_hashes(f, before, depth + 1, &child);
		if (ret)
			return ret;
		if (child != hash) {
			od_da_node_set_hash(b->data, &node, i, child);
			b->dirty = true;
		}
	}
	if (b->dirty)
		od_cksum_set(b->data, g->blocksize, OD_DA3_CRC_OFF);
	*last = child;
	return 0;
}

/* Rewrite the leaves: in place when hash order holds across them. */
static int relayout(struct afork *f)
{
	size_t l, k, from;
	bool ordered = true;
	uint32_t last, prev_hi = 0;
	int ret;

	sort_any(f->v, f->nv, sizeof(*f->v), cmp_item_leaf);
	for (k = 0; k < f->nv; k++) {
		if (k && f->v[k].leaf != f->v[k - 1].leaf) {
			if (f->v[k].it.hash < prev_hi)
				ordered = false;
		}
		prev_hi = f->v[k].it.hash;
	}
	if (ordered) {
		for (l = 0, k = 0; l < f->nleaf; l++) {
			from = k;
			while (k < f->nv && f->v[k].leaf == l)
				k++;
			ret = fill_leaf(f, l, from, k);
			if (ret)
				return ret;
		}
	} else {
		sort_any(f->v, f->nv, sizeof(*f->v), cmp_item);
		ret = deal(f);
		if (ret)
			return ret;
		f->x->st->pptr_forks_dealt++;
	}
	return f->nleaf > 1 || blk_magic(&f->b[0]) != OD_ATTR3_LEAF_MAGIC ?
	       set_hashes(f, 0, 0, &last) : 0;
}

int exec_pptr_blocks(struct xctx *x, const struct extmap *em, uint64_t ino,
		     uint64_t nino, exec_queue_fn queue, void *q)
{
	const struct od_geo *g = x->g;
	struct afork f = { .x = x, .ino = ino };
	size_t i, nb = 0, k;
	uint64_t j;
	bool changed = false;
	int ret = 0;

	for (i = 0; i < em->n; i++)
		nb += em->v[i].blockcount;
	f.b = calloc(nb ? nb : 1, sizeof(*f.b));
	f.leaf = malloc((nb ? nb : 1) * sizeof(*f.leaf));
	if (!f.b || !f.leaf) {
		ret = err_set(x->e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < em->n && !ret; i++)
		for (j = 0; j < em->v[i].blockcount && !ret; j++) {
			struct ablk *b = &f.b[f.nb++];

			b->fo = em->v[i].startoff + j;
			b->lin = od_fsb_lin(g, em->v[i].startblock + j);
			b->data = malloc(g->blocksize);
			if (!b->data)
				ret = err_set(x->e, -ENOMEM, "out of memory");
			else
				ret = x_read(x, b->lin, b->data, 1,
					     "attr block");
		}
	if (ret || !f.nb || f.b[0].fo != 0)
		goto own;
	ret = find_leaves(&f, 0, 0);
	/* no more items than a leaf has entries, all leaves together */
	for (k = 0; !ret && k < f.nleaf; k++) {
		struct od_attr_leaf_hdr h;
		const char *field;

		/* one that does not decode stops collect_items */
		if (!od_attr_leaf_hdr(f.b[f.leaf[k]].data, g->blocksize, g,
				      &h, &field))
			f.nv += h.count;
	}
	if (!ret) {
		f.v = malloc((f.nv ? f.nv : 1) * sizeof(*f.v));
		if (!f.v)
			ret = err_set(x->e, -ENOMEM, "out of memory");
		f.nv = 0;
	}
	if (!ret)
		ret = collect_items(&f, &changed);
	if (!ret && changed)
		ret = relayout(&f);
own:
	for (i = 0; i < f.nb && !ret; i++) {
		struct ablk *b = &f.b[i];

		if (nino != ino &&
		    od_selfowner_set(b->data, g->blocksize, OD_SELF_ATTR,
				     nino) > 0)
			b->dirty = true;
		if (b->dirty)
			ret = queue(q, b->lin, b->data);
	}
out:
	for (i = 0; i < f.nb; i++)
		free(f.b[i].data);
	free(f.b);
	free(f.leaf);
	free(f.v);
	free(f.arena);
	return ret;
}
