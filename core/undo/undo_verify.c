/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Is the filesystem as the run left it?  Undo writes back the originals
 * its file holds; anything written to the filesystem since the run
 * (a read-write mount, another run, a repair) would be destroyed by that,
 * or would leave the restored metadata pointing at data that is gone.  So
 * before writing anything, undo checks (xfsdefrag(8), "UNDO FILE"):
 *
 *   - the log: its crc as the run began (every read-write mount writes
 *     the log, and neither a run nor an undo does);
 *   - the primary superblock: an interrupted run left NEEDSREPAIR and its
 *     own mark (no kernel mounts it, no other xfsdefrag writes it); a
 *     sealed run left exactly the bytes whose crc the seal holds; the
 *     mark of another run or undo means that one must finish first;
 *   - once sealed, every block of the proof: the run wrote it, it is live
 *     in the run's result, and it must hold what the run left there;
 *   - the vacated blocks of the move records: reused since is fine when
 *     the copy still holds the original (undo copies it back).
 *
 * An undo that was itself interrupted leaves the superblock with this
 * file's undo mark; then (or once it is back to the original) every
 * journaled block may hold its original as well as the run's bytes.
 */
#include "core/undo/undo_scan.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK		(1u << 20)
#define NFIRST		4

enum sbstate { SB_ORIG, SB_FINAL, SB_RUN, SB_UNDO, SB_FOREIGN, SB_OTHER };

/* Blocks [b, b+n) of the proof; their crcs at crc[c0 ..]. */
struct prun {
	uint64_t b;
	uint32_t n;
	size_t c0;
};

enum { ST_CHANGED, ST_FINAL, ST_ORIG };

struct vctx {
	struct scan *s;
	struct fs *fs;
	struct uverify *v;
	struct err *e;
	uint32_t bs, ss;
	unsigned blocklog;
	uint64_t nblocks;
	struct prun *run;
	size_t nrun, caprun;
	uint32_t *crc;
	size_t ncrc, capcrc;
	uint8_t *state;		/* per proof block: ST_* */
	struct ucopy *mv;	/* the move records' entries */
	size_t nmv, capmv;
	bool tolerant;		/* an undo of this file has begun */
	uint64_t changed, lost;
	uint64_t first[NFIRST];
	int nfirst;
	uint8_t *buf;		/* CHUNK bytes */
};

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *nv;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

static int nomem(struct vctx *c)
{
	return err_set(c->e, -ENOMEM, "out of memory");
}

static int parse_proof(struct vctx *c, const struct urec *r, const uint8_t *d)
{
	uint32_t p = 0;

	while (p < r->len) {
		uint64_t b;
		uint32_t n, i;

		if (r->len - p < OD_UNDO_PRF_RUNHDR)
			return scan_damaged(c->s, c->e, r->pos, "a proof record "
					    "ends inside a run");
		od_undo_prf_run_decode(d + p, &b, &n);
		p += OD_UNDO_PRF_RUNHDR;
		if (n == 0 || (r->len - p) / 4 < n || b > c->nblocks ||
		    n > c->nblocks - b ||
		    (c->nrun && b < c->run[c->nrun - 1].b +
		     c->run[c->nrun - 1].n))
			return scan_damaged(c->s, c->e, r->pos, "a proof record "
					    "has a run out of place");
		if (grow((void **)&c->run, &c->caprun, c->nrun + 1,
			 sizeof(*c->run)) ||
		    grow((void **)&c->crc, &c->capcrc, c->ncrc + n,
			 sizeof(*c->crc)))
			return nomem(c);
		c->run[c->nrun++] = (struct prun){ b, n, c->ncrc };
		for (i = 0; i < n; i++, p += 4)
			c->crc[c->ncrc++] = od_undo_prf_crc_get(d + p);
	}
	return 0;
}

static int parse_moves(struct vctx *c, const struct urec *r, const uint8_t *d)
{
	uint32_t p;

	if (r->len % OD_UNDO_MOV_ENT)
		return scan_damaged(c->s, c->e, r->pos, "a move record has a "
				    "bad length");
	for (p = 0; p < r->len; p += OD_UNDO_MOV_ENT) {
		struct od_undo_move mv;

		od_undo_move_decode(d + p, &mv);
		if (mv.n == 0 || mv.x > c->nblocks || mv.n > c->nblocks - mv.x ||
		    mv.y > c->nblocks || mv.n > c->nblocks - mv.y)
			return scan_damaged(c->s, c->e, r->pos, "a move record "
					    "lies outside the image");
		if (grow((void **)&c->mv, &c->capmv, c->nmv + 1,
			 sizeof(*c->mv)))
			return nomem(c);
		c->mv[c->nmv++] = (struct ucopy){ mv.x, mv.y, mv.n };
	}
	return 0;
}

