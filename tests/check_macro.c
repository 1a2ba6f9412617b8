/*
 * check_macro.c - kernels that PyTorch defines through token-pasting macros.
 *
 * `#define FOREACH_UNARY_OP(OP) ... void foreach_tensor_##OP##_slow_(...)`
 * followed by `FOREACH_UNARY_OP(erfc)`: the kernel foreach_tensor_erfc_slow_
 * is written on no line of the source. The C scanner records such macros
 * (ot_ix_macro) and every macro invocation (ot_ix_minvoke); the index
 * expands them and files the generated definitions at the invocation line.
 *
 * Three levels:
 *   scanner  small snippets through ot_scan_c: the templates of pasted names,
 *            continuation lines, what is not a definition (calls, member
 *            calls, declarations, stringizing, comments), invocations with
 *            all their arguments;
 *   index    a plain-directory tree through ot_index_build: a macro defined
 *            in a header and invoked in a file that includes it (and not in
 *            one that does not), nested macros, X-macro lists, #undef and
 *            redefinition, argument counts, multi-line invocations;
 *   release  the real binary at v1.13.1 and v2.6.0 on ops of every family
 *            whose kernel was "not found" before: the kernel is named in the
 *            op's native_functions.yaml entry (read with git show), a step
 *            stands for it, and the step is checked without optrace's code:
 *            its line holds the invocation, the note's #define lines are
 *            real, and expanding the invocation with those defines (a small
 *            preprocessor written here) produces `kernel(`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "common.h"
#include "cond.h"
#include "index.h"
#include "lines.h"
#include "scan.h"
#include "lex.h"
#include "source.h"
#include "testutil.h"
#include "value.h"
#include "yamldoc.h"

/* ---- helpers ---------------------------------------------------------------------- */

static void scan(ot_scan_result *r, ot_arena *arena, const char *text)
{
	size_t len = strlen(text);
	char *code = ot_malloc(len + 1);
	ot_lex_code_view(code, text, len, OT_LANG_C);
	code[len] = '\0';
	const uint32_t *lines;
	uint32_t nlines = ot_line_starts(&lines, arena, text, len);
	memset(r, 0, sizeof(*r));
	ot_scan_c(r, arena, code, text, len, lines, nlines, 0);
	free(code);
}

/* The first definition `text` scans to (there must be one). */
static const ot_ix_cdef *scan_first(ot_scan_result *r, ot_arena *arena, const char *text)
{
	scan(r, arena, text);
	ck_assert_uint_ge(r->cdefs.len, 1);
	return &r->cdefs.items[0];
}

/* The guard call `c` of definition `d` runs under, or NULL for none. */
static const ot_ix_guard *guard_of(const ot_ix_cdef *d, const ot_ix_call *c)
{
	return c->guard ? &d->guards[c->guard - 1] : NULL;
}

/* A template as text, parameters written {0}, {1}... */
static const char *tmpl(ot_arena *arena, const ot_ix_template *t)
{
	ot_buf b = OT_BUF_INIT;
	const char *s;
	for (uint16_t i = 0; i < t->nparts; i++) {
		if (t->parts[i].text)
			ot_buf_puts(&b, t->parts[i].text);
		else
			ot_buf_printf(&b, "{%u}", (unsigned)t->parts[i].param);
	}
	s = ot_arena_strdup(arena, b.ptr ? b.ptr : "");
	ot_buf_free(&b);
	return s;
}

static const ot_ix_macro *find_macro(const ot_scan_result *r, const char *name)
{
	for (size_t i = 0; i < r->nmacros; i++)
		if (!strcmp(r->macros[i].name, name))
			return &r->macros[i];
	return NULL;
}

static const ot_ix_minvoke *find_invoke(const ot_scan_result *r, const char *macro, size_t nth)
{
	for (size_t i = 0; i < r->ninvokes; i++)
		if (!strcmp(r->invokes[i].macro, macro) && nth-- == 0)
			return &r->invokes[i];
	return NULL;
}

/* ---- scanner ------------------------------------------------------------------------ */

/* The code view keeps the branch a literal #if / #elif / #else chain takes
 * and blanks the others (the scanner then sees one definition a name). */
START_TEST(scanner_literal_if_elif_else_chains)
{
	static const struct {
		const char *text, *kept, *blanked[2];
	} cases[] = {
		{"#if 0\nint a_f();\n#else\nint b_f();\n#endif\n", "b_f", {"a_f", NULL}},
		{"#if 1\nint a_f();\n#else\nint b_f();\n#endif\n", "a_f", {"b_f", NULL}},
		{"#if 0\nint a_f();\n#elif 1\nint b_f();\n#else\nint c_f();\n#endif\n", "b_f",
		 {"a_f", "c_f"}},
		{"#if 1\nint a_f();\n#elif 1\nint b_f();\n#else\nint c_f();\n#endif\n", "a_f",
		 {"b_f", "c_f"}},
		{"#if 0\nint a_f();\n#elif 0\nint b_f();\n#else\nint c_f();\n#endif\n", "c_f",
		 {"a_f", "b_f"}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].text);
		char *code = ot_malloc(len + 1);
		ot_lex_code_view(code, cases[i].text, len, OT_LANG_C);
		code[len] = '\0';
		ck_assert_msg(strstr(code, cases[i].kept), "case %zu: %s blanked:\n%s", i, cases[i].kept,
			      code);
		for (int k = 0; k < 2 && cases[i].blanked[k]; k++)
			ck_assert_msg(!strstr(code, cases[i].blanked[k]), "case %zu: %s kept:\n%s", i,
				      cases[i].blanked[k], code);
		free(code);
	}
}
END_TEST

/* A body whose own top-level statement throws (TORCH_CHECK(false, ...),
 * AT_ERROR, throw) fails on every call, unless a return may leave first:
 * in an #if arm, a switch, a loop or an arm of an if. */
