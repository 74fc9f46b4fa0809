/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo of a run in passes (chain.h): find the files, check each and
 * the links between them, find where the filesystem is (the superblock's
 * mark names the file an interrupted undo was restoring, or the pass an
 * interrupted run was writing), then check every pass to be undone, last
 * first, each against the image as undoing the passes after it would
 * leave it (chain_view.c).  Nothing is written before all of it holds
 * (chain_apply.c writes).
 *
 * What can be checked before writing, and is: each file's header and
 * records (checksums, sequence, batches), its seal and proof adding up;
 * every file present from FILE to the last, none missing after the last
 * (the link record the next pass appends to the file before it), each
 * naming its pass, the file before (nonce, seal) and the superblock
 * that file's pass left; the log unchanged since the run began; the last
 * pass's proof against the image; each earlier pass's proof (every block
 * it wrote, its final superblock, its vacated blocks or their copies)
 * against the records of the passes after it and, where none of them
 * holds a block, against the image.  What cannot: that a record holds
 * the bytes the pass found, beyond its crc (the journal is trusted as far
 * as its checksums go), and blocks no pass wrote or journaled.
 */
#include "core/undo/chain_priv.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PASSES	65536u

void undo_chain_name(const char *base, unsigned n, char *buf, size_t len)
{
	if (n <= 1)
		snprintf(buf, len, "%s", base);
	else
		snprintf(buf, len, "%s.%u", base, n);
}

void chain_say(struct uchain *c, bool error, const char *fmt, ...)
{
	char line[1400];
	va_list ap;

	if (!c->o->say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->o->say(c->o->priv, error, line);
}

/* The highest k with base.k in base's directory (1 if none). */
static unsigned last_pass(const char *file)
{
	const char *slash = strrchr(file, '/');
	const char *name = slash ? slash + 1 : file;
	size_t nl = strlen(name);
	char dir[1100];
	struct dirent *d;
	unsigned max = 1;
	DIR *dp;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file + 1), file);
	else
		snprintf(dir, sizeof(dir), ".");
	dp = opendir(dir);
	if (!dp)
		return 1;
	while ((d = readdir(dp)) != NULL) {
		const char *p = d->d_name + nl + 1;
		unsigned long k;
		char *end;

		if (strncmp(d->d_name, name, nl) != 0 || d->d_name[nl] != '.' ||
		    *p < '1' || *p > '9')
			continue;
		k = strtoul(p, &end, 10);
		if (*end == '\0' && k >= 2 && k <= MAX_PASSES && k > max)
			max = (unsigned)k;
	}
	closedir(dp);
	return max;
}

static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* m[1 .. n]: the file names, whether each is there. */
static int discover(struct uchain *c)
{
	char name[1100];
	unsigned k;

	c->n = c->alone ? 1 : last_pass(c->file);
	c->m = calloc(c->n + 1, sizeof(*c->m));
	if (!c->m)
		return err_set(c->e, -ENOMEM, "out of memory");
	for (k = 1; k <= c->n; k++) {
		struct chain_member *m = &c->m[k];

		undo_chain_name(c->file, c->alone ? 1 : k, name,
				sizeof(name));
		m->pass = k;
		m->s.fd = -1;
		m->path = strdup(name);
		if (!m->path)
			return err_set(c->e, -ENOMEM, "out of memory");
		m->present = regular(name);
	}
	return 0;
}

