/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checker's problem logs: one per AG (one writer at a time) and one
 * for the whole filesystem; messages kept up to a limit, all counted. */
#include "core/check/check_int.h"
#include "core/base/array.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kept message: its code (two bytes, high first), its text, a NUL. */
#define CODE_LEN	2

/* Keep message msg (code, text, NUL: n bytes); it is counted already. */
static void keep(struct check_log *l, const char *msg, size_t n)
{
	if (array_reserve((void **)&l->buf, &l->cap, l->len + n, 1, 4096))
		return;		/* counted, not kept */
	memcpy(l->buf + l->len, msg, n);
	l->len += n;
}

void check_log_add(struct check_log *l, enum check_code code,
		   const char *fmt, ...)
{
	char msg[514];
	va_list ap;

	l->count++;
	if (l->count > CHECK_LOG_KEEP)
		return;
	msg[0] = (char)((unsigned)code >> 8);
	msg[1] = (char)((unsigned)code & 0xff);
	va_start(ap, fmt);
	vsnprintf(msg + CODE_LEN, sizeof(msg) - CODE_LEN, fmt, ap);
	va_end(ap);
	keep(l, msg, CODE_LEN + strlen(msg + CODE_LEN) + 1);
}

/* Messages of in from message *k (at byte *off) while *k < upto, into
 * out as check_log_add logs them. */
static void copy(struct check_log *out, const struct check_log *in,
		 size_t *off, uint64_t *k, uint64_t upto)
{
	while (*k < upto && *off + CODE_LEN < in->len) {
		const char *msg = in->buf + *off;
		size_t n = CODE_LEN + strlen(msg + CODE_LEN) + 1;

		if (++out->count <= CHECK_LOG_KEEP)
			keep(out, msg, n);
		*off += n;
		++*k;
	}
}

void check_log_splice(struct check_log *l, size_t n, const uint64_t *at,
		      void (*emit)(void *priv, size_t i,
				   struct check_log *out),
		      void *priv)
{
	struct check_log out = { 0 };
	uint64_t k = 0;
	size_t off = 0, i;

	if (!n)
		return;
	for (i = 0; i < n; i++) {
		copy(&out, l, &off, &k, at[i]);
		emit(priv, i, &out);
	}
	copy(&out, l, &off, &k, UINT64_MAX);
	/* and those l counted, not kept */
	out.count += l->count - k;
	check_log_free(l);
	*l = out;
}

void check_log_deliver(const struct check_log *l, check_report_fn fn,
		       void *priv, struct check_result *res)
{
	size_t off = 0;

	while (off + CODE_LEN < l->len) {
		const uint8_t *p = (const uint8_t *)l->buf + off;
		enum check_code code = (enum check_code)(p[0] << 8 | p[1]);
		const struct check_problem_info *pi = check_problem_lookup(code);
		struct check_msg m;

		m.code = code;
		m.name = pi ? pi->name : "unknown";
		m.structure = pi ? pi->structure : "unknown";
		m.text = (const char *)p + CODE_LEN;
		fn(priv, &m);
		off += CODE_LEN + strlen(m.text) + 1;
	}
	res->problems += l->count;
}

void check_note_lsn(struct check_lsn *m, uint64_t lsn, const char *fmt, ...)
{
	va_list ap;

	/* NULLCOMMITLSN (all ones) stands for "no LSN" */
	if (lsn == UINT64_MAX || lsn <= m->lsn)
		return;
	m->lsn = lsn;
	va_start(ap, fmt);
	vsnprintf(m->what, sizeof(m->what), fmt, ap);
	va_end(ap);
}

void check_lsn_verdict(struct check_ctx *c)
{
	const struct fs *fs = c->fs;
	const struct check_lsn *max = &c->lsn;
	uint32_t a, cyc, blk;

	if (!c->g->v5 || !fs->log_head_known)
		return;
	for (a = 0; a < c->m->agcount; a++)
		if (c->cag[a].lsn.lsn > max->lsn)
			max = &c->cag[a].lsn;
	cyc = (uint32_t)(max->lsn >> 32);
	blk = (uint32_t)max->lsn;
	/* xfs_repair: safe only when strictly behind the head */
	if (max->lsn && (cyc > fs->log_head_cycle ||
			 (cyc == fs->log_head_cycle &&
			  blk >= fs->log_head_block)))
		check_problem(&c->glog, SB_LSN, max->what, cyc, blk,
			      fs->log_head_cycle, fs->log_head_block);
}

void check_log_free(struct check_log *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}
