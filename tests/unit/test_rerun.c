/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A second plan on the result of a first (issue 10: "a second run on the
 * result finds (almost) nothing to do"), without an executor: the first
 * plan is applied to the scanned model in memory (new inode numbers, new
 * fork records, the chunks kept, freed and made, the free space after),
 * and the planner asked again.  With inodes renumbered, the second plan
 * must leave them where they are (chunks that land on themselves are no
 * moves) and move almost no data.
 */
#include "t.h"
#include "fixture.h"
#include "core/base/img.h"
#include "core/fs/fs.h"
#include "core/fs/fork.h"
#include "core/model/scan.h"
#include "core/relocate/plan.h"
#include "ondisk/inode.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>


static int cmp_ino(const void *a, const void *b)
{
	const struct m_ino *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int cmp_chunk(const void *a, const void *b)
{
	const struct od_inobt_rec *x = a, *y = b;

	return x->startino < y->startino ? -1 : x->startino > y->startino;
}

static void put_recs(struct m_ag *ag, const struct od_irec *r, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		od_bmbt_rec_pack(&r[k], ag->ext[ag->next++].rec);
}

/* The model as it would be after the plan. */
static int apply(const struct model *m, const struct plan *p,
		 struct model *m2)
{
	const struct od_geo *g = &m->fs->geo;
	uint32_t a, b;
	size_t i, k, nlinks = 0;

	memset(m2, 0, sizeof(*m2));
	m2->fs = m->fs;
	m2->agcount = m->agcount;
	m2->ninodes = m->ninodes;
	m2->ag = calloc(m->agcount, sizeof(*m2->ag));
	if (!m2->ag)
		return -1;
	for (a = 0; a < m->agcount; a++)
		nlinks += m->ag[a].nlink;
	for (a = 0; a < m->agcount; a++) {
		struct m_ag *n = &m2->ag[a];
		const struct m_ag *o = &m->ag[a];
		size_t next = 0;

		n->agno = a;
		n->blocks = o->blocks;
		n->have_agf = o->have_agf;
		n->have_agi = o->have_agi;
		n->agf = o->agf;
		n->agi = o->agi;
		n->agfl = o->agfl;
		n->nagfl = o->nagfl;
		n->log_agbno = o->log_agbno;
		n->log_blocks = o->log_blocks;
		n->freesp = p->ag[a].freesp;
		n->nfree = p->ag[a].nfreesp;
		n->agf.freeblks = p->ag[a].free_after;
		for (b = 0; b < m->agcount; b++)
			for (k = 0; k < m->ag[b].nino; k++) {
				const struct m_ino *mi = &m->ag[b].ino[k];

				if (od_ino_agno(g, plan_ino_new(p, mi->ino)) == a)
					n->cap_ino++;
			}
		for (b = 0; b < m->agcount; b++) {
			next += m->ag[b].next;
			for (k = 0; k < p->npf; k++)
				next += p->pf[k].nrecs;
		}
		n->ino = calloc(n->cap_ino + 1, sizeof(*n->ino));
		n->ext = calloc(next + 1, sizeof(*n->ext));
		n->chunk = calloc(o->nchunk + p->nich + 1, sizeof(*n->chunk));
		n->link = calloc(nlinks + 1, sizeof(*n->link));
		if (!n->ino || !n->ext || !n->chunk || !n->link)
			return -1;
	}
	/* inodes with their forks after the plan */
	for (b = 0; b < m->agcount; b++)
		for (k = 0; k < m->ag[b].nino; k++) {
			const struct m_ag *o = &m->ag[b];
			const struct m_ino *mi = &o->ino[k];
			uint64_t ni = plan_ino_new(p, mi->ino);
			struct m_ag *n = &m2->ag[od_ino_agno(g, ni)];
			struct m_ino *x = &n->ino[n->nino++];
			int fork;

			*x = *mi;
			x->ino = ni;
			x->ext = (uint32_t)n->next;
			for (fork = FORK_DATA; fork <= FORK_ATTR; fork++) {
				const struct plan_fork *pf =
					plan_fork_find(p, mi->ino, fork);
				uint32_t first = fork == FORK_DATA ? 0 : mi->nde;
				uint32_t cnt = fork == FORK_DATA ? mi->nde : mi->nae, j;

				if (pf) {
					put_recs(n, pf->recs, pf->nrecs);
					cnt = pf->nrecs;
				} else {
					for (j = 0; j < cnt; j++)
						n->ext[n->next++] =
							o->ext[mi->ext + first + j];
				}
				if (fork == FORK_DATA)
					x->nde = cnt;
				else
					x->nae = cnt;
			}
		}
	for (a = 0; a < m->agcount; a++) {
		struct m_ag *n = &m2->ag[a];
		const struct m_ag *o = &m->ag[a];

		qsort(n->ino, n->nino, sizeof(*n->ino), cmp_ino);
		/* chunks kept, then made; their free masks from the inodes */
		for (k = 0; k < o->nchunk; k++) {
			uint64_t s = od_agino_ino(g, a, o->chunk[k].startino);
			bool freed = false;

			for (i = 0; i < p->nich; i++)
				freed |= !p->ich[i].alloc && p->ich[i].startino == s;
			if (!freed)
				n->chunk[n->nchunk++] = o->chunk[k];
		}
		for (i = 0; i < p->nich; i++) {
			struct od_inobt_rec *r;

			if (!p->ich[i].alloc ||
			    od_ino_agno(g, p->ich[i].startino) != a)
				continue;
			r = &n->chunk[n->nchunk++];
			memset(r, 0, sizeof(*r));
			r->startino = od_ino_agino(g, p->ich[i].startino);
			r->count = OD_INODES_PER_CHUNK;
		}
		qsort(n->chunk, n->nchunk, sizeof(*n->chunk), cmp_chunk);
		for (k = 0; k < n->nchunk; k++) {
			struct od_inobt_rec *r = &n->chunk[k];
			uint64_t used = 0;
			unsigned s, cnt = 0;

			for (i = 0; i < n->nino; i++) {
				uint32_t x = od_ino_agino(g, n->ino[i].ino);

				if (x >= r->startino &&
				    x < r->startino + OD_INODES_PER_CHUNK)
					used |= 1ull << (x - r->startino);
			}
			r->free = ~used;
			for (s = 0; s < OD_INODES_PER_CHUNK; s++)
				cnt += od_inobt_inuse(r, s);
			r->freecount = (uint8_t)(r->count - cnt);
		}
	}
	/* links, renumbered, in the AG of their (new) directory */
	for (b = 0; b < m->agcount; b++)
		for (k = 0; k < m->ag[b].nlink; k++) {
			const struct m_link *l = &m->ag[b].link[k];
			uint64_t pn = plan_ino_new(p, l->parent);
			struct m_ag *n = &m2->ag[od_ino_agno(g, pn)];

			n->link[n->nlink].parent = pn;
			n->link[n->nlink++].child = plan_ino_new(p, l->child);
		}
	return 0;
}

static void unapply(struct model *m2)
{
	uint32_t a;

	for (a = 0; a < m2->agcount; a++) {
		free(m2->ag[a].ino);
		free(m2->ag[a].ext);
		free(m2->ag[a].chunk);
		free(m2->ag[a].link);
	}
	free(m2->ag);
}

static void test_fixture(struct t_state *ts, const char *name)
{
	struct plan_opts o = { .order = WALK_READDIR, .renumber = PR_ALL };
	struct plan p1, p2;
	struct model *m, m2;
	struct fixture fx;
	struct err e = { 0 };
	int r;

	if (fixture_scan(&fx, "test_rerun", name)) {
		T_CHECK(ts, !"fixture opens and scans");
		goto out;
	}
	m = fx.m;
	T_CHECK(ts, plan_build(m, &o, &p1, &e) == 0);
	T_CHECK(ts, p1.nino > 0);
	r = apply(m, &p1, &m2);
	T_CHECK(ts, r == 0);
	if (!r) {
		o.renumber = PR_ALL;
		T_CHECK(ts, plan_build(&m2, &o, &p2, &e) == 0);
		/* (almost) nothing to do: the inodes stay */
		T_CHECK(ts, p2.nino * 20 <= p1.nino);
		T_CHECK(ts, p2.moved_blocks * 20 <= p1.moved_blocks + 64);
		if (getenv("T_VERBOSE") || p2.nino * 20 > p1.nino ||
		    p2.moved_blocks * 20 > p1.moved_blocks + 64)
			printf("%s: first plan %zu inodes, %llu blocks; second "
			       "%zu inodes, %llu blocks; read-back %.0f -> "
			       "%.0f ms\n", name, p1.nino,
			       (unsigned long long)p1.moved_blocks, p2.nino,
			       (unsigned long long)p2.moved_blocks,
			       p1.rb_after.hdd_seconds * 1e3,
			       p2.rb_now.hdd_seconds * 1e3);
		/* the model of the result costs what the plan predicted */
		T_CHECK(ts, p2.rb_now.hdd_seconds <=
			    p1.rb_after.hdd_seconds * 1.001 + 1e-6);
		plan_free(&p2);
		o.renumber = PR_AUTO;
		T_CHECK(ts, plan_build(&m2, &o, &p2, &e) == 0);
		T_CHECK(ts, p2.nino * 20 <= p1.nino);
		plan_free(&p2);
		unapply(&m2);
	}
	plan_free(&p1);
out:
	fixture_close(&fx);
}

int main(void)
{
	static const char *const names[] = {
		"aged", "bs1k", "ag16", "v4", "isize1k-dir8k",
		"sect4k-noreflink",
	};
	struct t_state ts = { 0, 0 };
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		test_fixture(&ts, names[i]);
	return t_done(&ts, "test_rerun");
}
