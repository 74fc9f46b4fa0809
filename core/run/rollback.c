/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pass that fails (a write error, a full disk under the undo file, a
 * verification that finds a problem) is rolled back from its own undo
 * file, through the writer's image: the filesystem is then as the pass
 * before left it.  When even that fails, the image stays NEEDSREPAIR
 * and the undo file stays, for `xfsdefrag undo` once the cause is fixed.
 */
#include "core/run/run_priv.h"
#include "core/undo/chain.h"
#include "core/undo/undo.h"

#include <unistd.h>

static int roll_back(struct fs *fs, const char *undo, const char *image,
		     struct undo_info *ui, struct err *e)
{
	struct fs *fs2 = NULL;
	struct img *view;
	int ret;

	if (img_borrow(fs->img, true, &view))
		return err_set(e, -ENOMEM, "out of memory");
	ret = undo_open_img(undo, view, image, FS_RDWR, &fs2, e);
	if (ret >= 0)
		ret = undo_apply(undo, fs2, ui, e);
	fs_close(fs2);
	return ret < 0 ? ret : 0;
}

/* After a failed pass n > 1: what the passes before it left. */
static void earlier_passes(struct run_ctx *c, unsigned n)
{
	if (n <= 1)
		return;
	run_say(c, RUN_SAY_ERROR, "(\"before the run\" means before pass %u: "
		"passes 1 to %u stay done, each verified; xfsdefrag undo %s %s "
		"undoes them)", n, n - 1, c->o->undo, c->o->image);
}

void run_failed_pass(struct run_ctx *c, struct fs *fs,
		     const struct exec_stats *st, const char *undo)
{
	struct run_result *r = c->r;
	const char *image = c->o->image;
	struct undo_info ui = { 0 };
	struct err e = { 0 };

	r->failed_pass = true;
	if (st->writes_done == 0) {
		r->rollback = RUN_RB_UNTOUCHED;
		if (!st->undo_created || undo_discard(undo, &e) == 0)
			run_say(c, RUN_SAY_ERROR, "nothing was written to %s: "
				"it is unchanged (no undo file is left)",
				image);
		else
			run_say(c, RUN_SAY_ERROR, "nothing was written to %s: "
				"it is unchanged (undo file %s is not needed)",
				image, undo);
		earlier_passes(c, c->pass);
		return;
	}
	if (roll_back(fs, undo, image, &ui, &e) == 0) {
		r->rollback = RUN_RB_DONE;
		r->rb_blocks = ui.blocksize ? (ui.bytes + ui.blocksize - 1) /
			       ui.blocksize : 0;
		undo_discard(undo, &e);
		run_say(c, RUN_SAY_ERROR, "rolled back: %s is as it was before "
			"the run (%llu blocks restored from %s, which is "
			"removed)", image, (unsigned long long)r->rb_blocks,
			undo);
		earlier_passes(c, c->pass);
		return;
	}
	r->rollback = RUN_RB_FAILED;
	run_say(c, RUN_SAY_ERROR, "rolling back failed: %s", e.msg);
	run_say(c, RUN_SAY_ERROR, "%s holds a partial run (%llu writes) and "
		"is marked NEEDSREPAIR, so no kernel will mount it; %s holds "
		"what it needs: once the cause is fixed, restore it with: "
		"xfsdefrag undo %s %s", image,
		(unsigned long long)st->writes_done, undo, c->o->undo, image);
}
