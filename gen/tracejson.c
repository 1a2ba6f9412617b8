#include "tracejson.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "yamldoc.h"

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

static ot_value *str_list(ot_arena *a, const char *const *items, size_t n)
{
	ot_value *l = ot_v_list(a);
	for (size_t i = 0; i < n; i++)
		ot_v_push(a, l, ot_v_str_borrow(a, items[i]));
	return l;
}

static ot_value *formulas_value(ot_arena *a, const ot_reg_formula *fs, size_t n)
{
	ot_value *l = ot_v_list(a);
	for (size_t i = 0; i < n; i++) {
		ot_value *f = ot_v_map(a);
		ot_v_set(a, f, "inputs", ot_v_str_borrow(a, fs[i].inputs));
		ot_v_set(a, f, "formula", ot_v_str_borrow(a, fs[i].formula));
		ot_v_set_int(a, f, "line", fs[i].line);
		ot_v_set_bool(a, f, "forward", fs[i].forward);
		ot_v_push(a, l, f);
	}
	return l;
}

static ot_value *deriv_value(ot_arena *a, const ot_reg_deriv *d)
{
	ot_value *m = ot_v_map(a), *blocks = ot_v_list(a);
	ot_v_set(a, m, "name", ot_v_str_borrow(a, d->name));
	ot_v_set_int(a, m, "line", d->line);
	ot_v_set(a, m, "output_differentiability", ot_v_str_borrow(a, d->output_differentiability));
	ot_v_set(a, m, "formulas", formulas_value(a, d->formulas, d->nformulas));
	for (size_t i = 0; i < d->ndispatch; i++) {
		ot_value *b = ot_v_map(a);
		ot_v_set(a, b, "key", ot_v_str_borrow(a, d->dispatch[i].key));
		ot_v_set_int(a, b, "line", d->dispatch[i].line);
		ot_v_set(a, b, "formulas",
			 formulas_value(a, d->dispatch[i].formulas, d->dispatch[i].nformulas));
		ot_v_push(a, blocks, b);
	}
	ot_v_set(a, m, "dispatch", blocks);
	return m;
}

static ot_value *entry_value(ot_arena *a, const ot_reg_func *f)
{
	ot_value *m = ot_v_map(a), *table = ot_v_null(a);
	ot_v_set(a, m, "name", ot_v_str_borrow(a, f->schema.full));
	ot_v_set_int(a, m, "line", f->line);
	ot_v_set(a, m, "func", ot_v_str_borrow(a, f->func));
	ot_v_set(a, m, "variants", ot_v_str_borrow(a, f->variants));
	ot_v_set(a, m, "python_module", ot_v_str_borrow(a, f->python_module));
	if (f->has_dispatch) {
		table = ot_v_list(a);
		for (size_t i = 0; i < f->ndispatch; i++) {
			ot_value *d = ot_v_map(a);
			ot_v_set(a, d, "key", ot_v_str_borrow(a, f->dispatch[i].key));
			ot_v_set(a, d, "kernel", ot_v_str_borrow(a, f->dispatch[i].kernel));
			ot_v_set_int(a, d, "line", f->dispatch[i].line);
			ot_v_push(a, table, d);
		}
	}
	ot_v_set(a, m, "dispatch", table);
	ot_v_set_bool(a, m, "structured", f->structured);
	ot_v_set(a, m, "structured_delegate", ot_v_str_borrow(a, f->structured_delegate));
	ot_v_set(a, m, "structured_inherits", ot_v_str_borrow(a, f->structured_inherits));
	ot_v_set(a, m, "ufunc_inner_loop", str_list(a, f->ufunc_inner_loop, f->nufunc_inner_loop));
	ot_v_set(a, m, "autogen", str_list(a, f->autogen, f->nautogen));
	ot_v_set(a, m, "derivative", f->deriv ? deriv_value(a, f->deriv) : ot_v_null(a));
	return m;
}

/* Every overload of every name the op reaches itself, then their delegates:
 * what a diff needs to tell an overload that is new from one not reached. */
