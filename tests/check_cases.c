/*
 * Golden tests of the optrace binary (STYLE §11): every folder under
 * tests/cases/ is one run of the real binary on the fixture repository.
 *
 * A case folder holds:
 *   args      the arguments, one per line (after the program name)
 *   env       optional KEY=VALUE lines added to a clean environment
 *   status    the expected exit status
 *   stdout    optional: the exact expected standard output
 *   stderr    optional: the exact expected standard error
 *   files     optional: the expected listing of the output folder ("./"
 *             first when it exists, folders end in '/', sorted)
 *   expect/   optional: files that must exist in the output folder with
 *             exactly these bytes (expect/trace.json, expect/ops/x.md, ...)
 *   In stdout, stderr and expect/ files, @ANY stands for any text within
 *   one line: the words of a library (libgit2's, libyaml's, strerror's),
 *   which change between its versions; optrace's own words around it are
 *   still compared (tu_match).
 *   anything else the case needs (ops.list, a fake site-packages, ...)
 *
 * Tokens in args and env: @FIXTURE (the fixture repository), @FIXTURE_DIR
 * (tests/fixture, whose v1/ and v2/ are plain directories), @OUT (a fresh
 * output folder, not yet created), @TMP (the run's scratch folder, also its
 * working directory), @CASE (the case folder), @V1_COMMIT, @V2_COMMIT (the
 * fixture's release commits) and @V1_SHORT, @V2_SHORT (their first 8
 * digits, as pages abbreviate them). Every path is absolute. Outputs are
 * compared after the values are turned back into their tokens, so
 * expectations hold no machine-specific path and survive a rebuilt fixture.
 *
 * The environment is the caller's minus what could change the result
 * (PYTHONPATH, locale, the checkout cache, NO_COLOR, OPTRACE_DPKG_ADMINDIR), plus LC_ALL=C,
 * PYTHONNOUSERSITE=1 and TILEGYM_SKILL_CACHE_DIR=@TMP/cache.
 *
 * CASES=a,b runs only those cases. UPDATE=1 rewrites, from what the binary
 * did, the expectation files that exist (create an empty expect/X to start
 * comparing X), and writes status, stdout, stderr and files for a new case
 * (one without a status file). It is for maintainers, whose diff must then
 * be reviewed against the fixture sources before committing: a case whose
 * expectation states the right behaviour that the tool does not have yet
 * must not be blessed this way.
 */
#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define CASES_DIR "tests/cases"

extern char **environ;

typedef OT_VEC(char *) strvec;

static strvec case_names;

/* ---- small helpers -------------------------------------------------------------- */

