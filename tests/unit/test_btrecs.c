/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Btree record helpers: the sort order of each tree, and the rmap merge against the rules of
 * repair/rmap.c (rmaps_are_mergeable, rmap_add_rec, rmap_fold_raw_recs):
 * hand-made cases, then random filesystems whose expected records come
 * from replaying what xfs_repair does while it walks the inodes.
 */
#include "t.h"
#include "memfs.h"
#include "core/relocate/btbuild.h"
#include "core/relocate/btrecs.h"
#include "ondisk/bmbt.h"
#include "ondisk/inobt.h"
#include "ondisk/refcount.h"
#include "ondisk/rmap.h"

#include <string.h>

/*
 * The kernel's in-core form of a mapping (xfs_rmap_irec): offset and
 * flags apart.  Stated here again, with its own packing, so the tests
 * do not take ondisk/rmap.c's word for where the flags go.
 */
#define ATTR	0x1u
#define BMBT	0x2u
#define UNW	0x4u

struct rm {
	uint32_t startblock, blockcount;
	uint64_t owner, offset;
	unsigned flags;
};

static void rm_pack(uint8_t *p, const struct rm *m)
{
	struct od_rmap_rec r = { m->startblock, m->blockcount, m->owner,
				 m->offset };

	if (m->flags & ATTR)
		r.offset |= 1ull << 63;
	if (m->flags & BMBT)
		r.offset |= 1ull << 62;
	if (m->flags & UNW)
		r.offset |= 1ull << 61;
	od_rmap_rec_encode(&r, p);
}

static void rm_unpack(const uint8_t *p, struct rm *m)
{
	struct od_rmap_rec r;

	od_rmap_rec_decode(p, &r);
	m->startblock = r.startblock;
	m->blockcount = r.blockcount;
	m->owner = r.owner;
	m->offset = r.offset & ((1ull << 54) - 1);
	m->flags = (r.offset >> 63 & 1 ? ATTR : 0) |
		   (r.offset >> 62 & 1 ? BMBT : 0) |
		   (r.offset >> 61 & 1 ? UNW : 0);
}

static void rmap(uint8_t *p, uint32_t start, uint32_t len, uint64_t owner,
		 uint64_t off, unsigned flags)
{
	struct rm m = { start, len, owner, off, flags };

	rm_pack(p, &m);
}

static void alloc(uint8_t *p, uint32_t start, uint32_t len)
{
	struct od_alloc_rec r = { start, len };

	od_alloc_rec_encode(&r, p);
}

static void refc(uint8_t *p, uint32_t start, bool cow, uint32_t refcount)
{
	struct od_refc_rec r = { start, 1, refcount, cow };

	od_refc_rec_encode(&r, p);
}

static void test_cmp(struct t_state *ts)
{
	uint8_t a[24], b[24];
	struct od_irec x = { 7, 1234, 10, true }, y = { 8, 12, 1, false };

	alloc(a, 10, 5);
	alloc(b, 20, 1);
	T_CHECK(ts, btrec_cmp(OD_BT_BNO)(a, b) < 0);
	T_CHECK(ts, btrec_cmp(OD_BT_CNT)(a, b) > 0);	/* by length first */
	alloc(b, 20, 5);
	T_CHECK(ts, btrec_cmp(OD_BT_CNT)(a, b) < 0);	/* then start */
	/* rmap: start, owner, offset; the unwritten bit is not key */
	rmap(a, 10, 1, 200, 5, UNW);
	rmap(b, 10, 1, 200, 6, 0);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) < 0);
	rmap(b, 10, 1, 200, 5, 0);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) == 0);
	rmap(b, 10, 1, OD_RMAP_OWN_AG, 0, 0);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) < 0);
	rmap(b, 10, 1, 200, 0, ATTR);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) < 0);	/* attr bit 63 */
	rmap(b, 9, 100, 500, 0, 0);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) > 0);
	/* refcount: CoW staging extents after all shared ones */
	refc(a, 5, true, 1);
	refc(b, 1000, false, 2);
	T_CHECK(ts, btrec_cmp(OD_BT_REFC)(a, b) > 0);
	refc(b, 4, true, 1);
	T_CHECK(ts, btrec_cmp(OD_BT_REFC)(a, b) > 0);
	/* bmbt: file offset only */
	od_bmbt_rec_pack(&x, a);
	od_bmbt_rec_pack(&y, b);
	T_CHECK(ts, btrec_cmp(OD_BT_BMAP)(a, b) < 0);
	/* inobt, finobt: start inode */
	memset(a, 0, 16);
	memset(b, 0xff, 16);
	a[3] = 64;
	b[0] = 0;
	T_CHECK(ts, btrec_cmp(OD_BT_INO)(a, b) < 0);
	T_CHECK(ts, btrec_cmp(OD_BT_FINO)(b, a) > 0);
}

