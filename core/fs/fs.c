/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/fs/fs.h"
#include "core/fs/log.h"
#include "core/fs/wholedisk.h"
#include "core/base/probe.h"
#include "ondisk/crc32c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * No superblock magic: a damaged XFS filesystem if an AGF follows where
 * the first AG's would be (one sector in, for any sector size), else not
 * XFS at all.
 */
static int sb_bad_magic(struct fs *fs, uint32_t magic, struct err *e)
{
	uint8_t m[4];
	uint32_t sect;

	for (sect = 512; sect <= 32768; sect <<= 1)
		if (img_pread(fs->img, m, 4, sect) == 0 &&
		    od_agf_has_magic(m, sizeof(m)))
			return err_set(e, -EFSCORRUPTED, "superblock (sector "
				       "0): bad magic number 0x%08x (an XFS "
				       "AGF follows it: damaged)", magic);
	return err_set(e, -EMEDIUMTYPE, "%s: not an XFS filesystem (no "
		       "superblock magic: 0x%08x)", fs->path, magic);
}

static int fs_load_sb(struct fs *fs, struct err *e)
{
	uint8_t buf[32768];
	const char *field = NULL;
	struct od_sb first;
	enum od_err oe;
	uint32_t sectsize;
	int ret;

	if (fs->img->size < 512)
		return err_set(e, -ENXIO, "%s: image is %llu bytes, too small "
			       "for a superblock", fs->path,
			       (unsigned long long)fs->img->size);
	ret = img_pread(fs->img, buf, 512, 0);
	if (ret)
		return err_set(e, ret, "superblock: read failed: %s",
			       strerror(-ret));
	/* the sector size is in the first 512 bytes; CRC covers all of it */
	if (od_sb_decode(buf, 512, &first) == OD_EMAGIC)
		return sb_bad_magic(fs, first.magicnum, e);
	sectsize = first.sectsize;
	if (sectsize < 512 || sectsize > sizeof(buf) ||
	    (sectsize & (sectsize - 1)))
		return err_set(e, -EFSCORRUPTED, "superblock (sector 0): bad "
			       "sectsize %u", sectsize);
	if (sectsize > 512) {
		ret = img_pread(fs->img, buf, sectsize, 0);
		if (ret)
			return err_set(e, ret, "superblock: read of %u bytes "
				       "failed: %s", sectsize, strerror(-ret));
	}
	oe = od_sb_decode(buf, sectsize, &fs->sb);
	if (oe)
		return err_od(e, oe, NULL, "superblock (sector 0)");
	if (od_sb_is_v5(&fs->sb) && !od_cksum_ok(buf, sectsize, OD_SB_CRC_OFF))
		return err_set(e, -EFSBADCRC, "superblock (sector 0): bad crc");
	oe = od_sb_validate(&fs->sb, &field);
	if (oe)
		return err_od(e, oe, field, "superblock (sector 0)");
	od_geo_init(&fs->geo, &fs->sb);
	if (fs->img->size < fs->geo.dblocks << fs->geo.blocklog)
		return err_set(e, -ENXIO, "%s: image is truncated: %llu bytes, "
			       "the filesystem needs %llu (%llu blocks of %u)",
			       fs->path, (unsigned long long)fs->img->size,
			       (unsigned long long)(fs->geo.dblocks <<
						    fs->geo.blocklog),
			       (unsigned long long)fs->geo.dblocks,
			       fs->geo.blocksize);
	return 0;
}

int fs_open_img(struct img *im, const char *name, unsigned flags,
		struct fs **out, struct err *e)
{
	struct fs *fs;
	int ret;

