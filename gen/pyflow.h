/*
 * pyflow.h - a Python function's body as the tracer reads it: its
 * parameters, the conditions each line runs under (if / elif / else, the
 * rest of a block after an arm that returns or raises, except), the calls
 * with their arguments, and the assignments of locals.
 *
 * Guards are ot_ix_guard records (records.h), numbered from 1 as in C++
 * bodies: if / elif / else arms (IF, ELSE_IF, ELSE), the rest of a block
 * after an arm that returns or raises (AFTER), and except blocks (EXCEPT).
 *
 * Read on demand from the code view of the indexed file (the scanner keeps
 * only definitions and the names they reference); conditions are quoted
 * from the original text, comments removed.
 */
#ifndef OT_PYFLOW_H
#define OT_PYFLOW_H

#include "index.h"


#define OT_PYFLOW_MAX_ARGS 24

typedef struct {
	const ot_ix_pyref *ref; /**< the index's record of the call */
	uint16_t guard;         /**< the innermost guard it runs under, or 0 */
	int npos;               /**< positional arguments; -1 with *args */
	const char *pos[OT_PYFLOW_MAX_ARGS];     /**< their text */
	const char *kw[OT_PYFLOW_MAX_ARGS];      /**< keyword names */
	const char *kwval[OT_PYFLOW_MAX_ARGS];   /**< and their values' text */
	size_t nkw;
	bool star_kwargs;       /**< **kwargs passed on */
	bool default_call;      /**< not a call in the code: the user's own call of
				     a binding the function is (conv2d =
				     _add_docstr(torch.conv2d, ...)), which
				     passes the required arguments only */
	const char *text;       /**< an operator or a subscript as written
				     (`q * k`, `proj[0]`), else NULL */
	uint16_t cond_guard;    /**< the if/elif whose condition the call is an operand
				     of (`x is not None and f(x)`: its `and`/`or`
				     may skip it), or 0 */
	const char *receiver;   /**< a method called on what a call or an index
				     gave (ref path ".g" of `x.f(a).g(b)`): that
				     expression's text ("x.f(a)"), else NULL */
} ot_pycall;

typedef struct {
	const char *name;  /**< the local (or self.attr) assigned */
	const char *value; /**< the right-hand side as written, or NULL (unpacking) */
	uint32_t line;
	uint16_t guard;
} ot_pyassign;

typedef struct {
	const char *name;
	const char *annotation; /**< or NULL */
	const char *def;        /**< default as written, or NULL */
	bool kw_only;
	bool star;              /**< *args: a tuple of what the call passes */
} ot_pyparam;

typedef struct {
	const ot_ix_pydef *def;
	OT_VEC(ot_pyparam) params;
	OT_VEC(ot_ix_guard) guards;
	OT_VEC(ot_pycall) calls;     /**< one per call ref of def, in ref order */
	OT_VEC(ot_pyassign) assigns; /**< in line order */
	const char *returns;         /**< the return annotation (`-> Tensor`), or NULL */
} ot_pyflow;

/** Read the body of `def` (a def or an assignment; a class gives no calls).
 * Strings live in `arena`. Release with ot_pyflow_free. */
void ot_pyflow_read(ot_pyflow *out, const ot_index *ix, const ot_ix_pydef *def, ot_arena *arena);

/** The return annotation of def `def` as written ("Tensor", "Tuple[Tensor,
 * Tensor]"), or NULL when it has none; reads the header only. */
const char *ot_pyflow_returns(const ot_index *ix, const ot_ix_pydef *def, ot_arena *arena);

void ot_pyflow_free(ot_pyflow *f);

/** The call record of ref `r` of the flow's def, or NULL. */
const ot_pycall *ot_pyflow_call(const ot_pyflow *f, const ot_ix_pyref *r);

/** The parameter `name`, or NULL. */
const ot_pyparam *ot_pyflow_param(const ot_pyflow *f, const char *name);

#endif
