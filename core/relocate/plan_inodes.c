/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode renumbering, the choice: which inodes move, to which
 * AG, and into which slot of which new chunk; which chunks the run
 * frees.  Where the new chunks go is the stream's business (together at
 * the front of each AG's stream, plan_stream.c).
 *
 * Each directory reached by the walk gets its children (those that
 * move, per AG) into new chunks, in walk order, 64 to a chunk: every
 * walk that visits the inodes (du, ls -lR, bulkstat, a whole-tree read)
 * then reads each cluster once and all of them in one zone, which the
 * drive's read-ahead and cache serve; chunks one cluster full, each
 * before its data, made every cluster a seek and bulkstat read twice
 * the chunks.
 *
 * Fixed: the inodes the superblock names (root, realtime bitmap and
 * summary, quota inodes, the metadata directory) and so their chunks;
 * the metadata directory's files (their numbers are in its entries and
 * the superblock; the walk does not reach them anyway); inodes the walk
 * does not reach (no directory entry to rewrite); damaged inodes; AGs
 * the scan could not read whole.  An inode goes into the AG its
 * directory ends up in while that AG has room for it and its data
 * (keeping a sixteenth of the AG free; plan_inoag.c), else stays in its
 * own: a tree walk then reads one AG front to back instead of jumping to
 * the AG of every directory (the kernel's spreading of directories over
 * AGs serves parallel writers, not a reader).  Data follows its inode's
 * AG (plan_target.c).  A new number is below 2^32 whenever the old one was
 * (a shortform directory never grows to 8-byte entries); with --inode32
 * every moving inode is.
 */
#include "core/relocate/plan_priv.h"
#include "core/base/bigmem.h"
#include "core/base/sort.h"
#include "core/model/inoidx.h"
#include "ondisk/inode.h"

#include <stdlib.h>
#include <string.h>

#define INO32	(1ull << 32)

/* The AG block before which a chunk keeps all its numbers below 2^32. */
uint32_t plan_ino_limit32(const struct od_geo *g, uint32_t agno)
{
	uint64_t first = (uint64_t)agno << g->agino_log, n;

	if (first >= INO32)
		return 0;
	n = (INO32 - first) >> g->inopblog;
	return n < od_ag_blocks(g, agno) ? (uint32_t)n : od_ag_blocks(g, agno);
}

static bool named_by_sb(const struct od_sb *sb, uint64_t ino)
{
	return ino == sb->rootino || ino == sb->rbmino || ino == sb->rsumino ||
	       ino == sb->uquotino || ino == sb->gquotino ||
	       ino == sb->pquotino ||
	       (od_sb_has_metadir(sb) && ino == sb->metadirino);
}

/* Index of the model chunk holding agino, or nchunk. */
static size_t chunk_of(const struct m_ag *ag, uint32_t agino)
{
	size_t lo = 0, hi = ag->nchunk;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ag->chunk[mid].startino <= agino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && agino < ag->chunk[lo - 1].startino + OD_INODES_PER_CHUNK)
		return lo - 1;
	return ag->nchunk;
}

/*
 * The dense index of inode ino, or NOSLOT: through the direct index
 * (inoidx.h), whatever order the look-ups come in; cur is the slot
 * found last (a directory's entries often share one).
 */
static uint32_t dense_of(const struct planner *pl, const struct inoidx *x,
			 struct inoidx_cur *cur, uint64_t ino)
{
	uint32_t agno, k;
	bool dir;

	if (!inoidx_locate(x, cur, ino, &agno, &k, &dir))
		return NOSLOT;
	return (uint32_t)(pl->walk.base[agno] + k);
}

/*
 * The directory the walk reaches each inode through: of its parents
 * visited before it, the last (the walk is depth first, so that one's
 * subtree is the innermost that holds it).
 */
