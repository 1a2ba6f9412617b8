/*
 * Tests of the well-known ops reference: the real templates/wellknown.yaml
 * (every SPEC §2 op, every input form, the facts SPEC requires), the
 * loader's error messages on small hand-written documents, and the `aten:`
 * names against native_functions.yaml of the real releases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "embedded.h"
#include "testutil.h"
#include "value.h"
#include "wellknown.h"

#define REAL_YAML "templates/wellknown.yaml"

static ot_wellknown *load_text(const char *text)
{
	ot_wellknown *wk = NULL;
	int rc = ot_wellknown_load(&wk, text, strlen(text), "t.yaml");
	ck_assert_msg(rc == 0, "load failed: %s", ot_error_last());
	ck_assert_ptr_nonnull(wk);
	return wk;
}

static ot_wellknown *load_real(void)
{
	size_t len;
	char *text = tu_read_file(REAL_YAML, &len);
	ot_wellknown *wk = NULL;
	int rc = ot_wellknown_load(&wk, text, len, REAL_YAML);
	ck_assert_msg(rc == 0, "%s does not load: %s", REAL_YAML, ot_error_last());
	free(text);
	return wk;
}

/* Loading `text` must fail with exactly `message`. */
static void expect_error(const char *text, const char *message)
{
	ot_wellknown *wk = (ot_wellknown *)1;
	int rc = ot_wellknown_load(&wk, text, strlen(text), "t.yaml");
	ck_assert_int_lt(rc, 0);
	ck_assert_ptr_null(wk);
	ck_assert_msg(tu_match(message, ot_error_last()), "'%s' does not match '%s'", ot_error_last(),
		      message);
}

static const char *str_at(const ot_value *map, const char *key)
{
	const ot_value *v = ot_v_get(map, key);
	ck_assert_msg(v && v->type == OT_V_STR, "'%s' is not a string", key);
	return ot_v_cstr(v);
}

static bool contains(const char *hay, const char *needle)
{
	return strcasestr(hay, needle) != NULL;
}

/* True when some string of list `key` contains `needle` (case-insensitive). */
static bool list_contains(const ot_value *map, const char *key, const char *needle)
{
	const ot_value *list = ot_v_get(map, key);
	size_t i;
	ck_assert_msg(list && list->type == OT_V_LIST, "'%s' is not a list", key);
	for (i = 0; i < ot_v_len(list); i++)
		if (contains(ot_v_cstr(ot_v_at(list, i)), needle))
			return true;
	return false;
}

static bool all_contains(const ot_value *map, const char *needle)
{
	static const char *const text_keys[] = {"summary", "kind", "gpu", "backward"};
	size_t i;
	for (i = 0; i < OT_ARRAY_LEN(text_keys); i++)
		if (contains(str_at(map, text_keys[i]), needle))
			return true;
	return list_contains(map, "facts", needle) || list_contains(map, "group_facts", needle);
}

static const ot_value *data_of(const ot_wellknown *wk, const char *input)
{
	ot_wellknown_match m;
	ck_assert_msg(ot_wellknown_lookup(&m, wk, input), "'%s' does not match", input);
	return m.data;
}

/* ---- the real reference ------------------------------------------------------ */

struct spec_op {
	const char *name;
	const char *group;
};

/* Every op SPEC §2 names, with its group. */
static const struct spec_op spec_ops[] = {
	{"zeros", "creation"},       {"ones", "creation"},        {"full", "creation"},
	{"zeros_like", "creation"},  {"ones_like", "creation"},   {"full_like", "creation"},
	{"empty_like", "creation"},  {"rand_like", "creation"},   {"randn_like", "creation"},
	{"randint_like", "creation"}, {"empty", "creation"},      {"randn", "creation"},
	{"rand", "creation"},        {"randint", "creation"},     {"normal", "creation"},
	{"arange", "creation"},      {"linspace", "creation"},    {"logspace", "creation"},
	{"eye", "creation"},         {"tensor", "creation"},      {"as_tensor", "creation"},
	{"from_numpy", "creation"},

	{"view", "shape"},      {"reshape", "shape"}, {"permute", "shape"},
	{"transpose", "shape"}, {"t", "shape"},       {"contiguous", "shape"},
	{"unsqueeze", "shape"}, {"squeeze", "shape"}, {"expand", "shape"},
	{"repeat", "shape"},    {"cat", "shape"},     {"stack", "shape"},
	{"split", "shape"},     {"chunk", "shape"},   {"flatten", "shape"},

	{"to", "dtype-device"},   {"cuda", "dtype-device"}, {"cpu", "dtype-device"},
	{"half", "dtype-device"}, {"float", "dtype-device"}, {"int", "dtype-device"},
	{"clone", "dtype-device"}, {"detach", "dtype-device"},

	{"__getitem__", "indexing"}, {"index", "indexing"}, {"gather", "indexing"},
	{"scatter", "indexing"},     {"index_select", "indexing"},

	{"add", "math"},     {"sub", "math"},   {"mul", "math"},   {"div", "math"},
	{"pow", "math"},     {"matmul", "math"}, {"mm", "math"},   {"bmm", "math"},
	{"__matmul__", "math"}, {"abs", "math"}, {"neg", "math"},  {"exp", "math"},
	{"log", "math"},     {"sqrt", "math"},  {"sin", "math"},   {"cos", "math"},
	{"tan", "math"},     {"sigmoid", "math"}, {"tanh", "math"}, {"exp2", "math"},
	{"log1p", "math"},   {"expm1", "math"}, {"rsqrt", "math"}, {"ceil", "math"},
	{"floor", "math"},   {"round", "math"}, {"trunc", "math"}, {"sign", "math"},
	{"reciprocal", "math"}, {"erf", "math"}, {"clamp", "math"}, {"relu", "math"},

	{"eq", "comparison"}, {"ne", "comparison"}, {"lt", "comparison"},
	{"gt", "comparison"}, {"le", "comparison"}, {"ge", "comparison"},

	{"sum", "reduction"},    {"mean", "reduction"},   {"prod", "reduction"},
	{"max", "reduction"},    {"min", "reduction"},    {"argmax", "reduction"},
	{"argmin", "reduction"}, {"var", "reduction"},    {"std", "reduction"},
	{"norm", "reduction"},   {"linalg.norm", "reduction"},
};

