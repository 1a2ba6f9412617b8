/*
 * udiff.c - the unified diff reader (udiff.h): one pass over the lines.
 */
#include "udiff.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

typedef OT_VEC(ot_udiff_change) change_vec;

/* An error at the diff's current line: "NAME:LINE: reason". */
#define FAIL(p, ...) fail_at((p), __VA_ARGS__)

struct parser;
static int fail_at(const struct parser *p, const char *fmt, ...) OT_PRINTF(2, 3);

struct file_b {
	ot_udiff_file f;
	change_vec changes;
	bool has_hunks, git_header, saw_minus, saw_plus;
};

struct parser {
	ot_arena *a;
	const char *name;
	OT_VEC(struct file_b) files;
	uint32_t ln; /* the diff's line being read */
	/* the hunk being read */
	bool in_hunk;
	uint32_t old_ln, old_left, new_left;
	uint32_t run_lo, run_hi; /* an open run of removed lines, or run_lo == 0 */
	bool pending_add;
};

static int fail_at(const struct parser *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ot_error_set("%s:%u: %s", p->name, p->ln, msg);
}

static struct file_b *cur(struct parser *p)
{
	return p->files.len ? &p->files.items[p->files.len - 1] : NULL;
}

static struct file_b *new_file(struct parser *p)
{
	struct file_b fb = {0};
	fb.f.line = p->ln;
	ot_vec_push(&p->files, fb);
	return cur(p);
}

/* A path as written after ---, +++, rename from/to: quoted with C escapes or
 * plain up to a tab; `prefix` ("a/", "b/") dropped; NULL for /dev/null. */
static const char *path_of(struct parser *p, const char *s, size_t n, const char *prefix)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	if (n && s[0] == '"') {
		size_t i = 1;
		while (i < n && s[i] != '"') {
			if (s[i] == '\\' && i + 1 < n) {
				char c = s[++i];
				if (c >= '0' && c <= '7') {
					int v = 0, k = 0;
					while (k < 3 && i < n && s[i] >= '0' && s[i] <= '7') {
						v = v * 8 + (s[i++] - '0');
						k++;
					}
					ot_buf_putc(&b, (char)v);
					continue;
				}
				ot_buf_putc(&b, c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c);
				i++;
				continue;
			}
			ot_buf_putc(&b, s[i++]);
		}
	} else {
		const char *tab = memchr(s, '\t', n);
		size_t m = tab ? (size_t)(tab - s) : n;
		while (m && (s[m - 1] == ' ' || s[m - 1] == '\r'))
			m--;
		ot_buf_put(&b, s, m);
	}
	if (!strcmp(b.ptr, "/dev/null")) {
		ot_buf_free(&b);
		return NULL;
	}
	r = ot_arena_strdup(p->a, ot_starts_with(b.ptr, prefix) ? b.ptr + strlen(prefix) : b.ptr);
	ot_buf_free(&b);
	return r;
}

static void flush_run(struct parser *p)
{
	struct file_b *fb = cur(p);
	ot_udiff_change c = {0};
	if (p->run_lo) {
		c.lo = p->run_lo;
		c.hi = p->run_hi;
	} else if (p->pending_add) {
		c.lo = c.hi = p->old_ln - 1;
		c.insert = true;
	} else {
		return;
	}
	ot_vec_push(&fb->changes, c);
	p->run_lo = p->run_hi = 0;
	p->pending_add = false;
}

static bool parse_range(const char **s, const char *end, char sign, uint32_t *start, uint32_t *count)
{
	char *e;
	unsigned long v;
	while (*s < end && **s == ' ')
		(*s)++;
	if (*s >= end || **s != sign)
		return false;
	(*s)++;
	errno = 0;
	v = strtoul(*s, &e, 10);
	if (e == *s || errno || v > UINT32_MAX || e > end)
		return false;
	*start = (uint32_t)v;
	*count = 1;
	*s = e;
	if (*s < end && **s == ',') {
		(*s)++;
		v = strtoul(*s, &e, 10);
		if (e == *s || errno || v > UINT32_MAX || e > end)
			return false;
		*count = (uint32_t)v;
		*s = e;
	}
	return true;
}

