/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A whole disk (a partition table) where a filesystem was expected. */
#ifndef CORE_WHOLEDISK_H
#define CORE_WHOLEDISK_H

#include <stdint.h>

#include "core/base/err.h"

/*
 * 0 when path holds no partition table; else -EMEDIUMTYPE with a
 * message naming every partition, which of them hold XFS, and how to
 * name one (its device node, or the loop device an image file gets).
 */
int wholedisk_check(const char *path, struct err *e);

/* Partition partno of the whole disk at path (an image file or a disk). */
struct wholedisk_part {
	uint64_t off, len;	/* bytes */
	char fstype[32];	/* what libblkid found there, "" if nothing */
	char dev[64];		/* its device node, "" when there is none */
};

/*
 * 0 and *p filled; -EMEDIUMTYPE when path holds no partition table or
 * no partition partno (the message names those it has) or when the
 * partition holds another filesystem; other negative errnos on error.
 */
int wholedisk_part(const char *path, unsigned partno,
		   struct wholedisk_part *p, struct err *e);

#endif
