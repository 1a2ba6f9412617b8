/*
 * trace_summary.c - what pages, the index and optrace diff summarise, from
 * the marked graph: the overload a default call reaches, the libraries
 * called on each main path (and the others with their condition), the
 * backends, the run-time selections, the node that stands for each layer
 * on each main path, and the other ops the main paths reach.
 */
#include "trace.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void add(ot_trace *tr, ot_strvec *v, const char *s)
{
	if (s && *s && ot_strvec_index(v, s) < 0)
		ot_vec_push(v, ot_arena_strdup(tr->arena, s));
}

/* Breadth-first order of the nodes on one device's main path (all main
 * paths for bits == 3), from the main roots; `order` gets node indices. */
static size_t bfs(const ot_trace *tr, uint8_t bits, uint32_t *order)
{
	size_t n = tr->nodes.len, head = 0, tail = 0;
	uint8_t *seen = ot_calloc(n ? n : 1, 1);
	for (size_t r = 0; r < tr->main_roots && r < tr->roots.len; r++) {
		uint32_t root = tr->roots.items[r];
		if ((tr->nodes.items[root].main & bits) && !seen[root]) {
			seen[root] = 1;
			order[tail++] = root;
		}
	}
	while (head < tail) {
		uint32_t node = order[head++];
		ot_trace_iter it;
		const ot_edge *e;
		ot_trace_edges(&it, tr, node, 0, bits);
		while (ot_trace_next(&e, &it) == 0)
			if (!seen[e->to]) {
				seen[e->to] = 1;
				order[tail++] = e->to;
			}
	}
	free(seen);
	return tail;
}

/* The condition an off-path node is reached under: the first edge into
 * it that says, else what its source was reached under. */
static const char *node_when(const ot_trace *tr, uint32_t node, int depth)
{
	if (depth > 32)
		return NULL;
	for (size_t i = 0; i < tr->edges.len; i++) {
		const ot_edge *e = &tr->edges.items[i];
		if (e->to != node || e->from == node)
			continue;
		if (e->when)
			return e->when;
		if (!tr->nodes.items[e->from].main)
			return node_when(tr, e->from, depth + 1);
	}
	return NULL;
}

static void backends(ot_trace *tr)
{
	ot_strvec keys = {0};
	/* dispatch keys of the op's own entries; of the entries its main paths
	 * reach, the CPU and CUDA keys those paths take there (not reshape's
	 * CompositeImplicitAutograd, nor where.self's MPS for _spdiags); and
	 * the stub registrations the main paths take */
	for (size_t i = 0; i < tr->edges.len; i++) {
		const ot_edge *e = &tr->edges.items[i];
		const ot_node *from = &tr->nodes.items[e->from];
		/* an entry of the op itself (_spdiags), not one its kernel calls
		 * (where.self, whose CUDA key is no backend of _spdiags) */
		bool own = from->kind == OT_NODE_ENTRY && ot_trace_own_op(tr, from->symbol);
		if (e->kind == OT_EDGE_DISPATCH && e->key && (own || e->main)) {
			char buf[256];
			char *save = NULL;
			snprintf(buf, sizeof(buf), "%s", e->key);
			for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
				if (strcmp(t, "(generated") && strcmp(t, "ufunc") && strcmp(t, "kernels)") &&
				    (own || (!strcmp(t, "CPU") && (e->main & OT_MAIN_CPU)) ||
				     (!strcmp(t, "CUDA") && (e->main & OT_MAIN_CUDA))))
					add(tr, &keys, t);
		} else if (e->kind == OT_EDGE_REGISTER && e->key && strcmp(e->key, "CPU (none)") && e->main) {
			add(tr, &keys, e->key);
		}
	}
	/* CUDA and CPU first, then the others in their order */
	if (ot_strvec_index(&keys, "CUDA") >= 0)
		add(tr, &tr->backends, "CUDA");
	if (ot_strvec_index(&keys, "CPU") >= 0)
		add(tr, &tr->backends, "CPU");
	for (size_t i = 0; i < keys.len; i++)
		add(tr, &tr->backends, keys.items[i]);
	ot_vec_free(&keys);
}

