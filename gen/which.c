/*
 * which.c - the reverse lookup from places to the ops whose traces reach
 * them (which.h).
 */
#include "which.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

struct ref {
	uint32_t op, step;
};
typedef OT_VEC(struct ref) ref_vec;

/* A definition of a file, with the steps inside its extent. */
struct func {
	const void *def; /* its ot_ix_cdef or ot_ix_pydef */
	const char *name, *scope, *detail;
	uint32_t line, end_line;
	bool python;
	ref_vec refs;
};

struct fileinfo {
	const char *path;
	struct func *funcs; /* by line, then the wider extent first */
	size_t nfuncs;
};

struct ot_which {
	ot_trace *const *traces;
	size_t n;
	const ot_index *ix;
	const ot_registry *reg;
	ot_arena *arena;
	ot_map *files;  /* path -> struct fileinfo * */
	ot_map *lines;  /* "path:line" -> ref_vec * */
	OT_VEC(struct fileinfo *) all_files;
	OT_VEC(uint32_t) deriv_lines; /* derivatives.yaml entries' lines, sorted */
};

const char *ot_which_kind_name(ot_which_kind k)
{
	static const char *const names[] = {"function", "line", "entry", "ufunc", "library call", "call"};
	return k <= OT_WM_CALL ? names[k] : "?";
}

ot_trace *const *ot_which_traces(const ot_which *w, size_t *n)
{
	*n = w->n;
	return w->traces;
}

/* ---- building ---------------------------------------------------------------------------- */

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->end_line != y->end_line)
		return x->end_line > y->end_line ? -1 : 1;
	return 0;
}

static const char *cdef_scope(ot_arena *a, const ot_ix_cdef *d)
{
	if (!*d->qual)
		return d->ns;
	if (!*d->ns)
		return d->qual;
	return ot_arena_printf(a, "%s::%s", d->ns, d->qual);
}

static const char *cdef_detail(const ot_ix_cdef *d)
{
	if (d->global)
		return "__global__ CUDA kernel";
	switch (d->kind) {
	case OT_CDEF_IMPL: return "TORCH_IMPL_FUNC";
	case OT_CDEF_META: return "TORCH_META_FUNC";
	case OT_CDEF_PRECOMPUTE: return "TORCH_PRECOMPUTE_META_FUNC";
	case OT_CDEF_MACRO: return "macro invocation";
	default: return d->in_class ? "member function" : "function";
	}
}

static struct fileinfo *file_of(ot_which *w, const char *path)
{
	struct fileinfo *fi = ot_map_get(w->files, path);
	OT_VEC(struct func) v = {0};
	int64_t id;
	size_t n;
	if (fi)
		return fi;
	fi = ot_arena_alloc(w->arena, sizeof(*fi));
	fi->path = ot_arena_strdup(w->arena, path);
	id = ot_index_file_id(w->ix, path);
	if (id >= 0) {
		const ot_ix_cdef *cd = ot_index_file_cdefs(w->ix, (uint32_t)id, &n);
		const ot_ix_pydef *pd;
		for (size_t i = 0; i < n; i++) {
			struct func f = {0};
			f.def = &cd[i];
			f.name = cd[i].name;
			f.scope = cdef_scope(w->arena, &cd[i]);
			f.detail = cdef_detail(&cd[i]);
			if (strchr(f.name, '.')) {
				/* TORCH_META_FUNC2(xlogy, Tensor): the index names it by
				 * its overload, the source by the op */
				const char *dot = strchr(f.name, '.');
				f.detail = ot_arena_printf(w->arena, "%s2 of %s", f.detail, f.name);
				f.name = ot_arena_strndup(w->arena, f.name, (size_t)(dot - f.name));
			}
			f.line = cd[i].line;
			f.end_line = cd[i].end_line > cd[i].line ? cd[i].end_line : cd[i].line;
			ot_vec_push(&v, f);
		}
		pd = ot_index_file_pydefs(w->ix, (uint32_t)id, &n);
		for (size_t i = 0; i < n; i++) {
			struct func f = {0};
			f.def = &pd[i];
			f.name = pd[i].name;
			f.scope = pd[i].parent ? pd[i].parent->name : NULL;
			f.detail = pd[i].kind == OT_PY_CLASS ? "Python class" : pd[i].kind == OT_PY_DEF ? "Python def"
											 : "Python assignment";
			f.line = pd[i].line;
			f.end_line = pd[i].end_line > pd[i].line ? pd[i].end_line : pd[i].line;
			f.python = true;
			ot_vec_push(&v, f);
		}
	}
	if (v.len > 1)
		qsort(v.items, v.len, sizeof(*v.items), cmp_func);
	fi->funcs = v.items; /* freed with the index of files */
	fi->nfuncs = v.len;
	ot_map_put(w->files, fi->path, fi);
	ot_vec_push(&w->all_files, fi);
	return fi;
}

