/*
 * callkind.c - classify the calls of C++ bodies (see callkind.h).
 *
 * Everything here reads the code view of the calling file around one call:
 * the receiver before a '.' or '->', the argument list after the name, and
 * the declarations of the names involved (the function's parameters, and
 * locals declared in its body before the call). Types are judged from the
 * declarations as written; nothing is guessed from a name alone.
 */
#include "callkind.h"

#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* Facts of a called name, worked out once per tracer. */
struct name_info {
	const char *op;  /* the registry name it calls (at::_foo_symint -> _foo), or NULL */
	bool op_method;  /* that op has a Tensor method variant */
	bool stub;       /* a DispatchStub of that name exists */
	bool method;     /* a class of the tree has a method of that name */
};

struct ot_callkinds {
	const ot_index *ix;
	const ot_registry *reg;
	ot_map *names;        /* call name -> struct name_info */
	ot_map *kernel_names; /* C++ function named by some dispatch entry -> its entry */
	ot_arena *arena;
	pthread_key_t cache;  /* -> struct thread_cache of the calling thread */
	OT_VEC(void *) caches; /* every thread's (freed with the tracer) */
	/* What every thread worked out, shared (each answer lives in the
	 * arena of the thread that worked it out; the maps are shared_lock's) */
	pthread_rwlock_t shared_lock;
	ot_map *bodies; /* "%p" of a cdef (and a substitution) -> ot_callkind[ncalls] */
	ot_map *params; /* "%p" of a cdef -> struct params */
	ot_map *locals; /* "%p:name" of a cdef and a local -> struct decls */
	ot_map *defaults; /* "%p" of a cdef -> const char *[nparams] (param_defaults) */
	ot_map *lambdas;  /* "%p" of a cdef -> struct lambdas */
};

/* The memory one thread works in. */
struct thread_cache {
	ot_arena *arena;
};

struct params {
	size_t n;
	const char **names, **types;
};

/* Metadata queries: ops in the registry, but they say nothing about how a
 * computation is done, and none dispatches to a kernel worth following.
 * contiguous() is here too: the Tensor method returns the tensor itself,
 * without dispatching, when it is contiguous already (a default tensor is). */
static const char *const metadata[] = {
	"size",	       "sizes",		"sym_size",	 "sym_sizes",	"dim",	      "ndimension",
	"numel",       "stride",	"strides",	 "sym_stride",	"options",    "dtype",
	"device",      "scalar_type",	"is_contiguous", "data_ptr",	"contiguous", "defined",
	"layout",      "is_cuda",	"is_cpu",	 "is_mps",	"is_sparse",  "is_nested",
	"is_complex",  "is_floating_point", "requires_grad", "storage_offset", "sym_numel",
	"get_device",  "is_same_size",	"nelement",	 "is_conj",	"is_neg",     "is_leaf",
	"output_nr",   "_version",	"data",		 "has_names",	"names",      "is_quantized",
	"is_meta",     "qscheme",	"element_size",	 "is_signed",	"is_set_to",  "tolist",
	"type",	       "suggest_memory_format", "is_non_overlapping_and_dense", "retain_grad",
	"requires_grad_", "is_inference", "is_pinned",	 "sym_storage_offset", "is_same", "_base",
	"_fw_grad",    "is_coalesced",	"dense_dim",	 "sparse_dim",	"_nnz",	      "q_scale",
	"q_zero_point", "is_vulkan",	"is_xpu",	 "is_mkldnn",	"_is_zerotensor"};

/* Methods of the C++ Tensor that are not ops but call one (TensorBody.h):
 * x.toType(dtype) is x.to(...). */
static const char *const method_wrappers[][2] = {
	{"toType", "to"}, {"cpu", "to"}, {"cuda", "to"}, {"toBackend", "to"}};

static const char *wrapped_op(const char *method)
{
	for (size_t i = 0; i < OT_ARRAY_LEN(method_wrappers); i++)
		if (!strcmp(method_wrappers[i][0], method))
			return method_wrappers[i][1];
	return NULL;
}

bool ot_callkind_is_metadata(const char *name)
{
	for (size_t i = 0; i < OT_ARRAY_LEN(metadata); i++)
		if (!strcmp(metadata[i], name))
			return true;
	return false;
}

static bool has_variant(const ot_registry *reg, const char *name, bool method)
{
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(reg, name, &n);
	for (size_t i = 0; i < n; i++)
		if (method ? ov[i]->variant_method : ov[i]->variant_function)
			return true;
	return false;
}

/* The registry name a C++ API name calls: itself, or without the _symint
 * suffix torchgen adds, or (for x_out / x_outf) x. */
static const char *op_of_name(const ot_registry *reg, ot_arena *a, const char *name, bool *out)
{
	size_t n = strlen(name), k;
	*out = false;
	if (ot_registry_overloads(reg, name, &k))
		return name;
	if (ot_ends_with(name, "_symint") &&
	    ot_registry_overloads(reg, ot_arena_strndup(a, name, n - 7), &k))
		return ot_arena_strndup(a, name, n - 7);
	if (ot_ends_with(name, "_symint_out") || ot_ends_with(name, "_symint_outf")) {
		size_t cut = ot_ends_with(name, "_outf") ? 12 : 11;
		const char *b = ot_arena_strndup(a, name, n - cut);
		if (ot_registry_overloads(reg, b, &k)) {
			*out = true;
			return b;
		}
	}
	if (ot_ends_with(name, "_outf") || ot_ends_with(name, "_out")) {
		size_t cut = ot_ends_with(name, "_outf") ? 5 : 4;
		const char *b = ot_arena_strndup(a, name, n - cut);
		if (ot_registry_overloads(reg, b, &k)) {
			*out = true;
			return b;
		}
	}
	return NULL;
}

ot_callkinds *ot_callkinds_new(const ot_index *ix, const ot_registry *reg)
{
	ot_callkinds *ck = ot_calloc(1, sizeof(*ck));
	size_t n = ot_index_call_name_count(ix);
	struct name_info *infos;
	ck->ix = ix;
	ck->reg = reg;
	ck->arena = ot_arena_new();
	ck->names = ot_map_new();
	ck->kernel_names = ot_map_new();
	pthread_key_create(&ck->cache, NULL);
	pthread_rwlock_init(&ck->shared_lock, NULL);
	ck->bodies = ot_map_new();
	ck->params = ot_map_new();
	ck->locals = ot_map_new();
	ck->defaults = ot_map_new();
	ck->lambdas = ot_map_new();
	infos = ot_arena_alloc(ck->arena, (n ? n : 1) * sizeof(*infos));
	for (size_t i = 0; i < n; i++) {
		const char *name = ot_index_call_name_at(ix, i);
		struct name_info *ni = &infos[i];
		bool out;
		const char *op = op_of_name(reg, ck->arena, name, &out);
		memset(ni, 0, sizeof(*ni));
		ni->stub = ot_index_stubs(ix, name) != NULL;
		for (const ot_ix_cdef *d = ot_index_cdefs(ix, name); d && !ni->method; d = d->next)
			ni->method = d->in_class || *d->qual;
		if (op && !ot_callkind_is_metadata(op)) {
			ni->op = op;
			ni->op_method = has_variant(reg, op, true);
		}
		ot_map_put(ck->names, name, ni);
	}
	for (size_t i = 0; i < ot_registry_func_count(reg); i++) {
		const ot_reg_func *f = ot_registry_func_at(reg, i);
		for (size_t k = 0; k < f->ndispatch; k++)
			if (!ot_map_get(ck->kernel_names, f->dispatch[k].kernel))
				ot_map_put(ck->kernel_names, f->dispatch[k].kernel, (void *)f);
		if (!f->has_dispatch && !f->delegate && !ot_map_get(ck->kernel_names, f->schema.name))
			ot_map_put(ck->kernel_names, f->schema.name, (void *)f);
	}
	return ck;
}

/* Every thread's cache, freed with the tracer (a thread that ends keeps
 * its cache alive here: the traces it made may still point into it). */
static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;

static void free_cache(struct thread_cache *tc)
{
	if (!tc)
		return;
	ot_arena_free(tc->arena);
	free(tc);
}

void ot_callkinds_free(ot_callkinds *ck)
{
	if (!ck)
		return;
	pthread_mutex_lock(&caches_lock);
	for (size_t i = 0; i < ck->caches.len; i++)
		free_cache(ck->caches.items[i]);
	ot_vec_free(&ck->caches);
	pthread_mutex_unlock(&caches_lock);
	pthread_key_delete(ck->cache);
	pthread_rwlock_destroy(&ck->shared_lock);
	ot_map_free(ck->bodies);
	ot_map_free(ck->params);
	ot_map_free(ck->locals);
	ot_map_free(ck->defaults);
	ot_map_free(ck->lambdas);
	ot_map_free(ck->names);
	ot_map_free(ck->kernel_names);
	ot_arena_free(ck->arena);
	free(ck);
}

static struct thread_cache *thread_cache(const ot_callkinds *ck)
{
	struct thread_cache *tc = pthread_getspecific(ck->cache);
	if (tc)
		return tc;
	tc = ot_calloc(1, sizeof(*tc));
	tc->arena = ot_arena_new();
	pthread_setspecific(ck->cache, tc);
	pthread_mutex_lock(&caches_lock);
	ot_vec_push(&((ot_callkinds *)ck)->caches, tc);
	pthread_mutex_unlock(&caches_lock);
	return tc;
}

/* What some thread worked out for `key` in the shared map `m`, or NULL. */
static void *shared_get(const ot_callkinds *ck, ot_map *m, const char *key)
{
	void *v;
	pthread_rwlock_rdlock((pthread_rwlock_t *)&ck->shared_lock);
	v = ot_map_get(m, key);
	pthread_rwlock_unlock((pthread_rwlock_t *)&ck->shared_lock);
	return v;
}

/* Share `v`, worked out by the calling thread for `key` (both in its
 * arena); when another thread shared an answer first, that one. */
static void *shared_put(const ot_callkinds *ck, ot_map *m, const char *key, void *v)
{
	void *have;
	pthread_rwlock_wrlock((pthread_rwlock_t *)&ck->shared_lock);
	if (!(have = ot_map_get(m, key)))
		ot_map_put(m, key, v);
	pthread_rwlock_unlock((pthread_rwlock_t *)&ck->shared_lock);
	return have ? have : v;
}

const ot_callkind *ot_callkinds_body(const ot_callkinds *ck, const ot_ix_cdef *d)
{
	struct thread_cache *tc;
	char key[32];
	ot_callkind *out;
	snprintf(key, sizeof(key), "%p", (const void *)d);
	if ((out = shared_get(ck, ck->bodies, key)))
		return out;
	tc = thread_cache(ck);
	out = ot_arena_alloc(tc->arena, (d->ncalls ? d->ncalls : 1) * sizeof(*out));
	for (uint32_t i = 0; i < d->ncalls; i++)
		ot_callkind_of(&out[i], ck, d, &d->calls[i], tc->arena);
	return shared_put(ck, ck->bodies, ot_arena_strdup(tc->arena, key), out);
}

const ot_callkind *ot_callkinds_body_in(const ot_callkinds *ck, const ot_ix_cdef *d,
					const ot_ck_subst *subst)
{
	struct thread_cache *tc;
	ot_buf key = OT_BUF_INIT;
	ot_callkind *out;
	if (!subst || !subst->n)
		return ot_callkinds_body(ck, d);
	tc = thread_cache(ck);
	ot_buf_printf(&key, "%p", (const void *)d);
	for (size_t i = 0; i < subst->n; i++)
		ot_buf_printf(&key, "|%s=%s", subst->name[i], subst->type[i]);
	if (!(out = shared_get(ck, ck->bodies, key.ptr))) {
		out = ot_arena_alloc(tc->arena, (d->ncalls ? d->ncalls : 1) * sizeof(*out));
		for (uint32_t i = 0; i < d->ncalls; i++)
			ot_callkind_of_in(&out[i], ck, d, &d->calls[i], tc->arena, subst);
		out = shared_put(ck, ck->bodies, ot_arena_strdup(tc->arena, key.ptr), out);
	}
	ot_buf_free(&key);
	return out;
}

size_t ot_callkinds_params(const ot_callkinds *ck, const ot_ix_cdef *d, const char *const **names,
			   const char *const **types)
{
	struct thread_cache *tc = thread_cache(ck);
	char key[32];
	struct params *p;
	snprintf(key, sizeof(key), "%p", (const void *)d);
	if (!(p = shared_get(ck, ck->params, key))) {
		p = ot_arena_alloc(tc->arena, sizeof(*p));
		p->names = ot_arena_alloc(tc->arena, OT_CK_MAX_ARGS * sizeof(*p->names));
		p->types = ot_arena_alloc(tc->arena, OT_CK_MAX_ARGS * sizeof(*p->types));
		p->n = ot_callkind_params(ck->ix, d, p->names, p->types, OT_CK_MAX_ARGS, tc->arena);
		p = shared_put(ck, ck->params, ot_arena_strdup(tc->arena, key), p);
	}
	*names = p->names;
	*types = p->types;
	return p->n;
}

const ot_reg_func *ot_callkind_function_ref(const ot_callkinds *ck, const char *text, ot_arena *arena)
{
	const ot_reg_func *const *ov, *found = NULL;
	const char *name = ot_starts_with(text, "at::") ? text + 4 : NULL, *op;
	bool out = false;
	size_t n;
	if (!name || !ot_is_identifier(name) || !(op = op_of_name(ck->reg, arena, name, &out)) ||
	    !(ov = ot_registry_overloads(ck->reg, op, &n)))
		return NULL;
	if (!out)
		return n == 1 ? ov[0] : NULL;
	for (size_t i = 0; i < n; i++)
		if (ov[i]->schema.is_out) {
			if (found)
				return NULL; /* several out= overloads: which one is not known */
			found = ov[i];
		}
	return found;
}

bool ot_callkind_is_selection(const char *n)
{
	return !strcmp(n, "cudnn_is_acceptable") || ot_starts_with(n, "use_") ||
	       ot_starts_with(n, "_use_") || ot_starts_with(n, "should_use") ||
	       ot_starts_with(n, "can_use_") || strstr(n, "_sdp_choice") ||
	       !strcmp(n, "select_sdp_backend") || !strcmp(n, "userEnabledCuDNN") ||
	       !strcmp(n, "userEnabledMkldnn") || !strcmp(n, "linalgPreferredBackend");
}

/* ---- reading the code view ------------------------------------------------------- */

static bool is_space(char c)
{
	/* a backslash continues a line of a #define (read from the text) */
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '\\';
}

static size_t skip_ws(const char *c, size_t i, size_t end)
{
	while (i < end && is_space(c[i]))
		i++;
	return i;
}

/* The last non-blank offset before `i` (exclusive), not below `lo`; lo when none. */
static size_t back_ws(const char *c, size_t lo, size_t i)
{
	while (i > lo && is_space(c[i - 1]))
		i--;
	return i;
}

/* Offset of the bracket matching the one at `i`, looking forwards for an
 * opening one and backwards for a closing one; (size_t)-1 when none within
 * `limit` bytes. */
static size_t match_bracket(const char *c, size_t lo, size_t hi, size_t i)
{
	char open = c[i];
	int dir = open == '(' || open == '[' || open == '{' || open == '<' ? 1 : -1;
	char o = dir > 0 ? open : open == ')' ? '(' : open == ']' ? '[' : open == '}' ? '{' : '<';
	char cl = o == '(' ? ')' : o == '[' ? ']' : o == '{' ? '}' : '>';
	int depth = 0;
	size_t steps = 0;
	for (size_t k = i; k >= lo && k < hi && steps < 65536; k += (size_t)(long)dir, steps++) {
		if (c[k] == o)
			depth += dir;
		else if (c[k] == cl)
			depth -= dir;
		if (depth == 0)
			return k;
		if (k == lo && dir < 0)
			break;
	}
	return (size_t)-1;
}

/* [s, e) with every run of blanks one space, in the arena. */
static const char *span(ot_arena *a, const char *c, size_t s, size_t e)
{
	char *out, *o;
	bool blank = false;
	while (s < e && is_space(c[s]))
		s++;
	while (e > s && is_space(c[e - 1]))
		e--;
	if (e - s > 240)
		e = s + 240;
	out = o = ot_arena_alloc(a, e - s + 1);
	for (size_t i = s; i < e; i++) {
		if (is_space(c[i])) {
			blank = true;
			continue;
		}
		if (blank)
			*o++ = ' ';
		blank = false;
		*o++ = c[i];
	}
	*o = '\0';
	return out;
}

/* Split the arguments of the call whose '(' is at `open` (code view `c`,
 * up to `hi`) into `out`. Returns the count (0 for "()"), or -1 when the
 * list does not close. */
static int split_args(const char **out, size_t max, ot_arena *a, const char *c, size_t open,
		      size_t hi)
{
	size_t close = match_bracket(c, open, hi, open), start = open + 1;
	int depth = 0, n = 0;
	if (close == (size_t)-1)
		return -1;
	if (skip_ws(c, open + 1, close) == close)
		return 0;
	for (size_t i = open + 1; i <= close; i++) {
		char ch = c[i];
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if ((ch == ')' || ch == ']' || ch == '}') && i < close)
			depth--;
		else if (ch == '<' && i + 1 < close && c[i + 1] != '<' && c[i - 1] != '<' &&
			 (isalpha((unsigned char)c[i + 1]) || c[i + 1] == ':')) {
			/* template arguments in an argument (std::vector<int64_t>{...}) */
			size_t m = match_bracket(c, i, close, i);
			if (m != (size_t)-1 && m < close)
				i = m;
			continue;
		}
		if ((ch == ',' && depth == 0) || i == close) {
			if ((size_t)n < max)
				out[n] = span(a, c, start, i);
			n++;
			start = i + 1;
		}
	}
	return n;
}

/* ---- declarations ----------------------------------------------------------------------- */

/* Strip cv-qualifiers, references, namespaces at::, c10::, std::, ::. */
static void normalize_type(char *out, size_t n, const char *type)
{
	size_t k = 0;
	const char *p = type;
	while (*p && k + 1 < n) {
		if (isspace((unsigned char)*p) || *p == '&') {
			p++;
			continue;
		}
		if (!strncmp(p, "const", 5) && !ot_is_ident_char(p[5]) &&
		    (p == type || !ot_is_ident_char(p[-1]))) {
			p += 5;
			continue;
		}
		if (!strncmp(p, "volatile", 8) && !ot_is_ident_char(p[8])) {
			p += 8;
			continue;
		}
		/* constexpr int64_t, static constexpr int: the type is the int */
		if ((!strncmp(p, "constexpr", 9) && !ot_is_ident_char(p[9])) ||
		    (!strncmp(p, "static", 6) && !ot_is_ident_char(p[6]) && (p == type || !ot_is_ident_char(p[-1])))) {
			p += p[1] == 'o' ? 9 : 6;
			continue;
		}
		if (!strncmp(p, "typename", 8) && !ot_is_ident_char(p[8]) &&
		    (p == type || !ot_is_ident_char(p[-1]))) {
			p += 8; /* typename Kernel::Params is Kernel::Params */
			continue;
		}
		if ((p == type || !ot_is_ident_char(p[-1])) &&
		    (!strncmp(p, "at::", 4) || !strncmp(p, "c10::", 5) || !strncmp(p, "std::", 5))) {
			p += p[0] == 'a' ? 4 : 5;
			continue;
		}
		if (p[0] == ':' && p[1] == ':' && (p == type || !ot_is_ident_char(p[-1]))) {
			p += 2;
			continue;
		}
		out[k++] = *p++;
	}
	out[k] = '\0';
}

ot_ty ot_callkind_type(const char *type)
{
	char t[256];
	static const char *const tensors[] = {"Tensor", "TensorBase", "OptionalTensorRef",
					      "TensorRef"};
	static const char *const ptrs[] = {"Tensor*", "TensorBase*", "MaybeOwned<Tensor>",
					   "MaybeOwned<TensorBase>", "optional<Tensor>",
					   "ExclusivelyOwned<Tensor>", "MaybeOwned<Tensor>*",
					   "optional<TensorBase>", "OptionalTensorRef*"};
	static const char *const lists[] = {"TensorList", "ITensorListRef", "vector<Tensor>",
					    "ArrayRef<Tensor>", "IListRef<Tensor>",
					    "MaterializedITensorListRef", "List<Tensor>",
					    "TensorList*", "IOptTensorListRef", "List<optional<Tensor>>"};
	normalize_type(t, sizeof(t), type);
	if (!*t)
		return OT_TY_UNKNOWN;
	if (!strcmp(t, "auto") || !strcmp(t, "auto*") || !strcmp(t, "decltype(auto)"))
		return OT_TY_AUTO;
	for (size_t i = 0; i < OT_ARRAY_LEN(tensors); i++)
		if (!strcmp(t, tensors[i]))
			return OT_TY_TENSOR;
	for (size_t i = 0; i < OT_ARRAY_LEN(ptrs); i++)
		if (!strcmp(t, ptrs[i]))
			return OT_TY_TENSOR_PTR;
	for (size_t i = 0; i < OT_ARRAY_LEN(lists); i++)
		if (!strcmp(t, lists[i]))
			return OT_TY_TENSOR_LIST;
	if (ot_starts_with(t, "SmallVector<Tensor,") || ot_starts_with(t, "array<Tensor,"))
		return OT_TY_TENSOR_LIST;
	if (!strcmp(t, "TensorIterator") || !strcmp(t, "TensorIteratorBase"))
		return OT_TY_TENSOR_ITER;
	return OT_TY_OTHER;
}

bool ot_callkind_always_present(const char *type)
{
	char t[64];
	normalize_type(t, sizeof(t), type);
	return !strcmp(t, "Scalar");
}

/* The offset of the '(' opening definition d's parameter list, or -1. */
static size_t params_open(const ot_ix_file *f, const ot_ix_cdef *d)
{
	const char *c = f->code;
	size_t i = f->line_off[d->line - 1], end = d->body ? d->body : f->len;
	bool in_macro = d->kind == OT_CDEF_IMPL || d->kind == OT_CDEF_META || d->kind == OT_CDEF_PRECOMPUTE;
	/* TORCH_META_FUNC2(xlogy, Tensor) is filed as xlogy.Tensor: its name is xlogy */
	size_t n = in_macro ? strcspn(d->name, ".") : strlen(d->name);
	if (d->gen || d->kind == OT_CDEF_MACRO)
		return (size_t)-1;
	for (; i + n < end; i++) {
		if (memcmp(c + i, d->name, n) || (i && ot_is_ident_char(c[i - 1])) ||
		    ot_is_ident_char(c[i + n]))
			continue;
		i = skip_ws(c, i + n, end);
		if (in_macro) {
			/* TORCH_IMPL_FUNC(name)(params), TORCH_META_FUNC2(name,
			 * overload)(params): past the macro's ')' */
			if (i < end && c[i] == ',') {
				i = skip_ws(c, i + 1, end);
				while (i < end && ot_is_ident_char(c[i]))
					i++;
				i = skip_ws(c, i, end);
			}
			if (i >= end || c[i] != ')')
				continue;
			i = skip_ws(c, i + 1, end);
			return i < end && c[i] == '(' ? i : (size_t)-1;
		}
		if (i < end && c[i] == '<') { /* a specialisation: name<T>(...) */
			size_t m = match_bracket(c, i, end, i);
			if (m == (size_t)-1)
				return (size_t)-1;
			i = skip_ws(c, m + 1, end);
		}
		if (i >= end || c[i] != '(')
			continue;
		if (!strcmp(d->name, "operator") && c[skip_ws(c, i + 1, end)] == ')') {
			/* operator()(params): the second group */
			i = skip_ws(c, skip_ws(c, i + 1, end) + 1, end);
			return i < end && c[i] == '(' ? i : (size_t)-1;
		}
		return i;
	}
	return (size_t)-1;
}

/* Where a parameter's declaration writes its default value: the offset of
 * its top-level '=' ("const Tensor& w = Tensor()"), or its length. */
static size_t default_at(const char *decl)
{
	int depth = 0;
	size_t i;
	for (i = 0; decl[i]; i++) {
		char ch = decl[i];
		if (ch == '<' || ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == '>' || ch == ')' || ch == ']' || ch == '}')
			depth--;
		else if (ch == '=' && depth == 0)
			break;
	}
	return i;
}

/* Split one declaration "const Tensor& self = {}" into its name and type. */
static bool split_decl(ot_arena *a, const char *decl, const char **name, const char **type)
{
	size_t n = default_at(decl), e, s; /* without a default value */
	e = n;
	while (e > 0 && (isspace((unsigned char)decl[e - 1]) || decl[e - 1] == ']' || decl[e - 1] == '['))
		e--;
	s = e;
	while (s > 0 && ot_is_ident_char(decl[s - 1]))
		s--;
	if (s == e || s == 0)
		return false; /* no name, or no type before it */
	*name = ot_arena_strndup(a, decl + s, e - s);
	*type = ot_arena_strndup(a, decl, s);
	return true;
}

/* The type of a parameter declared without a name (`const Tensor&`, or
 * its name in a comment): the declaration up to the comment; false for
 * none (`void`, `...`, an empty list). */
