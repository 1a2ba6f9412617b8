#include "autograd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The hand-written autograd kernels the generator skips. */
#define MANUAL_KERNELS_PATH "torch/csrc/autograd/VariableTypeManual.cpp"

struct ot_autograd {
	const ot_index *ix;
	const ot_registry *reg;
	ot_arena *arena;
	int64_t f_native, f_gen, f_trace_gen, f_foreach, f_manual;
	/* the generator's sets, name -> line (uintptr_t) */
	ot_map *manual;          /* MANUAL_BACKEND, MANUAL_AUTOGRAD_AND_TRACER */
	ot_map *dont_require;    /* DONT_REQUIRE_DERIVATIVE */
	ot_map *own_grad_fn;     /* RESET_GRAD_ACCUMULATOR, DONT_ENFORCE_*: these get
				    their code generated, not the boxed kernel */
	ot_map *foreach_without; /* _foreach_ops_without_differentiability_info:
				    "name.overload" */
	uint32_t boxed_not_implemented; /* AUTOGRAD_NOT_IMPLEMENTED_REGISTRATION */
	uint32_t generated_not_implemented; /* ... else "NotImplemented" */
	uint32_t foreach_derived;       /* def gen_foreach_derivativeinfo( */
	const ot_ix_cdef *throw_out;    /* throw_error_out_requires_grad */
};

/* ---- reading the generator's sources -------------------------------------------------- */

/* Append to `out` the quoted strings of s[0..len) before any comment. */
static size_t quoted(const char *s, size_t len, const char **str, size_t *slen, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n < max; i++) {
		const char *end;
		if (s[i] == '#')
			break;
		if (s[i] != '"' || !(end = memchr(s + i + 1, '"', len - i - 1)))
			continue;
		str[n] = s + i + 1;
		slen[n++] = (size_t)(end - s - i - 1);
		i = (size_t)(end - s);
	}
	return n;
}

/*
 * A Python set of names at module level: `NAME = {` (or `NAME = set(` with a
 * list inside, or all on the header line), one quoted name per line, or a
 * `("name", "overload"),` tuple kept as "name.overload". Comments and lines
 * without a string (`*OTHER_SET,`) are skipped; it ends at the line that
 * starts with a closing bracket.
 */
static void read_set(ot_autograd *ag, int64_t file, const char *name, ot_map *out)
{
	char needle[128];
	uint32_t l, first, nlines;
	if (file < 0)
		return;
	snprintf(needle, sizeof(needle), "\n%s = ", name);
	if (!(l = ot_index_find_line(ag->ix, file, needle)))
		return;
	first = l + 1; /* the needle starts with the previous line's newline */
	nlines = ot_index_file(ag->ix, (uint32_t)file)->nlines;
	for (l = first; l <= nlines; l++) {
		size_t len, slen[8], n;
		const char *s = ot_index_line(ag->ix, (uint32_t)file, l, &len), *str[8];
		if (l == first) {
			const char *eq = memchr(s, '=', len);
			len -= (size_t)(eq + 1 - s);
			s = eq + 1;
		}
		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
		if (l > first && len && strchr("}])", *s))
			break;
		if (len && *s == '(') {
			if (quoted(s, len, str, slen, 2) == 2)
				ot_map_put(out, ot_arena_printf(ag->arena, "%.*s.%.*s", (int)slen[0], str[0],
								(int)slen[1], str[1]),
					   (void *)(uintptr_t)l);
			continue;
		}
		n = quoted(s, len, str, slen, OT_ARRAY_LEN(str));
		for (size_t i = 0; i < n; i++)
			ot_map_put(out, ot_arena_strndup(ag->arena, str[i], slen[i]), (void *)(uintptr_t)l);
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (l == first && n && len && strchr("})", s[len - 1]))
			break; /* NAME = {"a", "b"} */
	}
}