/* The innermost definition of `fi` whose extent holds `line`, or NULL. */
static struct func *func_at(struct fileinfo *fi, uint32_t line)
{
	size_t lo = 0, hi = fi->nfuncs;
	while (lo < hi) { /* the first definition starting after `line` */
		size_t mid = (lo + hi) / 2;
		if (fi->funcs[mid].line <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0)
		if (fi->funcs[lo].end_line >= line)
			return &fi->funcs[lo];
	return NULL;
}

static void push_ref(ot_arena *a, ot_map *m, const char *key, struct ref r)
{
	ref_vec *v = ot_map_get(m, key);
	if (!v) {
		v = ot_arena_alloc(a, sizeof(*v));
		ot_map_put(m, ot_arena_strdup(a, key), v);
	}
	ot_vec_push(v, r);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

ot_which *ot_which_new(ot_trace *const *traces, size_t n, const ot_index *ix, const ot_registry *reg)
{
	ot_which *w = ot_calloc(1, sizeof(*w));
	char key[1200];
	w->traces = traces;
	w->n = n;
	w->ix = ix;
	w->reg = reg;
	w->arena = ot_arena_new();
	w->files = ot_map_new();
	w->lines = ot_map_new();
	for (uint32_t i = 0; i < n; i++) {
		const ot_trace *tr = traces[i];
		for (uint32_t j = 0; j < tr->steps.len; j++) {
			const ot_step *s = &tr->steps.items[j];
			struct ref r = {i, j};
			struct func *f;
			if (!s->found || !s->file)
				continue;
			if ((f = func_at(file_of(w, s->file), s->line)))
				ot_vec_push(&f->refs, r);
			snprintf(key, sizeof(key), "%s:%u", s->file, s->line);
			push_ref(w->arena, w->lines, key, r);
		}
	}
	for (size_t i = 0; reg && i < ot_registry_func_count(reg); i++) {
		const ot_reg_func *f = ot_registry_func_at(reg, i);
		if (f->deriv)
			ot_vec_push(&w->deriv_lines, (uint32_t)f->deriv->line);
	}
	if (w->deriv_lines.len > 1)
		qsort(w->deriv_lines.items, w->deriv_lines.len, sizeof(uint32_t), cmp_u32);
	return w;
}

void ot_which_free(ot_which *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->all_files.len; i++) {
		struct fileinfo *fi = w->all_files.items[i];
		for (size_t k = 0; k < fi->nfuncs; k++)
			ot_vec_free(&fi->funcs[k].refs);
		free(fi->funcs);
	}
	for (size_t i = 0; i < ot_map_len(w->lines); i++)
		ot_vec_free((ref_vec *)ot_map_value_at(w->lines, i));
	ot_vec_free(&w->all_files);
	ot_vec_free(&w->deriv_lines);
	ot_map_free(w->files);
	ot_map_free(w->lines);
	ot_arena_free(w->arena);
	free(w);
}

/* The steps on the `func:` line of a native_functions.yaml entry: its yaml
 * steps (the op's own, or a structured delegate's) and backward steps there. */
static const ref_vec *entry_refs(const ot_which *w, const ot_reg_func *f)
{
	char key[600];
	snprintf(key, sizeof(key), "%s:%d", OT_REGISTRY_NATIVE_PATH, f->line);
	return ot_map_get(w->lines, key);
}

/* ---- results --------------------------------------------------------------------------- */

typedef OT_VEC(ot_which_match) match_vec;

struct q {
	const ot_which *w;
	ot_which_result *res;
	ot_arena *a;
	match_vec matches;
	ot_map *seen; /* "kind:file:line:symbol" of matches made */
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return (x->step > y->step) - (x->step < y->step);
}

/* The refs grouped by op (trace order), `keep` filtering steps (NULL: all). */
static void set_ops(struct q *q, ot_which_match *m, const struct ref *refs, size_t n,
		    bool (*keep)(const ot_step *))
{
	struct ref *v = ot_malloc((n + 1) * sizeof(*v));
	OT_VEC(ot_which_op) ops = {0};
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!keep || keep(&q->w->traces[refs[i].op]->steps.items[refs[i].step]))
			v[k++] = refs[i];
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_ref);
	for (size_t i = 0; i < k;) {
		size_t j = i, *steps;
		ot_which_op o;
		while (j < k && v[j].op == v[i].op)
			j++;
		steps = ot_arena_alloc(q->a, (j - i) * sizeof(*steps));
		o.op = v[i].op;
		o.nsteps = 0;
		for (size_t t = i; t < j; t++)
			if (!o.nsteps || steps[o.nsteps - 1] != v[t].step)
				steps[o.nsteps++] = v[t].step;
		o.steps = steps;
		ot_vec_push(&ops, o);
		i = j;
	}
	m->ops = OT_ARENA_VEC(q->a, &ops);
	m->nops = ops.len;
	ot_vec_free(&ops);
	free(v);
}

static ot_which_match *add_match(struct q *q, ot_which_kind kind, const char *symbol, const char *scope,
				 const char *file, uint32_t line, uint32_t end_line, const char *detail,
				 const char *via)
{
	char key[1400];
	ot_which_match m = {kind, symbol, scope, file, line, end_line, detail, via, NULL, 0};
	snprintf(key, sizeof(key), "%d:%s:%u:%s", (int)kind, file ? file : "", line, symbol ? symbol : "");
	if (ot_map_get(q->seen, key))
		return NULL;
	ot_map_put(q->seen, ot_arena_strdup(q->a, key), (void *)1);
	ot_vec_push(&q->matches, m);
	return &q->matches.items[q->matches.len - 1];
}

