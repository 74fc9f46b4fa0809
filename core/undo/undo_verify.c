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
 * file's undo mark; then every journaled block may hold its original as
 * well as the run's bytes.  A superblock without any mark that is the
 * original is a filesystem the run never wrote, or whose undo finished:
 * then every block the file holds must hold its original (at start).
 * Neither, with no mark and no seal, is a file cut short (its run
 * finished) or a superblock rewritten since.
 *
 * The state is read from a view: the image itself, or (chain.c) the
 * image as undoing the later passes of a run in passes would leave it.
 */
#include "core/undo/undo_priv.h"
#include "core/base/array.h"
#include "core/undo/undo_scan.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK		(1u << 20)
#define NFIRST		UNDO_NFIRST

enum sbstate { SB_ORIG, SB_FINAL, SB_RUN, SB_UNDO, SB_FOREIGN, SB_OTHER };

enum { ST_CHANGED, ST_FINAL, ST_ORIG };

struct vctx {
	struct scan *s;
	struct fs *fs;
	struct img *im;		/* where the state is read */
	struct uverify *v;
	struct uproof *p;
	struct err *e;
	uint32_t bs, ss;
	unsigned blocklog;
	uint64_t nblocks;
	uint8_t *state;		/* per proof block: ST_* */
	bool tolerant;		/* an undo of this file has begun */
	uint64_t changed, lost;
	uint64_t first[NFIRST];
	int nfirst;
	uint8_t *buf;		/* CHUNK bytes and a spare block */
};

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	return array_reserve(v, cap, need, size, 64);
}

static int nomem(struct err *e)
{
	return err_set(e, -ENOMEM, "out of memory");
}

static int parse_proof(struct scan *s, struct uproof *p, uint64_t nblocks,
		       const struct journal_rec *r, const uint8_t *d,
		       struct err *e)
{
	uint32_t at = 0;

	while (at < r->len) {
		uint64_t b;
		uint32_t n, i;

		if (r->len - at < OD_UNDO_PRF_RUNHDR)
			return scan_damaged(s, e, r->pos, "a proof record ends "
					    "inside a run");
		od_undo_prf_run_decode(d + at, &b, &n);
		at += OD_UNDO_PRF_RUNHDR;
		if (n == 0 || (r->len - at) / 4 < n || b > nblocks ||
		    n > nblocks - b ||
		    (p->nrun && b < p->run[p->nrun - 1].b +
		     p->run[p->nrun - 1].n))
			return scan_damaged(s, e, r->pos, "a proof record has a "
					    "run out of place");
		if (grow((void **)&p->run, &p->caprun, p->nrun + 1,
			 sizeof(*p->run)) ||
		    grow((void **)&p->crc, &p->capcrc, p->ncrc + n,
			 sizeof(*p->crc)))
			return nomem(e);
		p->run[p->nrun++] = (struct proof_run){ b, n, p->ncrc };
		for (i = 0; i < n; i++, at += 4)
			p->crc[p->ncrc++] = od_undo_prf_crc_get(d + at);
	}
	return 0;
}

static int parse_moves(struct scan *s, struct uproof *p, uint64_t nblocks,
		       const struct journal_rec *r, const uint8_t *d,
		       struct err *e)
{
	uint32_t at;

	if (r->len % OD_UNDO_MOV_ENT)
		return scan_damaged(s, e, r->pos, "a move record has a bad "
				    "length");
	for (at = 0; at < r->len; at += OD_UNDO_MOV_ENT) {
		struct od_undo_move mv;

		od_undo_move_decode(d + at, &mv);
		if (mv.n == 0 || mv.x > nblocks || mv.n > nblocks - mv.x ||
		    mv.y > nblocks || mv.n > nblocks - mv.y)
			return scan_damaged(s, e, r->pos, "a move record lies "
					    "outside the image");
		if (grow((void **)&p->mv, &p->capmv, p->nmv + 1,
			 sizeof(*p->mv)))
			return nomem(e);
		p->mv[p->nmv++] = (struct ucopy){ mv.x, mv.y, mv.n };
	}
	return 0;
}

