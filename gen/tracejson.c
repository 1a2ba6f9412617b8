#include "tracejson.h"

#include <unistd.h>

#include <sys/stat.h>

#include <fcntl.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "testdb.h"
#include "value.h"

/*
 * trace.json is written straight from the traces (no intermediate value
 * tree): a run of every op of a release produces tens of megabytes, and
 * building a tree first cost more than tracing. The format is fixed by
 * tracejson.h; `ind` is the current indentation in spaces.
 */

static void newline(ot_buf *b, int ind)
{
	ot_buf_grow_by(b, (size_t)ind + 1);
	b->ptr[b->size++] = '\n';
	memset(b->ptr + b->size, ' ', (size_t)ind);
	b->size += (size_t)ind;
	b->ptr[b->size] = '\0';
}

/* `,` (unless first), a newline with indentation, then the key: keys are
 * literals, written as they are (sizeof gives their length). */
#define key(b, ind, first, k) put_key(b, ind, first, "\"" k "\": ", sizeof("\"" k "\": ") - 1)

static void put_key(ot_buf *b, int ind, bool first, const char *quoted, size_t len)
{
	ot_buf_grow_by(b, (size_t)ind + len + 2);
	if (!first)
		b->ptr[b->size++] = ',';
	b->ptr[b->size++] = '\n';
	memset(b->ptr + b->size, ' ', (size_t)ind);
	b->size += (size_t)ind;
	memcpy(b->ptr + b->size, quoted, len);
	b->size += len;
	b->ptr[b->size] = '\0';
}

static void str(ot_buf *b, const char *s)
{
	if (s)
		ot_json_escape(b, s, strlen(s));
	else
		ot_buf_puts(b, "null");
}

/* Lists and objects: an opening bracket, then each member after item() (a
 * comma unless first, a newline at ind + 2), then end(): a newline at ind
 * before the closing bracket, unless the list is empty ("[]"). */
static void item(ot_buf *b, int ind, size_t i)
{
	if (i)
		ot_buf_putc(b, ',');
	newline(b, ind + 2);
}

static void end(ot_buf *b, int ind, size_t n, char bracket)
{
	if (n)
		newline(b, ind);
	ot_buf_putc(b, bracket);
}

static void str_list(ot_buf *b, int ind, const char *const *items, size_t n)
{
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		item(b, ind, i);
		str(b, items[i]);
	}
	end(b, ind, n, ']');
}

static void strings(ot_buf *b, int ind, const ot_strvec *v)
{
	str_list(b, ind, v->items, v->len);
}

static void boolean(ot_buf *b, bool v)
{
	ot_buf_puts(b, v ? "true" : "false");
}

/* An object on one line (steps, nodes, edges: a trace has hundreds of
 * them): `{"k": v, "k2": v2}`. */
#define ikey(b, first, k) ot_buf_puts(b, (first) ? "\"" k "\": " : ", \"" k "\": ")

static void num_or_null(ot_buf *b, bool have, long long v)
{
	if (have)
		ot_buf_put_int(b, v);
	else
		ot_buf_puts(b, "null");
}

/* OT_MAIN_* bits as ["cpu", "cuda"]. */
static void mains(ot_buf *b, uint8_t bits)
{
	ot_buf_putc(b, '[');
	if (bits & OT_MAIN_CPU)
		ot_buf_puts(b, "\"cpu\"");
	if (bits & OT_MAIN_CUDA)
		ot_buf_puts(b, bits & OT_MAIN_CPU ? ", \"cuda\"" : "\"cuda\"");
	ot_buf_putc(b, ']');
}

static const char *const device_names[OT_DEV_COUNT] = {"cpu", "cuda"};
static const char *const reach_names[] = {"never", "maybe", "yes"};

static void step(ot_buf *b, const ot_step *s)
{
	ot_buf_putc(b, '{');
	ikey(b, true, "layer");
	str(b, ot_layer_name(s->layer));
	ikey(b, false, "file");
	str(b, s->found ? s->file : NULL);
	ikey(b, false, "line");
	num_or_null(b, s->found, s->line);
	ikey(b, false, "symbol");
	str(b, s->symbol);
	ikey(b, false, "note");
	str(b, s->note);
	ikey(b, false, "op");
	str(b, s->op);
	ikey(b, false, "backend");
	str(b, s->backend);
	ikey(b, false, "depth");
	ot_buf_put_int(b, s->depth);
	ikey(b, false, "parent");
	ot_buf_put_int(b, s->parent);
	ikey(b, false, "main");
	mains(b, s->main);
	ikey(b, false, "sure");
	mains(b, s->sure);
	ikey(b, false, "when");
	str(b, s->when);
	if (s->split_when) {
		ikey(b, false, "when_on");
		ot_buf_puts(b, "{\"cpu\": ");
		str(b, s->dev_when[OT_DEV_CPU]);
		ot_buf_puts(b, ", \"cuda\": ");
		str(b, s->dev_when[OT_DEV_CUDA]);
		ot_buf_putc(b, '}');
	}
	if (s->body) {
		ikey(b, false, "body");
		str(b, s->body);
	}
	if (s->fails) {
		ikey(b, false, "fails");
		num_or_null(b, true, s->fails);
	}
	ot_buf_putc(b, '}');
}

static void node(ot_buf *b, const ot_node *n)
{
	ot_buf_putc(b, '{');
	ikey(b, true, "kind");
	str(b, ot_node_kind_name((ot_node_kind)n->kind));
	ikey(b, false, "layer");
	str(b, ot_layer_name((ot_layer)n->layer));
	ikey(b, false, "file");
	str(b, n->found ? n->file : NULL);
	ikey(b, false, "line");
	num_or_null(b, n->found, n->line);
	ikey(b, false, "symbol");
	str(b, n->symbol);
	ikey(b, false, "note");
	str(b, n->note);
	ikey(b, false, "op");
	str(b, n->op);
	ikey(b, false, "backend");
	str(b, n->backend);
	ikey(b, false, "lib");
	str(b, n->lib);
	ikey(b, false, "fails");
	num_or_null(b, n->fails != 0, n->fails);
	ikey(b, false, "main");
	mains(b, n->main);
	ikey(b, false, "sure");
	mains(b, n->sure);
	ot_buf_putc(b, '}');
}

/* Per device: {"cpu": {"reach", "kind", "when", "line"}, "cuda": {...}}. */
static void edge_conditions(ot_buf *b, const ot_edge *e)
{
	ot_buf_putc(b, '{');
	for (int d = 0; d < OT_DEV_COUNT; d++) {
		const ot_cond *c = &e->cond[d];
		if (d)
			ot_buf_puts(b, ", ");
		str(b, device_names[d]);
		ot_buf_puts(b, ": {");
		ikey(b, true, "reach");
		str(b, reach_names[e->reach[d] <= OT_REACH_YES ? e->reach[d] : OT_REACH_NEVER]);
		ikey(b, false, "kind");
		str(b, ot_when_kind_name((ot_when_kind)c->kind));
		ikey(b, false, "when");
		str(b, c->text);
		ikey(b, false, "line");
		num_or_null(b, c->line != 0, c->line);
		ot_buf_putc(b, '}');
	}
	ot_buf_putc(b, '}');
}

static void edge(ot_buf *b, const ot_edge *e)
{
	ot_buf_putc(b, '{');
	ikey(b, true, "kind");
	str(b, ot_edge_kind_name((ot_edge_kind)e->kind));
	ikey(b, false, "from");
	ot_buf_put_int(b, e->from);
	ikey(b, false, "to");
	ot_buf_put_int(b, e->to);
	ikey(b, false, "key");
	str(b, e->key);
	ikey(b, false, "exact");
	boolean(b, e->exact);
	ikey(b, false, "site");
	if (e->site_file) {
		ot_buf_putc(b, '{');
		ikey(b, true, "file");
		str(b, e->site_file);
		ikey(b, false, "line");
		ot_buf_put_int(b, e->site_line);
		ikey(b, false, "symbol");
		str(b, e->site_symbol);
		ot_buf_putc(b, '}');
	} else {
		ot_buf_puts(b, "null");
	}
	ikey(b, false, "main");
	mains(b, e->main);
	ikey(b, false, "sure");
	mains(b, e->sure);
	ikey(b, false, "when_kind");
	str(b, ot_when_kind_name((ot_when_kind)e->when_kind));
	ikey(b, false, "when");
	str(b, e->when);
	ikey(b, false, "when_file");
	str(b, e->when ? e->when_file : NULL);
	ikey(b, false, "when_line");
	num_or_null(b, e->when && e->when_file, e->when_line);
	ikey(b, false, "devices");
	edge_conditions(b, e);
	ot_buf_putc(b, '}');
}

static void indices(ot_buf *b, const uint32_t *v, size_t n)
{
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			ot_buf_puts(b, ", ");
		ot_buf_put_int(b, v[i]);
	}
	ot_buf_putc(b, ']');
}

