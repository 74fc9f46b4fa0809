/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Superblock decode/encode.  One table maps every on-disk field
 * (xfs_format.h: struct xfs_dsb) to its member, so both directions agree.
 */
#include "ondisk/sb.h"
#include "ondisk/be.h"
#include "ondisk/crc32c.h"

#include <stddef.h>
#include <string.h>

struct sb_field {
	uint16_t off;	/* byte offset on disk */
	uint8_t size;	/* 1, 2, 4, 8, or a byte-array length */
	uint8_t raw;	/* byte array, copied as is */
	size_t member;	/* offsetof(struct od_sb, ...) */
};

#define FLD(o, s, m)	{ o, s, 0, offsetof(struct od_sb, m) }
#define RAW(o, s, m)	{ o, s, 1, offsetof(struct od_sb, m) }

static const struct sb_field sb_fields[] = {
	FLD(0, 4, magicnum),	FLD(4, 4, blocksize),	FLD(8, 8, dblocks),
	FLD(16, 8, rblocks),	FLD(24, 8, rextents),	RAW(32, 16, uuid),
	FLD(48, 8, logstart),	FLD(56, 8, rootino),	FLD(64, 8, rbmino),
	FLD(72, 8, rsumino),	FLD(80, 4, rextsize),	FLD(84, 4, agblocks),
	FLD(88, 4, agcount),	FLD(92, 4, rbmblocks),	FLD(96, 4, logblocks),
	FLD(100, 2, versionnum), FLD(102, 2, sectsize),	FLD(104, 2, inodesize),
	FLD(106, 2, inopblock),	RAW(108, 12, fname),	FLD(120, 1, blocklog),
	FLD(121, 1, sectlog),	FLD(122, 1, inodelog),	FLD(123, 1, inopblog),
	FLD(124, 1, agblklog),	FLD(125, 1, rextslog),	FLD(126, 1, inprogress),
	FLD(127, 1, imax_pct),	FLD(128, 8, icount),	FLD(136, 8, ifree),
	FLD(144, 8, fdblocks),	FLD(152, 8, frextents),	FLD(160, 8, uquotino),
	FLD(168, 8, gquotino),	FLD(176, 2, qflags),	FLD(178, 1, flags),
	FLD(179, 1, shared_vn),	FLD(180, 4, inoalignmt), FLD(184, 4, unit),
	FLD(188, 4, width),	FLD(192, 1, dirblklog),	FLD(193, 1, logsectlog),
	FLD(194, 2, logsectsize), FLD(196, 4, logsunit), FLD(200, 4, features2),
	FLD(204, 4, bad_features2),
	/* v5 fields from here on */
	FLD(208, 4, features_compat), FLD(212, 4, features_ro_compat),
	FLD(216, 4, features_incompat), FLD(220, 4, features_log_incompat),
	/* 224: sb_crc is little-endian, handled separately */
	FLD(228, 4, spino_align), FLD(232, 8, pquotino), FLD(240, 8, lsn),
	RAW(248, 16, meta_uuid),
	/* metadir and zoned fields (sectors of 512 bytes and more) */
	FLD(264, 8, metadirino), FLD(272, 4, rgcount), FLD(276, 4, rgextents),
	FLD(280, 1, rgblklog),	RAW(281, 7, pad),	FLD(288, 8, rtstart),
	FLD(296, 8, rtreserved),
};

bool od_sb_has_magic(const uint8_t *buf, size_t len)
{
	return len >= 4 && od_get_be32(buf) == OD_SB_MAGIC;
}

enum od_err od_sb_decode(const uint8_t *buf, size_t len, struct od_sb *sb)
{
	size_t i;

