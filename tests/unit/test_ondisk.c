/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the ondisk decoders: known answers, every truncation
 * length, corrupted fields and flipped CRCs, encode/decode round trips.
 */
#include "t.h"
#include "sample_sb.h"
#include "ondisk/ag.h"
#include "ondisk/be.h"
#include "ondisk/bmbt.h"
#include "ondisk/btree.h"
#include "ondisk/crc32c.h"
#include "ondisk/dahash.h"
#include "ondisk/dir2.h"
#include "ondisk/inode.h"
#include "ondisk/mkfs.h"
#include "ondisk/sb.h"

#include <string.h>

static void test_crc(struct t_state *ts)
{
	/* RFC 3720 B.4: CRC-32C of 32 zero bytes is 0x8a9136aa */
	uint8_t z[32] = { 0 }, buf[64];
	uint32_t c = ~od_crc32c(0xffffffffu, z, sizeof(z));
	size_t i;

	T_CHECK(ts, c == 0x8a9136aau);
	c = ~od_crc32c(0xffffffffu, "123456789", 9);
	T_CHECK(ts, c == 0xe3069283u);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7);
	od_cksum_set(buf, sizeof(buf), 8);
	T_CHECK(ts, od_cksum_ok(buf, sizeof(buf), 8));
	buf[20] ^= 1;
	T_CHECK(ts, !od_cksum_ok(buf, sizeof(buf), 8));
	T_CHECK(ts, !od_cksum_ok(buf, 10, 8));	/* field past the end */
}

/* od_cksum3 agrees with od_cksum_ok, buffer by buffer, whatever the length */
static uint8_t crc3_buf[3][1031];

static void crc3_case(struct t_state *ts, size_t len, size_t off)
{
	const uint8_t *const p[3] = { crc3_buf[0], crc3_buf[1], crc3_buf[2] };
	int k, bad;

	for (bad = -1; bad < 3; bad++) {
		bool ok[3];

		for (k = 0; k < 3; k++) {
			od_cksum_set(crc3_buf[k], len, off);
			if (k == bad)
				crc3_buf[k][len - 1] ^= 0x40;
		}
		od_cksum3(p, len, off, ok);
		for (k = 0; k < 3; k++)
			T_CHECK(ts, ok[k] == od_cksum_ok(crc3_buf[k], len, off) &&
				    ok[k] == (k != bad));
	}
}

static void test_crc3(struct t_state *ts)
{
	uint32_t x = 12345;
	size_t len, i;
	int k;

	for (k = 0; k < 3; k++)
		for (i = 0; i < sizeof(crc3_buf[k]); i++) {
			x = x * 1103515245u + 12345u;
			crc3_buf[k][i] = (uint8_t)(x >> 16);
		}
	for (len = 4; len <= sizeof(crc3_buf[0]); len += 61)
		crc3_case(ts, len, (len * 7 / 13) & ~(size_t)3);
	/* whole words, the crc in either half of one (one pass, masked) */
	for (len = 8; len <= 1024; len += 8 * 7) {
		crc3_case(ts, len, (len / 2) & ~(size_t)7);
		crc3_case(ts, len, ((len / 2) & ~(size_t)7) + 4 - (len == 8) * 4);
		crc3_case(ts, len, len - 4);
	}
	crc3_case(ts, 512, OD_DINODE_CRC_OFF);
	crc3_case(ts, 256, OD_DINODE_CRC_OFF);
}

/* A CRC-32C a bit at a time: nothing shared with the module's ways. */
static uint32_t crc_bits(uint32_t crc, const uint8_t *p, size_t n)
{
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return crc;
}

/*
 * Every implementation this CPU has (the table, crc32, and the two
 * carry-less folds) against the bitwise one: lengths around the fold
 * steps, every alignment, random seeds; then checksums with the field
 * anywhere, which the widest fold reads as zero in one pass.
 */
static uint8_t impl_buf[2200];

