/*
 * kname.c - demangled C++ names taken apart (kname.h), and the table of
 * GPU library kernels.
 */
#include "kname.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"

/* ---- scanning with depth -------------------------------------------------------------- */

static bool opener(char c)
{
	return c == '<' || c == '(' || c == '[' || c == '{';
}

static bool closer(char c)
{
	return c == '>' || c == ')' || c == ']' || c == '}';
}

/* "operator<", "operator<<", "operator->", "operator()" ...: the bytes after
 * "operator" at p that belong to the name, not to brackets. */
static size_t operator_len(const char *s, size_t i, size_t n)
{
	static const char *const ops[] = {"()", "[]", "<<=", ">>=", "<<", ">>", "<=", ">=", "->*", "->",
					  "<", ">", "==", "!=", "+=", "-=", "*=", "/=", "+", "-", "*",
					  "/", "%", "=", "&&", "||", "&", "|", "^", "!", "~", ","};
	if (i < 8 || memcmp(s + i - 8, "operator", 8) || (i > 8 && (ot_is_ident_char(s[i - 9]))))
		return 0;
	for (size_t k = 0; k < OT_ARRAY_LEN(ops); k++) {
		size_t l = strlen(ops[k]);
		if (i + l <= n && !memcmp(s + i, ops[k], l))
			return l;
	}
	return 0;
}

/* The index of the bracket matching the opener at s[i], or n when unbalanced. */
static size_t match(const char *s, size_t i, size_t n)
{
	int depth = 0;
	for (size_t k = i; k < n; k++) {
		size_t op = operator_len(s, k, n);
		if (op) {
			k += op - 1;
			continue;
		}
		if (s[k] == '-' && k + 1 < n && s[k + 1] == '>')
			k++; /* "->" in a decltype */
		else if (opener(s[k]))
			depth++;
		else if (closer(s[k]) && --depth == 0)
			return k;
	}
	return n;
}

/* The opener matching the closer at s[i], scanning back, or (size_t)-1. */
static size_t match_back(const char *s, size_t i)
{
	int depth = 0;
	for (size_t k = i + 1; k-- > 0;) {
		if (closer(s[k]))
			depth++;
		else if (opener(s[k]) && --depth == 0)
			return k;
	}
	return (size_t)-1;
}

static size_t trim_end(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return n;
}

/* ---- qualified names --------------------------------------------------------------------- */

/* The qualified name s[0, n) ("a::(anonymous namespace)::B<int>::f") as
 * qualifier and last component, templates of components dropped. */
static void split_qualified(ot_arena *a, const char *s, size_t n, const char **qual, const char **name,
			    bool *lambda)
{
	ot_buf q = OT_BUF_INIT, comp = OT_BUF_INIT;
	size_t i = 0;
	*lambda = false;
	while (i < n) {
		ot_buf_clear(&comp);
		while (i < n && !(s[i] == ':' && i + 1 < n && s[i + 1] == ':')) {
			size_t op = operator_len(s, i, n);
			if (op) {
				ot_buf_put(&comp, s + i, op);
				i += op;
			} else if (opener(s[i])) {
				size_t close = match(s, i, n);
				if (s[i] == '(' && i + 21 <= n && !memcmp(s + i, "(anonymous namespace)", 21))
					ot_buf_puts(&comp, "(anonymous)");
				else if (s[i] == '{') {
					ot_buf_put(&comp, s + i, (close < n ? close + 1 : n) - i);
					*lambda = true;
				}
				/* <...> and (...) of a component are dropped */
				i = close < n ? close + 1 : n;
			} else {
				if (s[i] != ' ' || (comp.size && i + 1 < n && s[i + 1] != ':'))
					ot_buf_putc(&comp, s[i]);
				i++;
			}
		}
		if (i < n) { /* "::" follows: this component is part of the qualifier */
			if (q.size)
				ot_buf_puts(&q, "::");
			ot_buf_put(&q, comp.ptr, comp.size);
			i += 2;
		}
	}
	*qual = ot_arena_strndup(a, q.ptr, q.size);
	*name = ot_arena_strndup(a, comp.ptr, comp.size);
	ot_buf_free(&q);
	ot_buf_free(&comp);
}