static void libraries(ot_trace *tr)
{
	for (size_t i = 0; i < tr->nodes.len; i++) {
		const ot_node *nd = &tr->nodes.items[i];
		ot_lib_use u = {0};
		bool known = false;
		uint8_t fwd = nd->main & (uint8_t)~nd->back; /* the forward's; the backward's apart */
		if ((nd->kind != OT_NODE_LIBCALL && nd->kind != OT_NODE_LAUNCH) || !nd->lib)
			continue;
		if (fwd & OT_MAIN_CUDA)
			add(tr, &tr->gpu_libs, nd->lib);
		if (fwd & OT_MAIN_CPU)
			add(tr, &tr->cpu_libs, nd->lib);
		for (size_t k = 0; k < tr->libs.len; k++)
			if (!strcmp(tr->libs.items[k].lib, nd->lib)) {
				tr->libs.items[k].main |= fwd;
				known = true;
			}
		if (known)
			continue;
		u.lib = nd->lib;
		u.node = (uint32_t)i;
		u.main = fwd;
		u.when = fwd ? NULL : nd->main ? "in the backward" : node_when(tr, (uint32_t)i, 0);
		ot_vec_push(&tr->libs, u);
	}
}

/* The condition of a selection as the source writes it: the arm not taken
 * of `x` reads "not (x)" in the model (tracer.c), the place holds x, and
 * not the quote of the local it tests. */
static const char *as_written(ot_trace *tr, const char *when)
{
	size_t n = ot_when_core(when);
	if (ot_starts_with(when, "not (") && n > 6 && when[n - 1] == ')')
		return ot_arena_strndup(tr->arena, when + 5, n - 6);
	return ot_arena_strndup(tr->arena, when, n);
}

/* The run-time selections written in the source (a CPU capability picked
 * at run time is not) on the main paths, each place once. */
static void selections(ot_trace *tr)
{
	for (size_t i = 0; i < tr->edges.len; i++) {
		const ot_edge *e = &tr->edges.items[i];
		const char *text;
		bool dup = false;
		if (!e->main || e->when_kind != OT_WHEN_SELECT || !e->when || !e->when_file || !e->when_line)
			continue;
		text = e->when_written ? e->when_written : as_written(tr, e->when);
		for (size_t k = 0; k < tr->selection.len; k++) {
			ot_selection *s = &tr->selection.items[k];
			if (s->line == e->when_line && !strcmp(s->symbol, text) && !strcmp(s->file, e->when_file)) {
				s->main |= e->main;
				dup = true;
			}
		}
		if (!dup) {
			ot_selection s = {text, e->when_file, e->when_line, e->main};
			ot_vec_push(&tr->selection, s);
		}
	}
}

/* The aten ops that do no work of the op's own: they allocate or resize a
 * tensor, or make a view of one (new sizes, strides or offset over the same
 * storage), or are identities for a dense real tensor. Every kernel calls
 * some; what they run is the allocator's or the view's, not the op's.
 * (Composite views that may copy, reshape and contiguous, are not here.) */
static const char *const bookkeeping_ops[] = {
	"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "resize_",
	"resize_as_", "resize_output", "_resize_output",
	"as_strided", "view", "_reshape_alias", "_unsafe_view", "t", "transpose", "permute",
	"expand", "unsqueeze", "squeeze", "select", "slice", "as_strided_", "t_", "transpose_",
	"unsqueeze_", "squeeze_", "alias", "detach", "lift_fresh", "resolve_conj", "resolve_neg", "conj"};

bool ot_aten_is_bookkeeping_n(const char *name, size_t n)
{
	if (n > 7 && !memcmp(name + n - 7, "_symint", 7))
		n -= 7;
	for (size_t i = 0; i < OT_ARRAY_LEN(bookkeeping_ops); i++)
		if (strlen(bookkeeping_ops[i]) == n && !memcmp(bookkeeping_ops[i], name, n))
			return true;
	return false;
}

bool ot_aten_is_bookkeeping(const char *name)
{
	return ot_aten_is_bookkeeping_n(name, strlen(name));
}

/* How well a main-path entry of the Python code stands for the op: one
 * named like it first, then one that does work (not a view or an
 * allocation), then one every default call runs on both devices, then on
 * one. */
static int overload_rank(const ot_trace *tr, const ot_node *nd)
{
	int r = ot_trace_names_op(tr, nd->op) ? 8 : 0;
	if (!ot_aten_is_bookkeeping_n(nd->op, strcspn(nd->op, ".")))
		r += 4;
	if (nd->sure == (OT_MAIN_CPU | OT_MAIN_CUDA))
		r += 2;
	else if (nd->sure)
		r += 1;
	return r;
}

/* The overload that stands for the op, leading tr->aten: of the entries
 * the op's own code reaches on a main path, the one overload_rank puts
 * first (the first reached among equals); the facts of its entry for the
 * performance notes. */
