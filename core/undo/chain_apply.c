/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writes of an undo (chain.h), once chain.c has checked every pass
 * to undo.  Pass by pass, last first: an image file a shrink cut short
 * extended to the size its pass began with, the superblock marked
 * (NEEDSREPAIR and the undo mark of the file being restored), the
 * vacated blocks copied back, the records written, an fsync after each
 * step; then, between two passes, the superblock the pass began with,
 * still with NEEDSREPAIR, marked with the next file: that one write
 * moves the undo on to the next pass.  After the last pass, every block the files hold
 * is read back and compared with what the first of them to hold it says;
 * only then is the original superblock written, clean.
 *
 * With --to-pass N, the files of the passes undone go, in an order that
 * keeps the chain whole after a crash: while the superblock is still
 * marked, those after pass N + 1 (the mark makes them irrelevant) and
 * pass N + 1's link to them; then the superblock; then pass N's link to
 * pass N + 1 and its file (a file left behind finds the filesystem as it
 * was before its pass: nothing to undo).
 */
#include "core/undo/chain_priv.h"
#include "ondisk/sb.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The superblock pass k began with, NEEDSREPAIR and file next's mark. */
static int commit(struct uchain *c, unsigned k, uint64_t next)
{
	uint8_t *sb = malloc(c->ss);
	int ret;

	if (!sb)
		return err_set(c->e, -ENOMEM, "out of memory");
	memcpy(sb, c->m[k].v.orig_sb, c->ss);
	od_undo_mark_put(sb, OD_UNDO_MARK_BY_UNDO, next);
	if (od_sb_is_v5(&c->fs->sb))
		od_sb_set_needsrepair(sb, c->ss, true);
	ret = undo_put_sb(c->fs, sb, c->e);
	free(sb);
	return ret;
}

/* Remove the files of the passes after last (the mark still on). */
static int drop_after(struct uchain *c, unsigned last)
{
	unsigned k;
	int ret;

	for (k = c->n; k > last; k--)
		if (c->m[k].present && unlink(c->m[k].path) < 0 &&
		    errno != ENOENT)
			return err_set(c->e, -errno, "undo file %s: %s",
				       c->m[k].path, strerror(errno));
	/* (an interrupted pass's file, the last one, names none) */
	ret = c->m[last].s.has_next ?
	      undo_link_drop(c->m[last].path, 0, c->e) : 0;
	if (ret == 0)
		ret = undo_sync_dir(c->m[last].path);
	if (ret && !c->e->code)
		err_set(c->e, ret, "undo file %s: fsync of its directory "
			"failed: %s", c->m[last].path, strerror(-ret));
	return ret;
}

/* Remove pass last's file and the link to it (the filesystem is as
 * pass last - 1 left it). */
static void drop_last(struct uchain *c, unsigned last)
{
	struct chain_member *below = &c->m[last - 1], *m = &c->m[last];
	struct err e = { 0 };
	int ret = 0;

	if (below->present)
		ret = undo_link_drop(below->path, m->s.h.nonce, &e);
	/* a file below without its end cannot be undone: its link is moot */
	if (ret && ret != -EFSCORRUPTED) {
		chain_say(c, true, "kept %s (%s): it finds %s as before its "
			  "pass", m->path, e.msg, c->fs->path);
		return;
	}
	if (unlink(m->path) < 0 && errno != ENOENT) {
		chain_say(c, true, "undo file %s: %s", m->path,
			  strerror(errno));
		return;
	}
	undo_sync_dir(m->path);
}

/* Restore pass k (its checks done); the superblock carries its mark. */
static int restore(struct uchain *c, unsigned k)
{
	struct chain_member *m = &c->m[k];
	int ret;

	ret = undo_write_copies(&m->s, c->fs, &m->v, c->e);
	if (ret == 0)
		ret = undo_write_refs(&m->s, c->fs, c->e);
	if (ret == 0)
		ret = undo_write_records(&m->s, c->fs, true, c->e);
	if (ret)
		return ret;
	m->blocks = ((m->s.bytes + c->bs - 1) >> c->blocklog) +
		    m->s.ref_blocks;
	c->r->blocks += m->blocks;
	c->r->bytes += m->s.bytes;
	c->r->copies += m->v.copy_blocks;
	return 0;
}

/* Every block as the files say, then the original superblock. */
static int finish(struct uchain *c, unsigned last)
{
	uint8_t *back = malloc(c->ss);
	const uint8_t *orig = c->m[last].v.orig_sb;
	uint64_t differ = 0;
	char where[200];
	int ret;

	if (!back)
		return err_set(c->e, -ENOMEM, "out of memory");
	ret = chain_cmp(c, last, c->top, &differ, where, sizeof(where));
	if (ret == 0 && differ)
		ret = err_set(c->e, -EIO, "%s: after the restore, %" PRIu64
			      " block%s do%s not hold what the undo file%s "
			      "say%s (first: %s): the image did not keep what "
			      "was written; NEEDSREPAIR stays set: run undo "
			      "again", c->fs->path, differ,
			      differ == 1 ? "" : "s", differ == 1 ? "es" : "",
			      c->top > last ? "s" : "",
			      c->top > last ? "" : "s", where);
	if (ret == 0 && c->stop && !c->alone)
		ret = drop_after(c, last);
	if (ret == 0)
		ret = undo_put_sb(c->fs, orig, c->e);
	if (ret == 0) {
		ret = img_pread(c->fs->img, back, c->ss, 0);
		if (ret)
			err_set(c->e, ret, "%s: reading the superblock back "
				"failed: %s", c->fs->path, strerror(-ret));
		else if (memcmp(back, orig, c->ss) != 0)
			ret = err_set(c->e, -EIO, "%s: the superblock reads "
				      "back otherwise than written; run undo "
				      "again", c->fs->path);
	}
	free(back);
	if (ret == 0 && c->stop && !c->alone)
		drop_last(c, last);
	return ret;
}

int chain_apply(struct uchain *c)
{
	uint64_t mark = c->mark == OD_UNDO_MARK_BY_UNDO ? c->mark_nonce : 0;
	unsigned k, last = c->stop + 1;
	bool wrote = false;
	int ret = 0;

	for (k = c->top; k >= last && !ret; k--) {
		struct chain_member *m = &c->m[k];

		if (m->found == UNDO_FOUND_START)
			continue;	/* nothing of it to undo */
		/* a file a shrink cut short gets its size back first */
		ret = undo_extend(&m->s, c->fs, c->e);
		if (ret == 0 && mark != m->s.h.nonce)
			ret = undo_write_mark(c->fs, m->v.orig_sb,
					      m->s.h.nonce, c->e);
		mark = m->s.h.nonce;
		wrote = true;
		if (ret == 0)
			ret = restore(c, k);
		if (ret == 0 && k > last) {
			ret = commit(c, k, c->m[k - 1].s.h.nonce);
			mark = c->m[k - 1].s.h.nonce;
		}
		if (ret == 0 && c->n > 1 && !c->alone)
			chain_say(c, false, "pass %u: restored from %s%s", k,
				  m->path, m->s.complete ? "" :
				  " (the pass had been interrupted)");
	}
	if (ret)
		return ret;
	if (wrote)
		return finish(c, last);
	/* nothing written: the last pass never wrote, or was undone */
	if (c->stop && !c->alone && last <= c->n) {
		ret = drop_after(c, last);
		if (ret == 0)
			drop_last(c, last);
	}
	return ret;
}
