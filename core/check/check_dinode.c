/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One inode core against the kernel's inode verifier (xfs_dinode_verify,
 * xfs_inode_validate_extsize and _cowextsize) and what xfs_repair's
 * process_dinode_int adds: the mode, the flags and flags2 a file of that
 * type may carry and the features they need, the extent size hints,
 * extent counts against the fork formats and fork offset, sizes by file
 * type, timestamps, the fields that must be zero (di_onlink on v2+, the
 * pads), next_unlinked, and the types of the inodes the superblock
 * names.  Free inodes (mode 0) must pass the verifier too: the kernel
 * reads them when it allocates.
 */
#include "core/check/check_int.h"
#include "ondisk/bmbt.h"
#include "ondisk/inode.h"
#include "ondisk/inode_lite.h"

#include <stdio.h>

/* xfs_format.h */
#define DIFLAG_NEWRTBM		(1u << 2)
#define DIFLAG_RTINHERIT	(1u << 8)
#define DIFLAG_PROJINHERIT	(1u << 9)
#define DIFLAG_NOSYMLINKS	(1u << 10)
#define DIFLAG_ANY		0x7fffu		/* bits 0-14 */
#define DIFLAG2_DAX		(1ull << 0)
#define DIFLAG2_ANY		0x3full		/* DAX..METADATA */
#define DIFLAG_IMMUTABLE	(1u << 3)
#define DIFLAG_SYNC		(1u << 5)
#define DIFLAG_NOATIME		(1u << 6)
#define DIFLAG_NODUMP		(1u << 7)
#define DIFLAG_NODEFRAG		(1u << 13)
/* xfs_metafile.h: what every metadata file and directory carries */
#define METAFILE_DIFLAGS	(DIFLAG_IMMUTABLE | DIFLAG_SYNC | \
				 DIFLAG_NOATIME | DIFLAG_NODUMP | \
				 DIFLAG_NODEFRAG)
#define METADIR_DIFLAGS		(METAFILE_DIFLAGS | DIFLAG_NOSYMLINKS)
#define DIFLAG_DIRONLY		(DIFLAG_RTINHERIT | DIFLAG_PROJINHERIT | \
				 DIFLAG_NOSYMLINKS | OD_DIFLAG_EXTSZINHERIT)
#define MAX_BMBT_EXTLEN		((1u << 21) - 1)
#define NSEC_PER_SEC		1000000000u
#define DIR2_SPACE_SIZE		(32ull << 30)
#define DIR2_MAX_SPACES		3
#define NULLAGINO		0xffffffffu

struct dctx {
	struct check_ctx *c;
	struct check_ag *ca;
	const struct od_inode *di;
	unsigned long long ino;
};

static void bad(struct dctx *d, const char *msg)
{
	check_problem(&d->ca->log, INODE_FIELD, d->ino, msg);
}

static void bad_flags(struct dctx *d, const char *msg)
{
	check_problem(&d->ca->log, INODE_FLAGS, d->ino, msg);
}

static bool is_reg(uint16_t m) { return (m & 0170000) == 0100000; }
static bool is_dir(uint16_t m) { return (m & 0170000) == 0040000; }
static bool is_lnk(uint16_t m) { return (m & 0170000) == 0120000; }

static bool is_special(uint16_t m)
{
	switch (m & 0170000) {
	case 0020000: case 0060000: case 0010000: case 0140000:
		return true;
	}
	return false;
}

/* The most extent records a fork format allows (xfs_iext_max_nextents). */
static uint64_t max_nextents(bool nrext64, bool attr)
{
	if (attr)
		return nrext64 ? (1ull << 32) - 1 : (1ull << 15) - 1;
	return nrext64 ? (1ull << 48) - 1 : (1ull << 31) - 1;
}

