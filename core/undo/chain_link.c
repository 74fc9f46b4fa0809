/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The links between the undo files of a run in passes, on the run's side
 * (chain.h): reading the end of a finished file (its end record, its
 * seal, a link after them), appending the link record that names the
 * next pass's file, and dropping it again when the run removes that file.
 * These touch only the last records of a file: its end is found from the
 * end, without reading what it journaled.
 */
#include "core/undo/chain.h"
#include "core/undo/undo_priv.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_at(int fd, void *buf, size_t len, uint64_t pos)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		pos += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* The record header at pos (0 and r, or <0: none there). */
static int rec_at(int fd, uint64_t nonce, uint64_t pos, struct od_undo_rec *r)
{
	uint8_t hb[OD_UNDO_REC_LEN];
	const char *field;

	if (read_at(fd, hb, sizeof(hb), pos))
		return -EIO;
	return od_undo_rec_decode(hb, sizeof(hb), nonce, r, &field) == OD_OK ?
	       0 : -EFSCORRUPTED;
}

static int tail_of(int fd, const char *path, struct undo_tail *t, struct err *e)
{
	uint8_t hb[OD_UNDO_HDR_LEN], sd[OD_UNDO_SEAL_LEN], nd[OD_UNDO_NEXT_LEN];
	struct od_undo_hdr h;
	struct od_undo_rec r, q;
	struct od_undo_seal seal;
	const char *field;
	struct stat st;
	uint64_t at, j;

	memset(t, 0, sizeof(*t));
	if (fstat(fd, &st) < 0)
		return err_set(e, -errno, "undo file %s: %s", path,
			       strerror(errno));
	t->fsize = (uint64_t)st.st_size;
	if (t->fsize < OD_UNDO_HDR_LEN || read_at(fd, hb, sizeof(hb), 0) ||
	    od_undo_hdr_decode(hb, sizeof(hb), &h, &field) != OD_OK)
		return err_set(e, -EFSCORRUPTED, "undo file %s: no valid "
			       "header", path);
	t->nonce = h.nonce;
	t->chain = h.chain;
	t->pass = h.pass;
	t->version = h.version;
	/* a link record last, or the end record (a torn link after it) */
	if (t->fsize >= OD_UNDO_HDR_LEN + 2 * OD_UNDO_REC_LEN +
	    OD_UNDO_NEXT_LEN &&
	    rec_at(fd, h.nonce, t->fsize - OD_UNDO_REC_LEN - OD_UNDO_NEXT_LEN,
		   &q) == 0 && q.kind == OD_UNDO_NEXT &&
	    read_at(fd, nd, sizeof(nd), t->fsize - OD_UNDO_NEXT_LEN) == 0 &&
	    od_undo_crc(nd, sizeof(nd)) == q.dcrc &&
	    od_undo_next_decode(nd, sizeof(nd), &t->next) == OD_OK) {
		at = t->fsize - 2 * OD_UNDO_REC_LEN - OD_UNDO_NEXT_LEN;
		if (rec_at(fd, h.nonce, at, &r) == 0 && r.end &&
		    r.seq + 1 == q.seq) {
			t->has_next = true;
			t->end_at = at + OD_UNDO_REC_LEN;
		}
	}
	for (j = 0; !t->end_at && j <= OD_UNDO_REC_LEN + OD_UNDO_NEXT_LEN;
	     j++) {
		if (t->fsize < OD_UNDO_HDR_LEN + 2 * OD_UNDO_REC_LEN + j)
			break;
		at = t->fsize - OD_UNDO_REC_LEN - j;
		if (rec_at(fd, h.nonce, at, &r) == 0 && r.end)
			t->end_at = at + OD_UNDO_REC_LEN;
	}
	if (!t->end_at)
		return err_set(e, -EFSCORRUPTED, "undo file %s has no end "
			       "record: its run did not finish", path);
	/* the seal: the record before the end record */
	at = t->end_at - 2 * OD_UNDO_REC_LEN - OD_UNDO_SEAL_LEN;
	if (t->end_at < OD_UNDO_HDR_LEN + 2 * OD_UNDO_REC_LEN +
	    OD_UNDO_SEAL_LEN || rec_at(fd, h.nonce, at, &q) ||
	    q.kind != OD_UNDO_SEAL || q.seq + 1 != r.seq ||
	    read_at(fd, sd, sizeof(sd), at + OD_UNDO_REC_LEN) ||
	    od_undo_crc(sd, sizeof(sd)) != q.dcrc ||
	    od_undo_seal_decode(sd, sizeof(sd), &seal) != OD_OK)
		return err_set(e, -EFSCORRUPTED, "undo file %s: no valid seal "
			       "before its end record", path);
	t->seal_dcrc = q.dcrc;
	t->seal_sb_crc = seal.sb_crc;
	return 0;
}

