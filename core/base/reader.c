/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bulk reader (reader.h).  A ring of depth requests: the consumer
 * plans requests from the segment stream as slots free up and takes
 * segments from the oldest; how a planned request gets read depends on
 * the mechanism.
 */
#include "core/base/reader.h"
#include "core/base/array.h"
#include "core/base/bigmem.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#define DEF_DEPTH	4
#define DEF_REQ		(1u << 20)
#define DEF_GAP		(64u << 10)

enum { R_FREE, R_PLANNED, R_BUSY, R_DONE };

struct req {
	uint64_t off, end;	/* bytes the segments want */
	uint64_t roff;		/* bytes read: [roff, roff + rlen) */
	size_t rlen;
	bool direct;
	bool unread;		/* not to be read: segments come back empty */
	bool whole;		/* read whole, holes too (rdr_item.req) */
	int state;
	int res;		/* 0, or negative errno */
	size_t done;		/* bytes read so far (io_uring) */
	uint8_t *buf;		/* max_req + 2 * align bytes, aligned */
	uint8_t *map;		/* mmap: the mapping, maplen bytes at roff */
	size_t maplen;
	struct rdr_seg *seg;
	size_t nseg, cap;
};

struct rdr {
	struct img *im;
	struct img_raw raw;
	bool have_raw;
	enum rdr_how how;
	unsigned depth, align;
	uint64_t page;
	uint32_t max_req, max_gap;
	uint64_t limit;
	rdr_next_fn next;
	void *priv;
	struct rdr_seg pend;
	bool have_pend, eof;
	struct req *q;
	unsigned head, count;	/* oldest request, requests planned */
	size_t cur;		/* next segment of the oldest */
	uint8_t *map, *dmap;	/* the buffers (dmap: go_direct's) */
	size_t maplen, dmaplen, bufsz;
	uint8_t *sbuf;		/* sync and fadvise: the one buffer */
	bool cold;		/* fadvise: a segment was not in the cache */
	bool use_direct;	/* requests planned for dfd */
	bool cold_direct;	/* fadvise: cold, go on with io_uring on dfd */
	bool fill_cache;	/* rdr_cfg.fill_cache: no cold_direct */
#ifdef HAVE_LIBURING
	struct io_uring ring;
	unsigned inflight;
#endif
	/* thread */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool th_started, stop;
	unsigned tnext;		/* the next slot the thread reads */
};

static const char *const how_names[RDR_NHOW] = {
	"auto", "sync", "fadvise", "thread", "uring", "mmap",
};

int rdr_how_parse(const char *name)
{
	int i;

	for (i = 0; i < RDR_NHOW; i++)
		if (strcmp(name, how_names[i]) == 0)
			return i;
	return -1;
}

const char *rdr_how_name(enum rdr_how how)
{
	return how < RDR_NHOW ? how_names[how] : "?";
}

enum rdr_how rdr_how(const struct rdr *r)
{
	return r->how;
}

uint32_t rdr_max_seg(const struct rdr *r)
{
	return r->max_req;
}

