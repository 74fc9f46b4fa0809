/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd/shrinkfmt.h"
#include "cmd/cmd.h"
#include "cmd/verdict.h"

#include <stdio.h>
#include <string.h>

/* A size or "min" into a struct shrinkfmt_size, for option opt. */
static int take(const char *opt, void *dst, const char *val, char *why,
		size_t len)
{
	struct shrinkfmt_size *z = dst;

	if (strcmp(val, "min") == 0) {
		z->min = true;
		z->bytes = 0;
		return 0;
	}
	if (cmd_parse_size(val, &z->bytes) == 0) {
		z->min = false;
		return 0;
	}
	snprintf(why, len, "%s: '%s' is neither a size (bytes from 1, or a "
		 "whole number with K, M, G or T) nor min", opt, val);
	return -1;
}

int shrinkfmt_size_opt(void *dst, const char *val, char *why, size_t len)
{
	return take("--size", dst, val, why, len);
}

int shrinkfmt_shrink_opt(void *dst, const char *val, char *why, size_t len)
{
	return take("--shrink", dst, val, why, len);
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
