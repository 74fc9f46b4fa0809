/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsdefrag-test debug-scribble: a test aid standing in for the
 * relocation executor (tests/aids/README.md).
 * It opens IMAGE read-write, begins an undo journal, marks every free
 * extent (bnobt) free-at-start, and overwrites live blocks through the
 * journaling layer: the superblock (NEEDSREPAIR set, as a writer does,
 * and the run's mark), an AGF, an AGI, the root inode's block, each
 * PATH's inode and data (journaled ahead with undo_prepare +
 * undo_sync), an unaligned write, a
 * write straddling live and free blocks, writes into free space (none
 * of these two with --free-writes 0), and at last junk over the primary
 * superblock (not with --keep-sb).  --fault N stacks the crash
 * layer below the journal: the process exits 75 before write N+1.
 *
 * --plan FILE lists, before anything is written:
 *   write K OFF LEN KIND    the K-th image write (1-based), bytes
 *   prepare OFF LEN         undo_prepare (not an image write)
 *   sync                    undo_sync
 *   free OFF LEN            bytes written into free-at-start blocks: undo
 *                           leaves them as the run wrote them
 *
 * debug-scribble --junk-free IMAGE: write random bytes over every free
 * extent (bnobt) of IMAGE, journaling nothing: what any later writer
 * may do to space it finds free.
 *
 * debug-scribble --compare A B [PLAN]: is B byte-identical to A (exit 0,
 * else 1 and the first differing byte)?  With PLAN, first copies A's bytes
 * into B where the plan wrote into free space.  Reads only where either
 * file has data (SEEK_DATA), so sparse images compare at once.
 */
#include "tests/aids/aids.h"
#include "core/fs/btwalk.h"
#include "core/fs/fork.h"
#include "core/fs/inode.h"
#include "core/fs/path.h"
#include "core/undo/undo.h"
#include "ondisk/crc32c.h"
#include "ondisk/inobt.h"

#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum step_kind { ST_WRITE, ST_PREPARE, ST_SYNC };

struct step {
	enum step_kind kind;
	uint64_t off, len;
	const char *what;	/* names the write in the plan */
	bool sb_flag;		/* sb with NEEDSREPAIR, not junk */
};

struct extent {
	uint64_t lin, len;	/* linear blocks */
};

struct scribble {
	struct fs *fs;
	struct step *st;
	size_t nst, capst;
	struct extent *fr;	/* free extents, in disk order */
	size_t nfr, capfr;
	uint32_t agno;		/* AG being walked */
	uint64_t rng;
};

static int add_step(struct scribble *s, enum step_kind k, uint64_t off,
		    uint64_t len, const char *what, struct err *e)
{
	if (s->nst == s->capst) {
		size_t cap = s->capst ? 2 * s->capst : 64;
		struct step *v = realloc(s->st, cap * sizeof(*v));

		if (!v)
			return err_set(e, -ENOMEM, "out of memory");
		s->st = v;
		s->capst = cap;
	}
	s->st[s->nst++] = (struct step){ k, off, len, what, false };
	return 0;
}

static int free_rec(void *priv, const uint8_t *rec, struct err *e)
{
	struct scribble *s = priv;
	struct od_alloc_rec r;

	od_alloc_rec_decode(rec, &r);
	if (s->nfr == s->capfr) {
		size_t cap = s->capfr ? 2 * s->capfr : 256;
		struct extent *v = realloc(s->fr, cap * sizeof(*v));

		if (!v)
			return err_set(e, -ENOMEM, "out of memory");
		s->fr = v;
		s->capfr = cap;
	}
	s->fr[s->nfr++] = (struct extent){
		od_agb_lin(&s->fs->geo, s->agno, r.startblock), r.blockcount };
	return 0;
}

