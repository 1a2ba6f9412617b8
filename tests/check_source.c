/* Tests of gen/source.c: opening, selecting, reading and listing a checkout. */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source.h"
#include "testutil.h"

/*
 * libgit2 1.5 leaks a pcre2 match block on every remote lookup (fixed
 * upstream by libgit2 PR #6382, after 1.5). Only allocations made inside
 * pcre2 (which nothing else in this suite uses) are excused under
 * LeakSanitizer; any other leak still fails `make asan`.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}

/* ---- helpers --------------------------------------------------------------- */

#define ck_assert_has(haystack, needle)                                                        \
	ck_assert_msg(strstr((haystack), (needle)) != NULL, "'%s' lacks '%s'", (haystack), (needle))

/* Run `git -C dir ARGS...` (NULL-terminated) with a fixed identity; its stdout. */
static char *git_run(int *status, const char *dir, va_list ap)
{
	const char *argv[40];
	const char *arg;
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
	int n = 0;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = dir;
	argv[n++] = "-c";
	argv[n++] = "user.name=optrace test";
	argv[n++] = "-c";
	argv[n++] = "user.email=test@localhost";
	argv[n++] = "-c";
	argv[n++] = "advice.detachedHead=false";
	while ((arg = va_arg(ap, const char *)) && n < 39)
		argv[n++] = arg;
	argv[n] = NULL;
	*status = tu_run(argv, &out, &err);
	if (*status != 0)
		fprintf(stderr, "git %s: %s", argv[9], err.ptr);
	ot_buf_free(&err);
	while (out.size && out.ptr[out.size - 1] == '\n')
		ot_buf_truncate(&out, out.size - 1);
	return ot_buf_detach(&out);
}

/* git that must succeed; returns its stdout without the final newline. */
static char *git(const char *dir, ...)
{
	va_list ap;
	int status;
	char *out;
	va_start(ap, dir);
	out = git_run(&status, dir, ap);
	va_end(ap);
	ck_assert_msg(status == 0, "git in %s failed", dir);
	return out;
}

static void git_do(const char *dir, ...)
{
	va_list ap;
	int status;
	va_start(ap, dir);
	free(git_run(&status, dir, ap));
	va_end(ap);
	ck_assert_msg(status == 0, "git in %s failed", dir);
}

/* A writable clone of the fixture (its own objects, so they may be damaged). */
static char *fixture_clone(const char *tag)
{
	char *dir = tu_tmpdir(tag), *src = tu_absolute(tu_fixture_repo());
	char *clone = tu_path(dir, "repo");
	git_do(dir, "clone", "-q", "--no-local", src, "repo", NULL);
	free(src);
	free(dir);
	return clone;
}

/* A new repository with one commit holding `files` (name, text pairs), tagged. */
static char *small_repo(const char *tag, const char *git_tag, const char *const *files)
{
	char *dir = tu_tmpdir(tag);
	size_t i;
	git_do(dir, "init", "-q", NULL);
	for (i = 0; files && files[i]; i += 2) {
		char *path = tu_path(dir, files[i]);
		char *slash = strrchr(path, '/');
		if (strchr(files[i], '/')) {
			char *d = ot_strndup(path, (size_t)(slash - path));
			mkdir(d, 0755);
			free(d);
		}
		tu_write_file(path, files[i + 1], strlen(files[i + 1]));
		free(path);
	}
	git_do(dir, "add", "-A", NULL);
	git_do(dir, "commit", "-q", "--allow-empty", "-m", "one", NULL);
	if (git_tag)
		git_do(dir, "tag", git_tag, NULL);
	return dir;
}

static ot_source *open_ok(const char *path)
{
	ot_source_opts opts = {0};
	ot_source *src = NULL;
	opts.path = path;
	ck_assert_msg(ot_source_open(&src, &opts) == 0, "%s", ot_error_last());
	return src;
}

static void select_ok(ot_source *src, const char *version, const char *hint)
{
	ck_assert_msg(ot_source_select(src, version, hint) == 0, "%s", ot_error_last());
}

static char *read_ok(ot_source *src, const char *path)
{
	ot_buf b = OT_BUF_INIT;
	ck_assert_msg(ot_source_read(&b, src, path) == 0, "%s", ot_error_last());
	return ot_buf_detach(&b);
}

static int open_err(const char *path, const char *url, bool unverified)
{
	ot_source_opts opts = {0};
	ot_source *src = (ot_source *)1;
	int rc;
	opts.path = path;
	opts.clone_url = url;
	opts.allow_unverified = unverified;
	rc = ot_source_open(&src, &opts);
	ck_assert_ptr_null(src);
	return rc;
}

/* ---- opening and selecting ------------------------------------------------------ */

