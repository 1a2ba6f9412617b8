/*
 * registry.c - load native_functions.yaml and derivatives.yaml of one
 * release into ot_reg_func / ot_reg_deriv records, link them, and dump them.
 *
 * Everything (YAML trees, records, strings, lookup keys) lives in one arena
 * owned by the registry; the two maps only borrow keys from it.
 */
#include "registry.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "yamldoc.h"

/* All overloads of one schema name, in file order. */
struct group {
	const ot_reg_func **items;
	size_t len;
};

struct ot_registry {
	ot_arena *arena;
	const char *native_name;
	const char *deriv_name; /* NULL without derivatives.yaml */
	ot_reg_func *funcs;
	size_t nfuncs;
	ot_reg_deriv *derivs;
	size_t nderivs;
	ot_map *by_full;  /* "add.Tensor" -> ot_reg_func */
	ot_map *by_name;  /* "add" -> struct group */
	size_t unmatched;
	size_t dump_budget; /* nodes an extra-field copy may use in the dump */
};

/* What one load is working on: the file name for messages and a work budget. */
struct ctx {
	ot_registry *reg;
	ot_arena *arena;
	const char *file;
	/*
	 * yamldoc shares aliased nodes instead of copying them, so a small
	 * hostile file could make every entry point at one huge list. Every
	 * item materialised here costs one unit; a real file needs far fewer
	 * units than it has bytes.
	 */
	size_t budget;
};

typedef OT_VEC(const char *) str_vec;

#define fail_at(cx, line, col, ...) ot_error_at((cx)->file, line, col, __VA_ARGS__)

static int spend(struct ctx *cx, const ot_value *at, size_t n)
{
	if (n > cx->budget)
		return fail_at(cx, at->line, at->col,
			       "too many items (aliases expand beyond the file size)");
	cx->budget -= n;
	return 0;
}

/* The written text of a scalar, or NULL for a list or a map. */
static const char *scalar_text(const ot_value *v)
{
	if (!v || v->type == OT_V_LIST || v->type == OT_V_MAP)
		return NULL;
	return v->text ? v->text : "";
}

static const char *trim(ot_arena *arena, const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return ot_arena_strndup(arena, s, len);
}

/* Split "a, b,c" on commas into trimmed pieces (empty pieces kept). */
static void split_commas(ot_arena *arena, const char *text, str_vec *into)
{
	const char *p = text;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		ot_vec_push(into, trim(arena, p, len));
		if (!comma)
			break;
		p = comma + 1;
	}
}

/* The items of `vec` moved to the arena, their number stored in `count`. */
#define ARENA_COPY(arena, vec, count) ((count) = (vec)->len, OT_ARENA_VEC(arena, vec))

static int need_scalar(struct ctx *cx, const ot_member *m, const char **out)
{
	*out = scalar_text(m->value);
	if (!*out)
		return fail_at(cx, m->value->line, m->value->col, "'%s' must be a scalar",
			       m->key);
	return 0;
}

static int parse_schema(struct ctx *cx, ot_reg_schema *out, const ot_value *v)
{
	const char *text = scalar_text(v);
	if (!text)
		return fail_at(cx, v->line, v->col, "bad schema: not a scalar");
	if (ot_reg_schema_parse(out, cx->arena, text) < 0)
		return ot_error_wrap("%s:%d:%d: bad schema", cx->file, v->line, v->col);
	return 0;
}

typedef OT_VEC(ot_reg_extra) extra_vec;

static void add_extra(extra_vec *extra, const ot_member *m)
{
	ot_reg_extra e = {m->key, m->line, m->value};
	ot_vec_push(extra, e);
}

/* The common head of an entry: a mapping whose `key:` holds a schema. */
static int parse_head(struct ctx *cx, const ot_value *entry, const char *key, int *line,
		      const char **text, ot_reg_schema *schema)
{
	const ot_member *m;
	int rc;

	if (entry->type != OT_V_MAP)
		return fail_at(cx, entry->line, entry->col, "entry is not a mapping");
	m = ot_v_member(entry, key);
	if (!m)
		return fail_at(cx, entry->line, entry->col, "entry has no '%s:'", key);
	*line = m->line;
	*text = scalar_text(m->value);
	if ((rc = parse_schema(cx, schema, m->value)) < 0)
		return rc;
	return spend(cx, entry, entry->u.map.len);
}

/* ---- native_functions.yaml ------------------------------------------------------ */

