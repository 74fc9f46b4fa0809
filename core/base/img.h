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

#include "core/base/err.h"

struct img;

struct img_ops {
	const char *name;
	/* Whole-buffer transfers; 0 or negative errno. */
	int (*pread)(struct img *im, void *buf, size_t len, uint64_t off);
	int (*pwrite)(struct img *im, const void *buf, size_t len,
		      uint64_t off);
	int (*flush)(struct img *im);
	void (*close)(struct img *im);
	/* reads go to the layer below unchanged (bulk readers may bypass) */
	bool pass_reads;
};

struct img {
	const struct img_ops *ops;
	void *priv;
	uint64_t size;		/* bytes */
	bool writable;
	struct img *lower;	/* next layer down, or NULL */
};

#define IMG_RDWR	0x1	/* open for writing: the only writer (excl.h) */

/*
 * Open a file or block device; e says why not.  With IMG_RDWR it refuses
 * a read-only target (-EROFS) and one another writer can reach (-EBUSY:
 * mounted, opened exclusively, reachable by another path, open for
 * writing elsewhere, locked by another xfsdefrag), and holds the writer's
 * lock until img_close.
 */
int img_open_file(const char *path, unsigned flags, struct img **out,
		  struct err *e);
/*
 * The same for the len bytes at off of the file or device (a partition
 * of a whole disk): offset 0 of the img is byte off.  len 0: all of it.
 * A writer excludes only writers whose bytes overlap these (excl.h).
 */
int img_open_range(const char *path, unsigned flags, uint64_t off,
		   uint64_t len, struct img **out, struct err *e);
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
 * A view of im that does not own it (closing the view leaves im open):
 * a second filesystem over the same open image, with the writer's lock
 * still held once.  Writable only if im is and writable is set.
 */
int img_borrow(struct img *im, bool writable, struct img **out);
/*
 * Look again, through every layer and view, for another process with the
 * file or device under im open for writing (excl_recheck); 0 when none,
 * or when im holds no writer's lock.
 */
int img_recheck_writers(const struct img *im, struct err *e);

/*
 * What bulk readers (core/base/reader.h) read with: the descriptors of
 * the file layer under im, when every layer above it passes reads
 * through unchanged, and where the image starts in them (base: a
 * partition of a whole-disk image).  dfd is the O_DIRECT descriptor (-1 unless
 * img_set_direct succeeded), dalign its offset, length and memory
 * alignment; direct_always says every bulk read takes it, else only
 * those after the first that the page cache could not serve.  The
 * tuning is the front end's (0: the reader's defaults).
 */
struct img_bulk {
	int how;		/* enum rdr_how */
	unsigned depth;		/* requests in flight */
	uint32_t max_req;	/* bytes per request */
	uint32_t max_gap;	/* holes read through */
};

struct img_raw {
	int fd, dfd;
	uint64_t base;		/* image offset 0 is this byte of fd and dfd */
	unsigned dalign;
	bool direct_always;
	struct img_bulk bulk;
};

/* 0 and *out filled, or -EOPNOTSUPP (memory images, other layers). */
int img_raw(const struct img *im, struct img_raw *out);
/*
 * Open a second descriptor with O_DIRECT for bulk reads.  always: every
 * bulk read takes it, and scans never fill the page cache; else a scan
 * copies from the cache while the cache holds what it reads, and reads
 * the rest from the device directly.  0, or negative errno when the
 * file or device does not take direct I/O (the scan then reads through
 * the page cache).
 */
int img_set_direct(struct img *im, bool always);
void img_set_bulk(struct img *im, const struct img_bulk *b);
/*
 * A hint that [off, off + len) will be read soon: the kernel starts
 * reading it into the page cache (posix_fadvise WILLNEED).  No effect
 * on images without a file layer, nor outside the image.
 */
void img_willneed(struct img *im, uint64_t off, uint64_t len);
/*
 * Holes of a sparse image file (SEEK_DATA, SEEK_HOLE), which read as
 * zeros: the first byte at or after off that may hold data (the size if
 * none does), and the first byte at or after off of a hole (the size if
 * there is none).  Images that cannot tell (memory images, layers that
 * change reads, devices) hold data everywhere.
 */
uint64_t img_next_data(struct img *im, uint64_t off);
uint64_t img_next_hole(struct img *im, uint64_t off);

/*
 * The file or block device under im (through every layer and view):
 * fstat of it; -EOPNOTSUPP for memory images.
 */
struct stat;
int img_stat(const struct img *im, struct stat *st);
/*
 * Cut or extend the regular file under im to size bytes (ftruncate; an
 * extension reads as zeros), and set the size of every layer down to
 * it: -ENOTTY for a block device (its size is the device's) and for a
 * partition (img_open_range: its size is the partition table's),
 * -EOPNOTSUPP for memory images, -EROFS when im is read-only.
 */
int img_resize(struct img *im, uint64_t size);
/*
 * An image file shorter than size (an undo of a shrink: the run cut it
 * short): im and every layer under it read size bytes, the bytes past
 * the file's end as zeros, and writes there extend the file.  No effect
 * on devices, partitions, or when the file is that long.
 */
void img_zero_past_eof(struct img *im, uint64_t size);
/*
 * Give [off, off + len) back to the storage: on an image file a hole is
 * punched (the file keeps its size), on a block device BLKDISCARD.
 * The bytes read as zeros afterwards, or (a device) as whatever it
 * returns for discarded blocks.  Not journaled: free space only.
 */
int img_discard(struct img *im, uint64_t off, uint64_t len);

/*
 * Fault injection for tests: stack a layer on im that lets n writes
 * through, then (err == 0) ends the process at once with exit status 75,
 * as a crash would (no cleanup, no further writes), or (err < 0) fails
 * the next write with err: only that one, or with sticky every write
 * after it too (a device that died).  n < 0: no limit.
 */
int img_push_fault(struct img **im, long n, int err, bool sticky);

#endif
