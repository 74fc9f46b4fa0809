/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The in-memory model of a scanned filesystem, shared by the report, the
 * TUI and the relocation planner.  Compact on purpose (tens of bytes per
 * inode): per AG, the allocated inodes sorted by number, their extent
 * records packed as on disk, directory parent links, directory locality
 * summaries, inode chunks, free extents and the metadata blocks.
 * Names are not kept; directories are read again when names are needed.
 */
#ifndef CORE_MODEL_H
#define CORE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fs/fs.h"
#include "ondisk/bmbt.h"
#include "ondisk/inobt.h"

/* m_ino.flags */
#define MI_REFLINK	0x01	/* di_flags2 REFLINK: blocks may be shared */
#define MI_REALTIME	0x02
#define MI_SIZEHINT	0x04	/* prealloc/append/extsize: map past EOF */
#define MI_DAMAGED	0x08	/* could not be decoded fully */
#define MI_METADATA	0x10	/* di_flags2 METADATA: a metadir file */
#define MI_NOATTR	0x80	/* (afmt unused) no attribute fork */

/* One allocated inode: 40 bytes. */
struct m_ino {
	uint64_t ino;
	uint64_t size;
	uint32_t ext;		/* first extent in m_ag.ext: data then attr */
	uint32_t nde;		/* data fork extent records */
	uint32_t nae;		/* attr fork extent records */
	uint16_t mode;
	uint8_t fmt;		/* data fork format (low 4) | attr format << 4 */
	uint8_t flags;
	uint32_t nlink;
	uint8_t forkoff;	/* di_forkoff: attr fork at forkoff * 8 */
	uint8_t version;	/* inode version: its core size */
	uint16_t diflags;	/* di_flags */
};

static inline unsigned m_dfmt(const struct m_ino *i) { return i->fmt & 0xf; }
static inline unsigned m_afmt(const struct m_ino *i) { return i->fmt >> 4; }

/* A packed extent record, exactly the 16 on-disk bytes (xfs_bmbt_rec). */
struct m_ext {
	uint8_t rec[16];
};

static inline void m_ext_get(const struct m_ext *x, struct od_irec *r)
{
	od_bmbt_rec_unpack(x->rec, r);
}

/* A directory entry link: parent directory -> child inode. */
struct m_link {
	uint64_t parent, child;
};

/* Locality of one directory's children. */
struct m_dir {
	uint64_t ino;
	uint32_t nchildren;	/* entries other than . and .. */
	uint16_t nags;		/* distinct AGs their inodes are in */
	uint8_t fmt;		/* enum dir_format */
	uint8_t pad;
	uint64_t sum_dist;	/* sum of |child inode block - dir inode block| */
	uint64_t max_dist;
};

struct m_free {
	uint32_t agbno, len;
};

/* Metadata block kinds, for maps and ownership queries. */
enum m_meta {
	MM_SB, MM_AGF, MM_AGI, MM_AGFL, MM_BNOBT, MM_CNTBT, MM_INOBT,
	MM_FINOBT, MM_RMAPBT, MM_REFCBT, MM_AGFL_FREE, MM_LOG, MM_BMBT,
	MM_NKINDS
};

struct m_meta_blk {
	uint32_t agbno;		/* (xmeta: the AG it lies in) */
	uint32_t kind;		/* enum m_meta */
	uint64_t owner;		/* bmbt: inode number; else agno */
};

struct m_ag {
	uint32_t agno;
	uint32_t blocks;
	bool have_agf, have_agi;
	struct od_agf agf;
	struct od_agi agi;
	int err;		/* first error in this AG, 0 if none */
	char errmsg[512];
	uint32_t ndamaged;	/* inodes or structures skipped */

	struct m_ino *ino;	size_t nino, cap_ino;
	struct m_ext *ext;	size_t next, cap_ext;
	struct od_inobt_rec *chunk; size_t nchunk, cap_chunk;
	struct m_free *freesp;	size_t nfree, cap_free;	/* bnobt, by agbno */
	uint32_t *agfl;		uint32_t nagfl;
	struct m_meta_blk *meta; size_t nmeta, cap_meta;
	/* the internal log, if it lies in this AG: one run, kept out of
	 * meta so that a 2 GiB log costs no memory per block */
	uint32_t log_agbno, log_blocks;
	/* bmbt blocks found here that lie in other AGs: fsbno in owner's
	 * place, moved into their AG's meta after the scan (scan.c) */
	struct m_meta_blk *xmeta; size_t nxmeta, cap_xmeta;
	struct m_dir *dir;	size_t ndir, cap_dir;
	struct m_link *link;	size_t nlink, cap_link;
};

struct model {
	struct fs *fs;
	uint32_t agcount;
	struct m_ag *ag;
	uint64_t ninodes;
	uint64_t scan_ns;	/* wall time of the scan */
	unsigned threads;
};

/* Find an inode by number; NULL if not allocated or not scanned. */
const struct m_ino *model_find(const struct model *m, uint64_t ino,
			       const struct m_ag **agp);
/* Linear block number (agno * agblocks + agbno) of an inode. */
uint64_t model_ino_lin(const struct fs *fs, uint64_t ino);
void model_free(struct model *m);

#endif
