/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Is a run worth it (issue: know when to stop)?  The verdict on a plan:
 * what it gains in the read-back model (seconds on a 7200 rpm disk, SSD
 * requests), what it writes, the undo file it needs, how long it would
 * take on this device, and yes or no.
 *
 * Worth running: the plan moves something (plan_build drops a plan that
 * is not worth it whole), and it cuts the modelled read-back by at least
 * VERDICT_GAIN_PCT percent on an HDD or on an SSD, or joins at least
 * VERDICT_JOIN_PCT percent of the extent records.  On the result of a
 * run the plan moves nothing, so the verdict is no.  A shrink's plan
 * (plan --shrink) is yes whatever it gains: it is not judged by its
 * figures.
 *
 * The run time: the copy reads and writes what moves, and the undo file
 * holds what it overwrites (read, written to the undo file, then
 * overwritten): 2 x (copied + undo) bytes at the device's rate, taken
 * from a timed read of where the plan reads (verdict_probe: reads only,
 * direct I/O where the image allows it, so the page cache does not
 * answer; writes are taken to go as fast), or at --max-rate, the copy's
 * throttle, whichever is slower.
 */
#ifndef CORE_VERDICT_H
#define CORE_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fs/fs.h"
#include "core/relocate/plan.h"

#define VERDICT_GAIN_PCT	10	/* read-back cut, HDD or SSD */
#define VERDICT_JOIN_PCT	1	/* extent records joined */
#define VERDICT_PROBE_BYTES	(16ull << 20)	/* read by the probe, at most */

struct verdict {
	bool worth_running;
	const char *why;		/* the reason, a phrase */
	double hdd_now, hdd_after;	/* modelled read-back, seconds */
	double meta_now, meta_after;	/* its metadata walk, seconds */
	uint64_t ssd_now, ssd_after;	/* SSD requests */
	uint64_t extents_now, extents_after;
	uint64_t write_bytes;		/* the data the run copies */
	uint64_t undo_bytes;		/* the undo file, about */
	double seconds;			/* the run, about; 0: nothing to do */
	double rate;			/* MiB/s it is reckoned at, 0: unknown */
	const char *rate_from;		/* "probe", "max-rate", NULL */
};

/*
 * The verdict on plan p; probe_rate: MiB/s of verdict_probe (0: none),
 * max_rate: the run's --max-rate (0: none).
 */
void verdict_judge(const struct plan *p, double probe_rate, double max_rate,
		   struct verdict *v);

/*
 * Time a read of up to VERDICT_PROBE_BYTES where the plan's moves read
 * (never a write): *mib_s, or 0 when there is nothing to read or the
 * image is not a file or device.  0, or negative errno with e set.
 */
int verdict_probe(struct fs *fs, const struct plan *p, double *mib_s,
		  struct err *e);

#endif
