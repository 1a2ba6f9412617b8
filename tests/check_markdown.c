/* Check suite for gen/markdown.c: GFM to HTML, link rewriting and collection. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "markdown.h"
#include "page.h"
#include "testutil.h"

/* HTML of `md` (rewriting .md links when asked); caller frees. */
static char *html_of(const char *md, bool rewrite)
{
	ot_buf out = OT_BUF_INIT;
	int rc = ot_markdown_to_html(&out, md, strlen(md), rewrite);
	ck_assert_msg(rc == 0, "render failed: %s", ot_error_last());
	return ot_buf_detach(&out);
}

#define assert_contains(hay, needle)                                                         \
	ck_assert_msg(strstr((hay), (needle)) != NULL, "expected \"%s\" in:\n%s", (needle), (hay))
#define assert_lacks(hay, needle)                                                            \
	ck_assert_msg(strstr((hay), (needle)) == NULL, "unexpected \"%s\" in:\n%s", (needle), (hay))

START_TEST(renders_basic_markdown)
{
	char *html = html_of("# Title\n\nSome *emphasis* and `code`.\n", false);
	ck_assert_str_eq(html, "<h1>Title</h1>\n<p>Some <em>emphasis</em> and <code>code</code>.</p>\n");
	free(html);
}
END_TEST

START_TEST(appends_to_the_buffer)
{
	ot_buf out = OT_BUF_INIT;
	ot_buf_puts(&out, "<!-- before -->\n");
	ck_assert_int_eq(ot_markdown_to_html(&out, "x", 1, false), 0);
	ck_assert_str_eq(out.ptr, "<!-- before -->\n<p>x</p>\n");
	ot_buf_free(&out);
}
END_TEST

START_TEST(honours_the_length)
{
	ot_buf out = OT_BUF_INIT;
	const char md[] = "first\n\nsecond";
	ck_assert_int_eq(ot_markdown_to_html(&out, md, 5, false), 0);
	ck_assert_str_eq(out.ptr, "<p>first</p>\n");
	ot_buf_free(&out);
}
END_TEST

START_TEST(tables_with_escaped_pipes)
{
	char *html = html_of("| op | signature |\n"
			     "|:---|---:|\n"
			     "| add | `a \\| b` |\n"
			     "| or \\| xor | c |\n",
			     false);
	assert_contains(html, "<table>");
	assert_contains(html, "<th align=\"left\">op</th>");
	assert_contains(html, "<td align=\"right\"><code>a | b</code></td>");
	assert_contains(html, "<td align=\"left\">or | xor</td>");
	/* two cells per row, never three */
	assert_lacks(html, "<td align=\"right\">xor");
	assert_contains(html, "</tbody>");
	free(html);
}
END_TEST

START_TEST(autolinks)
{
	char *html = html_of("See https://pytorch.org/docs and www.example.com or <https://a.b/c>.\n",
			     false);
	assert_contains(html, "<a href=\"https://pytorch.org/docs\">https://pytorch.org/docs</a>");
	assert_contains(html, "<a href=\"http://www.example.com\">www.example.com</a>");
	assert_contains(html, "<a href=\"https://a.b/c\">https://a.b/c</a>");
	free(html);
}
END_TEST

START_TEST(strikethrough)
{
	char *html = html_of("~~old~~ new\n", false);
	ck_assert_str_eq(html, "<p><del>old</del> new</p>\n");
	free(html);
}
END_TEST

START_TEST(raw_html_is_escaped)
{
	char *html = html_of("inline <script>alert(1)</script> here\n\n"
			     "<div onclick=\"x()\">\nblock\n</div>\n\n"
			     "[bad](javascript:alert(1))\n",
			     false);
	assert_lacks(html, "<script");
	assert_lacks(html, "<div");
	assert_lacks(html, "javascript:");
	assert_lacks(html, "raw HTML omitted");
	assert_contains(html, "<p>inline &lt;script&gt;alert(1)&lt;/script&gt; here</p>");
	assert_contains(html, "<p>&lt;div onclick=&quot;x()&quot;&gt;\nblock\n&lt;/div&gt;</p>");
	free(html);
}
END_TEST

