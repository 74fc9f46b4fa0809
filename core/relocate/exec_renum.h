/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode renumbering in the executor: the plan's moves checked
 * and turned into the inode chunk records every AG has when the run
 * ends, before anything is written.  The phases that carry the moves out
 * (exec_inodes.c: inode slots; exec_irefs.c: directory entries and v5
 * owners; exec_ags.c: inobt, finobt, AGI, rmap owners) read from here.
 */
#ifndef CORE_EXEC_RENUM_H
#define CORE_EXEC_RENUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/ag.h"
#include "ondisk/inobt.h"

struct xctx;

struct renum_ag {
	struct od_inobt_rec *rec;	/* final chunk records, by startino */
	size_t nrec;
	bool chunks_changed;		/* a chunk added or dropped here */
	uint32_t count, freecount;	/* AGI figures after the run */
};

struct xrenum {
	struct renum_ag *ag;		/* per AG */
	uint64_t icount, ifree;		/* superblock figures after the run */
	uint64_t moved;			/* inodes whose number changes */
};

/*
 * Check the plan's renumbering against the model and build x->xr (left
 * NULL when the plan renumbers nothing).  -EINVAL with the reason if
 * the plan is not carried out safely (a number taken twice, an inode
 * the superblock names, a chunk dropped that still holds inodes...).
 */
int exec_renum_prepare(struct xctx *x);
void exec_renum_release(struct xctx *x);

/* The new number of inode ino (ino if it stays). */
uint64_t xr_new(const struct xctx *x, uint64_t ino);
/* Is the chunk holding ino dropped by the plan? */
bool xr_chunk_freed(const struct xctx *x, uint64_t ino);
/* Is ino some moved inode's new number? */
bool xr_is_dest(const struct xctx *x, uint64_t ino);
/* Byte offset of inode ino's slot in the image. */
uint64_t xr_ino_off(const struct xctx *x, uint64_t ino);
/* Adapter for the ondisk renumbering encoders (priv: the xctx). */
uint64_t xr_map(void *priv, uint64_t ino);

/*
 * The rmap records kept from the old rmapbt of AG agno (*v: n struct
 * od_rmap_rec, room for cap): where the plan adds or drops chunks there,
 * the OWN_INODES ones are replaced by the final chunks' blocks.
 */
int exec_renum_statics(struct xctx *x, uint32_t agno, void **v, size_t *n,
		       size_t *cap);
/* AGI inode counts and newino after the run. */
void exec_renum_agi(const struct xctx *x, uint32_t agno, struct od_agi *agi);

/* The phases. */
int exec_inodes(struct xctx *x);	/* before the copy phase */
int exec_irefs(struct xctx *x);		/* after the forks phase */

#endif
