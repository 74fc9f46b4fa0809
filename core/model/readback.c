/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The read-back cost model (readback.h). */
#include "core/model/readback.h"
#include "core/base/bigmem.h"
#include "core/base/par.h"
#include "core/base/search.h"
#include "core/model/inoidx.h"
#include "ondisk/inode.h"

#include <stdlib.h>
#include <string.h>

void rb_acc_init(struct rb_acc *a, struct rb_fig *f)
{
	struct drive_params p;

	memset(a, 0, sizeof(*a));
	memset(f, 0, sizeof(*f));
	a->f = f;
	drive_params_default(&p);
	drive_init(&a->d, &p);
	drive_init(&a->md, &p);
}

void rb_acc_start(struct rb_acc *a, uint64_t off)
{
	a->pos = a->mpos = off;
	drive_park(&a->d, off);
	drive_park(&a->md, off);
}

/* SSD requests for len more bytes of a contiguous run. */
static void add_requests(uint64_t *fill, uint64_t *requests, uint64_t len)
{
	uint64_t room;

	if (*fill == 0 || *fill == RB_MAXREQ) {
		(*requests)++;
		*fill = 0;
	}
	room = RB_MAXREQ - *fill;
	if (len <= room) {
		*fill += len;
		return;
	}
	len -= room;
	*requests += (len + RB_MAXREQ - 1) / RB_MAXREQ;
	*fill = len % RB_MAXREQ ? len % RB_MAXREQ : RB_MAXREQ;
}

void rb_acc_read(struct rb_acc *a, uint64_t off, uint64_t len)
{
	struct rb_fig *f = a->f;
	enum drive_kind k;

	if (!len)
		return;
	f->accesses++;
	f->bytes += len;
	f->hdd_seconds += drive_read(&a->d, off, len, &k);
	f->hdd_seeks += k == DRIVE_SEEK;
	f->hdd_hits += k == DRIVE_HIT;
	if (off != a->pos) {
		uint64_t dist = off > a->pos ? off - a->pos : a->pos - off;

		f->jumps++;
		if (dist > RB_FAR)
			f->far_jumps++;
		a->fill = 0;	/* a new request */
	}
	add_requests(&a->fill, &f->requests, len);
	a->pos = off + len;
}

void rb_acc_read_meta(struct rb_acc *a, uint64_t off, uint64_t len)
{
	struct rb_meta *m = &a->f->meta;
	enum drive_kind k;

	if (!len)
		return;
	rb_acc_read(a, off, len);
	m->accesses++;
	m->bytes += len;
	m->hdd_seconds += drive_read(&a->md, off, len, &k);
	m->seeks += k == DRIVE_SEEK;
	m->hits += k == DRIVE_HIT;
	if (off != a->mpos)
		a->mfill = 0;
	add_requests(&a->mfill, &m->requests, len);
	a->mpos = off + len;
}

/* ---- the walk ---- */

/*
 * The walk is costed in segments, one per thread, when it is long.  The
 * first segment is costed as it goes; the others record their accesses
 * (RB_EV_*) and are replayed through the accumulator afterwards, in
 * order, so every figure — hdd_seconds, a sum of doubles, too — comes
 * out exactly as one pass would give it.  What a later segment cannot
 * know alone is settled at the replay: whether an earlier segment read
 * an inode cluster already (its reads are candidates, kept if not), and
 * whether its first data access in each AG is behind the last one of
 * the segments before.
 */
#define RB_PAR_MIN	32768	/* walk entries per segment, at least */

/*
 * A recorded access, eight bytes (they are fresh memory, and a page of
 * it costs): RB_EV_CLUSTER and the cluster's bit (its place follows from
 * the bit), or RB_EV_META for a directory block (else file data), the
 * block it starts at (RB_EV_BLKBITS) and its length in blocks
 * (RB_EV_LENBITS, not 0).  An access that does not fit is RB_EV_WIDE
 * (with RB_EV_META for a directory's) followed by its byte offset and
 * length.
 */
#define RB_EV_CLUSTER	(1ull << 63)
#define RB_EV_META	(1ull << 62)
#define RB_EV_LENBITS	21
#define RB_EV_BLKBITS	41
#define RB_EV_WIDE	0ull