static int hunk_header(struct parser *p, const char *s, size_t n)
{
	const char *q = s + 2, *end = s + n;
	uint32_t os, oc, ns, nc;
	struct file_b *fb = cur(p);
	if (!fb || (!fb->git_header && !fb->saw_minus) || (fb->saw_minus && !fb->saw_plus))
		return FAIL(p, "a hunk before any file header");
	if (!parse_range(&q, end, '-', &os, &oc) || !parse_range(&q, end, '+', &ns, &nc) ||
	    end - q < 3 || memcmp(q, " @@", 3))
		return FAIL(p, "hunk header '%.*s' is not @@ -l,n +l,n @@",
				   (int)(n > 60 ? 60 : n), s);
	(void)ns;
	fb->has_hunks = true;
	p->in_hunk = oc || nc;
	p->old_left = oc;
	p->new_left = nc;
	p->old_ln = oc ? os : os + 1; /* -l,0: nothing on the old side, insert after l */
	p->run_lo = p->run_hi = 0;
	p->pending_add = false;
	return 0;
}

static int hunk_line(struct parser *p, const char *s, size_t n)
{
	char c = n ? s[0] : ' '; /* an empty line: context whose blank was stripped */
	if (c == '\\')
		return 0; /* \ No newline at end of file */
	if (c == ' ') {
		if (!p->old_left || !p->new_left)
			return FAIL(p, "more lines in the hunk than its header counts");
		flush_run(p);
		p->old_ln++;
		p->old_left--;
		p->new_left--;
	} else if (c == '-') {
		if (!p->old_left)
			return FAIL(p, "more lines in the hunk than its header counts");
		if (!p->run_lo)
			p->run_lo = p->old_ln;
		p->run_hi = p->old_ln;
		p->old_ln++;
		p->old_left--;
	} else if (c == '+') {
		if (!p->new_left)
			return FAIL(p, "more lines in the hunk than its header counts");
		p->pending_add = true;
		p->new_left--;
	} else {
		return FAIL(p, "a line in a hunk that starts with neither ' ', '-' nor '+'");
	}
	if (!p->old_left && !p->new_left) {
		flush_run(p);
		p->in_hunk = false;
	}
	return 0;
}

/* diff --git a/X b/Y: the paths, when ---/+++ lines do not follow (a mode change, a binary file). */
static void git_header(struct parser *p, const char *s, size_t n)
{
	struct file_b *fb = new_file(p);
	const char *rest = s + 11, *end = s + n, *mid = NULL;
	size_t rn = (size_t)(end - rest);
	fb->git_header = true;
	if (rn && rest[0] == '"') {
		const char *q = rest + 1;
		while (q < end && *q != '"')
			q += *q == '\\' ? 2 : 1;
		if (q < end) {
			fb->f.old_path = path_of(p, rest, (size_t)(q + 1 - rest), "a/");
			rest = q + 2 <= end ? q + 2 : end;
			fb->f.new_path = path_of(p, rest, (size_t)(end - rest), "b/");
		}
		return;
	}
	/* a/P b/P: the split where both halves name the same path, else the first " b/" */
	for (const char *q = rest; (q = memmem(q, (size_t)(end - q), " b/", 3)); q++) {
		if (!mid)
			mid = q;
		if ((size_t)(q - rest) == (size_t)(end - q - 1) && !memcmp(rest + 2, q + 3, (size_t)(q - rest) - 2)) {
			mid = q;
			break;
		}
	}
	if (mid) {
		fb->f.old_path = path_of(p, rest, (size_t)(mid - rest), "a/");
		fb->f.new_path = path_of(p, mid + 1, (size_t)(end - mid - 1), "b/");
	}
}

