/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rolling a run back from its undo file: the steps of a restore (the
 * order is chain_apply.c's), undo_check and undo_apply for one file, and
 * opening an image whose primary superblock the run overwrote
 * (undo_open_fs).
 *
 * The restore is ordered so that an interrupted undo can be run again
 * and a filesystem it left is never taken for something else: first the
 * superblock gets NEEDSREPAIR and this file's undo mark (so no kernel
 * mounts it and no other undo file is applied over it), then the vacated
 * blocks reused since get their copies back, then every record's bytes
 * but the superblock's, and last the original superblock; an fsync after
 * each step.
 */
#include "core/undo/chain_priv.h"
#include "core/base/array.h"
#include "core/base/probe.h"
#include "core/fs/wholedisk.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void undo_fill_info(const struct scan *s, const struct uverify *v,
		    struct undo_info *info)
{
	scan_fill_info(s, info);
	info->proof_blocks = v->proof_blocks;
	info->move_blocks = v->move_blocks;
	info->copies = v->copy_blocks;
	info->undo_begun = v->undo_begun;
	info->pass = s->h.pass;
	info->has_next = s->has_next;
}

/* One file alone through the chain's undo (check: write nothing). */
static int one_file(const char *path, struct fs *fs, bool check,
		    struct undo_info *info, undo_each_fn each, void *priv,
		    struct err *e)
{
	struct undo_chain_opts o = { 0 };
	struct undo_chain_result r;
	int ret;

	o.check = check;
	o.alone = true;
	o.each = each;
	o.each_priv = priv;
	ret = undo_chain_undo(path, fs, &o, &r, e);
	memset(info, 0, sizeof(*info));
	if (r.info)
		*info = r.info[1];
	undo_chain_result_free(&r);
	return ret;
}

int undo_check_each(const char *path, struct fs *fs, struct undo_info *info,
		    undo_each_fn each, void *priv, struct err *e)
{
	struct scan s;
	int ret;

	if (fs)
		return one_file(path, fs, true, info, each, priv, e);
	/* the file alone, no filesystem to hold it against */
	ret = scan_all(&s, path, NULL, each, priv, e);
	memset(info, 0, sizeof(*info));
	if (ret == 0) {
		struct uverify v = { 0 };

		undo_fill_info(&s, &v, info);
	}
	scan_free(&s);
	return ret;
}

int undo_check(const char *path, struct fs *fs, struct undo_info *info,
	       struct err *e)
{
	return undo_check_each(path, fs, info, NULL, NULL, e);
}

int undo_apply(const char *path, struct fs *fs, struct undo_info *info,
	       struct err *e)
{
	return one_file(path, fs, false, info, NULL, NULL, e);
}

static int flush(struct fs *fs, struct err *e)
{
	int ret = img_flush(fs->img);

	if (ret)
		err_set(e, ret, "%s: fsync failed: %s; run undo again",
			fs->path, strerror(-ret));
	return ret;
}

static int put(struct fs *fs, const void *buf, size_t len, uint64_t off,
	       struct err *e)
{
	int ret = img_pwrite(fs->img, buf, len, off);

	if (ret)
		err_set(e, ret, "%s: writing image bytes %llu..%llu failed: "
			"%s; run undo again", fs->path,
			(unsigned long long)off,
			(unsigned long long)(off + len - 1), strerror(-ret));
	return ret;
}

int undo_put_sb(struct fs *fs, const uint8_t *sector, struct err *e)
{
	int ret = put(fs, sector, fs->geo.sectsize, 0, e);

	return ret ? ret : flush(fs, e);
}

/* The original superblock with NEEDSREPAIR and file nonce's undo mark. */
int undo_write_mark(struct fs *fs, const uint8_t *orig, uint64_t nonce,
		    struct err *e)
{
	uint32_t ss = fs->geo.sectsize;
	uint8_t *mk = malloc(ss);
	int ret;

	if (!mk)
		return err_set(e, -ENOMEM, "out of memory");
	memcpy(mk, orig, ss);
	od_undo_mark_put(mk, OD_UNDO_MARK_BY_UNDO, nonce);
	if (od_sb_is_v5(&fs->sb))
		od_sb_set_needsrepair(mk, ss, true);
	ret = undo_put_sb(fs, mk, e);
	free(mk);
	return ret;
}

