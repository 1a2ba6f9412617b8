/*
 * pytok.c - a Python tokenizer: one pass, no allocation but the token array.
 */
#include "pytok.h"

#include <pthread.h>
#include <string.h>

/* The length of the operator at p (at least 1 byte). */
static uint32_t op_len(const char *p, const char *end)
{
	static const char *const ops3[] = {"**=", "//=", ">>=", "<<=", "..."};
	static const char *const ops2[] = {"->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
					   "@=", "==", "!=", "<=", ">=", "**", "//", "<<", ">>", ":="};
	size_t left = (size_t)(end - p);
	if (left < 2 || !memchr("*/<>.-+%&|^@=!:", p[1], 15))
		return 1; /* the second byte of every longer operator is one of these */
	for (size_t i = 0; left >= 3 && i < OT_ARRAY_LEN(ops3); i++)
		if (!memcmp(p, ops3[i], 3))
			return 3;
	for (size_t i = 0; left >= 2 && i < OT_ARRAY_LEN(ops2); i++)
		if (p[0] == ops2[i][0] && p[1] == ops2[i][1])
			return 2;
	return 1;
}

/* How many prefix letters (r, b, u, f in any case, up to two) precede a quote at p, or -1. */
static int string_prefix(const char *p, const char *end)
{
	int k = 0;
	while (k < 2 && p + k < end && strchr("rRbBuUfF", p[k]) && p[k])
		k++;
	for (int n = k; n >= 0; n--)
		if (p + n < end && (p[n] == '\'' || p[n] == '"')) {
			for (int j = 0; j < n; j++)
				if (!strchr("rRbBuUfF", p[j]))
					return -1;
			return n;
		}
	return -1;
}

/* The end of the string literal whose quote is at q; *lines counts the newlines inside. */
static const char *string_end(const char *q, const char *end, uint32_t *lines)
{
	char quote = *q;
	bool triple = end - q >= 3 && q[1] == quote && q[2] == quote;
	const char *p = q + (triple ? 3 : 1);
	while (p < end) {
		if (*p == '\\') {
			if (p + 1 < end && p[1] == '\n')
				(*lines)++;
			p += 2;
			continue;
		}
		if (*p == '\n') {
			if (!triple)
				return p; /* unterminated: ends at the line's end */
			(*lines)++;
		}
		if (*p == quote) {
			if (!triple)
				return p + 1;
			if (end - p >= 3 && p[1] == quote && p[2] == quote)
				return p + 3;
		}
		p++;
	}
	return end;
}

enum { C_OTHER, C_SPACE, C_NL, C_HASH, C_QUOTE, C_NAME, C_PREFIX, C_DIGIT, C_DOT, C_BACKSLASH, C_OPEN, C_CLOSE };

static uint8_t cls[256];
static pthread_once_t cls_once = PTHREAD_ONCE_INIT;

static void init_cls(void)
{
	for (int c = 0; c < 256; c++)
		cls[c] = c >= 0x80 || ot_is_ident_start((char)c) ? C_NAME : C_OTHER;
	for (const char *p = "rRbBuUfF"; *p; p++)
		cls[(unsigned char)*p] = C_PREFIX;
	for (int c = '0'; c <= '9'; c++)
		cls[c] = C_DIGIT;
	cls[' '] = cls['\t'] = cls['\r'] = cls['\f'] = C_SPACE;
	cls['\n'] = C_NL;
	cls['#'] = C_HASH;
	cls['\''] = cls['"'] = C_QUOTE;
	cls['.'] = C_DOT;
	cls['\\'] = C_BACKSLASH;
	cls['('] = cls['['] = cls['{'] = C_OPEN;
	cls[')'] = cls[']'] = cls['}'] = C_CLOSE;
}

static bool name_class(uint8_t c)
{
	return c == C_NAME || c == C_PREFIX || c == C_DIGIT;
}

