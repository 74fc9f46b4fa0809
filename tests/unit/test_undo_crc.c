/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The crc of a byte range that the undo file keeps for the log:
 * od_crc32c_zeros against od_crc32c over a buffer of zeros (lengths 0 to
 * past a MiB, several seeds), and undo_crc_range over a sparse image file
 * (data islands at unaligned places, holes between, at the start and at
 * the end) against the same bytes as a memory image, over many ranges,
 * and against the holes being filled in with written zeros.
 */
#include "t.h"
#include "core/base/img.h"
#include "core/undo/undo.h"
#include "ondisk/crc32c.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE	(8u << 20)

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void zeros(struct t_state *ts)
{
	static const uint64_t lens[] = { 0, 1, 2, 3, 7, 8, 9, 63, 64, 65,
					 511, 512, 4096, 65537, 1048576,
					 1048576 + 3 };
	uint8_t *z = calloc(1, 1048576 + 3);
	uint32_t seeds[] = { 0, 0xffffffffu, 0x12345678u };
	size_t i, k;

	T_CHECK(ts, z != NULL);
	for (i = 0; z && i < sizeof(lens) / sizeof(lens[0]); i++)
		for (k = 0; k < 3; k++)
			T_CHECK(ts, od_crc32c_zeros(seeds[k], lens[i]) ==
				    od_crc32c(seeds[k], z, (size_t)lens[i]));
	free(z);
}

int main(void)
{
	struct t_state ts = { 0 };
	char path[] = "/tmp/test_undo_crc.XXXXXX";
	uint8_t *mem = calloc(1, SIZE);
	struct img *fim = NULL, *mim = NULL, *full = NULL;
	struct err e = { 0 };
	uint64_t seed = 0x2545f4914f6cdd1dull;
	int fd = mkstemp(path), i, bad = 0;

	zeros(&ts);
	T_CHECK(&ts, fd >= 0 && mem != NULL);
	if (fd < 0 || !mem)
		return t_done(&ts, "test_undo_crc");
	/* islands of data; everything else a hole, the last MiB too */
	for (i = 0; i < 12; i++) {
		uint64_t at = rnd(&seed) % (SIZE - (2u << 20)), n =
			1 + rnd(&seed) % 300000, k;

		for (k = 0; k < n; k++)
			mem[at + k] = (uint8_t)rnd(&seed) | 1;
		T_CHECK(&ts, pwrite(fd, mem + at, n, (off_t)at) == (ssize_t)n);
	}
	T_CHECK(&ts, ftruncate(fd, SIZE) == 0);
	close(fd);
	T_CHECK(&ts, img_open_file(path, 0, &fim, &e) == 0);
	T_CHECK(&ts, img_open_mem(mem, SIZE, 0, &mim) == 0);
	if (!fim || !mim)
		return t_done(&ts, "test_undo_crc");
	/* the file has holes to skip, or this proves nothing */
	T_CHECK(&ts, img_next_data(fim, 0) > 0 ||
		     img_next_hole(fim, 0) < SIZE);
	T_CHECK(&ts, img_next_data(mim, 5) == 5);
	for (i = 0; i < 300; i++) {
		uint64_t off = i == 0 ? 0 : rnd(&seed) % SIZE, len;
		uint32_t a = 1, b = 2;

		len = i == 0 ? SIZE : rnd(&seed) % (SIZE - off + 1);
		if (undo_crc_range(fim, off, len, &a) ||
		    undo_crc_range(mim, off, len, &b) || a != b)
			bad++;
	}
	T_CHECK(&ts, bad == 0);
	img_close(fim);
	/* the same file with its holes written as zeros: the same crc */
	fd = open(path, O_WRONLY);
	T_CHECK(&ts, fd >= 0 && pwrite(fd, mem, SIZE, 0) == (ssize_t)SIZE);
	if (fd >= 0)
		close(fd);
	T_CHECK(&ts, img_open_file(path, 0, &full, &e) == 0);
	if (full) {
		uint32_t a = 1, b = 2;

		T_CHECK(&ts, img_next_data(full, 0) == 0 &&
			     img_next_hole(full, 0) == SIZE);
		T_CHECK(&ts, undo_crc_range(full, 0, SIZE, &a) == 0 &&
			     undo_crc_range(mim, 0, SIZE, &b) == 0 && a == b);
		img_close(full);
	}
	img_close(mim);
	unlink(path);
	free(mem);
	return t_done(&ts, "test_undo_crc");
}
