#include "index.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "lines.h"
#include "registry.h"
#include "scan.h"
#include "source.h"
#include "testrec.h"

struct ot_index {
	ot_ix_file *files;
	uint32_t nfiles;
	ot_map *file_ids; /* path -> id + 1 */
	ot_scan_result *results; /* one per file */
	ot_arena **arenas;       /* one per worker thread */
	int narenas;
	ot_arena *arena;         /* merge-time data */
	ot_map *cdefs, *stubs, *decls, *classes, *pydefs, *decomps, *core_decomps, *docs;
	ot_map *macros; /* name -> first ot_ix_macro */
	const char **pynames;
	size_t npynames;
	ot_map *call_names; /* every name called in a C++ body (value unused) */
	ot_map *defines;    /* names of the object-like #defines of the C files */
	ot_index_stats stats;
	bool has_core_decomps; /* a core ATen decomposition table was read */
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
 * (core/, cpu/vec/, functorch/, templates/ hold no op kernels; vulkan/'s
 * Context.cpp holds at::native::is_vulkan_available) */
static const char *const aten_dirs[] = {"aten/src/ATen/native/", "aten/src/ATen/cuda/",
					"aten/src/ATen/cudnn/", "aten/src/ATen/miopen/",
					"aten/src/ATen/mps/", "aten/src/ATen/mkl/",
					"aten/src/ATen/vulkan/"};

/* The X-macro lists of scalar types (AT_FORALL_SCALAR_TYPES_AND3(..., _)) that
 * ATen invokes its own macros with: _cast_Byte ... exist only through them. */
#define SCALAR_TYPE_LISTS "c10/core/ScalarType.h"

/* Kept as text, not scanned: steps point into them (the registries, and the
 * autograd code generator whose rules decide the backward of ops that have
 * no derivatives.yaml entry). */
static const char *const text_files[] = {OT_REGISTRY_NATIVE_PATH, OT_REGISTRY_DERIV_PATH,
					 OT_INDEX_AUTOGRAD_CODEGEN_PATH, OT_INDEX_TRACE_CODEGEN_PATH,
					 OT_INDEX_FOREACH_CODEGEN_PATH, OT_INDEX_VIEW_COPY_CODEGEN_PATH,
					 OT_INDEX_VIEW_COPY_KERNEL_PATH, OT_INDEX_PYBIND_CODEGEN_PATH, OT_INDEX_TENSOR_ITERATOR_PATH};

static bool text_only(const char *path)
{
	for (size_t i = 0; i < OT_ARRAY_LEN(text_files); i++)
		if (!strcmp(path, text_files[i]))
			return true;
	return false;
}

/* Folders of native/ no trace can reach: backends registered with
 * TORCH_LIBRARY_IMPL outside native_functions.yaml (Vulkan, Metal), and
 * QNNPACK, a vendored C library beneath the quantized kernels (3 MB of the
 * tree: skipping them is a tenth of the reading). */
static const char *const unreachable_dirs[] = {"aten/src/ATen/native/vulkan/",
					       "aten/src/ATen/native/metal/",
					       "aten/src/ATen/native/quantized/cpu/qnnpack/"};

static bool keep_file(const char *path, void *payload)
{
	ot_lang lang = ot_lex_lang(path);
	(void)payload;
	if (text_only(path) || !strcmp(path, SCALAR_TYPE_LISTS) || ot_testscan_kind(path) >= 0)
		return true;
	if (ot_starts_with(path, "aten/src/ATen/")) {
		if (lang != OT_LANG_C || strstr(path, "/test/"))
			return false;
		for (size_t i = 0; i < OT_ARRAY_LEN(unreachable_dirs); i++)
			if (ot_starts_with(path, unreachable_dirs[i]))
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
				       OT_TESTSCAN_PREFIXES,
				       OT_INDEX_AUTOGRAD_CODEGEN_PATH, OT_INDEX_TRACE_CODEGEN_PATH,
				       OT_INDEX_FOREACH_CODEGEN_PATH, OT_INDEX_VIEW_COPY_CODEGEN_PATH,
				       OT_INDEX_VIEW_COPY_KERNEL_PATH, OT_INDEX_PYBIND_CODEGEN_PATH, SCALAR_TYPE_LISTS, NULL};

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

static void index_one(struct worker *w, ot_source_reader *reader, size_t i, ot_buf *data,
		      ot_buf *code)
{
	ot_index *ix = w->job->ix;
	const ot_source_file *sf = &w->job->list->items[i];
	ot_ix_file *f = &ix->files[i];
	double t0 = ot_clock(), t1;
	char *text;

	if (ot_source_reader_read(data, reader, sf) < 0) {
		pthread_mutex_lock(&w->job->lock);
		if (!atomic_load(&w->job->failed))
			snprintf(w->job->error, sizeof(w->job->error), "%s", ot_error_last());
		atomic_store(&w->job->failed, 1);
		pthread_mutex_unlock(&w->job->lock);
		return;
	}
	t1 = ot_clock();
	w->read_s += t1 - t0;
	w->bytes += data->size;
	/* keep the buffer the blob was read into: no copy of ~40 MB of text */
	f->len = data->size;
	text = ot_buf_detach(data);
	f->path = sf->path;
	f->text = text;
	/* the code generators and the test machinery are Python, but their
	 * definitions are not torch's (testdb.h reads the latter's text) */
	f->lang = (text_only(sf->path) && ot_ends_with(sf->path, ".py")) || ot_testscan_kind(sf->path) >= 0
			  ? OT_LANG_OTHER
			  : ot_lex_lang(sf->path);
	f->nlines = ot_line_starts(&f->line_off, w->arena, text, f->len);

	ot_buf_clear(code);
	ot_buf_grow_by(code, f->len);
	ot_lex_code_view(code->ptr, text, f->len, f->lang);
	code->ptr[f->len] = '\0';
	if (f->lang == OT_LANG_C)
		ot_scan_c(&ix->results[i], w->arena, code->ptr, text, f->len, f->line_off, f->nlines,
			  (uint32_t)i);
	else if (f->lang == OT_LANG_PYTHON)
		ot_scan_python(&ix->results[i], w->arena, code->ptr, text, f->len,
			       (uint32_t)i, sf->path);
	if (f->lang == OT_LANG_C) {
		static const char def[] = "#define TORCH_ASSERT_NO_OPERATORS";
		f->no_operators = memmem(text, f->len < 4096 ? f->len : 4096, def, sizeof(def) - 1) != NULL;
	}
	f->pparms = OT_ARENA_VEC(w->arena, &ix->results[i].pparms);
	f->npparms = (uint32_t)ix->results[i].pparms.len;
	/* the tracer reads receivers, arguments and conditions from the code
	 * view of the code it follows: keep it (the same size as the text) */
	f->code = f->lang == OT_LANG_C || f->lang == OT_LANG_PYTHON ? ot_buf_detach(code) : f->text;
	w->scan_s += ot_clock() - t1;
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

/* ---- definitions generated by macro invocations ------------------------------------- */

/* Macros that invoke macros that invoke...: PyTorch nests two levels
 * (OP -> OP_CUSTOM_FUNCTOR, AT_FORALL_OPERATORS -> DEFINE_COMPARATOR). */
#define MAX_EXPANSION_DEPTH 4

struct expand {
	ot_index *ix;
	ot_map *tails;             /* the cdef lists' ends (merge) */
	ot_map *stub_tails;        /* the stub lists' ends */
	const ot_ix_minvoke *site; /* the invocation written in the source */
	const ot_ix_macro *macro;  /* its macro */
	ot_buf tmp;
};

/* Is the header `hpath` included by the file `f`? Its path is written from
 * "ATen/..." (<ATen/native/cuda/ForeachFunctors.cuh>), or relative to the
 * including file's folder ("ForeachFunctors.cuh"). */
static bool includes(const ot_ix_file *f, const char *hpath)
{
	const char *rel = ot_starts_with(hpath, "aten/src/") ? hpath + 9 : hpath;
	const char *slash = strrchr(f->path, '/');
	size_t dir = slash ? (size_t)(slash - f->path) + 1 : 0;
	char quoted[512];
	if (memmem(f->text, f->len, rel, strlen(rel)))
		return true;
	if (strncmp(hpath, f->path, dir) || strchr(hpath + dir, '/'))
		return false;
	snprintf(quoted, sizeof(quoted), "\"%s\"", hpath + dir);
	return memmem(f->text, f->len, quoted, strlen(quoted)) != NULL;
}

/* The definition of macro `name` an invocation at (file, line) expands: the
 * last one before that line in the same file, else the first one in a
 * header the file includes. NULL when none is known. */
static const ot_ix_macro *resolve_macro(const ot_index *ix, const char *name, uint32_t file,
					uint32_t line)
{
	const ot_ix_macro *same = NULL;
	for (const ot_ix_macro *m = ot_map_get(ix->macros, name); m; m = m->next)
		if (m->file == file && m->line < line)
			same = m;
	if (same)
		return same;
	for (const ot_ix_macro *m = ot_map_get(ix->macros, name); m; m = m->next)
		if (m->file != file && includes(&ix->files[file], ix->files[m->file].path))
			return m;
	return NULL;
}

/* The text of a template with the macro's arguments in place (in the arena). */
static const char *instantiate(struct expand *e, const ot_ix_template *tp, const ot_ix_macro *m,
			       const char *const *args, size_t nargs)
{
	ot_buf_clear(&e->tmp);
	for (uint16_t i = 0; i < tp->nparts; i++) {
		const ot_ix_part *p = &tp->parts[i];
		if (p->text)
			ot_buf_puts(&e->tmp, p->text);
		else if (p->param < m->nparams)
			ot_buf_puts(&e->tmp, p->param < nargs ? args[p->param] : "");
		else
			for (size_t a = m->nparams; a < nargs; a++)
				ot_buf_printf(&e->tmp, "%s%s", a > m->nparams ? ", " : "", args[a]);
	}
	return ot_arena_strndup(e->ix->arena, e->tmp.ptr ? e->tmp.ptr : "", e->tmp.size);
}

/* Does the invocation's argument count fit the macro? FOO() passes one
 * empty argument. */
static bool args_fit(const ot_ix_macro *m, const char *const *args, size_t nargs)
{
	if (m->nparams == 0)
		return nargs == 0 || (nargs == 1 && !*args[0]);
	return m->variadic ? nargs >= m->nparams : nargs == m->nparams;
}

typedef OT_VEC(ot_ix_call) callvec;

/* A call of a generated definition, its name in the index's names. */
static void generated_call(struct expand *e, callvec *v, ot_ix_call call, bool same_file)
{
	/* a #define in another file: its offsets are not the site file's, and
	 * the arguments are not known */
	if (!same_file) {
		call.off = OT_IX_CALL_NO_TEXT;
		call.line = e->site->line;
		if (call.kind == OT_CALL_MEMBER)
			return;
	}
	if (!ot_map_get(e->ix->call_names, call.name))
		ot_map_put(e->ix->call_names, call.name, (void *)1);
	ot_vec_push(v, call);
}

/* A definition a macro invocation generates, with the calls its body
 * writes out and those its parameters make (OP(...) with OP given, a stub
 * handed on), named by the invocation's arguments `args`. */
static void add_generated(struct expand *e, const ot_ix_macro *paster, const ot_ix_mitem *it,
			  const char *name, const char *inner, const char *const *args, size_t nargs)
{
	const ot_ix_minvoke *site = e->site;
	bool same_file = paster->file == site->file;
	callvec calls = {0};
	ot_ix_cdef *d;
	ot_ix_gen *g;
	/* once per function of the macro and invocation (the overloads a macro
	 * writes under one name, as ONE_HIDDEN_RNN's NAME(input, ...) and
	 * NAME(data, batch_sizes, ...), each with its own parameters and
	 * calls), and not again when the macro site itself was recorded as
	 * that definition (CREATE_UNARY_TORCH_IMPL_FUNC(name, stub) is a
	 * TORCH_IMPL_FUNC) */
	for (const ot_ix_cdef *o = ot_map_get(e->ix->cdefs, name); o; o = o->next)
		if (o->file == site->file && o->line == site->line &&
		    o->kind == (it->kind == OT_MITEM_IMPL ? OT_CDEF_IMPL : OT_CDEF_FUNC) &&
		    (!o->gen || o->gen->params == it->params))
			return;
	g = ot_arena_alloc(e->ix->arena, sizeof(*g));
	*g = (ot_ix_gen){site, e->macro, paster, inner, it->params};
	d = ot_arena_alloc(e->ix->arena, sizeof(*d));
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->qual = "";
	d->macro = site->macro;
	d->ns = site->ns;
	d->file = site->file;
	d->line = d->end_line = site->line;
	d->kind = it->kind == OT_MITEM_IMPL ? OT_CDEF_IMPL : OT_CDEF_FUNC;
	d->in_class = site->in_class;
	d->pp = site->pp;
	d->gen = g;
	d->guards = it->guards; /* the walker's reading of the #define's body */
	d->nguards = it->nguards;
	for (uint32_t i = 0; i < it->npcalls; i++) {
		ot_ix_call call = it->pcalls[i];
		const char *n = instantiate(e, &it->pnames[i], paster, args, nargs);
		if (!ot_is_identifier(n) || (call.kind == OT_CALL_REF && !ot_ends_with(n, "_stub")))
			continue;
		call.name = n;
		generated_call(e, &calls, call, same_file);
	}
	for (uint32_t i = 0; i < it->ncalls; i++)
		generated_call(e, &calls, it->calls[i], same_file);
	d->calls = OT_ARENA_VEC(e->ix->arena, &calls);
	d->ncalls = (uint32_t)calls.len;
	ot_vec_free(&calls);
	LINK(e->ix->cdefs, e->tails, name, d, ot_ix_cdef);
	e->ix->stats.generated++;
}

/* The kind of DispatchStub site a macro writes (DECLARE_DISPATCH,
 * DEFINE_DISPATCH, REGISTER_DISPATCH, REGISTER_CUDA_DISPATCH,
 * ALSO_REGISTER_AVX512_DISPATCH, ...), or -1. */
static int stub_macro_kind(const char *name)
{
	const char *reg = strstr(name, "REGISTER_");
	if (!strcmp(name, "DECLARE_DISPATCH"))
		return OT_STUB_DECLARE;
	if (!strcmp(name, "DEFINE_DISPATCH"))
		return OT_STUB_DEFINE;
	if (!reg || !ot_ends_with(name, "DISPATCH"))
		return -1;
	for (const char *p = name; *p; p++)
		if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return -1;
	return OT_STUB_REGISTER;
}

/* The name an argument names (`&at::native::gru_cudnn` -> "gru_cudnn",
 * its qualifier "at::native" in *qual), or NULL (nullptr, an expression). */
static const char *named(ot_arena *a, const char *arg, const char **qual)
{
	const char *colon;
	while (*arg == '&' || *arg == '*' || *arg == ' ')
		arg++;
	colon = strrchr(arg, ':');
	*qual = colon && colon > arg + 1 ? ot_arena_strndup(a, arg, (size_t)(colon - 1 - arg)) : "";
	arg = colon ? colon + 1 : arg;
	return ot_is_identifier(arg) && strcmp(arg, "nullptr") ? arg : NULL;
}

/* A DispatchStub site the expansion writes, filed with those written out. */
static void add_stub_site(struct expand *e, int kind, const char *macro, const char *const *args,
			  size_t nargs)
{
	const ot_ix_minvoke *site = e->site;
	ot_arena *a = e->ix->arena;
	ot_ix_stub *st;
	const char *stub, *stub_qual, *kernel = NULL, *kernel_qual = "";
	if (!nargs)
		return;
	stub = named(a, args[kind == OT_STUB_DECLARE ? nargs - 1 : 0], &stub_qual);
	if (!stub || (kind == OT_STUB_DECLARE && nargs < 2))
		return;
	if (kind == OT_STUB_REGISTER && nargs >= 2)
		kernel = named(a, args[nargs - 1], &kernel_qual);
	st = ot_arena_alloc(a, sizeof(*st));
	*st = (ot_ix_stub){.stub = stub, .macro = macro, .kernel = kernel,
			   .kernel_qual = kernel ? kernel_qual : "", .stub_qual = stub_qual,
			   .ns = site->ns, .pp = site->pp, .file = site->file, .line = site->line,
			   .gen_text = site->text, .kind = (uint8_t)kind};
	LINK(e->ix->stubs, e->stub_tails, stub, st, ot_ix_stub);
	e->ix->stats.stubs++;
}

static void expand(struct expand *e, const ot_ix_macro *m, const char *const *args, size_t nargs,
		   const char *inner, int depth)
{
	if (!args_fit(m, args, nargs))
		return;
	for (uint32_t i = 0; i < m->nitems; i++) {
		const ot_ix_mitem *it = &m->items[i];
		const char *name = instantiate(e, &it->name, m, args, nargs);
		const ot_ix_macro *callee;
		const char **sub;
		ot_buf text = OT_BUF_INIT;
		int stub_kind;
		if (it->kind != OT_MITEM_INVOKE) {
			if (ot_is_identifier(name))
				add_generated(e, m, it, name, inner, args, nargs);
			continue;
		}
		if ((stub_kind = stub_macro_kind(name)) >= 0) {
			const char **vals = ot_arena_alloc(e->ix->arena, (it->nargs ? it->nargs : 1) * sizeof(*vals));
			for (uint16_t a = 0; a < it->nargs; a++)
				vals[a] = instantiate(e, &it->args[a], m, args, nargs);
			add_stub_site(e, stub_kind, name, vals, it->nargs);
			continue;
		}
		if (depth + 1 >= MAX_EXPANSION_DEPTH ||
		    !(callee = resolve_macro(e->ix, name, e->site->file, e->site->line)))
			continue;
		sub = ot_arena_alloc(e->ix->arena, (it->nargs ? it->nargs : 1) * sizeof(*sub));
		for (uint16_t a = 0; a < it->nargs; a++)
			sub[a] = instantiate(e, &it->args[a], m, args, nargs);
		ot_buf_printf(&text, "%s(", name);
		for (uint16_t a = 0; a < it->nargs; a++)
			ot_buf_printf(&text, "%s%s", a ? ", " : "", sub[a]);
		ot_buf_putc(&text, ')');
		expand(e, callee, sub, it->nargs, ot_arena_strdup(e->ix->arena, text.ptr), depth + 1);
		ot_buf_free(&text);
	}
}

/* Does invocation `it` hand the macro's parameters on in its first
 * argument (a stub's name pasted from them: op##_stub)? */
static bool pastes_argument(const ot_ix_mitem *it)
{
	if (!it->nargs)
		return false;
	for (uint16_t k = 0; k < it->args[0].nparts; k++)
		if (!it->args[0].parts[k].text)
			return true;
	return false;
}

/* Can an invocation of `name` define anything? When one of its definitions
 * defines a function, invokes its parameter (an X-macro list), invokes a
 * macro that can, or writes a DispatchStub site with a pasted name
 * (IMPLEMENT_FLOAT_KERNEL_WITH_AVX512(op): ALSO_REGISTER_AVX512_DISPATCH(
 * op##_stub, ...)). The stub macros themselves cannot: REGISTER_DISPATCH's
 * invocations, by the hundred, are read where they are written. */
static void mark_productive(ot_map *productive, const ot_map *macros)
{
	bool changed = true;
	for (int round = 0; changed && round < MAX_EXPANSION_DEPTH; round++) {
		changed = false;
		for (size_t i = 0; i < ot_map_len(macros); i++) {
			const char *name = ot_map_key_at(macros, i);
			bool yes = false;
			if (ot_map_get(productive, name) || stub_macro_kind(name) >= 0)
				continue;
			for (const ot_ix_macro *m = ot_map_value_at(macros, i); m && !yes; m = m->next)
				for (uint32_t k = 0; k < m->nitems && !yes; k++) {
					const ot_ix_mitem *it = &m->items[k];
					const ot_ix_part *callee = it->name.nparts == 1 ? &it->name.parts[0] : NULL;
					yes = it->kind != OT_MITEM_INVOKE ||
					      (callee && (!callee->text || ot_map_get(productive, callee->text) ||
							  (stub_macro_kind(callee->text) >= 0 && pastes_argument(it))));
				}
			if (yes) {
				ot_map_put(productive, name, (void *)1);
				changed = true;
			}
		}
	}
}

/* Expand every macro invocation whose macro defines functions, in file
 * order, and file the generated definitions (and the DispatchStub sites
 * such a macro writes) with the written ones. */
static void expand_invocations(ot_index *ix, ot_map *tails, ot_map *stub_tails)
{
	ot_map *mtails = ot_map_new(), *productive = ot_map_new();
	struct expand e = {.ix = ix, .tails = tails, .stub_tails = stub_tails, .tmp = OT_BUF_INIT};

	for (uint32_t i = 0; i < ix->nfiles; i++)
		for (size_t k = 0; k < ix->results[i].nmacros; k++) {
			/* the scan result's records are the index's to link */
			ot_ix_macro *m = (ot_ix_macro *)&ix->results[i].macros[k];
			LINK(ix->macros, mtails, m->name, m, ot_ix_macro);
			ix->stats.macros++;
		}
	mark_productive(productive, ix->macros);
	for (uint32_t i = 0; i < ix->nfiles; i++) {
		const ot_scan_result *r = &ix->results[i];
		for (size_t k = 0; k < r->ninvokes; k++) {
			const ot_ix_minvoke *site = &r->invokes[k];
			if (!ot_map_get(productive, site->macro))
				continue;
			e.site = site;
			e.macro = resolve_macro(ix, site->macro, site->file, site->line);
			if (e.macro)
				expand(&e, e.macro, site->args, site->nargs, NULL, 0);
		}
	}
	ot_buf_free(&e.tmp);
	ot_map_free(mtails);
	ot_map_free(productive);
}

static void merge(ot_index *ix)
{
	ot_map *t_c = ot_map_new(), *t_s = ot_map_new(), *t_p = ot_map_new(), *t_d = ot_map_new(),
	       *t_doc = ot_map_new(), *t_decl = ot_map_new();
	OT_VEC(const char *) names = {0};

	for (uint32_t i = 0; i < ix->nfiles; i++) {
		ot_scan_result *r = &ix->results[i];
		ot_map_put(ix->file_ids, ix->files[i].path, (void *)(uintptr_t)(i + 1));
		for (size_t k = 0; k < r->cdefs.len; k++) {
			const ot_ix_cdef *d = &r->cdefs.items[k];
			LINK(ix->cdefs, t_c, d->name, &r->cdefs.items[k], ot_ix_cdef);
			if (d->in_class && d->cls && *d->cls)
				ot_map_put(ix->classes, d->cls, (void *)1);
			else if (*d->qual && !d->in_class) {
				const char *q = strrchr(d->qual, ':');
				ot_map_put(ix->classes, q ? q + 1 : d->qual, (void *)1);
			}
			for (uint32_t m = 0; m < d->ncalls; m++)
				if (!ot_map_get(ix->call_names, d->calls[m].name))
					ot_map_put(ix->call_names, d->calls[m].name, (void *)1);
		}
		for (size_t k = 0; k < r->stubs.len; k++)
			LINK(ix->stubs, t_s, r->stubs.items[k].stub, &r->stubs.items[k], ot_ix_stub);
		for (size_t k = 0; k < r->decls.len; k++) {
			const ot_ix_decl *d = &r->decls.items[k];
			LINK(ix->decls, t_decl, d->name, &r->decls.items[k], ot_ix_decl);
			if (d->kind == OT_DECL_MEMBER && d->cls && *d->cls)
				ot_map_put(ix->classes, d->cls, (void *)1);
		}
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
		for (size_t k = 0; k < r->core_decomps.len; k++) {
			ot_ix_decomp *d = &r->core_decomps.items[k];
			const char *key = base_op(ix->arena, d->op);
			if (!ot_map_get(ix->core_decomps, key))
				ot_map_put(ix->core_decomps, key, d);
			ix->has_core_decomps = true;
		}
		for (size_t k = 0; k < r->docs.len; k++)
			LINK(ix->docs, t_doc, r->docs.items[k].name, &r->docs.items[k], ot_ix_doc);
		for (size_t k = 0; k < r->defines.len; k++)
			ot_map_put(ix->defines, r->defines.items[k], (void *)1);
		ix->stats.cdefs += r->cdefs.len;
		ix->stats.calls += r->ncalls;
		ix->stats.stubs += r->stubs.len;
		ix->stats.pydefs += r->pydefs.len;
		ix->stats.decomps += r->decomps.len;
		ix->stats.docs += r->docs.len;
	}
	expand_invocations(ix, t_c, t_s);
	if (names.len) /* a tree without Python files has none (and qsort wants a pointer) */
		qsort(names.items, names.len, sizeof(*names.items), ot_strptr_cmp);
	ix->pynames = names.items;
	ix->npynames = names.len;
	ot_map_free(t_c);
	ot_map_free(t_s);
	ot_map_free(t_p);
	ot_map_free(t_d);
	ot_map_free(t_doc);
	ot_map_free(t_decl);
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
	ix->decls = ot_map_new();
	ix->classes = ot_map_new();
	ix->pydefs = ot_map_new();
	ix->decomps = ot_map_new();
	ix->core_decomps = ot_map_new();
	ix->docs = ot_map_new();
	ix->macros = ot_map_new();
	ix->call_names = ot_map_new();
	ix->defines = ot_map_new();

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
		if (ix->files[i].code != ix->files[i].text)
			free((char *)ix->files[i].code);
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
	ot_map_free(ix->decls);
	ot_map_free(ix->classes);
	ot_map_free(ix->pydefs);
	ot_map_free(ix->decomps);
	ot_map_free(ix->core_decomps);
	ot_map_free(ix->docs);
	ot_map_free(ix->macros);
	ot_map_free(ix->call_names);
	ot_map_free(ix->defines);
	ot_arena_free(ix->arena);
	free(ix);
}

const ot_index_stats *ot_index_get_stats(const ot_index *ix)
{
	return &ix->stats;
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

uint32_t ot_index_find_line(const ot_index *ix, int64_t id, const char *needle)
{
	const ot_ix_file *f;
	const char *hit;
	if (id < 0 || !(f = ot_index_file(ix, (uint32_t)id)) || !f->nlines ||
	    !(hit = memmem(f->text, f->len, needle, strlen(needle))))
		return 0;
	return ot_line_at(f->line_off, f->nlines, (size_t)(hit - f->text));
}


const ot_ix_cdef *ot_index_cdefs(const ot_index *ix, const char *name)
{
	return ot_map_get(ix->cdefs, name);
}

bool ot_index_is_class(const ot_index *ix, const char *name)
{
	return ot_map_get(ix->classes, name) != NULL;
}

const ot_ix_decl *ot_index_decls(const ot_index *ix, const char *name)
{
	return ot_map_get(ix->decls, name);
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

const ot_ix_decomp *ot_index_core_decomp(const ot_index *ix, const char *base)
{
	return ot_map_get(ix->core_decomps, base);
}

bool ot_index_has_core_decomps(const ot_index *ix)
{
	return ix->has_core_decomps;
}

const ot_ix_doc *ot_index_docs(const ot_index *ix, const char *name)
{
	return ot_map_get(ix->docs, name);
}

const ot_ix_pparm *ot_index_pparm(const ot_index *ix, uint32_t file, uint32_t id)
{
	if (file >= ix->nfiles || !id || id > ix->files[file].npparms)
		return NULL;
	return &ix->files[file].pparms[id - 1];
}

/* The first arm (the #if) of the chain arm `id` belongs to. */
static uint32_t chain_head(const ot_index *ix, uint32_t file, uint32_t id)
{
	const ot_ix_pparm *p;
	while ((p = ot_index_pparm(ix, file, id)) && p->prev)
		id = p->prev;
	return id;
}

bool ot_index_pp_exclusive(const ot_index *ix, uint32_t file, uint32_t a, uint32_t b)
{
	/* a chain is at most a few levels deep: compare every arm enclosing a
	 * with every arm enclosing b */
	const ot_ix_pparm *px, *py;
	for (uint32_t x = a, nx = 0; (px = ot_index_pparm(ix, file, x)) && nx < 64; x = px->parent, nx++)
		for (uint32_t y = b, ny = 0; (py = ot_index_pparm(ix, file, y)) && ny < 64; y = py->parent, ny++)
			if (x != y && chain_head(ix, file, x) == chain_head(ix, file, y))
				return true;
	return false;
}

bool ot_index_defines(const ot_index *ix, const char *name)
{
	return ot_map_get(ix->defines, name) != NULL;
}

const ot_ix_cdef *ot_index_file_cdefs(const ot_index *ix, uint32_t id, size_t *n)
{
	*n = id < ix->nfiles ? ix->results[id].cdefs.len : 0;
	return *n ? ix->results[id].cdefs.items : NULL;
}

const ot_ix_pydef *ot_index_file_pydefs(const ot_index *ix, uint32_t id, size_t *n)
{
	*n = id < ix->nfiles ? ix->results[id].pydefs.len : 0;
	return *n ? ix->results[id].pydefs.items : NULL;
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
