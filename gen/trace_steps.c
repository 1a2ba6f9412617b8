/*
 * trace_steps.c - the first-reach view of a trace (trace.json's `steps`):
 * the graph walked depth-first from the roots, each node once, where it is
 * first reached, with the call sites worth a step of their own (a bridge
 * into C++, a branch to another op, a stub call, a registration) before the
 * node they lead to. Each step carries the main paths it is on, those where
 * every default call runs it, and the condition it runs under.
 *
 * Four walks, so that a node gets its step from the surest edge that
 * reaches it: the first follows the edges every default call takes (sure),
 * the second adds the main edges a call takes for some arguments, the third
 * the backward (derivative edges on a main path), the fourth every side
 * edge; a forward step is never placed under the backward. Each later walk starts again from the roots and goes
 * through the steps already made to the edges of its own kind. Below an
 * edge with a condition, the steps it leads to carry that condition unless
 * they have their own.
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

enum walk { W_SURE, W_MAIN, W_BACK, W_SIDE };

struct view {
	ot_trace *tr;
	enum walk walk;
	int *step_of;         /* node -> its step, or -1 */
	const char **when_of; /* node -> the condition it was reached under */
	int8_t *walked;       /* node -> the last walk that followed its edges, or -1 */
	uint8_t *forward;     /* node -> the main paths whose forward reaches it */
	OT_VEC(int) site_edge; /* step -> the edge whose call site it is, or -1 */
};

/* The main paths whose forward part reaches each node: from the roots
 * along main edges other than derivatives. A node the CPU reaches only
 * through the backward (nll_loss2d's zero_) is not on the CPU's forward
 * path, though it is on the CPU's main path. */
static void forward_reach(const ot_trace *tr, uint8_t *fwd)
{
	bool changed = true;
	for (size_t r = 0; r < tr->main_roots && r < tr->roots.len; r++)
		fwd[tr->roots.items[r]] = tr->nodes.items[tr->roots.items[r]].main;
	while (changed) {
		changed = false;
		for (size_t i = 0; i < tr->edges.len; i++) {
			const ot_edge *e = &tr->edges.items[i];
			uint8_t m = e->main & fwd[e->from];
			if (e->kind == OT_EDGE_DERIVATIVE || (fwd[e->to] | m) == fwd[e->to])
				continue;
			fwd[e->to] |= m;
			changed = true;
		}
	}
}

static enum walk walk_of(const ot_edge *e)
{
	if (e->main && e->kind == OT_EDGE_DERIVATIVE)
		return W_BACK;
	return e->sure ? W_SURE : e->main ? W_MAIN : W_SIDE;
}

/* The condition under which edge e's source reaches its target through
 * it: the site's own, or, when the source makes that call in several arms
 * of one if chain, the condition of making one of them (NULL: always). */
static const char *callee_when(const ot_edge *e)
{
	/* an edge no default call takes shows why, whatever its siblings */
	bool by_guard = e->main && (e->when_kind == OT_WHEN_GUARD || e->when_kind == OT_WHEN_SELECT);
	return !e->arms_when || !by_guard ? e->when : *e->arms_when ? e->arms_when : NULL;
}

static int push(struct view *v, const ot_step *s)
{
	ot_vec_push(&v->tr->steps, *s);
	ot_vec_push(&v->site_edge, -1);
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

/* The condition of a decomposition node's own edge (the graph capture
 * that runs it), or `when` without one. */
static const char *decomposition_when(const ot_trace *tr, uint32_t node, const char *when)
{
	for (size_t i = 0; i < tr->edges.len; i++)
		if (tr->edges.items[i].kind == OT_EDGE_DECOMPOSES && tr->edges.items[i].to == node)
			return tr->edges.items[i].when;
	return when;
}

/* The step of `node`, reached under `when`. */
static void node_step(struct view *v, uint32_t node, int parent, const char *when, const char *note)
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
	/* a forward step: the main paths whose forward reaches it */
	s.main = v->walk == W_BACK || v->walk == W_SIDE ? n->main : n->main & v->forward[node];
	s.sure = n->sure & s.main;
	s.when = when;
	/* a decomposition registered for every overload of an op (aten.lerp,
	 * an OverloadPacket) runs under graph capture, whichever overload's
	 * walk reached it first */
	if (n->kind == OT_NODE_DECOMP && n->symbol && ot_starts_with(n->symbol, "aten.") &&
	    !strchr(n->symbol + 5, '.'))
		s.when = decomposition_when(v->tr, node, when);
	s.body = n->body;
	s.fails = n->fails;
	s.predicate = n->predicate;
	v->step_of[node] = push(v, &s);
	v->when_of[node] = s.when;
	if (n->kind == OT_NODE_STUB && n->def_file) {
		ot_step d = s;
		d.file = n->def_file;
		d.line = n->def_line;
		d.note = "DEFINE_DISPATCH: the stub's storage";
		d.body = NULL;
		d.fails = 0;
		d.predicate = false;
		d.parent = v->step_of[node];
		push(v, &d);
	}
}

