// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replay fuzz inputs through fuzz_open.c's entry point without libFuzzer
 * (any C compiler; make check runs it, under ASan/UBSan too).  Each
 * argument is an input file or a directory of them; with none, the
 * regression inputs and the seeds (tests/fuzz/regress, tests/fuzz/seeds,
 * relative to the top of the tree).  The base images are loaded as the
 * fuzzer loads them ($XFSDEFRAG_FUZZ_BASE, default build/fuzz/base;
 * tests/fuzz/mkbase.sh makes them).  Any crash, leak or missing error
 * message aborts, as it does under the fuzzer; else exit 0 and one line.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX	4096	/* inputs are at most 2 + 8 * 256 bytes */

static int replay_file(const char *path, unsigned *n)
{
	static uint8_t buf[REPLAY_MAX];
	size_t len;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	(*n)++;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's regular files, in name order. */
static int replay_dir(const char *dir, unsigned *n)
{
	char **names = NULL, path[4096];
	size_t count = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	int ret = 0;
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "replay: cannot read %s\n", dir);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (count == cap) {
			char **v = realloc(names, (cap = cap ? 2 * cap : 16) *
					   sizeof(*v));

			if (!v) {
				ret = -1;
				break;
			}
			names = v;
		}
		names[count] = strdup(de->d_name);
		if (!names[count]) {
			ret = -1;
			break;
		}
		count++;
	}
	closedir(d);
	if (count)
		qsort(names, count, sizeof(*names), cmp_name);
	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!ret && stat(path, &st) == 0 && S_ISREG(st.st_mode))
			ret = replay_file(path, n);
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	static char *defaults[] = { "tests/fuzz/regress", "tests/fuzz/seeds" };
	char **paths = argv + 1;
	int npaths = argc - 1, i;
	unsigned n = 0;
	struct stat st;

	LLVMFuzzerInitialize(&argc, &argv);
	if (npaths == 0) {
		paths = defaults;
		npaths = 2;
	}
	for (i = 0; i < npaths; i++) {
		int ret = stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode) ?
			  replay_dir(paths[i], &n) : replay_file(paths[i], &n);

		if (ret)
			return 1;
	}
	if (n == 0) {
		fprintf(stderr, "replay: no inputs\n");
		return 1;
	}
	printf("fuzz_replay: %u inputs replayed\n", n);
	return 0;
}
