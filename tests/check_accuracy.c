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
 * Facts are of five kinds (the key's header says how each is written):
 * positive (the trace has this step), main (the step is on the main path
 * of a device; with `sure`, every default call there runs it), negative (no step at this file:line is on a device's main
 * path), library (summary.gpu_libs / cpu_libs names this library) and
 * not-library (it does not). The recall counts the steps of positive and
 * main facts that are found; every kind is then checked on its own and
 * reported with its counts.
 *
 * A fact may carry `known_miss: "<reason>"` while the tracer is being
 * fixed: it still counts against the recall, but only an unmarked miss, or
 * a marked fact that now holds (the mark must go), fails the suite.
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
/* ops per release that must have main-path facts, and negative facts */
#define MIN_MAIN_OPS 40
#define MIN_NEGATIVE_OPS 40

static const char *const RELEASES[] = {"1.13.1", "2.6.0"};

static const char *const LAYERS[] = {"python", "bridge", "yaml",   "cpp",      "meta",
				     "stub",   "kernel", "cuda",   "backward", "decomposition"};
#define NLAYERS OT_ARRAY_LEN(LAYERS)

enum fact_kind { FACT_POSITIVE, FACT_MAIN, FACT_NEGATIVE, FACT_LIB, FACT_NOT_LIB, NKINDS };
static const char *const KINDS[] = {"positive", "main", "negative", "library", "not-library"};

/* trace.json's device names, as bits */
static const char *const DEVICES[] = {"cpu", "cuda"};
#define NDEVICES OT_ARRAY_LEN(DEVICES)

/* The library names optrace writes in an op's summary (gen/callkind.c):
 * a library fact must name one of them, so that a misspelt "not-library"
 * fact cannot hold by accident. */
static const char *const LIBRARIES[] = {
	"cuBLAS",      "cuBLASLt",  "cuDNN",  "cuFFT",	  "cuSOLVER", "cuSPARSE",
	"cuSPARSELt",  "cuRAND",    "MAGMA",  "CUB",	  "Thrust",   "CUTLASS",
	"FlashAttention", "MIOpen", "MKL",    "LAPACK/BLAS", "BLAS",  "oneDNN",
	"FBGEMM",      "PocketFFT", "NNPACK", "XNNPACK"};

struct fact {
	enum fact_kind kind;
	const char *layer, *file, *symbol, *why, *known_miss;
	const char *when_has;   /* step facts: text the step's condition holds, or NULL */
	const char *lib, *libs; /* library facts: the name, "gpu_libs" or "cpu_libs" */
	unsigned devices;	/* main / negative facts: bits of DEVICES */
	unsigned sure;		/* main facts: the devices where every default call
				   runs the step (its "sure"), or 0 */
	long long line;		/* 0: a library fact without a source line */
	int key_line;		/* where the fact is written in the key */
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

/* A device name or a list of them ("cpu", [cpu, cuda]) as bits. */
static unsigned need_devices(const ot_value *v, const char *k, int line)
{
	unsigned bits = 0;
	size_t n = v->type == OT_V_LIST ? ot_v_len(v) : 1;
	ck_assert_msg(v->type == OT_V_STR || (v->type == OT_V_LIST && n > 0),
		      KEY_PATH ":%d: '%s' must be a device or a list of devices", line, k);
	for (size_t i = 0; i < n; i++) {
		const char *name = ot_v_cstr(v->type == OT_V_LIST ? ot_v_at(v, i) : v);
		size_t d;
		for (d = 0; name && d < NDEVICES; d++)
			if (!strcmp(name, DEVICES[d]))
				break;
		ck_assert_msg(name && d < NDEVICES, KEY_PATH ":%d: '%s': unknown device '%s'", line, k,
			      name ? name : "(not a string)");
		bits |= 1u << d;
	}
	return bits;
}

static void load_fact(struct entry *e, const ot_value *v)
{
	static const char *const allowed[] = {"layer",	 "file",    "line",	   "symbol",
					      "why",	 "known_miss", "main",	   "not_main",
					      "gpu_lib", "cpu_lib", "not_gpu_lib", "not_cpu_lib",
					      "when_has", "sure"};
	static const struct {
		const char *key, *libs;
		enum fact_kind kind;
	} libkeys[] = {{"gpu_lib", "gpu_libs", FACT_LIB},
		       {"cpu_lib", "cpu_libs", FACT_LIB},
		       {"not_gpu_lib", "gpu_libs", FACT_NOT_LIB},
		       {"not_cpu_lib", "cpu_libs", FACT_NOT_LIB}};
	struct fact f = {0};
	const ot_value *line, *main, *not_main;
	ck_assert_msg(v->type == OT_V_MAP, KEY_PATH ":%d: a fact must be a map", v->line);
	check_keys(v, allowed, OT_ARRAY_LEN(allowed));
	f.key_line = v->line;
	f.kind = FACT_POSITIVE;
	for (size_t i = 0; i < OT_ARRAY_LEN(libkeys); i++) {
		const char *lib = opt_str(v, libkeys[i].key, v->line);
		size_t l;
		if (!lib)
			continue;
		ck_assert_msg(!f.lib, KEY_PATH ":%d: a fact names one library", v->line);
		for (l = 0; l < OT_ARRAY_LEN(LIBRARIES); l++)
			if (!strcmp(lib, LIBRARIES[l]))
				break;
		ck_assert_msg(l < OT_ARRAY_LEN(LIBRARIES), KEY_PATH ":%d: unknown library '%s'",
			      v->line, lib);
		f.lib = lib;
		f.libs = libkeys[i].libs;
		f.kind = libkeys[i].kind;
	}
	main = ot_v_get(v, "main");
	not_main = ot_v_get(v, "not_main");
	ck_assert_msg(!(main && not_main) && !(f.lib && (main || not_main)),
		      KEY_PATH ":%d: a fact is one of: a step (with 'main' or not), 'not_main', a library",
		      v->line);
	if (main) {
		f.kind = FACT_MAIN;
		f.devices = need_devices(main, "main", v->line);
		if (ot_v_get(v, "sure"))
			f.sure = need_devices(ot_v_get(v, "sure"), "sure", v->line);
	} else if (not_main) {
		f.kind = FACT_NEGATIVE;
		f.devices = need_devices(not_main, "not_main", v->line);
	}
	f.why = need_str(v, "why", v->line);
	f.known_miss = opt_str(v, "known_miss", v->line);
	f.when_has = opt_str(v, "when_has", v->line);
	if (f.kind == FACT_POSITIVE || f.kind == FACT_MAIN) {
		f.layer = need_str(v, "layer", v->line);
		ck_assert_msg(layer_index(f.layer) >= 0, KEY_PATH ":%d: unknown layer '%s'", v->line,
			      f.layer);
	} else {
		ck_assert_msg(!f.when_has, KEY_PATH ":%d: 'when_has' is for a step fact", v->line);
		ck_assert_msg(!ot_v_get(v, "layer"),
			      KEY_PATH ":%d: a negative or library fact has no 'layer' (it holds for "
				       "every layer)",
			      v->line);
	}
	line = ot_v_get(v, "line");
	if (f.lib && !line && !ot_v_get(v, "file") && !ot_v_get(v, "symbol")) {
		ot_vec_push(&e->facts, f); /* a library fact without a source line */
		return;
	}
	f.file = need_str(v, "file", v->line);
	f.symbol = need_str(v, "symbol", v->line);
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

/* ---- tests of the key ---------------------------------------------------------------- */

START_TEST(key_is_well_formed)
{
	struct key *k = key_load();
	for (size_t r = 0; r < OT_ARRAY_LEN(RELEASES); r++) {
		size_t nops = 0, nfacts = 0, layers[NLAYERS] = {0}, marked = 0, kinds[NKINDS] = {0};
		size_t main_ops = 0, negative_ops = 0;
		for (size_t i = 0; i < k->entries.len; i++) {
			const struct entry *e = &k->entries.items[i];
			bool has_main = false, has_negative = false;
			if (strcmp(e->release, RELEASES[r]))
				continue;
			for (size_t j = 0; j < i; j++)
				ck_assert_msg(strcmp(k->entries.items[j].op, e->op) ||
						      strcmp(k->entries.items[j].release, e->release),
					      KEY_PATH ":%d: %s at %s is listed twice", e->key_line, e->op,
					      e->release);
			nops++;
			for (size_t j = 0; j < e->facts.len; j++) {
				const struct fact *f = &e->facts.items[j];
				if (f->layer)
					layers[layer_index(f->layer)]++;
				kinds[f->kind]++;
				has_main |= f->kind == FACT_MAIN;
				has_negative |= f->kind == FACT_NEGATIVE || f->kind == FACT_NOT_LIB;
				marked += f->known_miss != NULL;
			}
			main_ops += has_main;
			negative_ops += has_negative;
			nfacts += e->facts.len;
		}
		printf("answer key %s: %zu ops, %zu facts (%zu marked known_miss):", RELEASES[r], nops,
		       nfacts, marked);
		for (size_t i = 0; i < NKINDS; i++)
			printf(" %zu %s", kinds[i], KINDS[i]);
		printf("; %zu ops with main-path facts, %zu with negative facts\n", main_ops,
		       negative_ops);
		fflush(stdout);
		ck_assert_msg(nops >= MIN_OPS, "%s: only %zu ops in the key", RELEASES[r], nops);
		ck_assert_msg(main_ops >= MIN_MAIN_OPS, "%s: only %zu ops have main-path facts",
			      RELEASES[r], main_ops);
		ck_assert_msg(negative_ops >= MIN_NEGATIVE_OPS, "%s: only %zu ops have negative facts",
			      RELEASES[r], negative_ops);
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
			const char *text;
			char *line;
			if (!f->file)
				continue; /* a library fact without a source line */
			text = source_text(&sc, tag, f->file);
			line = text ? tu_text_lines(text, (int)f->line, 1) : NULL;
			checked++;
			if (!text)
				printf(KEY_PATH ":%d: %s has no %s\n", f->key_line, tag, f->file);
			else if (!line)
				printf(KEY_PATH ":%d: %s:%s has no line %lld\n", f->key_line, tag, f->file,
				       f->line);
			else if (!strstr(line, f->symbol))
				printf(KEY_PATH ":%d: %s:%s:%lld does not contain \"%s\": %s\n",
				       f->key_line, tag, f->file, f->line, f->symbol, line);
			bad += !text || !line || !strstr(line, f->symbol);
			free(line);
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

/* Does the step's condition (or, split by device, one of them) hold `text`? */
static bool when_holds(const ot_value *step, const char *text)
{
	const ot_value *on = ot_v_get(step, "when_on");
	const char *when = step_str(step, "when");
	if (strstr(when, text))
		return true;
	for (size_t d = 0; on && on->type == OT_V_MAP && d < NDEVICES; d++) {
		const ot_value *w = ot_v_get(on, DEVICES[d]);
		if (w && ot_v_cstr(w) && strstr(ot_v_cstr(w), text))
			return true;
	}
	return false;
}

static bool step_matches(const ot_value *step, const struct fact *f)
{
	return !strcmp(step_str(step, "layer"), f->layer) && !strcmp(step_str(step, "file"), f->file) &&
	       step_int(step, "line") == f->line && strstr(step_str(step, "symbol"), f->symbol) &&
	       (!f->when_has || when_holds(step, f->when_has));
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

/* The devices a step's `key` ("main" or "sure") lists, as bits of DEVICES. */
static unsigned listed_devices(const ot_value *step, const char *key)
{
	const ot_value *main = ot_v_get(step, key);
	unsigned bits = 0;
	for (size_t i = 0; main && main->type == OT_V_LIST && i < ot_v_len(main); i++)
		for (size_t d = 0; d < NDEVICES; d++)
			if (ot_v_cstr(ot_v_at(main, i)) && !strcmp(ot_v_cstr(ot_v_at(main, i)), DEVICES[d]))
				bits |= 1u << d;
	return bits;
}

static unsigned step_devices(const ot_value *step)
{
	return listed_devices(step, "main");
}

static void put_devices(ot_buf *out, unsigned bits)
{
	size_t n = 0;
	ot_buf_putc(out, '[');
	for (size_t d = 0; d < NDEVICES; d++)
		if (bits & (1u << d))
			ot_buf_printf(out, "%s%s", n++ ? ", " : "", DEVICES[d]);
	ot_buf_putc(out, ']');
}

/* Does the op's summary list `f`'s library in `f`'s list? */
static bool summary_has(const ot_value *op, const struct fact *f, ot_buf *listed)
{
	const ot_value *libs = ot_v_get(ot_v_get(op, "summary"), f->libs);
	bool in = false;
	ot_buf_putc(listed, '[');
	for (size_t i = 0; libs && libs->type == OT_V_LIST && i < ot_v_len(libs); i++) {
		const char *lib = ot_v_cstr(ot_v_at(libs, i));
		ot_buf_printf(listed, "%s%s", i ? ", " : "", lib ? lib : "?");
		in |= lib && !strcmp(lib, f->lib);
	}
	ot_buf_putc(listed, ']');
	return in;
}

/*
 * Does fact `f` hold for `op`? `found` says whether a step fact's step is
 * in the trace at all (what the recall counts); `why` gets, for a fact that
 * does not hold, what the trace has instead. A negative fact is broken by a
 * step on its line or by an edge (a call) whose site is its line, either on
 * the main path of one of its devices.
 */
static bool fact_holds(const ot_value *op, const struct fact *f, bool *found, ot_buf *why)
{
	const ot_value *steps = ot_v_get(op, "steps"), *edges = ot_v_get(op, "edges");
	bool holds = false;
	*found = false;
	switch (f->kind) {
	case FACT_POSITIVE:
	case FACT_MAIN: {
		unsigned seen = 0, sure = 0;
		for (size_t s = 0; s < ot_v_len(steps); s++) {
			const ot_value *st = ot_v_at(steps, s);
			if (!step_matches(st, f))
				continue;
			*found = true;
			seen |= step_devices(st);
			sure |= listed_devices(st, "sure");
		}
		holds = *found && (seen & f->devices) == f->devices && (sure & f->sure) == f->sure;
		if (!*found) {
			ot_buf_puts(why, "tracer: ");
			describe_near(why, steps, f);
		} else if (!holds) {
			ot_buf_puts(why, "the step is traced, its main is ");
			put_devices(why, seen);
			ot_buf_puts(why, ", its sure is ");
			put_devices(why, sure);
		}
		break;
	}
	case FACT_NEGATIVE: {
		size_t shown = 0;
		for (size_t s = 0; s < ot_v_len(steps); s++) {
			const ot_value *st = ot_v_at(steps, s);
			unsigned on = step_devices(st);
			if (strcmp(step_str(st, "file"), f->file) || step_int(st, "line") != f->line)
				continue;
			*found = true;
			if (!(on & f->devices))
				continue;
			ot_buf_printf(why, "%s[%s \"%s\" main ", shown++ ? ", " : "on the main path: ",
				      step_str(st, "layer"), step_str(st, "symbol"));
			put_devices(why, on);
			ot_buf_putc(why, ']');
		}
		/* a call made at that line is an edge of the graph, whose site is the line */
		for (size_t e = 0; e < ot_v_len(edges); e++) {
			const ot_value *ed = ot_v_at(edges, e), *site = ot_v_get(ed, "site");
			unsigned on = step_devices(ed);
			if (!site || site->type != OT_V_MAP || strcmp(step_str(site, "file"), f->file) ||
			    step_int(site, "line") != f->line || !(on & f->devices))
				continue;
			ot_buf_printf(why, "%s[%s edge at \"%s\" main ", shown++ ? ", " : "on the main path: ",
				      step_str(ed, "kind"), step_str(site, "symbol"));
			put_devices(why, on);
			ot_buf_putc(why, ']');
		}
		holds = shown == 0;
		break;
	}
	case FACT_LIB:
	case FACT_NOT_LIB: {
		ot_buf listed = OT_BUF_INIT;
		bool in = summary_has(op, f, &listed);
		holds = in == (f->kind == FACT_LIB);
		if (!holds)
			ot_buf_printf(why, "summary.%s is %s", f->libs, listed.ptr);
		ot_buf_free(&listed);
		break;
	}
	case NKINDS:
		break;
	}
	return holds;
}

/* One line naming fact `f` of `op` at `release`. */
static void describe_fact(ot_buf *out, const char *release, const char *op, const struct fact *f)
{
	static const char *const verbs[] = {"MISS", "NOT MAIN", "ON MAIN", "NO LIB", "HAS LIB"};
	ot_buf_printf(out, "  %s %s %s: ", verbs[f->kind], release, op);
	switch (f->kind) {
	case FACT_POSITIVE:
		ot_buf_printf(out, "%s ", f->layer);
		break;
	case FACT_MAIN:
		ot_buf_printf(out, "%s main ", f->layer);
		put_devices(out, f->devices);
		ot_buf_putc(out, ' ');
		break;
	case FACT_NEGATIVE:
		ot_buf_puts(out, "not_main ");
		put_devices(out, f->devices);
		ot_buf_putc(out, ' ');
		break;
	case FACT_LIB:
	case FACT_NOT_LIB:
		ot_buf_printf(out, "%s%s %s", f->kind == FACT_NOT_LIB ? "not " : "", f->libs, f->lib);
		if (f->file)
			ot_buf_puts(out, ", ");
		break;
	case NKINDS:
		break;
	}
	if (f->file)
		ot_buf_printf(out, "%s:%lld \"%s\"", f->file, f->line, f->symbol);
	ot_buf_printf(out, " (" KEY_PATH ":%d)\n", f->key_line);
}

static void check_recall(const char *release)
{
	struct key *k = key_load();
	char *dir = tu_tmpdir("accuracy");
	ot_buf list = OT_BUF_INIT, listpath = OT_BUF_INIT, outdir = OT_BUF_INIT, miss = OT_BUF_INIT,
	       why = OT_BUF_INIT, unexpected = OT_BUF_INIT, fixed = OT_BUF_INIT;
	ot_arena *arena = ot_arena_new();
	ot_value *root, *ops;
	ot_map *by_input = ot_map_new();
	size_t total = 0, found = 0, nunexpected = 0, nfixed = 0;
	size_t ltotal[NLAYERS] = {0}, lfound[NLAYERS] = {0};
	size_t ktotal[NKINDS] = {0}, kholds[NKINDS] = {0}, kmarked[NKINDS] = {0};
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
		const ot_value *op;
		if (strcmp(e->release, release))
			continue;
		op = ot_map_get(by_input, e->op);
		ck_assert_msg(op != NULL, "%s: %s is missing from trace.json", release, e->op);
		ck_assert_msg(!strcmp(step_str(op, "status"), "traced"), "%s: %s has status %s", release,
			      e->op, step_str(op, "status"));
		for (size_t j = 0; j < e->facts.len; j++) {
			const struct fact *f = &e->facts.items[j];
			bool hit, holds;
			ot_buf_clear(&why);
			holds = fact_holds(op, f, &hit, &why);
			if (f->layer) {
				int l = layer_index(f->layer);
				total++;
				ltotal[l]++;
				found += hit;
				lfound[l] += hit;
			}
			ktotal[f->kind]++;
			kholds[f->kind] += holds;
			kmarked[f->kind] += f->known_miss != NULL;
			ot_buf_clear(&miss);
			describe_fact(&miss, release, e->op, f);
			if (holds) {
				if (f->known_miss) {
					nfixed++;
					ot_buf_put(&fixed, miss.ptr, miss.size);
				}
				continue;
			}
			ot_buf_printf(&miss, "    %s\n", why.ptr);
			if (f->known_miss) {
				printf("%s    known miss: %s\n", miss.ptr, f->known_miss);
			} else {
				nunexpected++;
				ot_buf_put(&unexpected, miss.ptr, miss.size);
			}
		}
	}

	printf("recall %s: %zu/%zu steps found (%.1f%%); %zu unexpected failures, "
	       "%zu known misses now holding; optrace ran %.2f s\n",
	       release, found, total, 100.0 * (double)found / (double)total, nunexpected, nfixed, t_run);
	for (size_t l = 0; l < NLAYERS; l++)
		printf("  %-13s %3zu/%-3zu\n", LAYERS[l], lfound[l], ltotal[l]);
	for (size_t i = 0; i < NKINDS; i++)
		printf("  %-11s facts holding %3zu/%-3zu (%zu marked known_miss)\n", KINDS[i], kholds[i],
		       ktotal[i], kmarked[i]);
	if (nunexpected)
		printf("unexpected failures at %s:\n%s", release, unexpected.ptr);
	if (nfixed)
		printf("holding now, remove their known_miss mark:\n%s", fixed.ptr);
	fflush(stdout);
	ck_assert_msg(nunexpected == 0, "%s: %zu facts of the key do not hold in the trace", release,
		      nunexpected);
	ck_assert_msg(nfixed == 0, "%s: %zu facts marked known_miss hold: remove the marks", release,
		      nfixed);

	ot_map_free(by_input);
	ot_arena_free(arena);
	ot_buf_free(&list);
	ot_buf_free(&listpath);
	ot_buf_free(&outdir);
	ot_buf_free(&miss);
	ot_buf_free(&why);
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
