/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of ondisk/renum, the encoders of inode renumbering: a free
 * inode for a new chunk (v5 and v4), di_ino and its CRC, shortform
 * directories (renumbered in place; 8-byte numbers shrinking to 4 with
 * di_size; kept wide while one still needs 8 bytes; refusing to widen;
 * ftype on and off), directory data blocks ("." and ".." too, owner,
 * CRC; a damaged block refused), the owner of every v5 header kind, and
 * of bmbt blocks.
 */
#include "t.h"
#include "ondisk/be.h"
#include "ondisk/btree.h"
#include "ondisk/crc32c.h"
#include "ondisk/da.h"
#include "ondisk/dir2.h"
#include "ondisk/inode.h"
#include "ondisk/renum.h"
#include "ondisk/symlink.h"

#include <errno.h>
#include <string.h>

#define BLK	4096
#define BIG	0x100000080ull	/* needs 8 bytes */

static void geo(struct od_geo *g, bool v5)
{
	memset(g, 0, sizeof(*g));
	g->v5 = v5;
	g->ftype = true;
	g->inodesize = 512;
	memset(g->uuid, 0xab, sizeof(g->uuid));
}

/* map: 128 -> 200, 131 -> 300, BIG -> 140, BIG+1 -> BIG+7; rest stay */
static uint64_t map(void *priv, uint64_t ino)
{
	(void)priv;
	switch (ino) {
	case 128: return 200;
	case 131: return 300;
	case BIG: return 140;
	case BIG + 1: return BIG + 7;
	default: return ino;
	}
}

/* map that would move a small number above 2^32 */
static uint64_t map_up(void *priv, uint64_t ino)
{
	(void)priv;
	return ino == 131 ? BIG : ino;
}

static void test_free_inode(struct t_state *ts)
{
	struct od_geo g;
	uint8_t b[512];
	struct od_inode di;
	const char *field;

	geo(&g, true);
	memset(b, 0x5a, sizeof(b));
	od_dinode_init_free(b, sizeof(b), &g, 4242, 7);
	T_CHECK(ts, od_get_be16(b) == OD_DINODE_MAGIC);
	T_CHECK(ts, b[4] == 3);
	T_CHECK(ts, od_get_be16(b + 2) == 0);		/* mode */
	T_CHECK(ts, od_get_be32(b + 96) == OD_NULLAGINO);
	T_CHECK(ts, od_dinode_gen(b) == 7);
	T_CHECK(ts, od_get_be64(b + OD_DINODE_V3_INO_OFF) == 4242);
	T_CHECK(ts, memcmp(b + OD_DINODE_V3_UUID_OFF, g.uuid, 16) == 0);
	T_CHECK(ts, od_cksum_ok(b, sizeof(b), OD_DINODE_CRC_OFF));
	T_CHECK(ts, b[300] == 0);			/* literal area zeroed */
	od_inode_core(b, &g, 4242, &di);
	T_CHECK(ts, di.mode == 0 && di.di_ino == 4242 && di.uuid_ok);
	(void)field;
	/* di_ino moves, the CRC follows */
	od_dinode_set_ino(b, sizeof(b), &g, 5000);
	T_CHECK(ts, od_get_be64(b + OD_DINODE_V3_INO_OFF) == 5000);
	T_CHECK(ts, od_cksum_ok(b, sizeof(b), OD_DINODE_CRC_OFF));
	/* v4: version 2, no v3 fields, set_ino leaves it alone */
	geo(&g, false);
	g.inodesize = 256;
	memset(b, 0x5a, sizeof(b));
	od_dinode_init_free(b, 256, &g, 99, 1);
	T_CHECK(ts, b[4] == 2 && od_get_be32(b + 96) == OD_NULLAGINO);
	T_CHECK(ts, od_get_be64(b + OD_DINODE_V3_INO_OFF) == 0);
	od_dinode_set_ino(b, 256, &g, 100);
	T_CHECK(ts, od_get_be64(b + OD_DINODE_V3_INO_OFF) == 0);
	T_CHECK(ts, b[300] == 0x5a);			/* only len bytes */
	od_dinode_set_size(b, 0x1234);
	T_CHECK(ts, od_get_be64(b + 56) == 0x1234);
}

