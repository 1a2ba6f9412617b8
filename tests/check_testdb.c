/*
 * check_testdb.c - each op's tests and benchmarks: the Python tokenizer, the
 * scanner of test databases, test files and benchmarks (from strings), then
 * the real releases: the fixed list of test files is complete at both, and
 * a hand-checked key (tests/tests_key.yaml) of entries, tests, mentions,
 * benchmarks and decompositions of 22 ops at 1.13.1 and 2.6.0 holds in the
 * sources and is found in optrace's trace.json and on its pages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pytok.h"
#include "source.h"
#include "testrec.h"
#include "testutil.h"
#include "value.h"
#include "yamldoc.h"

#define KEY_PATH "tests/tests_key.yaml"
#define MIN_OPS 20

/* ---- the tokenizer ---------------------------------------------------------------------- */

START_TEST(tokens_strings_kept)
{
	const char *src = "x = f('a', \"b\" 'c', r'\\d', f'{y}', '''t\nu''')\n";
	ot_toks t;
	ot_buf b = OT_BUF_INIT;
	uint32_t next;
	ot_pytok_run(&t, src, strlen(src));
	ck_assert_uint_eq(t.n, 15);
	ck_assert(t.toks[0].bol && t.toks[0].kind == OT_TOK_NAME);
	ck_assert(ot_tok_is(&t, 1, "=") && ot_tok_is(&t, 3, "("));
	ck_assert(ot_tok_string(&t, 4, &b, NULL));
	ck_assert_str_eq(b.ptr, "a");
	ck_assert(ot_tok_string(&t, 6, &b, &next)); /* "b" 'c' joined */
	ck_assert_str_eq(b.ptr, "bc");
	ck_assert_uint_eq(next, 8);
	ck_assert(ot_tok_string(&t, 9, &b, NULL)); /* a raw string keeps its backslash */
	ck_assert_str_eq(b.ptr, "\\d");
	ck_assert(!ot_tok_string(&t, 11, &b, NULL)); /* an f-string has no literal value */
	ck_assert(ot_tok_string(&t, 13, &b, NULL));
	ck_assert_str_eq(b.ptr, "t\nu");
	ck_assert_uint_eq(ot_tok_close(&t, 3), 14);
	ot_buf_free(&b);
	ot_toks_free(&t);
}
END_TEST

START_TEST(tokens_logical_lines)
{
	const char *src = "class A(B):\n    x = [1,\n  2]  # c\n\tdef f(self): \\\n  pass\n";
	ot_toks t;
	ot_pytok_run(&t, src, strlen(src));
	/* class A ( B ) : | x = [ 1 , 2 ] | def f ( self ) : pass */
	ck_assert(t.toks[0].bol && t.toks[0].col == 0);
	ck_assert(ot_tok_is(&t, 6, "x") && t.toks[6].bol && t.toks[6].col == 4 && t.toks[6].line == 2);
	ck_assert(ot_tok_is(&t, 11, "2") && !t.toks[11].bol && t.toks[11].line == 3);
	ck_assert(ot_tok_is(&t, 13, "def") && t.toks[13].bol && t.toks[13].col == 8);
	ck_assert(ot_tok_is(&t, 19, "pass") && !t.toks[19].bol && t.toks[19].line == 5);
	ot_toks_free(&t);
}
END_TEST

START_TEST(tokens_one_statement)
{
	const char *src = "a = 1\nb = (2,\n 3)\nc = 4\n";
	ot_toks t = {0};
	size_t stop = ot_pytok_append(&t, src, strlen(src), 6, 2, true);
	ck_assert_uint_eq(t.n, 7); /* b = ( 2 , 3 ) */
	ck_assert(ot_tok_is(&t, 0, "b") && t.toks[0].line == 2 && t.toks[6].line == 3);
	ck_assert_uint_eq(stop, (size_t)(strstr(src, "c =") - src));
	ot_toks_free(&t);
}
END_TEST

