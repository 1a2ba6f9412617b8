/*
 * cond.c - evaluate the conditions code runs under, for a default call on
 * one device in the build of a release wheel (see cond.h).
 *
 * Three small evaluators share one tokenizer: the preprocessor's integer
 * expressions, C++ guard expressions, and Python conditions. Each reads a
 * condition as a tree of || / && / ! / comparisons over "terms" (a name
 * chain such as `input.is_cuda()` or `at::globalContext().userEnabledCuDNN()`)
 * and judges each term by what it asks: a Tensor property the default call
 * fixes (dense, strided, float32, on this device), a build flag, a setting
 * whose default is known, a run-time selection, or something unknowable.
 */
#include "cond.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index.h"

const char *ot_device_name(ot_device d)
{
	return d == OT_DEV_CUDA ? "CUDA" : "CPU";
}

/* ---- verdicts ------------------------------------------------------------------ */

ot_verdict ot_verdict_true(void)
{
	return (ot_verdict){.value = OT_TRI_TRUE};
}

static ot_verdict verdict(ot_tri v, const char *text)
{
	return (ot_verdict){.value = v, .text = text};
}

ot_verdict ot_verdict_and(ot_verdict a, ot_verdict b)
{
	ot_verdict r;
	if (a.value == OT_TRI_FALSE || a.validation)
		return a;
	if (b.value == OT_TRI_FALSE || b.validation)
		return b;
	if (a.value == OT_TRI_UNKNOWN)
		r = a;
	else if (b.value == OT_TRI_UNKNOWN)
		r = b;
	else
		r = a.select || !b.select ? a : b;
	r.select = a.select || b.select;
	return r;
}

static ot_tri tri_not(ot_tri v)
{
	return v == OT_TRI_TRUE ? OT_TRI_FALSE : v == OT_TRI_FALSE ? OT_TRI_TRUE : OT_TRI_UNKNOWN;
}

static ot_tri tri_and(ot_tri a, ot_tri b)
{
	if (a == OT_TRI_FALSE || b == OT_TRI_FALSE)
		return OT_TRI_FALSE;
	return a == OT_TRI_TRUE && b == OT_TRI_TRUE ? OT_TRI_TRUE : OT_TRI_UNKNOWN;
}

static ot_tri tri_or(ot_tri a, ot_tri b)
{
	if (a == OT_TRI_TRUE || b == OT_TRI_TRUE)
		return OT_TRI_TRUE;
	return a == OT_TRI_FALSE && b == OT_TRI_FALSE ? OT_TRI_FALSE : OT_TRI_UNKNOWN;
}

/* ---- the build of a release wheel ------------------------------------------------ */

struct macro {
	const char *name; /* "USE_ROCM", or "AT_CUDNN_ENABLED()" for a function-like one */
	long value;       /* its value; a defined flag without a value is 1 */
	bool defined;
};

struct ot_build {
	const char *version; /* the first release the profile applies to */
	const char *describe;
	const struct macro *own; /* release-specific values (CUDA_VERSION, ...) */
	size_t nown;
	bool every_build; /* only `own` is known: what no build can change */
};

/* What every release wheel for Linux x86-64 with CUDA is built with (the
 * macros of aten/src/ATen/Config.h.in and cuda/CUDAConfig.h.in, and the
 * definitions CMake passes on the command line). */
static const struct macro wheel[] = {
	{"AT_CUDNN_ENABLED()", 1, true},	{"AT_ROCM_ENABLED()", 0, true},
	{"AT_MKL_ENABLED()", 1, true},		{"AT_MKL_SEQUENTIAL()", 0, true},
	{"AT_MKLDNN_ENABLED()", 1, true},	{"AT_MKLDNN_ACL_ENABLED()", 0, true},
	{"AT_POCKETFFT_ENABLED()", 0, true},	{"AT_NNPACK_ENABLED()", 1, true},
	{"AT_MAGMA_ENABLED()", 1, true},	{"AT_BUILD_WITH_BLAS()", 1, true},
	{"AT_BUILD_WITH_LAPACK()", 1, true},	{"AT_BLAS_F2C()", 0, true},
	{"AT_BLAS_USE_CBLAS_DOT()", 1, true},	{"AT_USE_MKL_SPARSE()", 1, true},
	{"AT_USE_JITERATOR()", 1, true},	{"AT_CUSPARSELT_ENABLED()", 1, true},
	{"AT_USE_CUSPARSE_GENERIC_API()", 1, true},
	{"AT_USE_HIPSPARSE_GENERIC_API()", 0, true},
	{"AT_USE_HIPSPARSE_TRIANGULAR_SOLVE()", 0, true},
	{"IS_CUSPARSE11_AVAILABLE()", 1, true}, {"CUB_SUPPORTS_SCAN_BY_KEY()", 1, true},
	{"CUB_SUPPORTS_UNIQUE_BY_KEY()", 1, true}, {"HAS_WARP_MERGE_SORT()", 1, true},
	{"AT_PARALLEL_OPENMP", 1, true},	{"AT_PARALLEL_NATIVE", 0, true},
	{"USE_CUDA", 1, true},			{"USE_CUDNN", 1, true},
	{"USE_ROCM", 0, false},			{"USE_FBGEMM", 1, true},
	{"USE_XNNPACK", 1, true},		{"USE_PYTORCH_QNNPACK", 1, true},
	{"USE_VULKAN_API", 0, false},		{"USE_VULKAN", 0, false},
	{"USE_MPS", 0, false},			{"USE_XPU", 0, false},
	{"USE_LINALG_SOLVER", 1, true},		{"USE_CUSOLVER_64_BIT", 1, true},
	/* 1.13.1's cuda/linalg/BatchLinearAlgebraLib.h defines it when the
	 * CUDA headers define CUDART_VERSION and CUSOLVER_VERSION: every CUDA
	 * build */
	{"USE_CUSOLVER", 1, true},
	{"USE_FLASH_ATTENTION", 1, true},	{"USE_MEM_EFF_ATTENTION", 1, true},
	{"USE_CUDSS", 0, false},		{"USE_MAGMA", 1, true},
	{"BUILD_LAZY_CUDA_LINALG", 1, true},	{"AT_PER_OPERATOR_HEADERS", 1, true},
	{"C10_MOBILE", 0, false},		{"C10_IOS", 0, false},
	{"C10_ANDROID", 0, false},		{"FBCODE_CAFFE2", 0, false},
	{"CAFFE2_IS_XPLAT_BUILD", 0, false},	{"STRIP_ERROR_MESSAGES", 0, false},
	{"COMPILING_FOR_MIN_SIZE", 0, false},	{"NDEBUG", 1, true},
	{"DEBUG", 0, false},			{"_MSC_VER", 0, false},
	{"_WIN32", 0, false},			{"_WIN64", 0, false},
	{"__APPLE__", 0, false},		{"__MACH__", 0, false},
	{"__ANDROID__", 0, false},		{"__aarch64__", 0, false},
	{"__arm__", 0, false},			{"__ARM_NEON__", 0, false},
	{"__ARM_NEON", 0, false},		{"__ARM_FEATURE_SVE", 0, false},
	{"__s390x__", 0, false},		{"__powerpc__", 0, false},
	{"__VSX__", 0, false},			{"__i386__", 0, false},
	{"_M_X64", 0, false},			{"_M_ARM", 0, false},
	{"__x86_64__", 1, true},		{"__linux__", 1, true},
	{"__GNUC__", 11, true},			{"__clang__", 0, false},
	{"__HIPCC__", 0, false},		{"__HIP_PLATFORM_AMD__", 0, false},
	{"__HIP_PLATFORM_HCC__", 0, false},	{"__HIP_ARCH__", 0, false},
	{"ROCM_VERSION", 0, false},		{"HIP_VERSION", 0, false},
	{"CPUINFO_ARCH_X86_64", 1, true},	{"CPUINFO_ARCH_X86", 0, true},
	{"CPUINFO_ARCH_ARM64", 0, true},	{"CPUINFO_ARCH_ARM", 0, true},
	{"HAVE_AVX2_CPU_DEFINITION", 1, true},	{"HAVE_AVX512_CPU_DEFINITION", 1, true},
	{"HAVE_VSX_CPU_DEFINITION", 0, false},	{"HAVE_ZVECTOR_CPU_DEFINITION", 0, false},
	{"HAVE_SVE_CPU_DEFINITION", 0, false},	{"HAVE_SVE256_CPU_DEFINITION", 0, false},
	{"CPU_CAPABILITY_SVE", 0, false},	{"CPU_CAPABILITY_SVE256", 0, false},
	{"CPU_CAPABILITY_VSX", 0, false},	{"CPU_CAPABILITY_ZVECTOR", 0, false},
	{"CPU_CAPABILITY_NEON", 0, false},	{"ATEN_CPU_STATIC_DISPATCH", 0, false},
};

static const struct macro cuda117[] = {
	{"CUDA_VERSION", 11070, true},	{"CUDART_VERSION", 11070, true},
	{"CUDNN_VERSION", 8500, true},	{"CUDNN_MAJOR", 8, true},
	{"CUSPARSE_VERSION", 11704, true}, {"CUSOLVER_VERSION", 11400, true},
};

static const struct macro cuda124[] = {
	{"CUDA_VERSION", 12040, true},	{"CUDART_VERSION", 12040, true},
	{"CUDNN_VERSION", 90100, true}, {"CUDNN_MAJOR", 9, true},
	{"CUSPARSE_VERSION", 12303, true}, {"CUSOLVER_VERSION", 11600, true},
	{"CUSPARSELT_VERSION", 600, true},
	/* ATen/cudnn/Descriptors.h defines it when CUDNN_VERSION >= 8907 */
	{"USE_CUDNN_RNN_V8_API", 1, true},
};

/* What the source defines whatever the build: ATen/jit_macros.h has
 * `#define AT_USE_JITERATOR() true` (1.13.1 and 2.6.0), so the `#else` of
 * `#if AT_USE_JITERATOR()` is compiled in no build. */
static const struct macro source_constants[] = {
	{"AT_USE_JITERATOR()", 1, true},
};

static const ot_build every_build = {NULL, "every build", source_constants,
				     OT_ARRAY_LEN(source_constants), true};

/* Oldest first; a release takes the newest profile not newer than it. */
static const ot_build builds[] = {
	{"0", "the Linux x86-64 release wheel with CUDA 11.7 and cuDNN 8.5 (cuBLAS, cuSOLVER, "
	      "cuFFT, MAGMA), and MKL, oneDNN and FBGEMM on the CPU; not ROCm, not a mobile build",
	 cuda117, OT_ARRAY_LEN(cuda117), false},
	{"2.0.0", "the Linux x86-64 release wheel with CUDA 12.4 and cuDNN 9.1 (cuBLAS, cuBLASLt, "
		  "cuSOLVER, cuFFT, MAGMA), and MKL, oneDNN and FBGEMM on the CPU; not ROCm, not a "
		  "mobile build",
	 cuda124, OT_ARRAY_LEN(cuda124), false},
};

static int version_cmp(const char *a, const char *b)
{
	for (int k = 0; k < 3; k++) {
		long x = strtol(a, (char **)&a, 10), y = strtol(b, (char **)&b, 10);
		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
	}
	return 0;
}

const ot_build *ot_build_for(const char *version)
{
	const ot_build *best = &builds[0];
	for (size_t i = 0; i < OT_ARRAY_LEN(builds); i++)
		if (version && version_cmp(builds[i].version, version) <= 0)
			best = &builds[i];
	return best;
}

const char *ot_build_describe(const ot_build *b)
{
	return b->describe;
}

static const struct macro *build_macro(const ot_build *b, const char *name, size_t n)
{
	for (size_t i = 0; i < b->nown; i++)
		if (strlen(b->own[i].name) == n && !memcmp(b->own[i].name, name, n))
			return &b->own[i];
	if (b->every_build)
		return NULL;
	for (size_t i = 0; i < OT_ARRAY_LEN(wheel); i++)
		if (strlen(wheel[i].name) == n && !memcmp(wheel[i].name, name, n))
			return &wheel[i];
	return NULL;
}

/* ---- tokens ---------------------------------------------------------------------- */

enum tk { TK_END, TK_NAME, TK_NUM, TK_STR, TK_OP };

struct tok {
	enum tk kind;
	const char *s;
	size_t n;
};

#define MAX_TOKS 256

struct toks {
	struct tok t[MAX_TOKS];
	size_t n, at;
	bool overflow;
	bool python;
};

static bool op_is(const struct tok *t, const char *op)
{
	return t->kind == TK_OP && strlen(op) == t->n && !memcmp(t->s, op, t->n);
}

static bool name_is(const struct tok *t, const char *w)
{
	return t->kind == TK_NAME && strlen(w) == t->n && !memcmp(t->s, w, t->n);
}

static void tokenize(struct toks *tk, const char *s, bool python)
{
	static const char *const ops[] = {"::", "->", "&&", "||", "==", "!=", "<=", ">=", "<<",
					  ">>", "**", "//"};
	tk->n = tk->at = 0;
	tk->overflow = false;
	tk->python = python;
	while (*s) {
		struct tok t = {TK_OP, s, 1};
		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (python && *s == '#')
			break; /* a comment */
		if (ot_is_ident_start(*s)) {
			while (ot_is_ident_char(s[t.n]))
				t.n++;
			t.kind = TK_NAME;
		} else if (isdigit((unsigned char)*s)) {
			while (isalnum((unsigned char)s[t.n]) || s[t.n] == '.' || s[t.n] == '\'')
				t.n++;
			t.kind = TK_NUM;
		} else if (*s == '"' || *s == '\'') {
			char q = *s;
			while (s[t.n] && !(t.n > 0 && s[t.n] == q && s[t.n - 1] != '\\'))
				t.n++;
			t.n += s[t.n] == q;
			t.kind = TK_STR;
		} else {
			for (size_t k = 0; k < OT_ARRAY_LEN(ops); k++)
				if (!strncmp(s, ops[k], 2))
					t.n = 2;
		}
		if (tk->n == MAX_TOKS) {
			tk->overflow = true;
			return;
		}
		tk->t[tk->n++] = t;
		s += t.n;
	}
}

static const struct tok *peek(const struct toks *tk)
{
	static const struct tok end = {TK_END, "", 0};
	return tk->at < tk->n ? &tk->t[tk->at] : &end;
}

/* ---- values ------------------------------------------------------------------------ */

