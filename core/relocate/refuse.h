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
 * mounted, log dirty or external, unlinked inodes pending, NEEDSREPAIR
 * set, a superblock marked mkfs-in-progress, and, all named in one
 * message, a realtime section and every feature bit the relocation code
 * does not implement (incompat, ro_compat, log_incompat, v4 version
 * bits).  Reads the AGIs (unlinked lists).
 */
int refuse_write(struct fs *fs, struct err *e);

/*
 * 0 when inodes of fs may be renumbered, else -EPERM with the reason:
 * what refuse_write refuses, and every structure that names inodes and
 * that the executor does not rewrite: pending unlinked inodes (AGI
 * buckets and di_next_unlinked chains), inodes larger than the chunk
 * layout handles.  (Parent pointers are rewritten; the metadata
 * directory's inodes keep their numbers.)
 */
int refuse_renumber(struct fs *fs, struct err *e);

#endif
