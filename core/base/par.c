/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/par.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct par {
	unsigned n, next;
	void (*fn)(void *, unsigned);
	void *priv;
};

static void *par_worker(void *arg)
{
	struct par *p = arg;
	unsigned i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n)
		p->fn(p->priv, i);
	return NULL;
}

unsigned par_ncpus(void)
{
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	/* the CPUs this process may run on (taskset, cgroup cpusets) */
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0 &&
	    (c <= 0 || CPU_COUNT(&set) < c))
		c = CPU_COUNT(&set);
	return c > 0 ? (unsigned)c : 1;
}

void par_for(unsigned n, unsigned threads, void (*fn)(void *priv, unsigned i),
	     void *priv)
{
	struct par p = { n, 0, fn, priv };
	pthread_t *t;
	bool *ok;
	unsigned k;

	if (!threads)
		threads = par_ncpus();
	if (threads > n)
		threads = n;
	if (threads <= 1) {
		par_worker(&p);
		return;
	}
	t = calloc(threads, sizeof(*t));
	ok = calloc(threads, sizeof(*ok));
	for (k = 1; t && ok && k < threads; k++)
		ok[k] = pthread_create(&t[k], NULL, par_worker, &p) == 0;
	par_worker(&p);	/* also covers every thread that did not start */
	for (k = 1; t && ok && k < threads; k++)
		if (ok[k])
			pthread_join(t[k], NULL);
	free(t);
	free(ok);
}