/* What a term stands for: a truth value, a number, or a symbol the default
 * call fixes ("Float", "CUDA", "Strided"), or "nonzero" for a count that is
 * not zero (numel() of a default tensor). */
typedef struct {
	ot_tri truth;
	bool has_num, has_sym;
	double num;
	const char *sym; /* symn bytes; a quoted string keeps its quotes */
	size_t symn;
	bool select;
	bool known; /* anything known at all */
	bool empty; /* None, nullopt, nullptr, an undefined Tensor */
} value;

static value v_truth(ot_tri t)
{
	return (value){t, false, false, 0, NULL, 0, false, t != OT_TRI_UNKNOWN, false};
}

static value v_empty(void)
{
	value v = v_truth(OT_TRI_FALSE);
	v.empty = true;
	return v;
}

static value v_unknown(void)
{
	return v_truth(OT_TRI_UNKNOWN);
}

/* A number as C++ or Python writes it: 3, 0x10, 0.5, 2., 1e-5, 1.0f. */
static double number(const char *s)
{
	return strtod(s, NULL);
}

static value v_num(double n)
{
	return (value){n ? OT_TRI_TRUE : OT_TRI_FALSE, true, false, n, NULL, 0, false, true, false};
}

static value v_symn(const char *sym, size_t n)
{
	return (value){OT_TRI_UNKNOWN, false, true, 0, sym, n, false, true, false};
}

static value v_sym(const char *sym)
{
	return v_symn(sym, strlen(sym));
}

static value v_select(ot_tri t)
{
	value v = v_truth(t);
	v.select = true;
	return v;
}

/* `a || b` (short = TRUE) or `a && b` (short = FALSE), of value t: a run-time
 * selection when one decided it, not when an operand that is no selection
 * settles it (cudnn_is_acceptable(x) && ... is false on the CPU, by the
 * device, whatever the user enabled). */
static value decided_by(value a, value b, ot_tri short_value, ot_tri t)
{
	value v = v_truth(t);
	if (t == short_value)
		v.select = (a.truth != short_value || a.select) && (b.truth != short_value || b.select);
	else
		v.select = a.select || b.select;
	return v;
}

/* Is `v` the symbol `s` ("Float", "CUDA", "nonzero")? */
static bool sym_is(value v, const char *s)
{
	return v.has_sym && v.symn == strlen(s) && !memcmp(v.sym, s, v.symn);
}

/* The literals a caller passes for an empty optional. */
static bool empty_literal(const char *lit)
{
	static const char *const empty[] = {"nullopt", "std::nullopt", "c10::nullopt", "None", "{}"};
	for (size_t i = 0; i < OT_ARRAY_LEN(empty); i++)
		if (!strcmp(lit, empty[i]))
			return true;
	return false;
}

/* ---- what the default call fixes ------------------------------------------------------- */

/* The symbol a constant names: kFloat, ScalarType::Float, at::kCUDA,
 * DeviceType::CUDA, c10::kStrided, Layout::Sparse... (the last segment,
 * with a leading k dropped). */
static const char *constant_symbol(const char *s, size_t n)
{
	static const char *const known[] = {
		"Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool",
		"ComplexFloat", "ComplexDouble", "ComplexHalf", "QInt8", "QUInt8", "QInt32",
		"Float8_e4m3fn", "Float8_e5m2", "Float8_e4m3fnuz", "Float8_e5m2fnuz", "UInt16", "UInt32",
		"UInt64", "Bits8", "Bits16", "CPU", "CUDA", "MPS", "XPU", "Meta", "HIP", "XLA",
		"Lazy", "Strided", "Sparse", "SparseCsr", "SparseCsc", "SparseBsr", "SparseBsc",
		"Mkldnn", "Jagged", "ChannelsLast", "Contiguous", "Preserve", "ChannelsLast3d",
		/* at::LinalgBackend */
		"Default", "Cusolver", "Magma",
		/* backends of ConvBackend, BatchNormBackend and the like that no
		 * release build for Linux x86-64 picks (foreign_backend) */
		"Miopen", "MiopenDepthwise", "MiopenTranspose", "Xnnpack2d", "Vulkan", "Metal"};
	const char *last = s;
	size_t ln;
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == ':' && s[i + 1] == ':')
			last = s + i + 2;
	ln = n - (size_t)(last - s);
	if (ln > 1 && last[0] == 'k' && isupper((unsigned char)last[1])) {
		last++;
		ln--;
	}
	for (size_t i = 0; i < OT_ARRAY_LEN(known); i++)
		if (strlen(known[i]) == ln && !memcmp(known[i], last, ln))
			return known[i];
	/* MemoryFormat::Contiguous and the like: a symbol, not known to the call */
	return NULL;
}

/* Is the name (n bytes) written like an enumerator: GELU, Mean, kFoo? */
static bool enumerator(const char *s, size_t n)
{
	if (!n || !(isupper((unsigned char)s[0]) || (n > 1 && s[0] == 'k' && isupper((unsigned char)s[1]))))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ot_is_ident_char(s[i]))
			return false;
	return true;
}

/* The last segment of a qualified name: GELU of Activation::GELU. */
static const char *unqualified(const char *s, size_t *n)
{
	for (size_t i = *n; i >= 2; i--)
		if (s[i - 1] == ':' && s[i - 2] == ':') {
			*n -= i;
			return s + i;
		}
	return s;
}

static bool word_in(const char *s, size_t n, const char *const *words, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (strlen(words[i]) == n && !memcmp(words[i], s, n))
			return true;
	return false;
}

#define WORD_IN(s, n, list) word_in(s, n, list, OT_ARRAY_LEN(list))

/* Tensor properties a dense, strided float32 tensor does not have. */
static const char *const false_props[] = {
	"is_sparse", "is_sparse_csr", "is_sparse_compressed", "is_nested", "is_quantized", "is_mkldnn", "is_mps",
	"is_xpu", "is_meta", "is_vulkan", "is_metal", "is_ipu", "is_hpu", "is_xla", "is_lazy",
	"is_ort", "is_ve", "is_mtia", "is_maia", "is_privateuseone", "is_complex", "is_conj",
	"is_neg", "_is_zerotensor", "is_zerotensor", "has_names", "is_inference",
	"isTensorSubclassLike", "areAnyTensorSubclassLike", "isComplexType", "isIntegralType",
	"isReducedFloatingType", "isQIntType", "isFloat8Type", "isBitsType", "isBarebonesUnsignedType",
	"is_nested_int", "is_functional_tensor", "isFunctionalTensor", "is_python_dispatch",
	"has_symbolic_sizes_strides", "is_quantized_tensor", "_is_any_true",
	/* a list of default (float32) tensors holds no integer or bool one */
	"has_integral_tensor", "has_bool_tensor"};

/* Properties it has. */
static const char *const true_props[] = {"is_floating_point", "isFloatingType", "is_signed", "supports_as_strided",
					 "is_non_overlapping_and_dense", "defined_dense"};

/* Settings of a default session and the build's libraries. */
static const char *const false_settings[] = {
	"deterministicAlgorithms", "deterministicAlgorithmsWarnOnly",
	"deterministicFillUninitializedMemory", "areVmapFallbackWarningsEnabled",
	"is_scripting", "is_tracing", "isTracing", "is_compiling", "is_dynamo_compiling",
	"_get_tracing_state", "are_deterministic_algorithms_enabled", "is_autocast_enabled",
	"is_autocast_cpu_enabled", "is_autocast_available", "isDefaultDeviceMeta",
	"use_miopen", "is_vmap_active", "compiledWithMIOpen",
	/* torch.sparse.check_sparse_tensor_invariants, off unless enabled */
	"checkSparseTensorInvariants",
	/* float32_matmul_precision is "highest" unless set (Context.h) */
	"allowTF32CuBLAS"};

static const char *const true_settings[] = {
	"userEnabledCuDNN", "userEnabledMkldnn", "userEnabledNNPACK", "compiledWithCuDNN",
	"hasMKL", "hasMKLDNN", "hasLAPACK", "hasMAGMA", "hasCuSOLVER",
	"hasCuBLASLt", "hasOpenMP", "is_grad_enabled", "is_enabled_grad", "_get_cudnn_enabled",
	/* cuDNN may use TF32, cuBLAS reduce in half precision, unless told not to */
	"allowTF32CuDNN", "allowFP16ReductionCuBLAS", "allowBF16ReductionCuBLAS",
	/* what a default call's tensors satisfy: a few elements (32-bit indexing),
	 * one dtype and device, dense and strided (the foreach fast route) */
	"canUse32BitIndexMath", "can_use_32bit_indexing", "can_use_fast_route",
	"check_fast_path_restrictions"};

/* Names of the run-time selections that pick a backend library. */
static bool is_selection(const char *s, size_t n)
{
	return (n > 4 && !memcmp(s, "use_", 4)) || (n > 5 && !memcmp(s, "_use_", 5)) ||
	       (n > 10 && !memcmp(s, "should_use", 10)) || (n > 8 && !memcmp(s, "can_use_", 8)) ||
	       (n > 13 && !memcmp(s, "cudnn_is_acce", 13)) || memmem(s, n, "_acceptable", 11) ||
	       memmem(s, n, "sdp_choice", 10) || memmem(s, n, "select_sdp", 10) ||
	       memmem(s, n, "PreferredBackend", 16) || memmem(s, n, "preferred_backend", 17);
}

/* A run-time selection judged for a float32 tensor on `dev`: the cuDNN and
 * CUDA ones hold on CUDA and never on the CPU; the oneDNN ones the other
 * way round; MIOpen never (not ROCm); the rest are not known. */
static value selection_value(const char *s, size_t n, ot_device dev)
{
	if (memmem(s, n, "miopen", 6) || memmem(s, n, "xnnpack", 7) || memmem(s, n, "mps", 3) ||
	    memmem(s, n, "hipblas", 7))
		return v_truth(OT_TRI_FALSE);
	/* a reduced-precision path (use_mkldnn_bf16_matmul, ..._fp16_...):
	 * not for float32; bf32 and tf32 only under a lowered
	 * float32MatmulPrecision, a session setting; oneDNN's matmul is made
	 * of those three (use_mkldnn_matmul) */
	if (memmem(s, n, "bf16", 4) || memmem(s, n, "fp16", 4) || memmem(s, n, "bf32", 4) ||
	    memmem(s, n, "tf32", 4) || memmem(s, n, "half", 4) ||
	    (memmem(s, n, "mkldnn", 6) && memmem(s, n, "matmul", 6)))
		return v_truth(OT_TRI_FALSE);
	if (memmem(s, n, "cudnn", 5) || memmem(s, n, "cuda", 4) || memmem(s, n, "cublas", 6))
		return dev == OT_DEV_CUDA ? v_select(OT_TRI_TRUE) : v_truth(OT_TRI_FALSE);
	/* a release wheel has oneDNN, and picks it for float32 on the CPU */
	if (memmem(s, n, "mkldnn", 6) || memmem(s, n, "onednn", 6))
		return dev == OT_DEV_CPU ? v_select(OT_TRI_TRUE) : v_truth(OT_TRI_FALSE);
	return v_select(OT_TRI_UNKNOWN);
}

/* ---- the preprocessor ---------------------------------------------------------------- */

struct ppctx {
	const ot_build *b;
	const ot_index *ix;
	bool cuda_file;
	bool select; /* a CPU capability decided it */
};

typedef struct {
	bool known;
	long v;
} ppval;

static ppval pp_expr(struct ppctx *c, struct toks *tk, int prec);

static ppval pp_name(struct ppctx *c, const struct tok *t, bool call)
{
	char buf[160];
	const struct macro *m;
	if (t->n + 3 > sizeof(buf))
		return (ppval){false, 0};
	snprintf(buf, sizeof(buf), "%.*s%s", (int)t->n, t->s, call ? "()" : "");
	if (c->b->every_build) {
		/* what a build decides is not known (its CUDA compile passes, its flags) */
		m = build_macro(c->b, buf, strlen(buf));
		return m ? (ppval){true, m->defined ? m->value : 0} : (ppval){false, 0};
	}
	if ((!strcmp(buf, "__CUDACC__") || !strcmp(buf, "__NVCC__")))
		return (ppval){true, c->cuda_file};
	if (!strcmp(buf, "__CUDA_ARCH__") || !strcmp(buf, "__CUDA_ARCH_LIST__"))
		return c->cuda_file ? (ppval){false, 0} : (ppval){true, 0};
	if (!strncmp(buf, "CPU_CAPABILITY_", 15) && (m = build_macro(c->b, buf, strlen(buf))) == NULL) {
		c->select = true; /* compiled once per x86 capability; picked at run time */
		return (ppval){false, 0};
	}
	if ((m = build_macro(c->b, buf, strlen(buf))))
		return (ppval){true, m->defined ? m->value : 0};
	if (call || ot_index_defines(c->ix, buf))
		return (ppval){false, 0};
	return (ppval){true, 0}; /* nothing defines it: the preprocessor reads 0 */
}

static ppval pp_defined(struct ppctx *c, const struct tok *t)
{
	char buf[160];
	const struct macro *m;
	snprintf(buf, sizeof(buf), "%.*s", (int)t->n, t->s);
	if (c->b->every_build) {
		m = build_macro(c->b, buf, strlen(buf));
		return m ? (ppval){true, m->defined} : (ppval){false, 0};
	}
	if (!strcmp(buf, "__CUDACC__") || !strcmp(buf, "__NVCC__"))
		return (ppval){true, c->cuda_file};
	if (!strcmp(buf, "__CUDA_ARCH__"))
		return c->cuda_file ? (ppval){false, 0} : (ppval){true, 0};
	if (!strncmp(buf, "CPU_CAPABILITY_", 15) && !build_macro(c->b, buf, strlen(buf))) {
		c->select = true;
		return (ppval){false, 0};
	}
	if ((m = build_macro(c->b, buf, strlen(buf))))
		return (ppval){true, m->defined};
	if (ot_index_defines(c->ix, buf))
		return (ppval){false, 0};
	return (ppval){true, 0};
}

