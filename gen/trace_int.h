/*
 * trace_int.h - what the builders of a trace share (tracer.c, trace_py.c,
 * trace_cpp.c, trace_back.c): the tracer's state and one op's build
 * context. Not for renderers: they read trace.h only.
 */
#ifndef OT_TRACE_INT_H
#define OT_TRACE_INT_H

#include "autograd.h"
#include "body.h"
#include "trace.h"

struct ot_tracer {
	const ot_registry *reg;
	const ot_index *ix;
	const ot_wellknown *wk;
	ot_tracer_opts opts;
	const ot_build *build;
	int64_t f_native, f_deriv, f_vf, f_init, f_tensor, f_view_copy, f_view_copy_kernel;
	/* TensorIterator.cpp and its lines where the CPU converts an input of
	 * another dtype: `if (common_device == kCPU)`, the test of the input's
	 * dtype, `op.tensor().to(...)` */
	int64_t f_tensor_iter;
	uint32_t ti_cpu_line, ti_differs_line, ti_promote_line;
	ot_arena *arena;
	ot_strvec cand[OT_STRAT_COUNT]; /* "did you mean" candidates per strategy */
	ot_callkinds *ck;
	ot_autograd *autograd;
	ot_bodies *bodies; /* the fingerprints of main-path definitions, made once */
	ot_map *py_hidden; /* overloads Python never binds ("div.Scalar": the
			      generator's SKIP_PYTHON_BINDINGS_SIGNATURES) */
};

/* What a caller passes for each parameter of a function it reaches: a
 * literal ("true", "None", "3"), "?" when passed but not known, or NULL
 * when not passed (the default applies). */
#define TB_MAX_PARAMS 32
typedef struct {
	const char *value[TB_MAX_PARAMS];
	const ot_ix_stub *stub[TB_MAX_PARAMS]; /* a DispatchStub passed (allany_impl(..., or_stub)) */
	const ot_reg_func *fn[TB_MAX_PARAMS];  /* an op's function passed (unary_op_impl(self, at::abs_out)) */
	bool wrapped[TB_MAX_PARAMS]; /* a Scalar wrapped as a 0-dim Tensor
					(wrapped_scalar_tensor(s)): a double, int64,
					bool or complex one, never float32 */
	size_t n;
	bool known; /* the caller's arguments were read */
	bool sure;  /* made by a call every default call makes (tb_call_sure):
		       wins over another caller's (tb_entry) */
	bool outs_fresh; /* a functional or in-place call of a structured op:
			    the out= arguments it leaves out are the meta
			    function's fresh, contiguous outputs */
	ot_ck_subst subst; /* what its template parameters stand for there */
} tb_binding;

/* An entry to expand: its node, its registry entry, its depth. */
struct tb_pending {
	uint32_t node;
	const ot_reg_func *f;
	int depth;
};

/* Per-node build state, beside tr->nodes. */
struct tb_state {
	bool expanded;    /* its body or entry was explored */
	bool interesting; /* something worth showing is beneath it */
	bool dropped;     /* a helper or Python function with nothing beneath */
	tb_binding binding; /* what its first caller passed */
	bool bound_by_call; /* a call's arguments, not only defaults */
	bool queued;        /* an entry waiting for tb_expand_entry */
	uint32_t queue_at;  /* then its index in tb_ctx.queue */
	bool backward_done; /* an entry's derivative was added (tb_backward) */
	bool backward_only; /* an entry only a backward formula (or what it runs)
			       reaches: its own derivative is a double backward */
	uint8_t sure;       /* OT_MAIN_*: every default call on that device runs
			       it, as far as the edges made so far show (the
			       main root, then edges taken exactly and always) */
	uint32_t first_out; /* its first outgoing edge + 1 (tb_ctx.next_out) */
	/* a body explored (explore_body's arguments, to explore it again) */
	const ot_ix_cdef *def;
	const char *def_op;
	int def_depth, def_level;
	bool def_in_backward, def_bound;
	uint8_t cut_want; /* OT_MAIN_*: calls past --depth not followed
			     because it was not sure there (yet) */
	bool helper_cut;  /* helpers past --helper-depth not followed: read
			     again when reached at a shallower level */
	bool depth_cut;   /* calls past --depth not followed (tb_depth_allows):
			     read again when reached by fewer branches */
};

