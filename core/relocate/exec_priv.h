/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between the executor's phase files; not a public interface. */
#ifndef CORE_EXEC_PRIV_H
#define CORE_EXEC_PRIV_H

#include "core/relocate/exec.h"
#include "core/relocate/exec_renum.h"
#include "core/fs/fork.h"

struct xctx {
	struct fs *fs;
	const struct od_geo *g;
	const struct model *m;
	const struct plan *p;
	const struct exec_opts *o;
	struct exec_stats *st;
	struct undo *u;
	struct err *e;
	uint64_t *written;	/* bitmap over linear blocks written so far */
	uint64_t nlin;		/* agcount * agblocks */
	uint8_t *buf;		/* I/O buffer, XBUF bytes */
	struct exec_agprep *agprep;	/* read before anything is written */
	struct xrenum *xr;	/* inode renumbering, NULL if none */
	uint64_t *dst;		/* the plan's new inode numbers, sorted */
	size_t ndst;
	uint64_t *pptr;		/* inodes a moved directory names, sorted */
	size_t npptr;
	/* a shrink (exec_shrink.c): the new last AG's AGFL, when it loses
	 * blocks past the end (NULL: it keeps its own) */
	uint32_t *agfl_keep;
	uint32_t nagfl_keep;
};

#define XBUF	(4u << 20)

static inline bool x_written(const struct xctx *x, uint64_t lin)
{
	return x->written[lin >> 6] & (1ull << (lin & 63));
}

static inline void x_set_written(struct xctx *x, uint64_t lin, uint64_t n)
{
	while (n--) {
		x->written[lin >> 6] |= 1ull << (lin & 63);
		lin++;
	}
}

/* Byte offset of a linear block. */
static inline uint64_t x_off(const struct xctx *x, uint64_t lin)
{
	return lin << x->g->blocklog;
}

/* Linear block of file block fo in records v[0..n), or UINT64_MAX in a hole. */
static inline uint64_t x_rec_lin(const struct xctx *x, const struct od_irec *v,
				 size_t n, uint64_t fo)
{
	const struct od_irec *r = fork_rec_at(v, n, fo);

	return r ? od_fsb_lin(x->g, r->startblock + (fo - r->startoff)) :
		   UINT64_MAX;
}

/* Every image write of the run goes through here (and is counted). */
int x_pwrite(struct xctx *x, uint64_t off, const void *buf, size_t len,
	     struct err *e, const char *what);
/* Write through the journaling layer, noting the blocks as written. */
int x_write(struct xctx *x, uint64_t lin, const void *buf, uint64_t nblocks,
	    const char *what);
/* Read original-era contents: from the journal if overwritten. */
int x_read_orig(struct xctx *x, uint64_t lin, void *buf, uint64_t nblocks,
		const char *what);
/* Read current contents (what this run wrote, or untouched). */
int x_read(struct xctx *x, uint64_t lin, void *buf, uint64_t nblocks,
	   const char *what);
void x_progress(struct xctx *x, const char *phase, uint64_t done,
		uint64_t total);
/* The primary superblock as it is now: its sector in buf, decoded. */
int x_sb_read(struct xctx *x, uint8_t *buf, struct od_sb *sb);
/* Encode sb over that sector (and its crc) and write it. */
int x_sb_write(struct xctx *x, uint8_t *buf, const struct od_sb *sb);

/*
 * Parent pointers (exec_pptr.c): the inodes a moved directory names
 * (prepare, before any write; release), and their rewriting: in a
 * shortform attr fork in the inode's bytes raw (1 if it changed), or in
 * the attr blocks em maps (owner set to nino too), each changed block
 * handed to queue.
 */
int exec_pptr_prepare(struct xctx *x);
void exec_pptr_release(struct xctx *x);
bool exec_pptr_target(const struct xctx *x, uint64_t ino);
int exec_pptr_sf(struct xctx *x, uint8_t *raw, uint64_t ino);
struct extmap;
typedef int (*exec_queue_fn)(void *q, uint64_t lin, const uint8_t *buf);
int exec_pptr_blocks(struct xctx *x, const struct extmap *em, uint64_t ino,
		     uint64_t nino, exec_queue_fn queue, void *q);

/* The moves into space free at the start (first), or the others. */
int exec_copy(struct xctx *x, bool first);
int exec_headers(struct xctx *x);
int exec_forks(struct xctx *x);
int exec_ags(struct xctx *x);
/* What the AG phase needs from the old btrees, read before the copy
 * phase can overwrite them: the rmap records of static owners. */
int exec_ags_prepare(struct xctx *x);
void exec_ags_release(struct xctx *x);

/* ---- a shrink (exec_shrink.c): each a no-op without one ---- */

int exec_shrink_prepare(struct xctx *x);
void exec_shrink_release(struct xctx *x);
/* Is AG agno past the new end (not rebuilt, not counted)? */
bool exec_shrink_gone(const struct xctx *x, uint32_t agno);
/* Blocks of AG agno after the run. */
uint32_t exec_shrink_ag_len(const struct xctx *x, uint32_t agno);
/* The AGFL blocks of AG agno after the run. */
void exec_shrink_agfl(const struct xctx *x, uint32_t agno,
		      const uint32_t **blocks, uint32_t *n);
/* The rmap records kept from the old rmapbt: the log's, if it moves. */
int exec_shrink_statics(struct xctx *x, uint32_t agno, void **v, size_t *n,
			size_t *cap);
/* The new last AG's length (AGF, AGI) and free list (AGF, AGFL). */
void exec_shrink_agf(const struct xctx *x, uint32_t agno, struct od_agf *agf);
void exec_shrink_agi(const struct xctx *x, uint32_t agno, struct od_agi *agi);
int exec_shrink_write_agfl(struct xctx *x, uint32_t agno);
/* The new geometry into a superblock. */
void exec_shrink_sb(const struct xctx *x, struct od_sb *sb);
/* The geometry phase: the log, the secondary superblocks, free space
 * past the end for the undo file's seal. */
int exec_shrink(struct xctx *x);

#endif
