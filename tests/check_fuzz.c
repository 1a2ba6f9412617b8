/*
 * Check suite: replay the libFuzzer harnesses of tests/fuzz/ without
 * libFuzzer.
 *
 * Every input in tests/fuzz/crashes/<harness>/ once crashed, leaked, hung
 * or broke an invariant of that harness; each must now pass (under
 * `make asan` the sanitizers watch them too) and finish quickly. The
 * fixture files the harnesses take as seeds are replayed as well, so every
 * harness's invariants are shown to hold on well-formed input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "yamldoc.h"

#define CRASHES "tests/fuzz/crashes"
#define FIXTURE "tests/fixture"

/* The harnesses' entry points, renamed by the Makefile (-DLLVMFuzzerTestOneInput=X_one). */
typedef int (*entry_fn)(const uint8_t *data, size_t size);
int fuzz_opslist_one(const uint8_t *data, size_t size);
int fuzz_schema_one(const uint8_t *data, size_t size);
int fuzz_registry_one(const uint8_t *data, size_t size);
int fuzz_mustache_one(const uint8_t *data, size_t size);
int fuzz_scan_c_one(const uint8_t *data, size_t size);
int fuzz_scan_py_one(const uint8_t *data, size_t size);
int fuzz_tracejson_one(const uint8_t *data, size_t size);
int fuzz_page_one(const uint8_t *data, size_t size);
int fuzz_testscan_one(const uint8_t *data, size_t size);
int fuzz_kname_one(const uint8_t *data, size_t size);
int fuzz_udiff_one(const uint8_t *data, size_t size);

/* libFuzzer's -timeout (tests/fuzz/run.sh): slower is a hang. */
#define MAX_SECONDS 10.0

static void replay(entry_fn fn, const char *path)
{
	size_t len;
	char *data = tu_read_file(path, &len);
	double t = ot_clock();
	ck_assert_int_eq(fn((const uint8_t *)data, len), 0);
	t = ot_clock() - t;
	ck_assert_msg(t < MAX_SECONDS, "%s took %.2f s", path, t);
	free(data);
}

/* Replay every file of `dir` (not recursive); returns how many. */
static size_t replay_dir(entry_fn fn, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	OT_VEC(char *) names = {0};
	size_t i, n;
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			ot_vec_push(&names, ot_strdup(e->d_name));
	closedir(d);
	if (names.len > 1)
		qsort(names.items, names.len, sizeof(char *), ot_strptr_cmp);
	for (i = 0; i < names.len; i++) {
		ot_buf p = OT_BUF_INIT;
		ot_buf_printf(&p, "%s/%s", dir, names.items[i]);
		replay(fn, p.ptr);
		ot_buf_free(&p);
		free(names.items[i]);
	}
	n = names.len;
	ot_vec_free(&names);
	return n;
}

/* Replay every file under `dir` whose name ends with one of `exts`. */
static size_t replay_tree(entry_fn fn, const char *dir, const char *const *exts)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), i;
	size_t count = 0;
	ck_assert_msg(n >= 0, "cannot list %s", dir);
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		ot_buf p = OT_BUF_INIT;
		ot_buf_printf(&p, "%s/%s", dir, name);
		if (name[0] == '.') {
			/* skip */
		} else if (names[i]->d_type == DT_DIR) {
			count += replay_tree(fn, p.ptr, exts);
		} else {
			for (const char *const *x = exts; *x; x++)
				if (ot_ends_with(name, *x)) {
					replay(fn, p.ptr);
					count++;
					break;
				}
		}
		ot_buf_free(&p);
		free(names[i]);
	}
	free(names);
	return count;
}

/* Feed each "- func:"/"- name:" schema of a YAML file to the schema harness. */
static size_t replay_schemas(const char *path)
{
	size_t len, count = 0;
	char *text = tu_read_file(path, &len), *line, *save = NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *s = NULL;
		if (ot_starts_with(line, "- func: "))
			s = line + 8;
		else if (ot_starts_with(line, "- name: "))
			s = line + 8;
		if (s) {
			ck_assert_int_eq(fuzz_schema_one((const uint8_t *)s, strlen(s)), 0);
			count++;
		}
	}
	free(text);
	return count;
}