/* ---- merge: hand-made cases ---- */

struct mcase {
	const char *what;
	unsigned nin, nout;
	struct rm in[4], out[3];	/* out in rmapbt order */
};

#define OWN_AG		OD_RMAP_OWN_AG
#define OWN_INOBT	OD_RMAP_OWN_INOBT
#define OWN_INODES	OD_RMAP_OWN_INODES

static const struct mcase mcases[] = {
	{ "file data, contiguous on disk and in the file", 2, 1,
	  { { 100, 10, 200, 0, 0 }, { 110, 5, 200, 10, 0 } },
	  { { 100, 15, 200, 0, 0 } } },
	{ "gap on disk", 2, 2,
	  { { 100, 10, 200, 0, 0 }, { 111, 5, 200, 10, 0 } },
	  { { 100, 10, 200, 0, 0 }, { 111, 5, 200, 10, 0 } } },
	{ "gap in the file", 2, 2,
	  { { 100, 10, 200, 0, 0 }, { 110, 5, 200, 11, 0 } },
	  { { 100, 10, 200, 0, 0 }, { 110, 5, 200, 11, 0 } } },
	{ "written then unwritten", 2, 2,
	  { { 100, 10, 200, 0, 0 }, { 110, 5, 200, 10, UNW } },
	  { { 100, 10, 200, 0, 0 }, { 110, 5, 200, 10, UNW } } },
	{ "unwritten, both", 2, 1,
	  { { 110, 5, 200, 10, UNW }, { 100, 10, 200, 0, UNW } },
	  { { 100, 15, 200, 0, UNW } } },
	{ "data fork then attr fork", 2, 2,
	  { { 100, 10, 200, 0, 0 }, { 110, 5, 200, 10, ATTR } },
	  { { 100, 10, 200, 0, 0 }, { 110, 5, 200, 10, ATTR } } },
	{ "different inodes", 2, 2,
	  { { 100, 10, 200, 0, 0 }, { 110, 5, 201, 10, 0 } },
	  { { 100, 10, 200, 0, 0 }, { 110, 5, 201, 10, 0 } } },
	{ "bmbt blocks: offsets do not matter", 3, 1,
	  { { 52, 1, 200, 0, BMBT }, { 50, 1, 200, 0, BMBT },
	    { 51, 1, 200, 0, BMBT } },
	  { { 50, 3, 200, 0, BMBT } } },
	{ "bmbt blocks of the data and the attr fork", 2, 2,
	  { { 50, 1, 200, 0, BMBT }, { 51, 1, 200, 0, BMBT | ATTR } },
	  { { 50, 1, 200, 0, BMBT }, { 51, 1, 200, 0, BMBT | ATTR } } },
	{ "inode chunks side by side", 3, 2,
	  { { 64, 8, OWN_INODES, 0, 0 }, { 72, 8, OWN_INODES, 0, 0 },
	    { 80, 1, OWN_INOBT, 0, 0 } },
	  { { 64, 16, OWN_INODES, 0, 0 }, { 80, 1, OWN_INOBT, 0, 0 } } },
	{ "special owners never merge across owners", 2, 2,
	  { { 5, 1, OWN_AG, 0, 0 }, { 6, 1, OWN_INOBT, 0, 0 } },
	  { { 5, 1, OWN_AG, 0, 0 }, { 6, 1, OWN_INOBT, 0, 0 } } },
	{ "a shared extent of another file sorts between", 3, 2,
	  { { 110, 10, 200, 10, 0 }, { 105, 3, 300, 7, 0 },
	    { 100, 10, 200, 0, 0 } },
	  { { 100, 20, 200, 0, 0 }, { 105, 3, 300, 7, 0 } } },
	{ "a file sharing blocks with itself", 3, 2,
	  { { 100, 10, 200, 0, 0 }, { 105, 2, 200, 50, 0 },
	    { 110, 10, 200, 10, 0 } },
	  { { 100, 20, 200, 0, 0 }, { 105, 2, 200, 50, 0 } } },
	{ "32-bit length limit", 2, 2,
	  { { 0, 0xfffffff0u, OWN_AG, 0, 0 }, { 0xfffffff0u, 0x10, OWN_AG,
						0, 0 } },
	  { { 0, 0xfffffff0u, OWN_AG, 0, 0 }, { 0xfffffff0u, 0x10, OWN_AG,
						0, 0 } } },
};