START_TEST(select_lightweight_and_annotated_tags)
{
	const char *repo = tu_fixture_repo();
	ot_source *src = open_ok(repo);
	char *c1 = git(repo, "rev-parse", "v1.0.0^{commit}", NULL);
	char *c2 = git(repo, "rev-parse", "v2.0.0^{commit}", NULL);
	char *tag2 = git(repo, "rev-parse", "v2.0.0", NULL);

	ck_assert(ot_source_verified(src));
	ck_assert_str_eq(ot_source_path(src), repo);
	select_ok(src, "1.0.0", NULL);
	ck_assert_str_eq(ot_source_version(src), "1.0.0");
	ck_assert_str_eq(ot_source_tag(src), "v1.0.0");
	ck_assert_str_eq(ot_source_commit(src), c1);
	select_ok(src, "2.0.0", NULL);
	ck_assert_str_eq(ot_source_tag(src), "v2.0.0");
	ck_assert_str_eq(ot_source_commit(src), c2);
	/* The annotated tag was peeled: the tag object is not the commit. */
	ck_assert_str_ne(tag2, c2);
	ot_source_free(src);
	free(c1);
	free(c2);
	free(tag2);
}
END_TEST

START_TEST(reads_come_from_the_tag_not_the_work_tree)
{
	const char *repo = tu_fixture_repo();
	ot_source *src = open_ok(repo);
	char *text, *expect, *wt = tu_path(repo, "version.txt");

	/* The work tree is at v1.0.0. */
	text = tu_read_file(wt, NULL);
	ck_assert_str_eq(text, "1.0.0a0\n");
	free(text);
	select_ok(src, "2.0.0", NULL);
	text = read_ok(src, "version.txt");
	ck_assert_str_eq(text, "2.0.0a0\n");
	free(text);
	text = read_ok(src, "aten/src/ATen/native/native_functions.yaml");
	expect = tu_read_file("tests/fixture/v2/aten/src/ATen/native/native_functions.yaml", NULL);
	ck_assert_str_eq(text, expect);
	free(text);
	free(expect);
	text = read_ok(src, "torch/nn/functional.py");
	ck_assert_has(text, "torch._C._nn.scaled_dot_product_attention"); /* only at v2 */
	free(text);
	select_ok(src, "1.0.0", NULL);
	text = read_ok(src, "aten/src/ATen/native/LinearAlgebra.cpp");
	expect = tu_read_file("tests/fixture/v1/aten/src/ATen/native/LinearAlgebra.cpp", NULL);
	ck_assert_str_eq(text, expect);
	free(text);
	free(expect);
	ck_assert_int_eq(ot_source_read(&(ot_buf)OT_BUF_INIT, src, "aten/src/ATen/native/LinearOps.cpp"),
			 OT_ENOTFOUND); /* added at v2 */
	ot_source_free(src);
	free(wt);
}
END_TEST

START_TEST(dirty_work_tree_does_not_leak)
{
	char *repo = fixture_clone("dirty");
	char *wt = tu_path(repo, "version.txt"), *untracked = tu_path(repo, "aten/new.cpp");
	ot_source *src;
	ot_buf b = OT_BUF_INIT;
	char *text;

	git_do(repo, "checkout", "-q", "v1.0.0", NULL);
	tu_write_file(wt, "dirty\n", 6);
	tu_write_file(untracked, "new\n", 4);
	src = open_ok(repo);
	select_ok(src, "1.0.0", NULL);
	text = read_ok(src, "version.txt");
	ck_assert_str_eq(text, "1.0.0a0\n");
	free(text);
	ck_assert_int_eq(ot_source_read(&b, src, "aten/new.cpp"), OT_ENOTFOUND);
	select_ok(src, "2.0.0", NULL);
	text = read_ok(src, "version.txt");
	ck_assert_str_eq(text, "2.0.0a0\n");
	free(text);
	ot_source_free(src);
	ot_buf_free(&b);
	free(wt);
	free(untracked);
	free(repo);
}
END_TEST

START_TEST(read_refuses_what_is_not_a_file)
{
	ot_source *src = open_ok(tu_fixture_repo());
	ot_buf b = OT_BUF_INIT;
	static const char *const missing[] = {
		"nope.txt", "aten", "aten/src/ATen", "aten/", "../version.txt", "/version.txt",
		"./version.txt", "aten//src/ATen/native/native_functions.yaml", "",
		"aten/src/../version.txt", "version.txt/x",
	};
	size_t i;

	ck_assert_int_eq(ot_source_read(&b, src, "version.txt"), OT_ERROR); /* nothing selected */
	ck_assert_has(ot_error_last(), "no release selected");
	select_ok(src, "2.0.0", NULL);
	for (i = 0; i < OT_ARRAY_LEN(missing); i++)
		ck_assert_msg(ot_source_read(&b, src, missing[i]) == OT_ENOTFOUND, "%s was read",
			      missing[i]);
	/* The buffer is replaced, not appended to. */
	ot_buf_sets(&b, "old contents");
	ck_assert_int_eq(ot_source_read(&b, src, "version.txt"), 0);
	ck_assert_str_eq(b.ptr, "2.0.0a0\n");
	ck_assert_uint_eq(b.size, 8);
	ot_buf_free(&b);
	ot_source_free(src);
	ot_source_free(NULL);
	ot_source_reader_free(NULL);
}
END_TEST

