/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit-test helpers: a small deterministic PRNG, and a filesystem in
 * memory (a valid superblock at sector 0 of a zeroed buffer, two 8 MiB
 * AGs, external log) opened through img_open_mem + fs_open_img, so tests
 * can place blocks with memcpy at daddr << 9 and read them back through
 * the real read path.
 */
#ifndef TESTS_MEMFS_H
#define TESTS_MEMFS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fs/fs.h"
#include "core/base/img.h"

struct memfs_rng {
	uint64_t s;
};

static inline uint64_t memfs_rnd(struct memfs_rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

/*
 * A memory filesystem: v5 (finobt, rmapbt, reflink, sparse inodes, ftype)
 * or v4, blocks of 1 << blocklog bytes, 2 AGs of 8 MiB, superblock at 0,
 * external log; everything else zero.  Close with memfs_close.
 */
struct memfs {
	uint8_t *mem;
	size_t len;
	struct img *im;
	struct fs *fs;
	const struct od_geo *g;
};

static inline int memfs_open(struct memfs *tf, bool v5, unsigned blocklog)
{
	unsigned inodelog = v5 ? 9 : 8;
	struct od_sb sb;
	struct err e;
	int i;

	memset(&sb, 0, sizeof(sb));
	memset(tf, 0, sizeof(*tf));
	sb.magicnum = OD_SB_MAGIC;
	sb.blocklog = (uint8_t)blocklog;
	sb.blocksize = 1u << blocklog;
	sb.sectsize = 512;
	sb.sectlog = 9;
	sb.inodelog = (uint8_t)inodelog;
	sb.inodesize = (uint16_t)(1u << inodelog);
	sb.inopblog = (uint8_t)(blocklog - inodelog);
	sb.inopblock = (uint16_t)(1u << sb.inopblog);
	sb.agblklog = (uint8_t)(23 - blocklog);	/* 8 MiB AGs */
	sb.agblocks = 1u << sb.agblklog;
	sb.agcount = 2;
	sb.dblocks = 2ull * sb.agblocks;
	sb.rootino = 128;
	sb.imax_pct = 25;
	sb.inoalignmt = 8;
	for (i = 0; i < 16; i++)
		sb.uuid[i] = (uint8_t)(0x40 + i * 7);
	if (v5) {
		sb.versionnum = 0xb4a5;
		sb.features2 = 0x18a;
		sb.features_incompat = OD_INCOMPAT_FTYPE | OD_INCOMPAT_SPINODES;
		sb.features_ro_compat = OD_RO_FINOBT | OD_RO_RMAPBT |
					OD_RO_REFLINK;
	} else {
		sb.versionnum = 0x30b4;	/* v4: dirv2 extflg align nlink attr */
	}
	tf->len = (size_t)sb.dblocks << blocklog;
	tf->mem = calloc(1, tf->len);
	err_clear(&e);
	if (!tf->mem || od_sb_encode(&sb, tf->mem, 512) != OD_OK ||
	    img_open_mem(tf->mem, tf->len, 0, &tf->im) ||
	    fs_open_img(tf->im, "mem", FS_NOPROBE, &tf->fs, &e)) {
		fprintf(stderr, "memfs_open: %s\n", e.msg);
		if (tf->im)
			img_close(tf->im);
		free(tf->mem);
		memset(tf, 0, sizeof(*tf));
		return -1;
	}
	tf->g = &tf->fs->geo;
	return 0;
}

static inline void memfs_close(struct memfs *tf)
{
	fs_close(tf->fs);	/* closes the img too */
	free(tf->mem);
}

#endif
