/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Is the internal log clean?  (the test xfs_repair makes: head == tail) */
#ifndef CORE_LOG_H
#define CORE_LOG_H

#include "core/fs/fs.h"

/* Sets fs->log_state and fs->log_detail; returns 0 or a read error. */
int log_check(struct fs *fs, struct err *e);

#endif
