/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo files of a run in passes: FILE for the first pass, FILE.2,
 * FILE.3, ... for the next.  Undoing FILE undoes them all, last first:
 * each pass's file holds the proof of the state that pass left, which is
 * the state undoing the next pass restores.
 */
#include "core/undo/chain.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void undo_chain_name(const char *base, unsigned n, char *buf, size_t len)
{
	if (n <= 1)
		snprintf(buf, len, "%s", base);
	else
		snprintf(buf, len, "%s.%u", base, n);
}

unsigned undo_chain_len(const char *file)
{
	char name[1100];
	unsigned n = 1;

	for (;;) {
		undo_chain_name(file, n + 1, name, sizeof(name));
		if (access(name, F_OK) != 0)
			return n;
		n++;
	}
}

static void say(undo_chain_say_fn fn, void *priv, bool error,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void say(undo_chain_say_fn fn, void *priv, bool error,
		const char *fmt, ...)
{
	char line[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (fn)
		fn(priv, error, line);
}

/* Undo one file of the chain; 0, or the negative errno. */
static int undo_one(const char *name, const char *image, unsigned fsflags,
		    struct undo_info *info, struct err *e)
{
	struct fs *fs = NULL;
	int ret = undo_open_fs(name, image, fsflags | FS_RDWR, &fs, e);

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

int undo_chain(const char *file, const char *image, unsigned fsflags,
	       unsigned n, undo_chain_say_fn fn, void *priv)
{
	char name[1100];
	struct undo_info info;
	struct err e = { 0 };
	uint64_t blocks = 0;
	unsigned i, done = 0;
	int ret = 0;

	for (i = n; i >= 1; i--) {
		undo_chain_name(file, i, name, sizeof(name));
		memset(&info, 0, sizeof(info));
		err_clear(&e);
		ret = undo_one(name, image, fsflags, &info, &e);
		/*
		 * Nothing undone yet and this one does not match: an undo of
		 * the chain that stopped may have undone it already; the one
		 * before must match then, or the filesystem changed.
		 */
		if (ret == -ESTALE && !done && i > 1) {
			say(fn, priv, true, "%s: %s; trying the pass before it "
			    "(an earlier undo may have restored this one)",
			    name, e.msg);
			continue;
		}
		if (ret) {
			say(fn, priv, true, "%s", e.msg);
			say(fn, priv, true, "undo stopped at %s: passes 1 to %u "
			    "are still in place", name, i);
			return ret;
		}
		blocks += info.blocksize ? (info.bytes + info.blocksize - 1) /
			  info.blocksize : 0;
		say(fn, priv, false, "pass %u: restored from %s%s", i, name,
		    info.complete ? "" : " (the pass had been interrupted)");
		done++;
	}
	say(fn, priv, false, "restored %" PRIu64 " blocks from %u undo files; "
	    "the filesystem is as it was before the run", blocks, done);
	return 0;
}