static void add_func(struct q *q, const char *file, const struct func *f, const char *via)
{
	ot_which_match *m = add_match(q, OT_WM_FUNCTION, f->name, f->scope, file, f->line, f->end_line,
				      f->detail, via);
	if (m)
		set_ops(q, m, f->refs.items, f->refs.len, NULL);
}

static struct fileinfo *info(const ot_which *w, const char *path)
{
	return file_of((ot_which *)w, path); /* the cache only grows: results stay the same */
}

/* The function record of a definition (in its file's table), or NULL. */
static const struct func *func_of_def(const ot_which *w, const char *path, const void *def)
{
	struct fileinfo *fi = info(w, path);
	for (size_t i = 0; i < fi->nfuncs; i++)
		if (fi->funcs[i].def == def)
			return &fi->funcs[i];
	return NULL;
}

static size_t count_reached(const struct q *q, size_t from)
{
	size_t n = 0;
	for (size_t i = from; i < q->matches.len; i++)
		n += q->matches.items[i].nops > 0;
	return n;
}

/* ---- names ------------------------------------------------------------------------------- */

/* Definitions of `name` whose scope `qual` names (C++), or in the module `pymod` (Python). */
static size_t find_defs(struct q *q, const char *name, const char *qual, const char *pymod, const char *via)
{
	size_t before = q->matches.len;
	if (!pymod)
		for (const ot_ix_cdef *d = ot_index_cdefs(q->w->ix, name); d; d = d->next) {
			const char *path = ot_index_file(q->w->ix, d->file)->path;
			const struct func *f;
			if (!ot_kname_qual_matches(qual, cdef_scope(q->a, d)))
				continue;
			if ((f = func_of_def(q->w, path, d))) {
				add_func(q, path, f, via);
			} else { /* generated by a macro invocation: the steps on its line */
				char key[1200];
				const ref_vec *v;
				ot_which_match *m = add_match(q, OT_WM_FUNCTION, d->name, cdef_scope(q->a, d), path,
							      d->line, d->line, "generated by a macro invocation", via);
				snprintf(key, sizeof(key), "%s:%u", path, d->line);
				if (m && (v = ot_map_get(q->w->lines, key)))
					set_ops(q, m, v->items, v->len, NULL);
			}
		}
	if (!*qual || pymod)
		for (const ot_ix_pydef *d = ot_index_pydefs(q->w->ix, name); d; d = d->next) {
			const char *path = ot_index_file(q->w->ix, d->file)->path;
			const struct func *f;
			if (pymod) {
				char a[512], b[512];
				size_t k = 0;
				for (const char *p = pymod; *p && k + 1 < sizeof(a); p++)
					a[k++] = *p == '.' ? '/' : *p;
				a[k] = '\0';
				snprintf(b, sizeof(b), "%s/__init__.py", a);
				strncat(a, ".py", sizeof(a) - strlen(a) - 1);
				if (strcmp(path, a) && strcmp(path, b))
					continue;
			}
			if ((f = func_of_def(q->w, path, d)))
				add_func(q, path, f, via);
		}
	return q->matches.len - before;
}

/* CUDAFunctor_add, CUDAFunctorOnSelf_add, CUDAFunctorOnOther_add: the functor
 * torchgen/dest/ufunc.py generates for the entries whose ufunc_inner_loop has
 * a Generic or ScalarOnly loop named `add` (or a CUDAFunctor* loop of that name). */
static size_t find_ufunc(struct q *q, const char *name, const char *via)
{
	static const char *const keys[] = {"CUDAFunctorOnSelf_", "CUDAFunctorOnOther_", "CUDAFunctor_"};
	const char *loop = NULL;
	size_t before = q->matches.len;
	for (size_t k = 0; k < OT_ARRAY_LEN(keys) && !loop; k++)
		if (ot_starts_with(name, keys[k]))
			loop = name + strlen(keys[k]);
	for (size_t i = 0; q->w->reg && i < ot_registry_func_count(q->w->reg); i++) {
		const ot_reg_func *f = ot_registry_func_at(q->w->reg, i);
		for (size_t l = 0; l < f->nufunc_inner_loop; l++) {
			const char *entry = f->ufunc_inner_loop[l], *colon = strchr(entry, ':'), *nm;
			size_t nl;
			bool hit;
			if (!colon)
				continue;
			nm = colon + 1;
			while (*nm == ' ')
				nm++;
			nl = strcspn(nm, " (");
			hit = (loop && (ot_starts_with(entry, "Generic:") || ot_starts_with(entry, "ScalarOnly:")) &&
			       strlen(loop) == nl && !strncmp(nm, loop, nl)) ||
			      (ot_starts_with(entry, "CUDAFunctor") && strlen(name) == nl && !strncmp(nm, name, nl));
			if (hit) {
				const ref_vec *v = entry_refs(q->w, f);
				ot_which_match *m = add_match(q, OT_WM_UFUNC, f->schema.full, NULL, OT_REGISTRY_NATIVE_PATH,
							      (uint32_t)f->line, (uint32_t)f->end_line,
							      ot_arena_printf(q->a, "ufunc_inner_loop: %s", entry), via);
				if (m && v)
					set_ops(q, m, v->items, v->len, NULL);
				break;
			}
		}
	}
	return q->matches.len - before;
}

