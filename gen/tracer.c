/*
 * tracer.c - the driver: one input to a marked, summarised trace.
 *
 * ot_trace_op resolves the input, takes the well-known early exit when it
 * applies, starts the Python half at the strategy's entry point
 * (trace_py.c), then expands every entry the walk reaches, in order, while
 * the queue grows (trace_cpp.c), and finally runs the passes: marking,
 * summary, steps. It also owns the primitives the builders add nodes and
 * edges with, so that identity and the file:line check live in one place.
 */
#include "trace_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"

/* ---- nodes and edges ------------------------------------------------------------- */

const char *tb_path(struct tb_ctx *c, const char *p)
{
	const char *have;
	if (!p)
		return NULL;
	if ((have = ot_map_get(c->paths, p)))
		return have;
	have = ot_arena_strdup(c->a, p);
	ot_map_put(c->paths, have, (void *)have);
	return have;
}

const char *tb_fpath(struct tb_ctx *c, uint32_t file)
{
	return tb_path(c, ot_index_file(c->ix, file)->path);
}

struct tb_state *tb_state(struct tb_ctx *c, uint32_t node)
{
	return &c->state.items[node];
}

void tb_message(struct tb_ctx *c, const char *fmt, ...)
{
	ot_buf b = OT_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ot_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < c->tr->messages.len; i++)
		if (!strcmp(c->tr->messages.items[i], b.ptr)) {
			ot_buf_free(&b);
			return;
		}
	ot_vec_push(&c->tr->messages, ot_arena_strdup(c->a, b.ptr));
	ot_buf_free(&b);
}

static const char *dup_or_empty(ot_arena *a, const char *s)
{
	return s ? ot_arena_strdup(a, s) : "";
}

static void node_key(char *key, size_t n, uint8_t kind, const void *src, const char *extra)
{
	snprintf(key, n, "%u:%p:%s", kind, src, extra ? extra : "");
}

long tb_lookup(struct tb_ctx *c, uint8_t kind, const void *src, const char *extra)
{
	char key[320];
	void *have;
	node_key(key, sizeof(key), kind, src, extra);
	have = ot_map_get(c->keys, key);
	return have ? (long)((uintptr_t)have - 1) : -1;
}

long tb_node(struct tb_ctx *c, const ot_node *proto, uint32_t file, const void *src,
	     const char *extra, bool *is_new)
{
	char key[320];
	void *have;
	ot_node n = *proto;
	struct tb_state st = {0};

	node_key(key, sizeof(key), proto->kind, src, extra);
	if (is_new)
		*is_new = false;
	if ((have = ot_map_get(c->keys, key)))
		return (long)((uintptr_t)have - 1);
	if (n.found && !ot_index_line_has(c->ix, file, n.line, n.symbol)) {
		tb_message(c, "internal: %s:%u does not contain '%s'; left out",
			   ot_index_file(c->ix, file)->path, n.line, n.symbol);
		return -1;
	}
	n.file = n.found ? tb_fpath(c, file) : NULL;
	n.symbol = dup_or_empty(c->a, n.symbol);
	n.note = dup_or_empty(c->a, n.note);
	n.op = dup_or_empty(c->a, n.op);
	n.backend = dup_or_empty(c->a, n.backend);
	n.lib = n.lib ? ot_arena_strdup(c->a, n.lib) : NULL;
	n.src = src;
	ot_vec_push(&c->tr->nodes, n);
	ot_vec_push(&c->state, st);
	ot_map_put(c->keys, ot_arena_strdup(c->scratch, key), (void *)(uintptr_t)c->tr->nodes.len);
	if (is_new)
		*is_new = true;
	return (long)c->tr->nodes.len - 1;
}

uint32_t tb_missing(struct tb_ctx *c, ot_layer layer, const char *what, const char *where,
		    const char *op, int depth)
{
	ot_node n = {0};
	const char *note = ot_arena_printf(c->a, "not found: %s in %s", what, where);
	n.kind = OT_NODE_MISSING;
	n.layer = (uint8_t)layer;
	n.found = false;
	n.symbol = what;
	n.note = note;
	n.op = op;
	n.depth = (uint8_t)(depth > 255 ? 255 : depth);
	return (uint32_t)tb_node(c, &n, 0, NULL, note, NULL);
}

ot_edge tb_always(uint8_t kind, uint32_t from, uint32_t to)
{
	ot_edge e = {0};
	e.kind = kind;
	e.from = from;
	e.to = to;
	e.exact = true;
	e.reach[OT_DEV_CPU] = e.reach[OT_DEV_CUDA] = OT_REACH_YES;
	return e;
}

/* The devices code in `path` runs for: a file of CUDA code (.cu, native/cuda/,
 * cudnn/, ...) only for CUDA tensors, of CPU kernels (native/cpu/, mkl/,
 * mkldnn/) only for CPU ones, of MPS code for neither; others for both. */