static int parse_dispatch(struct ctx *cx, ot_reg_func *f, const ot_member *m)
{
	OT_VEC(ot_reg_dispatch) out = {0};
	str_vec keys = {0};
	const ot_value *table = m->value;
	size_t i, k;
	int rc = 0;

	f->has_dispatch = true;
	f->dispatch_line = m->line;
	if (table->type == OT_V_NULL)
		goto done;
	if (table->type != OT_V_MAP) {
		rc = fail_at(cx, table->line, table->col, "'dispatch' must be a mapping");
		goto done;
	}
	if ((rc = spend(cx, table, table->u.map.len)) < 0)
		goto done;
	for (i = 0; i < table->u.map.len; i++) {
		const ot_member *d = &table->u.map.items[i];
		const char *kernel = scalar_text(d->value);
		if (!kernel) {
			rc = fail_at(cx, d->value->line, d->value->col,
				     "dispatch kernel for '%s' must be a scalar", d->key);
			goto done;
		}
		keys.len = 0;
		split_commas(cx->arena, d->key, &keys);
		for (k = 0; k < keys.len; k++) {
			ot_reg_dispatch entry = {keys.items[k], kernel, d->line};
			if (!*keys.items[k]) {
				rc = fail_at(cx, d->line, d->col, "empty dispatch key in '%s'",
					     d->key);
				goto done;
			}
			ot_vec_push(&out, entry);
		}
	}
done:
	if (!rc)
		f->dispatch = ARENA_COPY(cx->arena, &out, f->ndispatch);
	ot_vec_free(&out);
	ot_vec_free(&keys);
	return rc;
}

/* A list of scalars, or (when `scalar_ok`) one scalar, into an array. */
static int parse_str_list(struct ctx *cx, const ot_member *m, bool scalar_ok, bool split,
			  const char ***items, size_t *count)
{
	str_vec v = {0};
	const ot_value *val = m->value;
	size_t i;
	int rc = 0;

	if (val->type == OT_V_LIST) {
		if ((rc = spend(cx, val, val->u.list.len)) < 0)
			goto done;
		for (i = 0; i < val->u.list.len; i++) {
			const char *t = scalar_text(val->u.list.items[i]);
			if (!t) {
				rc = fail_at(cx, val->u.list.items[i]->line,
					     val->u.list.items[i]->col,
					     "items of '%s' must be scalars", m->key);
				goto done;
			}
			ot_vec_push(&v, t);
		}
	} else if (scalar_ok && scalar_text(val)) {
		if (split)
			split_commas(cx->arena, scalar_text(val), &v);
		else
			ot_vec_push(&v, scalar_text(val));
	} else {
		rc = fail_at(cx, val->line, val->col, "'%s' must be %s", m->key,
			     scalar_ok ? "a scalar or a list" : "a list");
		goto done;
	}
	*items = ARENA_COPY(cx->arena, &v, *count);
done:
	ot_vec_free(&v);
	return rc;
}

static int parse_ufunc(struct ctx *cx, ot_reg_func *f, const ot_member *m)
{
	str_vec v = {0};
	const ot_value *map = m->value;
	size_t i;
	int rc = 0;

	if (map->type != OT_V_MAP) {
		rc = fail_at(cx, map->line, map->col, "'%s' must be a mapping", m->key);
		goto done;
	}
	if ((rc = spend(cx, map, map->u.map.len)) < 0)
		goto done;
	for (i = 0; i < map->u.map.len; i++) {
		const ot_member *u = &map->u.map.items[i];
		const char *t = scalar_text(u->value);
		if (!t) {
			rc = fail_at(cx, u->value->line, u->value->col,
				     "'%s' of '%s' must be a scalar", u->key, m->key);
			goto done;
		}
		ot_vec_push(&v, ot_arena_printf(cx->arena, "%s: %s", u->key, t));
	}
	f->ufunc_inner_loop = ARENA_COPY(cx->arena, &v, f->nufunc_inner_loop);
done:
	ot_vec_free(&v);
	return rc;
}

static void parse_variants(ot_reg_func *f, ot_arena *arena)
{
	str_vec words = {0};
	size_t i;
	if (!f->variants) {
		f->variant_function = true;
		return;
	}
	split_commas(arena, f->variants, &words);
	for (i = 0; i < words.len; i++) {
		if (!strcmp(words.items[i], "function"))
			f->variant_function = true;
		else if (!strcmp(words.items[i], "method"))
			f->variant_method = true;
	}
	ot_vec_free(&words);
}

static int parse_func_field(struct ctx *cx, ot_reg_func *f, const ot_member *m, extra_vec *extra)
{
	const char *k = m->key;

	if (!strcmp(k, "func"))
		return 0;
	if (!strcmp(k, "dispatch"))
		return parse_dispatch(cx, f, m);
	if (!strcmp(k, "variants"))
		return need_scalar(cx, m, &f->variants);
	if (!strcmp(k, "structured") || !strcmp(k, "manual_cpp_binding")) {
		bool *flag = k[0] == 's' ? &f->structured : &f->manual_cpp_binding;
		const char *t;
		int rc = need_scalar(cx, m, &t);
		*flag = rc == 0 && ot_v_truthy_scalar(m->value);
		return rc;
	}
	if (!strcmp(k, "structured_delegate"))
		return need_scalar(cx, m, &f->structured_delegate);
	if (!strcmp(k, "structured_inherits"))
		return need_scalar(cx, m, &f->structured_inherits);
	if (!strcmp(k, "python_module"))
		return need_scalar(cx, m, &f->python_module);
	if (!strcmp(k, "device_check"))
		return need_scalar(cx, m, &f->device_check);
	if (!strcmp(k, "device_guard"))
		return need_scalar(cx, m, &f->device_guard);
	if (!strcmp(k, "precomputed"))
		return parse_str_list(cx, m, false, false, &f->precomputed, &f->nprecomputed);
	if (!strcmp(k, "tags"))
		return parse_str_list(cx, m, true, false, &f->tags, &f->ntags);
	if (!strcmp(k, "autogen"))
		return parse_str_list(cx, m, true, true, &f->autogen, &f->nautogen);
	if (!strcmp(k, "ufunc_inner_loop"))
		return parse_ufunc(cx, f, m);
	add_extra(extra, m);
	return 0;
}

