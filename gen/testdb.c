/*
 * testdb.c - the test databases of a release, their lists evaluated, and
 * each op's tests and benchmarks (testdb.h).
 */
#include "testdb.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "buf.h"
#include "testrec.h"

/* Levels of membership of an entry in a list. */
enum { LV_NONE = 0, LV_SOME = 1, LV_ALL = 2 };

/* A list of id pairs kept in insertion order (map values). */
struct idnode {
	uint32_t a, b;
	struct idnode *next;
};
struct idlist {
	struct idnode *head, *tail;
};

struct entry {
	const ot_tr_call *call;
	const ot_tr_file *file;
	ot_tf_kind kind;
	const char *name;      /* as the database knows it (ForeachFuncInfo: _foreach_x) */
	const char *aten_name;
	const char *list;
};

struct module {
	ot_tr_file *f;
	const char *short_name;
	ot_map *ns;          /* name -> uint8_t levels[nentries], or NULL-valued: unknown */
	int32_t *call_entry; /* f->calls[i] -> entry id, or -1 */
};

struct template {
	const ot_tr_test *t;
	uint32_t file;       /* index into db->files */
	const uint8_t *lv;   /* NULL: the list could not be evaluated */
	ot_tf_template pub;
};

struct ot_testdb {
	const ot_index *ix;
	ot_arena *arena;
	ot_arena **arenas;
	int narenas;
	ot_tr_file *files;
	size_t nfiles;
	struct entry *entries;
	size_t nentries;
	ot_tf_entry *pub;    /* the entries as lookups give them, one per entry */
	ot_map *bases;       /* class -> its first base */
	ot_map *by_name;     /* OpInfo name or alias -> idlist of entries */
	ot_map *by_aten;     /* aten_name -> idlist */
	ot_map *by_backward; /* aten_backward_name -> idlist */
	ot_map *refs;        /* torch_opinfo_name -> idlist of reference entries */
	ot_map *modules;     /* "torch.nn.Linear" -> idlist */
	struct template *templates;
	size_t ntemplates;
	ot_map *mentions;    /* name -> idlist of (file, mention) */
	ot_map *benches;     /* api -> idlist of (file, bench) */
	ot_testdb_stats stats;
};

static void idlist_add(ot_arena *a, ot_map *m, const char *key, uint32_t x, uint32_t y)
{
	struct idlist *l = ot_map_get(m, key);
	struct idnode *n = ot_arena_alloc(a, sizeof(*n));
	n->a = x;
	n->b = y;
	if (!l) {
		l = ot_arena_alloc(a, sizeof(*l));
		ot_map_put(m, key, l);
	}
	if (l->tail)
		l->tail->next = n;
	else
		l->head = n;
	l->tail = n;
}

static const struct idnode *idlist_get(const ot_map *m, const char *key)
{
	const struct idlist *l = ot_map_get(m, key);
	return l ? l->head : NULL;
}

/* ---- scanning the files, in parallel ------------------------------------------------ */

struct scan_job {
	ot_testdb *db;
	const uint32_t *ids;
	atomic_size_t next;
};

struct scan_worker {
	struct scan_job *job;
	ot_arena *arena;
};

static void *scan_main(void *arg)
{
	struct scan_worker *w = arg;
	ot_testdb *db = w->job->db;
	for (;;) {
		size_t i = atomic_fetch_add(&w->job->next, 1);
		const ot_ix_file *f;
		if (i >= db->nfiles)
			break;
		f = ot_index_file(db->ix, w->job->ids[i]);
		ot_testscan_file(&db->files[i], w->arena, f->path, w->job->ids[i],
				 (ot_tfile_kind)ot_testscan_kind(f->path), f->text, f->len);
	}
	return NULL;
}

/* The database modules first, each after the ones it reads (definitions/x.py,
 * then definitions/__init__.py, then the rest), then the test files. */
static int file_rank(const char *path)
{
	int kind = ot_testscan_kind(path);
	if (kind == OT_TFILE_DB) {
		if (strstr(path, "/definitions/"))
			return ot_ends_with(path, "/__init__.py") ? 1 : 0;
		if (strstr(path, "/opinfo/"))
			return 2;
		return ot_ends_with(path, "common_methods_invocations.py") ? 3 : 4;
	}
	return kind == OT_TFILE_TEST ? 5 : 6;
}

struct ranked {
	uint32_t id;
	int rank;
	const char *path;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->path, y->path);
}

