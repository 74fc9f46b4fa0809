/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag bmap: a file's extent map printed exactly as xfs_bmap
 * (xfs_io's bmap command) prints it, but read from the unmounted disk.
 * The one deliberate difference: xfs_bmap may stop early on maps longer
 * than its first guess; we always print the whole map (or -n rows).
 */
#include "cmd/cmd.h"
#include "core/fs/bmapfmt.h"
#include "core/fs/getbmap.h"
#include "core/fs/path.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct bmap_opts {
	bool aflag, lflag, pflag, iflag, stats;
	int vflag;
	int nflag;
};

static void put_name(const char *name)
{
	if (cmd_stdout_tty())
		cmd_put_escaped(stdout, name);
	else
		fputs(name, stdout);
}

static void print_line(void *priv, const char *line)
{
	(void)priv;
	fputs(line, stdout);
	fputc('\n', stdout);
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
		/* the user's mistake, not damage: exit 1, not 3 */
		if (!od_ino_valid(&fs->geo, ino))
			return err_set(e, -EINVAL, "%s: inode number is "
				       "outside the filesystem", arg);
	} else {
		unsigned damaged = st->index_damaged;

		ret = path_resolve(fs, arg, true, &ino, st, e);
		if (ret)
			return ret;
		if (st->index_damaged != damaged)
			cmd_error("warning: %s", st->warning);
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
	{
		struct bmapfmt_opts fo = { o->aflag, o->lflag, o->pflag,
					   o->vflag };

		bmapfmt(fs, &ip, gb.v, n, &fo, print_line, NULL);
	}
out:
	getbmap_free(&gb);
	return ret;
}

int cmd_bmap(int argc, char **argv, const struct cmd_hooks *h)
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

	(void)h;	/* the test binary's hooks touch nothing here */

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
	/* -v's FLAGS column is computed from the stripe geometry */
	if (o.vflag && bmapfmt_check(fs, &e)) {
		fs_close(fs);
		return cmd_fail(&e);
	}
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
