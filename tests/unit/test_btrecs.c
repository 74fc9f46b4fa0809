/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Btree record helpers: packing against known on-disk bytes, the sort
 * order of each tree, and the rmap merge against the rules of
 * repair/rmap.c (rmaps_are_mergeable, rmap_add_rec, rmap_fold_raw_recs):
 * hand-made cases, then random filesystems whose expected records come
 * from replaying what xfs_repair does while it walks the inodes.
 */
#include "t.h"
#include "memfs.h"
#include "core/relocate/btbuild.h"
#include "core/relocate/btrecs.h"
#include "ondisk/be.h"

#include <string.h>

static void test_pack(struct t_state *ts)
{
	static const uint8_t rmap_want[24] = {
		0, 0, 0x01, 0x02, 0, 0, 0, 5,		/* start, count */
		0, 0, 0, 0, 0, 0, 0, 131,		/* owner */
		0xa0, 0, 0, 0, 0, 0, 0, 9,		/* attr|unwritten, 9 */
	};
	struct od_inobt_rec ir = { 128, 0x00f0, 48, 3, 0x7ull << 40 };
	struct od_geo g;
	struct btrec_rmap m;
	struct od_irec bi = { 7, 1234, 10, true }, bo;
	uint8_t b[24];

	btrec_alloc(b, 0x01020304, 0x0a0b0c0d);
	T_CHECK(ts, od_get_be32(b) == 0x01020304 &&
		    od_get_be32(b + 4) == 0x0a0b0c0d);
	btrec_rmap(b, 0x102, 5, 131, 9,
		   BTREC_RMAP_ATTR_FORK | BTREC_RMAP_UNWRITTEN);
	T_CHECK(ts, memcmp(b, rmap_want, 24) == 0);
	btrec_rmap_unpack(b, &m);
	T_CHECK(ts, m.startblock == 0x102 && m.blockcount == 5 &&
		    m.owner == 131 && m.offset == 9 &&
		    m.flags == (BTREC_RMAP_ATTR_FORK | BTREC_RMAP_UNWRITTEN));
	m.flags = BTREC_RMAP_BMBT_BLOCK;
	m.offset = 0;
	btrec_rmap_pack(b, &m);
	T_CHECK(ts, od_get_be64(b + 16) == 1ull << 62);
	btrec_refc(b, 77 | BTREC_REFC_COW, 3, 1);
	T_CHECK(ts, od_get_be32(b) == 0x8000004d && od_get_be32(b + 4) == 3 &&
		    od_get_be32(b + 8) == 1);
	btrec_bmap(b, &bi);
	od_bmbt_rec_unpack(b, &bo);
	T_CHECK(ts, bo.startoff == 7 && bo.startblock == 1234 &&
		    bo.blockcount == 10 && bo.unwritten);
	/* inobt: sparse layout vs the 32-bit freecount one */
	memset(&g, 0, sizeof(g));
	g.sparse = true;
	btrec_inobt(&g, b, &ir);
	T_CHECK(ts, od_get_be32(b) == 128 && od_get_be16(b + 4) == 0x00f0 &&
		    b[6] == 48 && b[7] == 3 && od_get_be64(b + 8) == 7ull << 40);
	g.sparse = false;
	ir.holemask = 0;
	ir.count = 64;
	btrec_inobt(&g, b, &ir);
	T_CHECK(ts, od_get_be32(b + 4) == 3 && od_get_be64(b + 8) == 7ull << 40);
}

static void test_cmp(struct t_state *ts)
{
	uint8_t a[24], b[24];

	btrec_alloc(a, 10, 5);
	btrec_alloc(b, 20, 1);
	T_CHECK(ts, btrec_cmp(OD_BT_BNO)(a, b) < 0);
	T_CHECK(ts, btrec_cmp(OD_BT_CNT)(a, b) > 0);	/* by length first */
	btrec_alloc(b, 20, 5);
	T_CHECK(ts, btrec_cmp(OD_BT_CNT)(a, b) < 0);	/* then start */
	/* rmap: start, owner, offset; the unwritten bit is not key */
	btrec_rmap(a, 10, 1, 200, 5, BTREC_RMAP_UNWRITTEN);
	btrec_rmap(b, 10, 1, 200, 6, 0);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) < 0);
	btrec_rmap(b, 10, 1, 200, 5, 0);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) == 0);
	btrec_rmap(b, 10, 1, BTREC_RMAP_OWN_AG, 0, 0);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) < 0);
	btrec_rmap(b, 10, 1, 200, 0, BTREC_RMAP_ATTR_FORK);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) < 0);	/* attr bit 63 */
	btrec_rmap(b, 9, 100, 500, 0, 0);
	T_CHECK(ts, btrec_cmp(OD_BT_RMAP)(a, b) > 0);
	/* refcount: CoW staging extents after all shared ones */
	btrec_refc(a, 5 | BTREC_REFC_COW, 1, 1);
	btrec_refc(b, 1000, 1, 2);
	T_CHECK(ts, btrec_cmp(OD_BT_REFC)(a, b) > 0);
}