/* Does the text [s, e) name the identifier `name` (not inside a longer one)? */
static bool names_identifier(const char *s, const char *e, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = s; (p = memmem(p, (size_t)(e - p), name, n)); p += n)
		if ((p == s || !ot_is_ident_char(p[-1])) && (p + n >= e || !ot_is_ident_char(p[n])))
			return true;
	return false;
}

/* The traced functions whose bodies name `name` (sum_kernel_cuda names sum_functor). */
static size_t find_users(struct q *q, const char *name, const char *via)
{
	size_t before = q->matches.len;
	for (size_t i = 0; i < q->w->all_files.len; i++) {
		const struct fileinfo *fi = q->w->all_files.items[i];
		int64_t id = ot_index_file_id(q->w->ix, fi->path);
		const ot_ix_file *f;
		if (id < 0)
			continue;
		f = ot_index_file(q->w->ix, (uint32_t)id);
		for (size_t k = 0; k < fi->nfuncs; k++) {
			const struct func *fn = &fi->funcs[k];
			const char *s, *e;
			if (fn->python || !fn->refs.len || fn->line > f->nlines)
				continue;
			s = f->text + f->line_off[fn->line - 1];
			e = fn->end_line < f->nlines ? f->text + f->line_off[fn->end_line] : f->text + f->len;
			if (names_identifier(s, e, name))
				add_func(q, fi->path, fn, via);
		}
	}
	return q->matches.len - before;
}

/* Does `path` define `name` in a scope `qual` names? */
static bool defines_in(struct q *q, const char *path, const char *name, const char *qual)
{
	for (const ot_ix_cdef *d = ot_index_cdefs(q->w->ix, name); d; d = d->next)
		if (!strcmp(ot_index_file(q->w->ix, d->file)->path, path) &&
		    ot_kname_qual_matches(qual, cdef_scope(q->a, d)))
			return true;
	return false;
}

/* The library of a step, as the tracer wrote it: a step under cudnn/, or a
 * cuda step whose note starts with "LIBRARY: " (the tracer's words, as
 * optrace diff reads them). */
static const char *step_library(ot_arena *a, const ot_step *s)
{
	const char *colon;
	if (!s->found)
		return NULL;
	if (strstr(s->file, "/cudnn/"))
		return "cuDNN";
	if (s->layer != OT_LAYER_CUDA || ot_starts_with(s->note, OT_NOTE_LAUNCH) ||
	    ot_starts_with(s->note, "__global__"))
		return NULL;
	colon = strstr(s->note, ": ");
	return colon ? ot_arena_strndup(a, s->note, (size_t)(colon - s->note)) : NULL;
}

/* Steps grouped by the call site they show ("file:line:symbol"), in the
 * order the sites sort: what find_calls and find_library_calls collect. */
struct call_sites {
	ot_map *by_key; /* site -> ref_vec * */
	OT_VEC(const char *) keys;
};

static void call_site_add(struct q *q, struct call_sites *cs, const ot_step *s, uint32_t op, uint32_t step)
{
	char key[1400];
	ref_vec *v;
	snprintf(key, sizeof(key), "%s:%u:%s", s->file, s->line, s->symbol);
	if (!(v = ot_map_get(cs->by_key, key))) {
		const char *k = ot_arena_strdup(q->a, key);
		v = ot_arena_alloc(q->a, sizeof(*v));
		ot_map_put(cs->by_key, k, v);
		ot_vec_push(&cs->keys, k);
	}
	ot_vec_push(v, ((struct ref){op, step}));
}

/* One match of `kind` per site, sorted, with the ops of its steps (the
 * library a step calls when `with_library`); frees the groups. */
static void call_sites_match(struct q *q, struct call_sites *cs, ot_which_kind kind, bool with_library,
			     const char *via)
{
	if (cs->keys.len > 1)
		qsort(cs->keys.items, cs->keys.len, sizeof(*cs->keys.items), ot_strptr_cmp);
	for (size_t k = 0; k < cs->keys.len; k++) {
		ref_vec *v = ot_map_get(cs->by_key, cs->keys.items[k]);
		const ot_step *s = &q->w->traces[v->items[0].op]->steps.items[v->items[0].step];
		ot_which_match *m = add_match(q, kind, s->symbol, NULL, s->file, s->line, s->line,
					      with_library ? step_library(q->a, s) : NULL, via);
		if (m)
			set_ops(q, m, v->items, v->len, NULL);
		ot_vec_free(v);
	}
	ot_vec_free(&cs->keys);
	ot_map_free(cs->by_key);
}

/* The traced steps whose symbol is a call of `name` in scope `qual`
 * ("at::cuda::blas::gemm" for gemm, cuda::blas::gemm, ...), grouped by place. */