START_TEST(real_every_spec_op_resolves_to_its_own_entry)
{
	ot_wellknown *wk = load_real();
	size_t i;
	for (i = 0; i < OT_ARRAY_LEN(spec_ops); i++) {
		ot_wellknown_match m;
		ck_assert_msg(ot_wellknown_lookup(&m, wk, spec_ops[i].name), "%s: no entry",
			      spec_ops[i].name);
		ck_assert_str_eq(m.name, spec_ops[i].name);
		ck_assert_str_eq(m.group, spec_ops[i].group);
		ck_assert_str_eq(str_at(m.data, "group"), spec_ops[i].group);
		ck_assert_str_eq(str_at(m.data, "name"), spec_ops[i].name);
		ck_assert(!m.inplace);
	}
	ot_wellknown_free(wk);
}
END_TEST

/* Every listed name: the data map has every documented key, well typed. */
START_TEST(real_every_entry_is_well_formed)
{
	static const char *const text_keys[] = {"name", "base", "group", "group_title",
						"group_summary", "summary", "kind", "gpu",
						"backward"};
	static const char *const list_keys[] = {"group_facts", "facts", "aten_releases",
						"files", "aliases", "inplace_facts"};
	ot_wellknown *wk = load_real();
	size_t i, j, n = ot_wellknown_count(wk);

	ck_assert_uint_ge(n, OT_ARRAY_LEN(spec_ops));
	for (i = 0; i < n; i++) {
		const char *name = ot_wellknown_name_at(wk, i);
		ot_wellknown_match m;
		const ot_value *aten, *note;
		ck_assert_msg(ot_wellknown_lookup(&m, wk, name), "%s does not resolve", name);
		ck_assert_int_eq(m.data->type, OT_V_MAP);
		for (j = 0; j < OT_ARRAY_LEN(text_keys); j++)
			ck_assert_msg(*str_at(m.data, text_keys[j]), "%s: empty %s", name,
				      text_keys[j]);
		for (j = 0; j < OT_ARRAY_LEN(list_keys); j++) {
			const ot_value *l = ot_v_get(m.data, list_keys[j]);
			size_t k;
			ck_assert_msg(l && l->type == OT_V_LIST, "%s: %s", name, list_keys[j]);
			for (k = 0; k < ot_v_len(l); k++)
				ck_assert(ot_v_cstr(ot_v_at(l, k)) && *ot_v_cstr(ot_v_at(l, k)));
		}
		ck_assert_uint_gt(ot_v_len(ot_v_get(m.data, "group_facts")), 0);
		ck_assert_int_eq(ot_v_get(m.data, "pattern")->type, OT_V_BOOL);
		ck_assert_int_eq(ot_v_get(m.data, "inplace")->type, OT_V_BOOL);
		ck_assert(!ot_v_get(m.data, "pattern")->u.b);
		ck_assert_str_eq(m.group_title, str_at(m.data, "group_title"));
		aten = ot_v_get(m.data, "aten");
		note = ot_v_get(m.data, "aten_note");
		ck_assert_ptr_nonnull(aten);
		ck_assert_ptr_nonnull(note);
		if (m.aten)
			ck_assert_str_eq(ot_v_cstr(aten), m.aten);
		else
			ck_assert_msg(aten->type == OT_V_NULL && note->type == OT_V_STR,
				      "%s: no aten and no aten_note", name);
	}
	ot_wellknown_free(wk);
}
END_TEST

START_TEST(real_names_are_sorted_unique_and_exclude_patterns)
{
	ot_wellknown *wk = load_real();
	size_t i, n = ot_wellknown_count(wk);
	bool has_at = false;
	for (i = 0; i < n; i++) {
		const char *name = ot_wellknown_name_at(wk, i);
		if (i > 0)
			ck_assert_msg(strcmp(ot_wellknown_name_at(wk, i - 1), name) < 0,
				      "%s / %s out of order", ot_wellknown_name_at(wk, i - 1),
				      name);
		ck_assert_str_ne(name, "_");
		ck_assert_str_ne(name, "_like");
		has_at |= !strcmp(name, "@");
	}
	ck_assert(has_at);
	ot_wellknown_free(wk);
}
END_TEST

struct form {
	const char *input;
	const char *name; /* NULL: must not match */
	const char *aten; /* NULL: no aten entry */
	bool inplace;
};

