/*
 * testscan.c - the scanner of PyTorch's test databases, test files and
 * operator benchmarks (records in testrec.h). It works on tokens
 * (pytok.h): the names it needs are string literals.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "testrec.h"

struct sc {
	ot_tr_file *f;
	ot_arena *a;
	const ot_toks *t;
	ot_map *partials; /* test files: names bound to partial(ops, ...) */
	ot_buf tmp;
};

/* ---- tokens ------------------------------------------------------------------------ */

static bool is(const struct sc *s, uint32_t i, const char *text)
{
	return ot_tok_is(s->t, i, text);
}

static bool kind(const struct sc *s, uint32_t i, ot_tok_kind k)
{
	return i < s->t->n && s->t->toks[i].kind == k;
}

static const char *dup(struct sc *s, uint32_t i)
{
	const ot_tok *k = &s->t->toks[i];
	return ot_arena_strndup(s->a, s->t->text + k->off, k->len);
}

static uint32_t line(const struct sc *s, uint32_t i)
{
	return s->t->toks[i < s->t->n ? i : s->t->n - 1].line;
}

/* The string value at i (joined literals), in the arena, or NULL. */
static const char *string_at(struct sc *s, uint32_t i, uint32_t *next)
{
	if (!ot_tok_string(s->t, i, &s->tmp, next))
		return NULL;
	return ot_arena_strndup(s->a, s->tmp.ptr, s->tmp.size);
}

/* The end (exclusive) of the dotted name starting at NAME token i: a.b.c */
static uint32_t dotted_end(const struct sc *s, uint32_t i)
{
	if (!kind(s, i, OT_TOK_NAME))
		return i;
	i++;
	while (is(s, i, ".") && kind(s, i + 1, OT_TOK_NAME))
		i += 2;
	return i;
}

/* The text of tokens [b, e) with single blanks where the source had any. */
static const char *text_of(struct sc *s, uint32_t b, uint32_t e)
{
	ot_buf_clear(&s->tmp);
	for (uint32_t i = b; i < e && i < s->t->n; i++) {
		const ot_tok *k = &s->t->toks[i];
		if (i > b && k->off > s->t->toks[i - 1].off + s->t->toks[i - 1].len)
			ot_buf_putc(&s->tmp, ' ');
		ot_buf_put(&s->tmp, s->t->text + k->off, k->len);
	}
	return ot_arena_strndup(s->a, s->tmp.ptr, s->tmp.size);
}

/* The token after the end of the logical line holding token i. */
static uint32_t statement_end(const struct sc *s, uint32_t i)
{
	for (i++; i < s->t->n; i++)
		if (s->t->toks[i].bol)
			return i;
	return s->t->n;
}

/* The end of the argument starting at token b, inside a call closing at `close`:
 * the next top-level ',' or `close`. */
static uint32_t arg_end(const struct sc *s, uint32_t b, uint32_t close)
{
	for (uint32_t i = b; i < close; i++) {
		const ot_tok *k = &s->t->toks[i];
		char c = k->len == 1 ? s->t->text[k->off] : 0;
		if (c == ',')
			return i;
		if (c == '(' || c == '[' || c == '{') {
			i = ot_tok_close(s->t, i);
			if (i >= close)
				return close;
		}
	}
	return close;
}

/* ---- database entries --------------------------------------------------------------- */

/* Is `name` a class whose calls may be entries (OpInfo, UnaryUfuncInfo, ModuleInfo, ...)? */
static bool info_class(const struct sc *s, uint32_t i)
{
	const ot_tok *k = &s->t->toks[i];
	const char *p = s->t->text + k->off;
	if (k->kind != OT_TOK_NAME || k->len < 5 || p[0] < 'A' || p[0] > 'Z' ||
	    memcmp(p + k->len - 4, "Info", 4))
		return false;
	return !(k->len == 12 && !memcmp(p, "DecorateInfo", 12)) &&
	       !(k->len == 9 && !memcmp(p, "AliasInfo", 9));
}

/* The last dotted part of the decorator expression at [b, e): unittest.skip("x") -> skip. */
static const char *decorator_name(struct sc *s, uint32_t b, uint32_t e)
{
	uint32_t d = dotted_end(s, b);
	if (d == b || d > e)
		return text_of(s, b, e);
	return dup(s, d - 1);
}