static ppval pp_primary(struct ppctx *c, struct toks *tk)
{
	const struct tok *t = peek(tk);
	if (t->kind == TK_END)
		return (ppval){false, 0};
	tk->at++;
	if (op_is(t, "!")) {
		ppval v = pp_primary(c, tk);
		return (ppval){v.known, !v.v};
	}
	if (op_is(t, "-")) {
		ppval v = pp_primary(c, tk);
		return (ppval){v.known, -v.v};
	}
	if (op_is(t, "(")) {
		ppval v = pp_expr(c, tk, 0);
		if (op_is(peek(tk), ")"))
			tk->at++;
		return v;
	}
	if (t->kind == TK_NUM)
		return (ppval){true, strtol(t->s, NULL, 0)};
	if (name_is(t, "defined")) {
		bool paren = op_is(peek(tk), "(");
		const struct tok *n;
		if (paren)
			tk->at++;
		n = peek(tk);
		if (n->kind != TK_NAME)
			return (ppval){false, 0};
		tk->at++;
		if (paren && op_is(peek(tk), ")"))
			tk->at++;
		return pp_defined(c, n);
	}
	if (t->kind == TK_NAME) {
		if (op_is(peek(tk), "(")) {
			/* NAME(args): only the name decides */
			int depth = 0;
			do {
				if (op_is(peek(tk), "("))
					depth++;
				else if (op_is(peek(tk), ")"))
					depth--;
				tk->at++;
			} while (depth > 0 && peek(tk)->kind != TK_END);
			return pp_name(c, t, true);
		}
		return pp_name(c, t, false);
	}
	return (ppval){false, 0};
}

static int pp_prec(const struct tok *t)
{
	static const struct {
		const char *op;
		int prec;
	} table[] = {{"||", 1}, {"&&", 2}, {"==", 3}, {"!=", 3}, {"<", 4}, {">", 4},
		     {"<=", 4}, {">=", 4}, {"+", 5},  {"-", 5},  {"*", 6}, {"/", 6}};
	for (size_t i = 0; i < OT_ARRAY_LEN(table); i++)
		if (op_is(t, table[i].op))
			return table[i].prec;
	return -1;
}

static ppval pp_expr(struct ppctx *c, struct toks *tk, int min)
{
	ppval l = pp_primary(c, tk);
	for (;;) {
		const struct tok *op = peek(tk);
		int p = pp_prec(op);
		ppval r;
		if (p < 0 || p <= min - 1 || p < min)
			return l;
		tk->at++;
		r = pp_expr(c, tk, p + 1);
		if (op_is(op, "||")) {
			if ((l.known && l.v) || (r.known && r.v))
				l = (ppval){true, 1};
			else
				l = (ppval){l.known && r.known, 0};
		} else if (op_is(op, "&&")) {
			if ((l.known && !l.v) || (r.known && !r.v))
				l = (ppval){true, 0};
			else
				l = (ppval){l.known && r.known, 1};
		} else {
			long v = op_is(op, "==")   ? l.v == r.v
				 : op_is(op, "!=") ? l.v != r.v
				 : op_is(op, "<")  ? l.v < r.v
				 : op_is(op, ">")  ? l.v > r.v
				 : op_is(op, "<=") ? l.v <= r.v
				 : op_is(op, ">=") ? l.v >= r.v
				 : op_is(op, "+")  ? l.v + r.v
				 : op_is(op, "-")  ? l.v - r.v
				 : op_is(op, "*")  ? l.v * r.v
						   : (r.v ? l.v / r.v : 0);
			l = (ppval){l.known && r.known, v};
		}
	}
}

static ot_tri pp_eval(struct ppctx *c, const char *expr)
{
	struct toks tk;
	ppval v;
	tokenize(&tk, expr, false);
	if (tk.overflow)
		return OT_TRI_UNKNOWN;
	v = pp_expr(c, &tk, 0);
	return !v.known ? OT_TRI_UNKNOWN : v.v ? OT_TRI_TRUE : OT_TRI_FALSE;
}

/* Is `arm` taken, given its parent is? (Its own expression, and no earlier
 * arm of its chain.) */
static ot_verdict arm_own(struct ppctx *c, const ot_ix_file *f, uint32_t arm)
{
	const ot_ix_pparm *a = &f->pparms[arm - 1];
	ot_verdict v = ot_verdict_true();
	for (uint32_t p = a->prev; p && p <= f->npparms; p = f->pparms[p - 1].prev) {
		const ot_ix_pparm *e = &f->pparms[p - 1];
		ot_tri t = e->expr ? tri_not(pp_eval(c, e->expr)) : OT_TRI_FALSE;
		if (t != OT_TRI_TRUE && v.value != OT_TRI_FALSE)
			v = (ot_verdict){.value = tri_and(v.value, t), .text = e->expr, .negated = true, .line = e->line};
	}
	if (a->expr && v.value != OT_TRI_FALSE) {
		ot_tri t = pp_eval(c, a->expr);
		if (t != OT_TRI_TRUE)
			v = (ot_verdict){.value = tri_and(v.value, t), .text = a->expr, .line = a->line};
	}
	if (!a->expr && v.value != OT_TRI_TRUE && !v.text)
		v.text = "#else";
	return v;
}

/* ot_cond_pparm, the file compiled by nvcc when `nvcc`, else as its name says. */
static ot_verdict pparm(const ot_build *b, const ot_index *ix, uint32_t file, uint32_t arm, bool nvcc)
{
	const ot_ix_file *f = ot_index_file(ix, file);
	struct ppctx c = {b, ix, false, false};
	ot_verdict v = ot_verdict_true();
	if (!f)
		return v;
	c.cuda_file = nvcc || ot_ends_with(f->path, ".cu") || ot_ends_with(f->path, ".cuh");
	for (int guard = 0; arm && arm <= f->npparms && guard < 64; guard++) {
		ot_verdict own = arm_own(&c, f, arm);
		if (own.value != OT_TRI_TRUE) {
			/* the outermost arm that is not taken is the reason */
			if (own.value == OT_TRI_FALSE || v.value != OT_TRI_FALSE)
				v = own;
		}
		arm = f->pparms[arm - 1].parent;
	}
	if (v.value == OT_TRI_UNKNOWN && c.select)
		v.select = true;
	return v;
}

ot_verdict ot_cond_pparm(const ot_build *b, const ot_index *ix, uint32_t file, uint32_t arm)
{
	return pparm(b, ix, file, arm, false);
}

ot_verdict ot_cond_pparm_nvcc(const ot_build *b, const ot_index *ix, uint32_t file, uint32_t arm)
{
	return pparm(b, ix, file, arm, true);
}

bool ot_cond_pparm_never(const ot_index *ix, uint32_t file, uint32_t arm)
{
	return arm && ot_cond_pparm(&every_build, ix, file, arm).value == OT_TRI_FALSE;
}

/* ---- C++ and Python terms ------------------------------------------------------------------- */

struct ectx {
	const ot_cenv *cenv;
	const ot_pyenv *pyenv;
	ot_device dev;
	int depth; /* local booleans followed */
	/* ot_cond_py_reaches: the operand asked about (a pointer into the
	 * text), whether evaluation reaches it, and the operand deciding that */
	const char *target;
	ot_tri reach;
	const char *decider, *decider_end;
	bool decider_negated;
};

static value expr(struct ectx *c, struct toks *tk, int min);
static value text_value(struct ectx *c, const char *text);

/* The segments of a name chain: the last name, whether it is called, and
 * whether it follows '.'/'->' (a member). */
struct chain {
	const struct tok *first, *last; /* the first and the last name token */
	size_t start, end;               /* token range */
	bool called, member, qualified;
	size_t nnames;
};

/* A variable template of a type trait (std::is_same_v<T, Tensor>): its
 * <...> are template arguments, not comparisons. */
static bool var_template(const struct tok *t)
{
	return t->n > 2 && t->s[t->n - 2] == '_' && t->s[t->n - 1] == 'v';
}

/* Read a chain at tk->at: [::] name (:: name)* ( (...) | [...] | . name | -> name )*,
 * with leading * and & dropped. */
static bool read_chain(struct toks *tk, struct chain *ch)
{
	memset(ch, 0, sizeof(*ch));
	while (op_is(peek(tk), "*") || op_is(peek(tk), "&"))
		tk->at++;
	ch->start = tk->at;
	if (op_is(peek(tk), "::"))
		tk->at++;
	if (peek(tk)->kind != TK_NAME)
		return false;
	for (;;) {
		const struct tok *t = peek(tk);
		if (t->kind == TK_NAME) {
			if (!ch->first)
				ch->first = t;
			ch->last = t;
			ch->nnames++;
			ch->called = false;
			tk->at++;
		} else {
			break;
		}
		/* template arguments after a name: skip a balanced <...> that ends in '(' */
		if (!tk->python && op_is(peek(tk), "<")) {
			size_t save = tk->at, depth = 0;
			for (; tk->at < tk->n; tk->at++) {
				if (op_is(peek(tk), "<"))
					depth++;
				else if (op_is(peek(tk), ">") && --depth == 0)
					break;
				else if (op_is(peek(tk), ">>") && depth <= 2) {
					depth = 0;
					break;
				}
			}
			if (depth == 0 && tk->at < tk->n &&
			    ((tk->at + 1 < tk->n &&
			      (op_is(&tk->t[tk->at + 1], "(") || op_is(&tk->t[tk->at + 1], "::"))) ||
			     var_template(ch->last)))
				tk->at++;
			else
				tk->at = save;
		}
		for (;;) {
			const struct tok *p = peek(tk);
			if (op_is(p, "(") || op_is(p, "[")) {
				int depth = 0;
				bool call = op_is(p, "(");
				do {
					if (op_is(peek(tk), "(") || op_is(peek(tk), "["))
						depth++;
					else if (op_is(peek(tk), ")") || op_is(peek(tk), "]"))
						depth--;
					tk->at++;
				} while (depth > 0 && peek(tk)->kind != TK_END);
				if (call)
					ch->called = true;
				continue;
			}
			break;
		}
		if (op_is(peek(tk), "::")) {
			ch->qualified = true;
			tk->at++;
			continue;
		}
		if (op_is(peek(tk), ".") || op_is(peek(tk), "->")) {
			ch->member = true;
			tk->at++;
			continue;
		}
		break;
	}
	ch->end = tk->at;
	return true;
}

static bool chain_has(const struct toks *tk, const struct chain *ch, const char *word)
{
	for (size_t i = ch->start; i < ch->end; i++)
		if (name_is(&tk->t[i], word))
			return true;
	return false;
}

/* The argument names of the outermost call in the chain that ends with the
 * name `last`: "x" of is_acceptable(x). */
static const char *param_value(const struct ectx *c, const char *s, size_t n)
{
	if (c->cenv) {
		for (size_t i = 0; i < c->cenv->nparams; i++) {
			const ot_param_value *p = &c->cenv->params[i];
			if (p->value && strlen(p->name) == n && !memcmp(p->name, s, n))
				return p->value;
		}
	}
	if (c->pyenv && c->pyenv->value_of) {
		char buf[128];
		if (n >= sizeof(buf))
			return NULL;
		snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
		return c->pyenv->value_of(c->pyenv, buf);
	}
	return NULL;
}

/* The value of a literal `n` bytes long (a caller's argument, a default). */
static value literal_value(const char *lit, size_t n)
{
#define LIT(w) (n == sizeof(w) - 1 && !memcmp(lit, w, n))
	if (LIT("true") || LIT("True"))
		return v_truth(OT_TRI_TRUE);
	if (LIT("false") || LIT("False"))
		return v_truth(OT_TRI_FALSE);
	if (LIT("None") || LIT("nullopt") || LIT("std::nullopt") || LIT("c10::nullopt") ||
	    LIT("nullptr") || LIT("undefined") || LIT("{}"))
		return v_empty();
	if (LIT("defined") || LIT(OT_COND_WRAPPED) || LIT(OT_COND_CONTIGUOUS) || LIT(OT_COND_TRUTHY))
		return v_truth(OT_TRI_TRUE);
	if (LIT(OT_COND_NOT_FLOAT))
		return v_sym(OT_COND_NOT_FLOAT);
	if (LIT(OT_COND_OBJECT))
		return v_sym(OT_COND_OBJECT);
	if (LIT("nonzero")) {
		/* a count passed on (N = iter.numel()): more than 0 */
		value v = v_sym("nonzero");
		v.truth = OT_TRI_TRUE;
		return v;
	}
#undef LIT
	if (n && (isdigit((unsigned char)lit[0]) || (lit[0] == '-' && n > 1) ||
		  (lit[0] == '.' && n > 1 && isdigit((unsigned char)lit[1])))) /* .5 */
		return v_num(strtod(lit, NULL));
	if (n >= 2 && (lit[0] == '\'' || lit[0] == '"')) {
		value v = v_symn(lit, n);
		v.truth = n > 2 ? OT_TRI_TRUE : OT_TRI_FALSE;
		return v;
	}
	{
		const char *sym = constant_symbol(lit, n); /* Float: a dtype passed on */
		size_t ln = n;
		const char *last = unqualified(lit, &ln);
		if (sym)
			return v_sym(sym);
		if (last != lit && !memchr(lit, '(', n) && enumerator(last, ln))
			return v_symn(lit, n); /* an enumerator passed on */
	}
	return v_unknown();
}

/* How the local `s` (n bytes, declared where `decl` points, past its
 * name) is assigned again in [from, end): not at all, only narrowed by a
 * conjunction with itself or set to false (`s &= x`, `s = s && x`,
 * `s = false`: a false value stays false), or otherwise (`s = ...`,
 * `s |= ...`). */
enum reassign { REASSIGN_NONE, REASSIGN_NARROWED, REASSIGN_OTHER };

static enum reassign assigned_again(const char *from, const char *end, const char *s, size_t n,
				    const char *decl)
{
	enum reassign r = REASSIGN_NONE;
	for (const char *p = from; (p = memmem(p, (size_t)(end - p), s, n)); p += n) {
		const char *q = p + n, *v;
		if (p + n == decl || (p > from && ot_is_ident_char(p[-1])) || ot_is_ident_char(*q) ||
		    (p > from && (p[-1] == '.' || p[-1] == '>')))
			continue;
		/* counted: n++, ++n, n--, --n */
		if ((q + 1 < end && (q[0] == '+' || q[0] == '-') && q[1] == q[0]) ||
		    (p - from >= 2 && (p[-1] == '+' || p[-1] == '-') && p[-2] == p[-1]))
			return REASSIGN_OTHER;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q + 1 < end && q[0] == '&' && q[1] == '=') {
			r = REASSIGN_NARROWED;
			continue;
		}
		if (q + 1 < end && strchr("|^+-*/", q[0]) && q[1] == '=')
			return REASSIGN_OTHER;
		if (!(q + 1 < end && q[0] == '=' && q[1] != '='))
			continue;
		for (v = q + 1; v < end && (*v == ' ' || *v == '\t'); v++)
			;
		if (end - v > 5 && !memcmp(v, "false", 5) && !ot_is_ident_char(v[5])) {
			r = REASSIGN_NARROWED; /* s = false: a false value stays false */
			continue;
		}
		if ((size_t)(end - v) > n + 2 && !memcmp(v, s, n) && !ot_is_ident_char(v[n])) {
			for (v += n; v < end && (*v == ' ' || *v == '\t'); v++)
				;
			if (end - v > 2 && v[0] == '&' && v[1] == '&') {
				r = REASSIGN_NARROWED; /* s = s && x */
				continue;
			}
		}
		return REASSIGN_OTHER;
	}
	return r;
}