static int parse_func(struct ctx *cx, ot_reg_func *f, const ot_value *entry)
{
	extra_vec extra = {0};
	size_t i;
	int rc = 0;

	if ((rc = parse_head(cx, entry, "func", &f->line, &f->func, &f->schema)) < 0)
		return rc;
	for (i = 0; i < entry->u.map.len; i++)
		if ((rc = parse_func_field(cx, f, &entry->u.map.items[i], &extra)) < 0)
			goto done;
	parse_variants(f, cx->arena);
	f->extra = ARENA_COPY(cx->arena, &extra, f->nextra);
done:
	ot_vec_free(&extra);
	return rc;
}

static int load_native(struct ctx *cx, const char *data, size_t len)
{
	ot_registry *reg = cx->reg;
	ot_value *root;
	size_t i, nlines = 0;
	int rc;

	if ((rc = ot_yaml_load(&root, cx->arena, data, len, cx->file)) < 0)
		return rc;
	if (root->type != OT_V_LIST)
		return fail_at(cx, root->line ? root->line : 1, root->col ? root->col : 1,
			       "top level is not a list");
	reg->nfuncs = root->u.list.len;
	reg->funcs = ot_arena_alloc(cx->arena, (reg->nfuncs + 1) * sizeof(*reg->funcs));
	for (i = 0; i < reg->nfuncs; i++) {
		ot_reg_func *f = &reg->funcs[i], *first;
		f->index = i;
		if ((rc = parse_func(cx, f, root->u.list.items[i])) < 0)
			return rc;
		first = ot_map_put(reg->by_full, f->schema.full, f);
		if (first) {
			const ot_member *fm = ot_v_member(root->u.list.items[i], "func");
			return fail_at(cx, fm->value->line, fm->value->col,
				       "duplicate entry '%s' (first at line %d)", f->schema.full,
				       first->line);
		}
	}

	/* An entry runs to the line before the next one starts (comments and
	 * blank lines in between belong to the entry above them). */
	for (i = 0; i < len; i++)
		if (data[i] == '\n')
			nlines++;
	if (len && data[len - 1] != '\n')
		nlines++;
	for (i = 0; i < reg->nfuncs; i++) {
		int end = i + 1 < reg->nfuncs ? root->u.list.items[i + 1]->line - 1 : (int)nlines;
		reg->funcs[i].end_line = end < reg->funcs[i].line ? reg->funcs[i].line : end;
	}

	for (i = 0; i < reg->nfuncs; i++) {
		ot_reg_func *f = &reg->funcs[i];
		if (!f->structured_delegate)
			continue;
		f->delegate = ot_map_get(reg->by_full, f->structured_delegate);
		if (!f->delegate) {
			const ot_member *m =
				ot_v_member(root->u.list.items[i], "structured_delegate");
			return fail_at(cx, m->value->line, m->value->col,
				       "structured_delegate '%s' names no entry",
				       f->structured_delegate);
		}
	}

	for (i = 0; i < reg->nfuncs; i++) {
		struct group *g = ot_map_get(reg->by_name, reg->funcs[i].schema.name);
		if (!g) {
			g = ot_arena_alloc(cx->arena, sizeof(*g));
			ot_map_put(reg->by_name, reg->funcs[i].schema.name, g);
		}
		g->len++;
	}
	for (i = 0; i < ot_map_len(reg->by_name); i++) {
		struct group *g = ot_map_value_at(reg->by_name, i);
		g->items = ot_arena_alloc(cx->arena, g->len * sizeof(*g->items));
		g->len = 0;
	}
	for (i = 0; i < reg->nfuncs; i++) {
		struct group *g = ot_map_get(reg->by_name, reg->funcs[i].schema.name);
		g->items[g->len++] = &reg->funcs[i];
	}
	return 0;
}

/* ---- derivatives.yaml ------------------------------------------------------------ */

enum { NAME_INPUT = 1, NAME_OUTPUT = 2 };

static void add_name(ot_map *names, const char *name, uintptr_t bit)
{
	uintptr_t bits = (uintptr_t)ot_map_get(names, name);
	ot_map_put(names, name, (void *)(bits | bit));
}

