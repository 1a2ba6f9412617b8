/*
 * index.h - everything the tracer needs from one release's source tree,
 * read once and kept in memory for every op of the run.
 *
 * ot_index_build reads the files that matter (aten/src/ATen/, the Python
 * package's API layers, torch/csrc/autograd/) from the selected release
 * through the source module, in parallel, runs the scanners over each file's
 * code view (see lex.h), and files the results in maps by name. Nothing is
 * scanned again afterwards; the index is read-only and safe to share between
 * threads.
 *
 * Every record carries (file, line) where `line` is 1-based and the text of
 * that line contains the record's name: that is what makes a trace step
 * checkable. One exception: a definition a macro invocation generated
 * (FOREACH_UNARY_OP(erfc) defines foreach_tensor_erfc_slow_ through
 * foreach_tensor_##OP##_slow_) is filed under its name at the invocation's
 * line, which holds the invocation (ot_ix_cdef.gen), not the name.
 *
 * After the scan, the index expands macro invocations: for each one whose
 * macro builds function names (defined earlier in the same file, or in a
 * header the file includes; nested macros and X-macro lists followed up to
 * four levels), the generated definitions join the written ones.
 */
#ifndef OT_INDEX_H
#define OT_INDEX_H

#include <stdint.h>

#include "common.h"
#include "lex.h"

/** The autograd code generator, indexed as text (not scanned): its rules
 * decide the backward of ops that have no derivatives.yaml entry. */
#define OT_INDEX_AUTOGRAD_CODEGEN_PATH "tools/autograd/gen_variable_type.py"
/** Its list of the ops whose autograd kernels are written by hand. */
#define OT_INDEX_TRACE_CODEGEN_PATH "tools/autograd/gen_trace_type.py"
/** Where torchgen derives the backward of _foreach ops (2.1 and later). */
#define OT_INDEX_FOREACH_CODEGEN_PATH "torchgen/api/autograd.py"

struct ot_source;

/* ---- files ---------------------------------------------------------------- */

typedef struct {
	const char *path;   /**< repository-relative */
	const char *text;   /**< the whole file, NUL-terminated */
	size_t len;
	const uint32_t *line_off; /**< byte offset of each line's start */
	uint32_t nlines;
	ot_lang lang;
} ot_ix_file;

/* ---- C++ / CUDA --------------------------------------------------------------- */

typedef enum {
	OT_CALL_PLAIN,  /**< f(...), ns::f(...), f<T>(...) */
	OT_CALL_MEMBER, /**< x.f(...), x->f(...) */
	OT_CALL_LAUNCH, /**< f<<<grid, block>>>(...) */
	OT_CALL_REF,    /**< a stub named but not called: impl(..., cumsum_stub) */
	OT_CALL_MACRO_LAUNCH /**< SMALL_INDEX(...), a macro of the file whose
			          expansion launches `name`; `qual` is the macro */
} ot_ix_call_kind;

/** A call inside a function body. */
typedef struct {
	const char *name; /**< the called identifier, "gemm" */
	const char *qual; /**< what precedes "::" ("at::cuda::blas"), or ""; the
			       macro's name for OT_CALL_MACRO_LAUNCH */
	uint32_t line;
	uint8_t kind;     /**< ot_ix_call_kind */
} ot_ix_call;

/* ---- function-like macros that define functions ------------------------------ */

/** One piece of a token sequence written in a macro body: literal text, or
 * a parameter of the macro (replaced by the invocation's argument). */
typedef struct {
	const char *text; /**< literal text, or NULL for a parameter */
	uint16_t param;   /**< the parameter's index when `text` is NULL; the
			       variadic `__VA_ARGS__` is index `nparams` */
} ot_ix_part;

/** A token sequence of a macro body with parameters left open: the pieces,
 * concatenated, give the expansion ("foreach_tensor_" OP "_slow_" for
 * foreach_tensor_##OP##_slow_; one space between two words, none elsewhere). */
typedef struct {
	const ot_ix_part *parts;
	uint16_t nparts;
} ot_ix_template;

