/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trees and inodes phases of an AG while the scan reads the others
 * (check_int.h, struct check_pipe).  A cold scan waits on the device
 * most of its time, and the inodes phase after it would add its own;
 * the scan hands each AG over as soon as its model is whole
 * (scan_opts.ag_done), and a thread of its own checks it then.  Alone
 * that gains nothing: the disk is busy all through the scan, and the
 * directories' reads move into it; with most directory blocks kept from
 * the scan's own reads (check_harvest.c) the phase works from memory.
 *
 * The only thing an AG's inodes phase needs of the others is the
 * inodes its directories name.  An entry naming an inode of an AG not
 * yet scanned is put off (check_dirs.c) with its place in the log, and
 * judged when every AG is (check_dirs_resolve), its messages then put
 * where they would have been: the log is the same as if the phases had
 * run after the scan.  Past a budget of such entries the check waits
 * for the AG instead.
 */
#include "core/check/check_int.h"
#include "core/base/bigmem.h"
#include "core/base/par.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of entries put off, at most: 350,000 of them. */
#define DENT_BUDGET	(32ull << 20)

/* The per-AG state of the phases: its arrays, the scan's damage. */
static void set_up(struct check_ctx *c, struct model *m, uint32_t a)
{
	struct check_ag *ca = &c->cag[a];
	struct m_ag *ag = &m->ag[a];
	size_t n = ag->nino ? ag->nino : 1;

	ca->ag = ag;
	ca->agno = a;
	ca->blocks = od_ag_blocks(c->g, a);
	ca->nslots = n;
	/* mapped when large: a few huge-page faults, not one a page */
	ca->nlink = bigmem_calloc(n, sizeof(*ca->nlink));
	ca->refs = bigmem_calloc(n, sizeof(*ca->refs));
	ca->skip_nlink = bigmem_calloc(n, sizeof(*ca->skip_nlink));
	if (!ca->nlink || !ca->refs || !ca->skip_nlink ||
	    inoidx_ag_build(m, a, &ca->idx)) {
		check_fatal(c, -ENOMEM);
		return;
	}
	check_harvest_ready(c, a);
	/* what the scan could not read comes first in the AG's log */
	if (ag->err) {
		__atomic_store_n(&c->incomplete, true, __ATOMIC_RELAXED);
		check_problem(&ca->log, SCAN_DAMAGE, ag->errmsg);
		if (ag->ndamaged > 1) {
			check_problem(&ca->log, SCAN_MORE, a,
				      ag->ndamaged - 1);
			/* each of them is a problem */
			ca->log.count += ag->ndamaged - 2;
		}
	}
	__atomic_store_n(&ca->ready, true, __ATOMIC_RELEASE);
}

/* AG a is whole: set it up and queue it (under mu). */
static void make_ready(struct check_ctx *c, struct model *m, uint32_t a)
{
	struct check_pipe *p = &c->pipe;

	if (!c->m)
		c->m = m;
	set_up(c, m, a);
	if (!check_pipe_ready(c, a))
		return;		/* fatal: nothing to check */
	p->order[p->nready++] = a;
	pthread_cond_broadcast(&p->cv);
}

/* scan_opts.ag_done, on the scanning thread. */
static void ag_done(void *hpriv, struct model *m, uint32_t agno)
{
	struct check_ctx *c = hpriv;

	pthread_mutex_lock(&c->pipe.mu);
	make_ready(c, m, agno);
	pthread_mutex_unlock(&c->pipe.mu);
}

/* The next AG to check, waiting for one while the scan goes on. */
static bool claim(struct check_ctx *c, uint32_t *agno)
{
	struct check_pipe *p = &c->pipe;
	bool got;

	pthread_mutex_lock(&p->mu);
	while (p->next == p->nready && !p->over &&
	       !__atomic_load_n(&c->fatal, __ATOMIC_RELAXED))
		pthread_cond_wait(&p->cv, &p->mu);
	got = p->next < p->nready;
	if (got)
		*agno = p->order[p->next++];
	pthread_mutex_unlock(&p->mu);
	return got;
}

static void drain(struct check_ctx *c)
{
	uint32_t a;

	while (!__atomic_load_n(&c->fatal, __ATOMIC_RELAXED) &&
	       claim(c, &a)) {
		check_ag_trees(c, a);
		check_ag_inodes(c, a);
	}
}

static void *pipe_thread(void *arg)
{
	drain(arg);
	return NULL;
}

static void drain_one(void *priv, unsigned i)
{
	(void)i;
	drain(priv);
}

static void resolve_one(void *priv, unsigned a)
{
	struct check_ctx *c = priv;

	check_dirs_resolve(c, &c->cag[a]);
}

int check_pipe_start(struct check_ctx *c, struct scan_opts *so,
		     unsigned threads)
{
	struct check_pipe *p = &c->pipe;

	p->order = calloc(c->g->agcount, sizeof(*p->order));
	if (!p->order)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->started = true;
	so->ag_done = ag_done;
	so->hpriv = c;
	/* -j 1: one thread, the phases after the scan as before */
	if (threads > 1 && c->g->agcount > 1 &&
	    pthread_create(&p->th, NULL, pipe_thread, c) == 0)
		p->threaded = true;
	return 0;
}

void check_pipe_finish(struct check_ctx *c, struct model *m,
		       unsigned threads)
{
	struct check_pipe *p = &c->pipe;
	uint32_t a;
	unsigned n;

	if (!p->started)
		return;
	pthread_mutex_lock(&p->mu);
	/* AGs the scan never handed over (it stopped early) */
	for (a = 0; m && a < c->g->agcount && !c->fatal; a++)
		if (!c->cag[a].ag)
			make_ready(c, m, a);
	p->over = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	/* the pipeline's thread is one of them */
	n = threads > 1 && p->threaded ? threads - 1 : threads;
	par_for(n, n, drain_one, c);
	if (p->threaded)
		pthread_join(p->th, NULL);
	p->threaded = false;
	if (!c->fatal)
		par_for(c->g->agcount, threads, resolve_one, c);
}

int check_pipe_defer(struct check_ctx *c, struct check_ag *ca,
		     const struct check_dent *d)
{
	if (__atomic_add_fetch(&c->pipe.dent_bytes, sizeof(*d),
			       __ATOMIC_RELAXED) > DENT_BUDGET ||
	    bigmem_grow((void **)&ca->dent, &ca->cap_dent, ca->ndent,
			sizeof(*ca->dent))) {
		__atomic_sub_fetch(&c->pipe.dent_bytes, sizeof(*d),
				   __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	ca->dent[ca->ndent++] = *d;
	return 0;
}

bool check_pipe_wait(struct check_ctx *c, uint32_t agno)
{
	struct check_pipe *p = &c->pipe;

	pthread_mutex_lock(&p->mu);
	while (!check_pipe_ready(c, agno) && !p->over &&
	       !__atomic_load_n(&c->fatal, __ATOMIC_RELAXED))
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return check_pipe_ready(c, agno);
}

void check_pipe_free(struct check_ctx *c)
{
	struct check_pipe *p = &c->pipe;

	if (!p->started)
		return;
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p->order);
	memset(p, 0, sizeof(*p));
}
