/*
 * Check suite for gen/diff.c and the trace.json reader (gen/tracejson.c):
 * `optrace diff` on the fixture's two releases (exact expectations derived
 * from tests/fixture/v1 and v2), the trace.json form, self-diffs, the size
 * limit, exit statuses, usage errors, hostile trace.json files, and the real
 * 1.13.1 -> 2.6.0 releases (changes verified by hand in both trees).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff.h"
#include "markdown.h"
#include "testutil.h"
#include "tracejson.h"
#include "yamldoc.h"

#define V1 "tests/fixture/v1/"
#define V2 "tests/fixture/v2/"
#define NATIVE "aten/src/ATen/native/native_functions.yaml"
#define DERIVS "tools/autograd/derivatives.yaml"

/* The ops the fixture tests compare: every deliberate difference between
 * tests/fixture/v1 and v2, and ops that must come out unchanged. */
static const char fixture_ops[] =
	"nn.Linear\n"
	"F.linear\n"
	"torch.mm\n"
	"nn.LSTM\n"
	"F.softmax\n"
	"aten::_softmax\n"
	"aten::add.out\n"
	"torch.add\n"
	"torch.einsum\n"
	"F.cross_entropy\n"
	"torch.cumsum\n"
	"F.scaled_dot_product_attention\n"
	"aten::_old_helper_op\n"
	"aten::_fused_sdp_choice\n"
	"Tensor.matmul\n"
	"torch.matmul\n";

/* ---- helpers ---------------------------------------------------------------------- */

static char *write_list(const char *dir, const char *name, const char *text)
{
	char *p = tu_path(dir, name);
	tu_write_file(p, text, strlen(text));
	return p;
}

/* Run optrace with up to 24 arguments; stderr into `err` when given. */
static int optrace(ot_buf *out, ot_buf *err, const char *const *args)
{
	const char *argv[26] = {tu_optrace()};
	size_t n = 1;
	for (; args[n - 1]; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	return tu_run(argv, out, err);
}

static ot_value *load_json(ot_arena *a, const char *path)
{
	size_t len;
	char *text = tu_read_file(path, &len);
	ot_value *v;
	ck_assert_msg(ot_yaml_load(&v, a, text, len, path) == 0, "%s: %s", path, ot_error_last());
	ck_assert(v->type == OT_V_MAP);
	free(text);
	return v;
}

static const char *sget(const ot_value *m, const char *key)
{
	return ot_v_cstr(ot_v_get(m, key));
}

static long long iget(const ot_value *m, const char *key)
{
	const ot_value *v = ot_v_get(m, key);
	ck_assert_msg(v && v->type == OT_V_INT, "'%s' is not an integer", key);
	return v->u.i;
}

static bool bget(const ot_value *m, const char *key)
{
	const ot_value *v = ot_v_get(m, key);
	ck_assert_msg(v && v->type == OT_V_BOOL, "'%s' is not a boolean", key);
	return v->u.b;
}

static bool str_is(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static bool in_list(const ot_value *l, const char *s)
{
	for (size_t i = 0; i < ot_v_len(l); i++)
		if (str_is(ot_v_cstr(ot_v_at(l, i)), s))
			return true;
	return false;
}

/* The change (class, one of its ops or NULL = any, overload or NULL for the op as a whole). */
static const ot_value *find_change(const ot_value *root, const char *cls, const char *op,
				   const char *overload)
{
	const ot_value *l = ot_v_get(root, "changes");
	for (size_t i = 0; i < ot_v_len(l); i++) {
		const ot_value *c = ot_v_at(l, i);
		if (str_is(sget(c, "class"), cls) && (!op || in_list(ot_v_get(c, "ops"), op)) &&
		    str_is(sget(c, "overload"), overload))
			return c;
	}
	return NULL;
}

static const ot_value *need_change(const ot_value *root, const char *cls, const char *op,
				   const char *overload)
{
	const ot_value *c = find_change(root, cls, op, overload);
	ck_assert_msg(c, "no %s change for %s (%s)", cls, op, overload ? overload : "op");
	return c;
}

/* The item (what, subject or NULL = any) of a change, or NULL. */
static const ot_value *find_item(const ot_value *ch, const char *what, const char *subject)
{
	const ot_value *l = ot_v_get(ch, "items");
	for (size_t i = 0; i < ot_v_len(l); i++) {
		const ot_value *it = ot_v_at(l, i);
		if (str_is(sget(it, "what"), what) && (!subject || str_is(sget(it, "subject"), subject)))
			return it;
	}
	return NULL;
}

static const ot_value *need_item(const ot_value *ch, const char *what, const char *subject)
{
	const ot_value *it = find_item(ch, what, subject);
	ck_assert_msg(it, "%s %s: no item %s (%s)", sget(ch, "class"), sget(ch, "op"), what,
		      subject ? subject : "any");
	return it;
}

/* The item (what, subject) of the change of class `cls` that names `op`
 * and has that item: an op is named by as many changes of a class as
 * there are sets of ops sharing them. */
/* The change of class `cls` naming `op` that has an item (what, subject). */
static const ot_value *need_op_change(const ot_value *root, const char *cls, const char *op,
				      const char *what, const char *subject)
{
	const ot_value *l = ot_v_get(root, "changes");
	for (size_t i = 0; i < ot_v_len(l); i++) {
		const ot_value *c = ot_v_at(l, i);
		if (str_is(sget(c, "class"), cls) && in_list(ot_v_get(c, "ops"), op) &&
		    find_item(c, what, subject))
			return c;
	}
	ck_abort_msg("no %s change for %s with item %s (%s)", cls, op, what, subject);
	return NULL;
}

static const ot_value *need_op_item(const ot_value *root, const char *cls, const char *op,
				    const char *what, const char *subject)
{
	return find_item(need_op_change(root, cls, op, what, subject), what, subject);
}

static void check_item(const ot_value *it, const char *old, const char *new, bool breaking)
{
	ck_assert_msg(str_is(sget(it, "old"), old), "%s: old is '%s', expected '%s'", sget(it, "what"),
		      sget(it, "old") ? sget(it, "old") : "null", old ? old : "null");
	ck_assert_msg(str_is(sget(it, "new"), new), "%s: new is '%s', expected '%s'", sget(it, "what"),
		      sget(it, "new") ? sget(it, "new") : "null", new ? new : "null");
	ck_assert_int_eq(bget(it, "breaking"), breaking);
}

static size_t changes_of(const ot_value *root, const char *op)
{
	const ot_value *l = ot_v_get(root, "changes");
	size_t n = 0;
	for (size_t i = 0; i < ot_v_len(l); i++)
		n += in_list(ot_v_get(ot_v_at(l, i), "ops"), op);
	return n;
}

/* Changes of class `cls` that affect `op`. */
static size_t changes_in(const ot_value *root, const char *op, const char *cls)
{
	const ot_value *l = ot_v_get(root, "changes");
	size_t n = 0;
	for (size_t i = 0; i < ot_v_len(l); i++)
		n += in_list(ot_v_get(ot_v_at(l, i), "ops"), op) && str_is(sget(ot_v_at(l, i), "class"), cls);
	return n;
}

/* Ops with a change of a class other than `cls`. */
static size_t ops_with_changes_besides(const ot_value *root, const char *cls)
{
	const ot_value *l = ot_v_get(root, "changes");
	ot_map *seen = ot_map_new();
	size_t n;
	for (size_t i = 0; i < ot_v_len(l); i++) {
		const ot_value *c = ot_v_at(l, i), *ops = ot_v_get(c, "ops");
		if (str_is(sget(c, "class"), cls))
			continue;
		for (size_t k = 0; k < ot_v_len(ops); k++)
			ot_map_put(seen, ot_v_cstr(ot_v_at(ops, k)), (void *)1);
	}
	n = ot_map_len(seen);
	ot_map_free(seen);
	return n;
}

/* A change's place on one side ("old"/"new"): the line of `root/file` it
 * names must contain `text`, and its URL must point at that line. */
static void check_loc_file(const ot_value *ch, const char *side, const char *root, const char *file,
			   const char *text)
{
	const ot_value *l = ot_v_get(ch, side);
	char *p, *line, url_tail[400];
	ck_assert_msg(l && l->type == OT_V_MAP, "%s %s: no %s place", sget(ch, "class"), sget(ch, "op"),
		      side);
	ck_assert_str_eq(sget(l, "file"), file);
	p = tu_path(root, file);
	line = tu_file_line(p, (int)iget(l, "line"));
	ck_assert_msg(strstr(line, text), "%s:%lld is '%s', expected '%s' there", p, iget(l, "line"),
		      line, text);
	snprintf(url_tail, sizeof(url_tail), "/%s#L%lld", file, iget(l, "line"));
	ck_assert_msg(ot_ends_with(sget(l, "url"), url_tail), "url %s", sget(l, "url"));
	free(line);
	free(p);
}

/* ---- the fixture: both releases traced from their tags ---------------------------- */

static char *fx_dir;           /* tests/tmp/diff-fixture-... */
static char *fx_json, *fx_md;  /* the tag form's reports */
static int fx_status;
static ot_buf fx_err = OT_BUF_INIT;

static void fixture_setup(void)
{
	const char *repo = tu_fixture_repo();
	char *list;
	fx_dir = tu_tmpdir("diff-fixture");
	list = write_list(fx_dir, "ops.list", fixture_ops);
	fx_json = tu_path(fx_dir, "diff.json");
	fx_md = tu_path(fx_dir, "diff.md");
	fx_status = optrace(NULL, &fx_err,
			    (const char *[]){"diff", "-s", repo, "1.0.0", "v2.0.0", list, "--json", fx_json,
					     "-o", fx_md, NULL});
	free(list);
}

START_TEST(fixture_runs)
{
	ck_assert_msg(fx_status == 0, "status %d: %s", fx_status, fx_err.ptr);
	ck_assert_msg(strstr(fx_err.ptr, "1.0.0 -> 2.0.0: 16 ops"), "summary: %s", fx_err.ptr);
}
END_TEST

START_TEST(fixture_counts)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json), *counts = ot_v_get(root, "counts");
	ot_value *cls = ot_v_get(counts, "classes");
	/* one change per deliberate difference, see the tests below: a change
	 * several ops share (linear's, add.out's) counts once */
	static const struct {
		const char *id;
		long long changes, breaking;
	} want[] = {{"removed", 1, 1}, {"added", 2, 0},    {"schema", 2, 0}, {"dispatch", 4, 0},
		    {"moved", 1, 0},   {"backward", 2, 0}, {"gpu", 2, 0},    {"implementation", 1, 0}};
	long long total = 0;
	for (size_t i = 0; i < OT_ARRAY_LEN(want); i++) {
		const ot_value *c = ot_v_get(cls, want[i].id);
		ck_assert_msg(iget(c, "changes") == want[i].changes, "%s: %lld changes", want[i].id,
			      iget(c, "changes"));
		ck_assert_msg(iget(c, "breaking") == want[i].breaking, "%s: %lld breaking", want[i].id,
			      iget(c, "breaking"));
		total += want[i].changes;
	}
	ck_assert_int_eq(iget(counts, "ops"), 16);
	ck_assert_int_eq(iget(counts, "changes"), total);
	ck_assert_int_eq(iget(counts, "breaking"), 1);
	ck_assert_int_eq(ot_v_len(ot_v_get(root, "changes")), total);
	ck_assert_int_eq(iget(counts, "unchanged_ops"), 3);
	ck_assert_int_eq(iget(counts, "changed_ops"), 13);
	ck_assert(bget(root, "registry_compared"));
	ot_arena_free(a);
}
END_TEST

/* Breaking changes come first, then by class, op and overload. */
START_TEST(fixture_order)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json), *l = ot_v_get(root, "changes");
	static const char *const classes[] = {"removed", "added", "schema", "dispatch",
					      "moved", "backward", "gpu", "implementation"};
	int prev_rank = -1;
	for (size_t i = 0; i < ot_v_len(l); i++) {
		const ot_value *c = ot_v_at(l, i);
		int k = 0, rank;
		while (k < 8 && strcmp(classes[k], sget(c, "class")))
			k++;
		rank = (bget(c, "breaking") ? 0 : 10) + k;
		ck_assert_msg(rank >= prev_rank, "change %zu (%s %s) out of order", i, sget(c, "class"),
			      sget(c, "op"));
		prev_rank = rank;
	}
	ck_assert_str_eq(sget(ot_v_at(l, 0), "op"), "aten::_old_helper_op");
	ot_arena_free(a);
}
END_TEST

/* v2 dropped `_old_helper_op`, added `scaled_dot_product_attention` and
 * `_fused_sdp_choice` (native_functions.yaml, functional.py); an aten input
 * is its overloads: the row is the one another op reaching them would get. */
START_TEST(fixture_removed_added)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json);
	const ot_value *c = need_change(root, "removed", "aten::_old_helper_op", "_old_helper_op");
	ck_assert(bget(c, "breaking"));
	need_item(c, "overload-removed", "_old_helper_op");
	check_loc_file(c, "old", V1, NATIVE, "func: _old_helper_op(");
	ck_assert(ot_v_get(c, "new")->type == OT_V_NULL);
	c = need_change(root, "added", "aten::_fused_sdp_choice", "_fused_sdp_choice");
	ck_assert(!bget(c, "breaking"));
	check_loc_file(c, "new", V2, NATIVE, "func: _fused_sdp_choice(");
	c = need_change(root, "added", "F.scaled_dot_product_attention", NULL);
	check_loc_file(c, "new", V2, "torch/nn/functional.py", "scaled_dot_product_attention");
	ot_arena_free(a);
}
END_TEST

/* einsum gained `*, int[]? path=None` (compatible); cross_entropy_loss's
 * ignore_index went from int to SymInt (widened: compatible). */
START_TEST(fixture_schema)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json);
	const ot_value *c = need_change(root, "schema", "torch.einsum", "einsum"), *it;
	ck_assert(!bget(c, "breaking"));
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "items")), 1);
	it = need_item(c, "keyword-argument-added", "path");
	check_item(it, NULL, "int[]? path=None", false);
	ck_assert_str_eq(sget(it, "why"), "it has a default and comes after every old argument");
	check_loc_file(c, "old", V1, NATIVE, "func: einsum(");
	check_loc_file(c, "new", V2, NATIVE, "func: einsum(");

	c = need_change(root, "schema", "F.cross_entropy", "cross_entropy_loss");
	ck_assert(!bget(c, "breaking"));
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "items")), 1);
	it = need_item(c, "argument-widened", "ignore_index");
	check_item(it, "int", "SymInt", false);
	ck_assert(strstr(sget(it, "why"), "a SymInt takes an int"));
	check_loc_file(c, "old", V1, NATIVE, "int ignore_index=-100");
	check_loc_file(c, "new", V2, NATIVE, "SymInt ignore_index=-100");
	ot_arena_free(a);
}
END_TEST

/* mm became structured (mm delegates to mm.out, whose kernels were renamed);
 * add.out's kernels were replaced by ufunc_inner_loop; linear gained
 * NestedTensor kernels. */