typedef OT_VEC(ot_tr_decor) decor_vec;

static void parse_decorate(struct sc *s, uint32_t i, decor_vec *out)
{
	uint32_t open = i + 1, close = ot_tok_close(s->t, open), b = open + 1;
	ot_tr_decor d = {.line = line(s, i)};
	int pos = 0;
	while (b < close) {
		uint32_t e = arg_end(s, b, close);
		if (kind(s, b, OT_TOK_NAME) && is(s, b + 1, "=")) {
			if (is(s, b, "device_type"))
				d.device = string_at(s, b + 2, NULL);
		} else {
			if (pos == 0)
				d.decorator = decorator_name(s, b, e);
			else if (pos == 1)
				d.cls = string_at(s, b, NULL);
			else if (pos == 2)
				d.test = string_at(s, b, NULL);
			pos++;
		}
		b = e + 1;
	}
	if (d.decorator)
		ot_vec_push(out, d);
}

static void parse_entry(struct sc *s, uint32_t i)
{
	uint32_t open = i + 1, close = ot_tok_close(s->t, open), b = open + 1;
	ot_tr_call c = {0};
	decor_vec decors = {0};
	OT_VEC(const char *) aliases = {0};
	bool positional = true;

	c.cls = dup(s, i);
	c.tok = i;
	c.tok_end = close;
	c.line = line(s, i);
	c.variant = "";
	c.opinfo_variant = "";
	while (b < close) {
		uint32_t e = arg_end(s, b, close);
		if (kind(s, b, OT_TOK_NAME) && is(s, b + 1, "=")) {
			uint32_t v = b + 2;
			if (is(s, b, "name"))
				c.name = string_at(s, v, NULL);
			else if (is(s, b, "variant_test_name"))
				c.variant = string_at(s, v, NULL);
			else if (is(s, b, "aten_name"))
				c.aten_name = string_at(s, v, NULL);
			else if (is(s, b, "aten_backward_name"))
				c.aten_backward_name = string_at(s, v, NULL);
			else if (is(s, b, "torch_opinfo_name"))
				c.opinfo_name = string_at(s, v, NULL);
			else if (is(s, b, "torch_opinfo_variant_name"))
				c.opinfo_variant = string_at(s, v, NULL);
			else if (is(s, b, "aliases") && (is(s, v, "(") || is(s, v, "["))) {
				uint32_t ce = ot_tok_close(s->t, v);
				for (uint32_t k = v + 1; k < ce; k++) {
					uint32_t next;
					const char *al = string_at(s, k, &next);
					if (al)
						ot_vec_push(&aliases, al);
					k = next > k ? next - 1 : k;
				}
			}
			if (!c.variant)
				c.variant = ""; /* not a literal */
			if (!c.opinfo_variant)
				c.opinfo_variant = "";
		} else if (positional) {
			positional = false;
			if (kind(s, b, OT_TOK_STRING))
				c.name = string_at(s, b, NULL);
			else if (kind(s, b, OT_TOK_NAME) && dotted_end(s, b) == e)
				c.name = text_of(s, b, e); /* ModuleInfo(torch.nn.Linear, ...) */
		}
		b = e + 1;
	}
	for (uint32_t k = open; k < close; k++)
		if (is(s, k, "DecorateInfo") && is(s, k + 1, "("))
			parse_decorate(s, k, &decors);
	c.decors = OT_ARENA_VEC(s->a, &decors);
	c.ndecors = (uint32_t)decors.len;
	c.aliases = OT_ARENA_VEC(s->a, &aliases);
	c.naliases = (uint16_t)aliases.len;
	ot_vec_free(&decors);
	ot_vec_free(&aliases);
	ot_vec_push(&s->f->calls, c);
}

/* ---- module-level statements ---------------------------------------------------------- */

static void parse_class(struct sc *s, uint32_t i)
{
	ot_tr_class c = {0};
	if (!kind(s, i + 1, OT_TOK_NAME))
		return;
	c.name = dup(s, i + 1);
	c.line = line(s, i);
	c.col = s->t->toks[i].col;
	if (is(s, i + 2, "(") && kind(s, i + 3, OT_TOK_NAME)) {
		uint32_t e = dotted_end(s, i + 3);
		c.base = dup(s, e - 1);
	}
	ot_vec_push(&s->f->classes, c);
}

