#include "graph.h"
#include "graph_place.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cgraph.h>
#include <gvc.h>

#include "escape.h"

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

/* Labels and URLs in Graphviz's own escaping (escape.h), into `out`. */
static void escape_label(ot_buf *out, const char *s)
{
	ot_buf_clear(out);
	ot_esc_dot_label(out, s, strlen(s));
}

/* Characters of a UTF-8 string (continuation bytes not counted). */
static size_t text_cols(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* Byte length of the first `cols` characters of s[0..len). */
static size_t cols_bytes(const char *s, size_t len, size_t cols)
{
	size_t i = 0;
	while (i < len && cols) {
		i++;
		while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		cols--;
	}
	return i;
}

/*
 * Where to end the first piece of a line too long for `width` columns:
 * after the last "::", '/', ' ', ',', '(', '<', '.' or '_' that leaves a
 * third of the width on the line at least (the earlier a character is in
 * that list, the better a break it is), else after `width` characters.
 */
static size_t wrap_at(const char *s, size_t len, size_t width)
{
	static const char breaks[] = ":/ ,(<._";
	size_t limit = cols_bytes(s, len, width), best = 0;
	int best_rank = (int)sizeof(breaks);
	for (size_t i = limit; i > 0 && text_cols(s, i) * 3 >= width; i--) {
		const char *b = strchr(breaks, s[i - 1]);
		int rank;
		if (!b || !s[i - 1] || (s[i - 1] == ':' && (i < 2 || s[i - 2] != ':')))
			continue;
		if (s[i - 1] == ':' && i < len && s[i] == ':')
			continue; /* between the two colons of "::" */
		rank = (int)(b - breaks);
		if (rank < best_rank) {
			best_rank = rank;
			best = i;
		}
	}
	return best ? best : limit;
}

/* `s` with every line longer than `width` characters wrapped. */
static void wrap_text(ot_buf *out, const char *s, size_t width)
{
	ot_buf_clear(out);
	while (*s) {
		size_t len = strcspn(s, "\n");
		while (text_cols(s, len) > width) {
			size_t cut = wrap_at(s, len, width);
			ot_buf_put(out, s, cut);
			ot_buf_putc(out, '\n');
			s += cut;
			len -= cut;
		}
		ot_buf_put(out, s, len);
		s += len;
		if (*s == '\n')
			ot_buf_putc(out, *s++);
	}
}

/* A label as drawn: wrapped, then escaped. */
static void label_text(ot_buf *out, ot_buf *tmp, const char *s, size_t width)
{
	wrap_text(tmp, s, width);
	escape_label(out, tmp->ptr);
}

static void escape_url(ot_buf *out, const char *s)
{
	ot_buf_clear(out);
	ot_esc_dot_url(out, s, strlen(s));
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

/* Edge and folded-node labels wrap narrower than node lines: they sit
 * between the ranks, beside the edges. */
#define EDGE_WRAP 28

/* Spacing of a placed diagram (points): beside a node, between rows. */
#define NODE_GAP 21.6
#define RANK_GAP 28.8
#define PLACE_ROUNDS 6

/* The spec's nodes and edges as indices, their sizes in the natural
 * layout, and, once placed, where every node goes. */
typedef struct {
	const ot_graph *spec;
	size_t *from, *to;   /* per edge: node indices */
	bool *main;          /* per node */
	double *width, *height;             /* per node: box in points */
	double *label_width, *label_height; /* per edge: label box, 0: none */
	ot_graph_placed placed;
	bool is_placed;
} layout_plan;

/* A node's label as drawn, before escaping: wrapped; for a folded node
 * "+N more" above its condition. */
static void node_text(ot_buf *out, const ot_graph_node *n)
{
	if (!n->folded) {
		wrap_text(out, n->label ? n->label : n->id, OT_GRAPH_WRAP);
		return;
	}
	ot_buf_clear(out);
	ot_buf_printf(out, "+%zu more", n->folded);
	if (n->label && *n->label) {
		ot_buf text = OT_BUF_INIT;
		wrap_text(&text, n->label, EDGE_WRAP);
		ot_buf_printf(out, "\n(%s)", text.ptr);
		ot_buf_free(&text);
	}
}

static void build_node(Agraph_t *g, const ot_graph_node *n, ot_buf *tmp, ot_buf *tmp2)
{
	Agnode_t *node = agnode(g, (char *)n->id, 1);
	node_text(tmp2, n);
	escape_label(tmp, tmp2->ptr);
	set_attr(node, "label", tmp->ptr);
	if (n->folded) {
		set_attr(node, "fillcolor", "#ffffff");
		set_attr(node, "style", "rounded,filled,dotted");
		set_attr(node, "color", "#6b7280");
		set_attr(node, "fontcolor", "#374151");
	} else {
		set_attr(node, "fillcolor", n->missing ? "#ffffff" : group_fill(n->group));
	}
	if (n->missing) {
		set_attr(node, "style", "rounded,filled,dashed");
		set_attr(node, "color", "#9ca3af");
		set_attr(node, "fontcolor", "#6b7280");
	}
	if (n->main) {
		set_attr(node, "penwidth", "2");
		set_attr(node, "group", "main");
	}
	if (n->url && *n->url) {
		escape_url(tmp, n->url);
		set_attr(node, "URL", tmp->ptr);
		/* tooltips are unescaped like labels; the default one is not; the
		 * tooltip keeps the label's lines as given, unwrapped */
		escape_label(tmp, n->label ? n->label : n->id);
		set_attr(node, "tooltip", tmp->ptr);
	}
}

static Agedge_t *build_edge(Agraph_t *g, Agnode_t *from, Agnode_t *to, const ot_graph_edge *e,
			    ot_buf *tmp, ot_buf *tmp2)
{
	Agedge_t *edge = agedge(g, from, to, NULL, 1);
	if (e->label && *e->label) {
		label_text(tmp, tmp2, e->label, EDGE_WRAP);
		set_attr(edge, "label", tmp->ptr);
	}
	switch (e->kind) {
	case OT_GRAPH_MAIN:
		set_attr(edge, "penwidth", "2");
		set_attr(edge, "weight", "8");
		set_attr(edge, "color", "#111827");
		break;
	case OT_GRAPH_SIDE:
		set_attr(edge, "style", "dashed");
		set_attr(edge, "color", "#9ca3af");
		set_attr(edge, "fontcolor", "#6b7280");
		break;
	case OT_GRAPH_CALL:
		break;
	}
	if (e->dashed)
		set_attr(edge, "style", "dashed");
	return edge;
}

/* Check the spec and resolve its edges to node indices. */
static int plan_init(layout_plan *lp, const ot_graph *spec)
{
	ot_map *ids = ot_map_new();
	int error = 0;
	memset(lp, 0, sizeof(*lp));
	lp->spec = spec;
	lp->from = ot_calloc(spec->nedges + 1, sizeof(size_t));
	lp->to = ot_calloc(spec->nedges + 1, sizeof(size_t));
	lp->main = ot_calloc(spec->nnodes + 1, sizeof(bool));
	lp->width = ot_calloc(spec->nnodes + 1, sizeof(double));
	lp->height = ot_calloc(spec->nnodes + 1, sizeof(double));
	lp->label_width = ot_calloc(spec->nedges + 1, sizeof(double));
	lp->label_height = ot_calloc(spec->nedges + 1, sizeof(double));
	for (size_t i = 0; i < spec->nnodes; i++) {
		const ot_graph_node *n = &spec->nodes[i];
		if (!n->id || !*n->id) {
			error = ot_error_set("graph node %zu has no id", i);
			goto done;
		}
		if (ot_map_get(ids, n->id)) {
			error = ot_error_set("graph node id '%s' is used twice", n->id);
			goto done;
		}
		ot_map_put(ids, n->id, (void *)(uintptr_t)(i + 1));
		lp->main[i] = n->main;
	}
	for (size_t i = 0; i < spec->nedges; i++) {
		const ot_graph_edge *e = &spec->edges[i];
		uintptr_t f = e->from ? (uintptr_t)ot_map_get(ids, e->from) : 0;
		uintptr_t to = e->to ? (uintptr_t)ot_map_get(ids, e->to) : 0;
		if (!f || !to) {
			error = ot_error_set("graph edge %zu names unknown node '%s'", i,
					     !f ? (e->from ? e->from : "(null)")
						: (e->to ? e->to : "(null)"));
			goto done;
		}
		lp->from[i] = f - 1;
		lp->to[i] = to - 1;
	}
done:
	ot_map_free(ids);
	return error;
}

static void plan_free(layout_plan *lp)
{
	free(lp->from);
	free(lp->to);
	free(lp->main);
	free(lp->width);
	free(lp->height);
	free(lp->label_width);
	free(lp->label_height);
	ot_graph_place_free(&lp->placed);
}

static int build(Agraph_t *g, const layout_plan *lp)
{
	const ot_graph *spec = lp->spec;
	ot_buf tmp = OT_BUF_INIT, tmp2 = OT_BUF_INIT;
	Agnode_t **made = ot_calloc(spec->nnodes + 1, sizeof(*made));

	declare_defaults(g);
	if (spec->title && *spec->title) {
		label_text(&tmp, &tmp2, spec->title, 2 * OT_GRAPH_WRAP);
		agattr(g, AGRAPH, "label", tmp.ptr);
	}
	for (size_t i = 0; i < spec->nnodes; i++) {
		build_node(g, &spec->nodes[i], &tmp, &tmp2);
		made[i] = agnode(g, (char *)spec->nodes[i].id, 0);
		if (lp->is_placed) {
			/* points, y upwards; "!" pins the node */
			ot_buf_clear(&tmp);
			ot_buf_printf(&tmp, "%.1f,%.1f!", lp->placed.x[i], -lp->placed.y[i]);
			set_attr(made[i], "pos", tmp.ptr);
		}
	}
	for (size_t i = 0; i < spec->nedges; i++) {
		Agedge_t *e = build_edge(g, made[lp->from[i]], made[lp->to[i]], &spec->edges[i], &tmp,
					 &tmp2);
		const ot_graph_route *rt = lp->is_placed ? &lp->placed.routes[i] : NULL;
		if (!rt)
			continue;
		/* the curve as placed: "e,TIP P0 P1 ..." (points, y upwards) */
		ot_buf_clear(&tmp);
		ot_buf_printf(&tmp, "e,%.1f,%.1f", rt->tip_x, -rt->tip_y);
		for (size_t k = 0; k < rt->npts; k++)
			ot_buf_printf(&tmp, " %.1f,%.1f", rt->pts[2 * k], -rt->pts[2 * k + 1]);
		set_attr(e, "pos", tmp.ptr);
		if (spec->edges[i].label && *spec->edges[i].label) {
			ot_buf_clear(&tmp);
			ot_buf_printf(&tmp, "%.1f,%.1f", rt->label_x, -rt->label_y);
			set_attr(e, "lp", tmp.ptr);
		}
	}
	free(made);
	ot_buf_free(&tmp);
	ot_buf_free(&tmp2);
	return 0;
}

/* Width of the laid-out drawing, as the SVG's width attribute gives it. */
static double laid_out_width(Agraph_t *g)
{
	boxf bb = GD_bb(g);
	return bb.UR.x - bb.LL.x + 2 * 4.0; /* the SVG renderer's pad */
}

/*
 * Text sizes, measured once by laying out a probe with Graphviz (so with
 * the same font, its metrics and the same margins): a box grows by the
 * same amount with every character of its longest line and with every
 * line (the font is monospaced), from its least size.
 */
typedef struct {
	double node_char, node_pad, node_line, node_vpad;
	double label_char, label_pad, label_line, label_vpad;
	bool done;
} text_metrics;

static text_metrics metrics;

static int fail(const char *what);

static void add_probe(Agraph_t *g, const char *name, int cols, int lines)
{
	ot_buf text = OT_BUF_INIT, esc = OT_BUF_INIT;
	for (int l = 0; l < lines; l++) {
		for (int c = 0; c < cols; c++)
			ot_buf_putc(&text, 'M');
		if (l + 1 < lines)
			ot_buf_putc(&text, '\n');
	}
	escape_label(&esc, text.ptr);
	set_attr(agnode(g, (char *)name, 1), "label", esc.ptr);
	ot_buf_free(&text);
	ot_buf_free(&esc);
}

static double probe_size(Agraph_t *g, const char *name, bool height)
{
	Agnode_t *n = agnode(g, (char *)name, 0);
	return (height ? ND_height(n) : ND_width(n)) * 72.0;
}

static double probe_label(Agraph_t *g, const char *from, const char *to, bool height)
{
	Agedge_t *e = agedge(g, agnode(g, (char *)from, 0), agnode(g, (char *)to, 0), NULL, 0);
	textlabel_t *l = e ? ED_label(e) : NULL;
	return l ? (height ? l->dimen.y : l->dimen.x) : 0;
}

static int calibrate(void)
{
	static Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &buf_io};
	static const struct { const char *from, *to; int cols, lines; } probes[] = {
		{"a", "b", 20, 1}, {"b", "c", 40, 1}, {"c", "d", 20, 4}};
	Agraph_t *g;
	int error = 0;
	if (metrics.done)
		return 0;
	g = agopen("probe", Agdirected, &disc);
	if (!g)
		return fail("agopen");
	declare_defaults(g);
	add_probe(g, "a", 40, 1);
	add_probe(g, "b", 80, 1);
	add_probe(g, "c", 40, 4);
	add_probe(g, "d", 40, 8);
	for (size_t i = 0; i < OT_ARRAY_LEN(probes); i++) {
		ot_buf text = OT_BUF_INIT;
		Agedge_t *e = agedge(g, agnode(g, (char *)probes[i].from, 0),
				     agnode(g, (char *)probes[i].to, 0), NULL, 1);
		for (int l = 0; l < probes[i].lines; l++) {
			for (int c = 0; c < probes[i].cols; c++)
				ot_buf_putc(&text, 'M');
			if (l + 1 < probes[i].lines)
				ot_buf_puts(&text, "\\n");
		}
		set_attr(e, "label", text.ptr);
		ot_buf_free(&text);
	}
	if (gvLayout(gvc, g, "dot") != 0) {
		error = fail("layout");
		agclose(g);
		return error;
	}
	metrics.node_char = (probe_size(g, "b", false) - probe_size(g, "a", false)) / 40;
	metrics.node_pad = probe_size(g, "a", false) - 40 * metrics.node_char;
	metrics.node_line = (probe_size(g, "d", true) - probe_size(g, "c", true)) / 4;
	metrics.node_vpad = probe_size(g, "c", true) - 4 * metrics.node_line;
	metrics.label_char = (probe_label(g, "b", "c", false) - probe_label(g, "a", "b", false)) / 20;
	metrics.label_pad = probe_label(g, "a", "b", false) - 20 * metrics.label_char;
	metrics.label_line = (probe_label(g, "c", "d", true) - probe_label(g, "a", "b", true)) / 3;
	metrics.label_vpad = probe_label(g, "a", "b", true) - metrics.label_line;
	metrics.done = true;
	gvFreeLayout(gvc, g);
	agclose(g);
	return 0;
}

/* Columns of the longest line and the number of lines of `s`. */
static void text_extent(const char *s, size_t *cols, size_t *lines)
{
	*cols = 0;
	*lines = 1;
	while (*s) {
		size_t len = strcspn(s, "\n"), c = text_cols(s, len);
		if (c > *cols)
			*cols = c;
		s += len;
		if (*s == '\n') {
			s++;
			(*lines)++;
		}
	}
}

/* Every node's and label's box, from the metrics: what Graphviz will draw. */
static void estimate(layout_plan *lp)
{
	const ot_graph *spec = lp->spec;
	ot_buf text = OT_BUF_INIT;
	size_t cols, lines;
	for (size_t i = 0; i < spec->nnodes; i++) {
		node_text(&text, &spec->nodes[i]);
		text_extent(text.ptr, &cols, &lines);
		lp->width[i] = metrics.node_pad + (double)cols * metrics.node_char;
		lp->height[i] = metrics.node_vpad + (double)lines * metrics.node_line;
		if (lp->width[i] < 54) /* Graphviz's least box: 0.75 x 0.5 in */
			lp->width[i] = 54;
		if (lp->height[i] < 36)
			lp->height[i] = 36;
	}
	for (size_t e = 0; e < spec->nedges; e++) {
		const char *label = spec->edges[e].label;
		if (!label || !*label)
			continue;
		wrap_text(&text, label, EDGE_WRAP);
		text_extent(text.ptr, &cols, &lines);
		lp->label_width[e] = metrics.label_pad + (double)cols * metrics.label_char;
		lp->label_height[e] = metrics.label_vpad + (double)lines * metrics.label_line;
	}
	ot_buf_free(&text);
}

/*
 * Whether dot cannot draw the plan within the width: a rank of the
 * longest-path ranking (which dot's ranking resembles) holds more than
 * that. Then the natural layout is not even tried.
 */
static bool clearly_too_wide(const layout_plan *lp)
{
	const ot_graph *spec = lp->spec;
	size_t n = spec->nnodes, m = spec->nedges;
	int *rank = ot_calloc(n + 1, sizeof(int));
	double *used = ot_calloc(n + 1, sizeof(double));
	bool wide = false, changed = true;
	/* longest path by relaxation; a cycle stops growing after n rounds */
	for (size_t round = 0; changed && round < n; round++) {
		changed = false;
		for (size_t e = 0; e < m; e++)
			if (lp->from[e] != lp->to[e] && rank[lp->to[e]] < rank[lp->from[e]] + 1) {
				rank[lp->to[e]] = rank[lp->from[e]] + 1;
				changed = true;
			}
	}
	for (size_t i = 0; i < n && !wide; i++) {
		int r = rank[i] < (int)n ? rank[i] : (int)n - 1;
		used[r] += lp->width[i] + NODE_GAP;
		wide = used[r] - NODE_GAP > OT_GRAPH_MAX_WIDTH;
	}
	free(rank);
	free(used);
	return wide;
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

/* Lay `lp` out into a fresh graph (*graph, the caller closes it). */
static int lay_out(Agraph_t **graph, const layout_plan *lp, ot_buf *dot, bool *laid_out)
{
	static Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &buf_io};
	*laid_out = false;
	*graph = agopen("optrace", Agdirected, &disc);
	if (!*graph)
		return fail("agopen");
	build(*graph, lp);
	/*
	 * The DOT text is written before layout: the graph description
	 * ("canon") without the coordinates Graphviz computes.
	 */
	if (dot) {
		ot_buf_clear(dot);
		if (agwrite(*graph, dot) != 0)
			return fail("writing DOT");
	}
	*laid_out = true; /* a failed layout may still leave data to free */
	/* placed nodes and edges stay as they are: Graphviz only draws them */
	if (gvLayout(gvc, *graph, lp->is_placed ? "nop2" : "dot") != 0)
		return fail("layout");
	return 0;
}

/*
 * Graphviz 2.x's nop2 layout leaves its node list behind: neato_layout
 * allocates it (scan_graph_mode, from init_nop) while the plugin's Nop flag
 * is set, and the cleanup gvFreeLayout calls frees it only while that flag
 * is still set, which nop2 has reset by then. So a placed graph's list is
 * taken before the cleanup and freed after it. (Graphviz 3 and later keep
 * no such flag: left to them.)
 */
static bool nop2_keeps_node_list(void)
{
	return !strncmp(gvcVersion(gvc), "2.", 2);
}

static void close_graph(Agraph_t *graph, bool laid_out, bool placed)
{
	node_t **node_list = NULL;
	if (laid_out && placed && nop2_keeps_node_list() && agbindrec(graph, "Agraphinfo_t", 0, TRUE))
		node_list = GD_neato_nlist(graph);
	if (laid_out)
		gvFreeLayout(gvc, graph);
	free(node_list);
	if (graph)
		agclose(graph);
}

int ot_graph_render(ot_buf *dot, ot_buf *svg, const ot_graph *g)
{
	Agraph_t *graph = NULL;
	layout_plan lp;
	char *data = NULL;
	unsigned int len = 0;
	bool laid_out = false, placed = false; /* how `graph` was laid out */
	double width, budget = OT_GRAPH_MAX_WIDTH - 16.0;
	int error = 0;

	pthread_mutex_lock(&lock);
	ensure_context();
	ot_buf_clear(&gv_messages);
	if ((error = plan_init(&lp, g)) < 0 || (error = calibrate()) < 0)
		goto done;
	estimate(&lp);
	if (clearly_too_wide(&lp)) {
		width = OT_GRAPH_MAX_WIDTH + 1;
	} else {
		if ((error = lay_out(&graph, &lp, dot, &laid_out)) < 0)
			goto done;
		width = laid_out_width(graph);
	}

	/* too wide: placed by rows, narrower each round until it fits */
	for (int round = 0; width > OT_GRAPH_MAX_WIDTH && round < PLACE_ROUNDS; round++) {
		ot_graph_place_in in = {g->nnodes, g->nedges, lp.from, lp.to, lp.main,
					lp.width, lp.height, lp.label_width, lp.label_height,
					NODE_GAP, RANK_GAP};
		if (round)
			budget -= width - OT_GRAPH_MAX_WIDTH + 8.0;
		ot_graph_place_free(&lp.placed);
		ot_graph_place(&lp.placed, &in, budget);
		close_graph(graph, laid_out, placed);
		graph = NULL;
		laid_out = false;
		lp.is_placed = placed = true;
		if ((error = lay_out(&graph, &lp, dot, &laid_out)) < 0)
			goto done;
		width = laid_out_width(graph);
	}

	if (!svg)
		goto done;
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
	close_graph(graph, laid_out, placed);
	plan_free(&lp);
	pthread_mutex_unlock(&lock);
	return error;
}

const char *ot_graph_path_label(const char *path)
{
	static const char native[] = "aten/src/ATen/native/", aten[] = "aten/src/";
	if (!path)
		return "";
	if (!strncmp(path, native, sizeof(native) - 1) && path[sizeof(native) - 1])
		return path + sizeof(native) - 1;
	if (!strncmp(path, aten, sizeof(aten) - 1) && path[sizeof(aten) - 1])
		return path + sizeof(aten) - 1;
	return path;
}

const char *ot_graph_library_version(void)
{
	pthread_mutex_lock(&lock);
	ensure_context();
	pthread_mutex_unlock(&lock);
	return version;
}