START_TEST(refuse_missing_file_empty_and_plain)
{
	char *dir = tu_tmpdir("refuse"), *missing = tu_path(dir, "no/such/checkout");
	char *file = tu_path(dir, "file"), *empty = tu_path(dir, "empty"), *plain = tu_path(dir, "plain");
	char *plainfile = tu_path(plain, "version.txt"), *broken = tu_path(dir, "broken");
	char *brokengit = tu_path(broken, ".git");

	ck_assert_int_eq(open_err(missing, NULL, false), OT_ERROR);
	ck_assert_has(ot_error_last(), missing);
	ck_assert_has(ot_error_last(), "does not exist");
	ck_assert_has(ot_error_last(), "git clone " OT_SOURCE_DEFAULT_URL);
	ck_assert_has(ot_error_last(), "--source");

	tu_write_file(file, "x", 1);
	ck_assert_int_eq(open_err(file, NULL, true), OT_ERROR);
	ck_assert_has(ot_error_last(), file);
	ck_assert_has(ot_error_last(), "is a file, not a folder");

	mkdir(empty, 0755);
	ck_assert_int_eq(open_err(empty, OT_SOURCE_DEFAULT_URL, true), OT_ERROR);
	ck_assert_has(ot_error_last(), empty);
	ck_assert_has(ot_error_last(), "is an empty folder");

	/* A plain folder (inside this project's own git work tree, which must not count). */
	mkdir(plain, 0755);
	tu_write_file(plainfile, "2.6.0a0\n", 8);
	ck_assert_int_eq(open_err(plain, NULL, false), OT_ERROR);
	ck_assert_has(ot_error_last(), plain);
	ck_assert_has(ot_error_last(), "is not a git repository");
	ck_assert_has(ot_error_last(), "--unverified-source");

	/* A repository whose configuration is garbage. */
	mkdir(broken, 0755);
	git_do(broken, "init", "-q", NULL);
	{
		char *config = tu_path(brokengit, "config");
		tu_write_file(config, "[[[ not a config\n", 17);
		free(config);
	}
	ck_assert_int_eq(open_err(broken, NULL, true), OT_ERROR);
	ck_assert_has(ot_error_last(), "cannot open the git repository");
	ck_assert_has(ot_error_last(), broken);

	free(dir);
	free(missing);
	free(file);
	free(empty);
	free(plain);
	free(plainfile);
	free(broken);
	free(brokengit);
}
END_TEST

START_TEST(tag_missing)
{
	static const char *const files[] = {"version.txt", "1.0.0a0\n", NULL};
	char *repo = small_repo("notags", NULL, files);
	ot_source *src = open_ok(repo);
	ot_buf cmd = OT_BUF_INIT;

	ck_assert_int_eq(ot_source_select(src, "1.0.0", NULL), OT_ERROR);
	ck_assert_has(ot_error_last(), "PyTorch 1.0.0");
	ck_assert_has(ot_error_last(), repo);
	ck_assert_has(ot_error_last(), "has no tag v1.0.0");
	ck_assert_has(ot_error_last(), "no origin remote");
	/* no origin: the message names the upstream repository instead */
	ot_buf_printf(&cmd, "git -C %s fetch %s tag v1.0.0", repo, OT_SOURCE_DEFAULT_URL);
	ck_assert_has(ot_error_last(), cmd.ptr);
	ck_assert_has(ot_error_last(), "--source");
	ck_assert_ptr_null(ot_source_commit(src));
	ck_assert_ptr_null(ot_source_tag(src));
	/* Nothing readable without a selection. */
	ck_assert_int_eq(ot_source_read(&cmd, src, "version.txt"), OT_ERROR);
	ck_assert_int_eq(ot_source_select(src, "../../HEAD", NULL), OT_ERROR);
	ck_assert_has(ot_error_last(), "is not a release version");
	ot_buf_free(&cmd);
	ot_source_free(src);
	free(repo);
}
END_TEST

START_TEST(tag_fetched_from_origin)
{
	char *repo = fixture_clone("fetch");
	char *origin = tu_absolute(tu_fixture_repo());
	char *expect = git(origin, "rev-parse", "v2.0.0^{commit}", NULL);
	char *after, *tags;
	ot_source *src;

	git_do(repo, "tag", "-d", "v2.0.0", NULL);
	tags = git(repo, "tag", NULL);
	ck_assert_str_eq(tags, "v1.0.0");
	free(tags);
	src = open_ok(repo);
	select_ok(src, "2.0.0", NULL);
	ck_assert_str_eq(ot_source_commit(src), expect);
	after = git(repo, "rev-parse", "v2.0.0^{commit}", NULL);
	ck_assert_str_eq(after, expect);

	/* A tag the origin does not have either. */
	ck_assert_int_eq(ot_source_select(src, "3.0.0", NULL), OT_ERROR);
	ck_assert_has(ot_error_last(), "has no tag v3.0.0 (its origin remote does not have it either)");
	/* An origin that cannot be reached. */
	git_do(repo, "remote", "set-url", "origin", "/nonexistent/optrace/origin", NULL);
	git_do(repo, "tag", "-d", "v2.0.0", NULL);
	ck_assert_int_eq(ot_source_select(src, "2.0.0", NULL), OT_ERROR);
	ck_assert_has(ot_error_last(), "fetching it from origin (/nonexistent/optrace/origin) failed");
	ck_assert_has(ot_error_last(), "fetch origin tag v2.0.0");
	ot_source_free(src);
	free(after);
	free(expect);
	free(origin);
	free(repo);
}
END_TEST

