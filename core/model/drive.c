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
	int best = -1;
	unsigned i;

	for (i = 0; i < d->p.nseg; i++) {
		const struct drive_seg *s = &d->seg[i];

		if (s->used && s->start <= off && end <= s->end &&
		    (best < 0 || s->used > d->seg[best].used))
			best = (int)i;
	}
	return best;
}

/* An empty segment, else the least recently used. */
static int victim(const struct drive *d)
{
	int v = 0;
	unsigned i;

	for (i = 0; i < d->p.nseg; i++) {
		if (!d->seg[i].used)
			return (int)i;
		if (d->seg[i].used < d->seg[v].used)
			v = (int)i;
	}
	return v;
}

/* After a platter read of [off, end): a read that went on with the
 * stream grows its segment, any other fills the least recently used. */
static void read_on(struct drive *d, uint64_t off, uint64_t end, bool seek)
{
	uint64_t ra_end = end + d->p.ra_bytes;
	struct drive_seg *s;

	if (!d->p.nseg)
		return;
	if (!seek && d->stream >= 0) {
		s = &d->seg[d->stream];
		if (ra_end > s->end)
			s->end = ra_end;
	} else {
		d->stream = victim(d);
		s = &d->seg[d->stream];
		s->start = off;
		s->end = ra_end;
	}
	if (d->p.seg_max && s->end - s->start > d->p.seg_max)
		s->start = s->end - d->p.seg_max;
	s->used = ++d->clock;
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
		d->seg[s].used = ++d->clock;
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