/* ---- crash inputs --------------------------------------------------------------- */

#define CRASH_TEST(h)                                                                      \
	START_TEST(crashes_##h)                                                            \
	{                                                                                  \
		size_t n = replay_dir(h##_one, CRASHES "/" #h);                            \
		fprintf(stderr, "%s: %zu regression inputs\n", #h, n);                     \
	}                                                                                  \
	END_TEST

CRASH_TEST(fuzz_opslist)
CRASH_TEST(fuzz_schema)
CRASH_TEST(fuzz_registry)
CRASH_TEST(fuzz_mustache)
CRASH_TEST(fuzz_scan_c)
CRASH_TEST(fuzz_scan_py)
CRASH_TEST(fuzz_tracejson)
CRASH_TEST(fuzz_page)
CRASH_TEST(fuzz_testscan)
CRASH_TEST(fuzz_kname)
CRASH_TEST(fuzz_udiff)

/* ---- seeds from the fixture ------------------------------------------------------ */

START_TEST(seeds_opslist)
{
	replay(fuzz_opslist_one, "ops.list");
}
END_TEST

START_TEST(seeds_schema)
{
	size_t n = replay_schemas(FIXTURE "/v1/aten/src/ATen/native/native_functions.yaml") +
		   replay_schemas(FIXTURE "/v2/aten/src/ATen/native/native_functions.yaml") +
		   replay_schemas(FIXTURE "/v2/tools/autograd/derivatives.yaml");
	ck_assert_uint_gt(n, 20);
}
END_TEST

/* The harness's input format: native file, separator, derivatives file. */
START_TEST(seeds_registry)
{
	const char *const versions[] = {"v1", "v2"};
	for (size_t i = 0; i < 2; i++) {
		ot_buf p = OT_BUF_INIT, in = OT_BUF_INIT;
		size_t len;
		char *text;
		ot_buf_printf(&p, FIXTURE "/%s/aten/src/ATen/native/native_functions.yaml",
			      versions[i]);
		text = tu_read_file(p.ptr, &len);
		ot_buf_put(&in, text, len);
		free(text);
		ot_buf_puts(&in, "\n#--derivatives--\n");
		ot_buf_clear(&p);
		ot_buf_printf(&p, FIXTURE "/%s/tools/autograd/derivatives.yaml", versions[i]);
		text = tu_read_file(p.ptr, &len);
		ot_buf_put(&in, text, len);
		free(text);
		ck_assert_int_eq(fuzz_registry_one((const uint8_t *)in.ptr, in.size), 0);
		ot_buf_free(&p);
		ot_buf_free(&in);
	}
}
END_TEST

START_TEST(seeds_mustache)
{
	static const char *const exts[] = {".mustache", NULL};
	static const char partials[] = "  {{>p}}\n{{>zz}}{{>err}}\0{{a}}\n{{#d.l}}{{n}}{{>p}}{{/d.l}}";
	ck_assert_uint_gt(replay_tree(fuzz_mustache_one, "templates", exts), 0);
	/* a self-including partial stops at the nesting limit */
	ck_assert_int_eq(fuzz_mustache_one((const uint8_t *)partials, sizeof(partials) - 1), 0);
}
END_TEST

START_TEST(seeds_scan_c)
{
	static const char *const exts[] = {".cpp", ".cu", ".h", ".cuh", ".mm", NULL};
	ck_assert_uint_gt(replay_tree(fuzz_scan_c_one, FIXTURE, exts), 10);
}
END_TEST

START_TEST(seeds_scan_py)
{
	static const char *const exts[] = {".py", ".pyi", NULL};
	ck_assert_uint_gt(replay_tree(fuzz_scan_py_one, FIXTURE, exts), 10);
}
END_TEST

/* The golden trace.json files of tests/cases/ read back. */
START_TEST(seeds_tracejson)
{
	static const char *const exts[] = {"trace.json", NULL};
	ck_assert_uint_gt(replay_tree(fuzz_tracejson_one, "tests/cases", exts), 10);
}
END_TEST

/* The hostile names of check_hostile's untrusted checkouts (also the seeds
 * of tests/fuzz/run.sh): formula, then file, symbol, note, op, backend per step. */
static const char page_seeds[][256] = {
	"grad || grad\rx<script>x</script>\0aten/src/ATen/native/cudnn/RNN\n```\n<img src=x "
	"onerror=\"alert(1)\">) <img> (.cpp\0lstm_cudnn\0a note\0lstm\0CUDA",
	"g\xe2\x80\xa8x\0aten/src/ATen/native/cudnn) [click](https:/evil.example/RNN.cpp\0f`o`o\0"
	"https://evil.example www.evil.example a@b.example\0op\0CPU\r<script>",
	"\xff\xfe\x1b]0;t\x07\0RNN\xff\xfe\x1b[2J\x07.cpp\0s\xe2\x80\xaeym\0- 1. # > ---\0"
	"\xc2\x85x\0\x01\x0b\xc3(\xc0&lt;]]>",
	"\0\0```\0    code\0=\0||\0\0\0|a|b|\0`\0`` `\0~~~\0[x]: https://evil.example\0",
};

START_TEST(seeds_page)
{
	for (size_t i = 0; i < OT_ARRAY_LEN(page_seeds); i++) {
		size_t len = sizeof(page_seeds[i]);
		while (len && !page_seeds[i][len - 1])
			len--;
		ck_assert_int_eq(fuzz_page_one((const uint8_t *)page_seeds[i], len), 0);
	}
}
END_TEST

START_TEST(seeds_testscan)
{
	static const char *const exts[] = {".py", NULL};
	ck_assert_uint_gt(replay_tree(fuzz_testscan_one, FIXTURE, exts), 10);
}
END_TEST

/* The queries and diffs of tests/which_key.yaml. */
START_TEST(seeds_which)
{
	ot_arena *a = ot_arena_new();
	size_t len, n = 0;
	char *text = tu_read_file("tests/which_key.yaml", &len);
	ot_value *root;
	ck_assert(ot_yaml_load(&root, a, text, len, "which_key") == 0);
	for (size_t i = 0; i < ot_v_len(root); i++) {
		const ot_value *q = ot_v_get(ot_v_at(root, i), "query"), *d = ot_v_get(ot_v_at(root, i), "diff");
		if (q)
			ck_assert_int_eq(fuzz_kname_one((const uint8_t *)ot_v_cstr(q), strlen(ot_v_cstr(q))), 0);
		if (d)
			ck_assert_int_eq(fuzz_udiff_one((const uint8_t *)ot_v_cstr(d), strlen(ot_v_cstr(d))), 0);
		n++;
	}
	ck_assert_uint_gt(n, 20);
	free(text);
	ot_arena_free(a);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fuzz");
	TCase *tc = tcase_create("crashes");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, crashes_fuzz_opslist);
	tcase_add_test(tc, crashes_fuzz_schema);
	tcase_add_test(tc, crashes_fuzz_registry);
	tcase_add_test(tc, crashes_fuzz_mustache);
	tcase_add_test(tc, crashes_fuzz_scan_c);
	tcase_add_test(tc, crashes_fuzz_scan_py);
	tcase_add_test(tc, crashes_fuzz_tracejson);
	tcase_add_test(tc, crashes_fuzz_page);
	tcase_add_test(tc, crashes_fuzz_testscan);
	tcase_add_test(tc, crashes_fuzz_kname);
	tcase_add_test(tc, crashes_fuzz_udiff);
	suite_add_tcase(s, tc);
	tc = tcase_create("seeds");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, seeds_opslist);
	tcase_add_test(tc, seeds_schema);
	tcase_add_test(tc, seeds_registry);
	tcase_add_test(tc, seeds_mustache);
	tcase_add_test(tc, seeds_scan_c);
	tcase_add_test(tc, seeds_scan_py);
	tcase_add_test(tc, seeds_tracejson);
	tcase_add_test(tc, seeds_page);
	tcase_add_test(tc, seeds_testscan);
	tcase_add_test(tc, seeds_which);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite()) ? 1 : 0;
}