START_TEST(code_fences_with_info_strings)
{
	char *html = html_of("```python title=\"x\"\nif a < b:\n    pass\n```\n\n~~~\nplain\n~~~\n", false);
	assert_contains(html, "<pre><code class=\"language-python\">if a &lt; b:\n    pass\n</code></pre>");
	assert_contains(html, "<pre><code>plain\n</code></pre>");
	free(html);
}
END_TEST

START_TEST(invalid_utf8_is_replaced)
{
	char *html = html_of("bad \xff\xfe byte\n", false);
	assert_lacks(html, "\xff");
	assert_contains(html, "\xef\xbf\xbd");
	free(html);
}
END_TEST

START_TEST(nul_bytes_do_not_truncate)
{
	ot_buf out = OT_BUF_INIT;
	const char md[] = "a\0b\n\nafter\n";
	ck_assert_int_eq(ot_markdown_to_html(&out, md, sizeof(md) - 1, false), 0);
	assert_contains(out.ptr, "<p>after</p>");
	ot_buf_free(&out);
}
END_TEST

struct rewrite_case {
	const char *url, *expect;
};

START_TEST(rewrites_relative_md_links)
{
	static const struct rewrite_case cases[] = {
	    {"add.md", "add.html"},
	    {"ops/add.md#kernel", "ops/add.html#kernel"},
	    {"../x.md", "../x.html"},
	    {"./y.md#", "./y.html#"},
	    {"a.b.md", "a.b.html"},
	    {"http://example.org/x.md", "http://example.org/x.md"},
	    {"https://example.org/x.md#f", "https://example.org/x.md#f"},
	    {"mailto:someone.md", "mailto:someone.md"},
	    {"ftp:x.md", "ftp:x.md"},
	    {"C:x.md", "C:x.md"},
	    {"/abs/x.md", "/abs/x.md"},
	    {"//host/x.md", "//host/x.md"},
	    {"#section.md", "#section.md"},
	    {"x.md?raw=1", "x.md?raw=1"},
	    {"x.markdown", "x.markdown"},
	    {"x.MD", "x.MD"},
	    {"dir/.md", "dir/.md"},
	    {"x.mdx", "x.mdx"},
	    {"x.md/y", "x.md/y"},
	    {"notes.txt", "notes.txt"},
	};
	size_t i;
	for (i = 0; i < OT_ARRAY_LEN(cases); i++) {
		ot_buf md = OT_BUF_INIT, expect = OT_BUF_INIT;
		char *html;
		ot_buf_printf(&md, "[t](%s)\n", cases[i].url);
		ot_buf_printf(&expect, "<p><a href=\"%s\">t</a></p>\n", cases[i].expect);
		html = html_of(md.ptr, true);
		ck_assert_msg(!strcmp(html, expect.ptr), "%s: got %s", cases[i].url, html);
		free(html);
		/* without rewriting every destination is left alone */
		ot_buf_clear(&expect);
		ot_buf_printf(&expect, "<p><a href=\"%s\">t</a></p>\n", cases[i].url);
		html = html_of(md.ptr, false);
		ck_assert_msg(!strcmp(html, expect.ptr), "%s: got %s", cases[i].url, html);
		free(html);
		ot_buf_free(&md);
		ot_buf_free(&expect);
	}
}
END_TEST

START_TEST(rewrites_images_only_when_md)
{
	char *html = html_of("![d](diagram.svg) ![p](page.md) [![n](n.png)](n.md)\n\n"
			     "[ref]\n\n[ref]: other.md#top\n",
			     true);
	assert_contains(html, "<img src=\"diagram.svg\" alt=\"d\" />");
	assert_contains(html, "<img src=\"page.html\" alt=\"p\" />");
	assert_contains(html, "<a href=\"n.html\"><img src=\"n.png\" alt=\"n\" /></a>");
	assert_contains(html, "<a href=\"other.html#top\">ref</a>");
	free(html);
}
END_TEST

