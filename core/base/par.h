/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Run fn(priv, i) for i in [0, n) on up to threads threads. */
#ifndef CORE_PAR_H
#define CORE_PAR_H

/* threads 0: one per online CPU.  The calling thread works too. */
void par_for(unsigned n, unsigned threads, void (*fn)(void *priv, unsigned i),
	     void *priv);
/* Online CPUs this process may use (its affinity mask), at least 1. */
unsigned par_ncpus(void);

#endif
