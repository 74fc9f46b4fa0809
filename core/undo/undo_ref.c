/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * References (the writer side): most blocks a run overwrites in place
 * held data it had already copied elsewhere.  Their originals sit intact
 * at those copies, so the journal names the copy ("the original of D is
 * at E, crc X") instead of holding the bytes.  That stays true while
 * nobody writes E: a write to E first turns the reference into a data
 * record of D (its bytes read from E, checked against X) and syncs it.
 * The copy must be durable before D is overwritten: a reference to a
 * copy written since the image's last flush makes the next journal sync
 * flush the image first.  At the seal, references whose copy is free
 * when the run ends (a later writer may reuse it) become data records
 * too: every live reference's copy is in the proof.
 */
#include "core/undo/undo_priv.h"
#include "core/base/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool in_log(const struct undo *u, uint64_t b)
{
	uint64_t off = b << u->blocklog;

	return u->log_len && off + u->bs > u->log_off &&
	       off < u->log_off + u->log_len;
}

uint64_t uref_copy_of(struct undo *u, uint64_t d, uint32_t crc,
		      uint64_t wfirst, uint64_t wlast)
{
	uint32_t k = cm_get(&u->srcmv, d);
	const struct umove *m;
	uint64_t c;

	if (!k || d == 0 || in_log(u, d))
		return UINT64_MAX;
	m = &u->mv[k - 1];
	if (m->nocopy)
		return UINT64_MAX;
	c = m->dst + (d - m->src);
	/* the copy: this move's, written whole, unchanged, not about to be
	 * written, holding no other reference's original */
	if ((c >= wfirst && c <= wlast) || cm_get(&u->cpmv, c) != k ||
	    !bm_test(&u->wrote, c) || bm_test(&u->partial, c) ||
	    bm_test(&u->refcopy, c) || ((c + 1) << u->blocklog) > u->size ||
	    u->mvcrc[m->crc0 + (d - m->src)] != crc ||
	    cm_get(&u->crc, c) != crc)
		return UINT64_MAX;
	return c;
}

int uref_flush(struct undo *u, struct err *e)
{
	uint32_t len = u->reflen;
	int ret;

	if (!len)
		return 0;
	u->reflen = 0;
	ret = undo_append_meta(u, OD_UNDO_REFS, u->refbuf, len, e);
	if (ret == 0)
		u->refbytes += len;
	return ret;
}

int uref_add(struct undo *u, uint64_t d, uint64_t c, uint32_t n,
	     uint32_t crc, struct err *e)
{
	uint64_t i;
	int ret = 0;

	if (u->reflen + OD_UNDO_REF_ENT > UNDO_REC_DATA)
		ret = uref_flush(u, e);
	if (ret)
		return ret;
	if (array_grow((void **)&u->rf, &u->caprf, u->nrf, sizeof(*u->rf),
		       256))
		goto nomem;
	if (u->nrf >= UINT32_MAX - 1)
		goto nomem;
	for (i = 0; i < n; i++)
		if (cm_set(&u->refat, c + i, (uint32_t)u->nrf + 1))
			goto nomem;
	u->rf[u->nrf] = (struct uref){ d, c, n, crc, true };
	if (bm_set(&u->done, d, n) || bm_set(&u->refcopy, c, n))
		goto nomem;
	for (i = 0; i < n; i++)
		if (cm_set(&u->refof, d + i, (uint32_t)u->nrf + 1))
			goto nomem;
	u->nrf++;
	od_undo_ref_encode(&(struct od_undo_ref){ d, c, n, crc },
			   u->refbuf + u->reflen);
	u->reflen += OD_UNDO_REF_ENT;
	/* a copy written since the last flush: flush before d is written */
	for (i = 0; i < n; i++)
		if (cm_get(&u->wgen, c + i) >= u->gen)
			u->need_flush = true;
	return 0;
nomem:
	undo_fail(u, -ENOMEM, "bookkeeping");
	return undo_sticky(u, e);
}

/* Reference k gives way to a data record of its blocks, read at the copy. */
static int supersede(struct undo *u, size_t k, struct err *e)
{
	struct uref *r = &u->rf[k];
	uint64_t len = (uint64_t)r->n << u->blocklog, off = r->e << u->blocklog;
	uint8_t *data = u->buf + OD_UNDO_REC_LEN;
	uint64_t i;
	int ret;

	/* a pending entry must reach the file before what supersedes it */
	ret = uref_flush(u, e);
	if (ret)
		return ret;
	ret = img_pread(u->layer->lower, data, (size_t)len, off);
	if (ret)
		return err_set(e, ret, "undo: reading image bytes %llu..%llu "
			       "(the copy of blocks %llu+%u) failed: %s",
			       (unsigned long long)off,
			       (unsigned long long)(off + len - 1),
			       (unsigned long long)r->d, r->n, strerror(-ret));
	if (od_undo_crc(data, (size_t)len) != r->crc) {
		undo_fail(u, -EIO, "a reference's copy changed under it: "
			  "keeping the original");
		return undo_sticky(u, e);
	}
	for (i = 0; i < r->n; i++)
		if (bm_clear(&u->refcopy, r->e + i) ||
		    cm_set(&u->refat, r->e + i, 0)) {
			undo_fail(u, -ENOMEM, "bookkeeping");
			return undo_sticky(u, e);
		}
	for (i = 0; i < r->n; i++)
		if (cm_set(&u->refof, r->d + i, 0)) {
			undo_fail(u, -ENOMEM, "bookkeeping");
			return undo_sticky(u, e);
		}
	r->live = false;
	return undo_put_data(u, r->d, r->n, len, e);
}

int uref_supersede_range(struct undo *u, uint64_t first, uint64_t last,
			 bool *any, struct err *e)
{
	uint64_t b;
	int ret = 0;

	for (b = bm_next(&u->refcopy, first); b <= last && b < u->nblocks &&
	     !ret; b = bm_next(&u->refcopy, b + 1)) {
		uint32_t k = cm_get(&u->refat, b);

		if (!k || k > u->nrf || !u->rf[k - 1].live) {
			undo_fail(u, -EINVAL, "reference bookkeeping");
			return undo_sticky(u, e);
		}
		if (u->sealed)
			return err_set(e, -EINVAL, "undo file %s is sealed: "
				       "image block %llu holds a reference's "
				       "copy", u->path, (unsigned long long)b);
		ret = supersede(u, k - 1, e);
		*any = true;
	}
	return ret;
}

int uref_seal(struct undo *u, struct err *e)
{
	size_t k;
	uint64_t i;
	int ret = 0;

	for (k = 0; k < u->nrf && !ret; k++) {
		const struct uref *r = &u->rf[k];
		bool kept = r->live;

		for (i = 0; kept && i < r->n; i++)
			kept = !u->free_end_known ||
			       !bm_test(&u->free_end, r->e + i);
		if (r->live && !kept)
			ret = supersede(u, k, e);
	}
	return ret;
}

void uref_free(struct undo *u)
{
	cm_free(&u->refat);
	cm_free(&u->refof);
	bm_free(&u->refcopy);
	cm_free(&u->srcmv);
	cm_free(&u->cpmv);
	cm_free(&u->wgen);
	free(u->rf);
	free(u->refbuf);
}