static const struct form forms[] = {
	{"torch.zeros", "zeros", "zeros", false},
	{"zeros", "zeros", "zeros", false},
	{"  torch.sum\t", "sum", "sum", false},
	{"F.relu", "relu", "relu", false},
	{"torch.nn.functional.relu", "relu", "relu", false},
	{"torch.relu", "relu", "relu", false},
	{"Tensor.view", "view", "view", false},
	{"torch.Tensor.view", "view", "view", false},
	{"aten::add", "add", "add", false},
	{"aten::add.Tensor", "add", "add", false},
	{"aten::add.out", "add", "add", false},
	{"torch.ops.aten.add", "add", "add", false},
	{"torch.ops.aten.add.Tensor", "add", "add", false},
	{"torch.ops.aten.add.default", "add", "add", false},
	{"aten::zeros_like.out", "zeros_like", "zeros_like", false},
	{"add_", "add_", "add_", true},
	{"Tensor.add_", "add_", "add_", true},
	{"torch.Tensor.add_", "add_", "add_", true},
	{"aten::add_.Tensor", "add_", "add_", true},
	{"Tensor.relu_", "relu_", "relu_", true},
	{"F.relu_", "relu_", "relu_", true},
	{"Tensor.t_", "t_", "t_", true},
	{"Tensor.normal_", "normal_", "normal_", true},
	{"zero_", "zero_", "zero_", true},
	{"Tensor.fill_", "fill_", "fill_", true},
	{"Tensor.copy_", "copy_", "copy_", true},
	{"Tensor.uniform_", "_", NULL, true},
	{"Tensor.index_put_", "_", NULL, true},
	{"zeros_", "_", NULL, true},   /* zeros has no in-place twin */
	{"view_", "_", NULL, true},
	{"torch.linalg.norm", "linalg.norm", "linalg_norm", false},
	{"linalg.norm", "linalg.norm", "linalg_norm", false},
	{"aten::linalg_norm", "linalg.norm", "linalg_norm", false},
	{"torch.ops.aten.linalg_norm.out", "linalg.norm", "linalg_norm", false},
	{"torch.norm", "norm", "norm", false},
	{"Tensor.norm", "norm", "norm", false},
	{"torch.matmul", "matmul", "matmul", false},
	{"aten::matmul", "matmul", "matmul", false},
	{"@", "__matmul__", "matmul", false},
	{"Tensor.__matmul__", "__matmul__", "matmul", false},
	{"torch.Tensor.__getitem__", "__getitem__", NULL, false},
	{"Tensor.__setitem__", "__setitem__", NULL, false},
	{"aten::index.Tensor", "index", "index", false},
	{"torch.tensor", "tensor", NULL, false},
	{"torch.from_numpy", "from_numpy", NULL, false},
	{"Tensor.int", "int", NULL, false},
	{"Tensor.cuda", "cuda", NULL, false},
	{"torch.zeros_like", "zeros_like", "zeros_like", false},
	{"torch.empty_strided_like", "_like", NULL, false},
	{"Tensor.new_like", "_like", NULL, false},
	{"torch.eq", "eq", "eq", false},
	{"Tensor.ge_", "ge_", "ge_", true},

	{"nn.ReLU", NULL, NULL, false},
	{"torch.nn.ReLU", NULL, NULL, false},
	{"torch.nn.Linear", NULL, NULL, false},
	{"nn.relu", NULL, NULL, false},
	{"torch.nn.relu", NULL, NULL, false},
	{"nn.functional.relu", NULL, NULL, false},
	{"F.cross_entropy", NULL, NULL, false},
	{"torch.nn.functional.cross_entropy", NULL, NULL, false},
	{"F.linear", NULL, NULL, false},
	{"torch.special.erf", NULL, NULL, false},
	{"torch.fft.fft", NULL, NULL, false},
	{"torch.add.Tensor", NULL, NULL, false}, /* overloads only on aten names */
	{"ZEROS", NULL, NULL, false},
	{"Tensor.__foo__", NULL, NULL, false},
	{"__", NULL, NULL, false},
	{"_", NULL, NULL, false},
	{"_like", NULL, NULL, false},
	{"torch.", NULL, NULL, false},
	{"aten::", NULL, NULL, false},
	{"", NULL, NULL, false},
	{"   ", NULL, NULL, false},
	{"addmm", NULL, NULL, false},
};

START_TEST(real_input_forms)
{
	ot_wellknown *wk = load_real();
	ot_wellknown_match m;
	const struct form *f = &forms[_i];
	bool hit = ot_wellknown_lookup(&m, wk, f->input);

	if (!f->name) {
		ck_assert_msg(!hit, "'%s' must not match (matched %s)", f->input,
			      hit ? m.name : "");
		ot_wellknown_free(wk);
		return;
	}
	ck_assert_msg(hit, "'%s' does not match", f->input);
	ck_assert_str_eq(m.name, f->name);
	ck_assert_str_eq(str_at(m.data, "name"), f->name);
	if (f->aten) {
		ck_assert_ptr_nonnull(m.aten);
		ck_assert_str_eq(m.aten, f->aten);
	} else {
		ck_assert_ptr_null(m.aten);
		ck_assert_int_eq(ot_v_get(m.data, "aten")->type, OT_V_NULL);
	}
	ck_assert_int_eq(m.inplace, f->inplace);
	ck_assert_int_eq(ot_v_get(m.data, "inplace")->u.b, f->inplace);
	ot_wellknown_free(wk);
}
END_TEST

