/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Encoders for renumbering inodes (shared/XFS-NOTES.md, "Renumbering an
 * inode"): a fresh free inode for a new chunk, the stored number of a v3
 * inode, directory entries in shortform (literal area) and in data
 * blocks, and the v5 owner field of the blocks an inode owns: bmap btree
 * blocks (long-format header), directory data/leaf/node/free blocks
 * (xfs_dir3_blk_hdr, xfs_da3_blkinfo), attribute leaf/node and remote
 * value blocks (xfs_attr3_rmt_hdr) and remote symlink blocks
 * (xfs_dsymlink_hdr).  Every encoder that changes a checksummed
 * structure recomputes its CRC.
 */
#ifndef OD_RENUM_H
#define OD_RENUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/geo.h"
#include "ondisk/selfhdr.h"

#define OD_NULLAGINO		0xffffffffu
#define OD_DIR2_MAX_SHORT_INUM	0xffffffffull

/* xfs_dinode v3 (xfs_format.h): where di_ino and di_uuid are. */
#define OD_DINODE_V3_INO_OFF	152
#define OD_DINODE_V3_UUID_OFF	160
#define OD_DINODE_V3_CORE	176
#define OD_DINODE_V2_CORE	100

/*
 * A free inode as a new chunk holds it (what the kernel writes when it
 * allocates a chunk): magic, version (3 on v5, else 2), mode 0,
 * next_unlinked NULLAGINO, generation gen; v3 also di_ino, the uuid and
 * the CRC.  len is the inode size.
 */
void od_dinode_init_free(uint8_t *buf, size_t len, const struct od_geo *g,
			 uint64_t ino, uint32_t gen);

/* di_gen of a raw inode. */
uint32_t od_dinode_gen(const uint8_t *buf);

/* Store di_size (no CRC: the caller's next step sets it). */
void od_dinode_set_size(uint8_t *buf, uint64_t size);

/* Store a v3 inode's own number and recompute its CRC (v2: no-op). */
void od_dinode_set_ino(uint8_t *buf, size_t len, const struct od_geo *g,
		       uint64_t ino);

/* The new number of an inode, or the number itself if it stays. */
typedef uint64_t (*od_ino_map_fn)(void *priv, uint64_t ino);

/*
 * Renumber a shortform directory in place: the parent and every entry's
 * inode number through map.  When no number needs 8 bytes any more the
 * entries shrink to 4-byte numbers (i8count 0) and *size (the fork's
 * bytes, di_size) shrinks by 4 per entry and for the parent; the bytes
 * freed are zeroed.  New numbers must not need 8 bytes where the old
 * ones did not (-EOVERFLOW; nothing changed).  Returns 1 if anything
 * changed, 0 if not, -EUCLEAN if the fork does not decode within
 * cap bytes (the fork's room).
 */
int od_dir2_sf_renumber(uint8_t *fork, size_t cap, uint32_t *size,
			bool ftype, od_ino_map_fn map, void *priv);

/*
 * Renumber the entries of a directory data or block-format block of len
 * bytes in place (including "." and ".."), set its v5 owner to owner
 * (0: leave) and recompute the CRC.  Returns 1 if anything changed, 0
 * if not, negative if the block does not decode.
 */
int od_dir2_data_renumber(uint8_t *buf, size_t len, const struct od_geo *g,
			  od_ino_map_fn map, void *priv, uint64_t owner);

/*
 * Where a v5 block of a directory, attribute or symlink fork keeps its
 * owner (found like od_selfaddr_find): false if none of those magics.
 */
bool od_selfowner_find(const uint8_t *b, size_t len, enum od_self_fork f,
		       size_t *owner_off, size_t *crc_off);
/* Set the owner of that block of len bytes; its CRC.  1 if changed. */
int od_selfowner_set(uint8_t *b, size_t len, enum od_self_fork f,
		     uint64_t owner);

/*
 * Set the owner of a v5 bmap btree block (long-format header) of len
 * bytes and recompute its CRC; 1 if changed, 0 if not, -EINVAL if the
 * block has no bmbt v5 magic.
 */
int od_bmbt_block_set_owner(uint8_t *b, size_t len, uint64_t owner);

#endif
