/*
 * trace.h - the trace of one op: a typed graph of what its call reaches,
 * with the path a default call runs marked on it.
 *
 * Nodes are the places of SPEC §3 (a Python function, a generated binding,
 * a native_functions.yaml entry, a C++ function, a meta function, a
 * DispatchStub, a library call, a kernel launch, a derivatives.yaml entry,
 * a decomposition, or "not found"), each with its file:line, checked when
 * it was made to contain its symbol. Edges are the relations between them
 * (a call, a bridge into C++, a dispatch for a key, a delegate, a stub call,
 * a stub's registration, a launch, a library call, a derivative, a
 * decomposition), each with where it is written and the condition it is
 * taken under.
 *
 * Who builds what (one job per file):
 *   tracer.c        the driver: an input to its roots, the queue of ops
 *   trace_py.c      nodes and edges of Python code (pyflow.h)
 *   trace_cpp.c     nodes and edges of entries, C++ bodies, stubs (callkind.h)
 *   trace_back.c    the backward: derivatives.yaml entries and helpers
 *   trace_main.c    one marking pass: the main path of a default call with
 *                   dense float32 tensors on CPU and on CUDA, in the build of
 *                   a release wheel (cond.h)
 *   trace_summary.c libraries, backends, selections, key nodes: main edges only
 *   trace_steps.c   the first-reach view (ot_step), for trace.json's `steps`
 * Renderers (page, graph, tracejson, diff) read the graph, the main flags and
 * the summary; none re-derives them.
 *
 * The tracer is read-only after ot_tracer_new: ot_trace_op may run in many
 * threads at once.
 */
#ifndef OT_TRACE_H
#define OT_TRACE_H

#include "callkind.h"
#include "common.h"
#include "cond.h"
#include "index.h"
#include "registry.h"
#include "resolve.h"
#include "wellknown.h"

typedef enum {
	OT_LAYER_PYTHON,
	OT_LAYER_BRIDGE,
	OT_LAYER_YAML,
	OT_LAYER_CPP,
	OT_LAYER_META,
	OT_LAYER_STUB,
	OT_LAYER_KERNEL,
	OT_LAYER_CUDA,
	OT_LAYER_BACKWARD,
	OT_LAYER_DECOMPOSITION,
	OT_LAYER_COUNT
} ot_layer;

/** "python", "bridge", "yaml", "cpp", "meta", "stub", "kernel", "cuda", "backward", "decomposition". */
const char *ot_layer_name(ot_layer layer);

/** Bits of the main path: on the path of a default call on that device. */
#define OT_MAIN_CPU 1u
#define OT_MAIN_CUDA 2u
#define OT_MAIN_BIT(dev) ((dev) == OT_DEV_CUDA ? OT_MAIN_CUDA : OT_MAIN_CPU)

/* ---- the graph ----------------------------------------------------------------- */

typedef enum {
	OT_NODE_PYFUNC,  /**< a Python class, def or module-level assignment */
	OT_NODE_BINDING, /**< where Python reaches generated C++ (torch/_VF.py, class Tensor,
			      the re-export of torch/__init__.py) */
	OT_NODE_ENTRY,   /**< a native_functions.yaml overload */
	OT_NODE_CFUNC,   /**< a C++ function: composite, kernel or helper */
	OT_NODE_META,    /**< a structured kernel's meta function */
	OT_NODE_STUB,    /**< a DispatchStub (at its DECLARE_DISPATCH) */
	OT_NODE_LIBCALL, /**< a call into a library (cuBLAS, cuDNN, MKL, ...) */
	OT_NODE_LAUNCH,  /**< a CUDA kernel launch (<<<...>>>, gpu_kernel) */
	OT_NODE_DERIV,   /**< a derivatives.yaml entry, or a helper or backward op a formula calls,
			      or the code generator's rule for an op without an entry */
	OT_NODE_DECOMP,  /**< a registered decomposition */
	OT_NODE_MISSING, /**< "not found: <what> in <where>" */
	OT_NODE_KIND_COUNT
} ot_node_kind;

