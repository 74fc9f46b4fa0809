/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every superblock copy, as the kernel's superblock verifier
 * (xfs_validate_sb_common) and xfs_repair (verify_sb, the geometry
 * comparison and secondary_sb_whack) judge them:
 *   - the feature words a kernel accepts, sizes and their logs, the
 *     data, log, realtime, inode alignment and stripe geometry;
 *   - the fields that only make sense with a feature bit (inode
 *     alignment, stripe unit and width, sector sizes) and the bytes past
 *     the last field of the version, which must be zero;
 *   - secondaries (the copy at the start of every other AG): their CRC,
 *     the same rules, the primary's geometry and v5 feature words.
 * The primary's counters are compared with what was counted elsewhere
 * (check_counters.c).
 */
#include "core/check/check_int.h"
#include "ondisk/crc32c.h"
#include "ondisk/mkfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* xfs_format.h, xfs_fs.h, xfs_log_format.h */
#define SB_VERSION_OKBITS	0xfdffu		/* every bit but SHARED */
#define SB_F2_OKBITS		(OD_SB_F2_LAZYSBCOUNT | OD_SB_F2_ATTR2 | \
				 OD_SB_F2_PROJID32 | OD_SB_F2_FTYPE)
#define V5_VERS_FLAGS		(OD_SB_VERSION_NLINK | OD_SB_VERSION_ALIGN | \
				 OD_SB_VERSION_LOGV2 | OD_SB_VERSION_EXTFLG | \
				 OD_SB_VERSION_DIRV2 | OD_SB_VERSION_MOREBITS)
#define V5_FEAT_FLAGS		(OD_SB_F2_LAZYSBCOUNT | OD_SB_F2_ATTR2 | \
				 OD_SB_F2_PROJID32 | OD_SB_F2_CRC)
#define MIN_AG_BLOCKS		64
#define MIN_AG_BYTES		(1ull << 24)
#define MAX_AG_BYTES		(1ull << 40)
#define MAX_LOG_BLOCKS		(1024 * 1024ull)
#define MAX_LOG_BYTES		((2ull << 30) - 10 * 1024 * 1024)
#define MAX_RECORD_BSIZE	(256 * 1024u)
#define MIN_RTEXTSIZE		(4 * 1024ull)
#define MAX_RTEXTSIZE		(1024 * 1024 * 1024ull)
#define BIG_CLUSTER_SIZE	8192u
#define OQUOTA_BITS		0x0030u	/* OQUOTA_ENFD | OQUOTA_CHKD */
#define GPQUOTA_BITS		0x0780u	/* [GP]QUOTA_ENFD, [GP]QUOTA_CHKD */
#define NULLFSINO		(~0ull)
#define RTBUF_HDR		56	/* struct xfs_rtbuf_blkinfo */
#define MAX_RGBLOCKS		((1ull << 31) - 1)
#define MIN_RGEXTENTS		2

struct sb_check {
	struct check_ctx *c;
	const struct od_sb *sb;
	const struct od_sb *primary;	/* NULL when checking the primary */
	uint32_t agno;
	char what[32];
};

static void field(struct sb_check *s, const char *msg)
{
	check_problem(&s->c->glog, SB_FIELD, s->what, msg);
}

static bool pow2_log(uint32_t v, unsigned log, unsigned lo, unsigned hi)
{
	return log >= lo && log <= hi && v == (1u << log);
}

static unsigned highbit64(uint64_t v)
{
	unsigned n = 0;

	while (v >>= 1)
		n++;
	return n;
}

/* xfs_sb_good_version: the version word and features2 a kernel reads. */
static void check_version(struct sb_check *s)
{
	const struct od_sb *sb = s->sb;

	if (od_sb_is_v5(sb)) {
		if (sb->versionnum & ~SB_VERSION_OKBITS)
			field(s, "versionnum has unknown feature bits");
		if ((sb->versionnum & V5_VERS_FLAGS) != V5_VERS_FLAGS)
			field(s, "versionnum lacks feature bits every v5 "
			      "filesystem has");
		if (sb->features2 & ~(SB_F2_OKBITS | OD_SB_F2_CRC))
			field(s, "features2 has unknown bits");
		if ((sb->features2 & V5_FEAT_FLAGS) != V5_FEAT_FLAGS)
			field(s, "features2 lacks bits every v5 filesystem "
			      "has");
		return;
	}
	if (sb->versionnum & ~SB_VERSION_OKBITS)
		field(s, "versionnum has unknown feature bits");
	if (od_sb_has_morebits(sb) && (sb->features2 & ~SB_F2_OKBITS))
		field(s, "features2 has unknown bits");
	if (!(sb->versionnum & OD_SB_VERSION_DIRV2) ||
	    !(sb->versionnum & OD_SB_VERSION_EXTFLG))
		field(s, "versionnum lacks the dirv2 or extflg bit");
}

