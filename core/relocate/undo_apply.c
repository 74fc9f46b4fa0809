/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading an undo file back: verify the header and every record, check
 * the journal belongs to the filesystem at hand, then write the originals
 * back (undo_check, undo_apply), and open an image whose primary
 * superblock the run overwrote (undo_open_fs).
 *
 * Which records count.  The writer appends records in batches and
 * fsyncs each batch before any image write that depends on it; every
 * record carries the sequence number of the first record of its batch.
 * So when a record fails its checks (torn by a crash: cut short, or its
 * crc does not match), it is harmless exactly when it belongs to the
 * final batch: no record of a later batch and no end record follows it.
 * Then the crash came before the batch was durable, its image writes had
 * not begun, and it is ignored (torn tail); the valid records of that
 * batch are still applied (writing an original over itself is harmless).
 * A failing record followed by a later batch was fsync'd once: damage.
 */
#include "core/relocate/undo.h"
#include "core/base/sort.h"
#include "core/base/probe.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/undo.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCAN_WINDOW	(1u << 20)	/* hunt() reads this much */

struct urec {
	uint64_t seq;
	uint64_t pos;		/* of the record header in the journal */
	uint64_t off;		/* in the image */
	uint32_t len;
	uint32_t dcrc;
};

struct scan {
	const char *path;
	int fd;
	uint64_t fsize;
	struct od_undo_hdr h;
	struct urec *v;		/* valid records */
	size_t n, cap;
	uint64_t bytes;
	uint64_t torn;
	bool complete;
	uint8_t *buf;		/* record data */
	size_t buflen;
	undo_each_fn each;	/* may be NULL */
	void *priv;
};