/* How much deeper than --depth (when it is not 0) the calls every default
 * call makes are followed (the main path gets to its kernels; side
 * branches stop at --depth). */
#define TB_SURE_EXTRA_DEPTH 2

/* How much deeper than --helper-depth the helpers of a template read with
 * its arguments are followed (_rnn_impl -> apply_layer_stack ->
 * FullLayer::operator() -> GRUCell::operator() -> CellParams::linear_ih:
 * the plumbing of class templates is deep, and rare); value arguments
 * count too (slow_conv_dilated_all_cpu_template<scalar_t, 3>: its im2col
 * and gemm calls). */
#define TB_SUBST_EXTRA_DEPTH 4

struct tb_ctx {
	const ot_tracer *t;
	const ot_index *ix;
	ot_trace *tr;
	ot_arena *a;       /* the trace's: what the model keeps */
	ot_arena *scratch; /* freed when the op is traced: bindings, classifications, keys */
	ot_map *keys;   /* node identity -> index + 1 */
	ot_map *edges;  /* edge identity -> 1 */
	ot_map *paths;  /* file path -> the trace's copy */
	OT_VEC(struct tb_state) state;
	OT_VEC(struct tb_pending) queue;
	OT_VEC(uint32_t) next_out; /* per edge: the next edge from its source + 1 */
	OT_VEC(uint32_t) revisit;  /* bodies to explore again: sure now where
				      calls were cut (tb_revisit) */
	OT_VEC(uint32_t) sure_work; /* add_sure's worklist, kept between calls */
	OT_VEC(uint32_t) sure_first; /* queue indexes of entries that became
					sure while waiting: expanded first, so
					that a default call's arguments are
					what their bodies are read with */
	size_t sure_next;            /* the next of them to look at */
	int max_depth;
	bool in_backward; /* building what a backward formula runs: the entries
			     made now are autograd's, with no derivative of their own */
};

/* ---- nodes and edges (tracer.c) ------------------------------------------------- */

/* The node of identity (kind, src, extra), made from `proto` when new
 * (*is_new then true; is_new may be NULL). `file` is proto->file's index
 * id: the line must contain the symbol, and when it does not (a scanner
 * bug) no node is made, a message says so, and -1 comes back. */
long tb_node(struct tb_ctx *c, const ot_node *proto, uint32_t file, const void *src,
	     const char *extra, bool *is_new);

/* The node of identity (kind, src, extra) when it exists, else -1. */
long tb_lookup(struct tb_ctx *c, uint8_t kind, const void *src, const char *extra);

/* A "not found" node for `what` in `where`. */
uint32_t tb_missing(struct tb_ctx *c, ot_layer layer, const char *what, const char *where,
		    const char *op, int depth);

/* Add an edge (once per from, to, kind and site); the node it leads to
 * is sure where its source is and the edge is always taken. */
void tb_edge(struct tb_ctx *c, const ot_edge *e);

/* What tb_edge(c, e) would make sure of e->to, done ahead: a helper's
 * edge is added after its body is explored, and only when something worth
 * showing is beneath; the body is explored knowing whether it is sure. */
void tb_presume_sure(struct tb_ctx *c, const ot_edge *e);

/* Mark the main roots sure on every device, and what the edges made so
 * far (the Python half) make sure from them. */
void tb_seed_sure(struct tb_ctx *c);

/* May a call at `depth` + 1 from `node` be followed? Within --depth, or,
 * up to TB_SURE_EXTRA_DEPTH further (not with --depth 0), when `node` is
 * sure on a device whose verdict in `v` is an unconditional TRUE. A call
 * refused only because `node` is not sure yet is remembered: when it
 * becomes sure there, its body is explored again (tb_revisit). */
