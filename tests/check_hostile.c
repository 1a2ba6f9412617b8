/*
 * Check suite: hostile input, end to end through the real binary.
 *
 * Bad ops.lists, broken checkouts, malformed YAML, unusable output folders
 * and interrupted runs. Every case checks the message and the exit status,
 * that nothing outside the output folder changed (the run's working folder,
 * the checkout), and, when the run fails, that the out/ of an earlier run
 * is exactly as it was. The module-level cases are in check_opslist,
 * check_source, check_registry and check_output; this suite checks what the
 * user sees.
 *
 * Runs happen in a sandbox folder (the working directory of the run) that
 * holds ops.list and out/ from an earlier good run at the fixture's v1.0.0.
 * Broken checkouts are tags of one clone of the fixture (built once, see
 * hostile_setup); the interruption cases run --all on the real releases.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "output.h"
#include "testutil.h"

static char *bin;     /* the optrace binary, absolute */
static char *fixture; /* the fixture repository, absolute */
static char *hostile; /* folder of the hostile clone: repo/, outside/, plain/ */

/* ---- running things ------------------------------------------------------------ */

struct result {
	int status;
	char *out, *err;
};

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

/* `sh -c SCRIPT` with $1.. = the NULL-terminated arguments; must succeed. */
static char *shell(const char *script, ...)
{
	const char *argv[16] = {"sh", "-c", script, "sh"};
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
	va_list ap;
	int n = 4, status;
	va_start(ap, script);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	status = tu_run(argv, &out, &err);
	ck_assert_msg(status == 0, "sh -c '%s' failed (%d): %s", script, status,
		      err.ptr ? err.ptr : "");
	ot_buf_free(&err);
	return ot_buf_detach(&out);
}

/*
 * What a tree holds, not following links: every entry's path, type, mode,
 * size, inode and link target, then a hash of every regular file. Equal
 * digests mean nothing was created, removed, replaced or rewritten.
 * `skip` (relative, may be "") is left out.
 */
static char *digest(const char *root, const char *skip)
{
	return shell("cd \"$1\" && { find . -path \"./$2\" -prune -o -printf '%p %y %m %s %i %l\\n' "
		     "| LC_ALL=C sort; find . -path \"./$2\" -prune -o -type f -print0 "
		     "| LC_ALL=C sort -z | xargs -0r sha1sum; }",
		     root, skip, NULL);
}

