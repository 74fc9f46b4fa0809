/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dabtree shared by directories and attributes (xfs_da_format.h):
 * every block starts with a blkinfo (sibling links and a 16-bit magic);
 * v5 adds crc, blkno, uuid and owner.  Interior nodes map hash values to
 * child blocks.
 */
#ifndef OD_DA_H
#define OD_DA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"
#include "ondisk/geo.h"

#define OD_DA_NODE_MAGIC	0xfebe
#define OD_DA3_NODE_MAGIC	0x3ebe
#define OD_DIR2_LEAF1_MAGIC	0xd2f1
#define OD_DIR3_LEAF1_MAGIC	0x3df1
#define OD_DIR2_LEAFN_MAGIC	0xd2ff
#define OD_DIR3_LEAFN_MAGIC	0x3dff
#define OD_ATTR_LEAF_MAGIC	0xfbee
#define OD_ATTR3_LEAF_MAGIC	0x3bee

#define OD_DA_BLKINFO_LEN	12
#define OD_DA3_BLKINFO_LEN	56
#define OD_DA3_CRC_OFF		12
#define OD_DA_NODE_HDR_LEN	16
#define OD_DA3_NODE_HDR_LEN	64

struct od_da_blkinfo {
	uint32_t forw, back;
	uint16_t magic;
	uint64_t blkno;		/* v5 */
	uint64_t lsn;		/* v5 */
	uint64_t owner;		/* v5 */
};

/*
 * Decode the blkinfo at the start of a dabtree block of len bytes; on v5
 * verify its CRC over len bytes and the uuid.  Does not check the magic.
 */
enum od_err od_da_blkinfo(const uint8_t *buf, size_t len,
			  const struct od_geo *g, struct od_da_blkinfo *bi,
			  const char **field);

struct od_da_node {
	struct od_da_blkinfo info;
	uint16_t count;
	uint16_t level;
	uint32_t hdr_len;	/* entries start here */
};

/* Decode an interior node; checks magic, level, count fits the block. */
enum od_err od_da_node_decode(const uint8_t *buf, size_t len,
			      const struct od_geo *g, struct od_da_node *node,
			      const char **field);
/* Entry i of a node: hash value and child block (fs block in the fork). */
void od_da_node_entry(const uint8_t *buf, const struct od_da_node *node,
		      uint32_t i, uint32_t *hash, uint32_t *before);

/* Set entry i's hash value (the CRC is the caller's to recompute). */
void od_da_node_set_hash(uint8_t *buf, const struct od_da_node *node,
			 uint32_t i, uint32_t hash);

/* Is this the node magic for the fs version? */
bool od_da_is_node(const struct od_geo *g, uint16_t magic);

/*
 * The magic of the dabtree block at buf (at least OD_DA_BLKINFO_LEN
 * bytes), unverified: which decoder to try on a block already read.
 */
uint16_t od_da_magic(const uint8_t *buf);

#endif