static ot_value *registry_value(ot_arena *a, const ot_trace *tr, const ot_registry *reg)
{
	ot_value *l = ot_v_list(a);
	ot_map *seen = ot_map_new(), *names = ot_map_new();
	OT_VEC(const ot_reg_func *) fams = {0};

	for (size_t i = 0; i < tr->aten.len; i++) {
		const ot_reg_func *f = ot_registry_find(reg, tr->aten.items[i]);
		const ot_reg_func *const *ov;
		size_t n;
		if (!f || ot_map_get(names, f->schema.name))
			continue;
		ot_map_put(names, f->schema.name, (void *)f);
		ov = ot_registry_overloads(reg, f->schema.name, &n);
		for (size_t k = 0; k < n; k++) {
			if (ot_map_get(seen, ov[k]->schema.full))
				continue;
			ot_map_put(seen, ov[k]->schema.full, (void *)ov[k]);
			ot_vec_push(&fams, ov[k]);
		}
	}
	for (size_t i = 0, n = fams.len; i < n; i++) {
		const ot_reg_func *d = fams.items[i]->delegate;
		if (d && !ot_map_get(seen, d->schema.full)) {
			ot_map_put(seen, d->schema.full, (void *)d);
			ot_vec_push(&fams, d);
		}
	}
	for (size_t i = 0; i < fams.len; i++)
		ot_v_push(a, l, entry_value(a, fams.items[i]));
	ot_vec_free(&fams);
	ot_map_free(seen);
	ot_map_free(names);
	return l;
}

ot_value *ot_tracejson_op(ot_arena *a, const ot_trace *tr, const ot_registry *reg)
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
	if (reg)
		ot_v_set(a, m, "registry", registry_value(a, tr, reg));
	return m;
}

void ot_tracejson_write(ot_buf *out, const ot_release *rel, const ot_registry *reg,
			ot_trace *const *traces, size_t n)
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
		ot_v_push(a, ops, ot_tracejson_op(a, traces[i], reg));
	ot_v_set(a, root, "ops", ops);
	ot_v_to_json(out, root, 2);
	ot_arena_free(a);
}

/* ---- reading ---------------------------------------------------------------------------- */

/* Reading context: the document, and where in the file we are for messages. */
struct rd {
	ot_tj_doc *doc;
	ot_arena *a;
	ot_buf where;
};

static int bad(struct rd *r, const char *key, const char *what)
{
	return ot_error_set("%s: '%s' %s", r->where.ptr, key, what);
}

static const char *copy_str(struct rd *r, const ot_value *v)
{
	return ot_arena_strndup(r->a, v->u.str.ptr, v->u.str.len);
}

/* The member `key` of type `type` in *out; absent or null: NULL, an error
 * when required. `what` says the type in the message. */
static int member(struct rd *r, const ot_value *m, const char *key, bool required, ot_vtype type,
		  const char *what, const ot_value **out)
{
	const ot_value *v = ot_v_get(m, key);
	*out = NULL;
	if (!v || v->type == OT_V_NULL)
		return required ? bad(r, key, "is missing") : 0;
	if (v->type != type)
		return bad(r, key, what);
	*out = v;
	return 0;
}

static int get_str(struct rd *r, const ot_value *m, const char *key, bool required,
		   const char **out)
{
	const ot_value *v;
	int rc = member(r, m, key, required, OT_V_STR,
			required ? "must be a string" : "must be a string or null", &v);
	*out = v ? copy_str(r, v) : NULL;
	return rc;
}

static int get_int(struct rd *r, const ot_value *m, const char *key, bool required,
		   long long min, long long max, long long *out)
{
	const ot_value *v;
	int rc = member(r, m, key, required, OT_V_INT, "must be an integer", &v);
	*out = v ? v->u.i : 0;
	if (v && (v->u.i < min || v->u.i > max))
		return bad(r, key, "is out of range");
	return rc;
}

static int get_bool(struct rd *r, const ot_value *m, const char *key, bool *out)
{
	const ot_value *v;
	int rc = member(r, m, key, false, OT_V_BOOL, "must be true or false", &v);
	*out = v && v->u.b;
	return rc;
}

/* A list member (absent: NULL, an empty list to ot_v_len, unless required). */
static int get_list(struct rd *r, const ot_value *m, const char *key, bool required,
		    const ot_value **out)
{
	return member(r, m, key, required, OT_V_LIST, "must be a list", out);
}

static int get_strings(struct rd *r, const ot_value *m, const char *key, bool required,
		       ot_strvec *out)
{
	const ot_value *l;
	int rc = get_list(r, m, key, required, &l);
	for (size_t i = 0; rc == 0 && i < ot_v_len(l); i++) {
		const ot_value *v = ot_v_at(l, i);
		if (v->type != OT_V_STR)
			return bad(r, key, "must be a list of strings");
		ot_vec_push(out, copy_str(r, v));
	}
	return rc;
}