static void scan_files(ot_testdb *db, int threads)
{
	OT_VEC(struct ranked) v = {0};
	struct scan_job job = {db, NULL, 0};
	struct scan_worker *workers;
	pthread_t *tids;
	uint32_t *ids;
	size_t nix = ot_index_get_stats(db->ix)->files;
	int started = 0;

	for (uint32_t i = 0; i < nix; i++) {
		const ot_ix_file *f = ot_index_file(db->ix, i);
		struct ranked r;
		if (!f || ot_testscan_kind(f->path) < 0)
			continue;
		r.id = i;
		r.rank = file_rank(f->path);
		r.path = f->path;
		ot_vec_push(&v, r);
	}
	if (v.len > 1)
		qsort(v.items, v.len, sizeof(*v.items), cmp_ranked);
	db->nfiles = v.len;
	db->files = ot_calloc(v.len ? v.len : 1, sizeof(*db->files));
	ids = ot_calloc(v.len ? v.len : 1, sizeof(*ids));
	for (size_t i = 0; i < v.len; i++)
		ids[i] = v.items[i].id;
	ot_vec_free(&v);
	job.ids = ids;
	if (threads < 1)
		threads = 1;
	if ((size_t)threads > db->nfiles)
		threads = db->nfiles ? (int)db->nfiles : 1;
	workers = ot_calloc((size_t)threads, sizeof(*workers));
	tids = ot_calloc((size_t)threads, sizeof(*tids));
	db->arenas = ot_calloc((size_t)threads, sizeof(*db->arenas));
	db->narenas = threads;
	for (int t = 0; t < threads; t++) {
		workers[t].job = &job;
		workers[t].arena = db->arenas[t] = ot_arena_new();
	}
	for (int t = 1; t < threads; t++)
		if (pthread_create(&tids[started], NULL, scan_main, &workers[t]) == 0)
			started++;
	scan_main(&workers[0]);
	for (int t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	free(workers);
	free(tids);
	free(ids);
}

/* ---- the class family and the entries ------------------------------------------------- */

/* Is class `cls` `root` or derived from it? */
static bool derives(const ot_testdb *db, const char *cls, const char *root)
{
	for (int depth = 0; cls && depth < 16; depth++) {
		if (!strcmp(cls, root))
			return true;
		cls = ot_map_get(db->bases, cls);
	}
	return false;
}

/* The module-level assignment of `f` whose expression holds token `tok`. */
static const char *list_of(const ot_tr_file *f, uint32_t tok)
{
	for (size_t i = 0; i < f->assigns.len; i++)
		if (f->assigns.items[i].expr <= tok && tok < f->assigns.items[i].expr_end)
			return f->assigns.items[i].name;
	return NULL;
}


/* The aten op an OpInfo's name stands for when it gives no aten_name:
 * the name itself, but for a function of a Python submodule whose ops
 * native_functions.yaml names with its prefix (special.erfcx is
 * special_erfcx, linalg.cross linalg_cross, fft.fft fft_fft). */
static const char *aten_of_name(ot_arena *a, const char *name)
{
	static const char *const modules[] = {"special.", "linalg.", "fft."};
	for (size_t i = 0; i < OT_ARRAY_LEN(modules); i++)
		if (ot_starts_with(name, modules[i]) && !strchr(name + strlen(modules[i]), '.'))
			return ot_arena_printf(a, "%.*s_%s", (int)strlen(modules[i]) - 1, name,
					       name + strlen(modules[i]));
	return name;
}
static void collect_entries(ot_testdb *db, struct module *mods)
{
	OT_VEC(struct entry) v = {0};
	for (size_t i = 0; i < db->nfiles; i++)
		if (db->files[i].kind == OT_TFILE_DB)
			for (size_t k = 0; k < db->files[i].classes.len; k++) {
				const ot_tr_class *c = &db->files[i].classes.items[k];
				if (c->base && !ot_map_get(db->bases, c->name))
					ot_map_put(db->bases, c->name, (void *)c->base);
			}
	for (size_t i = 0; i < db->nfiles; i++) {
		ot_tr_file *f = &db->files[i];
		mods[i].call_entry = ot_arena_alloc(db->arena, (f->calls.len + 1) * sizeof(int32_t));
		for (size_t k = 0; k < f->calls.len; k++) {
			const ot_tr_call *c = &f->calls.items[k];
			struct entry e = {c, f, OT_TF_OPINFO, c->name, NULL, NULL};
			mods[i].call_entry[k] = -1;
			if (f->kind != OT_TFILE_DB || !c->name)
				continue;
			if (derives(db, c->cls, "ModuleInfo")) {
				e.kind = OT_TF_MODULE;
			} else if (derives(db, c->cls, "OpInfo")) {
				if (strstr(c->cls, "PythonRefInfo"))
					e.kind = OT_TF_REFERENCE;
				if (derives(db, c->cls, "ForeachFuncInfo"))
					e.name = ot_arena_printf(db->arena, "_foreach_%s", c->name);
				e.aten_name = c->aten_name ? c->aten_name : aten_of_name(db->arena, e.name);
			} else {
				continue;
			}
			e.list = list_of(f, c->tok);
			mods[i].call_entry[k] = (int32_t)v.len;
			ot_vec_push(&v, e);
		}
	}
	db->entries = v.items;
	db->nentries = v.len;
	for (uint32_t id = 0; id < db->nentries; id++) {
		const struct entry *e = &db->entries[id];
		if (e->kind == OT_TF_MODULE) {
			idlist_add(db->arena, db->modules, e->name, id, 0);
		} else if (e->kind == OT_TF_REFERENCE) {
			if (e->call->opinfo_name)
				idlist_add(db->arena, db->refs, e->call->opinfo_name, id, 0);
		} else {
			idlist_add(db->arena, db->by_name, e->name, id, 0);
			for (uint16_t a = 0; a < e->call->naliases; a++) {
				/* an alias tests the aten op of its name too
				 * (OpInfo('clamp', aliases=('clip',)): clip.Tensor) */
				idlist_add(db->arena, db->by_name, e->call->aliases[a], id, 0);
				idlist_add(db->arena, db->by_aten, aten_of_name(db->arena, e->call->aliases[a]), id, 0);
			}
			idlist_add(db->arena, db->by_aten, e->aten_name, id, 0);
			/* its gradient tests run the backward op it names
			 * (nn.functional.softshrink: softshrink_backward) */
			if (e->call->aten_backward_name && strcmp(e->call->aten_backward_name, e->aten_name))
				idlist_add(db->arena, db->by_backward, e->call->aten_backward_name, id, 0);
		}
	}
}

/* ---- evaluating list expressions -------------------------------------------------------- */

struct ev {
	ot_testdb *db;
	struct module *mods;
	size_t nmods;
	size_t self;          /* the module evaluated in */
	const ot_toks *t;
	ot_buf tmp;
};

static uint8_t *new_set(struct ev *e)
{
	return ot_arena_alloc(e->db->arena, e->db->nentries + 1);
}

static bool is(const struct ev *e, uint32_t i, const char *s)
{
	return ot_tok_is(e->t, i, s);
}

static bool is_name(const struct ev *e, uint32_t i)
{
	return i < e->t->n && e->t->toks[i].kind == OT_TOK_NAME;
}

static bool opener(const struct ev *e, uint32_t i)
{
	return is(e, i, "(") || is(e, i, "[") || is(e, i, "{");
}

/* The next top-level token in [b, e) equal to `s` (a word or an operator), or e. */
static uint32_t find_top(const struct ev *e, uint32_t b, uint32_t end, const char *s)
{
	for (uint32_t i = b; i < end; i++) {
		if (is(e, i, s))
			return i;
		if (opener(e, i))
			i = ot_tok_close(e->t, i);
	}
	return end;
}

static uint32_t dotted_end(const struct ev *e, uint32_t i)
{
	if (!is_name(e, i))
		return i;
	i++;
	while (is(e, i, ".") && is_name(e, i + 1))
		i += 2;
	return i;
}

static void unite(struct ev *e, uint8_t *into, const uint8_t *from)
{
	for (size_t k = 0; k < e->db->nentries; k++)
		if (from[k] > into[k])
			into[k] = from[k];
}

static const uint8_t *lookup_name(struct ev *e, size_t mod, const char *name)
{
	return ot_map_get(e->mods[mod].ns, name);
}

/* A module by its short name ("fft", "definitions", "common_methods_invocations"). */
static int module_named(const struct ev *e, const char *name, size_t len)
{
	for (size_t m = 0; m < e->nmods; m++)
		if (e->mods[m].f->kind == OT_TFILE_DB && strlen(e->mods[m].short_name) == len &&
		    !memcmp(e->mods[m].short_name, name, len))
			return (int)m;
	return -1;
}

/* The value of a dotted name [b, d): own module, then the main databases. */
static const uint8_t *resolve(struct ev *e, uint32_t b, uint32_t d)
{
	const ot_tok *last = &e->t->toks[d - 1];
	const char *name;
	const uint8_t *v;
	int m;
	ot_buf_clear(&e->tmp);
	ot_buf_put(&e->tmp, e->t->text + last->off, last->len);
	name = e->tmp.ptr;
	if (d - b >= 3) { /* mod.name: the module named before the last dot */
		const ot_tok *mt = &e->t->toks[d - 3];
		m = module_named(e, e->t->text + mt->off, mt->len);
		return m >= 0 ? lookup_name(e, (size_t)m, name) : NULL;
	}
	if ((v = lookup_name(e, e->self, name)))
		return v;
	if ((m = module_named(e, "common_methods_invocations", 26)) >= 0 && (v = lookup_name(e, (size_t)m, name)))
		return v;
	if ((m = module_named(e, "common_modules", 14)) >= 0)
		return lookup_name(e, (size_t)m, name);
	return NULL;
}

static const uint8_t *eval(struct ev *e, uint32_t b, uint32_t end);

/* The entry created by the call whose callee is token `tok` of the module, or -1. */
static int32_t entry_at(const struct ev *e, uint32_t tok)
{
	const ot_tr_file *f = e->mods[e->self].f;
	size_t lo = 0, hi = f->calls.len;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->calls.items[mid].tok < tok)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->calls.len && f->calls.items[lo].tok == tok ? e->mods[e->self].call_entry[lo] : -1;
}

