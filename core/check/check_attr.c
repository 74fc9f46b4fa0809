/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Attribute forks, as the kernel's verifiers (xfs_attr_shortform_verify,
 * xfs_attr3_leaf_verify, the remote value verifier) and xfs_repair
 * (process_shortform_attr, process_leaf_attr_block) see them:
 *   - shortform: entries tiling the header's totsize exactly, within the
 *     fork, names not empty, known namespace flags (one at most), no
 *     incomplete entries;
 *   - leaf blocks: header bounds (firstused, the entry array, the free
 *     map), entries in hash order, each name's structure inside the
 *     block and overlapping nothing, its hash the name's hash, usedbytes
 *     the sum of them, no incomplete entries;
 *   - the dabtree above the leaves (check_da.c);
 *   - remote values: every block mapped, and on v5 each block's header
 *     naming this inode, its address, the offset and length of its part.
 */
#include "core/check/check_dir.h"
#include "core/base/bigmem.h"
#include "core/fs/fork.h"
#include "ondisk/attr.h"
#include "ondisk/dahash.h"
#include "ondisk/selfhdr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_MASK		(OD_ATTR_ROOT | OD_ATTR_SECURE | OD_ATTR_PARENT)
#define RMT_MAX		(64 * 1024)	/* XFS_XATTR_SIZE_MAX */

struct remote_loc {
	uint32_t blk, len;	/* first fork block, value bytes */
};

struct actx {
	struct check_ctx *c;
	struct check_ag *ca;
	const struct inode *ip;
	unsigned long long ino;
	unsigned problems;
	struct extmap map;
	uint8_t *used;		/* bytes of a leaf block in use */
	struct remote_loc *rmt;
	size_t nrmt, cap_rmt;
	uint8_t *buf;
};

static bool capped(struct actx *a)
{
	if (a->problems++ < DIRCK_MAX_PROBLEMS)
		return false;
	a->ca->log.count++;
	return true;
}

static void sf_bad(struct actx *a, const char *msg)
{
	if (!capped(a))
		check_problem(&a->ca->log, ATTR_SF, a->ino, msg);
}

static void leaf_bad(struct actx *a, uint64_t blk, const char *msg)
{
	if (!capped(a))
		check_problem(&a->ca->log, ATTR_LEAF, a->ino,
			      (unsigned long long)blk, msg);
}

static void ent_bad(struct actx *a, uint64_t blk, uint32_t i, const char *msg)
{
	if (!capped(a))
		check_problem(&a->ca->log, ATTR_ENTRY, a->ino,
			      (unsigned long long)blk, i, msg);
}

/* More than one namespace bit, or one the kernel does not know. */
static bool ns_ok(uint8_t flags, uint8_t known)
{
	uint8_t ns = flags & NS_MASK;

	return !(flags & ~known) && !(ns & (ns - 1));
}

static void shortform(struct actx *a)
{
	const struct od_inode *di = &a->ip->di;
	uint32_t len, pos, i;
	const uint8_t *fork = inode_fork(a->ip, FORK_ATTR, &len);
	struct od_attr_sf_hdr h;
	char msg[128];

	if (!fork || od_attr_sf_hdr(fork, len, &h)) {
		sf_bad(a, "no room for the header");
		return;
	}
	if (h.totsize < OD_ATTR_SF_HDR_LEN || h.totsize > di->afork_len) {
		snprintf(msg, sizeof(msg), "totsize %u does not fit the fork "
			 "(%u bytes)", h.totsize, di->afork_len);
		sf_bad(a, msg);
		return;
	}
	pos = OD_ATTR_SF_HDR_LEN;
	for (i = 0; i < h.count; i++) {
		struct od_attr_sf_ent e;
		uint32_t at = pos;

		/* xfs_attr_shortform_verify: the fixed part before the end */
		if (pos + OD_ATTR_SF_ENT_LEN >= h.totsize ||
		    od_attr_sf_entry(fork, h.totsize, &pos, &e)) {
			snprintf(msg, sizeof(msg), "entry %u (at byte %u) runs "
				 "past totsize %u", i, at, h.totsize);
			sf_bad(a, msg);
			return;
		}
		if (e.namelen == 0 || memchr(e.name, 0, e.namelen) ||
		    !ns_ok(e.flags, NS_MASK) ||
		    (e.flags & OD_ATTR_INCOMPLETE)) {
			snprintf(msg, sizeof(msg), "entry %u: name length %u, "
				 "flags 0x%x", i, e.namelen, e.flags);
			sf_bad(a, msg);
		} else if ((e.flags & OD_ATTR_PARENT) &&
			   !check_pptr_attr(a->c, a->ca, a->ino, e.name,
					    e.namelen, e.name + e.namelen,
					    e.valuelen, true, NULL)) {
			a->problems++;
		}
	}
	if (pos != h.totsize) {
		snprintf(msg, sizeof(msg), "%u entries end at byte %u, "
			 "totsize is %u", h.count, pos, h.totsize);
		sf_bad(a, msg);
	}
}