/*
 * The names a formula key may use, each with NAME_* bits: the arguments,
 * and the outputs (return names, else "result" / "result0", "result1"..).
 * A map, so that classifying a key costs one lookup per name.
 */
static ot_map *formula_names(ot_arena *arena, const ot_reg_schema *s)
{
	ot_map *names = ot_map_new();
	size_t i;
	for (i = 0; i < s->nreturns; i++) {
		const char *r = s->returns[i].name;
		if (!r)
			r = s->nreturns == 1 ? "result" : ot_arena_printf(arena, "result%zu", i);
		add_name(names, r, NAME_OUTPUT);
	}
	for (i = 0; i < s->nargs; i++)
		add_name(names, s->args[i].name, NAME_INPUT);
	return names;
}

/*
 * 0: every name of the key is an input (backward formula; inputs win, as in
 * torchgen); 1: every name is an output (forward-mode formula); -1: neither,
 * not a formula.
 */
static int classify_key(const ot_map *names, const char *key)
{
	bool all_in = true, all_out = true;
	const char *p = key;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		uintptr_t bits;
		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!len)
			return -1;
		bits = (uintptr_t)ot_map_getn(names, p, len);
		all_in = all_in && (bits & NAME_INPUT);
		all_out = all_out && (bits & NAME_OUTPUT);
		if (!comma)
			break;
		p = comma + 1;
	}
	return all_in ? 0 : all_out ? 1 : -1;
}

typedef OT_VEC(ot_reg_formula) formula_vec;

/* A member that is a formula is added to `into`; anything else to `extra`. */
static void formula_or_extra(struct ctx *cx, const ot_map *names, const ot_member *m,
			     const char *prefix, formula_vec *into, extra_vec *extra)
{
	const char *text = scalar_text(m->value);
	int kind = text ? classify_key(names, m->key) : -1;
	if (kind >= 0) {
		ot_reg_formula f = {m->key, text, m->line, kind == 1};
		ot_vec_push(into, f);
	} else if (prefix) {
		ot_member named = *m;
		named.key = ot_arena_printf(cx->arena, "dispatch.%s.%s", prefix, m->key);
		add_extra(extra, &named);
	} else {
		add_extra(extra, m);
	}
}

static int parse_deriv_dispatch(struct ctx *cx, ot_reg_deriv *d, const ot_map *names,
				const ot_member *m, extra_vec *extra)
{
	const ot_value *table = m->value;
	formula_vec fv = {0};
	size_t i, j;
	int rc = 0;

	if (table->type == OT_V_NULL)
		return 0;
	if (table->type != OT_V_MAP)
		return fail_at(cx, table->line, table->col, "'dispatch' must be a mapping");
	if ((rc = spend(cx, table, table->u.map.len)) < 0)
		return rc;
	d->ndispatch = table->u.map.len;
	d->dispatch = ot_arena_alloc(cx->arena, (d->ndispatch + 1) * sizeof(*d->dispatch));
	for (i = 0; i < table->u.map.len; i++) {
		const ot_member *b = &table->u.map.items[i];
		ot_reg_deriv_dispatch *dd = &d->dispatch[i];
		dd->key = b->key;
		dd->line = b->line;
		if (b->value->type == OT_V_NULL)
			continue;
		if (b->value->type != OT_V_MAP) {
			rc = fail_at(cx, b->value->line, b->value->col,
				     "dispatch block '%s' must be a mapping", b->key);
			goto done;
		}
		if ((rc = spend(cx, b->value, b->value->u.map.len)) < 0)
			goto done;
		fv.len = 0;
		for (j = 0; j < b->value->u.map.len; j++)
			formula_or_extra(cx, names, &b->value->u.map.items[j], b->key, &fv, extra);
		dd->formulas = ARENA_COPY(cx->arena, &fv, dd->nformulas);
	}
done:
	ot_vec_free(&fv);
	return rc;
}

/* `[True, False]` is a flow list: rebuild its written form from the items. */
static int parse_output_diff(struct ctx *cx, ot_reg_deriv *d, const ot_member *m)
{
	const ot_value *v = m->value;
	ot_buf b = OT_BUF_INIT;
	size_t i;

	if (v->type != OT_V_LIST)
		return need_scalar(cx, m, &d->output_differentiability);
	if (spend(cx, v, v->u.list.len) < 0)
		return OT_ERROR;
	ot_buf_putc(&b, '[');
	for (i = 0; i < v->u.list.len; i++) {
		const char *t = scalar_text(v->u.list.items[i]);
		if (!t) {
			ot_buf_free(&b);
			return fail_at(cx, v->u.list.items[i]->line, v->u.list.items[i]->col,
				       "items of '%s' must be scalars", m->key);
		}
		ot_buf_printf(&b, "%s%s", i ? ", " : "", t);
	}
	ot_buf_putc(&b, ']');
	d->output_differentiability = ot_arena_strndup(cx->arena, b.ptr, b.size);
	ot_buf_free(&b);
	return 0;
}