/* Read file k (its records checked; not yet the filesystem). */
static void load(struct uchain *c, unsigned k)
{
	struct chain_member *m = &c->m[k];
	const struct od_undo_hdr *h = &m->s.h;
	int ret;

	if (!m->present) {
		m->bad = err_set(&m->why, -EFSCORRUPTED, "pass %u's undo file "
				 "%s is missing", k, m->path);
		return;
	}
	if (c->o->each && c->n > 1)
		chain_say(c, false, "undo file %s:", m->path);
	ret = scan_all(&m->s, m->path, c->fs, c->o->each, c->o->each_priv,
		       &m->why);
	m->scanned = true;
	if (ret) {
		m->bad = ret;
		return;
	}
	if (c->alone) {
		m->pass = h->pass ? h->pass : 1;
		return;
	}
	/* a later pass's file named: alone, if no pass followed it */
	if (c->n == 1 && h->version >= OD_UNDO_VERSION_CHAIN && h->pass > 1) {
		if (m->s.has_next) {
			m->bad = err_set(&m->why, -EFSCORRUPTED, "undo file %s "
					 "is pass %u's of a run in passes, and "
					 "pass %u followed it: undo the first "
					 "pass's file to undo the run (with "
					 "--to-pass %u to undo only the passes "
					 "after pass %u)", m->path, h->pass,
					 m->s.next.pass, h->pass - 1,
					 h->pass - 1);
			return;
		}
		c->alone = true;
		m->pass = h->pass;
		return;
	}
	if (c->n > 1 && h->version < OD_UNDO_VERSION_CHAIN) {
		m->bad = err_set(&m->why, -EPROTO, "undo file %s is version "
				 "%u (an older xfsdefrag): it does not name its "
				 "pass and the file before it, so the files of "
				 "the run cannot be checked together; undo them "
				 "one at a time, last first, naming each (undo "
				 "%s.%u first)", m->path, h->version, c->file,
				 c->n);
		return;
	}
	if (h->version >= OD_UNDO_VERSION_CHAIN && h->pass != k)
		m->bad = err_set(&m->why, -EFSCORRUPTED, "undo file %s holds "
				 "pass %u's undo, not pass %u's (renamed, or "
				 "swapped with another?)", m->path, h->pass, k);
}

/*
 * The last file, k > 1, that its pass never wrote with: no record (a
 * crash left its name, not what the run wrote into it before it synced
 * it), and the file before names no next file (the link comes after the
 * new file is durable, and the pass's first write after the link).
 */
static bool unbegun(struct uchain *c, unsigned k)
{
	struct chain_member *m = &c->m[k], *below = &c->m[k - 1];

	if (k < 2 || !m->present || !below->scanned || below->bad ||
	    !below->s.complete || below->s.has_next)
		return false;
	return m->s.fsize < OD_UNDO_HDR_LEN ||
	       (m->scanned && !m->bad && m->s.n == 0) ||
	       (m->bad && m->s.fsize <= OD_UNDO_HDR_LEN + OD_UNDO_REC_LEN +
		m->s.h.blocksize);
}

/* Is k (below the top) the file pass k + 1's names, and complete? */
static int linked(struct uchain *c, unsigned k)
{
	struct chain_member *lo = &c->m[k], *up = &c->m[k + 1];
	const struct od_undo_hdr *lh = &lo->s.h, *uh = &up->s.h;
	const char *what = NULL;

	if (!lo->s.complete)
		return err_set(&lo->why, -EFSCORRUPTED, "undo file %s is "
			       "incomplete: it ends at byte %" PRIu64 " "
			       "without its %s, but pass %u followed it (%s)",
			       lo->path, lo->s.fsize,
			       lo->s.sealed ? "end record" : "seal and end "
			       "record", k + 1, up->path);
	if (uh->prev_nonce != lh->nonce)
		what = "its nonce is not the one";
	else if (uh->prev_seal != lo->s.seal_dcrc)
		what = "its seal is not the one";
	else if (uh->sb_crc != lo->s.seal.sb_crc)
		what = "the superblock its pass left is not the one";
	else if (uh->chain != lh->chain)
		what = "it belongs to another run than";
	else if (lo->s.has_next && lo->s.next.nonce != uh->nonce)
		what = "the next file it names is not";
	else if (lh->log_off != uh->log_off || lh->log_len != uh->log_len ||
		 lh->log_crc != uh->log_crc)
		what = "the log it found is not the one";
	if (!what)
		return 0;
	return err_set(&lo->why, -EFSCORRUPTED, "undo file %s is not pass "
		       "%u's file of this run: %s %s (pass %u's) names (a "
		       "file of another run, or damaged?)", lo->path, k, what,
		       up->path, k + 1);
}

