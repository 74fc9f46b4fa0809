/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dabtree of a directory's hash index or of an attr fork, walked
 * from its root as xfs_repair's da cursor does (traverse_int_dablock,
 * verify_da_path): every node decoded and self-describing, its entries
 * in hash order and pointing inside the fork's space, each entry's hash
 * the highest hash of the subtree it leads to, one sibling chain per
 * level, and the leaves (which the caller verifies) in hash order.
 */
#include "core/check/check_dir.h"
#include "ondisk/da.h"

#include <stdio.h>
#include <stdlib.h>

#define DA_MAXDEPTH	5	/* XFS_DA_NODE_MAXDEPTH */

void check_da_problem(struct check_da *w, enum check_code code,
		      uint64_t dablk, const char *msg)
{
	char what[96];

	if ((*w->problems)++ >= DIRCK_MAX_PROBLEMS) {
		w->ca->log.count++;
		return;
	}
	snprintf(what, sizeof(what), "%s block %llu", w->what,
		 (unsigned long long)dablk);
	switch (code) {
	case PR_ATTR_NODE:
		check_problem(&w->ca->log, ATTR_NODE, w->ino,
			      (unsigned long long)dablk, msg);
		break;
	default:
		check_problem(&w->ca->log, DIR_NODE, what, msg);
		break;
	}
}

int check_da_read(struct check_da *w, uint64_t dablk, uint8_t *buf,
		  uint64_t *daddr)
{
	const struct od_geo *g = w->c->g;
	uint64_t off = dablk, end = dablk + w->fsbs;
	struct err e = { 0 };
	char msg[96];

	while (off < end) {
		const struct od_irec *r = fork_rec_at(w->map->v, w->map->n,
						      off);
		uint64_t n;

		if (!r) {
			snprintf(msg, sizeof(msg), "file block %llu is not "
				 "mapped", (unsigned long long)off);
			check_da_problem(w, w->code, dablk, msg);
			return -EFSCORRUPTED;
		}
		n = r->startoff + r->blockcount - off;
		if (n > end - off)
			n = end - off;
		if (off == dablk)
			*daddr = od_fsb_daddr(g, r->startblock +
					      (off - r->startoff));
		if (fs_read_fsb(w->c->fs, r->startblock + (off - r->startoff),
				(uint32_t)n, buf + ((off - dablk) <<
						    g->blocklog), &e,
				w->what)) {
			check_da_problem(w, w->code, dablk, e.msg);
			return e.code;
		}
		off += n;
	}
	return 0;
}

/* The sibling chain of one level (0: the leaves). */
static void siblings(struct check_da *w, unsigned level, uint64_t dablk,
		     const struct od_da_blkinfo *bi)
{
	char msg[96];

	if (bi->back != (w->have_prev[level] ? w->prev[level] : 0)) {
		snprintf(msg, sizeof(msg), "back pointer %u, expected %llu",
			 bi->back, w->have_prev[level] ?
			 (unsigned long long)w->prev[level] : 0ull);
		check_da_problem(w, w->code, dablk, msg);
	}
	if (w->have_prev[level] && w->prev_forw[level] != dablk) {
		snprintf(msg, sizeof(msg), "forward pointer %u, expected "
			 "%llu", w->prev_forw[level],
			 (unsigned long long)dablk);
		check_da_problem(w, w->code, w->prev[level], msg);
	}
	w->have_prev[level] = true;
	w->prev[level] = dablk;
	w->prev_forw[level] = bi->forw;
}

static int walk(struct check_da *w, uint64_t dablk, unsigned depth,
		int expect, uint32_t *hihash);

