/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/fs/bmapfmt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* io/bmap.c: flag bits of the verbose FLAGS column */
#define FLG_SHARED	0100000
#define FLG_PRE		0010000
#define FLG_BSU		0001000
#define FLG_ESU		0000100
#define FLG_BSW		0000010
#define FLG_ESW		0000001
#define NFLG		6
#define MINRANGE_WIDTH	16
#define MINAG_WIDTH	2
#define MINTOT_WIDTH	5

/* A line being built; emitted whole. */
struct line_buf {
	char s[512];
	size_t len;
	bmapfmt_line_fn fn;
	void *priv;
};

__attribute__((format(printf, 2, 3)))
static void put(struct line_buf *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->s))
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->s + l->len, sizeof(l->s) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
	if (l->len >= sizeof(l->s))
		l->len = sizeof(l->s) - 1;
}

static void eol(struct line_buf *l)
{
	l->s[l->len] = '\0';
	l->fn(l->priv, l->s);
	l->len = 0;
}

static int numlen(int64_t v)
{
	int n = 1;

	while (v >= 10 || v <= -10) {
		v /= 10;
		n++;
	}
	return v < 0 ? n + 1 : n;
}

static void fmt_plain(struct line_buf *l, const struct getbmap_row *v, size_t n,
		      bool lflag)
{
	size_t i;

	for (i = 0; i < n; i++) {
		put(l, "\t%zu: [%" PRId64 "..%" PRId64 "]: ", i, v[i].offset,
		    v[i].offset + v[i].length - 1);
		if (v[i].block == -1)
			put(l, "hole");
		else
			put(l, "%" PRId64 "..%" PRId64, v[i].block,
			    v[i].block + v[i].length - 1);
		if (lflag)
			put(l, " %" PRId64 " blocks", v[i].length);
		eol(l);
	}
}

int bmapfmt_check(const struct fs *fs, struct err *e)
{
	const struct od_sb *sb = &fs->sb;
	const char *why = NULL;

	if (sb->unit && !sb->width)
		why = "a stripe unit needs a stripe width";
	else if (!sb->unit && sb->width)
		why = "a stripe width needs a stripe unit";
	else if (sb->unit && sb->width % sb->unit)
		why = "the width is not a multiple of the unit";
	if (!why)
		return 0;
	return err_set(e, -EFSCORRUPTED, "superblock 0: stripe unit %u and "
		       "width %u blocks: bad stripe geometry (%s)", sb->unit,
		       sb->width, why);
}

