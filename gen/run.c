#include "run.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "assets.h"
#include "bundle.h"
#include "escape.h"
#include "index.h"
#include "layout.h"
#include "opslist.h"
#include "output.h"
#include "page.h"
#include "registry.h"
#include "show.h"
#include "source.h"
#include "testdb.h"
#include "trace.h"
#include "tracejson.h"
#include "version.h"
#include "wellknown.h"

/* ---- messages and progress ----------------------------------------------------------- */

void ot_run_say(const char *fmt, ...)
{
	ot_buf text = OT_BUF_INIT, shown = OT_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ot_buf_vprintf(&text, fmt, ap);
	va_end(ap);
	/* names from the checkout are in messages: their control characters
	 * are shown, never sent to the terminal */
	ot_buf_puts(&shown, "optrace: ");
	ot_esc_term(&shown, text.ptr, text.size);
	ot_buf_putc(&shown, '\n');
	fwrite(shown.ptr, 1, shown.size, stderr);
	ot_buf_free(&text);
	ot_buf_free(&shown);
}

#define say ot_run_say

/* A progress line on a terminal, redrawn at most ten times a second. */
struct progress {
	bool on;
	const char *phase;
	size_t total;
	atomic_size_t done;
	double last;
	pthread_mutex_t lock;
};

static void progress_start(struct progress *p, bool on, const char *phase, size_t total)
{
	p->on = on;
	p->phase = phase;
	p->total = total;
	atomic_store(&p->done, 0);
	p->last = 0;
}

static void progress_tick(struct progress *p)
{
	size_t done = atomic_fetch_add(&p->done, 1) + 1;
	double t;
	if (!p->on)
		return;
	t = ot_clock();
	if (done != p->total && t - p->last < 0.1)
		return;
	pthread_mutex_lock(&p->lock);
	if (done == p->total || t - p->last >= 0.1) {
		int width = 30, filled = p->total ? (int)(width * done / p->total) : width;
		fprintf(stderr, "\roptrace: %-8s [", p->phase);
		for (int i = 0; i < width; i++)
			fputc(i < filled ? '#' : '.', stderr);
		fprintf(stderr, "] %zu/%zu", done, p->total);
		fflush(stderr);
		p->last = t;
	}
	pthread_mutex_unlock(&p->lock);
}

static void progress_end(struct progress *p)
{
	if (p->on) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/* ---- parallel loops --------------------------------------------------------------- */

struct pool {
	size_t n;
	atomic_size_t next;
	void (*fn)(size_t i, void *payload);
	void *payload;
	struct progress *progress;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		p->fn(i, p->payload);
		if (p->progress)
			progress_tick(p->progress);
	}
	return NULL;
}