START_TEST(tag_to_a_non_commit)
{
	char *repo = fixture_clone("nontag");
	char *c2 = git(repo, "rev-parse", "v2.0.0^{commit}", NULL);
	ot_source *src;

	git_do(repo, "tag", "v9.0.0", "v1.0.0^{tree}", NULL);
	git_do(repo, "tag", "-a", "-m", "a blob", "v9.1.0", "v1.0.0:version.txt", NULL);
	git_do(repo, "tag", "-a", "-m", "a tag of a tag", "v9.2.0", "v2.0.0", NULL);
	src = open_ok(repo);
	ck_assert_int_eq(ot_source_select(src, "9.0.0", NULL), OT_ERROR);
	ck_assert_has(ot_error_last(), "tag v9.0.0 in ");
	ck_assert_has(ot_error_last(), "points at a tree, not a commit");
	ck_assert_int_eq(ot_source_select(src, "9.1.0", NULL), OT_ERROR);
	ck_assert_has(ot_error_last(), "tag v9.1.0 in ");
	ck_assert_has(ot_error_last(), "points at a blob, not a commit");
	select_ok(src, "9.2.0", NULL);
	ck_assert_str_eq(ot_source_commit(src), c2);
	ot_source_free(src);
	free(c2);
	free(repo);
}
END_TEST

START_TEST(nightly_commits)
{
	const char *repo = tu_fixture_repo();
	char *c2 = git(repo, "rev-parse", "v2.0.0^{commit}", NULL);
	char *c1 = git(repo, "rev-parse", "v1.0.0^{commit}", NULL);
	char hint[8], upper[16];
	ot_source *src = open_ok(repo);
	char *text;
	size_t i;

	memcpy(hint, c2, 7);
	hint[7] = '\0';
	select_ok(src, "2.1.0", hint);
	ck_assert_str_eq(ot_source_commit(src), c2);
	ck_assert_ptr_null(ot_source_tag(src));
	ck_assert_str_eq(ot_source_version(src), "2.1.0");
	text = read_ok(src, "version.txt");
	ck_assert_str_eq(text, "2.0.0a0\n");
	free(text);
	for (i = 0; i < 10; i++)
		upper[i] = (char)(c1[i] >= 'a' && c1[i] <= 'f' ? c1[i] - 'a' + 'A' : c1[i]);
	upper[10] = '\0';
	select_ok(src, "1.1.0", upper);
	ck_assert_str_eq(ot_source_commit(src), c1);
	select_ok(src, "1.1.0", c1);

	ck_assert(strncmp(c1, "deadbee", 7) && strncmp(c2, "deadbee", 7));
	ck_assert_int_eq(ot_source_select(src, "2.7.0", "deadbee"), OT_ERROR);
	ck_assert_has(ot_error_last(), "nightly 2.7.0: commit deadbee is not in the checkout");
	ck_assert_has(ot_error_last(), repo);
	ck_assert_has(ot_error_last(), "--torch-version");
	ck_assert_int_eq(ot_source_select(src, "2.7.0", "xyz1234"), OT_ERROR);
	ck_assert_has(ot_error_last(), "'xyz1234' is not a commit id");
	ck_assert_int_eq(ot_source_select(src, "2.7.0", "abc"), OT_ERROR);
	ck_assert_has(ot_error_last(), "is not a commit id");
	ot_source_free(src);
	free(c1);
	free(c2);
}
END_TEST

START_TEST(corrupt_object_names_the_path)
{
	static const char *const files[] = {
		"ok.txt", "fine\n",
		"src/broken.cpp", "// this text will be damaged on disk, byte by byte\n",
		NULL,
	};
	char *repo = small_repo("corrupt", "v1.0.0", files);
	char *oid = git(repo, "rev-parse", "v1.0.0:src/broken.cpp", NULL);
	ot_buf obj = OT_BUF_INIT, b = OT_BUF_INIT;
	ot_source *src;
	size_t len;
	char *data;

	ot_buf_printf(&obj, "%s/.git/objects/%.2s/%s", repo, oid, oid + 2);
	data = tu_read_file(obj.ptr, &len);
	chmod(obj.ptr, 0644);
	data[len / 2] ^= 0x10; /* one flipped bit: zlib's checksum catches it */
	tu_write_file(obj.ptr, data, len);
	src = open_ok(repo);
	select_ok(src, "1.0.0", NULL);
	ck_assert_int_eq(ot_source_read(&b, src, "ok.txt"), 0);
	ck_assert_int_eq(ot_source_read(&b, src, "src/broken.cpp"), OT_ERROR);
	ck_assert_has(ot_error_last(), "cannot read src/broken.cpp at 1.0.0 from ");
	ck_assert_has(ot_error_last(), repo);
	/* Garbage instead of an object. */
	tu_write_file(obj.ptr, "garbage", 7);
	ck_assert_int_eq(ot_source_read(&b, src, "src/broken.cpp"), OT_ERROR);
	ck_assert_has(ot_error_last(), "src/broken.cpp");
	{
		ot_source_files list = {0};
		ot_arena *arena = ot_arena_new();
		const char *all[] = {"", NULL};
		ck_assert_int_eq(ot_source_list(&list, arena, src, all, NULL, NULL), OT_ERROR);
		ck_assert_has(ot_error_last(), "src/broken.cpp");
		ck_assert_uint_eq(list.len, 0);
		ot_vec_free(&list);
		ot_arena_free(arena);
	}
	ot_source_free(src);
	ot_buf_free(&obj);
	ot_buf_free(&b);
	free(data);
	free(oid);
	free(repo);
}
END_TEST