static void strvec_free(strvec *v)
{
	for (size_t i = 0; i < v->len; i++)
		free(v->items[i]);
	ot_vec_free(v);
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The lines of a file (without their newlines); a missing file has none. */
static void read_lines(strvec *out, const char *path)
{
	char *text, *line;
	if (!is_file(path))
		return;
	text = tu_read_file(path, NULL);
	for (line = text; *line;) {
		size_t n = strcspn(line, "\n");
		ot_vec_push(out, ot_strndup(line, n));
		line += n + (line[n] == '\n');
	}
	free(text);
}

static void mkdirs_for(const char *path)
{
	char *p = ot_strdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	free(p);
}

/* Regular files (and, with dirs, folders as "name/") under root, sorted. */
static void walk(strvec *out, const char *root, const char *rel, bool dirs)
{
	char *path = rel[0] ? tu_path(root, rel) : ot_strdup(root);
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		if (strcmp(name, ".") && strcmp(name, "..")) {
			char *child = rel[0] ? tu_path(rel, name) : ot_strdup(name);
			char *full = tu_path(root, child);
			struct stat st;
			if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
				if (dirs) {
					ot_buf d = OT_BUF_INIT;
					ot_buf_printf(&d, "%s/", child);
					ot_vec_push(out, ot_buf_detach(&d));
				}
				walk(out, root, child, dirs);
			} else {
				ot_vec_push(out, ot_strdup(child));
			}
			free(full);
			free(child);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	free(path);
}

/* ---- tokens ------------------------------------------------------------------------ */

struct token {
	const char *name;
	char *value;
};

struct run_ctx {
	const char *name;
	char *root;     /* the repository root (working directory of the suite) */
	char *case_dir; /* absolute */
	char *tmp, *out;
	struct token tokens[10];
	size_t ntokens;
	ot_buf report; /* what differed */
	bool update;
};

static char *commit_of(const char *repo_path, const char *tag)
{
	git_repository *repo;
	git_object *obj;
	char hex[GIT_OID_HEXSZ + 1];
	git_libgit2_init();
	ck_assert(git_repository_open(&repo, repo_path) == 0);
	ck_assert_msg(git_revparse_single(&obj, repo, tag) == 0, "no %s in %s", tag, repo_path);
	git_oid_tostr(hex, sizeof(hex), git_object_id(obj));
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ot_strdup(hex);
}

static void add_token(struct run_ctx *c, const char *name, char *value)
{
	ck_assert(c->ntokens < OT_ARRAY_LEN(c->tokens));
	c->tokens[c->ntokens].name = name;
	c->tokens[c->ntokens].value = value;
	c->ntokens++;
}

/* Replace @NAME by its value; the longest name wins (@FIXTURE_DIR, not @FIXTURE). */
static char *expand(const struct run_ctx *c, const char *s)
{
	ot_buf b = OT_BUF_INIT;
	while (*s) {
		const struct token *best = NULL;
		if (*s == '@')
			for (size_t i = 0; i < c->ntokens; i++)
				if (ot_starts_with(s, c->tokens[i].name) &&
				    (!best || strlen(c->tokens[i].name) > strlen(best->name)))
					best = &c->tokens[i];
		if (best) {
			ot_buf_puts(&b, best->value);
			s += strlen(best->name);
		} else {
			ot_buf_putc(&b, *s++);
		}
	}
	return ot_buf_detach(&b);
}

/* Turn the values back into tokens, the longest value first. */
static void unexpand(const struct run_ctx *c, ot_buf *text)
{
	const struct token *order[OT_ARRAY_LEN(c->tokens)];
	size_t n = c->ntokens;
	for (size_t i = 0; i < n; i++)
		order[i] = &c->tokens[i];
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strlen(order[j]->value) > strlen(order[j - 1]->value); j--) {
			const struct token *t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		const char *v = order[i]->value, *s = text->ptr, *hit;
		size_t vlen = strlen(v);
		ot_buf b = OT_BUF_INIT;
		if (!vlen)
			continue;
		while ((hit = memmem(s, text->size - (size_t)(s - text->ptr), v, vlen))) {
			ot_buf_put(&b, s, (size_t)(hit - s));
			ot_buf_puts(&b, order[i]->name);
			s = hit + vlen;
		}
		ot_buf_put(&b, s, text->size - (size_t)(s - text->ptr));
		ot_buf_free(text);
		*text = b;
	}
}

/* ---- comparing ---------------------------------------------------------------------- */

static void split_lines(strvec *out, const ot_buf *b)
{
	const char *s = b->ptr, *end = b->ptr + b->size;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		ot_vec_push(out, ot_strndup(s, n));
		s += n + (nl != NULL);
	}
}

/* One line of an edit script: ' ' kept, '-' only expected, '+' only actual. */
struct edit {
	char kind;
	const char *text;
	size_t a, b; /* 0-based line numbers in expected and actual */
};

typedef OT_VEC(struct edit) editvec;

/*
 * The edit script from a to b: common prefix and suffix, and a longest
 * common subsequence of the middle (quadratic, so a huge middle is shown
 * as all removed, then all added).
 */
