/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the ondisk record codecs: reverse-mapping records and
 * keys, refcount records, free-space and inode btree records, the bmbt
 * root in an inode fork, btree node pointers and keys, and the log's
 * record and operation headers.  Known bytes (from the layouts in
 * xfs_format.h and xfs_log_format.h), round trips, and the edge cases.
 */
#include "t.h"
#include "ondisk/ag.h"
#include "ondisk/be.h"
#include "ondisk/bmbt.h"
#include "ondisk/btree.h"
#include "ondisk/inobt.h"
#include "ondisk/logrec.h"
#include "ondisk/refcount.h"
#include "ondisk/rmap.h"
#include "ondisk/undo.h"

#include <string.h>

static void test_rmap_rec(struct t_state *ts)
{
	static const uint8_t want[24] = {
		0, 0, 0x01, 0x02, 0, 0, 0, 5,		/* start, count */
		0, 0, 0, 0, 0, 0, 0, 131,		/* owner */
		0xa0, 0, 0, 0, 0, 0, 0, 9,		/* attr|unwritten, 9 */
	};
	struct od_rmap_rec r = { 0x102, 5, 131,
				 9 | OD_RMAP_OFF_ATTR_FORK |
				 OD_RMAP_OFF_UNWRITTEN }, d;
	uint8_t b[24];

	od_rmap_rec_encode(&r, b);
	T_CHECK(ts, memcmp(b, want, sizeof(want)) == 0);
	od_rmap_rec_decode(b, &d);
	T_CHECK(ts, memcmp(&d, &r, sizeof(r)) == 0);
	T_CHECK(ts, od_rmap_fileoff(&d) == 9);
	r.offset = OD_RMAP_OFF_BMBT_BLOCK;
	od_rmap_rec_encode(&r, b);
	T_CHECK(ts, od_get_be64(b + 16) == 1ull << 62);
	/* special owners count down from -1 */
	T_CHECK(ts, OD_RMAP_OWN_FS == (uint64_t)-3 &&
		    OD_RMAP_OWN_COW == (uint64_t)-9);
	T_CHECK(ts, od_rmap_owner_special(OD_RMAP_OWN_AG) &&
		    !od_rmap_owner_special(131));
}

static void test_rmap_plausible(struct t_state *ts)
{
	struct od_geo g;
	struct od_rmap_rec r = { 10, 1, 131, 0 };

	memset(&g, 0, sizeof(g));
	g.agcount = 4;
	g.agblocks = 1000;
	g.dblocks = 4000;
	g.agblklog = 10;
	g.inopblog = 3;
	g.agino_log = 13;
	T_CHECK(ts, od_rmap_rec_plausible(&g, &r));
	r.offset = 5 | OD_RMAP_OFF_ATTR_FORK | OD_RMAP_OFF_UNWRITTEN;
	T_CHECK(ts, od_rmap_rec_plausible(&g, &r));
	r.offset = 1ull << 55;			/* a bit nobody defines */
	T_CHECK(ts, !od_rmap_rec_plausible(&g, &r));
	r.offset = OD_RMAP_OFF_BMBT_BLOCK;
	T_CHECK(ts, od_rmap_rec_plausible(&g, &r));
	r.offset = OD_RMAP_OFF_BMBT_BLOCK | 1;	/* bmbt blocks: no offset */
	T_CHECK(ts, !od_rmap_rec_plausible(&g, &r));
	r.offset = OD_RMAP_OFF_BMBT_BLOCK | OD_RMAP_OFF_UNWRITTEN;
	T_CHECK(ts, !od_rmap_rec_plausible(&g, &r));
	r.offset = 0;
	r.owner = (uint64_t)4 << 13;		/* AG 4 of 4 */
	T_CHECK(ts, !od_rmap_rec_plausible(&g, &r));
	r.owner = OD_RMAP_OWN_FS;
	T_CHECK(ts, od_rmap_rec_plausible(&g, &r));
	r.owner = OD_RMAP_OWN_COW;
	T_CHECK(ts, od_rmap_rec_plausible(&g, &r));
	r.offset = 1;				/* special owners: no offset */
	T_CHECK(ts, !od_rmap_rec_plausible(&g, &r));
	r.offset = 0;
	r.owner = OD_RMAP_OWN_UNKNOWN;		/* -2, -1, -10: not on disk */
	T_CHECK(ts, !od_rmap_rec_plausible(&g, &r));
	r.owner = OD_RMAP_OWN_NULL;
	T_CHECK(ts, !od_rmap_rec_plausible(&g, &r));
	r.owner = OD_RMAP_OWN_MIN;
	T_CHECK(ts, !od_rmap_rec_plausible(&g, &r));
}

