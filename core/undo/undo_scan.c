/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading an undo file back: verify the header and every record, and
 * check the journal belongs to the filesystem at hand (undo_verify.c
 * then checks the filesystem is as the run left it, undo_apply.c
 * restores).
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
 *
 * Version 4: reference records among the data records (a later data
 * record of the same blocks supersedes a reference).
 * Order: data records, then (version 2) the run's proof and move records
 * and one seal, then the end record.  A seal whose own batch lost a proof
 * record is no seal (undo_verify counts them): the run's last writes
 * wait for it to be durable.  Version 3: record 0 is the original of
 * block 0, written with the header (a file without it was cut short),
 * and a link record may follow the end record: the next pass's file
 * began (chain.c).  A torn link is none: the next pass had not written.
 */
#include "core/undo/undo_scan.h"
#include "core/base/array.h"
#include "core/base/sort.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCAN_WINDOW	(1u << 20)	/* hunt() reads this much */

int scan_read_at(struct scan *s, void *buf, size_t len, uint64_t pos,
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

int scan_damaged(struct scan *s, struct err *e, uint64_t pos,
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
	ret = scan_read_at(s, buf, OD_UNDO_HDR_LEN, 0, e);
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
int scan_data_buf(struct scan *s, size_t len, struct err *e)
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

	if (r->kind != OD_UNDO_DATA)
		return 0;
	if (r->off % h->blocksize || r->off >= h->image_size ||
	    r->len > h->image_size - r->off ||
	    (r->len % h->blocksize && r->off + r->len != h->image_size))
		return scan_damaged(s, e, pos, "a record covers no whole blocks "
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
	ret = scan_read_at(s, hb, sizeof(hb), pos, e);
	if (ret)
		return ret;
	oe = od_undo_rec_decode(hb, sizeof(hb), s->h.nonce, r, &field);
	if (oe == OD_EFIELD)
		return scan_damaged(s, e, pos, "a record has an impossible length "
			       "or batch");
	if (oe)
		return 1;
	ret = rec_sane(s, r, pos, e);
	if (ret)
		return ret;
	if (r->len > s->fsize - pos - OD_UNDO_REC_LEN)
		return 2;
	ret = scan_data_buf(s, r->len, e);
	if (ret == 0 && r->len)
		ret = scan_read_at(s, s->buf, r->len, pos + OD_UNDO_REC_LEN, e);
	if (ret)
		return ret;
	return od_undo_crc(s->buf, r->len) == r->dcrc ? 0 : 2;
}

static int push_to(struct journal_rec **v, size_t *n, size_t *cap,
		   const struct journal_rec *r, struct err *e)
{
	if (array_grow((void **)v, cap, *n, sizeof(**v), 256))
		return err_set(e, -ENOMEM, "out of memory");
	(*v)[(*n)++] = *r;
	return 0;
}

/* A reference record's entries (its data in s->buf). */
static int keep_refs(struct scan *s, const struct od_undo_rec *r, uint64_t pos,
		     struct err *e)
{
	uint64_t nblocks = s->h.image_size / s->h.blocksize;
	uint32_t at;

	if (s->h.version < OD_UNDO_VERSION_REF)
		return scan_damaged(s, e, pos, "a file older than version 4 "
				    "holds a reference record");
	for (at = 0; at + OD_UNDO_REF_ENT <= r->len; at += OD_UNDO_REF_ENT) {
		struct od_undo_ref f;

		od_undo_ref_decode(s->buf + at, &f);
		if (f.n == 0 || f.block == 0 || f.block > nblocks ||
		    f.n > nblocks - f.block || f.copy > nblocks ||
		    f.n > nblocks - f.copy ||
		    (f.block < f.copy + f.n && f.copy < f.block + f.n))
			return scan_damaged(s, e, pos, "a reference record "
					    "names blocks outside the image");
		if (array_grow((void **)&s->rf, &s->caprf, s->nrf,
			       sizeof(*s->rf), 256))
			return err_set(e, -ENOMEM, "out of memory");
		s->rf[s->nrf++] = (struct scan_ref){ f.block, f.copy, f.n,
						     f.crc, r->seq, pos, true };
	}
	s->ref_bytes += r->len;
	return 0;
}

/* A valid record other than the end record (its data in s->buf). */
static int keep(struct scan *s, const struct od_undo_rec *r, uint64_t pos,
		struct err *e)
{
	struct journal_rec u = { r->seq, pos, r->off, r->len, r->dcrc, r->kind };
	int ret;

	if (s->sealed)
		return scan_damaged(s, e, pos, "a record follows the seal");
	if (r->kind != OD_UNDO_DATA && s->h.version < 2)
		return scan_damaged(s, e, pos, "a version 1 file holds a "
				    "version 2 record");
	if (r->kind == OD_UNDO_NEXT)
		return scan_damaged(s, e, pos, "a link record before the end "
				    "record");
	if (r->seq == 0 && s->h.version >= OD_UNDO_VERSION_CHAIN &&
	    (r->kind != OD_UNDO_DATA || r->off != 0 ||
	     r->len < (s->h.image_size < s->h.blocksize ? s->h.image_size :
		       s->h.blocksize)))
		return scan_damaged(s, e, pos, "its first record is not the "
				    "original of block 0");
	switch (r->kind) {
	case OD_UNDO_REFS:
		return keep_refs(s, r, pos, e);
	case OD_UNDO_DATA:
		ret = push_to(&s->v, &s->n, &s->cap, &u, e);
		if (ret)
			return ret;
		s->bytes += r->len;
		note(s, r->seq, pos, r->off, r->len, false);
		return 0;
	case OD_UNDO_SEAL:
		if (od_undo_seal_decode(s->buf, r->len, &s->seal) != OD_OK)
			return scan_damaged(s, e, pos, "the seal record has bad "
					    "fields");
		s->seal_dcrc = r->dcrc;
		if (s->seal.data_bytes != s->bytes)
			return scan_damaged(s, e, pos, "the seal does not count "
					    "the bytes journaled");
		s->sealed = true;
		return 0;
	default:
		return push_to(&s->m, &s->nm, &s->capm, &u, e);
	}
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
		ret = scan_read_at(s, w, n, base, e);
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
		return scan_damaged(s, e, pos, "a record is out of sequence");
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
			return scan_damaged(s, e, p, what);
		}
		if (r.seq < min_seq)
			return scan_damaged(s, e, p, "a record is out of sequence");
		min_seq = r.seq + 1;
		if (rc == 2) {
			s->torn++;
			note(s, r.seq, p, r.off, r.len, true);
		} else {
			rc = keep(s, &r, p, e);
			if (rc)
				return rc;
		}
		p += OD_UNDO_REC_LEN + (uint64_t)r.len;
	}
	return 0;
}

