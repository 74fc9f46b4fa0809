/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo files of a run in passes (chain.c): FILE for the first pass,
 * FILE.2, FILE.3, ... for the next.  Undoing FILE undoes them all, last
 * first.
 */
#ifndef CORE_UNDO_CHAIN_H
#define CORE_UNDO_CHAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/undo/undo.h"

/* Pass n's undo file (n from 1): base, then base.2, base.3, ... */
void undo_chain_name(const char *base, unsigned n, char *buf, size_t len);
/* How many files the chain FILE, FILE.2, FILE.3, ... has (>= 1). */
unsigned undo_chain_len(const char *file);
/*
 * What undo_chain has to say, a line at a time (error: for standard
 * error, else standard output); the front end prints it.
 */
typedef void (*undo_chain_say_fn)(void *priv, bool error, const char *line);
/*
 * Undo the n files of the chain, last first (fsflags: FS_PART(N) or 0,
 * as undo_open_fs takes them): 0 or a negative errno.
 */
int undo_chain(const char *file, const char *image, unsigned fsflags,
	       unsigned n, undo_chain_say_fn say, void *priv);

#endif