/** "pyfunc", "binding", "entry", "cfunc", "meta", "stub", "libcall", "launch",
 * "derivative", "decomposition", "missing". */
const char *ot_node_kind_name(ot_node_kind k);

/** One node. Strings are the trace's (its arena). */
typedef struct {
	uint8_t kind;        /**< ot_node_kind */
	uint8_t layer;       /**< ot_layer of its step */
	uint8_t main;        /**< OT_MAIN_*: on that device's main path (ot_trace_mark),
				  perhaps only for some arguments */
	uint8_t sure;        /**< OT_MAIN_*: run by every default call there (reached by
				  edges taken whatever the arguments) */
	uint8_t back;        /**< OT_MAIN_*: of `main`, the devices where only the
				  backward reaches it (through a derivative edge) */
	uint8_t idle;        /**< OT_MAIN_*: the devices it never runs on for
				  dense tensors: an entry whose dispatch table has
				  no kernel there (a CUDA-only op on the CPU) */
	bool found;          /**< false for OT_NODE_MISSING */
	bool wellknown_stop; /**< ENTRY: a well-known op reached and not followed (the
				  reference's page tells its kernels) */
	bool gradless;       /**< ENTRY: returns no Tensor and writes none of its
				  arguments, so no gradient leaves it: the grad_fns
				  the ops of its composite kernel record carry none
				  to the caller (_choose_qparams_per_tensor reads
				  min and max through .item()) */
	const char *file;    /**< repository-relative; NULL when not found */
	uint32_t line;       /**< 1-based; 0 when not found */
	uint32_t fails;      /**< CFUNC: the line (in `file`) of a statement its body
				  runs on every call that throws (TORCH_CHECK(false,
				  ...)): no call gets past it, so no default call is
				  routed here; 0 */
	const char *fails_text; /**< that statement as written (blanks collapsed), or NULL */
	bool fails_args;     /**< `fails` is a check the arguments it is reached with
				  fail (TORCH_CHECK(mask_type_.has_value()) with
				  mask_type=None), not a throw on every call */
	bool predicate;      /**< CFUNC: it returns bool (written with its name): a
				  check or a run-time choice (cudnn_is_acceptable),
				  not the op's work: the overview leaves it out */
	const char *symbol;  /**< text on that line (what was looked for, when missing) */
	const char *note;    /**< what it is, in a few words; "not found: X in Y" */
	const char *op;      /**< the aten overload it belongs to (first reached from), or "" */
	const char *backend; /**< "CPU", "CUDA", "MPS", ... for kernels, or "" */
	const char *lib;     /**< LIBCALL: the library; LAUNCH: OT_GPU_CUSTOM_KERNEL or
			          OT_GPU_TI_KERNEL; else NULL */
	const char *def_file;/**< STUB: its DEFINE_DISPATCH, or NULL */
	uint32_t def_line;
	uint8_t depth;       /**< composite branches from the op itself */
	const void *src;     /**< the index or registry record it came from; NULL
			          for a trace read from trace.json */
	const char *body;    /**< on a main path, a definition's code (body.h), or NULL */
} ot_node;

typedef enum {
	OT_EDGE_CALL,       /**< a Python or C++ function calls a function */
	OT_EDGE_BRIDGE,     /**< Python reaches a generated binding; a binding its entry */
	OT_EDGE_OP,         /**< C++ calls an aten op through the dispatcher */
	OT_EDGE_DELEGATE,   /**< structured_delegate */
	OT_EDGE_DISPATCH,   /**< an entry's kernel for a dispatch key (`key`) */
	OT_EDGE_META,       /**< an entry's meta function */
	OT_EDGE_STUB,       /**< C++ calls (or hands over) a DispatchStub */
	OT_EDGE_REGISTER,   /**< a DispatchStub's kernel for a backend (`key`) */
	OT_EDGE_LAUNCH,     /**< C++ launches a kernel; a launch its __global__ function */
	OT_EDGE_LIBCALL,    /**< C++ calls a library */
	OT_EDGE_DERIVATIVE, /**< an entry's derivative; a formula's helper or backward op */
	OT_EDGE_DECOMPOSES, /**< an entry's decomposition */
	OT_EDGE_KIND_COUNT
} ot_edge_kind;

