/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replay a request list through the emulated disk's cost model and print
 * its counters, as hddemu's stats file would after the same requests.
 *
 *   hddreplay [-v] [-p NAME=VALUE]... [FILE]
 *
 * One request a line: "r OFFSET LENGTH" or "w OFFSET LENGTH" (further
 * fields are ignored, so hddemu's trace replays as it is); "reset" makes
 * the disk cold again; blank lines and '#' comments are skipped.  -v
 * prints each request with how it was served and its charge in seconds.
 * -p sets a cost-model parameter (hdd_param_set).
 */
#include "bench/hddemu/hddcost.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: hddreplay [-v] [-p NAME=VALUE]... [FILE]\n");
	return 2;
}

static int replay(FILE *in, const char *name, struct hdd *d, int verbose)
{
	char line[512];
	unsigned long lineno = 0;

	while (fgets(line, sizeof(line), in)) {
		char op[16];
		uint64_t off, len;
		enum hdd_kind kind;
		double cost;

		lineno++;
		char *s = line + strspn(line, " \t");
		if (*s == '\n' || *s == '#' || *s == '\0')
			continue;
		if (!strncmp(s, "reset", 5)) {
			hdd_reset(d);
			continue;
		}
		if (sscanf(s, "%15s %" SCNu64 " %" SCNu64, op, &off, &len) != 3 ||
		    (strcmp(op, "r") && strcmp(op, "w")) || len == 0) {
			fprintf(stderr, "hddreplay: %s:%lu: not a request: %s",
				name, lineno, s);
			return -EINVAL;
		}
		cost = hdd_charge(d, off, len, op[0] == 'w', &kind);
		if (verbose)
			printf("%s %" PRIu64 " %" PRIu64 " %s %.9f\n", op, off,
			       len, hdd_kind_name(kind), cost);
	}
	if (ferror(in)) {
		fprintf(stderr, "hddreplay: %s: read error\n", name);
		return -EIO;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct hdd_params p;
	struct hdd d;
	char buf[1024];
	FILE *in = stdin;
	const char *name = "stdin";
	int verbose = 0, c, rc;

	hdd_params_default(&p);
	while ((c = getopt(argc, argv, "vp:h")) != -1) {
		switch (c) {
		case 'v':
			verbose = 1;
			break;
		case 'p':
			if (hdd_param_set(&p, optarg)) {
				fprintf(stderr, "hddreplay: bad parameter '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			return usage();
		}
	}
	if (argc - optind > 1)
		return usage();
	if (optind < argc) {
		name = argv[optind];
		in = fopen(name, "r");
		if (!in) {
			fprintf(stderr, "hddreplay: %s: %s\n", name, strerror(errno));
			return 1;
		}
	}
	hdd_init(&d, &p);
	rc = replay(in, name, &d, verbose);
	if (in != stdin)
		fclose(in);
	if (rc)
		return 1;
	hdd_stats_format(&d.st, buf, sizeof(buf));
	fputs(buf, stdout);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
