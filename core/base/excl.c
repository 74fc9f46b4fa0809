/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One writer at a time, whatever the path: see excl.h. */
#include "core/base/excl.h"
#include "core/base/probe.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/loop.h>

#define LOCK_DIR	"/run/xfsdefrag"
#define LOOP_MAJ	7	/* linux/major.h LOOP_MAJOR */

#define TO_END	UINT64_MAX

/* What holds the bytes of the image, and which of them. */
struct ident {
	bool blk;		/* the path is a block device ... */
	dev_t rdev;		/* ... this one */
	dev_t whole;		/* ... on this whole disk (itself if whole) */
	uint64_t wstart, wend;	/* ... at these bytes of it */
	bool file;		/* a regular file holds them (image or backing) */
	dev_t dev;
	ino_t ino;
	/* the bytes in what holds them (the file, else the whole disk) */
	uint64_t start, end;	/* [start, end), end TO_END: to its end */
	char loop[32];		/* "loopN": the whole loop device of the path */
};

struct excl {
	int lockfd;
	int backfd;		/* a loop device's backing file, flocked */
	struct ident *id;	/* for excl_recheck */
	char *path;
};

static bool overlap(uint64_t s1, uint64_t e1, uint64_t s2, uint64_t e2)
{
	return s1 < e2 && s2 < e1;
}