/* A shortform directory: parent, then (name, ino) entries. */
static uint32_t make_sf(uint8_t *f, bool wide, bool ftype, uint64_t parent,
			const char *const *names, const uint64_t *inos,
			unsigned n)
{
	uint32_t p, i8 = parent > OD_DIR2_MAX_SHORT_INUM, off = 0x60;
	unsigned i;

	for (i = 0; i < n; i++)
		i8 += inos[i] > OD_DIR2_MAX_SHORT_INUM;
	memset(f, 0xee, 1024);
	f[0] = (uint8_t)n;
	f[1] = wide ? (uint8_t)i8 : 0;
	if (wide)
		od_put_be64(f + 2, parent);
	else
		od_put_be32(f + 2, (uint32_t)parent);
	p = wide ? 10 : 6;
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]);

		f[p] = (uint8_t)l;
		od_put_be16(f + p + 1, (uint16_t)off);
		memcpy(f + p + 3, names[i], l);
		p += 3 + (uint32_t)l;
		if (ftype)
			f[p++] = OD_FT_REG_FILE;
		if (wide)
			od_put_be64(f + p, inos[i]);
		else
			od_put_be32(f + p, (uint32_t)inos[i]);
		p += wide ? 8 : 4;
		off += 16;
	}
	return p;
}

/* Decode sf and compare with the expected numbers and names. */
static bool sf_is(const uint8_t *f, uint32_t size, bool ftype, bool wide,
		  uint64_t parent, const char *const *names,
		  const uint64_t *inos, unsigned n)
{
	struct od_dir2_sf h;
	const char *field;
	uint32_t pos;
	unsigned i;

	if (od_dir2_sf_hdr(f, size, &h, &field) != OD_OK || h.count != n ||
	    h.parent != parent || (h.i8count != 0) != wide)
		return false;
	pos = h.hdr_len;
	for (i = 0; i < n; i++) {
		struct od_dirent de;

		if (od_dir2_sf_entry(f, size, &h, ftype, &pos, &de, &field) !=
		    OD_OK || de.ino != inos[i] ||
		    de.namelen != strlen(names[i]) ||
		    memcmp(de.name, names[i], de.namelen) ||
		    de.offset != 0x60 + 16 * i ||
		    (ftype && de.ftype != OD_FT_REG_FILE))
			return false;
	}
	return pos == size;
}

static void test_sf(struct t_state *ts)
{
	static const char *const names[] = { "a", "bcd", "efghij" };
	uint8_t f[1024];
	uint32_t size, size0;
	int ft;

	for (ft = 0; ft < 2; ft++) {
		bool ftype = ft;
		const uint64_t in4[] = { 128, 133, 131 };
		const uint64_t out4[] = { 200, 133, 300 };
		const uint64_t in8[] = { BIG, 133, 131 };
		const uint64_t out8[] = { 140, 133, 300 };
		const uint64_t in8b[] = { BIG, BIG + 1, 128 };
		const uint64_t out8b[] = { 140, BIG + 7, 200 };

		/* 4-byte: renumbered in place, same size */
		size = size0 = make_sf(f, false, ftype, 128, names, in4, 3);
		T_CHECK(ts, od_dir2_sf_renumber(f, sizeof(f), &size, ftype,
						map, NULL) == 1);
		T_CHECK(ts, size == size0);
		T_CHECK(ts, sf_is(f, size, ftype, false, 200, names, out4, 3));
		T_CHECK(ts, f[size] == 0xee);	/* past the fork untouched */
		/* nothing to do: 0, unchanged */
		T_CHECK(ts, od_dir2_sf_renumber(f, sizeof(f), &size, ftype,
						map, NULL) == 0);
		/* 8-byte, the only big number becomes small: shrinks by
		 * 4 per entry and for the parent, tail zeroed */
		size = size0 = make_sf(f, true, ftype, 133, names, in8, 3);
		T_CHECK(ts, od_dir2_sf_renumber(f, sizeof(f), &size, ftype,
						map, NULL) == 1);
		T_CHECK(ts, size == size0 - 16);
		T_CHECK(ts, sf_is(f, size, ftype, false, 133, names, out8, 3));
		T_CHECK(ts, f[size] == 0 && f[size0 - 1] == 0 &&
			    f[size0] == 0xee);
		/* 8-byte, one stays big: stays wide, i8count 1 */
		size = size0 = make_sf(f, true, ftype, BIG, names, in8b, 3);
		T_CHECK(ts, f[1] == 3);
		T_CHECK(ts, od_dir2_sf_renumber(f, sizeof(f), &size, ftype,
						map, NULL) == 1);
		T_CHECK(ts, size == size0 && f[1] == 1);
		T_CHECK(ts, sf_is(f, size, ftype, true, 140, names, out8b, 3));
		/* 8-byte parent only: the parent counts in i8count */
		size = size0 = make_sf(f, true, ftype, BIG + 1, names, in4, 3);
		T_CHECK(ts, f[1] == 1);
		T_CHECK(ts, od_dir2_sf_renumber(f, sizeof(f), &size, ftype,
						map, NULL) == 1);
		T_CHECK(ts, size == size0 && f[1] == 1);
		/* empty, under a parent above 2^32: count 0, i8count 1;
		 * the parent moves below: 6 bytes, 4-byte form */
		size = size0 = make_sf(f, true, ftype, BIG, names, in4, 0);
		T_CHECK(ts, size == 10 && f[0] == 0 && f[1] == 1);
		T_CHECK(ts, od_dir2_sf_renumber(f, sizeof(f), &size, ftype,
						map, NULL) == 1);
		T_CHECK(ts, size == 6 && f[1] == 0 && od_get_be32(f + 2) == 140);
		T_CHECK(ts, sf_is(f, size, ftype, false, 140, names, in4, 0));
				/* a 4-byte directory cannot take an 8-byte number */
		size = size0 = make_sf(f, false, ftype, 128, names, in4, 3);
		T_CHECK(ts, od_dir2_sf_renumber(f, sizeof(f), &size, ftype,
						map_up, NULL) == -EOVERFLOW);
		T_CHECK(ts, size == size0 &&
			    sf_is(f, size, ftype, false, 128, names, in4, 3));
		/* damaged: i8count > count, size past the room */
		size = make_sf(f, true, ftype, 133, names, in8, 3);
		f[1] = 9;
		T_CHECK(ts, od_dir2_sf_renumber(f, sizeof(f), &size, ftype,
						map, NULL) == -EUCLEAN);
		size = make_sf(f, false, ftype, 128, names, in4, 3);
		T_CHECK(ts, od_dir2_sf_renumber(f, size - 1, &size, ftype,
						map, NULL) == -EUCLEAN);
		size = make_sf(f, false, ftype, 128, names, in4, 3) - 2;
		T_CHECK(ts, od_dir2_sf_renumber(f, sizeof(f), &size, ftype,
						map, NULL) == -EUCLEAN);
	}
}

