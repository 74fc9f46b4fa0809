/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the bulk reader: a file whose every 8-byte word holds its
 * own offset, read as random streams of segments (holes of every size,
 * segments past the limit, unaligned starts) with every mechanism, with
 * and without direct I/O, at several depths, request sizes and hole
 * limits.  Every segment must come back once, in order, with its tag and
 * its bytes (or no bytes exactly when it lies past the limit); a reader
 * closed half way must not leak or write into freed memory (ASan); a
 * memory image hands every segment back unread.  fadvise also reads a
 * file half and wholly evicted from the page cache.
 */
#include "t.h"
#include "core/base/reader.h"

#include <fcntl.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#endif
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define FILE_SZ		(8u << 20)
#define MAXSEG		600

struct stream {
	struct rdr_seg v[MAXSEG];
	size_t n, next;
};

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

static bool pull(void *priv, struct rdr_seg *s)
{
	struct stream *st = priv;

	if (st->next == st->n)
		return false;
	*s = st->v[st->next++];
	return true;
}

/* Segments in disk order, up to maxlen bytes, some of them past limit. */
static void make_stream(struct stream *st, uint32_t *seed, uint32_t maxlen,
			uint64_t limit)
{
	uint64_t off = rnd(seed) % 5000;

	st->n = st->next = 0;
	while (st->n < MAXSEG) {
		struct rdr_seg *s = &st->v[st->n];
		uint32_t r = rnd(seed) % 8;
		uint64_t gap = r < 3 ? 0 : r < 5 ? rnd(seed) % 4096 :
			       r < 7 ? rnd(seed) % (200u << 10) :
			       rnd(seed) % (2u << 20);

		off += gap;
		s->len = 512 * (1 + rnd(seed) % 64);
		if (rnd(seed) % 4 == 0)
			s->len = 1 + rnd(seed) % (256u << 10);
		if (s->len > maxlen)
			s->len = maxlen;
		if (off + s->len > FILE_SZ + (1u << 20))
			break;
		s->off = off;
		s->tag = st->n * 7 + 1;
		off += s->len;
		st->n++;
	}
	(void)limit;
}

static bool bytes_ok(const uint8_t *p, uint64_t off, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++) {
		uint64_t w = (off + k) & ~7ull;
		uint8_t want = (uint8_t)(w >> (8 * ((off + k) & 7)));

		if (p[k] != want)
			return false;
	}
	return true;
}

/*
 * Drop the file's pages from the page cache: every other MiB (odd), or
 * all of them.  fadvise reads what the cache has segment by segment and
 * the rest in whole requests, after read-ahead hints.
 */
static void evict(const char *path, int odd)
{
	int fd = open(path, O_RDONLY);
	uint64_t o;

	if (fd < 0)
		return;
	fsync(fd);
	for (o = odd ? 1u << 20 : 0; o < FILE_SZ; o += odd ? 2u << 20 : FILE_SZ)
		posix_fadvise(fd, (off_t)o, odd ? 1 << 20 : FILE_SZ,
			      POSIX_FADV_DONTNEED);
	close(fd);
}