/* Strings of a vector live in the arena; the vector itself moves there too,
 * so a document frees with its arena alone. */
static void settle(struct rd *r, ot_strvec *v)
{
	const char **items = NULL;
	if (v->len) {
		items = ot_arena_alloc(r->a, v->len * sizeof(*items));
		memcpy(items, v->items, v->len * sizeof(*items));
	}
	free(v->items);
	v->items = items;
	v->cap = v->len;
}

static void push_where(struct rd *r, size_t *mark, const char *fmt, ...) OT_PRINTF(3, 4);
static void push_where(struct rd *r, size_t *mark, const char *fmt, ...)
{
	va_list ap;
	*mark = r->where.size;
	va_start(ap, fmt);
	ot_buf_vprintf(&r->where, fmt, ap);
	va_end(ap);
}

static int read_step(struct rd *r, ot_step *s, const ot_value *v)
{
	const char *layer;
	long long line, depth, parent;
	int rc;

	if (v->type != OT_V_MAP)
		return ot_error_set("%s: a step must be an object", r->where.ptr);
	if ((rc = get_str(r, v, "layer", true, &layer)) < 0 ||
	    (rc = get_str(r, v, "file", false, &s->file)) < 0 ||
	    (rc = get_int(r, v, "line", false, 0, UINT32_MAX, &line)) < 0 ||
	    (rc = get_str(r, v, "symbol", false, &s->symbol)) < 0 ||
	    (rc = get_str(r, v, "note", false, &s->note)) < 0 ||
	    (rc = get_str(r, v, "op", false, &s->op)) < 0 ||
	    (rc = get_str(r, v, "backend", false, &s->backend)) < 0 ||
	    (rc = get_int(r, v, "depth", false, 0, 255, &depth)) < 0 ||
	    (rc = get_int(r, v, "parent", false, -1, INT32_MAX, &parent)) < 0)
		return rc;
	s->layer = OT_LAYER_COUNT;
	for (int l = 0; l < OT_LAYER_COUNT; l++)
		if (!strcmp(layer, ot_layer_name((ot_layer)l)))
			s->layer = (ot_layer)l;
	if (s->layer == OT_LAYER_COUNT)
		return bad(r, "layer", "names no known layer");
	s->found = s->file != NULL;
	s->line = s->found ? (uint32_t)line : 0;
	s->symbol = s->symbol ? s->symbol : "";
	s->note = s->note ? s->note : "";
	s->op = s->op ? s->op : "";
	s->backend = s->backend ? s->backend : "";
	s->depth = (uint8_t)depth;
	s->parent = (int)parent;
	return 0;
}

static int read_formulas(struct rd *r, const ot_value *m, ot_reg_formula **out, size_t *n)
{
	const ot_value *l;
	int rc = get_list(r, m, "formulas", false, &l);
	*n = ot_v_len(l);
	*out = ot_arena_alloc(r->a, (*n + 1) * sizeof(**out));
	for (size_t i = 0; rc == 0 && i < *n; i++) {
		const ot_value *f = ot_v_at(l, i);
		long long line;
		if (f->type != OT_V_MAP)
			return bad(r, "formulas", "must be a list of objects");
		if ((rc = get_str(r, f, "inputs", true, &(*out)[i].inputs)) < 0 ||
		    (rc = get_str(r, f, "formula", true, &(*out)[i].formula)) < 0 ||
		    (rc = get_int(r, f, "line", false, 0, INT32_MAX, &line)) < 0 ||
		    (rc = get_bool(r, f, "forward", &(*out)[i].forward)) < 0)
			return rc;
		(*out)[i].line = (int)line;
	}
	return rc;
}