/* ---- the scanner --------------------------------------------------------------------------- */

static ot_tr_file scan(ot_arena *a, ot_tfile_kind kind, const char *src)
{
	ot_tr_file f;
	ot_testscan_file(&f, a, "x.py", 0, kind, src, strlen(src));
	return f;
}

START_TEST(scan_database)
{
	const char *src = "class UnaryUfuncInfo(OpInfo):\n    pass\n"
			  "op_db: List[OpInfo] = [\n"
			  "    UnaryUfuncInfo('abs',\n"
			  "        aliases=('absolute', ),\n"
			  "        skips=(DecorateInfo(unittest.skip(\"x\"), 'TestUnaryUfuncs', 'test_ref',\n"
			  "                            device_type='cuda'),\n"
			  "               DecorateInfo(unittest.expectedFailure, 'TestMeta')),\n"
			  "    ),\n"
			  "    OpInfo(name='nn.functional.relu', aten_name='relu', variant_test_name='v'),\n"
			  "    OpInfo(f'x{y}'),\n"
			  "]\n"
			  "op_db += opinfo.definitions.op_db\n"
			  "unary = [op for op in op_db if isinstance(op, UnaryUfuncInfo)]\n"
			  "module_db = [ModuleInfo(torch.nn.Linear, decorators=[])]\n";
	ot_arena *a = ot_arena_new();
	ot_tr_file f = scan(a, OT_TFILE_DB, src);
	ck_assert_uint_eq(f.classes.len, 1);
	ck_assert_str_eq(f.classes.items[0].base, "OpInfo");
	ck_assert_uint_eq(f.assigns.len, 4);
	ck_assert_str_eq(f.assigns.items[0].name, "op_db");
	ck_assert(f.assigns.items[1].augmented);
	ck_assert_uint_eq(f.calls.len, 4);
	ck_assert_str_eq(f.calls.items[0].name, "abs");
	ck_assert_uint_eq(f.calls.items[0].line, 4);
	ck_assert_uint_eq(f.calls.items[0].naliases, 1);
	ck_assert_str_eq(f.calls.items[0].aliases[0], "absolute");
	ck_assert_uint_eq(f.calls.items[0].ndecors, 2);
	ck_assert_str_eq(f.calls.items[0].decors[0].decorator, "skip");
	ck_assert_str_eq(f.calls.items[0].decors[0].cls, "TestUnaryUfuncs");
	ck_assert_str_eq(f.calls.items[0].decors[0].test, "test_ref");
	ck_assert_str_eq(f.calls.items[0].decors[0].device, "cuda");
	ck_assert_uint_eq(f.calls.items[0].decors[0].line, 6);
	ck_assert_str_eq(f.calls.items[0].decors[1].decorator, "expectedFailure");
	ck_assert_ptr_null(f.calls.items[0].decors[1].test);
	ck_assert_str_eq(f.calls.items[1].name, "nn.functional.relu");
	ck_assert_str_eq(f.calls.items[1].aten_name, "relu");
	ck_assert_str_eq(f.calls.items[1].variant, "v");
	ck_assert_ptr_null(f.calls.items[2].name); /* an f-string names no entry */
	ck_assert_str_eq(f.calls.items[3].cls, "ModuleInfo");
	ck_assert_str_eq(f.calls.items[3].name, "torch.nn.Linear");
	ot_testscan_free(&f);
	ot_arena_free(a);
}
END_TEST