bool ot_cond_assigned(const char *code, uint32_t from, uint32_t to, const char *name)
{
	return from < to && assigned_again(code + from, code + to, name, strlen(name), NULL) != REASSIGN_NONE;
}

/* Where the body's text that can have set a local before the condition
 * ends: the end of the condition's line when it is told, else of the body. */
static const char *condition_end(const ot_cenv *e)
{
	const char *end = e->code + e->body_end;
	if (e->line_off && e->line && e->line < e->nlines && e->line_off[e->line] < e->body_end &&
	    e->line_off[e->line] > e->body)
		end = e->code + e->line_off[e->line];
	return end;
}

/* Does the text before `b` (in `code`) end with the type name `type`? */
static bool declared_as(const char *code, const char *b, const char *type)
{
	size_t n = strlen(type);
	return (size_t)(b - code) >= n && !memcmp(b - n, type, n) &&
	       ((size_t)(b - code) == n || !ot_is_ident_char(b[-(long)n - 1]));
}

/* `const bool NAME = EXPR;` (or auto, a ScalarType, an int64_t or int) in
 * the body before the condition, not assigned or counted again. */
static value local_bool(struct ectx *c, const char *s, size_t n)
{
	const ot_cenv *e = c->cenv;
	const char *p, *end;
	enum reassign again;
	if (!e || !e->code || c->depth > 3)
		return v_unknown();
	p = e->code + e->body;
	end = e->code + e->body_end;
	while ((p = memmem(p, (size_t)(end - p), s, n))) {
		const char *q = p + n, *b = p;
		p += n;
		if (ot_is_ident_char(*q) || (b > e->code && ot_is_ident_char(b[-1])))
			continue;
		while (b > e->code && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (!declared_as(e->code, b, "bool") && !declared_as(e->code, b, "auto") &&
		    !declared_as(e->code, b, "ScalarType") && !declared_as(e->code, b, "int64_t") &&
		    !declared_as(e->code, b, "int") && !declared_as(e->code, b, "double") &&
		    !declared_as(e->code, b, "Scalar"))
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '=' || q[1] == '=')
			continue;
		again = assigned_again(e->code + e->body, condition_end(e), s, n, p);
		if (again == REASSIGN_OTHER)
			return v_unknown(); /* its value depends on where the condition is */
		{
			const char *semi = memchr(q, ';', (size_t)(end - q));
			char buf[1200];
			struct toks tk;
			value v;
			if (!semi || semi - q - 1 >= (long)sizeof(buf))
				return v_unknown();
			snprintf(buf, sizeof(buf), "%.*s", (int)(semi - q - 1), q + 1);
			tokenize(&tk, buf, false);
			c->depth++;
			v = tk.overflow ? v_unknown() : expr(c, &tk, 0);
			c->depth--;
			if (tk.at < tk.n)
				return v_unknown(); /* what the grammar did not take */
			if (v.has_sym && v.sym >= buf && v.sym < buf + sizeof(buf)) {
				/* a constant the evaluator knows (MemoryFormat::Preserve)
				 * by its own name; another enumerator of buf is gone
				 * on return */
				const char *k = constant_symbol(v.sym, v.symn);
				if (!k)
					return v_unknown();
				v.sym = k;
				v.symn = strlen(k);
			}
			/* narrowed later: only a false start value is known */
			return again == REASSIGN_NARROWED && v.truth != OT_TRI_FALSE ? v_unknown() : v;
		}
	}
	return v_unknown();
}

/* The initializer of local `s` (n bytes) declared in the body of `e` with a
 * type (`auto s = ...;`, `c10::MaybeOwned<Tensor> s = ...;`, `const Tensor&
 * s = ...;`) and not assigned again: *init and *len point into the body;
 * false when there is none. */
static bool local_decl(const ot_cenv *e, const char *s, size_t n, const char **init, size_t *len)
{
	const char *p, *end;
	if (!e || !e->code)
		return false;
	p = e->code + e->body;
	end = e->code + e->body_end;
	while ((p = memmem(p, (size_t)(end - p), s, n))) {
		const char *q = p + n, *b = p, *semi;
		p += n;
		if (ot_is_ident_char(*q) || (b > e->code && ot_is_ident_char(b[-1])))
			continue;
		while (b > e->code && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n'))
			b--;
		/* a type before the name: a declaration, not a use */
		if (b == e->code || !(ot_is_ident_char(b[-1]) || b[-1] == '>' || b[-1] == '&') ||
		    (b - e->code >= 6 && !memcmp(b - 6, "return", 6)))
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '=' || q[1] == '=')
			continue;
		if (assigned_again(e->code + e->body, end, s, n, p) != REASSIGN_NONE)
			return false;
		semi = memchr(q, ';', (size_t)(end - q));
		if (!semi)
			return false;
		*init = q + 1;
		*len = (size_t)(semi - q - 1);
		return true;
	}
	return false;
}

/* local_decl's initializer, into buf (size bytes); false when there is none
 * or it does not fit. */
static bool local_init(const struct ectx *c, const char *s, size_t n, char *buf, size_t size)
{
	const char *init;
	size_t len;
	if (!local_decl(c->cenv, s, n, &init, &len) || len >= size)
		return false;
	snprintf(buf, size, "%.*s", (int)len, init);
	return true;
}

static value local_defined(struct ectx *c, const char *s, size_t n);

/* Is the Tensor expression `t` as written known to be undefined (FALSE): a
 * default-constructed Tensor, `*opt` or borrow_from_optional_tensor(opt)
 * of a parameter the caller passes None for, or of a local that is? UNKNOWN
 * otherwise. */
static ot_tri tensor_text_defined(struct ectx *c, const char *t)
{
	static const char *const undefined[] = {"Tensor()", "at::Tensor()", "{}", "Tensor{}",
						"c10::MaybeOwned<Tensor>::owned(std::in_place)",
						"MaybeOwned<Tensor>::owned(std::in_place)"};
	const char *open, *lit;
	char name[64];
	size_t k;
	while (*t == ' ')
		t++;
	for (size_t i = 0; i < OT_ARRAY_LEN(undefined); i++)
		if (!strcmp(t, undefined[i]))
			return OT_TRI_FALSE;
	/* borrowed(*opt), borrow_from_optional_tensor(opt), *opt: opt's */
	open = strrchr(t, '(');
	open = open ? open + 1 : t;
	while (*open == '*' || *open == ' ')
		open++;
	k = strspn(open, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	if (!k || k >= sizeof(name) || (open[k] && open[k] != ')' && open[k] != ' '))
		return OT_TRI_UNKNOWN;
	memcpy(name, open, k);
	name[k] = '\0';
	lit = param_value(c, name, k);
	if (lit && (!strcmp(lit, "undefined") || empty_literal(lit)))
		return OT_TRI_FALSE;
	if (!lit && c->cenv) {
		/* a local in turn: `const Tensor& w = *w_maybe_owned;` after
		 * `MaybeOwned<Tensor> w_maybe_owned = borrow_from_optional_tensor(w_opt);` */
		value v;
		c->depth++;
		v = local_defined(c, name, k);
		c->depth--;
		return v.truth == OT_TRI_FALSE ? OT_TRI_FALSE : OT_TRI_UNKNOWN;
	}
	return OT_TRI_UNKNOWN;
}

/* Is local Tensor `s` defined, as its declaration tells: `auto bias =
 * bias_opt.has_value() ? MaybeOwned<Tensor>::borrowed(*bias_opt) :
 * MaybeOwned<Tensor>::owned(std::in_place);` with bias_opt None is not. */
static value local_defined(struct ectx *c, const char *s, size_t n)
{
	char init[600];
	value cond;
	size_t q = SIZE_MAX, colon = SIZE_MAX;
	int depth = 0;
	if (c->depth > 3 || !local_init(c, s, n, init, sizeof(init)))
		return v_unknown();
	/* the top-level `?` and the `:` that pairs with it (a ternary in its
	 * else arm has its own) */
	for (size_t i = 0, open = 0; init[i] && colon == SIZE_MAX; i++) {
		if (strchr("([{<", init[i]))
			depth++;
		else if (strchr(")]}>", init[i]) && depth)
			depth--;
		else if (!depth && init[i] == '?') {
			if (q == SIZE_MAX)
				q = i;
			open++;
		} else if (!depth && init[i] == ':' && q != SIZE_MAX && init[i + 1] != ':' &&
			   (!i || init[i - 1] != ':') && !--open) {
			colon = i;
		}
	}
	if (q == SIZE_MAX)
		return v_truth(tensor_text_defined(c, init));
	if (colon == SIZE_MAX)
		return v_unknown();
	init[q] = '\0';
	init[colon] = '\0';
	cond = text_value(c, init);
	if (cond.truth == OT_TRI_UNKNOWN)
		return v_unknown();
	return v_truth(tensor_text_defined(c, cond.truth == OT_TRI_TRUE ? init + q + 1 : init + colon + 1));
}

/* The arguments of the call `ch` ends with, as written (tokens joined),
 * into argbuf; returns how many (at most 8). */
static size_t call_args(struct toks *tk, const struct chain *ch, char argbuf[8][96], const char *args[8])
{
	size_t nargs = 0, open = ch->end;
	for (size_t i = ch->start; i < ch->end; i++)
		if (&tk->t[i] == ch->last && i + 1 < ch->end && op_is(&tk->t[i + 1], "("))
			open = i + 1;
	if (open < ch->end) {
		int depth = 0;
		size_t a = 0;
		argbuf[0][0] = '\0';
		for (size_t i = open + 1; i < ch->end && nargs < 8; i++) {
			const struct tok *t = &tk->t[i];
			if (op_is(t, "(") || op_is(t, "["))
				depth++;
			else if ((op_is(t, ")") || op_is(t, "]")) && depth-- == 0) {
				if (a) {
					args[nargs] = argbuf[nargs];
					nargs++;
				}
				break;
			}
			if (op_is(t, ",") && depth == 0) {
				args[nargs] = argbuf[nargs];
				nargs++;
				a = 0;
				if (nargs < 8)
					argbuf[nargs][0] = '\0';
				continue;
			}
			if (a + t->n + 2 < 96) {
				if (a && t->kind == TK_NAME && ot_is_ident_char(argbuf[nargs][a - 1]))
					argbuf[nargs][a++] = ' '; /* two names stay two */
				memcpy(argbuf[nargs] + a, t->s, t->n);
				a += t->n;
				argbuf[nargs][a] = '\0';
			}
		}
	}
	return nargs;
}

/* Ask the environment for the value of the helper call `ch` ends with. */
static value helper_value(struct ectx *c, struct toks *tk, const struct chain *ch)
{
	char qual[160] = "", name[96], argbuf[8][96];
	const char *args[8];
	size_t nargs, k = 0;
	ot_verdict v;
	value out;
	/* the qualifier: the names and '::' before the last name */
	for (size_t i = ch->start; i < ch->end && &tk->t[i] != ch->last; i++)
		if ((tk->t[i].kind == TK_NAME || op_is(&tk->t[i], "::")) && k + tk->t[i].n + 1 < sizeof(qual)) {
			memcpy(qual + k, tk->t[i].s, tk->t[i].n);
			k += tk->t[i].n;
		}
	qual[k] = '\0';
	if (k >= 2 && qual[k - 1] == ':')
		qual[k - 2] = '\0';
	snprintf(name, sizeof(name), "%.*s", (int)ch->last->n, ch->last->s);
	nargs = call_args(tk, ch, argbuf, args);
	v = c->cenv->call_value(c->cenv, qual, name, args, nargs);
	out = v_truth(v.value);
	out.select = v.select;
	return out;
}

/* The value of an argument text, in the same context. */
static value text_value(struct ectx *c, const char *text)
{
	struct toks tk;
	value v;
	if (c->depth > 3)
		return v_unknown();
	tokenize(&tk, text, c->pyenv != NULL);
	c->depth++;
	v = tk.overflow ? v_unknown() : expr(c, &tk, 0);
	c->depth--;
	return tk.at < tk.n ? v_unknown() : v;
}

/* Does the call `ch` ends with name the output: dtype() or dtype(0)? */
static bool output_index(const struct toks *tk, const struct chain *ch)
{
	size_t i = (size_t)(ch->last - tk->t) + 1;
	if (i + 1 < tk->n && op_is(&tk->t[i], "(") && op_is(&tk->t[i + 1], ")"))
		return true;
	return i + 2 < tk->n && op_is(&tk->t[i], "(") && tk->t[i + 1].kind == TK_NUM &&
	       tk->t[i + 1].n == 1 && tk->t[i + 1].s[0] == '0' && op_is(&tk->t[i + 2], ")");
}

/* Does op (a full name, "ne.Scalar") write a Bool tensor for float
 * inputs: a comparison or a logical or a classification op, not in place? */
static bool bool_output_op(const char *op)
{
	static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
					    "greater_equal", "less_equal", "not_equal", "logical_and",
					    "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
					    "isposinf", "isneginf", "isfinite", "signbit", "isreal"};
	size_t n;
	if (!op)
		return false;
	n = strcspn(op, ".");
	for (size_t i = 0; i < OT_ARRAY_LEN(names); i++)
		if (strlen(names[i]) == n && !memcmp(op, names[i], n))
			return true;
	return false;
}

/* The scalar type that at::toAccumulateType(t, is_cuda or device),
 * c10::toRealValueType(t) or at::toOpMathType(t) names for a float32 t:
 * float on CUDA and for the real value or op-math type, double for the
 * CPU's accumulation. */
