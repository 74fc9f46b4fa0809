/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journaling img layer of a relocation run (the writer side of the
 * undo file; undo_apply.c reads it back).  See undo.h for the contract.
 */
#include "core/undo/undo_priv.h"
#include "ondisk/crc32c.h"

#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Ranges never overlap, so "overlaps" is "equal": lookups probe n = 1. */
static int rix_cmp(const void *a, const void *b)
{
	const struct record_loc *x = a, *y = b;

	if (x->b + x->n <= y->b)
		return -1;
	return y->b + y->n <= x->b;
}

int undo_index_add(struct undo *u, uint64_t b, uint64_t n, uint64_t pos,
		   size_t ref)
{
	struct record_loc *r = malloc(sizeof(*r));

	if (!r)
		return -ENOMEM;
	*r = (struct record_loc){ b, n, pos, ref };
	if (!tsearch(r, &u->index, rix_cmp)) {
		free(r);
		return -ENOMEM;
	}
	return 0;
}

struct record_loc *undo_index_find(struct undo *u, uint64_t b)
{
	struct record_loc probe = { b, 1, 0, 0 }, **hit;

	hit = tfind(&probe, &u->index, rix_cmp);
	return hit ? *hit : NULL;
}

void undo_index_del(struct undo *u, uint64_t b)
{
	struct record_loc *r = undo_index_find(u, b);

	if (r) {
		tdelete(r, &u->index, rix_cmp);
		free(r);
	}
}