START_TEST(scanner_bodies_that_always_raise)
{
	static const struct {
		const char *text;
		uint32_t fails;
	} cases[] = {
		{"Tensor f(const Tensor& s) {\n  TORCH_CHECK(false, \"sparse only\");\n}\n", 2},
		{"Tensor f(const Tensor& s) {\n  check(s);\n  AT_ERROR(\"no\");\n  return s;\n}\n", 3},
		{"Tensor f(const Tensor& s) {\n  TORCH_CHECK_NOT_IMPLEMENTED(\n    false, \"x\");\n}\n", 2},
		{"void f() {\n  throw std::runtime_error(\"x\");\n}\n", 2},
		{"Tensor f(const Tensor& s) {\n  TORCH_CHECK(s.dim() > 0, \"x\");\n  return s;\n}\n", 0},
		{"Tensor f(const Tensor& s) {\n  TORCH_WARN(false, \"x\");\n  return s;\n}\n", 0},
		{"Tensor f(const Tensor& s) {\n#if AT_MKLDNN_ENABLED()\n  return g(s);\n#endif\n"
		 "  TORCH_CHECK(false, \"not compiled\");\n}\n", 0},
		{"Tensor f(const Tensor& s) {\n#if AT_MKLDNN_ENABLED()\n  TORCH_CHECK(false, \"x\");\n#endif\n"
		 "  return s;\n}\n", 0},
		{"Tensor f(int k, const Tensor& s) {\n  switch (k) {\n  case 0:\n    return s;\n  }\n"
		 "  TORCH_CHECK(false, \"unreachable\");\n}\n", 0},
		{"Tensor f(const Tensor& s) {\n  for (int i = 0; i < 3; i++) {\n    if (i == s.dim()) return s;\n  }\n"
		 "  TORCH_CHECK(false, \"x\");\n}\n", 0},
		{"Tensor f(const Tensor& s) {\n  if (s.is_sparse()) {\n    return s;\n  }\n"
		 "  TORCH_CHECK(false, \"x\");\n}\n", 0},
		{"Tensor f(const Tensor& s) {\n  if (s.is_sparse())\n    TORCH_CHECK(false, \"x\");\n  return s;\n}\n", 0},
		{"Tensor f(const Tensor& s) {\n  auto g = [&]() { TORCH_CHECK(false, \"x\"); };\n  return s;\n}\n", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ot_arena *a = ot_arena_new();
		ot_scan_result r;
		scan(&r, a, cases[i].text);
		ck_assert_msg(r.cdefs.len >= 1, "case %zu: no definition", i);
		ck_assert_msg(r.cdefs.items[0].fails == cases[i].fails, "case %zu: fails %u, expected %u:\n%s", i,
			      r.cdefs.items[0].fails, cases[i].fails, cases[i].text);
		ot_scan_result_free(&r);
		ot_arena_free(a);
	}
}
END_TEST

/* A ternary's condition is the operand before its '?': back to a ';', a
 * '(' or a block's '}', never through a statement; a braced initializer
 * inside the operand is part of it. */
START_TEST(scanner_ternary_condition_stops_at_a_block)
{
	static const struct {
		const char *text, *cond;
	} cases[] = {
		{"Tensor f(const Tensor& x, bool b) {\n  Tensor o;\n  if (x.is_complex()) {\n    o = g(x);\n  } else {\n"
		 "    o = h(x);\n  }\n  return b ? o : o.squeeze(0);\n}\n",
		 "b"},
		{"Tensor f(const Tensor& x) {\n  for (int i = 0; i < 2; i++) {\n    g(x);\n  }\n  auto y = x.dim() > 1 ? g(x) : h(x);\n"
		 "  return y;\n}\n",
		 "x.dim() > 1"},
		{"Tensor f(const Tensor& x) {\n  return pick(x, {0, 1}) ? g(x) : h(x);\n}\n", "pick(x, {0, 1})"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ot_arena *a = ot_arena_new();
		ot_scan_result r;
		const char *found = NULL;
		scan(&r, a, cases[i].text);
		ck_assert_msg(r.cdefs.len >= 1, "case %zu: no definition", i);
		for (uint16_t g = 0; g < r.cdefs.items[0].nguards; g++)
			if (r.cdefs.items[0].guards[g].kind == OT_GUARD_THEN && !found)
				found = r.cdefs.items[0].guards[g].text;
		ck_assert_msg(found && !strcmp(found, cases[i].cond), "case %zu: condition \"%s\", expected \"%s\"", i,
			      found ? found : "(none)", cases[i].cond);
		ot_scan_result_free(&r);
		ot_arena_free(a);
	}
}
END_TEST

/* What an `else if` condition calls runs only when no earlier arm of its
 * chain was taken: its guard is an "else" of the arm before. */
START_TEST(scanner_else_if_condition_runs_after_earlier_arms)
{
	static const char text[] = "int f(const Tensor& x) {\n  if (a(x)) {\n    return 1;\n  } else if (b(x)) {\n"
				   "    return 2;\n  } else if (c(x)) {\n    return 3;\n  }\n  return 0;\n}\n";
	ot_arena *a = ot_arena_new();
	ot_scan_result r;
	const ot_ix_cdef *d;
	d = scan_first(&r, a, text);
	for (uint32_t i = 0; i < d->ncalls; i++) {
		const ot_ix_call *call = &d->calls[i];
		const ot_ix_guard *g = guard_of(d, call);
		if (!strcmp(call->name, "a"))
			ck_assert_msg(!g, "a(x) runs first, under no guard");
		if (!strcmp(call->name, "b") || !strcmp(call->name, "c")) {
			const ot_ix_guard *prev;
			ck_assert_msg(g && g->kind == OT_GUARD_ELSE && g->prev, "%s(x): guard kind %d", call->name,
				      g ? g->kind : -1);
			prev = &d->guards[g->prev - 1];
			ck_assert_str_eq(prev->text, !strcmp(call->name, "b") ? "a(x)" : "b(x)");
		}
	}
	ot_scan_result_free(&r);
	ot_arena_free(a);
}
END_TEST

/* A check's condition runs on every call; its message is built only when
 * the check fails, and a debug-only assert or a warning runs none of its
 * arguments in a release build's default call. */
START_TEST(scanner_check_condition_runs_message_validates)
{
	static const char text[] =
		"bool f(const Tensor& x) {\n  if (x.dim() > 1) {\n"
		"    TORCH_CHECK(cond_a(x).all().item<bool>(), \"bad \", msg_a(x));\n  }\n"
		"  TORCH_INTERNAL_ASSERT(cond_b(x));\n"
		"  TORCH_INTERNAL_ASSERT_DEBUG_ONLY(cond_c(x), msg_c(x));\n"
		"  TORCH_WARN(msg_d(x));\n  return true;\n}\n";
	static const struct {
		const char *call;
		int kind; /* the guard's kind, -1 for none */
	} want[] = {
		{"cond_a", OT_GUARD_IF}, {"msg_a", OT_GUARD_CHECK}, {"cond_b", -1},
		{"cond_c", OT_GUARD_CHECK}, {"msg_c", OT_GUARD_CHECK}, {"msg_d", OT_GUARD_CHECK},
	};
	ot_arena *a = ot_arena_new();
	ot_scan_result r;
	const ot_ix_cdef *d;
	d = scan_first(&r, a, text);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		bool seen = false;
		for (uint32_t i = 0; i < d->ncalls; i++) {
			const ot_ix_call *call = &d->calls[i];
			const ot_ix_guard *g = guard_of(d, call);
			if (strcmp(call->name, want[k].call))
				continue;
			seen = true;
			ck_assert_msg((g ? (int)g->kind : -1) == want[k].kind, "%s: guard kind %d, expected %d",
				      want[k].call, g ? (int)g->kind : -1, want[k].kind);
		}
		ck_assert_msg(seen, "%s: no call", want[k].call);
	}
	ot_scan_result_free(&r);
	ot_arena_free(a);
}
END_TEST

/* A unary minus before a name or a parenthesis is recorded as an operator
 * "neg" (the classifier keeps it when the operand is a Tensor); a number's
 * minus and a binary minus are not. A call whose template arguments run
 * over several long commented lines is still a call. */
START_TEST(scanner_unary_minus_and_long_template_arguments)
{
	static const char text[] =
		"Tensor f(const Tensor& t, const Tensor& a, const Tensor& b) {\n"
		"  auto x = (-t * (a - b) + 1);\n  auto y = g(-1, -(a));\n"
		"  jitted_gpu_kernel</*name=*/                  some_name,\n"
		"                    /*return_dtype=*/          scalar_t,\n"
		"                    /*common_dtype=*/          scalar_t,\n"
		"                    /*arity=*/                 1>(iter, some_string);\n"
		"  return -x;\n}\n";
	ot_arena *a = ot_arena_new();
	ot_scan_result r;
	const ot_ix_cdef *d;
	int negs = 0, subs = 0;
	bool jitted = false;
	d = scan_first(&r, a, text);
	for (uint32_t i = 0; i < d->ncalls; i++) {
		const ot_ix_call *call = &d->calls[i];
		if (call->kind == OT_CALL_OPERATOR && !strcmp(call->name, "neg"))
			negs++;
		if (call->kind == OT_CALL_OPERATOR && !strcmp(call->name, "sub"))
			subs++;
		jitted = jitted || !strcmp(call->name, "jitted_gpu_kernel");
	}
	ck_assert_int_eq(negs, 3); /* -t, -(a), return -x */
	ck_assert_int_eq(subs, 1); /* a - b */
	ck_assert_msg(jitted, "jitted_gpu_kernel<...>(...) not read as a call");
	ot_scan_result_free(&r);
	ot_arena_free(a);
}
END_TEST

/* A case whose if/else chain returns in every arm ends at the next case
 * label: each case has its own guard, and the default's TORCH_CHECK(false)
 * raises in the default only. */
START_TEST(scanner_case_after_returning_if_chain)
{
	static const char text[] =
		"Tensor f(const Tensor& x, int64_t reduction) {\n  switch (reduction) {\n"
		"    case Reduction::Mean:\n      if (x.numel() == 0) {\n        return a(x);\n      } else {\n"
		"        return b(x);\n      }\n    case Reduction::Sum:\n      return c(x);\n"
		"    default:\n      TORCH_CHECK(false, \"bad\");\n  }\n}\n";
	ot_arena *a = ot_arena_new();
	ot_scan_result r;
	const ot_ix_cdef *d;
	int cases = 0;
	d = scan_first(&r, a, text);
	for (uint16_t g = 0; g < d->nguards; g++) {
		const ot_ix_guard *gd = &d->guards[g];
		if (gd->kind != OT_GUARD_CASE)
			continue;
		cases++;
		ck_assert_msg(gd->raises == !strcmp(gd->text, "default"), "%s: raises %d", gd->text, gd->raises);
	}
	ck_assert_int_eq(cases, 3);
	for (uint32_t i = 0; i < d->ncalls; i++)
		if (!strcmp(d->calls[i].name, "c")) {
			const ot_ix_guard *g = guard_of(d, &d->calls[i]);
			ck_assert_ptr_nonnull(g);
			ck_assert_str_eq(g->text, "case Reduction::Sum");
		}
	ot_scan_result_free(&r);
	ot_arena_free(a);
}
END_TEST

/* An enum's enumerators with their values: written, or one past the one
 * before; a value the scanner cannot read ends the known ones. */
START_TEST(scanner_enumerator_values)
{
	static const char text[] = "namespace at::native {\nenum class EmbeddingBagMode {\n  SUM = 0,\n  MEAN = 1,\n"
				   "  MAX,\n};\nenum Other { X = 0x10, Y = f(3), Z };\n}\n";
	static const struct {
		const char *name, *cls, *value;
	} want[] = {{"SUM", "EmbeddingBagMode", "0"}, {"MEAN", "EmbeddingBagMode", "1"},
		    {"MAX", "EmbeddingBagMode", "2"}, {"X", "Other", "16"}};
	ot_arena *a = ot_arena_new();
	ot_scan_result r;
	size_t found = 0;
	scan(&r, a, text);
	for (size_t i = 0; i < r.decls.len; i++) {
		const ot_ix_decl *d = &r.decls.items[i];
		if (d->kind != OT_DECL_ENUMERATOR)
			continue;
		ck_assert_msg(strcmp(d->name, "Y") && strcmp(d->name, "Z"), "%s: value not known", d->name);
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (!strcmp(d->name, want[k].name)) {
				ck_assert_str_eq(d->cls, want[k].cls);
				ck_assert_str_eq(d->type, want[k].value);
				found++;
			}
	}
	ck_assert_uint_eq(found, 4);
	ot_scan_result_free(&r);
	ot_arena_free(a);
}
END_TEST

START_TEST(scanner_pasted_function_names)
{
	ot_arena *a = ot_arena_new();
	ot_scan_result r;
	const ot_ix_macro *m;
	scan(&r, a,
	     "namespace at::native {\n"
	     "#define FOREACH_UNARY_OP(OP)                                     \\\n"
	     "  std::vector<Tensor> foreach_tensor_##OP##_slow(TensorList t) { \\\n"
	     "    check(t);                                                    \\\n"
	     "    return helper_##OP(t);      /* a call, not a definition */   \\\n"
	     "  }                                                              \\\n"
	     "  void foreach_tensor_##OP##_slow_(TensorList tensors) {         \\\n"
	     "    for (auto& t : tensors) { t.OP##_(); }                       \\\n"
	     "  }                                                              \\\n"
	     "  void OP##_declared_only(int);                                  \\\n"
	     "  const char* name_##OP() { return #OP; }\n"
	     "FOREACH_UNARY_OP(erfc)\n"
	     "}\n");
	m = find_macro(&r, "FOREACH_UNARY_OP");
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->line, 2);
	ck_assert_uint_eq(m->nparams, 1);
	/* two functions, the name_ one last; the call, the member call and the
	 * declaration are not definitions */
	ck_assert_uint_eq(m->nitems, 3);
	ck_assert_int_eq(m->items[0].kind, OT_MITEM_FUNC);
	ck_assert_str_eq(tmpl(a, &m->items[0].name), "foreach_tensor_{0}_slow");
	ck_assert_str_eq(m->items[0].params, "(TensorList t)");
	ck_assert_str_eq(tmpl(a, &m->items[1].name), "foreach_tensor_{0}_slow_");
	ck_assert_str_eq(m->items[1].params, "(TensorList tensors)");
	ck_assert_str_eq(tmpl(a, &m->items[2].name), "name_{0}");
	ot_scan_result_free(&r);
	ot_arena_free(a);
}
END_TEST