/*
 * What follows the end record of a v3 file (at pos): nothing, or a link
 * record ending the file.  Bytes that are no valid link are a torn one
 * (next_torn), ignored; a valid link followed by more is damage.
 */
static int scan_link(struct scan *s, uint64_t pos, uint64_t seq,
		     struct err *e)
{
	struct od_undo_rec r;
	int rc;

	if (pos == s->fsize)
		return 0;
	rc = read_rec(s, pos, &r, e);
	if (rc < 0)
		return rc;
	if (rc > 0 || r.kind != OD_UNDO_NEXT || r.seq != seq ||
	    od_undo_next_decode(s->buf, r.len, &s->next) != OD_OK) {
		s->next_torn = true;
		memset(&s->next, 0, sizeof(s->next));
		return 0;
	}
	if (pos + OD_UNDO_REC_LEN + r.len != s->fsize)
		return scan_damaged(s, e, pos + OD_UNDO_REC_LEN + r.len,
				    "data follows the link record");
	s->has_next = true;
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
			rc = scan_damaged(s, e, pos, "a record is out of sequence");
			break;
		}
		if (r.end) {
			bool linked = s->h.version >= OD_UNDO_VERSION_CHAIN;

			if (r.off != s->bytes)
				rc = scan_damaged(s, e, pos, "the end record does "
					     "not count the bytes journaled");
			else if (!linked && pos + OD_UNDO_REC_LEN != s->fsize)
				rc = scan_damaged(s, e, pos, "data follows the end "
					     "record");
			else if (s->h.version >= 2 && !s->sealed)
				rc = scan_damaged(s, e, pos, "the end record has "
					     "no seal before it");
			else if (linked)
				rc = scan_link(s, pos + OD_UNDO_REC_LEN,
					       r.seq + 1, e);
			s->complete = rc == 0;
			s->end_at = pos + OD_UNDO_REC_LEN;
			break;
		}
		rc = keep(s, &r, pos, e);
		if (rc)
			break;
		pos += OD_UNDO_REC_LEN + (uint64_t)r.len;
		expect++;
	}
	return rc;
}

static int urec_cmp(const void *a, const void *b)
{
	const struct journal_rec *x = a, *y = b;

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
		return scan_damaged(s, e, s->v[i].pos, what);
	}
	return 0;
}

const struct journal_rec *scan_record_of(const struct scan *s, uint64_t b)
{
	uint64_t off = b * s->h.blocksize;
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct journal_rec *r = &s->v[mid];

		if (off < r->off)
			hi = mid;
		else if (off >= r->off + r->len)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct scan_ref *x = *(const struct scan_ref *const *)a;
	const struct scan_ref *y = *(const struct scan_ref *const *)b;

	return x->d < y->d ? -1 : x->d > y->d;
}