static int parse_deriv(struct ctx *cx, ot_reg_deriv *d, const ot_value *entry)
{
	extra_vec extra = {0};
	formula_vec fv = {0};
	ot_map *names;
	size_t i;
	int rc;

	if ((rc = parse_head(cx, entry, "name", &d->line, &d->name, &d->schema)) < 0)
		return rc;
	names = formula_names(cx->arena, &d->schema);
	for (i = 0; i < entry->u.map.len && !rc; i++) {
		const ot_member *m = &entry->u.map.items[i];
		if (!strcmp(m->key, "name"))
			continue;
		if (!strcmp(m->key, "dispatch"))
			rc = parse_deriv_dispatch(cx, d, names, m, &extra);
		else if (!strcmp(m->key, "output_differentiability"))
			rc = parse_output_diff(cx, d, m);
		else
			formula_or_extra(cx, names, m, NULL, &fv, &extra);
	}
	if (!rc) {
		d->formulas = ARENA_COPY(cx->arena, &fv, d->nformulas);
		d->extra = ARENA_COPY(cx->arena, &extra, d->nextra);
	}
	ot_map_free(names);
	ot_vec_free(&extra);
	ot_vec_free(&fv);
	return rc;
}

static int load_deriv(struct ctx *cx, const char *data, size_t len)
{
	ot_registry *reg = cx->reg;
	ot_map *seen = ot_map_new();
	ot_value *root;
	size_t i;
	int rc;

	if ((rc = ot_yaml_load(&root, cx->arena, data, len, cx->file)) < 0)
		goto done;
	if (root->type != OT_V_LIST) {
		rc = fail_at(cx, root->line ? root->line : 1, root->col ? root->col : 1,
			     "top level is not a list");
		goto done;
	}
	reg->nderivs = root->u.list.len;
	reg->derivs = ot_arena_alloc(cx->arena, (reg->nderivs + 1) * sizeof(*reg->derivs));
	for (i = 0; i < reg->nderivs; i++) {
		ot_reg_deriv *d = &reg->derivs[i];
		const ot_reg_deriv *first;
		d->index = i;
		if ((rc = parse_deriv(cx, d, root->u.list.items[i])) < 0)
			goto done;
		first = ot_map_put(seen, d->schema.full, d);
		if (first) {
			const ot_member *nm = ot_v_member(root->u.list.items[i], "name");
			rc = fail_at(cx, nm->value->line, nm->value->col,
				     "duplicate entry '%s' (first at line %d)", d->schema.full,
				     first->line);
			goto done;
		}
		d->func = ot_map_get(reg->by_full, d->schema.full);
		if (d->func)
			((ot_reg_func *)d->func)->deriv = d;
		else
			reg->unmatched++;
	}
done:
	ot_map_free(seen);
	return rc;
}

/* ---- public API ------------------------------------------------------------------- */

int ot_registry_load(ot_registry **out, const char *native, size_t native_len,
		     const char *native_name, const char *deriv, size_t deriv_len,
		     const char *deriv_name)
{
	ot_registry *reg = ot_calloc(1, sizeof(*reg));
	struct ctx cx;
	int rc;

	*out = NULL;
	reg->arena = ot_arena_new();
	reg->by_full = ot_map_new();
	reg->by_name = ot_map_new();
	reg->native_name = ot_arena_strdup(reg->arena, native_name ? native_name : "native");
	reg->dump_budget = native_len + (deriv ? deriv_len : 0) + 1024;

	cx = (struct ctx){reg, reg->arena, reg->native_name, native_len + 1024};
	if ((rc = load_native(&cx, native, native_len)) < 0)
		goto done;
	if (deriv) {
		reg->deriv_name =
			ot_arena_strdup(reg->arena, deriv_name ? deriv_name : "derivatives");
		cx.file = reg->deriv_name;
		cx.budget = deriv_len + 1024;
		if ((rc = load_deriv(&cx, deriv, deriv_len)) < 0)
			goto done;
	}
	*out = reg;
	reg = NULL;
done:
	ot_registry_free(reg);
	return rc;
}

void ot_registry_free(ot_registry *reg)
{
	if (!reg)
		return;
	ot_map_free(reg->by_full);
	ot_map_free(reg->by_name);
	ot_arena_free(reg->arena);
	free(reg);
}

size_t ot_registry_func_count(const ot_registry *reg)
{
	return reg->nfuncs;
}

const ot_reg_func *ot_registry_func_at(const ot_registry *reg, size_t i)
{
	return i < reg->nfuncs ? &reg->funcs[i] : NULL;
}

bool ot_reg_schema_outputs_tensor(const ot_reg_schema *schema)
{
	for (size_t i = 0; i < schema->nreturns; i++)
		if (ot_starts_with(schema->returns[i].type, "Tensor"))
			return true;
	for (size_t i = 0; i < schema->nargs; i++)
		if (schema->args[i].is_write)
			return true;
	return false;
}

bool ot_reg_func_has_tag(const ot_reg_func *f, const char *tag)
{
	for (size_t i = 0; i < f->ntags; i++)
		if (!strcmp(f->tags[i], tag))
			return true;
	return false;
}