static size_t find_calls(struct q *q, const char *name, const char *qual, const char *via)
{
	size_t before = q->matches.len, n = strlen(name);
	struct call_sites cs = {ot_map_new(), {0}};
	for (uint32_t i = 0; i < q->w->n; i++) {
		const ot_trace *tr = q->w->traces[i];
		for (uint32_t j = 0; j < tr->steps.len; j++) {
			const ot_step *s = &tr->steps.items[j];
			size_t sl;
			const char *scope;
			if (!s->found || !s->symbol || (s->layer != OT_LAYER_CPP && s->layer != OT_LAYER_KERNEL &&
							 s->layer != OT_LAYER_CUDA))
				continue;
			sl = strlen(s->symbol);
			if (sl < n || strcmp(s->symbol + sl - n, name) ||
			    (sl > n && !(sl >= n + 2 && s->symbol[sl - n - 1] == ':' && s->symbol[sl - n - 2] == ':')))
				continue;
			scope = sl > n ? ot_arena_strndup(q->a, s->symbol, sl - n - 2) : "";
			/* a written call names its scope partly (blas::gemm); an unqualified
			 * one counts in a file that defines the name in the scope asked for */
			if (*qual && (*scope ? !ot_kname_qual_matches(scope, qual) && !ot_kname_qual_matches(qual, scope)
					     : !defines_in(q, s->file, name, qual)))
				continue;
			call_site_add(q, &cs, s, i, j);
		}
	}
	call_sites_match(q, &cs, OT_WM_CALL, false, via);
	return q->matches.len - before;
}

static size_t find_library_calls(struct q *q, const ot_kname_lib *lib)
{
	size_t before = q->matches.len;
	struct call_sites cs = {ot_map_new(), {0}}; /* the steps calling the library */
	for (uint32_t i = 0; i < q->w->n; i++) {
		const ot_trace *tr = q->w->traces[i];
		for (uint32_t j = 0; j < tr->steps.len; j++) {
			const ot_step *s = &tr->steps.items[j];
			const char *l = step_library(q->a, s);
			bool hit = false;
			if (!l)
				continue;
			for (const char *const *c = lib->call_libs; *c && !hit; c++)
				hit = !strcmp(*c, l);
			if (hit)
				call_site_add(q, &cs, s, i, j);
		}
	}
	call_sites_match(q, &cs, OT_WM_CALLSITE, true, ot_arena_printf(q->a, "a call of %s", lib->library));
	return q->matches.len - before;
}

static const char *ref_via(struct q *q, const ot_kname_ref *ref)
{
	return ot_arena_printf(q->a, "template argument %s%s%s%s", ref->qual, *ref->qual ? "::" : "", ref->name,
			       ref->function ? "()" : "");
}

/* The types every launcher of TensorIterator and the reductions is
 * instantiated with, whatever the op: who uses them says nothing of it. */
static bool plumbing(const ot_kname_ref *ref)
{
	static const char *const names[] = {"Array", "ReduceOp", "func_wrapper_t", "OffsetCalculator",
					    "TrivialOffsetCalculator", "LoadWithoutCast", "StoreWithoutCast",
					    "LoadWithCast", "StoreWithCast", "TensorInfo", "IntDivider",
					    "OpaqueType", "complex", "Half", "BFloat16"};
	for (size_t i = 0; i < OT_ARRAY_LEN(names); i++)
		if (!strcmp(ref->name, names[i]))
			return true;
	return ot_starts_with(ref->qual, "std") || ot_starts_with(ref->qual, "c10") ||
	       ot_starts_with(ref->qual, "at::detail") || ot_starts_with(ref->qual, "at::cuda::detail");
}

static void query_name(struct q *q, const ot_kname *k)
{
	const char *pymod = NULL, *name = k->name;
	size_t direct, first = q->matches.len;
	/* a dotted Python name: torch.nn.functional.softmax */
	if (!*k->qual && strchr(k->name, '.') && !strchr(k->name, ' ')) {
		const char *dot = strrchr(k->name, '.');
		pymod = ot_arena_strndup(q->a, k->name, (size_t)(dot - k->name));
		name = dot + 1;
	}
	direct = find_defs(q, name, k->qual, pymod, NULL);
	find_ufunc(q, name, NULL);
	if (!pymod && !count_reached(q, first)) /* a function whose body no trace enters: its calls */
		find_calls(q, name, k->qual, direct ? "its calls in the traces" : NULL);
	if (!count_reached(q, first)) { /* a generic launcher: what its template arguments name */
		size_t before = q->matches.len;
		for (size_t r = 0; r < k->nrefs; r++) {
			const ot_kname_ref *ref = &k->refs[r];
			find_defs(q, ref->name, ref->qual, NULL, ref_via(q, ref));
			find_ufunc(q, ref->name, ref_via(q, ref));
		}
		/* nothing of those names is traced: the traced functions that use the
		 * op-specific types among them (a functor, not the launcher's plumbing) */
		for (size_t r = 0; !count_reached(q, before) && r < k->nrefs; r++)
			if (!k->refs[r].function && !plumbing(&k->refs[r]))
				find_users(q, k->refs[r].name,
					   ot_arena_printf(q->a, "uses %s (%s)", k->refs[r].name, ref_via(q, &k->refs[r])));
	}
	if (!direct) {
		q->res->library = ot_kname_library(k);
		if (q->res->library)
			find_library_calls(q, q->res->library);
	}
	if (q->matches.len == first && q->res->library)
		q->res->not_found = ot_arena_printf(q->a, "not found: a call of %s in the traces%s%s", q->res->library->library,
						    q->res->library->note ? " (" : "", q->res->library->note ? ot_arena_printf(q->a, "%s)", q->res->library->note) : "");
	else if (q->matches.len == first && ot_index_cdefs(q->w->ix, name)) {
		const ot_ix_cdef *d = ot_index_cdefs(q->w->ix, name);
		q->res->not_found = ot_arena_printf(q->a, "not found: %s::%s in the index (%s is defined in %s, at %s:%u)",
						    k->qual, k->name, name, *cdef_scope(q->a, d) ? cdef_scope(q->a, d) : "the global scope",
						    ot_index_file(q->w->ix, d->file)->path, d->line);
	} else if (q->matches.len == first)
		q->res->not_found = ot_arena_printf(q->a, "not found: %s%s%s in the index (no definition of that "
						    "name in that scope, no traced call of it, no generated functor, "
						    "no GPU library kernel of that name)", k->qual, *k->qual ? "::" : "", k->name);
}