static uint8_t file_devices(const char *path)
{
	static const char *const cuda[] = {"/cuda/", "/cudnn/", "/miopen/", "/hip/"};
	static const char *const cpu[] = {"/native/cpu/", "/native/mkl/", "/native/mkldnn/",
					  "/quantized/cpu/"};
	if (!path)
		return OT_MAIN_CPU | OT_MAIN_CUDA;
	if (ot_ends_with(path, ".cu") || ot_ends_with(path, ".cuh"))
		return OT_MAIN_CUDA;
	if (ot_ends_with(path, ".mm") || strstr(path, "/mps/") || strstr(path, "/vulkan/") ||
	    strstr(path, "/metal/"))
		return 0;
	for (size_t i = 0; i < OT_ARRAY_LEN(cuda); i++)
		if (strstr(path, cuda[i]))
			return OT_MAIN_CUDA;
	for (size_t i = 0; i < OT_ARRAY_LEN(cpu); i++)
		if (strstr(path, cpu[i]))
			return OT_MAIN_CPU;
	return OT_MAIN_CPU | OT_MAIN_CUDA;
}

/* A call made in, or into, one device's code runs for that device only. */
static void restrict_to_files(struct tb_ctx *c, ot_edge *e)
{
	const ot_node *from = &c->tr->nodes.items[e->from], *to = &c->tr->nodes.items[e->to];
	uint8_t devs;
	if (e->kind != OT_EDGE_CALL && e->kind != OT_EDGE_OP && e->kind != OT_EDGE_STUB &&
	    e->kind != OT_EDGE_LAUNCH && e->kind != OT_EDGE_LIBCALL)
		return;
	devs = file_devices(from->file);
	if (to->kind != OT_NODE_ENTRY)
		devs &= file_devices(to->file);
	for (int d = 0; d < OT_DEV_COUNT; d++)
		if (!(devs & OT_MAIN_BIT(d)) && e->reach[d] != OT_REACH_NEVER)
			tb_never(e, (ot_device)d, OT_WHEN_KEY,
				 devs & OT_MAIN_CUDA ? "CUDA-only code" : devs & OT_MAIN_CPU ? "CPU-only code"
											 : "code of another backend");
}

/* The devices on which edge e hands its source's sureness on: those it
 * is always taken on, exactly resolved; a derivative runs only when a
 * gradient is asked for, a decomposition only when traced. */
static uint8_t sure_bits(const ot_edge *e)
{
	uint8_t bits = 0;
	if (!e->exact || e->kind == OT_EDGE_DERIVATIVE || e->kind == OT_EDGE_DECOMPOSES)
		return 0;
	for (int d = 0; d < OT_DEV_COUNT; d++)
		if (e->reach[d] == OT_REACH_YES)
			bits |= OT_MAIN_BIT(d);
	return bits;
}

/* Node `to` is sure on `bits` more: so is what its edges made so far
 * always lead to, and a body whose calls were cut for want of it is
 * explored again. */
static void add_sure(struct tb_ctx *c, uint32_t to, uint8_t bits)
{
	c->sure_work.len = 0;
	ot_vec_push(&c->sure_work, to);
	tb_state(c, to)->sure |= bits;
	while (c->sure_work.len) {
		uint32_t n = c->sure_work.items[--c->sure_work.len];
		struct tb_state *st = tb_state(c, n);
		if (st->cut_want & st->sure) {
			st->cut_want = 0;
			ot_vec_push(&c->revisit, n);
		}
		if (st->queued && !st->expanded)
			ot_vec_push(&c->sure_first, st->queue_at);
		for (uint32_t i = st->first_out; i; i = c->next_out.items[i - 1]) {
			const ot_edge *e = &c->tr->edges.items[i - 1];
			uint8_t more = tb_state(c, n)->sure & sure_bits(e) & ~tb_state(c, e->to)->sure;
			if (more && e->to < c->state.len) {
				tb_state(c, e->to)->sure |= more;
				ot_vec_push(&c->sure_work, e->to);
			}
		}
	}
}

/* Edge e's target is sure on each device its source is sure on and e is
 * always taken, exactly resolved. */
static void spread_sure(struct tb_ctx *c, const ot_edge *e)
{
	uint8_t more;
	if (e->from >= c->state.len || e->to >= c->state.len)
		return;
	more = tb_state(c, e->from)->sure & sure_bits(e) & ~tb_state(c, e->to)->sure;
	if (more)
		add_sure(c, e->to, more);
}

void tb_edge(struct tb_ctx *c, const ot_edge *e)
{
	char key[200];
	ot_edge copy = *e;
	restrict_to_files(c, &copy);
	snprintf(key, sizeof(key), "%u:%u:%u:%u:%s", e->kind, e->from, e->to, e->site_line,
		 e->key ? e->key : "");
	if (ot_map_get(c->edges, key))
		return;
	ot_map_put(c->edges, ot_arena_strdup(c->scratch, key), (void *)1);
	/* a site shown as a step must hold what it shows (a call a macro's body
	 * makes is filed at the invocation's line, which does not) */
	if (copy.site_step && e->site_file && e->site_symbol) {
		int64_t fid = ot_index_file_id(c->ix, e->site_file);
		if (fid < 0 || !ot_index_line_has(c->ix, (uint32_t)fid, e->site_line, e->site_symbol))
			copy.site_step = false;
	}
	copy.site_file = tb_path(c, e->site_file);
	copy.when_file = tb_path(c, e->when_file);
	copy.site_symbol = e->site_symbol ? ot_arena_strdup(c->a, e->site_symbol) : NULL;
	copy.site_note = e->site_note ? ot_arena_strdup(c->a, e->site_note) : NULL;
	copy.when = e->when ? ot_arena_strdup(c->a, e->when) : NULL;
	copy.key = e->key ? ot_arena_strdup(c->a, e->key) : NULL;
	ot_vec_push(&c->tr->edges, copy);
	if (copy.from < c->state.len) {
		ot_vec_push(&c->next_out, tb_state(c, copy.from)->first_out);
		tb_state(c, copy.from)->first_out = (uint32_t)c->tr->edges.len;
	} else {
		ot_vec_push(&c->next_out, 0);
	}
	spread_sure(c, &copy);
}