static void parse_assign(struct sc *s, uint32_t i)
{
	uint32_t end = statement_end(s, i), k = i + 1;
	ot_tr_assign as = {0};
	if (is(s, k, ":")) /* NAME: T = EXPR */
		for (k++; k < end && !is(s, k, "="); k++)
			if (is(s, k, "(") || is(s, k, "[") || is(s, k, "{"))
				k = ot_tok_close(s->t, k);
	if (k >= end || !(is(s, k, "=") || is(s, k, "+=")))
		return;
	as.name = dup(s, i);
	as.augmented = is(s, k, "+=");
	as.expr = k + 1;
	as.expr_end = end;
	as.line = line(s, i);
	ot_vec_push(&s->f->assigns, as);
	if (s->f->kind == OT_TFILE_TEST) {
		uint32_t p = as.expr;
		if (is(s, p, "functools") && is(s, p + 1, "."))
			p += 2;
		if (is(s, p, "partial") && is(s, p + 1, "(") && (is(s, p + 2, "ops") || is(s, p + 2, "modules")))
			ot_map_put(s->partials, as.name, is(s, p + 2, "modules") ? (void *)2 : (void *)1);
	}
}

/* ---- test files ------------------------------------------------------------------------ */

struct open_class {
	const char *name;
	uint16_t col;
};

/* @ops(EXPR, ...) at bol token i; `cls` is the enclosing class or NULL. */
static void parse_test(struct sc *s, uint32_t i, const char *cls)
{
	uint32_t d = dotted_end(s, i + 1), open, close, k;
	ot_tr_test t = {0};
	uintptr_t partial;
	const char *last;
	if (d == i + 1 || !is(s, d, "("))
		return;
	last = dup(s, d - 1);
	partial = (uintptr_t)ot_map_get(s->partials, last);
	if (strcmp(last, "ops") && strcmp(last, "modules") && !partial)
		return;
	open = d;
	close = ot_tok_close(s->t, open);
	t.decorator = last;
	t.modules = !strcmp(last, "modules") || partial == 2;
	t.expr = open + 1;
	t.expr_end = arg_end(s, open + 1, close);
	t.expr_text = text_of(s, t.expr, t.expr_end);
	t.cls = cls;
	t.line = line(s, i);
	for (k = close + 1; k < s->t->n; k++) {
		if (!s->t->toks[k].bol)
			continue;
		if (is(s, k, "@"))
			continue;
		if (is(s, k, "async"))
			k++;
		if (is(s, k, "def") && kind(s, k + 1, OT_TOK_NAME)) {
			t.func = dup(s, k + 1);
			t.func_line = line(s, k);
		}
		break;
	}
	ot_vec_push(&s->f->tests, t);
}

typedef OT_VEC(uint32_t) offset_vec;

/* skipOps('TestClass', 'test_name', {...}): the bytes of its arguments. */
struct skipops {
	uint32_t open, close;
	const char *cls, *test;
};
typedef OT_VEC(struct skipops) skipops_vec;

static void find_skipops(struct sc *s, skipops_vec *out)
{
	for (uint32_t i = 0; i + 1 < s->t->n; i++) {
		struct skipops r;
		uint32_t next, close;
		if (!is(s, i, "skipOps") || !is(s, i + 1, "("))
			continue;
		close = ot_tok_close(s->t, i + 1);
		r.open = s->t->toks[i + 1].off;
		r.close = close < s->t->n ? s->t->toks[close].off : UINT32_MAX;
		r.cls = string_at(s, i + 2, &next);
		r.test = r.cls && is(s, next, ",") ? string_at(s, next + 1, NULL) : NULL;
		if (r.cls && r.test)
			ot_vec_push(out, r);
	}
}

/* xfail("name", "variant"): token 0 of `t` is the kind, at line `ln`. */
static void parse_mention(struct sc *s, const ot_toks *t, uint32_t ln, const skipops_vec *ranges)
{
	const ot_toks *file_toks = s->t;
	uint32_t next, off = t->toks[0].off;
	ot_tr_mention m = {0};
	s->t = t;
	m.name = is(s, 1, "(") ? string_at(s, 2, &next) : NULL;
	if (m.name) {
		m.kind = dup(s, 0);
		m.line = ln;
		m.variant = "";
		if (is(s, next, ",") && kind(s, next + 1, OT_TOK_STRING)) {
			const char *v = string_at(s, next + 1, NULL);
			if (v)
				m.variant = v;
		}
		for (size_t r = ranges->len; r-- > 0;)
			if (ranges->items[r].open < off && off < ranges->items[r].close) {
				m.cls = ranges->items[r].cls;
				m.test = ranges->items[r].test;
				break;
			}
		ot_vec_push(&s->f->mentions, m);
	}
	s->t = file_toks;
}

