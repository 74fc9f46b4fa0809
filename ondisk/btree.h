/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Btree block headers (xfs_format.h: struct xfs_btree_block).  AG btrees
 * use the short form (32-bit sibling pointers, owner = agno), the bmap
 * btree the long form (64-bit siblings, owner = inode).
 */
#ifndef OD_BTREE_H
#define OD_BTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"
#include "ondisk/geo.h"

#define OD_ABTB_MAGIC	0x41425442u	/* "ABTB" bnobt v4 */
#define OD_ABTB3_MAGIC	0x41423342u	/* "AB3B" */
#define OD_ABTC_MAGIC	0x41425443u	/* "ABTC" cntbt v4 */
#define OD_ABTC3_MAGIC	0x41423343u	/* "AB3C" */
#define OD_IBT_MAGIC	0x49414254u	/* "IABT" inobt v4 */
#define OD_IBT3_MAGIC	0x49414233u	/* "IAB3" */
#define OD_FIBT_MAGIC	0x46494254u	/* "FIBT" finobt v4 */
#define OD_FIBT3_MAGIC	0x46494233u	/* "FIB3" */
#define OD_RMAP3_MAGIC	0x524d4233u	/* "RMB3" */
#define OD_REFC3_MAGIC	0x52334643u	/* "R3FC" */
#define OD_BMAP_MAGIC	0x424d4150u	/* "BMAP" */
#define OD_BMAP3_MAGIC	0x424d4133u	/* "BMA3" */
#define OD_RTRMAP_MAGIC	0x4d415052u	/* "MAPR" realtime rmapbt */
#define OD_RTREFC_MAGIC	0x52434e54u	/* "RCNT" realtime refcountbt */

#define OD_SBLOCK_LEN		16
#define OD_SBLOCK_CRC_LEN	56
#define OD_SBLOCK_CRC_OFF	52
#define OD_LBLOCK_LEN		24
#define OD_LBLOCK_CRC_LEN	72
#define OD_LBLOCK_CRC_OFF	64
#define OD_NULLFSBLOCK		0xffffffffffffffffull

/* Which tree a block belongs to: record/key/pointer sizes and magics. */
enum od_bt_type {
	OD_BT_BNO, OD_BT_CNT, OD_BT_INO, OD_BT_FINO, OD_BT_RMAP, OD_BT_REFC,
	OD_BT_BMAP,
	/* realtime groups' btrees, rooted in an inode's metadata btree fork
	 * (long pointers, owner the inode); records as the AG trees' */
	OD_BT_RTRMAP, OD_BT_RTREFC,
};

struct od_bt_ops {
	const char *name;	/* "bnobt", ... for messages */
	uint32_t magic_v4, magic_v5;	/* 0 where the tree has no such form */
	bool long_ptrs;
	uint16_t rec_len;
	uint16_t key_len;	/* one key slot (low+high for overlapping) */
	uint16_t ptr_len;
};

const struct od_bt_ops *od_bt_ops(enum od_bt_type t);

/*
 * A metadata btree's root in an inode's data fork (metadir: a realtime
 * group's rmap or refcount btree, xfs_rtrmap_root and
 * xfs_rtrefcount_root): level and numrecs, then as many records (level
 * 0), or keys and after all of them 8-byte child pointers, as the fork's
 * len bytes have room for (maxrecs).  Decoded only: the values are the
 * caller's to judge.
 */
#define OD_BROOT_HDR_LEN	4
struct od_broot {
	uint16_t level, numrecs;
	uint32_t maxrecs;	/* slots, from the fork's size */
	uint16_t key_len;	/* of type t: its keys' slot */
};
/* OD_ESHORT when len has no room for the header. */
enum od_err od_broot_decode(enum od_bt_type t, const uint8_t *fork,
			    size_t len, struct od_broot *root);
/* Child pointer i (i < numrecs <= maxrecs, level > 0): an fs block. */
uint64_t od_broot_ptr(const uint8_t *fork, const struct od_broot *root,
		      uint32_t i);

