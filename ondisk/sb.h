/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XFS superblock (xfs_format.h: struct xfs_dsb), decoded field by field.
 */
#ifndef OD_SB_H
#define OD_SB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/err.h"

#define OD_SB_MAGIC		0x58465342u	/* "XFSB" */
#define OD_SB_CRC_OFF		224
#define OD_SB_V4_LEN		208	/* through sb_bad_features2 */
#define OD_SB_V5_LEN		264	/* through sb_meta_uuid */
#define OD_SB_METADIR_LEN	288	/* through sb_pad (metadir) */
#define OD_SB_ZONED_LEN		304	/* through sb_rtreserved (zoned) */

/* sb_versionnum bits */
#define OD_SB_VERSION_NUMBITS	0x000f
#define OD_SB_VERSION_ATTR	0x0010
#define OD_SB_VERSION_NLINK	0x0020
#define OD_SB_VERSION_QUOTA	0x0040
#define OD_SB_VERSION_ALIGN	0x0080
#define OD_SB_VERSION_DALIGN	0x0100
#define OD_SB_VERSION_SHARED	0x0200
#define OD_SB_VERSION_LOGV2	0x0400
#define OD_SB_VERSION_SECTOR	0x0800
#define OD_SB_VERSION_EXTFLG	0x1000
#define OD_SB_VERSION_DIRV2	0x2000
#define OD_SB_VERSION_BORG	0x4000	/* ascii-ci */
#define OD_SB_VERSION_MOREBITS	0x8000

/* sb_features2 bits */
#define OD_SB_F2_LAZYSBCOUNT	0x0002
#define OD_SB_F2_ATTR2		0x0008
#define OD_SB_F2_PARENT		0x0010
#define OD_SB_F2_PROJID32	0x0080
#define OD_SB_F2_CRC		0x0100
#define OD_SB_F2_FTYPE		0x0200

/* v5 feature words */
#define OD_RO_FINOBT		(1u << 0)
#define OD_RO_RMAPBT		(1u << 1)
#define OD_RO_REFLINK		(1u << 2)
#define OD_RO_INOBTCNT		(1u << 3)
#define OD_INCOMPAT_FTYPE	(1u << 0)
#define OD_INCOMPAT_SPINODES	(1u << 1)
#define OD_INCOMPAT_META_UUID	(1u << 2)
#define OD_INCOMPAT_BIGTIME	(1u << 3)
#define OD_INCOMPAT_NEEDSREPAIR	(1u << 4)
#define OD_INCOMPAT_NREXT64	(1u << 5)
#define OD_INCOMPAT_EXCHRANGE	(1u << 6)
#define OD_INCOMPAT_PARENT	(1u << 7)
#define OD_INCOMPAT_METADIR	(1u << 8)
#define OD_INCOMPAT_ZONED	(1u << 9)
#define OD_LOG_INCOMPAT_XATTRS	(1u << 0)

struct od_sb {
	uint32_t magicnum;
	uint32_t blocksize;
	uint64_t dblocks;
	uint64_t rblocks;
	uint64_t rextents;
	uint8_t uuid[16];
	uint64_t logstart;
	uint64_t rootino;
	uint64_t rbmino;
	uint64_t rsumino;
	uint32_t rextsize;
	uint32_t agblocks;
	uint32_t agcount;
	uint32_t rbmblocks;
	uint32_t logblocks;
	uint16_t versionnum;
	uint16_t sectsize;
	uint16_t inodesize;
	uint16_t inopblock;
	char fname[13];		/* label, NUL-terminated copy */
	uint8_t blocklog;
	uint8_t sectlog;
	uint8_t inodelog;
	uint8_t inopblog;
	uint8_t agblklog;
	uint8_t rextslog;
	uint8_t inprogress;
	uint8_t imax_pct;
	uint64_t icount;
	uint64_t ifree;
	uint64_t fdblocks;
	uint64_t frextents;
	uint64_t uquotino;
	uint64_t gquotino;
	uint16_t qflags;
	uint8_t flags;
	uint8_t shared_vn;
	uint32_t inoalignmt;
	uint32_t unit;
	uint32_t width;
	uint8_t dirblklog;
	uint8_t logsectlog;
	uint16_t logsectsize;
	uint32_t logsunit;
	uint32_t features2;
	uint32_t bad_features2;
	/* v5 only (zero on v4) */
	uint32_t features_compat;
	uint32_t features_ro_compat;
	uint32_t features_incompat;
	uint32_t features_log_incompat;
	uint32_t crc;
	uint32_t spino_align;
	uint64_t pquotino;
	uint64_t lsn;
	uint8_t meta_uuid[16];
	/* metadir (zero otherwise; 0 when the sector is too short) */
	uint64_t metadirino;
	uint32_t rgcount;
	uint32_t rgextents;
	uint8_t rgblklog;
	uint8_t pad[7];
	/* zoned */
	uint64_t rtstart;
	uint64_t rtreserved;
};

