/*
 * tracejson.h - out/trace.json: every trace of a run as data, and the
 * reader that turns such a file back into traces (optrace diff).
 *
 *   {"schema_version": 3,
 *    "tool": {"name": "optrace", "version": "0.1.0"},
 *    "pytorch": {"version", "tag", "commit", "verified"},
 *    "ops": [{"input", "name", "slug", "page", "status", "strategy",
 *             "aten": [overload, ...],
 *             "steps": [{"layer", "file", "line", "symbol", "note", "op",
 *                        "backend", "depth", "parent",
 *                        "main": ["cpu", "cuda"], "sure": [...], "when",
 *                        "body" (only some)}, ...],
 *             "overload": "add.Tensor" | null, "build": "the Linux x86-64 ...",
 *             "nodes": [{"kind", "layer", "file", "line", "symbol", "note",
 *                        "op", "backend", "lib", "main", "sure"}, ...],
 *             "edges": [{"kind", "from", "to", "key", "exact",
 *                        "site": {"file", "line", "symbol"} | null, "main", "sure",
 *                        "when_kind", "when", "when_file", "when_line",
 *                        "devices": {"cpu": {"reach", "kind", "when", "line"},
 *                                    "cuda": {...}}}, ...],
 *             "roots": [node, ...], "main_roots": n,
 *             "summary": {"backends", "gpu_libs", "cpu_libs",
 *                         "libs": [{"lib", "node", "main", "when"}, ...],
 *                         "selections": [{"symbol", "file", "line", "main"}, ...],
 *                         "key_nodes": {"cpu": {layer: node, ...}, "cuda": {...}},
 *                         "calls": [...]},
 *             "backends": {"keys": [...], "gpu": [...],
 *                          "selection": [{"symbol", "file", "line"}, ...]},
 *             "calls": [...], "messages": [...], "suggestions": [...],
 *             "tests": null | {"entries": [i, ...], "decompositions": [...],
 *                              "runs": [i, ...], "runs_filtered": [i, ...],
 *                              "mentions": [...], "benchmarks": [...]},
 *             "registry": ["add.Tensor", "add.Scalar", ...]}, ...],
 *    "test_entries": [test database entry, ...], "tests": [test template, ...],
 *    "registry": [entry, ...]}
 * (the test keys as the README's trace.json section describes them).
 *
 * "nodes" and "edges" are the trace's graph (trace.h says what each kind
 * is); "from", "to", "roots", a lib's "node" and "key_nodes" are indices
 * into "nodes". The first "main_roots" roots are where a default call
 * starts. "main" lists the devices whose main path (a default call with
 * dense float32 tensors, in the build "build" names) holds the step, node
 * or edge, for some arguments at least; "sure" those of them where every
 * such call runs it (what the others depend on is in the step's "when"). An edge's "devices" give, per device, whether a default call
 * can take it ("yes", "maybe": under a run-time selection, "never") and
 * the condition as written in the source at "when_file" (the edge's
 * site file, or the file of the body that holds the guard); "when" is the
 * one a reader is shown. "steps" is the first-reach view of the graph
 * (what every default call runs first, then the rest of the main paths,
 * then the side paths), each step with its devices and the condition it
 * runs under: for a sure step, the run-time selection it depends on, if
 * any; for another, the innermost condition above it. A step on a main
 * path that is a function's definition has "body", the fingerprint of
 * its code (body.h) optrace diff compares; other steps have no such key. "backends" (keys, GPU libraries, selections
 * of the main paths) is schema 2's summary, kept for its readers; "calls"
 * are other aten ops on the main paths. Steps, nodes and edges are written
 * one per line.
 *
 * An op's "registry" names the native_functions.yaml entries its comparison
 * needs (ot_tracejson_select): every overload of every name in "aten"
 * (add -> add.Tensor, add.Scalar, add.out, ...), then the structured
 * delegates of those, each once. The top-level "registry" holds every entry
 * some op names, once, in the order ops first name them:
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
 *
 * Schema 1 (optrace before `diff`) had no "registry" keys; the reader still
 * takes such a file, as one without registry data. Schema 2 had no graph
 * ("overload" to "summary") and steps without "main" and "when"; the
 * reader takes it, its steps on no main path.
 */
#ifndef OT_TRACEJSON_H
#define OT_TRACEJSON_H

#include "buf.h"
#include "page.h"
#include "registry.h"
#include "testdb.h"
#include "trace.h"

#define OT_TRACEJSON_SCHEMA 3

/** Registry entries, borrowed from their registry (or document). */
typedef OT_VEC(const ot_reg_func *) ot_tj_entries;

/**
 * The entries of `reg` an op's comparison needs, for the op's overloads
 * `aten`: every overload of every name in `aten`, in the order of `aten`
 * and each name's overloads in file order, then the structured delegates
 * of those not already listed; each once. `out` is cleared first; the
 * entries are borrowed from `reg`. The writer and optrace diff's in-memory
 * documents both select with this function.
 */