static int read_deriv(struct rd *r, ot_reg_deriv *d, const ot_value *m)
{
	const ot_value *blocks;
	long long line;
	int rc;

	if ((rc = get_str(r, m, "name", true, &d->name)) < 0 ||
	    (rc = get_int(r, m, "line", false, 0, INT32_MAX, &line)) < 0 ||
	    (rc = get_str(r, m, "output_differentiability", false, &d->output_differentiability)) < 0 ||
	    (rc = read_formulas(r, m, &d->formulas, &d->nformulas)) < 0 ||
	    (rc = get_list(r, m, "dispatch", false, &blocks)) < 0)
		return rc;
	d->line = (int)line;
	if (ot_reg_schema_parse(&d->schema, r->a, d->name) < 0)
		return ot_error_set("%s: derivative '%s': %s", r->where.ptr, d->name, ot_error_last());
	d->ndispatch = ot_v_len(blocks);
	d->dispatch = ot_arena_alloc(r->a, (d->ndispatch + 1) * sizeof(*d->dispatch));
	for (size_t i = 0; i < d->ndispatch; i++) {
		const ot_value *b = ot_v_at(blocks, i);
		ot_reg_deriv_dispatch *dd = &d->dispatch[i];
		if (b->type != OT_V_MAP)
			return bad(r, "dispatch", "must be a list of objects");
		if ((rc = get_str(r, b, "key", true, &dd->key)) < 0 ||
		    (rc = get_int(r, b, "line", false, 0, INT32_MAX, &line)) < 0 ||
		    (rc = read_formulas(r, b, &dd->formulas, &dd->nformulas)) < 0)
			return rc;
		dd->line = (int)line;
	}
	return 0;
}

static int read_entry(struct rd *r, ot_reg_func *f, const ot_value *m)
{
	const ot_value *table, *dv;
	ot_strvec ufunc = {0}, autogen = {0};
	const char *name;
	long long line;
	int rc;

	if (m->type != OT_V_MAP)
		return ot_error_set("%s: a registry entry must be an object", r->where.ptr);
	if ((rc = get_str(r, m, "name", true, &name)) < 0 ||
	    (rc = get_int(r, m, "line", false, 0, INT32_MAX, &line)) < 0 ||
	    (rc = get_str(r, m, "func", true, &f->func)) < 0 ||
	    (rc = get_str(r, m, "variants", false, &f->variants)) < 0 ||
	    (rc = get_str(r, m, "python_module", false, &f->python_module)) < 0 ||
	    (rc = get_list(r, m, "dispatch", false, &table)) < 0 ||
	    (rc = get_bool(r, m, "structured", &f->structured)) < 0 ||
	    (rc = get_str(r, m, "structured_delegate", false, &f->structured_delegate)) < 0 ||
	    (rc = get_str(r, m, "structured_inherits", false, &f->structured_inherits)) < 0 ||
	    (rc = get_strings(r, m, "ufunc_inner_loop", false, &ufunc)) < 0 ||
	    (rc = get_strings(r, m, "autogen", false, &autogen)) < 0)
		goto done;
	f->line = (int)line;
	if (ot_reg_schema_parse(&f->schema, r->a, f->func) < 0) {
		rc = ot_error_set("%s: func '%s': %s", r->where.ptr, f->func, ot_error_last());
		goto done;
	}
	if (strcmp(f->schema.full, name)) {
		rc = ot_error_set("%s: 'name' is %s but 'func' names %s", r->where.ptr, name,
				  f->schema.full);
		goto done;
	}
	f->variant_function = !f->variants || strstr(f->variants, "function");
	f->variant_method = f->variants && strstr(f->variants, "method");
	settle(r, &ufunc);
	f->ufunc_inner_loop = ufunc.items;
	f->nufunc_inner_loop = ufunc.len;
	ufunc.items = NULL;
	settle(r, &autogen);
	f->autogen = autogen.items;
	f->nautogen = autogen.len;
	autogen.items = NULL;
	f->has_dispatch = table != NULL;
	f->ndispatch = ot_v_len(table);
	f->dispatch = ot_arena_alloc(r->a, (f->ndispatch + 1) * sizeof(*f->dispatch));
	for (size_t i = 0; i < f->ndispatch; i++) {
		const ot_value *d = ot_v_at(table, i);
		if (d->type != OT_V_MAP) {
			rc = bad(r, "dispatch", "must be a list of objects or null");
			goto done;
		}
		if ((rc = get_str(r, d, "key", true, &f->dispatch[i].key)) < 0 ||
		    (rc = get_str(r, d, "kernel", true, &f->dispatch[i].kernel)) < 0 ||
		    (rc = get_int(r, d, "line", false, 0, INT32_MAX, &line)) < 0)
			goto done;
		f->dispatch[i].line = (int)line;
	}
	dv = ot_v_get(m, "derivative");
	if (dv && dv->type != OT_V_NULL) {
		ot_reg_deriv *d = ot_arena_alloc(r->a, sizeof(*d));
		if (dv->type != OT_V_MAP) {
			rc = bad(r, "derivative", "must be an object or null");
			goto done;
		}
		if ((rc = read_deriv(r, d, dv)) < 0)
			goto done;
		d->func = f;
		f->deriv = d;
	}
done:
	free(ufunc.items);
	free(autogen.items);
	return rc;
}