static void test_rmap_keys(struct t_state *ts)
{
	struct od_rmap_rec r = { 100, 8, 131, 40 | OD_RMAP_OFF_UNWRITTEN };
	struct od_rmap_key lo, hi, d;
	uint8_t b[OD_RMAP_KEY_LEN], rec[OD_RMAP_REC_LEN];

	od_rmap_rec_low_key(&r, &lo);
	od_rmap_rec_high_key(&r, &hi);
	/* the unwritten state never is part of a key */
	T_CHECK(ts, lo.startblock == 100 && lo.owner == 131 && lo.offset == 40);
	T_CHECK(ts, hi.startblock == 107 && hi.owner == 131 && hi.offset == 47);
	T_CHECK(ts, od_rmap_key_cmp(&lo, &hi) < 0);
	/* the attr fork bit stays in both; the high key adds to the offset */
	r.offset = 40 | OD_RMAP_OFF_ATTR_FORK;
	od_rmap_rec_high_key(&r, &hi);
	T_CHECK(ts, hi.offset == (47 | OD_RMAP_OFF_ATTR_FORK));
	/* bmbt blocks and special owners: the offset is not a position */
	r.offset = OD_RMAP_OFF_BMBT_BLOCK;
	od_rmap_rec_high_key(&r, &hi);
	T_CHECK(ts, hi.startblock == 107 && hi.offset == OD_RMAP_OFF_BMBT_BLOCK);
	r.owner = OD_RMAP_OWN_INODES;
	r.offset = 0;
	od_rmap_rec_high_key(&r, &hi);
	T_CHECK(ts, hi.offset == 0);
	/* packed: startblock, owner, offset, 20 bytes */
	od_rmap_key_encode(&hi, b);
	T_CHECK(ts, od_get_be32(b) == 107 &&
		    od_get_be64(b + 4) == OD_RMAP_OWN_INODES &&
		    od_get_be64(b + 12) == 0);
	od_rmap_key_decode(b, &d);
	T_CHECK(ts, od_rmap_key_cmp(&d, &hi) == 0);
	/* order: startblock, then owner, then offset without unwritten */
	lo = (struct od_rmap_key){ 5, 200, 9 };
	d = (struct od_rmap_key){ 5, 200, 9 | OD_RMAP_OFF_UNWRITTEN };
	T_CHECK(ts, od_rmap_key_cmp(&lo, &d) == 0);
	d.owner = 199;
	T_CHECK(ts, od_rmap_key_cmp(&lo, &d) > 0);
	d = (struct od_rmap_key){ 6, 0, 0 };
	T_CHECK(ts, od_rmap_key_cmp(&lo, &d) < 0);
	/* the node key of a leaf record is its low key */
	r = (struct od_rmap_rec){ 7, 2, 131, 3 | OD_RMAP_OFF_UNWRITTEN };
	od_rmap_rec_encode(&r, rec);
	od_bt_key_from_rec(OD_BT_RMAP, rec, b);
	od_rmap_key_decode(b, &d);
	T_CHECK(ts, d.startblock == 7 && d.owner == 131 && d.offset == 3);
}