static void test_crc_impls(struct t_state *ts)
{
	uint32_t x = 777, want, got, c;
	size_t len, al, i, off;
	int impl, had = 0, bad = 0, cases = 0;

	for (i = 0; i < sizeof(impl_buf); i++) {
		x = x * 1103515245u + 12345u;
		impl_buf[i] = (uint8_t)(x >> 16);
	}
	for (impl = OD_CRC_TABLE; impl <= OD_CRC_VPCLMUL; impl++) {
		c = 0;
		if (od_crc32c_by(impl, &c, impl_buf, 1) != 0)
			continue;
		had++;
		for (len = 0; len <= 2100; len += len < 300 ? 1 : 61)
			for (al = 0; al < 16; al += len < 300 ? 5 : 1) {
				x = x * 1103515245u + 12345u;
				want = crc_bits(x, impl_buf + al, len);
				got = x;
				od_crc32c_by(impl, &got, impl_buf + al, len);
				bad += got != want;
				cases++;
			}
	}
	T_CHECK(ts, had >= 1 && cases > 1000 && bad == 0);
	/* od_cksum: the field zeroed, by hand, against the bitwise CRC */
	bad = 0;
	for (len = 64; len <= 2048; len += 64)
		for (off = 0; off + 4 <= len; off += off < 128 ? 4 : 60) {
			uint8_t *b = impl_buf + 8;

			memcpy(impl_buf + 2100, b + off, 4);
			memset(b + off, 0, 4);
			want = ~crc_bits(0xffffffffu, b, len);
			memcpy(b + off, impl_buf + 2100, 4);
			bad += od_cksum(b, len, off) != want;
		}
	T_CHECK(ts, bad == 0);
}

static void test_bmbt_rec(struct t_state *ts)
{
	struct od_irec in = { (1ull << 54) - 2, (1ull << 52) - 3, 0x1fffff,
			      true }, out;
	uint8_t p[16];

	od_bmbt_rec_pack(&in, p);
	od_bmbt_rec_unpack(p, &out);
	T_CHECK(ts, out.startoff == in.startoff);
	T_CHECK(ts, out.startblock == in.startblock);
	T_CHECK(ts, out.blockcount == in.blockcount);
	T_CHECK(ts, out.unwritten);
	/* a record from a real image: offset 0, block 12, 1 block */
	memset(p, 0, sizeof(p));
	od_put_be64(p + 8, (12ull << 21) | 1);
	od_bmbt_rec_unpack(p, &out);
	T_CHECK(ts, out.startoff == 0 && out.startblock == 12 &&
		    out.blockcount == 1 && !out.unwritten);
}

static void test_hash(struct t_state *ts)
{
	/* values from xfs_db "hash" on these names */
	T_CHECK(ts, od_da_hashname((const uint8_t *)".", 1) == 0x2e);
	T_CHECK(ts, od_da_hashname((const uint8_t *)"..", 2) == 0x172e);
	T_CHECK(ts, od_da_hashname((const uint8_t *)"a", 1) == 0x61);
	T_CHECK(ts, od_da_hashname_ci((const uint8_t *)"ABC", 3) ==
		    od_da_hashname_ci((const uint8_t *)"abc", 3));
}