/* Read the proof and move records; a seal they do not add up to is none. */
static int load(struct vctx *c)
{
	struct scan *s = c->s;
	uint64_t moved = 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < s->nm && !ret; i++) {
		const struct urec *r = &s->m[i];

		ret = scan_data_buf(s, r->len, c->e);
		if (ret == 0)
			ret = scan_read_at(s, s->buf, r->len,
					   r->pos + OD_UNDO_REC_LEN, c->e);
		if (ret == 0 && od_undo_crc(s->buf, r->len) != r->dcrc)
			ret = err_set(c->e, -EFSBADCRC, "undo file %s: record "
				      "%llu changed while being read", s->path,
				      (unsigned long long)r->seq);
		if (ret == 0 && r->kind == OD_UNDO_PROOF)
			ret = parse_proof(c, r, s->buf);
		else if (ret == 0 && r->kind == OD_UNDO_MOVES)
			ret = parse_moves(c, r, s->buf);
	}
	for (i = 0; i < c->nmv; i++)
		moved += c->mv[i].n;
	if (ret || !s->sealed ||
	    (c->ncrc == s->seal.proof_blocks && moved == s->seal.move_blocks))
		return ret;
	if (s->complete)
		return scan_damaged(c->s, c->e, s->m[s->nm - 1].pos, "the proof "
				    "records do not add up to the seal");
	/* a proof record of the seal's batch was torn: no seal */
	s->sealed = false;
	c->nrun = c->ncrc = c->nmv = 0;
	return 0;
}

/* Index into crc/state of proof block b, or SIZE_MAX. */
static size_t proof_at(const struct vctx *c, uint64_t b)
{
	size_t lo = 0, hi = c->nrun;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct prun *r = &c->run[mid];

		if (b < r->b)
			hi = mid;
		else if (b >= r->b + r->n)
			lo = mid + 1;
		else
			return r->c0 + (size_t)(b - r->b);
	}
	return SIZE_MAX;
}

