/*
 * trace.c - the trace model: names of its kinds, the edge index and its
 * iterator, and the trace's lifetime (see trace.h).
 */
#include "trace.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *ot_layer_name(ot_layer layer)
{
	static const char *const names[] = {"python", "bridge", "yaml",   "cpp",      "meta",
					    "stub",   "kernel", "cuda",   "backward", "decomposition"};
	return layer < OT_LAYER_COUNT ? names[layer] : "?";
}

const char *ot_status_name(ot_status s)
{
	static const char *const names[] = {"traced", "well-known", "not-found", "error"};
	return s <= OT_STATUS_ERROR ? names[s] : "?";
}

const char *ot_node_kind_name(ot_node_kind k)
{
	static const char *const names[] = {"pyfunc", "binding", "entry",      "cfunc",
					    "meta",   "stub",    "libcall",    "launch",
					    "derivative", "decomposition", "missing"};
	return k < OT_NODE_KIND_COUNT ? names[k] : "?";
}

const char *ot_edge_kind_name(ot_edge_kind k)
{
	static const char *const names[] = {"call",     "bridge",  "op",      "delegate",
					    "dispatch", "meta",    "stub",    "register",
					    "launch",   "libcall", "derivative", "decomposes"};
	return k < OT_EDGE_KIND_COUNT ? names[k] : "?";
}

const char *ot_when_kind_name(ot_when_kind k)
{
	static const char *const names[] = {"always",     "build",    "key",  "guard",
					    "select",     "validation", "overload", "name"};
	return k < OT_WHEN_KIND_COUNT ? names[k] : "?";
}

void ot_edge_headline(ot_edge *e)
{
	e->when = NULL;
	e->when_kind = OT_WHEN_ALWAYS;
	e->when_line = 0;
	e->when_written = NULL;
	/* taken somewhere: the run-time selection it depends on there, else
	 * the condition on the call's arguments */
	for (int pass = 0; pass < 2; pass++)
		for (int d = 0; d < OT_DEV_COUNT; d++)
			if (e->reach[d] != OT_REACH_NEVER && e->cond[d].text &&
			    (pass ? e->reach[d] == OT_REACH_MAYBE : e->cond[d].kind == OT_WHEN_SELECT)) {
				e->when = e->cond[d].text;
				e->when_kind = pass ? OT_WHEN_GUARD : OT_WHEN_SELECT;
				e->when_line = e->cond[d].line;
				e->when_written = e->cond[d].written;
				return;
			}
	if (e->reach[0] != OT_REACH_NEVER || e->reach[1] != OT_REACH_NEVER)
		return;
	/* taken nowhere: why (the CPU's reason, else the CUDA one) */
	for (int d = 0; d < OT_DEV_COUNT; d++)
		if (e->cond[d].text) {
			e->when = e->cond[d].text;
			e->when_kind = e->cond[d].kind;
			e->when_line = e->cond[d].line;
			e->when_written = e->cond[d].written;
			return;
		}
}

bool ot_trace_raise(const ot_trace *tr, ot_device dev, ot_raise *out)
{
	const ot_node *n;
	if (!tr->raises[dev] || tr->raises[dev] > tr->nodes.len)
		return false;
	n = &tr->nodes.items[tr->raises[dev] - 1];
	*out = (ot_raise){.symbol = n->symbol, .file = n->file, .line = n->fails,
			  .statement = n->fails_text};
	if (n->kind == OT_NODE_ENTRY && !n->fails) {
		out->line = n->line;
		out->why = dev == OT_DEV_CUDA ? "its dispatch table has no kernel for a dense CUDA tensor"
					      : "its dispatch table has no kernel for a dense CPU tensor";
	}
	return true;
}

bool ot_layer_does_work(ot_layer layer)
{
	return layer == OT_LAYER_META || layer == OT_LAYER_STUB || layer == OT_LAYER_KERNEL ||
	       layer == OT_LAYER_CUDA;
}

bool ot_trace_own_op(const ot_trace *tr, const char *op)
{
	for (size_t i = 0; op && i < tr->aten.len; i++)
		if (!strcmp(tr->aten.items[i], op))
			return true;
	return false;
}

