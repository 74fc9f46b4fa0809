/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag bmap: a file's extent map printed exactly as xfs_bmap
 * (xfs_io's bmap command) prints it, but read from the unmounted disk.
 * The one deliberate difference: xfs_bmap may stop early on maps longer
 * than its first guess; we always print the whole map (or -n rows).
 */
#include "cmd.h"
#include "../core/getbmap.h"
#include "../core/path.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* io/bmap.c: flag bits of the verbose FLAGS column */
#define FLG_SHARED	0100000
#define FLG_PRE		0010000
#define FLG_BSU		0001000
#define FLG_ESU		0000100
#define FLG_BSW		0000010
#define FLG_ESW		0000001
#define NFLG		6
#define MINRANGE_WIDTH	16
#define MINAG_WIDTH	2
#define MINTOT_WIDTH	5

struct bmap_opts {
	bool aflag, lflag, pflag, iflag, stats;
	int vflag;
	int nflag;
};

static int numlen(int64_t v)
{
	int n = 1;

	while (v >= 10 || v <= -10) {
		v /= 10;
		n++;
	}
	return v < 0 ? n + 1 : n;
}

static void put_name(const char *name)
{
	if (cmd_stdout_tty())
		cmd_put_escaped(stdout, name);
	else
		fputs(name, stdout);
}

static void print_plain(const struct getbmap_row *v, size_t n, bool lflag)
{
	size_t i;

	for (i = 0; i < n; i++) {
		printf("\t%zu: [%" PRId64 "..%" PRId64 "]: ", i, v[i].offset,
		       v[i].offset + v[i].length - 1);
		if (v[i].block == -1)
			printf("hole");
		else
			printf("%" PRId64 "..%" PRId64, v[i].block,
			       v[i].block + v[i].length - 1);
		if (lflag)
			printf(" %" PRId64 " blocks\n", v[i].length);
		else
			printf("\n");
	}
}

static void print_verbose(const struct fs *fs, const struct inode *ip,
			  const struct getbmap_row *v, size_t n,
			  const struct bmap_opts *o)
{
	/* io/bmap.c: realtime files have no AG columns */
	bool is_rt = !o->aflag && (ip->di.flags & OD_DIFLAG_REALTIME);
	int64_t bbperag = 0, sunit = 0, swidth = 0;
	int foff_w = MINRANGE_WIDTH, boff_w = MINRANGE_WIDTH;
	int aoff_w = MINRANGE_WIDTH, tot_w = MINTOT_WIDTH, agno_w;
	char rbuf[64], bbuf[64], abuf[64];
	int flg;
	size_t i;

	if (!is_rt) {
		bbperag = (int64_t)fs->sb.agblocks * fs->sb.blocksize / 512;
		sunit = (int64_t)fs->sb.unit * fs->sb.blocksize / 512;
		swidth = (int64_t)fs->sb.width * fs->sb.blocksize / 512;
	}
	flg = (int)(sunit | o->pflag);
	for (i = 0; i < n; i++) {
		snprintf(rbuf, sizeof(rbuf), "[%" PRId64 "..%" PRId64 "]:",
			 v[i].offset, v[i].offset + v[i].length - 1);
		if (v[i].oflags & GETBMAP_OF_PREALLOC)
			flg = 1;
		if (v[i].block == -1) {
			foff_w = foff_w > (int)strlen(rbuf) ? foff_w :
							      (int)strlen(rbuf);
			tot_w = tot_w > numlen(v[i].length) ? tot_w :
							      numlen(v[i].length);
			continue;
		}
		snprintf(bbuf, sizeof(bbuf), "%" PRId64 "..%" PRId64,
			 v[i].block, v[i].block + v[i].length - 1);
		if ((int)strlen(bbuf) > boff_w)
			boff_w = (int)strlen(bbuf);
		if (!is_rt) {
			int64_t agno = v[i].block / bbperag;
			int64_t agoff = v[i].block - agno * bbperag;

			snprintf(abuf, sizeof(abuf), "(%" PRId64 "..%" PRId64 ")",
				 agoff, agoff + v[i].length - 1);
			if ((int)strlen(abuf) > aoff_w)
				aoff_w = (int)strlen(abuf);
		} else {
			aoff_w = 0;
		}
		if ((int)strlen(rbuf) > foff_w)
			foff_w = (int)strlen(rbuf);
		if (numlen(v[i].length) > tot_w)
			tot_w = numlen(v[i].length);
	}
	agno_w = is_rt ? 0 : (numlen(fs->sb.agcount) > MINAG_WIDTH ?
			      numlen(fs->sb.agcount) : MINAG_WIDTH);
	printf("%4s: %-*s %-*s %*s %-*s %*s%s\n", "EXT", foff_w, "FILE-OFFSET",
	       boff_w, is_rt ? "RT-BLOCK-RANGE" : "BLOCK-RANGE", agno_w,
	       is_rt ? "" : "AG", aoff_w, is_rt ? "" : "AG-OFFSET", tot_w,
	       "TOTAL", flg ? " FLAGS" : "");
	for (i = 0; i < n; i++) {
		int64_t block = v[i].block;

		flg = 0;
		if (v[i].oflags & GETBMAP_OF_PREALLOC)
			flg |= FLG_PRE;
		if (v[i].oflags & GETBMAP_OF_SHARED)
			flg |= FLG_SHARED;
		/* holes (-1) get stripe flags too, exactly as xfs_bmap */
		if (sunit) {
			if (block % sunit != 0)
				flg |= FLG_BSU;
			if ((block + v[i].length) % sunit != 0)
				flg |= FLG_ESU;
			if (block % swidth != 0)
				flg |= FLG_BSW;
			if ((block + v[i].length) % swidth != 0)
				flg |= FLG_ESW;
		}
		snprintf(rbuf, sizeof(rbuf), "[%" PRId64 "..%" PRId64 "]:",
			 v[i].offset, v[i].offset + v[i].length - 1);
		if (block == -1) {
			printf("%4zu: %-*s %-*s %*s %-*s %*" PRId64 "\n", i,
			       foff_w, rbuf, boff_w, "hole", agno_w, "",
			       aoff_w, "", tot_w, v[i].length);
			continue;
		}
		snprintf(bbuf, sizeof(bbuf), "%" PRId64 "..%" PRId64, block,
			 block + v[i].length - 1);
		printf("%4zu: %-*s %-*s", i, foff_w, rbuf, boff_w, bbuf);
		if (!is_rt) {
			int64_t agno = block / bbperag;
			int64_t agoff = block - agno * bbperag;

			snprintf(abuf, sizeof(abuf), "(%" PRId64 "..%" PRId64 ")",
				 agoff, agoff + v[i].length - 1);
			printf(" %*d %-*s", agno_w, (int)agno, aoff_w, abuf);
		} else {
			printf("  ");
		}
		printf(" %*" PRId64, tot_w, v[i].length);
		if (flg == 0 && !o->pflag)
			printf("\n");
		else
			printf(" %-*.*o\n", NFLG, NFLG, flg);
	}
	/* io/bmap.c tests the last row's flags here, a quirk we keep */
	if ((flg || o->pflag) && o->vflag > 1) {
		printf(" FLAG Values:\n");
		printf("    %*.*o Shared extent\n", NFLG + 1, NFLG + 1,
		       FLG_SHARED);
		printf("    %*.*o Unwritten preallocated extent\n", NFLG + 1,
		       NFLG + 1, FLG_PRE);
		printf("    %*.*o Doesn't begin on stripe unit\n", NFLG + 1,
		       NFLG + 1, FLG_BSU);
		printf("    %*.*o Doesn't end   on stripe unit\n", NFLG + 1,
		       NFLG + 1, FLG_ESU);
		printf("    %*.*o Doesn't begin on stripe width\n", NFLG + 1,
		       NFLG + 1, FLG_BSW);
		printf("    %*.*o Doesn't end   on stripe width\n", NFLG + 1,
		       NFLG + 1, FLG_ESW);
	}
}

static int bmap_one(struct fs *fs, const char *arg, const struct bmap_opts *o,
		    struct path_stats *st, struct err *e)
{
	struct getbmap gb = { 0 };
	struct inode ip;
	unsigned flags = 0;
	size_t max_rows = 0, n;
	uint64_t ino;
	char *end;
	int ret;

	if (o->iflag) {
		ino = strtoull(arg, &end, 0);
		if (!*arg || *end)
			return err_set(e, -EINVAL, "%s: not an inode number",
				       arg);
	} else {
		ret = path_resolve(fs, arg, true, &ino, st, e);
		if (ret)
			return ret;
	}
	ret = inode_read(fs, ino, &ip, e);
	if (ret)
		return ret;
	if (o->aflag)
		flags |= GETBMAP_ATTRFORK;
	else if (o->pflag)
		flags |= GETBMAP_PREALLOC;	/* io/bmap.c drops it for -a */
	if (o->nflag)
		max_rows = (size_t)o->nflag + 1;	/* bmv_count - 1 */
	ret = getbmap(fs, &ip, flags, max_rows, &gb, e);
	if (ret)
		goto out;
	if (!o->nflag && gb.n == 0) {
		put_name(arg);
		printf(": no extents\n");
		goto out;
	}
	n = o->nflag && (size_t)o->nflag < gb.n ? (size_t)o->nflag : gb.n;
	put_name(arg);
	printf(":\n");
	if (o->vflag)
		print_verbose(fs, &ip, gb.v, n, o);
	else
		print_plain(gb.v, n, o->lflag);
out:
	getbmap_free(&gb);
	return ret;
}

int cmd_bmap(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "stats", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct bmap_opts o = { 0 };
	struct path_stats st = { 0 };
	struct err e = { 0 };
	struct fs *fs = NULL;
	int c, i, worst = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+ailn:pv", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': o.aflag = true; break;
		case 'i': o.iflag = true; break;
		case 'l': o.lflag = true; break;
		case 'p': o.pflag = true; break;
		case 'v': o.vflag++; break;
		case 'S': o.stats = true; break;
		case 'n':
			o.nflag = atoi(optarg);
			if (o.nflag < 0)
				return cmd_usage("bmap");
			break;
		case 'h':
			cmd_usage("bmap");
			return EXIT_OK;
		default:
			return cmd_usage("bmap");
		}
	}
	if (argc - optind < 2)
		return cmd_usage("bmap");
	if (cmd_open_ro(argv[optind], &fs, &e))
		return cmd_fail(&e);
	for (i = optind + 1; i < argc; i++) {
		err_clear(&e);
		if (bmap_one(fs, argv[i], &o, &st, &e)) {
			int code;

			fflush(stdout);
			code = cmd_fail(&e);
			if (code > worst)
				worst = code;
		}
	}
	if (o.stats)
		fprintf(stderr, "%s: %u lookups read %llu directory blocks\n",
			progname, st.lookups,
			(unsigned long long)st.dirblocks_read);
	fs_close(fs);
	return worst;
}
