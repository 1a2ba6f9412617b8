/*
 * check_which.c - the reverse lookup. First over the fixture's index with
 * traces set by hand (their steps' `main` and `when` too): which function a
 * step lies in, names, profiler names, FILE:LINE, library kernels, diffs,
 * the path of each op, and the Kernels page, which lists only functions
 * with a step on some op's main path. Then the real releases: the
 * hand-checked queries of tests/which_key.yaml (kernel names as profilers
 * print them included) at 1.13.1 and 2.6.0, over one trace of each release
 * in process, and one query of each through the real binary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "opslist.h"
#include "run.h"
#include "page.h"
#include "source.h"
#include "testutil.h"
#include "udiff.h"
#include "which.h"
#include "whichout.h"
#include "yamldoc.h"

#define KEY_PATH "tests/which_key.yaml"
#define MIN_QUERIES 20

/* ---- hand-set traces over the fixture ------------------------------------------------- */

#define SOFTMAX_CU "aten/src/ATen/native/cuda/SoftMax.cu"

struct world {
	ot_source *src;
	ot_index *ix;
	ot_trace *traces[2];
	ot_which *w;
};

static ot_trace *new_trace(const char *input, const char *canonical, const char *slug)
{
	ot_trace *tr = ot_calloc(1, sizeof(*tr));
	tr->arena = ot_arena_new();
	tr->input = input;
	tr->status = OT_STATUS_TRACED;
	snprintf(tr->target.canonical, sizeof(tr->target.canonical), "%s", canonical);
	snprintf(tr->target.slug, sizeof(tr->target.slug), "%s", slug);
	return tr;
}

static void step(ot_trace *tr, ot_layer layer, uint32_t line, const char *symbol, const char *note,
		 unsigned main, const char *when)
{
	ot_step s = {0};
	s.layer = layer;
	s.found = true;
	s.file = SOFTMAX_CU;
	s.line = line;
	s.symbol = symbol;
	s.note = note;
	s.op = "_softmax";
	s.backend = "CUDA";
	s.parent = (int)tr->steps.len - 1;
	s.main = (uint8_t)main;
	s.when = when;
	ot_vec_push(&tr->steps, s);
}

/* F.softmax: the kernel on the CUDA main path, its launch, and a cuDNN call
 * under a condition; the backward op: a function no main path reaches. */
static void world_open(struct world *wd)
{
	ot_source_opts so = {0};
	so.path = tu_fixture_repo();
	ck_assert_msg(ot_source_open(&wd->src, &so) == 0 && ot_source_select(wd->src, "2.0.0", NULL) == 0, "%s",
		      ot_error_last());
	ck_assert_msg(ot_index_build(&wd->ix, wd->src, 1) == 0, "%s", ot_error_last());
	wd->traces[0] = new_trace("F.softmax", "F.softmax", "f-softmax");
	step(wd->traces[0], OT_LAYER_KERNEL, 11, "softmax_cuda_out", "TORCH_IMPL_FUNC", OT_MAIN_CUDA, NULL);
	step(wd->traces[0], OT_LAYER_CUDA, 13, "cudnnSoftmaxForward", "cuDNN: cudnnSoftmaxForward", 0,
	     "use_cudnn(input)");
	step(wd->traces[0], OT_LAYER_CUDA, 7, "cunn_SoftMaxForward", "__global__ CUDA kernel",
	     OT_MAIN_CPU | OT_MAIN_CUDA, NULL);
	wd->traces[1] = new_trace("aten::_softmax_backward_data", "aten::_softmax_backward_data",
				  "aten-softmax-backward-data");
	step(wd->traces[1], OT_LAYER_KERNEL, 18, "softmax_backward_cuda", "C++ implementation for CUDA", 0, NULL);
	wd->w = ot_which_new(wd->traces, 2, wd->ix, NULL);
}

static void world_close(struct world *wd)
{
	ot_which_free(wd->w);
	for (int i = 0; i < 2; i++)
		ot_trace_free(wd->traces[i]);
	ot_index_free(wd->ix);
	ot_source_free(wd->src);
}