static bool unnamed_param(ot_arena *a, const char *decl, const char **type)
{
	const char *comment = strstr(decl, "/*");
	size_t n = comment ? (size_t)(comment - decl) : strlen(decl);
	while (n && isspace((unsigned char)decl[n - 1]))
		n--;
	while (*decl && isspace((unsigned char)*decl) && n) {
		decl++;
		n--;
	}
	if (!n || (n == 4 && !memcmp(decl, "void", 4)) || (n >= 3 && !memcmp(decl + n - 3, "...", 3)))
		return false;
	*type = ot_arena_strndup(a, decl, n);
	return true;
}

size_t ot_callkind_params(const ot_index *ix, const ot_ix_cdef *d, const char **names,
			  const char **types, size_t max, ot_arena *arena)
{
	const ot_ix_file *f = ot_index_file(ix, d->file);
	const char *args[OT_CK_MAX_ARGS];
	size_t open, k = 0;
	int n;
	if (d->gen && d->gen->params && d->gen->params[0] == '(')
		/* a definition a macro generated: its parameter list as the #define writes it */
		n = split_args(args, OT_CK_MAX_ARGS, arena, d->gen->params, 0, strlen(d->gen->params));
	else if (!f || (open = params_open(f, d)) == (size_t)-1)
		return 0;
	else
		n = split_args(args, OT_CK_MAX_ARGS, arena, f->code, open, d->body ? d->body : f->len);
	for (int i = 0; i < n && i < (int)OT_CK_MAX_ARGS && k < max; i++) {
		if (split_decl(arena, args[i], &names[k], &types[k])) {
			k++;
		} else if (unnamed_param(arena, args[i], &types[k])) {
			/* a name commented out: the parameter holds its place, no name finds it */
			names[k++] = "";
		}
	}
	return k;
}

static bool word_before_is(const char *c, size_t lo, size_t at, const char *w)
{
	size_t e = back_ws(c, lo, at), n = strlen(w);
	return e >= lo + n && !memcmp(c + e - n, w, n) && (e - n == lo || !ot_is_ident_char(c[e - n - 1]));
}

/* ---- default arguments ----------------------------------------------------------------- */

/* The default value of one parameter as written ("Tensor()" of `const
 * Tensor &offset2bag = Tensor()`), or NULL when it has none. */
static const char *param_default(ot_arena *a, const char *decl)
{
	size_t eq = default_at(decl);
	return decl[eq] ? span(a, decl, eq + 1, strlen(decl)) : NULL;
}

/* The defaults written in the parameter list opening at `open` of code
 * view `c` (up to `hi`) into defs[0..n): true when the list has n
 * declarations and at least one default. */
static bool list_defaults(ot_arena *a, const char *c, size_t open, size_t hi, size_t n, const char **defs)
{
	const char *args[OT_CK_MAX_ARGS], *name, *type;
	int k = split_args(args, OT_CK_MAX_ARGS, a, c, open, hi);
	bool any = false;
	if (k < 0 || (size_t)k != n || n > OT_CK_MAX_ARGS)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!split_decl(a, args[i], &name, &type))
			return false; /* not a declaration: a call */
		defs[i] = param_default(a, args[i]);
		any |= defs[i] != NULL;
	}
	return any;
}

/* A declaration of function `name` with n parameters in code view c at
 * [lo, hi) (a prototype: `Ret name(params);`) whose parameters have
 * defaults: true with them in defs. */
static bool declared_defaults(ot_arena *a, const char *c, size_t lo, size_t hi, const char *name, size_t n,
			      const char **defs)
{
	size_t len = strlen(name);
	for (const char *p = c + lo; (p = memmem(p, (size_t)(c + hi - p), name, len)); p += len) {
		size_t at = (size_t)(p - c), open = skip_ws(c, at + len, hi), close, before = back_ws(c, lo, at);
		if ((at > lo && ot_is_ident_char(c[at - 1])) || open >= hi || c[open] != '(' ||
		    before == lo || !(ot_is_ident_char(c[before - 1]) || c[before - 1] == '&' || c[before - 1] == '*') ||
		    word_before_is(c, lo, at, "return") || (close = match_bracket(c, open, hi, open)) == (size_t)-1)
			continue;
		close = skip_ws(c, close + 1, hi);
		if (close < hi && c[close] == ';' && list_defaults(a, c, open, hi, n, defs))
			return true;
	}
	return false;
}

/* The index's file that `#include` line text [s, e) of file f names: the
 * path below aten/src/ or the repository, or beside f. -1 when none. */
static int64_t included_file(const ot_index *ix, const ot_ix_file *f, const char *s, const char *e)
{
	char path[512];
	const char *open = memchr(s, '<', (size_t)(e - s)), *close;
	const char *slash = strrchr(f->path, '/');
	int64_t id;
	if (!open)
		open = memchr(s, '"', (size_t)(e - s));
	if (!open || !(close = memchr(open + 1, *open == '<' ? '>' : '"', (size_t)(e - open - 1))))
		return -1;
	snprintf(path, sizeof(path), "aten/src/%.*s", (int)(close - open - 1), open + 1);
	if ((id = ot_index_file_id(ix, path)) >= 0)
		return id;
	if ((id = ot_index_file_id(ix, path + 9)) >= 0)
		return id;
	snprintf(path, sizeof(path), "%.*s%.*s", slash ? (int)(slash - f->path + 1) : 0, f->path,
		 (int)(close - open - 1), open + 1);
	return ot_index_file_id(ix, path);
}

/* The default arguments of definition d's n parameters: written in its
 * own list, else in a declaration of it before it in its file or in a
 * header the file includes (embedding_backward_cuda_kernel's in
 * EmbeddingBackwardKernel.cuh). NULL when there are none. */
static const char **param_defaults(const ot_index *ix, const ot_ix_cdef *d, size_t n, ot_arena *a)
{
	const ot_ix_file *f = ot_index_file(ix, d->file);
	const char **defs;
	size_t open;
	if (!f || !n || n > OT_CK_MAX_ARGS || d->kind != OT_CDEF_FUNC || d->gen ||
	    (open = params_open(f, d)) == (size_t)-1)
		return NULL;
	defs = ot_arena_alloc(a, n * sizeof(*defs));
	if (list_defaults(a, f->code, open, d->body ? d->body : f->len, n, defs) ||
	    declared_defaults(a, f->code, 0, f->line_off[d->line - 1], d->name, n, defs))
		return defs;
	for (const char *s = f->text, *e; s < f->text + f->len; s = e + 1) {
		int64_t id;
		const ot_ix_file *h;
		if (!(e = memchr(s, '\n', (size_t)(f->text + f->len - s))))
			e = f->text + f->len;
		if (!ot_starts_with(s, "#include") || (id = included_file(ix, f, s, e)) < 0 || id == d->file ||
		    !(h = ot_index_file(ix, (uint32_t)id)) || h->lang != f->lang)
			continue;
		if (declared_defaults(a, h->code, 0, h->len, d->name, n, defs))
			return defs;
	}
	return NULL;
}

const ot_reg_func *ot_callkinds_kernel_entry(const ot_callkinds *ck, const char *name)
{
	return ot_map_get(ck->kernel_names, name);
}

const char *const *ot_callkinds_param_defaults(const ot_callkinds *ck, const ot_ix_cdef *d)
{
	const char *const *names, *const *types;
	size_t n = ot_callkinds_params(ck, d, &names, &types);
	struct thread_cache *tc = thread_cache(ck);
	char key[32];
	const char **defs;
	snprintf(key, sizeof(key), "%p", (const void *)d);
	if ((defs = shared_get(ck, ck->defaults, key)))
		return *defs ? defs + 1 : NULL;
	/* defs[0] says whether there are any: a NULL answer is kept too */
	defs = ot_arena_alloc(tc->arena, (n + 1) * sizeof(*defs));
	{
		const char **found = param_defaults(ck->ix, d, n, tc->arena);
		defs[0] = found ? "" : NULL;
		for (size_t i = 0; found && i < n; i++)
			defs[i + 1] = found[i];
	}
	defs = shared_put(ck, ck->defaults, ot_arena_strdup(tc->arena, key), defs);
	return *defs ? defs + 1 : NULL;
}

/* Does the '{' at `at` open a block (`if (x) {`, `else {`, a statement
 * after `;`), not a braced list (`Tensor t{a, b}`, `f({a, b})`, `= {`)? */
static bool opens_block(const char *c, size_t lo, size_t at)
{
	size_t p = back_ws(c, lo, at);
	char prev = p > lo ? c[p - 1] : ';';
	if (prev == ')' || prev == ';' || prev == '{' || prev == '}')
		return true;
	if (prev == ':' && !(p - 1 > lo && c[p - 2] == ':'))
		return true; /* a label, a case */
	return word_before_is(c, lo, at, "else") || word_before_is(c, lo, at, "do") ||
	       word_before_is(c, lo, at, "try");
}

/*
 * The type of the local `name` declared in d's body before offset `at`
 * (the closest declaration), as written; for `auto`, the initializer into
 * *init; for a range-for variable, the range into *range. NULL when none.
 */
/* The declarations of one local in one body (scan_decls), cached per thread. */
struct decl {
	size_t pos;
	const char *type, *init, *range;
};
struct decls {
	size_t n;
	struct decl *v;
};

/* A structured binding naming the local at [i, i+n): `auto [a, b] = f(x);`
 * gives b the type "auto" and the initializer "std::get<1>(f(x))". */
static bool structured_binding(struct decl *out, ot_arena *a, const char *c, size_t lo, size_t i, size_t n,
			       size_t at)
{
	size_t open = i, close = i + n, k, e, ws;
	unsigned index = 0;
	int depth = 0;
	while (open > lo && (ot_is_ident_char(c[open - 1]) || c[open - 1] == ',' || is_space(c[open - 1])))
		index += c[--open] == ',';
	if (open <= lo || c[open - 1] != '[')
		return false;
	ws = back_ws(c, lo, open - 1);
	while (ws > lo && (c[ws - 1] == '&' || is_space(c[ws - 1])))
		ws--;
	if (ws < lo + 4 || memcmp(c + ws - 4, "auto", 4) || (ws > lo + 4 && ot_is_ident_char(c[ws - 5])))
		return false;
	while (close < at && (ot_is_ident_char(c[close]) || c[close] == ',' || is_space(c[close])))
		close++;
	if (close >= at || c[close] != ']' || (k = skip_ws(c, close + 1, at)) >= at || c[k] != '=' ||
	    c[k + 1] == '=')
		return false;
	for (e = k + 1; e < at && (depth || c[e] != ';'); e++)
		depth += c[e] == '(' || c[e] == '[' || c[e] == '{' ? 1 : c[e] == ')' || c[e] == ']' || c[e] == '}' ? -1 : 0;
	out->pos = i;
	out->type = "auto";
	out->init = ot_arena_printf(a, "std::get<%u>(%s)", index, span(a, c, skip_ws(c, k + 1, e), e));
	out->range = NULL;
	return true;
}

/* Every declaration of local `name` in d's body before offset `at`, in
 * order (its type, initializer and range-for source as written). */
static void scan_decls(struct decls *out, ot_arena *a, const char *c, size_t body, size_t at,
		       const char *name)
{
	size_t n = strlen(name), lo = body + 1;
	OT_VEC(struct decl) v = {0};
	for (size_t i = lo; i + n <= at; i++) {
		size_t after, tend, ts;
		char nx;
		if (c[i] != name[0] || memcmp(c + i, name, n) || ot_is_ident_char(c[i - 1]) ||
		    ot_is_ident_char(c[i + n]) || c[i - 1] == '.' || (c[i - 1] == '>' && c[i - 2] == '-') ||
		    (c[i - 1] == ':' && c[i - 2] == ':'))
			continue;
		after = skip_ws(c, i + n, at);
		nx = after < at ? c[after] : ';';
		if (!(nx == '=' || nx == ';' || nx == '(' || nx == '{' || nx == ',' || nx == ')' ||
		      nx == '[' || (nx == ':' && c[after + 1] != ':')))
			continue;
		if (nx == '=' && c[after + 1] == '=')
			continue;
		{
			struct decl sb;
			if (structured_binding(&sb, a, c, lo, i, n, at)) {
				ot_vec_push(&v, sb);
				continue;
			}
		}
		/* the type: back over '&', '*', '>' groups and names to the statement start */
		tend = back_ws(c, lo, i);
		if (tend == lo)
			continue;
		{
			char p = c[tend - 1];
			if (!(ot_is_ident_char(p) || p == '&' || p == '*' || p == '>' || p == ','))
				continue;
			if (word_before_is(c, lo, i, "return") || word_before_is(c, lo, i, "case") ||
			    word_before_is(c, lo, i, "else") || word_before_is(c, lo, i, "new") ||
			    word_before_is(c, lo, i, "delete") || word_before_is(c, lo, i, "throw") ||
			    word_before_is(c, lo, i, "goto") || word_before_is(c, lo, i, "sizeof"))
				continue;
			if (p == ',') {
				/* Tensor a, b: the type of the statement's first declarator */
				size_t j = tend - 1;
				int depth = 0;
				while (j > lo) {
					char ch = c[j - 1];
					if (ch == '}' && !depth)
						break; /* the end of the block before the statement */
					if (ch == ')' || ch == ']' || ch == '}' || ch == '>')
						depth++;
					else if (ch == '(' || ch == '[' || ch == '{' || ch == '<') {
						if (!depth)
							break;
						depth--;
					} else if ((ch == ';') && !depth)
						break;
					j--;
				}
				if (j > lo && (c[j - 1] == '(' || (c[j - 1] == '{' && !opens_block(c, lo, j - 1))))
					continue; /* an argument list, not a declaration */
				ts = skip_ws(c, j, tend);
				/* first declarator: the last name before the first =,({ at depth 0 */
				{
					size_t k = ts, last_s = 0;
					int dd = 0;
					for (; k < tend; k++) {
						char ch = c[k];
						if (ch == '<')
							dd++;
						else if (ch == '>')
							dd--;
						else if (!dd && (ch == '=' || ch == ',' || ch == '(' || ch == '{'))
							break;
						if (ot_is_ident_start(ch) && (k == ts || !ot_is_ident_char(c[k - 1])))
							last_s = k;
					}
					if (!last_s || last_s <= ts)
						continue;
					tend = last_s;
				}
			} else {
				size_t j = tend;
				int depth = 0;
				while (j > lo) {
					char ch = c[j - 1];
					if (ch == '>' ) {
						depth++;
					} else if (ch == '<') {
						if (!depth)
							break;
						depth--;
					} else if (!depth && !(ot_is_ident_char(ch) || ch == ':' || ch == '&' ||
								 ch == '*' || is_space(ch) || ch == ','))
						break;
					else if (depth == 0 && ch == ',')
						break;
					j--;
				}
				if (depth)
					continue; /* a '>' no '<' opens: `S > tol` compares */
				ts = skip_ws(c, j, tend);
				/* a statement start must precede the type: ; { } ( or the body */
				{
					size_t b = back_ws(c, lo, ts);
					char pc = b > lo ? c[b - 1] : '{';
					if (!(pc == ';' || pc == '{' || pc == '}' || pc == '(' || pc == ',' ||
					      pc == ')' || pc == ':'))
						continue;
					if (pc == '(' && (p == '*' || p == '&')) {
						/* (a * b) is a product: `(T* x)` declares only in
						 * a lambda's or a for's parentheses */
						size_t q = back_ws(c, lo, b - 1), qs = q;
						while (qs > lo && ot_is_ident_char(c[qs - 1]))
							qs--;
						if (!(q > lo && c[q - 1] == ']') &&
						    !(q - qs == 3 && !memcmp(c + qs, "for", 3)) &&
						    !(q - qs == 5 && !memcmp(c + qs, "catch", 5)))
							continue;
					}
				}
			}
			if (ts >= tend)
				continue;
			{
				struct decl dl = {i, span(a, c, ts, tend), NULL, NULL};
				const char *best_init = NULL, *best_range = NULL;
				if (nx == '=') {
					size_t e = after + 1;
					int depth = 0;
					for (; e < at; e++) {
						char ch = c[e];
						if (ch == '(' || ch == '[' || ch == '{')
							depth++;
						else if (ch == ')' || ch == ']' || ch == '}')
							depth--;
						if ((ch == ';' || ch == ',') && depth <= 0)
							break;
						if (depth < 0)
							break;
					}
					best_init = span(a, c, after + 1, e);
				} else if (nx == '(' || nx == '{') {
					size_t m = match_bracket(c, after, at, after);
					if (m != (size_t)-1)
						best_init = span(a, c, after + 1, m);
				} else if (nx == ':') {
					size_t e = after + 1;
					int depth = 0;
					for (; e < at; e++) {
						if (c[e] == '(')
							depth++;
						else if (c[e] == ')' && --depth < 0)
							break;
					}
					best_range = span(a, c, after + 1, e);
				}
				dl.init = best_init;
				dl.range = best_range;
				ot_vec_push(&v, dl);
			}
		}
	}
	out->n = v.len;
	out->v = v.len ? ot_arena_alloc(a, v.len * sizeof(*out->v)) : NULL;
	if (v.len)
		memcpy(out->v, v.items, v.len * sizeof(*out->v));
	ot_vec_free(&v);
}

/* The type of local `name` where offset `at` of d's body sees it (its
 * last declaration before `at`), with its initializer and range-for
 * source, or NULL. The declarations are read once per body and name. */
/* The body of a definition macro invocation d generated, in its file:
 * the text of the `#define` that writes it ([*body, *end) of f->text,
 * from the #define's first line to the last of its continued lines).
 * False for a macro of another file. */
static bool generated_body(const ot_ix_file *f, const ot_ix_cdef *d, size_t *body, size_t *end)
{
	const ot_ix_macro *m = d->gen ? d->gen->paster : NULL;
	size_t e;
	if (!m || m->file != d->file || !m->line || m->line > f->nlines)
		return false;
	*body = f->line_off[m->line - 1];
	for (e = *body; e < f->len; e++)
		if (f->text[e] == '\n' && (e == 0 || f->text[e - 1] != '\\'))
			break;
	*end = e;
	return true;
}

static const struct decl *local_decl(const ot_callkinds *ck, const char *c, const ot_ix_cdef *d,
				     size_t at, const char *name)
{
	struct thread_cache *tc = thread_cache(ck);
	char key[200];
	struct decls *ds;
	const struct decl *best = NULL;
	size_t body, end;
	const ot_ix_file *f = ot_index_file(ck->ix, d->file);
	if (!d->body && !generated_body(f, d, &body, &end))
		return NULL; /* a generated definition of another file's macro */
	if (d->body) {
		body = d->body;
		end = d->body_end ? d->body_end : f->len;
	} else {
		c = f->text; /* the #define's text: the code view blanks it */
	}
	snprintf(key, sizeof(key), "%p:%s", (const void *)d, name);
	if (!(ds = shared_get(ck, ck->locals, key))) {
		ds = ot_arena_alloc(tc->arena, sizeof(*ds));
		scan_decls(ds, tc->arena, c, body, end, name);
		ds = shared_put(ck, ck->locals, ot_arena_strdup(tc->arena, key), ds);
	}
	for (size_t i = 0; i < ds->n && ds->v[i].pos + strlen(name) <= at; i++)
		best = &ds->v[i];
	return best;
}

static const char *local_type(const ot_callkinds *ck, const char *c, const ot_ix_cdef *d, size_t at,
			      const char *name, const char **init, const char **range)
{
	const struct decl *best = local_decl(ck, c, d, at, name);
	*init = best ? best->init : NULL;
	*range = best ? best->range : NULL;
	return best ? best->type : NULL;
}

/* The lambdas a body names (`auto fn = [...](...) { ... };`): each name
 * with its body's braces. */
struct lambda {
	const char *name;
	size_t open, close;
	bool handed; /* also named other than in a call `name(...)`: handed on */
};
struct lambdas {
	size_t n;
	struct lambda *v;
};

/* The named lambda whose '[' is at `at` (after `name =`) in code view c
 * up to `end`: its body's braces into *open and *close. */
static bool lambda_body(const char *c, size_t at, size_t end, size_t *open, size_t *close)
{
	size_t i = match_bracket(c, at, end, at);
	if (i == (size_t)-1)
		return false;
	i = skip_ws(c, i + 1, end);
	if (i < end && c[i] == '(') {
		if ((i = match_bracket(c, i, end, i)) == (size_t)-1)
			return false;
		i++;
	}
	/* mutable, noexcept, -> Ret: up to the body, in one declaration */
	for (size_t k = 0; i < end && c[i] != '{' && k < 200; i++, k++)
		if (c[i] == ';' || c[i] == '}' || c[i] == '(')
			return false;
	if (i >= end || c[i] != '{' || (*close = match_bracket(c, i, end, i)) == (size_t)-1)
		return false;
	*open = i;
	return true;
}

/* Is `name` written in code view c at [lo, hi) other than as a call
 * `name(...)`: handed to a function (parallel_for(0, n, 1, fn)) that may
 * call it? */
static bool handed_on(const char *c, size_t lo, size_t hi, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = c + lo; (p = memmem(p, (size_t)(c + hi - p), name, n)); p += n) {
		size_t at = (size_t)(p - c), after = skip_ws(c, at + n, hi);
		if ((at > lo && (ot_is_ident_char(c[at - 1]) || c[at - 1] == '.')) || ot_is_ident_char(c[at + n]))
			continue;
		if (after >= hi || c[after] != '(')
			return true;
	}
	return false;
}

static const struct lambdas *named_lambdas(const ot_callkinds *ck, const ot_ix_cdef *d, const char *c)
{
	struct thread_cache *tc = thread_cache(ck);
	char key[32];
	struct lambdas *ls;
	size_t end = d->body_end;
	snprintf(key, sizeof(key), "%p", (const void *)d);
	if ((ls = shared_get(ck, ck->lambdas, key)))
		return ls;
	ls = ot_arena_alloc(tc->arena, sizeof(*ls));
	ls->n = 0;
	ls->v = NULL;
	for (size_t i = d->body + 1, cap = 0; i < end; i++) {
		size_t eq, ne, ns, open, close;
		if (c[i] != '[' || (eq = back_ws(c, d->body, i)) <= d->body || c[eq - 1] != '=' ||
		    (eq >= 2 && strchr("=!<>+-*/&|^%", c[eq - 2])))
			continue;
		ne = back_ws(c, d->body, eq - 1);
		for (ns = ne; ns > d->body && ot_is_ident_char(c[ns - 1]); ns--)
			;
		if (ns == ne || !lambda_body(c, i, end, &open, &close))
			continue;
		if (ls->n == cap) {
			struct lambda *v = ot_arena_alloc(tc->arena, (cap = cap ? 2 * cap : 4) * sizeof(*v));
			if (ls->n)
				memcpy(v, ls->v, ls->n * sizeof(*v));
			ls->v = v;
		}
		ls->v[ls->n] = (struct lambda){span(tc->arena, c, ns, ne), open, close, false};
		ls->v[ls->n].handed = handed_on(c, close + 1, end, ls->v[ls->n].name);
		ls->n++;
	}
	return shared_put(ck, ck->lambdas, ot_arena_strdup(tc->arena, key), ls);
}

const char *ot_callkind_lambda_around(const ot_callkinds *ck, const ot_ix_cdef *d, uint32_t at)
{
	const ot_ix_file *f = ot_index_file(ck->ix, d->file);
	const struct lambdas *ls;
	const char *name = NULL;
	if (!f || !d->body || !d->body_end || at == OT_IX_CALL_NO_TEXT)
		return NULL;
	ls = named_lambdas(ck, d, f->code);
	for (size_t i = 0; i < ls->n; i++)
		if (ls->v[i].open < at && at < ls->v[i].close)
			/* the innermost: the last that holds it (none when it is
			 * handed on: who calls it is not read) */
			name = ls->v[i].handed ? NULL : ls->v[i].name;
	return name;
}

const char *ot_callkind_local_init(const ot_callkinds *ck, const ot_ix_cdef *d, uint32_t at,
				   const char *name)
{
	const ot_ix_file *f = ot_index_file(ck->ix, d->file);
	const char *init, *range;
	if (!f || !d->body || at == OT_IX_CALL_NO_TEXT)
		return NULL;
	local_type(ck, f->code, d, at, name, &init, &range);
	return init;
}

bool ot_callkind_local_unset(const ot_callkinds *ck, const ot_ix_cdef *d, uint32_t at, const char *name)
{
	const ot_ix_file *f = ot_index_file(ck->ix, d->file);
	const struct decl *decl;
	size_t n = strlen(name);
	if (!f || !d->body || at == OT_IX_CALL_NO_TEXT || !(decl = local_decl(ck, f->code, d, at, name)) ||
	    decl->init || decl->range || ot_callkind_type(decl->type) != OT_TY_TENSOR ||
	    strchr(decl->type, '&'))
		return false;
	/* named again before `at`: it may have been given a value there */
	for (const char *p = f->code + decl->pos + n, *end = f->code + at;
	     p < end && (p = memmem(p, (size_t)(end - p), name, n)); p += n)
		if (!ot_is_ident_char(p[-1]) && !ot_is_ident_char(p[n]))
			return false;
	return true;
}

bool ot_callkind_local_present(const ot_callkinds *ck, const ot_ix_cdef *d, uint32_t at, const char *name)
{
	const ot_ix_file *f = ot_index_file(ck->ix, d->file);
	const struct decl *decl;
	return f && d->body && at != OT_IX_CALL_NO_TEXT && (decl = local_decl(ck, f->code, d, at, name)) &&
	       !decl->range && ot_callkind_always_present(decl->type);
}

