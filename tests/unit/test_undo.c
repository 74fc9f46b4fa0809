/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the undo journal on a synthetic filesystem in memory: a
 * valid v5 superblock (the only structure the journal looks at) over
 * random bytes.  Format round trips and flipped bytes; the layer's
 * bookkeeping (whole blocks, once; free blocks never; prepare + sync;
 * records split at 1 MiB; the image's partial last block); identity
 * checks; torn tails at every length; damage anywhere else refused with
 * nothing written; a crash (fault layer, in a child) before every write;
 * a journal that cannot grow failing the image write; the files of a run
 * in passes (undo_begin_pass): each names the one before, which names it
 * back, a pass begun on a filesystem the pass before did not leave is
 * refused, undo_discard takes a pass's file and its link away, and the
 * chain is undone whole; references (a block the run had copied named
 * at its copy), superseded, sealed, damaged and restored.
 */
#include "t.h"
#include "core/undo/chain.h"
#include "core/undo/undo.h"
#include "ondisk/be.h"
#include "ondisk/sb.h"
#include "ondisk/undo.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BS		4096u
#define AGBLOCKS	256u
#define AGCOUNT		4u
#define DBLOCKS		((uint64_t)AGBLOCKS * AGCOUNT)
#define TAIL		1000u	/* bytes after the last whole block */
#define IMGSIZE		(DBLOCKS * BS + TAIL)
#define NBLOCKS		(DBLOCKS + 1)	/* with the partial one */

struct env {
	struct t_state *ts;
	char dir[64];
	uint8_t *img;		/* shared mapping: children write it too */
	uint8_t *orig;
	int njournal;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill_rnd(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(rnd() >> 24);
}

/* A v5 superblock fs_open_img accepts (external log: nothing to read). */
static void make_sb(uint8_t *buf, uint8_t uuid_byte, uint64_t dblocks)
{
	struct od_sb sb = { 0 };

	memset(buf, 0, 512);
	sb.magicnum = OD_SB_MAGIC;
	sb.blocksize = BS;
	sb.dblocks = dblocks;
	memset(sb.uuid, uuid_byte, 16);
	sb.agblocks = AGBLOCKS;
	sb.agcount = (uint32_t)((dblocks + AGBLOCKS - 1) / AGBLOCKS);
	sb.versionnum = 5 | OD_SB_VERSION_DIRV2;
	sb.sectsize = 512;
	sb.inodesize = 512;
	sb.inopblock = BS / 512;
	sb.blocklog = 12;
	sb.sectlog = 9;
	sb.inodelog = 9;
	sb.inopblog = 3;
	sb.agblklog = 8;
	sb.imax_pct = 25;
	sb.rootino = 128;
	od_sb_encode(&sb, buf, 512);
}

static struct fs *open_fs(struct env *v, uint8_t *buf)
{
	struct img *im;
	struct fs *fs = NULL;
	struct err e = { 0 };

	if (img_open_mem(buf, IMGSIZE, IMG_RDWR, &im))
		return NULL;
	if (fs_open_img(im, "mem", FS_RDWR | FS_NOPROBE, &fs, &e)) {
		fprintf(stderr, "fs_open_img: %s\n", e.msg);
		img_close(im);
		T_CHECK(v->ts, !"fs_open_img");
	}
	return fs;
}

static void jpath(struct env *v, char *out, size_t len)
{
	snprintf(out, len, "%s/j%d", v->dir, v->njournal++);
}

static uint64_t file_size(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static void flip(const char *p, uint64_t pos)
{
	int fd = open(p, O_RDWR);
	uint8_t b;

	if (fd < 0)
		return;
	if (pread(fd, &b, 1, (off_t)pos) == 1) {
		b ^= 0x20;
		if (pwrite(fd, &b, 1, (off_t)pos) != 1)
			perror("pwrite");
	}
	close(fd);
}

/*
 * A fresh copy of the first len bytes of from (unlink, not O_TRUNC or
 * truncate: ext4 flushes a file truncated over dirty data on close).
 */
static void copy_prefix(const char *from, const char *to, uint64_t len)
{
	int a = open(from, O_RDONLY), b;
	uint8_t buf[65536];
	ssize_t n;

	unlink(to);
	b = open(to, O_WRONLY | O_CREAT | O_EXCL, 0600);
	while (a >= 0 && b >= 0 && len &&
	       (n = read(a, buf, len < sizeof(buf) ? len : sizeof(buf))) > 0) {
		if (write(b, buf, (size_t)n) != n)
			break;
		len -= (uint64_t)n;
	}
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

static void copy_file(const char *from, const char *to)
{
	copy_prefix(from, to, UINT64_MAX);
}

static int wr(struct fs *fs, uint64_t off, size_t len)
{
	uint8_t *p = malloc(len);
	int ret;

	fill_rnd(p, len);
	ret = img_pwrite(fs->img, p, len, off);
	free(p);
	return ret;
}

/* The run's first write: the superblock with NEEDSREPAIR and its mark. */
static int mark_sb(struct fs *fs, struct undo *u)
{
	uint8_t sec[512];
	int ret = img_pread(fs->img, sec, sizeof(sec), 0);

	if (ret == 0) {
		undo_sb_mark(u, sec, sizeof(sec), true);
		ret = img_pwrite(fs->img, sec, sizeof(sec), 0);
	}
	return ret;
}

/* Blocks other than free[0..nfree) that differ from the original. */
static uint64_t differs_but(const struct env *v, const uint64_t *fr,
			    size_t nfree, bool say)
{
	uint64_t b, n = 0;
	size_t i;

	for (b = 0; b < NBLOCKS; b++) {
		size_t len = b == DBLOCKS ? TAIL : BS;
		bool skip = false;

		for (i = 0; i < nfree; i++)
			skip |= fr[i] == b;
		if (skip || !memcmp(v->img + b * BS, v->orig + b * BS, len))
			continue;
		if (say && n == 0)
			fprintf(stderr, "block %llu differs\n",
				(unsigned long long)b);
		n++;
	}
	return n;
}

/* Image equals the original everywhere but in blocks free[0..nfree). */
static bool same_but(const struct env *v, const uint64_t *fr, size_t nfree)
{
	return differs_but(v, fr, nfree, true) == 0;
}

static void reset(struct env *v)
{
	memcpy(v->img, v->orig, IMGSIZE);
}

/* Version 2: the proof's record kinds, the seal, the superblock mark. */
static void test_format2(struct t_state *ts, uint64_t nonce)
{
	static const enum od_undo_kind kinds[] = {
		OD_UNDO_DATA, OD_UNDO_PROOF, OD_UNDO_MOVES, OD_UNDO_SEAL
	};
	static const char magic[][5] = { "UREC", "UPRF", "UMOV", "USEA" };
	struct od_undo_rec r = { 0 }, q;
	struct od_undo_seal sl = { 0x12345678, 77, 5, 1 << 20 }, sg;
	uint8_t rb[OD_UNDO_REC_LEN], sb[OD_UNDO_SEAL_LEN], sec[512] = { 0 };
	const char *field;
	uint64_t n;
	size_t i;

	for (i = 0; i < 4; i++) {
		r = (struct od_undo_rec){ .kind = kinds[i], .seq = 3,
					  .batch = 2 };
		r.len = kinds[i] == OD_UNDO_SEAL ? OD_UNDO_SEAL_LEN : 48;
		r.off = kinds[i] == OD_UNDO_DATA ? 4096 : 0;
		od_undo_rec_encode(&r, nonce, rb);
		T_CHECK(ts, memcmp(rb, magic[i], 4) == 0);
		T_CHECK(ts, od_undo_rec_decode(rb, sizeof(rb), nonce, &q,
					       &field) == OD_OK &&
			    q.kind == kinds[i] && !q.end && q.len == r.len);
	}
	/* the proof's records name no image offset; a seal is 64 bytes */
	r = (struct od_undo_rec){ .kind = OD_UNDO_PROOF, .len = 8, .off = 1 };
	od_undo_rec_encode(&r, nonce, rb);
	T_CHECK(ts, od_undo_rec_decode(rb, sizeof(rb), nonce, &q, &field) ==
		    OD_EFIELD && strcmp(field, "offset") == 0);
	r = (struct od_undo_rec){ .kind = OD_UNDO_SEAL, .len = 63 };
	od_undo_rec_encode(&r, nonce, rb);
	T_CHECK(ts, od_undo_rec_decode(rb, sizeof(rb), nonce, &q, &field) ==
		    OD_EFIELD && strcmp(field, "len") == 0);

	od_undo_seal_encode(&sl, sb);
	T_CHECK(ts, od_undo_seal_decode(sb, sizeof(sb), &sg) == OD_OK &&
		    sg.sb_crc == sl.sb_crc && sg.proof_blocks == 77 &&
		    sg.move_blocks == 5 && sg.data_bytes == 1 << 20);
	T_CHECK(ts, od_undo_seal_decode(sb, sizeof(sb) - 1, &sg) == OD_ESHORT);
	sb[40] = 1;
	T_CHECK(ts, od_undo_seal_decode(sb, sizeof(sb), &sg) == OD_EFIELD);

	/* the link record: a 16-byte next file, a pass from 2 */
	{
		struct od_undo_next nx = { 0x1122334455667788ull, 7 }, ng;
		uint8_t nb[OD_UNDO_NEXT_LEN];

		od_undo_next_encode(&nx, nb);
		T_CHECK(ts, od_undo_next_decode(nb, sizeof(nb), &ng) == OD_OK &&
			    ng.nonce == nx.nonce && ng.pass == 7);
		T_CHECK(ts, od_undo_next_decode(nb, sizeof(nb) - 1, &ng) ==
			    OD_ESHORT);
		nx.pass = 1;
		od_undo_next_encode(&nx, nb);
		T_CHECK(ts, od_undo_next_decode(nb, sizeof(nb), &ng) ==
			    OD_EFIELD);
		r = (struct od_undo_rec){ .kind = OD_UNDO_NEXT, .seq = 9,
					  .batch = 9, .len = 16 };
		od_undo_rec_encode(&r, nonce, rb);
		T_CHECK(ts, memcmp(rb, "UNXT", 4) == 0 &&
			    od_undo_rec_decode(rb, sizeof(rb), nonce, &q,
					       &field) == OD_OK &&
			    q.kind == OD_UNDO_NEXT);
		r.batch = 8;	/* a link is its own batch */
		od_undo_rec_encode(&r, nonce, rb);
		T_CHECK(ts, od_undo_rec_decode(rb, sizeof(rb), nonce, &q,
					       &field) == OD_EFIELD);
	}
	T_CHECK(ts, od_undo_mark_get(sec, &n) == OD_UNDO_MARK_NONE && n == 0);
	od_undo_mark_put(sec, OD_UNDO_MARK_BY_RUN, 0xabcdef);
	T_CHECK(ts, od_undo_mark_get(sec, &n) == OD_UNDO_MARK_BY_RUN &&
		    n == 0xabcdef);
	T_CHECK(ts, memcmp(sec + OD_UNDO_MARK_OFF, "XFSDFRUN", 8) == 0);
	od_undo_mark_put(sec, OD_UNDO_MARK_BY_UNDO, 7);
	T_CHECK(ts, od_undo_mark_get(sec, &n) == OD_UNDO_MARK_BY_UNDO &&
		    n == 7);
	od_undo_mark_put(sec, OD_UNDO_MARK_NONE, 7);
	for (i = 0; i < sizeof(sec) && !sec[i]; i++)
		;
	T_CHECK(ts, i == sizeof(sec));	/* cleared: all zeros again */
}

static void test_format(struct env *v)
{
	struct t_state *ts = v->ts;
	struct od_undo_hdr h = { 0 }, g;
	struct od_undo_rec r = { 0 }, q;
	uint8_t buf[OD_UNDO_HDR_LEN], rb[OD_UNDO_REC_LEN];
	const char *field;
	size_t i;
	int bad = 0;

	h.nonce = 0x0123456789abcdefull;
	memset(h.uuid, 0xaa, 16);
	h.dblocks = 1000;
	h.blocksize = 4096;
	h.sectsize = 512;
	h.agblocks = 250;
	h.agcount = 4;
	h.image_size = 1000 * 4096;
	h.ctime = 1700000000;
	h.log_off = 500 * 4096;
	h.log_len = 100 * 4096;
	h.log_crc = 0xfeedf00d;
	h.sb_crc = 0x5b5b5b5b;
	h.pass = 1;
	h.chain = h.nonce;
	strcpy(h.path, "/dev/sdz9");
	od_undo_hdr_encode(&h, buf);
	T_CHECK(ts, memcmp(buf, "XFSDFUND", 8) == 0);
	T_CHECK(ts, od_undo_hdr_decode(buf, sizeof(buf), &g, &field) == OD_OK);
	T_CHECK(ts, g.nonce == h.nonce && g.dblocks == 1000 &&
		    g.blocksize == 4096 && g.agcount == 4 &&
		    g.image_size == h.image_size && g.ctime == h.ctime &&
		    strcmp(g.path, "/dev/sdz9") == 0 &&
		    memcmp(g.uuid, h.uuid, 16) == 0 &&
		    g.version == OD_UNDO_VERSION &&
		    g.log_off == h.log_off && g.log_len == h.log_len &&
		    g.log_crc == h.log_crc && g.sb_crc == h.sb_crc &&
		    g.pass == 1 && g.chain == h.nonce && !g.prev_nonce);
	T_CHECK(ts, od_undo_hdr_decode(buf, sizeof(buf) - 1, &g, &field) ==
		    OD_ESHORT);
	for (i = 0; i < sizeof(buf); i++) {
		buf[i] ^= 1;
		bad += od_undo_hdr_decode(buf, sizeof(buf), &g, &field) ==
		       OD_OK;
		buf[i] ^= 1;
	}
	T_CHECK(ts, bad == 0);
	/* a chain that does not hold together (crc-valid headers) */
	h.pass = 0;
	od_undo_hdr_encode(&h, buf);
	T_CHECK(ts, od_undo_hdr_decode(buf, sizeof(buf), &g, &field) ==
		    OD_EFIELD && strcmp(field, "pass") == 0);
	h.pass = 1;
	h.prev_nonce = 5;	/* the first pass has no file before it */
	od_undo_hdr_encode(&h, buf);
	T_CHECK(ts, od_undo_hdr_decode(buf, sizeof(buf), &g, &field) ==
		    OD_EFIELD && strcmp(field, "chain") == 0);
	h.pass = 3;		/* a later pass names it, in another chain */
	h.chain = 99;
	h.prev_seal = 0xabcd;
	od_undo_hdr_encode(&h, buf);
	T_CHECK(ts, od_undo_hdr_decode(buf, sizeof(buf), &g, &field) ==
		    OD_OK && g.pass == 3 && g.chain == 99 &&
		    g.prev_nonce == 5 && g.prev_seal == 0xabcd);
	h.prev_nonce = 0;
	od_undo_hdr_encode(&h, buf);
	T_CHECK(ts, od_undo_hdr_decode(buf, sizeof(buf), &g, &field) ==
		    OD_EFIELD && strcmp(field, "chain") == 0);
	h.version = 2;		/* before v3 the chain is not read */
	od_undo_hdr_encode(&h, buf);
	T_CHECK(ts, od_undo_hdr_decode(buf, sizeof(buf), &g, &field) ==
		    OD_OK && g.version == 2);
	h.version = 0;
	h.pass = 1;
	h.chain = h.nonce;
	h.prev_seal = 0;
	h.blocksize = 3000;	/* a crc-valid header with nonsense */
	od_undo_hdr_encode(&h, buf);
	T_CHECK(ts, od_undo_hdr_decode(buf, sizeof(buf), &g, &field) ==
		    OD_EFIELD && strcmp(field, "blocksize") == 0);

	r.len = 8192;
	r.seq = 7;
	r.off = 1 << 20;
	r.batch = 5;
	r.dcrc = 0xdeadbeef;
	od_undo_rec_encode(&r, h.nonce, rb);
	T_CHECK(ts, od_get_be32(rb) == OD_UNDO_REC_MAGIC);
	T_CHECK(ts, od_undo_rec_decode(rb, sizeof(rb), h.nonce, &q, &field) ==
		    OD_OK);
	T_CHECK(ts, !q.end && q.len == 8192 && q.seq == 7 &&
		    q.off == 1 << 20 && q.batch == 5 && q.dcrc == 0xdeadbeef);
	/* another journal's record does not decode: the nonce seeds the crc */
	T_CHECK(ts, od_undo_rec_decode(rb, sizeof(rb), h.nonce + 1, &q,
				       &field) == OD_ECRC);
	for (i = 0, bad = 0; i < sizeof(rb); i++) {
		rb[i] ^= 0x10;
		bad += od_undo_rec_decode(rb, sizeof(rb), h.nonce, &q,
					  &field) == OD_OK;
		rb[i] ^= 0x10;
	}
	T_CHECK(ts, bad == 0);
	for (i = 0; i < sizeof(rb); i++)
		T_CHECK(ts, od_undo_rec_decode(rb, i, h.nonce, &q, &field) ==
			    OD_ESHORT);
	r.batch = 8;		/* after its own seq */
	od_undo_rec_encode(&r, h.nonce, rb);
	T_CHECK(ts, od_undo_rec_decode(rb, sizeof(rb), h.nonce, &q, &field) ==
		    OD_EFIELD);
	r.batch = 5;
	r.len = 0;
	od_undo_rec_encode(&r, h.nonce, rb);
	T_CHECK(ts, od_undo_rec_decode(rb, sizeof(rb), h.nonce, &q, &field) ==
		    OD_EFIELD);
	r.end = true;
	r.batch = r.seq;
	od_undo_rec_encode(&r, h.nonce, rb);
	T_CHECK(ts, od_undo_rec_decode(rb, sizeof(rb), h.nonce, &q, &field) ==
		    OD_OK && q.end && q.kind == OD_UNDO_END);
	test_format2(ts, h.nonce);
}

/* Whole blocks once, free blocks never, records split, partial block. */
static void test_layer(struct env *v, char *journal, size_t jlen)
{
	struct t_state *ts = v->ts;
	const uint64_t fr[] = { 100, 101, 105 };
	struct fs *fs;
	struct undo *u = NULL, *u2 = NULL;
	struct undo_info info = { 0 };
	struct img *base;
	struct err e = { 0 };
	uint8_t buf[2 * BS];
	uint64_t b;

	reset(v);
	fs = open_fs(v, v->img);
	if (!fs)
		return;
	base = fs->img;
	jpath(v, journal, jlen);
	T_CHECK(ts, undo_begin(fs, journal, &u, &e) == 0);
	T_CHECK(ts, fs->img != base && fs->img->lower == base);
	/* the header and the original of block 0, synced at once */
	T_CHECK(ts, file_size(journal) == OD_UNDO_HDR_LEN + OD_UNDO_REC_LEN +
		    BS);
	T_CHECK(ts, undo_bytes(u) == BS);
	T_CHECK(ts, mark_sb(fs, u) == 0 && undo_bytes(u) == BS);
	err_clear(&e);
	T_CHECK(ts, undo_begin(fs, journal, &u2, &e) == -EEXIST && !u2);
	T_CHECK(ts, strstr(e.msg, "already exists") != NULL);
	err_clear(&e);
	T_CHECK(ts, undo_mark_free(u, 100, 2, &e) == 0);
	T_CHECK(ts, undo_mark_free(u, 105, 1, &e) == 0);
	T_CHECK(ts, undo_mark_free(u, DBLOCKS - 1, 2, &e) == -EINVAL);
	err_clear(&e);

	T_CHECK(ts, wr(fs, BS + 904, 10) == 0);		/* block 1 */
	T_CHECK(ts, undo_bytes(u) == 2 * BS);
	T_CHECK(ts, wr(fs, BS + 2000, 100) == 0);	/* block 1 again */
	T_CHECK(ts, undo_bytes(u) == 2 * BS);
	/* 99 live, 100 and 101 free */
	T_CHECK(ts, wr(fs, 99 * BS + 7, 2 * BS) == 0);
	T_CHECK(ts, undo_bytes(u) == 3 * BS);
	T_CHECK(ts, wr(fs, 105 * BS, BS) == 0);		/* free only */
	T_CHECK(ts, undo_bytes(u) == 3 * BS);
	/* the partial last block */
	T_CHECK(ts, wr(fs, IMGSIZE - 10, 10) == 0);
	T_CHECK(ts, undo_bytes(u) == 3 * BS + TAIL);
	/* prepared and synced ahead: the writes add nothing */
	T_CHECK(ts, undo_prepare(u, 200 * BS, 4 * BS, &e) == 0);
	T_CHECK(ts, undo_prepare(u, 300 * BS, 1, &e) == 0);
	T_CHECK(ts, undo_sync(u, &e) == 0);
	T_CHECK(ts, undo_bytes(u) == 8 * BS + TAIL);
	T_CHECK(ts, wr(fs, 200 * BS, 4 * BS) == 0 && wr(fs, 300 * BS, BS) == 0);
	T_CHECK(ts, undo_bytes(u) == 8 * BS + TAIL);
	T_CHECK(ts, undo_prepare(u, IMGSIZE, 1, &e) == -ENXIO);
	err_clear(&e);
	/* 600 blocks in one write: records of at most 1 MiB */
	T_CHECK(ts, wr(fs, 400 * BS, 600 * BS) == 0);
	T_CHECK(ts, undo_bytes(u) == 608 * BS + TAIL);
	/* the originals of what was overwritten, from the journal */
	T_CHECK(ts, undo_read_original(u, 400 * BS + 5, buf, BS, &e) == 0 &&
		    memcmp(buf, v->orig + 400 * BS + 5, BS) == 0);
	T_CHECK(ts, undo_read_original(u, 655 * BS, buf, 2 * BS - 8, &e) ==
		    0 && memcmp(buf, v->orig + 655 * BS, 2 * BS - 8) == 0);
	T_CHECK(ts, undo_read_original(u, 50 * BS, buf, 1, &e) == -ENOENT);
	err_clear(&e);
	T_CHECK(ts, undo_finish(u, &e) == 0);
	memcpy(buf, v->img + BS, BS);
	T_CHECK(ts, wr(fs, BS, 1) == 0);		/* journaled: fine */
	T_CHECK(ts, wr(fs, 20 * BS, 1) == -EINVAL);	/* needs a record */
	T_CHECK(ts, undo_finish(u, &e) == 0);		/* again: no-op */
	undo_end(fs, u);
	T_CHECK(ts, fs->img == base);
	T_CHECK(ts, memcmp(v->img + 20 * BS, v->orig + 20 * BS, BS) == 0);
	T_CHECK(ts, differs_but(v, fr, 3, false) == 608 + 1);
	/* that write came after the run: undo would destroy it */
	err_clear(&e);
	T_CHECK(ts, undo_check(journal, fs, &info, &e) == -ESTALE);
	T_CHECK(ts, strstr(e.msg, "1 block the run wrote holds other data "
			   "(first: ag 0 block 1)") != NULL);
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == -ESTALE);
	T_CHECK(ts, differs_but(v, fr, 3, false) == 608 + 1);
	memcpy(v->img + BS, buf, BS);
	err_clear(&e);

	T_CHECK(ts, undo_check(journal, fs, &info, &e) == 0);
	T_CHECK(ts, info.complete && !info.torn_tail);
	T_CHECK(ts, info.state == UNDO_COMPLETE &&
		    info.version == OD_UNDO_VERSION);
	/* no free-at-end given: every written block is in the proof */
	T_CHECK(ts, info.proof_blocks == 608 + 1 + 3);
	T_CHECK(ts, info.bytes == 608 * BS + TAIL);
	/* 0, 1, 99, tail, 200-203, 300, then 600 blocks in 256+256+88 */
	T_CHECK(ts, info.records == 9);
	T_CHECK(ts, info.dblocks == DBLOCKS && info.blocksize == BS);
	T_CHECK(ts, strcmp(info.image, "mem") == 0);
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == 0);
	T_CHECK(ts, same_but(v, fr, 3));
	/* free blocks keep what the run wrote there */
	for (b = 0; b < 3; b++)
		T_CHECK(ts, memcmp(v->img + fr[b] * BS, v->orig + fr[b] * BS,
				   BS) != 0);
	/* idempotent */
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == 0);
	T_CHECK(ts, same_but(v, fr, 3));
	if (e.code)
		fprintf(stderr, "%s\n", e.msg);
	fs_close(fs);
}

/* Refuse a journal of another filesystem, naming what differs. */
static void test_identity(struct env *v, const char *journal)
{
	struct t_state *ts = v->ts;
	uint8_t *other = malloc(IMGSIZE), *copy = malloc(IMGSIZE);
	struct undo_info info = { 0 };
	struct err e = { 0 };
	struct fs *fs;

	memcpy(other, v->orig, IMGSIZE);
	make_sb(other, 0x77, DBLOCKS);		/* another uuid */
	memcpy(copy, other, IMGSIZE);
	fs = open_fs(v, other);
	T_CHECK(ts, undo_check(journal, fs, &info, &e) == -EXDEV);
	T_CHECK(ts, strstr(e.msg, "belongs to filesystem 11111111-1111-1111-"
			   "1111-111111111111, not 77777777-") != NULL);
	err_clear(&e);
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == -EXDEV);
	T_CHECK(ts, memcmp(other, copy, IMGSIZE) == 0);
	fs_close(fs);

	/* same uuid and size, AGs half as large: remade, another fs */
	make_sb(other, 0x11, DBLOCKS);
	{
		struct od_sb sb;

		od_sb_decode(other, BS, &sb);
		sb.agcount = 2 * AGCOUNT;
		sb.agblocks = AGBLOCKS / 2;
		sb.agblklog--;
		od_sb_encode(&sb, other, BS);
	}
	memcpy(copy, other, IMGSIZE);
	fs = open_fs(v, other);
	err_clear(&e);
	T_CHECK(ts, fs && undo_apply(journal, fs, &info, &e) == -EXDEV);
	T_CHECK(ts, strstr(e.msg, "agblocks") != NULL);
	T_CHECK(ts, memcmp(other, copy, IMGSIZE) == 0);
	fs_close(fs);

	/* same uuid, 3 AGs: as a shrink leaves it, but not this run's
	 * superblock: refused by the superblock check, nothing written */
	make_sb(other, 0x11, DBLOCKS - AGBLOCKS);
	memcpy(copy, other, IMGSIZE);
	fs = open_fs(v, other);
	err_clear(&e);
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == -ESTALE);
	T_CHECK(ts, strstr(e.msg, "superblock") != NULL);
	T_CHECK(ts, memcmp(other, copy, IMGSIZE) == 0);
	fs_close(fs);
	free(other);
	free(copy);
}

