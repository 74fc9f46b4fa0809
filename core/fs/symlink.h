/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a symlink's target, inline or remote. */
#ifndef CORE_SYMLINK_H
#define CORE_SYMLINK_H

#include "core/fs/inode.h"
#include "ondisk/symlink.h"

/* Fill target (NUL-terminated, at most OD_SYMLINK_MAXLEN bytes). */
int symlink_read(struct fs *fs, const struct inode *ip,
		 char target[OD_SYMLINK_MAXLEN + 1], struct err *e);

#endif