/* The data record holding image block b, or NULL. */
static const struct urec *record_of(const struct vctx *c, uint64_t b)
{
	uint64_t off = b << c->blocklog;
	size_t lo = 0, hi = c->s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct urec *r = &c->s->v[mid];

		if (off < r->off)
			hi = mid;
		else if (off >= r->off + r->len)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

/* crc of one block's bytes (len of them; block 0 without sector 0). */
static uint32_t blk_crc(const struct vctx *c, uint64_t b, uint8_t *p,
			size_t len)
{
	if (b == 0)
		memset(p, 0, c->ss < len ? c->ss : len);
	if (len < c->bs)
		memset(p + len, 0, c->bs - len);
	return od_undo_crc(p, c->bs);
}

/* Bytes of image block b (the last one may be partial). */
static size_t blk_len(const struct vctx *c, uint64_t b)
{
	uint64_t off = b << c->blocklog, size = c->fs->img->size;

	return size - off < c->bs ? (size_t)(size - off) : c->bs;
}

/* crc of the original of block b from its record (journaled: true). */
static int orig_crc(struct vctx *c, uint64_t b, uint32_t *crc, bool *have)
{
	const struct urec *r = record_of(c, b);
	uint64_t at = b << c->blocklog;
	size_t len;
	uint8_t *p = c->buf + CHUNK;	/* the spare block after the chunk */
	int ret;

	*have = r != NULL;
	if (!r)
		return 0;
	len = r->off + r->len - at < c->bs ? (size_t)(r->off + r->len - at) :
	      c->bs;
	ret = scan_read_at(c->s, p, len, r->pos + OD_UNDO_REC_LEN +
			   (at - r->off), c->e);
	if (ret == 0)
		*crc = blk_crc(c, b, p, len);
	return ret;
}

static void note_changed(struct vctx *c, uint64_t b)
{
	if (c->nfirst < NFIRST)
		c->first[c->nfirst++] = b;
}

/* Read n image blocks at b into c->buf (n * bs <= CHUNK). */
static int read_blocks(struct vctx *c, uint64_t b, uint64_t n)
{
	uint64_t off = b << c->blocklog, len = n << c->blocklog;
	int ret;

	if (len > c->fs->img->size - off)
		len = c->fs->img->size - off;
	ret = img_pread(undo_raw_img(c->fs), c->buf, (size_t)len, off);
	if (ret)
		return err_set(c->e, ret, "%s: reading image block %llu "
			       "failed: %s", c->fs->path,
			       (unsigned long long)b, strerror(-ret));
	return 0;
}

static int check_proof(struct vctx *c)
{
	uint64_t per = CHUNK >> c->blocklog;
	size_t k;
	int ret = 0;

	c->state = calloc(c->ncrc ? c->ncrc : 1, 1);
	if (!c->state)
		return nomem(c);
	for (k = 0; k < c->nrun && !ret; k++) {
		const struct prun *r = &c->run[k];
		uint64_t i, j, n;

		for (i = 0; i < r->n && !ret; i += n) {
			n = r->n - i < per ? r->n - i : per;
			ret = read_blocks(c, r->b + i, n);
			for (j = 0; j < n && !ret; j++) {
				uint64_t b = r->b + i + j;
				size_t at = r->c0 + (size_t)(i + j);
				uint32_t crc, oc = 0;
				bool have = false;

				crc = blk_crc(c, b, c->buf + (j << c->blocklog),
					      blk_len(c, b));
				if (crc == c->crc[at]) {
					c->state[at] = ST_FINAL;
					continue;
				}
				if (c->tolerant)
					ret = orig_crc(c, b, &oc, &have);
				if (!ret && have && oc == crc) {
					c->state[at] = ST_ORIG;
					continue;
				}
				c->changed++;
				note_changed(c, b);
			}
		}
	}
	return ret;
}

/* Add a copy y -> x to the restore list (merging runs). */
static int add_copy(struct vctx *c, uint64_t x, uint64_t y)
{
	struct uverify *v = c->v;
	struct ucopy *last = v->ncp ? &v->cp[v->ncp - 1] : NULL;

	v->copy_blocks++;
	if (last && last->x + last->n == x && last->y + last->n == y) {
		last->n++;
		return 0;
	}
	if (grow((void **)&v->cp, &v->capcp, v->ncp + 1, sizeof(*v->cp)))
		return nomem(c);
	v->cp[v->ncp++] = (struct ucopy){ x, y, 1 };
	return 0;
}

static int check_moves(struct vctx *c)
{
	uint64_t per = CHUNK >> c->blocklog;
	size_t k;
	int ret = 0;

	for (k = 0; k < c->nmv && !ret; k++) {
		const struct ucopy *m = &c->mv[k];
		uint64_t i, j, n;

		for (i = 0; i < m->n && !ret; i += n) {
			n = m->n - i < per ? m->n - i : per;
			ret = read_blocks(c, m->x + i, n);
			for (j = 0; j < n && !ret; j++) {
				uint64_t x = m->x + i + j, y = m->y + i + j;
				size_t at = proof_at(c, y);

				if (at == SIZE_MAX)
					return scan_damaged(c->s, c->e, 0,
						"a move record names a copy "
						"outside the proof");
				if (blk_crc(c, x, c->buf + (j << c->blocklog),
					    blk_len(c, x)) == c->crc[at])
					continue;	/* still there */
				if (c->state[at] == ST_FINAL) {
					ret = add_copy(c, x, y);
					continue;
				}
				c->lost++;
				note_changed(c, x);
			}
		}
	}
	return ret;
}

static enum sbstate classify(struct vctx *c, const uint8_t *cur,
			     const uint8_t *orig, uint64_t *nonce, int *kind)
{
	bool valid = od_sb_has_magic(cur, c->ss) &&
		     (!od_sb_is_v5(&c->fs->sb) ||
		      od_cksum_ok(cur, c->ss, OD_SB_CRC_OFF));

	*kind = od_undo_mark_get(cur, nonce);
	if (orig && memcmp(cur, orig, c->ss) == 0)
		return SB_ORIG;
	if (c->s->sealed && od_undo_crc(cur, c->ss) == c->s->seal.sb_crc)
		return SB_FINAL;
	if (*kind != OD_UNDO_MARK_NONE && *nonce != c->s->h.nonce)
		return SB_FOREIGN;
	if (valid && *kind == OD_UNDO_MARK_BY_RUN)
		return SB_RUN;
	if (valid && *kind == OD_UNDO_MARK_BY_UNDO)
		return SB_UNDO;
	return SB_OTHER;
}

/* Read the sectors, classify; what is wrong goes into why. */
static int check_sb(struct vctx *c, char *why, size_t len)
{
	struct scan *s = c->s;
	uint8_t *cur = malloc(c->ss);
	uint64_t nonce = 0;
	enum sbstate st;
	bool ok;
	int kind, ret;

	if (!cur)
		return nomem(c);
	ret = img_pread(undo_raw_img(c->fs), cur, c->ss, 0);
	if (ret) {
		free(cur);
		return err_set(c->e, ret, "%s: reading the superblock failed: "
			       "%s", c->fs->path, strerror(-ret));
	}
	if (s->n && s->v[0].off == 0 && s->v[0].len >= c->ss) {
		c->v->orig_sb = malloc(c->ss);
		if (!c->v->orig_sb) {
			free(cur);
			return nomem(c);
		}
		ret = scan_read_at(s, c->v->orig_sb, c->ss,
				   s->v[0].pos + OD_UNDO_REC_LEN, c->e);
		if (ret) {
			free(cur);
			return ret;
		}
	}
	st = classify(c, cur, c->v->orig_sb, &nonce, &kind);
	free(cur);
	c->v->undo_begun = st == SB_UNDO;
	/* the run never wrote it: nothing to tell an undo apart by */
	c->tolerant = st == SB_ORIG || st == SB_UNDO || !c->v->orig_sb;
	if (s->complete)
		ok = st == SB_FINAL || st == SB_UNDO || st == SB_ORIG;
	else if (s->sealed)
		ok = st != SB_FOREIGN && st != SB_OTHER;
	else
		ok = st == SB_RUN || st == SB_UNDO || st == SB_ORIG ||
		     (!c->v->orig_sb && st != SB_FOREIGN);
	if (ok)
		return 0;
	if (st == SB_FOREIGN)
		snprintf(why, len, "the superblock carries the mark of another "
			 "xfsdefrag %s that did not finish (undo file nonce "
			 "%016llx): finish that one first",
			 kind == OD_UNDO_MARK_BY_RUN ? "run" : "undo",
			 (unsigned long long)nonce);
	else if (!s->sealed)
		snprintf(why, len, "the superblock is not as the interrupted "
			 "run left it (it should still carry NEEDSREPAIR and "
			 "the run's mark: something cleared or rewrote it)");
	else
		snprintf(why, len, "the superblock is not as the run left it");
	return 0;
}

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t len, const char *fmt, ...)
{
	size_t at = strlen(why);
	va_list ap;

	if (at + 3 >= len)
		return;
	if (at)
		at += (size_t)snprintf(why + at, len - at, "; ");
	va_start(ap, fmt);
	vsnprintf(why + at, len - at, fmt, ap);
	va_end(ap);
}

