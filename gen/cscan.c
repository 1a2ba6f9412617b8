/*
 * cscan.c - the C++/CUDA scanner: function definitions with exact extents
 * (brace matching over the code view), the calls inside each body, and
 * DispatchStub sites (pcre2).
 *
 * The walker keeps a stack of open braces. At namespace or class scope the
 * text since the previous `;`, `{` or `}` (the "head") decides what a `{`
 * opens: a namespace, a class, a function body (the head ends with a
 * parameter list and qualifiers), or an initializer. Inside a function body
 * every `name(` is recorded as a call of that function, so "the body of X"
 * and "what X calls" are exact.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "lines.h"
#include "scan.h"
#include "scan_re.h"

static bool word_eq(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

static bool is_macro_name(const char *s, size_t len)
{
	bool upper = false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			return false;
		if (s[i] >= 'A' && s[i] <= 'Z')
			upper = true;
	}
	return upper && len > 1;
}

/* ---- head analysis ---------------------------------------------------------- */

struct tok {
	size_t start, end; /* offsets in the code view */
	char kind;         /* 'i' identifier, 'n' number, 'p' punctuation */
};

#define MAX_HEAD_TOKENS 4096

struct head {
	struct tok *toks;
	size_t n;
};

static void tokenize(struct head *h, const char *code, size_t from, size_t to)
{
	size_t i = from;
	h->n = 0;
	while (i < to && h->n < MAX_HEAD_TOKENS) {
		char c = code[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			i++;
			continue;
		}
		if (c == '#' && i + 2 < to) {
			i += 3; /* a preprocessor marker (lex.h) is not part of a head */
			continue;
		}
		if (ot_is_ident_start(c)) {
			size_t s = i;
			while (i < to && ot_is_ident_char(code[i]))
				i++;
			h->toks[h->n++] = (struct tok){s, i, 'i'};
		} else if (c >= '0' && c <= '9') {
			size_t s = i;
			while (i < to && (ot_is_ident_char(code[i]) || code[i] == '.' || code[i] == '\''))
				i++;
			h->toks[h->n++] = (struct tok){s, i, 'n'};
		} else if (c == ':' && i + 1 < to && code[i + 1] == ':') {
			h->toks[h->n++] = (struct tok){i, i + 2, 'p'};
			i += 2;
		} else if (c == '-' && i + 1 < to && code[i + 1] == '>') {
			h->toks[h->n++] = (struct tok){i, i + 2, 'p'};
			i += 2;
		} else {
			h->toks[h->n++] = (struct tok){i, i + 1, 'p'};
			i++;
		}
	}
}

static bool tok_is(const char *code, const struct tok *t, const char *s)
{
	return word_eq(code + t->start, t->end - t->start, s);
}

static bool tok_punct(const char *code, const struct tok *t, char c)
{
	return t->kind == 'p' && t->end - t->start == 1 && code[t->start] == c;
}

/* Index of the token closing the group opened at `open` ("(" or "<"), or n. */
static size_t match_group(const char *code, const struct head *h, size_t open)
{
	char o = code[h->toks[open].start], cl = o == '(' ? ')' : o == '<' ? '>' : ']';
	int depth = 0, paren = 0;
	for (size_t k = open; k < h->n; k++) {
		const struct tok *t = &h->toks[k];
		if (t->kind != 'p')
			continue;
		char c = code[t->start];
		if (o == '<') {
			/* angle brackets: parentheses inside hide '<' and '>' */
			if (c == '(')
				paren++;
			else if (c == ')')
				paren--;
			if (paren > 0)
				continue;
		}
		if (c == o)
			depth++;
		else if (c == cl && --depth == 0)
			return k;
	}
	return h->n;
}

enum head_kind { HEAD_OTHER, HEAD_NAMESPACE, HEAD_CLASS, HEAD_FUNC };

struct head_info {
	enum head_kind kind;
	ot_ix_cdef_kind def_kind;
	size_t name_start, name_end; /* the name token (for META2: op token) */
	size_t over_start, over_end; /* META2 overload token, or 0,0 */
	size_t qual_start, qual_end; /* qualifier text before the name, or 0,0 */
	size_t ns_start, ns_end;     /* namespace name ("at::native"), or 0,0 */
	bool global;
};

static const char *const impl_macros[] = {"TORCH_IMPL_FUNC", "TORCH_META_FUNC",
					  "TORCH_META_FUNC2", "TORCH_PRECOMPUTE_META_FUNC",
					  "TORCH_PRECOMPUTE_META_FUNC2"};

/* Tokens allowed between a parameter list and the body's `{`. */
static bool is_trailing_qualifier(const char *code, const struct tok *t)
{
	static const char *const words[] = {"const", "noexcept", "override", "final",
					    "volatile", "mutable", "constexpr", "throw",
					    "__attribute__", "requires"};
	if (t->kind == 'i') {
		for (size_t i = 0; i < OT_ARRAY_LEN(words); i++)
			if (tok_is(code, t, words[i]))
				return true;
		size_t n = t->end - t->start;
		const char *s = code + t->start;
		/* macros (C10_...) and attributes spelled __like_this__ */
		return is_macro_name(s, n) ||
		       (n > 4 && s[0] == '_' && s[1] == '_' && s[n - 1] == '_' && s[n - 2] == '_');
	}
	return tok_punct(code, t, '&') || tok_punct(code, t, '(') || tok_punct(code, t, ')');
}

/* The names of the parameters of a head's `template <...>` prefixes,
 * joined by ',' ("nonlinearity,cell_params"), or NULL when it has none. */
static const char *head_tparams(ot_arena *a, const char *code, const struct head *h)
{
	char buf[512];
	size_t first = 0, len = 0;
	buf[0] = '\0';
	while (first + 1 < h->n && tok_is(code, &h->toks[first], "template") &&
	       tok_punct(code, &h->toks[first + 1], '<')) {
		size_t close = match_group(code, h, first + 1), last = SIZE_MAX;
		int depth = 0;
		bool deflt = false;
		if (close >= h->n)
			break;
		for (size_t k = first + 2; k <= close; k++) {
			const struct tok *t = &h->toks[k];
			if (k == close || (depth == 0 && tok_punct(code, t, ','))) {
				if (last != SIZE_MAX && len + (h->toks[last].end - h->toks[last].start) + 2 < sizeof(buf))
					len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%.*s", len ? "," : "",
								(int)(h->toks[last].end - h->toks[last].start),
								code + h->toks[last].start);
				last = SIZE_MAX;
				deflt = false;
			} else if (tok_punct(code, t, '<') || tok_punct(code, t, '(') || tok_punct(code, t, '[')) {
				depth++;
			} else if (tok_punct(code, t, '>') || tok_punct(code, t, ')') || tok_punct(code, t, ']')) {
				depth--;
			} else if (depth == 0 && tok_punct(code, t, '=')) {
				deflt = true;
			} else if (depth == 0 && !deflt && t->kind == 'i') {
				last = k;
			}
		}
		first = close + 1;
	}
	return len ? ot_arena_strndup(a, buf, len) : NULL;
}

static void analyze_head(struct head_info *info, const char *code, const struct head *h)
{
	size_t k, first = 0;
	memset(info, 0, sizeof(*info));
	if (!h->n)
		return;
	/* skip `template <...>` prefixes */
	while (first + 1 < h->n && tok_is(code, &h->toks[first], "template") &&
	       tok_punct(code, &h->toks[first + 1], '<')) {
		size_t close = match_group(code, h, first + 1);
		if (close >= h->n)
			return;
		first = close + 1;
	}
	{
		const struct tok *last = &h->toks[h->n - 1];
		if (tok_punct(code, last, '=') || tok_punct(code, last, ',') ||
		    tok_punct(code, last, '(') || tok_punct(code, last, '[') ||
		    tok_is(code, last, "return"))
			return;
	}
	for (k = first; k < h->n; k++) {
		const struct tok *t = &h->toks[k];
		if (tok_is(code, t, "namespace")) {
			info->kind = HEAD_NAMESPACE;
			if (k > first && tok_is(code, &h->toks[k - 1], "inline")) {
				/* inline namespace CPU_CAPABILITY: its names are the
				 * enclosing namespace's; it adds none */
				info->ns_start = info->ns_end = 1;
				return;
			}
			if (k + 1 < h->n) {
				info->ns_start = h->toks[k + 1].start;
				info->ns_end = h->toks[h->n - 1].end;
			}
			return;
		}
		if (tok_is(code, t, "extern") && k + 1 < h->n && tok_punct(code, &h->toks[k + 1], '"')) {
			info->kind = HEAD_NAMESPACE; /* extern "C" { ... } adds no name */
			info->ns_start = info->ns_end = 1;
			return;
		}
		/* a macro statement without ';' before the namespace
		 * (C10_DIAGNOSTIC_PUSH_AND_IGNORED_IF_DEFINED("-W...")) */
		if (tok_punct(code, t, '(') && k > first &&
		    is_macro_name(code + h->toks[k - 1].start,
				  h->toks[k - 1].end - h->toks[k - 1].start)) {
			size_t close = match_group(code, h, k);
			if (close < h->n) {
				k = close;
				continue;
			}
		}
		if (tok_punct(code, t, '=') || tok_punct(code, t, '('))
			break;
	}
	/* class/struct/union/enum keys before any parenthesis */
	for (k = first; k < h->n; k++) {
		const struct tok *t = &h->toks[k];
		if (tok_punct(code, t, '('))
			break;
		if (tok_is(code, t, "enum"))
			return;
		if (tok_is(code, t, "class") || tok_is(code, t, "struct") || tok_is(code, t, "union")) {
			info->kind = HEAD_CLASS;
			/* its name: the first word after the key that is not an
			 * export macro (struct TORCH_API Foo, class C10_API Bar) */
			for (size_t j = k + 1; j < h->n && h->toks[j].kind == 'i'; j++) {
				const struct tok *nt = &h->toks[j];
				if (is_macro_name(code + nt->start, nt->end - nt->start))
					continue;
				info->name_start = nt->start;
				info->name_end = nt->end;
				break;
			}
			return;
		}
	}
	for (k = first; k < h->n; k++) {
		const struct tok *t = &h->toks[k];
		if (tok_is(code, t, "__global__"))
			info->global = true;
		if (t->kind != 'p' || code[t->start] != '(')
			continue;
		/* k opens a top-level parameter-like group */
		size_t close = match_group(code, h, k);
		if (close >= h->n)
			return;
		if (k == first) {
			k = close;
			continue;
		}
		const struct tok *prev = &h->toks[k - 1];
		if (tok_punct(code, prev, ']'))
			return; /* a lambda at namespace scope: an initializer */
		if (prev->kind != 'i') {
			if (tok_punct(code, prev, '>')) {
				/* a specialisation: name<T>(...) */
				size_t j = k - 1;
				int depth = 0;
				for (;; j--) {
					if (tok_punct(code, &h->toks[j], '>'))
						depth++;
					else if (tok_punct(code, &h->toks[j], '<') && --depth == 0)
						break;
					if (j == first)
						return;
				}
				if (j == first || h->toks[j - 1].kind != 'i')
					return;
				prev = &h->toks[j - 1];
			} else if (tok_punct(code, prev, ')')) {
				/* operator()(...): named by its first group, its
				 * parameters the second */
				if (k >= first + 3 && tok_punct(code, &h->toks[k - 2], '(') &&
				    tok_is(code, &h->toks[k - 3], "operator")) {
					prev = &h->toks[k - 3];
				} else {
					k = close;
					continue;
				}
			} else {
				/* operator overloads: operator==(...), operator()(...) */
				size_t j = k - 1;
				while (j > first && h->toks[j].kind == 'p')
					j--;
				if (tok_is(code, &h->toks[j], "operator")) {
					info->kind = HEAD_FUNC;
					info->def_kind = OT_CDEF_FUNC;
					info->name_start = h->toks[j].start;
					info->name_end = h->toks[j].end;
					return;
				}
				return;
			}
		}
		if (tok_is(code, prev, "operator") && close == k + 1 && close + 1 < h->n &&
		    tok_punct(code, &h->toks[close + 1], '(')) {
			k = close; /* operator(): its parameters are the next group */
			continue;
		}
		/* the macros that define structured kernels */
		for (size_t m = 0; m < OT_ARRAY_LEN(impl_macros); m++) {
			if (!tok_is(code, prev, impl_macros[m]))
				continue;
			if (k + 1 >= h->n || h->toks[k + 1].kind != 'i')
				return;
			info->kind = HEAD_FUNC;
			info->def_kind = m == 0 ? OT_CDEF_IMPL : m <= 2 ? OT_CDEF_META : OT_CDEF_PRECOMPUTE;
			info->name_start = h->toks[k + 1].start;
			info->name_end = h->toks[k + 1].end;
			if (m == 2 || m == 4) {
				if (k + 3 < h->n && tok_punct(code, &h->toks[k + 2], ',') &&
				    h->toks[k + 3].kind == 'i') {
					info->over_start = h->toks[k + 3].start;
					info->over_end = h->toks[k + 3].end;
				}
			}
			return;
		}
		/* A macro before the real name (C10_LAUNCH_BOUNDS_1(...) kernel(...)):
		 * skip it when another named group follows. */
		if (is_macro_name(code + prev->start, prev->end - prev->start)) {
			bool later = false;
			for (size_t j = close + 1; j + 1 < h->n; j++)
				if (h->toks[j].kind == 'i' && tok_punct(code, &h->toks[j + 1], '('))
					later = true;
			if (later) {
				k = close;
				continue;
			}
		}
		/* what follows the parameter list must be qualifiers, a trailing
		 * return type, or a constructor's initializer list */
		for (size_t j = close + 1; j < h->n; j++) {
			const struct tok *t = &h->toks[j];
			if (tok_punct(code, t, ':') || tok_is(code, t, "->"))
				break;
			if (!is_trailing_qualifier(code, t))
				return;
		}
		info->kind = HEAD_FUNC;
		info->def_kind = OT_CDEF_FUNC;
		info->name_start = prev->start;
		info->name_end = prev->end;
		/* qualifier chain: a :: b :: name */
		{
			size_t q = (size_t)(prev - h->toks);
			size_t qs = q;
			for (;;) {
				size_t j;
				int depth = 0;
				if (qs < first + 2 || !tok_is(code, &h->toks[qs - 1], "::"))
					break;
				if (h->toks[qs - 2].kind == 'i') {
					qs -= 2;
					continue;
				}
				if (!tok_punct(code, &h->toks[qs - 2], '>'))
					break;
				/* a class template's member: Foo<T>::name */
				for (j = qs - 2; j > first; j--) {
					if (tok_punct(code, &h->toks[j], '>'))
						depth++;
					else if (tok_punct(code, &h->toks[j], '<') && --depth == 0)
						break;
				}
				if (depth || h->toks[j - 1].kind != 'i')
					break;
				qs = j - 1;
			}
			if (qs < q) {
				info->qual_start = h->toks[qs].start;
				info->qual_end = h->toks[q - 1].start;
			}
		}
		return;
	}
}

/* ---- the walker --------------------------------------------------------------- */

enum scope { SCOPE_NAMESPACE, SCOPE_CLASS, SCOPE_FUNC, SCOPE_BLOCK };

#define MAX_DEPTH 1024

/*
 * The walker's brace state, saved at an #if whose condition is unknown.
 * Every branch of the chain starts from the state at #if; after #endif the
 * walk goes on from the state at the end of the first branch. So a header
 * written once per branch ("#if A  f(int a) {  #else  f(int a, int b) {
 * #endif") opens one body, and code that exists only in an #else branch
 * (cudnn/RNN.cpp's "#if !AT_CUDNN_ENABLED() stubs #else real code #endif")
 * is still read.
 */
struct pp_state {
	int depth, lost;
	long func;
	int func_depth;
	int nscopes; /* open guard scopes */
	char *ns; /* heap copy of the walker's ns */
	enum scope *stack;
	bool *keeps_head;
	size_t *ns_len;
};

struct pp_frame {
	struct pp_state at_if;     /* state at #if */
	struct pp_state first_end; /* state at the end of the first branch */
	bool in_else;
};

/* A macro whose expansion launches a CUDA kernel (Indexing.cu's SMALL_INDEX):
 * a call to the macro is recorded as a launch of the kernel. */
struct launch_macro {
	char name[64], kernel[128];
	size_t at; /* offset of its #define: a later one redefines the name */
};

#define PP_MAX 64
#define MAX_SCOPES 64

