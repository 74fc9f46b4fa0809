/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/model/inorun.h"

/* Byte offset on disk of inode agino of AG agno. */
static uint64_t inode_byte(const struct od_geo *g, uint32_t agno,
			   uint32_t agino)
{
	return (od_agb_lin(g, agno, od_agino_agbno(g, agino)) << g->blocklog) +
	       ((uint64_t)od_agino_offset(g, agino) << g->inodelog);
}

bool inorun_present_slow(const struct m_ag *ag, size_t *ci, unsigned *i)
{
	while (*ci < ag->nchunk) {
		if (*i >= OD_INODES_PER_CHUNK) {
			(*ci)++;
			*i = 0;
			continue;
		}
		if (od_inobt_present(&ag->chunk[*ci], *i))
			return true;
		*i += OD_INODES_PER_HOLEMASK_BIT;
	}
	return false;
}

void inorun_init(struct inorun *r, const struct od_geo *g,
		 const struct m_ag *ag, uint64_t max)
{
	r->g = g;
	r->ag = ag;
	r->max = max;
	r->ci = 0;
	r->i = 0;
	r->cend = ag->nchunk;
	r->want = NULL;
}

/* Like inorun_present, past the chunks r->want leaves out. */
static bool next_wanted(struct inorun *r)
{
	while (inorun_present(r->ag, &r->ci, &r->i) && r->ci < r->cend) {
		if (!r->want || r->want[r->ci])
			return true;
		r->ci++;
		r->i = 0;
	}
	return false;
}

bool inorun_next(struct inorun *r, struct inorun_seg *s)
{
	const struct od_geo *g = r->g;
	const struct m_ag *ag = r->ag;
	uint64_t glen = (uint64_t)OD_INODES_PER_HOLEMASK_BIT << g->inodelog;

	if (r->ci >= r->cend || !next_wanted(r))
		return false;
	s->ci = r->ci;
	s->i = r->i;
	s->start = inode_byte(g, ag->agno, ag->chunk[r->ci].startino + r->i);
	s->len = 0;
	/* grow the run while the next present group is adjacent */
	do {
		uint64_t b = inode_byte(g, ag->agno,
					ag->chunk[r->ci].startino + r->i);

		if (b != s->start + s->len || s->len + glen > r->max)
			break;
		s->len += glen;
		r->i += OD_INODES_PER_HOLEMASK_BIT;
		/* a run's buffer is walked chunk after chunk: none left out */
	} while (inorun_present(ag, &r->ci, &r->i) && r->ci < r->cend &&
		 (!r->want || r->want[r->ci]));
	return true;
}

static bool pull_run(void *priv, struct rdr_seg *s)
{
	struct inorun_seg seg;

	if (!inorun_next(priv, &seg))
		return false;
	s->off = seg.start;
	s->len = (uint32_t)seg.len;
	s->tag = (uint64_t)seg.ci << 8 | seg.i;
	return true;
}

int inorun_read_open(struct inorun *r, struct fs *fs, const struct m_ag *ag,
		     struct rdr **out)
{
	return inorun_read_range(r, fs, ag, 0, ag->nchunk, false, out);
}

int inorun_read_want(struct inorun *r, struct fs *fs, const struct m_ag *ag,
		     const bool *want, struct rdr **out)
{
	int ret = inorun_read_range(r, fs, ag, 0, ag->nchunk, false, out);

	if (ret == 0)
		r->want = want;
	return ret;
}

int inorun_read_range(struct inorun *r, struct fs *fs, const struct m_ag *ag,
		      size_t c0, size_t c1, bool fill_cache, struct rdr **out)
{
	struct rdr_cfg cfg = { 0 };
	int ret;

	/* nothing past the end of the filesystem: fs_read_daddr says so */
	cfg.limit = fs->geo.dblocks << fs->geo.blocklog;
	cfg.fill_cache = fill_cache;
	ret = rdr_open(fs->img, &cfg, pull_run, r, out);
	if (ret == 0) {
		inorun_init(r, &fs->geo, ag, rdr_max_seg(*out));
		r->ci = c0;
		r->cend = c1 < ag->nchunk ? c1 : ag->nchunk;
	}
	return ret;
}

bool inorun_read(struct rdr *rd, struct rdr_item *it, struct inorun_seg *s)
{
	if (!rdr_get(rd, it))
		return false;
	s->start = it->seg.off;
	s->len = it->seg.len;
	s->ci = (size_t)(it->seg.tag >> 8);
	s->i = (unsigned)(it->seg.tag & 0xff);
	return true;
}
