/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The whole-filesystem scan: every AG's headers, free-space and inode
 * btrees, every allocated inode (inode clusters read in large sequential
 * runs), every fork's extents and every directory's entries, into a
 * struct model.  AGs are scanned in parallel by a pool of threads.
 * Damage inside an AG is recorded in that AG and the scan goes on.
 */
#ifndef CORE_SCAN_H
#define CORE_SCAN_H

#include "core/model/model.h"

struct scan_progress {
	uint64_t inodes_done;	/* updated atomically by the workers */
	uint64_t inodes_total;	/* estimate, from the superblock */
	uint32_t ags_done;
};

struct scan_opts {
	unsigned threads;	/* 0: one per online CPU */
	bool dirs;		/* read directories (links, locality) */
	/* called about every 100 ms from the calling thread, may be NULL */
	void (*progress)(void *priv, const struct scan_progress *p);
	void *priv;
	/*
	 * Parts per AG, at most: 0 from the thread count (an AG is split
	 * in chunk ranges when there are fewer AGs than work for the
	 * threads, and only large AGs); N > 0 splits every AG with N
	 * chunks or more into N (tests).
	 */
	unsigned parts;
	/*
	 * For a caller that looks at the inodes' bytes too (the checker),
	 * from the scanning threads, NULL if not: run for every run of
	 * inodes read, once decoded (ag is the model of the part being
	 * scanned: its inodes from ino0 on came from this run; the run's
	 * first inode is chunk ci's inode i; buf NULL when unreadable);
	 * fill_cache for chunks [c0, c1) before they are read, true to read
	 * them through the page cache (rdr_cfg.fill_cache).
	 */
	void (*run)(void *hpriv, void **part, const struct m_ag *ag,
		    size_t ino0, size_t ci, unsigned i, const uint8_t *buf,
		    uint64_t len);
	bool (*fill_cache)(void *hpriv, const struct m_ag *ag, size_t c0,
			   size_t c1);
	/*
	 * May be NULL, from the scanning threads: every request of len
	 * bytes at off read whole (rdr_item.req: the holes between chunks
	 * too), after the runs in it were decoded (run); part_done once a
	 * part of an AG is scanned.  *part is the caller's, one per part,
	 * NULL at first, the same for run.
	 */
	void (*bytes)(void *hpriv, void **part, const struct m_ag *ag,
		      uint64_t off, const uint8_t *buf, size_t len);
	void (*part_done)(void *hpriv, void **part, const struct m_ag *ag);
	/*
	 * May be NULL: called once for every AG, from the scanning thread
	 * that completed its model (m->ag[agno], parts joined), while
	 * other AGs may still be read; the model's totals are made after
	 * the last.  AGs are taken in groups of as many as there are
	 * threads, so that the first groups are whole early.
	 */
	void (*ag_done)(void *hpriv, struct model *m, uint32_t agno);
	void *hpriv;
};

/*
 * Scan fs into a new model.  Returns 0 when every AG was read (the model
 * may still record damaged inodes), -EFSCORRUPTED when some AG could not
 * be read fully (the model holds what could), or another error.
 */
int scan_fs(struct fs *fs, const struct scan_opts *o, struct model **out,
	    struct err *e);

/* One AG (used by scan_fs's workers; exposed for tests). */
int scan_ag(struct fs *fs, struct m_ag *ag, const struct scan_opts *o,
	    struct scan_progress *p);

#endif
