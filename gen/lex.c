#include "lex.h"

#include <pthread.h>
#include <string.h>

#include "common.h"

ot_lang ot_lex_lang(const char *path)
{
	static const char *const c_ext[] = {".c", ".cc", ".cpp", ".cxx", ".h", ".hpp",
					    ".cu", ".cuh", ".mm", ".metal"};
	const char *dot = strrchr(path, '.');
	size_t i;
	if (!dot || strchr(dot, '/'))
		return OT_LANG_OTHER;
	for (i = 0; i < OT_ARRAY_LEN(c_ext); i++)
		if (!strcmp(dot, c_ext[i]))
			return OT_LANG_C;
	if (!strcmp(dot, ".py") || !strcmp(dot, ".pyi"))
		return OT_LANG_PYTHON;
	if (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml"))
		return OT_LANG_YAML;
	return OT_LANG_OTHER;
}

/* Replace [from, to) with spaces, keeping newlines. */
static void blank(char *out, const char *text, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		out[i] = text[i] == '\n' ? '\n' : ' ';
}

/* ---- C, C++, CUDA ------------------------------------------------------------ */

/* One open #if: does it disable its current branch? */
enum cond { COND_UNKNOWN, COND_FALSE, COND_TRUE, COND_DONE };

struct cstate {
	const char *t;
	char *out;
	size_t len;
	enum cond stack[64];
	bool literal[64]; /* the chain began with #if 0/1/false/true */
	int depth, overflow;
	const char *pending_marker; /* set by c_directive for the caller */
	bool disabled;              /* c_disabled(), cached after each directive */
};

static bool c_disabled(const struct cstate *s)
{
	for (int i = 0; i < s->depth; i++)
		if (s->stack[i] == COND_FALSE || s->stack[i] == COND_DONE)
			return true;
	return false;
}

/* End of a block comment starting at i ("/" "*"): index after the closing. */
static size_t c_block_comment_end(const char *t, size_t len, size_t i)
{
	const char *end;
	if (i + 2 >= len)
		return len;
	end = memmem(t + i + 2, len - i - 2, "*/", 2);
	return end ? (size_t)(end - t) + 2 : len;
}

/* End of the logical line starting at i (backslash continuations, and block
 * comments that run past the newline). Returns the index of the final '\n'
 * or len. */
static size_t c_logical_line_end(const char *t, size_t len, size_t i)
{
	while (i < len) {
		if (t[i] == '\n') {
			size_t j = i;
			while (j > 0 && (t[j - 1] == ' ' || t[j - 1] == '\t' || t[j - 1] == '\r'))
				j--;
			if (j > 0 && t[j - 1] == '\\') {
				i++;
				continue;
			}
			return i;
		}
		if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
			i = c_block_comment_end(t, len, i);
			continue;
		}
		if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
			while (i < len && t[i] != '\n')
				i++;
			continue;
		}
		i++;
	}
	return len;
}

/* Classify "#if <expr>" when the expression is a literal 0/1/false/true. */
static enum cond c_if_literal(const char *t, size_t from, size_t to)
{
	while (from < to && (t[from] == ' ' || t[from] == '\t'))
		from++;
	while (to > from && (t[to - 1] == ' ' || t[to - 1] == '\t' || t[to - 1] == '\r' ||
			     t[to - 1] == '\n'))
		to--;
	/* a trailing comment after the literal is common: "#if 0 // disabled" */
	for (size_t k = from; k + 1 < to; k++) {
		if (t[k] == '/' && (t[k + 1] == '/' || t[k + 1] == '*')) {
			to = k;
			while (to > from && (t[to - 1] == ' ' || t[to - 1] == '\t'))
				to--;
			break;
		}
	}
	if ((to - from == 1 && t[from] == '0') ||
	    (to - from == 5 && !memcmp(t + from, "false", 5)))
		return COND_FALSE;
	if ((to - from == 1 && t[from] == '1') || (to - from == 4 && !memcmp(t + from, "true", 4)))
		return COND_TRUE;
	return COND_UNKNOWN;
}

/* Leave a 3-character marker ("#if", "#el", "#en") where a directive of an
 * #if chain of unknown condition starts, so the structure walker can keep the
 * braces of alternative branches from being counted twice. */
static void c_marker(struct cstate *s, size_t at, const char *m)
{
	if (at + 3 <= s->len)
		memcpy(s->out + at, m, 3);
}

