/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The planner's limits (core/relocate/plan_limits.h) on committed
 * fixtures aged by the real kernel (4 and 16 AGs), read-only:
 *   - --ag a: every move starts and ends in AG a, every other AG is left
 *     alone (not rebuilt) and the plan moves less than the full one;
 *   - min_extents beyond any file: nothing moves, no fork is rewritten,
 *     no AG is rebuilt;
 *   - a pass (focus on AG a, homes from the full plan): every AG the plan
 *     does not rebuild is one no move and no new bmap block touches, and
 *     the passes of all AGs together leave out nothing the full plan
 *     moves (each move of the full plan starts or ends in some pass's AG);
 *   - for every limited plan: an AG not rebuilt has no move and no new
 *     bmap block in it.
 */
#include "t.h"
#include "core/fs/fs.h"
#include "core/fs/fork.h"
#include "core/model/scan.h"
#include "core/relocate/plan.h"
#include "core/relocate/plan_limits.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool lin_in(const struct od_geo *g, uint64_t lin, uint32_t agno)
{
	return lin / g->agblocks == agno;
}

/* An AG the plan does not rebuild: no move, no new bmap block there. */
static void check_untouched(struct t_state *ts, const struct plan *p,
			    const struct od_geo *g)
{
	uint32_t a;
	size_t i, k, bad = 0;

	for (a = 0; a < g->agcount; a++) {
		if (plan_ag(p, a)->changed)
			continue;
		for (i = 0; i < p->nmv; i++)
			if (lin_in(g, p->mv[i].src, a) ||
			    lin_in(g, p->mv[i].dst, a))
				bad++;
		for (i = 0; i < p->npf; i++)
			for (k = 0; k < p->pf[i].nbmbt; k++)
				if (od_fsb_agno(g, p->pf[i].bmbt[k]) == a)
					bad++;
	}
	T_CHECK(ts, bad == 0);
}

static void test_image(struct t_state *ts, const char *name)
{
	char path[256], cmd[512];
	struct scan_opts so = { 0 };
	struct plan full = { 0 }, p;
	struct plan_limits lim;
	struct plan_opts po;
	struct plan_home *home;
	struct model *m = NULL;
	struct fs *fs = NULL;
	struct err e = { 0 };
	const struct od_geo *g;
	bool *sel, *covered;
	uint32_t a, b;
	size_t i, n = 0;

	snprintf(path, sizeof(path), "%s/xfsdefrag-limits-%d.img",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	snprintf(cmd, sizeof(cmd), "zstd -dq --sparse -f -o %s "
		 "tests/fixtures/%s/image.zst", path, name);
	if (system(cmd) != 0 || fs_open(path, 0, &fs, &e)) {
		fprintf(stderr, "%s: cannot open: %s\n", name, e.msg);
		T_CHECK(ts, 0);
		unlink(path);
		return;
	}
	g = &fs->geo;
	so.dirs = true;
	so.threads = 2;
	T_CHECK(ts, scan_fs(fs, &so, &m, &e) == 0);
	if (!m)
		goto out;
	T_CHECK(ts, plan_build(m, NULL, &full, &e) == 0);
	T_CHECK(ts, full.moved_blocks > 0);
	sel = calloc(g->agcount, sizeof(*sel));
	covered = calloc(full.nmv ? full.nmv : 1, sizeof(*covered));
	home = calloc(m->ninodes ? m->ninodes : 1, sizeof(*home));
	if (!sel || !covered || !home)
		goto free;
	/* homes: where the full plan puts each changed data fork */
	for (i = 0; i < full.npf; i++)
		if (full.pf[i].whichfork == FORK_DATA && full.pf[i].nrecs &&
		    n < m->ninodes) {
			home[n].ino = full.pf[i].ino;
			home[n++].agno = od_fsb_agno(g, full.pf[i].recs[0].startblock);
		}
	for (a = 0; a < g->agcount; a++) {
		size_t out_of_ag = 0, others = 0;

		memset(sel, 0, g->agcount * sizeof(*sel));
		sel[a] = true;
		memset(&lim, 0, sizeof(lim));
		lim.ags = sel;
		memset(&po, 0, sizeof(po));
		po.lim = &lim;
		T_CHECK(ts, plan_build(m, &po, &p, &e) == 0);
		for (i = 0; i < p.nmv; i++)
			if (!lin_in(g, p.mv[i].src, a) ||
			    !lin_in(g, p.mv[i].dst, a))
				out_of_ag++;
		for (b = 0; b < g->agcount; b++)
			if (b != a && plan_ag(&p, b)->changed)
				others++;
		T_CHECK(ts, out_of_ag == 0);
		T_CHECK(ts, others == p.nag_added);
		T_CHECK(ts, p.moved_blocks <= full.moved_blocks);
		check_untouched(ts, &p, g);
		plan_free(&p);

		/* the pass of AG a */
		memset(&lim, 0, sizeof(lim));
		lim.focus = sel;
		lim.home = home;
		lim.nhome = n;
		T_CHECK(ts, plan_build(m, &po, &p, &e) == 0);
		check_untouched(ts, &p, g);
		plan_free(&p);
		for (i = 0; i < full.nmv; i++)
			if (lin_in(g, full.mv[i].src, a) ||
			    lin_in(g, full.mv[i].dst, a))
				covered[i] = true;
	}
	for (i = 0; i < full.nmv && covered[i]; i++)
		;
	T_CHECK(ts, i == full.nmv);
	/* nothing is selected: nothing at all changes */
	memset(&lim, 0, sizeof(lim));
	lim.min_extents = UINT32_MAX;
	memset(&po, 0, sizeof(po));
	po.lim = &lim;
	T_CHECK(ts, plan_build(m, &po, &p, &e) == 0);
	T_CHECK(ts, p.moved_blocks == 0 && p.npf == 0 && p.nmv == 0);
	for (a = 0; a < g->agcount; a++)
		T_CHECK(ts, !plan_ag(&p, a)->changed);
	plan_free(&p);
	if (getenv("T_VERBOSE"))
		printf("%s: %u AGs, full plan %llu blocks, %zu homes\n", name,
		       g->agcount, (unsigned long long)full.moved_blocks, n);
free:
	free(sel);
	free(covered);
	free(home);
	plan_free(&full);
out:
	model_free(m);
	fs_close(fs);
	unlink(path);
}

int main(void)
{
	struct t_state ts = { 0, 0 };

	test_image(&ts, "aged");
	test_image(&ts, "ag16");
	return t_done(&ts, "test_plan_limits");
}
