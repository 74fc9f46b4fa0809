/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/img.h"
#include "core/base/excl.h"
#include "core/base/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include <stdio.h>

struct file_priv {
	int fd;
	uint64_t base;		/* the image's first byte in the file */
	bool ranged;		/* a partition: the file is not ours to size */
	bool zero_past_eof;	/* reads past the file's end give zeros */
	struct excl *excl;	/* the writer's lock, NULL when read-only */
	int dfd;		/* O_DIRECT, for bulk reads; -1 if none */
	unsigned dalign;
	bool direct_always;	/* else dfd only once the cache misses */
	struct img_bulk bulk;
};

static int file_pread(struct img *im, void *buf, size_t len, uint64_t off)
{
	struct file_priv *fp = im->priv;
	uint8_t *p = buf;

	off += fp->base;
	while (len) {
		ssize_t n = pread(fp->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0 && fp->zero_past_eof) {
			memset(p, 0, len);
			return 0;
		}
		if (n == 0)
			return -ENXIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int file_pwrite(struct img *im, const void *buf, size_t len,
		       uint64_t off)
{
	struct file_priv *fp = im->priv;
	const uint8_t *p = buf;

	off += fp->base;
	while (len) {
		ssize_t n = pwrite(fp->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int file_flush(struct img *im)
{
	struct file_priv *fp = im->priv;

	return fsync(fp->fd) ? -errno : 0;
}

static void file_close(struct img *im)
{
	struct file_priv *fp = im->priv;

	if (fp->dfd >= 0)
		close(fp->dfd);
	close(fp->fd);
	excl_release(fp->excl);
	free(fp);
}

static const struct img_ops file_ops = {
	.name = "file",
	.pread = file_pread,
	.pwrite = file_pwrite,
	.flush = file_flush,
	.close = file_close,
};

/*
 * O_EXCL refused a block device: name its mount point when it has one
 * (/proc/self/mountinfo), else say what else holds a device so.
 */
static int busy(const char *path, const struct stat *st, struct err *e)
{
	char mnt[512];

	if (probe_dev_mounted(st->st_rdev, mnt, sizeof(mnt)))
		return err_set(e, -EBUSY, "refusing to write: %s is mounted"
			       "%s%s; unmount it first", path,
			       mnt[0] ? " on " : "", mnt);
	return err_set(e, -EBUSY, "refusing to write: %s is busy: another "
		       "program has it open exclusively (a mount, a swap "
		       "area, a device-mapper or md device, a partition of "
		       "it in use)", path);
}

int img_open_file(const char *path, unsigned flags, struct img **out,
		  struct err *e)
{
	return img_open_range(path, flags, 0, 0, out, e);
}

int img_open_range(const char *path, unsigned flags, uint64_t off,
		   uint64_t len, struct img **out, struct err *e)
{
	bool rdwr = (flags & IMG_RDWR) != 0;
	struct file_priv *fp = NULL;
	struct img *im = NULL;
	struct stat st;
	int fd = -1, ret;

	*out = NULL;
	if (stat(path, &st) < 0)
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return err_set(e, -ENOTBLK, "%s: not a regular file or block "
			       "device", path);
	/* refuse read-only targets before anything exists to clean up */
	if (rdwr && (ret = excl_check_ro(path, &st, e)) != 0)
		return ret;
	/* a writer must be the only opener of a block device */
	fd = open(path, (rdwr ? O_RDWR : O_RDONLY) | O_CLOEXEC |
		  (rdwr && S_ISBLK(st.st_mode) ? O_EXCL : 0));
	if (fd < 0) {
		ret = -errno;
		if (ret == -EBUSY)
			return busy(path, &st, e);
		if (ret == -EROFS)
			return err_set(e, ret, "refusing to write: %s is "
				       "read-only", path);
		return err_set(e, ret, "%s: %s", path, strerror(-ret));
	}
	fp = calloc(1, sizeof(*fp));
	im = calloc(1, sizeof(*im));
	if (!fp || !im) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	if (fstat(fd, &st) < 0) {
		ret = err_set(e, -errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISBLK(st.st_mode)) {
		uint64_t bytes;

		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
			ret = err_set(e, -errno, "%s: cannot get the device "
				      "size: %s", path, strerror(errno));
			goto fail;
		}
		st.st_size = (off_t)bytes;
	} else if (!S_ISREG(st.st_mode)) {
		ret = err_set(e, -ENOTBLK, "%s: not a regular file or block "
			      "device", path);
		goto fail;
	}
	if (len && (off > (uint64_t)st.st_size ||
		    len > (uint64_t)st.st_size - off)) {
		ret = err_set(e, -ENXIO, "%s: bytes %llu-%llu lie beyond its "
			      "end (%llu bytes)", path,
			      (unsigned long long)off,
			      (unsigned long long)(off + len - 1),
			      (unsigned long long)st.st_size);
		goto fail;
	}
	/* one writer at a time, whatever the path (excl.h) */
	if (rdwr && (ret = excl_take(path, fd, off, len, &fp->excl, e)) != 0)
		goto fail;
	fp->fd = fd;
	fp->dfd = -1;
	fp->base = len ? off : 0;
	fp->ranged = len != 0;
	im->ops = &file_ops;
	im->priv = fp;
	im->size = len ? len : (uint64_t)st.st_size;
	im->writable = rdwr;
	*out = im;
	return 0;

fail:
	free(fp);
	free(im);
	close(fd);
	return ret;
}

static const struct img_ops view_ops;

/* The file layer under im if reads reach it unchanged, through views too. */
static struct file_priv *file_under(const struct img *im)
{
	for (;;) {
		if (im->ops == &view_ops)
			im = im->priv;
		else if (im->lower && im->ops->pass_reads)
			im = im->lower;
		else
			break;
	}
	return im->ops == &file_ops ? im->priv : NULL;
}

/* The file layer at the bottom of im, through views and every layer. */
static struct file_priv *file_bottom(const struct img *im)
{
	while (im->ops == &view_ops || (im->ops != &file_ops && im->lower))
		im = im->ops == &view_ops ? im->priv : im->lower;
	return im->ops == &file_ops ? im->priv : NULL;
}

int img_stat(const struct img *im, struct stat *st)
{
	const struct file_priv *fp = file_bottom(im);

	if (!fp)
		return -EOPNOTSUPP;
	return fstat(fp->fd, st) ? -errno : 0;
}

/* Set size on im and every layer under it, once the bottom has it. */
static int resize(struct img *im, uint64_t size)
{
	struct file_priv *fp;
	struct stat st;
	int ret;

	if (im->ops == &view_ops)
		ret = resize(im->priv, size);
	else if (im->ops != &file_ops)
		ret = im->lower ? resize(im->lower, size) : -EOPNOTSUPP;
	else {
		fp = im->priv;
		if (fstat(fp->fd, &st))
			return -errno;
		/* a device, or a partition of a whole disk in a file */
		if (!S_ISREG(st.st_mode) || fp->ranged)
			return -ENOTTY;
		ret = ftruncate(fp->fd, (off_t)size) ? -errno : 0;
	}
	if (!ret)
		im->size = size;
	return ret;
}

int img_resize(struct img *im, uint64_t size)
{
	if (!im->writable)
		return -EROFS;
	return resize(im, size);
}

void img_zero_past_eof(struct img *im, uint64_t size)
{
	struct file_priv *fp = file_bottom(im);
	struct stat st;

	if (!fp || fp->ranged || fstat(fp->fd, &st) || !S_ISREG(st.st_mode) ||
	    size <= im->size)
		return;
	fp->zero_past_eof = true;
	for (; im; im = im->ops == &view_ops ? im->priv : im->lower)
		im->size = size;
}

int img_discard(struct img *im, uint64_t off, uint64_t len)
{
	struct file_priv *fp = file_bottom(im);
	uint64_t range[2];
	struct stat st;

	if (!im->writable)
		return -EROFS;
	if (!fp)
		return -EOPNOTSUPP;
	if (off > im->size || len > im->size - off)
		return -ENXIO;
	off += fp->base;	/* a partition's bytes in the disk */
	range[0] = off;
	range[1] = len;
	if (fstat(fp->fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fp->fd, BLKDISCARD, range) ? -errno : 0;
	if (fallocate(fp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)off, (off_t)len))
		return -errno;
	return 0;
}

int img_recheck_writers(const struct img *im, struct err *e)
{
	while (im->ops == &view_ops || (im->ops != &file_ops && im->lower))
		im = im->ops == &view_ops ? im->priv : im->lower;
	if (im->ops != &file_ops)
		return 0;
	return excl_recheck(((const struct file_priv *)im->priv)->excl, e);
}

int img_raw(const struct img *im, struct img_raw *out)
{
	const struct file_priv *fp = file_under(im);

	if (!fp)
		return -EOPNOTSUPP;
	out->fd = fp->fd;
	out->base = fp->base;
	out->dfd = fp->dfd;
	out->dalign = fp->dalign;
	out->direct_always = fp->direct_always;
	out->bulk = fp->bulk;
	return 0;
}

void img_set_bulk(struct img *im, const struct img_bulk *b)
{
	struct file_priv *fp = file_under(im);

	if (fp)
		fp->bulk = *b;
}

void img_willneed(struct img *im, uint64_t off, uint64_t len)
{
	struct file_priv *fp = file_under(im);

	if (!fp || off >= im->size)
		return;
	if (len > im->size - off)
		len = im->size - off;
	posix_fadvise(fp->fd, (off_t)(fp->base + off), (off_t)len,
		      POSIX_FADV_WILLNEED);
}

uint64_t img_next_data(struct img *im, uint64_t off)
{
	struct file_priv *fp = file_under(im);
	off_t d;

	if (off >= im->size)
		return im->size;
	if (!fp)
		return off;
	d = lseek(fp->fd, (off_t)(fp->base + off), SEEK_DATA);
	if (d < 0)
		/* ENXIO: only a hole to the end; else it cannot tell */
		return errno == ENXIO ? im->size : off;
	d -= (off_t)fp->base;
	return (uint64_t)d < im->size ? (uint64_t)d : im->size;
}

uint64_t img_next_hole(struct img *im, uint64_t off)
{
	struct file_priv *fp = file_under(im);
	off_t h;

	if (off >= im->size || !fp)
		return im->size;
	h = lseek(fp->fd, (off_t)(fp->base + off), SEEK_HOLE);
	if (h < 0 || (uint64_t)h <= fp->base + off)
		return im->size;
	h -= (off_t)fp->base;
	return (uint64_t)h < im->size ? (uint64_t)h : im->size;
}

int img_set_direct(struct img *im, bool always)
{
	struct file_priv *fp = file_under(im);
	unsigned align = 4096;
	char path[64];
	void *probe;
	ssize_t n;
	int fd, lbs;

	if (!fp)
		return -EOPNOTSUPP;
	if (always)
		fp->direct_always = true;
	if (fp->dfd >= 0)
		return 0;
	/* a new open file description: O_DIRECT must not reach fp->fd */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fp->fd);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > (int)align)
		align = (unsigned)lbs;
	if (fp->base % align) {
		/* the image does not start on an aligned offset */
		close(fd);
		return -EINVAL;
	}
	/* some filesystems accept the flag and fail every read: try one */
	probe = aligned_alloc(align, align);
	if (!probe) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, probe, align, 0);
	free(probe);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	fp->dfd = fd;
	fp->dalign = align;
	return 0;
}

struct mem_priv {
	uint8_t *buf;
};

static int mem_pread(struct img *im, void *buf, size_t len, uint64_t off)
{
	struct mem_priv *mp = im->priv;

	memcpy(buf, mp->buf + off, len);
	return 0;
}

static int mem_pwrite(struct img *im, const void *buf, size_t len,
		      uint64_t off)
{
	struct mem_priv *mp = im->priv;

	memcpy(mp->buf + off, buf, len);
	return 0;
}

static int mem_flush(struct img *im)
{
	(void)im;
	return 0;
}

static void mem_close(struct img *im)
{
	free(im->priv);
}

static const struct img_ops mem_ops = {
	.name = "memory",
	.pread = mem_pread,
	.pwrite = mem_pwrite,
	.flush = mem_flush,
	.close = mem_close,
};

int img_open_mem(void *buf, size_t len, unsigned flags, struct img **out)
{
	struct mem_priv *mp = calloc(1, sizeof(*mp));
	struct img *im = calloc(1, sizeof(*im));

	*out = NULL;
	if (!mp || !im) {
		free(mp);
		free(im);
		return -ENOMEM;
	}
	mp->buf = buf;
	im->ops = &mem_ops;
	im->priv = mp;
	im->size = len;
	im->writable = (flags & IMG_RDWR) != 0;
	*out = im;
	return 0;
}

/* Bounds live here, once, so no backend can be asked for a bad range. */
int img_pread(struct img *im, void *buf, size_t len, uint64_t off)
{
	if (off > im->size || len > im->size - off)
		return -ENXIO;
	return im->ops->pread(im, buf, len, off);
}

int img_pwrite(struct img *im, const void *buf, size_t len, uint64_t off)
{
	if (!im->writable)
		return -EROFS;
	if (off > im->size || len > im->size - off)
		return -ENXIO;
	return im->ops->pwrite(im, buf, len, off);
}

int img_flush(struct img *im)
{
	return im->ops->flush(im);
}

static int view_pread(struct img *im, void *buf, size_t len, uint64_t off)
{
	return img_pread(im->priv, buf, len, off);
}

static int view_pwrite(struct img *im, const void *buf, size_t len,
		       uint64_t off)
{
	return img_pwrite(im->priv, buf, len, off);
}

static int view_flush(struct img *im)
{
	return img_flush(im->priv);
}

static void view_close(struct img *im)
{
	(void)im;	/* the borrowed img is its owner's to close */
}

static const struct img_ops view_ops = {
	.name = "view",
	.pread = view_pread,
	.pwrite = view_pwrite,
	.flush = view_flush,
	.close = view_close,
};

int img_borrow(struct img *im, bool writable, struct img **out)
{
	struct img *v = calloc(1, sizeof(*v));

	*out = NULL;
	if (!v)
		return -ENOMEM;
	v->ops = &view_ops;
	v->priv = im;
	v->size = im->size;
	v->writable = writable && im->writable;
	*out = v;
	return 0;
}

void img_close(struct img *im)
{
	while (im) {
		struct img *lower = im->lower;

		im->ops->close(im);
		free(im);
		im = lower;
	}
}