/* ---- files, lines, entries ---------------------------------------------------------------- */

typedef OT_VEC(const char *) path_vec;

/* The indexed or traced paths equal to `path` or ending with "/" + path. */
static void resolve_path(const struct q *q, const char *path, path_vec *out)
{
	size_t n = ot_index_get_stats(q->w->ix)->files, len = strlen(path);
	if (ot_index_file_id(q->w->ix, path) >= 0) {
		ot_vec_push(out, ot_index_file(q->w->ix, (uint32_t)ot_index_file_id(q->w->ix, path))->path);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *p = ot_index_file(q->w->ix, i)->path;
		size_t pl = strlen(p);
		if (pl > len && p[pl - len - 1] == '/' && !strcmp(p + pl - len, path))
			ot_vec_push(out, p);
	}
}

/* A registry entry whose block holds `line` of native_functions.yaml. */
static const ot_reg_func *native_entry_at(const ot_which *w, uint32_t line)
{
	for (size_t i = 0; w->reg && i < ot_registry_func_count(w->reg); i++) {
		const ot_reg_func *f = ot_registry_func_at(w->reg, i);
		if ((uint32_t)f->line <= line && line <= (uint32_t)f->end_line)
			return f;
	}
	return NULL;
}

static void add_entry(struct q *q, const ot_reg_func *f, const char *via)
{
	const ref_vec *v = entry_refs(q->w, f);
	ot_which_match *m = add_match(q, OT_WM_ENTRY, f->schema.full, NULL, OT_REGISTRY_NATIVE_PATH,
				      (uint32_t)f->line, (uint32_t)f->end_line, f->func, via);
	if (m && v)
		set_ops(q, m, v->items, v->len, NULL);
}

/* The derivatives.yaml entry whose block holds `line`: the steps on its name line. */
static void add_deriv_at(struct q *q, uint32_t lo, uint32_t hi, const char *via)
{
	const uint32_t *d = q->w->deriv_lines.items;
	size_t nd = q->w->deriv_lines.len;
	for (size_t i = 0; i < nd; i++) {
		uint32_t start = d[i], end = i + 1 < nd ? d[i + 1] - 1 : UINT32_MAX;
		char key[1200];
		const ref_vec *v;
		if (end < lo || start > hi)
			continue;
		snprintf(key, sizeof(key), "%s:%u", OT_REGISTRY_DERIV_PATH, start);
		v = ot_map_get(q->w->lines, key);
		for (size_t k = 0; v && k < v->len; k++) {
			const ot_step *s = &q->w->traces[v->items[k].op]->steps.items[v->items[k].step];
			ot_which_match *m = add_match(q, OT_WM_ENTRY, s->symbol, NULL, OT_REGISTRY_DERIV_PATH, start,
						      end == UINT32_MAX ? start : end, "derivatives.yaml entry", via);
			if (m)
				set_ops(q, m, v->items, v->len, NULL);
		}
	}
}

/* Steps on lines lo..hi of `path` that lie outside every definition. */
static void add_lines(struct q *q, const char *path, uint32_t lo, uint32_t hi, const char *via)
{
	struct fileinfo *fi = info(q->w, path);
	int64_t id = ot_index_file_id(q->w->ix, path);
	char key[1200];
	if (id >= 0 && hi > ot_index_file(q->w->ix, (uint32_t)id)->nlines)
		hi = ot_index_file(q->w->ix, (uint32_t)id)->nlines;
	for (uint32_t l = lo ? lo : 1; l <= hi; l++) {
		const ref_vec *v;
		snprintf(key, sizeof(key), "%s:%u", path, l);
		if (!(v = ot_map_get(q->w->lines, key)) || func_at(fi, l))
			continue;
		{
			const ot_step *s = &q->w->traces[v->items[0].op]->steps.items[v->items[0].step];
			ot_which_match *m = add_match(q, OT_WM_LINE, s->symbol, NULL, path, l, l, NULL, via);
			if (m)
				set_ops(q, m, v->items, v->len, NULL);
		}
	}
}