/* The AG header sectors in AG block agbno ("" if none): xfs_format.h. */
static const char *headers_in(const struct vctx *c, uint64_t agbno)
{
	static const char *const name[4][4] = {
		/* by first and last header sector (0..3) in the block */
		{ "", " (the agf)", " (the agf and agi)",
		  " (the agf, agi and agfl)" },
		{ "", " (the agf)", " (the agf and agi)",
		  " (the agf, agi and agfl)" },
		{ "", "", " (the agi)", " (the agi and agfl)" },
		{ "", "", "", " (the agfl)" },
	};
	uint64_t s0 = (agbno << c->blocklog) / c->ss;
	uint64_t s1 = ((agbno + 1) << c->blocklog) / c->ss - 1;

	if (s0 > 3)
		return "";
	return name[s0][s1 > 3 ? 3 : s1];
}

static void name_blocks(const struct vctx *c, char *out, size_t len)
{
	uint32_t agb = c->fs->geo.agblocks;
	size_t at = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < c->nfirst && at + 1 < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%sag %llu block "
				       "%llu%s", i ? ", " : "",
				       (unsigned long long)(c->first[i] / agb),
				       (unsigned long long)(c->first[i] % agb),
				       headers_in(c, c->first[i] % agb));
}

/*
 * The crc of the log as the run began: blocks the undo file holds (a
 * shrink that moved the log reuses the old one's blocks, or cut them
 * off) from their records, the rest from the image.
 */