static void edit_script(editvec *out, const strvec *a, const strvec *b)
{
	size_t pre = 0, suf = 0, n, m;
	while (pre < a->len && pre < b->len && !strcmp(a->items[pre], b->items[pre]))
		pre++;
	while (suf < a->len - pre && suf < b->len - pre &&
	       !strcmp(a->items[a->len - 1 - suf], b->items[b->len - 1 - suf]))
		suf++;
	for (size_t i = 0; i < pre; i++)
		ot_vec_push(out, ((struct edit){' ', a->items[i], i, i}));
	n = a->len - pre - suf;
	m = b->len - pre - suf;
	if ((n + 1) * (m + 1) <= 4000000) {
		/* lcs[i][j]: LCS length of a[pre+i..] and b[pre+j..] */
		unsigned *lcs = ot_calloc((n + 1) * (m + 1), sizeof(*lcs));
		size_t i = 0, j = 0;
#define LCS(i, j) lcs[(i) * (m + 1) + (j)]
		for (size_t x = n; x-- > 0;)
			for (size_t y = m; y-- > 0;)
				LCS(x, y) = !strcmp(a->items[pre + x], b->items[pre + y])
						    ? LCS(x + 1, y + 1) + 1
						    : (LCS(x + 1, y) > LCS(x, y + 1) ? LCS(x + 1, y) : LCS(x, y + 1));
		while (i < n || j < m) {
			if (i < n && j < m && !strcmp(a->items[pre + i], b->items[pre + j])) {
				ot_vec_push(out, ((struct edit){' ', a->items[pre + i], pre + i, pre + j}));
				i++, j++;
			} else if (i < n && (j == m || LCS(i + 1, j) >= LCS(i, j + 1))) {
				ot_vec_push(out, ((struct edit){'-', a->items[pre + i], pre + i, pre + j}));
				i++;
			} else {
				ot_vec_push(out, ((struct edit){'+', b->items[pre + j], pre + i, pre + j}));
				j++;
			}
		}
#undef LCS
		free(lcs);
	} else {
		for (size_t i = 0; i < n; i++)
			ot_vec_push(out, ((struct edit){'-', a->items[pre + i], pre + i, pre}));
		for (size_t j = 0; j < m; j++)
			ot_vec_push(out, ((struct edit){'+', b->items[pre + j], pre + n, pre + j}));
	}
	for (size_t i = 0; i < suf; i++)
		ot_vec_push(out, ((struct edit){' ', a->items[a->len - suf + i], a->len - suf + i,
						b->len - suf + i}));
}

/* A unified diff of expected and actual: hunks with 3 lines of context, at most 80 lines. */
static void diff_excerpt(ot_buf *rep, const char *label, const ot_buf *want, const ot_buf *got)
{
	strvec a = {0}, b = {0};
	editvec ed = {0};
	size_t shown = 0, i = 0;
	split_lines(&a, want);
	split_lines(&b, got);
	edit_script(&ed, &a, &b);
	ot_buf_printf(rep, "--- expected %s\n+++ actual\n", label);
	while (i < ed.len && shown < 80) {
		size_t first, last, na = 0, nb = 0;
		while (i < ed.len && ed.items[i].kind == ' ')
			i++;
		if (i == ed.len)
			break;
		/* a hunk: from 3 lines before this change to 3 after the last change
		 * that is at most 6 kept lines away */
		first = i > 3 ? i - 3 : 0;
		last = i;
		for (size_t k = i, kept = 0; k < ed.len && kept <= 6; k++) {
			if (ed.items[k].kind == ' ') {
				kept++;
			} else {
				kept = 0;
				last = k;
			}
		}
		last = last + 3 < ed.len ? last + 3 : ed.len - 1;
		for (size_t k = first; k <= last; k++) {
			na += ed.items[k].kind != '+';
			nb += ed.items[k].kind != '-';
		}
		ot_buf_printf(rep, "@@ -%zu,%zu +%zu,%zu @@\n", ed.items[first].a + 1, na,
			      ed.items[first].b + 1, nb);
		for (size_t k = first; k <= last && shown < 80; k++, shown++)
			ot_buf_printf(rep, "%c%s\n", ed.items[k].kind, ed.items[k].text);
		i = last + 1;
	}
	if (shown >= 80)
		ot_buf_puts(rep, "... (more differences)\n");
	if (want->size && got->size &&
	    (want->ptr[want->size - 1] == '\n') != (got->ptr[got->size - 1] == '\n'))
		ot_buf_puts(rep, "(they differ in the newline at the end)\n");
	if (!want->size != !got->size)
		ot_buf_printf(rep, "(%s is empty)\n", want->size ? "the actual output" : "the expectation");
	ot_vec_free(&ed);
	strvec_free(&a);
	strvec_free(&b);
}

