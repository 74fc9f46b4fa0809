/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer on an image in memory, no root, no mount: plan and execute
 * on committed fixtures (aged by the real kernel: rmapbt + nrext64 with
 * reflinks, 4 KiB sectors without reflink), whose file data is first
 * overwritten with a pattern that names each block's original place.
 * After the run: our checker finds it consistent, every file reads back
 * its own bytes through its new map, the fragmentation factor is what
 * the plan said.  Undo restores every block that was live before the run,
 * byte for byte.  Interrupted runs (a child process stopped dead before
 * write k, the image in shared memory) are undone to the same bytes.
 * The images are tests/fixtures/NAME/image.zst, read through zstd -dc
 * into sparse shared memory (only their non-zero blocks take memory).
 */
#include "t.h"
#include "core/base/img.h"
#include "core/check/check.h"
#include "core/fs/fs.h"
#include "core/model/report.h"
#include "core/model/scan.h"
#include "core/relocate/exec.h"
#include "core/relocate/plan.h"
#include "core/relocate/refuse.h"
#include "core/undo/undo.h"
#include "ondisk/inode.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct image {
	const char *name;
	uint8_t *orig;		/* patterned, before any run */
	uint8_t *work;		/* shared with forked children */
	size_t len;
	char undo[256];
};

/*
 * len bytes of zeros: private (reads of untouched pages cost nothing),
 * or shared with forked children (pages cost once touched).
 */
static uint8_t *zmap(size_t len, bool shared)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static bool all_zero(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* Decompress a fixture; the size comes from its superblock. */
static int load(struct image *im, const char *name)
{
	static uint8_t chunk[65536];
	char cmd[512];
	uint64_t off = 0;
	struct od_sb sb;
	size_t n;
	FILE *f;
	int ret = -1;

	snprintf(cmd, sizeof(cmd), "zstd -dcq tests/fixtures/%s/image.zst",
		 name);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	im->name = name;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (!im->orig) {
			if (n < 512 || od_sb_decode(chunk, n, &sb) != OD_OK)
				break;
			im->len = (size_t)sb.dblocks * sb.blocksize;
			im->orig = zmap(im->len, false);
			if (!im->orig)
				break;
		}
		if (off + n > im->len)
			break;
		if (!all_zero(chunk, n))
			memcpy(im->orig + off, chunk, n);
		off += n;
	}
	if (pclose(f) == 0 && im->orig && off == im->len)
		ret = 0;
	else
		fprintf(stderr, "test_relocate: cannot read fixture %s (%s)\n",
			name, cmd);
	/* the journal is synced often: memory-backed /dev/shm when there is one */
	snprintf(im->undo, sizeof(im->undo), "%s/xfsdefrag-unit-%d.undo",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ?
		 getenv("TMPDIR") : "/tmp", (int)getpid());
	return ret;
}

/* A fresh shared work image equal to the original (its data only). */
static int reset_work(struct image *im)
{
	size_t off;

	if (im->work)
		munmap(im->work, im->len);
	im->work = zmap(im->len, true);
	if (!im->work)
		return -1;
	for (off = 0; off < im->len; off += 4096)
		if (!all_zero(im->orig + off, 4096))
			memcpy(im->work + off, im->orig + off, 4096);
	return 0;
}

static int open_fs(struct image *im, bool rw, struct fs **fs)
{
	struct img *m = NULL;
	struct err e = { 0 };

	if (img_open_mem(im->work, im->len, rw ? IMG_RDWR : 0, &m))
		return -1;
	if (fs_open_img(m, im->name, FS_NOPROBE | (rw ? FS_RDWR : 0), fs,
			&e)) {
		fprintf(stderr, "%s: open: %s\n", im->name, e.msg);
		return -1;
	}
	return 0;
}

