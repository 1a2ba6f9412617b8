/*
 * kname.h - kernel and function names as profilers print them (demangled
 * C++), taken apart; and the GPU libraries whose kernels are not in
 * PyTorch's source.
 *
 *   void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float,
 *        float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*,
 *        float const*, int)
 *
 * is the function `cunn_SoftMaxForward` in namespace
 * `at::native::(anonymous)` (an anonymous namespace is spelled as the
 * index spells it), with five template arguments, naming the type
 * `at::native::(anonymous)::SoftMaxForwardEpilogue`. The return type, the
 * argument list and cv-qualifiers are dropped. A template argument that
 * names a function followed by its argument list is a lambda's enclosing
 * function (launch_clamp_scalar(at::TensorIteratorBase&, ...)::{lambda()#1}...),
 * kept as a reference marked `function`.
 *
 * A plain name ("gemm", "at::cuda::blas::gemm") parses the same way.
 */
#ifndef OT_KNAME_H
#define OT_KNAME_H

#include <stdbool.h>

#include "common.h"

/** A name inside the template arguments. */
typedef struct {
	const char *name; /**< last component: "launch_clamp_scalar", "CUDAFunctor_add" */
	const char *qual; /**< the components before it: "at::native::(anonymous)", or "" */
	bool function;    /**< followed by an argument list: a function (a lambda's scope) */
} ot_kname_ref;

typedef struct {
	const char *text;  /**< the input, blanks trimmed */
	const char *name;  /**< "cunn_SoftMaxForward"; "operator()" for a call operator */
	const char *qual;  /**< "at::native::(anonymous)", or "" */
	const char *const *targs; /**< the template arguments as written (trimmed) */
	size_t ntargs;
	const ot_kname_ref *refs; /**< names in the template arguments, each once, in order */
	size_t nrefs;
	bool lambda;       /**< the name is (inside) a lambda: {lambda(...)#N} */
} ot_kname;

/**
 * Take `text` apart into `out`, strings in `arena`. Errors: empty text, or
 * unbalanced <>, () or {} (the message names the column).
 */
int ot_kname_parse(ot_kname *out, ot_arena *arena, const char *text);

/**
 * Does the qualifier `want` (from a query; "" matches any) name the scope
 * `have` (an index definition's namespaces and class qualifier joined by
 * "::")? True when `want` is `have` or a suffix of it at a "::" boundary
 * ("native::(anonymous)" names "at::native::(anonymous)").
 */
bool ot_kname_qual_matches(const char *want, const char *have);

/** A GPU library whose kernels are not in PyTorch's source (kname_library). */
typedef struct {
	const char *library;  /**< "cuBLAS", "cuDNN", "cuFFT", ... */
	const char *pattern;  /**< the row of the table that matched, for the reader */
	const char *const *call_libs; /**< the library names trace steps give its
				           call sites ("cuBLAS", "cuBLASLt"), NULL-ended */
	const char *note;     /**< what else to know, or NULL */
} ot_kname_lib;

/**
 * The library whose kernel `k` is, by the documented table of kname.c
 * (cuBLAS/cuBLASLt: ampere_sgemm_*, sm80_xmma_gemm_*, sm90_xmma_*,
 * cutlass::Kernel<cutlass_*>, gemv2T_kernel, ...; cuDNN: cudnn::*,
 * *_xmma_fprop_*, implicit_convolve_sgemm, ...; cuFFT: regular_fft,
 * vector_fft, ...; CUB, Thrust, NCCL, MAGMA, cuSOLVER, cuSPARSE, Triton),
 * or NULL. Borrowed.
 */
const ot_kname_lib *ot_kname_library(const ot_kname *k);

/** Every row of the table, for the README and tests; returns the count. */
size_t ot_kname_library_table(const ot_kname_lib **out);

#endif