START_TEST(rewrites_links_in_tables)
{
	char *html = html_of("| op | page |\n|---|---|\n| add | [add](ops/add.md) |\n", true);
	assert_contains(html, "<td><a href=\"ops/add.html\">add</a></td>");
	free(html);
}
END_TEST

static ot_markdown_links collect(const char *md)
{
	ot_markdown_links links = {0};
	int rc = ot_markdown_links_collect(&links, md, strlen(md));
	ck_assert_msg(rc == 0, "collect failed: %s", ot_error_last());
	return links;
}

static void assert_link(const ot_markdown_links *links, size_t i, const char *url, int line,
			bool image)
{
	ck_assert_msg(i < links->len, "only %zu links", links->len);
	ck_assert_str_eq(links->items[i].url, url);
	ck_assert_msg(links->items[i].line == line, "%s: line %d, expected %d", url,
		      links->items[i].line, line);
	ck_assert_int_eq(links->items[i].image, image);
}

START_TEST(collects_links_images_and_table_links)
{
	ot_markdown_links links = collect("# Page\n"                          /* 1 */
					  "\n"                                /* 2 */
					  "Text [one](a.md) and\n"            /* 3 */
					  "more ![pic](img/p.svg) text\n"     /* 4 */
					  "\n"                                /* 5 */
					  "| op | link |\n"                   /* 6 */
					  "|----|------|\n"                   /* 7 */
					  "| x | [cell](ops/x.md#k) |\n"      /* 8 */
					  "| y | ![i](y.png) [z](z.md) |\n"   /* 9 */
					  "\n"                                /* 10 */
					  "- item <https://example.org/>\n"   /* 11 */
					  "\n"                                /* 12 */
					  "> quoted [q](../q.md)\n"           /* 13 */
					  "\n"                                /* 14 */
					  "[ref][r]\n"                        /* 15 */
					  "\n"                                /* 16 */
					  "[r]: refs/r.md\n");                /* 17 */
	ck_assert_uint_eq(links.len, 8);
	assert_link(&links, 0, "a.md", 3, false);
	assert_link(&links, 1, "img/p.svg", 4, true);
	assert_link(&links, 2, "ops/x.md#k", 8, false);
	assert_link(&links, 3, "y.png", 9, true);
	assert_link(&links, 4, "z.md", 9, false);
	assert_link(&links, 5, "https://example.org/", 11, false);
	assert_link(&links, 6, "../q.md", 13, false);
	assert_link(&links, 7, "refs/r.md", 15, false);
	ot_markdown_links_free(&links);
	ck_assert_uint_eq(links.len, 0);
	ot_markdown_links_free(NULL);
}
END_TEST

START_TEST(collect_appends_and_keeps_urls_as_written)
{
	ot_markdown_links links = collect("[a](a.md)\n");
	ck_assert_int_eq(ot_markdown_links_collect(&links, "x\n\n[b](b.md#f)\n", 15), 0);
	ck_assert_uint_eq(links.len, 2);
	assert_link(&links, 0, "a.md", 1, false);
	assert_link(&links, 1, "b.md#f", 3, false);
	ot_markdown_links_free(&links);
}
END_TEST

START_TEST(collect_ignores_code)
{
	ot_markdown_links links = collect("`[no](code.md)`\n\n    [no](indented.md)\n\n"
					  "```\n[no](fenced.md)\n```\n");
	ck_assert_uint_eq(links.len, 0);
	ot_markdown_links_free(&links);
}
END_TEST

START_TEST(front_matter_is_skipped)
{
	const char *md = "---\ntitle: x\nlinks: [a](fm.md)\n---\n# Real title\n\n[after](b.md)\n";
	ot_markdown_links links = collect(md);
	char *html = html_of(md, false), *title = ot_markdown_title(md, strlen(md));
	ck_assert_str_eq(html, "<h1>Real title</h1>\n<p><a href=\"b.md\">after</a></p>\n");
	ck_assert_str_eq(title, "Real title");
	/* lines count from the top of the page, front matter included */
	ck_assert_uint_eq(links.len, 1);
	assert_link(&links, 0, "b.md", 7, false);
	ot_markdown_links_free(&links);
	free(html);
	free(title);
}
END_TEST

