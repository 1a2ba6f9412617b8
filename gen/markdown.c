#include "markdown.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

/*
 * CMARK_OPT_DEFAULT is cmark-gfm's safe mode (no raw HTML, no javascript:
 * URLs); invalid UTF-8 is replaced rather than copied into the page. The
 * extensions need no option of their own.
 */
#define OPTIONS (CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8)

static const char *const extension_names[] = {"table", "autolink", "strikethrough"};

/*
 * cmark-gfm is not thread-safe: while a parser with extensions runs, their
 * special characters ('~', '|'...) sit in a global table that the parser
 * removes again when it finishes, so two parsers racing lose strikethrough
 * or tables. Every use of cmark-gfm holds this lock.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t registered = PTHREAD_ONCE_INIT;
static char version[64];

/* cmark-gfm's registration flag is a plain global: run it exactly once. */
static void register_extensions(void)
{
	cmark_gfm_core_extensions_ensure_registered();
	snprintf(version, sizeof(version), "cmark-gfm %s", cmark_version_string());
}

/* Length of a front matter block ("---" line ... "---" line) at the top. */
static size_t front_matter_len(const char *md, size_t len, int *lines)
{
	size_t pos, line_start;
	int n = 1;
	*lines = 0;
	if (len < 4 || memcmp(md, "---", 3) || (md[3] != '\n' && memcmp(md + 3, "\r\n", 2)))
		return 0;
	pos = md[3] == '\n' ? 4 : 5;
	while (pos < len) {
		const char *nl = memchr(md + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - md) : len, text_end = end;
		line_start = pos;
		n++;
		if (text_end > line_start && md[text_end - 1] == '\r')
			text_end--;
		if (text_end - line_start == 3 && !memcmp(md + line_start, "---", 3)) {
			*lines = n;
			return nl ? end + 1 : len;
		}
		pos = end + 1;
	}
	return 0; /* never closed: ordinary Markdown */
}

/*
 * Parse `md` (front matter skipped); *line_offset is what it skipped.
 * Called with `lock` held.
 */
static int parse(cmark_parser **parser_out, cmark_node **doc_out, const char *md, size_t len,
		 int *line_offset)
{
	cmark_parser *parser = NULL;
	cmark_node *doc = NULL;
	size_t skip, i;

	pthread_once(&registered, register_extensions);
	*parser_out = NULL;
	*doc_out = NULL;
	skip = front_matter_len(md, len, line_offset);

	parser = cmark_parser_new(OPTIONS);
	for (i = 0; i < OT_ARRAY_LEN(extension_names); i++) {
		cmark_syntax_extension *ext = cmark_find_syntax_extension(extension_names[i]);
		if (!ext || !cmark_parser_attach_syntax_extension(parser, ext)) {
			cmark_parser_free(parser);
			return ot_error_set("cmark-gfm extension '%s' is not available",
					    extension_names[i]);
		}
	}
	cmark_parser_feed(parser, md + skip, len - skip);
	doc = cmark_parser_finish(parser);
	if (!doc) {
		cmark_parser_free(parser);
		return ot_error_set("cmark-gfm could not parse the page");
	}
	*parser_out = parser;
	*doc_out = doc;
	return 0;
}

/* Neither cmark free function accepts NULL. */
static void release(cmark_parser *parser, cmark_node *doc)
{
	if (doc)
		cmark_node_free(doc);
	if (parser)
		cmark_parser_free(parser);
}

static bool is_link(cmark_node *node)
{
	cmark_node_type t = cmark_node_get_type(node);
	return t == CMARK_NODE_LINK || t == CMARK_NODE_IMAGE;
}

/* "http:", "mailto:", "C:"... RFC 3986: ALPHA *(ALPHA / DIGIT / + - .) ":" */
static bool has_scheme(const char *url)
{
	const char *p = url;
	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return false;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '+' || *p == '-' || *p == '.')
		p++;
	return *p == ':';
}

/*
 * The ".html" form of a relative "x.md" / "x.md#frag" destination, or NULL
 * when it is not one (caller frees).
 */