static ot_which_result *ask(struct world *wd, const char *what)
{
	ot_which_result *r = NULL;
	ck_assert_msg(ot_which_query(&r, wd->w, what) == 0, "%s: %s", what, ot_error_last());
	return r;
}

static const ot_which_match *match(const ot_which_result *r, ot_which_kind kind, const char *symbol)
{
	for (size_t i = 0; i < r->nmatches; i++)
		if (r->matches[i].kind == kind && !strcmp(r->matches[i].symbol, symbol))
			return &r->matches[i];
	ck_abort_msg("no %s %s in the answer to %s", ot_which_kind_name(kind), symbol, r->query);
	return NULL;
}

static const char *path_of(struct world *wd, const ot_which_op *o, ot_arena *a)
{
	return ot_which_path(a, wd->traces[o->op], o->steps, o->nsteps);
}

START_TEST(function_of_a_step)
{
	struct world wd;
	ot_arena *a = ot_arena_new();
	ot_which_result *r;
	const ot_which_match *m;
	world_open(&wd);
	r = ask(&wd, "cunn_SoftMaxForward");
	ck_assert_uint_eq(r->nmatches, 1);
	m = match(r, OT_WM_FUNCTION, "cunn_SoftMaxForward");
	ck_assert_str_eq(m->file, SOFTMAX_CU);
	ck_assert_uint_eq(m->line, 7);
	ck_assert_uint_eq(m->end_line, 9);
	ck_assert_str_eq(m->scope, "at::native");
	ck_assert_str_eq(m->detail, "__global__ CUDA kernel");
	ck_assert_uint_eq(m->nops, 1);
	ck_assert_uint_eq(m->ops[0].op, 0);
	ck_assert_str_eq(path_of(&wd, &m->ops[0], a), "main (cpu, cuda)");
	ot_which_result_free(r);

	/* as a profiler prints it; the qualifier must name its scope */
	r = ask(&wd, "void at::native::cunn_SoftMaxForward<float>(float*, float const*, int)");
	ck_assert_uint_eq(r->nops, 1);
	ot_which_result_free(r);
	r = ask(&wd, "void at::other::cunn_SoftMaxForward<float>(float*)");
	ck_assert_uint_eq(r->nmatches, 0);
	ck_assert_str_eq(r->not_found, "not found: at::other::cunn_SoftMaxForward in the index (cunn_SoftMaxForward "
				       "is defined in at::native, at " SOFTMAX_CU ":7)");
	ot_which_result_free(r);

	/* a step on a line: the function around it, and the path its `when` gives */
	r = ask(&wd, SOFTMAX_CU ":13");
	m = match(r, OT_WM_LINE, "cudnnSoftmaxForward");
	ck_assert_str_eq(path_of(&wd, &m->ops[0], a), "when: use_cudnn(input)");
	m = match(r, OT_WM_FUNCTION, "softmax_cuda_out");
	ck_assert_str_eq(m->via, "holds line 13");
	ck_assert_uint_eq(m->ops[0].nsteps, 2);
	ck_assert_str_eq(path_of(&wd, &m->ops[0], a), "main (cuda)");
	ot_which_result_free(r);

	/* a unique end of a path; a step without main or when: path unknown */
	r = ask(&wd, "SoftMax.cu:20");
	m = match(r, OT_WM_FUNCTION, "softmax_backward_cuda");
	ck_assert_uint_eq(m->ops[0].op, 1);
	ck_assert_str_eq(path_of(&wd, &m->ops[0], a), "unknown");
	ot_which_result_free(r);

	r = ask(&wd, "SoftMax.cu");
	ck_assert_uint_eq(r->nmatches, 3);
	ck_assert_uint_eq(r->nops, 2);
	ot_which_result_free(r);
	r = ask(&wd, "nowhere/File.cu:3");
	ck_assert_str_eq(r->not_found, "not found: nowhere/File.cu in the files optrace reads");
	ot_which_result_free(r);
	world_close(&wd);
	ot_arena_free(a);
}
END_TEST