START_TEST(front_matter_with_crlf)
{
	char *html = html_of("---\r\na: 1\r\n---\r\ntext\r\n", false);
	ck_assert_str_eq(html, "<p>text</p>\n");
	free(html);
}
END_TEST

START_TEST(only_a_leading_block_is_front_matter)
{
	char *html;
	/* not at the very top: a thematic break and a setext heading */
	html = html_of("\n---\na: 1\n---\n", false);
	assert_contains(html, "<hr />");
	free(html);
	/* never closed: ordinary Markdown */
	html = html_of("---\nkeep me\n", false);
	assert_contains(html, "keep me");
	free(html);
	/* "----" is not a delimiter */
	html = html_of("----\nkeep\n----\n", false);
	assert_contains(html, "keep");
	free(html);
}
END_TEST

START_TEST(title_is_first_level_one_heading)
{
	static const struct {
		const char *md, *title;
	} cases[] = {
	    {"## Sub\n\n# `torch.add` *and* [friends](x.md)\n\n# Second\n", "torch.add and friends"},
	    {"Setext title\n============\n", "Setext title"},
	    {"Two\nlines & ~~more~~\n===\n", "Two lines & more"},
	    {"# a &lt; b &amp; c\n", "a < b & c"},
	    {"## only level two\n", NULL},
	    {"no heading\n", NULL},
	    {"#\n\n# Later\n", NULL},
	};
	size_t i;
	for (i = 0; i < OT_ARRAY_LEN(cases); i++) {
		char *t = ot_markdown_title(cases[i].md, strlen(cases[i].md));
		if (cases[i].title) {
			ck_assert_msg(t && !strcmp(t, cases[i].title), "case %zu: got %s", i,
				      t ? t : "(null)");
		} else {
			ck_assert_msg(t == NULL, "case %zu: got %s", i, t);
		}
		free(t);
	}
}
END_TEST

#define ROWS 40

/* Every render of the table must keep all its strikethroughs and links. */
static void *render_thread(void *arg)
{
	ot_buf *out = arg, md = OT_BUF_INIT;
	void *res = NULL;
	int i, r;
	ot_buf_puts(&md, "| a | b |\n|---|---|\n");
	for (r = 0; r < ROWS; r++)
		ot_buf_printf(&md, "| ~~c%d~~ | [b](b%d.md) www.x.org |\n", r, r);
	for (i = 0; i < 200 && !res; i++) {
		const char *p;
		int dels = 0, links = 0;
		ot_buf_clear(out);
		if (ot_markdown_to_html(out, md.ptr, md.size, true) < 0)
			res = arg;
		for (p = out->ptr; (p = strstr(p, "<del>")); p++)
			dels++;
		for (p = out->ptr; (p = strstr(p, ".html\">b</a>")); p++)
			links++;
		if (dels != ROWS || links != ROWS)
			res = arg;
	}
	ot_buf_free(&md);
	return res;
}