/* xfs_dinode_verify_fork: the format against the size and the count. */
static void check_fork(struct dctx *d, bool attr)
{
	const struct od_inode *di = d->di;
	uint8_t fmt = attr ? di->aformat : di->format;
	uint64_t n = attr ? di->anextents : di->nextents;
	uint32_t size = attr ? di->afork_len : di->dfork_len;
	const char *name = attr ? "attr" : "data";
	char msg[128];

	if (!attr && (is_dir(di->mode) || is_lnk(di->mode)) &&
	    di->size <= size && fmt != OD_FMT_LOCAL) {
		snprintf(msg, sizeof(msg), "size %llu fits in the data fork "
			 "(%u bytes) but the format is not local",
			 (unsigned long long)di->size, size);
		check_problem(&d->ca->log, INODE_SIZE, d->ino, msg);
	}
	if (!attr && di->size > size && fmt == OD_FMT_LOCAL) {
		snprintf(msg, sizeof(msg), "local data fork, but size %llu "
			 "exceeds the fork (%u bytes)",
			 (unsigned long long)di->size, size);
		check_problem(&d->ca->log, INODE_SIZE, d->ino, msg);
	}
	switch (fmt) {
	case OD_FMT_LOCAL:
		if (!attr && is_reg(di->mode))
			bad(d, "regular file with a local data fork");
		if (n) {
			snprintf(msg, sizeof(msg), "local %s fork with %llu "
				 "extent records", name, (unsigned long long)n);
			check_problem(&d->ca->log, INODE_NEXTENTS, d->ino, msg);
		}
		break;
	case OD_FMT_EXTENTS:
		if (n > size / OD_BMBT_REC_LEN) {
			snprintf(msg, sizeof(msg), "%s fork holds %llu extent "
				 "records, more than fit in it (%u)", name,
				 (unsigned long long)n, size / OD_BMBT_REC_LEN);
			check_problem(&d->ca->log, INODE_NEXTENTS, d->ino, msg);
		}
		break;
	case OD_FMT_BTREE:
		if (n > max_nextents(di->flags2 & OD_DIFLAG2_NREXT64, attr)) {
			snprintf(msg, sizeof(msg), "%s fork extent count %llu "
				 "above the format's limit", name,
				 (unsigned long long)n);
			check_problem(&d->ca->log, INODE_NEXTENTS, d->ino, msg);
		}
		break;
	case OD_FMT_META_BTREE:
		/* xfs_dinode_verify_fork: a realtime group's rmap btree
		 * (with rmapbt) or refcount btree (with reflink) */
		if (attr || !d->c->g->metadir || !od_inode_is_meta(di) ||
		    !(od_inode_metatype(di) == OD_META_RTRMAP ?
		      d->c->g->rmapbt :
		      od_inode_metatype(di) == OD_META_RTREFCOUNT &&
		      d->c->g->reflink)) {
			snprintf(msg, sizeof(msg), "%s fork in the metadata "
				 "btree format, not a realtime rmap or "
				 "refcount btree file", name);
			bad(d, msg);
		}
		break;
	default:
		snprintf(msg, sizeof(msg), "%s fork format %u", name, fmt);
		bad(d, msg);
	}
}

/* xfs_dinode_verify_forkoff and the forks' own verdicts. */
static void check_forks(struct dctx *d)
{
	const struct od_inode *di = d->di;
	char msg[96];

	if (di->forkoff) {
		bool ok = di->format == OD_FMT_DEV ? di->forkoff == 1 :
			  di->format <= OD_FMT_BTREE &&
			  (uint32_t)di->forkoff * 8 < di->lit;

		if (!ok) {
			snprintf(msg, sizeof(msg), "forkoff %u is not valid "
				 "for data fork format %u", di->forkoff,
				 di->format);
			bad(d, msg);
			return;
		}
	}
	if (di->mode && (is_reg(di->mode) || is_dir(di->mode) ||
			 is_lnk(di->mode)))
		check_fork(d, false);
	if (is_special(di->mode) && di->format != OD_FMT_DEV)
		bad(d, "device, fifo or socket without a device data fork");
	if (di->forkoff) {
		check_fork(d, true);
	} else {
		/* freshly made clusters have aformat 0 (the kernel takes
		 * it); an inode in use has extents (xfs_repair insists) */
		if (di->aformat != OD_FMT_EXTENTS &&
		    (di->aformat != 0 || di->mode)) {
			snprintf(msg, sizeof(msg), "no attr fork, but attr "
				 "format %u", di->aformat);
			bad(d, msg);
		}
		if (di->anextents) {
			snprintf(msg, sizeof(msg), "no attr fork, but %u attr "
				 "extents", di->anextents);
			check_problem(&d->ca->log, INODE_NEXTENTS, d->ino, msg);
		}
	}
}