struct recpos {
	uint64_t pos[64];
	uint32_t len[64];
	size_t n;
};

static void note_rec(void *priv, uint64_t seq, uint64_t pos, uint64_t off,
		     uint32_t len, bool torn)
{
	struct recpos *rp = priv;

	(void)seq;
	(void)off;
	if (!torn && rp->n < 64) {
		rp->pos[rp->n] = pos;
		rp->len[rp->n++] = len;
	}
}

/* Where every record of journal j starts, then its size: n entries. */
static size_t bounds(const char *j, uint64_t *at, size_t max)
{
	struct od_undo_hdr h;
	struct od_undo_rec r;
	uint8_t hb[OD_UNDO_HDR_LEN];
	const char *field;
	uint64_t pos = OD_UNDO_HDR_LEN, size = file_size(j);
	size_t n = 0;
	int fd = open(j, O_RDONLY);

	if (fd < 0 || pread(fd, hb, sizeof(hb), 0) != (ssize_t)sizeof(hb) ||
	    od_undo_hdr_decode(hb, sizeof(hb), &h, &field) != OD_OK) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (pos + OD_UNDO_REC_LEN <= size && n + 1 < max &&
	       pread(fd, hb, OD_UNDO_REC_LEN, (off_t)pos) == OD_UNDO_REC_LEN &&
	       od_undo_rec_decode(hb, OD_UNDO_REC_LEN, h.nonce, &r,
				  &field) == OD_OK) {
		at[n++] = pos;
		pos += OD_UNDO_REC_LEN + r.len;
	}
	at[n++] = size;
	close(fd);
	return n;
}

