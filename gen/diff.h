/*
 * diff.h - what changed for a set of ops between two releases
 * (`optrace diff OLD NEW`): the classification, the Markdown report (sized
 * for a pull-request comment or $GITHUB_STEP_SUMMARY) and the JSON report.
 *
 * Both sides are trace documents (tracejson.h): traced from a release's tag
 * in memory, or read from a trace.json written earlier. Ops are matched by
 * their input ("nn.LSTM", "aten::add.out"). Per op, changes fall in classes:
 *
 *   removed / added  an op, or an overload of a name the op reaches on both
 *                    sides, that exists in only one release (removed is
 *                    breaking, added informational)
 *   schema           arguments added, removed, renamed, retyped, reordered,
 *                    made keyword-only, defaults changed, returns changed,
 *                    variants or python_module changed; compatible as
 *                    PyTorch's schema check (FunctionSchema::
 *                    isBackwardCompatibleWith) and its C++ API define it:
 *                    a type widened (int -> SymInt, int[N] -> SymInt[N],
 *                    T -> T?, int/float -> Scalar), a default added, a
 *                    keyword-only argument made positional, an argument
 *                    added with a default after every old one (before the
 *                    out= arguments); every item says why (ot_diff_item.why)
 *   dispatch         dispatch keys added or removed, kernels renamed (an
 *                    entry without a table has the implied
 *                    CompositeImplicitAutograd kernel torchgen names after
 *                    it: conv2d at 1.13.1 -> conv2d_symint at 2.6.0),
 *                    structured / structured_delegate / structured_inherits /
 *                    ufunc_inner_loop changes, CompositeImplicitAutograd <->
 *                    CompositeExplicitAutograd; for the op's overloads and
 *                    their structured delegates
 *   moved            a definition the op's own trace (depth 0) reaches now
 *                    lives in another file, or a DispatchStub registration
 *                    (stub, macro, kernel, file) changed; line numbers are
 *                    never compared, so code that only shifted inside its file
 *                    is not a change
 *   backward         derivatives.yaml entry added or removed, a formula added,
 *                    removed or changed (whitespace ignored; a `Default`
 *                    dispatch block counts as the top level),
 *                    output_differentiability changed
 *   gpu              the GPU libraries of the op's own trace changed
 *                    (custom kernel, TensorIterator kernel, cuBLAS, cuDNN, a
 *                    generated ufunc kernel, ...); compared only when both
 *                    sides were traced through the source
 *   implementation   a function on the op's main paths in both releases
 *                    (CPU or CUDA, forward or backward, at any depth: what
 *                    a default call runs) whose code changed, comments and
 *                    blanks ignored (body.h), with the statements added
 *                    and removed; one change per function, with every op whose
 *                    main path runs it; one now in another file says so
 *                    (and is a `moved` change too when the op's own trace
 *                    reaches it)
 *
 * Every change is one fact of the releases (class, overload or definition,
 * items), reported once with the ops it affects (ops reaching the same
 * overload share its schema change); it is breaking when one of its items
 * is. An op that is "well-known" in a trace.json (written without --full)
 * was not traced there: it is not compared (skipped, and counted in
 * ot_diff.wellknown_skipped for the warning).
 */
#ifndef OT_DIFF_H
#define OT_DIFF_H

#include "buf.h"
#include "common.h"
#include "run.h"
#include "tracejson.h"

typedef enum {
	OT_DIFF_REMOVED,
	OT_DIFF_ADDED,
	OT_DIFF_SCHEMA,
	OT_DIFF_DISPATCH,
	OT_DIFF_MOVED,
	OT_DIFF_BACKWARD,
	OT_DIFF_GPU,
	OT_DIFF_IMPL,
	OT_DIFF_CLASS_COUNT
} ot_diff_class;

/** "removed", "added", "schema", "dispatch", "moved", "backward", "gpu", "implementation". */
const char *ot_diff_class_id(ot_diff_class c);

