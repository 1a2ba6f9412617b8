/*
 * mustache.c - parse a Mustache template into a flat node list, then walk
 * it against an ot_value context stack.
 *
 * Sections are not a tree: a section node records the index just past its
 * last child, so rendering recurses once per open section and parsing needs
 * only a stack of open section indices. The standalone-line rules are
 * applied while parsing, so rendering never looks at whitespace.
 */
#include "mustache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

enum {
	N_TEXT,
	N_VAR,      /* {{name}}: escaped */
	N_RAW,      /* {{{name}}} and {{&name}} */
	N_SECTION,
	N_INVERTED,
	N_PARTIAL,
	N_NOP       /* an inline comment or delimiter tag that starts a line */
};

typedef struct {
	unsigned char kind;
	/* Starts a line of the source: inside an indented partial, the
	 * indentation goes out before this node. */
	bool line_start;
	const char *s; /* the text, or the tag's name */
	size_t len;
	const char *pad; /* standalone partial: the whitespace before the tag */
	size_t pad_len;
	size_t skip;     /* sections: index of the first node after the section */
	size_t off;      /* offset of the tag in the source, for messages */
} node;

struct ot_mustache {
	const char *name;
	const char *text;
	size_t len;
	char *owned_name;
	char *owned_text;
	OT_VEC(node) nodes;
};

/* ---- messages -------------------------------------------------------------- */

static int error_at(const ot_mustache *t, size_t off, const char *fmt, ...) OT_PRINTF(3, 4);