/* ---- merge: hand-made cases ---- */

struct mcase {
	const char *what;
	unsigned nin, nout;
	struct btrec_rmap in[4], out[3];	/* out in rmapbt order */
};

#define OWN_AG		BTREC_RMAP_OWN_AG
#define OWN_INOBT	BTREC_RMAP_OWN_INOBT
#define OWN_INODES	BTREC_RMAP_OWN_INODES
#define UNW		BTREC_RMAP_UNWRITTEN
#define ATTR		BTREC_RMAP_ATTR_FORK
#define BMBT		BTREC_RMAP_BMBT_BLOCK

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

static bool rmap_eq(const struct btrec_rmap *a, const struct btrec_rmap *b)
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
		uint8_t buf[4 * BTREC_RMAP_LEN];
		bool ok;

		for (i = 0; i < mc->nin; i++)
			btrec_rmap_pack(buf + i * BTREC_RMAP_LEN, &mc->in[i]);
		n = btrec_rmap_merge(buf, mc->nin);
		ok = n == mc->nout;
		for (i = 0; ok && i < n; i++) {
			struct btrec_rmap m;

			btrec_rmap_unpack(buf + i * BTREC_RMAP_LEN, &m);
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
	struct btrec_rmap *r;
	size_t n;
};

static void obs_add(struct obs *o, const struct btrec_rmap *r)
{
	o->r[o->n++] = *r;
}

/* repair/rmap.c rmaps_are_mergeable(), restated for the replay. */
static bool repair_mergeable(const struct btrec_rmap *r1,
			     const struct btrec_rmap *r2)
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
	struct btrec_rmap raw[400], last, cur;
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
				cur = (struct btrec_rmap){ start, len, ino, off,
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
				raw[nraw++] = (struct btrec_rmap){
					next + 2 - k, 1, ino, 0, BMBT };
			next += 4;
		}
	}
	if (have_last)
		obs_add(want, &last);
	/* special owners: headers, inode chunks side by side, btrees */
	raw[nraw++] = (struct btrec_rmap){ 0, 4, BTREC_RMAP_OWN_FS, 0, 0 };
	for (i = 0; i < 6; i++)
		raw[nraw++] = (struct btrec_rmap){ 8 + 8 * i + (i > 3), 8,
						   OWN_INODES, 0, 0 };
	for (i = 0; i < 5; i++)
		raw[nraw++] = (struct btrec_rmap){ 80 + i, 1,
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
	struct btrec_rmap pr[1000], wr[1000];
	uint8_t got[1000 * BTREC_RMAP_LEN], exp[1000 * BTREC_RMAP_LEN];
	int round;

	for (round = 0; round < 200; round++) {
		struct obs pieces = { pr, 0 }, want = { wr, 0 };
		size_t i, n;
		bool ok;

		random_ag(r, &pieces, &want);
		/* shuffle: the merge must not care about input order */
		for (i = pieces.n - 1; i > 0; i--) {
			size_t j = (size_t)(memfs_rnd(r) % (i + 1));
			struct btrec_rmap x = pr[i];

			pr[i] = pr[j];
			pr[j] = x;
		}
		for (i = 0; i < pieces.n; i++)
			btrec_rmap_pack(got + i * BTREC_RMAP_LEN, &pr[i]);
		for (i = 0; i < want.n; i++)
			btrec_rmap_pack(exp + i * BTREC_RMAP_LEN, &wr[i]);
		qsort(exp, want.n, BTREC_RMAP_LEN, cmp_packed_rmap);
		n = btrec_rmap_merge(got, pieces.n);
		ok = n == want.n &&
		     memcmp(got, exp, n * BTREC_RMAP_LEN) == 0;
		T_CHECK(ts, ok);
		/* what xfs_repair's rmapbt scan then checks in tree order:
		 * strictly increasing keys, no neighbour left unmerged */
		for (i = 1; i < n; i++) {
			struct btrec_rmap a, b;

			btrec_rmap_unpack(got + (i - 1) * BTREC_RMAP_LEN, &a);
			btrec_rmap_unpack(got + i * BTREC_RMAP_LEN, &b);
			T_CHECK(ts, cmp_packed_rmap(got + (i - 1) *
						    BTREC_RMAP_LEN,
						    got + i * BTREC_RMAP_LEN) <
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

	test_pack(&ts);
	test_cmp(&ts);
	test_merge_cases(&ts);
	test_merge_random(&ts, &r);
	return t_done(&ts, "test_btrecs");
}
