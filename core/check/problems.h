/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's problems, each with a stable code (as e2fsck's problem
 * codes): a number that never changes meaning, a short name that tests
 * and `check --json` match on, the kind of structure it is about, and
 * the message format.  Numbers are grouped by structure:
 *
 *   0x01xx superblocks       0x07xx inode forks, bmbt   0x0cxx rmapbt
 *   0x02xx AGF, AGFL         0x08xx directories         0x0dxx refcounts
 *   0x03xx AGI               0x09xx attributes          0x0exx counters, links
 *   0x04xx AG btrees         0x0axx symlinks            0x0fxx log, scan
 *   0x05xx inode chunks      0x0bxx block ownership
 *   0x06xx inode cores
 *
 * A code is added at the end of its group and never renumbered or
 * reused; a message may be reworded, the name and number stay.  Every
 * format is a PRF_<CODE> macro so that check_problem() calls are
 * checked against it by the compiler (check_int.h).
 */
#ifndef CORE_CHECK_PROBLEMS_H
#define CORE_CHECK_PROBLEMS_H

/* P(CODE, number, short name, structure) */
#define CHECK_PROBLEMS(P)						\
	/* superblocks */						\
	P(SB_FIELD,		0x0101, "sb-field", "superblock")	\
	P(SB_GEOMETRY,		0x0102, "sb-geometry", "superblock")	\
	P(SB_STRIPE,		0x0103, "sb-stripe", "superblock")	\
	P(SB_PAD,		0x0104, "sb-padding", "superblock")	\
	P(SB_FEATURES2,		0x0105, "sb-features2", "superblock")	\
	P(SB_SECONDARY,		0x0106, "sb-secondary", "superblock")	\
	P(SB_SECONDARY_BAD,	0x0107, "sb-secondary-unreadable", "superblock") \
	P(SB_INODES,		0x0108, "sb-inodes", "superblock")	\
	P(SB_RT,		0x0109, "sb-realtime", "superblock")	\
	P(SB_LSN,		0x010a, "metadata-lsn-ahead", "superblock") \
	/* AGF, AGFL */							\
	P(AGF_FLCOUNT,		0x0201, "agf-flcount", "agf")		\
	P(AGF_FREEBLKS,		0x0202, "agf-freeblks", "agf")		\
	P(AGF_LONGEST,		0x0203, "agf-longest", "agf")		\
	P(AGF_BTREEBLKS,	0x0204, "agf-btreeblks", "agf")		\
	P(AGF_RMAPBLOCKS,	0x0205, "agf-rmap-blocks", "agf")	\
	P(AGF_REFCBLOCKS,	0x0206, "agf-refcount-blocks", "agf")	\
	P(AG_LOG_PAST_END,	0x0207, "ag-log-past-end", "ag")	\
	P(AGF_FIELD,		0x0208, "agf-field", "agf")		\
	P(AGFL_FIELD,		0x0209, "agfl-field", "agfl")		\
	/* AGI */							\
	P(AGI_COUNT,		0x0301, "agi-count", "agi")		\
	P(AGI_FREECOUNT,	0x0302, "agi-freecount", "agi")		\
	P(AGI_FINO_FREECOUNT,	0x0303, "agi-finobt-freecount", "agi")	\
	P(AGI_IBLOCKS,		0x0304, "agi-iblocks", "agi")		\
	P(AGI_FBLOCKS,		0x0305, "agi-fblocks", "agi")		\
	P(AGI_NEWINO,		0x0306, "agi-newino", "agi")		\
	P(AGI_DIRINO,		0x0307, "agi-dirino", "agi")		\
	P(AGI_UNLINKED,		0x0308, "agi-unlinked", "agi")		\
	P(AGI_FIELD,		0x0309, "agi-field", "agi")		\
	/* AG btrees */							\
	P(BT_DAMAGED,		0x0401, "btree-damaged", "btree")	\
	P(BT_LEFTSIB_FIRST,	0x0402, "btree-leftsib-first", "btree")	\
	P(BT_LEFTSIB,		0x0403, "btree-leftsib", "btree")	\
	P(BT_RIGHTSIB,		0x0404, "btree-rightsib", "btree")	\
	P(BT_RIGHTSIB_LAST,	0x0405, "btree-rightsib-last", "btree")	\
	P(BT_KEY,		0x0406, "btree-key", "btree")		\
	P(BT_HIGHKEY,		0x0407, "btree-high-key", "btree")	\
	P(BT_MINRECS,		0x0408, "btree-minrecs", "btree")	\
	P(BT_ROOTKEY,		0x0409, "btree-root-key", "btree")	\
	P(CNT_RANGE,		0x040a, "cntbt-record-range", "cntbt")	\
	P(FINO_REC,		0x040b, "finobt-record", "finobt")	\
	P(RMAP_RANGE,		0x040c, "rmapbt-record-range", "rmapbt") \
	P(RMAP_OWNER,		0x040d, "rmapbt-record-owner", "rmapbt") \
	P(REFC_RANGE,		0x040e, "refcountbt-record-range", "refcountbt") \
	P(REFC_COW,		0x040f, "refcountbt-cow-leftover", "refcountbt") \
	P(REFC_COUNT,		0x0410, "refcountbt-record-count", "refcountbt") \
	P(REFC_OVERLAP,		0x0411, "refcountbt-overlap", "refcountbt") \
	P(REFC_MERGE,		0x0412, "refcountbt-unmerged", "refcountbt") \
	P(BNO_CNT_MISSING,	0x0413, "bnobt-not-in-cntbt", "cntbt")	\
	P(CNT_BNO_MISSING,	0x0414, "cntbt-not-in-bnobt", "bnobt")	\
	P(BT_LEVEL,		0x0415, "btree-level", "btree")		\
	/* inode chunks */						\
	P(CHUNK_ALIGN,		0x0501, "inode-chunk-align", "inobt")	\
	P(CHUNK_OVERLAP,	0x0502, "inode-chunk-overlap", "inobt")	\
	P(CHUNK_HOLES,		0x0503, "inode-chunk-holes", "inobt")	\
	P(FINO_NOFREE,		0x0504, "finobt-no-free", "finobt")	\
	P(FINO_DIFFERS,		0x0505, "finobt-differs", "finobt")	\
	P(FINO_MISSING,		0x0506, "finobt-missing", "finobt")	\
	P(FINO_EXTRA,		0x0507, "finobt-extra", "finobt")	\
	/* inode cores */						\
	P(INODE_DAMAGED,	0x0601, "inode-damaged", "inode")	\
	P(INODE_FREE_DAMAGED,	0x0602, "free-inode-damaged", "inode")	\
	P(INODE_FREE_INUSE,	0x0603, "free-inode-in-use", "inode")	\
	P(INODE_FIELD,		0x0604, "inode-field", "inode")		\
	P(INODE_FLAGS,		0x0605, "inode-flags", "inode")		\
	P(INODE_EXTSIZE,	0x0606, "inode-extsize", "inode")	\
	P(INODE_COWEXTSIZE,	0x0607, "inode-cowextsize", "inode")	\
	P(INODE_TIME,		0x0608, "inode-timestamp", "inode")	\
	P(INODE_PAD,		0x0609, "inode-padding", "inode")	\
	P(INODE_NEXTENTS,	0x060a, "inode-extent-count", "inode")	\
	P(INODE_SIZE,		0x060b, "inode-size", "inode")		\
	P(INODE_UNLINKED,	0x060c, "inode-next-unlinked", "inode")	\
	P(INODE_PROJID,		0x060d, "inode-projid", "inode")	\
	P(INODE_METADATA,	0x060e, "inode-metadata", "inode")	\
	/* inode forks, bmbt */						\
	P(BMBT_FITS,		0x0701, "bmbt-fits-inode", "inode")	\
	P(BMBT_DAMAGED,		0x0702, "bmbt-damaged", "bmbt")		\
	P(BMBT_NRECS,		0x0703, "bmbt-record-count", "bmbt")	\
	P(NBLOCKS,		0x0704, "inode-nblocks", "inode")	\
	P(EXTENT_BAD,		0x0705, "extent-record", "inode")	\
	P(FORK_LOCAL,		0x0706, "fork-local", "inode")		\
	/* directories */						\
	P(DIR_DAMAGED,		0x0801, "dir-damaged", "directory")	\
	P(DIR_ENT_FREE_INODE,	0x0802, "dir-entry-free-inode", "directory") \
	P(DIR_ENT_FTYPE,	0x0803, "dir-entry-ftype", "directory")	\
	P(DIR_DOT,		0x0804, "dir-dot", "directory")		\
	P(DIR_DOTDOT_NOTDIR,	0x0805, "dir-dotdot-not-dir", "directory") \
	P(DIR_ROOT_DOTDOT,	0x0806, "dir-root-dotdot", "directory")	\
	P(DIR_ENT_ROOT,		0x0807, "dir-entry-root", "directory")	\
	P(DIR_HASH,		0x0808, "dir-hash-index", "directory")	\
	P(DIR_NAME_HASH,	0x0809, "dir-entry-hash", "directory")	\
	P(DIR_BESTFREE,		0x080a, "dir-bestfree", "directory")	\
	P(DIR_FREEINDEX,	0x080b, "dir-free-index", "directory")	\
	P(DIR_NAME,		0x080c, "dir-entry-name", "directory")	\
	P(DIR_SF,		0x080d, "dir-shortform", "directory")	\
	P(DIR_DATA,		0x080e, "dir-data-block", "directory")	\
	P(DIR_NODE,		0x080f, "dir-node", "directory")	\
	P(DIR_SIZE,		0x0810, "dir-size", "directory")	\
	P(DIR_PARENT,		0x0811, "dir-parent", "directory")	\
	P(DIR_DUP,		0x0812, "dir-entry-duplicate", "directory") \
	P(DIR_METADIR,		0x0813, "dir-metadir", "directory")	\
	/* attributes */						\
	P(ATTR_RMT_DAMAGED,	0x0901, "attr-remote-damaged", "attr")	\
	P(ATTR_RMT_SELF,	0x0902, "attr-remote-owner", "attr")	\
	P(ATTR_DAMAGED,		0x0903, "attr-block-damaged", "attr")	\
	P(ATTR_SELF,		0x0904, "attr-block-owner", "attr")	\
	P(ATTR_V4_MAGIC,	0x0905, "attr-block-magic", "attr")	\
	P(ATTR_LEAF,		0x0906, "attr-leaf", "attr")		\
	P(ATTR_ENTRY,		0x0907, "attr-leaf-entry", "attr")	\
	P(ATTR_FREEMAP,		0x0908, "attr-leaf-freemap", "attr")	\
	P(ATTR_NODE,		0x0909, "attr-node", "attr")		\
	P(ATTR_SF,		0x090a, "attr-shortform", "attr")	\
	P(ATTR_READ,		0x090b, "attr-unreadable", "attr")	\
	P(PPTR,			0x090c, "parent-pointer", "attr")	\
	P(PPTR_MISSING,		0x090d, "parent-pointer-missing", "attr") \
	P(PPTR_DANGLING,	0x090e, "parent-pointer-dangling", "attr") \
	P(PPTR_GEN,		0x090f, "parent-pointer-generation", "attr") \
	/* symlinks */							\
	P(SYMLINK_DAMAGED,	0x0a01, "symlink-damaged", "symlink")	\
	/* block ownership */						\
	P(SPACE_FREE_MAPPED,	0x0b01, "free-block-in-use", "ag")	\
	P(SPACE_TWICE,		0x0b02, "block-claimed-twice", "ag")	\
	P(SPACE_LOST,		0x0b03, "block-lost", "ag")		\
	P(SPACE_PAST_END,	0x0b04, "block-past-ag-end", "ag")	\
	/* rmapbt */							\
	P(RMAP_MISMATCH,	0x0c01, "rmap-mismatch", "rmapbt")	\
	P(RMAP_SHORT,		0x0c02, "rmap-length", "rmapbt")	\
	/* refcounts */							\
	P(REFC_NORECORD,	0x0d01, "refcount-missing", "refcountbt") \
	P(REFC_UNSHARED,	0x0d02, "refcount-unshared", "refcountbt") \
	P(REFC_WRONG,		0x0d03, "refcount-wrong", "refcountbt")	\
	P(REFLINK_FLAG,		0x0d04, "reflink-flag-missing", "inode") \
	/* counters, links */						\
	P(SB_ICOUNT,		0x0e01, "sb-icount", "superblock")	\
	P(SB_IFREE,		0x0e02, "sb-ifree", "superblock")	\
	P(SB_FDBLOCKS,		0x0e03, "sb-fdblocks", "superblock")	\
	P(NLINK_ORPHAN,		0x0e04, "nlink-unreferenced", "inode")	\
	P(NLINK,		0x0e05, "nlink", "inode")		\
	/* log, scan */							\
	P(LOG_DIRTY,		0x0f01, "log-dirty", "log")		\
	P(SCAN_DAMAGE,		0x0f02, "scan-damage", "ag")		\
	P(SCAN_MORE,		0x0f03, "scan-damage-more", "ag")

