/*
 * pyscan.c - the Python scanner: classes (with bases), functions and
 * methods with their extents (by indentation), module-level assignments,
 * the calls and references inside each, decomposition registrations and
 * docstring anchors. Patterns are pcre2; extents come from a single pass
 * over the logical lines of the code view.
 */
#include <pthread.h>
#include <ctype.h>
#include <string.h>

#include "buf.h"
#include "lines.h"
#include "scan.h"
#include "scan_re.h"

enum {
	RE_DEF,    /* class/def at a line start */
	RE_ASSIGN, /* module-level name = ... */
	RE_DECOMP, /* register_decomposition( */
	RE_ATEN,   /* aten.x(.overload) */
	RE_DOC,    /* add_docstr(torch.x, */
	RE_DOCALL, /* add_docstr_all(" */
	RE_COUNT
};

static const char *const patterns[RE_COUNT] = {
	[RE_DEF] = "^([ \\t]*)(?:async[ \\t]+)?(def|class)[ \\t]+([A-Za-z_]\\w*)",
	[RE_ASSIGN] = "^([A-Za-z_]\\w*)[ \\t]*(?::[^=\\n]*)?=(?!=)",
	[RE_DECOMP] = "\\bregister_decomposition[ \\t]*\\(",
	/* aten.x, torch.ops.aten.x, torch._ops.ops.aten.x */
	[RE_ATEN] = "\\baten\\.([A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)?)",
	[RE_DOC] = "\\badd_docstr[ \\t]*\\(\\s*torch\\.([A-Za-z_]\\w*)\\s*,",
	[RE_DOCALL] = "\\badd_docstr_all[ \\t]*\\(\\s*[\"']",
};

static pcre2_code *res[RE_COUNT];
static pthread_once_t res_once = PTHREAD_ONCE_INIT;

static void compile_all(void)
{
	int err;
	PCRE2_SIZE off;
	for (int i = 0; i < RE_COUNT; i++)
		res[i] = ot_scan_compile(patterns[i], &err, &off);
}

static const char *const keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
	"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
	"if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
	"return", "try", "while", "with", "yield", "print", "isinstance", "len", "super"};

static bool is_keyword(const char *s, size_t n)
{
	if (n < 2 || n > 10)
		return false;
	for (size_t i = 0; i < OT_ARRAY_LEN(keywords); i++)
		if (keywords[i][0] == s[0] && !strncmp(keywords[i], s, n) && !keywords[i][n])
			return true;
	return false;
}

/* Does the '.' at `dot` follow a call or an index (`f(x).`, `a[0].`)? */
static bool after_call(const char *c, size_t dot)
{
	size_t p = dot;
	while (p > 0 && (c[p - 1] == ' ' || c[p - 1] == '\t'))
		p--;
	return p > 0 && (c[p - 1] == ')' || c[p - 1] == ']');
}

bool ot_scan_py_binary_operator(const char *c, size_t len, size_t i)
{
	char ch = c[i], nx = i + 1 < len ? c[i + 1] : '\0';
	size_t p = i, n = i + 1;
	if (!strchr("+-*/@", ch) || !ch || nx == '=' || nx == ch || (ch == '-' && nx == '>'))
		return false; /* +=, **, //, ->, or not an operator */
	if (i > 0 && c[i - 1] == ch)
		return false; /* the second half of ** or // */
	while (p > 0 && (c[p - 1] == ' ' || c[p - 1] == '\t'))
		p--;
	while (n < len && (c[n] == ' ' || c[n] == '\t'))
		n++;
	if (p > 0 && ot_is_ident_char(c[p - 1])) {
		size_t w = p;
		while (w > 0 && ot_is_ident_char(c[w - 1]))
			w--;
		if (is_keyword(c + w, p - w))
			return false; /* return -x, else -1: a unary minus */
	}
	return p > 0 && (ot_is_ident_char(c[p - 1]) || c[p - 1] == ')' || c[p - 1] == ']') && n < len &&
	       (ot_is_ident_char(c[n]) || c[n] == '(' || c[n] == '[');
}

