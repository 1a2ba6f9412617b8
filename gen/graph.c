#include "graph.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cgraph.h>
#include <gvc.h>

/*
 * Everything that touches Graphviz runs under `lock`: cgraph's error
 * callback, the layout engines and the renderers keep global state.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static GVC_t *gvc;
static ot_buf gv_messages = OT_BUF_INIT;
static char version[64];

struct group_style {
	const char *name, *fill;
};

/* Pastel fills, dark text stays readable on every one of them. */
static const struct group_style group_styles[] = {
	{"python", "#dbeafe"},        {"bridge", "#e0e7ff"},
	{"yaml", "#fef3c7"},          {"cpp", "#dcfce7"},
	{"meta", "#f3e8ff"},          {"stub", "#fce7f3"},
	{"kernel", "#ccfbf1"},        {"cuda", "#ecfccb"},
	{"backward", "#ffedd5"},      {"decomposition", "#e0f2fe"},
};
#define DEFAULT_FILL "#f3f4f6"

static const char *group_fill(const char *group)
{
	size_t i;
	if (!group)
		return DEFAULT_FILL;
	for (i = 0; i < OT_ARRAY_LEN(group_styles); i++)
		if (!strcmp(group_styles[i].name, group))
			return group_styles[i].fill;
	return DEFAULT_FILL;
}

/* cgraph reports through this instead of printing to stderr. */
static int collect_message(char *msg)
{
	ot_buf_puts(&gv_messages, msg);
	return 0;
}

static int buf_putstr(void *chan, const char *str)
{
	ot_buf_puts(chan, str);
	return 0;
}

static int buf_flush(void *chan)
{
	(void)chan;
	return 0;
}

static Agiodisc_t buf_io = {NULL, buf_putstr, buf_flush};

/*
 * Graphviz reads a label as an escString: "\N"-style substitutions, "\n"
 * "\l" "\r" line breaks, a backslash before any other byte dropped, and
 * HTML entities ("&amp;") decoded. Escape so the text shows literally,
 * with our '\n' as a centred line break.
 */
static void escape_label(ot_buf *out, const char *s)
{
	ot_buf_clear(out);
	for (; *s; s++) {
		if (*s == '\\')
			ot_buf_puts(out, "\\\\");
		else if (*s == '\n')
			ot_buf_puts(out, "\\n");
		else if (*s == '&')
			ot_buf_puts(out, "&amp;");
		else
			ot_buf_putc(out, *s);
	}
}

/*
 * URLs get "\N"-style substitutions; percent-encode what Graphviz or a
 * browser would otherwise reinterpret. Graphviz 2.43 copies '&' into the
 * SVG attribute unescaped (invalid XML), so it is written as "&amp;" here.
 * Relative URLs stay relative.
 */
static void escape_url(ot_buf *out, const char *s)
{
	ot_buf_clear(out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\' || c <= ' ' || c == 0x7f || c == '"' || c == '<' || c == '>')
			ot_buf_printf(out, "%%%02X", c);
		else if (c == '&')
			ot_buf_puts(out, "&amp;");
		else
			ot_buf_putc(out, *s);
	}
}

static void set_attr(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, "");
}

/* Defaults every object shares, declared once so the DOT text lists them. */
static void declare_defaults(Agraph_t *g)
{
	agattr(g, AGRAPH, "rankdir", "TB");
	agattr(g, AGRAPH, "fontname", OT_GRAPH_FONT);
	agattr(g, AGRAPH, "fontsize", "12");
	agattr(g, AGRAPH, "labelloc", "t");
	agattr(g, AGRAPH, "nodesep", "0.3");
	agattr(g, AGRAPH, "ranksep", "0.4");
	agattr(g, AGNODE, "label", "\\N");
	agattr(g, AGNODE, "shape", "box");
	agattr(g, AGNODE, "style", "rounded,filled");
	agattr(g, AGNODE, "fillcolor", DEFAULT_FILL);
	agattr(g, AGNODE, "color", "#4b5563");
	agattr(g, AGNODE, "fontcolor", "#111827");
	agattr(g, AGNODE, "fontname", OT_GRAPH_FONT);
	agattr(g, AGNODE, "fontsize", "11");
	agattr(g, AGEDGE, "color", "#4b5563");
	agattr(g, AGEDGE, "fontcolor", "#374151");
	agattr(g, AGEDGE, "fontname", OT_GRAPH_FONT);
	agattr(g, AGEDGE, "fontsize", "9");
	agattr(g, AGEDGE, "style", "solid");
}

