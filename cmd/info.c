/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag info IMAGE: the geometry block exactly as xfs_info prints it
 * for an unmounted filesystem (libfrog's report format, as xfsprogs 6.1
 * or 6.15 print it: cmd_layout_615), then what xfs_info leaves out: UUID,
 * label, named feature bits, log state.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <string.h>
#include <uuid/uuid.h>

static void print_geometry(const struct fs *fs, const char *name)
{
	const struct od_sb *sb = &fs->sb;
	int attr = od_sb_has_attr2(sb) ? 2 : (od_sb_has_attr(sb) ? 1 : 0);
	unsigned logsectsize = od_sb_has_sector(sb) ? sb->logsectsize : 512;
	bool now = cmd_layout_615(sb), zoned = od_sb_has_zoned(sb);

	printf("meta-data=%-22s isize=%-6d agcount=%u, agsize=%u blks\n",
	       name, sb->inodesize, sb->agcount, sb->agblocks);
	printf("         =%-22s sectsz=%-5u attr=%u, projid32bit=%u\n",
	       "", sb->sectsize, attr, od_sb_has_projid32(sb));
	printf("         =%-22s crc=%-8u finobt=%u, sparse=%u, rmapbt=%u\n",
	       "", od_sb_is_v5(sb), od_sb_has_finobt(sb), od_sb_has_sparse(sb),
	       od_sb_has_rmapbt(sb));
	printf("         =%-22s reflink=%-4u bigtime=%u inobtcount=%u "
	       "nrext64=%u\n", "", od_sb_has_reflink(sb), od_sb_has_bigtime(sb),
	       od_sb_has_inobtcnt(sb), od_sb_has_nrext64(sb));
	if (now)
		printf("         =%-22s exchange=%-3u metadir=%u\n", "",
		       od_sb_has_exchange(sb), od_sb_has_metadir(sb));
	printf("data     =%-22s bsize=%-6u blocks=%llu, imaxpct=%u\n",
	       "", sb->blocksize, (unsigned long long)sb->dblocks,
	       sb->imax_pct);
	printf("         =%-22s sunit=%-6u swidth=%u blks\n", "", sb->unit,
	       sb->width);
	printf("naming   =version %-14u bsize=%-6u ascii-ci=%d, ftype=%d",
	       2u, fs->geo.dirblksize, od_sb_has_asciici(sb),
	       od_sb_has_ftype(sb));
	if (now)
		printf(", parent=%d", od_sb_has_parent(sb));
	printf("\n");
	printf("log      =%-22s bsize=%-6d blocks=%u, version=%d\n",
	       sb->logstart ? "internal log" : "external", (int)sb->blocksize,
	       sb->logblocks, od_sb_has_logv2(sb) ? 2 : 1);
	printf("         =%-22s sectsz=%-5u sunit=%d blks, lazy-count=%d\n",
	       "", logsectsize, (int)(sb->logsunit / sb->blocksize),
	       od_sb_has_lazysbcount(sb));
	printf("realtime =%-22s extsz=%-6d blocks=%lld, rtextents=%lld\n",
	       !sb->rblocks ? "none" : zoned && sb->rtstart ? "internal" :
	       "external", (int)(sb->rextsize * sb->blocksize),
	       (long long)sb->rblocks, (long long)sb->rextents);
	if (!now)
		return;
	printf("         =%-22s rgcount=%-4d rgsize=%u extents\n", "",
	       od_sb_has_rtgroups(sb) ? (int)sb->rgcount : 0,
	       od_sb_has_rtgroups(sb) ? sb->rgextents : 0);
	printf("         =%-22s zoned=%-6d start=%llu reserved=%llu\n", "",
	       zoned, (unsigned long long)(zoned ? sb->rtstart : 0),
	       (unsigned long long)(zoned ? sb->rtreserved : 0));
}

static void print_bits(const char *label, uint32_t word,
		       const char *(*name)(uint32_t))
{
	uint32_t bit;
	bool first = true;

	printf("%-9s=", label);
	for (bit = 1; bit; bit <<= 1) {
		const char *n;

		if (!(word & bit))
			continue;
		n = name(bit);
		if (n)
			printf("%s%s", first ? "" : ",", n);
		else
			printf("%sunknown(0x%x)", first ? "" : ",", bit);
		first = false;
	}
	printf("%s\n", first ? "none" : "");
}

static const char *version_name(uint32_t bit)
{
	return od_sb_version_name((uint16_t)bit);
}

struct info_args {
	unsigned partition;
};

static int info(struct cmd_call *c)
{
	const struct info_args *a = c->args;
	const char *state[] = { "clean", "dirty", "external (not checked)",
				"unknown" };
	const char *image = c->ops[0];
	struct err e = { 0 };
	struct fs *fs = NULL;
	char uuid[37];

	if (cmd_open_ro(image, FS_PART(a->partition), &fs, &e))
		return cmd_fail(c, &e);
	print_geometry(fs, image);
	uuid_unparse(fs->sb.uuid, uuid);
	printf("uuid     =%s\n", uuid);
	printf("label    =\"");
	cmd_put_escaped(stdout, fs->sb.fname);
	printf("\"\n");
	printf("version  =%u (%s)\n", fs->sb.versionnum & OD_SB_VERSION_NUMBITS,
	       od_sb_is_v5(&fs->sb) ? "v5, metadata crcs" : "v4");
	print_bits("vbits", fs->sb.versionnum & ~OD_SB_VERSION_NUMBITS,
		   version_name);
	if (od_sb_has_morebits(&fs->sb))
		print_bits("features2", fs->sb.features2,
			   od_sb_features2_name);
	if (od_sb_is_v5(&fs->sb)) {
		print_bits("ro_compat", fs->sb.features_ro_compat,
			   od_sb_ro_compat_name);
		print_bits("incompat", fs->sb.features_incompat,
			   od_sb_incompat_name);
		print_bits("log_incompat", fs->sb.features_log_incompat,
			   od_sb_log_incompat_name);
	}
	printf("log      =%s\n", state[fs->log_state]);
	printf("inodes   =%llu allocated, %llu free\n",
	       (unsigned long long)fs->sb.icount,
	       (unsigned long long)fs->sb.ifree);
	printf("free     =%llu blocks\n", (unsigned long long)fs->sb.fdblocks);
	fs_close(fs);
	return EXIT_OK;
}

static const struct opt opts[] = {
	CMD_PART_OPT(struct info_args, partition),
	OPT_END,
};

const struct cmd cmd_info = {
	.name = "info", .fn = info,
	.summary = "show geometry and features (like xfs_info)",
	.operands = "IMAGE", .min_ops = 1, .max_ops = 1, .opts = opts,
	.args_size = sizeof(struct info_args),
};
