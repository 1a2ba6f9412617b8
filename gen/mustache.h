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
 * Falsy values: missing, null, false, an empty list, an empty string.
 */
#ifndef OT_MUSTACHE_H
#define OT_MUSTACHE_H

#include "buf.h"
#include "value.h"

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
 */
int ot_mustache_render(ot_buf *out, const char *tmpl, size_t len, const ot_value *ctx,
		       const ot_mustache_opts *opts);

/** The default HTML escaper: & < > " (and ' as &#39;). */
void ot_mustache_escape_html(ot_buf *out, const char *s, size_t len);

#endif