/* A macro statement with no ';' (a pragma wrapper, a registration) right
 * before a namespace: the namespace still opens, its functions are found. */
START_TEST(scanner_macro_statement_before_namespace)
{
	ot_arena *a = ot_arena_new();
	ot_scan_result r;
	bool found_k = false, found_t = false;
	scan(&r, a,
	     "C10_DIAGNOSTIC_PUSH_AND_IGNORED_IF_DEFINED(\"-Wunused\")\n"
	     "namespace at::native {\n"
	     "void kernel(int x) { helper(x); }\n"
	     "REGISTER_ALL_CPU_DISPATCH(a_stub, &kernel)\n"
	     "namespace{\n"
	     "Tensor transpose(const Tensor& t) { return t; }\n"
	     "}\n"
	     "}\n");
	for (size_t i = 0; i < r.cdefs.len; i++) {
		const ot_ix_cdef *d = &r.cdefs.items[i];
		if (!strcmp(d->name, "kernel") && d->line == 3 && !strcmp(d->ns, "at::native"))
			found_k = true;
		if (!strcmp(d->name, "transpose") && d->line == 6 &&
		    !strcmp(d->ns, "at::native::(anonymous)"))
			found_t = true;
	}
	ck_assert_msg(found_k && found_t, "kernel %d, transpose %d", found_k, found_t);
	ot_scan_result_free(&r);
	ot_arena_free(a);
}
END_TEST

START_TEST(scanner_impl_func_and_nested_invocations)
{
	ot_arena *a = ot_arena_new();
	ot_scan_result r;
	const ot_ix_macro *m;
	scan(&r, a,
	     "#define CMP(func)                                \\\n"
	     "  TORCH_IMPL_FUNC(func##_Tensor_out)             \\\n"
	     "  (const Tensor& self, const Tensor& result) {   \\\n"
	     "    func##_stub(device_type(), *this);           \\\n"
	     "  }\n"
	     "#define FUNCTOR(op_name, functor_name) struct functor_name {};\n"
	     "#define OP(function, op_name, functor_name) \\\n"
	     "  FUNCTOR(op_name, functor_name);           \\\n"
	     "  OTHER(function, op_name##_x, functor_name);\n"
	     "#define LIST(_) _(ne) _(eq, 1)\n"
	     "#define OBJECT_LIKE (a##b)\n"
	     "#define SPACED (x) void x##_f(int) {}\n"
	     "/*\n"
	     "#define COMMENTED(x) void x##_f(int) {}\n"
	     "*/\n"
	     "#define VARIADIC(name, ...) void name##_v(__VA_ARGS__) {}\n"
	     "#define SPREAD(a, b, c) INNER(a b c, x a y)\n");
	m = find_macro(&r, "CMP");
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->nitems, 1);
	ck_assert_int_eq(m->items[0].kind, OT_MITEM_IMPL);
	ck_assert_str_eq(tmpl(a, &m->items[0].name), "{0}_Tensor_out");

	/* FUNCTOR's body defines a struct, no function: not recorded */
	ck_assert_ptr_null(find_macro(&r, "FUNCTOR"));
	m = find_macro(&r, "OP");
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->nitems, 2);
	ck_assert_int_eq(m->items[0].kind, OT_MITEM_INVOKE);
	ck_assert_str_eq(tmpl(a, &m->items[0].name), "FUNCTOR");
	ck_assert_uint_eq(m->items[0].nargs, 2);
	ck_assert_str_eq(tmpl(a, &m->items[0].args[0]), "{1}");
	ck_assert_str_eq(tmpl(a, &m->items[0].args[1]), "{2}");
	ck_assert_str_eq(tmpl(a, &m->items[1].name), "OTHER");
	ck_assert_uint_eq(m->items[1].nargs, 3);
	ck_assert_str_eq(tmpl(a, &m->items[1].args[1]), "{1}_x");

	/* an X-macro list invokes its parameter */
	m = find_macro(&r, "LIST");
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->nitems, 2);
	ck_assert_str_eq(tmpl(a, &m->items[0].name), "{0}");
	ck_assert_str_eq(tmpl(a, &m->items[0].args[0]), "ne");
	ck_assert_uint_eq(m->items[1].nargs, 2);

	ck_assert_ptr_null(find_macro(&r, "OBJECT_LIKE"));
	ck_assert_ptr_null(find_macro(&r, "SPACED")); /* a space before '(': object-like */
	ck_assert_ptr_null(find_macro(&r, "COMMENTED"));
	m = find_macro(&r, "VARIADIC");
	ck_assert_ptr_nonnull(m);
	ck_assert(m->variadic);
	ck_assert_uint_eq(m->nparams, 1);
	ck_assert_str_eq(m->items[0].params, "(__VA_ARGS__)");
	/* parameters apart: a blank between each, every part kept */
	m = find_macro(&r, "SPREAD");
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->items[0].nargs, 2);
	ck_assert_str_eq(tmpl(a, &m->items[0].args[0]), "{0} {1} {2}");
	ck_assert_str_eq(tmpl(a, &m->items[0].args[1]), "x {0} y");
	ot_scan_result_free(&r);
	ot_arena_free(a);
}
END_TEST

