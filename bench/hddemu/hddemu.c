/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hddemu: one image file served through FUSE as one file, "disk", that
 * answers as a 7200 rpm disk with a read cache would (hddcost.h): every
 * request is charged in arrival order and its reply held back, by a real
 * sleep, until the emulated disk would have finished it, so that the
 * kernel's request stream and read-ahead above it behave as on a slow
 * disk.  Put a loop device on the file (losetup --direct-io=on) and mount
 * that.
 *
 *   hddemu [-o scale=N] [-o trace=FILE] [-o NAME=VALUE]... IMAGE MOUNTPOINT
 *
 * The file "stats" beside "disk" reads as the counters (busy seconds,
 * requests, seeks, cache hits...) since the last reset; writing anything
 * to it resets them and makes the disk cold (cache empty, head parked).
 * scale=N sleeps 1/N of each charge (a bench runs N times faster with the
 * same ratios); the counted seconds stay unscaled.  trace=FILE appends
 * each request as "r|w OFFSET LENGTH KIND SECONDS", and "reset" at each
 * reset: hddreplay replays it.  NAME=VALUE sets a cost-model parameter
 * (hdd_param_set: seg_max, nseg, ra, gap, xfer_bps, ...).  Requests are
 * served one at a time (-s is implied): one head.
 */
#define FUSE_USE_VERSION 35
#include "bench/hddemu/hddcost.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct hde {
	struct hdd disk;
	const char *image;
	FILE *trace;
	double scale;
	int fd;
	int writable;
	off_t size;
};

static struct hde *hde_get(void)
{
	return fuse_get_context()->private_data;
}

enum { F_NONE, F_ROOT, F_DISK, F_STATS };

static int which(const char *path)
{
	if (!strcmp(path, "/"))
		return F_ROOT;
	if (!strcmp(path, "/disk"))
		return F_DISK;
	if (!strcmp(path, "/stats"))
		return F_STATS;
	return F_NONE;
}

static int hde_getattr(const char *path, struct stat *st,
		       struct fuse_file_info *fi)
{
	struct hde *h = hde_get();

	(void)fi;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_nlink = 1;
	switch (which(path)) {
	case F_ROOT:
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	case F_DISK:
		st->st_mode = S_IFREG | (h->writable ? 0644 : 0444);
		st->st_size = h->size;
		st->st_blocks = (h->size + 511) / 512;
		return 0;
	case F_STATS:
		st->st_mode = S_IFREG | 0644;
		return 0;
	}
	return -ENOENT;
}

static int hde_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		       off_t off, struct fuse_file_info *fi,
		       enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (which(path) != F_ROOT)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	fill(buf, "stats", NULL, 0, 0);
	return 0;
}

static int hde_open(const char *path, struct fuse_file_info *fi)
{
	struct hde *h = hde_get();

	switch (which(path)) {
	case F_DISK:
		if ((fi->flags & O_ACCMODE) != O_RDONLY && !h->writable)
			return -EROFS;
		/* no page cache on the FUSE side: every read the loop
		 * device passes down reaches the emulated disk */
		fi->direct_io = 1;
		return 0;
	case F_STATS:
		fi->direct_io = 1;	/* its size is not known ahead */
		return 0;
	}
	return -ENOENT;
}

static int hde_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)fi;
	switch (which(path)) {
	case F_STATS:
		return 0;	/* "echo > stats" truncates first */
	case F_DISK:
		return size == hde_get()->size ? 0 : -EPERM;
	}
	return -ENOENT;
}

static void now(struct timespec *t)
{
	clock_gettime(CLOCK_MONOTONIC, t);
}