/* The gradient formulas SPEC §2 gives, as written there. */
START_TEST(real_gradient_formulas)
{
	ot_wellknown *wk = load_real();
	const char *add = str_at(data_of(wk, "add"), "backward");
	const char *mul = str_at(data_of(wk, "mul"), "backward");
	const char *div = str_at(data_of(wk, "div"), "backward");
	const char *pow = str_at(data_of(wk, "pow"), "backward");

	ck_assert_ptr_nonnull(strstr(add, "grad_a = grad,"));
	ck_assert_ptr_nonnull(strstr(add, "grad_b = grad"));
	ck_assert_ptr_nonnull(strstr(mul, "grad_a = grad * b"));
	ck_assert_ptr_nonnull(strstr(mul, "grad_b = grad * a"));
	ck_assert_ptr_nonnull(strstr(div, "grad_a = grad / b"));
	ck_assert_ptr_nonnull(strstr(div, "grad_b = -grad * a / b^2"));
	ck_assert_ptr_nonnull(strstr(pow, "n * a^(n-1) * grad"));
	ot_wellknown_free(wk);
}
END_TEST

static void expect_kind(const ot_wellknown *wk, const char *const *names, size_t n,
			const char *kind)
{
	size_t i;
	for (i = 0; i < n; i++)
		ck_assert_msg(!strcmp(str_at(data_of(wk, names[i]), "kind"), kind),
			      "%s: kind is '%s', expected '%s'", names[i],
			      str_at(data_of(wk, names[i]), "kind"), kind);
}

/* The facts SPEC §2 says the reference must state, by keyword. */
START_TEST(real_required_facts)
{
	static const char *const views[] = {"view", "permute", "transpose", "t",
					    "unsqueeze", "squeeze", "expand", "split",
					    "chunk", "detach"};
	static const char *const copies[] = {"repeat", "cat", "stack", "clone"};
	static const char *const either[] = {"reshape", "contiguous", "flatten"};
	static const char *const cmps[] = {"eq", "ne", "lt", "gt", "le", "ge"};
	static const char *const reds[] = {"sum", "mean", "prod", "max", "min", "argmax",
					   "argmin", "var", "std", "norm", "linalg.norm"};
	static const char *const create[] = {"zeros", "ones", "full", "randn", "rand",
					     "randint", "arange", "eye"};
	ot_wellknown *wk = load_real();
	const ot_value *d;
	size_t i;

	expect_kind(wk, views, OT_ARRAY_LEN(views), "view");
	expect_kind(wk, copies, OT_ARRAY_LEN(copies), "copy");
	expect_kind(wk, either, OT_ARRAY_LEN(either), "view or copy");
	expect_kind(wk, cmps, OT_ARRAY_LEN(cmps), "elementwise kernel");
	expect_kind(wk, reds, OT_ARRAY_LEN(reds), "reduction");
	expect_kind(wk, create, OT_ARRAY_LEN(create), "allocation");

	for (i = 0; i < OT_ARRAY_LEN(views); i++)
		ck_assert_msg(all_contains(data_of(wk, views[i]), "shares storage") ||
				      all_contains(data_of(wk, views[i]), "sharing the input's storage"),
			      "%s does not say it shares storage", views[i]);
	ck_assert(list_contains(data_of(wk, "view"), "facts", "metadata only"));
	ck_assert(list_contains(data_of(wk, "contiguous"), "facts", "already contiguous"));
	ck_assert(list_contains(data_of(wk, "reshape"), "facts", "view"));
	ck_assert(list_contains(data_of(wk, "reshape"), "facts", "cloned"));
	ck_assert(list_contains(data_of(wk, "view"), "group_facts", "inverse") ||
		  list_contains(data_of(wk, "view"), "group_facts", "undoes"));

	d = data_of(wk, "zeros");
	ck_assert(list_contains(d, "group_facts", "caching allocator"));
	ck_assert(list_contains(d, "facts", "fill_"));
	ck_assert(contains(str_at(d, "backward"), "leaf"));
	/* a well-known page tells facts of its op only: no random generator
	 * on zeros' page, and the random ops name theirs */
	ck_assert(!all_contains(d, "Philox") && !all_contains(d, "arange"));
	ck_assert(list_contains(data_of(wk, "rand"), "facts", "Philox"));
	ck_assert(list_contains(data_of(wk, "randn_like"), "facts", "Mersenne"));
	ck_assert(list_contains(data_of(wk, "empty"), "facts", "skips the fill"));

	ck_assert(list_contains(data_of(wk, "to"), "facts", "returns self"));
	ck_assert(list_contains(data_of(wk, "clone"), "facts", "keeps history"));
	ck_assert(list_contains(data_of(wk, "detach"), "facts", "drops history"));
	ck_assert(list_contains(data_of(wk, "detach"), "facts", "shares storage"));
	for (i = 0; i < 5; i++) {
		static const char *const shorthands[] = {"cuda", "cpu", "half", "float", "int"};
		ck_assert(list_contains(data_of(wk, shorthands[i]), "facts", "to("));
		ck_assert(contains(str_at(data_of(wk, shorthands[i]), "aten_note"), "to"));
	}

	ck_assert(list_contains(data_of(wk, "__getitem__"), "group_facts", "view"));
	ck_assert(list_contains(data_of(wk, "index"), "group_facts", "copy"));
	ck_assert(list_contains(data_of(wk, "index"), "group_facts", "gathers"));
	ck_assert(list_contains(data_of(wk, "gather"), "group_facts", "CUDA kernels"));

	d = data_of(wk, "add");
	ck_assert(list_contains(d, "facts", "TensorIterator"));
	ck_assert(list_contains(d, "facts", "broadcast"));
	ck_assert(list_contains(d, "facts", "type promotion"));
	/* the group's facts hold for every op of it: no elementwise machinery
	 * on a matrix product's page, no broadcast gradient on a unary op's */
	ck_assert(!all_contains(data_of(wk, "mm"), "TensorIterator"));
	ck_assert(!all_contains(data_of(wk, "matmul"), "elementwise kernel"));
	ck_assert(!all_contains(data_of(wk, "sigmoid"), "broadcast"));
	ck_assert(list_contains(data_of(wk, "sigmoid"), "facts", "TensorIterator"));
	d = data_of(wk, "matmul");
	ck_assert(list_contains(d, "facts", "dot"));
	ck_assert(list_contains(d, "facts", "mv"));
	ck_assert(list_contains(d, "facts", "mm"));
	ck_assert(list_contains(d, "facts", "bmm"));
	ck_assert(contains(str_at(data_of(wk, "mm"), "gpu"), "cuBLAS gemm"));
	ck_assert(contains(str_at(data_of(wk, "bmm"), "gpu"), "cuBLAS"));
	ck_assert(contains(str_at(data_of(wk, "bmm"), "gpu"), "batched gemm"));

	for (i = 0; i < OT_ARRAY_LEN(cmps); i++) {
		d = data_of(wk, cmps[i]);
		ck_assert(list_contains(d, "group_facts", "torch.bool"));
		ck_assert(contains(str_at(d, "backward"), "not differentiable"));
	}
	for (i = 0; i < OT_ARRAY_LEN(reds); i++)
		ck_assert(list_contains(data_of(wk, reds[i]), "group_facts", "shared memory"));
	ck_assert(list_contains(data_of(wk, "var"), "facts", "Welford"));
	ck_assert(list_contains(data_of(wk, "var"), "facts", "correction=1"));
	ck_assert(list_contains(data_of(wk, "std"), "facts", "Welford"));
	ck_assert(list_contains(data_of(wk, "std"), "facts", "correction=1"));
	ot_wellknown_free(wk);
}
END_TEST