/* Run optrace with `cwd` as its working folder: `env -C cwd optrace ARGS`. */
static struct result run_in(const char *cwd, const char *const *args)
{
	const char *argv[40] = {"env", "-C", cwd, bin};
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
	struct result r;
	int n = 4;
	for (; *args && n < 39; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	r.status = tu_run(argv, &out, &err);
	r.out = ot_buf_detach(&out);
	r.err = ot_buf_detach(&err);
	return r;
}

/*
 * Run optrace in sandbox `box` (NULL-terminated arguments) and check that
 * it changed nothing in the sandbox outside out/, nor in `checkout` (may be
 * NULL).
 */
static struct result run_box(const char *box, const char *checkout, ...)
{
	const char *args[32];
	char *before = digest(box, "out"), *after, *co_before = NULL, *co_after;
	struct result r;
	va_list ap;
	int n = 0;
	va_start(ap, checkout);
	while (n < 31 && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;
	if (checkout)
		co_before = digest(checkout, "");
	r = run_in(box, args);
	after = digest(box, "out");
	ck_assert_msg(!strcmp(before, after), "optrace changed the sandbox outside out/:\n%s\n---\n%s",
		      before, after);
	if (checkout) {
		co_after = digest(checkout, "");
		ck_assert_msg(!strcmp(co_before, co_after), "optrace changed the checkout %s",
			      checkout);
		free(co_before);
		free(co_after);
	}
	free(before);
	free(after);
	return r;
}

#define ck_assert_has(haystack, needle)                                                     \
	ck_assert_msg(strstr((haystack), (needle)) != NULL, "'%.3000s' lacks '%s'", (haystack), \
		      (needle))

/* A fatal run: status 2, nothing on stdout, `message` on stderr. */
static void expect_fatal(const struct result *r, const char *message)
{
	ck_assert_msg(r->status == 2, "status %d, stderr: %s", r->status, r->err);
	ck_assert_str_eq(r->out, "");
	ck_assert_has(r->err, message);
	ck_assert_msg(!strstr(r->err, "Sanitizer") && !strstr(r->err, "runtime error"), "%s",
		      r->err);
}

/* ---- sandboxes ------------------------------------------------------------------ */

#define TWO_OPS "nn.LSTM\ntorch.add\n"

/*
 * A sandbox: ops.list (`ops`) and out/ from a good run at the fixture's
 * v1.0.0. Caller frees the absolute path.
 */
static char *sandbox(const char *tag, const char *ops, size_t ops_len)
{
	char *rel = tu_tmpdir(tag), *box = tu_absolute(rel), *list = tu_path(box, "ops.list");
	struct result r;
	tu_write_file(list, TWO_OPS, strlen(TWO_OPS));
	r = run_in(box, (const char *[]){"-s", fixture, "-t", "1.0.0", "-q", NULL});
	ck_assert_msg(r.status == 0, "earlier run failed: %s", r.err);
	result_free(&r);
	tu_write_file(list, ops, ops_len);
	free(list);
	free(rel);
	return box;
}

static char *out_digest(const char *box)
{
	char *out = tu_path(box, "out"), *d = digest(out, "");
	free(out);
	return d;
}

/* A fatal run in `box` must leave its out/ exactly as it was. */
#define expect_fatal_keeps_out(box, checkout, message, ...)                                  \
	do {                                                                                 \
		char *before_ = out_digest(box), *after_;                                    \
		struct result r_ = run_box((box), (checkout), __VA_ARGS__, NULL);            \
		expect_fatal(&r_, (message));                                                \
		after_ = out_digest(box);                                                    \
		ck_assert_msg(!strcmp(before_, after_), "out/ changed:\n%s\n---\n%s",        \
			      before_, after_);                                              \
		result_free(&r_);                                                            \
		free(before_);                                                               \
		free(after_);                                                                \
	} while (0)

/* ---- ops.list ---------------------------------------------------------------------- */

/* Run the sandbox's ops.list at the fixture's v2.0.0. */
static struct result run_list(const char *box)
{
	return run_box(box, fixture, "-s", fixture, "-t", "2.0.0", NULL);
}

START_TEST(opslist_empty_and_comments_only)
{
	static const char *const lists[] = {"", "# nothing\n\n   # still nothing\n",
					    "# torch-version: 2.0.0\n"};
	for (size_t i = 0; i < OT_ARRAY_LEN(lists); i++) {
		char *box = sandbox("list-empty", lists[i], strlen(lists[i]));
		expect_fatal_keeps_out(box, fixture, "ops.list lists no ops (add one per line, or use --all)",
				       "-s", fixture, "-t", "2.0.0");
		free(box);
	}
}
END_TEST

/* Every op of `ops` but the bad ones is written; status 1 for the bad lines. */
static void expect_partial(const struct result *r)
{
	ck_assert_msg(r->status == 1, "status %d: %s", r->status, r->err);
	ck_assert_msg(!strstr(r->err, "Sanitizer") && !strstr(r->err, "runtime error"), "%s",
		      r->err);
}

static bool exists_in(const char *dir, const char *rel)
{
	struct stat st;
	char *p = tu_path(dir, rel);
	bool ok = lstat(p, &st) == 0;
	free(p);
	return ok;
}

START_TEST(opslist_megabyte_line)
{
	size_t n = 1024 * 1024;
	ot_buf list = OT_BUF_INIT;
	char *box;
	struct result r;
	struct timespec t0, t1;
	ot_buf_puts(&list, "torch.add\n");
	for (size_t i = 0; i < n; i++)
		ot_buf_putc(&list, "abcdefgh"[i % 8]);
	ot_buf_puts(&list, "\nnn.LSTM\n");
	box = sandbox("list-long", list.ptr, list.size);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = run_list(box);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	expect_partial(&r);
	ck_assert_has(r.err, "ops.list:2:1: op name is 1048576 bytes long; the limit is 200\n");
	/* the message quotes a bounded part of the line, not a megabyte */
	ck_assert_uint_lt(strlen(r.err), 2000);
	ck_assert_msg(t1.tv_sec - t0.tv_sec < 10, "a 1 MB line took %lld s",
		      (long long)(t1.tv_sec - t0.tv_sec));
	ck_assert(exists_in(box, "out/ops/nn-lstm.md"));
	result_free(&r);
	ot_buf_free(&list);
	free(box);
}
END_TEST

START_TEST(opslist_nul_bytes_and_invalid_utf8)
{
	static const char list[] = "torch.add\nnn.\0LSTM\nF.relu\xff\xfe\n# caf\xc3\n\xc3\xa9t\xc3\xa9\nnn.LSTM\n";
	char *box = sandbox("list-bytes", list, sizeof(list) - 1);
	struct result r = run_list(box);
	expect_partial(&r);
	ck_assert_has(r.err, "ops.list:2:4: NUL byte");
	ck_assert_has(r.err, "ops.list:3:7: invalid UTF-8 (the file must be UTF-8 text)");
	ck_assert_has(r.err, "ops.list:4:6: invalid UTF-8 in a comment");
	ck_assert_has(r.err, "ops.list:5:1: an op name starts with a letter or '_', not 'é' (U+00E9)");
	/* the good lines around them still count */
	ck_assert(exists_in(box, "out/ops/nn-lstm.md"));
	ck_assert(exists_in(box, "out/ops/torch-add.md"));
	result_free(&r);
	free(box);
}
END_TEST

START_TEST(opslist_crlf_is_the_same_list)
{
	static const char lf[] = "# torch-version: 2.0.0\nnn.LSTM\ntorch.add !full # c\n";
	static const char crlf[] = "# torch-version: 2.0.0\r\nnn.LSTM\r\ntorch.add !full # c\r\n";
	char *a = sandbox("list-lf", lf, sizeof(lf) - 1), *b = sandbox("list-crlf", crlf, sizeof(crlf) - 1);
	/* the pin names the release: no torch of the machine's python may */
	struct result ra = run_box(a, NULL, "-s", fixture, "--python", "/bin/false", NULL);
	struct result rb = run_box(b, NULL, "-s", fixture, "--python", "/bin/false", NULL);
	char *da, *db;
	ck_assert_msg(ra.status == rb.status && ra.status <= 1, "%d %s / %d %s", ra.status,
		      ra.err, rb.status, rb.err);
	ck_assert_str_eq(ra.err, rb.err);
	/* the same files, byte for byte (inodes differ: compare names and hashes) */
	da = shell("cd \"$1\"/out && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha1sum", a, NULL);
	db = shell("cd \"$1\"/out && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha1sum", b, NULL);
	ck_assert_str_eq(da, db);
	result_free(&ra);
	result_free(&rb);
	free(da);
	free(db);
	free(a);
	free(b);
}
END_TEST

START_TEST(opslist_duplicates_are_one_page)
{
	static const char list[] = "nn.LSTM\ntorch.add\nnn.LSTM\ntorch.nn.LSTM\n";
	char *box = sandbox("list-dup", list, sizeof(list) - 1);
	struct result r = run_list(box);
	char *pages;
	/* a warning, not an error; a second spelling of the same op is refused */
	ck_assert_has(r.err, "ops.list:3:1: warning: duplicate op 'nn.LSTM' (first on line 1), skipped");
	ck_assert_has(r.err, "'torch.nn.LSTM' names the same page (ops/nn-lstm.md) as 'nn.LSTM'");
	pages = shell("ls \"$1\"/out/ops", box, NULL);
	ck_assert_str_eq(pages, "nn-lstm.dot\nnn-lstm.md\nnn-lstm.svg\ntorch-add.md\n");
	result_free(&r);
	free(pages);
	free(box);
}
END_TEST

static void expect_only_slugs(const char *out);

/* Every file (and link) in out/ after a run, and what a run of torch.add alone leaves. */
static const char list_out[] = "cd \"$1\"/out && find . ! -type d | LC_ALL=C sort";
#define ONE_PAGE "./.optrace-lock\n./.optrace-manifest\n./index.md\n./kernels.md\n./ops/torch-add.md\n./trace.json\n"

/*
 * Names that are paths, options or shell code: each line is refused with
 * its own message, nothing is written but the good op's pages, and no
 * command runs (the canary file is never created).
 */
START_TEST(opslist_names_that_are_paths_or_code)
{
	static const struct {
		const char *line, *message;
	} bad[] = {
	    {"torch/add", ":2:6: invalid character '/' in op name"},
	    {"../../etc/passwd", ":3:1: an op name starts with a letter or '_', not '.'"},
	    {"nn..LSTM/../../x", ":4:9: invalid character '/' in op name"},
	    {"nn\\LSTM", ":5:3: invalid character '\\' in op name"},
	    {"aten:add", ":6:5: a single ':' in an op name (namespaces use '::')"},
	    {"C:\\x", ":7:2: a single ':' in an op name"},
	    {"nn.LSTM extra", ":8:9: unexpected 'extra' after the op name"},
	    {"$(touch CANARY)", ":9:1: an op name starts with a letter or '_', not '$'"},
	    {"`touch CANARY`", ":10:1: an op name starts with a letter or '_', not '`'"},
	    {"x;touch CANARY", ":11:2: invalid character ';' in op name"},
	    {"x|touch CANARY", ":12:2: invalid character '|' in op name"},
	    {"x&&touch CANARY", ":13:2: invalid character '&' in op name"},
	    {"-o", ":14:1: an op name cannot start with '-'"},
	    {"--all", ":15:1: an op name cannot start with '-'"},
	    {"x>CANARY", ":16:2: invalid character '>' in op name"},
	    {"nn.\x1b[2JLSTM", ":17:4: invalid character '\\x1b' in op name"},
	    {"nn.LSTM \x1b]0;title\x07", ":18:9: unexpected '\\x1b]0;title\\x07' after the op name"},
	};
	ot_buf list = OT_BUF_INIT;
	char *box, *files;
	struct result r;
	ot_buf_puts(&list, "torch.add\n");
	for (size_t i = 0; i < OT_ARRAY_LEN(bad); i++)
		ot_buf_printf(&list, "%s\n", bad[i].line);
	box = sandbox("list-names", list.ptr, list.size);
	r = run_list(box);
	expect_partial(&r);
	for (size_t i = 0; i < OT_ARRAY_LEN(bad); i++) {
		ot_buf m = OT_BUF_INIT;
		ot_buf_printf(&m, "ops.list%s", bad[i].message);
		ck_assert_has(r.err, m.ptr);
		ot_buf_free(&m);
	}
	ck_assert_msg(!strchr(r.err, '\x1b'), "an escape sequence reached the terminal");
	ck_assert(!exists_in(box, "CANARY") && !exists_in(box, "out/CANARY"));
	files = shell(list_out, box, NULL);
	ck_assert_str_eq(files, ONE_PAGE);
	result_free(&r);
	ot_buf_free(&list);
	free(files);
	free(box);
}
END_TEST

/* The longest name is accepted (and not found), one byte more is refused. */
START_TEST(opslist_very_long_names)
{
	ot_buf list = OT_BUF_INIT;
	char *box, *files, *out;
	struct result r;
	ot_buf_puts(&list, "torch.");
	for (int i = 0; i < 194; i++)
		ot_buf_putc(&list, 'a');
	ot_buf_puts(&list, "\naten::");
	for (int i = 0; i < 195; i++)
		ot_buf_putc(&list, 'b');
	ot_buf_puts(&list, "\ntorch.add\n");
	box = sandbox("list-longname", list.ptr, list.size);
	out = tu_path(box, "out");
	r = run_list(box);
	expect_partial(&r);
	ck_assert_has(r.err, "ops.list:2:1: op name is 201 bytes long; the limit is 200\n");
	ck_assert_has(r.err, "ops.list:1: torch.aaaa");
	ck_assert_has(r.err, ": not found");
	/* its "not found" page has a short name: 60 bytes of the slug and a hash */
	files = shell(list_out, box, NULL);
	{
		const char *p = strstr(files, "./ops/torch-aaa"), *e = p ? strchr(p, '\n') : NULL;
		ck_assert_msg(p && e, "no page for the long name: %s", files);
		ck_assert_int_eq(e - p, (int)strlen("./ops/") + 60 + 1 + 16 + 3);
		ck_assert_msg(strspn(p + 12, "a") == 54 && p[12 + 54] == '-' &&
				      strspn(p + 12 + 55, "0123456789abcdef") == 16,
			      "%.*s", (int)(e - p), p);
	}
	expect_only_slugs(out);
	result_free(&r);
	ot_buf_free(&list);
	free(files);
	free(out);
	free(box);
}
END_TEST

/*
 * Every file a run writes is out/index.md, out/kernels.md, out/trace.json or
 * out/ops/<slug>.{md,svg,dot} with a short slug of [a-z0-9_-]: checked on
 * --all, where names come from the registry, not from the user.
 */
static void expect_only_slugs(const char *out)
{
	char *bad = shell("cd \"$1\" && find . -type f ! -name .optrace-manifest ! -name .optrace-lock ! -path ./index.md "
			  "! -path ./kernels.md "
			  "! -path ./trace.json ! -regex '\\./ops/[a-z][a-z0-9_-]*\\.\\(md\\|svg\\|dot\\)' "
			  "-print; find ./ops -type f | awk -F/ 'length($3) > 99'",
			  out, NULL);
	ck_assert_msg(!*bad, "unexpected output files:\n%s", bad);
	free(bad);
}

START_TEST(opslist_slugs_stay_in_ops_and_short)
{
	char *box = sandbox("list-slugs", "", 0), *out = tu_path(box, "out");
	struct result r = run_box(box, fixture, "-s", fixture, "-t", "2.0.0", "--all", "-q", NULL);
	ck_assert_msg(r.status <= 1, "%d %s", r.status, r.err);
	expect_only_slugs(out);
	result_free(&r);
	free(out);
	free(box);
}
END_TEST

/* ---- checkouts ------------------------------------------------------------------ */

/*
 * One clone of the fixture (no origin remote) with a tag per broken
 * release, each the v2.0.0 tree with one change; outside/ holds files that
 * symlinks in the tags point at, plain/ a plain-folder copy of v2.0.0 with
 * such links.
 */
static const char hostile_script[] =
	"set -e\n"
	"cd \"$1\"; fixture=$2; NF=aten/src/ATen/native/native_functions.yaml\n"
	"git clone -q --no-hardlinks \"$fixture\" repo\n"
	"mkdir outside\n"
	"cp repo/$NF outside/native_functions.yaml\n"
	/* a kernel registration nn.LSTM's trace would list, if the file were read */
	"printf 'namespace at { namespace native {\\nREGISTER_DISPATCH(lstm_cudnn_stub, "
	"&evil_lstm_kernel);\\n}}\\n' > outside/Evil.cpp\n"
	"cd repo; git remote remove origin\n"
	"g() { git -c user.name=t -c user.email=t@localhost -c advice.detachedHead=false \"$@\"; }\n"
	"variant() { g checkout -q v2.0.0; eval \"$2\"; g add -A; g commit -qm \"$1\"; g tag \"$1\"; }\n"
	/* YAML */
	"variant v3.0.1 \"printf -- '- func: cut(Tensor se' >> $NF\"\n"
	"variant v3.0.2 \"printf -- '- func: cut(Tensor self) -> Tensor\\n  dispatch: {CPU: cut_cpu, "
	"CUDA: \\\"cut_' >> $NF\"\n"
	"variant v3.0.3 \"sed -i '0,/^  variants:/s//\\tvariants:/' $NF\"\n"
	"variant v3.0.4 \"printf -- '- func: bad(Tensor self) -> Tensor\\n  dispatch: [CPU, CUDA]\\n' "
	">> $NF\"\n"
	"variant v3.0.5 \"printf -- '- func: {name: bad}\\n' >> $NF\"\n"
	"variant v3.0.6 \"printf 'func: not a list\\n' > $NF\"\n"
	"variant v3.0.7 \"printf -- '- variants: function\\n  dispatch:\\n    CPU: nothing\\n' >> $NF\"\n"
	"variant v3.0.8 \"printf -- '- func: dup(Tensor self) -> Tensor\\n  variants: function\\n"
	"  variants: method\\n' >> $NF\"\n"
	"variant v3.0.9 \"awk 'BEGIN { printf \\\"- func: deep(Tensor self) -> Tensor\\\\n  x: \\\"; "
	"for (i = 0; i < 100000; i++) printf \\\"[\\\"; for (i = 0; i < 100000; i++) printf \\\"]\\\"; "
	"print \\\"\\\" }' >> $NF\"\n"
	"bomb='- func: lol(Tensor self) -> Tensor\\n  x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\\n'\n"
	"for i in 1 2 3 4 5 6 7 8 9; do p=$((i - 1)); "
	"bomb=\"$bomb  x$i: &a$i [*a$p, *a$p, *a$p, *a$p, *a$p, *a$p, *a$p, *a$p, *a$p]\\n\"; done\n"
	"variant v3.0.10 \"printf -- \\\"$bomb\\\" >> $NF\"\n"
	/* the tree */
	"variant v3.1.1 \"git rm -q $NF\"\n"
	"variant v3.1.2 \"rm $NF; ln -s \\\"$1/outside/native_functions.yaml\\\" $NF\"\n"
	"variant v3.1.3 \"ln -s \\\"$1/outside/Evil.cpp\\\" aten/src/ATen/native/Evil.cpp; "
	"ln -s ../../../../../outside/Evil.cpp aten/src/ATen/native/Evil2.cpp; "
	"ln -s \\\"$1/outside\\\" aten/src/ATen/native/outside\"\n"
	"variant v3.1.4 \"yes 'int filler_for_a_huge_file(int x) { return x + 1; }' | head -c 40000000 "
	"> aten/src/ATen/native/Huge.cpp; head -c 300000 /dev/urandom > aten/src/ATen/native/BinaryOps.cpp\"\n"
	"variant v3.1.5 \"head -c 100000 /dev/urandom > $NF\"\n"
	"variant v3.1.6 \"yes '# a comment line that makes native_functions.yaml far too large' "
	"| head -c 40000000 >> $NF\"\n"
	"g tag v3.2.1 'v2.0.0^{tree}'\n"
	"g tag v3.2.2 \"v2.0.0:$NF\"\n"
	"g tag -a -m 'annotated, to a tree' v3.2.3 'v2.0.0^{tree}'\n"
	"g checkout -q v2.0.0\n"
	/* a plain folder: v2.0.0 with the same links */
	"cd ..; mkdir plain; git -C repo archive v2.0.0 | tar -x -C plain\n"
	"ln -sf \"$1/outside/Evil.cpp\" plain/aten/src/ATen/native/Evil.cpp\n";

static void fixture_setup(void)
{
	if (!fixture)
		fixture = tu_absolute(tu_fixture_repo());
}

static void hostile_setup(void)
{
	char *rel = tu_tmpdir("hostile");
	fixture_setup();
	hostile = tu_absolute(rel);
	free(shell(hostile_script, hostile, fixture, NULL));
	free(rel);
}

static void hostile_teardown(void)
{
	free(hostile);
	hostile = NULL;
}

static char *hostile_path(const char *rel)
{
	return tu_path(hostile, rel);
}

/* A fatal run at fixture release `version` of the hostile clone. */
static void expect_bad_release(const char *tag, const char *version, const char *message)
{
	char *box = sandbox(tag, TWO_OPS, strlen(TWO_OPS)), *repo = hostile_path("repo");
	expect_fatal_keeps_out(box, repo, message, "-s", repo, "-t", version);
	free(repo);
	free(box);
}

/* A missing checkout is cloned; a clone that fails leaves nothing behind. */
static void expect_failed_clone(const char *tag, const char *rel)
{
	char *box = sandbox(tag, TWO_OPS, strlen(TWO_OPS)), *missing = tu_path(box, rel);
	expect_fatal_keeps_out(box, NULL, "cannot clone file:///nonexistent/pytorch into ", "-s",
			       missing, "--source-url", "file:///nonexistent/pytorch", "-t", "2.0.0");
	free(missing);
	free(box);
}

START_TEST(checkout_missing_and_clone_fails)
{
	expect_failed_clone("co-missing", "checkout");
}
END_TEST

START_TEST(checkout_failed_clone_leaves_no_parent_folders)
{
	expect_failed_clone("co-missing-deep", "no/such/checkout");
}
END_TEST

START_TEST(checkout_empty_plain_or_a_file)
{
	char *box = sandbox("co-kinds", TWO_OPS, strlen(TWO_OPS));
	char *empty = tu_path(box, "empty"), *plain = hostile_path("plain"), *file = tu_path(box, "ops.list");
	ck_assert(mkdir(empty, 0755) == 0);
	expect_fatal_keeps_out(box, NULL, " is an empty folder: remove it so it can be cloned", "-s",
			       empty, "-t", "2.0.0");
	expect_fatal_keeps_out(box, plain, " is not a git repository, so the PyTorch release it holds "
					   "cannot be verified", "-s", plain, "-t", "2.0.0");
	expect_fatal_keeps_out(box, NULL, " is a file, not a folder", "-s", file, "-t", "2.0.0");
	free(empty);
	free(plain);
	free(file);
	free(box);
}
END_TEST

START_TEST(checkout_without_the_tag)
{
	expect_bad_release("co-notag", "9.9.9", "PyTorch 9.9.9: the checkout ");
	expect_bad_release("co-notag", "9.9.9", " has no tag v9.9.9 (it has no origin remote to fetch it from)");
}
END_TEST

START_TEST(checkout_tag_at_a_non_commit)
{
	expect_bad_release("co-tree", "3.2.1", "tag v3.2.1 in ");
	expect_bad_release("co-tree", "3.2.1", " points at a tree, not a commit, so it is not a release");
	expect_bad_release("co-blob", "3.2.2", " points at a blob, not a commit");
	expect_bad_release("co-annotated", "3.2.3", " points at a tree, not a commit");
}
END_TEST

START_TEST(checkout_corrupt_object)
{
	char *box = sandbox("co-corrupt", TWO_OPS, strlen(TWO_OPS)), *repo = tu_path(box, "repo");
	char *oid;
	free(shell("git clone -q --no-hardlinks \"$1\" \"$2\"", fixture, repo, NULL));
	oid = shell("git -C \"$1\" rev-parse v2.0.0:aten/src/ATen/native/BinaryOps.cpp | tr -d '\\n'",
		    repo, NULL);
	free(shell("f=\"$1/.git/objects/$(echo $2 | cut -c1-2)/$(echo $2 | cut -c3-)\"; "
		   "chmod 644 \"$f\"; printf 'not zlib at all' > \"$f\"",
		   repo, oid, NULL));
	expect_fatal_keeps_out(box, NULL, "cannot read aten/src/ATen/native/BinaryOps.cpp at 2.0.0 in ",
			       "-s", repo, "-t", "2.0.0");
	free(oid);
	free(repo);
	free(box);
}
END_TEST

START_TEST(checkout_without_native_functions)
{
	expect_bad_release("co-nonative", "3.1.1",
			   "aten/src/ATen/native/native_functions.yaml: no such file at 3.1.1");
}
END_TEST

/* A link to a good file outside the checkout is not followed: refused. */
START_TEST(checkout_native_functions_is_a_link_outside)
{
	expect_bad_release("co-link", "3.1.2",
			   "aten/src/ATen/native/native_functions.yaml: not a regular file at 3.1.2");
}
END_TEST

/*
 * Links to a source file and a folder outside: the run works and reads
 * neither (a regular Evil.cpp with the same text puts a stub registration
 * of it into nn.LSTM's trace).
 */
static void expect_links_ignored(const char *tag, const char *checkout, const char *version,
				 bool unverified)
{
	static const char list[] = "nn.LSTM\ntorch.add !full\n";
	char *box = sandbox(tag, list, sizeof(list) - 1), *json;
	struct result r = run_box(box, checkout, "-s", checkout, "-t", version,
				  unverified ? "--unverified-source" : "-q", NULL);
	ck_assert_msg(r.status <= 1, "%d: %s", r.status, r.err);
	ck_assert(exists_in(box, "out/ops/nn-lstm.md"));
	json = shell("cat \"$1\"/out/trace.json", box, NULL);
	ck_assert_msg(!strstr(json, "Evil") && !strstr(json, "evil_lstm_kernel") &&
			      !strstr(json, "outside"),
		      "a link was followed");
	result_free(&r);
	free(json);
	free(box);
}

START_TEST(checkout_source_links_outside_are_not_followed)
{
	char *repo = hostile_path("repo"), *plain = hostile_path("plain");
	expect_links_ignored("co-srclink", repo, "3.1.3", false);
	expect_links_ignored("co-plainlink", plain, "2.0.0", true);
	free(repo);
	free(plain);
}
END_TEST

START_TEST(checkout_huge_and_binary_sources)
{
	static const char list[] = "torch.add !full\nnn.LSTM\n";
	char *box = sandbox("co-huge", list, sizeof(list) - 1), *repo = hostile_path("repo"), *json;
	struct result r = run_box(box, repo, "-s", repo, "-t", "3.1.4", "-q", NULL);
	ck_assert_msg(r.status <= 1, "%d: %s", r.status, r.err);
	ck_assert(exists_in(box, "out/ops/torch-add.md") && exists_in(box, "out/ops/nn-lstm.md"));
	json = shell("cat \"$1\"/out/trace.json", box, NULL);
	ck_assert_msg(!strstr(json, "Huge.cpp"), "a file over 32 MB was indexed");
	result_free(&r);
	free(json);
	free(repo);
	free(box);
}
END_TEST

START_TEST(checkout_binary_native_functions)
{
	expect_bad_release("co-binyaml", "3.1.5", "aten/src/ATen/native/native_functions.yaml:1:");
}
END_TEST

/* Present but over the size limit: the message must say so, not "missing". */
START_TEST(checkout_huge_native_functions)
{
	expect_bad_release("co-hugeyaml", "3.1.6", "aten/src/ATen/native/native_functions.yaml");
	expect_bad_release("co-hugeyaml", "3.1.6", "too large");
}
END_TEST

/* ---- YAML ----------------------------------------------------------------------------- */

#define NATIVE "aten/src/ATen/native/native_functions.yaml"

START_TEST(yaml_truncated)
{
	expect_bad_release("yaml-cut", "3.0.1", NATIVE ":121:9: bad schema: column 14: expected ',' or ')'");
	expect_bad_release("yaml-cutflow", "3.0.2", NATIVE ":122:");
	expect_bad_release("yaml-cutflow", "3.0.2", "found unexpected end of stream");
}
END_TEST

START_TEST(yaml_tab_indented)
{
	expect_bad_release("yaml-tab", "3.0.3", "found a tab character that violates indentation");
}
END_TEST

START_TEST(yaml_wrong_types)
{
	expect_bad_release("yaml-types", "3.0.4", NATIVE ":122:13: 'dispatch' must be a mapping");
	expect_bad_release("yaml-types", "3.0.5", NATIVE ":121:");
	expect_bad_release("yaml-types", "3.0.6", NATIVE ":1:1: top level is not a list");
}
END_TEST

START_TEST(yaml_entry_without_func)
{
	expect_bad_release("yaml-nofunc", "3.0.7", NATIVE ":121:3: entry has no 'func:'");
}
END_TEST

START_TEST(yaml_duplicate_keys)
{
	expect_bad_release("yaml-dupkey", "3.0.8", NATIVE ":123:3: duplicate key 'variants' (first at line 122)");
}
END_TEST

START_TEST(yaml_deeply_nested)
{
	expect_bad_release("yaml-deep", "3.0.9", NATIVE ":122:");
	expect_bad_release("yaml-deep", "3.0.9", "nesting is too deep");
}
END_TEST

/* 9^10 items if expanded: loads in bounded time and memory, dump included. */
START_TEST(yaml_alias_bomb)
{
	char *box = sandbox("yaml-bomb", TWO_OPS, strlen(TWO_OPS)), *repo = hostile_path("repo");
	struct result r = run_box(box, repo, "-s", repo, "-t", "3.0.10", "-q", NULL);
	struct result d;
	ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
	d = run_box(box, repo, "-s", repo, "-t", "3.0.10", "--dump-registry", NULL);
	ck_assert_msg(d.status == 0, "%d: %s", d.status, d.err);
	ck_assert_has(d.out, "\"lol\"");
	ck_assert_uint_lt(strlen(d.out), 4u << 20);
	result_free(&r);
	result_free(&d);
	free(repo);
	free(box);
}
END_TEST

/* ---- the output folder --------------------------------------------------------------- */

/* Run a shell script in its own mount namespace (root, or a user namespace). */
static char *in_mount_namespace(const char *script, const char *arg)
{
	char *full = ot_malloc(strlen(script) + 64), *res;
	sprintf(full, "exec unshare %s sh -ec '%s' sh \"$1\"", geteuid() == 0 ? "-m" : "-rm", script);
	res = shell(full, arg, NULL);
	free(full);
	return res;
}

/*
 * Read-only: a read-only bind mount stops root too. The run's status and
 * stderr are written beside the mount; out/ is compared before and after.
 */
START_TEST(output_not_writable)
{
	char *box = sandbox("out-ro", TWO_OPS, strlen(TWO_OPS)), *before = out_digest(box), *after;
	char *script = NULL, *status, *err;
	ot_buf s = OT_BUF_INIT;
	ot_buf_printf(&s, "mount --bind \"$1\"/out \"$1\"/out; mount -o remount,bind,ro \"$1\"/out; "
			  "st=0; env -C \"$1\" %s -s %s -t 2.0.0 2> \"$1\"/err || st=$?; echo $st > \"$1\"/status",
		      bin, fixture);
	script = ot_buf_detach(&s);
	free(in_mount_namespace(script, box));
	status = shell("cat \"$1\"/status", box, NULL);
	err = shell("cat \"$1\"/err", box, NULL);
	ck_assert_str_eq(status, "2\n");
	ck_assert_has(err, "optrace: output folder out is not writable");
	after = out_digest(box);
	ck_assert_str_eq(before, after);
	free(script);
	free(status);
	free(err);
	free(before);
	free(after);
	free(box);
}
END_TEST

START_TEST(output_is_a_file_or_a_link)
{
	char *box = sandbox("out-file", TWO_OPS, strlen(TWO_OPS)), *d0, *d1;
	free(shell("cd \"$1\" && printf 'precious\\n' > file && mkdir real && ln -s real link", box, NULL));
	d0 = digest(box, "");
	{
		struct result r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "-o", "file", NULL});
		expect_fatal(&r, "optrace: output folder file is not a folder");
		result_free(&r);
		r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "-o", "file/out", NULL});
		expect_fatal(&r, "optrace: cannot create file/out: "); /* then strerror's words */
		result_free(&r);
		r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "-o", "link", NULL});
		expect_fatal(&r, "optrace: output folder link is a symbolic link");
		result_free(&r);
	}
	d1 = digest(box, "");
	ck_assert_str_eq(d0, d1);
	free(d0);
	free(d1);
	free(box);
}
END_TEST

