/*
 * Tests of gen/show.c, the text of optrace show, on traces built by hand
 * whose steps have `main` and `when` set: the renderer reads only those to
 * tell the main paths and the conditions (the tracer decides them).
 */
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "show.h"
#include "testutil.h"

static ot_trace *new_trace(const char *input, ot_status status)
{
	ot_trace *tr = ot_calloc(1, sizeof(*tr));
	tr->arena = ot_arena_new();
	tr->input = input;
	ck_assert_int_eq(ot_resolve_parse(&tr->target, input), 0);
	tr->status = status;
	return tr;
}

static int step(ot_trace *tr, ot_layer layer, const char *file, uint32_t line, const char *symbol,
		unsigned main, const char *when, int parent)
{
	ot_step st = {0};
	st.layer = layer;
	st.found = file != NULL;
	st.file = file;
	st.line = line;
	st.symbol = symbol;
	st.note = file ? "" : ot_arena_printf(tr->arena, "not found: %s in the index", symbol);
	st.op = "";
	st.backend = "";
	st.parent = parent;
	st.main = (uint8_t)main;
	st.when = when;
	ot_vec_push(&tr->steps, st);
	return (int)tr->steps.len - 1;
}

/*
 * A convolution-shaped op: python -> yaml -> cpp, then the CPU kernel (on
 * the CPU path) and a cuDNN kernel selected by use_cudnn on the CUDA path,
 * a MIOpen branch off both paths, one step reached otherwise, a step not
 * found, and a backward entry.
 */
static ot_trace *conv_trace(void)
{
	ot_trace *tr = new_trace("F.conv2d", OT_STATUS_TRACED);
	unsigned both = OT_MAIN_CPU | OT_MAIN_CUDA;
	int py, yaml, cpp, mi;
	ot_vec_push(&tr->aten, "conv2d");
	ot_vec_push(&tr->gpu_libs, "cuDNN");
	py = step(tr, OT_LAYER_PYTHON, "torch/nn/functional.py", 10, "def conv2d", both, NULL, -1);
	yaml = step(tr, OT_LAYER_YAML, "aten/src/ATen/native/native_functions.yaml", 20, "conv2d",
		    both, NULL, py);
	cpp = step(tr, OT_LAYER_CPP, "aten/src/ATen/native/Convolution.cpp", 30, "_convolution", both,
		   NULL, yaml);
	step(tr, OT_LAYER_KERNEL, "aten/src/ATen/native/ConvolutionMM2d.cpp", 40, "slow_conv2d_forward_cpu",
	     OT_MAIN_CPU, "input.device().is_cpu()", cpp);
	step(tr, OT_LAYER_CUDA, "aten/src/ATen/native/cudnn/Conv_v7.cpp", 50, "cudnn_convolution",
	     OT_MAIN_CUDA, "params.use_cudnn(input, weight)", cpp);
	mi = step(tr, OT_LAYER_KERNEL, "aten/src/ATen/native/miopen/Conv_miopen.cpp", 60,
		  "miopen_convolution", 0, "params.use_miopen(input, bias)", cpp);
	step(tr, OT_LAYER_KERNEL, "aten/src/ATen/native/miopen/Conv_miopen.cpp", 70, "miopen_helper", 0,
	     NULL, mi);
	step(tr, OT_LAYER_DECOMPOSITION, "torch/_decomp/decompositions.py", 80, "conv_decomp", 0, NULL, -1);
	step(tr, OT_LAYER_STUB, NULL, 0, "slow_conv_stub", 0, NULL, cpp);
	step(tr, OT_LAYER_BACKWARD, "tools/autograd/derivatives.yaml", 90, "convolution_backward",
	     OT_MAIN_CPU | OT_MAIN_CUDA, NULL, yaml);
	/* the entry of an op run below another's autograd kernel: off the main
	 * paths, it records no gradient and is shown nowhere */
	step(tr, OT_LAYER_BACKWARD, "tools/autograd/derivatives.yaml", 95, "pow.Tensor_Scalar", 0, NULL, yaml);
	return tr;
}

static const char *after(const char *text, const char *what)
{
	const char *at = strstr(text, what);
	ck_assert_msg(at, "no '%s' in:\n%s", what, text);
	return at + strlen(what);
}

