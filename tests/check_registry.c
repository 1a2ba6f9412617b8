/*
 * The registry: the schema parser, native_functions.yaml and
 * derivatives.yaml from fixture strings (every field, every error), the JSON
 * dump, and both real releases (counts, hand-checked entries, every line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "testutil.h"
#include "yamldoc.h"

/* ---- helpers ------------------------------------------------------------------ */

static ot_registry *load_ok(const char *native, const char *deriv)
{
	ot_registry *reg = NULL;
	int rc = ot_registry_load(&reg, native, strlen(native), "native", deriv,
				  deriv ? strlen(deriv) : 0, "deriv");
	ck_assert_msg(rc == 0, "load failed: %s", ot_error_last());
	ck_assert_ptr_nonnull(reg);
	return reg;
}

static void expect_error(const char *native, const char *deriv, const char *message)
{
	ot_registry *reg = (ot_registry *)1;
	int rc = ot_registry_load(&reg, native, strlen(native), "native", deriv,
				  deriv ? strlen(deriv) : 0, "deriv");
	ck_assert_int_lt(rc, 0);
	ck_assert_ptr_null(reg);
	ck_assert_msg(tu_match(message, ot_error_last()), "'%s' does not match '%s'", ot_error_last(),
		      message);
}

static void native_error(const char *native, const char *message)
{
	expect_error(native, NULL, message);
}

static const ot_reg_func *find(const ot_registry *reg, const char *full)
{
	const ot_reg_func *f = ot_registry_find(reg, full);
	ck_assert_msg(f != NULL, "no entry %s", full);
	ck_assert_str_eq(f->schema.full, full);
	return f;
}

/* "KEY:kernel:line" for every dispatch entry, space-separated. */
static char *dispatch_str(const ot_reg_func *f)
{
	ot_buf b = OT_BUF_INIT;
	size_t i;
	for (i = 0; i < f->ndispatch; i++)
		ot_buf_printf(&b, "%s%s:%s:%d", i ? " " : "", f->dispatch[i].key,
			      f->dispatch[i].kernel, f->dispatch[i].line);
	return ot_buf_detach(&b);
}

static char *join(const char *const *items, size_t n, const char *sep)
{
	ot_buf b = OT_BUF_INIT;
	size_t i;
	for (i = 0; i < n; i++)
		ot_buf_printf(&b, "%s%s", i ? sep : "", items[i]);
	return ot_buf_detach(&b);
}

#define ck_assert_dispatch(f, expected)                                                \
	do {                                                                           \
		char *got_ = dispatch_str(f);                                          \
		ck_assert_str_eq(got_, expected);                                      \
		free(got_);                                                            \
	} while (0)

#define ck_assert_joined(items, n, sep, expected)                                      \
	do {                                                                           \
		char *got_ = join((const char *const *)(items), n, sep);              \
		ck_assert_str_eq(got_, expected);                                      \
		free(got_);                                                            \
	} while (0)

static const ot_reg_formula *formula(const ot_reg_formula *fs, size_t n, const char *inputs)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!strcmp(fs[i].inputs, inputs))
			return &fs[i];
	ck_abort_msg("no formula for '%s'", inputs);
	return NULL;
}

static void check_formula(const ot_reg_deriv *d, const char *inputs, int line, bool forward,
			  const char *text)
{
	const ot_reg_formula *f = formula(d->formulas, d->nformulas, inputs);
	ck_assert_int_eq(f->line, line);
	ck_assert_int_eq(f->forward, forward);
	ck_assert_str_eq(f->formula, text);
}

/* ---- schema parser ---------------------------------------------------------------- */

static ot_reg_schema parse_ok(ot_arena *arena, const char *text)
{
	ot_reg_schema s;
	ck_assert_msg(ot_reg_schema_parse(&s, arena, text) == 0, "%s: %s", text,
		      ot_error_last());
	return s;
}

static void check_arg(const ot_reg_arg *a, const char *type, const char *name,
		      const char *def, const char *annotation, bool kwarg_only, bool is_write,
		      bool optional)
{
	ck_assert_str_eq(a->type, type);
	if (name)
		ck_assert_str_eq(a->name, name);
	else
		ck_assert_ptr_null(a->name);
	if (def)
		ck_assert_str_eq(a->def, def);
	else
		ck_assert_ptr_null(a->def);
	if (annotation)
		ck_assert_str_eq(a->annotation, annotation);
	else
		ck_assert_ptr_null(a->annotation);
	ck_assert_int_eq(a->kwarg_only, kwarg_only);
	ck_assert_int_eq(a->is_write, is_write);
	ck_assert_int_eq(a->optional, optional);
}

START_TEST(schema_plain_and_out)
{
	ot_arena *arena = ot_arena_new();
	ot_reg_schema s = parse_ok(arena, "mm(Tensor self, Tensor mat2) -> Tensor");
	ck_assert_str_eq(s.name, "mm");
	ck_assert_str_eq(s.overload, "");
	ck_assert_str_eq(s.full, "mm");
	ck_assert_str_eq(s.base, "mm");
	ck_assert(!s.inplace && !s.is_out);
	ck_assert_uint_eq(s.nargs, 2);
	check_arg(&s.args[0], "Tensor", "self", NULL, NULL, false, false, false);
	check_arg(&s.args[1], "Tensor", "mat2", NULL, NULL, false, false, false);
	ck_assert_uint_eq(s.nreturns, 1);
	check_arg(&s.returns[0], "Tensor", NULL, NULL, NULL, false, false, false);

	s = parse_ok(arena, "mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)");
	ck_assert_str_eq(s.full, "mm.out");
	ck_assert_str_eq(s.overload, "out");
	ck_assert(s.is_out);
	ck_assert_uint_eq(s.nargs, 3);
	check_arg(&s.args[1], "Tensor", "mat2", NULL, NULL, false, false, false);
	check_arg(&s.args[2], "Tensor", "out", NULL, "a!", true, true, false);
	check_arg(&s.returns[0], "Tensor", NULL, NULL, "a!", false, true, false);
	ot_arena_free(arena);
}
END_TEST

START_TEST(schema_types_and_defaults)
{
	ot_arena *arena = ot_arena_new();
	ot_reg_schema s = parse_ok(
		arena, "f.x(Tensor(a -> *) self, Tensor?[] indices, int[2] stride=[1, 1], "
		       "SymInt[1]? dim=None, Scalar? alpha=1, str reduce=\"mean\", "
		       "str q='a, b)', float[]? scale=None, Tensor(a!)[] outs, *, "
		       "int[] sizes=[], bool flag=True) -> Tensor(a)[]");
	ck_assert_str_eq(s.full, "f.x");
	ck_assert_uint_eq(s.nargs, 11);
	check_arg(&s.args[0], "Tensor", "self", NULL, "a -> *", false, false, false);
	check_arg(&s.args[1], "Tensor?[]", "indices", NULL, NULL, false, false, false);
	check_arg(&s.args[2], "int[2]", "stride", "[1, 1]", NULL, false, false, false);
	check_arg(&s.args[3], "SymInt[1]?", "dim", "None", NULL, false, false, true);
	check_arg(&s.args[4], "Scalar?", "alpha", "1", NULL, false, false, true);
	check_arg(&s.args[5], "str", "reduce", "\"mean\"", NULL, false, false, false);
	check_arg(&s.args[6], "str", "q", "'a, b)'", NULL, false, false, false);
	check_arg(&s.args[7], "float[]?", "scale", "None", NULL, false, false, true);
	check_arg(&s.args[8], "Tensor[]", "outs", NULL, "a!", false, true, false);
	check_arg(&s.args[9], "int[]", "sizes", "[]", NULL, true, false, false);
	check_arg(&s.args[10], "bool", "flag", "True", NULL, true, false, false);
	/* A write annotation before `*` does not make an out= overload. */
	ck_assert(!s.is_out);
	ck_assert_uint_eq(s.nreturns, 1);
	check_arg(&s.returns[0], "Tensor[]", NULL, NULL, "a", false, false, false);
	ot_arena_free(arena);
}
END_TEST

START_TEST(schema_returns)
{
	ot_arena *arena = ot_arena_new();
	ot_reg_schema s = parse_ok(
		arena, "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
		       "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)");
	ck_assert(s.is_out);
	ck_assert_uint_eq(s.nreturns, 2);
	check_arg(&s.returns[0], "Tensor", "values", NULL, "a!", false, true, false);
	check_arg(&s.returns[1], "Tensor", "indices", NULL, "b!", false, true, false);

	s = parse_ok(arena, "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()");
	ck_assert_uint_eq(s.nreturns, 0);
	ck_assert_ptr_null(s.returns);
	ck_assert(s.inplace);
	ck_assert_str_eq(s.base, "_foreach_add");
	ck_assert_str_eq(s.full, "_foreach_add_.Scalar");

	s = parse_ok(arena, "lstm.input(Tensor input, Tensor[] hx) -> (Tensor, Tensor, Tensor)");
	ck_assert_uint_eq(s.nreturns, 3);
	check_arg(&s.returns[2], "Tensor", NULL, NULL, NULL, false, false, false);

	s = parse_ok(arena, "format(str self, ...) -> ...");
	ck_assert_uint_eq(s.nargs, 2);
	check_arg(&s.args[1], "...", "...", NULL, NULL, false, false, false);
	check_arg(&s.returns[0], "...", "...", NULL, NULL, false, false, false);

	s = parse_ok(arena, "noargs() -> Tensor");
	ck_assert_uint_eq(s.nargs, 0);
	ck_assert_ptr_null(s.args);
	ot_arena_free(arena);
}
END_TEST

