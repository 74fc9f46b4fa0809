/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag undo [--check] [-v] [--to-pass N] FILE IMAGE: roll a
 * relocation run back from its undo file (a run in passes: FILE, FILE.2,
 * ..., all of them, last first), or (--check) only verify the files and
 * say what they hold.  The files must belong to IMAGE (uuid and
 * geometry) and hold together, and IMAGE must be as the run left it
 * (nothing written since); a damaged file or a changed filesystem
 * writes nothing (core/undo/chain.h).
 */
#include "cmd/cmd.h"
#include "core/undo/chain.h"
#include "core/undo/undo.h"

#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
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

/* Blocks undo restores: its data records' and its references'. */
static uint64_t blocks_of(const struct undo_info *in)
{
	return (in->blocksize ? (in->bytes + in->blocksize - 1) /
		in->blocksize : 0) + in->ref_blocks;
}

static const char *state_of(const struct undo_info *in)
{
	return in->state == UNDO_COMPLETE ? "complete (the run finished)" :
	       in->state == UNDO_SEALED ? "sealed (the run wrote everything, "
	       "then stopped before its end record)" :
	       "interrupted (no end record)";
}

static const char *found_of(enum undo_found f)
{
	switch (f) {
	case UNDO_FOUND_END: return "as the pass left it: to undo";
	case UNDO_FOUND_START: return "as before the pass: nothing to undo";
	case UNDO_FOUND_MIDWAY: return "an undo of it was interrupted: to "
				       "finish";
	case UNDO_FOUND_RUN: return "the pass was interrupted: to undo";
	case UNDO_FOUND_DONE: return "undone already (by an interrupted "
				     "undo)";
	default: return "not checked";
	}
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
	       blocks_of(in) - in->ref_blocks);
	if (in->ref_blocks)
		printf("references: %" PRIu64 " blocks whose originals are at "
		       "copies the run made (%" PRIu64 " bytes of records)\n",
		       in->ref_blocks, in->ref_bytes);
	printf("version:    %" PRIu32 "\n", in->version);
	printf("state:      %s\n", state_of(in));
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
	if (verdict == 0 && in->found == UNDO_FOUND_START)
		printf("matches:    %s, as it was before the run: nothing to "
		       "undo\n", image);
	else if (verdict == 0)
		printf("matches:    %s, as the run left it; undo would "
		       "restore %" PRIu64 " blocks\n", image, blocks_of(in));
	else
		printf("matches:    no: undo refuses (%s)\n",
		       verdict == -EPROTO ? "an old file without proof" :
		       "the filesystem changed since the run");
}

/* --check of a run in passes: a line per pass, then the verdict. */
static void print_chain(const char *file, const char *image,
			const struct undo_chain_result *r, int verdict)
{
	unsigned k;

	printf("undo files: %s, a run in %u passes (%s.2 to %s.%u)\n", file,
	       r->npass, file, file, r->npass);
	for (k = 1; k <= r->npass; k++) {
		const struct undo_info *in = &r->info[k];

		if (!in->present) {
			printf("pass %u:     missing\n", k);
			continue;
		}
		if (!in->version) {
			printf("pass %u:     unreadable\n", k);
			continue;
		}
		printf("pass %u:     %s, %" PRIu64 " blocks, %s%s\n", k,
		       in->state == UNDO_COMPLETE ? "complete" :
		       in->state == UNDO_SEALED ? "sealed" : "interrupted",
		       blocks_of(in), found_of(in->found),
		       in->torn_tail ? " (torn tail ignored)" : "");
	}
	if (verdict)
		printf("matches:    no: undo refuses (see below)\n");
	else if (r->outcome == UNDO_NOTHING)
		printf("matches:    %s is as %s: nothing to undo\n", image,
		       r->stop ? "that pass left it" : "it was before the "
		       "run");
	else
		printf("matches:    %s, as pass %u left it%s; undo would restore "
		       "passes %u to %u\n", image, r->top, r->resumed ?
		       " (an undo of it had begun)" : "", r->top,
		       r->stop + 1);
}

/* The chain's lines (core/undo/chain.c). */
static void say_line(void *priv, bool error, const char *line)
{
	/* the first error line names the failure (its errno comes after) */
	if (error)
		cmd_failf(priv, 0, 0, "%s", line);
	else
		printf("%s\n", line);
	fflush(stdout);
}

static int status_of(int err)
{
	if (err == -EXDEV || err == -EBUSY || err == -EROFS ||
	    err == -ESTALE || err == -EPROTO)
		return EXIT_REFUSED;
	if (err == -EINVAL)
		return EXIT_USAGE;
	return cmd_exit_code(err);
}

