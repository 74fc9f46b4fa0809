/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checker's driver: the scan, then the phases (check_int.h). */
#include "core/check/check_int.h"
#include "core/base/bigmem.h"
#include "core/base/par.h"
#include "core/model/scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const step_names[CHECK_NSTEPS] = {
	"scan", "sb", "inodes", "distribute", "space", "links",
	"counters",
};

const char *check_step_name(enum check_step s)
{
	return s < CHECK_NSTEPS ? step_names[s] : "?";
}

/* The time since *t, into res's step s; *t moves to now. */
static void step_done(struct check_result *res, enum check_step s,
		      struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	res->step_ns[s] = (uint64_t)(now.tv_sec - t->tv_sec) * 1000000000u +
			  (uint64_t)now.tv_nsec - (uint64_t)t->tv_nsec;
	*t = now;
}

static void phase_space(void *priv, unsigned agno)
{
	check_ag_space(priv, agno);
}

static void phase_links(void *priv, unsigned agno)
{
	check_ag_links(priv, agno);
}

static void teardown(struct check_ctx *c)
{
	uint32_t a;

	if (c->cag) {
		for (a = 0; a < c->g->agcount; a++) {
			struct check_ag *ca = &c->cag[a];
			size_t n = ca->nslots;

			check_log_free(&ca->log);
			check_spans_free(&ca->meta);
			check_spans_free(&ca->spans);
			/* grown by bigmem_grow: mapped when large */
			bigmem_free(ca->cnt, ca->cap_cnt, sizeof(*ca->cnt));
			bigmem_free(ca->fino, ca->cap_fino, sizeof(*ca->fino));
			bigmem_free(ca->rmap, ca->cap_rmap, sizeof(*ca->rmap));
			bigmem_free(ca->refc, ca->cap_refc, sizeof(*ca->refc));
			bigmem_free(ca->bmbt, ca->cap_bmbt, sizeof(*ca->bmbt));
			bigmem_free(ca->nlink, n, sizeof(*ca->nlink));
			bigmem_free(ca->refs, n, sizeof(*ca->refs));
			bigmem_free(ca->skip_nlink, n,
				    sizeof(*ca->skip_nlink));
			bigmem_free(ca->dent, ca->cap_dent,
				    sizeof(*ca->dent));
			check_pptr_free(ca);
			inoidx_ag_free(&ca->idx);
		}
		free(c->cag);
	}
	check_log_free(&c->glog);
	check_quick_free(c);
	check_harvest_free(c);
	check_pipe_free(c);
	model_free(c->m);
}

int check_fs(struct fs *fs, unsigned threads, check_report_fn fn, void *priv,
	     struct check_result *res, struct err *e)
{
	struct check_opts o = { .threads = threads };

	return check_fs_with(fs, &o, fn, priv, res, e);
}

int check_fs_with(struct fs *fs, const struct check_opts *o,
		  check_report_fn fn, void *priv, struct check_result *res,
		  struct err *e)
{
	unsigned threads = o->threads ? o->threads : par_ncpus();
	struct scan_opts so = { .threads = threads };
	struct check_ctx c;
	struct model *m = NULL;
	struct timespec t;
	uint32_t a, n;
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.fs = fs;
	c.g = &fs->geo;
	c.threads = threads;
	c.reread = o->reread;
	c.defer = o->defer;
	if (fs->geo.agcount > 0xffffff)
		return err_set(e, -EOPNOTSUPP, "%u AGs: too many to check",
			       fs->geo.agcount);
	c.cag = calloc(fs->geo.agcount, sizeof(*c.cag));
	if (!c.cag || (!c.reread && (check_quick_init(&c, &so, o->keep) ||
				     check_harvest_init(&c))) ||
	    check_pipe_start(&c, &so, threads)) {
		teardown(&c);
		return err_set(e, -ENOMEM, "out of memory");
	}
	if (fs->log_state == FS_LOG_DIRTY)
		check_problem(&c.glog, LOG_DIRTY, fs->log_detail);
	clock_gettime(CLOCK_MONOTONIC, &t);
	/* each AG's trees and inodes phases start once it is scanned */
	ret = scan_fs(fs, &so, &m, e);
	step_done(res, CHECK_STEP_SCAN, &t);
	if (ret && ret != -EFSCORRUPTED && ret != -EFSBADCRC) {
		check_fatal(&c, ret);
		check_pipe_finish(&c, m, threads);
		if (!c.m)
			model_free(m);
		goto out;
	}
	err_clear(e);
	n = fs->geo.agcount;
	/* the model's whole now, for the superblocks' inodes */
	pthread_mutex_lock(&c.pipe.mu);
	if (!c.m)
		c.m = m;
	pthread_mutex_unlock(&c.pipe.mu);
	check_superblocks(&c);
	step_done(res, CHECK_STEP_SB, &t);
	check_pipe_finish(&c, m, threads);
	/* nothing reads a directory after that phase */
	check_harvest_free(&c);
	step_done(res, CHECK_STEP_INODES, &t);
	if (!c.fatal) {
		ret = check_distribute(&c);
		if (ret)
			check_fatal(&c, ret);
	}
	step_done(res, CHECK_STEP_DISTRIBUTE, &t);
	if (!c.fatal)
		par_for(n, threads, phase_space, &c);
	step_done(res, CHECK_STEP_SPACE, &t);
	if (!c.fatal && !c.incomplete && !c.links_unknown) {
		par_for(n, threads, phase_links, &c);
		check_pptrs(&c);
	}
	step_done(res, CHECK_STEP_LINKS, &t);
	if (!c.fatal) {
		check_sb_counters(&c);
		check_lsn_verdict(&c);
	}
	step_done(res, CHECK_STEP_COUNTERS, &t);
	if (c.fatal) {
		ret = err_set(e, c.fatal, "%s", c.fatal == -ENOMEM ?
			      "out of memory" : "the checks could not run");
		goto out;
	}
	for (a = 0; a < n; a++) {
		check_log_deliver(&c.cag[a].log, fn, priv, res);
		res->blocks_checked += c.cag[a].claimed;
	}
	check_log_deliver(&c.glog, fn, priv, res);
	if (c.incomplete)
		res->skipped = "the scan could not read everything: lost "
			       "blocks, refcounts, reverse mappings and link "
			       "counts were not checked";
	else if (c.links_unknown)
		res->skipped = "a directory could not be read: link counts "
			       "were not checked";
	res->inodes = c.m->ninodes;
	ret = 0;
out:
	teardown(&c);
	return ret;
}
