/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who owns each block: an index over a scanned model, per AG, of every
 * span of blocks with its kind and owner, sorted by agbno.  Built once
 * from the model (no disk reads); answers "who owns agbno X" by binary
 * search and summarises ranges ("what dominates [a, b)") for maps, in one
 * linear sweep per AG over the sorted spans.  Used by the TUI's AG map
 * and meant for the relocation planner.
 *
 * What goes in, per AG:
 *   - free extents (bnobt records) and AGFL slots
 *   - physically present inode chunk blocks (sparse chunks: holes left out)
 *   - AG metadata from m_ag.meta: headers, btree blocks, log, and the bmbt
 *     blocks of inodes (the scan records those only when they lie in the
 *     inode's own AG)
 *   - every data and attr fork extent of every inode, whichever AG the
 *     inode is in (realtime data forks are not on this device: left out)
 * Blocks in use that none of these covers are "other" in summaries.
 * Reflinked blocks appear once per owner: spans may overlap.
 */
#ifndef CORE_BLKMAP_H
#define CORE_BLKMAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"

enum bm_kind {
	BK_FREE,	/* bnobt record; owner: agno */
	BK_INODES,	/* inode chunk blocks; owner: chunk's first inode */
	BK_META,	/* AG metadata; meta: enum m_meta, owner: agno */
	BK_BMBT,	/* bmbt block; owner: inode */
	BK_DATA,	/* data fork extent; owner: inode */
	BK_ATTR,	/* attr fork extent; owner: inode */
};

/* bm_span.flags */
#define BMS_FRAG	0x1	/* the owner's fork lies in more than one run */
#define BMS_UNWRITTEN	0x2	/* unwritten (preallocated) extent */

/* One span of blocks with one owner: 24 bytes. */
struct bm_span {
	uint32_t agbno, len;
	uint8_t kind;		/* enum bm_kind */
	uint8_t meta;		/* BK_META, BK_BMBT: enum m_meta */
	uint8_t flags;		/* BMS_* */
	uint8_t pad;
	/*
	 * BK_DATA, BK_ATTR: index of the record within its fork (the model's
	 * record is m_ag.ext[mi->ext + idx], plus mi->nde for the attr fork);
	 * BK_INODES: index of the chunk in m_ag.chunk; else 0.
	 */
	uint32_t idx;
	uint64_t owner;
};

static inline uint32_t bm_span_end(const struct bm_span *s)
{
	return s->agbno + s->len;
}

struct bm_ag {
	struct bm_span *span;	/* sorted by agbno */
	uint32_t *maxend;	/* maxend[i]: largest end of span[0..i] */
	size_t nspan;
	uint32_t blocks;
};

struct blkmap {
	const struct model *m;
	uint32_t agcount;
	uint32_t agblocks;	/* linear block = agno * agblocks + agbno */
	uint64_t dblocks;
	struct bm_ag *ag;
	uint64_t nspans;
	uint64_t build_ns;	/* wall time of blkmap_build */
};

/*
 * Build the index from a model (AGs in parallel on m->threads threads).
 * The model must outlive the blkmap.  0, or -ENOMEM with a message.
 */
int blkmap_build(const struct model *m, struct blkmap **out, struct err *e);
void blkmap_free(struct blkmap *bm);

/* Index of the first span of ag that may contain agbno or anything after. */
size_t blkmap_seek(const struct bm_ag *ag, uint32_t agbno);

/*
 * The spans containing agbno of AG agno, in span order: up to max of
 * them stored in out; returns how many there are (0: nothing recorded
 * there, so the block is in use by something the model does not know).
 */
size_t blkmap_owners(const struct blkmap *bm, uint32_t agno, uint32_t agbno,
		     const struct bm_span **out, size_t max);

/* What a range of blocks is, for maps. */
enum bm_class {
	BC_FREE,	/* free extents and AGFL slots */
	BC_INODES,	/* inode chunks */
	BC_META,	/* AG headers and btrees, log, bmbt blocks */
	BC_DATA,	/* data of files whose fork is in one run */
	BC_FRAG,	/* data of files whose fork is in several runs */
	BC_MARKED,	/* anything owned by the marked inode */
	BC_OTHER,	/* in use, but nothing in the model covers it */
	BC_NCLASS,
	BC_OUTSIDE = BC_NCLASS,	/* past the end of the filesystem */
};

/* The class of a span; mark is an inode number (0: none). */
enum bm_class blkmap_class(const struct bm_span *s, uint64_t mark);

struct bm_summary {
	uint64_t blocks[BC_NCLASS];	/* shared blocks count per owner */
	uint64_t inside;		/* blocks of the range in the fs */
	uint64_t nspans;		/* span pieces in the range */
	/* per class, the span covering most of the range (NULL: none) */
	const struct bm_span *top[BC_NCLASS];
	uint32_t top_agno[BC_NCLASS];	/* the AG each top span is in */
	uint64_t top_len[BC_NCLASS];	/* its blocks inside the range */
};

/*
 * Summarise linear blocks [lin, lin + len), across AGs if need be;
 * mark as for blkmap_class.
 */
void blkmap_summary(const struct blkmap *bm, uint64_t lin, uint64_t len,
		    uint64_t mark, struct bm_summary *s);

/*
 * The dominant class of a summary: BC_MARKED when the marked inode owns
 * any block of it, else the class with most blocks (ties: data of
 * fragmented files, data, inodes, metadata, free, other), BC_OUTSIDE for
 * a range wholly past the end.
 */
enum bm_class blkmap_dominant(const struct bm_summary *s);

/*
 * A whole map in one sweep: cls[i] receives the dominant class of linear
 * blocks [lin + i * step, lin + (i + 1) * step) for i in [0, ncells).
 * Cost: the spans in the range plus the cells, not a lookup per block.
 * 0 or -ENOMEM.
 */
int blkmap_cells(const struct blkmap *bm, uint64_t lin, uint64_t step,
		 size_t ncells, uint64_t mark, uint8_t *cls);

/* "bnobt block", "log", "superblock"...: what a metadata kind is. */
const char *blkmap_meta_name(unsigned kind);
/* "free", "inodes", ...: a class, for legends. */
const char *blkmap_class_name(enum bm_class c);

/* Linear block <-> AG and agbno. */
static inline uint64_t blkmap_lin(const struct blkmap *bm, uint32_t agno,
				  uint32_t agbno)
{
	return (uint64_t)agno * bm->agblocks + agbno;
}

#endif
