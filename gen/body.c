#include "body.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"

/* The definition written at `line` of file `id`: its first and last lines, or false. */
static bool definition_lines(const ot_index *ix, uint32_t id, uint32_t line, uint32_t *first,
			     uint32_t *last)
{
	size_t n;
	const ot_ix_cdef *cdefs = ot_index_file_cdefs(ix, id, &n);
	const ot_ix_pydef *pydefs;
	for (size_t i = 0; i < n; i++) {
		const ot_ix_cdef *d = &cdefs[i];
		if (d->line != line || d->kind == OT_CDEF_MACRO || d->gen || d->body_end <= d->body)
			continue;
		*first = d->line;
		*last = d->end_line;
		return true;
	}
	pydefs = ot_index_file_pydefs(ix, id, &n);
	for (size_t i = 0; i < n; i++) {
		const ot_ix_pydef *d = &pydefs[i];
		if (d->line != line || d->kind == OT_PY_CLASS)
			continue;
		*first = d->line;
		*last = d->end_line >= d->line ? d->end_line : d->line;
		return true;
	}
	return false;
}

struct fp {
	ot_buf whole;  /* the body's tokens, blanks only between two words */
	ot_buf stmt;   /* the same of the statement being read */
	ot_buf out;    /* the statement hashes so far */
	ot_lang lang;
	bool blank;    /* blanks were skipped since the last character */
	bool bol;      /* only blanks so far on this line of the file */
	bool pp;       /* C: this line is a preprocessor directive's */
	bool at_start; /* Python: a statement starts at the next character */
	int depth;     /* Python: brackets open */
	uint32_t col, indent; /* Python: column in the line; the def's indentation */
};

/* Append `ch` to `b`, after one blank when the blanks skipped separated
 * two words; a trailing comma before a closing bracket is dropped (`f(a,
 * b,)` is `f(a, b)`, as a formatter writes either). */
static void put_token_char(ot_buf *b, char ch, bool blank)
{
	if (blank && b->size && ot_is_ident_char(b->ptr[b->size - 1]) && ot_is_ident_char(ch))
		ot_buf_putc(b, ' ');
	if ((ch == ')' || ch == ']' || ch == '}') && b->size && b->ptr[b->size - 1] == ',')
		b->size--;
	ot_buf_putc(b, ch);
}

static void hash_hex(ot_buf *out, const char *s, size_t n)
{
	uint64_t h = ot_hash(s, n);
	ot_buf_printf(out, "%08x", (unsigned)(uint32_t)(h ^ (h >> 32)));
}

/* End the statement: its hash, unless it is empty. */
static void end_statement(struct fp *f)
{
	if (f->stmt.size)
		hash_hex(&f->out, f->stmt.ptr, f->stmt.size);
	f->stmt.size = 0;
	f->blank = false;
}

/* One character of the code; `in_string` for a string literal's. A
 * statement ends, in C, after `;`, `{` or `}`; in Python, at the end of a
 * line outside brackets. */
static void feed(struct fp *f, char ch, bool in_string)
{
	bool py = f->lang == OT_LANG_PYTHON;
	if (in_string) { /* as written */
		ot_buf_putc(&f->whole, ch);
		ot_buf_putc(&f->stmt, ch);
		f->blank = false;
		return;
	}
	if (ch == '\n') {
		if (f->pp || (py && !f->depth)) {
			end_statement(f);
			f->at_start = py;
		}
		f->blank = true;
		f->bol = true;
		f->pp = false;
		f->col = 0;
		return;
	}
	if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
		f->blank = true;
		f->col++;
		return;
	}
	if (f->lang == OT_LANG_C && f->bol && ch == '#')
		f->pp = true; /* what the code view left of a directive: left out */
	f->bol = false;
	f->col++;
	if (f->pp)
		return;
	if (py) {
		/* indentation is Python's block structure: a statement's start
		 * says how deep it is (relative to the def) */
		if (f->at_start)
			ot_buf_printf(&f->whole, "\n%u:", f->col - 1 > f->indent ? f->col - 1 - f->indent : 0);
		f->depth += ch == '(' || ch == '[' || ch == '{';
		f->depth -= f->depth > 0 && (ch == ')' || ch == ']' || ch == '}');
	}
	f->at_start = false;
	put_token_char(&f->whole, ch, f->blank);
	put_token_char(&f->stmt, ch, f->blank);
	f->blank = false;
	if (f->lang == OT_LANG_C && (ch == ';' || ch == '{' || ch == '}'))
		end_statement(f);
}

/* Read code from `i` to `end` (offsets in the file): the code view, with
 * string literals taken from the text (their contents are blanked in the
 * code view; the quotes stay). */
static void read_code(struct fp *f, const ot_ix_file *file, size_t i, size_t end)
{
	const char *code = file->code, *text = file->text;
	while (i < end) {
		char q = code[i];
		size_t j;
		if (q != '"' && q != '\'') {
			feed(f, code[i++], false);
			continue;
		}
		if (f->lang == OT_LANG_PYTHON && i + 2 < end && code[i + 1] == q && code[i + 2] == q) {
			/* a triple-quoted string: a docstring, left out with its lines */
			for (j = i + 3; j + 2 < end && !(code[j] == q && code[j + 1] == q && code[j + 2] == q);
			     j++)
				;
			i = j + 3 <= end ? j + 3 : end;
			continue;
		}
		for (j = i + 1; j < end && code[j] != q; j++)
			;
		feed(f, f->lang == OT_LANG_PYTHON ? '"' : q, false); /* Python's 'x' is "x" */
		for (size_t k = i + 1; k < j && k < end; k++)
			feed(f, text[k], true);
		if (j < end)
			feed(f, f->lang == OT_LANG_PYTHON ? '"' : q, true);
		i = j + 1;
	}
	end_statement(f);
}

