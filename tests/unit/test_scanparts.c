/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scan in parts (AGs cut in chunk ranges, joined in order) against
 * the scan of whole AGs: on every fixture, as committed and with damage
 * put in (inodes whose magic or bytes are wrong, directory blocks with a
 * byte changed), split into 2, 3 and 5 parts on 2 and 3 threads, the
 * model must be the same byte for byte: inodes, extents, links,
 * directories, metadata blocks, and each AG's first damage and count.
 */
#include "t.h"
#include "fixture.h"
#include "core/model/model.h"
#include "ondisk/geo.h"

static const char *const fixtures[] = {
	"aged", "dirs", "bs1k", "isize1k-dir8k", "v4", "rmap-nrext64",
	"ag16", "sect4k-noreflink",
};

static struct model *scan(struct fs *fs, unsigned threads, unsigned parts)
{
	struct scan_opts so = { 0 };
	struct model *m = NULL;
	struct err e = { 0 };

	so.dirs = true;
	so.threads = threads;
	so.parts = parts;
	scan_fs(fs, &so, &m, &e);	/* damage is in the model too */
	return m;
}

#define SAME_ARR(a, b, n, v) \
	((a)->n == (b)->n && \
	 ((a)->n == 0 || memcmp((a)->v, (b)->v, (a)->n * sizeof(*(a)->v)) == 0))

static bool same_model(const struct model *a, const struct model *b)
{
	uint32_t i;

	if (!a || !b || a->agcount != b->agcount || a->ninodes != b->ninodes)
		return false;
	for (i = 0; i < a->agcount; i++) {
		const struct m_ag *x = &a->ag[i], *y = &b->ag[i];

		if (!SAME_ARR(x, y, nino, ino) || !SAME_ARR(x, y, next, ext) ||
		    !SAME_ARR(x, y, nlink, link) || !SAME_ARR(x, y, ndir, dir) ||
		    !SAME_ARR(x, y, nmeta, meta) || x->err != y->err ||
		    x->ndamaged != y->ndamaged ||
		    strcmp(x->errmsg, y->errmsg) != 0)
			return false;
	}
	return true;
}

static void flip(uint8_t *img, size_t len, uint64_t off, uint8_t mask)
{
	if (off < len)
		img[off] ^= mask;
}

/*
 * Damage from the whole-AG model: in every other chunk one in-use
 * inode's magic and another's last byte (its CRC no longer holds), and
 * a byte of every third directory's first block.
 */
static unsigned damage(uint8_t *img, size_t len, const struct model *m)
{
	const struct od_geo *g = &m->fs->geo;
	unsigned n = 0;
	uint32_t a;
	size_t k;

	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		for (k = 0; k < ag->nchunk; k += 2) {
			uint32_t agino = ag->chunk[k].startino + 3;
			uint64_t off = (od_agb_lin(g, a, od_agino_agbno(g, agino))
					<< g->blocklog) +
				       ((uint64_t)od_agino_offset(g, agino)
					<< g->inodelog);

			flip(img, len, off, 0x10);
			flip(img, len, off + 2 * g->inodesize - 1, 0x01);
			n += 2;
		}
		for (k = 0; k < ag->ndir; k += 3) {
			const struct m_ag *dag;
			const struct m_ino *mi = model_find(m, ag->dir[k].ino,
							    &dag);
			struct od_irec r;

			if (!mi || !mi->nde)
				continue;
			m_ext_get(&dag->ext[mi->ext], &r);
			flip(img, len, (od_fsb_lin(g, r.startblock) <<
					g->blocklog) + 100, 0x04);
			n++;
		}
	}
	return n;
}

static void one_fixture(struct t_state *ts, const char *name)
{
	static const unsigned parts[] = { 2, 3, 5 };
	struct fixture f;
	struct model *ref = NULL;
	unsigned round, p, t, splits = 0, bad = 0, hurt = 0, seen = 0;
	uint32_t a;

	memset(&f, 0, sizeof(f));
	f.img = fixture_load("test_scanparts", name, &f.len);
	T_CHECK(ts, f.img != NULL);
	if (!f.img)
		return;
	for (round = 0; round < 2; round++) {
		struct err e = { 0 };

		if (img_open_mem(f.img, f.len, 0, &f.im))
			break;
		if (fs_open_img(f.im, name, FS_NOPROBE, &f.fs, &e)) {
			img_close(f.im);
			f.im = NULL;
			T_CHECK(ts, round == 1);	/* damage may stop it */
			break;
		}
		f.im = NULL;
		ref = scan(f.fs, 1, 1);
		T_CHECK(ts, ref != NULL);
		for (a = 0; round == 1 && ref && a < ref->agcount; a++)
			seen += ref->ag[a].ndamaged > 0;
		for (p = 0; ref && p < sizeof(parts) / sizeof(*parts); p++)
			for (t = 2; t <= 3; t++) {
				struct model *m = scan(f.fs, t, parts[p]);

				bad += !same_model(ref, m);
				splits++;
				model_free(m);
			}
		if (round == 0 && ref)
			hurt = damage(f.img, f.len, ref);
		model_free(ref);
		fs_close(f.fs);
		f.fs = NULL;
	}
	if (bad)
		fprintf(stderr, "test_scanparts: %s: %u of %u split scans "
			"differ\n", name, bad, splits);
	T_CHECK(ts, bad == 0 && splits >= 6 && hurt > 0 && seen > 0);
	munmap(f.img, f.len);
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	size_t i;

	for (i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++)
		one_fixture(&ts, fixtures[i]);
	return t_done(&ts, "test_scanparts");
}