int ot_udiff_parse(ot_udiff **out, const char *text, size_t len, const char *name)
{
	struct parser p = {0};
	ot_udiff *d = ot_calloc(1, sizeof(*d));
	const char *s = text, *end = text + len;
	int rc = 0;

	*out = NULL;
	d->arena = p.a = ot_arena_new();
	p.name = name;
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		size_t n = eol ? (size_t)(eol - s) : (size_t)(end - s);
		struct file_b *fb;
		p.ln++;
		if (n && s[n - 1] == '\r')
			n--;
		if (p.in_hunk) {
			if ((rc = hunk_line(&p, s, n)) < 0)
				goto done;
		} else if (n >= 11 && !memcmp(s, "diff --git ", 11)) {
			git_header(&p, s, n);
		} else if (n >= 4 && !memcmp(s, "--- ", 4)) {
			fb = cur(&p);
			if (!fb || fb->has_hunks || fb->saw_minus || !fb->git_header)
				fb = new_file(&p);
			fb->saw_minus = true;
			fb->f.old_path = path_of(&p, s + 4, n - 4, "a/");
		} else if (n >= 4 && !memcmp(s, "+++ ", 4)) {
			fb = cur(&p);
			if (!fb || !fb->saw_minus) {
				rc = FAIL(&p, "a '+++' line without its '---' line");
				goto done;
			}
			fb->f.new_path = path_of(&p, s + 4, n - 4, "b/");
			fb->saw_plus = true;
		} else if (n >= 2 && !memcmp(s, "@@", 2)) {
			if ((rc = hunk_header(&p, s, n)) < 0)
				goto done;
		} else if ((fb = cur(&p)) && !fb->has_hunks) {
			if (n >= 13 && !memcmp(s, "new file mode", 13))
				fb->f.old_path = NULL;
			else if (n >= 17 && !memcmp(s, "deleted file mode", 17))
				fb->f.whole = true;
			else if (n >= 12 && !memcmp(s, "rename from ", 12)) {
				fb->f.renamed = true;
				fb->f.old_path = path_of(&p, s + 12, n - 12, "");
			} else if (n >= 10 && !memcmp(s, "rename to ", 10)) {
				fb->f.renamed = true;
				fb->f.new_path = path_of(&p, s + 10, n - 10, "");
			} else if ((n >= 13 && !memcmp(s, "Binary files ", 13)) ||
				   (n >= 16 && !memcmp(s, "GIT binary patch", 16))) {
				fb->f.binary = true;
				fb->f.whole = fb->f.old_path != NULL;
			}
		}
		s = eol ? eol + 1 : end;
	}
	if (p.in_hunk) {
		rc = FAIL(&p, "the diff ends inside a hunk (fewer lines than its header counts)");
		goto done;
	}
	for (size_t i = 0; i < p.files.len; i++) {
		struct file_b *fb = &p.files.items[i];
		if (fb->saw_minus && !fb->saw_plus) {
			p.ln = fb->f.line;
			rc = FAIL(&p, "a file header without its '+++' line");
			goto done;
		}
		if (!fb->f.new_path && fb->f.old_path)
			fb->f.whole = true; /* deleted */
		fb->f.changes = OT_ARENA_VEC(p.a, &fb->changes);
		fb->f.nchanges = fb->changes.len;
	}
	d->nfiles = p.files.len;
	d->files = ot_arena_alloc(p.a, (p.files.len + 1) * sizeof(*d->files));
	for (size_t i = 0; i < p.files.len; i++)
		d->files[i] = p.files.items[i].f;
done:
	for (size_t i = 0; i < p.files.len; i++)
		ot_vec_free(&p.files.items[i].changes);
	ot_vec_free(&p.files);
	if (rc < 0) {
		ot_udiff_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void ot_udiff_free(ot_udiff *d)
{
	if (!d)
		return;
	ot_arena_free(d->arena);
	free(d);
}
