/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared (reflinked) block ranges of one AG, from the refcount btree. */
#ifndef CORE_REFCOUNT_H
#define CORE_REFCOUNT_H

#include "core/fs/fs.h"

struct refc_rec {
	uint32_t start, len, refcount;
};

struct refc_set {
	struct refc_rec *v;	/* shared domain only, sorted by start */
	size_t n;
};

int refc_load(struct fs *fs, uint32_t agno, struct refc_set *s,
	      struct err *e);
void refc_free(struct refc_set *s);

/*
 * The first shared stretch inside [agbno, agbno+len): *fbno its start
 * and *flen its length through contiguous shared records, or *fbno =
 * NULLAGBLOCK (the semantics of xfs_refcount_find_shared with
 * find_end_of_shared).
 */
void refc_find_shared(const struct refc_set *s, uint32_t agbno, uint32_t len,
		      uint32_t *fbno, uint32_t *flen);

#endif
