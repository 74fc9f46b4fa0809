/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bulk reads ahead of a consumer.  A stream of byte ranges (segments) in
 * disk order, pulled from the caller, is read in large requests (ranges
 * merged across small holes), several in flight while the consumer
 * decodes, and handed back one segment at a time in stream order.  The
 * scan reads every inode chunk through it.
 *
 * Mechanisms (enum rdr_how): the page cache copied with pread, each
 * segment without waiting while the cache holds it, and after the first
 * miss posix_fadvise(WILLNEED) on the requests ahead (the default), or
 * mapped (no copy, but an unmap per request); io_uring when built with
 * liburing and the kernel allows it; a reader thread with a bounded
 * queue; or plain pread.  With the image's O_DIRECT descriptor
 * (img_set_direct), requests are aligned and bypass the page cache:
 * all of them (always), or by default those from the first miss on,
 * through io_uring.  Images that are not a file layer (memory images,
 * layers that change reads) get no data: the consumer reads each
 * segment itself.
 */
#ifndef CORE_READER_H
#define CORE_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/img.h"

enum rdr_how {
	RDR_AUTO,	/* the best this build and kernel offer */
	RDR_SYNC,	/* pread of each request when it is needed */
	RDR_FADVISE,	/* WILLNEED on the requests ahead, then pread */
	RDR_THREAD,	/* a reader thread preads ahead into a ring */
	RDR_URING,	/* io_uring reads in flight */
	RDR_MMAP,	/* WILLNEED ahead, then map the page cache: no copy */
	RDR_NHOW
};

/* "auto", "sync", "fadvise", "thread", "uring", "mmap"; -1 if unknown. */
int rdr_how_parse(const char *name);
const char *rdr_how_name(enum rdr_how how);

/* 0: the image's tuning (img_set_bulk), else the defaults */
struct rdr_cfg {
	unsigned depth;		/* requests in flight */
	uint32_t max_req;	/* bytes per request */
	uint32_t max_gap;	/* holes read through, at most */
	uint64_t limit;		/* no request reads at or past this byte */
	/* through the page cache even when cold (not the default switch to
	 * direct reads): the caller reads these bytes again soon */
	bool fill_cache;
};

struct rdr_seg {
	uint64_t off;
	uint32_t len;		/* at most rdr_max_seg */
	uint64_t tag;		/* the caller's */
};

/* Fill *s with the next segment; false at the end of the stream. */
typedef bool (*rdr_next_fn)(void *priv, struct rdr_seg *s);

struct rdr_item {
	struct rdr_seg seg;
	/* seg.len bytes; NULL when the read failed or was not attempted:
	 * then read the segment yourself (and report its error) into
	 * scratch, which holds seg.len bytes until the next rdr_get */
	const uint8_t *data;
	uint8_t *scratch;
	/*
	 * On the last segment of a request that was read whole (the holes
	 * between its segments too, not segment by segment from a warm
	 * page cache): its req_len bytes at req_off, valid until the next
	 * rdr_get; NULL otherwise.
	 */
	const uint8_t *req;
	uint64_t req_off;
	size_t req_len;
};

struct rdr;

/* 0, or -ENOMEM. */
int rdr_open(struct img *im, const struct rdr_cfg *cfg, rdr_next_fn next,
	     void *priv, struct rdr **out);
/* The next segment, in stream order; false at the end. */
bool rdr_get(struct rdr *r, struct rdr_item *it);
/* The mechanism in use (after fallbacks). */
enum rdr_how rdr_how(const struct rdr *r);
/* The longest segment the stream may hold (the request size). */
uint32_t rdr_max_seg(const struct rdr *r);
/* Waits for reads in flight; any segments not taken are dropped. */
void rdr_close(struct rdr *r);

#endif
