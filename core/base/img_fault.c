/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A crash or a failing device, for tests: an img layer that lets n writes
 * through, then either ends the process before performing the next one,
 * as a power cut would stop a run (no cleanup, no buffered output,
 * nothing more written), or fails it with an error, once or for good.
 */
#include "core/base/img.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define FAULT_EXIT	75	/* EX_TEMPFAIL: not any failure's status */

struct fault_priv {
	long left;		/* writes still allowed; < 0: no limit */
	int err;		/* 0: crash; else fail with it */
	bool sticky;		/* fail every write after the first failure */
	bool failed;
};

static int fault_pread(struct img *im, void *buf, size_t len, uint64_t off)
{
	return img_pread(im->lower, buf, len, off);
}

static int fault_pwrite(struct img *im, const void *buf, size_t len,
			uint64_t off)
{
	struct fault_priv *fp = im->priv;

	if (fp->failed && fp->sticky)
		return fp->err;
	if (fp->left == 0 && !fp->failed) {
		if (!fp->err)
			_exit(FAULT_EXIT);
		fp->failed = true;
		return fp->err;
	}
	if (fp->left > 0)
		fp->left--;
	return img_pwrite(im->lower, buf, len, off);
}

static int fault_flush(struct img *im)
{
	struct fault_priv *fp = im->priv;

	if (fp->failed && fp->sticky)
		return fp->err;
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

int img_push_fault(struct img **im, long n, int err, bool sticky)
{
	struct fault_priv *fp = calloc(1, sizeof(*fp));
	struct img *f = calloc(1, sizeof(*f));

	if (!fp || !f) {
		free(fp);
		free(f);
		return -ENOMEM;
	}
	fp->left = n < 0 ? -1 : n;
	fp->err = err < 0 ? err : 0;
	fp->sticky = sticky;
	f->ops = &fault_ops;
	f->priv = fp;
	f->size = (*im)->size;
	f->writable = (*im)->writable;
	f->lower = *im;
	*im = f;
	return 0;
}
