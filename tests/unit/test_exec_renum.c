/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The renumbering executor on a fixture in memory (no root): a plan
 * that renumbers every inode it may is carried out (our checker finds
 * the result consistent, every moved inode is at its new number with
 * its mode, size, link count and generation; its old number is free
 * unless another inode took it); plans the executor must not carry out
 * are refused before the first write, the image byte-identical and no
 * undo file made: two inodes onto one number, an inode the superblock
 * names moved, a free inode moved, a number moved from below 2^32 to
 * above, an inode moved into no chunk, a chunk dropped that still holds
 * inodes, a chunk added over one that stays.
 */
#include "t.h"
#include "core/base/img.h"
#include "core/check/check.h"
#include "core/fs/fs.h"
#include "core/fs/inode.h"
#include "core/model/scan.h"
#include "core/relocate/exec.h"
#include "core/relocate/plan.h"
#include "core/relocate/refuse.h"
#include "ondisk/renum.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint8_t *orig, *work;
static size_t len;
static char upath[256];

static int load(const char *name)
{
	static uint8_t chunk[65536];
	char cmd[512];
	struct od_sb sb;
	size_t n, off = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "zstd -dcq tests/fixtures/%s/image.zst",
		 name);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (!orig) {
			if (od_sb_decode(chunk, n, &sb) != OD_OK)
				break;
			len = (size_t)sb.dblocks * sb.blocksize;
			orig = mmap(NULL, len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			work = mmap(NULL, len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (orig == MAP_FAILED || work == MAP_FAILED)
				break;
		}
		if (off + n > len)
			break;
		memcpy(orig + off, chunk, n);
		off += n;
	}
	snprintf(upath, sizeof(upath), "%s/xfsdefrag-renum-%d.undo",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		 (int)getpid());
	return pclose(f) == 0 && orig && off == len ? 0 : -1;
}

