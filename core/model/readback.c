/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The read-back cost model (readback.h). */
#include "core/model/readback.h"
#include "ondisk/inode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HDD_BYTES_PER_S	150e6
#define HDD_ROTATE_S	4.17e-3
#define HDD_OVERHEAD_S	0.8e-3
#define HDD_SEEK_FULL_S	8e-3
#define HDD_SEEK_SPAN	1099511627776.0	/* 1 TiB: the full-stroke distance */

void rb_acc_init(struct rb_acc *a, struct rb_fig *f)
{
	memset(a, 0, sizeof(*a));
	memset(f, 0, sizeof(*f));
	a->f = f;
}

/* SSD requests for len more bytes of a contiguous run. */
static void add_requests(struct rb_acc *a, uint64_t len)
{
	uint64_t room;

	if (a->fill == 0 || a->fill == RB_MAXREQ) {
		a->f->requests++;
		a->fill = 0;
	}
	room = RB_MAXREQ - a->fill;
	if (len <= room) {
		a->fill += len;
		return;
	}
	len -= room;
	a->f->requests += (len + RB_MAXREQ - 1) / RB_MAXREQ;
	a->fill = len % RB_MAXREQ ? len % RB_MAXREQ : RB_MAXREQ;
}

void rb_acc_read(struct rb_acc *a, uint64_t off, uint64_t len)
{
	struct rb_fig *f = a->f;

	if (!len)
		return;
	f->accesses++;
	f->bytes += len;
	f->hdd_seconds += (double)len / HDD_BYTES_PER_S;
	if (off != a->pos) {
		uint64_t dist = off > a->pos ? off - a->pos : a->pos - off;

		f->jumps++;
		if (dist > RB_FAR)
			f->far_jumps++;
		if (off > a->pos && dist <= RB_READAHEAD)
			f->hdd_seconds += (double)dist / HDD_BYTES_PER_S;
		else
			f->hdd_seconds += HDD_ROTATE_S + HDD_OVERHEAD_S +
					  HDD_SEEK_FULL_S *
					  sqrt((double)dist / HDD_SEEK_SPAN);
		a->fill = 0;	/* a new request */
	}
	add_requests(a, len);
	a->pos = off + len;
}

/* ---- the walk ---- */

struct rbctx {
	const struct walk *w;
	const struct od_geo *g;
	struct rb_acc acc;
	rb_fork_fn fork;
	void *priv;
	uint64_t *cseen;	/* bit per inode cluster */
	uint64_t *cbase;	/* per AG: first cluster bit of its chunks */
	uint32_t cpc;		/* clusters per chunk */
	uint64_t *ag_end;	/* per AG: end of the last data access */
	struct od_irec *buf;
	uint32_t cap;
	const struct rb_layout *lay;	/* inodes elsewhere (NULL: as seen) */
	/* the chunk the last inode was in: the walk reads a directory's
	 * files, and they are mostly in one chunk, so it is tried first */
	uint32_t hint_ag;
	size_t hint_lo;		/* 0: none yet */
};

static size_t nchunks(const struct rbctx *c, uint32_t agno)
{
	return c->lay ? c->lay->nchunks[agno] : c->w->m->ag[agno].nchunk;
}

static uint32_t chunk_start(const struct rbctx *c, uint32_t agno, size_t k)
{
	return c->lay ? c->lay->chunks[agno][k] :
	       c->w->m->ag[agno].chunk[k].startino;
}

/* Read the cluster holding inode mi, unless it was read before. */
static void read_inode(struct rbctx *c, const struct m_ino *mi)
{
	const struct od_geo *g = c->g;
	uint64_t ino = c->lay ? c->lay->ino(c->lay->priv, mi->ino) : mi->ino;
	uint32_t agno = od_ino_agno(g, ino), agino = od_ino_agino(g, ino);
	uint32_t bpc = g->blocks_per_cluster;
	uint32_t agbno = od_agino_agbno(g, agino), cb, ci;
	size_t lo = 0, hi = agno < g->agcount ? nchunks(c, agno) : 0;
	uint64_t bit;

	/* lo: the chunks starting at or before it (the same answer as the
	 * search below, which the hint only short-cuts) */
	if (c->hint_lo && c->hint_ag == agno && c->hint_lo <= hi &&
	    chunk_start(c, agno, c->hint_lo - 1) <= agino &&
	    (c->hint_lo == hi || chunk_start(c, agno, c->hint_lo) > agino)) {
		lo = c->hint_lo;
	} else {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (chunk_start(c, agno, mid) <= agino)
				lo = mid + 1;
			else
				hi = mid;
		}
		c->hint_ag = agno;
		c->hint_lo = lo;
	}
	if (!lo || agino >= chunk_start(c, agno, lo - 1) + OD_INODES_PER_CHUNK) {
		/* in no chunk the scan saw: count its block, every time */
		c->acc.f->clusters++;
		rb_acc_read(&c->acc, od_agb_lin(g, agno, agbno) <<
			    g->blocklog, g->blocksize);
		return;
	}
	cb = od_agino_agbno(g, chunk_start(c, agno, lo - 1));
	ci = (agbno - cb) / bpc;
	bit = c->cbase[agno] + (uint64_t)(lo - 1) * c->cpc + ci;
	if (c->cseen[bit >> 6] & (1ull << (bit & 63)))
		return;
	c->cseen[bit >> 6] |= 1ull << (bit & 63);
	c->acc.f->clusters++;
	rb_acc_read(&c->acc, od_agb_lin(g, agno, cb + ci * bpc) <<
		    g->blocklog, (uint64_t)bpc << g->blocklog);
}

