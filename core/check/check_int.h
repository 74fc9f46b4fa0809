/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the checker (core/check*.c only): the problem log, the per-AG
 * state the phases share, and the spans of the block ownership map.
 *
 * Phases (check.c runs them in this order, AGs in parallel within each):
 *   scan      scan_fs builds the model (its damage is reported first)
 *   trees     every AG btree walked strictly (check_bt.c), records kept
 *             where a cross-check needs them (check_agtrees.c)
 *   inodes    every inode chunk read again: per-inode counts, bmbt
 *             blocks, directories, symlinks, attribute blocks
 *             (check_inodes.c, check_dirs.c)
 *   spans     file extents and bmbt blocks handed to the AG they lie in
 *             (check_spans.c), then per AG: the ownership sweep
 *             (check_space.c), the refcounts (check_refcount.c) and the
 *             rmapbt (check_rmap.c)
 *   counters  AGF and AGI (at the end of the trees phase), link counts
 *             and the superblock (check_counters.c)
 */
#ifndef CORE_CHECK_INT_H
#define CORE_CHECK_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/check/check.h"
#include "core/model/inoidx.h"
#include "core/model/model.h"
#include "core/model/scan.h"
#include "ondisk/btree.h"
#include "ondisk/inode.h"
#include "ondisk/rmap.h"

/* ---- problems ---- */

/* Messages kept per log; the rest are only counted. */
#define CHECK_LOG_KEEP	2000

struct check_log {
	char *buf;		/* kept messages: a 2-byte code, the text, NUL */
	size_t len, cap;
	uint64_t count;		/* problems found, kept or not */
};

/*
 * Log problem CODE (problems.h) with its message's arguments; the
 * format is the code's PRF_ macro, so the compiler checks the call.
 */