/* A part of a function body that runs under a guard (ot_ix_guard). */
enum scope_kind {
	SC_ARM,       /* if / else if / else: ends with its block or statement */
	SC_SWITCH,    /* the block of a switch: no guard of its own */
	SC_CASE,      /* from a case label to the next one or the switch's end */
	SC_THEN,      /* c ? [then] : otherwise */
	SC_OTHERWISE, /* c ? then : [otherwise] */
	SC_CHECK_COND,/* the condition of TORCH_CHECK(cond, ...): it runs on
			 every call; the message after it is SC_CHECK */
	SC_CHECK,     /* the message arguments of TORCH_CHECK(...), or all of
			 a debug-only assert's or a warning's */
	SC_COND,      /* the condition of an `else if (...)`: evaluated only when
			 no earlier arm of the chain was taken */
	SC_AFTER,     /* the rest of a block after an if chain that returns */
	SC_AND,       /* a && [b]: the right operand runs only when a holds */
	SC_OR         /* a || [b]: the right operand runs only when a fails */
};

struct scope_guard {
	uint32_t arm;  /* the preprocessor arm it began in */
	uint8_t kind;
	bool braced;   /* SC_ARM, SC_SWITCH: a { block } rather than one statement */
	uint16_t guard;/* 1-based in walker.guards; SC_SWITCH: the enclosing one */
	int depth;     /* brace depth where the scope began (before its '{') */
	int paren;     /* parenthesis depth where it began */
	size_t end;    /* SC_CHECK, SC_CHECK_COND, SC_COND: offset of the
			  closing ')'; SC_CASE: of its label's ':' */
	const char *subject; /* SC_SWITCH: the switched expression */
	size_t message_at;      /* SC_CHECK_COND: the ',' after the condition */
	uint16_t message_guard; /* SC_CHECK_COND: the message's guard */
};

/* An if/switch whose condition has been read: it takes effect after the
 * ')' at `close`. */
struct pending_guard {
	bool on;
	uint8_t kind;   /* OT_GUARD_IF, OT_GUARD_ELSE_IF, or 0xff for a switch */
	size_t close;
	const char *text;
	uint32_t line;
	uint16_t prev;
};

struct site_context {
	size_t off;
	const char *ns;
	uint32_t arm;
};

struct walker {
	ot_scan_result *out;
	ot_arena *arena;
	const char *code;
	size_t len;
	uint32_t file;
	struct head head;
	enum scope stack[MAX_DEPTH];
	bool keeps_head[MAX_DEPTH]; /* brace inside a head (b_{x} in a constructor's
				       initializer list): closing it continues the head */
	size_t ns_len[MAX_DEPTH]; /* length of `ns` before each namespace opened */
	const char *class_name[MAX_DEPTH]; /* each class scope's name, or "" */
	const char *class_tparams[MAX_DEPTH]; /* a class template's parameters (head_tparams) */
	bool class_special[MAX_DEPTH]; /* a specialization of a class template */
	struct pp_frame *pp;      /* open #if chains of unknown condition */
	int pp_depth;
	char ns[512];             /* the enclosing namespaces: "at::native" */
	int depth, lost; /* lost: braces beyond MAX_DEPTH */
	long func;       /* index of the open function in out->cdefs, or -1 */
	int func_depth;  /* stack depth at which that function's body opened */
	bool returned;   /* a return has been seen in that body (anywhere in it) */
	OT_VEC(ot_ix_call) calls;
	struct launch_macro *launch_macros; /* #define NAME(...) kernel<<<...>>> */
	size_t nlaunch_macros;
	const char *text; /* the raw text: invocations are shown as written */
	OT_VEC(ot_ix_minvoke) invokes;
	const uint32_t *line_off;
	uint32_t nlines;
	/* preprocessor arms (ot_ix_pparm): the arm the walk is in, and the
	 * arms of the open chains */
	uint32_t arm;
	uint32_t arm_stack[PP_MAX];
	/* guards of the open function body */
	OT_VEC(ot_ix_guard) guards;
	struct scope_guard scopes[MAX_SCOPES];
	int nscopes;
	struct pending_guard pending;
	uint16_t chain;      /* the arm an `else` at offset chain_at continues */
	size_t chain_at;
	/* the namespace and arm of every DISPATCH macro at declaration scope,
	 * by offset, for the stub sites scanned afterwards */
	OT_VEC(struct site_context) sites;
};

static uint32_t line_of(const struct walker *w, size_t off)
{
	return ot_line_at(w->line_off, w->nlines, off);
}

static bool decl_scope(const struct walker *w)
{
	return w->depth == 0 || w->stack[w->depth - 1] == SCOPE_NAMESPACE ||
	       w->stack[w->depth - 1] == SCOPE_CLASS;
}

static void open_brace(struct walker *w, size_t head_start, size_t brace)
{
	enum scope s = SCOPE_BLOCK;
	if (w->depth >= MAX_DEPTH) {
		w->lost++;
		return;
	}
	if (decl_scope(w)) {
		struct head_info info;
		tokenize(&w->head, w->code, head_start, brace);
		analyze_head(&info, w->code, &w->head);
		if (info.kind == HEAD_NAMESPACE) {
			size_t len = strlen(w->ns);
			s = SCOPE_NAMESPACE;
			w->ns_len[w->depth] = len;
			if (info.ns_start == 1 && info.ns_end == 1) {
				/* extern "C": no name */
			} else if (info.ns_end > info.ns_start) {
				const char *name = ot_scan_copy_name(w->arena, w->code + info.ns_start,
								     info.ns_end - info.ns_start);
				snprintf(w->ns + len, sizeof(w->ns) - len, "%s%s", len ? "::" : "", name);
			} else {
				snprintf(w->ns + len, sizeof(w->ns) - len, "%s(anonymous)", len ? "::" : "");
			}
		} else if (info.kind == HEAD_CLASS) {
			s = SCOPE_CLASS;
			w->class_name[w->depth] = info.name_end > info.name_start
							  ? ot_arena_strndup(w->arena, w->code + info.name_start,
									     info.name_end - info.name_start)
							  : "";
			w->class_tparams[w->depth] = head_tparams(w->arena, w->code, &w->head);
			{
				/* struct Foo<Args>: a specialization */
				size_t j = info.name_end;
				while (j < brace && (w->code[j] == ' ' || w->code[j] == '\t' || w->code[j] == '\n'))
					j++;
				w->class_special[w->depth] = info.name_end > info.name_start && w->code[j] == '<';
			}
		} else if (info.kind == HEAD_FUNC && w->func < 0) {
			ot_ix_cdef d = {0};
			const char *c = w->code;
			if (info.over_end)
				d.name = ot_arena_printf(w->arena, "%.*s.%.*s",
							 (int)(info.name_end - info.name_start),
							 c + info.name_start,
							 (int)(info.over_end - info.over_start),
							 c + info.over_start);
			else
				d.name = ot_arena_strndup(w->arena, c + info.name_start,
							  info.name_end - info.name_start);
			d.qual = info.qual_end > info.qual_start
					 ? ot_scan_copy_qual(w->arena, c + info.qual_start,
							     info.qual_end - info.qual_start)
					 : "";
			d.ns = ot_arena_strdup(w->arena, w->ns);
			d.file = w->file;
			d.line = line_of(w, info.name_start);
			d.kind = (uint8_t)info.def_kind;
			d.global = info.global;
			d.in_class = w->depth > 0 && w->stack[w->depth - 1] == SCOPE_CLASS;
			if (d.in_class) {
				d.cls = w->class_name[w->depth - 1];
				d.cls_tparams = w->class_tparams[w->depth - 1];
				d.cls_special = w->class_special[w->depth - 1];
			}
			d.fn_tparams = head_tparams(w->arena, c, &w->head);
			d.pp = w->arm;
			d.body = (uint32_t)brace;
			ot_vec_push(&w->out->cdefs, d);
			w->func = (long)w->out->cdefs.len - 1;
			w->func_depth = w->depth + 1;
			w->returned = false;
			w->calls.len = 0;
			w->guards.len = 0;
			w->nscopes = 0;
			w->pending.on = false;
			w->chain = 0;
			s = SCOPE_FUNC;
		}
	}
	w->keeps_head[w->depth] = false;
	w->stack[w->depth++] = s;
}

static void close_brace(struct walker *w, size_t brace)
{
	if (w->lost) {
		w->lost--;
		return;
	}
	if (w->depth == 0)
		return; /* unbalanced: ignore */
	if (w->stack[w->depth - 1] == SCOPE_NAMESPACE)
		w->ns[w->ns_len[w->depth - 1]] = '\0';
	if (w->func >= 0 && w->depth == w->func_depth) {
		ot_ix_cdef *d = &w->out->cdefs.items[w->func];
		d->end_line = line_of(w, brace);
		d->body_end = (uint32_t)brace;
		if (w->calls.len) {
			d->calls = OT_ARENA_VEC(w->arena, &w->calls);
			d->ncalls = (uint32_t)w->calls.len;
			w->out->ncalls += w->calls.len;
		}
		if (w->guards.len) {
			d->guards = OT_ARENA_VEC(w->arena, &w->guards);
			d->nguards = (uint16_t)w->guards.len;
		}
		w->func = -1;
		w->nscopes = 0;
	}
	w->depth--;
}

static const char *const not_calls[] = {
	"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "catch",
	"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "new", "delete",
	"typeid", "noexcept", "throw", "case", "do", "else", "defined", "static_assert",
	"alignas", "operator", "__attribute__", "template", "typename", "auto", "void"};

static size_t not_call_lens[OT_ARRAY_LEN(not_calls)];
static pthread_once_t not_call_once = PTHREAD_ONCE_INIT;

static void init_not_call_lens(void)
{
	for (size_t i = 0; i < OT_ARRAY_LEN(not_calls); i++)
		not_call_lens[i] = strlen(not_calls[i]);
}

/* Keywords and casts that look like calls. Lengths are compared first: this
 * runs for every identifier followed by '(' in every function body. */
static bool is_not_call(const char *s, size_t n)
{
	if (n < 2 || n > 16)
		return false;
	pthread_once(&not_call_once, init_not_call_lens);
	for (size_t i = 0; i < OT_ARRAY_LEN(not_calls); i++)
		if (not_call_lens[i] == n && s[0] == not_calls[i][0] && !memcmp(s, not_calls[i], n))
			return true;
	return false;
}

static bool skip_space(const char *code, size_t len, size_t *i)
{
	while (*i < len && (code[*i] == ' ' || code[*i] == '\t' || code[*i] == '\n' ||
			    code[*i] == '\r'))
		(*i)++;
	return *i < len;
}

/* Is the word [s, e) the `this` of `(*this)(...)`? */
static bool this_called(const char *code, size_t len, size_t s, size_t e)
{
	size_t b = s, i = e;
	if (e - s != 4 || memcmp(code + s, "this", 4))
		return false;
	while (b > 0 && (code[b - 1] == ' ' || code[b - 1] == '\t'))
		b--;
	if (b < 2 || code[b - 1] != '*')
		return false;
	b--;
	while (b > 0 && (code[b - 1] == ' ' || code[b - 1] == '\t'))
		b--;
	if (!b || code[b - 1] != '(' || !skip_space(code, len, &i) || code[i] != ')')
		return false;
	i++;
	return skip_space(code, len, &i) && code[i] == '(';
}

/* At the '{' at `i`: `{}(`, a temporary made and called? */
static bool functor_call(const char *code, size_t len, size_t i)
{
	i++;
	if (!skip_space(code, len, &i) || code[i] != '}')
		return false;
	i++;
	return skip_space(code, len, &i) && code[i] == '(';
}

/* After an identifier ending at `end`: is this a call? Sets *kind. Handles
 * name<T, U>(...), name<<<...>>>(...) and Name{}(...). */
static bool call_follows(const char *code, size_t len, size_t end, uint8_t *kind)
{
	size_t i = end;
	if (!skip_space(code, len, &i))
		return false;
	if (code[i] == '(') {
		*kind = OT_CALL_PLAIN;
		return true;
	}
	if (code[i] == '{' && functor_call(code, len, i)) {
		*kind = OT_CALL_FUNCTOR; /* tanh_f{}(...) */
		return true;
	}
	if (code[i] != '<')
		return false;
	if (i + 2 < len && code[i + 1] == '<' && code[i + 2] == '<') {
		*kind = OT_CALL_LAUNCH;
		return true;
	}
	/* template arguments: a short balanced <...> with no statement chars */
	{
		int depth = 0;
		size_t j, limit = i + 480 < len ? i + 480 : len;
		for (j = i; j < limit; j++) {
			char c = code[j];
			if (c == '<')
				depth++;
			else if (c == '>' && --depth == 0)
				break;
			else if (c == ';' || c == '{' || c == '}' || c == '&' || c == '|')
				return false;
		}
		if (j >= limit)
			return false;
		j++;
		if (!skip_space(code, len, &j))
			return false;
		if (j + 2 < len && code[j] == '<' && code[j + 1] == '<' && code[j + 2] == '<') {
			*kind = OT_CALL_LAUNCH; /* kernel<float><<<grid, block>>>(...) */
			return true;
		}
		if (code[j] == '{' && functor_call(code, len, j)) {
			*kind = OT_CALL_FUNCTOR; /* GRUCell<CellParams>{}(...) */
			return true;
		}
		if (code[j] != '(')
			return false;
		*kind = OT_CALL_PLAIN;
		return true;
	}
}

/* Copy [s, e) of the code view, blanks dropped but for one space between
 * two words ("at :: Half" -> "at::Half", "unsigned  int" -> "unsigned int"). */
static const char *copy_collapsed(ot_arena *arena, const char *c, size_t s, size_t e)
{
	char *out = ot_arena_alloc(arena, e - s + 1), *o = out;
	bool blank = false;
	for (size_t i = s; i < e; i++) {
		char ch = c[i];
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
			blank = true;
			continue;
		}
		if (blank && o > out && ot_is_ident_char(o[-1]) && ot_is_ident_char(ch))
			*o++ = ' ';
		blank = false;
		*o++ = ch;
	}
	*o = '\0';
	return out;
}

/* ---- guards: the conditions parts of a function body run under ------------------ */

static uint16_t cur_guard(const struct walker *w)
{
	return w->nscopes ? w->scopes[w->nscopes - 1].guard : 0;
}

/* Call `call` (its name and qualifier set) at offset `at`, of `kind`, under
 * the walk's current arm and guard. */
static void push_call(struct walker *w, ot_ix_call call, size_t at, uint8_t kind)
{
	call.line = line_of(w, at);
	call.off = (uint32_t)at;
	call.pp = w->arm;
	call.guard = cur_guard(w);
	call.kind = kind;
	ot_vec_push(&w->calls, call);
}

/* A new guard under the current one; its 1-based id (the current one's
 * when the table is full). */
static uint16_t add_guard(struct walker *w, uint8_t kind, const char *text, size_t at,
			  uint16_t prev)
{
	/* the code after a chain that leaves runs on past the arm the chain is in */
	ot_ix_guard g = {text, line_of(w, at), cur_guard(w), prev, kind, false, false,
			 kind == OT_GUARD_AFTER ? 0 : w->arm, NULL, false};
	if (w->guards.len >= UINT16_MAX - 1)
		return cur_guard(w);
	ot_vec_push(&w->guards, g);
	return (uint16_t)w->guards.len;
}

/* Is [from, to) of the code view blanks only? */
static bool only_blanks(const char *c, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (c[i] != ' ' && c[i] != '\t' && c[i] != '\n' && c[i] != '\r')
			return false;
	return true;
}

static void push_scope(struct walker *w, struct scope_guard sc)
{
	sc.arm = w->arm;
	if (w->nscopes < MAX_SCOPES)
		w->scopes[w->nscopes++] = sc;
}

/* The offset of the ')' matching the '(' at `open`, or 0. */
static size_t match_paren(const char *c, size_t len, size_t open)
{
	int depth = 0;
	size_t limit = open + 65536 < len ? open + 65536 : len;
	for (size_t i = open; i < limit; i++) {
		if (c[i] == '(')
			depth++;
		else if (c[i] == ')' && --depth == 0)
			return i;
	}
	return 0;
}

/* The next non-blank offset at or after i (a preprocessor marker stops it). */
static size_t next_code(const char *c, size_t len, size_t i)
{
	while (i < len && (c[i] == ' ' || c[i] == '\t' || c[i] == '\n' || c[i] == '\r'))
		i++;
	return i;
}

