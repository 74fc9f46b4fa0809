/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Resolving a path from the root directory, as open(2) would. */
#ifndef CORE_PATH_H
#define CORE_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fs/fs.h"

struct path_stats {
	uint64_t dirblocks_read;	/* directory blocks read by lookups */
	unsigned lookups;
	/* lookups that found their name only by a linear scan, past a
	 * damaged hash index; the last one's warning (dir.h) */
	unsigned index_damaged;
	char warning[320];
};

/*
 * Resolve path (relative to the filesystem root; a leading '/' is the
 * root too).  Symlinks in the middle are always followed, the last one
 * only with follow_last; absolute targets restart at the filesystem root.
 * -ENOENT, -ENOTDIR and -ELOOP carry a message naming the component.
 */
int path_resolve(struct fs *fs, const char *path, bool follow_last,
		 uint64_t *ino, struct path_stats *st, struct err *e);

#endif