/* The qualified names written in s[0, n) (a template argument), appended to `out`. */
typedef OT_VEC(ot_kname_ref) ref_vec;

static void add_ref(ref_vec *out, const char *qual, const char *name, bool function)
{
	for (size_t i = 0; i < out->len; i++)
		if (!strcmp(out->items[i].name, name) && !strcmp(out->items[i].qual, qual)) {
			out->items[i].function |= function;
			return;
		}
	if (!*name || !ot_is_ident_start(*name) || (!*qual && ot_starts_with(name, "operator")))
		return; /* ...::{lambda()#1}::operator()(): a lambda's call, named by its scope */
	{
		ot_kname_ref r = {name, qual, function};
		ot_vec_push(out, r);
	}
}

static bool builtin_type(const char *s, size_t n)
{
	static const char *const words[] = {"void", "bool", "char", "short", "int", "long", "float",
					    "double", "unsigned", "signed", "const", "volatile",
					    "true", "false", "auto", "decltype", "sizeof", "operator",
					    "lambda"};
	for (size_t k = 0; k < OT_ARRAY_LEN(words); k++)
		if (strlen(words[k]) == n && !memcmp(s, words[k], n))
			return true;
	return false;
}

static void collect_refs(ot_arena *a, ref_vec *out, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t b, e;
		bool lambda;
		const char *qual, *name;
		if (!(ot_is_ident_start(s[i]) || (s[i] == '(' && i + 21 <= n && !memcmp(s + i, "(anonymous namespace)", 21))) ||
		    (i > 0 && ot_is_ident_char(s[i - 1]))) {
			if (opener(s[i]) && s[i] != '(') {
				/* nested template arguments: their names count too */
				size_t close = match(s, i, n);
				collect_refs(a, out, s + i + 1, (close < n ? close : n) - i - 1);
				i = close < n ? close + 1 : n;
				continue;
			}
			if (s[i] == '(') { /* an argument list: its types are not what the kernel runs */
				size_t close = match(s, i, n);
				i = close < n ? close + 1 : n;
				continue;
			}
			i++;
			continue;
		}
		/* a qualified name: components joined by "::", each maybe with <...> */
		b = i;
		for (;;) {
			if (s[i] == '(') { /* (anonymous namespace) */
				if (i + 21 > n || memcmp(s + i, "(anonymous namespace)", 21))
					break;
				i += 21;
			} else {
				while (i < n && ot_is_ident_char(s[i]))
					i++;
				i += operator_len(s, i, n); /* Functor::operator() */
			}
			if (i < n && s[i] == '<') {
				size_t close = match(s, i, n);
				collect_refs(a, out, s + i + 1, (close < n ? close : n) - i - 1);
				i = close < n ? close + 1 : n;
			}
			if (i + 2 < n && s[i] == ':' && s[i + 1] == ':' &&
			    (ot_is_ident_start(s[i + 2]) || s[i + 2] == '(' || s[i + 2] == '{')) {
				if (s[i + 2] == '{')
					break; /* ::{lambda()#1}: the scope before it is the name */
				i += 2;
				continue;
			}
			break;
		}
		e = i;
		if (e == b) {
			i++;
			continue;
		}
		if (builtin_type(s + b, e - b))
			continue;
		split_qualified(a, s + b, e - b, &qual, &name, &lambda);
		add_ref(out, qual, name, i < n && s[i] == '(');
		if (ot_starts_with(name, "operator") && *qual) { /* Functor::operator(): the functor too */
			const char *last = strrchr(qual, ':');
			add_ref(out, last ? ot_arena_strndup(a, qual, (size_t)(last - 1 - qual)) : "",
				last ? last + 1 : qual, false);
		}
		if (i < n && s[i] == '(') { /* the function's argument list */
			size_t close = match(s, i, n);
			i = close < n ? close + 1 : n;
		}
		while (i < n && (s[i] == ':' || s[i] == '{')) { /* ::{lambda()#1}::operator()() const */
			if (s[i] == '{') {
				size_t close = match(s, i, n);
				i = close < n ? close + 1 : n;
			} else {
				i++;
			}
		}
	}
}

