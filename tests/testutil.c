#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "yamldoc.h"

#define FIXTURE_DIR "tests/fixture"
#define TMP_DIR "tests/tmp"

/* The scratch folder of this suite: tests/run-all.sh names one per suite
 * (OT_TEST_SCRATCH) and removes it when the suite passes. */
static const char *scratch_dir(void)
{
	const char *dir = getenv("OT_TEST_SCRATCH");
	return dir && *dir ? dir : TMP_DIR;
}

static void mkdirs(const char *path)
{
	char *p = ot_strdup(path), *s;
	for (s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
	free(p);
}

static void rmtree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	if (!d) {
		unlink(path);
		return;
	}
	while ((e = readdir(d))) {
		char *child;
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		child = ot_malloc(strlen(path) + strlen(e->d_name) + 2);
		sprintf(child, "%s/%s", path, e->d_name);
		if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
			rmtree(child);
		else
			unlink(child);
		free(child);
	}
	closedir(d);
	rmdir(path);
}

char *tu_tmpdir(const char *tag)
{
	ot_buf b = OT_BUF_INIT;
	static int counter;
	ot_buf_printf(&b, "%s/%s-%ld-%d", scratch_dir(), tag, (long)getpid(), counter++);
	rmtree(b.ptr);
	mkdirs(b.ptr);
	return ot_buf_detach(&b);
}

char *tu_path(const char *dir, const char *rel)
{
	ot_buf b = OT_BUF_INIT;
	ot_buf_printf(&b, "%s/%s", dir, rel);
	return ot_buf_detach(&b);
}

char *tu_absolute(const char *path)
{
	char *abs = realpath(path, NULL);
	ck_assert_msg(abs != NULL, "realpath %s: %s", path, strerror(errno));
	return abs;
}

ot_value *tu_run_trace(ot_arena *arena, const char *out_dir, const char *release,
		       const char *const *extra, double *seconds)
{
	const char *argv[32] = {tu_optrace(), "-q", "-s", tu_real_source(), "-t", release,
				"--format", "json", "-o", out_dir};
	ot_buf err = OT_BUF_INIT, json = OT_BUF_INIT;
	ot_value *root;
	size_t n = 10, len;
	double t0;
	char *text;
	int rc;

	for (; *extra; extra++) {
		ck_assert(n + 1 < sizeof(argv) / sizeof(argv[0]));
		argv[n++] = *extra;
	}
	argv[n] = NULL;
	t0 = ot_clock();
	rc = tu_run(argv, NULL, &err);
	if (seconds)
		*seconds = ot_clock() - t0;
	ck_assert_msg(rc == 0 || rc == 1, "optrace -t %s exited %d: %s", release, rc, err.ptr);
	ot_buf_printf(&json, "%s/trace.json", out_dir);
	text = tu_read_file(json.ptr, &len);
	ck_assert_msg(ot_yaml_load(&root, arena, text, len, json.ptr) == 0, "%s", ot_error_last());
	free(text);
	ot_buf_free(&json);
	ot_buf_free(&err);
	return root;
}

bool tu_git_show(ot_buf *out, const char *repo, const char *tag, const char *path)
{
	ot_buf spec = OT_BUF_INIT;
	bool ok;
	ot_buf_printf(&spec, "%s:%s", tag, path);
	ot_buf_clear(out);
	ok = tu_run((const char *[]){"git", "-C", repo, "show", spec.ptr, NULL}, out, NULL) == 0;
	ot_buf_free(&spec);
	return ok;
}

char *tu_text_lines(const char *text, int line, int count)
{
	/* memchr over the rest, not strchr: under ASan's strict_string_checks
	 * each strchr reads the whole rest of the text, and a line deep in
	 * native_functions.yaml cost seconds */
	const char *s = text, *e, *end = text + strlen(text);
	if (!*text || line < 1)
		return NULL;
	for (int n = 1; n < line; n++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl || nl + 1 == end)
			return NULL;
		s = nl + 1;
	}
	e = s;
	for (int n = 0; n < count && e < end; n++) {
		const char *nl = memchr(e, '\n', (size_t)(end - e));
		e = nl ? nl + 1 : end;
	}
	while (e > s && e[-1] == '\n')
		e--;
	return ot_strndup(s, (size_t)(e - s));
}

char *tu_git_lines(const char *repo, const char *tag, const char *path, int line, int count)
{
	static ot_map *files; /* "repo\ntag:path" -> text ("" when missing) */
	ot_buf key = OT_BUF_INIT, out = OT_BUF_INIT;
	const char *text;
	if (!files)
		files = ot_map_new();
	ot_buf_printf(&key, "%s\n%s:%s", repo, tag, path);
	if (!(text = ot_map_get(files, key.ptr))) {
		text = tu_git_show(&out, repo, tag, path) ? ot_buf_detach(&out) : "";
		ot_map_put(files, ot_buf_detach(&key), (void *)text);
	}
	ot_buf_free(&key);
	ot_buf_free(&out);
	return tu_text_lines(text, line, count);
}