START_TEST(library_kernels)
{
	struct world wd;
	ot_which_result *r;
	const ot_which_match *m;
	world_open(&wd);
	r = ask(&wd, "void cudnn::detail::implicit_convolve_sgemm<float, float, 1024>(int, int)");
	ck_assert_ptr_nonnull(r->library);
	ck_assert_str_eq(r->library->library, "cuDNN");
	m = match(r, OT_WM_CALLSITE, "cudnnSoftmaxForward");
	ck_assert_uint_eq(m->line, 13);
	ck_assert_uint_eq(m->nops, 1);
	ot_which_result_free(r);
	r = ask(&wd, "ampere_sgemm_128x64_tn");
	ck_assert_str_eq(r->library->library, "cuBLAS");
	ck_assert_uint_eq(r->nmatches, 0);
	ck_assert_str_eq(r->not_found, "not found: a call of cuBLAS in the traces");
	ot_which_result_free(r);
	world_close(&wd);
}
END_TEST

static ot_udiff *diff_of(const char *text)
{
	ot_udiff *d = NULL;
	ck_assert_msg(ot_udiff_parse(&d, text, strlen(text), "t.diff") == 0, "%s", ot_error_last());
	return d;
}

START_TEST(diff_touches)
{
	struct world wd;
	ot_which_result *r;
	ot_udiff *d;
	world_open(&wd);
	/* after the closing brace of cunn_SoftMaxForward (line 9): no function; inside
	 * it (after line 8): the kernel; line 19 of softmax_backward_cuda */
	d = diff_of("--- a/" SOFTMAX_CU "\n+++ b/" SOFTMAX_CU "\n"
		    "@@ -9,0 +10,1 @@\n+// after\n");
	ck_assert(ot_which_diff(&r, wd.w, d) == 0);
	ck_assert_uint_eq(r->nmatches, 0);
	ot_which_result_free(r);
	ot_udiff_free(d);
	d = diff_of("--- a/" SOFTMAX_CU "\n+++ b/" SOFTMAX_CU "\n"
		    "@@ -8,0 +9,1 @@\n+  // inside\n"
		    "@@ -19,1 +20,1 @@\n-x\n+y\n"
		    "--- a/gone/elsewhere.cpp\n+++ b/gone/elsewhere.cpp\n@@ -1 +1 @@\n-a\n+b\n");
	ck_assert(ot_which_diff(&r, wd.w, d) == 0);
	ck_assert_uint_eq(r->nmatches, 2);
	ck_assert_str_eq(match(r, OT_WM_FUNCTION, "cunn_SoftMaxForward")->via, "lines added after line 8");
	ck_assert_str_eq(match(r, OT_WM_FUNCTION, "softmax_backward_cuda")->via, "line 19 changed");
	ck_assert_uint_eq(r->nops, 2);
	ck_assert_str_eq(r->not_found, "not found: gone/elsewhere.cpp in the files optrace reads");
	ot_which_result_free(r);
	ot_udiff_free(d);
	world_close(&wd);
}
END_TEST

START_TEST(kernels_page)
{
	struct world wd;
	ot_arena *a = ot_arena_new();
	const ot_which_match *fns;
	ot_release rel = {"2.0.0", "v2.0.0", "0123456789012345678901234567890123456789", true, ""};
	ot_pages *p = NULL;
	ot_buf md = OT_BUF_INIT;
	size_t n;
	world_open(&wd);
	/* only functions with a step on a main path, and only the main steps' ops */
	n = ot_which_main_functions(wd.w, a, &fns);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(fns[0].symbol, "cunn_SoftMaxForward");
	ck_assert_str_eq(fns[1].symbol, "softmax_cuda_out");
	ck_assert_uint_eq(fns[1].nops, 1);
	ck_assert_uint_eq(fns[1].ops[0].nsteps, 1); /* not the cuDNN call under its condition */
	ck_assert_msg(ot_pages_new(&p, &rel, wd.traces, NULL, 2, wd.ix, NULL, NULL) == 0, "%s", ot_error_last());
	ck_assert(ot_pages_render_kernels(p, &md) == 0);
	ck_assert_msg(strstr(md.ptr, "| `" SOFTMAX_CU ":7` | `cunn_SoftMaxForward` | `at::native` | `__global__ CUDA "
				     "kernel` | CPU, CUDA | [F.softmax](ops/f-softmax.md) |"), "%s", md.ptr);
	ck_assert(strstr(md.ptr, "| `" SOFTMAX_CU ":11` | `softmax_cuda_out` | `at::native` | `TORCH_IMPL_FUNC` | CUDA |"));
	ck_assert(!strstr(md.ptr, "softmax_backward_cuda"));
	ck_assert(strstr(md.ptr, "2 functions."));
	ot_pages_free(p);
	ot_buf_free(&md);
	world_close(&wd);
	ot_arena_free(a);
}
END_TEST