static void test_refc(struct t_state *ts)
{
	struct od_refc_rec r = { 77, 3, 2, true }, d;
	uint8_t b[OD_REFC_REC_LEN];

	od_refc_rec_encode(&r, b);
	T_CHECK(ts, od_get_be32(b) == 0x8000004d && od_get_be32(b + 4) == 3 &&
		    od_get_be32(b + 8) == 2);
	od_refc_rec_decode(b, &d);
	T_CHECK(ts, d.startblock == 77 && d.cow && d.blockcount == 3 &&
		    d.refcount == 2);
	T_CHECK(ts, od_refc_key(&d) == 0x8000004d);
	r.cow = false;
	od_refc_rec_encode(&r, b);
	od_refc_rec_decode(b, &d);
	T_CHECK(ts, !d.cow && d.startblock == 77 && od_refc_key(&d) == 77);
}

static void test_alloc_inobt(struct t_state *ts)
{
	struct od_alloc_rec a = { 0x01020304, 0x0a0b0c0d }, ad;
	struct od_inobt_rec ir = { 128, 0x00f0, 48, 3, 0x7ull << 40 }, d;
	struct od_geo g;
	const char *field;
	uint8_t b[16];

	od_alloc_rec_encode(&a, b);
	T_CHECK(ts, od_get_be32(b) == 0x01020304 &&
		    od_get_be32(b + 4) == 0x0a0b0c0d);
	od_alloc_rec_decode(b, &ad);
	T_CHECK(ts, ad.startblock == a.startblock &&
		    ad.blockcount == a.blockcount);

	/* sparse layout: holemask, count, 8-bit freecount */
	memset(&g, 0, sizeof(g));
	g.sparse = true;
	g.agcount = 1;
	g.agblocks = 1000;
	g.dblocks = 1000;
	g.agblklog = 10;
	g.inopblog = 3;
	g.agino_log = 13;
	od_inobt_rec_encode(&g, &ir, b);
	T_CHECK(ts, od_get_be32(b) == 128 && od_get_be16(b + 4) == 0x00f0 &&
		    b[6] == 48 && b[7] == 3 && od_get_be64(b + 8) == 7ull << 40);
	T_CHECK(ts, od_inobt_rec_decode(b, &g, 0, &d, &field) == OD_OK);
	T_CHECK(ts, d.startino == 128 && d.holemask == 0x00f0 &&
		    d.count == 48 && d.freecount == 3 && d.free == ir.free);
	/* the old layout: a 32-bit freecount */
	g.sparse = false;
	ir.holemask = 0;
	ir.count = 64;
	od_inobt_rec_encode(&g, &ir, b);
	T_CHECK(ts, od_get_be32(b + 4) == 3 && od_get_be64(b + 8) == 7ull << 40);
	T_CHECK(ts, od_inobt_rec_decode(b, &g, 0, &d, &field) == OD_OK &&
		    d.count == 64 && d.freecount == 3 && d.holemask == 0);
}

static void test_bmdr_ptrs(struct t_state *ts)
{
	uint8_t fork[4 + 16 * 3], node[64];
	struct od_bmdr root = { 2, 3, 3 }, d;
	const struct od_bt_ops *s = od_bt_ops(OD_BT_BNO);
	const struct od_bt_ops *l = od_bt_ops(OD_BT_BMAP);
	struct od_irec ir = { 1234, 99, 5, true };
	const char *field;
	uint8_t rec[16], key[8];
	uint32_t i;

	memset(fork, 0, sizeof(fork));
	od_bmdr_encode(&root, fork);
	for (i = 0; i < 3; i++) {
		od_bmbt_key_encode(100 * i, fork + OD_BMDR_HDR_LEN + 8 * i);
		od_bmdr_set_ptr(fork, &root, i, 0x1000000000ull + i);
	}
	T_CHECK(ts, od_bmdr_decode(fork, sizeof(fork), &d, &field) == OD_OK);
	T_CHECK(ts, d.level == 2 && d.numrecs == 3 && d.maxrecs == 3);
	T_CHECK(ts, od_bmdr_key(fork, 2) == 200 &&
		    od_bmdr_ptr(fork, &d, 2) == 0x1000000002ull);
	/* node pointers: 4 bytes in AG btrees, 8 in the bmbt */
	memset(node, 0, sizeof(node));
	od_bt_ptr_put(s, node, 8, 0x123456789ull);
	T_CHECK(ts, od_get_be32(node + 8) == 0x23456789u &&
		    od_get_be32(node + 12) == 0);
	T_CHECK(ts, od_bt_ptr_get(s, node, 8) == 0x23456789u);
	od_bt_ptr_put(l, node, 16, 0x123456789ull);
	T_CHECK(ts, od_get_be64(node + 16) == 0x123456789ull &&
		    od_bt_ptr_get(l, node, 16) == 0x123456789ull);
	/* node keys of leaf records */
	od_bmbt_rec_pack(&ir, rec);
	od_bt_key_from_rec(OD_BT_BMAP, rec, key);
	T_CHECK(ts, od_get_be64(key) == 1234);
	memcpy(rec, "\x00\x00\x00\x07\x00\x00\x00\x09", 8);
	od_bt_key_from_rec(OD_BT_CNT, rec, key);
	T_CHECK(ts, memcmp(key, rec, 8) == 0);
	memset(key, 0xee, sizeof(key));
	od_bt_key_from_rec(OD_BT_REFC, rec, key);
	T_CHECK(ts, memcmp(key, rec, 4) == 0 && key[4] == 0xee);
}