/* Run fn(0..n-1) on `jobs` threads; results must not depend on the order. */
static void parallel_for(size_t n, int jobs, void (*fn)(size_t, void *), void *payload,
			 struct progress *progress)
{
	struct pool p = {n, 0, fn, payload, progress};
	pthread_t tids[64];
	int started = 0;
	if (jobs > (int)OT_ARRAY_LEN(tids))
		jobs = OT_ARRAY_LEN(tids);
	for (int t = 1; t < jobs && (size_t)t < n; t++)
		if (pthread_create(&tids[started], NULL, pool_worker, &p) == 0)
			started++;
	pool_worker(&p);
	for (int t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
}

/* ---- the run ------------------------------------------------------------------------ */

static int jobs_of(const ot_run_opts *o)
{
	long n = o->jobs > 0 ? o->jobs : sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}


/* Where the wall time goes (-v): every second of a run is in one phase. */
enum phase { PH_SETUP, PH_READ, PH_INDEX, PH_TESTS, PH_TRACE, PH_RENDER, PH_LAYOUT, PH_WRITE, PH_CLEANUP, PH_COUNT };
static const char *const phase_names[PH_COUNT] = {"setup", "read", "index", "tests", "trace",
						  "render", "layout", "write", "cleanup"};

struct op_in {
	const char *input;
	int line;  /* ops.list line, 0 for the command line's and --all's */
	int arg;   /* position among the command line's ops, else 0 */
	bool full;
	int depth; /* composite branches followed, or 0: the tracer's */
};

/* Named by the user (in the list or on the command line), not added by --all. */
static bool named(const struct op_in *op)
{
	return op->line || op->arg;
}

/* What a release's traces are made from; the traces borrow from it. */
struct ot_run_held {
	ot_source *src;
	ot_index *ix;
	ot_registry *reg;
	ot_wellknown *wk;
	ot_tracer *tracer;
	ot_testdb *tests; /* each op's tests and benchmarks (ot_run only) */
};

struct run {
	const ot_run_opts *o;
	ot_run_held *h;
	OT_VEC(struct op_in) ops;
	ot_trace **traces;
	ot_tj_entries *entries; /* each op's registry entries, for trace.json (NULL
				   without it) */
	ot_buf *json;         /* the trace.json objects of the batch of ops being written */
	ot_pages *pages;
	ot_bundle *bundle;    /* the HTML bundle (--format html) */
	ot_diagram *diagrams; /* the diagrams of the batch of ops being written */
	size_t batch;         /* the first op of that batch */
	ot_output *out;
	ot_release rel;
	atomic_int failed;
	pthread_mutex_t err_lock;
	char first_error[1024];
	double phase[PH_COUNT];
	pthread_mutex_t phase_lock;
};

static void record_failure(struct run *r, const char *what)
{
	pthread_mutex_lock(&r->err_lock);
	if (!atomic_load(&r->failed))
		snprintf(r->first_error, sizeof(r->first_error), "%s: %s", what, ot_error_last());
	atomic_store(&r->failed, 1);
	pthread_mutex_unlock(&r->err_lock);
}

static void add_time(struct run *r, enum phase ph, double dt)
{
	pthread_mutex_lock(&r->phase_lock);
	r->phase[ph] += dt;
	pthread_mutex_unlock(&r->phase_lock);
}

static void trace_one(size_t i, void *payload)
{
	struct run *r = payload;
	r->traces[i] = ot_trace_op(r->h->tracer, r->ops.items[i].input,
				   r->ops.items[i].full || r->o->full, r->ops.items[i].depth);
	if (r->h->tests)
		r->traces[i]->tests = ot_testdb_lookup(r->h->tests, r->traces[i], r->h->reg,
						       r->traces[i]->arena);
	if (r->entries)
		ot_tracejson_select(&r->entries[i], r->h->reg, &r->traces[i]->aten);
}

static void write_file(struct run *r, const char *path, const ot_buf *b)
{
	double t = ot_clock();
	if (ot_output_write(r->out, path, b->ptr, b->size) < 0)
		record_failure(r, path);
	add_time(r, PH_WRITE, ot_clock() - t);
}

/* trace.json is made a batch of ops at a time (tens of megabytes with
 * --all): each batch's objects are written, then freed. */
#define JSON_BATCH 256

/* The trace.json object of op i of the batch. */
static void json_one(size_t i, void *payload)
{
	struct run *r = payload;
	size_t op = r->batch + i;
	ot_tracejson_op(&r->json[i], r->traces[op], &r->entries[op]);
}

/* trace.json, streamed: never all of it in memory */
static void write_trace_json(struct run *r)
{
	ot_buf head = OT_BUF_INIT, tail = OT_BUF_INIT;
	ot_output_stream *s = NULL;
	double t = ot_clock(), wall = 0;
	int error = ot_output_stream_open(r->out, "trace.json", &s);
	ot_tracejson_frame(&head, &tail, &r->rel, r->ops.len, r->entries, r->h->tests);
	if (!error)
		error = ot_output_stream_write(s, head.ptr, head.size);
	r->json = ot_calloc(JSON_BATCH, sizeof(*r->json));
	for (size_t k = 0; k < JSON_BATCH; k++)
		r->json[k] = (ot_buf)OT_BUF_INIT;
	for (r->batch = 0; !error && r->batch < r->ops.len; r->batch += JSON_BATCH) {
		size_t n = r->ops.len - r->batch < JSON_BATCH ? r->ops.len - r->batch : JSON_BATCH;
		double t0 = ot_clock();
		parallel_for(n, jobs_of(r->o), json_one, r, NULL);
		wall += ot_clock() - t0;
		for (size_t k = 0; k < n; k++) {
			const char *sep = ot_tracejson_separator(r->batch + k);
			if (!error)
				error = ot_output_stream_write(s, sep, strlen(sep));
			if (!error)
				error = ot_output_stream_write(s, r->json[k].ptr, r->json[k].size);
			ot_buf_free(&r->json[k]);
		}
	}
	free(r->json);
	r->json = NULL;
	r->batch = 0;
	if (!error)
		error = ot_output_stream_write(s, tail.ptr, tail.size);
	if (s && ot_output_stream_close(s) < 0 && !error)
		error = -1;
	if (error < 0)
		record_failure(r, "trace.json");
	r->phase[PH_RENDER] += wall;
	r->phase[PH_WRITE] += ot_clock() - t - wall;
	ot_buf_free(&head);
	ot_buf_free(&tail);
}

/* html/NAME.html of a top-level page ("index", "kernels"), from its Markdown. */
static void write_html(struct run *r, const char *name, const ot_buf *md, ot_buf *html)
{
	char title[128], path[64];
	snprintf(title, sizeof(title), "PyTorch %s %s", r->rel.version,
		 !strcmp(name, "index") ? "operators" : name);
	snprintf(path, sizeof(path), "html/%s.html", name);
	if (ot_bundle_page(r->bundle, html, md->ptr, md->size, title, path + 5, NULL, NULL) < 0)
		record_failure(r, path);
	else
		write_file(r, path, html);
}

/* Pages are written a batch of ops at a time, each batch's diagrams drawn
 * first: the diagrams of every op at once (tens of kilobytes each) would
 * be a run's largest allocation with --all. */
#define PAGE_BATCH 256

/* Draw diagram i of the batch. */
static int draw_one(size_t i, void *payload, ot_buf *dot, ot_buf *svg)
{
	struct run *r = payload;
	size_t op = r->batch + i;
	if (!r->traces[op]->target.canonical[0])
		return 0;
	return ot_pages_render_diagram(r->pages, op, dot, svg);
}

/* Write page i of the batch (with its diagram). */
static void render_one(size_t i, void *payload)
{
	struct run *r = payload;
	size_t op = r->batch + i;
	const ot_trace *tr = r->traces[op];
	const ot_diagram *dg = &r->diagrams[i];
	ot_buf md = OT_BUF_INIT, html = OT_BUF_INIT, path = OT_BUF_INIT, svgname = OT_BUF_INIT;
	bool has_diagram = dg->status == 1, want_md = r->o->formats & (OT_FORMAT_MD | OT_FORMAT_HTML);
	const ot_buf *dot = &dg->dot, *svg = &dg->svg;
	double t1 = ot_clock();

	if (!want_md || !tr->target.canonical[0] || atomic_load(&r->failed))
		goto done;
	if (dg->status < 0) {
		ot_error_set("Graphviz could not draw the diagram");
		record_failure(r, tr->input);
		goto done;
	}
	if (ot_pages_render_op(r->pages, op, has_diagram, &md) < 0) {
		record_failure(r, tr->input);
		goto done;
	}
	add_time(r, PH_RENDER, ot_clock() - t1);
	if (r->o->formats & OT_FORMAT_MD) {
		ot_buf_printf(&path, "ops/%s.md", tr->target.slug);
		write_file(r, path.ptr, &md);
		if (has_diagram) {
			ot_buf_clear(&path);
			ot_buf_printf(&path, "ops/%s.svg", tr->target.slug);
			write_file(r, path.ptr, svg);
			ot_buf_clear(&path);
			ot_buf_printf(&path, "ops/%s.dot", tr->target.slug);
			write_file(r, path.ptr, dot);
		}
	}
	if (r->o->formats & OT_FORMAT_HTML) {
		double t2 = ot_clock();
		ot_buf_clear(&path);
		ot_buf_printf(&path, "ops/%s.html", tr->target.slug);
		ot_buf_clear(&svgname);
		ot_buf_printf(&svgname, "%s.svg", tr->target.slug);
		if (ot_bundle_page(r->bundle, &html, md.ptr, md.size, tr->target.canonical, path.ptr,
				   has_diagram ? svg->ptr : NULL, svgname.ptr) < 0) {
			record_failure(r, tr->input);
			goto done;
		}
		add_time(r, PH_RENDER, ot_clock() - t2);
		ot_buf_clear(&path);
		ot_buf_printf(&path, "html/ops/%s.html", tr->target.slug);
		write_file(r, path.ptr, &html);
		if (has_diagram) {
			ot_buf_clear(&path);
			ot_buf_printf(&path, "html/ops/%s.svg", tr->target.slug);
			write_file(r, path.ptr, svg);
		}
	}
done:
	ot_buf_free(&md);
	ot_buf_free(&html);
	ot_buf_free(&path);
	ot_buf_free(&svgname);
}

char *ot_run_default_source(void)
{
	const char *cache = getenv("TILEGYM_SKILL_CACHE_DIR"), *home = getenv("HOME");
	ot_buf b = OT_BUF_INIT;
	if (cache && *cache)
		ot_buf_printf(&b, "%s/pytorch-source", cache);
	else
		ot_buf_printf(&b, "%s/.cache/tilegym/pytorch-source", home && *home ? home : ".");
	return ot_buf_detach(&b);
}

static int cmp_op_in(const void *a, const void *b)
{
	return strcmp(((const struct op_in *)a)->input, ((const struct op_in *)b)->input);
}

/* Ops to trace: the list's, plus every registry entry with --all; each once,
 * sorted by input so every output is in a stable order. */
static void collect_ops(struct run *r, const ot_opslist *list, const ot_registry *reg,
			ot_arena *arena)
{
	ot_map *seen = ot_map_new();
	/* with --all or ops named as arguments, and no list named, ./ops.list
	 * only lends its version pin */
	bool list_ops = r->o->ops_list_given || (!r->o->all && !r->o->nops);
	for (size_t i = 0; list && i < list->ops.len; i++) {
		const ot_opslist_entry *e = &list->ops.items[i];
		if ((!e->arg && !list_ops) || ot_map_get(seen, e->name))
			continue;
		ot_map_put(seen, e->name, (void *)1);
		ot_vec_push(&r->ops, ((struct op_in){e->name, e->line, e->arg, e->full, 0}));
	}
	if (r->o->all) {
		/* every entry has a page of its own, so a branch is a link away:
		 * entries follow one level of branches unless --depth says */
		int depth = r->o->max_depth >= 0 ? 0 : 1;
		for (size_t i = 0; i < ot_registry_func_count(reg); i++) {
			const ot_reg_func *f = ot_registry_func_at(reg, i);
			const char *name = ot_arena_printf(arena, "aten::%s", f->schema.full);
			if (ot_map_get(seen, name))
				continue;
			ot_map_put(seen, name, (void *)1);
			ot_vec_push(&r->ops, ((struct op_in){name, 0, 0, true, depth}));
		}
	}
	if (r->ops.len > 1) /* no ops: items is NULL, which qsort must not see */
		qsort(r->ops.items, r->ops.len, sizeof(*r->ops.items), cmp_op_in);
	ot_map_free(seen);
}

/* Keep only the ops not marked in `drop` (their traces, JSON and entries go). */
static void drop_ops(struct run *r, const bool *drop)
{
	size_t k = 0;
	for (size_t i = 0; i < r->ops.len; i++) {
		if (drop[i]) {
			ot_trace_free(r->traces[i]);
			if (r->entries)
				ot_vec_free(&r->entries[i]);
			continue;
		}
		r->traces[k] = r->traces[i];
		r->ops.items[k] = r->ops.items[i];
		if (r->entries)
			r->entries[k] = r->entries[i];
		k++;
	}
	r->ops.len = k;
}

/*
 * Two inputs that spell the same op, or slugs equal but for case, would write
 * the same page. The ops.list's spelling wins over --all's (torch.ops.aten.mm
 * in the list, aten::mm from --all: one page, under the list's name);
 * otherwise the later one is an error, never an overwrite.
 */
static void check_slugs(struct run *r)
{
	ot_map *slugs = ot_map_new(); /* slug -> 1 + index of the op that keeps it */
	bool *drop = ot_calloc(r->ops.len ? r->ops.len : 1, sizeof(*drop));
	for (size_t i = 0; i < r->ops.len; i++) {
		ot_trace *tr = r->traces[i];
		size_t first;
		if (!tr->target.canonical[0])
			continue;
		first = (size_t)(uintptr_t)ot_map_get(slugs, tr->target.slug);
		if (!first) {
			ot_map_put(slugs, tr->target.slug, (void *)(uintptr_t)(i + 1));
		} else if (!named(&r->ops.items[first - 1]) && named(&r->ops.items[i])) {
			drop[first - 1] = true; /* --all's, before the list's */
			ot_map_put(slugs, tr->target.slug, (void *)(uintptr_t)(i + 1));
		} else if (named(&r->ops.items[first - 1]) && !named(&r->ops.items[i])) {
			drop[i] = true; /* --all's, after the list's */
		} else {
			char *msg = ot_arena_printf(tr->arena,
						    "'%s' names the same page (ops/%s.md) as '%s'; "
						    "it is listed once",
						    tr->input, tr->target.slug, r->traces[first - 1]->input);
			tr->status = OT_STATUS_ERROR;
			ot_vec_push(&tr->messages, msg);
			tr->target.canonical[0] = '\0';
		}
	}
	drop_ops(r, drop);
	free(drop);
	ot_map_free(slugs);
}

/*
 * The registries are parsed on a thread of their own while the tree is
 * indexed: they are read through their own source reader, so the two never
 * share a libgit2 handle.
 */
struct registry_job {
	ot_source *src;
	ot_source_files files; /* native_functions.yaml, derivatives.yaml if present */
	ot_arena *arena;
	ot_registry *reg;
	int rc;
	char error[2048];
};

static void *load_registry_thread(void *arg)
{
	struct registry_job *job = arg;
	ot_source_reader *reader = NULL;
	ot_buf text[2] = {OT_BUF_INIT, OT_BUF_INIT};
	const ot_source_file *nf = NULL, *dv = NULL;

	for (size_t i = 0; i < job->files.len; i++) {
		if (!strcmp(job->files.items[i].path, OT_REGISTRY_NATIVE_PATH))
			nf = &job->files.items[i];
		else if (!strcmp(job->files.items[i].path, OT_REGISTRY_DERIV_PATH))
			dv = &job->files.items[i];
	}
	if (!nf)
		job->rc = ot_error_set("%s is missing from the source tree", OT_REGISTRY_NATIVE_PATH);
	else if ((job->rc = ot_source_reader_new(&reader, job->src)) == 0 &&
		 (job->rc = ot_source_reader_read(&text[0], reader, nf)) == 0 &&
		 (!dv || (job->rc = ot_source_reader_read(&text[1], reader, dv)) == 0))
		job->rc = ot_registry_load(&job->reg, text[0].ptr, text[0].size, OT_REGISTRY_NATIVE_PATH,
					   dv ? text[1].ptr : NULL, text[1].size, OT_REGISTRY_DERIV_PATH);
	if (job->rc < 0)
		snprintf(job->error, sizeof(job->error), "%s", ot_error_last());
	ot_source_reader_free(reader);
	ot_buf_free(&text[0]);
	ot_buf_free(&text[1]);
	return NULL;
}

/* Start parsing the registries of `src` in the background. */
static int registry_start(struct registry_job *job, pthread_t *tid, ot_source *src)
{
	static const char *const paths[] = {OT_REGISTRY_NATIVE_PATH, OT_REGISTRY_DERIV_PATH, NULL};
	job->src = src;
	job->arena = ot_arena_new();
	if (ot_source_list(&job->files, job->arena, src, paths, NULL, NULL) < 0)
		return OT_ERROR;
	/* listed by path: native_functions.yaml (aten/...) comes first when present */
	if (!job->files.len || strcmp(job->files.items[0].path, OT_REGISTRY_NATIVE_PATH)) {
		/* left out of the listing: the reader says why (too large, a link...) */
		ot_buf text = OT_BUF_INIT;
		int rc = ot_source_read(&text, src, OT_REGISTRY_NATIVE_PATH);
		ot_buf_free(&text);
		if (rc < 0)
			return rc;
	}
	if (pthread_create(tid, NULL, load_registry_thread, job) != 0)
		load_registry_thread(job); /* no thread: do it now */
	else
		return 1;
	return 0;
}

static int load_wellknown(ot_wellknown **out, const char *templates)
{
	ot_buf text = OT_BUF_INIT;
	char *from = NULL;
	int rc = ot_assets_get(&text, templates, "wellknown.yaml", &from);
	if (rc == 0)
		rc = ot_wellknown_load(out, text.ptr, text.size,
				       from && strcmp(from, "built-in") ? from : "wellknown.yaml");
	free(from);
	ot_buf_free(&text);
	return rc;
}

/* 0 when every op and layer was found and the list had no bad line, else 1. */
static int run_status(const struct run *r, size_t list_errors, size_t missing_layers)
{
	if (list_errors || missing_layers)
		return OT_EXIT_PARTIAL;
	for (size_t i = 0; i < r->ops.len; i++)
		if (r->traces[i]->status >= OT_STATUS_NOTFOUND)
			return OT_EXIT_PARTIAL;
	return OT_EXIT_OK;
}

/* The order the user named an op in: the list's lines, then the command line's, then --all's. */
static long named_order(const struct op_in *op)
{
	return op->line ? op->line : op->arg ? 10000000L + op->arg : 20000000L;
}

static int cmp_named_order(const void *a, const void *b, void *ops)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct op_in *op = ops;
	long x = named_order(&op[i]), y = named_order(&op[j]);
	return x < y ? -1 : x > y ? 1 : i < j ? -1 : i > j;
}

