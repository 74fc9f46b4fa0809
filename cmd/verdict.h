/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict line and JSON object report and plan print (core's
 * verdict.h), and the --max-write size.
 */
#ifndef CMD_VERDICT_H
#define CMD_VERDICT_H

#include "cmd/json.h"
#include "cmd/opt.h"
#include "core/relocate/verdict.h"

/*
 * The verdict on plan p of fs: with probe, the run time from a timed
 * read of where the plan reads; max_rate: --max-rate (0: none);
 * refusal: why run would refuse to write this filesystem (NULL: it
 * would not), which makes it no.
 */
int cmd_verdict(struct fs *fs, const struct plan *p, bool probe,
		double max_rate, const char *refusal, struct verdict *v,
		struct err *e);
/* "verdict: ..." and a newline. */
void cmd_verdict_text(const struct verdict *v);
void cmd_verdict_json(struct json *j, const struct verdict *v);

/*
 * A size: bytes, or with a suffix K, M, G or T (KiB, MiB, ...; "KiB",
 * "MiB" and so on too).  0 and *out, or -1 when it is not one (or 0).
 */
int cmd_parse_size(const char *s, uint64_t *out);
/* OPT_CALL taker of a size (dst: a uint64_t). */
int cmd_size_opt(void *dst, const char *val, char *why, size_t len);

/* --no-probe: the verdict's time from the model's rate, not a read. */
#define CMD_NO_PROBE_OPT(T, m) \
	{ .name = "no-probe", .kind = OPT_FLAG, OPT_AT(T, m), \
	  .help = "estimate the run's time without timing a read of the " \
		  "image" }

#endif
