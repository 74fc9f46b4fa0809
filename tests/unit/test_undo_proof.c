/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of what an undo file proves (undo_seal.c, undo_verify.c) on
 * a synthetic filesystem in memory, with a run in miniature that does
 * what the executor does: superblock marked first, data copied into free
 * space and over live blocks, metadata rewritten in whole and in part,
 * the free space at the end declared, seal, final superblock, end record.
 *
 *   - every free block after the run overwritten (a later writer reusing
 *     what the run vacated): undo still restores every original, the
 *     copied blocks from their copies, the others from the seal;
 *   - a block the run wrote changed since: refused, named, nothing
 *     written; a vacated block and its copy both changed: refused;
 *   - a crash before each of the run's writes (also between the seal and
 *     the last superblock write): undo restores;
 *   - a crash before each of undo's own writes: undo again restores;
 *   - another run begun over the result: its mark refuses this file's
 *     undo until that run is undone;
 *   - a version 1 file: refused.
 */
#include "t.h"
#include "core/undo/undo.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/sb.h"
#include "ondisk/undo.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BS		4096u
#define AGBLOCKS	256u
#define DBLOCKS		(AGBLOCKS * 4ull)
#define IMGSIZE		(DBLOCKS * BS)
#define NRUNWRITES	8	/* image writes of mini_run */