bool ot_reg_func_composite_implicit(const ot_reg_func *f)
{
	if (!f->has_dispatch && !f->nufunc_inner_loop)
		return true;
	for (size_t i = 0; i < f->ndispatch; i++)
		if (!strcmp(f->dispatch[i].key, "CompositeImplicitAutograd"))
			return true;
	return false;
}

const char *ot_reg_func_implicit_kernel(ot_arena *a, const ot_reg_func *f)
{
	/* torchgen's cpp.name(func): the base name, "_out" for an out= overload */
	return f->schema.is_out ? ot_arena_printf(a, "%s_out", f->schema.name) : f->schema.name;
}

const ot_reg_func *ot_registry_find(const ot_registry *reg, const char *full_name)
{
	return ot_map_get(reg->by_full, full_name);
}

const ot_reg_func *const *ot_registry_overloads(const ot_registry *reg, const char *name,
						size_t *count)
{
	const struct group *g = ot_map_get(reg->by_name, name);
	*count = g ? g->len : 0;
	return g ? (const ot_reg_func *const *)g->items : NULL;
}

size_t ot_registry_deriv_count(const ot_registry *reg)
{
	return reg->nderivs;
}

const ot_reg_deriv *ot_registry_deriv_at(const ot_registry *reg, size_t i)
{
	return i < reg->nderivs ? &reg->derivs[i] : NULL;
}

size_t ot_registry_unmatched_derivs(const ot_registry *reg)
{
	return reg->unmatched;
}

/* ---- JSON dump ----------------------------------------------------------------------- */

struct dump {
	ot_arena *arena;
	size_t budget;
	ot_map *extra_keys; /* key -> count (as a pointer-sized integer) */
};

static void set_s(struct dump *dp, ot_value *map, const char *key, const char *s)
{
	ot_v_set(dp->arena, map, key, ot_v_str_borrow(dp->arena, s));
}

static ot_value *str_list(struct dump *dp, const char *const *items, size_t n)
{
	ot_value *list = ot_v_list(dp->arena);
	size_t i;
	for (i = 0; i < n; i++)
		ot_v_push(dp->arena, list, ot_v_str_borrow(dp->arena, items[i]));
	return list;
}

/*
 * Copy an extra field's value for the dump. Aliased YAML nodes are shared,
 * so walking them could expand exponentially; the copy stops when the
 * budget is spent. Depth is bounded by the YAML reader's nesting limit.
 */
static ot_value *copy_bounded(struct dump *dp, const ot_value *v)
{
	ot_value *c;
	size_t i, n;

	if (!dp->budget)
		return ot_v_str(dp->arena, "(not copied: alias expansion limit)");
	dp->budget--;
	if (v->type != OT_V_LIST && v->type != OT_V_MAP)
		return (ot_value *)v;
	c = ot_arena_alloc(dp->arena, sizeof(*c));
	*c = *v;
	n = v->type == OT_V_LIST ? v->u.list.len : v->u.map.len;
	if (v->type == OT_V_LIST) {
		c->u.list.items = ot_arena_alloc(dp->arena, (n + 1) * sizeof(ot_value *));
		c->u.list.cap = n + 1;
		for (i = 0; i < n; i++)
			c->u.list.items[i] = copy_bounded(dp, v->u.list.items[i]);
	} else {
		/* Filled directly: YAML keys are unique, and ot_v_set would
		 * search the map for every key. */
		c->u.map.items = ot_arena_alloc(dp->arena, (n + 1) * sizeof(ot_member));
		c->u.map.cap = n + 1;
		for (i = 0; i < n; i++) {
			c->u.map.items[i] = v->u.map.items[i];
			c->u.map.items[i].value = copy_bounded(dp, v->u.map.items[i].value);
		}
	}
	return c;
}

static ot_value *dump_extra(struct dump *dp, const ot_reg_extra *extra, size_t n)
{
	ot_value *list = ot_v_list(dp->arena);
	size_t i;
	for (i = 0; i < n; i++) {
		ot_value *e = ot_v_push(dp->arena, list, ot_v_map(dp->arena));
		size_t count = (size_t)(uintptr_t)ot_map_get(dp->extra_keys, extra[i].key);
		set_s(dp, e, "key", extra[i].key);
		ot_v_set_int(dp->arena, e, "line", extra[i].line);
		ot_v_set(dp->arena, e, "value", copy_bounded(dp, extra[i].value));
		ot_map_put(dp->extra_keys, extra[i].key, (void *)(uintptr_t)(count + 1));
	}
	return list;
}