/* Record keys and node keys compare the way the kernel's trees order. */
static void test_keys(struct t_state *ts)
{
	struct od_rmap_rec rr = { 9, 4, 131, 5 | OD_RMAP_OFF_UNWRITTEN };
	struct od_refc_rec fr = { 3, 1, 2, true };
	struct od_alloc_rec ar = { 70, 8 };
	struct od_irec ir = { 77, 1000, 3, false };
	struct od_btkey rk, nk;
	uint8_t rec[24], key[OD_RMAP_KEY_LEN];
	int t;

	od_alloc_rec_encode(&ar, rec);
	od_bt_rec_key(OD_BT_CNT, rec, &rk);
	T_CHECK(ts, rk.a == 8 && rk.b == 70);	/* length, then start */
	od_bt_key_from_rec(OD_BT_CNT, rec, key);
	od_bt_node_key(OD_BT_CNT, key, &nk);
	T_CHECK(ts, od_btkey_cmp(&rk, &nk) == 0);
	od_bt_rec_key(OD_BT_BNO, rec, &rk);
	T_CHECK(ts, rk.a == 70 && rk.b == 0);
	od_refc_rec_encode(&fr, rec);
	od_bt_rec_key(OD_BT_REFC, rec, &rk);
	T_CHECK(ts, rk.a == (3 | OD_REFC_COWFLAG));
	od_bmbt_rec_pack(&ir, rec);
	od_bt_rec_key(OD_BT_BMAP, rec, &rk);
	T_CHECK(ts, rk.a == 77);
	/* a leaf record's key, packed into a node, compares equal to it */
	for (t = OD_BT_BNO; t <= OD_BT_BMAP; t++) {
		memset(rec, 0, sizeof(rec));
		if (t == OD_BT_RMAP)
			od_rmap_rec_encode(&rr, rec);
		else if (t == OD_BT_BMAP)
			od_bmbt_rec_pack(&ir, rec);
		else
			od_put_be32(rec, 0x1234);
		od_bt_rec_key((enum od_bt_type)t, rec, &rk);
		if (t == OD_BT_RMAP)
			rk.c &= ~OD_RMAP_OFF_UNWRITTEN;	/* not part of a key */
		od_bt_key_from_rec((enum od_bt_type)t, rec, key);
		od_bt_node_key((enum od_bt_type)t, key, &nk);
		T_CHECK(ts, od_btkey_cmp(&rk, &nk) == 0);
	}
	T_CHECK(ts, rk.a == 77);
}