/** "removed", "added", "schema changed", "dispatch changed",
 * "implementation moved", "backward changed", "GPU library changed",
 * "implementation changed" (the order of the report: the most rows last). */
const char *ot_diff_class_label(ot_diff_class c);

/** A place in one release's tree; file NULL when there is none. */
typedef struct {
	const char *file;
	uint32_t line;
} ot_diff_loc;

/** One fact of a change. Strings are borrowed from the diff or its documents. */
typedef struct {
	const char *what;    /**< "argument-retyped", "argument-widened",
				  "keys-added", "moved", ... */
	const char *subject; /**< what it is about (an argument, dispatch keys,
				  symbols, a stub), or NULL */
	const char *layer;   /**< moved: the trace layer ("cpp"), else NULL */
	const char *old;     /**< the value before, or NULL */
	const char *new;     /**< the value after, or NULL */
	bool breaking;
	const char *why;     /**< schema items: why callers do (not) break
				  ("a SymInt takes an int ..."); a renamed
				  implied kernel: where its name comes from;
				  or NULL. Always optrace's own words (constant
				  text, never a file's), so Markdown-safe */
	ot_diff_loc old_loc, new_loc; /**< the item's own places (a renamed
					   kernel's definitions), or none */
	uint32_t added, removed;      /**< "body-changed": statements added and
					   removed (body.h) */
} ot_diff_item;

typedef struct {
	ot_diff_class cls;
	bool breaking;
	const char *op;       /**< the first of `ops` */
	const char **ops;     /**< the inputs it affects, sorted, at least one */
	size_t nops;
	const char *overload; /**< "mm.out", or "" for the op as a whole */
	ot_diff_item *items;
	size_t nitems;
	ot_diff_loc old_loc, new_loc;
} ot_diff_change;

/** An op that could not be compared (not found in either release, ...). */
typedef struct {
	const char *op;
	const char *reason;
} ot_diff_skip;

typedef struct {
	ot_arena *arena;
	ot_diff_change *changes; /**< one per change, breaking first, then by
				      class, first op, overload */
	size_t nchanges;
	const char **unchanged;  /**< inputs compared without a change, sorted */
	size_t nunchanged;
	ot_diff_skip *skipped;   /**< sorted by op */
	size_t nskipped;
	size_t nops;             /**< distinct inputs of both sides */
	size_t changed_ops;      /**< ops with at least one change */
	size_t nbreaking;        /**< breaking changes */
	size_t counts[OT_DIFF_CLASS_COUNT];
	size_t breaking[OT_DIFF_CLASS_COUNT];
	bool no_registry;        /**< a side had no "registry" data: schema,
				      dispatch and backward were not compared */
	size_t wellknown_skipped; /**< ops skipped as "well-known" in a side
				       (a trace.json written without --full) */
	bool wellknown_side[2];  /**< which side (old, new) had them */
} ot_diff;

/**
 * Compare `old` with `new`. An input that appears in only one document is
 * an op added or removed (both documents are expected to come from the same
 * ops list, or from --all). The diff borrows strings of both documents:
 * they must outlive it. Errors: an input listed twice in one document.
 * Caller frees with ot_diff_free.
 */
int ot_diff_compare(ot_diff **out, const ot_tj_doc *old, const ot_tj_doc *new);

void ot_diff_free(ot_diff *d);

typedef struct {
	const char *base_url; /**< source links: BASE/<tag or commit>/<path>#L<line>;
				   NULL = GitHub, "" = no links */
	size_t max_bytes;     /**< the report's size limit; 0 = OT_DIFF_MAX_BYTES */
	const char *json_path; /**< where the JSON report is, named when rows
				    had to be left out; NULL when none is written */
} ot_diff_render_opts;

#define OT_DIFF_MAX_BYTES 60000
#define OT_DIFF_MIN_BYTES 2048

