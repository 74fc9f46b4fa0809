/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What plan says about its limits: what they select, the files that move
 * although outside them (they share blocks with a file that moves), the
 * AGs that had to join an --ag set, and at --max-rate the least time the
 * copy takes.
 */
#include "cmd/planlim.h"
#include "cmd/cmd.h"
#include "core/model/model_paths.h"

#include <stdlib.h>

char **planlim_paths(const struct plan *p)
{
	struct err e = { 0 };
	char **paths;

	if (!p->ninway)
		return NULL;
	paths = calloc(p->ninway, sizeof(*paths));
	if (paths && model_paths(p->m, p->inway, p->ninway, paths, &e))
		err_clear(&e);
	return paths;
}

void planlim_free_paths(const struct plan *p, char **paths)
{
	size_t i;

	for (i = 0; paths && i < p->ninway; i++)
		free(paths[i]);
	free(paths);
}

static double copy_secs(const struct plan *p, const struct cmd_limits *l,
			uint32_t bs)
{
	return (double)p->copied_blocks * bs / 1048576.0 / l->max_rate;
}

void planlim_text(const struct plan *p, const struct cmd_limits *l,
		  char **paths, uint32_t bs)
{
	size_t i;

	if (l->max_rate > 0)
		printf("at --max-rate %g MiB/s the copy takes at least %.1f s\n",
		       l->max_rate, copy_secs(p, l, bs));
	if (!p->limited)
		return;
	printf("limits: only");
	if (l->nagv) {
		printf(" AG");
		for (i = 0; i < l->nagv; i++)
			printf("%s %u", i ? "," : "", l->agv[i]);
	}
	for (i = 0; i < l->npaths; i++) {
		printf("%s ", i ? "," : (l->nagv ? "; under" : " under"));
		cmd_put_escaped(stdout, l->paths[i]);
	}
	if (l->min_extents > 1)
		printf("%s files of %u or more extents",
		       l->nagv || l->npaths ? ";" : "", l->min_extents);
	printf(": %llu files may move\n",
	       (unsigned long long)p->files_selected);
	for (i = 0; i < p->nag_added; i++)
		printf("AG %u changes too: a file's bmap btree spans it and "
		       "the AGs named\n", p->ag_added[i]);
	if (!p->ninway)
		return;
	printf("in the way (outside the limits, moved with the files that "
	       "share their blocks): %zu files\n", p->ninway);
	for (i = 0; i < p->ninway; i++) {
		printf("  ");
		cmd_put_escaped(stdout, paths && paths[i] ? paths[i] : "?");
		printf("\n");
	}
}

void planlim_json(struct json *j, const struct plan *p,
		  const struct cmd_limits *l, char **paths, uint32_t bs)
{
	size_t i;

	json_obj_begin(j, "limits");
	if (l->nagv) {
		json_arr_begin(j, "ags");
		for (i = 0; i < l->nagv; i++)
			json_u64(j, NULL, l->agv[i]);
		json_arr_end(j);
	} else {
		json_null(j, "ags");
	}
	json_arr_begin(j, "paths");
	for (i = 0; i < l->npaths; i++)
		json_str(j, NULL, l->paths[i]);
	json_arr_end(j);
	json_u64(j, "min_extents", l->min_extents);
	if (l->max_rate > 0) {
		json_f2(j, "max_rate_mib_s", l->max_rate);
		json_f2(j, "copy_seconds_at_max_rate", copy_secs(p, l, bs));
	} else {
		json_null(j, "max_rate_mib_s");
		json_null(j, "copy_seconds_at_max_rate");
	}
	json_u64(j, "files_selected", p->files_selected);
	json_arr_begin(j, "ags_added");
	for (i = 0; i < p->nag_added; i++)
		json_u64(j, NULL, p->ag_added[i]);
	json_arr_end(j);
	json_arr_begin(j, "in_the_way");
	for (i = 0; i < p->ninway; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "path", paths ? paths[i] : NULL);
		json_u64(j, "ino", p->inway[i]);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}
