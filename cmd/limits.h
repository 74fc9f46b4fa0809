/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The limits plan and run share: --ag N[,M...], --path PATH (repeatable),
 * --min-extents N, --max-rate MiB/s.  Parsed here, turned into the
 * planner's struct plan_limits once the filesystem is open.
 */
#ifndef CMD_LIMITS_H
#define CMD_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fs/fs.h"
#include "core/relocate/plan_limits.h"

struct cmd_call;

/* OPT_CALL takers of --ag and --path (dst: the struct cmd_limits). */
int cmd_limits_ags(void *dst, const char *val, char *why, size_t len);
int cmd_limits_path(void *dst, const char *val, char *why, size_t len);

/* The limits' rows of an option table, into member m of T. */
#define CMD_LIMIT_OPTS(T, m) \
	{ .name = "ag", .kind = OPT_CALL, .arg = "N[,M...]", \
	  .call = cmd_limits_ags, OPT_AT(T, m), \
	  .help = "only these AGs change", .dflt = "all" }, \
	{ .name = "path", .kind = OPT_CALL, .arg = "PATH", \
	  .call = cmd_limits_path, OPT_AT(T, m), .flags = OPT_F_REPEAT, \
	  .help = "only files under PATH (inside the filesystem) move", \
	  .dflt = "the whole tree" }, \
	{ .name = "min-extents", .kind = OPT_UINT, .arg = "N", \
	  .min = 1, .max = 4294967295.0, OPT_AT(T, m.min_extents), \
	  .help = "only files of at least N extents move", .dflt = "1" }, \
	{ .name = "max-rate", .kind = OPT_REAL, .arg = "MIBS", \
	  .min = 0.001, .max = 10000000, OPT_AT(T, m.max_rate), \
	  .help = "copy at most MIBS MiB per second", .dflt = "no limit" }

struct cmd_limits {
	uint32_t *agv;		/* --ag, as given */
	size_t nagv;
	const char **paths;	/* --path, as given (argv strings) */
	size_t npaths;
	uint32_t min_extents;
	double max_rate;	/* MiB/s; 0: none */
	/* after cmd_limits_setup */
	bool *ags;		/* per AG, NULL: all */
	uint64_t *roots;
	struct plan_limits pl;
};

/*
 * Check the AGs against fs and resolve the paths, fill l->pl: 0, or
 * the exit status after saying what is wrong (a usage error: an AG the
 * filesystem does not have, a path it does not hold).
 */
int cmd_limits_setup(struct cmd_limits *l, struct fs *fs, struct cmd_call *c);
/* Are any limits (not the rate) given? */
bool cmd_limits_any(const struct cmd_limits *l);
void cmd_limits_free(struct cmd_limits *l);

#endif