/* The last file: is a later pass's file missing? */
static int nothing_after(struct uchain *c, unsigned k)
{
	struct chain_member *m = &c->m[k];
	char name[1100];

	if (!m->s.has_next)
		return 0;
	undo_chain_name(c->file, m->s.next.pass, name, sizeof(name));
	return err_set(&m->why, -EFSCORRUPTED, "pass %u's undo file %s is "
		       "missing: %s says pass %u began (its link record names "
		       "it)", m->s.next.pass, name, m->path, m->s.next.pass);
}

static enum undo_found found_of(enum uv_where w)
{
	switch (w) {
	case UV_AT_END: return UNDO_FOUND_END;
	case UV_AT_START: return UNDO_FOUND_START;
	case UV_MIDWAY: return UNDO_FOUND_MIDWAY;
	case UV_RUN: return UNDO_FOUND_RUN;
	default: return UNDO_FOUND_NONE;
	}
}

/* Where the filesystem is by file k (the top, or below it: as left). */
static int state(struct uchain *c, unsigned k)
{
	struct chain_member *m = &c->m[k];
	int ret;

	undo_verify_free(&m->v);
	ret = undo_verify(&m->s, c->fs, &c->view,
			  k == c->top ? UV_TOP : UV_END, &c->log, &m->v,
			  &m->why);
	m->verified = true;
	if (ret == -ESTALE && k < c->top) {
		char why[sizeof(m->why.msg)], passes[40];

		snprintf(passes, sizeof(passes), k + 1 == c->top ? "pass %u" :
			 "passes %u to %u", k + 1, c->top);
		snprintf(why, sizeof(why), "%s", m->why.msg);
		err_clear(&m->why);
		return err_set(&m->why, ret, "pass %u's undo file does not find "
			       "the filesystem as undoing %s would leave it: %s",
			       k, passes, why);
	}
	if (ret)
		return ret;
	m->found = found_of(m->v.where);
	if (k == c->top && c->mark == OD_UNDO_MARK_BY_UNDO &&
	    m->v.where != UV_MIDWAY)
		return err_set(&m->why, -ESTALE, "the superblock carries the "
			       "undo mark of %s, but is not as its undo left "
			       "it", m->path);
	return 0;
}

/* The original superblock sector of file k (record 0), or NULL. */
static uint8_t *orig_sb(struct uchain *c, unsigned k)
{
	struct chain_member *m = &c->m[k];

	if (!m->v.orig_sb && m->scanned && !m->bad && m->s.n &&
	    m->s.v[0].off == 0 && m->s.v[0].len >= c->ss) {
		m->v.orig_sb = malloc(c->ss);
		if (m->v.orig_sb &&
		    scan_read_at(&m->s, m->v.orig_sb, c->ss, m->s.v[0].pos +
				 OD_UNDO_REC_LEN, &m->why)) {
			free(m->v.orig_sb);
			m->v.orig_sb = NULL;
		}
	}
	return m->v.orig_sb;
}

/*
 * Is the filesystem as before the whole run (an undo of it finished)?
 * Every file whole and linked, the superblock pass 1 found, and every
 * block the files hold as the first of them to hold it says.
 */
static bool undone_already(struct uchain *c)
{
	uint8_t *cur = malloc(c->ss), *orig;
	struct err e = { 0 };
	uint64_t differ = 0;
	char where[200];
	bool yes = false;
	unsigned k;

	if (!cur)
		return false;
	for (k = 1; k <= c->n; k++) {
		struct chain_member *m = &c->m[k];

		if (m->bad || (k < c->n && linked(c, k)) ||
		    m->s.h.version < 2)
			goto out;
		if (!m->verified && m->s.sealed && !m->v.p.ncrc &&
		    !m->v.p.nmv && undo_proof_load(&m->s, c->nblocks, &m->v.p,
						   &e))
			goto out;
	}
	orig = orig_sb(c, 1);
	if (!orig || img_pread(undo_raw_img(c->fs), cur, c->ss, 0) ||
	    memcmp(cur, orig, c->ss) != 0)
		goto out;
	yes = chain_cmp(c, 1, c->n, &differ, where, sizeof(where)) == 0 &&
	      differ == 0;
out:
	free(cur);
	return yes;
}