/* xfs_inode_validate_extsize (and repair's rt inheritance rule). */
static void check_extsize(struct dctx *d)
{
	const struct od_inode *di = d->di;
	const struct od_sb *sb = &d->c->fs->sb;
	bool rt = di->flags & OD_DIFLAG_REALTIME;
	bool hint = di->flags & OD_DIFLAG_EXTSIZE;
	bool inherit = di->flags & OD_DIFLAG_EXTSZINHERIT;
	uint64_t unit = rt ? (uint64_t)sb->rextsize : 1;
	const char *why = NULL;

	if ((hint || inherit) && !is_dir(di->mode) && !is_reg(di->mode))
		why = "hint flags on a file that is neither regular nor a "
		      "directory";
	else if (hint && !is_reg(di->mode))
		why = "the extsize flag on a non-regular file";
	else if (inherit && !is_dir(di->mode))
		why = "the extszinherit flag on a non-directory";
	else if ((hint || inherit) && di->extsize == 0)
		why = "a hint flag with a zero hint";
	else if (di->mode && !(hint || inherit) && di->extsize != 0)
		why = "a hint without a hint flag";
	else if (unit == 0 || di->extsize % unit)
		why = "not a multiple of the allocation unit";
	else if (di->extsize > MAX_BMBT_EXTLEN)
		why = "longer than an extent can be";
	else if (!rt && di->extsize > sb->agblocks / 2)
		why = "more than half an AG";
	else if (inherit && (di->flags & DIFLAG_RTINHERIT) &&
		 sb->rextsize && di->extsize % sb->rextsize)
		why = "not a multiple of the realtime extent size";
	if (why)
		check_problem(&d->ca->log, INODE_EXTSIZE, d->ino, di->extsize,
			      why);
}

/* xfs_inode_validate_cowextsize. */
static void check_cowextsize(struct dctx *d)
{
	const struct od_inode *di = d->di;
	const struct od_geo *g = d->c->g;
	bool rt = di->flags & OD_DIFLAG_REALTIME;
	bool hint = di->flags2 & OD_DIFLAG2_COWEXTSIZE;
	const char *why = NULL;

	if (hint && !g->reflink)
		why = "the cowextsize flag without the reflink feature";
	else if (hint && !is_dir(di->mode) && !is_reg(di->mode))
		why = "the cowextsize flag on a file that is neither regular "
		      "nor a directory";
	else if (hint && di->cowextsize == 0)
		why = "the cowextsize flag with a zero hint";
	else if (di->mode && !hint && di->cowextsize != 0)
		why = "a hint without the cowextsize flag";
	else if (hint && (rt || (di->flags & DIFLAG_RTINHERIT)))
		why = "a CoW hint on a realtime file";
	else if (di->cowextsize > MAX_BMBT_EXTLEN)
		why = "longer than an extent can be";
	else if (di->cowextsize > g->agblocks / 2)
		why = "more than half an AG";
	if (why)
		check_problem(&d->ca->log, INODE_COWEXTSIZE, d->ino,
			      di->cowextsize, why);
}

/* di_flags: bits a kernel knows, and the types that may carry them. */
static void check_flags(struct dctx *d)
{
	const struct od_inode *di = d->di;
	const struct od_sb *sb = &d->c->fs->sb;

	if (di->flags & ~DIFLAG_ANY)
		bad_flags(d, "unknown flags");
	if (di->mode && (di->flags & OD_DIFLAG_REALTIME) && !sb->rblocks)
		bad_flags(d, "realtime flag without a realtime device");
	if ((di->flags & DIFLAG_NEWRTBM) && di->ino != sb->rbmino)
		bad_flags(d, "newrtbm flag on an inode other than the "
			  "realtime bitmap");
	if (di->mode && !is_dir(di->mode) && (di->flags & DIFLAG_DIRONLY))
		bad_flags(d, "directory flags (rtinherit, projinherit, "
			  "nosymlinks, extszinherit) on a non-directory");
	if (di->mode && !is_reg(di->mode) &&
	    (di->flags & (OD_DIFLAG_REALTIME | OD_DIFLAG_EXTSIZE)))
		bad_flags(d, "file flags (realtime, extsize) on a non-regular "
			  "file");
}