static void summary(ot_buf *b, int ind, const ot_trace *tr)
{
	int in = ind + 2;

	ot_buf_putc(b, '{');
	key(b, in, true, "backends");
	strings(b, in, &tr->backends);
	key(b, in, false, "gpu_libs");
	strings(b, in, &tr->gpu_libs);
	key(b, in, false, "cpu_libs");
	strings(b, in, &tr->cpu_libs);
	key(b, in, false, "libs");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < tr->libs.len; i++) {
		const ot_lib_use *u = &tr->libs.items[i];
		item(b, in, i);
		ot_buf_putc(b, '{');
		ikey(b, true, "lib");
		str(b, u->lib);
		ikey(b, false, "node");
		ot_buf_put_int(b, u->node);
		ikey(b, false, "main");
		mains(b, u->main);
		ikey(b, false, "when");
		str(b, u->when);
		ot_buf_putc(b, '}');
	}
	end(b, in, tr->libs.len, ']');
	key(b, in, false, "selections");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < tr->selection.len; i++) {
		const ot_selection *s = &tr->selection.items[i];
		item(b, in, i);
		ot_buf_putc(b, '{');
		ikey(b, true, "symbol");
		str(b, s->symbol);
		ikey(b, false, "file");
		str(b, s->file);
		ikey(b, false, "line");
		ot_buf_put_int(b, s->line);
		ikey(b, false, "main");
		mains(b, s->main);
		ot_buf_putc(b, '}');
	}
	end(b, in, tr->selection.len, ']');
	key(b, in, false, "key_nodes");
	ot_buf_putc(b, '{');
	for (int d = 0; d < OT_DEV_COUNT; d++) {
		bool first = true;
		if (d)
			ot_buf_putc(b, ',');
		newline(b, in + 2);
		str(b, device_names[d]);
		ot_buf_puts(b, ": {");
		for (int l = 0; l < OT_LAYER_COUNT; l++) {
			if (!tr->key[d][l])
				continue;
			if (!first)
				ot_buf_puts(b, ", ");
			first = false;
			str(b, ot_layer_name((ot_layer)l));
			ot_buf_puts(b, ": ");
			ot_buf_put_int(b, tr->key[d][l] - 1);
		}
		ot_buf_putc(b, '}');
	}
	end(b, in, 1, '}');
	key(b, in, false, "raises");
	ot_buf_putc(b, '{');
	for (int d = 0; d < OT_DEV_COUNT; d++) {
		if (d)
			ot_buf_puts(b, ", ");
		str(b, device_names[d]);
		ot_buf_puts(b, ": ");
		num_or_null(b, tr->raises[d] != 0, tr->raises[d] ? tr->raises[d] - 1 : 0);
	}
	ot_buf_putc(b, '}');
	key(b, in, false, "calls");
	strings(b, in, &tr->calls);
	end(b, ind, 1, '}');
}

static void put_uint(ot_buf *b, uint32_t v)
{
	ot_buf_put_int(b, (long long)v);
}

static const char *const tf_kinds[] = {"opinfo", "reference", "module"};

/* Test templates as their indexes in the top-level "tests", on one line:
 * an op runs in a hundred of them. */
static void template_indexes(ot_buf *b, const ot_tf_template *const *t, size_t n)
{
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			ot_buf_puts(b, ", ");
		put_uint(b, t[i]->index);
	}
	ot_buf_putc(b, ']');
}

/* The top-level "test_entries": every entry of the release's test databases. */
static void entries_section(ot_buf *b, const ot_testdb *db)
{
	size_t n = ot_testdb_entry_count(db);
	int in = 2;
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		const ot_tf_entry *e = ot_testdb_entry(db, i);
		int k = in + 4;
		item(b, in, i);
		ot_buf_putc(b, '{');
		key(b, k, true, "kind");
		str(b, tf_kinds[e->kind]);
		key(b, k, false, "class");
		str(b, e->cls);
		key(b, k, false, "name");
		str(b, e->name);
		key(b, k, false, "variant");
		str(b, e->variant);
		key(b, k, false, "aten_name");
		str(b, e->aten_name);
		key(b, k, false, "aten_backward_name");
		str(b, e->aten_backward_name);
		key(b, k, false, "list");
		str(b, e->list);
		key(b, k, false, "file");
		str(b, e->file);
		key(b, k, false, "line");
		put_uint(b, e->line);
		key(b, k, false, "skips");
		ot_buf_putc(b, '[');
		for (size_t d = 0; d < e->ndecors; d++) {
			const ot_tf_decor *x = &e->decors[d];
			item(b, k, d);
			ot_buf_putc(b, '{');
			key(b, k + 4, true, "decorator");
			str(b, x->decorator);
			key(b, k + 4, false, "class");
			str(b, x->cls);
			key(b, k + 4, false, "test");
			str(b, x->test);
			key(b, k + 4, false, "device");
			str(b, x->device);
			key(b, k + 4, false, "line");
			put_uint(b, x->line);
			end(b, k + 2, 1, '}');
		}
		end(b, k, e->ndecors, ']');
		key(b, k, false, "implementation");
		if (e->kind != OT_TF_REFERENCE) {
			ot_buf_puts(b, "null");
		} else {
			ot_buf_putc(b, '{');
			key(b, k + 2, true, "symbol");
			str(b, e->impl_symbol);
			key(b, k + 2, false, "file");
			str(b, e->impl_file);
			key(b, k + 2, false, "line");
			if (e->impl_symbol)
				put_uint(b, e->impl_line);
			else
				ot_buf_puts(b, "null");
			end(b, k, 1, '}');
		}
		end(b, in + 2, 1, '}');
	}
	end(b, in, n, ']');
}

/* The top-level "tests": every test template of the release. */
static void templates_section(ot_buf *b, const ot_testdb *db)
{
	size_t n = ot_testdb_template_count(db);
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		const ot_tf_template *t = ot_testdb_template(db, i);
		item(b, 2, i);
		ot_buf_putc(b, '{');
		key(b, 6, true, "file");
		str(b, t->file);
		key(b, 6, false, "line");
		put_uint(b, t->line);
		key(b, 6, false, "class");
		str(b, t->cls);
		key(b, 6, false, "test");
		str(b, t->func);
		key(b, 6, false, "def_line");
		if (t->func)
			put_uint(b, t->func_line);
		else
			ot_buf_puts(b, "null");
		key(b, 6, false, "decorator");
		str(b, t->decorator);
		key(b, 6, false, "list");
		str(b, t->list);
		key(b, 6, false, "evaluated");
		boolean(b, t->evaluated);
		end(b, 4, 1, '}');
	}
	end(b, 2, n, ']');
}

/* The op's "tests" member (testdb.h): entries, decompositions, test files, benchmarks. */
static void tests_member(ot_buf *b, int ind, const ot_testfacts *tf)
{
	int in = ind + 2;
	if (!tf) {
		ot_buf_puts(b, "null");
		return;
	}
	ot_buf_putc(b, '{');
	key(b, in, true, "entries");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < tf->nentries; i++) {
		if (i)
			ot_buf_puts(b, ", ");
		put_uint(b, tf->entries[i]->index);
	}
	ot_buf_putc(b, ']');
	key(b, in, false, "decompositions");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < tf->ndecomps; i++) {
		const ot_tf_decomp *d = &tf->decomps[i];
		item(b, in, i);
		ot_buf_putc(b, '{');
		key(b, in + 4, true, "op");
		str(b, d->op);
		key(b, in + 4, false, "function");
		str(b, d->func);
		key(b, in + 4, false, "file");
		str(b, d->file);
		key(b, in + 4, false, "line");
		put_uint(b, d->line);
		end(b, in + 2, 1, '}');
	}
	end(b, in, tf->ndecomps, ']');
	key(b, in, false, "runs");
	template_indexes(b, tf->runs, tf->nruns);
	key(b, in, false, "runs_filtered");
	template_indexes(b, tf->runs_filtered, tf->nruns_filtered);
	key(b, in, false, "mentions");
	ot_buf_putc(b, '[');
	for (size_t m = 0; m < tf->nmentions; m++) {
		const ot_tf_mention *x = &tf->mentions[m];
		item(b, in, m);
		ot_buf_putc(b, '{');
		key(b, in + 4, true, "file");
		str(b, x->file);
		key(b, in + 4, false, "line");
		put_uint(b, x->line);
		key(b, in + 4, false, "kind");
		str(b, x->kind);
		key(b, in + 4, false, "name");
		str(b, x->name);
		key(b, in + 4, false, "variant");
		str(b, x->variant);
		key(b, in + 4, false, "class");
		str(b, x->cls);
		key(b, in + 4, false, "test");
		str(b, x->test);
		end(b, in + 2, 1, '}');
	}
	end(b, in, tf->nmentions, ']');
	key(b, in, false, "benchmarks");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < tf->nbenches; i++) {
		const ot_tf_bench *x = &tf->benches[i];
		item(b, in, i);
		ot_buf_putc(b, '{');
		key(b, in + 4, true, "api");
		str(b, x->api);
		key(b, in + 4, false, "class");
		str(b, x->cls);
		key(b, in + 4, false, "where");
		str(b, x->where);
		key(b, in + 4, false, "file");
		str(b, x->file);
		key(b, in + 4, false, "line");
		put_uint(b, x->line);
		end(b, in + 2, 1, '}');
	}
	end(b, in, tf->nbenches, ']');
	end(b, ind, 1, '}');
}

