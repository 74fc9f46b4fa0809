/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scan's fast inode read (ondisk/inode_lite.h) against the full
 * decode: whenever od_inode_scan_lite says yes, od_inode_decode_crc_ok
 * must accept the inode too, as in use, with the same fields.  Checked on
 * common inodes of each kind it takes, and on every byte of their cores
 * set to a few values (CRC recomputed, as xfs_db's fuzz -d does), under
 * the feature bits that change the verdict.
 */
#include "t.h"
#include "sample_sb.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"
#include "ondisk/inode.h"
#include "ondisk/inode_lite.h"
#include "ondisk/sb.h"

#include <stdint.h>
#include <string.h>

#define INO	131

static void make_geo(struct od_geo *g)
{
	uint8_t buf[512];
	struct od_sb sb;

	sample_sb(buf, sizeof(buf));
	od_sb_decode(buf, sizeof(buf), &sb);
	od_geo_init(g, &sb);
}

/* Kinds of inode: the ones the fast path takes, and two it leaves. */
enum kind { REG, REG_ATTR, REG_NREXT, LNK_LOCAL, LNK_EXT, DIR_LOCAL, FREE,
	    NKINDS };

static void make_inode(uint8_t *ib, const struct od_geo *g, enum kind k)
{
	memset(ib, 0, 512);
	od_put_be16(ib, OD_DINODE_MAGIC);
	od_put_be16(ib + 2, k == FREE ? 0 : k == DIR_LOCAL ? 040755 :
			    k >= LNK_LOCAL ? 0120777 : 0100644);
	ib[4] = 3;
	ib[5] = k == LNK_LOCAL || k == DIR_LOCAL ? OD_FMT_LOCAL :
						    OD_FMT_EXTENTS;
	od_put_be32(ib + 16, 1);			/* nlink */
	od_put_be64(ib + 56, k == LNK_LOCAL ? 20 : 8192);	/* size */
	od_put_be64(ib + 64, 2);			/* nblocks */
	od_put_be32(ib + 72, 0);			/* extsize */
	if (k == REG_NREXT) {
		od_put_be64(ib + 24, 2);
		od_put_be64(ib + 120, OD_DIFLAG2_NREXT64 |
			    OD_DIFLAG2_REFLINK);
	} else if (k != LNK_LOCAL && k != DIR_LOCAL) {
		od_put_be32(ib + 76, 2);		/* nextents */
	}
	if (k == REG_ATTR) {
		ib[82] = 15;				/* forkoff */
		ib[83] = OD_FMT_LOCAL;
	} else {
		ib[83] = OD_FMT_EXTENTS;
	}
	od_put_be16(ib + 90, OD_DIFLAG_EXTSIZE);
	od_put_be64(ib + 152, INO);
	memcpy(ib + 160, g->uuid, 16);
	/* two records, in order */
	od_put_be64(ib + 176, 0x200);			/* off 1 */
	od_put_be64(ib + 184, 5ull << 21 | 1);		/* block 5, 1 long */
	od_put_be64(ib + 192, 0x400);			/* off 2 */
	od_put_be64(ib + 200, 9ull << 21 | 1);
	od_cksum_set(ib, 512, OD_DINODE_CRC_OFF);
}

/* If the fast path takes ib, the full decode agrees; returns its verdict. */
static bool agree(struct t_state *ts, const uint8_t *ib,
		  const struct od_geo *g)
{
	struct od_inode_lite l;
	struct od_inode ip;
	const char *field;
	enum od_err oe;

	if (!od_inode_scan_lite(ib, 512, g, INO, &l))
		return false;
	oe = od_inode_decode_crc_ok(ib, 512, g, INO, &ip, &field);
	T_CHECK(ts, oe == OD_OK && ip.mode != 0 && !od_mode_isdir(ip.mode));
	T_CHECK(ts, l.size == ip.size && l.nextents == ip.nextents &&
		    l.flags2 == ip.flags2 && l.nlink == ip.nlink &&
		    l.extsize == ip.extsize && l.mode == ip.mode &&
		    l.flags == ip.flags && l.format == ip.format &&
		    l.aformat == ip.aformat && l.forkoff == ip.forkoff &&
		    l.dfork_off == ip.dfork_off);
	/* never realtime, never attr extents or a btree to walk */
	T_CHECK(ts, !(ip.flags & OD_DIFLAG_REALTIME));
	T_CHECK(ts, !ip.forkoff || ip.aformat == OD_FMT_LOCAL ||
		    (ip.aformat == OD_FMT_EXTENTS && ip.anextents == 0));
	return true;
}

static void test_kinds(struct t_state *ts)
{
	uint8_t ib[512];
	struct od_geo g;
	int k;

	make_geo(&g);
	g.nrext64 = true;
	for (k = 0; k < NKINDS; k++) {
		make_inode(ib, &g, (enum kind)k);
		/* the templates the fast path is for: it takes them */
		T_CHECK(ts, agree(ts, ib, &g) == (k != DIR_LOCAL && k != FREE));
	}
	/* read as another number, or without the feature its flag needs */
	make_inode(ib, &g, REG);
	T_CHECK(ts, !od_inode_scan_lite(ib, 512, &g, INO + 1,
					&(struct od_inode_lite){ 0 }));
	/* a short buffer is never read */
	T_CHECK(ts, !od_inode_scan_lite(ib, 511, &g, INO,
					&(struct od_inode_lite){ 0 }));
	g.nrext64 = false;
	make_inode(ib, &g, REG_NREXT);
	T_CHECK(ts, !agree(ts, ib, &g));
}

/* Each limit the verdict hangs on, at it and one past it. */
static void test_limits(struct t_state *ts)
{
	static const struct { unsigned off, width; uint64_t at, past; }
	lim[] = {
		{ 64, 8, 131072, 131073 },		/* nblocks: dblocks */
		{ 56, 8, INT64_MAX, UINT64_MAX },	/* size: signed */
		{ 76, 4, 336 / 16, 336 / 16 + 1 },	/* nextents: fork */
		{ 80, 2, 0, 1 },			/* anextents, no fork */
		{ 82, 1, 41, 42 },			/* forkoff * 8 < 336 */
	};
	uint8_t ib[512];
	struct od_geo g;
	unsigned i;

	make_geo(&g);
	for (i = 0; i < sizeof(lim) / sizeof(*lim); i++) {
		int past;

		for (past = 0; past < 2; past++) {
			uint64_t v = past ? lim[i].past : lim[i].at;

			make_inode(ib, &g, REG);
			if (lim[i].off == 82)
				ib[83] = OD_FMT_LOCAL;
			if (lim[i].width == 8)
				od_put_be64(ib + lim[i].off, v);
			else if (lim[i].width == 4)
				od_put_be32(ib + lim[i].off, (uint32_t)v);
			else if (lim[i].width == 2)
				od_put_be16(ib + lim[i].off, (uint16_t)v);
			else
				ib[lim[i].off] = (uint8_t)v;
			od_cksum_set(ib, 512, OD_DINODE_CRC_OFF);
			T_CHECK(ts, agree(ts, ib, &g) == !past);
		}
	}
	/* a local symlink: its size against the fork */
	make_inode(ib, &g, LNK_LOCAL);
	od_put_be64(ib + 56, 336);
	od_cksum_set(ib, 512, OD_DINODE_CRC_OFF);
	T_CHECK(ts, agree(ts, ib, &g));
	od_put_be64(ib + 56, 337);
	od_cksum_set(ib, 512, OD_DINODE_CRC_OFF);
	T_CHECK(ts, !agree(ts, ib, &g));
}

/* Every core byte set to a few values: the fast path never says yes
 * where the full decode would not. */
static void test_every_byte(struct t_state *ts)
{
	static const int vals[] = { 0x00, 0xff, -1, -2, -3 };
	uint8_t ib[512];
	struct od_geo g;
	unsigned off, v, k, feat, taken = 0;

	make_geo(&g);
	for (feat = 0; feat < 4; feat++) {
		g.nrext64 = feat & 1;
		g.bigtime = (feat & 2) != 0;
		for (k = 0; k < NKINDS; k++) {
			for (off = 0; off < 176 + 32; off++) {
				if (off >= OD_DINODE_CRC_OFF &&
				    off < OD_DINODE_CRC_OFF + 4)
					continue;	/* set by od_cksum_set */
				for (v = 0; v < sizeof(vals) / sizeof(*vals);
				     v++) {
					make_inode(ib, &g, (enum kind)k);
					/* -1: flip the low bit, -2: the
					 * high one, -3: add one */
					ib[off] = vals[v] >= 0 ?
						  (uint8_t)vals[v] :
						  vals[v] == -1 ? ib[off] ^ 1 :
						  vals[v] == -2 ? ib[off] ^ 0x80 :
						  (uint8_t)(ib[off] + 1);
					od_cksum_set(ib, 512,
						     OD_DINODE_CRC_OFF);
					taken += agree(ts, ib, &g);
				}
			}
		}
	}
	T_CHECK(ts, taken > 0);
}

int main(void)
{
	struct t_state ts = { 0 };

	test_kinds(&ts);
	test_limits(&ts);
	test_every_byte(&ts);
	return t_done(&ts, "test_inode_lite");
}