START_TEST(fixture_dispatch)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json);
	const ot_value *c = need_change(root, "dispatch", "torch.mm", "mm");
	check_item(need_item(c, "delegate-changed", NULL), NULL, "mm.out", false);
	check_item(need_item(c, "keys-removed", "CPU"), "mm_cpu", NULL, false);
	check_item(need_item(c, "keys-removed", "CUDA"), "mm_cuda", NULL, false);
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "items")), 3);

	c = need_change(root, "dispatch", "torch.mm", "mm.out");
	check_item(need_item(c, "structured-changed", NULL), "False", "True", false);
	check_item(need_item(c, "kernel-renamed", "CPU"), "mm_out", "mm_out_cpu", false);
	check_item(need_item(c, "kernel-renamed", "CUDA"), "mm_out", "mm_out_cuda", false);
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "items")), 3);
	check_loc_file(c, "new", V2, NATIVE, "func: mm.out(");

	/* one change each, with both ops that reach the overload */
	c = need_change(root, "dispatch", "aten::add.out", "add.out");
	ck_assert(c == need_change(root, "dispatch", "torch.add", "add.out"));
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "ops")), 2);
	check_item(need_item(c, "ufunc-changed", NULL), NULL,
		   "Generic: add (AllAndComplex, BFloat16, Half); ScalarOnly: add (Bool)", false);
	/* the generated ufunc kernels still serve CPU and CUDA */
	check_item(need_item(c, "keys-removed", "CPU, CUDA"), "add_out", NULL, false);
	c = need_change(root, "dispatch", "F.linear", "linear");
	ck_assert(c == need_change(root, "dispatch", "nn.Linear", "linear"));
	check_item(need_item(c, "keys-added", "NestedTensorCPU, NestedTensorCUDA"), NULL,
		   "nested_linear", false);
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "items")), 1);
	ot_arena_free(a);
}
END_TEST

/* linear moved from Linear.cpp to LinearOps.cpp; RNN.cpp only shifted by a
 * comment block, which is no change. */
START_TEST(fixture_moved)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json);
	for (int k = 0; k < 2; k++) {
		const ot_value *c = need_change(root, "moved", k ? "nn.Linear" : "F.linear", NULL), *it;
		ck_assert_int_eq(ot_v_len(ot_v_get(c, "ops")), 2);
		ck_assert_int_eq(ot_v_len(ot_v_get(c, "items")), 1);
		it = need_item(c, "moved", "linear");
		ck_assert_str_eq(sget(it, "layer"), "cpp");
		check_item(it, "aten/src/ATen/native/Linear.cpp", "aten/src/ATen/native/LinearOps.cpp", false);
		check_loc_file(c, "old", V1, "aten/src/ATen/native/Linear.cpp", "linear(");
		check_loc_file(c, "new", V2, "aten/src/ATen/native/LinearOps.cpp", "linear(");
	}
	/* the noise case: every line of RNN.cpp moved, nothing changed */
	ck_assert_int_eq(changes_of(root, "nn.LSTM"), 0);
	ck_assert(in_list(ot_v_get(root, "unchanged"), "nn.LSTM"));
	ot_arena_free(a);
}
END_TEST

/* The code a default call runs: _softmax's CUDA kernel calls cuDNN at
 * 2.0.0 (a statement in place of a launch), one row for both ops that
 * run it; linear moved to LinearOps.cpp with another comment and a call
 * wrapped on three lines (the same code: no row); RNN.cpp's lines only
 * shifted (no row). */
START_TEST(fixture_implementation)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json);
	const ot_value *c = need_change(root, "implementation", "F.softmax", NULL), *it;
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "ops")), 2);
	ck_assert(in_list(ot_v_get(c, "ops"), "aten::_softmax"));
	ck_assert(!bget(c, "breaking"));
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "items")), 1);
	it = need_item(c, "body-changed", "softmax_cuda_out");
	ck_assert_str_eq(sget(it, "layer"), "kernel");
	check_item(it, "aten/src/ATen/native/cuda/SoftMax.cu:11", "aten/src/ATen/native/cuda/SoftMax.cu:11", false);
	/* one statement (a launch) for another (cudnnSoftmaxForward, on three lines) */
	ck_assert_int_eq(iget(it, "statements_added"), 1);
	ck_assert_int_eq(iget(it, "statements_removed"), 1);
	check_loc_file(c, "old", V1, "aten/src/ATen/native/cuda/SoftMax.cu", "softmax_cuda_out");
	check_loc_file(c, "new", V2, "aten/src/ATen/native/cuda/SoftMax.cu", "softmax_cuda_out");
	ck_assert(!find_change(root, "implementation", "F.linear", NULL));
	ck_assert(!find_change(root, "implementation", "nn.LSTM", NULL));
	ck_assert_int_eq(ot_v_len(ot_v_get(root, "changes")), 15);
	ot_arena_free(a);
}
END_TEST

/* _softmax and cumsum gained forward-mode formulas (result:). */
START_TEST(fixture_backward)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json);
	const ot_value *c = need_change(root, "backward", "aten::_softmax", "_softmax");
	check_item(need_item(c, "forward-formula-added", "result"), NULL,
		   "result * (self_t - logsumexp_jvp(self_p, self_t, {dim}, true))", false);
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "items")), 1);
	check_loc_file(c, "old", V1, DERIVS, "name: _softmax(");
	check_loc_file(c, "new", V2, DERIVS, "name: _softmax(");
	c = need_change(root, "backward", "torch.cumsum", "cumsum");
	check_item(need_item(c, "forward-formula-added", "result"), NULL, "auto_linear", false);
	ot_arena_free(a);
}
END_TEST

/* add.out's CUDA kernel became a generated ufunc kernel; softmax's CUDA
 * kernel now calls cuDNN (cudnnSoftmaxForward in cuda/SoftMax.cu). */
START_TEST(fixture_gpu)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json);
	const ot_value *c, *it;
	for (int k = 0; k < 2; k++) {
		c = need_change(root, "gpu", k ? "torch.add" : "aten::add.out", NULL);
		check_item(need_item(c, "gpu-libraries", NULL), "TensorIterator CUDA kernel",
			   "generated ufunc kernel", false);
		check_loc_file(c, "old", V1, "aten/src/ATen/native/cuda/BinaryAddKernel.cu",
			       "gpu_kernel_with_scalars");
		check_loc_file(c, "new", V2, NATIVE, "func: add.out(");
	}
	c = need_change(root, "gpu", "aten::_softmax", NULL);
	it = need_item(c, "gpu-libraries", NULL);
	ck_assert_str_eq(sget(it, "new"), "cuDNN");
	/* v1 launches cunn_SoftMaxForward<float><<<...>>>; the scanner does not
	 * see a launch after template arguments yet, so the old side may be empty */
	ck_assert(!sget(it, "old") || !strcmp(sget(it, "old"), "custom CUDA kernel"));
	check_loc_file(c, "new", V2, "aten/src/ATen/native/cuda/SoftMax.cu", "cudnnSoftmaxForward");
	ot_arena_free(a);
}
END_TEST

/* What must not be reported: matmul (the Tensor base class was renamed on
 * the same line of the same file), nn.LSTM (lines shifted). F.softmax is
 * changed: its CUDA main path (_softmax's kernel) calls cuDNN at 2.0.0. */
START_TEST(fixture_unchanged)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = load_json(a, fx_json), *l = ot_v_get(root, "unchanged");
	static const char *const ops[] = {"Tensor.matmul", "torch.matmul", "nn.LSTM"};
	ck_assert_int_eq(ot_v_len(l), OT_ARRAY_LEN(ops));
	for (size_t i = 0; i < OT_ARRAY_LEN(ops); i++) {
		ck_assert_msg(in_list(l, ops[i]), "%s is not unchanged", ops[i]);
		ck_assert_int_eq(changes_of(root, ops[i]), 0);
	}
	ot_arena_free(a);
}
END_TEST

/* The Markdown report: headline, counts, one row per change, links to both
 * releases, and it renders as a GFM table. */
START_TEST(fixture_markdown)
{
	size_t len;
	char *md = tu_read_file(fx_md, &len);
	ot_buf html = OT_BUF_INIT;
	size_t rows = 0;
	const char *p;
	ck_assert(ot_starts_with(md, "## optrace diff: PyTorch 1.0.0 → 2.0.0\n"));
	ck_assert_msg(strstr(md, "Compared `v1.0.0` (`"), "%s", md);
	ck_assert(strstr(md, "): 16 ops, 13 with changes; 15 changes: **1 breaking**, 14 others; 3 unchanged.\n"));
	ck_assert(strstr(md, "| schema changed | 2 | 0 |\n"));
	ck_assert(strstr(md, "| schema changed | `F.cross_entropy` | "
			     "`aten::cross_entropy_loss`: `ignore_index` type widened: `int` → `SymInt` "
			     "([1.0.0](https://github.com/pytorch/pytorch/blob/v1.0.0/" NATIVE "#L"));
	ck_assert(strstr(md, ") — compatible: a SymInt takes an int"));
	/* a change of several ops is one row that names them */
	ck_assert(strstr(md, "| dispatch changed | `F.linear`, `nn.Linear` | `aten::linear`: "));
	ck_assert(strstr(md, "[2.0.0](https://github.com/pytorch/pytorch/blob/v2.0.0/"
			     "aten/src/ATen/native/LinearOps.cpp#L"));
	ck_assert(!strstr(md, "more change"));
	ck_assert(!strchr(md, '<'));
	for (p = md; (p = strstr(p, "\n| ")); p++)
		rows++;
	ck_assert_int_eq(rows, 9 + 1 + 15); /* counts table, header, changes */
	ck_assert_int_eq(ot_markdown_to_html(&html, md, len, false), 0);
	rows = 0;
	for (p = html.ptr; (p = strstr(p, "<tr>")); p++)
		rows++;
	ck_assert_int_eq(rows, 9 + 16);
	ck_assert(strstr(html.ptr, "<td align=\"left\"><code>aten::_old_helper_op</code></td>"));
	ck_assert(strstr(md, "| implementation changed | 1 | 0 |\n"));
	ck_assert(strstr(md, "| implementation changed | `F.softmax`, `aten::_softmax` | kernel "
			     "`softmax_cuda_out` at `aten/src/ATen/native/cuda/SoftMax.cu:11`: +1 −1 "
			     "statements ([1.0.0](https://github.com/pytorch/pytorch/blob/v1.0.0/"
			     "aten/src/ATen/native/cuda/SoftMax.cu#L"));
	ot_buf_free(&html);
	free(md);
}
END_TEST

/* trace.json files written by the main command give the same reports. */
START_TEST(fixture_json_form)
{
	const char *repo = tu_fixture_repo();
	char *dir = tu_tmpdir("diff-json-form"), *list = write_list(dir, "ops.list", fixture_ops);
	char *o1 = tu_path(dir, "v1"), *o2 = tu_path(dir, "v2"), *t1 = tu_path(o1, "trace.json"),
	     *t2 = tu_path(o2, "trace.json"), *json = tu_path(dir, "diff.json"),
	     *md = tu_path(dir, "diff.md"), *json3 = tu_path(dir, "mixed.json"),
	     *md3 = tu_path(dir, "mixed.md");
	char *a, *b;
	ot_buf err = OT_BUF_INIT;
	int rc;

	rc = optrace(NULL, &err, (const char *[]){"-q", "-s", repo, "-t", "1.0.0", "--full", "--format",
						  "json", "-o", o1, list, NULL});
	ck_assert_msg(rc == 0 || rc == 1, "%d %s", rc, err.ptr);
	rc = optrace(NULL, &err, (const char *[]){"-q", "-s", repo, "-t", "2.0.0", "--full", "--format",
						  "json", "-o", o2, list, NULL});
	ck_assert_msg(rc == 0 || rc == 1, "%d %s", rc, err.ptr);
	rc = optrace(NULL, &err, (const char *[]){"diff", t1, t2, "--json", json, "-o", md, NULL});
	ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
	a = tu_read_file(fx_json, NULL);
	b = tu_read_file(json, NULL);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	a = tu_read_file(fx_md, NULL);
	b = tu_read_file(md, NULL);
	ck_assert_str_eq(a, b);
	free(b);
	/* a committed snapshot against a release: the release traces the file's ops */
	rc = optrace(NULL, &err, (const char *[]){"diff", "-s", repo, t1, "2.0.0", "--json", json3, "-o",
						  md3, NULL});
	ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
	b = tu_read_file(md3, NULL);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	ot_buf_free(&err);
	free(dir), free(list), free(o1), free(o2), free(t1), free(t2), free(json), free(md);
	free(json3), free(md3);
}
END_TEST

/* A release against itself reports nothing, whatever --fail-on says. */
/* trace.json's registry data: each op names its entries (every overload of
 * its names, then their structured delegates), the top level holds each
 * entry once, in the order ops first name them, the same for any -j. The
 * expectations are read off tests/fixture/v2's native_functions.yaml:
 * add.Tensor (line 4) and add_.Tensor (9) delegate to add.out (13); mm (30)
 * to mm.out (34). */