bool tb_depth_allows(struct tb_ctx *c, uint32_t node, const ot_verdict v[OT_DEV_COUNT], int depth);

/* Does every default call (on some device) make a call from `node` whose
 * verdicts are `v`: node sure there and v an unconditional TRUE? */
bool tb_call_sure(struct tb_ctx *c, uint32_t node, const ot_verdict v[OT_DEV_COUNT]);

/* An edge taken on both devices, with no condition. */
ot_edge tb_always(uint8_t kind, uint32_t from, uint32_t to);

/* Set e->reach, e->cond and the condition shown from per-device verdicts
 * (`guard_kind`: what a failing condition is, OT_WHEN_GUARD or BUILD). */
void tb_reach(struct tb_ctx *c, ot_edge *e, const ot_verdict v[OT_DEV_COUNT], uint8_t guard_kind,
	      const char *file);

/* Say why edge e is not taken on `dev` (reach NEVER, kind, text). */
void tb_never(ot_edge *e, ot_device dev, uint8_t kind, const char *text);

/* The trace's copy of path `p` (one per path). */
const char *tb_path(struct tb_ctx *c, const char *p);
const char *tb_fpath(struct tb_ctx *c, uint32_t file);

struct tb_state *tb_state(struct tb_ctx *c, uint32_t node);

void tb_message(struct tb_ctx *c, const char *fmt, ...) OT_PRINTF(2, 3);

/* Queue entry node `node` (registry entry f) for expansion at `depth`. */
void tb_queue(struct tb_ctx *c, uint32_t node, const ot_reg_func *f, int depth);

/* The ENTRY node of overload f reached at `depth`, with what the caller
 * passes (NULL: a call with its defaults); queued for expansion when new,
 * within the depth (--depth, and TB_SURE_EXTRA_DEPTH more for a call
 * tb_depth_allows), not well-known and `expand`. */
/* What the kernel of entry f receives: the caller's arguments `b`, and the
 * schema's defaults for the others ("undefined" for an absent Tensor). */
void tb_kernel_binding(const ot_reg_func *f, const tb_binding *b, tb_binding *out);

uint32_t tb_entry(struct tb_ctx *c, const ot_reg_func *f, int depth, const tb_binding *b,
		  bool expand);

/* Is `name` a well-known op whose page is the reference's (not followed)? */
bool tb_wellknown_stop(const struct tb_ctx *c, const char *name);

/** The text shown for a verdict: its condition ("not (x)" when it decided
 * by failing), and the second one it runs under when there is one ("a and
 * b"); NULL when it has none. */
const char *tb_verdict_text(struct tb_ctx *c, const ot_verdict *v);

/* The dispatch key whose kernel a dense float32 tensor on `dev` takes, of
 * entry f's table (NULL: none; the call would fail there). */
const char *tb_resolved_key(const ot_reg_func *f, ot_device dev);

/* `dispatch: {}`: f's table registers no kernel for any key. */
bool tb_dispatch_empty(const ot_reg_func *f);

/* ---- the builders -------------------------------------------------------------------- */

/* trace_py.c: the Python half, from the roots of each strategy. Returns
 * false when the op's Python entry point does not exist. */
bool tb_start(struct tb_ctx *c);

/* trace_cpp.c: expand a queued entry (dispatch, kernels, stubs, libraries). */
void tb_expand_entry(struct tb_ctx *c, const struct tb_pending *p);

/* trace_cpp.c: explore again the bodies that became sure where calls of
 * theirs were cut (tb_depth_allows), with the arguments they had. */
void tb_revisit(struct tb_ctx *c);

/* trace_back.c: the backward of an entry node. */
void tb_backward(struct tb_ctx *c, uint32_t entry, const ot_reg_func *f, const ot_reg_func *eff,
		 int depth);

/* trace_back.c: decompositions of op `base` under entry node `entry`. */
void tb_decompositions(struct tb_ctx *c, uint32_t entry, const char *base, const char *op,
		       int depth);

/* A schema default as a literal for the conditions ("None", "false", "3"). */
const char *tb_literal_of_default(const char *def);

#endif