/* "[PLACE: ]input: not found (did you mean a, b?)" for an op not found, its
 * message for an op in error, nothing for the others. */
static void say_op_problem(const ot_trace *tr, const char *place)
{
	if (tr->status == OT_STATUS_NOTFOUND) {
		ot_buf hint = OT_BUF_INIT;
		for (size_t s = 0; s < tr->suggestions.len; s++)
			ot_buf_printf(&hint, "%s%s", s ? ", " : " (did you mean ", tr->suggestions.items[s]);
		if (hint.size)
			ot_buf_puts(&hint, "?)");
		say("%s%s%s: not found%s", place ? place : "", place ? ": " : "", tr->input, hint.ptr);
		ot_buf_free(&hint);
	} else if (tr->status == OT_STATUS_ERROR) {
		say("%s: %s", tr->input, tr->messages.len ? tr->messages.items[0] : "error");
	}
}

/*
 * "list:line: input: not found (did you mean a, b?)" for every op that was
 * not found, and the message of every op in error, in the order the user
 * named them; printed with -q too: they are why the status is not 0.
 */
static void say_not_found(const struct run *r, const char *ops_path)
{
	size_t *order = ot_calloc(r->ops.len ? r->ops.len : 1, sizeof(*order));
	for (size_t i = 0; i < r->ops.len; i++)
		order[i] = i;
	if (r->ops.len > 1)
		qsort_r(order, r->ops.len, sizeof(*order), cmp_named_order, r->ops.items);
	for (size_t k = 0; k < r->ops.len; k++) {
		size_t i = order[k];
		const ot_trace *tr = r->traces[i];
		int line = r->ops.items[i].line;
		if (line) {
			char place[600];
			snprintf(place, sizeof(place), "%s:%d", ops_path, line);
			say_op_problem(tr, place);
		} else {
			say_op_problem(tr, NULL);
		}
	}
	free(order);
}

