/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Block maps of the undo journal's writer: sparse bitmaps, crcs. */
#include "core/undo/undo_priv.h"
#include "core/base/array.h"

#include <stdlib.h>
#include <string.h>

/*
 * A chunk whose every bit is set is this one, shared and never written:
 * free space is set in long extents, and a 15 TiB filesystem's free
 * space would otherwise cost 512 MiB of bitmap per map.
 */
static const uint64_t full_chunk[BM_CHUNK_WORDS] = {
	[0 ... BM_CHUNK_WORDS - 1] = ~0ull	/* GNU C range designator */
};

static bool is_full(const uint64_t *c)
{
	return c == full_chunk;
}

int bm_init(struct bitmap *bm, uint64_t nbits)
{
	bm->nbits = nbits;
	bm->nchunks = (size_t)((nbits + BM_CHUNK_BITS - 1) >> BM_CHUNK_SHIFT);
	bm->chunk = calloc(bm->nchunks ? bm->nchunks : 1, sizeof(*bm->chunk));
	return bm->chunk ? 0 : -ENOMEM;
}

void bm_free(struct bitmap *bm)
{
	size_t i;

	for (i = 0; bm->chunk && i < bm->nchunks; i++)
		if (!is_full(bm->chunk[i]))
			free(bm->chunk[i]);
	free(bm->chunk);
	bm->chunk = NULL;
}

bool bm_test(const struct bitmap *bm, uint64_t bit)
{
	const uint64_t *c;
	uint64_t i;

	if (bit >= bm->nbits)
		return false;
	c = bm->chunk[bit >> BM_CHUNK_SHIFT];
	i = bit & (BM_CHUNK_BITS - 1);
	return c && (c[i / 64] >> (i % 64) & 1);
}

int bm_set(struct bitmap *bm, uint64_t bit, uint64_t n)
{
	while (n) {
		uint64_t **c = &bm->chunk[bit >> BM_CHUNK_SHIFT];
		uint64_t i = bit & (BM_CHUNK_BITS - 1);
		uint64_t k = BM_CHUNK_BITS - i < n ? BM_CHUNK_BITS - i : n;
		uint64_t j;

		if (k == BM_CHUNK_BITS || is_full(*c)) {
			if (!is_full(*c))
				free(*c);
			*c = (uint64_t *)full_chunk;	/* read only, see is_full */
			bit += k;
			n -= k;
			continue;
		}
		if (!*c) {
			*c = calloc(BM_CHUNK_WORDS, sizeof(**c));
			if (!*c)
				return -ENOMEM;
		}
		for (j = i; j < i + k && j % 64; j++)
			(*c)[j / 64] |= 1ull << (j % 64);
		for (; j + 64 <= i + k; j += 64)
			(*c)[j / 64] = ~0ull;
		for (; j < i + k; j++)
			(*c)[j / 64] |= 1ull << (j % 64);
		bit += k;
		n -= k;
	}
	return 0;
}

int bm_clear(struct bitmap *bm, uint64_t bit)
{
	uint64_t **c = bit < bm->nbits ? &bm->chunk[bit >> BM_CHUNK_SHIFT] :
		       NULL;
	uint64_t i = bit & (BM_CHUNK_BITS - 1);

	if (!c || !*c)
		return 0;
	if (is_full(*c)) {
		uint64_t *own = malloc(sizeof(full_chunk));

		if (!own)
			return -ENOMEM;
		memcpy(own, full_chunk, sizeof(full_chunk));
		*c = own;
	}
	(*c)[i / 64] &= ~(1ull << (i % 64));
	return 0;
}

uint64_t bm_word(const struct bitmap *bm, uint64_t w)
{
	uint64_t bit = w * 64, v;
	const uint64_t *c;

	if (bit >= bm->nbits)
		return 0;
	c = bm->chunk[bit >> BM_CHUNK_SHIFT];
	if (!c)
		return 0;
	v = c[(bit & (BM_CHUNK_BITS - 1)) / 64];
	if (bm->nbits - bit < 64)
		v &= (1ull << (bm->nbits - bit)) - 1;
	return v;
}

int bm_chunk_state(const struct bitmap *bm, uint64_t bit)
{
	const uint64_t *c = bit < bm->nbits ? bm->chunk[bit >> BM_CHUNK_SHIFT] :
			    NULL;

	return !c ? 0 : is_full(c) ? 1 : -1;
}

uint64_t bm_next(const struct bitmap *bm, uint64_t bit)
{
	while (bit < bm->nbits) {
		const uint64_t *c = bm->chunk[bit >> BM_CHUNK_SHIFT];
		uint64_t i = bit & (BM_CHUNK_BITS - 1), w;

		if (!c) {
			bit = (bit | (BM_CHUNK_BITS - 1)) + 1;
			continue;
		}
		w = c[i / 64] >> (i % 64);
		if (w) {
			bit += (uint64_t)__builtin_ctzll(w);
			return bit < bm->nbits ? bit : bm->nbits;
		}
		bit = (bit | 63) + 1;
	}
	return bm->nbits;
}

int cm_init(struct crcmap *cm, uint64_t nblocks)
{
	memset(cm, 0, sizeof(*cm));
	cm->nchunks = (size_t)((nblocks >> CM_CHUNK_SHIFT) + 1);
	cm->chunk = calloc(cm->nchunks, sizeof(*cm->chunk));
	return cm->chunk ? 0 : -ENOMEM;
}

void cm_free(struct crcmap *cm)
{
	size_t i;

	for (i = 0; cm->chunk && i < cm->nused; i++)
		free(cm->chunk[cm->used[i]]);
	free(cm->chunk);
	free(cm->used);
	cm->chunk = NULL;
	cm->used = NULL;
	cm->nused = cm->cap_used = 0;
}

uint32_t cm_get(const struct crcmap *cm, uint64_t b)
{
	const uint32_t *c = cm->chunk[b >> CM_CHUNK_SHIFT];

	return c ? c[b & ((1u << CM_CHUNK_SHIFT) - 1)] : 0;
}

int cm_set(struct crcmap *cm, uint64_t b, uint32_t crc)
{
	uint32_t **c = &cm->chunk[b >> CM_CHUNK_SHIFT];

	if (!*c) {
		if (array_grow((void **)&cm->used, &cm->cap_used, cm->nused,
			       sizeof(*cm->used), 64))
			return -ENOMEM;
		*c = calloc(1u << CM_CHUNK_SHIFT, sizeof(**c));
		if (!*c)
			return -ENOMEM;
		cm->used[cm->nused++] = (size_t)(b >> CM_CHUNK_SHIFT);
	}
	(*c)[b & ((1u << CM_CHUNK_SHIFT) - 1)] = crc;
	return 0;
}