START_TEST(concurrent_renders_agree)
{
	pthread_t threads[4];
	ot_buf outs[4];
	void *res;
	size_t i;
	for (i = 0; i < 4; i++) {
		outs[i] = (ot_buf)OT_BUF_INIT;
		ck_assert_int_eq(pthread_create(&threads[i], NULL, render_thread, &outs[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(threads[i], &res);
		ck_assert_msg(res == NULL, "thread %zu lost markup:\n%s", i, outs[i].ptr);
	}
	assert_contains(outs[0].ptr, "<td><del>c0</del></td>");
	assert_contains(outs[0].ptr, "<a href=\"http://www.x.org\">www.x.org</a>");
	for (i = 1; i < 4; i++)
		ck_assert_str_eq(outs[0].ptr, outs[i].ptr);
	for (i = 0; i < 4; i++)
		ot_buf_free(&outs[i]);
}
END_TEST

/* Headings get GitHub's anchors, repeats a "-1"; the list says so, in order. */
START_TEST(headings_get_ids_and_are_listed)
{
	static const char md[] = "---\ntitle: t\n---\n# nn.LSTM\n\n## Modules (torch.nn)\n\n"
				 "### C++ `at::native` & <more>\n\n## Summary\n\n## Summary\n\n"
				 "Text with <h2> in it and `<h3>`.\n";
	ot_markdown_headings h = {0};
	ot_markdown_html_opts opts = {0};
	ot_buf out = OT_BUF_INIT;
	opts.headings = &h;
	ck_assert_int_eq(ot_markdown_render_html(&out, md, strlen(md), &opts), 0);
	ck_assert_uint_eq(h.len, 5);
	ck_assert_str_eq(h.items[0].id, "nnlstm");
	ck_assert_int_eq(h.items[1].level, 2);
	ck_assert_str_eq(h.items[1].text, "Modules (torch.nn)");
	ck_assert_str_eq(h.items[1].id, "modules-torchnn");
	ck_assert_str_eq(h.items[2].text, "C++ at::native & <more>");
	ck_assert_str_eq(h.items[2].id, "c-atnative--more");
	ck_assert_str_eq(h.items[3].id, "summary");
	ck_assert_str_eq(h.items[4].id, "summary-1");
	assert_contains(out.ptr, "<h1 id=\"nnlstm\">nn.LSTM</h1>");
	assert_contains(out.ptr, "<h2 id=\"summary-1\">Summary</h2>");
	assert_contains(out.ptr, "&lt;h2&gt; in it");
	assert_contains(out.ptr, "<code>&lt;h3&gt;</code>");
	ot_markdown_headings_free(&h);
	ot_markdown_headings_free(&h);
	ot_markdown_headings_free(NULL);
	ot_buf_free(&out);
}
END_TEST

/* The image named is replaced by the caller's HTML (its paragraph too when
 * it stands alone); the page's own raw HTML still shows as text. */
START_TEST(an_image_is_embedded_as_given)
{
	static const char md[] = "![Call chain](a.svg)\n\nInline ![x](a.svg) here, <b>raw</b>.\n\n"
				 "![other](b.svg)\n";
	ot_markdown_html_opts opts = {0};
	ot_buf out = OT_BUF_INIT;
	opts.embed_image = "a.svg";
	opts.embed_html = "<figure><svg></svg></figure>";
	ck_assert_int_eq(ot_markdown_render_html(&out, md, strlen(md), &opts), 0);
	assert_contains(out.ptr, "<figure><svg></svg></figure>\n<p>Inline <figure>");
	assert_lacks(out.ptr, "<p><figure>");
	assert_lacks(out.ptr, "src=\"a.svg\"");
	assert_contains(out.ptr, "<img src=\"b.svg\" alt=\"other\" />");
	assert_contains(out.ptr, "&lt;b&gt;raw&lt;/b&gt;");
	ot_buf_free(&out);
}
END_TEST

/* MyST directives are left out when asked; other fences stay. */
START_TEST(directives_can_be_left_out)
{
	static const char md[] = "Text\n\n```{toctree}\n:hidden:\n\nops/*\n```\n\n```cpp\nint x;\n```\n";
	ot_markdown_html_opts opts = {0};
	ot_buf out = OT_BUF_INIT;
	ck_assert_int_eq(ot_markdown_render_html(&out, md, strlen(md), &opts), 0);
	assert_contains(out.ptr, "ops/*");
	ot_buf_clear(&out);
	opts.drop_directives = true;
	ck_assert_int_eq(ot_markdown_render_html(&out, md, strlen(md), &opts), 0);
	assert_lacks(out.ptr, "ops/*");
	assert_lacks(out.ptr, "hidden");
	assert_contains(out.ptr, "int x;");
	ot_buf_free(&out);
}
END_TEST

START_TEST(slugs_are_githubs)
{
	ot_buf b = OT_BUF_INIT;
	ot_markdown_slug(&b, "Registry entry (native_functions.yaml)");
	ck_assert_str_eq(b.ptr, "registry-entry-native_functionsyaml");
	ot_markdown_slug(&b, "GPU work (CUDA, cuDNN, cuBLAS, ...)");
	ck_assert_str_eq(b.ptr, "gpu-work-cuda-cudnn-cublas-");
	ot_markdown_slug(&b, "Über -x");
	ck_assert_str_eq(b.ptr, "Über--x");
	ot_buf_free(&b);
}
END_TEST

START_TEST(library_version_names_cmark_gfm)
{
	const char *v = ot_markdown_library_version();
	ck_assert_msg(ot_starts_with(v, "cmark-gfm 0.") || ot_starts_with(v, "cmark-gfm 1."), "%s", v);
}
END_TEST

/* What pages hand to cmark and write is valid UTF-8: each bad byte (NUL,
 * a stray continuation, an overlong form, a surrogate, past U+10FFFF, a cut
 * sequence) becomes U+FFFD; well-formed text is left as it is. */
START_TEST(page_text_is_made_valid_utf8)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want;
	} cases[] = {
		{"plain \xC3\xA9 \xE2\x94\x82 \xF0\x9F\x98\x80", 17, "plain \xC3\xA9 \xE2\x94\x82 \xF0\x9F\x98\x80"},
		{"a\0b", 3, "a\xEF\xBF\xBD" "b"},
		{"\x80x", 2, "\xEF\xBF\xBDx"},
		{"\xC0\xAF", 2, "\xEF\xBF\xBD\xEF\xBF\xBD"},
		{"\xED\xA0\x80", 3, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
		{"\xF4\x90\x80\x80", 4, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
		{"ok\xE2\x94", 4, "ok\xEF\xBF\xBD\xEF\xBF\xBD"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ot_buf b = OT_BUF_INIT;
		ot_buf_put(&b, cases[i].in, cases[i].len);
		ot_utf8_sanitize(&b);
		ck_assert_msg(b.size == strlen(cases[i].want) && !memcmp(b.ptr, cases[i].want, b.size),
			      "case %zu: got '%.*s'", i, (int)b.size, b.ptr);
		ot_buf_free(&b);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("markdown");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, renders_basic_markdown);
	tcase_add_test(tc, headings_get_ids_and_are_listed);
	tcase_add_test(tc, an_image_is_embedded_as_given);
	tcase_add_test(tc, directives_can_be_left_out);
	tcase_add_test(tc, slugs_are_githubs);
	tcase_add_test(tc, page_text_is_made_valid_utf8);
	tcase_add_test(tc, appends_to_the_buffer);
	tcase_add_test(tc, honours_the_length);
	tcase_add_test(tc, tables_with_escaped_pipes);
	tcase_add_test(tc, autolinks);
	tcase_add_test(tc, strikethrough);
	tcase_add_test(tc, raw_html_is_escaped);
	tcase_add_test(tc, code_fences_with_info_strings);
	tcase_add_test(tc, invalid_utf8_is_replaced);
	tcase_add_test(tc, nul_bytes_do_not_truncate);
	tcase_add_test(tc, rewrites_relative_md_links);
	tcase_add_test(tc, rewrites_images_only_when_md);
	tcase_add_test(tc, rewrites_links_in_tables);
	tcase_add_test(tc, collects_links_images_and_table_links);
	tcase_add_test(tc, collect_appends_and_keeps_urls_as_written);
	tcase_add_test(tc, collect_ignores_code);
	tcase_add_test(tc, front_matter_is_skipped);
	tcase_add_test(tc, front_matter_with_crlf);
	tcase_add_test(tc, only_a_leading_block_is_front_matter);
	tcase_add_test(tc, title_is_first_level_one_heading);
	tcase_add_test(tc, concurrent_renders_agree);
	tcase_add_test(tc, library_version_names_cmark_gfm);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
