/*
 * End-to-end tests of the optrace command line that need logic rather than
 * byte comparison (those are in tests/cases/, run by check_cases): what
 * goes to stdout and stderr, progress only on a terminal, exit statuses and
 * what each leaves in the output folder, determinism across -j, the
 * `make report` flow, --version against the libraries built with.
 * Every run reads the fixture repository with an explicit release, so no
 * installed torch, network or real checkout is involved.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define MAX_ARGS 32

typedef OT_VEC(char *) strvec_t;

/* ---- helpers -------------------------------------------------------------------- */

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* A fresh scratch folder (absolute; caller frees). */
static char *scratch(const char *tag)
{
	char *rel = tu_tmpdir(tag), *abs = tu_absolute(rel);
	free(rel);
	return abs;
}

/* Write dir/name; returns the path (caller frees). */
static char *put(const char *dir, const char *name, const char *text)
{
	char *p = tu_path(dir, name);
	tu_write_file(p, text, strlen(text));
	return p;
}

/* A test's scratch folder, with an ops.list and an output folder path in it. */
struct scene {
	char *dir, *out, *list;
};

static struct scene scene(const char *tag, const char *ops)
{
	struct scene sc;
	sc.dir = scratch(tag);
	sc.out = tu_path(sc.dir, "out");
	sc.list = put(sc.dir, "ops.list", ops);
	return sc;
}

static void scene_free(struct scene *sc)
{
	free(sc->list);
	free(sc->out);
	free(sc->dir);
}

/* One run of the binary: argv after the program name, NULL-terminated. */
struct result {
	int status;
	ot_buf out, err;
};

static void result_free(struct result *r)
{
	ot_buf_free(&r->out);
	ot_buf_free(&r->err);
}

/* The binary, as an absolute path: a test may run it from another folder. */
static const char *binary(void)
{
	static char *bin;
	if (!bin) /* a missing binary fails the test that runs it */
		bin = realpath(tu_optrace(), NULL);
	return bin ? bin : tu_optrace();
}

static struct result run(const char *const *args)
{
	const char *argv[MAX_ARGS + 2];
	struct result r = {0, OT_BUF_INIT, OT_BUF_INIT};
	size_t n = 0;
	argv[n++] = binary();
	while (*args) {
		ck_assert(n < MAX_ARGS);
		argv[n++] = *args++;
	}
	argv[n] = NULL;
	r.status = tu_run(argv, &r.out, &r.err);
	return r;
}

/* The command line of a run, for failure messages. */
static const char *shown(const char *const *args)
{
	static char text[1024];
	size_t len = 0;
	text[0] = '\0';
	for (; *args && len < sizeof(text) - 1; args++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, " %s", *args);
	return text;
}

/*
 * Every line of stderr is a message of optrace's: it starts with
 * "optrace: ", or is the "Try 'optrace --help'." hint of a usage error.
 */
static void assert_messages_prefixed(const ot_buf *err, const char *what)
{
	const char *line = err->ptr;
	while (*line) {
		size_t n = strcspn(line, "\n");
		ck_assert_msg(!strncmp(line, "optrace: ", 9) ||
				      (n == 21 && !strncmp(line, "Try 'optrace --help'.", n)),
			      "%s: stderr line without the \"optrace: \" prefix: '%.*s'", what, (int)n,
			      line);
		line += n + (line[n] == '\n');
	}
}

/* diff -r: 0 when both trees hold the same files with the same bytes. */
static int diff_trees(ot_buf *report, const char *a, const char *b)
{
	const char *argv[] = {"diff", "-r", "-q", a, b, NULL};
	return tu_run(argv, report, report);
}

static void copy_tree(const char *from, const char *to)
{
	const char *argv[] = {"cp", "-R", from, to, NULL};
	ck_assert_msg(tu_run(argv, NULL, NULL) == 0, "cp -R %s %s failed", from, to);
}

/* ---- a strict JSON syntax check (RFC 8259), independent of the tool's writer ---- */

struct json {
	const char *p, *end;
	int depth;
};

static void json_ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool json_lit(struct json *j, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return false;
	j->p += n;
	return true;
}

static bool json_digits(struct json *j)
{
	const char *start = j->p;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > start;
}

static bool json_string(struct json *j)
{
	if (j->p >= j->end || *j->p != '"')
		return false;
	for (j->p++; j->p < j->end; j->p++) {
		unsigned char c = (unsigned char)*j->p;
		if (c == '"') {
			j->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (++j->p >= j->end)
				return false;
			if (*j->p == 'u') {
				for (int k = 0; k < 4; k++)
					if (++j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p))
						return false;
			} else if (!strchr("\"\\/bfnrt", *j->p)) {
				return false;
			}
		}
	}
	return false;
}

static bool json_value(struct json *j)
{
	bool ok = false;
	json_ws(j);
	if (j->p >= j->end || ++j->depth > 200)
		return false;
	if (*j->p == '{' || *j->p == '[') {
		char close = *j->p == '{' ? '}' : ']';
		bool object = close == '}';
		j->p++;
		json_ws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			ok = true;
		} else {
			for (;;) {
				if (object) {
					json_ws(j);
					if (!json_string(j))
						break;
					json_ws(j);
					if (j->p >= j->end || *j->p++ != ':')
						break;
				}
				if (!json_value(j))
					break;
				json_ws(j);
				if (j->p < j->end && *j->p == ',') {
					j->p++;
					continue;
				}
				ok = j->p < j->end && *j->p++ == close;
				break;
			}
		}
	} else if (*j->p == '"') {
		ok = json_string(j);
	} else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
		if (*j->p == '-')
			j->p++;
		if (j->p < j->end && *j->p == '0')
			j->p++;
		else if (!json_digits(j))
			return false;
		ok = true;
		if (j->p < j->end && *j->p == '.') {
			j->p++;
			ok = json_digits(j);
		}
		if (ok && j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
			j->p++;
			if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
				j->p++;
			ok = json_digits(j);
		}
	} else {
		ok = json_lit(j, "true") || json_lit(j, "false") || json_lit(j, "null");
	}
	j->depth--;
	return ok;
}

static bool json_valid(const char *text, size_t len)
{
	struct json j = {text, text + len, 0};
	if (!json_value(&j))
		return false;
	json_ws(&j);
	return j.p == j.end;
}

START_TEST(json_checker_checks)
{
	static const char *const good[] = {"{}", " [1, -2.5e+3, \"a\\u00e9\\n\", true, null] ",
					   "{\"a\": {\"b\": []}}", "0"};
	static const char *const bad[] = {"", "{", "[1,]", "{\"a\" 1}", "01", "\"\t\"", "[1] x",
					  "{'a': 1}", "nul", "1.", "\"\\x\""};
	for (size_t i = 0; i < OT_ARRAY_LEN(good); i++)
		ck_assert_msg(json_valid(good[i], strlen(good[i])), "rejected %s", good[i]);
	for (size_t i = 0; i < OT_ARRAY_LEN(bad); i++)
		ck_assert_msg(!json_valid(bad[i], strlen(bad[i])), "accepted %s", bad[i]);
}
END_TEST

/* ---- stdout carries only data ------------------------------------------------------- */