/* All of [off, off + len) into buf, or negative errno. */
static int read_full(int fd, uint8_t *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENXIO;
		buf += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read request q now, on this thread. */
static void read_req(struct rdr *r, struct req *q, uint8_t *buf)
{
	if (q->unread)
		return;
	q->res = read_full(q->direct ? r->raw.dfd : r->raw.fd, buf, q->rlen,
			   r->raw.base + q->roff);
	if (q->res && q->direct) {
		/* try once more through the page cache (EINVAL: alignment) */
		q->direct = false;
		q->roff = q->off;
		q->rlen = (size_t)(q->end - q->off);
		q->res = read_full(r->raw.fd, buf, q->rlen,
				   r->raw.base + q->roff);
	}
}

/*
 * fadvise, from a warm page cache: each segment alone and without
 * waiting (RWF_NOWAIT fails rather than wait for the device), so that
 * neither the bytes between segments nor read-ahead hints are paid for.
 * False at the first miss: the
 * request is then read whole, and the rest of the stream as if cold.
 */
static bool read_cached(struct rdr *r, struct req *q, uint8_t *buf)
{
	size_t i;

	for (i = 0; i < q->nseg; i++) {
		const struct rdr_seg *sg = &q->seg[i];
		struct iovec iov = { buf + (sg->off - q->roff), sg->len };

		if (preadv2(r->raw.fd, &iov, 1, (off_t)(r->raw.base + sg->off),
			    RWF_NOWAIT) !=
		    (ssize_t)sg->len)
			return false;
	}
	return true;
}

/* ---- mechanisms: start reading a planned request, wait for it ---- */

#ifdef HAVE_LIBURING
static int uring_submit(struct rdr *r, unsigned slot)
{
	struct req *q = &r->q[slot];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_read(sqe, q->direct ? r->raw.dfd : r->raw.fd,
			   q->buf + q->done, (unsigned)(q->rlen - q->done),
			   r->raw.base + q->roff + q->done);
	io_uring_sqe_set_data64(sqe, slot);
	r->inflight++;
	/* if this fails the entry stays queued: uring_reap submits it */
	io_uring_submit(&r->ring);
	return 0;
}

/* Reap one completion; a short read goes back in for the rest. */
static void uring_reap(struct rdr *r)
{
	struct io_uring_cqe *cqe;
	struct req *q;
	int ret;

	do {
		ret = io_uring_submit_and_wait(&r->ring, 1);
		if (ret >= 0)
			ret = io_uring_peek_cqe(&r->ring, &cqe);
	} while (ret == -EINTR || ret == -EAGAIN);
	if (ret < 0) {
		/* the ring is broken: finish what is left with pread */
		unsigned i;

		for (i = 0; i < r->depth; i++)
			if (r->q[i].state == R_BUSY) {
				read_req(r, &r->q[i], r->q[i].buf);
				r->q[i].state = R_DONE;
			}
		r->inflight = 0;
		return;
	}
	q = &r->q[io_uring_cqe_get_data64(cqe)];
	ret = cqe->res;
	io_uring_cqe_seen(&r->ring, cqe);
	r->inflight--;
	if (ret > 0)
		q->done += (size_t)ret;
	if ((ret == -EAGAIN || ret == -EINTR ||
	     (ret > 0 && q->done < q->rlen)) &&
	    uring_submit(r, (unsigned)(q - r->q)) == 0)
		return;
	if (ret <= 0 || q->done < q->rlen)
		read_req(r, q, q->buf);	/* once more, synchronously */
	q->state = R_DONE;
}
#endif

static void *reader_thread(void *arg)
{
	struct rdr *r = arg;

	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		struct req *q = &r->q[r->tnext];

		if (q->state != R_PLANNED) {
			pthread_cond_wait(&r->cv, &r->mu);
			continue;
		}
		q->state = R_BUSY;
		pthread_mutex_unlock(&r->mu);
		read_req(r, q, q->buf);
		pthread_mutex_lock(&r->mu);
		q->state = R_DONE;
		r->tnext = (r->tnext + 1) % r->depth;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static void start(struct rdr *r, unsigned slot)
{
	struct req *q = &r->q[slot];

	if (q->unread && r->how != RDR_THREAD) {
		q->state = R_DONE;
		return;
	}
	switch (r->how) {
	case RDR_FADVISE:
	case RDR_MMAP:
		/* the kernel starts the reads; pread finds them in the cache */
		if (r->how == RDR_MMAP || r->cold)
			posix_fadvise(r->raw.fd, (off_t)(r->raw.base + q->roff),
				      (off_t)q->rlen, POSIX_FADV_WILLNEED);
		q->state = R_PLANNED;
		break;
	case RDR_THREAD:
		pthread_mutex_lock(&r->mu);
		q->state = R_PLANNED;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		break;
	case RDR_URING:
#ifdef HAVE_LIBURING
		q->state = R_BUSY;
		q->done = 0;
		if (uring_submit(r, slot) == 0)
			break;
		read_req(r, q, q->buf);
		q->state = R_DONE;
#endif
		break;
	default:
		q->state = R_PLANNED;
		break;
	}
}

/*
 * Map request q from the page cache instead of copying it.  Populating
 * the mapping reads what is not cached and reports errors (a plain
 * fault would be SIGBUS); 0, or -1 and the caller preads instead.  The
 * mapping lives until the consumer leaves the request.  (An image file
 * truncated by another process meanwhile would still end the scan with
 * SIGBUS: the image must not change under a read-only command anyway.)
 */
static int map_req(struct rdr *r, struct req *q)
{
	uint64_t pg = r->page, mo = q->off & ~(pg - 1);
	size_t ml = (size_t)(((q->end + pg - 1) & ~(pg - 1)) - mo);
	void *p;

	if (r->raw.base % pg)
		return -1;	/* a partition not on a page boundary */
	p = mmap(NULL, ml, PROT_READ, MAP_SHARED, r->raw.fd,
		 (off_t)(r->raw.base + mo));
	if (p == MAP_FAILED)
		return -1;
	if (madvise(p, ml, MADV_POPULATE_READ)) {
		munmap(p, ml);
		return -1;
	}
	q->map = p;
	q->maplen = ml;
	q->roff = mo;
	return 0;
}

static void unmap_req(struct req *q)
{
	if (q->map) {
		munmap(q->map, q->maplen);
		q->map = NULL;
	}
}

static uint8_t *alloc_bufs(struct rdr *r, unsigned n, uint8_t **map,
			   size_t *maplen);
static void aim(struct rdr *r, struct req *q);

/*
 * The first miss, with a direct descriptor: the rest of the stream is
 * read from the device with io_uring into a buffer per request, and the
 * page cache is left as it was.  Filling the cache costs a 4 KiB page
 * per 4 KiB read, allocated, charged and inserted on the scan's threads,
 * and each page is a descriptor of its own on the way from the device.
 * False, and nothing changed, without a ring or the memory.
 */
static bool go_direct(struct rdr *r)
{
#ifdef HAVE_LIBURING
	uint8_t *bufs;
	unsigned k;

	bufs = alloc_bufs(r, r->depth, &r->dmap, &r->dmaplen);
	if (!bufs)
		return false;
	if (io_uring_queue_init(r->depth, &r->ring, 0)) {
		bigmem_free(r->dmap, 1, r->dmaplen);
		r->dmap = NULL;
		return false;
	}
	r->how = RDR_URING;
	r->use_direct = true;
	r->sbuf = NULL;
	for (k = 0; k < r->depth; k++)
		r->q[k].buf = bufs + k * r->bufsz;
	for (k = 0; k < r->count; k++) {
		unsigned slot = (r->head + k) % r->depth;

		if (r->q[slot].state == R_PLANNED) {
			aim(r, &r->q[slot]);
			start(r, slot);
		}
	}
	return true;
#else
	(void)r;
	return false;
#endif
}

/* The first miss: the requests planned so far get their hints now. */
static void go_cold(struct rdr *r)
{
	unsigned k;

	r->cold = true;
	if (r->cold_direct && go_direct(r))
		return;
	for (k = 0; k < r->count; k++) {
		const struct req *q = &r->q[(r->head + k) % r->depth];

		if (q->state == R_PLANNED && !q->unread)
			posix_fadvise(r->raw.fd, (off_t)(r->raw.base + q->roff),
				      (off_t)q->rlen, POSIX_FADV_WILLNEED);
	}
}

static void wait_done(struct rdr *r, struct req *q)
{
	switch (r->how) {
	case RDR_THREAD:
		pthread_mutex_lock(&r->mu);
		while (q->state != R_DONE)
			pthread_cond_wait(&r->cv, &r->mu);
		pthread_mutex_unlock(&r->mu);
		return;
	case RDR_URING:
#ifdef HAVE_LIBURING
		while (q->state != R_DONE)
			uring_reap(r);
#endif
		return;
	default:
		if (q->state == R_PLANNED) {
			if (r->how == RDR_FADVISE && !r->cold && !q->unread &&
			    !read_cached(r, q, r->sbuf)) {
				go_cold(r);
				if (r->how == RDR_URING) {
					wait_done(r, q);	/* went direct */
					return;
				}
			}
			/* segment by segment from the cache: holes unread */
			q->whole = r->how != RDR_FADVISE || r->cold;
			if (r->how == RDR_FADVISE ? r->cold :
			    r->how != RDR_MMAP || map_req(r, q))
				read_req(r, q, r->sbuf);
			q->state = R_DONE;
		}
		return;
	}
}

/* ---- planning requests from the stream ---- */

static bool pull(struct rdr *r, struct rdr_seg *s)
{
	if (r->have_pend) {
		*s = r->pend;
		r->have_pend = false;
		return true;
	}
	if (r->eof || !r->next(r->priv, s)) {
		r->eof = true;
		return false;
	}
	return true;
}

static int add_seg(struct req *q, const struct rdr_seg *s)
{
	if (array_grow((void **)&q->seg, &q->cap, q->nseg,
		       sizeof(*q->seg), 16))
		return -ENOMEM;
	q->seg[q->nseg++] = *s;
	return 0;
}

/* A segment the reader must not read: past the limit or the image. */
static bool outside(const struct rdr *r, const struct rdr_seg *s)
{
	return s->len > r->max_req || s->off >= r->limit ||
	       s->len > r->limit - s->off;
}

/* The bytes request q reads: aligned for dfd when reads go there. */
static void aim(struct rdr *r, struct req *q)
{
	uint64_t a = r->align;

	q->roff = q->off;
	q->rlen = (size_t)(q->end - q->off);
	q->direct = false;
	if (!q->unread && r->use_direct) {
		uint64_t ro = q->off & ~(a - 1);
		uint64_t re = (q->end + a - 1) & ~(a - 1);

		/* the aligned tail must still lie inside the image */
		if (re <= r->im->size) {
			q->roff = ro;
			q->rlen = (size_t)(re - ro);
			q->direct = true;
		}
	}
}

/* Plan one request into slot; false when the stream is done. */
static bool plan(struct rdr *r, unsigned slot)
{
	struct req *q = &r->q[slot];
	struct rdr_seg s;

	if (!pull(r, &s))
		return false;
	q->nseg = 0;
	q->res = 0;
	q->off = s.off;
	q->end = s.off + s.len;
	q->unread = !r->have_raw || outside(r, &s);
	if (add_seg(q, &s)) {
		q->unread = true;	/* the consumer reads it itself */
		return true;
	}
	while (!q->unread && pull(r, &s)) {
		if (outside(r, &s) || s.off < q->end ||
		    s.off - q->end > r->max_gap ||
		    s.off + s.len - q->off > r->max_req || add_seg(q, &s)) {
			r->pend = s;
			r->have_pend = true;
			break;
		}
		q->end = s.off + s.len;
	}
	aim(r, q);
	return true;
}

static void fill(struct rdr *r)
{
	while (r->count < r->depth && !r->eof) {
		unsigned slot = (r->head + r->count) % r->depth;

		if (!plan(r, slot))
			break;
		r->count++;
		start(r, slot);
	}
}

bool rdr_get(struct rdr *r, struct rdr_item *it)
{
	struct req *q;

	if (r->count && r->cur == r->q[r->head].nseg) {
		if (r->how == RDR_THREAD)
			pthread_mutex_lock(&r->mu);
		r->q[r->head].state = R_FREE;
		unmap_req(&r->q[r->head]);
		if (r->how == RDR_THREAD)
			pthread_mutex_unlock(&r->mu);
		r->head = (r->head + 1) % r->depth;
		r->count--;
		r->cur = 0;
	}
	fill(r);
	if (!r->count)
		return false;
	q = &r->q[r->head];
	if (r->cur == 0)
		wait_done(r, q);
	it->seg = q->seg[r->cur++];
	it->scratch = r->sbuf ? r->sbuf : q->buf;
	it->data = q->unread || q->res ? NULL :
		   (q->map ? q->map : it->scratch) + (it->seg.off - q->roff);
	/* threads and io_uring read every request whole */
	it->req = it->data && r->cur == q->nseg &&
		  (q->whole || r->how == RDR_THREAD || r->how == RDR_URING) ?
		  (q->map ? q->map : it->scratch) : NULL;
	it->req_off = q->roff;
	it->req_len = q->rlen;
	return true;
}

/* ---- set-up ---- */

static enum rdr_how choose(struct rdr *r)
{
	int how = r->have_raw ? r->raw.bulk.how : RDR_SYNC;

	/*
	 * Through the page cache, WILLNEED ahead of pread into one reused
	 * buffer; mapping the cache instead saves the copy but, with a scan
	 * thread per CPU, each unmap costs TLB shootdowns on the other CPUs
	 * and the threads queue on the mmap lock.  From the device, direct
	 * reads through io_uring keep it busiest (go_direct); without it a
	 * reader thread.  The figures: README, bench/.
	 */
	r->use_direct = r->raw.dfd >= 0 && r->raw.direct_always;
	if (how <= RDR_AUTO || how >= RDR_NHOW) {
		how = r->use_direct ? RDR_URING : RDR_FADVISE;
		r->cold_direct = r->raw.dfd >= 0 && !r->use_direct &&
				 !r->fill_cache;
	}
#ifdef HAVE_LIBURING
	if (how == RDR_URING &&
	    io_uring_queue_init(r->depth, &r->ring, 0) == 0)
		return RDR_URING;
#endif
	if (how == RDR_URING)
		how = r->use_direct ? RDR_THREAD : RDR_FADVISE;
	if ((how == RDR_FADVISE || how == RDR_MMAP) && r->use_direct)
		how = RDR_SYNC;		/* nothing to advise: no cache */
	if (how == RDR_THREAD) {
		pthread_mutex_init(&r->mu, NULL);
		pthread_cond_init(&r->cv, NULL);
		if (pthread_create(&r->th, NULL, reader_thread, r) == 0) {
			r->th_started = true;
			return RDR_THREAD;
		}
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		how = RDR_SYNC;
	}
	return (enum rdr_how)how;
}

/*
 * n buffers of r->bufsz bytes, aligned for direct reads, in one mapping
 * that asks for huge pages (bigmem maps from 1 MiB): a direct read into
 * 4 KiB pages costs a descriptor per page, which on a virtio disk eats
 * much of the rate.  NULL without memory.
 */
static uint8_t *alloc_bufs(struct rdr *r, unsigned n, uint8_t **map,
			   size_t *maplen)
{
	*maplen = n * r->bufsz + r->align;
	if (*maplen < (1u << 20))
		*maplen = 1u << 20;
	*map = bigmem_calloc(1, *maplen);
	if (!*map)
		return NULL;
	return (uint8_t *)(((uintptr_t)*map + r->align - 1) &
			   ~(uintptr_t)(r->align - 1));
}

int rdr_open(struct img *im, const struct rdr_cfg *cfg, rdr_next_fn next,
	     void *priv, struct rdr **out)
{
	struct rdr *r = calloc(1, sizeof(*r));
	uint8_t *bufs;
	size_t bufsz;
	unsigned i, nbuf;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->im = im;
	r->next = next;
	r->priv = priv;
	r->have_raw = img_raw(im, &r->raw) == 0;
	if (!r->have_raw) {
		memset(&r->raw, 0, sizeof(r->raw));
		r->raw.fd = r->raw.dfd = -1;
	}
	r->depth = cfg->depth ? cfg->depth : r->raw.bulk.depth ?
		   r->raw.bulk.depth : DEF_DEPTH;
	r->max_req = cfg->max_req ? cfg->max_req : r->raw.bulk.max_req ?
		     r->raw.bulk.max_req : DEF_REQ;
	r->max_gap = cfg->max_gap ? cfg->max_gap : r->raw.bulk.max_gap ?
		     r->raw.bulk.max_gap : DEF_GAP;
	r->limit = cfg->limit && cfg->limit < im->size ? cfg->limit :
		   im->size;
	r->fill_cache = cfg->fill_cache;
	r->align = r->have_raw && r->raw.dfd >= 0 ? r->raw.dalign : 8;
	r->page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (r->depth > 256)
		r->depth = 256;
	if (r->max_req < 4096)
		r->max_req = 4096;
	if (r->max_gap > r->max_req)
		r->max_gap = r->max_req;
	r->q = calloc(r->depth, sizeof(*r->q));
	if (!r->q) {
		free(r);
		return -ENOMEM;
	}
	r->how = choose(r);
	/* sync and fadvise read one request at a time: one buffer */
	bufsz = r->max_req + 2 * (size_t)r->align;
	r->bufsz = (bufsz + r->align - 1) & ~(size_t)(r->align - 1);
	nbuf = r->how == RDR_THREAD || r->how == RDR_URING ? r->depth : 1;
	bufs = alloc_bufs(r, nbuf, &r->map, &r->maplen);
	if (!bufs) {
		rdr_close(r);
		return -ENOMEM;
	}
	if (r->how != RDR_THREAD && r->how != RDR_URING)
		r->sbuf = bufs;
	else
		for (i = 0; i < nbuf; i++)
			r->q[i].buf = bufs + i * r->bufsz;
	*out = r;
	return 0;
}

void rdr_close(struct rdr *r)
{
	unsigned i;

	if (!r)
		return;
	if (r->th_started) {
		pthread_mutex_lock(&r->mu);
		r->stop = true;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->th, NULL);
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
	}
#ifdef HAVE_LIBURING
	if (r->how == RDR_URING) {
		/* the kernel may still write into the buffers: drain first */
		while (r->inflight)
			uring_reap(r);
		io_uring_queue_exit(&r->ring);
	}
#endif
	for (i = 0; r->q && i < r->depth; i++) {
		unmap_req(&r->q[i]);
		free(r->q[i].seg);
	}
	free(r->q);
	bigmem_free(r->map, 1, r->maplen);
	bigmem_free(r->dmap, 1, r->dmaplen);
	free(r);
}
