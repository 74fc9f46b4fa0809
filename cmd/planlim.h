/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan's lines about its limits: text and JSON. */
#ifndef CMD_PLANLIM_H
#define CMD_PLANLIM_H

#include "cmd/json.h"
#include "cmd/limits.h"
#include "core/relocate/plan.h"

/* The paths of the files in the way (p->inway), or NULL; free with
 * planlim_free_paths. */
char **planlim_paths(const struct plan *p);
void planlim_free_paths(const struct plan *p, char **paths);
void planlim_text(const struct plan *p, const struct cmd_limits *l,
		  char **paths, uint32_t blocksize);
void planlim_json(struct json *j, const struct plan *p,
		  const struct cmd_limits *l, char **paths,
		  uint32_t blocksize);

#endif