/* The superblock's mark now. */
static int read_mark(struct uchain *c)
{
	uint8_t *cur = malloc(c->ss);
	int ret;

	if (!cur)
		return err_set(c->e, -ENOMEM, "out of memory");
	ret = img_pread(undo_raw_img(c->fs), cur, c->ss, 0);
	if (ret)
		err_set(c->e, ret, "%s: reading the superblock failed: %s",
			c->fs->path, strerror(-ret));
	else
		c->mark = od_undo_mark_get(cur, &c->mark_nonce);
	free(cur);
	return ret;
}

/* Which file the mark names (0: none of the chain). */
static unsigned marked(struct uchain *c)
{
	unsigned k;

	for (k = 1; k <= c->n; k++)
		if (c->m[k].scanned && !c->m[k].bad &&
		    c->m[k].s.h.nonce == c->mark_nonce)
			return k;
	return 0;
}

/* The top: the last pass whose work is (partly) in place. */
static int find_top(struct uchain *c)
{
	unsigned p;

	c->top = c->n;
	if (c->mark == OD_UNDO_MARK_NONE)
		return 0;
	p = marked(c);
	if (!p) {
		/* maybe a file of the chain that cannot be read: say so */
		for (p = c->n; p >= 1; p--)
			if (c->m[p].bad && c->m[p].bad != -EPROTO)
				break;
		if (p >= 1) {
			c->r->bad = p;
			return err_set(c->e, c->m[p].bad, "the superblock "
				       "carries the mark of an unfinished "
				       "xfsdefrag %s (undo file nonce %016"
				       PRIx64 "), and %s", c->mark ==
				       OD_UNDO_MARK_BY_RUN ? "run" : "undo",
				       c->mark_nonce, c->m[p].why.msg);
		}
		return err_set(c->e, -ESTALE, "the superblock of %s carries "
			       "the mark of another xfsdefrag %s that did not "
			       "finish (undo file nonce %016" PRIx64 "), of no "
			       "file of %s: finish that one first (nothing was "
			       "written)", c->fs->path, c->mark ==
			       OD_UNDO_MARK_BY_RUN ? "run" : "undo",
			       c->mark_nonce, c->file);
	}
	if (c->mark == OD_UNDO_MARK_BY_RUN && p != c->n) {
		c->r->bad = p;
		return err_set(c->e, -EFSCORRUPTED, "the superblock says pass "
			       "%u's run was interrupted, but %s follows its "
			       "file %s (nothing was written)", p,
			       c->m[p + 1].path, c->m[p].path);
	}
	c->top = p;
	c->r->resumed = c->mark == OD_UNDO_MARK_BY_UNDO;
	return 0;
}

/*
 * Check passes top .. stop+1, last first; each file's view is the image
 * with the passes after it undone.  0, or the failing pass in *bad.
 */
static int walk(struct uchain *c, unsigned *bad)
{
	unsigned k;
	int ret = 0;

	for (k = c->top; k > c->stop; k--) {
		struct chain_member *m = &c->m[k];

		ret = m->bad;
		if (!ret && k == c->top && c->mark != OD_UNDO_MARK_BY_UNDO &&
		    !c->alone)
			ret = nothing_after(c, k);
		if (!ret && k < c->top)
			ret = linked(c, k);
		if (!ret)
			ret = state(c, k);
		if (!ret)
			ret = chain_view_add(c, k);
		if (ret) {
			*bad = k;
			return ret;
		}
	}
	return 0;
}