const char *ot_body_fingerprint(ot_arena *a, const ot_index *ix, const char *path, uint32_t line)
{
	int64_t id = path ? ot_index_file_id(ix, path) : -1;
	const ot_ix_file *file;
	uint32_t first, last;
	struct fp f = {.whole = OT_BUF_INIT, .stmt = OT_BUF_INIT, .out = OT_BUF_INIT, .bol = true,
		       .at_start = true};
	const char *s;
	ot_buf all = OT_BUF_INIT;
	size_t from, to;

	if (id < 0 || !definition_lines(ix, (uint32_t)id, line, &first, &last))
		return NULL;
	file = ot_index_file(ix, (uint32_t)id);
	if (!file || !file->code || first < 1 || first > file->nlines)
		return NULL;
	if (last > file->nlines)
		last = file->nlines;
	f.lang = file->lang;
	from = file->line_off[first - 1];
	to = last < file->nlines ? file->line_off[last] : file->len;
	for (const char *p = file->code + from; *p == ' ' || *p == '\t'; p++)
		f.indent++;
	read_code(&f, file, from, to);
	if (f.out.size) {
		hash_hex(&all, f.whole.ptr, f.whole.size);
		ot_buf_put(&all, f.out.ptr, f.out.size);
	}
	s = all.size ? ot_arena_strndup(a, all.ptr, all.size) : NULL;
	ot_buf_free(&f.whole);
	ot_buf_free(&f.stmt);
	ot_buf_free(&f.out);
	ot_buf_free(&all);
	return s;
}

/* ---- made once ---------------------------------------------------------------------- */

struct ot_bodies {
	const ot_index *ix;
	pthread_mutex_t lock;
	ot_arena *arena; /* keys and fingerprints */
	ot_map *made;    /* "path:line" -> fingerprint, or &none */
};

static const char none[] = ""; /* no definition there */

ot_bodies *ot_bodies_new(const ot_index *ix)
{
	ot_bodies *b = ot_calloc(1, sizeof(*b));
	b->ix = ix;
	pthread_mutex_init(&b->lock, NULL);
	b->arena = ot_arena_new();
	b->made = ot_map_new();
	return b;
}

void ot_bodies_free(ot_bodies *b)
{
	if (!b)
		return;
	ot_map_free(b->made);
	ot_arena_free(b->arena);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

const char *ot_bodies_get(ot_bodies *b, const char *path, uint32_t line)
{
	char key[600];
	const char *have;
	snprintf(key, sizeof(key), "%s:%u", path ? path : "", line);
	pthread_mutex_lock(&b->lock);
	/* made here, under the lock: the arena is the cache's, shared */
	if (!(have = ot_map_get(b->made, key))) {
		const char *fp = ot_body_fingerprint(b->arena, b->ix, path, line);
		have = fp ? fp : none;
		ot_map_put(b->made, ot_arena_strdup(b->arena, key), (void *)have);
	}
	pthread_mutex_unlock(&b->lock);
	return have == none ? NULL : have;
}

/* ---- comparing ---------------------------------------------------------------------- */

/* The statement hashes of a fingerprint (after the whole body's), and their count. */
static const char *statement_hashes(const char *s, size_t *n)
{
	size_t len = s ? strlen(s) : 0;
	*n = len > OT_BODY_HASH_CHARS ? len / OT_BODY_HASH_CHARS - 1 : 0;
	return *n ? s + OT_BODY_HASH_CHARS : "";
}

static bool same_statement(const char *a, size_t i, const char *b, size_t j)
{
	return !memcmp(a + i * OT_BODY_HASH_CHARS, b + j * OT_BODY_HASH_CHARS, OT_BODY_HASH_CHARS);
}

/* The length of the shortest edit script between the statement sequences
 * (Myers' O((N + M) D) greedy search). */
static size_t edit_distance(const char *a, size_t n, const char *b, size_t m)
{
	size_t max = n + m;
	long *v = ot_calloc(2 * max + 3, sizeof(long));
	long off = (long)max + 1;
	size_t d = max;
	for (long e = 0; e <= (long)max; e++) {
		for (long k = -e; k <= e; k += 2) {
			long x = k == -e || (k != e && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1]
											 : v[off + k - 1] + 1;
			long y = x - k;
			while (x < (long)n && y < (long)m && same_statement(a, (size_t)x, b, (size_t)y))
				x++, y++;
			v[off + k] = x;
			if (x >= (long)n && y >= (long)m) {
				d = (size_t)e;
				goto done;
			}
		}
	}
done:
	free(v);
	return d;
}

bool ot_body_same(const char *old, const char *new)
{
	if (!old || !new)
		return old == new;
	return !strncmp(old, new, OT_BODY_HASH_CHARS);
}

void ot_body_compare(const char *old, const char *new, uint32_t *added, uint32_t *removed)
{
	size_t n, m;
	const char *a = statement_hashes(old, &n), *b = statement_hashes(new, &m);
	size_t d = edit_distance(a, n, b, m);
	size_t common = (n + m - d) / 2;
	*added = (uint32_t)(m - common);
	*removed = (uint32_t)(n - common);
}