static int read_at(struct scan *s, void *buf, size_t len, uint64_t pos,
		   struct err *e)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(s->fd, p, len, (off_t)pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(e, -errno, "undo file %s: read at byte "
				       "%llu failed: %s", s->path,
				       (unsigned long long)pos,
				       strerror(errno));
		if (n == 0)
			return err_set(e, -EIO, "undo file %s: it shrank while "
				       "being read", s->path);
		p += n;
		pos += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int damaged(struct scan *s, struct err *e, uint64_t pos,
		   const char *what)
{
	return err_set(e, -EFSCORRUPTED, "undo file %s is damaged: %s (at "
		       "byte %llu); nothing was written", s->path, what,
		       (unsigned long long)pos);
}

static void note(struct scan *s, uint64_t seq, uint64_t pos, uint64_t off,
		 uint32_t len, bool torn)
{
	if (s->each)
		s->each(s->priv, seq, pos, off, len, torn);
}

static int open_hdr(struct scan *s, const char *path, struct err *e)
{
	uint8_t *buf = NULL;
	const char *field;
	struct stat st;
	enum od_err oe;
	int ret = 0;

	s->path = path;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return err_set(e, -errno, "undo file %s: %s", path,
			       strerror(errno));
	if (fstat(s->fd, &st) < 0)
		return err_set(e, -errno, "undo file %s: %s", path,
			       strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(e, -EINVAL, "undo file %s: not a regular file",
			       path);
	s->fsize = (uint64_t)st.st_size;
	if (s->fsize < OD_UNDO_HDR_LEN)
		return err_set(e, -EFSCORRUPTED, "undo file %s: header is "
			       "incomplete (%llu bytes): the run stopped "
			       "before writing anything", path,
			       (unsigned long long)s->fsize);
	buf = malloc(OD_UNDO_HDR_LEN);
	if (!buf)
		return err_set(e, -ENOMEM, "out of memory");
	ret = read_at(s, buf, OD_UNDO_HDR_LEN, 0, e);
	if (ret)
		goto out;
	oe = od_undo_hdr_decode(buf, OD_UNDO_HDR_LEN, &s->h, &field);
	if (oe == OD_EMAGIC)
		ret = err_set(e, -EFSCORRUPTED, "%s: not an xfsdefrag undo "
			      "file (bad magic)", path);
	else if (oe == OD_ECRC)
		ret = err_set(e, -EFSBADCRC, "undo file %s is damaged: header "
			      "has a bad crc", path);
	else if (oe)
		ret = err_set(e, -EFSCORRUPTED, "undo file %s is damaged: "
			      "header has a bad %s", path,
			      field ? field : "field");
out:
	free(buf);
	return ret;
}

/* Make room for len data bytes. */
static int data_buf(struct scan *s, size_t len, struct err *e)
{
	uint8_t *p;

	if (len <= s->buflen)
		return 0;
	p = realloc(s->buf, len);
	if (!p)
		return err_set(e, -ENOMEM, "out of memory");
	s->buf = p;
	s->buflen = len;
	return 0;
}

/*
 * Record r (header valid) at pos: do its offset and length make sense
 * for the journal's image?  0 or damage.
 */
static int rec_sane(struct scan *s, const struct od_undo_rec *r, uint64_t pos,
		    struct err *e)
{
	const struct od_undo_hdr *h = &s->h;

	if (r->end)
		return 0;
	if (r->off % h->blocksize || r->off >= h->image_size ||
	    r->len > h->image_size - r->off ||
	    (r->len % h->blocksize && r->off + r->len != h->image_size))
		return damaged(s, e, pos, "a record covers no whole blocks "
			       "of the image");
	return 0;
}

/*
 * The record at pos: 0 valid (header decoded and sane, data crc right),
 * 1 header unusable (cut short, bad magic or crc), 2 header valid but the
 * data cut short or its crc wrong; <0 damage or an I/O error.
 */
static int read_rec(struct scan *s, uint64_t pos, struct od_undo_rec *r,
		    struct err *e)
{
	uint8_t hb[OD_UNDO_REC_LEN];
	const char *field;
	enum od_err oe;
	int ret;

	if (s->fsize - pos < OD_UNDO_REC_LEN)
		return 1;
	ret = read_at(s, hb, sizeof(hb), pos, e);
	if (ret)
		return ret;
	oe = od_undo_rec_decode(hb, sizeof(hb), s->h.nonce, r, &field);
	if (oe == OD_EFIELD)
		return damaged(s, e, pos, "a record has an impossible length "
			       "or batch");
	if (oe)
		return 1;
	ret = rec_sane(s, r, pos, e);
	if (ret)
		return ret;
	if (r->len > s->fsize - pos - OD_UNDO_REC_LEN)
		return 2;
	ret = data_buf(s, r->len, e);
	if (ret == 0 && r->len)
		ret = read_at(s, s->buf, r->len, pos + OD_UNDO_REC_LEN, e);
	if (ret)
		return ret;
	return od_undo_crc(s->buf, r->len) == r->dcrc ? 0 : 2;
}

static int push(struct scan *s, const struct od_undo_rec *r, uint64_t pos,
		struct err *e)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct urec *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return err_set(e, -ENOMEM, "out of memory");
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct urec){ r->seq, pos, r->off, r->len, r->dcrc };
	s->bytes += r->len;
	note(s, r->seq, pos, r->off, r->len, false);
	return 0;
}

/*
 * The first position >= from holding a decodable record header (magic
 * and a header crc made with this journal's nonce), or fsize.
 */
static int hunt(struct scan *s, uint64_t from, uint64_t *at, struct err *e)
{
	uint8_t *w = malloc(SCAN_WINDOW);
	struct od_undo_rec r;
	const char *field;
	enum od_err oe;
	uint64_t base;
	size_t n, i;
	int ret = 0;

	*at = s->fsize;
	if (!w)
		return err_set(e, -ENOMEM, "out of memory");
	for (base = from; base < s->fsize &&
	     s->fsize - base >= OD_UNDO_REC_LEN;
	     base += n - OD_UNDO_REC_LEN + 1) {
		n = s->fsize - base < SCAN_WINDOW ? (size_t)(s->fsize - base) :
		    SCAN_WINDOW;
		ret = read_at(s, w, n, base, e);
		if (ret)
			break;
		for (i = 0; i + OD_UNDO_REC_LEN <= n; i++) {
			if (w[i] != 'U')
				continue;
			/* EFIELD: the crc matched (read_rec calls it damage) */
			oe = od_undo_rec_decode(w + i, OD_UNDO_REC_LEN,
						s->h.nonce, &r, &field);
			if (oe == OD_OK || oe == OD_EFIELD) {
				*at = base + i;
				break;
			}
		}
		if (*at != s->fsize)
			break;
	}
	free(w);
	return ret;
}