/* The expectation holds: equal bytes, or a match where it says @ANY. */
static bool expect_equal(const ot_buf *want, const ot_buf *got)
{
	if (!memmem(want->ptr, want->size, TU_ANY, strlen(TU_ANY)))
		return ot_buf_equal(want, got);
	return strlen(want->ptr) == want->size && strlen(got->ptr) == got->size &&
	       tu_match(want->ptr, got->ptr);
}

/*
 * Compare `got` with the expectation file case/rel (when it exists, or
 * always in UPDATE mode, which rewrites it instead).
 */
static void expect_text(struct run_ctx *c, const char *rel, const ot_buf *got, bool always)
{
	char *path = tu_path(c->case_dir, rel);
	ot_buf want = OT_BUF_INIT;
	bool exists = is_file(path);
	if (exists) {
		size_t len;
		char *text = tu_read_file(path, &len);
		ot_buf_put(&want, text, len);
		free(text);
	}
	if (c->update && (exists || always)) {
		if (!exists || !expect_equal(&want, got)) {
			mkdirs_for(path);
			tu_write_file(path, got->ptr, got->size);
			fprintf(stderr, "updated %s/%s\n", c->name, rel);
		}
	} else if (exists && !expect_equal(&want, got)) {
		ot_buf_printf(&c->report, "%s/%s differs:\n", c->name, rel);
		diff_excerpt(&c->report, rel, &want, got);
	}
	ot_buf_free(&want);
	free(path);
}

/* The output file out/rel, tokens restored; a missing file is reported. */
static void expect_output_file(struct run_ctx *c, const char *rel)
{
	char *path = tu_path(c->out, rel + strlen("expect/"));
	ot_buf got = OT_BUF_INIT;
	if (!is_file(path)) {
		if (!c->update)
			ot_buf_printf(&c->report, "%s/%s: the run wrote no %s\n", c->name, rel,
				      rel + strlen("expect/"));
	} else {
		size_t len;
		char *text = tu_read_file(path, &len);
		ot_buf_put(&got, text, len);
		free(text);
		unexpand(c, &got);
		expect_text(c, rel, &got, false);
	}
	ot_buf_free(&got);
	free(path);
}

/* ---- running ----------------------------------------------------------------------- */

static bool dropped_variable(const char *entry)
{
	static const char *const drop[] = {"PYTHONPATH=", "PYTHONHOME=", "PYTHONSTARTUP=",
					   "PYTHONNOUSERSITE=", "PYTHONSAFEPATH=", "LC_",
					   "LANG=", "LANGUAGE=", "TILEGYM_SKILL_CACHE_DIR=",
					   "NO_COLOR=", "OPTRACE_DPKG_ADMINDIR="};
	for (size_t i = 0; i < OT_ARRAY_LEN(drop); i++)
		if (ot_starts_with(entry, drop[i]))
			return true;
	return false;
}

/*
 * Run the binary in @TMP with the case's environment. The process is the
 * forked test, but the environment and directory are restored anyway so
 * the suite also works with CK_FORK=no.
 */