void tb_presume_sure(struct tb_ctx *c, const ot_edge *e)
{
	ot_edge copy = *e;
	restrict_to_files(c, &copy);
	spread_sure(c, &copy);
}

void tb_seed_sure(struct tb_ctx *c)
{
	/* through the Python half's edges, made before */
	for (size_t i = 0; i < c->tr->main_roots && i < c->tr->roots.len; i++)
		add_sure(c, c->tr->roots.items[i], OT_MAIN_CPU | OT_MAIN_CUDA);
}

/* The devices on which verdicts v are an unconditional TRUE. */
static uint8_t always_bits(const ot_verdict v[OT_DEV_COUNT])
{
	uint8_t always = 0;
	for (int d = 0; d < OT_DEV_COUNT; d++)
		if (v[d].value == OT_TRI_TRUE && !v[d].validation)
			always |= OT_MAIN_BIT(d);
	return always;
}

bool tb_call_sure(struct tb_ctx *c, uint32_t node, const ot_verdict v[OT_DEV_COUNT])
{
	return (tb_state(c, node)->sure & always_bits(v)) != 0;
}

bool tb_depth_allows(struct tb_ctx *c, uint32_t node, const ot_verdict v[OT_DEV_COUNT], int depth)
{
	uint8_t always;
	if (depth + 1 <= c->max_depth)
		return true;
	always = always_bits(v);
	if (c->max_depth && depth + 1 <= c->max_depth + TB_SURE_EXTRA_DEPTH) {
		if (tb_state(c, node)->sure & always)
			return true;
		tb_state(c, node)->cut_want |= always;
	}
	tb_state(c, node)->depth_cut = true; /* (--depth 0: the op alone) */
	return false;
}

/* A condition as shown: the else of a condition reads "not (x)". */
static const char *cond_shown(struct tb_ctx *c, const char *text, bool negated)
{
	if (!negated)
		return text;
	if (text[0] == '!' && text[1] != '=' && !strpbrk(text + 1, "&|"))
		return text + 1; /* not (!x) is x */
	return ot_arena_printf(c->a, "not (%s)", text);
}

/* A condition as one side of "a and b": a disjunction in parentheses
 * unless it is all one "not (...)". */
static const char *conjunct(struct tb_ctx *c, const char *text)
{
	if (ot_starts_with(text, "not (")) {
		int depth = 0;
		size_t i = 4;
		for (; text[i]; i++)
			if (text[i] == '(')
				depth++;
			else if (text[i] == ')' && --depth == 0)
				break;
		if (text[i] && !text[i + 1])
			return text;
	}
	return strstr(text, "||") || strstr(text, " or ") ? ot_arena_printf(c->a, "(%s)", text) : text;
}

/* Longest initializer a condition quotes for the local it tests. */
#define TB_LOCAL_INIT_MAX 240

/* ", where x = INIT" for a condition that tests local x alone (its
 * initializer on one line, blanks collapsed), or "" when there is none or
 * its brackets do not close (a lambda's body: its first ';' is not the
 * declaration's). */
static const char *where_local(struct tb_ctx *c, const ot_verdict *v)
{
	const char *name = v->text + (v->text[0] == '!');
	ot_buf b = OT_BUF_INIT;
	const char *out;
	bool blank = false;
	int depth = 0;
	if (!v->def || v->defn > TB_LOCAL_INIT_MAX)
		return "";
	for (size_t i = 0; i < v->defn && depth >= 0; i++) {
		char ch = v->def[i];
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			blank = b.size > 0;
			continue;
		}
		depth += (ch == '(' || ch == '[' || ch == '{') - (ch == ')' || ch == ']' || ch == '}');
		if (blank)
			ot_buf_putc(&b, ' ');
		blank = false;
		ot_buf_putc(&b, ch);
	}
	out = b.size && !depth ? ot_arena_printf(c->a, OT_WHEN_WHERE "%s = %s", name, b.ptr) : "";
	ot_buf_free(&b);
	return out;
}

const char *tb_verdict_text(struct tb_ctx *c, const ot_verdict *v)
{
	const char *t, *w;
	if (!v->text)
		return NULL;
	t = cond_shown(c, v->text, v->negated);
	if (v->also)
		t = ot_arena_printf(c->a, "%s and %s", conjunct(c, cond_shown(c, v->also, v->also_negated)),
				    conjunct(c, t));
	w = where_local(c, v);
	return *w ? ot_arena_printf(c->a, "%s%s", t, w) : t;
}