static void test_sb(struct t_state *ts)
{
	static const struct { size_t off; uint8_t val; const char *field; }
	bad[] = {
		{ 6, 0x20, "blocksize" },	/* 0x1000 -> 0x2000, not 1 << blocklog */
		{ 88 + 3, 9, "agcount" },
		{ 102 + 1, 0x01, "sectsize" },
		{ 104 + 1, 0x03, "inodesize" },
		{ 124, 20, "agblocks" },
		{ 127, 200, "imax_pct" },
	};
	uint8_t buf[512], tmp[512];
	const char *field;
	struct od_sb sb;
	size_t len, i;

	sample_sb(buf, sizeof(buf));
	T_CHECK(ts, od_sb_decode(buf, sizeof(buf), &sb) == OD_OK);
	T_CHECK(ts, od_sb_validate(&sb, &field) == OD_OK);
	T_CHECK(ts, od_sb_is_v5(&sb) && sb.agcount == 4 && sb.rootino == 128);
	T_CHECK(ts, od_cksum_ok(buf, sizeof(buf), OD_SB_CRC_OFF));
	/* every truncation is refused, never read past */
	for (len = 0; len < OD_SB_V5_LEN; len++)
		T_CHECK(ts, od_sb_decode(buf, len, &sb) == OD_ESHORT);
	/* round trip */
	T_CHECK(ts, od_sb_decode(buf, sizeof(buf), &sb) == OD_OK);
	memset(tmp, 0, sizeof(tmp));
	T_CHECK(ts, od_sb_encode(&sb, tmp, sizeof(tmp)) == OD_OK);
	T_CHECK(ts, memcmp(buf, tmp, sizeof(buf)) == 0);
	/* NEEDSREPAIR on and off: only that bit and the crc change */
	memcpy(tmp, buf, sizeof(buf));
	T_CHECK(ts, od_sb_set_needsrepair(tmp, sizeof(tmp), true));
	T_CHECK(ts, od_cksum_ok(tmp, sizeof(tmp), OD_SB_CRC_OFF));
	T_CHECK(ts, od_sb_decode(tmp, sizeof(tmp), &sb) == OD_OK &&
		    (sb.features_incompat & OD_INCOMPAT_NEEDSREPAIR));
	T_CHECK(ts, memcmp(tmp, buf, OD_SB_CRC_OFF) != 0);
	T_CHECK(ts, od_sb_set_needsrepair(tmp, sizeof(tmp), false));
	T_CHECK(ts, memcmp(tmp, buf, sizeof(buf)) == 0);
	/* wrong magic */
	memcpy(tmp, buf, sizeof(buf));
	tmp[0] = 'Y';
	T_CHECK(ts, !od_sb_set_needsrepair(tmp, sizeof(tmp), true));
	T_CHECK(ts, od_sb_decode(tmp, sizeof(tmp), &sb) == OD_EMAGIC);
	/* each corrupted field is named */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(tmp, buf, sizeof(buf));
		tmp[bad[i].off] = bad[i].val;
		T_CHECK(ts, od_sb_decode(tmp, sizeof(tmp), &sb) == OD_OK);
		field = NULL;
		T_CHECK(ts, od_sb_validate(&sb, &field) == OD_EFIELD);
		T_CHECK(ts, field && strcmp(field, bad[i].field) == 0);
		if (!field || strcmp(field, bad[i].field) != 0)
			fprintf(stderr, "  offset %zu: got %s, want %s\n",
				bad[i].off, field ? field : "(none)",
				bad[i].field);
	}
	/* consistent geometry, but more bytes than a file offset can hold */
	T_CHECK(ts, od_sb_decode(buf, sizeof(buf), &sb) == OD_OK);
	sb.blocksize = 65536;
	sb.blocklog = 16;
	sb.inopblock = 128;
	sb.inopblog = 7;
	sb.agblocks = 0x7fffffff;
	sb.agblklog = 31;
	sb.dblocks = 1ull << 48;
	T_CHECK(ts, od_sb_validate(&sb, &field) == OD_EFIELD &&
		    strcmp(field, "dblocks") == 0);
}

static void test_geo(struct t_state *ts)
{
	uint8_t buf[512];
	struct od_sb sb;
	struct od_geo g;

	sample_sb(buf, sizeof(buf));
	od_sb_decode(buf, sizeof(buf), &sb);
	od_geo_init(&g, &sb);
	T_CHECK(ts, g.agino_log == 18 && g.dirblksize == 4096);
	T_CHECK(ts, g.blocks_per_cluster == 4 && g.inodes_per_cluster == 32);
	T_CHECK(ts, od_fsb_daddr(&g, od_agb_fsb(&g, 1, 10)) ==
		    (32768ull + 10) * 8);
	T_CHECK(ts, od_ino_agno(&g, (1ull << 18) | 77) == 1);
	T_CHECK(ts, od_fsb_valid(&g, od_agb_fsb(&g, 3, 32767), 1));
	T_CHECK(ts, !od_fsb_valid(&g, od_agb_fsb(&g, 3, 32767), 2));
	T_CHECK(ts, !od_fsb_valid(&g, od_agb_fsb(&g, 4, 0), 1));
	T_CHECK(ts, !od_agb_valid(&g, 0, 32768, 1));
	T_CHECK(ts, od_ino_valid(&g, 128) && !od_ino_valid(&g, 4ull << 18));
}