/* verify_sb and xfs_validate_sb_common: sizes and geometry. */
static void check_sizes(struct sb_check *s)
{
	const struct od_sb *sb = s->sb;
	uint64_t agbytes = (uint64_t)sb->agblocks << (sb->blocklog & 31);
	uint64_t maxd = (uint64_t)sb->agcount * sb->agblocks;
	uint64_t mind = sb->agcount ? (uint64_t)(sb->agcount - 1) *
			sb->agblocks + MIN_AG_BLOCKS : 0;

	if (!pow2_log(sb->sectsize, sb->sectlog, 9, 15))
		field(s, "sectsize and sectlog disagree or are out of range");
	if (!pow2_log(sb->blocksize, sb->blocklog, 9, 16))
		field(s, "blocksize and blocklog disagree or are out of range");
	if (od_sb_is_v5(sb) && sb->blocksize < 1024)
		field(s, "blocksize below 1024 on a v5 filesystem");
	if (sb->dblocks == 0 || sb->dblocks > maxd || sb->dblocks < mind)
		check_problem(&s->c->glog, SB_GEOMETRY, s->what,
			      "dblocks does not fit agcount and agblocks");
	if (sb->agblocks == 0 || sb->agblklog != highbit64(sb->agblocks -
							    1ull) + 1 ||
	    agbytes < MIN_AG_BYTES || agbytes > MAX_AG_BYTES)
		check_problem(&s->c->glog, SB_GEOMETRY, s->what,
			      "agblocks and agblklog disagree or are out of "
			      "range");
	if (!pow2_log(sb->inodesize, sb->inodelog, 8, 11) ||
	    sb->inodesize > sb->blocksize ||
	    sb->inopblock != (sb->blocksize + sb->inodesize - 1) /
	    (sb->inodesize ? sb->inodesize : 1) ||
	    sb->blocklog - sb->inodelog != sb->inopblog)
		check_problem(&s->c->glog, SB_INODES, s->what,
			      "inodesize, inodelog, inopblock and inopblog "
			      "disagree");
	if (sb->imax_pct > 100)
		field(s, "imax_pct above 100");
	if (sb->blocklog + sb->dirblklog > 16)
		field(s, "directory blocks larger than 64 KiB (dirblklog)");
	if (sb->logsunit > MAX_RECORD_BSIZE)
		field(s, "logsunit larger than a log record");
	if (sb->logsunit > 1 && sb->blocksize &&
	    sb->logsunit % sb->blocksize)
		field(s, "logsunit is not a multiple of the block size");
	if (od_sb_is_v5(sb) &&
	    (sb->logblocks == 0 || sb->logblocks > MAX_LOG_BLOCKS ||
	     (uint64_t)sb->logblocks << (sb->blocklog & 31) > MAX_LOG_BYTES))
		field(s, "logblocks out of range");
	if (sb->logstart == 0)
		field(s, "logstart is 0 (an external log)");
	if (od_sb_has_sector(sb)) {
		if (!pow2_log(sb->logsectsize, sb->logsectlog, 9, 15))
			field(s, "logsectsize and logsectlog disagree or are "
			      "out of range");
	} else if (sb->sectsize != 512 || sb->sectlog != 9 ||
		   sb->logsectsize != 0 || sb->logsectlog != 0) {
		field(s, "sector size fields set without the sector feature "
		      "bit");
	}
}

/*
 * xfs_validate_sb_rtgroups: every metadir filesystem has realtime
 * groups (none without a realtime section), their size in range, enough
 * of them to cover the section, rgblklog from their size, exchange on.
 */