/* ---- listing ------------------------------------------------------------------------ */

static char *paths_of(const ot_source_files *list, size_t from)
{
	ot_buf b = OT_BUF_INIT;
	size_t i;
	for (i = from; i < list->len; i++)
		ot_buf_printf(&b, "%s%s", i > from ? " " : "", list->items[i].path);
	return ot_buf_detach(&b);
}

static char *list_paths(ot_source *src, const char *const *prefixes,
			bool (*keep)(const char *, void *), void *payload)
{
	ot_source_files list = {0};
	ot_arena *arena = ot_arena_new();
	char *s;
	ck_assert_msg(ot_source_list(&list, arena, src, prefixes, keep, payload) == 0, "%s",
		      ot_error_last());
	s = paths_of(&list, 0);
	ot_vec_free(&list);
	ot_arena_free(arena);
	return s;
}

static bool only_suffix(const char *path, void *payload)
{
	return ot_ends_with(path, payload);
}

#define ck_list(src, expect, keep, payload, ...)                                              \
	do {                                                                                   \
		const char *pre_[] = {__VA_ARGS__, NULL};                                      \
		char *got_ = list_paths((src), pre_, (keep), (payload));                       \
		ck_assert_str_eq(got_, (expect));                                              \
		free(got_);                                                                    \
	} while (0)

/* Regular files of `tag` (git ls-tree) under prefix a or b (b may be NULL),
 * space-separated in byte order: the oracle for ot_source_list. */
static char *git_listing(const char *repo, const char *tag, const char *a, const char *b)
{
	const char *argv[] = {"git", "-C", repo, "ls-tree", "-r", "--full-tree", tag, NULL};
	ot_buf out = OT_BUF_INIT, res = OT_BUF_INIT;
	char *line, *save = NULL;
	ck_assert_int_eq(tu_run(argv, &out, NULL), 0);
	for (line = strtok_r(out.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *path = strchr(line, '\t');
		if (!path || strncmp(line, "100", 3))
			continue;
		path++;
		if (ot_starts_with(path, a) || (b && ot_starts_with(path, b)))
			ot_buf_printf(&res, "%s%s", res.size ? " " : "", path);
	}
	ot_buf_free(&out);
	return ot_buf_detach(&res);
}

START_TEST(list_under_prefixes)
{
	const char *repo = tu_fixture_repo();
	ot_source *src = open_ok(repo);
	ot_source_files list = {0};
	ot_arena *arena = ot_arena_new();
	const char *aten[] = {"aten/src/ATen/", NULL};
	size_t i, before;

	select_ok(src, "2.0.0", NULL);
	/* The expectations come from git itself (ls-tree), filtered by prefix. */
	{
		char *e = git_listing(repo, "v2.0.0", "aten/src/ATen/", NULL);
		ck_list(src, e, NULL, NULL, "aten/src/ATen/");
		free(e);
	}
	/* Overlapping prefixes list a file once; order is byte order. */
	{
		char *e = git_listing(repo, "v2.0.0", "torch/", "aten/src/ATen/native/cuda/");
		ck_list(src, e, NULL, NULL, "torch/nn/", "torch/", "aten/src/ATen/native/cuda/",
			"torch/nn/functional.py");
		free(e);
	}
	ck_list(src, "torch/nn/functional.py torch/nn/functional.pyi", NULL, NULL,
		"torch/nn/functional.py");
	ck_list(src, "aten/src/ATen/native/LinearAlgebra.cpp aten/src/ATen/native/LinearAlgebra.h "
		"aten/src/ATen/native/LinearOps.cpp", NULL, NULL, "aten/src/ATen/native/L");
	ck_list(src, "version.txt", NULL, NULL, "version.txt");
	ck_list(src, "", NULL, NULL, "nonexistent/", "version.txt/", "../", "/etc/");
	{
		char *e = git_listing(repo, "v2.0.0", "", NULL);
		ck_list(src, e, NULL, NULL, "");
		free(e);
	}
	{
		char *e = git_listing(repo, "v2.0.0", "", NULL), *w, *save = NULL;
		ot_buf cpp = OT_BUF_INIT;
		for (w = strtok_r(e, " ", &save); w; w = strtok_r(NULL, " ", &save))
			if (ot_ends_with(w, ".cpp"))
				ot_buf_printf(&cpp, "%s%s", cpp.size ? " " : "", w);
		ck_list(src, cpp.ptr, only_suffix, ".cpp", "");
		ot_buf_free(&cpp);
		free(e);
	}
	{
		const char *none[] = {NULL};
		char *got = list_paths(src, none, NULL, NULL);
		ck_assert_str_eq(got, "");
		free(got);
	}

	/* Sizes and blob ids are git's; a second call appends. */
	ck_assert_int_eq(ot_source_list(&list, arena, src, aten, NULL, NULL), 0);
	before = list.len;
	ck_assert_int_eq(ot_source_list(&list, arena, src, aten, NULL, NULL), 0);
	ck_assert_uint_eq(list.len, 2 * before);
	for (i = 0; i < list.len; i++) {
		ot_buf spec = OT_BUF_INIT;
		char *oid, *size, hex[41];
		size_t k;
		ot_buf_printf(&spec, "v2.0.0:%s", list.items[i].path);
		oid = git(repo, "rev-parse", spec.ptr, NULL);
		size = git(repo, "cat-file", "-s", spec.ptr, NULL);
		for (k = 0; k < 20; k++)
			snprintf(hex + 2 * k, 3, "%02x", list.items[i].oid[k]);
		ck_assert_str_eq(hex, oid);
		ck_assert_uint_eq(list.items[i].size, strtoul(size, NULL, 10));
		ck_assert_str_eq(list.items[i].path, list.items[i % before].path);
		free(oid);
		free(size);
		ot_buf_free(&spec);
	}
	ot_vec_free(&list);
	ot_arena_free(arena);
	ot_source_free(src);
}
END_TEST

START_TEST(list_skips_links_submodules_and_huge_files)
{
	static const char *const files[] = {
		"a.txt", "a\n", "dir/b.txt", "b\n", "run.sh", "#!/bin/sh\n", NULL,
	};
	char *repo = small_repo("special", NULL, files);
	char *big = tu_path(repo, "big.bin"), *link = tu_path(repo, "link"), *dlink = tu_path(repo, "dirlink");
	char *run = tu_path(repo, "run.sh"), *head;
	char *zeros = ot_calloc(1, OT_SOURCE_MAX_FILE + 1);
	ot_buf spec = OT_BUF_INIT, b = OT_BUF_INIT;
	ot_source *src;

	tu_write_file(big, zeros, OT_SOURCE_MAX_FILE + 1);
	free(zeros);
	ck_assert_int_eq(symlink("a.txt", link), 0);
	ck_assert_int_eq(symlink("dir", dlink), 0);
	ck_assert_int_eq(chmod(run, 0755), 0);
	head = git(repo, "rev-parse", "HEAD", NULL);
	ot_buf_printf(&spec, "160000,%s,sub", head);
	git_do(repo, "add", "-A", NULL);
	git_do(repo, "update-index", "--add", "--cacheinfo", spec.ptr, NULL);
	git_do(repo, "commit", "-q", "-m", "two", NULL);
	git_do(repo, "tag", "v1.0.0", NULL);
	ot_buf_clear(&spec);
	{
		char *tree = git(repo, "ls-tree", "v1.0.0", NULL);
		ck_assert_has(tree, "120000 blob");
		ck_assert_has(tree, "160000 commit");
		ck_assert_has(tree, "100755 blob");
		free(tree);
	}

	src = open_ok(repo);
	select_ok(src, "1.0.0", NULL);
	ck_list(src, "a.txt dir/b.txt run.sh", NULL, NULL, "");
	ck_assert_int_eq(ot_source_read(&b, src, "link"), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, "dirlink/b.txt"), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, "sub"), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, "run.sh"), 0);
	ck_assert_int_eq(ot_source_read(&b, src, "big.bin"), OT_ERROR);
	ck_assert_has(ot_error_last(), "big.bin");
	ck_assert_has(ot_error_last(), "file too large");
	ot_source_free(src);
	ot_buf_free(&spec);
	ot_buf_free(&b);
	free(head);
	free(run);
	free(big);
	free(link);
	free(dlink);
	free(repo);
}
END_TEST