START_TEST(fixture_trace_json_registry)
{
	static const char *const want_ops[][4] = {
		{"aten::add.Tensor", "add.Tensor", "add.out", NULL},
		{"aten::add_.Tensor", "add_.Tensor", "add.out", NULL},
		{"torch.mm", "mm", "mm.out", NULL},
	};
	static const struct {
		const char *name;
		long long line;
	} want_entries[] = {{"add.Tensor", 4}, {"add.out", 13}, {"add_.Tensor", 9}, {"mm", 30},
			    {"mm.out", 34}};
	const char *repo = tu_fixture_repo();
	char *dir = tu_tmpdir("diff-tj-registry");
	char *list = write_list(dir, "ops.list", "torch.mm\naten::add_.Tensor\naten::add.Tensor\n");
	char *o1 = tu_path(dir, "j1"), *o3 = tu_path(dir, "j3"), *t1 = tu_path(o1, "trace.json"),
	     *t3 = tu_path(o3, "trace.json");
	ot_arena *a = ot_arena_new();
	ot_buf err = OT_BUF_INIT;
	const ot_value *ops, *reg;
	ot_value *root;
	char *b1, *b3;
	int rc;

	rc = optrace(NULL, &err, (const char *[]){"-q", "-s", repo, "-t", "2.0.0", "--format", "json",
						  "-j", "1", "-o", o1, list, NULL});
	ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
	rc = optrace(NULL, &err, (const char *[]){"-q", "-s", repo, "-t", "2.0.0", "--format", "json",
						  "-j", "3", "-o", o3, list, NULL});
	ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
	b1 = tu_read_file(t1, NULL);
	b3 = tu_read_file(t3, NULL);
	ck_assert_str_eq(b1, b3);
	root = load_json(a, t1);
	ck_assert_int_eq(iget(root, "schema_version"), OT_TRACEJSON_SCHEMA);
	ops = ot_v_get(root, "ops");
	ck_assert_int_eq(ot_v_len(ops), OT_ARRAY_LEN(want_ops));
	for (size_t i = 0; i < OT_ARRAY_LEN(want_ops); i++) {
		const ot_value *op = ot_v_at(ops, i), *names = ot_v_get(op, "registry");
		size_t n = 0;
		ck_assert_str_eq(sget(op, "input"), want_ops[i][0]);
		for (; want_ops[i][n + 1]; n++) {
			ck_assert_msg(n < ot_v_len(names), "%s: too few entries", want_ops[i][0]);
			ck_assert_str_eq(ot_v_at(names, n)->u.str.ptr, want_ops[i][n + 1]);
		}
		ck_assert_int_eq(ot_v_len(names), n);
	}
	reg = ot_v_get(root, "registry");
	ck_assert_int_eq(ot_v_len(reg), OT_ARRAY_LEN(want_entries));
	for (size_t i = 0; i < OT_ARRAY_LEN(want_entries); i++) {
		ck_assert_str_eq(sget(ot_v_at(reg, i), "name"), want_entries[i].name);
		ck_assert_int_eq(iget(ot_v_at(reg, i), "line"), want_entries[i].line);
	}
	ck_assert_str_eq(sget(ot_v_at(reg, 1), "func"),
			 "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
	ck_assert_str_eq(sget(ot_v_at(reg, 0), "structured_delegate"), "add.out");
	ot_arena_free(a);
	ot_buf_free(&err);
	free(b1), free(b3);
	free(dir), free(list), free(o1), free(o3), free(t1), free(t3);
}
END_TEST

START_TEST(fixture_self_diff)
{
	const char *repo = tu_fixture_repo();
	char *dir = tu_tmpdir("diff-self"), *list = write_list(dir, "ops.list", fixture_ops);
	char *json = tu_path(dir, "d.json");
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
	ot_arena *a = ot_arena_new();
	ot_value *root;
	int rc = optrace(&out, &err, (const char *[]){"diff", "-s", repo, "2.0.0", "2.0.0", list, "-o",
						      "-", "--json", json, "--fail-on", "any", NULL});
	ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
	ck_assert_msg(strstr(out.ptr, ": 16 ops, no changes, 15 unchanged, 1 not compared"), "%s", out.ptr);
	ck_assert(!strstr(out.ptr, "| Change |"));
	root = load_json(a, json);
	ck_assert_int_eq(iget(ot_v_get(root, "counts"), "changes"), 0);
	ck_assert_int_eq(ot_v_len(ot_v_get(root, "changes")), 0);
	/* _old_helper_op exists in neither: listed, not compared */
	ck_assert_str_eq(sget(ot_v_at(ot_v_get(root, "skipped"), 0), "op"), "aten::_old_helper_op");
	ot_arena_free(a);
	ot_buf_free(&out);
	ot_buf_free(&err);
	free(dir), free(list), free(json);
}
END_TEST

/* A symbolic link at the report's path is replaced, its target untouched
 * (as the main command does in out/); -o - is stdout; a folder is refused. */
START_TEST(fixture_out_paths)
{
	const char *repo = tu_fixture_repo();
	char *dir = tu_tmpdir("diff-out"), *list = write_list(dir, "ops.list", "torch.einsum\n");
	char *target = tu_path(dir, "target.md"), *link = tu_path(dir, "link.md"), *text;
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
	struct stat st;
	int rc;

	ck_assert_int_eq(symlink("target.md", link), 0);
	tu_write_file(target, "mine\n", 5);
	rc = optrace(NULL, &err, (const char *[]){"diff", "-q", "-s", repo, "1.0.0", "2.0.0", list, "-o",
						  link, NULL});
	ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
	ck_assert(lstat(link, &st) == 0 && S_ISREG(st.st_mode));
	text = tu_read_file(target, NULL);
	ck_assert_str_eq(text, "mine\n");
	free(text);
	text = tu_read_file(link, NULL);
	ck_assert(ot_starts_with(text, "## optrace diff: PyTorch 1.0.0 → 2.0.0\n"));
	rc = optrace(&out, &err, (const char *[]){"diff", "-q", "-s", repo, "1.0.0", "2.0.0", list, "-o",
						  "-", NULL});
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(out.ptr, text);
	rc = optrace(NULL, &err, (const char *[]){"diff", "-q", "-s", repo, "1.0.0", "2.0.0", list, "-o",
						  dir, NULL});
	ck_assert_int_eq(rc, 2);
	ck_assert(strstr(err.ptr, "it is a folder"));
	ot_buf_free(&out);
	ot_buf_free(&err);
	free(text), free(dir), free(list), free(target), free(link);
}
END_TEST

/* --max-bytes: whole rows only, then a line that counts the rest. */
START_TEST(fixture_max_bytes)
{
	const char *repo = tu_fixture_repo();
	char *dir = tu_tmpdir("diff-max"), *list = write_list(dir, "ops.list", fixture_ops);
	char *md = tu_path(dir, "d.md"), *text, *more;
	ot_buf err = OT_BUF_INIT, html = OT_BUF_INIT;
	size_t len, rows = 0, left;
	const char *p;
	int rc = optrace(NULL, &err, (const char *[]){"diff", "-s", repo, "1.0.0", "2.0.0", list, "-o", md,
						      "--max-bytes", "3000", NULL});
	ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
	text = tu_read_file(md, &len);
	ck_assert_msg(len <= 3000, "%zu bytes", len);
	for (p = text; (p = strstr(p, "\n| ")); p++) {
		const char *eol = strchr(p + 1, '\n');
		ck_assert(eol && eol[-1] == '|' && eol[-2] == ' ');
		rows++;
	}
	rows -= 10; /* the counts table and the header */
	more = strstr(text, "\n_");
	ck_assert_msg(more && sscanf(more, "\n_%zu more changes are not shown here; run with "
					    "`--json FILE` for all of them._", &left) == 1, "%s", text);
	ck_assert(rows > 0);
	ck_assert_int_eq(rows + left, 15);
	ck_assert(ot_ends_with(text, "for all of them._\n"));
	/* the rows kept are the first ones: breaking first */
	ck_assert(strstr(text, "`aten::_old_helper_op`"));
	ck_assert_int_eq(ot_markdown_to_html(&html, text, len, false), 0);
	ck_assert(strstr(html.ptr, "<table>"));
	ot_buf_free(&html);
	ot_buf_free(&err);
	free(text), free(dir), free(list), free(md);
}
END_TEST

/* --fail-on: 3 when breaking changes exist, 4 when only other changes do. */
START_TEST(fixture_fail_on)
{
	const char *repo = tu_fixture_repo();
	char *dir = tu_tmpdir("diff-fail"), *all = write_list(dir, "all.list", fixture_ops);
	char *soft = write_list(dir, "soft.list", "torch.einsum\nnn.LSTM\n");
	char *md = tu_path(dir, "d.md");
	struct {
		const char *list, *fail_on;
		int status;
	} cases[] = {{all, NULL, 0},     {all, "breaking", OT_DIFF_EXIT_BREAKING},
		     {all, "any", OT_DIFF_EXIT_BREAKING}, {soft, "breaking", 0},
		     {soft, "any", OT_DIFF_EXIT_CHANGED}, {soft, NULL, 0}};
	for (size_t i = 0; i < OT_ARRAY_LEN(cases); i++) {
		ot_buf err = OT_BUF_INIT;
		const char *args[12] = {"diff", "-q", "-s", repo, "1.0.0", "2.0.0", cases[i].list, "-o", md};
		int rc;
		if (cases[i].fail_on) {
			args[9] = "--fail-on";
			args[10] = cases[i].fail_on;
		}
		rc = optrace(NULL, &err, args);
		ck_assert_msg(rc == cases[i].status, "case %zu: status %d, expected %d (%s)", i, rc,
			      cases[i].status, err.ptr);
		ck_assert_str_eq(err.ptr, "");
		ot_buf_free(&err);
	}
	free(dir), free(all), free(soft), free(md);
}
END_TEST

/* ---- the command line ---------------------------------------------------------------- */

START_TEST(cli_help)
{
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
	ck_assert_int_eq(optrace(&out, &err, (const char *[]){"diff", "--help", NULL}), 0);
	ck_assert(ot_starts_with(out.ptr, "Usage: optrace diff OLD NEW [OPTIONS] [OPS_LIST]\n"));
	ck_assert(strstr(out.ptr, "3 breaking changes found"));
	ck_assert(strstr(out.ptr, "4 changes found, none\nbreaking"));
	ck_assert_str_eq(err.ptr, "");
	ot_buf_clear(&out);
	ck_assert_int_eq(optrace(&out, &err, (const char *[]){"--help", NULL}), 0);
	ck_assert(strstr(out.ptr, "optrace diff OLD NEW"));
	ot_buf_free(&out);
	ot_buf_free(&err);
}
END_TEST

START_TEST(cli_usage_errors)
{
	static const struct {
		const char *args[8];
		const char *message;
	} cases[] = {
		{{"diff", NULL}, "diff needs two releases"},
		{{"diff", "1.0.0", NULL}, "diff needs two releases"},
		{{"diff", "1.0.0", "2.0.0", "a.list", "extra", NULL}, "too many arguments, starting at 'extra'"},
		{{"diff", "1.0.0", "2.0.0", "--fail-on", "maybe", NULL}, "--fail-on takes 'breaking' or 'any'"},
		{{"diff", "1.0.0", "2.0.0", "--max-bytes", "100", NULL}, "--max-bytes needs a number"},
		{{"diff", "1.0.0", "2.0.0", "-j", "0", NULL}, "--jobs needs a number"},
		{{"diff", "1.0.0", "2.0.0", "--bogus", NULL}, "unknown option '--bogus'"},
		{{"diff", "1.0.0", "2.0.0", "--json", NULL}, "option '--json' needs an argument"},
		{{"diff", "1.0.0", "2.0.0", "--json", "x.md", "-o", "x.md", NULL}, "name the same file"},
	};
	for (size_t i = 0; i < OT_ARRAY_LEN(cases); i++) {
		ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
		int rc = optrace(&out, &err, cases[i].args);
		ck_assert_msg(rc == 2, "case %zu: status %d", i, rc);
		ck_assert_msg(strstr(err.ptr, cases[i].message), "case %zu: %s", i, err.ptr);
		ck_assert_msg(strstr(err.ptr, "Try 'optrace diff --help'."), "case %zu: %s", i, err.ptr);
		ck_assert_str_eq(out.ptr, "");
		ot_buf_free(&out);
		ot_buf_free(&err);
	}
}
END_TEST

/* Fatal errors: exit 2, a message, nothing written. */
START_TEST(cli_fatal_errors)
{
	const char *repo = tu_fixture_repo();
	char *dir = tu_tmpdir("diff-fatal"), *list = write_list(dir, "ops.list", "torch.mm\n");
	char *bad = write_list(dir, "bad.json", "{\"schema_version\": 1, \"pytorch\": {\"version\": "
						 "\"2.0.0\"}, \"ops\": [{\"input\": \"x\"}]}");
	char *md = tu_path(dir, "out.md");
	struct stat st;
	static const char *const msgs[] = {"banana", "v9.9.9", "no/such/trace.json", "bad.json: ops[0]: 'status' is missing"};
	const char *olds[] = {"banana", "9.9.9", "no/such/trace.json", bad};
	for (size_t i = 0; i < OT_ARRAY_LEN(olds); i++) {
		ot_buf err = OT_BUF_INIT;
		int rc = optrace(NULL, &err, (const char *[]){"diff", "-s", repo, olds[i], "2.0.0", list, "-o",
							      md, NULL});
		ck_assert_msg(rc == 2, "case %zu: status %d (%s)", i, rc, err.ptr);
		ck_assert_msg(strstr(err.ptr, msgs[i]), "case %zu: %s", i, err.ptr);
		ck_assert(stat(md, &st) != 0);
		ot_buf_free(&err);
	}
	free(dir), free(list), free(bad), free(md);
}
END_TEST

/* ---- the reader, in process ------------------------------------------------------------ */

static int read_doc(ot_tj_doc **out, const char *text)
{
	return ot_tracejson_read(out, text, strlen(text), "t.json");
}

#define S2 "{\"schema_version\": 2, \"pytorch\": {\"version\": \"1\"}, "
#define OP_A "\"ops\": [{\"input\": \"a\", \"status\": \"traced\", \"aten\": [], \"steps\": []"

START_TEST(reader_rejects)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{"[1, 2]", "the top level is not an object"},
		{"{\"schema_version\": 4, \"pytorch\": {\"version\": \"1\"}, \"ops\": []}", "schema_version"},
		{"{\"schema_version\": 0, \"pytorch\": {\"version\": \"1\"}, \"ops\": []}", "schema_version"},
		{"{\"schema_version\": 1, \"ops\": []}", "'pytorch' is missing"},
		{S2 "\"ops\": {}}", "'ops' must be a list"},
		{S2 "\"ops\": [{\"input\": \"a\", \"status\": \"fine\", \"aten\": [], \"steps\": []}]}",
		 "t.json: ops[0]: 'status' names no known status"},
		{S2 "\"ops\": [{\"input\": \"a\", \"status\": \"traced\", \"aten\": [], \"steps\": "
		 "[{\"layer\": \"cpp\", \"line\": \"7\"}]}]}",
		 "t.json: ops[0].steps[0]: 'line' must be an integer"},
		{S2 "\"ops\": [{\"input\": \"a\", \"status\": \"traced\", \"aten\": [], \"steps\": "
		 "[{\"layer\": \"gpu\"}]}]}",
		 "t.json: ops[0].steps[0]: 'layer' names no known layer"},
		{S2 "\"ops\": [{\"input\": \"a\", \"status\": \"traced\", \"aten\": [3], \"steps\": []}]}",
		 "'aten' must be a list of strings"},
		/* the top-level registry */
		{S2 OP_A "}], \"registry\": [{\"name\": \"mm\", \"func\": \"mm(Tensor self\"}]}",
		 "t.json: registry[0]: func 'mm(Tensor self'"},
		{S2 OP_A "}], \"registry\": [{\"name\": \"mm\", \"func\": \"bmm(Tensor self) -> Tensor\"}]}",
		 "t.json: registry[0]: 'name' is mm but 'func' names bmm"},
		{S2 OP_A "}], \"registry\": [{\"name\": \"mm\", \"func\": \"mm(Tensor self) -> Tensor\", "
		 "\"dispatch\": [{\"key\": \"CPU\"}]}]}",
		 "t.json: registry[0]: 'kernel' is missing"},
		{S2 OP_A "}], \"registry\": [{\"name\": \"mm\", \"func\": \"mm(Tensor self) -> Tensor\"}, "
		 "{\"name\": \"mm\", \"func\": \"mm(Tensor self) -> Tensor\"}]}",
		 "t.json: registry[1]: 'mm' is listed twice"},
		{S2 OP_A "}], \"registry\": {}}", "'registry' must be a list"},
		/* an op's registry: names of the top-level entries */
		{S2 OP_A ", \"registry\": [\"mm\"]}], \"registry\": [{\"name\": \"bmm\", "
		 "\"func\": \"bmm(Tensor self) -> Tensor\"}]}",
		 "t.json: ops[0]: 'registry' names 'mm', which the top-level 'registry' does not hold"},
		{S2 OP_A ", \"registry\": [\"mm\"]}]}",
		 "t.json: ops[0]: 'registry' names 'mm', which the top-level 'registry' does not hold"},
		{S2 OP_A ", \"registry\": [{\"name\": \"mm\", \"func\": \"mm(Tensor self) -> Tensor\"}]}], "
		 "\"registry\": []}",
		 "t.json: ops[0]: 'registry' must be a list of entry names"},
		{"{\"a\": [", "t.json:1:8: unexpected end of file"},
		/* JSON itself */
		{"", "t.json:1:1: unexpected end of file"},
		{S2 OP_A "}]} x", "t.json:1:122: more text after the top-level object"},
		{S2 OP_A "}], \"ops\": []}", "the key 'ops' is given twice"},
		{S2 OP_A "}], \"schema_version\": 1}", "the key 'schema_version' is given twice"},
		{S2 OP_A ", \"input\": \"b\"}]}", "the key 'input' is given twice"},
		{S2 OP_A ", \"note\": \"a\\qb\"}]}", "a bad escape in a string"},
		{S2 OP_A ", \"note\": \"\\ud800x\"}]}", "a lone UTF-16 surrogate"},
		{S2 OP_A ", \"note\": \"\\udc00\"}]}", "a lone UTF-16 surrogate"},
		{S2 OP_A ", \"note\": \"\\u12\"}]}", "a bad \\u escape"},
		{S2 OP_A ", \"note\": \"a\\u0000b\"}]}", "a NUL character"},
		{S2 OP_A ", \"note\": \"a\tb\"}]}", "a control character in a string"},
		{S2 OP_A ", \"note\": \"ab}]}", "a string does not end"},
		{S2 OP_A ", \"n\": 99999999999999999999}]}", "an integer out of range"},
		{S2 OP_A ", \"n\": 1.}]}", "a bad number"},
		{S2 OP_A ", \"n\": 01}]}", "expected ',' or '}'"},
		{S2 OP_A ", \"n\": +1}]}", "unexpected character"},
		{S2 OP_A ", \"n\": tru}]}", "unexpected character"},
		{S2 OP_A " \"n\": 1}]}", "expected ',' or '}'"},
		{S2 OP_A ", n: 1}]}", "expected a key in quotes"},
		{S2 OP_A ", \"n\" 1}]}", "expected ':'"},
		{S2 OP_A ", \"n\": [1 2]}]}", "expected ',' or ']'"},
	};
	for (size_t i = 0; i < OT_ARRAY_LEN(cases); i++) {
		ot_tj_doc *doc = (ot_tj_doc *)1;
		ck_assert_msg(read_doc(&doc, cases[i].text) < 0, "case %zu was accepted", i);
		ck_assert(doc == NULL);
		ck_assert_msg(strstr(ot_error_last(), cases[i].message), "case %zu: %s", i, ot_error_last());
	}
}
END_TEST

