/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What is on this device?  (libblkid) and is it mounted? */
#ifndef CORE_PROBE_H
#define CORE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Probe path with libblkid.  Returns 0 and fills type ("xfs", "ext4", ...)
 * or an empty string when no signature was recognised; <0 on error.
 */
int probe_fstype(const char *path, char *type, size_t len);

/* One partition of a partition table, and what its first bytes hold. */
struct probe_part {
	unsigned partno;	/* 1, 2, ... as the kernel numbers them */
	uint64_t start, size;	/* bytes */
	char fstype[32];	/* "xfs", "ext4", ...; "" when none found */
	char dev[64];		/* its device node, when path is a disk */
};

/*
 * Does path hold a partition table (a whole disk given instead of a
 * partition)?  0 and *n = 0 when it does not; else fills pttype ("gpt",
 * "dos", ...) and up to max partitions, *n set to how many there are.
 * Each partition is probed for a filesystem (files too: libblkid reads
 * at the partition's offset).  <0 on error.
 */
int probe_partitions(const char *path, char *pttype, size_t ptlen,
		     struct probe_part *parts, size_t max, size_t *n);

/*
 * Is the filesystem on path mounted?  Handles block devices and image
 * files attached to loop devices.  Fills mountpoint when known.
 */
bool probe_mounted(const char *path, char *mountpoint, size_t len);

/*
 * Is the filesystem in the len bytes at off of path mounted (len 0: to
 * the end)?  For an image file: through a loop device over those bytes,
 * or a partition of one; for a block device: the device itself.
 */
bool probe_mounted_range(const char *path, uint64_t off, uint64_t len,
			 char *mountpoint, size_t mlen);

/* Is block device dev mounted (/proc/self/mountinfo)?  Fills mountpoint. */
bool probe_dev_mounted(dev_t dev, char *mountpoint, size_t len);

#endif