/*
 * A complete journal of three batches: a flipped byte in the header or
 * in a data record is refused and nothing is written; in the end record
 * it only looks interrupted (every data record still valid).  Cut at any
 * length, what remains restores what it holds (a torn tail).
 */
static void test_damage(struct env *v, char *journal, size_t jlen)
{
	struct t_state *ts = v->ts;
	char j2[96];
	struct undo_info info = { 0 };
	struct recpos rp = { .n = 0 };
	struct err e = { 0 };
	struct undo *u = NULL;
	struct fs *fs;
	uint64_t size, pos, endpos, refused = 0, torn = 0, cut_ok = 0;
	uint64_t nmid = 0, nend = 0, ncut = 0, at[64];
	size_t nat, a;
	uint8_t *before = malloc(IMGSIZE);
	size_t k;

	reset(v);
	fs = open_fs(v, v->img);
	jpath(v, journal, jlen);
	snprintf(j2, sizeof(j2), "%s/damaged", v->dir);
	T_CHECK(ts, undo_begin(fs, journal, &u, &e) == 0);
	T_CHECK(ts, mark_sb(fs, u) == 0);
	T_CHECK(ts, wr(fs, 2 * BS, 2 * BS) == 0);
	T_CHECK(ts, undo_prepare(u, 7 * BS, BS, &e) == 0 &&
		    undo_prepare(u, 9 * BS, BS, &e) == 0 &&
		    undo_sync(u, &e) == 0);
	T_CHECK(ts, wr(fs, 7 * BS, 3 * BS) == 0);	/* 8 adds a record */
	T_CHECK(ts, undo_finish(u, &e) == 0);
	undo_end(fs, u);
	size = file_size(journal);
	T_CHECK(ts, undo_check_each(journal, fs, &info, note_rec, &rp, &e) ==
		    0 && rp.n == 5);
	endpos = size - OD_UNDO_REC_LEN;
	nat = bounds(journal, at, 64);
	T_CHECK(ts, nat >= rp.n + 3 && at[nat - 1] == size);
	memcpy(before, v->img, IMGSIZE);
	/* every byte of the header and record headers, some of the data */
	for (pos = 0; pos < size; pos++) {
		bool in_hdr = pos < OD_UNDO_HDR_LEN || pos >= endpos;

		for (k = 0; k < rp.n; k++)
			in_hdr |= pos - rp.pos[k] < OD_UNDO_REC_LEN;
		if (!in_hdr && pos % 61)
			continue;
		flip(journal, pos);
		memset(&info, 0, sizeof(info));
		err_clear(&e);
		if (pos >= endpos) {
			nend++;
			torn += undo_check(journal, fs, &info, &e) == 0 &&
				info.torn_tail && !info.complete &&
				info.records == rp.n;
		} else {
			nmid++;
			refused += undo_apply(journal, fs, &info, &e) < 0 &&
				   (e.code == -EFSCORRUPTED ||
				    e.code == -EFSBADCRC);
		}
		flip(journal, pos);
	}
	T_CHECK(ts, refused == nmid && nmid > OD_UNDO_HDR_LEN);
	T_CHECK(ts, torn == nend && nend == OD_UNDO_REC_LEN);
	T_CHECK(ts, memcmp(before, v->img, IMGSIZE) == 0);

	/*
	 * cut short: a cut in the header or record 0 (written with it, in
	 * one write) is damage, a later record cut is a torn tail
	 */
	for (pos = 1; pos < size; pos += pos < OD_UNDO_HDR_LEN ? 97 : 7) {
		copy_prefix(journal, j2, pos);
		ncut++;
		memset(&info, 0, sizeof(info));
		err_clear(&e);
		if (pos < OD_UNDO_HDR_LEN + OD_UNDO_REC_LEN + BS) {
			cut_ok += undo_check(j2, fs, &info, &e) ==
				  -EFSCORRUPTED;
			continue;
		}
		/* each cut from the run's result, as a crash left it */
		memcpy(v->img, before, IMGSIZE);
		if (undo_apply(j2, fs, &info, &e) != 0 || info.complete)
			continue;
		for (k = 0; k < rp.n && rp.pos[k] + OD_UNDO_REC_LEN +
		     rp.len[k] <= pos; k++)
			;
		/* torn unless the cut falls between two records */
		for (a = 0; a < nat && at[a] != pos; a++)
			;
		cut_ok += info.records == k && info.torn_tail == (a == nat);
	}
	T_CHECK(ts, cut_ok == ncut && ncut > 100);
	fs_close(fs);
	free(before);
	unlink(j2);
}