/* Does the word `word` start at offset i? */
static bool word_at(const char *c, size_t len, size_t i, const char *word)
{
	size_t n = strlen(word);
	return i + n <= len && !memcmp(c + i, word, n) && (i + n == len || !ot_is_ident_char(c[i + n]));
}

/* A condition's text: [s, e) of the code view, each run of blanks one
 * space, at most 480 bytes (a longer one is cut and ends in " ..."). */
static const char *cond_text(struct walker *w, size_t s, size_t e)
{
	while (s < e && (w->code[s] == ' ' || w->code[s] == '\t' || w->code[s] == '\n'))
		s++;
	ot_buf b = OT_BUF_INIT;
	const char *out;
	bool blank = false;
	for (size_t i = s; i < e && b.size < 480; i++) {
		char ch = w->code[i];
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
			blank = true;
			continue;
		}
		if (blank && b.size)
			ot_buf_putc(&b, ' ');
		blank = false;
		if ((ch == '"' || ch == '\'') && w->text) {
			/* the code view blanks a literal's contents: quote it as written */
			size_t k = i + 1;
			while (k < e && w->code[k] != ch)
				k++;
			if (k < e && k - i < 200) {
				for (size_t j = i; j <= k; j++)
					ot_buf_putc(&b, w->text[j] == '\n' ? ' ' : w->text[j]);
				i = k;
				continue;
			}
		}
		ot_buf_putc(&b, ch);
	}
	if (b.size >= 480)
		ot_buf_puts(&b, " ...");
	out = ot_arena_strndup(w->arena, b.ptr ? b.ptr : "", b.size);
	ot_buf_free(&b);
	return out;
}

/* The innermost if/else/case arm whose own top level the walk is at. */
static struct scope_guard *top_arm(struct walker *w)
{
	for (int k = w->nscopes - 1; k >= 0; k--) {
		struct scope_guard *sc = &w->scopes[k];
		if (sc->kind == SC_AFTER || sc->kind == SC_CHECK || sc->kind == SC_CHECK_COND ||
		    sc->kind == SC_COND)
			continue;
		if (sc->kind == SC_CASE)
			return w->depth == sc->depth ? sc : NULL;
		if (sc->kind != SC_ARM)
			return NULL;
		return w->depth == sc->depth + (sc->braced ? 1 : 0) ? sc : NULL;
	}
	return NULL;
}

/* Is the walk at the open body's own top level: no arm, check, loop or
 * lambda around it, and in the body's own preprocessor arm? */
static bool at_body_top(const struct walker *w)
{
	return w->func >= 0 && !w->nscopes && w->depth == w->func_depth &&
	       w->arm == w->out->cdefs.items[w->func].pp;
}

static void mark_arm(struct walker *w, bool raises, size_t at)
{
	struct scope_guard *sc = top_arm(w);
	if (raises && at_body_top(w)) {
		/* a statement of the body's own that throws: every call that no
		 * return before it (in a loop, a switch, an #if arm) has left
		 * raises here */
		ot_ix_cdef *d = &w->out->cdefs.items[w->func];
		if (!w->returned && !d->fails)
			d->fails = line_of(w, at);
		return;
	}
	/* a return or a failed check in an #if alternative inside the arm
	 * (the "compiled without X" branch) is not the arm's */
	if (sc && sc->arm != w->arm)
		return;
	if (sc && sc->guard && sc->guard <= w->guards.len) {
		ot_ix_guard *g = &w->guards.items[sc->guard - 1];
		if (raises)
			g->raises = true;
		else
			g->exits = true;
	}
	/* a return inside an inner arm: the arms around it may leave too */
	for (int k = w->nscopes - 1; !raises && k >= 0; k--) {
		const struct scope_guard *o = &w->scopes[k];
		if (o != sc && (o->kind == SC_ARM || o->kind == SC_CASE) && o->guard &&
		    o->guard <= w->guards.len)
			w->guards.items[o->guard - 1].may_exit = true;
	}
}

/* An if chain has ended with arm `last`: when one of its arms leaves the
 * block (return, throw), the rest of the block runs only when none of them
 * was taken. */
static void finish_chain(struct walker *w, uint16_t last, size_t at, int paren)
{
	bool leaves = false, all_leave = last && last <= w->guards.len &&
					  w->guards.items[last - 1].kind == OT_GUARD_ELSE,
	     all_raise = all_leave;
	const struct scope_guard *outer = w->nscopes ? &w->scopes[w->nscopes - 1] : NULL;
	for (uint16_t g = last; g && g <= w->guards.len; g = w->guards.items[g - 1].prev) {
		const ot_ix_guard *a = &w->guards.items[g - 1];
		leaves = leaves || a->exits || a->raises || a->may_exit;
		all_leave = all_leave && (a->exits || a->raises);
		all_raise = all_raise && a->raises;
		if (a->kind == OT_GUARD_IF)
			break;
	}
	/* if (...) { return a; } else { return b; }: the arm the chain is in
	 * leaves as surely as with a return of its own (a chain at the body's
	 * top level whose every arm raises is no one failing statement: the
	 * body's `fails` stays unset) */
	if (all_leave && !(all_raise && at_body_top(w)))
		mark_arm(w, all_raise, at);
	/* the chain is the single statement of an arm: nothing follows it there */
	if (outer && outer->kind == SC_ARM && !outer->braced && outer->depth == w->depth)
		return;
	if (leaves) {
		uint16_t g = add_guard(w, OT_GUARD_AFTER, NULL, at, last);
		push_scope(w, (struct scope_guard){0, SC_AFTER, false, g, w->depth, paren, 0, NULL, 0, 0});
	}
}

/* The arm on top of the scopes has ended at offset `at` (its ';' or '}'). */
static void end_arm(struct walker *w, size_t at, int paren)
{
	uint16_t g = w->scopes[--w->nscopes].guard;
	size_t n = next_code(w->code, w->len, at + 1);
	if (word_at(w->code, w->len, n, "else")) {
		w->chain = g;
		w->chain_at = n;
		return;
	}
	finish_chain(w, g, at, paren);
}

static bool is_check_macro(const char *s, size_t n)
{
	return (n >= 11 && !memcmp(s, "TORCH_CHECK", 11)) ||
	       (n >= 21 && !memcmp(s, "TORCH_INTERNAL_ASSERT", 21)) ||
	       (n >= 10 && !memcmp(s, "TORCH_WARN", 10)) || word_eq(s, n, "AT_ASSERT") ||
	       word_eq(s, n, "AT_ASSERTM") || word_eq(s, n, "TORCH_SYM_CHECK");
}

static bool is_error_macro(const char *s, size_t n)
{
	return word_eq(s, n, "AT_ERROR") || word_eq(s, n, "C10_THROW_ERROR") ||
	       word_eq(s, n, "TORCH_CHECK_NOT_IMPLEMENTED_ALWAYS");
}

/* A `return expr;` at offset s: recorded (OT_CALL_RETURN) when it returns
 * from the function itself: every brace between the body and it belongs to
 * an if/else or switch block, not to a lambda or a loop. */
static void record_return(struct walker *w, size_t s, size_t e)
{
	int braced = 0;
	size_t end;
	ot_ix_call call = {0};
	for (int k = 0; k < w->nscopes; k++)
		if ((w->scopes[k].kind == SC_ARM || w->scopes[k].kind == SC_SWITCH) && w->scopes[k].braced)
			braced++;
	if (w->depth - w->func_depth != braced)
		return;
	for (end = e; end < w->len && w->code[end] != ';' && w->code[end] != '}' && end - e < 400; end++)
		;
	call.name = "return";
	call.qual = cond_text(w, e, end);
	push_call(w, call, s, OT_CALL_RETURN);
}

/*
 * A word of a function body that shapes its guards: if, else, switch,
 * case, default, return, throw, and the checking macros. Returns true when
 * the word is one of them (it is then no call).
 */
static bool body_keyword(struct walker *w, size_t s, size_t e, int paren)
{
	const char *c = w->code;
	size_t n = e - s, open, close;
	switch (c[s]) {
	case 'i':
		if (!word_eq(c + s, n, "if"))
			return false;
		open = next_code(c, w->len, e);
		if (word_at(c, w->len, open, "constexpr"))
			open = next_code(c, w->len, open + 9);
		/* `if C10_UNLIKELY (cond)`: the macro wraps the parenthesized condition */
		if (word_at(c, w->len, open, "C10_LIKELY"))
			open = next_code(c, w->len, open + 10);
		else if (word_at(c, w->len, open, "C10_UNLIKELY"))
			open = next_code(c, w->len, open + 12);
		if (open >= w->len || c[open] != '(' || !(close = match_paren(c, w->len, open)))
			return true;
		w->pending = (struct pending_guard){true, w->chain_at == s + 1 ? OT_GUARD_ELSE_IF : OT_GUARD_IF,
						    close, cond_text(w, open + 1, close), line_of(w, s), 0};
		if (w->pending.kind == OT_GUARD_ELSE_IF) {
			w->pending.prev = w->chain;
			/* what the condition calls runs only when no earlier arm was
			 * taken: `else if (params.use_mkldnn(...))` after use_cudnn */
			push_scope(w, (struct scope_guard){0, SC_COND, false,
							   add_guard(w, OT_GUARD_ELSE, NULL, s, w->chain),
							   w->depth, paren, close, NULL, 0, 0});
			w->chain = 0;
			w->chain_at = 0;
		}
		return true;
	case 'e': {
		uint16_t prev = 0;
		size_t after;
		if (!word_eq(c + s, n, "else"))
			return false;
		if (w->chain && w->chain_at == s)
			prev = w->chain;
		w->chain = 0;
		after = next_code(c, w->len, e);
		if (word_at(c, w->len, after, "if")) {
			/* `else if`: the if takes the chain (chain_at marks it) */
			w->chain = prev;
			w->chain_at = after + 1;
			return true;
		}
		w->chain_at = 0;
		push_scope(w, (struct scope_guard){0, SC_ARM, after < w->len && c[after] == '{',
						   add_guard(w, OT_GUARD_ELSE, NULL, s, prev), w->depth,
						   paren, 0, NULL, 0, 0});
		return true;
	}
	case 's':
		if (!word_eq(c + s, n, "switch"))
			return false;
		open = next_code(c, w->len, e);
		if (open < w->len && c[open] == '(' && (close = match_paren(c, w->len, open)))
			w->pending = (struct pending_guard){true, 0xff, close,
							    cond_text(w, open + 1, close), line_of(w, s), 0};
		return true;
	case 'c':
	case 'd': {
		const struct scope_guard *sw;
		struct scope_guard *top = w->nscopes ? &w->scopes[w->nscopes - 1] : NULL;
		size_t k, label_end;
		const char *text;
		if (!word_eq(c + s, n, "case") && !word_eq(c + s, n, "default"))
			return false;
		for (k = e; k < w->len && k < e + 400; k++)
			if (c[k] == ':' && c[k + 1] != ':' && c[k - 1] != ':')
				break;
		label_end = k;
		text = c[s] == 'd' ? "default" : ot_arena_printf(w->arena, "case %s", cond_text(w, e, label_end));
		if (top && top->kind == SC_CASE && top->depth == w->depth && top->guard &&
		    top->guard <= w->guards.len && only_blanks(c, top->end + 1, s)) {
			/* labels in a row (`case A: case B:`) share one body: one
			 * guard, taken for any of them */
			ot_ix_guard *g = &w->guards.items[top->guard - 1];
			g->text = ot_arena_printf(w->arena, "%s or %s", g->text, text);
			top->end = label_end;
			return true;
		}
		/* the case before ends here, with what its returning if chains
		 * left open (SC_AFTER) */
		while (w->nscopes &&
		       (w->scopes[w->nscopes - 1].kind == SC_CASE || w->scopes[w->nscopes - 1].kind == SC_AFTER) &&
		       w->scopes[w->nscopes - 1].depth == w->depth) {
			bool was_case = w->scopes[w->nscopes - 1].kind == SC_CASE;
			w->nscopes--;
			if (was_case)
				break;
		}
		if (!w->nscopes || w->scopes[w->nscopes - 1].kind != SC_SWITCH ||
		    w->scopes[w->nscopes - 1].depth + 1 != w->depth)
			return true;
		sw = &w->scopes[w->nscopes - 1];
		{
			uint16_t g = add_guard(w, OT_GUARD_CASE, text, s, 0);
			if (g && g <= w->guards.len)
				w->guards.items[g - 1].subject = sw->subject;
			push_scope(w, (struct scope_guard){0, SC_CASE, false, g, w->depth, paren, label_end, NULL, 0, 0});
		}
		return true;
	}
	case 'r':
		if (!word_eq(c + s, n, "return"))
			return false;
		w->returned = true;
		mark_arm(w, false, s);
		record_return(w, s, e);
		return true;
	case 't':
		if (!word_eq(c + s, n, "throw"))
			return false;
		mark_arm(w, true, s);
		return true;
	case 'A':
	case 'C':
	case 'T':
		if (is_error_macro(c + s, n)) {
			mark_arm(w, true, s);
			return true;
		}
		if (!is_check_macro(c + s, n))
			return false;
		open = next_code(c, w->len, e);
		if (open >= w->len || c[open] != '(' || !(close = match_paren(c, w->len, open)))
			return true;
		{
			size_t a = open + 1, depth = 0;
			for (; a < close; a++) {
				if (c[a] == '(' || c[a] == '[' || c[a] == '{')
					depth++;
				else if ((c[a] == ')' || c[a] == ']' || c[a] == '}') && depth)
					depth--;
				else if (c[a] == ',' && !depth)
					break;
			}
			const char *first = cond_text(w, open + 1, a);
			bool warning = ot_starts_with(c + s, "TORCH_WARN");
			uint16_t g = add_guard(w, OT_GUARD_CHECK, first, s, 0);
			if (!strcmp(first, "false") && !warning)
				mark_arm(w, true, s);
			if (warning || memmem(c + s, n, "DEBUG_ONLY", 10))
				push_scope(w, (struct scope_guard){0, SC_CHECK, false, g, w->depth, paren,
								   close, NULL, 0, 0});
			else
				push_scope(w, (struct scope_guard){0, SC_CHECK_COND, false, cur_guard(w),
								   w->depth, paren, close, NULL, a, g});
		}
		return true;
	}
	return false;
}

/* The ')' at `at` closed parenthesis depth `paren` + 1. */
static void body_close_paren(struct walker *w, size_t at, int paren)
{
	while (w->nscopes) {
		struct scope_guard *sc = &w->scopes[w->nscopes - 1];
		if ((sc->kind == SC_CHECK || sc->kind == SC_CHECK_COND || sc->kind == SC_COND) &&
		    sc->end == at) {
			w->nscopes--;
			continue;
		}
		if ((sc->kind == SC_THEN || sc->kind == SC_OTHERWISE || sc->kind == SC_AND ||
		     sc->kind == SC_OR) &&
		    paren < sc->paren) {
			w->nscopes--;
			continue;
		}
		break;
	}
	if (w->pending.on && w->pending.close == at) {
		size_t n = next_code(w->code, w->len, at + 1);
		bool braced = n < w->len && w->code[n] == '{';
		w->pending.on = false;
		if (w->pending.kind == 0xff)
			push_scope(w, (struct scope_guard){0, SC_SWITCH, braced, cur_guard(w), w->depth,
							   paren, 0, w->pending.text, 0, 0});
		else
			push_scope(w, (struct scope_guard){0, SC_ARM, braced,
							   add_guard(w, w->pending.kind, w->pending.text,
								     at, w->pending.prev),
							   w->depth, paren, 0, NULL, 0, 0});
	}
}

/* A ';' (or ',' when `comma`) at parenthesis depth `paren`. */
static void body_separator(struct walker *w, size_t at, int paren, bool comma)
{
	while (w->nscopes) {
		struct scope_guard *sc = &w->scopes[w->nscopes - 1];
		if ((sc->kind == SC_THEN || sc->kind == SC_OTHERWISE || sc->kind == SC_AND ||
		     sc->kind == SC_OR) &&
		    paren <= sc->paren) {
			w->nscopes--;
			continue;
		}
		if (!comma && sc->kind == SC_ARM && !sc->braced && sc->depth == w->depth &&
		    sc->paren == paren) {
			end_arm(w, at, paren);
			if (w->chain)
				break; /* `if (a) x; else y;`: the chain goes on */
			continue;
		}
		break;
	}
	if (comma && w->nscopes) {
		struct scope_guard *sc = &w->scopes[w->nscopes - 1];
		if (sc->kind == SC_CHECK_COND && sc->message_at == at) {
			sc->kind = SC_CHECK; /* the message is built only when the check fails */
			sc->guard = sc->message_guard;
		}
	}
}

