/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag complete [--partition N] IMAGE PREFIX: the shell completion
 * helper (hidden).
 * complete --commands, --options COMMAND and --operands COMMAND print
 * the command list and a command's option table (opt_dump) and operands
 * for the completion script and the tests.
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

/* complete --commands | --options CMD | --operands CMD */
static int tables(struct cmd_call *c)
{
	const char *mode = c->ops[0];
	const struct cmd *cmd;

	if (strcmp(mode, "--commands") == 0 && c->nops == 1) {
		const struct cmd *const *p;

		for (p = cmd_product(); *p; p++)
			if ((*p)->summary)
				printf("%s\n", (*p)->name);
		for (p = c->extra; p && *p; p++)
			if ((*p)->summary)
				printf("%s\n", (*p)->name);
		return EXIT_OK;
	}
	if (c->nops != 2 || (strcmp(mode, "--options") &&
			     strcmp(mode, "--operands")))
		return cmd_usagef(c, "complete: usage: complete [--partition "
				  "N] IMAGE PREFIX | --commands | --options "
				  "COMMAND | --operands COMMAND");
	cmd = cmd_find(c->ops[1], c->extra);
	if (!cmd)
		return cmd_usagef(c, "complete: unknown command '%s'",
				  c->ops[1]);
	if (strcmp(mode, "--operands") == 0)
		printf("%s\n", cmd->operands);
	else if (cmd->opts)
		opt_dump(stdout, cmd->opts);
	return EXIT_OK;
}

struct complete_args {
	unsigned partition;
};

/* Its one option, parsed here: the table modes are operands. */
static const struct opt opts[] = {
	CMD_PART_OPT(struct complete_args, partition),
	OPT_END,
};

static int complete(struct cmd_call *c)
{
	struct complete_args a = { 0 };
	struct cctx cc = { 0 };
	struct err e = { 0 };
	struct dir d;
	const char *prefix, *slash;
	char *dirpath = NULL;
	char **ops = c->ops, why[256];
	uint64_t ino;
	int ret, first, nops = c->nops, status = EXIT_OK;

	if (nops >= 1 && strncmp(ops[0], "--partition", 11) == 0) {
		if (opt_parse(opts, c->argc, c->argv, &a, &first, why,
			      sizeof(why)))
			return cmd_usagef(c, "%s", why);
		ops = c->argv + first;
		nops = c->argc - first;
	} else if (nops >= 1 && ops[0][0] == '-') {
		return tables(c);
	}
	if (nops != 2)
		return cmd_usagef(c, "complete: usage: complete [--partition "
				  "N] IMAGE PREFIX | --commands | --options "
				  "COMMAND | --operands COMMAND");
	prefix = ops[1];
	slash = strrchr(prefix, '/');
	cc.dir = prefix;
	cc.dirlen = slash ? (size_t)(slash - prefix) + 1 : 0;
	cc.base = prefix + cc.dirlen;
	cc.baselen = strlen(cc.base);
	dirpath = strndup(prefix, cc.dirlen);
	if (!dirpath)
		return EXIT_ERROR;
	/* quietly: no mount or log warnings under the prompt */
	if (fs_open(ops[0], FS_PART(a.partition), &cc.fs, &e)) {
		status = cmd_fail(c, &e);
		goto out;
	}
	ret = path_resolve(cc.fs, cc.dirlen ? dirpath : "/", true, &ino, NULL,
			   &e);
	if (!ret)
		ret = dir_open(cc.fs, ino, &d, &e);
	if (ret) {
		/* a directory that is not there completes to nothing */
		status = ret == -ENOENT || ret == -ENOTDIR ? EXIT_OK :
							     cmd_fail(c, &e);
		goto out;
	}
	if (dir_iterate(&d, entry, &cc, &e))
		status = cmd_fail(c, &e);
	dir_close(&d);
out:
	fs_close(cc.fs);
	free(dirpath);
	return status;
}

/* Hidden: the shell completion's helper (xfsdefrag(8), SHELL COMPLETION). */
const struct cmd cmd_complete = {
	.name = "complete", .fn = complete,
	.operands = "IMAGE PREFIX", .min_ops = 1, .max_ops = 2,
};