/* Is the identifier ending just before `p` (in [text, p)) one of the mention kinds? */
static bool mention_before(const char *text, const char *p)
{
	static const char *const kinds[] = {"xfail", "skip", "decorate", "tol1", "tol2"};
	if (p == text || !strchr("lpe12", p[-1]) || !p[-1])
		return false; /* the last letters of the kinds: most calls end here */
	for (size_t k = 0; k < OT_ARRAY_LEN(kinds); k++) {
		size_t n = strlen(kinds[k]);
		const char *b = p - n;
		if (b >= text && !memcmp(b, kinds[k], n) &&
		    (b == text || !(ot_is_ident_char(b[-1]) || b[-1] == '.' || (unsigned char)b[-1] >= 0x80)))
			return true;
	}
	return false;
}

/* The calls naming ops in a test file, xfail("name", ...): found by their text
 * (a parenthesis and a quote, or one that ends a line), each tokenized alone. */
static void find_mentions(struct sc *s, const char *text, size_t len, const offset_vec *found,
			  const skipops_vec *ranges)
{
	const offset_vec hits = *found;
	ot_toks t = {0};
	uint32_t ln = 1;
	const char *at = text;
	for (size_t h = 0; h < hits.len; h++) {
		const char *p = text + hits.items[h], *bol = p;
		for (const char *q; (q = memchr(at, '\n', (size_t)(p - at))); at = q + 1)
			ln++;
		while (bol > text && bol[-1] != '\n')
			bol--;
		if (memchr(bol, '#', (size_t)(p - bol)))
			continue; /* a comment, most likely */
		t.n = 0;
		ot_pytok_append(&t, text, len, hits.items[h], ln, true);
		if (t.n > 2)
			parse_mention(s, &t, ln, ranges);
	}
	ot_toks_free(&t);
}

/* Is the line at p (its indentation skipped: `col`) one a test file's records start at:
 * a decorator, class, def, or a module-level assignment? */
static bool statement_of_interest(const char *p, const char *end, size_t col)
{
	if (*p == '@')
		return true;
	if ((end - p > 6 && !memcmp(p, "class ", 6)) || (end - p > 4 && !memcmp(p, "def ", 4)) ||
	    (end - p > 10 && !memcmp(p, "async def ", 10)))
		return true;
	if (col || !ot_is_ident_start(*p))
		return false;
	while (p < end && ot_is_ident_char(*p))
		p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p < end && ((*p == '=' && (p + 1 == end || p[1] != '=')) || *p == ':' ||
			   (*p == '+' && p + 1 < end && p[1] == '='));
}

/* One pass over a test file: the offsets of its triple quotes, and of the
 * mention calls, xfail("name"...) (a kind, '(', blanks, then a quote or a
 * line end: xfail(\n "name"), in order. */
static void prescan(const char *text, size_t len, offset_vec *tq, offset_vec *mentions)
{
	/* the text is NUL-terminated (a NUL inside it only stops strcspn early) */
	for (size_t i = 0; i < len; i++) {
		char c;
		i += strcspn(text + i, "\"'(");
		if (i >= len)
			break;
		c = text[i];
		if (c == '"' || c == '\'') {
			if (i + 2 < len && text[i + 1] == c && text[i + 2] == c) {
				ot_vec_push(tq, (uint32_t)i);
				i += 2;
			}
		} else if (c == '(' && mention_before(text, text + i)) {
			size_t j = i + 1;
			while (j < len && (text[j] == ' ' || text[j] == '\t'))
				j++;
			if (j < len && (text[j] == '"' || text[j] == '\'' || text[j] == '\n' || text[j] == '\r')) {
				const char *b = text + i;
				while (b > text && ot_is_ident_char(b[-1]))
					b--;
				ot_vec_push(mentions, (uint32_t)(b - text));
			}
		}
	}
}

