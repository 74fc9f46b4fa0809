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
 * A partition is the bytes it covers of its whole disk (sysfs start and
 * size), and of the file behind the disk when that is a loop device
 * (plus the loop device's offset); a part of an image file or a disk
 * (a partition named by its number, img_open_range) the same.  Writers
 * of bytes that do not overlap (two partitions) do not exclude each
 * other: the lock is a byte-range lock on the lock file (OFD locks).
 *
 * Beyond another xfsdefrag, excl_take refuses (-EBUSY, the message names
 * who) when:
 *   - the image file backs a loop device over overlapping bytes, or the
 *     loop device's backing file backs another one (a second path to
 *     the same bytes); the loop device a partition's path is on is its
 *     disk, not a second path;
 *   - another process has the file, the device, its whole disk, an
 *     overlapping partition or the backing file open for writing
 *     (/proc/PID/fd, flags from /proc/PID/fdinfo/FD);
 *   - the whole disk, or an overlapping partition of it, has holders
 *     (device mapper, md: sysfs holders/).
 * A loop device's backing file is flocked too, as an image file is
 * (shared for a partition's bytes).
 * excl_check_ro refuses (-EROFS) a file without any write permission bit
 * (root could write it anyway: its owner said not to) and a read-only
 * block device (BLKROGET; a read-only loop device), before anything is
 * opened for writing.  Mounted filesystems are refused by the caller
 * (probe_mounted) and by O_EXCL on block devices.
 */
#ifndef CORE_EXCL_H
#define CORE_EXCL_H

#include <stdint.h>
#include <sys/stat.h>

#include "core/base/err.h"

struct excl;

/* -EROFS (message in e) if path (st: its stat) must not be written. */
int excl_check_ro(const char *path, const struct stat *st, struct err *e);
/*
 * Take the writer's lock for the len bytes at off of path (len 0: all
 * of it), open read-write as fd (which stays the caller's), and check
 * that no other writer can reach them.
 */
int excl_take(const char *path, int fd, uint64_t off, uint64_t len,
	      struct excl **out, struct err *e);
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