typedef enum {
	OT_MITEM_FUNC,  /**< Ret name(...) { ... }: a function named by pasting */
	OT_MITEM_IMPL,  /**< TORCH_IMPL_FUNC(name)(...) { ... } */
	OT_MITEM_INVOKE /**< OTHER_MACRO(args...) or PARAM(args...) at the body's top
			     level: a macro the expansion invokes in turn */
} ot_ix_mitem_kind;

/** Something a macro body defines or invokes at its top level (outside
 * braces and parentheses). */
typedef struct {
	uint8_t kind;             /**< ot_ix_mitem_kind */
	ot_ix_template name;      /**< the defined name, or the invoked macro */
	const ot_ix_template *args; /**< INVOKE: the arguments it passes */
	uint16_t nargs;
	const char *params;       /**< FUNC/IMPL: the function's parameter list as
				       written, one blank for any ("(TensorList tensors)") */
} ot_ix_mitem;

/** A `#define NAME(params) body` whose body defines functions with names
 * built from its parameters, or invokes another macro with them. */
typedef struct ot_ix_macro {
	const char *name;
	uint16_t nparams;
	bool variadic;
	const ot_ix_mitem *items;
	uint32_t nitems;
	uint32_t file, line; /**< the line of `#define` */
	const struct ot_ix_macro *next; /**< next definition of the same name */
} ot_ix_macro;

/** A macro invoked at namespace or class scope, with all its arguments. */
typedef struct {
	const char *macro;       /**< "FOREACH_BINARY_OP_LIST" */
	const char *const *args; /**< arguments as written, blanks collapsed */
	uint16_t nargs;
	const char *text;        /**< the invocation as written ("OP(f, erfc, Erfc)")
				      when it fits on its line, else the macro name:
				      either way a substring of line `line` */
	const char *ns;          /**< enclosing namespaces, as for ot_ix_cdef */
	uint32_t file, line;     /**< the line of the macro name */
	bool in_class;
} ot_ix_minvoke;

/** How a macro invocation generated a definition (ot_ix_cdef.gen). */
typedef struct ot_ix_gen {
	const ot_ix_minvoke *site;  /**< the invocation in the source */
	const ot_ix_macro *macro;   /**< the definition of the invoked macro */
	const ot_ix_macro *paster;  /**< the definition whose body builds the name;
				         differs from `macro` when the invoked macro
				         invokes another one */
	const char *inner;          /**< that inner invocation with its arguments
				         substituted ("DEFINE_COMPARATOR(ne)"), or NULL */
	const char *params;         /**< the function's parameter list (ot_ix_mitem) */
} ot_ix_gen;

typedef enum {
	OT_CDEF_FUNC,       /**< Ret name(...) { ... } */
	OT_CDEF_IMPL,       /**< TORCH_IMPL_FUNC(name)(...) { ... } */
	OT_CDEF_META,       /**< TORCH_META_FUNC(op) / TORCH_META_FUNC2(op, overload) */
	OT_CDEF_PRECOMPUTE, /**< TORCH_PRECOMPUTE_META_FUNC(op) / ...FUNC2 */
	OT_CDEF_MACRO       /**< NAME(first, ...) at namespace scope: maybe what a
			         macro defines (a last resort for lookups) */
} ot_ix_cdef_kind;

/** A C++/CUDA function definition (never a declaration or a call), or a
 * namespace-scope macro invocation that may define one (`macro` set). */
typedef struct ot_ix_cdef {
	const char *name;  /**< "linear"; META2: "op.overload" */
	const char *qual;  /**< written qualifier ("at::native", "Foo"), or "" */
	const char *macro; /**< the macro that defines it (CREATE_UNARY_TORCH_IMPL_FUNC,
			        ONE_HIDDEN_RNN), or NULL for a written definition */
	const char *ns;    /**< enclosing namespaces: "at::native",
			        "at::native::(anonymous)", "" at global scope */
	uint32_t file;     /**< index into the file table */
	uint32_t line;     /**< line of the name token */
	uint32_t end_line; /**< line of the body's closing brace */
	uint8_t kind;      /**< ot_ix_cdef_kind */
	bool global;       /**< a CUDA __global__ kernel */
	bool in_class;     /**< defined inside a class/struct body */
	const ot_ix_call *calls; /**< calls in the body, in order */
	uint32_t ncalls;
	const ot_ix_gen *gen; /**< set when a macro invocation generated this
			           definition (FUNC or IMPL): `file` and `line` are
			           the invocation's, `macro` the invoked macro, and
			           the name is not on the line: show gen->site->text */
	const struct ot_ix_cdef *next; /**< next definition of the same name */
} ot_ix_cdef;