/* `a` comes before `b` in text, both present */
static void ordered(const char *text, const char *a, const char *b)
{
	const char *pa = strstr(text, a), *pb = strstr(text, b);
	ck_assert_msg(pa && pb && pa < pb, "'%s' does not come before '%s' in:\n%s", a, b, text);
}

START_TEST(sections_in_order)
{
	ot_trace *tr = conv_trace();
	ot_buf b = OT_BUF_INIT;
	ot_show_render(&b, tr, false);
	ck_assert(ot_starts_with(b.ptr, "F.conv2d  (functional, traced)\naten: conv2d\n"));
	ordered(b.ptr, "\nCPU main path\n", "\nCUDA main path\n");
	ordered(b.ptr, "\nCUDA main path\n", "\nOther paths\n");
	ordered(b.ptr, "\nOther paths\n", "\nBackward\n");
	ck_assert_msg(!strstr(b.ptr, "pow.Tensor_Scalar"), "%s", b.ptr);
	ck_assert(strstr(b.ptr, "GPU libraries: cuDNN\n"));
	ck_assert(!strchr(b.ptr, '\033'));
	ot_buf_free(&b);
	ot_trace_free(tr);
}
END_TEST

/* Each path holds its steps, by their bits, with function and file:line, and
 * a selection on it with its condition right below. */
START_TEST(main_paths_by_their_bits)
{
	ot_trace *tr = conv_trace();
	ot_buf b = OT_BUF_INIT, cpu = OT_BUF_INIT, cuda = OT_BUF_INIT;
	const char *s;
	ot_show_render(&b, tr, false);
	s = after(b.ptr, "\nCPU main path\n");
	ot_buf_put(&cpu, s, (size_t)(strstr(s, "\nCUDA main path") - s));
	s = after(b.ptr, "\nCUDA main path\n");
	ot_buf_put(&cuda, s, (size_t)(strstr(s, "\nOther paths") - s));

	ck_assert_msg(strstr(cpu.ptr, "  python        def conv2d  (torch/nn/functional.py:10)\n"), "%s",
		      cpu.ptr);
	ck_assert(strstr(cpu.ptr, "_convolution  (aten/src/ATen/native/Convolution.cpp:30)\n"));
	ck_assert(strstr(cpu.ptr, "slow_conv2d_forward_cpu  (aten/src/ATen/native/ConvolutionMM2d.cpp:40)\n"
				  "                when input.device().is_cpu()\n"));
	ck_assert(!strstr(cpu.ptr, "cudnn") && !strstr(cpu.ptr, "miopen"));

	ck_assert(strstr(cuda.ptr, "def conv2d"));
	ck_assert(strstr(cuda.ptr, "  cuda          cudnn_convolution  (aten/src/ATen/native/cudnn/Conv_v7.cpp:50)\n"
				   "                when params.use_cudnn(input, weight)\n"));
	ck_assert(!strstr(cuda.ptr, "slow_conv2d") && !strstr(cuda.ptr, "miopen"));
	ordered(cuda.ptr, "def conv2d", "_convolution");
	ot_buf_free(&b);
	ot_buf_free(&cpu);
	ot_buf_free(&cuda);
	ot_trace_free(tr);
}
END_TEST

/* Off the main paths: grouped by the condition of the step or of the step it
 * was reached through; the rest "reached otherwise"; backward on its own. */
START_TEST(other_paths_grouped_by_condition)
{
	ot_trace *tr = conv_trace();
	ot_buf b = OT_BUF_INIT;
	const char *other, *back;
	ot_show_render(&b, tr, false);
	other = after(b.ptr, "\nOther paths\n");
	ck_assert_msg(ot_starts_with(other, "  when params.use_miopen(input, bias)\n"
					    "    kernel        miopen_convolution  "
					    "(aten/src/ATen/native/miopen/Conv_miopen.cpp:60)\n"
					    "    kernel        miopen_helper  "
					    "(aten/src/ATen/native/miopen/Conv_miopen.cpp:70)\n"
					    "  reached otherwise\n"
					    "    decomposition conv_decomp  (torch/_decomp/decompositions.py:80)\n"
					    "    stub          not found: slow_conv_stub in the index\n"),
		      "%s", other);
	back = after(b.ptr, "\nBackward\n");
	ck_assert_str_eq(back, "  backward      convolution_backward  (tools/autograd/derivatives.yaml:90)\n");
	ot_buf_free(&b);
	ot_trace_free(tr);
}
END_TEST