/* Do the first bytes of buf hold the superblock magic? */
bool od_sb_has_magic(const uint8_t *buf, size_t len);

/* Decode buf (one sector, at least OD_SB_V4_LEN bytes). Checks magic only. */
enum od_err od_sb_decode(const uint8_t *buf, size_t len, struct od_sb *sb);
/*
 * Sanity ladder (in the spirit of xfs_validate_sb_common): geometry that
 * every later computation depends on.  On failure *field names the culprit.
 */
enum od_err od_sb_validate(const struct od_sb *sb, const char **field);

static inline bool od_sb_is_v5(const struct od_sb *sb)
{
	return (sb->versionnum & OD_SB_VERSION_NUMBITS) == 5;
}

/* Does the superblock carry the v4 sb_features2 word? */
static inline bool od_sb_has_morebits(const struct od_sb *sb)
{
	return (sb->versionnum & OD_SB_VERSION_MOREBITS) != 0;
}

/* Feature predicates, v4 bits and v5 words combined as libxfs does. */
bool od_sb_has_ftype(const struct od_sb *sb);
bool od_sb_has_finobt(const struct od_sb *sb);
bool od_sb_has_sparse(const struct od_sb *sb);
bool od_sb_has_rmapbt(const struct od_sb *sb);
bool od_sb_has_reflink(const struct od_sb *sb);
bool od_sb_has_bigtime(const struct od_sb *sb);
bool od_sb_has_nrext64(const struct od_sb *sb);
bool od_sb_has_inobtcnt(const struct od_sb *sb);
bool od_sb_has_meta_uuid(const struct od_sb *sb);
bool od_sb_has_lazysbcount(const struct od_sb *sb);
bool od_sb_has_attr2(const struct od_sb *sb);
bool od_sb_has_projid32(const struct od_sb *sb);
bool od_sb_has_logv2(const struct od_sb *sb);
bool od_sb_has_sector(const struct od_sb *sb);
bool od_sb_has_asciici(const struct od_sb *sb);
bool od_sb_has_attr(const struct od_sb *sb);
bool od_sb_has_parent(const struct od_sb *sb);
bool od_sb_has_exchange(const struct od_sb *sb);
bool od_sb_has_metadir(const struct od_sb *sb);
bool od_sb_has_zoned(const struct od_sb *sb);
/* realtime groups: every metadir filesystem (one group, or none without
 * a realtime section) */
static inline bool od_sb_has_rtgroups(const struct od_sb *sb)
{
	return od_sb_has_metadir(sb);
}

/* Name of one feature bit, or NULL if we do not know it. */
const char *od_sb_incompat_name(uint32_t bit);
const char *od_sb_ro_compat_name(uint32_t bit);
const char *od_sb_log_incompat_name(uint32_t bit);
const char *od_sb_version_name(uint16_t bit);
const char *od_sb_features2_name(uint32_t bit);

/*
 * Set or clear NEEDSREPAIR (v5 incompat) in the superblock sector buf and
 * update its crc; v4 sectors and ones that do not decode are left as they
 * are (false).
 */
bool od_sb_set_needsrepair(uint8_t *buf, size_t len, bool on);

/* Encode the decoded fields back (for the writer); updates the crc on v5. */
enum od_err od_sb_encode(const struct od_sb *sb, uint8_t *buf, size_t len);

#endif
