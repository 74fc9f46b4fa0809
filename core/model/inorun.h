/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading an AG's inodes in large sequential runs: the physically present
 * inode groups of its chunks (sparse chunks skip the absent ones) that
 * lie back to back on disk, within and across chunks, up to a size.
 * Shared by the scan and the checker.
 */
#ifndef CORE_INORUN_H
#define CORE_INORUN_H

#include "core/base/reader.h"
#include "core/model/model.h"

struct inorun {
	const struct od_geo *g;
	const struct m_ag *ag;
	uint64_t max;		/* bytes per run, at most */
	size_t ci;		/* cursor: chunk index ... */
	unsigned i;		/* ... and inode in it */
	size_t cend;		/* no runs from this chunk on */
	const bool *want;	/* NULL, or per chunk: false skips it */
};

/* One run: bytes [start, start + len) hold inodes from (ci, i) on. */
struct inorun_seg {
	uint64_t start, len;
	size_t ci;
	unsigned i;
};

void inorun_init(struct inorun *r, const struct od_geo *g,
		 const struct m_ag *ag, uint64_t max);
/* The next run, or false when the AG has no more. */
bool inorun_next(struct inorun *r, struct inorun_seg *s);
/*
 * Move (ci, i) to the next physically present inode, if any: walking a
 * run's buffer inode by inode, call it before each one.
 */
bool inorun_present_slow(const struct m_ag *ag, size_t *ci, unsigned *i);

/* Inline: most calls find (ci, i) present already, once per inode. */
static inline bool inorun_present(const struct m_ag *ag, size_t *ci,
				  unsigned *i)
{
	if (*ci < ag->nchunk && *i < OD_INODES_PER_CHUNK &&
	    od_inobt_present(&ag->chunk[*ci], *i))
		return true;
	return inorun_present_slow(ag, ci, i);
}

/*
 * The AG's runs through a bulk reader (core/base/reader.h): r is the
 * cursor the reader pulls from (it must outlive *out).  Then
 * inorun_read gives each run with its bytes: seg and it->data, or
 * it->data NULL when the caller must read the run itself (with
 * fs_read_daddr, which names the failure) into it->scratch.
 */
int inorun_read_open(struct inorun *r, struct fs *fs, const struct m_ag *ag,
		     struct rdr **out);
/*
 * The same for chunks [c0, c1) only (a scan in parts); fill_cache when
 * the bytes will be read again (rdr_cfg.fill_cache).
 */
int inorun_read_range(struct inorun *r, struct fs *fs, const struct m_ag *ag,
		      size_t c0, size_t c1, bool fill_cache, struct rdr **out);
/* Only the chunks ci with want[ci] (want outlives *out); no run spans
 * a chunk left out. */
int inorun_read_want(struct inorun *r, struct fs *fs, const struct m_ag *ag,
		     const bool *want, struct rdr **out);
bool inorun_read(struct rdr *rd, struct rdr_item *it, struct inorun_seg *s);

#endif
