/*
 * Tests of the Mustache engine: the official spec files (read from the
 * shared spec folder, never copied here), then our own cases for errors,
 * escaping, partials, limits, CRLF and speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mustache.h"
#include "testutil.h"
#include "yamldoc.h"

/* ---- the spec files ---------------------------------------------------------- */

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* MUSTACHE_SPEC_DIR, else ../shared/mustache-spec from the repository root. */
static const char *spec_dir(void)
{
	const char *env = getenv("MUSTACHE_SPEC_DIR");
	const char *fallback = "../shared/mustache-spec";
	if (env && *env && is_dir(env))
		return env;
	if (is_dir(fallback))
		return fallback;
	ck_abort_msg("mustache spec folder not found: looked in $MUSTACHE_SPEC_DIR (%s) and %s "
		     "(relative to the repository root)",
		     env && *env ? env : "unset", fallback);
	return NULL;
}

/* A spec string; plain scalars were typed by the reader, so use their text. */
static const char *spec_text(const ot_value *v, size_t *len)
{
	const char *s = "";
	if (v && v->type == OT_V_STR) {
		*len = v->u.str.len;
		return v->u.str.ptr;
	}
	if (v && v->text)
		s = v->text;
	*len = strlen(s);
	return s;
}

static int spec_partial(ot_buf *out, const char *name, void *payload)
{
	const ot_value *text = ot_v_get(payload, name);
	size_t len;
	const char *s;
	if (!text)
		return OT_ENOTFOUND;
	s = spec_text(text, &len);
	ot_buf_put(out, s, len);
	return 0;
}

static void run_spec_file(const char *file)
{
	ot_arena *arena = ot_arena_new();
	ot_buf path = OT_BUF_INIT, got = OT_BUF_INIT;
	ot_value *doc, *tests;
	size_t len, i, passed = 0, total;
	char *data;

	ot_buf_printf(&path, "%s/%s", spec_dir(), file);
	data = tu_read_file(path.ptr, &len);
	ck_assert_msg(ot_yaml_load(&doc, arena, data, len, path.ptr) == 0, "%s",
		      ot_error_last());
	tests = ot_v_get(doc, "tests");
	ck_assert_msg(tests && tests->type == OT_V_LIST, "%s: no tests list", path.ptr);
	total = ot_v_len(tests);
	ck_assert_msg(total > 0, "%s: empty tests list", path.ptr);
	for (i = 0; i < total; i++) {
		ot_value *test = ot_v_at(tests, i);
		ot_mustache_opts opts = {spec_partial, ot_v_get(test, "partials"), NULL,
					 ot_v_cstr(ot_v_get(test, "name"))};
		const char *tmpl, *expected;
		size_t tlen, elen;
		int rc;

		tmpl = spec_text(ot_v_get(test, "template"), &tlen);
		expected = spec_text(ot_v_get(test, "expected"), &elen);
		ot_buf_clear(&got);
		rc = ot_mustache_render(&got, tmpl, tlen, ot_v_get(test, "data"), &opts);
		if (rc == 0 && got.size == elen && memcmp(got.ptr, expected, elen) == 0) {
			passed++;
			continue;
		}
		fprintf(stderr, "%s: FAIL %s\n  template: %s\n  expected: %s\n  got:      %s\n",
			file, opts.name, tmpl, expected, rc == 0 ? got.ptr : ot_error_last());
	}
	printf("%s: %zu/%zu passed\n", file, passed, total);
	fflush(stdout);
	ck_assert_msg(passed == total, "%s: %zu/%zu passed", file, passed, total);
	free(data);
	ot_buf_free(&path);
	ot_buf_free(&got);
	ot_arena_free(arena);
}

START_TEST(spec_interpolation) { run_spec_file("interpolation.yml"); }
END_TEST
START_TEST(spec_sections) { run_spec_file("sections.yml"); }
END_TEST
START_TEST(spec_inverted) { run_spec_file("inverted.yml"); }
END_TEST
START_TEST(spec_comments) { run_spec_file("comments.yml"); }
END_TEST
START_TEST(spec_partials) { run_spec_file("partials.yml"); }
END_TEST
START_TEST(spec_delimiters) { run_spec_file("delimiters.yml"); }
END_TEST