static void print_summary(const struct run *r, size_t missing_layers, const ot_output_stats *st)
{
	size_t counts[4] = {0};
	for (size_t i = 0; i < r->ops.len; i++)
		counts[r->traces[i]->status]++;
	say("%zu ops: %zu traced, %zu well-known, %zu not found, %zu errors; %zu layers not found",
	    r->ops.len, counts[OT_STATUS_TRACED], counts[OT_STATUS_WELLKNOWN],
	    counts[OT_STATUS_NOTFOUND], counts[OT_STATUS_ERROR], missing_layers);
	if (st)
		say("%s: %zu files written, %zu unchanged, %zu removed", ot_output_dir(r->out),
		    st->written, st->unchanged, st->removed);
}

/* ---- steps shared by a run and a release traced in memory -------------------------------- */

/*
 * 1. The ops: the list (named, or ./ops.list when it exists; a run that
 * needs no ops from it, --all, ops named as arguments, --dump-registry,
 * --print-version, goes on without it, and then only takes its pin) and
 * the command line's. Its messages are printed. 2. The release, by
 * ot_version_detect. Returns 0, or OT_ERROR once the reason is printed.
 */
static int read_ops_and_release(const ot_run_opts *o, ot_opslist **list, ot_version *ver,
				size_t *list_errors)
{
	const char *ops_path = o->ops_list ? o->ops_list : "ops.list", *list_name = NULL;
	char pin_origin[600] = "";

	*list = NULL;
	if (o->ops_list_given || access(ops_path, F_OK) == 0 ||
	    !(o->all || o->nops || o->dump_registry || o->print_version)) {
		if (ot_opslist_load(list, ops_path) < 0) {
			say("%s", ot_error_last());
			return OT_ERROR;
		}
		list_name = (*list)->filename;
		if ((*list)->pin)
			snprintf(pin_origin, sizeof(pin_origin), "ops.list pin (%s:%d)", list_name,
				 (*list)->pin_line);
	}
	if (o->nops) {
		if (!*list) {
			*list = ot_opslist_parse("", 0, "command line");
		} else if (!o->ops_list_given) {
			/* ./ops.list only lends its pin: its ops are not the command line's */
			for (size_t i = 0; i < (*list)->ops.len; i++)
				free((*list)->ops.items[i].name);
			(*list)->ops.len = 0;
		}
		ot_opslist_add_args(*list, o->ops, o->nops, "command line");
	}
	for (size_t i = 0; *list && i < (*list)->diags.len; i++)
		say("%s", (*list)->diags.items[i].message);
	if (list_errors)
		*list_errors = *list ? ot_opslist_error_count(*list) : 0;
	if (ot_version_detect(ver, o->torch_version, list_name ? (*list)->pin : NULL,
			      pin_origin[0] ? pin_origin : NULL, list_name, o->python) < 0) {
		say("%s", ot_error_last());
		return OT_ERROR;
	}
	return 0;
}