/* --to-pass N: pass N's file, if whole, must find what the others leave. */
static int check_below(struct uchain *c)
{
	struct chain_member *m = &c->m[c->stop];
	int ret;

	if (c->stop == 0 || c->alone)
		return 0;
	if (c->stop == c->top) {
		/* --to-pass the last pass: nothing to undo if as it left */
		ret = m->bad;
		if (!ret)
			ret = nothing_after(c, c->stop);
		if (!ret)
			ret = state(c, c->stop);
		if (!ret && m->found != UNDO_FOUND_END)
			ret = err_set(&m->why, -ESTALE, "%s is not as pass %u "
				      "left it", c->fs->path, c->stop);
		return ret ? err_set(c->e, ret, "%s", m->why.msg) : 0;
	}
	ret = m->bad;
	if (!ret)
		ret = linked(c, c->stop);
	if (ret) {
		chain_say(c, false, "pass %u's file cannot vouch for the result "
			  "(%s); the filesystem will be as the files of passes "
			  "%u to %u say pass %u left it", c->stop, m->why.msg,
			  c->stop + 1, c->top, c->stop);
		return 0;
	}
	undo_verify_free(&m->v);
	ret = undo_verify(&m->s, c->fs, &c->view, UV_END, &c->log, &m->v,
			  &m->why);
	m->verified = true;
	if (ret)
		return err_set(c->e, ret, "undoing passes %u to %u would not "
			       "leave %s as pass %u left it: %s", c->stop + 1,
			       c->top, c->fs->path, c->stop, m->why.msg);
	m->found = UNDO_FOUND_END;
	return 0;
}

/* Refuse at pass bad: say why, and what can still be undone. */
static int refuse(struct uchain *c, unsigned bad, int ret)
{
	struct chain_member *m = &c->m[bad];
	unsigned k, work = 0;

	c->r->bad = bad;
	for (k = bad + 1; k <= c->top; k++)
		if (c->m[k].found != UNDO_FOUND_START)
			work++;
	if (ret == -ENOMEM || ret == -EIO)
		return err_set(c->e, ret, "%s", m->why.msg);
	if (bad < c->top && work && !c->alone)
		c->r->can_to = bad;
	if (strstr(m->why.msg, "nothing was written"))
		err_set(c->e, ret, "%s", m->why.msg);
	else
		err_set(c->e, ret, "%s; nothing was written", m->why.msg);
	return ret;
}

static void fill_result(struct uchain *c)
{
	struct undo_chain_result *r = c->r;
	unsigned k;

	r->npass = c->n;
	r->top = c->top;
	r->stop = c->stop;
	r->info = calloc(c->n + 1, sizeof(*r->info));
	if (!r->info)
		return;
	for (k = 1; k <= c->n; k++) {
		struct chain_member *m = &c->m[k];
		struct undo_info *in = &r->info[k];

		if (m->scanned && (!m->bad || m->s.h.version))
			undo_fill_info(&m->s, &m->v, in);
		in->present = m->present;
		in->pass = m->pass;
		in->found = k > c->top && c->mark == OD_UNDO_MARK_BY_UNDO ?
			    UNDO_FOUND_DONE : m->found;
	}
}

static void free_chain(struct uchain *c)
{
	unsigned k;

	for (k = 1; c->m && k <= c->n; k++) {
		undo_verify_free(&c->m[k].v);
		if (c->m[k].scanned)
			scan_free(&c->m[k].s);
		free(c->m[k].path);
	}
	free(c->m);
	chain_view_free(c);
}