/* A link where a folder of ours is: an error, never a redirection. */
START_TEST(output_folder_link_inside_is_not_followed)
{
	char *box = sandbox("out-dirlink", TWO_OPS, strlen(TWO_OPS)), *elsewhere, *d0, *d1;
	free(shell("cd \"$1\" && mkdir elsewhere && mv out/ops/* elsewhere/ && rmdir out/ops && "
		   "ln -s ../elsewhere out/ops",
		   box, NULL));
	elsewhere = tu_path(box, "elsewhere");
	d0 = digest(elsewhere, "");
	expect_fatal_keeps_out(box, NULL, "out/ops is a symbolic link; links in the output folder are "
					  "never followed; nothing was published, out is unchanged",
			       "-s", fixture, "-t", "2.0.0");
	d1 = digest(elsewhere, "");
	ck_assert_str_eq(d0, d1);
	free(d0);
	free(d1);
	free(elsewhere);
	free(box);
}
END_TEST

/* A link where a file of ours is: replaced by the file, its target untouched. */
START_TEST(output_file_link_inside_is_replaced)
{
	char *box = sandbox("out-filelink", TWO_OPS, strlen(TWO_OPS)), *target, *text, *d0, *d1;
	struct result r;
	struct stat st;
	free(shell("cd \"$1\" && printf 'not optrace output\\n' > target && rm out/index.md && "
		   "ln -s ../target out/index.md",
		   box, NULL));
	target = tu_path(box, "target");
	d0 = digest(box, "out");
	r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "-q", NULL});
	ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
	d1 = digest(box, "out");
	ck_assert_str_eq(d0, d1);
	text = tu_read_file(target, NULL);
	ck_assert_str_eq(text, "not optrace output\n");
	free(text);
	text = tu_path(box, "out/index.md");
	ck_assert(lstat(text, &st) == 0 && S_ISREG(st.st_mode));
	result_free(&r);
	free(text);
	free(d0);
	free(d1);
	free(target);
	free(box);
}
END_TEST