bool ot_scan_py_unary_minus(const char *c, size_t len, size_t i)
{
	size_t p = i, n = i + 1, w;
	if (c[i] != '-' || (n < len && (c[n] == '=' || c[n] == '-' || c[n] == '>')))
		return false;
	while (n < len && (c[n] == ' ' || c[n] == '\t'))
		n++;
	if (n >= len || !(isalpha((unsigned char)c[n]) || c[n] == '_' || c[n] == '('))
		return false; /* -1, -x.y is a name: only names and brackets */
	while (p > 0 && (c[p - 1] == ' ' || c[p - 1] == '\t'))
		p--;
	if (p == 0 || strchr("(,=[:", c[p - 1]))
		return true;
	for (w = p; w > 0 && ot_is_ident_char(c[w - 1]); w--)
		;
	return w < p && is_keyword(c + w, p - w); /* return -x */
}

bool ot_scan_py_subscript(const char *c, size_t i)
{
	size_t p = i, w;
	if (c[i] != '[')
		return false;
	while (p > 0 && (c[p - 1] == ' ' || c[p - 1] == '\t'))
		p--;
	if (p == 0 || !(ot_is_ident_char(c[p - 1]) || c[p - 1] == ')' || c[p - 1] == ']'))
		return false; /* a list: [a, b], f([x]) */
	for (w = p; w > 0 && ot_is_ident_char(c[w - 1]); w--)
		;
	return w == p || !is_keyword(c + w, p - w); /* in [..], return [..]: lists */
}

/*
 * The next dotted name in the code view at or after *off — "a", "a.b.c",
 * "self . x" — that does not continue a word or another name, or a method
 * called on what a call or an index gave (".g" of `f(x).g(y)`); [*s, *e)
 * is the name, *call tells whether '(' follows. *off moves past it. This
 * runs over every identifier of every Python file, so it is a small
 * hand-written lexer rather than a pattern.
 */
static bool next_name(const char *c, size_t len, size_t *off, size_t *s, size_t *e, bool *call)
{
	size_t i = *off;
	for (; i < len; i++) {
		char ch = c[i];
		if ((strchr("+-*/@", ch) && ch && ot_scan_py_binary_operator(c, len, i)) ||
		    (ch == '-' && ot_scan_py_unary_minus(c, len, i)) || (ch == '[' && ot_scan_py_subscript(c, i))) {
			/* a * b, a[i]: a call of the operator (pyflow.h reads the
			 * operands) */
			*s = i;
			*e = i + 1;
			*call = true;
			*off = i + 1;
			return true;
		}
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_'))
			continue;
		if (i > 0 && c[i - 1] == '.' && after_call(c, i - 1)) {
			/* x.f(...).g(...): g is called on what f gave, recorded as
			 * ".g" (pyflow.h reads the receiver) */
			*s = i - 1;
			while (i < len && ot_is_ident_char(c[i]))
				i++;
			*e = i;
			while (i < len && (c[i] == ' ' || c[i] == '\t'))
				i++;
			if (i < len && c[i] == '(') {
				*call = true;
				*off = i + 1;
				return true;
			}
			continue;
		}
		if (i > 0 && (ot_is_ident_char(c[i - 1]) || c[i - 1] == '.')) {
			while (i + 1 < len && ot_is_ident_char(c[i + 1]))
				i++; /* the rest of a word we are in the middle of */
			continue;
		}
		*s = i;
		for (;;) {
			size_t j;
			while (i < len && ot_is_ident_char(c[i]))
				i++;
			*e = i;
			j = i;
			while (j < len && (c[j] == ' ' || c[j] == '\t'))
				j++;
			if (j < len && c[j] == '.') {
				j++;
				while (j < len && (c[j] == ' ' || c[j] == '\t'))
					j++;
				if (j < len && ((c[j] >= 'a' && c[j] <= 'z') || (c[j] >= 'A' && c[j] <= 'Z') ||
						c[j] == '_')) {
					i = j;
					continue;
				}
			}
			break;
		}
		i = *e;
		while (i < len && (c[i] == ' ' || c[i] == '\t'))
			i++;
		*call = i < len && c[i] == '(';
		*off = *call ? i + 1 : *e;
		return true;
	}
	*off = len;
	return false;
}

/* Per-line facts of the code view. */
struct line {
	uint32_t off;
	uint32_t indent;
	bool blank;        /* nothing but whitespace in the code view */
	bool continuation; /* starts inside brackets or after a backslash */
};

struct pyfile {
	const char *code;
	size_t len;
	struct line *lines;
	uint32_t nlines;
};