void tb_never(ot_edge *e, ot_device dev, uint8_t kind, const char *text)
{
	e->reach[dev] = OT_REACH_NEVER;
	e->cond[dev].kind = kind;
	e->cond[dev].text = text;
	e->cond[dev].written = NULL;
	ot_edge_headline(e);
}

void tb_reach(struct tb_ctx *c, ot_edge *e, const ot_verdict v[OT_DEV_COUNT], uint8_t guard_kind,
	      const char *file)
{
	for (int d = 0; d < OT_DEV_COUNT; d++) {
		const ot_verdict *x = &v[d];
		ot_cond *cd = &e->cond[d];
		e->reach[d] = x->validation || x->value == OT_TRI_FALSE ? OT_REACH_NEVER
			      : x->value == OT_TRI_UNKNOWN	      ? OT_REACH_MAYBE
								      : OT_REACH_YES;
		if (!x->text || (x->value == OT_TRI_TRUE && !x->select && !x->validation)) {
			cd->kind = OT_WHEN_ALWAYS;
			cd->text = NULL;
			cd->line = 0;
			cd->written = NULL;
			continue;
		}
		cd->text = tb_verdict_text(c, x);
		cd->line = x->line;
		cd->written = x->text;
		/* taken or not, a guard is a selection when it picks a backend
		 * or library at run time, else it depends on the arguments */
		cd->kind = x->validation ? OT_WHEN_VALIDATION
			   : x->value == OT_TRI_FALSE ? guard_kind
			   : guard_kind == OT_WHEN_BUILD ? OT_WHEN_BUILD
			   : x->select ? OT_WHEN_SELECT
				       : OT_WHEN_GUARD;
	}
	e->when_file = file;
	ot_edge_headline(e);
}

/* ---- the queue of entries ---------------------------------------------------------- */

static bool followed_in_full(const char *group)
{
	/* and the shape and dtype ones: their decompositions decide which
	 * entries autograd records (reshape -> view, to -> _to_copy); the
	 * creation ones do device work too (zeros_like -> zero_, ones -> fill_) */
	return !strcmp(group, "math") || !strcmp(group, "creation") || !strcmp(group, "reduction") ||
	       !strcmp(group, "comparison") || !strcmp(group, "indexing") ||
	       !strcmp(group, "shape") || !strcmp(group, "dtype-device");
}

bool tb_wellknown_stop(const struct tb_ctx *c, const char *name)
{
	ot_wellknown_match m;
	/* a pattern entry ("_": an in-place op) speaks of a kind of op; an
	 * entry reached here has its own kernels, which are followed */
	if (!c->t->wk || !ot_wellknown_lookup(&m, c->t->wk, name) || m.pattern)
		return false;
	/* asked for in full, the computing, creation, shape and dtype ones
	 * are followed (matmul -> mm), but not an allocation alone (empty,
	 * empty_like: the allocator's work, not the op's) */
	return !c->tr->full || !followed_in_full(m.group) ||
	       (!strcmp(m.group, "creation") && ot_aten_is_bookkeeping(name));
}

void tb_queue(struct tb_ctx *c, uint32_t node, const ot_reg_func *f, int depth)
{
	struct tb_pending p = {node, f, depth};
	tb_state(c, node)->queue_at = (uint32_t)c->queue.len;
	ot_vec_push(&c->queue, p);
	if (tb_state(c, node)->sure)
		ot_vec_push(&c->sure_first, tb_state(c, node)->queue_at);
}

/* Is queue item `at` waiting: its entry not expanded, and queued last
 * there (one queued again at a shallower depth has two items)? */
static bool waiting(struct tb_ctx *c, size_t at)
{
	const struct tb_state *st = tb_state(c, c->queue.items[at].node);
	return !st->expanded && st->queue_at == at;
}

/* The next entry to expand: one every default call reaches first, else
 * the first waiting that the forward reaches, else the first waiting
 * (next[0], next[1]: the queue's next index in order for each); false
 * when none is left. What the backward alone reaches comes last, so that
 * a function both reach is read with the forward's arguments. */
static bool next_pending(struct tb_ctx *c, size_t next[2], struct tb_pending *p)
{
	while (c->sure_next < c->sure_first.len) {
		uint32_t at = c->sure_first.items[c->sure_next++];
		if (waiting(c, at)) {
			*p = c->queue.items[at];
			return true;
		}
	}
	for (int pass = 0; pass < 2; pass++)
		for (; next[pass] < c->queue.len; next[pass]++)
			if (waiting(c, next[pass]) &&
			    (pass || !tb_state(c, c->queue.items[next[pass]].node)->backward_only)) {
				*p = c->queue.items[next[pass]++];
				return true;
			}
	return false;
}

