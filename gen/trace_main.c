/*
 * trace_main.c - the marking pass: which edges and nodes a default call
 * with dense, strided float32 tensors runs, on CPU and on CUDA.
 *
 * Like libgit2's revwalk marks commits in a pass over the graph, this
 * walks from the main roots and marks, per device, every edge a default
 * call can take (its condition is not false there, it was resolved by type
 * or scope, not by name) and every node such an edge reaches. A node of a
 * file compiled for another device is never on that device's path.
 */
#include "trace.h"

#include <string.h>

/* Can code of file `path` run for a call on `dev`? */
static bool file_on(const char *path, ot_device dev)
{
	bool gpu, cpu_only;
	if (!path)
		return true;
	if (ot_ends_with(path, ".mm") || strstr(path, "/mps/") || strstr(path, "/metal/") ||
	    strstr(path, "/vulkan/") || strstr(path, "/miopen/") || strstr(path, "/hip/"))
		return false;
	gpu = strstr(path, "/cuda/") || strstr(path, "/cudnn/") || ot_ends_with(path, ".cu") ||
	      ot_ends_with(path, ".cuh");
	cpu_only = strstr(path, "/cpu/") || strstr(path, "/mkldnn/") || strstr(path, "/mkl/");
	return dev == OT_DEV_CUDA ? !cpu_only : !gpu;
}

/* Does the edge from an entry lead to a kernel autograd runs above (a
 * CompositeImplicitAutograd kernel: the ops it calls record their own
 * gradients), or below (an explicit kernel: the entry's derivative is the
 * gradient; what it calls is not recorded)? */
static bool stays_above(const ot_trace *tr, const ot_edge *e)
{
	const ot_node *from = &tr->nodes.items[e->from];
	if (from->kind == OT_NODE_PYFUNC || from->kind == OT_NODE_BINDING)
		return true;
	if (e->kind == OT_EDGE_DERIVATIVE)
		return false; /* the backward runs in the engine: it records nothing */
	if (from->kind != OT_NODE_ENTRY)
		return true; /* a body's calls run where the body runs */
	if (from->gradless)
		return false; /* what its kernel records reaches no output */
	if (e->kind == OT_EDGE_DISPATCH)
		return e->key && strstr(e->key, "CompositeImplicitAutograd");
	return e->kind != OT_EDGE_DELEGATE;
}

/*
 * Per device, a walk over (node, above autograd, sure) states from the main
 * roots: an edge a default call can take, resolved exactly, to a node of a
 * file compiled for the device, is marked; an entry's derivative only
 * where the entry is reached above autograd (its own grad_fn is made). An
 * edge taken whatever the arguments (OT_REACH_YES) from a sure state is
 * sure, and so is the node it reaches.
 */
#define ST_ABOVE 1u
#define ST_SURE 2u
#define ST_BACK 4u /* below a derivative edge: the backward */

/* Can node `i` run on `dev`: a file compiled for it, and not an entry
 * without a kernel there? */
static bool node_on(const ot_trace *tr, uint32_t i, ot_device dev)
{
	const ot_node *nd = &tr->nodes.items[i];
	return file_on(nd->file, dev) && !(nd->idle & OT_MAIN_BIT(dev));
}

/*
 * A call every run of its caller makes (`failed`, OT_REACH_YES) that
 * raises on `dev` (`what`: its callee raises on every call, or is an entry
 * without a kernel there): the calls its caller writes below it in the
 * same file are never made on `dev` (make_per_tensor_quantized_tensor_cuda's
 * at::_empty_affine_quantized, which has no CUDA kernel, before its
 * gpu_kernel).
 */
static void after_raising_call(ot_trace *tr, const ot_edge *failed, ot_device dev, const char *what)
{
	const char *why = NULL;
	ot_trace_iter it;
	const ot_edge *o;
	if (failed->reach[dev] != OT_REACH_YES || !failed->site_file || !failed->site_line)
		return;
	ot_trace_edges(&it, tr, failed->from, 0, 0);
	while (ot_trace_next(&o, &it) == 0) {
		ot_edge *e = (ot_edge *)o;
		if (e == failed || e->reach[dev] == OT_REACH_NEVER || !e->site_file ||
		    e->site_line <= failed->site_line || strcmp(e->site_file, failed->site_file))
			continue;
		if (!why)
			why = ot_arena_printf(tr->arena, "written after a call that raises on %s (%s:%u: %s)",
					      dev == OT_DEV_CUDA ? "CUDA" : "the CPU", failed->site_file,
					      failed->site_line, what);
		e->reach[dev] = OT_REACH_NEVER;
		e->cond[dev] = (ot_cond){.kind = OT_WHEN_VALIDATION, .text = why};
		ot_edge_headline(e);
	}
}

/* An entry whose kernel for the device raises on every call
 * (_triton_scaled_dot_attention's CUDA kernel: "should be overridden in
 * python"): each call every run of its caller makes into it raises too. */