/* A hand-written document: one op, aten::foo, and its registry entry. */
#define DOC_HEAD "{\"schema_version\": 2, \"pytorch\": {\"version\": \"%s\", \"tag\": \"v%s\", " \
		 "\"commit\": \"0123456789abcdef0123456789abcdef01234567\", \"verified\": true}, \"ops\": ["
#define FOO_OP "{\"input\": \"aten::foo\", \"status\": \"traced\", \"aten\": [\"foo\"], \"steps\": [], " \
	       "\"registry\": [\"foo\"]}"
#define FOO_REGISTRY "], \"registry\": [{\"name\": \"foo\", \"line\": %d, " \
		     "\"func\": \"foo(Tensor self) -> Tensor\", \"dispatch\": null, \"derivative\": " \
		     "{\"name\": \"foo(Tensor self) -> Tensor\", \"line\": 3, \"formulas\": " \
		     "[{\"inputs\": \"self\", \"formula\": \"%s\", \"line\": 4}]}}]}"

/* Two hand-written documents: an input listed twice is an error; text with
 * '|' and backquotes stays inside its table cell. */
START_TEST(reader_markdown_cells)
{
	ot_buf ta = OT_BUF_INIT, tb = OT_BUF_INIT, md = OT_BUF_INIT, html = OT_BUF_INIT;
	ot_tj_doc *old = NULL, *new = NULL, *twice = NULL;
	ot_diff *d = NULL;
	ot_diff_render_opts ro = {NULL, 0, NULL};
	const char *cell;

	ot_buf_printf(&ta, DOC_HEAD FOO_OP FOO_REGISTRY, "1.0", "1.0", 7, "grad || x");
	ot_buf_printf(&tb, DOC_HEAD FOO_OP FOO_REGISTRY, "2.0", "2.0", 9, "grad | `x`");
	ck_assert_msg(read_doc(&old, ta.ptr) == 0, "%s", ot_error_last());
	ck_assert_msg(read_doc(&new, tb.ptr) == 0, "%s", ot_error_last());
	ck_assert_int_eq(old->ops.items[0].nregistry, 1);
	ck_assert_int_eq(old->ops.items[0].registry[0]->line, 7);
	ck_assert_int_eq(ot_diff_compare(&d, old, new), 0);
	ck_assert_int_eq(d->nchanges, 1);
	ck_assert_int_eq(d->changes[0].cls, OT_DIFF_BACKWARD);
	ot_diff_markdown(&md, d, old, new, &ro);
	/* a value with '|' in a cell is text (escape.h): GitHub and MkDocs
	 * split and show such a code span differently */
	ck_assert_msg(strstr(md.ptr, "formula `self`: grad &#124;&#124; x → grad &#124; \\`x\\`"), "%s",
		      md.ptr);
	ck_assert(strstr(md.ptr, "(https://github.com/pytorch/pytorch/blob/v1.0/" DERIVS "#L3)"));
	ck_assert_int_eq(ot_markdown_to_html(&html, md.ptr, md.size, false), 0);
	cell = strstr(html.ptr, "<td align=\"left\">backward changed</td>");
	ck_assert_msg(cell, "%s", html.ptr);
	ck_assert(strstr(cell, "grad || x → grad | `x`"));
	/* base URL "" leaves the links out */
	ro.base_url = "";
	ot_diff_markdown(&md, d, old, new, &ro);
	ck_assert(!strstr(md.ptr, "](http"));
	ot_diff_free(d);

	/* the same input twice in one document (both name the one entry) */
	ot_buf_clear(&ta);
	ot_buf_printf(&ta, DOC_HEAD FOO_OP ", " FOO_OP FOO_REGISTRY, "1.0", "1.0", 7, "a");
	ck_assert_msg(read_doc(&twice, ta.ptr) == 0, "%s", ot_error_last());
	ck_assert(twice->ops.items[0].registry[0] == twice->ops.items[1].registry[0]);
	ck_assert_int_lt(ot_diff_compare(&d, twice, new), 0);
	ck_assert(strstr(ot_error_last(), "'aten::foo' is listed twice"));
	ot_tracejson_doc_free(old);
	ot_tracejson_doc_free(new);
	ot_tracejson_doc_free(twice);
	ot_buf_free(&ta);
	ot_buf_free(&tb);
	ot_buf_free(&md);
	ot_buf_free(&html);
}
END_TEST

/* What JSON allows and the writer never does: keys in another order
 * (registry and ops before the rest), escapes, numbers and structures in
 * keys the reader does not know. */
START_TEST(reader_json_forms)
{
	static const char text[] =
		" {\"registry\": [{\"name\": \"mm\", \"func\": \"mm(Tensor self) -> Tensor\", "
		"\"extra\": {\"x\": [1.5e3, -0.25, true, null, {}], \"y\": []}}],\n"
		"\t\"ops\": [{\"registry\": [\"mm\"], \"steps\": [{\"layer\": \"cpp\", \"file\": "
		"\"a\\/b.cpp\", \"line\": 3, \"symbol\": \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\n\"}], "
		"\"aten\": [\"mm\"], \"status\": \"traced\", \"input\": \"torch.mm\"}],\r\n"
		"  \"tool\": {\"name\": \"x\", \"big\": {\"k0\": 0, \"k1\": 1, \"k2\": 2, \"k3\": 3, \"k4\": 4, "
		"\"k5\": 5, \"k6\": 6, \"k7\": 7, \"k8\": 8, \"k9\": 9}},\n"
		"  \"pytorch\": {\"version\": \"2.6.0\", \"verified\": false}, \"schema_version\": 2 } \n";
	ot_tj_doc *doc = NULL;
	const ot_tj_op *op;

	ck_assert_msg(read_doc(&doc, text) == 0, "%s", ot_error_last());
	ck_assert_str_eq(doc->version, "2.6.0");
	ck_assert(!doc->verified && !doc->tag);
	ck_assert_int_eq(doc->ops.len, 1);
	op = &doc->ops.items[0];
	ck_assert_str_eq(op->input, "torch.mm");
	ck_assert(op->has_registry && op->nregistry == 1);
	ck_assert_str_eq(op->registry[0]->func, "mm(Tensor self) -> Tensor");
	ck_assert_int_eq(op->nsteps, 1);
	ck_assert_str_eq(op->steps[0].file, "a/b.cpp");
	ck_assert_str_eq(op->steps[0].symbol, "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\" \\ \n");
	ot_tracejson_doc_free(doc);

	/* a key given twice past the map threshold is still found */
	doc = (ot_tj_doc *)1;
	ck_assert(read_doc(&doc, "{\"tool\": {\"k0\": 0, \"k1\": 1, \"k2\": 2, \"k3\": 3, \"k4\": 4, "
				 "\"k5\": 5, \"k6\": 6, \"k7\": 7, \"k8\": 8, \"k9\": 9, \"k3\": 3}}") < 0);
	ck_assert(doc == NULL);
	ck_assert_msg(strstr(ot_error_last(), "the key 'k3' is given twice"), "%s", ot_error_last());
}
END_TEST

/* Hostile files: deep nesting, every truncation of a good file and
 * thousands of seeded byte mutations are refused with a message or read,
 * never a crash or a hang. */
START_TEST(reader_hostile)
{
	ot_buf t = OT_BUF_INIT, m = OT_BUF_INIT;
	ot_tj_doc *doc = NULL;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t ok = 0;

	for (int i = 0; i < 100000; i++)
		ot_buf_putc(&t, '[');
	ck_assert(read_doc(&doc, t.ptr) < 0);
	ck_assert_msg(strstr(ot_error_last(), "not a trace.json"), "%s", ot_error_last());
	ot_buf_clear(&t);
	ot_buf_puts(&t, "{\"x\": ");
	for (int i = 0; i < 100000; i++)
		ot_buf_putc(&t, '[');
	ck_assert(read_doc(&doc, t.ptr) < 0);
	ck_assert_msg(strstr(ot_error_last(), "nested too deep"), "%s", ot_error_last());

	ot_buf_clear(&t);
	ot_buf_printf(&t, DOC_HEAD FOO_OP ", {\"input\": \"x\", \"status\": \"not-found\", \"aten\": [], "
			  "\"steps\": [{\"layer\": \"python\", \"file\": null, \"note\": \"\\u00e9\"}]}"
			  FOO_REGISTRY, "1.0", "1.0", 7, "grad \\\"x\\\"");
	ck_assert_msg(read_doc(&doc, t.ptr) == 0, "%s", ot_error_last());
	ot_tracejson_doc_free(doc);
	for (size_t n = 0; n < t.size; n++) {
		doc = (ot_tj_doc *)1;
		ck_assert_msg(ot_tracejson_read(&doc, t.ptr, n, "t.json") < 0, "prefix %zu read", n);
		ck_assert(doc == NULL && ot_error_last()[0]);
	}
	for (int k = 0; k < 20000; k++) {
		static const char bytes[] = "{}[]\",:\\ 0-eu\n";
		int rc;
		ot_buf_clear(&m);
		ot_buf_put(&m, t.ptr, t.size);
		for (int e = 0; e < 1 + k % 3; e++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			m.ptr[(seed >> 33) % m.size] = bytes[(seed >> 20) % (sizeof(bytes) - 1)];
		}
		rc = ot_tracejson_read(&doc, m.ptr, m.size, "t.json");
		ck_assert(rc == 0 ? doc != NULL : doc == NULL && ot_error_last()[0] != '\0');
		ok += rc == 0;
		ot_tracejson_doc_free(doc);
	}
	ck_assert(ok > 0); /* some mutations only touch string contents */
	ot_buf_free(&t);
	ot_buf_free(&m);
}
END_TEST

/* A trace.json without registry data (schema 1, written before `diff`, or
 * schema 1 with per-op entries, a form no longer read): nothing is compared
 * that only the registry tells, on either side, and the report says so. */
START_TEST(reader_no_registry)
{
	static const char *const olds[] = {
		"{\"schema_version\": 1, \"pytorch\": {\"version\": \"2.0\", \"tag\": \"v2.0\"}, \"ops\": "
		"[{\"input\": \"aten::foo\", \"status\": \"traced\", \"aten\": [\"foo\"], \"steps\": []}]}",
		"{\"schema_version\": 1, \"pytorch\": {\"version\": \"2.0\", \"tag\": \"v2.0\"}, \"ops\": "
		"[{\"input\": \"aten::foo\", \"status\": \"traced\", \"aten\": [\"foo\"], \"steps\": [], "
		"\"registry\": [{\"name\": \"foo\", \"func\": \"foo(Tensor self) -> Tensor\"}]}]}",
	};
	for (size_t i = 0; i < OT_ARRAY_LEN(olds); i++) {
		ot_buf ta = OT_BUF_INIT, md = OT_BUF_INIT;
		ot_tj_doc *old = NULL, *new = NULL;
		ot_diff *d = NULL;
		ot_buf_printf(&ta, DOC_HEAD FOO_OP FOO_REGISTRY, "1.0", "1.0", 7, "grad");
		ck_assert_msg(read_doc(&old, ta.ptr) == 0, "%s", ot_error_last());
		ck_assert_msg(read_doc(&new, olds[i]) == 0, "case %zu: %s", i, ot_error_last());
		ck_assert(old->ops.items[0].has_registry);
		ck_assert_msg(!new->ops.items[0].has_registry && !new->ops.items[0].nregistry, "case %zu", i);
		ck_assert_int_eq(ot_diff_compare(&d, old, new), 0);
		ck_assert(d->no_registry);
		ck_assert_int_eq(d->nchanges, 0);
		ot_diff_markdown(&md, d, old, new, NULL);
		ck_assert(strstr(md.ptr, "schema, dispatch and backward changes were not compared"));
		ot_diff_free(d);
		ot_tracejson_doc_free(old);
		ot_tracejson_doc_free(new);
		ot_buf_free(&ta);
		ot_buf_free(&md);
	}
}
END_TEST

/* ---- the compatibility rules, in process ------------------------------------------------ */

/* A document of release `ver` whose ops (`ops`, JSON objects) name the
 * entries `entries` (JSON objects). */
static ot_tj_doc *rule_doc(const char *ver, const char *ops, const char *entries)
{
	ot_buf t = OT_BUF_INIT;
	ot_tj_doc *doc = NULL;
	ot_buf_printf(&t, DOC_HEAD "%s], \"registry\": [%s]}", ver, ver, ops, entries);
	ck_assert_msg(read_doc(&doc, t.ptr) == 0, "%s: %s", t.ptr, ot_error_last());
	ot_buf_free(&t);
	return doc;
}

#define RULE_OP "{\"input\": \"aten::foo\", \"status\": \"traced\", \"aten\": [\"foo\"], " \
		"\"strategy\": \"aten\", \"steps\": [], \"registry\": [\"foo\"]}"

static char *rule_entry(const char *func)
{
	ot_buf t = OT_BUF_INIT;
	char *s;
	ot_buf_printf(&t, "{\"name\": \"foo\", \"line\": 5, \"func\": \"%s\", \"dispatch\": null, "
			  "\"derivative\": null}", func);
	s = ot_strdup(t.ptr);
	ot_buf_free(&t);
	return s;
}

/* Each rule of README's table, on foo's schema: the items a change from
 * `old` to `new` gives, in order, and whether each breaks callers. */
