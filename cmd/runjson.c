/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run --json: the passes, what is left, and the figures before and after
 * in the names report --json and plan --json use (xfsdefrag(8), "JSON").
 */
#include "cmd/json.h"
#include "cmd/rbfmt.h"
#include "cmd/runout.h"
#include "cmd/cmd.h"
#include "cmd/verdict.h"
#include "core/model/frag.h"

static double pct(uint64_t a, uint64_t b)
{
	return b ? (double)a * 100.0 / (double)b : 0.0;
}

static void figures(struct json *j, const char *key, const struct report *r,
		    const struct rb_fig *rb, enum walk_order o)
{
	uint32_t g;

	if (!r) {
		json_null(j, key);
		return;
	}
	json_obj_begin(j, key);
	json_u64(j, "extents", r->frag_actual);
	json_u64(j, "frag_ideal", r->frag_ideal);
	json_f2(j, "frag_factor_pct", frag_factor(r->frag_actual,
						  r->frag_ideal));
	json_u64(j, "files_multi_extent", r->files_multi);
	json_u64(j, "data_extents", r->data_extents);
	json_u64(j, "free_extents", r->freesp.extents);
	json_u64(j, "free_blocks", r->freesp.blocks);
	json_u64(j, "distance_median", r->dist_first.median);
	json_u64(j, "distance_p90", r->dist_first.p90);
	json_u64(j, "distance_max", r->dist_first.max);
	rbfmt_json(j, "readback", rb, o);
	json_arr_begin(j, "ags");
	for (g = 0; g < r->nag; g++) {
		const struct rpt_ag *a = &r->ag[g];

		json_obj_begin(j, NULL);
		json_u64(j, "ag", a->agno);
		json_u64(j, "free_blocks", a->free_blocks);
		json_u64(j, "free_extents", a->nfree);
		json_u64(j, "longest_free", a->longest);
		json_f2(j, "longest_free_pct", pct(a->longest,
						   a->free_blocks));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void run_json(const struct run_opts *o, const struct cmd_limits *l,
	      const struct run_result *r, double seconds,
	      const struct cmd_call *c)
{
	struct json j;
	size_t i;
	uint32_t g;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_u64(&j, "schema_version", 1);
	json_str(&j, "image", o->image);
	json_str(&j, "order", walk_order_name(o->po.order));
	json_obj_begin(&j, "limits");
	if (l->nagv) {
		json_arr_begin(&j, "ags");
		for (i = 0; i < l->nagv; i++)
			json_u64(&j, NULL, l->agv[i]);
		json_arr_end(&j);
	} else {
		json_null(&j, "ags");
	}
	json_arr_begin(&j, "paths");
	for (i = 0; i < l->npaths; i++)
		json_str(&j, NULL, l->paths[i]);
	json_arr_end(&j);
	json_u64(&j, "min_extents", l->min_extents);
	if (l->max_rate > 0)
		json_f2(&j, "max_rate_mib_s", l->max_rate);
	else
		json_null(&j, "max_rate_mib_s");
	if (o->max_time > 0)
		json_f2(&j, "max_time_s", o->max_time);
	else
		json_null(&j, "max_time_s");
	json_bool(&j, "by_ag", o->by_ag);
	json_obj_end(&j);
	json_arr_begin(&j, "passes");
	for (i = 0; i < r->npass; i++) {
		const struct run_pass *p = &r->pass[i];

		json_obj_begin(&j, NULL);
		json_u64(&j, "pass", p->n);
		json_str(&j, "scope", p->what);
		json_u64(&j, "moved_blocks", p->moved_blocks);
		json_u64(&j, "inodes_renumbered", p->renumbered);
		json_u64(&j, "copied_bytes", p->st.bytes_copied);
		json_u64(&j, "remapped_blocks", p->st.blocks_remapped);
		json_u64(&j, "image_writes", p->st.writes);
		json_u64(&j, "journal_bytes", p->st.journal_bytes);
		json_f2(&j, "seconds", p->seconds);
		json_f2(&j, "copy_mib_s", p->st.ns_copy ?
			(double)p->st.bytes_copied / 1048576.0 /
			((double)p->st.ns_copy / 1e9) : 0.0);
		json_str(&j, "undo_file", p->undo);
		json_bool(&j, "verified", true);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_u64(&j, "npasses", r->npass);
	json_bool(&j, "complete", r->status == RUN_OK && !r->left_blocks);
	json_bool(&j, "stopped_by_max_time", r->stopped && !r->stop_signal);
	if (r->stop_signal)
		json_u64(&j, "stopped_by_signal", (uint64_t)r->stop_signal);
	else
		json_null(&j, "stopped_by_signal");
	json_obj_begin(&j, "left");
	json_u64(&j, "moved_blocks", r->left_blocks);
	json_arr_begin(&j, "ags");
	for (g = 0; r->left_ags && g < r->agcount; g++)
		if (r->left_ags[g])
			json_u64(&j, NULL, g);
	json_arr_end(&j);
	json_obj_end(&j);
	json_f2(&j, "seconds", seconds);
	json_bool(&j, "written", r->npass > 0 || r->failed_pass);
	if (r->judged)
		cmd_verdict_json(&j, &r->verdict);
	else
		json_null(&j, "verdict");	/* --force: not judged */
	figures(&j, "before", r->have_before ? &r->before : NULL,
		&r->rb_before, o->po.order);
	figures(&j, "after", r->have_after ? &r->after : NULL, &r->rb_after,
		o->po.order);
	if (r->shrink.dblocks) {
		json_obj_begin(&j, "shrink");
		json_u64(&j, "dblocks_before", r->dblocks_before);
		json_u64(&j, "agcount_before", r->agcount_before);
		json_u64(&j, "dblocks", r->shrink.dblocks);
		json_u64(&j, "agcount", r->shrink.agcount);
		json_u64(&j, "last_ag_blocks", r->shrink.last_len);
		json_u64(&j, "bytes", r->shrink.dblocks * r->blocksize);
		json_bool(&j, "min", o->shrink_min);
		if (o->shrink_min) {
			json_u64(&j, "sizes_planned", r->min_tries);
			json_u64(&j, "blocks_in_use_before", r->min_floor);
		}
		json_bool(&j, "log_moved", r->shrink.logstart != 0);
		json_u64(&j, "image_bytes_before", r->image_before);
		json_bool(&j, "image_truncated", r->truncated);
		json_bool(&j, "block_device", r->blockdev);
		json_obj_end(&j);
	}
	if (o->discard) {
		json_obj_begin(&j, "discard");
		json_bool(&j, "done", r->discarded);
		json_u64(&j, "bytes", r->discard_bytes);
		json_u64(&j, "extents", r->discard_extents);
		if (r->have_alloc) {
			json_u64(&j, "allocated_before", r->alloc_before);
			json_u64(&j, "allocated_after", r->alloc_after);
		}
		json_obj_end(&j);
	}
	cmd_json_failure(&j, c);
	json_obj_end(&j);
	json_end(&j);
}
