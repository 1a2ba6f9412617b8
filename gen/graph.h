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
 * prints) run before Graphviz lays the graph out, so a diagram dot draws
 * holds no coordinates and depends only on the input. A placed diagram
 * (below) holds the positions optrace gave its nodes and edges, computed
 * from text sizes measured once with the font. The SVG's geometry comes
 * from the pango text layout plugin and fontconfig (fonts-dejavu-core
 * provides the font); it is identical across runs and processes on one
 * machine image.
 *
 * Labels, titles and tooltips render literally ('"', '\', '<', '{', '|',
 * '&', "\N"...); a newline in a label is a centred line break. One exception
 * Graphviz 2.43 forces: in a tooltip (the SVG link title, set for nodes
 * with a URL) a backslash before G, N, E, H, T or L is substituted.
 *
 * Readable in a docs column: the diagram is drawn top to bottom, a label
 * line longer than OT_GRAPH_WRAP characters is wrapped (after "::", '/',
 * a space, ',', '(', '<', '.', '_' where one is near, else cut), and it is
 * at most OT_GRAPH_MAX_WIDTH points wide: a diagram dot would draw wider
 * (or whose longest-path ranks alone are wider) is placed by
 * graph_place.h instead, in rows of bounded width with its edges routed
 * through the rows' gaps, and Graphviz only draws it ("nop2"). Its SVG has
 * the same nodes and edges, in the same order, as dot's would.
 *
 * Graphviz layout is not thread-safe: ot_graph_render serialises callers
 * with a process-wide lock.
 */
#ifndef OT_GRAPH_H
#define OT_GRAPH_H

#include "buf.h"
#include "common.h"

#define OT_GRAPH_FONT "DejaVu Sans Mono"

/** The widest diagram drawn, in points (the SVG's width attribute). */
#define OT_GRAPH_MAX_WIDTH 1000

/** Label lines longer than this many characters are wrapped. */
#define OT_GRAPH_WRAP 36

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
	bool main;         /**< on the main path: a bold border, and the main
			        nodes are kept in one straight column where
			        they can be (Graphviz's "group") */
	size_t folded;     /**< > 0: a folded node standing for that many steps
			        of a side path; drawn "+N more" above
			        "(label)", dotted, on white */
} ot_graph_node;

typedef enum {
	OT_GRAPH_CALL = 0, /**< a plain call: solid */
	OT_GRAPH_MAIN,     /**< the main path, the diagram's spine: bold, and
			        kept straighter than any other edge */
	OT_GRAPH_SIDE,     /**< a side path: dashed, grey, labelled with its
			        condition (the edge's label) */
} ot_graph_edge_kind;

typedef struct {
	const char *from, *to; /**< node ids */
	const char *label;     /**< NULL for none; for a side edge, its condition */
	bool dashed;           /**< e.g. the backward edge */
	ot_graph_edge_kind kind;
} ot_graph_edge;

typedef struct {
	const char *title; /**< graph label, may be NULL */
	const ot_graph_node *nodes;
	size_t nnodes;
	const ot_graph_edge *edges;
	size_t nedges;
} ot_graph;

/**
 * Render `g`: DOT text into `dot` and SVG into `svg` (either may be NULL).
 * Both are replaced, not appended to. The DOT text is the graph that was
 * laid out (rows included), so it is the same whether or not `svg` is
 * asked for.
 * Errors: an edge naming an unknown node, a node id that is NULL, empty or
 * used twice, a Graphviz failure (its messages are in the error text;
 * nothing is printed). Thread-safe (internally serialised).
 */
int ot_graph_render(ot_buf *dot, ot_buf *svg, const ot_graph *g);

/**
 * The part of a repository path a label shows: below aten/src/ATen/native/
 * ("cudnn/RNN.cpp"), "ATen/..." for the rest of aten/src/, else the whole
 * path. Borrowed from `path` (a suffix of it, or itself).
 */
const char *ot_graph_path_label(const char *path);

/** "graphviz X.Y.Z", for --version. Borrowed. */
const char *ot_graph_library_version(void);

#endif