static void test_logrec(struct t_state *ts)
{
	uint8_t bb[OD_LOG_BBSIZE];
	struct od_logrec_hdr h;
	struct od_logop_hdr op;
	size_t len;

	memset(bb, 0, sizeof(bb));
	od_put_be32(bb, 7);	/* a data block of cycle 7 */
	T_CHECK(ts, !od_log_is_rec_hdr(bb, sizeof(bb)));
	T_CHECK(ts, od_log_block_cycle(bb, sizeof(bb)) == 7);
	T_CHECK(ts, od_logrec_hdr_decode(bb, sizeof(bb), &h) == OD_EMAGIC);

	od_put_be32(bb, OD_LOG_HEADER_MAGIC);
	od_put_be32(bb + 4, 9);		/* h_cycle */
	od_put_be32(bb + 8, 2);		/* h_version */
	od_put_be32(bb + 12, 1024);	/* h_len */
	od_put_be32(bb + 40, 1);	/* h_num_logops */
	od_put_be32(bb + 320, 32768);	/* h_size: one header block */
	T_CHECK(ts, od_log_is_rec_hdr(bb, sizeof(bb)));
	T_CHECK(ts, od_log_block_cycle(bb, sizeof(bb)) == 9);
	T_CHECK(ts, od_logrec_hdr_decode(bb, sizeof(bb), &h) == OD_OK);
	T_CHECK(ts, h.cycle == 9 && h.version == 2 && h.len == 1024 &&
		    h.num_logops == 1 && h.size == 32768 && h.hblks == 1);
	/* a 256 KiB iclog needs 8 header blocks (32 KiB of data each) */
	od_put_be32(bb + 320, 262144);
	T_CHECK(ts, od_logrec_hdr_decode(bb, sizeof(bb), &h) == OD_OK &&
		    h.hblks == 8);
	od_put_be32(bb + 320, 262145);
	T_CHECK(ts, od_logrec_hdr_decode(bb, sizeof(bb), &h) == OD_OK &&
		    h.hblks == 9);
	/* v1 records have one header block whatever h_size says */
	od_put_be32(bb + 8, 1);
	T_CHECK(ts, od_logrec_hdr_decode(bb, sizeof(bb), &h) == OD_OK &&
		    h.hblks == 1);
	for (len = 0; len < OD_LOG_REC_HDR_LEN; len++)
		T_CHECK(ts, od_logrec_hdr_decode(bb, len, &h) == OD_ESHORT);

	/* operation header: tid, len, clientid, flags */
	memset(bb, 0, sizeof(bb));
	od_put_be32(bb, 0xdeadbeefu);
	od_put_be32(bb + 4, 8);
	bb[8] = 0xaa;
	bb[9] = OD_LOG_UNMOUNT_TRANS;
	T_CHECK(ts, od_logop_hdr_decode(bb, sizeof(bb), &op) == OD_OK);
	T_CHECK(ts, op.tid == 0xdeadbeefu && op.len == 8 &&
		    op.clientid == 0xaa && op.flags == OD_LOG_UNMOUNT_TRANS);
	T_CHECK(ts, od_logop_hdr_decode(bb, OD_LOG_OP_HDR_LEN - 1, &op) ==
		    OD_ESHORT);
}

/* The undo file's move and proof entries: known bytes, round trips. */
static void test_undo_entries(struct t_state *ts)
{
	static const uint8_t want_mv[OD_UNDO_MOV_ENT] = {
		0, 0, 0, 0, 0, 0, 0x12, 0x34,	/* from */
		0, 0, 0, 1, 0, 0, 0, 2,		/* to */
		0, 0, 0, 7, 0, 0, 0, 0,		/* blocks, pad */
	};
	struct od_undo_move m = { 0x1234, 0x100000002ull, 7 }, d;
	uint8_t b[OD_UNDO_MOV_ENT], r[OD_UNDO_PRF_RUNHDR], c[4];
	uint64_t blk;
	uint32_t n;

	memset(b, 0xff, sizeof(b));
	od_undo_move_encode(&m, b);
	T_CHECK(ts, memcmp(b, want_mv, sizeof(want_mv)) == 0);
	od_undo_move_decode(b, &d);
	T_CHECK(ts, d.x == m.x && d.y == m.y && d.n == m.n);
	memset(r, 0xff, sizeof(r));
	od_undo_prf_run_encode(0xabcdef0123ull, 99, r);
	T_CHECK(ts, od_get_be64(r) == 0xabcdef0123ull);
	T_CHECK(ts, od_get_be32(r + 8) == 99 && od_get_be32(r + 12) == 0);
	od_undo_prf_run_decode(r, &blk, &n);
	T_CHECK(ts, blk == 0xabcdef0123ull && n == 99);
	od_undo_prf_crc_put(c, 0xdeadbeef);
	T_CHECK(ts, c[0] == 0xde && c[3] == 0xef);
	T_CHECK(ts, od_undo_prf_crc_get(c) == 0xdeadbeef);
}

