/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inode map: "old new" per renumbered inode, decimal, by old number
 * (NFS exports and backup catalogues key on inode numbers).  A pass that
 * renumbers writes its lines, durably, before it writes the image, so a
 * renumbering that happened is always in the map, even when the process
 * dies; a pass rolled back takes its lines out again.  Without --map it
 * is UNDO.map, made only when a pass renumbers; with --map it is always
 * left, empty when nothing was renumbered.
 */
#include "core/run/run_priv.h"

#include <string.h>
#include <unistd.h>

static int map_open(struct run_ctx *c, struct err *e)
{
	bool created;
	int fd, ret;

	if (c->map)
		return 0;
	/* the default name must be new; --map may name an old map */
	ret = outfile_open(&c->out, c->map_path, "map file", !c->o->map,
			   &fd, &created, e);
	if (ret)
		return ret;
	c->map = fdopen(fd, "w");
	if (!c->map) {
		close(fd);
		if (created)
			unlink(c->map_path);
		return err_set(e, -ENOMEM, "out of memory");
	}
	c->map_created = created;
	c->map_len = 0;
	return 0;
}

int run_map_pass(struct run_ctx *c, const struct plan *p, struct err *e)
{
	size_t i;
	int ret;

	if (!p->nino)
		return 0;
	ret = map_open(c, e);
	if (ret)
		return ret;
	for (i = 0; i < p->nino; i++)
		fprintf(c->map, "%llu %llu\n",
			(unsigned long long)p->ino[i].old,
			(unsigned long long)p->ino[i].new);
	if (fflush(c->map) || ferror(c->map) || fsync(fileno(c->map)))
		return err_set(e, -EIO, "cannot write map file %s: %s",
			       c->map_path, strerror(errno));
	return 0;
}

void run_map_settle(struct run_ctx *c, bool keep)
{
	long len;

	if (!c->map)
		return;
	if (keep) {
		len = ftell(c->map);
		if (len >= 0)
			c->map_len = len;
		return;
	}
	/* the pass was rolled back: its inodes kept their numbers */
	if (ftruncate(fileno(c->map), c->map_len) == 0)
		fseek(c->map, c->map_len, SEEK_SET);
	fsync(fileno(c->map));
}

int run_map_close(struct run_ctx *c, struct err *e)
{
	struct run_result *r = c->r;
	int ret = 0, bad;

	/* --map with nothing renumbered: the file says so, empty */
	if (!c->map && c->o->map && r->status == RUN_OK)
		ret = map_open(c, e);
	if (!c->map)
		return ret;
	bad = ferror(c->map);
	if (fclose(c->map) || bad)
		ret = err_set(e, -EIO, "writing map file %s failed",
			      c->map_path);
	c->map = NULL;
	if (!c->map_len && c->map_created && !c->o->map) {
		unlink(c->map_path);	/* nothing it lists stands */
		return ret;
	}
	snprintf(r->map, sizeof(r->map), "%s", c->map_path);
	return ret;
}