static void held_free(ot_run_held *h)
{
	if (!h)
		return;
	ot_tracer_free(h->tracer);
	ot_testdb_free(h->tests);
	ot_wellknown_free(h->wk);
	ot_registry_free(h->reg);
	ot_index_free(h->ix);
	ot_source_free(h->src);
	free(h);
}

/* Open the checkout at `release` (`commit`: a nightly's commit, or NULL). */
static int open_source(ot_run_held *h, const ot_run_opts *o, const char *release,
		       const char *commit, bool tty)
{
	ot_source_opts so = {0};
	char *default_source = o->source ? NULL : ot_run_default_source();
	int rc;

	so.path = o->source ? o->source : default_source;
	so.clone_url = o->source_url ? o->source_url : OT_SOURCE_DEFAULT_URL;
	so.allow_unverified = o->unverified_source;
	so.progress = tty;
	so.max_file = o->max_file_bytes;
	so.max_total = o->max_read_bytes;
	rc = ot_source_open(&h->src, &so);
	if (rc == 0)
		rc = ot_source_select(h->src, release, commit);
	free(default_source);
	return rc;
}

/*
 * Read and index the tree of r->h's checkout (unless `index_tree` is
 * false) while its registries are parsed. Times go to r->phase, from `t`
 * (when the checkout was opened) on. Errors are left in ot_error_last,
 * ready to print.
 */
static int read_release(struct run *r, bool index_tree, double t)
{
	const ot_run_opts *o = r->o;
	ot_run_held *h = r->h;
	struct registry_job job = {0};
	pthread_t tid;
	int running = 0, rc = OT_ERROR;

	if ((running = registry_start(&job, &tid, h->src)) < 0) {
		ot_error_wrap("reading %s", ot_source_path(h->src));
		goto done;
	}
	if (index_tree && ot_index_build(&h->ix, h->src, jobs_of(o)) < 0) {
		ot_error_wrap("reading %s", ot_source_path(h->src));
		goto done;
	}
	if (h->ix) {
		const ot_index_stats *st = ot_index_get_stats(h->ix);
		double wall = ot_clock() - t;
		double sum = st->read_seconds + st->scan_seconds;
		/* split the wall time of the parallel build by the threads' shares */
		r->phase[PH_READ] = sum > 0 ? wall * st->read_seconds / sum : 0;
		r->phase[PH_INDEX] = wall - r->phase[PH_READ];
	}
	t = ot_clock();
	if (running == 1)
		pthread_join(tid, NULL);
	running = 0;
	r->phase[PH_INDEX] += ot_clock() - t;
	if (job.rc < 0) {
		ot_error_set("%s", job.error);
		goto done;
	}
	h->reg = job.reg;
	job.reg = NULL;
	rc = 0;
done:
	if (running == 1)
		pthread_join(tid, NULL);
	ot_registry_free(job.reg);
	ot_vec_free(&job.files);
	ot_arena_free(job.arena);
	return rc;
}

