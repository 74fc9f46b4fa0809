/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A whole disk given where a filesystem was expected: say which of its
 * partitions hold XFS and how to name one, instead of "not XFS".
 */
#include "core/fs/wholedisk.h"
#include "core/base/probe.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define MAXPARTS 128

struct buf {
	char s[500];
	size_t n;
};

static void add(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (b->n >= sizeof(b->s) - 1)
		return;
	va_start(ap, fmt);
	r = vsnprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		b->n += (size_t)r < sizeof(b->s) - b->n ? (size_t)r :
			sizeof(b->s) - 1 - b->n;
}

static void size_str(uint64_t bytes, char *out, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes / 1024.0;
	unsigned u = 0;

	while (v >= 1024.0 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(out, len, "%.1f %s", v, unit[u]);
}

int wholedisk_check(const char *path, struct err *e)
{
	struct probe_part parts[MAXPARTS];
	char pttype[32], sz[24], at[24];
	struct buf b = { .n = 0 };
	const struct probe_part *first = NULL;
	unsigned nxfs = 0;
	struct stat st;
	size_t n, i;

	if (probe_partitions(path, pttype, sizeof(pttype), parts, MAXPARTS,
			     &n) != 0 || n == 0)
		return 0;
	add(&b, "a whole disk (%s partition table), not a filesystem: ",
	    pttype);
	for (i = 0; i < n && i < MAXPARTS; i++) {
		const struct probe_part *p = &parts[i];

		size_str(p->size, sz, sizeof(sz));
		size_str(p->start, at, sizeof(at));
		add(&b, "%spartition %u: %s (%s at %s)", i ? ", " : "",
		    p->partno, strcmp(p->fstype, "xfs") == 0 ? "XFS" :
		    p->fstype[0] ? p->fstype : "no signature", sz, at);
		if (strcmp(p->fstype, "xfs") == 0 && nxfs++ == 0)
			first = p;
	}
	if (n > MAXPARTS)
		add(&b, ", and %zu more", n - MAXPARTS);
	if (!first)
		add(&b, "; no partition holds XFS");
	else if (first->dev[0])
		add(&b, "; name the partition: --partition %u, or its device "
		    "%s", first->partno, first->dev);
	else if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		/* the kernel did not make its nodes (no partscan, or no
		 * parser for this table): partx adds them */
		add(&b, "; name the partition: --partition %u (or 'partx -a "
		    "%s' adds its device, %s%s%u)", first->partno, path, path,
		    path[0] && isdigit((unsigned char)path[strlen(path) - 1]) ?
		    "p" : "", first->partno);
	else
		add(&b, "; name the partition: --partition %u", first->partno);
	return err_set(e, -EMEDIUMTYPE, "%s: %s", path, b.s);
}

int wholedisk_part(const char *path, unsigned partno,
		   struct wholedisk_part *p, struct err *e)
{
	struct probe_part parts[MAXPARTS];
	char pttype[32];
	struct buf b = { .n = 0 };
	size_t n, i;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = probe_partitions(path, pttype, sizeof(pttype), parts, MAXPARTS,
			       &n);
	if (ret)
		return err_set(e, ret, "%s: cannot read its partition table: "
			       "%s", path, strerror(-ret));
	if (n == 0)
		return err_set(e, -EMEDIUMTYPE, "%s: no partition table, so "
			       "no partition %u (name the filesystem without "
			       "--partition)", path, partno);
	for (i = 0; i < n && i < MAXPARTS; i++) {
		if (parts[i].partno != partno) {
			add(&b, "%s%u", b.n ? ", " : "", parts[i].partno);
			continue;
		}
		p->off = parts[i].start;
		p->len = parts[i].size;
		snprintf(p->fstype, sizeof(p->fstype), "%s", parts[i].fstype);
		snprintf(p->dev, sizeof(p->dev), "%s", parts[i].dev);
		if (p->fstype[0] && strcmp(p->fstype, "xfs") != 0)
			return err_set(e, -EMEDIUMTYPE, "%s: partition %u "
				       "holds %s, not XFS", path, partno,
				       p->fstype);
		if (p->len == 0)
			return err_set(e, -EMEDIUMTYPE, "%s: partition %u is "
				       "empty (0 bytes)", path, partno);
		return 0;
	}
	return err_set(e, -EMEDIUMTYPE, "%s: its %s partition table has no "
		       "partition %u (it has %s%s)", path, pttype, partno,
		       b.s, n > MAXPARTS ? ", ..." : "");
}
