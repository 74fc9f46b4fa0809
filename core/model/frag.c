/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/model/frag.h"

double frag_factor(uint64_t actual, uint64_t ideal)
{
	return actual ? (double)(actual - ideal) * 100.0 / (double)actual : 0;
}