struct od_btblock {
	uint32_t magic;
	uint16_t level;
	uint16_t numrecs;
	uint64_t leftsib, rightsib;	/* NULLAGBLOCK/NULLFSBLOCK widened */
	uint64_t blkno;			/* v5 self address, daddr */
	uint64_t lsn;			/* v5: last write's log position */
	uint64_t owner;			/* v5: agno or inode number */
	uint32_t hdr_len;		/* where records/keys start */
};

/*
 * Decode and verify one btree block of the given type: magic for the fs
 * version, CRC over the whole block and uuid (v5), numrecs within what
 * the block can hold.  The caller checks level, blkno and owner against
 * where it found the block.
 */
enum od_err od_btblock_decode(const uint8_t *buf, size_t len,
			      const struct od_geo *g, enum od_bt_type t,
			      struct od_btblock *hdr, const char **field);

/* Records (leaf) or key/ptr pairs (node) that fit in a block of len bytes. */
uint32_t od_bt_maxrecs(const struct od_bt_ops *ops, uint32_t hdr_len,
		       size_t len, bool leaf);

/* Offsets of record/key/pointer i (0-based) inside a block. */
static inline size_t od_bt_rec_off(const struct od_bt_ops *ops,
				   uint32_t hdr_len, uint32_t i)
{
	return hdr_len + (size_t)i * ops->rec_len;
}

static inline size_t od_bt_key_off(const struct od_bt_ops *ops,
				   uint32_t hdr_len, uint32_t i)
{
	return hdr_len + (size_t)i * ops->key_len;
}

static inline size_t od_bt_ptr_off(const struct od_bt_ops *ops,
				   uint32_t hdr_len, uint32_t maxrecs,
				   uint32_t i)
{
	return hdr_len + (size_t)maxrecs * ops->key_len +
	       (size_t)i * ops->ptr_len;
}

/* Child pointer at byte off of a node: 4 or 8 bytes as the tree has. */
uint64_t od_bt_ptr_get(const struct od_bt_ops *ops, const uint8_t *node,
		       size_t off);
void od_bt_ptr_put(const struct od_bt_ops *ops, uint8_t *node, size_t off,
		   uint64_t ptr);

/*
 * The key of a leaf record, packed as a node holds it (xfs_*bt
 * init_key_from_rec): bnobt/cntbt the whole record, inobt/finobt the
 * start inode, refcountbt the start block (CoW flag included), bmbt the
 * file offset, rmapbt the low key only (od_rmap_rec_high_key for the
 * other half).  key has room for ops->key_len bytes.
 */
void od_bt_key_from_rec(enum od_bt_type t, const uint8_t *rec, uint8_t *key);

/* Fill a btree block header (v5 fields too) and leave records to caller. */
void od_btblock_encode_hdr(const struct od_btblock *hdr,
			   const struct od_geo *g, enum od_bt_type t,
			   uint8_t *buf);
/* Recompute a btree block's CRC (v5 only). */
void od_btblock_set_crc(const struct od_geo *g, enum od_bt_type t,
			uint8_t *buf, size_t len);

/*
 * A comparable key for a leaf record, so a walker can insist records come
 * in strictly increasing order (which also catches loops and shared
 * subtrees).  Fields compared a, then b, then c.
 */
struct od_btkey {
	uint64_t a, b, c;
};

void od_bt_rec_key(enum od_bt_type t, const uint8_t *rec, struct od_btkey *k);
/*
 * The same for a key slot of a node (the low key; for the rmapbt the high
 * key is the OD_RMAP_KEY_LEN bytes after it), as the kernel compares
 * them: bnobt and cntbt as their records, the rmapbt without the
 * unwritten bit.
 */
void od_bt_node_key(enum od_bt_type t, const uint8_t *key, struct od_btkey *k);
int od_btkey_cmp(const struct od_btkey *x, const struct od_btkey *y);

#endif
