/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of what parent pointers and metadir add to ondisk/: the
 * parent pointer's hash (against values xfs_db 6.15 printed from the
 * parent fixture), value and name rules; an attr leaf block built from
 * items (od_attr_leaf_fill) read back by the decoder the checker uses;
 * a da node's hash set; the superblock's metadir and zoned fields at
 * their offsets.
 */
#include "t.h"
#include "ondisk/attr.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/da.h"
#include "ondisk/pptr.h"
#include "ondisk/sb.h"

#include <errno.h>
#include <string.h>

static void geo(struct od_geo *g)
{
	memset(g, 0, sizeof(*g));
	g->v5 = true;
	g->blocksize = 4096;
	g->blocklog = 12;
	g->inodesize = 512;
	memset(g->uuid, 0x5a, sizeof(g->uuid));
}

static void test_hash(struct t_state *ts)
{
	static const char n1[] = "leaf-entry-with-a-longer-name-373";
	uint8_t v[OD_PPTR_REC_LEN];
	struct od_pptr_rec r = { 0x123456789abcdef0ull, 0xdeadbeef }, r2;
	char big[300];

	/* xfs_db 6.15 on the parent fixture: dirs/dleaf/target's attr
	 * block 1, entry 3, parent_dir.inumber 173 */
	T_CHECK(ts, od_pptr_hash((const uint8_t *)n1, strlen(n1), 173,
				 false) == 0xd7ff2062u);
	/* both halves of the parent's number are mixed in */
	T_CHECK(ts, od_pptr_hash((const uint8_t *)n1, strlen(n1),
				 173 | (1ull << 32), false) ==
		    (0xd7ff2062u ^ 1u));
	od_pptr_encode(v, &r);
	T_CHECK(ts, od_get_be64(v) == r.ino && od_get_be32(v + 8) == r.gen);
	T_CHECK(ts, od_pptr_decode(v, sizeof(v), &r2) && r2.ino == r.ino &&
		    r2.gen == r.gen);
	T_CHECK(ts, !od_pptr_decode(v, 11, &r2) && !od_pptr_decode(v, 13, &r2));
	memset(big, 'a', sizeof(big));
	T_CHECK(ts, od_pptr_name_ok((const uint8_t *)big, 255));
	T_CHECK(ts, !od_pptr_name_ok((const uint8_t *)big, 256));
	T_CHECK(ts, !od_pptr_name_ok((const uint8_t *)"a/b", 3));
	T_CHECK(ts, !od_pptr_name_ok((const uint8_t *)"a\0b", 3));
	T_CHECK(ts, !od_pptr_name_ok((const uint8_t *)"", 0));
}

/* A v5 attr leaf header, empty: forw, back, magic, owner. */
static void leaf_init(uint8_t *b, size_t len)
{
	memset(b, 0xee, len);	/* stale bytes the fill must clear */
	memset(b, 0, OD_DA3_BLKINFO_LEN);
	od_put_be32(b, 7);
	od_put_be16(b + 8, OD_ATTR3_LEAF_MAGIC);
	memset(b + 32, 0x5a, 16);	/* uuid, as geo's */
	od_put_be64(b + 48, 4242);	/* owner */
}

static void test_leaf_fill(struct t_state *ts)
{
	static uint8_t buf[4096];
	static const uint8_t val[OD_PPTR_REC_LEN] = { 0, 0, 0, 0, 0, 0, 0, 173,
						      1, 2, 3, 4 };
	struct od_attr_item it[3];
	struct od_attr_leaf_hdr h;
	struct od_attr_leaf_ent e;
	uint8_t nv[3][64];
	struct od_geo g;
	const char *field;
	uint32_t i, used = 0, first = 4096;

	geo(&g);
	leaf_init(buf, sizeof(buf));
	memset(it, 0, sizeof(it));
	/* a parent pointer, a user attribute, a remote value */
	memcpy(nv[0], "f11", 3);
	memcpy(nv[0] + 3, val, sizeof(val));
	it[0] = (struct od_attr_item){ 0x10, OD_ATTR_LOCAL | OD_ATTR_PARENT,
				       3, 12, 0, nv[0] };
	memcpy(nv[1], "userattrvalue", 13);
	it[1] = (struct od_attr_item){ 0x20, OD_ATTR_LOCAL, 8, 5, 0, nv[1] };
	memcpy(nv[2], "remote", 6);
	it[2] = (struct od_attr_item){ 0x30, 0, 6, 70000, 9, nv[2] };
	T_CHECK(ts, od_attr_leaf_fill(buf, sizeof(buf), &g, it, 3) == 0);
	T_CHECK(ts, od_cksum_ok(buf, sizeof(buf), OD_DA3_CRC_OFF));
	T_CHECK(ts, od_get_be32(buf) == 7 && od_get_be64(buf + 48) == 4242);
	T_CHECK(ts, od_attr_leaf_hdr(buf, sizeof(buf), &g, &h, &field) ==
		    OD_OK);
	T_CHECK(ts, h.count == 3 && h.hdr_len == 80 && h.holes == 0);
	for (i = 0; i < h.count; i++) {
		od_attr_leaf_entry(buf, &h, i, &e);
		T_CHECK(ts, od_attr_leaf_name(buf, sizeof(buf), &e) == OD_OK);
		T_CHECK(ts, e.hash == it[i].hash && e.flags == it[i].flags &&
			    e.namelen == it[i].namelen &&
			    e.valuelen == it[i].valuelen &&
			    !memcmp(e.name, it[i].name, e.namelen));
		if (i == 0)
			T_CHECK(ts, !memcmp(e.name + 3, val, sizeof(val)));
		if (i == 2)
			T_CHECK(ts, e.valueblk == 9);
		used += e.size;
		if (e.nameidx < first)
			first = e.nameidx;
	}
	T_CHECK(ts, h.usedbytes == used && h.firstused == first);
	/* the free map covers the gap, nothing else */
	T_CHECK(ts, h.free_base[0] == 80 + 8 * 3 &&
		    h.free_base[0] + h.free_size[0] == first &&
		    !h.free_size[1] && !h.free_size[2]);
	for (i = h.free_base[0]; i < first; i++)
		if (buf[i])
			break;
	T_CHECK(ts, i == first);
	/* too much for one block; not a leaf */
	{
		static uint8_t big[4096];
		struct od_attr_item many[80];

		memset(big, 'x', sizeof(big));
		for (i = 0; i < 80; i++)
			many[i] = (struct od_attr_item){ i, OD_ATTR_LOCAL, 40,
							 20, 0, big };
		leaf_init(buf, sizeof(buf));
		T_CHECK(ts, od_attr_leaf_fill(buf, sizeof(buf), &g, many, 80) ==
			    -ENOSPC);
		T_CHECK(ts, od_attr_leaf_fill(buf, sizeof(buf), &g, many, 50) ==
			    0);
		od_put_be16(buf + 8, OD_DA3_NODE_MAGIC);
		T_CHECK(ts, od_attr_leaf_fill(buf, sizeof(buf), &g, many, 1) ==
			    -EINVAL);
	}
}

