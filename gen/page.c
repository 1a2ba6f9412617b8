#include "page.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "assets.h"
#include "escape.h"
#include "graph.h"
#include "mustache.h"
#include "pathview.h"
#include "testdb.h"
#include "which.h"
#include "value.h"

enum { T_PAGE, T_INDEX, T_KERNELS, T_COUNT };
static const char *const template_names[T_COUNT] = {"page.md.mustache", "index.md.mustache",
						    "kernels.md.mustache"};
/* partials the templates may include */
static const char *const partial_names[] = {"wellknown.md.mustache"};

struct ot_pages {
	ot_release rel;
	ot_trace *const *traces;
	const int *lines;
	size_t n;
	const ot_index *ix;
	const ot_registry *reg;
	ot_mustache *tmpl[T_COUNT];
	ot_buf partials[OT_ARRAY_LEN(partial_names)];
	/* related ops: for each trace, indices of traces it reaches / is reached from */
	OT_VEC(size_t) *reaches, *reached_by, *same_op;
};

/* ---- Markdown text helpers ------------------------------------------------------ */

/* The Markdown leaves every page string goes through; the rules are
 * escape.h's (GitHub's cmark-gfm and MkDocs' Python-Markdown show the text
 * literally). */
static const char *md_text(ot_arena *a, const char *s)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	ot_esc_md_text(&b, s, strlen(s));
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

static const char *code_span(ot_arena *a, const char *s, bool in_table)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	ot_esc_md_code(&b, s, strlen(s), in_table);
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

/* An inline code span holding `s` literally, in prose. */
static const char *md_code(ot_arena *a, const char *s)
{
	return code_span(a, s, false);
}

/* The same in a table cell. */
static const char *md_cell(ot_arena *a, const char *s)
{
	return code_span(a, s, true);
}

/* A name as it is shown inside a code block: one line, nothing hidden. */
static const char *shown(ot_arena *a, const char *s)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	ot_esc_display(&b, s, strlen(s));
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

/* A YAML scalar for the front matter: a JSON string is a valid YAML one. */
static const char *yaml_string(ot_arena *a, const char *s)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	ot_json_escape(&b, s, strlen(s));
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

/* Bytes of the well-formed sequence at i, 0 for a bad byte (NUL included:
 * it has no place in a page). */
static size_t page_char_len(const ot_buf *b, size_t i)
{
	return b->ptr[i] ? ot_utf8_len(b->ptr + i, b->size - i) : 0;
}

void ot_utf8_sanitize(ot_buf *b)
{
	ot_buf out = OT_BUF_INIT;
	size_t i = 0, n;
	while (i < b->size && (n = page_char_len(b, i)))
		i += n;
	if (i == b->size)
		return; /* well-formed: the usual case, nothing copied */
	ot_buf_put(&out, b->ptr, i);
	while (i < b->size) {
		if ((n = page_char_len(b, i))) {
			ot_buf_put(&out, b->ptr + i, n);
			i += n;
		} else {
			ot_buf_puts(&out, "\xEF\xBF\xBD");
			i++;
		}
	}
	ot_buf_free(b);
	*b = out;
}

/* ---- source links and excerpts ----------------------------------------------------- */

static const char *source_url(const ot_pages *p, ot_arena *a, const char *path, uint32_t line)
{
	const char *ref = p->rel.tag ? p->rel.tag : p->rel.verified ? p->rel.commit : NULL;
	ot_buf b = OT_BUF_INIT, u = OT_BUF_INIT;
	const char *r;
	if (!p->rel.base_url || !*p->rel.base_url || !ref || !path)
		return NULL;
	/* the path is the checkout's: encoded, so no file name ends the link */
	ot_buf_printf(&b, "%s/", p->rel.base_url);
	ot_esc_url_path(&b, ref, strlen(ref));
	ot_buf_putc(&b, '/');
	ot_esc_url_path(&b, path, strlen(path));
	ot_buf_printf(&b, "#L%u", line);
	ot_esc_url(&u, b.ptr, b.size);
	r = ot_arena_strndup(a, u.ptr, u.size);
	ot_buf_free(&b);
	ot_buf_free(&u);
	return r;
}

/* `path:line`, linked to the upstream source when possible; `in_table`:
 * for a table cell. */
static const char *location_in(const ot_pages *p, ot_arena *a, const char *path, uint32_t line,
			       bool in_table)
{
	const char *url = source_url(p, a, path, line);
	const char *text = path ? code_span(a, ot_arena_printf(a, "%s:%u", path, line), in_table)
				: "(no file)";
	return url ? ot_arena_printf(a, "[%s](%s)", text, url) : text;
}

static const char *location(const ot_pages *p, ot_arena *a, const char *path, uint32_t line)
{
	return location_in(p, a, path, line, false);
}

static const char *fence_lang(const char *path)
{
	if (ot_ends_with(path, ".py"))
		return "python";
	if (ot_ends_with(path, ".yaml"))
		return "yaml";
	if (ot_ends_with(path, ".cu") || ot_ends_with(path, ".cuh"))
		return "cuda";
	if (ot_ends_with(path, ".mm"))
		return "objective-c++";
	return "cpp";
}

/* The extent of a definition starting at (file, line), or 0. */
static uint32_t definition_end(const ot_pages *p, uint32_t file, uint32_t line, const char *symbol)
{
	const char *name = symbol;
	if (ot_starts_with(name, "def "))
		name += 4;
	else if (ot_starts_with(name, "class "))
		name += 6;
	for (const ot_ix_cdef *d = ot_index_cdefs(p->ix, name); d; d = d->next)
		if (d->file == file && d->line == line)
			return d->end_line;
	for (const ot_ix_pydef *d = ot_index_pydefs(p->ix, name); d; d = d->next)
		if (d->file == file && d->line == line)
			return d->end_line;
	return 0;
}

#define EXCERPT_MAX_LINES 4

static bool starts_docstring(const char *t, size_t len)
{
	size_t i = 0;
	while (i < len && (t[i] == ' ' || t[i] == '\t'))
		i++;
	if (i < len && (t[i] == 'r' || t[i] == 'R' || t[i] == 'u' || t[i] == 'U'))
		i++;
	return i + 2 < len && (t[i] == '"' || t[i] == '\'') && t[i + 1] == t[i] && t[i + 2] == t[i];
}

typedef OT_VEC(uint32_t) line_list;

/* Lines [first, last] of a short excerpt around a step: the line itself for a
 * call site; for a definition its signature and first lines (a Python
 * docstring skipped); for a registry entry the entry; a class line alone. */
static void excerpt_lines(const ot_pages *p, uint32_t fid, const ot_step *s, line_list *out)
{
	uint32_t end = definition_end(p, fid, s->line, s->symbol), l;
	size_t len;
	const char *t;

	if (ot_ends_with(s->file, ".yaml")) {
		for (l = s->line; l < s->line + EXCERPT_MAX_LINES + 2; l++) {
			t = ot_index_line(p->ix, fid, l, &len);
			if (!t || (l > s->line && (!len || t[0] == '-')))
				break;
			ot_vec_push(out, l);
		}
		return;
	}
	ot_vec_push(out, s->line);
	if (!end || ot_starts_with(s->symbol, "class "))
		return;
	for (l = s->line + 1; l <= end && out->len < EXCERPT_MAX_LINES; l++) {
		t = ot_index_line(p->ix, fid, l, &len);
		if (!t)
			break;
		if (ot_ends_with(s->file, ".py") && starts_docstring(t, len)) {
			/* skip to the line that closes the docstring */
			char q[4] = {0};
			const char *open = t;
			while (*open == ' ' || *open == '\t' || *open == 'r' || *open == 'R' ||
			       *open == 'u' || *open == 'U')
				open++;
			memcpy(q, open, 3);
			if (memmem(open + 3, len - (size_t)(open + 3 - t), q, 3))
				continue; /* one-line docstring */
			for (l++; l <= end; l++) {
				t = ot_index_line(p->ix, fid, l, &len);
				if (!t || memmem(t, len, q, 3))
					break;
			}
			continue;
		}
		ot_vec_push(out, l);
	}
}

/* A short excerpt around a step, read from the indexed source: a block
 * (`text`, with the `fence` it needs), or, when it is one line or `block`
 * is false, its first line without its indentation (`one_line`, raw
 * source: the caller escapes it). */
static void excerpt(const ot_pages *p, ot_arena *a, const ot_step *s, bool block, const char **text,
		    const char **fence, const char **one_line)
{
	int64_t fid = ot_index_file_id(p->ix, s->file);
	line_list lines = {0};
	ot_buf b = OT_BUF_INIT, body = OT_BUF_INIT;

	*text = NULL;
	*fence = NULL;
	*one_line = NULL;
	if (fid < 0)
		return;
	excerpt_lines(p, (uint32_t)fid, s, &lines);
	if (!block)
		lines.len = lines.len ? 1 : 0;
	if (lines.len == 1) {
		size_t len;
		const char *t = ot_index_line(p->ix, (uint32_t)fid, lines.items[0], &len);
		while (t && len && (*t == ' ' || *t == '\t')) {
			t++;
			len--;
		}
		while (t && len && (t[len - 1] == ' ' || t[len - 1] == '\t' || t[len - 1] == '\r'))
			len--;
		if (t && len)
			*one_line = ot_arena_strndup(a, t, len);
		ot_vec_free(&lines);
		return;
	}
	for (size_t k = 0; k < lines.len; k++) {
		size_t len;
		const char *t = ot_index_line(p->ix, (uint32_t)fid, lines.items[k], &len);
		if (k && lines.items[k] != lines.items[k - 1] + 1)
			ot_buf_puts(&b, "    ...\n");
		ot_buf_put(&b, t, len);
		ot_buf_putc(&b, '\n');
	}
	ot_vec_free(&lines);
	while (b.size && b.ptr[b.size - 1] == '\n')
		b.size--;
	if (!b.size) {
		ot_buf_free(&b);
		return;
	}
	ot_esc_md_block(&body, b.ptr, b.size);
	*text = ot_arena_strndup(a, body.ptr, body.size);
	{
		size_t n = ot_esc_md_fence(body.ptr, body.size);
		char *f = ot_arena_alloc(a, n + 1);
		memset(f, '`', n);
		f[n] = '\0';
		*fence = f;
	}
	ot_buf_free(&body);
	ot_buf_free(&b);
}

/* Is Python step s an assignment (`avg_pool2d = _add_docstr(...)`), not
 * a function with a body to quote? Read from its line. */
static bool python_assignment(const ot_pages *p, const ot_step *s)
{
	int64_t fid = s->layer == OT_LAYER_PYTHON && s->found ? ot_index_file_id(p->ix, s->file) : -1;
	size_t len, n = strlen(s->symbol);
	const char *t = fid >= 0 ? ot_index_line(p->ix, (uint32_t)fid, s->line, &len) : NULL;
	if (!t || len <= n || memcmp(t, s->symbol, n))
		return false;
	while (n < len && t[n] == ' ')
		n++;
	return n + 1 < len && t[n] == '=' && t[n + 1] != '=';
}

/* ---- setup -------------------------------------------------------------------------- */

static int load_partial(ot_buf *out, const char *name, void *payload)
{
	ot_pages *p = payload;
	for (size_t i = 0; i < OT_ARRAY_LEN(partial_names); i++) {
		if (!strcmp(partial_names[i], name)) {
			ot_buf_put(out, p->partials[i].ptr, p->partials[i].size);
			return 0;
		}
	}
	return OT_ENOTFOUND;
}

