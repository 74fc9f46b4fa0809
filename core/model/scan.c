/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan driver: a pool of threads taking AGs, or parts of AGs, in turn. */
#include "core/model/scan.h"
#include "core/model/scan_priv.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/base/par.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PARTS	16
#define PART_MIN_CHUNKS	256	/* 16384 inodes: smaller AGs stay whole */

/*
 * An AG in parts: the first does its trees, sizes its inode array and
 * cuts its chunks in ranges of equal in-use inodes; any thread then
 * takes a range; the last one done joins them in order.
 */
struct agjob {
	struct agscan s;		/* the AG and its first part */
	struct m_ag sh[MAX_PARTS];	/* later parts' own models */
	struct agscan ps[MAX_PARTS];
	size_t c[MAX_PARTS + 1];	/* part j: chunks [c[j], c[j + 1]) */
	size_t base[MAX_PARTS + 1];	/* its first slot in the inode array */
	unsigned np;
	bool ready, failed;
	uint32_t left;			/* parts not done */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

struct pool {
	struct fs *fs;
	struct model *m;
	const struct scan_opts *o;
	struct scan_progress p;
	struct agjob *job;		/* NULL: AGs whole, one task each */
	unsigned k;			/* parts per AG, at most */
	uint32_t group;			/* AGs taken together (run_task) */
	uint32_t next;			/* next task, taken atomically */
	uint32_t running;		/* workers still going */
};

/* The first part's work before the others may start. */
static void job_begin(struct pool *pl, uint32_t a)
{
	struct agjob *j = &pl->job[a];
	struct m_ag *ag = &pl->m->ag[a];
	size_t n, ci, want, acc = 0;
	unsigned p = 1;

	j->failed = scan_open(&j->s, pl->fs, ag, pl->o, &pl->p) != 0;
	if (!j->failed)
		scan_ag_trees(&j->s);
	j->c[0] = j->base[0] = 0;
	if (!j->failed && ag->have_agi && ag->ino &&
	    ag->nchunk >= (pl->o->parts ? pl->o->parts : PART_MIN_CHUNKS *
					   pl->k)) {
		n = ag->cap_ino;
		/* cut where the in-use inodes reach p/k of the AG's */
		for (ci = 0; ci < ag->nchunk && p < pl->k; ci++) {
			want = n * p / pl->k;
			if (acc >= want && ci > j->c[p - 1]) {
				j->c[p] = ci;
				j->base[p] = acc;
				p++;
			}
			acc += scan_chunk_inuse(&ag->chunk[ci]);
		}
	}
	j->np = p;
	j->c[p] = ag->nchunk;
	j->base[p] = ag->cap_ino;
	pthread_mutex_lock(&j->mu);
	j->ready = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

/* Part p > 0 of a split AG: its range into an m_ag of its own. */
static void job_part(struct pool *pl, struct agjob *j, unsigned p)
{
	const struct m_ag *ag = j->s.ag;
	struct m_ag *sh = &j->sh[p];

	memset(sh, 0, sizeof(*sh));
	sh->agno = ag->agno;
	sh->have_agi = true;
	sh->chunk = ag->chunk;
	sh->nchunk = ag->nchunk;
	sh->ino = ag->ino + j->base[p];
	sh->cap_ino = j->base[p + 1] - j->base[p];
	if (scan_open(&j->ps[p], pl->fs, sh, pl->o, &pl->p) == 0 &&
	    scan_range(&j->ps[p], j->c[p], j->c[p + 1], sh->cap_ino))
		scan_damage(&j->ps[p], &j->ps[p].e);
}

/* The last part done: the others joined onto the first, in order. */
static void job_end(struct pool *pl, struct agjob *j)
{
	unsigned p;

	for (p = 1; p < j->np; p++) {
		int ret = scan_join(&j->s, &j->ps[p]);

		if (ret) {
			err_set(&j->s.e, ret, ret == -ENOMEM ? "out of memory" :
				"ag %u: more extents than the model numbers",
				j->s.ag->agno);
			scan_damage(&j->s, &j->s.e);
		}
		scan_close(&j->ps[p]);
	}
	if (!j->failed)
		scan_trees_finish(&j->s);
	scan_close(&j->s);
	__atomic_add_fetch(&pl->p.ags_done, 1, __ATOMIC_RELAXED);
}

static void ag_done(struct pool *pl, uint32_t a)
{
	if (pl->o->ag_done)
		pl->o->ag_done(pl->o->hpriv, pl->m, a);
}

/*
 * Task t: AGs in groups of as many as there are threads (the last group
 * may be smaller); in a group, first every AG's first part, then the
 * second parts, and so on, so that an AG's later parts are taken after
 * its first has started, and a group's AGs are whole (ag_done) before
 * the next group's are.
 */
static void run_task(struct pool *pl, uint32_t t)
{
	uint32_t n = pl->m->agcount, per = pl->group * pl->k;
	uint32_t g = t / per, first = g * pl->group;
	uint32_t size = n - first < pl->group ? n - first : pl->group;
	uint32_t a = first + (t - g * per) % size;
	unsigned p = (t - g * per) / size;
	struct agjob *j = &pl->job[a];

	if (p == 0) {
		job_begin(pl, a);
		if (!j->failed && j->s.ag->have_agi &&
		    scan_range(&j->s, j->c[0], j->c[1], j->base[1]))
			scan_damage(&j->s, &j->s.e);
	} else {
		pthread_mutex_lock(&j->mu);
		while (!j->ready)
			pthread_cond_wait(&j->cv, &j->mu);
		pthread_mutex_unlock(&j->mu);
		if (p < j->np)
			job_part(pl, j, p);
	}
	if (__atomic_sub_fetch(&j->left, 1, __ATOMIC_ACQ_REL) == 0) {
		job_end(pl, j);
		ag_done(pl, a);
	}
}

static void *worker(void *arg)
{
	struct pool *pl = arg;
	uint32_t ntask = pl->m->agcount * (pl->job ? pl->k : 1);

	for (;;) {
		uint32_t t = __atomic_fetch_add(&pl->next, 1, __ATOMIC_RELAXED);

		if (t >= ntask)
			break;
		if (pl->job) {
			run_task(pl, t);
		} else {
			scan_ag(pl->fs, &pl->m->ag[t], pl->o, &pl->p);
			ag_done(pl, t);
		}
	}
	__atomic_sub_fetch(&pl->running, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void free_jobs(struct pool *pl)
{
	uint32_t i;

	for (i = 0; pl->job && i < pl->m->agcount; i++) {
		pthread_cond_destroy(&pl->job[i].cv);
		pthread_mutex_destroy(&pl->job[i].mu);
	}
	free(pl->job);
	pl->job = NULL;
}

/* Parts per AG: enough work units for the threads, but few. */
static unsigned parts_per_ag(const struct scan_opts *o, unsigned threads,
			     uint32_t agcount)
{
	unsigned k;

	if (o->parts)
		return o->parts < MAX_PARTS ? o->parts : MAX_PARTS;
	if (threads < 2)
		return 1;
	k = (4 * threads + agcount - 1) / agcount;
	return k < MAX_PARTS ? k : MAX_PARTS;
}

static int cmp_meta(const void *a, const void *b)
{
	const struct m_meta_blk *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

/* bmbt blocks a worker found in other AGs go to their AG's meta list. */
static void move_xmeta(struct model *m)
{
	bool *dirty = calloc(m->agcount, sizeof(*dirty));
	uint32_t a, t;
	size_t i;

	for (a = 0; a < m->agcount; a++) {
		struct m_ag *ag = &m->ag[a];

		for (i = 0; i < ag->nxmeta; i++) {
			const struct m_meta_blk *x = &ag->xmeta[i];
			struct m_ag *dst;

			t = x->kind;
			if (t >= m->agcount)
				continue;
			dst = &m->ag[t];
			if (bigmem_grow((void **)&dst->meta, &dst->cap_meta,
					dst->nmeta, sizeof(*dst->meta)))
				break;	/* the map shows them as unknown */
			dst->meta[dst->nmeta].agbno = x->agbno;
			dst->meta[dst->nmeta].kind = MM_BMBT;
			dst->meta[dst->nmeta].owner = x->owner;
			dst->nmeta++;
			if (dirty)
				dirty[t] = true;
		}
		bigmem_free(ag->xmeta, ag->cap_xmeta, sizeof(*ag->xmeta));
		ag->xmeta = NULL;
		ag->nxmeta = ag->cap_xmeta = 0;
	}
	for (a = 0; a < m->agcount; a++)
		if (!dirty || dirty[a])
			sort_any(m->ag[a].meta, m->ag[a].nmeta,
			      sizeof(*m->ag[a].meta), cmp_meta);
	free(dirty);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int scan_fs(struct fs *fs, const struct scan_opts *o, struct model **out,
	    struct err *e)
{
	struct pool pl;
	struct model *m;
	pthread_t *tids;
	unsigned n, i;
	uint64_t t0 = now_ns();
	int ret = 0;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return err_set(e, -ENOMEM, "out of memory");
	m->fs = fs;
	m->agcount = fs->geo.agcount;
	m->ag = calloc(m->agcount, sizeof(*m->ag));
	if (!m->ag) {
		free(m);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < m->agcount; i++)
		m->ag[i].agno = i;

	n = o->threads ? o->threads : par_ncpus();
	memset(&pl, 0, sizeof(pl));
	/* no more threads than work units: AGs, or their parts */
	pl.k = parts_per_ag(o, n, m->agcount);
	if ((uint64_t)n > (uint64_t)m->agcount * pl.k)
		n = (unsigned)((uint64_t)m->agcount * pl.k);
	m->threads = n;
	pl.group = n < m->agcount ? n : m->agcount;
	pl.fs = fs;
	pl.m = m;
	pl.o = o;
	pl.p.inodes_total = fs->sb.icount - fs->sb.ifree;
	pl.running = n;
	if (pl.k > 1 && m->agcount <= UINT32_MAX / pl.k)
		pl.job = calloc(m->agcount, sizeof(*pl.job));
	for (i = 0; pl.job && i < m->agcount; i++) {
		pl.job[i].left = pl.k;
		pthread_mutex_init(&pl.job[i].mu, NULL);
		pthread_cond_init(&pl.job[i].cv, NULL);
	}
	tids = calloc(n, sizeof(*tids));
	if (!tids) {
		free_jobs(&pl);
		model_free(m);
		return err_set(e, -ENOMEM, "out of memory");
	}
	/*
	 * With a progress callback this thread only reports; otherwise it
	 * is one of the workers.
	 */
	for (i = o->progress ? 0 : 1; i < n; i++) {
		if (pthread_create(&tids[i], NULL, worker, &pl) != 0) {
			__atomic_sub_fetch(&pl.running, 1, __ATOMIC_RELAXED);
			tids[i] = 0;
		}
	}
	if (o->progress) {
		while (__atomic_load_n(&pl.running, __ATOMIC_ACQUIRE)) {
			struct timespec ts = { 0, 100000000 };

			o->progress(o->priv, &pl.p);
			nanosleep(&ts, NULL);
		}
		o->progress(o->priv, &pl.p);
	} else {
		worker(&pl);
	}
	for (i = 0; i < n; i++)
		if (tids[i])
			pthread_join(tids[i], NULL);
	free(tids);
	free_jobs(&pl);

	move_xmeta(m);
	for (i = 0; i < m->agcount; i++) {
		m->ninodes += m->ag[i].nino;
		if (m->ag[i].err && !ret) {
			ret = err_set(e, m->ag[i].err == -ENOMEM ? -ENOMEM :
				      -EFSCORRUPTED, "%s", m->ag[i].errmsg);
		}
	}
	m->scan_ns = now_ns() - t0;
	*out = m;
	return ret;
}
