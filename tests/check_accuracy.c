/*
 * check_accuracy.c - the tracer measured against a hand-checked answer key.
 *
 * tests/answer_key.yaml lists, for each op and real release, facts found by
 * reading the PyTorch sources at that tag: layer, file, line and the symbol
 * on that line. This suite first checks the key itself (well formed, every
 * layer covered, every line really holds its symbol at the tag, read with
 * `git show`), then runs the real binary on the key's ops at v1.13.1 and
 * v2.6.0 and looks each fact up in trace.json. It prints the recall per
 * release and per layer and every fact the tracer misses.
 *
 * A fact may carry `known_miss: "<reason>"` while the tracer is being
 * fixed: it still counts against the recall, but only an unmarked miss, or
 * a marked fact that is now found (the mark must go), fails the suite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "testutil.h"
#include "value.h"
#include "yamldoc.h"

#define KEY_PATH "tests/answer_key.yaml"
#define MIN_OPS 25

static const char *const RELEASES[] = {"1.13.1", "2.6.0"};

static const char *const LAYERS[] = {"python", "bridge", "yaml",   "cpp",      "meta",
				     "stub",   "kernel", "cuda",   "backward", "decomposition"};
#define NLAYERS OT_ARRAY_LEN(LAYERS)

struct fact {
	const char *layer, *file, *symbol, *why, *known_miss;
	long long line;
	int key_line; /* where the fact is written in the key */
};

struct entry {
	const char *op, *release;
	bool full;
	OT_VEC(struct fact) facts;
	int key_line;
};

struct key {
	ot_arena *arena;
	char *text;
	OT_VEC(struct entry) entries;
};

/* ---- the key ------------------------------------------------------------------ */

static int layer_index(const char *layer)
{
	for (size_t i = 0; i < NLAYERS; i++)
		if (!strcmp(LAYERS[i], layer))
			return (int)i;
	return -1;
}

static const char *need_str(const ot_value *map, const char *k, int line)
{
	const ot_value *v = ot_v_get(map, k);
	ck_assert_msg(v && v->type == OT_V_STR && ot_v_cstr(v)[0],
		      KEY_PATH ":%d: '%s' must be a non-empty string", line, k);
	return ot_v_cstr(v);
}

static const char *opt_str(const ot_value *map, const char *k, int line)
{
	const ot_value *v = ot_v_get(map, k);
	if (!v)
		return NULL;
	ck_assert_msg(v->type == OT_V_STR && ot_v_cstr(v)[0],
		      KEY_PATH ":%d: '%s' must be a non-empty string", line, k);
	return ot_v_cstr(v);
}

static void check_keys(const ot_value *map, const char *const *allowed, size_t n)
{
	for (size_t i = 0; i < ot_v_len(map); i++) {
		size_t k;
		for (k = 0; k < n; k++)
			if (!strcmp(map->u.map.items[i].key, allowed[k]))
				break;
		ck_assert_msg(k < n, KEY_PATH ":%d: unknown key '%s'", map->u.map.items[i].line,
			      map->u.map.items[i].key);
	}
}

static void load_fact(struct entry *e, const ot_value *v)
{
	static const char *const allowed[] = {"layer", "file", "line", "symbol", "why", "known_miss"};
	struct fact f = {0};
	const ot_value *line;
	ck_assert_msg(v->type == OT_V_MAP, KEY_PATH ":%d: a fact must be a map", v->line);
	check_keys(v, allowed, OT_ARRAY_LEN(allowed));
	f.key_line = v->line;
	f.layer = need_str(v, "layer", v->line);
	ck_assert_msg(layer_index(f.layer) >= 0, KEY_PATH ":%d: unknown layer '%s'", v->line, f.layer);
	f.file = need_str(v, "file", v->line);
	f.symbol = need_str(v, "symbol", v->line);
	f.why = need_str(v, "why", v->line);
	f.known_miss = opt_str(v, "known_miss", v->line);
	line = ot_v_get(v, "line");
	ck_assert_msg(line && line->type == OT_V_INT && line->u.i >= 1,
		      KEY_PATH ":%d: 'line' must be a positive integer", v->line);
	f.line = line->u.i;
	ot_vec_push(&e->facts, f);
}