/* Does entry `id` pass the condition conjunct [b, end) about variable `var`? 1 yes, 0 no, -1 unknown. */
static int conjunct(struct ev *e, uint32_t b, uint32_t end, const char *var, uint32_t id)
{
	const struct entry *en = &e->db->entries[id];
	bool neg = false;
	int r = -1;
	if (is(e, b, "not")) {
		neg = true;
		b++;
	}
	if (is(e, b, "(") && ot_tok_close(e->t, b) == end - 1)
		return (r = conjunct(e, b + 1, end - 1, var, id)) < 0 ? -1 : neg ? !r : r;
	if (is(e, b, "isinstance") && is(e, b + 1, "(") && is(e, b + 2, var) && is(e, b + 3, ",")) {
		uint32_t close = ot_tok_close(e->t, b + 1);
		r = 0;
		for (uint32_t k = b + 4; k < close; k++) {
			ot_buf name = OT_BUF_INIT;
			uint32_t d;
			if (!is_name(e, k))
				continue;
			d = dotted_end(e, k);
			ot_buf_put(&name, e->t->text + e->t->toks[d - 1].off, e->t->toks[d - 1].len);
			if (derives(e->db, en->call->cls, name.ptr))
				r = 1;
			ot_buf_free(&name);
			k = d - 1;
		}
	} else if (is(e, b, var) && is(e, b + 1, ".") && is(e, b + 2, "name")) {
		uint32_t k = b + 3;
		ot_buf s = OT_BUF_INIT;
		if ((is(e, k, "==") || is(e, k, "!=")) && ot_tok_string(e->t, k + 1, &s, NULL)) {
			r = !strcmp(s.ptr, en->name) == is(e, k, "==");
		} else if (is(e, k, "in") || (is(e, k, "not") && is(e, k + 1, "in"))) {
			bool negin = is(e, k, "not");
			uint32_t o = k + (negin ? 2 : 1), close;
			if (opener(e, o)) {
				close = ot_tok_close(e->t, o);
				r = 0;
				for (uint32_t j = o + 1; j < close; j++) {
					uint32_t next;
					if (ot_tok_string(e->t, j, &s, &next)) {
						if (!strcmp(s.ptr, en->name))
							r = 1;
						j = next - 1;
					} else if (!is(e, j, ",")) {
						r = -1; /* not a list of literals */
						break;
					}
				}
				if (r >= 0 && negin)
					r = !r;
			}
		} else if (is(e, k, ".") && is(e, k + 1, "startswith") && is(e, k + 2, "(") &&
			   ot_tok_string(e->t, k + 3, &s, NULL)) {
			r = ot_starts_with(en->name, s.ptr);
		}
		ot_buf_free(&s);
	}
	if (r < 0)
		return -1;
	return neg ? !r : r;
}

