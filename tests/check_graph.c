/* Check suite for gen/graph.c: DOT and SVG output of the call-chain diagram. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph.h"
#include "testutil.h"

/*
 * Graphviz's pango text layout leaves fontconfig/pango caches allocated for
 * the life of the process (the same ~15 KB after 1 or 1000 graphs, checked
 * with valgrind). Tell LeakSanitizer (make asan) so it reports only ours.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\nleak:libpango-1.0.so\nleak:libpangoft2-1.0.so\n"
	       "leak:libpangocairo-1.0.so\nleak:libgvplugin_pango.so\n";
}

/* When set, main() renders sample_graph() to this file and exits. */
#define DUMP_ENV "OT_CHECK_GRAPH_DUMP"

static const ot_graph_node sample_nodes[] = {
	{"py", "torch.add\nPython API", "python", "../ops/add.md#python", false, false, 0},
	{"bridge", "THPVariable_add\ntorch/csrc/autograd/generated/python_torch_functions.cpp:42",
	 "bridge", NULL, false, false, 0},
	{"yaml", "add.Tensor\nnative_functions.yaml:500", "yaml", "native_functions.html#add", false, false, 0},
	{"cpp", "at::native::add\naten/src/ATen/native/BinaryOps.cpp:80", "cpp", NULL, false, false, 0},
	{"stub", "add_stub", "stub", NULL, false, false, 0},
	{"kernel", "add_kernel\naten/src/ATen/native/cpu/BinaryOpsKernel.cpp:30", "kernel", NULL,
	 false, false, 0},
	{"cuda", "add_kernel_cuda", "cuda", NULL, true, false, 0},
	{"bwd", "add backward\nderivatives.yaml:300", "backward", NULL, false, false, 0},
};

static const ot_graph_edge sample_edges[] = {
	{"py", "bridge", NULL, false, OT_GRAPH_CALL},   {"bridge", "yaml", "dispatch", false, OT_GRAPH_CALL},
	{"yaml", "cpp", "CPU", false, OT_GRAPH_CALL},   {"cpp", "stub", NULL, false, OT_GRAPH_CALL},
	{"stub", "kernel", "CPU", false, OT_GRAPH_CALL}, {"stub", "cuda", "CUDA", false, OT_GRAPH_CALL},
	{"yaml", "bwd", "backward", true, OT_GRAPH_CALL},
};

static ot_graph sample_graph(void)
{
	ot_graph g = {"torch.add", sample_nodes, OT_ARRAY_LEN(sample_nodes), sample_edges,
		      OT_ARRAY_LEN(sample_edges)};
	return g;
}

/*
 * A call tree far wider than OT_GRAPH_MAX_WIDTH as dot would draw it: a
 * main path of three nodes, then WIDE_FAN children with long labels (each
 * with a child of its own), a dashed side edge with a condition, a folded
 * node, an edge back up (a cycle) and a loop.
 */
#define WIDE_FAN 24
#define WIDE_NODES (3 + 2 * WIDE_FAN + 1)
#define WIDE_EDGES (2 + 2 * WIDE_FAN + 3)

static ot_graph_node wide_nodes[WIDE_NODES];
static ot_graph_edge wide_edges[WIDE_EDGES];
static char wide_text[WIDE_NODES][2][64];

static ot_graph wide_graph(void)
{
	size_t n = 0, e = 0;
	static const char *const spine[] = {"python", "yaml", "cpp"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(wide_text[n][0], sizeof(wide_text[n][0]), "%s", spine[i]);
		snprintf(wide_text[n][1], sizeof(wide_text[n][1]), "%s\nat::native::spine_%zu\nX.cpp:%zu",
			 spine[i], i, i + 1);
		wide_nodes[n] = (ot_graph_node){wide_text[n][0], wide_text[n][1], spine[i], NULL,
						false, true, 0};
		if (i)
			wide_edges[e++] = (ot_graph_edge){spine[i - 1], spine[i], NULL, false, OT_GRAPH_MAIN};
		n++;
	}
	for (size_t i = 0; i < WIDE_FAN; i++) {
		size_t c = n;
		snprintf(wide_text[n][0], sizeof(wide_text[n][0]), "c%zu", i);
		snprintf(wide_text[n][1], sizeof(wide_text[n][1]),
			 "cpp\nat::native::a_rather_long_helper_%zu\nsparse/Helpers.cpp:%zu", i, 10 + i);
		wide_nodes[n] = (ot_graph_node){wide_text[n][0], wide_text[n][1], "cpp", NULL, false,
						false, 0};
		wide_edges[e++] = (ot_graph_edge){"cpp", wide_text[n][0], NULL, false, OT_GRAPH_CALL};
		n++;
		snprintf(wide_text[n][0], sizeof(wide_text[n][0]), "k%zu", i);
		snprintf(wide_text[n][1], sizeof(wide_text[n][1]), "kernel\nhelper_kernel_%zu\ncpu/K.cpp:%zu",
			 i, 20 + i);
		wide_nodes[n] = (ot_graph_node){wide_text[n][0], wide_text[n][1], "kernel", NULL, false,
						false, 0};
		wide_edges[e++] = (ot_graph_edge){wide_text[c][0], wide_text[n][0], NULL, false,
						  OT_GRAPH_CALL};
		n++;
	}
	wide_nodes[n] = (ot_graph_node){"more", "sparse", NULL, NULL, false, false, 12};
	wide_edges[e++] = (ot_graph_edge){"yaml", "more", "layout == kSparse", false, OT_GRAPH_SIDE};
	wide_edges[e++] = (ot_graph_edge){"k3", "yaml", "recursion", false, OT_GRAPH_CALL};
	wide_edges[e++] = (ot_graph_edge){"k5", "k5", NULL, false, OT_GRAPH_CALL};
	n++;
	/* (no ck_assert: the dump runs outside a test) */
	return (ot_graph){"wide", wide_nodes, n == WIDE_NODES ? n : 0, wide_edges,
			  e == WIDE_EDGES ? e : 0};
}