/* ---- helpers for our own cases ----------------------------------------------------- */

static ot_arena *arena;

static void setup(void)
{
	arena = ot_arena_new();
}

static void teardown(void)
{
	ot_arena_free(arena);
	arena = NULL;
}

static ot_value *yaml(const char *text)
{
	ot_value *v;
	ck_assert_msg(ot_yaml_load(&v, arena, text, strlen(text), "data") == 0, "%s",
		      ot_error_last());
	return v;
}

/* Partials from a YAML map of name -> text; "fail" makes the callback fail. */
static int map_partial(ot_buf *out, const char *name, void *payload)
{
	const char *text = ot_v_cstr(ot_v_get(payload, name));
	if (!strcmp(name, "fail"))
		return ot_error_set("boom");
	if (!text)
		return OT_ENOTFOUND;
	ot_buf_puts(out, text);
	return 0;
}

/* Render and return the output (caller frees); aborts on error. */
static char *render_ok(const char *tmpl, const ot_value *ctx, const ot_value *partials)
{
	ot_buf out = OT_BUF_INIT;
	ot_mustache_opts opts = {map_partial, (void *)partials, NULL, "t"};
	int rc = ot_mustache_render(&out, tmpl, strlen(tmpl), ctx, &opts);
	ck_assert_msg(rc == 0, "render failed: %s", ot_error_last());
	return ot_buf_detach(&out);
}

#define ASSERT_RENDERS(tmpl, ctx, partials, expected)                                  \
	do {                                                                           \
		char *got_ = render_ok(tmpl, ctx, partials);                           \
		ck_assert_str_eq(got_, expected);                                      \
		free(got_);                                                            \
	} while (0)

/* Render expecting an error; the output buffer must be left as it was. */
static void assert_error(const char *tmpl, const ot_value *ctx, const ot_value *partials,
			 const char *message)
{
	ot_buf out = OT_BUF_INIT;
	ot_mustache_opts opts = {map_partial, (void *)partials, NULL, "t"};
	ot_buf_puts(&out, "kept");
	ck_assert_int_eq(ot_mustache_render(&out, tmpl, strlen(tmpl), ctx, &opts), OT_ERROR);
	ck_assert_str_eq(ot_error_last(), message);
	ck_assert_str_eq(out.ptr, "kept");
	ot_buf_free(&out);
}

/* ---- errors ---------------------------------------------------------------------- */

START_TEST(error_messages)
{
	ot_value *ctx = yaml("a: true\nb: [1, 2]\n");

	assert_error("{{#a}}x", ctx, NULL, "t:1:1: unclosed section 'a'");
	assert_error("{{#a}}\n  {{#b}}{{/b}}\n{{^c}}", ctx, NULL, "t:3:1: unclosed section 'c'");
	assert_error("ab\n  {{name", ctx, NULL, "t:2:3: unclosed tag: missing '}}'");
	assert_error("{{{name}}", ctx, NULL, "t:1:1: unclosed tag: missing '}}}'");
	assert_error("x{{", ctx, NULL, "t:1:2: unclosed tag: missing '}}'");
	assert_error("{{#a}}{{/b}}", ctx, NULL, "t:1:7: mismatched end tag 'b': open section is 'a'");
	assert_error("x\n{{/a}}", ctx, NULL, "t:2:1: mismatched end tag 'a': no open section");
	assert_error("{{=<% %> x=}}", ctx, NULL, "t:1:1: bad delimiter change");
	assert_error("{{=<%=}}", ctx, NULL, "t:1:1: bad delimiter change");
	assert_error("{{=<% %>}}", ctx, NULL, "t:1:1: bad delimiter change");
	assert_error("{{=a= b=}}", ctx, NULL, "t:1:1: bad delimiter change");
	assert_error("{{==}}", ctx, NULL, "t:1:1: bad delimiter change");
	assert_error("{{=<% %>=}}\n<% x", ctx, NULL, "t:2:1: unclosed tag: missing '%>'");
	assert_error("{{=<% %>=}}<%={{ }}=%>{{#a}}", ctx, NULL, "t:1:23: unclosed section 'a'");
	assert_error("a {{ }} b", ctx, NULL, "t:1:3: empty tag name");
	assert_error("{{#}}{{/}}", ctx, NULL, "t:1:1: empty tag name");
}
END_TEST