typedef enum { OT_STUB_DECLARE, OT_STUB_DEFINE, OT_STUB_REGISTER } ot_ix_stub_kind;

/** A DispatchStub site: DECLARE_DISPATCH, DEFINE_DISPATCH or REGISTER_*DISPATCH. */
typedef struct ot_ix_stub {
	const char *stub;   /**< "lstm_cudnn_stub" */
	const char *macro;  /**< "REGISTER_CUDA_DISPATCH" */
	const char *kernel; /**< registered function ("lstm_cudnn"), or NULL
			         (nullptr, REGISTER_NO_CPU_DISPATCH, a lambda) */
	uint32_t file, line;
	uint8_t kind;       /**< ot_ix_stub_kind */
	const struct ot_ix_stub *next; /**< next site of the same stub */
} ot_ix_stub;

/* ---- Python -------------------------------------------------------------------- */

typedef enum { OT_PY_CLASS, OT_PY_DEF, OT_PY_ASSIGN } ot_ix_py_kind;

/** A dotted name called or referenced in a Python body. */
typedef struct {
	const char *path; /**< "torch._C._nn.linear", "F.relu", "self._conv_forward" */
	uint32_t line;
	bool call;        /**< followed by '(' */
} ot_ix_pyref;

/** A Python class, function/method, or module-level assignment. */
typedef struct ot_ix_pydef {
	const char *name;
	uint8_t kind;      /**< ot_ix_py_kind */
	uint32_t file, line, end_line;
	uint32_t indent;   /**< column of `class`/`def`/the name */
	const char *bases; /**< class: base list as written ("RNNBase"), else NULL */
	const struct ot_ix_pydef *parent; /**< enclosing class or def, or NULL */
	const ot_ix_pyref *refs; /**< calls (def: body; assign: right-hand side
				      references too), in order */
	uint32_t nrefs;
	const struct ot_ix_pydef *next; /**< next definition of the same name */
} ot_ix_pydef;

/** A `register_decomposition(aten.x...)` site. */
typedef struct ot_ix_decomp {
	const char *op;   /**< "addmm.default", "addmm" as written after "aten." */
	const char *func; /**< the decorated function's name, or NULL */
	uint32_t file, line;
	const struct ot_ix_decomp *next; /**< next site for the same base op */
} ot_ix_decomp;

/** A docstring anchor: add_docstr(torch.x, ...) or add_docstr_all("x", ...). */
typedef struct ot_ix_doc {
	const char *name;
	bool method; /**< from torch/_tensor_docs.py */
	uint32_t file, line;
	const struct ot_ix_doc *next;
} ot_ix_doc;

/* ---- the index ------------------------------------------------------------------- */

typedef struct ot_index ot_index;

typedef struct {
	size_t files, bytes;        /**< files and bytes read */
	size_t cdefs, calls, stubs; /**< records found */
	size_t pydefs, decomps, docs;
	size_t macros;    /**< #defines that build function names (ot_ix_macro) */
	size_t generated; /**< definitions generated by invoking them */
	double read_seconds, scan_seconds; /**< summed over threads */
} ot_index_stats;

/**
 * Read and scan the selected release of `src` with `threads` worker
 * threads (>= 1), then expand the macro invocations that define functions
 * (in file order, on one thread). Output is identical whatever the thread
 * count. Caller frees with ot_index_free.
 */
int ot_index_build(ot_index **out, struct ot_source *src, int threads);

void ot_index_free(ot_index *ix);

const ot_index_stats *ot_index_get_stats(const ot_index *ix);

/** The file table. */
const ot_ix_file *ot_index_file(const ot_index *ix, uint32_t id);