enum check_code {
#define CHECK_PROBLEM_ENUM(code, num, name, what) PR_##code = num,
	CHECK_PROBLEMS(CHECK_PROBLEM_ENUM)
#undef CHECK_PROBLEM_ENUM
};

struct check_problem_info {
	enum check_code code;
	const char *name;	/* "agf-freeblks" */
	const char *structure;	/* "agf" */
	const char *fmt;	/* printf format of the message */
};

/* The table entry of code (NULL for a number that is not a code). */
const struct check_problem_info *check_problem_lookup(enum check_code code);
/* Every code, in table order: *n entries. */
const struct check_problem_info *check_problem_table(unsigned *n);

/* ---- the message formats ---- */

#define PRF_SB_FIELD	"%s: %s"
#define PRF_SB_GEOMETRY	"%s: %s"
#define PRF_SB_STRIPE	"%s: stripe unit %u and width %u blocks: %s"
#define PRF_SB_PAD	"%s: %s"
#define PRF_SB_FEATURES2 "%s: features2 0x%x and bad_features2 0x%x differ"
#define PRF_SB_SECONDARY "superblock %u: %s is %s, but the primary says %s"
#define PRF_SB_SECONDARY_BAD "%s"
#define PRF_SB_INODES	"%s: %s"
#define PRF_SB_RT	"%s: %s"
#define PRF_SB_LSN	"%s: lsn %u:%u is ahead of the log head %u:%u"

