/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote symlink blocks (xfs_format.h: struct xfs_dsymlink_hdr).  On v5
 * each mapped extent starts with this header and its CRC covers the
 * whole extent; v4 blocks hold the bare target.
 */
#ifndef OD_SYMLINK_H
#define OD_SYMLINK_H

#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"
#include "ondisk/geo.h"

#define OD_SYMLINK_MAGIC	0x58534c4du	/* "XSLM" */
#define OD_SYMLINK_HDR_LEN	56
#define OD_SYMLINK_CRC_OFF	12
#define OD_SYMLINK_MAXLEN	1024

struct od_symlink_hdr {
	uint32_t offset, bytes;
	uint64_t owner, blkno;
	uint64_t lsn;
};

/* Verify magic, CRC over len bytes, uuid and bounds of a v5 header. */
enum od_err od_symlink_hdr(const uint8_t *buf, size_t len,
			   const struct od_geo *g, struct od_symlink_hdr *h,
			   const char **field);

#endif
