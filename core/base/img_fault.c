/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A crash, for tests: an img layer that lets n writes through and ends
 * the process before performing the next one, as a power cut would stop
 * a run: no cleanup, no buffered output, nothing more written.
 */
#include "core/base/img.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define FAULT_EXIT	75	/* EX_TEMPFAIL: not any failure's status */

struct fault_priv {
	long left;		/* writes still allowed; < 0: no limit */
};

static int fault_pread(struct img *im, void *buf, size_t len, uint64_t off)
{
	return img_pread(im->lower, buf, len, off);
}

static int fault_pwrite(struct img *im, const void *buf, size_t len,
			uint64_t off)
{
	struct fault_priv *fp = im->priv;

	if (fp->left == 0)
		_exit(FAULT_EXIT);
	if (fp->left > 0)
		fp->left--;
	return img_pwrite(im->lower, buf, len, off);
}

static int fault_flush(struct img *im)
{
	return img_flush(im->lower);
}

static void fault_close(struct img *im)
{
	free(im->priv);
}

static const struct img_ops fault_ops = {
	.name = "fault",
	.pread = fault_pread,
	.pass_reads = true,
	.pwrite = fault_pwrite,
	.flush = fault_flush,
	.close = fault_close,
};

int img_push_fault(struct img **im, long n)
{
	struct fault_priv *fp = calloc(1, sizeof(*fp));
	struct img *f = calloc(1, sizeof(*f));

	if (!fp || !f) {
		free(fp);
		free(f);
		return -ENOMEM;
	}
	fp->left = n < 0 ? -1 : n;
	f->ops = &fault_ops;
	f->priv = fp;
	f->size = (*im)->size;
	f->writable = (*im)->writable;
	f->lower = *im;
	*im = f;
	return 0;
}
