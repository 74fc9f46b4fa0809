/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Inode-to-data distance of one inode of the model, as the report counts it. */
#ifndef CORE_MODEL_DIST_H
#define CORE_MODEL_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model/model.h"

/*
 * Blocks between the inode's own block and its first data block (lowest
 * file offset), as linear block numbers (agno * agblocks + agbno), the
 * figure report's "to first data block" ranks.  false when the data fork
 * has no extent on the data device (none, or a realtime file); *first,
 * if not NULL, receives the first data block's linear number.
 */
bool model_data_dist(const struct model *m, const struct m_ag *ag,
		     const struct m_ino *mi, uint64_t *dist, uint64_t *first);

#endif