/* di_flags2 (v3): known bits, the features they need, the types. */
static void check_flags2(struct dctx *d)
{
	const struct od_inode *di = d->di;
	const struct od_geo *g = d->c->g;
	bool rt = di->flags & (OD_DIFLAG_REALTIME | DIFLAG_RTINHERIT);

	if (di->flags2 & ~DIFLAG2_ANY)
		bad_flags(d, "unknown flags2");
	if ((di->flags2 & DIFLAG2_DAX) && di->mode && !is_reg(di->mode) &&
	    !is_dir(di->mode))
		bad_flags(d, "dax flag on a special file");
	if (di->flags2 & OD_DIFLAG2_REFLINK) {
		if (!g->reflink)
			bad_flags(d, "reflink flag without the reflink "
				  "feature");
		else if (!is_reg(di->mode))
			bad_flags(d, "reflink flag on a non-regular file");
		else if (rt)
			bad_flags(d, "reflink flag on a realtime file");
	}
	if ((di->flags2 & OD_DIFLAG2_BIGTIME) && !g->bigtime)
		bad_flags(d, "bigtime flag without the bigtime feature");
	if ((di->flags2 & OD_DIFLAG2_NREXT64) && !g->nrext64)
		bad_flags(d, "nrext64 flag without the nrext64 feature");
	if ((di->flags2 & OD_DIFLAG2_METADATA) && !g->metadir)
		bad_flags(d, "metadata flag without the metadir feature");
}

static void bad_meta(struct dctx *d, const char *msg)
{
	check_problem(&d->ca->log, INODE_METADATA, d->ino, msg);
}

/*
 * A metadata file (xfs_dinode_verify_metadir): a known type, a
 * directory exactly when its type is dir, else a regular file, no access
 * bits, owned by root, no DMAPI state, no dax, the flags every metadata
 * file (and directory) carries.
 */
static void check_metafile(struct dctx *d)
{
	const struct od_inode *di = d->di;
	unsigned type = od_inode_metatype(di);
	char msg[96];

	if (!od_inode_is_meta(di) || !d->c->g->metadir)
		return;
	if (type == OD_META_UNKNOWN || type >= OD_META_MAX) {
		snprintf(msg, sizeof(msg), "metadata type %u is not one "
			 "there is", type);
		bad_meta(d, msg);
	} else if ((type == OD_META_DIR) != is_dir(di->mode) ||
		   (!is_dir(di->mode) && !is_reg(di->mode))) {
		snprintf(msg, sizeof(msg), "a %s metadata file with mode "
			 "0%o", od_metafile_name(type), di->mode);
		bad_meta(d, msg);
	}
	if (di->mode & 0777)
		bad_meta(d, "access permission bits set");
	if (di->uid || di->gid)
		bad_meta(d, "owned by a user or group other than 0");
	if (di->dmevmask || di->dmstate)
		bad_meta(d, "DMAPI event mask or state set");
	if (di->flags2 & DIFLAG2_DAX)
		bad_meta(d, "dax flag set");
	if ((di->flags & (is_dir(di->mode) ? METADIR_DIFLAGS :
			  METAFILE_DIFLAGS)) !=
	    (is_dir(di->mode) ? METADIR_DIFLAGS : METAFILE_DIFLAGS))
		bad_meta(d, "lacks flags every metadata file carries "
			 "(immutable, sync, noatime, nodump, nodefrag; "
			 "nosymlinks on directories)");
}