/* `src` filtered by the condition [b, end) on variable `var`. */
static const uint8_t *filter(struct ev *e, const uint8_t *src, const char *var, uint32_t b, uint32_t end)
{
	uint8_t *out = new_set(e);
	bool has_or = find_top(e, b, end, "or") < end;
	for (uint32_t id = 0; id < e->db->nentries; id++) {
		uint8_t lv = src[id];
		if (!lv)
			continue;
		if (has_or) {
			out[id] = LV_SOME;
			continue;
		}
		for (uint32_t c = b; c < end && lv;) {
			uint32_t ce = find_top(e, c, end, "and");
			int r = conjunct(e, c, ce, var, id);
			if (r == 0)
				lv = LV_NONE;
			else if (r < 0)
				lv = LV_SOME;
			c = ce + 1;
		}
		out[id] = lv;
	}
	return out;
}

/* `X for VAR in SRC [if COND]` in [b, end): the comprehension's set, or NULL. */
static const uint8_t *comprehension(struct ev *e, uint32_t b, uint32_t end, uint32_t at_for)
{
	uint32_t in, cond;
	const uint8_t *src;
	char var[64];
	const ot_tok *v = &e->t->toks[at_for + 1];
	if (!is_name(e, at_for + 1) || !is(e, at_for + 2, "in") || at_for != b + 1 ||
	    v->len >= sizeof(var) || !ot_tok_is(e->t, b, (memcpy(var, e->t->text + v->off, v->len), var[v->len] = 0, var)))
		return NULL; /* [op.name for op in ...] makes no entries */
	in = at_for + 3;
	cond = find_top(e, in, end, "if");
	if (!(src = eval(e, in, cond)))
		return NULL;
	return cond < end ? filter(e, src, var, cond + 1, end) : src;
}

/* The elements of a list, tuple or set display [b, end) (no brackets). */
static const uint8_t *display(struct ev *e, uint32_t b, uint32_t end)
{
	uint32_t at_for = find_top(e, b, end, "for");
	uint8_t *out;
	if (at_for < end)
		return comprehension(e, b, end, at_for);
	out = new_set(e);
	for (uint32_t x = b; x < end;) {
		uint32_t xe = find_top(e, x, end, ",");
		if (is(e, x, "*")) {
			const uint8_t *v = eval(e, x + 1, xe);
			if (v)
				unite(e, out, v);
		} else if (is_name(e, x)) {
			uint32_t d = dotted_end(e, x);
			int32_t id = is(e, d, "(") ? entry_at(e, d - 1) : -1;
			if (id >= 0) {
				out[id] = LV_ALL;
			} else {
				const uint8_t *v = eval(e, x, xe);
				if (v)
					unite(e, out, v);
			}
		}
		x = xe + 1;
	}
	return out;
}