static int walk_node(struct check_da *w, uint64_t dablk, unsigned depth,
		     int expect, uint32_t *hihash)
{
	const struct od_geo *g = w->c->g;
	const uint8_t *buf = w->buf[depth];
	struct od_da_node node;
	const char *field;
	uint32_t i, hash, before, prev = 0, child;
	char msg[128];
	int ret;

	if (od_da_node_decode(buf, w->blksize, g, &node, &field)) {
		snprintf(msg, sizeof(msg), "bad node %s",
			 field ? field : "header");
		check_da_problem(w, w->code, dablk, msg);
		return -EFSCORRUPTED;
	}
	if ((expect >= 0 && node.level != (unsigned)expect) ||
	    node.level >= DA_MAXDEPTH || depth + node.level > DA_MAXDEPTH) {
		snprintf(msg, sizeof(msg), "node level %u, expected %d",
			 node.level, expect);
		check_da_problem(w, w->code, dablk, msg);
		return -EFSCORRUPTED;
	}
	siblings(w, node.level, dablk, &node.info);
	for (i = 0; i < node.count; i++) {
		od_da_node_entry(buf, &node, i, &hash, &before);
		if (i && hash < prev) {
			snprintf(msg, sizeof(msg), "entry %u: hash 0x%x below "
				 "the one before it (0x%x)", i, hash, prev);
			check_da_problem(w, w->code, dablk, msg);
			return -EFSCORRUPTED;
		}
		prev = hash;
		if (before < w->lo || before >= w->hi ||
		    before % w->fsbs) {
			snprintf(msg, sizeof(msg), "entry %u: child block %u "
				 "is outside the index", i, before);
			check_da_problem(w, w->code, dablk, msg);
			return -EFSCORRUPTED;
		}
		ret = walk(w, before, depth + 1, node.level - 1, &child);
		if (ret)
			return ret;
		/* the node's buffer is this level's: still valid */
		if (child != hash) {
			snprintf(msg, sizeof(msg), "entry %u: hash 0x%x, but "
				 "the highest hash below it is 0x%x", i, hash,
				 child);
			check_da_problem(w, w->code, dablk, msg);
		}
	}
	*hihash = prev;
	return 0;
}

static int walk(struct check_da *w, uint64_t dablk, unsigned depth,
		int expect, uint32_t *hihash)
{
	const struct od_geo *g = w->c->g;
	struct od_da_blkinfo bi;
	const char *field;
	uint32_t lo = 0, hi = 0, count = 0;
	uint64_t daddr = 0;
	char msg[128];
	int ret;

	*hihash = 0;
	if (depth > DA_MAXDEPTH || ++w->visits > w->map->n + 64 +
	    (w->hi - w->lo) / w->fsbs) {
		check_da_problem(w, w->code, dablk, "the tree is too deep or "
				 "loops");
		return -EFSCORRUPTED;
	}
	if (!w->buf[depth]) {
		w->buf[depth] = malloc(w->blksize);
		if (!w->buf[depth]) {
			check_fatal(w->c, -ENOMEM);
			return -ENOMEM;
		}
	}
	ret = check_da_read(w, dablk, w->buf[depth], &daddr);
	if (ret)
		return ret;
	if (od_da_blkinfo(w->buf[depth], w->blksize, g, &bi, &field)) {
		snprintf(msg, sizeof(msg), "bad %s", field ? field : "header");
		check_da_problem(w, w->code, dablk, msg);
		return -EFSCORRUPTED;
	}
	if (g->v5 && (bi.blkno != daddr || bi.owner != w->ino)) {
		snprintf(msg, sizeof(msg), "owner %llu and blkno 0x%llx, "
			 "expected %llu and 0x%llx",
			 (unsigned long long)bi.owner,
			 (unsigned long long)bi.blkno, w->ino,
			 (unsigned long long)daddr);
		check_da_problem(w, w->code, dablk, msg);
		return -EFSCORRUPTED;
	}
	if (g->v5)
		check_note_lsn(&w->ca->lsn, bi.lsn, "%s block %llu", w->what,
			       (unsigned long long)dablk);
	if (od_da_is_node(g, bi.magic))
		return walk_node(w, dablk, depth, expect, hihash);
	if (expect > 0) {
		snprintf(msg, sizeof(msg), "a leaf where the node above "
			 "says level %d", expect);
		check_da_problem(w, w->code, dablk, msg);
		return -EFSCORRUPTED;
	}
	siblings(w, 0, dablk, &bi);
	w->leaf_daddr = daddr;
	ret = w->leaf(w->priv, dablk, w->buf[depth], &lo, &hi, &count);
	if (ret)
		return ret;
	if (count && w->have_hash && lo < w->last_hash) {
		snprintf(msg, sizeof(msg), "lowest hash 0x%x is below the "
			 "previous leaf's highest (0x%x)", lo, w->last_hash);
		check_da_problem(w, w->code, dablk, msg);
	}
	if (count) {
		w->last_hash = hi;
		w->have_hash = true;
	}
	*hihash = count ? hi : w->last_hash;
	return 0;
}

int check_da_walk(struct check_da *w)
{
	uint32_t hash;
	unsigned l;
	int ret;

	ret = walk(w, w->root, 0, -1, &hash);
	if (ret)
		return ret;
	for (l = 0; l < 6; l++)
		if (w->have_prev[l] && w->prev_forw[l] != 0)
			check_da_problem(w, w->code, w->prev[l], "forward "
					 "pointer of the last block of its "
					 "level is not 0");
	return 0;
}

void check_da_done(struct check_da *w)
{
	unsigned i;

	for (i = 0; i < 6; i++) {
		free(w->buf[i]);
		w->buf[i] = NULL;
	}
}