/*
 * Records from k0 on, starting with the doubtful one at pos: all must
 * belong to k0's batch (see the top of the file).  Valid ones are kept.
 */
static int scan_tail(struct scan *s, uint64_t pos, uint64_t k0,
		     const struct od_undo_rec *known, struct err *e)
{
	struct od_undo_rec r;
	uint64_t p, min_seq = k0 + 1;
	bool counted = !known;	/* the bytes at p belong to a torn record */
	char what[160];
	int rc;

	s->torn = 1;
	note(s, k0, pos, known ? known->off : 0, known ? known->len : 0,
	     true);
	if (known && known->seq != k0)
		return damaged(s, e, pos, "a record is out of sequence");
	p = known ? pos + OD_UNDO_REC_LEN + known->len : pos + 1;
	while (p < s->fsize) {
		rc = read_rec(s, p, &r, e);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			/* no usable header here: is there one further on? */
			uint64_t at;

			if (!counted) {
				s->torn++;
				note(s, min_seq, p, 0, 0, true);
			}
			counted = true;
			rc = hunt(s, p + 1, &at, e);
			if (rc || at == s->fsize)
				return rc;
			p = at;
			continue;
		}
		counted = false;
		if (r.end || r.batch > k0) {
			snprintf(what, sizeof(what), "record %llu at byte %llu "
				 "fails its checks, and %s after it shows it "
				 "had been synced", (unsigned long long)k0,
				 (unsigned long long)pos,
				 r.end ? "the end record" : "a later batch");
			return damaged(s, e, p, what);
		}
		if (r.seq < min_seq)
			return damaged(s, e, p, "a record is out of sequence");
		min_seq = r.seq + 1;
		if (rc == 2) {
			s->torn++;
			note(s, r.seq, p, r.off, r.len, true);
		} else {
			rc = push(s, &r, p, e);
			if (rc)
				return rc;
		}
		p += OD_UNDO_REC_LEN + (uint64_t)r.len;
	}
	return 0;
}

static int scan_records(struct scan *s, struct err *e)
{
	struct od_undo_rec r;
	uint64_t pos = OD_UNDO_HDR_LEN, expect = 0;
	int rc = 0;

	while (pos < s->fsize) {
		rc = read_rec(s, pos, &r, e);
		if (rc < 0)
			break;
		if (rc > 0) {
			rc = scan_tail(s, pos, expect, rc == 2 ? &r : NULL, e);
			break;
		}
		if (r.seq != expect) {
			rc = damaged(s, e, pos, "a record is out of sequence");
			break;
		}
		if (r.end) {
			if (r.off != s->bytes)
				rc = damaged(s, e, pos, "the end record does "
					     "not count the bytes journaled");
			else if (pos + OD_UNDO_REC_LEN != s->fsize)
				rc = damaged(s, e, pos, "data follows the end "
					     "record");
			s->complete = rc == 0;
			break;
		}
		rc = push(s, &r, pos, e);
		if (rc)
			break;
		pos += OD_UNDO_REC_LEN + (uint64_t)r.len;
		expect++;
	}
	return rc;
}

