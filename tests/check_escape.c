/*
 * Check suite: gen/escape.c, one escaping rule per output language.
 * (check_hostile renders what these give with cmark-gfm, Python-Markdown
 * and Chromium; here each rule's exact output.)
 */
#include <string.h>

#include "escape.h"
#include "testutil.h"

typedef void (*esc_fn)(ot_buf *out, const char *s, size_t len);

static void expect(esc_fn fn, const char *in, size_t len, const char *want)
{
	ot_buf b = OT_BUF_INIT;
	fn(&b, in, len);
	ck_assert_msg(!strcmp(b.ptr, want), "'%s' gave '%s', not '%s'", in, b.ptr, want);
	ot_buf_free(&b);
}

#define EXPECT(fn, in, want) expect(fn, in, sizeof(in) - 1, want)

START_TEST(display_shows_what_would_hide)
{
	/* every line break is a space, \r\n once; controls and bidi shown */
	EXPECT(ot_esc_display, "a\nb\rc\r\nd\xe2\x80\xa8" "e\xc2\x85" "f\tg", "a b c d e f g");
	EXPECT(ot_esc_display, "x\x1b[2J\x07\x7f", "x\\x1b[2J\\x07\\x7f");
	EXPECT(ot_esc_display, "RNN\xe2\x80\xaegnp.exe", "RNN\\u202egnp.exe");
	EXPECT(ot_esc_display, "\xc2\x9b" "1\xff\xc3(", "\\u009b1\xef\xbf\xbd\xef\xbf\xbd(");
	EXPECT(ot_esc_display, "caf\xc3\xa9", "caf\xc3\xa9");
}
END_TEST

START_TEST(markdown_text_is_literal)
{
	EXPECT(ot_esc_md_text, "<img src=x>", "&lt;img src=x&gt;");
	EXPECT(ot_esc_md_text, "*a* _b_ [c](d) `e` #f !g \\h", "\\*a\\* \\_b\\_ \\[c\\](d) \\`e\\` \\#f \\!g \\\\h");
	EXPECT(ot_esc_md_text, "a|b ~~c~~ &amp;", "a&#124;b &#126;&#126;c&#126;&#126; &amp;amp;");
	EXPECT(ot_esc_md_text, "https://x.example www.x.example a@b.example",
	       "https&#58;//x.example www\\.x.example a\xe2\x81\xa0@b.example");
	EXPECT(ot_esc_md_text, "- item", "\\- item");
	EXPECT(ot_esc_md_text, "1. item", "1\\. item");
	EXPECT(ot_esc_md_text, "===", "&#61;==");
	EXPECT(ot_esc_md_text, " x", "&#32;x");
	EXPECT(ot_esc_md_text, "2.0.0", "2.0.0");
	EXPECT(ot_esc_md_text, "x\r<script>", "x &lt;script&gt;");
}
END_TEST

static void expect_code(const char *in, bool table, const char *want)
{
	ot_buf b = OT_BUF_INIT;
	ot_esc_md_code(&b, in, strlen(in), table);
	ck_assert_msg(!strcmp(b.ptr, want), "'%s' gave '%s', not '%s'", in, b.ptr, want);
	ot_buf_free(&b);
}

START_TEST(code_spans_hold_anything)
{
	expect_code("a || b", false, "`a || b`");
	/* "``" would pair with a later span and leave text between as prose */
	expect_code("", false, "` `");
	expect_code("a || b", true, "a &#124;&#124; b");
	expect_code("a`b``c", false, "```a`b``c```");
	expect_code("`x", false, "`` `x ``");
	expect_code("x\ny\r<script>", false, "`x y <script>`");
	expect_code("\x1b]0;t\x07", true, "`\\x1b]0;t\\x07`");
}
END_TEST

START_TEST(code_blocks_and_fences)
{
	ot_buf b = OT_BUF_INIT;
	EXPECT(ot_esc_md_block, "a\r\nb\rc\xe2\x80\xa9" "d\te\x1b", "a\nb\nc\nd\te\\x1b");
	ck_assert_uint_eq(ot_esc_md_fence("x", 1), 3);
	ck_assert_uint_eq(ot_esc_md_fence("````", 4), 5);
	ck_assert_uint_eq(ot_esc_md_fence("a ``` b", 7), 4);
	ot_buf_free(&b);
}
END_TEST

START_TEST(urls_and_paths)
{
	EXPECT(ot_esc_url_path, "a/b c)[d](https:/e.cpp", "a/b%20c%29%5Bd%5D%28https%3A/e.cpp");
	EXPECT(ot_esc_url_path, "RNN\n\xff.cpp", "RNN%0A%FF.cpp");
	EXPECT(ot_esc_url, "https://h/a b?x=<1>&y=(2)#L3", "https://h/a%20b?x=%3C1%3E&y=%282%29#L3");
	/* an encoded URL stays as it is */
	EXPECT(ot_esc_url, "https://h/a%20b", "https://h/a%20b");
	EXPECT(ot_esc_dot_url, "a?x=1&y=2", "a?x=1&amp;y=2");
}
END_TEST

START_TEST(html_xml_and_graphviz)
{
	EXPECT(ot_esc_html, "<a href=\"x\">'&'</a>", "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
	EXPECT(ot_esc_html, "a\x01" "b\xff" "c\xef\xbf\xbe\n", "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd\n");
	EXPECT(ot_esc_dot_label, "lstm\nRNN\\N\x0b" "a&b\x01", "lstm\\nRNN\\\\N\\na&amp;b\\\\x01");
}
END_TEST

START_TEST(json_strings)
{
	EXPECT(ot_esc_json, "a\"b\\c\n\t\x01\x7f", "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\"");
	EXPECT(ot_esc_json, "\xff" "x\xe2\x80\xa8\xe2\x80\xae\xc2\x85", "\"\xef\xbf\xbdx\\u2028\\u202e\\u0085\"");
	EXPECT(ot_esc_json, "caf\xc3\xa9", "\"caf\xc3\xa9\"");
}
END_TEST

START_TEST(terminal_text)
{
	EXPECT(ot_esc_term, "line 1\n\tline 2", "line 1\n\tline 2");
	EXPECT(ot_esc_term, "\x1b]0;owned\x07\xff\xe2\x80\xae\r", "\\x1b]0;owned\\x07\\xff\\u202e\\x0d");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, display_shows_what_would_hide);
	tcase_add_test(tc, markdown_text_is_literal);
	tcase_add_test(tc, code_spans_hold_anything);
	tcase_add_test(tc, code_blocks_and_fences);
	tcase_add_test(tc, urls_and_paths);
	tcase_add_test(tc, html_xml_and_graphviz);
	tcase_add_test(tc, json_strings);
	tcase_add_test(tc, terminal_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite()) ? 1 : 0;
}
