/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The power-cut model's recorder: an LD_PRELOAD layer for tests that
 * logs, in order, every write to the watched files (the image and the
 * undo file: they are separate files, and the order between them
 * matters), every ftruncate of them, every fsync/fdatasync of them,
 * every fsync of the directory holding one (what makes a new file's name
 * durable; logged for each watched file in it), and every unlink.
 * It sits at the system-call boundary, so it also sees a write that
 * bypassed the image layers.  tests/powercut/crashimg.py turns the log
 * into crash images.
 *
 * Environment: PCTRACE_OUT (the log), PCTRACE_WATCH (absolute paths,
 * ':'-separated; file ids are their positions), PCTRACE_KILL=N (end the
 * process with SIGKILL right after the N-th write to a watched file, as
 * a kill -9 would: what it wrote stays, what it meant to write next
 * does not; the log is not needed for it).  Log record: type
 * ('W' write, 'S' sync, 'D' directory sync, 'U' unlink) 1 byte, file id
 * 1, zero 2, length 4, offset 8 (little-endian), then length bytes for
 * 'W'; 'T' (ftruncate) has the new size as its offset.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAXWATCH	64

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int outfd = -1;
static char *watch[MAXWATCH];
static char *wdir[MAXWATCH];
static int nwatch;
static long kill_at = -1, writes;

static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_unlink)(const char *);
static int (*real_ftruncate)(int, off_t);

static void init(void)
{
	static int done;
	const char *w, *o;
	char *s, *tok, *save = NULL;

	if (done)
		return;
	done = 1;
	real_pwrite = dlsym(RTLD_NEXT, "pwrite64");
	real_write = dlsym(RTLD_NEXT, "write");
	real_fsync = dlsym(RTLD_NEXT, "fsync");
	real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
	real_unlink = dlsym(RTLD_NEXT, "unlink");
	real_ftruncate = dlsym(RTLD_NEXT, "ftruncate64");
	o = getenv("PCTRACE_OUT");
	w = getenv("PCTRACE_WATCH");
	if (getenv("PCTRACE_KILL"))
		kill_at = atol(getenv("PCTRACE_KILL"));
	if (!w || (!o && kill_at < 0))
		return;
	if (o)
		outfd = open(o, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			     0600);
	s = strdup(w);
	for (tok = strtok_r(s, ":", &save); tok && nwatch < MAXWATCH;
	     tok = strtok_r(NULL, ":", &save)) {
		char *slash;

		watch[nwatch] = strdup(tok);
		wdir[nwatch] = strdup(tok);
		slash = strrchr(wdir[nwatch], '/');
		if (slash && slash != wdir[nwatch])
			*slash = '\0';
		nwatch++;
	}
	free(s);
}

/*
 * 1 + id for a watched file, -1 - id for its directory, else 0.  Asked
 * at every call (no cache: descriptors are reused behind our back, by
 * stdio's own close among others).
 */
static int kind_of(int fd)
{
	char p[64], link[PATH_MAX];
	ssize_t n;
	int i;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	n = readlink(p, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	for (i = 0; i < nwatch; i++) {
		if (strcmp(link, watch[i]) == 0)
			return 1 + i;
		if (strcmp(link, wdir[i]) == 0)
			return -1 - i;
	}
	return 0;
}

static void put_all(const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = real_write(outfd, c, len);

		if (n <= 0)
			abort();	/* a lost record would fake a crash */
		c += n;
		len -= (size_t)n;
	}
}

static void record(char type, int id, const void *data, uint32_t len,
		   uint64_t off)
{
	unsigned char h[16] = { (unsigned char)type, (unsigned char)id };

	if (outfd >= 0) {
		memcpy(h + 4, &len, 4);
		memcpy(h + 8, &off, 8);
		put_all(h, sizeof(h));
		if (type == 'W' && len)
			put_all(data, len);
	}
	if (type == 'W' && kill_at >= 0 && ++writes >= kill_at)
		kill(getpid(), SIGKILL);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n;
	int k;

	pthread_mutex_lock(&mu);
	init();
	n = real_pwrite(fd, buf, len, off);
	k = nwatch && n > 0 ? kind_of(fd) : 0;
	if (k > 0)
		record('W', k - 1, buf, (uint32_t)n, (uint64_t)off);
	pthread_mutex_unlock(&mu);
	return n;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return pwrite64(fd, buf, len, off);
}

static int sync_common(int fd, int data)
{
	int r, k, i;

	pthread_mutex_lock(&mu);
	init();
	r = data ? real_fdatasync(fd) : real_fsync(fd);
	k = outfd >= 0 && r == 0 ? kind_of(fd) : 0;
	if (k > 0)
		record('S', k - 1, NULL, 0, 0);
	for (i = -1 - k; k < 0 && i < nwatch; i++)	/* every file in it */
		if (strcmp(wdir[i], wdir[-1 - k]) == 0)
			record('D', i, NULL, 0, 0);
	pthread_mutex_unlock(&mu);
	return r;
}

int fsync(int fd)
{
	return sync_common(fd, 0);
}

int fdatasync(int fd)
{
	return sync_common(fd, 1);
}

/* Writes at the file offset: recorded where they land. */
ssize_t write(int fd, const void *buf, size_t len)
{
	off_t at;
	ssize_t n;
	int k;

	pthread_mutex_lock(&mu);
	init();
	k = nwatch && fd != outfd ? kind_of(fd) : 0;
	at = k > 0 ? lseek(fd, 0, SEEK_CUR) : 0;
	n = real_write(fd, buf, len);
	if (k > 0 && n > 0)
		record('W', k - 1, buf, (uint32_t)n, (uint64_t)at);
	pthread_mutex_unlock(&mu);
	return n;
}

int ftruncate64(int fd, off_t len)
{
	int r, k;

	pthread_mutex_lock(&mu);
	init();
	r = real_ftruncate(fd, len);
	k = outfd >= 0 && r == 0 ? kind_of(fd) : 0;
	if (k > 0)
		record('T', k - 1, NULL, 0, (uint64_t)len);
	pthread_mutex_unlock(&mu);
	return r;
}

int ftruncate(int fd, off_t len)
{
	return ftruncate64(fd, len);
}

int unlink(const char *path)
{
	int r, i;

	pthread_mutex_lock(&mu);
	init();
	r = real_unlink(path);
	for (i = 0; r == 0 && outfd >= 0 && i < nwatch; i++)
		if (strcmp(path, watch[i]) == 0)
			record('U', i, NULL, 0, 0);
	pthread_mutex_unlock(&mu);
	return r;
}
