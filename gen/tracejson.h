/*
 * tracejson.h - out/trace.json: every trace of a run as data.
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
 *             "calls": [...], "messages": [...], "suggestions": [...]}, ...]}
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
#include "trace.h"

#define OT_TRACEJSON_SCHEMA 1

/** Serialise `n` traces (pretty-printed, 2-space indent) into `out` (appended). */
void ot_tracejson_write(ot_buf *out, const ot_release *rel, ot_trace *const *traces, size_t n);

/**
 * The same in two steps, so ops can be serialised in parallel: one op's
 * object as it appears in the "ops" list (appended to `out`), then the file
 * around `n` such objects. The bytes equal ot_tracejson_write's.
 */
void ot_tracejson_op(ot_buf *out, const ot_trace *tr);
void ot_tracejson_assemble(ot_buf *out, const ot_release *rel, const ot_buf *ops, size_t n);

#endif