/* ---- the parse ------------------------------------------------------------------------------ */

int ot_kname_parse(ot_kname *out, ot_arena *a, const char *text)
{
	const char *s;
	size_t n, end, lt = (size_t)-1, name_start;
	OT_VEC(const char *) targs = {0};
	ref_vec refs = {0};
	int depth = 0, rc = 0;

	memset(out, 0, sizeof(*out));
	while (*text == ' ' || *text == '\t' || *text == '\n')
		text++;
	n = trim_end(text, strlen(text));
	s = ot_arena_strndup(a, text, n);
	out->text = s;
	if (!n)
		return ot_error_set("an empty name");
	for (size_t i = 0; i < n; i++) {
		size_t op = operator_len(s, i, n);
		if (op) {
			i += op - 1;
			continue;
		}
		if (s[i] == '-' && i + 1 < n && s[i + 1] == '>')
			i++;
		else if (opener(s[i]))
			depth++;
		else if (closer(s[i]) && --depth < 0)
			return ot_error_set("column %zu: '%c' closes nothing", i + 1, s[i]);
	}
	if (depth)
		return ot_error_set("column %zu: a bracket is not closed", n);

	/* cv- and ref-qualifiers of a member function, then the argument list */
	end = n;
	for (;;) {
		end = trim_end(s, end);
		if (end >= 6 && !memcmp(s + end - 6, " const", 6))
			end -= 6;
		else if (end >= 9 && !memcmp(s + end - 9, " volatile", 9))
			end -= 9;
		else if (end && s[end - 1] == '&' && end >= 2 && s[end - 2] == ')')
			end -= 1;
		else
			break;
	}
	if (end && s[end - 1] == ')') {
		size_t open = match_back(s, end - 1);
		/* not the "()" of "operator()" itself */
		if (open != (size_t)-1 && !(open >= 8 && !memcmp(s + open - 8, "operator", 8) && open + 2 == end))
			end = trim_end(s, open);
	}
	/* the template arguments of the function itself */
	if (end && s[end - 1] == '>' && !operator_len(s, end - 1, end)) {
		lt = match_back(s, end - 1);
		if (lt != (size_t)-1) {
			size_t b = lt + 1;
			int d = 0;
			for (size_t i = lt + 1; i < end - 1; i++) {
				size_t op = operator_len(s, i, end - 1);
				if (op) {
					i += op - 1;
					continue;
				}
				if (opener(s[i]))
					d++;
				else if (closer(s[i]))
					d--;
				else if (s[i] == ',' && d == 0) {
					size_t bb = b, ee = i;
					while (bb < ee && s[bb] == ' ')
						bb++;
					ee = trim_end(s + bb, ee - bb) + bb;
					ot_vec_push(&targs, ot_arena_strndup(a, s + bb, ee - bb));
					b = i + 1;
				}
			}
			{
				size_t bb = b, ee = end - 1;
				while (bb < ee && s[bb] == ' ')
					bb++;
				ee = trim_end(s + bb, ee - bb) + bb;
				if (ee > bb)
					ot_vec_push(&targs, ot_arena_strndup(a, s + bb, ee - bb));
			}
			collect_refs(a, &refs, s + lt + 1, end - 1 - lt - 1);
			end = lt;
		}
	}
	/* the return type: everything before the last top-level blank */
	name_start = 0;
	depth = 0;
	for (size_t i = 0; i < end; i++) {
		size_t op = operator_len(s, i, end);
		if (op) {
			i += op - 1;
			continue;
		}
		if (opener(s[i]))
			depth++;
		else if (closer(s[i]))
			depth--;
		else if (s[i] == ' ' && depth == 0 && i + 1 < end && s[i + 1] != ':' && (i == 0 || s[i - 1] != ':') &&
			 !(i >= 8 && !memcmp(s + i - 8, "operator", 8)))
			name_start = i + 1;
	}
	split_qualified(a, s + name_start, end - name_start, &out->qual, &out->name, &out->lambda);
	if (!*out->name) {
		rc = ot_error_set("no name in '%s'", s);
		goto done;
	}
	out->targs = OT_ARENA_VEC(a, &targs);
	out->ntargs = targs.len;
	out->refs = OT_ARENA_VEC(a, &refs);
	out->nrefs = refs.len;
done:
	ot_vec_free(&targs);
	ot_vec_free(&refs);
	return rc;
}