/* Everything lines lo..hi of `path` touch (an insertion: after lo). */
static void touch_range(struct q *q, const char *path, uint32_t lo, uint32_t hi, bool insert, const char *via)
{
	struct fileinfo *fi = info(q->w, path);
	if (!strcmp(path, OT_REGISTRY_NATIVE_PATH)) {
		for (size_t i = 0; q->w->reg && i < ot_registry_func_count(q->w->reg); i++) {
			const ot_reg_func *f = ot_registry_func_at(q->w->reg, i);
			bool hit = insert ? (uint32_t)f->line <= lo && lo < (uint32_t)f->end_line
					  : !((uint32_t)f->end_line < lo || (uint32_t)f->line > hi);
			if (hit)
				add_entry(q, f, via);
		}
		return;
	}
	if (!strcmp(path, OT_REGISTRY_DERIV_PATH)) {
		add_deriv_at(q, insert ? lo + 1 : lo, insert ? lo : hi, via);
		return;
	}
	for (size_t i = 0; i < fi->nfuncs; i++) {
		const struct func *f = &fi->funcs[i];
		bool hit = insert ? f->line <= lo && lo < f->end_line : !(f->end_line < lo || f->line > hi);
		if (hit && f->refs.len)
			add_func(q, path, f, via);
	}
	if (!insert)
		add_lines(q, path, lo, hi, via);
}

static bool parse_fileline(const char *what, char *path, size_t n, uint32_t *line)
{
	const char *colon = strrchr(what, ':');
	char *end;
	unsigned long v;
	if (!colon || colon == what || !colon[1] || (colon > what && colon[-1] == ':'))
		return false;
	v = strtoul(colon + 1, &end, 10);
	if (*end || !v || v > UINT32_MAX || (size_t)(colon - what) >= n)
		return false;
	memcpy(path, what, (size_t)(colon - what));
	path[colon - what] = '\0';
	*line = (uint32_t)v;
	return true;
}

static bool looks_like_path(const char *what)
{
	static const char *const exts[] = {".cpp", ".cu", ".cuh", ".h", ".hpp", ".cc", ".py", ".yaml", ".mm"};
	if (strstr(what, "::") || strchr(what, '(') || strchr(what, '<') || strchr(what, ' '))
		return false;
	if (strchr(what, '/'))
		return true;
	for (size_t i = 0; i < OT_ARRAY_LEN(exts); i++)
		if (ot_ends_with(what, exts[i]))
			return true;
	return false;
}

static void query_file(struct q *q, const char *path, uint32_t line)
{
	path_vec paths = {0};
	resolve_path(q, path, &paths);
	for (size_t i = 0; i < paths.len; i++) {
		const char *p = paths.items[i];
		if (line) {
			struct fileinfo *fi = info(q->w, p);
			struct func *f = func_at(fi, line);
			char key[1200];
			const ref_vec *v;
			if (!strcmp(p, OT_REGISTRY_NATIVE_PATH)) {
				const ot_reg_func *e = native_entry_at(q->w, line);
				if (e)
					add_entry(q, e, NULL);
				continue;
			}
			if (!strcmp(p, OT_REGISTRY_DERIV_PATH)) {
				add_deriv_at(q, line, line, NULL);
				continue;
			}
			snprintf(key, sizeof(key), "%s:%u", p, line);
			if ((v = ot_map_get(q->w->lines, key))) {
				const ot_step *s = &q->w->traces[v->items[0].op]->steps.items[v->items[0].step];
				ot_which_match *m = add_match(q, OT_WM_LINE, s->symbol, NULL, p, line, line, NULL, NULL);
				if (m)
					set_ops(q, m, v->items, v->len, NULL);
			}
			if (f)
				add_func(q, p, f, ot_arena_printf(q->a, "holds line %u", line));
		} else {
			touch_range(q, p, 1, UINT32_MAX - 1, false, NULL);
		}
	}
	if (!paths.len)
		q->res->not_found = ot_arena_printf(q->a, "not found: %s in the files optrace reads", path);
	else if (!q->matches.len)
		q->res->not_found = line ? ot_arena_printf(q->a, "not found: a traced step or definition at %s:%u", path, line)
					 : ot_arena_printf(q->a, "not found: a traced step in %s", path);
	ot_vec_free(&paths);
}

static void query_op(struct q *q, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; q->w->reg && i < ot_registry_func_count(q->w->reg); i++) {
		const ot_reg_func *f = ot_registry_func_at(q->w->reg, i);
		if (!strcmp(f->schema.full, name) || !strcmp(f->schema.name, name) ||
		    (!strncmp(f->schema.full, name, n) && f->schema.full[n] == '.' && !strchr(name, '.')))
			add_entry(q, f, NULL);
	}
	if (!q->matches.len)
		q->res->not_found = ot_arena_printf(q->a, "not found: aten::%s in %s", name, OT_REGISTRY_NATIVE_PATH);
}

/* ---- the public queries ------------------------------------------------------------------- */

static void finish(struct q *q)
{
	ot_map *ops = ot_map_new();
	char key[32];
	q->res->matches = OT_ARENA_VEC(q->a, &q->matches);
	q->res->nmatches = q->matches.len;
	for (size_t i = 0; i < q->matches.len; i++)
		for (size_t k = 0; k < q->matches.items[i].nops; k++) {
			snprintf(key, sizeof(key), "%zu", q->matches.items[i].ops[k].op);
			if (!ot_map_get(ops, key))
				ot_map_put(ops, ot_arena_strdup(q->a, key), (void *)1);
		}
	q->res->nops = ot_map_len(ops);
	ot_map_free(ops);
	ot_vec_free(&q->matches);
	ot_map_free(q->seen);
}