void undo_proof_free(struct uproof *p)
{
	free(p->run);
	free(p->crc);
	free(p->mv);
	memset(p, 0, sizeof(*p));
}

int undo_proof_load(struct scan *s, uint64_t nblocks, struct uproof *p,
		    struct err *e)
{
	uint64_t moved = 0;
	size_t i;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < s->nm && !ret; i++) {
		const struct journal_rec *r = &s->m[i];

		ret = scan_data_buf(s, r->len, e);
		if (ret == 0)
			ret = scan_read_at(s, s->buf, r->len,
					   r->pos + OD_UNDO_REC_LEN, e);
		if (ret == 0 && od_undo_crc(s->buf, r->len) != r->dcrc)
			ret = err_set(e, -EFSBADCRC, "undo file %s: record "
				      "%llu changed while being read", s->path,
				      (unsigned long long)r->seq);
		if (ret == 0 && r->kind == OD_UNDO_PROOF)
			ret = parse_proof(s, p, nblocks, r, s->buf, e);
		else if (ret == 0 && r->kind == OD_UNDO_MOVES)
			ret = parse_moves(s, p, nblocks, r, s->buf, e);
	}
	for (i = 0; i < p->nmv; i++)
		moved += p->mv[i].n;
	if (ret || !s->sealed ||
	    (p->ncrc == s->seal.proof_blocks && moved == s->seal.move_blocks))
		return ret;
	if (s->complete)
		return scan_damaged(s, e, s->m[s->nm - 1].pos, "the proof "
				    "records do not add up to the seal");
	/* a proof record of the seal's batch was torn: no seal */
	s->sealed = false;
	p->nrun = p->ncrc = p->nmv = 0;
	return 0;
}

size_t undo_proof_at(const struct uproof *p, uint64_t b)
{
	size_t lo = 0, hi = p->nrun;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct proof_run *r = &p->run[mid];

		if (b < r->b)
			hi = mid;
		else if (b >= r->b + r->n)
			lo = mid + 1;
		else
			return r->c0 + (size_t)(b - r->b);
	}
	return SIZE_MAX;
}

/* crc of one block's bytes (len of them; block 0 without sector 0). */
static uint32_t blk_crc(uint32_t bs, uint32_t ss, uint64_t b, uint8_t *p,
			size_t len)
{
	if (b == 0)
		memset(p, 0, ss < len ? ss : len);
	if (len < bs)
		memset(p + len, 0, bs - len);
	return od_undo_crc(p, bs);
}

/* Bytes of image block b (the last one may be partial). */
static size_t blk_len(uint64_t size, uint32_t bs, unsigned blocklog,
		      uint64_t b)
{
	uint64_t off = b << blocklog;

	return size - off < bs ? (size_t)(size - off) : bs;
}

/* crc of the original of block b from its record (journaled: true). */
static int orig_crc(struct vctx *c, uint64_t b, uint32_t *crc, bool *have)
{
	const struct journal_rec *r = scan_record_of(c->s, b);
	uint64_t at = b << c->blocklog;
	size_t len;
	uint8_t *p = c->buf + CHUNK;	/* the spare block after the chunk */
	int ret;

	*have = r != NULL;
	if (!r) {
		/* a reference's: the original is what the run left at the
		 * copy, whose crc the proof holds */
		const struct scan_ref *f = scan_ref_of(c->s, b);
		size_t pa = f ? undo_proof_at(c->p, f->c + (b - f->d)) :
				SIZE_MAX;

		*have = pa != SIZE_MAX;
		if (*have)
			*crc = c->p->crc[pa];
		return 0;
	}
	len = r->off + r->len - at < c->bs ? (size_t)(r->off + r->len - at) :
	      c->bs;
	ret = scan_read_at(c->s, p, len, r->pos + OD_UNDO_REC_LEN +
			   (at - r->off), c->e);
	if (ret == 0)
		*crc = blk_crc(c->bs, c->ss, b, p, len);
	return ret;
}