static int data_recs(struct rbctx *c, const struct m_ag *ag,
		     const struct m_ino *mi, const struct od_irec **r,
		     uint32_t *n)
{
	uint32_t k;

	if (c->fork && c->fork(c->priv, mi, r, n))
		return 0;
	if (mi->nde > c->cap) {
		struct od_irec *b = realloc(c->buf, mi->nde * sizeof(*b));

		if (!b)
			return -ENOMEM;
		c->buf = b;
		c->cap = mi->nde;
	}
	for (k = 0; k < mi->nde; k++)
		m_ext_get(&ag->ext[mi->ext + k], &c->buf[k]);
	*r = c->buf;
	*n = mi->nde;
	return 0;
}

static int read_data(struct rbctx *c, const struct m_ag *ag,
		     const struct m_ino *mi)
{
	const struct od_geo *g = c->g;
	const struct od_irec *r;
	uint32_t n, k;
	int ret = data_recs(c, ag, mi, &r, &n);

	if (ret)
		return ret;
	for (k = 0; k < n; k++) {
		uint32_t agno = od_fsb_agno(g, r[k].startblock);
		uint64_t off = od_fsb_lin(g, r[k].startblock) << g->blocklog;
		uint64_t len = (uint64_t)r[k].blockcount << g->blocklog;

		if (r[k].unwritten || agno >= g->agcount)
			continue;
		if (!(mi->flags & MI_REFLINK)) {
			if (off < c->ag_end[agno])
				c->acc.f->out_of_order++;
			c->ag_end[agno] = off + len;
		}
		c->acc.f->data_bytes += len;
		rb_acc_read(&c->acc, off, len);
	}
	return 0;
}

int readback_model(const struct walk *w, rb_fork_fn fork, void *priv,
		   struct rb_fig *f, struct err *e)
{
	return readback_model_layout(w, fork, priv, NULL, f, e);
}

int readback_model_layout(const struct walk *w, rb_fork_fn fork, void *priv,
			  const struct rb_layout *lay, struct rb_fig *f,
			  struct err *e)
{
	const struct model *m = w->m;
	const struct m_ag *ag = NULL;
	struct rbctx c;
	uint64_t nbits = 0;
	uint32_t a, chunk_blocks;
	size_t i;
	int ret = 0;

	memset(&c, 0, sizeof(c));
	c.w = w;
	c.g = &m->fs->geo;
	c.fork = fork;
	c.priv = priv;
	c.lay = lay;
	rb_acc_init(&c.acc, f);
	chunk_blocks = c.g->ialloc_blks ? c.g->ialloc_blks : 1;
	c.cpc = (chunk_blocks + c.g->blocks_per_cluster - 1) /
		c.g->blocks_per_cluster;
	c.cbase = malloc((m->agcount + 1) * sizeof(*c.cbase));
	c.ag_end = calloc(m->agcount + 1, sizeof(*c.ag_end));
	if (!c.cbase || !c.ag_end)
		goto nomem;
	for (a = 0; a < m->agcount; a++) {
		c.cbase[a] = nbits;
		nbits += (uint64_t)nchunks(&c, a) * c.cpc;
	}
	c.cseen = calloc(nbits / 64 + 1, sizeof(*c.cseen));
	if (!c.cseen)
		goto nomem;
	for (i = 0; i < w->nreached && !ret; i++) {
		uint32_t d = w->seq[i];
		const struct m_ino *mi;
		bool dir;

		/* mostly the AG of the inode before: no search for it */
		if (!ag || d < w->base[ag->agno] || d >= w->base[ag->agno + 1])
			mi = walk_inode(w, d, &ag);
		else
			mi = &ag->ino[d - w->base[ag->agno]];
		dir = od_mode_isdir(mi->mode);

		if (!dir && !od_mode_isreg(mi->mode))
			continue;
		if (dir)
			f->dirs++;
		else
			f->files++;
		read_inode(&c, mi);
		if (dir || !(mi->flags & MI_REALTIME))
			ret = read_data(&c, ag, mi);
	}
	if (ret)
		goto nomem;
	goto out;
nomem:
	ret = err_set(e, -ENOMEM, "out of memory");
out:
	free(c.cbase);
	free(c.ag_end);
	free(c.cseen);
	free(c.buf);
	return ret;
}
