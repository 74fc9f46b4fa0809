/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/probe.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

int probe_fstype(const char *path, char *type, size_t len)
{
	blkid_probe pr;
	const char *val = NULL;
	size_t vlen;
	int ret;

	type[0] = '\0';
	pr = blkid_new_probe_from_filename(path);
	if (!pr)
		return -errno ? -errno : -EIO;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	ret = blkid_do_safeprobe(pr);
	if (ret == 0 &&
	    blkid_probe_lookup_value(pr, "TYPE", &val, &vlen) == 0 && val)
		snprintf(type, len, "%s", val);
	else if (ret == -2)
		snprintf(type, len, "%s", "ambivalent");
	blkid_free_probe(pr);
	return 0;
}

/* The filesystem type at [off, off + size) of the open file or device. */
static void part_fstype(int fd, uint64_t off, uint64_t size, char *type,
			size_t len)
{
	blkid_probe pr = blkid_new_probe();
	const char *val = NULL;

	type[0] = '\0';
	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)off,
				   (blkid_loff_t)size) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
		if (blkid_do_safeprobe(pr) == 0 &&
		    blkid_probe_lookup_value(pr, "TYPE", &val, NULL) == 0 && val)
			snprintf(type, len, "%s", val);
	}
	blkid_free_probe(pr);
}

/*
 * The device node of partition partno of whole disk dev: the child of
 * /sys/dev/block/MAJ:MIN whose "partition" file holds partno.
 */
static void part_dev(dev_t dev, unsigned partno, char *out, size_t len)
{
	char dir[64], p[384];
	struct dirent *de;
	DIR *d;

	out[0] = '\0';
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		unsigned n;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/partition", dir, de->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (fscanf(f, "%u", &n) == 1 && n == partno &&
		    snprintf(out, len, "/dev/%s", de->d_name) >= (int)len)
			out[0] = '\0';	/* too long to name */
		fclose(f);
		if (out[0])
			break;
	}
	closedir(d);
}

int probe_partitions(const char *path, char *pttype, size_t ptlen,
		     struct probe_part *parts, size_t max, size_t *n)
{
	blkid_partlist ls;
	blkid_parttable tab;
	blkid_probe pr;
	struct stat st;
	int i, np, fd;

	*n = 0;
	pttype[0] = '\0';
	pr = blkid_new_probe_from_filename(path);
	if (!pr)
		return errno ? -errno : -EIO;
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	ls = blkid_probe_get_partitions(pr);
	np = ls ? blkid_partlist_numof_partitions(ls) : 0;
	tab = ls ? blkid_partlist_get_table(ls) : NULL;
	if (np <= 0 || !tab) {
		blkid_free_probe(pr);
		return 0;
	}
	snprintf(pttype, ptlen, "%s", blkid_parttable_get_type(tab) ?
		 blkid_parttable_get_type(tab) : "unknown");
	fd = blkid_probe_get_fd(pr);
	if (fstat(fd, &st) != 0)
		memset(&st, 0, sizeof(st));
	for (i = 0; i < np; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);
		struct probe_part *pp;

		if (!par)
			continue;
		if (*n < max) {
			pp = &parts[*n];
			memset(pp, 0, sizeof(*pp));
			pp->partno = (unsigned)blkid_partition_get_partno(par);
			/* libblkid counts in 512-byte sectors */
			pp->start = (uint64_t)blkid_partition_get_start(par) * 512;
			pp->size = (uint64_t)blkid_partition_get_size(par) * 512;
			if (pp->size)
				part_fstype(fd, pp->start, pp->size, pp->fstype,
					    sizeof(pp->fstype));
			if (S_ISBLK(st.st_mode))
				part_dev(st.st_rdev, pp->partno, pp->dev,
					 sizeof(pp->dev));
		}
		(*n)++;
	}
	blkid_free_probe(pr);
	return 0;
}