START_TEST(scanner_invocations_keep_every_argument)
{
	ot_arena *a = ot_arena_new();
	ot_scan_result r;
	const ot_ix_minvoke *v;
	scan(&r, a,
	     "namespace at {\n"
	     "namespace native {\n"
	     "OP(floating_half_bfloat16, erfc, Erfc);\n"
	     "FOREACH_MAXIMUM_MINIMUM_OP(minimum, <)\n"
	     "FOREACH_BINARY_OP_LIST(\n"
	     "    all_types,\n"
	     "    add,  std::plus ,\n"
	     "    /* note */ false);\n"
	     "Tensor f(const Tensor& x) {\n"
	     "  INSIDE_A_BODY(x, y);\n"
	     "  return x;\n"
	     "}\n"
	     "} // namespace native\n"
	     "} // namespace at\n"
	     "AT_GLOBAL(x)\n");
	v = find_invoke(&r, "OP", 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(v->nargs, 3);
	ck_assert_str_eq(v->args[0], "floating_half_bfloat16");
	ck_assert_str_eq(v->args[1], "erfc");
	ck_assert_str_eq(v->args[2], "Erfc");
	ck_assert_str_eq(v->text, "OP(floating_half_bfloat16, erfc, Erfc)");
	ck_assert_str_eq(v->ns, "at::native");
	ck_assert_uint_eq(v->line, 3);

	/* "<" does not nest: two arguments */
	v = find_invoke(&r, "FOREACH_MAXIMUM_MINIMUM_OP", 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(v->nargs, 2);
	ck_assert_str_eq(v->args[1], "<");

	/* over several lines: the text shown is the macro's name (on the line) */
	v = find_invoke(&r, "FOREACH_BINARY_OP_LIST", 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(v->nargs, 4);
	ck_assert_str_eq(v->args[2], "std::plus");
	ck_assert_str_eq(v->args[3], "false");
	ck_assert_str_eq(v->text, "FOREACH_BINARY_OP_LIST");
	ck_assert_uint_eq(v->line, 5);

	ck_assert_ptr_null(find_invoke(&r, "INSIDE_A_BODY", 0));
	v = find_invoke(&r, "AT_GLOBAL", 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(v->ns, "");
	ot_scan_result_free(&r);
	ot_arena_free(a);
}
END_TEST

/* ---- index ----------------------------------------------------------------------------- */

static const char PASTE_H[] =
	"#pragma once\n"
	"#define DEFINE_UNARY(op)                          \\\n"
	"  Tensor op##_kernel_slow(const Tensor& self) {   \\\n"
	"    return self.op();                             \\\n"
	"  }                                               \\\n"
	"  Tensor& op##_kernel_slow_(Tensor& self) { return self.op##_(); }\n"
	"#define LIST(_) _(sin) _(cos)\n"
	"#define TWICE(a, b) DEFINE_UNARY(a) DEFINE_UNARY(b)\n"
	"#define IMPL_KERNEL(op) inline namespace CPU_CAPABILITY { \\\n"
	"  static void op##_kernel(TensorIteratorBase& iter) { loop(iter); } }\n"
	"#define IMPL_KERNEL_REG(op) IMPL_KERNEL(op) \\\n"
	"  ALSO_REGISTER_AVX512_DISPATCH(op##_stub, &CPU_CAPABILITY::op##_kernel)\n";

static const char USES_CPP[] =
	"#include <ATen/native/Paste.h>\n"            /* 1 */
	"namespace at {\n"                            /* 2 */
	"namespace native {\n"                        /* 3 */
	"DEFINE_UNARY(tan)\n"                         /* 4 */
	"TWICE(exp, log)\n"                           /* 5 */
	"LIST(DEFINE_UNARY)\n"                        /* 6 */
	"#define LOCAL(name, suffix) void name##_##suffix(int x) { }\n" /* 7 */
	"LOCAL(foo, bar)\n"                           /* 8 */
	"#undef LOCAL\n"                              /* 9 */
	"#define LOCAL(name, suffix) void suffix##_##name(int x) { }\n" /* 10 */
	"LOCAL(foo, bar)\n"                           /* 11 */
	"DEFINE_UNARY(one, two)\n"                    /* 12: wrong count */
	"DEFINE_UNARY(\n"                             /* 13 */
	"    abs)\n"                                  /* 14 */
	"IMPL_KERNEL_REG(erf)\n"                      /* 15 */
	"} // namespace native\n"
	"} // namespace at\n";

static const char NO_INCLUDE_CPP[] = "namespace at::native {\n"
				     "DEFINE_UNARY(sqrt)\n"
				     "}\n";

/* Arms of #if: the jiterator's `#else` is compiled in no build
 * (ATen/jit_macros.h defines AT_USE_JITERATOR() as true); one that also
 * reads CUDA_VERSION, or __CUDA_ARCH__, is another build's or pass's. */
static const char JIT_CU[] =
	"namespace at::native {\n"
	"void jit_kernel_cuda(TensorIteratorBase& iter) {\n"
	"#if AT_USE_JITERATOR()\n"
	"  jitted_gpu_kernel(iter, name_string);\n"
	"#else\n"
	"  gpu_kernel(iter, []GPU_LAMBDA(float a) { return a; });\n"
	"#endif\n"
	"#if AT_USE_JITERATOR() && CUDA_VERSION >= 11050\n"
	"  new_cuda_path(iter);\n"
	"#else\n"
	"  old_cuda_path(iter);\n"
	"#endif\n"
	"#if 0 && AT_USE_JITERATOR()\n"
	"  disabled_path(iter);\n"
	"#endif\n"
	"#ifdef __CUDA_ARCH__\n"
	"  device_pass_path(iter);\n"
	"#endif\n"
	"}\n"
	"}\n";

static ot_index *build_tree(const char *tag, int threads)
{
	char *dir = tu_tmpdir(tag);
	const char *files[][2] = {{"aten/src/ATen/native/Paste.h", PASTE_H},
				  {"aten/src/ATen/native/Uses.cpp", USES_CPP},
				  {"aten/src/ATen/native/cuda/NoInclude.cu", NO_INCLUDE_CPP},
				  {"aten/src/ATen/native/cuda/Jit.cu", JIT_CU}};
	ot_source_opts opts = {0};
	ot_source *src = NULL;
	ot_index *ix = NULL;
	ot_buf path = OT_BUF_INIT;

	for (size_t i = 0; i < OT_ARRAY_LEN(files); i++) {
		const char *argv[] = {"mkdir", "-p", NULL, NULL};
		ot_buf_clear(&path);
		ot_buf_printf(&path, "%s/%s", dir, files[i][0]);
		*strrchr(path.ptr, '/') = '\0';
		argv[2] = path.ptr;
		ck_assert_int_eq(tu_run(argv, NULL, NULL), 0);
		ot_buf_clear(&path);
		ot_buf_printf(&path, "%s/%s", dir, files[i][0]);
		tu_write_file(path.ptr, files[i][1], strlen(files[i][1]));
	}
	opts.path = dir;
	opts.allow_unverified = true;
	ck_assert_msg(ot_source_open(&src, &opts) == 0, "%s", ot_error_last());
	ck_assert_msg(ot_source_select(src, "1.0.0", NULL) == 0, "%s", ot_error_last());
	ck_assert_msg(ot_index_build(&ix, src, threads) == 0, "%s", ot_error_last());
	ot_source_free(src);
	ot_buf_free(&path);
	free(dir);
	return ix;
}

/* The one generated definition of `name`; checks that its line holds the
 * text it shows. */
static const ot_ix_cdef *generated(const ot_index *ix, const char *name)
{
	const ot_ix_cdef *found = NULL;
	for (const ot_ix_cdef *d = ot_index_cdefs(ix, name); d; d = d->next) {
		if (!d->gen)
			continue;
		ck_assert_msg(found == NULL, "%s is generated twice", name);
		found = d;
		ck_assert_msg(ot_index_line_has(ix, d->file, d->line, d->gen->site->text),
			      "%s: line %u does not hold '%s'", name, d->line, d->gen->site->text);
	}
	return found;
}

static const char *path_of(const ot_index *ix, uint32_t file)
{
	return ot_index_file(ix, file)->path;
}

START_TEST(index_expands_invocations)
{
	ot_index *ix = build_tree("macro-index", 2);
	const ot_ix_cdef *d;

	/* defined in the header, invoked in the file that includes it */
	d = generated(ix, "tan_kernel_slow");
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(path_of(ix, d->file), "aten/src/ATen/native/Uses.cpp");
	ck_assert_uint_eq(d->line, 4);
	ck_assert_int_eq(d->kind, OT_CDEF_FUNC);
	ck_assert_str_eq(d->ns, "at::native");
	ck_assert_str_eq(d->macro, "DEFINE_UNARY");
	ck_assert_str_eq(d->gen->site->text, "DEFINE_UNARY(tan)");
	ck_assert_str_eq(path_of(ix, d->gen->macro->file), "aten/src/ATen/native/Paste.h");
	ck_assert_uint_eq(d->gen->macro->line, 2);
	ck_assert_ptr_eq(d->gen->macro, d->gen->paster);
	ck_assert_ptr_null(d->gen->inner);
	ck_assert_str_eq(d->gen->params, "(const Tensor& self)");
	ck_assert_ptr_nonnull(generated(ix, "tan_kernel_slow_"));

	/* a macro that invokes another one */
	d = generated(ix, "log_kernel_slow_");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->line, 5);
	ck_assert_str_eq(d->gen->site->text, "TWICE(exp, log)");
	ck_assert_uint_eq(d->gen->macro->line, 8);
	ck_assert_uint_eq(d->gen->paster->line, 2);
	ck_assert_str_eq(d->gen->inner, "DEFINE_UNARY(log)");

	/* an X-macro list handed the macro to invoke */
	d = generated(ix, "cos_kernel_slow");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->line, 6);
	ck_assert_str_eq(d->gen->inner, "DEFINE_UNARY(cos)");
	ck_assert_uint_eq(d->gen->macro->line, 7);

	/* #undef and #define again: each invocation expands the definition
	 * before it */
	d = generated(ix, "foo_bar");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->line, 8);
	ck_assert_uint_eq(d->gen->macro->line, 7);
	d = generated(ix, "bar_foo");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->line, 11);
	ck_assert_uint_eq(d->gen->macro->line, 10);

	/* the wrong number of arguments expands nothing */
	ck_assert_ptr_null(generated(ix, "one_kernel_slow"));
	ck_assert_ptr_null(generated(ix, "one, two_kernel_slow"));

	/* over two lines: shown by the macro's name, on the first line */
	d = generated(ix, "abs_kernel_slow");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->line, 13);
	ck_assert_str_eq(d->gen->site->text, "DEFINE_UNARY");

	/* a file that does not include the header does not see its macro */
	ck_assert_ptr_null(ot_index_cdefs(ix, "sqrt_kernel_slow"));
	/* a definition in a namespace block of the macro, and the stub
	 * registration a macro it invokes writes with a pasted name */
	d = generated(ix, "erf_kernel");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->line, 15);
	{
		const ot_ix_stub *st = ot_index_stubs(ix, "erf_stub");
		ck_assert_ptr_nonnull(st);
		ck_assert_int_eq(st->kind, OT_STUB_REGISTER);
		ck_assert_str_eq(st->kernel, "erf_kernel");
		ck_assert_uint_eq(st->line, 15);
	}

	/* tan, exp, log, sin, cos, abs: two each; foo_bar, bar_foo, erf */
	ck_assert_uint_eq(ot_index_get_stats(ix)->generated, 15);
	ot_index_free(ix);
}
END_TEST