/* A reference record's entry: known bytes, a round trip, and record
 * headers of its kind (its length a whole number of entries). */
static void test_undo_ref(struct t_state *ts)
{
	static const uint8_t want[OD_UNDO_REF_ENT] = {
		0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0x9a,	/* block */
		0, 0, 0, 0, 0, 0, 0x01, 0x02,		/* copy */
		0, 1, 0, 0,				/* count */
		0xca, 0xfe, 0xba, 0xbe,			/* crc */
	};
	struct od_undo_ref r = { 0x123456789aull, 0x102, 0x10000,
				 0xcafebabeu }, d;
	struct od_undo_rec h = { 0 }, g;
	uint8_t b[OD_UNDO_REF_ENT], hb[OD_UNDO_REC_LEN];
	const char *field;

	memset(b, 0xff, sizeof(b));
	od_undo_ref_encode(&r, b);
	T_CHECK(ts, memcmp(b, want, sizeof(want)) == 0);
	memset(&d, 0, sizeof(d));
	od_undo_ref_decode(b, &d);
	T_CHECK(ts, d.block == r.block && d.copy == r.copy && d.n == r.n &&
		    d.crc == r.crc);
	h.kind = OD_UNDO_REFS;
	h.len = 2 * OD_UNDO_REF_ENT;
	h.seq = 9;
	h.batch = 7;
	od_undo_rec_encode(&h, 42, hb);
	T_CHECK(ts, memcmp(hb, "UREF", 4) == 0);
	T_CHECK(ts, od_undo_rec_decode(hb, sizeof(hb), 42, &g, &field) ==
		    OD_OK && g.kind == OD_UNDO_REFS && g.len == h.len &&
		    g.seq == 9 && g.batch == 7 && !g.end);
	T_CHECK(ts, od_undo_rec_decode(hb, sizeof(hb), 43, &g, &field) ==
		    OD_ECRC);
	h.len = OD_UNDO_REF_ENT + 1;	/* not whole entries */
	od_undo_rec_encode(&h, 42, hb);
	T_CHECK(ts, od_undo_rec_decode(hb, sizeof(hb), 42, &g, &field) ==
		    OD_EFIELD);
	h.len = OD_UNDO_REF_ENT;
	h.off = 4096;			/* references name no offset */
	od_undo_rec_encode(&h, 42, hb);
	T_CHECK(ts, od_undo_rec_decode(hb, sizeof(hb), 42, &g, &field) ==
		    OD_EFIELD);
}