uint32_t tb_entry(struct tb_ctx *c, const ot_reg_func *f, int depth, const tb_binding *b,
		  bool expand)
{
	ot_node n = {0};
	bool is_new;
	long id;
	n.kind = OT_NODE_ENTRY;
	n.layer = OT_LAYER_YAML;
	n.found = true;
	n.line = (uint32_t)f->line;
	n.symbol = f->schema.full;
	n.op = f->schema.full;
	n.depth = (uint8_t)(depth > 255 ? 255 : depth);
	n.gradless = !ot_reg_schema_outputs_tensor(&f->schema);
	{
		/* a table without a kernel for a device (CUDA: only): a call
		 * there fails at dispatch ("dispatch: {}" is handled apart; a
		 * ufunc_inner_loop makes the CPU and CUDA kernels) */
		const ot_reg_func *eff = f->delegate ? f->delegate : f;
		for (int d = 0; d < OT_DEV_COUNT; d++)
			if (eff->has_dispatch && eff->ndispatch && !eff->nufunc_inner_loop &&
			    !tb_resolved_key(eff, (ot_device)d))
				n.idle |= OT_MAIN_BIT(d);
	}
	{
		ot_buf note = OT_BUF_INIT;
		ot_buf_printf(&note, "%s", f->func);
		if (tb_dispatch_empty(f)) {
			/* `dispatch: {}`: torchgen registers no kernel for any key */
			ot_buf_puts(&note, " | dispatch: {} (no ATen kernel for any backend; its implementation is registered elsewhere)");
		} else if (f->has_dispatch) {
			ot_buf_puts(&note, " | dispatch:");
			for (size_t i = 0; i < f->ndispatch; i++)
				ot_buf_printf(&note, "%s %s: %s", i ? "," : "", f->dispatch[i].key,
					      f->dispatch[i].kernel);
		} else if (!f->delegate) {
			ot_buf_puts(&note, " | no dispatch table: CompositeImplicitAutograd");
		}
		n.note = ot_arena_strdup(c->a, note.ptr);
		ot_buf_free(&note);
	}
	id = tb_node(c, &n, (uint32_t)c->t->f_native, f, NULL, &is_new);
	if (id < 0)
		return 0;
	if (!is_new && b && b->known) {
		/* made before as a side overload, with its defaults, or by a
		 * call not every default call makes: this call's arguments
		 * replace them while it is not expanded yet */
		struct tb_state *st = tb_state(c, (uint32_t)id);
		if (!st->expanded && (!st->bound_by_call || (b->sure && !st->binding.sure))) {
			st->binding = *b;
			st->bound_by_call = true;
		}
	}
	if (!is_new && tb_state(c, (uint32_t)id)->queued &&
	    depth < c->queue.items[tb_state(c, (uint32_t)id)->queue_at].depth) {
		/* reached again by fewer composite branches: expanded at that
		 * depth (again, when it was before: what its kernels left
		 * past --depth is read) */
		struct tb_state *st = tb_state(c, (uint32_t)id);
		c->tr->nodes.items[id].depth = (uint8_t)(depth > 255 ? 255 : depth);
		if (!st->expanded) {
			c->queue.items[st->queue_at].depth = depth;
		} else if (expand) {
			st->expanded = false;
			tb_queue(c, (uint32_t)id, f, depth);
		}
	}
	if (is_new)
		tb_state(c, (uint32_t)id)->backward_only = c->in_backward;
	else if (!c->in_backward && tb_state(c, (uint32_t)id)->backward_only) {
		/* the forward reaches it too: its derivative is recorded */
		struct tb_state *st = tb_state(c, (uint32_t)id);
		st->backward_only = false;
		if (st->expanded)
			tb_backward(c, (uint32_t)id, f, f->delegate ? f->delegate : f, depth);
	}
	if (is_new) {
		struct tb_state *st = tb_state(c, (uint32_t)id);
		if (b) {
			st->binding = *b;
			st->bound_by_call = b->known;
		} else {
			st->binding.known = true; /* every argument takes its default */
			st->binding.n = f->schema.nargs < TB_MAX_PARAMS ? f->schema.nargs : TB_MAX_PARAMS;
		}
	}
	/* a well-known op is the reference's page, unless asked for in full:
	 * then the op itself (depth 0) is traced. An entry made before by a
	 * call matched by name only is expanded when a real call reaches it. */
	bool stop = !(depth == 0 && c->tr->full) && tb_wellknown_stop(c, f->schema.name);
	if (expand && stop)
		c->tr->nodes.items[id].wellknown_stop = true;
	if (expand && depth <= c->max_depth + TB_SURE_EXTRA_DEPTH && !tb_state(c, (uint32_t)id)->queued && !stop) {
		tb_state(c, (uint32_t)id)->queued = true;
		tb_queue(c, (uint32_t)id, f, depth);
	} else if (expand && !tb_state(c, (uint32_t)id)->queued && !c->in_backward) {
		/* not followed (a well-known op, or past --depth): what autograd
		 * records for it still is part of the op's backward */
		tb_backward(c, (uint32_t)id, f, f->delegate ? f->delegate : f, depth);
	}
	return (uint32_t)id;
}

const char *tb_literal_of_default(const char *def)
{
	if (!def)
		return NULL;
	if (!strcmp(def, "None"))
		return "None";
	if (!strcmp(def, "False"))
		return "false";
	if (!strcmp(def, "True"))
		return "true";
	if (!strcmp(def, "[]"))
		return "{}";
	/* int reduction=Mean: at::Reduction's values */
	if (!strcmp(def, "Mean"))
		return "1";
	if (!strcmp(def, "Sum"))
		return "2";
	return def;
}

/* ---- suggestions ------------------------------------------------------------------------ */