START_TEST(kernels_page_empty)
{
	struct world wd;
	ot_release rel = {"2.0.0", "v2.0.0", "0123456789012345678901234567890123456789", true, ""};
	ot_pages *p = NULL;
	ot_buf md = OT_BUF_INIT;
	world_open(&wd);
	wd.traces[0]->steps.items[0].main = 0;
	wd.traces[0]->steps.items[2].main = 0;
	ck_assert(ot_pages_new(&p, &rel, wd.traces, NULL, 2, wd.ix, NULL, NULL) == 0);
	ck_assert(ot_pages_render_kernels(p, &md) == 0);
	ck_assert(strstr(md.ptr, "No step of these traces is marked as on a main path, so no function is listed."));
	ot_pages_free(p);
	ot_buf_free(&md);
	world_close(&wd);
}
END_TEST

START_TEST(json_answer)
{
	struct world wd;
	ot_which_result *r;
	ot_buf b = OT_BUF_INIT;
	ot_arena *a = ot_arena_new();
	ot_value *root;
	ot_release rel = {"2.0.0", "v2.0.0", "0123", true, ""};
	world_open(&wd);
	r = ask(&wd, "void at::native::cunn_SoftMaxForward<float, at::native::Epi>(float*)");
	ot_which_render_json(&b, r, wd.traces, &rel);
	ck_assert_msg(ot_yaml_load(&root, a, b.ptr, b.size, "answer") == 0, "%s", ot_error_last());
	ck_assert_str_eq(ot_v_cstr(ot_v_get(root, "kind")), "name");
	ck_assert_str_eq(ot_v_cstr(ot_v_get(ot_v_get(root, "parsed"), "scope")), "at::native");
	ck_assert_uint_eq(ot_v_len(ot_v_get(ot_v_get(root, "parsed"), "template_arguments")), 2);
	ck_assert_str_eq(ot_v_cstr(ot_v_at(ot_v_get(root, "ops"), 0)), "F.softmax");
	ck_assert(strstr(b.ptr, "\"main\": [\"cpu\", \"cuda\"]"));
	ck_assert(strstr(b.ptr, "\"not_found\": null"));
	ot_buf_clear(&b);
	ot_which_render_text(&b, r, wd.traces, &rel);
	ck_assert_msg(strstr(b.ptr, "function cunn_SoftMaxForward (at::native) — __global__ CUDA kernel\n"
				    "  " SOFTMAX_CU ":7-9\n  reached by 1 op:\n    F.softmax"), "%s", b.ptr);
	ck_assert(strstr(b.ptr, "path: main (cpu, cuda)\n"));
	ot_which_result_free(r);
	ot_buf_free(&b);
	world_close(&wd);
	ot_arena_free(a);
}
END_TEST

/* ---- the real releases ------------------------------------------------------------------------ */

static const char *str_of(const ot_value *m, const char *k)
{
	const ot_value *v = ot_v_get(m, k);
	ck_assert_msg(v && v->type == OT_V_STR, KEY_PATH ":%d: '%s' must be a string", m->line, k);
	return ot_v_cstr(v);
}