/* Is the call of `name` in `d` in an arm no build compiles? */
static bool dead_call(const ot_index *ix, const ot_ix_cdef *d, const char *name)
{
	for (uint32_t i = 0; i < d->ncalls; i++)
		if (!strcmp(d->calls[i].name, name))
			return ot_cond_pparm_never(ix, d->file, d->calls[i].pp);
	ck_abort_msg("no call of %s", name);
	return false;
}

START_TEST(index_arms_no_build_compiles)
{
	ot_index *ix = build_tree("macro-arms", 1);
	const ot_ix_cdef *d = ot_index_cdefs(ix, "jit_kernel_cuda");
	ck_assert_ptr_nonnull(d);
	ck_assert(!dead_call(ix, d, "jitted_gpu_kernel"));
	ck_assert(dead_call(ix, d, "gpu_kernel"));
	ck_assert(!dead_call(ix, d, "new_cuda_path"));
	ck_assert(!dead_call(ix, d, "old_cuda_path")); /* a build with CUDA < 11.5 */
	ck_assert(dead_call(ix, d, "disabled_path"));
	ck_assert(!dead_call(ix, d, "device_pass_path"));
	ot_index_free(ix);
}
END_TEST

START_TEST(index_expansion_is_deterministic)
{
	static const char *const names[] = {"tan_kernel_slow", "exp_kernel_slow_", "sin_kernel_slow",
					    "bar_foo", "abs_kernel_slow_"};
	ot_index *one = build_tree("macro-j1", 1), *four = build_tree("macro-j4", 4);
	for (size_t i = 0; i < OT_ARRAY_LEN(names); i++) {
		const ot_ix_cdef *a = generated(one, names[i]), *b = generated(four, names[i]);
		ck_assert_ptr_nonnull(a);
		ck_assert_ptr_nonnull(b);
		ck_assert_uint_eq(a->line, b->line);
		ck_assert_str_eq(path_of(one, a->file), path_of(four, b->file));
		ck_assert_str_eq(a->gen->site->text, b->gen->site->text);
	}
	ot_index_free(one);
	ot_index_free(four);
}
END_TEST

/* ---- a small preprocessor, for checking the real releases ---------------------------- */

struct pp_macro {
	const char *name;
	const char *params[64];
	size_t nparams;
	bool variadic;
	const char *body;
};

static bool ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Read the #define at 1-based `line` of `text` (continuations joined,
 * comments dropped). False when that line is no #define of `name`. */
static bool pp_read_define(struct pp_macro *m, ot_arena *arena, const char *text, long line,
			   const char *name)
{
	const char *s = text, *p;
	ot_buf b = OT_BUF_INIT;
	char *body, *q;
	for (long n = 1; n < line && s; n++)
		if ((s = strchr(s, '\n')))
			s++;
	if (!s)
		return false;
	/* the logical line */
	for (p = s; *p; p++) {
		if (*p == '\\' && p[1] == '\n') {
			p++;
			ot_buf_putc(&b, ' ');
			continue;
		}
		if (*p == '\n')
			break;
		if (*p == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			if (!e)
				break;
			p = e + 1;
			ot_buf_putc(&b, ' ');
			continue;
		}
		if (*p == '/' && p[1] == '/')
			break;
		ot_buf_putc(&b, *p);
	}
	body = ot_arena_strdup(arena, b.ptr ? b.ptr : "");
	ot_buf_free(&b);
	q = body + strspn(body, " \t");
	if (*q != '#')
		return false;
	q++;
	q += strspn(q, " \t");
	if (strncmp(q, "define", 6))
		return false;
	q += 6;
	q += strspn(q, " \t");
	if (strncmp(q, name, strlen(name)) || q[strlen(name)] != '(')
		return false;
	q += strlen(name) + 1;
	m->name = name;
	m->nparams = 0;
	m->variadic = false;
	while (*q && *q != ')') {
		q += strspn(q, " \t,");
		if (!strncmp(q, "...", 3)) {
			m->variadic = true;
			q += 3;
		} else if (ident_char(*q)) {
			const char *st = q;
			while (ident_char(*q))
				q++;
			m->params[m->nparams++] = ot_arena_strndup(arena, st, (size_t)(q - st));
		} else if (*q != ')') {
			q++;
		}
	}
	if (*q != ')')
		return false;
	m->body = q + 1;
	return true;
}

/* The arguments of an invocation whose '(' is at `open`: split at commas
 * outside parentheses, blanks trimmed. Returns the end (after ')'). */
static const char *pp_args(ot_arena *arena, const char *open, const char **args, size_t *nargs)
{
	int depth = 0;
	const char *start = open + 1, *p;
	*nargs = 0;
	for (p = open; *p; p++) {
		if (*p == '(') {
			depth++;
		} else if ((*p == ')' && --depth == 0) || (*p == ',' && depth == 1)) {
			const char *e = p;
			while (start < e && strchr(" \t\n", *start))
				start++;
			while (e > start && strchr(" \t\n", e[-1]))
				e--;
			args[(*nargs)++] = ot_arena_strndup(arena, start, (size_t)(e - start));
			start = p + 1;
			if (*p == ')')
				return p + 1;
		}
	}
	return NULL;
}