#define PRF_AGF_FLCOUNT	"agf %u: flcount %u does not match flfirst %u and fllast %u (%u slots)"
#define PRF_AGF_FREEBLKS "agf %u: freeblks %u, but the bnobt holds %llu free blocks"
#define PRF_AGF_LONGEST	"agf %u: longest %u, but the longest free extent is %llu blocks"
#define PRF_AGF_BTREEBLKS "agf %u: btreeblks %u, but the free space%s btrees have %llu blocks besides their roots"
#define PRF_AGF_RMAPBLOCKS "agf %u: rmap_blocks %u, but the rmapbt has %u blocks"
#define PRF_AGF_REFCBLOCKS "agf %u: refcount_blocks %u, but the refcountbt has %u blocks"
#define PRF_AG_LOG_PAST_END "ag %u: the log (blocks %u+%u) runs past the end of the AG"
#define PRF_AGF_FIELD	"agf %u: %s"
#define PRF_AGFL_FIELD	"agfl %u: %s"

#define PRF_AGI_COUNT	"agi %u: count %u, but the inobt holds %llu inodes"
#define PRF_AGI_FREECOUNT "agi %u: freecount %u, but the inobt holds %llu free inodes"
#define PRF_AGI_FINO_FREECOUNT "agi %u: freecount %u, but the finobt holds %llu free inodes"
#define PRF_AGI_IBLOCKS	"agi %u: iblocks %u, but the inobt has %u blocks"
#define PRF_AGI_FBLOCKS	"agi %u: fblocks %u, but the finobt has %u blocks"
#define PRF_AGI_NEWINO	"agi %u: newino %u is not an inode of the AG"
#define PRF_AGI_DIRINO	"agi %u: dirino %u is not an inode of the AG"
#define PRF_AGI_UNLINKED "agi %u: unlinked inodes pending: bucket %zu starts at inode %llu (not cleanly unmounted)"
#define PRF_AGI_FIELD	"agi %u: %s"

