/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A 7200 rpm disk with one head and a segmented read cache, charged read
 * by read in arrival order: what the read-back model costs its accesses
 * with.  The rules are those of the emulated disk the benches read
 * through (bench/hddemu), so the model and the measured reader can be
 * compared request for request:
 *
 *   - a read starting where the last platter access ended: transfer only;
 *   - a forward gap of at most gap_max: read through, its bytes too;
 *   - otherwise half a turn, a settle and a seek growing with the square
 *     root of the distance, plus the transfer;
 *   - after each platter read the drive reads on ra_bytes into one of
 *     nseg segments (least recently used replaced); the segment a stream
 *     reads into grows with it, keeping its last seg_max bytes;
 *   - a read wholly inside a segment that does not continue the stream is
 *     served from the cache: cache_bps, no seek, the head stays.
 */
#ifndef CORE_MODEL_DRIVE_H
#define CORE_MODEL_DRIVE_H

#include <stdbool.h>
#include <stdint.h>

#define DRIVE_MAX_SEGS	64

struct drive_params {
	double xfer_bps;	/* platter transfer, bytes per second */
	double cache_bps;	/* cache to host */
	double rot_s;		/* average rotational wait */
	double settle_s;
	double seek_s;		/* seek over seek_bytes (sqrt of the distance) */
	double seek_bytes;
	uint64_t gap_max;	/* forward gaps read through */
	uint64_t ra_bytes;	/* read on after each platter read; 0: none */
	uint64_t seg_max;	/* bytes a segment keeps; 0: no limit */
	unsigned nseg;		/* 0: no cache */
};

enum drive_kind {
	DRIVE_STREAM,		/* continues the last platter access */
	DRIVE_GAP,		/* short forward gap, read through */
	DRIVE_SEEK,		/* rotation, settle, seek */
	DRIVE_HIT,		/* served from a cache segment */
};

struct drive {
	struct drive_params p;
	uint64_t head;		/* where the last platter access ended */
	bool moved;		/* a platter access since the start */
	int stream;		/* the segment the stream reads into; -1 none */
	uint64_t clock;
	uint64_t seeks, hits;
	/* the cache's segments, field by field: a look-up compares all of
	 * them at once (each read of the read-back model asks) */
	uint64_t seg_start[DRIVE_MAX_SEGS];	/* bytes [start, end) held */
	uint64_t seg_end[DRIVE_MAX_SEGS];
	uint64_t seg_used[DRIVE_MAX_SEGS];	/* LRU stamp; 0: empty */
};

/* 150 MB/s, 4.17 + 0.8 ms + 8 ms x sqrt(distance / 1 TiB), 1 MiB read
 * through and read on, 16 segments of at most 4 MiB, 600 MB/s from them */
void drive_params_default(struct drive_params *p);

/* a cold drive: head at 0 and not yet moved, cache empty */
void drive_init(struct drive *d, const struct drive_params *p);

/* the head put at off as if an access had just ended there */
void drive_park(struct drive *d, uint64_t off);

/* the seconds one read of len bytes at byte off keeps the drive busy;
 * kind (may be NULL): how it was served */
double drive_read(struct drive *d, uint64_t off, uint64_t len,
		  enum drive_kind *kind);

/* the seconds one repositioning over distance bytes costs */
double drive_seek_cost(const struct drive_params *p, uint64_t distance);

#endif