/* The sample graph's DOT and SVG, then the wide graph's. */
static int render_both(ot_buf *out)
{
	ot_graph g[2];
	ot_buf dot = OT_BUF_INIT, svg = OT_BUF_INIT;
	int rc = 0;
	g[0] = sample_graph();
	g[1] = wide_graph();
	for (size_t i = 0; i < 2 && rc == 0; i++) {
		rc = ot_graph_render(&dot, &svg, &g[i]);
		ot_buf_put(out, dot.ptr, dot.size);
		ot_buf_put(out, svg.ptr, svg.size);
	}
	ot_buf_free(&dot);
	ot_buf_free(&svg);
	return rc;
}

static void render_ok(ot_buf *dot, ot_buf *svg, const ot_graph *g)
{
	int rc = ot_graph_render(dot, svg, g);
	ck_assert_msg(rc == 0, "render failed: %s", ot_error_last());
}

/* Decode the five XML entities and numeric references Graphviz emits. */
static char *xml_unescape(const char *s, size_t len)
{
	ot_buf b = OT_BUF_INIT;
	size_t i = 0;
	while (i < len) {
		if (s[i] != '&') {
			ot_buf_putc(&b, s[i++]);
			continue;
		}
		if (!strncmp(s + i, "&amp;", 5)) {
			ot_buf_putc(&b, '&');
			i += 5;
		} else if (!strncmp(s + i, "&lt;", 4)) {
			ot_buf_putc(&b, '<');
			i += 4;
		} else if (!strncmp(s + i, "&gt;", 4)) {
			ot_buf_putc(&b, '>');
			i += 4;
		} else if (!strncmp(s + i, "&quot;", 6)) {
			ot_buf_putc(&b, '"');
			i += 6;
		} else if (!strncmp(s + i, "&apos;", 6)) {
			ot_buf_putc(&b, '\'');
			i += 6;
		} else if (s[i + 1] == '#') {
			char *end;
			long c = strtol(s + i + 2, &end, 10);
			ck_assert_msg(*end == ';' && c > 0 && c < 128, "unexpected reference in %.*s",
				      (int)len, s);
			ot_buf_putc(&b, (char)c);
			i = (size_t)(end + 1 - s);
		} else {
			ck_abort_msg("bare '&' in SVG text: %.*s", (int)len, s);
		}
	}
	return ot_buf_detach(&b);
}

/* The decoded contents of every <text> element, one per line. */
static char *svg_texts(const char *svg)
{
	ot_buf b = OT_BUF_INIT;
	const char *p = svg;
	while ((p = strstr(p, "<text "))) {
		const char *start = strchr(p, '>'), *end;
		char *t;
		ck_assert_ptr_nonnull(start);
		start++;
		end = strstr(start, "</text>");
		ck_assert_ptr_nonnull(end);
		t = xml_unescape(start, (size_t)(end - start));
		ot_buf_puts(&b, t);
		ot_buf_putc(&b, '\n');
		free(t);
		p = end;
	}
	return ot_buf_detach(&b);
}

/* The SVG <g> element of the node whose <title> is `id` (caller frees). */
static char *svg_node(const char *svg, const char *id)
{
	ot_buf title = OT_BUF_INIT;
	const char *t, *start, *end;
	char *res;
	ot_buf_printf(&title, "<title>%s</title>", id);
	t = strstr(svg, title.ptr);
	ck_assert_msg(t != NULL, "no node %s in SVG", id);
	start = t;
	while (start > svg && strncmp(start, "<g id=", 6))
		start--;
	end = strstr(t, "<!--");
	if (!end)
		end = t + strlen(t);
	res = ot_strndup(start, (size_t)(end - start));
	ot_buf_free(&title);
	return res;
}

