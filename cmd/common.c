/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd/cmd.h"
#include "core/relocate/exec.h"
#include "core/relocate/plan.h"
#include "core/base/utf8.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One line, whatever a name quoted in the message contains. */
void cmd_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: ", progname);
	cmd_put_escaped(stderr, msg);
	fputc('\n', stderr);
}

bool cmd_layout_615(const struct od_sb *sb)
{
	return od_sb_has_exchange(sb) || od_sb_has_parent(sb) ||
	       od_sb_has_metadir(sb) || od_sb_has_zoned(sb);
}

int cmd_open_ro(const char *path, unsigned flags, struct fs **fsp,
		struct err *e)
{
	struct fs *fs;
	int ret;

	ret = fs_open(path, flags & ~FS_RDWR, fsp, e);
	if (ret)
		return ret;
	fs = *fsp;
	if (fs->mounted)
		cmd_error("warning: %s is mounted%s%s; what is read may be "
			  "stale", path, fs->mountpoint[0] ? " on " : "",
			  fs->mountpoint);
	if (fs->log_state == FS_LOG_DIRTY)
		cmd_error("warning: %s: the log is dirty (%s); metadata may be "
			  "out of date until it is mounted or repaired", path,
			  fs->log_detail);
	else if (fs->log_state == FS_LOG_UNKNOWN)
		cmd_error("warning: %s: cannot tell whether the log is clean "
			  "(%s)", path, fs->log_detail);
	ret = fs_check_ag_headers(fs, e);
	if (ret == 0)
		ret = fs_unlinked_pending(fs, e);
	if (ret < 0) {
		fs_close(fs);
		*fsp = NULL;
		return ret;
	}
	if (ret > 0)
		cmd_error("warning: %s: unlinked inodes are pending (not "
			  "cleanly unmounted)", path);
	return 0;
}

const struct opt_choice cmd_order_choices[] = {
	{ "walk", WALK_READDIR },
	{ "name", WALK_NAME },
	{ "inode", WALK_INODE },
	{ NULL, 0 },
};

const struct opt_choice cmd_renumber_choices[] = {
	{ "auto", PR_AUTO },
	{ "all", PR_ALL },
	{ "none", PR_NONE },
	{ NULL, 0 },
};

void cmd_scan_setup(const struct cmd_scan *o, struct fs *fs)
{
	int ret;

	if (o->hooks && o->hooks->scan)
		o->hooks->scan(o->hooks->priv, fs);
	/*
	 * Without --direct a scan that reads the inodes once still reads
	 * from the device directly, but only once the page cache misses
	 * (core/base/reader.c), and where that cannot be, through the
	 * cache; one that reads them again reads through the cache, for
	 * the next read to find them there.
	 */
	if (!o->direct && o->again)
		return;
	ret = img_set_direct(fs->img, o->direct);
	if (ret && o->direct)
		cmd_error("warning: %s: no direct I/O (%s); reading through "
			  "the page cache", fs->path, strerror(-ret));
}

bool cmd_stdout_tty(void)
{
	return isatty(STDOUT_FILENO) == 1;
}

void cmd_put_escaped(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = utf8_seq_len(s);

		if (n == 1 && *s >= 0x20 && *s != 0x7f && *s != '\\') {
			fputc(*s, f);
		} else if (n == 1 && *s == '\\') {
			fputs("\\\\", f);
		} else if (n > 1) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		} else {
			fprintf(f, "\\x%02x", *s);
		}
		s++;
	}
}