#define PRF_BT_DAMAGED	"%s"
#define PRF_BT_LEFTSIB_FIRST "%s: left sibling %s, but it is the first block of level %u"
#define PRF_BT_LEFTSIB	"%s: left sibling %s, expected 0x%llx"
#define PRF_BT_RIGHTSIB	"%s block 0x%llx: right sibling %s, expected %s"
#define PRF_BT_RIGHTSIB_LAST "%s block 0x%llx: right sibling %s, but it is the last block of level %u"
#define PRF_BT_KEY	"%s: key %u is %s, but its child 0x%llx starts at %s"
#define PRF_BT_HIGHKEY	"%s: high key %u is %s, but its child 0x%llx reaches %s"
#define PRF_BT_MINRECS	"%s: %u records, fewer than the minimum %u"
#define PRF_BT_ROOTKEY	"%s: root key %u is %llu, but its child starts at %llu"
#define PRF_CNT_RANGE	"ag %u cntbt: record %u (%u+%u) is outside the AG"
#define PRF_FINO_REC	"ag %u finobt: record %u: bad %s"
#define PRF_RMAP_RANGE	"ag %u rmapbt: record %u (%u+%u, %s) is outside the AG"
#define PRF_RMAP_OWNER	"ag %u rmapbt: record %u (%u+%u) has an impossible owner/offset (%s, offset 0x%llx)"
#define PRF_REFC_RANGE	"ag %u refcountbt: record %u (%u+%u) is outside the AG"
#define PRF_REFC_COW	"ag %u: leftover CoW staging extent, blocks %u-%u (refcountbt record %u, refcount %u)"
#define PRF_REFC_COUNT	"ag %u refcountbt: record %u (blocks %u-%u) has refcount %u"
#define PRF_REFC_OVERLAP "ag %u refcountbt: records overlap at block %u"
#define PRF_REFC_MERGE	"ag %u refcountbt: record %u (blocks %u-%u) should be merged with the one before it (same refcount %u)"
#define PRF_BNO_CNT_MISSING "ag %u: free extent %u+%u is in the bnobt but not in the cntbt"
#define PRF_CNT_BNO_MISSING "ag %u: free extent %u+%u is in the cntbt but not in the bnobt"
#define PRF_BT_LEVEL	"%s: %s"