void ot_tracejson_select(ot_tj_entries *out, const ot_registry *reg, const ot_strvec *aten);

/**
 * trace.json is written in pieces, so ops can be serialised in parallel and
 * the file written without joining it in memory (pretty-printed, 2-space
 * indent).
 *
 * ot_tracejson_op: one op's object as it appears in the "ops" list
 * (appended to `out`), with `entries` (as ot_tracejson_select gives them)
 * as its "registry", or no such key when `entries` is NULL.
 *
 * ot_tracejson_frame: the file around `n` such objects: `head` (appended)
 * comes first, then for each op i the separator ot_tracejson_separator(i)
 * and its object, then `tail`, whose top-level "test_entries" and "tests"
 * list every entry and test template of `tests` (NULL: no such keys; an op's
 * "tests" member indexes them) and whose "registry" is made from
 * the ops' `entries` (an array of `n`, all from one registry; NULL: no such key).
 */
void ot_tracejson_op(ot_buf *out, const ot_trace *tr, const ot_tj_entries *entries);
void ot_tracejson_frame(ot_buf *head, ot_buf *tail, const ot_release *rel, size_t n,
			const ot_tj_entries *entries, const ot_testdb *tests);
const char *ot_tracejson_separator(size_t i);

/* ---- reading --------------------------------------------------------------------- */

/**
 * One op of a document: read back from a file (strings and arrays owned by
 * the document's arena), or made from a trace (ot_tracejson_doc_add_trace).
 */
typedef struct {
	const char *input;
	const char *name;     /**< canonical name, or NULL (the input named no op) */
	ot_status status;
	const char *strategy; /**< "module", ..., or NULL */
	ot_strvec aten;       /**< overloads of the op itself */
	ot_step *steps;       /**< as written; found == (file != NULL); a step
				   not found has line 0; absent strings are "" */
	size_t nsteps;
	ot_strvec keys, gpu;  /**< "backends": dispatch keys, GPU libraries */
	ot_strvec messages;
	bool has_registry;    /**< the op has registry data ("registry" key) */
	const ot_reg_func **registry; /**< its entries, in order: entries of the
					   document's registry (or of the
					   registry the document owns) */
	size_t nregistry;
} ot_tj_op;

/** A document: the release and its ops, in file (or trace) order. */
typedef struct {
	ot_arena *arena;
	const char *version; /**< "2.6.0" */
	const char *tag;     /**< "v2.6.0", or NULL */
	const char *commit;  /**< 40-hex id, or "unverified" */
	bool verified;
	OT_VEC(ot_tj_op) ops;
	ot_registry *registry; /**< owned; ops added from traces point at its
				    entries (NULL for a document read back) */
} ot_tj_doc;

/**
 * An empty document for release `rel` (its strings are copied). The
 * document takes `reg` (may be NULL): ops added with
 * ot_tracejson_doc_add_trace select their entries there.
 * Caller frees with ot_tracejson_doc_free.
 */
ot_tj_doc *ot_tracejson_doc_new(const ot_release *rel, ot_registry *reg);

/**
 * Append the op of trace `tr` to `doc`, with what trace.json would say of
 * it: the same fields, the same strings (copied into the document), and
 * as "registry" the entries ot_tracejson_select picks in the document's
 * registry (none, and has_registry false, when it has none). A report
 * made from such a document equals one made from the trace.json of the
 * same traces.
 */
void ot_tracejson_doc_add_trace(ot_tj_doc *doc, const ot_trace *tr);

/**
 * Parse a whole trace.json (`len` bytes named `name` in messages) into
 * *out. Schema 2 files give each op its registry entries; a schema-1 file
 * gives ops without registry data. Keys may come in any order. Memory stays
 * near the document's own size: the JSON is parsed one op (or registry
 * entry) at a time. Errors (naming the place, as in "t.json:3:7: expected
 * ':'" or "t.json: ops[3].steps[0]: 'layer' names no known layer"): not
 * JSON (RFC 8259; also a key given twice in one object, a \u0000 in a
 * string, nesting deeper than 64), a top level that is not an object, a
 * schema_version this reader does not know, a missing or malformed
 * "pytorch" or "ops", a member of the wrong type, a
 * missing required member of an op ("input", "status", "aten", "steps"),
 * an unknown status or layer, a registry entry whose schema does not parse,
 * that is listed twice or whose "name" is not its schema's, and an op's
 * registry name that the top-level "registry" does not hold.
 * Caller frees with ot_tracejson_doc_free.
 */
int ot_tracejson_read(ot_tj_doc **out, const char *data, size_t len, const char *name);

/** The default limit of ot_tracejson_load: 1 GiB (2.6.0 --all is ~32 MB). */
#define OT_TRACEJSON_MAX ((size_t)1 << 30)

/** Read the file at `path` (see ot_tracejson_read): a regular file of at
 * most `max` bytes (0: OT_TRACEJSON_MAX), else an error. */
int ot_tracejson_load(ot_tj_doc **out, const char *path, size_t max);

void ot_tracejson_doc_free(ot_tj_doc *doc);

#endif