START_TEST(schema_names)
{
	ot_arena *arena = ot_arena_new();
	ot_reg_schema s = parse_ok(arena, "add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)");
	ck_assert(s.inplace);
	ck_assert_str_eq(s.name, "add_");
	ck_assert_str_eq(s.base, "add");
	ck_assert_str_eq(s.full, "add_.Tensor");
	ck_assert(!s.is_out);

	/* Dunder names are kept as written, in-place or not. */
	s = parse_ok(arena, "__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)");
	ck_assert(!s.inplace);
	ck_assert_str_eq(s.base, "__iand__");
	s = parse_ok(arena, "__and__.Scalar(Tensor self, Scalar other) -> Tensor");
	ck_assert(!s.inplace);
	ck_assert_str_eq(s.base, "__and__");
	ot_arena_free(arena);
}
END_TEST

static void schema_error(const char *text, const char *message)
{
	ot_arena *arena = ot_arena_new();
	ot_reg_schema s;
	ck_assert_msg(ot_reg_schema_parse(&s, arena, text) < 0, "parsed: %s", text);
	ck_assert_msg(tu_match(message, ot_error_last()), "'%s' does not match '%s'", ot_error_last(),
		      message);
	ck_assert_ptr_null(s.name);
	ot_arena_free(arena);
}

START_TEST(schema_errors)
{
	schema_error("", "column 1: expected an operator name");
	schema_error("(Tensor self) -> Tensor", "column 1: expected an operator name");
	schema_error("mm.(Tensor self) -> Tensor", "column 4: expected an overload name after '.'");
	schema_error("mm Tensor", "column 3: expected '('");
	schema_error("mm(Tensor self -> Tensor", "column 16: expected ',' or ')'");
	schema_error("mm(Tensor self)", "column 16: expected '->'");
	schema_error("mm(Tensor self) Tensor", "column 17: expected '->'");
	schema_error("mm(Tensor) -> Tensor", "column 10: expected an argument name");
	schema_error("mm(Tensor(a!", "column 13: expected ')' to close the alias annotation");
	schema_error("mm(Tensor(a(b) x) -> Tensor",
		     "column 12: expected ')' to close the alias annotation");
	schema_error("mm(Tensor() self) -> Tensor", "column 11: empty alias annotation");
	schema_error("mm(int[2 x) -> Tensor", "column 9: expected ']' in a list type");
	schema_error("mm(str s=\"abc) -> Tensor",
		     "column 25: unterminated string in a default value");
	schema_error("mm(int x=) -> Tensor", "column 10: empty default value");
	schema_error("mm(*, *, int x) -> Tensor", "column 7: second '*' marker");
	schema_error("mm(Tensor a,) -> Tensor", "column 13: expected a type");
	schema_error("mm() -> (Tensor, *)", "column 18: '*' is only allowed among the arguments");
	schema_error("mm() -> Tensor x=1", "column 17: a return cannot have a default");
	schema_error("mm() -> Tensor x y", "column 18: unexpected text after the returns");
	schema_error("mm() -> ", "column 9: expected a type");
	schema_error("mm() -> (Tensor", "column 16: expected ',' or ')'");
}
END_TEST

/* ---- native_functions.yaml fixture ------------------------------------------------- */

static const char NATIVE[] =
	"# A fixture in the shape of native_functions.yaml.\n"                        /* 1 */
	"- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n" /* 2 */
	"  device_check: NoCheck   # TensorIterator\n"                                 /* 3 */
	"  structured_delegate: add.out\n"                                             /* 4 */
	"  variants: function, method\n"                                               /* 5 */
	"  dispatch:\n"                                                                /* 6 */
	"    SparseCPU, SparseCUDA: add_sparse\n"                                      /* 7 */
	"    MkldnnCPU: mkldnn_add\n"                                                  /* 8 */
	"  tags: [core, pointwise]\n"                                                  /* 9 */
	"\n"                                                                           /* 10 */
	"# Comment lines between entries belong to the entry above.\n"                 /* 11 */
	"- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)\n" /* 12 */
	"  structured: True\n"                                                         /* 13 */
	"  structured_inherits: TensorIteratorBase\n"                                  /* 14 */
	"  ufunc_inner_loop:\n"                                                        /* 15 */
	"    Generic: add (AllAndComplex, BFloat16)\n"                                 /* 16 */
	"    ScalarOnly: add (Bool)\n"                                                 /* 17 */
	"  dispatch:\n"                                                                /* 18 */
	"    CPU, CUDA: add_out\n"                                                     /* 19 */
	"    MPS: add_out_mps\n"                                                       /* 20 */
	"  tags: pointwise\n"                                                          /* 21 */
	"  device_guard: False\n"                                                      /* 22 */
	"\n"                                                                           /* 23 */
	"- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)\n" /* 24 */
	"  variants: method\n"                                                         /* 25 */
	"  structured_delegate: add.out\n"                                             /* 26 */
	"\n"                                                                           /* 27 */
	"- func: linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor\n"   /* 28 */
	"  python_module: nn\n"                                                        /* 29 */
	"  dispatch:\n"                                                                /* 30 */
	"    CompositeImplicitAutograd: linear\n"                                      /* 31 */
	"\n"                                                                           /* 32 */
	"- func: lstm.input(Tensor input, Tensor[] hx) -> (Tensor, Tensor, Tensor)\n"  /* 33 */
	"\n"                                                                           /* 34 */
	"- func: pool(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0) -> (Tensor, Tensor)\n" /* 35 */
	"  structured: False\n"                                                        /* 36 */
	"  precomputed:\n"                                                             /* 37 */
	"  - kernel_size -> int kH, int kW\n"                                          /* 38 */
	"  - stride -> int dH, int dW\n"                                               /* 39 */
	"  autogen: pool.out, pool.grad\n"                                             /* 40 */
	"  manual_cpp_binding: True\n"                                                 /* 41 */
	"  category_override: factory\n"                                               /* 42 */
	"  cpp_no_default_args: ['padding']\n"                                         /* 43 */
	"  use_const_ref_for_mutable_tensors: True\n"                                  /* 44 */
	"- func: __iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)\n"       /* 45 */
	"  dispatch: {}\n"                                                             /* 46 */
	"- func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n" /* 47 */
	"  variants: function, method";                                               /* 48 */