/* Whether the SVG element of node (or edge) `id` contains `needle`. */
static bool node_has(const char *svg, const char *id, const char *needle)
{
	char *node = svg_node(svg, id);
	bool found = strstr(node, needle) != NULL;
	free(node);
	return found;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	const char *p = hay;
	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/* Both occur in `hay`, `a` first. */
static bool before(const char *hay, const char *a, const char *b)
{
	const char *pa = strstr(hay, a), *pb = strstr(hay, b);
	return pa && pb && pa < pb;
}

START_TEST(renders_dot_and_svg)
{
	ot_graph g = sample_graph();
	ot_buf dot = OT_BUF_INIT, svg = OT_BUF_INIT;
	char *texts;
	render_ok(&dot, &svg, &g);

	ck_assert(ot_starts_with(dot.ptr, "digraph "));
	ck_assert_ptr_nonnull(strstr(dot.ptr, "rankdir=TB"));
	ck_assert_ptr_nonnull(strstr(dot.ptr, "py -> bridge"));
	ck_assert_ptr_nonnull(strstr(dot.ptr, "stub -> cuda"));
	ck_assert_uint_eq(count(dot.ptr, " -> "), OT_ARRAY_LEN(sample_edges));
	/* canonical description: no layout coordinates */
	ck_assert_ptr_null(strstr(dot.ptr, "pos="));
	ck_assert_ptr_null(strstr(dot.ptr, "bb="));

	ck_assert_ptr_nonnull(strstr(svg.ptr, "<svg "));
	ck_assert(ot_ends_with(svg.ptr, "</svg>\n"));
	ck_assert_uint_eq(count(svg.ptr, "class=\"node\""), OT_ARRAY_LEN(sample_nodes));
	ck_assert_uint_eq(count(svg.ptr, "class=\"edge\""), OT_ARRAY_LEN(sample_edges));
	texts = svg_texts(svg.ptr);
	ck_assert_ptr_nonnull(strstr(texts, "torch.add\nPython API\n"));
	ck_assert_ptr_nonnull(strstr(texts, "\ndispatch\n"));
	free(texts);
	ot_buf_free(&dot);
	ot_buf_free(&svg);
}
END_TEST

START_TEST(svg_has_no_version_text)
{
	ot_graph g = sample_graph();
	ot_buf svg = OT_BUF_INIT;
	render_ok(NULL, &svg, &g);
	ck_assert_ptr_null(strstr(svg.ptr, "Generated by"));
	ck_assert_ptr_null(strstr(svg.ptr, "graphviz version"));
	ck_assert_ptr_null(strstr(svg.ptr, "2.43"));
	ck_assert_ptr_nonnull(strstr(svg.ptr, "<!DOCTYPE svg"));
	ot_buf_free(&svg);
}
END_TEST

START_TEST(every_text_uses_the_fixed_font)
{
	ot_graph g = sample_graph();
	ot_buf svg = OT_BUF_INIT;
	render_ok(NULL, &svg, &g);
	ck_assert_uint_gt(count(svg.ptr, "<text "), 10);
	ck_assert_uint_eq(count(svg.ptr, "font-family=\"" OT_GRAPH_FONT "\""),
			  count(svg.ptr, "<text "));
	ck_assert_ptr_null(strstr(svg.ptr, "Times"));
	ot_buf_free(&svg);
}
END_TEST

START_TEST(renders_are_identical)
{
	ot_graph g = sample_graph();
	ot_buf dot1 = OT_BUF_INIT, svg1 = OT_BUF_INIT, dot2 = OT_BUF_INIT, svg2 = OT_BUF_INIT;
	render_ok(&dot1, &svg1, &g);
	render_ok(&dot2, &svg2, &g);
	ck_assert(ot_buf_equal(&dot1, &dot2));
	ck_assert(ot_buf_equal(&svg1, &svg2));
	ot_buf_free(&dot1);
	ot_buf_free(&svg1);
	ot_buf_free(&dot2);
	ot_buf_free(&svg2);
}
END_TEST

/* Fresh processes (new address layout, cold font caches) give the same bytes. */
START_TEST(renders_are_identical_across_processes)
{
	ot_buf all = OT_BUF_INIT, path = OT_BUF_INIT;
	char *dir = tu_tmpdir("graph-procs"), *exe = realpath("/proc/self/exe", NULL);
	int i;
	ck_assert_ptr_nonnull(exe);
	ck_assert_int_eq(render_both(&all), 0);
	for (i = 0; i < 2; i++) {
		ot_buf cmd = OT_BUF_INIT;
		char *got;
		size_t len;
		const char *argv[] = {"sh", "-c", NULL, NULL};
		ot_buf_clear(&path);
		ot_buf_printf(&path, "%s/run%d", dir, i);
		ot_buf_printf(&cmd, "%s=%s exec %s", DUMP_ENV, path.ptr, exe);
		argv[2] = cmd.ptr;
		ck_assert_int_eq(tu_run(argv, NULL, NULL), 0);
		got = tu_read_file(path.ptr, &len);
		ck_assert_uint_eq(len, all.size);
		ck_assert(!memcmp(got, all.ptr, all.size));
		free(got);
		ot_buf_free(&cmd);
	}
	free(exe);
	free(dir);
	ot_buf_free(&path);
	ot_buf_free(&all);
}
END_TEST

START_TEST(labels_render_literally)
{
	static const char *const labels[] = {
	    "quote \" inside",   "back\\slash and \\\\ double", "<b>not html</b>",
	    "{record|fields}",   "&amp; &lt; & entity",        "\\N \\G \\E \\T \\H \\L",
	    "\\n \\l \\r kept",  "trailing\\",                 "dash -- x->y",
	};
	ot_graph_node nodes[OT_ARRAY_LEN(labels)];
	ot_graph g = {NULL, nodes, OT_ARRAY_LEN(labels), NULL, 0};
	ot_buf svg = OT_BUF_INIT, expect = OT_BUF_INIT;
	char ids[OT_ARRAY_LEN(labels)][8];
	char *texts;
	size_t i;
	for (i = 0; i < OT_ARRAY_LEN(labels); i++) {
		snprintf(ids[i], sizeof(ids[i]), "n%zu", i);
		nodes[i] = (ot_graph_node){ids[i], labels[i], "cpp", NULL, false, false, 0};
		ot_buf_printf(&expect, "%s\n", labels[i]);
	}
	render_ok(NULL, &svg, &g);
	texts = svg_texts(svg.ptr);
	ck_assert_str_eq(texts, expect.ptr);
	free(texts);
	ot_buf_free(&svg);
	ot_buf_free(&expect);
}
END_TEST

START_TEST(newline_separates_lines)
{
	ot_graph_node nodes[] = {{"a", "one\ntwo\nthree", NULL, NULL, false, false, 0}};
	ot_graph_edge edges[] = {{"a", "a", "edge\nlabel", false, OT_GRAPH_CALL}};
	ot_graph g = {"title\nsecond", nodes, 1, edges, 1};
	ot_buf svg = OT_BUF_INIT, dot = OT_BUF_INIT;
	char *texts;
	render_ok(&dot, &svg, &g);
	texts = svg_texts(svg.ptr);
	ck_assert_str_eq(texts, "title\nsecond\none\ntwo\nthree\nedge\nlabel\n");
	/* DOT carries the line break as the escape sequence, not a raw newline */
	ck_assert_ptr_nonnull(strstr(dot.ptr, "label=\"one\\ntwo\\nthree\""));
	free(texts);
	ot_buf_free(&svg);
	ot_buf_free(&dot);
}
END_TEST

START_TEST(dot_text_escapes_labels)
{
	ot_graph_node nodes[] = {{"a b\"c", "say \"hi\" \\ & <x>", NULL, NULL, false, false, 0}};
	ot_graph g = {NULL, nodes, 1, NULL, 0};
	ot_buf dot = OT_BUF_INIT;
	render_ok(&dot, NULL, &g);
	ck_assert_ptr_nonnull(strstr(dot.ptr, "\"a b\\\"c\""));
	ck_assert_ptr_nonnull(strstr(dot.ptr, "label=\"say \\\"hi\\\" \\\\ &amp; <x>\""));
	ot_buf_free(&dot);
}
END_TEST

START_TEST(groups_pick_distinct_pastel_fills)
{
	static const char *const groups[] = {"python", "bridge", "yaml", "cpp", "meta",
					     "stub", "kernel", "cuda", "backward",
					     "decomposition"};
	ot_graph_node nodes[OT_ARRAY_LEN(groups) + 2];
	ot_graph g = {NULL, nodes, OT_ARRAY_LEN(nodes), NULL, 0};
	char fills[OT_ARRAY_LEN(nodes)][16];
	ot_buf svg = OT_BUF_INIT;
	size_t i, j;
	for (i = 0; i < OT_ARRAY_LEN(groups); i++)
		nodes[i] = (ot_graph_node){groups[i], groups[i], groups[i], NULL, false, false, 0};
	nodes[i++] = (ot_graph_node){"nogroup", "x", NULL, NULL, false, false, 0};
	nodes[i++] = (ot_graph_node){"unknown", "x", "no-such-group", NULL, false, false, 0};
	render_ok(NULL, &svg, &g);
	for (i = 0; i < OT_ARRAY_LEN(nodes); i++) {
		char *node = svg_node(svg.ptr, nodes[i].id), *f = strstr(node, "fill=\"#");
		unsigned r, gr, b;
		ck_assert_msg(f != NULL, "node %s has no fill", nodes[i].id);
		ck_assert(sscanf(f, "fill=\"#%2x%2x%2x\"", &r, &gr, &b) == 3);
		/* pastel: every channel light, so dark text stays readable */
		ck_assert_msg(r >= 0xc0 && gr >= 0xc0 && b >= 0xc0, "%s is too dark", nodes[i].id);
		snprintf(fills[i], sizeof(fills[i]), "%.7s", f + 6);
		free(node);
	}
	for (i = 0; i < OT_ARRAY_LEN(groups); i++)
		for (j = i + 1; j < OT_ARRAY_LEN(nodes); j++)
			ck_assert_msg(strcmp(fills[i], fills[j]), "%s and %s share %s",
				      nodes[i].id, nodes[j].id, fills[i]);
	/* no group and an unknown group share the default */
	ck_assert_str_eq(fills[OT_ARRAY_LEN(groups)], fills[OT_ARRAY_LEN(groups) + 1]);
	ot_buf_free(&svg);
}
END_TEST

START_TEST(missing_nodes_and_dashed_edges)
{
	ot_graph_node nodes[] = {{"a", "present", "cpp", NULL, false, false, 0},
				 {"b", "not found", "cpp", NULL, true, false, 0}};
	ot_graph_edge edges[] = {{"a", "b", NULL, true, OT_GRAPH_CALL}, {"b", "a", NULL, false, OT_GRAPH_CALL}};
	ot_graph g = {NULL, nodes, 2, edges, 2};
	ot_buf svg = OT_BUF_INIT;
	render_ok(NULL, &svg, &g);
	ck_assert(!node_has(svg.ptr, "a", "stroke-dasharray"));
	ck_assert(node_has(svg.ptr, "b", "stroke-dasharray"));
	ck_assert(node_has(svg.ptr, "a&#45;&gt;b", "stroke-dasharray"));
	ck_assert(!node_has(svg.ptr, "b&#45;&gt;a", "stroke-dasharray"));
	ot_buf_free(&svg);
}
END_TEST

START_TEST(urls_become_relative_links)
{
	ot_graph_node nodes[] = {
	    {"a", "A", NULL, "../ops/add.md#kernel", false, false, 0},
	    {"b", "B", NULL, "https://example.org/x?a=1&b=2", false, false, 0},
	    {"c", "C", NULL, NULL, false, false, 0},
	    {"d", "D\nsecond", NULL, "dir with space/\\N.html", false, false, 0},
	};
	ot_graph g = {NULL, nodes, 4, NULL, 0};
	ot_buf svg = OT_BUF_INIT;
	render_ok(NULL, &svg, &g);
	ck_assert(node_has(svg.ptr, "a", "xlink:href=\"../ops/add.md#kernel\""));
	ck_assert(node_has(svg.ptr, "b", "xlink:href=\"https://example.org/x?a=1&amp;b=2\""));
	ck_assert(!node_has(svg.ptr, "c", "xlink:href"));
	/* nothing Graphviz would substitute or a browser would split */
	ck_assert(node_has(svg.ptr, "d", "xlink:href=\"dir%20with%20space/%5CN.html\""));
	/* the tooltip is the label, line break included */
	ck_assert(node_has(svg.ptr, "d", "xlink:title=\"D&#10;second\""));
	ot_buf_free(&svg);
}
END_TEST

/*
 * An XML parser (python3's) accepts the SVG of hostile labels and URLs and
 * reads back exactly the link targets and tooltips we gave. (A backslash
 * before one of G N E H T L cannot be kept in a tooltip: Graphviz 2.43
 * substitutes it after unescaping.)
 */
START_TEST(svg_is_well_formed_xml)
{
	ot_graph_node nodes[] = {
	    {"a&b", "x & y < z \"q\" 'a' -- ]]> \\x\nline 2", "cpp", "a.html?x=1&y=<2>&amp;", false, false, 0},
	    {"c", "plain", NULL, "https://example.org/'quote'", false, false, 0},
	};
	ot_graph_edge edges[] = {{"a&b", "c", "e & <f>", true, OT_GRAPH_CALL}};
	ot_graph g = {"T & <t>", nodes, 2, edges, 1};
	ot_buf svg = OT_BUF_INIT, out = OT_BUF_INIT, err = OT_BUF_INIT, path = OT_BUF_INIT;
	char *dir = tu_tmpdir("graph-xml");
	const char *argv[] = {
	    "python3", "-c",
	    "import sys, xml.etree.ElementTree as E\n"
	    "X = '{http://www.w3.org/1999/xlink}'\n"
	    "for a in E.parse(sys.argv[1]).iter('{http://www.w3.org/2000/svg}a'):\n"
	    "    print(a.get(X + 'href'), a.get(X + 'title'), sep='|')\n",
	    NULL, NULL};
	render_ok(NULL, &svg, &g);
	ot_buf_printf(&path, "%s/g.svg", dir);
	tu_write_file(path.ptr, svg.ptr, svg.size);
	argv[3] = path.ptr;
	ck_assert_msg(tu_run(argv, &out, &err) == 0, "not XML: %s", err.ptr);
	ck_assert_str_eq(out.ptr, "a.html?x=1&y=%3C2%3E&amp;|x & y < z \"q\" 'a' -- ]]> \\x\nline 2\n"
				  "https://example.org/'quote'|plain\n");
	free(dir);
	ot_buf_free(&svg);
	ot_buf_free(&out);
	ot_buf_free(&err);
	ot_buf_free(&path);
}
END_TEST

START_TEST(nodes_keep_the_given_order)
{
	ot_graph_node nodes[] = {{"zeta", "z", NULL, NULL, false, false, 0},
				 {"alpha", "a", NULL, NULL, false, false, 0},
				 {"mid", "m", NULL, NULL, false, false, 0}};
	ot_graph g = {NULL, nodes, 3, NULL, 0};
	ot_buf svg = OT_BUF_INIT, dot = OT_BUF_INIT;
	render_ok(&dot, &svg, &g);
	ck_assert(before(svg.ptr, "<title>zeta</title>", "<title>alpha</title>"));
	ck_assert(before(svg.ptr, "<title>alpha</title>", "<title>mid</title>"));
	ck_assert(before(dot.ptr, "zeta\t", "alpha\t"));
	ck_assert(before(dot.ptr, "alpha\t", "mid\t"));
	ot_buf_free(&svg);
	ot_buf_free(&dot);
}
END_TEST

START_TEST(outputs_are_replaced_not_appended)
{
	ot_graph g = sample_graph();
	ot_buf dot = OT_BUF_INIT, svg = OT_BUF_INIT, dot1 = OT_BUF_INIT;
	ot_buf_puts(&dot, "old dot");
	ot_buf_puts(&svg, "old svg");
	render_ok(&dot, NULL, &g);
	ck_assert(ot_starts_with(dot.ptr, "digraph "));
	ck_assert_str_eq(svg.ptr, "old svg"); /* not asked for, not touched */
	ot_buf_sets(&dot1, dot.ptr);
	render_ok(&dot, &svg, &g);
	ck_assert(ot_buf_equal(&dot, &dot1));
	ck_assert(ot_starts_with(svg.ptr, "<?xml"));
	ot_buf_free(&dot);
	ot_buf_free(&svg);
	ot_buf_free(&dot1);
}
END_TEST

START_TEST(unknown_edge_node_is_an_error)
{
	ot_graph_node nodes[] = {{"a", "A", NULL, NULL, false, false, 0}};
	ot_graph_edge edges[] = {{"a", "ghost", NULL, false, OT_GRAPH_CALL}};
	ot_graph g = {NULL, nodes, 1, edges, 1};
	ot_buf svg = OT_BUF_INIT;
	ck_assert_int_lt(ot_graph_render(NULL, &svg, &g), 0);
	ck_assert_ptr_nonnull(strstr(ot_error_last(), "ghost"));
	ck_assert_uint_eq(svg.size, 0);
	edges[0] = (ot_graph_edge){NULL, "a", NULL, false, OT_GRAPH_CALL};
	ck_assert_int_lt(ot_graph_render(NULL, &svg, &g), 0);
	/* the lock was released: a good graph still renders */
	g.nedges = 0;
	render_ok(NULL, &svg, &g);
	ot_buf_free(&svg);
}
END_TEST

START_TEST(duplicate_or_empty_ids_are_errors)
{
	ot_graph_node nodes[] = {{"a", "A", NULL, NULL, false, false, 0}, {"a", "again", NULL, NULL, false, false, 0}};
	ot_graph g = {NULL, nodes, 2, NULL, 0};
	ot_buf dot = OT_BUF_INIT;
	ck_assert_int_lt(ot_graph_render(&dot, NULL, &g), 0);
	ck_assert_ptr_nonnull(strstr(ot_error_last(), "'a'"));
	nodes[1].id = "";
	ck_assert_int_lt(ot_graph_render(&dot, NULL, &g), 0);
	nodes[1].id = NULL;
	ck_assert_int_lt(ot_graph_render(&dot, NULL, &g), 0);
	ot_buf_free(&dot);
}
END_TEST

START_TEST(empty_graph_renders)
{
	ot_graph g = {NULL, NULL, 0, NULL, 0};
	ot_buf dot = OT_BUF_INIT, svg = OT_BUF_INIT;
	render_ok(&dot, &svg, &g);
	ck_assert(ot_starts_with(dot.ptr, "digraph "));
	ck_assert_ptr_nonnull(strstr(svg.ptr, "</svg>"));
	ot_buf_free(&dot);
	ot_buf_free(&svg);
}
END_TEST

struct job {
	ot_buf dot, svg;
	int rc;
};

static void *render_thread(void *arg)
{
	struct job *job = arg;
	ot_graph g = sample_graph();
	int i;
	for (i = 0; i < 30 && !job->rc; i++)
		job->rc = ot_graph_render(&job->dot, &job->svg, &g);
	return NULL;
}

START_TEST(concurrent_renders_agree)
{
	struct job jobs[4];
	pthread_t threads[4];
	size_t i;
	for (i = 0; i < 4; i++) {
		jobs[i] = (struct job){OT_BUF_INIT, OT_BUF_INIT, 0};
		ck_assert_int_eq(pthread_create(&threads[i], NULL, render_thread, &jobs[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(threads[i], NULL);
		ck_assert_int_eq(jobs[i].rc, 0);
	}
	for (i = 1; i < 4; i++) {
		ck_assert(ot_buf_equal(&jobs[0].dot, &jobs[i].dot));
		ck_assert(ot_buf_equal(&jobs[0].svg, &jobs[i].svg));
	}
	for (i = 0; i < 4; i++) {
		ot_buf_free(&jobs[i].dot);
		ot_buf_free(&jobs[i].svg);
	}
}
END_TEST

/* The width attribute of an SVG, in points. */
static double svg_width(const char *svg)
{
	const char *w = strstr(svg, "<svg width=\"");
	ck_assert_ptr_nonnull(w);
	return strtod(w + strlen("<svg width=\""), NULL);
}

typedef struct {
	double x0, y0, x1, y1;
} box;

/* The bounding box of the numbers pairs ("x,y") in `s`'s first d= or
 * points= attribute after `from`. */
static box shape_box(const char *s)
{
	const char *a = strstr(s, " d=\""), *b = strstr(s, " points=\""), *p;
	box bx = {1e9, 1e9, -1e9, -1e9};
	if (!a || (b && b < a))
		a = b;
	ck_assert_ptr_nonnull(a);
	p = strchr(a, '"') + 1;
	while (*p && *p != '"') {
		char *end;
		double x, y;
		if (!strchr("-0123456789.", *p)) {
			p++;
			continue;
		}
		x = strtod(p, &end);
		if (*end != ',') {
			p = end;
			continue;
		}
		y = strtod(end + 1, &end);
		p = end;
		if (x < bx.x0)
			bx.x0 = x;
		if (x > bx.x1)
			bx.x1 = x;
		if (y < bx.y0)
			bx.y0 = y;
		if (y > bx.y1)
			bx.y1 = y;
	}
	return bx;
}

static bool boxes_overlap(box a, box b, double slack)
{
	return a.x0 < b.x1 - slack && b.x0 < a.x1 - slack && a.y0 < b.y1 - slack &&
	       b.y0 < a.y1 - slack;
}

/* A diagram dot would draw thousands of points wide fits the bound, with
 * every node and edge, no two nodes overlapping, every arrowhead at its
 * node; the bound is the SVG's width attribute. */
START_TEST(wide_diagrams_fit_the_bound)
{
	ot_graph g = wide_graph();
	ot_buf dot = OT_BUF_INIT, svg = OT_BUF_INIT;
	box boxes[WIDE_NODES];
	render_ok(&dot, &svg, &g);
	ck_assert_msg(svg_width(svg.ptr) <= OT_GRAPH_MAX_WIDTH, "%.0f pt wide",
		      svg_width(svg.ptr));
	ck_assert_uint_eq(count(svg.ptr, "class=\"node\""), WIDE_NODES);
	ck_assert_uint_eq(count(svg.ptr, "class=\"edge\""), WIDE_EDGES);
	ck_assert_ptr_nonnull(strstr(dot.ptr, "pos=\"")); /* it was placed */
	for (size_t i = 0; i < WIDE_NODES; i++) {
		char *node = svg_node(svg.ptr, wide_nodes[i].id);
		boxes[i] = shape_box(node);
		free(node);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(!boxes_overlap(boxes[i], boxes[j], 0), "%s overlaps %s",
				      wide_nodes[i].id, wide_nodes[j].id);
	}
	for (size_t e = 0; e < WIDE_EDGES; e++) {
		const ot_graph_edge *ed = &wide_edges[e];
		ot_buf id = OT_BUF_INIT;
		char *edge;
		const char *arrow;
		size_t to = 0;
		box a;
		while (strcmp(wide_nodes[to].id, ed->to))
			to++;
		ot_buf_printf(&id, "%s&#45;&gt;%s", ed->from, ed->to);
		edge = svg_node(svg.ptr, id.ptr);
		arrow = strstr(edge, "<polygon");
		ck_assert_msg(arrow != NULL, "edge %s has no arrowhead", id.ptr);
		a = shape_box(arrow);
		ck_assert_msg(boxes_overlap(a, (box){boxes[to].x0 - 2, boxes[to].y0 - 2,
						     boxes[to].x1 + 2, boxes[to].y1 + 2}, -0.5),
			      "edge %s does not reach %s", id.ptr, ed->to);
		free(edge);
		ot_buf_free(&id);
	}
	ot_buf_free(&dot);
	ot_buf_free(&svg);
}
END_TEST

/* A diagram that fits as dot draws it is dot's: no positions in its DOT. */
START_TEST(narrow_diagrams_stay_as_dot_draws_them)
{
	ot_graph g = sample_graph();
	ot_buf dot = OT_BUF_INIT, svg = OT_BUF_INIT;
	render_ok(&dot, &svg, &g);
	ck_assert(svg_width(svg.ptr) <= OT_GRAPH_MAX_WIDTH);
	ck_assert_ptr_null(strstr(dot.ptr, "pos="));
	ot_buf_free(&dot);
	ot_buf_free(&svg);
}
END_TEST

/* Long lines break near OT_GRAPH_WRAP characters, best after "::" or '/';
 * only line breaks are added. */
START_TEST(long_label_lines_wrap)
{
	static const char *const label =
		"cpp\nat::native::(anonymous namespace)::a_very_long_function_name_impl\n"
		"torch/csrc/autograd/generated/python_torch_functions_0.cpp:42";
	ot_graph_node nodes[] = {{"a", label, "cpp", NULL, false, false, 0}};
	ot_graph g = {NULL, nodes, 1, NULL, 0};
	ot_buf svg = OT_BUF_INIT, joined = OT_BUF_INIT, expect = OT_BUF_INIT;
	char *texts, *save = NULL;
	render_ok(NULL, &svg, &g);
	texts = svg_texts(svg.ptr);
	for (char *l = strtok_r(texts, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		ck_assert_msg(strlen(l) <= OT_GRAPH_WRAP, "line too long: %s", l);
		ot_buf_puts(&joined, l);
	}
	for (const char *p = label; *p; p++)
		if (*p != '\n')
			ot_buf_putc(&expect, *p);
	ck_assert_str_eq(joined.ptr, expect.ptr);
	ck_assert_ptr_nonnull(strstr(svg.ptr, ">at::native::(anonymous namespace)::</text>"));
	ck_assert_ptr_nonnull(strstr(svg.ptr, ">torch/csrc/autograd/generated/</text>"));
	free(texts);
	ot_buf_free(&svg);
	ot_buf_free(&joined);
	ot_buf_free(&expect);
}
END_TEST

START_TEST(path_labels_keep_the_folder_below_native)
{
	ck_assert_str_eq(ot_graph_path_label("aten/src/ATen/native/cudnn/RNN.cpp"), "cudnn/RNN.cpp");
	ck_assert_str_eq(ot_graph_path_label("aten/src/ATen/native/RNN.cpp"), "RNN.cpp");
	ck_assert_str_eq(ot_graph_path_label("aten/src/ATen/cudnn/Handle.cpp"), "ATen/cudnn/Handle.cpp");
	ck_assert_str_eq(ot_graph_path_label("torch/nn/modules/rnn.py"), "torch/nn/modules/rnn.py");
	ck_assert_str_eq(ot_graph_path_label("aten/src/ATen/native/"), "ATen/native/");
	ck_assert_str_eq(ot_graph_path_label(""), "");
}
END_TEST

/* Main nodes and edges bold, a side edge dashed with its condition, a
 * folded node "+N more" above its condition, dotted. */
START_TEST(main_side_and_folded_are_drawn_apart)
{
	ot_graph_node nodes[] = {{"a", "A", "cpp", NULL, false, true, 0},
				 {"b", "B", "cpp", NULL, false, true, 0},
				 {"c", "C", "cpp", NULL, false, false, 0},
				 {"f", "sparse inputs", NULL, NULL, false, false, 7}};
	ot_graph_edge edges[] = {{"a", "b", NULL, false, OT_GRAPH_MAIN},
				 {"a", "c", "x.is_sparse()", false, OT_GRAPH_SIDE},
				 {"a", "f", NULL, false, OT_GRAPH_SIDE}};
	ot_graph g = {NULL, nodes, 4, edges, 3};
	ot_buf svg = OT_BUF_INIT;
	char *texts;
	render_ok(NULL, &svg, &g);
	ck_assert(node_has(svg.ptr, "a", "stroke-width=\"2\""));
	ck_assert(!node_has(svg.ptr, "c", "stroke-width=\"2\""));
	ck_assert(node_has(svg.ptr, "a&#45;&gt;b", "stroke-width=\"2\""));
	ck_assert(!node_has(svg.ptr, "a&#45;&gt;b", "stroke-dasharray"));
	ck_assert(node_has(svg.ptr, "a&#45;&gt;c", "stroke-dasharray=\"5,2\""));
	ck_assert(node_has(svg.ptr, "a&#45;&gt;c", ">x.is_sparse()</text>"));
	ck_assert(node_has(svg.ptr, "f", "stroke-dasharray=\"1,5\""));
	texts = svg_texts(svg.ptr);
	ck_assert_ptr_nonnull(strstr(texts, "+7 more\n(sparse inputs)\n"));
	free(texts);
	ot_buf_free(&svg);
}
END_TEST

START_TEST(library_version_names_graphviz)
{
	const char *v = ot_graph_library_version();
	ck_assert_msg(ot_starts_with(v, "graphviz ") && v[9] >= '0' && v[9] <= '9', "%s", v);
	ck_assert_ptr_eq(v, ot_graph_library_version());
}
END_TEST

static int dump_sample(const char *path)
{
	ot_buf all = OT_BUF_INIT;
	FILE *f;
	int ok;
	if (render_both(&all) < 0 || !(f = fopen(path, "wb")))
		return EXIT_FAILURE;
	ok = fwrite(all.ptr, 1, all.size, f) == all.size;
	ok = fclose(f) == 0 && ok;
	ot_buf_free(&all);
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(void)
{
	Suite *s;
	TCase *tc;
	const char *dump = getenv(DUMP_ENV);
	if (dump)
		return dump_sample(dump);

	s = suite_create("graph");
	tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, renders_dot_and_svg);
	tcase_add_test(tc, svg_has_no_version_text);
	tcase_add_test(tc, every_text_uses_the_fixed_font);
	tcase_add_test(tc, renders_are_identical);
	tcase_add_test(tc, renders_are_identical_across_processes);
	tcase_add_test(tc, labels_render_literally);
	tcase_add_test(tc, newline_separates_lines);
	tcase_add_test(tc, dot_text_escapes_labels);
	tcase_add_test(tc, groups_pick_distinct_pastel_fills);
	tcase_add_test(tc, missing_nodes_and_dashed_edges);
	tcase_add_test(tc, urls_become_relative_links);
	tcase_add_test(tc, svg_is_well_formed_xml);
	tcase_add_test(tc, nodes_keep_the_given_order);
	tcase_add_test(tc, outputs_are_replaced_not_appended);
	tcase_add_test(tc, unknown_edge_node_is_an_error);
	tcase_add_test(tc, duplicate_or_empty_ids_are_errors);
	tcase_add_test(tc, empty_graph_renders);
	tcase_add_test(tc, concurrent_renders_agree);
	tcase_add_test(tc, library_version_names_graphviz);
	tcase_add_test(tc, wide_diagrams_fit_the_bound);
	tcase_add_test(tc, narrow_diagrams_stay_as_dot_draws_them);
	tcase_add_test(tc, long_label_lines_wrap);
	tcase_add_test(tc, path_labels_keep_the_folder_below_native);
	tcase_add_test(tc, main_side_and_folded_are_drawn_apart);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