/* ---- plain folders ---------------------------------------------------------------------- */

START_TEST(plain_folder_only_when_allowed)
{
	char *dir = tu_tmpdir("plain-outside"), *plain = tu_tmpdir("plain");
	char *secret = tu_path(dir, "secret.txt"), *p;
	ot_source_opts opts = {0};
	ot_source *src;
	ot_source_reader *r;
	ot_source_files list = {0};
	ot_arena *arena = ot_arena_new();
	ot_buf b = OT_BUF_INIT;
	const char *all[] = {"", NULL};
	int fd;
	size_t i;

	tu_write_file(secret, "secret\n", 7);
	p = tu_path(plain, "version.txt");
	tu_write_file(p, "2.6.0a0\n", 8);
	free(p);
	p = tu_path(plain, "aten");
	mkdir(p, 0755);
	free(p);
	p = tu_path(plain, "aten/x.cpp");
	tu_write_file(p, "int x;\n", 7);
	free(p);
	p = tu_path(plain, "evil");
	ck_assert_int_eq(symlink(secret, p), 0);
	free(p);
	p = tu_path(plain, "up");
	ck_assert_int_eq(symlink("..", p), 0);
	free(p);
	p = tu_path(plain, "ldir");
	ck_assert_int_eq(symlink("aten", p), 0);
	free(p);
	p = tu_path(plain, "pipe");
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	free(p);
	p = tu_path(plain, "huge.bin"); /* sparse: cheap to make */
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_eq(ftruncate(fd, (off_t)OT_SOURCE_MAX_FILE + 1), 0);
	close(fd);
	free(p);

	opts.path = plain;
	ck_assert_int_eq(ot_source_open(&src, &opts), OT_ERROR);
	ck_assert_has(ot_error_last(), "--unverified-source");
	opts.allow_unverified = true;
	ck_assert_int_eq(ot_source_open(&src, &opts), 0);
	ck_assert(!ot_source_verified(src));
	select_ok(src, "2.6.0", NULL);
	ck_assert_str_eq(ot_source_commit(src), "unverified");
	ck_assert_ptr_null(ot_source_tag(src));
	ck_assert_str_eq(ot_source_version(src), "2.6.0");

	ck_assert_int_eq(ot_source_read(&b, src, "version.txt"), 0);
	ck_assert_str_eq(b.ptr, "2.6.0a0\n");
	ck_assert_int_eq(ot_source_read(&b, src, "aten/x.cpp"), 0);
	ck_assert_str_eq(b.ptr, "int x;\n");
	ck_assert_int_eq(ot_source_read(&b, src, "evil"), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, "ldir/x.cpp"), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, "up/plain-outside"), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, "../plain-outside/secret.txt"), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, "aten/../version.txt"), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, secret), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, "pipe"), OT_ENOTFOUND); /* and no hang */
	ck_assert_int_eq(ot_source_read(&b, src, "aten"), OT_ENOTFOUND);
	ck_assert_int_eq(ot_source_read(&b, src, "huge.bin"), OT_ERROR);
	ck_assert_has(ot_error_last(), "file too large");

	ck_assert_int_eq(ot_source_list(&list, arena, src, all, NULL, NULL), 0);
	p = paths_of(&list, 0);
	ck_assert_str_eq(p, "aten/x.cpp version.txt");
	free(p);
	ck_assert_uint_eq(list.items[0].size, 7);
	for (i = 0; i < 20; i++)
		ck_assert_uint_eq(list.items[0].oid[i], 0);
	ck_list(src, "aten/x.cpp", NULL, NULL, "aten/");
	ck_list(src, "", NULL, NULL, "ldir/", "up/", "../");

	ck_assert_int_eq(ot_source_reader_new(&r, src), 0);
	ck_assert_int_eq(ot_source_reader_read(&b, r, &list.items[1]), 0);
	ck_assert_str_eq(b.ptr, "2.6.0a0\n");
	ot_source_reader_free(r);

	ot_vec_free(&list);
	ot_arena_free(arena);
	ot_source_free(src);
	ot_buf_free(&b);
	free(secret);
	free(dir);
	free(plain);
}
END_TEST