static int urec_cmp(const void *a, const void *b)
{
	const struct urec *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sort by image offset; a block journaled twice is damage. */
static int check_overlap(struct scan *s, struct err *e)
{
	char what[128];
	size_t i;

	if (s->n > 1)
		sort_any(s->v, s->n, sizeof(*s->v), urec_cmp);
	for (i = 1; i < s->n; i++) {
		if (s->v[i - 1].off + s->v[i - 1].len <= s->v[i].off)
			continue;
		snprintf(what, sizeof(what), "records %llu and %llu both hold "
			 "image byte %llu",
			 (unsigned long long)s->v[i - 1].seq,
			 (unsigned long long)s->v[i].seq,
			 (unsigned long long)s->v[i].off);
		return damaged(s, e, s->v[i].pos, what);
	}
	return 0;
}

static void fmt_uuid(const uint8_t *u, char *out)
{
	static const int dash[16] = { [4] = 1, [6] = 1, [8] = 1, [10] = 1 };
	int i;

	for (i = 0; i < 16; i++)
		out += sprintf(out, "%s%02x", dash[i] ? "-" : "", u[i]);
}

/* Does the journal belong to fs?  0, or -EXDEV naming what differs. */
static int check_identity(struct scan *s, struct fs *fs, struct err *e)
{
	const struct od_undo_hdr *h = &s->h;
	const struct od_geo *g = &fs->geo;
	char a[40], b[40];
	const char *what = NULL;
	uint64_t was = 0, is = 0;

	if (memcmp(h->uuid, fs->sb.uuid, 16) != 0) {
		fmt_uuid(h->uuid, a);
		fmt_uuid(fs->sb.uuid, b);
		return err_set(e, -EXDEV, "undo file %s belongs to filesystem "
			       "%s, not %s of %s", s->path, a, b, fs->path);
	}
	if (memcmp(h->meta_uuid, fs->sb.meta_uuid, 16) != 0) {
		fmt_uuid(h->meta_uuid, a);
		fmt_uuid(fs->sb.meta_uuid, b);
		return err_set(e, -EXDEV, "undo file %s belongs to filesystem "
			       "with metadata uuid %s, not %s of %s", s->path,
			       a, b, fs->path);
	}
	if (h->blocksize != g->blocksize)
		what = "blocksize", was = h->blocksize, is = g->blocksize;
	else if (h->sectsize != g->sectsize)
		what = "sectsize", was = h->sectsize, is = g->sectsize;
	else if (h->agblocks != g->agblocks)
		what = "agblocks", was = h->agblocks, is = g->agblocks;
	else if (h->agcount != g->agcount)
		what = "agcount", was = h->agcount, is = g->agcount;
	else if (h->dblocks != g->dblocks)
		what = "dblocks", was = h->dblocks, is = g->dblocks;
	if (what)
		return err_set(e, -EXDEV, "undo file %s was made for %s %llu, "
			       "but %s has %s %llu (same uuid: was it grown "
			       "or remade?)", s->path, what,
			       (unsigned long long)was, fs->path, what,
			       (unsigned long long)is);
	return 0;
}

/* Every record inside the image as it is now? */
static int check_fits(struct scan *s, struct fs *fs, struct err *e)
{
	uint64_t size = fs->img->size;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].off + s->v[i].len > size)
			return err_set(e, -EXDEV, "undo file %s holds image "
				       "bytes up to %llu, but %s is %llu bytes "
				       "(the journal was made for %llu)",
				       s->path,
				       (unsigned long long)(s->v[i].off +
							    s->v[i].len),
				       fs->path, (unsigned long long)size,
				       (unsigned long long)s->h.image_size);
	return 0;
}

static void scan_free(struct scan *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->v);
	free(s->buf);
}

/* Header, identity (if fs), records, overlaps: everything but writing. */
static int scan_all(struct scan *s, const char *path, struct fs *fs,
		    undo_each_fn each, void *priv, struct err *e)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->each = each;
	s->priv = priv;
	ret = open_hdr(s, path, e);
	if (ret == 0 && fs)
		ret = check_identity(s, fs, e);
	if (ret == 0)
		ret = scan_records(s, e);
	if (ret == 0)
		ret = check_overlap(s, e);
	if (ret == 0 && fs)
		ret = check_fits(s, fs, e);
	return ret;
}

static void fill_info(const struct scan *s, struct undo_info *info)
{
	memset(info, 0, sizeof(*info));
	memcpy(info->uuid, s->h.uuid, 16);
	info->dblocks = s->h.dblocks;
	info->blocksize = s->h.blocksize;
	info->records = s->n;
	info->bytes = s->bytes;
	info->complete = s->complete;
	info->torn_tail = s->torn > 0;
	info->torn = s->torn;
	info->image_size = s->h.image_size;
	info->ctime = s->h.ctime;
	snprintf(info->image, sizeof(info->image), "%s", s->h.path);
}

