/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The drive the read-back model costs its reads with (drive.h). */
#include "core/model/drive.h"

#include <math.h>
#include <string.h>

void drive_params_default(struct drive_params *p)
{
	*p = (struct drive_params){
		.xfer_bps = 150e6,
		.cache_bps = 600e6,
		.rot_s = 4.17e-3,
		.settle_s = 0.8e-3,
		.seek_s = 8e-3,
		.seek_bytes = 1099511627776.0,
		.gap_max = 1 << 20,
		.ra_bytes = 1 << 20,
		.seg_max = 4 << 20,
		.nseg = 16,
	};
}

void drive_init(struct drive *d, const struct drive_params *p)
{
	memset(d, 0, sizeof(*d));
	d->p = *p;
	if (d->p.nseg > DRIVE_MAX_SEGS)
		d->p.nseg = DRIVE_MAX_SEGS;
	d->stream = -1;
}

void drive_park(struct drive *d, uint64_t off)
{
	d->head = off;
	d->moved = true;
}

double drive_seek_cost(const struct drive_params *p, uint64_t distance)
{
	return p->rot_s + p->settle_s +
	       p->seek_s * sqrt((double)distance / p->seek_bytes);
}

/* The segment holding all of [off, end), the most recently used; -1. */
static int holding(const struct drive *d, uint64_t off, uint64_t end)
{
	uint64_t best_used = 0;
	int best = -1;
	unsigned i;

	/* no branch on the segments' contents: an empty one (used 0) or
	 * one that does not hold the range counts as used 0 */
	for (i = 0; i < d->p.nseg; i++) {
		uint64_t u = d->seg_start[i] <= off && end <= d->seg_end[i] ?
			     d->seg_used[i] : 0;

		if (u > best_used) {
			best_used = u;
			best = (int)i;
		}
	}
	return best;
}

/* An empty segment, else the least recently used. */
static int victim(const struct drive *d)
{
	int v = 0;
	unsigned i;

	for (i = 0; i < d->p.nseg; i++) {
		if (!d->seg_used[i])
			return (int)i;
		if (d->seg_used[i] < d->seg_used[v])
			v = (int)i;
	}
	return v;
}

/* After a platter read of [off, end): a read that went on with the
 * stream grows its segment, any other fills the least recently used. */
static void read_on(struct drive *d, uint64_t off, uint64_t end, bool seek)
{
	uint64_t ra_end = end + d->p.ra_bytes;
	int s;

	if (!d->p.nseg)
		return;
	if (!seek && d->stream >= 0) {
		s = d->stream;
		if (ra_end > d->seg_end[s])
			d->seg_end[s] = ra_end;
	} else {
		s = d->stream = victim(d);
		d->seg_start[s] = off;
		d->seg_end[s] = ra_end;
	}
	if (d->p.seg_max && d->seg_end[s] - d->seg_start[s] > d->p.seg_max)
		d->seg_start[s] = d->seg_end[s] - d->p.seg_max;
	d->seg_used[s] = ++d->clock;
}

double drive_read(struct drive *d, uint64_t off, uint64_t len,
		  enum drive_kind *kindp)
{
	const struct drive_params *p = &d->p;
	uint64_t end = off + len;
	bool cont = d->moved && off == d->head;
	enum drive_kind kind;
	double pos = 0, bytes = (double)len;
	int s;

	if (!cont && (s = holding(d, off, end)) >= 0) {
		d->seg_used[s] = ++d->clock;
		d->hits++;
		if (kindp)
			*kindp = DRIVE_HIT;
		return bytes / p->cache_bps;
	}
	if (cont) {
		kind = DRIVE_STREAM;
	} else if (d->moved && off > d->head && off - d->head <= p->gap_max) {
		kind = DRIVE_GAP;
		bytes += (double)(off - d->head);
	} else {
		kind = DRIVE_SEEK;
		d->seeks++;
		pos = drive_seek_cost(p, off > d->head ? off - d->head :
					 d->head - off);
	}
	d->head = end;
	d->moved = true;
	read_on(d, off, end, kind == DRIVE_SEEK);
	if (kindp)
		*kindp = kind;
	return pos + bytes / p->xfer_bps;
}
