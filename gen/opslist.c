#include "opslist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "version.h"

/* An ops.list is a short hand-written file; anything bigger is a mistake. */
#define MAX_FILE (16u * 1024 * 1024)
/* How much of a long word a message quotes. */
#define SHOW_MAX 40

typedef struct {
	ot_opslist *list;
	ot_map *seen; /* name -> 1 + index into list->ops */
	const char *line;
	size_t len;
	int lineno;
	bool header;  /* still in the comment block before the first op */
} parser;

/* 1-based column of byte `off`: characters, not bytes, so UTF-8 text lines up. */
static int column_of(const char *line, size_t off)
{
	size_t i;
	int col = 1;
	for (i = 0; i < off; i++)
		if (((unsigned char)line[i] & 0xC0) != 0x80)
			col++;
	return col;
}

static void diag(parser *p, size_t off, bool error, const char *fmt, ...) OT_PRINTF(4, 5);

static void diag(parser *p, size_t off, bool error, const char *fmt, ...)
{
	ot_buf b = OT_BUF_INIT;
	ot_opslist_diag d;
	va_list ap;

	d.line = p->lineno;
	d.column = column_of(p->line, off);
	d.error = error;
	ot_buf_printf(&b, "%s:%d:%d: %s", p->list->filename, d.line, d.column,
		      error ? "" : "warning: ");
	va_start(ap, fmt);
	ot_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	d.message = ot_buf_detach(&b);
	ot_vec_push(&p->list->diags, d);
}

/* Describe the character at s (valid UTF-8) for a message: 'x', '\x01', 'é' (U+00E9), U+0085. */
static void describe_char(ot_buf *b, const char *s, size_t left)
{
	unsigned char c = (unsigned char)s[0];
	if (c >= 0x20 && c < 0x7f) {
		ot_buf_printf(b, "'%c'", c);
	} else if (c < 0x80) {
		ot_buf_printf(b, "'\\x%02x'", c);
	} else {
		size_t n = ot_utf8_len(s, left), i;
		unsigned long cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
		for (i = 1; i < n; i++)
			cp = (cp << 6) | ((unsigned char)s[i] & 0x3F);
		if (cp < 0xA0) { /* a C1 control: never sent to the terminal */
			ot_buf_printf(b, "U+%04lX", cp);
			return;
		}
		ot_buf_putc(b, '\'');
		ot_buf_put(b, s, n);
		ot_buf_printf(b, "' (U+%04lX)", cp);
	}
}

/*
 * A word (valid UTF-8) for a message: at most SHOW_MAX bytes, cut on a
 * character boundary. Control characters (C0, DEL, C1) are written as
 * \xNN / \u00NN: a message must not drive the terminal it is printed on.
 */
static void describe_word(ot_buf *b, const char *s, size_t len)
{
	size_t n = len, i;
	if (n > SHOW_MAX) {
		n = SHOW_MAX;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	ot_buf_putc(b, '\'');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			ot_buf_printf(b, "\\x%02x", c);
		else if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] < 0xA0)
			ot_buf_printf(b, "\\u%04x", (unsigned char)s[++i]);
		else
			ot_buf_putc(b, (char)c);
	}
	ot_buf_puts(b, n < len ? "...'" : "'");
}

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '.';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Check the name at line[start, end): 0 when good, else a diagnostic was
 * made. Characters are checked left to right, so the first bad one is named.
 */
static int check_name(parser *p, size_t start, size_t end)
{
	const char *s = p->line;
	size_t i;
	ot_buf what = OT_BUF_INIT;

	if (s[start] == '-') {
		diag(p, start, true, "an op name cannot start with '-'");
		return -1;
	}
	for (i = start; i < end; i++) {
		if (i == start ? is_name_start(s[i]) : is_name_char(s[i]))
			continue;
		if (s[i] == ':' && i + 1 < end && s[i + 1] == ':' && i > start) {
			i++;
			continue;
		}
		describe_char(&what, s + i, end - i);
		if (i == start)
			diag(p, i, true, "an op name starts with a letter or '_', not %s", what.ptr);
		else if (s[i] == ':')
			diag(p, i, true, "a single ':' in an op name (namespaces use '::')");
		else
			diag(p, i, true,
			     "invalid character %s in op name (allowed: letters, digits, '_', '.', "
			     "'::')",
			     what.ptr);
		ot_buf_free(&what);
		return -1;
	}
	if (end - start > OT_OPSLIST_MAX_NAME) {
		diag(p, start, true, "op name is %zu bytes long; the limit is %d", end - start,
		     OT_OPSLIST_MAX_NAME);
		return -1;
	}
	return 0;
}