int undo_check_each(const char *path, struct fs *fs, struct undo_info *info,
		    undo_each_fn each, void *priv, struct err *e)
{
	struct scan s;
	int ret = scan_all(&s, path, fs, each, priv, e);

	memset(info, 0, sizeof(*info));
	if (ret == 0)
		fill_info(&s, info);
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
	struct scan s;
	size_t i;
	int ret = scan_all(&s, path, fs, NULL, NULL, e);

	memset(info, 0, sizeof(*info));
	if (ret == 0 && !fs->img->writable)
		ret = err_set(e, -EROFS, "%s: not open for writing", fs->path);
	for (i = 0; ret == 0 && i < s.n; i++) {
		const struct urec *r = &s.v[i];

		ret = data_buf(&s, r->len, e);
		if (ret == 0)
			ret = read_at(&s, s.buf, r->len,
				      r->pos + OD_UNDO_REC_LEN, e);
		if (ret == 0 && od_undo_crc(s.buf, r->len) != r->dcrc)
			ret = err_set(e, -EFSBADCRC, "undo file %s: record "
				      "%llu changed while being applied; run "
				      "undo again", path,
				      (unsigned long long)r->seq);
		if (ret == 0)
			ret = img_pwrite(fs->img, s.buf, r->len, r->off);
		if (ret && !e->code)
			err_set(e, ret, "%s: writing image bytes %llu..%llu "
				"failed: %s; run undo again", fs->path,
				(unsigned long long)r->off,
				(unsigned long long)(r->off + r->len - 1),
				strerror(-ret));
	}
	if (ret == 0) {
		ret = img_flush(fs->img);
		if (ret)
			err_set(e, ret, "%s: fsync failed: %s; run undo again",
				fs->path, strerror(-ret));
	}
	if (ret == 0)
		fill_info(&s, info);
	scan_free(&s);
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
static int push_overlay(struct scan *s, const struct urec *r, struct img **im,
			struct err *e)
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
	ret = read_at(s, o->buf, r->len, r->pos + OD_UNDO_REC_LEN, e);
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

/* Does a secondary superblock of fs carry the journal's identity? */
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
		    sb.agblocks == h->agblocks && sb.agcount == h->agcount)
			return true;
	}
	return false;
}

static int open_from_journal(struct scan *s, const char *image,
			     unsigned flags, const struct err *first,
			     struct fs **out, struct err *e)
{
	char uuid[40], mnt[256] = "";
	struct img *im = NULL;
	int ret;

	ret = img_open_file(image, (flags & FS_RDWR) ? IMG_RDWR : 0, &im, e);
	if (ret)
		return ret;
	ret = push_overlay(s, &s->v[0], &im, e);
	if (ret) {
		img_close(im);
		return ret;
	}
	ret = fs_open_img(im, image, flags, out, e);
	if (ret) {
		img_close(im);
		return ret;
	}
	if (!secondary_matches(*out, &s->h)) {
		fs_close(*out);
		*out = NULL;
		fmt_uuid(s->h.uuid, uuid);
		return err_set(e, -EXDEV, "%s: %s; no secondary superblock "
			       "shows it is filesystem %s of undo file %s",
			       image, first->msg, uuid, s->path);
	}
	(*out)->mounted = probe_mounted(image, mnt, sizeof(mnt));
	snprintf((*out)->mountpoint, sizeof((*out)->mountpoint), "%s", mnt);
	return 1;
}

int undo_open_fs(const char *journal, const char *image, unsigned flags,
		 struct fs **out, struct err *e)
{
	struct err first = { 0 };
	struct scan s;
	int ret;

	*out = NULL;
	ret = fs_open(image, flags, out, &first);
	if (ret != -EFSCORRUPTED && ret != -EFSBADCRC && ret != -EMEDIUMTYPE)
		return ret ? err_set(e, ret, "%s", first.msg) : 0;
	/* the superblock is unreadable: does the journal hold its original? */
	ret = scan_all(&s, journal, NULL, NULL, NULL, e);
	if (ret == 0 && (s.n == 0 || s.v[0].off != 0 ||
			 s.v[0].len < s.h.sectsize))
		ret = err_set(e, first.code, "%s", first.msg);
	if (ret == 0)
		ret = open_from_journal(&s, image, flags, &first, out, e);
	scan_free(&s);
	return ret;
}
