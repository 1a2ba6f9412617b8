/*
 * registry.h - the op registries of one release:
 * aten/src/ATen/native/native_functions.yaml (every op, its schema and
 * dispatch table) and tools/autograd/derivatives.yaml (its backward).
 *
 * Both are read with the YAML module (libyaml). Every entry keeps the
 * 1-based line of its `func:` / `name:` text. Fields this code does not know
 * are kept (ot_reg_extra) so a newer release never fails to load.
 * All strings are owned by the registry.
 */
#ifndef OT_REGISTRY_H
#define OT_REGISTRY_H

#include "buf.h"
#include "common.h"
#include "value.h"

#define OT_REGISTRY_NATIVE_PATH "aten/src/ATen/native/native_functions.yaml"
#define OT_REGISTRY_DERIV_PATH "tools/autograd/derivatives.yaml"

/* ---- schemas ---------------------------------------------------------------- */

/** One argument or return of a schema. */
typedef struct {
	const char *type;       /**< "Tensor", "int[1]?", "Scalar", "Tensor[]"
				     (annotation removed) */
	const char *name;       /**< "self"; NULL for an unnamed return */
	const char *def;        /**< default text ("1", "None", "[]"), or NULL */
	const char *annotation; /**< alias annotation inside (...): "a!", "a", "a -> *"; or NULL */
	bool kwarg_only;        /**< after the `*` marker */
	bool is_write;          /**< annotation contains '!' */
	bool optional;          /**< type ends with '?' */
} ot_reg_arg;

/** A parsed schema `name.overload(args) -> returns`. */
typedef struct {
	const char *name;     /**< "add_" */
	const char *overload; /**< "Tensor", or "" for the default overload */
	const char *full;     /**< "add_.Tensor" or "add_" */
	const char *base;     /**< name without the trailing '_' of an in-place
				   name: "add"; dunder names ("__and__",
				   "__iand__") are kept as written */
	bool inplace;         /**< name ends with '_' (not a dunder "__x__") */
	bool is_out;          /**< has a kwarg-only Tensor(a!) argument */
	ot_reg_arg *args;
	size_t nargs;
	ot_reg_arg *returns;
	size_t nreturns;
} ot_reg_schema;

/**
 * Parse a schema string into `out`, strings in `arena`.
 * Errors name the column: "column 17: expected ')'".
 * A JIT-style `...` argument or return becomes an item whose type and name
 * are both "...".
 */
int ot_reg_schema_parse(ot_reg_schema *out, ot_arena *arena, const char *text);

/* ---- native_functions.yaml ---------------------------------------------------- */

/** One dispatch table line, split per key. */
typedef struct {
	const char *key;    /**< "CPU", "CUDA", "CompositeImplicitAutograd" */
	const char *kernel; /**< C++ function name, e.g. "add_out" */
	int line;           /**< line of the key in the YAML file */
} ot_reg_dispatch;

/** A field the registry does not interpret, kept for the debug dump. */
typedef struct {
	const char *key;
	int line;
	ot_value *value; /**< owned by the registry's arena */
} ot_reg_extra;

typedef struct ot_reg_deriv ot_reg_deriv;
typedef struct ot_reg_func ot_reg_func;

/** One `- func:` entry. */
struct ot_reg_func {
	size_t index;        /**< position in the file, 0-based */
	int line;            /**< line of the `func:` text */
	int end_line;        /**< last line of the entry: the line before the
				  next entry starts (comment and blank lines in
				  between included), or the file's last line */
	const char *func;    /**< the schema text as written */
	ot_reg_schema schema;

	const char *variants; /**< as written, or NULL (= "function") */
	bool variant_function;
	bool variant_method;

	ot_reg_dispatch *dispatch;
	size_t ndispatch;
	bool has_dispatch;    /**< a `dispatch:` table is present (even if it only
				   names CompositeImplicitAutograd) */
	int dispatch_line;

	bool structured;
	const char *structured_delegate;     /**< "add.out", or NULL */
	const ot_reg_func *delegate;         /**< resolved entry, or NULL */
	const char *structured_inherits;     /**< "TensorIteratorBase", or NULL */
	const char **precomputed;            /**< lines of `precomputed:` */
	size_t nprecomputed;
	const char *python_module;           /**< "nn", "linalg", ..., or NULL */
	const char **tags;
	size_t ntags;
	const char **autogen;                /**< split on ", " */
	size_t nautogen;
	const char **ufunc_inner_loop;       /**< "Generic: add (AllAndComplex, ...)" */
	size_t nufunc_inner_loop;
	const char *device_check;            /**< "NoCheck" or NULL */
	const char *device_guard;            /**< "False" or NULL */
	bool manual_cpp_binding;

	ot_reg_extra *extra;                 /**< unknown fields, in file order */
	size_t nextra;

	const ot_reg_deriv *deriv;           /**< derivatives.yaml entry of exactly
						  this overload, or NULL */
};

/* ---- derivatives.yaml -------------------------------------------------------- */

