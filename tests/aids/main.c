/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag-test: the product's commands, built from the same objects,
 * plus the test aids: options before the command that reach into the
 * commands through their hooks (the reader's mechanism, check's modes,
 * step timings, faults in run's writes, the map bench instead of the
 * browser), and commands of its own (debug-*).  Built by make check,
 * never installed; tests/aids/README.md documents it.
 */
#include "tests/aids/aids.h"
#include "core/base/reader.h"
#include "core/check/check.h"
#include "core/run/run.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* their options are their own: opts NULL, argv passed whole */
static const struct cmd scribble = {
	.name = "debug-scribble", .fn = aid_scribble,
	.summary = "the undo journal's stand-in for a run (destroys IMAGE)",
	.operands = "[--fault N] [--seed S] [--free-writes N] [--plan FILE] "
		    "[--keep-sb] [--no-finish] JOURNAL IMAGE [PATH...] | "
		    "--junk-free IMAGE | --compare A B [PLAN]",
};
static const struct cmd compare = {
	.name = "debug-compare", .fn = aid_compare,
	.summary = "is every block in use in ORIG identical in OTHER?",
	.operands = "ORIG OTHER",
};
static const struct cmd inoruns = {
	.name = "debug-inoruns", .fn = aid_inoruns,
	.summary = "the byte ranges the scan (or check, --dirs) reads",
	.operands = "[--gap BYTES] [--dirs] [--partition N] IMAGE",
};
static const struct cmd *const aids[] = {
	&scribble, &compare, &inoruns, NULL,
};

struct aid_opts {
	struct img_bulk reader;
	bool have_reader, timing;
	struct check_opts check;	/* only its modes */
	struct run_fault fault;
	long bench;			/* --bench-map N; 0: none */
};

int aid_usage(const char *name)
{
	const struct cmd *const *c;

	for (c = aids; *c; c++)
		if (strcmp((*c)->name, name) == 0)
			fprintf(stderr, "usage: xfsdefrag-test %s %s\n",
				(*c)->name, (*c)->operands);
	return EXIT_USAGE;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: xfsdefrag-test [TEST OPTIONS] COMMAND [ARGS...]\n"
"The product's commands and the test aids (tests/aids/README.md).\n"
"Test options, before the command:\n"
"  --reader HOW[:DEPTH[:KIB[:KIB]]]  how scans read inode chunks: HOW is\n"
"                        auto, sync, fadvise, thread, uring or mmap; then\n"
"                        requests in flight, request size, longest hole\n"
"  --check-mode MODE     check's inodes phase: reread (every chunk again),\n"
"                        keep=BYTES (at most so many inode bytes kept),\n"
"                        defer (every entry judged after the inodes phase)\n"
"  --timing              report, check: each step's time on stderr\n"
"  --fault-after N       run: after N image writes, exit 75 as a crash would\n"
"  --fault-error N       run: fail image write N+1 with EIO\n"
"  --fault-dead N        run: fail write N+1 and every later one\n"
"  --fault-pass P        the pass of a run in passes those count in (1)\n"
"  --no-room-check       run: skip the undo file's room check\n"
"  --inode-window BYTES  run: moved inodes' bytes the inodes phase holds\n"
"                        at once (the least: one block of them)\n"
"  --bench-map N         tui: time N map redraws, no terminal needed\n"
"Then a command: 'xfsdefrag-test --help-commands' lists them.\n");
}

/* --reader how[:depth[:req_kib[:gap_kib]]]; false if malformed. */
static bool parse_reader(const char *s, struct img_bulk *b)
{
	char name[16];
	size_t n = strcspn(s, ":");
	unsigned long v[3] = { 0, 0, 0 };
	int how, k;

	if (n >= sizeof(name))
		return false;
	memcpy(name, s, n);
	name[n] = 0;
	how = rdr_how_parse(name);
	if (how < 0)
		return false;
	s += n;
	for (k = 0; k < 3 && *s == ':'; k++) {
		char *end;

		v[k] = strtoul(s + 1, &end, 10);
		if (end == s + 1 || v[k] > (k ? 1u << 20 : 256u))
			return false;
		s = end;
	}
	if (*s)
		return false;
	b->how = how;
	b->depth = (unsigned)v[0];
	b->max_req = (uint32_t)(v[1] << 10);
	b->max_gap = (uint32_t)(v[2] << 10);
	return true;
}