/* The '}' at `at` closed a block; the walk is now at brace depth w->depth. */
static void body_close_brace(struct walker *w, size_t at, int paren)
{
	while (w->nscopes) {
		struct scope_guard *sc = &w->scopes[w->nscopes - 1];
		if (sc->depth > w->depth) {
			w->nscopes--; /* its block is closed: an AFTER, CASE, ... */
			continue;
		}
		if (sc->kind == SC_SWITCH && sc->braced && sc->depth == w->depth) {
			w->nscopes--;
			break;
		}
		if (sc->kind == SC_ARM && sc->depth == w->depth && (sc->braced || sc->paren == paren)) {
			end_arm(w, at, paren);
			if (w->chain || sc->braced)
				break;
			continue;
		}
		break;
	}
}

/* A '?' at `at`: the condition is the operand before it. */
/* What the operand before an operator at `at` is: a ternary's condition,
 * the left side of `||`, or of `&&` (which binds tighter, so it stops at a
 * `&&` too). */
enum operand { OPERAND_TERNARY, OPERAND_OR, OPERAND_AND };

/* Does the '}' at `close` end a block (a statement, a body), not a braced
 * initializer (`T{a, b}`, `= {x}`, `f({0, 0})`)? A block's '{' follows a
 * ')', a ';', another brace, `else`, `do` or `try`, or nothing. */
static bool closes_block(const char *c, size_t lo, size_t close)
{
	int depth = 0;
	size_t k = close + 1;
	while (k > lo) {
		char ch = c[--k];
		if (ch == '}')
			depth++;
		else if (ch == '{' && --depth == 0)
			break;
	}
	if (depth || c[k] != '{')
		return false;
	while (k > lo && (c[k - 1] == ' ' || c[k - 1] == '\t' || c[k - 1] == '\n' || c[k - 1] == '\r'))
		k--;
	if (k <= lo)
		return true;
	if (strchr(");{}", c[k - 1]))
		return true;
	static const char *const words[] = {"do", "try", "else"};
	for (size_t w = 0; w < OT_ARRAY_LEN(words); w++) {
		size_t n = strlen(words[w]);
		if (k >= lo + n && !memcmp(c + k - n, words[w], n) &&
		    (k == lo + n || !ot_is_ident_char(c[k - n - 1])))
			return true;
	}
	return false;
}

/* Where that operand starts: back from `at` to a `(`, `,`, `;`, `?`, `:`
 * or `=` at its depth (or a `||`, or `&&`, as `kind` says). */
static size_t operand_start(const struct walker *w, size_t at, enum operand kind)
{
	const char *c = w->code;
	size_t j = at, lo = w->func >= 0 ? w->out->cdefs.items[w->func].body + 1 : 0;
	int depth = 0;
	while (j > lo) {
		char ch = c[j - 1];
		if (!depth && ch == '}' && closes_block(c, lo, j - 1))
			break; /* `if (...) { ... } return a ? b : c;`: the block is a statement */
		if (ch == ')' || ch == ']' || ch == '}')
			depth++;
		else if (ch == '(' || ch == '[' || ch == '{') {
			if (!depth)
				break;
			depth--;
		} else if (!depth) {
			if (ch == ',' || ch == ';' || ch == '?')
				break;
			if (kind != OPERAND_TERNARY && j >= 2 &&
			    ((ch == '|' && c[j - 2] == '|') || (kind == OPERAND_AND && ch == '&' && c[j - 2] == '&')))
				break;
			if (ch == ':' && c[j - 2] != ':' && c[j] != ':')
				break;
			if (ch == '=' && !strchr("=!<>", c[j - 2]) && c[j] != '=')
				break;
		}
		j--;
	}
	j = next_code(c, at, j);
	if (word_at(c, at, j, "return"))
		j += 6;
	return j;
}

/* The right operands of `&&` (and of `||` when `or_too`) at parenthesis
 * depth `paren` end here: a `||` ends the `&&` ones (`a && b || c`: c does
 * not need a), a ternary's `?` or `:` both. */
static void end_operands(struct walker *w, int paren, bool or_too)
{
	while (w->nscopes && w->scopes[w->nscopes - 1].paren == paren &&
	       (w->scopes[w->nscopes - 1].kind == SC_AND ||
		(or_too && w->scopes[w->nscopes - 1].kind == SC_OR)))
		w->nscopes--;
}

/* Is the `&&` at `at` the logical and, not an rvalue reference
 * (`auto&& x`, `Args&&... args`)? Formatted code writes the operator with
 * a blank on each side. */
static bool logical_and_at(const char *c, size_t len, size_t at)
{
	return at > 0 && (c[at - 1] == ' ' || c[at - 1] == '\n' || c[at - 1] == ')') && at + 2 < len &&
	       (c[at + 2] == ' ' || c[at + 2] == '\n');
}

/* A `&&` at `at` (`or`: a `||`): what follows at this depth runs only when
 * the operand before it holds (fails), back to a `(`, `,`, `;`, `?`, `=`,
 * `||` or, for `&&`, which binds tighter, a `&&`. */
static void body_logical(struct walker *w, size_t at, int paren, bool or)
{
	size_t j = operand_start(w, at, or ? OPERAND_OR : OPERAND_AND);
	if (or)
		end_operands(w, paren, false);
	if (j >= at)
		return;
	{
		uint16_t g = add_guard(w, OT_GUARD_THEN, cond_text(w, j, at), at, 0);
		if (or) /* the operand's negation, as a ternary's otherwise arm */
			g = add_guard(w, OT_GUARD_OTHERWISE, NULL, at, g);
		push_scope(w, (struct scope_guard){0, or ? SC_OR : SC_AND, false, g, w->depth, paren, 0,
						   NULL, 0, 0});
	}
}

static void body_question(struct walker *w, size_t at, int paren)
{
	size_t j = operand_start(w, at, OPERAND_TERNARY);
	const char *text = cond_text(w, j, at);
	end_operands(w, paren, true);
	push_scope(w, (struct scope_guard){0, SC_THEN, false, add_guard(w, OT_GUARD_THEN, text, at, 0),
					   w->depth, paren, 0, NULL, 0, 0});
}

/* A single ':' at `at`: the end of a ternary's second operand? */
static void body_colon(struct walker *w, size_t at, int paren)
{
	struct scope_guard *sc;
	uint16_t then;
	end_operands(w, paren, true);
	if (!w->nscopes)
		return;
	sc = &w->scopes[w->nscopes - 1];
	if (sc->kind != SC_THEN || sc->paren != paren)
		return;
	then = sc->guard;
	w->nscopes--;
	push_scope(w, (struct scope_guard){0, SC_OTHERWISE, false,
					   add_guard(w, OT_GUARD_OTHERWISE, NULL, at, then), w->depth,
					   paren, 0, NULL, 0, 0});
}

/* The launch macro `s` names at offset `at`: its last #define before
 * there (SMALL_INDEX is defined, #undef'd and defined again for another
 * kernel in one file). */
static const struct launch_macro *find_launch_macro(const struct walker *w, const char *s,
						    size_t n, size_t at)
{
	const struct launch_macro *m = NULL;
	for (size_t i = 0; i < w->nlaunch_macros; i++)
		if (strlen(w->launch_macros[i].name) == n && !memcmp(w->launch_macros[i].name, s, n) &&
		    w->launch_macros[i].at < at && (!m || w->launch_macros[i].at > m->at))
			m = &w->launch_macros[i];
	return m;
}

/*
 * `end` just past the '>' closing template arguments (Foo<T, 2>): where the
 * '<' that opens them is, when what lies between reads as template
 * arguments (names, numbers, blanks, ',', '::', '*', '&', nested <...>) and
 * an identifier comes before it; otherwise `end` itself.
 */
static size_t template_args_start(const char *c, size_t end)
{
	int depth = 0;
	for (size_t i = end; i > 0 && end - i < 200; i--) {
		char ch = c[i - 1];
		if (ch == '>')
			depth++;
		else if (ch == '<' && --depth == 0)
			return i >= 2 && ot_is_ident_char(c[i - 2]) ? i - 1 : end;
		else if (!ot_is_ident_char(ch) && !strchr(" \t,:*&", ch))
			return end;
	}
	return end;
}

static void record_call(struct walker *w, size_t start, size_t end, uint8_t kind)
{
	const char *c = w->code;
	size_t qs = start, p = start;
	ot_ix_call call = {0};

	if (is_not_call(c + start, end - start))
		return;
	if (kind != OT_CALL_LAUNCH && is_macro_name(c + start, end - start)) {
		const struct launch_macro *m = find_launch_macro(w, c + start, end - start, start);
		if (m) {
			call.name = ot_arena_strdup(w->arena, m->kernel);
			call.qual = ot_arena_strdup(w->arena, m->name);
			push_call(w, call, start, OT_CALL_MACRO_LAUNCH);
		}
		return;
	}
	/* look back for "x::" chains or a member access */
	for (;;) {
		size_t b = p;
		while (b > 0 && (c[b - 1] == ' ' || c[b - 1] == '\t'))
			b--;
		if (b >= 2 && c[b - 1] == ':' && c[b - 2] == ':') {
			size_t e = b - 2, s;
			while (e > 0 && (c[e - 1] == ' ' || c[e - 1] == '\t'))
				e--;
			if (e > 0 && c[e - 1] == '>')
				e = template_args_start(c, e); /* Foo<T, 2>::name */
			s = e;
			while (s > 0 && ot_is_ident_char(c[s - 1]))
				s--;
			if (s == e) {
				qs = b - 2; /* ::name (global scope) */
				break;
			}
			qs = s;
			p = s;
			continue;
		}
		if (p == start && ((b >= 1 && c[b - 1] == '.') ||
				   (b >= 2 && c[b - 1] == '>' && c[b - 2] == '-')))
			kind = kind == OT_CALL_LAUNCH || kind == OT_CALL_REF ? kind : OT_CALL_MEMBER;
		break;
	}
	call.name = ot_arena_strndup(w->arena, c + start, end - start);
	if (qs < start && c[qs] == ':') {
		call.qual = "::"; /* ::name: the global namespace's, never at::'s */
	} else if (qs < start) {
		size_t qe = start;
		while (qe > qs && (c[qe - 1] == ':' || c[qe - 1] == ' ' || c[qe - 1] == '\t'))
			qe--;
		call.qual = ot_scan_copy_qual(w->arena, c + qs, qe - qs);
	} else {
		call.qual = "";
	}
	push_call(w, call, start, kind);
}

static void pp_save(const struct walker *w, struct pp_state *s)
{
	size_t n = (size_t)w->depth;
	s->depth = w->depth;
	s->lost = w->lost;
	s->func = w->func;
	s->func_depth = w->func_depth;
	free(s->ns);
	s->ns = ot_strdup(w->ns);
	s->stack = ot_realloc(s->stack, (n ? n : 1) * sizeof(*s->stack));
	s->keeps_head = ot_realloc(s->keeps_head, (n ? n : 1) * sizeof(*s->keeps_head));
	s->ns_len = ot_realloc(s->ns_len, (n ? n : 1) * sizeof(*s->ns_len));
	memcpy(s->stack, w->stack, n * sizeof(*s->stack));
	memcpy(s->keeps_head, w->keeps_head, n * sizeof(*s->keeps_head));
	memcpy(s->ns_len, w->ns_len, n * sizeof(*s->ns_len));
	s->nscopes = w->nscopes;
}

static void pp_restore(struct walker *w, const struct pp_state *s, bool drop_open)
{
	/* at #endif, a function the #else branch opened and left open is a
	 * second header of the one the first branch opened: forget it */
	if (drop_open && w->func >= 0 && w->func != s->func &&
	    (size_t)w->func == w->out->cdefs.len - 1)
		w->out->cdefs.len--;
	w->depth = s->depth;
	w->lost = s->lost;
	w->func = s->func;
	w->func_depth = s->func_depth;
	snprintf(w->ns, sizeof(w->ns), "%s", s->ns);
	memcpy(w->stack, s->stack, (size_t)s->depth * sizeof(*w->stack));
	memcpy(w->keeps_head, s->keeps_head, (size_t)s->depth * sizeof(*w->keeps_head));
	memcpy(w->ns_len, s->ns_len, (size_t)s->depth * sizeof(*w->ns_len));
	if (w->nscopes > s->nscopes)
		w->nscopes = s->nscopes;
	w->pending.on = false;
}

/* The directive whose '#' is at `at` of the raw text: its keyword ("if",
 * "ifdef", "elif", ...) into kw, and its expression (continuations joined,
 * comments dropped, blanks collapsed) into the arena, or NULL when empty. */
static const char *read_directive(struct walker *w, size_t at, char *kw, size_t kwn)
{
	const char *t = w->text;
	size_t i = at + 1, k = 0, end = w->len;
	ot_buf b = OT_BUF_INIT;
	const char *out = NULL;
	bool blank = false;
	while (i < end && (t[i] == ' ' || t[i] == '\t'))
		i++;
	while (i < end && ot_is_ident_char(t[i]) && k + 1 < kwn)
		kw[k++] = t[i++];
	kw[k] = '\0';
	while (i < end && t[i] != '\n' && b.size < 480) {
		char ch = t[i];
		if (ch == '\\' && (i + 1 >= end || t[i + 1] == '\n' || t[i + 1] == '\r')) {
			i += t[i + 1] == '\r' ? 3 : 2; /* a continuation */
			blank = true;
			continue;
		}
		if (ch == '/' && i + 1 < end && t[i + 1] == '/')
			break;
		if (ch == '/' && i + 1 < end && t[i + 1] == '*') {
			const char *ce = memmem(t + i + 2, end - i - 2, "*/", 2);
			i = ce ? (size_t)(ce - t) + 2 : end;
			blank = true;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r') {
			blank = true;
			i++;
			continue;
		}
		if (blank && b.size && ot_is_ident_char(b.ptr[b.size - 1]) && ot_is_ident_char(ch))
			ot_buf_putc(&b, ' ');
		blank = false;
		ot_buf_putc(&b, ch);
		i++;
	}
	if (b.size)
		out = ot_arena_strndup(w->arena, b.ptr, b.size);
	ot_buf_free(&b);
	return out;
}

/* A new preprocessor arm: its id (1-based). */
static uint32_t new_arm(struct walker *w, const char *expr, uint32_t parent, uint32_t prev,
			size_t at)
{
	ot_ix_pparm a = {expr, parent, prev, line_of(w, at)};
	ot_vec_push(&w->out->pparms, a);
	return (uint32_t)w->out->pparms.len;
}

/* The arm a `#if`, `#ifdef` or `#ifndef` at `at` opens. */
/* Is the directive after the one at `at` "#define NAME" (an include guard)? */
static bool defines_next(const struct walker *w, size_t at, const char *name)
{
	const char *t = w->text, *end = t + w->len, *nl = memchr(t + at, '\n', w->len - at);
	size_t n = strlen(name);
	if (!nl)
		return false;
	for (const char *p = nl + 1; p < end; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			continue;
		if (*p++ != '#')
			return false;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (end - p < 7 || memcmp(p, "define", 6) || (p[6] != ' ' && p[6] != '\t'))
			return false;
		for (p += 7; p < end && (*p == ' ' || *p == '\t'); p++)
			;
		return (size_t)(end - p) >= n && !memcmp(p, name, n) &&
		       (p + n == end || !ot_is_ident_char(p[n]));
	}
	return false;
}

static void arm_open(struct walker *w, size_t at)
{
	char kw[16];
	const char *expr = read_directive(w, at, kw, sizeof(kw));
	if (expr && !strcmp(kw, "ifndef") && defines_next(w, at, expr)) {
		/* an include guard: the whole file, not an alternative */
		if (w->pp_depth < PP_MAX)
			w->arm_stack[w->pp_depth] = w->arm;
		return;
	}
	if (expr && !strcmp(kw, "ifdef"))
		expr = ot_arena_printf(w->arena, "defined(%s)", expr);
	else if (expr && !strcmp(kw, "ifndef"))
		expr = ot_arena_printf(w->arena, "!defined(%s)", expr);
	if (w->pp_depth < PP_MAX)
		w->arm_stack[w->pp_depth] = w->arm;
	w->arm = new_arm(w, expr, w->arm, 0, at);
}