static int open_scan(struct fs **fs, struct model **m)
{
	struct scan_opts so = { 0 };
	struct img *im = NULL;
	struct err e = { 0 };

	memcpy(work, orig, len);
	unlink(upath);
	so.dirs = true;
	so.threads = 1;
	if (img_open_mem(work, len, IMG_RDWR, &im) ||
	    fs_open_img(im, "aged", FS_NOPROBE | FS_RDWR, fs, &e) ||
	    scan_fs(*fs, &so, m, &e)) {
		fprintf(stderr, "open/scan: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int plan_all(struct model *m, struct plan *p)
{
	struct plan_opts po = { .order = WALK_READDIR, .renumber = PR_ALL };
	struct err e = { 0 };

	if (plan_build(m, &po, p, &e)) {
		fprintf(stderr, "plan: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int run(struct fs *fs, struct model *m, struct plan *p,
	       struct exec_stats *st, struct err *e)
{
	struct exec_opts xo = { 0 };

	xo.undo_path = upath;
	xo.fault_after = -1;
	return exec_run(fs, m, p, &xo, st, e);
}

static void print_problem(void *priv, const struct check_msg *msg)
{
	(void)priv;
	fprintf(stderr, "  check: %s [%s]\n", msg->text, msg->name);
}

/* Is ino some inode's new number in p? */
static bool xr_taken(const struct plan *p, uint64_t ino)
{
	size_t i;

	for (i = 0; i < p->nino; i++)
		if (p->ino[i].new == ino)
			return true;
	return false;
}

static void test_good(struct t_state *ts)
{
	struct model *m = NULL, *m2 = NULL;
	struct plan p = { 0 };
	struct exec_stats st;
	struct check_result cr = { 0 };
	struct scan_opts so = { 0 };
	struct fs *fs = NULL, *fs2 = NULL;
	struct err e = { 0 };
	size_t i, moved = 0, same = 0, gen_ok = 0;
	uint32_t gens[64];

	if (open_scan(&fs, &m) || plan_all(m, &p)) {
		T_CHECK(ts, !"fixture opens, scans and plans");
		return;
	}
	T_CHECK(ts, p.nino > 100);
	/* generations of the first moved inodes, before */
	for (i = 0, moved = 0; i < p.nino && moved < 64; i++) {
		struct inode ip;

		if (p.ino[i].old == p.ino[i].new)
			continue;
		gens[moved++] = inode_read(fs, p.ino[i].old, &ip, &e) ? ~0u :
				od_dinode_gen(ip.raw);
	}
	moved = 0;
	T_CHECK(ts, run(fs, m, &p, &st, &e) == 0);
	T_CHECK(ts, st.inodes_renumbered > 100 &&
		    st.w_inodes[1] >= st.w_inodes[0]);
	/* a fresh look, as run verifies: the superblock as written (the
	 * first fs stays open: the first model refers to it) */
	{
		struct img *im = NULL;

		T_CHECK(ts, img_open_mem(work, len, 0, &im) == 0 &&
			    fs_open_img(im, "aged", FS_NOPROBE, &fs2, &e) == 0);
	}
	if (!fs2)
		return;
	T_CHECK(ts, check_fs(fs2, 1, print_problem, NULL, &cr, &e) == 0 &&
		    cr.problems == 0);
	T_CHECK(ts, fs2->sb.icount > 0 && fs2->sb.icount % 64 == 0);
	so.dirs = true;
	so.threads = 1;
	T_CHECK(ts, scan_fs(fs2, &so, &m2, &e) == 0);
	for (i = 0; m2 && i < p.nino; i++) {
		const struct m_ino *a = model_find(m, p.ino[i].old, NULL);
		const struct m_ino *b = model_find(m2, p.ino[i].new, NULL);
		struct inode ib;

		if (p.ino[i].old == p.ino[i].new) {
			same++;
			continue;
		}
		if (!a || !b || a->mode != b->mode || a->nlink != b->nlink ||
		    (!od_mode_isdir(a->mode) && a->size != b->size)) {
			T_CHECK(ts, !"moved inode kept mode, size, links");
			break;
		}
		if (moved < 64 && !inode_read(fs2, p.ino[i].new, &ib, &e))
			gen_ok += od_dinode_gen(ib.raw) == gens[moved];
		/* the old number: free now, or another inode's */
		if (!xr_taken(&p, p.ino[i].old) &&
		    model_find(m2, p.ino[i].old, NULL)) {
			T_CHECK(ts, !"a vacated number is free");
			break;
		}
		moved++;
	}
	T_CHECK(ts, gen_ok == (moved < 64 ? moved : 64));
	T_CHECK(ts, moved == st.inodes_renumbered);
	printf("test_exec_renum: %zu inodes renumbered (%zu to themselves), "
	       "%llu writes\n", moved, same, (unsigned long long)st.writes);
	model_free(m2);
	fs_close(fs2);
	plan_free(&p);
	model_free(m);
	fs_close(fs);
	unlink(upath);
}

enum bad { B_DUP, B_ROOT, B_FREE, B_UP, B_NOCHUNK, B_DROPFULL, B_OVER, B_N };

static const char *const bad_name[B_N] = {
	"two inodes onto one number", "the root inode moved",
	"a free inode moved", "moved from below 2^32 to above",
	"moved into no chunk", "a chunk dropped that holds inodes",
	"a chunk added over one that stays",
};

/* A free inode number in the model (a free slot of an existing chunk). */
static uint64_t free_ino(const struct model *m)
{
	const struct od_geo *g = &m->fs->geo;
	uint32_t a;
	size_t i;
	unsigned k;

	for (a = 0; a < m->agcount; a++)
		for (i = 0; i < m->ag[a].nchunk; i++)
			for (k = 0; k < 64; k++) {
				const struct od_inobt_rec *r = &m->ag[a].chunk[i];

				if (od_inobt_present(r, k) && !od_inobt_inuse(r, k))
					return od_agino_ino(g, a, r->startino + k);
			}
	return 0;
}

/* Insert c into p's sorted ich (the plan owns the array: realloc). */
static void add_ich(struct plan *p, struct plan_ichunk c)
{
	size_t i = 0;

	p->ich = realloc(p->ich, (p->nich + 1) * sizeof(*p->ich));
	while (i < p->nich && p->ich[i].startino < c.startino)
		i++;
	memmove(p->ich + i + 1, p->ich + i, (p->nich - i) * sizeof(*p->ich));
	p->ich[i] = c;
	p->nich++;
}

static void test_bad(struct t_state *ts, enum bad b)
{
	struct model *m = NULL;
	struct plan p = { 0 };
	struct exec_stats st;
	struct fs *fs = NULL;
	struct err e = { 0 };
	uint64_t root, fi;
	size_t k;
	int ret;

	if (open_scan(&fs, &m) || plan_all(m, &p) || p.nino < 3) {
		T_CHECK(ts, !"fixture opens, scans and plans");
		return;
	}
	root = fs->sb.rootino;
	/* the first move that really moves, and is not the root */
	for (k = 0; k < p.nino && (p.ino[k].old == p.ino[k].new ||
				   p.ino[k].old == root); k++)
		;
	T_CHECK(ts, k + 1 < p.nino);
	switch (b) {
	case B_DUP:
		p.ino[k + 1].new = p.ino[k].new;
		break;
	case B_ROOT:
		/* the root sorts first: it is the smallest number */
		memmove(p.ino + 1, p.ino, (p.nino - 1) * sizeof(*p.ino));
		p.ino[0].old = root;
		p.ino[0].new = p.ino[1].new;
		memmove(p.ino + 1, p.ino + 2, (p.nino - 2) * sizeof(*p.ino));
		p.nino--;
		break;
	case B_FREE:
		fi = free_ino(m);
		T_CHECK(ts, fi != 0);
		p.nino = 1;
		p.ino[0].old = fi;
		p.ino[0].new = fi;
		break;
	case B_UP:
		p.ino[k].new = p.ino[k].new | (1ull << 33);
		break;
	case B_NOCHUNK:
		p.ino[k].new = od_agino_ino(&fs->geo, 0,
					    (fs->geo.agblocks - 1) <<
					    fs->geo.inopblog);
		break;
	case B_DROPFULL:
		add_ich(&p, (struct plan_ichunk){ root & ~63ull, 0, false });
		break;
	case B_OVER:
		add_ich(&p, (struct plan_ichunk){ root & ~63ull, 0, true });
		break;
	default:
		break;
	}
	ret = run(fs, m, &p, &st, &e);
	T_CHECK(ts, ret != 0);
	T_CHECK(ts, st.writes == 0 && !st.undo_created &&
		    access(upath, F_OK) != 0);
	T_CHECK(ts, memcmp(work, orig, len) == 0);
	printf("test_exec_renum: %s: %s\n", bad_name[b], e.msg);
	plan_free(&p);
	model_free(m);
	fs_close(fs);
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	int b;

	if (load("aged")) {
		fprintf(stderr, "test_exec_renum: cannot read fixture aged\n");
		return 1;
	}
	test_good(&ts);
	for (b = 0; b < B_N; b++)
		test_bad(&ts, (enum bad)b);
	return t_done(&ts, "test_exec_renum");
}