static ot_which_result *start(struct q *q, const ot_which *w, const char *what)
{
	ot_which_result *r = ot_calloc(1, sizeof(*r));
	r->arena = ot_arena_new();
	r->query = ot_arena_strdup(r->arena, what);
	memset(q, 0, sizeof(*q));
	q->w = w;
	q->res = r;
	q->a = r->arena;
	q->seen = ot_map_new();
	return r;
}

int ot_which_query(ot_which_result **out, const ot_which *w, const char *what)
{
	struct q q;
	ot_which_result *r;
	char path[1024];
	uint32_t line;
	*out = NULL;
	while (*what == ' ' || *what == '\t')
		what++;
	if (!*what)
		return ot_error_set("which needs something to look for");
	r = start(&q, w, what);
	if (ot_starts_with(what, "aten::") && what[6] && !strchr(what + 6, ':') && !strchr(what, '(')) {
		r->qkind = OT_WQ_OP;
		query_op(&q, what + 6);
	} else if (parse_fileline(what, path, sizeof(path), &line) && looks_like_path(path)) {
		r->qkind = OT_WQ_FILELINE;
		query_file(&q, path, line);
	} else if (looks_like_path(what)) {
		r->qkind = OT_WQ_FILE;
		query_file(&q, what, 0);
	} else {
		ot_kname *k = ot_arena_alloc(q.a, sizeof(*k));
		if (ot_kname_parse(k, q.a, what) < 0) {
			ot_error_wrap("'%s'", what);
			ot_vec_free(&q.matches);
			ot_map_free(q.seen);
			ot_which_result_free(r);
			return OT_ERROR;
		}
		r->qkind = OT_WQ_NAME;
		r->parsed = k;
		query_name(&q, k);
	}
	finish(&q);
	*out = r;
	return 0;
}

int ot_which_diff(ot_which_result **out, const ot_which *w, const ot_udiff *d)
{
	struct q q;
	ot_which_result *r = start(&q, w, "--diff");
	ot_buf missing = OT_BUF_INIT;
	r->qkind = OT_WQ_DIFF;
	for (size_t i = 0; i < d->nfiles; i++) {
		const ot_udiff_file *f = &d->files[i];
		if (!f->old_path)
			continue; /* a new file: nothing of the traced release */
		if (ot_index_file_id(w->ix, f->old_path) < 0) {
			ot_buf_printf(&missing, "%s%s", missing.size ? ", " : "", f->old_path);
			continue;
		}
		if (f->whole) {
			touch_range(&q, f->old_path, 1, UINT32_MAX - 1, false,
				    f->binary ? "a binary file changed" : "the file was deleted");
			continue;
		}
		for (size_t c = 0; c < f->nchanges; c++) {
			const ot_udiff_change *ch = &f->changes[c];
			const char *via = ch->insert ? ot_arena_printf(q.a, "lines added after line %u", ch->lo)
				: ch->lo == ch->hi ? ot_arena_printf(q.a, "line %u changed", ch->lo)
						   : ot_arena_printf(q.a, "lines %u-%u changed", ch->lo, ch->hi);
			touch_range(&q, f->old_path, ch->lo, ch->hi, ch->insert, via);
		}
	}
	if (missing.size)
		r->not_found = ot_arena_printf(q.a, "not found: %s in the files optrace reads", missing.ptr);
	ot_buf_free(&missing);
	finish(&q);
	*out = r;
	return 0;
}

void ot_which_result_free(ot_which_result *r)
{
	if (!r)
		return;
	ot_arena_free(r->arena);
	free(r);
}

/* ---- the Kernels page -------------------------------------------------------------------- */

static bool on_main(const ot_step *s)
{
	return s->main != 0;
}

static int cmp_match(const void *a, const void *b)
{
	const ot_which_match *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	if (c)
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

size_t ot_which_main_functions(const ot_which *w, ot_arena *arena, const ot_which_match **out)
{
	struct q q = {0};
	q.w = w;
	q.a = arena;
	q.seen = ot_map_new();
	for (size_t i = 0; i < w->all_files.len; i++) {
		const struct fileinfo *fi = w->all_files.items[i];
		for (size_t k = 0; k < fi->nfuncs; k++) {
			const struct func *f = &fi->funcs[k];
			ot_which_match *m;
			bool any = false;
			if (f->python)
				continue;
			for (size_t r = 0; r < f->refs.len && !any; r++)
				any = on_main(&w->traces[f->refs.items[r].op]->steps.items[f->refs.items[r].step]);
			if (!any)
				continue;
			m = add_match(&q, OT_WM_FUNCTION, f->name, f->scope, fi->path, f->line, f->end_line,
				      f->detail, NULL);
			if (m)
				set_ops(&q, m, f->refs.items, f->refs.len, on_main);
		}
	}
	if (q.matches.len > 1)
		qsort(q.matches.items, q.matches.len, sizeof(*q.matches.items), cmp_match);
	*out = OT_ARENA_VEC(arena, &q.matches);
	{
		size_t n = q.matches.len;
		ot_vec_free(&q.matches);
		ot_map_free(q.seen);
		return n;
	}
}