static ot_value *key_load(ot_arena *a, char **text)
{
	size_t len;
	ot_value *root;
	*text = tu_read_file(KEY_PATH, &len);
	ck_assert_msg(ot_yaml_load(&root, a, *text, len, KEY_PATH) == 0, "%s", ot_error_last());
	ck_assert_msg(root->type == OT_V_LIST, KEY_PATH ": a list of queries");
	return root;
}

/* The text a match's line must hold at its tag. */
static const char *expected_text(ot_arena *a, const ot_value *m)
{
	const char *kind = str_of(m, "kind"), *symbol = str_of(m, "symbol"), *file = str_of(m, "file");
	const char *last = strrchr(symbol, ':');
	if (ot_ends_with(file, "native_functions.yaml"))
		return ot_arena_printf(a, "- func: %s(", symbol);
	if (ot_ends_with(file, "derivatives.yaml")) {
		const char *dot = strchr(symbol, '.');
		return ot_arena_printf(a, "- name: %.*s(", dot ? (int)(dot - symbol) : (int)strlen(symbol), symbol);
	}
	(void)kind;
	return last ? last + 1 : symbol;
}

START_TEST(key_holds_in_the_sources)
{
	ot_arena *a = ot_arena_new();
	char *text;
	const ot_value *root = key_load(a, &text);
	size_t n[2] = {0};
	for (size_t i = 0; i < ot_v_len(root); i++) {
		const ot_value *e = ot_v_at(root, i), *ms = ot_v_get(e, "matches");
		const char *release = str_of(e, "release");
		ck_assert_msg(!strcmp(release, "1.13.1") || !strcmp(release, "2.6.0"), KEY_PATH ":%d", e->line);
		ck_assert_msg(ot_v_get(e, "query") || ot_v_get(e, "diff"), KEY_PATH ":%d: a query or a diff", e->line);
		n[!strcmp(release, "2.6.0")]++;
		for (size_t k = 0; ms && k < ot_v_len(ms); k++) {
			const ot_value *m = ot_v_at(ms, k), *line = ot_v_get(m, "line");
			char tag[32], *got;
			snprintf(tag, sizeof(tag), "v%s", release);
			ck_assert(line && line->type == OT_V_INT);
			got = tu_git_lines(tu_real_source(), tag, str_of(m, "file"), (int)line->u.i, 1);
			ck_assert_msg(got && strstr(got, expected_text(a, m)), KEY_PATH ":%d: %s:%lld at %s holds '%s', not '%s'",
				      m->line, str_of(m, "file"), line->u.i, release, got ? got : "(no such line)",
				      expected_text(a, m));
			free(got);
		}
	}
	ck_assert_msg(n[0] >= MIN_QUERIES && n[1] >= MIN_QUERIES, "the key needs %d queries per release", MIN_QUERIES);
	printf("which key: %zu queries at 1.13.1, %zu at 2.6.0\n", n[0], n[1]);
	free(text);
	ot_arena_free(a);
}
END_TEST

/*
 * One trace of the release, as `optrace which --all --full` makes it (every
 * entry, ./ops.list, no well-known early exit), answers every query of the
 * key in process: 47 runs of the binary traced the release 47 times (a
 * quarter of an hour under ASan). The binary itself answers one query per
 * release, and must print what the library answers.
 */
static ot_run_traces *trace_release(const char *release, ot_opslist **list)
{
	ot_run_opts o = {.source = tu_real_source(), .ops_list = "ops.list", .ops_list_given = true, .all = true,
			 .full = true, .quiet = true, .max_depth = -1};
	ot_run_traces *t = NULL;
	ck_assert_msg(ot_opslist_load(list, "ops.list") == 0, "%s", ot_error_last());
	ck_assert_msg(ot_run_trace_release(&t, &o, release, NULL, *list) == 0, "%s", ot_error_last());
	return t;
}

