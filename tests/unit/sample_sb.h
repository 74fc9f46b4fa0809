/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: a minimal valid v5 superblock sector (4 AGs of 32768
 * blocks of 4 KiB, 512-byte inodes, ftype, sparse inodes). */
#ifndef T_SAMPLE_SB_H
#define T_SAMPLE_SB_H

#include "ondisk/sb.h"

#include <string.h>

static inline void sample_sb(uint8_t *buf, size_t len)
{
	struct od_sb sb;

	memset(&sb, 0, sizeof(sb));
	memset(buf, 0, len);
	sb.magicnum = OD_SB_MAGIC;
	sb.blocksize = 4096;
	sb.blocklog = 12;
	sb.sectsize = 512;
	sb.sectlog = 9;
	sb.inodesize = 512;
	sb.inodelog = 9;
	sb.inopblock = 8;
	sb.inopblog = 3;
	sb.agblocks = 32768;
	sb.agblklog = 15;
	sb.agcount = 4;
	sb.dblocks = 131072;
	sb.logstart = 65542;
	sb.logblocks = 16384;
	sb.rootino = 128;
	sb.versionnum = 0xb4a5;
	sb.imax_pct = 25;
	sb.inoalignmt = 4;
	sb.features2 = 0x18a;
	sb.features_incompat = OD_INCOMPAT_FTYPE | OD_INCOMPAT_SPINODES;
	od_sb_encode(&sb, buf, len);
}

#endif
