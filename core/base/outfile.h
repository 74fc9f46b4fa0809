/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files a command creates or truncates itself (undo journals and their
 * chain members, inode maps, HTML reports) must never be the image, a
 * path to it, or another output of the same command: a map written over
 * the image destroys it.  An outfile_set holds the identities to keep
 * out (st_dev + st_ino of what holds the bytes, after following
 * symlinks: for a loop device, the file behind it), and the names of
 * outputs not made yet.  outfile_open checks the identity of the very
 * file it opened, before truncating or writing anything, so a rename
 * between the check and the write cannot slip the image in.
 */
#ifndef CORE_OUTFILE_H
#define CORE_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/base/err.h"

struct outfile_set {
	struct outfile_id {
		dev_t dev;
		ino_t ino;
		char *name;	/* as given, for the message */
		const char *role;	/* "image", "undo file", ... */
		char *canon;	/* canonical path (outputs not made yet) */
		bool have_id;
	} *at;
	size_t n, cap;
};

void outfile_init(struct outfile_set *s);
void outfile_release(struct outfile_set *s);
/*
 * Keep out the bytes of image (a file or a block device: its own file,
 * or the loop device's backing file).  A missing image adds nothing.
 */
int outfile_keep_image(struct outfile_set *s, const char *image,
		       struct err *e);
/*
 * Is path one of the set (the image, or an output already named)?  0,
 * or -EEXIST with one line naming both paths.  Adds path, so that the
 * next output may not be this one either.
 */
int outfile_claim(struct outfile_set *s, const char *path, const char *what,
		  struct err *e);
/*
 * Open path for writing (mode 0644 less the umask) as output what ("map
 * file", "HTML report"): excl: it must not exist (O_EXCL); otherwise an
 * existing regular file is truncated only after its identity is found
 * to be none of the set.  A block device is never an output.  *fd, 0;
 * or <0 with the reason.  *created: this call made the file (only then
 * may a failed command remove it).
 */
int outfile_open(struct outfile_set *s, const char *path, const char *what,
		 bool excl, int *fd, bool *created, struct err *e);

#endif