/* Functions outside the indexed tree (ATen/ScalarOps.h) that return a
 * Tensor: a Scalar made a 0-dim tensor. */
static bool outside_tensor_function(const char *qual, const char *name)
{
	return (!*qual || !strcmp(qual, "at::") || !strcmp(qual, "at::native::") || !strcmp(qual, "native::") ||
		!strcmp(qual, "c10::")) &&
	       (!strcmp(name, "scalar_to_tensor") || !strcmp(name, "wrapped_scalar_tensor"));
}

/* maybe_get_output(i): the output of a structured kernel, a const Tensor&
 * (at::impl::MetaBase, which a meta function's `*this` and the Meta& its
 * helpers take are; TensorMeta.h, outside the indexed tree). */
static bool structured_output(const char *method)
{
	return !strcmp(method, "maybe_get_output");
}

/* ---- types of expressions ----------------------------------------------------------------- */

struct ck_ctx {
	const ot_callkinds *ck;
	const ot_ix_cdef *d;
	const ot_ix_file *f;
	ot_arena *a;
	size_t at; /* the call's offset: declarations before it count */
	uint32_t pp; /* the preprocessor arm the call sits in, or 0 */
	const ot_ck_subst *subst; /* what template parameters stand for, or NULL */
	int depth;
	/* the function's parameters, read once */
	bool params_read;
	const char *pnames[OT_CK_MAX_ARGS], *ptypes[OT_CK_MAX_ARGS];
	size_t nparams;
};

/* The declared type of parameter `name` of x's function (its parameters
 * read once), or NULL. */
static const char *param_type(struct ck_ctx *x, const char *name)
{
	if (!x->params_read) {
		x->nparams = ot_callkind_params(x->ck->ix, x->d, x->pnames, x->ptypes, OT_CK_MAX_ARGS, x->a);
		x->params_read = true;
	}
	for (size_t i = 0; i < x->nparams; i++)
		if (!strcmp(x->pnames[i], name))
			return x->ptypes[i];
	return NULL;
}

static ot_ty expr_type(struct ck_ctx *x, const char *e);

/* Is the unqualified call whose '(' is at `open` in `e` not the aten op
 * of its name: an argument of a known type other than Tensor and none a
 * Tensor (minimum(maximum(v, kZeroVec), kSixVec) of Vectorized values is
 * vec::minimum, found by argument-dependent lookup)? */
static bool vector_maths(struct ck_ctx *x, const char *e, size_t open)
{
	const char *args[OT_CK_MAX_ARGS];
	int n = split_args(args, OT_CK_MAX_ARGS, x->a, e, open, strlen(e));
	bool other = false;
	for (int i = 0; i < n && i < OT_CK_MAX_ARGS; i++) {
		ot_ty t = expr_type(x, args[i]);
		if (t == OT_TY_TENSOR || t == OT_TY_TENSOR_PTR || t == OT_TY_TENSOR_LIST)
			return false;
		other = other || t == OT_TY_OTHER;
	}
	return other;
}

static const char *expr_class(struct ck_ctx *x, const char *e);

/* What macro parameter `name` of the #define that generated definition d
 * (ONE_HIDDEN_RNN(NAME, CELL)) stands for at its invocation
 * (ONE_HIDDEN_RNN(gru, GRUCell<CellParams>)), or NULL. */
static const char *macro_argument(const struct ck_ctx *x, const ot_ix_cdef *d, const char *name)
{
	const ot_ix_gen *g = d->gen;
	const ot_ix_file *f;
	const char *p;
	size_t n = strlen(name);
	if (!g || g->paster != g->macro || !(f = ot_index_file(x->ck->ix, g->macro->file)) ||
	    !g->macro->line || g->macro->line > f->nlines)
		return NULL;
	/* the parameter list of `#define NAME(a, b)` */
	p = f->text + f->line_off[g->macro->line - 1];
	if (!(p = strchr(p, '(')) || memchr(f->text + f->line_off[g->macro->line - 1], '\n',
					     (size_t)(p - f->text) - f->line_off[g->macro->line - 1]))
		return NULL;
	for (uint16_t k = 0; *p && *p != ')' && *p != '\n'; k++) {
		while (*p == '(' || *p == ',' || *p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, name, n) && !ot_is_ident_char(p[n]))
			return k < g->site->nargs ? g->site->args[k] : NULL;
		while (*p && *p != ',' && *p != ')' && *p != '\n')
			p++;
	}
	return NULL;
}

/* The entry `key` of the substitution, or NULL. */
static const char *subst_get(const struct ck_ctx *x, const char *key)
{
	for (size_t i = 0; x->subst && i < x->subst->n; i++)
		if (!strcmp(x->subst->name[i], key))
			return x->subst->type[i];
	return NULL;
}

/* The class of the object named `name` where x is, as the caller handed it
 * in: a parameter's argument ("@name"), or what a data member of this
 * object refers to ("@this.name"); NULL when not known that way. */
static const char *object_type(struct ck_ctx *x, const char *name)
{
	char key[160];
	const char *t;
	snprintf(key, sizeof(key), "@%s", name);
	if ((t = subst_get(x, key)))
		return t;
	snprintf(key, sizeof(key), "@this.%s", name);
	return subst_get(x, key);
}

/* What template parameter `name` stands for (or the macro parameter of a
 * definition a macro generated), or `name` itself. */
static const char *substituted(const struct ck_ctx *x, const char *name)
{
	const char *m;
	for (size_t i = 0; x->subst && i < x->subst->n; i++)
		if (!strcmp(x->subst->name[i], name))
			return x->subst->type[i];
	if (x->d->gen && (m = macro_argument(x, x->d, name)))
		return m;
	return name;
}


/* ---- classes: members, methods, aliases ------------------------------------------------------ */

static bool followable(const ot_callkinds *ck, const ot_ix_cdef *d);
static const char *fpath(const ot_callkinds *ck, uint32_t file);

/* The class definition d is a member of: its class body's, or the last
 * part of its written qualifier (TensorIteratorBase::build), else NULL. */
static const char *member_class(struct ck_ctx *x, const ot_ix_cdef *d)
{
	const char *q;
	if (d->in_class)
		return d->cls && *d->cls ? d->cls : NULL;
	if (!*d->qual)
		return NULL;
	(void)x;
	q = strrchr(d->qual, ':');
	return q ? q + 1 : d->qual;
}

/* Is definition h a method `name` of class `cls` (defined in its body, or
 * out of it as cls::name)? */
static bool method_of(const ot_ix_cdef *h, const char *cls)
{
	const char *q;
	if (h->in_class)
		return h->cls && !strcmp(h->cls, cls);
	if (!*h->qual)
		return false;
	q = strrchr(h->qual, ':');
	return !strcmp(q ? q + 1 : h->qual, cls);
}

/* The methods `name` of class `cls` ("operator" for operator()). */
static size_t class_methods(struct ck_ctx *x, const char *cls, const char *name, const ot_ix_cdef **out,
			    size_t max)
{
	size_t n = 0, near = 0;
	const char *p = fpath(x->ck, x->d->file), *slash = strrchr(p, '/');
	size_t dir = slash ? (size_t)(slash - p) + 1 : 0;
	for (const ot_ix_cdef *h = ot_index_cdefs(x->ck->ix, name); h && n < max; h = h->next)
		if (h != x->d && (h->kind == OT_CDEF_FUNC) && !h->global && method_of(h, cls) &&
		    followable(x->ck, h))
			out[n++] = h;
	/* a class template and its specializations for other types
	 * (sum_functor<c10::complex<Half>>): the template's own */
	for (size_t i = 0; i < n; i++)
		if (!out[i]->cls_special)
			out[near++] = out[i];
	if (near) {
		n = near;
		near = 0;
	}
	/* one class name in two backends (cudnn/ and miopen/ both define
	 * at::native::TensorDescriptor): the caller's folder's */
	for (size_t i = 0; i < n; i++)
		if (!strncmp(fpath(x->ck, out[i]->file), p, dir) && !strchr(fpath(x->ck, out[i]->file) + dir, '/'))
			out[near++] = out[i];
	return near ? near : n;
}

/* The declaration of kind `kind` named `name` in class `cls` (NULL: at
 * namespace scope), or NULL. */
static const ot_ix_decl *class_decl(struct ck_ctx *x, const char *cls, const char *name, uint8_t kind)
{
	for (const ot_ix_decl *d = ot_index_decls(x->ck->ix, name); d; d = d->next)
		if (d->kind == kind && (cls ? d->cls && !strcmp(d->cls, cls) : !d->cls))
			return d;
	return NULL;
}

/* The type a `using name = T;` in the body of x's function, before the
 * call, gives name, or NULL. */
static const char *local_alias(struct ck_ctx *x, const char *name)
{
	const char *c = x->f->code, *best = NULL;
	size_t n = strlen(name), end = x->at && x->at < x->f->len ? x->at : x->d->body_end;
	if (!x->d->body || x->d->gen)
		return NULL;
	for (const char *u = c + x->d->body; (u = memmem(u, end - (size_t)(u - c), "using", 5)); u += 5) {
		size_t i = (size_t)(u - c), k, e;
		if (ot_is_ident_char(c[i - 1]) || i + 6 + n >= end)
			continue;
		k = skip_ws(c, i + 5, end);
		if (k == i + 5 || strncmp(c + k, name, n) || ot_is_ident_char(c[k + n]))
			continue;
		k = skip_ws(c, k + n, end);
		if (k >= end || c[k] != '=')
			continue;
		for (e = k + 1; e < end && c[e] != ';'; e++)
			;
		best = span(x->a, c, skip_ws(c, k + 1, e), e);
	}
	return best;
}

/* The arithmetic type of a constant declared at file scope before x's
 * function (`constexpr float EPSILON = 1e-12;`), or NULL. */
static const char *file_constant_type(struct ck_ctx *x, const char *name)
{
	static const char *const types[] = {"float", "double", "int64_t", "int", "bool", "size_t"};
	const char *c = x->f->code;
	size_t n = strlen(name), end = x->d->body < x->f->len ? x->d->body : x->f->len;
	for (const char *u = c; (u = memmem(u, end - (size_t)(u - c), name, n)); u += n) {
		size_t i = (size_t)(u - c), k = skip_ws(c, i + n, end), b = i;
		if ((i && ot_is_ident_char(c[i - 1])) || ot_is_ident_char(c[i + n]) || k >= end || c[k] != '=' ||
		    c[k + 1] == '=')
			continue;
		while (b && (c[b - 1] == ' ' || c[b - 1] == '\t'))
			b--;
		for (size_t t = 0; t < OT_ARRAY_LEN(types); t++) {
			size_t tn = strlen(types[t]);
			if (b >= tn && !memcmp(c + b - tn, types[t], tn) && (b == tn || !ot_is_ident_char(c[b - tn - 1])))
				return types[t];
		}
	}
	return NULL;
}

/* `type` as written, without cv-qualifiers, references, pointers,
 * `typename` and the namespaces at::, c10::, std:: (normalize_type), its
 * aliases followed: those of class `cls` first, then those at namespace
 * scope when they agree (hidden_type in GRUCell is Tensor; DimMask is
 * TensorIterator::DimMask). */
static const char *resolve_type(struct ck_ctx *x, const char *cls, const char *type)
{
	char t[256];
	const char *written = type;
	for (int hop = 0; hop < 4; hop++) {
		const ot_ix_decl *a = NULL;
		const char *name, *colon;
		size_t k;
		normalize_type(t, sizeof(t), type);
		if (ot_starts_with(t, "typename"))
			memmove(t, t + 8, strlen(t + 8) + 1);
		if (substituted(x, t) != t) {
			type = substituted(x, t); /* a template parameter where its argument is known */
			continue;
		}
		k = strlen(t);
		if (strchr(t, '<') || (k && t[k - 1] == '*'))
			break; /* a template's instance: its own name */
		colon = strrchr(t, ':');
		name = colon ? colon + 1 : t;
		if (colon && colon - t >= 2) {
			/* Outer::Name: Outer's alias (CellType::hidden_type where
			 * CellType is GRUCell<CellParams>: GRUCell's) */
			char outer[128];
			const char *os;
			snprintf(outer, sizeof(outer), "%s",
				 substituted(x, ot_arena_strndup(x->a, t, (size_t)(colon - 1 - t))));
			outer[strcspn(outer, "<")] = '\0';
			os = strrchr(outer, ':');
			a = class_decl(x, os ? os + 1 : outer, name, OT_DECL_ALIAS);
		} else if (!cls || !(a = class_decl(x, cls, name, OT_DECL_ALIAS))) {
			/* a `using hidden_type = ...;` of the function's own body */
			const char *la = local_alias(x, name);
			if (la) {
				type = la;
				continue;
			}
		}
		if (!a && cls)
			a = class_decl(x, cls, name, OT_DECL_ALIAS);
		if (!a) {
			/* namespace scope: only when every alias of the name agrees */
			for (const ot_ix_decl *d = ot_index_decls(x->ck->ix, name); d; d = d->next) {
				if (d->kind != OT_DECL_ALIAS || d->cls)
					continue;
				if (a && strcmp(a->type, d->type)) {
					a = NULL;
					break;
				}
				a = d;
			}
		}
		if (!a)
			break;
		type = a->type;
	}
	/* nothing followed: the type as written (its readers normalize it) */
	return type == written ? written : ot_arena_strdup(x->a, t);
}

/* The class a type names (its template's name: Cell of Cell<T, U>; the
 * last part of a qualified name), or NULL for a Tensor, a list of them,
 * a built-in type. */
static const char *class_of_type(struct ck_ctx *x, const char *type)
{
	char t[256];
	const char *c;
	size_t lt;
	normalize_type(t, sizeof(t), type);
	lt = strcspn(t, "<*");
	t[lt] = '\0';
	c = strrchr(t, ':');
	if (c && c - t >= 2 && c[-1] == ':') {
		/* Kernel::Params, Gemm::Arguments: a type nested in a class (or in a
		 * template parameter's type) is not any class of that name; only a
		 * namespace's (at::native::Foo) is read by its name */
		const char *q = c - 2;
		while (q > t && ot_is_ident_char(q[-1]))
			q--;
		if (isupper((unsigned char)*q) || ot_index_is_class(x->ck->ix, ot_arena_strndup(x->a, q, (size_t)(c - 1 - q))))
			return NULL;
	}
	c = c ? c + 1 : t;
	if (!*c || !ot_index_is_class(x->ck->ix, c) || ot_callkind_type(type) != OT_TY_OTHER)
		return NULL;
	return ot_arena_strdup(x->a, c);
}

/* The element type of a container type (SmallVector<OperandInfo, 4>,
 * std::vector<T>, ArrayRef<T>, array<T, N>), or NULL. */
/* The first template argument of the first of `names` ("vector<",
 * "optional<") written in `type` as a whole name, or NULL when none is. */
static const char *template_arg(struct ck_ctx *x, const char *type, const char *const *names, size_t n)
{
	for (size_t i = 0; type && i < n; i++) {
		const char *p = strstr(type, names[i]);
		size_t s, e;
		int depth = 0;
		if (!p || (p > type && ot_is_ident_char(p[-1])))
			continue;
		s = (size_t)(p - type) + strlen(names[i]);
		for (e = s; type[e]; e++) {
			if (type[e] == '<')
				depth++;
			else if (type[e] == '>' && depth-- == 0)
				break;
			else if (type[e] == ',' && depth == 0)
				break;
		}
		return ot_arena_strndup(x->a, type + s, e - s);
	}
	return NULL;
}

static const char *element_type(struct ck_ctx *x, const char *type)
{
	static const char *const containers[] = {"SmallVector<", "vector<", "ArrayRef<", "array<",
						 "List<", "deque<", "OptionalArrayRef<"};
	return template_arg(x, type, containers, OT_ARRAY_LEN(containers));
}

/* The return type of definition h as written before its name (template
 * headers, storage and inline specifiers, export macros left out), or
 * NULL when it cannot be read. */
static const char *return_type(struct ck_ctx *x, const ot_ix_cdef *h)
{
	static const char *const skip[] = {"static", "inline", "virtual", "constexpr", "explicit",
					   "friend", "extern", "C10_ALWAYS_INLINE", "C10_HOST_DEVICE",
					   "C10_DEVICE", "TORCH_API", "__host__", "__device__",
					   "__forceinline__", "[[nodiscard]]", "[[maybe_unused]]"};
	const ot_ix_file *f = ot_index_file(x->ck->ix, h->file);
	const char *c;
	size_t name, s, lo, n = strlen(h->name);
	char *t;
	if (!f || h->gen || !h->line || h->line > f->nlines)
		return NULL;
	c = f->code;
	lo = h->line > 4 ? f->line_off[h->line - 5] : 0;
	for (name = f->line_off[h->line - 1]; c[name]; name++)
		if (!memcmp(c + name, h->name, n) && !ot_is_ident_char(c[name + n]) &&
		    (name == 0 || !ot_is_ident_char(c[name - 1])))
			break;
	if (!c[name])
		return NULL;
	/* back over a qualifier (Foo<T>::name) */
	s = back_ws(c, lo, name);
	while (s >= 2 && c[s - 1] == ':' && c[s - 2] == ':') {
		s = back_ws(c, lo, s - 2);
		if (s && c[s - 1] == '>') {
			size_t m = match_bracket(c, lo, name, s - 1);
			if (m == (size_t)-1)
				return NULL;
			s = m;
		}
		while (s > lo && ot_is_ident_char(c[s - 1]))
			s--;
		s = back_ws(c, lo, s);
	}
	name = s;
	/* back to the start of the head: ; { } or an access specifier's : */
	while (s > lo && c[s - 1] != ';' && c[s - 1] != '{' && c[s - 1] != '}' &&
	       !(c[s - 1] == ':' && (s < 2 || c[s - 2] != ':') && c[s] != ':'))
		s--;
	t = (char *)span(x->a, c, s, name);
	/* template <...> headers */
	while (*t == ' ')
		t++;
	while (ot_starts_with(t, "template")) {
		char *open = strchr(t, '<');
		int depth = 0;
		if (!open)
			return NULL;
		for (t = open; *t; t++)
			if (*t == '<')
				depth++;
			else if (*t == '>' && --depth == 0)
				break;
		if (!*t)
			return NULL;
		t++;
		while (*t == ' ')
			t++;
	}
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < OT_ARRAY_LEN(skip); i++) {
			size_t k = strlen(skip[i]);
			if (!strncmp(t, skip[i], k) && (t[k] == ' ' || !t[k])) {
				t += k;
				while (*t == ' ')
					t++;
				again = true;
			}
		}
	}
	return *t ? t : NULL;
}

/* The type of member `name` of class `cls`: a data member's declared
 * type, else NULL. */
static const char *member_type(struct ck_ctx *x, const char *cls, const char *name)
{
	const ot_ix_decl *d = class_decl(x, cls, name, OT_DECL_MEMBER);
	return d ? resolve_type(x, cls, d->type) : NULL;
}

static int split_tparams(const char **out, size_t max, ot_arena *a, const char *c, size_t open, size_t hi);
static const ot_reg_func *fit_overload(struct ck_ctx *x, const char *op, bool out_call,
				       const char *const *args, size_t nargs, bool method);
static const char *helper_type(struct ck_ctx *x, const char *qual, const char *name);

/* `type` resolved through and through: its template's name and each of its
 * template arguments (LayerT<hidden_type,cell_params> in _rnn_impl is
 * FullLayer<Tensor,CellParams>). */
static const char *resolve_deep(struct ck_ctx *x, const char *type)
{
	const char *lt = strchr(type, '<'), *args[OT_CK_MAX_SUBST];
	char *out;
	size_t len;
	int n;
	if (!lt)
		return resolve_type(x, member_class(x, x->d), type);
	n = split_tparams(args, OT_CK_MAX_SUBST, x->a, type, (size_t)(lt - type), strlen(type));
	if (n < 0)
		return type;
	{
		char name[160];
		size_t k = (size_t)(lt - type);
		while (k && type[k - 1] == ' ')
			k--;
		snprintf(name, sizeof(name), "%.*s", (int)k, type);
		out = ot_arena_printf(x->a, "%s<", substituted(x, name));
	}
	for (int i = 0; i < n; i++)
		out = ot_arena_printf(x->a, "%s%s%s", out, i ? "," : "", resolve_deep(x, args[i]));
	len = strlen(out);
	(void)len;
	return ot_arena_printf(x->a, "%s>", out);
}

/* Is `name` (a callee as written, template arguments left out) a class:
 * one with a constructor, members or methods of its own, or a type no
 * function has (type_named)? */
static bool type_named(struct ck_ctx *x, const char *name);

static const char *method_type(struct ck_ctx *x, const char *cls, const char *name);

static bool is_class(struct ck_ctx *x, const char *name)
{
	const ot_ix_cdef *d;
	for (d = ot_index_cdefs(x->ck->ix, name); d; d = d->next)
		if (d->in_class && d->cls && !strcmp(d->cls, name))
			return true;
	return type_named(x, name);
}

/* What `*x` gives for an `x` of type `t`: the value of an optional
 * (`*opt_dtype` of a std::optional<ScalarType> is a ScalarType) or of a
 * MaybeOwned; else `t` (a pointer's type is written without its '*'). */
static const char *deref_type(struct ck_ctx *x, const char *t)
{
	static const char *const holders[] = {"optional<", "MaybeOwned<"};
	const char *held = template_arg(x, t, holders, OT_ARRAY_LEN(holders));
	return held ? held : t;
}

/* The type of what expression `e` gives, as its declarations write it
 * (aliases followed), when it is a local, a parameter, a data member, a
 * method's result, a construction or an element of one of those; NULL
 * when not known. */
static const char *expr_typestr(struct ck_ctx *x, const char *e)
{
	const char *cls = member_class(x, x->d), *t = NULL;
	size_t n = strlen(e);
	if (!n || x->depth > 8)
		return NULL;
	x->depth++;
	if (ot_starts_with(e, "std::move(") && e[n - 1] == ')') {
		t = expr_typestr(x, ot_arena_strndup(x->a, e + 10, n - 11));
	} else if (e[0] == '&') {
		t = expr_typestr(x, e + 1);
	} else if (e[0] == '*') {
		t = deref_type(x, expr_typestr(x, e + 1));
	} else if (e[0] == '(' && match_bracket(e, 0, n, 0) == n - 1) {
		t = expr_typestr(x, ot_arena_strndup(x->a, e + 1, n - 2));
	} else if (e[n - 1] == ')' || e[n - 1] == '}' || e[n - 1] == ']') {
		size_t open = match_bracket(e, 0, n, n - 1), ce, ms;
		char *callee;
		if (open == (size_t)-1 || open == 0)
			goto out;
		ce = back_ws(e, 0, open);
		callee = ot_arena_strndup(x->a, e, ce);
		if (e[n - 1] == ']') {
			const char *bt = expr_typestr(x, callee);
			t = bt ? element_type(x, bt) : NULL;
			goto out;
		}
		/* a template's arguments: Foo<T>(...) */
		ms = ce;
		if (ms && e[ms - 1] == '>') {
			size_t m = match_bracket(e, 0, ce, ms - 1);
			if (m == (size_t)-1)
				goto out;
			ms = back_ws(e, 0, m);
		}
		{
			size_t ns = ms;
			while (ns && ot_is_ident_char(e[ns - 1]))
				ns--;
			if (ns == ms)
				goto out;
			if (ns >= 1 && e[ns - 1] == '.' && e[n - 1] == ')') {
				const char *bc = expr_class(x, ot_arena_strndup(x->a, e, ns - 1));
				t = bc ? method_type(x, bc, ot_arena_strndup(x->a, e + ns, ms - ns)) : NULL;
			} else if (ns >= 2 && e[ns - 1] == '>' && e[ns - 2] == '-' && e[n - 1] == ')') {
				const char *bc = expr_class(x, ot_arena_strndup(x->a, e, ns - 2));
				t = bc ? method_type(x, bc, ot_arena_strndup(x->a, e + ns, ms - ns)) : NULL;
			} else if (is_class(x, substituted(x, ot_arena_strndup(x->a, e + ns, ms - ns)))) {
				t = resolve_deep(x, callee); /* Foo(a, b), Foo<T>{}: a Foo made */
			} else if (e[n - 1] == ')') {
				/* a helper: what it returns (gather_params gives a
				 * std::vector<CellParams>) */
				t = helper_type(x, ot_arena_strndup(x->a, e, ns), ot_arena_strndup(x->a, e + ns, ms - ns));
			}
		}
	} else {
		/* a name: a, this->a, a.b, a->b */
		size_t s = n;
		while (s && ot_is_ident_char(e[s - 1]))
			s--;
		if (s == n) {
			goto out;
		} else if (s == 0) {
			const char *init, *range, *type = local_type(x->ck, x->f->code, x->d, x->at, e, &init, &range);
			if (!type && (t = object_type(x, e)))
				; /* handed in by the caller: its argument's class */
			else if (type && ot_callkind_type(type) == OT_TY_AUTO) {
				if (range) {
					const char *rt = expr_typestr(x, range);
					t = rt ? element_type(x, rt) : NULL;
				} else if (init) {
					t = expr_typestr(x, init);
				}
			} else if (type) {
				t = type;
			} else {
				t = param_type(x, e);
				if (!t && cls)
					t = member_type(x, cls, e);
			}
		} else if (s == 6 && !strncmp(e, "this->", 6)) {
			t = cls ? member_type(x, cls, e + 6) : NULL;
		} else if (e[s - 1] == '.' || (s >= 2 && e[s - 1] == '>' && e[s - 2] == '-')) {
			size_t b = e[s - 1] == '.' ? s - 1 : s - 2;
			const char *bc = expr_class(x, ot_arena_strndup(x->a, e, b));
			t = bc ? member_type(x, bc, e + s) : NULL;
		}
	}
out:
	x->depth--;
	return t ? resolve_type(x, cls, t) : NULL;
}

