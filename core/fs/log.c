/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log is a ring of 512-byte blocks, each stamped with the cycle in
 * which it was written (xfs_log_format.h; the first word, or h_cycle in a
 * record header).  The head is where the cycle number drops.  A cleanly
 * unmounted log ends in a record holding a single unmount operation
 * (XLOG_UNMOUNT_TRANS); anything else means work the kernel would replay.
 * This follows xlog_find_head/xlog_find_tail for that question only.
 */
#include "core/fs/log.h"
#include "ondisk/logrec.h"

#include <stdio.h>
#include <string.h>

#define XLOG_MAX_RECORD_BBS	1024	/* 256 KiB iclog + headers, rounded */

struct logctx {
	struct fs *fs;
	uint64_t start;		/* daddr of log block 0 */
	uint32_t nbb;		/* log size in 512-byte blocks */
	struct err *e;
};

static int log_read(struct logctx *lc, uint32_t blk, uint8_t *bb)
{
	return fs_read_daddr(lc->fs, lc->start + blk, bb, OD_LOG_BBSIZE, lc->e,
			     "log block");
}

static int log_cycle(struct logctx *lc, uint32_t blk, uint32_t *cycle)
{
	uint8_t bb[OD_LOG_BBSIZE];
	int ret = log_read(lc, blk, bb);

	if (ret)
		return ret;
	*cycle = od_log_block_cycle(bb, sizeof(bb));
	return 0;
}

static void set_state(struct fs *fs, enum fs_log_state st, const char *detail)
{
	fs->log_state = st;
	snprintf(fs->log_detail, sizeof(fs->log_detail), "%s", detail);
}

int log_check(struct fs *fs, struct err *e)
{
	struct logctx lc = { fs, 0, 0, e };
	uint32_t first, last, head, lo, hi, c, blk, i, end;
	struct od_logrec_hdr h;
	struct od_logop_hdr op;
	uint8_t bb[OD_LOG_BBSIZE];
	int ret;

	if (fs->sb.logstart == 0) {
		set_state(fs, FS_LOG_EXTERNAL, "external log not checked");
		return 0;
	}
	lc.start = od_fsb_daddr(&fs->geo, fs->sb.logstart);
	lc.nbb = (uint32_t)((uint64_t)fs->sb.logblocks << fs->geo.bbshift);
	if (lc.nbb < 2) {
		set_state(fs, FS_LOG_UNKNOWN, "log too small");
		return 0;
	}
	ret = log_cycle(&lc, 0, &first);
	if (ret == 0)
		ret = log_cycle(&lc, lc.nbb - 1, &last);
	if (ret)
		return ret;
	if (first == 0) {
		/* zeroed log (mkfs -> never written, or xfs_repair -L) */
		set_state(fs, FS_LOG_CLEAN, "log zeroed");
		return 0;
	}
	if (first == last) {
		head = 0;	/* wrapped exactly: the head is at the start */
	} else {
		/* first block whose cycle is not 'first' */
		lo = 0;
		hi = lc.nbb - 1;
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;

			ret = log_cycle(&lc, mid, &c);
			if (ret)
				return ret;
			if (c == first)
				lo = mid;
			else
				hi = mid;
		}
		head = hi;
	}

	/* walk back from the head to the last record header */
	blk = head;
	for (i = 0; i < XLOG_MAX_RECORD_BBS && i < lc.nbb; i++) {
		blk = blk ? blk - 1 : lc.nbb - 1;
		ret = log_read(&lc, blk, bb);
		if (ret)
			return ret;
		if (od_log_is_rec_hdr(bb, sizeof(bb)))
			break;
	}
	if (od_logrec_hdr_decode(bb, sizeof(bb), &h) != OD_OK) {
		set_state(fs, FS_LOG_UNKNOWN, "no log record header found");
		return 0;
	}
	/* where the next record goes (xlog_find_tail: l_curr_cycle/block) */
	fs->log_head_known = true;
	fs->log_head_block = head;
	fs->log_head_cycle = h.cycle + (blk >= head ? 1 : 0);
	end = (uint32_t)(((uint64_t)blk + h.hblks + (h.len + 511) / 512) %
			 lc.nbb);
	if (end != head) {
		set_state(fs, FS_LOG_DIRTY, "log head is not at the end "
			  "of the last record");
		return 0;
	}
	if (h.num_logops != 1) {
		set_state(fs, FS_LOG_DIRTY, "log has unreplayed "
			  "transactions");
		return 0;
	}
	ret = log_read(&lc, (blk + h.hblks) % lc.nbb, bb);
	if (ret)
		return ret;
	if (od_logop_hdr_decode(bb, sizeof(bb), &op) != OD_OK ||
	    !(op.flags & OD_LOG_UNMOUNT_TRANS)) {
		set_state(fs, FS_LOG_DIRTY, "log has unreplayed "
			  "transactions");
		return 0;
	}
	set_state(fs, FS_LOG_CLEAN, "clean unmount record");
	return 0;
}