static bool parse_check_mode(const char *s, struct check_opts *co)
{
	char *end;

	if (strcmp(s, "reread") == 0) {
		co->reread = true;
		return true;
	}
	if (strcmp(s, "defer") == 0) {
		co->defer = true;
		return true;
	}
	if (strncmp(s, "keep=", 5) || s[5] < '0' || s[5] > '9')
		return false;
	errno = 0;
	co->keep = strtoull(s + 5, &end, 10);
	return !errno && !*end && co->keep;
}

static bool parse_count(const char *s, long min, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return !errno && end != s && !*end && *out >= min;
}

static void hook_scan(void *priv, struct fs *fs)
{
	struct aid_opts *a = priv;

	if (a->have_reader)
		img_set_bulk(fs->img, &a->reader);
}

static void hook_check(void *priv, struct check_opts *co)
{
	const struct aid_opts *a = priv;

	co->reread = a->check.reread;
	co->keep = a->check.keep;
	co->defer = a->check.defer;
}

static void hook_timing(void *priv, const char *step, double ms)
{
	(void)priv;
	fprintf(stderr, "timing: %-10s %8.1f ms\n", step, ms);
}

static int hook_tui(void *priv, struct tui *t, const char *path)
{
	const struct aid_opts *a = priv;

	return aid_benchmap(t, path, (unsigned)a->bench);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "reader", required_argument, NULL, 'r' },
		{ "check-mode", required_argument, NULL, 'c' },
		{ "timing", no_argument, NULL, 't' },
		{ "fault-after", required_argument, NULL, 'F' },
		{ "fault-error", required_argument, NULL, 'E' },
		{ "fault-dead", required_argument, NULL, 'D' },
		{ "fault-pass", required_argument, NULL, 'P' },
		{ "inode-window", required_argument, NULL, 'W' },
		{ "no-room-check", no_argument, NULL, 'R' },
		{ "bench-map", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ "help-commands", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	struct aid_opts a = { .fault = { .after = -1, .pass = 1 } };
	struct cmd_hooks h = { .priv = &a };
	long v;
	int opt, li = 0;

	while ((opt = getopt_long(argc, argv, "+", longopts, &li)) != -1) {
		switch (opt) {
		case 'r':
			if (!parse_reader(optarg, &a.reader))
				goto bad;
			a.have_reader = true;
			h.scan = hook_scan;
			break;
		case 'c':
			if (!parse_check_mode(optarg, &a.check))
				goto bad;
			h.check = hook_check;
			break;
		case 't':
			h.timing = hook_timing;
			break;
		case 'F':
		case 'E':
		case 'D':
			if (!parse_count(optarg, 0, &a.fault.after))
				goto bad;
			a.fault.err = opt == 'F' ? 0 : -EIO;
			a.fault.sticky = opt == 'D';
			h.fault = &a.fault;
			break;
		case 'P':
			if (!parse_count(optarg, 1, &v))
				goto bad;
			a.fault.pass = (unsigned)v;
			break;
		case 'W':
			if (!parse_count(optarg, 1, &v))
				goto bad;
			a.fault.inode_window = (size_t)v;
			h.fault = &a.fault;
			break;
		case 'R':
			a.fault.no_room_check = true;
			h.fault = &a.fault;
			break;
		case 'B':
			if (!parse_count(optarg, 1, &a.bench) ||
			    a.bench > 1000000)
				goto bad;
			h.tui = hook_tui;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'H': {
			char *av[] = { argv[0], "--help", NULL };

			return cmd_main(2, av, aids, &h);
		}
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	/* argv[optind - 1] stands in for the program's name */
	return cmd_main(argc - optind + 1, argv + optind - 1, aids, &h);
bad:
	fprintf(stderr, "xfsdefrag-test: --%s: bad value '%s'\n",
		longopts[li].name, optarg);
	usage(stderr);
	return EXIT_USAGE;
}