START_TEST(scan_test_file)
{
	const char *src = "from x import op_db\n"
			  "_grad_ops = partial(\n    ops, dtypes=1)\n"
			  "fails = {\n    xfail('add'),\n    skip(\n        \"linalg.svd\", \"v\"),\n}\n"
			  "class TestCommon(TestCase):\n"
			  "    \"\"\"Docs:\n@ops(not_a_test)\nclass NotOne:\n\"\"\"\n"
			  "    @ops(op_db,\n         dtypes=(f,))\n"
			  "    @skipOps('TestCommon', 'test_a', {xfail('mul'), decorate('div', decorator=d)})\n"
			  "    def test_a(self, device, dtype, op):\n"
			  "        unittest.skip('no')  # xfail('no')\n"
			  "    @_grad_ops(op_db + other_db)\n"
			  "    def test_b(self):\n        pass\n"
			  "@modules(module_db)\ndef test_c():\n    pass\n";
	ot_arena *a = ot_arena_new();
	ot_tr_file f = scan(a, OT_TFILE_TEST, src);
	ck_assert_uint_eq(f.tests.len, 3);
	ck_assert_str_eq(f.tests.items[0].expr_text, "op_db");
	ck_assert_str_eq(f.tests.items[0].cls, "TestCommon");
	ck_assert_str_eq(f.tests.items[0].func, "test_a");
	ck_assert_uint_eq(f.tests.items[0].line, 14);
	ck_assert_str_eq(f.tests.items[1].decorator, "_grad_ops");
	ck_assert_str_eq(f.tests.items[1].expr_text, "op_db + other_db");
	ck_assert(!f.tests.items[1].modules);
	ck_assert(f.tests.items[2].modules);
	ck_assert_ptr_null(f.tests.items[2].cls);
	ck_assert_str_eq(f.tests.items[2].func, "test_c");
	ck_assert_uint_eq(f.classes.len, 1); /* not the one in the docstring */
	ck_assert_uint_eq(f.mentions.len, 4);
	ck_assert_str_eq(f.mentions.items[0].name, "add");
	ck_assert_uint_eq(f.mentions.items[0].line, 5);
	ck_assert_str_eq(f.mentions.items[1].kind, "skip");
	ck_assert_str_eq(f.mentions.items[1].name, "linalg.svd");
	ck_assert_str_eq(f.mentions.items[1].variant, "v");
	ck_assert_uint_eq(f.mentions.items[1].line, 6);
	ck_assert_str_eq(f.mentions.items[2].name, "mul");
	ck_assert_str_eq(f.mentions.items[2].cls, "TestCommon");
	ck_assert_str_eq(f.mentions.items[2].test, "test_a");
	ck_assert_str_eq(f.mentions.items[3].kind, "decorate");
	ot_testscan_free(&f);
	ot_arena_free(a);
}
END_TEST

START_TEST(scan_benchmark)
{
	const char *src = "import torch.nn.functional as F\n"
			  "class AddBenchmark(op_bench.TorchBenchmarkBase):\n"
			  "    def init(self, M, device):\n"
			  "        self.inputs = {'x': torch.rand(M, device=device)}\n"
			  "        self.conv = nn.Conv2d(1, 1, 1)\n"
			  "    def forward(self, x):\n"
			  "        return torch.add(x, F.relu(x.view(-1)))\n"
			  "def bernoulli_(input):\n    return input.bernoulli_()\n"
			  "ops = op_bench.op_list(attr_names=['n', 'f'],\n"
			  "    attrs=[['abs', torch.abs], ['bernoulli_', bernoulli_]])\n";
	ot_arena *a = ot_arena_new();
	ot_tr_file f = scan(a, OT_TFILE_BENCH, src);
	ck_assert_uint_eq(f.benches.len, 6);
	ck_assert_str_eq(f.benches.items[0].api, "torch.nn.Conv2d"); /* init builds a module; torch.rand is input */
	ck_assert_str_eq(f.benches.items[0].where, "init");
	ck_assert_str_eq(f.benches.items[1].api, "torch.add");
	ck_assert_str_eq(f.benches.items[1].cls, "AddBenchmark");
	ck_assert_uint_eq(f.benches.items[1].line, 7);
	ck_assert_str_eq(f.benches.items[2].api, "torch.nn.functional.relu");
	ck_assert_str_eq(f.benches.items[3].api, "Tensor.view");
	ck_assert_str_eq(f.benches.items[4].api, "torch.abs");
	ck_assert_str_eq(f.benches.items[4].where, "op_list");
	ck_assert_str_eq(f.benches.items[5].api, "Tensor.bernoulli_");
	ck_assert_uint_eq(f.benches.items[5].line, 9);
	ot_testscan_free(&f);
	ot_arena_free(a);
}
END_TEST