/* The arm an `#elif` or `#else` at `at` opens in the chain of the current one. */
static void arm_next(struct walker *w, size_t at)
{
	char kw[16];
	const char *expr = read_directive(w, at, kw, sizeof(kw));
	uint32_t parent = w->arm ? w->out->pparms.items[w->arm - 1].parent : 0;
	if (strcmp(kw, "elif"))
		expr = NULL; /* #else */
	w->arm = new_arm(w, expr, parent, w->arm, at);
}

static void arm_close(struct walker *w)
{
	if (w->pp_depth >= 1 && w->pp_depth <= PP_MAX)
		w->arm = w->arm_stack[w->pp_depth - 1];
	else if (w->arm)
		w->arm = w->out->pparms.items[w->arm - 1].parent;
}

static void pp_if(struct walker *w, size_t at)
{
	arm_open(w, at);
	if (w->pp_depth < PP_MAX) {
		struct pp_frame *f = &w->pp[w->pp_depth];
		f->in_else = false;
		pp_save(w, &f->at_if);
	}
	w->pp_depth++;
}

static void pp_else(struct walker *w, size_t at, size_t *head_start, int *paren, size_t after)
{
	struct pp_frame *f;
	arm_next(w, at);
	if (w->pp_depth < 1 || w->pp_depth > PP_MAX)
		return;
	f = &w->pp[w->pp_depth - 1];
	if (!f->in_else) {
		pp_save(w, &f->first_end);
		f->in_else = true;
	}
	pp_restore(w, &f->at_if, false);
	*head_start = after;
	*paren = 0;
}

static void pp_endif(struct walker *w)
{
	if (w->pp_depth < 1)
		return;
	arm_close(w);
	w->pp_depth--;
	if (w->pp_depth < PP_MAX && w->pp[w->pp_depth].in_else)
		pp_restore(w, &w->pp[w->pp_depth].first_end, true);
}

/* Is the head [start, at) inside a constructor's initializer list, i.e. does
 * it contain ")" followed by a single ":" at parenthesis depth 0? */
static bool in_ctor_initializer(const char *c, size_t start, size_t at)
{
	int depth = 0;
	bool after_paren = false;
	for (size_t i = start; i < at; i++) {
		char ch = c[i];
		if (ch == '(') {
			depth++;
		} else if (ch == ')') {
			if (depth > 0)
				depth--;
			after_paren = depth == 0;
			continue;
		} else if (ch == ':' && depth == 0 && after_paren && !(i + 1 < at && c[i + 1] == ':')) {
			return true;
		}
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			after_paren = false;
	}
	return false;
}

/* Is the '{' at `at` a member's brace initializer (`b_{x}`, `Base<T>{x}`),
 * not the constructor's body (after `b_(x)` or `b_{x}`)? */
static bool brace_init(const char *c, size_t start, size_t at)
{
	size_t i = at;
	while (i > start && (c[i - 1] == ' ' || c[i - 1] == '\t' || c[i - 1] == '\n' || c[i - 1] == '\r'))
		i--;
	return i > start && (ot_is_ident_char(c[i - 1]) || c[i - 1] == '>');
}

/* An argument of a call or macro invocation: [start, end) of the code view. */
struct arg {
	size_t start, end;
};

#define MAX_MACRO_ARGS 64

/* A macro invoked at namespace or class scope, NAME(args...) with the '('
 * at `open` and the ')' at `close`: kept with every argument, so that the
 * index can expand the macros that build function names (ot_ix_macro). */
static void record_invocation(struct walker *w, size_t name_s, size_t name_e, size_t open,
			      size_t close)
{
	const char *c = w->code;
	struct arg args[MAX_MACRO_ARGS];
	size_t nargs = 0, start = open + 1;
	int depth = 0;
	ot_ix_minvoke inv = {0};
	const char **vals;

	/* the preprocessor's split: only parentheses nest ("<" is an argument:
	 * FOREACH_MAXIMUM_MINIMUM_OP(minimum, <)) */
	for (size_t i = open + 1; i <= close; i++) {
		char ch = c[i];
		if (ch == '(')
			depth++;
		else if (i < close && ch == ')')
			depth--;
		else if (i == close || (ch == ',' && depth == 0)) {
			if (nargs == MAX_MACRO_ARGS)
				return; /* more arguments than any macro we expand takes */
			args[nargs++] = (struct arg){start, i};
			start = i + 1;
		}
	}
	vals = ot_arena_alloc(w->arena, (nargs ? nargs : 1) * sizeof(*vals));
	for (size_t k = 0; k < nargs; k++)
		vals[k] = copy_collapsed(w->arena, c, args[k].start, args[k].end);
	inv.macro = ot_arena_strndup(w->arena, c + name_s, name_e - name_s);
	inv.args = vals;
	inv.nargs = (uint16_t)nargs;
	/* the raw text, so that the shown invocation is a substring of its line */
	inv.text = memchr(w->text + name_s, '\n', close + 1 - name_s)
			   ? inv.macro
			   : ot_arena_strndup(w->arena, w->text + name_s, close + 1 - name_s);
	inv.ns = ot_arena_strdup(w->arena, w->ns);
	inv.file = w->file;
	inv.line = line_of(w, name_s);
	inv.pp = w->arm;
	inv.in_class = w->depth > 0 && w->stack[w->depth - 1] == SCOPE_CLASS;
	ot_vec_push(&w->invokes, inv);
}

/*
 * A macro invoked at namespace scope, NAME(first, args...): when `first` is
 * an identifier it may be what the macro defines. CREATE_*_TORCH_IMPL_FUNC
 * and *_META_FUNC* macros define structured kernels; others (ONE_HIDDEN_RNN,
 * ...) are kept as a last resort for names with no definition of their own.
 * The remaining identifier arguments are recorded as calls, so a stub passed
 * to the macro is followed like one called in a body.
 */
static void record_macro_site(struct walker *w, size_t name_s, size_t name_e)
{
	const char *c = w->code;
	size_t i = name_e, end, a, fs, fe;
	int depth = 0;
	ot_ix_cdef d = {0};
	OT_VEC(ot_ix_call) args = {0};

	for (size_t m = 0; m < OT_ARRAY_LEN(impl_macros); m++)
		if (word_eq(c + name_s, name_e - name_s, impl_macros[m]))
			return;
	while (i < w->len && (c[i] == ' ' || c[i] == '\t'))
		i++;
	if (i >= w->len || c[i] != '(')
		return;
	for (end = i; end < w->len && end - i < 4096; end++) {
		if (c[end] == '(')
			depth++;
		else if (c[end] == ')' && --depth == 0)
			break;
		else if (c[end] == ';' || c[end] == '{' || c[end] == '}')
			return;
	}
	if (end >= w->len || c[end] != ')')
		return;
	record_invocation(w, name_s, name_e, i, end);
	if (memmem(c + name_s, name_e - name_s, "DISPATCH", 8)) {
		/* stub sites take their namespace and preprocessor arm from here */
		struct site_context sc = {name_s, ot_arena_strdup(w->arena, w->ns), w->arm};
		ot_vec_push(&w->sites, sc);
	}
	/* the first argument must be a plain identifier */
	for (fs = i + 1; fs < end && (c[fs] == ' ' || c[fs] == '\t' || c[fs] == '\n'); fs++)
		;
	for (fe = fs; fe < end && ot_is_ident_char(c[fe]); fe++)
		;
	if (fe == fs || !ot_is_ident_start(c[fs]))
		return;
	for (a = fe; a < end && (c[a] == ' ' || c[a] == '\t' || c[a] == '\n'); a++)
		;
	if (c[a] != ',' && c[a] != ')')
		return;
	if (memmem(c + name_s, name_e - name_s, "DISPATCH", 8))
		return; /* stub sites are scanned on their own */
	for (; a < end; a++) {
		if (ot_is_ident_start(c[a]) && !ot_is_ident_char(c[a - 1])) {
			size_t b = a;
			ot_ix_call call = {0};
			while (a < end && ot_is_ident_char(c[a]))
				a++;
			call.name = ot_arena_strndup(w->arena, c + b, a - b);
			call.qual = "";
			call.line = line_of(w, b);
			ot_vec_push(&args, call);
		}
	}
	d.macro = ot_arena_strndup(w->arena, c + name_s, name_e - name_s);
	d.kind = strstr(d.macro, "TORCH_IMPL_FUNC") ? OT_CDEF_IMPL
		 : strstr(d.macro, "META_FUNC")     ? OT_CDEF_META
						    : OT_CDEF_MACRO;
	d.name = ot_arena_strndup(w->arena, c + fs, fe - fs);
	d.qual = "";
	d.ns = ot_arena_strdup(w->arena, w->ns);
	d.file = w->file;
	d.line = line_of(w, fs);
	d.end_line = line_of(w, end);
	d.calls = OT_ARENA_VEC(w->arena, &args);
	d.ncalls = (uint32_t)args.len;
	ot_vec_free(&args);
	ot_vec_push(&w->out->cdefs, d);
}

/* Bytes the walker acts on: identifiers, numbers, brackets, ';', ':' and the
 * '#' of preprocessor markers. Everything else is skipped in runs. */
static bool walk_class[256];
static pthread_once_t walk_class_once = PTHREAD_ONCE_INIT;

static void init_walk_class(void)
{
	for (int ch = 0; ch < 256; ch++)
		walk_class[ch] = ot_is_ident_char(ch) || strchr("(){};:#?,+-*/=!<>&|", ch);
	walk_class[0] = false;
}

/* Does an argument end at `i` (the next character, blanks skipped, is ',' or
 * ')')? impl(self, dim, cumsum_stub) hands the stub over; a member access
 * (stub.is_device_supported()) does not. */
static bool ends_argument(const char *c, size_t len, size_t i)
{
	while (i < len && (c[i] == ' ' || c[i] == '\t' || c[i] == '\n' || c[i] == '\r'))
		i++;
	return i < len && (c[i] == ',' || c[i] == ')');
}

/* An OT_CALL_OPERATOR named `name` at offset `i`. */
static void push_operator(struct walker *w, size_t i, const char *name)
{
	ot_ix_call call = {0};
	call.name = name;
	call.qual = "";
	push_call(w, call, i, OT_CALL_OPERATOR);
}

/* The operator `len` long at offset `i` of a body, when an operand stands
 * before it (a name, a call, an index) and one after: an OT_CALL_OPERATOR
 * named `name` (the aten op it would be), for the classifier to judge by
 * the operands' types. */
static void record_operator(struct walker *w, size_t i, size_t len, const char *name)
{
	const char *c = w->code;
	size_t p = i, n = next_code(c, w->len, i + len);
	while (p > 0 && (c[p - 1] == ' ' || c[p - 1] == '\t' || c[p - 1] == '\n' || c[p - 1] == '\r'))
		p--;
	if (p == 0 || !(ot_is_ident_char(c[p - 1]) || c[p - 1] == ')' || c[p - 1] == ']') || n >= w->len ||
	    !(ot_is_ident_char(c[n]) || c[n] == '(' || c[n] == '-' || c[n] == '*' || c[n] == '!'))
		return;
	push_operator(w, i, name);
}

/* Is the '-' at offset `i` a unary minus of a name or a parenthesis: no
 * operand before it (an opening bracket, a separator, an operator or the
 * word `return`), a name or '(' after it? -1 and the like are numbers. */
static bool unary_minus_at(const struct walker *w, size_t i)
{
	const char *c = w->code;
	size_t p = i, n = next_code(c, w->len, i + 1);
	while (p > 0 && (c[p - 1] == ' ' || c[p - 1] == '\t' || c[p - 1] == '\n' || c[p - 1] == '\r'))
		p--;
	if (n >= w->len || !(isalpha((unsigned char)c[n]) || c[n] == '_' || c[n] == '('))
		return false;
	if (p == 0)
		return false;
	if (p >= 6 && !memcmp(c + p - 6, "return", 6) && (p == 6 || !ot_is_ident_char(c[p - 7])))
		return true;
	return strchr("(,=?:{[&|", c[p - 1]) != NULL;
}

/* A binary + - * / (or += -= *= /=) at offset `i` of a body: recorded as
 * an OT_CALL_OPERATOR for the classifier to judge by its operands' types;
 * a unary minus likewise, as "neg" (TensorOperators.h: -x is x.neg()).
 * Returns the offset of the operator's last character. */
static size_t body_operator(struct walker *w, size_t i)
{
	static const char *const plain[] = {"add", "sub", "mul", "div"};
	static const char *const inplace[] = {"add_", "sub_", "mul_", "div_"};
	const char *c = w->code;
	char ch = c[i], nx = i + 1 < w->len ? c[i + 1] : '\0';
	int which = ch == '+' ? 0 : ch == '-' ? 1 : ch == '*' ? 2 : 3;
	bool compound = nx == '=';
	if ((ch == '-' && nx == '>') || (nx == ch && ch != '*' && ch != '/'))
		return i + 1; /* ->, ++, -- */
	if (ch == '-' && !compound && unary_minus_at(w, i)) {
		push_operator(w, i, "neg");
		return i;
	}
	record_operator(w, i, compound ? 2 : 1, compound ? inplace[which] : plain[which]);
	return compound ? i + 1 : i;
}

/* A comparison at offset `i` of a body (== != <= >=, and < > written with
 * a blank on each side, which a template's brackets are not): recorded as
 * an OT_CALL_OPERATOR like the arithmetic ones. Returns the offset of the
 * operator's last character. */
static size_t body_comparison(struct walker *w, size_t i)
{
	const char *c = w->code;
	char ch = c[i], nx = i + 1 < w->len ? c[i + 1] : '\0', pv = i ? c[i - 1] : '\0';
	const char *name = NULL;
	size_t len = nx == '=' ? 2 : 1;
	bool doubled = nx == ch && ch != '='; /* <<, >> */
	if (pv == '=' || pv == '!' || pv == '<' || pv == '>' || doubled || (ch == '>' && pv == '-'))
		return doubled ? i + 1 : i; /* <<, >>, ->, part of an operator already read */
	if (nx == '=')
		name = ch == '=' ? "eq" : ch == '!' ? "ne" : ch == '<' ? "le" : "ge";
	else if ((ch == '<' || ch == '>') && (pv == ' ' || pv == '\n') && (nx == ' ' || nx == '\n'))
		name = ch == '<' ? "lt" : "gt";
	if (!name)
		return i;
	record_operator(w, i, len, name);
	return i + len - 1;
}

static size_t skip_spaces(const char *c, size_t i, size_t e)
{
	skip_space(c, e, &i);
	return i;
}

/* The end of the identifier starting at `i`. */
static size_t ident_end(const char *c, size_t i, size_t e)
{
	while (i < e && ot_is_ident_char(c[i]))
		i++;
	return i;
}

/*
 * A declaration ending at the ';' at `e` at class or namespace scope that
 * gives a name a type: `using X = T;` and `typedef T X;` anywhere, a data
 * member `T x;` (`T x = v;`, `T x{v};`, `T x, y;`: the first) in a class.
 * Function declarations, friends, static_asserts and nested types are not.
 */
