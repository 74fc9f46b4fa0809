// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: open a damaged filesystem image in memory and read
 * everything the commands read.
 *
 * The smallest XFS mkfs.xfs makes is 32 MiB (two 16 MiB AGs), far too big
 * to be a fuzz input.  So the input is a short list of patches to one of a
 * few pristine base images (tests/fuzz/mkbase.sh: v5, v4, 1 KiB blocks
 * with rmapbt, 8 KiB directory blocks; every directory format, a remote
 * symlink, a 3-level bmbt, a reflinked file), loaded once at start from
 * $XFSDEFRAG_FUZZ_BASE (default build/fuzz/base).  Patches address only
 * the blocks that hold something in the base image (its metadata: file
 * data is zeros), and after patching, the CRC of every v5 structure in a
 * patched block is recomputed unless the input asks not to, so mutations
 * get past the checksums and reach the decoders and walkers.
 *
 *   input  := base:u8 flags:u8 patch{0..256}
 *   patch  := blk:le16 where:le16 val:le32     (8 bytes)
 *             blk   index into the base's non-zero blocks (mod their count)
 *             where offset in the block (mod block size) | op << 12
 *   flags  := bit 0: leave CRCs as patched
 *
 * Checked besides memory safety (ASan/UBSan) and hangs (-timeout): every
 * failing call leaves one printable line in its struct err.  The target
 * prints nothing unless $XFSDEFRAG_FUZZ_DEBUG is set: then each message.
 */
#include "core/fs/dir.h"
#include "core/fs/fs.h"
#include "core/fs/getbmap.h"
#include "core/fs/btwalk.h"
#include "core/fs/inode.h"
#include "core/fs/path.h"
#include "core/model/scan.h"
#include "core/fs/symlink.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BASES	8
#define MAX_PATCHES	256
#define MAX_VISITS	256	/* inodes visited per input */
#define MAX_DEPTH	4
#define MAX_CHILDREN	24	/* entries of one directory followed */

struct base {
	uint8_t *img;
	size_t size;
	uint32_t bs, sectsize, inodesize, dirblksize, agblocks, agblklog;
	uint32_t *blk;		/* non-zero blocks */
	uint32_t nblk;
};

static struct base bases[MAX_BASES];
static unsigned nbases;
static uint8_t *undo_buf;	/* original contents of patched blocks */
static uint32_t undo_blk[MAX_PATCHES];
static unsigned nundo;
static bool debug;	/* $XFSDEFRAG_FUZZ_DEBUG: print each message */

/* ---- base images --------------------------------------------------- */

