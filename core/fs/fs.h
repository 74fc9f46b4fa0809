/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An open XFS filesystem: the image, its superblock and geometry, and what
 * we learned about its state at open (mounted? log clean? unlinked inodes?).
 * After fs_open the struct is read-only and may be shared between threads;
 * every call takes the caller's struct err.
 */
#ifndef CORE_FS_H
#define CORE_FS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/err.h"
#include "core/base/img.h"
#include "ondisk/ag.h"
#include "ondisk/geo.h"
#include "ondisk/sb.h"

#define FS_RDWR		0x1	/* open for writing */
#define FS_NOPROBE	0x2	/* skip libblkid and the mount check (tests) */
/* partition n (1, 2, ... as the kernel numbers them) of a whole disk */
#define FS_PART(n)	(((unsigned)(n) & 0xffffu) << 16)
#define FS_PARTNO(flags)	((unsigned)(flags) >> 16)

enum fs_log_state {
	FS_LOG_CLEAN,
	FS_LOG_DIRTY,
	FS_LOG_EXTERNAL,	/* on another device: not checked */
	FS_LOG_UNKNOWN,		/* could not make sense of it */
};

struct fs {
	struct img *img;
	char *path;
	struct od_sb sb;
	struct od_geo geo;
	/* state found at open; front ends decide what to warn about */
	bool mounted;
	char mountpoint[256];
	enum fs_log_state log_state;
	char log_detail[160];
	/* the log head, where the next record would be written: metadata
	 * LSNs must be below it (log_head_known: a record was found) */
	bool log_head_known;
	uint32_t log_head_cycle, log_head_block;
	/*
	 * May be NULL: bytes a caller holds already (the checker: directory
	 * blocks the scan read on its way); 0 when it filled buf with the
	 * len bytes at sector daddr, else fs_read_daddr reads all of buf
	 * from the image.
	 */
	int (*held)(void *priv, uint64_t daddr, void *buf, size_t len);
	void *held_priv;
};

int fs_open(const char *path, unsigned flags, struct fs **out, struct err *e);
/*
 * The image fs_open reads: path, or partition FS_PARTNO(flags) of the
 * whole disk at path: its own device node when it has one, else its
 * bytes of path.  Opened for writing with FS_RDWR.
 */
struct fs_where {
	char name[1100];	/* for messages: path, the partition's device
				 * or "PATH partition N" */
	bool node;		/* name is the device that was opened */
	uint64_t off, len;	/* else the bytes of path (len 0: all) */
};
int fs_open_image(const char *path, unsigned flags, struct img **im,
		  struct fs_where *w, struct err *e);
/* Is the filesystem fs_open_image found mounted?  Fills mnt. */
bool fs_where_mounted(const char *path, const struct fs_where *w, char *mnt,
		      size_t len);
/* Open an already opened img (memory images for tests and fuzzing). */
int fs_open_img(struct img *im, const char *name, unsigned flags,
		struct fs **out, struct err *e);
void fs_close(struct fs *fs);

/* Read len bytes at 512-byte sector daddr; what names it in errors. */
int fs_read_daddr(struct fs *fs, uint64_t daddr, void *buf, size_t len,
		  struct err *e, const char *what);
/* Byte-addressed read and write inside the filesystem (inodes need not
 * start on a sector); writes go through every img layer. */
int fs_pread(struct fs *fs, uint64_t off, void *buf, size_t len,
	     struct err *e, const char *what);
int fs_pwrite(struct fs *fs, uint64_t off, const void *buf, size_t len,
	      struct err *e, const char *what);

/* Read count blocks at agno/agbno, checking they lie inside the AG. */
int fs_read_agb(struct fs *fs, uint32_t agno, uint32_t agbno, uint32_t count,
		void *buf, struct err *e, const char *what);
/* Read count blocks at packed fsbno, checking they lie inside the fs. */
int fs_read_fsb(struct fs *fs, uint64_t fsbno, uint32_t count, void *buf,
		struct err *e, const char *what);

/* AG headers, decoded and verified. */
int fs_read_agf(struct fs *fs, uint32_t agno, struct od_agf *agf,
		struct err *e);
int fs_read_agi(struct fs *fs, uint32_t agno, struct od_agi *agi,
		struct err *e);
/* The AGFL's live slots, in order (flfirst..fllast); *n set to flcount. */
int fs_read_agfl(struct fs *fs, uint32_t agno, const struct od_agf *agf,
		 uint32_t *slots, uint32_t *n, struct err *e);

/* Read and verify the AGF, AGFL and AGI of every AG. */
int fs_check_ag_headers(struct fs *fs, struct err *e);

/* Does any AGI have a non-empty unlinked bucket?  1 yes, 0 no, <0 error. */
int fs_unlinked_pending(struct fs *fs, struct err *e);

#endif