/* Fields with one valid value, and timestamps. */
static void check_fixed(struct dctx *d)
{
	static const char *const tn[4] = { "atime", "mtime", "ctime",
					   "crtime" };
	const struct od_inode *di = d->di;
	char msg[96];
	unsigned i;

	/* di_onlink holds the metadata type of a metadata file */
	if (di->version > 1 && di->onlink && !od_inode_is_meta(di)) {
		snprintf(msg, sizeof(msg), "di_onlink %u (obsolete, zero on "
			 "v%u inodes)", di->onlink, di->version);
		check_problem(&d->ca->log, INODE_PAD, d->ino, msg);
	}
	if (di->version == 1 && di->v1_nlink)
		check_problem(&d->ca->log, INODE_PAD, d->ino,
			      "di_nlink of a v1 inode");
	if (di->flags2 & OD_DIFLAG2_NREXT64) {
		if (di->nrext64_pad)
			check_problem(&d->ca->log, INODE_PAD, d->ino,
				      "di_nrext64_pad");
	} else if (di->version == 3 && di->v3_pad) {
		check_problem(&d->ca->log, INODE_PAD, d->ino, "di_v3_pad");
	}
	if (di->version >= 2 && di->projid_hi &&
	    !od_sb_has_projid32(&d->c->fs->sb))
		check_problem(&d->ca->log, INODE_PROJID, d->ino,
			      "projid_hi set without the projid32 feature");
	if (di->flags2 & OD_DIFLAG2_BIGTIME)
		return;
	for (i = 0; i < (di->version == 3 ? 4u : 3u); i++) {
		uint32_t ns = (uint32_t)di->time_raw[i];

		if (ns >= NSEC_PER_SEC)
			check_problem(&d->ca->log, INODE_TIME, d->ino, tn[i],
				      ns);
	}
}

/* process_check_inode_sizes and the kernel's size rules, by type. */
static void check_sizes(struct dctx *d)
{
	const struct od_inode *di = d->di;
	const struct od_geo *g = d->c->g;
	uint64_t dir_max = (DIR2_MAX_SPACES * DIR2_SPACE_SIZE) >> g->blocklog;
	char msg[96];

	if ((is_dir(di->mode) || is_lnk(di->mode)) && di->size == 0)
		check_problem(&d->ca->log, INODE_SIZE, d->ino,
			      "a directory or symlink of size 0");
	if (is_dir(di->mode) && di->size > DIR2_SPACE_SIZE) {
		snprintf(msg, sizeof(msg), "directory size %llu is past the "
			 "data space", (unsigned long long)di->size);
		check_problem(&d->ca->log, INODE_SIZE, d->ino, msg);
	}
	if (is_dir(di->mode) && di->nextents > dir_max)
		check_problem(&d->ca->log, INODE_NEXTENTS, d->ino,
			      "more directory extents than the directory "
			      "spaces hold");
	if (is_special(di->mode) && di->size) {
		snprintf(msg, sizeof(msg), "device, fifo or socket of size "
			 "%llu", (unsigned long long)di->size);
		check_problem(&d->ca->log, INODE_SIZE, d->ino, msg);
	}
	if (di->mode && di->nextents + di->anextents > di->nblocks) {
		snprintf(msg, sizeof(msg), "%llu extents but only %llu "
			 "blocks", (unsigned long long)(di->nextents +
							di->anextents),
			 (unsigned long long)di->nblocks);
		check_problem(&d->ca->log, INODE_NEXTENTS, d->ino, msg);
	}
}

/* The inodes the superblock names must be of the right type. */
static void check_sb_inode(struct dctx *d)
{
	const struct od_inode *di = d->di;
	const struct od_sb *sb = &d->c->fs->sb;
	uint64_t ino = di->ino;

	if (ino == sb->rootino && !is_dir(di->mode))
		bad(d, "the root inode is not a directory");
	if ((ino == sb->rbmino || ino == sb->rsumino ||
	     ino == sb->uquotino || ino == sb->gquotino ||
	     ino == sb->pquotino) && !is_reg(di->mode))
		bad(d, "a realtime or quota inode that is not a regular file");
	if ((ino == sb->rbmino || ino == sb->rsumino) && !sb->rblocks &&
	    di->nextents)
		bad(d, "realtime inode with extents but no realtime device");
	if (d->c->g->metadir && ino == sb->metadirino &&
	    (!od_inode_is_meta(di) || od_inode_metatype(di) != OD_META_DIR))
		bad(d, "the metadata directory's root (metadirino) is not a "
		    "metadata directory");
}