/* One operand of `+`. */
static const uint8_t *primary(struct ev *e, uint32_t b, uint32_t end)
{
	uint32_t d;
	if (b >= end)
		return NULL;
	if (opener(e, b) && ot_tok_close(e->t, b) == end - 1)
		return display(e, b + 1, end - 1);
	if (!is_name(e, b))
		return NULL;
	d = dotted_end(e, b);
	if (d == end)
		return resolve(e, b, d);
	if (is(e, d, "(") && ot_tok_close(e->t, d) == end - 1) {
		uint32_t a1 = d + 1, a1e = find_top(e, a1, end - 1, ",");
		if (d == b + 1 && (is(e, b, "tuple") || is(e, b, "list") || is(e, b, "sorted") ||
				   is(e, b, "set") || is(e, b, "frozenset")))
			return find_top(e, a1, a1e, "for") < a1e ? display(e, a1, a1e) : eval(e, a1, a1e);
		if (d == b + 1 && is(e, b, "filter") && a1e < end - 1) {
			const uint8_t *src = eval(e, a1e + 1, find_top(e, a1e + 1, end - 1, ","));
			uint8_t *out;
			if (!src)
				return NULL;
			if (is(e, a1, "lambda") && is_name(e, a1 + 1) && is(e, a1 + 2, ":")) {
				char var[64];
				const ot_tok *v = &e->t->toks[a1 + 1];
				if (v->len < sizeof(var)) {
					memcpy(var, e->t->text + v->off, v->len);
					var[v->len] = '\0';
					return filter(e, src, var, a1 + 3, a1e);
				}
			}
			out = new_set(e); /* filter(a_function, src): not evaluated */
			for (size_t k = 0; k < e->db->nentries; k++)
				out[k] = src[k] ? LV_SOME : LV_NONE;
			return out;
		}
		return NULL;
	}
	if (is(e, d, "[") && ot_tok_close(e->t, d) == end - 1) { /* a slice of a list */
		const uint8_t *src = resolve(e, b, d);
		uint8_t *out;
		if (!src)
			return NULL;
		out = new_set(e);
		for (size_t k = 0; k < e->db->nentries; k++)
			out[k] = src[k] ? LV_SOME : LV_NONE;
		return out;
	}
	return NULL;
}

/* The set of entries an expression [b, end) holds, or NULL when unknown. */
static const uint8_t *eval(struct ev *e, uint32_t b, uint32_t end)
{
	uint32_t plus = find_top(e, b, end, "+");
	const uint8_t *first;
	uint8_t *out;
	bool any;
	if (plus == end)
		return primary(e, b, end);
	out = new_set(e);
	first = primary(e, b, plus);
	any = first != NULL;
	if (first)
		unite(e, out, first);
	for (uint32_t x = plus + 1; x < end;) {
		uint32_t xe = find_top(e, x, end, "+");
		const uint8_t *v = primary(e, x, xe);
		if (v) {
			unite(e, out, v);
			any = true;
		}
		x = xe + 1;
	}
	return any ? out : NULL;
}

static const char *short_name(ot_arena *a, const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	if (!strcmp(base, "__init__.py") && slash > path) {
		const char *p = slash;
		while (p > path && p[-1] != '/')
			p--;
		return ot_arena_strndup(a, p, (size_t)(slash - p));
	}
	return ot_arena_strndup(a, base, strlen(base) - (ot_ends_with(base, ".py") ? 3 : 0));
}

/* Module-level assignments in order, then (test files) each decorated test's list. */
static void evaluate(ot_testdb *db, struct module *mods)
{
	struct ev e = {db, mods, db->nfiles, 0, NULL, OT_BUF_INIT};
	OT_VEC(struct template) tv = {0};
	for (size_t m = 0; m < db->nfiles; m++) {
		ot_tr_file *f = mods[m].f;
		if (f->kind == OT_TFILE_BENCH)
			continue;
		e.self = m;
		e.t = &f->toks;
		for (size_t k = 0; k < f->assigns.len; k++) {
			const ot_tr_assign *as = &f->assigns.items[k];
			const uint8_t *v = eval(&e, as->expr, as->expr_end);
			if (as->augmented) {
				const uint8_t *old = ot_map_get(mods[m].ns, as->name);
				uint8_t *sum;
				if (!old || !v)
					continue; /* unknown += x stays unknown */
				sum = new_set(&e);
				unite(&e, sum, old);
				unite(&e, sum, v);
				v = sum;
			}
			ot_map_put(mods[m].ns, as->name, (void *)v);
		}
		for (size_t k = 0; k < f->tests.len; k++) {
			struct template t = {&f->tests.items[k], (uint32_t)m, NULL, {0}};
			t.lv = eval(&e, t.t->expr, t.t->expr_end);
			t.pub = (ot_tf_template){f->path, t.t->line, t.t->cls, t.t->func, t.t->func_line,
						 t.t->decorator, t.t->expr_text, t.lv != NULL, (uint32_t)tv.len};
			ot_vec_push(&tv, t);
		}
	}
	db->templates = tv.items;
	db->ntemplates = tv.len;
	ot_buf_free(&e.tmp);
}

/* The torch._refs definition a reference entry "_refs.nn.functional.relu" tests:
 * def relu in torch/_refs/nn/functional/__init__.py (or .../functional.py). */