START_TEST(error_in_partial_names_the_partial)
{
	ot_value *partials = yaml("p: \"ok\\n{{#x}}\"\n");
	assert_error("{{>p}}", NULL, partials, "p:2:1: unclosed section 'x'");
	assert_error("ab{{>fail}}", NULL, partials, "t:1:3: partial 'fail': boom");
}
END_TEST

START_TEST(error_defaults_and_compile)
{
	ot_buf out = OT_BUF_INIT;
	static char not_null;
	ot_mustache *t = (ot_mustache *)&not_null;
	ck_assert_int_eq(ot_mustache_render(&out, "{{#a}}", 6, NULL, NULL), OT_ERROR);
	ck_assert_str_eq(ot_error_last(), "template:1:1: unclosed section 'a'");
	ck_assert_int_eq(ot_mustache_compile(&t, "\n {{/a}}", 8, "page.md"), OT_ERROR);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(ot_error_last(), "page.md:2:2: mismatched end tag 'a': no open section");
	ot_mustache_free(NULL);
	ot_buf_free(&out);
}
END_TEST

/* ---- escaping, truthiness, lookups ------------------------------------------------------ */

static void bracket_escape(ot_buf *out, const char *s, size_t len)
{
	ot_buf_putc(out, '[');
	ot_buf_put(out, s, len);
	ot_buf_putc(out, ']');
}

START_TEST(custom_escape)
{
	ot_value *ctx = yaml("s: a<b\nn: 42\nf: 1.5\nempty: ''\n");
	ot_mustache_opts opts = {NULL, NULL, bracket_escape, "t"};
	const char *tmpl = "{{s}} {{{s}}} {{&s}} {{n}} {{f}} ({{empty}}) ({{missing}})";
	ot_buf out = OT_BUF_INIT;
	ck_assert_int_eq(ot_mustache_render(&out, tmpl, strlen(tmpl), ctx, &opts), 0);
	ck_assert_str_eq(out.ptr, "[a<b] a<b a<b [42] [1.5] () ()");
	ot_buf_free(&out);
}
END_TEST

START_TEST(html_escape_default)
{
	ot_value *ctx = yaml("s: \"&<>\\\"' x\"\n");
	ASSERT_RENDERS("{{s}}|{{{s}}}", ctx, NULL, "&amp;&lt;&gt;&quot;&#39; x|&<>\"' x");
}
END_TEST

START_TEST(truthiness)
{
	ot_value *ctx = yaml("empty: ''\nzero: 0\nmap: {}\nlist: []\nnil: null\nno: false\n"
			     "text: hi\n");
	ASSERT_RENDERS("{{#empty}}A{{/empty}}{{^empty}}a{{/empty}}", ctx, NULL, "a");
	ASSERT_RENDERS("{{#zero}}B{{.}}{{/zero}}", ctx, NULL, "B0");
	ASSERT_RENDERS("{{#map}}C{{/map}}", ctx, NULL, "C");
	ASSERT_RENDERS("{{^list}}d{{/list}}{{^nil}}e{{/nil}}{{^no}}f{{/no}}{{^nope}}g{{/nope}}",
		       ctx, NULL, "defg");
	ASSERT_RENDERS("{{#text}}<{{.}}>{{/text}}", ctx, NULL, "<hi>");
}
END_TEST

START_TEST(null_context_and_opts)
{
	ot_buf out = OT_BUF_INIT;
	const char *tmpl = "a{{x}}{{#y}}no{{/y}}{{^y}}b{{/y}}{{>p}}{{.}}";
	ck_assert_int_eq(ot_mustache_render(&out, tmpl, strlen(tmpl), NULL, NULL), 0);
	ck_assert_str_eq(out.ptr, "ab");
	ot_buf_free(&out);
}
END_TEST

