/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the decoders the checker's attribute and inode rules
 * read through: shortform attribute lists and attr leaf blocks
 * (ondisk/attr.c) and the validation-free inode core decode
 * (od_inode_core): valid input, every truncation, fields that must be
 * zero, names that run past the block, a v5 leaf's CRC.
 */
#include "t.h"
#include "ondisk/attr.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/inode.h"

#include <string.h>

static void geo(struct od_geo *g, bool v5)
{
	memset(g, 0, sizeof(*g));
	g->v5 = v5;
	g->blocksize = 4096;
	g->blocklog = 12;
	g->inodesize = 512;
	memset(g->uuid, 0x5a, sizeof(g->uuid));
}

static void test_sf(struct t_state *ts)
{
	uint8_t fork[64] = { 0 };
	struct od_attr_sf_hdr h;
	struct od_attr_sf_ent e;
	uint32_t pos, len;

	/* header, then "ab"=1 (root), "c"=xyz */
	od_put_be16(fork, 4 + 3 + 3 + 3 + 4);
	fork[2] = 2;
	memcpy(fork + 4, "\x02\x01\x02" "ab" "1", 6);
	memcpy(fork + 10, "\x01\x03\x00" "c" "xyz", 7);
	T_CHECK(ts, od_attr_sf_hdr(fork, sizeof(fork), &h) == OD_OK);
	T_CHECK(ts, h.totsize == 17 && h.count == 2);
	{
		struct od_attr_sf_hdr h2;

		T_CHECK(ts, od_attr_sf_hdr(fork, 3, &h2) == OD_ESHORT);
	}
	pos = OD_ATTR_SF_HDR_LEN;
	T_CHECK(ts, od_attr_sf_entry(fork, h.totsize, &pos, &e) == OD_OK);
	T_CHECK(ts, e.namelen == 2 && e.valuelen == 1 &&
		e.flags == OD_ATTR_ROOT && !memcmp(e.name, "ab", 2) &&
		e.size == 6 && pos == 10);
	T_CHECK(ts, od_attr_sf_entry(fork, h.totsize, &pos, &e) == OD_OK);
	T_CHECK(ts, e.namelen == 1 && e.valuelen == 3 && pos == 17);
	/* every shorter end cuts the second entry */
	for (len = 10; len < 17; len++) {
		pos = 10;
		T_CHECK(ts, od_attr_sf_entry(fork, len, &pos, &e) == OD_ESHORT &&
			pos == 10);
	}
}

/* A leaf block: entries "name" (local, value "v") and "remote" (value
 * at fork block 1, 100 bytes), names packed at the end. */
static void make_leaf(uint8_t *b, const struct od_geo *g)
{
	uint32_t hl = g->v5 ? 80 : 32, off = g->v5 ? 56 : 12;
	uint32_t r = 4096 - od_attr_remote_size(6);
	uint32_t l = r - od_attr_local_size(4, 1);

	memset(b, 0, 4096);
	od_put_be16(b + 8, g->v5 ? OD_ATTR3_LEAF_MAGIC : OD_ATTR_LEAF_MAGIC);
	if (g->v5)
		memcpy(b + 32, g->uuid, 16);
	od_put_be16(b + off, 2);				/* count */
	od_put_be16(b + off + 2, 4096 - l);			/* usedbytes */
	od_put_be16(b + off + 4, (uint16_t)l);			/* firstused */
	od_put_be16(b + off + 8, (uint16_t)(hl + 16));		/* freemap */
	od_put_be16(b + off + 10, (uint16_t)(l - hl - 16));
	od_put_be32(b + hl, 0x1234);				/* entry 0 */
	od_put_be16(b + hl + 4, (uint16_t)l);
	b[hl + 6] = OD_ATTR_LOCAL;
	od_put_be32(b + hl + 8, 0x5678);			/* entry 1 */
	od_put_be16(b + hl + 12, (uint16_t)r);
	od_put_be16(b + l, 1);					/* local */
	b[l + 2] = 4;
	memcpy(b + l + 3, "namev", 5);
	od_put_be32(b + r, 1);					/* remote */
	od_put_be32(b + r + 4, 100);
	b[r + 8] = 6;
	memcpy(b + r + 9, "remote", 6);
	if (g->v5)
		od_cksum_set(b, 4096, OD_DA3_CRC_OFF);
}