/* Mark [s, e) of the block in use; false if some of it already was. */
static bool claim(uint8_t *used, uint32_t s, uint32_t e)
{
	uint32_t i;
	bool ok = true;

	for (i = s; i < e; i++) {
		if (used[i])
			ok = false;
		used[i] = 1;
	}
	return ok;
}

static int keep_rmt(struct actx *a, uint32_t blk, uint32_t len)
{
	if (bigmem_grow((void **)&a->rmt, &a->cap_rmt, a->nrmt,
			sizeof(*a->rmt)))
		return -ENOMEM;
	a->rmt[a->nrmt].blk = blk;
	a->rmt[a->nrmt].len = len;
	a->nrmt++;
	return 0;
}

/* One entry's name structure; its size added to *usedbytes. */
static int leaf_entry(struct actx *a, uint64_t blk, const uint8_t *buf,
		      const struct od_attr_leaf_hdr *h, uint32_t i,
		      struct od_attr_leaf_ent *e, uint32_t *usedbytes)
{
	uint32_t bs = a->c->g->blocksize;
	char msg[96];

	if (e->nameidx < h->firstused || e->nameidx >= bs) {
		snprintf(msg, sizeof(msg), "nameidx %u outside the name area "
			 "(%u-%u)", e->nameidx, h->firstused, bs);
		ent_bad(a, blk, i, msg);
		return -1;
	}
	if (e->flags & OD_ATTR_INCOMPLETE) {
		ent_bad(a, blk, i, "incomplete (an interrupted set)");
		return -1;
	}
	if (!ns_ok(e->flags, NS_MASK | OD_ATTR_LOCAL)) {
		snprintf(msg, sizeof(msg), "flags 0x%x", e->flags);
		ent_bad(a, blk, i, msg);
		return -1;
	}
	if (od_attr_leaf_name(buf, bs, e)) {
		ent_bad(a, blk, i, "its name runs past the block");
		return -1;
	}
	if (e->namelen == 0 || memchr(e->name, 0, e->namelen)) {
		ent_bad(a, blk, i, "empty name, or a NUL byte in it");
		return -1;
	}
	if (!(e->flags & OD_ATTR_LOCAL) &&
	    (e->valueblk == 0 || e->valuelen == 0 || e->valuelen > RMT_MAX)) {
		snprintf(msg, sizeof(msg), "remote value block %u, length %u",
			 e->valueblk, e->valuelen);
		ent_bad(a, blk, i, msg);
		return -1;
	}
	/* parent pointers hash differently (and are not ours to write) */
	if (!(e->flags & OD_ATTR_PARENT) &&
	    e->hash != od_da_hashname(e->name, e->namelen)) {
		snprintf(msg, sizeof(msg), "hash 0x%x, the name hashes to 0x%x",
			 e->hash, od_da_hashname(e->name, e->namelen));
		ent_bad(a, blk, i, msg);
		return -1;
	}
	if (!claim(a->used, e->nameidx, e->nameidx + e->size)) {
		ent_bad(a, blk, i, "its name overlaps another's");
		return -1;
	}
	if ((e->flags & OD_ATTR_PARENT) &&
	    !check_pptr_attr(a->c, a->ca, a->ino, e->name, e->namelen,
			     (e->flags & OD_ATTR_LOCAL) ?
			     e->name + e->namelen : NULL, e->valuelen,
			     e->flags & OD_ATTR_LOCAL, &e->hash))
		a->problems++;
	*usedbytes += e->size;
	if (!(e->flags & OD_ATTR_LOCAL) &&
	    keep_rmt(a, e->valueblk, e->valuelen)) {
		check_fatal(a->c, -ENOMEM);
		return -ENOMEM;
	}
	return 0;
}