START_TEST(dotted_names)
{
	ot_value *ctx = yaml("a: {b: {c: deep}}\nitems: [{a: {x: 1}}, {y: 2}]\nx: top\n");
	ASSERT_RENDERS("{{a.b.c}}|{{a..b}}|{{.a}}|{{a.b.}}|{{a.b.c.d}}", ctx, NULL, "deep||||");
	/* "a" resolves in the item, and then "x" must be inside it. */
	ASSERT_RENDERS("{{#items}}[{{a.x}}]{{/items}}", ctx, NULL, "[1][]");
	ASSERT_RENDERS("{{#a}}{{#b}}{{c}}{{x}}{{/b}}{{/a}}", ctx, NULL, "deeptop");
}
END_TEST

/* ---- partials ------------------------------------------------------------------------- */

START_TEST(missing_partial_renders_empty)
{
	ot_value *partials = yaml("p: P\n");
	ot_buf out = OT_BUF_INIT;
	ASSERT_RENDERS("[{{>nope}}]\n  {{>nope}}\n[{{>p}}]", NULL, partials, "[]\n[P]");
	ck_assert_int_eq(ot_mustache_render(&out, "[{{>p}}]", 8, NULL, NULL), 0);
	ck_assert_str_eq(out.ptr, "[]");
	ot_buf_free(&out);
}
END_TEST

static int counting_partial(ot_buf *out, const char *name, void *payload)
{
	int *calls = payload;
	++*calls;
	ot_buf_printf(out, "<%s>", name);
	return 0;
}

START_TEST(partial_fetched_once_per_render)
{
	ot_value *ctx = yaml("l: [1, 2, 3, 4]\n");
	ot_buf out = OT_BUF_INIT;
	int calls = 0;
	ot_mustache_opts opts = {counting_partial, &calls, NULL, "t"};
	const char *tmpl = "{{#l}}{{>a}}{{>b}}{{/l}}";
	ck_assert_int_eq(ot_mustache_render(&out, tmpl, strlen(tmpl), ctx, &opts), 0);
	ck_assert_str_eq(out.ptr, "<a><b><a><b><a><b><a><b>");
	ck_assert_int_eq(calls, 2);
	ot_buf_free(&out);
}
END_TEST

START_TEST(nested_partial_indentation)
{
	ot_value *partials = yaml("outer: \"o1\\n  {{>inner}}\\no2{{>inline}}\\n\"\n"
				  "inner: \"i1\\ni2\\n\"\n"
				  "inline: \"x\\ny\"\n");
	ot_value *ctx = yaml("v: \"a\\nb\"\n");
	/* Standalone indentation adds up; an inline partial is not indented;
	 * interpolated newlines are not indented. */
	ASSERT_RENDERS(" {{>outer}}\n", ctx, partials, " o1\n   i1\n   i2\n o2x\ny\n");
	ASSERT_RENDERS("  {{>v}}\n", ctx, yaml("v: \"[{{v}}]\\n\"\n"), "  [a\nb]\n");
}
END_TEST

/* `levels` maps nested under key "n", the innermost with n false (so the
 * lookup stops there instead of climbing): {n: {n: {n: false}}} for 2. */
static ot_value *nested_n(int levels)
{
	ot_buf text = OT_BUF_INIT;
	ot_value *v;
	int i;
	for (i = 0; i < levels; i++)
		ot_buf_puts(&text, "{n: ");
	ot_buf_puts(&text, "{n: false}");
	for (i = 0; i < levels; i++)
		ot_buf_putc(&text, '}');
	v = yaml(text.ptr);
	ot_buf_free(&text);
	return v;
}