/* Find "maj:min" in /proc/self/mountinfo; copy the mount point. */
bool probe_dev_mounted(dev_t dev, char *mountpoint, size_t len)
{
	char line[4096], want[32];
	bool found = false;
	FILE *f;

	snprintf(want, sizeof(want), "%u:%u", major(dev), minor(dev));
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char mm[32], mnt[2048];

		if (sscanf(line, "%*s %*s %31s %*s %2047s", mm, mnt) != 2)
			continue;
		if (strcmp(mm, want) == 0) {
			snprintf(mountpoint, len, "%s", mnt);
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/* A number from a small sysfs file (0 when unreadable). */
static uint64_t sys_u64(const char *p)
{
	unsigned long long v = 0;
	FILE *f = fopen(p, "re");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Is sysfs block directory dir (with a "dev" file) mounted? */
static bool sys_dev_mounted(const char *dir, char *mountpoint, size_t len)
{
	char p[700];
	unsigned maj, min;
	bool found = false;
	FILE *f;

	snprintf(p, sizeof(p), "%s/dev", dir);
	f = fopen(p, "re");
	if (!f)
		return false;
	if (fscanf(f, "%u:%u", &maj, &min) == 2)
		found = probe_dev_mounted(makedev(maj, min), mountpoint, len);
	fclose(f);
	return found;
}

/*
 * Image files are mounted through loop devices: find those over the
 * bytes [off, end) of the file in sysfs, mounted themselves or through
 * one of their partitions that covers some of those bytes.
 */
static bool file_mounted(const struct stat *st, uint64_t off, uint64_t end,
			 char *mountpoint, size_t len)
{
	struct dirent *de, *pe;
	bool found = false;
	DIR *d, *pd;

	d = opendir("/sys/block");
	if (!d)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		char p[300], q[700], backing[4096];
		uint64_t lo, sz;
		struct stat bst;
		FILE *f;

		if (strncmp(de->d_name, "loop", 4) != 0 ||
		    strlen(de->d_name) > 64)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file",
			 de->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (!fgets(backing, sizeof(backing), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		backing[strcspn(backing, "\n")] = '\0';
		if (stat(backing, &bst) != 0 || bst.st_dev != st->st_dev ||
		    bst.st_ino != st->st_ino)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s", de->d_name);
		snprintf(q, sizeof(q), "%s/loop/offset", p);
		lo = sys_u64(q);
		snprintf(q, sizeof(q), "%s/size", p);
		sz = sys_u64(q) * 512;
		if (lo < end && off < lo + sz &&
		    sys_dev_mounted(p, mountpoint, len)) {
			found = true;
			break;
		}
		pd = opendir(p);
		if (!pd)
			continue;
		while (!found && (pe = readdir(pd)) != NULL) {
			uint64_t ps, pz;

			if (strncmp(pe->d_name, de->d_name,
				    strlen(de->d_name)) != 0 ||
			    strlen(pe->d_name) > 64)
				continue;
			snprintf(q, sizeof(q), "%s/%s/start", p, pe->d_name);
			ps = lo + sys_u64(q) * 512;
			snprintf(q, sizeof(q), "%s/%s/size", p, pe->d_name);
			pz = sys_u64(q) * 512;
			snprintf(q, sizeof(q), "%s/%s", p, pe->d_name);
			if (ps < end && off < ps + pz &&
			    sys_dev_mounted(q, mountpoint, len))
				found = true;
		}
		closedir(pd);
	}
	closedir(d);
	return found;
}

bool probe_mounted_range(const char *path, uint64_t off, uint64_t len,
			 char *mountpoint, size_t mlen)
{
	struct stat st;

	mountpoint[0] = '\0';
	if (stat(path, &st) != 0)
		return false;
	if (S_ISBLK(st.st_mode))
		return probe_dev_mounted(st.st_rdev, mountpoint, mlen);
	if (S_ISREG(st.st_mode))
		return file_mounted(&st, off, len ? off + len : UINT64_MAX,
				    mountpoint, mlen);
	return false;
}

bool probe_mounted(const char *path, char *mountpoint, size_t len)
{
	struct stat st;

	mountpoint[0] = '\0';
	if (stat(path, &st) != 0)
		return false;
	if (S_ISBLK(st.st_mode))
		return probe_dev_mounted(st.st_rdev, mountpoint, len);
	if (S_ISREG(st.st_mode))
		return file_mounted(&st, 0, UINT64_MAX, mountpoint, len);
	return false;
}