/* "# torch-version: VALUE" -> offset of VALUE, or 0 when not a pin line. */
static size_t pin_value(const char *s, size_t len, size_t hash)
{
	static const char key[] = "torch-version";
	size_t i = hash + 1;
	while (i < len && is_blank(s[i]))
		i++;
	if (len - i < sizeof(key) - 1 || memcmp(s + i, key, sizeof(key) - 1))
		return 0;
	i += sizeof(key) - 1;
	while (i < len && is_blank(s[i]))
		i++;
	if (i >= len || s[i] != ':')
		return 0;
	i++;
	while (i < len && is_blank(s[i]))
		i++;
	return i;
}

static void parse_pin(parser *p, size_t hash)
{
	const char *s = p->line;
	size_t v = pin_value(s, p->len, hash), end = p->len;
	ot_version ver;
	char *value;

	if (!v)
		return;
	if (!p->header) {
		diag(p, hash, false,
		     "a torch-version pin after the first op is ignored (put it in the comment "
		     "block at the top)");
		return;
	}
	while (end > v && is_blank(s[end - 1]))
		end--;
	if (end == v) {
		diag(p, v, true, "the torch-version pin has no value (write e.g. "
				 "'# torch-version: 2.6.0')");
		return;
	}
	if (p->list->pin) {
		diag(p, hash, true, "a second torch-version pin (the first is on line %d)",
		     p->list->pin_line);
		return;
	}
	value = ot_strndup(s + v, end - v);
	if (ot_version_parse(&ver, value, NULL) < 0) {
		diag(p, v, true, "invalid torch-version pin: %s", ot_error_last());
		free(value);
		return;
	}
	p->list->pin = value;
	p->list->pin_line = p->lineno;
}

static void parse_line(parser *p)
{
	const char *s = p->line, *nul;
	size_t len = p->len, i, hash, name_start, name_end;
	ot_opslist_entry entry;
	bool full = false;
	uintptr_t first;

	if ((nul = memchr(s, '\0', len))) {
		diag(p, (size_t)(nul - s), true, "NUL byte in the line");
		return;
	}
	hash = len;
	for (i = 0; i < len;) {
		size_t n;
		if (s[i] == '#' && hash == len)
			hash = i;
		n = ot_utf8_len(s + i, len - i);
		if (!n) {
			diag(p, i, true, "invalid UTF-8%s (the file must be UTF-8 text)",
			     i > hash ? " in a comment" : "");
			return;
		}
		i += n;
	}
	for (i = 0; i < hash && is_blank(s[i]); i++)
		;
	if (i == hash) {
		/* Blank or comment-only: a pin can only live here. */
		if (hash < len)
			parse_pin(p, hash);
		return;
	}
	p->header = false;
	name_start = i;
	while (i < hash && !is_blank(s[i]))
		i++;
	name_end = i;

	if (s[name_start] == '!') {
		ot_buf w = OT_BUF_INIT;
		describe_word(&w, s + name_start, name_end - name_start);
		diag(p, name_start, true, "marker %s without an op name before it", w.ptr);
		ot_buf_free(&w);
		return;
	}
	if (check_name(p, name_start, name_end) < 0)
		return;

	/* After the name: markers only. */
	while (i < hash) {
		size_t w0, w1;
		ot_buf w = OT_BUF_INIT;
		while (i < hash && is_blank(s[i]))
			i++;
		if (i == hash)
			break;
		w0 = i;
		while (i < hash && !is_blank(s[i]))
			i++;
		w1 = i;
		if (w1 - w0 == 5 && !memcmp(s + w0, "!full", 5)) {
			full = true;
			continue;
		}
		describe_word(&w, s + w0, w1 - w0);
		if (s[w0] == '!')
			diag(p, w0, true, "unknown marker %s (the only marker is !full)", w.ptr);
		else if (s[name_end - 1] == '.' || s[name_end - 1] == ':' || s[w0] == '.' ||
			 s[w0] == ':')
			diag(p, name_end, true, "space inside the op name");
		else
			diag(p, w0, true, "unexpected %s after the op name (one op per line; "
					  "markers start with '!')",
			     w.ptr);
		ot_buf_free(&w);
		return;
	}

	first = (uintptr_t)ot_map_getn(p->seen, s + name_start, name_end - name_start);
	if (first) {
		diag(p, name_start, false, "duplicate op '%.*s' (first on line %d), skipped",
		     (int)(name_end - name_start), s + name_start, p->list->ops.items[first - 1].line);
		return;
	}
	entry.name = ot_strndup(s + name_start, name_end - name_start);
	entry.line = p->lineno;
	entry.arg = 0;
	entry.full = full;
	ot_vec_push(&p->list->ops, entry);
	ot_map_put(p->seen, entry.name, (void *)(uintptr_t)p->list->ops.len);
}