static int parents(const struct planner *pl, uint32_t **out)
{
	const struct model *m = pl->m;
	uint32_t *par = malloc((pl->nref ? pl->nref : 1) * sizeof(*par));
	struct inoidx x = { 0 };
	struct inoidx_cur pc = { 0 }, cc = { 0 };
	struct err e = { 0 };
	uint32_t a;
	size_t k;

	if (!par || inoidx_build(m, &x, &e)) {
		free(par);
		return -ENOMEM;
	}
	for (k = 0; k < pl->nref; k++)
		par[k] = NOSLOT;
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];
		uint64_t last = 0;
		uint32_t dp = NOSLOT;

		for (k = 0; k < ag->nlink; k++) {
			uint32_t dc;

			if (k == 0 || ag->link[k].parent != last) {
				last = ag->link[k].parent;
				dp = dense_of(pl, &x, &pc, last);
			}
			if (dp == NOSLOT)
				continue;
			dc = dense_of(pl, &x, &cc, ag->link[k].child);
			if (dc == NOSLOT || dc == dp ||
			    pl->ref[dp].order >= pl->ref[dc].order)
				continue;
			if (par[dc] == NOSLOT ||
			    pl->ref[par[dc]].order < pl->ref[dp].order)
				par[dc] = dp;
		}
	}
	inoidx_free(&x);
	*out = par;
	return 0;
}

/* Model chunks of the AG whose in-use inodes the model has, all of them. */
static int chunk_census(const struct planner *pl, uint32_t agno,
			uint8_t *ok)
{
	const struct od_geo *g = pl->g;
	const struct m_ag *ag = &pl->m->ag[agno];
	size_t k, i = 0;

	for (k = 0; k < ag->nchunk; k++) {
		const struct od_inobt_rec *r = &ag->chunk[k];
		unsigned inuse = 0, have = 0, s;

		for (s = 0; s < OD_INODES_PER_CHUNK; s++)
			inuse += od_inobt_inuse(r, s);
		while (i < ag->nino &&
		       od_ino_agino(g, ag->ino[i].ino) < r->startino)
			i++;
		while (i < ag->nino && od_ino_agino(g, ag->ino[i].ino) <
		       r->startino + OD_INODES_PER_CHUNK) {
			have++;
			i++;
		}
		ok[k] = inuse == have;
	}
	return 0;
}

struct member {
	uint32_t d;		/* dense index */
	uint32_t ag;		/* target AG */
	uint64_t pord;		/* parent's walk order */
	uint64_t ord;		/* its own */
};

/* Members by target AG, parent's walk order, then their own. */
static uint64_t member_field(const void *e, unsigned f, const void *arg)
{
	const struct member *mb = e;

	(void)arg;
	return f == 0 ? mb->ag : f == 1 ? mb->pord : mb->ord;
}

/* A directory's moving children in one AG: mem[start, start+n). */
struct group {
	size_t start, n;
	uint32_t ag;
	uint64_t first;		/* walk order of its first member */
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->ag != y->ag)
		return x->ag < y->ag ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_chunk_key(const void *a, const void *b, void *arg)
{
	const struct nchunk *ch = arg;
	const struct nchunk *x = &ch[*(const size_t *)a];
	const struct nchunk *y = &ch[*(const size_t *)b];

	if (x->key2 != y->key2)
		return x->key2 < y->key2 ? -1 : 1;
	return x->agno < y->agno ? -1 : x->agno > y->agno;
}

static int new_chunk(struct planner *pl, uint32_t agno, const struct member *mb,
		     size_t at)
{
	struct inoplan *ip = pl->ip;
	struct nchunk *c = &ip->ch[ip->nch++];

	memset(c, 0, sizeof(*c));
	c->agno = agno;
	c->agbno = NOAGBNO;
	c->limit = plan_ag_len(pl, agno);
	c->key2 = (uint64_t)mb->ord << 1;
	c->first = (uint32_t)at;
	return 0;
}

/* Put member mb (mem index at) into the current chunk of its AG. */
static void take_slot(struct planner *pl, const struct member *mb, size_t at,
		      bool inode32)
{
	struct inoplan *ip = pl->ip;
	struct nchunk *c = &ip->ch[ip->nch - 1];
	uint64_t old = pl->ref[mb->d].mi->ino;

	ip->mem[at] = mb->d;
	ip->slot[mb->d] = (uint32_t)((ip->nch - 1) * OD_INODES_PER_CHUNK +
				     c->used++);
	ip->tag[mb->d] = mb->ag;
	if (old < INO32 || inode32) {
		uint32_t lim = plan_ino_limit32(pl->g, mb->ag);

		c->need32 = true;
		c->inode32 |= old >= INO32;
		if (lim < c->limit)
			c->limit = lim;
	}
}

/*
 * Slots for the members, group by group in walk order, cap[ag] members to
 * a chunk (below 64, a directory shares the open chunk only if all of it
 * fits).
 */