/* "addmm.out" -> "addmm"; "add_.Tensor" -> "add" */
static void base_of(char *out, size_t n, const char *full)
{
	size_t len = strcspn(full, ".");
	if (len >= n)
		len = n - 1;
	memcpy(out, full, len);
	out[len] = '\0';
	if (len > 1 && out[len - 1] == '_' && out[len - 2] != '_')
		out[len - 1] = '\0';
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The op a trace is about: the base name of its first aten overload (the
 * tracer puts the best match of the user's name first), or "". */
static void primary_of(char *out, size_t n, const ot_trace *tr)
{
	if (tr->aten.len)
		base_of(out, n, tr->aten.items[0]);
	else
		out[0] = '\0';
}

static void link_related(ot_pages *p, ot_map *by_primary, char (*primary)[160], size_t i,
			 const char *base)
{
	size_t *js = ot_map_get(by_primary, base);
	if (!js || !strcmp(base, primary[i]))
		return;
	for (size_t k = 1; k <= js[0]; k++) {
		size_t j = js[k];
		bool seen = false;
		for (size_t m = 0; m < p->reaches[i].len && !seen; m++)
			seen = p->reaches[i].items[m] == j;
		if (seen || j == i)
			continue;
		ot_vec_push(&p->reaches[i], j);
		ot_vec_push(&p->reached_by[j], i);
	}
}

/*
 * Related ops: trace i reaches trace j when j's primary op is one of the ops
 * i calls or one of i's own overloads other than its primary one; i and j
 * are the same op when their primary ops are equal. Linear in the number of
 * calls, through a map from primary op to the traces about it.
 */
static void compute_related(ot_pages *p)
{
	char (*primary)[160] = ot_calloc(p->n ? p->n : 1, sizeof(*primary));
	ot_map *by_primary = ot_map_new();
	ot_arena *a = ot_arena_new();
	char b[160];

	p->reaches = ot_calloc(p->n ? p->n : 1, sizeof(*p->reaches));
	p->reached_by = ot_calloc(p->n ? p->n : 1, sizeof(*p->reached_by));
	p->same_op = ot_calloc(p->n ? p->n : 1, sizeof(*p->same_op));
	for (size_t i = 0; i < p->n; i++) {
		size_t *old, *js, n;
		primary_of(primary[i], sizeof(primary[i]), p->traces[i]);
		if (!primary[i][0])
			continue;
		/* js[0] counts, js[1..] are trace indices, in input order */
		old = ot_map_get(by_primary, primary[i]);
		n = old ? old[0] : 0;
		js = ot_realloc(old, (n + 2) * sizeof(size_t));
		js[0] = n + 1;
		js[n + 1] = i;
		/* an existing key keeps its (arena) string; only the value changes */
		ot_map_put(by_primary, old ? primary[i] : ot_arena_strdup(a, primary[i]), js);
	}
	for (size_t i = 0; i < p->n; i++) {
		const ot_trace *tr = p->traces[i];
		size_t *same = primary[i][0] ? ot_map_get(by_primary, primary[i]) : NULL;
		for (size_t k = 1; same && k <= same[0]; k++)
			if (same[k] != i)
				ot_vec_push(&p->same_op[i], same[k]);
		for (size_t k = 0; k < tr->calls.len; k++)
			link_related(p, by_primary, primary, i, tr->calls.items[k]);
		for (size_t k = 0; k < tr->aten.len; k++) {
			base_of(b, sizeof(b), tr->aten.items[k]);
			link_related(p, by_primary, primary, i, b);
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		/* an empty vector's items is NULL, which qsort must not see */
		if (p->reaches[i].len > 1)
			qsort(p->reaches[i].items, p->reaches[i].len, sizeof(size_t), cmp_size);
		if (p->reached_by[i].len > 1)
			qsort(p->reached_by[i].items, p->reached_by[i].len, sizeof(size_t), cmp_size);
	}
	for (size_t k = 0; k < ot_map_len(by_primary); k++)
		free(ot_map_value_at(by_primary, k));
	ot_map_free(by_primary);
	ot_arena_free(a);
	free(primary);
}

int ot_pages_new(ot_pages **out, const ot_release *rel, ot_trace *const *traces,
		 const int *lines, size_t n, const ot_index *ix, const ot_registry *reg,
		 const char *templates_dir)
{
	ot_pages *p = ot_calloc(1, sizeof(*p));
	ot_buf text = OT_BUF_INIT;
	int rc = 0;

	*out = NULL;
	p->rel = *rel;
	p->traces = traces;
	p->lines = lines;
	p->n = n;
	p->ix = ix;
	p->reg = reg;
	for (size_t i = 0; i < OT_ARRAY_LEN(partial_names); i++) {
		p->partials[i] = (ot_buf)OT_BUF_INIT;
		if ((rc = ot_assets_get(&p->partials[i], templates_dir, partial_names[i], NULL)) < 0)
			goto done;
	}
	for (int t = 0; t < T_COUNT; t++) {
		if ((rc = ot_assets_get(&text, templates_dir, template_names[t], NULL)) < 0)
			goto done;
		if ((rc = ot_mustache_compile(&p->tmpl[t], text.ptr, text.size, template_names[t])) < 0)
			goto done;
	}
	compute_related(p);

done:
	ot_buf_free(&text);
	if (rc < 0) {
		ot_pages_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void ot_pages_free(ot_pages *p)
{
	if (!p)
		return;
	for (int t = 0; t < T_COUNT; t++)
		ot_mustache_free(p->tmpl[t]);
	for (size_t i = 0; i < OT_ARRAY_LEN(partial_names); i++)
		ot_buf_free(&p->partials[i]);
	for (size_t i = 0; i < p->n && p->reaches; i++) {
		ot_vec_free(&p->reaches[i]);
		ot_vec_free(&p->reached_by[i]);
		ot_vec_free(&p->same_op[i]);
	}
	free(p->reaches);
	free(p->reached_by);
	free(p->same_op);
	free(p);
}

/* ---- the op page -------------------------------------------------------------------- */

static const char *const layer_titles[OT_LAYER_COUNT] = {
	"Python API",
	"Bridge from Python to C++",
	"Registry entry (native_functions.yaml)",
	"C++ implementation (ATen)",
	"Structured kernel: meta function",
	"DispatchStub",
	"Kernels per backend",
	"GPU work (CUDA, cuDNN, cuBLAS, ...)",
	"Backward (derivatives.yaml)",
	"Decomposition (torch._decomp, torch._refs)",
};

static const char *release_line(const ot_pages *p, ot_arena *a)
{
	if (!p->rel.verified)
		return ot_arena_printf(a,
				       "PyTorch **%s** · **unverified source**: read from a plain "
				       "directory whose release could not be proven "
				       "(`--unverified-source`)",
				       p->rel.version);
	if (p->rel.tag)
		return ot_arena_printf(a, "PyTorch **%s** · tag `%s` · commit `%.8s`", p->rel.version,
				       p->rel.tag, p->rel.commit);
	return ot_arena_printf(a, "PyTorch **%s** · commit `%.8s` (no release tag)", p->rel.version,
			       p->rel.commit);
}

static const char *licence_note(const ot_pages *p, ot_arena *a)
{
	const char *where = p->rel.tag ? ot_arena_printf(a, "at tag `%s`", p->rel.tag)
			    : p->rel.verified ? ot_arena_printf(a, "at commit `%.8s`", p->rel.commit)
					      : "of the unverified source tree";
	return ot_arena_printf(a,
			       "Excerpts are short quotations of the PyTorch source %s, © the "
			       "PyTorch contributors, under PyTorch's BSD-style licence (`LICENSE` "
			       "in that tree). Everything else on this page was written by optrace.",
			       where);
}

static void add_release(const ot_pages *p, ot_arena *a, ot_value *ctx)
{
	ot_v_set_str(a, ctx, "version", p->rel.version);
	ot_v_set(a, ctx, "release_line", ot_v_str_borrow(a, release_line(p, a)));
	ot_v_set(a, ctx, "licence_note", ot_v_str_borrow(a, licence_note(p, a)));
}

static const char *op_link(const ot_pages *p, ot_arena *a, size_t j, const char *prefix)
{
	const ot_trace *t = p->traces[j];
	return ot_arena_printf(a, "[%s](%s%s.md)", md_text(a, t->target.canonical), prefix,
			       t->target.slug);
}

/* The strings of list `l` joined by ", " ("" for an empty list). */
static const char *joined_values(ot_arena *a, const ot_value *l)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	for (size_t i = 0; i < ot_v_len(l); i++)
		ot_buf_printf(&b, "%s%s", i ? ", " : "", ot_v_cstr(ot_v_at(l, i)));
	r = ot_arena_strndup(a, b.ptr ? b.ptr : "", b.size);
	ot_buf_free(&b);
	return r;
}

static const char *joined_codes_in(ot_arena *a, const ot_strvec *v, size_t max, bool in_table)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	for (size_t i = 0; i < v->len && i < max; i++)
		ot_buf_printf(&b, "%s%s", i ? ", " : "", code_span(a, v->items[i], in_table));
	if (v->len > max)
		ot_buf_printf(&b, " and %zu more", v->len - max);
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

static const char *joined_codes(ot_arena *a, const ot_strvec *v, size_t max)
{
	return joined_codes_in(a, v, max, false);
}

/* The ASCII overview: one node per layer (the op's own fact first, else a
 * branch's), forks for backends. */
static const char *const short_names[OT_LAYER_COUNT] = {
	"Python", "Bridge", "YAML", "C++", "Meta", "Stub", "Kernel", "GPU", "Backward", "Decomp"};

/* The first step of each layer among the steps `pick` selects, and how
 * many there are: the rows of one stretch of the overview or summary. */
struct layer_rows {
	const ot_step *first[OT_LAYER_COUNT];
	size_t count[OT_LAYER_COUNT];
	size_t nrows;
};

enum { ROWS_COMMON, ROWS_CPU, ROWS_CUDA, ROWS_BACKWARD, ROWS_COUNT };

/* A step that names again what its parent names (a DispatchStub's
 * declaration, definition and registration under its call): a compact
 * list shows the first only. */
static bool restates_parent(const ot_trace *tr, const ot_step *s)
{
	const ot_step *up = s->parent >= 0 ? &tr->steps.items[s->parent] : NULL;
	return up && up->layer == s->layer && up->found && s->found && !strcmp(up->symbol, s->symbol);
}

/* The name of `sym` without its qualifier (at::native::x -> x). */
static const char *unqualified(const char *sym)
{
	const char *c = strrchr(sym, ':');
	return c ? c + 1 : sym;
}

/* Does step s only name again what its parent, a call, names: the
 * definition a qualified call reaches (at::native::x -> x, in the same
 * layer), or the registry entry of the op a C++ call binds (zero_ ->
 * native_functions.yaml's zero_)? A list that shows the call leaves it out. */
static bool names_parent(const ot_trace *tr, const ot_step *s)
{
	const ot_step *up = s->parent >= 0 ? &tr->steps.items[s->parent] : NULL;
	size_t n;
	if (!up || !up->found || !s->found)
		return false;
	if (s->layer == OT_LAYER_YAML && up->layer != OT_LAYER_YAML) {
		/* the C++ API's names of op x: x, x_symint, x_out, x_outf */
		static const char *const suffixes[] = {"", "_symint", "_out", "_outf", "_symint_out", "_symint_outf"};
		const char *call = unqualified(up->symbol);
		n = strcspn(s->symbol, ".");
		for (size_t k = 0; k < OT_ARRAY_LEN(suffixes); k++)
			if (!strncmp(call, s->symbol, n) && !strcmp(call + n, suffixes[k]))
				return true;
		return false;
	}
	return up->layer == s->layer && !strcmp(unqualified(up->symbol), unqualified(s->symbol));
}

/* Is step s of the op's own overloads, and reached from one (a helper both
 * the op and a callee share, such as cpu_kernel, is the callee's under it)? */
static bool own_step(const ot_trace *tr, const ot_step *s)
{
	const ot_step *up = s->parent >= 0 && (size_t)s->parent < tr->steps.len ? &tr->steps.items[s->parent] : NULL;
	return ot_trace_own_op(tr, s->op) && (!up || ot_trace_own_op(tr, up->op));
}

/* Is step s the entry that stands for the op (tr->overload), or a step
 * at most `levels` above it? */
static bool leads_to_overload(const ot_trace *tr, const ot_step *s, int levels)
{
	long at = s - tr->steps.items;
	if (s->op && !strcmp(s->op, tr->overload))
		return true;
	for (size_t i = (size_t)at + 1; levels > 0 && i < tr->steps.len; i++)
		if (tr->steps.items[i].parent == at && leads_to_overload(tr, &tr->steps.items[i], levels - 1))
			return true;
	return false;
}

/* A library's set-up call (a handle, a stream, a descriptor, a
 * workspace, an initialisation), not the call that does the op's work. */
static bool setup_call(const char *symbol)
{
	/* and a library's queries and settings (cudnnGetRNNWeightParams,
	 * cudnnGetRNNTempSpaceSizes, cublasSetMathMode): host calls, no work */
	static const char *const words[] = {"SetStream", "Handle", "Workspace", "Descriptor", "SetMathMode",
					    "Create", "Destroy", "GetVersion", "getCurrent", "cudnnGet",
					    "cudnnSet", "cublasGet", "cublasSet", "cusolverDnGet",
					    "cusolverDnSet", "cufftGet", "cufftSet", "cusparseGet", "cusparseSet",
					    /* oneDNN's primitive descriptors (ideep::lstm_forward_training::prepare):
					       the primitive runs in ::compute */
					    "::prepare"};
	for (size_t i = 0; i < OT_ARRAY_LEN(words); i++)
		if (strstr(symbol, words[i]))
			return true;
	/* a library's initialisations and plans (cusparseLtInit,
	 * cusparseLtMatmulAlgSelectionInit, cusparseLtMatmulPlanInit,
	 * cufftMakePlanMany) and its attributes: host calls before the work */
	return ot_ends_with(symbol, "Init") || strstr(symbol, "Attribute") || strstr(symbol, "MakePlan");
}

/* What row_when says of a step every default call runs, and of one that
 * not every call runs, under no recorded condition. */
static const char EVERY_CALL[] = "every default call";
static const char SOME_CALLS[] = "some default calls";

/* The condition step s runs under on the device of `dev_bit` (0: as
 * the step has it for both). */
static const char *when_on(const ot_step *s, uint8_t dev_bit)
{
	return !dev_bit ? s->when : ot_step_when(s, dev_bit == OT_MAIN_CPU ? OT_DEV_CPU : OT_DEV_CUDA);
}

/* A split step's conditions as Markdown, after "Runs when": "`x` on the
 * CPU, `y` on CUDA", or "`x` on the CPU (on CUDA, under none)". */
static const char *split_when_md(ot_arena *a, const ot_step *s)
{
	const char *cpu = s->dev_when[OT_DEV_CPU], *cuda = s->dev_when[OT_DEV_CUDA];
	if (cpu && cuda)
		return ot_arena_printf(a, "%s on the CPU, %s on CUDA", md_code(a, cpu), md_code(a, cuda));
	return cpu ? ot_arena_printf(a, "%s on the CPU (on CUDA, under none)", md_code(a, cpu))
		   : ot_arena_printf(a, "%s on CUDA (on the CPU, under none)", md_code(a, cuda));
}

/* Does step s stand for its layer better than `first`: not a library's
 * set-up call where first is one; on one device's path, of that device
 * alone where first is shared, elsewhere of both devices where first is of
 * one; in a layer of
 * kernels, of the op's own overloads where first is of an op it calls;
 * else taken by every default call where first is conditional? */
static bool better_row(const ot_trace *tr, const ot_step *first, const ot_step *s, uint8_t dev)
{
	const uint8_t both = OT_MAIN_CPU | OT_MAIN_CUDA;
	/* the call that does a library's work before its set-up calls
	 * (cudnnSpatialTfSamplerForward, not cudnnSetStream) */
	if (setup_call(first->symbol) != setup_call(s->symbol))
		return !setup_call(s->symbol);
	/* on one device's path, its own steps before those it shares with
	 * the other (a helper both kernels call) */
	if (dev && (first->main == dev) != (s->main == dev))
		return s->main == dev;
	/* where the devices do not part (the backward), what both run before
	 * what only one does (grid_sampler_2d's derivative, not the CUDA-only
	 * cudnn_grid_sampler's) */
	if (!dev && (first->main == both) != (s->main == both))
		return s->main == both;
	if (ot_layer_does_work(s->layer)) {
		bool own_first = own_step(tr, first), own_s = own_step(tr, s);
		if (own_first != own_s)
			return own_s;
	}
	if ((s->layer == OT_LAYER_YAML || s->layer == OT_LAYER_BRIDGE) && tr->overload) {
		/* the entry that stands for the op, or the bridge to it
		 * (lstm.input and _VF.lstm, not the zeros its module makes
		 * first) */
		bool stands_first = leads_to_overload(tr, first, 2), stands_s = leads_to_overload(tr, s, 2);
		if (stands_first != stands_s)
			return stands_s;
	}
	return when_on(first, dev) && !when_on(s, dev);
}

/* Add step s to the rows of one stretch (`dev`: the device whose path it
 * is, 0 for the common part or the backward). */
static void add_row(const ot_trace *tr, struct layer_rows *r, const ot_step *s, uint8_t dev)
{
	/* the layer's first step a default call always takes there, else its
	 * first conditional one; in a layer of kernels, one of the op's own
	 * overloads first (the stub _spdiags calls, not that of where.self,
	 * which it also calls) */
	if (!r->count[s->layer]++) {
		r->first[s->layer] = s;
		r->nrows++;
	} else if (better_row(tr, r->first[s->layer], s, dev)) {
		r->first[s->layer] = s;
	}
}

/* The forward main path split where the devices part: what both run
 * before it, then each device's path (with the helpers both share, after
 * their own steps); and the derivatives that carry the gradient. */
static void main_rows(const ot_trace *tr, const ot_pathview *v, struct layer_rows rows[ROWS_COUNT])
{
	const uint8_t both = OT_MAIN_CPU | OT_MAIN_CUDA;
	/* before the fork: the steps both devices run, every default call or
	 * only some on both, whose callers both run too (a helper both kernels
	 * call is on each device's path, after it; _foreach_norm's CPU kernel,
	 * which CUDA runs only off its fast route, on each device's) */
	bool *prefix = ot_calloc(tr->steps.len + 1, sizeof(*prefix));
	memset(rows, 0, sizeof(struct layer_rows) * ROWS_COUNT);
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *s = &tr->steps.items[i];
		int p = s->parent;
		prefix[i] = v->part[i] == OT_PART_MAIN && s->main == both && (!s->sure || s->sure == both) &&
			    (p < 0 || ((size_t)p < i && prefix[p]));
		/* a predicate (a check, a run-time choice) does none of the work */
		if (!s->found || restates_parent(tr, s) || v->bookkeeping[i] || s->predicate)
			continue;
		if (v->part[i] == OT_PART_MAIN) {
			if (prefix[i]) {
				add_row(tr, &rows[ROWS_COMMON], s, 0);
				continue;
			}
			if (s->main & OT_MAIN_CPU)
				add_row(tr, &rows[ROWS_CPU], s, OT_MAIN_CPU);
			if (s->main & OT_MAIN_CUDA)
				add_row(tr, &rows[ROWS_CUDA], s, OT_MAIN_CUDA);
		} else if (v->part[i] == OT_PART_BACKWARD && ot_step_is_derivative(s)) {
			add_row(tr, &rows[ROWS_BACKWARD], s, 0);
		}
	}
	free(prefix);
}

static size_t row_rank(const ot_trace *tr, const ot_step *s, uint8_t dev)
{
	/* a step both devices share was first reached from the other's path,
	 * maybe: on this one it comes after this one's own steps, unless
	 * every call there runs it (then it is in this path's order) */
	return (size_t)(s - tr->steps.items) + (s->main == dev || (s->sure & dev) ? 0 : tr->steps.len);
}

/* The layers of one stretch in the order its steps are reached (a device's
 * path starts where it parts from the other's, at any layer). */
static size_t reached_order(const ot_trace *tr, const struct layer_rows *r, uint8_t dev, int order[OT_LAYER_COUNT])
{
	size_t n = 0;
	for (int layer = 0; layer < OT_LAYER_COUNT; layer++)
		if (r->first[layer])
			order[n++] = layer;
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && row_rank(tr, r->first[order[k]], dev) <
						     row_rank(tr, r->first[order[k - 1]], dev);
		     k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	return n;
}

/* Every layer in the order a page tells them: those both devices run in
 * the order they are reached (a structured kernel's meta function before
 * its impl), then the rest in the model's order. */
static void layer_sequence(const ot_trace *tr, const struct layer_rows *common, int order[OT_LAYER_COUNT])
{
	size_t n = reached_order(tr, common, OT_MAIN_CPU | OT_MAIN_CUDA, order);
	for (int layer = 0; layer < OT_LAYER_COUNT; layer++)
		if (!common->first[layer])
			order[n++] = layer;
}

/* Does derivatives.yaml entry dv give no input a gradient: every formula
 * `non_differentiable` (autograd records no node for the op)? */
static bool no_gradient(const ot_reg_deriv *dv)
{
	size_t n = 0;
	if (!dv || dv->ndispatch)
		return false;
	for (size_t k = 0; k < dv->nformulas; k++) {
		if (dv->formulas[k].forward)
			continue;
		if (strcmp(dv->formulas[k].formula, "non_differentiable"))
			return false;
		n++;
	}
	return n > 0;
}

/* The condition under which a main path's row, first step s, runs on the
 * device of dev_bit (0: on both): EVERY_CALL, the step's own, else the
 * innermost one of the steps above it (a step inherits its caller's), else
 * SOME_CALLS. An overview or summary row never reads as unconditional when
 * it is not. */
static const char *row_when(const ot_trace *tr, const ot_step *s, uint8_t dev_bit)
{
	const uint8_t devs = dev_bit ? dev_bit : (OT_MAIN_CPU | OT_MAIN_CUDA);
	const ot_step *at = s;
	if ((s->sure & devs) == devs)
		return EVERY_CALL;
	for (size_t up = 0; at && up < tr->steps.len; up++) {
		const char *w = when_on(at, dev_bit);
		if (w && *w)
			return w;
		if (at != s && (at->sure & devs) == devs)
			break; /* what keeps s from every call is not above here */
		at = at->parent >= 0 && (size_t)at->parent < tr->steps.len ? &tr->steps.items[at->parent] : NULL;
	}
	return SOME_CALLS;
}

static void overview_step(ot_buf *b, ot_arena *a, const ot_step *s, size_t count)
{
	ot_buf_printf(b, "%s  (%s:%u)%s", shown(a, s->symbol), shown(a, s->file), s->line,
		      count > 1 ? ot_arena_printf(a, "  +%zu more", count - 1) : "");
}

/* After a row below a path's first: the condition it runs under, at the
 * end of the row's line (a page stays as long as it was). */
static void overview_when(ot_buf *b, ot_arena *a, const char *cond)
{
	if (cond == SOME_CALLS)
		ot_buf_printf(b, "  · for %s", SOME_CALLS);
	else if (cond != EVERY_CALL)
		ot_buf_printf(b, "  · when %s", shown(a, cond));
}

/* A layer's label in the overview's first column; a layer below the
 * first is marked ▼, reached from the line above. */
static void overview_label(ot_buf *b, const char *label, bool below)
{
	ot_buf_printf(b, below ? "▼ %-8s " : "%-10s ", label);
}

/*
 * The ASCII overview: the layers both devices run, then a fork into the
 * CPU path and the CUDA path (each through its own layers), then the
 * derivatives that carry the gradient. Only main-path steps; the rest is
 * "Other paths".
 */
static const char *overview(const ot_trace *tr, const ot_pathview *v, const ot_registry *reg, ot_arena *a)
{
	static const char *const dev_names[] = {[ROWS_CPU] = "CPU", [ROWS_CUDA] = "CUDA"};
	struct layer_rows rows[ROWS_COUNT];
	ot_buf b = OT_BUF_INIT;
	bool first = true;
	int seq[OT_LAYER_COUNT];
	const char *r;

	main_rows(tr, v, rows);
	layer_sequence(tr, &rows[ROWS_COMMON], seq);
	for (int k = 0; k < OT_LAYER_COUNT; k++) {
		int layer = seq[k];
		const ot_step *s = rows[ROWS_COMMON].first[layer];
		if (!s)
			continue;
		overview_label(&b, short_names[layer], !first);
		first = false;
		overview_step(&b, a, s, rows[ROWS_COMMON].count[layer]);
		overview_when(&b, a, row_when(tr, s, 0));
		ot_buf_putc(&b, '\n');
	}
	if (rows[ROWS_CPU].nrows || rows[ROWS_CUDA].nrows || tr->raises[OT_DEV_CPU] || tr->raises[OT_DEV_CUDA]) {
		for (int d = ROWS_CPU; d <= ROWS_CUDA; d++) {
			const char *fork = d == ROWS_CPU ? "├── " : "└── ";
			const char *bar = d == ROWS_CPU ? "│" : " ";
			const uint32_t raises = tr->raises[d == ROWS_CPU ? OT_DEV_CPU : OT_DEV_CUDA];
			const uint8_t dev_bit = d == ROWS_CPU ? OT_MAIN_CPU : OT_MAIN_CUDA;
			ot_raise rs;
			bool head = true;
			if (!rows[d].nrows && !raises) {
				/* no step at all: the op has no kernel there (a CUDA-only op) */
				ot_buf_printf(&b,
					      rows[ROWS_COMMON].nrows
						      ? "          %s%s path: the steps above, nothing of its own\n"
						      : "          %s%s path: none, a default call runs no kernel there\n",
					      fork, dev_names[d]);
				continue;
			}
			int order[OT_LAYER_COUNT];
			const char *cond;
			size_t nl = reached_order(tr, &rows[d], dev_bit, order);
			for (size_t k = 0; k < nl; k++) {
				int layer = order[k];
				const ot_step *s = rows[d].first[layer];
				if (head)
					ot_buf_printf(&b, "          %s%s path: ", fork, dev_names[d]);
				else
					ot_buf_printf(&b, "          %s     %-9s ", bar, short_names[layer]);
				overview_step(&b, a, s, rows[d].count[layer]);
				/* a row under a condition says which: a default call
				 * may take another branch (grid_sampler's cuDNN one
				 * needs align_corners; adaptive_avg_pool3d_backward's
				 * atomic GPU kernel, non-divisible sizes); a path's
				 * first row, on a line of its own */
				cond = row_when(tr, s, dev_bit);
				if (head) {
					ot_buf_printf(&b, "  [%s]\n", short_names[layer]);
					if (cond != EVERY_CALL)
						ot_buf_printf(&b, "          %s     %-9s %s\n", bar, "when",
							      shown(a, cond));
				} else {
					overview_when(&b, a, cond);
					ot_buf_putc(&b, '\n');
				}
				head = false;
			}
			if (ot_trace_raise(tr, d == ROWS_CPU ? OT_DEV_CPU : OT_DEV_CUDA, &rs)) {
				/* where a default call there ends: a function that
				 * raises, or an entry without a kernel there */
				if (head)
					ot_buf_printf(&b, "          %s%s path: raises in ", fork, dev_names[d]);
				else
					ot_buf_printf(&b, "          %s     %-9s ", bar, "Raises");
				ot_buf_printf(&b, "%s  (%s:%u)\n", shown(a, rs.symbol), shown(a, rs.file), rs.line);
			}
		}
		first = false;
	}
	if (rows[ROWS_BACKWARD].nrows) {
		const ot_step *s = rows[ROWS_BACKWARD].first[OT_LAYER_BACKWARD];
		overview_label(&b, short_names[OT_LAYER_BACKWARD], !first);
		first = false;
		if (rows[ROWS_BACKWARD].count[OT_LAYER_BACKWARD] == 1 && ot_step_is_derivative(s) &&
		    ot_registry_find(reg, s->symbol) && no_gradient(ot_registry_find(reg, s->symbol)->deriv))
			/* an entry whose inputs are all non_differentiable: no
			 * backward runs */
			ot_buf_printf(&b, "%s  (%s:%u): every input non_differentiable, no backward runs",
				      shown(a, s->symbol), shown(a, s->file), s->line);
		else {
			overview_step(&b, a, s, rows[ROWS_BACKWARD].count[OT_LAYER_BACKWARD]);
			overview_when(&b, a, row_when(tr, s, 0));
		}
		ot_buf_putc(&b, '\n');
	}
	if (!b.size)
		ot_buf_puts(&b, "(no step on a main path)\n");
	while (b.size && b.ptr[b.size - 1] == '\n')
		b.size--;
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

static const char *device_label(uint8_t main)
{
	return main == (OT_MAIN_CPU | OT_MAIN_CUDA) ? "CPU, CUDA" : main & OT_MAIN_CPU ? "CPU" : "CUDA";
}

/* A library as a reader names it: the tracer's kernel kinds are
 * PyTorch's own kernels, not a library. */
static bool own_kernel(const char *lib)
{
	return !strcmp(lib, OT_GPU_CUSTOM_KERNEL) || !strcmp(lib, OT_GPU_TI_KERNEL);
}

/* The libraries of `v` (not PyTorch's own kernels), at most `max`. */
static const char *library_names(ot_arena *a, const ot_strvec *v, size_t max, bool in_table)
{
	ot_strvec libs = {0};
	const char *r;
	for (size_t i = 0; i < v->len; i++)
		if (!own_kernel(v->items[i]))
			ot_vec_push(&libs, v->items[i]);
	r = libs.len ? joined_codes_in(a, &libs, max, in_table) : NULL;
	ot_vec_free(&libs);
	return r;
}

/* The vendor libraries of `dev`'s forward main path: those every default
 * call reaches (`always`) and those only some arguments do (`sometimes`). */
static void main_libraries(const ot_trace *tr, uint8_t dev, ot_strvec *always, ot_strvec *sometimes)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < tr->nodes.len; i++) {
			const ot_node *nd = &tr->nodes.items[i];
			uint8_t fwd = nd->main & (uint8_t)~nd->back;
			ot_strvec *into = pass == 0 ? always : sometimes;
			bool sure = (nd->sure & dev) != 0;
			if ((nd->kind != OT_NODE_LIBCALL && nd->kind != OT_NODE_LAUNCH) || !nd->lib ||
			    own_kernel(nd->lib) || !(fwd & dev) || sure != (pass == 0))
				continue;
			if (ot_strvec_index(always, nd->lib) < 0 && ot_strvec_index(sometimes, nd->lib) < 0)
				ot_vec_push(into, nd->lib);
		}
}

/* "On CUDA every default call reaches cuDNN; some arguments reach CUB." */
static const char *library_note(ot_arena *a, const ot_trace *tr, uint8_t dev, const char *device)
{
	ot_strvec always = {0}, sometimes = {0};
	const char *r = NULL;
	main_libraries(tr, dev, &always, &sometimes);
	if (always.len && sometimes.len)
		r = ot_arena_printf(a, "On %s every default call reaches %s; some arguments also reach %s.",
				    device, joined_codes(a, &always, 6), joined_codes(a, &sometimes, 6));
	else if (always.len)
		r = ot_arena_printf(a, "On %s every default call reaches %s.", device, joined_codes(a, &always, 6));
	else if (sometimes.len)
		r = ot_arena_printf(a, "On %s the main path reaches %s only for some arguments (see its "
				       "conditions in Layer by layer).",
				    device, joined_codes(a, &sometimes, 6));
	ot_vec_free(&always);
	ot_vec_free(&sometimes);
	return r;
}

/* The first CUDA main-path step defined in a file only nvcc compiles
 * (.cu, .cuh), or NULL. */
static const ot_step *first_nvcc_main(const ot_trace *tr, const ot_pathview *v)
{
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *s = &tr->steps.items[i];
		if (v->part[i] == OT_PART_MAIN && (s->main & OT_MAIN_CUDA) && s->found && s->file &&
		    !v->bookkeeping[i] && ot_path_nvcc_only(s->file))
			return s; /* (an allocation is not the work) */
	}
	return NULL;
}

/* " but CPU, CUDA" naming the dense keys entry f has a kernel of its own
 * for beside its CompositeExplicitAutograd one (_foreach_floor_'s CUDA
 * fast path), or "". */
static const char *own_kernels(ot_arena *a, const ot_reg_func *f)
{
	const ot_reg_func *eff = f && f->delegate ? f->delegate : f;
	static const char *const keys[] = {"CPU", "CUDA"};
	const char *list = NULL;
	for (size_t k = 0; eff && k < OT_ARRAY_LEN(keys); k++)
		for (size_t i = 0; i < eff->ndispatch; i++)
			if (!strcmp(eff->dispatch[i].key, keys[k]))
				list = list ? ot_arena_printf(a, "%s, %s", list, keys[k]) : keys[k];
	return list ? ot_arena_printf(a, " but %s, which %s a kernel of its own", list,
				      strchr(list, ',') ? "have" : "has")
		    : "";
}

/* The first jiterator launch on the CUDA main path (jitted_gpu_kernel,
 * opmath_jitted_gpu_kernel_with_scalars), or NULL. */
static const ot_step *first_jitted(const ot_trace *tr, const ot_pathview *v)
{
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *s = &tr->steps.items[i];
		const char *name = s->symbol ? unqualified(s->symbol) : NULL;
		if (v->part[i] == OT_PART_MAIN && s->layer == OT_LAYER_CUDA && (s->main & OT_MAIN_CUDA) &&
		    s->found && name && strstr(name, "jitted_gpu_kernel"))
			return s;
	}
	return NULL;
}

