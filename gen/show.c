#include "show.h"

#include <stdarg.h>
#include <string.h>

#include "pathview.h"
#include "resolve.h"
#include "value.h"

/* What a piece of text is, and its colour on a terminal (SGR). */
enum paint { P_HEAD, P_LAYER, P_PLACE, P_WHEN, P_MISS, P_DIM };
static const char *const sgr[] = {"\033[1m", "\033[36m", "\033[32m", "\033[33m", "\033[31m",
				  "\033[2m"};

static void paint(ot_buf *out, bool color, enum paint p, const char *fmt, ...) OT_PRINTF(4, 5);

static void paint(ot_buf *out, bool color, enum paint p, const char *fmt, ...)
{
	va_list ap;
	if (color)
		ot_buf_puts(out, sgr[p]);
	va_start(ap, fmt);
	ot_buf_vprintf(out, fmt, ap);
	va_end(ap);
	if (color)
		ot_buf_puts(out, "\033[0m");
}

/* "  layer          symbol  (file:line)", or the step's "not found: ..." note. */
static void step_line(ot_buf *out, const ot_step *st, int indent, bool color)
{
	ot_buf_printf(out, "%*s", indent, "");
	paint(out, color, P_LAYER, "%-13s", ot_layer_name(st->layer));
	ot_buf_putc(out, ' ');
	if (st->found) {
		ot_buf_printf(out, "%s  ", st->symbol ? st->symbol : "");
		paint(out, color, P_PLACE, "(%s:%u)", st->file, st->line);
	} else {
		paint(out, color, P_MISS, "%s", st->note ? st->note : "not found");
	}
	ot_buf_putc(out, '\n');
}

static void when_line(ot_buf *out, const char *when, int indent, bool color)
{
	ot_buf_printf(out, "%*s", indent, "");
	paint(out, color, P_WHEN, "when %s", when);
	ot_buf_putc(out, '\n');
}

/* What a step is, as the pages tell it (pathview.h): the forward main
 * path, the backward (a derivative and what it runs, and derivatives off
 * the main paths), or another path. */
static bool is_forward(const ot_pathview *v, size_t i)
{
	return v->part[i] == OT_PART_MAIN;
}

static bool is_backward(const ot_pathview *v, size_t i)
{
	return v->part[i] == OT_PART_BACKWARD;
}

/* A derivative step off the main paths (the entry of an op that runs below
 * another's autograd kernel, pow inside _euclidean_dist, records no
 * gradient) and what it runs: as on the pages, not shown. */
static bool unrecorded_derivative(const ot_pathview *v, size_t i)
{
	return v->part[i] == OT_PART_UNRECORDED;
}

/* One device's main path: its steps in trace order, each selection with its condition. */
static void main_path(ot_buf *out, const ot_trace *tr, const ot_pathview *v, unsigned bit,
		      const char *device, bool color)
{
	size_t shown = 0;
	ot_raise rs;
	ot_buf_putc(out, '\n');
	paint(out, color, P_HEAD, "%s main path", device);
	ot_buf_putc(out, '\n');
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *st = &tr->steps.items[i];
		if (!(st->main & bit) || !is_forward(v, i))
			continue;
		step_line(out, st, 2, color);
		if (ot_step_when(st, bit == OT_MAIN_CUDA ? OT_DEV_CUDA : OT_DEV_CPU))
			when_line(out, ot_step_when(st, bit == OT_MAIN_CUDA ? OT_DEV_CUDA : OT_DEV_CPU), 16, color);
		shown++;
	}
	if (ot_trace_raise(tr, bit == OT_MAIN_CUDA ? OT_DEV_CUDA : OT_DEV_CPU, &rs)) {
		/* where a default call there ends */
		ot_buf_puts(out, "  ");
		paint(out, color, P_MISS, "%-13s", "raises");
		ot_buf_printf(out, " %s  ", rs.symbol);
		paint(out, color, P_PLACE, "(%s:%u)", rs.file, rs.line);
		ot_buf_putc(out, '\n');
		shown++;
	}
	if (!shown) {
		ot_buf_puts(out, "  ");
		paint(out, color, P_MISS, "not found: a step on the %s main path in this trace", device);
		ot_buf_putc(out, '\n');
	}
}

/* The condition a step off the main paths runs under: its own, else that of
 * the nearest step it was reached through; NULL when none has one. */
static const char *condition_of(const ot_trace *tr, size_t i)
{
	for (size_t hops = 0; hops <= tr->steps.len; hops++) {
		const ot_step *st = &tr->steps.items[i];
		if (st->when)
			return st->when;
		if (st->parent < 0 || (size_t)st->parent >= tr->steps.len)
			return NULL;
		i = (size_t)st->parent;
	}
	return NULL; /* a cycle of parents: no condition can be told */
}