static void test_node_hash(struct t_state *ts)
{
	static uint8_t buf[4096];
	struct od_da_node n;
	struct od_geo g;
	const char *field;
	uint32_t h, b;

	geo(&g);
	memset(buf, 0, sizeof(buf));
	od_put_be16(buf + 8, OD_DA3_NODE_MAGIC);
	memcpy(buf + 32, g.uuid, 16);
	od_put_be16(buf + 56, 2);	/* count */
	od_put_be16(buf + 58, 1);	/* level */
	od_put_be32(buf + 64, 100);
	od_put_be32(buf + 68, 1);
	od_put_be32(buf + 72, 200);
	od_put_be32(buf + 76, 2);
	od_cksum_set(buf, sizeof(buf), OD_DA3_CRC_OFF);
	T_CHECK(ts, od_da_node_decode(buf, sizeof(buf), &g, &n, &field) ==
		    OD_OK);
	od_da_node_set_hash(buf, &n, 1, 250);
	od_da_node_entry(buf, &n, 1, &h, &b);
	T_CHECK(ts, h == 250 && b == 2);
	od_da_node_entry(buf, &n, 0, &h, &b);
	T_CHECK(ts, h == 100 && b == 1);
}

static void test_sb_metadir(struct t_state *ts)
{
	static uint8_t buf[512];
	struct od_sb sb, back;

	memset(&sb, 0, sizeof(sb));
	sb.magicnum = OD_SB_MAGIC;
	sb.versionnum = 0xb4a5;
	sb.sectsize = 512;
	sb.features_incompat = OD_INCOMPAT_METADIR | OD_INCOMPAT_ZONED;
	sb.metadirino = 129;
	sb.rgcount = 4;
	sb.rgextents = 16384;
	sb.rgblklog = 14;
	sb.rtstart = 98304;
	sb.rtreserved = 77;
	T_CHECK(ts, od_sb_encode(&sb, buf, sizeof(buf)) == OD_OK);
	/* xfs_format.h: struct xfs_dsb */
	T_CHECK(ts, od_get_be64(buf + 264) == 129 &&
		    od_get_be32(buf + 272) == 4 &&
		    od_get_be32(buf + 276) == 16384 && buf[280] == 14 &&
		    od_get_be64(buf + 288) == 98304 &&
		    od_get_be64(buf + 296) == 77);
	T_CHECK(ts, od_sb_decode(buf, sizeof(buf), &back) == OD_OK &&
		    back.metadirino == 129 && back.rgcount == 4 &&
		    back.rgextents == 16384 && back.rgblklog == 14 &&
		    back.rtstart == 98304 && back.rtreserved == 77);
	T_CHECK(ts, od_sb_has_metadir(&back) && od_sb_has_zoned(&back) &&
		    od_sb_has_rtgroups(&back) && !od_sb_has_parent(&back));
	/* a buffer ending at sb_meta_uuid: the rest reads as zero */
	T_CHECK(ts, od_sb_decode(buf, OD_SB_V5_LEN, &back) == OD_OK &&
		    back.metadirino == 0 && back.rtreserved == 0);
}

int main(void)
{
	struct t_state ts = { 0, 0 };

	test_hash(&ts);
	test_leaf_fill(&ts);
	test_node_hash(&ts);
	test_sb_metadir(&ts);
	return t_done(&ts, "test_pptr");
}