static ot_value *dump_args(struct dump *dp, const ot_reg_arg *args, size_t n)
{
	ot_value *list = ot_v_list(dp->arena);
	size_t i;
	for (i = 0; i < n; i++) {
		ot_value *a = ot_v_push(dp->arena, list, ot_v_map(dp->arena));
		set_s(dp, a, "type", args[i].type);
		set_s(dp, a, "name", args[i].name);
		set_s(dp, a, "default", args[i].def);
		set_s(dp, a, "annotation", args[i].annotation);
		ot_v_set_bool(dp->arena, a, "kwarg_only", args[i].kwarg_only);
		ot_v_set_bool(dp->arena, a, "is_write", args[i].is_write);
		ot_v_set_bool(dp->arena, a, "optional", args[i].optional);
	}
	return list;
}

static ot_value *dump_schema(struct dump *dp, const ot_reg_schema *s)
{
	ot_value *m = ot_v_map(dp->arena);
	set_s(dp, m, "name", s->name);
	set_s(dp, m, "overload", s->overload);
	set_s(dp, m, "full", s->full);
	set_s(dp, m, "base", s->base);
	ot_v_set_bool(dp->arena, m, "inplace", s->inplace);
	ot_v_set_bool(dp->arena, m, "is_out", s->is_out);
	ot_v_set(dp->arena, m, "args", dump_args(dp, s->args, s->nargs));
	ot_v_set(dp->arena, m, "returns", dump_args(dp, s->returns, s->nreturns));
	return m;
}

static ot_value *dump_ref(struct dump *dp, const char *full, int line)
{
	ot_value *m = ot_v_map(dp->arena);
	set_s(dp, m, "full", full);
	ot_v_set_int(dp->arena, m, "line", line);
	return m;
}

/* The fields every entry of both files starts with. */
static ot_value *dump_head(struct dump *dp, size_t index, int line, const char *key,
			   const char *text, const ot_reg_schema *s)
{
	ot_value *m = ot_v_map(dp->arena);
	ot_v_set_int(dp->arena, m, "index", (long long)index);
	ot_v_set_int(dp->arena, m, "line", line);
	set_s(dp, m, key, text);
	ot_v_set(dp->arena, m, "schema", dump_schema(dp, s));
	return m;
}

static ot_value *dump_func(struct dump *dp, const ot_reg_func *f)
{
	ot_arena *a = dp->arena;
	ot_value *m = dump_head(dp, f->index, f->line, "func", f->func, &f->schema);
	ot_value *disp = ot_v_list(a);
	size_t i;

	ot_v_set_int(a, m, "end_line", f->end_line);
	set_s(dp, m, "variants", f->variants);
	ot_v_set_bool(a, m, "variant_function", f->variant_function);
	ot_v_set_bool(a, m, "variant_method", f->variant_method);
	ot_v_set_bool(a, m, "has_dispatch", f->has_dispatch);
	ot_v_set_int(a, m, "dispatch_line", f->dispatch_line);
	for (i = 0; i < f->ndispatch; i++) {
		ot_value *d = ot_v_push(a, disp, ot_v_map(a));
		set_s(dp, d, "key", f->dispatch[i].key);
		set_s(dp, d, "kernel", f->dispatch[i].kernel);
		ot_v_set_int(a, d, "line", f->dispatch[i].line);
	}
	ot_v_set(a, m, "dispatch", disp);
	ot_v_set_bool(a, m, "structured", f->structured);
	set_s(dp, m, "structured_delegate", f->structured_delegate);
	ot_v_set(a, m, "delegate",
		 f->delegate ? dump_ref(dp, f->delegate->schema.full, f->delegate->line)
			     : ot_v_null(a));
	set_s(dp, m, "structured_inherits", f->structured_inherits);
	ot_v_set(a, m, "precomputed", str_list(dp, f->precomputed, f->nprecomputed));
	set_s(dp, m, "python_module", f->python_module);
	ot_v_set(a, m, "tags", str_list(dp, f->tags, f->ntags));
	ot_v_set(a, m, "autogen", str_list(dp, f->autogen, f->nautogen));
	ot_v_set(a, m, "ufunc_inner_loop",
		 str_list(dp, f->ufunc_inner_loop, f->nufunc_inner_loop));
	set_s(dp, m, "device_check", f->device_check);
	set_s(dp, m, "device_guard", f->device_guard);
	ot_v_set_bool(a, m, "manual_cpp_binding", f->manual_cpp_binding);
	ot_v_set(a, m, "extra", dump_extra(dp, f->extra, f->nextra));
	ot_v_set(a, m, "derivative",
		 f->deriv ? dump_ref(dp, f->deriv->schema.full, f->deriv->line) : ot_v_null(a));
	return m;
}

static ot_value *dump_formulas(struct dump *dp, const ot_reg_formula *fs, size_t n)
{
	ot_value *list = ot_v_list(dp->arena);
	size_t i;
	for (i = 0; i < n; i++) {
		ot_value *f = ot_v_push(dp->arena, list, ot_v_map(dp->arena));
		set_s(dp, f, "inputs", fs[i].inputs);
		set_s(dp, f, "formula", fs[i].formula);
		ot_v_set_int(dp->arena, f, "line", fs[i].line);
		ot_v_set_bool(dp->arena, f, "forward", fs[i].forward);
	}
	return list;
}