/* xfs_attr3_leaf_verify's header and free map bounds. */
static int leaf_header(struct actx *a, uint64_t blk,
		       const struct od_attr_leaf_hdr *h)
{
	uint32_t bs = a->c->g->blocksize, i;
	char msg[128];

	if ((uint64_t)h->count * 8 + h->hdr_len > bs ||
	    h->firstused > bs || h->firstused < h->hdr_len ||
	    h->hdr_len + 8ull * h->count > h->firstused) {
		snprintf(msg, sizeof(msg), "count %u and firstused %u do not "
			 "fit", h->count, h->firstused);
		leaf_bad(a, blk, msg);
		return -1;
	}
	for (i = 0; i < 3; i++) {
		uint32_t b = h->free_base[i], s = h->free_size[i];

		if ((b & 3) || (s & 3) || b > bs || b + s > bs) {
			snprintf(msg, sizeof(msg), "base %u, size %u", b, s);
			if (!capped(a))
				check_problem(&a->ca->log, ATTR_FREEMAP,
					      a->ino, (unsigned long long)blk,
					      i, msg);
			return -1;
		}
	}
	return 0;
}

/* check_da leaf callback: one attr leaf block. */
static int leaf(void *priv, uint64_t blk, const uint8_t *buf, uint32_t *lo,
		uint32_t *hi, uint32_t *count)
{
	struct actx *a = priv;
	const struct od_geo *g = a->c->g;
	struct od_attr_leaf_hdr h;
	uint32_t i, used = 0, first = g->blocksize, prev = 0;
	const char *field;
	char msg[128];

	if (od_attr_leaf_hdr(buf, g->blocksize, g, &h, &field)) {
		snprintf(msg, sizeof(msg), "bad %s", field ? field : "header");
		leaf_bad(a, blk, msg);
		return -EFSCORRUPTED;
	}
	*count = h.count;
	/* an empty root leaf is what removing every attribute leaves:
	 * xfs_repair looks no further (and clears it when repairing) */
	if (leaf_header(a, blk, &h))
		return -EFSCORRUPTED;
	if (h.count == 0 && blk == 0)
		return 0;
	if (h.count == 0) {
		leaf_bad(a, blk, "no entries");
		return -EFSCORRUPTED;
	}
	memset(a->used, 0, g->blocksize);
	claim(a->used, 0, h.hdr_len + 8 * (uint32_t)h.count);
	for (i = 0; i < h.count; i++) {
		struct od_attr_leaf_ent e;
		int ret;

		od_attr_leaf_entry(buf, &h, i, &e);
		if (i && e.hash < prev) {
			snprintf(msg, sizeof(msg), "hash 0x%x below the one "
				 "before it (0x%x)", e.hash, prev);
			ent_bad(a, blk, i, msg);
			return -EFSCORRUPTED;
		}
		if (i == 0)
			*lo = e.hash;
		prev = *hi = e.hash;
		ret = leaf_entry(a, blk, buf, &h, i, &e, &used);
		if (ret)
			return ret == -ENOMEM ? ret : -EFSCORRUPTED;
		if (e.nameidx < first)
			first = e.nameidx;
	}
	if (h.usedbytes != used) {
		snprintf(msg, sizeof(msg), "usedbytes %u, the names take %u",
			 h.usedbytes, used);
		leaf_bad(a, blk, msg);
	}
	if ((h.holes == 0 && first != h.firstused) || h.firstused > first) {
		snprintf(msg, sizeof(msg), "firstused %u, the first name is at "
			 "%u", h.firstused, first);
		leaf_bad(a, blk, msg);
	}
	return 0;
}

/* Every block of one remote value. */
static void remote_value(struct actx *a, const struct remote_loc *r,
			 struct check_da *w)
{
	const struct od_geo *g = a->c->g;
	uint32_t per = g->v5 ? g->blocksize - OD_ATTR3_RMT_HDR_LEN :
			       g->blocksize;
	uint32_t done = 0, blk = r->blk;
	char msg[128];