static void add_candidate(ot_tracer *t, ot_strategy s, ot_map *seen, const char *fmt, const char *name)
{
	char *v = ot_arena_printf(t->arena, fmt, name);
	if (ot_map_get(seen, v))
		return;
	ot_map_put(seen, v, v);
	ot_vec_push(&t->cand[s], v);
}

static void sort_strvec(ot_strvec *v)
{
	if (v->len > 1) /* an empty vector's items is NULL, which qsort must not see */
		qsort(v->items, v->len, sizeof(char *), ot_strptr_cmp);
}

static void build_candidates(ot_tracer *t)
{
	ot_map *seen = ot_map_new();
	const char **names;
	size_t n = ot_index_pynames(t->ix, &names);
	for (size_t i = 0; i < n; i++) {
		for (const ot_ix_pydef *p = ot_index_pydefs(t->ix, names[i]); p; p = p->next) {
			const char *path = ot_index_file(t->ix, p->file)->path;
			if (p->parent)
				continue;
			if (p->kind == OT_PY_CLASS && ot_starts_with(path, "torch/nn/modules/"))
				add_candidate(t, OT_STRAT_MODULE, seen, "nn.%s", p->name);
			else if (p->kind != OT_PY_CLASS && !strcmp(path, "torch/nn/functional.py"))
				add_candidate(t, OT_STRAT_FUNCTIONAL, seen, "F.%s", p->name);
			else if (p->kind != OT_PY_CLASS && !strcmp(path, "torch/functional.py"))
				add_candidate(t, OT_STRAT_TORCH, seen, "torch.%s", p->name);
		}
	}
	for (size_t i = 0; i < ot_registry_func_count(t->reg); i++) {
		const ot_reg_func *f = ot_registry_func_at(t->reg, i);
		const char *name = f->schema.name;
		add_candidate(t, OT_STRAT_ATEN, seen, "aten::%s", name);
		if (f->variant_method)
			add_candidate(t, OT_STRAT_METHOD, seen, "Tensor.%s", name);
		if (f->python_module && strcmp(f->python_module, "nn")) {
			size_t pl = strlen(f->python_module);
			if (!strncmp(name, f->python_module, pl) && name[pl] == '_')
				add_candidate(t, OT_STRAT_TORCH, seen,
					      ot_arena_printf(t->arena, "torch.%s.%%s", f->python_module),
					      name + pl + 1);
		} else if (f->variant_function && !f->python_module) {
			add_candidate(t, OT_STRAT_TORCH, seen, "torch.%s", name);
		}
	}
	for (int s = 0; s < OT_STRAT_COUNT; s++)
		sort_strvec(&t->cand[s]);
	ot_map_free(seen);
}

static void suggest(struct tb_ctx *c)
{
	const char *out[3];
	const ot_strvec *cand = &c->t->cand[c->tr->target.strategy];
	const ot_target *tg = &c->tr->target;
	const ot_reg_func *const *ov;
	size_t n;
	/* a real name with an overload it does not have: its overloads, in file order */
	if (tg->strategy == OT_STRAT_ATEN && tg->overload[0] &&
	    (ov = ot_registry_overloads(c->t->reg, tg->name, &n))) {
		for (size_t i = 0; i < n; i++)
			ot_vec_push(&c->tr->suggestions, ot_arena_printf(c->a, "aten::%s", ov[i]->schema.full));
		return;
	}
	n = ot_resolve_suggest(out, 3, c->tr->target.canonical, cand->items, cand->len);
	for (size_t i = 0; i < n; i++)
		ot_vec_push(&c->tr->suggestions, ot_arena_strdup(c->a, out[i]));
}

/* ---- the tracer ---------------------------------------------------------------------------- */

/* The overloads the Python bindings' generator leaves out: the quoted
 * signatures of its SKIP_PYTHON_BINDINGS_SIGNATURES list, by full name. */
static ot_map *python_hidden(const ot_index *ix, ot_arena *a)
{
	ot_map *m = ot_map_new();
	int64_t id = ot_index_file_id(ix, OT_INDEX_PYBIND_CODEGEN_PATH);
	const ot_ix_file *f = id >= 0 ? ot_index_file(ix, (uint32_t)id) : NULL;
	const char *p = f ? strstr(f->text, "SKIP_PYTHON_BINDINGS_SIGNATURES = [") : NULL;
	const char *end = p ? strchr(p, ']') : NULL;
	for (; p && end && (p = strchr(p, '"')) && p < end; p++) {
		const char *q = strchr(p + 1, '"');
		size_t k;
		if (!q || q > end)
			break;
		k = strcspn(p + 1, "(\"");
		ot_map_put(m, ot_arena_strndup(a, p + 1, k), (void *)1);
		p = q;
	}
	return m;
}