/*
 * Which references count: a data record after one, holding its blocks,
 * supersedes it (all of them, or the file is damaged); one before it
 * means a block was journaled twice.  Live references never overlap.
 */
static int check_refs(struct scan *s, struct err *e)
{
	const struct scan_ref **live;
	size_t k, nlive = 0;
	char what[160];
	int ret = 0;

	for (k = 0; k < s->nrf && !ret; k++) {
		struct scan_ref *f = &s->rf[k];
		uint32_t i, later = 0;

		for (i = 0; i < f->n; i++) {
			const struct journal_rec *r = scan_record_of(s, f->d + i);

			if (!r)
				continue;
			if (r->seq < f->seq) {
				snprintf(what, sizeof(what), "image block %llu "
					 "is both journaled (record %llu) and "
					 "referenced after it",
					 (unsigned long long)(f->d + i),
					 (unsigned long long)r->seq);
				return scan_damaged(s, e, f->pos, what);
			}
			later++;
		}
		if (later && later != f->n)
			return scan_damaged(s, e, f->pos, "a data record "
					    "supersedes part of a reference");
		f->live = later == 0;
		if (f->live)
			s->ref_blocks += f->n;
	}
	live = malloc((s->nrf ? s->nrf : 1) * sizeof(*live));
	if (!live)
		return err_set(e, -ENOMEM, "out of memory");
	for (k = 0; k < s->nrf; k++)
		if (s->rf[k].live)
			live[nlive++] = &s->rf[k];
	if (nlive > 1)
		qsort(live, nlive, sizeof(*live), ref_cmp);
	for (k = 1; k < nlive && !ret; k++)
		if (live[k - 1]->d + live[k - 1]->n > live[k]->d) {
			snprintf(what, sizeof(what), "two references hold "
				 "image block %llu",
				 (unsigned long long)live[k]->d);
			ret = scan_damaged(s, e, live[k]->pos, what);
		}
	s->lv = live;
	s->nlv = nlive;
	return ret;
}

const struct scan_ref *scan_ref_of(const struct scan *s, uint64_t b)
{
	size_t lo = 0, hi = s->nlv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct scan_ref *f = s->lv[mid];

		if (b < f->d)
			hi = mid;
		else if (b >= f->d + f->n)
			lo = mid + 1;
		else
			return f;
	}
	return NULL;
}

void undo_fmt_uuid(const uint8_t *u, char *out)
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
		undo_fmt_uuid(h->uuid, a);
		undo_fmt_uuid(fs->sb.uuid, b);
		return err_set(e, -EXDEV, "undo file %s belongs to filesystem "
			       "%s, not %s of %s", s->path, a, b, fs->path);
	}
	if (memcmp(h->meta_uuid, fs->sb.meta_uuid, 16) != 0) {
		undo_fmt_uuid(h->meta_uuid, a);
		undo_fmt_uuid(fs->sb.meta_uuid, b);
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
	/* a shrink leaves fewer blocks and AGs: the superblock check says
	 * whether it is this run's (undo_verify.c) */
	else if (h->agcount < g->agcount ||
		 (h->agcount != g->agcount && h->dblocks <= g->dblocks))
		what = "agcount", was = h->agcount, is = g->agcount;
	else if (h->dblocks < g->dblocks)
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

int undo_image_size(const char *path, uint64_t *size, struct err *e)
{
	struct scan s = { .fd = -1 };
	int ret = open_hdr(&s, path, e);

	*size = ret ? 0 : s.h.image_size;
	if (s.fd >= 0)
		close(s.fd);
	return ret;
}

void scan_free(struct scan *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->v);
	free(s->m);
	free(s->rf);
	free(s->lv);
	free(s->buf);
}

int scan_all(struct scan *s, const char *path, struct fs *fs,
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
	if (ret == 0)
		ret = check_refs(s, e);
	if (ret == 0 && fs)
		ret = check_fits(s, fs, e);
	return ret;
}

void scan_fill_info(const struct scan *s, struct undo_info *info)
{
	memset(info, 0, sizeof(*info));
	memcpy(info->uuid, s->h.uuid, 16);
	info->dblocks = s->h.dblocks;
	info->blocksize = s->h.blocksize;
	info->records = s->n;
	info->bytes = s->bytes;
	info->ref_blocks = s->ref_blocks;
	info->ref_bytes = s->ref_bytes;
	info->complete = s->complete;
	info->torn_tail = s->torn > 0;
	info->torn = s->torn;
	info->image_size = s->h.image_size;
	info->ctime = s->h.ctime;
	info->version = s->h.version;
	info->state = s->complete ? UNDO_COMPLETE : s->sealed ? UNDO_SEALED :
		      UNDO_INTERRUPTED;
	info->log_checked = s->h.log_len != 0;
	snprintf(info->image, sizeof(info->image), "%s", s->h.path);
}

