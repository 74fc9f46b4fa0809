/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/fs/path.h"
#include "core/fs/dir.h"
#include "core/fs/symlink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SYMLINKS	40	/* as Linux's MAXSYMLINKS */
#define MAX_PATH	4096

struct walk {
	struct fs *fs;
	struct path_stats *st;
	unsigned links;
};

static int walk_path(struct walk *w, uint64_t start, const char *path,
		     bool follow_last, uint64_t *out, struct err *e);

static int step(struct walk *w, uint64_t dir, const char *name, size_t len,
		uint64_t *ino, struct err *e)
{
	struct inode ip;
	struct dir d;
	int ret;

	ret = inode_read(w->fs, dir, &ip, e);
	if (ret)
		return ret;
	if (!od_mode_isdir(ip.di.mode))
		return -ENOTDIR;
	ret = dir_open_inode(w->fs, &ip, &d, e);
	if (ret)
		return ret;
	ret = dir_lookup(&d, (const uint8_t *)name, len, ino, e);
	if (w->st) {
		w->st->dirblocks_read += d.dirblocks_read;
		w->st->lookups++;
		if (!ret && d.index_damaged) {
			w->st->index_damaged++;
			snprintf(w->st->warning, sizeof(w->st->warning), "%s",
				 d.index_warn);
		}
	}
	dir_close(&d);
	return ret;
}

static int follow(struct walk *w, uint64_t dir, uint64_t *ino,
		  struct err *e)
{
	char target[OD_SYMLINK_MAXLEN + 1];
	struct inode ip;
	int ret;

	for (;;) {
		ret = inode_read(w->fs, *ino, &ip, e);
		if (ret)
			return ret;
		if (!od_mode_islnk(ip.di.mode))
			return 0;
		if (++w->links > MAX_SYMLINKS)
			return -ELOOP;
		ret = symlink_read(w->fs, &ip, target, e);
		if (ret)
			return ret;
		ret = walk_path(w, target[0] == '/' ? w->fs->sb.rootino : dir,
				target, true, ino, e);
		if (ret)
			return ret;
	}
}

static int walk_path(struct walk *w, uint64_t start, const char *path,
		     bool follow_last, uint64_t *out, struct err *e)
{
	const char *p = path;
	uint64_t cur = start;
	int ret;

	while (*p == '/')
		p++;
	while (*p) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *next = p + len;
		bool last;
		uint64_t ino;

		while (*next == '/')
			next++;
		last = *next == '\0';
		if (len > 255)
			return -ENAMETOOLONG;
		ret = step(w, cur, p, len, &ino, e);
		if (ret)
			return ret;
		/* a trailing slash asks for a directory: follow then too */
		if (!last || follow_last || end) {
			ret = follow(w, cur, &ino, e);
			if (ret)
				return ret;
		}
		cur = ino;
		p = next;
	}
	*out = cur;
	return 0;
}

int path_resolve(struct fs *fs, const char *path, bool follow_last,
		 uint64_t *ino, struct path_stats *st, struct err *e)
{
	struct walk w = { fs, st, 0 };
	int ret;

	if (strlen(path) >= MAX_PATH)
		return err_set(e, -ENAMETOOLONG, "%s: path too long", path);
	ret = walk_path(&w, fs->sb.rootino, path, follow_last, ino, e);
	if (ret == -ENOENT || ret == -ENOTDIR || ret == -ELOOP ||
	    ret == -ENAMETOOLONG)
		return err_set(e, ret, "%s: %s", path, strerror(-ret));
	return ret;
}