static int scan(struct fs *fs, struct model **m)
{
	struct scan_opts so = { 0 };
	struct err e = { 0 };

	so.dirs = true;
	so.threads = 2;
	if (scan_fs(fs, &so, m, &e)) {
		fprintf(stderr, "scan: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static void print_problem(void *priv, const struct check_msg *m)
{
	fprintf(stderr, "  %s: check: %s [%s]\n", (const char *)priv, m->text,
		m->name);
}

static uint64_t problems(struct fs *fs)
{
	struct check_result cr;
	struct err e = { 0 };

	if (check_fs(fs, 2, print_problem, (void *)fs->path, &cr, &e)) {
		fprintf(stderr, "check: %s\n", e.msg);
		return ~0ull;
	}
	return cr.problems;
}

/* What block lin of the patterned image holds: its own number, spread. */
static void pattern(uint8_t *b, uint32_t bs, uint64_t lin)
{
	uint32_t i;

	for (i = 0; i < bs; i += 8) {
		uint64_t v = lin * 0x9e3779b97f4a7c15ull + i;

		memcpy(b + i, &v, 8);
	}
}

/* Call fn on every written data block of every regular file. */
typedef int (*block_fn)(void *priv, const struct m_ino *mi, uint64_t fo,
			uint64_t lin);

static int each_data_block(const struct model *m, const struct od_geo *g,
			   block_fn fn, void *priv)
{
	uint32_t a, k;
	size_t i;
	uint64_t b;

	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];

			if (!od_mode_isreg(mi->mode))
				continue;
			for (k = 0; k < mi->nde; k++) {
				struct od_irec r;

				m_ext_get(&ag->ext[mi->ext + k], &r);
				if (r.unwritten)
					continue;
				for (b = 0; b < r.blockcount; b++) {
					int ret = fn(priv, mi, r.startoff + b,
						     od_fsb_lin(g, r.startblock
								+ b));

					if (ret)
						return ret;
				}
			}
		}
	}
	return 0;
}

struct fill {
	uint8_t *img;
	uint32_t bs;
	uint64_t blocks;
};

static int fill_block(void *priv, const struct m_ino *mi, uint64_t fo,
		      uint64_t lin)
{
	struct fill *f = priv;

	(void)mi;
	(void)fo;
	pattern(f->img + lin * f->bs, f->bs, lin);
	f->blocks++;
	return 0;
}

/* Where each (inode, file block) lived before, to check after. */
struct where {
	uint64_t ino, fo, lin;
};

struct wlist {
	struct where *v;
	size_t n, cap;
	const uint8_t *img;
	uint32_t bs;
	size_t bad, checked;
};

static int note_block(void *priv, const struct m_ino *mi, uint64_t fo,
		      uint64_t lin)
{
	struct wlist *w = priv;

	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 1024;
		struct where *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return -1;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = (struct where){ mi->ino, fo, lin };
	return 0;
}

static int cmp_where(const void *a, const void *b)
{
	const struct where *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->fo < y->fo ? -1 : x->fo > y->fo;
}

/* After the run: block fo of inode ino must hold its old block's bytes. */
static int verify_block(void *priv, const struct m_ino *mi, uint64_t fo,
			uint64_t lin)
{
	struct wlist *w = priv;
	struct where key = { mi->ino, fo, 0 }, *old;
	uint8_t want[65536];

	old = bsearch(&key, w->v, w->n, sizeof(*w->v), cmp_where);
	w->checked++;
	if (!old) {
		w->bad++;
		return 0;
	}
	pattern(want, w->bs, old->lin);
	if (memcmp(w->img + lin * w->bs, want, w->bs) != 0)
		w->bad++;
	return 0;
}

/* Blocks free before the run: undo may leave what the run wrote there. */
static bool was_free(const struct model *m, const struct od_geo *g,
		     uint64_t lin)
{
	uint32_t a = (uint32_t)(lin / g->agblocks);
	uint32_t b = (uint32_t)(lin % g->agblocks);
	const struct m_ag *ag = &m->ag[a];
	size_t lo = 0, hi = ag->nfree;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ag->freesp[mid].agbno + ag->freesp[mid].len <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ag->nfree && ag->freesp[lo].agbno <= b;
}

/*
 * The blocks only unwritten extents map in m: they read as zeros whatever
 * they hold, and the run does not keep their bytes (one byte a block).
 */
