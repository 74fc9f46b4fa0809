/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The image I/O manager: every byte read from or written to the
 * filesystem goes through one of these, so journaling, fault injection
 * and the read-only switch live in one place (cf. e2fsprogs io_manager).
 * Layers stack: an undo or fault layer wraps a lower img.
 */
#ifndef CORE_IMG_H
#define CORE_IMG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct img;

struct img_ops {
	const char *name;
	/* Whole-buffer transfers; 0 or negative errno. */
	int (*pread)(struct img *im, void *buf, size_t len, uint64_t off);
	int (*pwrite)(struct img *im, const void *buf, size_t len,
		      uint64_t off);
	int (*flush)(struct img *im);
	void (*close)(struct img *im);
};

struct img {
	const struct img_ops *ops;
	void *priv;
	uint64_t size;		/* bytes */
	bool writable;
	struct img *lower;	/* next layer down, or NULL */
};

#define IMG_RDWR	0x1	/* open for writing (O_EXCL on block devices) */

/* Open a file or block device. */
int img_open_file(const char *path, unsigned flags, struct img **out);
/* Wrap a caller-owned buffer (tests, fuzzing); read-only unless IMG_RDWR. */
int img_open_mem(void *buf, size_t len, unsigned flags, struct img **out);

/*
 * Reads past the end of the image fail with -ENXIO (a truncated image);
 * writes on a read-only img fail with -EROFS.
 */
int img_pread(struct img *im, void *buf, size_t len, uint64_t off);
int img_pwrite(struct img *im, const void *buf, size_t len, uint64_t off);
int img_flush(struct img *im);
/* Close this layer and every layer below it. */
void img_close(struct img *im);

/*
 * Fault injection for tests: stack a layer on im that lets n writes
 * through and then ends the process at once with exit status 75, as a
 * crash would (no cleanup, no further writes).  n < 0: no limit.
 */
int img_push_fault(struct img **im, long n);

#endif
