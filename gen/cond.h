/*
 * cond.h - what a default call decides: the conditions code runs under,
 * evaluated for a call with dense, strided float32 tensors on one device,
 * in the build of a release wheel.
 *
 * Three kinds of condition reach the tracer:
 *   - preprocessor arms (#if AT_CUDNN_ENABLED() ... #else), judged against
 *     the build profile of the traced release (ot_build);
 *   - guards in C++ bodies (if (self.is_sparse()), TORCH_CHECK(...), the
 *     ?: of a ternary), judged against the device and the arguments a
 *     caller passes when they are literals;
 *   - guards in Python bodies (if has_torch_function(...), if dtype is None).
 *
 * An answer is three-valued. TRUE and FALSE are facts of the default call;
 * UNKNOWN is a choice made at run time from values optrace cannot see (a
 * shape, a size threshold, a setting). Some TRUE answers are run-time
 * selections too (cudnn_is_acceptable(x) holds for a float CUDA tensor):
 * those are marked `select`, so that pages can quote the condition that
 * picks the path.
 */
#ifndef OT_COND_H
#define OT_COND_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "records.h"

struct ot_index;

typedef enum { OT_TRI_FALSE = 0, OT_TRI_UNKNOWN = 1, OT_TRI_TRUE = 2 } ot_tri;

typedef enum { OT_DEV_CPU = 0, OT_DEV_CUDA = 1, OT_DEV_COUNT } ot_device;

/** "CPU", "CUDA". */
const char *ot_device_name(ot_device d);

/** What a condition came to, and why. */
typedef struct {
	ot_tri value;
	bool select;      /**< decided by a run-time selection (cuDNN acceptable,
			       an SDP backend choice, a CPU capability) */
	bool validation;  /**< the code only validates (TORCH_CHECK, an arm that
			       raises): never part of what a call runs */
	const char *text; /**< the condition that decided it, as written (borrowed
			       from the index or the caller), or NULL */
	bool negated;     /**< it decided by failing: the code runs when `text` does
			       not hold (the else of an if) */
	uint32_t line;    /**< its line, or 0 */
	const char *also; /**< a second condition the code runs under, when two
			       are open (the innermost one beside a run-time
			       selection, or beside an outer open one), or NULL */
	bool also_negated; /**< `also` holds when its text does not */
	const char *def;  /**< when `text` is a local of the body alone (`all_contiguous`,
			       `!needs_grad_path`), its initializer as written there,
			       `defn` bytes (borrowed from the body), so a reader sees
			       what it tests; else NULL */
	size_t defn;
} ot_verdict;

/* ---- the build of a release wheel -------------------------------------------- */

typedef struct ot_build ot_build;

/**
 * The build profile assumed for release `version` ("2.6.0"): Linux x86-64,
 * CUDA with cuDNN, cuBLAS, cuSOLVER, cuFFT, MAGMA; CPU with MKL, oneDNN,
 * FBGEMM; not ROCm, not mobile. Releases without a profile of their own get
 * the newest one not newer than them. Static; never NULL.
 */
const ot_build *ot_build_for(const char *version);

/** One sentence naming the build, for pages ("the Linux x86-64 release
 * wheel of PyTorch 2.6.0: CUDA 12.4 with cuDNN 9.1, ..."). Static. */
const char *ot_build_describe(const ot_build *b);

/**
 * Is preprocessor arm `arm` of file `file` compiled in that build, for
 * `dev` (a .cu file is compiled for CUDA only)? Arms nested in arms are
 * judged with their parents; an arm is taken when no earlier arm of its
 * chain is. A macro the build profile does not name is undefined when no
 * indexed file #defines it (the build system would have to), else UNKNOWN.
 */
ot_verdict ot_cond_pparm(const ot_build *b, const struct ot_index *ix, uint32_t file,
			 uint32_t arm);

/** Is arm `arm` of `file` compiled in no build at all: one the macros the
 * source itself defines, whatever the build, rule out (the `#else` of
 * `#if AT_USE_JITERATOR()`: ATen/jit_macros.h defines it as true)? Its code
 * is dead, not another build's. */
bool ot_cond_pparm_never(const struct ot_index *ix, uint32_t file, uint32_t arm);

/** ot_cond_pparm for a header as a CUDA translation unit includes it
 * (nvcc defines __CUDACC__): a ufunc's `#if !defined(__CUDACC__)`
 * vectorized loop is not in the CUDA kernel. */
ot_verdict ot_cond_pparm_nvcc(const ot_build *b, const struct ot_index *ix, uint32_t file, uint32_t arm);

/** Does the text [from, to) of `code` give variable `name` another value
 * (`name = ...`, `name += ...`, `name++`; `name &= x` narrows it too)? */
bool ot_cond_assigned(const char *code, uint32_t from, uint32_t to, const char *name);

/* ---- C++ guards ---------------------------------------------------------------- */

/** What is known of one parameter of the function being evaluated. */
typedef struct {
	const char *name;
	const char *value; /**< literal the caller passes ("false", "0", "nullopt",
			        "undefined" for a default-constructed Tensor), or NULL */
} ot_param_value;