/* A test file's statements of interest, tokenized into out->toks (in file
 * order, each a `bol` start): the rest of the file (test bodies) is skipped
 * line by line; a line inside a triple-quoted string (a docstring) starts
 * nothing. */
static void select_statements(ot_toks *out, const char *text, size_t len, const offset_vec *quotes)
{
	const char *p = text, *end = text + len;
	const offset_vec tq = *quotes;
	size_t next_tq = 0;
	uint32_t ln = 1;
	bool in_str = false;
	char quote = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *c = p;
		size_t col = 0;
		if (!eol)
			eol = end;
		if (!in_str) {
			while (c < eol && (*c == ' ' || *c == '\t')) {
				col++;
				c++;
			}
			if (c < eol && statement_of_interest(c, eol, col)) {
				size_t stop = ot_pytok_append(out, text, len, (size_t)(p - text), ln, true);
				for (const char *q = p; (q = memchr(q, '\n', (size_t)(text + stop - q))) && q < text + stop; q++)
					ln++;
				p = text + stop;
				while (next_tq < tq.len && tq.items[next_tq] < stop)
					next_tq++; /* its strings were tokenized */
				continue;
			}
		}
		while (next_tq < tq.len && text + tq.items[next_tq] < eol) {
			uint32_t at = tq.items[next_tq++];
			if (in_str && text[at] != quote)
				continue; /* the other kind, inside the string */
			in_str = !in_str;
			quote = text[at];
			while (next_tq < tq.len && tq.items[next_tq] < at + 3)
				next_tq++; /* """" : the match one byte on is not a quote of its own */
		}
		p = eol + 1;
		ln++;
	}
}

/* ---- benchmarks ------------------------------------------------------------------------- */

/* The API a dotted name [b, e) called in a benchmark names, or NULL. */
static const char *bench_api(struct sc *s, uint32_t b, uint32_t e, bool method_ok)
{
	const char *t = text_of(s, b, e);
	if (ot_starts_with(t, "F."))
		return ot_arena_printf(s->a, "torch.nn.functional.%s", t + 2);
	if (ot_starts_with(t, "nn."))
		return ot_arena_printf(s->a, "torch.nn.%s", t + 3);
	if (ot_starts_with(t, "torch."))
		return t;
	if (method_ok && e - b >= 3 && strcmp(t, "self") && !ot_starts_with(t, "self.") &&
	    !ot_starts_with(t, "np.") && !ot_starts_with(t, "op_bench.") && !ot_starts_with(t, "math."))
		return ot_arena_printf(s->a, "Tensor.%s", dup(s, e - 1));
	return NULL;
}

static void add_bench(struct sc *s, const char *api, const char *cls, const char *where, uint32_t ln)
{
	ot_tr_bench bm = {api, cls, where, ln};
	for (size_t k = 0; k < s->f->benches.len; k++) {
		const ot_tr_bench *o = &s->f->benches.items[k];
		if (o->line == ln && !strcmp(o->api, api))
			return;
	}
	ot_vec_push(&s->f->benches, bm);
}

/* Calls in [b, e): torch API calls (and, with `methods`, tensor methods). */
static void bench_calls(struct sc *s, uint32_t b, uint32_t e, const char *cls, const char *where,
			bool methods, bool modules_only)
{
	for (uint32_t k = b; k < e; k++) {
		uint32_t d;
		const char *api;
		if (!kind(s, k, OT_TOK_NAME) || (k > 0 && is(s, k - 1, ".")))
			continue;
		d = dotted_end(s, k);
		if (!is(s, d, "(")) {
			k = d - 1;
			continue;
		}
		api = bench_api(s, k, d, methods);
		if (api && modules_only) {
			const char *last = strrchr(api, '.');
			if (!ot_starts_with(api, "torch.nn.") || !last || last[1] < 'A' || last[1] > 'Z')
				api = NULL;
		}
		if (api)
			add_bench(s, api, cls, where, line(s, d - 1));
		k = d - 1;
	}
}

/* The body of the def at bol token i: [i, end). */
static uint32_t block_end(const struct sc *s, uint32_t i)
{
	uint16_t col = s->t->toks[i].col;
	for (uint32_t k = statement_end(s, i); k < s->t->n; k = statement_end(s, k))
		if (s->t->toks[k].col <= col)
			return k;
	return s->t->n;
}