static int read_registry(struct rd *r, ot_tj_op *op, const ot_value *l)
{
	ot_map *by_name = ot_map_new();
	ot_reg_func *entries;
	int rc = 0;

	op->nregistry = ot_v_len(l);
	entries = ot_arena_alloc(r->a, (op->nregistry + 1) * sizeof(*entries));
	op->registry = ot_arena_alloc(r->a, (op->nregistry + 1) * sizeof(*op->registry));
	for (size_t i = 0; i < op->nregistry; i++) {
		size_t mark;
		push_where(r, &mark, ".registry[%zu]", i);
		entries[i].index = i;
		rc = read_entry(r, &entries[i], ot_v_at(l, i));
		if (rc == 0 && ot_map_put(by_name, entries[i].schema.full, &entries[i]))
			rc = ot_error_set("%s: '%s' is listed twice", r->where.ptr, entries[i].schema.full);
		ot_buf_truncate(&r->where, mark);
		if (rc < 0)
			goto done;
		op->registry[i] = &entries[i];
	}
	/* a delegate outside the list stays unresolved (NULL), as in a registry
	 * that names an entry it does not have */
	for (size_t i = 0; i < op->nregistry; i++)
		if (entries[i].structured_delegate)
			entries[i].delegate = ot_map_get(by_name, entries[i].structured_delegate);
done:
	ot_map_free(by_name);
	return rc;
}

int ot_tracejson_doc_add(ot_tj_doc *doc, const ot_value *v, const char *where)
{
	struct rd r = {doc, doc->arena, OT_BUF_INIT};
	ot_tj_op op = {0};
	OT_VEC(ot_step) steps = {0};
	const ot_value *list, *be;
	const char *status;
	int rc;

	ot_buf_puts(&r.where, where);
	if (v->type != OT_V_MAP) {
		rc = ot_error_set("%s: an op must be an object", where);
		goto done;
	}
	if ((rc = get_str(&r, v, "input", true, &op.input)) < 0 ||
	    (rc = get_str(&r, v, "name", false, &op.name)) < 0 ||
	    (rc = get_str(&r, v, "status", true, &status)) < 0 ||
	    (rc = get_str(&r, v, "strategy", false, &op.strategy)) < 0 ||
	    (rc = get_strings(&r, v, "aten", true, &op.aten)) < 0 ||
	    (rc = get_strings(&r, v, "messages", false, &op.messages)) < 0 ||
	    (rc = get_list(&r, v, "steps", true, &list)) < 0)
		goto done;
	for (op.status = 0; op.status <= OT_STATUS_ERROR; op.status++)
		if (!strcmp(status, ot_status_name(op.status)))
			break;
	if (op.status > OT_STATUS_ERROR) {
		rc = bad(&r, "status", "names no known status");
		goto done;
	}
	for (size_t i = 0; i < ot_v_len(list); i++) {
		ot_step s = {0};
		size_t mark;
		push_where(&r, &mark, ".steps[%zu]", i);
		rc = read_step(&r, &s, ot_v_at(list, i));
		ot_buf_truncate(&r.where, mark);
		if (rc < 0)
			goto done;
		ot_vec_push(&steps, s);
	}
	be = ot_v_get(v, "backends");
	if (be && be->type != OT_V_NULL) {
		size_t mark;
		if (be->type != OT_V_MAP) {
			rc = bad(&r, "backends", "must be an object");
			goto done;
		}
		push_where(&r, &mark, ".backends");
		rc = get_strings(&r, be, "keys", false, &op.keys);
		if (rc == 0)
			rc = get_strings(&r, be, "gpu", false, &op.gpu);
		ot_buf_truncate(&r.where, mark);
		if (rc < 0)
			goto done;
	}
	if ((rc = get_list(&r, v, "registry", false, &list)) < 0)
		goto done;
	op.has_registry = list != NULL;
	if (list && (rc = read_registry(&r, &op, list)) < 0)
		goto done;
	op.nsteps = steps.len;
	op.steps = ot_arena_alloc(r.a, (steps.len + 1) * sizeof(*op.steps));
	if (steps.len)
		memcpy(op.steps, steps.items, steps.len * sizeof(*op.steps));
	settle(&r, &op.aten);
	settle(&r, &op.keys);
	settle(&r, &op.gpu);
	settle(&r, &op.messages);
	ot_vec_push(&doc->ops, op);
done:
	if (rc < 0) {
		free(op.aten.items);
		free(op.keys.items);
		free(op.gpu.items);
		free(op.messages.items);
	}
	ot_vec_free(&steps);
	ot_buf_free(&r.where);
	return rc;
}

