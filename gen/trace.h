/*
 * trace.h - the trace of one op through the layers of SPEC §3.
 *
 * A tracer combines the registry (native_functions.yaml, derivatives.yaml)
 * and the index of one release. ot_trace_op walks, for one input:
 * Python API -> bridge -> every native_functions.yaml overload reached ->
 * structured delegate -> the C++ function of each dispatch key (meta/impl)
 * -> DispatchStub declarations, definitions and every registered kernel ->
 * the GPU library or kernel that does the work -> the derivatives.yaml
 * entry of the exact overload and its helpers -> decompositions.
 *
 * Every fact is a step whose (file, line) was checked, when it was made,
 * to contain its symbol. What cannot be found is a step with found=false
 * and a note "not found: <what> in <where>"; nothing is guessed.
 *
 * The tracer is read-only after ot_tracer_new: ot_trace_op may run in
 * many threads at once.
 */
#ifndef OT_TRACE_H
#define OT_TRACE_H

#include "common.h"
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

/** One fact of a trace. Strings are owned by the trace's arena. */
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
	uint8_t main;        /**< OT_MAIN_CPU | OT_MAIN_CUDA: on the main path of a
				  default call on that device (ot_trace_main) */
	const char *when;    /**< the condition under which the step runs, quoted from
				  the source, or NULL when it always runs on its path */
} ot_step;

/** Bits of ot_step.main. */
#define OT_MAIN_CPU 1u
#define OT_MAIN_CUDA 2u

typedef enum {
	OT_STATUS_TRACED,
	OT_STATUS_WELLKNOWN,
	OT_STATUS_NOTFOUND,
	OT_STATUS_ERROR
} ot_status;

/** "traced", "well-known", "not-found", "error". */
const char *ot_status_name(ot_status s);

/*
 * Words of the trace that optrace diff reads back from trace.json: the two
 * gpu_libs entries that name no library, and the note of a kernel launch.
 */
#define OT_GPU_CUSTOM_KERNEL "custom CUDA kernel"
#define OT_GPU_TI_KERNEL "TensorIterator CUDA kernel"
#define OT_NOTE_LAUNCH "launches the CUDA kernel"

typedef OT_VEC(const char *) ot_strvec;

/** A runtime selection point (use_cudnn(...), _fused_sdp_choice, ...). */
typedef struct {
	const char *symbol;
	const char *file;
	uint32_t line;
} ot_selection;

typedef struct {
	ot_arena *arena;
	const char *input;  /**< as written in ops.list */
	ot_target target;
	ot_status status;
	bool full;          /**< the early exit was bypassed */

	ot_strvec aten;     /**< overloads of the op itself, full names, in order */
	OT_VEC(ot_step) steps;

	ot_strvec backends; /**< dispatch keys and stub registrations, sorted */
	ot_strvec gpu_libs; /**< "cuBLAS", "cuDNN", OT_GPU_CUSTOM_KERNEL, ... sorted */
	OT_VEC(ot_selection) selection;
	ot_strvec calls;    /**< other aten ops reached (base names), in order */
	ot_strvec messages; /**< warnings and errors about this op */
	ot_strvec suggestions; /**< "did you mean" for a not-found op */

	/* facts for the performance notes */
	bool composite_implicit; /**< an overload has no kernel of its own */
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

typedef struct ot_tracer ot_tracer;

typedef struct {
	int max_depth;      /**< composite branches followed (default 1; the caller
				 of ot_tracer_new chooses, optrace's is 3) */
	int helper_depth;   /**< C++ helper functions followed per kernel (default 3) */
	bool full;          /**< --full: no well-known early exit for any op */
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
 * with suggestions, a malformed name status error with a message. Caller
 * frees with ot_trace_free.
 */
ot_trace *ot_trace_op(const ot_tracer *t, const char *input, bool full, int max_depth);

void ot_trace_free(ot_trace *tr);

/** Number of steps with found == false. */
size_t ot_trace_missing(const ot_trace *tr);

#endif
