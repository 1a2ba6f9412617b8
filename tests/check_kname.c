/*
 * check_kname.c - kernel and function names as profilers print them, taken
 * apart; scope matching; the table of GPU library kernels.
 */
#include <stdlib.h>
#include <string.h>

#include "kname.h"
#include "testutil.h"

static ot_kname parse_ok(ot_arena *a, const char *text)
{
	ot_kname k;
	ck_assert_msg(ot_kname_parse(&k, a, text) == 0, "%s: %s", text, ot_error_last());
	return k;
}

/* "qual::name" of every reference, with "()" for functions, joined by " ". */
static char *refs_of(const ot_kname *k)
{
	ot_buf b = OT_BUF_INIT;
	for (size_t i = 0; i < k->nrefs; i++)
		ot_buf_printf(&b, "%s%s%s%s%s", i ? " " : "", k->refs[i].qual, *k->refs[i].qual ? "::" : "",
			      k->refs[i].name, k->refs[i].function ? "()" : "");
	return ot_buf_detach(&b);
}

START_TEST(softmax_kernel)
{
	ot_arena *a = ot_arena_new();
	ot_kname k = parse_ok(a, "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
				 "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)");
	char *r = refs_of(&k);
	ck_assert_str_eq(k.name, "cunn_SoftMaxForward");
	ck_assert_str_eq(k.qual, "at::native::(anonymous)");
	ck_assert_uint_eq(k.ntargs, 5);
	ck_assert_str_eq(k.targs[0], "4");
	ck_assert_str_eq(k.targs[4], "at::native::(anonymous namespace)::SoftMaxForwardEpilogue");
	ck_assert_str_eq(r, "at::native::(anonymous)::SoftMaxForwardEpilogue");
	ck_assert(!k.lambda);
	free(r);
	ot_arena_free(a);
}
END_TEST

START_TEST(elementwise_functor)
{
	ot_arena *a = ot_arena_new();
	ot_kname k = parse_ok(a, "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
				 "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
				 "at::detail::Array<char*, 3>)");
	char *r = refs_of(&k);
	ck_assert_str_eq(k.name, "vectorized_elementwise_kernel");
	ck_assert_str_eq(k.qual, "at::native");
	ck_assert_uint_eq(k.ntargs, 3);
	ck_assert_str_eq(k.targs[2], "at::detail::Array<char*, 3>");
	ck_assert_str_eq(r, "at::native::CUDAFunctor_add at::detail::Array");
	free(r);
	ot_arena_free(a);
}
END_TEST

START_TEST(lambda_scope)
{
	ot_arena *a = ot_arena_new();
	ot_kname k = parse_ok(a, "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
				 "launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
				 "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::"
				 "operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, float)");
	char *r = refs_of(&k);
	ck_assert_str_eq(k.name, "vectorized_elementwise_kernel");
	ck_assert_str_eq(r, "at::native::(anonymous)::launch_clamp_scalar() at::detail::Array");
	free(r);
	k = parse_ok(a, "at::native::(anonymous namespace)::f(int)::{lambda(float)#1}::operator()(float) const");
	ck_assert_str_eq(k.name, "operator()");
	ck_assert_str_eq(k.qual, "at::native::(anonymous)::f::{lambda(float)#1}");
	ck_assert(k.lambda);
	ot_arena_free(a);
}
END_TEST

START_TEST(functor_operator)
{
	ot_arena *a = ot_arena_new();
	ot_kname k = parse_ok(a, "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::"
				 "func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()"
				 "(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >"
				 "(at::native::ReduceOp<float, int>)");
	char *r = refs_of(&k);
	ck_assert_str_eq(k.name, "reduce_kernel");
	ck_assert_str_eq(r, "at::native::sum_functor::operator()() at::native::sum_functor "
			    "at::native::func_wrapper_t at::native::ReduceOp");
	free(r);
	ot_arena_free(a);
}
END_TEST

START_TEST(plain_names)
{
	ot_arena *a = ot_arena_new();
	ot_kname k = parse_ok(a, "  gemm ");
	ck_assert_str_eq(k.name, "gemm");
	ck_assert_str_eq(k.qual, "");
	ck_assert_uint_eq(k.ntargs, 0);
	k = parse_ok(a, "at::cuda::blas::gemm<float>");
	ck_assert_str_eq(k.name, "gemm");
	ck_assert_str_eq(k.qual, "at::cuda::blas");
	ck_assert_uint_eq(k.ntargs, 1);
	k = parse_ok(a, "at::native::(anonymous namespace)::Foo::operator()(int) const");
	ck_assert_str_eq(k.name, "operator()");
	ck_assert_str_eq(k.qual, "at::native::(anonymous)::Foo");
	k = parse_ok(a, "bool c10::operator<(c10::Half, c10::Half)");
	ck_assert_str_eq(k.name, "operator<");
	ck_assert_str_eq(k.qual, "c10");
	k = parse_ok(a, "torch.nn.functional.softmax");
	ck_assert_str_eq(k.name, "torch.nn.functional.softmax");
	ot_arena_free(a);
}
END_TEST