static uint8_t *unwritten_map(const struct model *m, const struct od_geo *g)
{
	uint8_t *u = calloc(g->dblocks ? g->dblocks : 1, 1);
	uint32_t a, k;
	size_t i;

	for (a = 0; u && a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		for (i = 0; i < ag->nino; i++) {
			const struct m_ino *mi = &ag->ino[i];

			for (k = 0; k < mi->nde + mi->nae; k++) {
				struct od_irec r;
				uint64_t lin, b;

				if (k < mi->nde && (mi->flags & MI_REALTIME))
					continue;
				m_ext_get(&ag->ext[mi->ext + k], &r);
				if (!r.unwritten)
					continue;
				lin = (uint64_t)od_fsb_agno(g, r.startblock) *
				      g->agblocks + od_fsb_agbno(g, r.startblock);
				for (b = lin; b < lin + r.blockcount &&
				     b < g->dblocks; b++)
					u[b] = 1;
			}
		}
	}
	return u;
}

/*
 * Every block live before the run holds its original bytes again (but
 * those only unwritten extents map).
 */
static uint64_t live_diff(const struct image *im, const struct model *m0,
			  const struct od_geo *g)
{
	uint8_t *unw = unwritten_map(m0, g);
	uint64_t lin, n = 0;

	if (!unw)
		return UINT64_MAX;
	for (lin = 0; lin < g->dblocks; lin++) {
		size_t off = (size_t)(lin * g->blocksize);

		if (was_free(m0, g, lin) || unw[lin])
			continue;
		if (memcmp(im->orig + off, im->work + off, g->blocksize) != 0)
			n++;
	}
	free(unw);
	return n;
}

/* Plan and run on the work image (in this process); 0 or -1. */
struct planned {
	size_t moves;
	uint64_t frag_actual, frag_ideal;
};

static int run_once(struct image *im, long fault, struct exec_stats *st,
		    struct planned *pl)
{
	struct exec_opts xo = { 0 };
	struct model *m = NULL;
	struct plan p = { 0 };
	struct fs *fs = NULL;
	struct err e = { 0 };
	int ret = -1;

	unlink(im->undo);
	if (open_fs(im, true, &fs))
		return -1;
	if (refuse_write(fs, &e)) {
		fprintf(stderr, "%s: %s\n", im->name, e.msg);
		goto out;
	}
	if (scan(fs, &m) || plan_build(m, NULL, &p, &e))
		goto out;
	xo.undo_path = im->undo;
	xo.fault_after = fault;
	if (exec_run(fs, m, &p, &xo, st, &e)) {
		fprintf(stderr, "%s: run: %s\n", im->name, e.msg);
		goto out;
	}
	ret = 0;
	if (pl) {
		pl->moves = p.nmv;
		pl->frag_actual = p.frag_actual_after;
		pl->frag_ideal = p.frag_ideal_after;
	}
out:
	plan_free(&p);
	model_free(m);
	fs_close(fs);
	return ret;
}

static int undo(struct image *im)
{
	struct undo_info ui;
	struct fs *fs = NULL;
	struct err e = { 0 };
	int ret;

	if (open_fs(im, true, &fs))
		return -1;
	ret = undo_apply(im->undo, fs, &ui, &e);
	if (ret)
		fprintf(stderr, "%s: undo: %s\n", im->name, e.msg);
	fs_close(fs);
	return ret;
}