char *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ot_buf b = OT_BUF_INIT;
	char chunk[65536];
	size_t n;
	ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ot_buf_put(&b, chunk, n);
	fclose(f);
	if (len)
		*len = b.size;
	return ot_buf_detach(&b);
}

void tu_write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "cannot create %s: %s", path, strerror(errno));
	ck_assert(fwrite(data, 1, len, f) == len);
	ck_assert(fclose(f) == 0);
}

char *tu_file_line(const char *path, int line)
{
	size_t len, i;
	char *data = tu_read_file(path, &len), *start = data, *res;
	int n = 1;
	for (i = 0; i < len && n < line; i++) {
		if (data[i] == '\n') {
			n++;
			start = data + i + 1;
		}
	}
	ck_assert_msg(n == line, "%s has no line %d", path, line);
	res = ot_strndup(start, strcspn(start, "\n"));
	free(data);
	return res;
}

const char *tu_real_source(void)
{
	const char *s = getenv("OPTRACE_SOURCE");
	ck_assert_msg(s && *s, "OPTRACE_SOURCE is not set: real-release tests need the "
			       "checkout made by ci/fetch-pytorch-source.sh (run them with "
			       "`make test`)");
	return s;
}

const char *tu_optrace(void)
{
	const char *s = getenv("OPTRACE");
	return s && *s ? s : "build/optrace";
}

static void drain(int fd, ot_buf *into)
{
	char chunk[65536];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (into)
			ot_buf_put(into, chunk, (size_t)n);
}

int tu_run(const char *const *argv, ot_buf *out, ot_buf *err)
{
	char outpath[] = "/tmp/optrace-test-out-XXXXXX";
	char errpath[] = "/tmp/optrace-test-err-XXXXXX";
	int outfd = mkstemp(outpath), errfd = mkstemp(errpath), status;
	pid_t pid;

	ck_assert(outfd >= 0 && errfd >= 0);
	unlink(outpath);
	unlink(errpath);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(outfd, 1);
		dup2(errfd, 2);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	ck_assert(waitpid(pid, &status, 0) == pid);
	lseek(outfd, 0, SEEK_SET);
	lseek(errfd, 0, SEEK_SET);
	drain(outfd, out);
	drain(errfd, err);
	close(outfd);
	close(errfd);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

bool tu_match(const char *pattern, const char *text)
{
	const char *any = strstr(pattern, TU_ANY);
	size_t lit = any ? (size_t)(any - pattern) : strlen(pattern);
	if (strncmp(pattern, text, lit))
		return false;
	if (!any)
		return !text[lit];
	pattern = any + strlen(TU_ANY);
	/* TU_ANY takes as little as it can, then one more character at a time */
	for (text += lit;; text++) {
		if (tu_match(pattern, text))
			return true;
		if (!*text || *text == '\n')
			return false;
	}
}

int tu_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

/* ---- the fixture repository ------------------------------------------------ */

#define GIT_OK(call) ck_assert_msg((call) == 0, "%s: %s", #call, git_error_last() ? git_error_last()->message : "?")

/* Hash every file under a folder (names and bytes), to name the build. */
static void hash_tree(uint64_t *h, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), i;
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		if (strcmp(name, ".") && strcmp(name, "..")) {
			ot_buf p = OT_BUF_INIT;
			struct stat st;
			ot_buf_printf(&p, "%s/%s", dir, name);
			*h = *h * 31 + ot_hash(p.ptr, p.size);
			if (lstat(p.ptr, &st) == 0 && S_ISDIR(st.st_mode)) {
				hash_tree(h, p.ptr);
			} else if (S_ISREG(st.st_mode)) {
				size_t len;
				char *data = tu_read_file(p.ptr, &len);
				*h = *h * 31 + ot_hash(data, len);
				free(data);
			}
			ot_buf_free(&p);
		}
		free(names[i]);
	}
	free(names);
}

/* Add every regular file under `dir` to `tb` (recursively, as subtrees). */
static void build_tree(git_oid *out, git_repository *repo, const char *dir)
{
	git_treebuilder *tb;
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), i;

	ck_assert_msg(n >= 0, "cannot list %s", dir);
	GIT_OK(git_treebuilder_new(&tb, repo, NULL));
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		ot_buf p = OT_BUF_INIT;
		struct stat st;
		git_oid oid;
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			free(names[i]);
			continue;
		}
		ot_buf_printf(&p, "%s/%s", dir, name);
		ck_assert(lstat(p.ptr, &st) == 0);
		if (S_ISDIR(st.st_mode)) {
			build_tree(&oid, repo, p.ptr);
			GIT_OK(git_treebuilder_insert(NULL, tb, name, &oid, GIT_FILEMODE_TREE));
		} else {
			size_t len;
			char *data = tu_read_file(p.ptr, &len);
			GIT_OK(git_blob_create_from_buffer(&oid, repo, data, len));
			GIT_OK(git_treebuilder_insert(NULL, tb, name, &oid, GIT_FILEMODE_BLOB));
			free(data);
		}
		ot_buf_free(&p);
		free(names[i]);
	}
	free(names);
	GIT_OK(git_treebuilder_write(out, tb));
	git_treebuilder_free(tb);
}