/** "call", "bridge", "op", "delegate", "dispatch", "meta", "stub", "register",
 * "launch", "libcall", "derivative", "decomposes". */
const char *ot_edge_kind_name(ot_edge_kind k);

/** Why an edge is, or is not, taken by a default call. */
typedef enum {
	OT_WHEN_ALWAYS,     /**< no condition */
	OT_WHEN_BUILD,      /**< a preprocessor arm (#if AT_CUDNN_ENABLED()) */
	OT_WHEN_KEY,        /**< a dispatch key or a stub's backend (SparseCPU, MPS, CUDA) */
	OT_WHEN_GUARD,      /**< a guard in the code: one a default call does not take
				 (self.is_sparse()), or that depends on the call's
				 arguments (not is_batched, dim == 2) */
	OT_WHEN_SELECT,     /**< a run-time selection of a backend or library
				 (cudnn_is_acceptable(...), use_mkldnn(...)) */
	OT_WHEN_VALIDATION, /**< made only to validate an argument (TORCH_CHECK) */
	OT_WHEN_OVERLOAD,   /**< another overload than a default call binds */
	OT_WHEN_NAME,       /**< matched by name only: the receiver's type is not known */
	OT_WHEN_KIND_COUNT
} ot_when_kind;

/** "always", "build", "key", "guard", "select", "validation", "overload", "name". */
const char *ot_when_kind_name(ot_when_kind k);

/** Why an edge is, or is not, taken on one device. */
typedef struct {
	uint8_t kind;     /**< ot_when_kind */
	const char *text; /**< the condition as written ("not (x)" when the edge is
			       the else of x), or NULL */
	uint32_t line;    /**< where it is written (in the edge's when_file), or 0 */
	const char *written; /**< the deciding condition alone, as written at `line`
			          (no "not", no second condition), or NULL */
} ot_cond;

/** Can a default call on a device take an edge? */
typedef enum { OT_REACH_NEVER = 0, OT_REACH_MAYBE = 1, OT_REACH_YES = 2 } ot_reach;

/** One edge. Strings are the trace's. */
typedef struct {
	uint8_t kind;       /**< ot_edge_kind */
	uint8_t main;       /**< OT_MAIN_*: on that device's main path (ot_trace_mark):
				 a default call can take it (OT_REACH_YES or MAYBE) */
	uint8_t sure;       /**< OT_MAIN_*: every default call takes it (OT_REACH_YES, from
				 a node every default call runs) */
	uint8_t when_kind;  /**< ot_when_kind */
	uint8_t reach[OT_DEV_COUNT]; /**< ot_reach per device, from the condition */
	ot_cond cond[OT_DEV_COUNT];  /**< the condition per device */
	bool exact;         /**< resolved by type or scope; false: by name only */
	uint8_t raised;     /**< OT_MAIN_*: the devices where a call could take it
				 but its callee raises on every call (ot_node.fails):
				 its reach there is then never */
	uint32_t from, to;  /**< node indices */
	const char *site_file; /**< where it is written (a call's line), or NULL */
	uint32_t site_line;
	const char *site_symbol; /**< the call as written there ("at::_softmax") */
	const char *site_note;   /**< what the site is ("calls the functional"), or NULL */
	bool site_step;     /**< the first-reach view shows the site as a step of its own */
	const char *when;   /**< the condition a reader is shown: for an edge a default
			         call can take, the run-time selection it depends on;
			         for another, why it is not taken; or NULL */
	const char *when_file; /**< where the condition is written, or NULL */
	uint32_t when_line;
	const char *when_written; /**< the deciding condition as written at
				       when_line (see ot_cond.written), or NULL */
	const char *key;    /**< DISPATCH: the dispatch keys; REGISTER: the backend */
	const char *arms_when; /**< a call `from` makes in several arms of one if
				    chain (this site one of them): the condition
				    under which it makes one of them, "" for
				    always; NULL when this site's `when` says it */
} ot_edge;

