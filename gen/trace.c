/*
 * trace.c - walk one op through the layers (see trace.h and SPEC §3).
 *
 * The walk has two halves. The Python half starts at what the user wrote
 * (a module class, a functional, a torch function, a Tensor method) and
 * follows Python bodies until calls cross into C++ (_VF.x, torch._C._nn.x,
 * torch.x, tensor methods); each crossing names an aten op. The C++ half
 * takes every aten op reached, in order, through native_functions.yaml,
 * the kernels of its dispatch table, the DispatchStubs those kernels call
 * and the kernels registered for them, down to GPU libraries, then
 * derivatives.yaml and decompositions. Composite ops reach further ops
 * (branches), followed to a bounded depth with cycles cut.
 */
#include "trace.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "autograd.h"
#include "buf.h"

struct ot_tracer {
	const ot_registry *reg;
	const ot_index *ix;
	const ot_wellknown *wk;
	ot_tracer_opts opts;
	int64_t f_native, f_deriv, f_vf, f_init;
	ot_arena *arena;
	/* suggestion candidates per strategy, as the user would write them */
	ot_strvec cand[OT_STRAT_COUNT];
	ot_map *calls; /* call name -> struct call_info, for every name called in C++ */
	ot_autograd *autograd; /* where gradients come from */
};

/* What a name called in a C++ body is, worked out once per tracer (explore
 * looks at every call of every body it follows). */
struct call_info {
	bool selection;     /* a runtime selection point: use_cudnn(...) */
	const char *op;     /* the registry op it names (at::_foo_symint -> _foo), or NULL;
			       metadata queries (size, dim...) are not ops here */
	bool op_method;     /* that op has a Tensor method variant */
	bool stub;          /* a DispatchStub */
};

/* ---- names ----------------------------------------------------------------- */

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

/* ---- per-op walk state ---------------------------------------------------------- */

struct pending_op {
	const char *name;     /* aten base name */
	const char *overload; /* only this overload, or NULL for all */
	int depth;
	int parent;           /* step that reached it */
};

struct ctx {
	const ot_tracer *t;
	const ot_index *ix;
	ot_trace *tr;
	ot_arena *a;
	ot_map *seen;  /* visited Python defs, C++ defs, stubs, ops (keys in arena) */
	OT_VEC(struct pending_op) queue;
	int max_depth; /* composite branches followed for this op */
};

static const char *fpath(const struct ctx *c, uint32_t file)
{
	return ot_index_file(c->ix, file)->path;
}

/* First visit of `what` (a pointer or name) under `kind`? */
/* First visit of (kind, ptr, name)? ptr and name may each be NULL. The key
 * is built by hand: this runs for every call of every explored body. */
static bool first_visit(struct ctx *c, const char *kind, const void *ptr, const char *name)
{
	char key[256];
	size_t n = strlen(kind), m = name ? strlen(name) : 0;
	uintptr_t v = (uintptr_t)ptr;
	if (n + m + 2 * sizeof(v) + 3 > sizeof(key))
		m = sizeof(key) - n - 2 * sizeof(v) - 3;
	memcpy(key, kind, n);
	key[n++] = ':';
	for (int shift = (int)(8 * sizeof(v)) - 4; shift >= 0; shift -= 4)
		key[n++] = "0123456789abcdef"[(v >> shift) & 15];
	key[n++] = ':';
	memcpy(key + n, name ? name : "", m);
	key[n + m] = '\0';
	if (ot_map_get(c->seen, key))
		return false;
	ot_map_put(c->seen, ot_arena_strndup(c->a, key, n + m), (void *)1);
	return true;
}

/* Add `s` to `v` unless there: a hash set (c->seen, keyed by the vector
 * and the string), since a list can be long (an entry with 60,000
 * dispatch keys). */
static void strvec_add_unique(struct ctx *c, ot_strvec *v, const char *s)
{
	ot_buf key = OT_BUF_INIT;
	ot_buf_printf(&key, "%p\x01%s", (void *)v, s);
	if (!ot_map_get(c->seen, key.ptr)) {
		ot_map_put(c->seen, ot_arena_strndup(c->a, key.ptr, key.size), (void *)1);
		ot_vec_push(v, ot_arena_strdup(c->a, s));
	}
	ot_buf_free(&key);
}

static void message(struct ctx *c, const char *fmt, ...) OT_PRINTF(2, 3);
static void message(struct ctx *c, const char *fmt, ...)
{
	ot_buf b = OT_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ot_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	strvec_add_unique(c, &c->tr->messages, b.ptr);
	ot_buf_free(&b);
}

/* add_step's answer for a step whose file:line check failed; steps added
 * beneath it are dropped too (a parent of -1 is the root) */
#define STEP_DROPPED (-2)

/*
 * Record a found fact. The line must contain the symbol; a mismatch would be
 * a scanner bug, and is recorded as such (a message) rather than printed as
 * a fact. Returns the step's index (an equal step's, when there is one), or
 * STEP_DROPPED.
 */

static int add_step(struct ctx *c, int parent, ot_layer layer, uint32_t file, uint32_t line,
		    const char *symbol, const char *note, const char *op, const char *backend,
		    int depth)
{
	ot_trace *tr = c->tr;
	const char *path = fpath(c, file);
	ot_step s = {0};

	if (parent == STEP_DROPPED)
		return STEP_DROPPED; /* beneath a step that failed its check */
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *o = &tr->steps.items[i];
		/* the same code line for another op (mm.out's kernel, seen before as a
		 * helper of mm) is a fact of its own; a registry entry is one fact
		 * however it was reached (as _softmax's delegate or on its own) */
		if (o->found && o->layer == layer && o->line == line && !strcmp(o->file, path) &&
		    !strcmp(o->symbol, symbol) &&
		    (layer == OT_LAYER_YAML || !strcmp(o->op, op ? op : "")))
			return (int)i;
	}
	if (!ot_index_line_has(c->ix, file, line, symbol)) {
		message(c, "internal: %s:%u does not contain '%s'; step dropped", path, line, symbol);
		return STEP_DROPPED;
	}
	s.parent = parent;
	s.layer = layer;
	s.found = true;
	s.file = path;
	s.line = line;
	s.symbol = ot_arena_strdup(c->a, symbol);
	s.note = ot_arena_strdup(c->a, note ? note : "");
	s.op = ot_arena_strdup(c->a, op ? op : "");
	s.backend = ot_arena_strdup(c->a, backend ? backend : "");
	s.depth = (uint8_t)(depth > 255 ? 255 : depth);
	ot_vec_push(&tr->steps, s);
	return (int)tr->steps.len - 1;
}

static int add_missing(struct ctx *c, int parent, ot_layer layer, const char *what,
		       const char *where, const char *op, int depth)
{
	ot_trace *tr = c->tr;
	ot_step s = {0};
	char *note;
	if (parent == STEP_DROPPED)
		return STEP_DROPPED;
	note = ot_arena_printf(c->a, "not found: %s in %s", what, where);
	for (size_t i = 0; i < tr->steps.len; i++)
		if (!tr->steps.items[i].found && !strcmp(tr->steps.items[i].note, note))
			return (int)i;
	s.parent = parent;
	s.layer = layer;
	s.found = false;
	s.symbol = ot_arena_strdup(c->a, what);
	s.note = note;
	s.op = ot_arena_strdup(c->a, op ? op : "");
	s.backend = "";
	s.depth = (uint8_t)depth;
	ot_vec_push(&tr->steps, s);
	return (int)tr->steps.len - 1;
}

static uint32_t find_line(const struct ctx *c, int64_t file, const char *needle)
{
	return ot_index_find_line(c->ix, file, needle);
}

static bool path_in(const char *path, const char *prefix)
{
	return ot_starts_with(path, prefix);
}

/* ---- aten ops: queueing ------------------------------------------------------------ */

/* Metadata queries that are ops in the registry but say nothing about how a
 * computation is implemented. */
static const char *const metadata_methods[] = {
	"size",  "sizes",   "sym_size", "sym_sizes", "dim",      "ndimension", "numel",
	"stride", "strides", "sym_stride", "options", "dtype",   "device",     "scalar_type",
	"is_contiguous", "data_ptr", "item", "defined", "layout", "is_cuda", "is_cpu",
	"is_mps", "is_sparse", "is_nested", "is_complex", "is_floating_point", "requires_grad",
	"storage_offset", "sym_numel", "get_device", "is_same_size", "nelement", "is_conj",
	"is_neg", "is_leaf", "output_nr", "_version", "data", "has_names", "names",
	"is_quantized", "is_meta", "qscheme", "element_size", "is_signed", "is_set_to",
	"tolist", "type", "suggest_memory_format", "is_non_overlapping_and_dense", "retain_grad",
	"requires_grad_", "is_inference", "is_pinned", "sym_storage_offset"};

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, *(const char *const *)b);
}

static const char *sorted_metadata[OT_ARRAY_LEN(metadata_methods)];
static pthread_once_t metadata_once = PTHREAD_ONCE_INIT;

static void sort_metadata(void)
{
	memcpy(sorted_metadata, metadata_methods, sizeof(sorted_metadata));
	qsort(sorted_metadata, OT_ARRAY_LEN(sorted_metadata), sizeof(char *), ot_strptr_cmp);
}

static bool is_metadata_method(const char *name)
{
	pthread_once(&metadata_once, sort_metadata);
	return bsearch(name, sorted_metadata, OT_ARRAY_LEN(sorted_metadata), sizeof(char *),
		       cmp_str) != NULL;
}

static bool has_variant(const ot_registry *reg, const char *name, bool method)
{
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(reg, name, &n);
	for (size_t i = 0; i < n; i++)
		if (method ? ov[i]->variant_method : ov[i]->variant_function)
			return true;
	return false;
}