#define PRF_CHUNK_ALIGN	"ag %u inobt: chunk at inode %llu is badly aligned"
#define PRF_CHUNK_OVERLAP "ag %u inobt: chunks at inodes %llu and %llu overlap"
#define PRF_CHUNK_HOLES	"ag %u inobt: chunk at inode %llu: holemask 0x%x but free 0x%llx (holes must be free)"
#define PRF_FINO_NOFREE	"ag %u: the finobt holds the chunk at inode %llu, which has no free inodes"
#define PRF_FINO_DIFFERS "ag %u: the finobt record of the chunk at inode %llu (free 0x%llx, %u free) differs from the inobt's (free 0x%llx, %u free)"
#define PRF_FINO_MISSING "ag %u: the chunk at inode %llu has %u free inode%s but is not in the finobt"
#define PRF_FINO_EXTRA	"ag %u: the finobt holds a chunk at inode %llu, which the inobt does not"

#define PRF_INODE_DAMAGED "%s"
#define PRF_INODE_FREE_DAMAGED "free %s"
#define PRF_INODE_FREE_INUSE "inode %llu is in use on disk (mode 0%o) but free in the inobt"
#define PRF_INODE_FIELD	"inode %llu: %s"
#define PRF_INODE_FLAGS	"inode %llu: %s"
#define PRF_INODE_EXTSIZE "inode %llu: extent size hint %u: %s"
#define PRF_INODE_COWEXTSIZE "inode %llu: CoW extent size hint %u: %s"
#define PRF_INODE_TIME	"inode %llu: %s nanoseconds %u (more than a second)"
#define PRF_INODE_PAD	"inode %llu: %s not zero"
#define PRF_INODE_NEXTENTS "inode %llu: %s"
#define PRF_INODE_SIZE	"inode %llu: %s"
#define PRF_INODE_UNLINKED "inode %llu: next_unlinked %u is not an inode of the AG"
#define PRF_INODE_PROJID "inode %llu: %s"
#define PRF_INODE_METADATA "inode %llu (metadata file): %s"