static void op(ot_buf *b, int ind, const ot_trace *tr, const ot_tj_entries *entries)
{
	bool named = tr->target.canonical[0] != '\0';
	int in = ind + 2;

	ot_buf_putc(b, '{');
	key(b, in, true, "input");
	str(b, tr->input);
	key(b, in, false, "name");
	str(b, named ? tr->target.canonical : NULL);
	key(b, in, false, "slug");
	str(b, named ? tr->target.slug : NULL);
	key(b, in, false, "page");
	if (named)
		ot_buf_printf(b, "\"ops/%s.md\"", tr->target.slug); /* slugs need no escaping */
	else
		ot_buf_puts(b, "null");
	key(b, in, false, "status");
	str(b, ot_status_name(tr->status));
	key(b, in, false, "strategy");
	str(b, named ? ot_strategy_id(tr->target.strategy) : NULL);
	key(b, in, false, "aten");
	strings(b, in, &tr->aten);
	key(b, in, false, "steps");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < tr->steps.len; i++) {
		item(b, in, i);
		step(b, &tr->steps.items[i]);
	}
	end(b, in, tr->steps.len, ']');
	key(b, in, false, "overload");
	str(b, tr->overload);
	key(b, in, false, "build");
	str(b, tr->build);
	key(b, in, false, "nodes");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < tr->nodes.len; i++) {
		item(b, in, i);
		node(b, &tr->nodes.items[i]);
	}
	end(b, in, tr->nodes.len, ']');
	key(b, in, false, "edges");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < tr->edges.len; i++) {
		item(b, in, i);
		edge(b, &tr->edges.items[i]);
	}
	end(b, in, tr->edges.len, ']');
	key(b, in, false, "roots");
	indices(b, tr->roots.items, tr->roots.len);
	key(b, in, false, "main_roots");
	ot_buf_put_int(b, (long long)tr->main_roots);
	key(b, in, false, "summary");
	summary(b, in, tr);
	key(b, in, false, "backends");
	ot_buf_putc(b, '{');
	key(b, in + 2, true, "keys");
	strings(b, in + 2, &tr->backends);
	key(b, in + 2, false, "gpu");
	strings(b, in + 2, &tr->gpu_libs);
	key(b, in + 2, false, "selection");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < tr->selection.len; i++) {
		const ot_selection *s = &tr->selection.items[i];
		item(b, in + 2, i);
		ot_buf_putc(b, '{');
		key(b, in + 6, true, "symbol");
		str(b, s->symbol);
		key(b, in + 6, false, "file");
		str(b, s->file);
		key(b, in + 6, false, "line");
		ot_buf_put_int(b, s->line);
		end(b, in + 4, 1, '}');
	}
	end(b, in + 2, tr->selection.len, ']');
	end(b, in, 1, '}');
	key(b, in, false, "calls");
	strings(b, in, &tr->calls);
	key(b, in, false, "messages");
	strings(b, in, &tr->messages);
	key(b, in, false, "suggestions");
	strings(b, in, &tr->suggestions);
	key(b, in, false, "tests");
	tests_member(b, in, tr->tests);
	if (entries) {
		key(b, in, false, "registry");
		ot_buf_putc(b, '[');
		for (size_t i = 0; i < entries->len; i++) {
			item(b, in, i);
			str(b, entries->items[i]->schema.full);
		}
		end(b, in, entries->len, ']');
	}
	end(b, ind, 1, '}');
}

static void formulas(ot_buf *b, int ind, const ot_reg_formula *fs, size_t n)
{
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		item(b, ind, i);
		ot_buf_putc(b, '{');
		key(b, ind + 4, true, "inputs");
		str(b, fs[i].inputs);
		key(b, ind + 4, false, "formula");
		str(b, fs[i].formula);
		key(b, ind + 4, false, "line");
		ot_buf_put_int(b, fs[i].line);
		key(b, ind + 4, false, "forward");
		boolean(b, fs[i].forward);
		end(b, ind + 2, 1, '}');
	}
	end(b, ind, n, ']');
}

static void derivative(ot_buf *b, int ind, const ot_reg_deriv *d)
{
	ot_buf_putc(b, '{');
	key(b, ind + 2, true, "name");
	str(b, d->name);
	key(b, ind + 2, false, "line");
	ot_buf_put_int(b, d->line);
	key(b, ind + 2, false, "output_differentiability");
	str(b, d->output_differentiability);
	key(b, ind + 2, false, "formulas");
	formulas(b, ind + 2, d->formulas, d->nformulas);
	key(b, ind + 2, false, "dispatch");
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < d->ndispatch; i++) {
		const ot_reg_deriv_dispatch *dd = &d->dispatch[i];
		item(b, ind + 2, i);
		ot_buf_putc(b, '{');
		key(b, ind + 6, true, "key");
		str(b, dd->key);
		key(b, ind + 6, false, "line");
		ot_buf_put_int(b, dd->line);
		key(b, ind + 6, false, "formulas");
		formulas(b, ind + 6, dd->formulas, dd->nformulas);
		end(b, ind + 4, 1, '}');
	}
	end(b, ind + 2, d->ndispatch, ']');
	end(b, ind, 1, '}');
}

static void entry(ot_buf *b, int ind, const ot_reg_func *f)
{
	int in = ind + 2;

	ot_buf_putc(b, '{');
	key(b, in, true, "name");
	str(b, f->schema.full);
	key(b, in, false, "line");
	ot_buf_put_int(b, f->line);
	key(b, in, false, "func");
	str(b, f->func);
	key(b, in, false, "variants");
	str(b, f->variants);
	key(b, in, false, "python_module");
	str(b, f->python_module);
	key(b, in, false, "dispatch");
	if (f->has_dispatch) {
		ot_buf_putc(b, '[');
		for (size_t i = 0; i < f->ndispatch; i++) {
			item(b, in, i);
			ot_buf_putc(b, '{');
			key(b, in + 4, true, "key");
			str(b, f->dispatch[i].key);
			key(b, in + 4, false, "kernel");
			str(b, f->dispatch[i].kernel);
			key(b, in + 4, false, "line");
			ot_buf_put_int(b, f->dispatch[i].line);
			end(b, in + 2, 1, '}');
		}
		end(b, in, f->ndispatch, ']');
	} else {
		ot_buf_puts(b, "null");
	}
	key(b, in, false, "structured");
	boolean(b, f->structured);
	key(b, in, false, "structured_delegate");
	str(b, f->structured_delegate);
	key(b, in, false, "structured_inherits");
	str(b, f->structured_inherits);
	key(b, in, false, "ufunc_inner_loop");
	str_list(b, in, f->ufunc_inner_loop, f->nufunc_inner_loop);
	key(b, in, false, "autogen");
	str_list(b, in, f->autogen, f->nautogen);
	key(b, in, false, "derivative");
	if (f->deriv)
		derivative(b, in, f->deriv);
	else
		ot_buf_puts(b, "null");
	end(b, ind, 1, '}');
}

/* An overload list is short (a handful, a few dozen at most): linear
 * membership tests beat a hash map built per op. */
static bool listed(const ot_tj_entries *v, const ot_reg_func *f)
{
	for (size_t i = 0; i < v->len; i++)
		if (v->items[i] == f)
			return true;
	return false;
}

void ot_tracejson_select(ot_tj_entries *out, const ot_registry *reg, const ot_strvec *aten)
{
	size_t nfams;

	out->len = 0;
	for (size_t i = 0; i < aten->len; i++) {
		const ot_reg_func *f = ot_registry_find(reg, aten->items[i]);
		const ot_reg_func *const *ov;
		size_t n;
		/* a name seen before brought all its overloads, f among them */
		if (!f || listed(out, f))
			continue;
		ov = ot_registry_overloads(reg, f->schema.name, &n);
		for (size_t k = 0; k < n; k++)
			ot_vec_push(out, ov[k]);
	}
	nfams = out->len;
	for (size_t i = 0; i < nfams; i++) {
		const ot_reg_func *d = out->items[i]->delegate;
		if (d && !listed(out, d))
			ot_vec_push(out, d);
	}
}