/* A clean log record as mkfs and xfs_repair write it, read back. */
static void test_logrec_clear(struct t_state *ts)
{
	static uint8_t buf[128 * OD_LOG_BBSIZE];
	struct od_logrec_fmt f = { 2, { 0 } };
	struct od_logrec_hdr h;
	struct od_logop_hdr op;
	uint32_t i;

	memset(f.uuid, 0x5a, 16);
	od_logrec_clear_encode(buf, 2, &f, od_log_lsn(7, 0),
			       od_log_lsn(6, 1000));
	T_CHECK(ts, od_logrec_hdr_decode(buf, OD_LOG_BBSIZE, &h) == OD_OK);
	T_CHECK(ts, h.cycle == 7 && h.version == 2 && h.num_logops == 1 &&
		    h.len == OD_LOG_BBSIZE && h.hblks == 1 && h.size == 32768);
	/* xfs_log_format.h: h_lsn, h_tail_lsn, h_prev_block, h_fmt, uuid */
	T_CHECK(ts, od_get_be64(buf + 16) == ((uint64_t)7 << 32));
	T_CHECK(ts, od_get_be64(buf + 24) == ((uint64_t)6 << 32 | 1000));
	T_CHECK(ts, od_get_be32(buf + 36) == 0xffffffffu);
	T_CHECK(ts, od_get_be32(buf + 300) == OD_LOG_FMT_LINUX_LE);
	T_CHECK(ts, buf[304] == 0x5a && buf[319] == 0x5a);
	/* the data block carries the cycle; its first word is in the
	 * header's cycle data, and is the unmount operation's tid */
	T_CHECK(ts, od_log_block_cycle(buf + OD_LOG_BBSIZE, OD_LOG_BBSIZE) == 7);
	memcpy(buf + OD_LOG_BBSIZE, buf + 44, 4);
	T_CHECK(ts, od_logop_hdr_decode(buf + OD_LOG_BBSIZE, OD_LOG_BBSIZE,
					&op) == OD_OK);
	T_CHECK(ts, op.len == 8 && op.clientid == OD_LOG_CLIENT_LOG &&
		    (op.flags & OD_LOG_UNMOUNT_TRANS));
	T_CHECK(ts, buf[OD_LOG_BBSIZE + 12] == 0x6e &&
		    buf[OD_LOG_BBSIZE + 13] == 0x55);

	/* 64 KiB: two header blocks, every block after them of the cycle */
	od_logrec_clear_encode(buf, 128, &f, od_log_lsn(3, 256),
			       od_log_lsn(3, 128));
	T_CHECK(ts, od_logrec_hdr_decode(buf, OD_LOG_BBSIZE, &h) == OD_OK);
	T_CHECK(ts, h.hblks == 2 && h.size == 65536 &&
		    h.len == 126 * OD_LOG_BBSIZE);
	T_CHECK(ts, od_get_be32(buf + OD_LOG_BBSIZE) == 3);	/* xh_cycle */
	for (i = 2; i < 128; i++)
		T_CHECK(ts, od_log_block_cycle(buf + i * OD_LOG_BBSIZE,
					       OD_LOG_BBSIZE) == 3);
}

/* AGFL slots rewritten: the blocks from slot 0, NULLAGBLOCK after. */
static void test_agfl_slots(struct t_state *ts)
{
	struct od_geo g;
	uint8_t buf[512];
	const uint8_t *slots;
	const char *field;
	const uint32_t blocks[3] = { 9, 40000, 12 };
	uint32_t i;

	memset(&g, 0, sizeof(g));
	g.v5 = true;
	g.sectsize = 512;
	memset(g.uuid, 0x33, 16);
	memset(buf, 0, sizeof(buf));
	od_put_be32(buf, OD_AGFL_MAGIC);
	od_put_be32(buf + 4, 5);		/* seqno */
	memcpy(buf + 8, g.uuid, 16);
	od_agfl_set_slots(buf, sizeof(buf), &g, blocks, 3);
	T_CHECK(ts, od_agfl_slots(buf, sizeof(buf), &g, 5, &slots, &field) ==
		    OD_OK);
	for (i = 0; i < od_agfl_size(&g); i++)
		T_CHECK(ts, od_agfl_slot(slots, i) ==
			    (i < 3 ? blocks[i] : OD_NULLAGBLOCK));
	buf[100] ^= 1;
	T_CHECK(ts, od_agfl_slots(buf, sizeof(buf), &g, 5, &slots, &field) ==
		    OD_ECRC);
}

int main(void)
{
	struct t_state ts = { 0, 0 };

	test_rmap_rec(&ts);
	test_rmap_plausible(&ts);
	test_rmap_keys(&ts);
	test_refc(&ts);
	test_alloc_inobt(&ts);
	test_bmdr_ptrs(&ts);
	test_keys(&ts);
	test_logrec(&ts);
	test_logrec_clear(&ts);
	test_agfl_slots(&ts);
	test_undo_entries(&ts);
	test_undo_ref(&ts);
	return t_done(&ts, "test_records");
}