START_TEST(schema_rules)
{
	static const struct {
		const char *old, *new;
		struct {
			const char *what;
			bool breaking;
		} items[3];
	} cases[] = {
		/* widened: int -> SymInt, lists, optionals, Scalar */
		{"foo(Tensor self, int dim) -> Tensor", "foo(Tensor self, SymInt dim) -> Tensor",
		 {{"argument-widened", false}}},
		{"foo(Tensor self, int[2] stride) -> Tensor", "foo(Tensor self, SymInt[2] stride) -> Tensor",
		 {{"argument-widened", false}}},
		{"foo(Tensor self, int[] size) -> Tensor", "foo(Tensor self, SymInt[] size) -> Tensor",
		 {{"argument-widened", false}}},
		{"foo(Tensor self, int? n=None) -> Tensor", "foo(Tensor self, SymInt? n=None) -> Tensor",
		 {{"argument-widened", false}}},
		{"foo(Tensor self, int[1]? dim=None) -> Tensor", "foo(Tensor self, SymInt[1]? dim=None) -> Tensor",
		 {{"argument-widened", false}}},
		{"foo(Tensor self, *, int? correction) -> Tensor",
		 "foo(Tensor self, *, Scalar? correction=None) -> Tensor",
		 {{"argument-widened", false}, {"default-changed", false}}},
		{"foo(Tensor self, Tensor w) -> Tensor", "foo(Tensor self, Tensor? w) -> Tensor",
		 {{"argument-widened", false}}},
		{"foo(Tensor self, int d) -> Tensor", "foo(Tensor self, SymInt? d) -> Tensor",
		 {{"argument-widened", false}}},
		/* read as the same type by PyTorch's schema check */
		{"foo(int device_index) -> int", "foo(DeviceIndex device_index) -> int",
		 {{"argument-retyped", false}}},
		/* narrowed */
		{"foo(Tensor self, SymInt dim) -> Tensor", "foo(Tensor self, int dim) -> Tensor",
		 {{"argument-retyped", true}}},
		{"foo(Tensor self, int[2] s) -> Tensor", "foo(Tensor self, int[] s) -> Tensor",
		 {{"argument-retyped", true}}},
		{"foo(Tensor self, Tensor? w) -> Tensor", "foo(Tensor self, Tensor w) -> Tensor",
		 {{"argument-retyped", true}}},
		{"foo(Tensor self, int[] offsets) -> Tensor", "foo(Tensor self, Tensor offsets) -> Tensor",
		 {{"argument-retyped", true}}},
		{"foo(Tensor self, Scalar s) -> Tensor", "foo(Tensor self, int s) -> Tensor",
		 {{"argument-retyped", true}}},
		/* arguments added */
		{"foo(Tensor self) -> Tensor", "foo(Tensor self, int x=0) -> Tensor", {{"argument-added", false}}},
		{"foo(Tensor self) -> Tensor", "foo(Tensor self, *, int x=0) -> Tensor",
		 {{"keyword-argument-added", false}}},
		{"foo(Tensor self) -> Tensor", "foo(Tensor self, int x) -> Tensor", {{"argument-added", true}}},
		{"foo(Tensor self, int y=1) -> Tensor", "foo(Tensor self, int x=0, int y=1) -> Tensor",
		 {{"argument-added", true}}},
		{"foo(Tensor self, *, int y=1) -> Tensor", "foo(Tensor self, *, int x=0, int y=1) -> Tensor",
		 {{"keyword-argument-added", true}}},
		{"foo(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
		 "foo(Tensor self, *, int x=0, Tensor(a!) out) -> Tensor(a!)", {{"keyword-argument-added", false}}},
		/* removed, renamed, reordered */
		{"foo(Tensor self, bool flag=False) -> Tensor", "foo(Tensor self) -> Tensor",
		 {{"argument-removed", true}}},
		{"foo(Tensor self, Tensor mean_dy) -> Tensor", "foo(Tensor self, Tensor sum_dy) -> Tensor",
		 {{"argument-renamed", true}}},
		{"foo(Tensor a, Tensor b) -> Tensor", "foo(Tensor b, Tensor a) -> Tensor",
		 {{"argument-order-changed", true}}},
		/* defaults, keyword-only, alias annotations, returns, variants */
		{"foo(Tensor self, int d=0) -> Tensor", "foo(Tensor self, int d=1) -> Tensor",
		 {{"default-changed", true}}},
		{"foo(Tensor self, int d=0) -> Tensor", "foo(Tensor self, int d) -> Tensor",
		 {{"default-changed", true}}},
		{"foo(Tensor self, int d) -> Tensor", "foo(Tensor self, int d=0) -> Tensor",
		 {{"default-changed", false}}},
		{"foo(Tensor self, *, int d=0) -> Tensor", "foo(Tensor self, int d=0) -> Tensor",
		 {{"keyword-only-changed", false}}},
		{"foo(Tensor self, int d=0) -> Tensor", "foo(Tensor self, *, int d=0) -> Tensor",
		 {{"keyword-only-changed", true}}},
		{"foo(Tensor self, Tensor noise) -> Tensor", "foo(Tensor self, Tensor(b!) noise) -> Tensor",
		 {{"alias-changed", true}}},
		{"foo(Tensor self) -> (Tensor, Tensor)", "foo(Tensor self) -> (Tensor, Tensor, Tensor)",
		 {{"returns-changed", true}}},
	};
	for (size_t i = 0; i < OT_ARRAY_LEN(cases); i++) {
		char *eo = rule_entry(cases[i].old), *en = rule_entry(cases[i].new);
		ot_tj_doc *old = rule_doc("1.0", RULE_OP, eo), *new = rule_doc("2.0", RULE_OP, en);
		ot_diff *d = NULL;
		size_t n = 0;
		bool breaking = false;
		ck_assert_int_eq(ot_diff_compare(&d, old, new), 0);
		ck_assert_msg(d->nchanges == 1 && d->changes[0].cls == OT_DIFF_SCHEMA, "case %zu: %zu changes",
			      i, d->nchanges);
		for (; n < 3 && cases[i].items[n].what; n++) {
			const ot_diff_item *it = &d->changes[0].items[n];
			ck_assert_msg(n < d->changes[0].nitems, "case %zu: %zu items", i, d->changes[0].nitems);
			ck_assert_msg(!strcmp(it->what, cases[i].items[n].what) &&
					      it->breaking == cases[i].items[n].breaking,
				      "case %zu item %zu: %s %d", i, n, it->what, it->breaking);
			ck_assert_msg(it->why && *it->why, "case %zu: no reason", i);
			breaking |= it->breaking;
		}
		ck_assert_msg(n == d->changes[0].nitems, "case %zu: %zu items", i, d->changes[0].nitems);
		ck_assert_int_eq(d->changes[0].breaking, breaking);
		ck_assert_int_eq(d->nbreaking, breaking);
		ot_diff_free(d);
		ot_tracejson_doc_free(old);
		ot_tracejson_doc_free(new);
		free(eo), free(en);
	}
}
END_TEST

/* Two ops reaching one overload share its change (counted once); an
 * overload removed is one row, whether an op that reaches it or the aten
 * input naming it says so. */
START_TEST(one_row_per_change)
{
	static const char ops1[] =
		"{\"input\": \"F.foo\", \"status\": \"traced\", \"aten\": [\"foo\", \"foo.vec\"], "
		"\"steps\": [], \"registry\": [\"foo\", \"foo.vec\"]}, "
		"{\"input\": \"aten::foo\", \"status\": \"traced\", \"strategy\": \"aten\", \"aten\": [\"foo\", "
		"\"foo.vec\"], \"steps\": [], \"registry\": [\"foo\", \"foo.vec\"]}, "
		"{\"input\": \"aten::foo.vec\", \"status\": \"traced\", \"strategy\": \"aten\", \"aten\": "
		"[\"foo.vec\"], \"steps\": [], \"registry\": [\"foo.vec\"]}";
	static const char ops2[] =
		"{\"input\": \"F.foo\", \"status\": \"traced\", \"aten\": [\"foo\"], \"steps\": [], "
		"\"registry\": [\"foo\"]}, "
		"{\"input\": \"aten::foo\", \"status\": \"traced\", \"strategy\": \"aten\", \"aten\": [\"foo\"], "
		"\"steps\": [], \"registry\": [\"foo\"]}";
	static const char e1[] =
		"{\"name\": \"foo\", \"line\": 5, \"func\": \"foo(Tensor self, int d) -> Tensor\", "
		"\"dispatch\": null}, {\"name\": \"foo.vec\", \"line\": 9, \"func\": \"foo.vec(Tensor self, "
		"int[] d) -> Tensor\", \"dispatch\": null}";
	static const char e2[] = "{\"name\": \"foo\", \"line\": 5, \"func\": \"foo(Tensor self, SymInt d) -> "
				 "Tensor\", \"dispatch\": [{\"key\": \"CompositeImplicitAutograd\", \"kernel\": "
				 "\"foo_symint\", \"line\": 6}]}";
	ot_tj_doc *old = rule_doc("1.0", ops1, e1), *new = rule_doc("2.0", ops2, e2);
	ot_diff *d = NULL;
	const ot_diff_change *ch;
	ck_assert_int_eq(ot_diff_compare(&d, old, new), 0);
	/* foo.vec removed (once, for its three ops), foo's schema widened,
	 * foo's implied kernel `foo` now `foo_symint` */
	ck_assert_int_eq(d->nchanges, 3);
	ck_assert_int_eq(d->counts[OT_DIFF_REMOVED], 1);
	ck_assert_int_eq(d->nbreaking, 1);
	ch = &d->changes[0];
	ck_assert(ch->cls == OT_DIFF_REMOVED && !strcmp(ch->overload, "foo.vec"));
	ck_assert_int_eq(ch->nops, 3);
	ck_assert_str_eq(ch->ops[0], "F.foo");
	ck_assert_str_eq(ch->ops[1], "aten::foo");
	ck_assert_str_eq(ch->ops[2], "aten::foo.vec");
	ch = &d->changes[1];
	ck_assert(ch->cls == OT_DIFF_SCHEMA && ch->nops == 2 && !strcmp(ch->items[0].what, "argument-widened"));
	ch = &d->changes[2];
	ck_assert(ch->cls == OT_DIFF_DISPATCH && ch->nops == 2);
	ck_assert_int_eq(ch->nitems, 1);
	ck_assert_str_eq(ch->items[0].what, "kernel-renamed");
	ck_assert_str_eq(ch->items[0].subject, "CompositeImplicitAutograd");
	ck_assert_str_eq(ch->items[0].old, "foo");
	ck_assert_str_eq(ch->items[0].new, "foo_symint");
	ck_assert(strstr(ch->items[0].why, "old entry has no dispatch table"));
	ck_assert_int_eq(d->nunchanged, 0);
	ot_diff_free(d);
	ot_tracejson_doc_free(old);
	ot_tracejson_doc_free(new);
}
END_TEST

/* A trace.json written without --full: its well-known ops are not
 * compared (their registry entries alone would pass for unchanged), and
 * the warning names the file. */
START_TEST(wellknown_not_compared)
{
	static const char ops1[] =
		RULE_OP ", {\"input\": \"torch.zeros\", \"status\": \"well-known\", \"aten\": [\"zeros\"], "
		"\"steps\": [], \"registry\": [\"zeros\"]}";
	static const char ops2[] =
		RULE_OP ", {\"input\": \"torch.zeros\", \"status\": \"traced\", \"aten\": [\"zeros\"], "
		"\"steps\": [], \"registry\": [\"zeros\"]}";
	static const char e[] = "{\"name\": \"foo\", \"line\": 5, \"func\": \"foo(Tensor self) -> Tensor\"}, "
				"{\"name\": \"zeros\", \"line\": 7, \"func\": \"zeros(int[] size) -> Tensor\"}";
	ot_tj_doc *old = rule_doc("1.0", ops1, e), *new = rule_doc("2.0", ops2, e);
	ot_diff *d = NULL;
	ot_buf md = OT_BUF_INIT, w = OT_BUF_INIT;
	ck_assert_int_eq(ot_diff_compare(&d, old, new), 0);
	ck_assert_int_eq(d->nunchanged, 1);
	ck_assert_str_eq(d->unchanged[0], "aten::foo");
	ck_assert_int_eq(d->nskipped, 1);
	ck_assert_str_eq(d->skipped[0].op, "torch.zeros");
	ck_assert(strstr(d->skipped[0].reason, "well-known in the old trace.json"));
	ck_assert_int_eq(d->wellknown_skipped, 1);
	ot_diff_warning(&w, d, old, new, false);
	ck_assert_str_eq(w.ptr, "the old trace.json (1.0) was written without --full: 1 well-known op was "
				"not traced there, so it is not compared (not \"unchanged\"); write both with "
				"optrace --full to compare them");
	ot_diff_markdown(&md, d, old, new, NULL);
	ck_assert_msg(strstr(md.ptr, "1 unchanged, 1 not compared (1 well-known in a trace.json written "
				     "without `--full`; listed in the JSON report).\n\n**Warning:** the old "
				     "trace.json (`1.0`) was written without `--full`"),
		      "%s", md.ptr);
	ot_diff_free(d);
	ot_tracejson_doc_free(old);
	ot_tracejson_doc_free(new);
	ot_buf_free(&md);
	ot_buf_free(&w);
}
END_TEST

/* ---- the real releases -------------------------------------------------------------------- */

static char *real_dir, *real_json, *real_all_json, *real_md, *real_all_md;
static int real_status = -1, real_all_status = -1;
static ot_buf real_err = OT_BUF_INIT;

static void real_setup(void)
{
	const char *src = tu_real_source();
	real_dir = tu_tmpdir("diff-real");
	real_json = tu_path(real_dir, "default.json");
	real_all_json = tu_path(real_dir, "all.json");
	real_md = tu_path(real_dir, "report.md");
	real_all_md = tu_path(real_dir, "report-all.md");
	real_status = optrace(NULL, &real_err,
			      (const char *[]){"diff", "-s", src, "1.13.1", "2.6.0", "ops.list", "--json",
					       real_json, "-o", real_md, NULL});
	real_all_status = optrace(NULL, &real_err,
				  (const char *[]){"diff", "-s", src, "1.13.1", "2.6.0", "--all", "--json",
						   real_all_json, "-o", real_all_md, NULL});
}

/* The line `line` of `path` at release `tag` of the real checkout. */
static char *real_line(const char *tag, const char *path, long long line)
{
	ot_buf out = OT_BUF_INIT;
	const char *p;
	long long n = 1;
	char *res;
	ck_assert_msg(tu_git_show(&out, tu_real_source(), tag, path), "no %s at %s", path, tag);
	for (p = out.ptr; *p && n < line; p++)
		n += *p == '\n';
	ck_assert_msg(n == line, "%s:%s has no line %lld", tag, path, line);
	res = ot_strndup(p, strcspn(p, "\n"));
	ot_buf_free(&out);
	return res;
}

static void check_real_loc(const ot_value *ch, const char *side, const char *file, const char *text)
{
	const ot_value *l = ot_v_get(ch, side);
	char *line;
	ck_assert_msg(l && l->type == OT_V_MAP, "%s %s: no %s place", sget(ch, "class"), sget(ch, "op"),
		      side);
	ck_assert_str_eq(sget(l, "file"), file);
	line = real_line(!strcmp(side, "old") ? "v1.13.1" : "v2.6.0", file, iget(l, "line"));
	ck_assert_msg(strstr(line, text), "%s %s:%lld is '%s', expected '%s'", side, file,
		      iget(l, "line"), line, text);
	free(line);
}

/* An item's own place (old_place/new_place): its line in that release
 * contains `text`. */
static void check_real_place(const ot_value *it, const char *key, const char *file, const char *text)
{
	const ot_value *l = ot_v_get(it, key);
	char *line;
	ck_assert_msg(l && l->type == OT_V_MAP, "%s: no %s", sget(it, "what"), key);
	ck_assert_str_eq(sget(l, "file"), file);
	line = real_line(!strcmp(key, "old_place") ? "v1.13.1" : "v2.6.0", file, iget(l, "line"));
	ck_assert_msg(strstr(line, text), "%s %s:%lld is '%s', expected '%s'", key, file, iget(l, "line"),
		      line, text);
	free(line);
}