START_TEST(partial_recursion_limit)
{
	ot_value *partials = yaml("p: \"x{{#n}}{{>p}}{{/n}}\"\nself: \"{{>self}}\"\n");
	ot_buf want = OT_BUF_INIT;
	char *got;
	int i;

	assert_error("a\n{{>self}}", NULL, partials, "self:1:1: partials nested deeper than 64");

	/* With 63 levels of data "p" nests 64 deep (fine); one more level
	 * asks for a 65th. */
	for (i = 0; i < 64; i++)
		ot_buf_putc(&want, 'x');
	got = render_ok("{{>p}}", nested_n(63), partials);
	ck_assert_str_eq(got, want.ptr);
	free(got);
	assert_error("{{>p}}", nested_n(64), partials, "p:1:8: partials nested deeper than 64");
	ot_buf_free(&want);
}
END_TEST

/* ---- limits ---------------------------------------------------------------------------- */

START_TEST(deep_nesting_rejected)
{
	ot_buf tmpl = OT_BUF_INIT, msg = OT_BUF_INIT;
	ot_value *ctx = yaml("a: true\n");
	char *got;
	int i;

	for (i = 0; i < OT_MUSTACHE_MAX_SECTIONS; i++)
		ot_buf_puts(&tmpl, "{{#a}}");
	ot_buf_puts(&tmpl, "x");
	for (i = 0; i < OT_MUSTACHE_MAX_SECTIONS; i++)
		ot_buf_puts(&tmpl, "{{/a}}");
	got = render_ok(tmpl.ptr, ctx, NULL);
	ck_assert_str_eq(got, "x");
	free(got);

	ot_buf_clear(&tmpl);
	for (i = 0; i <= OT_MUSTACHE_MAX_SECTIONS; i++)
		ot_buf_puts(&tmpl, "{{^a}}");
	ot_buf_printf(&msg, "t:1:%d: sections nested deeper than %d",
		      6 * OT_MUSTACHE_MAX_SECTIONS + 1, OT_MUSTACHE_MAX_SECTIONS);
	assert_error(tmpl.ptr, ctx, NULL, msg.ptr);

	/* A hostile template: a million open tags fails fast, no crash. */
	ot_buf_clear(&tmpl);
	for (i = 0; i < 1000000; i++)
		ot_buf_puts(&tmpl, "{{#a}}");
	assert_error(tmpl.ptr, ctx, NULL, msg.ptr);
	ot_buf_free(&tmpl);
	ot_buf_free(&msg);
}
END_TEST

START_TEST(sections_and_partials_nesting_capped)
{
	/* Ten levels per partial call: the combined cap (512) trips before
	 * the partial cap (64). */
	ot_value *partials = yaml("p: \"{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}"
				  "{{>p}}{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}\"\n");
	ot_buf msg = OT_BUF_INIT;
	ot_buf_printf(&msg, "p:1:%d: sections and partials nested deeper than %d", 1 + 6,
		      OT_MUSTACHE_MAX_NESTING);
	assert_error("{{>p}}", yaml("a: [1]\n"), partials, msg.ptr);
	ot_buf_free(&msg);
}
END_TEST

/* Random tag soup must either render or fail with a positioned message. */
START_TEST(random_templates_do_not_crash)
{
	static const char *const parts[] = {
		"{{", "}}", "{{{", "}}}", "{{#a}}", "{{/a}}", "{{^l}}", "{{/l}}", "{{#l}}",
		"{{>p}}", "{{>q}}", "{{!c}}", "{{=<% %>=}}", "<%={{ }}=%>", "<%", "%>", "{{a.b}}",
		"{{.}}", "\n", "\r\n", "  ", "x", "=", "{{&a}}", "{{/", "{{#", "\t",
	};
	ot_value *ctx = yaml("a: {b: 1}\nl: [1, {a: 2}, [3]]\n");
	ot_value *partials = yaml("p: \"  {{#l}}\\n{{>q}}\\n{{/l}}\\n\"\nq: \"{{>p}}{{a.b}}\"\n");
	ot_buf tmpl = OT_BUF_INIT, out = OT_BUF_INIT;
	ot_mustache_opts opts = {map_partial, partials, NULL, "t"};
	unsigned seed = 12345;
	int i, j, ok = 0, failed = 0;

	for (i = 0; i < 20000; i++) {
		ot_buf_clear(&tmpl);
		ot_buf_clear(&out);
		for (j = 0; j < 12; j++) {
			seed = seed * 1103515245u + 12345u;
			ot_buf_puts(&tmpl, parts[(seed >> 16) % OT_ARRAY_LEN(parts)]);
		}
		if (ot_mustache_render(&out, tmpl.ptr, tmpl.size, ctx, &opts) == 0) {
			ok++;
		} else {
			ck_assert_msg(strncmp(ot_error_last(), "t:", 2) == 0 ||
					      strncmp(ot_error_last(), "p:", 2) == 0 ||
					      strncmp(ot_error_last(), "q:", 2) == 0,
				      "unpositioned error: %s", ot_error_last());
			ck_assert_uint_eq(out.size, 0);
			failed++;
		}
	}
	ck_assert_int_gt(ok, 500);
	ck_assert_int_gt(failed, 1000);
	ot_buf_free(&tmpl);
	ot_buf_free(&out);
}
END_TEST

