/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The limits plan and run share (issue 14): --ag N[,M...], --path PATH
 * (repeatable), --min-extents N, --max-rate MiB/s.  Parsed here, turned
 * into the planner's struct plan_limits once the filesystem is open.
 */
#ifndef CMD_LIMITS_H
#define CMD_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fs/fs.h"
#include "core/relocate/plan_limits.h"

#define CMD_OPT_AG		0x200
#define CMD_OPT_PATH		0x201
#define CMD_OPT_MINEXT		0x202
#define CMD_OPT_MAXRATE		0x203
#define CMD_LIMIT_LONGOPTS \
	{ "ag", required_argument, NULL, CMD_OPT_AG }, \
	{ "path", required_argument, NULL, CMD_OPT_PATH }, \
	{ "min-extents", required_argument, NULL, CMD_OPT_MINEXT }, \
	{ "max-rate", required_argument, NULL, CMD_OPT_MAXRATE }

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

/* 1: opt was one of ours and is taken, 0: not ours, -1: a bad value. */
int cmd_limits_opt(struct cmd_limits *l, int opt, const char *arg);
/* Check the AGs against fs, resolve the paths; fill l->pl. */
int cmd_limits_setup(struct cmd_limits *l, struct fs *fs, struct err *e);
/* Are any limits (not the rate) given? */
bool cmd_limits_any(const struct cmd_limits *l);
void cmd_limits_free(struct cmd_limits *l);

/* A parsed number of seconds or MiB/s: > 0, fractions allowed. */
int cmd_parse_positive(const char *s, double *out);

#endif
