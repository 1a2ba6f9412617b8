/*
 * graph.h - the call-chain diagram of an op, drawn with Graphviz.
 *
 * The only module that talks to cgraph/gvc. The caller describes nodes and
 * edges; this module builds the cgraph graph, writes its DOT text, lays it
 * out with `dot` and renders SVG. Output bytes are stable: a fixed font
 * (OT_GRAPH_FONT), no Graphviz version comment, nodes and edges in the
 * order given.
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
	const char *group; /**< layer name ("python", "yaml", "cpp", "stub",
			        "kernel", "cuda", "backward", ...) that picks the
			        fill colour; NULL for default */
	const char *url;   /**< optional link (SVG <a>), NULL for none */
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
 * Render `g`: DOT text into `dot` and SVG into `svg` (either may be NULL).
 * Both are replaced, not appended to. An edge naming an unknown node is an
 * error. Thread-safe (internally serialised).
 */
int ot_graph_render(ot_buf *dot, ot_buf *svg, const ot_graph *g);

/** "graphviz X.Y.Z", for --version. Borrowed. */
const char *ot_graph_library_version(void);

#endif
