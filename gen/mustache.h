/*
 * mustache.h - a small logic-less Mustache template engine.
 *
 * Implements the Mustache spec (../shared/mustache-spec/): interpolation
 * ({{name}} escaped, {{{name}}} and {{&name}} raw, dotted names, implicit
 * iterator {{.}}), sections over lists, maps and booleans, inverted
 * sections, comments, partials (with standalone indentation), set
 * delimiters, and the standalone-line whitespace rules. Lambdas are not
 * supported (data is an ot_value tree, which has no functions).
 *
 * Falsy values: missing, null, false, an empty list, an empty string (the
 * spec leaves strings to the host language; an empty string being falsy lets
 * {{#text}}...{{/text}} guard optional prose). Everything else is truthy,
 * including 0 and an empty map. A truthy non-list value is pushed on the
 * context stack while its section renders, so {{.}} names it.
 *
 * Names: "." is the top of the context stack; "a.b.c" looks up "a" from the
 * top of the stack down, then "b" and "c" only inside the previous result
 * (no climbing after the first part). A key that itself contains a dot is
 * never matched. Scalars render through ot_v_scalar_text (1.210 -> "1.21").
 *
 * Limits (hostile templates cannot crash or exhaust the stack): sections
 * nest at most OT_MUSTACHE_MAX_SECTIONS deep in one template, partials at
 * most OT_MUSTACHE_MAX_PARTIALS deep, and sections and partials together at
 * most OT_MUSTACHE_MAX_NESTING deep while rendering; beyond that is an error.
 * Nor can they run without bound: one render call visits at most
 * OT_MUSTACHE_MAX_STEPS nodes (each pass of a section over a list counts
 * its nodes again) and appends at most OT_MUSTACHE_MAX_OUTPUT bytes (checked
 * between nodes), far beyond any page (the --all index of 2.6.0 takes about
 * 30 000 steps, a list of 100 000 rows 1.3 million).
 *
 * Error messages are "name:line:col: reason" (1-based, columns in bytes),
 * where name is the template's name or, inside a partial, the partial's
 * name. Reasons: "unclosed tag: missing 'CLOSE'", "unclosed section 'x'",
 * "mismatched end tag 'x': open section is 'y'", "mismatched end tag 'x':
 * no open section", "bad delimiter change", "empty tag name", "sections
 * nested deeper than N", "partials nested deeper than N", "sections and
 * partials nested deeper than N", "rendering takes more than N steps",
 * "output larger than N bytes".
 */
#ifndef OT_MUSTACHE_H
#define OT_MUSTACHE_H

#include "buf.h"
#include "value.h"

#define OT_MUSTACHE_MAX_SECTIONS 100
#define OT_MUSTACHE_MAX_PARTIALS 64
#define OT_MUSTACHE_MAX_NESTING 512
/* A build may lower these two (the fuzz build does, so that no input is slow). */
#ifndef OT_MUSTACHE_MAX_STEPS
#define OT_MUSTACHE_MAX_STEPS (1u << 23)
#endif
#ifndef OT_MUSTACHE_MAX_OUTPUT
#define OT_MUSTACHE_MAX_OUTPUT (1u << 26)
#endif

/**
 * Supplies the text of partial `name` into `out`. Return 0, or OT_ENOTFOUND
 * for a missing partial (rendered as empty, per the spec), or OT_ERROR.
 */
typedef int (*ot_mustache_partial_fn)(ot_buf *out, const char *name, void *payload);

/** Escapes `len` bytes of `s` for {{name}} into `out`. */
typedef void (*ot_mustache_escape_fn)(ot_buf *out, const char *s, size_t len);

typedef struct {
	ot_mustache_partial_fn partial; /**< may be NULL: no partials */
	void *payload;
	ot_mustache_escape_fn escape;   /**< NULL: HTML escaping (& < > ") */
	const char *name;               /**< template name for error messages */
} ot_mustache_opts;

/**
 * Render `tmpl` (`len` bytes) against `ctx`, appending to `out`.
 * Errors (unclosed tag or section, mismatched section end, bad delimiter
 * change, partials nested deeper than 64) give "name:line:col: reason".
 *
 * The template is parsed once per call; each partial is asked of
 * opts->partial and parsed at most once per call (the text of a partial is
 * assumed not to change during one call). A partial tag alone on its line
 * indents every line of the partial by that line's indentation. `ctx` may
 * be NULL (every name is missing), `opts` may be NULL (no partials, HTML
 * escaping, name "template"). On error `out` is restored to its length on
 * entry and OT_ERROR is returned with the message in ot_error_last().
 */
int ot_mustache_render(ot_buf *out, const char *tmpl, size_t len, const ot_value *ctx,
		       const ot_mustache_opts *opts);

/** A parsed template, for rendering the same text many times. */
typedef struct ot_mustache ot_mustache;

/**
 * Parse `tmpl` (`len` bytes; copied, so it need not outlive the result)
 * into *out. `name` (copied; NULL means "template") names the template in
 * error messages, both syntax errors here and render errors later. Errors
 * are the syntax errors of ot_mustache_render. Caller frees *out with
 * ot_mustache_free. Returns 0 or OT_ERROR.
 */
int ot_mustache_compile(ot_mustache **out, const char *tmpl, size_t len, const char *name);

/**
 * Render a compiled template: same as ot_mustache_render except that
 * opts->name is ignored (the compiled name is used) and nothing is parsed
 * but partials. A compiled template is read-only here, so several threads
 * may render it at once.
 */
int ot_mustache_render_compiled(ot_buf *out, const ot_mustache *tmpl, const ot_value *ctx,
				const ot_mustache_opts *opts);

/** Free a compiled template. NULL is a no-op. */
void ot_mustache_free(ot_mustache *tmpl);

/** The default HTML escaper: escape.h's ot_esc_html (& < > " ' as entities). */
void ot_mustache_escape_html(ot_buf *out, const char *s, size_t len);

#endif
