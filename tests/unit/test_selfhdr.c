/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of ondisk/selfhdr: directory free-index headers (v4 and v5)
 * and v5 remote attribute value headers: a good block, every truncation,
 * bad magic, flipped CRC, wrong uuid, counts out of range.
 */
#include "t.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/dir2.h"
#include "ondisk/selfhdr.h"

#include <string.h>

#define BLK	4096

static void geo(struct od_geo *g, bool v5)
{
	memset(g, 0, sizeof(*g));
	g->v5 = v5;
	memset(g->uuid, 0xab, sizeof(g->uuid));
}

/* A v5 free-index block: blkno 0x1234, owner 131, 3 valid, 2 used. */
static void make_free3(const struct od_geo *g, uint8_t *b)
{
	memset(b, 0, BLK);
	od_put_be32(b, OD_DIR3_FREE_MAGIC);
	od_put_be64(b + 8, 0x1234);
	memcpy(b + 24, g->uuid, 16);
	od_put_be64(b + 40, 131);
	od_put_be32(b + 48, 0);		/* firstdb */
	od_put_be32(b + 52, 3);		/* nvalid */
	od_put_be32(b + 56, 2);		/* nused */
	od_cksum_set(b, BLK, OD_DIR3_FREE_CRC_OFF);
}

static void test_free(struct t_state *ts)
{
	static uint8_t b[BLK];
	struct od_dir_free_hdr h;
	struct od_geo g;
	const char *field;
	size_t len;

	geo(&g, true);
	make_free3(&g, b);
	T_CHECK(ts, od_dir_free_hdr(b, BLK, &g, &h, &field) == OD_OK);
	T_CHECK(ts, h.blkno == 0x1234 && h.owner == 131);
	T_CHECK(ts, h.nvalid == 3 && h.nused == 2 && h.firstdb == 0);
	for (len = 0; len < 64; len++)
		T_CHECK(ts, od_dir_free_hdr(b, len, &g, &h, &field) ==
			    OD_ESHORT);
	b[100] ^= 1;
	T_CHECK(ts, od_dir_free_hdr(b, BLK, &g, &h, &field) == OD_ECRC);
	make_free3(&g, b);
	b[30] ^= 1;			/* uuid */
	od_cksum_set(b, BLK, OD_DIR3_FREE_CRC_OFF);
	T_CHECK(ts, od_dir_free_hdr(b, BLK, &g, &h, &field) == OD_EFIELD);
	make_free3(&g, b);
	od_put_be32(b + 56, 4);		/* nused > nvalid */
	od_cksum_set(b, BLK, OD_DIR3_FREE_CRC_OFF);
	T_CHECK(ts, od_dir_free_hdr(b, BLK, &g, &h, &field) == OD_EFIELD);
	make_free3(&g, b);
	od_put_be32(b, OD_DIR2_FREE_MAGIC);	/* v4 magic on v5 */
	T_CHECK(ts, od_dir_free_hdr(b, BLK, &g, &h, &field) == OD_EMAGIC);

	/* v4: bare header, no CRC */
	geo(&g, false);
	memset(b, 0, BLK);
	od_put_be32(b, OD_DIR2_FREE_MAGIC);
	od_put_be32(b + 4, 2);
	od_put_be32(b + 8, 5);
	od_put_be32(b + 12, 5);
	T_CHECK(ts, od_dir_free_hdr(b, BLK, &g, &h, &field) == OD_OK);
	T_CHECK(ts, h.firstdb == 2 && h.nvalid == 5 && h.nused == 5);
	T_CHECK(ts, od_dir_free_hdr(b, 15, &g, &h, &field) == OD_ESHORT);
}

/* A remote value block: offset 0, 100 bytes, owner 133, blkno 0x88. */
static void make_rmt(const struct od_geo *g, uint8_t *b)
{
	memset(b, 0, BLK);
	od_put_be32(b, OD_ATTR3_RMT_MAGIC);
	od_put_be32(b + 4, 0);
	od_put_be32(b + 8, 100);
	memcpy(b + 16, g->uuid, 16);
	od_put_be64(b + 32, 133);
	od_put_be64(b + 40, 0x88);
	od_cksum_set(b, BLK, OD_ATTR3_RMT_CRC_OFF);
}

