/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd/limits.h"
#include "core/fs/path.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_parse_positive(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_ags(struct cmd_limits *l, const char *arg)
{
	const char *s = arg;

	while (*s) {
		char *end;
		unsigned long v;
		uint32_t *nv;

		if (*s < '0' || *s > '9')
			return -1;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || v > UINT32_MAX || (*end && *end != ','))
			return -1;
		nv = realloc(l->agv, (l->nagv + 1) * sizeof(*nv));
		if (!nv)
			return -1;
		l->agv = nv;
		l->agv[l->nagv++] = (uint32_t)v;
		s = *end ? end + 1 : end;
		if (*end && !*s)
			return -1;	/* a trailing comma */
	}
	return l->nagv ? 1 : -1;
}

int cmd_limits_opt(struct cmd_limits *l, int opt, const char *arg)
{
	const char **np;
	char *end;
	unsigned long v;

	switch (opt) {
	case CMD_OPT_AG:
		return parse_ags(l, arg);
	case CMD_OPT_PATH:
		if (!*arg)
			return -1;	/* "" would be the whole filesystem */
		np = realloc(l->paths, (l->npaths + 1) * sizeof(*np));
		if (!np)
			return -1;
		l->paths = np;
		l->paths[l->npaths++] = arg;
		return 1;
	case CMD_OPT_MINEXT:
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || *end || end == arg || v > UINT32_MAX)
			return -1;
		l->min_extents = (uint32_t)v;
		return 1;
	case CMD_OPT_MAXRATE:
		/* 1 KiB/s to 10 TiB/s: beyond, the throttle's clock overflows
		 * or means nothing */
		if (cmd_parse_positive(arg, &l->max_rate) ||
		    l->max_rate < 1.0 / 1024 || l->max_rate > 1e7)
			return -1;
		return 1;
	}
	return 0;
}

bool cmd_limits_any(const struct cmd_limits *l)
{
	return l->nagv || l->npaths || l->min_extents > 1;
}

int cmd_limits_setup(struct cmd_limits *l, struct fs *fs, struct err *e)
{
	uint32_t agcount = fs->geo.agcount;
	size_t i;

	memset(&l->pl, 0, sizeof(l->pl));
	if (l->nagv) {
		l->ags = calloc(agcount, sizeof(*l->ags));
		if (!l->ags)
			return err_set(e, -ENOMEM, "out of memory");
		for (i = 0; i < l->nagv; i++) {
			if (l->agv[i] >= agcount)
				return err_set(e, -EINVAL, "--ag %u: the "
					       "filesystem has AGs 0 to %u",
					       l->agv[i], agcount - 1);
			l->ags[l->agv[i]] = true;
		}
		l->pl.ags = l->ags;
	}
	if (l->npaths) {
		l->roots = calloc(l->npaths, sizeof(*l->roots));
		if (!l->roots)
			return err_set(e, -ENOMEM, "out of memory");
		for (i = 0; i < l->npaths; i++) {
			struct path_stats st;
			int ret;

			memset(&st, 0, sizeof(st));
			ret = path_resolve(fs, l->paths[i], true, &l->roots[i],
					   &st, e);
			if (ret) {
				char msg[sizeof(e->msg)];

				snprintf(msg, sizeof(msg), "%s", e->msg);
				err_clear(e);
				return err_set(e, ret, "--path: %s (a path inside "
					       "the filesystem)", msg);
			}
		}
		l->pl.roots = l->roots;
		l->pl.nroots = l->npaths;
	}
	l->pl.min_extents = l->min_extents;
	return 0;
}

void cmd_limits_free(struct cmd_limits *l)
{
	free(l->agv);
	free(l->paths);
	free(l->ags);
	free(l->roots);
	memset(l, 0, sizeof(*l));
}