static value scalar_type_value(struct ectx *c, struct toks *tk, const struct chain *ch)
{
	char argbuf[8][96];
	const char *args[8];
	size_t nargs = call_args(tk, ch, argbuf, args);
	value t = nargs ? text_value(c, args[0]) : v_unknown();
	if (!sym_is(t, "Float"))
		return v_unknown();
	if (!name_is(ch->last, "toAccumulateType"))
		return v_sym("Float");
	if (nargs == 2) {
		value d = text_value(c, args[1]);
		if (sym_is(d, "CUDA"))
			return v_sym("Float");
		if (sym_is(d, "CPU"))
			return v_sym("Double");
		if (!d.has_sym && d.truth == OT_TRI_TRUE)
			return v_sym("Float");
		if (!d.has_sym && d.truth == OT_TRI_FALSE)
			return v_sym("Double");
	}
	return v_unknown();
}

/* torch.strided, torch.sparse_coo, ...: the layout constant C++ names
 * (Layout::Strided), so that `x.layout == torch.strided` compares. */
static const char *py_layout(const char *s, size_t n)
{
	static const char *const layouts[][2] = {
		{"strided", "Strided"},	      {"sparse_coo", "Sparse"},	    {"sparse_csr", "SparseCsr"},
		{"sparse_csc", "SparseCsc"}, {"sparse_bsr", "SparseBsr"}, {"sparse_bsc", "SparseBsc"},
		{"_mkldnn", "Mkldnn"},	      {"jagged", "Jagged"}};
	for (size_t i = 0; i < OT_ARRAY_LEN(layouts); i++)
		if (strlen(layouts[i][0]) == n && !memcmp(layouts[i][0], s, n))
			return layouts[i][1];
	return NULL;
}

/* The Python type of a literal the call fixes: "int", "float", "bool",
 * "str", "NoneType", "tuple", "list", or NULL. */
static const char *py_literal_type(const char *lit)
{
	if (!strcmp(lit, "None"))
		return "NoneType";
	if (!strcmp(lit, "True") || !strcmp(lit, "False"))
		return "bool";
	if (lit[0] == '\'' || lit[0] == '"')
		return "str";
	if (lit[0] == '(')
		return "tuple";
	if (lit[0] == '[')
		return "list";
	if (isdigit((unsigned char)lit[0]) || (lit[0] == '-' && isdigit((unsigned char)lit[1]))) {
		if (lit[strspn(lit, "-0123456789")] == '\0')
			return "int";
		if (lit[strspn(lit, "-0123456789.eE+")] == '\0')
			return "float";
	}
	return NULL;
}

/*
 * isinstance(x, T) in Python, for an x the call fixes to a literal (a
 * caller's argument, a default): the literal's type against the builtin
 * names T lists. True when one matches (bool is an int; numbers.Number
 * takes the three); false when every name is a builtin, SymInt/SymFloat/
 * SymBool or Tensor and none matches; else (Sequence, a class) not known.
 */
static value py_isinstance(struct ectx *c, struct toks *tk, const struct chain *ch)
{
	static const char *const builtin[] = {"int",   "float", "bool", "str",	  "NoneType", "tuple",
					      "list",  "dict",	"complex", "Number", "SymInt",   "SymFloat",
					      "SymBool", "Tensor"};
	char argbuf[8][96], types[96];
	const char *args[8], *lit, *ty, *p;
	bool all_known = true;
	if (call_args(tk, ch, argbuf, args) != 2 || !c->pyenv->value_of ||
	    !(lit = c->pyenv->value_of(c->pyenv, args[0])) || !(ty = py_literal_type(lit)))
		return v_unknown();
	snprintf(types, sizeof(types), "%s", args[1]);
	for (p = types; *p;) {
		size_t n = strcspn(p, ",()"), k = n, b = 0;
		bool known = false;
		while (k && p[k - 1] == ' ')
			k--;
		for (size_t i = 0; i < k; i++) /* numbers.Number, torch.SymInt: the last name */
			if (p[i] == '.')
				b = i + 1;
		while (b < k && p[b] == ' ')
			b++;
		if (k > b) {
			const char *name = p + b;
			size_t len = k - b;
#define IS(w) (len == sizeof(w) - 1 && !memcmp(name, w, len))
			if ((IS("int") && (!strcmp(ty, "int") || !strcmp(ty, "bool"))) ||
			    (IS("Number") && (!strcmp(ty, "int") || !strcmp(ty, "bool") || !strcmp(ty, "float"))) ||
			    (strlen(ty) == len && !memcmp(name, ty, len)))
				return v_truth(OT_TRI_TRUE);
#undef IS
			for (size_t i = 0; i < OT_ARRAY_LEN(builtin); i++)
				known = known || (strlen(builtin[i]) == len && !memcmp(builtin[i], name, len));
			all_known = all_known && known;
		}
		p += n;
		if (*p)
			p++;
	}
	return all_known ? v_truth(OT_TRI_FALSE) : v_unknown();
}

/* The value of a chain: what the default call on c->dev makes of it. */
static value chain_value(struct ectx *c, struct toks *tk, const struct chain *ch)
{
	const char *s = ch->last->s;
	size_t n = ch->last->n;
	const char *sym;

	/* constants: true, nullptr, kFloat, at::kCUDA, ScalarType::Half, "cuda" */
	if (!ch->called && !ch->member && name_is(ch->last, "nullopt"))
		return v_empty();
	if (ch->nnames == 1 && !ch->called && !ch->member) {
		const char *lit;
		if (name_is(ch->last, "true") || name_is(ch->last, "True"))
			return v_truth(OT_TRI_TRUE);
		if (name_is(ch->last, "false") || name_is(ch->last, "False"))
			return v_truth(OT_TRI_FALSE);
		if (name_is(ch->last, "nullptr") || name_is(ch->last, "None") ||
		    name_is(ch->last, "nullopt"))
			return v_empty();
		if ((lit = param_value(c, s, n)))
			return literal_value(lit, strlen(lit));
		if (name_is(ch->last, "device_type") || name_is(ch->last, "device"))
			return v_sym(ot_device_name(c->dev));
	}
	/* at::Reduction::Mean and its kin: the enum's values */
	if (!ch->called && ch->nnames >= 2) {
		const struct tok *prev = &tk->t[ch->end - 3 < ch->start ? ch->start : ch->end - 3];
		if (prev->kind == TK_NAME && prev->n == 9 && !memcmp(prev->s, "Reduction", 9)) {
			if (name_is(ch->last, "None"))
				return v_num(0);
			if (name_is(ch->last, "Mean"))
				return v_num(1);
			if (name_is(ch->last, "Sum"))
				return v_num(2);
		}
	}
	/* Python: a dotted name the body or the Module gives a literal (self.padding_mode) */
	if (c->pyenv && c->pyenv->value_of && !ch->called && ch->nnames > 1) {
		char dotted[160];
		size_t k = 0;
		bool plain = true;
		for (size_t i = ch->start; i < ch->end && plain; i++) {
			const struct tok *t = &tk->t[i];
			if (!(t->kind == TK_NAME || op_is(t, ".")) || k + t->n + 1 >= sizeof(dotted))
				plain = false;
			else {
				memcpy(dotted + k, t->s, t->n);
				k += t->n;
			}
		}
		dotted[k] = '\0';
		if (plain) {
			const char *lit = c->pyenv->value_of(c->pyenv, dotted);
			if (lit)
				return literal_value(lit, strlen(lit));
		}
	}
	if (!ch->called && (sym = constant_symbol(tk->t[ch->start].s,
						  (size_t)(ch->last->s + ch->last->n - tk->t[ch->start].s))))
		return v_sym(sym);
	if (!ch->called && !ch->member && ch->qualified && enumerator(ch->last->s, ch->last->n))
		/* Activation::GELU: an enumerator, equal only to itself */
		return v_symn(tk->t[ch->start].s, (size_t)(ch->last->s + ch->last->n - tk->t[ch->start].s));
	if (ch->nnames == 1 && !ch->called && !ch->member && !ch->qualified && c->cenv)
		return local_bool(c, s, n);

	/* Tensor properties */
	if (WORD_IN(s, n, false_props))
		return v_truth(OT_TRI_FALSE);
	if (WORD_IN(s, n, true_props))
		return v_truth(OT_TRI_TRUE);
	if (word_in(s, n, (const char *const[]){"is_cuda"}, 1))
		return v_truth(c->dev == OT_DEV_CUDA ? OT_TRI_TRUE : OT_TRI_FALSE);
	/* a default dense tensor is contiguous in the default memory format,
	 * not channels-last */
	if (ch->called && name_is(ch->last, "suggest_memory_format"))
		return v_sym("Contiguous");
	if (ch->called && name_is(ch->last, "is_contiguous")) {
		const char *lit = NULL;
		for (size_t i = ch->start; i < ch->end; i++)
			if (name_is(&tk->t[i], "ChannelsLast") || name_is(&tk->t[i], "ChannelsLast3d"))
				return v_truth(OT_TRI_FALSE);
		/* x.is_contiguous() of a Tensor known to be (a fresh output, the
		 * user's own), unless the body gives x another value first */
		if (ch->nnames == 2 && ch->first->kind == TK_NAME)
			lit = param_value(c, ch->first->s, ch->first->n);
		if (lit && !strcmp(lit, OT_COND_CONTIGUOUS) &&
		    !(c->cenv && c->cenv->code &&
		      assigned_again(c->cenv->code + c->cenv->body, condition_end(c->cenv), ch->first->s,
				     ch->first->n, NULL) != REASSIGN_NONE))
			return v_truth(OT_TRI_TRUE);
	}
	if (word_in(s, n, (const char *const[]){"is_cpu"}, 1))
		return v_truth(c->dev == OT_DEV_CPU ? OT_TRI_TRUE : OT_TRI_FALSE);
	if (ch->called && (name_is(ch->last, "toAccumulateType") || name_is(ch->last, "toRealValueType") ||
			   name_is(ch->last, "toOpMathType")))
		return scalar_type_value(c, tk, ch);
	/* a TensorIterator's output dtype: Bool for a comparison */
	if (ch->called && name_is(ch->last, "dtype") && name_is(ch->first, "iter") && ch->nnames == 2 &&
	    c->cenv && bool_output_op(c->cenv->op) && output_index(tk, ch))
		return v_sym("Bool");
	/* a wrapped Scalar's dtype is not float32; it has no dimension and
	 * one element */
	if (ch->called && ch->first != ch->last && ch->first->kind == TK_NAME) {
		const char *lit = param_value(c, ch->first->s, ch->first->n);
		if (lit && !strcmp(lit, OT_COND_WRAPPED)) {
			if (WORD_IN(s, n, ((const char *const[]){"scalar_type", "dtype", "toScalarType"})))
				return v_sym(OT_COND_NOT_FLOAT);
			if (WORD_IN(s, n, ((const char *const[]){"dim", "ndimension"})))
				return v_num(0);
			if (WORD_IN(s, n, ((const char *const[]){"numel", "sym_numel", "nelement"})))
				return v_num(1);
		}
	}
	/* iter.input_dtype() is the first input's; input_dtype(1), a mask's
	 * or an index's, is not known */
	if (((WORD_IN(s, n, ((const char *const[]){"scalar_type", "dtype", "result_type", "common_dtype"})) &&
	      (ch->called || c->pyenv)) ||
	     (name_is(ch->last, "input_dtype") && ch->called && output_index(tk, ch))))
		return v_sym("Float");
	if (WORD_IN(s, n, ((const char *const[]){"layout"})) && (ch->called || c->pyenv))
		return v_sym("Strided");
	if ((WORD_IN(s, n, ((const char *const[]){"device_type", "type"})) && ch->called &&
	     (chain_has(tk, ch, "device") || name_is(ch->last, "device_type"))) ||
	    (c->pyenv && name_is(ch->last, "type") && chain_has(tk, ch, "device")))
		return v_sym(ot_device_name(c->dev));
	if ((WORD_IN(s, n, ((const char *const[]){"numel", "sym_numel", "nelement"})) ||
	     ((name_is(ch->last, "dim") || name_is(ch->last, "ndimension")) &&
	      (name_is(ch->first, "self") || name_is(ch->first, "input")))) &&
	    ch->called) {
		/* a default tensor has elements, and dimensions: self.dim() is
		 * not 0 (the op's own input; a wrapped Scalar operand is 0-dim) */
		value v = v_sym("nonzero");
		v.truth = OT_TRI_TRUE;
		return v;
	}
	/* a size, a count of elements or a shape of a default tensor is not
	 * zero: m1_sizes[1], self.size(0), input.shape[-1], len(x) */
	if (!name_is(ch->last, "equals")) { /* sizes().equals(x) compares them */
		bool sizeish = false;
		int depth = 0; /* the chain's own names, not its arguments' */
		for (size_t i = ch->start; i < ch->end && !sizeish; i++) {
			const struct tok *t = &tk->t[i];
			if (op_is(t, "(") || op_is(t, "["))
				depth++;
			else if ((op_is(t, ")") || op_is(t, "]")) && depth)
				depth--;
			if (!depth && t->kind == TK_NAME && (memmem(t->s, t->n, "size", 4) || memmem(t->s, t->n, "numel", 5) ||
						  memmem(t->s, t->n, "shape", 5) || (t->n == 3 && !memcmp(t->s, "len", 3))) &&
			    !(t->n > 3 && !memcmp(t->s, "is_", 3)) && !memmem(t->s, t->n, "same_size", 9) &&
			    !memmem(t->s, t->n, "resize", 6))
				sizeish = true;
		}
		if (sizeish) {
			value v = v_sym("nonzero");
			v.truth = OT_TRI_TRUE;
			return v;
		}
	}
	/* a Scalar argument read as a number: beta.toComplexDouble(), alpha.to<double>() */
	if (ch->called && ch->first != ch->last &&
	    (name_is(ch->last, "toComplexDouble") || name_is(ch->last, "toDouble") ||
	     name_is(ch->last, "toFloat") || name_is(ch->last, "toLong") || name_is(ch->last, "toInt") ||
	     name_is(ch->last, "to"))) {
		const char *lit = param_value(c, ch->first->s, ch->first->n);
		if (lit && (isdigit((unsigned char)lit[0]) || lit[0] == '-'))
			return v_num(strtod(lit, NULL));
		/* a local Scalar the body sets (`Scalar ord = opt.has_value() ? opt.value() : 2`) */
		if (!lit && ch->nnames == 2 && c->cenv) {
			value v = local_bool(c, ch->first->s, ch->first->n);
			if (v.has_num)
				return v;
		}
	}
	/* exp.equal(0.5) and exp.isComplex() of a Scalar the caller passed as
	 * a number (self.pow(2) in a derivatives.yaml formula): the comparison,
	 * false; .equal(true/false) of a number is false (a Scalar holding a
	 * bool is another kind) */
	if (ch->called && ch->first != ch->last && ch->nnames == 2 &&
	    (name_is(ch->last, "equal") || name_is(ch->last, "isComplex"))) {
		const char *lit = param_value(c, ch->first->s, ch->first->n);
		value self = lit ? literal_value(lit, strlen(lit)) : v_unknown();
		char argbuf[8][96];
		const char *args[8];
		if (self.has_num && name_is(ch->last, "isComplex"))
			return v_truth(OT_TRI_FALSE); /* a real number */
		if (self.has_num && call_args(tk, ch, argbuf, args) == 1) {
			value a = literal_value(args[0], strlen(args[0]));
			if (!strcmp(args[0], "true") || !strcmp(args[0], "false"))
				return v_truth(OT_TRI_FALSE);
			if (a.has_num)
				return v_truth(self.num == a.num ? OT_TRI_TRUE : OT_TRI_FALSE);
		}
	}
	/* std::abs(x) of a number */
	if (ch->called && (name_is(ch->last, "abs") || name_is(ch->last, "fabs")) && !ch->member) {
		char argbuf[8][96];
		const char *args[8];
		value v = call_args(tk, ch, argbuf, args) == 1 ? text_value(c, args[0]) : v_unknown();
		if (v.has_num)
			return v_num(fabs(v.num));
	}
	/* a default call uses no forward-mode AD: x._fw_grad(level) is an
	 * undefined Tensor */
	if (name_is(ch->last, "defined") && ch->called && chain_has(tk, ch, "_fw_grad"))
		return v_truth(OT_TRI_FALSE);
	/* x.defined() of a parameter or local x; of anything else
	 * (x.grad().defined()) not known */
	if (name_is(ch->last, "defined") && ch->called && ch->first != ch->last && ch->nnames != 2)
		return v_unknown();
	if (name_is(ch->last, "defined") && ch->called && ch->first != ch->last) {
		const char *lit = param_value(c, ch->first->s, ch->first->n);
		if (!lit && ch->nnames == 2 && c->cenv)
			return local_defined(c, ch->first->s, ch->first->n);
		/* `{}` passed for a Tensor is a default-constructed one: undefined */
		if (lit && (!strcmp(lit, "undefined") || empty_literal(lit)))
			return v_truth(OT_TRI_FALSE);
		/* "true": a defined Tensor passed on through an expression (*x) */
		if (lit && (!strcmp(lit, "defined") || !strcmp(lit, "true") || !strcmp(lit, OT_COND_WRAPPED) ||
			    !strcmp(lit, OT_COND_CONTIGUOUS)))
			return v_truth(OT_TRI_TRUE);
		return v_unknown();
	}
	if (name_is(ch->last, "value") && ch->called && ch->first != ch->last && ch->nnames == 2) {
		/* an optional's value: the literal the caller passed (a dtype) */
		const char *lit = param_value(c, ch->first->s, ch->first->n);
		if (!lit || empty_literal(lit) || !strcmp(lit, "defined") || !strcmp(lit, "undefined") ||
		    !strcmp(lit, OT_COND_WRAPPED) || !strcmp(lit, OT_COND_CONTIGUOUS))
			return v_unknown();
		return literal_value(lit, strlen(lit));
	}
	if (name_is(ch->last, "has_value") && ch->called && ch->first != ch->last) {
		/* an optional's emptiness: nullopt, {}, or a Tensor? the schema
		 * defaults to None (passed as an absent Tensor, "undefined") */
		const char *lit = param_value(c, ch->first->s, ch->first->n);
		if (!lit)
			return v_unknown();
		return v_truth(empty_literal(lit) || !strcmp(lit, "undefined") ? OT_TRI_FALSE : OT_TRI_TRUE);
	}
	if (name_is(ch->last, "value_or") && ch->called && ch->first != ch->last) {
		/* opt.value_or(false): the fallback when the caller passes None
		 * (a schema default) and a literal fallback; opt's value when
		 * the caller passes a literal */
		const char *lit = param_value(c, ch->first->s, ch->first->n);
		const struct tok *open = ch->last + 1, *arg = ch->last + 2, *close = ch->last + 3;
		if (!lit)
			return v_unknown();
		/* ("undefined": an optional the caller left None) */
		if (!empty_literal(lit) && strcmp(lit, "undefined"))
			return strcmp(lit, "defined") && strcmp(lit, OT_COND_CONTIGUOUS) ? literal_value(lit, strlen(lit))
										     : v_unknown();
		if (close < tk->t + ch->end && op_is(open, "(") && op_is(close, ")") &&
		    (arg->kind == TK_NAME || arg->kind == TK_NUM))
			return literal_value(arg->s, arg->n);
		if (op_is(open, "(") && arg->kind == TK_NAME) {
			/* a qualified constant: value_or(MemoryFormat::Preserve) */
			const struct tok *t = arg;
			while (t + 2 < tk->t + ch->end && op_is(t + 1, "::") && t[2].kind == TK_NAME)
				t += 2;
			if (t + 1 < tk->t + ch->end && op_is(t + 1, ")")) {
				const char *k = constant_symbol(arg->s, (size_t)(t->s + t->n - arg->s));
				if (k)
					return v_sym(k);
			}
		}
		return v_unknown();
	}
	/* settings */
	if (WORD_IN(s, n, false_settings) || memmem(s, n, "eterministic", 12))
		return v_truth(OT_TRI_FALSE);
	if (WORD_IN(s, n, true_settings))
		return v_truth(OT_TRI_TRUE);
	if (name_is(ch->last, "is_enabled") && chain_has(tk, ch, "GradMode"))
		return v_truth(OT_TRI_TRUE);
	if (name_is(ch->last, "is_enabled") && chain_has(tk, ch, "InferenceMode"))
		return v_truth(OT_TRI_FALSE);
	if (c->pyenv) {
		if (memmem(s, n, "has_torch_function", 18) || name_is(ch->last, "is_scripting") ||
		    name_is(ch->last, "is_tracing"))
			return v_truth(OT_TRI_FALSE);
		if (name_is(ch->last, "training") && name_is(ch->first, "self") && c->pyenv->module)
			return v_truth(OT_TRI_TRUE);
		if (name_is(ch->last, "isinstance") && ch->called) {
			for (size_t i = ch->start; i < ch->end; i++)
				if (name_is(&tk->t[i], "PackedSequence"))
					return v_truth(OT_TRI_FALSE);
			return py_isinstance(c, tk, ch);
		}
		if (!ch->called && ch->nnames == 2 && name_is(ch->first, "torch") &&
		    (sym = py_layout(ch->last->s, ch->last->n)))
			return v_sym(sym);
		if (name_is(ch->last, "enabled") && chain_has(tk, ch, "cudnn"))
			return v_truth(OT_TRI_TRUE);
		if (ch->nnames >= 2 && !ch->called && name_is(ch->last, "is_cuda"))
			return v_truth(c->dev == OT_DEV_CUDA ? OT_TRI_TRUE : OT_TRI_FALSE);
	}
	/* the user's linear-algebra backend preference: Default unless set
	 * (Context.h; TORCH_LINALG_PREFER_CUSOLVER is not) */
	if (ch->called && name_is(ch->last, "linalgPreferredBackend")) {
		value v = v_sym("Default");
		v.select = true;
		return v;
	}
	/* a helper the body calls: what its returns say; else, for the run-time
	 * selections of a backend library, what a release wheel picks */
	if (ch->called && !ch->member && c->cenv && c->cenv->call_value && c->cenv->depth < 3) {
		value v = helper_value(c, tk, ch);
		if (v.truth != OT_TRI_UNKNOWN) {
			/* a selection the device rules out is no choice there */
			v.select = v.select || (is_selection(s, n) && v.truth != OT_TRI_FALSE);
			return v;
		}
	}
	if (ch->called && is_selection(s, n))
		return selection_value(s, n, c->dev);
	return v_unknown();
}