static int collect_free(struct scribble *s, struct err *e)
{
	struct od_agf agf;
	int ret = 0;

	for (s->agno = 0; s->agno < s->fs->geo.agcount && !ret; s->agno++) {
		ret = fs_read_agf(s->fs, s->agno, &agf, e);
		if (ret == 0)
			ret = btwalk_ag(s->fs, s->agno, OD_BT_BNO,
					agf.roots[OD_BTNUM_BNO],
					agf.levels[OD_BTNUM_BNO], free_rec, s,
					e);
	}
	return ret;
}

static uint64_t byte_of_ino(const struct od_geo *g, uint64_t ino)
{
	uint32_t o;
	uint64_t daddr = inode_daddr(g, ino, &o);

	return (daddr << 9) + o;
}

/* An inode's bytes, then its first data extents: prepared, synced, written. */
static int plan_path(struct scribble *s, const char *path, struct err *e)
{
	const struct od_geo *g = &s->fs->geo;
	struct extmap m = { 0 };
	struct inode *ip = malloc(sizeof(*ip));
	uint64_t ino;
	size_t i, n;
	int ret;

	if (!ip)
		return err_set(e, -ENOMEM, "out of memory");
	ret = path_resolve(s->fs, path, true, &ino, NULL, e);
	if (ret == 0)
		ret = inode_read(s->fs, ino, ip, e);
	if (ret == 0)
		ret = fork_map(s->fs, ip, FORK_DATA, &m, NULL, NULL, e);
	if (ret == 0)
		ret = add_step(s, ST_WRITE, byte_of_ino(g, ino), g->inodesize,
			       "inode", e);
	n = m.n < 4 ? m.n : 4;
	for (i = 0; i < n && !ret; i++)
		ret = add_step(s, ST_PREPARE,
			       od_fsb_daddr(g, m.v[i].startblock) << 9,
			       (m.v[i].blockcount < 64 ? m.v[i].blockcount : 64)
			       << g->blocklog, NULL, e);
	if (ret == 0 && n)
		ret = add_step(s, ST_SYNC, 0, 0, NULL, e);
	for (i = 0; i < n && !ret; i++)
		ret = add_step(s, ST_WRITE,
			       od_fsb_daddr(g, m.v[i].startblock) << 9,
			       (m.v[i].blockcount < 64 ? m.v[i].blockcount : 64)
			       << g->blocklog, "data", e);
	/* inside a block journaled above: no new record */
	if (ret == 0 && n && g->blocksize > 1100)
		ret = add_step(s, ST_WRITE,
			       (od_fsb_daddr(g, m.v[0].startblock) << 9) + 1000,
			       100, "data-unaligned", e);
	extmap_free(&m);
	free(ip);
	return ret;
}

static int plan(struct scribble *s, char **paths, int npaths, long nfree,
		bool keep_sb, struct err *e)
{
	const struct od_geo *g = &s->fs->geo;
	uint64_t ag_last = od_agb_lin(g, g->agcount - 1, 0) << g->blocklog;
	size_t i;
	int k, ret;

	ret = add_step(s, ST_WRITE, 0, g->sectsize, "sb-needsrepair", e);
	if (ret == 0)
		s->st[s->nst - 1].sb_flag = true;
	for (i = 0; i < s->nfr && (long)i < nfree && !ret; i++)
		ret = add_step(s, ST_WRITE, s->fr[i].lin << g->blocklog,
			       (s->fr[i].len < 8 ? s->fr[i].len : 8)
			       << g->blocklog, "free", e);
	if (ret == 0)
		ret = add_step(s, ST_WRITE, ag_last + g->sectsize, g->sectsize,
			       "agf", e);
	if (ret == 0)
		ret = add_step(s, ST_WRITE, 2 * (uint64_t)g->sectsize,
			       g->sectsize, "agi", e);
	if (ret == 0)
		ret = add_step(s, ST_WRITE,
			       byte_of_ino(g, s->fs->sb.rootino) >> g->blocklog
			       << g->blocklog, g->blocksize, "root-inode-block",
			       e);
	for (k = 0; k < npaths && !ret; k++)
		ret = plan_path(s, paths[k], e);
	/* one live block and one free block in one write */
	for (i = 0; i < s->nfr && nfree > 0 && !ret; i++) {
		if (s->fr[i].lin % g->agblocks == 0)
			continue;
		ret = add_step(s, ST_WRITE, (s->fr[i].lin - 1) << g->blocklog,
			       2 * (uint64_t)g->blocksize, "live+free", e);
		break;
	}
	if (ret == 0 && !keep_sb)
		ret = add_step(s, ST_WRITE, 0, g->sectsize, "sb-junk", e);
	return ret;
}

