/*
 * pathview.h — what a page tells of a trace: the forward main path of a
 * default call on each device, the backward that carries its gradient,
 * and every other step in a group named by the condition it runs under
 * (sparse, nested, another build, ...).
 *
 * It reads only the tracer's own marks (ot_step.main, .when, .layer,
 * .backend, .parent); it decides nothing the tracer did not. Every output
 * (overview, layers, summary, diagram, "Other paths") reads this one view.
 */
#ifndef OT_PATHVIEW_H
#define OT_PATHVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/** Where a step belongs on the page. */
typedef enum {
	OT_PART_MAIN,          /**< forward, on a main path (some ot_step.main bit) */
	OT_PART_BACKWARD,      /**< a derivative on a main path, or what it runs */
	OT_PART_DECOMPOSITION, /**< a decomposition (torch._decomp, refs): no run path */
	OT_PART_OTHER,         /**< off every main path: see the group */
	OT_PART_UNRECORDED,    /**< a derivative autograd never records for this op
				    (its entry is off the main paths, or reached only
				    below autograd, inside another op's kernel), and
				    what it runs: on no page */
} ot_part;

/** The condition an off-main step runs under, in the order pages list them. */
typedef enum {
	OT_OTHER_ARGS,       /**< an argument, shape or dtype condition of the source */
	OT_OTHER_OVERLOAD,   /**< another overload of the op, asked for by name */
	OT_OTHER_SPARSE,
	OT_OTHER_NESTED,
	OT_OTHER_QUANTIZED,
	OT_OTHER_MKLDNN,     /**< oneDNN (mkldnn) tensors */
	OT_OTHER_MPS,
	OT_OTHER_XPU,
	OT_OTHER_ROCM,
	OT_OTHER_BACKEND,    /**< another dispatch key (Meta, Lazy, ZeroTensor, ...) */
	OT_OTHER_BUILD,      /**< another build (#if, a library not built in) */
	OT_OTHER_ERROR,      /**< an error path: validation, autograd refusing */
	OT_OTHER_BY_NAME,    /**< a call matched by name only: maybe none at all */
	OT_OTHER_UNCONDITIONED, /**< off the main paths with no condition written */
	OT_OTHER_COUNT
} ot_other_group;

typedef struct {
	size_t n;          /**< = the trace's steps.len */
	uint8_t *part;     /**< per step: ot_part */
	uint8_t *group;    /**< per step: ot_other_group (for OT_PART_OTHER) */
	int *derivative;   /**< per OT_PART_BACKWARD step: the derivatives.yaml
			        step it runs under (itself for one), -1 for none */
	uint8_t *bookkeeping; /**< per step: OT_BOOKKEEPING_CALL for a call that
				   does no work of the op's own: allocates or resizes
				   a tensor (empty, empty_like, resize_, ...) or makes
				   a view (view, transpose, select, ...);
				   OT_BOOKKEEPING_BELOW for what such a call runs;
				   else 0. All 0 when the op is itself one. */
} ot_pathview;

/** ot_pathview.bookkeeping: such a call, and the steps below it. */
enum { OT_BOOKKEEPING_CALL = 1, OT_BOOKKEEPING_BELOW = 2 };

/** Classify every step of `tr` into `v` (owned; ot_pathview_free). */
void ot_pathview_build(ot_pathview *v, const ot_trace *tr);

void ot_pathview_free(ot_pathview *v);

/** "Sparse tensors", "Another build", ...: the heading of a group. */
const char *ot_other_group_title(ot_other_group g);

/** True for a step's symbol that names a bookkeeping op: at::empty,
 * at::native::empty_like, out.resize_, self.view; with `registry_entry`, an
 * entry of native_functions.yaml (empty.memory_format). */
bool ot_symbol_is_bookkeeping(const char *symbol, bool registry_entry);

/** True for a step in derivatives.yaml (an entry autograd records). */
bool ot_step_is_derivative(const ot_step *s);

#endif
