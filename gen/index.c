#include "index.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "registry.h"
#include "source.h"

struct ot_index {
	ot_ix_file *files;
	uint32_t nfiles;
	ot_map *file_ids; /* path -> id + 1 */
	ot_scan_result *results; /* one per file */
	ot_arena **arenas;       /* one per worker thread */
	int narenas;
	ot_arena *arena;         /* merge-time data */
	ot_map *cdefs, *stubs, *pydefs, *decomps, *docs;
	const char **pynames;
	size_t npynames;
	ot_map *call_names; /* every name called in a C++ body (value unused) */
	ot_index_stats stats;
};

/* ---- which files matter ---------------------------------------------------- */

/* What a trace can reach, and nothing more: reading is the main cost of a run. */
static const char *const python_dirs[] = {"torch/nn/", "torch/_decomp/", "torch/_refs/",
					  "torch/linalg/", "torch/fft/", "torch/special/",
					  "torch/nested/", "torch/sparse/"};
/* the top-level modules that define or bridge ops (the other top-level modules
 * is tooling: overrides, meta registrations, serialisation...) */
static const char *const python_files[] = {"torch/__init__.py", "torch/_VF.py",
					   "torch/_tensor.py", "torch/_torch_docs.py",
					   "torch/_tensor_docs.py", "torch/functional.py"};
/* the kernel folders of ATen: native/ and the GPU libraries' wrappers
 * (core/, cpu/vec/, functorch/, templates/ hold no op kernels) */
static const char *const aten_dirs[] = {"aten/src/ATen/native/", "aten/src/ATen/cuda/",
					"aten/src/ATen/cudnn/", "aten/src/ATen/miopen/",
					"aten/src/ATen/mps/", "aten/src/ATen/mkl/"};

/* Kept as text, not scanned: steps point into them (the registries, and the
 * autograd code generator whose rules decide the backward of ops that have
 * no derivatives.yaml entry). */
static const char *const text_files[] = {OT_REGISTRY_NATIVE_PATH, OT_REGISTRY_DERIV_PATH,
					 OT_INDEX_AUTOGRAD_CODEGEN_PATH,
					 OT_INDEX_FOREACH_CODEGEN_PATH};

static bool text_only(const char *path)
{
	for (size_t i = 0; i < OT_ARRAY_LEN(text_files); i++)
		if (!strcmp(path, text_files[i]))
			return true;
	return false;
}

static bool keep_file(const char *path, void *payload)
{
	ot_lang lang = ot_lex_lang(path);
	(void)payload;
	if (text_only(path))
		return true;
	if (ot_starts_with(path, "aten/src/ATen/")) {
		if (lang != OT_LANG_C || strstr(path, "/test/"))
			return false;
		for (size_t i = 0; i < OT_ARRAY_LEN(aten_dirs); i++)
			if (ot_starts_with(path, aten_dirs[i]))
				return true;
		return false;
	}
	if (ot_starts_with(path, "torch/csrc/autograd/"))
		return lang == OT_LANG_C;
	if (lang != OT_LANG_PYTHON || !ot_ends_with(path, ".py"))
		return false;
	for (size_t i = 0; i < OT_ARRAY_LEN(python_files); i++)
		if (!strcmp(path, python_files[i]))
			return true;
	for (size_t i = 0; i < OT_ARRAY_LEN(python_dirs); i++)
		if (ot_starts_with(path, python_dirs[i]))
			return true;
	return false;
}

static const char *const prefixes[] = {"aten/src/ATen/", "torch/", OT_REGISTRY_DERIV_PATH,
				       OT_INDEX_AUTOGRAD_CODEGEN_PATH,
				       OT_INDEX_FOREACH_CODEGEN_PATH, NULL};

/* ---- parallel read + scan ----------------------------------------------------- */

struct job {
	ot_index *ix;
	ot_source *src;
	const ot_source_files *list;
	atomic_size_t next;
	atomic_int failed;
	pthread_mutex_t lock;
	char error[1024];
};

