/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag-test debug-compare ORIG OTHER (tests/aids/README.md): is
 * every block that holds something in ORIG byte-identical in OTHER?
 * What counts is found by our own reader: the scanned model of ORIG and
 * its block ownership map; left out are free extents, AGFL slots and
 * blocks only unwritten extents map (they read as zeros whatever they
 * hold).  So after an undo, equality means every inode, directory,
 * attribute, btree and file byte is back: every file is identical.  Exit 0 if so, 1 (and the first differing
 * blocks) if not, 3 if ORIG cannot be read.
 */
#include "tests/aids/aids.h"
#include "core/model/blkmap.h"
#include "core/model/scan.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { C_CMP, C_SKIP_FREE, C_SKIP_UNWRITTEN };

/* What each block of AG a is for the comparison (C_*), in cls. */
static void classify(const struct blkmap *bm, const struct model *m,
		     uint32_t a, uint8_t *cls, uint32_t n)
{
	const struct bm_ag *ag = &bm->ag[a];
	size_t i;
	uint32_t b;

	memset(cls, C_CMP, n);
	for (i = 0; i < ag->nspan; i++) {
		const struct bm_span *s = &ag->span[i];
		uint8_t c = s->kind == BK_FREE ? C_SKIP_FREE :
			    (s->kind == BK_DATA || s->kind == BK_ATTR) &&
			    (s->flags & BMS_UNWRITTEN) ? C_SKIP_UNWRITTEN :
			    C_CMP;

		for (b = s->agbno; b < bm_span_end(s) && b < n; b++)
			if (c != C_CMP && cls[b] == C_CMP)
				cls[b] = c;
	}
	/* anything else mapping a block makes it count */
	for (i = 0; i < ag->nspan; i++) {
		const struct bm_span *s = &ag->span[i];

		if (s->kind == BK_FREE || ((s->kind == BK_DATA ||
		    s->kind == BK_ATTR) && (s->flags & BMS_UNWRITTEN)))
			continue;
		for (b = s->agbno; b < bm_span_end(s) && b < n; b++)
			cls[b] = C_CMP;
	}
	for (i = 0; i < m->ag[a].nagfl; i++)
		if (m->ag[a].agfl[i] < n)
			cls[m->ag[a].agfl[i]] = C_SKIP_FREE;
}

static int read_full(int fd, uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n <= 0)
			return -1;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int aid_compare(struct cmd_call *c)
{
	int argc = c->argc;
	char **argv = c->argv;
	struct scan_opts so = { 0 };
	struct model *m = NULL;
	struct blkmap *bm = NULL;
	struct fs *fs = NULL;
	struct err e = { 0 };
	uint64_t counted = 0, skipped_free = 0, skipped_unw = 0, bad = 0;
	uint64_t first[4];
	uint8_t *cls = NULL, *x = NULL, *y = NULL;
	int fa = -1, fb = -1, status = EXIT_ERROR, nfirst = 0;
	uint32_t a, bs, per;

	if (argc != 3)
		return aid_usage("debug-compare");
	if (fs_open(argv[1], FS_NOPROBE, &fs, &e) || scan_fs(fs, &so, &m, &e) ||
	    blkmap_build(m, &bm, &e)) {
		status = cmd_fail(c, &e);
		goto out;
	}
	bs = fs->geo.blocksize;
	per = (1u << 20) / bs;
	cls = malloc(fs->geo.agblocks);
	x = malloc((size_t)per * bs);
	y = malloc((size_t)per * bs);
	fa = open(argv[1], O_RDONLY | O_CLOEXEC);
	fb = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (!cls || !x || !y || fa < 0 || fb < 0) {
		cmd_error("debug-compare: %s", strerror(errno));
		goto out;
	}
	for (a = 0; a < fs->geo.agcount; a++) {
		uint32_t n = od_ag_blocks(&fs->geo, a), b = 0;

		classify(bm, m, a, cls, n);
		while (b < n) {
			uint32_t k = 0, i;
			uint64_t lin = od_agb_lin(&fs->geo, a, b);

			if (cls[b] != C_CMP) {
				skipped_free += cls[b] == C_SKIP_FREE;
				skipped_unw += cls[b] == C_SKIP_UNWRITTEN;
				b++;
				continue;
			}
			while (b + k < n && k < per && cls[b + k] == C_CMP)
				k++;
			if (read_full(fa, x, (size_t)k * bs, lin * bs) ||
			    read_full(fb, y, (size_t)k * bs, lin * bs)) {
				cmd_error("debug-compare: short read at block "
					  "%" PRIu64, lin);
				goto out;
			}
			for (i = 0; i < k; i++)
				if (memcmp(x + (size_t)i * bs,
					   y + (size_t)i * bs, bs) != 0) {
					if (nfirst < 4)
						first[nfirst++] = lin + i;
					bad++;
				}
			counted += k;
			b += k;
		}
	}
	if (bad) {
		printf("%" PRIu64 " of %" PRIu64 " blocks in use differ "
		       "(first:", bad, counted);
		for (a = 0; a < (uint32_t)nfirst; a++)
			printf(" ag %" PRIu64 " block %" PRIu64,
			       first[a] / fs->geo.agblocks,
			       first[a] % fs->geo.agblocks);
		printf(")\n");
		status = EXIT_ERROR;
	} else {
		printf("identical: %" PRIu64 " blocks in use compared (%" PRIu64
		       " free, %" PRIu64 " unwritten left out)\n", counted,
		       skipped_free, skipped_unw);
		status = EXIT_OK;
	}
out:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	free(cls);
	free(x);
	free(y);
	blkmap_free(bm);
	model_free(m);
	fs_close(fs);
	return status;
}