static void visit(struct view *v, uint32_t node, int parent, const char *when, const char *note);

/* The steps of the edges of the current walk leaving `node` (whose step is
 * `parent`, reached under `when`). An edge every default call takes shows
 * only the run-time selection it depends on. */
static void walk_edges(struct view *v, uint32_t node, int parent, const char *when)
{
	ot_trace *tr = v->tr;
	ot_trace_iter it;
	const ot_edge *e;
	ot_trace_edges(&it, tr, node, 0, 0);
	while (ot_trace_next(&e, &it) == 0) {
		const ot_node *to = &tr->nodes.items[e->to];
		const char *ew, *to_when = callee_when(e), *tw;
		int at = parent;
		/* this walk's edges, and an earlier walk's that reach a node
		 * without a step yet (below a node this walk reached first) */
		if (walk_of(e) > v->walk || (walk_of(e) < v->walk && v->step_of[e->to] >= 0))
			continue;
		/* below a side path, its condition is what keeps the code off
		 * the main paths (a condition nested in it alone would read as
		 * if it were the only one) */
		ew = v->walk == W_SURE ? (e->when_kind == OT_WHEN_SELECT ? e->when : NULL)
		     : when && (!tr->nodes.items[e->from].main || !e->when ||
				ot_starts_with(e->when, OT_WHY_CALLER_OFF))
			     ? when
			     : e->when;
		/* the same for what it calls, under the condition of this call
		 * or of a sibling in another arm */
		tw = v->walk == W_SURE ? ew
		     : when && (!tr->nodes.items[e->from].main || !to_when ||
				ot_starts_with(to_when, OT_WHY_CALLER_OFF))
			     ? when
			     : to_when;
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
			s.sure = e->sure;
			s.when = ew;
			s.predicate = to->predicate; /* the call of a check is one too */
			at = push(v, &s);
			v->site_edge.items[at] = (int)(e - tr->edges.items);
		}
		if (e->to == e->from)
			continue; /* a registration without a kernel */
		visit(v, e->to, at, tw, e->kind == OT_EDGE_DELEGATE ? e->site_note : NULL);
	}
}

/* Give `node` its step if it has none, follow its edges of the current
 * walk, then go on to what its edges of earlier walks reach. */
static void visit(struct view *v, uint32_t node, int parent, const char *when, const char *note)
{
	ot_trace_iter it;
	const ot_edge *e;
	if (v->step_of[node] < 0)
		node_step(v, node, parent, when, note);
	if (v->walked[node] >= (int8_t)v->walk)
		return;
	v->walked[node] = (int8_t)v->walk;
	walk_edges(v, node, v->step_of[node], v->when_of[node]);
	ot_trace_edges(&it, v->tr, node, 0, 0);
	while (ot_trace_next(&e, &it) == 0)
		if (e->to != e->from && walk_of(e) < v->walk)
			visit(v, e->to, v->step_of[e->to], NULL, NULL);
}

size_t ot_when_core(const char *when)
{
	const char *w = strstr(when, OT_WHEN_WHERE);
	return w ? (size_t)(w - when) : strlen(when);
}

/* Are the an bytes at a "not (" and the bn at b and ")"? */
static bool negation_of(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn + 6 && !strncmp(a, "not (", 5) && !strncmp(a + 5, b, bn) && a[an - 1] == ')';
}