bool ot_kname_qual_matches(const char *want, const char *have)
{
	size_t w = strlen(want), h = strlen(have);
	if (!w)
		return true;
	if (w > h || strcmp(have + h - w, want))
		return false;
	return w == h || (h - w >= 2 && have[h - w - 1] == ':' && have[h - w - 2] == ':');
}

/* ---- GPU libraries ----------------------------------------------------------------------------- */

static const char *const BLAS[] = {"cuBLAS", "cuBLASLt", NULL};
static const char *const DNN[] = {"cuDNN", NULL};
static const char *const FFT[] = {"cuFFT", NULL};
static const char *const CUB[] = {"CUB", NULL};
static const char *const THRUST[] = {"Thrust", NULL};
static const char *const MAGMA[] = {"MAGMA", NULL};
static const char *const SOLVER[] = {"cuSOLVER", NULL};
static const char *const SPARSE[] = {"cuSPARSE", NULL};
static const char *const RAND[] = {"cuRAND", NULL};
static const char *const MIOPEN[] = {"MIOpen", NULL};
static const char *const NONE[] = {NULL};

#define CUTLASS_NOTE "CUTLASS kernels of cuBLAS; PyTorch's own CUTLASS kernels (fmha_cutlass*, ...) are in the source and found there first"

/* First match wins: cuDNN's convolution kernels are xmma kernels too. A
 * pattern is an fnmatch(3) glob matched against the qualified name and
 * against the last component. */
