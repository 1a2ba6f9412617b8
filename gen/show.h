/*
 * show.h - one op's trace as text for a terminal (optrace show OP), as
 * `git show` prints a commit:
 *
 *   nn.LSTM  (module, traced)
 *   aten: lstm.input, lstm.data
 *
 *   CPU main path
 *     python   class LSTM                  torch/nn/modules/rnn.py:795
 *     yaml     lstm.input                  aten/src/ATen/native/native_functions.yaml:7854
 *     ...
 *              when use_mkldnn(input)      <- a run-time selection on the path
 *   CUDA main path
 *     ...
 *   Other paths
 *     when use_cudnn(input)
 *       cuda   cudnn_rnn                   ...
 *   Backward
 *     backward lstm.input: ...             tools/autograd/derivatives.yaml:2443
 *
 * What is on a main path is read from each step's `main` bits only, and a
 * condition from its `when` only (the tracer decides both): a step of a
 * main path whose `when` is set is a run-time selection, shown with its
 * condition; a step on no main path is shown under the condition of the
 * nearest step, itself or one it was reached through, that has one
 * ("reached otherwise" when none has). Backward steps form their own
 * section. A step that was not found shows its "not found: ..." note.
 */
#ifndef OT_SHOW_H
#define OT_SHOW_H

#include "buf.h"
#include "trace.h"

/**
 * Append the text of `tr` to `out`. With `color`, headings, layers,
 * places, conditions and misses carry ANSI SGR colours (the caller decides:
 * a terminal, and NO_COLOR unset); without, the text is plain ASCII apart
 * from what the source itself holds. Never fails.
 */
void ot_show_render(ot_buf *out, const ot_trace *tr, bool color);

#endif
