/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfs_bmap's output (xfs_io io/bmap.c), line by line, from getbmap rows:
 * shared by the bmap command and the TUI's file view.
 */
#ifndef CORE_BMAPFMT_H
#define CORE_BMAPFMT_H

#include <stdbool.h>

#include "core/fs/getbmap.h"

struct bmapfmt_opts {
	bool aflag;	/* attr fork: no realtime columns */
	bool lflag;	/* plain: append "N blocks" */
	bool pflag;	/* FLAGS column always, unwritten flagged */
	int vflag;	/* 0 plain, 1 table, 2 table + flag legend */
};

/* Receives each output line, without its newline. */
typedef void (*bmapfmt_line_fn)(void *priv, const char *line);

/*
 * The stripe geometry the FLAGS column needs (xfs_validate_stripe_geometry:
 * a unit and a width, or neither, the width a multiple of the unit): 0,
 * or -EFSCORRUPTED with a message naming the superblock's fields.
 */
int bmapfmt_check(const struct fs *fs, struct err *e);

/* The lines after "NAME:" for rows v[0..n) of inode ip.  Bad stripe
 * geometry (see bmapfmt_check) leaves the stripe flags out. */
void bmapfmt(const struct fs *fs, const struct inode *ip,
	     const struct getbmap_row *v, size_t n,
	     const struct bmapfmt_opts *o, bmapfmt_line_fn fn, void *priv);

#endif
