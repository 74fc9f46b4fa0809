/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The read-back figures (core/model/readback.h) in text and JSON. */
#ifndef CMD_RBFMT_H
#define CMD_RBFMT_H

#include "cmd/json.h"
#include "core/model/readback.h"

/* Build the walk and cost it as the model has it.  0 or an error. */
int rbfmt_measure(const struct model *m, enum walk_order o,
		  struct rb_fig *f, struct err *e);
/* report: a section of its own. */
void rbfmt_section(const struct rb_fig *f, enum walk_order o);
/* plan and run: rows of a two-column table (label width 34, 14 each). */
void rbfmt_rows(const struct rb_fig *a, const struct rb_fig *b,
		enum walk_order o);
/* "readback": { ... } */
void rbfmt_json(struct json *j, const char *key, const struct rb_fig *f,
		enum walk_order o);

#endif
