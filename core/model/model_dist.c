/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/model/model_dist.h"
#include "ondisk/geo.h"

bool model_data_dist(const struct model *m, const struct m_ag *ag,
		     const struct m_ino *mi, uint64_t *dist, uint64_t *first)
{
	struct od_irec r;
	uint64_t flin, ilin;

	if (!mi->nde || (mi->flags & MI_REALTIME))
		return false;
	m_ext_get(&ag->ext[mi->ext], &r);
	flin = od_fsb_lin(&m->fs->geo, r.startblock);
	ilin = model_ino_lin(m->fs, mi->ino);
	*dist = flin > ilin ? flin - ilin : ilin - flin;
	if (first)
		*first = flin;
	return true;
}