int undo_tail_read(const char *path, struct undo_tail *t, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return err_set(e, -errno, "undo file %s: %s", path,
			       strerror(errno));
	ret = tail_of(fd, path, t, e);
	close(fd);
	return ret;
}

static int put_all(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* Truncate what follows the end record (a link), synced. */
static int cut_after_end(int fd, const char *path, const struct undo_tail *t,
			 struct err *e)
{
	if (t->fsize == t->end_at)
		return 0;
	if (ftruncate(fd, (off_t)t->end_at) < 0 || fsync(fd) < 0)
		return err_set(e, -errno, "undo file %s: dropping its link "
			       "record failed: %s", path, strerror(errno));
	return 0;
}

int undo_link_put(const char *path, uint64_t next_nonce, unsigned next_pass,
		  struct err *e)
{
	uint8_t buf[OD_UNDO_REC_LEN + OD_UNDO_NEXT_LEN];
	struct od_undo_next nx = { next_nonce, next_pass };
	struct od_undo_rec r = { 0 }, end;
	struct undo_tail t;
	int fd = open(path, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return err_set(e, -errno, "undo file %s: %s", path,
			       strerror(errno));
	ret = tail_of(fd, path, &t, e);
	if (ret == 0)
		ret = cut_after_end(fd, path, &t, e);
	if (ret == 0 && rec_at(fd, t.nonce, t.end_at - OD_UNDO_REC_LEN, &end))
		ret = err_set(e, -EIO, "undo file %s: its end record changed",
			      path);
	if (ret == 0) {
		od_undo_next_encode(&nx, buf + OD_UNDO_REC_LEN);
		r.kind = OD_UNDO_NEXT;
		r.len = OD_UNDO_NEXT_LEN;
		r.seq = end.seq + 1;
		r.batch = r.seq;
		r.dcrc = od_undo_crc(buf + OD_UNDO_REC_LEN, OD_UNDO_NEXT_LEN);
		od_undo_rec_encode(&r, t.nonce, buf);
		ret = put_all(fd, buf, sizeof(buf), t.end_at);
		if (ret == 0 && fsync(fd) < 0)
			ret = -errno;
		if (ret)
			err_set(e, ret, "undo file %s: appending the link to "
				"the next pass's file failed: %s", path,
				strerror(-ret));
	}
	close(fd);
	return ret;
}

int undo_link_drop(const char *path, uint64_t only, struct err *e)
{
	struct undo_tail t;
	int fd = open(path, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return err_set(e, -errno, "undo file %s: %s", path,
			       strerror(errno));
	ret = tail_of(fd, path, &t, e);
	if (ret == 0 && (!only || !t.has_next || t.next.nonce == only))
		ret = cut_after_end(fd, path, &t, e);
	close(fd);
	return ret;
}

/* The file of the pass before path's (pass > 1), by the names. */
static bool prev_name(const char *path, unsigned pass, char *buf,
		      size_t len)
{
	char suffix[16];
	size_t pl = strlen(path), sl;

	snprintf(suffix, sizeof(suffix), ".%u", pass);
	sl = strlen(suffix);
	if (pass < 2 || pl <= sl || strcmp(path + pl - sl, suffix) != 0 ||
	    pl - sl >= len)
		return false;
	memcpy(buf, path, pl - sl);
	buf[pl - sl] = '\0';
	if (pass > 2) {
		char base[1100];

		snprintf(base, sizeof(base), "%s", buf);
		undo_chain_name(base, pass - 1, buf, len);
	}
	return true;
}

int undo_discard(const char *path, struct err *e)
{
	uint8_t hb[OD_UNDO_HDR_LEN];
	struct od_undo_hdr h;
	const char *field;
	char prev[1100];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd >= 0) {
		if (read_at(fd, hb, sizeof(hb), 0) == 0 &&
		    od_undo_hdr_decode(hb, sizeof(hb), &h, &field) == OD_OK &&
		    h.pass > 1 && prev_name(path, h.pass, prev, sizeof(prev)) &&
		    access(prev, F_OK) == 0)
			ret = undo_link_drop(prev, h.nonce, e);
		close(fd);
	}
	if (ret)
		return ret;
	if (unlink(path) < 0 && errno != ENOENT)
		return err_set(e, -errno, "undo file %s: %s", path,
			       strerror(errno));
	ret = undo_sync_dir(path);
	if (ret)
		return err_set(e, ret, "undo file %s: fsync of its directory "
			       "failed: %s", path, strerror(-ret));
	return 0;
}