/* One macro's body with the arguments in place: parameters replaced,
 * `##` glues its neighbours, `#x` becomes a string. */
static void pp_substitute(ot_buf *out, const struct pp_macro *m, const char *const *args,
			  size_t nargs)
{
	const char *p = m->body;
	bool glue = false;
	while (*p) {
		if (*p == '#' && p[1] == '#') {
			while (out->size && out->ptr[out->size - 1] == ' ')
				out->size--;
			glue = true;
			p += 2;
			p += strspn(p, " \t");
			continue;
		}
		if (ident_char(*p)) {
			const char *st = p;
			const char *val = NULL;
			size_t n;
			while (ident_char(*p))
				p++;
			n = (size_t)(p - st);
			for (size_t k = 0; k < m->nparams; k++)
				if (strlen(m->params[k]) == n && !strncmp(m->params[k], st, n))
					val = k < nargs ? args[k] : "";
			if (m->variadic && n == 11 && !strncmp(st, "__VA_ARGS__", 11)) {
				for (size_t k = m->nparams; k < nargs; k++)
					ot_buf_printf(out, "%s%s", k > m->nparams ? ", " : "", args[k]);
			} else if (val) {
				ot_buf_puts(out, val);
			} else {
				ot_buf_put(out, st, n);
			}
			glue = false;
			continue;
		}
		if (*p == '#') {
			/* stringizing: its operand is not substituted */
			ot_buf_puts(out, "\"\"");
			p++;
			p += strspn(p, " \t");
			while (ident_char(*p))
				p++;
			continue;
		}
		if (!(glue && (*p == ' ' || *p == '\t')))
			ot_buf_putc(out, *p);
		p++;
	}
	ot_buf_putc(out, ' ');
}

/* Expand every invocation of a macro of `macros` in `in`, again and again. */
static char *pp_expand(ot_arena *arena, const char *in, const struct pp_macro *macros, size_t nm,
		       int depth)
{
	ot_buf out = OT_BUF_INIT;
	const char *p = in;
	char *res;
	ck_assert_msg(depth < 8, "macro expansion does not end");
	while (*p) {
		if (ident_char(*p) && (p == in || !ident_char(p[-1]))) {
			const char *st = p, *q;
			const struct pp_macro *m = NULL;
			while (ident_char(*p))
				p++;
			q = p + strspn(p, " \t\n");
			for (size_t k = 0; k < nm; k++)
				if (strlen(macros[k].name) == (size_t)(p - st) &&
				    !strncmp(macros[k].name, st, (size_t)(p - st)))
					m = &macros[k];
			if (m && *q == '(') {
				const char *args[64];
				size_t nargs;
				ot_buf sub = OT_BUF_INIT;
				const char *end = pp_args(arena, q, args, &nargs);
				ck_assert_ptr_nonnull(end);
				pp_substitute(&sub, m, args, nargs);
				ot_buf_puts(&out, pp_expand(arena, sub.ptr, macros, nm, depth + 1));
				ot_buf_free(&sub);
				p = end;
				continue;
			}
			ot_buf_put(&out, st, (size_t)(p - st));
			continue;
		}
		ot_buf_putc(&out, *p++);
	}
	res = ot_arena_strdup(arena, out.ptr ? out.ptr : "");
	ot_buf_free(&out);
	return res;
}

/* Does `text` hold `name(` or `TORCH_IMPL_FUNC(name)`, name a whole word
 * (blanks allowed around it)? */
static bool defines_call_form(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		const char *q = p + n, *b = p;
		if ((p > text && ident_char(p[-1])) || ident_char(*q))
			continue;
		q += strspn(q, " \t");
		if (*q == '(')
			return true;
		while (b > text && strchr(" \t", b[-1]))
			b--;
		if (*q == ')' && b - text >= 16 && !strncmp(b - 16, "TORCH_IMPL_FUNC(", 16))
			return true;
	}
	return false;
}

/* ---- real releases -------------------------------------------------------------------- */

struct source_cache {
	ot_map *files; /* "tag:path" -> text */
	ot_arena *arena;
};

static const char *source_text(struct source_cache *sc, const char *tag, const char *path)
{
	const char *spec = ot_arena_printf(sc->arena, "%s:%s", tag, path);
	ot_buf out = OT_BUF_INIT;
	char *text = ot_map_get(sc->files, spec);
	if (!text) {
		ck_assert_msg(tu_git_show(&out, tu_real_source(), tag, path), "git show %s failed", spec);
		text = ot_arena_strndup(sc->arena, out.ptr, out.size);
		ot_map_put(sc->files, spec, text);
		ot_buf_free(&out);
	}
	return text;
}

static const char *line_at(ot_arena *arena, const char *text, long line)
{
	const char *s = text;
	for (long n = 1; n < line && s; n++)
		if ((s = strchr(s, '\n')))
			s++;
	return s ? ot_arena_strndup(arena, s, strcspn(s, "\n")) : NULL;
}

/* One kernel that only a macro defines: the op, the dispatch key that names
 * it in native_functions.yaml, and its name. */
struct expect {
	const char *op, *key, *kernel, *family;
};

static const struct expect EXPECT_1_13_1[] = {
	{"_foreach_add_.List", "CPU", "foreach_tensor_add_list_kernel_slow_", "foreach CPU"},
	{"_foreach_add_.List", "CUDA", "foreach_tensor_add_list_kernel_cuda_", "foreach CUDA"},
	{"_foreach_erfc_", "CUDA", "foreach_tensor_erfc_cuda_", "foreach CUDA, nested macros"},
	{"_foreach_sqrt", "CPU", "foreach_tensor_sqrt_slow", "foreach CPU"},
	{"_foreach_minimum.List", "CUDA", "foreach_tensor_minimum_cuda", "foreach CUDA, '<' argument"},
	{"sinh.out", "SparseCPU", "sinh_sparse_out", "sparse"},
	{"isposinf.out", "SparseCPU", "isposinf_sparse_out", "sparse"},
	{"abs_", "SparseCPU", "abs_sparse_", "sparse"},
	{"sinh.out", "SparseCsrCPU", "sinh_sparse_csr_out", "sparse-csr"},
	{"rad2deg_", "SparseCsrCPU", "rad2deg_sparse_csr_", "sparse-csr"},
	{"conj_physical_", "SparseCsrCPU", "conj_physical_sparse_csr_", "sparse-csr"},
	{"lt.Scalar_out", "CPU", "lt_Scalar_out", "comparison (TORCH_IMPL_FUNC)"},
	{"gt.Scalar_out", "QuantizedCPU", "gt_out_quantized_cpu", "quantized (X-macro)"},
	{"_cast_Byte", "CompositeImplicitAutograd", "_cast_Byte", "c10 X-macro"},
	{"_sparse_csr_tensor_unsafe", "CompositeImplicitAutograd", "_sparse_csr_tensor_unsafe",
	 "sparse compressed"},
	{"abs.out", "MPS", "abs_out_mps", "MPS"},
};

static const struct expect EXPECT_2_6_0[] = {
	{"_foreach_add_.List", "CompositeExplicitAutograd", "foreach_tensor_add_list_kernel_slow_",
	 "foreach CPU"},
	{"_foreach_add_.List", "CUDA", "foreach_tensor_add_list_kernel_cuda_", "foreach CUDA"},
	{"_foreach_erfc_", "CUDA", "foreach_tensor_erfc_cuda_", "foreach CUDA, nested macros"},
	{"_foreach_sqrt", "CompositeExplicitAutograd", "foreach_tensor_sqrt_slow", "foreach CPU"},
	{"sinh.out", "SparseCPU", "sinh_sparse_out", "sparse"},
	{"isposinf.out", "SparseCPU", "isposinf_sparse_out", "sparse"},
	{"rad2deg_", "SparseCPU", "rad2deg_sparse_", "sparse"},
	{"deg2rad.out", "SparseCsrCPU", "deg2rad_sparse_csr_out", "sparse-csr"},
	{"conj_physical_", "SparseCsrCPU", "conj_physical_sparse_csr_", "sparse-csr"},
	{"logical_not", "NestedTensorCPU", "NestedTensor_logical_not", "nested"},
	{"lt.Scalar_out", "CPU", "lt_Scalar_out", "comparison (TORCH_IMPL_FUNC)"},
	{"gt.Scalar_out", "QuantizedCPU", "gt_out_quantized_cpu", "quantized (X-macro)"},
	{"_cast_Byte", "CompositeImplicitAutograd", "_cast_Byte", "c10 X-macro"},
	{"_sparse_csr_tensor_unsafe", "CompositeImplicitAutograd", "_sparse_csr_tensor_unsafe",
	 "sparse compressed"},
};

