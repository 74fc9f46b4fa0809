/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag complete IMAGE PREFIX: the shell completion helper (hidden).
 * Lists the entries of the directory PREFIX names up to its last '/'
 * whose names begin with the rest, each as PREFIX's directory part plus
 * the name, a '/' after directories, and a NUL after each: names may
 * hold any byte but '/' and NUL, so NUL is the only safe separator.
 * Read only; no warnings (the shell would show them over the prompt).
 */
#include "cmd/cmd.h"
#include "core/fs/dir.h"
#include "core/fs/inode.h"
#include "core/fs/path.h"

#include <stdlib.h>
#include <string.h>

struct cctx {
	struct fs *fs;
	const char *dir;	/* PREFIX up to and including its last '/' */
	size_t dirlen;
	const char *base;	/* the rest: what names must begin with */
	size_t baselen;
	unsigned long printed;
};

static bool is_dir(struct cctx *c, uint64_t ino, uint8_t ftype)
{
	struct inode ip;
	struct err e = { 0 };

	if (ftype != OD_FT_UNKNOWN)
		return ftype == OD_FT_DIR;
	/* no ftype feature: ask the inode */
	return inode_read(c->fs, ino, &ip, &e) == 0 &&
	       od_mode_isdir(ip.di.mode);
}

static int entry(void *priv, const uint8_t *name, size_t namelen,
		 uint64_t ino, uint8_t ftype, struct err *e)
{
	struct cctx *c = priv;

	(void)e;
	if ((namelen == 1 && name[0] == '.') ||
	    (namelen == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (namelen < c->baselen || memcmp(name, c->base, c->baselen) != 0)
		return 0;
	fwrite(c->dir, 1, c->dirlen, stdout);
	fwrite(name, 1, namelen, stdout);
	if (is_dir(c, ino, ftype))
		fputc('/', stdout);
	fputc('\0', stdout);
	c->printed++;
	return 0;
}

int cmd_complete(int argc, char **argv, const struct cmd_hooks *h)
{
	struct cctx c = { 0 };
	struct err e = { 0 };
	struct dir d;
	const char *prefix, *slash;
	char *dirpath = NULL;
	uint64_t ino;
	int ret, status = EXIT_OK;

	(void)h;	/* the test binary's hooks touch nothing here */

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		cmd_usage("complete");
		return EXIT_OK;
	}
	if (argc != 3)
		return cmd_usage("complete");
	prefix = argv[2];
	slash = strrchr(prefix, '/');
	c.dir = prefix;
	c.dirlen = slash ? (size_t)(slash - prefix) + 1 : 0;
	c.base = prefix + c.dirlen;
	c.baselen = strlen(c.base);
	dirpath = strndup(prefix, c.dirlen);
	if (!dirpath)
		return EXIT_ERROR;
	/* quietly: no mount or log warnings under the prompt */
	if (fs_open(argv[1], 0, &c.fs, &e)) {
		status = cmd_fail(&e);
		goto out;
	}
	ret = path_resolve(c.fs, c.dirlen ? dirpath : "/", true, &ino, NULL,
			   &e);
	if (!ret)
		ret = dir_open(c.fs, ino, &d, &e);
	if (ret) {
		/* a directory that is not there completes to nothing */
		status = ret == -ENOENT || ret == -ENOTDIR ? EXIT_OK :
							     cmd_fail(&e);
		goto out;
	}
	if (dir_iterate(&d, entry, &c, &e))
		status = cmd_fail(&e);
	dir_close(&d);
out:
	fs_close(c.fs);
	free(dirpath);
	return status;
}