int excl_check_ro(const char *path, const struct stat *st, struct err *e)
{
	struct statvfs vfs;
	int fd, ro = 0;

	if (S_ISREG(st->st_mode) && !(st->st_mode & 0222))
		return err_set(e, -EROFS, "refusing to write: %s has no write "
			       "permission (mode %04o): its owner made it "
			       "read-only (chmod u+w %s if it is meant to be "
			       "rewritten)", path, (unsigned)(st->st_mode & 07777),
			       path);
	if (S_ISREG(st->st_mode) && statvfs(path, &vfs) == 0 &&
	    (vfs.f_flag & ST_RDONLY))
		return err_set(e, -EROFS, "refusing to write: %s is on a "
			       "read-only filesystem", path);
	if (!S_ISBLK(st->st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && ioctl(fd, BLKROGET, &ro) == 0 && ro) {
		close(fd);
		return err_set(e, -EROFS, "refusing to write: %s is a "
			       "read-only device%s", path,
			       major(st->st_rdev) == LOOP_MAJ ?
			       " (a loop device attached read-only)" : "");
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* Read a small sysfs/proc file into buf (newline stripped); 0 or -1. */
static int read_small(const char *p, char *buf, size_t len)
{
	FILE *f = fopen(p, "re");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A number from a small sysfs file, or -1. */
static int read_u64(const char *p, uint64_t *v)
{
	char buf[32];
	unsigned long long n;

	if (read_small(p, buf, sizeof(buf)) || sscanf(buf, "%llu", &n) != 1)
		return -1;
	*v = n;
	return 0;
}

/*
 * The backing file of bound loop device name ("loopN") and where the
 * device starts in it: 0, or -1.
 */
static int loop_backing(const char *name, dev_t *dev, ino_t *ino,
			uint64_t *off)
{
	struct loop_info64 li;
	char p[300], back[4096];
	struct stat st;
	int fd, ok;

	snprintf(p, sizeof(p), "/dev/%s", name);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		ok = ioctl(fd, LOOP_GET_STATUS64, &li) == 0;
		close(fd);
		if (ok) {
			*dev = (dev_t)li.lo_device;
			*ino = (ino_t)li.lo_inode;
			*off = li.lo_offset;
			return 0;
		}
	}
	/* no device node here: the path the driver recorded */
	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", name);
	if (read_small(p, back, sizeof(back)) || stat(back, &st))
		return -1;
	*dev = st.st_dev;
	*ino = st.st_ino;
	snprintf(p, sizeof(p), "/sys/block/%s/loop/offset", name);
	if (read_u64(p, off))
		*off = 0;
	return 0;
}

/*
 * Block device rdev: its whole disk (name and number) and the bytes of
 * it the device covers; a partition has a "partition" file in sysfs and
 * its parent directory is the disk's.  0, or -1 when sysfs cannot say.
 */
static int blk_where(dev_t rdev, char *name, size_t nlen, dev_t *whole,
		     uint64_t *start, uint64_t *end)
{
	char p[96], real[512], q[600], mm[32], *base;
	unsigned ma, mi;
	uint64_t v, sz;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(rdev),
		 minor(rdev));
	if (!realpath(p, real))
		return -1;
	*whole = rdev;
	*start = 0;
	*end = TO_END;
	snprintf(q, sizeof(q), "%s/partition", real);
	if (access(q, F_OK) == 0) {
		snprintf(q, sizeof(q), "%s/start", real);
		if (read_u64(q, &v))
			return -1;
		snprintf(q, sizeof(q), "%s/size", real);
		if (read_u64(q, &sz))
			return -1;
		*start = v * 512;	/* sysfs counts 512-byte sectors */
		*end = *start + sz * 512;
		base = strrchr(real, '/');
		if (!base)
			return -1;
		*base = '\0';		/* the disk's directory */
		snprintf(q, sizeof(q), "%s/dev", real);
		if (read_small(q, mm, sizeof(mm)) ||
		    sscanf(mm, "%u:%u", &ma, &mi) != 2)
			return -1;
		*whole = makedev(ma, mi);
	}
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (strlen(base) >= nlen)
		return -1;
	memcpy(name, base, strlen(base) + 1);
	return 0;
}

/*
 * Block device rdev as an ident: the whole disk and bytes it covers,
 * then the file behind a loop device.  off, len: a range inside rdev
 * (len 0: all of it).
 */
static void blk_ident(dev_t rdev, uint64_t off, uint64_t len,
		      struct ident *id)
{
	char name[256];
	uint64_t lo;

	id->blk = true;
	id->rdev = rdev;
	if (blk_where(rdev, name, sizeof(name), &id->whole, &id->wstart,
		      &id->wend)) {
		id->whole = rdev;
		id->wstart = 0;
		id->wend = TO_END;
		name[0] = '\0';
	}
	id->wstart += off;
	if (len)
		id->wend = id->wstart + len;
	id->start = id->wstart;
	id->end = id->wend;
	if (strncmp(name, "loop", 4) == 0 && strlen(name) < sizeof(id->loop) &&
	    loop_backing(name, &id->dev, &id->ino, &lo) == 0) {
		id->file = true;
		snprintf(id->loop, sizeof(id->loop), "%.31s", name);
		id->start += lo;
		if (id->end != TO_END)
			id->end += lo;
	}
}

static int resolve(const char *path, int fd, uint64_t off, uint64_t len,
		   struct ident *id, struct err *e)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (fstat(fd, &st) < 0)
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (S_ISREG(st.st_mode)) {
		id->file = true;
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		id->start = off;
		id->end = len ? off + len : TO_END;
		return 0;
	}
	blk_ident(st.st_rdev, off, len, id);
	return 0;
}

/* mkdir the lock directory; "" if neither place will do. */
static void lock_dir(char *dir, size_t len)
{
	struct stat st;

	snprintf(dir, len, "%s", LOCK_DIR);
	if ((mkdir(dir, 0700) == 0 || errno == EEXIST) &&
	    access(dir, W_OK) == 0)
		return;
	/* not root: a directory of this user's own */
	snprintf(dir, len, "/tmp/xfsdefrag-locks-%u", (unsigned)getuid());
	if ((mkdir(dir, 0700) == 0 || errno == EEXIST) &&
	    lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == getuid())
		return;
	dir[0] = '\0';
}

/* Is process pid (a string from a lock file) an xfsdefrag? */
static bool holder_is_us(const char *pid)
{
	char p[64], comm[64];

	if (!pid[0] || strspn(pid, "0123456789") != strlen(pid) ||
	    strlen(pid) > 20)
		return false;
	snprintf(p, sizeof(p), "/proc/%s/comm", pid);
	return read_small(p, comm, sizeof(comm)) == 0 &&
	       strncmp(comm, "xfsdefrag", 9) == 0;
}

/* The xfsdefrag whose pid is at byte at of lock file fd, or "". */
static void holder_pid(int fd, uint64_t at, char *pid, size_t len)
{
	ssize_t n = pread(fd, pid, len - 1, (off_t)at);

	pid[n > 0 ? n : 0] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
	if (!holder_is_us(pid))
		pid[0] = '\0';	/* stale, or a lock not taken by us */
}

/*
 * The lock file is named by what holds the bytes (a file, or a whole
 * disk); a writer locks the bytes it writes in it (an OFD lock on the
 * same range of the lock file), so that writers on two partitions that
 * do not overlap both proceed.  A writer of everything also takes an
 * exclusive flock, a writer of a part a shared one: a flock(1) of the
 * lock file (tests, scripts) holds every writer off.  The writer's pid
 * is written at the first byte of its range, for the other's message.
 */
static int take_lock(const char *path, const struct ident *id,
		     struct excl *x, struct err *e)
{
	bool all = id->start == 0 && id->end == TO_END;
	char dir[128], lp[256], pid[32] = "";
	struct flock fl = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = (off_t)id->start,
		.l_len = id->end == TO_END ? 0 : (off_t)(id->end - id->start),
	};
	uint64_t at = id->start;
	int fd, n, err = 0;

	lock_dir(dir, sizeof(dir));
	if (!dir[0])
		return err_set(e, -EACCES, "refusing to write: no directory "
			       "for the writer's lock (%s or /tmp)", LOCK_DIR);
	if (id->file)
		snprintf(lp, sizeof(lp), "%s/%llx-%llx.lock", dir,
			 (unsigned long long)id->dev,
			 (unsigned long long)id->ino);
	else
		snprintf(lp, sizeof(lp), "%s/blk-%u-%u.lock", dir,
			 major(id->whole), minor(id->whole));
	fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_set(e, -errno, "refusing to write: cannot open the "
			       "writer's lock %s: %s", lp, strerror(errno));
	if (flock(fd, (all ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
		err = errno;
		at = 0;		/* a writer of everything holds it */
	} else if (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		err = errno;
		if (fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
			at = (uint64_t)fl.l_start;
		if (err == EACCES || err == EAGAIN)
			err = EWOULDBLOCK;
	}
	if (err) {
		holder_pid(fd, at, pid, sizeof(pid));
		close(fd);
		if (err != EWOULDBLOCK)
			return err_set(e, -err, "refusing to write: cannot lock "
				       "%s: %s", lp, strerror(err));
		return err_set(e, -EBUSY, "refusing to write: another "
			       "xfsdefrag%s%s%s is writing to the filesystem "
			       "of %s (through this or another path to it; "
			       "lock %s)", pid[0] ? " (pid " : "", pid,
			       pid[0] ? ")" : "", path, lp);
	}
	/* padded with newlines over a longer pid left by an earlier one */
	n = snprintf(pid, sizeof(pid), "%-23ld", (long)getpid());
	memset(pid + strcspn(pid, " "), '\n', (size_t)n - strcspn(pid, " "));
	if ((!all || ftruncate(fd, 0) == 0) &&
	    pwrite(fd, pid, (size_t)n, (off_t)id->start) != n) {
		/* the pid is only for the other side's message */
	}
	x->lockfd = fd;
	return 0;
}

/*
 * A loop device's backing file gets the flock an image file gets, so a
 * tool that locks the file before writing it waits for us (shared, for
 * a partition's bytes: a writer of another partition may hold it too).
 * A file the driver names by a path we cannot open (deleted, another
 * namespace) cannot be locked: the writer scan still sees who has it
 * open.
 */
static int lock_backing(const char *path, const struct ident *id,
			struct excl *x, struct err *e)
{
	bool all = id->start == 0 && id->end == TO_END;
	char p[300], back[4096];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", id->loop);
	if (read_small(p, back, sizeof(back)))
		return 0;
	fd = open(back, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_dev != id->dev ||
	    st.st_ino != id->ino) {
		close(fd);	/* the name now holds another file */
		return 0;
	}
	if (flock(fd, (all ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
		int err = errno;

		close(fd);
		return err == EWOULDBLOCK ?
		       err_set(e, -EBUSY, "refusing to write: %s is busy: "
			       "another process holds a lock on %s, the file "
			       "behind it", path, back) :
		       err_set(e, -err, "%s: flock: %s", back, strerror(err));
	}
	x->backfd = fd;
	return 0;
}

/*
 * Is loop device name, or one of its partitions, mounted?  Fills mnt
 * and the device's name (which may be a partition's: "loop0p2").
 */
static bool loop_mounted(const char *name, char *mnt, size_t len,
			 char *which, size_t wlen)
{
	char p[600], mm[32];
	struct dirent *de;
	unsigned ma, mi;
	bool found = false;
	DIR *d;

	snprintf(p, sizeof(p), "/sys/block/%s/dev", name);
	if (read_small(p, mm, sizeof(mm)) == 0 &&
	    sscanf(mm, "%u:%u", &ma, &mi) == 2 &&
	    probe_dev_mounted(makedev(ma, mi), mnt, len)) {
		snprintf(which, wlen, "%s", name);
		return true;
	}
	snprintf(p, sizeof(p), "/sys/block/%s", name);
	d = opendir(p);
	if (!d)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, name, strlen(name)) != 0 ||
		    strlen(de->d_name) > 255)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/%s/dev", name,
			 de->d_name);
		if (read_small(p, mm, sizeof(mm)) == 0 &&
		    sscanf(mm, "%u:%u", &ma, &mi) == 2 &&
		    probe_dev_mounted(makedev(ma, mi), mnt, len)) {
			snprintf(which, wlen, "%s", de->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/*
 * Another bound loop device over the bytes of the same file?  (The
 * path's own loop device, when it is one of its partitions, is the
 * disk it is on: a writer on it is found as a writer.)
 */
static int check_loops(const char *path, const struct ident *id,
		       struct err *e)
{
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (!id->file)
		return 0;
	d = opendir("/sys/block");
	if (!d)
		return 0;
	while (!ret && (de = readdir(d)) != NULL) {
		char p[300], mnt[256], which[256];
		uint64_t lo, sz;
		dev_t dev;
		ino_t ino;

		if (strncmp(de->d_name, "loop", 4) != 0 ||
		    strcmp(de->d_name, id->loop) == 0 ||
		    strlen(de->d_name) >= 32 ||
		    loop_backing(de->d_name, &dev, &ino, &lo) != 0 ||
		    dev != id->dev || ino != id->ino)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/size", de->d_name);
		if (read_u64(p, &sz) == 0 &&
		    !overlap(lo, lo + sz * 512, id->start, id->end))
			continue;	/* other bytes of the file */
		if (loop_mounted(de->d_name, mnt, sizeof(mnt), which,
				 sizeof(which)))
			ret = err_set(e, -EBUSY, "refusing to write: %s is "
				      "mounted on %s (through loop device "
				      "/dev/%s)", path, mnt, which);
		else if (id->loop[0])
			ret = err_set(e, -EBUSY, "refusing to write: the file "
				      "behind %s also backs loop device "
				      "/dev/%s, a second path to the same "
				      "filesystem", path, de->d_name);
		else
			ret = err_set(e, -EBUSY, "refusing to write: %s backs "
				      "loop device /dev/%s, a second path to "
				      "the same filesystem; detach it first "
				      "(losetup -d /dev/%s)", path, de->d_name,
				      de->d_name);
	}
	closedir(d);
	return ret;
}

/* Is fd name of process pid (its /proc fd directory: dfd) ours to mind? */
static bool fd_matches(int dfd, const char *name, const struct ident *id)
{
	char link[64];
	struct ident other;
	struct stat st;
	ssize_t n = readlinkat(dfd, name, link, sizeof(link) - 1);

	/* sockets, pipes, anon inodes: not files; skip without stat */
	if (n <= 0 || link[0] != '/')
		return false;
	if (fstatat(dfd, name, &st, 0) != 0)
		return false;
	if (S_ISREG(st.st_mode))
		/* a writer of the file may write any of its bytes */
		return id->file && st.st_dev == id->dev && st.st_ino == id->ino;
	if (!S_ISBLK(st.st_mode))
		return false;
	if (id->blk && st.st_rdev == id->rdev)
		return true;
	/* the whole disk, a partition, a loop device over the file */
	memset(&other, 0, sizeof(other));
	blk_ident(st.st_rdev, 0, 0, &other);
	if (id->file != other.file ||
	    (id->file && (other.dev != id->dev || other.ino != id->ino)) ||
	    (!id->file && other.whole != id->whole))
		return false;
	return overlap(other.start, other.end, id->start, id->end);
}

/* Open for writing, by the flags in /proc/PID/fdinfo/FD? */
static bool fd_writes(const char *pid, const char *name)
{
	char p[600], line[128];
	unsigned long flags;
	bool w = false;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%s/fdinfo/%s", pid, name);
	f = fopen(p, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %lo", &flags) == 1) {
			w = (flags & O_ACCMODE) != O_RDONLY;
			break;
		}
	fclose(f);
	return w;
}

/*
 * Another process with the bytes open for writing?  -EBUSY naming it.
 * *ours: the only such processes are other xfsdefrag runs (which, the
 * lock being ours, are on their way out: worth a second look).
 */
static int scan_writers(const char *path, const struct ident *id,
			bool *ours, struct err *e)
{
	char self[24], p[300], comm[64];
	struct dirent *pe, *fe;
	struct err first = { 0 };
	DIR *proc, *fds;
	int ret = 0;

	*ours = false;
	snprintf(self, sizeof(self), "%ld", (long)getpid());
	proc = opendir("/proc");
	if (!proc)
		return 0;
	while (!ret && (pe = readdir(proc)) != NULL) {
		if (!isdigit((unsigned char)pe->d_name[0]) ||
		    strcmp(pe->d_name, self) == 0 || strlen(pe->d_name) > 20)
			continue;
		snprintf(p, sizeof(p), "/proc/%s/fd", pe->d_name);
		fds = opendir(p);
		if (!fds)
			continue;	/* gone, or not ours to see */
		while (!ret && (fe = readdir(fds)) != NULL) {
			if (fe->d_name[0] == '.' ||
			    !fd_matches(dirfd(fds), fe->d_name, id) ||
			    !fd_writes(pe->d_name, fe->d_name))
				continue;
			snprintf(p, sizeof(p), "/proc/%s/comm", pe->d_name);
			if (read_small(p, comm, sizeof(comm)))
				snprintf(comm, sizeof(comm), "?");
			*ours = true;
			if (strncmp(comm, "xfsdefrag", 9) != 0) {
				ret = -EBUSY;	/* not one of ours: no wait */
				err_clear(&first);	/* name this one */
			}
			err_set(&first, -EBUSY, "refusing to write: process "
				"%s (%s) has %s%s open for writing (fd %s)",
				pe->d_name, comm,
				id->loop[0] ? "the file behind " : "", path,
				fe->d_name);
		}
		closedir(fds);
	}
	closedir(proc);
	if (ret || *ours) {
		*ours = !ret;
		return err_set(e, first.code, "%s", first.msg);
	}
	return 0;
}

/*
 * With the lock ours, another xfsdefrag that opened the image just now
 * fails on the lock and closes it: the first holder wins.  Anything else
 * open for writing is refused at once.
 */
static int check_writers(const char *path, const struct ident *id,
			 struct err *e)
{
	bool ours;
	int tries, ret;

	for (tries = 0;; tries++) {
		struct err scan = { 0 };

		ret = scan_writers(path, id, &ours, &scan);
		if (ret == 0 || !ours || tries == 40)
			return ret ? err_set(e, ret, "%s", scan.msg) : 0;
		usleep(50000);
	}
}

/* The first holder of sysfs block directory dir, or "" (0 / 1). */
static bool first_holder(const char *dir, char *name, size_t len)
{
	char p[600];
	struct dirent *de;
	DIR *d;

	name[0] = '\0';
	snprintf(p, sizeof(p), "%s/holders", dir);
	d = opendir(p);
	if (!d)
		return false;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.') {
			snprintf(name, len, "%s", de->d_name);
			break;
		}
	closedir(d);
	return name[0] != '\0';
}

/*
 * A device-mapper or md device built on the bytes: on the whole disk,
 * or on a partition of it that overlaps them.
 */
static int check_holders(const char *path, const struct ident *id,
			 struct err *e)
{
	char p[96], real[512], sub[800], who[256];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (!id->blk)
		return 0;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(id->whole),
		 minor(id->whole));
	if (!realpath(p, real))
		return 0;
	if (first_holder(real, who, sizeof(who)))
		return err_set(e, -EBUSY, "refusing to write: %s is held by "
			       "%s (a device-mapper or md device is built on "
			       "%s)", path, who, id->whole == id->rdev ?
			       "it" : "its disk");
	d = opendir(real);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d)) != NULL) {
		uint64_t st, sz;

		if (de->d_name[0] == '.' || strlen(de->d_name) > 255)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/partition", real,
			 de->d_name);
		if (access(sub, F_OK) != 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/start", real, de->d_name);
		if (read_u64(sub, &st))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/size", real, de->d_name);
		if (read_u64(sub, &sz) ||
		    !overlap(st * 512, (st + sz) * 512, id->wstart, id->wend))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", real, de->d_name);
		if (first_holder(sub, who, sizeof(who)))
			ret = err_set(e, -EBUSY, "refusing to write: %s is "
				      "held by %s (a device-mapper or md "
				      "device is built on %s%s)", path, who,
				      id->whole == id->rdev ? "its partition " :
				      "", id->whole == id->rdev ? de->d_name :
				      "it");
	}
	closedir(d);
	return ret;
}

