/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Is a run worth it (verdict.h). */
#include "core/relocate/verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PROBE_PIECE	(1u << 20)	/* bytes per read */
#define PROBE_ALIGN	4096u

static double pct_cut(double now, double after)
{
	return now > 0 ? (now - after) * 100.0 / now : 0.0;
}

void verdict_judge(const struct plan *p, double probe_rate, double max_rate,
		   struct verdict *v)
{
	unsigned bl = p->m->fs->geo.blocklog;
	double hdd, ssd, join, meta, mib;

	v->hdd_now = p->rb_now.hdd_seconds;
	v->hdd_after = p->rb_after.hdd_seconds;
	v->meta_now = p->rb_now.meta.hdd_seconds;
	v->meta_after = p->rb_after.meta.hdd_seconds;
	v->ssd_now = p->rb_now.requests;
	v->ssd_after = p->rb_after.requests;
	v->extents_now = p->extents_before;
	v->extents_after = p->extents_after;
	v->write_bytes = p->copied_blocks << bl;
	v->undo_bytes = p->undo_estimate;
	v->seconds = 0;
	v->rate = 0;
	v->rate_from = NULL;
	hdd = pct_cut(v->hdd_now, v->hdd_after);
	ssd = pct_cut((double)v->ssd_now, (double)v->ssd_after);
	meta = pct_cut(v->meta_now, v->meta_after);
	join = pct_cut((double)v->extents_now, (double)v->extents_after);
	if (p->shrink.dblocks) {
		/* a shrink is worth its figures whatever they gain */
		v->worth_running = true;
		v->why = "a shrink: what lies past the new end moves inside";
	} else if (!p->nmv && !p->npf && !p->nino && !p->nich) {
		v->worth_running = false;
		v->why = "nothing gains enough to be worth moving";
		return;
	} else {
		v->worth_running = hdd >= VERDICT_GAIN_PCT ||
				   ssd >= VERDICT_GAIN_PCT ||
				   meta >= VERDICT_GAIN_PCT ||
				   join >= VERDICT_JOIN_PCT;
		v->why = v->worth_running ? "the plan cuts the read-back or "
			 "joins extents enough" : "what the plan gains is small";
	}
	mib = (double)(2 * (v->write_bytes + v->undo_bytes)) / 1048576.0;
	if (probe_rate > 0) {
		v->rate = probe_rate;
		v->rate_from = "probe";
	}
	if (max_rate > 0 && (v->rate == 0 || max_rate < v->rate)) {
		v->rate = max_rate;
		v->rate_from = "max-rate";
	}
	if (v->rate > 0)
		v->seconds = mib / v->rate;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A descriptor of the image for direct reads, or -1 (then buffered). */
static int direct_fd(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
}

int verdict_probe(struct fs *fs, const struct plan *p, double *mib_s,
		  struct err *e)
{
	unsigned bl = fs->geo.blocklog;
	struct img_raw raw;
	uint64_t done = 0;
	double t0, t;
	void *buf = NULL;
	size_t i;
	int fd = -1, ret = 0;

	*mib_s = 0;
	if (!p->nmv || img_raw(fs->img, &raw))
		return 0;
	fd = direct_fd(raw.fd);
	if (posix_memalign(&buf, PROBE_ALIGN, PROBE_PIECE))
		return err_set(e, -ENOMEM, "out of memory");
	t0 = now_s();
	for (i = 0; i < p->nmv && done < VERDICT_PROBE_BYTES; i++) {
		const struct plan_move *mv = &p->mv[i];
		uint64_t off, end;

		if (mv->flags & PM_NOCOPY)
			continue;
		off = (mv->src << bl) & ~(uint64_t)(PROBE_ALIGN - 1);
		end = (mv->src + mv->len) << bl;
		while (off < end && done < VERDICT_PROBE_BYTES) {
			size_t len = end - off < PROBE_PIECE ?
				     (size_t)(end - off) : PROBE_PIECE;
			ssize_t n;

			len = (len + PROBE_ALIGN - 1) & ~(size_t)(PROBE_ALIGN - 1);
			if (off + len > fs->img->size)
				len = (size_t)(fs->img->size - off) &
				      ~(size_t)(PROBE_ALIGN - 1);
			if (!len)
				break;
			n = pread(fd >= 0 ? fd : raw.fd, buf, len, (off_t)off);
			if (n < 0 && fd >= 0 && errno == EINVAL) {
				close(fd);	/* no direct I/O after all */
				fd = -1;
				continue;
			}
			if (n <= 0) {
				ret = err_set(e, n < 0 ? -errno : -EIO,
					      "probe read at byte %llu failed",
					      (unsigned long long)off);
				goto out;
			}
			done += (uint64_t)n;
			off += (uint64_t)n;
		}
	}
	t = now_s() - t0;
	if (done && t > 0)
		*mib_s = (double)done / 1048576.0 / t;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}