static bool is_free(const struct scribble *s, uint64_t lin)
{
	size_t i;

	for (i = 0; i < s->nfr; i++)
		if (lin >= s->fr[i].lin && lin - s->fr[i].lin < s->fr[i].len)
			return true;
	return false;
}

static int write_plan(const struct scribble *s, const char *file,
		      struct err *e)
{
	const struct od_geo *g = &s->fs->geo;
	FILE *f = fopen(file, "w");
	size_t i;
	uint64_t b;
	int k = 0;

	if (!f)
		return err_set(e, -errno, "%s: %s", file, strerror(errno));
	for (i = 0; i < s->nst; i++) {
		const struct step *st = &s->st[i];

		if (st->kind == ST_PREPARE)
			fprintf(f, "prepare %" PRIu64 " %" PRIu64 "\n", st->off,
				st->len);
		if (st->kind == ST_SYNC)
			fprintf(f, "sync\n");
		if (st->kind != ST_WRITE)
			continue;
		fprintf(f, "write %d %" PRIu64 " %" PRIu64 " %s\n", ++k,
			st->off, st->len, st->what);
		for (b = st->off >> g->blocklog;
		     b <= (st->off + st->len - 1) >> g->blocklog; b++)
			if (is_free(s, b))
				fprintf(f, "free %" PRIu64 " %u\n",
					b << g->blocklog, g->blocksize);
	}
	if (fclose(f) != 0)
		return err_set(e, -errno, "%s: %s", file, strerror(errno));
	return 0;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The bytes of write st: junk, or the superblock as a writer marks it. */
static int fill(struct scribble *s, struct undo *u, const struct step *st,
		uint8_t *buf, struct err *e)
{
	uint32_t ss = s->fs->geo.sectsize;
	uint64_t i;
	int ret = 0;

	if (!st->sb_flag) {
		for (i = 0; i < st->len; i++)
			buf[i] = (uint8_t)(rnd(&s->rng) >> 32);
		return 0;
	}
	ret = img_pread(s->fs->img, buf, ss, 0);
	if (ret)
		return err_set(e, ret, "superblock: read failed: %s",
			       strerror(-ret));
	undo_sb_mark(u, buf, ss, true);
	if (!od_sb_is_v5(&s->fs->sb)) {
		struct od_sb sb;

		/* v4 has no NEEDSREPAIR to set: a new label changes it */
		if (od_sb_decode(buf, ss, &sb) == OD_OK) {
			memset(sb.fname, 0, sizeof(sb.fname));
			memcpy(sb.fname, "scribbled", 9);
			od_sb_encode(&sb, buf, ss);
		}
	}
	return 0;
}

static int run(struct scribble *s, struct undo *u, struct err *e)
{
	const struct od_geo *g = &s->fs->geo;
	uint8_t *buf = malloc((size_t)64 << g->blocklog);
	size_t i;
	int ret = 0;

	if (!buf)
		return err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < s->nfr && !ret; i++)
		ret = undo_mark_free(u, s->fr[i].lin, s->fr[i].len, e);
	for (i = 0; i < s->nst && !ret; i++) {
		const struct step *st = &s->st[i];

		if (st->kind == ST_PREPARE)
			ret = undo_prepare(u, st->off, st->len, e);
		else if (st->kind == ST_SYNC)
			ret = undo_sync(u, e);
		else if ((ret = fill(s, u, st, buf, e)) == 0 &&
			 (ret = img_pwrite(s->fs->img, buf, st->len,
					   st->off)) != 0)
			err_set(e, ret, "write of %" PRIu64 " bytes at %" PRIu64
				" (%s) failed: %s", st->len, st->off, st->what,
				strerror(-ret));
	}
	free(buf);
	return ret;
}