static bool rmap_eq(const struct rm *a, const struct rm *b)
{
	return a->startblock == b->startblock &&
	       a->blockcount == b->blockcount && a->owner == b->owner &&
	       a->offset == b->offset && a->flags == b->flags;
}

static void test_merge_cases(struct t_state *ts)
{
	size_t c, i, n;

	for (c = 0; c < sizeof(mcases) / sizeof(mcases[0]); c++) {
		const struct mcase *mc = &mcases[c];
		uint8_t buf[4 * OD_RMAP_REC_LEN];
		bool ok;

		for (i = 0; i < mc->nin; i++)
			rm_pack(buf + i * OD_RMAP_REC_LEN, &mc->in[i]);
		n = btrec_rmap_merge(buf, mc->nin);
		ok = n == mc->nout;
		for (i = 0; ok && i < n; i++) {
			struct rm m;

			rm_unpack(buf + i * OD_RMAP_REC_LEN, &m);
			ok = rmap_eq(&m, &mc->out[i]);
		}
		T_CHECK(ts, ok);
		if (!ok)
			fprintf(stderr, "  merge case: %s\n", mc->what);
	}
	T_CHECK(ts, btrec_rmap_merge(NULL, 0) == 0);
}

/* ---- merge: random filesystems against a replay of xfs_repair ---- */

struct obs {
	struct rm *r;
	size_t n;
};

static void obs_add(struct obs *o, const struct rm *r)
{
	o->r[o->n++] = *r;
}

/* repair/rmap.c rmaps_are_mergeable(), restated for the replay. */
static bool repair_mergeable(const struct rm *r1,
			     const struct rm *r2)
{
	if (r1->owner != r2->owner ||
	    r1->startblock + r1->blockcount != r2->startblock ||
	    (uint64_t)r1->blockcount + r2->blockcount > 0xffffffffu)
		return false;
	if (r2->owner >> 63)
		return true;
	if (r1->flags != r2->flags)
		return false;
	return (r1->flags & BMBT) || r1->offset + r1->blockcount == r2->offset;
}

static int cmp_packed_rmap(const void *a, const void *b)
{
	return btrec_cmp(OD_BT_RMAP)(a, b);
}

/*
 * One random AG: files with data and attr forks whose extents come in
 * pieces (as bmbt records split them), holes, unwritten runs, bmbt
 * blocks, some files cloning another's blocks (reflink), inode chunks
 * and AG btree blocks.  pieces: every record, unmerged.  want: what
 * xfs_repair's phase 4 collects, merged its way.
 */
