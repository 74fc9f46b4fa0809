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

#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct bmap_opts {
	bool aflag, lflag, pflag, iflag, stats;
	unsigned vflag;
	uint32_t nflag;		/* rows at most; 0: all */
	unsigned partition;
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
					   o->vflag > 2 ? 2 : (int)o->vflag };

		bmapfmt(fs, &ip, gb.v, n, &fo, print_line, NULL);
	}
out:
	getbmap_free(&gb);
	return ret;
}

static int bmap(struct cmd_call *c)
{
	const struct bmap_opts *o = c->args;
	struct path_stats st = { 0 };
	struct err e = { 0 };
	struct fs *fs = NULL;
	int i, worst = EXIT_OK;

	if (cmd_open_ro(c->ops[0], FS_PART(o->partition), &fs, &e))
		return cmd_fail(c, &e);
	/* -v's FLAGS column is computed from the stripe geometry */
	if (o->vflag && bmapfmt_check(fs, &e)) {
		fs_close(fs);
		return cmd_fail(c, &e);
	}
	for (i = 1; i < c->nops; i++) {
		err_clear(&e);
		if (bmap_one(fs, c->ops[i], o, &st, &e)) {
			int code;

			fflush(stdout);
			code = cmd_fail(c, &e);
			if (code > worst)
				worst = code;
		}
	}
	if (o->stats)
		fprintf(stderr, "%s: %u lookups read %llu directory blocks\n",
			progname, st.lookups,
			(unsigned long long)st.dirblocks_read);
	fs_close(fs);
	return worst;
}

#define B struct bmap_opts
static const struct opt opts[] = {
	{ .letter = 'a', .kind = OPT_FLAG, OPT_AT(B, aflag),
	  .help = "map the attribute fork instead of the data fork" },
	{ .letter = 'l', .kind = OPT_FLAG, OPT_AT(B, lflag),
	  .help = "also print each extent's length in blocks (without -v)" },
	{ .letter = 'p', .kind = OPT_FLAG, OPT_AT(B, pflag),
	  .help = "report unwritten (preallocated) extents as such" },
	{ .letter = 'v', .kind = OPT_COUNT, OPT_AT(B, vflag),
	  .help = "a table with AG, offsets and flags; twice: the flags' "
		  "legend" },
	{ .letter = 'n', .kind = OPT_UINT, .arg = "N", .min = 0,
	  .max = 2147483647, OPT_AT(B, nflag),
	  .help = "print at most N rows", .dflt = "0: all" },
	{ .letter = 'i', .kind = OPT_FLAG, OPT_AT(B, iflag),
	  .help = "the arguments after IMAGE are inode numbers" },
	{ .name = "stats", .kind = OPT_FLAG, OPT_AT(B, stats),
	  .help = "how many directory blocks the lookups read (stderr)" },
	CMD_PART_OPT(B, partition),
	OPT_END,
};
#undef B

const struct cmd cmd_bmap = {
	.name = "bmap", .fn = bmap,
	.summary = "list a file's extents exactly as xfs_bmap does",
	.operands = "IMAGE PATH...", .min_ops = 2, .max_ops = -1,
	.opts = opts, .args_size = sizeof(struct bmap_opts),
};