const char *ot_when_either(ot_arena *a, const char *w1, const char *w2)
{
	/* a quote of the local tested is the same on both sides, or neither
	 * side is the other's negation */
	const size_t n1 = ot_when_core(w1), n2 = ot_when_core(w2);
	const char *and1 = strstr(w1, " and ");
	if (strcmp(w1 + n1, w2 + n2))
		return NULL;
	if (negation_of(w1, n1, w2, n2) || negation_of(w2, n2, w1, n1))
		return "";
	for (; and1 && (size_t)(and1 - w1) < n1; and1 = strstr(and1 + 1, " and ")) {
		size_t p = (size_t)(and1 - w1);
		if (p + 5 > n2 || strncmp(w1, w2, p) || strncmp(w2 + p, " and ", 5))
			continue;
		if (negation_of(and1 + 5, n1 - p - 5, w2 + p + 5, n2 - p - 5) ||
		    negation_of(w2 + p + 5, n2 - p - 5, and1 + 5, n1 - p - 5))
			return ot_arena_strndup(a, w1, p);
	}
	/* an else-if after the first arm: "X" or "not (X) and Y" is X or Y */
	for (int k = 0; k < 2; k++) {
		const char *x = k ? w2 : w1, *y = k ? w1 : w2;
		size_t nx = k ? n2 : n1, ny = k ? n1 : n2;
		if (ny > nx + 11 && !strncmp(y, "not (", 5) && !strncmp(y + 5, x, nx) &&
		    !strncmp(y + 5 + nx, ") and ", 6))
			return ot_arena_printf(a, "%.*s or %s", (int)nx, x, y + nx + 11);
	}
	return NULL;
}

/*
 * A step shows the condition of the edge that reached its node first. When
 * another main edge reaches the node under no condition, or under the
 * negation of that one (cdist calls cdist_impl when p == 2 && ..., and
 * through _cdist_forward when not), the node runs either way: its step, and
 * the steps below it that inherited the condition, show what is left (none,
 * or the part both conditions share).
 */
static void reached_either_way(struct view *v)
{
	ot_trace *tr = v->tr;
	const char **old = ot_calloc(tr->steps.len + 1, sizeof(*old));
	for (size_t i = 0; i < tr->edges.len; i++) {
		const ot_edge *e = &tr->edges.items[i];
		int at = v->step_of[e->to], from = v->step_of[e->from];
		ot_step *s;
		const char *w2, *w;
		if (at < 0 || from < 0 || !e->main || e->kind == OT_EDGE_DERIVATIVE || e->to == e->from)
			continue;
		s = &tr->steps.items[at];
		if (!s->when || (e->main & s->main) != s->main)
			continue;
		w2 = callee_when(e) ? callee_when(e) : v->when_of[e->from];
		/* the parent's edge that made the step; another call site of the
		 * same parent (dispatch(...) in both arms of an if) counts */
		if (s->parent == from && w2 && !strcmp(w2, s->when))
			continue;
		w = w2 ? ot_when_either(tr->arena, s->when, w2) : "";
		if (!w)
			continue;
		if (!old[at])
			old[at] = s->when;
		/* the parent's own call sites in every arm (gelu's kernel calls
		 * cpu_kernel_vec whether or not approximate is tanh): the node
		 * runs whenever the parent does, under the parent's condition */
		if (!*w && s->parent == from && callee_when(e))
			w = v->when_of[e->from] ? v->when_of[e->from] : "";
		s->when = *w ? w : NULL;
	}
	for (size_t i = 0; i < tr->steps.len; i++) {
		ot_step *s = &tr->steps.items[i];
		int p = s->parent;
		if (p >= 0 && (size_t)p < i && old[p] && s->when == old[p]) {
			old[i] = s->when;
			s->when = tr->steps.items[p].when;
		}
	}
	free(old);
}

const char *ot_step_when(const ot_step *s, ot_device d)
{
	return s->split_when ? s->dev_when[d] : s->when;
}

/* What reaches a step's node on one device: under its step's condition,
 * under no condition, or else under the first other one seen. */
struct dev_reach {
	bool same, none;
	const char *other;
};

/*
 * A node on both main paths reached on each by other edges (nn.LSTM's
 * copy_: on every CUDA call, on the CPU only when `!c.is_same(result)`):
 * one condition would be false on one device. Its step gets each device's
 * own (split_when), and so do the steps below that inherited it.
 */
