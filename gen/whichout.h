/*
 * whichout.h - `optrace which`: the command, and its answers as text or
 * JSON (which.h finds them).
 *
 *   optrace which WHAT [OPTIONS] [OPS_LIST]
 *   optrace which --diff FILE [OPTIONS] [OPS_LIST]
 *
 * The ops are those the main command would trace (OPS_LIST, default
 * ./ops.list; --all adds every native_functions.yaml entry), at the release
 * it would trace (-t, the installed torch, the ops.list pin), traced in
 * memory; nothing is written but the answer on stdout.
 *
 * Text: a headline, then per place its kind, symbol, scope and extent, how
 * the query led there, and one line per op that reaches it: the op, the
 * layer and place of its first step there, the aten op it came through
 * (for a branch) and the path: "main (cpu, cuda)" from the steps' `main`,
 * "when: COND" from their `when`, else "path: unknown".
 *
 * JSON (--json):
 *   {"query", "kind": "name" | "file" | "file:line" | "op" | "diff",
 *    "pytorch": {"version", "tag", "commit"},
 *    "parsed": {"name", "scope", "template_arguments": [...],
 *               "references": [{"name", "scope", "function"}], "lambda"} | null,
 *    "library": {"name", "pattern", "note"} | null,
 *    "matches": [{"kind", "symbol", "scope", "file", "line", "end_line",
 *                 "detail", "via",
 *                 "ops": [{"input", "name", "page",
 *                          "steps": [{"index", "layer", "file", "line",
 *                                     "symbol", "op", "depth", "main", "when"}]}]}],
 *    "ops": [input, ...],          (every op of every match, sorted)
 *    "not_found": "not found: ..." | null}
 *
 * Exit status: 0 some op reaches what was asked (for --diff: the diff was
 * read, whatever it touches); 1 nothing traced reaches it (the answer says
 * what was found and what not); 2 usage or fatal error.
 */
#ifndef OT_WHICHOUT_H
#define OT_WHICHOUT_H

#include "buf.h"
#include "page.h"
#include "run.h"
#include "which.h"

typedef struct {
	ot_run_opts run;  /**< what to trace: source, -t, --all, OPS_LIST, -j, -q, -v */
	const char *what; /**< the query, or NULL with `diff` */
	const char *diff; /**< a unified diff file ("-": stdin), or NULL */
	bool json;
} ot_which_opts;

/** Run the command; returns the exit status. */
int ot_which_run(const ot_which_opts *o);

/** The answer `r` over `traces` at release `rel`, as text / as JSON, appended to `out`. */
void ot_which_render_text(ot_buf *out, const ot_which_result *r, ot_trace *const *traces,
			  const ot_release *rel);
void ot_which_render_json(ot_buf *out, const ot_which_result *r, ot_trace *const *traces,
			  const ot_release *rel);

/** "main (cpu, cuda)", "when: COND" or "unknown": the path of `n` steps of `tr`. */
const char *ot_which_path(ot_arena *a, const ot_trace *tr, const size_t *steps, size_t n);

#endif