	memset(sb, 0, sizeof(*sb));
	if (len < OD_SB_V4_LEN)
		return OD_ESHORT;
	if (od_get_be32(buf) != OD_SB_MAGIC) {
		sb->magicnum = od_get_be32(buf);
		return OD_EMAGIC;
	}
	for (i = 0; i < sizeof(sb_fields) / sizeof(sb_fields[0]); i++) {
		const struct sb_field *f = &sb_fields[i];
		uint8_t *m = (uint8_t *)sb + f->member;
		const uint8_t *p = buf + f->off;

		/* fields past sb_meta_uuid only where the buffer has them */
		if (f->off + f->size > len && f->off >= OD_SB_V5_LEN)
			break;
		if (f->off + f->size > len)
			return OD_ESHORT;
		/* v4 superblocks leave everything past bad_features2 undefined */
		if (f->off >= OD_SB_V4_LEN && !od_sb_is_v5(sb))
			break;
		if (f->raw) {
			memcpy(m, p, f->size);
			continue;
		}
		switch (f->size) {
		case 1: *m = *p; break;
		case 2: *(uint16_t *)(void *)m = od_get_be16(p); break;
		case 4: *(uint32_t *)(void *)m = od_get_be32(p); break;
		case 8: *(uint64_t *)(void *)m = od_get_be64(p); break;
		}
	}
	sb->fname[12] = '\0';
	if (od_sb_is_v5(sb)) {
		if (len < OD_SB_V5_LEN)
			return OD_ESHORT;
		sb->crc = od_get_le32(buf + OD_SB_CRC_OFF);
	}
	return OD_OK;
}

bool od_sb_set_needsrepair(uint8_t *buf, size_t len, bool on)
{
	struct od_sb sb;

	if (od_sb_decode(buf, len, &sb) != OD_OK || !od_sb_is_v5(&sb))
		return false;
	if (on)
		sb.features_incompat |= OD_INCOMPAT_NEEDSREPAIR;
	else
		sb.features_incompat &= ~OD_INCOMPAT_NEEDSREPAIR;
	return od_sb_encode(&sb, buf, len) == OD_OK;
}

enum od_err od_sb_encode(const struct od_sb *sb, uint8_t *buf, size_t len)
{
	size_t i;

	if (len < (od_sb_is_v5(sb) ? OD_SB_V5_LEN : OD_SB_V4_LEN))
		return OD_ESHORT;
	for (i = 0; i < sizeof(sb_fields) / sizeof(sb_fields[0]); i++) {
		const struct sb_field *f = &sb_fields[i];
		const uint8_t *m = (const uint8_t *)sb + f->member;
		uint8_t *p = buf + f->off;

		if (f->off >= OD_SB_V4_LEN && !od_sb_is_v5(sb))
			break;
		if (f->off + f->size > len)
			break;	/* past sb_meta_uuid: see od_sb_decode */
		if (f->raw) {
			memcpy(p, m, f->size);
			continue;
		}
		switch (f->size) {
		case 1: *p = *m; break;
		case 2: od_put_be16(p, *(const uint16_t *)(const void *)m); break;
		case 4: od_put_be32(p, *(const uint32_t *)(const void *)m); break;
		case 8: od_put_be64(p, *(const uint64_t *)(const void *)m); break;
		}
	}
	if (od_sb_is_v5(sb))
		od_cksum_set(buf, sb->sectsize <= len ? sb->sectsize : len,
			     OD_SB_CRC_OFF);
	return OD_OK;
}

static unsigned highbit32(uint32_t v)
{
	unsigned n = 0;

	while (v >>= 1)
		n++;
	return n;
}

enum od_err od_sb_validate(const struct od_sb *sb, const char **field)
{
	unsigned vnum = sb->versionnum & OD_SB_VERSION_NUMBITS;
	uint64_t agcount, rem, maxblocks;