/* One row per change: no two changes of a report are the same fact
 * (class, overload, items), and each names its ops in order. */
static void check_no_duplicates(const ot_value *root)
{
	const ot_value *l = ot_v_get(root, "changes");
	ot_map *seen = ot_map_new();
	ot_arena *a = ot_arena_new();
	for (size_t i = 0; i < ot_v_len(l); i++) {
		const ot_value *c = ot_v_at(l, i), *items = ot_v_get(c, "items"), *ops = ot_v_get(c, "ops");
		ot_buf k = OT_BUF_INIT;
		ot_buf_printf(&k, "%s|%s", sget(c, "class"), sget(c, "overload") ? sget(c, "overload") : "-");
		for (size_t j = 0; j < ot_v_len(items); j++)
			ot_buf_printf(&k, "|%s", sget(ot_v_at(items, j), "text"));
		/* an op (no overload) added or removed, a GPU change: the op's own */
		if (!strcmp(sget(c, "class"), "gpu") || !sget(c, "overload"))
			ot_buf_printf(&k, "|%s", sget(c, "op"));
		ck_assert_msg(!ot_map_get(seen, k.ptr), "reported twice: %s", k.ptr);
		ot_map_put(seen, ot_arena_strdup(a, k.ptr), (void *)1);
		ck_assert(ot_v_len(ops) >= 1);
		ck_assert_str_eq(sget(c, "op"), ot_v_cstr(ot_v_at(ops, 0)));
		for (size_t j = 1; j < ot_v_len(ops); j++)
			ck_assert(strcmp(ot_v_cstr(ot_v_at(ops, j - 1)), ot_v_cstr(ot_v_at(ops, j))) < 0);
		ot_buf_free(&k);
	}
	ck_assert_int_eq(iget(ot_v_get(root, "counts"), "changes"), (long long)ot_v_len(l));
	ot_map_free(seen);
	ot_arena_free(a);
}

START_TEST(real_default_list)
{
	ot_arena *a = ot_arena_new();
	ot_value *root;
	const ot_value *c, *counts;
	ck_assert_msg(real_status == 0, "status %d: %s", real_status, real_err.ptr);
	root = load_json(a, real_json);
	counts = ot_v_get(root, "counts");
	ck_assert_int_eq(iget(counts, "ops"), 85);
	ck_assert_str_eq(sget(ot_v_get(root, "old"), "tag"), "v1.13.1");
	ck_assert_str_eq(sget(ot_v_get(root, "new"), "tag"), "v2.6.0");

	/* no breaking change: every schema change of the list widens a type
	 * (int -> SymInt, int? -> Scalar?) or adds a default */
	ck_assert_int_eq(iget(counts, "breaking"), 0);
	check_no_duplicates(root);
	{
		const ot_value *cls = ot_v_get(counts, "classes");
		/* 22 since Tensor.split is read as the Python method it is
		 * (torch/_tensor.py): F.multi_head_attention_forward's w.split
		 * reaches split.Tensor and split_with_sizes, not split.sizes */
		ck_assert_int_eq(iget(ot_v_get(cls, "schema"), "changes"), 22);
		ck_assert_int_eq(iget(ot_v_get(cls, "schema"), "breaking"), 0);
		ck_assert_int_eq(iget(ot_v_get(cls, "removed"), "changes"), 0);
	}
	/* copy_stub's registrations are in both releases (cpu/CopyKernel.cpp,
	 * cuda/Copy.cu): a trace that stops at the stub claims no removal */
	{
		const ot_value *l = ot_v_get(root, "changes");
		for (size_t i = 0; i < ot_v_len(l); i++)
			ck_assert_msg(!find_item(ot_v_at(l, i), "registration-removed", NULL) ||
					      !strstr(sget(find_item(ot_v_at(l, i), "registration-removed", NULL), "old"),
						      "copy_stub"),
				      "copy_stub's registration reported removed");
	}
	/* 1. cross_entropy_loss: ignore_index int -> SymInt, one change for both ops */
	c = need_change(root, "schema", "F.cross_entropy", "cross_entropy_loss");
	ck_assert(c == need_change(root, "schema", "nn.CrossEntropyLoss", "cross_entropy_loss"));
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "ops")), 2);
	check_item(need_item(c, "argument-widened", "ignore_index"), "int", "SymInt", false);
	ck_assert(strstr(sget(need_item(c, "argument-widened", "ignore_index"), "why"),
			 "C++ keeps the int overload"));
	check_real_loc(c, "old", NATIVE, "int ignore_index=-100");
	check_real_loc(c, "new", NATIVE, "SymInt ignore_index=-100");
	/* 2. nll_loss_nd: the same */
	c = need_change(root, "schema", "F.nll_loss", "nll_loss_nd");
	check_item(need_item(c, "argument-widened", "ignore_index"), "int", "SymInt", false);
	/* 3. embedding: padding_idx int -> SymInt, and its kernel became embedding_symint */
	c = need_change(root, "schema", "F.embedding", "embedding");
	check_item(need_item(c, "argument-widened", "padding_idx"), "int", "SymInt", false);
	c = need_change(root, "dispatch", "F.embedding", "embedding");
	check_item(need_item(c, "kernel-renamed", "CompositeExplicitAutograd"), "embedding",
		   "embedding_symint", false);
	/* 3b. the implied CompositeImplicitAutograd kernels (no table at 1.13.1)
	 * renamed at 2.6.0, each linked to both definitions */
	{
		static const struct {
			const char *op, *overload, *old, *new, *file;
		} ren[] = {
			{"F.conv2d", "conv2d", "conv2d", "conv2d_symint", "aten/src/ATen/native/Convolution.cpp"},
			{"F.conv2d", "conv2d.padding", "conv2d", "conv2d_padding_symint",
			 "aten/src/ATen/native/Convolution.cpp"},
			{"F.layer_norm", "layer_norm", "layer_norm", "layer_norm_symint",
			 "aten/src/ATen/native/layer_norm.cpp"},
			{"F.cross_entropy", "cross_entropy_loss", "cross_entropy_loss", "cross_entropy_loss_symint",
			 "aten/src/ATen/native/LossNLL.cpp"},
			{"F.nll_loss", "nll_loss_nd", "nll_loss_nd", "nll_loss_nd_symint",
			 "aten/src/ATen/native/LossNLL.cpp"},
		};
		for (size_t i = 0; i < OT_ARRAY_LEN(ren); i++) {
			const ot_value *it;
			char want[128];
			c = need_change(root, "dispatch", ren[i].op, ren[i].overload);
			it = need_item(c, "kernel-renamed", "CompositeImplicitAutograd");
			check_item(it, ren[i].old, ren[i].new, false);
			ck_assert(strstr(sget(it, "why"), "the old entry has no dispatch table"));
			snprintf(want, sizeof(want), "%s(", ren[i].old);
			check_real_place(it, "old_place", ren[i].file, want);
			snprintf(want, sizeof(want), "%s(", ren[i].new);
			check_real_place(it, "new_place", ren[i].file, want);
		}
		c = need_change(root, "dispatch", "nn.Conv2d", "conv2d");
		ck_assert_int_eq(ot_v_len(ot_v_get(c, "ops")), 2);
	}
	/* 4. mm.out gained XPU and SparseCsrMeta kernels */
	c = need_change(root, "dispatch", "torch.mm", "mm.out");
	check_item(need_item(c, "keys-added", "XPU"), NULL, "mm_out_xpu", false);
	check_item(need_item(c, "keys-added", "SparseCsrMeta"), NULL, "_sparse_csr_mm_out", false);
	check_real_loc(c, "new", NATIVE, "func: mm.out(");
	/* 5. argsort.stable lost its kernels (now CompositeImplicitAutograd); its
	 * .stable_out was autogen at 1.13.1, written out at 2.6.0: not new */
	c = need_change(root, "dispatch", "torch.argsort", "argsort.stable");
	check_item(need_item(c, "composite-changed", NULL), NULL, "CompositeImplicitAutograd", false);
	check_item(need_item(c, "keys-removed", "CPU, CUDA"), "argsort_stable", NULL, false);
	ck_assert(!find_change(root, "added", "torch.argsort", "argsort.stable_out"));
	/* 6. mean.dtype_out was commented out at 1.13.1 */
	c = need_change(root, "added", "torch.mean", "mean.dtype_out");
	check_real_loc(c, "new", NATIVE, "func: mean.dtype_out(");
	/* 7. where: method variant of where.ScalarOther, MPS kernel of where.self */
	c = need_change(root, "schema", "torch.where", "where.ScalarOther");
	check_item(need_item(c, "variant-added", "method"), NULL, NULL, false);
	c = need_change(root, "dispatch", "torch.where", "where.self");
	check_item(need_item(c, "kernel-renamed", "MPS"), "where_mps", "where", false);
	check_item(need_item(c, "keys-added", "NestedTensorCPU, NestedTensorCUDA"), NULL,
		   "NestedTensor_where", false);
	/* 8. _native_multi_head_attention: per-device kernels */
	c = need_change(root, "dispatch", "nn.MultiheadAttention", "_native_multi_head_attention");
	check_item(need_item(c, "kernel-renamed", "CPU"), "native_multi_head_attention",
		   "native_multi_head_attention_cpu", false);
	/* 9. max_pool2d: an MPS kernel and a derivatives.yaml entry */
	c = need_change(root, "dispatch", "F.max_pool2d", "max_pool2d");
	check_item(need_item(c, "keys-added", "MPS"), NULL, "mps_max_pool2d", false);
	c = need_change(root, "backward", "F.max_pool2d", "max_pool2d");
	need_item(c, "derivative-added", NULL);
	check_real_loc(c, "new", DERIVS, "name: max_pool2d(");
	/* 10. linear's backward checks grad.defined() */
	c = need_change(root, "backward", "F.linear", "linear");
	check_item(need_item(c, "formula-changed", "input, weight, bias"),
		   "linear_backward(input, grad, weight, grad_input_mask)",
		   "grad.defined() ? linear_backward(input, grad, weight, grad_input_mask) : "
		   "std::tuple<Tensor, Tensor, Tensor>()",
		   false);
	/* 11. sum: formulas moved under dispatch: Default (no change) and gained
	 * AutogradNestedTensor ones */
	c = need_change(root, "backward", "torch.sum", "sum");
	check_item(need_item(c, "formula-added", "AutogradNestedTensor: self"), NULL,
		   "ones_like(self) * grad", false);
	check_item(need_item(c, "forward-formula-added", "AutogradNestedTensor: result"), NULL,
		   "auto_linear", false);
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "items")), 2);
	/* 12-15. definitions in other files */
	c = need_change(root, "moved", "Tensor.matmul", NULL);
	check_item(need_item(c, "moved", "matmul_nested, matmul_out_nested"),
		   "aten/src/ATen/native/nested/NestedTensorMath.cpp",
		   "aten/src/ATen/native/nested/NestedTensorMatmul.cpp", false);
	check_real_loc(c, "old", "aten/src/ATen/native/nested/NestedTensorMath.cpp", "matmul_nested");
	check_real_loc(c, "new", "aten/src/ATen/native/nested/NestedTensorMatmul.cpp", "matmul_nested");
	c = need_change(root, "moved", "torch.exp", NULL);
	check_item(need_item(c, "moved", "exp_out_mps"), "aten/src/ATen/native/mps/operations/UnaryOps.mm",
		   "aten/src/ATen/native/mps/operations/UnaryKernel.mm", false);
	c = need_change(root, "moved", "F.relu", NULL);
	check_item(need_item(c, "moved", "NestedTensor_relu_"),
		   "aten/src/ATen/native/nested/NestedTensorMath.cpp",
		   "aten/src/ATen/native/nested/NestedTensorUnaryOps.cpp", false);
	c = need_change(root, "moved", "F.normalize", NULL);
	check_item(need_item(c, "moved", "aten.norm"), "torch/_decomp/decompositions.py",
		   "torch/_refs/__init__.py", false);
	/* 16-17. stub registrations */
	check_item(need_op_item(root, "moved", "F.gelu", "registration-changed",
				"aten/src/ATen/native/cpu/Activation.cpp"),
		   "REGISTER_DISPATCH(GeluKernel, &GeluKernelImpl)",
		   "ALSO_REGISTER_AVX512_DISPATCH(GeluKernel, &GeluKernelImpl)", false);
	c = need_op_change(root, "moved", "F.gelu", "registration-changed",
			   "aten/src/ATen/native/cpu/Activation.cpp");
	check_real_loc(c, "old", "aten/src/ATen/native/cpu/Activation.cpp", "REGISTER_DISPATCH(GeluKernel");
	check_real_loc(c, "new", "aten/src/ATen/native/cpu/Activation.cpp",
		       "ALSO_REGISTER_AVX512_DISPATCH(GeluKernel");
	check_item(need_op_item(root, "moved", "torch.mean", "registration-changed",
				"aten/src/ATen/native/cpu/ReduceOpsKernel.cpp"),
		   "REGISTER_DISPATCH(mean_stub, &mean_kernel_impl)", "REGISTER_DISPATCH(mean_stub, no kernel)",
		   false);
	/* 18. var.correction: dim and correction got defaults, correction
	 * became a Scalar (takes the ints it took): compatible */
	c = need_change(root, "schema", "torch.var", "var.correction");
	ck_assert(!bget(c, "breaking"));
	check_item(need_item(c, "default-changed", "dim"), NULL, "None", false);
	check_item(need_item(c, "argument-widened", "correction"), "int?", "Scalar?", false);
	check_item(need_item(c, "default-changed", "correction"), NULL, "None", false);
	check_real_loc(c, "old", NATIVE, "int[1]? dim, *, int? correction,");
	check_real_loc(c, "new", NATIVE, "int[1]? dim=None, *, Scalar? correction=None,");
	/* 19. new ops */
	need_change(root, "added", "F.scaled_dot_product_attention", NULL);
	need_change(root, "added", "F.rms_norm", NULL);
	/* one row per change: the Markdown report names both ops of conv2d */
	{
		char *md = tu_read_file(real_md, NULL);
		ck_assert(strstr(md, "| schema changed | `F.conv2d`, `nn.Conv2d` | `aten::conv2d`: `stride` type "
				     "widened: `int[2]` → `SymInt[2]`;"));
		/* every op: the code of some function its main paths run changed
		 * (without the implementation class, 64: see below) */
		ck_assert(strstr(md, ": 85 ops, 85 with changes; "));
		ck_assert(!strstr(md, "(breaking)"));
		free(md);
	}
	/* (GPU library changes compare the main paths' libraries: not checked
	 * here until the traces mark them, see issue 15) */

	/* unchanged but for the code, checked in both trees: the same entries
	 * (tags aside), no move */
	{
		static const char *const same[] = {"F.softmax", "torch.zeros", "torch.special.erf",
						   "torch.gather", "Tensor.view", "torch.einsum"};
		for (size_t i = 0; i < OT_ARRAY_LEN(same); i++)
			ck_assert_msg(changes_of(root, same[i]) == changes_in(root, same[i], "implementation"),
				      "%s changed", same[i]);
		/* 64 ops with changes of the other classes: with Python operators
		 * traced, nn.MultiheadAttention's CUDA main path reaches mul's
		 * TensorIterator kernel at 1.13.1 (BinaryMulKernel.cu) and add's
		 * generated ufunc kernel at 2.6.0 */
		ck_assert_int_eq(ops_with_changes_besides(root, "implementation"), 64);
	}
	/* lstm moved inside RNN.cpp: no change of place */
	ck_assert(!find_change(root, "moved", "nn.LSTM", NULL));
	ot_arena_free(a);
}
END_TEST