struct rbctx {
	const struct walk *w;
	const struct od_geo *g;
	struct rb_acc acc;	/* acc.f: the figures this segment counts into */
	rb_fork_fn fork;
	void *priv;
	uint64_t *cseen;	/* bit per inode cluster */
	const uint64_t *cbase;	/* per AG: first cluster bit of its chunks */
	uint32_t cpc;		/* clusters per chunk */
	uint64_t *ag_end;	/* per AG: end of the last data access */
	const struct rb_layout *lay;	/* inodes elsewhere (NULL: as seen) */
	/* per AG, the first agino of each chunk (the model's or lay's) */
	uint32_t *const *start;
	const size_t *nstart;
	/* per AG, an index of start (when every AG's are sorted): the
	 * chunk of an inode in one look-up, whatever the layout */
	const struct chunkidx *cidx;
	/* the chunk the last inode was in, when there is no index */
	uint32_t hint_ag;
	size_t hint_lo;		/* 0: none yet */
	/* the inodes of the last cluster looked up, [seen_lo, seen_hi) in
	 * AG seen_ag (within its chunk and before the next chunk): it was
	 * read or found read then, and a directory's files mostly share it;
	 * only when every AG's chunks are sorted (the search then finds the
	 * same chunk for all of them) */
	bool sorted;
	uint32_t seen_ag;
	uint64_t seen_lo, seen_hi;
	size_t lo, hi;		/* the segment: w->seq[lo, hi) */
	/* a segment after the first: its accesses, to be replayed */
	bool rec;
	uint64_t *ev;
	size_t nev, cap_ev;
	uint64_t *ag_first;	/* per AG: first data access (UINT64_MAX: none) */
	struct rb_fig fig;
	const struct rb_trace *trace;	/* one segment only (NULL: none) */
	uint32_t cur;		/* the walk's dense number being read */
	int err;
};

/* One access costed now, and passed to the trace if there is one. */
static void cost(struct rbctx *c, uint64_t off, uint64_t len, bool cluster,
		 bool meta)
{
	double h = c->acc.f->hdd_seconds;
	uint64_t r = c->acc.f->requests;

	if (meta)
		rb_acc_read_meta(&c->acc, off, len);
	else
		rb_acc_read(&c->acc, off, len);
	if (c->trace && len)
		c->trace->fn(c->trace->priv, c->cur, cluster,
			     c->acc.f->hdd_seconds - h, c->acc.f->requests - r);
}

static size_t nchunks(const struct rbctx *c, uint32_t agno)
{
	return c->nstart[agno];
}

static uint32_t chunk_start(const struct rbctx *c, uint32_t agno, size_t k)
{
	return c->start[agno][k];
}

static inline int record(struct rbctx *c, uint64_t v)
{
	if (bigmem_grow((void **)&c->ev, &c->cap_ev, c->nev, sizeof(*c->ev)))
		return -ENOMEM;
	c->ev[c->nev++] = v;
	return 0;
}

/* An access of len bytes at off: costed now (the first segment) or
 * recorded; meta: an inode's block or a directory's, which the metadata
 * walk reads too. */
static inline int access(struct rbctx *c, uint64_t off, uint64_t len,
			 bool cluster, bool meta)
{
	unsigned bl = c->g->blocklog;
	uint64_t blk = off >> bl, n = len >> bl;
	int ret;

	if (!c->rec) {
		cost(c, off, len, cluster, meta);
		return 0;
	}
	if (!len)
		return 0;	/* reads nothing: rb_acc_read ignores it */
	if (!((off | len) & ((1ull << bl) - 1)) &&
	    blk < (1ull << RB_EV_BLKBITS) && n < (1ull << RB_EV_LENBITS))
		return record(c, (meta ? RB_EV_META : 0) |
			      blk << RB_EV_LENBITS | n);
	ret = record(c, RB_EV_WIDE | (meta ? RB_EV_META : 0));
	if (!ret)
		ret = record(c, off);
	return ret ? ret : record(c, len);
}

static inline bool bit_at_or_before(const uint64_t *base, uint64_t bit)
{
	return *base <= bit;
}