/* The first found step of `layer` on `dev`'s forward main path: one every
 * call makes and not a set-up call, else a conditional one, else a set-up
 * call. */
static const ot_step *first_main(const ot_trace *tr, const ot_pathview *v, ot_layer layer, uint8_t dev)
{
	const ot_step *conditional = NULL, *setup = NULL;
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *s = &tr->steps.items[i];
		if (v->part[i] != OT_PART_MAIN || s->layer != layer || !(s->main & dev) || !s->found ||
		    v->bookkeeping[i])
			continue;
		if (setup_call(s->symbol)) {
			if (!setup)
				setup = s;
		} else if (!(s->sure & dev)) {
			if (!conditional)
				conditional = s;
		} else {
			return s;
		}
	}
	return conditional ? conditional : setup;
}

/* Does every default CUDA call run the function that makes step s? */
static bool caller_sure(const ot_trace *tr, const ot_step *s)
{
	return s->parent >= 0 && (tr->steps.items[s->parent].sure & OT_MAIN_CUDA);
}

/* Is step symbol `sym` (at::native::gpu_kernel) a TensorIterator launcher? */
static bool ti_launcher(const char *sym)
{
	return ot_callkind_is_ti_launcher(unqualified(sym));
}

/* The GPU calls (kernel launches, library calls) of the CUDA forward main
 * path as one note: those every default call makes, then those the
 * arguments or a run-time choice decide (alternatives, or extra calls: not
 * told apart, so never counted as launches that all happen); NULL when
 * there are none. A launch site and its __global__ kernel count once. */