START_TEST(real_inplace_twin_and_generic_entry)
{
	ot_wellknown *wk = load_real();
	const ot_value *twin = data_of(wk, "Tensor.mul_"), *base = data_of(wk, "mul");
	const ot_value *generic = data_of(wk, "Tensor.uniform_");
	const ot_value *group_facts = ot_v_get(generic, "group_facts");

	ck_assert_str_eq(str_at(twin, "base"), "mul");
	ck_assert_str_eq(str_at(twin, "group"), "math");
	ck_assert_str_eq(str_at(twin, "backward"), str_at(base, "backward"));
	ck_assert(contains(str_at(twin, "inplace_summary"), "mul_"));
	ck_assert_int_eq(ot_v_get(base, "inplace_summary")->type, OT_V_NULL);
	ck_assert_uint_eq(ot_v_len(ot_v_get(base, "inplace_facts")), 0);
	/* the twin carries the in-place group's facts */
	ck_assert_ptr_eq(ot_v_get(twin, "inplace_facts"), group_facts);

	ck_assert_str_eq(str_at(generic, "group"), "in-place");
	ck_assert(ot_v_get(generic, "pattern")->u.b);
	ck_assert(list_contains(generic, "group_facts", "version counter"));
	ck_assert(list_contains(generic, "group_facts", "leaf tensor that requires grad"));
	ck_assert(list_contains(generic, "group_facts", "saved for backward"));
	ck_assert(contains(str_at(generic, "group_summary"), "returned"));
	ck_assert(ot_v_get(data_of(wk, "zeros_like"), "pattern")->type == OT_V_BOOL);
	ck_assert(ot_v_get(data_of(wk, "foo_like"), "pattern")->u.b);
	ot_wellknown_free(wk);
}
END_TEST

/* The binary carries the same file, so the reference works from anywhere. */
START_TEST(real_embedded_copy_matches_the_file)
{
	size_t len, i;
	char *text = tu_read_file(REAL_YAML, &len);
	const ot_embedded_file *f = NULL;
	for (i = 0; ot_embedded_files[i].name; i++)
		if (!strcmp(ot_embedded_files[i].name, "wellknown.yaml"))
			f = &ot_embedded_files[i];
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, len);
	ck_assert(memcmp(f->data, text, len) == 0);
	free(text);
}
END_TEST

/* ---- a small hand-written reference --------------------------------------------- */

static const char mini[] =
	"groups:\n"
	"  g:\n"
	"    title: G\n"
	"    summary: s\n"
	"    facts: [f1, f2]\n"
	"  in-place:\n"
	"    title: In-place\n"
	"    summary: s\n"
	"    facts: [writes self]\n"
	"ops:\n"
	"  foo:\n"
	"    group: g\n"
	"    summary: s\n"
	"    kind: k\n"
	"    gpu: x\n"
	"    backward: b\n"
	"    aten: foo_aten\n"
	"    inplace: foo_ does it in place\n"
	"    aliases: ['@']\n"
	"  bar:\n"
	"    group: g\n"
	"    summary: s\n"
	"    kind: k\n"
	"    facts: [one]\n"
	"    gpu: x\n"
	"    backward: b\n"
	"    aten: null\n"
	"    aten_note: lives elsewhere\n"
	"  _like:\n"
	"    group: g\n"
	"    pattern: true\n"
	"    summary: s\n"
	"    kind: k\n"
	"    gpu: x\n"
	"    backward: b\n"
	"    aten: null\n"
	"    aten_note: pattern\n"
	"  _:\n"
	"    group: in-place\n"
	"    pattern: true\n"
	"    summary: s\n"
	"    kind: k\n"
	"    gpu: x\n"
	"    backward: b\n"
	"    aten: null\n"
	"    aten_note: pattern\n";