static void c_directive(struct cstate *s, size_t start, size_t end)
{
	const char *t = s->t;
	bool was_disabled = c_disabled(s);
	size_t i = start + 1, w;
	while (i < end && (t[i] == ' ' || t[i] == '\t'))
		i++;
	w = i;
	while (w < end && ot_is_ident_char(t[w]))
		w++;
#define IS(word) (w - i == sizeof(word) - 1 && !memcmp(t + i, word, sizeof(word) - 1))
	if (IS("if") || IS("ifdef") || IS("ifndef")) {
		enum cond c = IS("if") ? c_if_literal(t, w, end) : COND_UNKNOWN;
		if (s->depth < (int)OT_ARRAY_LEN(s->stack)) {
			s->literal[s->depth] = c != COND_UNKNOWN;
			s->stack[s->depth++] = c;
			if (c == COND_UNKNOWN && !was_disabled)
				s->pending_marker = "#if";
		} else {
			s->overflow++;
		}
	} else if (IS("elif") || IS("else")) {
		if (s->depth && !s->overflow) {
			enum cond *top = &s->stack[s->depth - 1];
			if (*top == COND_TRUE)
				*top = COND_DONE; /* the taken branch is over */
			else if (*top == COND_FALSE) /* not taken yet: this one may be */
				*top = IS("elif") ? c_if_literal(t, w, end) : COND_TRUE;
			if (!s->literal[s->depth - 1] && !was_disabled)
				s->pending_marker = "#el";
		}
	} else if (IS("endif")) {
		if (s->overflow) {
			s->overflow--;
		} else if (s->depth) {
			s->depth--;
			if (!s->literal[s->depth] && !c_disabled(s))
				s->pending_marker = "#en";
		}
	}
#undef IS
}

/* Is the 'R' at i the start of a raw string (R, u8R, uR, UR, LR), not the end
 * of an identifier like FOOR"? */
static bool raw_string_prefix_ok(const char *t, size_t i)
{
	size_t p = i;
	if (p >= 2 && t[p - 2] == 'u' && t[p - 1] == '8')
		p -= 2;
	else if (p >= 1 && (t[p - 1] == 'u' || t[p - 1] == 'U' || t[p - 1] == 'L'))
		p -= 1;
	return p == 0 || !ot_is_ident_char(t[p - 1]);
}

/* Raw string literal at i (the 'R' of R"delim( ... )delim"): returns the index
 * after it, or 0 when this is not a well-formed raw string opening. */
static size_t c_raw_string_end(const char *t, size_t len, size_t i, size_t *content_start)
{
	size_t d = i + 2, k;
	char close[20];
	const char *end;
	while (d < len && d - (i + 2) <= 16 && t[d] != '(') {
		if (t[d] == ' ' || t[d] == ')' || t[d] == '\\' || t[d] == '\n')
			return 0;
		d++;
	}
	if (d >= len || t[d] != '(')
		return 0;
	k = d - (i + 2);
	close[0] = ')';
	memcpy(close + 1, t + i + 2, k);
	close[k + 1] = '"';
	*content_start = d + 1;
	end = memmem(t + d + 1, len - d - 1, close, k + 2);
	return end ? (size_t)(end - t) + k + 2 : len;
}

/* Character classes of the C lexer: most bytes of a file are "plain" and
 * are skipped in a tight loop. */
enum { C_PLAIN, C_SPACE, C_NL, C_HASH, C_SLASH, C_QUOTE, C_IDENT, C_DIGIT };

static unsigned char c_class[256];
static pthread_once_t c_class_once = PTHREAD_ONCE_INIT;

static void init_c_class(void)
{
	for (int ch = 0; ch < 256; ch++) {
		unsigned char k = C_PLAIN;
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v')
			k = C_SPACE;
		else if (ch == '\n')
			k = C_NL;
		else if (ch == '#')
			k = C_HASH;
		else if (ch == '/')
			k = C_SLASH;
		else if (ch == '"' || ch == '\'')
			k = C_QUOTE;
		else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_')
			k = C_IDENT;
		else if (ch >= '0' && ch <= '9')
			k = C_DIGIT;
		c_class[ch] = k;
	}
}

/* End of a string or character literal opened at i (quote included). */
static size_t c_literal_end(const char *t, size_t len, size_t i)
{
	char q = t[i];
	size_t j = i + 1;
	while (j < len && t[j] != q && t[j] != '\n') {
		if (t[j] == '\\' && j + 1 < len)
			j++;
		j++;
	}
	return j;
}