static const char *expr_class(struct ck_ctx *x, const char *e)
{
	const char *t = expr_typestr(x, e);
	return t ? class_of_type(x, t) : NULL;
}

static size_t find_helpers(struct ck_ctx *x, const char *qual, const char *name,
			   const ot_ix_cdef **out, size_t max);

/* What free function `qual::name` (qual as written before the name, "::"
 * included, or "") returns where x is, when the helpers of that name it
 * binds agree; NULL when not known. */
static const char *helper_type(struct ck_ctx *x, const char *qual, const char *name)
{
	const ot_ix_cdef *defs[4];
	const char *t = NULL;
	char q[256];
	size_t n, k;
	snprintf(q, sizeof(q), "%s", qual);
	k = strlen(q);
	if (k > 2 && q[k - 1] == ':' && q[k - 2] == ':')
		q[k - 2] = '\0'; /* at::native:: is the qualifier at::native; :: stays the global namespace */
	n = find_helpers(x, q, name, defs, OT_ARRAY_LEN(defs));
	for (size_t i = 0; i < n; i++) {
		const char *r = return_type(x, defs[i]);
		if (!r || (t && strcmp(t, r)))
			return NULL;
		t = r;
	}
	return t ? resolve_type(x, member_class(x, x->d), t) : NULL;
}

/* The return type of method `name` of class `cls`, resolved, or NULL. */
static const char *method_type(struct ck_ctx *x, const char *cls, const char *name)
{
	const ot_ix_cdef *defs[OT_CK_MAX_DEFS];
	const char *t;
	size_t n = class_methods(x, cls, name, defs, OT_CK_MAX_DEFS);
	if (!n || !(t = return_type(x, defs[0])))
		return NULL;
	return resolve_type(x, cls, t);
}

/* What one overload returns, as a C++ caller holds it: one Tensor (a
 * view's Tensor(a) too), a list of them (unsafe_chunk's Tensor[]), or
 * something else. */
static ot_ty schema_result(const ot_reg_schema *s)
{
	const char *t;
	if (s->nreturns != 1 || !ot_starts_with((t = s->returns[0].type), "Tensor"))
		return OT_TY_OTHER;
	if (strstr(t, "[]"))
		return OT_TY_TENSOR_LIST;
	return !t[6] || t[6] == '(' ? OT_TY_TENSOR : OT_TY_OTHER;
}

/* What op `name` returns: its first functional overload's type. */
static ot_ty op_result(const ot_registry *reg, const char *name)
{
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(reg, name, &n);
	for (size_t i = 0; i < n; i++)
		if (!ov[i]->schema.is_out)
			return schema_result(&ov[i]->schema);
	return OT_TY_OTHER;
}

/* When op `op`'s overloads return different types (at::max(a, b) and
 * x.max() a Tensor, x.max(1) a tuple), *t is what the overload the
 * arguments of call `e` (its list opening at `open`) take returns. */
static bool fitted_result(struct ck_ctx *x, const char *op, const char *e, size_t open, bool method, ot_ty *t);

/* Do op `name`'s functional overloads all return one type? */
static bool op_result_one(const ot_registry *reg, const char *name)
{
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(reg, name, &n);
	ot_ty first = op_result(reg, name);
	for (size_t i = 0; i < n; i++)
		if (!ov[i]->schema.is_out && schema_result(&ov[i]->schema) != first)
			return false;
	return true;
}

/* The type of an element of the tuple call `e` returns: a Tensor for an
 * op returning several Tensors (at::max(x, 1), x.sort()), a
 * MaybeOwned<Tensor> for expand_outplace (ExpandUtils.h, outside the
 * indexed tree); UNKNOWN otherwise. */
static ot_ty tuple_element_type(struct ck_ctx *x, const char *e)
{
	size_t n = strlen(e), open, s;
	const char *name, *op;
	const ot_reg_func *const *ov;
	bool out;
	size_t nov;
	if (!n || e[n - 1] != ')' || (open = match_bracket(e, 0, n, n - 1)) == (size_t)-1 || !open)
		return OT_TY_UNKNOWN;
	for (s = open; s && ot_is_ident_char(e[s - 1]); s--)
		;
	name = ot_arena_strndup(x->a, e + s, open - s);
	if (!strcmp(name, "expand_outplace"))
		return OT_TY_TENSOR_PTR;
	if (!(op = op_of_name(x->ck->reg, x->a, name, &out)) || out ||
	    !(ov = ot_registry_overloads(x->ck->reg, op, &nov)))
		return OT_TY_UNKNOWN;
	/* std::get compiles only on an overload returning a tuple */
	for (size_t i = 0; i < nov; i++) {
		const ot_reg_schema *sc = &ov[i]->schema;
		bool all = sc->nreturns > 1 && !sc->is_out;
		for (size_t r = 0; r < sc->nreturns && all; r++)
			all = ot_starts_with(sc->returns[r].type, "Tensor") && !strstr(sc->returns[r].type, "[]");
		if (all)
			return OT_TY_TENSOR;
	}
	return OT_TY_UNKNOWN;
}

static ot_ty name_type(struct ck_ctx *x, const char *name)
{
	const char *init, *range, *type;
	if (!strcmp(name, "this"))
		return OT_TY_OTHER;
	type = local_type(x->ck, x->f->code, x->d, x->at, name, &init, &range);
	if (!type) {
		const char *pt = param_type(x, name);
		if (pt)
			return ot_callkind_type(resolve_type(x, member_class(x, x->d), pt));
	}
	if (!type) {
		/* a data member of the class the function is a method of */
		const char *cls = member_class(x, x->d), *mt = cls ? member_type(x, cls, name) : NULL;
		return mt ? ot_callkind_type(mt) : OT_TY_UNKNOWN;
	}
	{
		ot_ty t = ot_callkind_type(resolve_type(x, member_class(x, x->d), type));
		if (t != OT_TY_AUTO || x->depth > 4)
			return t == OT_TY_AUTO ? OT_TY_UNKNOWN : t;
		x->depth++;
		if (range) {
			ot_ty r = expr_type(x, range);
			const char *rt = r == OT_TY_OTHER ? expr_typestr(x, range) : NULL, *et;
			t = r == OT_TY_TENSOR_LIST ? OT_TY_TENSOR : r == OT_TY_UNKNOWN ? OT_TY_UNKNOWN : OT_TY_OTHER;
			/* for (auto& op : operands_): the element type of the container */
			if (rt && (et = element_type(x, rt)))
				t = ot_callkind_type(et);
		} else if (init) {
			t = expr_type(x, init);
			/* auto& x = *ptr */
		} else {
			t = OT_TY_UNKNOWN;
		}
		x->depth--;
		return t;
	}
}

/* Is there a binary operator at offset i of e (n long): an arithmetic one
 * or a comparison after an operand, at the top level? *len is its length;
 * *logical is set for && and ||. A < or > counts only with a blank on each
 * side (a template's brackets have none). */
static bool binary_at(const char *e, size_t n, size_t i, size_t *len, bool *logical)
{
	char ch = e[i], nx = i + 1 < n ? e[i + 1] : '\0';
	size_t p = i;
	*logical = false;
	*len = 1;
	while (p && isspace((unsigned char)e[p - 1]))
		p--;
	if (!p || !(ot_is_ident_char(e[p - 1]) || e[p - 1] == ')' || e[p - 1] == ']'))
		return false; /* unary, or part of an operator already read */
	if ((ch == '&' && nx == '&') || (ch == '|' && nx == '|')) {
		*logical = true;
		*len = 2;
		return true;
	}
	if ((ch == '=' || ch == '!' || ch == '<' || ch == '>') && nx == '=') {
		*len = 2;
		return true;
	}
	if (ch == '<' || ch == '>')
		return p < i && i + 1 < n && isspace((unsigned char)nx) && nx != ch;
	if (ch == '-' && nx == '>')
		return false;
	if ((ch == '+' || ch == '-') && nx == ch)
		return false;
	return (ch == '+' || ch == '-' || ch == '*' || ch == '/' || ch == '%') && nx != '=';
}

/* An expression of binary operators (a * b + c, x <= y): a Tensor when
 * an operand is one (TensorOperators.h), a bool or number when every
 * operand is something else; && and || give a bool. False when `e` is not
 * such an expression. */
static bool binary_type(struct ck_ctx *x, const char *e, size_t n, ot_ty *out)
{
	size_t starts[16], ends[16], nterms = 0, s = 0, len;
	int level = 0;
	bool logical, any_unknown = false;
	for (size_t i = 0; i < n; i++) {
		char ch = e[i];
		if (ch == '(' || ch == '[' || ch == '{')
			level++;
		else if (ch == ')' || ch == ']' || ch == '}')
			level--;
		else if (!level && strchr("+-*/%=!<>&|", ch) && binary_at(e, n, i, &len, &logical)) {
			if (logical) {
				*out = OT_TY_OTHER;
				return true;
			}
			if (nterms == OT_ARRAY_LEN(starts) - 1)
				return false;
			starts[nterms] = s;
			ends[nterms++] = i;
			s = i + len;
			i += len - 1;
		} else if (!level && (ch == '=' || ch == ',' || ch == ';')) {
			return false; /* an assignment or a list: not one value */
		}
	}
	if (!nterms)
		return false;
	starts[nterms] = s;
	ends[nterms++] = n;
	for (size_t k = 0; k < nterms; k++) {
		ot_ty t = expr_type(x, ot_arena_strndup(x->a, e + starts[k], ends[k] - starts[k]));
		if (t == OT_TY_TENSOR) {
			*out = OT_TY_TENSOR;
			return true;
		}
		if (t == OT_TY_UNKNOWN || t == OT_TY_AUTO || t == OT_TY_TENSOR_PTR)
			any_unknown = true;
	}
	*out = any_unknown ? OT_TY_UNKNOWN : OT_TY_OTHER;
	return true;
}

/* A TensorIterator method that gives one of its operands. */
static bool iter_tensor_method(const char *m)
{
	static const char *const methods[] = {"output", "input", "tensor", "output_base", "input_base",
					      "tensor_base"};
	for (size_t i = 0; i < OT_ARRAY_LEN(methods); i++)
		if (!strcmp(m, methods[i]))
			return true;
	return false;
}

/* The type of the expression `e` as written. */
/* Is `name`, called as name(...), a type (a functional cast or a
 * construction): a CamelCase name that no function of the tree and no op
 * has? */
static bool type_named(struct ck_ctx *x, const char *name)
{
	bool lower = false;
	size_t n;
	if (!isupper((unsigned char)name[0]) || ot_registry_overloads(x->ck->reg, name, &n))
		return false;
	for (const char *p = name; *p; p++)
		lower = lower || islower((unsigned char)*p);
	/* a function of that name, other than the type's own constructor */
	for (const ot_ix_cdef *d = ot_index_cdefs(x->ck->ix, name); d; d = d->next)
		if (!d->in_class || !d->cls || strcmp(d->cls, name))
			return false;
	return lower;
}

static ot_ty expr_type(struct ck_ctx *x, const char *e)
{
	size_t n = strlen(e);
	while (n && isspace((unsigned char)e[n - 1]))
		n--;
	while (n && isspace((unsigned char)*e)) {
		e++;
		n--;
	}
	if (!n || x->depth > 6)
		return OT_TY_UNKNOWN;
	if (ot_starts_with(e, "std::move(") && e[n - 1] == ')') {
		char *in = ot_arena_strndup(x->a, e + 10, n - 11);
		return expr_type(x, in);
	}
	{
		/* cond ? a : b: the type both arms have */
		size_t q = 0, colon = 0;
		int level = 0;
		for (size_t i = 0; i < n && !colon; i++) {
			char ch = e[i];
			if (ch == '(' || ch == '[' || ch == '{')
				level++;
			else if (ch == ')' || ch == ']' || ch == '}')
				level--;
			else if (!level && ch == '?' && !q)
				q = i;
			else if (!level && q && ch == ':' && e[i + 1] != ':' && (i == 0 || e[i - 1] != ':'))
				colon = i;
		}
		if (q && colon) {
			ot_ty a = expr_type(x, ot_arena_strndup(x->a, e + q + 1, colon - q - 1));
			ot_ty b = expr_type(x, ot_arena_strndup(x->a, e + colon + 1, n - colon - 1));
			/* both arms have one type: an unknown one takes the other's */
			return a == b || b == OT_TY_UNKNOWN ? a : a == OT_TY_UNKNOWN ? b : OT_TY_UNKNOWN;
		}
	}
	{
		ot_ty t;
		if (binary_type(x, e, n, &t))
			return t;
	}
	/* a number (after the operators: 1 - target is a Tensor) */
	if (isdigit((unsigned char)e[0]) || (e[0] == '.' && n > 1 && isdigit((unsigned char)e[1])))
		return OT_TY_OTHER;
	if (e[0] == '-' && n > 1 && e[1] != '-' && e[1] != '>') {
		/* -x: a Tensor's neg is a Tensor, a number's negation a number */
		ot_ty t = expr_type(x, ot_arena_strndup(x->a, e + 1, n - 1));
		return t == OT_TY_TENSOR || t == OT_TY_UNKNOWN ? t : OT_TY_OTHER;
	}
	if (e[0] == '*' || e[0] == '&') {
		ot_ty t = expr_type(x, ot_arena_strndup(x->a, e + 1, n - 1));
		if (e[0] == '&')
			return t == OT_TY_TENSOR ? OT_TY_TENSOR_PTR : OT_TY_UNKNOWN;
		return t == OT_TY_TENSOR_PTR ? OT_TY_TENSOR : t == OT_TY_UNKNOWN ? OT_TY_UNKNOWN : OT_TY_OTHER;
	}
	if (e[0] == '(') {
		size_t m = match_bracket(e, 0, n, 0);
		if (m == n - 1)
			return expr_type(x, ot_arena_strndup(x->a, e + 1, n - 2));
	}
	if (e[n - 1] == ')' || e[n - 1] == ']') {
		size_t open = match_bracket(e, 0, n, n - 1);
		size_t ce;
		const char *callee;
		if (open == (size_t)-1 || open == 0)
			return OT_TY_UNKNOWN;
		ce = back_ws(e, 0, open);
		if (ce && e[ce - 1] == '>') { /* templated: f<T>(...) */
			size_t close = ce - 1, t = match_bracket(e, 0, ce, close);
			if (t == (size_t)-1)
				return OT_TY_UNKNOWN;
			ce = back_ws(e, 0, t);
			if ((ce == 10 && !strncmp(e, "const_cast", 10)) || (ce == 11 && !strncmp(e, "static_cast", 11)))
				/* const_cast<Tensor&>(out): the type it names */
				return ot_callkind_type(ot_arena_strndup(x->a, e + t + 1, close - t - 1));
			if ((ce == 8 && !strncmp(e, "std::get", 8)) || (ce == 3 && !strncmp(e, "get", 3)))
				/* std::get<1>(at::max(x, 1)): an element of what a call returns */
				return tuple_element_type(x, ot_arena_strndup(x->a, e + open + 1, n - open - 2));
		}
		callee = ot_arena_strndup(x->a, e, ce);
		if (e[n - 1] == ']') {
			/* a list's element; a Tensor's x[i] (Tensor::operator[]) a Tensor */
			ot_ty ct = expr_type(x, callee);
			return ct == OT_TY_TENSOR_LIST || ct == OT_TY_TENSOR ? OT_TY_TENSOR : OT_TY_UNKNOWN;
		}
		{
			/* base.method(...) / base->method(...) / ns::f(...) */
			size_t k = strlen(callee), ms;
			const char *method;
			bool arrow = false;
			ms = k;
			while (ms && ot_is_ident_char(callee[ms - 1]))
				ms--;
			if (ms == k)
				return OT_TY_UNKNOWN;
			method = callee + ms;
			if (ms >= 1 && callee[ms - 1] == '.') {
				ot_ty bt = expr_type(x, ot_arena_strndup(x->a, callee, ms - 1));
				if (bt == OT_TY_TENSOR_PTR && (!strcmp(method, "value") || !strcmp(method, "get")))
					return OT_TY_TENSOR;
				if (!strcmp(method, "get")) {
					/* tensor_refs[i].get(), of a std::reference_wrapper<const Tensor>:
					 * what it refers to */
					static const char *const wrapper[] = {"reference_wrapper<"};
					const char *ref = template_arg(
						x, expr_typestr(x, ot_arena_strndup(x->a, callee, ms - 1)), wrapper, 1);
					if (ref)
						return ot_callkind_type(ref);
				}
				if (bt == OT_TY_TENSOR_ITER)
					return iter_tensor_method(method) ? OT_TY_TENSOR : OT_TY_OTHER;
				if (structured_output(method))
					return OT_TY_TENSOR;
				if (bt != OT_TY_TENSOR) {
					/* a method of a class of the tree: what it returns */
					const char *bc = expr_class(x, ot_arena_strndup(x->a, callee, ms - 1));
					const char *rt = bc ? method_type(x, bc, method) : NULL;
					if (rt)
						return ot_callkind_type(rt);
					return bt == OT_TY_UNKNOWN ? OT_TY_UNKNOWN : OT_TY_OTHER;
				}
			} else if (ms >= 2 && callee[ms - 1] == '>' && callee[ms - 2] == '-') {
				ot_ty bt = expr_type(x, ot_arena_strndup(x->a, callee, ms - 2));
				arrow = true;
				if (bt != OT_TY_TENSOR_PTR)
					return bt == OT_TY_UNKNOWN ? OT_TY_UNKNOWN : OT_TY_OTHER;
			} else {
				/* a free function: at::x, at::native::x, x */
				const char *q = ot_arena_strndup(x->a, callee, ms);
				if (strstr(callee, "MaybeOwned") && (!strcmp(method, "borrowed") || !strcmp(method, "owned")))
					return OT_TY_TENSOR_PTR;
				if (!*q || !strcmp(q, "at::") || !strcmp(q, "::at::") || !strcmp(q, "at::native::") ||
				    !strcmp(q, "native::")) {
					bool out_call;
					const char *op = op_of_name(x->ck->reg, x->a, method, &out_call);
					ot_ty ft;
					if (op && !*q && vector_maths(x, e, open))
						return OT_TY_OTHER;
					if (op && !out_call && fitted_result(x, op, e, open, false, &ft))
						return ft;
					if (op && (out_call || op_result(x->ck->reg, op) != OT_TY_OTHER))
						return out_call ? OT_TY_TENSOR : op_result(x->ck->reg, op);
				}
				if (!strcmp(method, "expect_contiguous") || !strcmp(method, "borrow_from_optional_tensor"))
					return OT_TY_TENSOR_PTR;
				if ((!*q && structured_output(method)) || outside_tensor_function(q, method))
					return OT_TY_TENSOR;
				if (type_named(x, method))
					/* IntArrayRef(x.sizes()), DimMask(): a value of that type made */
					return !strcmp(method, "Tensor") || !strcmp(method, "TensorBase") ? OT_TY_TENSOR
													   : OT_TY_OTHER;
				{
					/* Vec::loadu(...), Vectorized<float>::blendv(...): a static
					 * member of a type other than Tensor */
					size_t qe = ms >= 2 ? ms - 2 : 0, qs = qe;
					while (qs && (ot_is_ident_char(callee[qs - 1]) || callee[qs - 1] == '<' ||
						      callee[qs - 1] == '>' || callee[qs - 1] == ' ' || callee[qs - 1] == ','))
						qs--;
					if (qe > qs && isupper((unsigned char)callee[qs]) &&
					    strncmp(callee + qs, "Tensor", 6) && strncmp(callee + qs, "MaybeOwned", 10))
						return OT_TY_OTHER;
				}
				{
					/* a helper of the tree: what it returns
					 * (wrapped_scalar_tensor(s) is a Tensor) */
					const char *rt = helper_type(x, q, method);
					ot_ty t = rt ? ot_callkind_type(rt) : OT_TY_UNKNOWN;
					return t == OT_TY_AUTO ? OT_TY_UNKNOWN : t;
				}
			}
			(void)arrow;
			if (!strcmp(method, "expect_contiguous") || !strcmp(method, "expect_resolved_conj"))
				return OT_TY_TENSOR_PTR;
			{
				/* x.new_zeros_symint(...): the C++ method of op new_zeros;
				 * x.max() is max's Tensor, x.max(1) max.dim's tuple */
				bool out_call;
				const char *op = op_of_name(x->ck->reg, x->a, method, &out_call);
				ot_ty ft;
				if (op && !out_call && has_variant(x->ck->reg, op, true))
					return fitted_result(x, op, e, open, true, &ft) ? ft : op_result(x->ck->reg, op);
			}
			return OT_TY_OTHER;
		}
	}
	/* a name, possibly qualified or a member: a, this->a, a.b */
	{
		size_t s = n;
		while (s && ot_is_ident_char(e[s - 1]))
			s--;
		if (s == 0)
			return name_type(x, ot_arena_strndup(x->a, e, n));
		{
			/* this->a, a.b, a->b: a data member's declared type */
			const char *t = expr_typestr(x, e);
			return t ? ot_callkind_type(t) : OT_TY_UNKNOWN;
		}
	}
}

/* ---- the receiver of a member call ------------------------------------------------------------ */

/* The start of the postfix expression (names, ::, ., ->, calls, indexes,
 * template arguments) that ends at `e`, not below `lo`. */
/* Is [s, e) a keyword that an expression may follow (return, throw, ...)? */
static bool keyword_at(const char *c, size_t s, size_t e)
{
	static const char *const words[] = {"return", "co_return", "co_yield", "throw", "case", "else",
					    "do", "and", "or", "not", "new", "delete", "sizeof"};
	for (size_t i = 0; i < OT_ARRAY_LEN(words); i++)
		if (e - s == strlen(words[i]) && !memcmp(c + s, words[i], e - s))
			return true;
	return false;
}

static size_t postfix_start(const char *c, size_t lo, size_t e, size_t at)
{
	size_t i = e;
	for (;;) {
		i = back_ws(c, lo, i);
		if (i <= lo)
			break;
		if (c[i - 1] == ')' || c[i - 1] == ']') {
			size_t m = match_bracket(c, lo, at, i - 1);
			if (m == (size_t)-1)
				return e;
			i = m;
			/* (expr) alone, or a call/index: the name before goes on,
			 * unless it is a keyword (return (a - b).mul_(c)) */
			if (back_ws(c, lo, i) > lo && ot_is_ident_char(c[back_ws(c, lo, i) - 1])) {
				size_t we = back_ws(c, lo, i), ws = we;
				while (ws > lo && ot_is_ident_char(c[ws - 1]))
					ws--;
				if (keyword_at(c, ws, we))
					break;
				i = we;
				continue;
			}
			if (back_ws(c, lo, i) > lo && c[back_ws(c, lo, i) - 1] == '>') {
				/* f<T>(...) */
				size_t t = match_bracket(c, lo, at, back_ws(c, lo, i) - 1);
				if (t != (size_t)-1) {
					i = t;
					continue;
				}
			}
			break;
		}
		if (ot_is_ident_char(c[i - 1])) {
			while (i > lo && ot_is_ident_char(c[i - 1]))
				i--;
			{
				size_t b = back_ws(c, lo, i);
				if (b >= lo + 2 && c[b - 1] == ':' && c[b - 2] == ':') {
					i = b - 2;
					continue;
				}
				if (b >= lo + 1 && c[b - 1] == '.') {
					i = b - 1;
					continue;
				}
				if (b >= lo + 2 && c[b - 1] == '>' && c[b - 2] == '-') {
					i = b - 2;
					continue;
				}
			}
			break;
		}
		break;
	}
	return i;
}

/* The receiver expression before the '.' or '->' that precedes the name at
 * `at`: [*rs, *re). Returns false when there is none. */
static bool receiver(const char *c, size_t lo, size_t at, size_t *rs, size_t *re, bool *arrow)
{
	size_t e = back_ws(c, lo, at);
	if (e >= lo + 1 && c[e - 1] == '.') {
		*arrow = false;
		e--;
	} else if (e >= lo + 2 && c[e - 1] == '>' && c[e - 2] == '-') {
		*arrow = true;
		e -= 2;
	} else {
		return false;
	}
	*re = e = back_ws(c, lo, e);
	*rs = postfix_start(c, lo, e, at);
	return *rs < *re;
}