static int log_crc(struct vctx *c, uint32_t *out)
{
	struct scan *s = c->s;
	uint64_t off = s->h.log_off, end = off + s->h.log_len;
	uint32_t crc = 0xffffffffu;
	size_t lo = 0, hi = s->n;
	int ret = 0;

	/* the first data record ending past the log's start */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].off + s->v[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (off < end && !ret) {
		const struct urec *r = lo < s->n ? &s->v[lo] : NULL;
		uint64_t at = r && r->off < end ? r->off : end;

		if (at > off) {		/* the image's bytes up to the record */
			ret = undo_crc_update(undo_raw_img(c->fs), off,
					      at - off, &crc);
			off = at;
			continue;
		}
		/* the record's bytes inside the log */
		at = r->off + r->len < end ? r->off + r->len : end;
		ret = scan_data_buf(s, r->len, c->e);
		if (ret == 0)
			ret = scan_read_at(s, s->buf, r->len,
					   r->pos + OD_UNDO_REC_LEN, c->e);
		if (ret == 0)
			crc = od_crc32c(crc, s->buf + (off - r->off),
					(size_t)(at - off));
		off = at;
		lo++;
	}
	*out = ~crc;
	return ret;
}

int undo_verify(struct scan *s, struct fs *fs, struct uverify *v,
		struct err *e)
{
	struct vctx c = { 0 };
	char why[420] = "", sbwhy[200] = "", where[200];
	uint32_t crc;
	size_t k;
	int ret;

	memset(v, 0, sizeof(*v));
	if (s->h.version < 2)
		return err_set(e, -EPROTO, "undo file %s is version %u (an "
			       "older xfsdefrag): it holds no proof of the "
			       "state its run left, so undo cannot tell "
			       "whether anything wrote to %s since; refusing "
			       "(nothing was written)", s->path, s->h.version,
			       fs->path);
	c.s = s;
	c.fs = fs;
	c.v = v;
	c.e = e;
	c.bs = fs->geo.blocksize;
	c.ss = fs->geo.sectsize;
	c.blocklog = fs->geo.blocklog;
	c.nblocks = (fs->img->size + c.bs - 1) >> c.blocklog;
	c.buf = malloc(CHUNK + c.bs);
	if (!c.buf)
		return nomem(&c);
	ret = load(&c);
	if (ret == 0)
		ret = check_sb(&c, sbwhy, sizeof(sbwhy));
	if (ret == 0 && sbwhy[0])
		say(why, sizeof(why), "%s", sbwhy);
	if (ret == 0 && s->h.log_len) {
		ret = log_crc(&c, &crc);
		if (ret && !e->code)
			err_set(e, ret, "%s: reading the log failed: %s",
				fs->path, strerror(-ret));
		else if (crc != s->h.log_crc)
			say(why, sizeof(why), "the log was written (a read-write "
			    "mount, or xfs_repair)");
	}
	if (ret == 0 && s->sealed)
		ret = check_proof(&c);
	if (ret == 0 && s->sealed)
		ret = check_moves(&c);
	name_blocks(&c, where, sizeof(where));
	if (ret == 0 && c.changed)
		say(why, sizeof(why), "%llu block%s the run wrote hold%s "
		    "other data (first: %s)", (unsigned long long)c.changed,
		    c.changed == 1 ? "" : "s", c.changed == 1 ? "s" : "",
		    where);
	if (ret == 0 && c.lost)
		say(why, sizeof(why), "%llu block%s the run vacated %s "
		    "reused and %s changed too", (unsigned long long)c.lost,
		    c.lost == 1 ? "" : "s", c.lost == 1 ? "was" : "were",
		    c.lost == 1 ? "its copy" : "their copies");
	if (ret == 0 && why[0])
		ret = err_set(e, -ESTALE, "%s changed since the run of undo "
			      "file %s: %s; undoing now would destroy what was "
			      "written since (nothing was written)", fs->path,
			      s->path, why);
	v->proof_blocks = c.ncrc;
	for (k = 0; k < c.nmv; k++)
		v->move_blocks += c.mv[k].n;
	free(c.run);
	free(c.crc);
	free(c.state);
	free(c.mv);
	free(c.buf);
	return ret;
}

void undo_verify_free(struct uverify *v)
{
	free(v->orig_sb);
	free(v->cp);
	memset(v, 0, sizeof(*v));
}
