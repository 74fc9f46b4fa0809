/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd/rbfmt.h"

#include <stdio.h>

int rbfmt_measure(const struct model *m, enum walk_order o,
		  struct rb_fig *f, struct err *e)
{
	struct walk w;
	int ret = walk_build(m, o, &w, e);

	if (ret)
		return ret;
	ret = readback_model(&w, NULL, NULL, f, e);
	walk_free(&w);
	return ret;
}

static const char *reader(enum walk_order o)
{
	switch (o) {
	case WALK_READDIR: return "readdir order, as find | xargs cat";
	case WALK_NAME: return "name order, as ls -R, rsync, tar --sort=name";
	case WALK_INODE: return "inode order, as bulkstat";
	}
	return "?";
}

void rbfmt_section(const struct rb_fig *f, enum walk_order o)
{
	printf("\n== Read-back cost (%s)\n", reader(o));
	printf("read %llu directories and %llu files: %.1f MiB (%.1f MiB of "
	       "blocks, %llu inode clusters) in %llu accesses\n",
	       (unsigned long long)f->dirs, (unsigned long long)f->files,
	       (double)f->bytes / 1048576.0,
	       (double)f->data_bytes / 1048576.0,
	       (unsigned long long)f->clusters,
	       (unsigned long long)f->accesses);
	printf("jumps %llu, far (> 1 MiB) %llu; modelled 7200 rpm read "
	       "%.2f s (%.1f MB/s); SSD requests %llu\n",
	       (unsigned long long)f->jumps, (unsigned long long)f->far_jumps,
	       f->hdd_seconds, f->hdd_seconds > 0 ?
	       (double)f->bytes / 1e6 / f->hdd_seconds : 0.0,
	       (unsigned long long)f->requests);
	printf("metadata walk (every inode cluster and directory block, no "
	       "file data, as du or ls -lR): %.1f MiB in %llu accesses; "
	       "modelled 7200 rpm %.2f s; SSD requests %llu\n",
	       (double)f->meta.bytes / 1048576.0,
	       (unsigned long long)f->meta.accesses, f->meta.hdd_seconds,
	       (unsigned long long)f->meta.requests);
}

void rbfmt_rows(const struct rb_fig *a, const struct rb_fig *b,
		enum walk_order o)
{
	printf("read-back in %s order:\n", walk_order_name(o));
	printf("%-34s %14llu %14llu\n", "  jumps",
	       (unsigned long long)a->jumps, (unsigned long long)b->jumps);
	printf("%-34s %14llu %14llu\n", "  far jumps (> 1 MiB)",
	       (unsigned long long)a->far_jumps,
	       (unsigned long long)b->far_jumps);
	printf("%-34s %13.2fs %13.2fs\n", "  modelled 7200 rpm read",
	       a->hdd_seconds, b->hdd_seconds);
	printf("%-34s %14llu %14llu\n", "  SSD requests (<= 1 MiB)",
	       (unsigned long long)a->requests,
	       (unsigned long long)b->requests);
	printf("%-34s %13.2fs %13.2fs\n", "  metadata walk, 7200 rpm",
	       a->meta.hdd_seconds, b->meta.hdd_seconds);
	printf("%-34s %14llu %14llu\n", "  metadata walk, SSD requests",
	       (unsigned long long)a->meta.requests,
	       (unsigned long long)b->meta.requests);
	printf("%-34s %14llu %14llu\n", "  data read out of disk order",
	       (unsigned long long)a->out_of_order,
	       (unsigned long long)b->out_of_order);
}

void rbfmt_json(struct json *j, const char *key, const struct rb_fig *f,
		enum walk_order o)
{
	json_obj_begin(j, key);
	json_str(j, "order", walk_order_name(o));
	json_u64(j, "dirs", f->dirs);
	json_u64(j, "files", f->files);
	json_u64(j, "bytes", f->bytes);
	json_u64(j, "data_bytes", f->data_bytes);
	json_u64(j, "inode_clusters", f->clusters);
	json_u64(j, "accesses", f->accesses);
	json_u64(j, "jumps", f->jumps);
	json_u64(j, "far_jumps", f->far_jumps);
	json_f2(j, "hdd_ms", f->hdd_seconds * 1e3);
	json_u64(j, "ssd_requests", f->requests);
	json_u64(j, "out_of_order", f->out_of_order);
	json_u64(j, "hdd_seeks", f->hdd_seeks);
	json_u64(j, "hdd_cache_hits", f->hdd_hits);
	json_obj_begin(j, "metadata");
	json_u64(j, "accesses", f->meta.accesses);
	json_u64(j, "bytes", f->meta.bytes);
	json_f2(j, "hdd_ms", f->meta.hdd_seconds * 1e3);
	json_u64(j, "ssd_requests", f->meta.requests);
	json_u64(j, "hdd_seeks", f->meta.seeks);
	json_u64(j, "hdd_cache_hits", f->meta.hits);
	json_obj_end(j);
	json_obj_end(j);
}
