/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The last step of a shrink: the pass is written, sealed, verified and
 * stands, so the image file is cut to the new size.  Undo needs nothing
 * past the new end: the undo file journaled every block there that was
 * in use and no intact copy holds, and undo extends the file to the size
 * its header records before it writes.  A crash before the cut leaves a
 * consistent, shrunk filesystem in a file still as long as before.  A
 * block device keeps its size, and so does a partition of a whole disk
 * (--partition, in a file too): the partition is the user's to shrink.
 */
#include "core/run/run_priv.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int run_shrink_cut(struct run_ctx *c)
{
	struct run_result *r = c->r;
	uint64_t size = r->shrink.dblocks << c->fs->geo.blocklog;
	struct stat st;
	int ret;

	if (img_stat(c->fs->img, &st) == 0 && S_ISBLK(st.st_mode)) {
		r->blockdev = true;
		return 0;
	}
	ret = img_resize(c->fs->img, size);
	if (ret == 0) {
		r->truncated = true;
		return 0;
	}
	if (ret == -ENOTTY) {
		r->blockdev = true;	/* a partition of a whole disk */
		return 0;
	}
	r->status = RUN_FAILED;
	return err_set(&r->e, ret, "%s: the filesystem is shrunk and "
		       "verified, but cutting the file to %llu bytes failed: "
		       "%s (truncate it by hand; nothing past that is in use)",
		       c->o->image, (unsigned long long)size, strerror(-ret));
}