SEARCH_FIRST(cbase_search, uint64_t, uint64_t, bit_at_or_before)

/* Where the cluster of bit bit starts, in bytes (read_inode's sum). */
static uint64_t cluster_off(const struct rbctx *c, uint64_t bit)
{
	const struct od_geo *g = c->g;
	/* the last AG whose first bit is at or before it */
	uint32_t lo = (uint32_t)cbase_search(c->cbase, g->agcount, bit), cb;
	uint64_t rel;

	lo = lo ? lo - 1 : 0;
	rel = bit - c->cbase[lo];
	cb = od_agino_agbno(g, chunk_start(c, lo, (size_t)(rel / c->cpc)));
	return od_agb_lin(g, lo, cb + (uint32_t)(rel % c->cpc) *
			  g->blocks_per_cluster) << g->blocklog;
}

/* Read the cluster holding inode mi, unless it was read before. */
static int read_inode(struct rbctx *c, const struct m_ino *mi)
{
	const struct od_geo *g = c->g;
	uint64_t ino = c->lay ? c->lay->ino(c->lay->priv, mi) : mi->ino;
	uint32_t agno = od_ino_agno(g, ino), agino = od_ino_agino(g, ino);
	uint32_t bpc = g->blocks_per_cluster;
	uint32_t agbno = od_agino_agbno(g, agino), cb, ci;
	uint64_t first, last;
	size_t lo = 0, hi = agno < g->agcount ? nchunks(c, agno) : 0;
	uint64_t bit, off;

	if (agno == c->seen_ag && agino >= c->seen_lo && agino < c->seen_hi)
		return 0;	/* its cluster, just seen */
	/* lo: the chunks starting at or before it (the same answer as the
	 * search below, which the index and the hint only short-cut; the
	 * index says nothing of lo when no chunk holds the inode) */
	if (c->cidx) {
		size_t k;

		lo = 0;
		if (hi && chunkidx_find(&c->cidx[agno], agino, &k))
			lo = k + 1;
	} else if (c->hint_lo && c->hint_ag == agno && c->hint_lo <= hi &&
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
		return access(c, od_agb_lin(g, agno, agbno) << g->blocklog,
			      g->blocksize, true, true);
	}
	cb = od_agino_agbno(g, chunk_start(c, agno, lo - 1));
	ci = (agbno - cb) / bpc;
	bit = c->cbase[agno] + (uint64_t)(lo - 1) * c->cpc + ci;
	/* the inodes that find this chunk and this cluster, as it did */
	first = (uint64_t)(cb + ci * bpc) << g->inopblog;
	last = first + ((uint64_t)bpc << g->inopblog);
	if (first < chunk_start(c, agno, lo - 1))
		first = chunk_start(c, agno, lo - 1);
	if (last > (uint64_t)chunk_start(c, agno, lo - 1) + OD_INODES_PER_CHUNK)
		last = (uint64_t)chunk_start(c, agno, lo - 1) +
		       OD_INODES_PER_CHUNK;
	if (lo < nchunks(c, agno) && last > chunk_start(c, agno, lo))
		last = chunk_start(c, agno, lo);
	if (c->sorted) {
		c->seen_ag = agno;
		c->seen_lo = first;
		c->seen_hi = last;
	}
	if (c->cseen[bit >> 6] & (1ull << (bit & 63)))
		return 0;
	c->cseen[bit >> 6] |= 1ull << (bit & 63);
	if (c->rec)	/* read unless a segment before read it */
		return record(c, RB_EV_CLUSTER | bit);
	off = od_agb_lin(g, agno, cb + ci * bpc) << g->blocklog;
	c->acc.f->clusters++;
	cost(c, off, (uint64_t)bpc << g->blocklog, true, true);
	return 0;
}

/* One data fork record, read unless a hole, unwritten or off the device;
 * dir: a directory's (the metadata walk reads it too). */