static const char *launch_note(ot_arena *a, const ot_trace *tr, const ot_pathview *v)
{
	ot_strvec sure = {0}, maybe = {0}, maybe_when = {0}, others = {0};
	const char *r = NULL;
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *s = &tr->steps.items[i];
		long k;
		const char *w;
		/* a well-known op every call runs, not traced into (no view or
		 * allocation): what it launches is its own, not counted here */
		if (v->part[i] == OT_PART_MAIN && (s->sure & OT_MAIN_CUDA) && !v->bookkeeping[i] && s->note &&
		    ot_starts_with(s->note, OT_NOTE_CALLS_OP) && strstr(s->note, OT_NOTE_WELLKNOWN)) {
			const char *op = s->note + strlen(OT_NOTE_CALLS_OP);
			size_t n = strcspn(op, " ");
			const char *name = ot_arena_strndup(a, op, n);
			if (!ot_aten_is_bookkeeping_n(op, n) && ot_strvec_index(&others, name) < 0)
				ot_vec_push(&others, name);
		}
		if (v->part[i] != OT_PART_MAIN || s->layer != OT_LAYER_CUDA || !(s->main & OT_MAIN_CUDA) ||
		    !s->found || v->bookkeeping[i] || setup_call(s->symbol))
			continue;
		if (restates_parent(tr, s)) {
			/* the __global__ kernel under a launch counts with its
			 * launch, unless launches in the arms of one if, made by
			 * a function every call runs, reach it either way (its
			 * step lost the launch's condition) */
			const ot_step *launch = &tr->steps.items[s->parent];
			if (!when_on(s, OT_MAIN_CUDA) && when_on(launch, OT_MAIN_CUDA) && caller_sure(tr, launch) &&
			    ot_strvec_index(&sure, s->symbol) < 0)
				ot_vec_push(&sure, s->symbol);
			continue;
		}
		if (s->sure & OT_MAIN_CUDA) {
			if (ot_strvec_index(&sure, s->symbol) < 0)
				ot_vec_push(&sure, s->symbol);
		} else if ((k = ot_strvec_index(&maybe, s->symbol)) < 0) {
			ot_vec_push(&maybe, s->symbol);
			ot_vec_push(&maybe_when, caller_sure(tr, s) ? when_on(s, OT_MAIN_CUDA) : NULL);
		} else if (when_on(s, OT_MAIN_CUDA) && caller_sure(tr, s) && maybe_when.items[k] &&
			   (w = ot_when_either(a, maybe_when.items[k], when_on(s, OT_MAIN_CUDA))) && !*w &&
			   ot_strvec_index(&sure, s->symbol) < 0) {
			ot_vec_push(&sure, s->symbol); /* the same call in both arms of an if */
		}
	}
	/* what runs either way is not one of the choices */
	for (size_t k = 0; k < sure.len; k++) {
		long j = ot_strvec_index(&maybe, sure.items[k]);
		if (j >= 0) {
			memmove(maybe.items + j, maybe.items + j + 1, (maybe.len - (size_t)j - 1) * sizeof(*maybe.items));
			maybe.len--;
		}
	}
	ot_vec_free(&maybe_when);
	if (sure.len || maybe.len) {
		const char *own = others.len ? " of its own" : "";
		const char *every =
			sure.len == 1 ? ot_arena_printf(a, "Every default CUDA call makes one GPU call%s, %s", own,
							joined_codes(a, &sure, 4))
			: sure.len ? ot_arena_printf(a, "Every default CUDA call makes %zu GPU calls%s (%s), separate "
						     "launches that eager mode does not fuse",
						     sure.len, own, joined_codes(a, &sure, 4))
				   : NULL;
		if (every && others.len)
			every = ot_arena_printf(a, "%s, and the ops it calls launch theirs (%s)", every,
						joined_codes(a, &others, 4));
		const char *some =
			maybe.len ? ot_arena_printf(a, "%s the arguments or a run-time choice decide%s: %s",
						    every ? "; beyond it," : "On CUDA",
						    maybe.len == 1 ? "s whether it makes" : " which of these it makes",
						    joined_codes(a, &maybe, 4))
				  : NULL;
		/* what the TensorIterator launchers launch: the elementwise
		 * kernels of cuda/CUDALoops.cuh, reduce_kernel; the jitted and
		 * multiple-output ones are not told here */
		bool loops = false, reduce = false;
		for (size_t k = 0; k < sure.len + maybe.len; k++) {
			const char *l = k < sure.len ? sure.items[k] : maybe.items[k - sure.len];
			if (ti_launcher(l) && !strstr(l, "jitted") && !strstr(l, "multiple_outputs"))
				*(strstr(l, "reduce") ? &reduce : &loops) = true;
		}
		r = ot_arena_printf(
			a, "%s%s.%s%s%s", every ? every : "", some ? some : "",
			loops ? " The elementwise launcher (cuda/Loops.cuh) launches `vectorized_elementwise_kernel` for "
				"contiguous inputs of one dtype, else `unrolled_elementwise_kernel` or "
				"`elementwise_kernel` (cuda/CUDALoops.cuh)"
			      : "",
			reduce ? ot_arena_printf(a, "%s`gpu_reduce_kernel` launches `reduce_kernel` (cuda/Reduce.cuh)",
						 loops ? "; " : " ")
			       : "",
			loops || reduce ? ": once when every element offset fits in 32 bits, else once per piece "
					  "that does, and not at all for an empty tensor."
					: "");
	}
	ot_vec_free(&sure);
	ot_vec_free(&maybe);
	ot_vec_free(&others);
	return r;
}

/* The entry where a default call on a device (`bit`) stops for want of a
 * kernel, when nothing is on that device's main path: one the other
 * device's main path reaches, or the op's own (an MPS-only op). */
static const ot_node *idle_on(const ot_trace *tr, uint8_t bit)
{
	const ot_node *idle = NULL;
	for (size_t i = 0; i < tr->nodes.len; i++) {
		const ot_node *n = &tr->nodes.items[i];
		if (n->main & bit)
			return NULL;
		if (!idle && (n->idle & bit) && (n->main & (uint8_t)~bit))
			idle = n;
	}
	for (size_t r = 0; !idle && r < tr->main_roots && r < tr->roots.len; r++)
		if (tr->nodes.items[tr->roots.items[r]].idle & bit)
			idle = &tr->nodes.items[tr->roots.items[r]];
	return idle;
}

/* ", for some calls," when not every default CUDA call makes GPU step s
 * (its conditions are in Layer by layer). */
static const char *some_calls(const ot_step *s)
{
	return s->sure & OT_MAIN_CUDA ? "" : ", for some calls,";
}

/* The base names of the well-known ops `dev`'s forward main path reaches
 * and does not follow, in order, into *out (freed by the caller); their
 * count. */
static size_t wellknown_stops(ot_arena *a, const ot_trace *tr, uint8_t dev, ot_strvec *out)
{
	for (size_t i = 0; i < tr->nodes.len; i++) {
		const ot_node *n = &tr->nodes.items[i];
		const char *base;
		if (!n->wellknown_stop || !(n->main & dev & (uint8_t)~n->back) || !n->op)
			continue;
		base = ot_arena_strndup(a, n->op, strcspn(n->op, "."));
		if (!ot_aten_is_bookkeeping(base) && ot_strvec_index(out, base) < 0)
			ot_vec_push(out, base);
	}
	return out->len;
}

/* The ops of `v` (base names of tr->calls) as a reader needs them: each
 * with the device whose main path alone calls it, and "for some arguments"
 * where no default call there is sure to (trace's diagonal and sum run on
 * CUDA only; avg_pool2d_backward's copy_ only for a non-contiguous
 * gradient); the first `max`, then "and N more". */
static const char *calls_by_device(ot_arena *a, const ot_trace *tr, const ot_strvec *v, size_t max)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	for (size_t i = 0; i < v->len && i < max; i++) {
		uint8_t main = 0, sure = 0;
		size_t n = strlen(v->items[i]);
		for (size_t k = 0; k < tr->nodes.len; k++) {
			const ot_node *nd = &tr->nodes.items[k];
			uint8_t fwd = nd->main & (uint8_t)~nd->back;
			if (nd->kind != OT_NODE_ENTRY || !nd->depth || !fwd || !nd->op ||
			    strncmp(nd->op, v->items[i], n) || (nd->op[n] && nd->op[n] != '.'))
				continue;
			main |= fwd;
			sure |= nd->sure & fwd;
		}
		ot_buf_printf(&b, "%s%s", i ? ", " : "", md_code(a, v->items[i]));
		if (main && main != (OT_MAIN_CPU | OT_MAIN_CUDA))
			ot_buf_printf(&b, " (%s%s)", main & OT_MAIN_CPU ? "CPU" : "CUDA",
				      sure != main ? ", for some arguments" : "");
		else if (main && sure != main)
			ot_buf_puts(&b, " (for some arguments)");
	}
	if (v->len > max)
		ot_buf_printf(&b, " and %zu more", v->len - max);
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

/* Performance notes, each a fact of the main paths. */
static ot_value *perf_notes(const ot_pages *p, const ot_trace *tr, const ot_pathview *v, ot_arena *a)
{
	ot_value *list = ot_v_list(a);
	ot_buf b = OT_BUF_INIT;
	const ot_step *gpu = first_main(tr, v, OT_LAYER_CUDA, OT_MAIN_CUDA);
	const ot_step *jit = first_jitted(tr, v);
	const char *gpu_libs = library_note(a, tr, OT_MAIN_CUDA, "CUDA");
	const char *cpu_libs = library_note(a, tr, OT_MAIN_CPU, "CPU");
	const ot_reg_func *own = tr->overload ? ot_registry_find(p->reg, tr->overload) : NULL;
	ot_strvec work = {0}; /* the other ops on the main paths, allocations aside */
	ot_strvec stops = {0}; /* the well-known ops they reach and do not follow */
	const ot_node *idle;
	size_t ncalls;
	bool views_only;

	for (size_t i = 0; i < tr->calls.len; i++)
		if (!ot_aten_is_bookkeeping(tr->calls.items[i]))
			ot_vec_push(&work, tr->calls.items[i]);
	ncalls = work.len;
	/* an op without a kernel of its own whose main paths only make views
	 * or allocate: no kernel runs */
	views_only = tr->composite_implicit && !ncalls && tr->calls.len;

#define NOTE(...)                                                                        \
	do {                                                                             \
		ot_buf_clear(&b);                                                        \
		ot_buf_printf(&b, __VA_ARGS__);                                          \
		ot_v_push(a, list, ot_v_strn(a, b.ptr, b.size));                          \
	} while (0)

	for (int d = 0; d < OT_DEV_COUNT; d++) {
		/* a default call ends in an error: that is the fact to know */
		const uint32_t r = tr->raises[d];
		ot_raise rs;
		bool both = d == OT_DEV_CPU && r && r == tr->raises[OT_DEV_CUDA];
		if (!ot_trace_raise(tr, (ot_device)d, &rs) || (d == OT_DEV_CUDA && r == tr->raises[OT_DEV_CPU]))
			continue;
		NOTE("A default call with dense tensors raises on %s: %s at %s%s%s%s, so no kernel does "
		     "work there.",
		     both ? "CPU and CUDA" : d == OT_DEV_CPU ? "the CPU" : "CUDA", md_code(a, rs.symbol),
		     location(p, a, rs.file, rs.line), rs.statement || rs.why ? " (" : "",
		     rs.statement ? md_code(a, rs.statement) : rs.why ? md_text(a, rs.why) : "",
		     rs.statement || rs.why ? ")" : "");
	}
	if (tr->raises[OT_DEV_CUDA])
		; /* no GPU work to describe */
	else if ((idle = idle_on(tr, OT_MAIN_CUDA)))
		NOTE("No CUDA kernel: the dispatch table of %s at %s has none for a dense CUDA tensor, "
		     "so a CUDA call fails at dispatch.",
		     md_code(a, idle->symbol), location(p, a, idle->file, idle->line));
	else if (gpu_libs && gpu)
		NOTE("%s Its first GPU step%s is %s at %s.", gpu_libs, some_calls(gpu), md_code(a, gpu->symbol),
		     location(p, a, gpu->file, gpu->line));
	else if (gpu_libs)
		NOTE("%s", gpu_libs);
	else if (gpu)
		NOTE("On CUDA the work is PyTorch's own kernels (%s on the main path), the first%s %s at %s.",
		     jit ? "no vendor library but NVRTC" : "no vendor library", some_calls(gpu),
		     md_code(a, gpu->symbol), location(p, a, gpu->file, gpu->line));
	else if ((gpu = first_nvcc_main(tr, v)))
		NOTE("On CUDA the work starts in %s at %s, in a file nvcc compiles; the kernels it "
		     "launches were not followed.",
		     md_code(a, gpu->symbol), location(p, a, gpu->file, gpu->line));
	else if (views_only)
		NOTE("No kernel runs on either device: its main paths only make views or allocate (%s).",
		     joined_codes(a, &tr->calls, 8));
	else if (wellknown_stops(a, tr, OT_MAIN_CUDA, &stops))
		NOTE("No GPU kernel launch or library call was found on the CUDA main path within the "
		     "followed depth; it reaches well-known ops whose kernels this trace does not "
		     "follow: %s.",
		     joined_codes(a, &stops, 8));
	else
		NOTE("No GPU kernel launch or library call was found on the CUDA main path within the "
		     "followed depth.");
	if (!tr->raises[OT_DEV_CUDA] && jit)
		NOTE("The CUDA kernel is jitted (%s at %s; AT_USE_JITERATOR() holds in a release build): "
		     "its source is generated at run time and NVRTC compiles it on the first call for each "
		     "dtype and device, then the CUDA driver launches it, so the first call pays for the "
		     "compilation.",
		     md_code(a, jit->symbol), location(p, a, jit->file, jit->line));
	{
		const char *launches = launch_note(a, tr, v);
		if (launches)
			NOTE("%s", launches);
	}
	if (!tr->raises[OT_DEV_CPU] && (idle = idle_on(tr, OT_MAIN_CPU)))
		NOTE("No CPU kernel: the dispatch table of %s at %s has none for a dense CPU tensor, "
		     "so a CPU call fails at dispatch.",
		     md_code(a, idle->symbol), location(p, a, idle->file, idle->line));
	if (cpu_libs)
		NOTE("%s", cpu_libs);
	if (tr->raises[OT_DEV_CPU] && tr->raises[OT_DEV_CUDA])
		; /* it runs nothing else on either device */
	else if (tr->composite_explicit)
		NOTE("CompositeExplicitAutograd: one C++ function serves every backend%s; the device "
		     "work is in the ops it calls%s%s.",
		     own_kernels(a, own), ncalls ? ": " : "", ncalls ? calls_by_device(a, tr, &work, 8) : "");
	else if (tr->composite_implicit)
		NOTE("CompositeImplicitAutograd: no kernel of its own; it runs as the ops it calls "
		     "(%s), each dispatched on its own unless a compiler fuses them.",
		     ncalls ? calls_by_device(a, tr, &work, 8) : views_only ? "views and allocations only" : "none found");
	else if (ncalls)
		NOTE("On its main paths it also calls %zu other op%s (%s), each dispatched on its own.",
		     ncalls, ncalls == 1 ? "" : "s", calls_by_device(a, tr, &work, 8));
	if (tr->structured)
		NOTE("Structured kernel: a meta function checks shapes and dtypes and %s; the impl only "
		     "computes%s.",
		     own && own->schema.inplace ? "takes self as the output (it allocates no output tensor)"
		     : own && own->schema.is_out ? "checks the out= tensor, resizing it where it must"
						 : "allocates the output once",
		     tr->tensor_iterator ? ", through the TensorIterator the meta function builds "
					   "(`structured_inherits: TensorIteratorBase`)"
					 : "");
	if (tr->ufunc)
		NOTE("The elementwise formula is a ufunc (native/ufunc/): code generation builds the "
		     "CPU and CUDA kernels from one scalar/vector definition.");
	{
		size_t shown_sel = 0;
		for (size_t i = 0; i < tr->selection.len; i++) {
			const ot_selection *s = &tr->selection.items[i];
			bool seen = false;
			for (size_t k = 0; k < i && !seen; k++)
				seen = !strcmp(tr->selection.items[k].symbol, s->symbol);
			if (seen)
				continue;
			if (shown_sel++ < 6)
				NOTE("Chosen at run time on %s: %s at %s picks the implementation.",
				     device_label(s->main), md_code(a, s->symbol), location(p, a, s->file, s->line));
		}
		if (shown_sel > 6)
			NOTE("%zu more run-time selections are listed in trace.json.", shown_sel - 6);
	}
	if (own && own->schema.is_out)
		NOTE("An out= overload: it writes into the tensor passed as `out` (resized when its "
		     "shape differs); autograd does not differentiate it.");
	else if (own && own->schema.inplace)
		NOTE("In place: the result is written into `self`'s storage.");
#undef NOTE
	ot_vec_free(&work);
	ot_vec_free(&stops);
	ot_buf_free(&b);
	return list;
}