/** Where a default call on a device ends in an error (ot_trace.raises). */
typedef struct {
	const char *symbol;    /**< the function that raises, or the entry without a kernel */
	const char *file;
	uint32_t line;         /**< the throwing statement, or the entry's line */
	const char *statement; /**< the throwing statement as written, or NULL */
	const char *why;       /**< for an entry: why the call fails at dispatch, else NULL */
} ot_raise;

/** Recompute the condition edge e shows (when, when_kind, when_line,
 * when_written) from its reach and conditions per device. */
void ot_edge_headline(ot_edge *e);

/* ---- the summary ----------------------------------------------------------------- */

/** A library or kernel kind called on a path. */
typedef struct {
	const char *lib;   /**< "cuBLAS", "MKL", OT_GPU_CUSTOM_KERNEL, ... */
	uint32_t node;     /**< the first call site of it */
	uint8_t main;      /**< OT_MAIN_*: on those main paths */
	const char *when;  /**< off the main paths: the condition, else NULL */
} ot_lib_use;

/** A run-time selection on a main path. */
typedef struct {
	const char *symbol; /**< the condition as written ("at::cudnn_is_acceptable(input)") */
	const char *file;
	uint32_t line;
	uint8_t main;       /**< the main paths it is on */
} ot_selection;

typedef OT_VEC(const char *) ot_strvec;

/** The index of string `s` in `v`, or -1. */
long ot_strvec_index(const ot_strvec *v, const char *s);

/* ---- the trace --------------------------------------------------------------------- */

/** One fact of the first-reach view (trace.json's `steps`). */
typedef struct {
	ot_layer layer;
	bool found;
	const char *file;    /**< repository-relative; NULL when not found */
	uint32_t line;       /**< 1-based; 0 when not found */
	const char *symbol;  /**< text found on that line (or what was looked for) */
	const char *note;    /**< what it means; "not found: X in Y" when !found */
	const char *op;      /**< the aten op (full name) it belongs to, or "" */
	const char *backend; /**< "CPU", "CUDA", ... for kernels and registrations, or "" */
	uint8_t depth;       /**< 0: the op itself; n: reached through n composite branches */
	int parent;          /**< index of the step that led here, -1 for a root */
	uint8_t main;        /**< OT_MAIN_CPU | OT_MAIN_CUDA: on that device's main path */
	uint8_t sure;        /**< of those, the devices where every default call runs it */
	const char *when;    /**< the condition under which the step runs, quoted from
				  the source (for a step on a main path but not sure there,
				  the innermost argument condition above it), or NULL */
	bool split_when;     /**< its node is reached on the CPU and on CUDA under
				  different conditions: dev_when has each (NULL: none) */
	const char *dev_when[OT_DEV_COUNT];
	const char *body;    /**< its node's body fingerprint (body.h), or NULL */
	uint32_t fails;      /**< its node's `fails`: the line (in `file`) of the
				  statement that raises on every call, or 0 */
	bool predicate;      /**< its node's `predicate` (not in trace.json) */
} ot_step;

/** The condition under which step s runs on device d. */
const char *ot_step_when(const ot_step *s, ot_device d);

typedef enum {
	OT_STATUS_TRACED,
	OT_STATUS_WELLKNOWN,
	OT_STATUS_NOTFOUND,
	OT_STATUS_ERROR
} ot_status;

/** "traced", "well-known", "not-found", "error". */
const char *ot_status_name(ot_status s);

/* Words of the trace that optrace diff reads back from trace.json: the note
 * of a kernel launch. */
#define OT_NOTE_LAUNCH "launches the CUDA kernel"

/* The note of a C++ call of an op: OT_NOTE_CALLS_OP "NAME", and after it
 * OT_NOTE_WELLKNOWN when the trace stops at that op (the page's GPU-call
 * note reads them back). */
#define OT_NOTE_CALLS_OP "branch: calls aten::"
#define OT_NOTE_WELLKNOWN " (well-known, see its page)"

