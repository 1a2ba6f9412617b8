/*
 * whichout.c - `optrace which`: run, and print the answer as text or JSON.
 */
#include "whichout.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "opslist.h"
#include "value.h"
#include "version.h"

#define say ot_run_say

/* ---- shared ----------------------------------------------------------------------------- */

const char *ot_which_path(ot_arena *a, const ot_trace *tr, const size_t *steps, size_t n)
{
	unsigned main = 0;
	const char *when = NULL;
	for (size_t i = 0; i < n; i++) {
		const ot_step *s = &tr->steps.items[steps[i]];
		main |= s->main;
		if (!when && s->when)
			when = s->when;
	}
	if (main)
		return main == (OT_MAIN_CPU | OT_MAIN_CUDA) ? "main (cpu, cuda)"
		       : main & OT_MAIN_CPU		       ? "main (cpu)"
							       : "main (cuda)";
	if (when)
		return ot_arena_printf(a, "when: %s", when);
	return "unknown";
}

/* The step an op is shown by at a place: the one with the fewest branches. */
static const ot_step *first_step(const ot_trace *tr, const ot_which_op *o)
{
	const ot_step *best = &tr->steps.items[o->steps[0]];
	for (size_t i = 1; i < o->nsteps; i++) {
		const ot_step *s = &tr->steps.items[o->steps[i]];
		if (s->depth < best->depth)
			best = s;
	}
	return best;
}

static const char *op_label(const ot_trace *tr)
{
	return tr->target.canonical[0] ? tr->target.canonical : tr->input;
}

static const char *qkind_name(ot_which_qkind k)
{
	static const char *const names[] = {"name", "file", "file:line", "op", "diff"};
	return k <= OT_WQ_DIFF ? names[k] : "?";
}

/* ---- text --------------------------------------------------------------------------------- */

