/*
 * trace_steps.c - the first-reach view of a trace (trace.json's `steps`):
 * the graph walked depth-first from the roots, each node once, where it is
 * first reached, with the call sites worth a step of their own (a bridge
 * into C++, a branch to another op, a stub call, a registration) before the
 * node they lead to. Each step carries the main paths it is on and the
 * condition it runs under.
 *
 * Two walks: the first follows main edges only, so that a node on a main
 * path is reached from it; the second adds every side edge, below the node
 * it leaves (a node only a side edge reaches gets its step there).
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

struct view {
	ot_trace *tr;
	bool main_only;       /* the first walk */
	int *step_of;         /* node -> its step, or -1 */
	const char **when_of; /* node -> the condition it was reached under */
	uint8_t *side_done;   /* node -> its side edges were walked */
};

static int push(struct view *v, const ot_step *s)
{
	ot_vec_push(&v->tr->steps, *s);
	return (int)v->tr->steps.len - 1;
}

/* The layer of the step a site of edge `e` gets. */
static ot_layer site_layer(const ot_trace *tr, const ot_edge *e)
{
	switch (e->kind) {
	case OT_EDGE_BRIDGE:
		return OT_LAYER_BRIDGE;
	case OT_EDGE_STUB:
	case OT_EDGE_REGISTER:
		return OT_LAYER_STUB;
	case OT_EDGE_CALL:
		return tr->nodes.items[e->from].kind == OT_NODE_PYFUNC ? OT_LAYER_PYTHON : OT_LAYER_CPP;
	default:
		return OT_LAYER_CPP;
	}
}

/* The step of `node`: `when` is what it was reached under; on a main path
 * only the run-time selection of a main edge is kept. */
static void node_step(struct view *v, uint32_t node, int parent, const char *when,
		      const char *note, bool main_edge)
{
	const ot_node *n = &v->tr->nodes.items[node];
	ot_step s = {0};
	s.layer = (ot_layer)n->layer;
	s.found = n->found;
	s.file = n->file;
	s.line = n->line;
	s.symbol = n->symbol;
	s.note = note ? note : n->note;
	s.op = n->op;
	s.backend = n->backend;
	s.depth = n->depth;
	s.parent = parent;
	s.main = n->main;
	s.when = !n->main || main_edge ? when : NULL;
	v->step_of[node] = push(v, &s);
	v->when_of[node] = s.when;
	if (n->kind == OT_NODE_STUB && n->def_file) {
		ot_step d = s;
		d.file = n->def_file;
		d.line = n->def_line;
		d.note = "DEFINE_DISPATCH: the stub's storage";
		d.parent = v->step_of[node];
		push(v, &d);
	}
}

static void visit(struct view *v, uint32_t node, int parent, const char *when, const char *note,
		  bool main_edge);

/* The steps of the edges leaving `node` (whose step is `parent`): main ones
 * in the first walk, side ones in the second. */
static void walk_edges(struct view *v, uint32_t node, int parent, const char *when)
{
	ot_trace *tr = v->tr;
	ot_trace_iter it;
	const ot_edge *e;
	ot_trace_edges(&it, tr, node, 0, 0);
	while (ot_trace_next(&e, &it) == 0) {
		const ot_node *to = &tr->nodes.items[e->to];
		bool main_edge = e->main != 0;
		const char *ew;
		int at = parent;
		if (main_edge != v->main_only)
			continue;
		ew = main_edge ? e->when : e->when ? e->when : when;
		if (e->site_step && e->site_file) {
			ot_step s = {0};
			s.layer = site_layer(tr, e);
			s.found = true;
			s.file = e->site_file;
			s.line = e->site_line;
			s.symbol = e->site_symbol ? e->site_symbol : to->symbol;
			s.note = e->site_note ? e->site_note : "";
			s.op = tr->nodes.items[e->from].op;
			s.backend = e->kind == OT_EDGE_REGISTER && e->key ? e->key : "";
			s.depth = tr->nodes.items[e->from].depth;
			s.parent = parent;
			s.main = e->main;
			s.when = ew;
			at = push(v, &s);
		}
		if (e->to == e->from)
			continue; /* a registration without a kernel */
		visit(v, e->to, at, ew, e->kind == OT_EDGE_DELEGATE ? e->site_note : NULL, main_edge);
	}
}

static void visit(struct view *v, uint32_t node, int parent, const char *when, const char *note,
		  bool main_edge)
{
	if (v->step_of[node] < 0) {
		node_step(v, node, parent, when, note, main_edge);
		if (v->main_only) {
			walk_edges(v, node, v->step_of[node], v->when_of[node]);
			return;
		}
	}
	if (v->main_only || v->side_done[node])
		return;
	v->side_done[node] = 1;
	walk_edges(v, node, v->step_of[node], v->when_of[node]);
	/* the side edges of what its main edges reach */
	{
		ot_trace_iter it;
		const ot_edge *e;
		ot_trace_edges(&it, v->tr, node, 0, OT_MAIN_CPU | OT_MAIN_CUDA);
		while (ot_trace_next(&e, &it) == 0)
			if (e->to != e->from)
				visit(v, e->to, v->step_of[e->to], NULL, NULL, true);
	}
}

void ot_trace_make_steps(ot_trace *tr)
{
	struct view v = {tr, true, NULL, NULL, NULL};
	size_t n = tr->nodes.len;
	tr->steps.len = 0;
	if (!n)
		return;
	if (!tr->out_start)
		ot_trace_index(tr);
	v.step_of = ot_calloc(n, sizeof(*v.step_of));
	v.when_of = ot_calloc(n, sizeof(*v.when_of));
	v.side_done = ot_calloc(n, 1);
	for (size_t i = 0; i < n; i++)
		v.step_of[i] = -1;
	for (size_t r = 0; r < tr->main_roots && r < tr->roots.len; r++)
		visit(&v, tr->roots.items[r], -1, NULL, NULL, true);
	v.main_only = false;
	for (size_t r = 0; r < tr->roots.len; r++)
		visit(&v, tr->roots.items[r], -1,
		      r < tr->main_roots ? NULL : "another overload of the op (called with other arguments)",
		      NULL, r < tr->main_roots);
	/* nodes no root reaches (none, unless a builder left one): at the end */
	for (size_t i = 0; i < n; i++)
		visit(&v, (uint32_t)i, -1, NULL, NULL, false);
	free(v.step_of);
	free(v.when_of);
	free(v.side_done);
}