/* The formulas of a derivatives.yaml entry, one line each. */
static ot_value *formula_lines(ot_arena *a, const ot_reg_deriv *dv)
{
	ot_value *fl = ot_v_list(a);
	for (size_t k = 0; dv && k < dv->nformulas; k++)
		ot_v_push(a, fl, ot_v_strf(a, "%s%s: %s", md_code(a, dv->formulas[k].inputs),
					  dv->formulas[k].forward ? " (forward mode)" : "",
					  md_code(a, dv->formulas[k].formula)));
	for (size_t d = 0; dv && d < dv->ndispatch; d++)
		for (size_t k = 0; k < dv->dispatch[d].nformulas; k++)
			ot_v_push(a, fl, ot_v_strf(a, "%s, %s%s: %s", md_code(a, dv->dispatch[d].key),
						  md_code(a, dv->dispatch[d].formulas[k].inputs),
						  dv->dispatch[d].formulas[k].forward ? " (forward mode)" : "",
						  md_code(a, dv->dispatch[d].formulas[k].formula)));
	if (dv && dv->output_differentiability)
		ot_v_push(a, fl, ot_v_strf(a, "output_differentiability: %s",
					  md_code(a, dv->output_differentiability)));
	return fl;
}

/*
 * One-line steps grouped: the steps of one function under one condition
 * and tag (a backend, a layer) are one line listing their places (a stub's
 * call, declaration, definition and registrations; a launch and its
 * kernel), in the order first seen.
 */
struct step_line {
	const char *when, *tag, *symbol; /* raw texts */
	ot_buf places;                   /* Markdown: "loc, loc" */
};
typedef OT_VEC(struct step_line) step_lines;

static bool same_text(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

static void step_lines_add(const ot_pages *p, ot_arena *a, step_lines *v, const char *when, const char *tag,
			   const ot_step *s)
{
	struct step_line l = {when, tag, s->symbol, OT_BUF_INIT};
	for (size_t i = 0; i < v->len; i++) {
		struct step_line *o = &v->items[i];
		if (same_text(o->when, when) && same_text(o->tag, tag) && !strcmp(o->symbol, s->symbol)) {
			ot_buf_printf(&o->places, ", %s", location(p, a, s->file, s->line));
			return;
		}
	}
	ot_buf_puts(&l.places, location(p, a, s->file, s->line));
	ot_vec_push(v, l);
}

/* The first `max` lines into `list` as {when, tag_key: tag, symbol,
 * location}; frees `v`; returns how many lines there were. */
static size_t step_lines_emit(ot_arena *a, step_lines *v, size_t max, const char *tag_key, ot_value *list)
{
	size_t n = v->len;
	for (size_t i = 0; i < v->len; i++) {
		struct step_line *l = &v->items[i];
		if (i < max) {
			ot_value *m = ot_v_map(a);
			if (l->when)
				ot_v_set(a, m, "when", ot_v_str_borrow(a, md_code(a, l->when)));
			if (l->tag)
				ot_v_set_str(a, m, tag_key, l->tag);
			ot_v_set(a, m, "symbol", ot_v_str_borrow(a, md_code(a, l->symbol)));
			ot_v_set(a, m, "location", ot_v_str_borrow(a, ot_arena_strndup(a, l->places.ptr, l->places.size)));
			ot_v_push(a, list, m);
		}
		ot_buf_free(&l->places);
	}
	ot_vec_free(v);
	return n;
}

/* The bookkeeping calls of a layer as one line: "`at::empty` (loc, loc),
 * `view` (loc) when `cond`"; frees `v`. */
static const char *allocation_line(ot_arena *a, step_lines *v)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	for (size_t i = 0; i < v->len; i++) {
		struct step_line *l = &v->items[i];
		ot_buf_printf(&b, "%s%s (%.*s)%s%s%s%s", i ? ", " : "", md_code(a, l->symbol), (int)l->places.size,
			      l->places.ptr, l->when ? " when " : "", l->when ? md_code(a, l->when) : "",
			      l->tag ? " on " : "", l->tag ? l->tag : "");
		ot_buf_free(&l->places);
	}
	ot_vec_free(v);
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

#define BACKWARD_RUNS_MAX 3 /* per device, and for both */

/*
 * The Backward section: each derivatives.yaml entry that carries the
 * gradient on a main path (its formulas, then the backward ops and kernels
 * they run, per device), and the op's own entry when it has no formula
 * (why: composite, not differentiable, out=).
 */
#define BACKWARD_FULL_CONDITIONAL 3
#define BACKWARD_LINES_MAX 8

/*
 * An entry that carries the gradient only under a condition (its forward op
 * runs for some arguments) is one line of `conditional` (condition · entry
 * · file:line) when the default call has entries of its own; with none, the
 * first BACKWARD_FULL_CONDITIONAL are shown in full.
 */
static ot_value *backward_data(const ot_pages *p, const ot_trace *tr, const ot_pathview *v,
			       ot_arena *a, ot_value *conditional, size_t *nconditional)
{
	ot_value *list = ot_v_list(a);
	bool any_derivative = false, any_sure = false;
	size_t full_conditional = 0;
	step_lines sl = {0};
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *s = &tr->steps.items[i];
		bool d = v->part[i] == OT_PART_BACKWARD && ot_step_is_derivative(s);
		any_derivative |= d;
		any_sure |= d && s->sure;
	}
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *s = &tr->steps.items[i];
		ot_value *m;
		if (v->part[i] != OT_PART_BACKWARD || s->layer != OT_LAYER_BACKWARD)
			continue;
		if (ot_step_is_derivative(s) && s->found && !s->sure &&
		    (any_sure || full_conditional++ >= BACKWARD_FULL_CONDITIONAL)) {
			step_lines_add(p, a, &sl, s->when, NULL, s);
			continue;
		}
		if (!ot_step_is_derivative(s)) {
			/* a note about an entry of the op with no formula: when
			 * formulas carry the gradient, only the composite's "the
			 * ops it is built from" that leads to them */
			if (s->depth || (any_derivative && !(ot_starts_with(s->note, "no derivatives.yaml entry") &&
							     strstr(s->note, "CompositeImplicitAutograd"))))
				continue;
		}
		m = ot_v_map(a);
		ot_v_set_bool(a, m, "found", s->found);
		if (!s->found) {
			ot_v_set(a, m, "text", ot_v_str_borrow(a, md_text(a, s->note)));
			ot_v_push(a, list, m);
			continue;
		}
		ot_v_set(a, m, "location", ot_v_str_borrow(a, location(p, a, s->file, s->line)));
		ot_v_set(a, m, "symbol", ot_v_str_borrow(a, md_code(a, s->symbol)));
		if (ot_step_is_derivative(s)) {
			const ot_reg_func *f = ot_registry_find(p->reg, s->symbol);
			ot_value *runs = ot_v_list(a);
			ot_value *fl = formula_lines(a, f ? f->deriv : NULL);
			/* an entry with no formula: derivatives.yaml's way to say no
			 * argument is differentiable (its header: "Do not specify any
			 * formula for this argument") */
			ot_v_set(a, m, "text",
				 ot_v_str_borrow(a, md_text(a, !ot_v_len(fl) ? "No formula for any input: not differentiable with respect to any argument."
							       : f && no_gradient(f->deriv)
								       ? "Every input is non_differentiable: autograd records no node for this op."
							       : *s->op && strcmp(s->op, s->symbol)
								       ? ot_arena_printf(a, "Formulas used by %s:", s->op)
								       : "Formulas per input (grad is the incoming gradient, result the saved output):")));
			ot_v_set(a, m, "formulas", fl);
			ot_v_set_bool(a, m, "has_formulas", ot_v_len(fl) > 0);
			/* what both devices run (the backward op's entry), then
			 * each device's own functions, a few of each; the
			 * entries it delegates to and the meta functions aside */
			step_lines run_lines[3] = {{0}};
			size_t nruns = 0, shown_runs = 0;
			for (size_t k = i + 1; k < tr->steps.len; k++) {
				const ot_step *r = &tr->steps.items[k];
				const ot_step *up = r->parent >= 0 ? &tr->steps.items[r->parent] : NULL;
				int set;
				if (v->part[k] != OT_PART_BACKWARD || v->derivative[k] != (int)i ||
				    r->layer == OT_LAYER_BACKWARD || !r->found || names_parent(tr, r) ||
				    v->bookkeeping[k] || r->layer == OT_LAYER_META ||
				    (r->layer == OT_LAYER_YAML && up && up->layer == OT_LAYER_YAML))
					continue;
				set = r->main == (OT_MAIN_CPU | OT_MAIN_CUDA) ? 0 : r->main & OT_MAIN_CPU ? 1 : 2;
				step_lines_add(p, a, &run_lines[set], r->when,
					       ot_arena_printf(a, "%s · %s", device_label(r->main), short_names[r->layer]), r);
			}
			for (int set = 0; set < 3; set++) {
				size_t n = step_lines_emit(a, &run_lines[set], BACKWARD_RUNS_MAX, "where", runs);
				nruns += n;
				shown_runs += n < BACKWARD_RUNS_MAX ? n : BACKWARD_RUNS_MAX;
			}
			ot_v_set(a, m, "runs", runs);
			ot_v_set_bool(a, m, "has_runs", nruns > 0);
			if (nruns > shown_runs)
				ot_v_set_int(a, m, "more_runs", (long long)(nruns - shown_runs));
		} else {
			ot_v_set(a, m, "text", ot_v_str_borrow(a, md_text(a, s->note)));
		}
		ot_v_push(a, list, m);
	}
	*nconditional = step_lines_emit(a, &sl, BACKWARD_LINES_MAX, "tag", conditional);
	return list;
}

#define OTHER_LINES_MAX 2

/*
 * "Other paths": every found step off the main paths, grouped by the
 * condition it runs under, one line each (condition · function ·
 * file:line), the first OTHER_LINES_MAX of a group.
 */
static ot_value *other_paths(const ot_pages *p, const ot_trace *tr, const ot_pathview *v, ot_arena *a)
{
	ot_value *groups = ot_v_list(a);
	for (int g = 0; g < OT_OTHER_COUNT; g++) {
		ot_value *lines = ot_v_list(a), *gm;
		step_lines sl = {0};
		size_t n;
		for (size_t i = 0; i < tr->steps.len; i++) {
			const ot_step *s = &tr->steps.items[i];
			if (v->part[i] != OT_PART_OTHER || v->group[i] != g || !s->found ||
			    names_parent(tr, s) || v->bookkeeping[i])
				continue;
			step_lines_add(p, a, &sl, s->when, short_names[s->layer], s);
		}
		n = step_lines_emit(a, &sl, OTHER_LINES_MAX, "layer", lines);
		if (!n)
			continue;
		gm = ot_v_map(a);
		ot_v_set_str(a, gm, "title", ot_other_group_title((ot_other_group)g));
		ot_v_set(a, gm, "lines", lines);
		if (n > OTHER_LINES_MAX)
			ot_v_set_int(a, gm, "more", (long long)(n - OTHER_LINES_MAX));
		ot_v_push(a, groups, gm);
	}
	return groups;
}

/*
 * The diagram: the main paths (forward and the backward that carries the
 * gradient), one node per step, edges from the step that led to each; a
 * step's side paths folded into one dotted "+N more" node below it. At
 * most DIAGRAM_MAX_NODES main steps: a page's column holds no more.
 */
#define DIAGRAM_MAX_NODES 40

