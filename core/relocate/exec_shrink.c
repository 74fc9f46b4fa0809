/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A shrink's part of the executor (plan.shrink; exec_priv.h).
 *
 * The AG phase rebuilds only the AGs that stay, the last one with its
 * new length in the AGF and AGI, an AGFL without the blocks past the end
 * and, when the log moves, an rmap record of its new place instead of
 * the old one.  Then the geometry phase: the log formatted clean at its
 * new place (a cycle past the old head's, so every metadata LSN stays
 * behind it), the new geometry in every secondary superblock that stays
 * (xfs_repair compares them with the primary) and in the primary, with
 * its counters.  The blocks past the new end count as free at the end of
 * the run for the undo file: its seal journals what of them was live and
 * no intact copy holds, so undo restores them once the image is extended
 * again (the run cuts it short only after its verification).
 */
#include "core/relocate/exec_priv.h"
#include "ondisk/logrec.h"
#include "ondisk/rmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct plan_shrink *shr(const struct xctx *x)
{
	return x->p->shrink.dblocks ? &x->p->shrink : NULL;
}

bool exec_shrink_gone(const struct xctx *x, uint32_t agno)
{
	return shr(x) && agno >= shr(x)->agcount;
}

uint32_t exec_shrink_ag_len(const struct xctx *x, uint32_t agno)
{
	const struct plan_shrink *s = shr(x);

	if (!s)
		return od_ag_blocks(x->g, agno);
	if (agno >= s->agcount)
		return 0;
	return agno + 1 == s->agcount ? s->last_len : od_ag_blocks(x->g, agno);
}

void exec_shrink_agfl(const struct xctx *x, uint32_t agno,
		      const uint32_t **blocks, uint32_t *n)
{
	const struct m_ag *ag = &x->m->ag[agno];

	if (x->agfl_keep && agno + 1 == shr(x)->agcount) {
		*blocks = x->agfl_keep;
		*n = x->nagfl_keep;
		return;
	}
	*blocks = ag->agfl;
	*n = ag->nagfl;
}

int exec_shrink_prepare(struct xctx *x)
{
	const struct plan_shrink *s = shr(x);
	const struct m_ag *ag;
	uint32_t i, len;

	if (!s)
		return 0;
	ag = &x->m->ag[s->agcount - 1];
	len = s->last_len;
	for (i = 0; i < ag->nagfl; i++)
		if (ag->agfl[i] >= len)
			break;
	if (i == ag->nagfl)
		return 0;	/* every AGFL block stays inside */
	x->agfl_keep = malloc((ag->nagfl ? ag->nagfl : 1) *
			      sizeof(*x->agfl_keep));
	if (!x->agfl_keep)
		return err_set(x->e, -ENOMEM, "out of memory");
	for (i = 0; i < ag->nagfl; i++)
		if (ag->agfl[i] < len)
			x->agfl_keep[x->nagfl_keep++] = ag->agfl[i];
	return 0;
}

void exec_shrink_release(struct xctx *x)
{
	free(x->agfl_keep);
	x->agfl_keep = NULL;
	x->nagfl_keep = 0;
}

static int statics_push(void **v, size_t *n, size_t *cap,
			const struct od_rmap_rec *r)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		void *nv = realloc(*v, nc * sizeof(*r));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	((struct od_rmap_rec *)*v)[(*n)++] = *r;
	return 0;
}

int exec_shrink_statics(struct xctx *x, uint32_t agno, void **v, size_t *n,
			size_t *cap)
{
	const struct plan_shrink *s = shr(x);
	struct od_rmap_rec *r = *v, nr;
	size_t i, k;

	if (!s || !s->logstart || !x->g->rmapbt)
		return 0;
	/* the old log's record goes; the new place gets one */
	for (i = k = 0; i < *n; i++)
		if (r[i].owner != OD_RMAP_OWN_LOG)
			r[k++] = r[i];
	*n = k;
	if (od_fsb_agno(x->g, s->logstart) != agno)
		return 0;
	nr.startblock = od_fsb_agbno(x->g, s->logstart);
	nr.blockcount = x->fs->sb.logblocks;
	nr.owner = OD_RMAP_OWN_LOG;
	nr.offset = 0;
	if (statics_push(v, n, cap, &nr))
		return err_set(x->e, -ENOMEM, "out of memory");
	return 0;
}

void exec_shrink_agf(const struct xctx *x, uint32_t agno, struct od_agf *agf)
{
	uint32_t size = od_agfl_size(x->g);

	if (!shr(x) || agno + 1 != shr(x)->agcount)
		return;
	agf->length = shr(x)->last_len;
	if (!x->agfl_keep)
		return;
	agf->flfirst = 0;
	agf->flcount = x->nagfl_keep;
	agf->fllast = x->nagfl_keep ? x->nagfl_keep - 1 : size - 1;
}

void exec_shrink_agi(const struct xctx *x, uint32_t agno, struct od_agi *agi)
{
	if (shr(x) && agno + 1 == shr(x)->agcount)
		agi->length = shr(x)->last_len;
}

