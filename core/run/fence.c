/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Before the first write, every path the run will create is named and
 * checked: none is the image (through any path to it) or another output,
 * and no undo file of the chain exists yet (undo_begin's O_EXCL would
 * stop a pass half way through the chain; better to stop now).  The undo
 * file's filesystem must have room for what a pass will journal.
 */
#include "core/run/run_priv.h"
#include "core/undo/chain.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int undo_free(const char *path, const char *what, struct err *e)
{
	if (access(path, F_OK) == 0)
		return err_set(e, -EEXIST, "refusing to write: %s %s already "
			       "exists (undo that run first, or name another "
			       "with --undo)", what, path);
	return 0;
}

int run_fence(struct run_ctx *c, struct err *e)
{
	const struct run_opts *o = c->o;
	char name[1100];
	unsigned n, last = 1;
	int ret;

	ret = outfile_keep_image(&c->out, o->image, e);
	if (!ret)
		ret = undo_free(o->undo, "undo file", e);
	if (!ret)
		ret = outfile_claim(&c->out, o->undo, "undo file", e);
	/* passes: one per AG at most, then the rest */
	if (o->by_ag || run_opts_limited(o))
		last = c->fs->geo.agcount + 1;
	for (n = 2; !ret && n <= last; n++) {
		undo_chain_name(o->undo, n, name, sizeof(name));
		ret = undo_free(name, "undo file", e);
		if (!ret)
			ret = outfile_claim(&c->out, name, "undo file", e);
	}
	if (ret)
		return ret;
	if (o->map)
		snprintf(c->map_path, sizeof(c->map_path), "%s", o->map);
	else
		snprintf(c->map_path, sizeof(c->map_path), "%s.map", o->undo);
	if (strlen(c->map_path) + 1 >= sizeof(c->map_path))
		return err_set(e, -ENAMETOOLONG, "%s: name too long",
			       c->map_path);
	return outfile_claim(&c->out, c->map_path, "map file", e);
}

int run_undo_room(const char *undo, uint64_t need, struct err *e)
{
	char *copy = strdup(undo), *dir;
	struct statvfs vfs;
	uint64_t avail;
	int ret = 0;

	if (!copy)
		return err_set(e, -ENOMEM, "out of memory");
	dir = dirname(copy);
	if (statvfs(dir, &vfs) == 0) {
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		if (avail < need)
			ret = err_set(e, -ENOSPC, "refusing to write: the undo "
				      "file %s needs about %.1f MiB, and %s has "
				      "%.1f MiB free (name another place with "
				      "--undo)", undo, (double)need / 1048576.0,
				      dir, (double)avail / 1048576.0);
	}
	free(copy);
	return ret;
}
