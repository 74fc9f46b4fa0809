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

/* Image files are mounted through loop devices: find ours in sysfs. */
static bool file_mounted(const struct stat *st, char *mountpoint, size_t len)
{
	struct dirent *de;
	bool found = false;
	DIR *d;

	d = opendir("/sys/block");
	if (!d)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		char p[512], backing[4096];
		unsigned maj, min;
		struct stat bst;
		FILE *f;

		if (strncmp(de->d_name, "loop", 4) != 0)
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
		snprintf(p, sizeof(p), "/sys/block/%s/dev", de->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &maj, &min) == 2)
			found = probe_dev_mounted(makedev(maj, min), mountpoint, len);
		fclose(f);
	}
	closedir(d);
	return found;
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
		return file_mounted(&st, mountpoint, len);
	return false;
}
