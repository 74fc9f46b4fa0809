/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A whole disk (a partition table) where a filesystem was expected. */
#ifndef CORE_WHOLEDISK_H
#define CORE_WHOLEDISK_H

#include "core/base/err.h"

/*
 * 0 when path holds no partition table; else -EMEDIUMTYPE with a
 * message naming every partition, which of them hold XFS, and how to
 * name one (its device node, or the loop device an image file gets).
 */
int wholedisk_check(const char *path, struct err *e);

#endif