ot_opslist *ot_opslist_parse(const char *data, size_t len, const char *filename)
{
	ot_opslist *list = ot_calloc(1, sizeof(*list));
	parser p;
	size_t pos = 0;

	list->filename = ot_strdup(filename ? filename : "ops.list");
	memset(&p, 0, sizeof(p));
	p.list = list;
	p.seen = ot_map_new();
	p.header = true;
	/* A byte-order mark from a Windows editor is not part of the first line. */
	if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3))
		pos = 3;
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len;
		p.line = data + pos;
		p.len = end - pos;
		p.lineno++;
		if (p.len && p.line[p.len - 1] == '\r')
			p.len--;
		parse_line(&p);
		pos = end + 1;
	}
	ot_map_free(p.seen);
	return list;
}

int ot_opslist_load(ot_opslist **out, const char *path)
{
	ot_buf data = OT_BUF_INIT;
	struct stat st;
	int fd, error = OT_ERROR;

	*out = NULL;
	if (!strcmp(path, "-")) {
		fd = 0;
		path = "<stdin>";
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return ot_error_set("cannot open the ops list %s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		ot_error_set("the ops list %s is a folder, not a file", path);
		goto done;
	}
	for (;;) {
		ssize_t n;
		ot_buf_grow_by(&data, 65536);
		n = read(fd, data.ptr + data.size, data.asize - data.size - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ot_error_set("cannot read the ops list %s: %s", path, strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		data.size += (size_t)n;
		if (data.size > MAX_FILE) {
			ot_error_set("the ops list %s is too large (over %u MB)", path,
				     MAX_FILE >> 20);
			goto done;
		}
	}
	*out = ot_opslist_parse(data.ptr, data.size, path);
	error = 0;
done:
	if (fd > 0)
		close(fd);
	ot_buf_free(&data);
	return error;
}

void ot_opslist_add_args(ot_opslist *list, const char *const *names, size_t n,
			 const char *where)
{
	ot_buf text = OT_BUF_INIT;
	ot_opslist *args;
	for (size_t i = 0; i < n; i++) {
		for (const char *c = names[i]; *c; c++) /* one argument, one line */
			ot_buf_putc(&text, *c == '\n' || *c == '\r' ? ' ' : *c);
		ot_buf_putc(&text, '\n');
	}
	args = ot_opslist_parse(text.ptr, text.size, where);
	for (size_t i = 0; i < args->diags.len; i++)
		ot_vec_push(&list->diags, args->diags.items[i]);
	for (size_t i = 0; i < args->ops.len; i++) {
		ot_opslist_entry e = args->ops.items[i];
		const ot_opslist_entry *first = NULL;
		for (size_t k = 0; k < list->ops.len && !first; k++)
			if (!strcmp(list->ops.items[k].name, e.name))
				first = &list->ops.items[k];
		if (first) {
			ot_buf b = OT_BUF_INIT;
			ot_opslist_diag d = {e.line, 1, NULL, false};
			ot_buf_printf(&b, "%s:%d:1: warning: duplicate op '%s' (also on line %d of %s), skipped",
				      where, e.line, e.name, first->line, list->filename);
			d.message = ot_buf_detach(&b);
			ot_vec_push(&list->diags, d);
			free(e.name);
			continue;
		}
		e.arg = e.line;
		e.line = 0;
		ot_vec_push(&list->ops, e);
	}
	args->diags.len = 0;
	args->ops.len = 0;
	ot_opslist_free(args);
	ot_buf_free(&text);
}

size_t ot_opslist_error_count(const ot_opslist *list)
{
	size_t i, n = 0;
	for (i = 0; i < list->diags.len; i++)
		if (list->diags.items[i].error)
			n++;
	return n;
}

void ot_opslist_free(ot_opslist *list)
{
	size_t i;
	if (!list)
		return;
	for (i = 0; i < list->ops.len; i++)
		free(list->ops.items[i].name);
	for (i = 0; i < list->diags.len; i++)
		free(list->diags.items[i].message);
	ot_vec_free(&list->ops);
	ot_vec_free(&list->diags);
	free(list->pin);
	free(list->filename);
	free(list);
}