/* The start of the condition of an edge whose caller never runs on a
 * device (trace_main.c): not a condition of its own, its caller's is. As
 * far as the trace follows: a call past --depth is not in it. */
#define OT_WHY_CALLER_OFF "called, as far as the trace follows, only from code that never runs"

/* The start of the condition of an edge matched by name only (the
 * receiver's type, or the overload, is not known): no claim of a call. */
#define OT_WHY_BY_NAME "matched by name only"


typedef struct {
	ot_arena *arena;
	const char *input;  /**< as written in ops.list */
	ot_target target;
	ot_status status;
	bool full;          /**< the early exit was bypassed */
	const char *build;  /**< the build the main path assumes (ot_build_describe) */
	const char *overload; /**< the overload a default call reaches, or NULL */

	OT_VEC(ot_node) nodes;
	OT_VEC(ot_edge) edges;
	OT_VEC(uint32_t) roots; /**< where the trace starts: the first main_roots are
				     where a default call starts; the others (the op's
				     other overloads, asked for by name) are side roots */
	size_t main_roots;
	OT_VEC(ot_step) steps; /**< the first-reach view */
	/* the edges leaving each node (after ot_trace_index): out[out_start[n] ..
	 * out_start[n + 1]) are edge indices in order of addition */
	uint32_t *out_start, *out;

	ot_strvec aten;     /**< overloads of the op itself, full names, the one a
			         default call reaches first */
	/* the summary (trace_summary.c), from the main paths */
	ot_strvec backends; /**< dispatch keys and stub backends: CUDA and CPU first */
	ot_strvec gpu_libs; /**< libraries and kernel kinds on the CUDA main path (forward) */
	ot_strvec cpu_libs; /**< libraries on the CPU main path (forward) */
	OT_VEC(ot_lib_use) libs;     /**< every library call, main or side */
	OT_VEC(ot_selection) selection; /**< run-time selections on the main paths */
	uint32_t key[OT_DEV_COUNT][OT_LAYER_COUNT]; /**< the node that stands for a layer
						       on each main path, +1 (0: none) */
	uint32_t raises[OT_DEV_COUNT]; /**< the node, +1, where a default call on that
					    device ends in an error: a function its
					    main path calls that raises on every call,
					    or an entry it calls without a kernel for
					    the device (0: none); ot_trace_raise */
	ot_strvec calls;    /**< other aten ops on the main paths (base names), in order */
	ot_strvec messages; /**< warnings and errors about this op */
	ot_strvec suggestions; /**< "did you mean" for a not-found op */

	/* facts of the overload a default call reaches, for the performance notes */
	bool composite_implicit; /**< it has no kernel of its own */
	bool composite_explicit;
	bool structured;         /**< structured kernel (meta + impl) */
	bool tensor_iterator;    /**< structured_inherits: TensorIteratorBase */
	bool ufunc;              /**< generated ufunc kernels (ufunc_inner_loop) */
	bool has_out;            /**< an .out overload exists */
	bool has_inplace;        /**< an in-place name_ overload exists */

	bool is_wellknown;
	ot_wellknown_match wellknown;

	/** The op's tests and benchmarks (testdb.h), set by the run after
	 * tracing (in this trace's arena), or NULL when not looked up. */
	const struct ot_testfacts *tests;
} ot_trace;

/* ---- walking the graph --------------------------------------------------------------- */

#define OT_ITEROVER (-31)

/** An iteration over the edges leaving one node, optionally only those of
 * some kinds (a mask of 1 << ot_edge_kind; 0 for all) or on a main path
 * (main_only: OT_MAIN_* bits, 0 for any). */
typedef struct {
	const ot_trace *tr;
	uint32_t pos, end;
	uint32_t kinds;
	uint8_t main_only;
} ot_trace_iter;

void ot_trace_edges(ot_trace_iter *it, const ot_trace *tr, uint32_t node, uint32_t kinds,
		    uint8_t main_only);