static void position(const ot_mustache *t, size_t off, int *line, int *col)
{
	size_t i;
	*line = *col = 1;
	for (i = 0; i < off && i < t->len; i++) {
		if (t->text[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

static int error_at(const ot_mustache *t, size_t off, const char *fmt, ...)
{
	ot_buf reason = OT_BUF_INIT;
	int line, col;
	va_list ap;

	position(t, off, &line, &col);
	va_start(ap, fmt);
	ot_buf_vprintf(&reason, fmt, ap);
	va_end(ap);
	ot_error_at(t->name, line, col, "%s", reason.ptr);
	ot_buf_free(&reason);
	return OT_ERROR;
}

/* Names shown in messages are cut short: a hostile tag can be huge. */
#define NAME_SHOWN(len) ((int)((len) > 64 ? 64 : (len)))

/* ---- parsing --------------------------------------------------------------- */

typedef struct {
	ot_mustache *t;
	const char *otag, *ctag;
	size_t otag_len, ctag_len;
	ot_buf close_triple; /* "}" + ctag */
	OT_VEC(size_t) open; /* node indices of the open sections */
} parser;

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_space(char c)
{
	return is_blank(c) || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static size_t find(const char *s, size_t from, size_t len, const char *needle, size_t nlen)
{
	const char *hit;
	if (from > len)
		return SIZE_MAX;
	hit = memmem(s + from, len - from, needle, nlen);
	return hit ? (size_t)(hit - s) : SIZE_MAX;
}

static void trim(const char **s, size_t *len)
{
	while (*len && is_space(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_space((*s)[*len - 1]))
		(*len)--;
}

static bool at_line_start(const ot_mustache *t, size_t off)
{
	return off == 0 || t->text[off - 1] == '\n';
}

static node *push_node(ot_mustache *t, int kind, const char *s, size_t len, size_t off)
{
	node n;
	memset(&n, 0, sizeof(n));
	n.kind = (unsigned char)kind;
	n.s = s;
	n.len = len;
	n.off = off;
	ot_vec_push(&t->nodes, n);
	return &t->nodes.items[t->nodes.len - 1];
}

/* Text nodes end after each newline, so every line start begins a node. */
static void push_text(ot_mustache *t, size_t from, size_t to)
{
	while (from < to) {
		const char *nl = memchr(t->text + from, '\n', to - from);
		size_t end = nl ? (size_t)(nl - t->text) + 1 : to;
		node *n = push_node(t, N_TEXT, t->text + from, end - from, from);
		n->line_start = at_line_start(t, from);
		from = end;
	}
}

static void set_delimiters(parser *p, const char *otag, size_t olen, const char *ctag,
			   size_t clen)
{
	p->otag = otag;
	p->otag_len = olen;
	p->ctag = ctag;
	p->ctag_len = clen;
	ot_buf_clear(&p->close_triple);
	ot_buf_putc(&p->close_triple, '}');
	ot_buf_put(&p->close_triple, ctag, clen);
}

/* "=OPEN CLOSE=": exactly two words, neither containing '='. */
static int change_delimiters(parser *p, const char *s, size_t len, size_t off)
{
	const char *word[2];
	size_t wlen[2], n = 0, i = 0;

	while (i < len) {
		size_t start;
		while (i < len && is_space(s[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !is_space(s[i])) {
			if (s[i] == '=')
				goto bad;
			i++;
		}
		if (n == 2)
			goto bad;
		word[n] = s + start;
		wlen[n++] = i - start;
	}
	if (n != 2)
		goto bad;
	set_delimiters(p, word[0], wlen[0], word[1], wlen[1]);
	return 0;
bad:
	return error_at(p->t, off, "bad delimiter change");
}

static int end_section(parser *p, const char *name, size_t len, size_t off)
{
	ot_mustache *t = p->t;
	node *open;

	if (!p->open.len)
		return error_at(t, off, "mismatched end tag '%.*s': no open section",
				NAME_SHOWN(len), name);
	open = &t->nodes.items[p->open.items[p->open.len - 1]];
	if (open->len != len || memcmp(open->s, name, len) != 0)
		return error_at(t, off, "mismatched end tag '%.*s': open section is '%.*s'",
				NAME_SHOWN(len), name, NAME_SHOWN(open->len), open->s);
	open->skip = t->nodes.len;
	p->open.len--;
	return 0;
}

static int parse(ot_mustache *t)
{
	parser p;
	const char *src = t->text;
	size_t len = t->len, pos = 0, text_from = 0;
	int error = 0;

	memset(&p, 0, sizeof(p));
	p.t = t;
	p.close_triple = (ot_buf)OT_BUF_INIT;
	set_delimiters(&p, "{{", 2, "}}", 2);

	for (;;) {
		size_t tag = find(src, pos, len, p.otag, p.otag_len);
		size_t body, close, tag_end, line_from, next;
		const char *name, *close_str;
		size_t name_len, close_len;
		bool standalone = false;
		char type;
		node *n;

		if (tag == SIZE_MAX) {
			push_text(t, text_from, len);
			break;
		}
		body = tag + p.otag_len;
		type = body < len ? src[body] : '\0';
		close_str = p.ctag;
		close_len = p.ctag_len;
		if (type == '{') {
			close_str = p.close_triple.ptr;
			close_len = p.close_triple.size;
		}
		if (type && strchr("{&#^/!>=", type))
			body++;
		close = find(src, body, len, close_str, close_len);
		if (close == SIZE_MAX) {
			error = error_at(t, tag, "unclosed tag: missing '%.*s'", (int)close_len,
					 close_str);
			goto done;
		}
		tag_end = close + close_len;
		name = src + body;
		name_len = close - body;
		if (type == '=') {
			/* The content is "OPEN CLOSE=": the '=' sits before the closer. */
			if (!name_len || name[name_len - 1] != '=') {
				error = error_at(t, tag, "bad delimiter change");
				goto done;
			}
			name_len--;
		}

		/* A line holding only this tag and blanks vanishes entirely. */
		line_from = tag;
		next = tag_end;
		if (type && strchr("#^/!>=", type)) {
			size_t after = tag_end;
			while (line_from > 0 && is_blank(src[line_from - 1]))
				line_from--;
			while (after < len && is_blank(src[after]))
				after++;
			if (line_from == 0 || src[line_from - 1] == '\n') {
				if (after == len) {
					standalone = true;
				} else if (src[after] == '\n') {
					standalone = true;
					after++;
				} else if (src[after] == '\r' && after + 1 < len &&
					   src[after + 1] == '\n') {
					standalone = true;
					after += 2;
				}
			}
			if (standalone)
				next = after;
		}
		push_text(t, text_from, standalone ? line_from : tag);
		text_from = pos = next;

		if (type == '=') {
			if ((error = change_delimiters(&p, name, name_len, tag)) < 0)
				goto done;
		}
		if (type == '!' || type == '=') {
			if (!standalone && at_line_start(t, tag))
				push_node(t, N_NOP, NULL, 0, tag)->line_start = true;
			continue;
		}

		trim(&name, &name_len);
		if (!name_len) {
			error = error_at(t, tag, "empty tag name");
			goto done;
		}
		if (type == '/') {
			/* An inline end tag that starts a line: the indentation goes
			 * out inside the section, before it closes. */
			if (!standalone && at_line_start(t, tag))
				push_node(t, N_NOP, NULL, 0, tag)->line_start = true;
			if ((error = end_section(&p, name, name_len, tag)) < 0)
				goto done;
			continue;
		}
		switch (type) {
		case '#':
		case '^':
			if (p.open.len >= OT_MUSTACHE_MAX_SECTIONS) {
				error = error_at(t, tag, "sections nested deeper than %d",
						 OT_MUSTACHE_MAX_SECTIONS);
				goto done;
			}
			ot_vec_push(&p.open, t->nodes.len);
			n = push_node(t, type == '#' ? N_SECTION : N_INVERTED, name, name_len, tag);
			break;
		case '>':
			n = push_node(t, N_PARTIAL, name, name_len, tag);
			if (standalone) {
				n->pad = src + line_from;
				n->pad_len = tag - line_from;
			}
			break;
		case '{':
		case '&':
			n = push_node(t, N_RAW, name, name_len, tag);
			break;
		default:
			n = push_node(t, N_VAR, name, name_len, tag);
			break;
		}
		n->line_start = !standalone && at_line_start(t, tag);
	}
	if (p.open.len) {
		node *open = &t->nodes.items[p.open.items[p.open.len - 1]];
		error = error_at(t, open->off, "unclosed section '%.*s'", NAME_SHOWN(open->len),
				 open->s);
	}

done:
	ot_buf_free(&p.close_triple);
	ot_vec_free(&p.open);
	return error;
}

int ot_mustache_compile(ot_mustache **out, const char *tmpl, size_t len, const char *name)
{
	ot_mustache *t = ot_calloc(1, sizeof(*t));
	int error;

	t->owned_name = ot_strdup(name ? name : "template");
	t->owned_text = ot_malloc(len + 1);
	memcpy(t->owned_text, tmpl, len);
	t->owned_text[len] = '\0';
	t->name = t->owned_name;
	t->text = t->owned_text;
	t->len = len;
	if ((error = parse(t)) < 0) {
		ot_mustache_free(t);
		t = NULL;
	}
	*out = t;
	return error;
}

void ot_mustache_free(ot_mustache *tmpl)
{
	if (!tmpl)
		return;
	free(tmpl->owned_name);
	free(tmpl->owned_text);
	ot_vec_free(&tmpl->nodes);
	free(tmpl);
}

/* ---- rendering ------------------------------------------------------------- */

typedef struct {
	ot_buf *out;
	ot_mustache_escape_fn escape;
	ot_mustache_partial_fn partial;
	void *payload;
	OT_VEC(const ot_value *) stack;
	/* Indentation of the enclosing standalone partials: the active part is
	 * indent[indent_from..]; an inline partial starts a fresh, empty one. */
	ot_buf indent;
	size_t indent_from;
	ot_buf scratch;
	ot_map *partials; /* name -> parsed partial, or &missing */
	ot_arena *arena;  /* the names and texts of the parsed partials */
	int partial_depth, nesting;
	size_t steps, out_start; /* work done and where this call's output starts */
} render;

static char missing; /* cached answer for a partial that does not exist */

/* Resolve a (dotted) name; NULL when missing. */
static const ot_value *lookup(const render *r, const char *name, size_t len)
{
	const char *dot, *end = name + len;
	const ot_value *cur = NULL;
	const ot_member *m = NULL;
	size_t i;

	if (len == 1 && name[0] == '.')
		return r->stack.len ? r->stack.items[r->stack.len - 1] : NULL;
	dot = memchr(name, '.', len);
	if (!dot)
		dot = end;
	if (dot == name)
		return NULL;
	for (i = r->stack.len; i-- > 0 && !m;)
		m = ot_v_membern(r->stack.items[i], name, (size_t)(dot - name));
	if (!m)
		return NULL;
	cur = m->value;
	/* Later parts resolve only inside the previous result. */
	while (dot < end) {
		const char *part = dot + 1;
		dot = memchr(part, '.', (size_t)(end - part));
		if (!dot)
			dot = end;
		if (dot == part || !(m = ot_v_membern(cur, part, (size_t)(dot - part))))
			return NULL;
		cur = m->value;
	}
	return cur;
}

static bool falsy(const ot_value *v)
{
	if (!v)
		return true;
	switch (v->type) {
	case OT_V_NULL:
		return true;
	case OT_V_BOOL:
		return !v->u.b;
	case OT_V_LIST:
		return v->u.list.len == 0;
	case OT_V_STR:
		return v->u.str.len == 0;
	default:
		return false;
	}
}

static void put_var(render *r, const ot_value *v, bool raw)
{
	if (!v)
		return;
	if (raw) {
		ot_v_scalar_text(r->out, v);
	} else if (v->type == OT_V_STR) {
		if (v->u.str.len)
			r->escape(r->out, v->u.str.ptr, v->u.str.len);
	} else {
		ot_buf_clear(&r->scratch);
		ot_v_scalar_text(&r->scratch, v);
		if (r->scratch.size)
			r->escape(r->out, r->scratch.ptr, r->scratch.size);
	}
}

/* The parsed partial called `n->s`, fetched and parsed once per render. */
static int get_partial(ot_mustache **out, render *r, const ot_mustache *t, const node *n)
{
	ot_buf text = OT_BUF_INIT;
	ot_mustache *p;
	char *key;
	int error = 0;

	/* the key stored below is a C string: a name with a NUL byte is cut there */
	*out = ot_map_getn(r->partials, n->s, strnlen(n->s, n->len));
	if (*out)
		return 0;
	key = ot_arena_strndup(r->arena, n->s, n->len);
	error = r->partial ? r->partial(&text, key, r->payload) : OT_ENOTFOUND;
	if (error == OT_ENOTFOUND) {
		error = 0;
		*out = (ot_mustache *)&missing;
		goto done;
	}
	if (error < 0) {
		int line, col;
		position(t, n->off, &line, &col);
		error = ot_error_wrap("%s:%d:%d: partial '%.*s'", t->name, line, col,
				      NAME_SHOWN(n->len), n->s);
		goto done;
	}
	p = ot_arena_alloc(r->arena, sizeof(*p));
	p->name = key;
	p->len = text.size;
	p->text = ot_arena_strndup(r->arena, text.ptr, text.size);
	if ((error = parse(p)) < 0) {
		ot_vec_free(&p->nodes);
		goto done;
	}
	*out = p;

done:
	if (!error)
		ot_map_put(r->partials, key, *out);
	ot_buf_free(&text);
	return error;
}

static int render_nodes(render *r, const ot_mustache *t, size_t from, size_t to);

/* Every open section and partial is a level of C recursion: bound them. */
static int enter(render *r, const ot_mustache *t, const node *n)
{
	if (r->nesting >= OT_MUSTACHE_MAX_NESTING)
		return error_at(t, n->off, "sections and partials nested deeper than %d",
				OT_MUSTACHE_MAX_NESTING);
	r->nesting++;
	return 0;
}

static int render_partial(render *r, const ot_mustache *t, const node *n)
{
	ot_mustache *p;
	size_t indent_size = r->indent.size, indent_from = r->indent_from;
	int error;

	if (r->partial_depth >= OT_MUSTACHE_MAX_PARTIALS)
		return error_at(t, n->off, "partials nested deeper than %d",
				OT_MUSTACHE_MAX_PARTIALS);
	if ((error = get_partial(&p, r, t, n)) < 0)
		return error;
	if (p == (ot_mustache *)&missing)
		return 0;
	if ((error = enter(r, t, n)) < 0)
		return error;
	if (n->pad)
		ot_buf_put(&r->indent, n->pad, n->pad_len);
	else
		r->indent_from = r->indent.size;
	r->partial_depth++;
	error = render_nodes(r, p, 0, p->nodes.len);
	r->partial_depth--;
	r->nesting--;
	ot_buf_truncate(&r->indent, indent_size);
	r->indent_from = indent_from;
	return error;
}

static int render_section(render *r, const ot_mustache *t, const node *n, size_t first)
{
	const ot_value *v = lookup(r, n->s, n->len);
	bool inverted = n->kind == N_INVERTED;
	size_t i;
	int error;

	if (falsy(v) != inverted)
		return 0;
	if ((error = enter(r, t, n)) < 0)
		return error;
	if (inverted) {
		error = render_nodes(r, t, first, n->skip);
	} else if (v->type != OT_V_LIST) {
		ot_vec_push(&r->stack, v);
		error = render_nodes(r, t, first, n->skip);
		r->stack.len--;
	} else {
		for (i = 0; i < v->u.list.len && !error; i++) {
			ot_vec_push(&r->stack, v->u.list.items[i]);
			error = render_nodes(r, t, first, n->skip);
			r->stack.len--;
		}
	}
	r->nesting--;
	return error;
}

static int render_nodes(render *r, const ot_mustache *t, size_t from, size_t to)
{
	size_t i = from;
	int error = 0;

	while (i < to && !error) {
		const node *n = &t->nodes.items[i++];
		/* nested sections over lists multiply: a short template can ask
		 * for more work or output than any page needs; stop it */
		if (++r->steps > OT_MUSTACHE_MAX_STEPS)
			return error_at(t, n->off, "rendering takes more than %u steps",
					OT_MUSTACHE_MAX_STEPS);
		if (r->out->size - r->out_start > OT_MUSTACHE_MAX_OUTPUT)
			return error_at(t, n->off, "output larger than %u bytes",
					OT_MUSTACHE_MAX_OUTPUT);
		if (n->line_start && r->indent.size > r->indent_from)
			ot_buf_put(r->out, r->indent.ptr + r->indent_from,
				   r->indent.size - r->indent_from);
		switch (n->kind) {
		case N_TEXT:
			ot_buf_put(r->out, n->s, n->len);
			break;
		case N_VAR:
		case N_RAW:
			put_var(r, lookup(r, n->s, n->len), n->kind == N_RAW);
			break;
		case N_SECTION:
		case N_INVERTED:
			error = render_section(r, t, n, i);
			i = n->skip;
			break;
		case N_PARTIAL:
			error = render_partial(r, t, n);
			break;
		default:
			break;
		}
	}
	return error;
}

int ot_mustache_render_compiled(ot_buf *out, const ot_mustache *tmpl, const ot_value *ctx,
				const ot_mustache_opts *opts)
{
	render r;
	size_t start = out->size;
	size_t i;
	int error;

	memset(&r, 0, sizeof(r));
	r.out = out;
	r.out_start = start;
	r.escape = opts && opts->escape ? opts->escape : ot_mustache_escape_html;
	r.partial = opts ? opts->partial : NULL;
	r.payload = opts ? opts->payload : NULL;
	r.indent = (ot_buf)OT_BUF_INIT;
	r.scratch = (ot_buf)OT_BUF_INIT;
	r.partials = ot_map_new();
	r.arena = ot_arena_new();
	if (ctx)
		ot_vec_push(&r.stack, ctx);

	error = render_nodes(&r, tmpl, 0, tmpl->nodes.len);

	for (i = 0; i < ot_map_len(r.partials); i++) {
		ot_mustache *p = ot_map_value_at(r.partials, i);
		if (p != (ot_mustache *)&missing)
			ot_vec_free(&p->nodes);
	}
	ot_map_free(r.partials);
	ot_arena_free(r.arena);
	ot_buf_free(&r.indent);
	ot_buf_free(&r.scratch);
	ot_vec_free(&r.stack);
	if (error < 0)
		ot_buf_truncate(out, start);
	return error;
}

int ot_mustache_render(ot_buf *out, const char *tmpl, size_t len, const ot_value *ctx,
		       const ot_mustache_opts *opts)
{
	ot_mustache t;
	int error;

	memset(&t, 0, sizeof(t));
	t.name = opts && opts->name ? opts->name : "template";
	t.text = tmpl;
	t.len = len;
	if ((error = parse(&t)) == 0)
		error = ot_mustache_render_compiled(out, &t, ctx, opts);
	ot_vec_free(&t.nodes);
	return error;
}

void ot_mustache_escape_html(ot_buf *out, const char *s, size_t len)
{
	ot_esc_html(out, s, len);
}
