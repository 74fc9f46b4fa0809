/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan driver: a pool of threads taking AGs in turn. */
#include "core/model/scan.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/base/par.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pool {
	struct fs *fs;
	struct model *m;
	const struct scan_opts *o;
	struct scan_progress p;
	uint32_t next_ag;	/* taken atomically */
	uint32_t running;	/* workers still going */
};

static void *worker(void *arg)
{
	struct pool *pl = arg;

	for (;;) {
		uint32_t agno = __atomic_fetch_add(&pl->next_ag, 1,
						   __ATOMIC_RELAXED);

		if (agno >= pl->m->agcount)
			break;
		scan_ag(pl->fs, &pl->m->ag[agno], pl->o, &pl->p);
	}
	__atomic_sub_fetch(&pl->running, 1, __ATOMIC_RELEASE);
	return NULL;
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
	if (n > m->agcount)
		n = m->agcount;
	m->threads = n;
	memset(&pl, 0, sizeof(pl));
	pl.fs = fs;
	pl.m = m;
	pl.o = o;
	pl.p.inodes_total = fs->sb.icount - fs->sb.ifree;
	pl.running = n;
	tids = calloc(n, sizeof(*tids));
	if (!tids) {
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