static inline int read_rec(struct rbctx *c, const struct m_ino *mi,
			   const struct od_irec *r, bool dir)
{
	const struct od_geo *g = c->g;
	uint32_t agno = od_fsb_agno(g, r->startblock);
	uint64_t off = od_fsb_lin(g, r->startblock) << g->blocklog;
	uint64_t len = (uint64_t)r->blockcount << g->blocklog;

	if (r->unwritten || agno >= g->agcount)
		return 0;
	if (!(mi->flags & MI_REFLINK)) {
		if (c->rec && c->ag_first[agno] == UINT64_MAX)
			c->ag_first[agno] = off;	/* settled later */
		else if (off < c->ag_end[agno])
			c->acc.f->out_of_order++;
		c->ag_end[agno] = off + len;
	}
	c->acc.f->data_bytes += len;
	return access(c, off, len, false, dir);
}

static int read_data(struct rbctx *c, const struct m_ag *ag,
		     const struct m_ino *mi)
{
	const struct od_irec *r;
	struct od_irec one;
	uint32_t n, k;
	bool dir = od_mode_isdir(mi->mode);
	int ret = 0;

	if (c->fork && c->fork(c->priv, mi, &r, &n)) {
		for (k = 0; k < n && !ret; k++)
			ret = read_rec(c, mi, &r[k], dir);
		return ret;
	}
	for (k = 0; k < mi->nde && !ret; k++) {
		m_ext_get(&ag->ext[mi->ext + k], &one);
		ret = read_rec(c, mi, &one, dir);
	}
	return ret;
}

/*
 * The walk reaches inodes in any order: on a tree whose directories'
 * files are spread over the disk, each m_ino and its first extent record
 * is a cache miss.  They are fetched RB_AHEAD inodes ahead, the records
 * half as far (their index is in the m_ino).
 */
#define RB_AHEAD	16

struct ahead {
	const struct m_ag *ag;
	const struct m_ino *mi;
};

/* The inode of dense index d, and its AG (kept in *ag, [*lo, *hi)). */
static inline const struct m_ino *locate(const struct walk *w, uint32_t d,
					 const struct m_ag **ag,
					 uint64_t *lo, uint64_t *hi)
{
	if (d >= *lo && d < *hi)
		return &(*ag)->ino[d - *lo];
	/* mostly the AG of the inode before: no search for it */
	{
		const struct m_ino *mi = walk_inode(w, d, ag);

		*lo = w->base[(*ag)->agno];
		*hi = w->base[(*ag)->agno + 1];
		return mi;
	}
}

/* Cost (or record) the segment w->seq[c->lo, c->hi). */
static void run_segment(struct rbctx *c)
{
	const struct walk *w = c->w;
	const struct m_ag *pag = NULL;
	struct rb_fig *f = c->acc.f;
	struct ahead ring[RB_AHEAD];
	uint64_t plo = 1, phi = 0;	/* pag's dense indices */
	size_t i;
	int ret = 0;

	for (i = c->lo; i < c->hi && i < c->lo + RB_AHEAD; i++) {
		ring[i % RB_AHEAD].mi = locate(w, w->seq[i], &pag, &plo, &phi);
		ring[i % RB_AHEAD].ag = pag;
		__builtin_prefetch(ring[i % RB_AHEAD].mi);
	}
	for (i = c->lo; i < c->hi && !ret; i++) {
		const struct m_ino *mi = ring[i % RB_AHEAD].mi;
		const struct m_ag *ag = ring[i % RB_AHEAD].ag;
		bool dir;

		if (i + RB_AHEAD < c->hi) {
			struct ahead *n = &ring[i % RB_AHEAD];

			n->mi = locate(w, w->seq[i + RB_AHEAD], &pag, &plo, &phi);
			n->ag = pag;
			__builtin_prefetch(n->mi);
			__builtin_prefetch((const char *)(n->mi + 1) - 1);
		}
		if (i + RB_AHEAD / 2 < c->hi) {
			const struct ahead *h = &ring[(i + RB_AHEAD / 2) % RB_AHEAD];

			if (h->mi->nde)
				__builtin_prefetch(&h->ag->ext[h->mi->ext]);
		}
		dir = od_mode_isdir(mi->mode);
		if (!dir && !od_mode_isreg(mi->mode))
			continue;
		if (dir)
			f->dirs++;
		else
			f->files++;
		c->cur = w->seq[i];
		ret = read_inode(c, mi);
		if (!ret && (dir || !(mi->flags & MI_REALTIME)))
			ret = read_data(c, ag, mi);
	}
	c->err = ret;
}

