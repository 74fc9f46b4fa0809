/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd/verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_verdict(struct fs *fs, const struct plan *p, bool probe,
		double max_rate, const char *refusal, struct verdict *v,
		struct err *e)
{
	double rate = 0;

	verdict_judge(p, 0, max_rate, v);
	/* the probe reads the image: only when there is a run to time */
	if (probe && v->worth_running && !refusal &&
	    verdict_probe(fs, p, &rate, e))
		return e->code;
	verdict_judge(p, rate, max_rate, v);
	if (refusal && v->worth_running) {
		v->worth_running = false;
		v->why = "run would refuse to write it";
	}
	return 0;
}

static double cut(double now, double after)
{
	return now > 0 ? (now - after) * 100.0 / now : 0.0;
}

/* "12% less", "3% more", "the same". */
static const char *change(double now, double after, char *buf, size_t len)
{
	double pc = cut(now, after);

	if (pc >= 0.5)
		snprintf(buf, len, "%.0f%% less", pc);
	else if (pc <= -0.5)
		snprintf(buf, len, "%.0f%% more", -pc);
	else
		snprintf(buf, len, "the same");
	return buf;
}

void cmd_verdict_text(const struct verdict *v)
{
	char hdd[32], ssd[32], meta[32];

	printf("verdict: %s: ", v->worth_running ? "worth running" :
	       "not worth running");
	if (!v->write_bytes && !v->seconds && v->hdd_now == v->hdd_after &&
	    v->ssd_now == v->ssd_after) {
		printf("%s (modelled read-back %.2f s on an HDD, %llu SSD "
		       "requests)\n", v->why, v->hdd_now,
		       (unsigned long long)v->ssd_now);
		return;
	}
	if (!v->worth_running)
		printf("%s: ", v->why);
	printf("the modelled read-back goes from %.2f s to %.2f s on an HDD "
	       "(%s) and from %llu to %llu SSD requests (%s), its metadata "
	       "walk from %.2f s to %.2f s (%s); it writes %.1f MiB (undo "
	       "file about %.1f MiB)", v->hdd_now, v->hdd_after,
	       change(v->hdd_now, v->hdd_after, hdd, sizeof(hdd)),
	       (unsigned long long)v->ssd_now,
	       (unsigned long long)v->ssd_after,
	       change((double)v->ssd_now, (double)v->ssd_after, ssd,
		      sizeof(ssd)), v->meta_now, v->meta_after,
	       change(v->meta_now, v->meta_after, meta, sizeof(meta)),
	       (double)v->write_bytes / 1048576.0,
	       (double)v->undo_bytes / 1048576.0);
	if (v->rate > 0)
		printf(", about %.*f s here (%s %.0f MiB/s)",
		       v->seconds < 10 ? 1 : 0, v->seconds,
		       strcmp(v->rate_from, "probe") == 0 ? "read probe" :
		       "--max-rate", v->rate);
	printf("\n");
}

void cmd_verdict_json(struct json *j, const struct verdict *v)
{
	json_obj_begin(j, "verdict");
	json_bool(j, "worth_running", v->worth_running);
	json_str(j, "why", v->why);
	json_f2(j, "hdd_ms_now", v->hdd_now * 1e3);
	json_f2(j, "hdd_ms_after", v->hdd_after * 1e3);
	json_f2(j, "meta_hdd_ms_now", v->meta_now * 1e3);
	json_f2(j, "meta_hdd_ms_after", v->meta_after * 1e3);
	json_u64(j, "ssd_requests_now", v->ssd_now);
	json_u64(j, "ssd_requests_after", v->ssd_after);
	json_u64(j, "extents_now", v->extents_now);
	json_u64(j, "extents_after", v->extents_after);
	json_u64(j, "write_bytes", v->write_bytes);
	json_u64(j, "undo_bytes_estimate", v->undo_bytes);
	if (v->rate > 0) {
		json_f2(j, "seconds_estimate", v->seconds);
		json_f2(j, "rate_mib_s", v->rate);
	} else {
		json_null(j, "seconds_estimate");
		json_null(j, "rate_mib_s");
	}
	json_str(j, "rate_from", v->rate_from);
	json_obj_end(j);
}

int cmd_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		u = strchr(units, end[0] & ~0x20);
		if (!u || !end[0])
			return -1;
		shift = 10 * (unsigned)(u - units + 1);
		end++;
		if (strcmp(end, "") && strcmp(end, "iB") && strcmp(end, "B"))
			return -1;
	}
	if (!v || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int cmd_size_opt(void *dst, const char *val, char *why, size_t len)
{
	if (cmd_parse_size(val, dst) == 0)
		return 0;
	snprintf(why, len, "--max-write: '%s' is not a size (bytes from 1, "
		 "or a whole number with K, M, G or T)", val);
	return -1;
}