static void check_rtgroups(struct sb_check *s)
{
	const struct od_sb *sb = s->sb;
	uint64_t groups;

	if (!od_sb_has_metadir(sb))
		return;
	if (sb->pad[0] || sb->pad[1] || sb->pad[2] || sb->pad[3] ||
	    sb->pad[4] || sb->pad[5] || sb->pad[6])
		check_problem(&s->c->glog, SB_PAD, s->what,
			      "sb_pad (bytes 281-287) is not zero");
	if (!sb->rextsize)
		return;		/* check_rt said so */
	if (sb->rgextents > MAX_RGBLOCKS / sb->rextsize ||
	    sb->rgextents < MIN_RGEXTENTS) {
		check_problem(&s->c->glog, SB_RT, s->what,
			      "rgextents (realtime group size) out of range");
		return;
	}
	groups = (sb->rextents + sb->rgextents - 1) / sb->rgextents;
	if (groups != sb->rgcount)
		check_problem(&s->c->glog, SB_RT, s->what,
			      "rgcount does not cover the realtime section "
			      "in groups of rgextents");
	if (sb->rgblklog != highbit64((uint64_t)sb->rgextents * sb->rextsize -
				      1) + 1)
		check_problem(&s->c->glog, SB_RT, s->what,
			      "rgblklog does not match rgextents");
	if (!od_sb_has_exchange(sb))
		field(s, "realtime groups (metadir) without exchange");
}

/* xfs_validate_sb_zoned */
static void check_zoned(struct sb_check *s)
{
	const struct od_sb *sb = s->sb;

	if (!od_sb_has_zoned(sb))
		return;
	if (sb->frextents)
		check_problem(&s->c->glog, SB_RT, s->what,
			      "frextents is not zero on a zoned filesystem");
	if (sb->rtstart && sb->rtstart < sb->dblocks)
		check_problem(&s->c->glog, SB_RT, s->what,
			      "rtstart overlaps the data section");
	if (sb->rtreserved && sb->rtreserved >= sb->rblocks)
		check_problem(&s->c->glog, SB_RT, s->what,
			      "rtreserved not below rblocks");
}

/*
 * The realtime fields (xfs_validate_rt_geometry): a filesystem without a
 * realtime device has none.  With metadir every group has its own
 * bitmap, whose blocks start with a header; zoned has none.
 */
static void check_rt(struct sb_check *s)
{
	const struct od_sb *sb = s->sb;
	uint64_t rtx = (uint64_t)sb->rextsize * sb->blocksize;
	bool meta = od_sb_has_metadir(sb);
	uint64_t per = meta ? sb->rgextents : sb->rextents;
	uint64_t bits = 8ull * (meta ? sb->blocksize - RTBUF_HDR :
				sb->blocksize);
	uint64_t rbm = od_sb_has_zoned(sb) ? 0 : (per + bits - 1) / bits;

	check_rtgroups(s);
	check_zoned(s);
	if (od_sb_has_zoned(sb) ? sb->rextsize != 1 :
	    rtx < MIN_RTEXTSIZE || rtx > MAX_RTEXTSIZE)
		check_problem(&s->c->glog, SB_RT, s->what,
			      "rextsize out of range");
	if (sb->rblocks == 0) {
		if (sb->rextents || sb->rbmblocks || sb->rextslog ||
		    sb->frextents)
			check_problem(&s->c->glog, SB_RT, s->what,
				      "realtime fields set without a realtime "
				      "device (rextents, rbmblocks, rextslog or "
				      "frextents)");
		return;
	}
	if (sb->rextsize == 0 || sb->rextents != sb->rblocks / sb->rextsize ||
	    sb->rextslog != highbit64(sb->rextents) || sb->rbmblocks != rbm)
		check_problem(&s->c->glog, SB_RT, s->what,
			      "realtime geometry does not add up");
}

/* sb_validate_ino_align and the kernel's sparse inode rule. */
static void check_inoalign(struct sb_check *s)
{
	const struct od_sb *sb = s->sb;
	uint32_t chunk = (64u * sb->inodesize) >> (sb->blocklog & 31);
	uint32_t big = BIG_CLUSTER_SIZE >> (sb->blocklog & 31);
	uint32_t scaled = (uint32_t)(((uint64_t)BIG_CLUSTER_SIZE *
				      sb->inodesize / 256) >>
				     (sb->blocklog & 31));
	bool ok;

	if (!(sb->versionnum & OD_SB_VERSION_ALIGN)) {
		if (sb->inoalignmt)
			field(s, "inoalignmt set without the align feature "
			      "bit");
		return;
	}
	ok = sb->inoalignmt == big;
	if (!ok && od_sb_is_v5(sb))
		ok = sb->inoalignmt == scaled;
	if (!ok && od_sb_is_v5(sb) && od_sb_has_sparse(sb))
		ok = sb->spino_align == scaled && sb->inoalignmt == chunk;
	if (!ok)
		field(s, "inoalignmt is not an inode cluster or chunk size");
	if (od_sb_is_v5(sb) && od_sb_has_sparse(sb) && sb->inoalignmt != chunk)
		field(s, "inoalignmt does not match the inode chunk size "
		      "(sparse inodes)");
}