/* Copy a's bytes into b at every "free OFF LEN" of plan. */
static int unfree(int a, int b, const char *plan, uint8_t *buf, size_t len)
{
	FILE *f = fopen(plan, "r");
	char line[256];
	uint64_t off, n;
	int ret = 0;

	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f))
		if (sscanf(line, "free %" SCNu64 " %" SCNu64, &off, &n) == 2 &&
		    n <= len && (pread(a, buf, n, (off_t)off) != (ssize_t)n ||
				 pwrite(b, buf, n, (off_t)off) != (ssize_t)n))
			ret = -EIO;
	fclose(f);
	return ret;
}

/* The next data in fd at or after off, up to its hole: [*d, *h). */
static void data_at(int fd, uint64_t off, uint64_t size, uint64_t *d,
		    uint64_t *h)
{
	off_t x = lseek(fd, (off_t)off, SEEK_DATA);

	*d = x < 0 ? size : (uint64_t)x;
	x = *d < size ? lseek(fd, (off_t)*d, SEEK_HOLE) : -1;
	*h = x < 0 ? size : (uint64_t)x;
}

static int compare(const char *pa, const char *pb, const char *plan)
{
	const size_t chunk = 1 << 20;
	uint8_t *x = malloc(chunk), *y = malloc(chunk);
	int a = open(pa, O_RDONLY), b = open(pb, plan ? O_RDWR : O_RDONLY);
	uint64_t size, off = 0, da, ha, db, hb, end, i;
	struct stat sa, sb;
	int ret = EXIT_ERROR;

	if (!x || !y || a < 0 || b < 0 || fstat(a, &sa) || fstat(b, &sb) ||
	    (plan && unfree(a, b, plan, x, chunk))) {
		cmd_error("compare: %s", strerror(errno));
		goto out;
	}
	if (sa.st_size != sb.st_size) {
		printf("sizes differ\n");
		goto out;
	}
	size = (uint64_t)sa.st_size;
	while (off < size) {
		data_at(a, off, size, &da, &ha);
		data_at(b, off, size, &db, &hb);
		off = da < db ? da : db;	/* holes in both: equal */
		end = da < db ? ha : hb;
		if (off >= size)
			break;
		if (end - off > chunk)
			end = off + chunk;
		if (pread(a, x, end - off, (off_t)off) != (ssize_t)(end - off) ||
		    pread(b, y, end - off, (off_t)off) != (ssize_t)(end - off)) {
			cmd_error("compare: short read at %" PRIu64, off);
			goto out;
		}
		for (i = 0; i < end - off && x[i] == y[i]; i++)
			;
		if (i < end - off) {
			printf("byte %" PRIu64 " differs\n", off + i);
			goto out;
		}
		off = end;
	}
	ret = EXIT_OK;
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	free(x);
	free(y);
	return ret;
}

