/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag undo [--check] [-v] FILE IMAGE: roll a relocation run back
 * from its undo file, or (--check) only verify the file and say what it
 * holds.  The journal must belong to IMAGE (uuid and geometry) and IMAGE
 * must be as the run left it (nothing written since); a damaged journal
 * or a changed filesystem writes nothing.
 */
#include "cmd/cmd.h"
#include "core/undo/chain.h"
#include "core/undo/undo.h"

#include <stddef.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

static void print_rec(void *priv, uint64_t seq, uint64_t pos, uint64_t off,
		      uint32_t len, bool torn)
{
	(void)priv;
	if (torn)
		printf("  record %" PRIu64 ": journal byte %" PRIu64 ", torn "
		       "(ignored)\n", seq, pos);
	else
		printf("  record %" PRIu64 ": journal byte %" PRIu64 ", image "
		       "byte %" PRIu64 ", %" PRIu32 " bytes\n", seq, pos, off,
		       len);
}

static void fmt_uuid(const uint8_t *u, char *out)
{
	int i;

	for (i = 0; i < 16; i++)
		out += sprintf(out, "%s%02x",
			       i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
			       u[i]);
}

static uint64_t blocks_of(const struct undo_info *in)
{
	return (in->bytes + in->blocksize - 1) / in->blocksize;
}

static void print_check(const char *file, const char *image,
			const struct undo_info *in, int verdict)
{
	char uuid[40], when[64];
	time_t t = (time_t)in->ctime;
	struct tm tm;

	fmt_uuid(in->uuid, uuid);
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	else
		snprintf(when, sizeof(when), "%" PRIu64, in->ctime);
	printf("undo file:  %s\n", file);
	printf("filesystem: %s, %" PRIu64 " blocks of %" PRIu32 " bytes\n",
	       uuid, in->dblocks, in->blocksize);
	printf("made for:   ");
	cmd_put_escaped(stdout, in->image);	/* from the file */
	printf(" (%" PRIu64 " bytes), %s\n", in->image_size, when);
	printf("records:    %" PRIu64 ", %" PRIu64 " bytes of original data "
	       "(%" PRIu64 " blocks)\n", in->records, in->bytes,
	       blocks_of(in));
	printf("version:    %" PRIu32 "\n", in->version);
	printf("state:      %s\n", in->state == UNDO_COMPLETE ?
	       "complete (the run finished)" : in->state == UNDO_SEALED ?
	       "sealed (the run wrote everything, then stopped before its "
	       "end record)" : "interrupted (no end record)");
	if (in->state != UNDO_INTERRUPTED)
		printf("proof:      %" PRIu64 " blocks as the run left them, %"
		       PRIu64 " vacated blocks held by their copies\n",
		       in->proof_blocks, in->move_blocks);
	if (in->torn_tail)
		printf("torn tail:  %" PRIu64 " record%s ignored (the run "
		       "stopped before writing what they cover)\n", in->torn,
		       in->torn == 1 ? "" : "s");
	if (in->undo_begun)
		printf("undo:       an undo of this file was interrupted; "
		       "running it again finishes it\n");
	if (verdict == 0)
		printf("matches:    %s, as the run left it; undo would "
		       "restore %" PRIu64 " blocks\n", image, blocks_of(in));
	else
		printf("matches:    no: undo refuses (%s)\n",
		       verdict == -EPROTO ? "an old file without proof" :
		       "the filesystem changed since the run");
}

/* The chain's lines (core/undo/chain.c). */
static void say_line(void *priv, bool error, const char *line)
{
	/* the first error line names the failure (its errno comes after) */
	if (error)
		cmd_failf(priv, 0, 0, "%s", line);
	else
		printf("%s\n", line);
}

static int status_of(int err)
{
	if (err == -EXDEV || err == -EBUSY || err == -EROFS ||
	    err == -ESTALE || err == -EPROTO)
		return EXIT_REFUSED;
	return cmd_exit_code(err);
}