/* Vacated blocks reused since: their copies hold the originals. */
int undo_write_copies(struct scan *s, struct fs *fs, const struct uverify *v,
		      struct err *e)
{
	unsigned bl = fs->geo.blocklog;
	uint64_t per = (4u << 20) >> bl;
	size_t k;
	int ret = 0;

	if (!v->ncp)
		return 0;
	ret = scan_data_buf(s, (size_t)(per << bl), e);
	for (k = 0; k < v->ncp && !ret; k++) {
		const struct ucopy *c = &v->cp[k];
		uint64_t i, n;

		for (i = 0; i < c->n && !ret; i += n) {
			n = c->n - i < per ? c->n - i : per;
			ret = img_pread(fs->img, s->buf, (size_t)(n << bl),
					(c->y + i) << bl);
			if (ret)
				err_set(e, ret, "%s: reading image block %llu "
					"failed: %s", fs->path,
					(unsigned long long)(c->y + i),
					strerror(-ret));
			else
				ret = put(fs, s->buf, (size_t)(n << bl),
					  (c->x + i) << bl, e);
		}
	}
	return ret ? ret : flush(fs, e);
}

/*
 * Copies read since the last flush (refs_read): a reference's blocks may
 * be written only once the references that read them as their copy are
 * durable, or a power cut could keep this write and lose those (then
 * neither the blocks nor the copy hold the original).
 */
struct refs_read {
	struct bitmap bm;
	uint64_t *v;		/* the blocks set, to clear them at a flush */
	size_t n, cap;
};

static bool refs_read_hit(const struct refs_read *r, uint64_t b, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (bm_test(&r->bm, b + i))
			return true;
	return false;
}

static int refs_read_add(struct refs_read *r, uint64_t b, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (bm_test(&r->bm, b + i))
			continue;
		if (array_grow((void **)&r->v, &r->cap, r->n, sizeof(*r->v),
			       256) || bm_set(&r->bm, b + i, 1))
			return -ENOMEM;
		r->v[r->n++] = b + i;
	}
	return 0;
}

static int refs_read_clear(struct refs_read *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (bm_clear(&r->bm, r->v[i]))
			return -ENOMEM;
	r->n = 0;
	return 0;
}

/*
 * The references, last first: each block gets its copy back (a later
 * reference's copy may be an earlier one's block, restored after it,
 * with a flush between the two).  One already holding its original is
 * done (an interrupted undo); the copy is checked before it is written.
 */
int undo_write_refs(struct scan *s, struct fs *fs, struct err *e)
{
	unsigned bl = fs->geo.blocklog;
	struct refs_read rd = { 0 };
	uint64_t nb = 0;
	size_t k;
	int ret = 0;

	if (!s->nlv)
		return 0;
	for (k = 0; k < s->nrf; k++) {
		const struct scan_ref *f = &s->rf[k];

		if (f->d + f->n > nb)
			nb = f->d + f->n;
		if (f->c + f->n > nb)
			nb = f->c + f->n;
	}
	if (bm_init(&rd.bm, nb))
		return err_set(e, -ENOMEM, "out of memory");
	for (k = s->nrf; k-- > 0 && !ret;) {
		const struct scan_ref *f = &s->rf[k];
		size_t len = (size_t)f->n << bl;

		if (!f->live)
			continue;
		ret = scan_data_buf(s, len, e);
		if (ret == 0)
			ret = img_pread(fs->img, s->buf, len, f->d << bl);
		if (ret == 0 && od_undo_crc(s->buf, len) == f->crc)
			continue;	/* restored already */
		if (ret == 0)
			ret = img_pread(fs->img, s->buf, len, f->c << bl);
		if (ret) {
			err_set(e, ret, "%s: reading image blocks %llu+%u "
				"failed: %s; run undo again", fs->path,
				(unsigned long long)f->d, f->n, strerror(-ret));
			break;
		}
		if (od_undo_crc(s->buf, len) != f->crc) {
			ret = undo_ref_lost(e, fs->path, s->path, f,
					    "; run undo again");
			break;
		}
		if (refs_read_hit(&rd, f->d, f->n)) {
			ret = flush(fs, e);
			if (!ret && refs_read_clear(&rd))
				ret = err_set(e, -ENOMEM, "out of memory");
		}
		if (!ret && refs_read_add(&rd, f->c, f->n))
			ret = err_set(e, -ENOMEM, "out of memory");
		if (!ret)
			ret = put(fs, s->buf, len, f->d << bl, e);
	}
	bm_free(&rd.bm);
	free(rd.v);
	return ret ? ret : flush(fs, e);
}