/** The id of a path, or -1 when the path was not indexed. */
int64_t ot_index_file_id(const ot_index *ix, const char *path);

/** Text of 1-based `line` of file `id` (not NUL-terminated; *len set). NULL when out of range. */
const char *ot_index_line(const ot_index *ix, uint32_t id, uint32_t line, size_t *len);

/** True when `line` of file `id` contains `needle`. */
bool ot_index_line_has(const ot_index *ix, uint32_t id, uint32_t line, const char *needle);

/** The first line of file `id` containing `needle` (1-based), or 0; 0 too
 * for a negative `id` (a file the tree does not have). */
uint32_t ot_index_find_line(const ot_index *ix, int64_t id, const char *needle);

/* Lookups by name: the first record of a linked list (file order), or NULL. */
const ot_ix_cdef *ot_index_cdefs(const ot_index *ix, const char *name);
const ot_ix_stub *ot_index_stubs(const ot_index *ix, const char *stub);
const ot_ix_pydef *ot_index_pydefs(const ot_index *ix, const char *name);
const ot_ix_decomp *ot_index_decomps(const ot_index *ix, const char *base_op);
const ot_ix_doc *ot_index_docs(const ot_index *ix, const char *name);

/**
 * The definitions written in file `id` (not those macro invocations
 * generate), in file order; *n gets their count (0 for an id out of range).
 * Borrowed.
 */
const ot_ix_cdef *ot_index_file_cdefs(const ot_index *ix, uint32_t id, size_t *n);
const ot_ix_pydef *ot_index_file_pydefs(const ot_index *ix, uint32_t id, size_t *n);

/** Every distinct name called in a C++/CUDA body, in first-seen (file) order. */
size_t ot_index_call_name_count(const ot_index *ix);
const char *ot_index_call_name_at(const ot_index *ix, size_t i);

/** Every Python class name, module-level def and assignment name (for "did you mean"). */
size_t ot_index_pynames(const ot_index *ix, const char ***out);

/* ---- scanning one file (used by ot_index_build, exposed for tests and fuzzing) --- */

/** Everything found in one file, owned by the arena given to the scanner. */
typedef struct {
	OT_VEC(ot_ix_cdef) cdefs;
	OT_VEC(ot_ix_stub) stubs;
	OT_VEC(ot_ix_pydef) pydefs;
	OT_VEC(ot_ix_decomp) decomps;
	OT_VEC(ot_ix_doc) docs;
	size_t ncalls;
	const ot_ix_macro *macros;   /**< C: macros that paste names (in the arena) */
	size_t nmacros;
	const ot_ix_minvoke *invokes; /**< C: macro invocations (in the arena) */
	size_t ninvokes;
} ot_scan_result;

/**
 * The line table of `text` (`len` bytes): the offset where each line
 * starts (0, then one past every newline that is not the last byte), in
 * `arena`. Returns the number of lines, 0 for an empty text (whose table
 * still holds the 0).
 */
uint32_t ot_line_starts(const uint32_t **out, ot_arena *arena, const char *text, size_t len);

/** The 1-based line holding byte `off`, from a table of `n` line starts. */
uint32_t ot_line_at(const uint32_t *starts, uint32_t n, size_t off);

/**
 * Scan a C/C++/CUDA file. `code` is its code view (ot_lex_code_view), `text`
 * the original (both `len` bytes, with the same newlines), `lines` their
 * line table (ot_line_starts, `nlines` lines). Records get file id `file`;
 * strings and call arrays are allocated in `arena`. Never fails.
 */
void ot_scan_c(ot_scan_result *out, ot_arena *arena, const char *code, const char *text,
	       size_t len, const uint32_t *lines, uint32_t nlines, uint32_t file);

/** Same for a Python file; `path` selects file-specific anchors (docs files). */
void ot_scan_python(ot_scan_result *out, ot_arena *arena, const char *code, const char *text,
		    size_t len, uint32_t file, const char *path);

/** Release the vectors of a scan result (not the arena data). */
void ot_scan_result_free(ot_scan_result *r);

/** "pcre2 X.Y", for --version. Borrowed. */
const char *ot_scan_library_version(void);

#endif