/* The answer to key entry `e` as `optrace which --json` prints it; its exit status in *status. */
static void answer_of(ot_buf *json, int *status, ot_which *w, const ot_run_traces *t, const ot_value *e)
{
	const ot_value *q = ot_v_get(e, "query"), *d = ot_v_get(e, "diff");
	ot_which_result *res = NULL;
	ot_udiff *diff = NULL;
	if (d) {
		ck_assert_msg(ot_udiff_parse(&diff, ot_v_cstr(d), strlen(ot_v_cstr(d)), "change.diff") == 0, "%s",
			      ot_error_last());
		ck_assert_msg(ot_which_diff(&res, w, diff) == 0, "%s", ot_error_last());
	} else {
		ck_assert_msg(ot_which_query(&res, w, ot_v_cstr(q)) == 0, "%s", ot_error_last());
	}
	*status = d || res->nops ? 0 : 1; /* as ot_which_run */
	ot_which_render_json(json, res, t->traces, &t->rel);
	ot_which_result_free(res);
	ot_udiff_free(diff);
}

/* The binary's answer to `query` at `release` is the library's, `want`, byte for byte. */
static void binary_agrees(const char *release, const char *query, const ot_buf *want, int want_status)
{
	const char *argv[] = {tu_optrace(), "which", "-s", tu_real_source(), "-t", release, "--all",
			      "--full", "--json", query, "ops.list", NULL};
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
	int rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == want_status, "optrace which %s at %s: exit %d (want %d): %s", query, release, rc,
		      want_status, err.ptr);
	ck_assert_msg(out.size == want->size && !memcmp(out.ptr, want->ptr, out.size),
		      "optrace which %s at %s prints another answer than the library's", query, release);
	ot_buf_free(&out);
	ot_buf_free(&err);
}

static void run_release(const char *release)
{
	ot_arena *a = ot_arena_new();
	char *text;
	const ot_value *root = key_load(a, &text);
	ot_opslist *list = NULL;
	ot_run_traces *t = trace_release(release, &list);
	ot_which *w = ot_which_new(t->traces, t->n, ot_run_traces_index(t), t->reg);
	size_t asked = 0;
	bool binary_checked = false;
	for (size_t i = 0; i < ot_v_len(root); i++) {
		const ot_value *e = ot_v_at(root, i), *ms = ot_v_get(e, "matches"), *ops = ot_v_get(e, "ops");
		const ot_value *not_ops = ot_v_get(e, "not_ops");
		const ot_value *q = ot_v_get(e, "query"), *status = ot_v_get(e, "status");
		const ot_value *lib = ot_v_get(e, "library"), *nf = ot_v_get(e, "not_found"), *got;
		ot_value *answer;
		ot_buf out = OT_BUF_INIT;
		int rc;
		if (strcmp(str_of(e, "release"), release))
			continue;
		answer_of(&out, &rc, w, t, e);
		ck_assert_msg(status && rc == status->u.i, KEY_PATH ":%d: exit %d (want %lld)", e->line, rc,
			      status ? status->u.i : -1);
		if (q && !binary_checked) {
			binary_agrees(release, ot_v_cstr(q), &out, rc);
			binary_checked = true;
		}
		ck_assert_msg(ot_yaml_load(&answer, a, out.ptr, out.size, "answer") == 0, "%s", ot_error_last());
		got = ot_v_get(answer, "library");
		ck_assert_msg(lib ? got->type == OT_V_MAP && !strcmp(ot_v_cstr(ot_v_get(got, "name")), ot_v_cstr(lib))
				  : got->type == OT_V_NULL,
			      KEY_PATH ":%d: library", e->line);
		got = ot_v_get(answer, "not_found");
		ck_assert_msg((nf && nf->u.b) == (got->type == OT_V_STR && !ot_v_len(ot_v_get(answer, "matches"))),
			      KEY_PATH ":%d: not_found", e->line);
		for (size_t k = 0; ms && k < ot_v_len(ms); k++) {
			const ot_value *m = ot_v_at(ms, k), *all = ot_v_get(answer, "matches");
			bool found = false;
			for (size_t j = 0; j < ot_v_len(all) && !found; j++) {
				const ot_value *g = ot_v_at(all, j);
				found = !strcmp(ot_v_cstr(ot_v_get(g, "kind")), str_of(m, "kind")) &&
					!strcmp(ot_v_cstr(ot_v_get(g, "symbol")), str_of(m, "symbol")) &&
					!strcmp(ot_v_cstr(ot_v_get(g, "file")), str_of(m, "file")) &&
					ot_v_get(g, "line")->u.i == ot_v_get(m, "line")->u.i;
			}
			ck_assert_msg(found, KEY_PATH ":%d: %s at %s: no %s %s at %s:%lld", m->line, release,
				      q ? ot_v_cstr(q) : "the diff", str_of(m, "kind"), str_of(m, "symbol"), str_of(m, "file"),
				      ot_v_get(m, "line")->u.i);
		}
		for (size_t k = 0; ops && k < ot_v_len(ops); k++) {
			const ot_value *all = ot_v_get(answer, "ops");
			bool found = false;
			for (size_t j = 0; j < ot_v_len(all) && !found; j++)
				found = !strcmp(ot_v_cstr(ot_v_at(all, j)), ot_v_cstr(ot_v_at(ops, k)));
			ck_assert_msg(found, KEY_PATH ":%d: %s: %s does not reach it", e->line, release,
				      ot_v_cstr(ot_v_at(ops, k)));
		}
		for (size_t k = 0; not_ops && k < ot_v_len(not_ops); k++) {
			const ot_value *all = ot_v_get(answer, "ops");
			for (size_t j = 0; j < ot_v_len(all); j++)
				ck_assert_msg(strcmp(ot_v_cstr(ot_v_at(all, j)), ot_v_cstr(ot_v_at(not_ops, k))),
					      KEY_PATH ":%d: %s: %s reaches it, and must not", e->line, release,
					      ot_v_cstr(ot_v_at(not_ops, k)));
		}
		asked++;
		ot_buf_free(&out);
	}
	ck_assert_msg(binary_checked, KEY_PATH ": no query at %s for the binary to answer", release);
	printf("which key at %s: %zu queries answered as checked\n", release, asked);
	ot_which_free(w);
	ot_run_traces_free(t);
	ot_opslist_free(list);
	free(text);
	ot_arena_free(a);
}

