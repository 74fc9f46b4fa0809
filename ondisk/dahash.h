/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Directory/attribute name hash (xfs_da_btree.c: xfs_da_hashname). */
#ifndef OD_DAHASH_H
#define OD_DAHASH_H

#include <stddef.h>
#include <stdint.h>

uint32_t od_da_hashname(const uint8_t *name, size_t len);
/* The ascii-ci variant folds Latin-1 capitals first (xfs_ascii_ci_hashname). */
uint32_t od_da_hashname_ci(const uint8_t *name, size_t len);
uint8_t od_ascii_ci_fold(uint8_t c);

#endif