static void fmt_verbose(struct line_buf *l, const struct fs *fs,
			const struct inode *ip, const struct getbmap_row *v,
			size_t n, const struct bmapfmt_opts *o)
{
	/* io/bmap.c: realtime files have no AG columns */
	bool is_rt = !o->aflag && (ip->di.flags & OD_DIFLAG_REALTIME);
	int64_t bbperag = 0, sunit = 0, swidth = 0;
	int foff_w = MINRANGE_WIDTH, boff_w = MINRANGE_WIDTH;
	int aoff_w = MINRANGE_WIDTH, tot_w = MINTOT_WIDTH, agno_w;
	char rbuf[64], bbuf[64], abuf[64];
	int flg;
	size_t i;

	if (!is_rt) {
		bbperag = (int64_t)fs->sb.agblocks * fs->sb.blocksize / 512;
		sunit = (int64_t)fs->sb.unit * fs->sb.blocksize / 512;
		swidth = (int64_t)fs->sb.width * fs->sb.blocksize / 512;
		/* a unit without a width cannot flag anything (nor divide) */
		if (!sunit || !swidth)
			sunit = swidth = 0;
	}
	flg = (int)(sunit | o->pflag);
	/* first pass: column widths */
	for (i = 0; i < n; i++) {
		snprintf(rbuf, sizeof(rbuf), "[%" PRId64 "..%" PRId64 "]:",
			 v[i].offset, v[i].offset + v[i].length - 1);
		if (v[i].oflags & GETBMAP_OF_PREALLOC)
			flg = 1;
		if ((int)strlen(rbuf) > foff_w)
			foff_w = (int)strlen(rbuf);
		if (numlen(v[i].length) > tot_w)
			tot_w = numlen(v[i].length);
		if (v[i].block == -1)
			continue;
		snprintf(bbuf, sizeof(bbuf), "%" PRId64 "..%" PRId64,
			 v[i].block, v[i].block + v[i].length - 1);
		if ((int)strlen(bbuf) > boff_w)
			boff_w = (int)strlen(bbuf);
		if (!is_rt) {
			int64_t agno = v[i].block / bbperag;
			int64_t agoff = v[i].block - agno * bbperag;

			snprintf(abuf, sizeof(abuf), "(%" PRId64 "..%" PRId64 ")",
				 agoff, agoff + v[i].length - 1);
			if ((int)strlen(abuf) > aoff_w)
				aoff_w = (int)strlen(abuf);
		} else {
			aoff_w = 0;
		}
	}
	agno_w = is_rt ? 0 : (numlen(fs->sb.agcount) > MINAG_WIDTH ?
			      numlen(fs->sb.agcount) : MINAG_WIDTH);
	put(l, "%4s: %-*s %-*s %*s %-*s %*s%s", "EXT", foff_w, "FILE-OFFSET",
	    boff_w, is_rt ? "RT-BLOCK-RANGE" : "BLOCK-RANGE", agno_w,
	    is_rt ? "" : "AG", aoff_w, is_rt ? "" : "AG-OFFSET", tot_w,
	    "TOTAL", flg ? " FLAGS" : "");
	eol(l);
	for (i = 0; i < n; i++) {
		int64_t block = v[i].block;

		flg = 0;
		if (v[i].oflags & GETBMAP_OF_PREALLOC)
			flg |= FLG_PRE;
		if (v[i].oflags & GETBMAP_OF_SHARED)
			flg |= FLG_SHARED;
		/* holes (-1) get stripe flags too, exactly as xfs_bmap */
		if (sunit) {
			if (block % sunit != 0)
				flg |= FLG_BSU;
			if ((block + v[i].length) % sunit != 0)
				flg |= FLG_ESU;
			if (block % swidth != 0)
				flg |= FLG_BSW;
			if ((block + v[i].length) % swidth != 0)
				flg |= FLG_ESW;
		}
		snprintf(rbuf, sizeof(rbuf), "[%" PRId64 "..%" PRId64 "]:",
			 v[i].offset, v[i].offset + v[i].length - 1);
		if (block == -1) {
			put(l, "%4zu: %-*s %-*s %*s %-*s %*" PRId64, i, foff_w,
			    rbuf, boff_w, "hole", agno_w, "", aoff_w, "",
			    tot_w, v[i].length);
			eol(l);
			continue;
		}
		snprintf(bbuf, sizeof(bbuf), "%" PRId64 "..%" PRId64, block,
			 block + v[i].length - 1);
		put(l, "%4zu: %-*s %-*s", i, foff_w, rbuf, boff_w, bbuf);
		if (!is_rt) {
			int64_t agno = block / bbperag;
			int64_t agoff = block - agno * bbperag;

			snprintf(abuf, sizeof(abuf), "(%" PRId64 "..%" PRId64 ")",
				 agoff, agoff + v[i].length - 1);
			put(l, " %*d %-*s", agno_w, (int)agno, aoff_w, abuf);
		} else {
			put(l, "  ");
		}
		put(l, " %*" PRId64, tot_w, v[i].length);
		if (flg != 0 || o->pflag)
			put(l, " %-*.*o", NFLG, NFLG, flg);
		eol(l);
	}
	/* io/bmap.c tests the last row's flags here, a quirk we keep */
	if ((flg || o->pflag) && o->vflag > 1) {
		static const struct { int bit; const char *what; } legend[] = {
			{ FLG_SHARED, "Shared extent" },
			{ FLG_PRE, "Unwritten preallocated extent" },
			{ FLG_BSU, "Doesn't begin on stripe unit" },
			{ FLG_ESU, "Doesn't end   on stripe unit" },
			{ FLG_BSW, "Doesn't begin on stripe width" },
			{ FLG_ESW, "Doesn't end   on stripe width" },
		};

		put(l, " FLAG Values:");
		eol(l);
		for (i = 0; i < sizeof(legend) / sizeof(legend[0]); i++) {
			put(l, "    %*.*o %s", NFLG + 1, NFLG + 1, legend[i].bit,
			    legend[i].what);
			eol(l);
		}
	}
}

void bmapfmt(const struct fs *fs, const struct inode *ip,
	     const struct getbmap_row *v, size_t n,
	     const struct bmapfmt_opts *o, bmapfmt_line_fn fn, void *priv)
{
	struct line_buf l;

	l.len = 0;
	l.fn = fn;
	l.priv = priv;
	if (o->vflag)
		fmt_verbose(&l, fs, ip, v, n, o);
	else
		fmt_plain(&l, v, n, o->lflag);
}
