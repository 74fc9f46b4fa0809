/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fork mappings that lie in an AG, and the units they group into: a
 * unit is a physical range moved as one piece (several mappings share
 * one when their blocks are reflinked).
 */
#include "core/relocate/plan_priv.h"
#include "core/base/sort.h"
#include "core/base/bigmem.h"
#include "core/fs/fork.h"
#include "ondisk/inode.h"

#include <errno.h>
#include <stdlib.h>

/* Bytes of fork whichfork in the inode (its literal-area share). */
uint32_t plan_fork_len(const struct od_geo *g, const struct m_ino *mi,
			 int whichfork)
{
	uint32_t lit = g->inodesize - (mi->version == 3 ? OD_DINODE_V3_CORE :
						       OD_DINODE_V2_CORE);

	if (whichfork == FORK_DATA)
		return mi->forkoff ? (uint32_t)mi->forkoff * 8 : lit;
	return mi->forkoff ? lit - (uint32_t)mi->forkoff * 8 : 0;
}

uint8_t plan_fork_ftype(const struct m_ino *mi, int whichfork)
{
	if (whichfork == FORK_ATTR)
		return PF_ATTR;
	if (od_mode_isdir(mi->mode))
		return PF_DIR;
	if (od_mode_islnk(mi->mode))
		return PF_SYMLINK;
	return PF_DATA;
}

/* Every fork mapping that lies in this AG. */
int plan_gather_maps(struct agplan *ap)
{
	struct planner *pl = ap->pl;
	const struct od_geo *g = pl->g;
	size_t i;
	uint32_t k;

	for (i = 0; i < pl->nref; i++) {
		const struct m_ino *mi = pl->ref[i].mi;
		const struct m_ag *ag = plan_ref_ag(pl, i);

		for (k = 0; k < mi->nde + mi->nae; k++) {
			struct od_irec x;
			struct pmap *pm;
			int fork = k < mi->nde ? FORK_DATA : FORK_ATTR;

			if (fork == FORK_DATA && (mi->flags & MI_REALTIME))
				continue;
			m_ext_get(&ag->ext[mi->ext + k], &x);
			if (od_fsb_agno(g, x.startblock) != ap->agno)
				continue;
			if (bigmem_grow((void **)&ap->map, &ap->cap_map,
					ap->nmap, sizeof(*ap->map)))
				return -ENOMEM;
			pm = &ap->map[ap->nmap++];
			pm->start = od_fsb_agbno(g, x.startblock);
			pm->len = x.blockcount;
			pm->ino_idx = (uint32_t)i;
			pm->startoff = x.startoff;
			pm->fork = (uint8_t)fork;
			pm->unwritten = x.unwritten;
			pm->ftype = plan_fork_ftype(mi, fork);
			pm->unit = 0;
		}
	}
	return 0;
}

/* Mappings by start, then length. */
static uint64_t map_start(const void *e, unsigned f, const void *arg)
{
	const struct pmap *pm = e;

	(void)f;
	(void)arg;
	return (uint64_t)pm->start << 32 | pm->len;
}

/*
 * The order a mapping asks to be placed in.  Walk orders: directories
 * before files, then the inode's place in the walk, data fork first, by
 * file offset.  Inode order: by the inode's chunk first (inodes do not
 * move, so data follows its inode's neighbourhood), then the same.
 */
static void map_key(const struct planner *pl, const struct pmap *pm,
		    uint64_t k[3])
{
	const struct m_ino *mi = pl->ref[pm->ino_idx].mi;

	/* a stream: the directories first (after the inode chunks), in walk
	 * order, then the files' data: a metadata walk reads one zone */
	k[0] = pl->stream ? !od_mode_isdir(mi->mode) : mi->ino >> 6;
	k[1] = pl->ref[pm->ino_idx].order << 1 | pm->fork;
	k[2] = pm->startoff;
}

static bool key_less(const uint64_t a[3], const struct unit *u)
{
	if (a[0] != u->key)
		return a[0] < u->key;
	if (a[1] != u->key2)
		return a[1] < u->key2;
	return a[2] < u->key3;
}

/* Group overlapping mappings (shared blocks) into units. */
int plan_build_units(struct agplan *ap)
{
	size_t i, u = 0;
	uint32_t end = 0;
	int ret;

	ret = sort_by_fields(ap->map, ap->nmap, sizeof(*ap->map), 1,
			     map_start, NULL);
	if (ret)
		return ret;
	ap->unit = bigmem_calloc(ap->nmap ? ap->nmap : 1, sizeof(*ap->unit));
	if (!ap->unit)
		return -ENOMEM;
	for (i = 0; i < ap->nmap; i++) {
		struct pmap *pm = &ap->map[i];
		uint64_t key[3];

		map_key(ap->pl, pm, key);

		if (i == 0 || pm->start >= end) {
			struct unit *un = &ap->unit[u++];

			un->start = pm->start;
			un->len = pm->len;
			un->key = key[0];
			un->key2 = key[1];
			un->key3 = key[2];
			un->written = !pm->unwritten;
			un->target = ap->agno;
			un->owner_ag = plan_ino_ag(ap->pl, pm->ino_idx);
			end = pm->start + pm->len;
		} else {
			struct unit *un = &ap->unit[u - 1];

			if (pm->start + pm->len > end)
				end = pm->start + pm->len;
			un->len = end - un->start;
			un->shared = true;
			if (!pm->unwritten)
				un->written = true;
			if (key_less(key, un)) {
				un->key = key[0];
				un->key2 = key[1];
				un->key3 = key[2];
			}
		}
		pm->unit = (uint32_t)(u - 1);
	}
	ap->nunit = u;
	return 0;
}