/* "implementation changed" on the default list: 20 functions of main
 * paths whose code changed, each read in both trees by hand (git show
 * v1.13.1:F, v2.6.0:F) and counted as statements (tests/audit/
 * verify_bodies.py re-derives every row of the report from git, with
 * the code as tokens: C++ token sequences, Python ASTs). */
static const struct impl_row {
	const char *subject, *layer, *old_place, *new_place, *op, *text;
	long long added, removed;
	const char *what; /* what changed, as read in both trees */
} impl_rows[] = {
	{"linear", "cpp", "aten/src/ATen/native/Linear.cpp:21", "aten/src/ATen/native/Linear.cpp:73", "F.linear",
	 "linear", 17, 11, "a TORCH_CHECK of the dims; _flatten_nd_linear for contiguous 3-D input and strided 1-D bias"},
	{"lstm", "cpp", "aten/src/ATen/native/RNN.cpp:1380", "aten/src/ATen/native/RNN.cpp:1429", "nn.LSTM", "lstm(",
	 18, 3, "the oneDNN path (lstm_mkldnn_stub when use_mkldnn); MPS without the !bidirectional test"},
	{"convolution", "cpp", "aten/src/ATen/native/Convolution.cpp:1034",
	 "aten/src/ATen/native/Convolution.cpp:1173", "F.conv2d", "convolution(", 1, 1,
	 "the signature's c10::optional<Tensor> became std::optional<Tensor>"},
	{"cumsum_out", "cpp", "aten/src/ATen/native/ReduceOps.cpp:407", "aten/src/ATen/native/ReduceOps.cpp:491",
	 "torch.cumsum", "cumsum_out", 2, 2, "std::optional dtype; impl_func_cum_ops no longer takes the dtype"},
	{"mean_backward", "backward", "torch/csrc/autograd/FunctionsManual.cpp:643",
	 "torch/csrc/autograd/FunctionsManual.cpp:726", "F.adaptive_avg_pool2d", "mean_backward", 3, 3,
	 "opt_dim.value().empty(), std::move of numel and n"},
	{"nll_loss_forward_out_cpu_template", "cpp", "aten/src/ATen/native/LossNLL.cpp:274",
	 "aten/src/ATen/native/LossNLL.cpp:299", "F.cross_entropy", "nll_loss_forward_out_cpu_template", 1, 1,
	 "AT_DISPATCH_FLOATING_TYPES_AND2 adds Half"},
	{"_batch_norm_impl_index", "cpp", "aten/src/ATen/native/Normalization.cpp:436",
	 "aten/src/ATen/native/Normalization.cpp:546", "F.batch_norm", "_batch_norm_impl_index", 13, 24,
	 "_select_batch_norm_backend replaces the inline use_cudnn / use_miopen tests"},
	{"native_group_norm", "cpp", "aten/src/ATen/native/group_norm.cpp:52", "aten/src/ATen/native/group_norm.cpp:61",
	 "F.group_norm", "native_group_norm", 10, 8, "mixed-type inputs: check_mixed_data_type, param_scalar_type"},
	{"layer_norm_cpu", "cpp", "aten/src/ATen/native/layer_norm.cpp:62", "aten/src/ATen/native/layer_norm.cpp:76",
	 "F.layer_norm", "layer_norm_cpu", 9, 4, "mixed-type inputs, mean/rstd in the parameters' dtype"},
	{"GeluKernelImpl", "kernel", "aten/src/ATen/native/cpu/Activation.cpp:306",
	 "aten/src/ATen/native/cpu/Activation.cpp:323", "F.gelu", "GeluKernelImpl", 10, 30,
	 "a reduced-float branch; the lambdas replaced by scalar_gelu / vectorized_gelu helpers"},
	{"gelu.out", "meta", "aten/src/ATen/native/Activation.cpp:167", "aten/src/ATen/native/Activation.cpp:229",
	 "F.gelu", "TORCH_META_FUNC(gelu)", 1, 1, "c10::string_view became std::string_view"},
	/* nn.GRU's CPU call allocates with empty_like, which makes an
	 * empty_strided tensor (the profiler records it); F.batch_norm reached
	 * it only through the cuDNN branch, which a CPU call never takes, and
	 * torch.mean only through make_reduction's self.to(in_dtype), which a
	 * float32 call skips (its profiled empty_strided is TensorIterator's
	 * own conversion of div_'s scalar) */
	{"empty_strided_cpu", "cpp", "aten/src/ATen/native/TensorFactories.cpp:212",
	 "aten/src/ATen/native/TensorFactories.cpp:319", "nn.GRU", "empty_strided_cpu", 6, 2,
	 "fill_empty_deterministic_ under deterministic algorithms"},
	{"sum_out", "cpp", "aten/src/ATen/native/ReduceOps.cpp:1080", "aten/src/ATen/native/ReduceOps.cpp:1197",
	 "torch.einsum", "sum_out", 8, 1, "a float accumulation buffer when should_use_acc_buffer(iter)"},
	{"def dropout", "python", "torch/nn/functional.py:1235", "torch/nn/functional.py:1401", "F.dropout",
	 "def dropout", 2, 2, "an f-string error message; the return wrapped in parentheses"},
	{"cudnn_batch_norm", "kernel", "aten/src/ATen/native/cudnn/BatchNorm.cpp:77",
	 "aten/src/ATen/native/cudnn/BatchNorm.cpp:123", "F.batch_norm", "cudnn_batch_norm", 6, 17,
	 "value_or, _get_cudnn_batch_norm_reserve_space_size, const_data_ptr"},
	{"cunn_SoftMaxForward", "cuda", "aten/src/ATen/native/cuda/SoftMax.cu:629",
	 "aten/src/ATen/native/cuda/SoftMax.cu:663", "F.log_softmax", "cunn_SoftMaxForward", 3, 5,
	 "const input; blockReduceWarp in place of blockReduce"},
	{"def mse_loss", "python", "torch/nn/functional.py:3264", "torch/nn/functional.py:3835", "F.mse_loss",
	 "def mse_loss", 18, 4, "a weight argument and its weighted reductions"},
	{"index_kernel", "kernel", "aten/src/ATen/native/cpu/IndexKernel.cpp:23",
	 "aten/src/ATen/native/cpu/IndexKernel.cpp:24", "Tensor.index_put_", "index_kernel", 1, 1,
	 "the element read through c10::load"},
	{"index_kernel", "kernel", "aten/src/ATen/native/cuda/IndexKernel.cu:195",
	 "aten/src/ATen/native/cuda/IndexKernel.cu:197", "Tensor.index_put_", "index_kernel", 1, 1,
	 "const IntArrayRef parameters"},
	{"def forward", "python", "torch/nn/modules/rnn.py:726", "torch/nn/modules/rnn.py:1042", "nn.LSTM",
	 "def forward", 14, 7, "_update_flat_weights, zero states made before the checks, 2-D/3-D input check"},
};

/* The implementation change whose old place is `old_place`. */
static const ot_value *impl_change(const ot_value *root, const char *old_place)
{
	const ot_value *l = ot_v_get(root, "changes");
	for (size_t i = 0; i < ot_v_len(l); i++) {
		const ot_value *c = ot_v_at(l, i);
		const ot_value *it = ot_v_at(ot_v_get(c, "items"), 0);
		if (str_is(sget(c, "class"), "implementation") && str_is(sget(it, "old"), old_place))
			return c;
	}
	return NULL;
}

START_TEST(real_implementation)
{
	ot_arena *a = ot_arena_new();
	ot_value *root;
	ck_assert_msg(real_status == 0, "status %d: %s", real_status, real_err.ptr);
	root = load_json(a, real_json);
	for (size_t i = 0; i < OT_ARRAY_LEN(impl_rows); i++) {
		const struct impl_row *r = &impl_rows[i];
		const ot_value *c = impl_change(root, r->old_place), *it;
		char file[200];
		ck_assert_msg(c, "no implementation change of %s (%s)", r->subject, r->old_place);
		it = need_item(c, "body-changed", r->subject);
		ck_assert_str_eq(sget(it, "layer"), r->layer);
		ck_assert_str_eq(sget(it, "new"), r->new_place);
		ck_assert_msg(in_list(ot_v_get(c, "ops"), r->op), "%s: %s not among its ops", r->subject, r->op);
		ck_assert_msg(iget(it, "statements_added") == r->added && iget(it, "statements_removed") == r->removed,
			      "%s: +%lld -%lld, expected +%lld -%lld (%s)", r->subject, iget(it, "statements_added"),
			      iget(it, "statements_removed"), r->added, r->removed, r->what);
		ck_assert(!bget(c, "breaking"));
		snprintf(file, sizeof(file), "%.*s", (int)strcspn(r->new_place, ":"), r->new_place);
		check_real_loc(c, "old", file, r->text);
		check_real_loc(c, "new", file, r->text);
	}
	/* one row per function: the CPU and CUDA index_kernel are two */
	ck_assert(impl_change(root, "aten/src/ATen/native/cpu/IndexKernel.cpp:23") !=
		  impl_change(root, "aten/src/ATen/native/cuda/IndexKernel.cu:195"));
	/* the same code, wrapped otherwise by a formatter (a trailing comma
	 * added, the call on nine lines): no row */
	ck_assert(!impl_change(root, "torch/nn/functional.py:2419")); /* def batch_norm */
	/* what a default call does not run is not compared: the out= rule of
	 * autograd for ops that are not out= (matmul's has_out is false;
	 * fft_r2c's out is `{}`), gather's sparse backward (sparse_grad is
	 * false) */
	for (size_t i = 0; i < ot_v_len(ot_v_get(root, "changes")); i++) {
		const ot_value *c = ot_v_at(ot_v_get(root, "changes"), i);
		const ot_value *it = ot_v_at(ot_v_get(c, "items"), 0);
		const ot_value *ops = ot_v_get(c, "ops");
		if (!str_is(sget(c, "class"), "implementation"))
			continue;
		if (str_is(sget(it, "subject"), "throw_error_out_requires_grad"))
			for (size_t k = 0; k < ot_v_len(ops); k++)
				ck_assert_msg(ot_ends_with(ot_v_cstr(ot_v_at(ops, k)), ".out"),
					      "throw_error_out_requires_grad on the main path of %s",
					      ot_v_cstr(ot_v_at(ops, k)));
		ck_assert(!str_is(sget(it, "subject"), "_gather_sparse_backward"));
	}
	ot_arena_free(a);
}
END_TEST

/* The tag form and the file form (trace.json files written by optrace for
 * the same ops) give byte-identical reports, for the default list and for
 * --all (run without the list here; with one, both forms give the list's
 * spelling the page of the --all entry it names, see check_slugs). */
START_TEST(real_file_form)
{
	const char *src = tu_real_source();
	char *dir = tu_tmpdir("diff-real-files");
	char *small = write_list(dir, "small.list", "torch.mm\nF.linear\n");
	static const char *const rels[] = {"1.13.1", "2.6.0"};
	ot_buf err = OT_BUF_INIT;
	int rc;

	ck_assert_msg(real_status == 0, "status %d: %s", real_status, real_err.ptr);
	for (int all = 0; all < 2; all++) {
		const char *list = all ? small : "ops.list";
		/* the Markdown names the JSON report: both forms write the same one */
		char *json = all ? tu_path(dir, "all.json") : ot_strdup(real_json);
		char *md = all ? tu_path(dir, "all.md") : ot_strdup(real_md);
		char *tj[2], *tag_json, *tag_md, *a;
		if (all) {
			rc = optrace(NULL, &err, (const char *[]){"diff", "-q", "-s", src, "1.13.1", "2.6.0",
								  "--all", list, "--json", json, "-o", md,
								  NULL});
			ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
		}
		tag_json = tu_read_file(json, NULL);
		tag_md = tu_read_file(md, NULL);
		for (int s = 0; s < 2; s++) {
			char *out = tu_path(dir, all ? (s ? "all-new" : "all-old") : (s ? "new" : "old"));
			/* --full: a diff traces well-known ops in full; --all with
			 * a list named traces both, as the diff does */
			rc = optrace(NULL, &err, (const char *[]){"-q", "-s", src, "-t", rels[s], "--full",
								  "--format", "json", "-o", out,
								  all ? "--all" : "--full", list, NULL});
			ck_assert_msg(rc == 0 || rc == 1, "%s: %d %s", rels[s], rc, err.ptr);
			tj[s] = tu_path(out, "trace.json");
			free(out);
		}
		unlink(json);
		unlink(md);
		rc = optrace(NULL, &err, (const char *[]){"diff", tj[0], tj[1], "--json", json, "-o", md,
							  NULL});
		ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
		a = tu_read_file(json, NULL);
		ck_assert_msg(!strcmp(a, tag_json), "%s JSON reports differ", all ? "--all" : "default");
		free(a);
		a = tu_read_file(md, NULL);
		ck_assert_msg(!strcmp(a, tag_md), "%s Markdown reports differ", all ? "--all" : "default");
		free(a);
		free(tj[0]), free(tj[1]), free(json), free(md), free(tag_json), free(tag_md);
	}
	ot_buf_free(&err);
	free(dir), free(small);
}
END_TEST

/* No reported move is a line shift: old and new places never share a file. */
static void check_no_line_shifts(const ot_value *root)
{
	const ot_value *l = ot_v_get(root, "changes");
	size_t moves = 0;
	for (size_t i = 0; i < ot_v_len(l); i++) {
		const ot_value *c = ot_v_at(l, i), *items = ot_v_get(c, "items");
		for (size_t k = 0; k < ot_v_len(items); k++) {
			const ot_value *it = ot_v_at(items, k);
			if (strcmp(sget(it, "what"), "moved") && strcmp(sget(it, "what"), "registration-moved"))
				continue;
			moves++;
			ck_assert_msg(strcmp(sget(it, "old"), sget(it, "new")) && !strstr(sget(it, "new"), sget(it, "old")),
				      "%s: %s -> %s", sget(c, "op"), sget(it, "old"), sget(it, "new"));
		}
	}
	ck_assert(moves > 0);
}

START_TEST(real_no_noise)
{
	ot_arena *a = ot_arena_new();
	ck_assert_msg(real_status == 0 && real_all_status == 0, "%d %d: %s", real_status, real_all_status,
		      real_err.ptr);
	check_no_line_shifts(load_json(a, real_json));
	check_no_line_shifts(load_json(a, real_all_json));
	ot_arena_free(a);
}
END_TEST

/* Is `ov` an entry of `yaml` (a `- func: ov(` line, or a name in an
 * `autogen:` list)? */
static bool yaml_has(const char *yaml, const char *ov)
{
	char want[256];
	const char *p;
	size_t n = strlen(ov);
	snprintf(want, sizeof(want), "- func: %s(", ov);
	if (strstr(yaml, want))
		return true;
	for (p = yaml; (p = strstr(p, "autogen: ")); p++) {
		const char *q = p + 9, *eol = q + strcspn(q, "\n");
		while (q < eol) {
			size_t len = strcspn(q, ",\n");
			while (len && q[len - 1] == ' ')
				len--;
			if (len == n && !strncmp(q, ov, n))
				return true;
			q += strcspn(q, ",\n");
			while (*q == ',' || *q == ' ')
				q++;
		}
	}
	return false;
}