static int diagram(const ot_pages *p, const ot_trace *tr, ot_arena *a, ot_buf *dot, ot_buf *svg)
{
	size_t n = tr->steps.len;
	ot_graph_node *nodes = ot_calloc(2 * n + 1, sizeof(*nodes));
	ot_graph_edge *edges = ot_calloc(2 * n + 1, sizeof(*edges));
	int *id_of = ot_calloc(n + 1, sizeof(int));
	size_t *folded = ot_calloc(n + 1, sizeof(size_t)), nn = 0, ne = 0;
	ot_pathview v;
	ot_graph g = {0};
	int rc;

	ot_pathview_build(&v, tr);
	for (size_t i = 0; i < n && nn < DIAGRAM_MAX_NODES; i++) {
		const ot_step *s = &tr->steps.items[i];
		if ((v.part[i] != OT_PART_MAIN && v.part[i] != OT_PART_BACKWARD) || v.bookkeeping[i])
			continue;
		if (s->parent >= 0 && !id_of[s->parent])
			continue; /* below a step left out */
		id_of[i] = (int)nn + 1;
		nodes[nn].id = ot_arena_printf(a, "s%zu", i);
		if (s->found) {
			nodes[nn].label = ot_arena_printf(a, "%s\n%s\n%s:%u", ot_layer_name(s->layer), s->symbol,
							  ot_graph_path_label(s->file), s->line);
			nodes[nn].url = source_url(p, a, s->file, s->line);
		} else {
			nodes[nn].label = ot_arena_printf(a, "%s\nnot found:\n%s", ot_layer_name(s->layer),
							  s->symbol);
			nodes[nn].missing = true;
		}
		nodes[nn].group = ot_layer_name(s->layer);
		nodes[nn].main = true;
		nn++;
	}
	/* side steps under a drawn step, counted there */
	for (size_t i = 0; i < n; i++) {
		int up = tr->steps.items[i].parent;
		if (v.part[i] != OT_PART_OTHER || !tr->steps.items[i].found || v.bookkeeping[i])
			continue;
		while (up >= 0 && !id_of[up])
			up = tr->steps.items[up].parent;
		if (up >= 0)
			folded[up]++;
	}
	for (size_t i = 0; i < n; i++) {
		const ot_step *s = &tr->steps.items[i];
		if (!id_of[i])
			continue;
		if (s->parent >= 0 && id_of[s->parent]) {
			edges[ne].from = nodes[id_of[s->parent] - 1].id;
			edges[ne].to = nodes[id_of[i] - 1].id;
			edges[ne].dashed = s->layer == OT_LAYER_BACKWARD || !s->found;
			edges[ne].kind = OT_GRAPH_MAIN;
			ne++;
		}
		if (folded[i]) {
			nodes[nn].id = ot_arena_printf(a, "f%zu", i);
			nodes[nn].label = "other paths";
			nodes[nn].folded = folded[i];
			edges[ne].from = nodes[id_of[i] - 1].id;
			edges[ne].to = nodes[nn].id;
			edges[ne].dashed = true;
			ne++;
			nn++;
		}
	}
	g.title = tr->target.canonical;
	g.nodes = nodes;
	g.nnodes = nn;
	g.edges = edges;
	g.nedges = ne;
	rc = ot_graph_render(dot, svg, &g);
	ot_pathview_free(&v);
	free(nodes);
	free(edges);
	free(id_of);
	free(folded);
	return rc;
}

static const char *description(const ot_pages *p, const ot_trace *tr, ot_arena *a)
{
	switch (tr->status) {
	case OT_STATUS_WELLKNOWN:
		return ot_arena_printf(a, "%s in PyTorch %s, from optrace's well-known ops reference.",
				       tr->target.canonical, p->rel.version);
	case OT_STATUS_TRACED:
		return ot_arena_printf(a,
				       "How %s is implemented in PyTorch %s: Python API, dispatch, "
				       "C++ and GPU kernels, backward, with source references.",
				       tr->target.canonical, p->rel.version);
	case OT_STATUS_NOTFOUND:
		return ot_arena_printf(a, "%s was not found in PyTorch %s.", tr->input, p->rel.version);
	default:
		return ot_arena_printf(a, "%s could not be traced.", tr->input);
	}
}

static const char *suggestion_list(ot_arena *a, const ot_strvec *v)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	for (size_t i = 0; i < v->len; i++)
		ot_buf_printf(&b, "%s%s", i ? (i + 1 == v->len ? " or " : ", ") : "",
			      md_code(a, v->items[i]));
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

static ot_value *messages(ot_arena *a, const ot_trace *tr)
{
	ot_value *l = ot_v_list(a);
	for (size_t i = 0; i < tr->messages.len; i++)
		ot_v_push(a, l, ot_v_str_borrow(a, tr->messages.items[i]));
	return l;
}

/* ---- tests and benchmarks (testdb.h) ----------------------------------------------------- */

static const char *entry_name(ot_arena *a, const ot_tf_entry *e)
{
	return *e->variant ? ot_arena_printf(a, "%s (%s)", e->name, e->variant) : e->name;
}

/* What an OpInfo entry checks (a table cell): its aten op, and the backward
 * op it names for its gradient tests. */
static const char *opinfo_checks(ot_arena *a, const ot_tf_entry *e)
{
	if (!e->aten_backward_name)
		return md_cell(a, e->aten_name);
	return ot_arena_printf(a, "%s; backward %s", md_cell(a, e->aten_name), md_cell(a, e->aten_backward_name));
}

/* `code` at [`path:line`](url), or `code` at `path:line` without links: the
 * link text names its place, the code what that line holds. */
static const char *code_at(const ot_pages *p, ot_arena *a, const char *code, const char *path, uint32_t line)
{
	return ot_arena_printf(a, "%s at %s", md_code(a, code), location(p, a, path, line));
}

/* The tests of `file` among `t`, by class: "TestCommon: `test_a` at [...] · `test_b` at [...]". */
static const char *template_links(const ot_pages *p, ot_arena *a, const ot_tf_template *const *t,
				  size_t n, const char *file)
{
	ot_buf b = OT_BUF_INIT;
	const char *r, *cls = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *c = t[i]->cls ? t[i]->cls : "";
		if (strcmp(t[i]->file, file))
			continue;
		if (!cls || strcmp(cls, c)) {
			ot_buf_printf(&b, "%s%s", b.size ? "; " : "", *c ? ot_arena_printf(a, "%s: ", md_text(a, c)) : "");
			cls = c;
		} else {
			ot_buf_puts(&b, " · ");
		}
		if (t[i]->func)
			ot_buf_puts(&b, code_at(p, a, t[i]->func, t[i]->file, t[i]->func_line));
		else
			ot_buf_puts(&b, code_at(p, a, ot_arena_printf(a, "@%s", t[i]->decorator), t[i]->file, t[i]->line));
	}
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

static size_t count_in(const ot_tf_template *const *t, size_t n, const char *file)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += !strcmp(t[i]->file, file);
	return k;
}

static void add_test_file(ot_arena *a, ot_value *files, ot_map *seen, const char *file)
{
	if (ot_map_get(seen, file))
		return;
	ot_map_put(seen, file, (void *)1);
	ot_v_push(a, files, ot_v_str_borrow(a, file));
}

/* The files named by the op's runs and mentions, in path order. */
static ot_value *test_files(ot_arena *a, const ot_testfacts *tf)
{
	ot_value *l = ot_v_list(a);
	ot_map *seen = ot_map_new();
	OT_VEC(const char *) v = {0};
	for (size_t i = 0; i < tf->nruns; i++)
		ot_vec_push(&v, tf->runs[i]->file);
	for (size_t i = 0; i < tf->nruns_filtered; i++)
		ot_vec_push(&v, tf->runs_filtered[i]->file);
	for (size_t i = 0; i < tf->nmentions; i++)
		ot_vec_push(&v, tf->mentions[i].file);
	if (v.len > 1)
		qsort(v.items, v.len, sizeof(*v.items), ot_strptr_cmp);
	for (size_t i = 0; i < v.len; i++)
		add_test_file(a, l, seen, v.items[i]);
	ot_vec_free(&v);
	ot_map_free(seen);
	return l;
}

/*
 * One file of a test folder, compactly: its name, how many tests run an
 * entry and how many more go over a filtered list, and where it names the
 * op: "`test_ops.py` 23 (+13 filtered), names it at [...]". The tests
 * themselves are in trace.json.
 */