START_TEST(mini_loads_and_matches)
{
	ot_wellknown *wk = load_text(mini);
	ot_wellknown_match m;

	ck_assert_uint_eq(ot_wellknown_count(wk), 3);
	ck_assert_str_eq(ot_wellknown_name_at(wk, 0), "@");
	ck_assert_str_eq(ot_wellknown_name_at(wk, 1), "bar");
	ck_assert_str_eq(ot_wellknown_name_at(wk, 2), "foo");

	ck_assert(ot_wellknown_lookup(&m, wk, "torch.foo"));
	ck_assert_str_eq(m.name, "foo");
	ck_assert_str_eq(m.group, "g");
	ck_assert_str_eq(m.group_title, "G");
	ck_assert_str_eq(m.aten, "foo_aten");
	ck_assert_uint_eq(ot_v_len(ot_v_get(m.data, "facts")), 0);
	ck_assert_uint_eq(ot_v_len(ot_v_get(m.data, "group_facts")), 2);

	ck_assert(ot_wellknown_lookup(&m, wk, "@"));
	ck_assert_str_eq(m.name, "foo");
	ck_assert(ot_wellknown_lookup(&m, wk, "aten::foo_aten.out"));
	ck_assert_str_eq(m.name, "foo");
	/* aten names only count for aten inputs */
	ck_assert(!ot_wellknown_lookup(&m, wk, "torch.foo_aten"));

	ck_assert(ot_wellknown_lookup(&m, wk, "Tensor.foo_"));
	ck_assert_str_eq(m.name, "foo_");
	ck_assert_str_eq(m.aten, "foo_aten_");
	ck_assert(m.inplace);
	ck_assert_str_eq(str_at(m.data, "inplace_summary"), "foo_ does it in place");
	ck_assert(list_contains(m.data, "inplace_facts", "writes self"));
	ck_assert(ot_wellknown_lookup(&m, wk, "aten::foo_aten_"));
	ck_assert_str_eq(m.name, "foo_");

	/* bar declares no twin: bar_ is answered by the generic entry */
	ck_assert(ot_wellknown_lookup(&m, wk, "bar_"));
	ck_assert_str_eq(m.name, "_");
	ck_assert_str_eq(m.group, "in-place");
	ck_assert_ptr_null(m.aten);
	ck_assert(m.inplace);

	/* the longer pattern wins; a doubled underscore is not in-place */
	ck_assert(ot_wellknown_lookup(&m, wk, "bar_like"));
	ck_assert_str_eq(m.name, "_like");
	ck_assert(!m.inplace);
	ck_assert(ot_wellknown_lookup(&m, wk, "bar_like_"));
	ck_assert_str_eq(m.name, "_");
	ck_assert(!ot_wellknown_lookup(&m, wk, "bar__like"));
	ck_assert(!ot_wellknown_lookup(&m, wk, "__bar__"));
	ck_assert(!ot_wellknown_lookup(&m, wk, "bar__"));
	ck_assert(!ot_wellknown_lookup(&m, wk, "baz"));
	ot_wellknown_free(wk);
}
END_TEST

START_TEST(mini_without_generic_entry_leaves_unknown_inplace_unmatched)
{
	const char *text =
		"groups: {g: {title: G, summary: s, facts: [f]}}\n"
		"ops:\n"
		"  foo: {group: g, summary: s, kind: k, gpu: x, backward: b, aten: foo}\n";
	ot_wellknown *wk = load_text(text);
	ot_wellknown_match m;
	ck_assert(ot_wellknown_lookup(&m, wk, "foo"));
	ck_assert(!ot_wellknown_lookup(&m, wk, "foo_"));
	ck_assert(!ot_wellknown_lookup(&m, wk, "foo_like"));
	ot_wellknown_free(wk);
}
END_TEST

START_TEST(free_null_is_a_no_op)
{
	ot_wellknown_free(NULL);
}
END_TEST

/* ---- loader errors --------------------------------------------------------------- */

#define GROUPS "groups:\n  g:\n    title: G\n    summary: s\n    facts: [f]\n"
#define OP_BODY "    summary: s\n    kind: k\n    gpu: x\n    backward: b\n"

struct bad_doc {
	const char *text;
	const char *message;
};