static void test_rmt(struct t_state *ts)
{
	static uint8_t b[BLK];
	struct od_attr_rmt_hdr h;
	struct od_geo g;
	const char *field;
	size_t len;

	geo(&g, true);
	make_rmt(&g, b);
	T_CHECK(ts, od_attr_rmt_hdr(b, BLK, &g, &h, &field) == OD_OK);
	T_CHECK(ts, h.offset == 0 && h.bytes == 100);
	T_CHECK(ts, h.owner == 133 && h.blkno == 0x88);
	for (len = 0; len < OD_ATTR3_RMT_HDR_LEN; len++)
		T_CHECK(ts, od_attr_rmt_hdr(b, len, &g, &h, &field) ==
			    OD_ESHORT);
	b[4000] ^= 0x80;
	T_CHECK(ts, od_attr_rmt_hdr(b, BLK, &g, &h, &field) == OD_ECRC);
	make_rmt(&g, b);
	b[0] ^= 1;
	T_CHECK(ts, od_attr_rmt_hdr(b, BLK, &g, &h, &field) == OD_EMAGIC);
	make_rmt(&g, b);
	b[20] ^= 1;			/* uuid */
	od_cksum_set(b, BLK, OD_ATTR3_RMT_CRC_OFF);
	T_CHECK(ts, od_attr_rmt_hdr(b, BLK, &g, &h, &field) == OD_EFIELD);
	make_rmt(&g, b);
	od_put_be32(b + 8, BLK);	/* more bytes than the block holds */
	od_cksum_set(b, BLK, OD_ATTR3_RMT_CRC_OFF);
	T_CHECK(ts, od_attr_rmt_hdr(b, BLK, &g, &h, &field) == OD_EFIELD);
}

/* Finding a v5 block's own address by magic, and restamping it. */
static void test_selfaddr(struct t_state *ts)
{
	static uint8_t b[BLK];
	struct od_geo g;
	struct od_selfaddr a;
	struct od_dir_free_hdr h;
	const char *field;

	geo(&g, true);
	make_free3(&g, b);
	T_CHECK(ts, od_selfaddr_find(b, BLK, OD_SELF_DIR, &a));
	T_CHECK(ts, !od_selfaddr_find(b, BLK, OD_SELF_ATTR, &a));
	T_CHECK(ts, !od_selfaddr_find(b, BLK, OD_SELF_SYMLINK, &a));
	T_CHECK(ts, od_selfaddr_find(b, BLK, OD_SELF_DIR, &a) &&
		    od_selfaddr_get(b, &a) == 0x1234);
	od_selfaddr_set(b, BLK, &a, 0x5678);
	T_CHECK(ts, od_dir_free_hdr(b, BLK, &g, &h, &field) == OD_OK &&
		    h.blkno == 0x5678);
	/* a remote attribute value block: blkno at 40, crc at 12 */
	make_rmt(&g, b);
	T_CHECK(ts, od_selfaddr_find(b, BLK, OD_SELF_ATTR, &a) &&
		    a.blkno_off == 40 && a.crc_off == OD_ATTR3_RMT_CRC_OFF);
	T_CHECK(ts, !od_selfaddr_find(b, BLK, OD_SELF_DIR, &a));
	/* dabtree nodes serve both forks; leaves only their own */
	memset(b, 0, BLK);
	od_put_be16(b + 8, 0x3ebe);		/* da3 node */
	T_CHECK(ts, od_selfaddr_find(b, BLK, OD_SELF_DIR, &a) &&
		    a.blkno_off == 16 && a.crc_off == 12);
	T_CHECK(ts, od_selfaddr_find(b, BLK, OD_SELF_ATTR, &a));
	od_put_be16(b + 8, 0x3bee);		/* attr3 leaf */
	T_CHECK(ts, od_selfaddr_find(b, BLK, OD_SELF_ATTR, &a));
	T_CHECK(ts, !od_selfaddr_find(b, BLK, OD_SELF_DIR, &a));
	od_put_be16(b + 8, 0x3df1);		/* dir3 leaf1 */
	T_CHECK(ts, od_selfaddr_find(b, BLK, OD_SELF_DIR, &a));
	/* v4 magics carry no address */
	od_put_be16(b + 8, 0xd2f1);
	T_CHECK(ts, !od_selfaddr_find(b, BLK, OD_SELF_DIR, &a));
	/* symlinks: "XSLM", blkno at 40 */
	memset(b, 0, BLK);
	od_put_be32(b, 0x58534c4du);
	od_put_be64(b + 40, 99);
	T_CHECK(ts, od_selfaddr_find(b, BLK, OD_SELF_SYMLINK, &a) &&
		    od_selfaddr_get(b, &a) == 99);
	od_selfaddr_set(b, BLK, &a, 100);
	T_CHECK(ts, od_get_be64(b + 40) == 100 &&
		    od_cksum_ok(b, BLK, a.crc_off));
	T_CHECK(ts, !od_selfaddr_find(b, 55, OD_SELF_SYMLINK, &a));
}

int main(void)
{
	struct t_state ts = { 0, 0 };

	test_free(&ts);
	test_rmt(&ts);
	test_selfaddr(&ts);
	return t_done(&ts, "test_selfhdr");
}