START_TEST(which_files)
{
	ck_assert_int_eq(ot_testscan_kind("torch/testing/_internal/common_methods_invocations.py"), OT_TFILE_DB);
	ck_assert_int_eq(ot_testscan_kind("torch/testing/_internal/opinfo/definitions/linalg.py"), OT_TFILE_DB);
	ck_assert_int_eq(ot_testscan_kind("test/test_ops.py"), OT_TFILE_TEST);
	ck_assert_int_eq(ot_testscan_kind("test/functorch/test_ops.py"), OT_TFILE_TEST);
	ck_assert_int_eq(ot_testscan_kind("test/test_nn.py"), -1);
	ck_assert_int_eq(ot_testscan_kind("benchmarks/operator_benchmark/pt/add_test.py"), OT_TFILE_BENCH);
	ck_assert_int_eq(ot_testscan_kind("benchmarks/operator_benchmark/pt/x/y.py"), -1);
	ck_assert_int_eq(ot_testscan_kind("torch/testing/_internal/common_utils.py"), -1);
}
END_TEST

/* ---- real releases: the list of test files ------------------------------------------------ */

static bool keep_py(const char *path, void *payload)
{
	(void)payload;
	return ot_ends_with(path, ".py");
}

/* Every .py under test/ and functorch/test/ that parametrises a test with a
 * database is in the fixed list; every file of the list does at one release. */
static void list_complete(const char *release, ot_map *seen, ot_arena *keep)
{
	static const char *const prefixes[] = {"test/", "functorch/test/", NULL};
	ot_source_opts so = {0};
	ot_source *src = NULL;
	ot_source_reader *rd = NULL;
	ot_source_files list = {0};
	ot_arena *a = ot_arena_new();
	ot_buf b = OT_BUF_INIT;
	so.path = tu_real_source();
	ck_assert_msg(ot_source_open(&src, &so) == 0 && ot_source_select(src, release, NULL) == 0, "%s",
		      ot_error_last());
	ck_assert(ot_source_list(&list, a, src, prefixes, keep_py, NULL) == 0);
	ck_assert(ot_source_reader_new(&rd, src) == 0);
	for (size_t i = 0; i < list.len; i++) {
		ot_tr_file f;
		ck_assert(ot_source_reader_read(&b, rd, &list.items[i]) == 0);
		ot_testscan_file(&f, a, list.items[i].path, 0, OT_TFILE_TEST, b.ptr, b.size);
		if (f.tests.len) {
			ck_assert_msg(ot_testscan_kind(list.items[i].path) == OT_TFILE_TEST,
				      "%s parametrises %zu tests with a database at %s but is not in the list of "
				      "testscan.c", list.items[i].path, f.tests.len, release);
			ot_map_put(seen, ot_arena_strdup(keep, list.items[i].path), (void *)1);
		}
		ot_testscan_free(&f);
	}
	ot_buf_free(&b);
	ot_vec_free(&list);
	ot_source_reader_free(rd);
	ot_source_free(src);
	ot_arena_free(a);
}

START_TEST(test_file_list_is_complete)
{
	const char *const *files;
	size_t n = ot_testscan_test_files(&files);
	ot_map *seen = ot_map_new();
	ot_arena *keep = ot_arena_new();
	list_complete("1.13.1", seen, keep);
	list_complete("2.6.0", seen, keep);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(ot_map_get(seen, files[i]), "%s is listed in testscan.c but parametrises no "
							   "test with a database at 1.13.1 or 2.6.0", files[i]);
	ot_map_free(seen);
	ot_arena_free(keep);
}
END_TEST