void ot_tracejson_op(ot_buf *out, const ot_trace *tr, const ot_tj_entries *entries)
{
	op(out, 4, tr, entries);
}

/* The top-level "registry": the ops' entries, each once, in first-reference
 * order (the ops' order is fixed, so the section is the same for any -j). */
static void registry_section(ot_buf *out, const ot_tj_entries *entries, size_t n)
{
	size_t top = 0, count = 0;
	bool *seen;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < entries[i].len; k++)
			if (entries[i].items[k]->index >= top)
				top = entries[i].items[k]->index + 1;
	seen = ot_calloc(top ? top : 1, sizeof(*seen));
	ot_buf_putc(out, '[');
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < entries[i].len; k++) {
			const ot_reg_func *f = entries[i].items[k];
			if (seen[f->index])
				continue;
			seen[f->index] = true;
			item(out, 2, count++);
			entry(out, 4, f);
		}
	}
	end(out, 2, count, ']');
	free(seen);
}

void ot_tracejson_frame(ot_buf *head, ot_buf *tail, const ot_release *rel, size_t n,
			const ot_tj_entries *entries, const ot_testdb *tests)
{
	ot_buf_putc(head, '{');
	key(head, 2, true, "schema_version");
	ot_buf_printf(head, "%d", OT_TRACEJSON_SCHEMA);
	key(head, 2, false, "tool");
	ot_buf_putc(head, '{');
	key(head, 4, true, "name");
	str(head, "optrace");
	key(head, 4, false, "version");
	str(head, OPTRACE_VERSION);
	end(head, 2, 1, '}');
	key(head, 2, false, "pytorch");
	ot_buf_putc(head, '{');
	key(head, 4, true, "version");
	str(head, rel->version);
	key(head, 4, false, "tag");
	str(head, rel->tag);
	key(head, 4, false, "commit");
	str(head, rel->commit);
	key(head, 4, false, "verified");
	boolean(head, rel->verified);
	end(head, 2, 1, '}');
	key(head, 2, false, "ops");
	ot_buf_putc(head, '[');
	end(tail, 2, n, ']');
	if (tests) {
		key(tail, 2, false, "test_entries");
		entries_section(tail, tests);
		key(tail, 2, false, "tests");
		templates_section(tail, tests);
	}
	if (entries) {
		key(tail, 2, false, "registry");
		registry_section(tail, entries, n);
	}
	newline(tail, 0);
	ot_buf_puts(tail, "}\n");
}

const char *ot_tracejson_separator(size_t i)
{
	/* what item(b, 2, i) writes before an op of the "ops" list */
	return i ? ",\n    " : "\n    ";
}

/* ---- reading ---------------------------------------------------------------------------- */

/* Reading context: the document, and where in the file we are for messages. */
struct rd {
	ot_tj_doc *doc;
	ot_arena *a;
	ot_buf where;
};

static int bad(struct rd *r, const char *key, const char *what)
{
	return ot_error_set("%s: '%s' %s", r->where.ptr, key, what);
}

static const char *copy_str(struct rd *r, const ot_value *v)
{
	return ot_arena_strndup(r->a, v->u.str.ptr, v->u.str.len);
}

/* The member `key` of type `type` in *out; absent or null: NULL, an error
 * when required. `what` says the type in the message. */
static int member(struct rd *r, const ot_value *m, const char *key, bool required, ot_vtype type,
		  const char *what, const ot_value **out)
{
	const ot_value *v = ot_v_get(m, key);
	*out = NULL;
	if (!v || v->type == OT_V_NULL)
		return required ? bad(r, key, "is missing") : 0;
	if (v->type != type)
		return bad(r, key, what);
	*out = v;
	return 0;
}

static int get_str(struct rd *r, const ot_value *m, const char *key, bool required,
		   const char **out)
{
	const ot_value *v;
	int rc = member(r, m, key, required, OT_V_STR,
			required ? "must be a string" : "must be a string or null", &v);
	*out = v ? copy_str(r, v) : NULL;
	return rc;
}

static int get_int(struct rd *r, const ot_value *m, const char *key, bool required,
		   long long min, long long max, long long *out)
{
	const ot_value *v;
	int rc = member(r, m, key, required, OT_V_INT, "must be an integer", &v);
	*out = v ? v->u.i : 0;
	if (v && (v->u.i < min || v->u.i > max))
		return bad(r, key, "is out of range");
	return rc;
}

static int get_bool(struct rd *r, const ot_value *m, const char *key, bool *out)
{
	const ot_value *v;
	int rc = member(r, m, key, false, OT_V_BOOL, "must be true or false", &v);
	*out = v && v->u.b;
	return rc;
}

/* A list member (absent: NULL, an empty list to ot_v_len, unless required). */
static int get_list(struct rd *r, const ot_value *m, const char *key, bool required,
		    const ot_value **out)
{
	return member(r, m, key, required, OT_V_LIST, "must be a list", out);
}

static int get_strings(struct rd *r, const ot_value *m, const char *key, bool required,
		       ot_strvec *out)
{
	const ot_value *l;
	int rc = get_list(r, m, key, required, &l);
	for (size_t i = 0; rc == 0 && i < ot_v_len(l); i++) {
		const ot_value *v = ot_v_at(l, i);
		if (v->type != OT_V_STR)
			return bad(r, key, "must be a list of strings");
		ot_vec_push(out, copy_str(r, v));
	}
	return rc;
}

/* Strings of a vector live in the arena; the vector itself moves there too,
 * so a document frees with its arena alone. */
static void settle(struct rd *r, ot_strvec *v)
{
	const char **items = OT_ARENA_VEC(r->a, v);
	free(v->items);
	v->items = items;
	v->cap = v->len;
}

static void push_where(struct rd *r, size_t *mark, const char *fmt, ...) OT_PRINTF(3, 4);
static void push_where(struct rd *r, size_t *mark, const char *fmt, ...)
{
	va_list ap;
	*mark = r->where.size;
	va_start(ap, fmt);
	ot_buf_vprintf(&r->where, fmt, ap);
	va_end(ap);
}

/* ["cpu", "cuda"] as OT_MAIN_* bits. */
static int read_devices(struct rd *r, const char *key, const ot_value *list, uint8_t *out)
{
	*out = 0;
	for (size_t i = 0; i < ot_v_len(list); i++) {
		const ot_value *d = ot_v_at(list, i);
		if (d->type == OT_V_STR && !strcmp(ot_v_cstr(d), "cpu"))
			*out |= OT_MAIN_CPU;
		else if (d->type == OT_V_STR && !strcmp(ot_v_cstr(d), "cuda"))
			*out |= OT_MAIN_CUDA;
		else
			return bad(r, key, "must list \"cpu\" and/or \"cuda\"");
	}
	return 0;
}

/* A body fingerprint (body.h): 8 lowercase hex digits for the code, then
 * 8 per statement of it (at least one). */
