/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AG headers: AGF (free space), AGI (inodes), AGFL (free list), each one
 * sector at AG daddr + 1, 2, 3 (xfs_format.h: XFS_AGF_DADDR ...).
 */
#ifndef OD_AG_H
#define OD_AG_H

#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"
#include "ondisk/geo.h"

#define OD_AGF_MAGIC		0x58414746u	/* "XAGF" */
#define OD_AGI_MAGIC		0x58414749u	/* "XAGI" */
#define OD_AGFL_MAGIC		0x5841464cu	/* "XAFL" */
#define OD_AGF_CRC_OFF		216
#define OD_AGI_CRC_OFF		312
#define OD_AGFL_LSN_OFF		24
#define OD_AGFL_CRC_OFF		32
#define OD_AGFL_V5_HDR		36
#define OD_AGI_UNLINKED		64
#define OD_NULLAGINO		0xffffffffu
#define OD_NULLAGBLOCK		0xffffffffu
#define OD_BTREE_MAXLEVELS	9	/* generous; real trees are shallower */

enum { OD_BTNUM_BNO, OD_BTNUM_CNT, OD_BTNUM_RMAP };

struct od_agf {
	uint32_t magicnum, versionnum, seqno, length;
	uint32_t roots[3], levels[3];
	uint32_t flfirst, fllast, flcount;
	uint32_t freeblks, longest, btreeblks;
	uint8_t uuid[16];
	uint32_t rmap_blocks, refcount_blocks;
	uint32_t refcount_root, refcount_level;
	uint64_t lsn;
	uint32_t crc;
};

struct od_agi {
	uint32_t magicnum, versionnum, seqno, length;
	uint32_t count, root, level, freecount, newino, dirino;
	uint32_t unlinked[OD_AGI_UNLINKED];
	uint8_t uuid[16];
	uint32_t crc;
	uint64_t lsn;
	uint32_t free_root, free_level, iblocks, fblocks;
};

/*
 * Decode and verify one AG header sector for AG agno.  Checks magic,
 * version, CRC and uuid (v5), sequence number, length and that every
 * root/level/index is in range.  *field names what failed.
 */
enum od_err od_agf_decode(const uint8_t *buf, size_t len,
			  const struct od_geo *g, uint32_t agno,
			  struct od_agf *agf, const char **field);
enum od_err od_agi_decode(const uint8_t *buf, size_t len,
			  const struct od_geo *g, uint32_t agno,
			  struct od_agi *agi, const char **field);

/* Does buf start with an AGF's magic (to tell damage from not-XFS)? */
bool od_agf_has_magic(const uint8_t *buf, size_t len);

/* Number of slots in the AGFL, which fills one sector. */
uint32_t od_agfl_size(const struct od_geo *g);
/* Verify the AGFL header (v5) and return a pointer to the be32 slots. */
enum od_err od_agfl_slots(const uint8_t *buf, size_t len,
			  const struct od_geo *g, uint32_t agno,
			  const uint8_t **slots, const char **field);
/* The block number in slot idx (< od_agfl_size) of those slots. */
uint32_t od_agfl_slot(const uint8_t *slots, uint32_t idx);
/* The v5 AGFL header's LSN (its last logged write); OD_EFIELD on v4. */
enum od_err od_agfl_lsn(const uint8_t *buf, size_t len,
			const struct od_geo *g, uint64_t *lsn);

/*
 * Rewrite the slots of an AGFL sector (header kept): blocks[0, n) from
 * slot 0, every other slot NULLAGBLOCK; its crc (v5).  n <= od_agfl_size.
 */
void od_agfl_set_slots(uint8_t *buf, size_t len, const struct od_geo *g,
		       const uint32_t *blocks, uint32_t n);

void od_agf_encode(const struct od_agf *agf, const struct od_geo *g,
		   uint8_t *buf, size_t len);
void od_agi_encode(const struct od_agi *agi, const struct od_geo *g,
		   uint8_t *buf, size_t len);

#endif