ot_tracer *ot_tracer_new(const ot_registry *reg, const ot_index *ix, const ot_wellknown *wk,
			 const ot_tracer_opts *opts)
{
	ot_tracer *t = ot_calloc(1, sizeof(*t));
	t->reg = reg;
	t->ix = ix;
	t->wk = wk;
	t->opts.max_depth = 1;
	t->opts.helper_depth = 3;
	if (opts)
		t->opts = *opts;
	t->build = ot_build_for(t->opts.version);
	t->arena = ot_arena_new();
	t->f_native = ot_index_file_id(ix, OT_REGISTRY_NATIVE_PATH);
	t->f_deriv = ot_index_file_id(ix, OT_REGISTRY_DERIV_PATH);
	t->f_vf = ot_index_file_id(ix, "torch/_VF.py");
	t->f_init = ot_index_file_id(ix, "torch/__init__.py");
	t->f_tensor = ot_index_file_id(ix, "torch/_tensor.py");
	t->f_view_copy = ot_index_file_id(ix, OT_INDEX_VIEW_COPY_CODEGEN_PATH);
	t->f_view_copy_kernel = ot_index_file_id(ix, OT_INDEX_VIEW_COPY_KERNEL_PATH);
	t->f_tensor_iter = ot_index_file_id(ix, OT_INDEX_TENSOR_ITERATOR_PATH);
	t->ti_cpu_line = ot_index_find_line(ix, t->f_tensor_iter, "if (common_device == kCPU) {");
	t->ti_differs_line = ot_index_find_line(ix, t->f_tensor_iter,
						"promote_inputs_to_common_dtype_ && !op.is_output && op.current_dtype != common_dtype_");
	t->ti_promote_line = ot_index_find_line(ix, t->f_tensor_iter, "op.tensor().to(common_dtype_)");
	t->autograd = ot_autograd_new(ix, reg);
	t->ck = ot_callkinds_new(ix, reg);
	t->bodies = ot_bodies_new(ix);
	t->py_hidden = python_hidden(ix, t->arena);
	build_candidates(t);
	return t;
}

void ot_tracer_free(ot_tracer *t)
{
	if (!t)
		return;
	for (int s = 0; s < OT_STRAT_COUNT; s++)
		ot_vec_free(&t->cand[s]);
	ot_callkinds_free(t->ck);
	ot_bodies_free(t->bodies);
	ot_map_free(t->py_hidden);
	ot_autograd_free(t->autograd);
	ot_arena_free(t->arena);
	free(t);
}

/* The well-known early exit: the reference's page, linking the entry. */
static void wellknown_exit(struct tb_ctx *c)
{
	ot_trace *tr = c->tr;
	const ot_registry *reg = c->t->reg;
	const ot_reg_func *entry = NULL;
	size_t n;
	const ot_reg_func *const *ov;
	tr->is_wellknown = true;
	tr->status = OT_STATUS_WELLKNOWN;
	/* the overload named (aten::mm.out), else the reference's aten name's
	 * default overload */
	if (tr->target.strategy == OT_STRAT_ATEN && tr->target.overload[0])
		entry = ot_registry_find(reg, ot_arena_printf(c->a, "%s.%s", tr->target.name,
							      tr->target.overload));
	if (!entry && tr->wellknown.aten && (ov = ot_registry_overloads(reg, tr->wellknown.aten, &n))) {
		entry = ov[0];
		for (size_t i = 0; i < n; i++)
			if (!*ov[i]->schema.overload) {
				entry = ov[i];
				break;
			}
	}
	if (entry) {
		ot_node nd = {0};
		long id;
		nd.kind = OT_NODE_ENTRY;
		nd.layer = OT_LAYER_YAML;
		nd.found = true;
		nd.line = (uint32_t)entry->line;
		nd.symbol = entry->schema.full;
		nd.note = entry->func;
		nd.op = entry->schema.full;
		id = tb_node(c, &nd, (uint32_t)c->t->f_native, entry, NULL, NULL);
		ot_vec_push(&tr->aten, ot_arena_strdup(c->a, entry->schema.full));
		tr->overload = tr->aten.items[0];
		if (id >= 0) {
			ot_vec_push(&tr->roots, (uint32_t)id);
			tr->main_roots = 1;
		}
	}
}

/* Remove the nodes the builders dropped (helpers and Python functions with
 * nothing beneath) and the edges touching them; renumber the rest. */