static char *rewritten_url(const char *url)
{
	const char *hash, *path_end;
	size_t path_len;
	ot_buf b = OT_BUF_INIT;

	if (!*url || *url == '/' || *url == '#' || has_scheme(url))
		return NULL;
	hash = strchr(url, '#');
	path_end = hash ? hash : url + strlen(url);
	path_len = (size_t)(path_end - url);
	/* a name before ".md", and no query string in the way */
	if (path_len < 4 || memcmp(path_end - 3, ".md", 3) || path_end[-4] == '/' ||
	    memchr(url, '?', path_len))
		return NULL;
	ot_buf_put(&b, url, path_len - 3);
	ot_buf_puts(&b, ".html");
	ot_buf_puts(&b, path_end);
	return ot_buf_detach(&b);
}

/*
 * Raw HTML becomes literal text, so the renderer escapes it (safe mode
 * alone would drop it silently). Done after the walk: replacing nodes under
 * a live iterator is not allowed.
 */
static void escape_raw_html(cmark_node *doc)
{
	OT_VEC(cmark_node *) found = {0};
	cmark_iter *iter = cmark_iter_new(doc);
	cmark_event_type ev;
	size_t i;

	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(iter);
		cmark_node_type t = cmark_node_get_type(node);
		if (ev == CMARK_EVENT_ENTER &&
		    (t == CMARK_NODE_HTML_INLINE || t == CMARK_NODE_HTML_BLOCK))
			ot_vec_push(&found, node);
	}
	cmark_iter_free(iter);

	for (i = 0; i < found.len; i++) {
		cmark_node *node = found.items[i], *text = cmark_node_new(CMARK_NODE_TEXT);
		const char *literal = cmark_node_get_literal(node);
		size_t len = literal ? strlen(literal) : 0;
		char *copy;
		while (len && (literal[len - 1] == '\n' || literal[len - 1] == '\r'))
			len--;
		copy = ot_strndup(literal ? literal : "", len);
		cmark_node_set_literal(text, copy);
		free(copy);
		if (cmark_node_get_type(node) == CMARK_NODE_HTML_BLOCK) {
			cmark_node *para = cmark_node_new(CMARK_NODE_PARAGRAPH);
			cmark_node_append_child(para, text);
			text = para;
		}
		cmark_node_replace(node, text);
		cmark_node_free(node);
	}
	ot_vec_free(&found);
}

static void rewrite_links(cmark_node *doc)
{
	cmark_iter *iter = cmark_iter_new(doc);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(iter);
		char *url;
		if (ev != CMARK_EVENT_ENTER || !is_link(node))
			continue;
		url = rewritten_url(cmark_node_get_url(node));
		if (url)
			cmark_node_set_url(node, url);
		free(url);
	}
	cmark_iter_free(iter);
}

void ot_markdown_slug(ot_buf *out, const char *text)
{
	ot_buf_clear(out);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p >= 'A' && *p <= 'Z')
			ot_buf_putc(out, (char)(*p - 'A' + 'a'));
		else if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
			 *p == '_' || *p >= 0x80)
			ot_buf_putc(out, (char)*p);
		else if (*p == ' ')
			ot_buf_putc(out, '-');
	}
}

void ot_markdown_headings_free(ot_markdown_headings *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->len; i++) {
		free(h->items[i].text);
		free(h->items[i].id);
	}
	ot_vec_free(h);
}

static void plain_text(ot_buf *out, cmark_node *node);

/* Every heading, in order, with an id no earlier heading of the page has. */
static void collect_headings(ot_markdown_headings *out, cmark_node *doc)
{
	cmark_iter *iter = cmark_iter_new(doc);
	cmark_event_type ev;
	ot_map *seen = ot_map_new(); /* keys: the ids, owned by `out` */
	ot_buf text = OT_BUF_INIT, id = OT_BUF_INIT, base = OT_BUF_INIT;
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(iter);
		ot_markdown_heading h;
		if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_HEADING)
			continue;
		ot_buf_sets(&text, "");
		plain_text(&text, node);
		ot_markdown_slug(&id, text.ptr);
		ot_buf_sets(&base, id.ptr ? id.ptr : "");
		for (size_t n = 1; ot_map_get(seen, id.ptr ? id.ptr : ""); n++) {
			ot_buf_clear(&id);
			ot_buf_printf(&id, "%s-%zu", base.ptr, n);
		}
		h.level = cmark_node_get_heading_level(node);
		h.text = ot_strdup(text.ptr);
		h.id = ot_strdup(id.ptr ? id.ptr : "");
		ot_map_put(seen, h.id, h.id);
		ot_vec_push(out, h);
	}
	cmark_iter_free(iter);
	ot_map_free(seen);
	ot_buf_free(&text);
	ot_buf_free(&id);
	ot_buf_free(&base);
}