static int run_binary(struct run_ctx *c, const strvec *args, const strvec *env, ot_buf *out,
		      ot_buf *err)
{
	strvec saved = {0}, argv = {0};
	ot_buf var = OT_BUF_INIT;
	int status;

	/* the binary first: OPTRACE may name it */
	ot_vec_push(&argv, tu_absolute(tu_optrace()));
	for (char **e = environ; *e; e++)
		ot_vec_push(&saved, ot_strdup(*e));
	clearenv();
	for (size_t i = 0; i < saved.len; i++)
		if (!dropped_variable(saved.items[i]))
			putenv(saved.items[i]);
	setenv("LC_ALL", "C", 1);
	setenv("PYTHONNOUSERSITE", "1", 1);
	ot_buf_printf(&var, "%s/cache", c->tmp);
	setenv("TILEGYM_SKILL_CACHE_DIR", var.ptr, 1);
	for (size_t i = 0; i < env->len; i++) {
		char *line = env->items[i], *eq = strchr(line, '=');
		if (!line[0] || line[0] == '#')
			continue;
		ck_assert_msg(eq && eq != line, "%s/env: not KEY=VALUE: %s", c->name, line);
		*eq = '\0';
		{
			char *value = expand(c, eq + 1);
			setenv(line, value, 1);
			free(value);
		}
		*eq = '=';
	}

	for (size_t i = 0; i < args->len; i++)
		ot_vec_push(&argv, expand(c, args->items[i]));
	ot_vec_push(&argv, NULL);
	ck_assert(chdir(c->tmp) == 0);
	status = tu_run((const char *const *)argv.items, out, err);
	ck_assert(chdir(c->root) == 0);

	clearenv();
	for (size_t i = 0; i < saved.len; i++)
		putenv(saved.items[i]);
	argv.len--; /* the NULL */
	strvec_free(&argv);
	ot_buf_free(&var);
	/* `saved` stays allocated: environ points into it now. */
	ot_vec_free(&saved);
	return status;
}

static void listing(ot_buf *out, const char *dir)
{
	struct stat st;
	strvec names = {0};
	if (stat(dir, &st) != 0)
		return;
	ot_buf_puts(out, "./\n");
	walk(&names, dir, "", true);
	for (size_t i = 0; i < names.len; i++)
		ot_buf_printf(out, "%s\n", names.items[i]);
	strvec_free(&names);
}