/* The --to-pass asked for, against where the filesystem is. */
static int check_stop(struct uchain *c)
{
	if (c->o->to_pass == 0 || c->o->alone)
		return 0;
	if (c->alone)
		return err_set(c->e, -EINVAL, "--to-pass %u: name the first "
			       "pass's undo file (%s is pass %u's)",
			       c->o->to_pass, c->file, c->m[1].pass);
	if (c->o->to_pass > c->n ||
	    (c->o->to_pass == c->n && c->mark != OD_UNDO_MARK_NONE))
		return err_set(c->e, -EINVAL, "--to-pass %u: the run has %u "
			       "pass%s (%s to %s); --to-pass leaves the "
			       "filesystem as an earlier pass left it",
			       c->o->to_pass, c->n, c->n == 1 ? "" : "es",
			       c->m[1].path, c->m[c->n].path);
	if (c->o->to_pass >= c->top && c->mark == OD_UNDO_MARK_BY_UNDO)
		return err_set(c->e, -EINVAL, "--to-pass %u: an undo of %s "
			       "had begun and undone the passes after pass %u "
			       "already; it can only go on (undo without "
			       "--to-pass, or with one below %u)",
			       c->o->to_pass, c->file, c->top, c->top);
	return 0;
}

int undo_chain_undo(const char *file, struct fs *fs,
		    const struct undo_chain_opts *o,
		    struct undo_chain_result *r, struct err *e)
{
	struct uchain c = { 0 };
	unsigned k, bad = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	r->outcome = UNDO_REFUSED;
	c.fs = fs;
	c.o = o;
	c.r = r;
	c.e = e;
	c.file = file;
	c.alone = o->alone;
	c.bs = fs->geo.blocksize;
	c.ss = fs->geo.sectsize;
	c.blocklog = fs->geo.blocklog;
	c.nblocks = (fs->img->size + c.bs - 1) >> c.blocklog;
	chain_view_init(&c);
	ret = discover(&c);
	if (ret)
		goto out;
	for (k = 1; k <= c.n; k++)
		load(&c, k);
	while (!c.alone && c.n > 1 && unbegun(&c, c.n)) {
		chain_say(&c, false, "ignored %s: it holds nothing (its pass "
			  "never wrote: %s does not name it)", c.m[c.n].path,
			  c.m[c.n - 1].path);
		undo_verify_free(&c.m[c.n].v);
		if (c.m[c.n].scanned)
			scan_free(&c.m[c.n].s);
		free(c.m[c.n].path);
		c.n--;
	}
	/* files of another filesystem, or too old: as one file says */
	if (c.m[1].bad == -EXDEV || (c.n == 1 && c.m[1].bad)) {
		ret = err_set(e, c.m[1].bad, "%s", c.m[1].why.msg);
		r->bad = 1;
		goto out;
	}
	ret = read_mark(&c);
	if (ret == 0)
		ret = find_top(&c);
	if (ret == 0)
		ret = check_stop(&c);
	if (ret)
		goto out;
	c.stop = c.alone ? 0 : o->to_pass;
	ret = walk(&c, &bad);
	if (ret && c.mark == OD_UNDO_MARK_NONE && c.stop == 0 &&
	    (ret == -ESTALE || ret == -EFSCORRUPTED) && undone_already(&c)) {
		for (k = 1; k <= c.n; k++)
			c.m[k].found = UNDO_FOUND_START;
		r->outcome = UNDO_NOTHING;
		ret = 0;
		goto out;
	}
	if (ret) {
		ret = refuse(&c, bad, ret);
		goto out;
	}
	ret = check_below(&c);
	if (ret)
		goto out;
	for (k = c.top; k > c.stop; k--)
		if (c.m[k].found != UNDO_FOUND_START)
			break;
	r->outcome = k > c.stop ? UNDO_RESTORED : UNDO_NOTHING;
	if (o->check)
		goto out;
	if (!fs->img->writable) {
		ret = err_set(e, -EROFS, "%s: not open for writing", fs->path);
		r->outcome = UNDO_REFUSED;
		goto out;
	}
	ret = chain_apply(&c);
out:
	fill_result(&c);
	free_chain(&c);
	return ret;
}

void undo_chain_result_free(struct undo_chain_result *r)
{
	free(r->info);
	r->info = NULL;
}