static void reference_impl(ot_testdb *db, ot_tf_entry *out, const char *name)
{
	const char *dot = strrchr(name, '.'), *fn = dot ? dot + 1 : name;
	ot_buf dir = OT_BUF_INIT;
	const char *cands[2];
	ot_buf_puts(&dir, "torch/");
	for (const char *p = name; dot && p < dot; p++)
		ot_buf_putc(&dir, *p == '.' ? '/' : *p);
	cands[0] = ot_arena_printf(db->arena, "%s/__init__.py", dir.ptr);
	cands[1] = ot_arena_printf(db->arena, "%s.py", dir.ptr);
	ot_buf_free(&dir);
	out->impl_file = cands[0];
	for (const ot_ix_pydef *d = ot_index_pydefs(db->ix, fn); d; d = d->next) {
		const ot_ix_file *f = ot_index_file(db->ix, d->file);
		if (d->parent || (strcmp(f->path, cands[0]) && strcmp(f->path, cands[1])))
			continue;
		out->impl_file = f->path;
		out->impl_line = d->line;
		out->impl_symbol = d->kind == OT_PY_DEF ? ot_arena_printf(db->arena, "def %s", fn) : fn;
		return;
	}
}

/* The entries as lookups give them, each made once. */
static void publish_entries(ot_testdb *db)
{
	db->pub = ot_calloc(db->nentries + 1, sizeof(*db->pub));
	for (size_t i = 0; i < db->nentries; i++) {
		const struct entry *e = &db->entries[i];
		ot_tf_entry *o = &db->pub[i];
		ot_tf_decor *d = ot_arena_alloc(db->arena, (e->call->ndecors + 1) * sizeof(*d));
		o->kind = e->kind;
		o->cls = e->call->cls;
		o->name = e->name;
		o->variant = e->call->variant;
		o->aten_name = e->aten_name;
		o->aten_backward_name = e->kind == OT_TF_OPINFO ? e->call->aten_backward_name : NULL;
		o->list = e->list;
		o->file = e->file->path;
		o->line = e->call->line;
		o->index = (uint32_t)i;
		for (uint32_t k = 0; k < e->call->ndecors; k++) {
			const ot_tr_decor *x = &e->call->decors[k];
			d[k] = (ot_tf_decor){x->decorator, x->cls, x->test, x->device, x->line};
		}
		o->decors = d;
		o->ndecors = e->call->ndecors;
		if (e->kind == OT_TF_REFERENCE)
			reference_impl(db, o, e->name);
	}
}

/* ---- building ------------------------------------------------------------------------------ */

ot_testdb *ot_testdb_build(const ot_index *ix, int threads)
{
	ot_testdb *db = ot_calloc(1, sizeof(*db));
	struct module *mods;
	double t0 = ot_clock();

	db->ix = ix;
	db->arena = ot_arena_new();
	db->bases = ot_map_new();
	db->by_name = ot_map_new();
	db->by_aten = ot_map_new();
	db->by_backward = ot_map_new();
	db->refs = ot_map_new();
	db->modules = ot_map_new();
	db->mentions = ot_map_new();
	db->benches = ot_map_new();
	scan_files(db, threads);
	mods = ot_calloc(db->nfiles ? db->nfiles : 1, sizeof(*mods));
	for (size_t i = 0; i < db->nfiles; i++) {
		mods[i].f = &db->files[i];
		mods[i].short_name = short_name(db->arena, db->files[i].path);
		mods[i].ns = ot_map_new();
	}
	collect_entries(db, mods);
	publish_entries(db);
	evaluate(db, mods);
	for (size_t i = 0; i < db->nfiles; i++) {
		ot_tr_file *f = &db->files[i];
		for (size_t k = 0; k < f->mentions.len; k++)
			idlist_add(db->arena, db->mentions, f->mentions.items[k].name, (uint32_t)i, (uint32_t)k);
		for (size_t k = 0; k < f->benches.len; k++)
			idlist_add(db->arena, db->benches, f->benches.items[k].api, (uint32_t)i, (uint32_t)k);
		db->stats.mentions += f->mentions.len;
		db->stats.benchmarks += f->benches.len;
		ot_toks_free(&f->toks); /* evaluated: the records keep their own strings */
		ot_map_free(mods[i].ns);
	}
	free(mods);
	db->stats.files = db->nfiles;
	db->stats.entries = db->nentries;
	db->stats.tests = db->ntemplates;
	db->stats.seconds = ot_clock() - t0;
	return db;
}

void ot_testdb_free(ot_testdb *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->nfiles; i++)
		ot_testscan_free(&db->files[i]);
	free(db->files);
	free(db->entries);
	free(db->pub);
	free(db->templates);
	for (int t = 0; t < db->narenas; t++)
		ot_arena_free(db->arenas[t]);
	free(db->arenas);
	ot_map_free(db->bases);
	ot_map_free(db->by_name);
	ot_map_free(db->by_aten);
	ot_map_free(db->by_backward);
	ot_map_free(db->refs);
	ot_map_free(db->modules);
	ot_map_free(db->mentions);
	ot_map_free(db->benches);
	ot_arena_free(db->arena);
	free(db);
}

const ot_testdb_stats *ot_testdb_get_stats(const ot_testdb *db)
{
	return &db->stats;
}

size_t ot_testdb_entry_count(const ot_testdb *db)
{
	return db ? db->nentries : 0;
}

const ot_tf_entry *ot_testdb_entry(const ot_testdb *db, size_t i)
{
	return &db->pub[i];
}

size_t ot_testdb_template_count(const ot_testdb *db)
{
	return db ? db->ntemplates : 0;
}

