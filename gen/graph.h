/*
 * graph.h - the call-chain diagram of an op, drawn with Graphviz.
 *
 * The only module that talks to cgraph/gvc. The caller describes nodes and
 * edges; this module builds the cgraph graph, writes its DOT text, lays it
 * out with `dot` and renders SVG. Output bytes are stable: a fixed font
 * (OT_GRAPH_FONT), no Graphviz version comment, nodes and edges in the
 * order given.
 *
 * The DOT text is cgraph's canonical writer (what gvRenderData's "canon"
 * prints) run before layout, so it holds no coordinates: it depends only on
 * the input, not on font metrics. The SVG's geometry comes from the pango
 * text layout plugin and fontconfig (fonts-dejavu-core provides the font);
 * it is identical across runs and processes on one machine image.
 *
 * Labels, titles and tooltips render literally ('"', '\', '<', '{', '|',
 * '&', "\N"...); a newline in a label is a centred line break. One exception
 * Graphviz 2.43 forces: in a tooltip (the SVG link title, set for nodes
 * with a URL) a backslash before G, N, E, H, T or L is substituted.
 *
 * Graphviz layout is not thread-safe: ot_graph_render serialises callers
 * with a process-wide lock.
 */
#ifndef OT_GRAPH_H
#define OT_GRAPH_H

#include "buf.h"
#include "common.h"

#define OT_GRAPH_FONT "DejaVu Sans Mono"

typedef struct {
	const char *id;    /**< unique within the graph */
	const char *label; /**< text shown; "\n" separates lines */
	const char *group; /**< layer name that picks the pastel fill colour:
			        "python", "bridge", "yaml", "cpp", "meta",
			        "stub", "kernel", "cuda", "backward",
			        "decomposition"; NULL or another name: grey */
	const char *url;   /**< optional link (SVG <a>), NULL for none; kept
			        as given (relative stays relative), with '\',
			        spaces, controls, '"', '<', '>' percent-encoded
			        and '&' written as "&amp;" (Graphviz 2.43 puts
			        the URL into the SVG without escaping it) */
	bool missing;      /**< drawn dashed: a "not found" step */
} ot_graph_node;

typedef struct {
	const char *from, *to; /**< node ids */
	const char *label;     /**< NULL for none */
	bool dashed;           /**< e.g. the backward edge */
} ot_graph_edge;

typedef struct {
	const char *title; /**< graph label, may be NULL */
	const ot_graph_node *nodes;
	size_t nnodes;
	const ot_graph_edge *edges;
	size_t nedges;
} ot_graph;

/**
 * Render `g`: DOT text into `dot` and SVG into `svg` (either may be NULL;
 * no layout is done without `svg`). Both are replaced, not appended to.
 * Errors: an edge naming an unknown node, a node id that is NULL, empty or
 * used twice, a Graphviz failure (its messages are in the error text;
 * nothing is printed). Thread-safe (internally serialised).
 */
int ot_graph_render(ot_buf *dot, ot_buf *svg, const ot_graph *g);

/** "graphviz X.Y.Z", for --version. Borrowed. */
const char *ot_graph_library_version(void);

#endif