static void random_ag(struct memfs_rng *r, struct obs *pieces, struct obs *want)
{
	struct rm raw[400], last, cur;
	uint32_t next = 1000, nraw = 0, i, k;
	uint64_t ino;
	bool have_last = false;

	for (ino = 128; ino < 160; ino++) {
		unsigned fork;

		for (fork = 0; fork < 2; fork++) {
			uint64_t off = memfs_rnd(r) % 5;
			unsigned next_ext = 1 + (unsigned)(memfs_rnd(r) % 6);
			/* a clone of the previous file's blocks */
			bool clone = ino % 4 == 1 && fork == 0;
			uint32_t start = clone ? next - 40 : next;

			for (k = 0; k < next_ext; k++) {
				uint32_t len = 1 + (uint32_t)(memfs_rnd(r) % 8);
				unsigned fl = fork ? ATTR : 0;

				if (!fork && memfs_rnd(r) % 3 == 0)
					fl |= UNW;
				cur = (struct rm){ start, len, ino, off,
							   fl };
				obs_add(pieces, &cur);
				/* rmap_add_rec: fold into the last one */
				if (have_last && repair_mergeable(&last,
								  &cur)) {
					last.blockcount += len;
				} else {
					if (have_last)
						obs_add(want, &last);
					last = cur;
					have_last = true;
				}
				off += len + (memfs_rnd(r) % 4 == 0 ? 3 : 0);
				start += len + (memfs_rnd(r) % 4 == 0 ? 2 : 0);
			}
			if (!clone)
				next = start + 1 + (uint32_t)(memfs_rnd(r) % 2);
		}
		if (ino % 5 == 0) {	/* bmbt blocks, unsorted */
			for (k = 0; k < 3; k++)
				raw[nraw++] = (struct rm){
					next + 2 - k, 1, ino, 0, BMBT };
			next += 4;
		}
	}
	if (have_last)
		obs_add(want, &last);
	/* special owners: headers, inode chunks side by side, btrees */
	raw[nraw++] = (struct rm){ 0, 4, OD_RMAP_OWN_FS, 0, 0 };
	for (i = 0; i < 6; i++)
		raw[nraw++] = (struct rm){ 8 + 8 * i + (i > 3), 8,
						   OWN_INODES, 0, 0 };
	for (i = 0; i < 5; i++)
		raw[nraw++] = (struct rm){ 80 + i, 1,
						   i % 2 ? OWN_AG : OWN_INOBT,
						   0, 0 };
	for (i = 0; i < nraw; i++)
		obs_add(pieces, &raw[i]);
	/* rmap_fold_raw_recs: sort the raw ones, fold neighbours */
	for (i = 1; i < nraw; i++)
		for (k = i; k > 0 && (raw[k].startblock < raw[k - 1].startblock);
		     k--) {
			cur = raw[k];
			raw[k] = raw[k - 1];
			raw[k - 1] = cur;
		}
	last = raw[0];
	for (i = 1; i < nraw; i++) {
		if (repair_mergeable(&last, &raw[i])) {
			last.blockcount += raw[i].blockcount;
			continue;
		}
		obs_add(want, &last);
		last = raw[i];
	}
	obs_add(want, &last);
}

static void test_merge_random(struct t_state *ts, struct memfs_rng *r)
{
	struct rm pr[1000], wr[1000];
	uint8_t got[1000 * OD_RMAP_REC_LEN], exp[1000 * OD_RMAP_REC_LEN];
	int round;

	for (round = 0; round < 200; round++) {
		struct obs pieces = { pr, 0 }, want = { wr, 0 };
		size_t i, n;
		bool ok;

		random_ag(r, &pieces, &want);
		/* shuffle: the merge must not care about input order */
		for (i = pieces.n - 1; i > 0; i--) {
			size_t j = (size_t)(memfs_rnd(r) % (i + 1));
			struct rm x = pr[i];

			pr[i] = pr[j];
			pr[j] = x;
		}
		for (i = 0; i < pieces.n; i++)
			rm_pack(got + i * OD_RMAP_REC_LEN, &pr[i]);
		for (i = 0; i < want.n; i++)
			rm_pack(exp + i * OD_RMAP_REC_LEN, &wr[i]);
		qsort(exp, want.n, OD_RMAP_REC_LEN, cmp_packed_rmap);
		n = btrec_rmap_merge(got, pieces.n);
		ok = n == want.n &&
		     memcmp(got, exp, n * OD_RMAP_REC_LEN) == 0;
		T_CHECK(ts, ok);
		/* what xfs_repair's rmapbt scan then checks in tree order:
		 * strictly increasing keys, no neighbour left unmerged */
		for (i = 1; i < n; i++) {
			struct rm a, b;

			rm_unpack(got + (i - 1) * OD_RMAP_REC_LEN, &a);
			rm_unpack(got + i * OD_RMAP_REC_LEN, &b);
			T_CHECK(ts, cmp_packed_rmap(got + (i - 1) *
						    OD_RMAP_REC_LEN,
						    got + i * OD_RMAP_REC_LEN) <
				    0);
			T_CHECK(ts, !repair_mergeable(&a, &b));
		}
		if (!ok) {
			fprintf(stderr, "  random merge round %d: got %zu "
				"records, want %zu\n", round, n, want.n);
			break;
		}
	}
}

int main(void)
{
	struct t_state ts = { 0, 0 };
	struct memfs_rng r = { 0x2545f4914f6cdd1dull };

	test_cmp(&ts);
	test_merge_cases(&ts);
	test_merge_random(&ts, &r);
	return t_done(&ts, "test_btrecs");
}