static void run_case(const char *name)
{
	struct run_ctx c = {0};
	strvec args = {0}, env = {0}, expects = {0};
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT, text = OT_BUF_INIT;
	const char *fixture = tu_fixture_repo();
	char *p, *tmp, *v1, *v2;
	int status;
	bool fresh;

	c.name = name;
	c.update = getenv("UPDATE") && !strcmp(getenv("UPDATE"), "1");
	c.root = tu_absolute(".");
	p = tu_path(CASES_DIR, name);
	c.case_dir = tu_absolute(p);
	free(p);
	tmp = tu_tmpdir(name);
	c.tmp = tu_absolute(tmp);
	free(tmp);
	c.out = tu_path(c.tmp, "out");

	add_token(&c, "@FIXTURE_DIR", tu_absolute("tests/fixture"));
	add_token(&c, "@FIXTURE", tu_absolute(fixture));
	add_token(&c, "@OUT", ot_strdup(c.out));
	add_token(&c, "@TMP", ot_strdup(c.tmp));
	add_token(&c, "@CASE", ot_strdup(c.case_dir));
	v1 = commit_of(fixture, "v1.0.0^{commit}");
	v2 = commit_of(fixture, "v2.0.0^{commit}");
	add_token(&c, "@V1_SHORT", ot_strndup(v1, 8));
	add_token(&c, "@V2_SHORT", ot_strndup(v2, 8));
	add_token(&c, "@V1_COMMIT", v1);
	add_token(&c, "@V2_COMMIT", v2);

	p = tu_path(c.case_dir, "args");
	ck_assert_msg(is_file(p), "case %s has no args file", name);
	read_lines(&args, p);
	free(p);
	p = tu_path(c.case_dir, "env");
	read_lines(&env, p);
	free(p);

	status = run_binary(&c, &args, &env, &out, &err);
	unexpand(&c, &out);
	unexpand(&c, &err);

	/* A new case (no status yet) gets every expectation in UPDATE mode;
	 * an existing one keeps leaving out what it left out. */
	p = tu_path(c.case_dir, "status");
	fresh = !is_file(p);
	ck_assert_msg(c.update || !fresh, "case %s has no status file", name);
	free(p);
	ot_buf_printf(&text, "%d\n", status);
	expect_text(&c, "status", &text, true);
	expect_text(&c, "stdout", &out, fresh);
	expect_text(&c, "stderr", &err, fresh);
	ot_buf_clear(&text);
	listing(&text, c.out);
	unexpand(&c, &text);
	expect_text(&c, "files", &text, false);
	walk(&expects, c.case_dir, "expect", false);
	for (size_t i = 0; i < expects.len; i++)
		expect_output_file(&c, expects.items[i]);

	if (c.report.size) {
		fprintf(stderr, "\n---- case %s (exit status %d), run in %s\n%s", name, status, c.tmp,
			c.report.ptr);
		if (err.size && !strstr(c.report.ptr, "/stderr differs"))
			fprintf(stderr, "-- its stderr:\n%s", err.ptr);
	}
	ck_assert_msg(c.report.size == 0, "case %s differs from its expectations (diff on stderr)",
		      name);

	for (size_t i = 0; i < c.ntokens; i++)
		free(c.tokens[i].value);
	strvec_free(&args);
	strvec_free(&env);
	strvec_free(&expects);
	ot_buf_free(&out);
	ot_buf_free(&err);
	ot_buf_free(&text);
	ot_buf_free(&c.report);
	free(c.root);
	free(c.case_dir);
	free(c.tmp);
	free(c.out);
}

START_TEST(golden_case)
{
	run_case(case_names.items[_i]);
}
END_TEST

/* Every case folder, or those CASES=a,b names (an unknown name is an error). */
static void collect_cases(void)
{
	const char *only = getenv("CASES");
	struct dirent **names;
	int n = scandir(CASES_DIR, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "check_cases: cannot list %s: %s\n", CASES_DIR, strerror(errno));
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *dir = tu_path(CASES_DIR, name);
		struct stat st;
		if (name[0] != '.' && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
			bool wanted = !only || !*only;
			if (!wanted) {
				size_t len = strlen(name);
				for (const char *s = only; *s;) {
					size_t n2 = strcspn(s, ",");
					if (n2 == len && !strncmp(s, name, len))
						wanted = true;
					s += n2 + (s[n2] == ',');
				}
			}
			if (wanted)
				ot_vec_push(&case_names, ot_strdup(name));
		}
		free(dir);
		free(names[i]);
	}
	free(names);
	if (!case_names.len) {
		fprintf(stderr, "check_cases: no case to run%s%s\n", only ? " matches CASES=" : "",
			only ? only : "");
		exit(1);
	}
}

/* Every case folder says what it runs and expects: an args and a status file. */
START_TEST(cases_are_complete)
{
	for (size_t i = 0; i < case_names.len; i++) {
		char *dir = tu_path(CASES_DIR, case_names.items[i]);
		char *a = tu_path(dir, "args"), *s = tu_path(dir, "status");
		ck_assert_msg(is_file(a), "%s has no args", dir);
		ck_assert_msg(is_file(s) || getenv("UPDATE"), "%s has no status", dir);
		free(a);
		free(s);
		free(dir);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cases");
	TCase *tc = tcase_create("golden");
	int failed;

	collect_cases();
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, cases_are_complete);
	tcase_add_loop_test(tc, golden_case, 0, (int)case_names.len);
	suite_add_tcase(s, tc);
	failed = tu_run_suite(s);
	strvec_free(&case_names);
	return failed ? 1 : 0;
}