/* ---- real releases: the hand-checked key ---------------------------------------------------- */

static const char *str_of(const ot_value *m, const char *k)
{
	const ot_value *v = ot_v_get(m, k);
	ck_assert_msg(v && v->type == OT_V_STR, KEY_PATH ":%d: '%s' must be a string", m->line, k);
	return ot_v_cstr(v);
}

static long long int_of(const ot_value *m, const char *k)
{
	const ot_value *v = ot_v_get(m, k);
	ck_assert_msg(v && v->type == OT_V_INT && v->u.i > 0, KEY_PATH ":%d: '%s' must be a positive integer",
		      m->line, k);
	return v->u.i;
}

static ot_value *key_load(ot_arena *a, char **text)
{
	size_t len;
	ot_value *root;
	*text = tu_read_file(KEY_PATH, &len);
	ck_assert_msg(ot_yaml_load(&root, a, *text, len, KEY_PATH) == 0, "%s", ot_error_last());
	ck_assert_msg(root->type == OT_V_LIST, KEY_PATH ": a list of entries");
	return root;
}

static const ot_value *facts(const ot_value *e, const char *k)
{
	const ot_value *v = ot_v_get(e, k);
	ck_assert_msg(!v || v->type == OT_V_LIST, KEY_PATH ":%d: '%s' must be a list", e->line, k);
	return v;
}

/* Does any of lines line..line+span-1 of file at the release contain every needle? */
static bool lines_hold(const char *release, const char *file, long long line, int span, const char *const *needles)
{
	char tag[32];
	char *text;
	bool ok = true;
	snprintf(tag, sizeof(tag), "v%s", release);
	text = tu_git_lines(tu_real_source(), tag, file, (int)line, span);
	if (!text)
		return false;
	for (; *needles && ok; needles++)
		ok = strstr(text, *needles) != NULL;
	free(text);
	return ok;
}