/* The groups of the well-known reference whose ops compute (math,
 * reductions, comparisons, indexing), as opposed to creation, shape and
 * dtype bookkeeping. */
static bool computing_group(const char *group)
{
	return !strcmp(group, "math") || !strcmp(group, "reduction") ||
	       !strcmp(group, "comparison") || !strcmp(group, "indexing");
}

/* Branches that are well-known ops are not followed: their pages are the
 * reference's. When the op itself was asked for in full, the computing ones
 * (matmul -> mm, bmm, dot) are followed; bookkeeping never is. */
static bool is_wellknown_op(const struct ctx *c, const char *name)
{
	ot_wellknown_match m;
	if (!c->t->wk || !ot_wellknown_lookup(&m, c->t->wk, name))
		return false;
	return !c->tr->full || !computing_group(m.group);
}

/* A well-known op that computes (shown as a branch even when not followed). */
static bool computing_wellknown(const struct ctx *c, const char *name)
{
	ot_wellknown_match m;
	return c->t->wk && ot_wellknown_lookup(&m, c->t->wk, name) && computing_group(m.group);
}

static void queue_op(struct ctx *c, const char *name, const char *overload, int depth, int parent)
{
	struct pending_op p = {ot_arena_strdup(c->a, name),
			       overload && *overload ? ot_arena_strdup(c->a, overload) : NULL,
			       depth, parent};
	char key[200];
	snprintf(key, sizeof(key), "%s.%s", name, overload ? overload : "*");
	if (!first_visit(c, "op", NULL, key))
		return;
	if (depth > 0)
		strvec_add_unique(c, &c->tr->calls, name);
	ot_vec_push(&c->queue, p);
}

/* ---- Python ---------------------------------------------------------------------------- */

/* The last top-level record named `name` in `path` (Python: the last
 * definition wins), of any kind but class unless `want_class`. */
static const ot_ix_pydef *py_top(const struct ctx *c, const char *name, const char *path,
				 bool want_class)
{
	const ot_ix_pydef *best = NULL;
	for (const ot_ix_pydef *p = ot_index_pydefs(c->ix, name); p; p = p->next) {
		if (p->parent || strcmp(fpath(c, p->file), path))
			continue;
		if ((p->kind == OT_PY_CLASS) != want_class)
			continue;
		best = p;
	}
	return best;
}

/* A class named `name`: in `prefer_file` first, then under `dir`. */
static const ot_ix_pydef *py_class(const struct ctx *c, const char *name, const char *prefer_file,
				   const char *dir)
{
	const ot_ix_pydef *any = NULL;
	for (const ot_ix_pydef *p = ot_index_pydefs(c->ix, name); p; p = p->next) {
		if (p->kind != OT_PY_CLASS || p->parent)
			continue;
		if (prefer_file && !strcmp(fpath(c, p->file), prefer_file))
			return p;
		if (!any && path_in(fpath(c, p->file), dir))
			any = p;
	}
	return any;
}

/* Method `name` of class `cls`, following base classes (breadth-first by
 * declaration order, depth-bounded). The last definition in a class wins. */