void check_dinode(struct check_ctx *c, struct check_ag *ca,
		  const struct od_inode *di, bool inuse)
{
	struct dctx d = { c, ca, di, (unsigned long long)di->ino };
	uint16_t t = di->mode & 0170000;

	/* next_unlinked: an inode of the AG or null; null when in use,
	 * since the unlinked lists are empty (the AGI is checked too) */
	if (di->next_unlinked != NULLAGINO &&
	    (di->next_unlinked >= ((uint64_t)ca->blocks << c->g->inopblog) ||
	     od_agino_agbno(c->g, di->next_unlinked) == 0 || inuse))
		check_problem(&ca->log, INODE_UNLINKED, d.ino,
			      di->next_unlinked);
	if (di->mode && t != 0100000 && t != 0040000 && t != 0120000 &&
	    !is_special(di->mode)) {
		bad(&d, "mode has no valid file type");
		return;
	}
	check_forks(&d);
	check_flags(&d);
	check_extsize(&d);
	if (di->version == 3) {
		check_flags2(&d);
		check_cowextsize(&d);
	}
	if (!di->mode)
		return;
	check_fixed(&d);
	check_sizes(&d);
	check_sb_inode(&d);
	check_metafile(&d);
}

/*
 * The common case in one look at the raw core, without decoding it: a
 * v3 regular file in use with extents and an attr fork that is absent
 * or an empty extents fork (forkoff inside the literal area), no flags but
 * bigtime and nrext64 (with their features), no hints, zero pads, valid
 * timestamps, no more extents than blocks or than the fork holds, not
 * an inode the superblock names.  Each test below is one of
 * check_dinode's rules narrowed to that case; anything else is left to
 * check_dinode, so the verdict is the same.
 */
bool check_dinode_quick(const struct check_ctx *c, const uint8_t *raw,
			uint64_t ino)
{
	const struct od_geo *g = c->g;
	const struct od_sb *sb = &c->fs->sb;
	uint64_t flags2, nextents, known = OD_DIFLAG2_BIGTIME |
					   OD_DIFLAG2_NREXT64;
	uint32_t lit = g->inodesize - OD_DINODE_V3_CORE, dsize = lit;
	unsigned i;
	bool nrext64;

	if (od_dinode_forkoff(raw)) {
		dsize = (uint32_t)od_dinode_forkoff(raw) * 8;
		if (dsize >= lit)
			return false;
	}
	if (od_dinode_version(raw) != 3 ||
	    !od_mode_isreg(od_dinode_mode(raw)) ||
	    od_dinode_format(raw) != OD_FMT_EXTENTS ||
	    od_dinode_aformat(raw) != OD_FMT_EXTENTS ||
	    od_dinode_onlink(raw) != 0 || od_dinode_flags(raw) != 0 ||
	    od_dinode_extsize(raw) != 0 ||
	    od_dinode_next_unlinked(raw) != NULLAGINO ||
	    od_dinode_cowextsize(raw) != 0)
		return false;
	flags2 = od_dinode_flags2(raw);
	if ((flags2 & ~known) ||
	    ((flags2 & OD_DIFLAG2_BIGTIME) && !g->bigtime) ||
	    ((flags2 & OD_DIFLAG2_NREXT64) && !g->nrext64))
		return false;
	nrext64 = flags2 & OD_DIFLAG2_NREXT64;
	nextents = od_dinode_nextents(raw, nrext64);
	if (od_dinode_anextents(raw, nrext64) != 0 ||
	    !od_dinode_counter_pad_zero(raw, nrext64))
		return false;
	if (nextents > dsize / OD_BMBT_REC_LEN ||
	    nextents > od_dinode_nblocks(raw))
		return false;
	if (od_dinode_projid_hi(raw) != 0 && !od_sb_has_projid32(sb))
		return false;
	if (!(flags2 & OD_DIFLAG2_BIGTIME))
		for (i = OD_ATIME; i <= OD_CRTIME; i++)
			if (od_dinode_nsec(raw, i) >= NSEC_PER_SEC)
				return false;
	return ino != sb->rootino && ino != sb->rbmino &&
	       ino != sb->rsumino && ino != sb->uquotino &&
	       ino != sb->gquotino && ino != sb->pquotino;
}