static int write_all(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int undo_fail(struct undo *u, int code, const char *what)
{
	return err_set(&u->err, code, "undo file %s: %s failed: %s; nothing "
		       "more is written to the image", u->path, what,
		       strerror(-code));
}

int undo_sticky(const struct undo *u, struct err *e)
{
	if (!u->err.code)
		return 0;
	return err_set(e, u->err.code, "%s", u->err.msg);
}

int undo_error(const struct undo *u, struct err *e)
{
	return undo_sticky(u, e);
}

int undo_read_original(struct undo *u, uint64_t off, void *buf, size_t len,
		       struct err *e)
{
	uint8_t *p = buf;
	int ret = 0;

	if (off > u->size || len > u->size - off)
		return err_set(e, -ENXIO, "undo: range %llu+%zu lies beyond "
			       "the image (%llu bytes)",
			       (unsigned long long)off, len,
			       (unsigned long long)u->size);
	while (len && !ret) {
		uint32_t k = cm_get(&u->refof, off >> u->blocklog);
		struct record_loc *hit;
		uint64_t rec_off, n;
		ssize_t got;

		if (k && k <= u->nrf && u->rf[k - 1].live) {
			/* a live reference: the original is at its copy */
			const struct uref *r = &u->rf[k - 1];
			uint64_t at;

			rec_off = off - (r->d << u->blocklog);
			n = ((uint64_t)r->n << u->blocklog) - rec_off;
			if (n > len)
				n = len;
			at = (r->e << u->blocklog) + rec_off;
			ret = img_pread(u->layer->lower, p, (size_t)n, at);
			if (ret) {
				err_set(e, ret, "undo: reading the original of "
					"image byte %llu at its copy (byte "
					"%llu) failed: %s",
					(unsigned long long)off,
					(unsigned long long)at, strerror(-ret));
				break;
			}
			p += n;
			off += n;
			len -= (size_t)n;
			continue;
		}
		hit = undo_index_find(u, off >> u->blocklog);
		if (!hit) {
			ret = err_set(e, -ENOENT, "undo: image byte %llu was "
				      "never journaled; no original to read",
				      (unsigned long long)off);
			break;
		}
		rec_off = off - (hit->b << u->blocklog);
		n = (hit->n << u->blocklog) - rec_off;
		if (n > len)
			n = len;
		got = pread(u->fd, p, (size_t)n,
			    (off_t)(hit->pos + OD_UNDO_REC_LEN + rec_off));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			ret = err_set(e, got < 0 ? -errno : -EIO,
				      "undo file %s: reading back the original "
				      "of image byte %llu failed: %s", u->path,
				      (unsigned long long)off,
				      got < 0 ? strerror(errno) : "short file");
		else {
			p += got;
			off += (uint64_t)got;
			len -= (size_t)got;
		}
	}
	return ret;
}

uint64_t undo_bytes(const struct undo *u)
{
	return u->bytes + u->refbytes;
}

int undo_journal_sync(struct undo *u)
{
	int ret;

	if (u->err.code)
		return u->err.code;
	/* a reference's copy is durable before the block it saves */
	if (u->need_flush) {
		ret = img_flush(u->layer->lower);
		if (ret)
			return undo_fail(u, ret, "flushing the image");
		u->gen++;
		u->need_flush = false;
	}
	if (u->batch == u->seq)
		return 0;
	if (fdatasync(u->fd) < 0)
		return undo_fail(u, -errno, "fsync");
	u->batch = u->seq;
	return 0;
}

/* Write record r (header) and its len data bytes at u->buf; advance. */
static int put_record(struct undo *u, struct od_undo_rec *r, uint32_t len,
		      struct err *e)
{
	char what[64];
	int ret;

	r->len = len;
	r->seq = u->seq;
	r->batch = u->batch;
	r->dcrc = od_undo_crc(u->buf + OD_UNDO_REC_LEN, len);
	od_undo_rec_encode(r, u->nonce, u->buf);
	ret = write_all(u->fd, u->buf, OD_UNDO_REC_LEN + (size_t)len, u->end);
	if (ret) {
		snprintf(what, sizeof(what), "append at byte %llu",
			 (unsigned long long)u->end);
		undo_fail(u, ret, what);
		return undo_sticky(u, e);
	}
	u->end += OD_UNDO_REC_LEN + len;
	u->seq++;
	return 0;
}

int undo_put_data(struct undo *u, uint64_t b, uint64_t n, uint64_t len,
		  struct err *e)
{
	struct od_undo_rec r = { 0 };
	uint64_t pos = u->end;
	int ret;

	r.kind = OD_UNDO_DATA;
	r.off = b << u->blocklog;
	ret = put_record(u, &r, (uint32_t)len, e);
	if (ret)
		return ret;
	ret = bm_set(&u->done, b, n);
	if (ret == 0)
		ret = undo_index_add(u, b, n, pos, SIZE_MAX);
	if (ret) {
		undo_fail(u, ret, "bookkeeping");
		return undo_sticky(u, e);
	}
	u->bytes += len;
	return 0;
}

/* Bytes of blocks [b, b+n) inside the image (its last may be partial). */
static uint64_t run_bytes(const struct undo *u, uint64_t b, uint64_t n)
{
	uint64_t off = b << u->blocklog, len = n << u->blocklog;

	return len > u->size - off ? u->size - off : len;
}

static int read_orig(struct undo *u, uint8_t *buf, uint64_t b, uint64_t len,
		     struct err *e)
{
	uint64_t off = b << u->blocklog;
	int ret = img_pread(u->layer->lower, buf, (size_t)len, off);

	if (ret)
		return err_set(e, ret, "undo: reading the original of image "
			       "bytes %llu..%llu failed: %s",
			       (unsigned long long)off,
			       (unsigned long long)(off + len - 1),
			       strerror(-ret));
	return 0;
}

int undo_append_data(struct undo *u, uint64_t b, uint64_t n, struct err *e)
{
	uint64_t len = run_bytes(u, b, n);
	int ret = read_orig(u, u->buf + OD_UNDO_REC_LEN, b, len, e);

	return ret ? ret : undo_put_data(u, b, n, len, e);
}

int undo_append_meta(struct undo *u, enum od_undo_kind kind,
		     const uint8_t *data, uint32_t len, struct err *e)
{
	struct od_undo_rec r = { 0 };

	if (len > UNDO_REC_DATA)
		return err_set(e, -EINVAL, "undo: a %u-byte record", len);
	memmove(u->buf + OD_UNDO_REC_LEN, data, len);
	r.kind = kind;
	return put_record(u, &r, len, e);
}

static bool block_live(const struct undo *u, uint64_t b)
{
	return !bm_test(&u->free, b);
}

static bool block_needs_record(const struct undo *u, uint64_t b)
{
	return block_live(u, b) && !bm_test(&u->done, b);
}

/*
 * Journal the n blocks from b (live, not journaled; inside the write of
 * blocks [wfirst, wlast]): read their originals, and where the run's
 * intact copy holds one, a reference; else data records.
 */
static int journal_run(struct undo *u, uint64_t b, uint64_t n,
		       uint64_t wfirst, uint64_t wlast, struct err *e)
{
	uint64_t len = run_bytes(u, b, n), i = 0, j, c;
	uint32_t bs = u->bs;
	int ret = read_orig(u, u->rbuf, b, len, e);

	while (i < n && !ret) {
		const uint8_t *p = u->rbuf + (i << u->blocklog);
		bool whole = ((i + 1) << u->blocklog) <= len;
		uint32_t crc = whole ? od_undo_crc(p, bs) : 0;

		c = whole ? uref_copy_of(u, b + i, crc, wfirst, wlast) :
		    UINT64_MAX;
		if (c != UINT64_MAX) {
			/* the run of blocks whose copies follow on */
			for (j = i + 1; j < n && ((j + 1) << u->blocklog) <= len;
			     j++) {
				const uint8_t *q = u->rbuf + (j << u->blocklog);

				if (uref_copy_of(u, b + j, od_undo_crc(q, bs),
						 wfirst, wlast) != c + (j - i))
					break;
			}
			ret = uref_add(u, b + i, c, (uint32_t)(j - i),
				       od_undo_crc(p, (size_t)((j - i) <<
							       u->blocklog)),
				       e);
			i = j;
			continue;
		}
		/* a data record up to the next block a copy holds */
		for (j = i + 1; j < n; j++) {
			const uint8_t *q = u->rbuf + (j << u->blocklog);

			if (((j + 1) << u->blocklog) <= len &&
			    uref_copy_of(u, b + j, od_undo_crc(q, bs), wfirst,
					 wlast) != UINT64_MAX)
				break;
		}
		memcpy(u->buf + OD_UNDO_REC_LEN, p,
		       (size_t)(run_bytes(u, b + i, j - i)));
		ret = undo_put_data(u, b + i, j - i, run_bytes(u, b + i, j - i),
				    e);
		i = j;
	}
	return ret;
}

/*
 * Journal every live, not yet journaled block touching [off, off+len), in
 * runs of contiguous blocks, after turning the references whose copies
 * the range overwrites into data records.  *live: does the range touch
 * a live block (or did a reference give way: either needs a sync)?
 */
static int journal_range(struct undo *u, uint64_t off, uint64_t len,
			 bool *live, struct err *e)
{
	uint64_t b, first, last, run, maxrun = UNDO_REC_DATA >> u->blocklog;
	bool any = false;
	int ret = undo_sticky(u, e);

	*live = false;
	if (ret || len == 0)
		return ret;
	first = off >> u->blocklog;
	last = (off + len - 1) >> u->blocklog;
	ret = uref_supersede_range(u, first, last, &any, e);
	*live = any;
	for (b = first; b <= last && !ret; b += run) {
		run = 1;
		if (block_live(u, b))
			*live = true;
		if (!block_needs_record(u, b))
			continue;
		if (u->sealed) {
			ret = err_set(e, -EINVAL, "undo file %s is sealed: "
				      "image byte %llu needs a record", u->path,
				      (unsigned long long)(b << u->blocklog));
			break;
		}
		while (b + run <= last && run < maxrun &&
		       block_needs_record(u, b + run))
			run++;
		ret = journal_run(u, b, run, first, last, e);
	}
	if (!ret)
		ret = uref_flush(u, e);
	return ret;
}

static int undo_layer_pread(struct img *im, void *buf, size_t len,
			    uint64_t off)
{
	return img_pread(im->lower, buf, len, off);
}

/* The ordering rule lives here: journal, make it durable, then write. */
static int undo_layer_pwrite(struct img *im, const void *buf, size_t len,
			     uint64_t off)
{
	struct undo *u = im->priv;
	struct err e = { 0 };
	bool live;
	int ret;

	ret = journal_range(u, off, len, &live, &e);
	if (ret == 0 && live)
		ret = undo_journal_sync(u);
	if (ret == 0)
		ret = img_pwrite(im->lower, buf, len, off);
	if (ret == 0) {
		u->image_writes++;
		ret = undo_note_written(u, buf, off, len);
		if (ret)
			undo_fail(u, ret, "bookkeeping");
	}
	return ret;
}

static int undo_layer_flush(struct img *im)
{
	struct undo *u = im->priv;
	int ret = img_flush(im->lower);

	if (ret == 0) {		/* every copy written so far is durable */
		u->gen++;
		u->need_flush = false;
	}
	return ret;
}

/* img_close of the whole stack (fs_close before undo_end): let go. */
static void undo_layer_close(struct img *im)
{
	struct undo *u = im->priv;

	u->layer = NULL;
}

static const struct img_ops undo_ops = {
	.name = "undo",
	.pread = undo_layer_pread,
	.pwrite = undo_layer_pwrite,
	.flush = undo_layer_flush,
	.close = undo_layer_close,
};

int undo_mark_free(struct undo *u, uint64_t linblock, uint64_t len,
		   struct err *e)
{
	uint64_t dblocks = u->fs->geo.dblocks;
	int ret;

	if (len > dblocks || linblock > dblocks - len)
		return err_set(e, -EINVAL, "undo: free blocks %llu+%llu lie "
			       "outside the filesystem (%llu blocks)",
			       (unsigned long long)linblock,
			       (unsigned long long)len,
			       (unsigned long long)dblocks);
	ret = bm_set(&u->free, linblock, len);
	if (ret)
		return err_set(e, ret, "out of memory");
	return 0;
}

bool undo_was_free(const struct undo *u, uint64_t linblock, uint64_t n)
{
	uint64_t i;

	if (linblock > u->nblocks || n > u->nblocks - linblock)
		return false;
	for (i = 0; i < n; i++)
		if (!bm_test(&u->free, linblock + i))
			return false;
	return true;
}

int undo_prepare(struct undo *u, uint64_t off, uint64_t len, struct err *e)
{
	bool live;

	if (off > u->size || len > u->size - off)
		return err_set(e, -ENXIO, "undo: range %llu+%llu lies beyond "
			       "the image (%llu bytes)",
			       (unsigned long long)off, (unsigned long long)len,
			       (unsigned long long)u->size);
	return journal_range(u, off, len, &live, e);
}

int undo_sync(struct undo *u, struct err *e)
{
	undo_journal_sync(u);
	return undo_sticky(u, e);
}

int undo_finish(struct undo *u, struct err *e)
{
	struct od_undo_rec r = { 0 };
	int ret;

	if (u->finished)
		return undo_sticky(u, e);
	ret = undo_seal(u, NULL, e);
	if (ret)
		return ret;
	r.end = true;
	r.kind = OD_UNDO_END;
	r.seq = u->seq;
	r.off = u->bytes;
	r.batch = u->seq;
	r.dcrc = od_undo_crc(NULL, 0);
	od_undo_rec_encode(&r, u->nonce, u->buf);
	ret = write_all(u->fd, u->buf, OD_UNDO_REC_LEN, u->end);
	if (ret)
		undo_fail(u, ret, "writing the end record");
	else if (fsync(u->fd) < 0)
		undo_fail(u, -errno, "fsync");
	if (u->err.code)
		return undo_sticky(u, e);
	u->end += OD_UNDO_REC_LEN;
	u->seq++;
	u->batch = u->seq;
	u->finished = true;
	return 0;
}

uint64_t undo_nonce(const struct undo *u)
{
	return u->nonce;
}

uint64_t undo_image_writes(const struct undo *u)
{
	return u->image_writes;
}

const char *undo_path(const struct undo *u)
{
	return u->path;
}

static uint64_t make_nonce(void)
{
	uint64_t n = 0;

	if (getrandom(&n, sizeof(n), 0) != (ssize_t)sizeof(n))
		n = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^
		    (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)&n;
	return n;
}

int undo_sync_dir(const char *path)
{
	char *dir = strdup(path), *slash;
	int fd, ret = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return ret;
}

/* What the header says of the chain (undo_begin_pass). */
struct hchain {
	unsigned pass;
	uint64_t chain, prev_nonce;
	uint32_t prev_seal;
};

/*
 * The header and record 0, the original of block 0, in one write, then
 * fsync (and the directory): a file that exists holds both or was cut.
 */
static int write_header(struct undo *u, const struct hchain *hc,
			struct err *e)
{
	struct od_undo_hdr h = { 0 };
	struct od_undo_rec r = { 0 };
	const struct fs *fs = u->fs;
	uint32_t len = u->size < u->bs ? (uint32_t)u->size : u->bs;
	size_t total = OD_UNDO_HDR_LEN + OD_UNDO_REC_LEN + len;
	uint8_t *buf = calloc(1, total), *data;
	int ret;

	if (!buf)
		return err_set(e, -ENOMEM, "out of memory");
	data = buf + OD_UNDO_HDR_LEN + OD_UNDO_REC_LEN;
	ret = img_pread(fs->img, data, len, 0);
	if (ret) {
		err_set(e, ret, "%s: reading block 0 failed: %s", fs->path,
			strerror(-ret));
		goto out;
	}
	h.nonce = u->nonce;
	memcpy(h.uuid, fs->sb.uuid, 16);
	memcpy(h.meta_uuid, fs->sb.meta_uuid, 16);
	h.dblocks = fs->geo.dblocks;
	h.blocksize = fs->geo.blocksize;
	h.sectsize = fs->geo.sectsize;
	h.agblocks = fs->geo.agblocks;
	h.agcount = fs->geo.agcount;
	h.image_size = u->size;
	h.ctime = (uint64_t)time(NULL);
	h.log_off = u->log_off;
	h.log_len = u->log_len;
	h.log_crc = u->log_crc;
	h.sb_crc = od_undo_crc(data, fs->geo.sectsize);
	h.pass = hc->pass;
	h.chain = hc->pass > 1 ? hc->chain : u->nonce;
	h.prev_nonce = hc->prev_nonce;
	h.prev_seal = hc->prev_seal;
	snprintf(h.path, sizeof(h.path), "%s", fs->path);
	od_undo_hdr_encode(&h, buf);
	r.kind = OD_UNDO_DATA;
	r.len = len;
	r.dcrc = od_undo_crc(data, len);
	od_undo_rec_encode(&r, u->nonce, buf + OD_UNDO_HDR_LEN);
	ret = write_all(u->fd, buf, total, 0);
	if (ret)
		err_set(e, ret, "undo file %s: writing the header failed: %s",
			u->path, strerror(-ret));
	else if (fsync(u->fd) < 0)
		ret = err_set(e, -errno, "undo file %s: fsync failed: %s",
			      u->path, strerror(errno));
	else if ((ret = undo_sync_dir(u->path)) != 0)
		err_set(e, ret, "undo file %s: fsync of its directory failed: "
			"%s", u->path, strerror(-ret));
	if (ret)
		goto out;
	/* record 0 is journaled and durable: the superblock's mark needs
	 * no record of its own */
	ret = bm_set(&u->done, 0, 1);
	if (ret == 0)
		ret = undo_index_add(u, 0, 1, OD_UNDO_HDR_LEN, SIZE_MAX);
	if (ret) {
		err_set(e, ret, "out of memory");
		goto out;
	}
	u->end = total;
	u->seq = 1;
	u->batch = 1;
	u->bytes = len;
out:
	free(buf);
	return ret;
}

/* The file before (pass > 1): finished, and fs as it left it. */
static int read_prev(struct fs *fs, const struct undo_link *link,
		     struct hchain *hc, struct err *e)
{
	uint32_t ss = fs->geo.sectsize;
	uint8_t *sb = malloc(ss);
	struct undo_tail t;
	int ret;

	if (!sb)
		return err_set(e, -ENOMEM, "out of memory");
	ret = undo_tail_read(link->prev, &t, e);
	if (ret == 0 && (t.version < OD_UNDO_VERSION_CHAIN ||
			 t.pass != link->pass - 1))
		ret = err_set(e, -EINVAL, "undo file %s is not pass %u's of "
			      "this run (its header says pass %u)", link->prev,
			      link->pass - 1, t.pass);
	if (ret == 0) {
		ret = img_pread(fs->img, sb, ss, 0);
		if (ret)
			err_set(e, ret, "%s: reading the superblock failed: %s",
				fs->path, strerror(-ret));
		else if (od_undo_crc(sb, ss) != t.seal_sb_crc)
			ret = err_set(e, -ESTALE, "%s is not as pass %u left "
				      "it (the superblock differs from the one "
				      "undo file %s names): refusing to begin "
				      "pass %u", fs->path, link->pass - 1,
				      link->prev, link->pass);
	}
	free(sb);
	if (ret)
		return ret;
	hc->pass = link->pass;
	hc->chain = t.chain;
	hc->prev_nonce = t.nonce;
	hc->prev_seal = t.seal_dcrc;
	return 0;
}

static void undo_free(struct undo *u)
{
	if (u->fd >= 0)
		close(u->fd);
	tdestroy(u->index, free);
	uref_free(u);
	bm_free(&u->done);
	bm_free(&u->free);
	bm_free(&u->wrote);
	bm_free(&u->partial);
	bm_free(&u->free_end);
	cm_free(&u->crc);
	free(u->mv);
	free(u->mvcrc);
	free(u->buf);
	free(u->rbuf);
	free(u->path);
	free(u);
}

int undo_begin(struct fs *fs, const char *path, struct undo **out,
	       struct err *e)
{
	return undo_begin_pass(fs, path, NULL, out, e);
}

int undo_begin_pass(struct fs *fs, const char *path,
		    const struct undo_link *link, struct undo **out,
		    struct err *e)
{
	struct hchain hc = { 1, 0, 0, 0 };
	struct undo *u;
	struct img *layer = NULL;
	bool created = false;
	int ret;

	*out = NULL;
	if (!fs->img->writable)
		return err_set(e, -EROFS, "%s: not open for writing; nothing "
			       "to journal", fs->path);
	if (link && link->pass > 1 && !link->prev)
		return err_set(e, -EINVAL, "undo file %s: pass %u needs the "
			       "undo file of the pass before", path, link->pass);
	if (link && link->pass > 1) {
		ret = read_prev(fs, link, &hc, e);
		if (ret)
			return ret;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return err_set(e, -ENOMEM, "out of memory");
	u->fd = -1;
	u->fs = fs;
	u->bs = fs->geo.blocksize;
	u->blocklog = fs->geo.blocklog;
	u->size = fs->img->size;
	u->nblocks = (u->size + u->bs - 1) >> u->blocklog;
	u->nonce = make_nonce();
	u->end = OD_UNDO_HDR_LEN;
	u->path = strdup(path);
	u->buf = malloc(OD_UNDO_REC_LEN + UNDO_REC_DATA);
	u->rbuf = malloc(UNDO_REC_DATA);
	u->refbuf = malloc(UNDO_REC_DATA);
	u->gen = 1;
	layer = calloc(1, sizeof(*layer));
	if (!u->path || !u->buf || !u->rbuf || !u->refbuf || !layer ||
	    bm_init(&u->done, u->nblocks) || bm_init(&u->refcopy, u->nblocks) ||
	    cm_init(&u->srcmv, u->nblocks) || cm_init(&u->cpmv, u->nblocks) ||
	    cm_init(&u->wgen, u->nblocks) || cm_init(&u->refat, u->nblocks) ||
	    cm_init(&u->refof, u->nblocks) ||
	    bm_init(&u->free, u->nblocks) || bm_init(&u->wrote, u->nblocks) ||
	    bm_init(&u->partial, u->nblocks) ||
	    bm_init(&u->free_end, u->nblocks) || cm_init(&u->crc, u->nblocks)) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	/* the log as the run begins: undo checks nobody wrote it since */
	undo_log_range(fs, &u->log_off, &u->log_len);
	ret = undo_crc_range(fs->img, u->log_off, u->log_len, &u->log_crc);
	if (ret) {
		err_set(e, ret, "%s: reading the log failed: %s", fs->path,
			strerror(-ret));
		goto fail;
	}
	u->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (u->fd < 0) {
		ret = -errno;
		if (ret == -EEXIST)
			err_set(e, ret, "undo file %s already exists; refusing "
				"to overwrite it", path);
		else
			err_set(e, ret, "undo file %s: %s", path,
				strerror(errno));
		goto fail;
	}
	created = true;
	ret = write_header(u, &hc, e);
	/* durable: now the file before may name it (before any write) */
	if (ret == 0 && hc.pass > 1)
		ret = undo_link_put(link->prev, u->nonce, hc.pass, e);
	if (ret)
		goto fail;
	layer->ops = &undo_ops;
	layer->priv = u;
	layer->size = fs->img->size;
	layer->writable = true;
	layer->lower = fs->img;
	fs->img = layer;
	u->layer = layer;
	*out = u;
	return 0;
fail:
	/* no image write happened: a half-made journal is worth nothing
	 * (and the file before must not name it) */
	if (created && hc.pass > 1) {
		struct err ignore = { 0 };

		undo_link_drop(link->prev, u->nonce, &ignore);
	}
	if (created)
		unlink(path);
	free(layer);
	undo_free(u);
	return ret;
}

void undo_end(struct fs *fs, struct undo *u)
{
	struct img *p;

	if (!u)
		return;
	if (u->layer) {
		if (fs->img == u->layer) {
			fs->img = u->layer->lower;
		} else {
			for (p = fs->img; p && p->lower != u->layer;
			     p = p->lower)
				;
			if (p)
				p->lower = u->layer->lower;
		}
		free(u->layer);
	}
	undo_free(u);
}