/*
 * Trace r->ops (collected, not empty) with a tracer over r->h, on the
 * run's threads; with `json`, each op's registry entries for trace.json
 * are picked by the thread that traced it.
 */
static void trace_ops(struct run *r, bool json, struct progress *prog, bool tty)
{
	const ot_run_opts *o = r->o;
	double t = ot_clock();
	{
		ot_tracer_opts to = {o->max_depth >= 0 ? o->max_depth : 3, 3, o->full,
				     ot_source_version(r->h->src)};
		r->h->tracer = ot_tracer_new(r->h->reg, r->h->ix, r->h->wk, &to);
	}
	r->traces = ot_calloc(r->ops.len, sizeof(*r->traces));
	if (json)
		r->entries = ot_calloc(r->ops.len, sizeof(*r->entries));
	r->phase[PH_INDEX] += ot_clock() - t; /* the tracer's tables */
	t = ot_clock();
	progress_start(prog, tty && r->ops.len > 20, "tracing", r->ops.len);
	parallel_for(r->ops.len, jobs_of(o), trace_one, r, prog);
	progress_end(prog);
	r->phase[PH_TRACE] = ot_clock() - t;
}

/* Everything of a run but what r->h holds. */
static void run_free(struct run *r)
{
	for (size_t i = 0; r->traces && i < r->ops.len; i++)
		ot_trace_free(r->traces[i]);
	free(r->traces);
	for (size_t i = 0; r->entries && i < r->ops.len; i++)
		ot_vec_free(&r->entries[i]);
	free(r->entries);
	ot_vec_free(&r->ops);
}