struct undo_args {
	bool check, verbose;
};

static int undo(struct cmd_call *c)
{
	const struct undo_args *a = c->args;
	struct undo_info info = { 0 };
	struct err e = { 0 };
	struct fs *fs = NULL;
	const char *file = c->ops[0], *image = c->ops[1];
	bool check = a->check, verbose = a->verbose;
	int ret, status = EXIT_OK;
	unsigned nchain;
	char last[1100];

	/* a run in passes: FILE, FILE.2, ... (core/undo/chain.c) */
	nchain = undo_chain_len(file);
	if (nchain > 1 && !check) {
		ret = undo_chain(file, image, nchain, say_line, c);
		if (ret && !c->fail.set)
			cmd_failf(c, ret, 0, "undo of %s failed", file);
		if (ret && !c->fail.err)
			c->fail.err = ret;
		return ret ? status_of(ret) : EXIT_OK;
	}
	if (nchain > 1) {
		undo_chain_name(file, nchain, last, sizeof(last));
		printf("a run in %u passes: checking the last one's file, %s "
		       "(undo %s undoes them all, last first)\n", nchain, last,
		       file);
		file = last;
	}

	ret = undo_open_fs(file, image, check ? 0 : FS_RDWR, &fs, &e);
	if (ret < 0)
		return cmd_failf(c, ret, status_of(ret), "%s", e.msg);
	if (ret == 1)
		cmd_error("warning: %s: the primary superblock is unreadable; "
			  "using its original from %s", image, file);
	if (fs->mounted && !check) {
		status = cmd_failf(c, -EBUSY, EXIT_REFUSED, "%s is mounted%s%s; "
				   "unmount it before undo", image,
				   fs->mountpoint[0] ? " on " : "",
				   fs->mountpoint);
		goto out;
	}
	if (fs->mounted)
		cmd_error("warning: %s is mounted%s%s", image,
			  fs->mountpoint[0] ? " on " : "", fs->mountpoint);
	if (check)
		ret = undo_check_each(file, fs, &info,
				      verbose ? print_rec : NULL, NULL, &e);
	else
		ret = undo_apply(file, fs, &info, &e);
	if (check && (ret == 0 || ret == -ESTALE || ret == -EPROTO))
		print_check(file, image, &info, ret);
	if (ret) {
		status = cmd_failf(c, ret, status_of(ret), "%s", e.msg);
		goto out;
	}
	if (check)
		goto out;
	if (!info.complete)
		printf("the run had been interrupted (%s has no end record)\n",
		       file);
	if (info.torn_tail)
		printf("ignored %" PRIu64 " torn record%s at the end of %s "
		       "(the run stopped before writing what they cover)\n",
		       info.torn, info.torn == 1 ? "" : "s", file);
	if (info.copies)
		printf("copied back %" PRIu64 " block%s the run had vacated "
		       "(reused since, their copies intact)\n", info.copies,
		       info.copies == 1 ? "" : "s");
	printf("restored %" PRIu64 " blocks (%" PRIu64 " bytes) from %s; the "
	       "filesystem is as it was before the run\n", blocks_of(&info),
	       info.bytes, file);
out:
	fs_close(fs);
	return status;
}

#define U struct undo_args
static const struct opt opts[] = {
	{ .name = "check", .kind = OPT_FLAG, OPT_AT(U, check),
	  .help = "only verify the undo file and say what it holds; write "
		  "nothing" },
	{ .name = "verbose", .letter = 'v', .kind = OPT_FLAG,
	  OPT_AT(U, verbose),
	  .help = "with --check, also list every record" },
	OPT_END,
};
#undef U

const struct cmd cmd_undo = {
	.name = "undo", .fn = undo,
	.summary = "roll a relocation run back from its undo file",
	.operands = "FILE IMAGE", .min_ops = 2, .max_ops = 2, .opts = opts,
	.args_size = sizeof(struct undo_args),
};