static void record_decl(struct walker *w, size_t s, size_t e)
{
	static const char *const not_members[] = {
		"friend", "static_assert", "template", "enum", "class", "struct", "union", "namespace",
		"public", "private", "protected", "operator", "return", "using", "typedef", "extern"};
	const char *c = w->code;
	bool in_class = w->depth > 0 && w->stack[w->depth - 1] == SCOPE_CLASS;
	ot_ix_decl d = {0};
	size_t i = s, we, ns, ne, cut = e;
	int depth = 0;
	/* a head that went on over braces (a constructor's `: w_(w) {}`
	 * taken for an initializer list): what follows the last of them */
	for (size_t k = s; k < e; k++) {
		depth += c[k] == '{' ? 1 : c[k] == '}' ? -1 : 0;
		if (c[k] == '}' && depth == 0)
			i = k + 1;
	}
	depth = 0;
	i = skip_spaces(c, i, e);
	we = ident_end(c, i, e);
	if (we == i)
		return;
	if (word_eq(c + i, we - i, "using")) {
		/* using X = T */
		ns = skip_spaces(c, we, e);
		ne = ident_end(c, ns, e);
		i = skip_spaces(c, ne, e);
		if (ne == ns || i >= e || c[i] != '=')
			return; /* using namespace x; using a::b; */
		d.kind = OT_DECL_ALIAS;
		d.type = copy_collapsed(w->arena, c, skip_spaces(c, i + 1, e), e);
	} else {
		bool alias = word_eq(c + i, we - i, "typedef");
		if (alias)
			i = skip_spaces(c, we, e);
		else if (!in_class)
			return;
		for (size_t k = 0; k < OT_ARRAY_LEN(not_members) && !alias; k++)
			if (word_eq(c + i, we - i, not_members[k]))
				return;
		/* the first declarator ends at a top-level = { : [ or , */
		for (size_t k = i; k < e; k++) {
			char ch = c[k];
			if (ch == '(' && depth == 0)
				return; /* a function, or a macro */
			if (ch == '<' || ch == '(' || ch == '[')
				depth++;
			else if (ch == '>' || ch == ')' || ch == ']')
				depth--;
			else if (depth == 0 && (ch == '=' || ch == '{' || ch == ',' || ch == '[' ||
						(ch == ':' && c[k + 1] != ':' && c[k - 1] != ':'))) {
				cut = k;
				break;
			}
		}
		ne = cut;
		while (ne > i && (c[ne - 1] == ' ' || c[ne - 1] == '\t' || c[ne - 1] == '\n' || c[ne - 1] == '\r'))
			ne--;
		ns = ne;
		while (ns > i && ot_is_ident_char(c[ns - 1]))
			ns--;
		if (ns == ne || ns == i || !ot_is_ident_start(c[ns]) || word_eq(c + ns, ne - ns, "override") ||
		    word_eq(c + ns, ne - ns, "const") || word_eq(c + ns, ne - ns, "default") || word_eq(c + ns, ne - ns, "delete"))
			return;
		d.kind = alias ? OT_DECL_ALIAS : OT_DECL_MEMBER;
		d.type = copy_collapsed(w->arena, c, i, ns);
	}
	d.name = ot_arena_strndup(w->arena, c + ns, ne - ns);
	d.cls = in_class ? w->class_name[w->depth - 1] : NULL;
	d.file = w->file;
	d.line = line_of(w, ns);
	if (*d.type)
		ot_vec_push(&w->out->decls, d);
}

/* An enum defined at namespace or class scope, its '{' at `brace`: each
 * enumerator whose value is known (written as an integer, or one past the
 * one before), as an OT_DECL_ENUMERATOR of the enum's name. */
static void record_enum(struct walker *w, size_t head_start, size_t brace)
{
	const char *c = w->code;
	size_t i = skip_spaces(c, head_start, brace), ns, ne, close;
	const char *enum_name = "";
	long value = -1;
	bool known = true;
	int depth = 0;
	if (!word_at(c, brace, i, "enum"))
		return;
	i = skip_spaces(c, i + 4, brace);
	if (word_at(c, brace, i, "class") || word_at(c, brace, i, "struct"))
		i = skip_spaces(c, ident_end(c, i, brace), brace);
	ne = ident_end(c, i, brace);
	if (ne > i)
		enum_name = ot_arena_strndup(w->arena, c + i, ne - i);
	for (close = brace + 1; close < w->len; close++) {
		if (c[close] == '{' || c[close] == '(')
			depth++;
		else if ((c[close] == ')' || c[close] == '}') && depth-- == 0)
			break;
	}
	for (i = brace + 1; i < close;) {
		size_t item_end = i;
		ot_ix_decl d = {0};
		depth = 0;
		for (; item_end < close && (depth || c[item_end] != ','); item_end++)
			depth += c[item_end] == '(' ? 1 : c[item_end] == ')' ? -1 : 0;
		ns = skip_spaces(c, i, item_end);
		ne = ident_end(c, ns, item_end);
		if (ne > ns && ot_is_ident_start(c[ns])) {
			size_t v = skip_spaces(c, ne, item_end);
			if (v < item_end && c[v] == '=') {
				char *endp;
				const char *text = copy_collapsed(w->arena, c, v + 1, item_end);
				long n = strtol(text, &endp, 0);
				known = *text && !*endp;
				value = n;
			} else {
				value++;
			}
			if (known) {
				d.kind = OT_DECL_ENUMERATOR;
				d.name = ot_arena_strndup(w->arena, c + ns, ne - ns);
				d.type = ot_arena_printf(w->arena, "%ld", value);
				d.cls = enum_name;
				d.file = w->file;
				d.line = line_of(w, ns);
				ot_vec_push(&w->out->decls, d);
			}
		}
		i = item_end + 1;
	}
}

static void walk(struct walker *w)
{
	const char *c = w->code;
	size_t i = 0, head_start = 0;
	int paren = 0;

	pthread_once(&walk_class_once, init_walk_class);
	while (i < w->len) {
		char ch = c[i];
		if (!walk_class[(unsigned char)ch]) {
			/* nothing the walker cares about: skip the run */
			do
				i++;
			while (i < w->len && !walk_class[(unsigned char)c[i]]);
			continue;
		}
		if (ot_is_ident_start(ch)) {
			size_t s = i;
			uint8_t kind;
			while (i < w->len && ot_is_ident_char(c[i]))
				i++;
			if (w->func >= 0 && body_keyword(w, s, i, paren))
				continue;
			if (w->func >= 0 && this_called(c, w->len, s, i))
				record_call(w, s, i, OT_CALL_FUNCTOR); /* (*this)(...): its own operator() */
			else if (w->func >= 0 && call_follows(c, w->len, i, &kind))
				record_call(w, s, i, kind);
			else if (w->func >= 0 && i - s > 5 && !memcmp(c + i - 5, "_stub", 5) &&
				 ends_argument(c, w->len, i))
				record_call(w, s, i, OT_CALL_REF); /* a stub handed to a helper */
			else if (decl_scope(w) && paren == 0 && is_macro_name(c + s, i - s))
				record_macro_site(w, s, i);
			continue;
		}
		if (ch >= '0' && ch <= '9') {
			while (i < w->len && (ot_is_ident_char(c[i]) || c[i] == '.'))
				i++;
			continue;
		}
		switch (ch) {
		case '(':
			paren++;
			break;
		case ')':
			if (paren > 0)
				paren--;
			if (w->func >= 0)
				body_close_paren(w, i, paren);
			break;
		case ',':
			if (w->func >= 0)
				body_separator(w, i, paren, true);
			break;
		case '?':
			if (w->func >= 0)
				body_question(w, i, paren);
			break;
		case '&':
			if (w->func >= 0 && i + 1 < w->len && c[i + 1] == '&') {
				if (logical_and_at(c, w->len, i))
					body_logical(w, i, paren, false);
				i++;
			}
			break;
		case '|':
			if (w->func >= 0 && i + 1 < w->len && c[i + 1] == '|') {
				body_logical(w, i, paren, true);
				i++;
			}
			break;
		case '+':
		case '-':
		case '*':
		case '/':
			if (w->func >= 0)
				i = body_operator(w, i);
			break;
		case '=':
		case '!':
		case '<':
		case '>':
			if (w->func >= 0)
				i = body_comparison(w, i);
			break;
		case '{':
			if (decl_scope(w) && (paren > 0 || (in_ctor_initializer(c, head_start, i) && brace_init(c, head_start, i)))) {
				/* a brace inside a head: jiterator_stringify(...), or b_{x}
				 * in a constructor's initializer list */
				if (w->depth < MAX_DEPTH) {
					w->keeps_head[w->depth] = true;
					w->stack[w->depth++] = SCOPE_BLOCK;
				} else {
					w->lost++;
				}
				break;
			}
			if (decl_scope(w))
				record_enum(w, head_start, i);
			open_brace(w, head_start, i);
			if (w->depth > 0 && w->stack[w->depth - 1] != SCOPE_BLOCK) {
				head_start = i + 1;
				paren = 0;
			}
			break;
		case '}': {
			bool keeps_head;
			keeps_head = w->depth > 0 && w->keeps_head[w->depth - 1];
			close_brace(w, i);
			if (w->func >= 0)
				body_close_brace(w, i, paren);
			if (!keeps_head) {
				head_start = i + 1;
				paren = 0;
			}
			break;
		}
		case '#':
			/* preprocessor markers left by the lexer (lex.h) */
			if (i + 2 < w->len && c[i + 1] == 'i' && c[i + 2] == 'f')
				pp_if(w, i);
			else if (i + 2 < w->len && c[i + 1] == 'e' && c[i + 2] == 'l')
				pp_else(w, i, &head_start, &paren, i + 3);
			else if (i + 2 < w->len && c[i + 1] == 'e' && c[i + 2] == 'n')
				pp_endif(w);
			break;
		case ';':
			if (decl_scope(w)) {
				if (paren == 0)
					record_decl(w, head_start, i);
				head_start = i + 1;
				paren = 0;
			} else if (w->func >= 0) {
				body_separator(w, i, paren, false);
			}
			break;
		case ':':
			/* public: / private: / protected: end a head in a class */
			if (decl_scope(w) && i + 1 < w->len && c[i + 1] != ':' &&
			    (i == 0 || c[i - 1] != ':')) {
				size_t e = i;
				while (e > head_start && (c[e - 1] == ' ' || c[e - 1] == '\n'))
					e--;
				size_t s = e;
				while (s > head_start && ot_is_ident_char(c[s - 1]))
					s--;
				if (word_eq(c + s, e - s, "public") || word_eq(c + s, e - s, "private") ||
				    word_eq(c + s, e - s, "protected"))
					head_start = i + 1;
			} else if (w->func >= 0 && !(i + 1 < w->len && c[i + 1] == ':') &&
				   !(i > 0 && c[i - 1] == ':')) {
				body_colon(w, i, paren);
			}
			break;
		}
		i++;
	}
}

/* ---- kernel launches written in macros ------------------------------------------ */

/* Index of the last byte before `i` that is neither space nor a line
 * continuation, or (size_t)-1. */
static size_t back_over_space(const char *t, size_t i)
{
	while (i > 0) {
		char ch = t[i - 1];
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\\')
			i--;
		else
			return i - 1;
	}
	return (size_t)-1;
}

/* Start of the logical line (continuations joined) holding offset `i`. */
static size_t logical_line_start(const char *t, size_t i)
{
	for (;;) {
		while (i > 0 && t[i - 1] != '\n')
			i--;
		if (i < 2)
			return i;
		{
			size_t k = i - 1; /* the '\n' */
			if (k > 0 && t[k - 1] == '\r')
				k--;
			if (k == 0 || t[k - 1] != '\\')
				return i;
			i = k - 1;
		}
	}
}

/* Is the logical line starting at `ls` a `#define NAME` written before
 * `lim`? Then [*ns, *ne) is NAME. */
static bool define_at(const char *text, size_t lim, size_t ls, size_t *ns, size_t *ne)
{
	size_t i = ls;
	while (i < lim && (text[i] == ' ' || text[i] == '\t'))
		i++;
	if (i >= lim || text[i] != '#')
		return false;
	i++;
	while (i < lim && (text[i] == ' ' || text[i] == '\t'))
		i++;
	if (lim - i < 7 || memcmp(text + i, "define", 6) || ot_is_ident_char(text[i + 6]))
		return false;
	i += 6;
	while (i < lim && (text[i] == ' ' || text[i] == '\t'))
		i++;
	*ns = i;
	while (i < lim && ot_is_ident_char(text[i]))
		i++;
	*ne = i;
	return *ne > *ns;
}

/* Macros whose #define invokes a launching macro of the file launch its
 * kernel too: SummaryOps.cu's HANDLE_SWITCH_CASE(...) expands to
 * HANDLE_CASE(...), which launches kernelHistogram1D. */
static void find_invoking_macros(struct walker *w, const char *text, size_t len)
{
	for (size_t k = 0; k < w->nlaunch_macros && w->nlaunch_macros < 256; k++) {
		size_t n = strlen(w->launch_macros[k].name);
		for (const char *q = text; (q = memmem(q, len - (size_t)(q - text), w->launch_macros[k].name, n));
		     q += n) {
			size_t at = (size_t)(q - text), ls, j = at + n, ns, ne;
			struct launch_macro m;
			bool known = false;
			if ((at && ot_is_ident_char(text[at - 1])) || ot_is_ident_char(text[j]))
				continue;
			while (j < len && (text[j] == ' ' || text[j] == '\t'))
				j++;
			if (j >= len || text[j] != '(')
				continue;
			ls = logical_line_start(text, at);
			if (!define_at(text, len, ls, &ns, &ne) || ne - ns >= sizeof(m.name))
				continue;
			snprintf(m.name, sizeof(m.name), "%.*s", (int)(ne - ns), text + ns);
			if (!strcmp(m.name, w->launch_macros[k].name))
				continue;
			for (size_t i = 0; i < w->nlaunch_macros && !known; i++)
				known = !strcmp(w->launch_macros[i].name, m.name);
			if (known)
				continue;
			snprintf(m.kernel, sizeof(m.kernel), "%s", w->launch_macros[k].kernel);
			m.at = ls;
			w->launch_macros = ot_realloc(w->launch_macros,
						      (w->nlaunch_macros + 1) * sizeof(*w->launch_macros));
			w->launch_macros[w->nlaunch_macros++] = m;
		}
	}
}

/* The macros of a file that launch a kernel: "#define NAME(...) ...
 * kernel<T...><<<grid, block>>>(...)". Read from the raw text, since the code
 * view blanks directives. */
static void find_launch_macros(struct walker *w, const char *text, size_t len)
{
	const char *q = text, *end = text + len;
	while ((q = memmem(q, (size_t)(end - q), "<<<", 3))) {
		size_t at = (size_t)(q - text), ls = logical_line_start(text, at), ns, ne;
		size_t k, ke;
		struct launch_macro m;
		q += 3;
		if (!define_at(text, at, ls, &ns, &ne))
			continue;
		/* the launched name: skip template arguments back to their '<' */
		k = back_over_space(text, at);
		if (k != (size_t)-1 && text[k] == '>') {
			int depth = 0;
			for (; k > ne; k--) {
				if (text[k] == '>')
					depth++;
				else if (text[k] == '<' && --depth == 0)
					break;
			}
			k = depth == 0 && k > ne ? back_over_space(text, k) : (size_t)-1;
		}
		if (k == (size_t)-1 || k < ne || !ot_is_ident_char(text[k]))
			continue;
		ke = k + 1;
		while (k > ne && ot_is_ident_char(text[k - 1]))
			k--;
		if (ne == ns || ne - ns >= sizeof(m.name) || ke - k >= sizeof(m.kernel) ||
		    !ot_is_ident_start(text[k]))
			continue;
		if (w->nlaunch_macros && w->launch_macros[w->nlaunch_macros - 1].at == ls)
			continue; /* one #define with several launches: its first */
		snprintf(m.name, sizeof(m.name), "%.*s", (int)(ne - ns), text + ns);
		snprintf(m.kernel, sizeof(m.kernel), "%.*s", (int)(ke - k), text + k);
		m.at = ls;
		w->launch_macros = ot_realloc(w->launch_macros,
					      (w->nlaunch_macros + 1) * sizeof(*w->launch_macros));
		w->launch_macros[w->nlaunch_macros++] = m;
	}
	find_invoking_macros(w, text, len);
}

/* ---- macros that build function names (token pasting) -------------------------- */

/*
 * `#define FOREACH_UNARY_OP(OP) ... void foreach_tensor_##OP##_slow_(TensorList
 * tensors) { ... }`: the function exists only once the macro is invoked, and
 * its name is in no line of the source. The scanner reads each function-like
 * #define of the raw text (the code view blanks directives) into tokens and
 * keeps what its body does at its top level, outside braces and parentheses:
 * the functions it defines whose names depend on its parameters, its
 * TORCH_IMPL_FUNC kernels, and the macros it invokes in turn (an X-macro list
 * invokes its parameter: `_(ne) _(eq)`). The index expands them at every
 * invocation (index.c).
 */

struct mtok {
	size_t s, e;
	char kind; /* 'i' identifier, 'n' number, 'h' ##, 's' #, 'l' literal, 'p' punctuation */
};

#define MAX_MACRO_TOKENS 8192

/* End of the logical line (continuations joined) holding offset `i`: the
 * offset of its final '\n', or `len`. */
static size_t logical_line_end(const char *t, size_t len, size_t i)
{
	for (;;) {
		const char *nl = memchr(t + i, '\n', len - i);
		size_t k;
		if (!nl)
			return len;
		k = (size_t)(nl - t);
		if (k > i && t[k - 1] == '\r')
			k--;
		if (k == i || t[k - 1] != '\\')
			return (size_t)(nl - t);
		i = (size_t)(nl - t) + 1;
	}
}

/* Tokens of the raw text [i, end): blanks, continuations and comments are
 * skipped; a // comment runs to the end of the directive. */