static int assign(struct planner *pl, struct member *mb, size_t n,
		  const uint32_t *cap, bool inode32)
{
	struct inoplan *ip = pl->ip;
	struct group *gr;
	size_t ng = 0, i, j, at = 0;
	uint32_t a = ~0u;

	gr = malloc((n ? n : 1) * sizeof(*gr));
	if (!gr)
		return -ENOMEM;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && mb[j].ag == mb[i].ag &&
		     mb[j].pord == mb[i].pord; j++)
			;
		gr[ng].start = i;
		gr[ng].n = j - i;
		gr[ng].ag = mb[i].ag;
		gr[ng].first = mb[i].ord;
		ng++;
	}
	sort_any(gr, ng, sizeof(*gr), cmp_group);
	ip->nch = 0;
	for (i = 0; i < ng; i++) {
		const struct group *g = &gr[i];
		struct nchunk *cur = ip->nch ? &ip->ch[ip->nch - 1] : NULL;
		uint32_t c = cap[g->ag];

		if (g->ag != a) {
			cur = NULL;
			a = g->ag;
		}
		/* share the open cluster only if the whole directory fits */
		if (cur && c < OD_INODES_PER_CHUNK && cur->used + g->n > c)
			cur = NULL;
		for (j = 0; j < g->n; j++) {
			const struct member *m = &mb[g->start + j];

			if (!cur || cur->used == c) {
				new_chunk(pl, g->ag, m, at);
				cur = &ip->ch[ip->nch - 1];
			}
			take_slot(pl, m, at++, inode32);
		}
	}
	ip->nmem = at;
	free(gr);
	return 0;
}

void plan_ino_free(struct inoplan *ip)
{
	uint32_t a;

	if (!ip)
		return;
	free(ip->slot);
	free(ip->tag);
	free(ip->mem);
	free(ip->ch);
	free(ip->order);
	for (a = 0; ip->vacated && ip->pad && ip->cap_pad && a < ip->nag; a++) {
		free(ip->vacated[a]);
		/* grown by bigmem_grow: mapped once past 1 MiB */
		bigmem_free(ip->pad[a], ip->cap_pad[a], sizeof(**ip->pad));
	}
	free(ip->vacated);
	free(ip->pad);
	free(ip->npad);
	free(ip->cap_pad);
	free(ip->blocks);
	free(ip);
}

/* A shrink: is ino in a chunk that reaches past the new end? */
static bool ino_forced(const struct planner *pl, uint64_t ino)
{
	uint32_t a = od_ino_agno(pl->g, ino);
	const struct m_ag *ag;
	size_t k;

	if (!pl->shr || a >= pl->m->agcount)
		return false;
	if (plan_shrink_gone(pl, a))
		return true;
	ag = &pl->m->ag[a];
	k = chunk_of(ag, od_ino_agino(pl->g, ino));
	return k < ag->nchunk && plan_shrink_chunk_forced(pl, a, &ag->chunk[k]);
}

/* A shrink that would leave inode mi past the new end: refuse. */
static int stuck(const struct planner *pl, const struct m_ino *mi,
		 const char *why)
{
	return err_set(pl->e, -EPERM, "refusing to shrink: inode %llu lies "
		       "past the new end and cannot move (%s)",
		       (unsigned long long)mi->ino, why);
}

/*
 * Why inode d, past a shrink's new end, cannot move, or NULL if it can
 * (the walk reaches it, a directory names it, it is a plain inode in an
 * AG read whole).
 */
static const char *cannot_move(const struct planner *pl, const struct od_sb *sb,
			       const uint32_t *par, const uint8_t *agok,
			       uint32_t d)
{
	const struct m_ino *mi = pl->ref[d].mi;

	if (pl->ref[d].order - 1 >= pl->walk.nreached || par[d] == NOSLOT)
		return "no directory entry the walk reaches names it";
	if (named_by_sb(sb, mi->ino))
		return "the superblock names it";
	if (mi->flags & MI_METADATA)
		return "it is a metadata file";
	if ((mi->flags & MI_DAMAGED) || !agok[od_ino_agno(pl->g, mi->ino)])
		return "it or its AG could not be read whole";
	return NULL;
}

/* Which members a mode moves. */
static bool wants_move(enum plan_renumber mode, bool inode32, uint64_t ino)
{
	if (inode32 && ino >= INO32)
		return true;
	return mode != PR_NONE;
}