START_TEST(key_at_1_13_1)
{
	run_release("1.13.1");
}
END_TEST

START_TEST(key_at_2_6_0)
{
	run_release("2.6.0");
}
END_TEST

START_TEST(usage_errors)
{
	ot_buf err = OT_BUF_INIT;
	const char *none[] = {tu_optrace(), "which", NULL};
	const char *out[] = {tu_optrace(), "which", "x", "-o", "y", NULL};
	const char *bad[] = {tu_optrace(), "which", "--diff", "/nonexistent/x.diff", "-t", "2.6.0", NULL};
	ck_assert_int_eq(tu_run(none, NULL, &err), 2);
	ck_assert(strstr(err.ptr, "which needs something to look for (or --diff FILE)"));
	ck_assert_int_eq(tu_run(out, NULL, &err), 2);
	ck_assert_int_eq(tu_run(bad, NULL, &err), 2);
	ck_assert(strstr(err.ptr, "cannot read /nonexistent/x.diff"));
	ot_buf_free(&err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("which");
	TCase *unit = tcase_create("fixture"), *real = tcase_create("real");
	tcase_set_timeout(unit, 60);
	tcase_add_test(unit, function_of_a_step);
	tcase_add_test(unit, library_kernels);
	tcase_add_test(unit, diff_touches);
	tcase_add_test(unit, kernels_page);
	tcase_add_test(unit, kernels_page_empty);
	tcase_add_test(unit, json_answer);
	tcase_add_test(unit, usage_errors);
	suite_add_tcase(s, unit);
	tcase_set_timeout(real, 600);
	tcase_add_test(real, key_holds_in_the_sources);
	tcase_add_test(real, key_at_1_13_1);
	tcase_add_test(real, key_at_2_6_0);
	suite_add_tcase(s, real);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