/**
 * The GitHub-Flavored Markdown report (replaces `out`): a headline with
 * the counts per class (and ot_diff_warning's text, if any), then one
 * table `| Change | Ops | Details |`, one row per change, breaking changes
 * first, each row naming the ops it affects (at most 8, then "and N
 * more"), linking the source lines of both releases (an item's own
 * places after it) and ending with why it does or does not break callers. Rows that do not fit in max_bytes are left out whole and
 * counted in a last line ("N more changes ..."): the report never exceeds
 * max_bytes (at least OT_DIFF_MIN_BYTES). No raw HTML; '|' is escaped in
 * cells; values are code spans.
 */
void ot_diff_markdown(ot_buf *out, const ot_diff *d, const ot_tj_doc *old, const ot_tj_doc *new,
		      const ot_diff_render_opts *ro);

/**
 * Append the warning a diff of a trace.json written without --full needs
 * (its well-known ops were not traced, so not compared), naming the file
 * (old, new or both); nothing when there is none. md: values as code spans.
 */
void ot_diff_warning(ot_buf *out, const ot_diff *d, const ot_tj_doc *old, const ot_tj_doc *new, bool md);

/**
 * The JSON report (replaces `out`): {"schema_version", "tool", "old",
 * "new", "counts", "registry_compared", "warnings", "changes",
 * "unchanged", "skipped"}, changes in the order of the diff, each with
 * "op" (the first of "ops") and "ops", every item with its
 * what/subject/layer/old/new/breaking, its text as the Markdown report
 * writes it, its "why" (or null) and, when it has places of its own,
 * "old_place"/"new_place".
 */
void ot_diff_json(ot_buf *out, const ot_diff *d, const ot_tj_doc *old, const ot_tj_doc *new,
		  const ot_diff_render_opts *ro);

/* ---- the command --------------------------------------------------------------------- */

typedef enum {
	OT_DIFF_FAIL_NONE,
	OT_DIFF_FAIL_BREAKING, /**< --fail-on breaking */
	OT_DIFF_FAIL_ANY       /**< --fail-on any */
} ot_diff_fail_on;

/** Exit statuses of `optrace diff` besides 0 (OK) and 2 (usage or fatal error). */
enum {
	OT_DIFF_EXIT_BREAKING = 3, /**< --fail-on breaking|any: breaking changes found */
	OT_DIFF_EXIT_CHANGED = 4   /**< --fail-on any: changes found, none breaking */
};

typedef struct {
	const char *old_arg, *new_arg; /**< a release ("1.13.1", "v2.6.0") or a trace.json */
	/**
	 * The selection the main command also takes: ops_list (NULL =
	 * ./ops.list), ops_list_given, all, source, source_url, templates,
	 * base_url, jobs, verbose, max_depth, quiet. Each release is traced
	 * with these, in full; the other fields are not read.
	 */
	ot_run_opts run;
	const char *out_md;            /**< -o FILE ("-" = stdout); NULL = out/diff-OLD-NEW.md */
	const char *out_json;          /**< --json FILE, or NULL */
	size_t max_bytes;              /**< --max-bytes; 0 = OT_DIFF_MAX_BYTES */
	ot_diff_fail_on fail_on;
} ot_diff_opts;

/**
 * Run `optrace diff`: make both documents (trace a release, or read a
 * trace.json), compare, write the reports, print a summary on stderr.
 * A release side traces OPS_LIST (default ./ops.list; with --all, every
 * entry of its native_functions.yaml too, and ./ops.list only when it
 * exists); when the other side is a trace.json and neither OPS_LIST nor
 * --all is given, it traces that file's inputs instead. Well-known ops are
 * always traced in full.
 * Returns 0, OT_DIFF_EXIT_BREAKING or OT_DIFF_EXIT_CHANGED (see fail_on),
 * or 2 on a fatal error (message on stderr, nothing written).
 */
int ot_diff_run(const ot_diff_opts *o);

#endif
