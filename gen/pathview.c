/*
 * pathview.c — the page's view of a trace: main, backward, decomposition
 * or another path, and for another path the condition it runs under.
 */
#include "pathview.h"
#include <ctype.h>

#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "common.h"

static const char *const group_titles[OT_OTHER_COUNT] = {
	[OT_OTHER_ARGS] = "Argument, shape and dtype conditions",
	[OT_OTHER_OVERLOAD] = "Other overloads",
	[OT_OTHER_SPARSE] = "Sparse tensors",
	[OT_OTHER_NESTED] = "Nested tensors",
	[OT_OTHER_QUANTIZED] = "Quantized tensors",
	[OT_OTHER_MKLDNN] = "oneDNN (mkldnn) tensors",
	[OT_OTHER_MPS] = "MPS (Apple GPUs)",
	[OT_OTHER_XPU] = "XPU",
	[OT_OTHER_ROCM] = "ROCm (HIP, MIOpen)",
	[OT_OTHER_BACKEND] = "Other dispatch keys",
	[OT_OTHER_BUILD] = "Another build",
	[OT_OTHER_ERROR] = "Errors and validation",
	[OT_OTHER_BY_NAME] = "Matched by name only (the receiver's type or the overload is not known: maybe no call of this op)",
	[OT_OTHER_UNCONDITIONED] = "Reached off the main paths",
};

const char *ot_other_group_title(ot_other_group g)
{
	return g < OT_OTHER_COUNT ? group_titles[g] : "";
}

bool ot_step_is_derivative(const ot_step *s)
{
	return s->layer == OT_LAYER_BACKWARD && s->found && s->file &&
	       !strcmp(s->file, OT_REGISTRY_DERIV_PATH);
}

static bool has(const char *text, const char *needle)
{
	return text && strcasestr(text, needle);
}

/* A dispatch key or stub backend that a dense CPU or CUDA tensor can take. */
static bool dense_backend(const char *b)
{
	return !*b || !strncmp(b, "CPU", 3) || !strcmp(b, "CUDA") || ot_starts_with(b, "Composite") ||
	       !strcmp(b, "Autograd") || !strcmp(b, "Default");
}

/* Does condition `w` read a build flag: a preprocessor line, defined(X),
 * a ..._ENABLED or ..._VERSION macro, or a function-like macro written in
 * capitals (AT_USE_JITERATOR(), AT_CUDNN_ENABLED())? */
static bool reads_build_flag(const char *w)
{
	if (!w)
		return false;
	if (w[0] == '#' || strstr(w, "defined(") || strstr(w, "_ENABLED") || strstr(w, "_VERSION") ||
	    strstr(w, "build"))
		return true;
	for (const char *p = w; *p; p++) {
		const char *e = p;
		bool lower = false;
		if (p > w && (ot_is_ident_char(p[-1])))
			continue;
		while (ot_is_ident_char(*e)) {
			lower = lower || islower((unsigned char)*e);
			e++;
		}
		if (e - p > 3 && !lower && isupper((unsigned char)*p) && e[0] == '(' && e[1] == ')')
			return true;
		if (e > p)
			p = e - 1;
	}
	return false;
}

/* The folders that name a layout: a step in one is on that layout's path,
 * unless the op's own main path runs there (_cslt_sparse_mm's dense CUDA
 * kernel lives in sparse/cuda/). */
enum { IN_SPARSE = 1, IN_NESTED = 2, IN_QUANTIZED = 4 };

static unsigned layout_folders(const char *f)
{
	return (has(f, "/sparse/") ? IN_SPARSE : 0) | (has(f, "/nested/") ? IN_NESTED : 0) |
	       (has(f, "/quantized/") ? IN_QUANTIZED : 0);
}

/* The group a step names by itself: its backend, file (outside the
 * folders `main_in` of the main path) or condition. */
static int own_group(const ot_step *s, unsigned main_in)
{
	const char *b = s->backend ? s->backend : "", *f = s->file, *w = s->when;
	unsigned in = layout_folders(f) & ~main_in;
	if (s->fails)
		return OT_OTHER_ERROR; /* it raises on every call, whatever its file */
	if (has(b, "Sparse") || (in & IN_SPARSE) || has(w, "sparse"))
		return OT_OTHER_SPARSE;
	if (has(b, "Nested") || (in & IN_NESTED) || has(w, "nested"))
		return OT_OTHER_NESTED;
	if (has(b, "Quantized") || (in & IN_QUANTIZED) || has(w, "quantized"))
		return OT_OTHER_QUANTIZED;
	if (has(b, "Mkldnn") || has(w, "is_mkldnn"))
		return OT_OTHER_MKLDNN;
	if (!strcmp(b, "MPS") || has(f, "/mps/") || (f && ot_ends_with(f, ".mm")) || has(w, "is_mps") ||
	    (w && strstr(w, "kMPS")))
		return OT_OTHER_MPS;
	if (has(b, "XPU") || has(f, "/xpu/") || has(w, "is_xpu") || (w && strstr(w, "kXPU")))
		return OT_OTHER_XPU;
	if (has(b, "HIP") || has(f, "/hip/") || has(f, "/miopen/") || has(w, "rocm") || has(w, "miopen") ||
	    (w && (strstr(w, "HIP") || strstr(w, "is_hip"))))
		return OT_OTHER_ROCM;
	if (!dense_backend(b))
		return OT_OTHER_BACKEND;
	if (reads_build_flag(w))
		return OT_OTHER_BUILD;
	if (w && ot_starts_with(w, "called as"))
		return OT_OTHER_OVERLOAD;
	if (w && ot_starts_with(w, OT_WHY_BY_NAME))
		return OT_OTHER_BY_NAME;
	if (has(s->note, "validation") || has(s->symbol, "throw_error") || has(s->symbol, "TORCH_CHECK") ||
	    has(s->note, "raises"))
		return OT_OTHER_ERROR;
	return -1;
}