#define check_problem(l, code, ...) \
	check_log_add((l), PR_##code, PRF_##code, __VA_ARGS__)
void check_log_add(struct check_log *l, enum check_code code,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void check_log_free(struct check_log *l);
/*
 * Put more messages among l's: emit(priv, i, out) logs into out what
 * goes after the first at[i] messages of l, for i in [0, n) (at not
 * decreasing).  l ends as if every message had been logged into it in
 * that order: the same kept (the first CHECK_LOG_KEEP), all counted.
 */
void check_log_splice(struct check_log *l, size_t n, const uint64_t *at,
		      void (*emit)(void *priv, size_t i,
				   struct check_log *out),
		      void *priv);
/* Every message kept in l, in order, then l's count added to res. */
void check_log_deliver(const struct check_log *l, check_report_fn fn,
		       void *priv, struct check_result *res);

/*
 * The newest metadata LSN seen, and where.  v5 blocks carry the LSN of
 * their last write; none may be at or past the log head, or log recovery
 * would skip them.  Noted for the blocks whose verifiers compare it: the
 * primary superblock, AGF, AGI, AGFL, every btree block, directory and
 * attr leaf/node blocks, directory data, block and free blocks, remote
 * symlink blocks (not remote attr values, dquots or inodes).  Compared
 * as unsigned cycle and block, the newest first: the kernel refuses
 * (unsigned) anything past the head, xfs_repair (signed) anything at it
 * or past; check_lsn_verdict refuses both.
 */
struct check_lsn {
	uint64_t lsn;
	char what[96];
};

/* Note lsn; what is formatted only when lsn is the newest so far. */
void check_note_lsn(struct check_lsn *m, uint64_t lsn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- the block ownership map ---- */

/* Who claims a span of blocks (one class per span). */
enum check_kind {
	CK_FS,		/* AG headers: sb, agf, agi, agfl sectors */
	CK_LOG,		/* the internal log */
	CK_INODES,	/* inode chunk blocks; idx: chunk */
	CK_BNOBT, CK_CNTBT, CK_INOBT, CK_FINOBT, CK_RMAPBT, CK_REFCBT,
	CK_AGFL,	/* a block on the AGFL; idx: its position */
	CK_FREE,	/* a bnobt free extent; idx: m_ag.freesp index */
	CK_BMBT,	/* bmbt block; src: inode's AG, idx: m_ag.ino index */
	CK_DATA,	/* file extents; src/idx: first m_ag.ext record */
	CK_ATTR,
	CK_NKINDS
};

/* CK_BMBT and file spans: the fork and the extent state */
#define CHECK_SPAN_ATTRFORK	0x1
#define CHECK_SPAN_UNWRITTEN	0x2

/*
 * One span: 16 bytes.  File spans are runs of extent records of one
 * fork that are contiguous on disk and in the file (merged the way
 * xfs_repair merges reverse mappings).
 */
struct check_span {
	uint32_t start, len;
	uint32_t idx;
	uint32_t src;		/* AG of the inode, for CK_BMBT and files */
};

/* kind and flags ride in the top byte of src */
static inline enum check_kind check_span_kind(const struct check_span *s)
{
	return (enum check_kind)(s->src >> 27);
}

static inline unsigned check_span_flags(const struct check_span *s)
{
	return (s->src >> 24) & 0x7;
}

static inline uint32_t check_span_ag(const struct check_span *s)
{
	return s->src & 0xffffff;
}

static inline uint32_t check_span_src(enum check_kind k, unsigned flags,
				      uint32_t agno)
{
	return (uint32_t)k << 27 | (flags & 0x7) << 24 | (agno & 0xffffff);
}

static inline bool check_kind_is_file(enum check_kind k)
{
	return k == CK_DATA || k == CK_ATTR;
}

struct check_spans {
	struct check_span *v;
	size_t n, cap;
};

int check_spans_add(struct check_spans *s, uint32_t start, uint32_t len,
		    uint32_t idx, uint32_t src);
void check_spans_free(struct check_spans *s);
/* Stable sort by start.  0 or -ENOMEM. */
int check_spans_sort(struct check_spans *s);

/* ---- records the cross-checks need ---- */

struct check_rmap {
	uint32_t start, len;
	uint64_t owner;
	uint64_t offset;	/* on-disk form: flags in the top bits */
};

/* "inode 131 data fork offset 8", "OWN_AG"...: for messages */
void check_rmap_owner_str(const struct check_rmap *r, char *buf,
			  size_t len);

struct check_refc {
	uint32_t start, len, refcount;
};

/* A bmbt block found by the inode pass (it may lie in any AG). */
struct check_bmbt {
	uint64_t fsbno;		/* first block of a run */
	uint32_t idx;		/* inode: m_ag.ino index in the inode's AG */
	uint16_t len;		/* blocks in the run */
	uint16_t flags;		/* CHECK_SPAN_ATTRFORK */
};

/* Blocks of each AG btree as walked: level > 0 and leaves. */
enum { CT_BNO, CT_CNT, CT_INO, CT_FINO, CT_RMAP, CT_REFC, CT_NTREES };

/*
 * A directory entry naming an inode of an AG the scan has not finished
 * (check_pipe.c): its verdict waits for that AG, and its messages then
 * go where they would have been, after the first pos of its AG's log.
 */
struct check_dent {
	uint64_t pos;
	uint64_t dir, ino;
	uint8_t ftype;
	uint8_t dots;		/* 1: the name is ".", 2: ".." */
	uint8_t nl;		/* bytes of name: as many as a message shows */
	uint8_t dirmeta;	/* dir is a metadata directory (metadir) */
	char name[64];
};

/*
 * One side of a parent pointer (check_pptr.c): a directory entry naming
 * child, or a parent pointer of child, or a mark that child's pointers
 * could not all be read.  The name is in its AG's pool.
 */
enum { CPP_UNKNOWN, CPP_DIRENT, CPP_PPTR };

struct check_pp {
	uint64_t child, parent;
	uint64_t digest;	/* of the name */
	uint32_t gen;		/* the directory's, or the pointer's */
	uint32_t name;		/* offset in cag[agno].names */
	uint32_t agno;
	uint8_t namelen;
	uint8_t kind;
};

/* Per-AG state shared by the phases. */
struct check_ag {
	struct m_ag *ag;	/* NULL until the scan has finished the AG */
	uint32_t agno, blocks;
	struct check_log log;
	bool ready;		/* atomic: set up, its model whole */
	size_t nslots;		/* entries of nlink, refs and skip_nlink */
	struct inoidx_ag idx;	/* its inode numbers -> ag->ino */
	struct check_dent *dent;	size_t ndent, cap_dent;

	/* trees phase */
	bool tree_ok[CT_NTREES];	/* walked fully, without damage */
	uint32_t tree_blocks[CT_NTREES];
	struct check_spans meta;	/* btree blocks and AGFL, headers... */
	struct m_free *cnt;		size_t ncnt, cap_cnt;
	struct od_inobt_rec *fino;	size_t nfino, cap_fino;
	struct check_rmap *rmap;	size_t nrmap, cap_rmap;
	struct check_refc *refc;	size_t nrefc, cap_refc;
	bool chunks_ok;			/* inobt records sane */

	/* inodes phase */
	struct check_bmbt *bmbt;	size_t nbmbt, cap_bmbt;
	uint32_t *nlink;		/* di_nlink, parallel to ag->ino */
	uint32_t *refs;			/* directory entries naming it */
	bool *skip_nlink;		/* damaged or unreadable: no verdict */
	uint64_t damaged_inodes;	/* MI_DAMAGED, or unreadable here */
	struct check_pp *pp;		size_t npp, cap_pp;
	uint8_t *names;			size_t names_len, cap_names;

	/* spans phase */
	struct check_spans spans;	/* every claim on this AG's blocks */
	uint64_t claimed;		/* blocks some span covers */

	struct check_lsn lsn;		/* the newest LSN met in this AG */
};

/*
 * What the scan's look at each run of inodes settled (check_quick.c),
 * per chunk, so that the inodes phase reads again only the chunks it
 * must: the slots in use needing nothing more than their link count
 * (quick), and those whose bytes were kept for it (kept, their inodes
 * in slot order in raw).  A chunk with any other present slot is read
 * again.
 */
struct check_qchunk {
	uint64_t quick, kept;
	uint8_t *raw;
};

struct check_qag {
	struct check_qchunk *ch;	/* nchunk of them, or NULL */
	size_t nchunk;
};

struct check_quick {
	struct check_qag *ag;		/* per AG */
	uint64_t used, budget;		/* bytes kept, and at most */
	bool full;			/* a slot could not be kept */
};

/* Directory blocks kept from the scan's reads (check_harvest.c). */
struct check_hblk {
	uint64_t off;		/* byte offset of the block */
	uint8_t *data;		/* its blocksize bytes */
};

struct check_hag {
	struct check_hblk *v;	/* by off once served */
	size_t n, cap;
	bool served;		/* atomic: the AG is scanned, v final */
};

struct check_harvest {
	uint64_t used;		/* bytes kept, atomic */
	pthread_mutex_t mu;	/* the parts handing theirs over */
	struct check_hag *ag;	/* per AG, NULL when off */
};

/*
 * The trees and inodes phases of each AG as soon as the scan has
 * finished it, on a thread of their own while the scan reads the other
 * AGs (check_pipe.c); whatever is left when the scan ends, on every
 * thread.
 */
struct check_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t *order;	/* AGs ready, in the order they came */
	uint32_t nready, next;	/* how many; the next to be checked */
	bool over;		/* the scan has ended */
	bool started;		/* mu, cv and th are live */
	bool threaded;		/* th runs */
	pthread_t th;
	uint64_t dent_bytes;	/* every AG's check_dent, atomic */
};

struct check_ctx {
	struct fs *fs;
	const struct od_geo *g;
	struct model *m;
	struct check_ag *cag;
	struct check_log glog;		/* whole-filesystem problems */
	unsigned threads;
	bool incomplete;	/* the scan could not read everything */
	bool links_unknown;	/* a directory could not be read fully */
	int fatal;		/* -ENOMEM and the like: give up */
	struct check_lsn lsn;	/* the newest LSN of the global phases */
	bool reread;		/* check_opts.reread */
	bool defer;		/* check_opts.defer */
	struct check_quick q;
	struct check_harvest hv;
	struct check_pipe pipe;
};

/*
 * The scan's hooks for it (check_quick.c calls them): want directory
 * mi's blocks (as its inode is decoded), copy the wanted blocks out of a
 * request read whole, hand a part's over to its AG.  Every read
 * (fs->held) is served an AG's blocks once check_harvest_ready says the
 * scan has finished it, until check_harvest_free.
 */
int check_harvest_init(struct check_ctx *c);
void check_harvest_want(struct check_ctx *c, void **part,
			const struct m_ag *ag, const struct m_ino *mi);
void check_harvest_bytes(struct check_ctx *c, void **part, uint64_t off,
			 const uint8_t *buf, size_t len);
void check_harvest_part_done(struct check_ctx *c, void **part,
			     const struct m_ag *ag);
void check_harvest_ready(struct check_ctx *c, uint32_t agno);
/* Is the block at byte off kept? */
bool check_harvest_has(const struct check_ctx *c, uint64_t off);
void check_harvest_free(struct check_ctx *c);

/*
 * Before the scan: the hook that makes each AG ready as the scan
 * finishes it, in *so, and on two threads or more the thread that
 * checks it then.  0 or -ENOMEM (nothing to finish then).
 */
int check_pipe_start(struct check_ctx *c, struct scan_opts *so,
		     unsigned threads);
/*
 * After the scan (m its model, even when it failed): every AG made
 * ready, the trees and inodes phases of those left run on threads
 * threads, the pipeline's thread joined, and the entries put off
 * resolved.
 */
void check_pipe_finish(struct check_ctx *c, struct model *m,
		       unsigned threads);
/* Has the scan finished AG agno (its model whole, its state set up)? */
static inline bool check_pipe_ready(const struct check_ctx *c,
				    uint32_t agno)
{
	return __atomic_load_n(&c->cag[agno].ready, __ATOMIC_ACQUIRE);
}
/*
 * Put off the verdict on entry d of a directory of AG ca: 0, or -ENOSPC
 * when too many are put off already.
 */
int check_pipe_defer(struct check_ctx *c, struct check_ag *ca,
		     const struct check_dent *d);
/* Wait for AG agno to be ready; false if it never will be (fatal). */
bool check_pipe_wait(struct check_ctx *c, uint32_t agno);
void check_pipe_free(struct check_ctx *c);

/*
 * The scan's hooks (scan_opts.run and fill_cache) for the inodes phase,
 * set up in *so; check_quick_chunk: chunk ci of AG agno's record, NULL
 * when the scan kept nothing of it (read it again).
 */
int check_quick_init(struct check_ctx *c, struct scan_opts *so,
		     uint64_t budget);
const struct check_qchunk *check_quick_chunk(const struct check_ctx *c,
					     uint32_t agno, size_t ci);
void check_quick_free(struct check_ctx *c);

/*
 * Inodes needing no more than nblocks and nlink: no directory, symlink,
 * bmbt or attribute blocks to look at.
 */
static inline bool check_simple_inode(const struct m_ino *mi)
{
	return !od_mode_isdir(mi->mode) && !od_mode_islnk(mi->mode) &&
	       m_dfmt(mi) != OD_FMT_BTREE && m_afmt(mi) != OD_FMT_BTREE &&
	       mi->nae == 0 && (!mi->forkoff || m_afmt(mi) != OD_FMT_LOCAL);
}

/* Record a fatal error (first one wins); the phases stop early. */
void check_fatal(struct check_ctx *c, int err);

/* Phases; each is run for every AG (in parallel), then global steps. */
void check_ag_trees(struct check_ctx *c, uint32_t agno);
void check_ag_inodes(struct check_ctx *c, uint32_t agno);
int check_distribute(struct check_ctx *c);
void check_ag_space(struct check_ctx *c, uint32_t agno);
void check_ag_rmap(struct check_ctx *c, uint32_t agno);
void check_ag_counters(struct check_ctx *c, uint32_t agno);
void check_ag_links(struct check_ctx *c, uint32_t agno);
void check_sb_counters(struct check_ctx *c);
/* Every superblock copy (check_sb.c), before the AG phases. */
void check_superblocks(struct check_ctx *c);
/* The newest LSN of all against the log head (at the end). */
void check_lsn_verdict(struct check_ctx *c);

/* The inode (and its AG) owning extent record idx of AG src; NULL if none. */
const struct m_ino *check_ext_owner(const struct check_ctx *c, uint32_t src,
				    uint32_t idx);

/* "block 5" or "blocks 5-9": [a, b) for messages */
void check_range_str(uint32_t a, uint32_t b, char *buf, size_t len);
/* Shared blocks against the refcount btree (after the sweep's sort). */
int check_ag_refcounts(struct check_ctx *c, struct check_ag *ca);

/* "inode 131 data fork offset 8" and so on: what a span is, at block b. */
void check_span_str(const struct check_ctx *c, const struct check_ag *ca,
		    const struct check_span *s, uint32_t b, char *buf,
		    size_t len);

/* One inode core against the verifier's and xfs_repair's rules
 * (check_dinode.c); inuse: the inobt says it is allocated. */
struct od_inode;
void check_dinode(struct check_ctx *c, struct check_ag *ca,
		  const struct od_inode *di, bool inuse);
/* True when check_dinode(inuse) would find nothing in the raw core of
 * inode ino: the common regular file, seen without decoding it. */
bool check_dinode_quick(const struct check_ctx *c, const uint8_t *raw,
			uint64_t ino);

/* Directory verification (check_dirs.c). */
struct inode;
/*
 * Parent pointers (check_pptr.c), with the parent feature: note a
 * directory entry (not "." or ".."), judge and note a parent pointer
 * (hash: its leaf entry's, NULL in shortform; false when it is bad),
 * mark an inode whose pointers could not all be read; after the inodes
 * phase, pair them off.
 */
void check_pptr_dirent(struct check_ctx *c, struct check_ag *ca,
		       uint64_t dir, uint32_t dirgen, const uint8_t *name,
		       size_t len, uint64_t ino);
bool check_pptr_attr(struct check_ctx *c, struct check_ag *ca, uint64_t ino,
		     const uint8_t *name, size_t namelen, const uint8_t *value,
		     size_t valuelen, bool local, const uint32_t *hash);
void check_pptr_unknown(struct check_ctx *c, struct check_ag *ca,
			uint64_t ino);
void check_pptrs(struct check_ctx *c);
void check_pptr_free(struct check_ag *ca);

void check_dir(struct check_ctx *c, struct check_ag *ca,
	       const struct inode *ip, struct err *e);
/* The entries of AG ca's directories put off: their verdicts, and their
 * messages where they belong in ca's log. */
void check_dirs_resolve(struct check_ctx *c, struct check_ag *ca);

#endif
