/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The index pass over a leaf or node directory (check_dir.h), as the
 * kernel's leaf and free-index verifiers (xfs_dir3_leaf_check_int,
 * xfs_dir3_free_verify) and xfs_repair's longform_dir2_check_leaf and
 * _check_node see it: leaf headers (counts, stale entries, hash order;
 * the single leaf's bests table), the node tree (check_da.c), the
 * free-index blocks' bests, and every entry of the data blocks indexed
 * exactly once, under its name's hash, at its address.
 */
#include "core/check/check_dir.h"
#include "core/base/bigmem.h"
#include "core/base/sort.h"
#include "ondisk/selfhdr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dirck_leaf_add(struct dirck *k, uint32_t hash, uint32_t addr)
{
	if (bigmem_grow((void **)&k->lv, &k->cap_lv, k->nlv, sizeof(*k->lv)))
		return -ENOMEM;
	k->lv[k->nlv].hash = hash;
	k->lv[k->nlv].addr = addr;
	k->nlv++;
	return 0;
}

/*
 * k->ent by address, stably (what a stable sort on the address alone
 * gives): entries come in address order from the data pass, so this is
 * mostly a look.  0 or -ENOMEM.
 */
static int sort_ents(struct dirck *k)
{
	struct dirck_ent *t;
	uint64_t *key;
	size_t i;

	for (i = 1; i < k->nent; i++)
		if (k->ent[i].addr <= k->ent[i - 1].addr)
			break;
	if (i >= k->nent)
		return 0;
	key = malloc(k->nent * sizeof(*key));
	t = malloc(k->nent * sizeof(*t));
	if (!key || !t)
		goto nomem;
	for (i = 0; i < k->nent; i++)
		key[i] = (uint64_t)k->ent[i].addr << 32 | i;
	if (sort_u64_from(key, k->nent, 32))
		goto nomem;
	for (i = 0; i < k->nent; i++)
		t[i] = k->ent[(uint32_t)key[i]];
	memcpy(k->ent, t, k->nent * sizeof(*t));
	free(key);
	free(t);
	return 0;
nomem:
	free(key);
	free(t);
	return -ENOMEM;
}

/*
 * k->lv by address, then hash: the two make the whole entry, so the
 * order is the one any sort gives.  The index holds them in hash order
 * already (unless damaged): then sorting by address alone, stably, is
 * enough.  0 or -ENOMEM.
 */
static int sort_leaves(struct dirck *k)
{
	unsigned from = 32;
	uint64_t *key;
	size_t i;

	if (k->nlv < 2)
		return 0;
	key = malloc(k->nlv * sizeof(*key));
	if (!key)
		return -ENOMEM;
	for (i = 0; i < k->nlv; i++) {
		key[i] = (uint64_t)k->lv[i].addr << 32 | k->lv[i].hash;
		if (i && k->lv[i].hash < k->lv[i - 1].hash)
			from = 0;
	}
	if (sort_u64_from(key, k->nlv, from)) {
		free(key);
		return -ENOMEM;
	}
	for (i = 0; i < k->nlv; i++) {
		k->lv[i].addr = (uint32_t)(key[i] >> 32);
		k->lv[i].hash = (uint32_t)key[i];
	}
	free(key);
	return 0;
}

/*
 * The usual verdict, cheaply: as many index entries as data entries,
 * each naming a distinct one (k->ent is sorted by address) under its
 * hash.  Then the merge in dirck_compare would find nothing.  1 if so,
 * 0 if the merge must look, -ENOMEM.
 */
static int index_exact(const struct dirck *k)
{
	uint32_t base, range;
	int32_t *tab;
	size_t i;

	if (k->nent != k->nlv)
		return 0;
	if (k->nent == 0)
		return 1;
	base = k->ent[0].addr;
	range = k->ent[k->nent - 1].addr - base + 1;
	if (range == 0 || range > 16 * k->nent + 1024)
		return 0;
	tab = malloc(range * sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	memset(tab, 0xff, range * sizeof(*tab));
	/* two entries at one address leave a slot short: some index
	 * entry then finds none */
	for (i = 0; i < k->nent; i++)
		tab[k->ent[i].addr - base] = (int32_t)i;
	for (i = 0; i < k->nlv; i++) {
		uint32_t off = k->lv[i].addr - base;

		if (off >= range || tab[off] < 0 ||
		    k->ent[tab[off]].hash != k->lv[i].hash) {
			free(tab);
			return 0;
		}
		tab[off] = -1;
	}
	free(tab);
	return 1;
}

static void name_hash(struct dirck *k, const char *what,
		      const struct dirck_ent *e, uint32_t leafhash)
{
	if (k->problems++ >= DIRCK_MAX_PROBLEMS) {
		k->ca->log.count++;
		return;
	}
	check_problem(&k->ca->log, DIR_NAME_HASH, what, (int)e->namelen,
		      k->names + e->name, leafhash, e->hash);
}

void dirck_compare(struct dirck *k, const char *what)
{
	size_t i = 0, j = 0;
	char msg[160];
	int ret;

	ret = sort_ents(k);
	if (!ret) {
		ret = index_exact(k);
		if (ret == 1)
			return;
	}
	if (ret || sort_leaves(k)) {
		check_fatal(k->c, -ENOMEM);
		return;
	}
	while (i < k->nent || j < k->nlv) {
		const struct dirck_ent *e = i < k->nent ? &k->ent[i] : NULL;
		const struct dirck_leaf *l = j < k->nlv ? &k->lv[j] : NULL;

		if (e && l && e->addr == l->addr) {
			if (e->hash != l->hash)
				name_hash(k, what, e, l->hash);
			if (j + 1 < k->nlv && k->lv[j + 1].addr == l->addr) {
				snprintf(msg, sizeof(msg), "two index entries "
					 "for the entry at address 0x%x",
					 l->addr);
				dirck_problem(k, PR_DIR_HASH, what, msg);
				j++;
			}
			i++;
			j++;
		} else if (l && (!e || l->addr < e->addr)) {
			snprintf(msg, sizeof(msg), "index entry (hash 0x%x, "
				 "address 0x%x) points at no entry", l->hash,
				 l->addr);
			dirck_problem(k, PR_DIR_HASH, what, msg);
			j++;
		} else {
			snprintf(msg, sizeof(msg), "entry \"%.*s\" (address "
				 "0x%x) is not in the index",
				 (int)(e->namelen > 64 ? 64 : e->namelen),
				 k->names + e->name, e->addr);
			dirck_problem(k, PR_DIR_HASH, what, msg);
			i++;
		}
	}
}

/* A leaf1 or leafn block's entries: order, stale count; kept in k->lv. */
static int leaf_entries(struct dirck *k, const char *what,
			const struct od_dir2_leaf_hdr *h, uint32_t *lo,
			uint32_t *hi)
{
	const struct od_geo *g = k->g;
	const uint8_t *ents = k->buf + h->hdr_len;
	uint32_t max = (g->dirblksize - h->hdr_len) / 8;
	uint32_t i, hash, addr, prev = 0, stale = 0;
	char msg[96];

	if (h->count > max) {
		snprintf(msg, sizeof(msg), "%u entries, more than fit (%u)",
			 h->count, max);
		dirck_problem(k, PR_DIR_HASH, what, msg);
		return -1;
	}
	for (i = 0; i < h->count; i++) {
		od_dir2_leaf_entry(ents, i, &hash, &addr);
		if (i && hash < prev) {
			snprintf(msg, sizeof(msg), "entry %u: hash 0x%x below "
				 "the one before it (0x%x)", i, hash, prev);
			dirck_problem(k, PR_DIR_HASH, what, msg);
			return -1;
		}
		if (i == 0)
			*lo = hash;
		prev = hash;
		if (addr == OD_DIR2_NULL_DATAPTR)
			stale++;
		else if (dirck_leaf_add(k, hash, addr))
			return -ENOMEM;
	}
	*hi = prev;
	if (stale != h->stale) {
		snprintf(msg, sizeof(msg), "header says %u stale entries, "
			 "there are %u", h->stale, stale);
		dirck_problem(k, PR_DIR_HASH, what, msg);
		return -1;
	}
	return 0;
}

/* Decode the leaf block at dablk, in k->buf, named what. */
static int leaf_decode(struct dirck *k, uint64_t dablk, const char *what,
		       struct od_dir2_leaf_hdr *h)
{
	const struct od_geo *g = k->g;
	struct err e = { 0 };
	const char *field;
	char msg[64];

	if (od_dir2_leaf_hdr(k->buf, g->dirblksize, g, h, &field)) {
		snprintf(msg, sizeof(msg), "bad %s", field ? field : "header");
		dirck_problem(k, PR_DIR_HASH, what, msg);
		return -1;
	}
	if (dir_check_self(k->d, dablk, h->info.blkno, h->info.owner, &e)) {
		dirck_problem(k, PR_DIR_HASH, what, e.msg);
		return -1;
	}
	if (g->v5)
		check_note_lsn(&k->ca->lsn, h->info.lsn, "%s", what);
	return 0;
}

/* Read and decode the leaf block at dablk into k->buf. */
static int read_leaf(struct dirck *k, uint64_t dablk, char *what, size_t len,
		     struct od_dir2_leaf_hdr *h)
{
	if (dirck_read(k, dablk, "leaf", what, len))
		return -1;
	return leaf_decode(k, dablk, what, h);
}

/* The single leaf block of a leaf-format directory. */
static void leaf1(struct dirck *k)
{
	const struct od_geo *g = k->g;
	uint64_t leafblk = OD_DIR2_LEAF_OFFSET >> g->blocklog;
	struct od_dir2_leaf_hdr h;
	uint32_t lo = 0, hi = 0, n, i;
	char what[128], msg[128];

	if (read_leaf(k, leafblk, what, sizeof(what), &h))
		return;
	if (!h.leaf1 || h.info.forw || h.info.back) {
		dirck_problem(k, PR_DIR_HASH, what, "not a single leaf block "
			      "(magic or sibling pointers)");
		return;
	}
	if (h.hdr_len + 8ull * h.count >
	    od_dir2_leaf1_bests_off(k->buf, g->dirblksize)) {
		dirck_problem(k, PR_DIR_HASH, what, "the entries run into the "
			      "bests table");
		return;
	}
	if (leaf_entries(k, what, &h, &lo, &hi))
		return;
	n = od_dir2_leaf1_bestcount(k->buf, g->dirblksize);
	if (n != k->nbest) {
		snprintf(msg, sizeof(msg), "bests table of %u slots for %zu "
			 "data blocks", n, k->nbest);
		dirck_problem(k, PR_DIR_BESTFREE, what, msg);
	} else {
		for (i = 0; i < n; i++) {
			uint16_t v = od_dir2_leaf1_best(k->buf, g->dirblksize,
							i);

			if (v == k->best[i])
				continue;
			snprintf(msg, sizeof(msg), "bests[%u] is %u, data "
				 "block %u's largest free region is %u", i, v,
				 i, k->best[i]);
			dirck_problem(k, PR_DIR_BESTFREE, what, msg);
			break;
		}
	}
	dirck_compare(k, what);
}

/* check_da leaf callback: one leafn block of a node directory. */
static int leafn(void *priv, uint64_t dablk, const uint8_t *buf, uint32_t *lo,
		 uint32_t *hi, uint32_t *count)
{
	struct dirck *k = priv;
	struct od_dir2_leaf_hdr h;
	char what[128];
	int ret;

	/* the walk read it just now, through the same map as
	 * dir_read_block: its bytes and address, into k->buf (one decoder
	 * for both kinds of leaf) */
	memcpy(k->buf, buf, k->g->dirblksize);
	k->d->last_daddr = k->da->leaf_daddr;
	dir_block_name(k->d, "leaf", dablk, what, sizeof(what));
	if (leaf_decode(k, dablk, what, &h))
		return -EFSCORRUPTED;
	if (h.leaf1) {
		dirck_problem(k, PR_DIR_HASH, what, "a single-leaf magic in a "
			      "node directory");
		return -EFSCORRUPTED;
	}
	ret = leaf_entries(k, what, &h, lo, hi);
	if (ret)
		return ret == -ENOMEM ? ret : -EFSCORRUPTED;
	*count = h.count;
	return 0;
}

/* The free-index blocks of a node directory against the data blocks. */
static void free_index(struct dirck *k)
{
	const struct od_geo *g = k->g;
	uint64_t freeblk = OD_DIR2_FREE_OFFSET >> g->blocklog, off;
	const struct extmap *m = &k->d->map;
	uint8_t *covered;
	size_t i, db;
	char what[128], msg[128];

	covered = calloc(k->nbest ? k->nbest : 1, 1);
	if (!covered) {
		check_fatal(k->c, -ENOMEM);
		return;
	}
	for (i = 0; i < m->n; i++) {
		const struct od_irec *r = &m->v[i];

		off = (r->startoff + g->dirblkfsbs - 1) &
		      ~(uint64_t)(g->dirblkfsbs - 1);
		if (off < freeblk)
			off = freeblk;
		for (; off < r->startoff + r->blockcount;
		     off += g->dirblkfsbs) {
			struct od_dir_free_hdr h;
			struct err e = { 0 };
			const char *field;
			uint32_t j, used = 0;

			if (dirck_read(k, off, "free", what, sizeof(what)))
				goto out;
			if (od_dir_free_hdr(k->buf, g->dirblksize, g, &h,
					    &field) ||
			    dir_check_self(k->d, off, h.blkno, h.owner, &e)) {
				snprintf(msg, sizeof(msg), "bad %s",
					 e.code ? "owner or blkno" : field);
				dirck_problem(k, PR_DIR_FREEINDEX, what, msg);
				goto out;
			}
			if (g->v5)
				check_note_lsn(&k->ca->lsn, h.lsn, "%s", what);
			if (h.firstdb != (off - freeblk) / g->dirblkfsbs *
			    h.max_bests || h.nvalid > h.max_bests) {
				snprintf(msg, sizeof(msg), "firstdb %u, nvalid "
					 "%u: not this block's range",
					 h.firstdb, h.nvalid);
				dirck_problem(k, PR_DIR_FREEINDEX, what, msg);
				goto out;
			}
			for (j = 0; j < h.nvalid; j++) {
				uint16_t v = od_dir_free_best(k->buf, &h, j);

				db = (size_t)h.firstdb + j;
				if (db >= k->nbest || v != k->best[db]) {
					snprintf(msg, sizeof(msg), "bests[%u] "
						 "is %u, data block %zu's "
						 "largest free region is %u",
						 j, v, db, db < k->nbest ?
						 k->best[db] :
						 OD_DIR2_NULL_DATAOFF);
					dirck_problem(k, PR_DIR_FREEINDEX,
						      what, msg);
					goto out;
				}
				covered[db] = 1;
				used += v != OD_DIR2_NULL_DATAOFF;
			}
			if (used != h.nused) {
				snprintf(msg, sizeof(msg), "nused %u, %u slots "
					 "are used", h.nused, used);
				dirck_problem(k, PR_DIR_FREEINDEX, what, msg);
				goto out;
			}
		}
	}
	for (db = 0; db < k->nbest; db++)
		if (!covered[db] && k->best[db] != OD_DIR2_NULL_DATAOFF) {
			snprintf(what, sizeof(what), "directory %llu", k->ino);
			snprintf(msg, sizeof(msg), "data block %zu is in no "
				 "free-index block", db);
			dirck_problem(k, PR_DIR_FREEINDEX, what, msg);
			break;
		}
out:
	free(covered);
}

static void node(struct dirck *k)
{
	const struct od_geo *g = k->g;
	struct check_da w;
	char what[48];
	int ret;

	snprintf(what, sizeof(what), "directory %llu", k->ino);
	memset(&w, 0, sizeof(w));
	w.c = k->c;
	w.ca = k->ca;
	w.ino = k->ino;
	w.what = what;
	w.map = &k->d->map;
	w.blksize = g->dirblksize;
	w.fsbs = g->dirblkfsbs;
	w.root = OD_DIR2_LEAF_OFFSET >> g->blocklog;
	w.lo = w.root;
	w.hi = OD_DIR2_FREE_OFFSET >> g->blocklog;
	w.code = PR_DIR_NODE;
	w.leaf = leafn;
	w.priv = k;
	w.problems = &k->problems;
	k->da = &w;
	ret = check_da_walk(&w);
	k->da = NULL;
	check_da_done(&w);
	if (ret == -ENOMEM)
		check_fatal(k->c, ret);
	if (ret)
		return;
	dirck_compare(k, what);
	free_index(k);
}

void dirck_index(struct dirck *k)
{
	if (!k->data_ok)
		return;
	if (k->d->fmt == DIR_LEAF)
		leaf1(k);
	else if (k->d->fmt == DIR_NODE)
		node(k);
}