	*field = NULL;
	if (sb->magicnum != OD_SB_MAGIC)
		return od_bad_field(field, "magicnum");
	if (vnum != 4 && vnum != 5)
		return od_bad_field(field, "versionnum");
	if (vnum == 4 && !(sb->versionnum & OD_SB_VERSION_DIRV2))
		return od_bad_field(field, "versionnum");
	if (sb->sectlog < 9 || sb->sectlog > 15 ||
	    sb->sectsize != (1u << sb->sectlog))
		return od_bad_field(field, "sectsize");
	if (sb->blocklog < 9 || sb->blocklog > 16 ||
	    sb->blocksize != (1u << sb->blocklog))
		return od_bad_field(field, "blocksize");
	if (vnum == 5 && sb->blocksize < 1024)
		return od_bad_field(field, "blocksize");
	if (sb->blocksize < sb->sectsize)
		return od_bad_field(field, "blocksize");
	if (sb->inodelog < 8 || sb->inodelog > 11 ||
	    sb->inodesize != (1u << sb->inodelog) ||
	    sb->inodesize > sb->blocksize)
		return od_bad_field(field, "inodesize");
	if (vnum == 5 && sb->inodesize < 512)
		return od_bad_field(field, "inodesize");
	if (sb->inopblock != sb->blocksize / sb->inodesize)
		return od_bad_field(field, "inopblock");
	if (sb->inopblog != sb->blocklog - sb->inodelog)
		return od_bad_field(field, "inopblog");
	if (sb->dirblklog + sb->blocklog > 16)
		return od_bad_field(field, "dirblklog");
	if (sb->agblocks < 16 || sb->agblklog > 31 ||
	    sb->agblklog != highbit32(sb->agblocks - 1) + 1)
		return od_bad_field(field, "agblocks");
	if ((uint64_t)sb->agblocks << sb->blocklog < (16u << 20) &&
	    sb->agblocks < 64)
		return od_bad_field(field, "agblocks");
	/* zero, or more bytes than a file offset (loff_t) can address */
	if (sb->dblocks == 0 ||
	    sb->dblocks > (uint64_t)INT64_MAX >> sb->blocklog)
		return od_bad_field(field, "dblocks");
	agcount = sb->dblocks / sb->agblocks;
	rem = sb->dblocks % sb->agblocks;
	if (rem)
		agcount++;
	if (sb->agcount == 0 || agcount != sb->agcount)
		return od_bad_field(field, "agcount");
	/* packed block numbers: agno above agblklog bits, 52 bits in all */
	maxblocks = (uint64_t)sb->agcount << sb->agblklog;
	if (maxblocks >> 52)
		return od_bad_field(field, "agcount");
	if (sb->imax_pct > 100)
		return od_bad_field(field, "imax_pct");
	if (sb->shared_vn != 0)
		return od_bad_field(field, "shared_vn");
	if (sb->logblocks == 0 && sb->logstart != 0)
		return od_bad_field(field, "logblocks");
	if (sb->logstart != 0 &&
	    (sb->logstart >> sb->agblklog >= sb->agcount ||
	     (sb->logstart & ((1ull << sb->agblklog) - 1)) +
	     sb->logblocks > sb->agblocks))
		return od_bad_field(field, "logstart");
	if (sb->unit && sb->width % sb->unit)
		return od_bad_field(field, "width");
	if (sb->inoalignmt > sb->agblocks)
		return od_bad_field(field, "inoalignmt");
	return OD_OK;
}


/* v5 superblocks imply the "always on" v4 features (xfs_sb.c). */
bool od_sb_has_ftype(const struct od_sb *sb)
{
	if (od_sb_is_v5(sb))
		return sb->features_incompat & OD_INCOMPAT_FTYPE;
	return od_sb_has_morebits(sb) && (sb->features2 & OD_SB_F2_FTYPE);
}

bool od_sb_has_finobt(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) && (sb->features_ro_compat & OD_RO_FINOBT);
}

bool od_sb_has_sparse(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) &&
	       (sb->features_incompat & OD_INCOMPAT_SPINODES);
}

bool od_sb_has_rmapbt(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) && (sb->features_ro_compat & OD_RO_RMAPBT);
}

bool od_sb_has_reflink(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) && (sb->features_ro_compat & OD_RO_REFLINK);
}

bool od_sb_has_bigtime(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) &&
	       (sb->features_incompat & OD_INCOMPAT_BIGTIME);
}

bool od_sb_has_nrext64(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) &&
	       (sb->features_incompat & OD_INCOMPAT_NREXT64);
}

bool od_sb_has_inobtcnt(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) && (sb->features_ro_compat & OD_RO_INOBTCNT);
}

bool od_sb_has_meta_uuid(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) &&
	       (sb->features_incompat & OD_INCOMPAT_META_UUID);
}

bool od_sb_has_parent(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) &&
	       (sb->features_incompat & OD_INCOMPAT_PARENT);
}

bool od_sb_has_exchange(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) &&
	       (sb->features_incompat & OD_INCOMPAT_EXCHRANGE);
}

bool od_sb_has_metadir(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) &&
	       (sb->features_incompat & OD_INCOMPAT_METADIR);
}

bool od_sb_has_zoned(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) &&
	       (sb->features_incompat & OD_INCOMPAT_ZONED);
}

static bool has_f2(const struct od_sb *sb, uint32_t bit)
{
	return od_sb_is_v5(sb) ||
	       (od_sb_has_morebits(sb) && (sb->features2 & bit));
}