/* ---- cloning -------------------------------------------------------------------------------- */

START_TEST(clone_from_a_local_repository)
{
	char *dir = tu_tmpdir("clone"), *origin = tu_absolute(tu_fixture_repo());
	char *path = tu_path(dir, "deeper/pytorch"), *bad = tu_path(dir, "bad");
	ot_buf url = OT_BUF_INIT;
	ot_source_opts opts = {0};
	ot_source *src;
	char *text, *expect = git(origin, "rev-parse", "v2.0.0^{commit}", NULL);
	struct stat st;

	ot_buf_printf(&url, "file://%s", origin);
	opts.path = path;
	opts.clone_url = url.ptr;
	opts.progress = true;
	ck_assert_msg(ot_source_open(&src, &opts) == 0, "%s", ot_error_last());
	select_ok(src, "2.0.0", NULL);
	ck_assert_str_eq(ot_source_commit(src), expect);
	text = read_ok(src, "version.txt");
	ck_assert_str_eq(text, "2.0.0a0\n");
	free(text);
	ot_source_free(src);
	/* Opening again uses the clone. */
	opts.clone_url = "file:///nonexistent/never/used";
	ck_assert_int_eq(ot_source_open(&src, &opts), 0);
	ot_source_free(src);

	opts.path = bad;
	opts.progress = false;
	ck_assert_int_eq(ot_source_open(&src, &opts), OT_ERROR);
	ck_assert_has(ot_error_last(), "cannot clone file:///nonexistent/never/used into ");
	ck_assert_has(ot_error_last(), bad);
	ck_assert_int_ne(stat(bad, &st), 0); /* no half-made checkout left behind */

	ot_buf_free(&url);
	free(expect);
	free(origin);
	free(path);
	free(bad);
	free(dir);
}
END_TEST

/* ---- readers on two threads ------------------------------------------------------------------ */

typedef struct {
	ot_source_reader *reader;
	const ot_source_files *files;
	char **expect;
	int failures;
} reader_job;

static void *read_all(void *arg)
{
	reader_job *job = arg;
	ot_buf b = OT_BUF_INIT;
	int round;
	size_t i;
	for (round = 0; round < 200; round++) {
		for (i = 0; i < job->files->len; i++) {
			if (ot_source_reader_read(&b, job->reader, &job->files->items[i]) != 0 ||
			    strcmp(b.ptr, job->expect[i]) || b.size != job->files->items[i].size)
				job->failures++;
		}
	}
	ot_buf_free(&b);
	return NULL;
}

