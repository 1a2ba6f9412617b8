/*
 * autograd.h - where an op's gradient comes from (the backward layer of
 * SPEC §3).
 *
 * An overload with a derivatives.yaml entry has its formulas. For one
 * without, the autograd code generator of that release decides, and this
 * module applies its rules as the release's own sources state them
 * (tools/autograd/gen_variable_type.py, gen_trace_type.py,
 * torchgen/api/autograd.py, indexed as text): a hand-written autograd kernel
 * (VariableTypeManual.cpp), a view_copy op taking its view's formula, a
 * _foreach op derived from its per-tensor op, an out= or in-place variant
 * taking its functional overload's, CompositeImplicitAutograd (the ops it is
 * built from are differentiated), outputs that never require grad
 * (DONT_REQUIRE_DERIVATIVE, no Tensor in or out), or else the NotImplemented
 * autograd kernel. Every answer is a line of the tree, never a guess: when a
 * rule's source line is missing, there is no answer.
 */
#ifndef OT_AUTOGRAD_H
#define OT_AUTOGRAD_H

#include "common.h"
#include "index.h"
#include "registry.h"

typedef struct ot_autograd ot_autograd;

/** The answer for one overload: a formula, or a fact at a line. */
typedef struct {
	/** The entry whose formulas give the gradient (its own, or the one
	 * it takes), or NULL. */
	const ot_reg_deriv *formula;
	/** For a fact: the file (index id), 1-based line, the symbol on it. */
	int64_t file;
	uint32_t line;
	const char *symbol;
	/** What it means: for a formula, the prefix of its note
	 * ("derivatives.yaml:", "in-place add_ takes the formula of add:"). */
	const char *note;
} ot_autograd_answer;

/**
 * The code generator's rules, read from the index (borrowed, as is the
 * registry; both must outlive the result). A tree without the generator's
 * sources (the test fixture) gives rules that only know derivatives.yaml,
 * CompositeImplicitAutograd and the Tensor-less cases.
 */
ot_autograd *ot_autograd_new(const ot_index *ix, const ot_registry *reg);
void ot_autograd_free(ot_autograd *ag);

/**
 * Where the gradient of overload `f` comes from; `eff` is the entry whose
 * dispatch table gives its kernels (its structured delegate, or f). Strings
 * of the answer are in `arena`. False when no rule applies or its source
 * line is not in the tree.
 */
bool ot_autograd_explain(const ot_autograd *ag, const ot_reg_func *f, const ot_reg_func *eff,
			 ot_arena *arena, ot_autograd_answer *out);

#endif