long ot_strvec_index(const ot_strvec *v, const char *s)
{
	for (size_t i = 0; i < v->len; i++)
		if (!strcmp(v->items[i], s))
			return (long)i;
	return -1;
}

/* Letters and digits of `s`, lowercased: "CrossEntropyLoss" and
 * "cross_entropy_loss" both give "crossentropyloss". */
static void squash(char *out, size_t n, const char *s)
{
	size_t j = 0;
	for (; *s && j + 1 < n; s++)
		if (isalnum((unsigned char)*s))
			out[j++] = (char)tolower((unsigned char)*s);
	out[j] = '\0';
}

bool ot_trace_names_op(const ot_trace *tr, const char *op)
{
	char t[160], o[160];
	if (tr->target.strategy != OT_STRAT_MODULE && tr->target.strategy != OT_STRAT_FUNCTIONAL)
		return true;
	squash(t, sizeof(t), tr->target.name);
	squash(o, sizeof(o), op);
	return *t && *o && (ot_starts_with(o, t) || ot_starts_with(t, o));
}

ot_trace *ot_trace_new(void)
{
	ot_trace *tr = ot_calloc(1, sizeof(*tr));
	tr->arena = ot_arena_new();
	return tr;
}

void ot_trace_index(ot_trace *tr)
{
	size_t n = tr->nodes.len, m = tr->edges.len;
	uint32_t *fill;
	free(tr->out_start);
	free(tr->out);
	tr->out_start = ot_calloc(n + 1, sizeof(*tr->out_start));
	tr->out = ot_calloc(m ? m : 1, sizeof(*tr->out));
	for (size_t i = 0; i < m; i++)
		if (tr->edges.items[i].from < n)
			tr->out_start[tr->edges.items[i].from + 1]++;
	for (size_t i = 0; i < n; i++)
		tr->out_start[i + 1] += tr->out_start[i];
	fill = ot_calloc(n ? n : 1, sizeof(*fill));
	for (size_t i = 0; i < m; i++) {
		uint32_t f = tr->edges.items[i].from;
		if (f < n)
			tr->out[tr->out_start[f] + fill[f]++] = (uint32_t)i;
	}
	free(fill);
}

void ot_trace_edges(ot_trace_iter *it, const ot_trace *tr, uint32_t node, uint32_t kinds,
		    uint8_t main_only)
{
	it->tr = tr;
	it->kinds = kinds;
	it->main_only = main_only;
	if (!tr->out_start || node >= tr->nodes.len) {
		it->pos = it->end = 0;
		return;
	}
	it->pos = tr->out_start[node];
	it->end = tr->out_start[node + 1];
}

int ot_trace_next(const ot_edge **out, ot_trace_iter *it)
{
	while (it->pos < it->end) {
		const ot_edge *e = &it->tr->edges.items[it->tr->out[it->pos++]];
		if (it->kinds && !(it->kinds & (1u << e->kind)))
			continue;
		if (it->main_only && !(e->main & it->main_only))
			continue;
		*out = e;
		return 0;
	}
	*out = NULL;
	return OT_ITEROVER;
}

void ot_trace_free(ot_trace *tr)
{
	if (!tr)
		return;
	ot_vec_free(&tr->nodes);
	ot_vec_free(&tr->edges);
	ot_vec_free(&tr->roots);
	ot_vec_free(&tr->steps);
	free(tr->out_start);
	free(tr->out);
	ot_vec_free(&tr->aten);
	ot_vec_free(&tr->backends);
	ot_vec_free(&tr->gpu_libs);
	ot_vec_free(&tr->cpu_libs);
	ot_vec_free(&tr->libs);
	ot_vec_free(&tr->selection);
	ot_vec_free(&tr->calls);
	ot_vec_free(&tr->messages);
	ot_vec_free(&tr->suggestions);
	ot_arena_free(tr->arena);
	free(tr);
}

size_t ot_trace_missing(const ot_trace *tr)
{
	size_t n = 0;
	for (size_t i = 0; i < tr->nodes.len; i++)
		n += !tr->nodes.items[i].found;
	return n;
}