static void build_fixture_repo(const char *path)
{
	git_repository *repo;
	git_signature *sig;
	git_oid parent, commit, tree_oid;
	bool have_parent = false, first = true;
	char *releases = tu_read_file(FIXTURE_DIR "/releases", NULL), *line, *save = NULL;

	GIT_OK(git_repository_init(&repo, path, 0));
	GIT_OK(git_signature_new(&sig, "optrace fixture", "fixture@localhost", 946684800, 0));
	for (line = strtok_r(releases, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char tag[64], folder[256], kind[32] = "";
		git_tree *tree;
		git_object *target;
		ot_buf dir = OT_BUF_INIT, msg = OT_BUF_INIT;
		if (line[0] == '#' || !line[0])
			continue;
		ck_assert_msg(sscanf(line, "%63s %255s %31s", tag, folder, kind) >= 2,
			      "bad line in " FIXTURE_DIR "/releases: %s", line);
		ot_buf_printf(&dir, FIXTURE_DIR "/%s", folder);
		build_tree(&tree_oid, repo, dir.ptr);
		GIT_OK(git_tree_lookup(&tree, repo, &tree_oid));
		ot_buf_printf(&msg, "Fixture release %s\n", tag);
		{
			git_commit *pc = NULL;
			const git_commit *parents[1];
			if (have_parent)
				GIT_OK(git_commit_lookup(&pc, repo, &parent));
			parents[0] = pc;
			GIT_OK(git_commit_create(&commit, repo, "HEAD", sig, sig, NULL, msg.ptr,
						 tree, have_parent ? 1 : 0, parents));
			git_commit_free(pc);
		}
		GIT_OK(git_object_lookup(&target, repo, &commit, GIT_OBJECT_COMMIT));
		if (!strcmp(kind, "annotated")) {
			git_oid tag_oid;
			GIT_OK(git_tag_create(&tag_oid, repo, tag, target, sig, msg.ptr, 0));
		} else {
			git_oid tag_oid;
			GIT_OK(git_tag_create_lightweight(&tag_oid, repo, tag, target, 0));
		}
		git_object_free(target);
		git_tree_free(tree);
		parent = commit;
		have_parent = true;
		if (first) {
			/* Leave the work tree at the first release. */
			git_object *obj;
			git_checkout_options co;
			git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
			co.checkout_strategy = GIT_CHECKOUT_FORCE;
			GIT_OK(git_object_lookup(&obj, repo, &commit, GIT_OBJECT_COMMIT));
			GIT_OK(git_checkout_tree(repo, obj, &co));
			git_object_free(obj);
			first = false;
		}
		ot_buf_free(&dir);
		ot_buf_free(&msg);
	}
	/* HEAD detached at the first release, like ci/fetch-pytorch-source.sh. */
	{
		git_object *first_tag;
		char *rel = tu_read_file(FIXTURE_DIR "/releases", NULL), tag[64] = "";
		char *l = rel;
		while (*l == '#' || *l == '\n')
			l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l);
		sscanf(l, "%63s", tag);
		GIT_OK(git_revparse_single(&first_tag, repo, tag));
		{
			git_object *c;
			GIT_OK(git_object_peel(&c, first_tag, GIT_OBJECT_COMMIT));
			GIT_OK(git_repository_set_head_detached(repo, git_object_id(c)));
			git_object_free(c);
		}
		git_object_free(first_tag);
		free(rel);
	}
	git_signature_free(sig);
	git_repository_free(repo);
	free(releases);
}

const char *tu_fixture_repo(void)
{
	static char path[512];
	uint64_t h = 0;
	struct stat st;
	char tmp[600];

	if (path[0])
		return path;
	hash_tree(&h, FIXTURE_DIR);
	snprintf(path, sizeof(path), TMP_DIR "/fixture-repo-%016llx", (unsigned long long)h);
	if (stat(path, &st) == 0)
		return path;
	git_libgit2_init();
	mkdirs(TMP_DIR);
	snprintf(tmp, sizeof(tmp), "%s.building-%ld", path, (long)getpid());
	rmtree(tmp);
	build_fixture_repo(tmp);
	if (rename(tmp, path) != 0) {
		/* Another suite built it at the same moment: use theirs. */
		rmtree(tmp);
		ck_assert_msg(stat(path, &st) == 0, "cannot create %s", path);
	}
	git_libgit2_shutdown();
	return path;
}