/* The unary-prefixed postfix expression from `from` on: *rs and *re. */
static bool operand_after(const char *c, size_t lo, size_t hi, size_t from, size_t *rs, size_t *re)
{
	size_t i = *rs = skip_ws(c, from, hi);
	while (i < hi && (c[i] == '-' || c[i] == '*' || c[i] == '&' || c[i] == '!'))
		i = skip_ws(c, i + 1, hi);
	if (i < hi && c[i] == '(') {
		size_t m = match_bracket(c, lo, hi, i);
		if (m == (size_t)-1)
			return false;
		i = m + 1;
	} else if (i < hi && (isdigit((unsigned char)c[i]) || (c[i] == '.' && i + 1 < hi && isdigit((unsigned char)c[i + 1])))) {
		/* a number: 1.5, 1e-5, 2.0f (not 1 of 1.5 * x) */
		while (i < hi && (ot_is_ident_char(c[i]) || c[i] == '.' ||
				  ((c[i] == '-' || c[i] == '+') && (c[i - 1] == 'e' || c[i - 1] == 'E'))))
			i++;
		*re = i;
		return true;
	}
	for (;;) {
		while (i < hi && ot_is_ident_char(c[i]))
			i++;
		if (i < hi && (c[i] == '(' || c[i] == '[')) {
			size_t m = match_bracket(c, lo, hi, i);
			if (m == (size_t)-1)
				return false;
			i = m + 1;
			continue;
		}
		if (i + 1 < hi && ((c[i] == ':' && c[i + 1] == ':') || (c[i] == '-' && c[i + 1] == '>'))) {
			i += 2;
			continue;
		}
		if (i < hi && c[i] == '.' && i + 1 < hi && !isdigit((unsigned char)c[i + 1])) {
			i++;
			continue;
		}
		break;
	}
	*re = i;
	return *rs < *re;
}

/* How tightly the binary operator at c[i] binds (3: * / %, 2: + -, 1: a
 * comparison), its length in *len; 0 when there is none (a compound
 * assignment, ++, --, ->, &&, || are none). */
static int binop_level(const char *c, size_t i, size_t hi, size_t *len)
{
	char a = c[i], b = i + 1 < hi ? c[i + 1] : '\0';
	*len = 1;
	if ((a == '*' || a == '/' || a == '%') && b != '=')
		return 3;
	if ((a == '+' || a == '-') && b != '=' && b != a && b != '>')
		return 2;
	if ((a == '=' || a == '!') && b == '=') {
		*len = 2;
		return 1;
	}
	if ((a == '<' || a == '>') && b != a) {
		*len = b == '=' ? 2 : 1;
		return 1;
	}
	return 0;
}

/* The operands of the binary operator at `at` (one or two characters long):
 * the postfix expression before it, and the unary-prefixed one after it,
 * the right one with what binds tighter after it (a + i * x: i * x). */
static bool operands(const char *c, size_t lo, size_t hi, size_t at, size_t oplen, size_t *ls, size_t *le,
		     size_t *rs, size_t *re)
{
	size_t len, next;
	int level = binop_level(c, at, hi, &len);
	*le = back_ws(c, lo, at);
	*ls = postfix_start(c, lo, *le, at);
	if (*ls >= *le || !operand_after(c, lo, hi, at + oplen, rs, re))
		return false;
	for (size_t j = skip_ws(c, *re, hi); level && j < hi && binop_level(c, j, hi, &len) > level; j = skip_ws(c, *re, hi)) {
		size_t s2;
		if (!operand_after(c, lo, hi, j + len, &s2, &next))
			break;
		*re = next;
	}
	return true;
}

/* ---- argument categories, for overloads ----------------------------------------------------------- */

enum cat {
	C_UNKNOWN, C_TENSOR, C_TLIST, C_INT, C_FLOAT, C_BOOL, C_LIST, C_DIMNAME,
	C_SCALAR,     /* a Scalar: Scalar(...), a Scalar variable; takes numbers too */
	C_SCALARTYPE, /* kFloat, ScalarType::Long, a ScalarType variable */
	C_OPTIONS,    /* TensorOptions: C++'s packing of dtype, layout, device, pin_memory */
	C_DEVICE,     /* kCUDA, Device(...), t.device() */
	C_OTHER
};

static enum cat schema_cat(const char *type)
{
	if (!strcmp(type, "Tensor") || !strcmp(type, "Tensor?"))
		return C_TENSOR;
	if (ot_starts_with(type, "Tensor") && strchr(type, '['))
		return C_TLIST;
	if (!strcmp(type, "int") || !strcmp(type, "SymInt") || !strcmp(type, "int?") ||
	    !strcmp(type, "SymInt?"))
		return C_INT;
	if (!strcmp(type, "float") || !strcmp(type, "float?"))
		return C_FLOAT;
	if (!strcmp(type, "bool") || !strcmp(type, "bool?"))
		return C_BOOL;
	if (ot_starts_with(type, "int[") || ot_starts_with(type, "SymInt[") ||
	    ot_starts_with(type, "float["))
		return C_LIST;
	if (ot_starts_with(type, "Dimname"))
		return C_DIMNAME;
	if (!strcmp(type, "Scalar") || !strcmp(type, "Scalar?"))
		return C_SCALAR;
	if (!strcmp(type, "ScalarType") || !strcmp(type, "ScalarType?"))
		return C_SCALARTYPE;
	if (!strcmp(type, "Device") || !strcmp(type, "Device?"))
		return C_DEVICE;
	return C_OTHER;
}

/* Is the method starting at `name` ("dtype(...") a setter TensorOptions
 * has (each returns a TensorOptions)? */
static bool options_setter(const char *name)
{
	static const char *const setters[] = {"dtype(", "device(", "layout(", "memory_format(",
					      "pinned_memory(", "requires_grad("};
	for (size_t i = 0; i < OT_ARRAY_LEN(setters); i++)
		if (ot_starts_with(name, setters[i]))
			return true;
	return false;
}

/* The category an expression's last call gives, when its name tells:
 * t.scalar_type(), iter.dtype(0) (ScalarType), t.options(),
 * at::device(d).dtype(k) (TensorOptions), t.device(), Device(...). */
static enum cat call_cat(const char *a)
{
	size_t n = strlen(a), open;
	const char *name;
	int depth = 0;
	if (!n || a[n - 1] != ')')
		return C_UNKNOWN;
	for (open = n; open-- > 0;) {
		if (a[open] == ')')
			depth++;
		else if (a[open] == '(' && --depth == 0)
			break;
	}
	if (open >= n)
		return C_UNKNOWN;
	name = a + open;
	while (name > a && ot_is_ident_char(name[-1]))
		name--;
	{
		/* c10::make_optional<int64_t>(...), std::optional<double>(...):
		 * an optional of that type */
		const char *o = strstr(a, "optional<");
		const char *t = o && o < a + open ? o + 9 : NULL;
		if (t && open && a[open - 1] == '>' && t < a + open) {
			size_t tn = (size_t)(a + open - 1 - t);
			if (tn == 7 && !strncmp(t, "int64_t", 7))
				return C_INT;
			if (tn == 6 && !strncmp(t, "double", 6))
				return C_FLOAT;
			if (tn == 4 && !strncmp(t, "bool", 4))
				return C_BOOL;
		}
	}
	if (ot_starts_with(a, "TensorOptions(") || ot_starts_with(a, "at::TensorOptions(") ||
	    ot_starts_with(a, "at::device(") || ot_starts_with(a, "at::dtype(") ||
	    ot_starts_with(a, "device(") || ot_starts_with(a, "dtype(") || ot_ends_with(a, "options()"))
		return C_OPTIONS;
	if (name > a + 1 && name[-1] == '.' && a[open + 1] != ')' && options_setter(name)) {
		/* opts.memory_format(m).pinned_memory(p): a setter of TensorOptions
		 * gives TensorOptions (with no argument, dtype() is a getter) */
		size_t rn = (size_t)(name - 1 - a);
		char recv[256];
		if (rn < sizeof(recv)) {
			memcpy(recv, a, rn);
			recv[rn] = '\0';
			while (rn && recv[rn - 1] == '_')
				recv[--rn] = '\0'; /* options_ */
			if (ot_ends_with(recv, "options") || ot_ends_with(recv, "opts") ||
			    ot_ends_with(recv, "opt") || call_cat(recv) == C_OPTIONS)
				return C_OPTIONS;
		}
	}
	if (!strncmp(name, "scalar_type(", 12) || !strncmp(name, "dtype(", 6) ||
	    !strncmp(name, "common_dtype(", 13) || !strncmp(name, "toScalarType(", 13) ||
	    !strncmp(name, "typeMetaToScalarType(", 21))
		return C_SCALARTYPE;
	if ((!strncmp(name, "device(", 7) && a[open + 1] == ')') || !strncmp(name, "Device(", 7))
		return C_DEVICE;
	if (name > a && (name[-1] == '.' || name[-1] == '>')) {
		/* a Tensor's counts and shape: t.dim(), t.size(1), t.sizes() */
		static const char *const ints[] = {"dim(", "ndimension(", "numel(", "size(", "stride(",
						   "sym_size(", "sym_numel(", "storage_offset(", "element_size(",
						   "nbytes("};
		static const char *const lists[] = {"sizes(", "strides(", "sym_sizes(", "sym_strides("};
		for (size_t i = 0; i < OT_ARRAY_LEN(ints); i++)
			if (!strncmp(name, ints[i], strlen(ints[i])))
				return C_INT;
		for (size_t i = 0; i < OT_ARRAY_LEN(lists); i++)
			if (!strncmp(name, lists[i], strlen(lists[i])))
				return C_LIST;
		/* a Scalar's value as a C++ number: s.toDouble(), s.toLong() */
		if (!strncmp(name, "toDouble(", 9) || !strncmp(name, "toFloat(", 8))
			return C_FLOAT;
		if (!strncmp(name, "toLong(", 7) || !strncmp(name, "toInt(", 6))
			return C_INT;
		if (!strncmp(name, "toBool(", 7))
			return C_BOOL;
	}
	if (name == a + (ot_starts_with(a, "c10::") || ot_starts_with(a, "at::") ? strcspn(a, ":") + 2 : 0) &&
	    !strncmp(name, "Scalar(", 7))
		return C_SCALAR; /* Scalar(x), c10::Scalar(x) */
	return C_UNKNOWN;
}

/* Does schema argument k start the group C++ packs into one TensorOptions
 * (dtype, layout, device, pin_memory)? */
static bool options_group(const ot_reg_schema *s, size_t k)
{
	return k + 3 < s->nargs && !strcmp(s->args[k].type, "ScalarType?") &&
	       !strcmp(s->args[k + 1].type, "Layout?") && !strcmp(s->args[k + 2].type, "Device?") &&
	       !strcmp(s->args[k + 3].type, "bool?");
}

/* A ScalarType constant as C++ writes it: kFloat, at::kLong, ScalarType::Half. */
static bool scalar_type_constant(const char *a)
{
	const char *last = strrchr(a, ':');
	last = last ? last + 1 : a;
	if (strpbrk(a, "(."))
		return false; /* a call or a member: opts.dtype(ScalarType::Float) is no constant */
	if (strstr(a, "ScalarType::"))
		return true;
	return last[0] == 'k' && isupper((unsigned char)last[1]) &&
	       (!strcmp(last + 1, "Float") || !strcmp(last + 1, "Double") || !strcmp(last + 1, "Half") ||
		!strcmp(last + 1, "BFloat16") || !strcmp(last + 1, "Long") || !strcmp(last + 1, "Int") ||
		!strcmp(last + 1, "Bool") || !strcmp(last + 1, "Byte") || !strcmp(last + 1, "Char") ||
		!strcmp(last + 1, "Short") || !strcmp(last + 1, "ComplexFloat") ||
		!strcmp(last + 1, "ComplexDouble") || !strcmp(last + 1, "ComplexHalf"));
}

/* An arithmetic expression of numbers and scalar names: 1 - p, alpha * a. */
static enum cat arithmetic_cat(struct ck_ctx *x, const char *arg);

/* Does expression `e` call something (a '(' right after a name)? Grouping
 * parentheses, as in 1.0 / (n * d), are no call. */
