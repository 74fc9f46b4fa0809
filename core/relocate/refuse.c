/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/relocate/refuse.h"

#include <stdio.h>

/* What the relocation code implements (xfs_format.h feature words). */
/*
 * Exchange leaves nothing on disk beyond its bit once the log is clean
 * (its intents live in the log).  Parent pointers are rewritten when
 * their directory is renumbered (exec_pptr.c); the metadata directory's
 * inodes keep their numbers (plan_inodes.c), its blocks move as any.
 */
#define OK_INCOMPAT	(OD_INCOMPAT_FTYPE | OD_INCOMPAT_SPINODES | \
			 OD_INCOMPAT_META_UUID | OD_INCOMPAT_BIGTIME | \
			 OD_INCOMPAT_NREXT64 | OD_INCOMPAT_EXCHRANGE | \
			 OD_INCOMPAT_PARENT | OD_INCOMPAT_METADIR)
#define OK_RO_COMPAT	(OD_RO_FINOBT | OD_RO_RMAPBT | OD_RO_REFLINK | \
			 OD_RO_INOBTCNT)
#define OK_VERSION	(OD_SB_VERSION_NUMBITS | OD_SB_VERSION_ATTR | \
			 OD_SB_VERSION_NLINK | OD_SB_VERSION_QUOTA | \
			 OD_SB_VERSION_ALIGN | OD_SB_VERSION_DALIGN | \
			 OD_SB_VERSION_LOGV2 | OD_SB_VERSION_SECTOR | \
			 OD_SB_VERSION_EXTFLG | OD_SB_VERSION_DIRV2 | \
			 OD_SB_VERSION_BORG | OD_SB_VERSION_MOREBITS)
#define OK_FEATURES2	(OD_SB_F2_LAZYSBCOUNT | OD_SB_F2_ATTR2 | \
			 OD_SB_F2_PROJID32 | OD_SB_F2_CRC | OD_SB_F2_FTYPE)

/* The feature bits nobody implemented, named, appended to b. */
struct unsup {
	char s[400];
	size_t n;
	unsigned count;
};

static void unsup_bits(struct unsup *u, const char *word, uint32_t bits,
		       const char *(*name)(uint32_t))
{
	uint32_t b;

	for (b = 1; b; b <<= 1) {
		const char *n;
		int r;

		if (!(bits & b) || u->n >= sizeof(u->s) - 1)
			continue;
		n = name ? name(b) : NULL;
		r = snprintf(u->s + u->n, sizeof(u->s) - u->n, "%s%s %s%s0x%x",
			     u->count ? ", " : "", word, n ? n : "",
			     n ? " " : "", b);
		if (r > 0)
			u->n = (size_t)r < sizeof(u->s) - u->n ? u->n + (size_t)r :
			       sizeof(u->s) - 1;
		u->count++;
	}
}

static const char *version_name(uint32_t bit)
{
	return od_sb_version_name((uint16_t)bit);
}

int refuse_write(struct fs *fs, struct err *e)
{
	const struct od_sb *sb = &fs->sb;
	struct unsup u = { .n = 0 };
	int ret;

	if (fs->mounted)
		return err_set(e, -EPERM, "refusing to write: %s is mounted%s%s",
			       fs->path, fs->mountpoint[0] ? " on " : "",
			       fs->mountpoint);
	switch (fs->log_state) {
	case FS_LOG_CLEAN:
		break;
	case FS_LOG_DIRTY:
		return err_set(e, -EPERM, "refusing to write: the log is dirty "
			       "(%s); mount and unmount the filesystem, or "
			       "run xfs_repair", fs->log_detail);
	case FS_LOG_EXTERNAL:
		return err_set(e, -EPERM, "refusing to write: the log is on an "
			       "external device, so it cannot be checked");
	default:
		return err_set(e, -EPERM, "refusing to write: cannot tell "
			       "whether the log is clean (%s)",
			       fs->log_detail);
	}
	if (!od_sb_is_v5(sb))
		return err_set(e, -EPERM, "refusing to write: v4 filesystems "
			       "have no NEEDSREPAIR flag to keep the kernel "
			       "from mounting a half-written filesystem");
	if (sb->inprogress)
		return err_set(e, -EPERM, "refusing to write: the superblock "
			       "says mkfs did not finish (sb_inprogress)");
	/* every feature not implemented at once, with the realtime section */
	if (od_sb_is_v5(sb)) {
		if (sb->features_incompat & OD_INCOMPAT_NEEDSREPAIR)
			return err_set(e, -EPERM, "refusing to write: the "
				       "NEEDSREPAIR flag is set (an interrupted "
				       "run? use 'xfsdefrag undo'; otherwise "
				       "run xfs_repair)");
		unsup_bits(&u, "incompat",
			   sb->features_incompat & ~OK_INCOMPAT,
			   od_sb_incompat_name);
		unsup_bits(&u, "ro_compat",
			   sb->features_ro_compat & ~OK_RO_COMPAT,
			   od_sb_ro_compat_name);
		unsup_bits(&u, "log_incompat", sb->features_log_incompat,
			   od_sb_log_incompat_name);
		unsup_bits(&u, "compat", sb->features_compat, NULL);
	}
	unsup_bits(&u, "version", sb->versionnum & ~OK_VERSION, version_name);
	if (od_sb_has_morebits(sb))
		unsup_bits(&u, "features2", sb->features2 & ~OK_FEATURES2,
			   od_sb_features2_name);
	if (u.count || sb->rblocks || sb->rextents)
		return err_set(e, -EPERM, "refusing to write: not supported by "
			       "the relocation code: %s%s%s",
			       sb->rblocks || sb->rextents ?
			       "a realtime section" : "",
			       u.count && (sb->rblocks || sb->rextents) ?
			       ", " : "", u.s);
	ret = fs_unlinked_pending(fs, e);
	if (ret < 0)
		return ret;
	if (ret)
		return err_set(e, -EPERM, "refusing to write: unlinked inodes "
			       "are pending (not cleanly unmounted); mount and "
			       "unmount the filesystem first");
	return 0;
}

int refuse_renumber(struct fs *fs, struct err *e)
{
	int ret;

	if (fs->geo.inopblock > 64)
		return err_set(e, -EPERM, "refusing to renumber inodes: more "
			       "than 64 inodes per block");
	ret = fs_unlinked_pending(fs, e);
	if (ret < 0)
		return ret;
	if (ret)
		return err_set(e, -EPERM, "refusing to renumber inodes: "
			       "unlinked inodes are pending (the AGI buckets "
			       "and their next_unlinked chains name inode "
			       "numbers); mount and unmount the filesystem "
			       "first");
	return refuse_write(fs, e);
}
