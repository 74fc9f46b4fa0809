/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The undo files of a run in passes (cmd/undochain.c). */
#ifndef CMD_UNDOCHAIN_H
#define CMD_UNDOCHAIN_H

#include "cmd/cmd.h"

/* How many files the chain FILE, FILE.2, FILE.3, ... has (>= 1). */
unsigned undo_chain_len(const char *file);
/* Undo the n files of the chain, last first: 0 or a negative errno. */
int undo_chain(const char *file, const char *image, unsigned n);

#endif