/* No step marked: the path says it was not found, nothing is made up. */
START_TEST(unmarked_paths_are_not_found)
{
	ot_trace *tr = new_trace("torch.mm", OT_STATUS_TRACED);
	ot_buf b = OT_BUF_INIT;
	step(tr, OT_LAYER_YAML, "aten/src/ATen/native/native_functions.yaml", 5, "mm", 0, NULL, -1);
	ot_show_render(&b, tr, false);
	ck_assert(strstr(b.ptr, "\nCPU main path\n  not found: a step on the CPU main path in this trace\n"));
	ck_assert(strstr(b.ptr, "\nCUDA main path\n  not found: a step on the CUDA main path in this trace\n"));
	ck_assert(strstr(b.ptr, "  reached otherwise\n    yaml          mm  ("));
	ck_assert(!strstr(b.ptr, "Backward"));
	ot_buf_free(&b);
	ot_trace_free(tr);
}
END_TEST

START_TEST(colour_only_when_asked)
{
	ot_trace *tr = conv_trace();
	ot_buf plain = OT_BUF_INIT, color = OT_BUF_INIT;
	ot_show_render(&plain, tr, false);
	ot_show_render(&color, tr, true);
	ck_assert(!strchr(plain.ptr, '\033'));
	ck_assert(strstr(color.ptr, "\033[1mCPU main path\033[0m"));
	ck_assert(strstr(color.ptr, "\033[33mwhen params.use_cudnn(input, weight)\033[0m"));
	ck_assert(strstr(color.ptr, "\033[31mnot found: slow_conv_stub in the index\033[0m"));
	/* the same text once the colours are taken out */
	{
		ot_buf stripped = OT_BUF_INIT;
		for (const char *s = color.ptr; *s;) {
			if (*s == '\033') {
				s += strcspn(s, "m") + 1;
				continue;
			}
			ot_buf_putc(&stripped, *s++);
		}
		ck_assert_str_eq(stripped.ptr, plain.ptr);
		ot_buf_free(&stripped);
	}
	ot_buf_free(&plain);
	ot_buf_free(&color);
	ot_trace_free(tr);
}
END_TEST

START_TEST(not_found_and_well_known)
{
	ot_trace *tr = new_trace("nn.LSTMM", OT_STATUS_NOTFOUND);
	ot_buf b = OT_BUF_INIT;
	ot_vec_push(&tr->suggestions, "nn.LSTM");
	ot_show_render(&b, tr, false);
	ck_assert_str_eq(b.ptr, "nn.LSTMM  (module, not-found)\ndid you mean: nn.LSTM\n");
	ot_buf_free(&b);
	ot_trace_free(tr);
}
END_TEST

/* A cycle of parents (a malformed trace) does not hang the renderer. */
START_TEST(parent_cycle_terminates)
{
	ot_trace *tr = new_trace("torch.mm", OT_STATUS_TRACED);
	ot_buf b = OT_BUF_INIT;
	step(tr, OT_LAYER_CPP, "a.cpp", 1, "a", 0, NULL, 1);
	step(tr, OT_LAYER_CPP, "b.cpp", 2, "b", 0, NULL, 0);
	ot_show_render(&b, tr, false);
	ck_assert(strstr(b.ptr, "reached otherwise\n    cpp           a  (a.cpp:1)\n"));
	ot_buf_free(&b);
	ot_trace_free(tr);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("show");
	TCase *tc = tcase_create("show");
	tcase_add_test(tc, sections_in_order);
	tcase_add_test(tc, main_paths_by_their_bits);
	tcase_add_test(tc, other_paths_grouped_by_condition);
	tcase_add_test(tc, unmarked_paths_are_not_found);
	tcase_add_test(tc, colour_only_when_asked);
	tcase_add_test(tc, not_found_and_well_known);
	tcase_add_test(tc, parent_cycle_terminates);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