START_TEST(real_all)
{
	ot_arena *a = ot_arena_new();
	ot_value *root;
	const ot_value *cls, *c, *l;
	ot_buf y1 = OT_BUF_INIT, y2 = OT_BUF_INIT;
	size_t removed = 0, breaking = 0;
	/* the classes read from native_functions.yaml and derivatives.yaml (since
	 * the tracer of depth 3 lists a module's own overloads only, not the
	 * helpers it calls - squeeze, cat, chunk, split for nn.GRU or
	 * nn.MultiheadAttention -, those helpers' changes are not the module's);
	 * a change several ops share counts once */
	static const struct {
		const char *id;
		long long changes, breaking;
	} want[] = {{"removed", 29, 29}, {"added", 198, 0}, {"schema", 271, 10}, {"dispatch", 580, 1},
		    {"backward", 142, 1}};
	/* every breaking change but the removed overloads (checked below), each
	 * checked by hand in both trees as a break of Python or C++ callers */
	static const struct {
		const char *cls, *overload, *what, *subject;
	} breaks[] = {
		/* 5 results -> 6: callers that unpack them fail */
		{"schema", "_lstm_mps", "returns-changed", NULL},
		/* int[] offsets -> Tensor: a list is no Tensor */
		{"schema", "_nested_view_from_buffer", "argument-retyped", "offsets"},
		{"schema", "_nested_view_from_buffer_copy", "argument-retyped", "offsets"},
		/* need_attn_weights is gone: callers passing it fail */
		{"schema", "_scaled_dot_product_attention_math", "argument-removed", "need_attn_weights"},
		/* mean_dy -> sum_dy, mean_dy_xmu -> sum_dy_xmu: keyword callers fail */
		{"schema", "batch_norm_backward_elemt", "argument-renamed", "mean_dy"},
		/* from -> from_: keyword callers (from the JIT, or **kwargs) fail */
		{"schema", "can_cast", "argument-renamed", "from"},
		/* Tensor layersOutputs added before hx, without a default */
		{"schema", "lstm_mps_backward", "argument-added", "layersOutputs"},
		/* noise gained (b!): the op now writes it */
		{"schema", "rrelu_with_noise", "alias-changed", "noise"},
		{"schema", "rrelu_with_noise.out", "alias-changed", "noise"},
		{"schema", "rrelu_with_noise_", "alias-changed", "noise"},
		/* CPU, CUDA, MPS: put_ -> CPU, CUDA: put_ - MPS has no kernel left */
		{"dispatch", "put_", "keys-removed", "MPS"},
		/* output_differentiability [True, False]: buffer no longer differentiable */
		{"backward", "log_sigmoid_forward", "output-differentiability-changed", NULL},
	};
	ck_assert_msg(real_all_status == 0, "status %d: %s", real_all_status, real_err.ptr);
	root = load_json(a, real_all_json);
	cls = ot_v_get(ot_v_get(root, "counts"), "classes");
	for (size_t i = 0; i < OT_ARRAY_LEN(want); i++) {
		const ot_value *k = ot_v_get(cls, want[i].id);
		ck_assert_msg(iget(k, "changes") == want[i].changes && iget(k, "breaking") == want[i].breaking,
			      "%s: %lld changes, %lld breaking", want[i].id, iget(k, "changes"),
			      iget(k, "breaking"));
	}
	check_no_duplicates(root);
	for (size_t i = 0; i < OT_ARRAY_LEN(breaks); i++) {
		c = need_change(root, breaks[i].cls, NULL, breaks[i].overload);
		ck_assert_msg(bget(c, "breaking"), "%s is not breaking", breaks[i].overload);
		ck_assert(bget(need_item(c, breaks[i].what, breaks[i].subject), "breaking"));
	}
	/* every removed overload: an entry at 1.13.1, neither an entry nor
	 * generated by `autogen:` at 2.6.0 */
	ck_assert(tu_git_show(&y1, tu_real_source(), "v1.13.1", NATIVE));
	ck_assert(tu_git_show(&y2, tu_real_source(), "v2.6.0", NATIVE));
	l = ot_v_get(root, "changes");
	for (size_t i = 0; i < ot_v_len(l); i++) {
		const char *ov;
		char want_line[256];
		c = ot_v_at(l, i);
		breaking += bget(c, "breaking");
		if (strcmp(sget(c, "class"), "removed"))
			continue;
		ov = sget(c, "overload");
		ck_assert_msg(ov, "removed op %s without an overload", sget(c, "op"));
		ck_assert_msg(yaml_has(y1.ptr, ov) && !yaml_has(y2.ptr, ov), "%s is no removed overload", ov);
		snprintf(want_line, sizeof(want_line), "func: %s(", ov);
		check_real_loc(c, "old", NATIVE, want_line);
		removed++;
	}
	ck_assert_int_eq(removed, 29);
	ck_assert_int_eq(breaking, removed + OT_ARRAY_LEN(breaks));
	/* symeig was removed in 2.x, both overloads, each once; _conj_copy.out
	 * is generated (autogen:) at 2.6.0, so it is not removed */
	c = need_change(root, "removed", "aten::symeig", "symeig");
	check_real_loc(c, "old", NATIVE, "func: symeig");
	c = need_change(root, "removed", "aten::symeig.e", "symeig.e");
	ck_assert_int_eq(ot_v_len(ot_v_get(c, "ops")), 2); /* aten::symeig reaches it too */
	ck_assert(!find_change(root, "removed", "aten::_conj_copy.out", NULL));
	ck_assert(!find_change(root, "removed", "aten::_conj_copy.out", "_conj_copy.out"));
	/* reported once: as the overload aten::X reaches and as the input aten::X.vec */
	c = need_change(root, "removed", "aten::_upsample_bicubic2d_aa_backward.vec",
			"_upsample_bicubic2d_aa_backward.vec");
	ck_assert(c == need_change(root, "removed", "aten::_upsample_bicubic2d_aa_backward",
				   "_upsample_bicubic2d_aa_backward.vec"));
	/* frobenius_norm lost its default overload only (.dim and .out are
	 * listed under their own inputs at 2.6.0) */
	need_change(root, "removed", "aten::frobenius_norm", "frobenius_norm");
	ck_assert(!find_change(root, "removed", "aten::frobenius_norm", "frobenius_norm.dim"));
	/* int -> DeviceIndex: the same type to PyTorch's schema check */
	c = need_change(root, "schema", "aten::_cufft_get_plan_cache_size", "_cufft_get_plan_cache_size");
	check_item(need_item(c, "argument-retyped", "device_index"), "int", "DeviceIndex", false);
	/* nll_loss's implied kernel renamed */
	c = need_change(root, "dispatch", "aten::nll_loss", "nll_loss");
	c = need_item(c, "kernel-renamed", "CompositeImplicitAutograd");
	check_item(c, "nll_loss", "nll_loss_symint", false);
	check_real_place(c, "old_place", "aten/src/ATen/native/LossNLL.cpp", "nll_loss(");
	check_real_place(c, "new_place", "aten/src/ATen/native/LossNLL.cpp", "nll_loss_symint(");
	/* a stub registration for a new CPU capability */
	c = need_change(root, "moved", "aten::linalg_ldl_factor_ex.out", NULL);
	check_item(need_item(c, "registration-added", "aten/src/ATen/native/BatchLinearAlgebraKernel.cpp"),
		   NULL, "REGISTER_SVE256_DISPATCH(ldl_factor_stub, &ldl_factor_kernel)", false);
	/* an MPS kernel in a new file */
	c = need_change(root, "moved", "aten::upsample_nearest2d", NULL);
	check_item(need_item(c, "moved", "upsample_nearest2d_out_mps"),
		   "aten/src/ATen/native/mps/operations/Shape.mm",
		   "aten/src/ATen/native/mps/operations/UpSample.mm", false);
	ot_buf_free(&y1);
	ot_buf_free(&y2);
	ot_arena_free(a);
}
END_TEST

/* A release against itself: no change, for the default list and --all,
 * whatever --fail-on says. */
START_TEST(real_self_diff)
{
	const char *src = tu_real_source();
	char *dir = tu_tmpdir("diff-real-self");
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
	for (int all = 0; all < 2; all++) {
		const char *args[12] = {"diff", "-q", "-s", src, "2.6.0", "2.6.0", all ? "--all" : "ops.list",
					"-o", "-", "--fail-on", "any", NULL};
		int rc;
		ot_buf_clear(&out);
		rc = optrace(&out, &err, args);
		ck_assert_msg(rc == 0, "%s: %d %s", args[6], rc, err.ptr);
		ck_assert_msg(strstr(out.ptr, all ? " ops, no changes, " : ": 85 ops, no changes, 85 unchanged."),
			      "%s", out.ptr);
		ck_assert(!strstr(out.ptr, "| Change |"));
	}
	ot_buf_free(&out);
	ot_buf_free(&err);
	free(dir);
}
END_TEST

/* README's CI recipe, as a workflow step runs it: two trace.json files
 * written by `optrace` (here without --full, the warning case, and with
 * it), the report appended to $GITHUB_STEP_SUMMARY. */
START_TEST(real_ci_recipe)
{
	const char *src = tu_real_source();
	char *dir = tu_tmpdir("diff-ci"), *list = write_list(dir, "ops.list",
							      "torch.mm\nF.linear\ntorch.zeros\ntorch.exp\n");
	char *summary = tu_path(dir, "summary.md"), *text, *abs, *bin = tu_absolute(tu_optrace());
	static const char *const rels[] = {"1.13.1", "2.6.0"};
	static const char *const sides[] = {"old", "new"};
	ot_buf err = OT_BUF_INIT, env = OT_BUF_INIT;
	int rc;
	for (int full = 0; full < 2; full++) {
		for (int s = 0; s < 2; s++) {
			char *out = tu_path(dir, sides[s]);
			rc = optrace(NULL, &err, (const char *[]){"-q", "-s", src, "-t", rels[s], "--format", "json",
								  "-o", out, full ? "--full" : "-q", list, NULL});
			ck_assert_msg(rc == 0 || rc == 1, "%s: %d %s", rels[s], rc, err.ptr);
			free(out);
		}
		/* the step summary of an earlier step: the report is appended */
		tu_write_file(summary, "# Tests\n\n", 9);
		abs = tu_absolute(summary);
		ot_buf_clear(&env);
		ot_buf_printf(&env, "GITHUB_STEP_SUMMARY=%s", abs);
		free(abs);
		ot_buf_clear(&err);
		rc = tu_run((const char *[]){"env", env.ptr, "sh", "-c",
					     "cd \"$1\" && \"$2\" diff old/trace.json new/trace.json -o - >> "
					     "\"$GITHUB_STEP_SUMMARY\"",
					     "sh", dir, bin, NULL},
			    NULL, &err);
		ck_assert_msg(rc == 0, "%d %s", rc, err.ptr);
		/* the gate a workflow adds: nothing breaking, some changes */
		for (int any = 0; any < 2; any++) {
			char *o = tu_path(dir, "old/trace.json"), *n = tu_path(dir, "new/trace.json");
			rc = optrace(NULL, NULL, (const char *[]){"diff", "-q", o, n, "-o", "-", "--fail-on",
								  any ? "any" : "breaking", NULL});
			ck_assert_int_eq(rc, any ? OT_DIFF_EXIT_CHANGED : 0);
			free(o), free(n);
		}
		text = tu_read_file(summary, NULL);
		ck_assert(ot_starts_with(text, "# Tests\n\n## optrace diff: PyTorch 1.13.1 → 2.6.0\n"));
		ck_assert_msg(strstr(text, ": 4 ops, "), "%s", text);
		if (!full) {
			/* torch.mm, torch.zeros and torch.exp are well-known: not
			 * traced, so not compared - and never "unchanged" */
			ck_assert_msg(strstr(text, "; 0 unchanged, 3 not compared (3 well-known in a trace.json "
						   "written without `--full`; listed in the JSON report)."),
				      "%s", text);
			ck_assert(strstr(text, "\n\n**Warning:** the old trace.json (`1.13.1`) and the new "
					       "trace.json (`2.6.0`) were written without `--full`: 3 well-known "
					       "ops were not traced there, so they are not compared"));
			ck_assert_msg(strstr(err.ptr, "optrace: warning: the old trace.json (1.13.1) and the new "
						      "trace.json (2.6.0) were written without --full"),
				      "%s", err.ptr);
			ck_assert(!strstr(text, "`torch.zeros`"));
		} else {
			ck_assert(!strstr(text, "not compared") && !strstr(text, "Warning"));
			ck_assert(!strstr(err.ptr, "warning"));
			ck_assert(strstr(text, "`torch.exp`")); /* exp_out_mps moved */
		}
		free(text);
	}
	ot_buf_free(&err);
	ot_buf_free(&env);
	free(dir), free(list), free(summary), free(bin);
}
END_TEST

/* ---- suite -------------------------------------------------------------------------------- */

static Suite *diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *fx = tcase_create("fixture"), *cli = tcase_create("cli"), *rd = tcase_create("reader");
	TCase *real = tcase_create("real releases");

	tcase_add_unchecked_fixture(fx, fixture_setup, NULL);
	tcase_set_timeout(fx, 120);
	tcase_add_test(fx, fixture_runs);
	tcase_add_test(fx, fixture_counts);
	tcase_add_test(fx, fixture_order);
	tcase_add_test(fx, fixture_removed_added);
	tcase_add_test(fx, fixture_schema);
	tcase_add_test(fx, fixture_dispatch);
	tcase_add_test(fx, fixture_moved);
	tcase_add_test(fx, fixture_implementation);
	tcase_add_test(fx, fixture_backward);
	tcase_add_test(fx, fixture_gpu);
	tcase_add_test(fx, fixture_unchanged);
	tcase_add_test(fx, fixture_markdown);
	tcase_add_test(fx, fixture_json_form);
	tcase_add_test(fx, fixture_trace_json_registry);
	tcase_add_test(fx, fixture_self_diff);
	tcase_add_test(fx, fixture_max_bytes);
	tcase_add_test(fx, fixture_out_paths);
	tcase_add_test(fx, fixture_fail_on);
	suite_add_tcase(s, fx);

	tcase_set_timeout(cli, 60);
	tcase_add_test(cli, cli_help);
	tcase_add_test(cli, cli_usage_errors);
	tcase_add_test(cli, cli_fatal_errors);
	suite_add_tcase(s, cli);

	tcase_add_test(rd, reader_rejects);
	tcase_add_test(rd, reader_markdown_cells);
	tcase_add_test(rd, reader_json_forms);
	tcase_add_test(rd, reader_hostile);
	tcase_add_test(rd, reader_no_registry);
	tcase_add_test(rd, schema_rules);
	tcase_add_test(rd, one_row_per_change);
	tcase_add_test(rd, wellknown_not_compared);
	suite_add_tcase(s, rd);

	tcase_add_unchecked_fixture(real, real_setup, NULL);
	tcase_set_timeout(real, 300);
	tcase_add_test(real, real_default_list);
	tcase_add_test(real, real_implementation);
	tcase_add_test(real, real_no_noise);
	tcase_add_test(real, real_file_form);
	tcase_add_test(real, real_all);
	tcase_add_test(real, real_self_diff);
	tcase_add_test(real, real_ci_recipe);
	suite_add_tcase(s, real);
	return s;
}

int main(void)
{
	return tu_run_suite(diff_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