static bool is_fingerprint(const char *s)
{
	size_t n = strlen(s);
	if (n < 2 * OT_BODY_HASH_CHARS || n % OT_BODY_HASH_CHARS)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int read_step(struct rd *r, ot_step *s, const ot_value *v)
{
	const char *layer;
	const ot_value *mains, *sures, *when_on;
	long long line, depth, parent, fails;
	int rc;

	if (v->type != OT_V_MAP)
		return ot_error_set("%s: a step must be an object", r->where.ptr);
	if ((rc = get_str(r, v, "layer", true, &layer)) < 0 ||
	    (rc = get_str(r, v, "file", false, &s->file)) < 0 ||
	    (rc = get_int(r, v, "line", false, 0, UINT32_MAX, &line)) < 0 ||
	    (rc = get_str(r, v, "symbol", false, &s->symbol)) < 0 ||
	    (rc = get_str(r, v, "note", false, &s->note)) < 0 ||
	    (rc = get_str(r, v, "op", false, &s->op)) < 0 ||
	    (rc = get_str(r, v, "backend", false, &s->backend)) < 0 ||
	    (rc = get_int(r, v, "depth", false, 0, 255, &depth)) < 0 ||
	    (rc = get_int(r, v, "parent", false, -1, INT32_MAX, &parent)) < 0 ||
	    (rc = get_str(r, v, "when", false, &s->when)) < 0 ||
	    (rc = get_str(r, v, "body", false, &s->body)) < 0 ||
	    (rc = get_int(r, v, "fails", false, 1, UINT32_MAX, &fails)) < 0 ||
	    (rc = get_list(r, v, "main", false, &mains)) < 0 ||
	    (rc = get_list(r, v, "sure", false, &sures)) < 0 ||
	    (rc = read_devices(r, "main", mains, &s->main)) < 0 ||
	    (rc = read_devices(r, "sure", sures, &s->sure)) < 0 ||
	    (rc = member(r, v, "when_on", false, OT_V_MAP, "must be an object", &when_on)) < 0 ||
	    (when_on && ((rc = get_str(r, when_on, "cpu", false, &s->dev_when[OT_DEV_CPU])) < 0 ||
			 (rc = get_str(r, when_on, "cuda", false, &s->dev_when[OT_DEV_CUDA])) < 0)))
		return rc;
	s->split_when = when_on != NULL;
	s->layer = OT_LAYER_COUNT;
	for (int l = 0; l < OT_LAYER_COUNT; l++)
		if (!strcmp(layer, ot_layer_name((ot_layer)l)))
			s->layer = (ot_layer)l;
	if (s->layer == OT_LAYER_COUNT)
		return bad(r, "layer", "names no known layer");
	if (s->body && !is_fingerprint(s->body))
		return bad(r, "body", "must be 8 lowercase hex digits for the code, then 8 per statement of it");
	s->found = s->file != NULL;
	s->line = s->found ? (uint32_t)line : 0;
	s->symbol = s->symbol ? s->symbol : "";
	s->note = s->note ? s->note : "";
	s->op = s->op ? s->op : "";
	s->backend = s->backend ? s->backend : "";
	s->depth = (uint8_t)depth;
	s->parent = (int)parent;
	s->fails = (uint32_t)fails;
	return 0;
}

static int read_formulas(struct rd *r, const ot_value *m, ot_reg_formula **out, size_t *n)
{
	const ot_value *l;
	int rc = get_list(r, m, "formulas", false, &l);
	*n = ot_v_len(l);
	*out = ot_arena_alloc(r->a, (*n + 1) * sizeof(**out));
	for (size_t i = 0; rc == 0 && i < *n; i++) {
		const ot_value *f = ot_v_at(l, i);
		long long line;
		if (f->type != OT_V_MAP)
			return bad(r, "formulas", "must be a list of objects");
		if ((rc = get_str(r, f, "inputs", true, &(*out)[i].inputs)) < 0 ||
		    (rc = get_str(r, f, "formula", true, &(*out)[i].formula)) < 0 ||
		    (rc = get_int(r, f, "line", false, 0, INT32_MAX, &line)) < 0 ||
		    (rc = get_bool(r, f, "forward", &(*out)[i].forward)) < 0)
			return rc;
		(*out)[i].line = (int)line;
	}
	return rc;
}

static int read_deriv(struct rd *r, ot_reg_deriv *d, const ot_value *m)
{
	const ot_value *blocks;
	long long line;
	int rc;

	if ((rc = get_str(r, m, "name", true, &d->name)) < 0 ||
	    (rc = get_int(r, m, "line", false, 0, INT32_MAX, &line)) < 0 ||
	    (rc = get_str(r, m, "output_differentiability", false, &d->output_differentiability)) < 0 ||
	    (rc = read_formulas(r, m, &d->formulas, &d->nformulas)) < 0 ||
	    (rc = get_list(r, m, "dispatch", false, &blocks)) < 0)
		return rc;
	d->line = (int)line;
	if (ot_reg_schema_parse(&d->schema, r->a, d->name) < 0)
		return ot_error_set("%s: derivative '%s': %s", r->where.ptr, d->name, ot_error_last());
	d->ndispatch = ot_v_len(blocks);
	d->dispatch = ot_arena_alloc(r->a, (d->ndispatch + 1) * sizeof(*d->dispatch));
	for (size_t i = 0; i < d->ndispatch; i++) {
		const ot_value *b = ot_v_at(blocks, i);
		ot_reg_deriv_dispatch *dd = &d->dispatch[i];
		if (b->type != OT_V_MAP)
			return bad(r, "dispatch", "must be a list of objects");
		if ((rc = get_str(r, b, "key", true, &dd->key)) < 0 ||
		    (rc = get_int(r, b, "line", false, 0, INT32_MAX, &line)) < 0 ||
		    (rc = read_formulas(r, b, &dd->formulas, &dd->nformulas)) < 0)
			return rc;
		dd->line = (int)line;
	}
	return 0;
}

static int read_entry(struct rd *r, ot_reg_func *f, const ot_value *m)
{
	const ot_value *table, *dv;
	ot_strvec ufunc = {0}, autogen = {0};
	const char *name;
	long long line;
	int rc;

	if (m->type != OT_V_MAP)
		return ot_error_set("%s: a registry entry must be an object", r->where.ptr);
	if ((rc = get_str(r, m, "name", true, &name)) < 0 ||
	    (rc = get_int(r, m, "line", false, 0, INT32_MAX, &line)) < 0 ||
	    (rc = get_str(r, m, "func", true, &f->func)) < 0 ||
	    (rc = get_str(r, m, "variants", false, &f->variants)) < 0 ||
	    (rc = get_str(r, m, "python_module", false, &f->python_module)) < 0 ||
	    (rc = get_list(r, m, "dispatch", false, &table)) < 0 ||
	    (rc = get_bool(r, m, "structured", &f->structured)) < 0 ||
	    (rc = get_str(r, m, "structured_delegate", false, &f->structured_delegate)) < 0 ||
	    (rc = get_str(r, m, "structured_inherits", false, &f->structured_inherits)) < 0 ||
	    (rc = get_strings(r, m, "ufunc_inner_loop", false, &ufunc)) < 0 ||
	    (rc = get_strings(r, m, "autogen", false, &autogen)) < 0)
		goto done;
	f->line = (int)line;
	if (ot_reg_schema_parse(&f->schema, r->a, f->func) < 0) {
		rc = ot_error_set("%s: func '%s': %s", r->where.ptr, f->func, ot_error_last());
		goto done;
	}
	if (strcmp(f->schema.full, name)) {
		rc = ot_error_set("%s: 'name' is %s but 'func' names %s", r->where.ptr, name,
				  f->schema.full);
		goto done;
	}
	f->variant_function = !f->variants || strstr(f->variants, "function");
	f->variant_method = f->variants && strstr(f->variants, "method");
	settle(r, &ufunc);
	f->ufunc_inner_loop = ufunc.items;
	f->nufunc_inner_loop = ufunc.len;
	ufunc.items = NULL;
	settle(r, &autogen);
	f->autogen = autogen.items;
	f->nautogen = autogen.len;
	autogen.items = NULL;
	f->has_dispatch = table != NULL;
	f->ndispatch = ot_v_len(table);
	f->dispatch = ot_arena_alloc(r->a, (f->ndispatch + 1) * sizeof(*f->dispatch));
	for (size_t i = 0; i < f->ndispatch; i++) {
		const ot_value *d = ot_v_at(table, i);
		if (d->type != OT_V_MAP) {
			rc = bad(r, "dispatch", "must be a list of objects or null");
			goto done;
		}
		if ((rc = get_str(r, d, "key", true, &f->dispatch[i].key)) < 0 ||
		    (rc = get_str(r, d, "kernel", true, &f->dispatch[i].kernel)) < 0 ||
		    (rc = get_int(r, d, "line", false, 0, INT32_MAX, &line)) < 0)
			goto done;
		f->dispatch[i].line = (int)line;
	}
	dv = ot_v_get(m, "derivative");
	if (dv && dv->type != OT_V_NULL) {
		ot_reg_deriv *d = ot_arena_alloc(r->a, sizeof(*d));
		if (dv->type != OT_V_MAP) {
			rc = bad(r, "derivative", "must be an object or null");
			goto done;
		}
		if ((rc = read_deriv(r, d, dv)) < 0)
			goto done;
		d->func = f;
		f->deriv = d;
	}
done:
	free(ufunc.items);
	free(autogen.items);
	return rc;
}

/* An op's "registry": names of entries of the top-level section. */
static int read_op_registry(struct rd *r, ot_tj_op *op, const ot_value *l, const ot_map *entries)
{
	op->nregistry = ot_v_len(l);
	op->registry = ot_arena_alloc(r->a, (op->nregistry + 1) * sizeof(*op->registry));
	for (size_t i = 0; i < op->nregistry; i++) {
		const ot_value *v = ot_v_at(l, i);
		if (v->type != OT_V_STR)
			return bad(r, "registry", "must be a list of entry names");
		op->registry[i] = ot_map_get(entries, v->u.str.ptr);
		if (!op->registry[i])
			return ot_error_set("%s: 'registry' names '%s', which the top-level 'registry' "
					    "does not hold", r->where.ptr, v->u.str.ptr);
	}
	return 0;
}

/* One object of "ops"; `entries` is the top-level registry (NULL: the file
 * has no registry data, and an op's "registry" key is not read). */
static int read_op(ot_tj_doc *doc, const ot_value *v, const char *where, const ot_map *entries)
{
	struct rd r = {doc, doc->arena, OT_BUF_INIT};
	ot_tj_op op = {0};
	OT_VEC(ot_step) steps = {0};
	const ot_value *list, *be;
	const char *status;
	int rc;

	ot_buf_puts(&r.where, where);
	if (v->type != OT_V_MAP) {
		rc = ot_error_set("%s: an op must be an object", where);
		goto done;
	}
	if ((rc = get_str(&r, v, "input", true, &op.input)) < 0 ||
	    (rc = get_str(&r, v, "name", false, &op.name)) < 0 ||
	    (rc = get_str(&r, v, "status", true, &status)) < 0 ||
	    (rc = get_str(&r, v, "strategy", false, &op.strategy)) < 0 ||
	    (rc = get_strings(&r, v, "aten", true, &op.aten)) < 0 ||
	    (rc = get_strings(&r, v, "messages", false, &op.messages)) < 0 ||
	    (rc = get_list(&r, v, "steps", true, &list)) < 0)
		goto done;
	for (op.status = 0; op.status <= OT_STATUS_ERROR; op.status++)
		if (!strcmp(status, ot_status_name(op.status)))
			break;
	if (op.status > OT_STATUS_ERROR) {
		rc = bad(&r, "status", "names no known status");
		goto done;
	}
	for (size_t i = 0; i < ot_v_len(list); i++) {
		ot_step s = {0};
		size_t mark;
		push_where(&r, &mark, ".steps[%zu]", i);
		rc = read_step(&r, &s, ot_v_at(list, i));
		ot_buf_truncate(&r.where, mark);
		if (rc < 0)
			goto done;
		ot_vec_push(&steps, s);
	}
	be = ot_v_get(v, "backends");
	if (be && be->type != OT_V_NULL) {
		size_t mark;
		if (be->type != OT_V_MAP) {
			rc = bad(&r, "backends", "must be an object");
			goto done;
		}
		push_where(&r, &mark, ".backends");
		rc = get_strings(&r, be, "keys", false, &op.keys);
		if (rc == 0)
			rc = get_strings(&r, be, "gpu", false, &op.gpu);
		ot_buf_truncate(&r.where, mark);
		if (rc < 0)
			goto done;
	}
	if (entries) {
		if ((rc = get_list(&r, v, "registry", false, &list)) < 0)
			goto done;
		op.has_registry = list != NULL;
		if (list && (rc = read_op_registry(&r, &op, list, entries)) < 0)
			goto done;
	}
	op.nsteps = steps.len;
	op.steps = ot_arena_alloc(r.a, (steps.len + 1) * sizeof(*op.steps));
	if (steps.len)
		memcpy(op.steps, steps.items, steps.len * sizeof(*op.steps));
	settle(&r, &op.aten);
	settle(&r, &op.keys);
	settle(&r, &op.gpu);
	settle(&r, &op.messages);
	ot_vec_push(&doc->ops, op);
done:
	if (rc < 0) {
		free(op.aten.items);
		free(op.keys.items);
		free(op.gpu.items);
		free(op.messages.items);
	}
	ot_vec_free(&steps);
	ot_buf_free(&r.where);
	return rc;
}

/* ---- documents made from traces ----------------------------------------------------------- */

static const char *dup_or(ot_arena *a, const char *s, const char *none)
{
	return s ? ot_arena_strdup(a, s) : none;
}

static void copy_strings(ot_arena *a, ot_strvec *out, const ot_strvec *v)
{
	out->len = out->cap = v->len;
	out->items = ot_arena_alloc(a, (v->len + 1) * sizeof(*out->items));
	for (size_t i = 0; i < v->len; i++)
		out->items[i] = ot_arena_strdup(a, v->items[i]);
}

void ot_tracejson_doc_add_trace(ot_tj_doc *doc, const ot_trace *tr)
{
	ot_arena *a = doc->arena;
	bool named = tr->target.canonical[0] != '\0';
	ot_tj_op op = {0};

	/* what the writer puts in the file and the reader takes back, no more */
	op.input = ot_arena_strdup(a, tr->input);
	op.name = named ? ot_arena_strdup(a, tr->target.canonical) : NULL;
	op.status = tr->status;
	op.strategy = named ? dup_or(a, ot_strategy_id(tr->target.strategy), NULL) : NULL;
	copy_strings(a, &op.aten, &tr->aten);
	copy_strings(a, &op.keys, &tr->backends);
	copy_strings(a, &op.gpu, &tr->gpu_libs);
	copy_strings(a, &op.messages, &tr->messages);
	op.nsteps = tr->steps.len;
	op.steps = ot_arena_alloc(a, (op.nsteps + 1) * sizeof(*op.steps));
	for (size_t i = 0; i < op.nsteps; i++) {
		const ot_step *s = &tr->steps.items[i];
		ot_step *d = &op.steps[i];
		memset(d, 0, sizeof(*d));
		d->layer = s->layer;
		d->found = s->found && s->file;
		d->file = d->found ? ot_arena_strdup(a, s->file) : NULL;
		d->line = d->found ? s->line : 0;
		d->symbol = dup_or(a, s->symbol, "");
		d->note = dup_or(a, s->note, "");
		d->op = dup_or(a, s->op, "");
		d->backend = dup_or(a, s->backend, "");
		d->depth = s->depth;
		d->parent = s->parent;
		d->main = s->main;
		d->sure = s->sure;
		d->when = s->when ? ot_arena_strdup(a, s->when) : NULL;
		d->split_when = s->split_when;
		for (int dev = 0; dev < OT_DEV_COUNT; dev++)
			d->dev_when[dev] = s->dev_when[dev] ? ot_arena_strdup(a, s->dev_when[dev]) : NULL;
		d->body = s->body ? ot_arena_strdup(a, s->body) : NULL;
	}
	if (doc->registry) {
		ot_tj_entries sel = {0};
		ot_tracejson_select(&sel, doc->registry, &tr->aten);
		op.has_registry = true;
		op.nregistry = sel.len;
		op.registry = ot_arena_alloc(a, (sel.len + 1) * sizeof(*op.registry));
		if (sel.len)
			memcpy(op.registry, sel.items, sel.len * sizeof(*op.registry));
		ot_vec_free(&sel);
	}
	ot_vec_push(&doc->ops, op);
}

ot_tj_doc *ot_tracejson_doc_new(const ot_release *rel, ot_registry *reg)
{
	ot_tj_doc *doc = ot_calloc(1, sizeof(*doc));
	doc->arena = ot_arena_new();
	doc->version = ot_arena_strdup(doc->arena, rel->version ? rel->version : "");
	doc->tag = rel->tag ? ot_arena_strdup(doc->arena, rel->tag) : NULL;
	doc->commit = ot_arena_strdup(doc->arena, rel->commit ? rel->commit : "");
	doc->verified = rel->verified;
	doc->registry = reg;
	return doc;
}

void ot_tracejson_doc_free(ot_tj_doc *doc)
{
	if (!doc)
		return;
	ot_vec_free(&doc->ops);
	ot_registry_free(doc->registry);
	ot_arena_free(doc->arena);
	free(doc);
}

/* ---- the file ------------------------------------------------------------------------------- */

/*
 * trace.json files run to tens of megabytes, and a value tree of a whole
 * file takes several times its size: the reader parses the JSON itself,
 * building a tree for one op (or one registry entry) at a time, freed once
 * the op is read. The top level is read first with "ops" and "registry"
 * only checked and counted; then the entries, then the ops.
 */
#define JSON_MAX_DEPTH 64

struct jp {
	const char *start, *p, *end;
	const char *name; /* the file, in messages */
	ot_buf scratch;   /* a string with escapes, decoded */
	int depth;
};

static int jp_fail(struct jp *j, const char *what)
{
	int line = 1, col = 1;
	for (const char *q = j->start; q < j->p && q < j->end; q++) {
		if (*q == '\n')
			line++, col = 1;
		else
			col++;
	}
	return ot_error_set("%s:%d:%d: %s", j->name, line, col, what);
}

static int jp_twice(struct jp *j, const char *key)
{
	char what[300];
	snprintf(what, sizeof(what), "the key '%.200s' is given twice in one object", key);
	return jp_fail(j, what);
}

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

/* Skip whitespace and the character `c` if it comes next. */
static bool jp_eat(struct jp *j, char c)
{
	jp_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static int hex4(const char *p, unsigned *out)
{
	*out = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		*out = *out * 16 + (unsigned)d;
	}
	return 0;
}

static void put_utf8(ot_buf *b, unsigned c)
{
	if (c < 0x80) {
		ot_buf_putc(b, (char)c);
	} else if (c < 0x800) {
		ot_buf_putc(b, (char)(0xC0 | (c >> 6)));
		ot_buf_putc(b, (char)(0x80 | (c & 0x3F)));
	} else if (c < 0x10000) {
		ot_buf_putc(b, (char)(0xE0 | (c >> 12)));
		ot_buf_putc(b, (char)(0x80 | ((c >> 6) & 0x3F)));
		ot_buf_putc(b, (char)(0x80 | (c & 0x3F)));
	} else {
		ot_buf_putc(b, (char)(0xF0 | (c >> 18)));
		ot_buf_putc(b, (char)(0x80 | ((c >> 12) & 0x3F)));
		ot_buf_putc(b, (char)(0x80 | ((c >> 6) & 0x3F)));
		ot_buf_putc(b, (char)(0x80 | (c & 0x3F)));
	}
}

/* The string at j->p (its opening quote), into `a` as a C string (NULL:
 * only checked). A NUL character (\u0000) is refused: strings are C strings. */
static int jp_string(struct jp *j, ot_arena *a, const char **out)
{
	const char *q = ++j->p, *run = q;
	bool escaped = false;

	ot_buf_clear(&j->scratch);
	for (;;) {
		unsigned c, lo;
		if (q >= j->end) {
			j->p = q;
			return jp_fail(j, "a string does not end");
		}
		if (*q == '"')
			break;
		if ((unsigned char)*q < 0x20) {
			j->p = q;
			return jp_fail(j, "a control character in a string");
		}
		if ((unsigned char)*q >= 0x80) {
			size_t n = ot_utf8_len(q, (size_t)(j->end - q));
			if (!n) {
				j->p = q;
				return jp_fail(j, "invalid UTF-8 in a string");
			}
			q += n;
			continue;
		}
		if (*q != '\\') {
			q++;
			continue;
		}
		escaped = true;
		if (a)
			ot_buf_put(&j->scratch, run, (size_t)(q - run));
		j->p = q;
		if (q + 1 >= j->end)
			return jp_fail(j, "a string does not end");
		switch (q[1]) {
		case '"': case '\\': case '/':
			c = (unsigned char)q[1];
			q += 2;
			break;
		case 'b': c = '\b', q += 2; break;
		case 'f': c = '\f', q += 2; break;
		case 'n': c = '\n', q += 2; break;
		case 'r': c = '\r', q += 2; break;
		case 't': c = '\t', q += 2; break;
		case 'u':
			if (j->end - q < 6 || hex4(q + 2, &c) < 0)
				return jp_fail(j, "a bad \\u escape");
			q += 6;
			if (c >= 0xD800 && c < 0xDC00) {
				if (j->end - q < 6 || q[0] != '\\' || q[1] != 'u' || hex4(q + 2, &lo) < 0 ||
				    lo < 0xDC00 || lo > 0xDFFF)
					return jp_fail(j, "a lone UTF-16 surrogate in a \\u escape");
				c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
				q += 6;
			} else if (c >= 0xDC00 && c <= 0xDFFF) {
				return jp_fail(j, "a lone UTF-16 surrogate in a \\u escape");
			}
			if (c == 0)
				return jp_fail(j, "a NUL character (\\u0000) in a string");
			break;
		default:
			return jp_fail(j, "a bad escape in a string");
		}
		if (a)
			put_utf8(&j->scratch, c);
		run = q;
	}
	if (a) {
		if (escaped) {
			ot_buf_put(&j->scratch, run, (size_t)(q - run));
			*out = ot_arena_strndup(a, j->scratch.ptr, j->scratch.size);
		} else {
			*out = ot_arena_strndup(a, run, (size_t)(q - run));
		}
	}
	j->p = q + 1;
	return 0;
}

static int jp_number(struct jp *j, ot_arena *a, ot_value **out)
{
	const char *q = j->p;
	bool integer = true;
	char text[64];
	size_t n;

	if (q < j->end && *q == '-')
		q++;
	if (q >= j->end || *q < '0' || *q > '9')
		return jp_fail(j, "unexpected character");
	if (*q == '0')
		q++;
	else
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	if (q < j->end && *q == '.') {
		integer = false;
		if (++q >= j->end || *q < '0' || *q > '9')
			return jp_fail(j, "a bad number");
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < j->end && (*q == 'e' || *q == 'E')) {
		integer = false;
		if (++q < j->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= j->end || *q < '0' || *q > '9')
			return jp_fail(j, "a bad number");
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	}
	n = (size_t)(q - j->p);
	if (n >= sizeof(text))
		return jp_fail(j, "a number too long");
	memcpy(text, j->p, n);
	text[n] = '\0';
	if (a) {
		errno = 0;
		if (integer) {
			long long v = strtoll(text, NULL, 10);
			if (errno == ERANGE)
				return jp_fail(j, "an integer out of range");
			*out = ot_v_int(a, v);
		} else {
			*out = ot_v_float(a, strtod(text, NULL));
		}
	}
	j->p = q;
	return 0;
}

static int jp_value(struct jp *j, ot_arena *a, ot_value **out);

/* An object's members in file order; a key given twice is an error. Past
 * a few members the keys go through a map, so a hostile file with a huge
 * object costs linear time. */
static int jp_object(struct jp *j, ot_arena *a, ot_value **out)
{
	ot_value *m = a ? ot_v_map(a) : NULL;
	ot_map *keys = NULL;
	int rc = 0;

	j->p++;
	if (jp_eat(j, '}'))
		goto done;
	do {
		const char *key = NULL;
		ot_value *v = NULL;
		jp_ws(j);
		if (j->p >= j->end || *j->p != '"') {
			rc = jp_fail(j, "expected a key in quotes");
			goto done;
		}
		if ((rc = jp_string(j, a, &key)) < 0)
			goto done;
		if (!jp_eat(j, ':')) {
			rc = jp_fail(j, "expected ':'");
			goto done;
		}
		if ((rc = jp_value(j, a, &v)) < 0)
			goto done;
		if (!m)
			continue;
		if (m->u.map.len == 8) {
			keys = ot_map_new();
			for (size_t i = 0; i < m->u.map.len; i++)
				ot_map_put(keys, m->u.map.items[i].key, (void *)1);
		}
		if (keys ? ot_map_put(keys, key, (void *)1) != NULL : ot_v_get(m, key) != NULL) {
			rc = jp_twice(j, key);
			goto done;
		}
		if (m->u.map.len == m->u.map.cap) {
			size_t cap = m->u.map.cap ? 2 * m->u.map.cap : 8;
			ot_member *items = ot_arena_alloc(a, cap * sizeof(*items));
			if (m->u.map.len)
				memcpy(items, m->u.map.items, m->u.map.len * sizeof(*items));
			m->u.map.items = items;
			m->u.map.cap = cap;
		}
		m->u.map.items[m->u.map.len++] = (ot_member){key, 0, 0, v};
	} while (jp_eat(j, ','));
	if (!jp_eat(j, '}'))
		rc = jp_fail(j, "expected ',' or '}'");
done:
	ot_map_free(keys);
	if (out)
		*out = m;
	return rc;
}

static int jp_value(struct jp *j, ot_arena *a, ot_value **out)
{
	static const struct {
		const char *word;
		size_t len;
		int type;
	} words[] = {{"true", 4, OT_V_BOOL}, {"false", 5, OT_V_BOOL}, {"null", 4, OT_V_NULL}};
	int rc = 0;

	jp_ws(j);
	if (j->p >= j->end)
		return jp_fail(j, "unexpected end of file");
	if (++j->depth > JSON_MAX_DEPTH)
		return jp_fail(j, "nested too deep");
	switch (*j->p) {
	case '{':
		rc = jp_object(j, a, out);
		break;
	case '[': {
		ot_value *l = a ? ot_v_list(a) : NULL;
		j->p++;
		if (!jp_eat(j, ']')) {
			do {
				ot_value *v = NULL;
				if ((rc = jp_value(j, a, &v)) < 0)
					break;
				if (l)
					ot_v_push(a, l, v);
			} while (jp_eat(j, ','));
			if (rc == 0 && !jp_eat(j, ']'))
				rc = jp_fail(j, "expected ',' or ']'");
		}
		if (out)
			*out = l;
		break;
	}
	case '"': {
		const char *s = NULL;
		rc = jp_string(j, a, &s);
		if (rc == 0 && a)
			*out = ot_v_str_borrow(a, s);
		break;
	}
	default:
		for (size_t i = 0; i < OT_ARRAY_LEN(words); i++) {
			if ((size_t)(j->end - j->p) >= words[i].len &&
			    !memcmp(j->p, words[i].word, words[i].len)) {
				j->p += words[i].len;
				if (a)
					*out = words[i].type == OT_V_NULL ? ot_v_null(a) : ot_v_bool(a, i == 0);
				goto out;
			}
		}
		rc = jp_number(j, a, out);
	}
out:
	j->depth--;
	return rc;
}

/* Where the list under a top-level key starts, and how many items it has
 * (checked, not built); at NULL when the key is absent or null. */
struct toplist {
	const char *at;
	size_t n;
	bool given;
};

static int jp_skip_list(struct jp *j, struct toplist *t)
{
	t->given = true;
	jp_ws(j);
	if (j->end - j->p >= 4 && !memcmp(j->p, "null", 4)) {
		j->p += 4;
		return 0;
	}
	t->at = j->p;
	if (j->p >= j->end || *j->p != '[')
		return jp_value(j, NULL, NULL); /* not a list: said when it is read */
	j->p++;
	if (jp_eat(j, ']'))
		return 0;
	j->depth++;
	do {
		int rc = jp_value(j, NULL, NULL);
		if (rc < 0)
			return rc;
		t->n++;
	} while (jp_eat(j, ','));
	j->depth--;
	return jp_eat(j, ']') ? 0 : jp_fail(j, "expected ',' or ']'");
}

/* Read item i of a list checked by jp_skip_list into a tree of its own,
 * handed to `fn`; the tree is freed after. */
static int jp_each(struct jp *j, const struct toplist *t,
		   int (*fn)(void *ctx, size_t i, const ot_value *v), void *ctx)
{
	j->p = t->at + 1;
	for (size_t i = 0; i < t->n; i++) {
		ot_arena *a = ot_arena_new();
		ot_value *v = NULL;
		int rc;
		if (i)
			jp_eat(j, ',');
		rc = jp_value(j, a, &v);
		if (rc == 0)
			rc = fn(ctx, i, v);
		ot_arena_free(a);
		if (rc < 0)
			return rc;
	}
	return 0;
}

struct reading {
	struct rd r;
	ot_map *entries;   /* full name -> entry of the top-level registry */
	ot_reg_func *funcs;
	const char *name;
};

static int entry_fn(void *ctx, size_t i, const ot_value *v)
{
	struct reading *rg = ctx;
	size_t mark;
	int rc;
	push_where(&rg->r, &mark, ": registry[%zu]", i);
	rg->funcs[i].index = i;
	rc = read_entry(&rg->r, &rg->funcs[i], v);
	if (rc == 0 && ot_map_put(rg->entries, rg->funcs[i].schema.full, &rg->funcs[i]))
		rc = ot_error_set("%s: '%s' is listed twice", rg->r.where.ptr, rg->funcs[i].schema.full);
	ot_buf_truncate(&rg->r.where, mark);
	return rc;
}

static int op_fn(void *ctx, size_t i, const ot_value *v)
{
	struct reading *rg = ctx;
	char where[600];
	snprintf(where, sizeof(where), "%s: ops[%zu]", rg->name, i);
	return read_op(rg->r.doc, v, where, rg->entries);
}

int ot_tracejson_read(ot_tj_doc **out, const char *data, size_t len, const char *name)
{
	struct jp j = {data, data, data + len, name, OT_BUF_INIT, 0};
	ot_arena *a = ot_arena_new();
	ot_tj_doc *doc = NULL;
	ot_value *sv = NULL, *pt = NULL;
	ot_map *seen = NULL; /* top-level keys: each once */
	struct toplist ops = {0}, reg = {0};
	struct reading rg = {{NULL, a, OT_BUF_INIT}, NULL, NULL, name};
	ot_release rel = {0};
	int rc = 0;

	*out = NULL;
	ot_buf_puts(&rg.r.where, name);
	jp_ws(&j);
	if (j.p < j.end && *j.p != '{') {
		rc = ot_error_set("%s: not a trace.json: the top level is not an object", name);
		goto done;
	}
	if (!jp_eat(&j, '{')) {
		rc = jp_fail(&j, "unexpected end of file");
		goto done;
	}
	/* the top level: "ops" and "registry" checked and counted only */
	seen = ot_map_new();
	if (!jp_eat(&j, '}')) {
		do {
			const char *key = NULL;
			ot_value *v = NULL;
			struct toplist *t;
			jp_ws(&j);
			if (j.p >= j.end || *j.p != '"') {
				rc = jp_fail(&j, "expected a key in quotes");
				goto done;
			}
			if ((rc = jp_string(&j, a, &key)) < 0)
				goto done;
			if (!jp_eat(&j, ':')) {
				rc = jp_fail(&j, "expected ':'");
				goto done;
			}
			t = !strcmp(key, "ops") ? &ops : !strcmp(key, "registry") ? &reg : NULL;
			if (ot_map_get(seen, key)) {
				rc = jp_twice(&j, key);
				goto done;
			}
			ot_map_put(seen, key, (void *)1);
			if ((rc = t ? jp_skip_list(&j, t) : jp_value(&j, a, &v)) < 0)
				goto done;
			if (!strcmp(key, "schema_version"))
				sv = v;
			else if (!strcmp(key, "pytorch"))
				pt = v;
		} while (jp_eat(&j, ','));
		if (!jp_eat(&j, '}')) {
			rc = jp_fail(&j, "expected ',' or '}'");
			goto done;
		}
	}
	jp_ws(&j);
	if (j.p < j.end) {
		rc = jp_fail(&j, "more text after the top-level object");
		goto done;
	}
	if (!sv || sv->type != OT_V_INT || sv->u.i < 1 || sv->u.i > OT_TRACEJSON_SCHEMA) {
		rc = ot_error_set("%s: not a trace.json this optrace reads (schema_version must be "
				  "1 to %d)", name, OT_TRACEJSON_SCHEMA);
		goto done;
	}
	if (!pt || pt->type != OT_V_MAP) {
		rc = ot_error_set("%s: 'pytorch' is missing or not an object", name);
		goto done;
	}
	if ((rc = get_str(&rg.r, pt, "version", true, &rel.version)) < 0 ||
	    (rc = get_str(&rg.r, pt, "tag", false, &rel.tag)) < 0 ||
	    (rc = get_str(&rg.r, pt, "commit", false, &rel.commit)) < 0 ||
	    (rc = get_bool(&rg.r, pt, "verified", &rel.verified)) < 0)
		goto done;
	if (!ops.at) {
		rc = bad(&rg.r, "ops", "is missing");
		goto done;
	}
	if (*ops.at != '[' || (sv->u.i >= 2 && reg.at && *reg.at != '[')) {
		rc = bad(&rg.r, *ops.at != '[' ? "ops" : "registry", "must be a list");
		goto done;
	}
	doc = ot_tracejson_doc_new(&rel, NULL);
	rg.r.doc = doc;
	rg.r.a = doc->arena;
	/* schema 1 had registry data per op, in a form no longer read: such a
	 * file has none, as one written before there was any. Schema 2 without
	 * a top-level "registry" holds no entry an op could name. */
	if (sv->u.i >= 2) {
		rg.entries = ot_map_new();
		rg.funcs = ot_arena_alloc(doc->arena, (reg.n + 1) * sizeof(*rg.funcs));
		if (reg.at && (rc = jp_each(&j, &reg, entry_fn, &rg)) < 0)
			goto done;
		/* a delegate outside the section stays unresolved (NULL), as in a
		 * registry that names an entry it does not have */
		for (size_t i = 0; i < reg.n; i++)
			if (rg.funcs[i].structured_delegate)
				rg.funcs[i].delegate = ot_map_get(rg.entries, rg.funcs[i].structured_delegate);
	}
	ot_grow((void **)&doc->ops.items, &doc->ops.cap, ops.n, sizeof(*doc->ops.items));
	if ((rc = jp_each(&j, &ops, op_fn, &rg)) < 0)
		goto done;
	*out = doc;
	doc = NULL;
done:
	ot_tracejson_doc_free(doc);
	ot_map_free(seen);
	ot_map_free(rg.entries);
	ot_buf_free(&rg.r.where);
	ot_buf_free(&j.scratch);
	ot_arena_free(a);
	return rc;
}

int ot_tracejson_load(ot_tj_doc **out, const char *path, size_t max)
{
	ot_buf b = OT_BUF_INIT;
	char chunk[65536];
	struct stat st;
	ssize_t n;
	int fd, rc = 0;

	*out = NULL;
	if (!max)
		max = OT_TRACEJSON_MAX;
	/* a regular file of bounded size: a FIFO or /dev/zero would never end */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return ot_error_set("cannot read %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		rc = ot_error_set("cannot read %s: not a regular file", path);
	else if ((size_t)st.st_size > max)
		rc = ot_error_set("cannot read %s: it is %lld bytes, over the limit of %zu (see "
				  "--max-read-bytes)",
				  path, (long long)st.st_size, max);
	while (!rc && ((n = read(fd, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))) {
		if (n > 0)
			ot_buf_put(&b, chunk, (size_t)n);
		if (b.size > max)
			rc = ot_error_set("cannot read %s: over the limit of %zu bytes (see "
					  "--max-read-bytes)",
					  path, max);
	}
	if (!rc && n < 0)
		rc = ot_error_set("cannot read %s: %s", path, strerror(errno));
	close(fd);
	if (rc == 0)
		rc = ot_tracejson_read(out, b.ptr, b.size, path);
	ot_buf_free(&b);
	return rc;
}