static const struct bad_doc bad_docs[] = {
	/* malformed YAML, reported by the YAML reader */
	{"groups: [\n", "t.yaml:2:1: " TU_ANY " (" TU_ANY " at line 2)"},
	{"ops:\n  a: 1\n a: 2\n",
	 "t.yaml:3:2: " TU_ANY " (" TU_ANY " at line 1)"},
	/* an op listed twice */
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: foo\n"
		"  foo:\n    group: g\n" OP_BODY "    aten: foo\n",
	 "t.yaml:14:3: duplicate key 'foo' (first at line 7)"},
	/* shape of the document */
	{"", "t.yaml: the reference must be a mapping with 'groups' and 'ops'"},
	{"- a\n", "t.yaml:1:1: the reference must be a mapping with 'groups' and 'ops'"},
	{GROUPS, "t.yaml:1:1: missing 'ops'"},
	{"ops: {}\n", "t.yaml:1:1: missing 'groups'"},
	{GROUPS "ops: []\n", "t.yaml:6:1: 'ops' must be a mapping"},
	{GROUPS "ops: {}\nextra: 1\n",
	 "t.yaml:7:1: unknown key 'extra' (expected 'groups' or 'ops')"},
	/* groups */
	{"groups:\n  g:\n    summary: s\n    facts: [f]\nops: {}\n",
	 "t.yaml:2:3: group 'g': missing field 'title'"},
	{"groups:\n  g:\n    title: G\n    summary: s\n    facts: []\nops: {}\n",
	 "t.yaml:5:5: group 'g': 'facts' must be a non-empty list of non-empty strings"},
	{"groups:\n  g:\n    title: G\n    summary: s\n    facts: [1]\nops: {}\n",
	 "t.yaml:5:5: group 'g': 'facts' must be a non-empty list of non-empty strings"},
	{"groups:\n  g:\n    title: G\n    summary: s\n    facts: [f]\n    note: n\nops: {}\n",
	 "t.yaml:6:5: group 'g': unknown field 'note'"},
	{"groups:\n  g: x\nops: {}\n", "t.yaml:2:3: group 'g' must be a mapping"},
	{"groups:\n  g:\n    title: ''\n    summary: s\n    facts: [f]\nops: {}\n",
	 "t.yaml:3:5: group 'g': 'title' must be a non-empty string"},
	/* ops: missing and mistyped fields */
	{GROUPS "ops:\n  foo:\n    group: g\n    summary: s\n    gpu: x\n    backward: b\n"
		"    aten: foo\n",
	 "t.yaml:7:3: op 'foo': missing field 'kind'"},
	{GROUPS "ops:\n  foo:\n" OP_BODY "    aten: foo\n",
	 "t.yaml:7:3: op 'foo': missing field 'group'"},
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY,
	 "t.yaml:7:3: op 'foo': missing field 'aten' (write 'aten: null' when the op has "
	 "no native_functions.yaml entry)"},
	{GROUPS "ops:\n  foo:\n    group: shapes\n" OP_BODY "    aten: foo\n",
	 "t.yaml:8:12: op 'foo': unknown group 'shapes'"},
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: null\n",
	 "t.yaml:13:5: op 'foo': 'aten' is null, so 'aten_note' must say where the op is "
	 "implemented"},
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: 3\n",
	 "t.yaml:13:5: op 'foo': 'aten' must be a non-empty string or null"},
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: foo\n    facts: x\n",
	 "t.yaml:14:5: op 'foo': 'facts' must be a list of non-empty strings"},
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: foo\n    sumary: x\n",
	 "t.yaml:14:5: op 'foo': unknown field 'sumary'"},
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: foo\n    pattern: yes\n",
	 "t.yaml:14:5: op 'foo': 'pattern' must be true or false"},
	{GROUPS "ops:\n  foo: [1]\n", "t.yaml:7:3: op 'foo' must be a mapping"},
	{GROUPS "ops:\n  '':\n    group: g\n" OP_BODY "    aten: foo\n",
	 "t.yaml:7:3: an op name must not be empty"},
	/* names claimed twice */
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: foo\n"
		"  bar:\n    group: g\n" OP_BODY "    aten: bar\n    aliases: [foo]\n",
	 "t.yaml:21:5: op 'bar': name 'foo' is already taken by op 'foo'"},
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: foo\n    aliases: [bar]\n"
		"  bar:\n    group: g\n" OP_BODY "    aten: bar\n",
	 "t.yaml:15:3: op 'bar': name 'bar' is already taken by op 'foo'"},
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: foo\n    inplace: i\n"
		"  foo_:\n    group: g\n" OP_BODY "    aten: foo_\n",
	 "t.yaml:14:5: op 'foo': in-place twin 'foo_' is already taken by op 'foo_'"},
	/* rules tying fields together */
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: null\n    aten_note: n\n"
		"    inplace: i\n",
	 "t.yaml:15:5: op 'foo': 'inplace' needs an 'aten' name (the twin's entry is "
	 "aten + '_')"},
	{GROUPS "ops:\n  _x:\n    group: g\n" OP_BODY "    aten: null\n    aten_note: n\n"
		"    pattern: true\n    aliases: [y]\n",
	 "t.yaml:16:5: op '_x': a pattern entry cannot have 'inplace' or 'aliases'"},
	{GROUPS "ops:\n  foo:\n    group: g\n" OP_BODY "    aten: null\n    aten_note: n\n"
		"    aten_releases: [v2.6.0]\n",
	 "t.yaml:15:5: op 'foo': 'aten_releases' needs an 'aten' name"},
};

START_TEST(loader_errors)
{
	expect_error(bad_docs[_i].text, bad_docs[_i].message);
}
END_TEST

/* ---- against the real releases ----------------------------------------------------- */