/* verify_sb and xfs_validate_stripe_geometry. */
static void check_stripe(struct sb_check *s)
{
	const struct od_sb *sb = s->sb;
	uint64_t su = (uint64_t)sb->unit * sb->blocksize;
	uint64_t sw = (uint64_t)sb->width * sb->blocksize;
	const char *why = NULL;

	if (!(sb->versionnum & OD_SB_VERSION_DALIGN)) {
		if (sb->unit || sb->width)
			why = "set without the dalign feature bit";
	} else if (!sb->unit) {
		why = "the dalign feature bit needs a stripe unit";
	} else if (!sb->width) {
		why = "a stripe unit needs a stripe width";
	} else if (sb->agblocks % sb->unit) {
		why = "the AG size is not a multiple of the stripe unit";
	} else if (sb->width % sb->unit) {
		why = "the width is not a multiple of the unit";
	} else if (sw > 0x7fffffffu || su > sw) {
		why = "the width is out of range";
	}
	if (why)
		check_problem(&s->c->glog, SB_STRIPE, s->what, sb->unit,
			      sb->width, why);
}

/* Quota flags a kernel refuses, and quota fields of a secondary. */
static void check_quota(struct sb_check *s)
{
	const struct od_sb *sb = s->sb;

	if (od_sb_is_v5(sb) && (sb->qflags & OQUOTA_BITS))
		field(s, "qflags has the old quota enforcement bits on a v5 "
		      "filesystem");
	if (!od_sb_is_v5(sb) && (sb->qflags & GPQUOTA_BITS))
		field(s, "qflags has group/project enforcement bits on a v4 "
		      "filesystem");
	if (sb->inprogress != 1)
		return;
	/* mkfs leaves quota fields of secondaries null (0 reads as null) */
	if ((sb->uquotino && sb->uquotino != NULLFSINO) ||
	    (sb->gquotino && sb->gquotino != NULLFSINO) ||
	    (od_sb_is_v5(sb) && sb->pquotino && sb->pquotino != NULLFSINO) ||
	    sb->qflags)
		field(s, "quota inode or flags set in a superblock mkfs has "
		      "not finished (inprogress)");
}

/* Bytes past the last field this version defines: zero. */
static void check_padding(struct sb_check *s, const uint8_t *raw, uint32_t len)
{
	const struct od_sb *sb = s->sb;
	uint32_t used, i;

	if (od_sb_has_zoned(sb))
		used = 304;	/* through sb_rtreserved */
	else if (od_sb_has_metadir(sb))
		used = 288;	/* through sb_pad (checked by check_rtgroups) */
	else if (od_sb_has_meta_uuid(sb))
		used = 264;	/* through sb_meta_uuid */
	else if (od_sb_is_v5(sb))
		used = 248;	/* through sb_lsn */
	else if (od_sb_has_morebits(sb))
		used = 208;	/* through sb_bad_features2 */
	else if (od_sb_has_logv2(sb))
		used = 200;	/* through sb_logsunit */
	else if (od_sb_has_sector(sb))
		used = 196;	/* through sb_logsectsize */
	else
		used = 193;	/* through sb_dirblklog */
	for (i = used; i < len; i++)
		if (raw[i]) {
			char msg[96];

			snprintf(msg, sizeof(msg), "byte %u, past the last "
				 "field (%u bytes), is not zero", i, used);
			check_problem(&s->c->glog, SB_PAD, s->what, msg);
			return;
		}
}

static void check_one(struct sb_check *s, const uint8_t *raw, uint32_t len)
{
	const struct od_sb *sb = s->sb;

	check_version(s);
	check_sizes(s);
	check_rt(s);
	check_inoalign(s);
	check_stripe(s);
	check_quota(s);
	check_padding(s, raw, len);
	if (sb->flags)
		field(s, "flags is not zero");
	if (sb->shared_vn)
		field(s, "shared_vn is not zero");
	if (!s->primary) {
		if (sb->inprogress)
			field(s, "inprogress: mkfs did not finish");
		if (sb->bad_features2 && sb->bad_features2 != sb->features2)
			check_problem(&s->c->glog, SB_FEATURES2, s->what,
				      sb->features2, sb->bad_features2);
		if (od_sb_is_v5(sb) &&
		    (sb->features_incompat & OD_INCOMPAT_NEEDSREPAIR))
			field(s, "needsrepair is set");
	}
}

