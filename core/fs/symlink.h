/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a symlink's target, inline or remote. */
#ifndef CORE_SYMLINK_H
#define CORE_SYMLINK_H

#include "core/fs/inode.h"
#include "ondisk/symlink.h"

/* Fill target (NUL-terminated, at most OD_SYMLINK_MAXLEN bytes). */
int symlink_read(struct fs *fs, const struct inode *ip,
		 char target[OD_SYMLINK_MAXLEN + 1], struct err *e);

/* The same, and each v5 remote block's header, once it verified, to
 * hdr (the checker compares their LSNs with the log head). */
int symlink_read_hdrs(struct fs *fs, const struct inode *ip,
		      char target[OD_SYMLINK_MAXLEN + 1],
		      void (*hdr)(void *priv, const struct od_symlink_hdr *h),
		      void *priv, struct err *e);

#endif