/* A constant naming a backend that a release build for Linux x86-64 never
 * selects for a CPU or CUDA tensor: BatchNormBackend::Miopen, kMPS, 'xpu'. */
static bool foreign_backend(value v)
{
	static const char *const names[] = {"miopen", "mps", "xnnpack", "hip", "vulkan", "metal", "xpu"};
	char low[64];
	size_t n = 0;
	const char *p;
	if (!v.has_sym || v.symn >= sizeof(low))
		return false;
	for (size_t i = 0; i < v.symn; i++)
		low[n++] = (char)tolower((unsigned char)v.sym[i]);
	low[n] = '\0';
	p = strrchr(low, ':'); /* the constant, not its enum's name */
	p = p ? p + 1 : low;
	while (*p == 'k' || *p == '\'' || *p == '"')
		p++;
	for (size_t i = 0; i < OT_ARRAY_LEN(names); i++)
		if (!strncmp(p, names[i], strlen(names[i])))
			return true;
	return false;
}

/* An enumerator (`EmbeddingBagMode::MEAN`, `MEAN`) with the value its
 * enum's definition gives it, when the index has it; else v as it is. */
static value enumerator_value(const struct ectx *c, value v)
{
	const char *name = v.sym, *colon;
	size_t n = v.symn, en = 0;
	const char *enum_name = NULL;
	char key[128];
	if (!v.has_sym || !c->cenv || !c->cenv->ix || n >= sizeof(key))
		return v;
	memcpy(key, v.sym, n);
	key[n] = '\0';
	name = key;
	if ((colon = strrchr(key, ':')) && colon > key && colon[-1] == ':') {
		name = colon + 1;
		/* the enum: the component before the name */
		const char *e = colon - 1, *b = e;
		while (b > key && b[-1] != ':')
			b--;
		enum_name = b;
		en = (size_t)(e - b);
	}
	for (const ot_ix_decl *d = ot_index_decls(c->cenv->ix, name); d; d = d->next)
		if (d->kind == OT_DECL_ENUMERATOR && d->cls &&
		    (!enum_name || (strlen(d->cls) == en && !strncmp(d->cls, enum_name, en)))) {
			v.has_num = true;
			v.num = strtod(d->type, NULL);
			return v;
		}
	return v;
}

static value compare(const struct tok *op, value l, value r)
{
	bool eq = op_is(op, "==") || name_is(op, "is"), ne = op_is(op, "!=");
	ot_tri t = OT_TRI_UNKNOWN;
	if ((eq || ne) && ((foreign_backend(r) && !l.known) || (foreign_backend(l) && !r.known)))
		/* `backend == BatchNormBackend::Miopen` with a backend chosen at
		 * run time: never one this build has */
		return v_truth(eq ? OT_TRI_FALSE : OT_TRI_TRUE);
	if ((eq || ne) && (l.empty || r.empty)) {
		/* None is None; nullopt is no dtype */
		if (l.empty && r.empty)
			return v_truth(eq ? OT_TRI_TRUE : OT_TRI_FALSE);
		if ((l.empty && (r.has_sym || r.has_num)) || (r.empty && (l.has_sym || l.has_num)))
			return v_truth(eq ? OT_TRI_FALSE : OT_TRI_TRUE);
		return v_unknown();
	}
	if ((eq || ne) && (sym_is(l, OT_COND_NOT_FLOAT) || sym_is(r, OT_COND_NOT_FLOAT))) {
		/* a wrapped Scalar's dtype is no Float; against another, not known */
		if (sym_is(l, "Float") || sym_is(r, "Float"))
			return v_truth(eq ? OT_TRI_FALSE : OT_TRI_TRUE);
		return v_unknown();
	}
	if (l.has_sym && r.has_sym) {
		/* 'cuda' == "cuda": compare without the quotes */
		const char *a = l.sym, *b = r.sym;
		size_t an = l.symn, bn = r.symn;
		if (an >= 2 && (a[0] == '\'' || a[0] == '"')) {
			a++;
			an -= 2;
		}
		if (bn >= 2 && (b[0] == '\'' || b[0] == '"')) {
			b++;
			bn -= 2;
		}
		if ((an == 7 && !memcmp(a, "nonzero", 7)) || (bn == 7 && !memcmp(b, "nonzero", 7)))
			return v_unknown();
		/* enumerators of one enum, however qualified where written */
		a = unqualified(a, &an);
		b = unqualified(b, &bn);
		bool same = an == bn && !strncasecmp(a, b, an); /* 'cuda' is kCUDA */
		if (eq || ne)
			t = same == eq ? OT_TRI_TRUE : OT_TRI_FALSE;
		return v_truth(t);
	}
	if ((sym_is(l, "nonzero") && r.has_num && r.num == 0) || (sym_is(r, "nonzero") && l.has_num && l.num == 0)) {
		/* a count is more than 0: n > 0, n >= 0, 0 < n, 0 <= n hold */
		bool gt = op_is(op, ">") || op_is(op, ">="), lt = op_is(op, "<") || op_is(op, "<=");
		if (eq)
			return v_truth(OT_TRI_FALSE);
		if (ne || gt || lt)
			return v_truth(l.has_sym == gt || ne ? OT_TRI_TRUE : OT_TRI_FALSE);
		return v_unknown();
	}
	if (l.has_num && r.has_num) {
		double a = l.num, b = r.num;
		bool res = eq ? a == b : ne ? a != b : op_is(op, "<") ? a < b : op_is(op, ">") ? a > b
			 : op_is(op, "<=")			      ? a <= b
								      : a >= b;
		return v_truth(res ? OT_TRI_TRUE : OT_TRI_FALSE);
	}
	/* `x is None`, `opt == nullopt`: a known truth against the empty value */
	if ((eq || ne) && l.known && !l.has_sym && !l.has_num && r.known && !r.has_sym &&
	    !r.has_num) {
		if (l.truth != OT_TRI_UNKNOWN && r.truth != OT_TRI_UNKNOWN)
			return v_truth((l.truth == r.truth) == eq ? OT_TRI_TRUE : OT_TRI_FALSE);
	}
	/* a Float against any other dtype constant decided above; a symbol of
	 * the call against an unknown value is unknown */
	return v_unknown();
}

