/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The emulated disk's cost model (hddcost.h says what it charges). */
#include "bench/hddemu/hddcost.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hdd_params_default(struct hdd_params *p)
{
	/* the read-back model's 7200 rpm disk (core/model/readback.c), and a
	 * cache of 64 MiB in 16 segments as desktop drives have */
	*p = (struct hdd_params){
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

void hdd_init(struct hdd *d, const struct hdd_params *p)
{
	memset(d, 0, sizeof(*d));
	d->p = *p;
	if (d->p.nseg > HDD_MAX_SEGS)
		d->p.nseg = HDD_MAX_SEGS;
	d->stream = -1;
}

void hdd_reset(struct hdd *d)
{
	struct hdd_params p = d->p;

	hdd_init(d, &p);
}

const char *hdd_kind_name(enum hdd_kind k)
{
	switch (k) {
	case HDD_STREAM: return "stream";
	case HDD_GAP: return "gap";
	case HDD_SEEK: return "seek";
	case HDD_HIT: return "hit";
	}
	return "?";
}

double hdd_seek_cost(const struct hdd_params *p, uint64_t distance)
{
	return p->rot_s + p->settle_s +
	       p->seek_s * sqrt((double)distance / p->seek_bytes);
}

/* the segment holding all of [off, end), most recently used first; -1 */
static int seg_holding(const struct hdd *d, uint64_t off, uint64_t end)
{
	int best = -1;

	for (unsigned i = 0; i < d->p.nseg; i++) {
		const struct hdd_seg *s = &d->seg[i];

		if (s->used && s->start <= off && end <= s->end &&
		    (best < 0 || s->used > d->seg[best].used))
			best = (int)i;
	}
	return best;
}

/* an empty segment, else the least recently used one */
static int seg_victim(const struct hdd *d)
{
	int v = 0;

	for (unsigned i = 0; i < d->p.nseg; i++) {
		if (!d->seg[i].used)
			return (int)i;
		if (d->seg[i].used < d->seg[v].used)
			v = (int)i;
	}
	return v;
}

/* After a platter read of [off, end) the drive reads on: a read that
 * continued the stream (or read through a gap after it) extends the
 * stream's segment, any other fills the least recently used one. */
static void read_on(struct hdd *d, uint64_t off, uint64_t end, enum hdd_kind kind)
{
	uint64_t ra_end = end + d->p.ra_bytes;
	struct hdd_seg *s;

	if (kind != HDD_SEEK && d->stream >= 0) {
		s = &d->seg[d->stream];
		if (ra_end > s->end)
			s->end = ra_end;
	} else {
		d->stream = seg_victim(d);
		s = &d->seg[d->stream];
		s->start = off;
		s->end = ra_end;
	}
	if (d->p.seg_max && s->end - s->start > d->p.seg_max)
		s->start = s->end - d->p.seg_max;
	s->used = ++d->clock;
}

double hdd_charge(struct hdd *d, uint64_t off, uint64_t len, bool write,
		  enum hdd_kind *kindp)
{
	const struct hdd_params *p = &d->p;
	struct hdd_stats *st = &d->st;
	uint64_t end = off + len;
	bool cont = d->moved && off == d->head;
	enum hdd_kind kind;
	double pos = 0, bytes = (double)len, cost;
	int s;

	st->requests++;
	if (write) {
		st->writes++;
		st->bytes_written += len;
	} else {
		st->reads++;
		st->bytes_read += len;
	}
	if (!write && !cont && (s = seg_holding(d, off, end)) >= 0) {
		d->seg[s].used = ++d->clock;
		kind = HDD_HIT;
		st->hits++;
		cost = bytes / p->cache_bps;
		goto out;
	}
	if (cont) {
		kind = HDD_STREAM;
		st->streams++;
	} else if (d->moved && off > d->head && off - d->head <= p->gap_max) {
		kind = HDD_GAP;
		st->gaps++;
		st->gap_bytes += off - d->head;
		bytes += (double)(off - d->head);
	} else {
		kind = HDD_SEEK;
		st->seeks++;
		pos = hdd_seek_cost(p, off > d->head ? off - d->head : d->head - off);
	}
	cost = pos + bytes / p->xfer_bps;
	st->pos_s += pos;
	d->head = end;
	d->moved = true;
	if (write)
		d->stream = -1;
	else
		read_on(d, off, end, kind);
out:
	st->busy_s += cost;
	if (kindp)
		*kindp = kind;
	return cost;
}

int hdd_param_set(struct hdd_params *p, const char *assignment)
{
	static const struct {
		const char *name;
		size_t off;
		bool isint;
	} tab[] = {
#define D(f) { #f, offsetof(struct hdd_params, f), false }
#define U(n, f) { n, offsetof(struct hdd_params, f), true }
		D(xfer_bps), D(cache_bps), D(rot_s), D(settle_s), D(seek_s),
		D(seek_bytes), U("gap", gap_max), U("gap_max", gap_max),
		U("ra", ra_bytes), U("ra_bytes", ra_bytes),
		U("seg_max", seg_max),
#undef D
#undef U
	};
	const char *eq = strchr(assignment, '=');
	char *endp;

	if (!eq)
		return -EINVAL;
	size_t n = (size_t)(eq - assignment);
	if (n == 4 && !strncmp(assignment, "nseg", 4)) {
		unsigned long v = strtoul(eq + 1, &endp, 0);

		if (*endp || endp == eq + 1 || v < 1 || v > HDD_MAX_SEGS)
			return -EINVAL;
		p->nseg = (unsigned)v;
		return 0;
	}
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strlen(tab[i].name) != n || strncmp(tab[i].name, assignment, n))
			continue;
		if (tab[i].isint) {
			unsigned long long v = strtoull(eq + 1, &endp, 0);

			if (*endp || endp == eq + 1)
				return -EINVAL;
			*(uint64_t *)((char *)p + tab[i].off) = v;
		} else {
			double v = strtod(eq + 1, &endp);

			if (*endp || endp == eq + 1 || !(v > 0))
				return -EINVAL;
			*(double *)((char *)p + tab[i].off) = v;
		}
		return 0;
	}
	return -EINVAL;
}

int hdd_stats_format(const struct hdd_stats *st, char *buf, size_t len)
{
	return snprintf(buf, len,
			"busy_s %.9f\n"
			"pos_s %.9f\n"
			"requests %" PRIu64 "\n"
			"reads %" PRIu64 "\n"
			"writes %" PRIu64 "\n"
			"bytes_read %" PRIu64 "\n"
			"bytes_written %" PRIu64 "\n"
			"streams %" PRIu64 "\n"
			"gaps %" PRIu64 "\n"
			"seeks %" PRIu64 "\n"
			"hits %" PRIu64 "\n"
			"gap_bytes %" PRIu64 "\n",
			st->busy_s, st->pos_s, st->requests, st->reads,
			st->writes, st->bytes_read, st->bytes_written,
			st->streams, st->gaps, st->seeks, st->hits,
			st->gap_bytes);
}