	*out = NULL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return err_set(e, -ENOMEM, "out of memory");
	fs->img = im;
	fs->path = strdup(name);
	if (!fs->path) {
		ret = err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	ret = fs_load_sb(fs, e);
	if (ret)
		goto fail;
	ret = log_check(fs, e);
	if (ret)
		goto fail;
	(void)flags;
	*out = fs;
	return 0;
fail:
	fs->img = NULL;	/* the caller still owns im */
	fs_close(fs);
	return ret;
}

int fs_open_image(const char *path, unsigned flags, struct img **im,
		  struct fs_where *w, struct err *e)
{
	unsigned imgfl = (flags & FS_RDWR) ? IMG_RDWR : 0;
	unsigned partno = FS_PARTNO(flags);
	struct wholedisk_part part;
	int ret;

	*im = NULL;
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", path);
	if (!partno)
		return img_open_file(path, imgfl, im, e);
	ret = wholedisk_part(path, partno, &part, e);
	if (ret)
		return ret;
	if (part.dev[0]) {
		/* its own device: the kernel's exclusion covers it */
		snprintf(w->name, sizeof(w->name), "%s", part.dev);
		w->node = true;
		return img_open_file(part.dev, imgfl, im, e);
	}
	snprintf(w->name, sizeof(w->name), "%s partition %u", path, partno);
	w->off = part.off;
	w->len = part.len;
	return img_open_range(path, imgfl, part.off, part.len, im, e);
}

bool fs_where_mounted(const char *path, const struct fs_where *w, char *mnt,
		      size_t len)
{
	if (w->node)
		return probe_mounted(w->name, mnt, len);
	return probe_mounted_range(path, w->off, w->len, mnt, len);
}

int fs_open(const char *path, unsigned flags, struct fs **out, struct err *e)
{
	char type[64], mnt[256] = "";
	struct fs_where w;
	bool mounted = false;
	struct img *im;
	int ret;

	*out = NULL;
	ret = fs_open_image(path, flags, &im, &w, e);
	if (ret)
		return ret;
	/*
	 * Without the XFS magic in sector 0, ask libblkid what it is, so the
	 * user learns "ext4 filesystem, not XFS" rather than "bad magic".
	 * (A partition named by number was probed by fs_open_image.)
	 */
	if (!(flags & FS_NOPROBE) && !FS_PARTNO(flags)) {
		uint8_t magic[4] = { 0 };

		bool xfs = img_pread(im, magic, 4, 0) == 0 &&
			   od_sb_has_magic(magic, sizeof(magic));

		/* a partition table: name the partitions holding XFS */
		if (!xfs && wholedisk_check(path, e)) {
			img_close(im);
			return e->code;
		}
		if (!xfs &&
		    probe_fstype(path, type, sizeof(type)) == 0 && type[0] &&
		    strcmp(type, "xfs") != 0) {
			img_close(im);
			if (strcmp(type, "ambivalent") == 0)
				return err_set(e, -EMEDIUMTYPE, "%s: more than "
					       "one filesystem signature "
					       "found; refusing to guess",
					       path);
			return err_set(e, -EMEDIUMTYPE, "%s: %s filesystem, "
				       "not XFS", path, type);
		}
	}
	if (!(flags & FS_NOPROBE))
		mounted = fs_where_mounted(path, &w, mnt, sizeof(mnt));
	ret = fs_open_img(im, w.name, flags, out, e);
	if (ret) {
		img_close(im);
		return ret;
	}
	(*out)->mounted = mounted;
	snprintf((*out)->mountpoint, sizeof((*out)->mountpoint), "%s", mnt);
	return 0;
}

void fs_close(struct fs *fs)
{
	if (!fs)
		return;
	if (fs->img)
		img_close(fs->img);
	free(fs->path);
	free(fs);
}

int fs_read_daddr(struct fs *fs, uint64_t daddr, void *buf, size_t len,
		  struct err *e, const char *what)
{
	uint64_t end = fs->geo.dblocks << fs->geo.bbshift;
	int ret;