START_TEST(parse_errors)
{
	ot_arena *a = ot_arena_new();
	ot_kname k;
	ck_assert_int_lt(ot_kname_parse(&k, a, "   "), 0);
	ck_assert_str_eq(ot_error_last(), "an empty name");
	ck_assert_int_lt(ot_kname_parse(&k, a, "f<int(x)"), 0);
	ck_assert_str_eq(ot_error_last(), "column 8: a bracket is not closed");
	ck_assert_int_lt(ot_kname_parse(&k, a, "f>(x)"), 0);
	ck_assert_str_eq(ot_error_last(), "column 2: '>' closes nothing");
	ck_assert_int_lt(ot_kname_parse(&k, a, "<smidm>"), 0); /* fuzz_kname's leak on this path */
	ck_assert_str_eq(ot_error_last(), "no name in '<smidm>'");
	ot_arena_free(a);
}
END_TEST

START_TEST(scopes)
{
	ck_assert(ot_kname_qual_matches("", "at::native"));
	ck_assert(ot_kname_qual_matches("at::native", "at::native"));
	ck_assert(ot_kname_qual_matches("native::(anonymous)", "at::native::(anonymous)"));
	ck_assert(!ot_kname_qual_matches("tive", "at::native"));
	ck_assert(!ot_kname_qual_matches("at::native", "native"));
	ck_assert(!ot_kname_qual_matches("at::native", "at::native::(anonymous)"));
}
END_TEST

static const char *library_of(ot_arena *a, const char *name)
{
	ot_kname k = parse_ok(a, name);
	const ot_kname_lib *l = ot_kname_library(&k);
	return l ? l->library : "-";
}

START_TEST(libraries)
{
	ot_arena *a = ot_arena_new();
	const ot_kname_lib *table;
	ck_assert_str_eq(library_of(a, "ampere_sgemm_128x64_tn"), "cuBLAS");
	ck_assert_str_eq(library_of(a, "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1"
				       "_ffma_aligna4_alignc4_execute_kernel_trt"), "cuBLAS");
	ck_assert_str_eq(library_of(a, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_"
				       "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas"), "cuBLAS");
	ck_assert_str_eq(library_of(a, "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>("
				       "cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4::Params)"), "cuBLAS");
	ck_assert_str_eq(library_of(a, "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, "
				       "false, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
				       "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, "
				       "float> >(cublasGemvParamsEx<int, float>, float, float)"), "cuBLAS");
	ck_assert_str_eq(library_of(a, "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_"
				       "tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_kernel"), "cuDNN");
	ck_assert_str_eq(library_of(a, "void cudnn::detail::implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, "
				       "3, 1, false, false, true>(int, int, int, float const*, int, float*)"), "cuDNN");
	ck_assert_str_eq(library_of(a, "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>"
				       "(cudnnTensorStruct, float const*)"), "cuDNN");
	ck_assert_str_eq(library_of(a, "void regular_fft<128u, EPT<8u>, 16u, 4u, CONSTANT, (padding_t)0, "
				       "(twiddle_t)0, (loadstore_modifier_t)2, (layout_t)1, unsigned int, float>"
				       "(kernel_arguments_t<unsigned int>)"), "cuFFT");
	ck_assert_str_eq(library_of(a, "void vector_fft<256u, EPT<16u>, 1u, 16u, CONSTANT, (padding_t)0>(int)"), "cuFFT");
	ck_assert_str_eq(library_of(a, "void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<float, "
				       "long, int>::Policy800, false, float, long, int, int>(int*, int*)"), "CUB");
	ck_assert_str_eq(library_of(a, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"),
			 "NCCL");
	ck_assert_str_eq(library_of(a, "triton_poi_fused_add_0"), "Triton");
	ck_assert_str_eq(library_of(a, "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*)"), "-");
	ck_assert_str_eq(library_of(a, "at::cuda::blas::gemm<float>"), "-");
	ck_assert_uint_gt(ot_kname_library_table(&table), 40);
	for (size_t i = 0; i < ot_kname_library_table(&table); i++)
		ck_assert(table[i].library && table[i].pattern && table[i].call_libs);
	ot_arena_free(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kname");
	TCase *tc = tcase_create("kname");
	tcase_add_test(tc, softmax_kernel);
	tcase_add_test(tc, elementwise_functor);
	tcase_add_test(tc, lambda_scope);
	tcase_add_test(tc, functor_operator);
	tcase_add_test(tc, plain_names);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, scopes);
	tcase_add_test(tc, libraries);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