START_TEST(key_holds_in_the_sources)
{
	ot_arena *a = ot_arena_new();
	char *text;
	const ot_value *root = key_load(a, &text);
	size_t nops[2] = {0}, nfacts = 0;
	for (size_t i = 0; i < ot_v_len(root); i++) {
		const ot_value *e = ot_v_at(root, i), *l;
		const char *release = str_of(e, "release");
		ck_assert_msg(!strcmp(release, "1.13.1") || !strcmp(release, "2.6.0"), KEY_PATH ":%d: release", e->line);
		nops[!strcmp(release, "2.6.0")]++;
		for (size_t k = 0; (l = facts(e, "entries")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k);
			const char *cls = str_of(x, "class"), *name = str_of(x, "name");
			const char *written = !strcmp(cls, "ForeachFuncInfo") ? name + strlen("_foreach_") : name;
			const char *needles[] = {ot_arena_printf(a, "%s(", cls), written, NULL};
			ck_assert_msg(lines_hold(release, str_of(x, "file"), int_of(x, "line"), 3, needles),
				      KEY_PATH ":%d: %s(%s) is not at %s:%lld at %s", x->line, cls, name,
				      str_of(x, "file"), int_of(x, "line"), release);
			nfacts++;
		}
		for (size_t k = 0; (l = facts(e, "tests")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k);
			const char *n1[] = {ot_arena_printf(a, "@%s(", str_of(x, "decorator")), NULL};
			const char *n2[] = {ot_arena_printf(a, "def %s(", str_of(x, "test")), NULL};
			ck_assert_msg(lines_hold(release, str_of(x, "file"), int_of(x, "line"), 1, n1) &&
					      lines_hold(release, str_of(x, "file"), int_of(x, "line"), 40, n2),
				      KEY_PATH ":%d: no @%s above def %s at %s:%lld", x->line, str_of(x, "decorator"),
				      str_of(x, "test"), str_of(x, "file"), int_of(x, "line"));
			nfacts++;
		}
		for (size_t k = 0; (l = facts(e, "mentions")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k);
			const char *needles[] = {ot_arena_printf(a, "%s(", str_of(x, "kind")), str_of(x, "name"), NULL};
			ck_assert_msg(lines_hold(release, str_of(x, "file"), int_of(x, "line"), 2, needles),
				      KEY_PATH ":%d: no %s(%s) at %s:%lld", x->line, str_of(x, "kind"), str_of(x, "name"),
				      str_of(x, "file"), int_of(x, "line"));
			nfacts++;
		}
		for (size_t k = 0; (l = facts(e, "benchmarks")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k);
			const char *api = str_of(x, "api");
			const char *needles[] = {strrchr(api, '.') + 1, NULL};
			ck_assert_msg(lines_hold(release, str_of(x, "file"), int_of(x, "line"), 1, needles),
				      KEY_PATH ":%d: %s is not at %s:%lld", x->line, api, str_of(x, "file"),
				      int_of(x, "line"));
			nfacts++;
		}
		for (size_t k = 0; (l = facts(e, "decompositions")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k);
			const char *needles[] = {"register_decomposition", ot_arena_printf(a, "aten.%s", str_of(x, "op")), NULL};
			ck_assert_msg(lines_hold(release, str_of(x, "file"), int_of(x, "line"), 1, needles),
				      KEY_PATH ":%d: no decomposition of %s at %s:%lld", x->line, str_of(x, "op"),
				      str_of(x, "file"), int_of(x, "line"));
			nfacts++;
		}
	}
	ck_assert_msg(nops[0] >= MIN_OPS && nops[1] >= MIN_OPS, "the key needs %d ops per release", MIN_OPS);
	printf("tests key: %zu ops at 1.13.1, %zu at 2.6.0, %zu facts hold in the sources\n", nops[0], nops[1], nfacts);
	free(text);
	ot_arena_free(a);
}
END_TEST

static const ot_value *op_of(const ot_value *root, const char *input)
{
	const ot_value *ops = ot_v_get(root, "ops");
	for (size_t i = 0; i < ot_v_len(ops); i++)
		if (!strcmp(ot_v_cstr(ot_v_get(ot_v_at(ops, i), "input")), input))
			return ot_v_at(ops, i);
	return NULL;
}

static bool same_str(const ot_value *m, const char *k, const ot_value *want)
{
	const ot_value *v = ot_v_get(m, k), *w = ot_v_get(want, k);
	return v && w && v->type == OT_V_STR && !strcmp(ot_v_cstr(v), ot_v_cstr(w));
}

static bool same_int(const ot_value *m, const char *k, const ot_value *want)
{
	const ot_value *v = ot_v_get(m, k), *w = ot_v_get(want, k);
	return v && w && v->type == OT_V_INT && v->u.i == w->u.i;
}

static bool has_index(const ot_value *list, long long i)
{
	for (size_t k = 0; k < ot_v_len(list); k++)
		if (ot_v_at(list, k)->u.i == i)
			return true;
	return false;
}