static value primary(struct ectx *c, struct toks *tk)
{
	const struct tok *t = peek(tk);
	struct chain ch;
	if (t->kind == TK_END)
		return v_unknown();
	if (op_is(t, "!") || name_is(t, "not")) {
		value v;
		tk->at++;
		v = primary(c, tk);
		v.truth = tri_not(v.truth);
		v.has_num = v.has_sym = false;
		return v;
	}
	if (op_is(t, "(")) {
		value v;
		int depth = 1;
		tk->at++;
		v = expr(c, tk, 0);
		if (op_is(peek(tk), ")")) {
			tk->at++;
			return v;
		}
		/* (a - 1 == b): what the grammar does not take inside is not
		 * known; skip to the closing parenthesis */
		for (; tk->at < tk->n && depth; tk->at++)
			depth += op_is(&tk->t[tk->at], "(") ? 1 : op_is(&tk->t[tk->at], ")") ? -1 : 0;
		return v_unknown();
	}
	if (t->kind == TK_NUM) {
		tk->at++;
		return v_num(number(t->s));
	}
	if (t->kind == TK_STR) {
		tk->at++;
		return literal_value(t->s, t->n);
	}
	if (op_is(t, "-") && peek(tk)->kind != TK_END) {
		value v;
		tk->at++;
		v = primary(c, tk);
		if (v.has_num)
			v.num = -v.num;
		return v;
	}
	if ((name_is(t, "C10_LIKELY") || name_is(t, "C10_UNLIKELY")) && tk->at + 1 < tk->n &&
	    op_is(&tk->t[tk->at + 1], "(")) {
		/* a branch hint: its value is its argument's */
		tk->at++;
		return primary(c, tk);
	}
	if (read_chain(tk, &ch))
		return chain_value(c, tk, &ch);
	tk->at++;
	return v_unknown();
}

static int prec(const struct toks *tk, const struct tok *t, bool *negate)
{
	*negate = false;
	if (op_is(t, "||") || name_is(t, "or"))
		return 1;
	if (op_is(t, "&&") || name_is(t, "and"))
		return 2;
	if (op_is(t, "==") || op_is(t, "!=") || name_is(t, "is") || name_is(t, "in"))
		return 3;
	if (name_is(t, "not") && tk->at + 1 < tk->n && name_is(&tk->t[tk->at + 1], "in")) {
		*negate = true;
		return 3;
	}
	if (op_is(t, "<") || op_is(t, ">") || op_is(t, "<=") || op_is(t, ">="))
		return 4;
	if (op_is(t, "+") || op_is(t, "-"))
		return 5;
	if (op_is(t, "*") || op_is(t, "/") || op_is(t, "//"))
		return 6;
	return -1;
}

/* `l op r` of arithmetic: a number when both are, else not known. */
static value arithmetic(const struct tok *op, value l, value r)
{
	if (!l.has_num || !r.has_num)
		return v_unknown();
	if (op_is(op, "+"))
		return v_num(l.num + r.num);
	if (op_is(op, "-"))
		return v_num(l.num - r.num);
	if (op_is(op, "*"))
		return v_num(l.num * r.num);
	return r.num != 0 ? v_num(op_is(op, "//") ? floor(l.num / r.num) : l.num / r.num) : v_unknown();
}

/* Python's `x in (a, b, c)` (or a list): true when x equals one of them,
 * false when it is known to equal none, else not known. */
static value member_of(struct ectx *c, struct toks *tk, value x)
{
	static const struct tok eq = {TK_OP, "==", 2};
	const char *close = op_is(peek(tk), "(") ? ")" : "]";
	ot_tri t = OT_TRI_FALSE;
	tk->at++;
	while (!op_is(peek(tk), close)) {
		value e = expr(c, tk, 0);
		t = tri_or(t, compare(&eq, x, e).truth);
		if (op_is(peek(tk), ","))
			tk->at++;
		else if (!op_is(peek(tk), close)) {
			/* what the grammar does not take: skip to the closing bracket */
			for (int depth = 1; tk->at < tk->n && depth; tk->at++)
				depth += op_is(&tk->t[tk->at], "(") || op_is(&tk->t[tk->at], "[") ? 1
					 : op_is(&tk->t[tk->at], ")") || op_is(&tk->t[tk->at], "]") ? -1
												     : 0;
			return v_unknown();
		}
	}
	tk->at++;
	return v_truth(t);
}

/* Does token range [from, to) of tk hold c->target? */
static bool holds_target(const struct ectx *c, const struct toks *tk, size_t from, size_t to)
{
	return c->target && from < to && to <= tk->n && c->target >= tk->t[from].s &&
	       c->target < tk->t[to - 1].s + tk->t[to - 1].n;
}

static value binary_expr(struct ectx *c, struct toks *tk, int min)
{
	size_t l_start = tk->at;
	value l = primary(c, tk);
	for (;;) {
		const struct tok *op = peek(tk);
		bool negate, not_after = false;
		int p = prec(tk, op, &negate);
		value r;
		if (p < 0 || p < min)
			return l;
		tk->at++;
		if (negate)
			tk->at++; /* not in */
		if (name_is(op, "is") && name_is(peek(tk), "not")) {
			not_after = true;
			tk->at++;
		}
		if (name_is(op, "in") && (op_is(peek(tk), "(") || op_is(peek(tk), "["))) {
			l = member_of(c, tk, l);
			if (negate)
				l.truth = tri_not(l.truth);
			continue;
		}
		{
			size_t r_start = tk->at, l_end = tk->at - 1;
			r = expr(c, tk, p + 1);
			/* `a and f(x)` runs f only when a holds; `a or f(x)` when it does not */
			if (p <= 2 && holds_target(c, tk, r_start, tk->at)) {
				ot_tri runs = p == 2 ? l.truth : tri_not(l.truth);
				if (runs != OT_TRI_TRUE && c->reach == OT_TRI_TRUE && l_end > l_start) {
					c->decider = tk->t[l_start].s;
					c->decider_end = tk->t[l_end - 1].s + tk->t[l_end - 1].n;
					c->decider_negated = p == 1;
				}
				c->reach = tri_and(c->reach, runs);
			}
		}
		if (p == 1) {
			l = decided_by(l, r, OT_TRI_TRUE, tri_or(l.truth, r.truth));
		} else if (p == 2) {
			l = decided_by(l, r, OT_TRI_FALSE, tri_and(l.truth, r.truth));
		} else if (name_is(op, "in")) {
			l = v_unknown();
		} else if (p >= 5) {
			l = arithmetic(op, l, r);
		} else {
			/* mode == EmbeddingBagMode::MEAN with mode 0: the enumerator's value */
			if (l.has_num && !r.has_num)
				r = enumerator_value(c, r);
			else if (r.has_num && !l.has_num)
				l = enumerator_value(c, l);
			l = compare(op, l, r);
			if (not_after)
				l.truth = tri_not(l.truth);
		}
		if (negate)
			l.truth = tri_not(l.truth);
	}
}

/* An expression; at the lowest level, C++'s `cond ? a : b` too (the arm
 * the condition picks, when it is known). */
static value expr(struct ectx *c, struct toks *tk, int min)
{
	value cond = binary_expr(c, tk, min), a, b;
	if (min > 0 || tk->python || !op_is(peek(tk), "?"))
		return cond;
	tk->at++;
	a = expr(c, tk, 0);
	if (!op_is(peek(tk), ":"))
		return v_unknown();
	tk->at++;
	b = expr(c, tk, 0);
	return cond.truth == OT_TRI_TRUE ? a : cond.truth == OT_TRI_FALSE ? b : v_unknown();
}

static ot_verdict evaluate(struct ectx *c, const char *text)
{
	ot_verdict out = {.value = OT_TRI_UNKNOWN, .text = text};
	value v;
	if (!text)
		return out;
	v = text_value(c, text); /* what the grammar does not take: unknown */
	out.value = v.truth;
	out.select = v.select;
	return out;
}

ot_verdict ot_cond_cexpr(const ot_cenv *env, const char *text)
{
	struct ectx c = {.cenv = env, .dev = env->dev};
	return evaluate(&c, text);
}

const char *ot_cond_literal(const ot_cenv *env, const char *text, char *buf, size_t n)
{
	struct ectx c = {.cenv = env, .dev = env->dev};
	value v;
	if (!text || !n)
		return NULL;
	v = text_value(&c, text);
	if (v.empty)
		return "None";
	if (v.has_num) {
		snprintf(buf, n, "%.17g", v.num);
		return buf;
	}
	if (sym_is(v, "nonzero"))
		return "nonzero"; /* a count, more than 0 (literal_value reads it back) */
	if (sym_is(v, OT_COND_NOT_FLOAT))
		return OT_COND_NOT_FLOAT;
	if (v.has_sym) {
		/* a quoted string, a constant the evaluator knows (Float), an
		 * enumerator (Activation::GELU) */
		if ((v.sym[0] == '\'' || v.sym[0] == '"' || constant_symbol(v.sym, v.symn) ||
		     memmem(v.sym, v.symn, "::", 2)) &&
		    v.symn < n) {
			snprintf(buf, n, "%.*s", (int)v.symn, v.sym);
			return buf;
		}
		return NULL;
	}
	if (v.truth != OT_TRI_UNKNOWN)
		return v.truth == OT_TRI_TRUE ? "true" : "false";
	return NULL;
}

ot_verdict ot_cond_pyexpr(const ot_pyenv *env, const char *text)
{
	struct ectx c = {.pyenv = env, .dev = env->dev};
	return evaluate(&c, text);
}

ot_tri ot_cond_py_reaches(const ot_pyenv *env, const char *text, size_t at, size_t *from, size_t *to,
			  bool *negated)
{
	struct ectx c = {.pyenv = env, .dev = env->dev};
	c.target = text + at;
	c.reach = OT_TRI_TRUE;
	*from = *to = 0;
	*negated = false;
	(void)text_value(&c, text);
	if (c.reach != OT_TRI_TRUE && c.decider) {
		*from = (size_t)(c.decider - text);
		*to = (size_t)(c.decider_end - text);
		*negated = c.decider_negated;
	}
	return c.reach;
}

/* ---- guard chains ------------------------------------------------------------------------ */

/* The expression evaluator of one language, over its environment. */
/* Evaluate a guard's text, written at `line` of its body. */
typedef ot_verdict (*expr_fn)(const void *env, const char *text, uint32_t line);

struct gchain {
	const ot_ix_guard *g;
	size_t n;
	expr_fn eval;
	uint32_t file, pp; /* C++: the body's file and the definition's own arm */
	const void *env;
};

static ot_verdict negated(ot_verdict v)
{
	v.value = tri_not(v.value);
	v.negated = !v.negated;
	return v;
}

static ot_verdict cexpr_cb(const void *env, const char *text, uint32_t line);

static const ot_ix_guard *guard_at(const struct gchain *ch, uint16_t id)
{
	return id && id <= ch->n ? &ch->g[id - 1] : NULL;
}

/* A C++ guard written in a preprocessor arm the build leaves out is not
 * compiled: its verdict is the arm's (false), else the value is TRUE. */
static bool left_out(const struct gchain *ch, const ot_ix_guard *g, ot_verdict *why)
{
	const ot_cenv *env = ch->eval == cexpr_cb ? ch->env : NULL;
	if (!env || !env->build || !env->ix || !g->pp || g->pp == ch->pp)
		return false;
	*why = ot_cond_pparm(env->build, env->ix, ch->file, g->pp);
	return why->value == OT_TRI_FALSE;
}

/* A C++ guard that tests a local alone (`if (all_contiguous)`, `if
 * (!needs_grad_path)`) and is left open: the local's initializer, for the
 * reader (v->def). */
static void local_shown(const struct gchain *ch, const ot_ix_guard *g, ot_verdict *v)
{
	const char *name = g->text + (g->text[0] == '!');
	size_t n = 0;
	if (ch->eval != cexpr_cb || v->value != OT_TRI_UNKNOWN || !ot_is_ident_start(name[0]))
		return;
	while (ot_is_ident_char(name[n]))
		n++;
	if (!name[n])
		local_decl(ch->env, name, n, &v->def, &v->defn);
}

static ot_verdict own_cond(const struct gchain *ch, const ot_ix_guard *g)
{
	ot_verdict v;
	if (left_out(ch, g, &v))
		return v;
	v = g->text ? ch->eval(ch->env, g->text, g->line) : verdict(OT_TRI_UNKNOWN, NULL);
	v.line = g->line;
	if (g->text)
		local_shown(ch, g, &v);
	return v;
}

/* a and b, where both are open: b's condition shown beside a's (the
 * `else if (y)` after `if (x)` runs when "not (x) and y") */
static ot_verdict and_shown(ot_verdict a, ot_verdict b)
{
	ot_verdict r = ot_verdict_and(a, b);
	if (r.value == OT_TRI_UNKNOWN && a.value == OT_TRI_UNKNOWN && b.value == OT_TRI_UNKNOWN && a.text &&
	    b.text && !r.also && strcmp(a.text, b.text)) {
		r.also = b.text;
		r.also_negated = b.negated;
	}
	return r;
}

/* The arms of a chain before `g` (walking `prev`) were all not taken. */
static ot_verdict none_before(const struct gchain *ch, const ot_ix_guard *g)
{
	ot_verdict v = ot_verdict_true();
	for (const ot_ix_guard *e = guard_at(ch, g->prev); e; e = guard_at(ch, e->prev)) {
		ot_verdict own = e->kind == OT_GUARD_ELSE ? verdict(OT_TRI_TRUE, NULL) : own_cond(ch, e);
		v = and_shown(v, negated(own));
		if (e->kind == OT_GUARD_IF || e->kind == OT_GUARD_ELSE)
			break;
	}
	return v;
}

/* Is arm `e` the one of its chain that is taken (its parent aside)? */
static ot_verdict arm_taken(const struct gchain *ch, const ot_ix_guard *e);

/* Is guard g inside arm `outer` (outer is one of its parents)? */
static bool nested_in(const struct gchain *ch, const ot_ix_guard *g, const ot_ix_guard *outer)
{
	int k = 0;
	for (const ot_ix_guard *p = guard_at(ch, g->parent); p && k < 256; p = guard_at(ch, p->parent), k++)
		if (p == outer)
			return true;
	return false;
}

/* Arm `outer` is taken and a return is nested in it: what follows it runs
 * when none of the nested arms that return was taken (each judged on its
 * own: "not (max_gather_offset > INT32_MAX)"); unknown when no such arm is
 * found (a return in a loop). */
static ot_verdict none_nested_left(const struct gchain *ch, const ot_ix_guard *outer)
{
	ot_verdict v = ot_verdict_true();
	bool found = false;
	for (size_t i = 0; i < ch->n; i++) {
		const ot_ix_guard *g = &ch->g[i];
		if (!g->exits || g->raises || !nested_in(ch, g, outer))
			continue;
		found = true;
		v = ot_verdict_and(v, negated(arm_taken(ch, g)));
	}
	return found ? v : verdict(OT_TRI_UNKNOWN, outer->text);
}