static const char *test_file_line(const ot_pages *p, const ot_testfacts *tf, ot_arena *a, const char *file)
{
	size_t nall = count_in(tf->runs, tf->nruns, file), nsome = count_in(tf->runs_filtered, tf->nruns_filtered, file);
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	ot_buf b = OT_BUF_INIT;
	const char *r;
	ot_buf_puts(&b, md_code(a, base));
	if (nall)
		ot_buf_printf(&b, " %zu", nall);
	if (nsome)
		ot_buf_printf(&b, nall ? " (+%zu filtered)" : " %zu filtered", nsome);
	for (size_t k = 0, n = 0; k < tf->nmentions; k++) {
		const ot_tf_mention *x = &tf->mentions[k];
		if (strcmp(x->file, file))
			continue;
		ot_buf_printf(&b, "%s%s", n++ ? ", " : ", names it at ", location(p, a, x->file, x->line));
	}
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

/* Does a test of `file` run an entry itself (not only over a filtered
 * list), or does the file name one? */
static bool runs_directly(const ot_testfacts *tf, const char *file)
{
	if (count_in(tf->runs, tf->nruns, file))
		return true;
	for (size_t k = 0; k < tf->nmentions; k++)
		if (!strcmp(tf->mentions[k].file, file))
			return true;
	return false;
}

/* The test files grouped by folder, one line each: {dir, files}; the
 * folders whose files only go over filtered lists share one last line,
 * each file with its path. */
static ot_value *test_dirs(const ot_pages *p, const ot_testfacts *tf, ot_arena *a, ot_value *names)
{
	ot_value *dirs = ot_v_list(a);
	ot_buf b = OT_BUF_INIT, filtered = OT_BUF_INIT;
	const char *dir = NULL;
	size_t dlen = 0, first = 0;
	bool direct = false;
	for (size_t i = 0; i <= ot_v_len(names); i++) {
		const char *file = i < ot_v_len(names) ? ot_v_cstr(ot_v_at(names, i)) : NULL;
		const char *slash = file ? strrchr(file, '/') : NULL;
		size_t len = slash ? (size_t)(slash - file) + 1 : 0;
		if (dir && (!file || len != dlen || strncmp(file, dir, len))) {
			if (direct) {
				ot_value *m = ot_v_map(a);
				ot_v_set(a, m, "dir",
					 ot_v_str_borrow(a, md_code(a, dlen ? ot_arena_strndup(a, dir, dlen) : "./")));
				ot_v_set(a, m, "files", ot_v_str_borrow(a, ot_arena_strndup(a, b.ptr, b.size)));
				ot_v_push(a, dirs, m);
			} else {
				for (size_t k = first; k < i; k++) {
					const char *f = ot_v_cstr(ot_v_at(names, k));
					const char *line = test_file_line(p, tf, a, f);
					/* the file's line names it by base name: here by path */
					ot_buf_printf(&filtered, "%s%s%s", filtered.size ? " · " : "", md_code(a, f),
						      line + strlen(md_code(a, strrchr(f, '/') ? strrchr(f, '/') + 1 : f)));
				}
			}
			ot_buf_clear(&b);
			dir = NULL;
		}
		if (!file)
			break;
		if (!dir) {
			dir = file;
			dlen = len;
			first = i;
			direct = false;
		}
		direct = direct || runs_directly(tf, file);
		ot_buf_printf(&b, "%s%s", b.size ? " · " : "", test_file_line(p, tf, a, file));
	}
	if (filtered.size) {
		ot_value *m = ot_v_map(a);
		ot_v_set_str(a, m, "dir", "only over filtered lists");
		ot_v_set(a, m, "files", ot_v_str_borrow(a, ot_arena_strndup(a, filtered.ptr, filtered.size)));
		ot_v_push(a, dirs, m);
	}
	ot_buf_free(&b);
	ot_buf_free(&filtered);
	return dirs;
}

/* Is file:line a decomposition step of `tr` (Layer by layer shows it)? */
static bool traced_decomposition(const ot_trace *tr, const char *file, uint32_t line)
{
	for (size_t i = 0; i < tr->steps.len; i++) {
		const ot_step *s = &tr->steps.items[i];
		if (s->layer == OT_LAYER_DECOMPOSITION && s->found && s->line == line && !strcmp(s->file, file))
			return true;
	}
	return false;
}

static ot_value *tests_data(const ot_pages *p, const ot_trace *tr, const ot_testfacts *tf, ot_arena *a)
{
	ot_value *t = ot_v_map(a), *entries = ot_v_list(a), *refs = ot_v_list(a), *skips = ot_v_list(a);
	ot_value *decomps = ot_v_list(a), *files = ot_v_list(a), *benches = ot_v_list(a), *names;
	ot_value *skip_lines = ot_v_list(a);

	for (size_t i = 0; i < tf->nentries; i++) {
		const ot_tf_entry *e = tf->entries[i];
		ot_value *m = ot_v_map(a);
		ot_v_set(a, m, "name", ot_v_str_borrow(a, md_code(a, entry_name(a, e))));
		ot_v_set(a, m, "cls", ot_v_str_borrow(a, md_code(a, e->cls)));
		/* a reference's aten_name is its own name: no aten op */
		ot_v_set(a, m, "aten_name", ot_v_str_borrow(a, e->aten_name && e->kind == OT_TF_OPINFO ? md_code(a, e->aten_name) : ""));
		ot_v_set(a, m, "list", ot_v_str_borrow(a, e->list ? md_code(a, e->list) : ""));
		ot_v_set(a, m, "location", ot_v_str_borrow(a, location(p, a, e->file, e->line)));
		/* what it checks: an OpInfo the aten op, a reference its Python
		 * implementation (a table cell) */
		ot_v_set(a, m, "checks", ot_v_str_borrow(a,
			e->kind == OT_TF_REFERENCE
				? e->impl_symbol ? ot_arena_printf(a, "%s (%s)", location_in(p, a, e->impl_file, e->impl_line, true),
								   md_cell(a, e->impl_symbol))
						 : ot_arena_printf(a, "**not found: %s in %s**",
								   md_cell(a, strrchr(e->name, '.') ? strrchr(e->name, '.') + 1 : e->name),
								   md_cell(a, e->impl_file))
			: e->aten_name && e->kind == OT_TF_OPINFO ? opinfo_checks(a, e) : ""));
		ot_v_push(a, entries, m);
		if (e->kind == OT_TF_REFERENCE) {
			ot_value *r = ot_v_map(a);
			ot_v_set(a, r, "name", ot_v_str_borrow(a, md_code(a, e->name)));
			ot_v_set(a, r, "impl", ot_v_str_borrow(a, e->impl_symbol
				? ot_arena_printf(a, "%s (%s)", md_code(a, e->impl_symbol), location(p, a, e->impl_file, e->impl_line))
				: ot_arena_printf(a, "**not found: %s in %s**", md_code(a, strrchr(e->name, '.') ? strrchr(e->name, '.') + 1 : e->name),
						  md_code(a, e->impl_file))));
			ot_v_push(a, refs, r);
		}
		if (e->ndecors) {
			/* each decoration as data (skips), and the entry's on one
			 * line (skip_lines), each linked to its line */
			ot_value *g = ot_v_map(a);
			ot_buf b = OT_BUF_INIT;
			for (size_t k = 0; k < e->ndecors; k++) {
				const ot_tf_decor *d = &e->decors[k];
				ot_value *s = ot_v_map(a);
				const char *what = d->cls && d->test ? ot_arena_printf(a, "%s.%s", d->cls, d->test)
						   : d->cls ? d->cls : d->test ? d->test : "every test";
				const char *loc = location(p, a, e->file, d->line);
				ot_v_set(a, s, "entry", ot_v_str_borrow(a, md_code(a, entry_name(a, e))));
				ot_v_set(a, s, "decorator", ot_v_str_borrow(a, md_code(a, d->decorator)));
				ot_v_set(a, s, "test", ot_v_str_borrow(a, md_code(a, what)));
				if (d->device)
					ot_v_set(a, s, "device", ot_v_str_borrow(a, md_code(a, d->device)));
				ot_v_set(a, s, "location", ot_v_str_borrow(a, loc));
				ot_v_push(a, skips, s);
				ot_buf_printf(&b, "%s%s for %s", k ? " · " : "", md_code(a, d->decorator), md_code(a, what));
				if (d->device)
					ot_buf_printf(&b, " on %s", md_code(a, d->device));
				ot_buf_printf(&b, " (%s)", loc);
			}
			ot_v_set(a, g, "entry", ot_v_str_borrow(a, md_code(a, entry_name(a, e))));
			ot_v_set(a, g, "decorations", ot_v_str_borrow(a, ot_arena_strndup(a, b.ptr, b.size)));
			ot_v_push(a, skip_lines, g);
			ot_buf_free(&b);
		}
	}
	for (size_t i = 0; i < tf->ndecomps; i++) {
		const ot_tf_decomp *d = &tf->decomps[i];
		ot_value *m;
		if (traced_decomposition(tr, d->file, d->line))
			continue; /* told once, in Layer by layer */
		m = ot_v_map(a);
		ot_v_set(a, m, "location", ot_v_str_borrow(a, location(p, a, d->file, d->line)));
		ot_v_set(a, m, "symbol", ot_v_str_borrow(a, md_code(a, ot_arena_printf(a, "aten.%s", d->op))));
		if (d->func)
			ot_v_set(a, m, "func", ot_v_str_borrow(a, md_code(a, d->func)));
		ot_v_push(a, decomps, m);
	}
	names = test_files(a, tf);
	for (size_t i = 0; i < ot_v_len(names); i++) {
		const char *file = ot_v_cstr(ot_v_at(names, i));
		ot_value *m = ot_v_map(a);
		size_t nall = count_in(tf->runs, tf->nruns, file), nsome = count_in(tf->runs_filtered, tf->nruns_filtered, file);
		ot_buf men = OT_BUF_INIT;
		ot_v_set(a, m, "file", ot_v_str_borrow(a, md_code(a, file)));
		ot_v_set(a, m, "summary", ot_v_str_borrow(a,
			nall && nsome ? ot_arena_printf(a, "%zu test%s run an entry, %zu more over a filtered list that holds one (they may skip it)",
							nall, nall > 1 ? "s" : "", nsome)
			: nall ? ot_arena_printf(a, "%zu test%s run%s an entry", nall, nall > 1 ? "s" : "", nall > 1 ? "" : "s")
			: nsome ? ot_arena_printf(a, "%zu test%s over a filtered list that holds an entry (%s may skip it)",
						  nsome, nsome > 1 ? "s" : "", nsome > 1 ? "they" : "it")
			: "no test runs an entry"));
		if (nall)
			ot_v_set(a, m, "runs", ot_v_str_borrow(a, template_links(p, a, tf->runs, tf->nruns, file)));
		if (nsome) {
			ot_v_set_int(a, m, "nfiltered", (long long)nsome);
			ot_v_set(a, m, "filtered", ot_v_str_borrow(a, template_links(p, a, tf->runs_filtered, tf->nruns_filtered, file)));
		}
		for (size_t k = 0; k < tf->nmentions; k++) {
			const ot_tf_mention *x = &tf->mentions[k];
			const char *label;
			if (strcmp(x->file, file))
				continue;
			label = *x->variant ? ot_arena_printf(a, "%s (%s)", x->name, x->variant) : x->name;
			ot_buf_printf(&men, "%s%s names %s", men.size ? " · " : "", code_at(p, a, x->kind, x->file, x->line),
				      md_code(a, label));
			if (x->cls && x->test)
				ot_buf_printf(&men, " in %s", md_code(a, ot_arena_printf(a, "%s.%s", x->cls, x->test)));
		}
		if (men.size)
			ot_v_set(a, m, "mentions", ot_v_str_borrow(a, ot_arena_strndup(a, men.ptr, men.size)));
		ot_buf_free(&men);
		ot_v_push(a, files, m);
	}
	for (size_t i = 0; i < tf->nbenches; i++) {
		const ot_tf_bench *x = &tf->benches[i];
		ot_value *m = ot_v_map(a);
		const char *last = strrchr(x->api, '.') ? strrchr(x->api, '.') + 1 : x->api;
		const char *what = !strcmp(x->where, "op_list") ? ot_arena_printf(a, "%s: listed in op_bench.op_list as %s", md_code(a, last), md_code(a, x->api))
				   : !strcmp(x->where, "init") ? ot_arena_printf(a, "%s: %s builds %s", md_code(a, last), md_code(a, x->cls ? x->cls : ""), md_code(a, x->api))
				   : ot_arena_printf(a, "%s: %s calls %s", md_code(a, last), md_code(a, ot_arena_printf(a, "%s.forward", x->cls ? x->cls : "")), md_code(a, x->api));
		ot_v_set(a, m, "location", ot_v_str_borrow(a, location(p, a, x->file, x->line)));
		ot_v_set(a, m, "what", ot_v_str_borrow(a, what));
		ot_v_push(a, benches, m);
	}
	ot_v_set(a, t, "entries", entries);
	ot_v_set_bool(a, t, "has_entries", ot_v_len(entries) > 0);
	ot_v_set(a, t, "references", refs);
	ot_v_set_bool(a, t, "has_references", ot_v_len(refs) > 0);
	ot_v_set(a, t, "skips", skips);
	ot_v_set(a, t, "skip_lines", skip_lines);
	ot_v_set_int(a, t, "nskips", (long long)ot_v_len(skips));
	ot_v_set_bool(a, t, "has_skips", ot_v_len(skips) > 0);
	ot_v_set(a, t, "decomps", decomps);
	ot_v_set_bool(a, t, "has_decomps", ot_v_len(decomps) > 0);
	ot_v_set(a, t, "files", files);
	ot_v_set(a, t, "test_dirs", test_dirs(p, tf, a, names));
	ot_v_set_bool(a, t, "has_files", ot_v_len(files) > 0);
	ot_v_set(a, t, "benches", benches);
	ot_v_set_bool(a, t, "has_benches", ot_v_len(benches) > 0);
	return t;
}

/* Conditional main-path steps listed per layer, one line each. */
#define LAYER_LINES_MAX 4

static ot_value *page_context(const ot_pages *p, size_t idx, ot_arena *a, const char *diagram_file)
{
	const ot_trace *tr = p->traces[idx];
	ot_value *ctx = ot_v_map(a);

	ot_v_set(a, ctx, "front_title", ot_v_str_borrow(a, yaml_string(a, tr->target.canonical[0] ? tr->target.canonical : tr->input)));
	ot_v_set(a, ctx, "front_description", ot_v_str_borrow(a, yaml_string(a, description(p, tr, a))));
	ot_v_set_str(a, ctx, "name", tr->target.canonical[0] ? tr->target.canonical : tr->input);
	add_release(p, a, ctx);
	ot_v_set(a, ctx, "messages", messages(a, tr));
	ot_v_set_bool(a, ctx, "has_messages", tr->messages.len > 0);
	if (tr->tests && tr->status != OT_STATUS_NOTFOUND && tr->status != OT_STATUS_ERROR)
		ot_v_set(a, ctx, "tests", tests_data(p, tr, tr->tests, a));

	if (tr->status == OT_STATUS_NOTFOUND) {
		ot_value *nf = ot_v_map(a);
		ot_v_set_bool(a, nf, "has_suggestions", tr->suggestions.len > 0);
		ot_v_set(a, nf, "suggestions", ot_v_str_borrow(a, suggestion_list(a, &tr->suggestions)));
		ot_v_set(a, ctx, "notfound", nf);
		return ctx;
	}
	if (tr->status == OT_STATUS_ERROR) {
		ot_v_set_str(a, ctx, "error", tr->messages.len ? tr->messages.items[0] : "unknown error");
		return ctx;
	}
	if (tr->status == OT_STATUS_WELLKNOWN) {
		ot_v_set(a, ctx, "wellknown", (ot_value *)tr->wellknown.data);
		for (size_t i = 0; i < tr->steps.len; i++) {
			const ot_step *s = &tr->steps.items[i];
			if (s->layer == OT_LAYER_YAML && s->found) {
				ot_value *y = ot_v_map(a);
				ot_v_set(a, y, "location", ot_v_str_borrow(a, location(p, a, s->file, s->line)));
				ot_v_set(a, y, "symbol", ot_v_str_borrow(a, md_code(a, s->symbol)));
				ot_v_set(a, ctx, "yaml_entry", y);
				break;
			}
		}
		return ctx;
	}

	{
		ot_value *t = ot_v_map(a), *layers = ot_v_list(a), *summary = ot_v_list(a);
		ot_value *reaches = ot_v_list(a), *reached_by = ot_v_list(a), *same = ot_v_list(a);
		struct layer_rows rows[ROWS_COUNT];
		ot_pathview v;
		/* per step: the paragraph that tells it (the step's index, or
		 * its parent's for a restating step; -1 for none), and per
		 * paragraph its map and what it tells besides its own step */
		int *teller = ot_arena_alloc(a, (tr->steps.len + 1) * sizeof(*teller));
		ot_value **para = ot_arena_alloc(a, (tr->steps.len + 1) * sizeof(*para));
		const char **also = ot_arena_alloc(a, (tr->steps.len + 1) * sizeof(*also));
		memset(para, 0, (tr->steps.len + 1) * sizeof(*para));
		memset(also, 0, (tr->steps.len + 1) * sizeof(*also));
		for (size_t i = 0; i <= tr->steps.len; i++)
			teller[i] = -1;
		int seq[OT_LAYER_COUNT];
		ot_pathview_build(&v, tr);
		main_rows(tr, &v, rows);
		layer_sequence(tr, &rows[ROWS_COMMON], seq);
		ot_v_set(a, ctx, "traced", t);
		ot_v_set(a, t, "overview", ot_v_str_borrow(a, overview(tr, &v, p->reg, a)));
		if (diagram_file)
			ot_v_set_str(a, t, "diagram", diagram_file);
		/* Layer by layer: the main paths' forward steps (the backward and
		 * the other paths have their own sections) */
		for (int k = 0; k < OT_LAYER_COUNT; k++) {
			const int layer = seq[k];
			ot_value *steps = ot_v_list(a), *cond = ot_v_list(a), *lm;
			step_lines sl = {0}, sure_lines = {0}, allocs = {0}; /* allocs: the bookkeeping calls */
			size_t ncond, nsure, nalloc;
			uint8_t quoted = 0; /* the main paths whose function is quoted */
			if (layer == OT_LAYER_BACKWARD)
				continue;
			for (size_t i = 0; i < tr->steps.len; i++) {
				const ot_step *s = &tr->steps.items[i];
				ot_value *sm;
				if ((int)s->layer != layer ||
				    (v.part[i] != OT_PART_MAIN && v.part[i] != OT_PART_DECOMPOSITION))
					continue;
				if (v.bookkeeping[i]) {
					/* allocations and views: one line for the
					 * layer, the calls only (not what they run) */
					if (v.bookkeeping[i] == OT_BOOKKEEPING_CALL && s->split_when) {
						for (int d = 0; d < OT_DEV_COUNT; d++)
							if (s->main & OT_MAIN_BIT(d))
								step_lines_add(p, a, &allocs,
									       s->sure & OT_MAIN_BIT(d) ? NULL : s->dev_when[d],
									       device_label(OT_MAIN_BIT(d)), s);
					} else if (v.bookkeeping[i] == OT_BOOKKEEPING_CALL) {
						step_lines_add(p, a, &allocs,
							       (s->sure & s->main) != s->main ? s->when : NULL, NULL, s);
					}
					continue;
				}
				if (s->found && (restates_parent(tr, s) || (names_parent(tr, s) && s->layer != OT_LAYER_YAML)) &&
				    teller[s->parent] >= 0) {
					/* a stub's declaration, definition and
					 * registrations, the definition a qualified
					 * call reaches: told in the call's paragraph */
					int t = teller[i] = teller[s->parent];
					const char *more = ot_arena_printf(a, "%s at %s", md_text(a, s->note),
									   location(p, a, s->file, s->line));
					also[t] = also[t] ? ot_arena_printf(a, "%s; %s", also[t], more) : more;
					ot_v_set(a, para[t], "also", ot_v_str_borrow(a, also[t]));
					continue;
				}
				if (s->found && v.part[i] == OT_PART_MAIN &&
				    ((!s->sure && (s->when || s->depth || restates_parent(tr, s))) ||
				     (s->depth && s->layer == OT_LAYER_YAML))) {
					/* on a main path under a condition, a detail
					 * below the op's own steps, or the registry
					 * entry of an op it calls: one line */
					for (int d = 0; d < OT_DEV_COUNT && s->split_when; d++)
						if (s->main & OT_MAIN_BIT(d))
							step_lines_add(p, a, s->sure ? &sure_lines : &sl, s->dev_when[d],
								       device_label(OT_MAIN_BIT(d)), s);
					if (!s->split_when)
						step_lines_add(p, a, s->sure ? &sure_lines : &sl, s->when,
							       device_label(s->main), s);
					continue;
				}
				sm = ot_v_map(a);
				ot_v_set_bool(a, sm, "found", s->found);
				if (s->found) {
					const char *text, *fence, *one_line;
					ot_v_set(a, sm, "location", ot_v_str_borrow(a, location(p, a, s->file, s->line)));
					ot_v_set(a, sm, "symbol", ot_v_str_borrow(a, md_code(a, s->symbol)));
					ot_v_set(a, sm, "note", ot_v_str_borrow(a, md_text(a, s->note)));
					if (v.part[i] == OT_PART_MAIN)
						ot_v_set_str(a, sm, "backend", device_label(s->main));
					if (s->split_when)
						ot_v_set(a, sm, "when", ot_v_str_borrow(a, split_when_md(a, s)));
					else if (s->when)
						ot_v_set(a, sm, "when", ot_v_str_borrow(a, md_code(a, s->when)));
					if (s->depth && *s->op)
						ot_v_set(a, sm, "via", ot_v_str_borrow(a, md_code(a, ot_arena_printf(a, "aten::%s", s->op))));
					text = one_line = NULL;
					/* a registry entry's note already gives its schema and
					 * dispatch: no excerpt repeats them; the layer's first
					 * function on each path is quoted, the rest by their
					 * first line */
					if (!s->depth && s->layer != OT_LAYER_YAML) {
						/* an assignment: its line says all (the binding it names) */
						excerpt(p, a, s, !(quoted & s->main) && !python_assignment(p, s), &text, &fence,
							&one_line);
						if (text)
							quoted |= s->main;
					}
					if (one_line)
						ot_v_set(a, sm, "inline_excerpt", ot_v_str_borrow(a, md_code(a, one_line)));
					if (text) {
						ot_v_set(a, sm, "excerpt", ot_v_str_borrow(a, text));
						ot_v_set(a, sm, "fence", ot_v_str_borrow(a, fence));
						ot_v_set_str(a, sm, "lang", fence_lang(s->file));
					}
					para[i] = sm;
					teller[i] = (int)i;
				} else {
					ot_v_set(a, sm, "note", ot_v_str_borrow(a, md_text(a, s->note)));
				}
				ot_v_push(a, steps, sm);
			}
			/* the one-line steps every default call takes are all
			 * listed; the conditional ones, the first few */
			nsure = step_lines_emit(a, &sure_lines, SIZE_MAX, "backend", cond);
			ncond = step_lines_emit(a, &sl, LAYER_LINES_MAX, "backend", cond);
			nalloc = allocs.len;
			if (!ot_v_len(steps) && !ncond && !nsure && !nalloc)
				continue;
			lm = ot_v_map(a);
			if (nalloc)
				ot_v_set(a, lm, "allocations", ot_v_str_borrow(a, allocation_line(a, &allocs)));
			else
				ot_vec_free(&allocs);
			ot_v_set_str(a, lm, "title", layer_titles[layer]);
			ot_v_set(a, lm, "steps", steps);
			ot_v_set(a, lm, "conditional", cond);
			ot_v_set_bool(a, lm, "has_conditional", ncond + nsure > 0);
			if (ncond > LAYER_LINES_MAX)
				ot_v_set_int(a, lm, "more", (long long)(ncond - LAYER_LINES_MAX));
			ot_v_push(a, layers, lm);
		}
		/* Summary: per layer the main path's first step, per device
		 * where the devices part */
		for (int k = 0; k < OT_LAYER_COUNT; k++) {
			static const char *const suffix[ROWS_COUNT] = {"", " (CPU)", " (CUDA)", ""};
			static const uint8_t row_device[ROWS_COUNT] = {0, OT_MAIN_CPU, OT_MAIN_CUDA, 0};
			const int layer = seq[k];
			for (int set = ROWS_COMMON; set < ROWS_COUNT; set++) {
				const ot_step *key = rows[set].first[layer];
				ot_value *row;
				const char *cell, *cond;
				if (!key)
					continue;
				row = ot_v_map(a);
				cell = md_cell(a, key->symbol);
				if (key->depth && *key->op) /* a branch's fact, not the op's own */
					cell = ot_arena_printf(a, "%s via %s", cell,
							       md_cell(a, ot_arena_printf(a, "aten::%s", key->op)));
				if (rows[set].count[layer] > 1)
					cell = ot_arena_printf(a, "%s (+%zu more)", cell, rows[set].count[layer] - 1);
				cond = row_when(tr, key, row_device[set]);
				if (cond == SOME_CALLS)
					cell = ot_arena_printf(a, "%s, for %s", cell, SOME_CALLS);
				else if (cond != EVERY_CALL)
					cell = ot_arena_printf(a, "%s, when %s", cell, md_cell(a, cond));
				ot_v_set(a, row, "layer", ot_v_str_borrow(a, ot_arena_printf(a, "%s%s", ot_layer_name((ot_layer)layer), suffix[set])));
				ot_v_set(a, row, "file", ot_v_str_borrow(a, location_in(p, a, key->file, key->line, true)));
				ot_v_set(a, row, "key", ot_v_str_borrow(a, cell));
				ot_v_push(a, summary, row);
			}
		}
		{
			ot_value *others = other_paths(p, tr, &v, a);
			ot_v_set(a, t, "others", others);
			ot_v_set_bool(a, t, "has_others", ot_v_len(others) > 0);
		}
		{
			ot_value *bcond = ot_v_list(a);
			size_t nbcond = 0;
			ot_v_set(a, t, "backward", backward_data(p, tr, &v, a, bcond, &nbcond));
			ot_v_set(a, t, "backward_conditional", bcond);
			ot_v_set_bool(a, t, "has_backward_conditional", nbcond > 0);
			if (nbcond > BACKWARD_LINES_MAX)
				ot_v_set_int(a, t, "backward_conditional_more", (long long)(nbcond - BACKWARD_LINES_MAX));
		}
		ot_v_set(a, t, "perf", perf_notes(p, tr, &v, a));
		ot_pathview_free(&v);
		ot_v_set(a, t, "layers", layers);
		ot_v_set(a, t, "summary", summary);
		
		for (size_t k = 0; k < p->reaches[idx].len; k++)
			ot_v_push(a, reaches, ot_v_str_borrow(a, op_link(p, a, p->reaches[idx].items[k], "")));
		for (size_t k = 0; k < p->reached_by[idx].len; k++)
			ot_v_push(a, reached_by, ot_v_str_borrow(a, op_link(p, a, p->reached_by[idx].items[k], "")));
		for (size_t k = 0; k < p->same_op[idx].len; k++)
			ot_v_push(a, same, ot_v_str_borrow(a, op_link(p, a, p->same_op[idx].items[k], "")));
		ot_v_set(a, t, "reaches", reaches);
		ot_v_set(a, t, "reached_by", reached_by);
		ot_v_set(a, t, "same_op", same);
		ot_v_set(a, t, "reaches_line", ot_v_str_borrow(a, joined_values(a, reaches)));
		ot_v_set(a, t, "reached_by_line", ot_v_str_borrow(a, joined_values(a, reached_by)));
		ot_v_set(a, t, "same_op_line", ot_v_str_borrow(a, joined_values(a, same)));
		ot_v_set_bool(a, t, "has_related",
			      ot_v_len(reaches) || ot_v_len(reached_by) || ot_v_len(same));
	}
	return ctx;
}

static int render(ot_pages *p, int which, const ot_value *ctx, ot_buf *out, bool markdown)
{
	ot_mustache_opts opts = {0};
	opts.partial = load_partial;
	opts.payload = p;
	opts.escape = markdown ? ot_esc_md_text : NULL;
	ot_buf_clear(out);
	if (ot_mustache_render_compiled(out, p->tmpl[which], ctx, &opts) < 0)
		return OT_ERROR;
	ot_utf8_sanitize(out);
	return 0;
}

int ot_pages_render_diagram(ot_pages *p, size_t i, ot_buf *dot, ot_buf *svg)
{
	const ot_trace *tr = p->traces[i];
	ot_arena *a;
	int rc;
	if (tr->status != OT_STATUS_TRACED || !tr->steps.len)
		return 0;
	a = ot_arena_new();
	rc = diagram(p, tr, a, dot, svg);
	ot_arena_free(a);
	return rc < 0 ? rc : 1;
}

int ot_pages_render_op(ot_pages *p, size_t i, bool has_diagram, ot_buf *md)
{
	const ot_trace *tr = p->traces[i];
	ot_arena *a = ot_arena_new();
	const char *svgname = has_diagram ? ot_arena_printf(a, "%s.svg", tr->target.slug) : NULL;
	int rc = render(p, T_PAGE, page_context(p, i, a, svgname), md, true);
	ot_arena_free(a);
	return rc;
}

/* ---- the index ---------------------------------------------------------------------- */

/* The index's Backends cell: CPU and CUDA first, then the other dispatch
 * keys (not the CPU capability variants of a stub, "CPU AVX2"). */
static const char *index_backends(ot_arena *a, const ot_trace *tr)
{
	ot_strvec keys = {0};
	const char *r;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < tr->backends.len; i++) {
			const char *k = tr->backends.items[i];
			bool device = !strcmp(k, "CPU") || !strcmp(k, "CUDA");
			if (pass == 0 ? device : !device && !ot_starts_with(k, "CPU "))
				ot_vec_push(&keys, k);
		}
	r = keys.len ? joined_codes_in(a, &keys, 4, true) : "";
	ot_vec_free(&keys);
	return r;
}