ot_autograd *ot_autograd_new(const ot_index *ix, const ot_registry *reg)
{
	ot_autograd *ag = ot_calloc(1, sizeof(*ag));
	ag->ix = ix;
	ag->reg = reg;
	ag->arena = ot_arena_new();
	ag->manual = ot_map_new();
	ag->dont_require = ot_map_new();
	ag->own_grad_fn = ot_map_new();
	ag->foreach_without = ot_map_new();
	ag->f_native = ot_index_file_id(ix, OT_REGISTRY_NATIVE_PATH);
	ag->f_gen = ot_index_file_id(ix, OT_INDEX_AUTOGRAD_CODEGEN_PATH);
	ag->f_trace_gen = ot_index_file_id(ix, OT_INDEX_TRACE_CODEGEN_PATH);
	ag->f_foreach = ot_index_file_id(ix, OT_INDEX_FOREACH_CODEGEN_PATH);
	ag->f_manual = ot_index_file_id(ix, MANUAL_KERNELS_PATH);

	read_set(ag, ag->f_trace_gen, "MANUAL_BACKEND", ag->manual);
	read_set(ag, ag->f_trace_gen, "MANUAL_AUTOGRAD_AND_TRACER", ag->manual);
	read_set(ag, ag->f_gen, "DONT_REQUIRE_DERIVATIVE", ag->dont_require);
	read_set(ag, ag->f_gen, "RESET_GRAD_ACCUMULATOR", ag->own_grad_fn);
	read_set(ag, ag->f_gen, "DONT_ENFORCE_SAME_TENSOR_IMPL_OR_STORAGE", ag->own_grad_fn);
	read_set(ag, ag->f_gen, "DONT_ENFORCE_TENSOR_IMPL_USE_COUNT", ag->own_grad_fn);
	read_set(ag, ag->f_gen, "DONT_ENFORCE_STORAGE_IMPL_USE_COUNT", ag->own_grad_fn);
	read_set(ag, ag->f_gen, "_foreach_ops_without_differentiability_info", ag->foreach_without);
	ag->boxed_not_implemented =
		ot_index_find_line(ix, ag->f_gen, "AUTOGRAD_NOT_IMPLEMENTED_REGISTRATION.substitute(");
	ag->generated_not_implemented = ot_index_find_line(ix, ag->f_gen, "else \"NotImplemented\"");
	ag->foreach_derived = ot_index_find_line(ix, ag->f_foreach, "def gen_foreach_derivativeinfo(");
	for (const ot_ix_cdef *d = ot_index_cdefs(ix, "throw_error_out_requires_grad"); d; d = d->next)
		if (d->kind == OT_CDEF_FUNC &&
		    ot_starts_with(ot_index_file(ix, d->file)->path, "torch/csrc/autograd/"))
			ag->throw_out = d;
	return ag;
}

void ot_autograd_free(ot_autograd *ag)
{
	if (!ag)
		return;
	ot_map_free(ag->manual);
	ot_map_free(ag->dont_require);
	ot_map_free(ag->own_grad_fn);
	ot_map_free(ag->foreach_without);
	ot_arena_free(ag->arena);
	free(ag);
}

/* ---- the rules --------------------------------------------------------------------- */

static bool fact(ot_autograd_answer *out, int64_t file, uint32_t line, const char *symbol,
		 const char *note)
{
	if (file < 0 || !line)
		return false;
	out->formula = NULL;
	out->file = file;
	out->line = line;
	out->symbol = symbol;
	out->note = note;
	return true;
}

static bool formula(ot_autograd_answer *out, const ot_reg_deriv *d, const char *note)
{
	out->formula = d;
	out->file = -1;
	out->line = 0;
	out->symbol = NULL;
	out->note = note;
	return true;
}

static bool has_tensor(const ot_reg_arg *args, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ot_starts_with(args[i].type, "Tensor"))
			return true;
	return false;
}

/* The arguments a variant shares with its functional overload: all but the
 * out= ones (keyword-only, written to). */
static bool is_out_arg(const ot_reg_arg *a)
{
	return a->kwarg_only && a->is_write;
}

/*
 * The functional overload of an out= or in-place variant: the overload of
 * the same base name, neither out= nor in-place, whose other arguments have
 * the same names and types (what the generator compares, ignoring the
 * overload name).
 */
