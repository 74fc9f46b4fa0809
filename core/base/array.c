/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/base/array.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int array_reserve(void **v, size_t *cap, size_t need, size_t size,
		  size_t first)
{
	size_t c = *cap ? *cap : (first ? first : 1);
	void *nv;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (size && c > SIZE_MAX / size)
		return -ENOMEM;
	nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}