/*
 * Where mkfs.xfs (xfsprogs 6.1) put the root inode, with the superblock
 * fields it depends on, printed by xfs_db from filesystems made with the
 * options named (t-precheck.sh compares many more with mkfs.xfs live).
 */
static const struct rootino_case {
	const char *mkfs;
	uint32_t blocksize, sectsize, inodesize, agblocks, agcount;
	uint64_t dblocks, logstart;
	uint32_t logblocks;
	uint16_t versionnum;
	uint32_t features2, ro_compat, incompat, inoalignmt, unit, width;
	uint64_t rootino;
	uint32_t min_freelist;
} rootino_cases[] = {
	{ "-b size=65536 (1g)", 65536, 512, 512, 4096, 4, 16384, 8198, 1024,
	  0xb4a5, 0x18a, 0xd, 0xb, 0, 0, 0, 1024, 2 },
	{ "-d su=4k,sw=2 -b size=1024 (2g)", 1024, 512, 512, 262140, 8,
	  2097120, 1048584, 65536, 0xb5a5, 0x18a, 0xd, 0xb, 32, 4, 8, 64, 4 },
	{ "-m rmapbt=1 -b size=65536 -d agcount=1 (1g)", 65536, 512, 512,
	  16384, 1, 16384, 7, 2570, 0xb4a5, 0x18a, 0xf, 0xb, 0, 0, 0, 330624,
	  6 },
	{ "-m crc=0 -b size=512 (512m)", 512, 512, 256, 262144, 4, 1048576,
	  524295, 131072, 0xb4a4, 0x28a, 0, 0, 16, 0, 0, 32, 4 },
	{ "-d su=64k,sw=2 -i size=2048 (1g)", 4096, 512, 2048, 32752, 8,
	  262016, 131088, 16384, 0xb5a5, 0x18a, 0xd, 0xb, 32, 16, 32, 64, 4 },
};