static ot_verdict arm_taken(const struct gchain *ch, const ot_ix_guard *e)
{
	if (e->kind == OT_GUARD_ELSE)
		return none_before(ch, e);
	if (e->kind == OT_GUARD_ELSE_IF) /* its own condition first: what a reader is shown */
		return and_shown(own_cond(ch, e), none_before(ch, e));
	return own_cond(ch, e);
}

/* A case label that names a backend (ConvBackend::Cudnn, Mkldnn, Miopen,
 * Mps, ..., an Empty or Overrideable one) judged for `dev`. */
static ot_tri label_truth(const ot_cenv *env, const char *label, bool *select)
{
	ot_device dev = env->dev;
	char low[128];
	size_t n = 0;
	const char *p = strrchr(label, ':');
	p = p ? p + 1 : label;
	for (; *p && n + 1 < sizeof(low); p++)
		low[n++] = (char)tolower((unsigned char)*p);
	low[n] = '\0';
	const char *transposed = NULL;
	*select = false;
	for (size_t i = 0; i < env->nparams; i++)
		if (!strcmp(env->params[i].name, "transposed") || !strcmp(env->params[i].name, "transposed_"))
			transposed = env->params[i].value;
	/* a transposed kernel (CudnnTranspose, SlowTranspose2d) is never taken
	 * by a call whose `transposed` is false, any other one never by a
	 * call whose `transposed` is true (1.13.1's use_mkldnn refuses a
	 * transposed convolution; 2.x picks MkldnnTranspose instead); the
	 * empty-input ones take both */
	if (transposed && !strcmp(transposed, strstr(low, "transpose") ? "false" : "true") && !strstr(low, "empty"))
		return OT_TRI_FALSE;
	if (strstr(low, "transpose") && !(transposed && !strcmp(transposed, "true")))
		return OT_TRI_UNKNOWN;
	if (strstr(low, "miopen") || strstr(low, "mps") || strstr(low, "xnnpack") || strstr(low, "hip") ||
	    strstr(low, "vulkan") || strstr(low, "metal") || strstr(low, "xpu") || strstr(low, "empty") ||
	    strstr(low, "overrideable"))
		return OT_TRI_FALSE;
	if (strstr(low, "cudnn")) {
		*select = dev == OT_DEV_CUDA;
		return dev == OT_DEV_CUDA ? OT_TRI_TRUE : OT_TRI_FALSE;
	}
	if (strstr(low, "cuda"))
		return dev == OT_DEV_CUDA ? OT_TRI_UNKNOWN : OT_TRI_FALSE;
	if (strstr(low, "mkldnn") || strstr(low, "onednn")) {
		*select = dev == OT_DEV_CPU;
		return dev == OT_DEV_CPU ? OT_TRI_TRUE : OT_TRI_FALSE;
	}
	return OT_TRI_UNKNOWN;
}

/* The next label of a guard's text "case A or case B or default" (labels
 * in a row sharing a body) into buf, after *p: false at the end. */
static bool next_label(const char **p, char *buf, size_t size)
{
	const char *s = *p, *stop;
	size_t n;
	if (!*s)
		return false;
	stop = strstr(s, " or ");
	n = stop ? (size_t)(stop - s) : strlen(s);
	snprintf(buf, size, "%.*s", (int)n, s);
	*p = stop ? stop + 4 : s + n;
	return true;
}

/* Is label `label` (as written after "case ") of case guard g taken? Its
 * subject compared with it, else the label's backend. */
static ot_verdict label_taken(const struct gchain *ch, const ot_ix_guard *g, const char *label)
{
	const ot_cenv *env = ch->eval == cexpr_cb ? ch->env : NULL;
	char expr[512];
	ot_verdict v;
	bool select;
	ot_tri t;
	snprintf(expr, sizeof(expr), "%s == %s", g->subject, label);
	v = ch->eval(ch->env, expr, g->line);
	if (!env || v.value != OT_TRI_UNKNOWN)
		return v;
	t = label_truth(env, label, &select);
	if (t != OT_TRI_UNKNOWN) {
		v.value = t;
		v.select = select;
	}
	return v;
}

/* The case of g's switch (same parent, same subject) one of whose labels
 * is taken, or NULL. */
static const ot_ix_guard *taken_sibling(const struct gchain *ch, const ot_ix_guard *g)
{
	char label[256];
	for (size_t i = 0; i < ch->n; i++) {
		const ot_ix_guard *o = &ch->g[i];
		if (o == g || o->kind != OT_GUARD_CASE || o->parent != g->parent || !o->subject ||
		    strcmp(o->subject, g->subject) || !ot_starts_with(o->text, "case "))
			continue;
		for (const char *p = o->text; next_label(&p, label, sizeof(label));)
			if (ot_starts_with(label, "case ") && label_taken(ch, o, label + 5).value == OT_TRI_TRUE)
				return o;
	}
	return NULL;
}

/* Is the `default:` arm `g` of a switch taken? Not when a sibling case's
 * label is (rot90's `case 1` for its default k=1); else not known (a
 * macro may write cases the scan does not see: avg_pool3d's
 * LAUNCH_UPDATE_OUTPUT_KERNEL_WIDTH). */
static ot_verdict default_taken(const struct gchain *ch, const ot_ix_guard *g)
{
	const ot_ix_guard *o = taken_sibling(ch, g);
	ot_verdict v = verdict(o ? OT_TRI_FALSE : OT_TRI_UNKNOWN, o ? o->text : g->text);
	v.negated = o != NULL;
	v.line = o ? o->line : g->line;
	return v;
}

/* Is case `g` of a switch the one taken? Taken when one of its labels is
 * (`case A: case B:` share it), not when none is or a sibling case is.
 * The condition shown is the labels as written. */
static ot_verdict case_taken(const struct gchain *ch, const ot_ix_guard *g)
{
	const ot_cenv *env = ch->eval == cexpr_cb ? ch->env : NULL;
	const ot_ix_guard *o;
	char label[256];
	ot_verdict v = verdict(OT_TRI_FALSE, g->text);
	if (g->text && !strcmp(g->text, "default") && g->subject)
		return default_taken(ch, g);
	if (!g->text || !ot_starts_with(g->text, "case ") || !g->subject) {
		v = verdict(OT_TRI_UNKNOWN, g->text);
		v.line = g->line;
		return v;
	}
	for (const char *p = g->text; next_label(&p, label, sizeof(label));) {
		ot_verdict one = ot_starts_with(label, "case ") ? label_taken(ch, g, label + 5)
								 : verdict(OT_TRI_UNKNOWN, NULL);
		if (one.value == OT_TRI_TRUE) {
			v = one;
			break;
		}
		if (one.value == OT_TRI_UNKNOWN)
			v = one;
	}
	v.text = g->text;
	v.line = g->line;
	if (!env || v.value != OT_TRI_UNKNOWN)
		return v;
	/* a sibling case taken */
	if ((o = taken_sibling(ch, g))) {
		v.value = OT_TRI_FALSE;
		v.text = o->text;
		v.negated = true;
	}
	return v;
}

static ot_verdict guard_own(const struct gchain *ch, const ot_ix_guard *g)
{
	ot_verdict v;
	if (left_out(ch, g, &v))
		return v;
	switch (g->kind) {
	case OT_GUARD_CASE:
		v = case_taken(ch, g);
		break;
	case OT_GUARD_IF:
	case OT_GUARD_THEN:
	case OT_GUARD_ELSE_IF:
	case OT_GUARD_ELSE:
		v = arm_taken(ch, g);
		break;
	case OT_GUARD_OTHERWISE: {
		const ot_ix_guard *then = guard_at(ch, g->prev);
		v = then ? negated(own_cond(ch, then)) : verdict(OT_TRI_UNKNOWN, NULL);
		break;
	}
	case OT_GUARD_AFTER:
		/* none of the chain's arms that leave the block was taken; one
		 * that raises is never taken by a call that works */
		v = ot_verdict_true();
		for (const ot_ix_guard *e = guard_at(ch, g->prev); e; e = guard_at(ch, e->prev)) {
			if (e->exits && !e->raises) {
				v = ot_verdict_and(v, negated(arm_taken(ch, e)));
			} else if (e->may_exit && !e->raises) {
				/* a return nested in the arm: taken or not, what follows
				 * may still run; when the arm is taken, it runs unless
				 * one of the returns nested in it was */
				ot_verdict t = arm_taken(ch, e);
				ot_verdict m = t.value == OT_TRI_TRUE ? none_nested_left(ch, e) : negated(t);
				if (m.value == OT_TRI_FALSE)
					m.value = OT_TRI_UNKNOWN;
				v = ot_verdict_and(v, m);
			}
			if (e->kind == OT_GUARD_IF)
				break;
		}
		break;
	case OT_GUARD_CHECK:
		v = own_cond(ch, g);
		v.value = OT_TRI_TRUE;
		v.validation = true;
		break;
	case OT_GUARD_EXCEPT:
		v = verdict(OT_TRI_FALSE, g->text);
		v.line = g->line;
		break;
	default:
		v = verdict(OT_TRI_UNKNOWN, g->text);
	}
	if (g->raises && g->kind != OT_GUARD_CHECK) {
		/* an arm that raises is an error path */
		v.validation = true;
		if (!v.text)
			v.text = g->text;
		v.line = g->line;
	}
	return v;
}

static ot_verdict chain_verdict(const struct gchain *ch, uint16_t guard)
{
	ot_verdict v = ot_verdict_true(), fail = {0}, select = {0}, open = {0}, outer_open = {0};
	bool failed = false, selected = false, opened = false, any_select = false;
	int k = 0;
	/* walking outwards; the value is the conjunction, and the condition
	 * shown the outermost failing guard, else the outermost selection, else
	 * the innermost open one */
	const ot_cenv *env = ch->eval == cexpr_cb ? ch->env : NULL;
	for (const ot_ix_guard *g = guard_at(ch, guard); g && k < 256; g = guard_at(ch, g->parent), k++) {
		size_t gi = (size_t)(g - ch->g);
		ot_verdict own;
		if (env && env->memo && env->memo_done[gi]) {
			own = env->memo[gi];
		} else {
			own = guard_own(ch, g);
			if (env && env->memo) {
				env->memo[gi] = own;
				env->memo_done[gi] = 1;
			}
		}
		v.value = own.validation ? v.value : tri_and(v.value, own.value);
		v.validation = v.validation || own.validation;
		any_select = any_select || own.select;
		if (own.value == OT_TRI_FALSE || own.validation) {
			fail = own;
			failed = true;
		} else if (own.select) {
			select = own;
			selected = true;
		} else if (own.value == OT_TRI_UNKNOWN && !opened) {
			open = own;
			opened = true;
		} else if (own.value == OT_TRI_UNKNOWN && own.text && (!open.text || strcmp(own.text, open.text))) {
			outer_open = own;
		}
	}
	{
		ot_verdict *why = failed ? &fail : selected ? &select : opened ? &open : NULL;
		/* the second condition it runs under: the open one beside a
		 * selection, an outer open one beside the innermost */
		ot_verdict *also = failed ? NULL : selected && opened ? &open : opened ? &outer_open : NULL;
		if (why) {
			v.text = why->text;
			v.line = why->line;
			v.negated = why->negated;
			v.def = why->def;
			v.defn = why->defn;
		}
		if (also && also->text && why && why->text && strcmp(also->text, why->text)) {
			v.also = also->text;
			v.also_negated = also->negated;
		} else if (why == &open && open.also) {
			/* the arms of its own chain not taken before it */
			v.also = open.also;
			v.also_negated = open.also_negated;
		}
	}
	v.select = any_select;
	return v;
}

static ot_verdict cexpr_cb(const void *env, const char *text, uint32_t line)
{
	ot_cenv at = *(const ot_cenv *)env;
	at.line = line;
	return ot_cond_cexpr(&at, text);
}

/* A name in a Python guard holds the value it has where the guard is
 * written, not where the guarded code is. */
static ot_verdict pyexpr_cb(const void *env, const char *text, uint32_t line)
{
	ot_pyenv at = *(const ot_pyenv *)env;
	at.line = line;
	return ot_cond_pyexpr(&at, text);
}

ot_verdict ot_cond_guard(const ot_cenv *env, const ot_ix_cdef *d, uint16_t guard)
{
	struct gchain ch = {d->guards, d->nguards, cexpr_cb, d->file, d->pp, env};
	return chain_verdict(&ch, guard);
}

/* Is `id` one of guards[0..n)? */
static bool among(const uint16_t *guards, size_t n, uint16_t id)
{
	for (size_t i = 0; i < n; i++)
		if (guards[i] == id)
			return true;
	return false;
}

ot_verdict ot_cond_guard_any(const ot_cenv *env, const ot_ix_cdef *d, const uint16_t *guards, size_t n,
			     bool *told)
{
	struct gchain ch = {d->guards, d->nguards, cexpr_cb, d->file, d->pp, env};
	const ot_ix_guard *last = NULL, *first = NULL;
	size_t run = 0;
	ot_verdict outer, rest;
	*told = false;
	for (size_t i = 0; i < n && !last; i++)
		if (guard_at(&ch, guards[i]) && guard_at(&ch, guards[i])->kind == OT_GUARD_ELSE)
			last = guard_at(&ch, guards[i]);
	/* from the else back along the chain, while its arms are among them */
	for (const ot_ix_guard *g = last; g && among(guards, n, (uint16_t)(g - ch.g + 1)); g = guard_at(&ch, g->prev)) {
		first = g;
		run++;
		if (g->kind == OT_GUARD_IF)
			break;
	}
	/* (the guards are distinct: all of them in that run, of an if chain) */
	if (!first || run != n || (first->kind != OT_GUARD_IF && first->kind != OT_GUARD_ELSE_IF))
		return ot_verdict_true();
	*told = true;
	outer = last->parent ? chain_verdict(&ch, last->parent) : ot_verdict_true();
	rest = first->kind == OT_GUARD_IF ? ot_verdict_true() : none_before(&ch, first);
	return and_shown(rest, outer);
}

ot_verdict ot_cond_pyguard(const ot_pyenv *env, const ot_ix_guard *guards, size_t n, uint16_t guard)
{
	struct gchain ch = {guards, n, pyexpr_cb, 0, 0, env};
	return chain_verdict(&ch, guard);
}
