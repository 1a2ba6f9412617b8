#include "tracejson.h"

#include "value.h"

static ot_value *strings(ot_arena *a, const ot_strvec *v)
{
	ot_value *l = ot_v_list(a);
	for (size_t i = 0; i < v->len; i++)
		ot_v_push(a, l, ot_v_str_borrow(a, v->items[i]));
	return l;
}

static ot_value *step_value(ot_arena *a, const ot_step *s)
{
	ot_value *m = ot_v_map(a);
	ot_v_set_str(a, m, "layer", ot_layer_name(s->layer));
	ot_v_set(a, m, "file", s->found ? ot_v_str_borrow(a, s->file) : ot_v_null(a));
	ot_v_set(a, m, "line", s->found ? ot_v_int(a, s->line) : ot_v_null(a));
	ot_v_set(a, m, "symbol", ot_v_str_borrow(a, s->symbol));
	ot_v_set(a, m, "note", ot_v_str_borrow(a, s->note));
	ot_v_set(a, m, "op", ot_v_str_borrow(a, s->op));
	ot_v_set(a, m, "backend", ot_v_str_borrow(a, s->backend));
	ot_v_set_int(a, m, "depth", s->depth);
	ot_v_set_int(a, m, "parent", s->parent);
	return m;
}

static ot_value *op_value(ot_arena *a, const ot_trace *tr)
{
	ot_value *m = ot_v_map(a), *steps = ot_v_list(a), *be = ot_v_map(a), *sel = ot_v_list(a);
	bool named = tr->target.canonical[0] != '\0';
	ot_v_set_str(a, m, "input", tr->input);
	ot_v_set(a, m, "name", named ? ot_v_str(a, tr->target.canonical) : ot_v_null(a));
	ot_v_set(a, m, "slug", named ? ot_v_str(a, tr->target.slug) : ot_v_null(a));
	ot_v_set(a, m, "page", named ? ot_v_strf(a, "ops/%s.md", tr->target.slug) : ot_v_null(a));
	ot_v_set_str(a, m, "status", ot_status_name(tr->status));
	ot_v_set(a, m, "strategy", named ? ot_v_str(a, ot_strategy_id(tr->target.strategy)) : ot_v_null(a));
	ot_v_set(a, m, "aten", strings(a, &tr->aten));
	for (size_t i = 0; i < tr->steps.len; i++)
		ot_v_push(a, steps, step_value(a, &tr->steps.items[i]));
	ot_v_set(a, m, "steps", steps);
	ot_v_set(a, be, "keys", strings(a, &tr->backends));
	ot_v_set(a, be, "gpu", strings(a, &tr->gpu_libs));
	for (size_t i = 0; i < tr->selection.len; i++) {
		ot_value *s = ot_v_map(a);
		ot_v_set_str(a, s, "symbol", tr->selection.items[i].symbol);
		ot_v_set_str(a, s, "file", tr->selection.items[i].file);
		ot_v_set_int(a, s, "line", tr->selection.items[i].line);
		ot_v_push(a, sel, s);
	}
	ot_v_set(a, be, "selection", sel);
	ot_v_set(a, m, "backends", be);
	ot_v_set(a, m, "calls", strings(a, &tr->calls));
	ot_v_set(a, m, "messages", strings(a, &tr->messages));
	ot_v_set(a, m, "suggestions", strings(a, &tr->suggestions));
	return m;
}

void ot_tracejson_write(ot_buf *out, const ot_release *rel, ot_trace *const *traces, size_t n)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = ot_v_map(a), *tool = ot_v_map(a), *pt = ot_v_map(a), *ops = ot_v_list(a);

	ot_v_set_int(a, root, "schema_version", OT_TRACEJSON_SCHEMA);
	ot_v_set_str(a, tool, "name", "optrace");
	ot_v_set_str(a, tool, "version", OPTRACE_VERSION);
	ot_v_set(a, root, "tool", tool);
	ot_v_set_str(a, pt, "version", rel->version);
	ot_v_set(a, pt, "tag", rel->tag ? ot_v_str(a, rel->tag) : ot_v_null(a));
	ot_v_set_str(a, pt, "commit", rel->commit);
	ot_v_set_bool(a, pt, "verified", rel->verified);
	ot_v_set(a, root, "pytorch", pt);
	for (size_t i = 0; i < n; i++)
		ot_v_push(a, ops, op_value(a, traces[i]));
	ot_v_set(a, root, "ops", ops);
	ot_v_to_json(out, root, 2);
	ot_arena_free(a);
}