static int load_base(const char *path)
{
	struct base *b = &bases[nbases];
	struct stat st;
	uint64_t i, n;
	uint8_t *zero;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 4096)
		goto fail;
	b->size = (size_t)st.st_size;
	b->img = malloc(b->size);
	if (!b->img || pread(fd, b->img, b->size, 0) != (ssize_t)b->size)
		goto fail;
	close(fd);
	if (od_get_be32(b->img) != OD_SB_MAGIC)
		return -1;
	b->bs = od_get_be32(b->img + 4);
	b->agblocks = od_get_be32(b->img + 84);
	b->sectsize = od_get_be16(b->img + 102);
	b->inodesize = od_get_be16(b->img + 104);
	b->agblklog = b->img[124];
	b->dirblksize = b->bs << b->img[192];
	if (b->bs < 512 || b->bs > 65536 || (b->bs & (b->bs - 1)))
		return -1;
	n = b->size / b->bs;
	b->blk = malloc(n * sizeof(*b->blk));
	if (!b->blk)
		return -1;
	zero = calloc(1, b->bs);
	if (!zero)
		return -1;
	for (i = 0; i < n; i++)
		if (memcmp(b->img + i * b->bs, zero, b->bs) != 0)
			b->blk[b->nblk++] = (uint32_t)i;
	free(zero);
	nbases++;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(b->img);
	b->img = NULL;
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("XFSDEFRAG_FUZZ_BASE");
	char *names[MAX_BASES], path[4096];
	unsigned n = 0, i;
	struct dirent *de;
	size_t maxbs = 0;
	DIR *d;

	(void)argc;
	(void)argv;
	debug = getenv("XFSDEFRAG_FUZZ_DEBUG") != NULL;
	if (!dir)
		dir = "build/fuzz/base";
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "fuzz_open: no base images in %s "
			"(tests/fuzz/mkbase.sh makes them)\n", dir);
		exit(1);
	}
	while ((de = readdir(d)) != NULL && n < MAX_BASES) {
		size_t l = strlen(de->d_name);

		if (l > 4 && strcmp(de->d_name + l - 4, ".img") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	/* a stable order, so an input means the same thing every run */
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (load_base(path) < 0)
			fprintf(stderr, "fuzz_open: %s: not usable\n", path);
		free(names[i]);
	}
	if (!nbases) {
		fprintf(stderr, "fuzz_open: no usable base image in %s\n", dir);
		exit(1);
	}
	for (i = 0; i < nbases; i++)
		if (bases[i].bs > maxbs)
			maxbs = bases[i].bs;
	undo_buf = malloc(maxbs * MAX_PATCHES);
	if (!undo_buf)
		exit(1);
	return 0;
}

/* ---- patching ------------------------------------------------------ */

static uint8_t *touch(struct base *b, uint32_t blk)
{
	unsigned i;

	for (i = 0; i < nundo; i++)
		if (undo_blk[i] == blk)
			return b->img + (size_t)blk * b->bs;
	undo_blk[nundo] = blk;
	memcpy(undo_buf + (size_t)nundo * b->bs, b->img + (size_t)blk * b->bs,
	       b->bs);
	nundo++;
	return b->img + (size_t)blk * b->bs;
}

static void undo(struct base *b)
{
	while (nundo) {
		nundo--;
		memcpy(b->img + (size_t)undo_blk[nundo] * b->bs,
		       undo_buf + (size_t)nundo * b->bs, b->bs);
	}
}

/* Values worth writing into a field: boundaries of the geometry. */
static uint32_t special(const struct base *b, uint32_t v)
{
	const uint32_t t[] = {
		0, 1, 2, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0xffffu,
		b->agblocks, b->agblocks - 1, b->agblocks + 1, b->bs, b->bs - 1,
		b->sectsize, b->inodesize, 1u << b->agblklog,
		(uint32_t)(b->size / b->bs), 255, 256,
	};
	return t[v % (sizeof(t) / sizeof(t[0]))];
}

static void apply(struct base *b, const uint8_t *p)
{
	uint32_t bi = od_get_le32(p) & 0xffff, where = od_get_le32(p) >> 16;
	uint32_t val = od_get_le32(p + 4), blk, off, op;
	uint32_t other = b->blk[val % b->nblk];
	uint8_t *q;

	blk = b->blk[bi % b->nblk];
	off = where & (b->bs - 1);
	op = where >> 12;
	q = touch(b, blk);
	switch (op) {
	case 0: case 13:
		q[off] = (uint8_t)val;
		break;
	case 1: case 14:
		if (off + 2 <= b->bs)
			od_put_be16(q + off, (uint16_t)val);
		break;
	case 2: case 15:
		if (off + 4 <= b->bs)
			od_put_be32(q + off, val);
		break;
	case 3:
		if (off + 8 <= b->bs)
			od_put_be64(q + off, (uint64_t)(int64_t)(int32_t)val);
		break;
	case 4:
		q[off] ^= (uint8_t)(val ? val : 1);
		break;
	case 5:
		if (off + 2 <= b->bs)
			od_put_be16(q + off, (uint16_t)(od_get_be16(q + off) +
							(int16_t)val));
		break;
	case 6:
		if (off + 4 <= b->bs)
			od_put_be32(q + off, od_get_be32(q + off) + val);
		break;
	case 7:
		if (off + 4 <= b->bs)
			od_put_be32(q + off, special(b, val));
		break;
	case 8:		/* a short (AG) pointer at another metadata block */
		if (off + 4 <= b->bs)
			od_put_be32(q + off, other % b->agblocks);
		break;
	case 9:		/* a long (packed fsbno) pointer at one */
		if (off + 8 <= b->bs)
			od_put_be64(q + off,
				    (uint64_t)(other / b->agblocks) <<
				    b->agblklog | other % b->agblocks);
		break;
	case 10:	/* the block becomes a copy of another: loops, dups */
		if (other != blk)
			memcpy(q, b->img + (size_t)other * b->bs, b->bs);
		break;
	case 11:	/* a run of zeros */
		memset(q + off, 0, b->bs - off < 16 ? b->bs - off : 16);
		break;
	case 12:	/* a run of 0xff */
		memset(q + off, 0xff, b->bs - off < 16 ? b->bs - off : 16);
		break;
	}
}