static void check_release(const char *release)
{
	ot_arena *a = ot_arena_new();
	char *text, *dir = tu_tmpdir("testdb"), *list_path = tu_path(dir, "ops.list");
	char *out = tu_path(dir, "out");
	const ot_value *root = key_load(a, &text), *trace, *templates, *entries;
	ot_buf list = OT_BUF_INIT;
	size_t checked = 0;
	for (size_t i = 0; i < ot_v_len(root); i++)
		if (!strcmp(str_of(ot_v_at(root, i), "release"), release))
			ot_buf_printf(&list, "%s\n", str_of(ot_v_at(root, i), "op"));
	tu_write_file(list_path, list.ptr, list.size);
	trace = tu_run_trace(a, out, release, (const char *const[]){"--full", list_path, NULL}, NULL);
	templates = ot_v_get(trace, "tests");
	entries = ot_v_get(trace, "test_entries");
	ck_assert_msg(entries && entries->type == OT_V_LIST && ot_v_len(entries) > 900,
		      "trace.json at %s has no table of test entries", release);
	ck_assert_msg(templates && templates->type == OT_V_LIST && ot_v_len(templates) > 100,
		      "trace.json at %s has no table of tests", release);
	for (size_t i = 0; i < ot_v_len(root); i++) {
		const ot_value *e = ot_v_at(root, i), *op, *tf, *l;
		if (strcmp(str_of(e, "release"), release))
			continue;
		op = op_of(trace, str_of(e, "op"));
		ck_assert_msg(op, "%s: no op %s in trace.json", release, str_of(e, "op"));
		tf = ot_v_get(op, "tests");
		ck_assert_msg(tf && tf->type == OT_V_MAP, "%s: %s has no tests", release, str_of(e, "op"));
		for (size_t k = 0; (l = facts(e, "entries")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k), *got = ot_v_get(tf, "entries");
			bool found = false;
			for (size_t j = 0; j < ot_v_len(got) && !found; j++) {
				long long at = ot_v_at(got, j)->u.i;
				const ot_value *g;
				ck_assert(at >= 0 && (size_t)at < ot_v_len(entries));
				g = ot_v_at(entries, (size_t)at);
				found = same_str(g, "kind", x) && same_str(g, "class", x) && same_str(g, "name", x) &&
					same_str(g, "variant", x) && same_str(g, "file", x) && same_int(g, "line", x);
			}
			ck_assert_msg(found, KEY_PATH ":%d: %s at %s: entry %s not found", x->line, str_of(e, "op"),
				      release, str_of(x, "name"));
			checked++;
		}
		for (size_t k = 0; (l = facts(e, "tests")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k), *filtered = ot_v_get(x, "filtered");
			const ot_value *runs = ot_v_get(tf, filtered && filtered->u.b ? "runs_filtered" : "runs");
			long long at = -1;
			for (size_t j = 0; j < ot_v_len(templates) && at < 0; j++) {
				const ot_value *t = ot_v_at(templates, j);
				if (same_str(t, "file", x) && same_int(t, "line", x) && same_str(t, "class", x) &&
				    same_str(t, "test", x))
					at = (long long)j;
			}
			ck_assert_msg(at >= 0, KEY_PATH ":%d: %s: no test %s:%lld in trace.json", x->line, release,
				      str_of(x, "file"), int_of(x, "line"));
			ck_assert_msg(has_index(runs, at), KEY_PATH ":%d: %s at %s: %s.%s is not among its %s", x->line,
				      str_of(e, "op"), release, str_of(x, "class"), str_of(x, "test"),
				      filtered && filtered->u.b ? "filtered runs" : "runs");
			checked++;
		}
		for (size_t k = 0; (l = facts(e, "mentions")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k), *got = ot_v_get(tf, "mentions");
			bool found = false;
			for (size_t j = 0; j < ot_v_len(got) && !found; j++) {
				const ot_value *g = ot_v_at(got, j);
				found = same_str(g, "file", x) && same_int(g, "line", x) && same_str(g, "kind", x) &&
					same_str(g, "name", x);
			}
			ck_assert_msg(found, KEY_PATH ":%d: %s at %s: mention not found", x->line, str_of(e, "op"), release);
			checked++;
		}
		for (size_t k = 0; (l = facts(e, "benchmarks")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k), *got = ot_v_get(tf, "benchmarks");
			bool found = false;
			for (size_t j = 0; j < ot_v_len(got) && !found; j++) {
				const ot_value *g = ot_v_at(got, j);
				found = same_str(g, "file", x) && same_int(g, "line", x) && same_str(g, "api", x) &&
					same_str(g, "where", x);
			}
			ck_assert_msg(found, KEY_PATH ":%d: %s at %s: benchmark not found", x->line, str_of(e, "op"),
				      release);
			checked++;
		}
		for (size_t k = 0; (l = facts(e, "decompositions")) && k < ot_v_len(l); k++) {
			const ot_value *x = ot_v_at(l, k), *got = ot_v_get(tf, "decompositions");
			bool found = false;
			for (size_t j = 0; j < ot_v_len(got) && !found; j++) {
				const ot_value *g = ot_v_at(got, j);
				found = same_str(g, "file", x) && same_int(g, "line", x) && same_str(g, "op", x);
			}
			ck_assert_msg(found, KEY_PATH ":%d: %s at %s: decomposition not found", x->line,
				      str_of(e, "op"), release);
			checked++;
		}
	}
	printf("tests key at %s: %zu facts found in trace.json\n", release, checked);
	ot_buf_free(&list);
	free(text);
	free(list_path);
	free(out);
	free(dir);
	ot_arena_free(a);
}