static void after_raising_calls_of(ot_trace *tr, uint32_t entry, ot_device dev, const char *what)
{
	for (size_t i = 0; i < tr->edges.len; i++) {
		const ot_edge *c = &tr->edges.items[i];
		if (c->to == entry && c->from != entry && c->kind != OT_EDGE_DISPATCH)
			after_raising_call(tr, c, dev, what);
	}
}

/*
 * An edge whose caller never runs on a device for this op (its callers
 * are reached only through another device's dispatch key, or from code
 * of a file compiled for another device) is never taken there, whatever
 * its own condition says: a walk per device over the edges that can be
 * taken there, from every root. An edge into an entry that has no kernel
 * for the device is never taken there either (the call fails at dispatch),
 * nor one into a function that raises on every call (the kernel of a
 * dense key that only says "sparse tensors only").
 */
static void mark_off_device(ot_trace *tr, uint32_t *stack, uint8_t *runs)
{
	static const char *const why[OT_DEV_COUNT] = {
		OT_WHY_CALLER_OFF " on the CPU for this op", OT_WHY_CALLER_OFF " on CUDA for this op"};
	static const char *const no_kernel[OT_DEV_COUNT] = {
		"its entry's dispatch table has no kernel for a dense CPU tensor",
		"its entry's dispatch table has no kernel for a dense CUDA tensor"};
	size_t n = tr->nodes.len;
	for (size_t i = 0; i < tr->edges.len; i++) {
		/* a call that gets there raises: where the edge could be taken,
		 * the error is why it is not, and on the other device too when
		 * only the dispatch key kept it off there (the CUDA kernel on the
		 * CPU); an edge taken nowhere (a sparse key's kernel) keeps its
		 * reasons */
		ot_edge *e = &tr->edges.items[i];
		const ot_node *to = &tr->nodes.items[e->to];
		const char *text;
		if (!to->fails || (e->reach[0] == OT_REACH_NEVER && e->reach[1] == OT_REACH_NEVER))
			continue;
		text = ot_arena_printf(tr->arena, "%s raises on every call%s (%s:%u%s%s)", to->symbol,
				       to->fails_args ? " with the arguments it is given here" : "",
				       to->file, to->fails, to->fails_text ? ": " : "",
				       to->fails_text ? to->fails_text : "");
		for (int dev = 0; dev < OT_DEV_COUNT; dev++)
			if (e->reach[dev] != OT_REACH_NEVER || e->cond[dev].kind == OT_WHEN_KEY) {
				if (e->reach[dev] != OT_REACH_NEVER)
					e->raised |= OT_MAIN_BIT(dev);
				after_raising_call(tr, e, (ot_device)dev, text);
				if (e->kind == OT_EDGE_DISPATCH && e->reach[dev] == OT_REACH_YES)
					after_raising_calls_of(tr, e->from, (ot_device)dev, text);
				e->reach[dev] = OT_REACH_NEVER;
				e->cond[dev] = (ot_cond){.kind = OT_WHEN_VALIDATION, .text = text};
			}
		ot_edge_headline(e);
	}
	for (int dev = 0; dev < OT_DEV_COUNT; dev++) {
		size_t top = 0;
		memset(runs, 0, n);
		for (size_t i = 0; i < tr->edges.len; i++) {
			ot_edge *e = &tr->edges.items[i];
			const ot_node *to = &tr->nodes.items[e->to];
			if (e->reach[dev] != OT_REACH_NEVER && (to->idle & OT_MAIN_BIT(dev))) {
				if (e->reach[dev] == OT_REACH_YES && e->site_file && e->site_line) {
					e->raised |= OT_MAIN_BIT(dev);
					after_raising_call(tr, e, (ot_device)dev,
							   ot_arena_printf(tr->arena, "%s: %s", to->symbol, no_kernel[dev]));
				}
				e->reach[dev] = OT_REACH_NEVER;
				e->cond[dev] = (ot_cond){.kind = OT_WHEN_KEY, .text = no_kernel[dev]};
				ot_edge_headline(e);
			}
		}
		for (size_t r = 0; r < tr->roots.len; r++) {
			uint32_t root = tr->roots.items[r];
			if (!runs[root] && node_on(tr, root, (ot_device)dev)) {
				runs[root] = 1;
				stack[top++] = root;
			}
		}
		while (top) {
			ot_trace_iter it;
			const ot_edge *e;
			ot_trace_edges(&it, tr, stack[--top], 0, 0);
			while (ot_trace_next(&e, &it) == 0)
				if (e->exact && e->reach[dev] != OT_REACH_NEVER && !runs[e->to] &&
				    node_on(tr, e->to, (ot_device)dev)) {
					runs[e->to] = 1;
					stack[top++] = e->to;
				}
		}
		for (size_t i = 0; i < tr->edges.len; i++) {
			ot_edge *e = &tr->edges.items[i];
			if (e->reach[dev] == OT_REACH_NEVER || runs[e->from])
				continue;
			e->reach[dev] = OT_REACH_NEVER;
			e->cond[dev] = (ot_cond){.kind = OT_WHEN_KEY, .text = why[dev]};
			ot_edge_headline(e);
		}
	}
}

