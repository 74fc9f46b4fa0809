/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit-test helper: a committed fixture (tests/fixtures/NAME/image.zst,
 * through zstd -dc) decompressed into anonymous memory, its size from its
 * superblock; zero runs are left unwritten, so a sparse image costs only
 * its data.  munmap(img, len) when done.  fixture_scan: the same, opened
 * and scanned into a model as the commands scan (directories too, two
 * threads); fixture_close whatever it returned.
 */
#ifndef TESTS_FIXTURE_H
#define TESTS_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "core/base/img.h"
#include "core/fs/fs.h"
#include "core/model/scan.h"
#include "ondisk/sb.h"

static inline uint8_t *fixture_load(const char *who, const char *name,
				    size_t *len)
{
	static uint8_t buf[65536];
	uint8_t *img = NULL;
	char cmd[512];
	uint64_t off = 0;
	struct od_sb sb;
	size_t n, i;
	bool zero;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "zstd -dcq tests/fixtures/%s/image.zst",
		 name);
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (!img) {
			if (n < 512 || od_sb_decode(buf, n, &sb) != OD_OK)
				break;
			*len = (size_t)sb.dblocks * sb.blocksize;
			img = mmap(NULL, *len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (img == MAP_FAILED) {
				img = NULL;
				break;
			}
		}
		if (off + n > *len)
			break;
		for (i = 0, zero = true; i < n && zero; i++)
			zero = !buf[i];
		if (!zero)
			memcpy(img + off, buf, n);
		off += n;
	}
	if (pclose(f) != 0 || !img || off != *len) {
		fprintf(stderr, "%s: cannot read fixture %s\n", who, name);
		if (img)
			munmap(img, *len);
		return NULL;
	}
	return img;
}

struct fixture {
	uint8_t *img;
	size_t len;
	struct img *im;
	struct fs *fs;
	struct model *m;
};

/* 0, or -1 with what failed on stderr. */
static inline int fixture_scan(struct fixture *f, const char *who,
			       const char *name)
{
	struct scan_opts so = { 0 };
	struct err e = { 0 };

	memset(f, 0, sizeof(*f));
	f->img = fixture_load(who, name, &f->len);
	if (!f->img)
		return -1;
	so.dirs = true;
	so.threads = 2;
	if (img_open_mem(f->img, f->len, 0, &f->im) ||
	    fs_open_img(f->im, name, FS_NOPROBE, &f->fs, &e) ||
	    scan_fs(f->fs, &so, &f->m, &e)) {
		fprintf(stderr, "%s: %s: %s\n", who, name, e.msg);
		return -1;
	}
	return 0;
}

static inline void fixture_close(struct fixture *f)
{
	model_free(f->m);
	if (f->fs)
		fs_close(f->fs);
	else if (f->im)
		img_close(f->im);
	if (f->img)
		munmap(f->img, f->len);
	memset(f, 0, sizeof(*f));
}

#endif