/* A small tmpfs: the earlier run fits, --all with HTML does not. */
START_TEST(output_disk_full)
{
	char *box = sandbox("out-full", TWO_OPS, strlen(TWO_OPS)), *script, *status, *err, *d0, *d1;
	ot_buf s = OT_BUF_INIT;
	ot_buf_printf(&s, "cd \"$1\"; mkdir -p mnt; mount -t tmpfs -o size=256k tmpfs mnt; "
			  "%s -s %s -t 1.0.0 -q -o mnt/out; "
			  "find mnt/out -printf \"%%p %%y %%s %%i\\n\" | sort > d0; "
			  "st=0; %s -s %s -t 2.0.0 --all --format md,json,html -o mnt/out 2> err || st=$?; "
			  "echo $st > status; find mnt/out -printf \"%%p %%y %%s %%i\\n\" | sort > d1",
		      bin, fixture, bin, fixture);
	script = ot_buf_detach(&s);
	free(in_mount_namespace(script, box));
	status = shell("cat \"$1\"/status", box, NULL);
	err = shell("cat \"$1\"/err", box, NULL);
	d0 = shell("cat \"$1\"/d0", box, NULL);
	d1 = shell("cat \"$1\"/d1", box, NULL);
	ck_assert_str_eq(status, "2\n");
	ck_assert_has(err, "disk full while writing mnt/out/");
	ck_assert_has(err, "nothing was published, mnt/out is unchanged");
	ck_assert_str_eq(d0, d1);
	free(script);
	free(status);
	free(err);
	free(d0);
	free(d1);
	free(box);
}
END_TEST

/* A run that fails late (a broken template) keeps the earlier out/. */
START_TEST(output_late_failure_keeps_out)
{
	char *box = sandbox("out-late", TWO_OPS, strlen(TWO_OPS));
	free(shell("cd \"$1\" && mkdir tpl && printf '# {{title}}\\n{{#steps}}\\n' > tpl/page.md.mustache",
		   box, NULL));
	expect_fatal_keeps_out(box, NULL, "page.md.mustache:2:1: unclosed section 'steps'", "-s",
			       fixture, "-t", "2.0.0", "--templates", "tpl");
	free(box);
}
END_TEST

/* ---- interruption ---------------------------------------------------------------------- */

/*
 * Reference runs on the real checkout: old = 1.13.1 --all plus ./ops.list
 * (module pages 2.6.0 --all will not write), new = 2.6.0 --all. A killed
 * run goes from a copy of old towards new; every file must be one or the
 * other, whole. Pages and diagrams only (--format md: 5,000 files to
 * publish, without the 100 MB trace.json), and each killed run's folder is
 * removed once checked: at most old, new and one run (with its staging
 * folder) are on disk at once, not a gigabyte and a half.
 */
static char *real_dir; /* holds old/, new/, box/ (the sandbox with ops.list and empty.list) */
static char *midway;   /* a file only the new run writes, half-way through its commit */

static const char *const new_args[] = {"--all", "-t", "2.6.0", "-q", "--format", "md", "empty.list",
				       NULL};

static void interrupt_setup(void)
{
	char *rel = tu_tmpdir("interrupt"), *box, *list, *ops = tu_read_file("ops.list", NULL);
	struct result r;
	real_dir = tu_absolute(rel);
	box = tu_path(real_dir, "box");
	ck_assert(mkdir(box, 0755) == 0);
	list = tu_path(box, "ops.list");
	tu_write_file(list, ops, strlen(ops));
	free(list);
	list = tu_path(box, "empty.list");
	tu_write_file(list, "", 0);
	r = run_in(box, (const char *[]){"-s", tu_real_source(), "--all", "-t", "1.13.1", "-q", "--format",
					  "md", "-o", "../old", "ops.list", NULL});
	ck_assert_msg(r.status <= 1, "old run: %d %s", r.status, r.err);
	result_free(&r);
	r = run_in(box, (const char *[]){"-s", tu_real_source(), "--all", "-t", "2.6.0", "-q", "--format",
					  "md", "-o", "../new", "empty.list", NULL});
	ck_assert_msg(r.status <= 1, "new run: %d %s", r.status, r.err);
	result_free(&r);
	/* the commit renames in path order: the middle one of the new files */
	midway = shell("cd \"$1\" && (cd old && find . -type f | LC_ALL=C sort) > old.list && "
		       "(cd new && find . -type f | LC_ALL=C sort) > new.list && "
		       "LC_ALL=C comm -13 old.list new.list > new-only.list && "
		       "sed -n \"$(($(wc -l < new-only.list) / 2))p\" new-only.list | tr -d '\\n'",
		       real_dir, NULL);
	ck_assert_msg(ot_starts_with(midway, "./ops/"), "'%s'", midway);
	free(list);
	free(box);
	free(ops);
	free(rel);
}

static void interrupt_teardown(void)
{
	/* 2 x 150 MB: not left behind */
	if (real_dir)
		free(shell("rm -rf \"$1\"", real_dir, NULL));
	free(real_dir);
	free(midway);
	real_dir = midway = NULL;
}

/* Start optrace (new_args plus -s and -o OUT) in the background. */
static pid_t spawn_new_run(const char *out)
{
	char *box = tu_path(real_dir, "box");
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		const char *argv[16] = {bin, "-s", tu_real_source(), "-o", out};
		int n = 5, null = open("/dev/null", O_RDWR);
		for (const char *const *a = new_args; *a; a++)
			argv[n++] = *a;
		argv[n] = NULL;
		dup2(null, 0);
		dup2(null, 1);
		/* Check's handlers would kill the whole test on a SIGINT */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (chdir(box) != 0)
			_exit(127);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	free(box);
	return pid;
}

enum moment { AFTER_ONE_SECOND, WHILE_STAGING, WHILE_PUBLISHING };

/*
 * Copy old/ to a fresh out, start the new run into it, send `sig` at
 * `when`; returns the out folder (absolute). The process must die of the
 * signal (it did not finish first).
 */
static char *interrupted_run(const char *tag, int sig, enum moment when)
{
	char *out = tu_path(real_dir, tag), *staging = tu_path(out, ".optrace-staging/ops");
	char *middle = tu_path(out, midway);
	double start;
	pid_t pid;
	int status;

	free(shell("rm -rf \"$2\" && cp -a \"$1\"/old \"$2\"", real_dir, out, NULL));
	/* the clock starts with the run: the copy above can take a second, and
	 * a signal sent before the exec would hit a copy of this test */
	pid = spawn_new_run(out);
	start = ot_clock();
	for (;;) {
		struct stat st;
		bool now = false;
		if (when == AFTER_ONE_SECOND)
			now = ot_clock() - start >= 1.0;
		else if (when == WHILE_STAGING)
			now = lstat(staging, &st) == 0 && ot_clock() - start >= 1.0;
		else
			now = lstat(middle, &st) == 0;
		if (now)
			break;
		ck_assert_msg(waitpid(pid, &status, WNOHANG) == 0, "the run ended before the signal");
		ck_assert_msg(ot_clock() - start < 600, "the run never reached the moment");
		usleep(when == WHILE_PUBLISHING ? 200 : 10000);
	}
	kill(pid, sig);
	ck_assert(waitpid(pid, &status, 0) == pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig,
		      "the run was not stopped by signal %d (status %d)", sig, status);
	/* nor does any of its diagram workers (forked: the same "-o OUT") outlive it */
	{
		char *left = shell("for i in $(seq 100); do pgrep -f -- \"-o $1\" > /dev/null || exit 0; "
				   "sleep 0.1; done; pgrep -af -- \"-o $1\"",
				   out, NULL);
		ck_assert_msg(!*left, "processes of the killed run are still running:\n%s", left);
		free(left);
	}
	free(staging);
	free(middle);
	return out;
}

/* The contents of `path`, or NULL when it is not a regular file. */
static char *read_if_file(const char *path, size_t *len)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	return tu_read_file(path, len);
}

