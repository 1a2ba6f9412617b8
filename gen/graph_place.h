/*
 * graph_place.h - where the nodes of a diagram go when dot draws it too
 * wide (used by graph.c only; no Graphviz here).
 *
 * dot centres every node under the nodes that lead to it, so a call tree
 * with many branches spreads far to the sides however its ranks are cut.
 * This places the nodes itself, within a width: rows top to bottom, each
 * node in the first row below every node with an edge to it that still has
 * room (main-path nodes first, then in the given order); in each row the
 * nodes are ordered by where the nodes leading to them are and kept as
 * near below them as the row allows. The edges are routed here too, down
 * through the gaps of the rows they cross, each as a Bézier curve that
 * leaves its node's bottom and enters the other's top vertically (an edge
 * that closes a cycle runs upwards, a loop on the node's right), its label
 * beside its end; Graphviz then only draws them.
 */
#ifndef OT_GRAPH_PLACE_H
#define OT_GRAPH_PLACE_H

#include "common.h"

/** The diagram as placement sees it. Arrays are borrowed. */
typedef struct {
	size_t nnodes, nedges;
	const size_t *from, *to;      /**< per edge: node indices (< nnodes) */
	const bool *main;             /**< per node: on the main path */
	const double *width, *height; /**< per node: its box, in points */
	const double *label_width;    /**< per edge: its label's box, 0 for none */
	const double *label_height;
	double gap;     /**< space between two nodes of a row, in points */
	double ranksep; /**< space between two rows (their labels aside) */
} ot_graph_place_in;

/** The drawing of one edge, in points, y growing downwards. */
typedef struct {
	double *pts;   /**< x, y pairs of a cubic Bézier spline (3n + 1 points),
			    ending where the arrowhead starts */
	size_t npts;
	double tip_x, tip_y;     /**< where the arrowhead points */
	double label_x, label_y; /**< the label's centre (when it has one) */
} ot_graph_route;

/** Where every node goes. */
typedef struct {
	int *row;       /**< per node: its row, from 0 at the top */
	int nrows;
	double *x, *y;  /**< per node: its centre, in points, y growing downwards */
	ot_graph_route *routes; /**< per edge */
	size_t nroutes;
	double width;   /**< the extent of the nodes and labels, in points */
} ot_graph_placed;

/** The length of an arrowhead Graphviz draws (arrowsize 1), in points. */
#define OT_GRAPH_ARROW 10.0

/**
 * Place the nodes of `in` in rows at most `width` points wide (a row holds
 * at least one node, however wide). Edges that close a cycle (a depth-first
 * walk in node order finds them) and loops do not order the rows. `out` is
 * filled (free it with ot_graph_place_free). Never fails.
 */
void ot_graph_place(ot_graph_placed *out, const ot_graph_place_in *in, double width);

/** Free what ot_graph_place allocated. NULL is a no-op. */
void ot_graph_place_free(ot_graph_placed *p);

#endif