static void note_changed(struct vctx *c, uint64_t b)
{
	if (c->nfirst < NFIRST)
		c->first[c->nfirst++] = b;
}

/* Read n blocks of im at b into buf (n * bs <= CHUNK). */
static int read_blocks(struct img *im, struct fs *fs, uint8_t *buf,
		       uint64_t b, uint64_t n, struct err *e)
{
	uint64_t off = b << fs->geo.blocklog, len = n << fs->geo.blocklog;
	int ret;

	if (len > im->size - off)
		len = im->size - off;
	ret = img_pread(im, buf, (size_t)len, off);
	if (ret)
		return err_set(e, ret, "%s: reading image block %llu "
			       "failed: %s", fs->path,
			       (unsigned long long)b, strerror(-ret));
	return 0;
}

static int check_proof(struct vctx *c)
{
	const struct uproof *p = c->p;
	uint64_t per = CHUNK >> c->blocklog;
	size_t k;
	int ret = 0;

	free(c->state);
	c->state = calloc(p->ncrc ? p->ncrc : 1, 1);
	if (!c->state)
		return nomem(c->e);
	for (k = 0; k < p->nrun && !ret; k++) {
		const struct proof_run *r = &p->run[k];
		uint64_t i, j, n;

		for (i = 0; i < r->n && !ret; i += n) {
			n = r->n - i < per ? r->n - i : per;
			ret = read_blocks(c->im, c->fs, c->buf, r->b + i, n,
					  c->e);
			for (j = 0; j < n && !ret; j++) {
				uint64_t b = r->b + i + j;
				size_t at = r->c0 + (size_t)(i + j);
				uint32_t crc, oc = 0;
				bool have = false;

				crc = blk_crc(c->bs, c->ss, b,
					      c->buf + (j << c->blocklog),
					      blk_len(c->im->size, c->bs,
						      c->blocklog, b));
				if (crc == p->crc[at]) {
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
		return nomem(c->e);
	v->cp[v->ncp++] = (struct ucopy){ x, y, 1 };
	return 0;
}

static int check_moves(struct vctx *c)
{
	const struct uproof *p = c->p;
	uint64_t per = CHUNK >> c->blocklog;
	size_t k;
	int ret = 0;

	c->v->ncp = 0;
	c->v->copy_blocks = 0;
	for (k = 0; k < p->nmv && !ret; k++) {
		const struct ucopy *m = &p->mv[k];
		uint64_t i, j, n;

		for (i = 0; i < m->n && !ret; i += n) {
			n = m->n - i < per ? m->n - i : per;
			ret = read_blocks(c->im, c->fs, c->buf, m->x + i, n,
					  c->e);
			for (j = 0; j < n && !ret; j++) {
				uint64_t x = m->x + i + j, y = m->y + i + j;
				size_t at = undo_proof_at(p, y);

				if (at == SIZE_MAX)
					return scan_damaged(c->s, c->e, 0,
						"a move record names a copy "
						"outside the proof");
				if (blk_crc(c->bs, c->ss, x,
					    c->buf + (j << c->blocklog),
					    blk_len(c->im->size, c->bs,
						    c->blocklog, x)) ==
				    p->crc[at])
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

/* crc of n blocks of im from block b (in buf, CHUNK bytes at least;
 * whole blocks: references never hold the image's partial last one). */
static int run_crc(struct img *im, struct fs *fs, uint8_t *buf, uint64_t b,
		   uint64_t n, uint32_t *crc, struct err *e)
{
	uint64_t per = CHUNK >> fs->geo.blocklog, i, k;
	uint32_t c = 0xffffffffu;
	int ret = 0;

	for (i = 0; i < n && !ret; i += k) {
		k = n - i < per ? n - i : per;
		ret = read_blocks(im, fs, buf, b + i, k, e);
		if (ret == 0)
			c = od_crc32c(c, buf, (size_t)(k << fs->geo.blocklog));
	}
	*crc = ~c;
	return ret;
}

int undo_ref_lost(struct err *e, const char *img, const char *undo,
		  const struct scan_ref *f, const char *then)
{
	return err_set(e, -ESTALE, "%s: neither image blocks %llu..%llu nor "
		       "their copy at blocks %llu..%llu hold the original "
		       "that undo file %s names (record %llu)%s", img,
		       (unsigned long long)f->d,
		       (unsigned long long)(f->d + f->n - 1),
		       (unsigned long long)f->c,
		       (unsigned long long)(f->c + f->n - 1), undo,
		       (unsigned long long)f->seq, then);
}

/*
 * A live reference in the comparison: its blocks must hold the
 * original.  Block by block where the proof holds the copy's crcs (a
 * block an earlier pass decides is skipped), else the whole run at once
 * (skipped if an earlier pass decides any of it).
 */
static int cmp_ref(const struct uproof *p, struct fs *fs,
		   struct img *im, struct bitmap *covered,
		   const struct scan_ref *f, uint8_t *buf, uint64_t *differ,
		   uint64_t *first, int *nfirst, struct err *e)
{
	uint32_t bs = fs->geo.blocksize, ss = fs->geo.sectsize, crc;
	bool per_block = p != NULL, any = false;
	uint64_t i;
	int ret = 0;

	for (i = 0; per_block && i < f->n; i++)
		per_block = undo_proof_at(p, f->c + i) != SIZE_MAX;
	for (i = 0; covered && i < f->n; i++)
		any = any || bm_test(covered, f->d + i);
	if (!per_block) {
		if (any)
			return 0;
		ret = covered ? bm_set(covered, f->d, f->n) : 0;
		if (ret)
			return nomem(e);
		ret = run_crc(im, fs, buf, f->d, f->n, &crc, e);
		if (ret == 0 && crc != f->crc) {
			if (*nfirst < NFIRST)
				first[(*nfirst)++] = f->d;
			(*differ) += f->n;
		}
		return ret;
	}
	for (i = 0; i < f->n && !ret; i++) {
		uint64_t x = f->d + i;

		if (covered && bm_test(covered, x))
			continue;
		if (covered && bm_set(covered, x, 1))
			return nomem(e);
		ret = read_blocks(im, fs, buf, x, 1, e);
		if (ret == 0 && blk_crc(bs, ss, x, buf, bs) !=
		    p->crc[undo_proof_at(p, f->c + i)]) {
			if (*nfirst < NFIRST)
				first[(*nfirst)++] = x;
			(*differ)++;
		}
	}
	return ret;
}

int undo_check_refs(struct scan *s, const struct uproof *p, struct fs *fs,
		    struct img *im, struct err *e)
{
	uint8_t *buf = malloc(CHUNK);
	size_t k;
	uint64_t i;
	int ret = 0;

	if (!buf)
		return nomem(e);
	for (k = 0; k < s->nrf && !ret; k++) {
		const struct scan_ref *f = &s->rf[k];
		uint32_t crc;

		if (!f->live)
			continue;
		for (i = 0; p && i < f->n; i++)
			if (undo_proof_at(p, f->c + i) == SIZE_MAX) {
				ret = scan_damaged(s, e, f->pos, "a reference "
						   "names a copy outside the "
						   "proof");
				break;
			}
		if (ret == 0)
			ret = run_crc(im, fs, buf, f->d, f->n, &crc, e);
		if (ret || crc == f->crc)
			continue;	/* never overwritten, or restored */
		ret = run_crc(im, fs, buf, f->c, f->n, &crc, e);
		if (ret == 0 && crc != f->crc)
			ret = undo_ref_lost(e, fs->path, s->path, f,
					    ": the filesystem changed since "
					    "the run; nothing was written");
	}
	free(buf);
	return ret;
}

/*
 * Compare the image (im) with what undoing s would leave there: every
 * block of s's records (their original bytes) and every vacated block of
 * its moves (the bytes of its copy as the run left them).  Blocks set in
 * covered are skipped (an earlier pass's file decides them), and those
 * compared are set there (covered may be NULL); with skip_sb the first
 * sector of block 0 is not compared.  *differ counts blocks that differ,
 * the first few named in first[] (*nfirst of NFIRST).
 */
int undo_cmp_records(struct scan *s, const struct uproof *p, struct fs *fs,
		     struct img *im, struct bitmap *covered, bool skip_sb,
		     uint64_t *differ, uint64_t *first, int *nfirst,
		     struct err *e)
{
	uint32_t bs = fs->geo.blocksize, ss = fs->geo.sectsize;
	unsigned bl = fs->geo.blocklog;
	uint8_t *a = malloc(CHUNK), *b = malloc(CHUNK + bs);
	/* (b also serves the references: whole blocks) */
	size_t i, k;
	int ret = 0;

	if (!a || !b) {
		ret = nomem(e);
		goto out;
	}
	for (i = 0; i < s->n && !ret; i++) {
		const struct journal_rec *r = &s->v[i];
		uint64_t at;

		for (at = 0; at < r->len && !ret; at += CHUNK) {
			size_t len = r->len - at < CHUNK ? (size_t)(r->len - at) :
				     CHUNK, o;

			ret = scan_read_at(s, a, len, r->pos + OD_UNDO_REC_LEN +
					   at, e);
			if (ret)
				break;
			ret = img_pread(im, b, len, r->off + at);
			if (ret)
				ret = err_set(e, ret, "%s: reading image bytes "
					      "%llu..%llu failed: %s", fs->path,
					      (unsigned long long)(r->off + at),
					      (unsigned long long)(r->off + at +
								   len - 1),
					      strerror(-ret));
			for (o = 0; o < len && !ret; o += bs) {
				uint64_t blk = (r->off + at + o) >> bl;
				size_t from = 0, n = len - o < bs ?
						      len - o : bs;

				if (covered && bm_test(covered, blk))
					continue;
				if (covered && bm_set(covered, blk, 1)) {
					ret = nomem(e);
					break;
				}
				if (skip_sb && blk == 0)
					from = ss < n ? ss : n;
				if (memcmp(a + o + from, b + o + from,
					   n - from) == 0)
					continue;
				if (*nfirst < NFIRST)
					first[(*nfirst)++] = blk;
				(*differ)++;
			}
		}
	}
	for (k = 0; k < s->nlv && !ret; k++)
		ret = cmp_ref(p, fs, im, covered, s->lv[k], b, differ,
			      first, nfirst, e);
	for (k = 0; p && k < p->nmv && !ret; k++) {
		const struct ucopy *m = &p->mv[k];
		uint64_t j;

		for (j = 0; j < m->n && !ret; j++) {
			uint64_t x = m->x + j;
			size_t pa = undo_proof_at(p, m->y + j);

			if (covered && bm_test(covered, x))
				continue;
			if (covered && bm_set(covered, x, 1)) {
				ret = nomem(e);
				break;
			}
			if (pa == SIZE_MAX)
				return scan_damaged(s, e, 0, "a move record names "
						    "a copy outside the proof");
			ret = read_blocks(im, fs, b, x, 1, e);
			if (ret == 0 &&
			    blk_crc(bs, ss, x, b, blk_len(im->size, bs, bl, x)) !=
			    p->crc[pa]) {
				if (*nfirst < NFIRST)
					first[(*nfirst)++] = x;
				(*differ)++;
			}
		}
	}
out:
	free(a);
	free(b);
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
static const char *headers_in(uint32_t ss, unsigned blocklog, uint64_t agbno)
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
	uint64_t s0 = (agbno << blocklog) / ss;
	uint64_t s1 = ((agbno + 1) << blocklog) / ss - 1;

	if (s0 > 3)
		return "";
	return name[s0][s1 > 3 ? 3 : s1];
}

void undo_name_blocks(const struct fs *fs, const uint64_t *first, int n,
		      char *out, size_t len)
{
	uint32_t agb = fs->geo.agblocks;
	size_t at = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < n && at + 1 < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%sag %llu block "
				       "%llu%s", i ? ", " : "",
				       (unsigned long long)(first[i] / agb),
				       (unsigned long long)(first[i] % agb),
				       headers_in(fs->geo.sectsize,
						  fs->geo.blocklog,
						  first[i] % agb));
}

/* The original superblock sector from record 0 (v->orig_sb), if any. */
static int load_orig_sb(struct vctx *c)
{
	struct scan *s = c->s;

	if (!s->n || s->v[0].off != 0 || s->v[0].len < c->ss)
		return 0;
	c->v->orig_sb = malloc(c->ss);
	if (!c->v->orig_sb)
		return nomem(c->e);
	return scan_read_at(s, c->v->orig_sb, c->ss,
			    s->v[0].pos + OD_UNDO_REC_LEN, c->e);
}

static int read_sb(struct vctx *c, uint8_t *cur)
{
	int ret = img_pread(c->im, cur, c->ss, 0);

	if (ret)
		return err_set(c->e, ret, "%s: reading the superblock failed: "
			       "%s", c->fs->path, strerror(-ret));
	return 0;
}

/* The first data record of s ending past byte off. */
static size_t rec_after(const struct scan *s, uint64_t off)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].off + s->v[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
	size_t lo = rec_after(s, off);
	int ret = 0;

	while (off < end && !ret) {
		const struct journal_rec *r = lo < s->n ? &s->v[lo] : NULL;
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

/*
 * The log as the run began?  Computed once per image (log->have),
 * unless the file journals blocks of the log (a shrink's): then from
 * its originals, for this file only.
 */
static int check_log(struct vctx *c, struct log_now *log, bool *same)
{
	const struct od_undo_hdr *h = &c->s->h;
	struct log_now mine = { 0 };
	size_t r;
	uint32_t crc;
	int ret;

	*same = true;
	if (!h->log_len)
		return 0;
	r = rec_after(c->s, h->log_off);
	if (r < c->s->n && c->s->v[r].off < h->log_off + h->log_len) {
		ret = log_crc(c, &crc);
		if (ret && !c->e->code)
			err_set(c->e, ret, "%s: reading the log failed: %s",
				c->fs->path, strerror(-ret));
		if (ret)
			return ret;
		*same = crc == h->log_crc;
		return 0;
	}
	if (!log)
		log = &mine;
	if (!log->have || log->off != h->log_off || log->len != h->log_len) {
		log->off = h->log_off;
		log->len = h->log_len;
		ret = undo_crc_range(undo_raw_img(c->fs), h->log_off,
				     h->log_len, &log->crc);
		if (ret)
			return err_set(c->e, ret, "%s: reading the log failed: "
				       "%s", c->fs->path, strerror(-ret));
		log->have = true;
	}
	*same = log->crc == h->log_crc;
	return 0;
}

/* Blocks the run wrote that changed, and vacated blocks lost, into why. */
static void say_changed(struct vctx *c, char *why, size_t len)
{
	char where[200];

	undo_name_blocks(c->fs, c->first, c->nfirst, where, sizeof(where));
	if (c->changed)
		say(why, len, "%llu block%s the run wrote hold%s other data "
		    "(first: %s)", (unsigned long long)c->changed,
		    c->changed == 1 ? "" : "s", c->changed == 1 ? "s" : "",
		    where);
	if (c->lost)
		say(why, len, "%llu block%s the run vacated %s reused and %s "
		    "changed too", (unsigned long long)c->lost,
		    c->lost == 1 ? "" : "s", c->lost == 1 ? "was" : "were",
		    c->lost == 1 ? "its copy" : "their copies");
}

/* The proof and the moves, strictly (tolerant: an undo had begun). */
static int check_state(struct vctx *c, bool tolerant)
{
	int ret;

	c->tolerant = tolerant;
	c->changed = c->lost = 0;
	c->nfirst = 0;
	c->v->ncp = 0;
	c->v->copy_blocks = 0;
	if (!c->s->sealed)
		return 0;
	ret = check_proof(c);
	if (ret == 0)
		ret = check_moves(c);
	return ret;
}

/* Does the view hold every original s holds (at start)? */
static int check_start(struct vctx *c, uint64_t *differ)
{
	*differ = 0;
	c->nfirst = 0;
	return undo_cmp_records(c->s, c->s->sealed ? c->p : NULL, c->fs, c->im,
				NULL, false, differ, c->first, &c->nfirst,
				c->e);
}

/*
 * Decide from the superblock (st) where the view is; fills why (and
 * *code: the error to refuse with) when it matches nothing.
 */
static int place(struct vctx *c, enum sbstate st, int kind, uint64_t nonce,
		 enum uv_mode mode, char *why, size_t len, int *code)
{
	struct scan *s = c->s;
	struct uverify *v = c->v;
	uint64_t differ = 0;
	char where[200];
	int ret = 0;

	*code = -ESTALE;
	v->undo_begun = st == SB_UNDO;
	if (mode == UV_END || st == SB_FINAL) {
		if (st != SB_FINAL && !(st == SB_ORIG && s->sealed &&
					od_undo_crc(v->orig_sb, c->ss) ==
					s->seal.sb_crc)) {
			say(why, len, "the superblock is not as the run left it");
			return 0;
		}
		v->where = UV_AT_END;
		ret = check_state(c, false);
		if (ret == 0)
			say_changed(c, why, len);
		return ret;
	}
	switch (st) {
	case SB_FOREIGN:
		say(why, len, "the superblock carries the mark of another "
		    "xfsdefrag %s that did not finish (undo file nonce "
		    "%016llx): finish that one first",
		    kind == OD_UNDO_MARK_BY_RUN ? "run" : "undo",
		    (unsigned long long)nonce);
		return 0;
	case SB_UNDO:
		v->where = UV_MIDWAY;
		ret = check_state(c, true);
		if (ret == 0)
			say_changed(c, why, len);
		return ret;
	case SB_RUN:
		if (s->complete) {
			say(why, len, "the superblock is not as the run left it "
			    "(it still carries the run's mark, but the run "
			    "finished)");
			return 0;
		}
		v->where = UV_RUN;
		ret = check_state(c, false);	/* sealed: all but the sb */
		if (ret == 0)
			say_changed(c, why, len);
		return ret;
	case SB_ORIG:
		/* the run's last superblock may equal its first */
		if (s->sealed && od_undo_crc(v->orig_sb, c->ss) ==
		    s->seal.sb_crc) {
			char end[400] = "";

			ret = check_state(c, false);
			if (ret || (!c->changed && !c->lost)) {
				v->where = UV_AT_END;
				return ret;
			}
			say_changed(c, end, sizeof(end));
			ret = check_start(c, &differ);
			if (ret || !differ) {
				v->where = UV_AT_START;
				v->ncp = 0;
				v->copy_blocks = 0;
				return ret;
			}
			/* as the run left it, but for what changed since */
			say(why, len, "%s", end);
			return 0;
		}
		ret = check_start(c, &differ);
		if (ret || !differ) {
			v->where = UV_AT_START;
			v->ncp = 0;
			v->copy_blocks = 0;
			return ret;
		}
		undo_name_blocks(c->fs, c->first, c->nfirst, where,
				 sizeof(where));
		if (!s->sealed) {
			*code = -EFSCORRUPTED;
			say(why, len, "undo file %s has no seal, and the "
			    "superblock carries no mark of its run, as if the "
			    "run never wrote; but %llu block%s it holds differ "
			    "from %s original%s (first: %s): the run finished "
			    "and the file was cut short (it ends at byte %llu), "
			    "or the filesystem changed", s->path,
			    (unsigned long long)differ, differ == 1 ? "" : "s",
			    differ == 1 ? "its" : "their",
			    differ == 1 ? "" : "s", where,
			    (unsigned long long)s->fsize);
			return 0;
		}
		say(why, len, "it is neither as the run left it nor as it was "
		    "before (%llu block%s of the undo file differ%s from the "
		    "filesystem, first: %s)", (unsigned long long)differ,
		    differ == 1 ? "" : "s", differ == 1 ? "s" : "", where);
		return 0;
	default:
		if (s->sealed) {
			say(why, len, "the superblock is not as the run left it");
			return 0;
		}
		*code = -EFSCORRUPTED;
		say(why, len, "undo file %s has no seal, but the superblock "
		    "carries no mark of its run (an interrupted run leaves "
		    "NEEDSREPAIR and its mark): the run finished and the file "
		    "was cut short (it ends at byte %llu), or something "
		    "rewrote the superblock", s->path,
		    (unsigned long long)s->fsize);
		return 0;
	}
}

int undo_verify(struct scan *s, struct fs *fs, struct img *view,
		enum uv_mode mode, struct log_now *log, struct uverify *v,
		struct err *e)
{
	struct vctx c = { 0 };
	char why[700] = "";
	uint8_t *cur = NULL;
	uint64_t nonce = 0;
	enum sbstate st;
	bool log_same;
	size_t k;
	int ret, kind, code = -ESTALE;

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
	c.im = view ? view : undo_raw_img(fs);
	c.v = v;
	c.p = &v->p;
	c.e = e;
	c.bs = fs->geo.blocksize;
	c.ss = fs->geo.sectsize;
	c.blocklog = fs->geo.blocklog;
	c.nblocks = (fs->img->size + c.bs - 1) >> c.blocklog;
	c.buf = malloc(CHUNK + c.bs);
	cur = malloc(c.ss);
	if (!c.buf || !cur) {
		ret = nomem(e);
		goto out;
	}
	ret = undo_proof_load(s, c.nblocks, &v->p, e);
	if (ret == 0)
		ret = load_orig_sb(&c);
	if (ret)
		goto out;
	if (!v->orig_sb) {
		ret = err_set(e, -EFSCORRUPTED, s->n ?
			      "undo file %s is damaged: it holds no original "
			      "of the superblock, which a run journals before "
			      "its first write; nothing was written" :
			      "undo file %s holds no record (%llu bytes): it "
			      "was cut short, or its run was stopped before "
			      "its first write to the image; it cannot tell "
			      "which, so it undoes nothing (nothing was "
			      "written)", s->path,
			      (unsigned long long)s->fsize);
		goto out;
	}
	ret = check_log(&c, log, &log_same);
	if (ret == 0)
		ret = read_sb(&c, cur);
	if (ret)
		goto out;
	if (!log_same)
		say(why, sizeof(why), "the log was written (a read-write "
		    "mount, or xfs_repair)");
	st = classify(&c, cur, v->orig_sb, &nonce, &kind);
	ret = place(&c, st, kind, nonce, mode, why, sizeof(why), &code);
	/* what the references restore is still at hand */
	if (ret == 0 && !why[0] && log_same && v->where != UV_AT_START &&
	    v->where != UV_NONE)
		ret = undo_check_refs(s, s->sealed ? &v->p : NULL, fs, c.im,
				      e);
	if (ret == 0 && why[0]) {
		if (!log_same)
			code = -ESTALE;
		if (code == -ESTALE)
			ret = err_set(e, -ESTALE, "%s changed since the run of "
				      "undo file %s: %s; undoing now would "
				      "destroy what was written since (nothing "
				      "was written)", fs->path, s->path, why);
		else
			ret = err_set(e, code, "%s; nothing was written", why);
	}
	v->proof_blocks = v->p.ncrc;
	for (k = 0; k < v->p.nmv; k++)
		v->move_blocks += v->p.mv[k].n;
out:
	free(c.state);
	free(c.buf);
	free(cur);
	return ret;
}

void undo_verify_free(struct uverify *v)
{
	free(v->orig_sb);
	free(v->cp);
	undo_proof_free(&v->p);
	memset(v, 0, sizeof(*v));
}
