/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why a writer must not touch this filesystem.  Every relocation command
 * asks first; each reason names itself.  The consistency pre-check is
 * separate (core/check/check.h): it needs the whole scan.
 */
#ifndef CORE_REFUSE_H
#define CORE_REFUSE_H

#include "core/fs/fs.h"

/*
 * 0 when nothing forbids writing, else -EPERM with the reason in e:
 * mounted, log dirty or external, unlinked inodes pending, a feature bit
 * the relocation code does not implement (incompat, ro_compat,
 * log_incompat, v4 version bits), NEEDSREPAIR set, a realtime section, a
 * superblock marked mkfs-in-progress.  Reads the AGIs (unlinked lists).
 */
int refuse_write(struct fs *fs, struct err *e);

#endif