/** The environment of a C++ body: the device and the known arguments. */
typedef struct ot_cenv ot_cenv;
struct ot_cenv {
	ot_device dev;
	const ot_param_value *params;
	size_t nparams;
	/* the body's text, for the local booleans a guard tests
	 * (`const bool has_out = out.defined();`) */
	const char *code;
	size_t body, body_end;
	/** The offset in `code` of each line's start (`nlines` of them), or
	 * NULL; with `line`, where the condition is written (1-based; 0: not
	 * told), a local assigned again only after that line keeps the value
	 * it was declared with there. */
	const uint32_t *line_off;
	uint32_t nlines, line;
	/** The value of a call of a function the body sees (a predicate helper
	 * such as should_use_acc_buffer(iter)), worked out from the helper's
	 * returns; NULL when the caller offers none. `args` are the argument
	 * texts. */
	ot_verdict (*call_value)(const ot_cenv *env, const char *qual, const char *name,
				 const char *const *args, size_t nargs);
	const void *payload;
	int depth; /**< helpers evaluated on the way here */
	/** Optional memo of each guard's own verdict (what it says, its parents
	 * aside), `nguards` long, for bodies whose guards are asked again and
	 * again: owned by the caller, zeroed before the first use. */
	ot_verdict *memo;
	uint8_t *memo_done;
	/** When set, a guard written in a preprocessor arm this build leaves
	 * out is not there (the index holds the body's file). */
	const ot_build *build;
	const struct ot_index *ix;
	/** The aten op (full name, "ne.Scalar") whose call runs the body, or
	 * NULL: what its output's dtype is (a comparison writes Bool). */
	const char *op;
};

/**
 * Under what condition does the code at guard `guard` (1-based, 0: the
 * body's top level) of `d` run? Walks the guard and its parents; an else
 * arm is taken when the arms before it are not. A TORCH_CHECK argument or
 * an arm that raises gives validation = true.
 */
ot_verdict ot_cond_guard(const ot_cenv *env, const ot_ix_cdef *d, uint16_t guard);

/**
 * Under what condition does the code at one of the distinct guards
 * `guards[0..n)` of `d` run: the arms of several calls of one function?
 * Told when they are the arms of one if chain that ends in an else, from
 * some arm to the last (what the chain's parent runs under, and none of the
 * arms before that one taken); *told is false otherwise.
 */
ot_verdict ot_cond_guard_any(const ot_cenv *env, const ot_ix_cdef *d, const uint16_t *guards, size_t n,
			     bool *told);

/** One C++ condition expression. `text` is borrowed into the verdict. */
ot_verdict ot_cond_cexpr(const ot_cenv *env, const char *text);

/**
 * What C++ expression `text` (an argument a call passes) is known to be,
 * as a literal: "true", "false", a number, "None", a quoted string or a
 * constant ("Float"); written into buf (n bytes) or static; NULL when not
 * known. `use_gelu ? Activation::GELU : ...` with use_gelu false, `eps ?
 * eps.value() : -1.0` with eps None.
 */
const char *ot_cond_literal(const ot_cenv *env, const char *text, char *buf, size_t n);

/* ---- Python guards --------------------------------------------------------------- */

/** The environment of a Python body: parameter defaults and the locals a
 * literal is assigned to on the path, looked up by the caller's function. */
typedef struct ot_pyenv ot_pyenv;
struct ot_pyenv {
	ot_device dev;
	bool module;     /**< a Module's method: self.training holds */
	uint32_t line;   /**< the line the expression is written at (set by
			      ot_cond_pyguard for each guard), or 0 */
	/** The literal value of name `name` where the condition stands (at
	 * `line` when it is set), or NULL
	 * when not known ("None", "True", "False", "3", "'mean'"). */
	const char *(*value_of)(const ot_pyenv *env, const char *name);
	const void *payload;
};

/** What value_of gives for a value that is an object, never None (a
 * Parameter, a Module): `x is None` is false, its truth is not known. */
#define OT_COND_OBJECT "<object>"

/** A C++ parameter's value when it holds a Scalar wrapped as a 0-dim
 * Tensor (wrapped_scalar_tensor(s)): defined, 0-dim, one element, of a
 * dtype that is never float32 (double, int64, bool or complex). */
#define OT_COND_WRAPPED "<wrapped scalar>"

/** A C++ parameter's value when it holds a defined Tensor that is
 * contiguous in the default memory format: a default call's own Tensor,
 * an output the meta function allocates for a functional call, or what
 * `x.contiguous()` and `at::empty(...)` return. */
#define OT_COND_CONTIGUOUS "<contiguous tensor>"

/** The dtype of a wrapped Scalar as a value passed on: not Float, else
 * not known. */
#define OT_COND_NOT_FLOAT "<not Float>"

/** A value known to be true (a non-empty string, a number not 0) whose
 * value itself is not known: what one of several truthy literals holds. */
#define OT_COND_TRUTHY "<truthy>"

/** Does evaluating Python condition `text` reach its operand at offset
 * `at` (a call in it), as `and` and `or` short-circuit: TRUE, FALSE, or
 * UNKNOWN. When not TRUE, [*from, *to) is the operand on the left that
 * decides it; *negated: the call runs when that operand does not hold
 * (`or`). */
ot_tri ot_cond_py_reaches(const ot_pyenv *env, const char *text, size_t at, size_t *from, size_t *to,
			  bool *negated);

/** One Python condition expression (text as written, comments removed). */
ot_verdict ot_cond_pyexpr(const ot_pyenv *env, const char *text);

/** Under what condition does the code at guard `guard` (1-based, 0: the
 * top level) of a Python body with guards `guards` (pyflow.h) run? As
 * ot_cond_guard; an except block never runs for a call that works. */
ot_verdict ot_cond_pyguard(const ot_pyenv *env, const ot_ix_guard *guards, size_t n, uint16_t guard);

/* ---- combining --------------------------------------------------------------------- */

/** Both must hold: the first FALSE (or validation) one decides, else the
 * first UNKNOWN, else TRUE (select when either is). */
ot_verdict ot_verdict_and(ot_verdict a, ot_verdict b);

/** A verdict that always holds. */
ot_verdict ot_verdict_true(void);

#endif
