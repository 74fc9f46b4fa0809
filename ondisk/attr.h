/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Extended attributes (xfs_da_format.h): the shortform list inside the
 * inode's attr fork (struct xfs_attr_shortform) and the entries of an
 * attr leaf block (xfs_attr_leafblock / xfs_attr3_leafblock): a header
 * with a three-slot free map, an entry array sorted by name hash, and
 * the names (with local values, or pointers to remote value blocks)
 * packed from the end of the block towards the entries.
 */
#ifndef OD_ATTR_H
#define OD_ATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/da.h"
#include "ondisk/err.h"
#include "ondisk/geo.h"

/* entry flags (XFS_ATTR_*) */
#define OD_ATTR_LOCAL		0x01
#define OD_ATTR_ROOT		0x02
#define OD_ATTR_SECURE		0x04
#define OD_ATTR_PARENT		0x08
#define OD_ATTR_INCOMPLETE	0x80

#define OD_ATTR_SF_HDR_LEN	4	/* totsize, count, padding */
#define OD_ATTR_SF_ENT_LEN	3	/* namelen, valuelen, flags */

struct od_attr_sf_hdr {
	uint16_t totsize;	/* bytes in use, header included */
	uint8_t count;
};

struct od_attr_sf_ent {
	uint8_t namelen, valuelen, flags;
	const uint8_t *name;	/* value follows the name */
	uint32_t size;		/* bytes the entry takes */
};

/* The shortform header at the start of an attr fork of len bytes. */
enum od_err od_attr_sf_hdr(const uint8_t *fork, size_t len,
			   struct od_attr_sf_hdr *h);
/*
 * The entry at *pos, which must lie (with its name and value) before
 * end; *pos advances.  OD_ESHORT when it does not fit.
 */
enum od_err od_attr_sf_entry(const uint8_t *fork, size_t end, uint32_t *pos,
			     struct od_attr_sf_ent *e);

struct od_attr_leaf_hdr {
	struct od_da_blkinfo info;
	uint16_t count, usedbytes;
	uint32_t firstused;	/* 0 on disk means a 64 KiB block's end */
	uint8_t holes;
	uint16_t free_base[3], free_size[3];
	uint32_t hdr_len;	/* the entry array starts here */
};

/*
 * Decode an attr leaf block header (magic for the fs version; on v5 the
 * CRC over len bytes and uuid, via od_da_blkinfo).  Bounds are the
 * caller's to judge.
 */
enum od_err od_attr_leaf_hdr(const uint8_t *buf, size_t len,
			     const struct od_geo *g,
			     struct od_attr_leaf_hdr *h, const char **field);

struct od_attr_leaf_ent {
	uint32_t hash;
	uint16_t nameidx;	/* where its name structure starts */
	uint8_t flags;
	/* the name structure (valid when od_attr_leaf_name said so) */
	uint8_t namelen;
	uint32_t valuelen;
	uint32_t valueblk;	/* remote: first block of the value */
	const uint8_t *name;
	uint32_t size;		/* bytes the name structure takes */
};

/* Entry i (i < count, and the array inside the block: caller's check). */
void od_attr_leaf_entry(const uint8_t *buf, const struct od_attr_leaf_hdr *h,
			uint32_t i, struct od_attr_leaf_ent *e);
/*
 * Decode entry e's name structure at e->nameidx: local (name and value)
 * or remote (name, value block and length).  OD_ESHORT when it does not
 * fit in the len-byte block.
 */
enum od_err od_attr_leaf_name(const uint8_t *buf, size_t len,
			      struct od_attr_leaf_ent *e);

/* Bytes of a local or remote name structure (xfs_attr_leaf_entsize_*). */
static inline uint32_t od_attr_local_size(uint32_t namelen, uint32_t valuelen)
{
	return (3 + namelen + valuelen + 3) & ~3u;
}

static inline uint32_t od_attr_remote_size(uint32_t namelen)
{
	return (11 + namelen + 3) & ~3u;
}

/* One attribute to put in a leaf block (od_attr_leaf_fill). */
struct od_attr_item {
	uint32_t hash;
	uint8_t flags;		/* OD_ATTR_LOCAL and the namespace */
	uint8_t namelen;
	uint32_t valuelen;
	uint32_t valueblk;	/* remote: the value's first fork block */
	const uint8_t *name;	/* local: the value follows the name */
};

/* Bytes an item takes in a leaf block: its name structure and entry. */
static inline uint32_t od_attr_item_bytes(const struct od_attr_item *it)
{
	return 8 + ((it->flags & OD_ATTR_LOCAL) ?
		    od_attr_local_size(it->namelen, it->valuelen) :
		    od_attr_remote_size(it->namelen));
}

/*
 * Rewrite the v5 attr leaf block buf (len bytes, its blkinfo kept) to
 * hold exactly v[0..n), in that order (the caller sorts them by hash):
 * entries after the header, name structures packed at the end of the
 * block, usedbytes, firstused, no holes, one free map slot for the gap
 * between them; the CRC recomputed.  No item may point into buf.
 * -ENOSPC when they do not fit, -EINVAL when buf is no v5 attr leaf.
 */
int od_attr_leaf_fill(uint8_t *buf, size_t len, const struct od_geo *g,
		      const struct od_attr_item *v, size_t n);
/* The bytes items may take in a leaf block of len bytes (v5). */
static inline uint32_t od_attr_leaf_room(size_t len)
{
	return (uint32_t)len - 80;	/* struct xfs_attr3_leaf_hdr */
}

#endif
