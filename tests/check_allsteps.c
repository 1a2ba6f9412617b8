/*
 * check_allsteps.c - every step of every op, at both real releases.
 *
 * Runs the real binary with --all (every native_functions.yaml entry, plus
 * the repository's ops.list for the user-facing strategies) at v1.13.1 and
 * v2.6.0 and checks each step of trace.json on its own, without optrace's
 * code: a found step's file exists at the tag and its 1-based line contains
 * the step's symbol (the files are read with one `git cat-file --batch`
 * per release); parents point backwards; a step that was not found has a
 * null file and line and a note "not found: ...".
 *
 * It also prints, per release, how many ops have each layer found, only
 * not found, or absent, and how many ops end in each status.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "testutil.h"
#include "value.h"
#include "yamldoc.h"

#define MAX_SHOWN 40

static const char *const LAYERS[] = {"python", "bridge", "yaml",   "cpp",      "meta",
				     "stub",   "kernel", "cuda",   "backward", "decomposition"};
#define NLAYERS OT_ARRAY_LEN(LAYERS)

static const char *const STATUSES[] = {"traced", "well-known", "not-found", "error"};
#define NSTATUSES OT_ARRAY_LEN(STATUSES)

/* One source file at the tag, split into lines. */
struct source {
	const char *path;
	bool exists;
	const char *text; /* into the cat-file output */
	OT_VEC(size_t) starts; /* offset of each line */
	size_t len;
};

struct run {
	const char *release;
	ot_arena *arena;
	ot_value *root;
	ot_map *files; /* path -> struct source * */
	ot_buf blobs;  /* the whole cat-file output */
	ot_buf failures;
	size_t nfailures;
};