/* op_bench.op_list(attrs=[["abs", torch.abs], ["bernoulli_", bernoulli_], ...]) at token i. */
static void bench_op_list(struct sc *s, uint32_t i)
{
	uint32_t open = dotted_end(s, i), close = ot_tok_close(s->t, open);
	for (uint32_t k = open + 1; k < close; k++) {
		uint32_t d;
		if (!is(s, k, "[") || !kind(s, k + 1, OT_TOK_STRING) || !is(s, k + 2, ","))
			continue;
		d = dotted_end(s, k + 3);
		if (d == k + 3)
			continue;
		if (d == k + 4) {
			/* a helper of the file: def bernoulli_(input): return input.bernoulli_() */
			for (uint32_t j = 0; j < s->t->n; j++)
				if (s->t->toks[j].bol && s->t->toks[j].col == 0 && is(s, j, "def") &&
				    ot_tok_is(s->t, j + 1, dup(s, k + 3))) {
					bench_calls(s, j + 2, block_end(s, j), NULL, "op_list", true, false);
					break;
				}
			continue;
		}
		{
			const char *api = bench_api(s, k + 3, d, false);
			if (api)
				add_bench(s, api, NULL, "op_list", line(s, k + 3));
		}
	}
}

static void scan_benchmark_class(struct sc *s, uint32_t i, const char *cls)
{
	uint32_t end = block_end(s, i);
	for (uint32_t k = statement_end(s, i); k < end; k = statement_end(s, k)) {
		uint32_t body_end;
		bool fwd;
		if (!is(s, k, "def") || !(is(s, k + 1, "forward") || is(s, k + 1, "init")))
			continue;
		fwd = is(s, k + 1, "forward");
		body_end = block_end(s, k);
		bench_calls(s, k + 2, body_end, cls, fwd ? "forward" : "init", fwd, !fwd);
	}
}

/* ---- which files ------------------------------------------------------------------------- */

/* The test files that parametrise tests with the databases (@ops, @modules,
 * a partial of ops) at 1.13.1 or 2.6.0, sorted: check_testdb verifies at
 * both releases that no other file under test/ or functorch/test/ does. */
static const char *const test_files[] = {
	"functorch/test/test_aotdispatch.py",
	"functorch/test/test_ops.py",
	"functorch/test/test_vmap.py",
	"test/distributed/_tensor/test_dtensor_ops.py",
	"test/export/opinfo_schema.py",
	"test/export/test_hop.py",
	"test/functorch/test_aotdispatch.py",
	"test/functorch/test_ops.py",
	"test/functorch/test_vmap.py",
	"test/inductor/test_op_dtype_prop.py",
	"test/inductor/test_torchinductor_opinfo.py",
	"test/jit/test_dtype_analysis.py",
	"test/lazy/test_ts_opinfo.py",
	"test/onnx/test_op_consistency.py",
	"test/test_binary_ufuncs.py",
	"test/test_custom_ops.py",
	"test/test_decomp.py",
	"test/test_expanded_weights.py",
	"test/test_fake_tensor.py",
	"test/test_foreach.py",
	"test/test_fx.py",
	"test/test_fx_experimental.py",
	"test/test_jit_cuda_fuser.py",
	"test/test_jit_fuser_te.py",
	"test/test_masked.py",
	"test/test_maskedtensor.py",
	"test/test_meta.py",
	"test/test_modules.py",
	"test/test_mps.py",
	"test/test_nestedtensor.py",
	"test/test_ops.py",
	"test/test_ops_fwd_gradients.py",
	"test/test_ops_gradients.py",
	"test/test_ops_jit.py",
	"test/test_prims.py",
	"test/test_proxy_tensor.py",
	"test/test_python_dispatch.py",
	"test/test_reductions.py",
	"test/test_schema_check.py",
	"test/test_sparse.py",
	"test/test_sparse_csr.py",
	"test/test_spectral_ops.py",
	"test/test_testing.py",
	"test/test_unary_ufuncs.py",
	"test/test_utils.py",
	"test/test_xpu.py",
};

static int cmp_path(const void *key, const void *item)
{
	return strcmp(key, *(const char *const *)item);
}