static bool has_call(const char *e)
{
	for (const char *p = strchr(e, '('); p; p = strchr(p + 1, '(')) {
		const char *q = p;
		while (q > e && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if (q > e && (ot_is_ident_char(q[-1]) || q[-1] == '>' || q[-1] == ')' || q[-1] == ']'))
			return true;
	}
	return false;
}

/* The names kernels give the element type a dispatch macro or a template
 * binds (AT_DISPATCH's scalar_t, its accumulate type): a number, never a
 * Tensor (`x.add_(eps_val)` with `scalar_t eps_val` is add_.Scalar). */
static bool kernel_value_type(const char *t)
{
	static const char *const names[] = {"scalar_t", "acc_t", "accscalar_t", "opmath_t", "value_t",
					    "T_ACC", "acc_type", "opmath_type"};
	for (size_t i = 0; i < OT_ARRAY_LEN(names); i++)
		if (!strcmp(t, names[i]) || (ot_starts_with(t, names[i]) && t[strlen(names[i])] == '<'))
			return true;
	return false;
}

/* Is `arg` an element of a list of integers, `shape[0]` with a local or
 * parameter `IntArrayRef shape` (an int: add(shape[0]) is add.Scalar)? */
static const char *subscript_container(struct ck_ctx *x, const char *expr);

static bool int_list_element(struct ck_ctx *x, const char *arg)
{
	const char *type = subscript_container(x, arg);
	char t[128];
	if (!type)
		return false;
	normalize_type(t, sizeof(t), type);
	return strstr(t, "IntArrayRef") || strstr(t, "vector<int64_t>") || strstr(t, "DimVector") ||
	       strstr(t, "ArrayRef<int64_t>");
}

static enum cat type_cat(const char *type);
static const char *call_return_type(struct ck_ctx *x, const char *init);

/* The category of an auto local's initializer: what an op or a known
 * method returns (call_cat), else the written return type of the helper
 * it calls (`auto new_type = promote_type_fft(...)`: a ScalarType). */
static enum cat auto_cat(struct ck_ctx *x, const char *init)
{
	enum cat c = call_cat(init), r;
	const char *rt;
	if (c != C_UNKNOWN || !(rt = call_return_type(x, init)) || strstr(rt, "auto") || strstr(rt, "decltype"))
		return c;
	r = type_cat(rt);
	return r == C_OTHER ? C_UNKNOWN : r;
}

static bool constructed_type(char *out, size_t n, const char *arg);

/* The declared type of `name` in `name[...]` (one subscript), or NULL. */
static const char *subscript_container(struct ck_ctx *x, const char *expr)
{
	const char *open = strchr(expr, '['), *init, *range, *type;
	char name[96];
	size_t n = open ? (size_t)(open - expr) : 0;
	if (!n || n >= sizeof(name) || !ot_ends_with(expr, "]") || strchr(open + 1, '['))
		return NULL;
	memcpy(name, expr, n);
	name[n] = '\0';
	if (!ot_is_identifier(name))
		return NULL;
	type = local_type(x->ck, x->f->code, x->d, x->at, name, &init, &range);
	return type ? type : param_type(x, name);
}

/* The element type of `name[...]` when name's declared type is a container
 * (ArrayRef<Scalar>, std::vector<double>), else NULL. */
static const char *subscript_element(struct ck_ctx *x, const char *expr)
{
	const char *type = subscript_container(x, expr);
	return type ? element_type(x, type) : NULL;
}

static enum cat arg_cat(struct ck_ctx *x, const char *arg)
{
	if (!*arg)
		return C_UNKNOWN;
	if (!strcmp(arg, "true") || !strcmp(arg, "false"))
		return C_BOOL;
	if (arg[0] == '{')
		return C_LIST;
	if (isdigit((unsigned char)arg[0]) || (arg[0] == '-' && isdigit((unsigned char)arg[1]))) {
		bool plain = true;
		for (const char *p = arg; *p && plain; p++)
			plain = isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+';
		if (plain)
			return strpbrk(arg, ".eE") && !strpbrk(arg, "xX") ? C_FLOAT : C_INT;
	}
	if (scalar_type_constant(arg))
		return C_SCALARTYPE;
	if (!strcmp(arg, "kCUDA") || !strcmp(arg, "at::kCUDA") || !strcmp(arg, "kCPU") || !strcmp(arg, "at::kCPU"))
		return C_DEVICE;
	if (ot_ends_with(arg, "options") || ot_ends_with(arg, "opts"))
		return C_OPTIONS;
	{
		enum cat c = call_cat(arg);
		char built[128];
		if (c != C_UNKNOWN)
			return c;
		/* opmath_t{base}, std::vector<int64_t>{n}: a value of that type */
		if (constructed_type(built, sizeof(built), arg) && (c = type_cat(built)) != C_OTHER)
			return c;
	}
	if (arg[0] == '*' && ot_is_ident_char(arg[1])) {
		/* *opt_dtype: the value its optional holds */
		const char *t = expr_typestr(x, arg);
		enum cat c = t ? type_cat(t) : C_UNKNOWN;
		if (c != C_OTHER && c != C_UNKNOWN)
			return c;
	}
	if (strpbrk(arg, "+-*/") && !strchr(arg, '[') && !has_call(arg)) {
		/* numbers and scalars: an int or a float; else (a Tensor in it)
		 * what its type says */
		enum cat ac = arithmetic_cat(x, arg);
		if (ac != C_UNKNOWN)
			return ac;
	}
	if (int_list_element(x, arg))
		return C_INT;
	{
		/* std::min<int64_t>(a, b), -std::max<double>(...): what the
		 * template argument names */
		const char *m = arg + (arg[0] == '-');
		if (ot_starts_with(m, "std::min<") || ot_starts_with(m, "std::max<")) {
			m += 9;
			if (ot_starts_with(m, "int64_t>") || ot_starts_with(m, "int>") || ot_starts_with(m, "size_t>"))
				return C_INT;
			if (ot_starts_with(m, "double>") || ot_starts_with(m, "float>"))
				return C_FLOAT;
		}
	}
	switch (expr_type(x, arg)) {
	case OT_TY_TENSOR:
		return C_TENSOR;
	case OT_TY_TENSOR_LIST:
		return C_TLIST;
	case OT_TY_UNKNOWN:
	case OT_TY_AUTO: {
		/* const auto& ax_dx = spacing[i]: an element of its container
		 * (ArrayRef<Scalar> spacing) */
		const char *init, *range, *type = local_type(x->ck, x->f->code, x->d, x->at, arg, &init, &range);
		const char *elem = type && strstr(type, "auto") && init ? subscript_element(x, init) : NULL;
		if (elem)
			return type_cat(elem);
		if (type && !(strstr(type, "auto") && init))
			return C_UNKNOWN;
		break; /* an auto local's initializer, or a file's constant: below */
	}
	default:
		break;
	}
	/* a declared scalar: int64_t, double, bool, IntArrayRef, Dimname */
	{
		const char *init, *range, *type = NULL;
		size_t n = strlen(arg);
		for (size_t i = 0; i < n; i++)
			if (!ot_is_ident_char(arg[i]))
				return C_UNKNOWN;
		type = local_type(x->ck, x->f->code, x->d, x->at, arg, &init, &range);
		if (type && strstr(type, "auto") && init)
			return auto_cat(x, init); /* auto n = t.dim(): what its initializer's call gives */
		if (!type)
			for (size_t i = 0; i < x->nparams; i++)
				if (!strcmp(x->pnames[i], arg))
					type = x->ptypes[i];
		if (!type)
			type = file_constant_type(x, arg);
		return type ? type_cat(type) : C_UNKNOWN;
	}
}

/* The category of a value of declared type `type`. */
static enum cat type_cat(const char *type)
{
	char t[128];
	normalize_type(t, sizeof(t), type);
	if (!strcmp(t, "int64_t") || !strcmp(t, "int") || !strcmp(t, "SymInt") || !strcmp(t, "size_t"))
		return C_INT;
	if (!strcmp(t, "double") || !strcmp(t, "float") || kernel_value_type(t))
		return C_FLOAT;
	if (!strcmp(t, "Scalar") || !strcmp(t, "optional<Scalar>"))
		return C_SCALAR;
	/* an optional Tensor binds a Tensor? (clamp.Tensor), never a Scalar? */
	if (!strcmp(t, "optional<Tensor>") || !strcmp(t, "OptionalTensorRef"))
		return C_TENSOR;
	if (!strcmp(t, "bool"))
		return C_BOOL;
	if (strstr(t, "IntArrayRef") || strstr(t, "SymIntArrayRef") || strstr(t, "vector<int64_t>") ||
	    strstr(t, "DimVector"))
		return C_LIST;
	if (strstr(t, "Dimname"))
		return C_DIMNAME;
	if (!strcmp(t, "ScalarType") || !strcmp(t, "optional<ScalarType>"))
		return C_SCALARTYPE;
	if (!strcmp(t, "TensorOptions"))
		return C_OPTIONS;
	if (!strcmp(t, "Device") || !strcmp(t, "optional<Device>"))
		return C_DEVICE;
	if (ot_callkind_type(t) == OT_TY_TENSOR)
		return C_TENSOR;
	return C_OTHER;
}

static enum cat arithmetic_cat(struct ck_ctx *x, const char *arg)
{
	enum cat out = C_INT;
	char name[96];
	for (const char *p = arg; *p;) {
		size_t n = 0;
		if (isdigit((unsigned char)*p)) {
			/* a number: 2, 1.0, 1e-5, 0.5f */
			while (isalnum((unsigned char)p[n]) || p[n] == '.' ||
			       ((p[n] == '-' || p[n] == '+') && n && (p[n - 1] == 'e' || p[n - 1] == 'E')))
				n++;
			if (memchr(p, '.', n) || ((memchr(p, 'e', n) || memchr(p, 'E', n)) && !memchr(p, 'x', n)))
				out = C_FLOAT;
			p += n;
			continue;
		}
		if (!ot_is_ident_char(*p)) {
			p++;
			continue;
		}
		while (ot_is_ident_char(p[n]))
			n++;
		if (n < sizeof(name)) {
			enum cat c;
			memcpy(name, p, n);
			name[n] = '\0';
			c = arg_cat(x, name);
			if (c == C_FLOAT)
				out = C_FLOAT;
			else if (c != C_INT)
				return C_UNKNOWN;
		} else {
			return C_UNKNOWN;
		}
		p += n;
	}
	return out;
}

static int cat_score(enum cat a, enum cat s)
{
	if (a == C_UNKNOWN)
		return s == C_DIMNAME ? -1 : 0; /* named-tensor overloads only when a Dimname is seen */
	if (a == s || (a == C_FLOAT && s == C_SCALAR))
		return 2;
	if (((a == C_INT || a == C_BOOL) && s == C_SCALAR) || (a == C_INT && (s == C_FLOAT || s == C_BOOL)) ||
	    (a == C_BOOL && s == C_INT) ||
	    (a == C_LIST && s == C_INT) /* {d} for int[1] */ ||
	    (a == C_INT && s == C_LIST) /* an int is an IntArrayRef of one */)
		return 1;
	if ((s == C_OTHER && a != C_SCALARTYPE && a != C_OPTIONS && a != C_DEVICE) || a == C_OTHER)
		return 0;
	return -5;
}

/* How well a C++ call's argument categories fit schema `s` (positional,
 * self first for a method; a TensorOptions takes the place of the four
 * arguments it packs): a score, or INT_MIN when they cannot. */
static int schema_fit(const ot_reg_schema *s, const enum cat *cats, size_t total, size_t first)
{
	size_t si = first, ai = first;
	int score = 0;
	while (ai < total) {
		if (si >= s->nargs)
			return INT_MIN;
		if (cats[ai] == C_OPTIONS && options_group(s, si)) {
			score += 2;
			si += 4;
		} else {
			/* a keyword-only dtype of a factory is only reached through TensorOptions */
			enum cat want = schema_cat(s->args[si].type);
			int sc = cat_score(cats[ai], want);
			if (want == C_DIMNAME && cats[ai] != C_DIMNAME && cats[ai] != C_UNKNOWN)
				return INT_MIN; /* names: only a Dimname list binds them */
			if (cats[ai] == C_SCALARTYPE && options_group(s, si))
				sc = -5;
			score += sc;
			si++;
		}
		ai++;
	}
	for (; si < s->nargs; si++)
		if (!s->args[si].def && !options_group(s, si))
			return INT_MIN; /* a required argument left */
		else if (options_group(s, si))
			si += 3;
	return score;
}

bool ot_callkind_inline_for_real(const ot_reg_func *f)
{
	return f && f->manual_cpp_binding && !strcmp(f->schema.name, "conj");
}

/* Is every overload of `op` `manual_cpp_binding: True`? Then its Tensor
 * method is written by hand (TensorBody.h, Tensor.cpp): the native kernels
 * of _backward, set_data, requires_grad_ ... (VariableMethodStubs.cpp) call
 * that method, which goes to the VariableHooks, not to the op again. */
static bool hand_written_method(struct ck_ctx *x, const char *op)
{
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(x->ck->reg, op, &n);
	for (size_t i = 0; ov && i < n; i++)
		if (!ov[i]->manual_cpp_binding)
			return false;
	return ov && n;
}

/* How well an out= call's arguments (cats, n of them) fit out= schema s:
 * the best of the written Tensors first and last, the others matched in
 * order with the schema's arguments that are not written. */
static int out_call_fit(const ot_reg_schema *s, const enum cat *cats, size_t n)
{
	size_t nout = 0;
	int best = INT_MIN;
	for (size_t k = 0; k < s->nargs; k++)
		nout += s->args[k].kwarg_only && s->args[k].is_write;
	if (n < nout)
		return 0;
	for (int first = 0; first < 2; first++) {
		const enum cat *c = first ? cats + nout : cats;
		size_t ai = 0;
		int score = 0;
		for (size_t k = 0; k < s->nargs && ai < n - nout; k++) {
			if (s->args[k].kwarg_only && s->args[k].is_write)
				continue;
			score += cat_score(c[ai++], schema_cat(s->args[k].type));
		}
		if (score > best)
			best = score;
	}
	return best;
}

/* The overload of `op` a C++ call with these arguments binds: out= ones for
 * x_out/x_outf, self as the first argument for a method call. */
static const ot_reg_func *fit_overload(struct ck_ctx *x, const char *op, bool out_call,
				       const char *const *args, size_t nargs, bool method)
{
	size_t n, total = nargs + (method ? 1 : 0);
	const ot_reg_func *const *ov = ot_registry_overloads(x->ck->reg, op, &n);
	const ot_reg_func *best = NULL;
	int best_score = -1000;
	enum cat cats[OT_CK_MAX_ARGS + 1];
	bool cats_done = false;
	for (size_t i = 0; i < n; i++) {
		const ot_reg_schema *s = &ov[i]->schema;
		size_t required = 0;
		int score = 0;
		if (s->is_out != out_call)
			continue;
		if (method && !ov[i]->variant_method)
			continue;
		if (out_call) {
			/* C++'s x_out takes the written Tensors first, then the
			 * others in order: the trailing defaults may be left out */
			size_t nout = 0, last = 0, k2 = 0;
			for (size_t k = 0; k < s->nargs; k++) {
				if (s->args[k].kwarg_only && s->args[k].is_write) {
					nout++;
					continue;
				}
				k2++;
				if (!s->args[k].def)
					last = k2;
			}
			required = nout + last;
		} else {
			for (size_t k = 0; k < s->nargs; k++)
				if (!s->args[k].def)
					required = k + 1;
		}
		if (total > s->nargs)
			continue;
		if (!out_call) {
			int fit;
			if (!cats_done) {
				cats[0] = C_TENSOR;
				for (size_t k = 0; k < nargs && k < OT_CK_MAX_ARGS; k++)
					cats[k + (method ? 1 : 0)] = arg_cat(x, args[k]);
				cats_done = true;
			}
			fit = schema_fit(s, cats, total < OT_CK_MAX_ARGS ? total : OT_CK_MAX_ARGS, method ? 1 : 0);
			if (fit == INT_MIN)
				continue;
			score += fit;
		} else if (total < required) {
			continue;
		} else {
			/* the other arguments' categories against the schema's
			 * (clamp_outf(self, min, max, out) with optional Tensor
			 * bounds is clamp.Tensor_out): the outs first (x_out) or
			 * last (x_outf), whichever fits */
			if (!cats_done) {
				for (size_t k = 0; k < nargs && k < OT_CK_MAX_ARGS; k++)
					cats[k] = arg_cat(x, args[k]);
				cats_done = true;
			}
			score += out_call_fit(s, cats, nargs < OT_CK_MAX_ARGS ? nargs : OT_CK_MAX_ARGS);
		}
		if (!*s->overload)
			score += 1; /* the default overload when nothing else decides */
		if (score > best_score) {
			best_score = score;
			best = ov[i];
		}
	}
	return best;
}

static bool fitted_result(struct ck_ctx *x, const char *op, const char *e, size_t open, bool method, ot_ty *t)
{
	const char *args[OT_CK_MAX_ARGS];
	const ot_reg_func *f;
	int na;
	if (op_result_one(x->ck->reg, op))
		return false;
	na = split_args(args, OT_CK_MAX_ARGS, x->a, e, open, strlen(e));
	f = na >= 0 ? fit_overload(x, op, false, args, (size_t)na, method) : NULL;
	if (f)
		*t = schema_result(&f->schema);
	return f != NULL;
}

/* ---- libraries ------------------------------------------------------------------------------------- */

/* Is `n` a name of the C API whose functions start with `prefix` and go on
 * in camelCase? */
static bool api_prefix(const char *n, const char *prefix)
{
	size_t k = strlen(prefix);
	return !strncmp(n, prefix, k) && isupper((unsigned char)n[k]);
}

/* LAPACK's and BLAS's Fortran entry points: sgetrf_, dgemm_, cheev_ ... */
static bool fortran_name(const char *n)
{
	size_t k = strlen(n);
	if (k < 4 || k > 9 || n[k - 1] != '_' || !strchr("sdcz", n[0]))
		return false;
	for (size_t i = 1; i + 1 < k; i++)
		if (!islower((unsigned char)n[i]))
			return false;
	return true;
}

static const char *const thrust_algorithms[] = {
	"sort", "sort_by_key", "stable_sort", "stable_sort_by_key", "unique", "unique_by_key",
	"unique_copy", "copy", "copy_if", "transform", "inclusive_scan", "exclusive_scan",
	"inclusive_scan_by_key", "exclusive_scan_by_key", "reduce", "reduce_by_key", "fill",
	"sequence", "gather", "scatter", "for_each", "count", "count_if", "adjacent_difference",
	"lower_bound", "upper_bound", "binary_search", "remove_if", "partition", "transform_reduce",
	"tabulate", "uninitialized_fill", "max_element", "min_element", "equal", "find_if"};

/* The library a plain call's (qualifier, name) is an API of, or NULL. */
static const char *library_of(const char *q, const char *n, const char *const *args, size_t nargs)
{
	if (!strcmp(q, "::"))
		q = ""; /* ::cublasSgemm(...) is cublasSgemm(...) */
	switch (n[0]) {
	case 'c':
		if (api_prefix(n, "cudnn"))
			return "cuDNN";
		if (api_prefix(n, "cublasLt"))
			return "cuBLASLt";
		if (api_prefix(n, "cublas"))
			return "cuBLAS";
		if (api_prefix(n, "cufft"))
			return "cuFFT";
		if (api_prefix(n, "cusolver"))
			return "cuSOLVER";
		if (api_prefix(n, "cusparseLt"))
			return "cuSPARSELt";
		if (api_prefix(n, "cusparse"))
			return "cuSPARSE";
		if (api_prefix(n, "curand"))
			return "cuRAND";
		if (ot_starts_with(n, "cblas_"))
			return "BLAS";
		break;
	case 'm':
		/* MAGMA's API is snake_case (magma_sgetrf_gpu); magma_int_cast is
		 * PyTorch's own */
		if (ot_starts_with(n, "magma_") && strcmp(n, "magma_int_cast") != 0 &&
		    !ot_starts_with(n, "magma_queue"))
			return "MAGMA";
		if (api_prefix(n, "miopen"))
			return "MIOpen";
		if (ot_starts_with(n, "mkl_") || ot_starts_with(n, "MKL_"))
			return "MKL";
		break;
	case 'D':
		if (ot_starts_with(n, "Dfti"))
			return "MKL";
		break;
	case 'n':
		if (ot_starts_with(n, "nnp_"))
			return "NNPACK";
		break;
	case 'x':
		if (ot_starts_with(n, "xnn_"))
			return "XNNPACK";
		break;
	case 'v':
		if (ot_starts_with(n, "vsl") || ot_starts_with(n, "vs") || ot_starts_with(n, "vd"))
			if (isupper((unsigned char)n[2]) || isupper((unsigned char)n[3]))
				return "MKL";
		break;
	}
	if (!*q && fortran_name(n))
		return "LAPACK/BLAS";
	if (!*q)
		return NULL;
	{
		/* a library's type built in place (ideep::attr_t(), ideep::tensor(...),
		 * dnnl::memory::desc(...)): no call into it */
		static const char *const types[] = {"tensor", "desc", "dims", "memory", "engine", "stream",
						    "post_ops", "primitive_attr", "scale_t", "attr_t"};
		size_t nl = strlen(n);
		if (nl > 2 && !strcmp(n + nl - 2, "_t"))
			return NULL;
		for (size_t i = 0; i < OT_ARRAY_LEN(types); i++)
			if (!strcmp(n, types[i]))
				return NULL;
	}
	if (strstr(q, "cuda::blas"))
		return "cuBLAS";
	if (strstr(q, "cuda::solver"))
		return "cuSOLVER";
	if (strstr(q, "cudnn_frontend"))
		return "cuDNN";
	if (ot_starts_with(q, "thrust")) {
		bool algorithm = false;
		for (size_t i = 0; i < OT_ARRAY_LEN(thrust_algorithms); i++)
			if (!strcmp(n, thrust_algorithms[i]))
				algorithm = true;
		/* a host policy runs on the CPU */
		if (algorithm && !(nargs && strstr(args[0], "thrust::host")))
			return "Thrust";
		return NULL;
	}
	if (!strcmp(q, "cub") || ot_ends_with(q, "::cub") || ot_starts_with(q, "cub::") ||
	    strstr(q, "::cub::"))
		return "CUB";
	if (ot_starts_with(q, "ideep") || ot_starts_with(q, "dnnl") || strstr(q, "::ideep") ||
	    ot_starts_with(q, "mkldnn::"))
		return "oneDNN";
	if (ot_starts_with(q, "fbgemm"))
		return "FBGEMM";
	if (ot_starts_with(q, "pocketfft"))
		return "PocketFFT";
	if (ot_starts_with(q, "cutlass") || strstr(q, "::cutlass"))
		return NULL; /* cutlass::ceil_div, cutlass::TensorRef<...>(...): arithmetic
				and types; CUTLASS's work is a Gemm object's run() */
	if (strstr(q, "pytorch_flash") || strstr(q, "flash::"))
		return "FlashAttention";
	if (ot_starts_with(q, "cufft"))
		return "cuFFT";
	return NULL;
}

/* Does d's body call a function (its `return`s and operators are kept
 * among its calls)? */
static bool makes_calls(const ot_ix_cdef *d)
{
	for (uint32_t i = 0; i < d->ncalls; i++)
		if (d->calls[i].kind != OT_CALL_RETURN && d->calls[i].kind != OT_CALL_OPERATOR)
			return true;
	return false;
}

/* Is `qual::name`, named like a library's call, a function PyTorch writes
 * in that namespace itself whose every definition calls nothing
 * (at::cuda::cub::get_num_bits, a bit count on the host): not the
 * library's work. */
static bool own_leaf_helper(const ot_index *ix, const char *qual, const char *name)
{
	const char *q = ot_starts_with(qual, "::") ? qual + 2 : qual;
	bool found = false;
	if (!*q)
		return false;
	/* every definition of it there (cuda::blas::gemm's primary template
	 * only asserts; its specialisations call cuBLAS) */
	for (const ot_ix_cdef *d = ot_index_cdefs(ix, name); d; d = d->next)
		if (d->kind == OT_CDEF_FUNC && !d->in_class && ot_ends_with(d->ns, q)) {
			if (*d->qual || makes_calls(d))
				return false;
			found = true;
		}
	return found;
}

bool ot_callkind_is_ti_launcher(const char *n)
{
	return !strcmp(n, "gpu_kernel") || !strcmp(n, "gpu_kernel_with_scalars") ||
	       !strcmp(n, "opmath_gpu_kernel_with_scalars") ||
	       !strcmp(n, "opmath_symmetric_gpu_kernel_with_scalars") ||
	       !strcmp(n, "jitted_gpu_kernel") || !strcmp(n, "gpu_reduce_kernel") ||
	       !strcmp(n, "gpu_kernel_multiple_outputs") || !strcmp(n, "opmath_jitted_gpu_kernel_with_scalars");
}

/* ---- resolution by scope ------------------------------------------------------------------------------- */

static const char *fpath(const ot_callkinds *ck, uint32_t file)
{
	return ot_index_file(ck->ix, file)->path;
}

/* Is namespace `outer` ("at::native") `inner` or one enclosing it
 * ("at::native::(anonymous)")? */
static bool ns_encloses(const char *outer, const char *inner)
{
	size_t n = strlen(outer);
	if (!n)
		return true; /* the global namespace */
	return !strncmp(outer, inner, n) && (inner[n] == '\0' || inner[n] == ':');
}

/* `ns` without its "::(anonymous)" parts: where its names are seen from
 * inside the same file. */
static void without_anonymous(char *out, size_t n, const char *ns)
{
	size_t k = 0;
	for (const char *p = ns; *p && k + 1 < n;) {
		if (!strncmp(p, "::(anonymous)", 13)) {
			p += 13;
			continue;
		}
		if (!strncmp(p, "(anonymous)", 11)) {
			p += 11;
			if (*p == ':')
				p += 2;
			continue;
		}
		out[k++] = *p++;
	}
	out[k] = '\0';
}

/* The namespace a definition lives in, its written qualifier included. */
static void full_ns(char *out, size_t n, const ot_ix_cdef *d)
{
	snprintf(out, n, "%s%s%s", d->ns, *d->ns && *d->qual ? "::" : "", d->qual);
}

/* Does `d` live where qualifier `qual` points, seen from namespace `from`? */
static bool qual_matches(const ot_ix_cdef *d, const char *qual)
{
	char full[600];
	size_t n, m;
	if (qual[0] == ':' && qual[1] == ':')
		qual += 2;
	full_ns(full, sizeof(full), d);
	n = strlen(full);
	m = strlen(qual);
	return m <= n && !strcmp(full + n - m, qual) && (m == n || full[n - m - 1] == ':');
}

/* Is `d`, defined inside a class body, the member that `qual::name` names:
 * the qualifier's last part is d's class (Foo<T>::apply was read as
 * "Foo"), and what comes before it, if anything, is where d's class lives
 * (the written qualifier "at::native::Foo" or, from d's namespace, "Foo"). */
static bool member_of_qual(const ot_ix_cdef *d, const char *qual)
{
	bool global = qual[0] == ':' && qual[1] == ':';
	const char *last, *ns = d->ns;
	size_t n = strlen(ns), m;
	if (global)
		qual += 2; /* ::Foo::f: Foo of the global namespace */
	last = strrchr(qual, ':');
	last = last ? last + 1 : qual;
	if (!d->cls || !*d->cls || strcmp(last, d->cls))
		return false;
	if (last == qual)
		return !global || !n;
	m = (size_t)(last - qual) - 2; /* the qualifier's namespace part */
	if (global)
		return m == n && !strncmp(ns, qual, m);
	return m <= n && !strncmp(ns + n - m, qual, m) && (m == n || ns[n - m - 1] == ':');
}

static bool followable(const ot_callkinds *ck, const ot_ix_cdef *d)
{
	const char *p = fpath(ck, d->file);
	if (d->kind != OT_CDEF_FUNC && d->kind != OT_CDEF_IMPL)
		return false;
	return ot_starts_with(p, "aten/src/ATen/") || ot_starts_with(p, "torch/csrc/autograd/");
}

/* The parameters a definition takes: (required, total); total is SIZE_MAX
 * for a variadic one. */
static void param_range(struct ck_ctx *x, const ot_ix_cdef *d, size_t *required, size_t *total)
{
	const char *names[OT_CK_MAX_ARGS], *types[OT_CK_MAX_ARGS];
	const ot_ix_file *f = ot_index_file(x->ck->ix, d->file);
	const char *args[OT_CK_MAX_ARGS];
	size_t open;
	int n;
	(void)names;
	(void)types;
	*required = 0;
	*total = SIZE_MAX;
	if (!f || (open = params_open(f, d)) == (size_t)-1)
		return;
	n = split_args(args, OT_CK_MAX_ARGS, x->a, f->code, open, d->body ? d->body : f->len);
	if (n < 0)
		return;
	*total = (size_t)n;
	for (int i = 0; i < n && i < (int)OT_CK_MAX_ARGS; i++) {
		if (strstr(args[i], "...")) {
			*total = SIZE_MAX;
			return;
		}
		if (!strchr(args[i], '='))
			*required = (size_t)i + 1;
	}
	if (n == 1 && !strcmp(args[0], "void"))
		*total = *required = 0;
}

/* Keep the candidates whose parameters take `nargs` arguments. */
/* The category of a C++ parameter type, for overloads of helpers. */
static enum cat param_cat(const char *type)
{
	char t[128];
	switch (ot_callkind_type(type)) {
	case OT_TY_TENSOR:
		return C_TENSOR;
	case OT_TY_TENSOR_LIST:
		return C_TLIST;
	case OT_TY_TENSOR_PTR:
		return C_OTHER; /* optional<Tensor>: a Tensor or nullopt */
	default:
		break;
	}
	normalize_type(t, sizeof(t), type);
	if (!strcmp(t, "int64_t") || !strcmp(t, "int") || !strcmp(t, "SymInt") || !strcmp(t, "size_t"))
		return C_INT;
	if (!strcmp(t, "double") || !strcmp(t, "float"))
		return C_FLOAT;
	if (!strcmp(t, "Scalar"))
		return C_SCALAR;
	if (!strcmp(t, "bool"))
		return C_BOOL;
	if (strstr(t, "IntArrayRef") || strstr(t, "DimVector"))
		return C_LIST;
	if (!strcmp(t, "ScalarType"))
		return C_SCALARTYPE;
	if (strstr(t, "Dimname"))
		return C_DIMNAME;
	return C_OTHER;
}

/* Split a template parameter list `<...>` opening at `open` (before `hi`):
 * every '<' in it opens brackets (enable_if_t<!a || b<T>, int>). Returns
 * the count, or -1 when it does not close. */
static int split_tparams(const char **out, size_t max, ot_arena *a, const char *c, size_t open, size_t hi)
{
	int depth = 0, n = 0;
	size_t start = open + 1;
	for (size_t i = open; i < hi; i++) {
		char ch = c[i];
		if (ch == '(' || ch == '[' || ch == '{' || ch == '<')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}' || ch == '>')
			depth--;
		if ((ch == ',' && depth == 1) || depth == 0) {
			if ((size_t)n < max && skip_ws(c, start, i) < i)
				out[n++] = span(a, c, start, i);
			start = i + 1;
			if (depth == 0)
				return n;
		}
	}
	return -1;
}

/* How many template arguments a call of template function d must write
 * out: up to its last template parameter that no function parameter's
 * type names (C++ cannot deduce it: multi_tensor_apply<depth, scalar_T,
 * T, ...>(lists, scalars, callable, ...) needs depth and scalar_T). 0 for
 * a function that is no template or deduces them all. */
static size_t explicit_targs_needed(struct ck_ctx *x, const ot_ix_cdef *d)
{
	const ot_ix_file *f = ot_index_file(x->ck->ix, d->file);
	const char *c, *tparams[OT_CK_MAX_ARGS], *fparams[OT_CK_MAX_ARGS];
	size_t open, k, lo, needed = 0;
	int nt, nf;
	if (!f || (open = params_open(f, d)) == (size_t)-1)
		return 0;
	c = f->code;
	lo = d->line > 6 ? f->line_off[d->line - 7] : 0;
	/* back from the parameter list to `template <`, within the head */
	for (k = open; k > lo; k--) {
		if (c[k - 1] == ';' || c[k - 1] == '{' || c[k - 1] == '}')
			return 0;
		if (k >= lo + 8 && !memcmp(c + k - 8, "template", 8) &&
		    (k - 8 == lo || !ot_is_ident_char(c[k - 9])) && !ot_is_ident_char(c[k]))
			break;
	}
	if (k == lo || (k = skip_ws(c, k, open)) >= open || c[k] != '<')
		return 0;
	nt = split_tparams(tparams, OT_CK_MAX_ARGS, x->a, c, k, open);
	nf = split_args(fparams, OT_CK_MAX_ARGS, x->a, c, open, d->body ? d->body : f->len);
	for (int i = 0; i < nt && i < (int)OT_CK_MAX_ARGS; i++) {
		const char *t = tparams[i], *e, *n;
		bool named = false;
		if (strchr(t, '=') || strstr(t, "..."))
			continue; /* a default, or a pack (deduced or empty) */
		for (e = t + strlen(t); e > t && !ot_is_ident_char(e[-1]); e--)
			;
		for (n = e; n > t && ot_is_ident_char(n[-1]); n--)
			;
		for (int j = 0; j < nf && j < (int)OT_CK_MAX_ARGS && !named; j++)
			for (const char *p = fparams[j]; (p = strstr(p, ot_arena_strndup(x->a, n, (size_t)(e - n))));
			     p++)
				if ((p == fparams[j] || !ot_is_ident_char(p[-1])) && !ot_is_ident_char(p[e - n])) {
					named = true;
					break;
				}
		if (!named)
			needed = (size_t)i + 1;
	}
	return needed;
}

/* The template arguments written at call c (f<2>(...) writes 1). */
static size_t explicit_targs(struct ck_ctx *x, const char *code, size_t hi, const ot_ix_call *c)
{
	const char *targs[OT_CK_MAX_ARGS];
	size_t open;
	int n;
	if (c->off == OT_IX_CALL_NO_TEXT)
		return SIZE_MAX; /* not known: every candidate may fit */
	open = skip_ws(code, c->off + strlen(c->name), hi);
	if (open >= hi || code[open] != '<')
		return 0;
	n = split_args(targs, OT_CK_MAX_ARGS, x->a, code, open, hi);
	return n < 0 ? SIZE_MAX : (size_t)n;
}

/* The class a type names, without qualifiers, cv, references or template
 * arguments ("std::array<scalar_t, 4>&" is "array"), into out; "" for
 * none. */
static void type_head(char *out, size_t n, const char *type)
{
	char t[160];
	const char *h, *e;
	size_t k;
	normalize_type(t, sizeof(t), type);
	e = t + strcspn(t, "<*");
	for (h = e; h > t && (ot_is_ident_char(h[-1]) || h[-1] == ':'); h--)
		;
	while (strstr(h, "::") && strstr(h, "::") < e)
		h = strstr(h, "::") + 2;
	k = (size_t)(e - h) < n ? (size_t)(e - h) : n - 1;
	memcpy(out, h, k);
	out[k] = '\0';
}

/* Is `name` one of the comma-separated template parameters `list`? */
static int tparam_index(const char *list, const char *name);

static bool is_tparam(const char *list, const char *name)
{
	return tparam_index(list, name) >= 0;
}

/* A class of the standard library or c10 that values have (never a
 * Tensor): its name tells two overloads apart. */
static bool value_class(const char *head)
{
	static const char *const names[] = {"array", "vector", "Vectorized", "VectorizedN", "ArrayRef",
					    "IntArrayRef", "optional", "tuple", "pair", "complex",
					    "SmallVector", "DimVector", "string", "string_view"};
	for (size_t i = 0; i < OT_ARRAY_LEN(names); i++)
		if (!strcmp(head, names[i]))
			return true;
	return false;
}

/* The type an argument constructs with braces, `T{...}` or `ns::T<A>{...}`
 * ("std::vector<int64_t>{bin_ct}" constructs std::vector<int64_t>), into
 * out; false for anything else. */
static bool constructed_type(char *out, size_t n, const char *arg)
{
	const char *p = arg;
	while (ot_is_ident_char(*p) || (p[0] == ':' && p[1] == ':'))
		p += p[0] == ':' ? 2 : 1;
	if (p == arg || isdigit((unsigned char)arg[0]))
		return false;
	if (*p == '<') {
		size_t close = match_bracket(arg, 0, strlen(arg), (size_t)(p - arg));
		if (close == (size_t)-1)
			return false;
		p = arg + close + 1;
	}
	if (*p != '{' || (size_t)(p - arg) >= n)
		return false;
	memcpy(out, arg, (size_t)(p - arg));
	out[p - arg] = '\0';
	return true;
}

/* `type` normalized (normalize_type), with c10's list aliases spelt out:
 * IntArrayRef is ArrayRef<int64_t>, SymIntArrayRef ArrayRef<SymInt>. */
static void canonical_type(char *out, size_t n, const char *type)
{
	static const char *const alias[][2] = {{"IntArrayRef", "ArrayRef<int64_t>"},
					       {"SymIntArrayRef", "ArrayRef<SymInt>"},
					       {"TensorList", "ArrayRef<Tensor>"},
					       {"DimnameList", "ArrayRef<Dimname>"}};
	normalize_type(out, n, type);
	for (size_t i = 0; i < OT_ARRAY_LEN(alias); i++)
		if (!strcmp(out, alias[i][0])) {
			snprintf(out, n, "%s", alias[i][1]);
			return;
		}
}

/* A type a template parameter can stand for besides a class of the tree:
 * a number, a SymInt or a Tensor. */
static bool value_type(const char *t)
{
	static const char *const names[] = {"int64_t", "int", "double", "float", "bool", "SymInt", "Tensor"};
	for (size_t i = 0; i < OT_ARRAY_LEN(names); i++)
		if (!strcmp(t, names[i]))
			return true;
	return false;
}

/* The position of `name` among the comma-separated template parameters
 * `list`, or -1. */
static int tparam_index(const char *list, const char *name)
{
	size_t n = strlen(name);
	int i = 0;
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL, i++) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0' || p[n] == ' '))
			return i;
	}
	return -1;
}

/* The type a call `f<A, B>(...)` (an auto local's initializer) returns:
 * f's written return type (return_type), with f's template parameters
 * replaced by the call's arguments (`scalar_t
 * row_sum(...)` called as row_sum<acc_t, P>(...) returns acc_t); NULL when
 * not known. */