size_t ot_pytok_append(ot_toks *out, const char *text, size_t len, size_t off, uint32_t line,
		       bool one)
{
	const char *p = text + off, *end = text + len, *line_start = p;
	size_t cap = out->cap, n = out->n;
	ot_tok *v = (ot_tok *)out->toks;
	int depth = 0;
	bool bol = true, joined = false, any = false;

	pthread_once(&cls_once, init_cls);
	out->text = text;
	while (p < end) {
		uint8_t c = cls[(unsigned char)*p];
		ot_tok t;
		const char *s = p;
		uint32_t extra = 0;

		switch (c) {
		case C_NL:
			line++;
			p++;
			line_start = p;
			if (depth == 0 && !joined) {
				if (one && any)
					goto done;
				bol = true;
			}
			joined = false;
			continue;
		case C_SPACE:
			do
				p++;
			while (p < end && cls[(unsigned char)*p] == C_SPACE);
			continue;
		case C_HASH:
			p = memchr(p, '\n', (size_t)(end - p));
			if (!p)
				p = end;
			continue;
		case C_BACKSLASH:
			if (p + 1 < end && (p[1] == '\n' || (p[1] == '\r' && p + 2 < end && p[2] == '\n'))) {
				joined = true;
				p++;
				continue;
			}
			break;
		default:
			break;
		}
		t.kind = OT_TOK_OP;
		if (c == C_QUOTE) {
			p = string_end(p, end, &extra);
			t.kind = OT_TOK_STRING;
		} else if (c == C_PREFIX) {
			int pre = string_prefix(p, end);
			if (pre > 0) {
				p = string_end(p + pre, end, &extra);
				t.kind = OT_TOK_STRING;
			}
		}
		if (t.kind == OT_TOK_STRING) {
			/* done */
		} else if (c == C_NAME || c == C_PREFIX) {
			while (p < end && name_class(cls[(unsigned char)*p]))
				p++;
			t.kind = OT_TOK_NAME;
		} else if (c == C_DIGIT || (c == C_DOT && p + 1 < end && cls[(unsigned char)p[1]] == C_DIGIT)) {
			while (p < end && (name_class(cls[(unsigned char)*p]) || *p == '.' ||
					   ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E'))))
				p++;
			t.kind = OT_TOK_NUMBER;
		} else {
			p += op_len(p, end);
			if (c == C_OPEN)
				depth++;
			else if (c == C_CLOSE && depth > 0)
				depth--;
		}
		t.off = (uint32_t)(s - text);
		t.len = (uint32_t)(p - s);
		t.line = line;
		t.col = 0;
		t.bol = bol;
		if (bol) {
			uint32_t col = 0;
			for (const char *q = line_start; q < s; q++)
				col = *q == '\t' ? (col / 8 + 1) * 8 : col + 1;
			t.col = col > UINT16_MAX ? UINT16_MAX : (uint16_t)col;
			bol = false;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = ot_realloc(v, cap * sizeof(*v));
		}
		v[n++] = t;
		any = true;
		if (extra) {
			line += extra;
			for (const char *q = p; q > s; q--)
				if (q[-1] == '\n') {
					line_start = q;
					break;
				}
		}
	}
done:
	out->toks = v;
	out->n = (uint32_t)n;
	out->cap = (uint32_t)cap;
	return (size_t)(p - text);
}

void ot_pytok_run(ot_toks *out, const char *text, size_t len)
{
	memset(out, 0, sizeof(*out));
	out->cap = (uint32_t)(len / 6 + 64);
	out->toks = ot_malloc(out->cap * sizeof(ot_tok));
	ot_pytok_append(out, text, len, 0, 1, false);
}

void ot_toks_free(ot_toks *t)
{
	if (!t)
		return;
	free((void *)t->toks);
	t->toks = NULL;
	t->n = t->cap = 0;
}

uint32_t ot_tok_close(const ot_toks *t, uint32_t open)
{
	int depth = 0;
	for (uint32_t i = open; i < t->n; i++) {
		const ot_tok *k = &t->toks[i];
		char c;
		if (k->kind != OT_TOK_OP || k->len != 1)
			continue;
		c = t->text[k->off];
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}')
			if (--depth == 0)
				return i;
	}
	return t->n;
}

bool ot_tok_string(const ot_toks *t, uint32_t i, ot_buf *out, uint32_t *next)
{
	bool ok = true;
	ot_buf_clear(out);
	if (i >= t->n || t->toks[i].kind != OT_TOK_STRING)
		return false;
	for (; i < t->n && t->toks[i].kind == OT_TOK_STRING; i++) {
		const char *s = t->text + t->toks[i].off, *e = s + t->toks[i].len;
		bool raw = false;
		size_t q;
		while (s < e && *s != '\'' && *s != '"') {
			if (*s == 'f' || *s == 'F')
				ok = false;
			if (*s == 'r' || *s == 'R')
				raw = true;
			s++;
		}
		q = (e - s >= 6 && s[1] == s[0] && s[2] == s[0]) ? 3 : 1;
		if ((size_t)(e - s) < 2 * q) {
			ok = false; /* unterminated */
			continue;
		}
		if (!raw && memchr(s + q, '\\', (size_t)(e - s) - 2 * q))
			ok = false;
		if (ok)
			ot_buf_put(out, s + q, (size_t)(e - s) - 2 * q);
	}
	if (next)
		*next = i;
	return ok;
}