static void compute_lines(struct pyfile *f)
{
	OT_VEC(struct line) v = {0};
	const char *c = f->code;
	size_t i = 0;
	int depth = 0;
	bool backslash = false;

	while (i < f->len) {
		struct line l = {.off = (uint32_t)i, .continuation = depth > 0 || backslash};
		size_t j = i;
		uint32_t col = 0;
		while (j < f->len && (c[j] == ' ' || c[j] == '\t' || c[j] == '\f')) {
			col = c[j] == '\t' ? (col / 8 + 1) * 8 : col + 1;
			j++;
		}
		l.indent = col;
		l.blank = j >= f->len || c[j] == '\n' || c[j] == '\r';
		backslash = false;
		for (; j < f->len && c[j] != '\n'; j++) {
			char ch = c[j];
			if (ch == '(' || ch == '[' || ch == '{')
				depth++;
			else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0)
				depth--;
		}
		{
			size_t e = j;
			while (e > i && (c[e - 1] == ' ' || c[e - 1] == '\t' || c[e - 1] == '\r'))
				e--;
			backslash = e > i && c[e - 1] == '\\';
		}
		ot_vec_push(&v, l);
		i = j + 1;
	}
	f->lines = v.items;
	f->nlines = (uint32_t)v.len;
}

static uint32_t line_of(const struct pyfile *f, size_t off)
{
	uint32_t lo = 0, hi = f->nlines;
	if (!hi)
		return 1;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (f->lines[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo + 1;
}

/* The last line of a logical statement starting at 1-based `line`. */
static uint32_t statement_end(const struct pyfile *f, uint32_t line)
{
	uint32_t l = line;
	while (l < f->nlines && f->lines[l].continuation)
		l++;
	return l;
}

struct open_block {
	size_t index; /* in out->pydefs */
	uint32_t indent;
};

/* The core ATen decomposition table (torch/_decomp/__init__.py, 2.x): the
 * aten.x of the list its builder hands to get_decompositions, into
 * out->core_decomps. 2.6 builds it in _core_aten_decompositions_post_autograd,
 * 2.0 in core_aten_decompositions; 1.13 has none. */
static void core_table(ot_scan_result *out, ot_arena *arena, const struct pyfile *f, const char *code,
		       size_t len, uint32_t file, pcre2_match_data *md)
{
	static const char *const builders[] = {"def _core_aten_decompositions_post_autograd(",
					       "def core_aten_decompositions("};
	const char *def = NULL, *end, *list, *close;
	for (size_t i = 0; i < OT_ARRAY_LEN(builders) && !def; i++) {
		def = memmem(code, len, builders[i], strlen(builders[i]));
		/* the builder that hands a list to get_decompositions */
		end = def ? memmem(def + 4, len - (size_t)(def + 4 - code), "\ndef ", 5) : NULL;
		end = end ? end : code + len;
		list = def ? memmem(def, (size_t)(end - def), "get_decompositions(", 19) : NULL;
		if (!list)
			def = NULL;
	}
	if (!def || !(list = memchr(list, '[', (size_t)(end - list))))
		return;
	close = memchr(list, ']', (size_t)(end - list));
	for (size_t a = (size_t)(list - code), e = close ? (size_t)(close - code) : (size_t)(end - code);
	     a < e && ot_scan_match(res[RE_ATEN], code, e, a, md) > 0;) {
		PCRE2_SIZE *av = pcre2_get_ovector_pointer(md);
		ot_ix_decomp dc = {0};
		dc.op = ot_arena_strndup(arena, code + av[2], av[3] - av[2]);
		dc.file = file;
		dc.line = line_of(f, av[2]);
		ot_vec_push(&out->core_decomps, dc);
		a = av[1];
	}
}

void ot_scan_python(ot_scan_result *out, ot_arena *arena, const char *code, const char *text,
		    size_t len, uint32_t file, const char *path)
{
	struct pyfile f = {code, len, NULL, 0};
	pcre2_match_data *md;
	size_t first_def = out->pydefs.len;
	OT_VEC(long) parents = {0};     /* parent index per pydef, -1 = none */
	OT_VEC(struct open_block) open = {0};
	size_t off, d;

	pthread_once(&res_once, compile_all);
	md = pcre2_match_data_create(16, NULL);
	compute_lines(&f);

	/* 1. definitions (class/def anywhere, assignments at column 0) */
	for (int which = RE_DEF; which <= RE_ASSIGN; which++) {
		off = 0;
		while (off < len && ot_scan_match(res[which], code, len, off, md) > 0) {
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
			uint32_t line = line_of(&f, ov[0]);
			off = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
			if (f.lines[line - 1].continuation)
				continue;
			ot_ix_pydef p = {0};
			p.file = file;
			p.line = line;
			if (which == RE_DEF) {
				bool is_class = code[ov[4]] == 'c';
				p.kind = is_class ? OT_PY_CLASS : OT_PY_DEF;
				p.name = ot_arena_strndup(arena, code + ov[6], ov[7] - ov[6]);
				p.indent = f.lines[line - 1].indent;
				if (is_class) {
					size_t b = ov[7];
					while (b < len && (code[b] == ' ' || code[b] == '\t'))
						b++;
					if (b < len && code[b] == '(') {
						size_t e = b + 1;
						int depth = 1;
						while (e < len && depth) {
							if (code[e] == '(')
								depth++;
							else if (code[e] == ')')
								depth--;
							e++;
						}
						/* e is past the ')', or at the end of an unclosed list */
						p.bases = ot_scan_copy_name(arena, code + b + 1,
									    e - b - 1 - (depth == 0));
					} else {
						p.bases = "";
					}
				}
			} else {
				p.kind = OT_PY_ASSIGN;
				p.name = ot_arena_strndup(arena, code + ov[2], ov[3] - ov[2]);
				p.indent = 0;
				p.end_line = statement_end(&f, line);
			}
			ot_vec_push(&out->pydefs, p);
		}
	}

	/* 2. sort the new records by line (defs and assignments interleave) */
	{
		size_t n = out->pydefs.len - first_def;
		ot_ix_pydef *a = n ? out->pydefs.items + first_def : NULL; /* NULL + 0 is UB */
		for (size_t i = 1; i < n; i++) {
			ot_ix_pydef key = a[i];
			size_t j = i;
			while (j > 0 && a[j - 1].line > key.line) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = key;
		}
	}

	/* 3. extents and parents: one pass over the logical lines */
	d = first_def;
	for (uint32_t ln = 1; ln <= f.nlines + 1; ln++) {
		bool at_end = ln > f.nlines;
		const struct line *l = at_end ? NULL : &f.lines[ln - 1];
		if (!at_end && (l->blank || l->continuation))
			continue;
		/* close every block this line dedents out of */
		while (open.len) {
			struct open_block *top = &open.items[open.len - 1];
			if (!at_end && l->indent > top->indent)
				break;
			/* the block ends at the last non-blank line before ln */
			uint32_t end = ln - 1;
			while (end > out->pydefs.items[top->index].line && f.lines[end - 1].blank)
				end--;
			out->pydefs.items[top->index].end_line = end;
			open.len--;
		}
		while (d < out->pydefs.len && out->pydefs.items[d].line == ln) {
			ot_ix_pydef *p = &out->pydefs.items[d];
			long parent = open.len ? (long)open.items[open.len - 1].index : -1;
			ot_vec_push(&parents, parent);
			if (p->kind != OT_PY_ASSIGN)
				ot_vec_push(&open, ((struct open_block){d, p->indent}));
			d++;
		}
	}
	for (size_t i = first_def; i < out->pydefs.len; i++) {
		long pi = parents.items[i - first_def];
		ot_ix_pydef *p = &out->pydefs.items[i];
		if (!p->end_line)
			p->end_line = p->line;
		p->parent = pi >= 0 ? &out->pydefs.items[pi] : NULL;
	}

	/* 4. names called (and, in assignments, referenced) inside each record */
	{
		/* records sorted by line; the innermost one containing a line is
		 * the last record starting at or before it whose extent covers it */
		size_t n = out->pydefs.len - first_def;
		ot_ix_pydef *a = n ? out->pydefs.items + first_def : NULL; /* NULL + 0 is UB */
		OT_VEC(ot_ix_pyref) *per = ot_calloc(n ? n : 1, sizeof(*per));
		size_t cursor = 0;
		off = 0;
		size_t ns, ne;
		bool call;
		while (n && next_name(code, len, &off, &ns, &ne, &call)) {
			uint32_t line = line_of(&f, ns);
			size_t owner;
			if (is_keyword(code + ns, ne - ns))
				continue;
			while (cursor + 1 < n && a[cursor + 1].line <= line)
				cursor++;
			/* innermost enclosing record */
			owner = cursor;
			while (!(a[owner].line <= line && line <= a[owner].end_line)) {
				const ot_ix_pydef *p = a[owner].parent;
				if (!p) {
					owner = n;
					break;
				}
				owner = (size_t)(p - a);
			}
			if (owner >= n || a[owner].kind == OT_PY_CLASS)
				continue;
			if (a[owner].line == line && a[owner].kind == OT_PY_DEF)
				continue; /* the def line itself: parameters, not calls */
			if (!call && a[owner].kind != OT_PY_ASSIGN)
				continue;
			ot_ix_pyref r = {ot_scan_copy_name(arena, code + ns, ne - ns), line, call};
			ot_vec_push(&per[owner], r);
		}
		for (size_t i = 0; i < n; i++) {
			a[i].refs = OT_ARENA_VEC(arena, &per[i]);
			a[i].nrefs = (uint32_t)per[i].len;
			ot_vec_free(&per[i]);
		}
		free(per);
	}

	/* 5. register_decomposition(aten.x, [aten.y.default, ...]) */
	off = memmem(code, len, "register_decomposition", 22) ? 0 : len;
	while (off < len && ot_scan_match(res[RE_DECOMP], code, len, off, md) > 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		size_t args = ov[1], end = args;
		int depth = 1;
		const char *func = NULL;
		off = ov[1];
		while (end < len && depth) {
			if (code[end] == '(')
				depth++;
			else if (code[end] == ')')
				depth--;
			end++;
		}
		/* a decorator names the next def */
		{
			size_t ls = ov[0];
			while (ls > 0 && code[ls - 1] != '\n')
				ls--;
			while (ls < ov[0] && (code[ls] == ' ' || code[ls] == '\t'))
				ls++;
			if (code[ls] == '@') {
				uint32_t line = line_of(&f, end);
				for (size_t i = first_def; i < out->pydefs.len; i++) {
					const ot_ix_pydef *p = &out->pydefs.items[i];
					if (p->line >= line && p->kind == OT_PY_DEF) {
						func = p->name;
						break;
					}
				}
			}
		}
		size_t a = args;
		while (a < end && ot_scan_match(res[RE_ATEN], code, end, a, md) > 0) {
			PCRE2_SIZE *av = pcre2_get_ovector_pointer(md);
			ot_ix_decomp dc = {0};
			dc.op = ot_arena_strndup(arena, code + av[2], av[3] - av[2]);
			dc.func = func;
			dc.file = file;
			dc.line = line_of(&f, av[2]);
			ot_vec_push(&out->decomps, dc);
			a = av[1];
		}
	}

	/* 6. the core ATen decomposition table: the aten.x of the list handed
	 * to get_decompositions in the function that builds it (2.x) */
	if (path && ot_ends_with(path, "torch/_decomp/__init__.py"))
		core_table(out, arena, &f, code, len, file, md);

	/* 7. docstring anchors */
	if (path && (ot_ends_with(path, "/_torch_docs.py") || ot_ends_with(path, "/_tensor_docs.py"))) {
		bool method = ot_ends_with(path, "/_tensor_docs.py");
		int which = method ? RE_DOCALL : RE_DOC;
		off = 0;
		while (off < len && ot_scan_match(res[which], code, len, off, md) > 0) {
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
			ot_ix_doc doc = {0};
			size_t s, e;
			off = ov[1];
			if (method) {
				/* the name is a string literal: read it from the text */
				char q = text[ov[1] - 1];
				s = ov[1];
				e = s;
				while (e < len && text[e] != q && text[e] != '\n')
					e++;
			} else {
				s = ov[2];
				e = ov[3];
			}
			if (e == s)
				continue;
			doc.name = ot_arena_strndup(arena, text + s, e - s);
			doc.method = method;
			doc.file = file;
			doc.line = line_of(&f, s);
			ot_vec_push(&out->docs, doc);
		}
	}

	ot_vec_free(&parents);
	ot_vec_free(&open);
	free(f.lines);
	pcre2_match_data_free(md);
}

void ot_scan_result_free(ot_scan_result *r)
{
	ot_vec_free(&r->pparms);
	ot_vec_free(&r->defines);
	ot_vec_free(&r->cdefs);
	ot_vec_free(&r->stubs);
	ot_vec_free(&r->decls);
	ot_vec_free(&r->pydefs);
	ot_vec_free(&r->decomps);
	ot_vec_free(&r->core_decomps);
	ot_vec_free(&r->docs);
}