static void run_one(void *priv, unsigned i)
{
	run_segment((struct rbctx *)priv + i);
}

/* A recorded segment, after the ones before it: into the first one. */
static void replay(struct rbctx *c0, const struct rbctx *c)
{
	unsigned bl = c0->g->blocklog;
	uint64_t clen = (uint64_t)c0->g->blocks_per_cluster << bl;
	struct rb_fig *f = c0->acc.f;
	uint32_t a;
	size_t k;

	for (k = 0; k < c->nev; k++) {
		uint64_t ev = c->ev[k], bit = ev & ~RB_EV_CLUSTER;
		uint64_t v = ev & ~RB_EV_META;
		void (*rd)(struct rb_acc *, uint64_t, uint64_t) =
			ev & RB_EV_META ? rb_acc_read_meta : rb_acc_read;

		if (v == RB_EV_WIDE) {
			rd(&c0->acc, c->ev[k + 1], c->ev[k + 2]);
			k += 2;
			continue;
		}
		if (!(ev & RB_EV_CLUSTER)) {
			rd(&c0->acc, v >> RB_EV_LENBITS << bl,
			   (v & ((1ull << RB_EV_LENBITS) - 1)) << bl);
			continue;
		}
		if (c0->cseen[bit >> 6] & (1ull << (bit & 63)))
			continue;
		c0->cseen[bit >> 6] |= 1ull << (bit & 63);
		f->clusters++;
		rb_acc_read_meta(&c0->acc, cluster_off(c0, bit), clen);
	}
	for (a = 0; a < c0->w->m->agcount; a++) {
		if (c->ag_first[a] == UINT64_MAX)
			continue;	/* no data access there */
		if (c->ag_first[a] < c0->ag_end[a])
			f->out_of_order++;
		c0->ag_end[a] = c->ag_end[a];
	}
	f->dirs += c->fig.dirs;
	f->files += c->fig.files;
	f->clusters += c->fig.clusters;
	f->data_bytes += c->fig.data_bytes;
	f->out_of_order += c->fig.out_of_order;
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
	unsigned nseg = w->m->threads ? w->m->threads : par_ncpus();

	if (w->nreached / RB_PAR_MIN < nseg)
		nseg = (unsigned)(w->nreached / RB_PAR_MIN);
	return readback_model_segs(w, fork, priv, lay, nseg, f, e);
}

static int model_segs(const struct walk *w, rb_fork_fn fork, void *priv,
		      const struct rb_layout *lay, const struct rb_trace *t,
		      unsigned nseg, struct rb_fig *f, struct err *e);

int readback_model_segs(const struct walk *w, rb_fork_fn fork, void *priv,
			const struct rb_layout *lay, unsigned nseg,
			struct rb_fig *f, struct err *e)
{
	return model_segs(w, fork, priv, lay, NULL, nseg, f, e);
}

int readback_model_trace(const struct walk *w, rb_fork_fn fork, void *priv,
			 const struct rb_layout *lay, const struct rb_trace *t,
			 struct rb_fig *f, struct err *e)
{
	return model_segs(w, fork, priv, lay, t, 1, f, e);
}