int ot_run(const ot_run_opts *o)
{
	struct run r = {0};
	ot_opslist *list = NULL;
	ot_version ver;
	ot_run_held *h = ot_calloc(1, sizeof(*h));
	ot_arena *arena = ot_arena_new();
	const char *ops_path = o->ops_list ? o->ops_list : "ops.list";
	unsigned formats = o->formats ? o->formats : OT_FORMAT_MD | OT_FORMAT_JSON;
	int jobs = jobs_of(o), status = OT_EXIT_FATAL;
	bool tty = isatty(2) && !o->quiet;
	size_t list_errors = 0, missing_layers = 0;
	struct progress prog = {0};
	double t, t_start = ot_clock(), t_done = 0;
	size_t nops = 0;
	int *lines = NULL; /* each op's ops.list line, for the pages */
	ot_run_opts opts = *o;

	opts.formats = formats;
	r.o = &opts;
	r.h = h;
	pthread_mutex_init(&r.err_lock, NULL);
	pthread_mutex_init(&r.phase_lock, NULL);
	pthread_mutex_init(&prog.lock, NULL);

	/* 1-2. the ops and the release */
	if (read_ops_and_release(o, &list, &ver, &list_errors) < 0)
		goto done;
	if (o->print_version) {
		printf("%s\n", ver.release);
		if (!o->quiet) /* where it was learned, beside the data */
			say("PyTorch %s, from %s", ver.release, ver.origin);
		status = OT_EXIT_OK;
		goto done;
	}
	if (o->verbose && !o->quiet)
		say("tracing PyTorch %s (from %s)", ver.release, ver.origin);


	/* 3. the checkout, at that release; 4-5. its tree indexed, the
	 * registries parsed meanwhile */
	t = ot_clock();
	r.phase[PH_SETUP] = t - t_start;
	if (open_source(h, o, ver.release, ver.nightly ? ver.commit : NULL, tty) < 0) {
		say("%s", ot_error_last());
		goto done;
	}
	if (!ot_source_verified(h->src))
		say("warning: %s is not a git checkout: its release cannot be proven; every output "
		    "says so", ot_source_path(h->src));
	/* the output folder once the checkout is open: a second run into it
	 * stops here, at once */
	if (!o->check && !o->dump_registry) {
		char *checkout = o->source ? ot_strdup(o->source) : ot_run_default_source();
		ot_output_opts oo = {checkout, o->force};
		int rc = ot_output_open_with(&r.out, o->out_dir ? o->out_dir : "out", &oo);
		free(checkout);
		if (rc < 0) {
			say("%s", ot_error_last());
			goto done;
		}
	}
	if (read_release(&r, !o->dump_registry, t) < 0) {
		say("%s", ot_error_last());
		goto done;
	}
	if (o->dump_registry) {
		ot_buf b = OT_BUF_INIT;
		ot_registry_dump_json(&b, h->reg);
		fwrite(b.ptr, 1, b.size, stdout);
		ot_buf_free(&b);
		status = OT_EXIT_OK;
		goto done;
	}
	t = ot_clock();
	if (load_wellknown(&h->wk, o->templates) < 0) {
		say("%s", ot_error_last());
		goto done;
	}
	r.phase[PH_INDEX] += ot_clock() - t;
	t = ot_clock();
	/* --check writes nothing: no page or trace.json shows the tests */
	h->tests = o->check ? NULL : ot_testdb_build(h->ix, jobs);
	if (h->tests && !ot_testdb_get_stats(h->tests)->files) { /* a tree without PyTorch's test machinery */
		ot_testdb_free(h->tests);
		h->tests = NULL;
	}
	r.phase[PH_TESTS] = ot_clock() - t;

	/* 6. trace */
	collect_ops(&r, list, h->reg, arena);
	if (!r.ops.len) {
		say("%s lists no ops (add one per line, or use --all)", ops_path);
		goto done;
	}
	trace_ops(&r, (formats & OT_FORMAT_JSON) && !o->check, &prog, tty);
	check_slugs(&r);
	for (size_t i = 0; i < r.ops.len; i++)
		missing_layers += ot_trace_missing(r.traces[i]);
	say_not_found(&r, list ? list->filename : ops_path);

	/* a nightly is named as installed (2.7.0a0+gitabc1234), not as a release */
	r.rel.version = ver.nightly ? ver.raw : ot_source_version(h->src);
	r.rel.tag = ot_source_tag(h->src);
	r.rel.commit = ot_source_commit(h->src);
	r.rel.verified = ot_source_verified(h->src);
	r.rel.base_url = o->base_url ? o->base_url : "https://github.com/pytorch/pytorch/blob";

	if (o->check) {
		if (!o->quiet)
			print_summary(&r, missing_layers, NULL);
		status = run_status(&r, list_errors, missing_layers);
		t_done = ot_clock(); /* for -v: the phases of a check run too */
		nops = r.ops.len;
		goto done;
	}

	/* 7. render and write */
	if (formats & OT_FORMAT_JSON)
		write_trace_json(&r);
	if (formats & (OT_FORMAT_MD | OT_FORMAT_HTML)) {
		lines = ot_calloc(r.ops.len ? r.ops.len : 1, sizeof(*lines)); /* the pages keep it */
		for (size_t i = 0; i < r.ops.len; i++)
			lines[i] = r.ops.items[i].line;
		if (ot_pages_new(&r.pages, &r.rel, r.traces, lines, r.ops.len, h->ix, h->reg,
				 o->templates) < 0) {
			say("%s", ot_error_last());
			goto done;
		}
		if ((formats & OT_FORMAT_HTML) &&
		    ot_bundle_new(&r.bundle, r.pages, r.traces, r.ops.len, r.rel.version,
				  o->templates) < 0) {
			say("%s", ot_error_last());
			goto done;
		}
	}
	r.diagrams = ot_calloc(PAGE_BATCH, sizeof(*r.diagrams));
	progress_start(&prog, tty && r.ops.len > 20, "writing", r.ops.len);
	{
		double wall = 0;
		for (r.batch = 0; r.batch < r.ops.len; r.batch += PAGE_BATCH) {
			size_t n = r.ops.len - r.batch < PAGE_BATCH ? r.ops.len - r.batch : PAGE_BATCH;
			if (r.pages) {
				/* Graphviz is not thread-safe: drawn by worker processes */
				t = ot_clock();
				ot_layout_all(n, jobs, draw_one, &r, NULL, NULL, r.diagrams);
				r.phase[PH_LAYOUT] += ot_clock() - t;
			}
			t = ot_clock();
			parallel_for(n, jobs, render_one, &r, &prog);
			wall += ot_clock() - t;
			for (size_t k = 0; k < n; k++) {
				ot_buf_free(&r.diagrams[k].dot);
				ot_buf_free(&r.diagrams[k].svg);
			}
			memset(r.diagrams, 0, n * sizeof(*r.diagrams));
		}
		/* the threads' summed times, scaled to the wall time they shared */
		{
			double sum = r.phase[PH_RENDER] + r.phase[PH_WRITE];
			if (sum > 0) {
				r.phase[PH_RENDER] = wall * r.phase[PH_RENDER] / sum;
				r.phase[PH_WRITE] = wall * r.phase[PH_WRITE] / sum;
			}
		}
	}
	progress_end(&prog);
	ot_diagrams_free(r.diagrams, 0);
	r.diagrams = NULL;
	t = ot_clock();
	if (!atomic_load(&r.failed)) {
		ot_buf b = OT_BUF_INIT, html = OT_BUF_INIT;
		if (formats & (OT_FORMAT_MD | OT_FORMAT_HTML)) {
			if (ot_pages_render_index(r.pages, &b) < 0)
				record_failure(&r, "index.md");
			else if (formats & OT_FORMAT_MD)
				write_file(&r, "index.md", &b);
			if (!atomic_load(&r.failed)) {
				ot_buf k = OT_BUF_INIT;
				if (ot_pages_render_kernels(r.pages, &k) < 0)
					record_failure(&r, "kernels.md");
				else if (formats & OT_FORMAT_MD)
					write_file(&r, "kernels.md", &k);
				if (!atomic_load(&r.failed) && (formats & OT_FORMAT_HTML))
					write_html(&r, "kernels", &k, &html);
				ot_buf_free(&k);
			}
			if (!atomic_load(&r.failed) && (formats & OT_FORMAT_HTML)) {
				const char *name;
				write_html(&r, "index", &b, &html);
				for (size_t k = 0; ot_bundle_asset(r.bundle, k, &name, &html) == 0; k++) {
					char file[64];
					snprintf(file, sizeof(file), "html/%s", name);
					write_file(&r, file, &html);
				}
			}
		}
		ot_buf_free(&b);
		ot_buf_free(&html);
	}
	if (atomic_load(&r.failed)) {
		say("%s; nothing was published, %s is unchanged", r.first_error,
		    ot_output_dir(r.out));
		goto done;
	}
	{
		ot_output_stats st = {0};
		double tw = ot_clock();
		if (ot_output_commit(r.out, &st) < 0) {
			say("%s", ot_error_last());
			goto done;
		}
		r.phase[PH_WRITE] += ot_clock() - tw;
		if (!o->quiet)
			print_summary(&r, missing_layers, &st);
	}
	t_done = ot_clock();
	nops = r.ops.len;
	status = run_status(&r, list_errors, missing_layers);

done:
	ot_bundle_free(r.bundle);
	ot_pages_free(r.pages);
	free(lines);
	ot_output_free(r.out);
	run_free(&r);
	held_free(h);
	ot_opslist_free(list);
	ot_arena_free(arena);
	pthread_mutex_destroy(&r.err_lock);
	pthread_mutex_destroy(&r.phase_lock);
	pthread_mutex_destroy(&prog.lock);
	if (o->verbose && !o->quiet && t_done > 0) {
		double total = ot_clock() - t_start;
		r.phase[PH_CLEANUP] = ot_clock() - t_done;
		for (int p = 0; p < PH_COUNT; p++)
			say("phase %-7s %8.3f s", phase_names[p], r.phase[p]);
		say("phase total   %8.3f s  (%zu ops, %d jobs, %.0f ops/s)", total, nops, jobs,
		    total > 0 ? (double)nops / total : 0.0);
	}
	return status;
}


