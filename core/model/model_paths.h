/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Paths of inodes, reconstructed from the model's directory links. */
#ifndef CORE_MODEL_PATHS_H
#define CORE_MODEL_PATHS_H

#include "core/model/model.h"

/*
 * out[i] receives a malloc'd path ("/a/b", "/" for the root) for inos[i];
 * an inode no directory reaches is named "(inode N)".  Hard links: the
 * first link found is used.
 */
int model_paths(const struct model *m, const uint64_t *inos, size_t n,
		char **out, struct err *e);

#endif