static struct key *key_load(void)
{
	static const char *const allowed[] = {"op", "release", "full", "note", "facts"};
	struct key *k = ot_calloc(1, sizeof(*k));
	size_t len;
	ot_value *root;
	k->arena = ot_arena_new();
	k->text = tu_read_file(KEY_PATH, &len);
	ck_assert_msg(ot_yaml_load(&root, k->arena, k->text, len, KEY_PATH) == 0, "%s",
		      ot_error_last());
	ck_assert_msg(root->type == OT_V_LIST, KEY_PATH ": the key must be a list of entries");
	for (size_t i = 0; i < ot_v_len(root); i++) {
		const ot_value *v = ot_v_at(root, i), *facts, *full;
		struct entry e = {0};
		ck_assert_msg(v->type == OT_V_MAP, KEY_PATH ":%d: an entry must be a map", v->line);
		check_keys(v, allowed, OT_ARRAY_LEN(allowed));
		e.key_line = v->line;
		e.op = need_str(v, "op", v->line);
		e.release = need_str(v, "release", v->line);
		full = ot_v_get(v, "full");
		ck_assert_msg(!full || full->type == OT_V_BOOL, KEY_PATH ":%d: 'full' must be a boolean",
			      v->line);
		e.full = full && full->u.b;
		facts = ot_v_get(v, "facts");
		ck_assert_msg(facts && facts->type == OT_V_LIST && ot_v_len(facts) > 0,
			      KEY_PATH ":%d: 'facts' must be a non-empty list", v->line);
		for (size_t j = 0; j < ot_v_len(facts); j++)
			load_fact(&e, ot_v_at(facts, j));
		ot_vec_push(&k->entries, e);
	}
	return k;
}

static void key_free(struct key *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->entries.len; i++)
		ot_vec_free(&k->entries.items[i].facts);
	ot_vec_free(&k->entries);
	ot_arena_free(k->arena);
	free(k->text);
	free(k);
}

/* ---- the sources, read with git show (independent of optrace) -------------------- */

struct source_cache {
	ot_map *files; /* "tag:path" -> text, or &missing */
	ot_arena *arena;
};

static char missing;

/* The text of `path` at `tag`, or NULL when git has no such file. */
static const char *source_text(struct source_cache *sc, const char *tag, const char *path)
{
	const char *spec = ot_arena_printf(sc->arena, "%s:%s", tag, path);
	ot_buf out = OT_BUF_INIT;
	char *text = ot_map_get(sc->files, spec);
	if (!text) {
		text = tu_git_show(&out, tu_real_source(), tag, path)
			       ? ot_arena_strndup(sc->arena, out.ptr, out.size)
			       : &missing;
		ot_map_put(sc->files, spec, text);
		ot_buf_free(&out);
	}
	return text == &missing ? NULL : text;
}

/* A copy (in `arena`) of 1-based `line` of `text`, or NULL when it has fewer lines. */
static const char *text_line(ot_arena *arena, const char *text, long long line)
{
	const char *s = text;
	for (long long n = 1; n < line; n++) {
		s = strchr(s, '\n');
		if (!s)
			return NULL;
		s++;
	}
	if (!*s)
		return NULL;
	return ot_arena_strndup(arena, s, strcspn(s, "\n"));
}

/* ---- tests of the key ---------------------------------------------------------------- */

START_TEST(key_is_well_formed)
{
	struct key *k = key_load();
	for (size_t r = 0; r < OT_ARRAY_LEN(RELEASES); r++) {
		size_t nops = 0, nfacts = 0, layers[NLAYERS] = {0}, marked = 0;
		for (size_t i = 0; i < k->entries.len; i++) {
			const struct entry *e = &k->entries.items[i];
			if (strcmp(e->release, RELEASES[r]))
				continue;
			for (size_t j = 0; j < i; j++)
				ck_assert_msg(strcmp(k->entries.items[j].op, e->op) ||
						      strcmp(k->entries.items[j].release, e->release),
					      KEY_PATH ":%d: %s at %s is listed twice", e->key_line, e->op,
					      e->release);
			nops++;
			for (size_t j = 0; j < e->facts.len; j++) {
				layers[layer_index(e->facts.items[j].layer)]++;
				marked += e->facts.items[j].known_miss != NULL;
			}
			nfacts += e->facts.len;
		}
		printf("answer key %s: %zu ops, %zu facts (%zu marked known_miss)\n", RELEASES[r], nops,
		       nfacts, marked);
		ck_assert_msg(nops >= MIN_OPS, "%s: only %zu ops in the key", RELEASES[r], nops);
		for (size_t l = 0; l < NLAYERS; l++)
			ck_assert_msg(layers[l] > 0, "%s: no fact of layer %s in the key", RELEASES[r],
				      LAYERS[l]);
	}
	for (size_t i = 0; i < k->entries.len; i++) {
		size_t r;
		for (r = 0; r < OT_ARRAY_LEN(RELEASES); r++)
			if (!strcmp(k->entries.items[i].release, RELEASES[r]))
				break;
		ck_assert_msg(r < OT_ARRAY_LEN(RELEASES), KEY_PATH ":%d: unknown release '%s'",
			      k->entries.items[i].key_line, k->entries.items[i].release);
	}
	key_free(k);
}
END_TEST

