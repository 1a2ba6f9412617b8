#include "escape.h"

#include <string.h>

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

/* The character at s (len > 0): its length in bytes; *cp is -1 for an
 * invalid byte (length 1). */
static size_t next_char(const char *s, size_t len, long *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = ot_utf8_len(s, len);
	if (!n) {
		*cp = -1;
		return 1;
	}
	if (n == 1)
		*cp = u[0];
	else if (n == 2)
		*cp = ((long)(u[0] & 0x1F) << 6) | (u[1] & 0x3F);
	else if (n == 3)
		*cp = ((long)(u[0] & 0x0F) << 12) | ((long)(u[1] & 0x3F) << 6) | (u[2] & 0x3F);
	else
		*cp = ((long)(u[0] & 0x07) << 18) | ((long)(u[1] & 0x3F) << 12) |
		      ((long)(u[2] & 0x3F) << 6) | (u[3] & 0x3F);
	return n;
}

static bool is_break(long cp)
{
	return cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f' || cp == 0x85 ||
	       cp == 0x2028 || cp == 0x2029;
}

static bool is_control(long cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

static bool is_bidi(long cp)
{
	return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
	       cp == 0x200F || cp == 0x061C;
}

/* The shown form of a control or bidi character: \x1b, \u0085, \u202e. */
static void show(ot_buf *out, long cp)
{
	if (cp < 0x80)
		ot_buf_printf(out, "\\x%02lx", cp);
	else
		ot_buf_printf(out, "\\u%04lx", cp);
}

/*
 * The shared walk: every character of s, line breaks as `brk` (a "\r\n"
 * pair once), tabs kept or made spaces, controls and bidi controls shown,
 * invalid bytes as U+FFFD.
 */
static void walk(ot_buf *out, const char *s, size_t len, char brk, bool keep_tab)
{
	size_t i = 0;
	ot_buf_grow_by(out, len);
	while (i < len) {
		long cp;
		size_t n = next_char(s + i, len - i, &cp);
		if (cp < 0)
			ot_buf_puts(out, REPLACEMENT);
		else if (cp == '\t')
			ot_buf_putc(out, keep_tab ? '\t' : ' ');
		else if (is_break(cp)) {
			ot_buf_putc(out, brk);
			if (cp == '\r' && i + 1 < len && s[i + 1] == '\n')
				n = 2;
		} else if (is_control(cp) || is_bidi(cp))
			show(out, cp);
		else
			ot_buf_put(out, s + i, n);
		i += n;
	}
}

void ot_esc_display(ot_buf *out, const char *s, size_t len)
{
	walk(out, s, len, ' ', false);
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Markdown escapes of displayed text t: backslashes before the punctuation
 * both renderers honour, entities for the rest. */
static void md_text_of(ot_buf *out, const char *t, size_t len)
{
	size_t i = 0;
	/* what would start a block at the start of a line: "- ", "+ ", "1. ",
	 * "2) ", "---", "===", an indentation */
	if (len && t[0] == ' ') {
		ot_buf_puts(out, "&#32;");
		i = 1;
	} else if (len && (t[0] == '-' || t[0] == '+' || t[0] == '=') &&
		   (len == 1 || t[1] == ' ' || t[1] == t[0])) {
		ot_buf_puts(out, t[0] == '-' ? "\\-" : t[0] == '+' ? "\\+" : "&#61;");
		i = 1;
	} else {
		size_t d = 0;
		while (d < len && t[d] >= '0' && t[d] <= '9')
			d++;
		if (d && d < len && (t[d] == '.' || t[d] == ')') && (d + 1 == len || t[d + 1] == ' ')) {
			ot_buf_put(out, t, d);
			ot_buf_putc(out, '\\');
			i = d;
		}
	}
	for (; i < len; i++) {
		char c = t[i];
		switch (c) {
		case '\\': case '`': case '*': case '_': case '{': case '}': case '[': case ']':
		case '#': case '!':
			ot_buf_putc(out, '\\');
			ot_buf_putc(out, c);
			break;
		case '<': ot_buf_puts(out, "&lt;"); break;
		case '>': ot_buf_puts(out, "&gt;"); break;
		case '&': ot_buf_puts(out, "&amp;"); break;
		case '|': ot_buf_puts(out, "&#124;"); break;
		case '~': ot_buf_puts(out, "&#126;"); break;
		/* GitHub's autolinks: "scheme://", "www." and e-mail addresses */
		/* (an e-mail address is found after entities are decoded: a word
		 * joiner before '@' leaves it no local part) */
		case '@': ot_buf_puts(out, "\xE2\x81\xA0@"); break;
		case ':':
			if (i + 2 < len && t[i + 1] == '/' && t[i + 2] == '/')
				ot_buf_puts(out, "&#58;");
			else
				ot_buf_putc(out, c);
			break;
		case '.':
			if (i >= 3 && (t[i - 1] | 0x20) == 'w' && (t[i - 2] | 0x20) == 'w' &&
			    (t[i - 3] | 0x20) == 'w')
				ot_buf_putc(out, '\\');
			ot_buf_putc(out, c);
			break;
		default: ot_buf_putc(out, c);
		}
	}
}

void ot_esc_md_text(ot_buf *out, const char *s, size_t len)
{
	ot_buf t = OT_BUF_INIT;
	ot_esc_display(&t, s, len);
	md_text_of(out, t.ptr, t.size);
	ot_buf_free(&t);
}

static size_t longest_backticks(const char *s, size_t len)
{
	size_t run = 0, longest = 0;
	for (size_t i = 0; i < len; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest;
}

void ot_esc_md_code(ot_buf *out, const char *s, size_t len, bool in_table)
{
	ot_buf t = OT_BUF_INIT;
	size_t ticks;
	bool pad;
	ot_esc_display(&t, s, len);
	if (in_table && memchr(t.ptr, '|', t.size)) {
		md_text_of(out, t.ptr, t.size);
		ot_buf_free(&t);
		return;
	}
	if (!t.size) { /* "``" would open a longer span, not close an empty one */
		ot_buf_puts(out, "` `");
		ot_buf_free(&t);
		return;
	}
	ticks = longest_backticks(t.ptr, t.size) + 1;
	/* CommonMark strips one space on each side when both have one */
	pad = t.size && (t.ptr[0] == '`' || t.ptr[0] == ' ' || t.ptr[t.size - 1] == '`' ||
			 t.ptr[t.size - 1] == ' ');
	for (size_t i = 0; i < ticks; i++)
		ot_buf_putc(out, '`');
	if (pad)
		ot_buf_putc(out, ' ');
	ot_buf_put(out, t.ptr, t.size);
	if (pad)
		ot_buf_putc(out, ' ');
	for (size_t i = 0; i < ticks; i++)
		ot_buf_putc(out, '`');
	ot_buf_free(&t);
}

void ot_esc_md_block(ot_buf *out, const char *s, size_t len)
{
	walk(out, s, len, '\n', true);
}

size_t ot_esc_md_fence(const char *body, size_t len)
{
	size_t n = longest_backticks(body, len) + 1;
	return n < 3 ? 3 : n;
}

void ot_esc_url_path(ot_buf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (is_alnum((char)c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
			ot_buf_putc(out, (char)c);
		else
			ot_buf_printf(out, "%%%02X", c);
	}
}

void ot_esc_url(ot_buf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c >= 0x7F || strchr("\"<>\\^`{|}()", c))
			ot_buf_printf(out, "%%%02X", c);
		else
			ot_buf_putc(out, (char)c);
	}
}

void ot_esc_dot_url(ot_buf *out, const char *s, size_t len)
{
	ot_buf t = OT_BUF_INIT;
	ot_esc_url(&t, s, len);
	for (size_t i = 0; i < t.size; i++) {
		if (t.ptr[i] == '&')
			ot_buf_puts(out, "&amp;");
		else
			ot_buf_putc(out, t.ptr[i]);
	}
	ot_buf_free(&t);
}

void ot_esc_html(ot_buf *out, const char *s, size_t len)
{
	size_t i = 0;
	ot_buf_grow_by(out, len);
	while (i < len) {
		long cp;
		size_t n = next_char(s + i, len - i, &cp);
		switch (cp) {
		case '&': ot_buf_puts(out, "&amp;"); break;
		case '<': ot_buf_puts(out, "&lt;"); break;
		case '>': ot_buf_puts(out, "&gt;"); break;
		case '"': ot_buf_puts(out, "&quot;"); break;
		case '\'': ot_buf_puts(out, "&#39;"); break;
		case '\t': case '\n': case '\r': ot_buf_putc(out, (char)cp); break;
		default:
			if (cp < 0 || is_control(cp) || cp == 0xFFFE || cp == 0xFFFF)
				ot_buf_puts(out, REPLACEMENT);
			else
				ot_buf_put(out, s + i, n);
		}
		i += n;
	}
}

void ot_esc_dot_label(ot_buf *out, const char *s, size_t len)
{
	ot_buf t = OT_BUF_INIT;
	walk(&t, s, len, '\n', false);
	for (size_t i = 0; i < t.size; i++) {
		char c = t.ptr[i];
		if (c == '\\')
			ot_buf_puts(out, "\\\\");
		else if (c == '\n')
			ot_buf_puts(out, "\\n");
		else if (c == '&')
			ot_buf_puts(out, "&amp;");
		else
			ot_buf_putc(out, c);
	}
	ot_buf_free(&t);
}

void ot_esc_json(ot_buf *out, const char *s, size_t len)
{
	size_t i = 0, run;
	ot_buf_grow_by(out, len + 2);
	ot_buf_putc(out, '"');
	while (i < len) {
		long cp;
		size_t n;
		/* copy the longest run of plain ASCII in one go */
		for (run = i; run < len; run++) {
			unsigned char c = (unsigned char)s[run];
			if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7F)
				break;
		}
		ot_buf_put(out, s + i, run - i);
		if ((i = run) >= len)
			break;
		n = next_char(s + i, len - i, &cp);
		switch (cp) {
		case '"': ot_buf_puts(out, "\\\""); break;
		case '\\': ot_buf_puts(out, "\\\\"); break;
		case '\n': ot_buf_puts(out, "\\n"); break;
		case '\r': ot_buf_puts(out, "\\r"); break;
		case '\t': ot_buf_puts(out, "\\t"); break;
		case '\b': ot_buf_puts(out, "\\b"); break;
		case '\f': ot_buf_puts(out, "\\f"); break;
		default:
			if (cp < 0)
				ot_buf_puts(out, REPLACEMENT);
			else if (is_control(cp) || is_break(cp) || is_bidi(cp))
				ot_buf_printf(out, "\\u%04lx", cp);
			else
				ot_buf_put(out, s + i, n);
		}
		i += n;
	}
	ot_buf_putc(out, '"');
}

void ot_esc_term(ot_buf *out, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		long cp;
		size_t n = next_char(s + i, len - i, &cp);
		if (cp < 0)
			ot_buf_printf(out, "\\x%02x", (unsigned char)s[i]);
		else if (cp == '\n' || cp == '\t')
			ot_buf_putc(out, (char)cp);
		else if (is_control(cp) || is_break(cp) || is_bidi(cp))
			show(out, cp);
		else
			ot_buf_put(out, s + i, n);
		i += n;
	}
}
