/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/outfile.h"
#include "core/base/array.h"
#include "core/base/excl.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void outfile_init(struct outfile_set *s)
{
	memset(s, 0, sizeof(*s));
}

void outfile_release(struct outfile_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->at[i].name);
		free(s->at[i].canon);
	}
	free(s->at);
	memset(s, 0, sizeof(*s));
}

/*
 * The canonical name of path, which need not exist: its directory
 * resolved, then its last component (a symlink there is followed while
 * it resolves).  NULL when the directory does not resolve.
 */
static char *canon_path(const char *path)
{
	char *full = realpath(path, NULL), *d, *b, *out = NULL;
	char *dcopy, *bcopy;

	if (full)
		return full;
	dcopy = strdup(path);
	bcopy = strdup(path);
	if (dcopy && bcopy) {
		d = realpath(dirname(dcopy), NULL);
		b = basename(bcopy);
		if (d && asprintf(&out, "%s/%s", strcmp(d, "/") ? d : "",
				  b) < 0)
			out = NULL;
		free(d);
	}
	free(dcopy);
	free(bcopy);
	return out;
}

static int add(struct outfile_set *s, const char *name, const char *role,
	       const struct stat *st, const char *canon, struct err *e)
{
	if (array_grow((void **)&s->at, &s->cap, s->n, sizeof(*s->at), 8))
		return err_set(e, -ENOMEM, "out of memory");
	memset(&s->at[s->n], 0, sizeof(s->at[s->n]));
	s->at[s->n].name = strdup(name);
	s->at[s->n].canon = canon ? strdup(canon) : NULL;
	s->at[s->n].role = role;
	if (!s->at[s->n].name || (canon && !s->at[s->n].canon)) {
		free(s->at[s->n].name);
		free(s->at[s->n].canon);
		return err_set(e, -ENOMEM, "out of memory");
	}
	if (st) {
		s->at[s->n].dev = st->st_dev;
		s->at[s->n].ino = st->st_ino;
		s->at[s->n].have_id = true;
	}
	s->n++;
	return 0;
}

int outfile_keep_image(struct outfile_set *s, const char *image,
		       struct err *e)
{
	struct stat st;
	int fd, ret;

	if (stat(image, &st))
		return 0;
	ret = add(s, image, "image", &st, NULL, e);
	if (ret || !S_ISBLK(st.st_mode))
		return ret;
	/* a loop device: its backing file is the image too */
	fd = open(image, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	memset(&st, 0, sizeof(st));
	if (excl_bytes_identity(image, fd, &st.st_dev, &st.st_ino,
				&(struct err){ 0 }) == 0)
		ret = add(s, image, "file behind the image", &st, NULL,
			  e);
	close(fd);
	return ret;
}

/* The index of the member of s that st (or canon) names, or -1. */
static int match(const struct outfile_set *s, const struct stat *st,
		 const char *canon)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (st && s->at[i].have_id && s->at[i].dev == st->st_dev &&
		    s->at[i].ino == st->st_ino)
			return (int)i;
		if (canon && s->at[i].canon && !strcmp(s->at[i].canon, canon))
			return (int)i;
	}
	return -1;
}

static int refuse(const struct outfile_set *s, int i, const char *path,
		  const char *what, struct err *e)
{
	return err_set(e, -EEXIST, "refusing to write %s %s: it is the %s %s",
		       what, path, s->at[i].role, s->at[i].name);
}

int outfile_claim(struct outfile_set *s, const char *path, const char *what,
		  struct err *e)
{
	char *canon = canon_path(path);
	struct stat st;
	bool exists = stat(path, &st) == 0;
	int other = match(s, exists ? &st : NULL, canon);
	int ret;

	if (other >= 0)
		ret = refuse(s, other, path, what, e);
	else if (exists && S_ISBLK(st.st_mode))
		ret = err_set(e, -EINVAL, "refusing to write %s %s: it is a "
			      "block device", what, path);
	else
		ret = add(s, path, what, exists ? &st : NULL, canon, e);
	free(canon);
	return ret;
}

int outfile_open(struct outfile_set *s, const char *path, const char *what,
		 bool excl, int *fd, bool *created, struct err *e)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY;
	struct stat st;
	int f, ret, other;

	*fd = -1;
	*created = false;
	/* never open a device for writing, even to look at it */
	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		return err_set(e, -EINVAL, "refusing to write %s %s: it is a "
			       "block device", what, path);
	f = open(path, flags | O_EXCL, 0644);
	*created = f >= 0;
	if (f < 0 && !excl && errno == EEXIST)
		f = open(path, flags & ~O_CREAT);
	if (f < 0)
		return err_set(e, -errno, errno == EEXIST ?
			       "refusing to write %s %s: it exists (remove it, "
			       "or name another)" : "cannot create %s %s: %s",
			       what, path, strerror(errno));
	if (fstat(f, &st)) {
		ret = err_set(e, -errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	other = match(s, &st, NULL);
	if (other >= 0) {
		ret = refuse(s, other, path, what, e);
		goto fail;
	}
	/* a file that was there is truncated only now (and a failed
	 * command must not remove it: *created is false) */
	if (S_ISREG(st.st_mode) && st.st_size && ftruncate(f, 0)) {
		ret = err_set(e, -errno, "cannot truncate %s %s: %s", what,
			      path, strerror(errno));
		goto fail;
	}
	ret = add(s, path, what, &st, NULL, e);
	if (ret)
		goto fail;
	*fd = f;
	return 0;
fail:
	close(f);
	if (*created)
		unlink(path);	/* empty, and ours */
	*created = false;
	return ret;
}
