/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A command's failures: one line on stderr, and the first one kept for
 * --json, where it becomes {"error": {"code", "message", "structure"}}
 * (documented in xfsdefrag(8), JSON ERRORS).
 */
#include "cmd/cmd.h"
#include "cmd/json.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

int cmd_exit_code(int err)
{
	if (err == -EFSCORRUPTED || err == -EFSBADCRC)
		return EXIT_CORRUPT;
	return err ? EXIT_ERROR : EXIT_OK;
}

static void keep(struct cmd_call *c, bool usage, int err, const char *msg)
{
	struct cmd_failure *f = &c->fail;

	if (f->set)
		return;		/* the first failure is the one to name */
	f->set = true;
	f->usage = usage;
	f->err = err;
	snprintf(f->msg, sizeof(f->msg), "%s", msg);
	cmd_err_structure(msg, f->structure, sizeof(f->structure));
}

int cmd_fail(struct cmd_call *c, const struct err *e)
{
	const char *msg = e->msg[0] ? e->msg : strerror(-e->code);

	cmd_error("%s", msg);
	keep(c, false, e->code, msg);
	return cmd_exit_code(e->code);
}

int cmd_failf(struct cmd_call *c, int err, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cmd_error("%s", msg);
	keep(c, false, err, msg);
	return status;
}

int cmd_usagef(struct cmd_call *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cmd_error("%s", msg);
	keep(c, true, 0, msg);
	return EXIT_USAGE;
}

const char *cmd_errno_name(int err)
{
	err = -err;
	/* the kernel's names for these two: EUCLEAN and EBADMSG here */
	if (err == EFSCORRUPTED)
		return "EFSCORRUPTED";
	if (err == EFSBADCRC)
		return "EFSBADCRC";
#ifdef __GLIBC__
	if (strerrorname_np(err))
		return strerrorname_np(err);
#endif
	return "EIO";
}

/*
 * The words that name a structure at the head of core's messages
 * ("agf 3: bad crc", "inode 128: ...", "superblock (sector 0): ..."),
 * each with its number when it has one.
 */
static const char *const structures[] = {
	"superblock", "sb", "agf", "agi", "agfl", "ag", "inode", "directory",
	"dir", "bnobt", "cntbt", "inobt", "finobt", "rmapbt", "refcountbt",
	"bmbt", "attr", "symlink", "log", "block", "chunk",
};

void cmd_err_structure(const char *msg, char *out, size_t len)
{
	size_t i, n, w;

	out[0] = 0;
	for (i = 0; i < sizeof(structures) / sizeof(structures[0]); i++) {
		w = strlen(structures[i]);
		if (strncmp(msg, structures[i], w) != 0 ||
		    (msg[w] != ' ' && msg[w] != ':'))
			continue;
		n = w;
		/* "agf 3", "inode 128", "ag 2 block 5" stops at the number */
		if (msg[n] == ' ' && isdigit((unsigned char)msg[n + 1]))
			for (n++; isdigit((unsigned char)msg[n]) ||
			     msg[n] == 'x' || isxdigit((unsigned char)msg[n]);
			     n++)
				;
		snprintf(out, len, "%.*s", (int)n, msg);
		return;
	}
}

void cmd_json_failure(struct json *j, const struct cmd_call *c)
{
	const struct cmd_failure *f = &c->fail;

	if (!f->set) {
		json_null(j, "error");
		return;
	}
	json_obj_begin(j, "error");
	json_str(j, "code", f->usage ? "usage" : cmd_errno_name(f->err));
	json_str(j, "message", f->msg);
	json_str(j, "structure", f->structure[0] ? f->structure : NULL);
	json_obj_end(j);
}
