/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/img.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include <stdio.h>

struct file_priv {
	int fd;
	int dfd;		/* O_DIRECT, for bulk reads; -1 if none */
	unsigned dalign;
	struct img_bulk bulk;
};

static int file_pread(struct img *im, void *buf, size_t len, uint64_t off)
{
	struct file_priv *fp = im->priv;
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fp->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
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
	free(fp);
}

static const struct img_ops file_ops = {
	.name = "file",
	.pread = file_pread,
	.pwrite = file_pwrite,
	.flush = file_flush,
	.close = file_close,
};

int img_open_file(const char *path, unsigned flags, struct img **out)
{
	struct file_priv *fp = NULL;
	struct img *im = NULL;
	struct stat st;
	int fd, oflags, ret;

	*out = NULL;
	oflags = (flags & IMG_RDWR) ? O_RDWR : O_RDONLY;
	fd = open(path, oflags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		goto fail_errno;
	if (S_ISBLK(st.st_mode)) {
		uint64_t bytes;

		/* a writer must be the only opener of a block device */
		if (flags & IMG_RDWR) {
			close(fd);
			fd = open(path, oflags | O_EXCL | O_CLOEXEC);
			if (fd < 0)
				return -errno;
		}
		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0)
			goto fail_errno;
		st.st_size = (off_t)bytes;
	} else if (!S_ISREG(st.st_mode)) {
		ret = -ENOTBLK;
		goto fail;
	} else if ((flags & IMG_RDWR) && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		/* one writer at a time on an image file, too */
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto fail;
	}
	fp = calloc(1, sizeof(*fp));
	im = calloc(1, sizeof(*im));
	if (!fp || !im) {
		ret = -ENOMEM;
		goto fail;
	}
	fp->fd = fd;
	fp->dfd = -1;
	im->ops = &file_ops;
	im->priv = fp;
	im->size = (uint64_t)st.st_size;
	im->writable = (flags & IMG_RDWR) != 0;
	*out = im;
	return 0;

fail_errno:
	ret = -errno;
fail:
	free(fp);
	free(im);
	close(fd);
	return ret;
}

/* The file layer under im, if reads reach it unchanged. */
static struct file_priv *file_under(const struct img *im)
{
	while (im->lower && im->ops->pass_reads)
		im = im->lower;
	return im->ops == &file_ops ? im->priv : NULL;
}

int img_raw(const struct img *im, struct img_raw *out)
{
	const struct file_priv *fp = file_under(im);

	if (!fp)
		return -EOPNOTSUPP;
	out->fd = fp->fd;
	out->dfd = fp->dfd;
	out->dalign = fp->dalign;
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
	posix_fadvise(fp->fd, (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);
}

int img_set_direct(struct img *im)
{
	struct file_priv *fp = file_under(im);
	unsigned align = 4096;
	char path[64];
	void *probe;
	ssize_t n;
	int fd, lbs;

	if (!fp)
		return -EOPNOTSUPP;
	if (fp->dfd >= 0)
		return 0;
	/* a new open file description: O_DIRECT must not reach fp->fd */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fp->fd);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > (int)align)
		align = (unsigned)lbs;
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

void img_close(struct img *im)
{
	while (im) {
		struct img *lower = im->lower;

		im->ops->close(im);
		free(im);
		im = lower;
	}
}