static void main_overload(ot_trace *tr, const uint32_t *order, size_t n)
{
	const ot_reg_func *f = NULL;
	const ot_node *best = NULL;
	int best_rank = -1;
	for (size_t i = 0; i < n; i++) {
		const ot_node *nd = &tr->nodes.items[order[i]];
		int r;
		if (nd->kind != OT_NODE_ENTRY || nd->depth != 0 || !nd->op || !ot_trace_own_op(tr, nd->op))
			continue;
		if ((r = overload_rank(tr, nd)) > best_rank) {
			best = nd;
			best_rank = r;
		}
	}
	for (size_t k = 0; best && k < tr->aten.len; k++)
		if (!strcmp(tr->aten.items[k], best->op)) {
			const char *first = tr->aten.items[k];
			memmove(tr->aten.items + 1, tr->aten.items, k * sizeof(*tr->aten.items));
			tr->aten.items[0] = first;
			tr->overload = first;
			f = best->src;
			break;
		}
	if (!tr->overload && tr->aten.len)
		tr->overload = tr->aten.items[0];
	for (size_t k = 0; k < tr->aten.len; k++) {
		const char *a = tr->aten.items[k];
		if (strstr(a, ".out") || ot_ends_with(a, "_out"))
			tr->has_out = true;
		if (strchr(a, '_') && a[strcspn(a, ".") - 1] == '_')
			tr->has_inplace = true;
	}
	if (f) {
		const ot_reg_func *eff = f->delegate ? f->delegate : f;
		tr->composite_implicit = ot_reg_func_composite_implicit(eff);
		for (size_t i = 0; i < eff->ndispatch; i++)
			if (!strcmp(eff->dispatch[i].key, "CompositeExplicitAutograd"))
				tr->composite_explicit = true;
		tr->structured = eff->structured;
		tr->tensor_iterator = eff->structured_inherits &&
				      strstr(eff->structured_inherits, "TensorIterator");
		tr->ufunc = eff->nufunc_inner_loop > 0;
	}
}

/* Is entry node nd the overload that stands for the op (main_overload)? */
static bool stands_for_op(const ot_trace *tr, const ot_node *nd)
{
	return tr->overload && nd->op && !strcmp(nd->op, tr->overload);
}

void ot_trace_summarize(ot_trace *tr)
{
	size_t n = tr->nodes.len;
	uint32_t *order;
	if (!n)
		return;
	if (!tr->out_start)
		ot_trace_index(tr);
	order = ot_calloc(n, sizeof(*order));
	main_overload(tr, order, bfs(tr, OT_MAIN_CPU | OT_MAIN_CUDA, order));
	for (int dev = 0; dev < OT_DEV_COUNT; dev++) {
		size_t k = bfs(tr, OT_MAIN_BIT(dev), order);
		for (size_t i = 0; i < k; i++) {
			const ot_node *nd = &tr->nodes.items[order[i]];
			uint32_t *key = &tr->key[dev][nd->layer];
			/* the forward's node for each layer (in a layer of kernels,
			 * the first of the op's own overloads if it has one there;
			 * among the entries, the one that stands for the op); the
			 * backward's for its own */
			if (nd->found && (nd->layer == OT_LAYER_BACKWARD || !(nd->back & OT_MAIN_BIT(dev))) &&
			    (!*key ||
			     (ot_layer_does_work((ot_layer)nd->layer) &&
			      !ot_trace_own_op(tr, tr->nodes.items[*key - 1].op) && ot_trace_own_op(tr, nd->op)) ||
			     (nd->layer == OT_LAYER_YAML && stands_for_op(tr, nd) &&
			      !stands_for_op(tr, &tr->nodes.items[*key - 1]))))
				*key = order[i] + 1;
		}
	}
	{
		size_t k = bfs(tr, OT_MAIN_CPU | OT_MAIN_CUDA, order);
		for (size_t i = 0; i < k; i++) {
			const ot_node *nd = &tr->nodes.items[order[i]];
			if (nd->kind == OT_NODE_ENTRY && nd->depth > 0 && (nd->main & (uint8_t)~nd->back)) {
				char base[200];
				snprintf(base, sizeof(base), "%.*s", (int)strcspn(nd->op, "."), nd->op);
				add(tr, &tr->calls, base);
			}
		}
	}
	free(order);
	for (size_t i = 0; i < tr->edges.len; i++) {
		/* a main path's call of a function that raises on every call */
		const ot_edge *e = &tr->edges.items[i];
		const ot_node *from = &tr->nodes.items[e->from];
		for (int dev = 0; dev < OT_DEV_COUNT; dev++)
			if (!tr->raises[dev] && (e->raised & from->main & (uint8_t)~from->back & OT_MAIN_BIT(dev)))
				tr->raises[dev] = e->to + 1;
	}
	backends(tr);
	libraries(tr);
	selections(tr);
}