struct env {
	struct t_state *ts;
	char dir[64];
	uint8_t *img;		/* shared mapping: children write it too */
	uint8_t *orig;
	int nj;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void junk(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(rnd() >> 24);
}

static void make_sb(uint8_t *buf)
{
	struct od_sb sb = { 0 };

	memset(buf, 0, 512);
	sb.magicnum = OD_SB_MAGIC;
	sb.blocksize = BS;
	sb.dblocks = DBLOCKS;
	memset(sb.uuid, 0x42, 16);
	sb.agblocks = AGBLOCKS;
	sb.agcount = 4;
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

static struct fs *open_fs(uint8_t *buf)
{
	struct img *im;
	struct fs *fs = NULL;
	struct err e = { 0 };

	if (img_open_mem(buf, IMGSIZE, IMG_RDWR, &im))
		return NULL;
	if (fs_open_img(im, "mem", FS_RDWR | FS_NOPROBE, &fs, &e)) {
		fprintf(stderr, "fs_open_img: %s\n", e.msg);
		img_close(im);
		return NULL;
	}
	return fs;
}

static void jpath(struct env *v, char *out, size_t len)
{
	snprintf(out, len, "%s/j%d", v->dir, v->nj++);
	unlink(out);
}

/* Blocks free when the run began: a destination window. */
#define FREE0_B		600u
#define FREE0_N		100u

/* Equal to the original but in the blocks free at the start? */
static bool restored(const struct env *v)
{
	uint64_t b;

	for (b = 0; b < DBLOCKS; b++)
		if ((b < FREE0_B || b >= FREE0_B + FREE0_N) &&
		    memcmp(v->img + b * BS, v->orig + b * BS, BS) != 0) {
			fprintf(stderr, "block %llu differs\n",
				(unsigned long long)b);
			return false;
		}
	return true;
}

static int put(struct fs *fs, const uint8_t *p, size_t len, uint64_t off)
{
	return img_pwrite(fs->img, p, len, off);
}

static int copy(struct fs *fs, struct undo *u, uint64_t src, uint64_t dst,
		uint64_t n, struct err *e)
{
	uint8_t *buf = malloc(n * BS);
	int ret;

	ret = !buf ? -ENOMEM : img_pread(fs->img, buf, n * BS, src * BS);
	if (ret == 0)
		ret = put(fs, buf, n * BS, dst * BS);
	if (ret == 0)
		ret = undo_note_move(u, src, dst, n, false, e);
	free(buf);
	return ret;
}

/*
 * The miniature run: 8 image writes.  Blocks 100..109 copied into free
 * space (600..609), 200..203 over live blocks 110..113, metadata in
 * block 1 (a sector), block 5 (whole), block 300 (two sectors, apart);
 * free at the end: 100..109, 200..203, 400..401 (old metadata: vacated,
 * never written) and 610..699.
 */
static int mini_run(struct fs *fs, const char *journal, struct err *e)
{
	uint8_t sb[512], buf[BS];
	struct undo *u = NULL;
	int ret;

	ret = undo_begin(fs, journal, &u, e);
	if (ret)
		return ret;
	ret = undo_mark_free(u, FREE0_B, FREE0_N, e);
	if (!ret)
		ret = img_pread(fs->img, sb, 512, 0);
	if (!ret) {
		undo_sb_mark(u, sb, 512, true);
		ret = put(fs, sb, 512, 0);
	}
	if (!ret)
		ret = img_flush(fs->img);
	if (!ret)
		ret = copy(fs, u, 100, 600, 10, e);
	if (!ret)
		ret = undo_prepare(u, 110 * BS, 4 * BS, e) ||
		      undo_sync(u, e) || copy(fs, u, 200, 110, 4, e);
	junk(buf, BS);
	if (!ret)
		ret = put(fs, buf, 512, 512);
	if (!ret)
		ret = put(fs, buf, BS, 5 * BS);
	if (!ret)
		ret = put(fs, buf, 512, 300 * BS + 1024);
	if (!ret)
		ret = put(fs, buf + 512, 512, 300 * BS + 3072);
	if (!ret)
		ret = undo_mark_free_end(u, 100, 10, e) ||
		      undo_mark_free_end(u, 200, 4, e) ||
		      undo_mark_free_end(u, 400, 2, e) ||
		      undo_mark_free_end(u, 610, 90, e);
	if (!ret)
		ret = img_pread(fs->img, sb, 512, 0);
	if (!ret) {
		undo_sb_mark(u, sb, 512, false);
		ret = undo_seal(u, sb, e);
	}
	if (!ret)
		ret = put(fs, sb, 512, 0);
	if (!ret)
		ret = img_flush(fs->img);
	if (!ret)
		ret = undo_finish(u, e);
	undo_end(fs, u);
	return ret;
}

/* A fresh copy of the original, run to the end into journal j. */
static bool run_whole(struct env *v, const char *j)
{
	struct err e = { 0 };
	struct fs *fs;
	int ret;

	memcpy(v->img, v->orig, IMGSIZE);
	fs = open_fs(v->img);
	ret = fs ? mini_run(fs, j, &e) : -1;
	if (ret)
		fprintf(stderr, "mini_run: %s\n", e.msg);
	fs_close(fs);
	return ret == 0;
}

/* undo_apply of j on the shared image. */
static int apply(struct env *v, const char *j, struct undo_info *info,
		 struct err *e)
{
	struct fs *fs = open_fs(v->img);
	int ret = fs ? undo_apply(j, fs, info, e) : -1;

	fs_close(fs);
	return ret;
}

static int check(struct env *v, const char *j, struct undo_info *info,
		 struct err *e)
{
	struct fs *fs = open_fs(v->img);
	int ret = fs ? undo_check(j, fs, info, e) : -1;

	fs_close(fs);
	return ret;
}

/* What a later writer does to free space: all of it overwritten. */
static void test_reuse(struct env *v)
{
	struct t_state *ts = v->ts;
	struct undo_info info;
	struct err e = { 0 };
	char j[96];

	jpath(v, j, sizeof(j));
	T_CHECK(ts, run_whole(v, j));
	T_CHECK(ts, check(v, j, &info, &e) == 0);
	T_CHECK(ts, info.state == UNDO_COMPLETE);
	/* written and live at the end: 600..609, 110..113, 1 (block 0's
	 * other sectors), 5, 300 */
	T_CHECK(ts, info.proof_blocks == 10 + 4 + 1 + 1 + 1);
	T_CHECK(ts, info.move_blocks == 10 + 4);
	junk(v->img + 100 * BS, 10 * BS);
	junk(v->img + 200 * BS, 4 * BS);
	junk(v->img + 400 * BS, 2 * BS);
	junk(v->img + 610 * BS, 90 * BS);
	err_clear(&e);
	T_CHECK(ts, apply(v, j, &info, &e) == 0);
	if (e.code)
		fprintf(stderr, "%s\n", e.msg);
	T_CHECK(ts, info.copies == 14);
	T_CHECK(ts, restored(v));
	/* again: the same bytes */
	T_CHECK(ts, apply(v, j, &info, &e) == 0 && restored(v));
}

/* Writes after the run: refused, named, nothing written. */
static void test_changed(struct env *v)
{
	struct t_state *ts = v->ts;
	uint8_t *before = malloc(IMGSIZE), sb[512];
	struct undo_info info;
	struct err e = { 0 };
	char j[96];

	jpath(v, j, sizeof(j));
	T_CHECK(ts, run_whole(v, j));
	v->img[5 * BS + 77] ^= 1;
	memcpy(before, v->img, IMGSIZE);
	T_CHECK(ts, apply(v, j, &info, &e) == -ESTALE);
	T_CHECK(ts, strstr(e.msg, "1 block the run wrote holds other data "
			   "(first: ag 0 block 5)") != NULL);
	T_CHECK(ts, strstr(e.msg, "nothing was written") != NULL);
	T_CHECK(ts, memcmp(before, v->img, IMGSIZE) == 0);
	v->img[5 * BS + 77] ^= 1;

	/* a vacated block reused and its copy changed too */
	v->img[102 * BS] ^= 1;
	v->img[602 * BS] ^= 1;
	memcpy(before, v->img, IMGSIZE);
	err_clear(&e);
	T_CHECK(ts, apply(v, j, &info, &e) == -ESTALE);
	T_CHECK(ts, strstr(e.msg, "1 block the run vacated was reused and "
			   "its copy changed too") != NULL);
	T_CHECK(ts, memcmp(before, v->img, IMGSIZE) == 0);
	v->img[102 * BS] ^= 1;
	v->img[602 * BS] ^= 1;

	/* the superblock rewritten (a counter, as a mount would change) */
	memcpy(sb, v->img, 512);
	od_put_be64(v->img + 144, od_get_be64(v->img + 144) + 1);
	od_cksum_set(v->img, 512, OD_SB_CRC_OFF);
	memcpy(before, v->img, IMGSIZE);
	err_clear(&e);
	T_CHECK(ts, apply(v, j, &info, &e) == -ESTALE);
	T_CHECK(ts, strstr(e.msg, "superblock is not as the run left it"));
	T_CHECK(ts, memcmp(before, v->img, IMGSIZE) == 0);
	memcpy(v->img, sb, 512);
	err_clear(&e);
	T_CHECK(ts, apply(v, j, &info, &e) == 0 && restored(v));
	free(before);
}

/* A crash before each write of the run, in a child: undo restores. */
static void test_run_crash(struct env *v)
{
	struct t_state *ts = v->ts;
	struct undo_info info;
	struct err e = { 0 };
	int n, ok = 0, sealed = 0, status;
	char j[96];

	for (n = 0; n <= NRUNWRITES; n++) {
		pid_t pid;

		memcpy(v->img, v->orig, IMGSIZE);
		jpath(v, j, sizeof(j));
		pid = fork();
		if (pid == 0) {
			struct fs *fs = open_fs(v->img);

			if (!fs || img_push_fault(&fs->img, n, 0, false))
				_exit(2);
			_exit(mini_run(fs, j, &e) ? 3 : 0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != (n < NRUNWRITES ? 75 : 0)) {
			fprintf(stderr, "crash %d: status %d\n", n, status);
			continue;
		}
		err_clear(&e);
		if (apply(v, j, &info, &e) == 0 && restored(v))
			ok++;
		else
			fprintf(stderr, "crash %d: %s\n", n, e.msg);
		sealed += info.state == UNDO_SEALED;
	}
	T_CHECK(ts, ok == NRUNWRITES + 1);
	T_CHECK(ts, sealed == 1);	/* before the last superblock write */
}

/* A crash before each of undo's own writes: undo again restores. */
static void test_undo_crash(struct env *v)
{
	struct t_state *ts = v->ts;
	struct undo_info info;
	struct err e = { 0 };
	int k, ok = 0, crashes = 0, status = 0;
	char j[96];

	jpath(v, j, sizeof(j));
	for (k = 0; k < 64; k++) {
		pid_t pid;

		unlink(j);
		T_CHECK(ts, run_whole(v, j));
		junk(v->img + 100 * BS, 10 * BS);	/* copies to make */
		pid = fork();
		if (pid == 0) {
			struct fs *fs = open_fs(v->img);

			if (!fs || img_push_fault(&fs->img, k, 0, false))
				_exit(2);
			_exit(undo_apply(j, fs, &info, &e) ? 3 : 0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			break;
		if (WEXITSTATUS(status) == 0)
			break;		/* k writes were enough */
		crashes += WEXITSTATUS(status) == 75;
		err_clear(&e);
		if (apply(v, j, &info, &e) == 0 && restored(v))
			ok++;
		else
			fprintf(stderr, "undo crash %d: %s\n", k, e.msg);
	}
	T_CHECK(ts, WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_CHECK(ts, crashes == k && ok == k && k >= 4);
	unlink(j);
}

/* Another run begun over the result: its mark holds this undo off. */
static void test_foreign(struct env *v)
{
	struct t_state *ts = v->ts;
	struct undo_info info;
	struct err e = { 0 };
	char a[96], b[96];
	int status = 0;
	pid_t pid;

	jpath(v, a, sizeof(a));
	jpath(v, b, sizeof(b));
	T_CHECK(ts, run_whole(v, a));
	pid = fork();
	if (pid == 0) {		/* run B stops after its first write */
		struct fs *fs = open_fs(v->img);

		if (!fs || img_push_fault(&fs->img, 1, 0, false))
			_exit(2);
		_exit(mini_run(fs, b, &e) ? 3 : 0);
	}
	T_CHECK(ts, waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 75);
	T_CHECK(ts, apply(v, a, &info, &e) == -ESTALE);
	T_CHECK(ts, strstr(e.msg, "mark of another xfsdefrag run") != NULL);
	err_clear(&e);
	T_CHECK(ts, apply(v, b, &info, &e) == 0);
	T_CHECK(ts, info.state == UNDO_INTERRUPTED);
	T_CHECK(ts, apply(v, a, &info, &e) == 0 && restored(v));
	if (e.code)
		fprintf(stderr, "%s\n", e.msg);
}

/* A version 1 file (no proof): refused, nothing written. */
static void test_v1(struct env *v)
{
	struct t_state *ts = v->ts;
	struct od_undo_hdr h = { 0 };
	struct od_undo_rec r = { 0 };
	uint8_t hb[OD_UNDO_HDR_LEN], rb[OD_UNDO_REC_LEN + BS];
	struct undo_info info;
	struct err e = { 0 };
	char j[96];
	int fd;

	memcpy(v->img, v->orig, IMGSIZE);
	jpath(v, j, sizeof(j));
	h.version = 1;
	h.nonce = 5;
	memset(h.uuid, 0x42, 16);
	h.dblocks = DBLOCKS;
	h.blocksize = BS;
	h.sectsize = 512;
	h.agblocks = AGBLOCKS;
	h.agcount = 4;
	h.image_size = IMGSIZE;
	od_undo_hdr_encode(&h, hb);
	r.len = BS;
	r.off = 7 * BS;
	memset(rb + OD_UNDO_REC_LEN, 0x5a, BS);
	r.dcrc = od_undo_crc(rb + OD_UNDO_REC_LEN, BS);
	od_undo_rec_encode(&r, h.nonce, rb);
	fd = open(j, O_WRONLY | O_CREAT | O_EXCL, 0600);
	T_CHECK(ts, fd >= 0 && write(fd, hb, sizeof(hb)) == sizeof(hb) &&
		    write(fd, rb, sizeof(rb)) == sizeof(rb));
	if (fd >= 0)
		close(fd);
	T_CHECK(ts, check(v, j, &info, &e) == -EPROTO);
	T_CHECK(ts, strstr(e.msg, "version 1") != NULL && info.version == 1);
	err_clear(&e);
	T_CHECK(ts, apply(v, j, &info, &e) == -EPROTO);
	T_CHECK(ts, memcmp(v->img, v->orig, IMGSIZE) == 0);
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	struct env v = { .ts = &ts };
	const char *tmp = getenv("TMPDIR");
	char p[96];
	int i;

	snprintf(v.dir, sizeof(v.dir), "%s/undo-proof.XXXXXX",
		 tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	v.img = mmap(NULL, IMGSIZE, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	v.orig = malloc(IMGSIZE);
	if (v.img == MAP_FAILED || !v.orig || !mkdtemp(v.dir)) {
		perror("test_undo_proof setup");
		return 1;
	}
	junk(v.orig, IMGSIZE);
	make_sb(v.orig);
	test_reuse(&v);
	test_changed(&v);
	test_run_crash(&v);
	test_undo_crash(&v);
	test_foreign(&v);
	test_v1(&v);
	for (i = 0; i < v.nj; i++) {
		snprintf(p, sizeof(p), "%s/j%d", v.dir, i);
		unlink(p);
	}
	rmdir(v.dir);
	munmap(v.img, IMGSIZE);
	free(v.orig);
	return t_done(&ts, "test_undo_proof");
}