/* What a finished undo says. */
static void print_done(const char *file, const struct undo_chain_result *r)
{
	const struct undo_info *in = &r->info[1];

	if (r->npass == 1) {
		if (r->outcome == UNDO_NOTHING) {
			printf("nothing to undo: every block %s holds is as it "
			       "was before the run (the run had not written, or "
			       "an undo of it finished)\n", file);
			return;
		}
		if (!in->complete)
			printf("the run had been interrupted (%s has no end "
			       "record)\n", file);
		if (in->torn_tail)
			printf("ignored %" PRIu64 " torn record%s at the end of "
			       "%s (the run stopped before writing what they "
			       "cover)\n", in->torn, in->torn == 1 ? "" : "s",
			       file);
		if (r->copies)
			printf("copied back %" PRIu64 " block%s the run had "
			       "vacated (reused since, their copies intact)\n",
			       r->copies, r->copies == 1 ? "" : "s");
		if (in->pass > 1)
			printf("restored %" PRIu64 " blocks (%" PRIu64 " bytes) "
			       "from %s; the filesystem is as it was before "
			       "pass %u (as pass %u left it)\n", r->blocks,
			       r->bytes, file, in->pass, in->pass - 1);
		else
			printf("restored %" PRIu64 " blocks (%" PRIu64 " bytes) "
			       "from %s; the filesystem is as it was before the "
			       "run\n", r->blocks, r->bytes, file);
		return;
	}
	if (r->outcome == UNDO_NOTHING && !r->stop) {
		printf("nothing to undo: the filesystem is as it was before "
		       "the run (every block its %u undo files hold is)\n",
		       r->npass);
		return;
	}
	if (r->outcome == UNDO_NOTHING) {
		printf("nothing to undo: the filesystem is as pass %u left "
		       "it\n", r->stop);
		return;
	}
	if (r->copies)
		printf("copied back %" PRIu64 " block%s the run had vacated "
		       "(reused since, their copies intact)\n", r->copies,
		       r->copies == 1 ? "" : "s");
	if (r->stop)
		printf("restored %" PRIu64 " blocks from the undo files of "
		       "passes %u to %u; the filesystem is as pass %u left it "
		       "(those files are removed)\n", r->blocks, r->stop + 1,
		       r->top, r->stop);
	else
		printf("restored %" PRIu64 " blocks from %u undo files; the "
		       "filesystem is as it was before the run%s\n", r->blocks,
		       r->top, r->resumed ? " (an interrupted undo is "
		       "finished)" : "");
}

struct undo_args {
	bool check, verbose;
	uint32_t to_pass;
	unsigned partition;
};

static int undo(struct cmd_call *c)
{
	const struct undo_args *a = c->args;
	struct undo_chain_opts o = { 0 };
	struct undo_chain_result r = { 0 };
	struct err e = { 0 };
	struct fs *fs = NULL;
	const char *file = c->ops[0], *image = c->ops[1];
	int ret, status = EXIT_OK;

	o.check = a->check;
	o.to_pass = a->to_pass;
	o.say = say_line;
	o.priv = c;
	if (a->verbose && o.check)
		o.each = print_rec;

	ret = undo_open_fs(file, image, FS_PART(a->partition) |
			   (o.check ? 0 : FS_RDWR), &fs, &e);
	if (ret < 0)
		return cmd_failf(c, ret, status_of(ret), "%s", e.msg);
	if (ret == 1)
		cmd_error("warning: %s: the primary superblock is unreadable; "
			  "using its original from %s", image, file);
	if (fs->mounted && !o.check) {
		status = cmd_failf(c, -EBUSY, EXIT_REFUSED, "%s is mounted%s%s; "
				   "unmount it before undo", image,
				   fs->mountpoint[0] ? " on " : "",
				   fs->mountpoint);
		goto out;
	}
	if (fs->mounted)
		cmd_error("warning: %s is mounted%s%s", image,
			  fs->mountpoint[0] ? " on " : "", fs->mountpoint);
	ret = undo_chain_undo(file, fs, &o, &r, &e);
	if (o.check && r.info && r.npass == 1 && r.info[1].version &&
	    (ret == 0 || ret == -ESTALE || ret == -EPROTO))
		print_check(file, image, &r.info[1], ret);
	else if (o.check && r.info && r.npass > 1)
		print_chain(file, image, &r, ret);
	if (ret) {
		char part[32] = "";

		status = cmd_failf(c, ret, status_of(ret), "%s", e.msg);
		if (a->partition)
			snprintf(part, sizeof(part), "--partition %u ",
				 a->partition);
		if (r.can_to && r.can_to + 1 == r.top)
			cmd_error("pass %u can still be undone, leaving %s as "
				  "pass %u left it: xfsdefrag undo %s--to-pass "
				  "%u %s %s", r.top, image, r.can_to, part,
				  r.can_to, file, image);
		else if (r.can_to)
			cmd_error("passes %u to %u can still be undone, leaving "
				  "%s as pass %u left it: xfsdefrag undo "
				  "%s--to-pass %u %s %s", r.can_to + 1, r.top,
				  image, r.can_to, part, r.can_to, file, image);
		goto out;
	}
	if (!o.check)
		print_done(file, &r);
out:
	undo_chain_result_free(&r);
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
	{ .name = "to-pass", .kind = OPT_UINT, .arg = "N", .min = 1,
	  .max = 4294967295.0, OPT_AT(U, to_pass),
	  .help = "of a run in passes, undo the passes after N only: the "
		  "filesystem as pass N left it", .dflt = "as before the run" },
	CMD_PART_OPT(U, partition),
	OPT_END,
};
#undef U

const struct cmd cmd_undo = {
	.name = "undo", .fn = undo,
	.summary = "roll a relocation run back from its undo file",
	.operands = "FILE IMAGE", .min_ops = 2, .max_ops = 2, .opts = opts,
	.args_size = sizeof(struct undo_args),
};