/* Read the whole file once: every page in the page cache. */
static void cache(const char *path)
{
	static uint8_t buf[1u << 16];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/* Does the reader go on with direct io_uring reads at its first miss? */
static bool cold_direct(unsigned h, unsigned d)
{
#ifdef HAVE_LIBURING
	struct io_uring ring;
	bool ok = io_uring_queue_init(1, &ring, 0) == 0;

	/* a kernel may refuse io_uring (io_uring_disabled): then the cache */
	if (ok)
		io_uring_queue_exit(&ring);
	return ok && h == 0 && d == 1;
#else
	(void)h;
	(void)d;
	return false;
#endif
}

/*
 * Read the whole stream (or stop after half) and check what comes back;
 * the mechanism in use at the end.
 */
static enum rdr_how run(struct t_state *ts, struct img *im,
			const struct rdr_cfg *cfg, struct stream *st,
			bool half, bool expect_data)
{
	enum rdr_how how;
	struct rdr_item it;
	struct rdr *r;
	size_t i = 0, bad = 0, unread = 0;
	uint64_t limit = cfg->limit ? cfg->limit : im->size;

	st->next = 0;
	T_CHECK(ts, rdr_open(im, cfg, pull, st, &r) == 0);
	if (!r)
		return RDR_NHOW;
	while (rdr_get(r, &it)) {
		const struct rdr_seg *want = &st->v[i];
		bool past = want->off + want->len > limit;

		if (it.seg.off != want->off || it.seg.len != want->len ||
		    it.seg.tag != want->tag || !it.scratch) {
			bad++;
			break;
		}
		if (!it.data) {
			unread++;
			if (expect_data && !past)
				bad++;
		} else if (past || !bytes_ok(it.data, it.seg.off, it.seg.len)) {
			bad++;
		}
		/* the scratch buffer takes a whole segment */
		memset(it.scratch, 0xa5, it.seg.len);
		i++;
		if (half && i == st->n / 2)
			break;
	}
	T_CHECK(ts, bad == 0);
	T_CHECK(ts, half ? i == st->n / 2 : i == st->n);
	if (!expect_data)
		T_CHECK(ts, unread == i);
	how = rdr_how(r);
	rdr_close(r);
	return how;
}

int main(void)
{
	static const char *const how[] = { "auto", "sync", "fadvise",
					   "thread", "uring", "mmap" };
	static const struct rdr_cfg cfgs[] = {
		{ 0, 0, 0, 0, false },
		{ 1, 4096, 0, 0, false },
		{ 4, 65536, 1, 0, false },
		{ 8, 1u << 20, 1u << 20, 0, false },
		{ 3, 256u << 10, 8192, FILE_SZ / 2 + 1234, false },
		{ 2, 1u << 20, 65536, FILE_SZ - 100, false },
	};
	struct t_state ts = { 0, 0 };
	char path[] = "/tmp/xfsdefrag-test-reader.XXXXXX";
	const char *tmpdir = getenv("TMPDIR");
	char tpath[4096];
	struct stream *st = malloc(sizeof(*st));
	uint64_t *words = malloc(FILE_SZ);
	struct img *im = NULL, *mem = NULL;
	struct err e = { 0 };
	uint32_t seed = 12345;
	unsigned h, c, d;
	bool have_direct = false;
	int fd;

	if (tmpdir && *tmpdir) {
		snprintf(tpath, sizeof(tpath), "%s/xfsdefrag-test-reader."
			 "XXXXXX", tmpdir);
		fd = mkstemp(tpath);
	} else {
		fd = mkstemp(path);
		snprintf(tpath, sizeof(tpath), "%s", path);
	}
	T_CHECK(&ts, fd >= 0 && st && words);
	if (fd < 0 || !st || !words)
		return t_done(&ts, "reader");
	for (size_t k = 0; k < FILE_SZ / 8; k++)
		words[k] = k * 8;
	T_CHECK(&ts, write(fd, words, FILE_SZ) == (ssize_t)FILE_SZ);
	close(fd);

	T_CHECK(&ts, rdr_how_parse("uring") == RDR_URING);
	T_CHECK(&ts, rdr_how_parse("nonsense") < 0);
	T_CHECK(&ts, img_open_file(tpath, 0, &im, &e) == 0);
	/* d: no direct descriptor; one for what the cache misses; always */
	for (d = 0; im && d < 3; d++) {
		if (d > 0) {
			int ret = img_set_direct(im, d == 2);

			if (ret) {
				printf("reader: no direct I/O in %s (%s): "
				       "direct cases skipped\n", tpath,
				       strerror(-ret));
				break;
			}
			have_direct = true;
		}
		for (h = 0; h < sizeof(how) / sizeof(how[0]); h++) {
			struct img_bulk b = { rdr_how_parse(how[h]), 0, 0, 0 };

			img_set_bulk(im, &b);
			for (c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
				struct rdr_cfg cfg = cfgs[c];

				make_stream(st, &seed, cfg.max_req ?
					    cfg.max_req : 1u << 20, cfg.limit);
				bool warm = (h == 0 || h == 2) && d < 2;
				enum rdr_how got;

				run(&ts, im, &cfg, st, false, true);
				run(&ts, im, &cfg, st, true, true);
				if (!warm)
					continue;
				/*
				 * Wholly cached: read from the cache.  Half,
				 * then none: cached, then a miss, and the rest
				 * read cold, from the device directly when
				 * auto has a direct descriptor.
				 */
				cache(tpath);
				got = run(&ts, im, &cfg, st, false, true);
				T_CHECK(&ts, got == RDR_FADVISE);
				evict(tpath, 1);
				got = run(&ts, im, &cfg, st, false, true);
				T_CHECK(&ts, got == (cold_direct(h, d) ?
						     RDR_URING : RDR_FADVISE));
				evict(tpath, 0);
				got = run(&ts, im, &cfg, st, true, true);
				T_CHECK(&ts, got == (cold_direct(h, d) ?
						     RDR_URING : RDR_FADVISE));
				/* fill_cache: cold, and still through it */
				evict(tpath, 0);
				cfg.fill_cache = true;
				got = run(&ts, im, &cfg, st, false, true);
				T_CHECK(&ts, got == RDR_FADVISE);
				cfg.fill_cache = false;
			}
		}
	}
	(void)have_direct;

	/* a memory image: every segment comes back for the caller to read */
	T_CHECK(&ts, img_open_mem(words, FILE_SZ, 0, &mem) == 0);
	if (mem) {
		struct rdr_cfg cfg = { 0, 0, 0, 0, false };

		make_stream(st, &seed, 1u << 20, 0);
		run(&ts, mem, &cfg, st, false, false);
		img_close(mem);
	}
	img_close(im);
	unlink(tpath);
	free(st);
	free(words);
	return t_done(&ts, "reader");
}