/* ---- one release in memory (optrace diff) --------------------------------------------------- */

void ot_run_traces_free(ot_run_traces *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->traces && i < t->n; i++)
		ot_trace_free(t->traces[i]);
	free(t->traces);
	held_free(t->held);
	ot_registry_free(t->reg);
	free((char *)t->rel.version);
	free((char *)t->rel.tag);
	free((char *)t->rel.commit);
	free(t);
}

const ot_index *ot_run_traces_index(const ot_run_traces *t)
{
	return t->held->ix;
}

int ot_run_trace_release(ot_run_traces **out, const ot_run_opts *o, const char *version,
			 const char *commit_hint, const ot_opslist *list)
{
	ot_run_traces *t = ot_calloc(1, sizeof(*t));
	struct run r = {0};
	struct progress prog = {0};
	ot_arena *arena = ot_arena_new();
	bool tty = isatty(2) && !o->quiet;
	double t0 = ot_clock();
	int rc = OT_ERROR;

	*out = NULL;
	r.o = o;
	r.h = t->held = ot_calloc(1, sizeof(*t->held));
	pthread_mutex_init(&r.phase_lock, NULL);
	pthread_mutex_init(&prog.lock, NULL);
	if (open_source(r.h, o, version, commit_hint, tty) < 0 || read_release(&r, true, t0) < 0 ||
	    load_wellknown(&r.h->wk, o->templates) < 0)
		goto done;
	collect_ops(&r, list, r.h->reg, arena);
	if (!r.ops.len) {
		ot_error_set("no ops to trace at %s (give an ops list, or --all)", version);
		goto done;
	}
	trace_ops(&r, false, &prog, tty);
	check_slugs(&r); /* as ot_run does, so a trace.json and a tag compare alike */
	t->traces = r.traces;
	t->n = r.ops.len;
	r.traces = NULL;
	t->rel.version = ot_strdup(ot_source_version(r.h->src));
	t->rel.tag = ot_source_tag(r.h->src) ? ot_strdup(ot_source_tag(r.h->src)) : NULL;
	t->rel.commit = ot_strdup(ot_source_commit(r.h->src));
	t->rel.verified = ot_source_verified(r.h->src);
	/* the registry outlives the rest for whoever takes it (optrace diff's
	 * documents point at its entries); the tracer only borrowed it */
	t->reg = r.h->reg;
	r.h->reg = NULL;
	if (o->verbose && !o->quiet)
		say("%s: read and index %.3f s, trace %.3f s (%zu ops, %d jobs)", t->rel.version,
		    r.phase[PH_READ] + r.phase[PH_INDEX], r.phase[PH_TRACE], t->n, jobs_of(o));
	*out = t;
	t = NULL;
	rc = 0;
done:
	run_free(&r);
	ot_run_traces_free(t);
	ot_arena_free(arena);
	pthread_mutex_destroy(&r.phase_lock);
	pthread_mutex_destroy(&prog.lock);
	return rc;
}

/* ---- one op in the terminal (optrace show) ------------------------------------------------------ */

int ot_run_show(const ot_run_opts *opts, const char *op, bool json, bool color)
{
	ot_run_opts o = *opts;
	ot_opslist *list = NULL;
	ot_run_traces *t = NULL;
	ot_version ver;
	ot_buf text = OT_BUF_INIT, obj = OT_BUF_INIT;
	const char *one[] = {op};
	int status = OT_EXIT_FATAL;

	/* the op, as the command line names it; ./ops.list lends only its pin */
	o.ops = one;
	o.nops = 1;
	o.all = false;
	if (read_ops_and_release(&o, &list, &ver, NULL) < 0)
		goto done;
	if (ot_opslist_error_count(list))
		goto done; /* the name is malformed: said above */
	if (o.verbose && !o.quiet)
		say("tracing PyTorch %s (from %s)", ver.release, ver.origin);
	if (ot_run_trace_release(&t, &o, ver.release, ver.nightly ? ver.commit : NULL, list) < 0) {
		say("%s", ot_error_last());
		goto done;
	}
	if (!ot_source_verified(t->held->src))
		say("warning: %s is not a git checkout: its release cannot be proven",
		    ot_source_path(t->held->src));
	for (size_t i = 0; i < t->n; i++) {
		const ot_trace *tr = t->traces[i];
		bool shown = tr->status == OT_STATUS_TRACED || tr->status == OT_STATUS_WELLKNOWN;
		if (json) {
			ot_tj_entries entries = {0};
			ot_tracejson_select(&entries, t->reg, &tr->aten);
			ot_tracejson_op(&obj, tr, &entries);
			/* the object as trace.json holds it, indented as a document of its own */
			for (const char *l = obj.ptr; *l;) {
				size_t n = strcspn(l, "\n"), pad = 0;
				if (l != obj.ptr)
					while (pad < 4 && l[pad] == ' ')
						pad++;
				ot_buf_put(&text, l + pad, n - pad);
				ot_buf_putc(&text, '\n');
				l += n + (l[n] == '\n');
			}
			ot_buf_clear(&obj);
			ot_vec_free(&entries);
		} else if (shown) {
			ot_show_render(&text, tr, color);
		}
		say_op_problem(tr, NULL);
		status = shown && !ot_trace_missing(tr) ? OT_EXIT_OK
			 : shown || tr->status == OT_STATUS_NOTFOUND ? OT_EXIT_PARTIAL
								    : OT_EXIT_FATAL;
	}
	fwrite(text.ptr, 1, text.size, stdout);
done:
	ot_buf_free(&text);
	ot_buf_free(&obj);
	ot_run_traces_free(t);
	ot_opslist_free(list);
	return status;
}