static const ot_ix_pydef *py_method(const struct ctx *c, const ot_ix_pydef *cls, const char *name,
				    int depth)
{
	const ot_ix_pydef *found = NULL;
	const char *bases, *s;
	if (!cls || depth > 8)
		return NULL;
	for (const ot_ix_pydef *p = ot_index_pydefs(c->ix, name); p; p = p->next)
		if (p->parent == cls && p->kind == OT_PY_DEF)
			found = p;
	if (found)
		return found;
	bases = cls->bases ? cls->bases : "";
	for (s = bases; *s;) {
		char base[128];
		size_t n = strcspn(s, ",");
		const char *last;
		snprintf(base, sizeof(base), "%.*s", (int)(n < sizeof(base) ? n : sizeof(base) - 1), s);
		/* "nn.Module" -> "Module"; "Generic[T]" -> "Generic" */
		base[strcspn(base, "[")] = '\0';
		last = strrchr(base, '.');
		last = last ? last + 1 : base;
		if (*last && strcmp(last, "object") && !strchr(last, '=')) {
			const ot_ix_pydef *b = py_class(c, last, fpath(c, cls->file), "torch/nn/");
			if (b && b != cls) {
				const ot_ix_pydef *m = py_method(c, b, name, depth + 1);
				if (m)
					return m;
			}
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return NULL;
}

static const char *const bridge_prefixes[][2] = {
	{"torch._C._nn.", "nn"},         {"torch._C._linalg.", "linalg"},
	{"torch._C._fft.", "fft"},       {"torch._C._special.", "special"},
	{"torch._C._nested.", "nested"}, {"torch._C._sparse.", "sparse"},
	{"_linalg.", "linalg"},          {"_fft.", "fft"},
	{"_special.", "special"},        {"_nested.", "nested"},
	{"_nn.", "nn"},                  {"torch._C._VariableFunctions.", ""},
	{"_VF.", ""},                    {"torch._VF.", ""},
	{"torch.ops.aten.", ""},
};

static bool follow_py(struct ctx *c, const ot_ix_pydef *def, const ot_ix_pydef *cls, int depth,
		      int parent, bool keep);

/* Forget the steps added since `mark` (the new step `at` and everything
 * beneath it), unless `at` is an earlier, equal step or none was added. */
static void drop_steps_since(struct ctx *c, size_t mark, int at)
{
	if (at >= 0 && (size_t)at >= mark)
		c->tr->steps.len = mark;
}

/*
 * A Python call at `line` of `def` to the Python function `f`: a step under
 * `parent` (at `depth`) that stays only when following `f` (at `fdepth`)
 * reaches C++.
 */
static bool follow_call(struct ctx *c, int parent, const ot_ix_pydef *def, uint32_t line,
			const char *path, const char *note, const ot_ix_pydef *f, int depth,
			int fdepth)
{
	size_t mark = c->tr->steps.len;
	int at = add_step(c, parent, OT_LAYER_PYTHON, def->file, line, path, note, NULL, NULL,
			  depth);
	bool found = follow_py(c, f, NULL, fdepth, at, false);
	if (!found)
		drop_steps_since(c, mark, at);
	return found;
}

/*
 * A Python call or reference that crosses into C++ and names aten op `name`:
 * record the crossing (once per op and Python function) and queue the op.
 * Well-known ops are listed as calls but not followed, unless the op was
 * asked for in full. Returns true when the op will be traced.
 */
static bool reach_op(struct ctx *c, const ot_ix_pydef *def, const ot_ix_pyref *r,
		     const char *name, const char *note, int parent)
{
	int at;
	if (is_metadata_method(name) || !ot_registry_overloads(c->t->reg, name, &(size_t){0}))
		return false;
	if (!first_visit(c, "pyop", def, name))
		return false;
	if (is_wellknown_op(c, name)) {
		strvec_add_unique(c, &c->tr->calls, name);
		return false;
	}
	at = add_step(c, parent, OT_LAYER_BRIDGE, def->file, r->line, r->path, note, NULL, NULL, 0);
	if (!strcmp(r->path, ot_arena_printf(c->a, "_VF.%s", name)) ||
	    !strcmp(r->path, ot_arena_printf(c->a, "torch._VF.%s", name))) {
		/* the forwarding code, not the module docstring that mentions it */
		uint32_t l = find_line(c, c->t->f_vf, "= torch._C._VariableFunctions");
		if (l && at >= 0)
			at = add_step(c, at, OT_LAYER_BRIDGE, (uint32_t)c->t->f_vf, l, "_VariableFunctions",
				      "torch._VF is torch._C._VariableFunctions: generated C++ bindings",
				      NULL, NULL, 0);
	}
	queue_op(c, name, NULL, 0, at);
	return true;
}

static bool py_bridge(struct ctx *c, const ot_ix_pydef *def, const ot_ix_pyref *r,
		      const char *prefix, const char *module, int parent)
{
	const char *op = r->path + strlen(prefix);
	char name[128], note[256];
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(op, "."), op);
	if (!*name)
		return false;
	if (!strcmp(prefix, "_VF.") || !strcmp(prefix, "torch._VF."))
		snprintf(note, sizeof(note), "_VF.%s: torch/_VF.py forwards to torch._C._VariableFunctions.%s", name, name);
	else if (!strcmp(prefix, "torch.ops.aten."))
		snprintf(note, sizeof(note), "torch.ops.aten.%s: the dispatcher's op handle", name);
	else if (*module)
		snprintf(note, sizeof(note), "generated binding in torch._C._%s (python_module: %s)",
			 module, module);
	else
		snprintf(note, sizeof(note), "generated binding in torch._C._VariableFunctions");
	return reach_op(c, def, r, name, note, parent);
}

/* The Python call `torch.x(` / `F.x(` / `self.x(` / `x(` / `t.x(` at r.
 * Returns true when it leads to an aten op that will be traced. */
static bool py_call(struct ctx *c, const ot_ix_pydef *def, const ot_ix_pydef *cls,
		    const ot_ix_pyref *r, int depth, int parent)
{
	const char *path = r->path;
	const char *dot = strrchr(path, '.');
	const char *last = dot ? dot + 1 : path;
	int ndots = 0;
	for (const char *p = path; *p; p++)
		ndots += *p == '.';

	for (size_t i = 0; i < OT_ARRAY_LEN(bridge_prefixes); i++)
		if (ot_starts_with(path, bridge_prefixes[i][0]))
			return py_bridge(c, def, r, bridge_prefixes[i][0], bridge_prefixes[i][1], parent);
	if (ot_starts_with(path, "F.") || ot_starts_with(path, "torch.nn.functional.")) {
		const ot_ix_pydef *f = py_top(c, last, "torch/nn/functional.py", false);
		bool found = false;
		if (f && ndots == (ot_starts_with(path, "F.") ? 1 : 3)) {
			found = follow_call(c, parent, def, r->line, path, "calls the functional", f,
					    depth, depth);
		}
		return found;
	}
	if (ot_starts_with(path, "torch.") && ndots == 1) {
		const ot_ix_pydef *f = py_top(c, last, "torch/functional.py", false);
		if (f) {
			return follow_call(c, parent, def, r->line, path,
					   "calls a Python wrapper in torch/functional.py", f, depth, depth);
		}
		if (has_variant(c->t->reg, last, false))
			return reach_op(c, def, r, last,
					"generated binding in torch._C._VariableFunctions", parent);
		return false;
	}
	if (ot_starts_with(path, "self.") && ndots == 1) {
		const ot_ix_pydef *m = py_method(c, cls, last, 0);
		return m && m != def && follow_py(c, m, cls, depth, parent, false);
	}
	if (!dot) {
		/* a module-level helper of the same file */
		const ot_ix_pydef *f = py_top(c, path, fpath(c, def->file), false);
		return f && f != def && f->kind == OT_PY_DEF && follow_py(c, f, NULL, depth, parent, false);
	}
	if (ndots == 1 && !ot_starts_with(path, "torch.") && has_variant(c->t->reg, last, true)) {
		/* a Tensor method: input.softmax(dim) */
		char note[200];
		snprintf(note, sizeof(note), "Tensor method %s (generated binding on the C++ Tensor base class)", last);
		return reach_op(c, def, r, last, note, parent);
	}
	return false;
}

/*
 * Follow a Python function (or assignment): record it, then what it calls.
 * A function reached on the way (keep false) stays in the trace only when
 * something beneath it reaches an aten op. Returns whether one was reached.
 */
static bool follow_py(struct ctx *c, const ot_ix_pydef *def, const ot_ix_pydef *cls, int depth,
		      int parent, bool keep)
{
	size_t mark = c->tr->steps.len;
	bool found = false;
	int self;
	if (!def || depth > 6 || !first_visit(c, "py", def, NULL))
		return false;
	if (def->kind == OT_PY_DEF && def->parent && def->parent->kind == OT_PY_CLASS)
		cls = def->parent;
	if (def->kind == OT_PY_ASSIGN) {
		self = add_step(c, parent, OT_LAYER_PYTHON, def->file, def->line, def->name,
				"defined by assignment (no Python body)", NULL, NULL, depth);
	} else {
		char sym[160], note[200];
		snprintf(sym, sizeof(sym), "def %s", def->name);
		snprintf(note, sizeof(note), "%s%s",
			 cls ? "method of class " : "Python function",
			 cls ? cls->name : "");
		self = add_step(c, parent, OT_LAYER_PYTHON, def->file, def->line, sym, note, NULL, NULL,
				depth);
	}
	for (uint32_t i = 0; i < def->nrefs; i++) {
		const ot_ix_pyref *r = &def->refs[i];
		if (def->kind == OT_PY_ASSIGN && !r->call && !strchr(r->path, '.')) {
			/* boolean_dispatch(if_true=a, if_false=b): both are branches */
			const ot_ix_pydef *f = py_top(c, r->path, fpath(c, def->file), false);
			if (f && f != def && follow_call(c, self, def, r->line, r->path,
							 "branch chosen at call time", f, depth, depth + 1))
				found = true;
			continue;
		}
		if (!r->call && def->kind != OT_PY_ASSIGN)
			continue;
		if (py_call(c, def, cls, r, depth, self))
			found = true;
	}
	if (!found && !keep)
		drop_steps_since(c, mark, self); /* nothing reached C++ from here */
	return found;
}

/* ---- C++ --------------------------------------------------------------------------------- */

static bool is_gpu_file(const char *path)
{
	return strstr(path, "/cuda/") || strstr(path, "/cudnn/") || strstr(path, "/miopen/") ||
	       strstr(path, "/hip/") || ot_ends_with(path, ".cu") || ot_ends_with(path, ".cuh");
}

/* Which backend a kernel file belongs to, from its folder. */
static const char *file_backend(const char *path)
{
	if (is_gpu_file(path))
		return "CUDA";
	if (strstr(path, "/mps/"))
		return "MPS";
	if (strstr(path, "/cpu/"))
		return "CPU";
	return "";
}

/* Is `n` a name of the C API whose functions start with `prefix` and go on
 * in camelCase? */
static bool api_prefix(const char *n, const char *prefix)
{
	size_t k = strlen(prefix);
	return !strncmp(n, prefix, k) && isupper((unsigned char)n[k]);
}

static const char *gpu_lib_of(const ot_ix_call *call)
{
	const char *n = call->name, *q = call->qual;
	if (call->kind == OT_CALL_LAUNCH || call->kind == OT_CALL_MACRO_LAUNCH)
		return OT_GPU_CUSTOM_KERNEL;
	/* this runs for every call of every explored body: look at the first
	 * letter before comparing prefixes */
	switch (n[0]) {
	case 'c':
		/* the libraries' C APIs are camelCase (cudnnRNNForward, cublasSgemm);
		 * cudnn_is_acceptable and cudnn_convolution are PyTorch's own */
		if (api_prefix(n, "cudnn"))
			return "cuDNN";
		if (api_prefix(n, "cublasLt"))
			return "cuBLASLt";
		if (api_prefix(n, "cublas"))
			return "cuBLAS";
		if (api_prefix(n, "cufft"))
			return "cuFFT";
		if (api_prefix(n, "cusolver"))
			return "cuSOLVER";
		if (api_prefix(n, "cusparse"))
			return "cuSPARSE";
		if (api_prefix(n, "curand"))
			return "cuRAND";
		break;
	case 'm':
		/* MAGMA's API is snake_case (magma_sgetrf_gpu); magma_int_cast is
		 * PyTorch's, and its magmaLu<T>... wrappers stand for the calls */
		if (ot_starts_with(n, "magma") && strcmp(n, "magma_int_cast") != 0)
			return "MAGMA";
		if (api_prefix(n, "miopen"))
			return "MIOpen";
		break;
	case 'g':
	case 'j':
	case 'o':
		if (!strcmp(n, "gpu_kernel") || !strcmp(n, "gpu_kernel_with_scalars") ||
		    !strcmp(n, "opmath_gpu_kernel_with_scalars") ||
		    !strcmp(n, "opmath_symmetric_gpu_kernel_with_scalars") ||
		    !strcmp(n, "jitted_gpu_kernel") || !strcmp(n, "gpu_reduce_kernel") ||
		    !strcmp(n, "gpu_kernel_multiple_outputs"))
			return OT_GPU_TI_KERNEL;
		break;
	}
	if (!*q)
		return NULL;
	if (strstr(q, "cuda::blas"))
		return "cuBLAS";
	if (ot_starts_with(q, "thrust"))
		return "Thrust";
	if (!strcmp(q, "cub") || ot_ends_with(q, "::cub") || ot_starts_with(q, "cub::"))
		return "CUB";
	return NULL;
}

static bool is_selection_point(const char *n)
{
	return !strcmp(n, "cudnn_is_acceptable") || ot_starts_with(n, "use_") ||
	       ot_starts_with(n, "_use_") || ot_starts_with(n, "should_use") ||
	       ot_starts_with(n, "can_use_") || strstr(n, "_sdp_choice") ||
	       !strcmp(n, "select_sdp_backend") || !strcmp(n, "userEnabledCuDNN") ||
	       !strcmp(n, "userEnabledMkldnn");
}

/* The text of a call as it appears in the source ("at::cuda::blas::gemm"). */
static const char *call_text(struct ctx *c, const ot_ix_call *call)
{
	if (*call->qual)
		return ot_arena_printf(c->a, "%s::%s", call->qual, call->name);
	return call->name;
}

/* Is `d` in namespace at::native (where dispatch tables point)? */
static bool in_at_native(const ot_ix_cdef *d)
{
	char full[600];
	if (*d->qual)
		snprintf(full, sizeof(full), "%s%s%s", d->ns, *d->ns ? "::" : "", d->qual);
	else
		snprintf(full, sizeof(full), "%s", d->ns);
	return !strcmp(full, "at::native") || !strcmp(full, "::at::native");
}

/* Does definition `d` live where qualifier `qual` points ("at::native",
 * "native", "cuda::blas", "at::cuda::blas")? Its namespace and written
 * qualifier, joined, must end with the call's qualifier. */
static bool qual_matches(const ot_ix_cdef *d, const char *qual)
{
	char full[600];
	size_t n, m;
	if (qual[0] == ':' && qual[1] == ':')
		qual += 2;
	snprintf(full, sizeof(full), "%s%s%s", d->ns, *d->ns && *d->qual ? "::" : "", d->qual);
	n = strlen(full);
	m = strlen(qual);
	return m <= n && !strcmp(full + n - m, qual) && (m == n || full[n - m - 1] == ':');
}

/* Is namespace `outer` ("at::native") `inner` or one enclosing it
 * ("at::native::(anonymous)"), where unqualified lookup from inner reaches? */
static bool ns_encloses(const char *outer, const char *inner)
{
	size_t n = strlen(outer);
	return !strncmp(outer, inner, n) && (inner[n] == '\0' || (inner[n] == ':' && n > 0));
}

static bool plain_lowercase_word(const char *name)
{
	for (; *name; name++)
		if (!islower((unsigned char)*name) && !isdigit((unsigned char)*name))
			return false;
	return true;
}

/* Is this a definition we can follow as a C++ helper? */
static bool helper_candidate(const struct ctx *c, const ot_ix_cdef *d)
{
	const char *p = fpath(c, d->file);
	if (d->in_class || d->kind != OT_CDEF_FUNC)
		return false;
	return path_in(p, "aten/src/ATen/native/") || path_in(p, "aten/src/ATen/cuda/") ||
	       path_in(p, "aten/src/ATen/cudnn/") || path_in(p, "aten/src/ATen/mps/");
}

static void explore(struct ctx *c, const ot_ix_cdef *d, const char *op, int depth, int level,
		    int self, bool *interesting);
static void explore_helpers(struct ctx *c, const ot_ix_cdef *d, const ot_ix_call *call,
			    const char *op, int depth, int level, int self, bool *interesting);

static const char *stub_backend(const char *macro, const char *path)
{
	static const char *const map[][2] = {
		{"REGISTER_CUDA_DISPATCH", "CUDA"},     {"REGISTER_HIP_DISPATCH", "HIP"},
		{"REGISTER_MPS_DISPATCH", "MPS"},       {"REGISTER_NO_CPU_DISPATCH", "CPU (none)"},
		{"REGISTER_ARCH_DISPATCH", "CPU"},      {"REGISTER_AVX512_DISPATCH", "CPU AVX512"},
		{"ALSO_REGISTER_AVX512_DISPATCH", "CPU AVX512"},
		{"REGISTER_AVX2_DISPATCH", "CPU AVX2"}, {"REGISTER_VSX_DISPATCH", "CPU VSX"},
		{"REGISTER_ZVECTOR_DISPATCH", "CPU ZVECTOR"},
		{"REGISTER_SVE256_DISPATCH", "CPU SVE256"},
		{"REGISTER_PRIVATEUSE1_DISPATCH", "PrivateUse1"},
		{"REGISTER_ALL_CPU_DISPATCH", "CPU"},   {"REGISTER_XPU_DISPATCH", "XPU"},
		{"REGISTER_MTIA_DISPATCH", "MTIA"},
		{"REGISTER_DISPATCH", "CPU"},
	};
	/* CUDA sources redefine REGISTER_DISPATCH as REGISTER_CUDA_DISPATCH */
	if (!strcmp(macro, "REGISTER_DISPATCH") && is_gpu_file(path))
		return "CUDA";
	for (size_t i = 0; i < OT_ARRAY_LEN(map); i++)
		if (!strcmp(map[i][0], macro))
			return map[i][1];
	return "";
}

/* The text a definition's step shows: its name, or for a definition a macro
 * invocation generated, the invocation (the name is on no line). */
static const char *cdef_symbol(const ot_ix_cdef *d)
{
	return d->gen ? d->gen->site->text : d->name;
}

/* "generated by the macro OP(f, erfc, Erfc) defined at path:line[, through
 * OP_CUSTOM_FUNCTOR(f, erfc, Erfc) defined at path:line]" (in the arena). */
static const char *generated_note(const struct ctx *c, const ot_ix_cdef *d)
{
	const ot_ix_gen *g = d->gen;
	const ot_ix_minvoke *s = g->site;
	ot_buf b = OT_BUF_INIT;
	const char *out;
	ot_buf_printf(&b, "generated by the macro %s(", s->macro);
	for (uint16_t a = 0; a < s->nargs; a++)
		ot_buf_printf(&b, "%s%s", a ? ", " : "", s->args[a]);
	ot_buf_printf(&b, ") defined at %s:%u", fpath(c, g->macro->file), g->macro->line);
	if (g->inner)
		ot_buf_printf(&b, ", through %s defined at %s:%u", g->inner, fpath(c, g->paster->file),
			      g->paster->line);
	ot_buf_printf(&b, ", which defines %s", d->name);
	out = ot_arena_strdup(c->a, b.ptr);
	ot_buf_free(&b);
	return out;
}

/* The definition of a registered kernel: in the registration's file first. */
static const ot_ix_cdef *registered_kernel(const struct ctx *c, const char *name, uint32_t file)
{
	const ot_ix_cdef *any = NULL;
	for (const ot_ix_cdef *d = ot_index_cdefs(c->ix, name); d; d = d->next) {
		if (d->kind != OT_CDEF_FUNC)
			continue;
		if (d->file == file)
			return d;
		if (!any && path_in(fpath(c, d->file), "aten/src/ATen/"))
			any = d;
	}
	return any;
}

static void explore_stub(struct ctx *c, const char *stub, const char *op, int depth, int level,
			 int parent)
{
	const ot_ix_stub *s;
	if (!first_visit(c, "stub", NULL, stub))
		return;
	for (s = ot_index_stubs(c->ix, stub); s; s = s->next) {
		char note[256];
		if (s->kind == OT_STUB_DECLARE) {
			add_step(c, parent, OT_LAYER_STUB, s->file, s->line, stub,
				 "DECLARE_DISPATCH: the stub's function-pointer type", op, NULL, depth);
		} else if (s->kind == OT_STUB_DEFINE) {
			add_step(c, parent, OT_LAYER_STUB, s->file, s->line, stub,
				 "DEFINE_DISPATCH: the stub's storage", op, NULL, depth);
		} else {
			const char *backend = stub_backend(s->macro, fpath(c, s->file));
			const ot_ix_cdef *k;
			int reg, kstep;
			if (!s->kernel) {
				snprintf(note, sizeof(note), "%s: no kernel for this backend", s->macro);
				add_step(c, parent, OT_LAYER_STUB, s->file, s->line, stub, note, op, backend,
					 depth);
				continue;
			}
			snprintf(note, sizeof(note), "%s: %s -> %s", s->macro, stub, s->kernel);
			reg = add_step(c, parent, OT_LAYER_STUB, s->file, s->line, stub, note, op, backend,
				       depth);
			if (*backend && strcmp(backend, "CPU (none)"))
				strvec_add_unique(c, &c->tr->backends, backend);
			k = registered_kernel(c, s->kernel, s->file);
			if (!k) {
				add_missing(c, reg, OT_LAYER_KERNEL,
					    ot_arena_printf(c->a, "definition of kernel `%s`", s->kernel),
					    "aten/src/ATen/", op, depth);
				continue;
			}
			kstep = add_step(c, reg, OT_LAYER_KERNEL, k->file, k->line, cdef_symbol(k),
					 ot_arena_printf(c->a, "kernel registered for %s (%s)%s%s", stub,
							 backend, k->gen ? ", " : "",
							 k->gen ? generated_note(c, k) : ""),
					 op,
					 backend, depth);
			{
				bool dummy = false;
				explore(c, k, op, depth, level + 1, kstep, &dummy);
			}
		}
	}
}

/* The registry op a C++ call names: at::mm(...), at::_foo_symint(...) (the
 * SymInt spelling of _foo), x.mm(...) for a method. NULL when none. */
static const char *call_op(const struct call_info *ci, const ot_ix_call *call)
{
	if (!ci || !ci->op || call->kind == OT_CALL_LAUNCH || call->kind == OT_CALL_MACRO_LAUNCH)
		return NULL;
	if (call->kind == OT_CALL_MEMBER)
		return ci->op_method ? ci->op : NULL;
	return !strcmp(call->qual, "at") || !strcmp(call->qual, "::at") ? ci->op : NULL;
}

/*
 * Follow a call to a C++ helper: its definitions in the caller's file, or
 * else in the caller's namespace (for a qualified call, anywhere in ATen).
 * A helper's step is kept only when something worth knowing is found
 * beneath it.
 */
static void explore_helpers(struct ctx *c, const ot_ix_cdef *d, const ot_ix_call *call,
			    const char *op, int depth, int level, int self, bool *interesting)
{
	const ot_ix_cdef *cand[3];
	size_t n = 0;
	for (int pass = 0; pass < 2 && !n; pass++) {
		for (const ot_ix_cdef *h = ot_index_cdefs(c->ix, call->name); h && n < 3; h = h->next) {
			if (h == d || !helper_candidate(c, h))
				continue;
			/* a qualified call names its namespace: c10::cuda::X::get() is
			 * not at::native::get */
			if (*call->qual && !qual_matches(h, call->qual))
				continue;
			/* other files: only for qualified calls, or in the caller's
			 * namespace (or one enclosing it) for names that are not one plain lowercase word
			 * (max(a, b) is std::max, not the max op's kernel;
			 * GeluCUDAKernelImpl and gelu_kernel are helpers) */
			if (pass == 0 ? h->file != d->file
				      : !*call->qual && (!ns_encloses(h->ns, d->ns) ||
							 plain_lowercase_word(call->name)))
				continue;
			cand[n++] = h;
		}
	}
	for (size_t k = 0; k < n; k++) {
		const ot_ix_cdef *h = cand[k];
		const char *hp = fpath(c, h->file);
		size_t mark = c->tr->steps.len;
		bool found = false;
		int at;
		at = add_step(c, self, is_gpu_file(hp) ? OT_LAYER_KERNEL : OT_LAYER_CPP, h->file,
			      h->line, cdef_symbol(h),
			      ot_arena_printf(c->a, "helper called by %s%s%s", d->name, h->gen ? ", " : "",
					      h->gen ? generated_note(c, h) : ""),
			      op, file_backend(hp), depth);
		explore(c, h, op, depth, level + 1, at, &found);
		if (found)
			*interesting = true;
		else
			drop_steps_since(c, mark, at); /* nothing beneath: drop the helper */
	}
}

/*
 * Explore the body of `d`: stubs it calls, GPU library calls, kernel
 * launches, runtime selection points, other ops (branches), and helpers
 * (followed up to helper_depth levels; a helper's step is kept only when
 * something worth knowing is found beneath it).
 */
static void explore(struct ctx *c, const ot_ix_cdef *d, const char *op, int depth, int level,
		    int self, bool *interesting)
{
	const char *path = fpath(c, d->file);
	size_t gpu_steps = 0;

	if (!first_visit(c, "cdef", d, NULL))
		return;
	if (strstr(path, "/cudnn/"))
		strvec_add_unique(c, &c->tr->gpu_libs, "cuDNN");
	for (uint32_t i = 0; i < d->ncalls; i++) {
		const ot_ix_call *call = &d->calls[i];
		const struct call_info *ci = ot_map_get(c->t->calls, call->name);
		const char *lib, *branch;

		if (ci && ci->selection) {
			/* a runtime choice (use_cudnn(...)); a stub can be one too
			 * (_fused_sdp_choice_stub), so go on classifying the call */
			bool dup = false;
			for (size_t k = 0; k < c->tr->selection.len; k++)
				if (c->tr->selection.items[k].line == call->line &&
				    !strcmp(c->tr->selection.items[k].file, path))
					dup = true;
			if (!dup && ot_index_line_has(c->ix, d->file, call->line, call->name)) {
				ot_selection sel = {ot_arena_strdup(c->a, call->name), path, call->line};
				ot_vec_push(&c->tr->selection, sel);
			}
			*interesting = true;
		}
		if (ci && ci->stub && (call->kind == OT_CALL_PLAIN || call->kind == OT_CALL_REF)) {
			char note[200];
			if (call->kind == OT_CALL_REF)
				snprintf(note, sizeof(note),
					 "%s hands DispatchStub %s as an argument to a helper that calls it",
					 d->name, call->name);
			else
				snprintf(note, sizeof(note), "calls DispatchStub %s (picks the kernel by device)", call->name);
			explore_stub(c, call->name, op, depth, level,
				     add_step(c, self, OT_LAYER_STUB, d->file, call->line, call->name, note,
					      op, NULL, depth));
			*interesting = true;
			continue;
		}
		if (call->kind == OT_CALL_REF)
			continue;
		branch = call_op(ci, call);
		if (branch) {
			bool follow;
			if (!strcmp(branch, c->tr->target.name) && depth == 0)
				continue;
			strvec_add_unique(c, &c->tr->calls, branch);
			if (depth >= c->max_depth)
				continue; /* listed in calls, not followed */
			/* a well-known branch that computes (matmul -> mm, einsum -> bmm) is
			 * shown but not followed; bookkeeping ops (empty, to, view) only listed */
			follow = !is_wellknown_op(c, branch);
			if (!follow && !computing_wellknown(c, branch))
				continue;
			*interesting = true;
			/* one step per op a function calls: its first call site */
			if (first_visit(c, "branch", d, branch)) {
				char note[200];
				const char *sym = call->kind == OT_CALL_MEMBER ? call->name : call_text(c, call);
				int at;
				snprintf(note, sizeof(note), follow ? "branch: calls aten::%s"
								    : "branch: calls aten::%s (well-known, see its page)",
					 branch);
				at = add_step(c, self, OT_LAYER_CPP, d->file, call->line, sym, note, op, NULL,
					      depth);
				if (follow)
					queue_op(c, branch, NULL, depth + 1, at);
			}
			continue;
		}
		lib = gpu_lib_of(call);
		if (lib) {
			bool launch = call->kind == OT_CALL_LAUNCH || call->kind == OT_CALL_MACRO_LAUNCH;
			const char *sym = call->kind == OT_CALL_LAUNCH	     ? call->name
					  : call->kind == OT_CALL_MACRO_LAUNCH ? call->qual
									       : call_text(c, call);
			strvec_add_unique(c, &c->tr->gpu_libs, lib);
			*interesting = true;
			/* every distinct library call or launch of the body, up to a few */
			if (gpu_steps < 8 && first_visit(c, "gpu", d, sym)) {
				char note[200];
				int at;
				gpu_steps++;
				if (call->kind == OT_CALL_MACRO_LAUNCH)
					snprintf(note, sizeof(note),
						 OT_NOTE_LAUNCH " %s through the macro %s", call->name,
						 call->qual);
				else if (launch)
					snprintf(note, sizeof(note), OT_NOTE_LAUNCH " %s", call->name);
				else
					snprintf(note, sizeof(note), "%s: %s", lib, sym);
				at = add_step(c, self, OT_LAYER_CUDA, d->file, call->line, sym, note, op,
					      "CUDA", depth);
				if (launch) {
					for (const ot_ix_cdef *k = ot_index_cdefs(c->ix, call->name); k; k = k->next) {
						if (k->global) {
							add_step(c, at, OT_LAYER_CUDA, k->file, k->line, cdef_symbol(k),
								 "__global__ CUDA kernel", op, "CUDA", depth);
							break;
						}
					}
				}
			}
			continue;
		}
		if (level < c->t->opts.helper_depth && call->kind == OT_CALL_PLAIN &&
		    (!*call->qual || !strcmp(call->qual, "at::native") || !strcmp(call->qual, "native") ||
		     strstr(call->qual, "cuda") || strstr(call->qual, "cudnn")))
			explore_helpers(c, d, call, op, depth, level, self, interesting);
	}
}

/* ---- native_functions.yaml entries ---------------------------------------------------------- */

static bool dir_matches_key(const char *path, const char *key)
{
	bool gpu = is_gpu_file(path);
	if (!strcmp(key, "CUDA") || strstr(key, "CUDA"))
		return gpu;
	if (!strcmp(key, "MPS"))
		return strstr(path, "/mps/") != NULL;
	if (!strcmp(key, "CPU"))
		return !gpu && !strstr(path, "/mps/");
	return true;
}

/* Definitions of the C++ function a dispatch entry names: in at::native, in
 * native/ and the backend's folder first, then in native/, then elsewhere in
 * ATen (ATen/cuda/PinnedMemoryAllocator.cpp's is_pinned_cuda); a macro
 * invocation that names it only when there is no written definition. A
 * definition a macro invocation generated (ot_ix_cdef.gen) counts as written:
 * the macro's body is the definition. */
static size_t kernel_defs(const struct ctx *c, const char *kernel, const char *key, bool structured,
			  const ot_ix_cdef **out, size_t max)
{
	size_t n = 0;
	for (int pass = 0; pass < 4 && !n; pass++) {
		for (int symint = 0; symint < 2; symint++) {
			char name[200];
			snprintf(name, sizeof(name), symint ? "%s_symint" : "%s", kernel);
			for (const ot_ix_cdef *d = ot_index_cdefs(c->ix, name); d && n < max; d = d->next) {
				const char *p = fpath(c, d->file);
				bool native = path_in(p, "aten/src/ATen/native/");
				if (d->in_class || !path_in(p, "aten/src/ATen/") ||
				    path_in(p, "aten/src/ATen/native/ufunc/") || !in_at_native(d) ||
				    native == (pass == 2))
					continue;
				if (pass < 3) {
					/* structured ops have TORCH_IMPL_FUNC kernels for some
					 * keys and plain functions for others (sparse, ...) */
					if (d->kind != OT_CDEF_FUNC && !(structured && d->kind == OT_CDEF_IMPL))
						continue;
					if (pass == 0 && !dir_matches_key(p, key))
						continue;
				} else if (d->kind != OT_CDEF_MACRO) {
					continue;
				}
				out[n++] = d;
			}
		}
	}
	return n;
}

static bool main_key(const char *keys)
{
	static const char *const main_keys[] = {"CPU", "CUDA", "CompositeImplicitAutograd",
						 "CompositeExplicitAutograd",
						 "CompositeExplicitAutogradNonFunctional"};
	char buf[256];
	char *tok, *save = NULL;
	snprintf(buf, sizeof(buf), "%s", keys);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
		for (size_t i = 0; i < OT_ARRAY_LEN(main_keys); i++)
			if (!strcmp(tok, main_keys[i]))
				return true;
	return false;
}

/* The parameter list of a definition, from its name to the matching ')',
 * read from the indexed text (at most `n` bytes into `out`). */
static void def_params(const struct ctx *c, const ot_ix_cdef *d, char *out, size_t n)
{
	const ot_ix_file *f = ot_index_file(c->ix, d->file);
	const char *p = f->text + f->line_off[d->line - 1], *end = f->text + f->len;
	size_t k = 0;
	int depth = 0;
	out[0] = '\0';
	if (d->gen) {
		/* the list is in the macro's body; same shape: "(a, b" */
		size_t len = strlen(d->gen->params);
		if (len && d->gen->params[len - 1] == ')')
			len--;
		snprintf(out, n, "%.*s", (int)len, d->gen->params);
		return;
	}
	p = strstr(p, d->name);
	if (!p)
		return;
	p = strchr(p + strlen(d->name), '(');
	if (d->kind == OT_CDEF_IMPL && p) /* TORCH_IMPL_FUNC(name)(params) */
		p = strchr(p + 1, '(');
	for (; p && p < end && k + 1 < n; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			break;
		if (depth > 0)
			out[k++] = *p;
	}
	out[k] = '\0';
}

/* How well a C++ definition fits an overload's schema: same number of
 * parameters, and a Dimname parameter exactly when the schema has one. A
 * kernel name can have several C++ overloads (cumsum_out for cumsum.out and
 * for cumsum.dimname_out); this tells them apart. */
static int overload_fit(const struct ctx *c, const ot_ix_cdef *d, const ot_reg_func *f)
{
	char params[2048];
	size_t count = 0;
	int depth = 0, score = 0;
	bool dimname = false, schema_dimname = false;
	def_params(c, d, params + 0, sizeof(params));
	if (params[0] == '(')
		memmove(params, params + 1, strlen(params));
	for (const char *p = params; *p; p++) {
		if (*p == '(' || *p == '<' || *p == '[' || *p == '{')
			depth++;
		else if ((*p == ')' || *p == '>' || *p == ']' || *p == '}') && depth > 0)
			depth--;
		else if (*p == ',' && depth == 0)
			count++;
	}
	if (strspn(params, " \t\n") != strlen(params))
		count++;
	dimname = strstr(params, "Dimname") != NULL;
	for (size_t i = 0; i < f->schema.nargs; i++)
		if (strstr(f->schema.args[i].type, "Dimname"))
			schema_dimname = true;
	if (count == f->schema.nargs)
		score += 2;
	score += dimname == schema_dimname ? 1 : -3;
	return score;
}

struct kernel_use {
	const char *kernel;
	char keys[256];
};

static void trace_backward(struct ctx *c, const ot_reg_func *f, const ot_reg_func *eff, int depth,
			   int parent);

/* Returns the step of the entry (for decompositions to hang from). */
static int trace_overload(struct ctx *c, const ot_reg_func *f, int depth, int parent)
{
	const ot_tracer *t = c->t;
	const char *op = f->schema.full;
	const ot_reg_func *eff = f->delegate ? f->delegate : f;
	struct kernel_use uses[64];
	size_t nuses = 0;
	ot_buf note = OT_BUF_INIT;
	int entry, kparent;

	if (depth == 0)
		strvec_add_unique(c, &c->tr->aten, op);
	if (f->schema.is_out)
		c->tr->has_out = depth == 0 || c->tr->has_out;
	if (f->schema.inplace && depth == 0)
		c->tr->has_inplace = true;

	ot_buf_printf(&note, "%s", f->func);
	if (f->has_dispatch) {
		ot_buf_puts(&note, " | dispatch:");
		for (size_t i = 0; i < f->ndispatch; i++)
			ot_buf_printf(&note, "%s %s: %s", i ? "," : "", f->dispatch[i].key,
				      f->dispatch[i].kernel);
	} else if (!f->delegate) {
		ot_buf_puts(&note, " | no dispatch table: CompositeImplicitAutograd");
	}
	entry = add_step(c, parent, OT_LAYER_YAML, (uint32_t)t->f_native, (uint32_t)f->line, op,
			 note.ptr, op, NULL, depth);
	ot_buf_free(&note);
	kparent = entry;

	if (f->delegate) {
		char n[256];
		snprintf(n, sizeof(n), "structured_delegate: %s computes %s", eff->schema.full, op);
		kparent = add_step(c, entry, OT_LAYER_YAML, (uint32_t)t->f_native, (uint32_t)eff->line,
				   eff->schema.full, n, op, NULL, depth);
	}
	if (!first_visit(c, "kernels", eff, NULL))
		goto backward;
	if (eff->structured && depth == 0) {
		c->tr->structured = true;
		if (eff->structured_inherits && strstr(eff->structured_inherits, "TensorIterator"))
			c->tr->tensor_iterator = true;
	}

	/* the structured meta function: TORCH_META_FUNC(name), or TORCH_META_FUNC2(name,
	 * overload) named after the functional overload that delegates */
	if (eff->structured) {
		const char *names[16];
		size_t nnames = 0, nov;
		bool found = false;
		const ot_reg_func *const *ov = ot_registry_overloads(c->t->reg, eff->schema.name, &nov);
		names[nnames++] = eff->schema.name;
		if (*eff->schema.overload)
			names[nnames++] = ot_arena_printf(c->a, "%s.%s", eff->schema.name, eff->schema.overload);
		/* TORCH_META_FUNC2(name, overload) is named after the overloads that
		 * delegate here, and so is TORCH_META_FUNC(name_overload), the
		 * spelling torchgen uses (lerp.Scalar -> lerp_Scalar) */
		for (size_t k = 0; k < nov && nnames + 1 < OT_ARRAY_LEN(names); k++)
			if (ov[k]->delegate == eff && *ov[k]->schema.overload) {
				names[nnames++] = ot_arena_printf(c->a, "%s.%s", eff->schema.name,
								  ov[k]->schema.overload);
				names[nnames++] = ot_arena_printf(c->a, "%s_%s", eff->schema.name,
								  ov[k]->schema.overload);
			}
		for (size_t k = 0; k < nnames; k++) {
			for (const ot_ix_cdef *d = ot_index_cdefs(c->ix, names[k]); d; d = d->next) {
				if (d->kind != OT_CDEF_META && d->kind != OT_CDEF_PRECOMPUTE)
					continue;
				add_step(c, kparent, OT_LAYER_META, d->file, d->line,
					 strchr(d->name, '.') ? strchr(d->name, '.') + 1 : d->name,
					 d->macro ? ot_arena_printf(c->a, "meta function generated by the macro %s: shape/dtype checks, output allocation", d->macro)
					 : d->kind == OT_CDEF_PRECOMPUTE
						 ? "TORCH_PRECOMPUTE_META_FUNC: shape/dtype checks, output allocation"
						 : "TORCH_META_FUNC: shape/dtype checks, output allocation",
					 op, NULL, depth);
				found = true;
			}
		}
		if (!found)
			add_missing(c, kparent, OT_LAYER_META,
				    ot_arena_printf(c->a, "TORCH_META_FUNC(%s) or TORCH_META_FUNC2(%s, ...)",
						    eff->schema.name, eff->schema.name),
				    "aten/src/ATen/native/", op, depth);
	}

	/* ufunc: the inner loop lives in native/ufunc/<name>.h */
	if (eff->nufunc_inner_loop) {
		char path[200];
		int64_t fid;
		c->tr->ufunc = true;
		snprintf(path, sizeof(path), "aten/src/ATen/native/ufunc/%s.h", eff->schema.base);
		fid = ot_index_file_id(c->ix, path);
		if (fid >= 0) {
			for (const ot_ix_cdef *d = ot_index_cdefs(c->ix, eff->schema.base); d; d = d->next) {
				if (d->file == (uint32_t)fid) {
					add_step(c, kparent, OT_LAYER_KERNEL, d->file, d->line, cdef_symbol(d),
						 "ufunc inner loop: the scalar/vectorized formula the "
						 "generated CPU and CUDA kernels share",
						 op, "CPU, CUDA", depth);
					strvec_add_unique(c, &c->tr->backends, "CPU");
					strvec_add_unique(c, &c->tr->backends, "CUDA");
				}
			}
		} else {
			add_missing(c, kparent, OT_LAYER_KERNEL, "ufunc inner loop", path, op, depth);
		}
	}

	if (depth == 0 && ot_reg_func_composite_implicit(eff))
		c->tr->composite_implicit = true;
	/* group dispatch keys by kernel (an entry with a ufunc inner loop and no
	 * table has only generated kernels: nothing hand-written to look for) */
	if (!eff->has_dispatch && !eff->nufunc_inner_loop) {
		/* torchgen names the kernel after the C++ API: add_out for add.out */
		uses[nuses].kernel = eff->schema.is_out
					     ? ot_arena_printf(c->a, "%s_out", eff->schema.name)
					     : eff->schema.name;
		snprintf(uses[nuses].keys, sizeof(uses[nuses].keys), "CompositeImplicitAutograd");
		nuses++;
		strvec_add_unique(c, &c->tr->backends, "CompositeImplicitAutograd");
	}
	for (size_t i = 0; i < eff->ndispatch; i++) {
		const ot_reg_dispatch *dp = &eff->dispatch[i];
		size_t k;
		if (depth == 0 || !strcmp(dp->key, "CPU") || !strcmp(dp->key, "CUDA"))
			strvec_add_unique(c, &c->tr->backends, dp->key);
		if (!strcmp(dp->key, "CompositeExplicitAutograd") && depth == 0)
			c->tr->composite_explicit = true;
		for (k = 0; k < nuses; k++)
			if (!strcmp(uses[k].kernel, dp->kernel))
				break;
		if (k == nuses) {
			if (nuses == OT_ARRAY_LEN(uses))
				continue;
			uses[nuses].kernel = dp->kernel;
			uses[nuses].keys[0] = '\0';
			nuses++;
		}
		if (uses[k].keys[0])
			strncat(uses[k].keys, ", ", sizeof(uses[k].keys) - strlen(uses[k].keys) - 1);
		strncat(uses[k].keys, dp->key, sizeof(uses[k].keys) - strlen(uses[k].keys) - 1);
	}

	for (size_t u = 0; u < nuses; u++) {
		const ot_ix_cdef *defs[8];
		char first_key[64], n[1024];
		size_t nd;
		snprintf(first_key, sizeof(first_key), "%.*s", (int)strcspn(uses[u].keys, ","),
			 uses[u].keys);
		nd = kernel_defs(c, uses[u].kernel, first_key, eff->structured && eff->has_dispatch,
				 defs, OT_ARRAY_LEN(defs));
		if (nd > 1) {
			/* several C++ overloads of that name: keep those that fit */
			int fit[OT_ARRAY_LEN(defs)], best = -100;
			size_t kept = 0;
			for (size_t k = 0; k < nd; k++) {
				fit[k] = overload_fit(c, defs[k], eff);
				if (fit[k] > best)
					best = fit[k];
			}
			for (size_t k = 0; k < nd; k++)
				if (fit[k] == best)
					defs[kept++] = defs[k];
			nd = kept;
		}
		if (!nd) {
			/* torchgen writes the kernels of view_copy ops (t_copy,
			 * lift_fresh_copy) into CompositeViewCopyKernels.cpp at build
			 * time: there is no definition to find in the source tree */
			add_missing(c, kparent, OT_LAYER_CPP,
				    ot_arena_printf(c->a, "C++ function `%s` (%s)", uses[u].kernel,
						    uses[u].keys),
				    ot_reg_func_has_tag(eff, "view_copy")
					    ? "the source tree: torchgen generates the kernels of ops tagged "
					      "view_copy (CompositeViewCopyKernels.cpp, a build output)"
					    : "aten/src/ATen/native/",
				    op, depth);
			continue;
		}
		for (size_t k = 0; k < nd; k++) {
			const char *p = fpath(c, defs[k]->file);
			const char *be = file_backend(p);
			bool dummy = false;
			int at;
			ot_layer layer = *be ? OT_LAYER_KERNEL : OT_LAYER_CPP;
			if (defs[k]->gen)
				snprintf(n, sizeof(n), "%s for %s, %s",
					 defs[k]->kind == OT_CDEF_IMPL ? "structured kernel" : "C++ implementation",
					 uses[u].keys, generated_note(c, defs[k]));
			else if (defs[k]->macro)
				snprintf(n, sizeof(n), "%s for %s: generated by the macro %s",
					 defs[k]->kind == OT_CDEF_IMPL ? "structured kernel" : "C++ implementation",
					 uses[u].keys, defs[k]->macro);
			else
				snprintf(n, sizeof(n), "%s for %s",
					 defs[k]->kind == OT_CDEF_IMPL ? "TORCH_IMPL_FUNC (structured kernel)"
								       : "C++ implementation",
					 uses[u].keys);
			at = add_step(c, kparent, layer, defs[k]->file, defs[k]->line, cdef_symbol(defs[k]), n, op,
				      *be ? be : first_key, depth);
			/* the kernels people write against: CPU, CUDA and the composites;
			 * sparse, quantized, mkldnn, nested, MPS... are listed, not followed */
			if (main_key(uses[u].keys))
				explore(c, defs[k], op, depth, 0, at, &dummy);
		}
	}

backward:
	if (depth == 0)
		trace_backward(c, f, eff, depth, entry);
	return entry;
}

/* Names called in a derivatives.yaml formula that are backward helpers. */
static void formula_helpers(struct ctx *c, const char *formula, const char *op, int depth,
			    int parent)
{
	const char *s = formula;
	while (*s) {
		if (isalpha((unsigned char)*s) || *s == '_') {
			const char *b = s;
			char name[128];
			bool qualified = b > formula && b[-1] == ':';
			bool member = b > formula && b[-1] == '.';
			while (isalnum((unsigned char)*s) || *s == '_')
				s++;
			if (*s != '(' || qualified || member || (size_t)(s - b) >= sizeof(name))
				continue;
			snprintf(name, sizeof(name), "%.*s", (int)(s - b), b);
			if (!first_visit(c, "bwhelper", NULL, name))
				continue;
			for (const ot_ix_cdef *d = ot_index_cdefs(c->ix, name); d; d = d->next) {
				if (d->kind == OT_CDEF_FUNC && !d->in_class &&
				    path_in(fpath(c, d->file), "torch/csrc/autograd/")) {
					add_step(c, parent, OT_LAYER_BACKWARD, d->file, d->line, cdef_symbol(d),
						 "backward helper (torch/csrc/autograd)", op, NULL, depth);
					goto next;
				}
			}
			{
				/* a backward op: its functional overload (not .grad_input,
				 * the out= one), also when spelled name_symint */
				size_t n;
				const ot_reg_func *const *ov = ot_registry_overloads(c->t->reg, name, &n);
				const ot_reg_func *pick = NULL;
				if (!ov && ot_ends_with(name, "_symint")) {
					name[strlen(name) - strlen("_symint")] = '\0';
					ov = ot_registry_overloads(c->t->reg, name, &n);
				}
				for (size_t k = 0; ov && k < n && !pick; k++)
					if (!ov[k]->schema.is_out)
						pick = ov[k];
				if (!pick && ov)
					pick = ov[0];
				if (pick)
					add_step(c, parent, OT_LAYER_BACKWARD, (uint32_t)c->t->f_native,
						 (uint32_t)pick->line, name,
						 "backward op (its own native_functions.yaml entry)", op,
						 NULL, depth);
			}
		next:
			continue;
		}
		s++;
	}
}

static void add_deriv_step(struct ctx *c, const ot_reg_deriv *dv, const char *op, const char *how,
			   int depth, int parent)
{
	ot_buf note = OT_BUF_INIT;
	int at;
	ot_buf_puts(&note, how);
	for (size_t i = 0; i < dv->nformulas; i++)
		ot_buf_printf(&note, "%s%s: %s", i ? "; " : " ", dv->formulas[i].inputs,
			      dv->formulas[i].formula);
	at = add_step(c, parent, OT_LAYER_BACKWARD, (uint32_t)c->t->f_deriv, (uint32_t)dv->line,
		      dv->schema.full, note.ptr, op, NULL, depth);
	ot_buf_free(&note);
	for (size_t i = 0; i < dv->nformulas; i++)
		formula_helpers(c, dv->formulas[i].formula, op, depth, at);
	for (size_t k = 0; k < dv->ndispatch; k++)
		for (size_t i = 0; i < dv->dispatch[k].nformulas; i++)
			formula_helpers(c, dv->dispatch[k].formulas[i].formula, op, depth, at);
}

static void trace_backward(struct ctx *c, const ot_reg_func *f, const ot_reg_func *eff, int depth,
			   int parent)
{
	const char *op = f->schema.full;
	ot_autograd_answer ans;
	if (!ot_autograd_explain(c->t->autograd, f, eff, c->a, &ans)) {
		if (!f->schema.is_out) /* out= variants: nothing to say without the generator */
			add_missing(c, parent, OT_LAYER_BACKWARD,
				    ot_arena_printf(c->a, "derivatives.yaml entry for %s", op),
				    OT_REGISTRY_DERIV_PATH, op, depth);
		return;
	}
	if (ans.formula)
		add_deriv_step(c, ans.formula, op, ans.note, depth, parent);
	else
		add_step(c, parent, OT_LAYER_BACKWARD, (uint32_t)ans.file, ans.line, ans.symbol, ans.note,
			 op, NULL, depth);
}

static void trace_decompositions(struct ctx *c, const char *base, const char *op, int depth,
				 int parent)
{
	for (const ot_ix_decomp *d = ot_index_decomps(c->ix, base); d; d = d->next) {
		char sym[200], note[256];
		snprintf(sym, sizeof(sym), "aten.%s", d->op);
		snprintf(note, sizeof(note), "register_decomposition(aten.%s)%s%s: what torch.compile lowers it to",
			 d->op, d->func ? " -> " : "", d->func ? d->func : "");
		add_step(c, parent, OT_LAYER_DECOMPOSITION, d->file, d->line, sym, note, op, NULL, depth);
	}
}

/* Every overload of `name` (and of its in-place `name_`) at `depth`. */
static void trace_aten(struct ctx *c, const struct pending_op *p)
{
	const ot_registry *reg = c->t->reg;
	size_t n, ni = 0;
	const ot_reg_func *const *ov = ot_registry_overloads(reg, p->name, &n);
	const ot_reg_func *const *inpl = NULL;
	char inname[160];
	bool any = false;
	int first = -1;

	if (!ot_ends_with(p->name, "_")) {
		snprintf(inname, sizeof(inname), "%s_", p->name);
		inpl = ot_registry_overloads(reg, inname, &ni);
	}
	for (size_t i = 0; i < n; i++) {
		if (p->overload && strcmp(ov[i]->schema.overload, p->overload))
			continue;
		int at = trace_overload(c, ov[i], p->depth, p->parent);
		if (first < 0)
			first = at;
		any = true;
	}
	for (size_t i = 0; i < ni && !p->overload && p->depth == 0; i++) {
		trace_overload(c, inpl[i], p->depth, p->parent);
		any = true;
	}
	if (!any) {
		add_missing(c, p->parent, OT_LAYER_YAML,
			    ot_arena_printf(c->a, "entry `%s%s%s`", p->name, p->overload ? "." : "",
					    p->overload ? p->overload : ""),
			    OT_REGISTRY_NATIVE_PATH, NULL, p->depth);
		return;
	}
	if (p->depth == 0)
		trace_decompositions(c, p->name, n ? ov[0]->schema.full : p->name, p->depth, first);
}

/* ---- entry points per strategy ------------------------------------------------------------ */

static void suggest(struct ctx *c)
{
	const char *out[3];
	const ot_strvec *cand = &c->t->cand[c->tr->target.strategy];
	char word[200];
	size_t n;
	/* compare like with like: candidates are written as the user writes them */
	snprintf(word, sizeof(word), "%s", c->tr->target.canonical);
	n = ot_resolve_suggest(out, 3, word, cand->items, cand->len);
	for (size_t i = 0; i < n; i++)
		ot_vec_push(&c->tr->suggestions, ot_arena_strdup(c->a, out[i]));
}

static bool start_module(struct ctx *c)
{
	const char *name = c->tr->target.name;
	const ot_ix_pydef *cls = py_class(c, name, NULL, "torch/nn/modules/"), *fwd;
	char sym[160], note[256];
	int at;
	if (!cls)
		return false;
	snprintf(sym, sizeof(sym), "class %s", name);
	snprintf(note, sizeof(note), "nn.Module subclass (bases: %s)", *cls->bases ? cls->bases : "none");
	at = add_step(c, -1, OT_LAYER_PYTHON, cls->file, cls->line, sym, note, NULL, NULL, 0);
	fwd = py_method(c, cls, "forward", 0);
	if (!fwd) {
		add_missing(c, at, OT_LAYER_PYTHON,
			    ot_arena_printf(c->a, "forward of %s or its bases", name),
			    fpath(c, cls->file), NULL, 0);
		return true;
	}
	if (fwd->parent != cls)
		message(c, "forward is inherited from %s", fwd->parent->name);
	follow_py(c, fwd, fwd->parent, 0, at, true);
	return true;
}

static bool start_functional(struct ctx *c)
{
	const ot_ix_pydef *f = py_top(c, c->tr->target.name, "torch/nn/functional.py", false);
	if (!f)
		return false;
	follow_py(c, f, NULL, 0, -1, true);
	return true;
}

static int doc_anchor(struct ctx *c, const char *name, bool method)
{
	for (const ot_ix_doc *d = ot_index_docs(c->ix, name); d; d = d->next) {
		if (d->method != method)
			continue;
		return add_step(c, -1, OT_LAYER_PYTHON, d->file, d->line,
				method ? name : ot_arena_printf(c->a, "torch.%s", name),
				method ? "docstring anchor: add_docstr_all (the method itself is generated)"
				       : "docstring anchor: add_docstr (the function itself is generated)",
				NULL, NULL, 0);
	}
	return -1;
}

static bool start_method(struct ctx *c)
{
	const char *name = c->tr->target.name;
	const ot_ix_pydef *tensor = py_class(c, "Tensor", "torch/_tensor.py", "torch/_tensor.py");
	const ot_ix_pydef *m = tensor ? py_method(c, tensor, name, 7) : NULL;
	int at;
	if (m && m->parent == tensor) {
		follow_py(c, m, tensor, 0, -1, true);
		return true;
	}
	if (!has_variant(c->t->reg, name, true))
		return false;
	at = doc_anchor(c, name, true);
	if (tensor)
		at = add_step(c, at, OT_LAYER_BRIDGE, tensor->file, tensor->line, "class Tensor",
			      "Tensor methods without a Python override come from the generated "
			      "C++ base class",
			      NULL, NULL, 0);
	queue_op(c, name, NULL, 0, at);
	return true;
}

static bool start_torch(struct ctx *c)
{
	const ot_target *tg = &c->tr->target;
	char aten[200];
	const ot_ix_pydef *f = NULL;
	int at;
	ot_resolve_aten_name(aten, sizeof(aten), tg);
	if (tg->submodule[0]) {
		char path[64];
		snprintf(path, sizeof(path), "torch/%s/__init__.py", tg->submodule);
		f = py_top(c, tg->name, path, false);
	} else {
		f = py_top(c, tg->name, "torch/functional.py", false);
	}
	if (f) {
		follow_py(c, f, NULL, 0, -1, true);
		return true;
	}
	if (!ot_registry_overloads(c->t->reg, aten, &(size_t){0}) ||
	    (!tg->submodule[0] && !has_variant(c->t->reg, aten, false)))
		return false;
	at = doc_anchor(c, aten, false);
	if (!tg->submodule[0] && c->t->f_init >= 0) {
		uint32_t l = find_line(c, c->t->f_init, "dir(_C._VariableFunctions)");
		if (l)
			at = add_step(c, at, OT_LAYER_BRIDGE, (uint32_t)c->t->f_init, l,
				      "_C._VariableFunctions",
				      "torch/__init__.py copies every generated binding of "
				      "torch._C._VariableFunctions into the torch namespace",
				      NULL, NULL, 0);
	}
	queue_op(c, aten, NULL, 0, at);
	return true;
}

static bool start_aten(struct ctx *c)
{
	const ot_target *tg = &c->tr->target;
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(c->t->reg, tg->name, &n);
	if (!ov)
		return false;
	if (tg->overload[0]) {
		bool hit = false;
		for (size_t i = 0; i < n; i++)
			hit = hit || !strcmp(ov[i]->schema.overload, tg->overload);
		if (!hit)
			return false;
	}
	queue_op(c, tg->name, tg->overload[0] ? tg->overload : NULL, 0, -1);
	return true;
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

/* How much an aten op's name says it is the op the user asked for. */
static int primary_score(const char *target, const char *op)
{
	char t[160], o[160];
	squash(t, sizeof(t), target);
	squash(o, sizeof(o), op);
	if (!*t || !*o)
		return 0;
	if (!strcmp(t, o))
		return 3;
	if (ot_starts_with(o, t) || ot_starts_with(t, o))
		return 2;
	return strstr(o, t) || strstr(t, o) ? 1 : 0;
}

/* Put the ops the Python code reached in order of how well they match the
 * target's name (stable): nn.LSTM's lstm comes before the
 * _cudnn_rnn_flatten_weight its forward also reaches. */
static void rank_primary(struct ctx *c)
{
	size_t n = c->queue.len;
	struct pending_op *q = c->queue.items;
	for (size_t i = 1; i < n; i++) {
		struct pending_op key = q[i];
		int ks = primary_score(c->tr->target.name, key.name);
		size_t j = i;
		while (j > 0 && primary_score(c->tr->target.name, q[j - 1].name) < ks) {
			q[j] = q[j - 1];
			j--;
		}
		q[j] = key;
	}
}

/* ---- public API -------------------------------------------------------------------------------- */

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

static void build_call_infos(ot_tracer *t)
{
	size_t n = ot_index_call_name_count(t->ix), nov;
	struct call_info *infos = ot_arena_alloc(t->arena, (n ? n : 1) * sizeof(*infos));
	t->calls = ot_map_new();
	for (size_t i = 0; i < n; i++) {
		const char *name = ot_index_call_name_at(t->ix, i), *op = name;
		struct call_info *ci = &infos[i];
		ci->selection = is_selection_point(name);
		ci->stub = ot_index_stubs(t->ix, name) != NULL;
		if (ot_ends_with(name, "_symint") && !ot_registry_overloads(t->reg, name, &nov))
			op = ot_arena_strndup(t->arena, name, strlen(name) - strlen("_symint"));
		if (!is_metadata_method(op) && ot_registry_overloads(t->reg, op, &nov)) {
			ci->op = op;
			ci->op_method = has_variant(t->reg, op, true);
		}
		ot_map_put(t->calls, name, ci);
	}
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
	t->arena = ot_arena_new();
	t->f_native = ot_index_file_id(ix, OT_REGISTRY_NATIVE_PATH);
	t->f_deriv = ot_index_file_id(ix, OT_REGISTRY_DERIV_PATH);
	t->f_vf = ot_index_file_id(ix, "torch/_VF.py");
	t->f_init = ot_index_file_id(ix, "torch/__init__.py");
	t->autograd = ot_autograd_new(ix, reg);
	build_candidates(t);
	build_call_infos(t);
	return t;
}

void ot_tracer_free(ot_tracer *t)
{
	if (!t)
		return;
	for (int s = 0; s < OT_STRAT_COUNT; s++)
		ot_vec_free(&t->cand[s]);
	ot_map_free(t->calls);
	ot_autograd_free(t->autograd);
	ot_arena_free(t->arena);
	free(t);
}

ot_trace *ot_trace_op(const ot_tracer *t, const char *input, bool full, int max_depth)
{
	ot_trace *tr = ot_calloc(1, sizeof(*tr));
	struct ctx c = {0};
	bool started = false;

	tr->arena = ot_arena_new();
	tr->input = ot_arena_strdup(tr->arena, input);
	tr->full = full || t->opts.full;
	c.t = t;
	c.ix = t->ix;
	c.tr = tr;
	c.a = tr->arena;
	c.seen = ot_map_new();
	c.max_depth = max_depth > 0 ? max_depth : t->opts.max_depth;

	if (ot_resolve_parse(&tr->target, input) < 0) {
		tr->status = OT_STATUS_ERROR;
		message(&c, "%s", ot_error_last());
		goto done;
	}
	if (t->f_native < 0) {
		tr->status = OT_STATUS_ERROR;
		message(&c, "%s is not in the indexed tree", OT_REGISTRY_NATIVE_PATH);
		goto done;
	}

	if (!tr->full && t->wk && tr->target.strategy != OT_STRAT_MODULE &&
	    ot_wellknown_lookup(&tr->wellknown, t->wk, input)) {
		size_t n;
		const ot_reg_func *const *ov;
		const ot_reg_func *entry = NULL;
		tr->is_wellknown = true;
		tr->status = OT_STATUS_WELLKNOWN;
		/* the entry to link: the overload named (aten::mm.out), else the
		 * first overload of the reference's aten name */
		if (tr->target.strategy == OT_STRAT_ATEN && tr->target.overload[0])
			entry = ot_registry_find(t->reg, ot_arena_printf(tr->arena, "%s.%s",
									 tr->target.name,
									 tr->target.overload));
		if (!entry && tr->wellknown.aten &&
		    (ov = ot_registry_overloads(t->reg, tr->wellknown.aten, &n)))
			entry = ov[0];
		if (entry) {
			strvec_add_unique(&c, &tr->aten, entry->schema.full);
			add_step(&c, -1, OT_LAYER_YAML, (uint32_t)t->f_native, (uint32_t)entry->line,
				 entry->schema.full, entry->func, entry->schema.full, NULL, 0);
		}
		goto done;
	}

	switch (tr->target.strategy) {
	case OT_STRAT_MODULE:
		started = start_module(&c);
		break;
	case OT_STRAT_FUNCTIONAL:
		started = start_functional(&c);
		break;
	case OT_STRAT_METHOD:
		started = start_method(&c);
		break;
	case OT_STRAT_TORCH:
		started = start_torch(&c);
		break;
	default:
		started = start_aten(&c);
		break;
	}
	if (!started) {
		tr->status = OT_STATUS_NOTFOUND;
		suggest(&c);
		goto done;
	}
	rank_primary(&c);
	/* the C++ half: every op reached, in order (the queue grows as we go) */
	for (size_t i = 0; i < c.queue.len; i++) {
		struct pending_op p = c.queue.items[i];
		trace_aten(&c, &p);
	}
	if (!c.queue.len && !tr->calls.len)
		add_missing(&c, -1, OT_LAYER_YAML, "a call into an aten op",
			    "the Python code of this op", NULL, 0);
	tr->status = OT_STATUS_TRACED;
	sort_strvec(&tr->backends);
	sort_strvec(&tr->gpu_libs);

done:
	ot_vec_free(&c.queue);
	ot_map_free(c.seen);
	return tr;
}

void ot_trace_free(ot_trace *tr)
{
	if (!tr)
		return;
	ot_vec_free(&tr->aten);
	ot_vec_free(&tr->steps);
	ot_vec_free(&tr->backends);
	ot_vec_free(&tr->gpu_libs);
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
	for (size_t i = 0; i < tr->steps.len; i++)
		n += !tr->steps.items[i].found;
	return n;
}