/* The steps on no main path, grouped by condition (first seen first), then
 * those reached otherwise. */
static void other_paths(ot_buf *out, const ot_trace *tr, const ot_pathview *v, bool color)
{
	const char **cond = ot_calloc(tr->steps.len ? tr->steps.len : 1, sizeof(*cond));
	OT_VEC(const char *) groups = {0};
	bool any = false, otherwise = false;

	for (size_t i = 0; i < tr->steps.len; i++) {
		size_t g;
		if (is_forward(v, i) || is_backward(v, i) || unrecorded_derivative(v, i))
			continue;
		any = true;
		cond[i] = condition_of(tr, i);
		if (!cond[i]) {
			otherwise = true;
			continue;
		}
		for (g = 0; g < groups.len && strcmp(groups.items[g], cond[i]); g++)
			;
		if (g == groups.len)
			ot_vec_push(&groups, cond[i]);
	}
	if (any) {
		ot_buf_putc(out, '\n');
		paint(out, color, P_HEAD, "Other paths");
		ot_buf_putc(out, '\n');
	}
	for (size_t g = 0; g <= groups.len; g++) {
		const char *c = g < groups.len ? groups.items[g] : NULL;
		if (g == groups.len && !otherwise)
			break;
		if (c) {
			when_line(out, c, 2, color);
		} else {
			ot_buf_puts(out, "  ");
			paint(out, color, P_DIM, "reached otherwise");
			ot_buf_putc(out, '\n');
		}
		for (size_t i = 0; i < tr->steps.len; i++) {
			const ot_step *st = &tr->steps.items[i];
			if (is_forward(v, i) || is_backward(v, i) || unrecorded_derivative(v, i))
				continue;
			if (c ? cond[i] && !strcmp(cond[i], c) : !cond[i])
				step_line(out, st, 4, color);
		}
	}
	ot_vec_free(&groups);
	free(cond);
}

static void backward(ot_buf *out, const ot_trace *tr, const ot_pathview *v, bool color)
{
	bool any = false;
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *st = &tr->steps.items[i];
		if (!is_backward(v, i))
			continue;
		if (st->layer == OT_LAYER_BACKWARD && st->depth && st->file &&
		    !strcmp(st->file, OT_REGISTRY_NATIVE_PATH))
			continue; /* an op below with no formula (empty: no Tensor), as on the pages */
		if (!any) {
			ot_buf_putc(out, '\n');
			paint(out, color, P_HEAD, "Backward");
			ot_buf_putc(out, '\n');
			any = true;
		}
		step_line(out, st, 2, color);
		if (st->when)
			when_line(out, st->when, 16, color);
	}
}

/* "label: a, b, c" for a non-empty list. */
static void list_line(ot_buf *out, const char *label, const ot_strvec *v, bool color)
{
	if (!v->len)
		return;
	paint(out, color, P_DIM, "%s:", label);
	for (size_t i = 0; i < v->len; i++)
		ot_buf_printf(out, "%s %s", i ? "," : "", v->items[i]);
	ot_buf_putc(out, '\n');
}

void ot_show_render(ot_buf *out, const ot_trace *tr, bool color)
{
	const char *name = tr->target.canonical[0] ? tr->target.canonical : tr->input;
	paint(out, color, P_HEAD, "%s", name);
	ot_buf_printf(out, "  (%s%s%s)\n",
		      tr->target.canonical[0] ? ot_strategy_id(tr->target.strategy) : "",
		      tr->target.canonical[0] ? ", " : "", ot_status_name(tr->status));
	list_line(out, "aten", &tr->aten, color);
	list_line(out, "backends", &tr->backends, color);
	list_line(out, "GPU libraries", &tr->gpu_libs, color);
	for (size_t i = 0; i < tr->messages.len; i++)
		ot_buf_printf(out, "note: %s\n", tr->messages.items[i]);
	if (tr->status == OT_STATUS_WELLKNOWN) {
		const char *summary = ot_v_cstr(ot_v_get(tr->wellknown.data, "summary"));
		ot_buf_printf(out, "well-known: %s\n", summary ? summary : "answered from the reference");
		ot_buf_puts(out, "(--full traces it through the source)\n");
	}
	if (tr->status == OT_STATUS_NOTFOUND) {
		list_line(out, "did you mean", &tr->suggestions, color);
		return;
	}
	if (tr->status != OT_STATUS_TRACED)
		return;
	{
		ot_pathview v;
		ot_pathview_build(&v, tr);
		main_path(out, tr, &v, OT_MAIN_CPU, "CPU", color);
		main_path(out, tr, &v, OT_MAIN_CUDA, "CUDA", color);
		other_paths(out, tr, &v, color);
		backward(out, tr, &v, color);
		ot_pathview_free(&v);
	}
}