START_TEST(readers_on_two_threads)
{
	ot_source *src = open_ok(tu_fixture_repo());
	ot_source_files list = {0};
	ot_arena *arena = ot_arena_new();
	const char *all[] = {"", NULL};
	reader_job jobs[2];
	pthread_t tid[2];
	char **expect;
	size_t i;
	int t;

	select_ok(src, "2.0.0", NULL);
	ck_assert_int_eq(ot_source_list(&list, arena, src, all, NULL, NULL), 0);
	{
		char *e = git_listing(tu_fixture_repo(), "v2.0.0", "", NULL);
		size_t n = 1;
		for (const char *p = e; *p; p++)
			n += *p == ' ';
		ck_assert_uint_eq(list.len, n);
		free(e);
	}
	expect = ot_calloc(list.len, sizeof(*expect));
	for (i = 0; i < list.len; i++)
		expect[i] = read_ok(src, list.items[i].path);
	for (t = 0; t < 2; t++) {
		jobs[t].files = &list;
		jobs[t].expect = expect;
		jobs[t].failures = 0;
		ck_assert_int_eq(ot_source_reader_new(&jobs[t].reader, src), 0);
	}
	for (t = 0; t < 2; t++)
		ck_assert_int_eq(pthread_create(&tid[t], NULL, read_all, &jobs[t]), 0);
	for (t = 0; t < 2; t++) {
		pthread_join(tid[t], NULL);
		ck_assert_int_eq(jobs[t].failures, 0);
		ot_source_reader_free(jobs[t].reader);
	}
	for (i = 0; i < list.len; i++)
		free(expect[i]);
	free(expect);
	ot_vec_free(&list);
	ot_arena_free(arena);
	ot_source_free(src);
}
END_TEST

START_TEST(library_version)
{
	const char *v = ot_source_library_version();
	ck_assert(ot_starts_with(v, "libgit2 1."));
	ck_assert_str_eq(v, ot_source_library_version());
}
END_TEST

/* ---- the real releases ------------------------------------------------------------------------- */

static size_t count_funcs(const char *text)
{
	size_t n = 0;
	const char *line = text;
	while (line && *line) {
		if (!strncmp(line, "- func:", 7))
			n++;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return n;
}

START_TEST(real_releases)
{
	const char *real = tu_real_source();
	static const struct {
		const char *version, *tag, *version_txt;
		size_t funcs;
	} releases[] = {
		{"1.13.1", "v1.13.1^{commit}", "1.13.0a0", 2493},
		{"2.6.0", "v2.6.0^{commit}", "2.6.0a0", 2633},
	};
	ot_source *src = open_ok(real);
	size_t i;

	for (i = 0; i < OT_ARRAY_LEN(releases); i++) {
		char *commit = git(real, "rev-parse", releases[i].tag, NULL), *text;
		select_ok(src, releases[i].version, NULL);
		ck_assert_str_eq(ot_source_commit(src), commit);
		text = read_ok(src, "aten/src/ATen/native/native_functions.yaml");
		ck_assert_uint_eq(count_funcs(text), releases[i].funcs);
		free(text);
		text = read_ok(src, "version.txt");
		text[strcspn(text, "\r\n")] = '\0';
		ck_assert_str_eq(text, releases[i].version_txt);
		free(text);
		free(commit);
	}
	ot_source_free(src);
}
END_TEST

START_TEST(real_listing_matches_git)
{
	const char *real = tu_real_source();
	const char *aten[] = {"aten/src/ATen/", NULL};
	char *tree = git(real, "ls-tree", "-r", "v2.6.0", "aten/src/ATen/", NULL);
	ot_source *src = open_ok(real);
	ot_source_files list = {0};
	ot_arena *arena = ot_arena_new();
	ot_buf expect = OT_BUF_INIT;
	char *line, *save = NULL, *got;
	size_t regular = 0;

	/* "<mode> <type> <oid>\t<path>": keep regular files only. */
	for (line = strtok_r(tree, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "100644 ", 7) && strncmp(line, "100755 ", 7))
			continue;
		ot_buf_printf(&expect, "%s%s", regular++ ? " " : "", strchr(line, '\t') + 1);
	}
	select_ok(src, "2.6.0", NULL);
	ck_assert_int_eq(ot_source_list(&list, arena, src, aten, NULL, NULL), 0);
	ck_assert_uint_gt(regular, 1000);
	ck_assert_uint_eq(list.len, regular);
	got = paths_of(&list, 0);
	ck_assert(strcmp(got, expect.ptr) == 0);
	free(got);
	ot_vec_free(&list);
	ot_arena_free(arena);
	ot_buf_free(&expect);
	ot_source_free(src);
	free(tree);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("core");
	TCase *real = tcase_create("real");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, select_lightweight_and_annotated_tags);
	tcase_add_test(tc, reads_come_from_the_tag_not_the_work_tree);
	tcase_add_test(tc, dirty_work_tree_does_not_leak);
	tcase_add_test(tc, read_refuses_what_is_not_a_file);
	tcase_add_test(tc, refuse_missing_file_empty_and_plain);
	tcase_add_test(tc, tag_missing);
	tcase_add_test(tc, tag_fetched_from_origin);
	tcase_add_test(tc, tag_to_a_non_commit);
	tcase_add_test(tc, nightly_commits);
	tcase_add_test(tc, corrupt_object_names_the_path);
	tcase_add_test(tc, list_under_prefixes);
	tcase_add_test(tc, list_skips_links_submodules_and_huge_files);
	tcase_add_test(tc, plain_folder_only_when_allowed);
	tcase_add_test(tc, clone_from_a_local_repository);
	tcase_add_test(tc, readers_on_two_threads);
	tcase_add_test(tc, library_version);
	suite_add_tcase(s, tc);
	/* Needs OPTRACE_SOURCE; select or skip it with CK_RUN_CASE=real / CK_EXCLUDE_TAGS=real. */
	tcase_set_tags(real, "real");
	tcase_set_timeout(real, 120);
	tcase_add_test(real, real_releases);
	tcase_add_test(real, real_listing_matches_git);
	suite_add_tcase(s, real);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