int plan_ino_choose(struct planner *pl, enum plan_renumber mode,
		    bool inode32, const uint8_t *nomove)
{
	const struct model *m = pl->m;
	const struct od_geo *g = pl->g;
	const struct od_sb *sb = &m->fs->sb;
	struct inoplan *ip;
	struct member *mb = NULL;
	uint32_t *par = NULL, *cap = NULL, *fin = NULL, a, d, stuck_d = 0;
	int64_t *room = NULL, per64;
	uint8_t *agok = NULL, **cok = NULL, *member = NULL;
	size_t n = 0, k, stuck_k = SIZE_MAX;
	int ret = -ENOMEM;

	ip = calloc(1, sizeof(*ip));
	if (!ip)
		return -ENOMEM;
	pl->ip = ip;
	ip->nag = m->agcount;
	ip->slot = malloc((pl->nref ? pl->nref : 1) * sizeof(*ip->slot));
	ip->tag = malloc((pl->nref ? pl->nref : 1) * sizeof(*ip->tag));
	ip->mem = malloc((pl->nref ? pl->nref : 1) * sizeof(*ip->mem));
	ip->ch = malloc((pl->nref ? pl->nref : 1) * sizeof(*ip->ch));
	ip->vacated = calloc(m->agcount, sizeof(*ip->vacated));
	ip->pad = calloc(m->agcount, sizeof(*ip->pad));
	ip->npad = calloc(m->agcount, sizeof(*ip->npad));
	ip->cap_pad = calloc(m->agcount, sizeof(*ip->cap_pad));
	ip->blocks = calloc(m->agcount, sizeof(*ip->blocks));
	mb = malloc((pl->nref ? pl->nref : 1) * sizeof(*mb));
	cap = malloc(m->agcount * sizeof(*cap));
	agok = calloc(m->agcount, 1);
	cok = calloc(m->agcount, sizeof(*cok));
	if (!ip->slot || !ip->tag || !ip->mem || !ip->ch || !ip->vacated ||
	    !ip->pad || !ip->npad || !ip->cap_pad || !ip->blocks || !mb ||
	    !cap || !agok || !cok)
		goto out;
	ip->align = g->cluster_align > 1 ? g->cluster_align : 1;
	if (sb->inoalignmt > ip->align &&
	    ((sb->versionnum & OD_SB_VERSION_ALIGN) || g->v5))
		ip->align = sb->inoalignmt;
	if (ip->align < g->blocks_per_cluster)
		ip->align = g->blocks_per_cluster;
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];

		agok[a] = !ag->err && ag->have_agi && ag->have_agf &&
			  !ag->ndamaged;
		cok[a] = calloc(ag->nchunk ? ag->nchunk : 1, 1);
		ip->vacated[a] = calloc(ag->nchunk ? ag->nchunk : 1, 1);
		if (!cok[a] || !ip->vacated[a])
			goto out;
		chunk_census(pl, a, cok[a]);
	}
	for (k = 0; k < pl->nref; k++)
		ip->slot[k] = NOSLOT;
	/* one inode per block or more than a chunk per block: not handled */
	if (g->inopblock > OD_INODES_PER_CHUNK || !g->ialloc_blks) {
		ret = 0;
		goto out;
	}
	ret = parents(pl, &par);
	if (ret)
		goto out;
	ret = -ENOMEM;
	fin = malloc((pl->nref ? pl->nref : 1) * sizeof(*fin));
	room = malloc(m->agcount * sizeof(*room));
	member = calloc(pl->nref ? pl->nref : 1, 1);
	if (!fin || !room || !member)
		goto out;
	/* in 64ths of a block: an inode's share of a full chunk and of its
	 * alignment gap (half the alignment on average) */
	per64 = (int64_t)(g->ialloc_blks + ip->align / 2) * 64 /
		OD_INODES_PER_CHUNK;
	/*
	 * The inodes that move (each to some AG); a shrink's first.  In
	 * the model's order, not the walk's: the model is read in order
	 * (on a filesystem whose directories' files are spread, the walk's
	 * order is a cache miss per inode); a shrink refuses on the inode
	 * it cannot move that the walk reaches first.
	 */
	for (d = 0; d < pl->nref; d++) {
		const struct m_ino *mi = pl->ref[d].mi;
		uint32_t own;
		bool forced;

		if (!pl->ref[d].order)
			continue;	/* not in the walk */
		k = pl->ref[d].order - 1;
		forced = ino_forced(pl, mi->ino);
		if (forced && cannot_move(pl, sb, par, agok, d)) {
			if (k < stuck_k) {
				stuck_k = k;
				stuck_d = d;
			}
			continue;
		}
		if (k >= pl->walk.nreached)
			continue;
		if (par[d] == NOSLOT || named_by_sb(sb, mi->ino) ||
		    (mi->flags & (MI_DAMAGED | MI_METADATA)) ||
		    (!forced && ((nomove && nomove[d] >= 2) ||
				 !wants_move(mode, inode32, mi->ino))))
			continue;
		own = od_ino_agno(g, mi->ino);
		if (!agok[own] || chunk_of(&m->ag[own], od_ino_agino(g, mi->ino))
		    == m->ag[own].nchunk)
			continue;
		member[d] = 1;
	}
	if (stuck_k != SIZE_MAX) {
		ret = stuck(pl, pl->ref[stuck_d].mi,
			    cannot_move(pl, sb, par, agok, stuck_d));
		goto out;
	}
	ret = plan_ino_ags(pl, par, member, nomove, cok, agok, inode32, per64,
			   fin, room);
	if (ret)
		goto out;
	ret = -ENOMEM;
	for (k = 0; k < pl->walk.nreached; k++) {
		d = pl->walk.seq[k];
		if (!member[d])
			continue;
		mb[n].d = d;
		mb[n].ag = fin[d];
		mb[n].pord = pl->ref[par[d]].order;
		mb[n].ord = pl->ref[d].order;
		n++;
	}
	ret = sort_by_fields(mb, n, sizeof(*mb), 3, member_field, NULL);
	if (ret)
		goto out;
	/* full chunks, filled in walk order: a metadata walk reads every
	 * cluster once, all of them in one zone (plan_stream.c) */
	for (a = 0; a < m->agcount; a++)
		cap[a] = OD_INODES_PER_CHUNK;
	ret = assign(pl, mb, n, cap, inode32);
	if (ret)
		goto out;
	for (k = 0; k < ip->nch; k++)
		ip->blocks[ip->ch[k].agno] += g->ialloc_blks + ip->align - 1;
	/* the chunks every in-use inode of which moves out */
	for (a = 0; a < m->agcount; a++) {
		const struct m_ag *ag = &m->ag[a];
		size_t i = 0;

		if (!agok[a])
			continue;
		for (k = 0; k < ag->nchunk; k++) {
			const struct od_inobt_rec *r = &ag->chunk[k];
			bool all = cok[a][k];

			while (i < ag->nino &&
			       od_ino_agino(g, ag->ino[i].ino) < r->startino)
				i++;
			for (; i < ag->nino && od_ino_agino(g, ag->ino[i].ino) <
			     r->startino + OD_INODES_PER_CHUNK; i++)
				if (ip->slot[walk_dense(&pl->walk, ag,
							&ag->ino[i])] == NOSLOT)
					all = false;
			ip->vacated[a][k] = all &&
				(n || plan_shrink_chunk_forced(pl, a, r));
		}
	}
	ip->order = malloc((ip->nch ? ip->nch : 1) * sizeof(*ip->order));
	if (!ip->order) {
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < ip->nch; k++)
		ip->order[k] = k;
	qsort_r(ip->order, ip->nch, sizeof(*ip->order), cmp_chunk_key, ip->ch);
	ret = 0;
out:
	for (a = 0; cok && a < m->agcount; a++)
		free(cok[a]);
	free(cok);
	free(agok);
	free(cap);
	free(mb);
	free(par);
	free(member);
	free(fin);
	free(room);
	return ret;
}

bool plan_ino_vacated(const struct planner *pl, uint32_t agno, size_t k)
{
	return pl->ip && pl->ip->vacated[agno][k];
}

uint32_t plan_ino_ag(const struct planner *pl, uint32_t ino_idx)
{
	const struct inoplan *ip = pl->ip;

	if (ip && ip->slot[ino_idx] != NOSLOT)
		return ip->tag[ino_idx];
	return od_ino_agno(pl->g, pl->ref[ino_idx].mi->ino);
}

uint64_t plan_ino_blocks(const struct planner *pl, uint32_t agno)
{
	return pl->ip ? pl->ip->blocks[agno] : 0;
}