/*
 * The final batch, never synced, may be torn anywhere: its bad records
 * are ignored and its good ones applied.  A bad record followed by a
 * later batch was synced: refused.
 */
static void test_torn_batch(struct env *v, char *journal, size_t jlen)
{
	struct t_state *ts = v->ts;
	const uint64_t fr[] = { 0 };
	struct recpos rp = { .n = 0 };
	struct undo_info info = { 0 };
	struct err e = { 0 };
	struct undo *u = NULL;
	struct fs *fs;
	char j2[96];
	uint8_t *scribbled = malloc(IMGSIZE);

	reset(v);
	fs = open_fs(v, v->img);
	jpath(v, journal, jlen);
	snprintf(j2, sizeof(j2), "%s/torn", v->dir);
	T_CHECK(ts, undo_begin(fs, journal, &u, &e) == 0);	/* 0 */
	T_CHECK(ts, mark_sb(fs, u) == 0);
	T_CHECK(ts, wr(fs, 10 * BS, BS) == 0);		/* 1, synced */
	T_CHECK(ts, undo_prepare(u, 20 * BS, BS, &e) == 0);	/* 2 */
	T_CHECK(ts, undo_prepare(u, 30 * BS, BS, &e) == 0);	/* 3 */
	T_CHECK(ts, undo_prepare(u, 40 * BS, BS, &e) == 0);	/* 4 */
	/* crash here: records 2-4 never synced, their blocks not written */
	undo_end(fs, u);
	memcpy(scribbled, v->img, IMGSIZE);
	T_CHECK(ts, undo_check_each(journal, fs, &info, note_rec, &rp, &e) ==
		    0 && rp.n == 5 && !info.complete && !info.torn_tail);

	/* record 3's data torn: 0, 1, 2 and 4 are applied */
	copy_file(journal, j2);
	flip(j2, rp.pos[3] + OD_UNDO_REC_LEN + 100);
	memset(&info, 0, sizeof(info));
	T_CHECK(ts, undo_apply(j2, fs, &info, &e) == 0);
	T_CHECK(ts, info.records == 4 && info.torn == 1 && info.torn_tail);
	T_CHECK(ts, same_but(v, fr, 0));

	/* record 2's header torn: found record 3 and 4 by their headers */
	memcpy(v->img, scribbled, IMGSIZE);
	copy_file(journal, j2);
	flip(j2, rp.pos[2] + 3);
	memset(&info, 0, sizeof(info));
	T_CHECK(ts, undo_apply(j2, fs, &info, &e) == 0);
	T_CHECK(ts, info.records == 4 && info.torn == 1 && info.torn_tail);
	T_CHECK(ts, same_but(v, fr, 0));

	/* record 1 was synced (record 2 starts a later batch): damage */
	memcpy(v->img, scribbled, IMGSIZE);
	copy_file(journal, j2);
	flip(j2, rp.pos[1] + OD_UNDO_REC_LEN + 5);
	err_clear(&e);
	T_CHECK(ts, undo_apply(j2, fs, &info, &e) == -EFSCORRUPTED);
	T_CHECK(ts, strstr(e.msg, "had been synced") != NULL);
	T_CHECK(ts, memcmp(v->img, scribbled, IMGSIZE) == 0);
	if (e.code && !strstr(e.msg, "synced"))
		fprintf(stderr, "%s\n", e.msg);

	/* zeros after the last record (a crash while the file grew) */
	copy_file(journal, j2);
	T_CHECK(ts, truncate(j2, (off_t)file_size(j2) + 5000) == 0);
	memset(&info, 0, sizeof(info));
	err_clear(&e);
	T_CHECK(ts, undo_apply(j2, fs, &info, &e) == 0 && info.records == 5 &&
		    info.torn == 1 && info.torn_tail);
	T_CHECK(ts, same_but(v, fr, 0));
	fs_close(fs);
	free(scribbled);
	unlink(j2);
}