/* Is the file at `path` `len` bytes of `data`? */
static bool holds(const char *path, const char *data, size_t len)
{
	size_t n;
	char *other = read_if_file(path, &n);
	bool same = other && n == len && !memcmp(other, data, len);
	free(other);
	return same;
}

/* What a walk of a killed run's out/ found. */
struct whole_files {
	const char *old, *new; /* the reference runs' folders */
	size_t n_old, n_new;   /* files byte for byte as there */
	ot_buf neither;        /* files that are neither, one per line */
	ot_buf torn_pages;     /* pages without their front matter or last newline */
};

/* One file, `rel` under out/: old or new version, and whole if a page. */
static void check_whole_file(struct whole_files *w, const char *path, const char *rel)
{
	size_t len;
	char *data = tu_read_file(path, &len), *old = tu_path(w->old, rel), *new = tu_path(w->new, rel);
	bool index = !strcmp(rel, "index.md");
	bool op_page = ot_starts_with(rel, "ops/") && !strchr(rel + 4, '/') && ot_ends_with(rel, ".md");
	if (holds(old, data, len))
		w->n_old++;
	else if (holds(new, data, len))
		w->n_new++;
	else
		ot_buf_printf(&w->neither, "%s\n", rel);
	if ((index || op_page) && (!len || data[len - 1] != '\n' || (op_page && strncmp(data, "---", 3))))
		ot_buf_printf(&w->torn_pages, "%s\n", rel);
	free(data);
	free(old);
	free(new);
}

/* Every regular file under `dir` (`rel` under out/), links not followed, the
 * staging folder and the bookkeeping files left out. In process: a shell
 * loop of cmp over 8,000 files took a minute per killed run. */
static void walk_whole_files(struct whole_files *w, const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	ck_assert_msg(d != NULL, "cannot read %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		struct stat st;
		char *path, *sub;
		if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, ".optrace-manifest") ||
		    !strcmp(name, ".optrace-lock") || (!*rel && !strcmp(name, ".optrace-staging")))
			continue;
		path = tu_path(dir, name);
		sub = *rel ? tu_path(rel, name) : ot_strdup(name);
		ck_assert(lstat(path, &st) == 0);
		if (S_ISDIR(st.st_mode))
			walk_whole_files(w, path, sub);
		else if (S_ISREG(st.st_mode))
			check_whole_file(w, path, sub);
		free(path);
		free(sub);
	}
	closedir(d);
}

/*
 * After a killed run: every file of out/ (but the staging folder) is byte
 * for byte the old or the new version of itself; `mixed` requires both to
 * be present (the kill landed inside the commit). Returns the paths that
 * the manifest does not list (files of ours it forgot), "" when none.
 */
static char *expect_whole_files(const char *out, bool mixed)
{
	char *old = tu_path(real_dir, "old"), *new = tu_path(real_dir, "new"), *torn, *untracked;
	struct whole_files w = {.old = old, .new = new, .neither = OT_BUF_INIT, .torn_pages = OT_BUF_INIT};
	walk_whole_files(&w, out, "");
	ck_assert_msg(!w.neither.size, "files that are neither the old nor the new version: %.200s",
		      w.neither.ptr);
	fprintf(stderr, "%s: %zu files as before, %zu as in the new run\n", out, w.n_old, w.n_new);
	if (mixed)
		ck_assert_msg(w.n_old && w.n_new, "not a mix: %zu old, %zu new", w.n_old, w.n_new);
	/* the pages have their front matter and end with a newline */
	ck_assert_msg(!w.torn_pages.size, "incomplete pages: %.200s", w.torn_pages.ptr);
	/* the manifest is whole: the old one, the new one, or (killed while
	 * publishing) the one written before the first rename, listing both */
	torn = shell("cd \"$1\" && cmp -s .optrace-manifest \"$2\"/.optrace-manifest || "
		     "cmp -s .optrace-manifest \"$3\"/.optrace-manifest || "
		     "{ head -n 1 \"$2\"/.optrace-manifest; cat \"$2\"/.optrace-manifest "
		     "\"$3\"/.optrace-manifest | grep -v '^#' | LC_ALL=C sort -u; } | "
		     "cmp -s .optrace-manifest - || echo torn",
		     out, old, new, NULL);
	ck_assert_msg(!*torn, "the manifest is neither the old, the new one nor both");
	free(torn);
	untracked = shell("cd \"$1\" && find . -path ./.optrace-staging -prune -o -type f "
			  "! -name .optrace-manifest ! -name .optrace-lock -print | sed 's|^\\./||' | "
			  "LC_ALL=C sort | LC_ALL=C comm -23 - \"$(cut -f1 .optrace-manifest | "
			  "LC_ALL=C sort -u > ../paths.$$; echo ../paths.$$)\" | head -5",
			  out, NULL);
	ot_buf_free(&w.neither);
	ot_buf_free(&w.torn_pages);
	free(old);
	free(new);
	return untracked;
}

/* The rerun recovers: out/ is then byte-identical to a clean run, no staging left. */
static void expect_rerun_recovers(const char *out)
{
	char *box = tu_path(real_dir, "box"), *new = tu_path(real_dir, "new"), *diff;
	const char *args[16] = {"-s", tu_real_source(), "-o", out};
	struct result r;
	int n = 4;
	for (const char *const *a = new_args; *a; a++)
		args[n++] = *a;
	args[n] = NULL;
	r = run_in(box, args);
	ck_assert_msg(r.status <= 1, "rerun: %d %s", r.status, r.err);
	diff = shell("diff -r --no-dereference -q \"$1\" \"$2\" || true", out, new, NULL);
	ck_assert_msg(!*diff, "the rerun differs from a clean run:\n%.2000s", diff);
	result_free(&r);
	free(shell("rm -rf \"$1\"", out, NULL));
	free(diff);
	free(new);
	free(box);
}

/* Before the commit nothing is published: out/ is exactly the old run. */
START_TEST(interrupt_before_publishing_leaves_out_as_it_was)
{
	char *old = tu_path(real_dir, "old"), *d_old = digest(old, ""), *out, *d, *untracked;
	static const char *const files_only =
		"cd \"$1\" && find . -path ./.optrace-staging -prune -o -type f -print0 | "
		"LC_ALL=C sort -z | xargs -0 sha1sum";
	char *want = shell(files_only, old, NULL);

	out = interrupted_run("sigint-early", SIGINT, AFTER_ONE_SECOND);
	d = shell(files_only, out, NULL);
	ck_assert_msg(!strcmp(want, d), "SIGINT after 1 s changed out/");
	free(shell("rm -rf \"$1\"", out, NULL));
	free(d);
	free(out);

	out = interrupted_run("sigkill-staging", SIGKILL, WHILE_STAGING);
	d = shell(files_only, out, NULL);
	ck_assert_msg(!strcmp(want, d), "SIGKILL while staging changed out/");
	untracked = expect_whole_files(out, false);
	ck_assert_str_eq(untracked, "");
	/* the killed run's staging folder is still there; the rerun clears it */
	ck_assert(exists_in(out, ".optrace-staging"));
	expect_rerun_recovers(out);
	free(untracked);
	free(d);
	free(out);
	free(want);
	free(d_old);
	free(old);
}
END_TEST

static void killed_while_publishing(const char *tag, int sig)
{
	char *out = interrupted_run(tag, sig, WHILE_PUBLISHING);
	char *untracked = expect_whole_files(out, true);
	expect_rerun_recovers(out);
	/* last, so the rerun was checked too: files the killed commit published
	 * but no manifest lists would never be cleaned up */
	ck_assert_msg(!*untracked, "a run killed while publishing leaves files no manifest lists:\n%s",
		      untracked);
	free(untracked);
	free(out);
}

START_TEST(sigkill_while_publishing_leaves_whole_files)
{
	killed_while_publishing("sigkill-commit", SIGKILL);
}
END_TEST

START_TEST(sigint_while_publishing_leaves_whole_files)
{
	killed_while_publishing("sigint-commit", SIGINT);
}
END_TEST

/* The 2.6.0 --all output itself: file names are short slugs inside ops/. */
START_TEST(real_all_slugs_stay_in_ops_and_short)
{
	char *new = tu_path(real_dir, "new"), *old = tu_path(real_dir, "old");
	expect_only_slugs(new);
	expect_only_slugs(old);
	free(new);
	free(old);
}
END_TEST

/* ---- untrusted checkouts: what a page shows when a fork is hostile ------------------ */

/*
 * A clone of the fixture with one tag per hostile checkout
 * (tests/untrusted-repo.sh). Every output of a run on it is checked as the
 * people who read it see it: each Markdown page rendered by cmark-gfm (the
 * library GitHub renders with; raw HTML kept, as a stricter renderer than
 * GitHub's sanitised one) and by Python-Markdown (with MkDocs' extensions),
 * the renderings and the offline HTML bundle loaded in headless Chromium:
 * no script runs, no link leads outside the source links; trace.json
 * parses as strict UTF-8 JSON, every SVG is well-formed XML, no file holds
 * a control character (but tab and newline) or a bidi control.
 */
static char *untrusted; /* the repository */
static char *untrusted_dir;

static void untrusted_setup(void)
{
	char *rel = tu_tmpdir("untrusted"), *script = tu_absolute("tests/untrusted-repo.sh");
	fixture_setup();
	untrusted_dir = tu_absolute(rel);
	untrusted = tu_path(untrusted_dir, "repo");
	free(shell("sh \"$1\" \"$2\" \"$3\"", script, untrusted, fixture, NULL));
	free(script);
	free(rel);
}

static void untrusted_teardown(void)
{
	free(untrusted);
	free(untrusted_dir);
	untrusted = untrusted_dir = NULL;
}

#define SOURCE_LINKS "https://github.com/pytorch/pytorch/blob/"
#define PWNED "data-pwned"

/* GitHub's renderer: cmark-gfm with its extensions, raw HTML kept. */
static void render_gfm(ot_buf *out, const char *md, size_t len)
{
	static const char *const exts[] = {"table", "autolink", "strikethrough", "tasklist"};
	cmark_parser *parser;
	cmark_node *doc;
	char *html;
	cmark_gfm_core_extensions_ensure_registered();
	parser = cmark_parser_new(CMARK_OPT_UNSAFE);
	for (size_t i = 0; i < OT_ARRAY_LEN(exts); i++)
		cmark_parser_attach_syntax_extension(parser, cmark_find_syntax_extension(exts[i]));
	cmark_parser_feed(parser, md, len);
	doc = cmark_parser_finish(parser);
	html = cmark_render_html(doc, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(parser));
	ot_buf_puts(out, html);
	free(html);
	cmark_node_free(doc);
	cmark_parser_free(parser);
}

/*
 * Python: argv OUT SCRATCH. Checks trace.json, the SVGs and the bytes of
 * every file; renders every page with Python-Markdown as MkDocs does (front
 * matter off; toc, tables, fenced_code) after SCRATCH/gfm.body into
 * SCRATCH/all.html. Prints one line per problem.
 */