static int index_of(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

static void flag(struct run *r, const char *fmt, ...) OT_PRINTF(2, 3);
static void flag(struct run *r, const char *fmt, ...)
{
	va_list ap;
	if (r->nfailures++ >= MAX_SHOWN)
		return;
	ot_buf_puts(&r->failures, "  ");
	va_start(ap, fmt);
	ot_buf_vprintf(&r->failures, fmt, ap);
	va_end(ap);
	ot_buf_putc(&r->failures, '\n');
}

/* ---- running optrace and reading trace.json -------------------------------------------- */

static void run_optrace(struct run *r, double *seconds)
{
	char *dir = tu_tmpdir("allsteps"), *out = tu_path(dir, "out");
	r->root = tu_run_trace(r->arena, out, r->release, (const char *[]){"--all", "ops.list", NULL},
			       seconds);
	free(out);
	free(dir);
}

static const char *member_str(const ot_value *map, const char *k)
{
	const ot_value *v = ot_v_get(map, k);
	return v && v->type == OT_V_STR ? ot_v_cstr(v) : NULL;
}

/* ---- the sources at the tag: one git cat-file --batch for all of them -------------------- */

static void collect_files(struct run *r, const ot_value *ops)
{
	for (size_t i = 0; i < ot_v_len(ops); i++) {
		const ot_value *steps = ot_v_get(ot_v_at(ops, i), "steps");
		for (size_t j = 0; j < ot_v_len(steps); j++) {
			const char *file = member_str(ot_v_at(steps, j), "file");
			if (file && !ot_map_get(r->files, file)) {
				struct source *s = ot_arena_alloc(r->arena, sizeof(*s));
				s->path = file;
				ot_map_put(r->files, file, s);
			}
		}
	}
}

static void load_sources(struct run *r)
{
	char *dir = tu_tmpdir("allsteps-req");
	ot_buf req = OT_BUF_INIT, reqpath = OT_BUF_INIT, err = OT_BUF_INIT;
	const char *argv[] = {"sh", "-c", "exec git -C \"$0\" cat-file --batch < \"$1\"",
			      tu_real_source(), NULL, NULL};
	size_t pos = 0, n = ot_map_len(r->files);
	int rc;

	for (size_t i = 0; i < n; i++)
		ot_buf_printf(&req, "v%s:%s\n", r->release, ot_map_key_at(r->files, i));
	ot_buf_printf(&reqpath, "%s/requests", dir);
	tu_write_file(reqpath.ptr, req.ptr, req.size);
	argv[4] = reqpath.ptr;
	rc = tu_run(argv, &r->blobs, &err);
	ck_assert_msg(rc == 0, "git cat-file --batch: %s", err.ptr);

	/* answers come in request order: "<oid> <type> <size>\n<bytes>\n" or "<spec> missing\n" */
	for (size_t i = 0; i < n; i++) {
		struct source *s = ot_map_value_at(r->files, i);
		const char *start = r->blobs.ptr + pos, *nl = memchr(start, '\n', r->blobs.size - pos);
		char type[16], *hdr;
		unsigned long long size;
		int fields;
		ck_assert_msg(nl != NULL, "cat-file output ends early at %s", s->path);
		hdr = ot_strndup(start, (size_t)(nl - start)); /* sscanf must not run into the data */
		fields = sscanf(hdr, "%*s %15s %llu", type, &size);
		free(hdr);
		pos = (size_t)(nl - r->blobs.ptr) + 1;
		if (fields != 2 || strcmp(type, "blob")) {
			s->exists = false; /* "missing", or a tree */
			if (fields == 2)
				pos += (size_t)size + 1;
			continue;
		}
		ck_assert(pos + size <= r->blobs.size);
		s->exists = true;
		s->text = r->blobs.ptr + pos;
		s->len = (size_t)size;
		ot_vec_push(&s->starts, (size_t)0);
		for (size_t k = 0; k < s->len; k++)
			if (s->text[k] == '\n' && k + 1 < s->len)
				ot_vec_push(&s->starts, k + 1);
		pos += (size_t)size + 1;
	}
	ot_buf_free(&req);
	ot_buf_free(&reqpath);
	ot_buf_free(&err);
	free(dir);
}

/* Does 1-based `line` of `s` contain `symbol`? */
static bool line_has(const struct source *s, long long line, const char *symbol)
{
	size_t start, end, slen = strlen(symbol);
	if (line < 1 || (size_t)line > s->starts.len)
		return false;
	start = s->starts.items[line - 1];
	end = (size_t)line < s->starts.len ? s->starts.items[line] - 1 : s->len;
	for (size_t i = start; i + slen <= end; i++)
		if (!memcmp(s->text + i, symbol, slen))
			return true;
	return false;
}

/* ---- the checks -------------------------------------------------------------------------- */

enum { FOUND = 1, NOT_FOUND = 2 };

/* Check one step; returns whether it is a not-found step. */
static bool check_step(struct run *r, const char *input, const ot_value *step, size_t idx,
		       unsigned char *seen)
{
	const char *layer = member_str(step, "layer"), *file = member_str(step, "file"),
		   *symbol = member_str(step, "symbol"), *note = member_str(step, "note");
	const ot_value *line = ot_v_get(step, "line"), *parent = ot_v_get(step, "parent"),
		       *depth = ot_v_get(step, "depth"), *filev = ot_v_get(step, "file");
	int l = layer ? index_of(LAYERS, NLAYERS, layer) : -1;

	if (l < 0) {
		flag(r, "%s step %zu: unknown layer %s", input, idx, layer ? layer : "(none)");
		return false;
	}
	if (!parent || parent->type != OT_V_INT || parent->u.i < -1 || parent->u.i >= (long long)idx)
		flag(r, "%s step %zu: parent %s is not -1 or an earlier step", input, idx,
		     parent && parent->text ? parent->text : "(none)");
	if (!depth || depth->type != OT_V_INT || depth->u.i < 0)
		flag(r, "%s step %zu: bad depth", input, idx);
	if (!symbol || !note)
		flag(r, "%s step %zu: symbol and note must be strings", input, idx);
	if (filev && filev->type == OT_V_NULL) {
		seen[l] |= NOT_FOUND;
		if (!line || line->type != OT_V_NULL)
			flag(r, "%s step %zu (%s): not found but its line is not null", input, idx, layer);
		if (!note || !ot_starts_with(note, "not found: "))
			flag(r, "%s step %zu (%s): null file but the note is \"%s\"", input, idx, layer,
			     note ? note : "");
		return true;
	}
	seen[l] |= FOUND;
	if (!file || !line || line->type != OT_V_INT) {
		flag(r, "%s step %zu (%s): file must be a string and line an integer", input, idx, layer);
		return false;
	}
	if (note && ot_starts_with(note, "not found: "))
		flag(r, "%s step %zu (%s): %s:%lld is found but the note says \"%s\"", input, idx, layer,
		     file, line->u.i, note);
	if (!symbol || !*symbol) {
		flag(r, "%s step %zu (%s): %s:%lld has an empty symbol", input, idx, layer, file, line->u.i);
		return false;
	}
	{
		const struct source *s = ot_map_get(r->files, file);
		if (!s->exists)
			flag(r, "%s step %zu (%s): %s does not exist at v%s", input, idx, layer, file,
			     r->release);
		else if (!line_has(s, line->u.i, symbol))
			flag(r, "%s step %zu (%s): %s:%lld does not contain \"%s\"", input, idx, layer, file,
			     line->u.i, symbol);
	}
	return false;
}

static void check_release(const char *release)
{
	struct run r = {release, ot_arena_new(), NULL, ot_map_new(), OT_BUF_INIT, OT_BUF_INIT, 0};
	size_t layer_counts[NLAYERS][3] = {{0}}, status_counts[NSTATUSES] = {0}, nsteps = 0, nmissing = 0;
	const ot_value *ops, *pytorch;
	double t_run, t0, t_parse, t_check;
	ot_buf tag = OT_BUF_INIT;

	t0 = ot_clock();
	run_optrace(&r, &t_run);
	t_parse = ot_clock() - t0 - t_run;
	t0 = ot_clock();
	pytorch = ot_v_get(r.root, "pytorch");
	ot_buf_printf(&tag, "v%s", release);
	ck_assert_str_eq(member_str(pytorch, "version"), release);
	ck_assert_str_eq(member_str(pytorch, "tag"), tag.ptr);
	ops = ot_v_get(r.root, "ops");
	ck_assert_msg(ops && ops->type == OT_V_LIST && ot_v_len(ops) > 2000,
		      "%s: --all traced %zu ops", release, ops ? ot_v_len(ops) : 0);
	collect_files(&r, ops);
	load_sources(&r);

	for (size_t i = 0; i < ot_v_len(ops); i++) {
		const ot_value *op = ot_v_at(ops, i), *steps = ot_v_get(op, "steps");
		const char *input = member_str(op, "input"), *status = member_str(op, "status");
		unsigned char seen[NLAYERS] = {0};
		int st = status ? index_of(STATUSES, NSTATUSES, status) : -1;
		if (!input)
			input = "(no input)";
		if (st < 0)
			flag(&r, "%s: unknown status %s", input, status ? status : "(none)");
		else
			status_counts[st]++;
		if (!steps || steps->type != OT_V_LIST) {
			flag(&r, "%s: steps is not a list", input);
			continue;
		}
		for (size_t j = 0; j < ot_v_len(steps); j++)
			nmissing += check_step(&r, input, ot_v_at(steps, j), j, seen);
		nsteps += ot_v_len(steps);
		for (size_t l = 0; l < NLAYERS; l++)
			layer_counts[l][seen[l] & FOUND ? 0 : seen[l] ? 1 : 2]++;
	}
	t_check = ot_clock() - t0;

	printf("all steps %s: %zu ops, %zu steps (%zu not found), %zu files; %zu failures\n", release,
	       ot_v_len(ops), nsteps, nmissing, ot_map_len(r.files), r.nfailures);
	printf("  time: optrace --all %.2f s, reading trace.json %.2f s, checking %.2f s\n", t_run,
	       t_parse, t_check);
	printf("  status:");
	for (size_t s = 0; s < NSTATUSES; s++)
		printf(" %s %zu%s", STATUSES[s], status_counts[s], s + 1 < NSTATUSES ? "," : "\n");
	printf("  %-13s %6s %10s %7s   (ops)\n", "layer", "found", "not found", "absent");
	for (size_t l = 0; l < NLAYERS; l++)
		printf("  %-13s %6zu %10zu %7zu\n", LAYERS[l], layer_counts[l][0], layer_counts[l][1],
		       layer_counts[l][2]);
	if (r.nfailures)
		printf("failures (first %d):\n%s", MAX_SHOWN, r.failures.ptr);
	fflush(stdout);
	ck_assert_msg(r.nfailures == 0, "%s: %zu steps fail the checks (listed above)", release,
		      r.nfailures);

	for (size_t i = 0; i < ot_map_len(r.files); i++)
		ot_vec_free(&((struct source *)ot_map_value_at(r.files, i))->starts);
	ot_map_free(r.files);
	ot_buf_free(&r.blobs);
	ot_buf_free(&r.failures);
	ot_buf_free(&tag);
	ot_arena_free(r.arena);
}

START_TEST(all_steps_at_1_13_1)
{
	check_release("1.13.1");
}
END_TEST

START_TEST(all_steps_at_2_6_0)
{
	check_release("2.6.0");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("allsteps");
	TCase *tc = tcase_create("real");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, all_steps_at_1_13_1);
	tcase_add_test(tc, all_steps_at_2_6_0);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