/* The raw HTML block that stands for the embedded image. */
static void embed(cmark_node *doc, const char *dest, const char *html)
{
	cmark_iter *iter = cmark_iter_new(doc);
	cmark_event_type ev;
	OT_VEC(cmark_node *) found = {0};
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(iter);
		const char *url;
		if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_IMAGE)
			continue;
		url = cmark_node_get_url(node);
		if (url && !strcmp(url, dest))
			ot_vec_push(&found, node);
	}
	cmark_iter_free(iter);
	for (size_t i = 0; i < found.len; i++) {
		cmark_node *img = found.items[i], *para = cmark_node_parent(img), *block;
		bool alone = para && cmark_node_get_type(para) == CMARK_NODE_PARAGRAPH &&
			     cmark_node_first_child(para) == img && cmark_node_last_child(para) == img;
		block = cmark_node_new(alone ? CMARK_NODE_CUSTOM_BLOCK : CMARK_NODE_CUSTOM_INLINE);
		cmark_node_set_on_enter(block, html);
		cmark_node_set_on_exit(block, "");
		if (alone) {
			cmark_node_replace(para, block);
			cmark_node_free(para);
		} else {
			cmark_node_replace(img, block);
			cmark_node_free(img);
		}
	}
	ot_vec_free(&found);
}

/* Fenced code blocks whose info string is "{name}": MyST directives. */
static void drop_directives(cmark_node *doc)
{
	cmark_iter *iter = cmark_iter_new(doc);
	cmark_event_type ev;
	OT_VEC(cmark_node *) found = {0};
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(iter);
		const char *info;
		size_t n;
		int length, offset;
		char fence;
		if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_CODE_BLOCK ||
		    !cmark_node_get_fenced(node, &length, &offset, &fence))
			continue;
		info = cmark_node_get_fence_info(node);
		n = info ? strcspn(info, " \t") : 0;
		if (n > 2 && info[0] == '{' && info[n - 1] == '}')
			ot_vec_push(&found, node);
	}
	cmark_iter_free(iter);
	for (size_t i = 0; i < found.len; i++) {
		cmark_node_unlink(found.items[i]);
		cmark_node_free(found.items[i]);
	}
	ot_vec_free(&found);
}

/*
 * Give the headings of the rendered HTML their ids: cmark writes every
 * heading as a bare "<hN>", and any other "<h" of the page (text, code) is
 * escaped to "&lt;h", so the k-th "<h1>".."<h6>" is the k-th heading.
 */
static void add_heading_ids(ot_buf *out, const char *html, const ot_markdown_headings *h,
			    size_t first)
{
	size_t k = first;
	const char *p = html;
	while (*p) {
		if (p[0] == '<' && p[1] == 'h' && p[2] >= '1' && p[2] <= '6' && p[3] == '>' &&
		    k < h->len) {
			/* an id holds no character HTML would need escaped */
			ot_buf_printf(out, "<h%c id=\"%s\">", p[2], h->items[k].id);
			k++;
			p += 4;
			continue;
		}
		ot_buf_putc(out, *p++);
	}
}

int ot_markdown_render_html(ot_buf *out, const char *md, size_t len,
			    const ot_markdown_html_opts *opts)
{
	static const ot_markdown_html_opts defaults = {0};
	cmark_parser *parser = NULL;
	cmark_node *doc = NULL;
	char *html = NULL;
	size_t first = 0;
	int offset, error;

	if (!opts)
		opts = &defaults;
	pthread_mutex_lock(&lock);
	if ((error = parse(&parser, &doc, md, len, &offset)) < 0)
		goto done;
	escape_raw_html(doc);
	if (opts->rewrite_md_links)
		rewrite_links(doc);
	if (opts->headings) {
		first = opts->headings->len;
		collect_headings(opts->headings, doc);
	}
	if (opts->embed_image && opts->embed_html)
		embed(doc, opts->embed_image, opts->embed_html);
	if (opts->drop_directives)
		drop_directives(doc);
	/* the table and strikethrough renderers hook in through this list */
	html = cmark_render_html(doc, OPTIONS, cmark_parser_get_syntax_extensions(parser));
	if (!html) {
		error = ot_error_set("cmark-gfm could not render the page");
		goto done;
	}
	if (opts->headings)
		add_heading_ids(out, html, opts->headings, first);
	else
		ot_buf_puts(out, html);

done:
	if (html)
		cmark_get_default_mem_allocator()->free(html);
	release(parser, doc);
	pthread_mutex_unlock(&lock);
	return error;
}

