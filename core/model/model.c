/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/model/model.h"
#include "core/base/bigmem.h"
#include "core/base/search.h"

#include <stdlib.h>

static inline bool ino_before(const struct m_ino *mi, uint64_t ino)
{
	return mi->ino < ino;
}

SEARCH_FIRST(ino_search, struct m_ino, uint64_t, ino_before)

const struct m_ino *model_find(const struct model *m, uint64_t ino,
			       const struct m_ag **agp)
{
	uint32_t agno = od_ino_agno(&m->fs->geo, ino);
	const struct m_ag *ag;
	size_t lo;

	if (agno >= m->agcount)
		return NULL;
	ag = &m->ag[agno];
	lo = ino_search(ag->ino, ag->nino, ino);
	if (lo == ag->nino || ag->ino[lo].ino != ino)
		return NULL;
	if (agp)
		*agp = ag;
	return &ag->ino[lo];
}

uint64_t model_ino_lin(const struct fs *fs, uint64_t ino)
{
	const struct od_geo *g = &fs->geo;

	return od_agb_lin(g, od_ino_agno(g, ino),
			  od_agino_agbno(g, od_ino_agino(g, ino)));
}

void model_free(struct model *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->agcount; i++) {
		struct m_ag *ag = &m->ag[i];

		bigmem_free(ag->ino, ag->cap_ino, sizeof(*ag->ino));
		bigmem_free(ag->ext, ag->cap_ext, sizeof(*ag->ext));
		bigmem_free(ag->chunk, ag->cap_chunk, sizeof(*ag->chunk));
		bigmem_free(ag->freesp, ag->cap_free, sizeof(*ag->freesp));
		free(ag->agfl);
		bigmem_free(ag->meta, ag->cap_meta, sizeof(*ag->meta));
		bigmem_free(ag->xmeta, ag->cap_xmeta, sizeof(*ag->xmeta));
		bigmem_free(ag->dir, ag->cap_dir, sizeof(*ag->dir));
		bigmem_free(ag->link, ag->cap_link, sizeof(*ag->link));
	}
	free(m->ag);
	free(m);
}