static uint32_t put_ent(uint8_t *b, uint32_t p, uint64_t ino, const char *nm)
{
	uint32_t l = (uint32_t)strlen(nm), sz = od_dir2_data_entsize(true, l);

	od_put_be64(b + p, ino);
	b[p + 8] = (uint8_t)l;
	memcpy(b + p + 9, nm, l);
	b[p + 9 + l] = OD_FT_DIR;
	od_put_be16(b + p + sz - 2, (uint16_t)p);
	return p + sz;
}

/* v5 data block of directory 128 (".", "..", "x", "y"), free tail. */
static void make_data(const struct od_geo *g, uint8_t *b)
{
	uint32_t p = 64;

	memset(b, 0, BLK);
	od_put_be32(b, OD_DIR3_DATA_MAGIC);
	od_put_be64(b + 8, 0x88);
	memcpy(b + 24, g->uuid, 16);
	od_put_be64(b + 40, 128);
	p = put_ent(b, p, 128, ".");
	p = put_ent(b, p, 64, "..");
	p = put_ent(b, p, 131, "x");
	p = put_ent(b, p, 135, "y");
	od_put_be16(b + p, OD_DIR2_DATA_FREE_TAG);
	od_put_be16(b + p + 2, (uint16_t)(BLK - p));
	od_put_be16(b + BLK - 2, (uint16_t)p);
	od_put_be16(b + 48, (uint16_t)p);
	od_put_be16(b + 50, (uint16_t)(BLK - p));
	od_cksum_set(b, BLK, OD_DIR3_DATA_CRC_OFF);
}

static void test_data(struct t_state *ts)
{
	static uint8_t b[BLK], c[BLK];
	const uint64_t want[] = { 200, 64, 300, 135 };
	struct od_dir2_data_hdr h;
	struct od_geo g;
	const char *field;
	uint32_t pos;
	unsigned i = 0;

	geo(&g, true);
	make_data(&g, b);
	memcpy(c, b, BLK);
	T_CHECK(ts, od_dir2_data_renumber(b, BLK, &g, map, NULL, 200) == 1);
	T_CHECK(ts, od_dir2_data_hdr(b, BLK, &g, &h, &field) == OD_OK);
	T_CHECK(ts, h.owner == 200 && h.blkno == 0x88);
	for (pos = h.hdr_len; pos < h.end;) {
		struct od_dirent de;
		bool unused;

		if (od_dir2_data_entry(b, &h, true, &pos, &de, &unused,
				       &field) != OD_OK)
			break;
		if (!unused && i < 4)
			T_CHECK(ts, de.ino == want[i++]);
	}
	T_CHECK(ts, i == 4 && pos == BLK);
	/* again: nothing left to change */
	T_CHECK(ts, od_dir2_data_renumber(b, BLK, &g, map, NULL, 200) == 0);
	/* owner 0 leaves the owner; entries still renumbered */
	memcpy(b, c, BLK);
	T_CHECK(ts, od_dir2_data_renumber(b, BLK, &g, map, NULL, 0) == 1);
	T_CHECK(ts, od_get_be64(b + 40) == 128 &&
		    od_cksum_ok(b, BLK, OD_DIR3_DATA_CRC_OFF));
	/* a bad CRC, a broken tag: refused, block untouched */
	memcpy(b, c, BLK);
	b[100] ^= 1;
	T_CHECK(ts, od_dir2_data_renumber(b, BLK, &g, map, NULL, 200) < 0);
	memcpy(b, c, BLK);
	od_put_be16(b + 64 + 14, 3);
	od_cksum_set(b, BLK, OD_DIR3_DATA_CRC_OFF);
	memcpy(c, b, BLK);
	T_CHECK(ts, od_dir2_data_renumber(b, BLK, &g, map, NULL, 200) < 0);
	T_CHECK(ts, memcmp(b, c, BLK) == 0);
	/* v4 (XD2D, 16-byte header): entries only, no CRC or owner */
	geo(&g, false);
	memset(b, 0, BLK);
	od_put_be32(b, OD_DIR2_DATA_MAGIC);
	pos = put_ent(b, 16, 131, "x");
	od_put_be16(b + pos, OD_DIR2_DATA_FREE_TAG);
	od_put_be16(b + pos + 2, (uint16_t)(BLK - pos));
	od_put_be16(b + BLK - 2, (uint16_t)pos);
	T_CHECK(ts, od_dir2_data_renumber(b, BLK, &g, map, NULL, 999) == 1);
	T_CHECK(ts, od_get_be64(b + 16) == 300 && od_get_be64(b + 40) == 0);
}