static void test_leaf(struct t_state *ts, bool v5)
{
	uint8_t b[4096];
	struct od_geo g;
	struct od_attr_leaf_hdr h;
	struct od_attr_leaf_ent e;
	const char *field;

	geo(&g, v5);
	make_leaf(b, &g);
	T_CHECK(ts, od_attr_leaf_hdr(b, sizeof(b), &g, &h, &field) == OD_OK);
	T_CHECK(ts, h.count == 2 && h.hdr_len == (v5 ? 80u : 32u) &&
		h.free_base[0] == h.hdr_len + 16 && h.free_size[1] == 0);
	od_attr_leaf_entry(b, &h, 0, &e);
	T_CHECK(ts, e.hash == 0x1234 && (e.flags & OD_ATTR_LOCAL));
	T_CHECK(ts, od_attr_leaf_name(b, sizeof(b), &e) == OD_OK);
	T_CHECK(ts, e.namelen == 4 && e.valuelen == 1 &&
		!memcmp(e.name, "name", 4) && e.size == 8);
	od_attr_leaf_entry(b, &h, 1, &e);
	T_CHECK(ts, od_attr_leaf_name(b, sizeof(b), &e) == OD_OK);
	T_CHECK(ts, e.valueblk == 1 && e.valuelen == 100 && e.namelen == 6 &&
		e.size == 20 && e.nameidx + e.size == 4096);
	/* a name structure running past the block */
	e.nameidx = 4090;
	T_CHECK(ts, od_attr_leaf_name(b, sizeof(b), &e) == OD_ESHORT);
	e.nameidx = 4095;
	e.flags = OD_ATTR_LOCAL;
	T_CHECK(ts, od_attr_leaf_name(b, sizeof(b), &e) == OD_ESHORT);
	/* wrong magic for the version, a short block */
	T_CHECK(ts, od_attr_leaf_hdr(b, v5 ? 60 : 20, &g, &h, &field) !=
		OD_OK);
	od_put_be16(b + 8, v5 ? OD_ATTR_LEAF_MAGIC : OD_ATTR3_LEAF_MAGIC);
	if (v5)
		od_cksum_set(b, 4096, OD_DA3_CRC_OFF);
	T_CHECK(ts, od_attr_leaf_hdr(b, sizeof(b), &g, &h, &field) ==
		OD_EMAGIC);
	if (v5) {
		make_leaf(b, &g);
		b[4000] ^= 1;
		T_CHECK(ts, od_attr_leaf_hdr(b, sizeof(b), &g, &h, &field) ==
			OD_ECRC);
	}
}

static void test_inode_core(struct t_state *ts)
{
	uint8_t b[512] = { 0 };
	struct od_geo g;
	struct od_inode di;

	geo(&g, true);
	od_put_be16(b, OD_DINODE_MAGIC);
	od_put_be16(b + 2, 0100644);
	b[4] = 3;
	b[5] = OD_FMT_EXTENTS;
	od_put_be16(b + 6, 7);			/* di_onlink */
	od_put_be32(b + 16, 2);			/* di_nlink */
	od_put_be64(b + 24, 9);			/* di_v3_pad */
	od_put_be32(b + 76, 1);			/* nextents */
	b[82] = 24;				/* forkoff */
	b[83] = OD_FMT_LOCAL;
	od_put_be32(b + 96, 0xffffffff);
	b[140] = 1;				/* di_pad2 */
	od_put_be64(b + 152, 1234);
	memcpy(b + 160, g.uuid, 16);
	od_inode_core(b, &g, 1234, &di);
	T_CHECK(ts, di.magic == OD_DINODE_MAGIC && di.mode == 0100644 &&
		di.version == 3 && di.onlink == 7 && di.nlink == 2);
	T_CHECK(ts, di.v3_pad == 9 && di.nextents == 1 && !di.pad2_zero &&
		di.uuid_ok && di.di_ino == 1234 && di.next_unlinked ==
		0xffffffffu);
	T_CHECK(ts, di.lit == 512 - 176 && di.dfork_len == 192 &&
		di.afork_off == 176 + 192 && di.afork_len == 512 - 176 - 192);
	/* a forkoff past the literal area: the data fork takes it all */
	b[82] = 200;
	od_inode_core(b, &g, 1234, &di);
	T_CHECK(ts, di.dfork_len == di.lit && di.afork_len == 0);
	/* nrext64: the counts move, the pad is the old anextents word */
	od_put_be64(b + 120, OD_DIFLAG2_NREXT64);
	od_put_be64(b + 24, 5000000000ull);
	od_put_be32(b + 76, 3);
	od_put_be16(b + 80, 1);
	od_inode_core(b, &g, 1234, &di);
	T_CHECK(ts, di.nextents == 5000000000ull && di.anextents == 3 &&
		di.nrext64_pad == 1);
}

int main(void)
{
	struct t_state ts = { 0, 0 };

	test_sf(&ts);
	test_leaf(&ts, false);
	test_leaf(&ts, true);
	test_inode_core(&ts);
	return t_done(&ts, "test_attr");
}