/* Every record's originals, the superblock sector left for last. */
int undo_write_records(struct scan *s, struct fs *fs, bool skip_sb,
		       struct err *e)
{
	uint32_t ss = fs->geo.sectsize;
	size_t i;
	int ret = 0;

	for (i = 0; ret == 0 && i < s->n; i++) {
		const struct journal_rec *r = &s->v[i];
		uint32_t from = skip_sb && r->off == 0 ? ss : 0;

		ret = scan_data_buf(s, r->len, e);
		if (ret == 0)
			ret = scan_read_at(s, s->buf, r->len,
					   r->pos + OD_UNDO_REC_LEN, e);
		if (ret == 0 && od_undo_crc(s->buf, r->len) != r->dcrc)
			ret = err_set(e, -EFSBADCRC, "undo file %s: record "
				      "%llu changed while being applied; run "
				      "undo again", s->path,
				      (unsigned long long)r->seq);
		if (ret == 0 && r->len > from)
			ret = put(fs, s->buf + from, r->len - from,
				  r->off + from, e);
	}
	return ret ? ret : flush(fs, e);
}

/* An image file a shrink cut short: back to its size, before any write. */
int undo_extend(struct scan *s, struct fs *fs, struct err *e)
{
	struct stat st;
	int ret;

	if (img_stat(fs->img, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size >= s->h.image_size)
		return 0;
	ret = img_resize(fs->img, s->h.image_size);
	if (ret == 0)
		ret = flush(fs, e);
	else
		err_set(e, ret, "%s: extending the file to %llu bytes failed: "
			"%s; run undo again", fs->path,
			(unsigned long long)s->h.image_size, strerror(-ret));
	return ret;
}

/*
 * An image whose primary superblock the run overwrote: reads of the
 * journaled first block come from the journal's original, so fs_open_img
 * sees the filesystem as it was; writes go to the image (and the copy).
 */
struct overlay {
	uint8_t *buf;
	uint64_t len;		/* bytes from image offset 0 */
};

static int ov_pread(struct img *im, void *buf, size_t len, uint64_t off)
{
	struct overlay *o = im->priv;
	int ret = img_pread(im->lower, buf, len, off);

	if (ret == 0 && off < o->len)
		memcpy(buf, o->buf + off,
		       len < o->len - off ? len : (size_t)(o->len - off));
	return ret;
}

static int ov_pwrite(struct img *im, const void *buf, size_t len,
		     uint64_t off)
{
	struct overlay *o = im->priv;
	int ret = img_pwrite(im->lower, buf, len, off);

	if (ret == 0 && off < o->len)
		memcpy(o->buf + off, buf,
		       len < o->len - off ? len : (size_t)(o->len - off));
	return ret;
}

static int ov_flush(struct img *im)
{
	return img_flush(im->lower);
}

static void ov_close(struct img *im)
{
	struct overlay *o = im->priv;

	free(o->buf);
	free(o);
}

static const struct img_ops overlay_ops = {
	.name = "undo-superblock",
	.pread = ov_pread,
	.pwrite = ov_pwrite,
	.flush = ov_flush,
	.close = ov_close,
};

/* Stack the overlay holding record r's bytes (which start at offset 0). */
static int push_overlay(struct scan *s, const struct journal_rec *r,
			struct img **im, struct err *e)
{
	struct overlay *o = calloc(1, sizeof(*o));
	struct img *ov = calloc(1, sizeof(*ov));
	int ret = 0;

	if (o)
		o->buf = malloc(r->len);
	if (!o || !ov || !o->buf) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	ret = scan_read_at(s, o->buf, r->len, r->pos + OD_UNDO_REC_LEN, e);
	if (ret == 0 && od_undo_crc(o->buf, r->len) != r->dcrc)
		ret = err_set(e, -EFSBADCRC, "undo file %s: record %llu "
			      "changed while being read", s->path,
			      (unsigned long long)r->seq);
	if (ret)
		goto fail;
	o->len = r->len;
	ov->ops = &overlay_ops;
	ov->priv = o;
	ov->size = (*im)->size;
	ov->writable = (*im)->writable;
	ov->lower = *im;
	*im = ov;
	return 0;
fail:
	if (o)
		free(o->buf);
	free(o);
	free(ov);
	return ret;
}

/* Does a secondary superblock of fs carry the journal's identity?  (A
 * shrink's may carry fewer AGs.) */
static bool secondary_matches(struct fs *fs, const struct od_undo_hdr *h)
{
	uint8_t buf[32768];
	struct od_sb sb;
	uint32_t agno, ss = fs->geo.sectsize;

	for (agno = 1; agno < fs->geo.agcount; agno++) {
		uint64_t off = od_agb_lin(&fs->geo, agno, 0) <<
			       fs->geo.blocklog;

		if (img_pread(fs->img, buf, ss, off) != 0 ||
		    od_sb_decode(buf, ss, &sb) != OD_OK ||
		    (od_sb_is_v5(&sb) && !od_cksum_ok(buf, ss, OD_SB_CRC_OFF)))
			continue;
		if (memcmp(sb.uuid, h->uuid, 16) == 0 &&
		    sb.blocksize == h->blocksize &&
		    sb.sectsize == h->sectsize &&
		    sb.agblocks == h->agblocks && sb.agcount <= h->agcount)
			return true;
	}
	return false;
}

struct img *undo_raw_img(struct fs *fs)
{
	return fs->img->ops == &overlay_ops ? fs->img->lower : fs->img;
}

/* Open fs over im with the journal's first block in front (im: ours). */
static int open_from_journal(struct scan *s, struct img *im, const char *name,
			     unsigned flags, const struct err *first,
			     struct fs **out, struct err *e)
{
	char uuid[40];
	int ret;

	ret = push_overlay(s, &s->v[0], &im, e);
	if (ret == 0)
		ret = fs_open_img(im, name, flags, out, e);
	if (ret) {
		img_close(im);
		return ret;
	}
	if (!secondary_matches(*out, &s->h)) {
		fs_close(*out);
		*out = NULL;
		undo_fmt_uuid(s->h.uuid, uuid);
		return err_set(e, -EXDEV, "%s: %s; no secondary superblock "
			       "shows it is filesystem %s of undo file %s",
			       name, first->msg, uuid, s->path);
	}
	return 1;
}

int undo_open_img(const char *journal, struct img *im, const char *name,
		  unsigned flags, struct fs **out, struct err *e)
{
	struct err first = { 0 };
	uint64_t size;
	struct scan s;
	int ret;

	*out = NULL;
	/* a file a shrink cut short reads as long as the run found it */
	if (undo_image_size(journal, &size, &first) == 0)
		img_zero_past_eof(im, size);
	err_clear(&first);
	ret = fs_open_img(im, name, flags, out, &first);
	if (ret == 0)
		return 0;
	if (ret != -EFSCORRUPTED && ret != -EFSBADCRC && ret != -EMEDIUMTYPE) {
		img_close(im);
		return err_set(e, ret, "%s", first.msg);
	}
	/* the superblock is unreadable: does the journal hold its original? */
	ret = scan_all(&s, journal, NULL, NULL, NULL, e);
	if (ret == 0 && (s.n == 0 || s.v[0].off != 0 ||
			 s.v[0].len < s.h.sectsize))
		ret = err_set(e, first.code, "%s", first.msg);
	if (ret == 0)
		ret = open_from_journal(&s, im, name, flags, &first, out, e);
	else
		img_close(im);
	scan_free(&s);
	return ret;
}

int undo_open_fs(const char *journal, const char *image, unsigned flags,
		 struct fs **out, struct err *e)
{
	char mnt[256] = "";
	struct fs_where w;
	struct img *im;
	int ret;

	*out = NULL;
	ret = fs_open_image(image, flags, &im, &w, e);
	if (ret)
		return ret;
	if (!(flags & FS_NOPROBE) && !FS_PARTNO(flags)) {
		uint8_t magic[4] = { 0 };

		/* a whole disk: name its partitions (--partition N) */
		if ((img_pread(im, magic, 4, 0) ||
		     !od_sb_has_magic(magic, sizeof(magic))) &&
		    wholedisk_check(image, e)) {
			img_close(im);
			return e->code;
		}
	}
	ret = undo_open_img(journal, im, w.name, flags, out, e);
	if (ret >= 0 && !(flags & FS_NOPROBE)) {
		(*out)->mounted = fs_where_mounted(image, &w, mnt, sizeof(mnt));
		snprintf((*out)->mountpoint, sizeof((*out)->mountpoint), "%s",
			 mnt);
	}
	return ret;
}