/** One `inputs: formula` line of a derivatives entry. */
typedef struct {
	const char *inputs;  /**< "self", "input, weight", "result" */
	const char *formula;
	int line;
	bool forward;        /**< the key names outputs (forward-mode formula),
				  not inputs */
} ot_reg_formula;

/** A `dispatch:` sub-block of a derivatives entry (2.x). */
typedef struct {
	const char *key; /**< "Default", "AutogradNestedTensor" */
	int line;
	ot_reg_formula *formulas;
	size_t nformulas;
} ot_reg_deriv_dispatch;

struct ot_reg_deriv {
	size_t index;
	int line;                /**< line of the `name:` text */
	const char *name;        /**< schema text as written */
	ot_reg_schema schema;
	ot_reg_formula *formulas; /**< top-level formulas (without dispatch blocks) */
	size_t nformulas;
	ot_reg_deriv_dispatch *dispatch;
	size_t ndispatch;
	const char *output_differentiability; /**< "[True, False]" as written, or NULL */
	ot_reg_extra *extra;     /**< keys that are no formula (names that are
				      neither all inputs nor all outputs, or a
				      non-scalar value); inside a dispatch block
				      keyed "dispatch.Default.key" */
	size_t nextra;
	const ot_reg_func *func; /**< the native_functions entry, or NULL */
};

/* ---- the registry -------------------------------------------------------------- */

typedef struct ot_registry ot_registry;

/**
 * Parse both files. `native`/`deriv` are the file contents (need not be
 * NUL-terminated), `native_name`/`deriv_name` the names used in messages.
 * `deriv` may be NULL (no derivatives.yaml at this release).
 *
 * Errors: malformed YAML ("file:line:col: reason"), a top level that is not
 * a list, an entry that is not a mapping or has no `func:`/`name:`, a
 * schema that does not parse, two entries with the same full name, a
 * structured_delegate that names no entry, a known field of the wrong
 * shape (e.g. a `dispatch:` that is not a mapping), and aliases that expand
 * to more items than the file has bytes. Unknown fields never fail.
 * Caller frees with ot_registry_free.
 */
int ot_registry_load(ot_registry **out, const char *native, size_t native_len,
		     const char *native_name, const char *deriv, size_t deriv_len,
		     const char *deriv_name);

void ot_registry_free(ot_registry *reg);

/** Entries of native_functions.yaml in file order. */
size_t ot_registry_func_count(const ot_registry *reg);
const ot_reg_func *ot_registry_func_at(const ot_registry *reg, size_t i);

/** The entry with this full name ("add.Tensor", "mm"), or NULL. */
const ot_reg_func *ot_registry_find(const ot_registry *reg, const char *full_name);

/**
 * Can a gradient leave an op of `schema`: does it return a Tensor (or a
 * list of them), or write one of its arguments (Tensor(a!))?
 */
bool ot_reg_schema_outputs_tensor(const ot_reg_schema *schema);

/** Does entry `f` carry `tag` in its `tags:` ("view_copy", "pointwise")? */
bool ot_reg_func_has_tag(const ot_reg_func *f, const char *tag);

/**
 * Is entry `f` (its structured delegate already resolved by the caller)
 * CompositeImplicitAutograd: no dispatch table and no ufunc inner loop
 * (torchgen's default), or the key written out?
 */
bool ot_reg_func_composite_implicit(const ot_reg_func *f);

/**
 * The kernel torchgen gives an entry without a dispatch table (its
 * implied `CompositeImplicitAutograd:` line): the C++ API name, "add_out"
 * for add.out, "conv2d" for conv2d.padding. Borrowed from `f`, or made in
 * `a`.
 */
const char *ot_reg_func_implicit_kernel(ot_arena *a, const ot_reg_func *f);

/**
 * Every entry whose schema name is exactly `name` ("add" -> add.Tensor,
 * add.Scalar, add.out, ...; not add_), in file order. *count receives the
 * number; the array is borrowed. NULL/0 when none.
 */
const ot_reg_func *const *ot_registry_overloads(const ot_registry *reg, const char *name,
						size_t *count);

/** Entries of derivatives.yaml in file order. */
size_t ot_registry_deriv_count(const ot_registry *reg);
const ot_reg_deriv *ot_registry_deriv_at(const ot_registry *reg, size_t i);

/** Derivatives entries that match no native_functions entry (should be 0). */
size_t ot_registry_unmatched_derivs(const ot_registry *reg);

/**
 * Write the whole registry as JSON (--dump-registry): every entry with every
 * field, unknown fields included, and the unmatched derivatives.
 * Pretty-printed (indent 2), file order, identical bytes for identical input.
 * Top-level keys: native_file, deriv_file, counts (funcs, derivatives,
 * unmatched_derivatives, funcs_with_derivative, schema_names, and per-key
 * counts of unknown fields), funcs, derivatives, unmatched_derivatives (each
 * with autogen_by: the entry whose `autogen:` names it, or null).
 */
void ot_registry_dump_json(ot_buf *out, const ot_registry *reg);

#endif
