/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo files of a run in passes: FILE for the first pass, FILE.2,
 * FILE.3, ... for the next (cmd/run_passes.h).  Undoing FILE undoes them
 * all, last first: each pass's file holds the proof of the state that
 * pass left, which is the state undoing the next pass restores.
 */
#include "cmd/undochain.h"
#include "cmd/run_passes.h"
#include "core/relocate/undo.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

unsigned undo_chain_len(const char *file)
{
	char name[1100];
	unsigned n = 1;

	for (;;) {
		run_undo_name(file, n + 1, name, sizeof(name));
		if (access(name, F_OK) != 0)
			return n;
		n++;
	}
}

/* Undo one file of the chain; 0, or the negative errno. */
static int undo_one(const char *name, const char *image,
		    struct undo_info *info, struct err *e)
{
	struct fs *fs = NULL;
	int ret = undo_open_fs(name, image, FS_RDWR, &fs, e);

	if (ret < 0)
		return ret;
	if (fs->mounted) {
		ret = err_set(e, -EBUSY, "%s is mounted%s%s; unmount it "
			      "before undo", image, fs->mountpoint[0] ?
			      " on " : "", fs->mountpoint);
	} else {
		ret = undo_apply(name, fs, info, e);
	}
	fs_close(fs);
	return ret < 0 ? ret : 0;
}

int undo_chain(const char *file, const char *image, unsigned n)
{
	char name[1100];
	struct undo_info info;
	struct err e = { 0 };
	uint64_t blocks = 0;
	unsigned i, done = 0;
	int ret = 0;

	for (i = n; i >= 1; i--) {
		run_undo_name(file, i, name, sizeof(name));
		memset(&info, 0, sizeof(info));
		err_clear(&e);
		ret = undo_one(name, image, &info, &e);
		/*
		 * Nothing undone yet and this one does not match: an undo of
		 * the chain that stopped may have undone it already; the one
		 * before must match then, or the filesystem changed.
		 */
		if (ret == -ESTALE && !done && i > 1) {
			cmd_error("%s: %s; trying the pass before it (an "
				  "earlier undo may have restored this one)",
				  name, e.msg);
			continue;
		}
		if (ret) {
			cmd_error("%s", e.msg);
			cmd_error("undo stopped at %s: passes 1 to %u are "
				  "still in place", name, i);
			return ret;
		}
		blocks += info.blocksize ? (info.bytes + info.blocksize - 1) /
			  info.blocksize : 0;
		printf("pass %u: restored from %s%s\n", i, name,
		       info.complete ? "" : " (the pass had been interrupted)");
		done++;
	}
	printf("restored %" PRIu64 " blocks from %u undo files; the "
	       "filesystem is as it was before the run\n", blocks, done);
	return 0;
}