static int model_segs(const struct walk *w, rb_fork_fn fork, void *priv,
		      const struct rb_layout *lay, const struct rb_trace *t,
		      unsigned nseg, struct rb_fig *f, struct err *e)
{
	const struct model *m = w->m;
	struct rbctx *c;
	struct chunkidx *cidx = NULL;
	uint64_t nbits = 0, *cbase;
	uint32_t a, chunk_blocks, cpc, **start = NULL;
	size_t *nstart = NULL;
	unsigned s;
	bool sorted = true;
	int ret = 0;

	if (!nseg)
		nseg = 1;
	chunk_blocks = m->fs->geo.ialloc_blks ? m->fs->geo.ialloc_blks : 1;
	cpc = (chunk_blocks + m->fs->geo.blocks_per_cluster - 1) /
	      m->fs->geo.blocks_per_cluster;
	c = calloc(nseg, sizeof(*c));
	cbase = malloc((m->agcount + 1) * sizeof(*cbase));
	if (!c || !cbase) {
		free(c);
		free(cbase);
		return err_set(e, -ENOMEM, "out of memory");
	}
	start = calloc(m->agcount + 1, sizeof(*start));
	nstart = calloc(m->agcount + 1, sizeof(*nstart));
	if (!start || !nstart) {
		ret = -ENOMEM;
		goto out;
	}
	for (a = 0; a < m->agcount; a++) {
		size_t k;

		cbase[a] = nbits;
		nstart[a] = lay ? lay->nchunks[a] : m->ag[a].nchunk;
		nbits += (uint64_t)nstart[a] * cpc;
		if (lay) {
			start[a] = lay->chunks[a];
			continue;
		}
		/* the model's, copied out of its records: read for every
		 * inode, and four bytes each are fewer cache lines */
		start[a] = malloc((nstart[a] ? nstart[a] : 1) *
				  sizeof(**start));
		if (!start[a]) {
			ret = -ENOMEM;
			goto out;
		}
		for (k = 0; k < nstart[a]; k++)
			start[a][k] = m->ag[a].chunk[k].startino;
	}
	for (a = 0; a < m->agcount && sorted; a++) {
		size_t k;

		for (k = 1; k < nstart[a] && sorted; k++)
			sorted = start[a][k - 1] <= start[a][k];
	}
	if (sorted) {
		cidx = calloc(m->agcount + 1, sizeof(*cidx));
		for (a = 0; cidx && a < m->agcount; a++) {
			if (chunkidx_build(&cidx[a], start[a], nstart[a]))
				break;
		}
		if (!cidx || a < m->agcount) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (s = 0; s < nseg; s++) {
		struct rbctx *cs = &c[s];

		cs->w = w;
		cs->g = &m->fs->geo;
		cs->fork = fork;
		cs->priv = priv;
		cs->lay = lay;
		cs->cbase = cbase;
		cs->cidx = cidx;
		cs->start = start;
		cs->nstart = nstart;
		cs->cpc = cpc;
		cs->sorted = sorted;
		cs->lo = w->nreached * s / nseg;
		cs->hi = w->nreached * (s + 1) / nseg;
		cs->rec = s > 0;
		cs->trace = t;
		rb_acc_init(&cs->acc, s ? &cs->fig : f);
		cs->cseen = calloc(nbits / 64 + 1, sizeof(*cs->cseen));
		cs->ag_end = calloc(m->agcount + 1, sizeof(*cs->ag_end));
		if (s)
			cs->ag_first = malloc((m->agcount + 1) *
					      sizeof(*cs->ag_first));
		if (!cs->cseen || !cs->ag_end || (s && !cs->ag_first)) {
			ret = -ENOMEM;
			goto out;
		}
		for (a = 0; s && a < m->agcount; a++)
			cs->ag_first[a] = UINT64_MAX;
		/* about one access per entry: room for that, grown if not */
		if (s) {
			cs->cap_ev = cs->hi - cs->lo + 64;
			cs->ev = bigmem_calloc(cs->cap_ev, sizeof(*cs->ev));
			if (!cs->ev) {
				cs->cap_ev = 0;
				ret = -ENOMEM;
				goto out;
			}
		}
	}
	if (nseg > 1)
		par_for(nseg, nseg, run_one, c);
	else
		run_segment(&c[0]);
	for (s = 0; s < nseg && !ret; s++)
		ret = c[s].err;
	for (s = 1; s < nseg && !ret; s++)
		replay(&c[0], &c[s]);
out:
	for (s = 0; s < nseg; s++) {
		free(c[s].cseen);
		free(c[s].ag_end);
		free(c[s].ag_first);
		bigmem_free(c[s].ev, c[s].cap_ev, sizeof(*c[s].ev));
	}
	for (a = 0; cidx && a < m->agcount; a++)
		chunkidx_free(&cidx[a]);
	free(cidx);
	for (a = 0; !lay && start && a < m->agcount; a++)
		free(start[a]);
	free(start);
	free(nstart);
	free(c);
	free(cbase);
	if (ret)
		return err_set(e, -ENOMEM, "out of memory");
	return 0;
}