/* hold the reply until start + seconds / scale */
static void hold(const struct hde *h, const struct timespec *start, double seconds)
{
	double d = seconds / h->scale;
	struct timespec until = *start;

	until.tv_sec += (time_t)d;
	until.tv_nsec += (long)((d - (double)(time_t)d) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
}

/* charge one request of the disk file and hold its reply */
static void serve(struct hde *h, const struct timespec *start, off_t off,
		  size_t len, int write)
{
	enum hdd_kind kind;
	double cost;

	if (len == 0)
		return;
	cost = hdd_charge(&h->disk, (uint64_t)off, len, write, &kind);
	if (h->trace)
		fprintf(h->trace, "%c %lld %zu %s %.9f\n", write ? 'w' : 'r',
			(long long)off, len, hdd_kind_name(kind), cost);
	hold(h, start, cost);
}

static int stats_read(struct hde *h, char *buf, size_t size, off_t off)
{
	char text[1024];
	int n = hdd_stats_format(&h->disk.st, text, sizeof(text));

	if (n > 0 && (size_t)n < sizeof(text))
		n += snprintf(text + n, sizeof(text) - (size_t)n, "scale %g\n",
			      h->scale);
	if (n < 0 || (size_t)n >= sizeof(text))
		return -EOVERFLOW;
	if (off >= n)
		return 0;
	if (size > (size_t)(n - off))
		size = (size_t)(n - off);
	memcpy(buf, text + off, size);
	if (h->trace)
		fflush(h->trace);
	return (int)size;
}

static int hde_read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct hde *h = hde_get();
	struct timespec start;
	size_t done = 0;

	(void)fi;
	switch (which(path)) {
	case F_STATS:
		return stats_read(h, buf, size, off);
	case F_DISK:
		break;
	default:
		return -ENOENT;
	}
	now(&start);
	if (off >= h->size)
		return 0;
	if (size > (size_t)(h->size - off))
		size = (size_t)(h->size - off);
	while (done < size) {
		ssize_t n = pread(h->fd, buf + done, size - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {	/* the image shrank under us: zeroes */
			memset(buf + done, 0, size - done);
			break;
		}
		done += (size_t)n;
	}
	serve(h, &start, off, size, 0);
	return (int)size;
}

static int hde_write(const char *path, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct hde *h = hde_get();
	struct timespec start;
	size_t done = 0;

	(void)fi;
	switch (which(path)) {
	case F_STATS:
		hdd_reset(&h->disk);
		if (h->trace) {
			fputs("reset\n", h->trace);
			fflush(h->trace);
		}
		return (int)size;
	case F_DISK:
		break;
	default:
		return -ENOENT;
	}
	now(&start);
	if (off >= h->size)
		return -ENOSPC;
	if (size > (size_t)(h->size - off))
		size = (size_t)(h->size - off);
	while (done < size) {
		ssize_t n = pwrite(h->fd, buf + done, size - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	serve(h, &start, off, size, 1);
	return (int)size;
}

/* The drive has no write cache to flush (writes are charged as they
 * come); the image reaches its own disk when the host writes it back. */
static int hde_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)datasync;
	(void)fi;
	return 0;
}

static void *hde_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	return hde_get();
}

static void hde_destroy(void *priv)
{
	struct hde *h = priv;

	if (h->trace)
		fclose(h->trace);
	h->trace = NULL;
	close(h->fd);
}

static const struct fuse_operations hde_ops = {
	.init = hde_init,
	.destroy = hde_destroy,
	.getattr = hde_getattr,
	.readdir = hde_readdir,
	.open = hde_open,
	.truncate = hde_truncate,
	.read = hde_read,
	.write = hde_write,
	.fsync = hde_fsync,
};

/* what fuse_opt_parse fills (the strings) and what hde_optproc sets */
struct hde_opts {
	char *scale;
	char *trace;
	struct hde *h;
	struct hdd_params *p;
};

static const struct fuse_opt hde_optspec[] = {
	{ "scale=%s", offsetof(struct hde_opts, scale), 0 },
	{ "trace=%s", offsetof(struct hde_opts, trace), 0 },
	FUSE_OPT_END
};

/* the image (the first non-option argument), and cost-model NAME=VALUE
 * options; the rest is libfuse's */
static int hde_optproc(void *data, const char *arg, int key,
		       struct fuse_args *outargs)
{
	struct hde_opts *o = data;

	(void)outargs;
	if (key == FUSE_OPT_KEY_NONOPT && !o->h->image) {
		o->h->image = arg;
		return 0;
	}
	if (key == FUSE_OPT_KEY_OPT && strchr(arg, '=') &&
	    hdd_param_set(o->p, arg) == 0)
		return 0;
	return 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hddemu [-o scale=N] [-o trace=FILE] [-o NAME=VALUE]... "
		"[FUSE options] IMAGE MOUNTPOINT\n");
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct hde h = { .fd = -1, .scale = 1 };
	struct hdd_params p;
	struct hde_opts o = { .h = &h, .p = &p };
	struct stat st;
	int rc;

	hdd_params_default(&p);
	if (fuse_opt_parse(&args, &o, hde_optspec, hde_optproc) || !h.image) {
		usage();
		return 2;
	}
	if (o.scale) {
		char *end;

		h.scale = strtod(o.scale, &end);
		if (*end || !(h.scale > 0)) {
			fprintf(stderr, "hddemu: bad scale '%s'\n", o.scale);
			return 2;
		}
	}
	h.fd = open(h.image, O_RDWR);
	h.writable = h.fd >= 0;
	if (h.fd < 0)
		h.fd = open(h.image, O_RDONLY);
	if (h.fd < 0 || fstat(h.fd, &st)) {
		fprintf(stderr, "hddemu: %s: %s\n", h.image, strerror(errno));
		return 1;
	}
	h.size = st.st_size;
	if (o.trace) {
		h.trace = fopen(o.trace, "a");
		if (!h.trace) {
			fprintf(stderr, "hddemu: %s: %s\n", o.trace, strerror(errno));
			return 1;
		}
	}
	hdd_init(&h.disk, &p);
	/* one request at a time, in the order the kernel queued them */
	fuse_opt_add_arg(&args, "-s");
	fuse_opt_add_arg(&args, "-ofsname=hddemu");
	rc = fuse_main(args.argc, args.argv, &hde_ops, &h);
	fuse_opt_free_args(&args);
	free(o.scale);
	free(o.trace);
	return rc;
}