static size_t macro_tokens(struct mtok *toks, size_t max, const char *t, size_t i, size_t end)
{
	size_t n = 0;
	while (i < end && n < max) {
		char ch = t[i];
		size_t s = i;
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v' ||
		    ch == '\\') {
			i++;
			continue;
		}
		if (ch == '/' && i + 1 < end && t[i + 1] == '/')
			break;
		if (ch == '/' && i + 1 < end && t[i + 1] == '*') {
			const char *ce = memmem(t + i + 2, end - i - 2, "*/", 2);
			i = ce ? (size_t)(ce - t) + 2 : end;
			continue;
		}
		if (ch == '"' || ch == '\'') {
			for (i++; i < end && t[i] != ch; i++)
				if (t[i] == '\\')
					i++;
			i = i < end ? i + 1 : end;
			toks[n++] = (struct mtok){s, i, 'l'};
		} else if (ot_is_ident_start(ch)) {
			while (i < end && ot_is_ident_char(t[i]))
				i++;
			toks[n++] = (struct mtok){s, i, 'i'};
		} else if (ch >= '0' && ch <= '9') {
			while (i < end && (ot_is_ident_char(t[i]) || t[i] == '.'))
				i++;
			toks[n++] = (struct mtok){s, i, 'n'};
		} else if (ch == '#') {
			bool paste = i + 1 < end && t[i + 1] == '#';
			i += paste ? 2 : 1;
			toks[n++] = (struct mtok){s, i, paste ? 'h' : 's'};
		} else {
			/* "::" and "->" stay one token: a name after them is qualified */
			i += i + 1 < end && ((ch == ':' && t[i + 1] == ':') || (ch == '-' && t[i + 1] == '>'))
				     ? 2
				     : 1;
			toks[n++] = (struct mtok){s, i, 'p'};
		}
	}
	return n;
}

struct mdef {
	const char *t;             /* the raw text */
	const struct mtok *toks;   /* the body's tokens */
	size_t n;
	const struct mtok *params; /* the parameter names */
	size_t nparams;
	bool variadic;
};

static bool mtok_is(const struct mdef *m, size_t k, const char *s)
{
	return k < m->n && word_eq(m->t + m->toks[k].s, m->toks[k].e - m->toks[k].s, s);
}

static bool mtok_punct(const struct mdef *m, size_t k, char c)
{
	return k < m->n && m->toks[k].kind == 'p' && m->toks[k].e - m->toks[k].s == 1 &&
	       m->t[m->toks[k].s] == c;
}

/* The parameter a token names, or -1. */
static int mtok_param(const struct mdef *m, size_t k)
{
	const struct mtok *tk = &m->toks[k];
	if (tk->kind != 'i')
		return -1;
	if (m->variadic && word_eq(m->t + tk->s, tk->e - tk->s, "__VA_ARGS__"))
		return (int)m->nparams;
	for (size_t p = 0; p < m->nparams; p++)
		if (tk->e - tk->s == m->params[p].e - m->params[p].s &&
		    !memcmp(m->t + tk->s, m->t + m->params[p].s, tk->e - tk->s))
			return (int)p;
	return -1;
}

/* Index of the token closing the group opened at `open`, or m->n. */
static size_t mtok_close(const struct mdef *m, size_t open)
{
	int depth = 0;
	for (size_t k = open; k < m->n; k++) {
		if (mtok_punct(m, k, '(') || mtok_punct(m, k, '[') || mtok_punct(m, k, '{'))
			depth++;
		else if ((mtok_punct(m, k, ')') || mtok_punct(m, k, ']') || mtok_punct(m, k, '}')) &&
			 --depth == 0)
			return k;
	}
	return m->n;
}

/* The template of tokens [from, to): parameters left open, `##` joining its
 * neighbours, one blank between two words as in copy_collapsed. Sets *uses
 * when a parameter occurs. */
static ot_ix_template mtok_template(ot_arena *arena, const struct mdef *m, size_t from, size_t to,
				    bool *uses)
{
	ot_ix_template tp = {0};
	/* a token adds at most two parts: the literal before a parameter, and it */
	ot_ix_part *parts = ot_arena_alloc(arena, (2 * (to - from) + 1) * sizeof(*parts));
	ot_buf lit = OT_BUF_INIT;
	bool prev_word = false, joined = false;

	for (size_t k = from; k < to; k++) {
		const struct mtok *tk = &m->toks[k];
		int p;
		bool word = tk->kind == 'i' || tk->kind == 'n';
		if (tk->kind == 'h') {
			joined = true;
			continue;
		}
		if (word && prev_word && !joined)
			ot_buf_putc(&lit, ' ');
		joined = false;
		prev_word = word;
		if ((p = mtok_param(m, k)) >= 0) {
			if (lit.size)
				parts[tp.nparts++] = (ot_ix_part){ot_arena_strndup(arena, lit.ptr, lit.size), 0};
			ot_buf_clear(&lit);
			parts[tp.nparts++] = (ot_ix_part){NULL, (uint16_t)p};
			if (uses)
				*uses = true;
			continue;
		}
		ot_buf_put(&lit, m->t + tk->s, tk->e - tk->s);
	}
	if (lit.size)
		parts[tp.nparts++] = (ot_ix_part){ot_arena_strndup(arena, lit.ptr, lit.size), 0};
	ot_buf_free(&lit);
	tp.parts = parts;
	return tp;
}

/* A function's parameter list as written, tokens [open, close], one blank
 * where the source has any ("(const Tensor& self)"). */
static const char *mtok_text(ot_arena *arena, const struct mdef *m, size_t open, size_t close)
{
	ot_buf b = OT_BUF_INIT;
	const char *s;
	for (size_t k = open; k <= close && k < m->n; k++) {
		const struct mtok *tk = &m->toks[k];
		if (k > open && tk->s > m->toks[k - 1].e)
			ot_buf_putc(&b, ' ');
		ot_buf_put(&b, m->t + tk->s, tk->e - tk->s);
	}
	s = ot_arena_strndup(arena, b.ptr ? b.ptr : "", b.size);
	ot_buf_free(&b);
	return s;
}

/* Does a function body follow the parameter list closed at `close`? Only
 * qualifiers (const, noexcept, override, macros...) may come before the '{';
 * a ';' makes it a declaration. */
static bool mtok_body_follows(const struct mdef *m, size_t close)
{
	for (size_t k = close + 1; k < m->n; k++) {
		const struct mtok *tk = &m->toks[k];
		if (mtok_punct(m, k, '{'))
			return true;
		if (tk->kind == 'i' || mtok_punct(m, k, '&'))
			continue;
		if (mtok_punct(m, k, '(')) { /* noexcept(...), C10_LAUNCH_BOUNDS(...) */
			k = mtok_close(m, k);
			continue;
		}
		return false;
	}
	return false;
}

/* Words that end a statement or an expression before a name: a name after
 * them is called, not defined. */
static bool mtok_is_expr_word(const struct mdef *m, size_t k)
{
	static const char *const words[] = {"return", "else", "new", "case", "throw", "do",
					    "co_return", "co_yield", "goto", "delete"};
	for (size_t i = 0; i < OT_ARRAY_LEN(words); i++)
		if (mtok_is(m, k, words[i]))
			return true;
	return false;
}

typedef OT_VEC(ot_ix_mitem) mitem_vec;

/* Words followed by '(' that are not calls. */
static bool mtok_not_callee(const struct mdef *m, size_t k)
{
	static const char *const words[] = {"if", "for", "while", "switch", "return", "sizeof", "catch",
					    "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast",
					    "decltype", "alignof", "noexcept", "static_assert", "typeid",
					    "defined", "alignas"};
	for (size_t i = 0; i < OT_ARRAY_LEN(words); i++)
		if (mtok_is(m, k, words[i]))
			return true;
	return false;
}

/* The calls written out in the body of a function item whose parameter list
 * closes at token `close`: a name followed by '(' or by template arguments
 * and '('. A name the macro's parameters build (OP, fn##_out) goes to the
 * item's pcalls with its template, a parameter handed on as an argument
 * too (REF); the others to its calls. Offsets are the raw text's; lines
 * are set by the caller. */
static void body_calls(ot_arena *arena, const struct mdef *m, size_t close, ot_ix_mitem *it)
{
	OT_VEC(ot_ix_call) v = {0}, pv = {0};
	OT_VEC(ot_ix_template) names = {0};
	size_t open = close + 1, end;
	int depth = 0;
	while (open < m->n && !mtok_punct(m, open, '{'))
		open++;
	for (end = open; end < m->n; end++)
		if (mtok_punct(m, end, '{'))
			depth++;
		else if (mtok_punct(m, end, '}') && --depth == 0)
			break;
	for (size_t k = open + 1; k < end; k++) {
		const struct mtok *tk = &m->toks[k];
		ot_ix_call call = {0};
		size_t next, q = k, g;
		bool uses = false;
		if (tk->kind != 'i' || mtok_not_callee(m, k) || (k > 0 && m->toks[k - 1].kind == 'h'))
			continue;
		/* the name: a token, or tokens joined by ## */
		for (g = k + 1; g + 1 < end && m->toks[g].kind == 'h' &&
				(m->toks[g + 1].kind == 'i' || m->toks[g + 1].kind == 'n');
		     g += 2)
			;
		next = g;
		if (mtok_punct(m, next, '<')) {
			int d = 0;
			size_t j;
			for (j = next; j < end; j++) {
				if (mtok_punct(m, j, '<'))
					d++;
				else if (mtok_punct(m, j, '>') && --d == 0)
					break;
				else if (mtok_punct(m, j, ';') || mtok_punct(m, j, '{') || mtok_punct(m, j, '}'))
					j = end - 1;
			}
			if (j < end && mtok_punct(m, j + 1, '('))
				next = j + 1;
		}
		for (size_t j = k; j < g; j++)
			uses = uses || mtok_param(m, j) >= 0;
		/* the qualifier: name :: name :: before it */
		while (q >= 2 && mtok_is(m, q - 1, "::") && m->toks[q - 2].kind == 'i')
			q -= 2;
		call.qual = q < k ? ot_arena_strndup(arena, m->t + m->toks[q].s, m->toks[k - 2].e - m->toks[q].s)
				  : "";
		call.kind = k > 0 && (mtok_punct(m, k - 1, '.') || mtok_is(m, k - 1, "->")) ? OT_CALL_MEMBER
											  : OT_CALL_PLAIN;
		call.off = (uint32_t)tk->s;
		if (uses) {
			bool unused;
			if (!mtok_punct(m, next, '(')) {
				/* a parameter handed on: f(result, self, STUB) */
				if (g != k + 1 || !(mtok_punct(m, k - 1, ',') || mtok_punct(m, k - 1, '(')) ||
				    !(mtok_punct(m, g, ',') || mtok_punct(m, g, ')')))
					continue;
				call.kind = OT_CALL_REF;
			}
			ot_vec_push(&pv, call);
			ot_vec_push(&names, mtok_template(arena, m, k, g, &unused));
		} else if (mtok_punct(m, next, '(')) {
			call.name = ot_arena_strndup(arena, m->t + tk->s, tk->e - tk->s);
			ot_vec_push(&v, call);
		}
		k = g - 1;
	}
	if (open < m->n && end < m->n) {
		it->body = (uint32_t)m->toks[open].s;
		it->body_end = (uint32_t)m->toks[end].s;
	}
	it->calls = OT_ARENA_VEC(arena, &v);
	it->ncalls = (uint32_t)v.len;
	it->pcalls = OT_ARENA_VEC(arena, &pv);
	it->pnames = OT_ARENA_VEC(arena, &names);
	it->npcalls = (uint32_t)pv.len;
	ot_vec_free(&v);
	ot_vec_free(&pv);
	ot_vec_free(&names);
}

/* Does the '{' at token k open a namespace (`namespace x {`, `inline
 * namespace CPU_CAPABILITY {`, `namespace {`)? */
static bool mtok_opens_namespace(const struct mdef *m, size_t k)
{
	return (k >= 1 && mtok_is(m, k - 1, "namespace")) ||
	       (k >= 2 && m->toks[k - 1].kind == 'i' && mtok_is(m, k - 2, "namespace"));
}

/* The items of a macro body (ot_ix_mitem), walked at its top level; a
 * namespace's block is the top level too. */
static void macro_items(mitem_vec *items, ot_arena *arena, const struct mdef *m)
{
	int depth = 0, namespaces = 0;
	for (size_t k = 0; k < m->n; k++) {
		const struct mtok *tk = &m->toks[k];
		size_t g, open;
		bool uses = false, pasted = false;
		if (mtok_punct(m, k, '{') && depth == 0 && mtok_opens_namespace(m, k)) {
			namespaces++;
			continue;
		}
		if (mtok_punct(m, k, '(') || mtok_punct(m, k, '[') || mtok_punct(m, k, '{')) {
			depth++;
			continue;
		}
		if (mtok_punct(m, k, '}') && depth == 0 && namespaces > 0) {
			namespaces--;
			continue;
		}
		if (mtok_punct(m, k, ')') || mtok_punct(m, k, ']') || mtok_punct(m, k, '}')) {
			if (depth > 0)
				depth--;
			continue;
		}
		if (depth > 0 || tk->kind != 'i')
			continue;
		/* the name: a token, or tokens joined by ## */
		for (g = k + 1; g + 1 < m->n && m->toks[g].kind == 'h' &&
				(m->toks[g + 1].kind == 'i' || m->toks[g + 1].kind == 'n');
		     g += 2)
			pasted = true;
		open = g;
		if (!mtok_punct(m, open, '(')) {
			k = g - 1;
			continue;
		}
		if (!pasted && mtok_is(m, k, "TORCH_IMPL_FUNC")) {
			/* TORCH_IMPL_FUNC(name##_out)(params) { ... } */
			size_t close = mtok_close(m, open), pclose = m->n;
			ot_ix_mitem it = {0};
			if (close < m->n && mtok_punct(m, close + 1, '('))
				pclose = mtok_close(m, close + 1);
			if (pclose >= m->n)
				break;
			it.kind = OT_MITEM_IMPL;
			it.name = mtok_template(arena, m, open + 1, close, &uses);
			it.params = mtok_text(arena, m, close + 1, pclose);
			if (uses && mtok_body_follows(m, pclose)) {
				body_calls(arena, m, pclose, &it);
				ot_vec_push(items, it);
			}
			k = pclose;
			continue;
		}
		{
			ot_ix_template name = mtok_template(arena, m, k, g, &uses);
			const struct mtok *prev = k > 0 ? &m->toks[k - 1] : NULL;
			size_t close = mtok_close(m, open);
			ot_ix_mitem it = {0};
			if (close >= m->n)
				break;
			if (uses && prev &&
			    ((prev->kind == 'i' && !mtok_is_expr_word(m, k - 1)) ||
			     mtok_punct(m, k - 1, '>') || mtok_punct(m, k - 1, '*') ||
			     mtok_punct(m, k - 1, '&')) &&
			    mtok_body_follows(m, close)) {
				/* Ret name##X(params) { ... } */
				it.kind = OT_MITEM_FUNC;
				it.name = name;
				it.params = mtok_text(arena, m, open, close);
				body_calls(arena, m, close, &it);
				ot_vec_push(items, it);
			} else if (!pasted && (!prev || mtok_punct(m, k - 1, ';') ||
					       mtok_punct(m, k - 1, '}') || mtok_punct(m, k - 1, ')')) &&
				   (mtok_param(m, k) >= 0 ||
				    is_macro_name(m->t + tk->s, tk->e - tk->s))) {
				/* OTHER_MACRO(args) or PARAM(args): an invocation in turn */
				ot_ix_template *args =
					ot_arena_alloc(arena, MAX_MACRO_ARGS * sizeof(*args));
				size_t a = open + 1, nargs = 0;
				bool any = mtok_param(m, k) >= 0;
				int d = 0;
				for (size_t j = open + 1; j <= close && nargs < MAX_MACRO_ARGS; j++) {
					if (mtok_punct(m, j, '('))
						d++;
					else if (j < close && mtok_punct(m, j, ')'))
						d--;
					else if (j == close || (d == 0 && mtok_punct(m, j, ','))) {
						args[nargs++] = mtok_template(arena, m, a, j, &any);
						a = j + 1;
					}
				}
				if (any) {
					it.kind = OT_MITEM_INVOKE;
					it.name = name;
					it.args = args;
					it.nargs = (uint16_t)nargs;
					ot_vec_push(items, it);
				}
			}
			/* the parameter list or the arguments are not the top level */
			k = close;
		}
	}
}

