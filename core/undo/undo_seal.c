/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The proof a run leaves in its undo file (the writer side; undo_verify.c
 * checks it).  Undo writes back the originals it journaled and relies on
 * everything else that was live when the run began still holding its
 * original bytes.  Once the run has finished, anything may write to the
 * filesystem: a mount, another run.  So at the end the run makes undo
 * independent of the blocks it vacated and records what proves the state
 * it left:
 *
 *   - vacated blocks (live when it began, free when it ends, never
 *     written): a later writer may reuse them.  Where the run copied such
 *     a block and the copy still holds exactly those bytes, a move record
 *     says so (undo copies it back if the block was reused); every other
 *     vacated block is journaled now, while it still holds its original.
 *     Blocks of unwritten extents hold nothing anyone reads: neither.
 *   - a proof record of the crc of every block it wrote that is live at
 *     the end (block 0 without the superblock sector);
 *   - a seal: the crc of the superblock sector as the run leaves it, and
 *     the counts of the proof; with the log's crc in the header (taken
 *     before the first write) that is all undo must find unchanged.
 *
 * The seal is made durable before the run's last image write (the
 * superblock without NEEDSREPAIR), so a filesystem that can be mounted
 * always has a sealed undo file.
 */
#include "core/undo/undo_priv.h"
#include "core/base/array.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <stdlib.h>
#include <string.h>

void undo_log_range(const struct fs *fs, uint64_t *off, uint64_t *len)
{
	*off = *len = 0;
	if (fs->sb.logstart == 0 || fs->sb.logblocks == 0)
		return;		/* external: another device, not ours */
	*off = od_fsb_lin(&fs->geo, fs->sb.logstart) << fs->geo.blocklog;
	*len = (uint64_t)fs->sb.logblocks << fs->geo.blocklog;
	if (*off > fs->img->size || *len > fs->img->size - *off)
		*off = *len = 0;	/* the pre-check refuses such a log */
}

/*
 * Holes of a sparse image are fed to the crc as zeros without reading
 * them: a 2 GiB log that was never written all through costs nothing.
 */
int undo_crc_range(struct img *im, uint64_t off, uint64_t len, uint32_t *crc)
{
	uint32_t c = 0xffffffffu;
	int ret;

	*crc = 0;
	if (len == 0)
		return 0;
	ret = undo_crc_update(im, off, len, &c);
	*crc = ~c;
	return ret;
}

int undo_crc_update(struct img *im, uint64_t off, uint64_t len, uint32_t *crc)
{
	const size_t chunk = 1u << 20;
	uint64_t end = off + len;
	uint8_t *buf;
	uint32_t c = *crc;
	int ret = 0;

	if (len == 0)
		return 0;
	buf = malloc(chunk);
	if (!buf)
		return -ENOMEM;
	while (off < end && !ret) {
		uint64_t d = img_next_data(im, off), h;

		if (d > end)
			d = end;
		c = od_crc32c_zeros(c, d - off);
		off = d;
		h = off < end ? img_next_hole(im, off) : end;
		if (h > end || h <= off)
			h = end;
		while (off < h && !ret) {
			size_t n = h - off < chunk ? (size_t)(h - off) : chunk;

			ret = img_pread(im, buf, n, off);
			if (ret == 0)
				c = od_crc32c(c, buf, n);
			off += n;
		}
	}
	free(buf);
	*crc = c;
	return ret;
}