#define PRF_BMBT_FITS	"inode %llu: %s fork is in btree format but its %llu extents fit in the inode (extent count too low for btree format)"
#define PRF_BMBT_DAMAGED "%s"
#define PRF_BMBT_NRECS	"inode %llu: %s fork bmbt holds %llu records, the inode says %llu"
#define PRF_NBLOCKS	"inode %llu: nblocks %llu, but its forks map %llu blocks (extents and bmbt blocks)"
#define PRF_EXTENT_BAD	"inode %llu: %s fork extent %u (offset %llu, block %llu, %llu blocks): %s"
#define PRF_FORK_LOCAL	"inode %llu: %s"

#define PRF_DIR_DAMAGED	"%s"
#define PRF_DIR_ENT_FREE_INODE "directory %llu: entry \"%.*s\" names inode %llu, which is not in use"
#define PRF_DIR_ENT_FTYPE "directory %llu: entry \"%.*s\" has file type %u, but inode %llu has mode 0%o"
#define PRF_DIR_DOT	"directory %llu: \".\" names inode %llu"
#define PRF_DIR_DOTDOT_NOTDIR "directory %llu: \"..\" names inode %llu, which is not a directory"
#define PRF_DIR_ROOT_DOTDOT "directory %llu (the root): \"..\" names inode %llu"
#define PRF_DIR_ENT_ROOT "directory %llu: entry \"%.*s\" names the root directory"
#define PRF_DIR_HASH	"%s: %s"
#define PRF_DIR_NAME_HASH "%s: entry \"%.*s\" is indexed under hash 0x%x, its name hashes to 0x%x"
#define PRF_DIR_BESTFREE "%s: %s"
#define PRF_DIR_FREEINDEX "%s: %s"
#define PRF_DIR_NAME	"%s: entry %u: %s"
#define PRF_DIR_SF	"directory %llu (shortform): %s"
#define PRF_DIR_DATA	"%s: %s"
#define PRF_DIR_NODE	"%s: %s"
#define PRF_DIR_SIZE	"directory %llu: %s"
#define PRF_DIR_PARENT	"directory %llu: %s"
#define PRF_DIR_DUP	"directory %llu: entry \"%.*s\" appears twice"
#define PRF_DIR_METADIR	"directory %llu: entry \"%.*s\" names inode %llu: %s"

