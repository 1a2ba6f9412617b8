/*
 * escape.h - one escaping rule per output language, each in one place.
 *
 * Every name, note, formula and path in optrace's output comes from a
 * PyTorch checkout, which is not trusted: a fork's file names and YAML may
 * hold line breaks, backticks, raw HTML, control characters, invalid UTF-8
 * or bidi controls. Every writer (pages, index, diagrams, trace.json, diff
 * reports, messages) turns such text into its output language through one
 * function of this module, so a rule is decided once:
 *
 *   Markdown text       ot_esc_md_text    (GitHub's cmark-gfm and MkDocs'
 *   Markdown code span  ot_esc_md_code     Python-Markdown show it literally)
 *   Markdown code block ot_esc_md_block + ot_esc_md_fence
 *   link destination    ot_esc_url_path (a path), ot_esc_url (a whole URL)
 *   HTML / XML (SVG)    ot_esc_html
 *   Graphviz labels     ot_esc_dot_label
 *   JSON strings        ot_esc_json
 *   a terminal          ot_esc_term
 *
 * Shared rules: invalid UTF-8 becomes U+FFFD (the terminal shows the byte
 * as \xNN instead). Every line-break character (\n, \r, \v, \f, NEL U+0085,
 * U+2028, U+2029; \r\n counts once) is handled like \n: in one-line text
 * (names, notes, code spans, labels) it is a space, in a code block a line
 * break, in JSON an escape. Other control characters are shown, never
 * passed on: "\x1b" (C0, DEL), "\u0085" style (C1). Bidi controls
 * (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C) are shown as
 * "\u202e" in displayed text, so a name cannot be made to read as another.
 *
 * Every function appends to `out` and never fails.
 */
#ifndef OT_ESCAPE_H
#define OT_ESCAPE_H

#include "buf.h"

/**
 * The displayed, one-line form of `s`: the shared rules above (line
 * breaks and tabs as spaces, controls and bidi controls shown, invalid
 * UTF-8 as U+FFFD). Each function below for displayed text starts with it.
 */
void ot_esc_display(ot_buf *out, const char *s, size_t len);

/** Markdown prose: shown literally by both renderers, with no link,
 * autolink (a word joiner, U+2060, goes before each '@'), emphasis,
 * heading, list or raw HTML made of it. */
void ot_esc_md_text(ot_buf *out, const char *s, size_t len);

/**
 * An inline code span holding `s` literally: delimited by one backtick
 * more than its longest run (an empty one is "` `"). `in_table`: the span sits in a table cell,
 * where GitHub splits on every unescaped '|'; a value holding '|' is then
 * written as Markdown text instead (Python-Markdown would show a "\|" in a
 * code span), and outside a table '|' is never escaped.
 */
void ot_esc_md_code(ot_buf *out, const char *s, size_t len, bool in_table);

/**
 * The body of a fenced code block: the shared rules, but every line break
 * is "\n" and tabs stay. Use a fence of ot_esc_md_fence(body) backticks.
 */
void ot_esc_md_block(ot_buf *out, const char *s, size_t len);

/** Backticks a fence around `body` needs: one more than its longest run, at least 3. */
size_t ot_esc_md_fence(const char *body, size_t len);

/** A path inside a URL: every byte but A-Z a-z 0-9 - . _ ~ / percent-encoded. */
void ot_esc_url_path(ot_buf *out, const char *s, size_t len);

/**
 * A whole URL as a link destination (Markdown, HTML, Graphviz): bytes that
 * would end or change it (controls, space, "<>\^`{|}(), non-ASCII) are
 * percent-encoded; '%' and the URL's own delimiters are kept.
 */
void ot_esc_url(ot_buf *out, const char *s, size_t len);

/** A URL for a Graphviz attribute: ot_esc_url, and '&' as "&amp;" (Graphviz
 * 2.43 copies it into the SVG as it is, which would be invalid XML). */
void ot_esc_dot_url(ot_buf *out, const char *s, size_t len);

/** HTML and XML text or attribute values: & < > " ' as entities, invalid
 * UTF-8 and characters XML 1.0 forbids as U+FFFD. */
void ot_esc_html(ot_buf *out, const char *s, size_t len);

/**
 * A Graphviz label or tooltip (an escString: "\N"-style substitutions, a
 * backslash before any byte dropped, entities decoded): the displayed form,
 * shown literally, with each '\n' of `s` as a centred line break.
 */
void ot_esc_dot_label(ot_buf *out, const char *s, size_t len);

/** A JSON string literal with its quotes (RFC 8259): controls, U+2028,
 * U+2029 and bidi controls as \u escapes, invalid UTF-8 as U+FFFD. */
void ot_esc_json(ot_buf *out, const char *s, size_t len);

/** Text for a terminal: '\n' and '\t' kept, every other control
 * character, bidi control and invalid byte shown, never sent. */
void ot_esc_term(ot_buf *out, const char *s, size_t len);

#endif