static void differs(struct sb_check *s, const char *name, uint64_t primary,
		    uint64_t copy)
{
	char pv[24], sv[24];

	if (primary == copy)
		return;
	snprintf(pv, sizeof(pv), "%llu", (unsigned long long)primary);
	snprintf(sv, sizeof(sv), "%llu", (unsigned long long)copy);
	check_problem(&s->c->glog, SB_SECONDARY, s->agno, name, sv, pv);
}

static void differs_bit(struct sb_check *s, const char *name, uint32_t primary,
			uint32_t copy, uint32_t bit)
{
	if ((primary ^ copy) & bit)
		check_problem(&s->c->glog, SB_SECONDARY, s->agno, name,
			      copy & bit ? "set" : "clear",
			      primary & bit ? "set" : "clear");
}

/* compare_sb and check_v5_feature_mismatch: a secondary's geometry. */
static void compare_primary(struct sb_check *s)
{
	const struct od_sb *a = s->primary, *b = s->sb;

	differs(s, "blocksize", a->blocksize, b->blocksize);
	differs(s, "dblocks", a->dblocks, b->dblocks);
	differs(s, "rblocks", a->rblocks, b->rblocks);
	differs(s, "rextents", a->rextents, b->rextents);
	differs(s, "logstart", a->logstart, b->logstart);
	differs(s, "rextsize", a->rextsize, b->rextsize);
	differs(s, "agblocks", a->agblocks, b->agblocks);
	differs(s, "agcount", a->agcount, b->agcount);
	differs(s, "rbmblocks", a->rbmblocks, b->rbmblocks);
	differs(s, "logblocks", a->logblocks, b->logblocks);
	differs(s, "sectsize", a->sectsize, b->sectsize);
	differs(s, "inodesize", a->inodesize, b->inodesize);
	differs_bit(s, "the align feature bit", a->versionnum, b->versionnum,
		    OD_SB_VERSION_ALIGN);
	differs_bit(s, "the dalign feature bit", a->versionnum, b->versionnum,
		    OD_SB_VERSION_DALIGN);
	if (!od_sb_is_v5(a))
		return;
	differs(s, "features_compat", a->features_compat, b->features_compat);
	differs(s, "features_ro_compat", a->features_ro_compat,
		b->features_ro_compat);
	/* repair's upgrade path sets NEEDSREPAIR on the primary only */
	differs(s, "features_incompat",
		a->features_incompat & ~OD_INCOMPAT_NEEDSREPAIR,
		b->features_incompat & ~OD_INCOMPAT_NEEDSREPAIR);
	if (!od_sb_has_metadir(a))
		return;
	differs(s, "rgcount", a->rgcount, b->rgcount);
	differs(s, "rgextents", a->rgextents, b->rgextents);
	differs(s, "rgblklog", a->rgblklog, b->rgblklog);
}

static void check_secondary(struct check_ctx *c, uint32_t agno,
			    uint8_t *buf, uint32_t len)
{
	const struct od_geo *g = c->g;
	struct sb_check s = { c, NULL, &c->fs->sb, agno, "" };
	struct od_sb sb;
	struct err e = { 0 };
	enum od_err oe;

	snprintf(s.what, sizeof(s.what), "superblock %u", agno);
	if (fs_read_daddr(c->fs, od_agb_lin(g, agno, 0) << g->bbshift, buf,
			  len, &e, s.what)) {
		check_problem(&c->glog, SB_SECONDARY_BAD, e.msg);
		return;
	}
	oe = od_sb_decode(buf, len, &sb);
	if (oe == OD_EMAGIC) {
		check_problem(&c->glog, SB_SECONDARY_BAD, "superblock copy of "
			      "an AG: bad magic number");
		return;
	}
	if (oe || (od_sb_is_v5(&sb) && !od_cksum_ok(buf, len, OD_SB_CRC_OFF))) {
		char msg[64];

		snprintf(msg, sizeof(msg), "superblock %u: bad %s", agno,
			 oe ? "length" : "crc");
		check_problem(&c->glog, SB_SECONDARY_BAD, msg);
		return;
	}
	s.sb = &sb;
	/* no LSN check: only the primary's is compared with the log head
	 * (the kernel refuses to mount past it); a copy's is never read */
	check_one(&s, buf, len);
	compare_primary(&s);
}