const ot_tf_template *ot_testdb_template(const ot_testdb *db, size_t i)
{
	return &db->templates[i].pub;
}

/* ---- one op ---------------------------------------------------------------------------------- */

struct look {
	const ot_testdb *db;
	ot_arena *a;
	uint8_t *mine;      /* entry id -> 1 when the op's */
	OT_VEC(uint32_t) ids;
	ot_buf tmp;
};

static void take(struct look *l, const struct idnode *n)
{
	for (; n; n = n->next)
		if (!l->mine[n->a]) {
			l->mine[n->a] = 1;
			ot_vec_push(&l->ids, n->a);
		}
}

/* An in-place name (add_, not __iand__) is tested as its op's in-place variant. */
static void take_name(struct look *l, const ot_map *m, const char *name)
{
	size_t n = strlen(name);
	take(l, idlist_get(m, name));
	if (n > 1 && name[n - 1] == '_' && !ot_starts_with(name, "__")) {
		char *base = ot_arena_strndup(l->a, name, n - 1);
		take(l, idlist_get(m, base));
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void matched_entries(struct look *l, const ot_trace *tr)
{
	const ot_target *t = &tr->target;
	size_t n;
	switch (t->strategy) {
	case OT_STRAT_TORCH:
		take_name(l, l->db->by_name,
			  t->submodule[0] ? ot_arena_printf(l->a, "%s.%s", t->submodule, t->name) : t->name);
		break;
	case OT_STRAT_FUNCTIONAL:
		take_name(l, l->db->by_name, ot_arena_printf(l->a, "nn.functional.%s", t->name));
		break;
	case OT_STRAT_METHOD:
		take_name(l, l->db->by_name, t->name);
		break;
	case OT_STRAT_MODULE:
		take(l, idlist_get(l->db->modules, ot_arena_printf(l->a, "torch.nn.%s", t->name)));
		break;
	default:
		break;
	}
	/* an aten op by aten_name: a Python name's trace also lists the ops its
	 * Python code calls (nn.LSTM: index_select), which its entries are not */
	for (size_t i = 0; t->strategy == OT_STRAT_ATEN && i < tr->aten.len; i++) {
		const char *full = tr->aten.items[i], *dot = strchr(full, '.');
		take_name(l, l->db->by_aten, dot ? ot_arena_strndup(l->a, full, (size_t)(dot - full)) : full);
	}
	/* the reference entries of those */
	n = l->ids.len;
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &l->db->entries[l->ids.items[i]];
		if (e->kind != OT_TF_OPINFO)
			continue;
		for (const struct idnode *r = idlist_get(l->db->refs, e->name); r; r = r->next)
			if (!strcmp(l->db->entries[r->a].call->opinfo_variant, e->call->variant) && !l->mine[r->a]) {
				l->mine[r->a] = 1;
				ot_vec_push(&l->ids, r->a);
			}
	}
	/* an aten op by aten_backward_name: the entries whose gradient tests
	 * run it (their references test the forward op only) */
	for (size_t i = 0; t->strategy == OT_STRAT_ATEN && i < tr->aten.len; i++) {
		const char *full = tr->aten.items[i], *dot = strchr(full, '.');
		take(l, idlist_get(l->db->by_backward, dot ? ot_arena_strndup(l->a, full, (size_t)(dot - full)) : full));
	}
	if (l->ids.len > 1)
		qsort(l->ids.items, l->ids.len, sizeof(*l->ids.items), cmp_u32);
}

static void put_entries(struct look *l, ot_testfacts *tf)
{
	const ot_tf_entry **v = ot_arena_alloc(l->a, (l->ids.len + 1) * sizeof(*v));
	for (size_t i = 0; i < l->ids.len; i++)
		v[i] = &l->db->pub[l->ids.items[i]];
	tf->entries = v;
	tf->nentries = l->ids.len;
}

typedef OT_VEC(const ot_tf_template *) template_vec;

static int cmp_mention(const void *a, const void *b)
{
	const ot_tf_mention *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static void put_tests(struct look *l, ot_testfacts *tf)
{
	const ot_testdb *db = l->db;
	template_vec all = {0}, some = {0};
	OT_VEC(ot_tf_mention) ments = {0};

	for (size_t k = 0; k < db->ntemplates; k++) {
		const struct template *t = &db->templates[k];
		uint8_t best = 0;
		if (!t->lv)
			continue;
		for (size_t i = 0; i < l->ids.len; i++) {
			uint32_t id = l->ids.items[i];
			if ((db->entries[id].kind == OT_TF_MODULE) == t->t->modules && t->lv[id] > best)
				best = t->lv[id];
		}
		if (best == LV_ALL)
			ot_vec_push(&all, &t->pub);
		else if (best == LV_SOME)
			ot_vec_push(&some, &t->pub);
	}
	for (size_t i = 0; i < l->ids.len; i++) {
		const struct entry *e = &db->entries[l->ids.items[i]];
		if (e->kind == OT_TF_MODULE)
			continue;
		for (const struct idnode *n = idlist_get(db->mentions, e->name); n; n = n->next) {
			const ot_tr_mention *m = &db->files[n->a].mentions.items[n->b];
			ot_tf_mention x = {db->files[n->a].path, m->line, m->kind, m->name, m->variant, m->cls, m->test};
			if (!strcmp(m->variant, e->call->variant))
				ot_vec_push(&ments, x);
		}
	}
	if (ments.len > 1)
		qsort(ments.items, ments.len, sizeof(*ments.items), cmp_mention);
	tf->runs = OT_ARENA_VEC(l->a, &all);
	tf->nruns = all.len;
	tf->runs_filtered = OT_ARENA_VEC(l->a, &some);
	tf->nruns_filtered = some.len;
	tf->mentions = OT_ARENA_VEC(l->a, &ments);
	tf->nmentions = ments.len;
	ot_vec_free(&all);
	ot_vec_free(&some);
	ot_vec_free(&ments);
}

/* The Python names a benchmark may call the op by. */
static void bench_apis(struct look *l, const ot_trace *tr, const ot_registry *reg, ot_strvec *out)
{
	const ot_target *t = &tr->target;
	switch (t->strategy) {
	case OT_STRAT_TORCH:
		ot_vec_push(out, t->submodule[0] ? ot_arena_printf(l->a, "torch.%s.%s", t->submodule, t->name)
						 : ot_arena_printf(l->a, "torch.%s", t->name));
		break;
	case OT_STRAT_FUNCTIONAL:
		ot_vec_push(out, ot_arena_printf(l->a, "torch.nn.functional.%s", t->name));
		break;
	case OT_STRAT_METHOD:
		ot_vec_push(out, ot_arena_printf(l->a, "Tensor.%s", t->name));
		break;
	case OT_STRAT_MODULE:
		ot_vec_push(out, ot_arena_printf(l->a, "torch.nn.%s", t->name));
		break;
	case OT_STRAT_ATEN:
		for (size_t i = 0; reg && i < tr->aten.len; i++) {
			const ot_reg_func *f = ot_registry_find(reg, tr->aten.items[i]);
			const char *v;
			if (!f || f->python_module)
				continue;
			v = f->variants ? f->variants : "function";
			if (strstr(v, "function"))
				ot_vec_push(out, ot_arena_printf(l->a, "torch.%s", f->schema.name));
			if (strstr(v, "method"))
				ot_vec_push(out, ot_arena_printf(l->a, "Tensor.%s", f->schema.name));
		}
		break;
	default:
		break;
	}
}

static void put_benches(struct look *l, const ot_trace *tr, const ot_registry *reg, ot_testfacts *tf)
{
	ot_strvec apis = {0};
	OT_VEC(ot_tf_bench) v = {0};
	ot_map *seen = ot_map_new();
	bench_apis(l, tr, reg, &apis);
	for (size_t i = 0; i < apis.len; i++) {
		if (ot_map_get(seen, apis.items[i]))
			continue;
		ot_map_put(seen, apis.items[i], (void *)1);
		for (const struct idnode *n = idlist_get(l->db->benches, apis.items[i]); n; n = n->next) {
			const ot_tr_bench *b = &l->db->files[n->a].benches.items[n->b];
			ot_tf_bench x = {b->api, b->cls, b->where, l->db->files[n->a].path, b->line};
			ot_vec_push(&v, x);
		}
	}
	tf->benches = OT_ARENA_VEC(l->a, &v);
	tf->nbenches = v.len;
	ot_vec_free(&v);
	ot_vec_free(&apis);
	ot_map_free(seen);
}

static void put_decomps(struct look *l, const ot_trace *tr, ot_testfacts *tf)
{
	OT_VEC(ot_tf_decomp) v = {0};
	ot_map *seen = ot_map_new();
	for (size_t i = 0; i < tr->aten.len; i++) {
		const char *full = tr->aten.items[i], *dot = strchr(full, '.');
		const char *base = dot ? ot_arena_strndup(l->a, full, (size_t)(dot - full)) : full;
		if (ot_map_get(seen, base))
			continue;
		ot_map_put(seen, base, (void *)1);
		for (const ot_ix_decomp *d = ot_index_decomps(l->db->ix, base); d; d = d->next) {
			ot_tf_decomp x = {d->op, d->func, ot_index_file(l->db->ix, d->file)->path, d->line};
			ot_vec_push(&v, x);
		}
	}
	tf->decomps = OT_ARENA_VEC(l->a, &v);
	tf->ndecomps = v.len;
	ot_vec_free(&v);
	ot_map_free(seen);
}

const ot_testfacts *ot_testdb_lookup(const ot_testdb *db, const ot_trace *tr,
				     const ot_registry *reg, ot_arena *arena)
{
	ot_testfacts *tf = ot_arena_alloc(arena, sizeof(*tf));
	struct look l = {db, arena, NULL, {0}, OT_BUF_INIT};
	if (!db || !tr->target.canonical[0] || tr->status == OT_STATUS_ERROR)
		return tf;
	l.mine = ot_calloc(db->nentries + 1, 1);
	matched_entries(&l, tr);
	put_entries(&l, tf);
	put_tests(&l, tf);
	put_decomps(&l, tr, tf);
	put_benches(&l, tr, reg, tf);
	ot_vec_free(&l.ids);
	ot_buf_free(&l.tmp);
	free(l.mine);
	return tf;
}