ot_tj_doc *ot_tracejson_doc_new(const ot_release *rel)
{
	ot_tj_doc *doc = ot_calloc(1, sizeof(*doc));
	doc->arena = ot_arena_new();
	doc->version = ot_arena_strdup(doc->arena, rel->version ? rel->version : "");
	doc->tag = rel->tag ? ot_arena_strdup(doc->arena, rel->tag) : NULL;
	doc->commit = ot_arena_strdup(doc->arena, rel->commit ? rel->commit : "");
	doc->verified = rel->verified;
	return doc;
}

void ot_tracejson_doc_free(ot_tj_doc *doc)
{
	if (!doc)
		return;
	ot_vec_free(&doc->ops);
	ot_arena_free(doc->arena);
	free(doc);
}

int ot_tracejson_read(ot_tj_doc **out, const char *data, size_t len, const char *name)
{
	ot_arena *a = ot_arena_new();
	ot_tj_doc *doc = NULL;
	ot_value *root;
	const ot_value *pt, *ops, *sv;
	ot_release rel = {0};
	struct rd r = {NULL, a, OT_BUF_INIT};
	int rc;

	*out = NULL;
	ot_buf_puts(&r.where, name);
	if ((rc = ot_yaml_load(&root, a, data, len, name)) < 0)
		goto done;
	if (root->type != OT_V_MAP) {
		rc = ot_error_set("%s: not a trace.json: the top level is not an object", name);
		goto done;
	}
	sv = ot_v_get(root, "schema_version");
	if (!sv || sv->type != OT_V_INT || sv->u.i < 1 || sv->u.i > OT_TRACEJSON_SCHEMA) {
		rc = ot_error_set("%s: not a trace.json this optrace reads (schema_version must be "
				  "1 to %d)", name, OT_TRACEJSON_SCHEMA);
		goto done;
	}
	pt = ot_v_get(root, "pytorch");
	if (!pt || pt->type != OT_V_MAP) {
		rc = ot_error_set("%s: 'pytorch' is missing or not an object", name);
		goto done;
	}
	if ((rc = get_str(&r, pt, "version", true, &rel.version)) < 0 ||
	    (rc = get_str(&r, pt, "tag", false, &rel.tag)) < 0 ||
	    (rc = get_str(&r, pt, "commit", false, &rel.commit)) < 0 ||
	    (rc = get_bool(&r, pt, "verified", &rel.verified)) < 0 ||
	    (rc = get_list(&r, root, "ops", true, &ops)) < 0)
		goto done;
	doc = ot_tracejson_doc_new(&rel);
	for (size_t i = 0; i < ot_v_len(ops); i++) {
		char where[600];
		snprintf(where, sizeof(where), "%s: ops[%zu]", name, i);
		if ((rc = ot_tracejson_doc_add(doc, ot_v_at(ops, i), where)) < 0)
			goto done;
	}
	*out = doc;
	doc = NULL;
done:
	ot_tracejson_doc_free(doc);
	ot_buf_free(&r.where);
	ot_arena_free(a);
	return rc;
}

int ot_tracejson_load(ot_tj_doc **out, const char *path)
{
	FILE *f;
	ot_buf b = OT_BUF_INIT;
	char chunk[65536];
	size_t n;
	int rc;

	*out = NULL;
	if (!(f = fopen(path, "rb")))
		return ot_error_set("cannot read %s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ot_buf_put(&b, chunk, n);
	rc = ferror(f) ? ot_error_set("cannot read %s: %s", path, strerror(errno)) : 0;
	fclose(f);
	if (rc == 0)
		rc = ot_tracejson_read(out, b.ptr, b.size, path);
	ot_buf_free(&b);
	return rc;
}