START_TEST(native_fields)
{
	ot_registry *reg = load_ok(NATIVE, NULL);
	const ot_reg_func *f;

	ck_assert_uint_eq(ot_registry_func_count(reg), 8);
	ck_assert_ptr_null(ot_registry_func_at(reg, 8));
	ck_assert_uint_eq(ot_registry_deriv_count(reg), 0);
	ck_assert_uint_eq(ot_registry_unmatched_derivs(reg), 0);

	f = find(reg, "add.Tensor");
	ck_assert_ptr_eq(f, ot_registry_func_at(reg, 0));
	ck_assert_uint_eq(f->index, 0);
	ck_assert_int_eq(f->line, 2);
	ck_assert_int_eq(f->end_line, 11);
	ck_assert_str_eq(f->func, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
	ck_assert_str_eq(f->device_check, "NoCheck");
	ck_assert_str_eq(f->variants, "function, method");
	ck_assert(f->variant_function && f->variant_method);
	ck_assert(f->has_dispatch);
	ck_assert_int_eq(f->dispatch_line, 6);
	ck_assert_dispatch(f, "SparseCPU:add_sparse:7 SparseCUDA:add_sparse:7 "
			      "MkldnnCPU:mkldnn_add:8");
	ck_assert_joined(f->tags, f->ntags, ",", "core,pointwise");
	ck_assert(!f->structured);
	ck_assert_str_eq(f->structured_delegate, "add.out");
	ck_assert_ptr_eq(f->delegate, find(reg, "add.out"));
	ck_assert_ptr_null(f->device_guard);
	ck_assert_uint_eq(f->nextra, 0);
	ck_assert_ptr_null(f->deriv);

	f = find(reg, "add.out");
	ck_assert_int_eq(f->line, 12);
	ck_assert_int_eq(f->end_line, 23);
	ck_assert(f->structured);
	ck_assert(f->schema.is_out);
	ck_assert_str_eq(f->structured_inherits, "TensorIteratorBase");
	ck_assert_joined(f->ufunc_inner_loop, f->nufunc_inner_loop, "|",
			 "Generic: add (AllAndComplex, BFloat16)|ScalarOnly: add (Bool)");
	ck_assert_dispatch(f, "CPU:add_out:19 CUDA:add_out:19 MPS:add_out_mps:20");
	ck_assert_joined(f->tags, f->ntags, ",", "pointwise");
	ck_assert_str_eq(f->device_guard, "False");
	ck_assert_ptr_null(f->variants);
	ck_assert(f->variant_function && !f->variant_method);
	ck_assert_ptr_null(f->delegate);

	f = find(reg, "add_.Tensor");
	ck_assert(!f->variant_function && f->variant_method);
	ck_assert(!f->has_dispatch);
	ck_assert_int_eq(f->dispatch_line, 0);
	ck_assert_ptr_eq(f->delegate, find(reg, "add.out"));
	ck_assert_str_eq(f->schema.base, "add");

	f = find(reg, "linear");
	ck_assert_str_eq(f->python_module, "nn");
	ck_assert(f->has_dispatch);
	ck_assert_dispatch(f, "CompositeImplicitAutograd:linear:31");

	f = find(reg, "lstm.input");
	ck_assert(!f->has_dispatch);
	ck_assert_uint_eq(f->ndispatch, 0);
	ck_assert_int_eq(f->end_line, 34);

	f = find(reg, "pool");
	ck_assert(!f->structured);
	ck_assert(f->manual_cpp_binding);
	ck_assert_joined(f->precomputed, f->nprecomputed, "|",
			 "kernel_size -> int kH, int kW|stride -> int dH, int dW");
	ck_assert_joined(f->autogen, f->nautogen, "|", "pool.out|pool.grad");
	ck_assert_uint_eq(f->nextra, 3);
	ck_assert_str_eq(f->extra[0].key, "category_override");
	ck_assert_int_eq(f->extra[0].line, 42);
	ck_assert_str_eq(ot_v_cstr(f->extra[0].value), "factory");
	ck_assert_str_eq(f->extra[1].key, "cpp_no_default_args");
	ck_assert_int_eq(f->extra[1].value->type, OT_V_LIST);
	ck_assert_str_eq(ot_v_cstr(ot_v_at(f->extra[1].value, 0)), "padding");
	ck_assert_str_eq(f->extra[2].key, "use_const_ref_for_mutable_tensors");
	ck_assert_int_eq(f->extra[2].line, 44);
	ck_assert_int_eq(f->end_line, 44);

	f = find(reg, "__iand__.Tensor");
	ck_assert(f->has_dispatch);
	ck_assert_uint_eq(f->ndispatch, 0);
	ck_assert_int_eq(f->dispatch_line, 46);
	ck_assert_str_eq(f->schema.base, "__iand__");

	f = find(reg, "max.dim");
	ck_assert_int_eq(f->line, 47);
	ck_assert_int_eq(f->end_line, 48); /* last line, no trailing newline */

	ck_assert_ptr_null(ot_registry_find(reg, "add"));
	ck_assert_ptr_null(ot_registry_find(reg, "nope"));
	ot_registry_free(reg);
}
END_TEST

START_TEST(native_overloads)
{
	ot_registry *reg = load_ok(NATIVE, NULL);
	size_t n = 99;
	const ot_reg_func *const *ov = ot_registry_overloads(reg, "add", &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(ov[0]->schema.full, "add.Tensor");
	ck_assert_str_eq(ov[1]->schema.full, "add.out");
	ov = ot_registry_overloads(reg, "add_", &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(ov[0]->schema.full, "add_.Tensor");
	ov = ot_registry_overloads(reg, "nope", &n);
	ck_assert_ptr_null(ov);
	ck_assert_uint_eq(n, 0);
	ov = ot_registry_overloads(reg, "add.Tensor", &n);
	ck_assert_ptr_null(ov);
	ot_registry_free(reg);
}
END_TEST

START_TEST(native_input_not_nul_terminated)
{
	/* The loader gets a length: bytes after it must never be read. */
	size_t len = strlen(NATIVE);
	char *copy = ot_malloc(len + 64);
	ot_registry *reg = NULL;
	memcpy(copy, NATIVE, len);
	memcpy(copy + len, "\n- func: junk(\n", 15);
	memset(copy + len + 15, 'x', 49);
	ck_assert_int_eq(ot_registry_load(&reg, copy, len, "native", NULL, 0, NULL), 0);
	ck_assert_uint_eq(ot_registry_func_count(reg), 8);
	ck_assert_int_eq(find(reg, "max.dim")->end_line, 48);
	ot_registry_free(reg);
	free(copy);
}
END_TEST

START_TEST(native_errors)
{
	native_error("- func: mm(Tensor self) -> Tensor\n  dispatch: [a\n",
		     "native:3:1: " TU_ANY " (" TU_ANY " at line 2)");
	native_error("func: mm() -> Tensor\n", "native:1:1: top level is not a list");
	native_error("", "native:1:1: top level is not a list");
	native_error("# only a comment\n", "native:1:1: top level is not a list");
	native_error("- func: a() -> ()\n- just a string\n", "native:2:3: entry is not a mapping");
	native_error("- func: a() -> ()\n-\n  - x\n", "native:3:3: entry is not a mapping");
	native_error("- func: a() -> ()\n\n- variants: method\n", "native:3:3: entry has no 'func:'");
	native_error("- func: mm(Tensor self -> Tensor\n",
		     "native:1:9: bad schema: column 16: expected ',' or ')'");
	native_error("- func: [mm]\n", "native:1:9: bad schema: not a scalar");
	native_error("- func:\n", "native:1:8: bad schema: column 1: expected an operator name");
	native_error("- func: mm(Tensor self) -> Tensor\n- func: mm.out() -> ()\n"
		     "- func: mm(Tensor other) -> Tensor\n",
		     "native:3:9: duplicate entry 'mm' (first at line 1)");
	native_error("- func: mm(Tensor self) -> Tensor\n  structured_delegate: mm.out\n",
		     "native:2:24: structured_delegate 'mm.out' names no entry");
	native_error("- func: mm() -> Tensor\n  dispatch: CPU\n",
		     "native:2:13: 'dispatch' must be a mapping");
	native_error("- func: mm() -> Tensor\n  dispatch:\n    CPU: [a, b]\n",
		     "native:3:10: dispatch kernel for 'CPU' must be a scalar");
	native_error("- func: mm() -> Tensor\n  dispatch:\n    CPU, , CUDA: mm\n",
		     "native:3:5: empty dispatch key in 'CPU, , CUDA'");
	native_error("- func: mm() -> Tensor\n  tags: [core, {a: b}]\n",
		     "native:2:16: items of 'tags' must be scalars");
	native_error("- func: mm() -> Tensor\n  tags: {a: b}\n",
		     "native:2:9: 'tags' must be a scalar or a list");
	native_error("- func: mm() -> Tensor\n  precomputed: x\n",
		     "native:2:16: 'precomputed' must be a list");
	native_error("- func: mm() -> Tensor\n  ufunc_inner_loop: [x]\n",
		     "native:2:21: 'ufunc_inner_loop' must be a mapping");
	native_error("- func: mm() -> Tensor\n  ufunc_inner_loop:\n    Generic: [x]\n",
		     "native:3:14: 'Generic' of 'ufunc_inner_loop' must be a scalar");
	native_error("- func: mm() -> Tensor\n  python_module: [nn]\n",
		     "native:2:18: 'python_module' must be a scalar");
	native_error("- func: mm() -> Tensor\n  structured: {}\n",
		     "native:2:15: 'structured' must be a scalar");
	native_error("- func: mm() -> Tensor\n  x: 1\n  x: 2\n",
		     "native:3:3: duplicate key 'x' (first at line 2)");
}
END_TEST

START_TEST(native_hostile)
{
	ot_buf doc = OT_BUF_INIT;
	ot_registry *reg = NULL;
	int i;

	/* One anchored list, aliased by many entries: the loader's work
	 * budget stops the expansion instead of materialising it. */
	ot_buf_puts(&doc, "- func: f0() -> ()\n  tags: &t [");
	for (i = 0; i < 2000; i++)
		ot_buf_puts(&doc, i ? ",a" : "a");
	ot_buf_puts(&doc, "]\n");
	for (i = 1; i < 200; i++)
		ot_buf_printf(&doc, "- func: f%d() -> ()\n  tags: *t\n", i);
	ck_assert_int_lt(ot_registry_load(&reg, doc.ptr, doc.size, "native", NULL, 0, NULL), 0);
	ck_assert_ptr_null(reg);
	ck_assert_str_eq(ot_error_last(),
			 "native:2:9: too many items (aliases expand beyond the file size)");

	/* Deep nesting in an unknown field. */
	ot_buf_clear(&doc);
	ot_buf_puts(&doc, "- func: f() -> ()\n  x: ");
	for (i = 0; i < 1000; i++)
		ot_buf_putc(&doc, '[');
	ck_assert_int_lt(ot_registry_load(&reg, doc.ptr, doc.size, "native", NULL, 0, NULL), 0);
	ck_assert(strstr(ot_error_last(), "nesting is too deep") != NULL);

	/* Binary junk. */
	ot_buf_clear(&doc);
	for (i = 0; i < 256; i++)
		ot_buf_putc(&doc, (char)(i * 37 + 11));
	ck_assert_int_lt(ot_registry_load(&reg, doc.ptr, doc.size, "native", NULL, 0, NULL), 0);
	ck_assert(ot_starts_with(ot_error_last(), "native:"));
	ot_buf_free(&doc);
}
END_TEST

/* ---- derivatives.yaml fixture -------------------------------------------------------- */

static const char DERIV[] =
	"# A fixture in the shape of derivatives.yaml.\n"                               /* 1 */
	"- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"   /* 2 */
	"  self: handle_r_to_c(self.scalar_type(), grad)\n"                              /* 3 */
	"  other: maybe_multiply(grad, alpha.conj())\n"                                  /* 4 */
	"  result: self_t + maybe_multiply(other_t, alpha)\n"                            /* 5 */
	"\n"                                                                             /* 6 */
	"- name: linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor\n"     /* 7 */
	"  input, weight, bias: linear_backward(input, grad, weight, grad_input_mask)\n" /* 8 */
	"  output_differentiability: [True]\n"                                           /* 9 */
	"\n"                                                                             /* 10 */
	"- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n" /* 11 */
	"  self: value_selecting_reduction_backward(grad, dim, indices, keepdim)\n"      /* 12 */
	"  values: gather_with_keepdimed_indices(self_t, dim, indices, keepdim)\n"       /* 13 */
	"  output_differentiability: [True, False]\n"                                    /* 14 */
	"  bogus: something\n"                                                           /* 15 */
	"\n"                                                                             /* 16 */
	"- name: lstm.input(Tensor input, Tensor[] hx) -> (Tensor, Tensor, Tensor)\n"    /* 17 */
	"  input, hx: \"lstm_backward(grads,\n"                                          /* 18 */
	"     input)\"\n"                                                                /* 19 */
	"  result0: lstm_jvp(input_t)\n"                                                 /* 20 */
	"  result1, result2: other_jvp()\n"                                              /* 21 */
	"  input, result0: mixed\n"                                                      /* 22 */
	"  dispatch:\n"                                                                  /* 23 */
	"    Default:\n"                                                                 /* 24 */
	"      # a comment inside a block\n"                                             /* 25 */
	"      input: not_implemented(\"lstm\")\n"                                       /* 26 */
	"      result0: auto_linear\n"                                                   /* 27 */
	"      weird: x\n"                                                               /* 28 */
	"    AutogradNestedTensor:\n"                                                    /* 29 */
	"      input: nested_backward(grad)\n"                                           /* 30 */
	"\n"                                                                             /* 31 */
	"- name: missing_op(Tensor self) -> Tensor\n"                                    /* 32 */
	"  self: grad\n"                                                                 /* 33 */
	"  self_or_result: grad\n"                                                       /* 34 */
	"- name: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)\n" /* 35 */
	"  self: handle_r_to_c(self.scalar_type(), grad)\n"                              /* 36 */
	"  result: self_t_raw\n";                                                        /* 37 */

START_TEST(deriv_fields)
{
	ot_registry *reg = load_ok(NATIVE, DERIV);
	const ot_reg_deriv *d;
	const ot_reg_func *f;

	ck_assert_uint_eq(ot_registry_deriv_count(reg), 6);
	ck_assert_ptr_null(ot_registry_deriv_at(reg, 6));
	ck_assert_uint_eq(ot_registry_unmatched_derivs(reg), 1);

	d = ot_registry_deriv_at(reg, 0);
	f = find(reg, "add.Tensor");
	ck_assert_uint_eq(d->index, 0);
	ck_assert_int_eq(d->line, 2);
	ck_assert_str_eq(d->name, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
	ck_assert_str_eq(d->schema.full, "add.Tensor");
	ck_assert_ptr_eq(d->func, f);
	ck_assert_ptr_eq(f->deriv, d);
	ck_assert_uint_eq(d->nformulas, 3);
	check_formula(d, "self", 3, false, "handle_r_to_c(self.scalar_type(), grad)");
	check_formula(d, "other", 4, false, "maybe_multiply(grad, alpha.conj())");
	check_formula(d, "result", 5, true, "self_t + maybe_multiply(other_t, alpha)");
	ck_assert_ptr_null(d->output_differentiability);
	ck_assert_uint_eq(d->ndispatch, 0);
	ck_assert_uint_eq(d->nextra, 0);
	/* The exact overload only: add.out has no derivative. */
	ck_assert_ptr_null(find(reg, "add.out")->deriv);

	d = ot_registry_deriv_at(reg, 1);
	ck_assert_ptr_eq(d->func, find(reg, "linear"));
	ck_assert_uint_eq(d->nformulas, 1);
	check_formula(d, "input, weight, bias", 8, false,
		      "linear_backward(input, grad, weight, grad_input_mask)");
	ck_assert_str_eq(d->output_differentiability, "[True]");

	d = ot_registry_deriv_at(reg, 2);
	ck_assert_ptr_eq(d->func, find(reg, "max.dim"));
	ck_assert_uint_eq(d->nformulas, 2);
	check_formula(d, "self", 12, false,
		      "value_selecting_reduction_backward(grad, dim, indices, keepdim)");
	check_formula(d, "values", 13, true,
		      "gather_with_keepdimed_indices(self_t, dim, indices, keepdim)");
	ck_assert_str_eq(d->output_differentiability, "[True, False]");
	ck_assert_uint_eq(d->nextra, 1);
	ck_assert_str_eq(d->extra[0].key, "bogus");
	ck_assert_int_eq(d->extra[0].line, 15);

	d = ot_registry_deriv_at(reg, 3);
	ck_assert_ptr_eq(d->func, find(reg, "lstm.input"));
	ck_assert_uint_eq(d->nformulas, 3);
	check_formula(d, "input, hx", 18, false, "lstm_backward(grads, input)");
	check_formula(d, "result0", 20, true, "lstm_jvp(input_t)");
	check_formula(d, "result1, result2", 21, true, "other_jvp()");
	ck_assert_uint_eq(d->ndispatch, 2);
	ck_assert_str_eq(d->dispatch[0].key, "Default");
	ck_assert_int_eq(d->dispatch[0].line, 24);
	ck_assert_uint_eq(d->dispatch[0].nformulas, 2);
	ck_assert_str_eq(d->dispatch[0].formulas[0].inputs, "input");
	ck_assert_str_eq(d->dispatch[0].formulas[0].formula, "not_implemented(\"lstm\")");
	ck_assert_int_eq(d->dispatch[0].formulas[0].line, 26);
	ck_assert(!d->dispatch[0].formulas[0].forward);
	ck_assert_str_eq(d->dispatch[0].formulas[1].inputs, "result0");
	ck_assert(d->dispatch[0].formulas[1].forward);
	ck_assert_str_eq(d->dispatch[1].key, "AutogradNestedTensor");
	ck_assert_int_eq(d->dispatch[1].line, 29);
	ck_assert_uint_eq(d->dispatch[1].nformulas, 1);
	ck_assert_int_eq(d->dispatch[1].formulas[0].line, 30);
	/* A key mixing inputs and outputs is no formula: kept as extra, in
	 * file order, dispatch-block keys prefixed with their block. */
	ck_assert_uint_eq(d->nextra, 2);
	ck_assert_str_eq(d->extra[0].key, "input, result0");
	ck_assert_int_eq(d->extra[0].line, 22);
	ck_assert_str_eq(d->extra[1].key, "dispatch.Default.weird");
	ck_assert_int_eq(d->extra[1].line, 28);

	d = ot_registry_deriv_at(reg, 4);
	ck_assert_ptr_null(d->func);
	ck_assert_uint_eq(d->nformulas, 1);
	ck_assert_uint_eq(d->nextra, 1);
	ck_assert_str_eq(d->extra[0].key, "self_or_result");

	d = ot_registry_deriv_at(reg, 5);
	ck_assert_ptr_eq(d->func, find(reg, "add_.Tensor"));
	check_formula(d, "result", 37, true, "self_t_raw");
	ck_assert_ptr_null(find(reg, "pool")->deriv);
	ot_registry_free(reg);
}
END_TEST

START_TEST(deriv_input_named_like_output)
{
	/* An input called "result" is an input: inputs win, as in torchgen. */
	ot_registry *reg = load_ok("- func: f(Tensor result) -> Tensor\n",
				   "- name: f(Tensor result) -> Tensor\n"
				   "  result: grad\n"
				   "  result, result: twice\n"
				   "  ' , result': empty name\n");
	const ot_reg_deriv *d = ot_registry_deriv_at(reg, 0);
	ck_assert_uint_eq(d->nformulas, 2);
	check_formula(d, "result", 2, false, "grad");
	check_formula(d, "result, result", 3, false, "twice");
	ck_assert_uint_eq(d->nextra, 1);
	ck_assert_str_eq(d->extra[0].key, " , result");
	ot_registry_free(reg);
}
END_TEST

START_TEST(deriv_errors)
{
	const char *nat = "- func: mm(Tensor self, Tensor mat2) -> Tensor\n";
	expect_error(nat, "- name: mm(Tensor self) -> Tensor\n  self: \"grad\n",
		     "deriv:3:1: " TU_ANY " (" TU_ANY " at line 2)");
	expect_error(nat, "name: mm(Tensor self) -> Tensor\n", "deriv:1:1: top level is not a list");
	expect_error(nat, "", "deriv:1:1: top level is not a list");
	expect_error(nat, "- 42\n", "deriv:1:3: entry is not a mapping");
	expect_error(nat, "- self: grad\n", "deriv:1:3: entry has no 'name:'");
	expect_error(nat, "- name: mm(Tensor self) Tensor\n",
		     "deriv:1:9: bad schema: column 17: expected '->'");
	expect_error(nat, "- name: mm() -> Tensor\n- name: mm(Tensor self) -> Tensor\n",
		     "deriv:2:9: duplicate entry 'mm' (first at line 1)");
	expect_error(nat, "- name: mm(Tensor self) -> Tensor\n  dispatch: [x]\n",
		     "deriv:2:13: 'dispatch' must be a mapping");
	expect_error(nat, "- name: mm(Tensor self) -> Tensor\n  dispatch:\n    Default: x\n",
		     "deriv:3:14: dispatch block 'Default' must be a mapping");
	expect_error(nat, "- name: mm(Tensor self) -> Tensor\n  output_differentiability: [[x]]\n",
		     "deriv:2:30: items of 'output_differentiability' must be scalars");
}
END_TEST

/* ---- JSON dump ---------------------------------------------------------------------------- */

START_TEST(dump_json)
{
	ot_registry *reg = load_ok(NATIVE, DERIV);
	ot_buf a = OT_BUF_INIT, b = OT_BUF_INIT;
	ot_arena *arena = ot_arena_new();
	ot_value *root, *f, *v;

	ot_registry_dump_json(&a, reg);
	ot_registry_dump_json(&b, reg);
	ck_assert(ot_buf_equal(&a, &b));
	ck_assert(ot_starts_with(a.ptr, "{\n  \"native_file\": \"native\",\n"));
	ck_assert(ot_ends_with(a.ptr, "}\n"));

	/* JSON is YAML: read it back and look at the fields. */
	ck_assert_int_eq(ot_yaml_load(&root, arena, a.ptr, a.size, "dump"), 0);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(root, "deriv_file")), "deriv");
	v = ot_v_get(root, "counts");
	ck_assert_int_eq(ot_v_get(v, "funcs")->u.i, 8);
	ck_assert_int_eq(ot_v_get(v, "derivatives")->u.i, 6);
	ck_assert_int_eq(ot_v_get(v, "unmatched_derivatives")->u.i, 1);
	ck_assert_int_eq(ot_v_get(v, "funcs_with_derivative")->u.i, 5);
	ck_assert_int_eq(ot_v_get(ot_v_get(v, "func_extra_fields"), "category_override")->u.i, 1);
	ck_assert_int_eq(ot_v_get(ot_v_get(v, "deriv_extra_fields"), "bogus")->u.i, 1);
	ck_assert_uint_eq(ot_v_len(ot_v_get(root, "funcs")), 8);

	f = ot_v_at(ot_v_get(root, "funcs"), 0);
	ck_assert_int_eq(ot_v_get(f, "line")->u.i, 2);
	ck_assert_int_eq(ot_v_get(f, "end_line")->u.i, 11);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(ot_v_get(f, "schema"), "full")), "add.Tensor");
	v = ot_v_at(ot_v_get(ot_v_get(f, "schema"), "args"), 2);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(v, "name")), "alpha");
	ck_assert_str_eq(ot_v_cstr(ot_v_get(v, "default")), "1");
	ck_assert_int_eq(ot_v_get(v, "kwarg_only")->u.b, true);
	v = ot_v_at(ot_v_get(f, "dispatch"), 1);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(v, "key")), "SparseCUDA");
	ck_assert_str_eq(ot_v_cstr(ot_v_get(v, "kernel")), "add_sparse");
	ck_assert_int_eq(ot_v_get(v, "line")->u.i, 7);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(ot_v_get(f, "delegate"), "full")), "add.out");
	ck_assert_int_eq(ot_v_get(ot_v_get(f, "delegate"), "line")->u.i, 12);
	ck_assert_int_eq(ot_v_get(ot_v_get(f, "derivative"), "line")->u.i, 2);
	ck_assert_str_eq(ot_v_cstr(ot_v_at(ot_v_get(f, "tags"), 1)), "pointwise");
	ck_assert_int_eq(ot_v_get(f, "device_guard")->type, OT_V_NULL);

	f = ot_v_at(ot_v_get(root, "funcs"), 5);
	v = ot_v_at(ot_v_get(f, "extra"), 1);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(v, "key")), "cpp_no_default_args");
	ck_assert_int_eq(ot_v_get(v, "line")->u.i, 43);
	ck_assert_str_eq(ot_v_cstr(ot_v_at(ot_v_get(v, "value"), 0)), "padding");
	ck_assert_str_eq(ot_v_cstr(ot_v_at(ot_v_get(f, "precomputed"), 1)),
			 "stride -> int dH, int dW");
	ck_assert_str_eq(ot_v_cstr(ot_v_at(ot_v_get(f, "autogen"), 0)), "pool.out");
	ck_assert_int_eq(ot_v_get(f, "manual_cpp_binding")->u.b, true);

	f = ot_v_at(ot_v_get(root, "derivatives"), 3);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(ot_v_get(f, "func"), "full")), "lstm.input");
	v = ot_v_at(ot_v_get(f, "formulas"), 1);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(v, "inputs")), "result0");
	ck_assert_int_eq(ot_v_get(v, "forward")->u.b, true);
	v = ot_v_at(ot_v_get(f, "dispatch"), 1);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(v, "key")), "AutogradNestedTensor");
	ck_assert_str_eq(ot_v_cstr(ot_v_get(ot_v_at(ot_v_get(v, "formulas"), 0), "formula")),
			 "nested_backward(grad)");
	f = ot_v_at(ot_v_get(root, "derivatives"), 2);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(f, "output_differentiability")), "[True, False]");

	v = ot_v_get(root, "unmatched_derivatives");
	ck_assert_uint_eq(ot_v_len(v), 1);
	ck_assert_str_eq(ot_v_cstr(ot_v_get(ot_v_at(v, 0), "full")), "missing_op");
	ck_assert_int_eq(ot_v_get(ot_v_at(v, 0), "line")->u.i, 32);
	ck_assert_int_eq(ot_v_get(ot_v_at(v, 0), "autogen_by")->type, OT_V_NULL);

	ot_arena_free(arena);
	ot_buf_free(&a);
	ot_buf_free(&b);
	ot_registry_free(reg);
}
END_TEST