	while (done < r->len) {
		uint32_t want = r->len - done < per ? r->len - done : per;
		struct od_attr_rmt_hdr h;
		const char *field;
		uint64_t daddr = 0;

		if (check_da_read(w, blk, a->buf, &daddr))
			return;
		if (g->v5) {
			if (od_attr_rmt_hdr(a->buf, g->blocksize, g, &h,
					    &field)) {
				if (!capped(a))
					check_problem(&a->ca->log,
						      ATTR_RMT_DAMAGED, a->ino,
						      (unsigned long long)blk,
						      field);
				return;
			}
			/* no LSN check: remote value blocks are written
			 * outside the log (their LSN is NULLCOMMITLSN), and
			 * neither the kernel's read verifier nor xfs_repair
			 * compares it with the log head */
			if (h.owner != a->ino || h.blkno != daddr ||
			    h.offset != done || h.bytes != want) {
				snprintf(msg, sizeof(msg), "remote value header "
					 "(owner %llu, blkno 0x%llx, offset %u, "
					 "%u bytes), expected (%llu, 0x%llx, "
					 "%u, %u)",
					 (unsigned long long)h.owner,
					 (unsigned long long)h.blkno, h.offset,
					 h.bytes, a->ino,
					 (unsigned long long)daddr, done,
					 want);
				leaf_bad(a, blk, msg);
				return;
			}
		}
		done += want;
		blk++;
	}
}

static void blocks(struct actx *a)
{
	const struct od_geo *g = a->c->g;
	struct check_da w;
	struct err e = { 0 };
	char what[64];
	size_t i;
	int ret;

	ret = fork_map(a->c->fs, a->ip, FORK_ATTR, &a->map, NULL, NULL, &e);
	if (ret) {
		a->problems++;
		if (ret == -ENOMEM)
			check_fatal(a->c, ret);
		else
			check_problem(&a->ca->log, ATTR_READ, e.msg);
		return;
	}
	if (a->map.n == 0)
		return;
	a->used = malloc(g->blocksize);
	a->buf = malloc(g->blocksize);
	if (!a->used || !a->buf) {
		check_fatal(a->c, -ENOMEM);
		return;
	}
	snprintf(what, sizeof(what), "inode %llu attr fork", a->ino);
	memset(&w, 0, sizeof(w));
	w.c = a->c;
	w.ca = a->ca;
	w.ino = a->ino;
	w.what = what;
	w.map = &a->map;
	w.blksize = g->blocksize;
	w.fsbs = 1;
	w.root = 0;
	w.lo = 0;
	w.hi = a->map.v[a->map.n - 1].startoff +
	       a->map.v[a->map.n - 1].blockcount;
	w.code = PR_ATTR_NODE;
	w.leaf = leaf;
	w.priv = a;
	w.problems = &a->problems;
	ret = check_da_walk(&w);
	if (ret == -ENOMEM)
		check_fatal(a->c, ret);
	for (i = 0; !ret && i < a->nrmt; i++)
		remote_value(a, &a->rmt[i], &w);
	check_da_done(&w);
}

void check_attr_fork(struct check_ctx *c, struct check_ag *ca,
		     const struct inode *ip, const struct m_ino *mi)
{
	struct actx a;

	(void)mi;
	if (!ip->di.forkoff)
		return;
	memset(&a, 0, sizeof(a));
	a.c = c;
	a.ca = ca;
	a.ip = ip;
	a.ino = (unsigned long long)ip->di.ino;
	if (ip->di.aformat == OD_FMT_LOCAL)
		shortform(&a);
	else if (ip->di.aformat == OD_FMT_EXTENTS ||
		 ip->di.aformat == OD_FMT_BTREE)
		blocks(&a);
	/* its parent pointers may not all have been read */
	if (a.problems)
		check_pptr_unknown(c, ca, a.ino);
	extmap_free(&a.map);
	free(a.used);
	free(a.buf);
	bigmem_free(a.rmt, a.cap_rmt, sizeof(*a.rmt));
}