int ot_testscan_kind(const char *path)
{
	if (!strcmp(path, "torch/testing/_internal/common_methods_invocations.py") ||
	    !strcmp(path, "torch/testing/_internal/common_modules.py") ||
	    (ot_starts_with(path, "torch/testing/_internal/opinfo/") && ot_ends_with(path, ".py")))
		return OT_TFILE_DB;
	if (bsearch(path, test_files, OT_ARRAY_LEN(test_files), sizeof(*test_files), cmp_path))
		return OT_TFILE_TEST;
	if (ot_starts_with(path, "benchmarks/operator_benchmark/pt/") && ot_ends_with(path, ".py") &&
	    !strchr(path + 33, '/'))
		return OT_TFILE_BENCH;
	return -1;
}

/** The test files ot_testscan_kind names (for the check of its list). */
size_t ot_testscan_test_files(const char *const **out)
{
	*out = test_files;
	return OT_ARRAY_LEN(test_files);
}

/* ---- the file ------------------------------------------------------------------------------- */

void ot_testscan_file(ot_tr_file *out, ot_arena *arena, const char *path, uint32_t file,
		      ot_tfile_kind fkind, const char *text, size_t len)
{
	struct sc s = {out, arena, &out->toks, ot_map_new(), OT_BUF_INIT};
	OT_VEC(struct open_class) stack = {0};
	skipops_vec ranges = {0};

	memset(out, 0, sizeof(*out));
	out->path = path;
	out->file = file;
	out->kind = fkind;
	if (fkind == OT_TFILE_TEST) {
		offset_vec quotes = {0}, mentions = {0};
		prescan(text, len, &quotes, &mentions);
		select_statements(&out->toks, text, len, &quotes);
		find_skipops(&s, &ranges);
		find_mentions(&s, text, len, &mentions, &ranges);
		ot_vec_free(&quotes);
		ot_vec_free(&mentions);
	} else {
		ot_pytok_run(&out->toks, text, len);
	}

	for (uint32_t i = 0; i < s.t->n; i++) {
		const ot_tok *k = &s.t->toks[i];
		if (k->bol) {
			while (stack.len && stack.items[stack.len - 1].col >= k->col)
				stack.len--;
			if (is(&s, i, "class")) {
				parse_class(&s, i);
				if (kind(&s, i + 1, OT_TOK_NAME)) {
					struct open_class oc = {out->classes.items[out->classes.len - 1].name, k->col};
					const char *base = out->classes.items[out->classes.len - 1].base;
					ot_vec_push(&stack, oc);
					if (fkind == OT_TFILE_BENCH && base && !strcmp(base, "TorchBenchmarkBase"))
						scan_benchmark_class(&s, i, oc.name);
				}
				continue;
			}
			if (k->col == 0 && k->kind == OT_TOK_NAME && (is(&s, i + 1, "=") || is(&s, i + 1, "+=") ||
								     is(&s, i + 1, ":")))
				parse_assign(&s, i);
			if (fkind == OT_TFILE_TEST && is(&s, i, "@"))
				parse_test(&s, i, stack.len ? stack.items[stack.len - 1].name : NULL);
		}
		if (k->kind != OT_TOK_NAME || !is(&s, i + 1, "(") || (i > 0 && (is(&s, i - 1, ".") ||
										 is(&s, i - 1, "def") ||
										 is(&s, i - 1, "class"))))
			continue;
		if (fkind == OT_TFILE_DB && info_class(&s, i))
			parse_entry(&s, i);
	}
	if (fkind == OT_TFILE_BENCH)
		for (uint32_t i = 0; i + 3 < s.t->n; i++)
			if (is(&s, i, "op_bench") && is(&s, i + 1, ".") && is(&s, i + 2, "op_list") &&
			    is(&s, i + 3, "("))
				bench_op_list(&s, i);
	ot_vec_free(&stack);
	ot_vec_free(&ranges);
	ot_map_free(s.partials);
	ot_buf_free(&s.tmp);
}

void ot_testscan_free(ot_tr_file *f)
{
	if (!f)
		return;
	ot_vec_free(&f->classes);
	ot_vec_free(&f->assigns);
	ot_vec_free(&f->calls);
	ot_vec_free(&f->tests);
	ot_vec_free(&f->mentions);
	ot_vec_free(&f->benches);
	ot_toks_free(&f->toks);
}