START_TEST(dump_json_autogen_reason)
{
	ot_registry *reg = load_ok("- func: rrelu(Tensor self) -> Tensor\n"
				   "  autogen: rrelu.out, rrelu_functional\n",
				   "- name: rrelu_functional(Tensor self) -> Tensor\n"
				   "  self: grad\n");
	ot_buf out = OT_BUF_INIT;
	ck_assert_uint_eq(ot_registry_unmatched_derivs(reg), 1);
	ot_registry_dump_json(&out, reg);
	ck_assert(strstr(out.ptr, "\"unmatched_derivatives\": [\n"
				  "    {\n"
				  "      \"full\": \"rrelu_functional\",\n"
				  "      \"line\": 1,\n"
				  "      \"autogen_by\": {\n"
				  "        \"full\": \"rrelu\",\n"
				  "        \"line\": 1\n"
				  "      }\n"
				  "    }\n"
				  "  ]\n") != NULL);
	ot_buf_free(&out);
	ot_registry_free(reg);
}
END_TEST

START_TEST(dump_json_alias_bomb_is_bounded)
{
	ot_buf doc = OT_BUF_INIT, out = OT_BUF_INIT;
	ot_registry *reg = NULL;
	int i, j;

	/* x9 expands to 10^10 nodes if an alias is copied per use. */
	ot_buf_puts(&doc, "- func: f() -> ()\n  x0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n");
	for (i = 1; i < 10; i++) {
		ot_buf_printf(&doc, "  x%d: &a%d [", i, i);
		for (j = 0; j < 10; j++)
			ot_buf_printf(&doc, "%s*a%d", j ? ", " : "", i - 1);
		ot_buf_puts(&doc, "]\n");
	}
	ck_assert_int_eq(ot_registry_load(&reg, doc.ptr, doc.size, "native", NULL, 0, NULL), 0);
	ck_assert_uint_eq(ot_registry_func_at(reg, 0)->nextra, 10);
	ot_registry_dump_json(&out, reg);
	ck_assert_uint_lt(out.size, 1 << 20);
	ck_assert(strstr(out.ptr, "alias expansion limit") != NULL);
	ot_buf_free(&out);
	ot_buf_free(&doc);
	ot_registry_free(reg);
}
END_TEST