static const ot_kname_lib table[] = {
	{"cuDNN", "cudnn::*", DNN, NULL},
	{"cuDNN", "cask_cudnn::*", DNN, NULL},
	{"cuDNN", "cudnn_*", DNN, NULL},
	{"cuDNN", "*xmma_fprop*", DNN, "a convolution kernel"},
	{"cuDNN", "*xmma_dgrad*", DNN, "a convolution backward (data) kernel"},
	{"cuDNN", "*xmma_wgrad*", DNN, "a convolution backward (weight) kernel"},
	{"cuDNN", "*convolve_sgemm*", DNN, NULL},
	{"cuDNN", "*convolve_dgemm*", DNN, NULL},
	{"cuDNN", "*convolve_hgemm*", DNN, NULL},
	{"cuDNN", "nchwToNhwcKernel*", DNN, NULL},
	{"cuDNN", "nhwcToNchwKernel*", DNN, NULL},
	{"cuDNN", "bn_fw_*", DNN, "batch norm"},
	{"cuDNN", "bn_bw_*", DNN, "batch norm"},
	{"cuDNN", "*RNN_blockPersist*", DNN, NULL},
	{"cuDNN", "LSTM_elementWise*", DNN, NULL},
	{"cuDNN", "GRU_elementWise*", DNN, NULL},
	{"cuDNN", "elemWiseRNNcell*", DNN, NULL},
	{"cuDNN", "*winograd*", DNN, NULL},
	{"cuDNN", "fft2d_r2c_*", DNN, "an FFT convolution kernel"},
	{"cuDNN", "fft2d_c2r_*", DNN, "an FFT convolution kernel"},
	{"cuBLAS", "cublasLt::*", BLAS, NULL},
	{"cuBLAS", "cublas*", BLAS, NULL},
	{"cuBLAS", "ampere_*", BLAS, NULL},
	{"cuBLAS", "volta_*", BLAS, NULL},
	{"cuBLAS", "turing_*", BLAS, NULL},
	{"cuBLAS", "maxwell_*", BLAS, NULL},
	{"cuBLAS", "kepler_*", BLAS, NULL},
	{"cuBLAS", "sm[0-9][0-9]_xmma_*", BLAS, NULL},
	{"cuBLAS", "sm[0-9][0-9][0-9]_xmma_*", BLAS, NULL},
	{"cuBLAS", "cutlass::Kernel*", BLAS, CUTLASS_NOTE},
	{"cuBLAS", "cutlass_*", BLAS, CUTLASS_NOTE},
	{"cuBLAS", "gemv2N_kernel*", BLAS, NULL},
	{"cuBLAS", "gemv2T_kernel*", BLAS, NULL},
	{"cuBLAS", "gemvNSP_kernel*", BLAS, NULL},
	{"cuBLAS", "gemmSN_*", BLAS, NULL},
	{"cuBLAS", "gemmk1_kernel*", BLAS, NULL},
	{"cuBLAS", "splitKreduce_kernel*", BLAS, NULL},
	{"cuBLAS", "dot_kernel*", BLAS, NULL},
	{"cuBLAS", "reduce_1Block_kernel*", BLAS, NULL},
	{"cuBLAS", "axpy_kernel*", BLAS, NULL},
	{"cuBLAS", "scal_kernel*", BLAS, NULL},
	{"cuBLAS", "nrm2_kernel*", BLAS, NULL},
	{"cuBLAS", "asum_kernel*", BLAS, NULL},
	{"cuFFT", "regular_fft*", FFT, NULL},
	{"cuFFT", "vector_fft*", FFT, NULL},
	{"cuFFT", "composite_2way_fft*", FFT, NULL},
	{"cuFFT", "spRadix*", FFT, NULL},
	{"cuFFT", "spVector*", FFT, NULL},
	{"cuFFT", "cufft*", FFT, NULL},
	{"CUB", "cub::*", CUB, "a template library: its kernels are instantiated from the call sites below"},
	{"Thrust", "thrust::*", THRUST, "a template library: its kernels are instantiated from the call sites below"},
	{"NCCL", "nccl*", NONE, "collectives run by torch.distributed, not by an op of native_functions.yaml"},
	{"MAGMA", "magma*", MAGMA, NULL},
	{"cuSOLVER", "cusolver*", SOLVER, NULL},
	{"cuSPARSE", "cusparse*", SPARSE, NULL},
	{"cuRAND", "curand*", RAND, NULL},
	{"MIOpen", "miopen*", MIOPEN, NULL},
	{"MIOpen", "MIOpen*", MIOPEN, NULL},
	{"Triton", "triton_*", NONE, "generated by torch.compile (Inductor) when a program runs: not in the source"},
};

const ot_kname_lib *ot_kname_library(const ot_kname *k)
{
	char full[1024];
	snprintf(full, sizeof(full), "%s%s%s", k->qual, *k->qual ? "::" : "", k->name);
	for (size_t i = 0; i < OT_ARRAY_LEN(table); i++)
		if (!fnmatch(table[i].pattern, full, 0) || !fnmatch(table[i].pattern, k->name, 0))
			return &table[i];
	return NULL;
}

size_t ot_kname_library_table(const ot_kname_lib **out)
{
	*out = table;
	return OT_ARRAY_LEN(table);
}
