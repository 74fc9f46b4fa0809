/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd/limits.h"
#include "cmd/cmd.h"
#include "core/fs/path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_limits_ags(void *dst, const char *val, char *why, size_t len)
{
	struct cmd_limits *l = dst;
	const char *s = val;

	do {
		char *end;
		unsigned long v;
		uint32_t *nv;

		errno = 0;
		v = *s >= '0' && *s <= '9' ? strtoul(s, &end, 10) : 0;
		if (*s < '0' || *s > '9' || errno || v >= UINT32_MAX ||
		    (*end && *end != ',') || (*end == ',' && !end[1])) {
			snprintf(why, len, "--ag: '%s' is not a list of AG "
				 "numbers (N or N,M,...)", val);
			return -1;
		}
		nv = realloc(l->agv, (l->nagv + 1) * sizeof(*nv));
		if (!nv) {
			snprintf(why, len, "out of memory");
			return -1;
		}
		l->agv = nv;
		l->agv[l->nagv++] = (uint32_t)v;
		s = *end ? end + 1 : end;
	} while (*s);
	return 0;
}

int cmd_limits_path(void *dst, const char *val, char *why, size_t len)
{
	struct cmd_limits *l = dst;
	const char **np;

	if (!*val) {
		/* "" would be the whole filesystem: no limit at all */
		snprintf(why, len, "--path: the value is empty: give a path "
			 "inside the filesystem ('/' for all of it)");
		return -1;
	}
	np = realloc(l->paths, (l->npaths + 1) * sizeof(*np));
	if (!np) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	l->paths = np;
	l->paths[l->npaths++] = val;
	return 0;
}

bool cmd_limits_any(const struct cmd_limits *l)
{
	return l->nagv || l->npaths || l->min_extents > 1;
}

int cmd_limits_setup(struct cmd_limits *l, struct fs *fs, struct cmd_call *c)
{
	uint32_t agcount = fs->geo.agcount;
	struct err e = { 0 };
	size_t i;

	memset(&l->pl, 0, sizeof(l->pl));
	if (l->nagv) {
		l->ags = calloc(agcount, sizeof(*l->ags));
		if (!l->ags)
			return cmd_failf(c, -ENOMEM, EXIT_ERROR,
					 "out of memory");
		for (i = 0; i < l->nagv; i++) {
			if (l->agv[i] >= agcount)
				return cmd_usagef(c, "--ag: '%u' is not an AG "
						  "of %s (it has AGs 0 to %u)",
						  l->agv[i], fs->path,
						  agcount - 1);
			l->ags[l->agv[i]] = true;
		}
		l->pl.ags = l->ags;
	}
	if (l->npaths) {
		l->roots = calloc(l->npaths, sizeof(*l->roots));
		if (!l->roots)
			return cmd_failf(c, -ENOMEM, EXIT_ERROR,
					 "out of memory");
		for (i = 0; i < l->npaths; i++) {
			struct path_stats st;
			int ret;

			memset(&st, 0, sizeof(st));
			ret = path_resolve(fs, l->paths[i], true, &l->roots[i],
					   &st, &e);
			if (ret == -ENOENT || ret == -ENOTDIR ||
			    ret == -ELOOP || ret == -ENAMETOOLONG)
				return cmd_usagef(c, "--path: '%s' is not in "
						  "%s (%s; a path inside the "
						  "filesystem, from its root)",
						  l->paths[i], fs->path,
						  ret == -ENOENT ? "not found" :
						  ret == -ENOTDIR ?
						  "a component is not a "
						  "directory" : ret == -ELOOP ?
						  "too many symbolic links" :
						  "too long");
			if (ret)
				return cmd_fail(c, &e);
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
