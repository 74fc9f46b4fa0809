/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What is on this device?  (libblkid) and is it mounted? */
#ifndef CORE_PROBE_H
#define CORE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Probe path with libblkid.  Returns 0 and fills type ("xfs", "ext4", ...)
 * or an empty string when no signature was recognised; <0 on error.
 */
int probe_fstype(const char *path, char *type, size_t len);

/*
 * Is the filesystem on path mounted?  Handles block devices and image
 * files attached to loop devices.  Fills mountpoint when known.
 */
bool probe_mounted(const char *path, char *mountpoint, size_t len);

/* Is block device dev mounted (/proc/self/mountinfo)?  Fills mountpoint. */
bool probe_dev_mounted(dev_t dev, char *mountpoint, size_t len);

#endif