	if (daddr > end || (len + 511) / 512 > end - daddr)
		return err_set(e, -EFSCORRUPTED, "%s: daddr 0x%llx (+%zu bytes)"
			       " is beyond the end of the filesystem", what,
			       (unsigned long long)daddr, len);
	if (fs->held && fs->held(fs->held_priv, daddr, buf, len) == 0)
		return 0;
	ret = img_pread(fs->img, buf, len, daddr << 9);
	if (ret == -ENXIO)
		return err_set(e, ret, "%s: daddr 0x%llx is beyond the end of "
			       "the image (truncated?)", what,
			       (unsigned long long)daddr);
	if (ret)
		return err_set(e, ret, "%s: read at daddr 0x%llx failed: %s",
			       what, (unsigned long long)daddr,
			       strerror(-ret));
	return 0;
}

int fs_read_agb(struct fs *fs, uint32_t agno, uint32_t agbno, uint32_t count,
		void *buf, struct err *e, const char *what)
{
	const struct od_geo *g = &fs->geo;

	if (!od_agb_valid(g, agno, agbno, count))
		return err_set(e, -EFSCORRUPTED, "%s: block %u/%u (+%u) is "
			       "outside the filesystem", what, agno, agbno,
			       count);
	return fs_read_daddr(fs, od_agb_lin(g, agno, agbno) << g->bbshift, buf,
			     (size_t)count << g->blocklog, e, what);
}

int fs_read_fsb(struct fs *fs, uint64_t fsbno, uint32_t count, void *buf,
		struct err *e, const char *what)
{
	const struct od_geo *g = &fs->geo;

	if (!od_fsb_valid(g, fsbno, count))
		return err_set(e, -EFSCORRUPTED, "%s: block 0x%llx (+%u) is "
			       "outside the filesystem", what,
			       (unsigned long long)fsbno, count);
	return fs_read_agb(fs, od_fsb_agno(g, fsbno), od_fsb_agbno(g, fsbno),
			   count, buf, e, what);
}

/* AG header sectors: AG start + 1, 2, 3 sectors (XFS_AGF_DADDR etc.). */
static uint64_t ag_hdr_daddr(struct fs *fs, uint32_t agno, unsigned n)
{
	return (od_agb_lin(&fs->geo, agno, 0) << fs->geo.bbshift) +
	       ((uint64_t)n * fs->geo.sectsize >> 9);
}

int fs_read_agf(struct fs *fs, uint32_t agno, struct od_agf *agf,
		struct err *e)
{
	uint8_t buf[32768];
	const char *field;
	char what[64];
	enum od_err oe;
	uint64_t daddr = ag_hdr_daddr(fs, agno, 1);
	int ret;

	snprintf(what, sizeof(what), "agf %u (daddr 0x%llx)", agno,
		 (unsigned long long)daddr);
	ret = fs_read_daddr(fs, daddr, buf, fs->geo.sectsize, e, what);
	if (ret)
		return ret;
	oe = od_agf_decode(buf, fs->geo.sectsize, &fs->geo, agno, agf, &field);
	return err_od(e, oe, field, what);
}

int fs_read_agi(struct fs *fs, uint32_t agno, struct od_agi *agi,
		struct err *e)
{
	uint8_t buf[32768];
	const char *field;
	char what[64];
	enum od_err oe;
	uint64_t daddr = ag_hdr_daddr(fs, agno, 2);
	int ret;