/* Run the real binary at `release` on the ops list `list` (NULL: --all),
 * JSON only, into `dir`; returns trace.json's ops (in `arena`). */
static const ot_value *run_trace(ot_arena *arena, const char *dir, const char *release,
				 const char *list)
{
	char *out = tu_path(dir, "out"), *listpath = tu_path(dir, "ops.list");
	const ot_value *ops;
	if (list)
		tu_write_file(listpath, list, strlen(list));
	ops = ot_v_get(tu_run_trace(arena, out, release,
				    (const char *[]){list ? listpath : "--all", NULL}, NULL),
		       "ops");
	free(out);
	free(listpath);
	return ops;
}

/* The op's entry in native_functions.yaml at the tag names `kernel` for
 * `key` (on a "KEY: kernel" or "KEY, KEY2: kernel" line of its dispatch). */
/* The entry of `op` ("lt.Scalar_out") in native_functions.yaml at the tag,
 * from its "\n- func:" to the next one (*end, NULL at the end of the file). */
static const char *yaml_entry(struct source_cache *sc, const char *tag, const char *op,
			      const char **end)
{
	const char *yaml = source_text(sc, tag, "aten/src/ATen/native/native_functions.yaml");
	const char *p = strstr(yaml, ot_arena_printf(sc->arena, "\n- func: %s(", op));
	ck_assert_msg(p != NULL, "%s: no entry for %s in native_functions.yaml", tag, op);
	*end = strstr(p + 1, "\n- func:");
	return p;
}

static void check_registry_names(struct source_cache *sc, const char *tag, const struct expect *e)
{
	const char *end, *p = yaml_entry(sc, tag, e->op, &end);
	bool named = false;
	if (!memmem(p, end ? (size_t)(end - p) : strlen(p), "dispatch:", 9)) {
		/* no dispatch section: CompositeImplicitAutograd, the kernel named
		 * after the op */
		ck_assert_msg(!strcmp(e->key, "CompositeImplicitAutograd") &&
				      !strncmp(e->op, e->kernel, strcspn(e->op, ".")) &&
				      strlen(e->kernel) == strcspn(e->op, "."),
			      "%s: %s has no dispatch section: %s is not its kernel", tag, e->op, e->kernel);
		return;
	}
	for (const char *l = strchr(p + 1, '\n'); l && (!end || l < end); l = strchr(l + 1, '\n')) {
		size_t n = strcspn(l + 1, "\n");
		const char *line = ot_arena_strndup(sc->arena, l + 1, n), *colon = strrchr(line, ':');
		if (colon && strstr(line, e->key) && strstr(line, e->key) < colon &&
		    strstr(colon, e->kernel))
			named = true;
	}
	ck_assert_msg(named, "%s: %s's entry does not name %s for %s", tag, e->op, e->kernel, e->key);
}

/* Is `key` one of the comma-separated keys in [s, e)? */
static bool keys_have(const char *s, const char *e, const char *key)
{
	size_t n = strlen(key);
	while (s < e) {
		size_t len = strcspn(s, ",");
		if (s + len > e)
			len = (size_t)(e - s);
		if (len == n && !strncmp(s, key, n))
			return true;
		s += len;
		s += strspn(s, ", ");
	}
	return false;
}

/* "generated by the macro M(args) defined at P:L[, through N(args) defined at P:L]" */
struct origin {
	const char *macro, *path, *inner, *inner_path;
	long line, inner_line;
};

static bool parse_origin(struct origin *o, ot_arena *arena, const char *note)
{
	const char *p = strstr(note, "generated by the macro "), *q, *at;
	memset(o, 0, sizeof(*o));
	if (!p)
		return false;
	p += strlen("generated by the macro ");
	o->macro = ot_arena_strndup(arena, p, strcspn(p, "("));
	at = strstr(p, ") defined at ");
	if (!at)
		return false;
	at += strlen(") defined at ");
	q = strchr(at, ':');
	o->path = ot_arena_strndup(arena, at, (size_t)(q - at));
	o->line = strtol(q + 1, NULL, 10);
	if ((p = strstr(q, ", through "))) {
		p += strlen(", through ");
		o->inner = ot_arena_strndup(arena, p, strcspn(p, "("));
		at = strstr(p, ") defined at ");
		if (!at)
			return false;
		at += strlen(") defined at ");
		q = strchr(at, ':');
		o->inner_path = ot_arena_strndup(arena, at, (size_t)(q - at));
		o->inner_line = strtol(q + 1, NULL, 10);
	}
	return true;
}

static void check_release(const char *release, const struct expect *expect, size_t n)
{
	char *dir = tu_tmpdir("macro-release");
	const char *tag = NULL;
	ot_buf list = OT_BUF_INIT;
	struct source_cache sc = {ot_map_new(), ot_arena_new()};
	ot_arena *arena = sc.arena;
	ot_map *by_input = ot_map_new();
	const ot_value *ops;
	size_t nops = 0;

	tag = ot_arena_printf(arena, "v%s", release);
	for (size_t i = 0; i < n; i++) {
		const char *in = ot_arena_printf(arena, "aten::%s", expect[i].op);
		if (!ot_map_get(by_input, in)) {
			/* !full: traced also when the op is on the well-known list */
			ot_buf_printf(&list, "%s !full\n", in);
			ot_map_put(by_input, in, (void *)1);
			nops++;
		}
	}
	ck_assert_uint_ge(nops, 12);
	ops = run_trace(arena, dir, release, list.ptr);
	for (size_t i = 0; i < ot_v_len(ops); i++)
		ot_map_put(by_input, ot_v_cstr(ot_v_get(ot_v_at(ops, i), "input")), ot_v_at(ops, i));

	for (size_t i = 0; i < n; i++) {
		const struct expect *e = &expect[i];
		const ot_value *op = ot_map_get(by_input, ot_arena_printf(arena, "aten::%s", e->op));
		const ot_value *steps = ot_v_get(op, "steps"), *hit = NULL;
		struct origin o;
		struct pp_macro macros[2];
		size_t nm = 1, nargs;
		const char *src, *line, *inv, *args[64], *site_text, *expanded;
		long at;

		check_registry_names(&sc, tag, e);
		/* "C++ implementation for KEY, KEY2, generated by the macro ..." */
		for (size_t s = 0; s < ot_v_len(steps) && !hit; s++) {
			const ot_value *st = ot_v_at(steps, s);
			const char *note = ot_v_cstr(ot_v_get(st, "note"));
			const char *layer = ot_v_cstr(ot_v_get(st, "layer"));
			const char *keys = strstr(note, " for "), *gen = strstr(note, ", generated by the macro");
			if (ot_v_get(st, "depth")->u.i != 0 || !ot_v_cstr(ot_v_get(st, "file")) ||
			    (strcmp(layer, "cpp") && strcmp(layer, "kernel")) || !keys || !gen || gen < keys)
				continue;
			if (keys_have(keys + 5, gen, e->key))
				hit = st;
		}
		ck_assert_msg(hit != NULL, "%s %s: no step for %s (%s, %s)", release, e->op, e->kernel,
			      e->key, e->family);
		ck_assert_msg(parse_origin(&o, arena, ot_v_cstr(ot_v_get(hit, "note"))),
			      "%s %s: note without its macro: %s", release, e->op,
			      ot_v_cstr(ot_v_get(hit, "note")));

		/* the step's line holds its symbol and the invocation */
		at = (long)ot_v_get(hit, "line")->u.i;
		src = source_text(&sc, tag, ot_v_cstr(ot_v_get(hit, "file")));
		line = line_at(arena, src, at);
		site_text = ot_v_cstr(ot_v_get(hit, "symbol"));
		ck_assert_msg(line && strstr(line, site_text), "%s %s: %s:%ld does not hold '%s'", release,
			      e->op, ot_v_cstr(ot_v_get(hit, "file")), at, site_text);
		inv = strstr(line, o.macro);
		ck_assert_msg(inv != NULL, "%s %s: %s:%ld does not invoke %s", release, e->op,
			      ot_v_cstr(ot_v_get(hit, "file")), at, o.macro);
		/* the invocation as written, from the source (it may go on below) */
		{
			const char *ls = src;
			for (long k = 1; k < at; k++)
				ls = strchr(ls, '\n') + 1;
			inv = ls + (inv - line) + strlen(o.macro);
			inv += strspn(inv, " \t\n");
			ck_assert_msg(*inv == '(', "%s %s: %s is not invoked at %ld", release, e->op, o.macro,
				      at);
			ck_assert_ptr_nonnull(pp_args(arena, inv, args, &nargs));
		}
		/* the macro definitions the note points to */
		ck_assert_msg(pp_read_define(&macros[0], arena, source_text(&sc, tag, o.path), o.line,
					     o.macro),
			      "%s %s: %s:%ld is not '#define %s('", release, e->op, o.path, o.line, o.macro);
		if (o.inner) {
			ck_assert_msg(pp_read_define(&macros[1], arena, source_text(&sc, tag, o.inner_path),
						     o.inner_line, o.inner),
				      "%s %s: %s:%ld is not '#define %s('", release, e->op, o.inner_path,
				      o.inner_line, o.inner);
			nm = 2;
		}
		/* the kernel is what the invocation expands to, and on no line */
		{
			ot_buf call = OT_BUF_INIT;
			ot_buf_printf(&call, "%s(", o.macro);
			for (size_t k = 0; k < nargs; k++)
				ot_buf_printf(&call, "%s%s", k ? ", " : "", args[k]);
			ot_buf_putc(&call, ')');
			expanded = pp_expand(arena, call.ptr, macros, nm, 0);
			ck_assert_msg(defines_call_form(expanded, e->kernel),
				      "%s %s: %s does not expand to %s(...): %s", release, e->op, call.ptr,
				      e->kernel, expanded);
			ck_assert_msg(!defines_call_form(line, e->kernel), "%s %s: %s is written on the line",
				      release, e->op, e->kernel);
			printf("%s %-28s %-14s %s:%ld %s -> %s (%s)\n", release, e->op, e->key,
			       ot_v_cstr(ot_v_get(hit, "file")), at, call.ptr, e->kernel, e->family);
			ot_buf_free(&call);
		}
	}
	fflush(stdout);
	ot_map_free(by_input);
	ot_map_free(sc.files);
	ot_arena_free(arena);
	ot_buf_free(&list);
	free(dir);
}