static const char sound_py[] =
	"import glob, json, os, re, sys, xml.etree.ElementTree as E, markdown\n"
	"out, scratch = sys.argv[1], sys.argv[2]\n"
	"bad = re.compile(rb'[\\x00-\\x08\\x0b-\\x1f\\x7f]|\\xc2[\\x80-\\x9f]|\\xe2\\x80[\\xa8-\\xae]"
	"|\\xe2\\x81[\\xa6-\\xa9]|\\xe2\\x80[\\x8e\\x8f]|\\xd8\\x9c')\n"
	"files = sorted(f for f in glob.glob(out + '/**', recursive=True) if os.path.isfile(f))\n"
	"for f in files:\n"
	"    data = open(f, 'rb').read()\n"
	"    m = bad.search(data)\n"
	"    if m and not f.endswith('.optrace-manifest'):\n"
	"        print('%s: a control or bidi character %r at byte %d' % (f, m.group(0), m.start()))\n"
	"    if f.endswith('.json'):\n"
	"        try: json.loads(data.decode('utf-8'))\n"
	"        except Exception as e: print('%s: not JSON: %s' % (f, e))\n"
	"    if f.endswith('.svg'):\n"
	"        try: E.fromstring(data)\n"
	"        except Exception as e: print('%s: not XML: %s' % (f, e))\n"
	"body = [open(scratch + '/gfm.body', encoding='utf-8', errors='replace').read()]\n"
	"for f in files:\n"
	"    if f.endswith('.md') and '/html/' not in f:\n"
	"        t = open(f, encoding='utf-8', errors='replace').read()\n"
	"        t = re.sub(r'\\A---\\n.*?\\n---\\n', '', t, flags=re.S)\n"
	"        body.append(markdown.markdown(t, extensions=['toc', 'tables', 'fenced_code']))\n"
	"open(scratch + '/all.html', 'w', encoding='utf-8').write("
	"'<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\\n' + '\\n<hr>\\n'.join(body)"
	" + '</body></html>\\n')\n";

/*
 * Load `html` (a file) in headless Chromium, offline, with a new profile;
 * the DOM after the page loaded must show no script ran (no data-pwned, no
 * script element, no event handler attribute) and no link or source outside
 * SOURCE_LINKS but relative ones.
 */
static void expect_safe_in_browser(const char *html, const char *scratch)
{
	static int n;
	ot_buf url = OT_BUF_INIT, profile = OT_BUF_INIT, dom = OT_BUF_INIT, err = OT_BUF_INIT;
	const char *argv[] = {"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			      "--no-first-run", "--disable-background-networking",
			      "--disable-component-update", "--disable-sync", NULL, "--dump-dom", NULL,
			      NULL};
	int status;
	ot_buf_printf(&profile, "--user-data-dir=%s/profile-%d", scratch, n++);
	ot_buf_printf(&url, "file://%s", html);
	argv[9] = profile.ptr;
	argv[11] = url.ptr;
	status = tu_run(argv, &dom, &err);
	ck_assert_msg(status == 0 && strstr(dom.ptr, "</html>"), "chromium failed on %s (%d): %.2000s",
		      html, status, err.ptr);
	ck_assert_msg(!strstr(dom.ptr, PWNED), "a script ran in %s", html);
	/* no script element but the bundle's own two, from its own files */
	for (const char *p = dom.ptr; (p = strstr(p, "<script"));) {
		const char *src = p + strlen("<script src=\""), *end;
		bool own = !strncmp(p, "<script src=\"", strlen("<script src=\""));
		while (own && !strncmp(src, "../", 3))
			src += 3;
		end = own ? src + strcspn(src, "\"") : src;
		own = own && ((end - src == 15 && !strncmp(src, "search-index.js", 15)) ||
			      (end - src == 10 && !strncmp(src, "optrace.js", 10))) &&
		      (!strncmp(end, "\" defer=\"\"></script>", 20) ||
		       !strncmp(end, "\" defer></script>", 17));
		ck_assert_msg(own, "a script element in %s: %.120s", html, p);
		p = end;
	}
	/* every attribute of every tag (Chromium writes values in double quotes) */
	for (const char *p = dom.ptr; (p = strchr(p, '<'));) {
		p++;
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			continue;
		p += strcspn(p, " \t\n/>");
		while (*p && *p != '>') {
			const char *name = p += strspn(p, " \t\n/"), *value = "";
			size_t nlen = strcspn(p, " \t\n=/>"), vlen = 0;
			p += nlen;
			if (*p == '=' && p[1] == '"') {
				value = p + 2;
				vlen = strcspn(value, "\"");
				p = value + vlen + (value[vlen] == '"');
			}
			if (!nlen)
				continue;
			ck_assert_msg(!(nlen > 2 && !strncasecmp(name, "on", 2)),
				      "an event handler in %s: %.*s", html, (int)(nlen + vlen + 3), name);
#define ATTR_IS(x) (nlen == strlen(x) && !strncasecmp(name, (x), nlen))
			if (ATTR_IS("href") || ATTR_IS("src") || ATTR_IS("xlink:href") || ATTR_IS("action") ||
			    ATTR_IS("formaction") || ATTR_IS("srcset") || ATTR_IS("data") || ATTR_IS("poster")) {
				size_t k = 0;
				while (k < vlen && (isalnum((unsigned char)value[k]) || strchr("+-.", value[k])))
					k++;
				/* relative (no scheme, no "//host"), or a source link */
				ck_assert_msg(!((k < vlen && value[k] == ':') || strspn(value, "/\\") >= 2) ||
						      !strncmp(value, SOURCE_LINKS, strlen(SOURCE_LINKS)),
					      "a link outside in %s: %.*s=\"%.*s\"", html, (int)nlen, name,
					      (int)vlen, value);
			}
#undef ATTR_IS
		}
	}
	ot_buf_free(&url);
	ot_buf_free(&profile);
	ot_buf_free(&dom);
	ot_buf_free(&err);
}

/*
 * Every output of a run in `out` (absolute) is safe to show (see above).
 * Returns the rendered pages (cmark-gfm's, then Python-Markdown's) for
 * more checks; caller frees.
 */
static char *expect_safe_output(const char *out)
{
	char *rel = tu_tmpdir("render"), *scratch = tu_absolute(rel), *all, *problems, *html_pages;
	char *pages = shell("cd \"$1\" && find . -name '*.md' ! -path './html/*' | LC_ALL=C sort", out,
			    NULL);
	ot_buf gfm = OT_BUF_INIT, path = OT_BUF_INIT;
	for (char *line = pages, *nl; *line; line = nl + 1) {
		size_t len;
		char *md, *body, *end;
		nl = strchr(line, '\n');
		*nl = '\0';
		ot_buf_clear(&path);
		ot_buf_printf(&path, "%s/%s", out, line);
		md = tu_read_file(path.ptr, &len);
		body = md;
		if (!strncmp(md, "---\n", 4) && (end = strstr(md + 4, "\n---\n")))
			body = end + 5;
		render_gfm(&gfm, body, len - (size_t)(body - md));
		ot_buf_puts(&gfm, "\n<hr>\n");
		free(md);
	}
	ot_buf_clear(&path);
	ot_buf_printf(&path, "%s/gfm.body", scratch);
	tu_write_file(path.ptr, gfm.ptr, gfm.size);
	/* Debian's python3, which has python3-markdown (another one in PATH may not) */
	problems = shell("/usr/bin/python3 -c \"$1\" \"$2\" \"$3\"", sound_py, out, scratch, NULL);
	ot_buf_clear(&path);
	ot_buf_printf(&path, "%s/all.html", scratch);
	expect_safe_in_browser(path.ptr, scratch);
	ck_assert_msg(!*problems, "%.3000s", problems);
	all = tu_read_file(path.ptr, NULL);
	html_pages = shell("cd \"$1\" && find \"$PWD\" -path '*/html/*' -name '*.html' | LC_ALL=C sort",
			   out, NULL);
	for (char *line = html_pages, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		expect_safe_in_browser(line, scratch);
	}
	free(html_pages);
	free(problems);
	free(pages);
	ot_buf_free(&gfm);
	ot_buf_free(&path);
	free(scratch);
	free(rel);
	return all;
}

#define UNTRUSTED_OPS "nn.LSTM\ntorch.add !full\naten::addmm.out\n"

/*
 * A run of UNTRUSTED_OPS at `version` of the untrusted repository, in a
 * new sandbox (its absolute path into *box, caller frees), with `formats`;
 * it must write its output (status 0 or 1) and change nothing outside out/.
 * Returns the out folder (absolute), caller frees.
 */
static char *untrusted_run(char **box, const char *tag, const char *version, const char *formats)
{
	char *rel = tu_tmpdir(tag), *list;
	struct result r;
	*box = tu_absolute(rel);
	list = tu_path(*box, "ops.list");
	tu_write_file(list, UNTRUSTED_OPS, strlen(UNTRUSTED_OPS));
	r = run_box(*box, untrusted, "-s", untrusted, "-t", version, "-q", "--format", formats, NULL);
	ck_assert_msg(r.status <= 1, "%d: %s", r.status, r.err);
	ck_assert_msg(!strstr(r.err, "Sanitizer") && !strstr(r.err, "runtime error"), "%s", r.err);
	result_free(&r);
	free(list);
	free(rel);
	return tu_path(*box, "out");
}

/* 1: a newline and a ``` line in a file name, HTML after them. */
START_TEST(untrusted_file_name_closes_no_fence)
{
	char *box, *out = untrusted_run(&box, "u-fence", "4.1.0", "md,json"), *html, *page, *p;
	html = expect_safe_output(out);
	p = tu_path(out, "ops/nn-lstm.md");
	page = tu_read_file(p, NULL);
	/* the name is shown on one line, in the overview, the summary and Layer by layer */
	ck_assert_has(page, "lstm_cudnn  (aten/src/ATen/native/cudnn/RNN ``` <img src=x");
	ck_assert_has(page, "| kernel (CUDA) | [````aten/src/ATen/native/cudnn/RNN ``` <img");
	ck_assert_has(page, "(https://github.com/pytorch/pytorch/blob/v4.1.0/aten/src/ATen/native/cudnn/"
			    "RNN%0A%60%60%60%0A%3Cimg%20src%3Dx%20");
	ck_assert_has(html, "RNN ``` &lt;img src=x onerror=");
	free(page);
	free(p);
	free(html);
	free(out);
	free(box);
}
END_TEST

/* 2: a CR in a derivatives.yaml formula and in a dispatch key. */
START_TEST(untrusted_cr_in_formula_and_dispatch_key)
{
	char *box, *out = untrusted_run(&box, "u-cr", "4.2.0", "md,json"), *html, *p, *page;
	html = expect_safe_output(out);
	p = tu_path(out, "ops/torch-add.md");
	page = tu_read_file(p, NULL);
	ck_assert_has(page, "- `self`: `handle_r_to_c(self.scalar_type(), grad) <script>");
	free(page);
	free(p);
	p = tu_path(out, "index.md");
	page = tu_read_file(p, NULL);
	ck_assert_has(page, "`CPU <script>document.documentElement.dataset.pwned=6*7</script>`");
	free(page);
	free(p);
	free(html);
	free(out);
	free(box);
}
END_TEST

/* 3: a file name that ends its source link and starts one to a site outside. */
START_TEST(untrusted_file_name_links_nowhere_outside)
{
	char *box, *out = untrusted_run(&box, "u-link", "4.3.0", "md,json,html"), *html, *p, *page;
	html = expect_safe_output(out);
	p = tu_path(out, "html/ops/nn-lstm.html");
	page = tu_read_file(p, NULL);
	ck_assert_has(page, "href=\"https://github.com/pytorch/pytorch/blob/v4.3.0/aten/src/ATen/native/"
			    "cudnn%29%20%5Bclick%5D%28https%3A/evil.example/RNN.cpp#L7\"");
	free(page);
	free(p);
	free(html);
	free(out);
	free(box);
}
END_TEST