START_TEST(key_found_at_1_13_1)
{
	check_release("1.13.1");
}
END_TEST

START_TEST(key_found_at_2_6_0)
{
	check_release("2.6.0");
}
END_TEST

/* The page of an op shows its test entries with their places and its test
 * files by folder; trace.json has each test. */
START_TEST(page_shows_tests)
{
	char *dir = tu_tmpdir("testdb-page"), *list = tu_path(dir, "ops.list"), *out = tu_path(dir, "out");
	char *page = tu_path(out, "ops/torch-add.md"), *text;
	ot_buf err = OT_BUF_INIT;
	const char *argv[] = {tu_optrace(), "-q", "-s", tu_real_source(), "-t", "2.6.0", "--full", "-o", out, list, NULL};
	int rc;
	tu_write_file(list, "torch.add\n", 10);
	rc = tu_run(argv, NULL, &err);
	ck_assert_msg(rc == 0 || rc == 1, "optrace exited %d: %s", rc, err.ptr);
	text = tu_read_file(page, NULL);
	ck_assert(strstr(text, "## Tests and benchmarks"));
	ck_assert(strstr(text, "[`torch/testing/_internal/common_methods_invocations.py:11788`]("
			       "https://github.com/pytorch/pytorch/blob/v2.6.0/torch/testing/_internal/"
			       "common_methods_invocations.py#L11788)"));
	/* the test files by folder, with counts; each test is in trace.json */
	ck_assert(strstr(text, "- `test/`: "));
	ck_assert(strstr(text, "`test_binary_ufuncs.py` "));
	ck_assert(strstr(text, "[`benchmarks/operator_benchmark/pt/add_test.py:41`]("));
	free(text);
	{
		char *json = tu_path(out, "trace.json");
		text = tu_read_file(json, NULL);
		free(json);
	}
	ck_assert(strstr(text, "\"test_contig_vs_every_other\""));
	free(text);
	free(page);
	free(list);
	free(out);
	free(dir);
	ot_buf_free(&err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("testdb");
	TCase *unit = tcase_create("unit"), *real = tcase_create("real");
	tcase_add_test(unit, tokens_strings_kept);
	tcase_add_test(unit, tokens_logical_lines);
	tcase_add_test(unit, tokens_one_statement);
	tcase_add_test(unit, scan_database);
	tcase_add_test(unit, scan_test_file);
	tcase_add_test(unit, scan_benchmark);
	tcase_add_test(unit, which_files);
	suite_add_tcase(s, unit);
	tcase_set_timeout(real, 300);
	tcase_add_test(real, test_file_list_is_complete);
	tcase_add_test(real, key_holds_in_the_sources);
	tcase_add_test(real, key_found_at_1_13_1);
	tcase_add_test(real, key_found_at_2_6_0);
	tcase_add_test(real, page_shows_tests);
	suite_add_tcase(s, real);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