	snprintf(what, sizeof(what), "agi %u (daddr 0x%llx)", agno,
		 (unsigned long long)daddr);
	ret = fs_read_daddr(fs, daddr, buf, fs->geo.sectsize, e, what);
	if (ret)
		return ret;
	oe = od_agi_decode(buf, fs->geo.sectsize, &fs->geo, agno, agi, &field);
	return err_od(e, oe, field, what);
}

int fs_read_agfl(struct fs *fs, uint32_t agno, const struct od_agf *agf,
		 uint32_t *slots, uint32_t *n, struct err *e)
{
	uint8_t buf[32768];
	const uint8_t *p;
	const char *field;
	char what[64];
	enum od_err oe;
	uint64_t daddr = ag_hdr_daddr(fs, agno, 3);
	uint32_t size = od_agfl_size(&fs->geo), i, idx;
	int ret;

	*n = 0;
	snprintf(what, sizeof(what), "agfl %u (daddr 0x%llx)", agno,
		 (unsigned long long)daddr);
	ret = fs_read_daddr(fs, daddr, buf, fs->geo.sectsize, e, what);
	if (ret)
		return ret;
	oe = od_agfl_slots(buf, fs->geo.sectsize, &fs->geo, agno, &p, &field);
	if (oe)
		return err_od(e, oe, field, what);
	for (i = 0, idx = agf->flfirst; i < agf->flcount; i++) {
		uint32_t bno = od_agfl_slot(p, idx);

		if (bno >= od_ag_blocks(&fs->geo, agno))
			return err_set(e, -EFSCORRUPTED, "%s: slot %u holds "
				       "block %u, outside the AG", what, idx,
				       bno);
		slots[i] = bno;
		idx = idx + 1 == size ? 0 : idx + 1;
	}
	*n = agf->flcount;
	return 0;
}

int fs_check_ag_headers(struct fs *fs, struct err *e)
{
	struct od_agf agf;
	struct od_agi agi;
	uint32_t agno, n, *slots;
	int ret = 0;

	slots = malloc(od_agfl_size(&fs->geo) * sizeof(*slots));
	if (!slots)
		return err_set(e, -ENOMEM, "out of memory");
	for (agno = 0; agno < fs->geo.agcount && !ret; agno++) {
		ret = fs_read_agf(fs, agno, &agf, e);
		if (!ret)
			ret = fs_read_agfl(fs, agno, &agf, slots, &n, e);
		if (!ret)
			ret = fs_read_agi(fs, agno, &agi, e);
	}
	free(slots);
	return ret;
}

int fs_unlinked_pending(struct fs *fs, struct err *e)
{
	struct od_agi agi;
	uint32_t agno;
	int i, ret;

	for (agno = 0; agno < fs->geo.agcount; agno++) {
		ret = fs_read_agi(fs, agno, &agi, e);
		if (ret)
			return ret;
		for (i = 0; i < OD_AGI_UNLINKED; i++)
			if (agi.unlinked[i] != OD_NULLAGINO)
				return 1;
	}
	return 0;
}

static int fs_range_ok(struct fs *fs, uint64_t off, size_t len)
{
	uint64_t end = fs->geo.dblocks << fs->geo.blocklog;

	return off <= end && len <= end - off;
}

int fs_pread(struct fs *fs, uint64_t off, void *buf, size_t len,
	     struct err *e, const char *what)
{
	int ret;

	if (!fs_range_ok(fs, off, len))
		return err_set(e, -EFSCORRUPTED, "%s: byte 0x%llx (+%zu) is "
			       "beyond the end of the filesystem", what,
			       (unsigned long long)off, len);
	ret = img_pread(fs->img, buf, len, off);
	if (ret)
		return err_set(e, ret, "%s: read at byte 0x%llx failed: %s",
			       what, (unsigned long long)off, strerror(-ret));
	return 0;
}

int fs_pwrite(struct fs *fs, uint64_t off, const void *buf, size_t len,
	      struct err *e, const char *what)
{
	int ret;

	if (!fs_range_ok(fs, off, len))
		return err_set(e, -EINVAL, "%s: write at byte 0x%llx (+%zu) is "
			       "beyond the end of the filesystem", what,
			       (unsigned long long)off, len);
	ret = img_pwrite(fs->img, buf, len, off);
	if (ret)
		return err_set(e, ret, "%s: write at byte 0x%llx failed: %s",
			       what, (unsigned long long)off, strerror(-ret));
	return 0;
}