START_TEST(normal_run_prints_nothing_on_stdout)
{
	struct scene sc = scene("cli-stdout", "nn.LSTM\nF.linear\nTensor.addmm\n");
	const char *args[] = {"-t", "2.0.0", "-s", tu_fixture_repo(), "-o", sc.out, sc.list, NULL};
	struct result r = run(args);

	ck_assert_msg(r.status == 0, "status %d; stderr:\n%s", r.status, r.err.ptr);
	ck_assert_msg(r.out.size == 0, "stdout of a normal run is not empty:\n%s", r.out.ptr);
	ck_assert_msg(r.err.size > 0, "no summary on stderr");
	assert_messages_prefixed(&r.err, "normal run");
	ck_assert(exists(sc.out));
	result_free(&r);
	scene_free(&sc);
}
END_TEST

START_TEST(data_options_print_only_data)
{
	struct scene sc = scene("cli-data", "# torch-version: 2.0.0\nF.linear\n");
	const char *version[] = {"--print-version", "-t", "1.0.0", sc.list, NULL};
	const char *dump[] = {"--dump-registry", "-t", "2.0.0", "-s", tu_fixture_repo(), "-o", sc.out,
			      sc.list, NULL};
	struct result r = run(version);

	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out.ptr, "1.0.0\n");
	/* where the release was learned is a message, beside the data */
	ck_assert_str_eq(r.err.ptr, "optrace: PyTorch 1.0.0, from --torch-version\n");
	result_free(&r);

	r = run(dump);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(r.err.size == 0, "--dump-registry wrote on stderr: %s", r.err.ptr);
	ck_assert_msg(json_valid(r.out.ptr, r.out.size), "--dump-registry stdout is not valid JSON");
	/* the fixture's v2.0.0 registry has 26 entries (grep -c '^- func:') */
	ck_assert_msg(strstr(r.out.ptr, "\"funcs\": 26,") != NULL, "funcs count not 26");
	ck_assert_msg(!exists(sc.out), "--dump-registry wrote %s", sc.out);
	result_free(&r);
	scene_free(&sc);
}
END_TEST

START_TEST(every_message_is_prefixed)
{
	struct scene sc = scene("cli-prefix", "F.linear\nnn.LSTMM\nnn.Linear extra\n9lives\nF.linear\n");
	const char *fixture = tu_fixture_repo();
	char *plain = tu_absolute("tests/fixture/v2");
	const char *const runs[][12] = {
		{"--bogus", NULL},
		{"-j", NULL},
		{"-t", "3.0.0", "-s", fixture, "-o", sc.out, sc.list, NULL},
		{"-t", "2.0.0", "-s", fixture, "-o", sc.out, sc.list, NULL},
		{"-t", "2.0.0", "-s", plain, "--unverified-source", "-o", sc.out, sc.list, NULL},
		{"-t", "2.0.0", "-s", fixture, "-o", sc.out, "-v", sc.list, NULL},
	};
	for (size_t i = 0; i < OT_ARRAY_LEN(runs); i++) {
		struct result r = run(runs[i]);
		ck_assert_msg(r.err.size > 0, "%s: nothing on stderr", shown(runs[i]));
		assert_messages_prefixed(&r.err, shown(runs[i]));
		result_free(&r);
	}
	free(plain);
	scene_free(&sc);
}
END_TEST

/* ---- progress: only on a terminal ---------------------------------------------------- */

/* Run with stderr (tty_fd 2) or stdout (1) on a pseudo-terminal, the other
 * captured through a pipe, stdin /dev/null; what the terminal showed goes
 * to r.err or r.out as that stream's. */
static struct result run_tty(const char *const *args, int tty_fd)
{
	const char *argv[MAX_ARGS + 2];
	struct result r = {0, OT_BUF_INIT, OT_BUF_INIT};
	int master, slave, outpipe[2], status;
	size_t n = 0;
	pid_t pid;