static void compact(struct tb_ctx *c)
{
	ot_trace *tr = c->tr;
	size_t n = tr->nodes.len, kept = 0, ke = 0;
	uint32_t *map = ot_calloc(n ? n : 1, sizeof(*map));
	uint8_t *reached = ot_calloc(n ? n : 1, 1);
	/* what a root reaches through edges of kept nodes: an entry made by
	 * a call matched by name in a helper that was dropped (Vectorized's
	 * div.floor()) is reached by nothing */
	{
		bool more = true;
		for (size_t i = 0; i < tr->roots.len; i++)
			reached[tr->roots.items[i]] = !c->state.items[tr->roots.items[i]].dropped;
		while (more) {
			more = false;
			for (size_t i = 0; i < tr->edges.len; i++) {
				const ot_edge *e = &tr->edges.items[i];
				if (reached[e->from] && !reached[e->to] && !c->state.items[e->to].dropped) {
					reached[e->to] = 1;
					more = true;
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (c->state.items[i].dropped || !reached[i]) {
			map[i] = UINT32_MAX;
			continue;
		}
		map[i] = (uint32_t)kept;
		tr->nodes.items[kept++] = tr->nodes.items[i];
	}
	tr->nodes.len = kept;
	for (size_t i = 0; i < tr->edges.len; i++) {
		ot_edge e = tr->edges.items[i];
		if (map[e.from] == UINT32_MAX || map[e.to] == UINT32_MAX)
			continue;
		e.from = map[e.from];
		e.to = map[e.to];
		tr->edges.items[ke++] = e;
	}
	tr->edges.len = ke;
	{
		size_t r = 0, main_kept = 0;
		for (size_t i = 0; i < tr->roots.len; i++) {
			if (map[tr->roots.items[i]] == UINT32_MAX)
				continue;
			tr->roots.items[r++] = map[tr->roots.items[i]];
			if (i < tr->main_roots)
				main_kept++;
		}
		tr->roots.len = r;
		tr->main_roots = main_kept;
	}
	free(reached);
	free(map);
}

/* Fingerprint the definitions on the main paths: optrace diff tells by them
 * whether the code a default call runs changed. */
static void fingerprint_main(struct tb_ctx *c)
{
	for (size_t i = 0; i < c->tr->nodes.len; i++) {
		ot_node *n = &c->tr->nodes.items[i];
		switch (n->kind) {
		case OT_NODE_PYFUNC:
		case OT_NODE_CFUNC:
		case OT_NODE_META:
		case OT_NODE_DERIV:
		case OT_NODE_DECOMP:
			if (n->main && n->found) {
				const char *fp = ot_bodies_get(c->t->bodies, n->file, n->line);
				n->body = fp ? ot_arena_strdup(c->a, fp) : NULL;
			}
			break;
		default:
			break;
		}
	}
}

/* Does the op `target` names (aten::addbmm_, Tensor.addbmm_,
 * torch.ops.aten.addbmm_.default) have an entry of its own in
 * native_functions.yaml? Then a pattern entry of the reference ("_": some
 * in-place op) does not answer for it: its own kernels are traced. */
static bool has_own_entry(const ot_tracer *t, const ot_target *target)
{
	size_t n;
	return ot_registry_overloads(t->reg, target->name, &n) != NULL;
}

ot_trace *ot_trace_op(const ot_tracer *t, const char *input, bool full, int max_depth)
{
	ot_trace *tr = ot_trace_new();
	struct tb_ctx c = {0};

	tr->input = ot_arena_strdup(tr->arena, input);
	tr->full = full || t->opts.full;
	tr->build = ot_build_describe(t->build);
	c.t = t;
	c.ix = t->ix;
	c.tr = tr;
	c.a = tr->arena;
	c.scratch = ot_arena_new();
	c.keys = ot_map_new();
	c.edges = ot_map_new();
	c.paths = ot_map_new();
	c.max_depth = max_depth > 0 ? max_depth : t->opts.max_depth;

	if (ot_resolve_parse(&tr->target, input) < 0) {
		tr->status = OT_STATUS_ERROR;
		tb_message(&c, "%s", ot_error_last());
		goto done;
	}
	if (t->f_native < 0) {
		tr->status = OT_STATUS_ERROR;
		tb_message(&c, "%s is not in the indexed tree", OT_REGISTRY_NATIVE_PATH);
		goto done;
	}
	if (!tr->full && t->wk && tr->target.strategy != OT_STRAT_MODULE &&
	    ot_wellknown_lookup(&tr->wellknown, t->wk, input) &&
	    !(tr->wellknown.pattern && has_own_entry(t, &tr->target))) {
		wellknown_exit(&c);
		goto passes;
	}
	if (!tb_start(&c)) {
		tr->status = OT_STATUS_NOTFOUND;
		suggest(&c);
		goto done;
	}
	tr->main_roots = tr->roots.len ? 1 : 0; /* the strategy's entry point */
	tb_seed_sure(&c);
	/* the C++ half: every entry reached, in order (the queue grows) */
	{
		size_t next[2] = {0, 0};
		struct tb_pending p;
		while (next_pending(&c, next, &p)) {
			tb_expand_entry(&c, &p);
			tb_revisit(&c);
		}
	}
	if (!tr->aten.len && !c.queue.len) {
		uint32_t m = tb_missing(&c, OT_LAYER_YAML, "a call into an aten op",
					"the Python code of this op", NULL, 0);
		if (tr->roots.len)
			tb_edge(&c, &(ot_edge){.kind = OT_EDGE_CALL, .from = tr->roots.items[0], .to = m,
					       .exact = true, .reach = {OT_REACH_YES, OT_REACH_YES}});
		else
			ot_vec_push(&tr->roots, m), tr->main_roots = 1;
	}
	tr->status = OT_STATUS_TRACED;
	compact(&c);
passes:
	ot_trace_index(tr);
	ot_trace_mark(tr);
	fingerprint_main(&c);
	ot_trace_summarize(tr);
	ot_trace_make_steps(tr);
done:
	ot_arena_free(c.scratch);
	ot_vec_free(&c.queue);
	ot_vec_free(&c.next_out);
	ot_vec_free(&c.revisit);
	ot_vec_free(&c.sure_first);
	ot_vec_free(&c.sure_work);
	ot_vec_free(&c.state);
	ot_map_free(c.keys);
	ot_map_free(c.edges);
	ot_map_free(c.paths);
	return tr;
}
