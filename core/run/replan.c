/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each pass plans from the image as it is now: a fresh writable view of
 * the writer's image (a borrowed img: the lock stays held once, by the
 * writer's fs), scanned once per change.  A pass over some AGs takes the
 * files a full plan of the same model puts there (their homes).
 */
#include "core/run/run_priv.h"
#include "core/fs/fork.h"
#include "core/model/scan.h"
#include "core/model/walk.h"
#include "core/relocate/plan_shrink.h"

#include <stdlib.h>

int run_view(struct run_ctx *c, bool writable, struct fs **out,
	     struct err *e)
{
	struct img *view;

	if (img_borrow(c->fs->img, writable, &view))
		return err_set(e, -ENOMEM, "out of memory");
	if (fs_open_img(view, c->o->image, writable ? FS_RDWR : 0, out, e)) {
		img_close(view);	/* fs_open_img did not take it */
		return e->code ? e->code : -EIO;
	}
	if (c->o->ev && c->o->ev->view)
		c->o->ev->view(c->o->ev->priv, *out);
	return 0;
}

void run_drop_model(struct run_ctx *c)
{
	free(c->home);
	c->home = NULL;
	c->nhome = 0;
	model_free(c->m);
	fs_close(c->pfs);
	c->m = NULL;
	c->pfs = NULL;
}

int run_measure(struct run_ctx *c, const struct model *m, struct report *rp,
		struct rb_fig *rb, struct err *e)
{
	struct walk w;
	int ret = report_build(m, -1, 0, rp, e);

	if (!ret)
		ret = walk_build(m, c->o->po.order, &w, e);
	if (ret)
		return ret;
	ret = readback_model(&w, NULL, NULL, rb, e);
	walk_free(&w);
	return ret;
}

int run_fresh_model(struct run_ctx *c, struct err *e)
{
	struct run_result *r = c->r;
	struct scan_opts so = { 0 };
	int ret;

	if (c->m)
		return 0;
	ret = run_view(c, true, &c->pfs, e);
	if (ret)
		return ret;
	so.dirs = true;
	so.threads = c->o->threads;
	if (scan_fs(c->pfs, &so, &c->m, e))
		return e->code ? e->code : -EFSCORRUPTED;
	if (!r->have_before) {
		ret = run_measure(c, c->m, &r->before, &r->rb_before, e);
		if (ret)
			return ret;
		r->have_before = true;
	}
	return 0;
}

bool run_plan_has_work(const struct plan *p)
{
	size_t i;
	uint32_t k;

	if (p->moved_blocks || p->nino || p->nich || p->shrink.dblocks)
		return true;
	for (i = 0; i < p->npf; i++) {
		const struct plan_fork *pf = &p->pf[i];
		const struct m_ag *ag;
		const struct m_ino *mi = model_find(p->m, pf->ino, &ag);
		uint32_t first, n;

		if (!mi)
			return true;
		first = pf->whichfork == FORK_DATA ? 0 : mi->nde;
		n = pf->whichfork == FORK_DATA ? mi->nde : mi->nae;
		if (n != pf->nrecs)
			return true;
		for (k = 0; k < n; k++) {
			struct od_irec x;

			m_ext_get(&ag->ext[mi->ext + first + k], &x);
			if (x.startoff != pf->recs[k].startoff ||
			    x.startblock != pf->recs[k].startblock ||
			    x.blockcount != pf->recs[k].blockcount ||
			    x.unwritten != pf->recs[k].unwritten)
				return true;
		}
	}
	return false;
}

/*
 * Where a full plan of the model puts each inode's data: the AG of its
 * new first data record, or of its first record when it stays.
 */
static int homes(struct run_ctx *c, struct err *e)
{
	struct plan_opts po = c->o->po;
	struct plan full = { 0 };
	const struct model *m = c->m;
	const struct od_geo *g = &c->pfs->geo;
	uint32_t a;
	size_t k, n = 0;
	int ret;

	if (c->home)
		return 0;
	po.lim = &c->o->lim;
	po.renumber = PR_NONE;	/* a pass keeps inode numbers */
	po.inode32 = false;
	ret = plan_build(m, &po, &full, e);
	if (!ret) {
		c->home = malloc((m->ninodes ? m->ninodes : 1) *
				 sizeof(*c->home));
		if (!c->home)
			ret = err_set(e, -ENOMEM, "out of memory");
	}
	for (a = 0; !ret && a < m->agcount; a++)
		for (k = 0; k < m->ag[a].nino && n < m->ninodes; k++) {
			const struct m_ino *mi = &m->ag[a].ino[k];
			const struct plan_fork *pf =
				plan_fork_find(&full, mi->ino, FORK_DATA);
			struct od_irec x;

			if (pf && pf->nrecs)
				x = pf->recs[0];
			else if (mi->nde && !(mi->flags & MI_REALTIME))
				m_ext_get(&m->ag[a].ext[mi->ext], &x);
			else
				continue;
			c->home[n].ino = mi->ino;
			c->home[n++].agno = od_fsb_agno(g, x.startblock);
		}
	c->nhome = n;
	plan_free(&full);
	return ret;
}

int run_plan_now(struct run_ctx *c, const bool *focus, struct plan *p,
		 struct err *e)
{
	struct plan_opts po = c->o->po;
	int ret = run_fresh_model(c, e);

	if (!ret && focus)
		ret = homes(c, e);
	if (ret)
		return ret;
	c->lim = c->o->lim;
	c->lim.focus = focus;
	c->lim.home = c->home;
	c->lim.nhome = c->nhome;
	po.lim = &c->lim;
	if (c->keep_inodes) {
		po.renumber = PR_NONE;
		po.inode32 = false;
	}
	if (c->o->shrink_min) {
		c->r->min_floor = plan_shrink_floor(c->m);
		return plan_shrink_min(c->m, &po, p, &c->r->min_tries, e);
	}
	po.shrink_to = c->o->shrink_to;
	return plan_build(c->m, &po, p, e);
}