/* The fixture repository's snapshots (used by the other suites) load. */
START_TEST(fixture_tree_loads)
{
	static const char *const dirs[] = {"tests/fixture/v1/", "tests/fixture/v2/"};
	ot_buf path = OT_BUF_INIT;
	ot_registry *reg = NULL;
	size_t len;
	char *text;

	ot_buf_printf(&path, "%s%s", dirs[_i], OT_REGISTRY_NATIVE_PATH);
	text = tu_read_file(path.ptr, &len);
	ck_assert_msg(ot_registry_load(&reg, text, len, path.ptr, NULL, 0, NULL) == 0, "%s",
		      ot_error_last());
	/* expectations read off the fixture text itself */
	{
		size_t funcs = 0;
		int line = 1, mm_line = 0, cpu_line = 0, cuda_line = 0;
		bool in_mm_out = false;
		for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p), line++) {
			if (ot_starts_with(p, "- func: "))
				funcs++, in_mm_out = ot_starts_with(p, "- func: mm.out(");
			if (ot_starts_with(p, "- func: mm("))
				mm_line = line;
			if (in_mm_out && strstr(p, "CPU") && strstr(p, "CPU") < strchr(p, '\n') && !cpu_line)
				cpu_line = line;
			if (in_mm_out && strstr(p, "CUDA") && strstr(p, "CUDA") < strchr(p, '\n') && !cuda_line)
				cuda_line = line;
		}
		ck_assert_uint_eq(ot_registry_func_count(reg), funcs);
		ck_assert_int_eq(find(reg, "mm")->line, mm_line);
		{
			char expect[128];
			if (_i)
				snprintf(expect, sizeof(expect), "CPU:mm_out_cpu:%d CUDA:mm_out_cuda:%d", cpu_line, cuda_line);
			else
				snprintf(expect, sizeof(expect), "CPU:mm_out:%d CUDA:mm_out:%d", cpu_line, cpu_line);
			ck_assert_dispatch(find(reg, "mm.out"), expect);
		}
	}
	if (_i)
		ck_assert_ptr_eq(find(reg, "mm")->delegate, find(reg, "mm.out"));
	else
		ck_assert_ptr_null(find(reg, "mm")->delegate);
	ot_registry_free(reg);
	free(text);
	ot_buf_free(&path);
}
END_TEST

START_TEST(free_null)
{
	ot_registry_free(NULL);
}
END_TEST

/* ---- the real releases ----------------------------------------------------------------- */

static const char *const TAGS[] = {"v1.13.1", "v2.6.0"};

struct real {
	char *native, *deriv;
	size_t native_len, deriv_len;
	ot_registry *reg;
};

static char *git_show(const char *tag, const char *path, size_t *len)
{
	ot_buf out = OT_BUF_INIT;
	ck_assert_msg(tu_git_show(&out, tu_real_source(), tag, path), "git show %s:%s failed", tag,
		      path);
	*len = out.size;
	return ot_buf_detach(&out);
}

static void real_load(struct real *r, const char *tag)
{
	int rc;
	r->native = git_show(tag, OT_REGISTRY_NATIVE_PATH, &r->native_len);
	r->deriv = git_show(tag, OT_REGISTRY_DERIV_PATH, &r->deriv_len);
	rc = ot_registry_load(&r->reg, r->native, r->native_len, OT_REGISTRY_NATIVE_PATH,
			      r->deriv, r->deriv_len, OT_REGISTRY_DERIV_PATH);
	ck_assert_msg(rc == 0, "%s: %s", tag, ot_error_last());
}