/* Recompute the CRC of every v5 structure that starts in the block. */
static void fix_crcs(struct base *b, uint32_t blk)
{
	uint8_t *q = b->img + (size_t)blk * b->bs;
	size_t room = b->size - (size_t)blk * b->bs;
	size_t agoff = (size_t)(blk % b->agblocks) * b->bs;
	uint32_t i;

	/* AG headers: sb, agf, agi, agfl in the first four sectors */
	for (i = 0; i + b->sectsize <= b->bs &&
		    agoff + i < 4 * (size_t)b->sectsize; i += b->sectsize) {
		uint8_t *s = q + i;

		switch (od_get_be32(s)) {
		case OD_SB_MAGIC: od_cksum_set(s, b->sectsize, 224); break;
		case OD_AGF_MAGIC: od_cksum_set(s, b->sectsize, 216); break;
		case OD_AGI_MAGIC: od_cksum_set(s, b->sectsize, 312); break;
		case OD_AGFL_MAGIC: od_cksum_set(s, b->sectsize, 32); break;
		}
	}
	if (agoff < 4 * (size_t)b->sectsize)
		return;
	switch (od_get_be32(q)) {
	case 0x41423342: case 0x41423343: case 0x49414233: case 0x46494233:
	case 0x524d4233: case 0x52334643:	/* short-form btrees */
		od_cksum_set(q, b->bs, 52);
		return;
	case 0x424d4133:			/* bmbt */
		od_cksum_set(q, b->bs, 64);
		return;
	case 0x58534c4d:			/* remote symlink */
		od_cksum_set(q, b->bs, 12);
		return;
	case 0x58444233: case 0x58444433: case 0x58444633:	/* dir3 */
		if (b->dirblksize <= room)
			od_cksum_set(q, b->dirblksize, 4);
		return;
	}
	switch (od_get_be16(q + 8)) {
	case 0x3ebe: case 0x3df1: case 0x3dff:	/* da3 node, leaf1, leafn */
		if (b->dirblksize <= room)
			od_cksum_set(q, b->dirblksize, 12);
		return;
	case 0x3bee:				/* attr3 leaf */
		od_cksum_set(q, b->bs, 12);
		return;
	}
	for (i = 0; i + b->inodesize <= b->bs; i += b->inodesize)
		if (od_get_be16(q + i) == 0x494e && q[i + 4] == 3)
			od_cksum_set(q + i, b->inodesize, 100);
}

/* ---- exercising ---------------------------------------------------- */

struct ctx {
	struct fs *fs;
	unsigned visits;
};