static int build(Agraph_t *g, const ot_graph *spec)
{
	ot_buf tmp = OT_BUF_INIT;
	size_t i;
	int error = 0;

	declare_defaults(g);
	if (spec->title && *spec->title) {
		escape_label(&tmp, spec->title);
		agattr(g, AGRAPH, "label", tmp.ptr);
	}

	for (i = 0; i < spec->nnodes; i++) {
		const ot_graph_node *n = &spec->nodes[i];
		Agnode_t *node;
		if (!n->id || !*n->id) {
			error = ot_error_set("graph node %zu has no id", i);
			goto done;
		}
		if (agnode(g, (char *)n->id, 0)) {
			error = ot_error_set("graph node id '%s' is used twice", n->id);
			goto done;
		}
		node = agnode(g, (char *)n->id, 1);
		escape_label(&tmp, n->label ? n->label : n->id);
		set_attr(node, "label", tmp.ptr);
		set_attr(node, "fillcolor", n->missing ? "#ffffff" : group_fill(n->group));
		if (n->missing) {
			set_attr(node, "style", "rounded,filled,dashed");
			set_attr(node, "color", "#9ca3af");
			set_attr(node, "fontcolor", "#6b7280");
		}
		if (n->url && *n->url) {
			escape_url(&tmp, n->url);
			set_attr(node, "URL", tmp.ptr);
			/* tooltips are unescaped like labels; the default one is not */
			escape_label(&tmp, n->label ? n->label : n->id);
			set_attr(node, "tooltip", tmp.ptr);
		}
	}

	for (i = 0; i < spec->nedges; i++) {
		const ot_graph_edge *e = &spec->edges[i];
		Agnode_t *from = e->from ? agnode(g, (char *)e->from, 0) : NULL;
		Agnode_t *to = e->to ? agnode(g, (char *)e->to, 0) : NULL;
		Agedge_t *edge;
		if (!from || !to) {
			error = ot_error_set("graph edge %zu names unknown node '%s'", i,
					     !from ? (e->from ? e->from : "(null)")
						   : (e->to ? e->to : "(null)"));
			goto done;
		}
		edge = agedge(g, from, to, NULL, 1);
		if (e->label && *e->label) {
			escape_label(&tmp, e->label);
			set_attr(edge, "label", tmp.ptr);
		}
		if (e->dashed)
			set_attr(edge, "style", "dashed");
	}

done:
	ot_buf_free(&tmp);
	return error;
}

/* Drop the "Generated by graphviz version ..." comment: it names the version. */
static void strip_version_comment(ot_buf *svg)
{
	static const char marker[] = "<!-- Generated by graphviz";
	char *start = strstr(svg->ptr, marker), *end;
	size_t tail;
	if (!start)
		return;
	end = strstr(start, "-->");
	if (!end)
		return;
	end += 3;
	if (*end == '\n')
		end++;
	tail = svg->size - (size_t)(end - svg->ptr);
	memmove(start, end, tail + 1);
	svg->size = (size_t)(start - svg->ptr) + tail;
}

static int fail(const char *what)
{
	/* Trailing newlines of Graphviz messages would end up inside ours. */
	while (gv_messages.size && (gv_messages.ptr[gv_messages.size - 1] == '\n' ||
				    gv_messages.ptr[gv_messages.size - 1] == ' '))
		ot_buf_truncate(&gv_messages, gv_messages.size - 1);
	return ot_error_set("graphviz %s failed%s%s", what, gv_messages.size ? ": " : "",
			    gv_messages.ptr);
}

static void ensure_context(void)
{
	if (gvc)
		return;
	agseterrf(collect_message);
	gvc = gvContext();
	snprintf(version, sizeof(version), "graphviz %s", gvcVersion(gvc));
}

int ot_graph_render(ot_buf *dot, ot_buf *svg, const ot_graph *g)
{
	static Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &buf_io};
	Agraph_t *graph = NULL;
	char *data = NULL;
	unsigned int len = 0;
	bool laid_out = false;
	int error = 0;

	pthread_mutex_lock(&lock);
	ensure_context();
	ot_buf_clear(&gv_messages);

	graph = agopen("optrace", Agdirected, &disc);
	if (!graph) {
		error = fail("agopen");
		goto done;
	}
	if ((error = build(graph, g)) < 0)
		goto done;

	/*
	 * The DOT text is written before layout, so it is the canonical graph
	 * description ("canon") without coordinates that depend on font
	 * metrics.
	 */
	if (dot) {
		ot_buf_clear(dot);
		if (agwrite(graph, dot) != 0) {
			error = fail("writing DOT");
			goto done;
		}
	}

	if (!svg)
		goto done;
	laid_out = true; /* a failed layout may still leave data to free */
	if (gvLayout(gvc, graph, "dot") != 0) {
		error = fail("layout");
		goto done;
	}
	if (gvRenderData(gvc, graph, "svg", &data, &len) != 0) {
		error = fail("SVG rendering");
		goto done;
	}
	ot_buf_clear(svg);
	ot_buf_put(svg, data, len);
	strip_version_comment(svg);

done:
	if (data)
		gvFreeRenderData(data);
	if (laid_out)
		gvFreeLayout(gvc, graph);
	if (graph)
		agclose(graph);
	pthread_mutex_unlock(&lock);
	return error;
}

const char *ot_graph_library_version(void)
{
	pthread_mutex_lock(&lock);
	ensure_context();
	pthread_mutex_unlock(&lock);
	return version;
}