int ot_markdown_to_html(ot_buf *out, const char *md, size_t len, bool rewrite_md_links)
{
	ot_markdown_html_opts opts = {0};
	opts.rewrite_md_links = rewrite_md_links;
	return ot_markdown_render_html(out, md, len, &opts);
}

/* The page line of `node`: its own, else that of the nearest ancestor. */
static int node_line(cmark_node *node)
{
	for (; node; node = cmark_node_parent(node)) {
		int line = cmark_node_get_start_line(node);
		if (line > 0)
			return line;
	}
	return 0;
}

int ot_markdown_links_collect(ot_markdown_links *out, const char *md, size_t len)
{
	cmark_parser *parser = NULL;
	cmark_node *doc = NULL;
	cmark_iter *iter;
	cmark_event_type ev;
	int offset, error;

	pthread_mutex_lock(&lock);
	if ((error = parse(&parser, &doc, md, len, &offset)) < 0)
		goto done;
	/* Table cells are ordinary nodes to the iterator, so their links come too. */
	iter = cmark_iter_new(doc);
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(iter);
		ot_markdown_link link;
		const char *url;
		if (ev != CMARK_EVENT_ENTER || !is_link(node))
			continue;
		url = cmark_node_get_url(node);
		link.url = ot_strdup(url ? url : "");
		link.line = node_line(node) + offset;
		link.image = cmark_node_get_type(node) == CMARK_NODE_IMAGE;
		ot_vec_push(out, link);
	}
	cmark_iter_free(iter);

done:
	release(parser, doc);
	pthread_mutex_unlock(&lock);
	return error;
}

void ot_markdown_links_free(ot_markdown_links *links)
{
	size_t i;
	if (!links)
		return;
	for (i = 0; i < links->len; i++)
		free(links->items[i].url);
	ot_vec_free(links);
}

/* The text a reader sees in `node`'s inline content. */
static void plain_text(ot_buf *out, cmark_node *node)
{
	cmark_iter *iter = cmark_iter_new(node);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		cmark_node *cur = cmark_iter_get_node(iter);
		if (ev != CMARK_EVENT_ENTER)
			continue;
		switch (cmark_node_get_type(cur)) {
		case CMARK_NODE_TEXT:
		case CMARK_NODE_CODE:
		case CMARK_NODE_HTML_INLINE:
			ot_buf_puts(out, cmark_node_get_literal(cur));
			break;
		case CMARK_NODE_SOFTBREAK:
		case CMARK_NODE_LINEBREAK:
			ot_buf_putc(out, ' ');
			break;
		default:
			break;
		}
	}
	cmark_iter_free(iter);
}

char *ot_markdown_title(const char *md, size_t len)
{
	cmark_parser *parser = NULL;
	cmark_node *doc = NULL;
	cmark_iter *iter;
	cmark_event_type ev;
	ot_buf title = OT_BUF_INIT;
	int offset;

	pthread_mutex_lock(&lock);
	if (parse(&parser, &doc, md, len, &offset) < 0)
		goto done;
	iter = cmark_iter_new(doc);
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(iter);
		if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(node) == CMARK_NODE_HEADING &&
		    cmark_node_get_heading_level(node) == 1) {
			plain_text(&title, node);
			break;
		}
	}
	cmark_iter_free(iter);

done:
	release(parser, doc);
	pthread_mutex_unlock(&lock);
	return title.size ? ot_buf_detach(&title) : NULL;
}

const char *ot_markdown_library_version(void)
{
	pthread_once(&registered, register_extensions);
	return version;
}