void ot_which_render_text(ot_buf *out, const ot_which_result *r, ot_trace *const *traces,
			  const ot_release *rel)
{
	ot_arena *a = ot_arena_new();
	ot_buf_printf(out, "PyTorch %s%s%s%s: which %s\n", rel->version, rel->tag ? " (" : "",
		      rel->tag ? rel->tag : "", rel->tag ? ")" : "", r->query);
	if (r->parsed) {
		const ot_kname *k = r->parsed;
		ot_buf_printf(out, "name: %s%s%s", k->name, *k->qual ? " in " : "", k->qual);
		if (k->ntargs)
			ot_buf_printf(out, ", %zu template argument%s", k->ntargs, k->ntargs > 1 ? "s" : "");
		if (k->nrefs) {
			ot_buf_puts(out, " naming");
			for (size_t i = 0; i < k->nrefs; i++)
				ot_buf_printf(out, "%s %s%s%s%s", i ? "," : "", k->refs[i].qual,
					      *k->refs[i].qual ? "::" : "", k->refs[i].name, k->refs[i].function ? "()" : "");
		}
		ot_buf_putc(out, '\n');
	}
	if (r->library)
		ot_buf_printf(out, "library: %s (a kernel of that library: the pattern '%s'%s%s)\n", r->library->library,
			      r->library->pattern, r->library->note ? "; " : "", r->library->note ? r->library->note : "");
	for (size_t i = 0; i < r->nmatches; i++) {
		const ot_which_match *m = &r->matches[i];
		ot_buf_printf(out, "\n%s %s", ot_which_kind_name(m->kind), m->symbol ? m->symbol : "");
		if (m->scope && *m->scope)
			ot_buf_printf(out, " (%s)", m->scope);
		if (m->detail)
			ot_buf_printf(out, " — %s", m->detail);
		ot_buf_putc(out, '\n');
		if (m->end_line > m->line)
			ot_buf_printf(out, "  %s:%u-%u\n", m->file, m->line, m->end_line);
		else
			ot_buf_printf(out, "  %s:%u\n", m->file, m->line);
		if (m->via)
			ot_buf_printf(out, "  found as: %s\n", m->via);
		if (!m->nops) {
			ot_buf_puts(out, "  no traced op reaches it\n");
			continue;
		}
		ot_buf_printf(out, "  reached by %zu op%s:\n", m->nops, m->nops > 1 ? "s" : "");
		for (size_t k = 0; k < m->nops; k++) {
			const ot_which_op *o = &m->ops[k];
			const ot_trace *tr = traces[o->op];
			const ot_step *s = first_step(tr, o);
			ot_buf_printf(out, "    %-28s %-13s %s:%u %s", op_label(tr), ot_layer_name(s->layer), s->file,
				      s->line, s->symbol);
			if (s->depth && *s->op)
				ot_buf_printf(out, " (via aten::%s)", s->op);
			if (o->nsteps > 1)
				ot_buf_printf(out, " (+%zu step%s)", o->nsteps - 1, o->nsteps > 2 ? "s" : "");
			ot_buf_printf(out, "  path: %s\n", ot_which_path(a, tr, o->steps, o->nsteps));
		}
	}
	if (r->not_found)
		ot_buf_printf(out, "\n%s\n", r->not_found);
	ot_buf_printf(out, "\n%zu op%s reach%s it\n", r->nops, r->nops == 1 ? "" : "s", r->nops == 1 ? "es" : "");
	ot_arena_free(a);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void jstr(ot_buf *b, const char *s)
{
	if (s)
		ot_json_escape(b, s, strlen(s));
	else
		ot_buf_puts(b, "null");
}

static void jkey(ot_buf *b, int ind, bool first, const char *k)
{
	ot_buf_printf(b, "%s\n%*s\"%s\": ", first ? "" : ",", ind, "", k);
}

static void jend(ot_buf *b, int ind, size_t n, char c)
{
	if (n)
		ot_buf_printf(b, "\n%*s", ind, "");
	ot_buf_putc(b, c);
}

static void jitem(ot_buf *b, int ind, size_t i)
{
	ot_buf_printf(b, "%s\n%*s", i ? "," : "", ind, "");
}

static void json_step(ot_buf *b, int ind, const ot_step *s, size_t index)
{
	ot_buf_putc(b, '{');
	jkey(b, ind + 2, true, "index");
	ot_buf_printf(b, "%zu", index);
	jkey(b, ind + 2, false, "layer");
	jstr(b, ot_layer_name(s->layer));
	jkey(b, ind + 2, false, "file");
	jstr(b, s->file);
	jkey(b, ind + 2, false, "line");
	ot_buf_printf(b, "%u", s->line);
	jkey(b, ind + 2, false, "symbol");
	jstr(b, s->symbol);
	jkey(b, ind + 2, false, "op");
	jstr(b, s->op);
	jkey(b, ind + 2, false, "depth");
	ot_buf_printf(b, "%u", s->depth);
	jkey(b, ind + 2, false, "main");
	ot_buf_printf(b, "[%s%s%s]", s->main & OT_MAIN_CPU ? "\"cpu\"" : "",
		      (s->main & OT_MAIN_CPU) && (s->main & OT_MAIN_CUDA) ? ", " : "",
		      s->main & OT_MAIN_CUDA ? "\"cuda\"" : "");
	jkey(b, ind + 2, false, "when");
	jstr(b, s->when);
	jend(b, ind, 1, '}');
}

void ot_which_render_json(ot_buf *out, const ot_which_result *r, ot_trace *const *traces,
			  const ot_release *rel)
{
	ot_map *all = ot_map_new();
	OT_VEC(const char *) names = {0};
	ot_buf_putc(out, '{');
	jkey(out, 2, true, "query");
	jstr(out, r->query);
	jkey(out, 2, false, "kind");
	jstr(out, qkind_name(r->qkind));
	jkey(out, 2, false, "pytorch");
	ot_buf_putc(out, '{');
	jkey(out, 4, true, "version");
	jstr(out, rel->version);
	jkey(out, 4, false, "tag");
	jstr(out, rel->tag);
	jkey(out, 4, false, "commit");
	jstr(out, rel->commit);
	jend(out, 2, 1, '}');
	jkey(out, 2, false, "parsed");
	if (r->parsed) {
		const ot_kname *k = r->parsed;
		ot_buf_putc(out, '{');
		jkey(out, 4, true, "name");
		jstr(out, k->name);
		jkey(out, 4, false, "scope");
		jstr(out, k->qual);
		jkey(out, 4, false, "template_arguments");
		ot_buf_putc(out, '[');
		for (size_t i = 0; i < k->ntargs; i++) {
			jitem(out, 6, i);
			jstr(out, k->targs[i]);
		}
		jend(out, 4, k->ntargs, ']');
		jkey(out, 4, false, "references");
		ot_buf_putc(out, '[');
		for (size_t i = 0; i < k->nrefs; i++) {
			jitem(out, 6, i);
			ot_buf_puts(out, "{\"name\": ");
			jstr(out, k->refs[i].name);
			ot_buf_puts(out, ", \"scope\": ");
			jstr(out, k->refs[i].qual);
			ot_buf_printf(out, ", \"function\": %s}", k->refs[i].function ? "true" : "false");
		}
		jend(out, 4, k->nrefs, ']');
		jkey(out, 4, false, "lambda");
		ot_buf_puts(out, k->lambda ? "true" : "false");
		jend(out, 2, 1, '}');
	} else {
		ot_buf_puts(out, "null");
	}
	jkey(out, 2, false, "library");
	if (r->library) {
		ot_buf_puts(out, "{\"name\": ");
		jstr(out, r->library->library);
		ot_buf_puts(out, ", \"pattern\": ");
		jstr(out, r->library->pattern);
		ot_buf_puts(out, ", \"note\": ");
		jstr(out, r->library->note);
		ot_buf_putc(out, '}');
	} else {
		ot_buf_puts(out, "null");
	}
	jkey(out, 2, false, "matches");
	ot_buf_putc(out, '[');
	for (size_t i = 0; i < r->nmatches; i++) {
		const ot_which_match *m = &r->matches[i];
		jitem(out, 4, i);
		ot_buf_putc(out, '{');
		jkey(out, 6, true, "kind");
		jstr(out, ot_which_kind_name(m->kind));
		jkey(out, 6, false, "symbol");
		jstr(out, m->symbol);
		jkey(out, 6, false, "scope");
		jstr(out, m->scope);
		jkey(out, 6, false, "file");
		jstr(out, m->file);
		jkey(out, 6, false, "line");
		ot_buf_printf(out, "%u", m->line);
		jkey(out, 6, false, "end_line");
		ot_buf_printf(out, "%u", m->end_line);
		jkey(out, 6, false, "detail");
		jstr(out, m->detail);
		jkey(out, 6, false, "via");
		jstr(out, m->via);
		jkey(out, 6, false, "ops");
		ot_buf_putc(out, '[');
		for (size_t k = 0; k < m->nops; k++) {
			const ot_which_op *o = &m->ops[k];
			const ot_trace *tr = traces[o->op];
			jitem(out, 8, k);
			ot_buf_putc(out, '{');
			jkey(out, 10, true, "input");
			jstr(out, tr->input);
			jkey(out, 10, false, "name");
			jstr(out, tr->target.canonical[0] ? tr->target.canonical : NULL);
			jkey(out, 10, false, "page");
			if (tr->target.canonical[0])
				ot_buf_printf(out, "\"ops/%s.md\"", tr->target.slug);
			else
				ot_buf_puts(out, "null");
			jkey(out, 10, false, "steps");
			ot_buf_putc(out, '[');
			for (size_t s = 0; s < o->nsteps; s++) {
				jitem(out, 12, s);
				json_step(out, 12, &tr->steps.items[o->steps[s]], o->steps[s]);
			}
			jend(out, 10, o->nsteps, ']');
			jend(out, 8, 1, '}');
			if (!ot_map_get(all, tr->input)) {
				ot_map_put(all, tr->input, (void *)1);
				ot_vec_push(&names, tr->input);
			}
		}
		jend(out, 6, m->nops, ']');
		jend(out, 4, 1, '}');
	}
	jend(out, 2, r->nmatches, ']');
	if (names.len > 1)
		qsort(names.items, names.len, sizeof(*names.items), ot_strptr_cmp);
	jkey(out, 2, false, "ops");
	ot_buf_putc(out, '[');
	for (size_t i = 0; i < names.len; i++) {
		jitem(out, 4, i);
		jstr(out, names.items[i]);
	}
	jend(out, 2, names.len, ']');
	jkey(out, 2, false, "not_found");
	jstr(out, r->not_found);
	ot_buf_puts(out, "\n}\n");
	ot_vec_free(&names);
	ot_map_free(all);
}

/* ---- the command ---------------------------------------------------------------------------- */

static int read_all(ot_buf *out, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char tmp[65536];
	size_t n;
	if (!f)
		return ot_error_set("cannot read %s: %s", path, strerror(errno));
	while ((n = fread(tmp, 1, sizeof(tmp), f)))
		ot_buf_put(out, tmp, n);
	if (ferror(f)) {
		if (f != stdin)
			fclose(f);
		return ot_error_set("cannot read %s: %s", path, strerror(errno));
	}
	if (f != stdin)
		fclose(f);
	return 0;
}

int ot_which_run(const ot_which_opts *o)
{
	ot_run_opts ro = o->run;
	ot_opslist *list = NULL;
	ot_run_traces *t = NULL;
	ot_which *w = NULL;
	ot_which_result *res = NULL;
	ot_udiff *diff = NULL;
	ot_version ver;
	ot_buf text = OT_BUF_INIT, b = OT_BUF_INIT;
	const char *ops_path = ro.ops_list ? ro.ops_list : "ops.list";
	char pin_origin[600] = "";
	int status = OT_EXIT_FATAL;
	double t0 = ot_clock(), t1, t2;

	if (o->diff) { /* a malformed diff fails before anything is traced */
		if (read_all(&text, o->diff) < 0 ||
		    ot_udiff_parse(&diff, text.ptr, text.size, strcmp(o->diff, "-") ? o->diff : "stdin") < 0) {
			say("%s", ot_error_last());
			goto done;
		}
	}
	if (ro.ops_list_given || access(ops_path, F_OK) == 0 || !ro.all) {
		if (ot_opslist_load(&list, ops_path) < 0) {
			say("%s", ot_error_last());
			goto done;
		}
		for (size_t i = 0; i < list->diags.len; i++)
			say("%s", list->diags.items[i].message);
		if (list->pin)
			snprintf(pin_origin, sizeof(pin_origin), "ops.list pin (%s:%d)", ops_path, list->pin_line);
	}
	if (ot_version_detect(&ver, ro.torch_version, list ? list->pin : NULL, list && list->pin ? pin_origin : NULL,
			      list && list->pin ? ops_path : NULL, ro.python) < 0) {
		say("%s", ot_error_last());
		goto done;
	}
	ro.quiet = true; /* the traces' own summary is not the answer */
	ro.verbose = 0;
	if (ot_run_trace_release(&t, &ro, ver.release, ver.nightly ? ver.commit : NULL, list) < 0) {
		say("%s", ot_error_last());
		goto done;
	}
	t1 = ot_clock();
	w = ot_which_new(t->traces, t->n, ot_run_traces_index(t), t->reg);
	if (o->diff ? ot_which_diff(&res, w, diff) < 0 : ot_which_query(&res, w, o->what) < 0) {
		say("%s", ot_error_last());
		goto done;
	}
	t2 = ot_clock();
	if (o->json)
		ot_which_render_json(&b, res, t->traces, &t->rel);
	else
		ot_which_render_text(&b, res, t->traces, &t->rel);
	fwrite(b.ptr, 1, b.size, stdout);
	if (fflush(stdout) != 0) {
		say("cannot write the answer: %s", strerror(errno));
		goto done;
	}
	if (o->run.verbose && !o->run.quiet)
		say("which: read, index and trace %.3f s (%zu ops), lookup %.3f s, total %.3f s", t1 - t0, t->n,
		    t2 - t1, ot_clock() - t0);
	status = o->diff || res->nops ? OT_EXIT_OK : OT_EXIT_PARTIAL;
done:
	ot_which_result_free(res);
	ot_which_free(w);
	ot_run_traces_free(t);
	ot_udiff_free(diff);
	ot_opslist_free(list);
	ot_buf_free(&text);
	ot_buf_free(&b);
	return status;
}
