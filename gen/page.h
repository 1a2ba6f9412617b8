/*
 * page.h - the readable output: one GitHub-Flavored Markdown page per op
 * (with its Graphviz call-chain diagram) and the cross-linked index (the
 * offline HTML bundle, bundle.h, is made from these pages).
 *
 * Page text comes from the templates (the .mustache files of templates/, replaceable with
 * --templates DIR) filled with data built here from the traces: every
 * file:line is a step of a trace, every excerpt is read from the indexed
 * source at that line, and the performance notes are derived from the facts
 * found (libraries, kernels, selection points, variants), never boilerplate.
 *
 * Markdown is written to render the same on GitHub and in MkDocs: relative
 * links with ".md", no raw HTML, '|' escaped in table cells, '<' and '{'
 * never bare in prose, invalid UTF-8 from the source replaced.
 */
#ifndef OT_PAGE_H
#define OT_PAGE_H

#include "buf.h"
#include "index.h"
#include "registry.h"
#include "trace.h"

/** The release every page describes. Strings are borrowed. */
typedef struct {
	const char *version; /**< "2.6.0" */
	const char *tag;     /**< "v2.6.0", or NULL when unverified / nightly */
	const char *commit;  /**< 40-hex commit id, or "unverified" */
	bool verified;
	const char *base_url; /**< source links: BASE/<tag or commit>/<path>#L<line>;
				   NULL or "" for no links */
} ot_release;

typedef struct ot_pages ot_pages;

/**
 * Prepare rendering of `n` traces (borrowed, already sorted by input; their
 * slugs must be unique). `lines[i]` is the ops.list line of trace i (0 when
 * none). Loads and compiles the templates (from `templates_dir` or the
 * built-in ones). Computes the related-ops graph.
 * Errors: a template that is missing or does not parse.
 */
int ot_pages_new(ot_pages **out, const ot_release *rel, ot_trace *const *traces,
		 const int *lines, size_t n, const ot_index *ix, const ot_registry *reg,
		 const char *templates_dir);

void ot_pages_free(ot_pages *p);

/**
 * Draw the call-chain diagram of trace `i`: DOT into `dot` and SVG into
 * `svg` (both replaced). Returns 1 when drawn, 0 when the op has no
 * diagram (not traced), OT_ERROR on a Graphviz failure. Thread-safe
 * (Graphviz itself runs under one lock).
 */
int ot_pages_render_diagram(ot_pages *p, size_t i, ot_buf *dot, ot_buf *svg);

/**
 * Render the page of trace `i` into `md` (replaced); `has_diagram` says
 * whether ops/<slug>.svg is written beside it (the page then embeds it).
 * Thread-safe.
 */
int ot_pages_render_op(ot_pages *p, size_t i, bool has_diagram, ot_buf *md);

/** Render out/index.md into `md` (replaced). */
int ot_pages_render_index(ot_pages *p, ot_buf *md);

/**
 * Render out/kernels.md into `md` (replaced): every C++/CUDA function that
 * holds a step on some op's main path (ot_step.main, which.h), with the
 * ops whose main paths reach it, linked to their pages.
 */
int ot_pages_render_kernels(ot_pages *p, ot_buf *md);

/**
 * The index's groups, in order: the group trace `i` is listed under (0,
 * 1, ...), or -1 when the index does not list it.
 */
int ot_pages_group_of(const ot_pages *p, size_t i);

/** The title of group `g` ("Modules (torch.nn)"), NULL past the last. Borrowed. */
const char *ot_pages_group_title(int g);

/** Replace invalid UTF-8 sequences in `b` with U+FFFD, in place. */
void ot_utf8_sanitize(ot_buf *b);

#endif