int exec_shrink_write_agfl(struct xctx *x, uint32_t agno)
{
	const struct od_geo *g = x->g;
	uint64_t off = (od_agb_lin(g, agno, 0) << g->blocklog) +
		       3ull * g->sectsize;
	uint8_t buf[32768];
	const uint8_t *slots;
	const char *field;
	char what[32];
	enum od_err oe;
	int ret;

	if (!x->agfl_keep || agno + 1 != shr(x)->agcount)
		return 0;
	snprintf(what, sizeof(what), "agfl %u", agno);
	ret = fs_pread(x->fs, off, buf, g->sectsize, x->e, what);
	if (ret)
		return ret;
	oe = od_agfl_slots(buf, g->sectsize, g, agno, &slots, &field);
	if (oe)
		return err_od(x->e, oe, field, what);
	od_agfl_set_slots(buf, g->sectsize, g, x->agfl_keep, x->nagfl_keep);
	return x_pwrite(x, off, buf, g->sectsize, x->e, what);
}

void exec_shrink_sb(const struct xctx *x, struct od_sb *sb)
{
	const struct plan_shrink *s = shr(x);

	if (!s)
		return;
	sb->dblocks = s->dblocks;
	sb->agcount = s->agcount;
	if (s->logstart)
		sb->logstart = s->logstart;
	sb->imax_pct = s->imax_pct;
}

/* Log records: as many basic blocks as the log's stripe unit or sector. */
static uint32_t record_bbs(const struct od_sb *sb)
{
	uint32_t n = OD_LOG_MIN_RECORD_BBS;

	if (od_sb_has_logv2(sb) && sb->logsunit > 1 &&
	    sb->logsunit / OD_LOG_BBSIZE > n)
		n = sb->logsunit / OD_LOG_BBSIZE;
	if (od_sb_has_sector(sb) && sb->logsectsize / OD_LOG_BBSIZE > n)
		n = sb->logsectsize / OD_LOG_BBSIZE;
	return n;
}

/*
 * The log at its new place, clean (libxfs_log_clear): a first record of
 * cycle c holding an unmount record, whose tail names the previous
 * cycle's last record, and every later block of the log in records of
 * cycle c - 1, so the kernel finds the head right after the first.
 */
static int write_log(struct xctx *x)
{
	const struct plan_shrink *s = shr(x);
	const struct od_sb *sb = &x->fs->sb;
	struct od_logrec_fmt f;
	uint64_t total = (uint64_t)sb->logblocks << x->g->bbshift;
	uint64_t lin = od_fsb_lin(x->g, s->logstart), blk = 0, done;
	uint32_t rec = record_bbs(sb), per;
	uint32_t cycle = s->log_cycle;
	int ret = 0;

	f.version = od_sb_has_logv2(sb) ? 2 : 1;
	memcpy(f.uuid, sb->uuid, 16);
	/* whole records per buffer, whole blocks per write */
	per = (uint32_t)((XBUF / OD_LOG_BBSIZE) / rec * rec);
	while (per % (1u << x->g->bbshift))
		per -= rec;
	while (blk < total && !ret) {
		uint64_t n = total - blk < per ? total - blk : per, b;

		for (b = 0; b < n; b += rec) {
			uint64_t at = blk + b;
			uint32_t nbb = (uint32_t)(n - b < rec ? n - b : rec);

			if (at == 0)
				od_logrec_clear_encode(x->buf, nbb, &f,
					od_log_lsn(cycle, 0),
					od_log_lsn(cycle - 1,
						   (uint32_t)(total - rec)));
			else
				od_logrec_clear_encode(x->buf + b * OD_LOG_BBSIZE,
					nbb, &f, od_log_lsn(cycle - 1,
							    (uint32_t)at),
					od_log_lsn(cycle - 1,
						   (uint32_t)(at - rec)));
		}
		done = n >> x->g->bbshift;
		ret = x_write(x, lin + (blk >> x->g->bbshift), x->buf, done,
			      "log");
		blk += n;
		x_progress(x, "log", blk, total);
	}
	return ret;
}

/* Every secondary superblock that stays: the new geometry. */
static int write_secondaries(struct xctx *x)
{
	const struct plan_shrink *s = shr(x);
	uint8_t buf[32768];
	struct od_sb sb;
	char what[40];
	uint32_t a;
	int ret = 0;

	for (a = 1; a < s->agcount && !ret; a++) {
		uint64_t off = od_agb_lin(x->g, a, 0) << x->g->blocklog;

		snprintf(what, sizeof(what), "superblock %u", a);
		ret = fs_pread(x->fs, off, buf, x->g->sectsize, x->e, what);
		if (ret)
			break;
		if (od_sb_decode(buf, x->g->sectsize, &sb) != OD_OK)
			return err_set(x->e, -EFSCORRUPTED, "%s: does not "
				       "decode", what);
		exec_shrink_sb(x, &sb);
		if (od_sb_encode(&sb, buf, x->g->sectsize) != OD_OK)
			return err_set(x->e, -EFSCORRUPTED, "%s: cannot be "
				       "encoded", what);
		ret = x_pwrite(x, off, buf, x->g->sectsize, x->e, what);
		x_progress(x, "geometry", a, s->agcount);
	}
	return ret;
}

int exec_shrink(struct xctx *x)
{
	const struct plan_shrink *s = shr(x);
	uint64_t end = x->g->dblocks;
	int ret = 0;

	if (!s)
		return 0;
	if (s->logstart)
		ret = write_log(x);
	if (!ret)
		ret = write_secondaries(x);
	/* linear blocks: the new end is s->dblocks (AG sizes do not change) */
	if (!ret && end > s->dblocks)
		ret = undo_mark_free_end(x->u, s->dblocks, end - s->dblocks,
					 x->e);
	return ret;
}