static void test_image(struct t_state *ts, const char *name)
{
	struct image im = { 0 };
	struct model *m0 = NULL, *m1 = NULL;
	struct report rep = { 0 };
	struct exec_stats st;
	struct planned p = { 0 };
	struct fs *fs = NULL;
	struct err e = { 0 };
	struct wlist w = { 0 };
	struct fill f = { 0 };
	struct od_geo geo;
	const struct od_geo *g = &geo;
	long points[4];
	unsigned i, npts = 0;

	T_CHECK(ts, load(&im, name) == 0 && reset_work(&im) == 0);
	if (!im.work || !im.orig)
		return;
	/* pattern every file's data, note where each block lived */
	T_CHECK(ts, open_fs(&im, true, &fs) == 0 && scan(fs, &m0) == 0);
	if (!m0)
		return;
	geo = fs->geo;
	f.img = im.work;
	f.bs = g->blocksize;
	each_data_block(m0, g, fill_block, &f);
	f.img = im.orig;
	each_data_block(m0, g, fill_block, &f);
	f.blocks /= 2;
	w.img = im.work;
	w.bs = g->blocksize;
	T_CHECK(ts, each_data_block(m0, g, note_block, &w) == 0);
	qsort(w.v, w.n, sizeof(*w.v), cmp_where);
	T_CHECK(ts, f.blocks > 100);	/* the fixtures hold real files */
	T_CHECK(ts, problems(fs) == 0);
	fs_close(fs);
	fs = NULL;

	/* a whole run */
	T_CHECK(ts, run_once(&im, -1, &st, &p) == 0);
	T_CHECK(ts, st.writes > 10 && p.moves > 0);
	if (open_fs(&im, false, &fs)) {
		T_CHECK(ts, !"the run's result opens");
		fs = NULL;
	} else {
		T_CHECK(ts, problems(fs) == 0);
		T_CHECK(ts, scan(fs, &m1) == 0);
		T_CHECK(ts, !(fs->sb.features_incompat &
			      OD_INCOMPAT_NEEDSREPAIR));
	}
	if (m1) {
		each_data_block(m1, g, verify_block, &w);
		T_CHECK(ts, w.bad == 0 && w.checked == w.n);
		T_CHECK(ts, report_build(m1, -1, 0, &rep, &e) == 0);
		T_CHECK(ts, rep.frag_actual == p.frag_actual &&
			    rep.frag_ideal == p.frag_ideal);
		if (w.bad)
			fprintf(stderr, "%s: %zu of %zu blocks read back "
				"wrong\n", name, w.bad, w.checked);
		report_free(&rep);
	}
	model_free(m1);
	m1 = NULL;
	fs_close(fs);
	fs = NULL;
	/* undo of the finished run */
	T_CHECK(ts, undo(&im) == 0);
	T_CHECK(ts, live_diff(&im, m0, g) == 0);

	/*
	 * interrupted runs: before the first write, right after NEEDSREPAIR,
	 * amid the copies, and before the last write (t-relocate.sh tries
	 * 40 points per fixture on image files)
	 */
	points[npts++] = 0;
	points[npts++] = 1;
	points[npts++] = (long)st.writes / 2;
	points[npts++] = (long)st.writes - 1;
	for (i = 0; i < npts; i++) {
		int status = -1;
		pid_t pid;

		T_CHECK(ts, reset_work(&im) == 0);
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			struct exec_stats cst;

			/* a normal return means the fault never struck */
			_exit(run_once(&im, points[i], &cst, NULL) ? 1 : 0);
		}
		T_CHECK(ts, pid > 0 && waitpid(pid, &status, 0) == pid);
		T_CHECK(ts, WIFEXITED(status) && WEXITSTATUS(status) == 75);
		T_CHECK(ts, undo(&im) == 0);
		T_CHECK(ts, live_diff(&im, m0, g) == 0);
		if (open_fs(&im, false, &fs) == 0) {
			T_CHECK(ts, problems(fs) == 0);
			fs_close(fs);
			fs = NULL;
		}
	}
	if (getenv("T_VERBOSE"))
		printf("%s: %zu data blocks moved and read back, %llu writes, "
		       "%u interruptions undone\n", name, w.n,
		       (unsigned long long)st.writes, npts);
	unlink(im.undo);
	model_free(m0);
	free(w.v);
	munmap(im.orig, im.len);
	munmap(im.work, im.len);
}

int main(void)
{
	static const char *const names[] = {
		"rmap-nrext64", "sect4k-noreflink",
	};
	struct t_state ts = { 0, 0 };
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		test_image(&ts, names[i]);
	return t_done(&ts, "test_relocate");
}
