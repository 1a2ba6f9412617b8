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
 *
 * Resolution order, after normalisation: (1) an op entry or alias of that
 * name — for aten inputs also an entry whose `aten` is that name
 * ("aten::linalg_norm" -> linalg.norm); (2) NAME_ -> the in-place twin of
 * entry NAME when the entry declares one (`inplace:` in the YAML), with
 * aten NAME's aten + "_"; (3) the longest pattern entry ("_like", "_")
 * that is a proper suffix not preceded by another '_' (so "__getitem__"
 * style names never reach the in-place pattern). Lookups only read the
 * reference, so one reference serves any number of threads.
 *
 * The template data (ot_wellknown_match.data) is a map with these keys:
 *   name            matched reference name (as ot_wellknown_match.name)
 *   base            the entry it comes from ("add" for "add_"; = name
 *                   otherwise)
 *   group, group_title, group_summary   strings; group_facts  list of strings
 *   summary, kind, gpu, backward        strings
 *   facts           list of strings (may be empty)
 *   aten            string or null (as ot_wellknown_match.aten)
 *   aten_note       string or null: where an op without an aten entry lives
 *   aten_releases   list of tags; empty = the aten entry exists at every
 *                   tested release
 *   files           list of repository paths (Python bindings) or empty
 *   aliases         list of strings (may be empty)
 *   pattern         bool: a pattern entry ("_like", "_")
 *   inplace         bool: an in-place op (in-place twin or in-place group)
 *   inplace_summary string or null: what the in-place twin does
 *   inplace_facts   list: the in-place group's facts for an in-place twin
 *                   (empty otherwise; in-place group entries carry them as
 *                   group_facts)
 */
#ifndef OT_WELLKNOWN_H
#define OT_WELLKNOWN_H

#include "common.h"
#include "value.h"

typedef struct ot_wellknown ot_wellknown;

/** What the reference says about one op. All strings owned by the reference. */
typedef struct {
	const char *name;      /**< matched reference name: "view", "zeros_like",
				    "add_" (in-place twin of add), or a pattern
				    entry's name ("_like", "_") */
	const char *group;     /**< "creation", "shape", "dtype-device", "indexing",
				    "math", "comparison", "reduction", "in-place" */
	const char *group_title; /**< "Creation", ... */
	const ot_value *data;  /**< the merged template data for this op (group
				    facts + op facts, see templates/wellknown.yaml),
				    a map ready to render */
	const char *aten;      /**< base name of the native_functions.yaml entry
				    to link ("zeros", "add", "add_", "linalg_norm"),
				    or NULL when the op has none (e.g. "tensor",
				    pattern entries) */
	bool inplace;          /**< an in-place op: matched through the in-place
				    rule, or an entry of the in-place group
				    ("fill_") */
	bool pattern;          /**< matched by a pattern entry ("_like", "_"):
				    what the reference says of a kind of op, not
				    of this one */
} ot_wellknown_match;

/**
 * Load the reference from YAML text (schema: the comment at the top of
 * templates/wellknown.yaml). Errors, "name:line:col: reason" (just
 * "name: reason" for an empty document): malformed
 * YAML, an op listed twice (a duplicate key), a group or op missing a
 * required field or with a field of the wrong type or an unknown field, an
 * op naming an unknown group, an op with aten null but no aten_note, a name
 * claimed twice (by an op, an alias or an in-place twin). Caller frees with
 * ot_wellknown_free.
 */
int ot_wellknown_load(ot_wellknown **out, const char *data, size_t len, const char *name);

/** Free the reference and everything borrowed from it. NULL is a no-op. */
void ot_wellknown_free(ot_wellknown *wk);

/**
 * Match an input as written in ops.list ("torch.zeros", "Tensor.view",
 * "F.relu", "add_", "aten::add.Tensor"); surrounding blanks are ignored,
 * matching is case-sensitive, and an ".overload" suffix is only dropped
 * from aten:: / torch.ops.aten. inputs. Fills *out and returns true, or
 * clears *out and returns false. `*out` borrows from `wk`.
 */
bool ot_wellknown_lookup(ot_wellknown_match *out, const ot_wellknown *wk, const char *input);

/**
 * Every op name the reference lists, for "did you mean": op entries and
 * their aliases, not pattern entries or in-place twins; sorted in byte
 * order. `i` < ot_wellknown_count(); the string is borrowed.
 */
size_t ot_wellknown_count(const ot_wellknown *wk);
const char *ot_wellknown_name_at(const ot_wellknown *wk, size_t i);

#endif
