/*
 * markdown.h - GitHub-Flavored Markdown through cmark-gfm.
 *
 * The only module that talks to cmark-gfm: rendering pages to HTML for the
 * offline bundle, and listing the links and images of a page as the
 * renderer sees them (for the link checker).
 */
#ifndef OT_MARKDOWN_H
#define OT_MARKDOWN_H

#include "buf.h"
#include "common.h"

/**
 * Render GFM `md` to an HTML fragment in `out` (appended), with the table,
 * autolink and strikethrough extensions. Raw HTML in the input is escaped,
 * not passed through. When `rewrite_md_links` is true, every relative link
 * destination ending in ".md" (optionally followed by "#fragment") is
 * rewritten to ".html". A YAML front matter block at the very top
 * ("---\n...\n---\n") is skipped.
 */
int ot_markdown_to_html(ot_buf *out, const char *md, size_t len, bool rewrite_md_links);

/** A link or image destination found in a page. */
typedef struct {
	char *url;   /**< as written (caller frees through ot_markdown_links_free) */
	int line;    /**< 1-based line of the containing block in the page */
	bool image;
} ot_markdown_link;

typedef OT_VEC(ot_markdown_link) ot_markdown_links;

/** Append every link and image destination of `md` to `out` (front matter skipped). */
int ot_markdown_links_collect(ot_markdown_links *out, const char *md, size_t len);

void ot_markdown_links_free(ot_markdown_links *links);

/**
 * The plain-text title of the first level-1 heading, or NULL (caller frees).
 */
char *ot_markdown_title(const char *md, size_t len);

/** "cmark-gfm X.Y.Z", for --version. Borrowed. */
const char *ot_markdown_library_version(void);

#endif