static ot_value *dump_deriv(struct dump *dp, const ot_reg_deriv *d)
{
	ot_arena *a = dp->arena;
	ot_value *m = dump_head(dp, d->index, d->line, "name", d->name, &d->schema);
	ot_value *disp = ot_v_list(a);
	size_t i;

	ot_v_set(a, m, "formulas", dump_formulas(dp, d->formulas, d->nformulas));
	for (i = 0; i < d->ndispatch; i++) {
		ot_value *b = ot_v_push(a, disp, ot_v_map(a));
		set_s(dp, b, "key", d->dispatch[i].key);
		ot_v_set_int(a, b, "line", d->dispatch[i].line);
		ot_v_set(a, b, "formulas",
			 dump_formulas(dp, d->dispatch[i].formulas, d->dispatch[i].nformulas));
	}
	ot_v_set(a, m, "dispatch", disp);
	set_s(dp, m, "output_differentiability", d->output_differentiability);
	ot_v_set(a, m, "extra", dump_extra(dp, d->extra, d->nextra));
	ot_v_set(a, m, "func", d->func ? dump_ref(dp, d->func->schema.full, d->func->line)
				       : ot_v_null(a));
	return m;
}

/* Extra-field keys with how often each was seen, sorted by key. */
static ot_value *dump_extra_keys(struct dump *dp)
{
	size_t n = ot_map_len(dp->extra_keys), i;
	const char **keys = ot_malloc((n + 1) * sizeof(*keys));
	ot_value *m = ot_v_map(dp->arena);
	for (i = 0; i < n; i++)
		keys[i] = ot_map_key_at(dp->extra_keys, i);
	qsort(keys, n, sizeof(*keys), ot_strptr_cmp);
	for (i = 0; i < n; i++)
		ot_v_set_int(dp->arena, m, keys[i],
			     (long long)(uintptr_t)ot_map_get(dp->extra_keys, keys[i]));
	free(keys);
	return m;
}

void ot_registry_dump_json(ot_buf *out, const ot_registry *reg)
{
	struct dump dp = {ot_arena_new(), reg->dump_budget, ot_map_new()};
	ot_arena *a = dp.arena;
	ot_value *root = ot_v_map(a), *funcs = ot_v_list(a), *derivs = ot_v_list(a);
	ot_value *unmatched = ot_v_list(a), *counts = ot_v_map(a), *func_extra;
	ot_map *autogen_by = ot_map_new();
	size_t i, j, linked = 0;

	for (i = 0; i < reg->nfuncs; i++) {
		ot_v_push(a, funcs, dump_func(&dp, &reg->funcs[i]));
		linked += reg->funcs[i].deriv != NULL;
	}
	func_extra = dump_extra_keys(&dp);
	ot_map_free(dp.extra_keys);
	dp.extra_keys = ot_map_new();
	/* An unmatched derivative usually names an op that only exists through
	 * another entry's `autogen:` (2.6: rrelu_with_noise_functional). */
	for (i = 0; i < reg->nfuncs; i++)
		for (j = 0; j < reg->funcs[i].nautogen; j++)
			if (!ot_map_get(autogen_by, reg->funcs[i].autogen[j]))
				ot_map_put(autogen_by, reg->funcs[i].autogen[j], &reg->funcs[i]);
	for (i = 0; i < reg->nderivs; i++) {
		const ot_reg_deriv *d = &reg->derivs[i];
		ot_v_push(a, derivs, dump_deriv(&dp, d));
		if (!d->func) {
			ot_value *u = ot_v_push(a, unmatched, dump_ref(&dp, d->schema.full, d->line));
			const ot_reg_func *gen = ot_map_get(autogen_by, d->schema.full);
			ot_v_set(a, u, "autogen_by",
				 gen ? dump_ref(&dp, gen->schema.full, gen->line) : ot_v_null(a));
		}
	}

	set_s(&dp, root, "native_file", reg->native_name);
	set_s(&dp, root, "deriv_file", reg->deriv_name);
	ot_v_set_int(a, counts, "funcs", (long long)reg->nfuncs);
	ot_v_set_int(a, counts, "derivatives", (long long)reg->nderivs);
	ot_v_set_int(a, counts, "unmatched_derivatives", (long long)reg->unmatched);
	ot_v_set_int(a, counts, "funcs_with_derivative", (long long)linked);
	ot_v_set_int(a, counts, "schema_names", (long long)ot_map_len(reg->by_name));
	ot_v_set(a, counts, "func_extra_fields", func_extra);
	ot_v_set(a, counts, "deriv_extra_fields", dump_extra_keys(&dp));
	ot_v_set(a, root, "counts", counts);
	ot_v_set(a, root, "funcs", funcs);
	ot_v_set(a, root, "derivatives", derivs);
	ot_v_set(a, root, "unmatched_derivatives", unmatched);
	ot_v_to_json(out, root, 2);

	ot_map_free(dp.extra_keys);
	ot_map_free(autogen_by);
	ot_arena_free(a);
}