/* A failure must leave a message: one printable line. */
static void check_err(int ret, const struct err *e, bool enoent_silent)
{
	const char *s;

	if (ret >= 0 || (ret == -ENOENT && enoent_silent && !e->msg[0]))
		return;
	if (debug)
		fprintf(stderr, "fuzz_open: %d %s\n", ret, e->msg);
	if (!e->msg[0])
		abort();
	for (s = e->msg; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
}

static int count_rec(void *priv, const uint8_t *rec, struct err *e)
{
	(void)rec;
	(void)e;
	(*(uint64_t *)priv)++;
	return 0;
}

static void walk_ag(struct fs *fs, uint32_t agno)
{
	uint32_t *slots = malloc(od_agfl_size(&fs->geo) * sizeof(*slots)), n;
	struct od_agf agf;
	struct od_agi agi;
	struct err e = { 0 };
	uint64_t nrec = 0;
	int ret;

	if (!slots)
		return;
	ret = fs_read_agf(fs, agno, &agf, &e);
	check_err(ret, &e, false);
	if (!ret) {
		err_clear(&e);
		check_err(fs_read_agfl(fs, agno, &agf, slots, &n, &e), &e,
			  false);
		err_clear(&e);
		check_err(btwalk_ag(fs, agno, OD_BT_BNO, agf.roots[0],
				    agf.levels[0], count_rec, &nrec, &e), &e,
			  false);
		err_clear(&e);
		check_err(btwalk_ag(fs, agno, OD_BT_CNT, agf.roots[1],
				    agf.levels[1], count_rec, &nrec, &e), &e,
			  false);
		if (fs->geo.rmapbt) {
			err_clear(&e);
			check_err(btwalk_ag(fs, agno, OD_BT_RMAP, agf.roots[2],
					    agf.levels[2], count_rec, &nrec,
					    &e), &e, false);
		}
		if (fs->geo.reflink) {
			err_clear(&e);
			check_err(btwalk_ag(fs, agno, OD_BT_REFC,
					    agf.refcount_root,
					    agf.refcount_level, count_rec,
					    &nrec, &e), &e, false);
		}
	}
	err_clear(&e);
	ret = fs_read_agi(fs, agno, &agi, &e);
	check_err(ret, &e, false);
	if (!ret) {
		err_clear(&e);
		check_err(btwalk_ag(fs, agno, OD_BT_INO, agi.root, agi.level,
				    count_rec, &nrec, &e), &e, false);
		if (fs->geo.finobt) {
			err_clear(&e);
			check_err(btwalk_ag(fs, agno, OD_BT_FINO,
					    agi.free_root, agi.free_level,
					    count_rec, &nrec, &e), &e, false);
		}
	}
	free(slots);
}

static void visit(struct ctx *c, uint64_t ino, unsigned depth);

struct kids {
	uint64_t ino[MAX_CHILDREN];
	unsigned n;
	uint64_t entries;
};

static int collect(void *priv, const uint8_t *name, size_t namelen,
		   uint64_t ino, uint8_t ftype, struct err *e)
{
	struct kids *k = priv;

	(void)ftype;
	(void)e;
	if (namelen == 0 || !name)
		abort();	/* decoders never hand out empty names */
	k->entries++;
	if (k->n < MAX_CHILDREN &&
	    !(namelen == 1 && name[0] == '.') &&
	    !(namelen == 2 && name[0] == '.' && name[1] == '.'))
		k->ino[k->n++] = ino;
	return 0;
}

static void map_fork(struct ctx *c, const struct inode *ip, unsigned flags,
		     size_t max_rows)
{
	struct getbmap gb = { 0 };
	struct err e = { 0 };

	check_err(getbmap(c->fs, ip, flags, max_rows, &gb, &e), &e, false);
	getbmap_free(&gb);
}

static void visit_dir(struct ctx *c, const struct inode *ip, unsigned depth)
{
	static const char *const names[] = { "e1", "entry5", "n5", "n1199",
		"leaf-entry-with-a-longer-name-7", "small", "long", "..",
		"nope" };
	struct kids k = { { 0 }, 0, 0 };
	struct err e = { 0 };
	struct dir d;
	uint64_t ino;
	unsigned i;
	int ret;

	ret = dir_open_inode(c->fs, ip, &d, &e);
	check_err(ret, &e, false);
	if (ret) {
		dir_close(&d);
		return;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		err_clear(&e);
		check_err(dir_lookup(&d, (const uint8_t *)names[i],
				     strlen(names[i]), &ino, &e), &e, true);
	}
	err_clear(&e);
	check_err(dir_iterate(&d, collect, &k, &e), &e, false);
	dir_close(&d);
	for (i = 0; i < k.n; i++)
		visit(c, k.ino[i], depth + 1);
}

static void visit(struct ctx *c, uint64_t ino, unsigned depth)
{
	char target[OD_SYMLINK_MAXLEN + 1];
	struct err e = { 0 };
	struct inode ip;
	int ret;

	if (depth > MAX_DEPTH || c->visits >= MAX_VISITS)
		return;
	c->visits++;
	ret = inode_read(c->fs, ino, &ip, &e);
	check_err(ret, &e, false);
	if (ret)
		return;
	map_fork(c, &ip, 0, 0);
	map_fork(c, &ip, GETBMAP_PREALLOC, 3);
	map_fork(c, &ip, GETBMAP_ATTRFORK, 0);
	if (od_mode_isdir(ip.di.mode)) {
		visit_dir(c, &ip, depth);
	} else if (od_mode_islnk(ip.di.mode)) {
		ret = symlink_read(c->fs, &ip, target, &e);
		check_err(ret, &e, false);
		if (!ret && strlen(target) != ip.di.size)
			abort();
	}
}

static void exercise(struct fs *fs)
{
	/* (the recursive visit below looks names up in every directory) */
	static const char *const paths[] = {
		"links/long", "links/long", "node/../block/./entry59",
		"files/nope/", "leaf/leaf-entry-with-a-longer-name-399",
	};
	struct ctx c = { fs, 0 };
	struct path_stats st = { 0 };
	struct err e = { 0 };
	struct model *m = NULL;
	struct scan_opts so = { .threads = 1, .dirs = true };
	uint64_t ino;
	uint32_t agno;
	unsigned i;
	int ret;

	check_err(fs_check_ag_headers(fs, &e), &e, false);
	err_clear(&e);
	check_err(fs_unlinked_pending(fs, &e), &e, false);
	for (agno = 0; agno < fs->geo.agcount && agno < 8; agno++)
		walk_ag(fs, agno);
	visit(&c, fs->sb.rootino, 0);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		err_clear(&e);
		ret = path_resolve(fs, paths[i], i & 1, &ino, &st, &e);
		check_err(ret, &e, false);
		if (!ret) {
			c.visits = 0;
			visit(&c, ino, MAX_DEPTH);
		}
	}
	if (getenv("XFSDEFRAG_FUZZ_SCAN")) {
		err_clear(&e);
		check_err(scan_fs(fs, &so, &m, &e), &e, false);
		model_free(m);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct base *b;
	struct img *im;
	struct fs *fs;
	struct err e = { 0 };
	size_t i, n;
	int ret;

	if (size < 2)
		return 0;
	b = &bases[data[0] % nbases];
	n = (size - 2) / 8;
	if (n > MAX_PATCHES)
		n = MAX_PATCHES;
	for (i = 0; i < n; i++)
		apply(b, data + 2 + 8 * i);
	if (!(data[1] & 1))
		for (i = 0; i < nundo; i++)
			fix_crcs(b, undo_blk[i]);

	if (img_open_mem(b->img, b->size, 0, &im) == 0) {
		ret = fs_open_img(im, "fuzz.img", FS_NOPROBE, &fs, &e);
		check_err(ret, &e, false);
		if (ret == 0) {
			exercise(fs);
			fs_close(fs);	/* closes im */
		} else {
			img_close(im);
		}
	}
	undo(b);
	return 0;
}