int undo_note_written(struct undo *u, const uint8_t *buf, uint64_t off,
		      uint64_t len)
{
	uint64_t b, first, last, bs = u->bs;
	int ret;

	if (len == 0)
		return 0;
	first = off >> u->blocklog;
	last = (off + len - 1) >> u->blocklog;
	for (b = first; b <= last; b++) {
		uint64_t bo = b << u->blocklog;

		ret = bm_set(&u->wrote, b, 1);
		if (ret == 0)
			ret = cm_set(&u->wgen, b, u->gen);
		if (ret)
			return ret;
		if (bo >= off && bo + bs <= off + len && bo + bs <= u->size) {
			ret = cm_set(&u->crc, b,
				     od_undo_crc(buf + (bo - off), bs));
			if (!ret)
				ret = bm_clear(&u->partial, b);
		} else {
			ret = bm_set(&u->partial, b, 1);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int undo_note_move(struct undo *u, uint64_t src, uint64_t dst, uint64_t n,
		   bool nocopy, struct err *e)
{
	struct umove *m;
	uint64_t i;

	if (src > u->nblocks || n > u->nblocks - src || dst > u->nblocks ||
	    n > u->nblocks - dst)
		return err_set(e, -EINVAL, "undo: move %llu -> %llu (%llu "
			       "blocks) lies outside the image",
			       (unsigned long long)src,
			       (unsigned long long)dst, (unsigned long long)n);
	if (array_grow((void **)&u->mv, &u->capmv, u->nmv, sizeof(*u->mv),
		       256) ||
	    (!nocopy && array_reserve((void **)&u->mvcrc, &u->capmvcrc,
				      u->nmvcrc + n, sizeof(*u->mvcrc),
				      4096)))
		return err_set(e, -ENOMEM, "out of memory");
	m = &u->mv[u->nmv++];
	*m = (struct umove){ src, dst, n, nocopy, !nocopy, u->nmvcrc };
	/* where each source's bytes went (references, undo_ref.c) */
	for (i = 0; u->nmv < UINT32_MAX && i < n; i++)
		if (cm_set(&u->srcmv, src + i, (uint32_t)u->nmv) ||
		    (!nocopy && cm_set(&u->cpmv, dst + i, (uint32_t)u->nmv)))
			return err_set(e, -ENOMEM, "out of memory");
	/* the copy's bytes now: if still so at the seal, they are the original */
	for (i = 0; !nocopy && i < n; i++) {
		if (bm_test(&u->partial, dst + i) ||
		    !bm_test(&u->wrote, dst + i))
			m->usable = false;	/* not one whole-block copy */
		u->mvcrc[u->nmvcrc++] = cm_get(&u->crc, dst + i);
	}
	return 0;
}

int undo_mark_free_end(struct undo *u, uint64_t linblock, uint64_t len,
		       struct err *e)
{
	if (len > u->nblocks || linblock > u->nblocks - len)
		return err_set(e, -EINVAL, "undo: free blocks %llu+%llu lie "
			       "outside the image", (unsigned long long)linblock,
			       (unsigned long long)len);
	u->free_end_known = true;
	if (bm_set(&u->free_end, linblock, len))
		return err_set(e, -ENOMEM, "out of memory");
	return 0;
}

void undo_sb_mark(const struct undo *u, uint8_t *sector, uint32_t sectsize,
		  bool on)
{
	od_undo_mark_put(sector, on ? OD_UNDO_MARK_BY_RUN : OD_UNDO_MARK_NONE,
			 u->nonce);
	if (od_sb_is_v5(&u->fs->sb))
		od_sb_set_needsrepair(sector, sectsize, on);
}

/* Output of the seal: records of one kind, filled and flushed. */
struct out {
	struct undo *u;
	enum od_undo_kind kind;
	uint8_t *buf;
	uint32_t len;
	struct err *e;
};

static int out_flush(struct out *o)
{
	int ret = 0;

	if (o->len)
		ret = undo_append_meta(o->u, o->kind, o->buf, o->len, o->e);
	o->len = 0;
	return ret;
}

/* Room for need more bytes in the current record. */
static int out_room(struct out *o, uint32_t need)
{
	return o->len + need > UNDO_REC_DATA ? out_flush(o) : 0;
}

/* Vacated blocks the run copied, the copy unchanged: move records. */
static int seal_moves(struct undo *u, struct bitmap *covered,
		      uint64_t *nblocks, struct err *e)
{
	struct out o = { u, OD_UNDO_MOVES, NULL, 0, e };
	size_t k;
	uint64_t i;
	int ret = 0;

	o.buf = malloc(UNDO_REC_DATA);
	if (!o.buf)
		return err_set(e, -ENOMEM, "out of memory");
	for (k = 0; k < u->nmv && !ret; k++) {
		const struct umove *m = &u->mv[k];

		for (i = 0; i < m->n && !ret; i++) {
			uint64_t x = m->src + i, y = m->dst + i, run = 0;

			if (bm_test(&u->done, x) || !bm_test(&u->free_end, x) ||
			    bm_test(covered, x))
				continue;	/* journaled, in use, or seen */
			if (m->nocopy) {
				ret = bm_set(covered, x, 1);
				continue;
			}
			if (!m->usable)
				continue;	/* journaled by seal_vacated */
			/* a run of blocks whose copies are intact */
			while (i + run < m->n &&
			       !bm_test(&u->done, x + run) &&
			       bm_test(&u->free_end, x + run) &&
			       !bm_test(covered, x + run) &&
			       bm_test(&u->wrote, y + run) &&
			       !bm_test(&u->free_end, y + run) &&
			       !bm_test(&u->partial, y + run) &&
			       cm_get(&u->crc, y + run) ==
			       u->mvcrc[m->crc0 + i + run])
				run++;
			if (!run)
				continue;	/* journaled by seal_vacated */
			ret = out_room(&o, OD_UNDO_MOV_ENT);
			if (ret)
				break;
			od_undo_move_encode(&(struct od_undo_move){ x, y,
					    (uint32_t)run }, o.buf + o.len);
			o.len += OD_UNDO_MOV_ENT;
			ret = bm_set(covered, x, run);
			*nblocks += run;
			i += run - 1;
		}
	}
	if (!ret)
		ret = out_flush(&o);
	free(o.buf);
	return ret && !e->code ? err_set(e, ret, "out of memory") : ret;
}

/*
 * Blocks 64 w ... 64 w + 63 that the run vacated and nothing journaled
 * or covered yet: free at the end, in use at the start.
 */
static uint64_t vacated_word(const struct undo *u, const struct bitmap *cov,
			     uint64_t w)
{
	return bm_word(&u->free_end, w) & ~bm_word(&u->free, w) &
	       ~bm_word(&u->done, w) & ~bm_word(cov, w);
}

/*
 * The first vacated block >= b, or nblocks.  Word by word, and a chunk
 * at a time where nothing can be vacated (not free at the end, or free
 * at the start): the cost follows the blocks in use, not the size of
 * the filesystem.
 */
static uint64_t next_vacated(const struct undo *u, const struct bitmap *cov,
			     uint64_t b)
{
	while (b < u->nblocks) {
		uint64_t v;

		if (bm_chunk_state(&u->free_end, b) == 0 ||
		    bm_chunk_state(&u->free, b) == 1) {
			b = (b | (BM_CHUNK_BITS - 1)) + 1;
			continue;
		}
		v = vacated_word(u, cov, b / 64) >> (b % 64);
		if (v)
			return b + (uint64_t)__builtin_ctzll(v);
		b = (b | 63) + 1;
	}
	return u->nblocks;
}

/* Vacated blocks from b on, at most max. */
static uint64_t vacated_run(const struct undo *u, const struct bitmap *cov,
			    uint64_t b, uint64_t max)
{
	uint64_t run = 0;

	while (run < max && b + run < u->nblocks) {
		uint64_t at = b + run, v = ~vacated_word(u, cov, at / 64) >>
					  (at % 64);

		if (v) {	/* a block that is not vacated ends the run */
			run += (uint64_t)__builtin_ctzll(v);
			break;
		}
		run += 64 - at % 64;
	}
	if (b + run > u->nblocks)
		run = u->nblocks - b;
	return run < max ? run : max;
}

/* Every other vacated block, journaled while it holds its original. */
static int seal_vacated(struct undo *u, const struct bitmap *covered,
			struct err *e)
{
	uint64_t maxrun = UNDO_REC_DATA >> u->blocklog;
	uint64_t b = next_vacated(u, covered, 0);
	int ret = 0;

	while (b < u->nblocks && !ret) {
		uint64_t run = vacated_run(u, covered, b, maxrun);

		ret = undo_append_data(u, b, run, e);
		b = next_vacated(u, covered, b + run);
	}
	return ret;
}

/* crc of block b as it is now (block 0: its first sector as zeros). */
static int block_crc(struct undo *u, uint64_t b, uint8_t *buf,
		     uint32_t *crc)
{
	uint64_t off = b << u->blocklog;
	size_t len = u->size - off < u->bs ? (size_t)(u->size - off) : u->bs;
	int ret = img_pread(u->layer->lower, buf, len, off);

	if (ret)
		return ret;
	if (b == 0)
		memset(buf, 0, u->fs->geo.sectsize);
	memset(buf + len, 0, u->bs - len);
	*crc = od_undo_crc(buf, u->bs);
	return 0;
}

/* In the proof: written, live at the end, not only the superblock. */
static bool provable(const struct undo *u, uint64_t b)
{
	return bm_test(&u->wrote, b) && !bm_test(&u->free_end, b) &&
	       !(b == 0 && u->bs == u->fs->geo.sectsize);
}

/* Proof records: the crc of every written block live at the end. */
static int seal_proof(struct undo *u, uint64_t *nblocks, struct err *e)
{
	struct out o = { u, OD_UNDO_PROOF, NULL, 0, e };
	uint8_t *blk = malloc(u->bs);
	uint64_t b = bm_next(&u->wrote, 0);
	int ret = 0;

	o.buf = malloc(UNDO_REC_DATA);
	if (!o.buf || !blk) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	while (b < u->nblocks && !ret) {
		uint32_t n = 0, at, crc;

		if (!provable(u, b)) {
			b = bm_next(&u->wrote, b + 1);
			continue;
		}
		ret = out_room(&o, OD_UNDO_PRF_RUNHDR + 4);
		if (ret)
			break;
		at = o.len;
		o.len += OD_UNDO_PRF_RUNHDR;
		for (; b < u->nblocks && provable(u, b) &&
		       o.len + 4 <= UNDO_REC_DATA; b++, n++) {
			crc = cm_get(&u->crc, b);
			if (b == 0 || bm_test(&u->partial, b))
				ret = block_crc(u, b, blk, &crc);
			if (ret) {
				ret = err_set(e, ret, "undo: reading back image "
					      "block %llu failed: %s",
					      (unsigned long long)b,
					      strerror(-ret));
				break;
			}
			od_undo_prf_crc_put(o.buf + o.len, crc);
			o.len += 4;
		}
		od_undo_prf_run_encode(b - n, n, o.buf + at);
		*nblocks += n;
	}
	if (!ret)
		ret = out_flush(&o);
out:
	free(o.buf);
	free(blk);
	return ret;
}

int undo_seal(struct undo *u, const uint8_t *sb_final, struct err *e)
{
	struct od_undo_seal sl = { 0 };
	uint8_t rec[OD_UNDO_SEAL_LEN];
	struct bitmap covered;
	uint32_t ss = u->fs->geo.sectsize;
	uint8_t *sb = NULL;
	int ret = undo_sticky(u, e);

	if (ret || u->sealed)
		return ret;
	/* references whose copy a later writer may reuse: data records */
	ret = uref_seal(u, e);
	if (ret)
		return ret;
	ret = undo_journal_sync(u);
	if (ret)
		return undo_sticky(u, e);
	if (bm_init(&covered, u->nblocks))
		return err_set(e, -ENOMEM, "out of memory");
	if (u->free_end_known)
		ret = seal_moves(u, &covered, &sl.move_blocks, e);
	if (!ret && u->free_end_known)
		ret = seal_vacated(u, &covered, e);
	bm_free(&covered);
	if (!ret)
		ret = seal_proof(u, &sl.proof_blocks, e);
	if (!ret && !sb_final) {
		sb = malloc(ss);
		ret = !sb ? -ENOMEM : img_pread(u->layer->lower, sb, ss, 0);
		if (ret)
			err_set(e, ret, "undo: reading the superblock back "
				"failed: %s", strerror(-ret));
		sb_final = sb;
	}
	if (!ret) {
		sl.sb_crc = od_undo_crc(sb_final, ss);
		sl.data_bytes = u->bytes;
		od_undo_seal_encode(&sl, rec);
		ret = undo_append_meta(u, OD_UNDO_SEAL, rec, sizeof(rec), e);
	}
	free(sb);
	if (!ret)
		ret = undo_journal_sync(u) ? undo_sticky(u, e) : 0;
	if (!ret)
		u->sealed = true;
	return ret;
}