static void test_owner(struct t_state *ts)
{
	static uint8_t b[BLK];
	struct {
		uint32_t m32;
		uint16_t m16;
		enum od_self_fork f;
		size_t owner, crc;
	} k[] = {
		{ OD_DIR3_DATA_MAGIC, 0, OD_SELF_DIR, 40, 4 },
		{ OD_DIR3_BLOCK_MAGIC, 0, OD_SELF_DIR, 40, 4 },
		{ OD_DIR3_FREE_MAGIC, 0, OD_SELF_DIR, 40, 4 },
		{ 0, OD_DIR3_LEAF1_MAGIC, OD_SELF_DIR, 48, 12 },
		{ 0, OD_DIR3_LEAFN_MAGIC, OD_SELF_DIR, 48, 12 },
		{ 0, OD_DA3_NODE_MAGIC, OD_SELF_DIR, 48, 12 },
		{ 0, OD_DA3_NODE_MAGIC, OD_SELF_ATTR, 48, 12 },
		{ 0, OD_ATTR3_LEAF_MAGIC, OD_SELF_ATTR, 48, 12 },
		{ OD_ATTR3_RMT_MAGIC, 0, OD_SELF_ATTR, 32, 12 },
		{ OD_SYMLINK_MAGIC, 0, OD_SELF_SYMLINK, 32, 12 },
	};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		memset(b, 0x11, BLK);
		if (k[i].m32)
			od_put_be32(b, k[i].m32);
		else
			od_put_be16(b + 8, k[i].m16);
		T_CHECK(ts, od_selfowner_set(b, BLK, k[i].f, 777) == 1);
		T_CHECK(ts, od_get_be64(b + k[i].owner) == 777);
		T_CHECK(ts, od_cksum_ok(b, BLK, k[i].crc));
		T_CHECK(ts, od_selfowner_set(b, BLK, k[i].f, 777) == 0);
	}
	/* a leaf magic under the wrong fork, no magic at all */
	memset(b, 0, BLK);
	od_put_be16(b + 8, OD_ATTR3_LEAF_MAGIC);
	T_CHECK(ts, od_selfowner_set(b, BLK, OD_SELF_DIR, 5) == -EINVAL);
	memset(b, 0, BLK);
	T_CHECK(ts, od_selfowner_set(b, BLK, OD_SELF_ATTR, 5) == -EINVAL);
	/* bmbt: BMA3, owner after the uuid, CRC at 64 */
	memset(b, 0x22, BLK);
	od_put_be32(b, OD_BMAP3_MAGIC);
	T_CHECK(ts, od_bmbt_block_set_owner(b, BLK, 4242) == 1);
	T_CHECK(ts, od_get_be64(b + 56) == 4242);
	T_CHECK(ts, od_cksum_ok(b, BLK, OD_LBLOCK_CRC_OFF));
	T_CHECK(ts, od_bmbt_block_set_owner(b, BLK, 4242) == 0);
	od_put_be32(b, OD_BMAP_MAGIC);
	T_CHECK(ts, od_bmbt_block_set_owner(b, BLK, 1) == -EINVAL);
	T_CHECK(ts, od_bmbt_block_set_owner(b, 16, 1) == -EINVAL);
}

int main(void)
{
	struct t_state ts = { 0, 0 };

	test_free_inode(&ts);
	test_sf(&ts);
	test_data(&ts);
	test_owner(&ts);
	return t_done(&ts, "test_renum");
}