/* Bytes below 0x20 but newline and tab, and DEL, in `s`. */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
			return true;
	return false;
}

/*
 * 4: invalid UTF-8, ESC and BEL in a file name: trace.json stays JSON, no
 * control character reaches a page, `optrace diff -o -` or a message; a
 * trace.json with invalid UTF-8 is refused by optrace diff.
 */
START_TEST(untrusted_invalid_utf8_and_escapes)
{
	char *box, *out = untrusted_run(&box, "u-utf8", "4.4.0", "md,json"), *html, *json, *bad;
	struct result r;
	html = expect_safe_output(out);
	json = tu_path(out, "trace.json");
	bad = tu_path(box, "bad.json");
	r = run_box(box, untrusted, "diff", "2.0.0", "4.4.0", "-s", untrusted, "-o", "-", "ops.list", NULL);
	ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
	ck_assert_has(r.out, "RNN\xef\xbf\xbd\xef\xbf\xbd\\x1b]0;owned\\x07\\x1b[2J.cpp");
	ck_assert_msg(!has_control(r.out) && !has_control(r.err), "a control character reached the terminal");
	result_free(&r);
	/* a trace.json whose file names are not UTF-8 */
	free(shell("sed 's|cudnn/RNN|cudnn/RNN\\xff|' \"$1\" > \"$2\"", json, bad, NULL));
	r = run_box(box, NULL, "diff", bad, json, "-o", "-", NULL);
	expect_fatal(&r, "invalid UTF-8 in a string");
	result_free(&r);
	free(bad);
	free(json);
	free(html);
	free(out);
	free(box);
}
END_TEST

/* 5: control characters and invalid UTF-8 in the diagram's labels: the SVG is XML. */
START_TEST(untrusted_svg_stays_xml)
{
	char *box, *out = untrusted_run(&box, "u-svg", "4.5.0", "md,json"), *html, *p, *svg;
	html = expect_safe_output(out);
	p = tu_path(out, "ops/nn-lstm.svg");
	svg = tu_read_file(p, NULL);
	/* shown: the \x01; the vertical tab as a line break, like \n (the label
	 * keeps the folder below native/) */
	ck_assert_has(svg, ">cudnn/RNN\\x01</text>");
	ck_assert_has(svg, ">\xef\xbf\xbd(\xef\xbf\xbd&amp;lt;]]&gt;.cpp:7</text>");
	free(svg);
	free(p);
	free(html);
	free(out);
	free(box);
}
END_TEST

/* 13: '||' in a formula outside a table is '||'. */
START_TEST(untrusted_double_bar_outside_a_table)
{
	char *box, *out = untrusted_run(&box, "u-bars", "4.13.0", "md,json"), *html;
	html = expect_safe_output(out);
	ck_assert_has(html, "<code>handle_r_to_c(self.scalar_type(), grad || grad)</code>");
	ck_assert_msg(!strstr(html, "\\|"), "a '\\|' is shown");
	free(html);
	free(out);
	free(box);
}
END_TEST

/* 14: bidi controls in a file name and a dispatch key are shown, not obeyed. */
START_TEST(untrusted_bidi_controls_are_shown)
{
	char *box, *out = untrusted_run(&box, "u-bidi", "4.14.0", "md,json"), *html;
	html = expect_safe_output(out);
	ck_assert_has(html, "cudnn/RNN\\u202eppc.exe.cpp");
	ck_assert_has(html, "CPU\\u202eUPC");
	free(html);
	free(out);
	free(box);
}
END_TEST


/* Start `bin ARGS` (NULL-terminated) in `cwd`, its output discarded; once
 * `gate` (may be -1) gives a byte. Returns the pid. */
static pid_t spawn_in(const char *cwd, int gate, const char *const *args)
{
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		const char *argv[32] = {bin};
		int n = 1, null = open("/dev/null", O_RDWR);
		char c;
		for (; *args && n < 31; args++)
			argv[n++] = *args;
		argv[n] = NULL;
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (gate >= 0 && read(gate, &c, 1) != 1)
			_exit(126);
		if (chdir(cwd) != 0)
			_exit(127);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* The manifest lists only files that exist, and every page index.md links to exists. */
static void expect_whole_out(const char *out)
{
	char *missing = shell("cd \"$1\" && tail -n +2 .optrace-manifest | cut -f1 | "
			      "while read -r f; do [ -f \"$f\" ] || echo \"$f\"; done; "
			      "grep -o '](ops/[^)]*)' index.md | sed 's/^](//; s/)$//' | "
			      "while read -r f; do [ -f \"$f\" ] || echo \"$f\"; done",
			      out, NULL);
	ck_assert_msg(!*missing, "out/ is half-published; missing:\n%.2000s", missing);
	free(missing);
}

/* 6: one run per out/: a second one exits 2 at once, naming the first's pid. */
START_TEST(untrusted_second_run_on_one_out)
{
	char *box = sandbox("u-lock", TWO_OPS, strlen(TWO_OPS)), *out = tu_path(box, "out");
	char *staging = tu_path(out, OT_OUTPUT_STAGING), pid_text[64];
	const char *args[] = {"-s", fixture, "-t", "2.0.0", "-q", "--all", "--format", "md,json,html", NULL};
	struct result r;
	double start;
	struct stat st;
	int status;
	pid_t first = spawn_in(box, -1, args);
	/* the first run holds out/ (its staging folder is there): stop it there */
	start = ot_clock();
	while (lstat(staging, &st) != 0) {
		ck_assert_msg(waitpid(first, &status, WNOHANG) == 0, "the first run ended too soon");
		ck_assert_msg(ot_clock() - start < 60, "the first run never made its staging folder");
		usleep(2000);
	}
	kill(first, SIGSTOP);
	start = ot_clock();
	r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "-q", NULL});
	snprintf(pid_text, sizeof(pid_text), "optrace: out/ is in use by pid %ld", (long)first);
	kill(first, SIGCONT);
	expect_fatal(&r, pid_text);
	ck_assert_msg(ot_clock() - start < 10, "the second run did not stop at once");
	result_free(&r);
	ck_assert(waitpid(first, &status, 0) == first);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "the first run: status %d", status);
	/* the first run published whole, and a later run is free to go */
	ck_assert(lstat(staging, &st) != 0);
	expect_whole_out(out);
	r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "-q", NULL});
	ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
	expect_whole_out(out);
	result_free(&r);
	free(staging);
	free(out);
	free(box);
}
END_TEST

/* 7: one 30 MB blob under 400 names: a clear error and status 2, at once,
 * never "out of memory" (under a 4 GB address-space limit: sanitizers
 * reserve more, so not under them). */
START_TEST(untrusted_blob_read_400_times)
{
	char *box = sandbox("u-big", TWO_OPS, strlen(TWO_OPS)), *before = out_digest(box), *after;
	char *script, *status, *err;
	ot_buf s = OT_BUF_INIT;
	double start = ot_clock();
	ot_buf_printf(&s, "cd \"$1\"; %s st=0; %s -s \"$2\" -t 4.7.0 -q 2> err || st=$?; echo $st > status",
		      getenv("ASAN_OPTIONS") || getenv("UBSAN_OPTIONS") ? "" : "ulimit -v 4000000;", bin);
	script = ot_buf_detach(&s);
	free(shell(script, box, untrusted, NULL));
	status = shell("cat \"$1\"/status", box, NULL);
	err = shell("cat \"$1\"/err", box, NULL);
	ck_assert_msg(!strcmp(status, "2\n"), "status %s: %.2000s", status, err);
	ck_assert_has(err, "add up to more than 1073741824 bytes, the limit of one run (see "
			   "--max-read-bytes)");
	ck_assert_msg(!strstr(err, "out of memory"), "%s", err);
	ck_assert_msg(ot_clock() - start < 30, "took %.1f s", ot_clock() - start);
	after = out_digest(box);
	ck_assert_str_eq(before, after);
	free(after);
	free(status);
	free(err);
	/* the limits are options */
	expect_fatal_keeps_out(box, fixture, "the limit of one run (see --max-read-bytes)", "-s", fixture,
			       "-t", "2.0.0", "--max-read-bytes", "4K");
	expect_fatal_keeps_out(box, fixture, "file too large", "-s", fixture, "-t", "2.0.0",
			       "--max-file-bytes", "1K");
	free(script);
	free(before);
	free(box);
}
END_TEST

/* 8: --templates files are regular files: no link, FIFO or device is read. */
START_TEST(untrusted_templates_are_regular_files)
{
	static const struct {
		const char *setup, *message;
	} cases[] = {
		{"ln -s ../secret.txt tpl/style.css", "tpl/style.css is a symbolic link"},
		{"ln -s /proc/self/environ tpl/index.md.mustache", "tpl/index.md.mustache is a symbolic link"},
		{"mkfifo tpl/page.md.mustache", "tpl/page.md.mustache is not a regular file"},
		{"ln -s /dev/zero tpl/page.md.mustache", "tpl/page.md.mustache is a symbolic link"},
		{"mknod tpl/page.md.mustache c 1 5 2>/dev/null || mkfifo tpl/page.md.mustache",
		 "tpl/page.md.mustache is not a regular file"},
		{"head -c 2000000 /dev/zero | tr '\\0' x > tpl/page.md.mustache",
		 "tpl/page.md.mustache is too large for a template"},
	};
	char *box = sandbox("u-tpl", TWO_OPS, strlen(TWO_OPS));
	free(shell("cd \"$1\" && printf 'SECRET=42\\n' > secret.txt", box, NULL));
	for (size_t i = 0; i < OT_ARRAY_LEN(cases); i++) {
		double start = ot_clock();
		free(shell("cd \"$1\" && rm -rf tpl && mkdir tpl && eval \"$2\"", box, cases[i].setup, NULL));
		expect_fatal_keeps_out(box, NULL, cases[i].message, "-s", fixture, "-t", "2.0.0",
				       "--format", "md,json,html", "--templates", "tpl");
		ck_assert_msg(ot_clock() - start < 20, "'%s' took %.1f s", cases[i].setup,
			      ot_clock() - start);
	}
	free(box);
}
END_TEST

/* 9: optrace diff's temporary file is new (mkstemp): a planted link of the
 * old name FILE.tmp.<pid> is not followed. */
