/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/model/frag.h"
#include "core/fs/fork.h"

bool frag_fork_counts(const struct m_ino *mi, int fork)
{
	if (fork == FORK_ATTR)
		return !(mi->flags & MI_NOATTR);
	return od_mode_isdir(mi->mode) || od_mode_isreg(mi->mode) ||
	       od_mode_islnk(mi->mode);
}

void frag_add(struct frag_count *c, const struct od_irec *r, uint32_t n)
{
	uint32_t i;

	c->actual += n;
	for (i = 0; i < n; i++)
		if (i == 0 || r[i].startoff != r[i - 1].startoff +
						r[i - 1].blockcount)
			c->ideal++;
}

double frag_factor(uint64_t actual, uint64_t ideal)
{
	return actual ? (double)(actual - ideal) * 100.0 / (double)actual : 0;
}
