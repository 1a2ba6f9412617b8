/*
 * tracejson.h - out/trace.json: every trace of a run as data, and the
 * reader that turns such a file back into traces (optrace diff).
 *
 *   {"schema_version": 1,
 *    "tool": {"name": "optrace", "version": "0.1.0"},
 *    "pytorch": {"version", "tag", "commit", "verified"},
 *    "ops": [{"input", "name", "slug", "page", "status", "strategy",
 *             "aten": [overload, ...],
 *             "steps": [{"layer", "file", "line", "symbol", "note",
 *                        "op", "backend", "depth", "parent"}, ...],
 *             "backends": {"keys": [...], "gpu": [...],
 *                          "selection": [{"symbol", "file", "line"}, ...]},
 *             "calls": [...], "messages": [...], "suggestions": [...],
 *             "registry": [entry, ...]}, ...]}
 *
 * "registry" (written when the registry is known) holds the
 * native_functions.yaml entries an op's comparison needs: every overload
 * of every name in "aten" (add -> add.Tensor, add.Scalar, add.out, ...)
 * and the structured delegates of those, in that order, each once:
 *
 *   {"name": "mm.out", "line": 35, "func": "mm.out(Tensor self, ...) -> ...",
 *    "variants": "function, method" | null, "python_module": "nn" | null,
 *    "dispatch": [{"key", "kernel", "line"}, ...] | null (no dispatch table),
 *    "structured": false, "structured_delegate": "mm.out" | null,
 *    "structured_inherits": "TensorIteratorBase" | null,
 *    "ufunc_inner_loop": ["Generic: add (AllAndComplex, BFloat16, Half)", ...],
 *    "autogen": ["add.Scalar_out", ...],
 *    "derivative": null | {"name", "line", "output_differentiability": "[True, False]" | null,
 *                         "formulas": [{"inputs", "formula", "line", "forward"}, ...],
 *                         "dispatch": [{"key", "line", "formulas": [...]}, ...]}}
 *
 * Ops are in the order given (the caller sorts them by input); keys are
 * always in this order; a step that was not found has "file": null and
 * "line": null. The bytes depend only on the traces: no times, no paths of
 * the machine, identical for any -j.
 */
#ifndef OT_TRACEJSON_H
#define OT_TRACEJSON_H

#include "buf.h"
#include "page.h"
#include "registry.h"
#include "trace.h"
#include "value.h"

#define OT_TRACEJSON_SCHEMA 1

/**
 * Serialise `n` traces (pretty-printed, 2-space indent) into `out`
 * (appended). `reg` is the registry the traces were made from; NULL leaves
 * out the "registry" key of every op.
 */
void ot_tracejson_write(ot_buf *out, const ot_release *rel, const ot_registry *reg,
			ot_trace *const *traces, size_t n);

/**
 * The object of one op, as ot_tracejson_write writes it, built in `arena`
 * (strings of `tr` and `reg` are borrowed: they must outlive the value).
 */
ot_value *ot_tracejson_op(ot_arena *arena, const ot_trace *tr, const ot_registry *reg);

/* ---- reading --------------------------------------------------------------------- */

/** One op read back. Strings and arrays are owned by the document's arena. */
typedef struct {
	const char *input;
	const char *name;     /**< canonical name, or NULL (the input named no op) */
	ot_status status;
	const char *strategy; /**< "module", ..., or NULL */
	ot_strvec aten;       /**< overloads of the op itself */
	ot_step *steps;       /**< as written; found == (file != null) */
	size_t nsteps;
	ot_strvec keys, gpu;  /**< "backends": dispatch keys, GPU libraries */
	ot_strvec messages;
	bool has_registry;    /**< the object had a "registry" key */
	const ot_reg_func **registry; /**< its entries, in order; each entry's
					   `delegate` is resolved among them and
					   its `deriv` points at its derivative */
	size_t nregistry;
} ot_tj_op;

/** A trace.json read back: the release and the ops, in file order. */
typedef struct {
	ot_arena *arena;
	const char *version; /**< "2.6.0" */
	const char *tag;     /**< "v2.6.0", or NULL */
	const char *commit;  /**< 40-hex id, or "unverified" */
	bool verified;
	OT_VEC(ot_tj_op) ops;
} ot_tj_doc;

/**
 * An empty document for release `rel` (its strings are copied).
 * Caller frees with ot_tracejson_doc_free.
 */
ot_tj_doc *ot_tracejson_doc_new(const ot_release *rel);

/**
 * Append the op object `op` (as ot_tracejson_op builds it, or as read from
 * a file) to `doc`, copying what it keeps. `where` names the object in
 * messages ("old/trace.json: ops[3]"). Errors: a member of the wrong type,
 * a missing required member ("input", "status", "aten", "steps"), an
 * unknown status or layer, a registry schema that does not parse.
 */
int ot_tracejson_doc_add(ot_tj_doc *doc, const ot_value *op, const char *where);

/**
 * Parse a whole trace.json (`len` bytes named `name` in messages) into
 * *out. Errors: not JSON, a top level that is not an object, a
 * schema_version this reader does not know, a missing or malformed
 * "pytorch" or "ops", and every error of ot_tracejson_doc_add.
 * Caller frees with ot_tracejson_doc_free.
 */
int ot_tracejson_read(ot_tj_doc **out, const char *data, size_t len, const char *name);

/** Read the file at `path` (see ot_tracejson_read). */
int ot_tracejson_load(ot_tj_doc **out, const char *path);

void ot_tracejson_doc_free(ot_tj_doc *doc);

#endif