/** The next edge (*out borrowed), or OT_ITEROVER at the end. */
int ot_trace_next(const ot_edge **out, ot_trace_iter *it);

/** Is `op` ("_spdiags", "histc.out") one of the op's own overloads
 * (tr->aten), not an op its kernels call? */
bool ot_trace_own_op(const ot_trace *tr, const char *op);

/** Meta, stub, kernel, cuda: the layers where a kernel does an op's work
 * (a summary names the op's own there before a callee's). */
bool ot_layer_does_work(ot_layer layer);

/** Build the edge index the iterator uses (after nodes and edges are added). */
void ot_trace_index(ot_trace *tr);

/* ---- the tracer ------------------------------------------------------------------------- */

typedef struct ot_tracer ot_tracer;

typedef struct {
	int max_depth;      /**< composite branches followed (default 1; the caller
				 of ot_tracer_new chooses, optrace's is 3) */
	int helper_depth;   /**< C++ helper functions followed per kernel (default 3) */
	bool full;          /**< --full: no well-known early exit for any op */
	const char *version;/**< the release traced: picks the build profile */
} ot_tracer_opts;

/**
 * A tracer over a loaded registry and index (both borrowed; they must
 * outlive it). `wk` may be NULL (no early exit).
 */
ot_tracer *ot_tracer_new(const ot_registry *reg, const ot_index *ix, const ot_wellknown *wk,
			 const ot_tracer_opts *opts);
void ot_tracer_free(ot_tracer *t);

/**
 * Trace one op. `full` bypasses the well-known early exit for this op
 * (ops.list `!full`); `max_depth` > 0 replaces the tracer's max_depth for
 * this op. Never fails as a whole: an unknown op gives status not-found
 * with suggestions, a malformed name status error with a message. The
 * trace comes back marked, summarised and with its steps. Caller frees
 * with ot_trace_free.
 */
ot_trace *ot_trace_op(const ot_tracer *t, const char *input, bool full, int max_depth);

/** Fill `out` for device `dev` of `tr`; false when a default call there
 * does not end in an error. */
bool ot_trace_raise(const ot_trace *tr, ot_device dev, ot_raise *out);

/** An empty trace with its own arena (for readers of trace.json). */
ot_trace *ot_trace_new(void);

void ot_trace_free(ot_trace *tr);

/** Number of nodes that were not found. */
size_t ot_trace_missing(const ot_trace *tr);

/* ---- the passes (trace_main.c, trace_summary.c, trace_steps.c) ----------------------------- */

/** Mark the main paths: from the roots, the edges a default call on each
 * device can take (OT_REACH_YES or MAYBE, resolved exactly), and the nodes
 * they reach (`main`); of those, what every default call runs (`sure`). */
void ot_trace_mark(ot_trace *tr);

/** Derive the summary from the marked graph. */
void ot_trace_summarize(ot_trace *tr);

/** Is aten op `op` ("lstm.input") the op a module or functional input
 * names (nn.LSTM: lstm; F.cross_entropy: cross_entropy_loss), rather than
 * one its code also calls? True for every op of other inputs. */
bool ot_trace_names_op(const ot_trace *tr, const char *op);

/** True for an aten op (base name: "empty_like", "view") that only
 * allocates, resizes or views a tensor; _n: of the name's first n bytes. */
bool ot_aten_is_bookkeeping(const char *name);
bool ot_aten_is_bookkeeping_n(const char *name, size_t n);

/** Build the first-reach view from the marked graph. */
void ot_trace_make_steps(ot_trace *tr);

/** The condition under which either of two step conditions holds, when one
 * is the other's negation ("" for always), both are "P and Q", "P and
 * not (Q)" (P), or they are "X" and "not (X) and Y" (X or Y); NULL when
 * that cannot be told. */
const char *ot_when_either(ot_arena *a, const char *w1, const char *w2);

/** What a condition that tests a local alone quotes after it: "x, where x =
 * INIT" (the local's initializer, on one line). */
#define OT_WHEN_WHERE ", where "

/** The length of condition `when` without that quote. */
size_t ot_when_core(const char *when);

#endif
