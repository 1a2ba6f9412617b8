/*
 * pyflow.h - a Python function's body as the tracer reads it: its
 * parameters, the conditions each line runs under (if / elif / else, the
 * rest of a block after an arm that returns or raises, except), the calls
 * with their arguments, and the assignments of locals.
 *
 * Read on demand from the code view of the indexed file (the scanner keeps
 * only definitions and the names they reference); conditions are quoted
 * from the original text, comments removed.
 */
#ifndef OT_PYFLOW_H
#define OT_PYFLOW_H

#include "index.h"

typedef enum {
	OT_PYG_IF,     /**< if text: */
	OT_PYG_ELIF,   /**< elif text: (prev: the arm before) */
	OT_PYG_ELSE,   /**< else: of an if chain (prev: the arm before) */
	OT_PYG_AFTER,  /**< after an if chain one of whose arms returns or raises:
			    none of those arms was taken (prev: the chain's last arm) */
	OT_PYG_EXCEPT  /**< except ...: runs only when the try block raised */
} ot_pyguard_kind;

typedef struct {
	const char *text; /**< the condition as written, or NULL */
	uint32_t line;
	int parent, prev; /**< indices in the flow's guards, or -1 */
	uint8_t kind;     /**< ot_pyguard_kind */
	bool exits;       /**< the arm returns at its top level */
	bool raises;      /**< the arm raises at its top level */
} ot_pyguard;

#define OT_PYFLOW_MAX_ARGS 24

typedef struct {
	const ot_ix_pyref *ref; /**< the index's record of the call */
	int guard;              /**< the innermost guard it runs under, or -1 */
	int npos;               /**< positional arguments; -1 with *args */
	const char *pos[OT_PYFLOW_MAX_ARGS];     /**< their text */
	const char *kw[OT_PYFLOW_MAX_ARGS];      /**< keyword names */
	const char *kwval[OT_PYFLOW_MAX_ARGS];   /**< and their values' text */
	size_t nkw;
	bool star_kwargs;       /**< **kwargs passed on */
} ot_pycall;

typedef struct {
	const char *name;  /**< the local (or self.attr) assigned */
	const char *value; /**< the right-hand side as written, or NULL (unpacking) */
	uint32_t line;
	int guard;
} ot_pyassign;

typedef struct {
	const char *name;
	const char *annotation; /**< or NULL */
	const char *def;        /**< default as written, or NULL */
	bool kw_only;
} ot_pyparam;

typedef struct {
	const ot_ix_pydef *def;
	OT_VEC(ot_pyparam) params;
	OT_VEC(ot_pyguard) guards;
	OT_VEC(ot_pycall) calls;     /**< one per call ref of def, in ref order */
	OT_VEC(ot_pyassign) assigns; /**< in line order */
} ot_pyflow;

/** Read the body of `def` (a def or an assignment; a class gives no calls).
 * Strings live in `arena`. Release with ot_pyflow_free. */
void ot_pyflow_read(ot_pyflow *out, const ot_index *ix, const ot_ix_pydef *def, ot_arena *arena);

void ot_pyflow_free(ot_pyflow *f);

/** The call record of ref `r` of the flow's def, or NULL. */
const ot_pycall *ot_pyflow_call(const ot_pyflow *f, const ot_ix_pyref *r);

/** The parameter `name`, or NULL. */
const ot_pyparam *ot_pyflow_param(const ot_pyflow *f, const char *name);

#endif
