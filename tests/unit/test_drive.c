/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The read-back model's drive (core/model/drive.c) against the emulated
 * disk the benches measure through (bench/hddemu/hddcost.c): two
 * implementations of the same rules, fed the same request streams, must
 * charge every read the same seconds and serve it the same way, whatever
 * the drive's parameters.  The product does not link the bench's code;
 * this test links both.
 */
#include "bench/hddemu/hddcost.h"
#include "core/model/drive.h"
#include "tests/unit/t.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KiB 1024ull
#define MiB (1024ull * 1024)

/* xorshift: the same stream on every run */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A reader's stream: mostly what a walk does (the next block, a small
 * forward step, back to a place read a little before, a cluster of a
 * few zones), some far jumps over a 1 GiB device.
 */
static void request(uint64_t *s, uint64_t last_end, uint64_t *off,
		    uint64_t *len)
{
	static const uint64_t zones[] = { 0, 3 * MiB, 40 * MiB, 300 * MiB,
					  301 * MiB, 900 * MiB };
	uint64_t r = next(s) % 100, base;

	*len = (1 + next(s) % 16) * 4 * KiB;
	if (next(s) % 8 == 0)
		*len = (1 + next(s) % 8) * 256 * KiB;
	if (r < 30) {
		*off = last_end;
	} else if (r < 50) {
		*off = last_end + next(s) % (2 * MiB) / 512 * 512;
	} else if (r < 70) {
		base = last_end > 3 * MiB ? last_end - 3 * MiB : 0;
		*off = base + next(s) % (3 * MiB) / 4096 * 4096;
	} else if (r < 90) {
		*off = zones[next(s) % 6] + next(s) % (2 * MiB) / 4096 * 4096;
	} else {
		*off = next(s) % (1024 * MiB) / 4096 * 4096;
	}
}

static bool same_kind(enum hdd_kind h, enum drive_kind d)
{
	switch (h) {
	case HDD_STREAM: return d == DRIVE_STREAM;
	case HDD_GAP: return d == DRIVE_GAP;
	case HDD_SEEK: return d == DRIVE_SEEK;
	case HDD_HIT: return d == DRIVE_HIT;
	}
	return false;
}

/* n requests through both, with the parameters set the same way */
static void agree(struct t_state *ts, const char *const *set, size_t nset,
		  uint64_t seed, unsigned n)
{
	struct hdd_params hp;
	struct drive_params dp;
	struct hdd *h = calloc(1, sizeof(*h));
	struct drive *d = calloc(1, sizeof(*d));
	uint64_t s = seed, end = 0, seeks = 0, hits = 0;
	unsigned i, bad = 0;
	size_t k;

	T_CHECK(ts, h && d);
	if (!h || !d)
		goto out;
	hdd_params_default(&hp);
	drive_params_default(&dp);
	for (k = 0; k < nset; k++) {
		T_CHECK(ts, hdd_param_set(&hp, set[k]) == 0);
	}
	/* the model's drive takes the same values */
	dp.xfer_bps = hp.xfer_bps;
	dp.cache_bps = hp.cache_bps;
	dp.rot_s = hp.rot_s;
	dp.settle_s = hp.settle_s;
	dp.seek_s = hp.seek_s;
	dp.seek_bytes = hp.seek_bytes;
	dp.gap_max = hp.gap_max;
	dp.ra_bytes = hp.ra_bytes;
	dp.seg_max = hp.seg_max;
	dp.nseg = hp.nseg;
	hdd_init(h, &hp);
	drive_init(d, &dp);
	for (i = 0; i < n; i++) {
		uint64_t off, len;
		enum hdd_kind hk;
		enum drive_kind dk;
		double hc, dc;

		request(&s, end, &off, &len);
		hc = hdd_charge(h, off, len, false, &hk);
		dc = drive_read(d, off, len, &dk);
		if (hc != dc || !same_kind(hk, dk))
			bad++;
		seeks += hk == HDD_SEEK;
		hits += hk == HDD_HIT;
		end = off + len;
	}
	T_CHECK(ts, bad == 0);
	T_CHECK(ts, d->seeks == h->st.seeks && d->hits == h->st.hits);
	/* the stream exercised every rule it is meant to */
	T_CHECK(ts, seeks > n / 20 && (hp.nseg < 2 || hits > n / 100));
	if (bad)
		fprintf(stderr, "%u of %u requests charged differently "
			"(%s...)\n", bad, n, nset ? set[0] : "defaults");
out:
	free(h);
	free(d);
}

static void test_agree(struct t_state *ts)
{
	static const char *const none[] = { "nseg=16" };
	static const char *const nocache[] = { "ra=0", "nseg=1" };
	static const char *const big[] = { "nseg=64", "seg_max=0" };
	static const char *const small[] = { "nseg=2", "ra=65536",
					     "seg_max=262144", "gap=131072" };

	agree(ts, none, 1, 0x9e3779b97f4a7c15ull, 200000);
	agree(ts, nocache, 2, 12345, 50000);
	agree(ts, big, 2, 777, 50000);
	agree(ts, small, 4, 31337, 50000);
}

/* the rules on a few reads worked out by hand */
static void test_rules(struct t_state *ts)
{
	struct drive_params p;
	struct drive d;
	enum drive_kind k;
	double c;

	drive_params_default(&p);
	drive_init(&d, &p);
	c = drive_read(&d, 0, 64 * KiB, &k);	/* cold: positions the head */
	T_CHECK(ts, k == DRIVE_SEEK && c == drive_seek_cost(&p, 0) +
		    (double)(64 * KiB) / 150e6);
	c = drive_read(&d, 64 * KiB, 64 * KiB, &k);
	T_CHECK(ts, k == DRIVE_STREAM && c == (double)(64 * KiB) / 150e6);
	c = drive_read(&d, 512 * KiB, 4 * KiB, &k);	/* read on: cached */
	T_CHECK(ts, k == DRIVE_HIT && c == (double)(4 * KiB) / 600e6);
	c = drive_read(&d, 2 * MiB, 4 * KiB, &k);	/* past it: 1.875 MiB */
	T_CHECK(ts, k == DRIVE_SEEK);
	c = drive_read(&d, 2 * MiB + 4 * KiB + 8 * KiB, 4 * KiB, &k);
	T_CHECK(ts, k == DRIVE_HIT);	/* the new segment holds it */
	/* 1 MiB - 4 KiB past the head, but running past the segment */
	c = drive_read(&d, 3 * MiB, 16 * KiB, &k);
	T_CHECK(ts, k == DRIVE_GAP && c == (double)(MiB - 4 * KiB +
						  16 * KiB) / 150e6);
	T_CHECK(ts, d.seeks == 2 && d.hits == 2);
}

int main(void)
{
	struct t_state ts = { 0 };

	test_rules(&ts);
	test_agree(&ts);
	return t_done(&ts, "test_drive");
}
