/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The planner's insides, shared by plan.c (tree order, new fork records,
 * predicted figures) and the placement files: plan_units.c (an AG's
 * mappings and units), plan_windows.c (what stays and the windows
 * between), plan_target.c (each fork's AG), plan_take.c and plan_room.c
 * (taking blocks from the windows), plan_place.c (where each unit goes).
 */
#ifndef CORE_PLAN_PRIV_H
#define CORE_PLAN_PRIV_H

#include "core/relocate/plan.h"
#include "core/model/walk.h"

/* One mapping of a fork onto physical blocks of this AG. */
struct pmap {
	uint32_t start, len;	/* agbno, blocks */
	uint32_t ino_idx;	/* index into the global inode order */
	uint32_t unit;		/* which unit it belongs to */
	uint64_t startoff;
	uint8_t fork;
	uint8_t unwritten;
	uint8_t ftype;
};

/* A physical range moved as one piece. */
struct unit {
	uint32_t start, len;
	uint64_t key;		/* placement order: the inode's chunk, */
	uint64_t key2;		/* then tree order and fork, */
	uint64_t key3;		/* then file offset */
	uint32_t npieces;
	uint32_t piece0;	/* first piece in the pieces array */
	bool written;		/* some member is not unwritten: copy it */
	bool shared;		/* more than one mapping: reflinked blocks */
	uint32_t target;	/* AG it is placed in */
	uint32_t owner_ag;	/* AG of the inode it belongs to (unshared) */
};

struct piece {
	uint32_t off, len;	/* within the unit */
	uint32_t dst;		/* agbno */
};

/* An interval of the AG that placement may fill, with a fill cursor. */
struct seg {
	uint32_t start, end, cur;
};

struct inode_ref {
	const struct m_ino *mi;
	uint64_t order;		/* position in the walk, from 1 */
};

struct planner {
	const struct model *m;
	const struct od_geo *g;
	struct plan *p;
	struct err *e;
	/* all inodes, indexed by the walk's dense number */
	struct inode_ref *ref;
	size_t nref;
	struct walk walk;
	bool stream;		/* walk orders: one stream per AG (plan_stream.c) */
	uint8_t *in_order;	/* per inode and fork: 0 unknown, 1 yes, 2 no */
	/* per AG, once placed: mappings that move in from other AGs (their
	 * rmap records are the AG's after the run; NULL before placement) */
	uint64_t *maps_in;
	struct plim *lim;	/* plan_limits.c; NULL: no limits */
	struct inoplan *ip;	/* inode renumbering (NULL: inodes stay) */
	const struct plan_shrink *shr;	/* a shrink (NULL: none) */
	struct plan_gain *gain;	/* costs by inode (NULL: not) */
};

/* ---- shrinking (plan_shrink.c): every call a no-op without one ---- */

struct agplan;

/* Set up plan.shrink for a new size of to blocks; the log's new place. */
int plan_shrink_setup(struct planner *pl, uint64_t to);
/* Blocks of AG agno after the run (0: the AG is gone). */
uint32_t plan_ag_len(const struct planner *pl, uint32_t agno);
/* Is AG agno past the new end? */
bool plan_shrink_gone(const struct planner *pl, uint32_t agno);
/* Does chunk r of AG agno reach past the new end (it must go)? */
bool plan_shrink_chunk_forced(const struct planner *pl, uint32_t agno,
			      const struct od_inobt_rec *r);
/* Does any chunk reach past the new end? */
bool plan_shrink_has_forced(const struct planner *pl);
/* The moved log's blocks in AG agno, if it goes there. */
bool plan_shrink_log_in(const struct planner *pl, uint32_t agno,
			uint32_t *agbno, uint32_t *len);
/* Does the log move (its old blocks are then free for placement)? */
bool plan_shrink_log_moves(const struct planner *pl);
/* Units past the new end or where the moved log goes never stay. */
void plan_shrink_unpin(struct agplan *ap);
/* After placement: is everything inside?  -ENOSPC if not. */
int plan_shrink_verify(struct planner *pl, const struct agplan *aps);
/* The figures of what lies past the new end; the undo file's share. */
void plan_shrink_figures(struct planner *pl);

/* The model's AG of dense inode d (its number's: not kept, 8 bytes an
 * inode). */
static inline const struct m_ag *plan_ref_ag(const struct planner *pl,
					     size_t d)
{
	return &pl->m->ag[od_ino_agno(pl->g, pl->ref[d].mi->ino)];
}

/* ---- inode renumbering (plan_inodes.c, plan_ichunks.c) ---- */

/* A chunk the run allocates: its inodes' slots are chosen before
 * placement, its blocks by the stream (plan_stream.c). */
struct nchunk {
	uint64_t key2;		/* goes before the stream unit with this key */
	uint32_t agno;
	uint32_t agbno;		/* NOAGBNO until placed */
	uint32_t limit;		/* must end at or before (the 2^32 rule) */
	uint32_t used;		/* slots 0..used-1 are taken */
	uint32_t first;		/* first member: index into inoplan.mem */
	bool need32;		/* a member must stay below 2^32 */
	bool inode32;		/* a member must go below 2^32 (--inode32) */
	bool same;		/* lands on the freed chunk of its members:
				 * the chunk stays, nothing moves */
};

#define NOAGBNO	(~0u)
#define NOSLOT	(~0u)

struct inoplan {
	uint32_t *slot;		/* per dense: chunk * 64 + slot, or NOSLOT */
	uint32_t *tag;		/* per dense: the AG its inode ends up in */
	uint32_t *mem;		/* dense indices, chunk by chunk, by slot */
	size_t nmem;
	struct nchunk *ch;	size_t nch;
	size_t *order;		/* chunk indices by key2 (stream order) */
	uint8_t **vacated;	/* per AG, per model chunk: freed by the run */
	uint64_t *blocks;	/* per AG: blocks of the new chunks */
	struct m_free **pad;	/* per AG: alignment gaps the stream left */
	size_t *npad, *cap_pad;
	uint32_t align;		/* chunk alignment, blocks */
	uint32_t unplaced32;	/* --inode32 members that found no room */
	size_t next;		/* stream: next chunk (in order[]) to place */
	uint32_t nag;
};

/*
 * Choose which inodes move, their AG and their slots in new chunks, and
 * which chunks the run frees.  nomove (per dense, may be NULL): inodes a
 * previous attempt could not place (1: keep to own AG, 2: stay).
 */
int plan_ino_choose(struct planner *pl, enum plan_renumber mode,
		    bool inode32, const uint8_t *nomove);
void plan_ino_free(struct inoplan *ip);
/*
 * The AG each inode ends up in (plan_inoag.c): ag_of[d] per dense index
 * (those not in member stay in their own), and each AG's room left, in
 * 64ths of a block.  par: the directory the walk reaches each inode
 * through; chunk_ok: per AG and model chunk, the model has all its
 * in-use inodes; agok: per AG, inodes may go there; per64: an inode's
 * share of a new chunk, in 64ths of a block.
 */
int plan_ino_ags(struct planner *pl, const uint32_t *par,
		 const uint8_t *member, const uint8_t *nomove,
		 uint8_t *const *chunk_ok, const uint8_t *agok, bool inode32,
		 int64_t per64, uint32_t *ag_of, int64_t *room);
/* The AG block before which a chunk keeps all its numbers below 2^32. */
uint32_t plan_ino_limit32(const struct od_geo *g, uint32_t agno);
/* Does model chunk k of AG agno go away (its inodes all move)? */
bool plan_ino_vacated(const struct planner *pl, uint32_t agno, size_t k);
/* The AG inode ino_idx (dense) ends up in. */
uint32_t plan_ino_ag(const struct planner *pl, uint32_t ino_idx);
/* Blocks AG agno needs for new chunks (0 without renumbering). */
uint64_t plan_ino_blocks(const struct planner *pl, uint32_t agno);
/*
 * May a new chunk start at block agbno: do its 64 inode numbers miss
 * every chunk that stays (a sparse chunk's holes are free blocks, but
 * its numbers are taken)?
 */
bool plan_ino_span_free(const struct planner *pl, uint32_t agno,
			uint32_t agbno);
/* Blocks [start, start+len) the stream skipped to align a chunk: free. */
int plan_ino_pad(struct planner *pl, uint32_t agno, uint32_t start,
		 uint32_t len);
/*
 * After placement: the chunks that found no room mark their members in
 * nomove and return -EAGAIN; else fill p->ino, p->ich.
 */
int plan_ino_finish(struct planner *pl, uint8_t *nomove);
/* AG btree blocks the new chunk records add (inobt, finobt, rmap). */
uint32_t plan_ino_agbt_extra(const struct planner *pl, uint32_t agno);
/* Alignment gaps rejoin free space; AGI newino next to the free space. */
int plan_ino_finish_ag(struct planner *pl, uint32_t agno, bool newino);
/* Chunk starts (agino) of AG agno after the plan, sorted. */
int plan_ino_chunks_after(const struct planner *pl, uint32_t agno,
			  uint32_t **out, size_t *n);

/* ---- per AG ---- */

struct agplan {
	struct planner *pl;
	uint32_t agno, agblocks;
	struct pmap *map;	size_t nmap, cap_map;
	struct unit *unit;	size_t nunit;
	struct piece *piece;	size_t npiece, cap_piece;
	struct m_free *obst;	size_t nobst, cap_obst;	/* fixed ranges */
	struct seg *seg;	size_t nseg;
	size_t seg_first;	/* segments before it are full */
	bool compact;		/* move everything (second pass) */
	uint8_t *pinned;	/* per unit: stays where it is */
	uint32_t bt_at, bt_len;	/* run reserved for the AG btrees */
	/* blocks the stream stepped over to leave a fork where it is:
	 * free after the run, but not filled by this plan */
	struct m_free *hole;	size_t nhole, cap_hole;
};

/* A unit, named across AGs. */
struct unit_ref {
	uint32_t agno, idx;
};

/*
 * Room left in one AG's windows, by block order (plan_room.c): a Fenwick
 * tree over the windows so the room from any window on is a quick sum
 * while placement takes blocks.
 */
struct window_room {
	uint32_t *start;	/* window starts, ascending */
	int64_t *fw;		/* Fenwick tree of room, 1-based */
	uint64_t total;
	size_t n;
};

int plan_room_init(struct window_room *w, const struct agplan *ap);
void plan_room_free(struct window_room *w);
/* Blocks [at, at+len) were taken (w may be NULL). */
void plan_room_take(struct window_room *w, uint32_t at, uint32_t len);
/*
 * Where a fork whose inode sits at block hint should start looking for
 * room so that the forks after it (rem blocks, its own included) still
 * find room from there on.
 */
uint32_t plan_room_anchor(const struct window_room *w, uint32_t hint,
			  uint64_t rem);

/* The AG's fixed obstacles, fork mappings, units, pins and windows. */
int plan_gather_obstacles(struct agplan *ap);
int plan_gather_maps(struct agplan *ap);
int plan_build_units(struct agplan *ap);
int plan_pin_units(struct agplan *ap);
int plan_build_segments(struct agplan *ap);
/* Choose every unit's AG and place it (pieces). */
int plan_place_all(struct planner *pl, struct agplan *aps);
/* Place units in order in the windows (plan_stream.c): stream mode;
 * new inode chunks go first, together at the front of the stream. */
int plan_place_stream(struct planner *pl, struct agplan *aps,
		      const struct unit_ref *all, size_t n);
/* Place near the data read before (plan_near.c): a few chosen files. */
int plan_place_near(struct planner *pl, struct agplan *aps,
		    const struct unit_ref *all, size_t n);
/*
 * len contiguous blocks from the first window at or after block hint
 * with room, else the nearest before it (the big window, kept for free
 * space, last); false if none holds them.
 */
bool plan_seg_take_near(struct agplan *ap, uint32_t len, uint32_t hint,
			uint32_t *at);
/* New mapping records of every fork, from all AGs (plan_forks.c). */
struct nrec;
struct nrecs {
	struct nrec *v;
	size_t n, cap;
};
/* Map each fork mapping of ap through its unit's pieces; record moves. */
int plan_remap(struct agplan *ap, struct nrecs *nr);
/*
 * Sort and merge the records of each fork; the forks that change go
 * into the plan, and nr's array becomes its record pool.
 */
int plan_collect_forks(struct planner *pl, struct nrecs *nr);
void plan_nrecs_free(struct nrecs *nr);
/*
 * all[0..n) in placement order: by the units' key, key2, key3, then AG
 * and start.  0 or -ENOMEM.
 */
int plan_sort_unit_refs(const struct agplan *aps, struct unit_ref *all,
			size_t n);
/*
 * Choose the AG of one fork's movable units u[0..nu) (plan_target.c):
 * room per AG is updated; have[] is zero on entry and on return; debt
 * per AG: what a shrink's last AG holds beyond its room (paid by the
 * units that leave it).
 */
void plan_choose_target(const struct od_geo *g, struct agplan *aps,
			const struct unit_ref *u, size_t nu, uint64_t *room,
			uint64_t *have, uint64_t *debt);
/* Do two units (in placement order) belong to one fork? */
bool plan_same_fork(const struct agplan *aps, const struct unit_ref *x,
		    const struct unit_ref *y);
/*
 * The end of the run of units from all[i] on that are its fork's and go
 * to its AG (UINT32_MAX blocks at most); *total: their blocks, with
 * unplaced only those not placed yet.
 */
size_t plan_fork_run(const struct agplan *aps, const struct unit_ref *all,
		     size_t i, size_t n, bool unplaced, uint64_t *total);
/* Unit un goes, from offset off for len blocks, to block dst of its target. */
int plan_add_piece(struct agplan *ap, struct unit *un, uint32_t off,
		   uint32_t len, uint32_t dst);
/*
 * A fork no window holds whole: over the largest windows of dst; the
 * blocks taken leave wr (NULL: no room kept) too.
 */
int plan_place_split(struct agplan *aps, const struct unit_ref *u, size_t nu,
		     struct agplan *dst, struct window_room *wr);
/* len contiguous blocks, first fit; false if no window holds them. */
bool plan_seg_take(struct agplan *ap, uint32_t len, uint32_t *at);
/* Up to len blocks from the first open window; 0 when full. */
uint32_t plan_seg_take_some(struct agplan *ap, uint32_t len, uint32_t *at);
/* Does the AG keep at least 90% of its free space in one extent? */
bool plan_consolidated(const struct agplan *ap);
/* Enough blocks for every AG btree rebuilt from the final records. */
uint32_t plan_agbt_estimate(const struct planner *pl, const struct agplan *ap);
void plan_agplan_free(struct agplan *ap);
/* Bytes of a fork's share of the inode's literal area; its PF_ type. */
uint32_t plan_fork_len(const struct od_geo *g, const struct m_ino *mi,
		       int whichfork);
uint8_t plan_fork_ftype(const struct m_ino *mi, int whichfork);

/* The figures after the run (plan_metrics.c): totals, distances, read-back. */
int plan_metrics(struct planner *pl);

/* ---- what a plan gains, whole and inode by inode (plan_gain.c) ---- */

/* The least a plan saves, and for each MiB it copies, to be worth it. */
#define GAIN_HDD_MIN_MS		2.0	/* modelled 7200 rpm read-back, ms */
#define GAIN_HDD_MS_PER_MIB	1.0
#define GAIN_SSD_MIN		2	/* SSD requests */
#define GAIN_SSD_PER_MIB	1.0

/*
 * Is a change worth it: does it join extents (joined records fewer), or
 * save hdd seconds and req SSD requests enough for the blocks it copies?
 */
bool plan_gain_worth(const struct od_geo *g, double hdd, int64_t req,
		     uint64_t blocks, int64_t joined);

/* What one inode's moves gain and cost (plan_gain_values). */
struct plan_gain_val {
	double hdd;		/* modelled read-back seconds saved */
	int64_t req;		/* SSD requests saved */
	uint64_t blocks;	/* blocks its moves copy */
	int64_t joined;		/* extent records fewer after */
	bool moved;		/* a fork of it changes */
};

struct plan_gain;
int plan_gain_new(size_t ninodes, struct plan_gain **out);
void plan_gain_free(struct plan_gain *g);
/* The read-back now, each access put down to its inode (once per model). */
int plan_gain_now(struct planner *pl, struct rb_fig *f);
/* The read-back after the plan (readback_model_layout's arguments), the
 * same way. */
int plan_gain_after(struct planner *pl, rb_fork_fn fork, void *priv,
		    const struct rb_layout *lay, struct rb_fig *f);
/* After plan_gain_after: per inode (dense index), what it gains. */
int plan_gain_values(struct planner *pl, struct plan_gain_val *val);
/* Per inode (the model's order, as the dense index): moved, blocks and
 * joined of what the plan does to its forks (hdd and req zero). */
void plan_gain_moved(const struct plan *p, struct plan_gain_val *val);

/*
 * After plan_metrics, for a plan that keeps inode numbers: the AGs whose
 * moves all stay inside them and are not worth it by themselves (the
 * read-back after the plan against the same with the AG as it is now),
 * set in drop (per AG, zeroed by the caller); how many in *ndrop.
 */
int plan_gain_ags(struct planner *pl, const struct agplan *aps, bool *drop,
		  size_t *ndrop);

/* ---- builds for the write budget (plan.c, plan_budget.c) ---- */

/*
 * One plan keeping inode numbers under the limits o->lim (o->renumber,
 * o->inode32 and o->max_write are not looked at), judged AG by AG and
 * whole as plan_build judges such plans, and if val, what each inode
 * gains.
 */
int plan_build_kept(const struct model *m, const struct plan_opts *o,
		    struct plan_gain_val *val, struct plan *p, struct err *e);
/* plan_build with o->max_write set. */
int plan_budget(const struct model *m, const struct plan_opts *o,
		struct plan *p, struct err *e);

#endif