static const ot_reg_func *functional_of(const ot_autograd *ag, const ot_reg_func *f)
{
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(ag->reg, f->schema.base, &n);
	for (size_t k = 0; ov && k < n; k++) {
		const ot_reg_schema *g = &ov[k]->schema;
		size_t i = 0, j = 0;
		if (g->is_out || g->inplace)
			continue;
		for (;;) {
			while (i < f->schema.nargs && is_out_arg(&f->schema.args[i]))
				i++;
			if (i == f->schema.nargs || j == g->nargs)
				break;
			if (strcmp(f->schema.args[i].type, g->args[j].type) ||
			    strcmp(f->schema.args[i].name ? f->schema.args[i].name : "",
				   g->args[j].name ? g->args[j].name : ""))
				break;
			i++, j++;
		}
		if (i == f->schema.nargs && j == g->nargs)
			return ov[k];
	}
	return NULL;
}

/* The generator's base name: in-place '_' and dunder underscores dropped
 * (`__lshift__` -> "lshift"), so a dunder is never found by its spelling in
 * DONT_REQUIRE_DERIVATIVE, as in the generator. */
static const char *generator_base(ot_arena *a, const ot_reg_func *f)
{
	const char *b = f->schema.base;
	size_t n = strlen(b);
	if (n > 4 && ot_starts_with(b, "__") && ot_ends_with(b, "__"))
		return ot_arena_strndup(a, b + 2, n - 4);
	return b;
}

static bool manual_kernel(const ot_autograd *ag, const ot_reg_func *f, ot_arena *a,
			  ot_autograd_answer *out)
{
	const char *name = f->schema.name;
	uintptr_t listed = (uintptr_t)ot_map_get(ag->manual, name);
	if (!listed)
		return false;
	for (const ot_ix_cdef *d = ot_index_cdefs(ag->ix, name); d; d = d->next)
		if ((int64_t)d->file == ag->f_manual && d->kind == OT_CDEF_FUNC)
			return fact(out, ag->f_manual, d->line, name,
				    ot_arena_printf(a, "the autograd kernel of %s is written by hand "
						       "(the code generator skips the names of "
						       "MANUAL_AUTOGRAD)", name));
	return fact(out, ag->f_trace_gen, (uint32_t)listed, name,
		    ot_arena_printf(a, "the code generator skips %s (MANUAL_AUTOGRAD): its autograd "
				       "kernel is written by hand in " MANUAL_KERNELS_PATH, name));
}

static bool foreach_rule(const ot_autograd *ag, const ot_reg_func *f, ot_arena *a,
			 ot_autograd_answer *out)
{
	const char *per_tensor = f->schema.base + strlen("_foreach_");
	uintptr_t line;
	size_t n;
	const ot_reg_func *const *ov;
	line = (uintptr_t)ot_map_get(ag->foreach_without,
				     ot_arena_printf(a, "%s.%s", f->schema.base, f->schema.overload));
	if (line)
		return fact(out, ag->f_gen, (uint32_t)line, f->schema.base,
			    "no derivatives.yaml entry, and listed among the _foreach ops without a "
			    "per-tensor formula: a backward through it raises an error (NotImplemented)");
	/* the per-tensor op, or for an in-place one its in-place spelling (zero_) */
	for (int inplace = 0; inplace < 2; inplace++) {
		const char *ref = inplace ? ot_arena_printf(a, "%s_", per_tensor) : per_tensor;
		ov = ot_registry_overloads(ag->reg, ref, &n);
		for (size_t k = 0; ov && k < n; k++)
			if (ov[k]->deriv && (!inplace || f->schema.inplace))
				return fact(out, ag->f_foreach, ag->foreach_derived,
					    "gen_foreach_derivativeinfo",
					    ot_arena_printf(a, "no derivatives.yaml entry: torchgen derives "
							       "the backward of %s from the formula of "
							       "its per-tensor op %s",
							    f->schema.full, ref));
	}
	return false;
}

