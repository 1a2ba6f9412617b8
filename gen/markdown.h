/*
 * markdown.h - GitHub-Flavored Markdown through cmark-gfm.
 *
 * The only module that talks to cmark-gfm: rendering pages to HTML for the
 * offline bundle, and listing the links and images of a page as the
 * renderer sees them (for the link checker).
 *
 * Every function is thread-safe; cmark-gfm keeps global parser state, so
 * calls are serialised internally.
 */
#ifndef OT_MARKDOWN_H
#define OT_MARKDOWN_H

#include "buf.h"
#include "common.h"

/**
 * Render GFM `md` to an HTML fragment in `out` (appended), with the table,
 * autolink and strikethrough extensions. Raw HTML in the input is escaped,
 * not passed through (it shows as text); cmark-gfm's safe mode also blanks
 * javascript:/vbscript:/file:/data: link destinations, and invalid UTF-8 is
 * replaced by U+FFFD. When `rewrite_md_links` is true, every relative link
 * or image destination ending in ".md" (optionally followed by
 * "#fragment") is rewritten to ".html"; relative means no scheme
 * ("http:", "mailto:"...), no leading '/' or '#'. ".md" must be lower
 * case, follow a name, and have no "?query" before it. A YAML front
 * matter block at the very top ("---\n...\n---\n", CRLF too) is skipped;
 * one that is never closed is ordinary Markdown.
 * Errors: only if cmark-gfm's extensions are missing.
 */
int ot_markdown_to_html(ot_buf *out, const char *md, size_t len, bool rewrite_md_links);

/** A heading of a page, as ot_markdown_render_html gives it an id. */
typedef struct {
	int level;  /**< 1 to 6 */
	char *text; /**< its plain text (text and code of its inlines) */
	char *id;   /**< the id="..." it got */
} ot_markdown_heading;

typedef OT_VEC(ot_markdown_heading) ot_markdown_headings;

/** How ot_markdown_render_html renders. Zero for ot_markdown_to_html's
 * defaults. */
typedef struct {
	bool rewrite_md_links; /**< as ot_markdown_to_html's flag */
	/** When set, every heading gets an id (ot_markdown_slug of its text,
	 * "-1", "-2"... added to repeats) and is appended here, in order. */
	ot_markdown_headings *headings;
	/** When both are set, an image whose destination is exactly
	 * `embed_image` is replaced by the raw HTML `embed_html` (the paragraph
	 * that holds only it becomes that block). The one way raw HTML gets
	 * into a page: the caller's, never the Markdown's. */
	const char *embed_image;
	const char *embed_html;
	/** Leave out MyST directives: fenced code blocks whose info string is
	 * "{name}" (the index's toctree), instructions to Sphinx, not text. */
	bool drop_directives;
} ot_markdown_html_opts;

/**
 * ot_markdown_to_html with options (`opts` may be NULL: the defaults).
 * Appends to `out`. Errors: as ot_markdown_to_html.
 */
int ot_markdown_render_html(ot_buf *out, const char *md, size_t len,
			    const ot_markdown_html_opts *opts);

/** Free the headings' strings and the vector, leaving it empty. NULL is a no-op. */
void ot_markdown_headings_free(ot_markdown_headings *h);

/**
 * GitHub's anchor for a heading text, into `out` (replaced): lower case,
 * spaces as '-', only letters, digits, '-', '_' and non-ASCII characters
 * kept. "Modules (torch.nn)" -> "modules-torchnn".
 */
void ot_markdown_slug(ot_buf *out, const char *text);

/** A link or image destination found in a page. */
typedef struct {
	char *url;   /**< as written (caller frees through ot_markdown_links_free) */
	int line;    /**< 1-based line in the page (front matter counted) where
			  the link starts; for nodes without a position, that
			  of the nearest enclosing block */
	bool image;
} ot_markdown_link;

typedef OT_VEC(ot_markdown_link) ot_markdown_links;

/**
 * Append every link and image destination of `md` to `out` (front matter
 * skipped), in document order: inline, reference, autolinks and links in
 * table cells; not text inside code. Call ot_markdown_links_free once done.
 */
int ot_markdown_links_collect(ot_markdown_links *out, const char *md, size_t len);

/** Free the URLs and the vector, leaving it empty. NULL is a no-op. */
void ot_markdown_links_free(ot_markdown_links *links);

/**
 * The plain-text title of the first level-1 heading (ATX or setext; text
 * and code of its inlines, line breaks as spaces), or NULL when there is
 * none or it is empty (caller frees).
 */
char *ot_markdown_title(const char *md, size_t len);

/** "cmark-gfm X.Y.Z", for --version. Borrowed. */
const char *ot_markdown_library_version(void);

#endif