/*
 * The writes of a run: each touches blocks no earlier one did (sector 1:
 * the superblock's block, not the superblock itself).
 */
#define NWRITES 9
static const uint64_t at[NWRITES][2] = {
	{ 512, 512 }, { 3 * BS, 3 * BS }, { 120 * BS, 1 },
	{ 33 * BS - 5, 10 }, { 500 * BS, 300 * BS },
	{ IMGSIZE - TAIL, TAIL }, { 70 * BS, BS }, { 71 * BS, BS },
	{ 900 * BS + 4000, 200 },
};

static void run_writes(struct fs *fs, struct undo *u, struct err *e)
{
	int i;

	undo_mark_free(u, 70, 1, e);
	if (mark_sb(fs, u))	/* the first write */
		_exit(3);
	for (i = 0; i < NWRITES; i++) {
		if (i == 6) {	/* a prepared batch, then its writes */
			undo_prepare(u, at[7][0], at[7][1], e);
			undo_prepare(u, at[8][0], at[8][1], e);
			undo_sync(u, e);
		}
		if (wr(fs, at[i][0], at[i][1]))
			_exit(3);
	}
}

/* A crash before every write: what reached the image is restored. */
static void test_fault(struct env *v, char *journal, size_t jlen)
{
	struct t_state *ts = v->ts;
	const uint64_t fr[] = { 70 };
	struct undo_info info = { 0 };
	struct err e = { 0 };
	int n, status, exact = 0, crashed = 0, before_ok = 0;

	/* n: image writes let through (the mark, then at[]) */
	for (n = 0; n <= NWRITES + 2; n++) {
		pid_t pid;
		struct fs *fs;

		reset(v);
		jpath(v, journal, jlen);
		pid = fork();
		if (pid == 0) {
			struct undo *u = NULL;

			fs = open_fs(v, v->img);
			if (!fs || img_push_fault(&fs->img, n, 0, false) ||
			    undo_begin(fs, journal, &u, &e))
				_exit(2);
			run_writes(fs, u, &e);
			_exit(undo_finish(u, &e) ? 4 : 0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			continue;
		crashed += WEXITSTATUS(status) == 75 && n <= NWRITES;
		if (WEXITSTATUS(status) != (n <= NWRITES ? 75 : 0))
			fprintf(stderr, "fault %d: exit %d\n", n,
				WEXITSTATUS(status));
		/* the crash came before the mark, or write n of at[] */
		if (n == 0 ? memcmp(v->img, v->orig, 512) != 0 :
		    n <= NWRITES && memcmp(v->img + at[n - 1][0],
					   v->orig + at[n - 1][0],
					   at[n - 1][1]) != 0)
			fprintf(stderr, "fault %d: write %d happened\n", n,
				n + 1);
		else
			before_ok++;
		fs = open_fs(v, v->img);
		memset(&info, 0, sizeof(info));
		err_clear(&e);
		if (undo_apply(journal, fs, &info, &e) == 0 &&
		    same_but(v, fr, 1) && info.complete == (n > NWRITES))
			exact++;
		else
			fprintf(stderr, "fault %d: %s\n", n, e.msg);
		fs_close(fs);
	}
	T_CHECK(ts, crashed == NWRITES + 1);
	T_CHECK(ts, before_ok == NWRITES + 3);
	T_CHECK(ts, exact == NWRITES + 3);
}

/* A journal that cannot grow fails the image write, and every later one. */
static void test_journal_full(struct env *v, char *journal, size_t jlen)
{
	struct t_state *ts = v->ts;
	int status = -1;
	pid_t pid;

	reset(v);
	jpath(v, journal, jlen);
	pid = fork();
	if (pid == 0) {
		/* room for the header and record 0, no more */
		struct rlimit rl = { OD_UNDO_HDR_LEN + 2 * OD_UNDO_REC_LEN + BS,
				     OD_UNDO_HDR_LEN + 2 * OD_UNDO_REC_LEN + BS };
		struct err e = { 0 };
		struct undo *u = NULL;
		struct fs *fs = open_fs(v, v->img);
		int bad = 0;

		signal(SIGXFSZ, SIG_IGN);
		if (!fs || setrlimit(RLIMIT_FSIZE, &rl) ||
		    undo_begin(fs, journal, &u, &e))
			_exit(2);
		undo_mark_free(u, 9, 1, &e);
		bad += wr(fs, 5 * BS, BS) != -EFBIG;
		bad += memcmp(v->img + 5 * BS, v->orig + 5 * BS, BS) != 0;
		bad += wr(fs, 9 * BS, BS) == 0;	/* even free blocks */
		bad += undo_error(u, &e) != -EFBIG;
		bad += strstr(e.msg, "nothing more is written") == NULL;
		bad += undo_finish(u, &e) == 0;
		undo_end(fs, u);
		fs_close(fs);
		_exit(bad ? 1 : 0);
	}
	T_CHECK(ts, waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0);
	T_CHECK(ts, memcmp(v->img, v->orig, IMGSIZE) == 0);
}

/* The header of journal j (zeroed if it does not decode). */
/* Byte offset of the first record with magic m in journal j, or 0. */
static uint64_t find_magic(const char *j, const char *m)
{
	uint64_t size = file_size(j), pos, found = 0;
	uint8_t *buf = malloc(size ? size : 1);
	int fd = open(j, O_RDONLY);

	if (buf && fd >= 0 && pread(fd, buf, size, 0) == (ssize_t)size)
		for (pos = OD_UNDO_HDR_LEN; !found && pos + 4 <= size; pos++)
			if (memcmp(buf + pos, m, 4) == 0)
				found = pos;
	if (fd >= 0)
		close(fd);
	free(buf);
	return found;
}

/* The run's copy of blocks [src, src+n) to dst, through the layer. */
static int copy_blocks(struct fs *fs, struct undo *u, uint64_t src,
		       uint64_t dst, uint64_t n, struct err *e)
{
	uint8_t *p = malloc(n * BS);
	int ret = img_pread(fs->img, p, n * BS, src * BS);

	if (ret == 0)
		ret = img_pwrite(fs->img, p, n * BS, dst * BS);
	if (ret == 0)
		ret = undo_note_move(u, src, dst, n, false, e);
	free(p);
	return ret;
}

/*
 * References: blocks overwritten after the run copied them are named at
 * their copies, read back through them, and copied back by undo; a copy
 * written again gives way to a data record first (superseded), and so
 * does one free at the end (at the seal).  Undo restores every block.
 * A flipped byte in a reference record is damage, a copy changed after
 * the run a changed filesystem: both refused with nothing written.
 */
static void test_refs(struct env *v, char *journal, size_t jlen)
{
	struct t_state *ts = v->ts;
	struct undo_info info = { 0 };
	struct err e = { 0 };
	struct undo *u = NULL;
	uint8_t *before = malloc(IMGSIZE), buf[4 * BS];
	uint64_t pos, bytes0;
	struct fs *fs;

	reset(v);
	fs = open_fs(v, v->img);
	jpath(v, journal, jlen);
	T_CHECK(ts, undo_begin(fs, journal, &u, &e) == 0);
	T_CHECK(ts, mark_sb(fs, u) == 0);
	/* 20..23 -> 40..43 (live: journaled when copied to), then 20..23
	 * overwritten: one reference */
	T_CHECK(ts, copy_blocks(fs, u, 20, 40, 4, &e) == 0);
	bytes0 = undo_bytes(u);
	T_CHECK(ts, undo_prepare(u, 20 * BS, 4 * BS, &e) == 0 &&
		    undo_sync(u, &e) == 0);
	T_CHECK(ts, undo_bytes(u) == bytes0 + OD_UNDO_REF_ENT);
	T_CHECK(ts, wr(fs, 20 * BS, 4 * BS) == 0);
	T_CHECK(ts, undo_read_original(u, 21 * BS + 7, buf, 2 * BS, &e) == 0 &&
		    memcmp(buf, v->orig + 21 * BS + 7, 2 * BS) == 0);
	/* 30 -> 50, 30 overwritten (a reference), then 50 written again:
	 * the reference gives way to a record of 30's bytes read at 50 */
	T_CHECK(ts, copy_blocks(fs, u, 30, 50, 1, &e) == 0);
	T_CHECK(ts, wr(fs, 30 * BS, BS) == 0);
	bytes0 = undo_bytes(u);
	T_CHECK(ts, wr(fs, 50 * BS, 100) == 0);
	T_CHECK(ts, undo_bytes(u) == bytes0 + BS);
	T_CHECK(ts, undo_read_original(u, 30 * BS, buf, BS, &e) == 0 &&
		    memcmp(buf, v->orig + 30 * BS, BS) == 0);
	/* 60 -> 70, 60 overwritten, 70 free at the end: a record at the
	 * seal; 80 -> 81 and 82 -> 80 (a reference whose copy is another
	 * reference's block: 80 restored after 82) */
	T_CHECK(ts, copy_blocks(fs, u, 60, 70, 1, &e) == 0);
	T_CHECK(ts, wr(fs, 60 * BS, BS) == 0);
	T_CHECK(ts, copy_blocks(fs, u, 80, 81, 1, &e) == 0);
	T_CHECK(ts, copy_blocks(fs, u, 82, 80, 1, &e) == 0);
	T_CHECK(ts, wr(fs, 82 * BS, BS) == 0);
	T_CHECK(ts, undo_mark_free_end(u, 70, 1, &e) == 0);
	T_CHECK(ts, undo_finish(u, &e) == 0);
	undo_end(fs, u);
	T_CHECK(ts, undo_check(journal, fs, &info, &e) == 0 &&
		    info.complete && info.ref_blocks == 4 + 1 + 1 &&
		    info.version == OD_UNDO_VERSION);
	memcpy(before, v->img, IMGSIZE);

	/* damage: a flipped byte of a reference entry, or of its header */
	pos = find_magic(journal, "UREF");
	T_CHECK(ts, pos > 0);
	flip(journal, pos + OD_UNDO_REC_LEN + 5);
	err_clear(&e);
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == -EFSCORRUPTED);
	flip(journal, pos + OD_UNDO_REC_LEN + 5);
	flip(journal, pos + 2);
	err_clear(&e);
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == -EFSCORRUPTED);
	flip(journal, pos + 2);
	T_CHECK(ts, memcmp(before, v->img, IMGSIZE) == 0);
	/* a copy changed since the run */
	v->img[41 * BS + 9] ^= 1;
	err_clear(&e);
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == -ESTALE &&
		    strstr(e.msg, "ag 0 block 41"));
	v->img[41 * BS + 9] ^= 1;
	T_CHECK(ts, memcmp(before, v->img, IMGSIZE) == 0);

	/* undo: every block as before (all were live) */
	err_clear(&e);
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == 0);
	if (e.code)
		fprintf(stderr, "undo: %s\n", e.msg);
	T_CHECK(ts, same_but(v, NULL, 0));
	/* again: nothing to do */
	T_CHECK(ts, undo_apply(journal, fs, &info, &e) == 0 &&
		    same_but(v, NULL, 0));
	fs_close(fs);
	free(before);
}

