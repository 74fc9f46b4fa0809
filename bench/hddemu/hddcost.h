/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cost of each request to one 7200 rpm disk with one head and a
 * segmented read cache, charged in arrival order.  No I/O, no clock:
 * the caller (the FUSE disk, the replay driver) passes each request in
 * and gets the seconds the disk is busy with it.
 *
 *   - continuing the previous platter access: transfer only;
 *   - a forward gap of at most gap_max: the gap passes under the head,
 *     its bytes are transferred too;
 *   - otherwise a rotation, a settle and a seek growing with the square
 *     root of the distance, plus the transfer;
 *   - after each platter read the drive reads on ra_bytes into a cache
 *     segment (one of nseg, least recently used replaced); the segment
 *     a stream is reading into grows with it, keeping at most seg_max
 *     bytes (its latest).  A read wholly inside a segment that does not
 *     continue the stream is served from the cache: no seek, cache rate.
 *   - writes go to the platter with the same positioning rules; they
 *     read nothing ahead and are never served by the cache.
 */
#ifndef HDDCOST_H
#define HDDCOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HDD_MAX_SEGS 64

struct hdd_params {
	double xfer_bps;	/* platter transfer, bytes per second */
	double cache_bps;	/* cache to host, bytes per second */
	double rot_s;		/* average rotational wait: half a turn */
	double settle_s;	/* head settle */
	double seek_s;		/* seek over seek_bytes (sqrt of the distance) */
	double seek_bytes;
	uint64_t gap_max;	/* forward gaps read through */
	uint64_t ra_bytes;	/* read on after each platter read */
	uint64_t seg_max;	/* bytes a segment keeps; 0: no limit */
	unsigned nseg;		/* cache segments, at most HDD_MAX_SEGS */
};

enum hdd_kind {
	HDD_STREAM,		/* continues the previous platter access */
	HDD_GAP,		/* short forward gap, read through */
	HDD_SEEK,		/* rotation, settle, seek */
	HDD_HIT,		/* wholly inside a cache segment */
};

struct hdd_stats {
	double busy_s;		/* seconds the disk was busy */
	double pos_s;		/* of which positioning (rotation+settle+seek) */
	uint64_t requests, reads, writes;
	uint64_t bytes_read, bytes_written;
	uint64_t streams, gaps, seeks, hits;
	uint64_t gap_bytes;	/* bytes passed under the head in gaps */
};

struct hdd_seg {
	uint64_t start, end;	/* bytes [start, end) held */
	uint64_t used;		/* LRU stamp; 0: empty */
};

struct hdd {
	struct hdd_params p;
	struct hdd_stats st;
	uint64_t head;		/* where the last platter access ended */
	bool moved;		/* a platter access happened since the reset */
	int stream;		/* segment the last platter read filled; -1 none */
	uint64_t clock;		/* LRU stamps */
	struct hdd_seg seg[HDD_MAX_SEGS];
};

/* the 7200 rpm disk of the read-back model, with a 16-segment cache */
void hdd_params_default(struct hdd_params *p);

/* a disk at rest: head at 0, cache empty, counters zero */
void hdd_init(struct hdd *d, const struct hdd_params *p);

/* empty the cache, park the head and zero the counters (a cold disk) */
void hdd_reset(struct hdd *d);

/* charge one request; returns the seconds it keeps the disk busy and,
 * when kind is not NULL, how it was served */
double hdd_charge(struct hdd *d, uint64_t off, uint64_t len, bool write,
		  enum hdd_kind *kind);

const char *hdd_kind_name(enum hdd_kind k);

/* the seconds one repositioning over distance bytes costs */
double hdd_seek_cost(const struct hdd_params *p, uint64_t distance);

/* set one parameter from "name=value" (the names of struct hdd_params,
 * ra for ra_bytes, gap for gap_max); 0, or -EINVAL */
int hdd_param_set(struct hdd_params *p, const char *assignment);

/* the counters as "name value" lines (what the stats file and the replay
 * driver print); the length snprintf would write */
int hdd_stats_format(const struct hdd_stats *st, char *buf, size_t len);

#endif