/* ---- line endings -------------------------------------------------------------------- */

START_TEST(crlf_templates)
{
	ot_value *ctx = yaml("a: true\nl: [1, 2]\n");
	ot_value *partials = yaml("p: \"p1\\r\\np2\\r\\n\"\n");
	ASSERT_RENDERS("{{#a}}\r\nx\r\n{{/a}}\r\ny\r\n", ctx, NULL, "x\r\ny\r\n");
	ASSERT_RENDERS("  {{! note }}  \r\n{{#l}}\r\n- {{.}}\r\n{{/l}}\r\n", ctx, NULL,
		       "- 1\r\n- 2\r\n");
	ASSERT_RENDERS("{{^a}}\r\nno\r\n{{/a}}\r\n{{=| |=}}\r\n|a|\r\n", ctx, NULL, "true\r\n");
	ASSERT_RENDERS("top\r\n  {{>p}}\r\nend", ctx, partials, "top\r\n  p1\r\n  p2\r\nend");
	/* A lone '\r' does not end a line. */
	ASSERT_RENDERS("{{#a}}\rx{{/a}}", ctx, NULL, "\rx");
}
END_TEST

/* ---- speed and the compiled API ------------------------------------------------------ */

START_TEST(large_list_renders_fast)
{
	enum { ITEMS = 100000 };
	ot_value *ctx = ot_v_map(arena), *list = ot_v_set(arena, ctx, "rows", ot_v_list(arena));
	ot_value *partials = yaml("cell: \"<td>{{name}}</td>\"\n");
	ot_buf tmpl = OT_BUF_INIT, out = OT_BUF_INIT;
	ot_mustache_opts opts = {map_partial, partials, NULL, "big"};
	double start, secs;
	int i;

	ot_v_set_str(arena, ctx, "title", "T & C");
	for (i = 0; i < ITEMS; i++) {
		ot_value *row = ot_v_push(arena, list, ot_v_map(arena));
		ot_v_set_int(arena, row, "id", i);
		ot_v_set(arena, row, "name", ot_v_strf(arena, "op<%d>", i));
		ot_v_set_bool(arena, row, "odd", i % 2);
	}
	/* A large template: 2000 lines of prose around the loop. */
	for (i = 0; i < 1000; i++)
		ot_buf_printf(&tmpl, "line %d of {{title}} prose\n", i);
	ot_buf_puts(&tmpl, "<table>\n{{#rows}}\n  <tr id=\"{{id}}\">{{>cell}}{{#odd}}<b/>{{/odd}}"
			   "{{^odd}}<i/>{{/odd}}{{title}}</tr>\n{{/rows}}\n</table>\n");
	for (i = 0; i < 1000; i++)
		ot_buf_printf(&tmpl, "{{! comment %d }}tail {{missing.name}}\n", i);

	start = ot_clock();
	ck_assert_int_eq(ot_mustache_render(&out, tmpl.ptr, tmpl.size, ctx, &opts), 0);
	secs = ot_clock() - start;
	printf("large_list_renders_fast: %d rows, %zu bytes out in %.3f s\n", ITEMS, out.size,
	       secs);
	ck_assert_ptr_nonnull(strstr(out.ptr, "  <tr id=\"99999\"><td>op&lt;99999&gt;</td><b/>"
					      "T &amp; C</tr>\n</table>\n"));
	ck_assert_ptr_nonnull(strstr(out.ptr, "<tr id=\"0\"><td>op&lt;0&gt;</td><i/>"));
	ck_assert_msg(secs < 0.5, "rendering took %.3f s", secs);
	ot_buf_free(&tmpl);
	ot_buf_free(&out);
}
END_TEST

