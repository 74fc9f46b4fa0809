/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd/shrinkfmt.h"
#include "cmd/cmd.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

int shrinkfmt_parse(const char *s, uint64_t *bytes, bool *min)
{
	static const char units[] = "KMGTP";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0, i;

	*min = false;
	*bytes = 0;
	if (strcasecmp(s, "min") == 0) {
		*min = true;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		u = end;
		for (i = 0; units[i]; i++)
			if (toupper((unsigned char)*u) == units[i])
				shift = 10 * (i + 1);
		if (!shift)
			return -1;
		u++;
		if (strcasecmp(u, "iB") && strcasecmp(u, "B") && *u)
			return -1;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*bytes = (uint64_t)v << shift;
	return *bytes ? 0 : -1;
}

uint64_t shrinkfmt_blocks(const struct fs *fs, uint64_t bytes)
{
	return bytes >> fs->geo.blocklog;
}

static double mib(const struct fs *fs, uint64_t blocks)
{
	return (double)(blocks << fs->geo.blocklog) / 1048576.0;
}

void shrinkfmt_text(const struct fs *fs, const struct plan *p, bool min,
		    unsigned tries, uint64_t floor)
{
	const struct plan_shrink *s = &p->shrink;
	const struct od_geo *g = &fs->geo;

	printf("shrink to %llu bytes (%llu blocks of %u, %.1f MiB): %u AG%s, "
	       "the last of %u blocks; now %llu blocks, %u AGs\n",
	       (unsigned long long)(s->dblocks << g->blocklog),
	       (unsigned long long)s->dblocks, g->blocksize,
	       mib(fs, s->dblocks), s->agcount, s->agcount == 1 ? "" : "s",
	       s->last_len, (unsigned long long)g->dblocks, g->agcount);
	if (min)
		printf("smallest size found: %llu blocks, against %llu blocks "
		       "in use now, log included (%.1f%% more; %u sizes "
		       "planned)\n", (unsigned long long)s->dblocks,
		       (unsigned long long)floor,
		       floor ? ((double)s->dblocks / (double)floor - 1.0) *
		       100.0 : 0.0, tries);
	printf("past the new end now: %llu blocks in use (%.1f MiB), %llu of "
	       "them file data; %llu inodes in %llu chunks (renumbered into "
	       "chunks inside)\n", (unsigned long long)s->used_beyond,
	       mib(fs, s->used_beyond), (unsigned long long)s->data_beyond,
	       (unsigned long long)s->inodes_beyond,
	       (unsigned long long)s->chunks_beyond);
	if (s->logstart)
		printf("the log (%u blocks) moves to AG %u block %u, recreated "
		       "clean at cycle %u\n", fs->sb.logblocks,
		       od_fsb_agno(g, s->logstart), od_fsb_agbno(g, s->logstart),
		       s->log_cycle);
	else
		printf("the log stays where it is\n");
	if (s->imax_pct != fs->sb.imax_pct)
		printf("sb_imax_pct: %u%% -> %u%% (room for the inodes there "
		       "are)\n", fs->sb.imax_pct, s->imax_pct);
}

void shrinkfmt_json(struct json *j, const struct fs *fs,
		    const struct plan *p, bool min, unsigned tries,
		    uint64_t floor)
{
	const struct plan_shrink *s = &p->shrink;
	const struct od_geo *g = &fs->geo;

	json_obj_begin(j, "shrink");
	json_u64(j, "bytes", s->dblocks << g->blocklog);
	json_u64(j, "dblocks", s->dblocks);
	json_u64(j, "agcount", s->agcount);
	json_u64(j, "last_ag_blocks", s->last_len);
	json_u64(j, "dblocks_now", g->dblocks);
	json_u64(j, "agcount_now", g->agcount);
	json_bool(j, "min", min);
	if (min) {
		json_u64(j, "sizes_planned", tries);
		json_u64(j, "blocks_in_use_now", floor);
	}
	json_u64(j, "used_beyond", s->used_beyond);
	json_u64(j, "data_beyond", s->data_beyond);
	json_u64(j, "inodes_beyond", s->inodes_beyond);
	json_u64(j, "chunks_beyond", s->chunks_beyond);
	json_bool(j, "log_moves", s->logstart != 0);
	if (s->logstart) {
		json_u64(j, "log_ag", od_fsb_agno(g, s->logstart));
		json_u64(j, "log_agbno", od_fsb_agbno(g, s->logstart));
		json_u64(j, "log_cycle", s->log_cycle);
	}
	json_u64(j, "imax_pct", s->imax_pct);
	json_obj_end(j);
}
