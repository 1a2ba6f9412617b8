/*
 * bundle.h - the offline HTML bundle (out/html/): the Markdown pages as
 * standalone HTML pages people can navigate without a network.
 *
 * Every page has a sidebar (the index's groups, each listing its ops, the
 * current one marked), a search box over op names and aten names, and a
 * table of contents (its headings, each with an id). An op's diagram is
 * inline SVG, so its nodes' links work, with a link to the full-size file
 * beside the page. Every page loads three files of the bundle:
 * style.css, search-index.js (the ops as data: `window.OPTRACE_INDEX`)
 * and optrace.js (fills the sidebar, runs the search; `?q=TEXT` in the
 * address searches at once). Nothing is fetched: scripts are plain
 * <script src>, which a browser runs from file:// too; no external
 * resource, no library. Without scripts the sidebar still links every
 * group's section of the index.
 *
 * The page template (page.html.mustache), the stylesheet (style.css) and
 * the script (optrace.js) are templates: --templates DIR replaces them.
 */
#ifndef OT_BUNDLE_H
#define OT_BUNDLE_H

#include "buf.h"
#include "page.h"
#include "trace.h"

typedef struct ot_bundle ot_bundle;

/**
 * Prepare the bundle of `n` traces (borrowed, in the index's order; the
 * ones with a page, a canonical name, are listed) rendered by `pages`.
 * Loads the templates (from `templates_dir`, else the built-in ones).
 * Errors: a template that is missing or does not parse.
 */
int ot_bundle_new(ot_bundle **out, const ot_pages *pages, ot_trace *const *traces, size_t n,
		  const char *version, const char *templates_dir);

/** NULL is a no-op. */
void ot_bundle_free(ot_bundle *b);

/**
 * Render the Markdown page `md` as the bundle's page `path` ("index.html",
 * "ops/nn-lstm.html": where it goes under html/, which sets its links to
 * the bundle's files) into `html` (replaced). Its ".md" links become
 * ".html". `svg`, when not NULL, is the diagram the page shows as the
 * image `svg_name` (a file beside the page): it is drawn inline instead,
 * with a link to `svg_name`. Thread-safe.
 * Errors: cmark-gfm's, or the template's.
 */
int ot_bundle_page(ot_bundle *b, ot_buf *html, const char *md, size_t len, const char *title,
		   const char *path, const char *svg, const char *svg_name);

/**
 * The files every page loads, for i = 0, 1, ...: `*name` (under html/,
 * borrowed) and the contents into `out` (replaced). OT_ITEROVER past the
 * last.
 */
int ot_bundle_asset(ot_bundle *b, size_t i, const char **name, ot_buf *out);

#endif