struct worker {
	struct job *job;
	ot_arena *arena;
	double read_s, scan_s;
	size_t bytes;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void index_one(struct worker *w, ot_source_reader *reader, size_t i, ot_buf *data,
		      ot_buf *code)
{
	ot_index *ix = w->job->ix;
	const ot_source_file *sf = &w->job->list->items[i];
	ot_ix_file *f = &ix->files[i];
	OT_VEC(uint32_t) lines = {0};
	double t0 = now(), t1;
	char *text;

	if (ot_source_reader_read(data, reader, sf) < 0) {
		pthread_mutex_lock(&w->job->lock);
		if (!atomic_load(&w->job->failed))
			snprintf(w->job->error, sizeof(w->job->error), "%s", ot_error_last());
		atomic_store(&w->job->failed, 1);
		pthread_mutex_unlock(&w->job->lock);
		return;
	}
	t1 = now();
	w->read_s += t1 - t0;
	w->bytes += data->size;
	/* keep the buffer the blob was read into: no copy of ~40 MB of text */
	f->len = data->size;
	text = ot_buf_detach(data);
	f->path = sf->path;
	f->text = text;
	/* the code generators are Python, but their definitions are not torch's */
	f->lang = !strcmp(sf->path, OT_INDEX_AUTOGRAD_CODEGEN_PATH) ||
			  !strcmp(sf->path, OT_INDEX_FOREACH_CODEGEN_PATH)
		  ? OT_LANG_OTHER
		  : ot_lex_lang(sf->path);
	ot_vec_push(&lines, 0);
	for (const char *p = text, *end = text + f->len; (p = memchr(p, '\n', (size_t)(end - p)));) {
		p++;
		if (p < end)
			ot_vec_push(&lines, (uint32_t)(p - text));
	}
	{
		uint32_t *lo = ot_arena_alloc(w->arena, lines.len * sizeof(uint32_t));
		memcpy(lo, lines.items, lines.len * sizeof(uint32_t));
		f->line_off = lo;
		f->nlines = f->len ? (uint32_t)lines.len : 0;
	}
	ot_vec_free(&lines);

	ot_buf_clear(code);
	ot_buf_grow_by(code, f->len);
	ot_lex_code_view(code->ptr, text, f->len, f->lang);
	code->ptr[f->len] = '\0';
	if (f->lang == OT_LANG_C)
		ot_scan_c(&ix->results[i], w->arena, code->ptr, text, f->len, (uint32_t)i);
	else if (f->lang == OT_LANG_PYTHON)
		ot_scan_python(&ix->results[i], w->arena, code->ptr, text, f->len,
			       (uint32_t)i, sf->path);
	w->scan_s += now() - t1;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct job *job = w->job;
	ot_source_reader *reader = NULL;
	ot_buf data = OT_BUF_INIT, code = OT_BUF_INIT;

	if (ot_source_reader_new(&reader, job->src) < 0) {
		pthread_mutex_lock(&job->lock);
		snprintf(job->error, sizeof(job->error), "%s", ot_error_last());
		atomic_store(&job->failed, 1);
		pthread_mutex_unlock(&job->lock);
		return NULL;
	}
	for (;;) {
		size_t i = atomic_fetch_add(&job->next, 1);
		if (i >= job->list->len || atomic_load(&job->failed))
			break;
		index_one(w, reader, i, &data, &code);
	}
	ot_buf_free(&data);
	ot_buf_free(&code);
	ot_source_reader_free(reader);
	return NULL;
}

/* ---- merge ------------------------------------------------------------------------ */

/* Append `rec` to the list stored under `key`; lists stay in file order
 * because files are merged in order. `tails` remembers each list's end. */
#define LINK(map, tails, key, rec, type)                                       \
	do {                                                                   \
		type *tail_ = ot_map_get(tails, key);                          \
		if (tail_)                                                     \
			*(type **)&tail_->next = (rec);                        \
		else                                                           \
			ot_map_put(map, key, (rec));                           \
		ot_map_put(tails, key, (rec));                                 \
	} while (0)

/* The base op name of "addmm.default" is "addmm". */
static const char *base_op(ot_arena *arena, const char *op)
{
	const char *dot = strchr(op, '.');
	return dot ? ot_arena_strndup(arena, op, (size_t)(dot - op)) : op;
}

static void merge(ot_index *ix)
{
	ot_map *t_c = ot_map_new(), *t_s = ot_map_new(), *t_p = ot_map_new(), *t_d = ot_map_new(),
	       *t_doc = ot_map_new();
	OT_VEC(const char *) names = {0};

	for (uint32_t i = 0; i < ix->nfiles; i++) {
		ot_scan_result *r = &ix->results[i];
		ot_map_put(ix->file_ids, ix->files[i].path, (void *)(uintptr_t)(i + 1));
		for (size_t k = 0; k < r->cdefs.len; k++) {
			const ot_ix_cdef *d = &r->cdefs.items[k];
			LINK(ix->cdefs, t_c, d->name, &r->cdefs.items[k], ot_ix_cdef);
			for (uint32_t m = 0; m < d->ncalls; m++)
				if (!ot_map_get(ix->call_names, d->calls[m].name))
					ot_map_put(ix->call_names, d->calls[m].name, (void *)1);
		}
		for (size_t k = 0; k < r->stubs.len; k++)
			LINK(ix->stubs, t_s, r->stubs.items[k].stub, &r->stubs.items[k], ot_ix_stub);
		for (size_t k = 0; k < r->pydefs.len; k++) {
			ot_ix_pydef *p = &r->pydefs.items[k];
			if (!ot_map_get(t_p, p->name) && !p->parent)
				ot_vec_push(&names, p->name);
			LINK(ix->pydefs, t_p, p->name, p, ot_ix_pydef);
		}
		for (size_t k = 0; k < r->decomps.len; k++) {
			ot_ix_decomp *d = &r->decomps.items[k];
			const char *key = base_op(ix->arena, d->op);
			LINK(ix->decomps, t_d, key, d, ot_ix_decomp);
		}
		for (size_t k = 0; k < r->docs.len; k++)
			LINK(ix->docs, t_doc, r->docs.items[k].name, &r->docs.items[k], ot_ix_doc);
		ix->stats.cdefs += r->cdefs.len;
		ix->stats.calls += r->ncalls;
		ix->stats.stubs += r->stubs.len;
		ix->stats.pydefs += r->pydefs.len;
		ix->stats.decomps += r->decomps.len;
		ix->stats.docs += r->docs.len;
	}
	qsort(names.items, names.len, sizeof(*names.items), ot_strptr_cmp);
	ix->pynames = names.items;
	ix->npynames = names.len;
	ot_map_free(t_c);
	ot_map_free(t_s);
	ot_map_free(t_p);
	ot_map_free(t_d);
	ot_map_free(t_doc);
}

/* ---- public API --------------------------------------------------------------------- */

int ot_index_build(ot_index **out, ot_source *src, int threads)
{
	ot_index *ix = ot_calloc(1, sizeof(*ix));
	ot_source_files list = {0};
	struct job job = {0};
	struct worker *workers = NULL;
	pthread_t *tids = NULL;
	int rc = 0, started = 0;

	*out = NULL;
	if (threads < 1)
		threads = 1;
	ix->arena = ot_arena_new();
	ix->file_ids = ot_map_new();
	ix->cdefs = ot_map_new();
	ix->stubs = ot_map_new();
	ix->pydefs = ot_map_new();
	ix->decomps = ot_map_new();
	ix->docs = ot_map_new();
	ix->call_names = ot_map_new();

	if ((rc = ot_source_list(&list, ix->arena, src, prefixes, keep_file, NULL)) < 0)
		goto done;
	ix->nfiles = (uint32_t)list.len;
	ix->files = ot_calloc(list.len ? list.len : 1, sizeof(*ix->files));
	ix->results = ot_calloc(list.len ? list.len : 1, sizeof(*ix->results));
	if ((size_t)threads > list.len)
		threads = list.len ? (int)list.len : 1;

	job.ix = ix;
	job.src = src;
	job.list = &list;
	pthread_mutex_init(&job.lock, NULL);
	workers = ot_calloc((size_t)threads, sizeof(*workers));
	tids = ot_calloc((size_t)threads, sizeof(*tids));
	ix->arenas = ot_calloc((size_t)threads, sizeof(*ix->arenas));
	ix->narenas = threads;
	for (int t = 0; t < threads; t++) {
		workers[t].job = &job;
		workers[t].arena = ix->arenas[t] = ot_arena_new();
	}
	if (threads == 1) {
		worker_main(&workers[0]);
	} else {
		for (started = 0; started < threads; started++)
			if (pthread_create(&tids[started], NULL, worker_main, &workers[started]))
				break;
		if (!started)
			worker_main(&workers[0]);
		for (int t = 0; t < started; t++)
			pthread_join(tids[t], NULL);
	}
	pthread_mutex_destroy(&job.lock);
	if (atomic_load(&job.failed)) {
		rc = ot_error_set("%s", job.error);
		goto done;
	}
	for (int t = 0; t < threads; t++) {
		ix->stats.bytes += workers[t].bytes;
		ix->stats.read_seconds += workers[t].read_s;
		ix->stats.scan_seconds += workers[t].scan_s;
	}
	ix->stats.files = list.len;
	merge(ix);

done:
	ot_vec_free(&list);
	free(workers);
	free(tids);
	if (rc < 0) {
		ot_index_free(ix);
		return rc;
	}
	*out = ix;
	return 0;
}

void ot_index_free(ot_index *ix)
{
	if (!ix)
		return;
	for (uint32_t i = 0; i < ix->nfiles; i++) {
		ot_scan_result_free(&ix->results[i]);
		free((char *)ix->files[i].text);
	}
	for (int t = 0; t < ix->narenas; t++)
		ot_arena_free(ix->arenas[t]);
	free(ix->arenas);
	free(ix->results);
	free(ix->files);
	free(ix->pynames);
	ot_map_free(ix->file_ids);
	ot_map_free(ix->cdefs);
	ot_map_free(ix->stubs);
	ot_map_free(ix->pydefs);
	ot_map_free(ix->decomps);
	ot_map_free(ix->docs);
	ot_map_free(ix->call_names);
	ot_arena_free(ix->arena);
	free(ix);
}

const ot_index_stats *ot_index_get_stats(const ot_index *ix)
{
	return &ix->stats;
}

uint32_t ot_index_file_count(const ot_index *ix)
{
	return ix->nfiles;
}

const ot_ix_file *ot_index_file(const ot_index *ix, uint32_t id)
{
	return id < ix->nfiles ? &ix->files[id] : NULL;
}

int64_t ot_index_file_id(const ot_index *ix, const char *path)
{
	uintptr_t v = (uintptr_t)ot_map_get(ix->file_ids, path);
	return v ? (int64_t)v - 1 : -1;
}

const char *ot_index_line(const ot_index *ix, uint32_t id, uint32_t line, size_t *len)
{
	const ot_ix_file *f = ot_index_file(ix, id);
	size_t start, end;
	if (!f || line < 1 || line > f->nlines)
		return NULL;
	start = f->line_off[line - 1];
	end = line < f->nlines ? f->line_off[line] : f->len;
	while (end > start && (f->text[end - 1] == '\n' || f->text[end - 1] == '\r'))
		end--;
	*len = end - start;
	return f->text + start;
}

bool ot_index_line_has(const ot_index *ix, uint32_t id, uint32_t line, const char *needle)
{
	size_t len;
	const char *s = ot_index_line(ix, id, line, &len);
	return s && memmem(s, len, needle, strlen(needle)) != NULL;
}

const ot_ix_cdef *ot_index_cdefs(const ot_index *ix, const char *name)
{
	return ot_map_get(ix->cdefs, name);
}

const ot_ix_stub *ot_index_stubs(const ot_index *ix, const char *stub)
{
	return ot_map_get(ix->stubs, stub);
}

const ot_ix_pydef *ot_index_pydefs(const ot_index *ix, const char *name)
{
	return ot_map_get(ix->pydefs, name);
}

const ot_ix_decomp *ot_index_decomps(const ot_index *ix, const char *base)
{
	return ot_map_get(ix->decomps, base);
}

const ot_ix_doc *ot_index_docs(const ot_index *ix, const char *name)
{
	return ot_map_get(ix->docs, name);
}

size_t ot_index_call_name_count(const ot_index *ix)
{
	return ot_map_len(ix->call_names);
}

const char *ot_index_call_name_at(const ot_index *ix, size_t i)
{
	return ot_map_key_at(ix->call_names, i);
}

size_t ot_index_pynames(const ot_index *ix, const char ***out)
{
	*out = ix->pynames;
	return ix->npynames;
}