/* The index's GPU library cell: the vendor libraries of the CUDA main
 * path, else "PyTorch kernels" when its own kernels do the work. */
static const char *index_gpu(ot_arena *a, const ot_trace *tr)
{
	const char *libs = library_names(a, &tr->gpu_libs, 4, true);
	return libs ? libs : tr->gpu_libs.len ? "PyTorch kernels" : "";
}

static const char *const group_titles[OT_STRAT_COUNT] = {"Modules (torch.nn)", "Functional (torch.nn.functional)",
							  "Tensor methods", "torch namespace",
							  "aten ops"};

const char *ot_pages_group_title(int g)
{
	return g >= 0 && g < OT_STRAT_COUNT ? group_titles[g] : NULL;
}

int ot_pages_group_of(const ot_pages *p, size_t i)
{
	const ot_trace *tr = p->traces[i];
	if (tr->status == OT_STATUS_ERROR && !tr->target.canonical[0])
		return -1;
	return (int)tr->target.strategy;
}

int ot_pages_render_index(ot_pages *p, ot_buf *md)
{
	ot_arena *a = ot_arena_new();
	ot_value *ctx = ot_v_map(a), *groups = ot_v_list(a), *nf = ot_v_list(a);
	size_t counts[4] = {0};
	int rc;

	ot_v_set(a, ctx, "front_title", ot_v_str_borrow(a, yaml_string(a, ot_arena_printf(a, "PyTorch %s operators", p->rel.version))));
	ot_v_set(a, ctx, "front_description",
		 ot_v_str_borrow(a, yaml_string(a, ot_arena_printf(a, "How %zu PyTorch %s operators are implemented, traced through the source by optrace.", p->n, p->rel.version))));
	add_release(p, a, ctx);
	for (int s = 0; s < OT_STRAT_COUNT; s++) {
		ot_value *g = ot_v_map(a), *rows = ot_v_list(a);
		for (size_t i = 0; i < p->n; i++) {
			const ot_trace *tr = p->traces[i];
			ot_value *row;
			if (ot_pages_group_of(p, i) != s)
				continue;
			row = ot_v_map(a);
			ot_v_set(a, row, "link", ot_v_str_borrow(a, op_link(p, a, i, "ops/")));
			ot_v_set_str(a, row, "status", ot_status_name(tr->status));
			ot_v_set(a, row, "backends", ot_v_str_borrow(a, index_backends(a, tr)));
			ot_v_set(a, row, "gpu", ot_v_str_borrow(a, index_gpu(a, tr)));
			ot_v_set_int(a, row, "missing", (long long)ot_trace_missing(tr));
			ot_v_push(a, rows, row);
		}
		if (!ot_v_len(rows))
			continue;
		ot_v_set_str(a, g, "title", group_titles[s]);
		ot_v_set(a, g, "rows", rows);
		ot_v_push(a, groups, g);
	}
	for (size_t i = 0; i < p->n; i++) {
		const ot_trace *tr = p->traces[i];
		counts[tr->status]++;
		if (tr->status == OT_STATUS_NOTFOUND || tr->status == OT_STATUS_ERROR) {
			ot_value *m = ot_v_map(a);
			ot_v_set_str(a, m, "input", tr->input);
			if (p->lines && p->lines[i])
				ot_v_set_int(a, m, "line", p->lines[i]);
			ot_v_set_bool(a, m, "has_suggestions", tr->suggestions.len > 0);
			ot_v_set(a, m, "suggestions", ot_v_str_borrow(a, suggestion_list(a, &tr->suggestions)));
			ot_v_push(a, nf, m);
		}
	}
	ot_v_set(a, ctx, "groups", groups);
	ot_v_set(a, ctx, "notfound", nf);
	ot_v_set_bool(a, ctx, "has_notfound", ot_v_len(nf) > 0);
	ot_v_set_int(a, ctx, "count_total", (long long)p->n);
	ot_v_set_int(a, ctx, "count_traced", (long long)counts[OT_STATUS_TRACED]);
	ot_v_set_int(a, ctx, "count_wellknown", (long long)counts[OT_STATUS_WELLKNOWN]);
	ot_v_set_int(a, ctx, "count_notfound", (long long)counts[OT_STATUS_NOTFOUND]);
	if (counts[OT_STATUS_ERROR])
		ot_v_set_int(a, ctx, "count_error", (long long)counts[OT_STATUS_ERROR]);
	rc = render(p, T_INDEX, ctx, md, true);
	ot_arena_free(a);
	return rc;
}

/* ---- the Kernels page ----------------------------------------------------------------------- */

int ot_pages_render_kernels(ot_pages *p, ot_buf *md)
{
	ot_arena *a = ot_arena_new();
	ot_value *ctx = ot_v_map(a), *rows = ot_v_list(a);
	ot_which *w = ot_which_new(p->traces, p->n, p->ix, p->reg);
	const ot_which_match *fns;
	size_t n = ot_which_main_functions(w, a, &fns);
	int rc;

	ot_v_set(a, ctx, "front_title", ot_v_str_borrow(a, yaml_string(a, ot_arena_printf(a, "PyTorch %s kernels on the main path", p->rel.version))));
	ot_v_set(a, ctx, "front_description",
		 ot_v_str_borrow(a, yaml_string(a, ot_arena_printf(a, "The C++/CUDA functions on the main path of %zu PyTorch %s operators, and the ops that reach each.", p->n, p->rel.version))));
	add_release(p, a, ctx);
	for (size_t i = 0; i < n; i++) {
		const ot_which_match *m = &fns[i];
		ot_value *row = ot_v_map(a);
		ot_buf ops = OT_BUF_INIT;
		unsigned devices = 0;
		for (size_t k = 0; k < m->nops; k++) {
			const ot_trace *tr = p->traces[m->ops[k].op];
			for (size_t s = 0; s < m->ops[k].nsteps; s++)
				devices |= tr->steps.items[m->ops[k].steps[s]].main;
			ot_buf_printf(&ops, "%s%s", k ? ", " : "", op_link(p, a, m->ops[k].op, "ops/"));
		}
		ot_v_set(a, row, "name", ot_v_str_borrow(a, md_code(a, m->symbol)));
		ot_v_set(a, row, "scope", ot_v_str_borrow(a, m->scope && *m->scope ? md_code(a, m->scope) : ""));
		ot_v_set(a, row, "location", ot_v_str_borrow(a, location(p, a, m->file, m->line)));
		ot_v_set(a, row, "kind", ot_v_str_borrow(a, m->detail ? md_code(a, m->detail) : ""));
		ot_v_set_str(a, row, "devices", devices == (OT_MAIN_CPU | OT_MAIN_CUDA) ? "CPU, CUDA" : devices & OT_MAIN_CPU ? "CPU" : "CUDA");
		ot_v_set(a, row, "ops", ot_v_str_borrow(a, ot_arena_strndup(a, ops.ptr, ops.size)));
		ot_buf_free(&ops);
		ot_v_push(a, rows, row);
	}
	ot_v_set(a, ctx, "functions", rows);
	ot_v_set_bool(a, ctx, "has_functions", n > 0);
	ot_v_set_int(a, ctx, "count", (long long)n);
	rc = render(p, T_KERNELS, ctx, md, true);
	ot_which_free(w);
	ot_arena_free(a);
	return rc;
}