static void c_code_view(char *out, const char *t, size_t len)
{
	struct cstate s = {.t = t, .out = out, .len = len};
	bool line_start = true;
	size_t i = 0;

	pthread_once(&c_class_once, init_c_class);
	memcpy(out, t, len);
	while (i < len) {
		unsigned char k = c_class[(unsigned char)t[i]];
		if (k == C_NL) {
			line_start = true;
			i++;
			continue;
		}
		if (k == C_SPACE) {
			i++;
			continue;
		}
		if (line_start && k == C_HASH) {
			size_t end = c_logical_line_end(t, len, i);
			s.pending_marker = NULL;
			c_directive(&s, i, end);
			blank(out, t, i, end);
			if (s.pending_marker)
				c_marker(&s, i, s.pending_marker);
			s.disabled = c_disabled(&s);
			i = end;
			continue;
		}
		line_start = false;
		if (s.disabled) {
			const char *nl = memchr(t + i, '\n', len - i);
			size_t end = nl ? (size_t)(nl - t) : len;
			blank(out, t, i, end);
			i = end;
			continue;
		}
		switch (k) {
		case C_PLAIN:
		case C_HASH:
			/* skip the run of plain bytes in one go */
			do
				i++;
			while (i < len && c_class[(unsigned char)t[i]] == C_PLAIN);
			break;
		case C_SLASH:
			if (i + 1 < len && (t[i + 1] == '/' || t[i + 1] == '*')) {
				size_t end = t[i + 1] == '/' ? c_logical_line_end(t, len, i)
							     : c_block_comment_end(t, len, i);
				blank(out, t, i, end);
				i = end;
			} else {
				i++;
			}
			break;
		case C_QUOTE: {
			size_t j = c_literal_end(t, len, i);
			blank(out, t, i + 1, j < len ? j : len);
			i = j < len && t[j] == t[i] ? j + 1 : j;
			break;
		}
		case C_IDENT: {
			/* an identifier; one ending in R (R, u8R, LR...) right before a
			 * quote opens a raw string */
			size_t start = i;
			do
				i++;
			while (i < len && (c_class[(unsigned char)t[i]] == C_IDENT ||
					   c_class[(unsigned char)t[i]] == C_DIGIT));
			if (i < len && t[i] == '"' && t[i - 1] == 'R' &&
			    raw_string_prefix_ok(t, i - 1) && i - 1 >= start) {
				size_t content, end = c_raw_string_end(t, len, i - 1, &content);
				if (end) {
					/* keep R" ... " visible, blank the delimiters and body */
					blank(out, t, i + 1, end > i + 1 ? end - 1 : end);
					i = end;
				}
			}
			break;
		}
		case C_DIGIT:
			/* a number, with C++14 digit separators (1'000) and exponents */
			do {
				if ((t[i] == 'e' || t[i] == 'E' || t[i] == 'p' || t[i] == 'P') &&
				    i + 1 < len && (t[i + 1] == '+' || t[i + 1] == '-'))
					i++;
				i++;
			} while (i < len && (c_class[(unsigned char)t[i]] == C_IDENT ||
					     c_class[(unsigned char)t[i]] == C_DIGIT || t[i] == '.' ||
					     (t[i] == '\'' && i + 1 < len &&
					      c_class[(unsigned char)t[i + 1]] >= C_IDENT)));
			break;
		default:
			i++;
		}
	}
}

/* ---- Python ---------------------------------------------------------------------- */

static void py_code_view(char *out, const char *t, size_t len)
{
	size_t i = 0;
	memcpy(out, t, len);
	while (i < len) {
		char c = t[i];
		if (c == '#') {
			size_t nl = i;
			while (nl < len && t[nl] != '\n')
				nl++;
			blank(out, t, i, nl);
			i = nl;
			continue;
		}
		if (c == '"' || c == '\'') {
			bool triple = i + 2 < len && t[i + 1] == c && t[i + 2] == c;
			size_t j = i + (triple ? 3 : 1), content = j;
			for (;;) {
				if (j >= len)
					break;
				if (t[j] == '\\' && j + 1 < len) {
					j += 2;
					continue;
				}
				if (!triple && t[j] == '\n')
					break;
				if (t[j] == c && (!triple || (j + 2 < len && t[j + 1] == c &&
							      t[j + 2] == c)))
					break;
				j++;
			}
			blank(out, t, content, j < len ? j : len);
			if (j < len && t[j] == c)
				j += triple ? 3 : 1;
			i = j;
			continue;
		}
		if (ot_is_ident_char(c)) {
			/* Identifiers (and string prefixes such as rb"...", whose
			 * quote is handled on the next round) are code. */
			while (i < len && ot_is_ident_char(t[i]))
				i++;
			continue;
		}
		i++;
	}
}

void ot_lex_code_view(char *out, const char *text, size_t len, ot_lang lang)
{
	switch (lang) {
	case OT_LANG_C:
		c_code_view(out, text, len);
		break;
	case OT_LANG_PYTHON:
		py_code_view(out, text, len);
		break;
	default:
		memcpy(out, text, len);
		break;
	}
}