/* No formula of its own or taken: what the generated autograd kernel does. */
static bool generated_kernel(const ot_autograd *ag, const ot_reg_func *f, ot_arena *a,
			     ot_autograd_answer *out)
{
	const char *base = generator_base(a, f), *name = f->schema.name;
	const char *wrapper = *f->schema.overload
				      ? ot_arena_printf(a, "%s_%s", name, f->schema.overload)
				      : name;
	uintptr_t line = (uintptr_t)ot_map_get(ag->dont_require, base);
	if (line)
		return fact(out, ag->f_gen, (uint32_t)line, base,
			    ot_arena_printf(a, "no derivatives.yaml entry; %s is in the code generator's "
					       "DONT_REQUIRE_DERIVATIVE, so its outputs never require grad",
					    base));
	if (ot_map_get(ag->own_grad_fn, name) || ot_map_get(ag->own_grad_fn, wrapper)) {
		/* generated like an op with a formula, but with no formula */
		if ((line = (uintptr_t)ot_map_get(ag->dont_require, name)))
			return fact(out, ag->f_gen, (uint32_t)line, name,
				    ot_arena_printf(a, "no derivatives.yaml entry; %s is in the code "
						       "generator's DONT_REQUIRE_DERIVATIVE, so its "
						       "outputs never require grad", name));
		return fact(out, ag->f_gen, ag->generated_not_implemented, "NotImplemented",
			    ot_arena_printf(a, "no derivatives.yaml entry: the generated autograd code "
					       "gives %s a NotImplemented grad_fn, so a backward through "
					       "it raises an error", f->schema.full));
	}
	return fact(out, ag->f_gen, ag->boxed_not_implemented, "AUTOGRAD_NOT_IMPLEMENTED_REGISTRATION",
		    ot_arena_printf(a, "no derivatives.yaml entry: the code generator registers the "
				       "NotImplemented autograd kernel for %s, so a backward through "
				       "it raises an error", f->schema.full));
}

bool ot_autograd_explain(const ot_autograd *ag, const ot_reg_func *f, const ot_reg_func *eff,
			 ot_arena *a, ot_autograd_answer *out)
{
	bool foreach = ot_starts_with(f->schema.name, "_foreach_");

	if (f->deriv)
		return formula(out, f->deriv, "derivatives.yaml:");
	if (ot_reg_func_composite_implicit(eff))
		return fact(out, ag->f_native, (uint32_t)f->line, f->schema.full,
			    !has_tensor(f->schema.returns, f->schema.nreturns)
				    ? "not differentiable: it returns no Tensor (a CompositeImplicitAutograd "
				      "op: what the ops it calls record reaches no result of it)"
				    : "no derivatives.yaml entry: CompositeImplicitAutograd, so autograd "
				      "differentiates the ops it is built from");
	if (manual_kernel(ag, f, a, out))
		return true;
	if (ot_reg_func_has_tag(f, "view_copy") && ot_ends_with(f->schema.name, "_copy")) {
		const char *view = ot_arena_printf(a, "%.*s%s%s", (int)(strlen(f->schema.name) - 5),
						   f->schema.name, *f->schema.overload ? "." : "",
						   f->schema.overload);
		const ot_reg_func *v = ot_registry_find(ag->reg, view);
		if (v && v->deriv)
			return formula(out, v->deriv,
				       ot_arena_printf(a, "view_copy op: the code generator gives it "
							  "the formula of the view %s:", view));
	}
	if (foreach && ag->foreach_derived && foreach_rule(ag, f, a, out))
		return true;
	if (f->schema.is_out || f->schema.inplace) {
		const ot_reg_func *g = functional_of(ag, f);
		if (g && g->deriv && f->schema.inplace)
			return formula(out, g->deriv,
				       ot_arena_printf(a, "in-place %s takes the formula of %s:",
						       f->schema.full, g->schema.full));
		if (g && g->deriv && ag->throw_out)
			return fact(out, ag->throw_out->file, ag->throw_out->line, ag->throw_out->name,
				    ot_arena_printf(a, "out= variant of %s: not differentiable itself; "
						       "autograd raises if an argument requires grad",
						    g->schema.full));
	}
	if (!has_tensor(f->schema.args, f->schema.nargs))
		return fact(out, ag->f_native, (uint32_t)f->line, f->schema.full,
			    "not differentiable: it takes no Tensor");
	/* an in-place _foreach op returns nothing but updates its inputs, which
	 * releases that derive _foreach backward count as its outputs */
	if (!has_tensor(f->schema.returns, f->schema.nreturns) &&
	    !(foreach && f->schema.inplace && ag->foreach_derived))
		return fact(out, ag->f_native, (uint32_t)f->line, f->schema.full,
			    "not differentiable: it returns no Tensor");
	return generated_kernel(ag, f, a, out);
}