/* Every fact's line, read from the tag with git, contains its symbol. */
START_TEST(key_facts_hold_in_the_sources)
{
	struct key *k = key_load();
	struct source_cache sc = {ot_map_new(), ot_arena_new()};
	size_t checked = 0, bad = 0;
	for (size_t i = 0; i < k->entries.len; i++) {
		const struct entry *e = &k->entries.items[i];
		const char *tag = ot_arena_printf(sc.arena, "v%s", e->release);
		for (size_t j = 0; j < e->facts.len; j++) {
			const struct fact *f = &e->facts.items[j];
			const char *text = source_text(&sc, tag, f->file);
			const char *line = text ? text_line(sc.arena, text, f->line) : NULL;
			checked++;
			if (!text)
				printf(KEY_PATH ":%d: %s has no %s\n", f->key_line, tag, f->file);
			else if (!line)
				printf(KEY_PATH ":%d: %s:%s has no line %lld\n", f->key_line, tag, f->file,
				       f->line);
			else if (!strstr(line, f->symbol))
				printf(KEY_PATH ":%d: %s:%s:%lld does not contain \"%s\": %s\n",
				       f->key_line, tag, f->file, f->line, f->symbol, line);
			else
				continue;
			bad++;
		}
	}
	printf("answer key: %zu facts checked against the sources, %zu wrong\n", checked, bad);
	ck_assert_msg(bad == 0, "%zu facts of the key are not on their lines (listed above)", bad);
	ot_map_free(sc.files);
	ot_arena_free(sc.arena);
	key_free(k);
}
END_TEST

/* ---- recall ---------------------------------------------------------------------------- */

static const char *step_str(const ot_value *step, const char *k)
{
	const char *s = ot_v_cstr(ot_v_get(step, k));
	return s ? s : "";
}

static long long step_int(const ot_value *step, const char *k)
{
	const ot_value *v = ot_v_get(step, k);
	return v && v->type == OT_V_INT ? v->u.i : -1;
}

static bool step_matches(const ot_value *step, const struct fact *f)
{
	return !strcmp(step_str(step, "layer"), f->layer) && !strcmp(step_str(step, "file"), f->file) &&
	       step_int(step, "line") == f->line && strstr(step_str(step, "symbol"), f->symbol);
}

/* What the trace holds near a missed fact: steps on its line, else the
 * steps of its layer in its file. */
static void describe_near(ot_buf *out, const ot_value *steps, const struct fact *f)
{
	size_t shown = 0;
	for (size_t i = 0; i < ot_v_len(steps); i++) {
		const ot_value *s = ot_v_at(steps, i);
		if (!strcmp(step_str(s, "file"), f->file) && step_int(s, "line") == f->line)
			ot_buf_printf(out, "%s[%s \"%s\"]", shown++ ? ", " : "on that line: ",
				      step_str(s, "layer"), step_str(s, "symbol"));
	}
	if (shown)
		return;
	for (size_t i = 0; i < ot_v_len(steps) && shown < 6; i++) {
		const ot_value *s = ot_v_at(steps, i);
		if (!strcmp(step_str(s, "file"), f->file) && !strcmp(step_str(s, "layer"), f->layer))
			ot_buf_printf(out, "%s%lld \"%s\"", shown++ ? ", " : "same layer and file at: ",
				      step_int(s, "line"), step_str(s, "symbol"));
	}
	if (!shown)
		ot_buf_puts(out, "nothing of this layer in this file");
}