bool od_sb_has_lazysbcount(const struct od_sb *sb)
{
	return has_f2(sb, OD_SB_F2_LAZYSBCOUNT);
}

bool od_sb_has_attr2(const struct od_sb *sb)
{
	return has_f2(sb, OD_SB_F2_ATTR2);
}

bool od_sb_has_projid32(const struct od_sb *sb)
{
	return has_f2(sb, OD_SB_F2_PROJID32);
}

bool od_sb_has_logv2(const struct od_sb *sb)
{
	return od_sb_is_v5(sb) || (sb->versionnum & OD_SB_VERSION_LOGV2);
}

bool od_sb_has_sector(const struct od_sb *sb)
{
	return sb->versionnum & OD_SB_VERSION_SECTOR;
}

bool od_sb_has_asciici(const struct od_sb *sb)
{
	return sb->versionnum & OD_SB_VERSION_BORG;
}

bool od_sb_has_attr(const struct od_sb *sb)
{
	return sb->versionnum & OD_SB_VERSION_ATTR;
}

struct bit_name {
	uint32_t bit;
	const char *name;
};

static const char *bit_lookup(const struct bit_name *t, size_t n, uint32_t bit)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].bit == bit)
			return t[i].name;
	return NULL;
}

#define LOOKUP(t, bit)	bit_lookup(t, sizeof(t) / sizeof(t[0]), bit)

const char *od_sb_incompat_name(uint32_t bit)
{
	static const struct bit_name t[] = {
		{ OD_INCOMPAT_FTYPE, "ftype" },
		{ OD_INCOMPAT_SPINODES, "sparse" },
		{ OD_INCOMPAT_META_UUID, "metauuid" },
		{ OD_INCOMPAT_BIGTIME, "bigtime" },
		{ OD_INCOMPAT_NEEDSREPAIR, "needsrepair" },
		{ OD_INCOMPAT_NREXT64, "nrext64" },
		{ OD_INCOMPAT_EXCHRANGE, "exchange" },
		{ OD_INCOMPAT_PARENT, "parent" },
		{ OD_INCOMPAT_METADIR, "metadir" },
		{ OD_INCOMPAT_ZONED, "zoned" },
	};
	return LOOKUP(t, bit);
}

const char *od_sb_ro_compat_name(uint32_t bit)
{
	static const struct bit_name t[] = {
		{ OD_RO_FINOBT, "finobt" },
		{ OD_RO_RMAPBT, "rmapbt" },
		{ OD_RO_REFLINK, "reflink" },
		{ OD_RO_INOBTCNT, "inobtcount" },
	};
	return LOOKUP(t, bit);
}

const char *od_sb_log_incompat_name(uint32_t bit)
{
	static const struct bit_name t[] = {
		{ OD_LOG_INCOMPAT_XATTRS, "xattrs" },
	};
	return LOOKUP(t, bit);
}

const char *od_sb_version_name(uint16_t bit)
{
	static const struct bit_name t[] = {
		{ OD_SB_VERSION_ATTR, "attr" },
		{ OD_SB_VERSION_NLINK, "nlink" },
		{ OD_SB_VERSION_QUOTA, "quota" },
		{ OD_SB_VERSION_ALIGN, "align" },
		{ OD_SB_VERSION_DALIGN, "dalign" },
		{ OD_SB_VERSION_SHARED, "shared" },
		{ OD_SB_VERSION_LOGV2, "logv2" },
		{ OD_SB_VERSION_SECTOR, "sector" },
		{ OD_SB_VERSION_EXTFLG, "extflg" },
		{ OD_SB_VERSION_DIRV2, "dirv2" },
		{ OD_SB_VERSION_BORG, "asciici" },
		{ OD_SB_VERSION_MOREBITS, "morebits" },
	};
	return LOOKUP(t, bit);
}

const char *od_sb_features2_name(uint32_t bit)
{
	static const struct bit_name t[] = {
		{ OD_SB_F2_LAZYSBCOUNT, "lazysbcount" },
		{ OD_SB_F2_ATTR2, "attr2" },
		{ OD_SB_F2_PARENT, "parent" },
		{ OD_SB_F2_PROJID32, "projid32bit" },
		{ OD_SB_F2_CRC, "crc" },
		{ OD_SB_F2_FTYPE, "ftype" },
	};
	return LOOKUP(t, bit);
}