static void real_free(struct real *r)
{
	ot_registry_free(r->reg);
	free(r->native);
	free(r->deriv);
}

/* Number of lines starting with `prefix` (what `grep -c '^prefix'` says). */
static size_t count_line_starts(const char *text, const char *prefix)
{
	size_t n = 0, plen = strlen(prefix);
	const char *p = text;
	while (p && *p) {
		if (!strncmp(p, prefix, plen))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* Split a text into an array of line starts (lines[0] is line 1). */
static const char **line_index(char *text, int *count)
{
	OT_VEC(const char *) v = {0};
	char *p = text;
	while (*p) {
		char *nl = strchr(p, '\n');
		ot_vec_push(&v, p);
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	*count = (int)v.len;
	return v.items;
}

static const size_t FUNCS[] = {2493, 2633};
static const size_t DERIVS[] = {639, 672};
static const size_t UNMATCHED[] = {0, 1};

START_TEST(real_counts)
{
	struct real r = {0};
	real_load(&r, TAGS[_i]);
	ck_assert_uint_eq(ot_registry_func_count(r.reg), FUNCS[_i]);
	ck_assert_uint_eq(ot_registry_func_count(r.reg), count_line_starts(r.native, "- func:"));
	ck_assert_uint_eq(ot_registry_deriv_count(r.reg), DERIVS[_i]);
	ck_assert_uint_eq(ot_registry_deriv_count(r.reg), count_line_starts(r.deriv, "- name:"));
	ck_assert_uint_eq(ot_registry_unmatched_derivs(r.reg), UNMATCHED[_i]);
	real_free(&r);
}
END_TEST

/*
 * Every entry of both files: its line holds "- func: <schema as written>",
 * the lines up to end_line hold no other entry, the next entry starts right
 * after it; every derivative line holds "- name: <schema>" and every formula
 * line its key; links go both ways.
 */
START_TEST(real_every_line)
{
	struct real r = {0};
	const char **nl, **dl;
	int nlines, dlines, l;
	size_t i, j, k, nf, nd, unmatched = 0;

	real_load(&r, TAGS[_i]);
	nl = line_index(r.native, &nlines);
	dl = line_index(r.deriv, &dlines);
	nf = ot_registry_func_count(r.reg);
	for (i = 0; i < nf; i++) {
		const ot_reg_func *f = ot_registry_func_at(r.reg, i);
		const char *text;
		ck_assert_uint_eq(f->index, i);
		ck_assert_int_ge(f->line, 1);
		ck_assert_int_le(f->line, nlines);
		text = nl[f->line - 1];
		ck_assert_msg(ot_starts_with(text, "- func: ") &&
				      !strncmp(text + 8, f->func, strlen(f->func)),
			      "line %d: %s", f->line, text);
		for (l = f->line + 1; l <= f->end_line; l++)
			ck_assert_msg(!ot_starts_with(nl[l - 1], "- "), "line %d in entry at %d",
				      l, f->line);
		if (i + 1 < nf)
			ck_assert_int_eq(f->end_line + 1, ot_registry_func_at(r.reg, i + 1)->line);
		else
			ck_assert_int_eq(f->end_line, nlines);
		ck_assert_ptr_eq(ot_registry_find(r.reg, f->schema.full), f);
		for (j = 0; j < f->ndispatch; j++) {
			ck_assert_int_gt(f->dispatch[j].line, f->dispatch_line);
			ck_assert_int_le(f->dispatch[j].line, f->end_line);
			ck_assert_msg(strstr(nl[f->dispatch[j].line - 1], f->dispatch[j].key) &&
					      strstr(nl[f->dispatch[j].line - 1],
						     f->dispatch[j].kernel),
				      "dispatch line %d", f->dispatch[j].line);
		}
		if (f->has_dispatch)
			ck_assert(ot_starts_with(nl[f->dispatch_line - 1], "  dispatch:"));
		if (f->structured_delegate)
			ck_assert_str_eq(f->delegate->schema.full, f->structured_delegate);
		if (f->deriv)
			ck_assert_ptr_eq(f->deriv->func, f);
		{
			size_t n;
			const ot_reg_func *const *ov = ot_registry_overloads(r.reg, f->schema.name, &n);
			for (k = 0; k < n && ov[k] != f; k++)
				;
			ck_assert_uint_lt(k, n);
		}
	}

	nd = ot_registry_deriv_count(r.reg);
	for (i = 0; i < nd; i++) {
		const ot_reg_deriv *d = ot_registry_deriv_at(r.reg, i);
		const char *text = dl[d->line - 1];
		/* 2 entries are written "- name:  _nested_view_from_buffer(". */
		ck_assert_msg(ot_starts_with(text, "- name: ") &&
				      !strncmp(text + 8 + strspn(text + 8, " "), d->name,
					       strlen(d->name)),
			      "line %d: %s", d->line, text);
		for (j = 0; j < d->nformulas; j++) {
			ot_buf key = OT_BUF_INIT;
			ot_buf_printf(&key, "  %s:", d->formulas[j].inputs);
			ck_assert_msg(ot_starts_with(dl[d->formulas[j].line - 1], key.ptr),
				      "formula line %d", d->formulas[j].line);
			ot_buf_free(&key);
		}
		for (j = 0; j < d->ndispatch; j++)
			for (k = 0; k < d->dispatch[j].nformulas; k++)
				ck_assert(strstr(dl[d->dispatch[j].formulas[k].line - 1],
						 d->dispatch[j].formulas[k].inputs));
		/* Both files are well-formed: every key is a formula. */
		ck_assert_uint_eq(d->nextra, 0);
		if (d->func)
			ck_assert_ptr_eq(d->func->deriv, d);
		else
			unmatched++;
	}
	ck_assert_uint_eq(unmatched, ot_registry_unmatched_derivs(r.reg));
	free(nl);
	free(dl);
	real_free(&r);
}
END_TEST

/* One hand-checked entry (grep -n -A12 '^- func: NAME(' native_functions.yaml). */
struct want {
	const char *full;
	int line, end_line;
	const char *dispatch; /* "KEY:kernel:line ..."; NULL: no dispatch table */
	int dispatch_line;
	const char *delegate; /* structured_delegate, resolved */
	int delegate_line;
	bool structured;
	const char *python_module;
	const char *tags;    /* comma-joined */
	const char *ufunc;   /* "|"-joined */
	const char *variants;
	const char *autogen; /* comma-joined */
};

static void check_want(const ot_registry *reg, const struct want *w)
{
	const ot_reg_func *f = find(reg, w->full);
	ck_assert_int_eq(f->line, w->line);
	ck_assert_int_eq(f->end_line, w->end_line);
	ck_assert_int_eq(f->has_dispatch, w->dispatch != NULL);
	if (w->dispatch) {
		ck_assert_int_eq(f->dispatch_line, w->dispatch_line);
		ck_assert_dispatch(f, w->dispatch);
	} else {
		ck_assert_uint_eq(f->ndispatch, 0);
	}
	if (w->delegate) {
		ck_assert_str_eq(f->structured_delegate, w->delegate);
		ck_assert_str_eq(f->delegate->schema.full, w->delegate);
		ck_assert_int_eq(f->delegate->line, w->delegate_line);
	} else {
		ck_assert_ptr_null(f->delegate);
	}
	ck_assert_int_eq(f->structured, w->structured);
	if (w->python_module)
		ck_assert_str_eq(f->python_module, w->python_module);
	else
		ck_assert_ptr_null(f->python_module);
	ck_assert_joined(f->tags, f->ntags, ",", w->tags ? w->tags : "");
	ck_assert_joined(f->ufunc_inner_loop, f->nufunc_inner_loop, "|", w->ufunc ? w->ufunc : "");
	ck_assert_joined(f->autogen, f->nautogen, ",", w->autogen ? w->autogen : "");
	if (w->variants)
		ck_assert_str_eq(f->variants, w->variants);
	else
		ck_assert_ptr_null(f->variants);
}

#define UFUNC_ADD "Generic: add (AllAndComplex, BFloat16, Half, ComplexHalf)|ScalarOnly: add (Bool)"

static const struct want WANT_1_13[] = {
	{"mm", 3561, 3567,
	 "SparseCPU:_sparse_mm:3565 SparseCUDA:_sparse_mm:3565 "
	 "SparseCsrCPU:_sparse_csr_mm:3566 SparseCsrCUDA:_sparse_csr_mm:3566",
	 3564, "mm.out", 3568, false, NULL, NULL, NULL, "function, method", NULL},
	{"mm.out", 3568, 3576,
	 "CPU:mm_out_cpu:3571 CUDA:mm_out_cuda:3572 MPS:mm_out_mps:3573 "
	 "SparseCPU:_sparse_mm_out:3574 SparseCUDA:_sparse_mm_out:3574 "
	 "SparseCsrCPU:_sparse_csr_mm_out:3575 SparseCsrCUDA:_sparse_csr_mm_out:3575",
	 3570, NULL, 0, true, NULL, NULL, NULL, NULL, NULL},
	{"addmm", 6012, 6019,
	 "SparseCPU:addmm_sparse_dense_cpu:6016 SparseCUDA:addmm_sparse_dense_cuda:6017 "
	 "SparseCsrCPU:addmm_sparse_compressed_dense:6018 "
	 "SparseCsrCUDA:addmm_sparse_compressed_dense:6018",
	 6015, "addmm.out", 6001, false, NULL, NULL, NULL, "function, method", NULL},
	{"add.Tensor", 483, 493,
	 "SparseCPU:add_sparse:488 SparseCUDA:add_sparse:488 SparseCsrCPU:add_sparse_csr:489 "
	 "SparseCsrCUDA:add_sparse_csr:489 MkldnnCPU:mkldnn_add:490 "
	 "ZeroTensor:add_zerotensor:491 NestedTensorCPU:NestedTensor_add_Tensor:492 "
	 "NestedTensorCUDA:NestedTensor_add_Tensor:492",
	 487, "add.out", 504, false, NULL, NULL, NULL, "function, method", NULL},
	{"add.out", 504, 518,
	 "SparseCPU:add_out_sparse_cpu:512 SparseCUDA:add_out_sparse_cuda:513 "
	 "SparseCsrCPU:add_out_sparse_csr_cpu:514 SparseCsrCUDA:add_out_sparse_csr_cuda:515 "
	 "MkldnnCPU:mkldnn_add_out:516 MPS:add_out_mps:517",
	 511, NULL, 0, true, NULL, NULL, UFUNC_ADD, NULL, NULL},
	{"_softmax", 4753, 4758,
	 "MkldnnCPU:mkldnn_softmax:4756 NestedTensorCPU:softmax_nested:4757 "
	 "NestedTensorCUDA:softmax_nested:4757",
	 4755, "_softmax.out", 4759, false, NULL, NULL, NULL, NULL, NULL},
	{"native_layer_norm", 2884, 2891,
	 "CPU:layer_norm_cpu:2886 CUDA:layer_norm_cuda:2887 MPS:layer_norm_mps:2888 "
	 "CompositeExplicitAutograd:math_native_layer_norm:2889",
	 2885, NULL, 0, false, NULL, NULL, NULL, NULL, "native_layer_norm.out"},
	{"linalg_vector_norm", 12402, 12406, NULL, 0, "linalg_vector_norm.out", 12407, false,
	 "linalg", NULL, NULL, "function", NULL},
	{"lstm.input", 6757, 6758, NULL, 0, NULL, 0, false, NULL, NULL, NULL, NULL, NULL},
	{"linear", 2916, 2922,
	 "CompositeImplicitAutograd:linear:2919 NestedTensorCPU:nested_linear:2920 "
	 "NestedTensorCUDA:nested_linear:2920 MPS:_mps_linear:2921",
	 2918, NULL, 0, false, "nn", NULL, NULL, NULL, NULL},
};

static const struct want WANT_2_6[] = {
	{"mm", 4132, 4139,
	 "SparseCPU:_sparse_mm:4136 SparseCUDA:_sparse_mm:4136 "
	 "SparseCsrCPU:_sparse_csr_mm:4137 SparseCsrCUDA:_sparse_csr_mm:4137 "
	 "SparseCsrMeta:_sparse_csr_mm:4137",
	 4135, "mm.out", 4140, false, NULL, "core", NULL, "function, method", NULL},
	{"mm.out", 4140, 4149,
	 "CPU:mm_out_cpu:4143 CUDA:mm_out_cuda:4144 MPS:mm_out_mps:4145 XPU:mm_out_xpu:4146 "
	 "SparseCPU:_sparse_mm_out:4147 SparseCUDA:_sparse_mm_out:4147 "
	 "SparseCsrCPU:_sparse_csr_mm_out:4148 SparseCsrCUDA:_sparse_csr_mm_out:4148 "
	 "SparseCsrMeta:_sparse_csr_mm_out:4148",
	 4142, NULL, 0, true, NULL, NULL, NULL, NULL, NULL},
	{"addmm", 7034, 7042,
	 "SparseCPU:addmm_sparse_dense_cpu:7038 SparseCUDA:addmm_sparse_dense_cuda:7039 "
	 "SparseCsrCPU:addmm_sparse_compressed_dense:7040 "
	 "SparseCsrCUDA:addmm_sparse_compressed_dense:7040 "
	 "SparseCsrMeta:addmm_sparse_compressed_dense:7040",
	 7037, "addmm.out", 7022, false, NULL, "core", NULL, "function, method", NULL},
	{"add.Tensor", 552, 563,
	 "SparseCPU:add_sparse:557 SparseCUDA:add_sparse:557 SparseMeta:add_sparse:557 "
	 "SparseCsrCPU:add_sparse_csr:558 SparseCsrCUDA:add_sparse_csr:558 "
	 "SparseCsrMeta:add_sparse_csr:558 MkldnnCPU:mkldnn_add:559 "
	 "ZeroTensor:add_zerotensor:560 NestedTensorCPU:NestedTensor_add_Tensor:561 "
	 "NestedTensorCUDA:NestedTensor_add_Tensor:561",
	 556, "add.out", 575, false, NULL, "core,pointwise", NULL, "function, method", NULL},
	{"add.out", 575, 590,
	 "SparseCPU:add_out_sparse_cpu:583 SparseMeta:add_out_sparse_cpu:583 "
	 "SparseCUDA:add_out_sparse_cuda:584 SparseCsrCPU:add_out_sparse_compressed_cpu:585 "
	 "SparseCsrMeta:add_out_sparse_compressed_cpu:585 "
	 "SparseCsrCUDA:add_out_sparse_compressed_cuda:586 MkldnnCPU:mkldnn_add_out:587 "
	 "MPS:add_out_mps:588",
	 582, NULL, 0, true, NULL, "pointwise", UFUNC_ADD, NULL, NULL},
	{"_softmax", 5552, 5558,
	 "MkldnnCPU:mkldnn_softmax:5555 NestedTensorCPU:softmax_nested:5556 "
	 "NestedTensorCUDA:softmax_nested:5556",
	 5554, "_softmax.out", 5559, false, NULL, "core", NULL, NULL, NULL},
	{"native_layer_norm", 3287, 3296,
	 "CPU:layer_norm_cpu:3289 CUDA:layer_norm_cuda:3290 MPS:layer_norm_mps:3291 "
	 "CompositeExplicitAutograd:math_native_layer_norm:3292 "
	 "NestedTensorCPU:nested_layer_norm:3293 NestedTensorCUDA:nested_layer_norm:3293",
	 3288, NULL, 0, false, NULL, "core", NULL, NULL, "native_layer_norm.out"},
	{"linalg_vector_norm", 14189, 14193, NULL, 0, "linalg_vector_norm.out", 14194, false,
	 "linalg", NULL, NULL, "function", NULL},
	{"lstm.input", 7854, 7856, NULL, 0, NULL, 0, false, NULL, "nondeterministic_seeded", NULL,
	 NULL, NULL},
	{"linear", 3331, 3337,
	 "CompositeImplicitAutograd:linear:3334 NestedTensorCPU:nested_linear:3335 "
	 "NestedTensorCUDA:nested_linear:3335 MPS:_mps_linear:3336",
	 3333, NULL, 0, false, "nn", NULL, NULL, NULL, NULL},
};

START_TEST(real_entries_1_13)
{
	struct real r = {0};
	size_t i, n;
	const ot_reg_func *const *ov;
	real_load(&r, "v1.13.1");
	for (i = 0; i < OT_ARRAY_LEN(WANT_1_13); i++)
		check_want(r.reg, &WANT_1_13[i]);
	ov = ot_registry_overloads(r.reg, "add", &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(ov[0]->line, 483);
	ck_assert_int_eq(ov[1]->line, 504);
	ck_assert_int_eq(ov[2]->line, 546);
	ck_assert_str_eq(ov[2]->schema.full, "add.Scalar");
	/* Unknown fields at this release. */
	ck_assert_str_eq(find(r.reg, "empty_quantized")->extra[0].key, "category_override");
	ck_assert_int_eq(find(r.reg, "empty_quantized")->extra[0].line, 2175);
	ck_assert_str_eq(find(r.reg, "kthvalue")->schema.returns[1].name, "indices");
	real_free(&r);
}
END_TEST

START_TEST(real_entries_2_6)
{
	struct real r = {0};
	size_t i, n;
	const ot_reg_func *const *ov;
	const ot_reg_func *f;
	real_load(&r, "v2.6.0");
	for (i = 0; i < OT_ARRAY_LEN(WANT_2_6); i++)
		check_want(r.reg, &WANT_2_6[i]);
	ov = ot_registry_overloads(r.reg, "add", &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(ov[2]->line, 618);
	f = find(r.reg, "__iand__.Tensor");
	ck_assert_int_eq(f->line, 8366);
	ck_assert_str_eq(f->schema.base, "__iand__");
	ck_assert(!f->schema.inplace);
	f = find(r.reg, "_foreach_add_.Scalar");
	ck_assert_int_eq(f->line, 10413);
	ck_assert(f->schema.inplace);
	ck_assert_uint_eq(f->schema.nreturns, 0);
	ck_assert_str_eq(find(r.reg, "rrelu_with_noise")->autogen[0], "rrelu_with_noise_functional");
	real_free(&r);
}
END_TEST

/* Derivative entries (grep -n -A6 '^- name: NAME(' derivatives.yaml). */
static const int D_MM[] = {1116, 1203};
static const int D_ADDMM[] = {239, 256};
static const int D_ADD[] = {212, 229};
static const int D_SOFTMAX[] = {1989, 2196};
static const int D_LAYER_NORM[] = {1156, 1255};
static const int D_LINEAR[] = {2178, 2343};
static const int D_MAX_DIM[] = {1034, 1115};
static const int D_CHOLESKY_EX[] = {371, 409};
static const int D_LINALG_DET[] = {511, 554};

START_TEST(real_derivatives)
{
	struct real r = {0};
	const ot_reg_deriv *d;
	int L;
	real_load(&r, TAGS[_i]);

	d = find(r.reg, "mm")->deriv;
	L = D_MM[_i];
	ck_assert_int_eq(d->line, L);
	ck_assert_uint_eq(d->nformulas, 3);
	check_formula(d, "self", L + 1,
		      false, "mm_mat1_backward(grad, mat2, self.sym_sizes(), self.sym_strides(), "
			     "self.layout(), 1)");
	check_formula(d, "mat2", L + 2,
		      false, "mm_mat2_backward(grad, self, mat2.sym_sizes(), mat2.sym_strides(), "
			     "mat2.layout(), 1)");
	check_formula(d, "result", L + 3, true, "at::mm(self_t, mat2_p) + at::mm(self_p, mat2_t)");
	ck_assert_ptr_null(find(r.reg, "mm.out")->deriv);

	d = find(r.reg, "addmm")->deriv;
	L = D_ADDMM[_i];
	ck_assert_int_eq(d->line, L);
	ck_assert_uint_eq(d->nformulas, 4);
	check_formula(d, "self", L + 1, false, "maybe_multiply(grad, beta.conj())");
	check_formula(d, "mat1", L + 2, false,
		      "mm_mat1_backward(grad, mat2, mat1.sym_sizes(), mat1.sym_strides(), "
		      "mat1.layout(), alpha)");
	check_formula(d, "result", L + 4, true,
		      "maybe_multiply(self_t, beta) + maybe_multiply(mat1_t.mm(mat2_p), alpha) + "
		      "maybe_multiply(mat1_p.mm(mat2_t), alpha)");

	d = find(r.reg, "add.Tensor")->deriv;
	L = D_ADD[_i];
	ck_assert_int_eq(d->line, L);
	check_formula(d, "self", L + 1, false, "handle_r_to_c(self.scalar_type(), grad)");
	check_formula(d, "other", L + 2, false,
		      "handle_r_to_c(other.scalar_type(), maybe_multiply(grad, alpha.conj()))");
	check_formula(d, "result", L + 3, true, "self_t + maybe_multiply(other_t, alpha)");
	ck_assert_str_eq(d->func->schema.full, "add.Tensor");

	d = find(r.reg, "_softmax")->deriv;
	L = D_SOFTMAX[_i];
	ck_assert_int_eq(d->line, L);
	check_formula(d, "self", L + 1, false,
		      "_softmax_backward_data(grad, result, dim, self.scalar_type())");
	check_formula(d, "result", L + 2, true,
		      "result * (self_t - logsumexp_jvp(self_p, self_t, {dim}, true))");

	d = find(r.reg, "native_layer_norm")->deriv;
	L = D_LAYER_NORM[_i];
	ck_assert_int_eq(d->line, L);
	ck_assert_uint_eq(d->nformulas, 2);
	check_formula(d, "input, weight, bias", L + 1, false,
		      "grad.defined() ? native_layer_norm_backward_symint(grad, input, "
		      "normalized_shape, result1, result2, weight, bias, grad_input_mask) : "
		      "std::tuple<Tensor, Tensor, Tensor>()");
	check_formula(d, "result0", L + 2, true,
		      "layer_norm_jvp(input_p, input_t, weight_p, weight_t, bias_p, bias_t, "
		      "result1, result2, normalized_shape)");

	d = find(r.reg, "linear")->deriv;
	ck_assert_int_eq(d->line, D_LINEAR[_i]);
	ck_assert(!formula(d->formulas, d->nformulas, "input, weight, bias")->forward);

	d = find(r.reg, "max.dim")->deriv;
	ck_assert_int_eq(d->line, D_MAX_DIM[_i]);
	ck_assert(formula(d->formulas, d->nformulas, "values")->forward);
	d = find(r.reg, "linalg_cholesky_ex")->deriv;
	ck_assert_int_eq(d->line, D_CHOLESKY_EX[_i]);
	check_formula(d, "L", D_CHOLESKY_EX[_i] + 2, true, "cholesky_jvp(self_t, L, upper)");
	d = find(r.reg, "_linalg_det")->deriv;
	ck_assert_int_eq(d->line, D_LINALG_DET[_i]);
	ck_assert_str_eq(d->output_differentiability, "[True, False, False]");
	ck_assert(formula(d->formulas, d->nformulas, "result")->forward);
	ck_assert(!formula(d->formulas, d->nformulas, "A")->forward);

	/* A derivative names an input even when the input is called like an
	 * output (elu_backward's self_or_result). */
	d = find(r.reg, "elu_backward")->deriv;
	ck_assert(!formula(d->formulas, d->nformulas, "self_or_result")->forward);
	real_free(&r);
}
END_TEST

START_TEST(real_deriv_dispatch)
{
	struct real r = {0};
	const ot_reg_deriv *d;

	real_load(&r, "v1.13.1");
	d = find(r.reg, "select.int")->deriv;
	ck_assert_int_eq(d->line, 1388);
	ck_assert_uint_eq(d->nformulas, 0);
	ck_assert_uint_eq(d->ndispatch, 2);
	ck_assert_str_eq(d->dispatch[0].key, "Default");
	ck_assert_int_eq(d->dispatch[0].line, 1390);
	ck_assert_uint_eq(d->dispatch[0].nformulas, 2);
	ck_assert_str_eq(d->dispatch[0].formulas[0].formula,
			 "select_backward(grad, self.sizes(), dim, index)");
	ck_assert_int_eq(d->dispatch[0].formulas[1].line, 1392);
	ck_assert(d->dispatch[0].formulas[1].forward);
	ck_assert_str_eq(d->dispatch[1].key, "AutogradNestedTensor");
	ck_assert_str_eq(d->dispatch[1].formulas[0].formula,
			 "_nested_select_backward(grad, self, dim, index)");
	real_free(&r);

	real_load(&r, "v2.6.0");
	d = find(r.reg, "mean")->deriv;
	ck_assert_int_eq(d->line, 1133);
	ck_assert_uint_eq(d->ndispatch, 2);
	ck_assert_int_eq(d->dispatch[1].line, 1138);
	ck_assert_uint_eq(d->dispatch[1].nformulas, 2);
	ck_assert_str_eq(d->dispatch[1].formulas[0].formula,
			 "(ones_like(self) * grad) / self.sym_numel()");
	ck_assert_int_eq(d->dispatch[1].formulas[0].line, 1140);
	d = find(r.reg, "chunk")->deriv;
	ck_assert_int_eq(d->line, 401);
	ck_assert_str_eq(d->dispatch[0].formulas[0].formula, "not_implemented(\"chunk\")");
	ck_assert_int_eq(d->dispatch[0].formulas[0].line, 405);
	ck_assert_str_eq(d->schema.args[0].annotation, "a -> *");
	ck_assert_str_eq(d->schema.returns[0].type, "Tensor[]");
	/* The one unmatched derivative: an op that only exists through
	 * rrelu_with_noise's `autogen:`. */
	ck_assert_uint_eq(ot_registry_unmatched_derivs(r.reg), 1);
	d = ot_registry_deriv_at(r.reg, 0);
	{
		size_t i;
		for (i = 0; i < ot_registry_deriv_count(r.reg); i++)
			if (!ot_registry_deriv_at(r.reg, i)->func)
				d = ot_registry_deriv_at(r.reg, i);
	}
	ck_assert_str_eq(d->schema.full, "rrelu_with_noise_functional");
	ck_assert_int_eq(d->line, 2192);
	real_free(&r);
}
END_TEST

START_TEST(real_dump_is_deterministic)
{
	struct real r = {0};
	ot_buf a = OT_BUF_INIT, b = OT_BUF_INIT;
	ot_registry *again = NULL;
	real_load(&r, TAGS[_i]);
	ot_registry_dump_json(&a, r.reg);
	ck_assert_int_eq(ot_registry_load(&again, r.native, r.native_len, OT_REGISTRY_NATIVE_PATH,
					  r.deriv, r.deriv_len, OT_REGISTRY_DERIV_PATH),
			 0);
	ot_registry_dump_json(&b, again);
	ck_assert(ot_buf_equal(&a, &b));
	ck_assert(strstr(a.ptr, "\"funcs\": [\n"));
	ot_buf_free(&a);
	ot_buf_free(&b);
	ot_registry_free(again);
	real_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("registry");
	TCase *tc = tcase_create("schema");
	tcase_add_test(tc, schema_plain_and_out);
	tcase_add_test(tc, schema_types_and_defaults);
	tcase_add_test(tc, schema_returns);
	tcase_add_test(tc, schema_names);
	tcase_add_test(tc, schema_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("fixture");
	tcase_add_test(tc, native_fields);
	tcase_add_test(tc, native_overloads);
	tcase_add_test(tc, native_input_not_nul_terminated);
	tcase_add_test(tc, native_errors);
	tcase_add_test(tc, native_hostile);
	tcase_add_test(tc, deriv_fields);
	tcase_add_test(tc, deriv_input_named_like_output);
	tcase_add_test(tc, deriv_errors);
	tcase_add_test(tc, dump_json);
	tcase_add_test(tc, dump_json_autogen_reason);
	tcase_add_test(tc, dump_json_alias_bomb_is_bounded);
	tcase_add_loop_test(tc, fixture_tree_loads, 0, 2);
	tcase_add_test(tc, free_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("real");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, real_counts, 0, 2);
	tcase_add_loop_test(tc, real_every_line, 0, 2);
	tcase_add_test(tc, real_entries_1_13);
	tcase_add_test(tc, real_entries_2_6);
	tcase_add_loop_test(tc, real_derivatives, 0, 2);
	tcase_add_test(tc, real_deriv_dispatch);
	tcase_add_loop_test(tc, real_dump_is_deterministic, 0, 2);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