START_TEST(release_1_13_1)
{
	check_release("1.13.1", EXPECT_1_13_1, OT_ARRAY_LEN(EXPECT_1_13_1));
}
END_TEST

START_TEST(release_2_6_0)
{
	check_release("2.6.0", EXPECT_2_6_0, OT_ARRAY_LEN(EXPECT_2_6_0));
}
END_TEST

/* Over --all, the families a macro defines are found: no depth-0 C++ step
 * of them is left "not found". Prints what is left (torchgen's generated
 * *_copy ops have no hand-written definition). */
static void check_all(const char *release)
{
	char *dir = tu_tmpdir("macro-all");
	ot_buf left = OT_BUF_INIT;
	struct source_cache sc = {ot_map_new(), ot_arena_new()};
	ot_arena *arena = sc.arena;
	const char *tag = ot_arena_printf(arena, "v%s", release);
	static const char *const prefixes[] = {"foreach_tensor_", "NestedTensor_", "_cast_"};
	static const char *const suffixes[] = {"_sparse",        "_sparse_",     "_sparse_out",
					       "_sparse_csr",    "_sparse_csr_", "_sparse_csr_out",
					       "_quantized_cpu", "_Scalar_out",  "_Tensor_out",
					       "_tensor_unsafe"};
	const ot_value *ops;
	size_t notfound = 0, family_left = 0, torchgen = 0;

	ops = run_trace(arena, dir, release, NULL);
	for (size_t i = 0; i < ot_v_len(ops); i++) {
		const ot_value *steps = ot_v_get(ot_v_at(ops, i), "steps");
		for (size_t s = 0; s < ot_v_len(steps); s++) {
			const ot_value *st = ot_v_at(steps, s);
			const char *note = ot_v_cstr(ot_v_get(st, "note"));
			const char *file = ot_v_cstr(ot_v_get(st, "file"));
			if (!ot_v_get(st, "depth")->u.i && !strcmp(ot_v_cstr(ot_v_get(st, "layer")), "cpp") &&
			    file && !strcmp(file, "torchgen/gen.py")) {
				/* a kernel torchgen writes at build time: a documented
				 * build output, shown where torchgen writes it, for an
				 * op whose entry is tagged view_copy */
				const char *op = ot_v_cstr(ot_v_get(st, "op")), *end;
				const char *p = yaml_entry(&sc, tag, op, &end);
				const char *tags = strstr(p, "\n  tags:");
				const char *line = tags && (!end || tags < end)
							   ? ot_arena_strndup(arena, tags + 1,
									      strcspn(tags + 1, "\n"))
							   : "";
				ck_assert_msg(strstr(line, "view_copy") != NULL,
					      "%s: %s is said to be generated by torchgen, but its entry "
					      "is not tagged view_copy",
					      release, op);
				ck_assert_msg(strstr(note, "CompositeViewCopyKernels.cpp (a build output"), "%s",
					      note);
				torchgen++;
				continue;
			}
			if (ot_v_get(st, "depth")->u.i || strcmp(ot_v_cstr(ot_v_get(st, "layer")), "cpp") ||
			    file || !ot_starts_with(note, "not found: C++ function"))
				continue;
			notfound++;
			{
				/* the function's name, between backquotes */
				const char *b = strchr(note, '`') + 1;
				const char *name = ot_arena_strndup(arena, b, strcspn(b, "`"));
				bool family = false;
				for (size_t f = 0; f < OT_ARRAY_LEN(prefixes); f++)
					family = family || ot_starts_with(name, prefixes[f]);
				for (size_t f = 0; f < OT_ARRAY_LEN(suffixes); f++)
					family = family || ot_ends_with(name, suffixes[f]);
				if (family && family_left++ < 20)
					ot_buf_printf(&left, "  %s\n", note);
			}
			/* a documented build output is not a miss */
			ck_assert_msg(!strstr(note, "torchgen"), "%s: a build output counted as missing: %s",
				      release, note);
		}
	}
	printf("%s --all: %zu depth-0 C++ steps not found, %zu of them of a macro family; %zu "
	       "view_copy kernels torchgen writes (found)\n",
	       release, notfound, family_left, torchgen);
	ck_assert_msg(family_left == 0, "%s: %zu kernels of the macro families not found:\n%s",
		      release, family_left, left.ptr);
	ck_assert_msg(torchgen > 0, "%s: no view_copy kernel shown where torchgen writes it", release);
	ot_map_free(sc.files);
	ot_arena_free(arena);
	ot_buf_free(&left);
	free(dir);
}

START_TEST(all_1_13_1)
{
	check_all("1.13.1");
}
END_TEST

START_TEST(all_2_6_0)
{
	check_all("2.6.0");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("macro");
	TCase *scanner = tcase_create("scanner");
	TCase *index = tcase_create("index");
	TCase *release = tcase_create("release");

	tcase_add_test(scanner, scanner_pasted_function_names);
	tcase_add_test(scanner, scanner_bodies_that_always_raise);
	tcase_add_test(scanner, scanner_ternary_condition_stops_at_a_block);
	tcase_add_test(scanner, scanner_else_if_condition_runs_after_earlier_arms);
	tcase_add_test(scanner, scanner_check_condition_runs_message_validates);
	tcase_add_test(scanner, scanner_unary_minus_and_long_template_arguments);
	tcase_add_test(scanner, scanner_case_after_returning_if_chain);
	tcase_add_test(scanner, scanner_enumerator_values);
	tcase_add_test(scanner, scanner_literal_if_elif_else_chains);
	tcase_add_test(scanner, scanner_macro_statement_before_namespace);
	tcase_add_test(scanner, scanner_impl_func_and_nested_invocations);
	tcase_add_test(scanner, scanner_invocations_keep_every_argument);
	suite_add_tcase(s, scanner);

	tcase_set_timeout(index, 60);
	tcase_add_test(index, index_expands_invocations);
	tcase_add_test(index, index_expansion_is_deterministic);
	tcase_add_test(index, index_arms_no_build_compiles);
	suite_add_tcase(s, index);

	tcase_set_timeout(release, 300);
	tcase_add_test(release, release_1_13_1);
	tcase_add_test(release, release_2_6_0);
	tcase_add_test(release, all_1_13_1);
	tcase_add_test(release, all_2_6_0);
	suite_add_tcase(s, release);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