static void check_recall(const char *release)
{
	struct key *k = key_load();
	char *dir = tu_tmpdir("accuracy");
	ot_buf list = OT_BUF_INIT, listpath = OT_BUF_INIT, outdir = OT_BUF_INIT, miss = OT_BUF_INIT, unexpected = OT_BUF_INIT, fixed = OT_BUF_INIT;
	ot_arena *arena = ot_arena_new();
	ot_value *root, *ops;
	ot_map *by_input = ot_map_new();
	size_t total = 0, found = 0, marked = 0, nunexpected = 0, nfixed = 0;
	size_t ltotal[NLAYERS] = {0}, lfound[NLAYERS] = {0};
	double t_run;

	for (size_t i = 0; i < k->entries.len; i++) {
		const struct entry *e = &k->entries.items[i];
		if (!strcmp(e->release, release))
			ot_buf_printf(&list, "%s%s\n", e->op, e->full ? " !full" : "");
	}
	ot_buf_printf(&listpath, "%s/ops.list", dir);
	ot_buf_printf(&outdir, "%s/out", dir);
	tu_write_file(listpath.ptr, list.ptr, list.size);
	root = tu_run_trace(arena, outdir.ptr, release, (const char *[]){listpath.ptr, NULL}, &t_run);
	ck_assert_str_eq(step_str(ot_v_get(root, "pytorch"), "version"), release);
	ops = ot_v_get(root, "ops");
	ck_assert_msg(ops && ops->type == OT_V_LIST, "trace.json has no ops list");
	for (size_t i = 0; i < ot_v_len(ops); i++)
		ot_map_put(by_input, step_str(ot_v_at(ops, i), "input"), ot_v_at(ops, i));

	for (size_t i = 0; i < k->entries.len; i++) {
		const struct entry *e = &k->entries.items[i];
		const ot_value *op, *steps;
		if (strcmp(e->release, release))
			continue;
		op = ot_map_get(by_input, e->op);
		ck_assert_msg(op != NULL, "%s: %s is missing from trace.json", release, e->op);
		ck_assert_msg(!strcmp(step_str(op, "status"), "traced"), "%s: %s has status %s", release,
			      e->op, step_str(op, "status"));
		steps = ot_v_get(op, "steps");
		for (size_t j = 0; j < e->facts.len; j++) {
			const struct fact *f = &e->facts.items[j];
			int l = layer_index(f->layer);
			bool hit = false;
			for (size_t s = 0; s < ot_v_len(steps) && !hit; s++)
				hit = step_matches(ot_v_at(steps, s), f);
			total++;
			ltotal[l]++;
			marked += f->known_miss != NULL;
			if (hit) {
				found++;
				lfound[l]++;
				if (f->known_miss) {
					nfixed++;
					ot_buf_printf(&fixed, "  %s %s: %s %s:%lld \"%s\" (" KEY_PATH ":%d)\n",
						      release, e->op, f->layer, f->file, f->line, f->symbol,
						      f->key_line);
				}
				continue;
			}
			ot_buf_clear(&miss);
			ot_buf_printf(&miss, "  MISS %s %s: %s %s:%lld \"%s\" (" KEY_PATH ":%d)\n    tracer: ",
				      release, e->op, f->layer, f->file, f->line, f->symbol, f->key_line);
			describe_near(&miss, steps, f);
			if (f->known_miss) {
				printf("%s\n    known miss: %s\n", miss.ptr, f->known_miss);
			} else {
				nunexpected++;
				ot_buf_printf(&unexpected, "%s\n", miss.ptr);
			}
		}
	}

	printf("recall %s: %zu/%zu facts found (%.1f%%); %zu known misses, %zu unexpected misses, "
	       "%zu known misses now found; optrace ran %.2f s\n",
	       release, found, total, 100.0 * (double)found / (double)total, marked - nfixed, nunexpected,
	       nfixed, t_run);
	for (size_t l = 0; l < NLAYERS; l++)
		printf("  %-13s %3zu/%-3zu\n", LAYERS[l], lfound[l], ltotal[l]);
	if (nunexpected)
		printf("unexpected misses at %s:\n%s", release, unexpected.ptr);
	if (nfixed)
		printf("found now, remove their known_miss mark:\n%s", fixed.ptr);
	fflush(stdout);
	ck_assert_msg(nunexpected == 0, "%s: %zu facts of the key are missing from the trace", release,
		      nunexpected);
	ck_assert_msg(nfixed == 0, "%s: %zu facts marked known_miss are found: remove the marks",
		      release, nfixed);

	ot_map_free(by_input);
	ot_arena_free(arena);
	ot_buf_free(&list);
	ot_buf_free(&listpath);
	ot_buf_free(&outdir);
	ot_buf_free(&miss);
	ot_buf_free(&unexpected);
	ot_buf_free(&fixed);
	free(dir);
	key_free(k);
}

START_TEST(recall_at_1_13_1)
{
	check_recall("1.13.1");
}
END_TEST

START_TEST(recall_at_2_6_0)
{
	check_recall("2.6.0");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("accuracy");
	TCase *key = tcase_create("key");
	TCase *recall = tcase_create("recall");
	tcase_set_timeout(key, 120);
	tcase_add_test(key, key_is_well_formed);
	tcase_add_test(key, key_facts_hold_in_the_sources);
	tcase_set_timeout(recall, 300);
	tcase_add_test(recall, recall_at_1_13_1);
	tcase_add_test(recall, recall_at_2_6_0);
	suite_add_tcase(s, key);
	suite_add_tcase(s, recall);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