START_TEST(compiled_matches_render)
{
	ot_value *ctx = yaml("name: Ada\nl: [x, y]\n");
	ot_value *partials = yaml("p: \"<{{.}}>\"\n");
	ot_mustache_opts opts = {map_partial, partials, NULL, "ignored"};
	const char *text = "Hi {{name}}!\n{{#l}}\n  {{>p}}\n{{/l}}\n{{=[ ]=}}[name]";
	ot_buf a = OT_BUF_INIT, b = OT_BUF_INIT;
	ot_mustache *t;
	char *copy = ot_strdup(text);
	int i;

	ck_assert_int_eq(ot_mustache_compile(&t, copy, strlen(copy), "c"), 0);
	memset(copy, '#', strlen(copy)); /* the compiled template owns its text */
	free(copy);
	ck_assert_int_eq(ot_mustache_render(&a, text, strlen(text), ctx, &opts), 0);
	ck_assert_str_eq(a.ptr, "Hi Ada!\n  <x>  <y>Ada");
	for (i = 0; i < 1000; i++) {
		ot_buf_clear(&b);
		ck_assert_int_eq(ot_mustache_render_compiled(&b, t, ctx, &opts), 0);
	}
	ck_assert_str_eq(b.ptr, a.ptr);
	/* Render errors name the compiled template. */
	ot_mustache_free(t);
	ck_assert_int_eq(ot_mustache_compile(&t, "\n{{>self}}", 10, "c"), 0);
	ck_assert_int_eq(ot_mustache_render_compiled(&b, t, ctx, NULL), 0);
	opts.payload = yaml("self: \"{{>self}}\"\n");
	ck_assert_int_eq(ot_mustache_render_compiled(&b, t, ctx, &opts), OT_ERROR);
	ck_assert_str_eq(ot_error_last(), "self:1:1: partials nested deeper than 64");
	ot_mustache_free(t);
	ot_buf_free(&a);
	ot_buf_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mustache");
	TCase *spec = tcase_create("spec");
	TCase *own = tcase_create("own");

	tcase_add_test(spec, spec_interpolation);
	tcase_add_test(spec, spec_sections);
	tcase_add_test(spec, spec_inverted);
	tcase_add_test(spec, spec_comments);
	tcase_add_test(spec, spec_partials);
	tcase_add_test(spec, spec_delimiters);
	suite_add_tcase(s, spec);

	tcase_add_checked_fixture(own, setup, teardown);
	tcase_set_timeout(own, 30);
	tcase_add_test(own, error_messages);
	tcase_add_test(own, error_in_partial_names_the_partial);
	tcase_add_test(own, error_defaults_and_compile);
	tcase_add_test(own, custom_escape);
	tcase_add_test(own, html_escape_default);
	tcase_add_test(own, truthiness);
	tcase_add_test(own, null_context_and_opts);
	tcase_add_test(own, dotted_names);
	tcase_add_test(own, missing_partial_renders_empty);
	tcase_add_test(own, partial_fetched_once_per_render);
	tcase_add_test(own, nested_partial_indentation);
	tcase_add_test(own, partial_recursion_limit);
	tcase_add_test(own, deep_nesting_rejected);
	tcase_add_test(own, sections_and_partials_nesting_capped);
	tcase_add_test(own, random_templates_do_not_crash);
	tcase_add_test(own, crlf_templates);
	tcase_add_test(own, large_list_renders_fast);
	tcase_add_test(own, compiled_matches_render);
	suite_add_tcase(s, own);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