	argv[n++] = binary();
	while (*args)
		argv[n++] = *args++;
	argv[n] = NULL;
	ck_assert(openpty(&master, &slave, NULL, NULL, NULL) == 0);
	ck_assert(pipe(outpipe) == 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(tty_fd == 1 ? slave : outpipe[1], 1);
		dup2(tty_fd == 1 ? outpipe[1] : slave, 2);
		close(master);
		close(outpipe[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(slave);
	close(outpipe[1]);
	/* read both until the child has closed them (a pty master reads EIO then) */
	while (master >= 0 || outpipe[0] >= 0) {
		struct pollfd fds[2] = {{master, POLLIN, 0}, {outpipe[0], POLLIN, 0}};
		char chunk[4096];
		ssize_t got;
		if (poll(fds, 2, 60000) <= 0)
			break;
		if (master >= 0 && fds[0].revents) {
			got = read(master, chunk, sizeof(chunk));
			if (got > 0)
				ot_buf_put(tty_fd == 1 ? &r.out : &r.err, chunk, (size_t)got);
			else
				close(master), master = -1;
		}
		if (outpipe[0] >= 0 && fds[1].revents) {
			got = read(outpipe[0], chunk, sizeof(chunk));
			if (got > 0)
				ot_buf_put(tty_fd == 1 ? &r.err : &r.out, chunk, (size_t)got);
			else
				close(outpipe[0]), outpipe[0] = -1;
		}
	}
	if (master >= 0)
		close(master);
	if (outpipe[0] >= 0)
		close(outpipe[0]);
	ck_assert(waitpid(pid, &status, 0) == pid);
	r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return r;
}

static struct result run_on_tty(const char *const *args)
{
	return run_tty(args, 2);
}

static bool has_progress(const ot_buf *err)
{
	return memchr(err->ptr, '\r', err->size) || strstr(err->ptr, "\033[");
}

START_TEST(progress_only_on_a_terminal)
{
	char *dir = scratch("cli-progress");
	char *out1 = tu_path(dir, "out-file"), *out2 = tu_path(dir, "out-tty"), *out3 = tu_path(dir, "out-q");
	char *list = put(dir, "ops.list", "# --all only\n");
	const char *fixture = tu_fixture_repo();
	/* --all: the fixture's 26 entries, over the 20 ops that turn progress on */
	const char *to_file[] = {"-t", "2.0.0", "-s", fixture, "-o", out1, "--all", list, NULL};
	const char *to_tty[] = {"-t", "2.0.0", "-s", fixture, "-o", out2, "--all", list, NULL};
	const char *quiet_tty[] = {"-t", "2.0.0", "-s", fixture, "-o", out3, "--all", "-q", list,
				   NULL};
	struct result r = run(to_file);

	ck_assert_msg(r.status <= 1, "status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(!has_progress(&r.err), "progress drawn on a file:\n%s", r.err.ptr);
	assert_messages_prefixed(&r.err, "--all, stderr on a file");
	result_free(&r);

	/* the control: the same run on a terminal does draw it */
	r = run_on_tty(to_tty);
	ck_assert_msg(r.status <= 1, "status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(has_progress(&r.err), "no progress on a terminal:\n%s", r.err.ptr);
	ck_assert_msg(strstr(r.err.ptr, "26/26") != NULL, "progress does not reach 26/26:\n%s",
		      r.err.ptr);
	ck_assert_msg(r.out.size == 0, "progress went to stdout");
	result_free(&r);

	r = run_on_tty(quiet_tty);
	ck_assert_msg(r.status <= 1, "status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(r.err.size == 0, "-q on a terminal still wrote:\n%s", r.err.ptr);
	result_free(&r);
	free(list);
	free(out1);
	free(out2);
	free(out3);
	free(dir);
}
END_TEST

START_TEST(quiet_is_silent)
{
	struct scene sc = scene("cli-quiet", "F.linear\nnn.LSTM\n");
	const char *args[] = {"-q", "-t", "2.0.0", "-s", tu_fixture_repo(), "-o", sc.out, sc.list, NULL};
	struct result r = run(args);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(r.out.size == 0 && r.err.size == 0, "-q printed: [%s] [%s]", r.out.ptr,
		      r.err.ptr);
	ck_assert(exists(sc.out));
	result_free(&r);
	scene_free(&sc);
}
END_TEST

/* ---- exit statuses and what each leaves behind ------------------------------------------ */

START_TEST(exit_statuses)
{
	char *dir = scratch("cli-status");
	char *good = put(dir, "good.list", "F.linear\nnn.LSTM\n");
	char *unknown = put(dir, "unknown.list", "F.linear\nnn.NoSuchModule\n");
	char *badline = put(dir, "badline.list", "F.linear\nF.linear(x)\n");
	char *missing_layer = put(dir, "layer.list", "aten::max_pool2d_with_indices\n");
	char *empty = put(dir, "empty.list", "# nothing\n");
	const char *fx = tu_fixture_repo();
	static const char *const outs[] = {"o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8"};
	struct {
		int status;
		bool writes;
		const char *args[10];
	} cases[] = {
		{0, true, {"-t", "2.0.0", "-s", fx, good, NULL}},
		{1, true, {"-t", "2.0.0", "-s", fx, unknown, NULL}},
		{1, true, {"-t", "2.0.0", "-s", fx, badline, NULL}},
		{1, true, {"-t", "2.0.0", "-s", fx, missing_layer, NULL}},
		{2, false, {"-t", "9.9.9", "-s", fx, good, NULL}},
		{2, false, {"-t", "2.0.0", "-s", fx, empty, NULL}},
		{2, false, {"-t", "2.0.0", "-s", fx, "--format", "docx", good, NULL}},
		/* an argument that is not a list is an op (here one that is not found) */
		{1, true, {"-t", "2.0.0", "-s", fx, good, "extra", NULL}},
		{2, false, {"-t", "2.0.0", "-s", fx, good, "second.list", NULL}},
	};
	for (size_t i = 0; i < OT_ARRAY_LEN(cases); i++) {
		char *out = tu_path(dir, outs[i]);
		const char *args[14];
		size_t n = 0;
		struct result r;
		args[n++] = "-o";
		args[n++] = out;
		for (size_t k = 0; cases[i].args[k]; k++)
			args[n++] = cases[i].args[k];
		args[n] = NULL;
		r = run(args);
		ck_assert_msg(r.status == cases[i].status, "%s: status %d, expected %d; stderr:\n%s",
			      shown(args), r.status, cases[i].status, r.err.ptr);
		ck_assert_msg(exists(out) == cases[i].writes, "%s: output folder %s", shown(args),
			      cases[i].writes ? "missing" : "written");
		ck_assert_msg(r.out.size == 0, "%s: stdout not empty", shown(args));
		result_free(&r);
		free(out);
	}
	free(good);
	free(unknown);
	free(badline);
	free(missing_layer);
	free(empty);
	free(dir);
}
END_TEST

START_TEST(fatal_errors_leave_out_unchanged)
{
	struct scene sc = scene("cli-unchanged", "F.linear\n");
	char *other = put(sc.dir, "other.list", "nn.LSTM\n");
	const char *fx = tu_fixture_repo();
	const char *first[] = {"-t", "2.0.0", "-s", fx, "-o", sc.out, sc.list, NULL};
	const char *const failing[][10] = {
		{"-t", "3.0.0", "-s", fx, "-o", sc.out, other, NULL},
		{"-t", "2.0.0", "-s", fx, "-o", sc.out, "--check", other, NULL},
		{"-t", "2.0.0", "-s", fx, "-o", sc.out, "-j", "0", other, NULL},
	};
	char *before = tu_path(sc.dir, "before");
	ot_buf report = OT_BUF_INIT;
	struct result r = run(first);

	ck_assert_msg(r.status == 0, "%s", r.err.ptr);
	result_free(&r);
	copy_tree(sc.out, before);
	for (size_t i = 0; i < OT_ARRAY_LEN(failing); i++) {
		r = run(failing[i]);
		ck_assert_msg(r.status != 0 || strstr(shown(failing[i]), "--check"),
			      "%s: status %d", shown(failing[i]), r.status);
		result_free(&r);
		ot_buf_clear(&report);
		ck_assert_msg(diff_trees(&report, before, sc.out) == 0, "%s changed %s:\n%s",
			      shown(failing[i]), sc.out, report.ptr);
	}
	ot_buf_free(&report);
	free(before);
	free(other);
	scene_free(&sc);
}
END_TEST

START_TEST(failed_clone_leaves_nothing)
{
	struct scene sc = scene("cli-clone", "F.linear\n");
	char *checkout = tu_path(sc.dir, "pytorch-source");
	const char *args[] = {"-t", "2.0.0", "-s", checkout, "--source-url", "file:///nonexistent",
			      "-o", sc.out, sc.list, NULL};
	struct result r = run(args);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err.ptr, "file:///nonexistent") && strstr(r.err.ptr, checkout),
		      "the message names neither the URL nor the checkout: %s", r.err.ptr);
	ck_assert_msg(!exists(checkout), "a failed clone left %s behind", checkout);
	ck_assert(!exists(sc.out));
	result_free(&r);
	free(checkout);
	scene_free(&sc);
}
END_TEST

/* ---- the pages ---------------------------------------------------------------------------- */

/*
 * The ASCII overview of a page names each layer, then its first fact: the
 * label and the symbol must stay apart whatever the label's length (the
 * longest one is "Backward", which every traced op has).
 */
START_TEST(overview_labels_stand_apart)
{
	struct scene sc = scene("cli-overview", "nn.LSTM\nTensor.addmm\naten::max_pool2d_with_indices\n");
	const char *args[] = {"-t", "2.0.0", "-s", tu_fixture_repo(), "-o", sc.out, sc.list, NULL};
	static const char *const pages[] = {"ops/nn-lstm.md", "ops/tensor-addmm.md",
					    "ops/aten-max_pool2d_with_indices.md"};
	struct result r = run(args);
	ck_assert_msg(r.status <= 1, "status %d: %s", r.status, r.err.ptr);
	for (size_t i = 0; i < OT_ARRAY_LEN(pages); i++) {
		char *path = tu_path(sc.out, pages[i]), *text = tu_read_file(path, NULL);
		char *block = strstr(text, "```text\n"), *line, *end;
		size_t rows = 0;
		ck_assert_msg(block, "%s has no overview", pages[i]);
		end = strstr(block + 8, "```");
		ck_assert(end);
		for (line = block + 8; line < end; line = strchr(line, '\n') + 1) {
			size_t label = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+");
			const char *eol = strchr(line, '\n');
			char *entry = memmem(line, (size_t)(eol - line), "  (", 3);
			rows += entry != NULL; /* a layer, a fork or a device path's layer */
			if (!label)
				continue; /* a connector, fork or device path line */
			ck_assert_msg(line[label] == ' ', "%s: overview label runs into its text: %.*s",
				      pages[i], (int)strcspn(line, "\n"), line);
		}
		ck_assert_msg(rows >= 2, "%s: %zu overview rows", pages[i], rows);
		free(text);
		free(path);
	}
	result_free(&r);
	scene_free(&sc);
}
END_TEST

/* ---- one page per op ------------------------------------------------------------------------- */

/*
 * With --all, the ops.list's spelling of an op (torch.ops.aten.mm) takes the
 * page --all would write for it (aten::mm) without an error; two list lines
 * for one page are still an error, for the second line.
 */
START_TEST(list_spelling_wins_over_all)
{
	struct scene sc = scene("cli-slugs", "torch.ops.aten.mm\n");
	char *json_path = tu_path(sc.out, "trace.json"), *json;
	struct result r;
	{
		const char *args[] = {"-t", "2.0.0", "-s", tu_fixture_repo(), "-o", sc.out, "--all",
				      "--format", "md,json", sc.list, NULL};
		r = run(args);
	}
	ck_assert_msg(r.status <= 1, "status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(!strstr(r.err.ptr, "names the same page"), "%s", r.err.ptr);
	ck_assert_msg(strstr(r.err.ptr, " 0 errors"), "%s", r.err.ptr);
	json = tu_read_file(json_path, NULL);
	ck_assert_msg(strstr(json, "\"input\": \"torch.ops.aten.mm\""), "the list's op is missing");
	ck_assert_msg(!strstr(json, "\"input\": \"aten::mm\""), "--all's aten::mm was kept too");
	ck_assert_msg(strstr(json, "\"input\": \"aten::mm.out\""), "other overloads must stay");
	free(json);
	{
		char *page = tu_path(sc.out, "ops/aten-mm.md");
		ck_assert(exists(page));
		free(page);
	}
	result_free(&r);

	free(sc.list);
	sc.list = put(sc.dir, "ops.list", "aten::mm\ntorch.ops.aten.mm\n");
	{
		const char *args[] = {"-t", "2.0.0", "-s", tu_fixture_repo(), "-o", sc.out,
				      "--format", "json", sc.list, NULL};
		r = run(args);
	}
	ck_assert_int_eq(r.status, 1);
	ck_assert_msg(strstr(r.err.ptr, "torch.ops.aten.mm: 'torch.ops.aten.mm' names the same page "
					"(ops/aten-mm.md) as 'aten::mm'"),
		      "%s", r.err.ptr);
	/* trace.json says so too: the op is an error there, with the message */
	json = tu_read_file(json_path, NULL);
	{
		const char *op = strstr(json, "\"input\": \"torch.ops.aten.mm\"");
		ck_assert_msg(op, "%s", json);
		ck_assert_msg(strstr(op, "\"status\": \"error\""), "%s", op);
		ck_assert_msg(strstr(op, "names the same page (ops/aten-mm.md) as 'aten::mm'"), "%s", op);
	}
	free(json);
	result_free(&r);
	free(json_path);
	scene_free(&sc);
}
END_TEST

/*
 * --depth: branches followed. By default 3 for the ops of a list and 1 for
 * the entries --all adds; --depth N for every op, 0 included (0 is the op
 * alone: no call is followed, not even one every default call makes).
 */
static int deepest_step(const char *json, const char *input)
{
	const char *op = strstr(json, input), *end, *p;
	int deepest = -1;
	ck_assert_msg(op, "%s is not in trace.json", input);
	end = strstr(op, "\n    }"); /* the end of this op's object */
	ck_assert(end);
	for (p = op; (p = strstr(p, "\"depth\": ")) && p < end; p++)
		if (atoi(p + 9) > deepest)
			deepest = atoi(p + 9);
	return deepest;
}

START_TEST(depth_option)
{
	struct scene sc = scene("cli-depth", "nn.LSTM\n");
	char *json_path = tu_path(sc.out, "trace.json");
	static const struct {
		const char *depth; /* NULL: not given */
		int list, all;     /* deepest step of nn.LSTM, of aten::lstm.input */
	} runs[] = {{NULL, 2, 1}, {"0", 0, 0}, {"2", 2, 2}};
	for (size_t i = 0; i < OT_ARRAY_LEN(runs); i++) {
		const char *args[16] = {"-t", "2.0.0", "-s", tu_fixture_repo(), "-o", sc.out, "--all",
					"--format", "json"};
		size_t n = 9;
		struct result r;
		char *json;
		if (runs[i].depth) {
			args[n++] = "--depth";
			args[n++] = runs[i].depth;
		}
		args[n++] = sc.list;
		r = run(args);
		ck_assert_msg(r.status <= 1, "status %d: %s", r.status, r.err.ptr);
		json = tu_read_file(json_path, NULL);
		ck_assert_int_eq(deepest_step(json, "\"input\": \"nn.LSTM\""), runs[i].list);
		ck_assert_int_eq(deepest_step(json, "\"input\": \"aten::lstm.input\""), runs[i].all);
		free(json);
		result_free(&r);
	}
	free(json_path);
	scene_free(&sc);
}
END_TEST

/* ---- determinism ------------------------------------------------------------------------- */

START_TEST(same_bytes_for_any_jobs)
{
	char *dir = scratch("cli-jobs");
	char *list = put(dir, "ops.list",
			 "nn.LSTM\ntorch.nn.Linear\nF.softmax\nF.cross_entropy\nTensor.addmm\n"
			 "torch.einsum\ntorch.linalg.vector_norm\naten::_softmax.out\n"
			 "torch.ops.aten.cumsum\ntorch.matmul !full\ntorch.zeros\nnn.LSTMM\n");
	static const char *const jobs[] = {"1", "2", "4"};
	ot_buf report = OT_BUF_INIT;
	char *first = NULL;
	for (size_t i = 0; i < OT_ARRAY_LEN(jobs); i++) {
		char name[16], *out, *json, *html;
		struct result r;
		snprintf(name, sizeof(name), "out-j%s", jobs[i]);
		out = tu_path(dir, name);
		{
			const char *args[] = {"-t", "2.0.0", "-s", tu_fixture_repo(), "-o", out,
					      "-j", jobs[i], "--all", "--format", "md,json,html",
					      list, NULL};
			r = run(args);
		}
		ck_assert_msg(r.status <= 1, "-j%s: status %d: %s", jobs[i], r.status, r.err.ptr);
		result_free(&r);
		json = tu_path(out, "trace.json");
		html = tu_path(out, "html/index.html");
		ck_assert_msg(exists(json) && exists(html), "-j%s wrote no trace.json or HTML", jobs[i]);
		free(json);
		free(html);
		ot_buf_clear(&report);
		if (!first) {
			first = out;
		} else {
			ck_assert_msg(diff_trees(&report, first, out) == 0,
				      "the output of -j%s differs from -j1:\n%s", jobs[i], report.ptr);
			free(out);
		}
	}
	ot_buf_free(&report);
	free(first);
	free(list);
	free(dir);
}
END_TEST

/* ---- the `make report` flow ----------------------------------------------------------------- */

/*
 * What `make report` does, on the fixture: ask the release of the ops.list
 * pin (no torch installed: python3 is a stand-in with an empty site folder,
 * first on PATH), then trace ./ops.list into ./out from the checkout.
 */
START_TEST(report_flow_on_the_fixture)
{
	char *dir = scratch("cli-report"), *bin = tu_path(dir, "bin"), *fixture = tu_absolute(tu_fixture_repo());
	char *optrace = tu_absolute(tu_optrace()), *cwd = tu_absolute(".");
	char *python, *json, *index, *old_path = ot_strdup(getenv("PATH") ? getenv("PATH") : "");
	ot_buf path = OT_BUF_INIT;
	struct result r;

	ck_assert(mkdir(bin, 0755) == 0);
	python = put(bin, "python3", "#!/bin/sh\nprintf '%s\\0' /nonexistent/site-packages\n");
	ck_assert(chmod(python, 0755) == 0);
	free(put(dir, "ops.list", "# torch-version: 2.0.0\nnn.LSTM\nF.linear   # a comment\n"
				  "torch.matmul !full\n"));
	ot_buf_printf(&path, "%s:%s", bin, old_path);
	setenv("PATH", path.ptr, 1);
	unsetenv("PYTHONPATH");
	ck_assert(chdir(dir) == 0);
	{
		const char *argv[] = {optrace, "--print-version", "ops.list", NULL};
		r.status = 0;
		r.out = (ot_buf)OT_BUF_INIT;
		r.err = (ot_buf)OT_BUF_INIT;
		r.status = tu_run(argv, &r.out, &r.err);
		ck_assert_msg(r.status == 0, "--print-version: %d %s", r.status, r.err.ptr);
		ck_assert_str_eq(r.out.ptr, "2.0.0\n");
		result_free(&r);
	}
	{
		const char *argv[] = {optrace, "--source", fixture, "-o", "out", "ops.list", NULL};
		r.out = (ot_buf)OT_BUF_INIT;
		r.err = (ot_buf)OT_BUF_INIT;
		r.status = tu_run(argv, &r.out, &r.err);
	}
	ck_assert(chdir(cwd) == 0);
	setenv("PATH", old_path, 1);

	ck_assert_msg(r.status == 0, "report: status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(r.out.size == 0, "report printed on stdout: %s", r.out.ptr);
	json = tu_path(dir, "out/trace.json");
	index = tu_path(dir, "out/index.md");
	{
		size_t len;
		char *text = tu_read_file(json, &len), *idx = tu_read_file(index, NULL);
		ck_assert(json_valid(text, len));
		ck_assert_msg(strstr(text, "\"version\": \"2.0.0\",\n    \"tag\": \"v2.0.0\",") != NULL,
			      "trace.json is not of v2.0.0");
		ck_assert(strstr(text, "\"input\": \"nn.LSTM\""));
		ck_assert(strstr(text, "\"input\": \"F.linear\""));
		ck_assert(strstr(text, "\"input\": \"torch.matmul\""));
		ck_assert(strstr(idx, "ops/nn-lstm.md"));
		free(text);
		free(idx);
	}
	for (size_t i = 0; i < 3; i++) {
		static const char *const pages[] = {"out/ops/nn-lstm.md", "out/ops/f-linear.md",
						    "out/ops/torch-matmul.md"};
		char *p = tu_path(dir, pages[i]);
		ck_assert_msg(exists(p), "%s missing", p);
		free(p);
	}
	result_free(&r);
	ot_buf_free(&path);
	free(json);
	free(index);
	free(python);
	free(old_path);
	free(cwd);
	free(optrace);
	free(fixture);
	free(bin);
	free(dir);
}
END_TEST

/* ---- ops on the command line and on stdin ------------------------------------------------------ */

/* The inputs of trace.json in `out`, space-separated, in file order. */
static char *inputs_of(const char *out)
{
	char *json = tu_path(out, "trace.json"), *text = tu_read_file(json, NULL);
	ot_buf b = OT_BUF_INIT;
	for (const char *s = text; (s = strstr(s, "\"input\": \"")); ) {
		s += strlen("\"input\": \"");
		ot_buf_printf(&b, "%s%.*s", b.size ? " " : "", (int)strcspn(s, "\""), s);
	}
	free(json);
	free(text);
	return ot_buf_detach(&b);
}

START_TEST(ops_as_arguments)
{
	struct scene sc = scene("cli-args", "# torch-version: 2.0.0\ntorch.matmul\n");
	char *fx = tu_absolute(tu_fixture_repo());
	/* a python3 that has no torch: the release comes from the pin, whatever is installed */
	char *py = put(sc.dir, "python3", "#!/bin/sh\nprintf '%s\\0' /nonexistent/site-packages\n");
	/* OP arguments and --op; ./ops.list (the scene's) lends only its pin */
	const char *args[] = {"--python", py, "-s", fx, "-o", sc.out, "F.linear", "--op", "nn.LSTM", NULL};
	struct result r;
	char *cwd = tu_absolute("."), *got;

	ck_assert(chmod(py, 0755) == 0);

	ck_assert(chdir(sc.dir) == 0);
	r = run(args);
	ck_assert(chdir(cwd) == 0);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err.ptr);
	got = inputs_of(sc.out);
	ck_assert_str_eq(got, "F.linear nn.LSTM");
	free(got);
	result_free(&r);

	/* with a list named, both */
	{
		const char *both[] = {"-t", "2.0.0", "-s", fx, "-o", sc.out, sc.list, "nn.LSTM", NULL};
		r = run(both);
		ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err.ptr);
		got = inputs_of(sc.out);
		ck_assert_str_eq(got, "nn.LSTM torch.matmul");
		free(got);
		result_free(&r);
	}
	/* a malformed name is reported where it stands, like a list's line */
	{
		const char *bad[] = {"-t", "2.0.0", "-s", fx, "-o", sc.out, "F.linear", "F.linear(x)", NULL};
		r = run(bad);
		ck_assert_msg(r.status == 1, "status %d: %s", r.status, r.err.ptr);
		ck_assert_msg(strstr(r.err.ptr, "optrace: command line:2:"), "%s", r.err.ptr);
		result_free(&r);
	}
	free(cwd);
	free(fx);
	free(py);
	scene_free(&sc);
}
END_TEST

START_TEST(ops_list_on_stdin)
{
	char *dir = scratch("cli-stdin"), *out = tu_path(dir, "out"), *got;
	ot_buf cmd = OT_BUF_INIT, err = OT_BUF_INIT;
	int status;
	ot_buf_printf(&cmd, "printf 'F.linear\\nF.linear(x)\\nnn.LSTM\\n' | '%s' -t 2.0.0 -s '%s' -o '%s' -",
		      binary(), tu_fixture_repo(), out);
	status = tu_run((const char *[]){"sh", "-c", cmd.ptr, NULL}, NULL, &err);
	ck_assert_msg(status == 1, "status %d: %s", status, err.ptr);
	ck_assert_msg(strstr(err.ptr, "optrace: <stdin>:2:"), "%s", err.ptr);
	got = inputs_of(out);
	ck_assert_str_eq(got, "F.linear nn.LSTM");
	free(got);
	ot_buf_free(&cmd);
	ot_buf_free(&err);
	free(out);
	free(dir);
}
END_TEST

/* -o - cannot mean stdout for a folder: refused, and no folder "-" appears */
START_TEST(out_dash_is_refused)
{
	char *dir = scratch("cli-dash"), *cwd = tu_absolute("."), *dash = tu_path(dir, "-");
	const char *args[] = {"-t", "2.0.0", "-s", tu_fixture_repo(), "-o", "-", "F.linear", NULL};
	struct result r;
	ck_assert(chdir(dir) == 0);
	r = run(args);
	ck_assert(chdir(cwd) == 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err.ptr, "optrace: -o names the output folder") &&
			      strstr(r.err.ptr, "optrace show OP"),
		      "%s", r.err.ptr);
	ck_assert(!exists(dash));
	result_free(&r);
	free(dash);
	free(cwd);
	free(dir);
}
END_TEST

/* What was not found is said with -q too, in the order of the list's lines. */
START_TEST(not_found_in_list_order_even_quiet)
{
	struct scene sc = scene("cli-order", "nn.Zzzz\nF.linear\nF.aaaa_nothing\n");
	const char *args[] = {"-q", "-t", "2.0.0", "-s", tu_fixture_repo(), "-o", sc.out, sc.list, NULL};
	struct result r = run(args);
	const char *z, *a;
	ck_assert_int_eq(r.status, 1);
	z = strstr(r.err.ptr, ":1: nn.Zzzz: not found");
	a = strstr(r.err.ptr, ":3: F.aaaa_nothing: not found");
	ck_assert_msg(z && a && z < a, "not in list order:\n%s", r.err.ptr);
	ck_assert_msg(!strstr(r.err.ptr, " ops: "), "-q printed the summary:\n%s", r.err.ptr);
	assert_messages_prefixed(&r.err, "-q");
	result_free(&r);
	scene_free(&sc);
}
END_TEST

START_TEST(usage_errors_point_to_their_command)
{
	static const struct {
		const char *args[4];
		const char *message, *hint;
	} runs[] = {
		{{"--verison", NULL}, "unknown option '--verison' (did you mean '--version'?)",
		 "Try 'optrace --help'."},
		{{"--fromat=md", NULL}, "unknown option '--fromat=md' (did you mean '--format'?)",
		 "Try 'optrace --help'."},
		{{"diff", "--jsn", "x", NULL}, "unknown option '--jsn' (did you mean '--json'?)",
		 "Try 'optrace diff --help'."},
		{{"diff", "1.0.0", NULL}, "diff needs two releases", "Try 'optrace diff --help'."},
		{{"show", "--bogus", NULL}, "unknown option '--bogus'\n", "Try 'optrace show --help'."},
		{{"show", NULL}, "show needs the op to show", "Try 'optrace show --help'."},
		{{"show", "nn.LSTM", "F.linear", NULL}, "show shows one op", "Try 'optrace show --help'."},
	};
	for (size_t i = 0; i < OT_ARRAY_LEN(runs); i++) {
		struct result r = run(runs[i].args);
		ck_assert_msg(r.status == 2, "%s: status %d", shown(runs[i].args), r.status);
		ck_assert_msg(strstr(r.err.ptr, runs[i].message), "%s: %s", shown(runs[i].args), r.err.ptr);
		ck_assert_msg(ot_ends_with(r.err.ptr, runs[i].hint) || strstr(r.err.ptr, runs[i].hint),
			      "%s: %s", shown(runs[i].args), r.err.ptr);
		result_free(&r);
	}
}
END_TEST

/* ---- optrace show ------------------------------------------------------------------------------- */

START_TEST(show_prints_one_op)
{
	const char *fx = tu_fixture_repo();
	const char *args[] = {"show", "-t", "2.0.0", "-s", fx, "nn.LSTM", NULL};
	struct result r = run(args);
	ck_assert_msg(r.status <= 1, "status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(ot_starts_with(r.out.ptr, "nn.LSTM  (module, traced)\n"), "%s", r.out.ptr);
	{
		const char *cpu = strstr(r.out.ptr, "\nCPU main path\n"),
			   *cuda = strstr(r.out.ptr, "\nCUDA main path\n");
		ck_assert_msg(cpu && cuda && cpu < cuda, "%s", r.out.ptr);
	}
	ck_assert_msg(strstr(r.out.ptr, "(torch/nn/modules/rnn.py:"), "no file:line: %s", r.out.ptr);
	ck_assert_msg(!strchr(r.out.ptr, '\033'), "colour on a pipe");
	result_free(&r);

	/* an unknown op: said on stderr, nothing on stdout */
	{
		const char *unknown[] = {"show", "-t", "2.0.0", "-s", fx, "nn.LSTMM", NULL};
		r = run(unknown);
		ck_assert_int_eq(r.status, 1);
		ck_assert_str_eq(r.out.ptr, "");
		ck_assert_msg(strstr(r.err.ptr, "optrace: nn.LSTMM: not found (did you mean nn.LSTM"),
			      "%s", r.err.ptr);
		result_free(&r);
	}
}
END_TEST

START_TEST(show_colours_only_a_terminal_without_no_color)
{
	const char *args[] = {"show", "-t", "2.0.0", "-s", tu_fixture_repo(), "nn.LSTM", NULL};
	struct result r;
	unsetenv("NO_COLOR");
	r = run_tty(args, 1);
	ck_assert_msg(r.status <= 1, "status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(strstr(r.out.ptr, "\033[1mCPU main path\033[0m"), "no colour on a terminal:\n%s",
		      r.out.ptr);
	result_free(&r);
	setenv("NO_COLOR", "1", 1);
	r = run_tty(args, 1);
	unsetenv("NO_COLOR");
	ck_assert_msg(r.status <= 1, "status %d: %s", r.status, r.err.ptr);
	ck_assert_msg(strstr(r.out.ptr, "CPU main path") && !strchr(r.out.ptr, '\033'),
		      "colour with NO_COLOR:\n%s", r.out.ptr);
	result_free(&r);
}
END_TEST

/* Every line of `text` without its leading blanks. */
static char *unindented(const char *text)
{
	ot_buf b = OT_BUF_INIT;
	for (const char *l = text; *l;) {
		size_t n;
		while (*l == ' ')
			l++;
		n = strcspn(l, "\n");
		ot_buf_put(&b, l, n);
		ot_buf_putc(&b, '\n');
		l += n + (l[n] == '\n');
	}
	return ot_buf_detach(&b);
}

/* --json: the op's object of trace.json, as a run writes it there */
START_TEST(show_json_is_the_trace_json_object)
{
	struct scene sc = scene("cli-show-json", "nn.LSTM\n");
	const char *fx = tu_fixture_repo();
	const char *show[] = {"show", "--json", "-t", "2.0.0", "-s", fx, "nn.LSTM", NULL};
	const char *write[] = {"-t", "2.0.0", "-s", fx, "-o", sc.out, "--format", "json", sc.list, NULL};
	struct result r = run(show), w = run(write);
	char *json = tu_path(sc.out, "trace.json"), *file, *a, *b;
	ck_assert_msg(r.status <= 1 && w.status <= 1, "%d %d: %s %s", r.status, w.status, r.err.ptr,
		      w.err.ptr);
	ck_assert_msg(json_valid(r.out.ptr, r.out.size), "not JSON:\n%s", r.out.ptr);
	ck_assert(ot_starts_with(r.out.ptr, "{\n  \"input\": \"nn.LSTM\",\n"));
	file = tu_read_file(json, NULL);
	a = unindented(r.out.ptr);
	b = unindented(file);
	ck_assert_msg(strstr(b, a), "the object differs from trace.json's");
	free(a);
	free(b);
	free(file);
	free(json);
	result_free(&r);
	result_free(&w);
	scene_free(&sc);
}
END_TEST

/* ---- man pages and bash completion --------------------------------------------------------------- */

/* The long options of `optrace [cmd] --help`: the first "--name" of each
 * option row (rows start "  -x, --" or "      --"), space-separated. */
static strvec_t help_options(const char *cmd)
{
	const char *args[] = {cmd, "--help", NULL}, *noargs[] = {"--help", NULL};
	struct result r = run(cmd ? args : noargs);
	strvec_t v = {0};
	ck_assert_int_eq(r.status, 0);
	for (const char *l = r.out.ptr; *l;) {
		size_t n = strcspn(l, "\n");
		const char *o = NULL;
		if (!strncmp(l, "      --", 8))
			o = l + 6;
		else if (l[0] == ' ' && l[1] == ' ' && l[2] == '-' && l[3] != '-' && !strncmp(l + 4, ", --", 4))
			o = l + 6;
		if (o)
			ot_vec_push(&v, ot_strndup(o, strspn(o, "-abcdefghijklmnopqrstuvwxyz")));
		l += n + (l[n] == '\n');
	}
	ck_assert_msg(v.len > 8, "--help of %s lists %zu options", cmd ? cmd : "optrace", v.len);
	result_free(&r);
	return v;
}

static void strvec_t_free(strvec_t *v)
{
	for (size_t i = 0; i < v->len; i++)
		free(v->items[i]);
	ot_vec_free(v);
}

/* build/man/NAME or build/NAME: beside the binary */
static char *beside_binary(const char *rel)
{
	char *dir = ot_strdup(binary()), *slash = strrchr(dir, '/'), *p;
	if (slash)
		*slash = '\0';
	p = tu_path(slash ? dir : ".", rel);
	free(dir);
	return p;
}

/* Each man page renders with man -l and names every option of its --help. */
START_TEST(man_pages_render)
{
	static const struct {
		const char *page, *cmd, *title;
	} pages[] = {{"man/optrace.1", NULL, "OPTRACE(1)"},
		     {"man/optrace-diff.1", "diff", "OPTRACE-DIFF(1)"},
		     {"man/optrace-show.1", "show", "OPTRACE-SHOW(1)"}};
	setenv("MANWIDTH", "100", 1);
	setenv("LC_ALL", "C", 1);
	setenv("MANPAGER", "cat", 1);
	for (size_t i = 0; i < OT_ARRAY_LEN(pages); i++) {
		char *page = beside_binary(pages[i].page);
		const char *argv[] = {"man", "-l", page, NULL};
		ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
		strvec_t opts = help_options(pages[i].cmd);
		ck_assert_msg(exists(page), "%s is missing: `make docs` makes it", page);
		ck_assert_msg(tu_run(argv, &out, &err) == 0, "man -l %s failed: %s", page, err.ptr);
		ck_assert_msg(ot_starts_with(out.ptr, pages[i].title), "%s:\n%.300s", page, out.ptr);
		ck_assert_msg(strstr(out.ptr, "SYNOPSIS") && strstr(out.ptr, "SEE ALSO"), "%s", page);
		for (size_t k = 0; k < opts.len; k++) {
			ot_buf row = OT_BUF_INIT;
			ot_buf_printf(&row, "%s", opts.items[k]);
			ck_assert_msg(strstr(out.ptr, row.ptr), "%s does not name %s", page, row.ptr);
			ot_buf_free(&row);
		}
		strvec_t_free(&opts);
		ot_buf_free(&out);
		ot_buf_free(&err);
		free(page);
	}
}
END_TEST

/* The completion offers every option of each command's --help, and what
 * an option's argument is. */
START_TEST(completion_lists_every_option)
{
	static const char *const cmds[] = {NULL, "diff", "show"};
	char *file = beside_binary("optrace.bash-completion");
	ck_assert_msg(exists(file), "%s is missing: `make docs` makes it", file);
	for (size_t i = 0; i < OT_ARRAY_LEN(cmds); i++) {
		ot_buf script = OT_BUF_INIT, out = OT_BUF_INIT, err = OT_BUF_INIT;
		strvec_t opts = help_options(cmds[i]);
		ot_buf_printf(&script,
			      "source '%s'; COMP_WORDS=(optrace %s --); COMP_CWORD=%d; _optrace; "
			      "printf '%%s\\n' \"${COMPREPLY[@]}\"",
			      file, cmds[i] ? cmds[i] : "", cmds[i] ? 2 : 1);
		ck_assert_msg(tu_run((const char *[]){"bash", "-c", script.ptr, NULL}, &out, &err) == 0,
			      "%s", err.ptr);
		for (size_t k = 0; k < opts.len; k++) {
			ot_buf line = OT_BUF_INIT;
			ot_buf_printf(&line, "\n%s\n", opts.items[k]);
			ck_assert_msg(strstr(out.ptr, line.ptr + 1) == out.ptr ||
					      strstr(out.ptr, line.ptr),
				      "the completion of 'optrace %s' lacks %s:\n%s",
				      cmds[i] ? cmds[i] : "", opts.items[k], out.ptr);
			ot_buf_free(&line);
		}
		strvec_t_free(&opts);
		ot_buf_free(&script);
		ot_buf_free(&out);
		ot_buf_free(&err);
	}
	{
		/* an option's argument: --format's words, a folder for --source */
		ot_buf script = OT_BUF_INIT, out = OT_BUF_INIT;
		ot_buf_printf(&script, "source '%s'; COMP_WORDS=(optrace --format m); COMP_CWORD=2; "
				       "_optrace; printf '%%s\\n' \"${COMPREPLY[@]}\"", file);
		ck_assert(tu_run((const char *[]){"bash", "-c", script.ptr, NULL}, &out, NULL) == 0);
		ck_assert_str_eq(out.ptr, "md\nmd,json\nmd,json,html\n");
		ot_buf_free(&script);
		ot_buf_free(&out);
	}
	free(file);
}
END_TEST

/* make install puts the binary, the templates, the man pages and the completion in place. */
START_TEST(install_puts_docs_in_place)
{
	char *dir = scratch("cli-install"), *cwd = tu_absolute(".");
	ot_buf dest = OT_BUF_INIT, err = OT_BUF_INIT, build = OT_BUF_INIT;
	char *bindir = ot_strdup(binary()), *slash = strrchr(bindir, '/');
	static const char *const files[] = {"/usr/bin/optrace", "/usr/share/man/man1/optrace.1",
					    "/usr/share/man/man1/optrace-diff.1",
					    "/usr/share/man/man1/optrace-show.1",
					    "/usr/share/bash-completion/completions/optrace",
					    "/usr/share/optrace/templates/page.md.mustache"};
	*slash = '\0';
	ot_buf_printf(&dest, "DESTDIR=%s", dir);
	/* BUILD: the folder of the binary under test, relative to the checkout */
	ot_buf_printf(&build, "BUILD=%s", ot_starts_with(bindir, cwd) ? bindir + strlen(cwd) + 1 : bindir);
	ck_assert_msg(tu_run((const char *[]){"make", "-s", "--no-print-directory", build.ptr, "PREFIX=/usr",
					      dest.ptr, "install", NULL},
			     NULL, &err) == 0,
		      "make install: %s", err.ptr);
	for (size_t i = 0; i < OT_ARRAY_LEN(files); i++) {
		char *p = tu_path(dir, files[i] + 1);
		ck_assert_msg(exists(p), "make install left out %s", files[i]);
		free(p);
	}
	ot_buf_free(&dest);
	ot_buf_free(&err);
	ot_buf_free(&build);
	free(bindir);
	free(cwd);
	free(dir);
}
END_TEST

/* ---- the torch Debian ships ------------------------------------------------------------------ */

/*
 * python3-torch (installed by `make deps`) is seen by /usr/bin/python3, and
 * its own files say 1.13.0a0: the release comes from dpkg's record.
 */
START_TEST(debian_python3_torch)
{
	const char *query[] = {"dpkg-query", "-W", "-f=${Status} ${Version}", "python3-torch", NULL};
	const char *args[] = {"--print-version", "--python", "/usr/bin/python3", NULL};
	ot_buf q = OT_BUF_INIT, want = OT_BUF_INIT;
	const char *version;
	struct result r;

	ck_assert_msg(tu_run(query, &q, NULL) == 0 && ot_starts_with(q.ptr, "install ok installed "),
		      "python3-torch is not installed: `make deps` installs it (%s)", q.ptr);
	version = q.ptr + strlen("install ok installed ");
	unsetenv("OPTRACE_DPKG_ADMINDIR");
	unsetenv("PYTHONPATH");
	r = run(args);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err.ptr);
	/* Debian's 1.13.1+dfsg-4: the upstream part, without the repack suffix */
	ck_assert_msg(ot_starts_with(version, "1.13.1+"), "python3-torch is %s, not 1.13.1", version);
	ck_assert_str_eq(r.out.ptr, "1.13.1\n");
	ot_buf_printf(&want, "optrace: PyTorch 1.13.1, from dpkg: python3-torch %s (", version);
	ck_assert_msg(ot_starts_with(r.err.ptr, want.ptr), "stderr: %s, not %s...", r.err.ptr, want.ptr);
	result_free(&r);
	ot_buf_free(&q);
	ot_buf_free(&want);
}
END_TEST

/* ---- --help, --version, usage errors --------------------------------------------------------- */

START_TEST(help_goes_to_stdout)
{
	const char *long_form[] = {"--help", NULL}, *short_form[] = {"-h", NULL};
	struct result a = run(long_form), b = run(short_form);
	ck_assert_int_eq(a.status, 0);
	ck_assert_int_eq(b.status, 0);
	ck_assert_msg(a.err.size == 0 && b.err.size == 0, "--help wrote on stderr");
	ck_assert(ot_starts_with(a.out.ptr, "Usage: optrace "));
	ck_assert(ot_buf_equal(&a.out, &b.out));
	/* every option the README's table names is in the help */
	static const char *const options[] = {"--torch-version", "--source", "--out", "--jobs",
					      "--all", "--full", "--format", "--templates",
					      "--base-url", "--check", "--quiet", "--verbose",
					      "--version", "--unverified-source", "--source-url"};
	for (size_t i = 0; i < OT_ARRAY_LEN(options); i++)
		ck_assert_msg(strstr(a.out.ptr, options[i]), "--help does not mention %s", options[i]);
	result_free(&a);
	result_free(&b);
}
END_TEST

/* `pkg-config --modversion pkg`, the version the binary was built against. */
static char *pkg_version(const char *pkg)
{
	const char *argv[] = {"pkg-config", "--modversion", pkg, NULL};
	ot_buf out = OT_BUF_INIT;
	ck_assert_msg(tu_run(argv, &out, NULL) == 0, "pkg-config --modversion %s failed", pkg);
	ot_buf_truncate(&out, strcspn(out.ptr, "\n"));
	return ot_buf_detach(&out);
}

START_TEST(version_names_the_libraries)
{
	static const struct {
		const char *label, *pkg;
	} libs[] = {{"libgit2 ", "libgit2"},
		    {"libyaml ", "yaml-0.1"},
		    {"cmark-gfm ", "libcmark-gfm"},
		    {"graphviz ", "libgvc"},
		    {"pcre2 ", "libpcre2-8"}};
	const char *args[] = {"--version", NULL};
	struct result r = run(args);
	const char *second;
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(r.err.size == 0, "--version wrote on stderr");
	ck_assert(ot_starts_with(r.out.ptr, "optrace 0.1.0\n"));
	second = strchr(r.out.ptr, '\n') + 1;
	for (size_t i = 0; i < OT_ARRAY_LEN(libs); i++) {
		char *want = pkg_version(libs[i].pkg);
		const char *at = strstr(second, libs[i].label);
		ck_assert_msg(at, "--version does not name %s: %s", libs[i].label, second);
		at += strlen(libs[i].label);
		ck_assert_msg(ot_starts_with(at, want), "%s: --version says '%.20s', pkg-config %s",
			      libs[i].label, at, want);
		free(want);
	}
	result_free(&r);
}
END_TEST

START_TEST(usage_errors)
{
	char *dir = scratch("cli-usage");
	char *list = put(dir, "ops.list", "F.linear\n");
	const char *fx = tu_fixture_repo();
	const char *const runs[][10] = {
		{"--bogus", NULL},
		{"-x", NULL},
		{"--torch-version", NULL},
		{"-o", NULL},
		{"-j", "0", NULL},
		{"-j", "65", NULL},
		{"-j", "4x", NULL},
		{"--jobs=", NULL},
		{"--format", "md,pdf", NULL},
		{"--format", "", NULL},
		{"--depth", "9", NULL},
		{"-t", "2.0.0", "-s", fx, list, "more.list", NULL},
	};
	for (size_t i = 0; i < OT_ARRAY_LEN(runs); i++) {
		char *out = tu_path(dir, "out");
		const char *args[14];
		size_t n = 0;
		struct result r;
		args[n++] = "-o";
		args[n++] = out;
		for (size_t k = 0; runs[i][k]; k++)
			args[n++] = runs[i][k];
		args[n] = NULL;
		r = run(args);
		ck_assert_msg(r.status == 2, "%s: status %d", shown(args), r.status);
		ck_assert_msg(r.out.size == 0, "%s: stdout not empty", shown(args));
		ck_assert_msg(ot_starts_with(r.err.ptr, "optrace: ") &&
				      ot_ends_with(r.err.ptr, "\nTry 'optrace --help'.\n") &&
				      strchr(r.err.ptr, '\n') + 1 == strstr(r.err.ptr, "Try"),
			      "%s: not a one-line usage error:\n%s", shown(args), r.err.ptr);
		ck_assert_msg(!exists(out), "%s: wrote %s", shown(args), out);
		result_free(&r);
		free(out);
	}
	free(list);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");
	binary(); /* resolved before any test changes its folder */
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, json_checker_checks);
	tcase_add_test(tc, normal_run_prints_nothing_on_stdout);
	tcase_add_test(tc, data_options_print_only_data);
	tcase_add_test(tc, every_message_is_prefixed);
	tcase_add_test(tc, progress_only_on_a_terminal);
	tcase_add_test(tc, quiet_is_silent);
	tcase_add_test(tc, exit_statuses);
	tcase_add_test(tc, fatal_errors_leave_out_unchanged);
	tcase_add_test(tc, failed_clone_leaves_nothing);
	tcase_add_test(tc, overview_labels_stand_apart);
	tcase_add_test(tc, list_spelling_wins_over_all);
	tcase_add_test(tc, depth_option);
	tcase_add_test(tc, same_bytes_for_any_jobs);
	tcase_add_test(tc, report_flow_on_the_fixture);
	tcase_add_test(tc, help_goes_to_stdout);
	tcase_add_test(tc, version_names_the_libraries);
	tcase_add_test(tc, usage_errors);
	tcase_add_test(tc, debian_python3_torch);
	tcase_add_test(tc, ops_as_arguments);
	tcase_add_test(tc, ops_list_on_stdin);
	tcase_add_test(tc, out_dash_is_refused);
	tcase_add_test(tc, not_found_in_list_order_even_quiet);
	tcase_add_test(tc, usage_errors_point_to_their_command);
	tcase_add_test(tc, show_prints_one_op);
	tcase_add_test(tc, show_colours_only_a_terminal_without_no_color);
	tcase_add_test(tc, show_json_is_the_trace_json_object);
	tcase_add_test(tc, man_pages_render);
	tcase_add_test(tc, completion_lists_every_option);
	tcase_add_test(tc, install_puts_docs_in_place);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
