/*
 * which.h - the reverse lookup: from a function, a file, a line, a kernel
 * name as a profiler prints it, or a diff, to the ops whose traces reach it.
 *
 * Built on the traces of a release and its index. Every found step of
 * every trace is filed under the place it points at (file, line) and
 * under the innermost function definition whose extent (the line of its
 * name to the line of its closing brace; a Python def to its last line)
 * holds that line. A query then names places:
 *
 *  - FILE:LINE: the steps on that line, the innermost function around it,
 *    and for native_functions.yaml / derivatives.yaml the entry whose block
 *    holds the line;
 *  - FILE (a repository path, or a unique suffix of one): every function of
 *    the file a trace reaches, and the steps outside functions;
 *  - aten::NAME[.OVERLOAD]: the registry entries, and the ops whose traces
 *    have a yaml step for them;
 *  - a C++ or Python name, qualified or not, or a demangled kernel name
 *    with templates and arguments (kname.h): the definitions of that name
 *    whose scope the qualifier names; when no trace reaches them (a
 *    generic launcher such as vectorized_elementwise_kernel), the names in
 *    its template arguments: functions of that name (a lambda's enclosing
 *    function), the functor torchgen generates for a ufunc_inner_loop
 *    (CUDAFunctor_add, CUDAFunctorOnSelf_add: the entries whose loop names
 *    `add`), and the traced functions whose bodies name a type of that
 *    name (sum_kernel_cuda for sum_functor); the traced calls of the name
 *    (trace steps whose symbol is it: the cuBLAS wrapper at::cuda::blas::gemm
 *    is called from traced kernels, its own body is not traced); when
 *    nothing of that name is defined, the GPU library whose kernel it is
 *    (kname_library) and the trace steps that call that library.
 *
 * A diff (udiff.h) names the changed lines of its old side: the functions
 * whose extents they touch (an insertion touches a function when it falls
 * strictly inside it), the registry entries whose blocks they touch, and
 * the steps on those lines.
 *
 * Which path an op takes to a place is read from its steps' `main` and
 * `when` fields only (trace.h); this module never re-derives it.
 */
#ifndef OT_WHICH_H
#define OT_WHICH_H

#include "common.h"
#include "index.h"
#include "kname.h"
#include "registry.h"
#include "trace.h"
#include "udiff.h"

typedef struct ot_which ot_which;

/**
 * The reverse index of `n` traces (borrowed, as `ix` and `reg`: they must
 * outlive it). Never fails. Caller frees.
 */
ot_which *ot_which_new(ot_trace *const *traces, size_t n, const ot_index *ix, const ot_registry *reg);

void ot_which_free(ot_which *w);

/** The traces it was built on (borrowed). */
ot_trace *const *ot_which_traces(const ot_which *w, size_t *n);

typedef enum {
	OT_WM_FUNCTION, /**< a function definition (C++/CUDA or Python) */
	OT_WM_LINE,     /**< steps on one line, outside any definition */
	OT_WM_ENTRY,    /**< a native_functions.yaml or derivatives.yaml entry */
	OT_WM_UFUNC,    /**< a functor torchgen generates for a ufunc_inner_loop */
	OT_WM_CALLSITE, /**< a call of a GPU library (a library's kernel) */
	OT_WM_CALL      /**< a traced call of the function asked for (whose own body no
			     trace enters: at::cuda::blas::gemm) */
} ot_which_kind;

/** "function", "line", "entry", "ufunc", "library call", "call". */
const char *ot_which_kind_name(ot_which_kind k);

/** An op that reaches a place: the trace, and its steps there (indexes, in order). */
typedef struct {
	size_t op;
	const size_t *steps;
	size_t nsteps;
} ot_which_op;

typedef struct {
	ot_which_kind kind;
	const char *symbol;  /**< the function, entry ("softmax.int"), functor or call */
	const char *scope;   /**< the function's namespaces and class ("at::native::(anonymous)"),
				  or NULL */
	const char *file;
	uint32_t line, end_line; /**< the definition's extent; end_line == line for a line */
	const char *detail;  /**< "__global__ CUDA kernel", "TORCH_IMPL_FUNC", "Python def",
				  the library, ..., or NULL */
	const char *via;     /**< how the query led here, when not by the name itself:
				  "template argument launch_clamp_scalar", "uses CUDAFunctor_add",
				  "changed lines 820-830", ...; or NULL */
	const ot_which_op *ops; /**< by trace index */
	size_t nops;
} ot_which_match;

typedef enum {
	OT_WQ_NAME,     /**< a function or kernel name */
	OT_WQ_FILE,
	OT_WQ_FILELINE,
	OT_WQ_OP,       /**< aten::x */
	OT_WQ_DIFF
} ot_which_qkind;

/** The answer to one query. */
typedef struct {
	ot_arena *arena;
	const char *query;
	ot_which_qkind qkind;
	const ot_kname *parsed;    /**< a name query: the name taken apart, else NULL */
	const ot_kname_lib *library; /**< the library a kernel name belongs to, or NULL */
	const ot_which_match *matches;
	size_t nmatches;
	const char *not_found;     /**< "not found: X in Y" when nothing matched, else NULL */
	size_t nops;               /**< distinct ops over all matches */
} ot_which_result;

/**
 * Answer `what` (see the header comment). Errors: an empty query, a name
 * that does not parse (kname.h). A query that finds nothing is not an
 * error: its result has no matches and says what was not found.
 * Caller frees with ot_which_result_free.
 */
int ot_which_query(ot_which_result **out, const ot_which *w, const char *what);

/**
 * The places the changed lines of `d` touch, at the release of the traces
 * (its old side). A file the release does not have (or a new file) is
 * named in no match; the result's not_found lists such files. Never fails.
 */
int ot_which_diff(ot_which_result **out, const ot_which *w, const ot_udiff *d);

void ot_which_result_free(ot_which_result *r);

/**
 * Every C++/CUDA function that holds a step on some op's main path
 * (ot_step.main set), with the ops whose main paths reach it (only those
 * steps), sorted by file and line; in `arena`. Returns the count.
 */
size_t ot_which_main_functions(const ot_which *w, ot_arena *arena, const ot_which_match **out);

#endif