int excl_take(const char *path, int fd, uint64_t off, uint64_t len,
	      struct excl **out, struct err *e)
{
	struct excl *x = calloc(1, sizeof(*x));
	struct ident id;
	int ret;

	*out = NULL;
	if (!x)
		return err_set(e, -ENOMEM, "out of memory");
	x->lockfd = -1;
	x->backfd = -1;
	ret = resolve(path, fd, off, len, &id, e);
	/* the lock first: two racing writers serialize on it */
	if (ret == 0)
		ret = take_lock(path, &id, x, e);
	/* other tools lock the whole file; a part of it, shared */
	if (ret == 0 && !id.blk &&
	    flock(fd, (len ? LOCK_SH : LOCK_EX) | LOCK_NB) < 0)
		ret = errno == EWOULDBLOCK ?
		      err_set(e, -EBUSY, "refusing to write: %s is busy: "
			      "another process holds a lock on it", path) :
		      err_set(e, -errno, "%s: flock: %s", path,
			      strerror(errno));
	if (ret == 0 && id.loop[0] && id.file)
		ret = lock_backing(path, &id, x, e);
	if (ret == 0)
		ret = check_loops(path, &id, e);
	if (ret == 0)
		ret = check_holders(path, &id, e);
	if (ret == 0)
		ret = check_writers(path, &id, e);
	if (ret == 0) {
		x->id = malloc(sizeof(*x->id));
		x->path = strdup(path);
		if (!x->id || !x->path)
			ret = err_set(e, -ENOMEM, "out of memory");
		else
			*x->id = id;
	}
	if (ret) {
		excl_release(x);
		return ret;
	}
	*out = x;
	return 0;
}

int excl_recheck(const struct excl *x, struct err *e)
{
	if (!x || !x->id)
		return 0;
	return check_writers(x->path, x->id, e);
}

int excl_bytes_identity(const char *path, int fd, dev_t *dev, ino_t *ino,
			struct err *e)
{
	struct ident id;
	int ret = resolve(path, fd, 0, 0, &id, e);

	if (ret)
		return ret;
	if (!id.file)
		return -ENOENT;
	*dev = id.dev;
	*ino = id.ino;
	return 0;
}

void excl_release(struct excl *x)
{
	if (!x)
		return;
	if (x->lockfd >= 0)
		close(x->lockfd);	/* drops the flock */
	if (x->backfd >= 0)
		close(x->backfd);
	free(x->id);
	free(x->path);
	free(x);
}