/* Is offset `at` of the raw text inside a block comment? The nearest
 * comment delimiter before it decides, looked for in the preceding 8 KB
 * (a commented-out #define sits close to the comment's start). */
static bool in_block_comment(const char *t, size_t at)
{
	size_t stop = at > 8192 ? at - 8192 : 0;
	for (size_t i = at; i >= stop + 2; i--)
		if (t[i - 2] == '*' && t[i - 1] == '/')
			return false;
		else if (t[i - 2] == '/' && t[i - 1] == '*')
			return true;
	return false;
}

/* Offset of the name of a `#define` whose '#' is at `at`, when the directive
 * begins its line; else 0. Sets *line_start. */
static size_t define_name(const char *text, size_t len, size_t at, size_t *line_start)
{
	size_t i = at, ns;
	while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t'))
		i--;
	if (i > 0 && text[i - 1] != '\n')
		return 0;
	for (ns = at + 1; ns < len && (text[ns] == ' ' || text[ns] == '\t'); ns++)
		;
	if (len - ns < 7 || memcmp(text + ns, "define", 6) || ot_is_ident_char(text[ns + 6]))
		return 0;
	for (ns += 6; ns < len && (text[ns] == ' ' || text[ns] == '\t'); ns++)
		;
	*line_start = i;
	return ns;
}

static void walk(struct walker *w);

/* What a walk allocated beside its arena. */
static void walker_free(struct walker *w)
{
	for (int k = 0; k < PP_MAX; k++) {
		struct pp_state *s[2] = {&w->pp[k].at_if, &w->pp[k].first_end};
		for (int j = 0; j < 2; j++) {
			free(s[j]->stack);
			free(s[j]->keeps_head);
			free(s[j]->ns_len);
			free(s[j]->ns);
		}
	}
	free(w->pp);
	free(w->launch_macros);
	ot_vec_free(&w->guards);
	ot_vec_free(&w->sites);
	ot_vec_free(&w->invokes);
	ot_vec_free(&w->calls);
}

/* The ot_ix_call of `d` at offset `off`, or the first after it within
 * `span` bytes (NULL when none). */
static const ot_ix_call *call_near(const ot_ix_cdef *d, uint32_t off, uint32_t span)
{
	const ot_ix_call *best = NULL;
	for (uint32_t k = 0; k < d->ncalls; k++)
		if (d->calls[k].off >= off && d->calls[k].off < off + span &&
		    (!best || d->calls[k].off < best->off))
			best = &d->calls[k];
	return best;
}

/*
 * The conditions of the functions a macro's body writes (ONE_HIDDEN_RNN's
 * `if (at::cudnn_is_acceptable(_input)) { ...; return; }`): the walker run
 * over those bodies alone, their text made code (line continuations blank,
 * a name before each body's '{' so that it reads as a definition), at the
 * offsets of the file. Each item gets its body's guards, each of its calls
 * the guard it runs under.
 */
static void macro_guards(struct walker *w, const char *text, size_t len, mitem_vec *items)
{
	struct walker b = {0};
	ot_scan_result tmp = {0};
	char *buf, *cv;
	bool any = false;
	for (size_t i = 0; i < items->len; i++)
		any = any || (items->items[i].body >= 3 && items->items[i].body_end > items->items[i].body);
	if (!any)
		return;
	buf = ot_malloc(len + 1);
	cv = ot_malloc(len + 1);
	for (size_t k = 0; k < len; k++)
		buf[k] = text[k] == '\n' ? '\n' : ' ';
	buf[len] = '\0';
	for (size_t i = 0; i < items->len; i++) {
		const ot_ix_mitem *it = &items->items[i];
		if (it->body < 3 || it->body_end <= it->body)
			continue;
		for (size_t k = it->body; k <= it->body_end && k < len; k++)
			buf[k] = text[k] == '\\' && k + 1 < len && (text[k + 1] == '\n' || text[k + 1] == '\r') ? ' ' : text[k];
		memcpy(buf + it->body - 3, "f()", 3);
	}
	ot_lex_code_view(cv, buf, len, OT_LANG_C);
	cv[len] = '\0';
	b.out = &tmp;
	b.arena = w->arena;
	b.code = cv;
	b.len = len;
	b.file = w->file;
	b.func = -1;
	b.head.toks = w->head.toks;
	b.pp = ot_calloc(PP_MAX, sizeof(*b.pp));
	b.line_off = w->line_off;
	b.nlines = w->nlines;
	b.text = buf;
	walk(&b);
	for (size_t i = 0; i < items->len; i++) {
		ot_ix_mitem *it = &items->items[i];
		const ot_ix_cdef *d = NULL;
		for (size_t k = 0; k < tmp.cdefs.len && !d; k++)
			if (tmp.cdefs.items[k].body == it->body)
				d = &tmp.cdefs.items[k];
		if (!d || !d->nguards)
			continue;
		it->guards = d->guards;
		it->nguards = d->nguards;
		for (uint32_t c = 0; c < it->ncalls; c++) {
			const ot_ix_call *bc = call_near(d, it->calls[c].off, 1);
			((ot_ix_call *)&it->calls[c])->guard = bc ? bc->guard : 0;
		}
		/* a name the macro's parameters make (NAME##_cudnn_stub): the
		 * walker saw its last part called */
		for (uint32_t c = 0; c < it->npcalls; c++) {
			const ot_ix_call *bc = call_near(d, it->pcalls[c].off, 128);
			((ot_ix_call *)&it->pcalls[c])->guard = bc ? bc->guard : 0;
		}
	}
	walker_free(&b);
	ot_scan_result_free(&tmp);
	free(buf);
	free(cv);
}

/* Every function-like #define of the raw text whose body has items. */
static void find_pasting_macros(struct walker *w, const char *text, size_t len)
{
	struct mtok *toks = NULL;
	OT_VEC(ot_ix_macro) found = {0};
	mitem_vec items = {0};

	/* '#' is rare outside directives, and memchr is fast */
	for (const char *q = text, *end = text + len; (q = memchr(q, '#', (size_t)(end - q)));) {
		size_t at = (size_t)(q - text), ls = 0, ns, ne, le, n, k;
		struct mtok params[MAX_MACRO_ARGS];
		struct mdef m = {0};
		ot_ix_macro mac = {0};
		q++;
		if (!(ns = define_name(text, len, at, &ls)))
			continue;
		for (ne = ns; ne < len && ot_is_ident_char(text[ne]); ne++)
			;
		if (ne == ns)
			continue;
		if (ne >= len || text[ne] != '(') {
			/* object-like: only its name matters (a build flag the tree
			 * defines itself is not one a build leaves undefined) */
			ot_vec_push(&w->out->defines, ot_arena_strndup(w->arena, text + ns, ne - ns));
			continue;
		}
		le = logical_line_end(text, len, ne);
		q = text + le;
		if (!toks)
			toks = ot_malloc(MAX_MACRO_TOKENS * sizeof(*toks));
		n = macro_tokens(toks, MAX_MACRO_TOKENS, text, ne, le);
		/* the parameter list: names, "...", "name..." */
		for (k = 1; k < n && !(toks[k].kind == 'p' && text[toks[k].s] == ')'); k++) {
			if (toks[k].kind == 'i' && m.nparams < MAX_MACRO_ARGS)
				params[m.nparams++] = toks[k];
			else if (toks[k].kind == 'p' && text[toks[k].s] == '.')
				m.variadic = true;
		}
		if (k >= n || m.nparams >= MAX_MACRO_ARGS)
			continue;
		m.t = text;
		m.params = params;
		m.toks = toks + k + 1;
		m.n = n - k - 1;
		items.len = 0;
		macro_items(&items, w->arena, &m);
		if (!items.len || in_block_comment(text, ls))
			continue;
		macro_guards(w, text, len, &items);
		for (size_t i = 0; i < items.len; i++) {
			for (uint32_t c = 0; c < items.items[i].ncalls; c++) {
				ot_ix_call *call = (ot_ix_call *)&items.items[i].calls[c];
				call->line = line_of(w, call->off);
			}
			for (uint32_t c = 0; c < items.items[i].npcalls; c++) {
				ot_ix_call *call = (ot_ix_call *)&items.items[i].pcalls[c];
				call->line = line_of(w, call->off);
			}
		}
		mac.items = OT_ARENA_VEC(w->arena, &items);
		mac.nitems = (uint32_t)items.len;
		mac.name = ot_arena_strndup(w->arena, text + ns, ne - ns);
		mac.nparams = (uint16_t)m.nparams;
		mac.variadic = m.variadic;
		mac.file = w->file;
		mac.line = line_of(w, ls);
		ot_vec_push(&found, mac);
	}
	w->out->macros = OT_ARENA_VEC(w->arena, &found);
	w->out->nmacros = found.len;
	ot_vec_free(&found);
	ot_vec_free(&items);
	free(toks);
}

/* ---- DispatchStub sites (pcre2) -------------------------------------------------- */

static pcre2_code *stub_re;
static pthread_once_t stub_once = PTHREAD_ONCE_INIT;

static void compile_stub_re(void)
{
	int err;
	PCRE2_SIZE off;
	stub_re = ot_scan_compile(
		"\\b(DECLARE_DISPATCH|DEFINE_DISPATCH|(?:[A-Z0-9]+_)*REGISTER_[A-Z0-9_]*DISPATCH)\\s*\\(",
		&err,
		&off);
}

/* Split the argument list starting after '(' at `i` into top-level args. */
static size_t split_args(struct arg *args, size_t max, const char *c, size_t len, size_t i)
{
	int depth = 0;
	size_t n = 0, start = i;
	for (; i < len; i++) {
		char ch = c[i];
		if (ch == '(' || ch == '<' || ch == '[' || ch == '{')
			depth++;
		else if ((ch == ')' || ch == '>' || ch == ']' || ch == '}') && depth > 0)
			depth--;
		else if (ch == ')' || ch == ';')
			break;
		else if (ch == ',' && depth == 0) {
			if (n < max)
				args[n++] = (struct arg){start, i};
			start = i + 1;
		}
		if (ch == '>' && i > 0 && c[i - 1] == '-')
			depth++; /* "->" is not a closing angle bracket */
	}
	if (n < max && i < len && c[i] == ')')
		args[n++] = (struct arg){start, i};
	return n;
}

/* The identifier an argument names: strips '&', '*', qualifiers, template
 * arguments and whitespace ("&at::native::foo<float>" -> "foo"). Returns
 * false for nullptr, lambdas and anything that is not a plain name. */
static bool arg_name(const char *c, struct arg a, size_t *s, size_t *e)
{
	size_t i = a.start, last_s = 0, last_e = 0;
	bool any = false;
	while (i < a.end) {
		if (ot_is_ident_start(c[i])) {
			size_t b = i;
			while (i < a.end && ot_is_ident_char(c[i]))
				i++;
			last_s = b;
			last_e = i;
			any = true;
			while (i < a.end && (c[i] == ' ' || c[i] == '\t' || c[i] == '\n'))
				i++;
			if (i + 1 < a.end && c[i] == ':' && c[i + 1] == ':') {
				i += 2;
				continue;
			}
			break;
		}
		if (c[i] == '[')
			return false;
		i++;
	}
	if (!any || word_eq(c + last_s, last_e - last_s, "nullptr") ||
	    word_eq(c + last_s, last_e - last_s, "NULL"))
		return false;
	*s = last_s;
	*e = last_e;
	return true;
}

/* The context the walker recorded for the DISPATCH macro at `off`. */
static const struct site_context *site_at(const struct walker *w, size_t off)
{
	size_t lo = 0, hi = w->sites.len;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->sites.items[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->sites.len && w->sites.items[lo].off == off ? &w->sites.items[lo] : NULL;
}

static void scan_stubs(ot_scan_result *out, ot_arena *arena, const char *code, size_t len,
		       const struct walker *w)
{
	pcre2_match_data *md;
	size_t off = 0;

	if (!memmem(code, len, "DISPATCH", 8))
		return;
	pthread_once(&stub_once, compile_stub_re);
	md = pcre2_match_data_create_from_pattern(stub_re, NULL);
	while (off < len) {
		int rc = ot_scan_match(stub_re, code, len, off, md);
		PCRE2_SIZE *ov;
		struct arg args[4];
		size_t nargs, ms, me, ks = 0, ke = 0, kq = 0, kqe = 0;
		ot_ix_stub st = {0};
		if (rc < 0)
			break;
		ov = pcre2_get_ovector_pointer(md);
		ms = ov[2];
		me = ov[3];
		off = ov[1];
		nargs = split_args(args, OT_ARRAY_LEN(args), code, len, off);
		if (!nargs)
			continue;
		st.macro = ot_arena_strndup(arena, code + ms, me - ms);
		if (!strcmp(st.macro, "DECLARE_DISPATCH")) {
			st.kind = OT_STUB_DECLARE;
			if (nargs < 2 || !arg_name(code, args[nargs - 1], &ks, &ke))
				continue;
		} else if (!strcmp(st.macro, "DEFINE_DISPATCH")) {
			st.kind = OT_STUB_DEFINE;
			if (!arg_name(code, args[0], &ks, &ke))
				continue;
		} else {
			size_t fs, fe;
			st.kind = OT_STUB_REGISTER;
			if (!arg_name(code, args[0], &ks, &ke))
				continue;
			if (nargs >= 2 && arg_name(code, args[nargs - 1], &fs, &fe)) {
				st.kernel = ot_arena_strndup(arena, code + fs, fe - fs);
				/* the qualifier written before it ("at::native::") */
				for (kq = fs; kq > args[nargs - 1].start &&
					      (ot_is_ident_char(code[kq - 1]) || code[kq - 1] == ':');
				     kq--)
					;
				kqe = fs;
				while (kqe > kq && code[kqe - 1] == ':')
					kqe--;
			}
		}
		if (st.kind == OT_STUB_REGISTER && nargs == 3 && !strcmp(st.macro, "REGISTER_ARCH_DISPATCH")) {
			/* REGISTER_ARCH_DISPATCH(stub, DEFAULT, fn): one slot */
			size_t as, ae;
			if (arg_name(code, args[1], &as, &ae))
				st.arch = ot_arena_strndup(arena, code + as, ae - as);
		}
		st.stub = ot_arena_strndup(arena, code + ks, ke - ks);
		st.file = w->file;
		st.line = line_of(w, ks);
		st.ns = "";
		st.kernel_qual = "";
		st.stub_qual = "";
		{
			/* the qualifier written before the stub's name */
			size_t qs = ks, qe;
			while (qs > 0 && (ot_is_ident_char(code[qs - 1]) || code[qs - 1] == ':'))
				qs--;
			qe = ks;
			while (qe > qs && code[qe - 1] == ':')
				qe--;
			if (qs < qe)
				st.stub_qual = ot_scan_copy_name(arena, code + qs, qe - qs);
		}
		{
			const struct site_context *sc = site_at(w, ms);
			if (sc) {
				st.ns = sc->ns;
				st.pp = sc->arm;
			}
		}
		if (st.kernel && kq < kqe)
			st.kernel_qual = ot_scan_copy_name(arena, code + kq, kqe - kq);
		ot_vec_push(&out->stubs, st);
	}
	pcre2_match_data_free(md);
}

void ot_scan_c(ot_scan_result *out, ot_arena *arena, const char *code, const char *text,
	       size_t len, const uint32_t *lines, uint32_t nlines, uint32_t file)
{
	struct walker w = {0};
	struct tok *toks = ot_malloc(MAX_HEAD_TOKENS * sizeof(struct tok));
	size_t first = out->cdefs.len;

	w.out = out;
	w.arena = arena;
	w.code = code;
	w.len = len;
	w.file = file;
	w.func = -1;
	w.head.toks = toks;
	w.pp = ot_calloc(PP_MAX, sizeof(*w.pp));
	w.line_off = lines;
	w.nlines = nlines;
	w.text = text;
	find_launch_macros(&w, text, len);
	find_pasting_macros(&w, text, len);
	walk(&w);
	/* a body left open (by the end of the file, or in an #if branch whose
	 * #endif never came) ends at the end of the file */
	for (size_t i = first; i < out->cdefs.len; i++)
		if (!out->cdefs.items[i].end_line)
			out->cdefs.items[i].end_line = w.nlines;
	scan_stubs(out, arena, code, len, &w);
	out->invokes = OT_ARENA_VEC(arena, &w.invokes);
	out->ninvokes = w.invokes.len;
	walker_free(&w);
	free(toks);
}