static struct od_undo_hdr header_of(const char *j)
{
	struct od_undo_hdr h = { 0 };
	uint8_t hb[OD_UNDO_HDR_LEN];
	const char *field;
	int fd = open(j, O_RDONLY);

	if (fd < 0 || pread(fd, hb, sizeof(hb), 0) != (ssize_t)sizeof(hb) ||
	    od_undo_hdr_decode(hb, sizeof(hb), &h, &field) != OD_OK)
		memset(&h, 0, sizeof(h));
	if (fd >= 0)
		close(fd);
	return h;
}

/* The link record at the end of j: the next file's nonce, or 0. */
static uint64_t link_of(const char *j, uint64_t nonce)
{
	uint8_t b[OD_UNDO_REC_LEN + OD_UNDO_NEXT_LEN];
	struct od_undo_next nx;
	struct od_undo_rec r;
	const char *field;
	uint64_t size = file_size(j);
	int fd = open(j, O_RDONLY);
	uint64_t ret = 0;

	if (fd >= 0 && size > sizeof(b) &&
	    pread(fd, b, sizeof(b), (off_t)(size - sizeof(b))) ==
	    (ssize_t)sizeof(b) &&
	    od_undo_rec_decode(b, OD_UNDO_REC_LEN, nonce, &r, &field) ==
	    OD_OK && r.kind == OD_UNDO_NEXT &&
	    od_undo_next_decode(b + OD_UNDO_REC_LEN, OD_UNDO_NEXT_LEN, &nx) ==
	    OD_OK)
		ret = nx.nonce;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* A pass: its file (linked to prev when pass > 1), the mark, a write. */
static int one_pass(struct fs *fs, const char *j, unsigned pass,
		    const char *prev, uint64_t block)
{
	struct undo_link l = { pass, prev };
	struct err e = { 0 };
	struct undo *u = NULL;
	int ret = undo_begin_pass(fs, j, &l, &u, &e);

	if (ret == 0)
		ret = mark_sb(fs, u);
	if (ret == 0)
		ret = wr(fs, block * BS, BS);
	if (ret == 0)
		ret = undo_finish(u, &e);
	undo_end(fs, u);
	if (ret && ret != -ESTALE)
		fprintf(stderr, "pass %u: %s\n", pass, e.msg);
	return ret;
}

static void test_chain(struct env *v)
{
	struct t_state *ts = v->ts;
	struct undo_chain_opts o = { 0 };
	struct undo_chain_result r;
	struct od_undo_hdr h1, h2;
	struct err e = { 0 };
	char j1[96], j2[96], j3[96];
	uint8_t *after2 = malloc(IMGSIZE);
	struct fs *fs;
	uint8_t keep;

	reset(v);
	snprintf(j1, sizeof(j1), "%s/chain", v->dir);
	snprintf(j2, sizeof(j2), "%s/chain.2", v->dir);
	snprintf(j3, sizeof(j3), "%s/chain.3", v->dir);
	fs = open_fs(v, v->img);
	if (!fs || !after2) {
		free(after2);
		return;
	}
	T_CHECK(ts, one_pass(fs, j1, 1, NULL, 3) == 0);
	T_CHECK(ts, one_pass(fs, j2, 2, j1, 5) == 0);
	h1 = header_of(j1);
	h2 = header_of(j2);
	T_CHECK(ts, h1.pass == 1 && h1.chain == h1.nonce && !h1.prev_nonce);
	T_CHECK(ts, h2.pass == 2 && h2.chain == h1.nonce &&
		    h2.prev_nonce == h1.nonce && h2.prev_seal != 0);
	T_CHECK(ts, link_of(j1, h1.nonce) == h2.nonce && !link_of(j2, h2.nonce));

	/* pass 3 on a filesystem pass 2 did not leave: refused, no file */
	keep = v->img[300];
	v->img[300] ^= 0x40;	/* in the superblock sector */
	T_CHECK(ts, one_pass(fs, j3, 3, j2, 7) == -ESTALE);
	T_CHECK(ts, access(j3, F_OK) != 0 && !link_of(j2, h2.nonce));
	v->img[300] = keep;

	/* a pass begun, then taken back: its file and the link go */
	memcpy(after2, v->img, IMGSIZE);
	T_CHECK(ts, one_pass(fs, j3, 3, j2, 7) == 0);
	T_CHECK(ts, link_of(j2, h2.nonce) == header_of(j3).nonce);
	T_CHECK(ts, undo_discard(j3, &e) == 0);
	T_CHECK(ts, access(j3, F_OK) != 0 && !link_of(j2, h2.nonce));
	/* (as a run rolls a pass back before it takes its file away) */
	memcpy(v->img, after2, IMGSIZE);

	/* the chain, undone whole; then nothing left to undo */
	o.alone = false;
	T_CHECK(ts, undo_chain_undo(j1, fs, &o, &r, &e) == 0 &&
		    r.outcome == UNDO_RESTORED && r.npass == 2);
	undo_chain_result_free(&r);
	if (e.code)
		fprintf(stderr, "chain: %s\n", e.msg);
	T_CHECK(ts, same_but(v, NULL, 0));
	T_CHECK(ts, undo_chain_undo(j1, fs, &o, &r, &e) == 0 &&
		    r.outcome == UNDO_NOTHING);
	undo_chain_result_free(&r);
	fs_close(fs);
	free(after2);
	unlink(j1);
	unlink(j2);
}

static void cleanup(struct env *v)
{
	char p[96];
	int i;

	for (i = 0; i < v->njournal; i++) {
		snprintf(p, sizeof(p), "%s/j%d", v->dir, i);
		unlink(p);
	}
	rmdir(v->dir);
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	struct env v = { .ts = &ts };
	char journal[96];
	const char *tmp = getenv("TMPDIR");

	snprintf(v.dir, sizeof(v.dir), "%s/undo-unit.XXXXXX",
		 tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	v.img = mmap(NULL, IMGSIZE, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	v.orig = malloc(IMGSIZE);
	if (v.img == MAP_FAILED || !v.orig || !mkdtemp(v.dir)) {
		perror("test_undo setup");
		return 1;
	}
	fill_rnd(v.orig, IMGSIZE);
	make_sb(v.orig, 0x11, DBLOCKS);
	test_format(&v);
	test_layer(&v, journal, sizeof(journal));
	test_identity(&v, journal);
	test_damage(&v, journal, sizeof(journal));
	test_refs(&v, journal, sizeof(journal));
	test_torn_batch(&v, journal, sizeof(journal));
	test_fault(&v, journal, sizeof(journal));
	test_journal_full(&v, journal, sizeof(journal));
	test_chain(&v);
	cleanup(&v);
	munmap(v.img, IMGSIZE);
	free(v.orig);
	return t_done(&ts, "test_undo");
}