static void per_device_when(struct view *v)
{
	ot_trace *tr = v->tr;
	struct dev_reach (*r)[OT_DEV_COUNT] = ot_calloc(tr->steps.len + 1, sizeof(*r));
	for (size_t i = 0; i < tr->edges.len; i++) {
		const ot_edge *e = &tr->edges.items[i];
		int at = v->step_of[e->to], from = v->step_of[e->from];
		const ot_step *s;
		if (at < 0 || from < 0 || !e->main || e->kind == OT_EDGE_DERIVATIVE || e->to == e->from)
			continue;
		s = &tr->steps.items[at];
		if (s->main != (OT_MAIN_CPU | OT_MAIN_CUDA) || s->sure == s->main)
			continue;
		for (int d = 0; d < OT_DEV_COUNT; d++) {
			const char *w, *either;
			if (!(e->main & OT_MAIN_BIT(d)))
				continue;
			w = callee_when(e) ? callee_when(e) : tr->steps.items[from].when;
			if (!w)
				r[at][d].none = true;
			else if (s->when && !strcmp(w, s->when))
				r[at][d].same = true;
			else if (!r[at][d].other)
				r[at][d].other = w;
			else if ((either = ot_when_either(tr->arena, r[at][d].other, w)) && *either)
				r[at][d].other = either; /* the arms of one if chain: either */
			else if (either)
				r[at][d].none = true; /* a condition and its negation */
		}
	}
	for (size_t i = 0; i < tr->steps.len; i++) {
		ot_step *s = &tr->steps.items[i];
		const ot_step *p = s->parent >= 0 && (size_t)s->parent < i ? &tr->steps.items[s->parent] : NULL;
		int site = v->site_edge.items[i];
		if (site >= 0 && s->main == (OT_MAIN_CPU | OT_MAIN_CUDA)) {
			/* a call site: its edge's own condition on each device,
			 * else what its caller runs under there */
			const ot_edge *e = &tr->edges.items[site];
			for (int d = 0; d < OT_DEV_COUNT; d++) {
				const char *own = e->reach[d] != OT_REACH_YES || e->cond[d].kind == OT_WHEN_SELECT
							  ? e->cond[d].text
							  : NULL;
				s->dev_when[d] = own ? own : p ? ot_step_when(p, (ot_device)d) : NULL;
				if (!s->dev_when[d] != !s->when ||
				    (s->when && strcmp(s->dev_when[d], s->when)))
					s->split_when = true;
			}
			continue;
		}
		if (p && p->split_when && s->when == p->when) {
			/* inherited from a step split before it: each device's,
			 * or the one device's it is on */
			if (s->main == (OT_MAIN_CPU | OT_MAIN_CUDA)) {
				s->split_when = true;
				memcpy(s->dev_when, p->dev_when, sizeof(s->dev_when));
			} else if (s->main) {
				s->when = p->dev_when[s->main & OT_MAIN_CPU ? OT_DEV_CPU : OT_DEV_CUDA];
			}
			continue;
		}
		for (int d = 0; d < OT_DEV_COUNT; d++) {
			const struct dev_reach *x = &r[i][d];
			s->dev_when[d] = x->same || (!x->none && !x->other) ? s->when : x->none ? NULL : x->other;
			if (s->dev_when[d] != s->when)
				s->split_when = true;
		}
	}
	/* the same on both devices after all: one condition */
	for (size_t i = 0; i < tr->steps.len; i++) {
		ot_step *s = &tr->steps.items[i];
		const char *c = s->dev_when[OT_DEV_CPU], *g = s->dev_when[OT_DEV_CUDA];
		if (s->split_when && (c == g || (c && g && !strcmp(c, g)))) {
			s->when = c;
			s->split_when = false;
		}
	}
	free(r);
}

void ot_trace_make_steps(ot_trace *tr)
{
	struct view v = {.tr = tr, .walk = W_SURE};
	size_t n = tr->nodes.len;
	tr->steps.len = 0;
	if (!n)
		return;
	if (!tr->out_start)
		ot_trace_index(tr);
	v.step_of = ot_calloc(n, sizeof(*v.step_of));
	v.when_of = ot_calloc(n, sizeof(*v.when_of));
	v.walked = ot_calloc(n, 1);
	v.forward = ot_calloc(n, 1);
	forward_reach(tr, v.forward);
	for (size_t i = 0; i < n; i++) {
		v.step_of[i] = -1;
		v.walked[i] = -1;
	}
	for (v.walk = W_SURE; v.walk <= W_SIDE; v.walk++)
		for (size_t r = 0; r < tr->roots.len; r++)
			if (r < tr->main_roots || v.walk == W_SIDE)
				visit(&v, tr->roots.items[r], -1,
				      r < tr->main_roots ? NULL
							 : "another overload of the op (called with other arguments)",
				      NULL);
	/* nodes no root reaches (none, unless a builder left one): at the end */
	v.walk = W_SIDE;
	for (size_t i = 0; i < n; i++)
		visit(&v, (uint32_t)i, -1, NULL, NULL);
	reached_either_way(&v);
	per_device_when(&v);
	ot_vec_free(&v.site_edge);
	free(v.step_of);
	free(v.when_of);
	free(v.walked);
	free(v.forward);
}