static const char *call_return_type(struct ck_ctx *x, const char *init)
{
	size_t k = strspn(init, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
	const char *name = init, *targs[OT_CK_MAX_SUBST], *ret;
	int nt = 0, ti;
	const ot_ix_cdef *def = NULL;
	if (!k || (init[k] != '<' && init[k] != '('))
		return NULL; /* the initializer as read stops at a ',': row_sum<acc_t */
	for (size_t i = 0; i + 1 < k; i++)
		if (init[i] == ':' && init[i + 1] == ':')
			name = init + i + 2;
	name = ot_arena_strndup(x->a, name, (size_t)(init + k - name));
	if (init[k] == '<')
		nt = split_tparams(targs, OT_CK_MAX_SUBST, x->a, init, k, strlen(init));
	if (init[k] == '<' && nt <= 0 && ot_is_identifier(init + k + 1)) {
		targs[0] = init + k + 1; /* only the first argument was read */
		nt = 1;
	}
	for (const ot_ix_cdef *d = ot_index_cdefs(x->ck->ix, name); d && !def; d = d->next)
		if (!d->gen && d->kind == OT_CDEF_FUNC && (nt <= 0 || d->fn_tparams))
			def = d;
	if (!def || !(ret = return_type(x, def)))
		return NULL;
	ti = def->fn_tparams ? tparam_index(def->fn_tparams, ret) : -1;
	if (ti >= 0)
		return ti < nt ? targs[ti] : NULL;
	if (strchr(ret, '<') && def->fn_tparams) {
		/* std::array<scalar_t, nrows>: the element type the call names */
		const char *lt = strchr(ret, '<') + 1;
		size_t en = strcspn(lt, ",>");
		char elem[64];
		snprintf(elem, sizeof(elem), "%.*s", (int)en, lt);
		ti = tparam_index(def->fn_tparams, elem);
		if (ti >= 0 && ti < nt)
			return ot_arena_printf(x->a, "%.*s%s%s", (int)(lt - ret), ret, targs[ti], lt + en);
	}
	return ret;
}

/* How a local or parameter `arg` of x's function fits a parameter of
 * helper h declared `ptype`, by the class their types name (a
 * std::array does not bind a scalar_t's Vectorized overload): 3 the same
 * class (4 an ArrayRef of the same element), 2 a container an ArrayRef
 * views, -5 another class, 0 not known (or a template parameter of h). */
static int class_fit(struct ck_ctx *x, const ot_ix_cdef *h, const char *arg, const char *ptype)
{
	char ca[160], cp[160];
	const char *init = NULL, *range = NULL, *atype = NULL;
	char ah[96], ph[96], built[160];
	if (!ptype)
		return 0;
	if (ot_is_identifier(arg)) {
		atype = local_type(x->ck, x->f->code, x->d, x->at, arg, &init, &range);
		/* a parameter of the caller: cudnn_is_acceptable(input) with
		 * `const TensorBase& input` takes the TensorBase overload */
		if (!atype)
			atype = param_type(x, arg);
	} else if (constructed_type(built, sizeof(built), arg)) {
		atype = built; /* std::vector<int64_t>{bin_ct} */
	} else if (strchr(arg, '[') && ot_ends_with(arg, "]")) {
		/* sums[i] of `auto sums = multi_row_sum<vacc_t, ...>(...)`: an
		 * element of the array the call returns */
		const char *base = ot_arena_strndup(x->a, arg, strcspn(arg, "["));
		const char *bt = ot_is_identifier(base) ? local_type(x->ck, x->f->code, x->d, x->at, base, &init, &range)
							: NULL;
		if (bt && !strcmp(bt, "auto") && init)
			bt = call_return_type(x, init);
		atype = bt ? element_type(x, bt) : NULL;
		init = NULL;
	}
	if (atype && !strcmp(atype, "auto") && init)
		atype = call_return_type(x, init); /* auto ans = row_sum<acc_t, P>(...) */
	if (!atype || !strcmp(atype, "auto"))
		return 0;
	atype = resolve_type(x, member_class(x, x->d), atype); /* vacc_t: Vectorized<acc_t> */
	canonical_type(ca, sizeof(ca), strchr(atype, '<') ? resolve_deep(x, atype) : atype);
	canonical_type(cp, sizeof(cp), ptype);
	type_head(ah, sizeof(ah), ca);
	type_head(ph, sizeof(ph), cp);
	/* ArrayRef<T> with T known as int64_t: the IntArrayRef overload */
	if (!strcmp(ah, ph) && strchr(ca, '<') && strchr(cp, '<') && !strcmp(ah, "ArrayRef")) {
		char ea[64], ep[64];
		const char *a1 = strchr(ca, '<') + 1, *p1 = strchr(cp, '<') + 1;
		snprintf(ea, sizeof(ea), "%.*s", (int)strcspn(a1, ",>"), a1);
		snprintf(ep, sizeof(ep), "%.*s", (int)strcspn(p1, ",>"), p1);
		if (value_type(ea) && value_type(ep))
			return strcmp(ea, ep) ? -5 : 4;
	}
	if ((kernel_value_type(ah) || !strcmp(ah, "double") || !strcmp(ah, "float")) && value_class(ph))
		return -5; /* a number (acc_t ans) never binds std::array or Vectorized */
	if (!*ah || !*ph || is_tparam(h->fn_tparams, ph) || is_tparam(h->cls_tparams, ph) ||
	    is_tparam(x->d->fn_tparams, ah) || is_tparam(x->d->cls_tparams, ah) || !strcmp(ph, "auto"))
		return 0;
	if (!strcmp(ah, ph))
		return 3;
	/* a std::vector, SmallVector or std::array is an ArrayRef where one is
	 * taken (a view of its elements) */
	if (!strcmp(ph, "ArrayRef") && (!strcmp(ah, "vector") || !strcmp(ah, "SmallVector") ||
					 !strcmp(ah, "array") || !strcmp(ah, "DimVector")))
		return 2;
	/* two different classes of the standard library or c10: not the same */
	return value_class(ah) && value_class(ph) ? -5 : 0;
}

/* The helper overloads a call with `nargs` arguments binds: those whose
 * parameter count fits, then the best fit of the arguments' kinds. */
static size_t fit_helpers(struct ck_ctx *x, const ot_ix_cdef **cand, size_t n, const char *const *args,
			  size_t nargs, size_t targs)
{
	size_t kept = 0;
	int score[OT_CK_MAX_DEFS], best = INT_MIN;
	enum cat cats[OT_CK_MAX_ARGS];
	bool cats_done = false;
	for (size_t i = 0; i < n; i++) {
		size_t req, tot;
		param_range(x, cand[i], &req, &tot);
		if (!(nargs >= req && nargs <= tot))
			continue;
		if (targs != SIZE_MAX && explicit_targs_needed(x, cand[i]) > targs)
			continue; /* a template parameter the call neither writes nor lets C++ deduce */
		cand[kept] = cand[i];
		score[kept] = 0;
		if (kept || i + 1 < n) {
			const char *names[OT_CK_MAX_ARGS], *types[OT_CK_MAX_ARGS];
			size_t np = ot_callkind_params(x->ck->ix, cand[i], names, types, OT_CK_MAX_ARGS, x->a);
			if (!cats_done) {
				for (size_t k = 0; k < nargs && k < OT_CK_MAX_ARGS; k++)
					cats[k] = arg_cat(x, args[k]);
				cats_done = true;
			}
			for (size_t k = 0; k < nargs && k < np && k < OT_CK_MAX_ARGS; k++)
				score[kept] += cat_score(cats[k], param_cat(types[k])) +
					       class_fit(x, cand[i], args[k], types[k]);
		}
		if (score[kept] > best)
			best = score[kept];
		kept++;
	}
	n = kept;
	kept = 0;
	for (size_t i = 0; i < n; i++)
		if (score[i] == best)
			cand[kept++] = cand[i];
	return kept;
}

/* Is h visible only in its own file: written in a .cpp/.cu file (not a
 * header) as static, inline, constexpr or device code? Read from the words
 * before its name (its line and the one before). */
static bool file_local(const ot_callkinds *ck, const ot_ix_cdef *h)
{
	static const char *const words[] = {"static", "inline", "constexpr", "__device__", "C10_DEVICE",
					    "C10_HOST_DEVICE", "__forceinline__", "C10_ALWAYS_INLINE"};
	const ot_ix_file *f = ot_index_file(ck->ix, h->file);
	const char *p, *start, *name;
	size_t n;
	if (!f || h->gen || h->line < 1 || h->line > f->nlines || ot_ends_with(f->path, ".h") ||
	    ot_ends_with(f->path, ".cuh") || ot_ends_with(f->path, ".hpp"))
		return false;
	p = f->code + f->line_off[h->line - 1];
	start = h->line >= 2 ? f->code + f->line_off[h->line - 2] : p;
	n = strlen(h->name);
	for (name = p; (name = strstr(name, h->name)); name += n)
		if ((name == f->code || !ot_is_ident_char(name[-1])) && !ot_is_ident_char(name[n]))
			break;
	if (!name)
		return false;
	for (size_t k = 0; k < OT_ARRAY_LEN(words); k++) {
		size_t wn = strlen(words[k]);
		for (const char *w = start; (w = memmem(w, (size_t)(name - w), words[k], wn)); w += wn)
			if ((w == f->code || !ot_is_ident_char(w[-1])) && !ot_is_ident_char(w[wn]))
				return true;
	}
	return false;
}

/* Helpers named `name` seen from d: in its file first, then in the
 * namespaces enclosing it (or, for a qualified call, where the qualifier
 * points). A __device__-only or __global__ function never answers a call
 * made from host code. */
static size_t find_helpers(struct ck_ctx *x, const char *qual, const char *name,
			   const ot_ix_cdef **out, size_t max)
{
	const ot_ix_cdef *d = x->d;
	size_t n = 0;
	for (int pass = 0; pass < 2 && !n; pass++) {
		for (const ot_ix_cdef *h = ot_index_cdefs(x->ck->ix, name); h && n < max; h = h->next) {
			char hns[600];
			if (h == d || !followable(x->ck, h) || h->global)
				continue;
			if (h->file == d->file && ot_index_pp_exclusive(x->ck->ix, d->file, x->pp, h->pp))
				continue; /* the other arm of an #if: never compiled with the call */
			if (h->in_class) {
				/* a class's member answers only a call qualified by that
				 * class (Foo<T>::apply(...)) */
				if (!*qual || !strcmp(qual, "::") || !member_of_qual(h, qual) ||
				    (pass == 0 && h->file != d->file))
					continue;
				out[n++] = h;
				continue;
			}
			full_ns(hns, sizeof(hns), h);
			if (!strcmp(qual, "::")) {
				if (*hns) /* ::f(x): a function of the global namespace only */
					continue;
			} else if (*qual) {
				if (!qual_matches(h, qual))
					continue;
				if (pass == 0 && h->file != d->file)
					continue;
			} else if (pass == 0) {
				/* the file: its own statics and anonymous namespaces (whose
				 * names the enclosing namespace sees), and functions of the
				 * namespaces the caller is in */
				char visible[600];
				without_anonymous(visible, sizeof(visible), hns);
				if (h->file != d->file || !ns_encloses(visible, d->ns))
					continue;
			} else if (!ns_encloses(hns, d->ns) || !*hns) {
				continue;
			} else if (strstr(hns, "(anonymous)") || (h->file != d->file && file_local(x->ck, h))) {
				continue; /* another file's anonymous namespace or static, inline function */
			} else if (ot_ends_with(ot_index_file(x->ck->ix, h->file)->path, ".cuh") &&
				   !ot_path_nvcc_only(x->f->path)) {
				continue; /* a header only nvcc includes: host C++ never sees it */
			}
			out[n++] = h;
		}
	}
	return n;
}

/* The at::native definitions of kernel `name` (what native::name binds). */
static size_t native_defs(struct ck_ctx *x, const char *name, const ot_ix_cdef **out, size_t max)
{
	size_t n = 0;
	for (int symint = 0; symint < 2 && !n; symint++) {
		const char *nm = symint ? ot_arena_printf(x->a, "%s_symint", name) : name;
		for (const ot_ix_cdef *h = ot_index_cdefs(x->ck->ix, nm); h && n < max; h = h->next) {
			char hns[600];
			if (h->in_class || !followable(x->ck, h))
				continue;
			full_ns(hns, sizeof(hns), h);
			if (strcmp(hns, "at::native") && strcmp(hns, "::at::native"))
				continue;
			out[n++] = h;
		}
	}
	return n;
}

/* The namespace a name written with qualifier `qual` in namespace `ns`
 * (anonymous ones seen through) is looked up from: ns::qual, or qual when
 * it is absolute (at::..., ::...). */
static void lookup_scope(char *out, size_t n, const char *ns, const char *qual)
{
	char visible[600];
	without_anonymous(visible, sizeof(visible), ns);
	if (qual[0] == ':' && qual[1] == ':')
		snprintf(out, n, "%s", qual + 2);
	else if (ot_starts_with(qual, "at::") || !strcmp(qual, "at") || ot_starts_with(qual, "c10::"))
		snprintf(out, n, "%s", qual);
	else if (*qual)
		snprintf(out, n, "%s%s%s", visible, *visible ? "::" : "", qual);
	else
		snprintf(out, n, "%s", visible);
}

/* The declaration of stub `name` a use in `scope` finds: the innermost
 * namespace enclosing it that declares (or defines) one. */
static const ot_ix_stub *stub_in_scope(const ot_index *ix, const char *name, const char *scope)
{
	const ot_ix_stub *best = NULL;
	size_t best_len = 0;
	for (const ot_ix_stub *s = ot_index_stubs(ix, name); s; s = s->next) {
		char sns[600];
		size_t k;
		if (s->kind == OT_STUB_REGISTER)
			continue;
		lookup_scope(sns, sizeof(sns), s->ns, s->stub_qual ? s->stub_qual : "");
		k = strlen(sns);
		if (!ns_encloses(sns, scope) && *sns)
			continue;
		/* a declaration beats a definition in the same namespace */
		if (!best || k > best_len || (k == best_len && s->kind == OT_STUB_DECLARE && best->kind != OT_STUB_DECLARE)) {
			best = s;
			best_len = k;
		}
	}
	return best;
}

const ot_ix_stub *ot_callkind_stub_decl(const ot_index *ix, const ot_ix_stub *site)
{
	char scope[600];
	lookup_scope(scope, sizeof(scope), site->ns, site->stub_qual ? site->stub_qual : "");
	return stub_in_scope(ix, site->stub, scope);
}

/* The declaration of stub `name` a call from d (written with `qual`) finds. */
static const ot_ix_stub *find_stub(struct ck_ctx *x, const char *qual, const char *name)
{
	char scope[600];
	lookup_scope(scope, sizeof(scope), x->d->ns, qual);
	return stub_in_scope(x->ck->ix, name, scope);
}

size_t ot_callkind_helpers(const ot_callkinds *ck, const ot_ix_cdef *from, const char *qual,
			   const char *name, size_t nargs, const ot_ix_cdef **out, size_t max,
			   ot_arena *arena)
{
	struct ck_ctx x = {ck, from, ot_index_file(ck->ix, from->file), arena, from->body, from->pp, NULL,
			   0, false, {0}, {0}, 0};
	size_t n = find_helpers(&x, qual, name, out, max);
	if (n > 1) {
		/* the arguments are not known here: "" is a category not known */
		const char *none[OT_CK_MAX_ARGS] = {0};
		for (size_t k = 0; k < OT_CK_MAX_ARGS; k++)
			none[k] = "";
		n = fit_helpers(&x, out, n, none, nargs < OT_CK_MAX_ARGS ? nargs : OT_CK_MAX_ARGS, SIZE_MAX);
	}
	return n;
}

/* ---- the classifier ------------------------------------------------------------------------------------ */

/* Where the statement holding offset `at` starts: after the last `;`, `{`
 * or `}` outside brackets before it (lo at most). */
static size_t statement_start(const char *c, size_t lo, size_t at)
{
	int depth = 0;
	for (size_t k = at; k > lo; k--) {
		char ch = c[k - 1];
		if (ch == ')' || ch == ']')
			depth++;
		else if ((ch == '(' || ch == '[') && depth)
			depth--;
		else if (!depth && (ch == ';' || ch == '{' || ch == '}'))
			return k;
	}
	return lo;
}

/* Does a word that is a type (not a keyword that starts an expression)
 * stand right before offset `at`? */
static bool type_word_before(const char *c, size_t lo, size_t at)
{
	static const char *const exprs[] = {"return", "case", "throw", "co_return", "co_yield", "co_await",
					    "new", "delete", "else", "do", "sizeof", "goto", "and", "or",
					    "not", "typename"};
	size_t e = back_ws(c, lo, at), s = e;
	while (s > lo && ot_is_ident_char(c[s - 1]))
		s--;
	if (s == e || !ot_is_ident_start(c[s]) || (s > lo && (c[s - 1] == '.' || c[s - 1] == '#')))
		return false;
	for (size_t i = 0; i < OT_ARRAY_LEN(exprs); i++)
		if (e - s == strlen(exprs[i]) && !memcmp(c + s, exprs[i], e - s))
			return false;
	return true;
}

/* Is the name at `at` (an unqualified call as the scanner read it) the
 * variable of a declaration, `Type name(args)`: a type word stands right
 * before it, or a template type starts the statement (`std::vector<int64_t>
 * inverse(dims)`), or it is a further declarator of one (`MklDimVector a(n,
 * 0), b(n, 0)`)? */
static bool declares(const char *c, size_t lo, size_t at)
{
	size_t e = back_ws(c, lo, at);
	if (e > lo && (c[e - 1] == '>' || c[e - 1] == ',')) {
		/* the statement starts with `Type<...> name(` or `Type name(...),` */
		size_t st = back_ws(c, lo, statement_start(c, lo, at));
		size_t k = st, name_at, open;
		while (k < at && is_space(c[k]))
			k++;
		st = k;
		while (k < at && (ot_is_ident_char(c[k]) || c[k] == ':' || is_space(c[k])))
			k++;
		if (k == st || k >= at)
			return false;
		if (c[k] == '<') {
			size_t m = match_bracket(c, lo, at, k);
			if (m == (size_t)-1)
				return false;
			k = m + 1;
			while (k < at && (is_space(c[k]) || c[k] == '&' || c[k] == '*'))
				k++;
			if (c[e - 1] == '>')
				return k == at; /* the name right after the template type */
			name_at = k;
		} else {
			/* Type name(: the last word before the first `(` */
			open = k;
			while (open < at && c[open] != '(')
				open++;
			name_at = back_ws(c, st, open);
			while (name_at > st && ot_is_ident_char(c[name_at - 1]))
				name_at--;
			if (c[e - 1] != ',' || name_at == st || !type_word_before(c, lo, name_at))
				return false;
			k = name_at;
		}
		/* the first declarator `name(...)`, then a top-level comma up to `at` */
		while (k < at && ot_is_ident_char(c[k]))
			k++;
		k = skip_ws(c, k, at);
		if (k >= at || c[k] != '(' || (open = match_bracket(c, lo, at, k)) == (size_t)-1)
			return false;
		for (k = open + 1; k < e - 1; k++)
			if (!is_space(c[k]))
				return false;
		return c[e - 1] == ',' && name_at < at;
	}
	return type_word_before(c, lo, at);
}

static bool is_keyword(const char *w)
{
	static const char *const words[] = {"return", "case", "throw", "co_return", "sizeof", "new",
					    "delete", "else", "do", "auto", "const", "void", "char",
					    "int", "float", "double", "long", "unsigned", "bool"};
	for (size_t i = 0; i < OT_ARRAY_LEN(words); i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

/* The comparison `op` says with its operands swapped (Scalar < Tensor is
 * Tensor > Scalar, as TensorOperators.h writes it), or NULL when `op` is not
 * a comparison. */
static const char *mirrored_comparison(const char *op)
{
	static const char *const pairs[][2] = {{"eq", "eq"}, {"ne", "ne"}, {"lt", "gt"},
					       {"gt", "lt"}, {"le", "ge"}, {"ge", "le"}};
	for (size_t i = 0; i < OT_ARRAY_LEN(pairs); i++)
		if (!strcmp(op, pairs[i][0]))
			return pairs[i][1];
	return NULL;
}

/* A binary operator (OT_CALL_OPERATOR): the aten op its name says when an
 * operand is a Tensor (the receiver, for a compound assignment), by
 * TensorOperators.h; else not a call. */
static void operator_kind(struct ck_ctx *x, ot_callkind *out, const ot_ix_call *c, const char *code,
			  size_t hi)
{
	const struct name_info *ni = ot_map_get(x->ck->names, c->name);
	bool compound = ot_ends_with(c->name, "_");
	size_t ls, le, rs, re, oplen = c->off + 1 < hi && code[c->off + 1] == '=' ? 2 : 1;
	const char *mirror;
	const char *l, *r;
	ot_ty lt, rt;
	out->kind = OT_CK_NONE;
	if (ni && ni->op && !strcmp(c->name, "neg")) {
		/* a unary minus: -x is x.neg() when x is a Tensor */
		if (!operand_after(code, x->d->body, hi, c->off + 1, &rs, &re))
			return;
		r = span(x->a, code, rs, re);
		if (expr_type(x, r) != OT_TY_TENSOR)
			return;
		out->kind = OT_CK_OP;
		out->op = ni->op;
		out->text = memchr(code + c->off, '\n', re - c->off) ? "-" : span(x->a, code, c->off, re);
		out->receiver_tensor = true; /* the operand is self; neg takes nothing else */
		out->nargs = 0;
		out->overload = fit_overload(x, out->op, false, out->args, out->nargs, true);
		return;
	}
	if (!ni || !ni->op ||
	    !operands(code, x->d->body, hi, c->off, oplen, &ls, &le, &rs, &re))
		return;
	l = span(x->a, code, ls, le);
	r = span(x->a, code, rs, re);
	if (is_keyword(l) || !*r)
		return;
	lt = expr_type(x, l);
	rt = compound ? OT_TY_UNKNOWN : expr_type(x, r);
	if (compound ? lt != OT_TY_TENSOR : lt != OT_TY_TENSOR && rt != OT_TY_TENSOR)
		return;
	out->kind = OT_CK_OP;
	out->op = ni->op;
	mirror = mirrored_comparison(ni->op);
	if (mirror && lt == OT_TY_OTHER) {
		/* Scalar <= Tensor: the Tensor's ge with the Scalar */
		const char *t = l;
		out->op = mirror;
		l = r;
		r = t;
	} else if (!compound && lt == OT_TY_OTHER && (!strcmp(ni->op, "sub") || !strcmp(ni->op, "div"))) {
		/* Scalar - Tensor, Scalar / Tensor: TensorOperators.h fills a new
		 * tensor with the scalar and subtracts or divides in place */
		out->op = !strcmp(ni->op, "sub") ? "sub_" : "div_";
		compound = true;
	}
	/* shown as written when it sits on one line */
	out->text = memchr(code + ls, '\n', re - ls) ? ot_arena_strndup(x->a, code + c->off, oplen)
						       : span(x->a, code, ls, re);
	if (compound) {
		out->receiver_tensor = true;
		out->args[0] = r;
		out->nargs = 1;
	} else {
		out->args[0] = l;
		out->args[1] = r;
		out->nargs = 2;
	}
	out->overload = fit_overload(x, out->op, false, out->args, out->nargs, compound);
}

void ot_callkind_of(ot_callkind *out, const ot_callkinds *ck, const ot_ix_cdef *d,
		    const ot_ix_call *c, ot_arena *arena)
{
	ot_callkind_of_in(out, ck, d, c, arena, NULL);
}

/* Bind the names of `params` ("a,b,c") to the template arguments
 * written in `code` at the '<' at `open`, each read where x holds. */
static void bind_targs(struct ck_ctx *x, const char *params, const char *code, size_t open, size_t hi,
		       ot_ck_subst *out)
{
	const char *args[OT_CK_MAX_SUBST];
	int n = split_tparams(args, OT_CK_MAX_SUBST, x->a, code, open, hi);
	const char *p = params;
	for (int i = 0; i < n && p && *p && out->n < OT_CK_MAX_SUBST; i++) {
		size_t k = strcspn(p, ",");
		const char *t = resolve_type(x, member_class(x, x->d), args[i]);
		/* only what names a class of the tree, or a Tensor, says anything
		 * (scalar_t, float: nothing a call resolves by); and a value
		 * (LogSoftMax = false), which conditions read */
		if (class_of_type(x, t) || ot_callkind_type(t) == OT_TY_TENSOR || !strcmp(t, "true") ||
		    !strcmp(t, "false") || isdigit((unsigned char)t[0])) {
			out->name[out->n] = ot_arena_strndup(x->a, p, k);
			out->type[out->n] = t;
			out->n++;
		}
		p += k + (p[k] == ',');
	}
}

/* Add (name, type) to a substitution, unless it is full or has it. */
static void subst_add(ot_ck_subst *out, const char *name, const char *type)
{
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->name[i], name))
			return;
	if (out->n < OT_CK_MAX_SUBST) {
		out->name[out->n] = name;
		out->type[out->n++] = type;
	}
}

/* The data members constructor h initializes from its parameters
 * (`FullLayer(Cell<...>& cell) : cell_(cell) {}` gives cell_ <- 0):
 * member names into `members`, parameter indexes into `from`. */
static size_t ctor_inits(struct ck_ctx *x, const ot_ix_cdef *h, const char **members, size_t *from,
			 size_t max)
{
	const ot_ix_file *f = ot_index_file(x->ck->ix, h->file);
	const char *c, *pn[OT_CK_MAX_ARGS], *pt[OT_CK_MAX_ARGS], *items[OT_CK_MAX_ARGS];
	size_t open, close, np, n = 0;
	int ni;
	if (!f || !h->body || (open = params_open(f, h)) == (size_t)-1)
		return 0;
	c = f->code;
	close = match_bracket(c, open, h->body, open);
	if (close == (size_t)-1 || (close = skip_ws(c, close + 1, h->body)) >= h->body || c[close] != ':')
		return 0;
	np = ot_callkind_params(x->ck->ix, h, pn, pt, OT_CK_MAX_ARGS, x->a);
	/* the initializer list, as one argument list: ( a(b), c{d} ) */
	{
		char *list = ot_arena_printf(x->a, "(%.*s)", (int)(h->body - close - 1), c + close + 1);
		ni = split_args(items, OT_CK_MAX_ARGS, x->a, list, 0, strlen(list));
	}
	for (int i = 0; i < ni && n < max; i++) {
		const char *it = items[i], *o = strpbrk(it, "({");
		size_t k;
		if (!o)
			continue;
		for (k = 0; k < np; k++) {
			size_t pl = strlen(pn[k]);
			const char *a = o + 1;
			while (*a == ' ')
				a++;
			if (!strncmp(a, pn[k], pl) && !ot_is_ident_char(a[pl]) && strspn(a + pl, " )}") == strlen(a + pl))
				break;
		}
		if (k < np) {
			members[n] = ot_arena_strndup(x->a, it, strcspn(it, " ({"));
			from[n++] = k;
		}
	}
	return n;
}

/* The object argument `arg` makes for a parameter `param` of the callee
 * that calls it: "@param" its class, and for a construction with
 * arguments (LayerT<...>{cell}) "@param.m" what each data member its
 * constructor initializes from an argument refers to. */
static void object_argument(struct ck_ctx *x, const char *param, const char *arg, ot_ck_subst *out)
{
	const char *t = expr_typestr(x, arg), *cls, *brace;
	const ot_ix_cdef *ctors[OT_CK_MAX_DEFS];
	const char *cargs[OT_CK_MAX_ARGS];
	size_t n, al = strlen(arg);
	int nc;
	if (!t || !(cls = class_of_type(x, t)))
		return;
	t = resolve_deep(x, t);
	subst_add(out, ot_arena_printf(x->a, "@%s", param), t);
	/* T{a, b} or T(a, b): its constructor's member initializers */
	if (!al || (arg[al - 1] != '}' && arg[al - 1] != ')'))
		return;
	brace = arg + match_bracket(arg, 0, al, al - 1);
	if (brace <= arg)
		return;
	nc = split_args(cargs, OT_CK_MAX_ARGS, x->a, arg, (size_t)(brace - arg), al);
	n = class_methods(x, cls, cls, ctors, OT_CK_MAX_DEFS);
	for (size_t i = 0; i < n && nc > 0; i++) {
		const char *members[8];
		size_t from[8], nm;
		size_t req, tot;
		param_range(x, ctors[i], &req, &tot);
		if ((size_t)nc < req || (size_t)nc > tot)
			continue;
		nm = ctor_inits(x, ctors[i], members, from, 8);
		for (size_t m = 0; m < nm; m++) {
			const char *mt = (int)from[m] < nc ? expr_typestr(x, cargs[from[m]]) : NULL;
			if (mt && class_of_type(x, mt))
				subst_add(out, ot_arena_printf(x->a, "@%s.%s", param, members[m]), resolve_deep(x, mt));
		}
		break;
	}
}

/* Deduce the template parameters `to` has in `params` ("CellType,...,
 * cell_params") from the types of the arguments: a parameter declared
 * `const std::vector<cell_params>&` given a std::vector<CellParams> makes
 * cell_params CellParams. */
static void deduce_targs(struct ck_ctx *x, const ot_ix_cdef *to, const char *const *args, size_t nargs,
			 ot_ck_subst *out)
{
	const char *pn[OT_CK_MAX_ARGS], *pt[OT_CK_MAX_ARGS];
	size_t np = ot_callkind_params(x->ck->ix, to, pn, pt, OT_CK_MAX_ARGS, x->a);
	for (size_t k = 0; k < np && k < nargs; k++) {
		char pat[256], name[128];
		const char *lt, *at, *alt;
		size_t plen;
		normalize_type(pat, sizeof(pat), pt[k]);
		if (ot_starts_with(pat, "typename"))
			continue;
		lt = strchr(pat, '<');
		plen = strlen(pat);
		for (const char *p = to->fn_tparams; p && *p;) {
			size_t l = strcspn(p, ",");
			snprintf(name, sizeof(name), "%.*s", (int)l, p);
			p += l + (p[l] == ',');
			if (subst_get(&(struct ck_ctx){.subst = out}, name))
				continue;
			if (!lt) {
				if (strcmp(pat, name) || !(at = expr_typestr(x, args[k])) || !class_of_type(x, at))
					continue;
				subst_add(out, ot_arena_strdup(x->a, name), resolve_deep(x, at));
				continue;
			}
			/* Tmpl<name>: the argument's Tmpl<A> */
			if (pat[plen - 1] != '>' || strncmp(lt + 1, name, strlen(name)) ||
			    lt + 1 + strlen(name) != pat + plen - 1 || !(at = expr_typestr(x, args[k])))
				continue;
			at = resolve_deep(x, at);
			{
				char an[256];
				canonical_type(an, sizeof(an), at);
				alt = strchr(an, '<');
				if (!alt || (size_t)(alt - an) != (size_t)(lt - pat) || strncmp(an, pat, (size_t)(lt - pat)))
					continue;
				an[strlen(an) - 1] = '\0';
				if (class_of_type(x, alt + 1) || value_type(alt + 1))
					subst_add(out, ot_arena_strdup(x->a, name), ot_arena_strdup(x->a, alt + 1));
			}
		}
	}
}

/* The offset of the '<' of `Cls<...>::` right before offset `at` (a
 * static method's class template arguments), or SIZE_MAX. */
static size_t class_targs_before(const char *code, size_t lo, size_t at)
{
	size_t i = back_ws(code, lo, at), m;
	if (i < lo + 2 || code[i - 1] != ':' || code[i - 2] != ':')
		return SIZE_MAX;
	i = back_ws(code, lo, i - 2);
	if (i <= lo || code[i - 1] != '>')
		return SIZE_MAX;
	m = match_bracket(code, lo, at, i - 1);
	return m == (size_t)-1 ? SIZE_MAX : m;
}

size_t ot_callkind_subst(const ot_callkinds *ck, const ot_ix_cdef *from, const ot_ix_call *c,
			 const ot_callkind *kind, const ot_ix_cdef *to, const ot_ck_subst *outer, ot_ck_subst *out,
			 ot_arena *arena)
{
	struct ck_ctx x = {ck, from, ot_index_file(ck->ix, from->file), arena, c->off, from->pp, outer, 0,
			   false, {0}, {0}, 0};
	const char *code = from->gen ? x.f->text : x.f->code, *objt = NULL, *objname = NULL;
	size_t hi = from->body_end ? from->body_end : x.f->len, open;
	const char *fc = member_class(&x, from);
	memset(out, 0, sizeof(*out));
	if (c->off == OT_IX_CALL_NO_TEXT)
		return 0;
	open = skip_ws(code, c->off + strlen(c->name), hi);
	/* the object whose method it is: its class template's arguments, and
	 * what its data members refer to */
	if (c->kind == OT_CALL_FUNCTOR && code[open] == '<') {
		if (to->cls_tparams)
			bind_targs(&x, to->cls_tparams, code, open, hi, out);
	} else if (c->kind == OT_CALL_MEMBER) {
		size_t rs, re;
		bool arrow;
		if (receiver(code, from->body, c->off, &rs, &re, &arrow)) {
			objname = span(arena, code, rs, re);
			objt = expr_typestr(&x, objname);
		}
	} else if (c->kind == OT_CALL_PLAIN && !*c->qual && (objt = object_type(&x, c->name))) {
		objname = c->name; /* layer(...), cell_(...): an object handed in */
	} else if (c->kind == OT_CALL_PLAIN && *c->qual && to->cls_tparams &&
		   (open = class_targs_before(code, from->body, c->off)) != SIZE_MAX) {
		/* Cls<scalar_t, false>::apply(...): the class template's arguments */
		bind_targs(&x, to->cls_tparams, code, open, hi, out);
		open = skip_ws(code, c->off + strlen(c->name), hi);
	} else if (outer && fc && to->in_class && to->cls && !strcmp(fc, to->cls)) {
		*out = *outer; /* a method of the same class: (*this)(...), f(...) */
	}
	if (objt && to->cls_tparams && strchr(objt, '<')) {
		objt = resolve_deep(&x, objt);
		bind_targs(&x, to->cls_tparams, objt, (size_t)(strchr(objt, '<') - objt), strlen(objt), out);
	}
	if (objname && outer) {
		size_t k = strlen(objname);
		for (size_t i = 0; i < outer->n; i++)
			if (outer->name[i][0] == '@' && !strncmp(outer->name[i] + 1, objname, k) &&
			    outer->name[i][k + 1] == '.')
				subst_add(out, ot_arena_printf(arena, "@this%s", outer->name[i] + k + 1), outer->type[i]);
	}
	/* a function template's arguments: written, or deduced */
	if (to->fn_tparams) {
		if (c->kind == OT_CALL_PLAIN && code[open] == '<')
			bind_targs(&x, to->fn_tparams, code, open, hi, out);
		deduce_targs(&x, to, kind->args, kind->nargs, out);
	}
	/* objects handed to parameters the callee calls (layer(...)) */
	{
		const char *pn[OT_CK_MAX_ARGS], *pt[OT_CK_MAX_ARGS];
		size_t np = ot_callkind_params(ck->ix, to, pn, pt, OT_CK_MAX_ARGS, arena);
		for (size_t k = 0; k < np && k < kind->nargs; k++)
			for (uint32_t i = 0; i < to->ncalls; i++)
				if (to->calls[i].kind == OT_CALL_PLAIN && !*to->calls[i].qual &&
				    !strcmp(to->calls[i].name, pn[k])) {
					object_argument(&x, pn[k], kind->args[k], out);
					break;
				}
	}
	return out->n;
}

/* The candidates in out->defs bound: those the call's arguments (and its
 * `targs` template arguments) fit; `kind` when one is left. */
static bool bind_defs(struct ck_ctx *x, ot_callkind *out, size_t targs, ot_ck_kind kind)
{
	if (out->ndefs > 1)
		out->ndefs = fit_helpers(x, out->defs, out->ndefs, out->args, out->nargs, targs);
	if (out->ndefs)
		out->kind = kind;
	return out->ndefs > 0;
}

static void callkind_of(ot_callkind *out, const ot_callkinds *ck, const ot_ix_cdef *d, const ot_ix_call *c,
			ot_arena *arena, const ot_ck_subst *subst);

void ot_callkind_of_in(ot_callkind *out, const ot_callkinds *ck, const ot_ix_cdef *d,
		       const ot_ix_call *c, ot_arena *arena, const ot_ck_subst *subst)
{
	/* the methods of TensorBase that dispatch an op (core/Tensor.cpp) */
	static const char *const base_ops[] = {"fill_", "zero_", "to", "contiguous"};
	bool base_op = false;
	callkind_of(out, ck, d, c, arena, subst);
	for (size_t i = 0; i < OT_ARRAY_LEN(base_ops) && c->kind == OT_CALL_MEMBER; i++)
		base_op = base_op || !strcmp(c->name, base_ops[i]);
	/* a file that asserts it uses no operator (TORCH_ASSERT_NO_OPERATORS)
	 * calls none but through those: a name that looks like one is its own
	 * helper (cuda/Pow.cuh's pow_) */
	if (out->kind == OT_CK_OP && !base_op && !d->gen && ot_index_file(ck->ix, d->file)->no_operators)
		out->kind = OT_CK_NONE;
}

static void callkind_of(ot_callkind *out, const ot_callkinds *ck, const ot_ix_cdef *d, const ot_ix_call *c,
			ot_arena *arena, const ot_ck_subst *subst)
{
	struct ck_ctx x = {ck, d, ot_index_file(ck->ix, d->file), arena, c->off, c->pp ? c->pp : d->pp, subst, 0,
			   false, {0}, {0}, 0};
	const struct name_info *ni = ot_map_get(ck->names, c->name);
	/* a macro-generated definition's own calls are in the #define, which
	 * the code view blanks: read them from the text */
	const char *code = d->gen ? x.f->text : x.f->code;
	size_t hi = d->body_end ? d->body_end : x.f->len, open;
	int nargs;

	memset(out, 0, sizeof(*out));
	out->exact = true;
	if (c->kind == OT_CALL_RETURN)
		return; /* not a call */
	if (c->kind == OT_CALL_OPERATOR) {
		operator_kind(&x, out, c, code, hi);
		return;
	}
	out->text = *c->qual ? ot_arena_printf(arena, "%s::%s", c->qual, c->name) : c->name;
	if (c->kind == OT_CALL_LAUNCH || c->kind == OT_CALL_MACRO_LAUNCH) {
		out->kind = OT_CK_LAUNCH;
		out->lib = OT_GPU_CUSTOM_KERNEL;
		if (c->kind == OT_CALL_MACRO_LAUNCH)
			out->text = c->qual;
		return;
	}
	/* the arguments (not known for a call a macro of another file writes) */
	if (c->off != OT_IX_CALL_NO_TEXT) {
		open = skip_ws(code, c->off + strlen(c->name), hi);
		if (open < hi && code[open] == '<') {
			size_t m = match_bracket(code, open, hi, open);
			open = m == (size_t)-1 ? hi : skip_ws(code, m + 1, hi);
		}
		if (c->kind == OT_CALL_FUNCTOR && open < hi && (code[open] == '{' || code[open] == ')')) {
			/* Foo{}(args), (*this)(args): the arguments of operator() */
			size_t m = code[open] == ')' ? open : match_bracket(code, open, hi, open);
			open = m == (size_t)-1 ? hi : skip_ws(code, m + 1, hi);
		}
		nargs = open < hi && code[open] == '(' ? split_args(out->args, OT_CK_MAX_ARGS, arena, code, open, hi) : 0;
		out->nargs = nargs < 0 ? 0 : (size_t)nargs > OT_CK_MAX_ARGS ? OT_CK_MAX_ARGS : (size_t)nargs;
	} else {
		x.at = 0;
	}

	if (c->kind == OT_CALL_REF) {
		const ot_ix_stub *s = ni && ni->stub ? find_stub(&x, c->qual, c->name) : NULL;
		if (s) {
			out->kind = OT_CK_STUB;
			out->stub = s;
		}
		return;
	}
	if (c->kind == OT_CALL_FUNCTOR) {
		/* GRUCell<CellParams>{}(...): the class's operator() */
		const char *cls = !strcmp(c->name, "this") ? member_class(&x, d) : substituted(&x, c->name);
		out->ndefs = cls ? class_methods(&x, cls, "operator", out->defs, OT_CK_MAX_DEFS) : 0;
		bind_defs(&x, out, SIZE_MAX, OT_CK_HELPER);
		return;
	}
	if (c->kind == OT_CALL_MEMBER) {
		size_t rs, re;
		bool arrow;
		ot_ty t;
		struct name_info wrapper = {0};
		if (ni && ni->method && c->off != OT_IX_CALL_NO_TEXT &&
		    receiver(code, d->body, c->off, &rs, &re, &arrow)) {
			/* a method of a class of the tree, on an object of that class
			 * (KronImpl(self, other).kron(), params.linear_ih(input)) */
			const char *cls = expr_class(&x, span(arena, code, rs, re));
			if (cls) {
				out->ndefs = class_methods(&x, cls, c->name, out->defs, OT_CK_MAX_DEFS);
				if (bind_defs(&x, out, explicit_targs(&x, code, hi, c), OT_CK_HELPER))
					return;
			}
		}
		if ((!ni || !ni->op) && (wrapper.op = wrapped_op(c->name))) {
			wrapper.op_method = true;
			ni = &wrapper;
		}
		if (!ni || !ni->op || !ni->op_method)
			return; /* no op of that name: Vectorized::exp, IntArrayRef::size... */
		/* x.to<T>(): no Tensor method that is an op takes template arguments
		 * (item<T> is the one that calls one) */
		if (code[skip_ws(code, c->off + strlen(c->name), hi)] == '<' && strcmp(c->name, "item"))
			return;
		if (!strcmp(d->name, ni->op) && hand_written_method(&x, ni->op))
			return; /* at::native::_backward's self._backward(...): the method
				   written by hand in Tensor.cpp, not a call of the op again */
		if (!receiver(code, d->body, c->off, &rs, &re, &arrow)) {
			out->kind = OT_CK_OP;
			out->op = ni->op;
			out->exact = false;
			out->why = "the receiver could not be read";
			return;
		}
		t = expr_type(&x, span(arena, code, rs, re));
		if ((!arrow && t == OT_TY_TENSOR) || (arrow && t == OT_TY_TENSOR_PTR)) {
			out->kind = OT_CK_OP;
			out->op = ni->op;
			out->receiver_tensor = true;
			out->overload = fit_overload(&x, ni->op, false, out->args, out->nargs, true);
			return;
		}
		if (t == OT_TY_UNKNOWN || t == OT_TY_AUTO) {
			out->kind = OT_CK_OP;
			out->op = ni->op;
			out->exact = false;
			out->why = ot_arena_printf(arena, "the type of `%s` is not known",
						   span(arena, code, rs, re));
			out->overload = fit_overload(&x, ni->op, false, out->args, out->nargs, true);
			return;
		}
		return; /* a method of something that is not a Tensor */
	}

	/* plain calls */
	if (!*c->qual && c->off != OT_IX_CALL_NO_TEXT && declares(code, d->body, c->off))
		return; /* MklDimVector mkl_istrides(n, 0): a local constructed */
	if (!*c->qual) {
		/* a parameter called (a stub or a functor handed in): what it is
		 * depends on the caller, not on the name */
		if (!x.params_read) {
			x.nparams = ot_callkind_params(ck->ix, d, x.pnames, x.ptypes, OT_CK_MAX_ARGS, arena);
			x.params_read = true;
		}
		for (size_t k = 0; k < x.nparams; k++)
			if (!strcmp(x.pnames[k], c->name)) {
				/* an object the caller handed in: its operator() */
				const char *o = object_type(&x, c->name), *oc = o ? class_of_type(&x, o) : NULL;
				out->ndefs = oc ? class_methods(&x, oc, "operator", out->defs, OT_CK_MAX_DEFS) : 0;
				bind_defs(&x, out, SIZE_MAX, OT_CK_HELPER);
				return;
			}
	}
	if (!*c->qual && member_class(&x, d)) {
		/* a data member called (cell_(...)): the operator() of what it
		 * refers to; C++ finds the member before any function */
		const char *cls = member_class(&x, d), *mt = object_type(&x, c->name);
		if (mt || (mt = member_type(&x, cls, c->name))) {
			const char *oc = class_of_type(&x, mt);
			out->ndefs = oc ? class_methods(&x, oc, "operator", out->defs, OT_CK_MAX_DEFS) : 0;
			bind_defs(&x, out, SIZE_MAX, OT_CK_HELPER);
			return;
		}
	}
	if (ot_callkind_is_ti_launcher(c->name)) {
		out->kind = OT_CK_LAUNCH;
		out->lib = OT_GPU_TI_KERNEL;
		return;
	}
	if ((out->lib = library_of(c->qual, c->name, out->args, out->nargs))) {
		size_t nov;
		/* an op's name that reads as Fortran (cat_out_cuda's copy_(nt, t)
		 * is at::native::copy_, not a BLAS routine): the op, below */
		if ((strcmp(out->lib, "LAPACK/BLAS") || !ot_registry_overloads(x.ck->reg, c->name, &nov)) &&
		    !own_leaf_helper(x.ck->ix, c->qual, c->name)) {
			out->kind = OT_CK_LIB;
			return;
		}
		out->lib = NULL;
	}
	{
		const char *q = c->qual[0] == ':' && c->qual[1] == ':' ? c->qual + 2 : c->qual;
		bool out_call = false;
		const char *op;
		/* at::symint::resize_<T>(...): the op, whichever of its C++
		 * spellings (resize_, resize__symint) T picks; at::cuda::sort(...)
		 * and at::cpu::mul_out(...) call the op's kernel for that device
		 * (code of that device only, so the device's path picks it) */
		if ((!strcmp(q, "at") || !strcmp(q, "at::symint") || !strcmp(q, "at::cpu") ||
		     !strcmp(q, "at::cuda")) &&
		    ni && ni->op) {
			op = op_of_name(ck->reg, arena, c->name, &out_call);
			out->kind = OT_CK_OP;
			out->op = op;
			out->overload = fit_overload(&x, op, out_call, out->args, out->nargs, false);
			return;
		}
		if (ot_starts_with(q, "at::_ops::") && (!strcmp(c->name, "call") || !strcmp(c->name, "redispatch"))) {
			/* at::_ops::mm::call(...): the op's handle, named after the overload */
			const char *opn = q + 10;
			char base[200];
			const ot_reg_func *f;
			size_t k = strcspn(opn, ":");
			snprintf(base, sizeof(base), "%.*s", (int)k, opn);
			f = ot_registry_find(ck->reg, base);
			if (!f) {
				/* mm_out -> mm.out: the last '_' separates the overload */
				char *us = strrchr(base, '_');
				if (us) {
					*us = '.';
					f = ot_registry_find(ck->reg, base);
				}
			}
			if (f) {
				out->kind = OT_CK_OP;
				out->op = f->schema.name;
				out->overload = f;
			}
			return;
		}
		if (!strcmp(q, "at::native") || !strcmp(q, "native")) {
			out->ndefs = native_defs(&x, c->name, out->defs, OT_CK_MAX_DEFS);
			bind_defs(&x, out, explicit_targs(&x, code, hi, c), OT_CK_NATIVE);
			return;
		}
		if (!*q) {
			/* class scope before the namespaces: a method of the class d
			 * is a member of, or a class's constructor (KronImpl(a, b)) */
			const char *cls = member_class(&x, d);
			out->ndefs = cls ? class_methods(&x, cls, c->name, out->defs, OT_CK_MAX_DEFS) : 0;
			if (!out->ndefs)
				out->ndefs = class_methods(&x, c->name, c->name, out->defs, OT_CK_MAX_DEFS);
			if (bind_defs(&x, out, explicit_targs(&x, code, hi, c), OT_CK_HELPER))
				return;
		}
		if (ni && ni->stub) {
			const ot_ix_stub *s = find_stub(&x, c->qual, c->name);
			const ot_ix_cdef *local[1];
			/* a function of that name in the file is what the call means */
			if (s && !find_helpers(&x, c->qual, c->name, local, 1)) {
				out->kind = OT_CK_STUB;
				out->stub = s;
				return;
			}
		}
		out->ndefs = find_helpers(&x, c->qual, c->name, out->defs, OT_CK_MAX_DEFS);
		if (bind_defs(&x, out, explicit_targs(&x, code, hi, c), OT_CK_HELPER))
			return;
		if (!*q && ni && ni->op) {
			size_t b = back_ws(code, d->body, c->off);
			bool tensor_arg = false, scalar_args = out->nargs > 0;
			/* ::exp(x), numeric_limits<T>::max(): qualified by the global
			 * scope or by a type, never an aten op */
			if (b >= 2 && code[b - 1] == ':' && code[b - 2] == ':')
				return;
			/* an aten op takes a Tensor: exp(x) of floats or Vectorized is
			 * C++'s or ATen's vector maths */
			for (size_t k = 0; k < out->nargs; k++) {
				enum cat a = arg_cat(&x, out->args[k]);
				tensor_arg = tensor_arg || a == C_TENSOR || a == C_TLIST;
				scalar_args = scalar_args && (a == C_INT || a == C_FLOAT || a == C_BOOL || a == C_SCALAR ||
							      a == C_OTHER);
			}
			if (scalar_args && !tensor_arg)
				return;
			/* inside at::native an unqualified kernel name is the native
			 * function itself; elsewhere argument-dependent lookup finds
			 * at::x for Tensor arguments */
			if (ns_encloses("at::native", d->ns) && ot_map_get(ck->kernel_names, c->name)) {
				out->ndefs = native_defs(&x, c->name, out->defs, OT_CK_MAX_DEFS);
				if (bind_defs(&x, out, explicit_targs(&x, code, hi, c), OT_CK_NATIVE))
					return;
			}
			if (ns_encloses("at", d->ns) && !ni->stub) {
				op = op_of_name(ck->reg, arena, c->name, &out_call);
				out->kind = OT_CK_OP;
				out->op = op;
				out->overload = fit_overload(&x, op, out_call, out->args, out->nargs, false);
				out->exact = out->overload != NULL;
				if (!out->exact)
					out->why = "no overload takes these arguments";
			}
		}
	}
}