bool ot_symbol_is_bookkeeping(const char *symbol, bool registry_entry)
{
	const char *name = symbol, *c, *dot;
	while ((c = strstr(name, "::")))
		name = c + 2;
	if ((c = strstr(name, "->")))
		name = c + 2;
	dot = strchr(name, '.');
	if (dot && registry_entry)
		return ot_aten_is_bookkeeping_n(name, (size_t)(dot - name)); /* an overload's entry */
	if (dot)
		name = strrchr(name, '.') + 1; /* a method call on a tensor */
	return ot_aten_is_bookkeeping(name);
}

/* Does `s` call or define a bookkeeping op? */
static bool calls_bookkeeping(const ot_step *s)
{
	return s->found && s->symbol &&
	       ot_symbol_is_bookkeeping(s->symbol, s->file && ot_ends_with(s->file, ".yaml"));
}

/* Is the traced op itself one (torch.empty, Tensor.view)? */
static bool op_is_bookkeeping(const ot_trace *tr)
{
	for (size_t i = 0; i < tr->aten.len; i++) {
		const char *full = tr->aten.items[i], *dot = strchr(full, '.');
		if (ot_aten_is_bookkeeping_n(full, dot ? (size_t)(dot - full) : strlen(full)))
			return true;
	}
	return false;
}

void ot_pathview_build(ot_pathview *v, const ot_trace *tr)
{
	bool fold = !op_is_bookkeeping(tr);
	size_t n = tr->steps.len;
	unsigned main_in = 0;
	for (size_t i = 0; i < n; i++)
		if (tr->steps.items[i].main)
			main_in |= layout_folders(tr->steps.items[i].file);
	v->n = n;
	v->part = ot_calloc(n + 1, 1);
	v->group = ot_calloc(n + 1, 1);
	v->derivative = ot_calloc(n + 1, sizeof(int));
	v->bookkeeping = ot_calloc(n + 1, 1);
	/* a parent comes before its children in the steps (each walk appends
	 * below what it reached); a step whose parent does not is a root here */
	for (size_t i = 0; i < n; i++) {
		const ot_step *s = &tr->steps.items[i];
		int p = s->parent >= 0 && (size_t)s->parent < i ? s->parent : -1;
		int g;
		if (fold)
			v->bookkeeping[i] = p >= 0 && v->bookkeeping[p] ? OT_BOOKKEEPING_BELOW
					    : calls_bookkeeping(s)	   ? OT_BOOKKEEPING_CALL
									   : 0;
		v->derivative[i] = ot_step_is_derivative(s) ? (int)i
				   : p >= 0 && v->part[p] == OT_PART_BACKWARD ? v->derivative[p]
				   : p >= 0 && tr->steps.items[p].layer == OT_LAYER_BACKWARD ? p
										     : -1;
		if (s->layer == OT_LAYER_DECOMPOSITION) {
			v->part[i] = OT_PART_DECOMPOSITION;
			continue;
		}
		if (s->main && (s->layer == OT_LAYER_BACKWARD || v->derivative[i] >= 0 ||
				(p >= 0 && v->part[p] == OT_PART_BACKWARD))) {
			v->part[i] = OT_PART_BACKWARD;
			continue;
		}
		if (s->main && (p < 0 || v->part[p] == OT_PART_MAIN)) {
			v->part[i] = OT_PART_MAIN;
			continue;
		}
		if (s->layer == OT_LAYER_BACKWARD || (p >= 0 && v->part[p] == OT_PART_UNRECORDED)) {
			v->part[i] = OT_PART_UNRECORDED;
			continue;
		}
		v->part[i] = OT_PART_OTHER;
		g = own_group(s, main_in);
		if (g < 0 && p >= 0 && v->part[p] == OT_PART_OTHER)
			g = v->group[p]; /* below a side step: its condition */
		if (g < 0)
			g = s->when ? OT_OTHER_ARGS : OT_OTHER_UNCONDITIONED;
		v->group[i] = (uint8_t)g;
	}
}

void ot_pathview_free(ot_pathview *v)
{
	free(v->part);
	free(v->group);
	free(v->derivative);
	free(v->bookkeeping);
	memset(v, 0, sizeof(*v));
}