START_TEST(untrusted_diff_temporary_file_is_new)
{
	char *box = sandbox("u-difftmp", TWO_OPS, strlen(TWO_OPS)), *victim = tu_path(box, "victim.txt");
	char *text, link[64];
	const char *args[] = {"diff", "1.0.0", "2.0.0", "-s", fixture, "-q", "-o", "report.md", NULL};
	int gate[2], status;
	pid_t pid;
	tu_write_file(victim, "precious\n", 9);
	ck_assert(pipe(gate) == 0);
	pid = spawn_in(box, gate[0], args);
	snprintf(link, sizeof(link), "report.md.tmp.%ld", (long)pid);
	free(shell("cd \"$1\" && ln -s victim.txt \"$2\"", box, link, NULL));
	ck_assert(write(gate[1], "x", 1) == 1);
	close(gate[0]);
	close(gate[1]);
	ck_assert(waitpid(pid, &status, 0) == pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	text = tu_read_file(victim, NULL);
	ck_assert_str_eq(text, "precious\n");
	free(text);
	text = shell("cd \"$1\" && head -c 22 report.md", box, NULL);
	ck_assert_str_eq(text, "## optrace diff: PyTor");
	free(text);
	free(victim);
	free(box);
}
END_TEST

/*
 * 10: the manifest is not trusted as it is, and -o is not any folder: a
 * planted manifest deletes no file optrace did not write; the checkout,
 * the home folder, / and a non-empty folder optrace did not make are
 * refused (unless --force), and so is a file of the user's named like a page.
 */
START_TEST(untrusted_manifest_and_output_folders)
{
	static const char *const manifests[] = {
		"# optrace manifest v1\nnotes.md\nops/torch-add.md\n",
		"# optrace manifest v2\nnotes.md\t0123456789abcdef\nops/torch-add.md\t0123456789abcdef\n",
	};
	char *box = sandbox("u-manifest", "torch.add\n", 10), *text, *clone, *d0, *d1;
	struct result r = run_box(box, fixture, "-s", fixture, "-t", "2.0.0", "-q", NULL);
	ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err); /* nn.LSTM's pages go */
	result_free(&r);
	for (size_t i = 0; i < OT_ARRAY_LEN(manifests); i++) {
		free(shell("cd \"$1\"/out && printf 'mine\\n' > notes.md && printf '%s' \"$2\" > "
			   ".optrace-manifest",
			   box, manifests[i], NULL));
		r = run_box(box, fixture, "-s", fixture, "-t", "2.0.0", "-q", NULL);
		ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
		ck_assert_has(r.err, "warning: not removing stale out/notes.md");
		result_free(&r);
		text = shell("cat \"$1\"/out/notes.md", box, NULL);
		ck_assert_str_eq(text, "mine\n");
		free(text);
	}
	/* a file of the user's where a page goes */
	free(shell("cd \"$1\" && printf 'torch.add\\nnn.LSTM\\n' > ops.list && "
		   "printf 'my notes\\n' > out/ops/nn-lstm.md", box, NULL));
	expect_fatal_keeps_out(box, fixture, "out/ops/nn-lstm.md is not a file optrace wrote", "-s",
			       fixture, "-t", "2.0.0");
	/* a non-empty folder optrace did not make; with --force it is written */
	free(shell("cd \"$1\" && mkdir mine && printf 'mine\\n' > mine/index.md", box, NULL));
	d0 = digest(box, "out");
	r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "-o", "mine", NULL});
	expect_fatal(&r, "output folder mine is not empty and optrace did not make it");
	result_free(&r);
	d1 = digest(box, "out");
	ck_assert_str_eq(d0, d1);
	r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "-q", "-o", "mine", "--force", NULL});
	ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
	result_free(&r);
	/* the checkout, a folder inside it, the home folder, / */
	clone = tu_path(box, "clone");
	free(shell("git clone -q \"$1\" \"$2\"", fixture, clone, NULL));
	r = run_box(box, clone, "-s", clone, "-t", "2.0.0", "-o", clone, NULL);
	expect_fatal(&r, "is the PyTorch checkout");
	result_free(&r);
	r = run_box(box, clone, "-s", clone, "-t", "2.0.0", "-o", "clone/docs", NULL);
	expect_fatal(&r, "output folder clone/docs is inside the PyTorch checkout");
	result_free(&r);
	text = shell("cd \"$1\" && mkdir -p home && HOME=\"$1\"/home \"$2\" -s \"$3\" -t 2.0.0 -o home "
		     "2>&1; echo \" $?\"",
		     box, bin, fixture, NULL);
	ck_assert_has(text, "output folder home is the home folder");
	ck_assert_has(text, " 2\n");
	free(text);
	/* last: the binary before the fix never gets here (it would write into /) */
	r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "--format", "json", "-o", "/", NULL});
	expect_fatal(&r, "output folder / is the root folder");
	result_free(&r);
	free(clone);
	free(d0);
	free(d1);
	free(box);
}
END_TEST

/* A time limit that sanitizer builds stretch (CK_TIMEOUT_MULTIPLIER). */
static double time_limit(double seconds)
{
	const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
	return seconds * (m && atof(m) > 1 ? atof(m) : 1);
}

/* 11: long lists take linear time: 60,000 dispatch keys, 200,000 aten names. */
START_TEST(untrusted_long_lists_stay_linear)
{
	char *box = sandbox("u-long", "aten::many\n", 11), *json;
	double start = ot_clock(), took;
	struct result r = run_box(box, untrusted, "-s", untrusted, "-t", "4.11.0", "-q", NULL);
	took = ot_clock() - start;
	ck_assert_msg(r.status <= 1, "%d: %s", r.status, r.err);
	ck_assert_msg(took < time_limit(10), "60,000 dispatch keys took %.1f s", took);
	result_free(&r);
	json = shell("cd \"$1\" && grep -c Key59999 out/trace.json", box, NULL);
	ck_assert_msg(atoi(json) > 0, "the last key is not in trace.json");
	free(json);
	/* optrace diff of one op that names 200,000 overloads */
	free(shell("cd \"$1\" && /usr/bin/python3 -c 'import json; d = json.load(open(\"out/trace.json\")); "
		   "d[\"ops\"][0][\"aten\"] = [\"name_%d.ov\" % i for i in range(200000)]; "
		   "json.dump(d, open(\"big.json\", \"w\"))'",
		   box, NULL));
	start = ot_clock();
	r = run_box(box, NULL, "diff", "big.json", "big.json", "-q", "-o", "-", NULL);
	took = ot_clock() - start;
	ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
	ck_assert_msg(took < time_limit(10), "a diff of 200,000 aten names took %.1f s", took);
	result_free(&r);
	free(box);
}
END_TEST

/* 12: optrace diff does not write through a linked out/ either. */
START_TEST(untrusted_diff_refuses_a_linked_out)
{
	char *box = sandbox("u-difflink", TWO_OPS, strlen(TWO_OPS)), *left;
	struct result r;
	free(shell("cd \"$1\" && rm -rf out && mkdir elsewhere && ln -s elsewhere out", box, NULL));
	r = run_in(box, (const char *[]){"diff", "1.0.0", "2.0.0", "-s", fixture, "-q", NULL});
	expect_fatal(&r, "output folder out is a symbolic link");
	result_free(&r);
	r = run_in(box, (const char *[]){"diff", "1.0.0", "2.0.0", "-s", fixture, "-q", "--json",
					 "out/d.json", "-o", "-", NULL});
	expect_fatal(&r, "output folder out is a symbolic link");
	result_free(&r);
	left = shell("ls -A \"$1\"/elsewhere", box, NULL);
	ck_assert_msg(!*left, "written through the link: %s", left);
	free(left);
	/* the main command refuses it the same way */
	r = run_in(box, (const char *[]){"-s", fixture, "-t", "2.0.0", "-q", NULL});
	expect_fatal(&r, "output folder out is a symbolic link");
	result_free(&r);
	free(box);
}
END_TEST

/* ---- suite ----------------------------------------------------------------------------- */

static Suite *suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("opslist");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, fixture_setup, NULL);
	tcase_add_test(tc, opslist_empty_and_comments_only);
	tcase_add_test(tc, opslist_megabyte_line);
	tcase_add_test(tc, opslist_nul_bytes_and_invalid_utf8);
	tcase_add_test(tc, opslist_crlf_is_the_same_list);
	tcase_add_test(tc, opslist_duplicates_are_one_page);
	tcase_add_test(tc, opslist_names_that_are_paths_or_code);
	tcase_add_test(tc, opslist_very_long_names);
	tcase_add_test(tc, opslist_slugs_stay_in_ops_and_short);
	suite_add_tcase(s, tc);

	tc = tcase_create("checkout");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, hostile_setup, hostile_teardown);
	tcase_add_test(tc, checkout_missing_and_clone_fails);
	tcase_add_test(tc, checkout_failed_clone_leaves_no_parent_folders);
	tcase_add_test(tc, checkout_empty_plain_or_a_file);
	tcase_add_test(tc, checkout_without_the_tag);
	tcase_add_test(tc, checkout_tag_at_a_non_commit);
	tcase_add_test(tc, checkout_corrupt_object);
	tcase_add_test(tc, checkout_without_native_functions);
	tcase_add_test(tc, checkout_native_functions_is_a_link_outside);
	tcase_add_test(tc, checkout_source_links_outside_are_not_followed);
	tcase_add_test(tc, checkout_huge_and_binary_sources);
	tcase_add_test(tc, checkout_binary_native_functions);
	tcase_add_test(tc, checkout_huge_native_functions);
	tcase_add_test(tc, yaml_truncated);
	tcase_add_test(tc, yaml_tab_indented);
	tcase_add_test(tc, yaml_wrong_types);
	tcase_add_test(tc, yaml_entry_without_func);
	tcase_add_test(tc, yaml_duplicate_keys);
	tcase_add_test(tc, yaml_deeply_nested);
	tcase_add_test(tc, yaml_alias_bomb);
	suite_add_tcase(s, tc);

	tc = tcase_create("output");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, fixture_setup, NULL);
	tcase_add_test(tc, output_not_writable);
	tcase_add_test(tc, output_is_a_file_or_a_link);
	tcase_add_test(tc, output_folder_link_inside_is_not_followed);
	tcase_add_test(tc, output_file_link_inside_is_replaced);
	tcase_add_test(tc, output_disk_full);
	tcase_add_test(tc, output_late_failure_keeps_out);
	suite_add_tcase(s, tc);

	tc = tcase_create("untrusted");
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, untrusted_setup, untrusted_teardown);
	tcase_add_test(tc, untrusted_file_name_closes_no_fence);
	tcase_add_test(tc, untrusted_cr_in_formula_and_dispatch_key);
	tcase_add_test(tc, untrusted_file_name_links_nowhere_outside);
	tcase_add_test(tc, untrusted_invalid_utf8_and_escapes);
	tcase_add_test(tc, untrusted_svg_stays_xml);
	tcase_add_test(tc, untrusted_double_bar_outside_a_table);
	tcase_add_test(tc, untrusted_bidi_controls_are_shown);
	tcase_add_test(tc, untrusted_second_run_on_one_out);
	tcase_add_test(tc, untrusted_blob_read_400_times);
	tcase_add_test(tc, untrusted_templates_are_regular_files);
	tcase_add_test(tc, untrusted_diff_temporary_file_is_new);
	tcase_add_test(tc, untrusted_manifest_and_output_folders);
	tcase_add_test(tc, untrusted_long_lists_stay_linear);
	tcase_add_test(tc, untrusted_diff_refuses_a_linked_out);
	suite_add_tcase(s, tc);

	tc = tcase_create("interrupt");
	tcase_set_timeout(tc, 1200);
	tcase_add_unchecked_fixture(tc, interrupt_setup, interrupt_teardown);
	tcase_add_test(tc, real_all_slugs_stay_in_ops_and_short);
	tcase_add_test(tc, interrupt_before_publishing_leaves_out_as_it_was);
	tcase_add_test(tc, sigkill_while_publishing_leaves_whole_files);
	tcase_add_test(tc, sigint_while_publishing_leaves_whole_files);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* plain checks: ck_assert works only inside tests */
	bin = realpath(tu_optrace(), NULL);
	if (!bin) {
		fprintf(stderr, "check_hostile: no optrace binary at %s (make first)\n", tu_optrace());
		return 1;
	}
	return tu_run_suite(suite()) ? 1 : 0;
}
