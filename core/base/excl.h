/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One writer at a time, whatever the path.  The same filesystem can be
 * reached as an image file, through a symlink or a hard link to it, or as
 * a loop device over it, and O_EXCL on a device and flock on a file do not
 * see each other.  So a writer is keyed by the identity of what holds the
 * bytes: st_dev + st_ino of the image file, or of a loop device's backing
 * file (LOOP_GET_STATUS64), or the device number of any other block
 * device; it holds an exclusive flock on the lock file named by that key
 * in /run/xfsdefrag (or /tmp/xfsdefrag-locks where /run is not writable)
 * from before its first read to its end.  An image file is also flocked
 * itself, for other tools that lock it so.
 *
 * Beyond another xfsdefrag, excl_take refuses (-EBUSY, the message names
 * who) when:
 *   - the image file backs a loop device, or the loop device's backing
 *     file backs another one (a second path to the same bytes);
 *   - another process has the file, the device or the backing file open
 *     for writing (/proc/PID/fd, flags from /proc/PID/fdinfo/FD);
 *   - a block device has holders (device mapper, md: sysfs holders/).
 * A loop device's backing file is flocked too, as an image file is.
 * excl_check_ro refuses (-EROFS) a file without any write permission bit
 * (root could write it anyway: its owner said not to) and a read-only
 * block device (BLKROGET; a read-only loop device), before anything is
 * opened for writing.  Mounted filesystems are refused by the caller
 * (probe_mounted) and by O_EXCL on block devices.
 */
#ifndef CORE_EXCL_H
#define CORE_EXCL_H

#include <sys/stat.h>

#include "core/base/err.h"

struct excl;

/* -EROFS (message in e) if path (st: its stat) must not be written. */
int excl_check_ro(const char *path, const struct stat *st, struct err *e);
/*
 * Take the writer's lock for path, open read-write as fd (which stays
 * the caller's), and check that no other writer can reach it.
 */
int excl_take(const char *path, int fd, struct excl **out, struct err *e);
void excl_release(struct excl *x);
/*
 * Look again for another process with the bytes open for writing (the
 * writer's lock and flock keep out those that ask; a raw writer that
 * does not ask can only be seen while it has them open).  0, or -EBUSY
 * naming it.
 */
int excl_recheck(const struct excl *x, struct err *e);
/*
 * The identity of the regular file that holds path's bytes (open as
 * fd): the file itself, or a bound loop device's backing file.  0, or
 * -ENOENT when no regular file holds them (another block device).
 */
int excl_bytes_identity(const char *path, int fd, dev_t *dev, ino_t *ino,
			struct err *e);

#endif