/* Is condition `a` written as the else of `b` ("not (b)")? */
static bool else_of(const ot_cond *a, const ot_cond *b)
{
	size_t n;
	if (!a->text || !b->text || !ot_starts_with(a->text, "not ("))
		return false;
	n = strlen(b->text);
	return strlen(a->text) == n + 6 && !strncmp(a->text + 5, b->text, n) && a->text[n + 5] == ')';
}

/* Does the caller of `e` reach the same node on `dev` in the other arm of
 * e's condition too (diagonal_scatter's clone under `has_internal_overlap`
 * and under its else)? Then every call of the caller runs that node. */
static bool both_arms(const ot_trace *tr, const ot_edge *e, ot_device dev)
{
	ot_trace_iter it;
	const ot_edge *o;
	ot_trace_edges(&it, tr, e->from, 0, 0);
	while (ot_trace_next(&o, &it) == 0)
		if (o != e && o->to == e->to && o->exact && o->reach[dev] != OT_REACH_NEVER &&
		    (else_of(&o->cond[dev], &e->cond[dev]) || else_of(&e->cond[dev], &o->cond[dev])))
			return true;
	return false;
}

void ot_trace_mark(ot_trace *tr)
{
	size_t n = tr->nodes.len;
	uint32_t *stack;
	uint8_t *seen; /* per node, a bit per state (1 << (ST_* bits)) */
	uint8_t *fwd;  /* per node, the devices whose forward reaches it */
	if (!n)
		return;
	if (!tr->out_start)
		ot_trace_index(tr);
	stack = ot_calloc(8 * n, sizeof(*stack));
	seen = ot_calloc(n, 1);
	fwd = ot_calloc(n, 1);
	for (size_t i = 0; i < n; i++)
		tr->nodes.items[i].main = tr->nodes.items[i].sure = 0;
	for (size_t i = 0; i < tr->edges.len; i++)
		tr->edges.items[i].main = tr->edges.items[i].sure = 0;
	mark_off_device(tr, stack, seen);
	for (int dev = 0; dev < OT_DEV_COUNT; dev++) {
		uint8_t bit = OT_MAIN_BIT(dev);
		size_t top = 0;
		memset(seen, 0, n);
		for (size_t r = 0; r < tr->main_roots && r < tr->roots.len; r++) {
			uint32_t root = tr->roots.items[r], st = ST_ABOVE | ST_SURE;
			if (node_on(tr, root, (ot_device)dev) && !(seen[root] & (1u << st))) {
				tr->nodes.items[root].main |= bit;
				tr->nodes.items[root].sure |= bit;
				fwd[root] |= bit;
				seen[root] |= (uint8_t)(1u << st);
				stack[top++] = root << 3 | st;
			}
		}
		while (top) {
			uint32_t state = stack[--top], node = state >> 3;
			bool above = state & ST_ABOVE, sure = state & ST_SURE, back = state & ST_BACK;
			ot_trace_iter it;
			const ot_edge *e;
			ot_trace_edges(&it, tr, node, 0, 0);
			while (ot_trace_next(&e, &it) == 0) {
				ot_edge *me = (ot_edge *)e;
				ot_node *to = &tr->nodes.items[e->to];
				bool edge_sure, next_sure;
				uint32_t st;
				if (!e->exact || e->reach[dev] == OT_REACH_NEVER ||
				    !node_on(tr, e->to, (ot_device)dev))
					continue;
				if (e->kind == OT_EDGE_DERIVATIVE &&
				    tr->nodes.items[e->from].kind == OT_NODE_ENTRY && !above)
					continue; /* no grad_fn of its own: below another's */
				edge_sure = sure && e->reach[dev] == OT_REACH_YES;
				next_sure = edge_sure || (sure && both_arms(tr, e, (ot_device)dev));
				st = (above && stays_above(tr, e) ? ST_ABOVE : 0) | (next_sure ? ST_SURE : 0) |
				     (back || e->kind == OT_EDGE_DERIVATIVE ? ST_BACK : 0);
				me->main |= bit;
				to->main |= bit;
				if (!(st & ST_BACK))
					fwd[e->to] |= bit;
				if (edge_sure)
					me->sure |= bit;
				if (next_sure)
					to->sure |= bit;
				if (!(seen[e->to] & (1u << st))) {
					seen[e->to] |= (uint8_t)(1u << st);
					stack[top++] = e->to << 3 | st;
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		tr->nodes.items[i].back = tr->nodes.items[i].main & (uint8_t)~fwd[i];
	free(stack);
	free(seen);
	free(fwd);
}
