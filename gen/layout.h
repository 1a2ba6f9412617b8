/*
 * layout.h - every op's diagram drawn at once, on several cores.
 *
 * Graphviz is not thread-safe (graph.c runs it under one process-wide
 * lock), and laying out the diagrams is most of a full run's time. So with
 * more than one job the diagrams are drawn by forked worker processes, each
 * taking every jobs-th diagram and sending DOT and SVG back through a pipe;
 * drawing is the same code in either process, so the bytes are the same as
 * one process would draw. A worker that cannot be started or dies leaves
 * its diagrams to be drawn here, in this process.
 *
 * Call it when no other thread of the process is running (between the
 * phases of a run): a forked child holds only the calling thread.
 */
#ifndef OT_LAYOUT_H
#define OT_LAYOUT_H

#include "buf.h"
#include "common.h"

/** One diagram: `status` 1 drawn, 0 nothing to draw, OT_ERROR failed. */
typedef struct {
	int status;
	ot_buf dot, svg;
} ot_diagram;

/** Draw diagram `i` into dot and svg (replaced); returns as ot_diagram.status. */
typedef int (*ot_draw_fn)(size_t i, void *payload, ot_buf *dot, ot_buf *svg);

/**
 * Draw diagrams 0..n-1 into out[0..n-1] (zeroed by the caller) with up to
 * `jobs` worker processes (1: all in this process). `tick`, when not NULL,
 * is called once per diagram as it arrives, from one thread at a time.
 * Never fails as a whole: each diagram's own status says how it went.
 */
void ot_layout_all(size_t n, int jobs, ot_draw_fn draw, void *payload, void (*tick)(void *),
		   void *tick_payload, ot_diagram *out);

void ot_diagrams_free(ot_diagram *d, size_t n);

#endif
