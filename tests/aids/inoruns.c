/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag-test debug-inoruns [--gap BYTES] [--dirs] [--partition N]
 * IMAGE: the byte ranges
 * holding the physically present inodes, AG by AG in disk order, ranges
 * less than BYTES apart (default 0: adjacent) joined, as "offset length"
 * lines.  With --gap 65536 these are the bytes the scan reads for inode
 * chunks.  --dirs: every directory's blocks instead, directory by
 * directory in inode order, adjacent ones joined: the requests check's
 * read-ahead makes for them.  A benchmarking aid: bench/report.sh times
 * dd and fio reading them.
 */
#include "tests/aids/aids.h"
#include "core/model/ahead.h"
#include "core/model/inorun.h"
#include "core/model/scan.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>

struct tally {
	uint64_t runs, bytes;
};

/* ahead_fork_each: one range of a directory's blocks. */
static void dir_run(void *priv, uint64_t off, uint64_t len)
{
	struct tally *t = priv;

	printf("%" PRIu64 " %" PRIu64 "\n", off, len);
	t->runs++;
	t->bytes += len;
}

int aid_inoruns(struct cmd_call *c)
{
	int argc = c->argc;
	char **argv = c->argv;
	static const struct option longopts[] = {
		{ "gap", required_argument, NULL, 'g' },
		{ "dirs", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "partition", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct scan_opts so = { 0 };
	struct model *m = NULL;
	struct err e = { 0 };
	struct fs *fs;
	uint64_t runs = 0, bytes = 0, gap = 0;
	unsigned long part = 0;
	char *end;
	uint32_t a;
	bool dirs = false;
	int opt, status = EXIT_OK;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (opt) {
		case 'g':
			gap = strtoull(optarg, &end, 0);
			if (*end || end == optarg)
				return aid_usage("debug-inoruns");
			break;
		case 'd':
			dirs = true;
			break;
		case 'P':
			part = strtoul(optarg, &end, 10);
			if (*end || end == optarg || part < 1 || part > 65535)
				return aid_usage("debug-inoruns");
			break;
		case 'h':
			aid_usage("debug-inoruns");
			return EXIT_OK;
		default:
			return aid_usage("debug-inoruns");
		}
	}
	if (argc - optind != 1)
		return aid_usage("debug-inoruns");
	if (cmd_open_ro(argv[optind], FS_PART(part), &fs, &e))
		return cmd_fail(c, &e);
	if (scan_fs(fs, &so, &m, &e)) {
		status = cmd_fail(c, &e);
		goto out;
	}
	for (a = 0; dirs && a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];
		struct tally t = { 0, 0 };
		size_t i;

		/* as check's read-ahead asks for them */
		for (i = 0; i < ag->nino; i++)
			if (od_mode_isdir(ag->ino[i].mode))
				ahead_fork_each(&fs->geo,
						ag->ext + ag->ino[i].ext,
						ag->ino[i].nde, UINT64_MAX,
						UINT64_MAX, dir_run, &t);
		runs += t.runs;
		bytes += t.bytes;
	}
	for (a = 0; !dirs && a < m->agcount; a++) {
		struct inorun r;
		struct inorun_seg s;
		uint64_t start = 0, len = 0;

		inorun_init(&r, &fs->geo, &m->ag[a], UINT64_MAX);
		while (inorun_next(&r, &s)) {
			if (len && s.start >= start + len &&
			    s.start - (start + len) <= gap) {
				len = s.start + s.len - start;
				continue;
			}
			if (len)
				printf("%" PRIu64 " %" PRIu64 "\n", start, len);
			runs += len != 0;
			bytes += len;
			start = s.start;
			len = s.len;
		}
		if (len)
			printf("%" PRIu64 " %" PRIu64 "\n", start, len);
		runs += len != 0;
		bytes += len;
	}
	fprintf(stderr, "%" PRIu64 " runs, %" PRIu64 " bytes\n", runs, bytes);
out:
	model_free(m);
	fs_close(fs);
	return status;
}