static unsigned log2_u32(uint32_t v)
{
	unsigned l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

static void test_mkfs_rootino(struct t_state *ts)
{
	size_t i;

	for (i = 0; i < sizeof(rootino_cases) / sizeof(rootino_cases[0]);
	     i++) {
		const struct rootino_case *rc = &rootino_cases[i];
		struct od_sb sb;
		struct od_geo g;
		uint64_t root;

		memset(&sb, 0, sizeof(sb));
		sb.magicnum = OD_SB_MAGIC;
		sb.blocksize = rc->blocksize;
		sb.blocklog = (uint8_t)log2_u32(rc->blocksize);
		sb.sectsize = (uint16_t)rc->sectsize;
		sb.sectlog = (uint8_t)log2_u32(rc->sectsize);
		sb.inodesize = (uint16_t)rc->inodesize;
		sb.inodelog = (uint8_t)log2_u32(rc->inodesize);
		sb.inopblock = (uint16_t)(rc->blocksize / rc->inodesize);
		sb.inopblog = (uint8_t)log2_u32(sb.inopblock);
		sb.agblocks = rc->agblocks;
		sb.agblklog = (uint8_t)(log2_u32(rc->agblocks - 1) + 1);
		sb.agcount = rc->agcount;
		sb.dblocks = rc->dblocks;
		sb.logstart = rc->logstart;
		sb.logblocks = rc->logblocks;
		sb.versionnum = rc->versionnum;
		sb.features2 = rc->features2;
		sb.features_ro_compat = rc->ro_compat;
		sb.features_incompat = rc->incompat;
		sb.inoalignmt = rc->inoalignmt;
		sb.unit = rc->unit;
		sb.width = rc->width;
		od_geo_init(&g, &sb);
		root = od_mkfs_rootino(&sb, &g, sb.unit);
		T_CHECK(ts, od_min_freelist(&g) == rc->min_freelist);
		T_CHECK(ts, root == rc->rootino);
		if (root != rc->rootino)
			fprintf(stderr, "  mkfs.xfs %s: rootino %llu, computed "
				"%llu\n", rc->mkfs,
				(unsigned long long)rc->rootino,
				(unsigned long long)root);
	}
}

static void test_agf(struct t_state *ts)
{
	uint8_t buf[512], tmp[512];
	struct od_agf agf, out;
	const char *field;
	struct od_sb sb;
	struct od_geo g;

	sample_sb(buf, sizeof(buf));
	od_sb_decode(buf, sizeof(buf), &sb);
	od_geo_init(&g, &sb);
	memset(&agf, 0, sizeof(agf));
	agf.magicnum = OD_AGF_MAGIC;
	agf.versionnum = 1;
	agf.seqno = 2;
	agf.length = 32768;
	agf.roots[0] = 1; agf.roots[1] = 2; agf.levels[0] = agf.levels[1] = 1;
	agf.fllast = 3; agf.flcount = 4; agf.freeblks = 100; agf.longest = 90;
	agf.refcount_root = 0;
	memcpy(agf.uuid, g.uuid, 16);
	memset(buf, 0, sizeof(buf));
	od_agf_encode(&agf, &g, buf, sizeof(buf));
	T_CHECK(ts, od_agf_decode(buf, sizeof(buf), &g, 2, &out, &field) ==
		    OD_OK);
	T_CHECK(ts, out.freeblks == 100 && out.flcount == 4);
	T_CHECK(ts, od_agf_decode(buf, sizeof(buf), &g, 1, &out, &field) ==
		    OD_EFIELD && strcmp(field, "seqno") == 0);
	memcpy(tmp, buf, sizeof(buf));
	tmp[100] ^= 0xff;	/* spare area: only the CRC notices */
	T_CHECK(ts, od_agf_decode(tmp, sizeof(tmp), &g, 2, &out, &field) ==
		    OD_ECRC);
	memcpy(tmp, buf, sizeof(buf));
	tmp[0] = 0;
	T_CHECK(ts, od_agf_decode(tmp, sizeof(tmp), &g, 2, &out, &field) ==
		    OD_EMAGIC);
	T_CHECK(ts, od_agf_decode(buf, 100, &g, 2, &out, &field) ==
		    OD_ESHORT);
	agf.longest = 101;	/* longer than all free space */
	od_agf_encode(&agf, &g, buf, sizeof(buf));
	T_CHECK(ts, od_agf_decode(buf, sizeof(buf), &g, 2, &out, &field) ==
		    OD_EFIELD && strcmp(field, "longest") == 0);
}

static void test_dir2(struct t_state *ts)
{
	/* shortform: count 2, i8count 0, parent 128, "ab"->131, "c"->132 */
	static const uint8_t sf[] = {
		2, 0, 0, 0, 0, 128,
		2, 0, 0x30, 'a', 'b', 1, 0, 0, 0, 131,
		1, 0, 0x40, 'c', 2, 0, 0, 0, 132,
	};
	struct od_dir2_sf hdr;
	struct od_dirent de;
	const char *field;
	uint32_t pos;
	size_t len;

	T_CHECK(ts, od_dir2_sf_hdr(sf, sizeof(sf), &hdr, &field) == OD_OK);
	T_CHECK(ts, hdr.count == 2 && hdr.parent == 128 && hdr.hdr_len == 6);
	pos = hdr.hdr_len;
	T_CHECK(ts, od_dir2_sf_entry(sf, sizeof(sf), &hdr, true, &pos, &de,
				     &field) == OD_OK);
	T_CHECK(ts, de.namelen == 2 && de.ino == 131 && de.ftype == 1);
	T_CHECK(ts, od_dir2_sf_entry(sf, sizeof(sf), &hdr, true, &pos, &de,
				     &field) == OD_OK);
	T_CHECK(ts, de.namelen == 1 && de.ino == 132 && de.ftype == 2);
	T_CHECK(ts, pos == sizeof(sf));
	/* every truncation of the second entry is caught */
	for (len = 16; len < sizeof(sf); len++) {
		pos = 16;
		T_CHECK(ts, od_dir2_sf_entry(sf, len, &hdr, true, &pos, &de,
					     &field) == OD_ESHORT);
	}
	T_CHECK(ts, od_dir2_data_entsize(true, 1) == 16);
	T_CHECK(ts, od_dir2_data_entsize(false, 5) == 16);
	T_CHECK(ts, od_dir2_data_entsize(true, 6) == 24);
}

static void test_inode(struct t_state *ts)
{
	uint8_t sbuf[512], ib[512];
	struct od_inode ip;
	const char *field;
	struct od_sb sb;
	struct od_geo g;

	sample_sb(sbuf, sizeof(sbuf));
	od_sb_decode(sbuf, sizeof(sbuf), &sb);
	od_geo_init(&g, &sb);
	memset(ib, 0, sizeof(ib));
	od_put_be16(ib, OD_DINODE_MAGIC);
	od_put_be16(ib + 2, 0100644);
	ib[4] = 3;
	ib[5] = OD_FMT_EXTENTS;
	od_put_be64(ib + 56, 4096);		/* size */
	od_put_be32(ib + 76, 1);		/* nextents */
	ib[83] = OD_FMT_EXTENTS;
	od_put_be64(ib + 152, 131);		/* di_ino */
	memcpy(ib + 160, g.uuid, 16);
	od_cksum_set(ib, sizeof(ib), OD_DINODE_CRC_OFF);
	T_CHECK(ts, od_inode_decode(ib, sizeof(ib), &g, 131, &ip, &field) ==
		    OD_OK);
	T_CHECK(ts, ip.size == 4096 && ip.nextents == 1 &&
		    ip.dfork_off == 176 && ip.dfork_len == 336);
	/* read as another number: di_ino disagrees */
	T_CHECK(ts, od_inode_decode(ib, sizeof(ib), &g, 132, &ip, &field) ==
		    OD_EFIELD && strcmp(field, "ino") == 0);
	T_CHECK(ts, od_inode_decode(ib, 511, &g, 131, &ip, &field) ==
		    OD_ESHORT);
	/* more extents than the fork can hold */
	od_put_be32(ib + 76, 22);
	od_cksum_set(ib, sizeof(ib), OD_DINODE_CRC_OFF);
	T_CHECK(ts, od_inode_decode(ib, sizeof(ib), &g, 131, &ip, &field) ==
		    OD_EFIELD && strcmp(field, "nextents") == 0);
	/* nrext64: a 64-bit count whose product with 16 would wrap to 0 */
	g.nrext64 = true;
	od_put_be32(ib + 76, 0);
	od_put_be64(ib + 120, OD_DIFLAG2_NREXT64);
	od_put_be64(ib + 24, 1ull << 60);
	od_cksum_set(ib, sizeof(ib), OD_DINODE_CRC_OFF);
	T_CHECK(ts, od_inode_decode(ib, sizeof(ib), &g, 131, &ip, &field) ==
		    OD_EFIELD && strcmp(field, "nextents") == 0);
	g.nrext64 = false;
	od_put_be64(ib + 120, 0);
	od_put_be64(ib + 24, 0);
	/* attr fork offset past the literal area */
	od_put_be32(ib + 76, 1);
	ib[82] = 50;
	od_cksum_set(ib, sizeof(ib), OD_DINODE_CRC_OFF);
	T_CHECK(ts, od_inode_decode(ib, sizeof(ib), &g, 131, &ip, &field) ==
		    OD_EFIELD && strcmp(field, "forkoff") == 0);
	ib[82] = 0;
	ib[200] ^= 1;	/* no cksum update: CRC error */
	T_CHECK(ts, od_inode_decode(ib, sizeof(ib), &g, 131, &ip, &field) ==
		    OD_ECRC);
}

/* Counters rewritten in place, in both extent-count layouts, decode back. */
static void test_inode_counters(struct t_state *ts)
{
	uint8_t sbuf[512], ib[512];
	struct od_inode ip;
	const char *field;
	struct od_sb sb;
	struct od_geo g;
	int nrext;

	sample_sb(sbuf, sizeof(sbuf));
	od_sb_decode(sbuf, sizeof(sbuf), &sb);
	od_geo_init(&g, &sb);
	for (nrext = 0; nrext < 2; nrext++) {
		g.nrext64 = nrext;
		memset(ib, 0, sizeof(ib));
		od_put_be16(ib, OD_DINODE_MAGIC);
		od_put_be16(ib + 2, 0100644);
		ib[4] = 3;
		ib[5] = OD_FMT_EXTENTS;
		od_put_be32(ib + 16, 7);		/* nlink */
		ib[82] = 20;				/* forkoff */
		ib[83] = OD_FMT_EXTENTS;
		od_put_be64(ib + 120, nrext ? OD_DIFLAG2_NREXT64 : 0);
		od_put_be64(ib + 152, 131);
		memcpy(ib + 160, g.uuid, 16);
		od_cksum_set(ib, sizeof(ib), OD_DINODE_CRC_OFF);
		T_CHECK(ts, od_inode_decode(ib, sizeof(ib), &g, 131, &ip,
					    &field) == OD_OK);
		od_inode_set_nextents(ib, &ip, 0, 9);
		od_inode_set_nextents(ib, &ip, 1, 3);
		od_inode_set_nblocks(ib, 12345);
		od_cksum_set(ib, sizeof(ib), OD_DINODE_CRC_OFF);
		T_CHECK(ts, od_inode_decode(ib, sizeof(ib), &g, 131, &ip,
					    &field) == OD_OK);
		T_CHECK(ts, ip.nextents == 9 && ip.anextents == 3 &&
			    ip.nblocks == 12345);
		T_CHECK(ts, od_inode_nblocks_raw(ib) == 12345 &&
			    od_inode_nlink_raw(ib) == 7);
		/* the two layouts keep the data fork count apart */
		T_CHECK(ts, nrext ? od_get_be64(ib + 24) == 9 :
				    od_get_be32(ib + 76) == 9);
	}
	/* v1 inodes keep a 16-bit link count at 6 */
	memset(ib, 0, sizeof(ib));
	ib[4] = 1;
	od_put_be16(ib + 6, 5);
	T_CHECK(ts, od_inode_nlink_raw(ib) == 5);
}

/* The small probes: magics, AGFL slots, directory leaf entries. */
static void test_probes(struct t_state *ts)
{
	uint8_t b[16] = { 'X', 'F', 'S', 'B' };
	struct od_dir2_leaf_ent le;

	T_CHECK(ts, od_sb_has_magic(b, 4) && !od_sb_has_magic(b, 3));
	T_CHECK(ts, !od_agf_has_magic(b, sizeof(b)));
	memcpy(b, "XAGF", 4);
	T_CHECK(ts, od_agf_has_magic(b, 4) && !od_sb_has_magic(b, 4));
	od_put_be32(b + 8, 77);
	T_CHECK(ts, od_agfl_slot(b, 2) == 77);
	od_put_be32(b + 8, 0xabcd);		/* entry 1: hash, address */
	od_put_be32(b + 12, 0x10);
	od_dir2_leaf_ent(b, 1, &le);
	T_CHECK(ts, le.hashval == 0xabcd && le.address == 0x10);
}

int main(void)
{
	struct t_state ts = { 0 };

	test_crc(&ts);
	test_crc_impls(&ts);
	test_crc3(&ts);
	test_bmbt_rec(&ts);
	test_hash(&ts);
	test_sb(&ts);
	test_geo(&ts);
	test_mkfs_rootino(&ts);
	test_agf(&ts);
	test_dir2(&ts);
	test_inode(&ts);
	test_inode_counters(&ts);
	test_probes(&ts);
	return t_done(&ts, "test_ondisk");
}