/* Base names of every `- func:` entry of native_functions.yaml at `tag`. */
static ot_map *aten_names(ot_arena *arena, const char *tag, size_t *entries)
{
	ot_buf out = OT_BUF_INIT;
	ot_map *names = ot_map_new();
	const char *line;

	ck_assert_msg(tu_git_show(&out, tu_real_source(), tag, "aten/src/ATen/native/native_functions.yaml"),
		      "git show %s:native_functions.yaml failed", tag);
	*entries = 0;
	for (line = out.ptr; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		size_t n;
		if (strncmp(line, "- func: ", 8))
			continue;
		line += 8;
		n = strcspn(line, ".(\n");
		ot_map_put(names, ot_arena_strndup(arena, line, n), (void *)line);
		(*entries)++;
	}
	ot_buf_free(&out);
	return names;
}

static bool releases_list(const ot_value *releases, const char *tag)
{
	size_t i;
	for (i = 0; i < ot_v_len(releases); i++)
		if (!strcmp(ot_v_cstr(ot_v_at(releases, i)), tag))
			return true;
	return false;
}

static const char *const tags[] = {"v1.13.1", "v2.6.0"};
static const size_t tag_entries[] = {2493, 2633}; /* SPEC §5 */

/* Every aten name (and in-place twin's aten name) exists at both releases,
 * unless the entry lists the releases that have it. */
START_TEST(real_aten_names_exist_at_release)
{
	const char *tag = tags[_i];
	ot_arena *arena = ot_arena_new();
	ot_wellknown *wk = load_real();
	size_t entries, i, checked = 0;
	ot_map *names = aten_names(arena, tag, &entries);

	ck_assert_uint_eq(entries, tag_entries[_i]);
	for (i = 0; i < ot_wellknown_count(wk); i++) {
		const char *name = ot_wellknown_name_at(wk, i);
		ot_wellknown_match m, twin;
		const ot_value *releases;
		bool expect;
		char *twin_input;

		ck_assert(ot_wellknown_lookup(&m, wk, name));
		if (!m.aten)
			continue;
		releases = ot_v_get(m.data, "aten_releases");
		expect = ot_v_len(releases) == 0 || releases_list(releases, tag);
		ck_assert_msg((ot_map_get(names, m.aten) != NULL) == expect,
			      "%s: aten '%s' %s in native_functions.yaml at %s", name, m.aten,
			      expect ? "is missing" : "unexpectedly exists", tag);
		checked++;
		twin_input = ot_arena_printf(arena, "%s_", name);
		if (ot_wellknown_lookup(&twin, wk, twin_input) && twin.aten) {
			ck_assert_msg((ot_map_get(names, twin.aten) != NULL) == expect,
				      "%s: in-place aten '%s' %s at %s", twin_input, twin.aten,
				      expect ? "is missing" : "unexpectedly exists", tag);
			checked++;
		}
	}
	ck_assert_uint_gt(checked, 150);
	ot_map_free(names);
	ot_wellknown_free(wk);
	ot_arena_free(arena);
}
END_TEST

/* Files named by entries without an aten entry exist at both releases. */
START_TEST(real_files_exist_at_release)
{
	const char *tag = tags[_i];
	const char *src = tu_real_source();
	ot_wellknown *wk = load_real();
	size_t i, j, checked = 0;

	for (i = 0; i < ot_wellknown_count(wk); i++) {
		ot_wellknown_match m;
		const ot_value *files;
		ck_assert(ot_wellknown_lookup(&m, wk, ot_wellknown_name_at(wk, i)));
		files = ot_v_get(m.data, "files");
		for (j = 0; j < ot_v_len(files); j++) {
			ot_buf spec = OT_BUF_INIT;
			const char *argv[] = {"git", "-C", src, "cat-file", "-e", NULL, NULL};
			ot_buf_printf(&spec, "%s:%s", tag, ot_v_cstr(ot_v_at(files, j)));
			argv[5] = spec.ptr;
			ck_assert_msg(tu_run(argv, NULL, NULL) == 0, "%s: %s does not exist",
				      ot_wellknown_name_at(wk, i), spec.ptr);
			ot_buf_free(&spec);
			checked++;
		}
	}
	ck_assert_uint_gt(checked, 5);
	ot_wellknown_free(wk);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wellknown");
	TCase *real = tcase_create("reference");
	TCase *mini_tc = tcase_create("loader");
	TCase *release = tcase_create("releases");

	tcase_add_test(real, real_every_spec_op_resolves_to_its_own_entry);
	tcase_add_test(real, real_every_entry_is_well_formed);
	tcase_add_test(real, real_names_are_sorted_unique_and_exclude_patterns);
	tcase_add_loop_test(real, real_input_forms, 0, (int)OT_ARRAY_LEN(forms));
	tcase_add_test(real, real_gradient_formulas);
	tcase_add_test(real, real_required_facts);
	tcase_add_test(real, real_inplace_twin_and_generic_entry);
	tcase_add_test(real, real_embedded_copy_matches_the_file);
	suite_add_tcase(s, real);

	tcase_add_test(mini_tc, mini_loads_and_matches);
	tcase_add_test(mini_tc, mini_without_generic_entry_leaves_unknown_inplace_unmatched);
	tcase_add_test(mini_tc, free_null_is_a_no_op);
	tcase_add_loop_test(mini_tc, loader_errors, 0, (int)OT_ARRAY_LEN(bad_docs));
	suite_add_tcase(s, mini_tc);

	tcase_add_loop_test(release, real_aten_names_exist_at_release, 0,
			    (int)OT_ARRAY_LEN(tags));
	tcase_add_loop_test(release, real_files_exist_at_release, 0, (int)OT_ARRAY_LEN(tags));
	tcase_set_timeout(release, 60);
	suite_add_tcase(s, release);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
