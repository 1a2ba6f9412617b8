/*
 * resolve.h - what the user wrote, normalised (SPEC §1).
 *
 * Every input form maps to a strategy (where the trace starts) and a name:
 *
 *   nn.LSTM, torch.nn.LSTM                     module      "LSTM"
 *   F.x, torch.nn.functional.x, nn.functional.x functional "x"
 *   Tensor.x, torch.Tensor.x                   method      "x"
 *   torch.x                                    torch       "x"
 *   torch.linalg.x (fft, special, nested, sparse) torch    "x", submodule "linalg"
 *   aten::x, aten::x.ov, torch.ops.aten.x[.ov] aten        "x", overload "ov"
 *   x (a bare name)                            torch       "x"
 *
 * This module only looks at the text; whether the op exists is the
 * tracer's question (it has the registry and the index).
 */
#ifndef OT_RESOLVE_H
#define OT_RESOLVE_H

#include "common.h"

typedef enum {
	OT_STRAT_MODULE,
	OT_STRAT_FUNCTIONAL,
	OT_STRAT_METHOD,
	OT_STRAT_TORCH,
	OT_STRAT_ATEN,
	OT_STRAT_COUNT
} ot_strategy;

typedef struct {
	ot_strategy strategy;
	char name[128];      /**< "LSTM", "cross_entropy", "norm", "add" */
	char submodule[16];  /**< torch strategy: "linalg", "fft", "special",
				  "nested", "sparse"; else "" */
	char overload[64];   /**< aten strategy: "out", "Tensor"; else "" */
	char canonical[200]; /**< one spelling per op: "nn.LSTM", "F.cross_entropy",
				  "Tensor.view", "torch.linalg.norm", "aten::add.out" */
	char slug[96];       /**< page name: [a-z0-9_-], starts with a letter */
} ot_target;

/**
 * Parse an op name. Errors (OT_ERROR, message says why): empty, a form
 * that names no op ("torch.", "nn.", "aten::"), a name that is not an
 * identifier.
 */
int ot_resolve_parse(ot_target *out, const char *input);

/** Short id used in JSON: "module", "functional", "method", "torch", "aten". */
const char *ot_strategy_id(ot_strategy s);

/**
 * The aten base name a torch-namespace target maps to: "linalg_norm" for
 * torch.linalg.norm, "special_erf" for torch.special.erf, "fft_fft" for
 * torch.fft.fft, the name itself otherwise. Writes into `out` (size n).
 */
void ot_resolve_aten_name(char *out, size_t n, const ot_target *t);

/**
 * The up to `max` candidates nearest to `word` by edit distance
 * (case-insensitive, ties broken by name), written to `out` (borrowed
 * pointers into `candidates`). Candidates farther than a third of the
 * word's length plus 2 are not suggested. Returns how many were written.
 */
size_t ot_resolve_suggest(const char **out, size_t max, const char *word,
			  const char *const *candidates, size_t ncandidates);

#endif