/*
 * With metadir the realtime and quota inodes are found in the metadata
 * directory, and their superblock fields are zero (xfs_repair's
 * check_pre_metadir_sb_inodes); mkfs puts the metadata directory right
 * after the root.
 */
static void check_metadir_sb_inodes(struct check_ctx *c, uint64_t root)
{
	const struct od_sb *sb = &c->fs->sb;
	char msg[160];

	if (sb->rootino != root || sb->metadirino != root + 1) {
		snprintf(msg, sizeof(msg), "rootino %llu and metadirino %llu: "
			 "mkfs puts them at %llu and %llu",
			 (unsigned long long)sb->rootino,
			 (unsigned long long)sb->metadirino,
			 (unsigned long long)root,
			 (unsigned long long)root + 1);
		check_problem(&c->glog, SB_INODES, "superblock 0", msg);
	}
	if (sb->rbmino || sb->rsumino || sb->uquotino || sb->gquotino ||
	    sb->pquotino)
		check_problem(&c->glog, SB_INODES, "superblock 0",
			      "rbmino, rsumino, uquotino, gquotino and "
			      "pquotino must be 0 with metadir (the metadata "
			      "directory names those inodes)");
}

/* The inodes the primary names: where mkfs put them, or in use. */
static void check_sb_inodes(struct check_ctx *c)
{
	const struct od_sb *sb = &c->fs->sb;
	const struct m_ag *ag;
	/* xfs_repair insists on where mkfs put them, for the stripe unit
	 * the superblock gives */
	uint64_t root = od_mkfs_rootino(sb, c->g, sb->unit);
	const uint64_t q[3] = { sb->uquotino, sb->gquotino, sb->pquotino };
	static const char *const qn[3] = { "uquotino", "gquotino",
					   "pquotino" };
	char msg[128];
	unsigned i;

	if (od_sb_has_metadir(sb)) {
		check_metadir_sb_inodes(c, root);
		return;
	}
	if (sb->rootino != root || sb->rbmino != root + 1 ||
	    sb->rsumino != root + 2) {
		snprintf(msg, sizeof(msg), "rootino %llu, rbmino %llu and "
			 "rsumino %llu: mkfs puts them at %llu, %llu and %llu",
			 (unsigned long long)sb->rootino,
			 (unsigned long long)sb->rbmino,
			 (unsigned long long)sb->rsumino,
			 (unsigned long long)root,
			 (unsigned long long)root + 1,
			 (unsigned long long)root + 2);
		check_problem(&c->glog, SB_INODES, "superblock 0", msg);
	}
	for (i = 0; i < 3; i++) {
		if (q[i] == 0 || q[i] == NULLFSINO)
			continue;
		if (od_ino_valid(c->g, q[i]) &&
		    c->m->ag[od_ino_agno(c->g, q[i])].err)
			continue;	/* that AG's inodes are unknown */
		if (od_ino_valid(c->g, q[i]) && model_find(c->m, q[i], &ag))
			continue;
		snprintf(msg, sizeof(msg), "%s %llu is not an inode in use",
			 qn[i], (unsigned long long)q[i]);
		check_problem(&c->glog, SB_INODES, "superblock 0", msg);
	}
}

void check_superblocks(struct check_ctx *c)
{
	const struct od_geo *g = c->g;
	uint32_t len = g->sectsize, a;
	struct sb_check s = { c, &c->fs->sb, NULL, 0, "superblock 0" };
	struct err e = { 0 };
	uint8_t *buf = malloc(len);

	if (!buf) {
		check_fatal(c, -ENOMEM);
		return;
	}
	if (fs_read_daddr(c->fs, 0, buf, len, &e, "superblock 0")) {
		check_problem(&c->glog, SB_SECONDARY_BAD, e.msg);
		free(buf);
		return;
	}
	check_one(&s, buf, len);
	check_sb_inodes(c);
	/* xfs_repair does not compare it, but the kernel's log mount
	 * refuses a primary superblock LSN past the log head */
	if (g->v5)
		check_note_lsn(&c->lsn, c->fs->sb.lsn, "superblock 0");
	for (a = 1; a < g->agcount; a++)
		check_secondary(c, a, buf, len);
	free(buf);
}