/* Random bytes over every free extent of the filesystem at path. */
static int junk_free(struct cmd_call *c, const char *path)
{
	struct scribble s = { 0 };
	struct err e = { 0 };
	uint8_t *buf = NULL;
	uint64_t i, k, total = 0;
	uint32_t bs;
	int ret;

	s.rng = 7;
	ret = fs_open(path, FS_RDWR, &s.fs, &e);
	if (ret == 0)
		ret = collect_free(&s, &e);
	bs = ret == 0 ? s.fs->geo.blocksize : 0;
	if (ret == 0 && !(buf = malloc(bs)))
		ret = err_set(&e, -ENOMEM, "out of memory");
	for (i = 0; ret == 0 && i < s.nfr; i++)
		for (k = 0; ret == 0 && k < s.fr[i].len; k++) {
			uint32_t j;

			for (j = 0; j < bs; j++)
				buf[j] = (uint8_t)(rnd(&s.rng) >> 32);
			ret = fs_pwrite(s.fs, (s.fr[i].lin + k) * bs, buf, bs,
					&e, "free block");
			total++;
		}
	if (ret == 0 && img_flush(s.fs->img))
		ret = err_set(&e, -EIO, "%s: fsync failed", path);
	if (ret == 0)
		printf("junked %" PRIu64 " free blocks\n", total);
	free(buf);
	free(s.fr);
	fs_close(s.fs);
	return ret ? cmd_fail(c, &e) : EXIT_OK;
}

int aid_scribble(struct cmd_call *c)
{
	int argc = c->argc;
	char **argv = c->argv;
	static const struct option longopts[] = {
		{ "fault", required_argument, NULL, 'f' },
		{ "seed", required_argument, NULL, 's' },
		{ "free-writes", required_argument, NULL, 'F' },
		{ "plan", required_argument, NULL, 'p' },
		{ "keep-sb", no_argument, NULL, 'k' },
		{ "no-finish", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct scribble s = { 0 };
	struct undo *u = NULL;
	struct err e = { 0 };
	const char *planfile = NULL;
	long fault = -1, nfree = 3;
	bool keep_sb = false, finish = true;
	int opt, ret, nw = 0;
	size_t i;
	char *end;

	if (argc == 3 && strcmp(argv[1], "--junk-free") == 0)
		return junk_free(c, argv[2]);
	if (argc >= 4 && argc <= 5 && strcmp(argv[1], "--compare") == 0)
		return compare(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	optind = 0;
	s.rng = 1;
	while ((opt = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f': fault = strtol(optarg, &end, 10); break;
		case 's': s.rng = strtoull(optarg, &end, 10) | 1; break;
		case 'F': nfree = strtol(optarg, &end, 10); break;
		case 'p': planfile = optarg; end = ""; break;
		case 'k': keep_sb = true; end = ""; break;
		case 'n': finish = false; end = ""; break;
		default: return aid_usage("debug-scribble");
		}
		if (*end)
			return aid_usage("debug-scribble");
	}
	if (argc - optind < 2)
		return aid_usage("debug-scribble");
	ret = fs_open(argv[optind + 1], FS_RDWR, &s.fs, &e);
	if (ret == 0 && s.fs->mounted)
		ret = err_set(&e, -EBUSY, "%s is mounted", argv[optind + 1]);
	if (ret == 0)
		ret = collect_free(&s, &e);
	if (ret == 0)
		ret = plan(&s, argv + optind + 2, argc - optind - 2, nfree,
			   keep_sb, &e);
	if (ret == 0 && planfile)
		ret = write_plan(&s, planfile, &e);
	if (ret == 0 && fault >= 0 && img_push_fault(&s.fs->img, fault, 0, false))
		ret = err_set(&e, -ENOMEM, "out of memory");
	if (ret == 0)
		ret = undo_begin(s.fs, argv[optind], &u, &e);
	if (ret == 0)
		ret = run(&s, u, &e);
	if (ret == 0 && finish)
		ret = undo_finish(u, &e);
	for (i = 0; i < s.nst; i++)
		nw += s.st[i].kind == ST_WRITE;
	if (ret == 0)
		printf("scribbled %d writes; journaled %" PRIu64 " bytes\n", nw,
		       undo_bytes(u));
	if (s.fs)
		undo_end(s.fs, u);
	fs_close(s.fs);
	free(s.st);
	free(s.fr);
	return ret ? cmd_fail(c, &e) : EXIT_OK;
}
