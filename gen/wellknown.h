/*
 * wellknown.h - the built-in reference for well-known ops (SPEC §2).
 *
 * Ops everybody knows (zeros, view, add, sum, ...) are answered from a
 * reference instead of a source trace. The reference is data, not code:
 * templates/wellknown.yaml (embedded in the binary, replaceable with
 * --templates DIR), read with the YAML module, rendered by the page
 * templates.
 *
 * Matching (SPEC §2): the input is normalised first — a leading "torch.",
 * "torch.nn.functional.", "F.", "torch.Tensor.", "Tensor.", "aten::" or
 * "torch.ops.aten." is removed, and an ".overload" suffix of an aten name
 * is dropped; "torch.linalg.norm" becomes "linalg.norm"; "nn.*" and
 * "torch.nn.*" never match. Any name ending in a single '_' (in-place,
 * e.g. "add_", "Tensor.relu_", "zero_") matches: it gets the entry of its
 * out-of-place name when there is one, otherwise the generic in-place entry.
 * "*_like" names (zeros_like, ...) match the "_like" pattern entry.
 */
#ifndef OT_WELLKNOWN_H
#define OT_WELLKNOWN_H

#include "common.h"
#include "value.h"

typedef struct ot_wellknown ot_wellknown;

/** What the reference says about one op. All strings owned by the reference. */
typedef struct {
	const char *name;      /**< matched reference name: "view", "zeros_like",
				    "add_" (in-place), ... */
	const char *group;     /**< "creation", "shape", "dtype-device", "indexing",
				    "math", "comparison", "reduction", "in-place" */
	const char *group_title; /**< "Creation", ... */
	const ot_value *data;  /**< the merged template data for this op (group
				    facts + op facts, see templates/wellknown.yaml),
				    a map ready to render */
	const char *aten;      /**< base name of the native_functions.yaml entry
				    to link ("zeros", "add", "linalg_vector_norm"),
				    or NULL when the op has none (e.g. "tensor") */
	bool inplace;          /**< matched through the in-place rule */
} ot_wellknown_match;

/**
 * Load the reference from YAML text. Errors: malformed YAML
 * ("name:line:col: reason"), a group or op missing a required field, an op
 * listed twice. Caller frees with ot_wellknown_free.
 */
int ot_wellknown_load(ot_wellknown **out, const char *data, size_t len, const char *name);

void ot_wellknown_free(ot_wellknown *wk);

/**
 * Match an input as written in ops.list ("torch.zeros", "Tensor.view",
 * "F.relu", "add_", "aten::add.Tensor"). Fills *out and returns true, or
 * returns false. `*out` borrows from `wk`.
 */
bool ot_wellknown_lookup(ot_wellknown_match *out, const ot_wellknown *wk, const char *input);

/** Every op name the reference lists (sorted), for "did you mean". */
size_t ot_wellknown_count(const ot_wellknown *wk);
const char *ot_wellknown_name_at(const ot_wellknown *wk, size_t i);

#endif