#define PRF_ATTR_RMT_DAMAGED "inode %llu attr fork block %llu (remote value): bad %s"
#define PRF_ATTR_RMT_SELF "inode %llu attr fork block %llu (remote value): owner %llu, blkno 0x%llx, expected %llu, 0x%llx"
#define PRF_ATTR_DAMAGED "inode %llu attr fork block %llu: %s"
#define PRF_ATTR_SELF	"inode %llu attr fork block %llu: owner %llu, blkno 0x%llx, expected %llu, 0x%llx"
#define PRF_ATTR_V4_MAGIC "inode %llu attr fork block 0: bad magic number"
#define PRF_ATTR_LEAF	"inode %llu attr fork block %llu (leaf): %s"
#define PRF_ATTR_ENTRY	"inode %llu attr fork block %llu (leaf): entry %u: %s"
#define PRF_ATTR_FREEMAP "inode %llu attr fork block %llu (leaf): freemap %u: %s"
#define PRF_ATTR_NODE	"inode %llu attr fork block %llu (node): %s"
#define PRF_ATTR_SF	"inode %llu attr fork (shortform): %s"
#define PRF_ATTR_READ	"%s"
#define PRF_PPTR	"inode %llu: parent pointer \"%.*s\": %s"
#define PRF_PPTR_MISSING "inode %llu: no parent pointer for its entry \"%.*s\" in directory %llu"
#define PRF_PPTR_DANGLING "inode %llu: parent pointer \"%.*s\" names directory %llu (generation %u), which has no such entry"
#define PRF_PPTR_GEN	"inode %llu: parent pointer \"%.*s\" to directory %llu: generation %u, the directory's is %u"

#define PRF_SYMLINK_DAMAGED "%s"

#define PRF_SPACE_FREE_MAPPED "ag %u: %s %s free in the bnobt (extent %u+%u) and mapped by %s"
#define PRF_SPACE_TWICE	"ag %u: %s %s claimed twice: by %s and by %s"
#define PRF_SPACE_LOST	"ag %u: %s (%u) %s not accounted for: neither free nor in use (lost)"
#define PRF_SPACE_PAST_END "ag %u: blocks %u-%llu (%s) run past the end of the AG"

#define PRF_RMAP_MISMATCH "ag %u: %s blocks %u-%u, %s"
#define PRF_RMAP_SHORT	"ag %u: rmapbt record for blocks %u-%u (%s%s) should cover blocks %u-%u"

#define PRF_REFC_NORECORD "ag %u: %s %s mapped %u times by file forks, but the refcount btree has no record for them"
#define PRF_REFC_UNSHARED "ag %u: %s %s refcount %u in the refcount btree, but %s mapped %s"
#define PRF_REFC_WRONG	"ag %u: %s %s mapped %u times by file forks, but the refcount btree says %u"
#define PRF_REFLINK_FLAG "inode %llu shares ag %u blocks %u-%u with other files but has no reflink flag"

#define PRF_SB_ICOUNT	"sb: icount %llu, but the inobts hold %llu inodes"
#define PRF_SB_IFREE	"sb: ifree %llu, but the inobts hold %llu free inodes"
#define PRF_SB_FDBLOCKS	"sb: fdblocks %llu, but %llu blocks are free (free extents, AGFL blocks and non-root free space%s btree blocks)"
#define PRF_NLINK_ORPHAN "inode %llu: link count %u, but no directory entry names it"
#define PRF_NLINK	"inode %llu: link count %u, but %u directory entr%s name it%s"

#define PRF_LOG_DIRTY	"log: dirty (%s): the filesystem was not cleanly unmounted"
#define PRF_SCAN_DAMAGE	"%s"
#define PRF_SCAN_MORE	"ag %u: %u more damaged structures (inodes or btrees) could not be read"

#endif
