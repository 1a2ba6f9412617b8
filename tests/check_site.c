/*
 * check_site.c - the generated site against the tools people read it with.
 *
 * Every check runs on two sites written by build/optrace (--format
 * md,json,html): the fixture repository at v2.0.0 with the ops list below
 * (every strategy, well-known ops, `!full`, unknown names), and the real
 * v2.6.0 release with the repository's default ops.list.
 *
 *  1. MkDocs: `mkdocs build --strict` over the output folder succeeds
 *     without warnings, and the built pages show the diagram and tables;
 *     Sphinx with MyST-Parser (`sphinx-build -W`) and Hugo
 *     (`--panicOnWarning`, the folder mounted as content) build it too,
 *     and every link between the pages resolves in each built site.
 *  2. Links: every relative link and image of every page (as cmark-gfm
 *     sees them for Markdown, href/src attributes for the HTML bundle)
 *     names an existing file; absolute links are source links.
 *  3. GitHub: no raw HTML, table rows as wide as their header, no bare '<'
 *     or '{' in prose, front matter of exactly title and description,
 *     one H1, valid UTF-8.
 *  4. Determinism and the output folder's bookkeeping.
 *  5. The offline HTML bundle, also opened in headless Chromium from
 *     file:// (search, links, diagram node links, console).
 *  6. What each page says, in the order the issue asks for, against
 *     trace.json.
 *  7. Every file:line on the pages, in the diagrams and in the overview,
 *     opened at the tag (`git show TAG:path`): the line exists, holds the
 *     symbol shown next to it, and an excerpt shown under it is that
 *     source.
 *
 * The fixture site is written with --base-url, so its links must follow
 * the configured base; the release site uses the default (GitHub).
 *
 * The checkers collect problems into a buffer instead of stopping at the
 * first, so one run lists everything a page gets wrong (the start in the
 * failure message, all of it in a file under tests/tmp/); the "checkers"
 * case and fixture_source_checkers_fail feed them broken pages to show
 * that they can fail.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "markdown.h"
#include "pathview.h"
#include "testutil.h"
#include "value.h"
#include "yamldoc.h"

typedef OT_VEC(char *) strlist;

/* ---- the two sites ------------------------------------------------------------ */

/* Every strategy (module, functional, method, torch, aten), well-known ops
 * with and without `!full`, names with did-you-mean and without. */
static const char fixture_ops[] =
	"# optrace site tests: every strategy, well-known ops, !full, unknown names\n"
	"nn.Linear\n"
	"nn.LSTM\n"
	"F.linear\n"
	"F.softmax\n"
	"F.cross_entropy\n"
	"F.max_pool2d\n"
	"F.scaled_dot_product_attention\n"
	"Tensor.addmm\n"
	"Tensor.cumsum\n"
	"Tensor.add\n"
	"Tensor.norm\n"
	"torch.mm !full\n"
	"torch.matmul !full\n"
	"torch.einsum\n"
	"torch.cumsum\n"
	"torch.linalg.vector_norm\n"
	"torch.zeros\n"
	"torch.eq\n"
	"aten::addmm\n"
	"aten::_softmax.out\n"
	"F.softmx\n"
	"torch.frobnicate\n";

/* The op the removal test drops from the list (in both lists). */
#define DROPPED_OP "torch.einsum"

#define GITHUB_BLOB "https://github.com/pytorch/pytorch/blob"

typedef struct {
	const char *name;      /* for messages and folder names */
	const char *source;    /* git checkout */
	const char *version;   /* -t */
	const char *tag;       /* the tag every link must name */
	const char *base_url;  /* passed as --base-url, or NULL for the default */
	const char *link_base; /* what every source link starts with */
	char *dir;             /* this site's scratch folder */
	char *list;            /* ops list */
	char *out;             /* output folder (relative to the repository root) */
	char commit[41];
	int rc;
	ot_buf err;
	ot_arena *arena;
	ot_value *ops; /* trace.json "ops" */
} site;

static site fixture_site = {.name = "fixture", .version = "2.0.0", .tag = "v2.0.0",
			    .base_url = "https://example.org/pytorch/blob",
			    .link_base = "https://example.org/pytorch/blob"};
static site release_site = {.name = "release", .version = "2.6.0", .tag = "v2.6.0",
			    .link_base = GITHUB_BLOB};

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Run optrace on `s` into `out` with extra arguments (NULL-terminated). */
static int run_optrace(const site *s, const char *list, const char *out, ot_buf *err, ...)
{
	const char *argv[32];
	size_t n = 0;
	va_list ap;
	const char *extra;
	argv[n++] = tu_optrace();
	argv[n++] = "-s";
	argv[n++] = s->source;
	argv[n++] = "-t";
	argv[n++] = s->version;
	argv[n++] = "--format";
	argv[n++] = "md,json,html";
	argv[n++] = "-o";
	argv[n++] = out;
	if (s->base_url) {
		argv[n++] = "--base-url";
		argv[n++] = s->base_url;
	}
	va_start(ap, err);
	while ((extra = va_arg(ap, const char *)) != NULL && n < OT_ARRAY_LEN(argv) - 2)
		argv[n++] = extra;
	va_end(ap);
	argv[n++] = list;
	argv[n] = NULL;
	return tu_run(argv, NULL, err);
}

static void git_commit_of(const site *s, char out[41])
{
	ot_buf rev = OT_BUF_INIT, spec = OT_BUF_INIT;
	const char *argv[] = {"git", "-C", s->source, "rev-parse", NULL, NULL};
	ot_buf_printf(&spec, "%s^{commit}", s->tag);
	argv[4] = spec.ptr;
	out[0] = '\0';
	if (tu_run(argv, &rev, NULL) == 0 && rev.size >= 40)
		snprintf(out, 41, "%.40s", rev.ptr);
	ot_buf_free(&rev);
	ot_buf_free(&spec);
}

/* Write the site once, in the parent process: every forked test reads it. */
static void site_build(site *s)
{
	char *json;
	size_t len;
	if (!s->dir)
		s->dir = tu_tmpdir(s->name);
	s->out = tu_path(s->dir, "out");
	s->err = (ot_buf)OT_BUF_INIT;
	s->rc = run_optrace(s, s->list, s->out, &s->err, NULL);
	git_commit_of(s, s->commit);
	s->arena = ot_arena_new();
	json = tu_path(s->out, "trace.json");
	if (is_file(json)) {
		ot_value *doc = NULL;
		char *text = tu_read_file(json, &len);
		if (ot_yaml_load(&doc, s->arena, text, len, "trace.json") == 0)
			s->ops = ot_v_get(doc, "ops");
		free(text);
	}
	free(json);
}

static void fixture_setup(void)
{
	fixture_site.source = tu_fixture_repo();
	fixture_site.dir = tu_tmpdir(fixture_site.name);
	fixture_site.list = tu_path(fixture_site.dir, "ops.list");
	tu_write_file(fixture_site.list, fixture_ops, strlen(fixture_ops));
	site_build(&fixture_site);
}

static void release_setup(void)
{
	release_site.source = tu_real_source();
	release_site.list = "ops.list";
	site_build(&release_site);
}

/* The site as every test expects it: written, with a trace.json. */
static void site_ready(const site *s)
{
	ck_assert_msg(s->rc == 0 || s->rc == 1, "optrace on the %s site exited %d:\n%s", s->name,
		      s->rc, s->err.ptr);
	ck_assert_msg(s->ops && s->ops->type == OT_V_LIST && ot_v_len(s->ops) > 0,
		      "%s: no ops in trace.json", s->name);
	ck_assert_msg(strlen(s->commit) == 40, "%s: no commit for %s", s->name, s->tag);
}

/* ---- problems -------------------------------------------------------------------- */

static void problem(ot_buf *pb, const char *fmt, ...) OT_PRINTF(2, 3);
static void problem(ot_buf *pb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ot_buf_vprintf(pb, fmt, ap);
	va_end(ap);
	ot_buf_putc(pb, '\n');
}

/* At most `max` bytes of `s`, not ending inside a UTF-8 sequence. */
static int utf8_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	if (n == max)
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	return (int)n;
}

static size_t count_lines(const ot_buf *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->size; i++)
		n += b->ptr[i] == '\n';
	return n;
}

/*
 * Fail with the list of problems: its start in the message (Check's
 * messages are limited to a few kilobytes), all of it in a file.
 */
static void assert_clean(ot_buf *pb, const char *what)
{
	if (pb->size > 3500) {
		size_t total = count_lines(pb);
		char *dir = tu_tmpdir("problems"), *path = tu_path(dir, "list.txt");
		tu_write_file(path, pb->ptr, pb->size);
		ot_buf_truncate(pb, (size_t)utf8_cut(pb->ptr, 3500));
		ot_buf_printf(pb, "\n... (%zu problems in all, listed in %s)", total, path);
		free(path);
		free(dir);
	}
	ck_assert_msg(pb->size == 0, "%s:\n%s", what, pb->ptr);
	ot_buf_free(pb);
}

/* ---- files ------------------------------------------------------------------------ */

static void list_into(strlist *out, const char *root, const char *rel)
{
	char *dir = rel ? tu_path(root, rel) : ot_strdup(root);
	DIR *d = opendir(dir);
	struct dirent *e;
	ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char *r, *p;
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		r = rel ? tu_path(rel, e->d_name) : ot_strdup(e->d_name);
		p = tu_path(root, r);
		ck_assert(lstat(p, &st) == 0);
		if (S_ISDIR(st.st_mode)) {
			list_into(out, root, r);
			free(r);
		} else {
			ot_vec_push(out, r);
		}
		free(p);
	}
	closedir(d);
	free(dir);
}

/* Every file below `root` (hidden ones too), relative, sorted. */
static void list_files(strlist *out, const char *root)
{
	list_into(out, root, NULL);
	if (out->len)
		qsort(out->items, out->len, sizeof(char *), ot_strptr_cmp);
}

static void strlist_free(strlist *l)
{
	for (size_t i = 0; i < l->len; i++)
		free(l->items[i]);
	ot_vec_free(l);
}

static bool strlist_has(const strlist *l, const char *s)
{
	for (size_t i = 0; i < l->len; i++)
		if (!strcmp(l->items[i], s))
			return true;
	return false;
}

static char *read_rel(const char *root, const char *rel, size_t *len)
{
	char *p = tu_path(root, rel), *text = tu_read_file(p, len);
	free(p);
	return text;
}

/* Same file names, same bytes. */
static void compare_trees(ot_buf *pb, const char *a, const char *b)
{
	strlist la = {0}, lb = {0};
	list_files(&la, a);
	list_files(&lb, b);
	for (size_t i = 0; i < la.len; i++)
		if (!strlist_has(&lb, la.items[i]))
			problem(pb, "%s is in %s but not in %s", la.items[i], a, b);
	for (size_t i = 0; i < lb.len; i++) {
		size_t na, nb;
		char *ta, *tb;
		if (!strlist_has(&la, lb.items[i])) {
			problem(pb, "%s is in %s but not in %s", lb.items[i], b, a);
			continue;
		}
		ta = read_rel(a, lb.items[i], &na);
		tb = read_rel(b, lb.items[i], &nb);
		if (na != nb || memcmp(ta, tb, na))
			problem(pb, "%s differs between %s and %s", lb.items[i], a, b);
		free(ta);
		free(tb);
	}
	strlist_free(&la);
	strlist_free(&lb);
}

/* Name, inode, size, mtime and hash of every file: equal means untouched. */
static void snapshot(ot_buf *out, const char *root)
{
	strlist l = {0};
	list_files(&l, root);
	for (size_t i = 0; i < l.len; i++) {
		char *p = tu_path(root, l.items[i]), *text;
		struct stat st;
		size_t len;
		ck_assert(lstat(p, &st) == 0);
		text = tu_read_file(p, &len);
		ot_buf_printf(out, "%s ino=%llu size=%lld mtime=%lld.%09ld hash=%016llx\n", l.items[i],
			      (unsigned long long)st.st_ino, (long long)st.st_size,
			      (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			      (unsigned long long)ot_hash(text, len));
		free(text);
		free(p);
	}
	strlist_free(&l);
}

/* ---- trace.json --------------------------------------------------------------------- */

static const char *op_str(const ot_value *op, const char *key)
{
	const char *s = ot_v_cstr(ot_v_get(op, key));
	return s ? s : "";
}

static const ot_value *op_by_input(const site *s, const char *input)
{
	for (size_t i = 0; i < ot_v_len(s->ops); i++)
		if (!strcmp(op_str(ot_v_at(s->ops, i), "input"), input))
			return ot_v_at(s->ops, i);
	return NULL;
}

static bool step_found(const ot_value *step)
{
	const ot_value *f = ot_v_get(step, "file");
	return f && f->type == OT_V_STR;
}

static long long step_line(const ot_value *step)
{
	const ot_value *l = ot_v_get(step, "line");
	return l && l->type == OT_V_INT ? l->u.i : 0;
}

/* ---- text helpers -------------------------------------------------------------------- */

typedef struct {
	const char *ptr;
	size_t len;
} span;

typedef OT_VEC(span) spanlist;

static void split_lines(spanlist *out, const char *text, size_t len)
{
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || text[i] == '\n') {
			if (i == len && start == len)
				break;
			ot_vec_push(out, ((span){text + start, i - start}));
			start = i + 1;
		}
	}
}

static bool span_starts(span s, const char *prefix)
{
	size_t n = strlen(prefix);
	return s.len >= n && !memcmp(s.ptr, prefix, n);
}

static bool span_is(span s, const char *text)
{
	return s.len == strlen(text) && !memcmp(s.ptr, text, s.len);
}

static const char *memstr(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	if (!n)
		return hay;
	for (size_t i = 0; i + n <= len; i++)
		if (hay[i] == needle[0] && !memcmp(hay + i, needle, n))
			return hay + i;
	return NULL;
}

/* `text` with its first `from` replaced by `to` (caller frees). */
static char *replace_first(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	ot_buf b = OT_BUF_INIT;
	ck_assert_msg(at != NULL, "no \"%s\" to replace", from);
	ot_buf_put(&b, text, (size_t)(at - text));
	ot_buf_puts(&b, to);
	ot_buf_puts(&b, at + strlen(from));
	return ot_buf_detach(&b);
}

/* Offset just past the front matter block, or 0 when there is none. */
static size_t front_matter_end(const char *md, size_t len)
{
	const char *end;
	if (len < 4 || memcmp(md, "---\n", 4))
		return 0;
	end = memstr(md + 3, len - 3, "\n---\n");
	return end ? (size_t)(end - md) + 5 : 0;
}

/* Offset of the first invalid UTF-8 sequence (NUL included), or -1. */
static long utf8_invalid_at(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;
	while (i < len) {
		unsigned c = s[i], need, min;
		unsigned long cp;
		if (c == 0)
			return (long)i;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC0 && c < 0xE0) {
			need = 1, min = 0x80, cp = c & 0x1F;
		} else if (c >= 0xE0 && c < 0xF0) {
			need = 2, min = 0x800, cp = c & 0x0F;
		} else if (c >= 0xF0 && c < 0xF8) {
			need = 3, min = 0x10000, cp = c & 0x07;
		} else {
			return (long)i;
		}
		for (unsigned k = 1; k <= need; k++) {
			if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
				return (long)i;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return (long)i;
		i += need + 1;
	}
	return -1;
}

/*
 * The text of a code span starting at `p` (a run of backticks), as a reader
 * sees it: the matching run closes it, one space of padding on both sides
 * is dropped, and inside a table cell "\|" is a pipe. Returns a heap string
 * and sets *end past the span, or NULL when `p` opens no span.
 */
static char *code_span(const char *p, const char *limit, bool in_table, const char **end)
{
	size_t run = 0, n;
	const char *q, *body;
	ot_buf b = OT_BUF_INIT;
	while (p + run < limit && p[run] == '`')
		run++;
	if (!run)
		return NULL;
	body = p + run;
	for (q = body; q < limit; q++) {
		size_t r = 0;
		if (*q != '`')
			continue;
		while (q + r < limit && q[r] == '`')
			r++;
		if (r == run)
			break;
		q += r - 1;
	}
	if (q >= limit)
		return NULL;
	n = (size_t)(q - body);
	if (n >= 2 && body[0] == ' ' && body[n - 1] == ' ') {
		body++;
		n -= 2;
	}
	for (size_t i = 0; i < n; i++) {
		if (in_table && body[i] == '\\' && i + 1 < n && body[i + 1] == '|')
			continue;
		ot_buf_putc(&b, body[i]);
	}
	*end = q + run;
	return ot_buf_detach(&b);
}

/* A fence line ("```lang" / "~~~"): its character and length, else 0. */
static size_t fence_open(span l, char *ch)
{
	size_t i = 0, n = 0;
	while (i < l.len && i < 3 && l.ptr[i] == ' ')
		i++;
	if (i >= l.len || (l.ptr[i] != '`' && l.ptr[i] != '~'))
		return 0;
	*ch = l.ptr[i];
	while (i + n < l.len && l.ptr[i + n] == *ch)
		n++;
	return n >= 3 ? n : 0;
}

static bool fence_closes(span l, char ch, size_t n)
{
	size_t i = 0, run = 0;
	while (i < l.len && i < 3 && l.ptr[i] == ' ')
		i++;
	while (i + run < l.len && l.ptr[i + run] == ch)
		run++;
	if (run < n)
		return false;
	for (i += run; i < l.len; i++)
		if (l.ptr[i] != ' ')
			return false;
	return true;
}

/* Mark the lines inside fenced code blocks (the fences included). */
static bool *code_lines(const spanlist *lines)
{
	bool *in = ot_calloc(lines->len + 1, sizeof(bool));
	char ch = 0;
	size_t open = 0;
	for (size_t i = 0; i < lines->len; i++) {
		if (open) {
			in[i] = true;
			if (fence_closes(lines->items[i], ch, open))
				open = 0;
		} else if ((open = fence_open(lines->items[i], &ch)) > 0) {
			in[i] = true;
		}
	}
	return in;
}

/* ---- 3. GitHub compatibility of one Markdown page ------------------------------------- */

/* '<' or '{' outside code spans and not backslash-escaped. */
static void check_prose_line(ot_buf *pb, const char *name, size_t lineno, span l)
{
	const char *p = l.ptr, *end = l.ptr + l.len;
	while (p < end) {
		if (*p == '\\' && p + 1 < end) {
			p += 2;
		} else if (*p == '`') {
			const char *after;
			char *code = code_span(p, end, false, &after);
			if (code) {
				/* Markdown escapes are literal inside code: the reader sees them */
				for (const char *c = code; *c; c++)
					if (c[0] == '\\' && c[1] && strchr("_*{}[]#!", c[1])) {
						problem(pb, "%s:%zu:%zu: backslash escape inside a code span "
							    "(shown as typed): `%s`",
							name, lineno, (size_t)(p - l.ptr) + 1, code);
						break;
					}
				free(code);
				p = after;
			} else {
				while (p < end && *p == '`')
					p++;
			}
		} else if (*p == '<' || *p == '{') {
			problem(pb, "%s:%zu:%zu: bare '%c' in prose: %.*s", name, lineno,
				(size_t)(p - l.ptr) + 1, *p, (int)l.len, l.ptr);
			p++;
		} else {
			p++;
		}
	}
}

/* Pipes that split cells: on GitHub every unescaped one, in MkDocs
 * (Python-Markdown) those outside code spans. */
static void count_cells(span l, int *gfm, int *pymd)
{
	const char *p = l.ptr, *end = l.ptr + l.len;
	int pipes = 0, code_pipes = 0;
	bool lead, trail;
	while (end > p && end[-1] == ' ')
		end--;
	while (p < end && *p == ' ')
		p++;
	lead = p < end && *p == '|';
	trail = end - p >= 2 && end[-1] == '|' && end[-2] != '\\';
	for (const char *q = p; q < end; q++) {
		if (*q == '\\') {
			q++;
		} else if (*q == '`') {
			const char *after;
			char *code = code_span(q, end, false, &after);
			if (code) {
				for (const char *c = q; c < after; c++)
					if (*c == '|' && c[-1] != '\\')
						code_pipes++;
				free(code);
				q = after - 1;
			}
		} else if (*q == '|') {
			pipes++;
		}
	}
	*pymd = pipes + 1 - lead - trail;
	*gfm = pipes + code_pipes + 1 - lead - trail;
}

static bool is_delimiter_row(span l)
{
	bool dash = false;
	for (size_t i = 0; i < l.len; i++) {
		char c = l.ptr[i];
		if (c == '-')
			dash = true;
		else if (c != '|' && c != ':' && c != ' ')
			return false;
	}
	return dash && memchr(l.ptr, '|', l.len);
}

static void check_tables(ot_buf *pb, const char *name, const spanlist *lines, const bool *code)
{
	for (size_t i = 0; i + 1 < lines->len; i++) {
		int head, head_py, cells, cells_py;
		(void)head_py;
		if (code[i] || !memchr(lines->items[i].ptr, '|', lines->items[i].len) ||
		    !is_delimiter_row(lines->items[i + 1]))
			continue;
		count_cells(lines->items[i], &head, &head_py);
		for (size_t k = i + 1; k < lines->len && lines->items[k].len && !code[k]; k++) {
			count_cells(lines->items[k], &cells, &cells_py);
			if (cells != head)
				problem(pb, "%s:%zu: table row has %d cells, its header %d: %.*s", name,
					k + 1, cells, head, (int)lines->items[k].len, lines->items[k].ptr);
			if (cells != cells_py)
				problem(pb, "%s:%zu: '|' inside a code span splits the cell on GitHub "
					    "but not in MkDocs: %.*s",
					name, k + 1, (int)lines->items[k].len, lines->items[k].ptr);
			i = k;
		}
	}
}

/* Scan the text of an HTML fragment (not tags, not code) for `needle`. */
static const char *html_text_find(const char *html, const char *needle)
{
	const char *p = html;
	size_t n = strlen(needle);
	int in_code = 0;
	while (*p) {
		if (*p == '<') {
			if (!strncmp(p, "<code", 5) || !strncmp(p, "<pre", 4))
				in_code++;
			else if (!strncmp(p, "</code>", 7) || !strncmp(p, "</pre>", 6))
				in_code--;
			p = strchr(p, '>');
			if (!p)
				break;
			p++;
			continue;
		}
		if (!in_code && !strncmp(p, needle, n))
			return p;
		p++;
	}
	return NULL;
}

static size_t count_str(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * Raw HTML, through the renderer: cmark-gfm parses a '<' that starts a tag
 * as an HTML node, and ot_markdown_to_html turns such nodes into escaped
 * text. With every '&' of the page written as "&amp;" first, legitimate
 * entities ("&lt;") render as "&amp;lt;", so an "&lt;" left in the text of
 * the rendered page (outside code) can only come from a literal '<' in the
 * prose: a raw HTML tag when a name follows it, else a bare '<'.
 */
static void check_raw_html(ot_buf *pb, const char *name, const char *md, size_t len)
{
	ot_buf neutral = OT_BUF_INIT, html = OT_BUF_INIT;
	const char *hit;
	for (size_t i = 0; i < len; i++) {
		if (md[i] == '&')
			ot_buf_puts(&neutral, "&amp;");
		else
			ot_buf_putc(&neutral, md[i]);
	}
	ck_assert(ot_markdown_to_html(&html, neutral.ptr, neutral.size, false) == 0);
	hit = html_text_find(html.ptr, "&lt;");
	if (hit) {
		char c = hit[4];
		problem(pb, "%s: %s in prose: %.*s", name,
			isalpha((unsigned char)c) || c == '/' || c == '!' || c == '?' ? "raw HTML"
										 : "a literal '<'",
			utf8_cut(hit, 60), hit);
	}
	ot_buf_free(&neutral);
	ot_buf_free(&html);
}

/* Front matter: exactly title and description, both one-line strings;
 * the title is the page's H1. */
static void check_front_matter(ot_buf *pb, const char *name, const char *md, size_t len)
{
	size_t end = front_matter_end(md, len);
	ot_arena *a;
	ot_value *fm = NULL;
	char *h1;
	const char *title;
	if (!end) {
		problem(pb, "%s: no front matter block at the top", name);
		return;
	}
	a = ot_arena_new();
	if (ot_yaml_load(&fm, a, md + 4, end - 4 - 4, name) < 0) {
		problem(pb, "%s: front matter is not YAML: %s", name, ot_error_last());
		ot_arena_free(a);
		return;
	}
	if (!fm || fm->type != OT_V_MAP || fm->u.map.len != 2 || !ot_v_get(fm, "title") ||
	    !ot_v_get(fm, "description")) {
		problem(pb, "%s: front matter must hold exactly title and description", name);
		ot_arena_free(a);
		return;
	}
	for (size_t i = 0; i < 2; i++) {
		const ot_value *v = fm->u.map.items[i].value;
		if (v->type != OT_V_STR || !v->u.str.len || memchr(v->u.str.ptr, '\n', v->u.str.len))
			problem(pb, "%s: front matter %s is not a one-line string", name,
				fm->u.map.items[i].key);
	}
	title = ot_v_cstr(ot_v_get(fm, "title"));
	h1 = ot_markdown_title(md, len);
	if (title && (!h1 || strcmp(h1, title)))
		problem(pb, "%s: front matter title \"%s\" is not the H1 \"%s\"", name, title,
			h1 ? h1 : "(none)");
	free(h1);
	ot_arena_free(a);
}

static void check_markdown_page(ot_buf *pb, const char *name, const char *md, size_t len)
{
	long bad = utf8_invalid_at(md, len);
	spanlist lines = {0};
	bool *code;
	size_t body;
	ot_buf html = OT_BUF_INIT;

	if (bad >= 0) {
		problem(pb, "%s: invalid UTF-8 at byte %ld", name, bad);
		return;
	}
	check_front_matter(pb, name, md, len);
	ck_assert(ot_markdown_to_html(&html, md, len, false) == 0);
	if (count_str(html.ptr, "<h1>") + count_str(html.ptr, "<h1 ") != 1)
		problem(pb, "%s: %zu H1 headings, expected one", name,
			count_str(html.ptr, "<h1>") + count_str(html.ptr, "<h1 "));
	ot_buf_free(&html);
	check_raw_html(pb, name, md, len);

	body = front_matter_end(md, len);
	split_lines(&lines, md, len);
	code = code_lines(&lines);
	for (size_t i = 0; i < lines.len; i++)
		if (!code[i] && lines.items[i].ptr >= md + body)
			check_prose_line(pb, name, i + 1, lines.items[i]);
	check_tables(pb, name, &lines, code);
	free(code);
	ot_vec_free(&lines);
}

/* ---- 2. links ------------------------------------------------------------------------- */

/* "a/b" + "../c.md" -> "c.md"; NULL when it leaves the root. Caller frees. */
static char *resolve_rel(const char *page, const char *target)
{
	strlist parts = {0};
	ot_buf b = OT_BUF_INIT, all = OT_BUF_INIT;
	const char *slash = strrchr(page, '/');
	char *save = NULL, *tok, *copy;
	bool escaped = false;
	if (slash)
		ot_buf_put(&all, page, (size_t)(slash - page + 1));
	/* percent-decoding: what a browser asks the file system for */
	for (const char *p = target; *p; p++) {
		unsigned v;
		if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2]) &&
		    sscanf(p + 1, "%2x", &v) == 1) {
			ot_buf_putc(&all, (char)v);
			p += 2;
		} else {
			ot_buf_putc(&all, *p);
		}
	}
	copy = ot_buf_detach(&all);
	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			if (!parts.len)
				escaped = true;
			else
				free(parts.items[--parts.len]);
			continue;
		}
		ot_vec_push(&parts, ot_strdup(tok));
	}
	for (size_t i = 0; i < parts.len; i++)
		ot_buf_printf(&b, "%s%s", i ? "/" : "", parts.items[i]);
	strlist_free(&parts);
	free(copy);
	if (escaped) {
		ot_buf_free(&b);
		return NULL;
	}
	return ot_buf_detach(&b);
}

static bool has_scheme(const char *url)
{
	const char *p = url;
	if (!isalpha((unsigned char)*p))
		return false;
	while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	return *p == ':';
}

/*
 * A source link: LINK_BASE/TAG/path#L<n>, path made of plain path
 * characters with no "." or ".." component. Sets *path (heap) and *line.
 */
static bool parse_source_link(const site *s, const char *url, char **path, long *line)
{
	size_t nb = strlen(s->link_base), nt = strlen(s->tag);
	const char *p, *hash;
	char *end;
	*path = NULL;
	if (strncmp(url, s->link_base, nb) || url[nb] != '/' || strncmp(url + nb + 1, s->tag, nt) ||
	    url[nb + 1 + nt] != '/')
		return false;
	p = url + nb + 1 + nt + 1;
	hash = strchr(p, '#');
	if (!hash || hash == p || strncmp(hash, "#L", 2) || !isdigit((unsigned char)hash[2]))
		return false;
	for (const char *q = p; q < hash; q++)
		if (!isalnum((unsigned char)*q) && !strchr("/_-.+", *q))
			return false;
	*line = strtol(hash + 2, &end, 10);
	if (*end || *line < 1)
		return false;
	*path = ot_strndup(p, (size_t)(hash - p));
	if (strstr(*path, "//") || !strncmp(*path, "../", 3) || strstr(*path, "/../") ||
	    strstr(*path, "/./") || ot_ends_with(*path, "/")) {
		free(*path);
		*path = NULL;
		return false;
	}
	return true;
}

/*
 * One link of page `page` (relative to `root`). Relative links must name an
 * existing file under `bundle` (the folder the page set lives in, "" for
 * the whole output); in the HTML bundle no ".md" may be left.
 */
static void check_url(ot_buf *pb, const site *s, const char *root, const char *page,
		      const char *bundle, const char *url, int line, bool html)
{
	char *target, *path, *resolved, *full;
	long n;
	if (!*url) {
		problem(pb, "%s:%d: empty link", page, line);
		return;
	}
	if (has_scheme(url)) {
		if (!parse_source_link(s, url, &path, &n))
			problem(pb, "%s:%d: absolute link that is not a source link %s/%s/PATH#LN: %s",
				page, line, s->link_base, s->tag, url);
		free(path);
		return;
	}
	if (url[0] == '#')
		return;
	if (url[0] == '/' || url[0] == '\\') {
		problem(pb, "%s:%d: absolute path link %s", page, line, url);
		return;
	}
	target = ot_strndup(url, strcspn(url, "#?"));
	if (html && (ot_ends_with(target, ".md")))
		problem(pb, "%s:%d: a .md link left in the HTML bundle: %s", page, line, url);
	resolved = resolve_rel(page, target);
	if (!resolved || strncmp(resolved, bundle, strlen(bundle))) {
		problem(pb, "%s:%d: link %s leaves %s", page, line, url, *bundle ? bundle : "the output");
	} else {
		full = tu_path(root, resolved);
		if (!is_file(full))
			problem(pb, "%s:%d: link %s: no file %s", page, line, url, resolved);
		free(full);
	}
	free(resolved);
	free(target);
}

/* href="..." / src="..." attribute values of an HTML or SVG file, in order. */
static void html_links(strlist *out, const char *html)
{
	static const char *const attrs[] = {" href=\"", " src=\"", " xlink:href=\""};
	for (const char *p = html; *p; p++) {
		for (size_t k = 0; k < OT_ARRAY_LEN(attrs); k++) {
			size_t n = strlen(attrs[k]);
			const char *end;
			ot_buf v = OT_BUF_INIT;
			if (strncmp(p, attrs[k], n))
				continue;
			end = strchr(p + n, '"');
			if (!end)
				break;
			for (const char *q = p + n; q < end; q++) {
				if (!strncmp(q, "&amp;", 5)) {
					ot_buf_putc(&v, '&');
					q += 4;
				} else {
					ot_buf_putc(&v, *q);
				}
			}
			ot_vec_push(out, ot_buf_detach(&v));
		}
	}
}

static void check_links(ot_buf *pb, const site *s, const char *root)
{
	strlist files = {0};
	list_files(&files, root);
	for (size_t i = 0; i < files.len; i++) {
		const char *rel = files.items[i];
		size_t len;
		char *text;
		if (ot_ends_with(rel, ".md")) {
			ot_markdown_links links = {0};
			text = read_rel(root, rel, &len);
			ck_assert(ot_markdown_links_collect(&links, text, len) == 0);
			for (size_t k = 0; k < links.len; k++)
				check_url(pb, s, root, rel, "", links.items[k].url, links.items[k].line,
					  false);
			ot_markdown_links_free(&links);
			free(text);
		} else if (ot_starts_with(rel, "html/") && ot_ends_with(rel, ".html")) {
			strlist links = {0};
			text = read_rel(root, rel, &len);
			html_links(&links, text);
			for (size_t k = 0; k < links.len; k++)
				check_url(pb, s, root, rel, "html/", links.items[k], 0, true);
			strlist_free(&links);
			free(text);
		}
	}
	strlist_free(&files);
}

/* ---- 7. file:line at the tag --------------------------------------------------------- */

typedef struct {
	char *data;
	spanlist lines;
	bool missing;
} source_file;

typedef struct {
	const site *s;
	ot_map *files; /* path -> source_file */
	ot_arena *arena;
	size_t checked;
} source_cache;

static const source_file *source_get(source_cache *c, const char *path)
{
	source_file *f = ot_map_get(c->files, path);
	if (!f) {
		ot_buf text = OT_BUF_INIT;
		f = ot_arena_alloc(c->arena, sizeof(*f));
		f->missing = !tu_git_show(&text, c->s->source, c->s->tag, path);
		f->data = ot_buf_detach(&text);
		split_lines(&f->lines, f->data, strlen(f->data));
		ot_map_put(c->files, ot_arena_strdup(c->arena, path), f);
	}
	return f;
}

static void source_cache_free(source_cache *c)
{
	for (size_t i = 0; i < ot_map_len(c->files); i++) {
		source_file *f = ot_map_value_at(c->files, i);
		free(f->data);
		ot_vec_free(&f->lines);
	}
	ot_map_free(c->files);
	ot_arena_free(c->arena);
}

/* Line `line` of `path` at the tag, or NULL (with a problem reported). */
static const span *source_line(ot_buf *pb, source_cache *c, const char *where, const char *path,
			       long line)
{
	const source_file *f = source_get(c, path);
	c->checked++;
	if (f->missing) {
		problem(pb, "%s: %s does not exist at %s", where, path, c->s->tag);
		return NULL;
	}
	if (line < 1 || (size_t)line > f->lines.len) {
		problem(pb, "%s: %s has %zu lines at %s, not %ld", where, path, f->lines.len,
			c->s->tag, line);
		return NULL;
	}
	return &f->lines.items[line - 1];
}

/* Code as compared: comments dropped (C and C++ ones, Python's for a .py
 * file), a table cell's escaped '|' and a no-break space read as written,
 * and each run of blanks one space. Caller frees. */
static char *code_text(const char *s, size_t n, bool python)
{
	ot_buf b = OT_BUF_INIT;
	bool blank = false;
	char quote = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (quote) {
			if (ch == '\\' && i + 1 < n) {
				ot_buf_put(&b, s + i, 2);
				i++;
				continue;
			}
			if (ch == quote)
				quote = 0;
		} else if (ch == '"' || ch == '\'') {
			quote = ch;
		} else if (!python && ch == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *end = memstr(s + i + 2, n - i - 2, "*/");
			i = end ? (size_t)(end - s) + 1 : n;
			continue;
		} else if ((!python && ch == '/' && i + 1 < n && s[i + 1] == '/') || (python && ch == '#')) {
			break;
		} else if (ch == '\\' && i + 1 < n && s[i + 1] == '|') {
			continue; /* GFM's \| in a table cell */
		}
		if ((unsigned char)ch == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] == 0xa0) {
			ch = ' ';
			i++;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
			blank = b.size > 0;
			continue;
		}
		if (blank)
			ot_buf_putc(&b, ' ');
		blank = false;
		ot_buf_putc(&b, ch);
	}
	return b.ptr ? ot_buf_detach(&b) : strdup("");
}

/* Does line `line` of `path` hold `symbol` (both read by code_text)? */
static void expect_symbol(ot_buf *pb, source_cache *c, const char *where, const char *path,
			  long line, const char *symbol)
{
	const span *l = source_line(pb, c, where, path, line);
	bool python = ot_ends_with(path, ".py");
	char *code, *want;
	if (!l || !symbol)
		return;
	code = code_text(l->ptr, l->len, python);
	want = code_text(symbol, strlen(symbol), false);
	if (!strstr(code, want))
		problem(pb, "%s: %s:%ld does not contain `%s`: %.*s", where, path, line, symbol,
			(int)l->len, l->ptr);
	free(code);
	free(want);
}

static const char *fence_lang_of(const char *path)
{
	if (ot_ends_with(path, ".py") || ot_ends_with(path, ".pyi"))
		return "python";
	if (ot_ends_with(path, ".yaml"))
		return "yaml";
	if (ot_ends_with(path, ".cu") || ot_ends_with(path, ".cuh"))
		return "cuda";
	if (ot_ends_with(path, ".mm"))
		return "objective-c++";
	return "cpp";
}

static bool span_eq(span a, span b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/*
 * Excerpt lines ex[first, first+n) read from the file from line s0 on:
 * each is the next file line, except after a "    ..." line, which stands
 * for lines left out. True when all match and `line` is one of them.
 */
static bool excerpt_matches(const spanlist *ex, size_t first, size_t n, const source_file *f,
			    long s0, long line)
{
	long fl = s0, nlines = (long)f->lines.len;
	bool covered = false, gap = false;
	for (size_t k = 0; k < n; k++) {
		span a = ex->items[first + k];
		if (span_is(a, "    ...") && k) {
			gap = true;
			continue;
		}
		while (gap && fl <= nlines && !span_eq(a, f->lines.items[fl - 1]))
			fl++;
		gap = false;
		if (fl > nlines || !span_eq(a, f->lines.items[fl - 1]))
			return false;
		covered = covered || fl == line;
		fl++;
	}
	return covered;
}

/*
 * The excerpt under a location line, if any (before the next location,
 * heading, list or table): its language must be that of the file and its
 * lines those of the file around `line`, in order ("    ..." for a gap).
 */
static void check_excerpt(ot_buf *pb, source_cache *c, const char *where, const spanlist *lines,
			  size_t at, const char *path, long line)
{
	const source_file *f;
	size_t open = 0, first, n;
	char ch;
	bool matched = false;
	for (size_t i = at + 1; i < lines->len; i++) {
		span l = lines->items[i];
		if (span_starts(l, "[") || span_starts(l, "#") || span_starts(l, "|") ||
		    span_starts(l, "- ") || span_starts(l, "**"))
			return;
		if ((open = fence_open(l, &ch)) > 0) {
			span lang = {l.ptr + open, l.len - open};
			if (!span_is(lang, fence_lang_of(path)))
				problem(pb, "%s: excerpt of %s fenced as '%.*s', expected '%s'", where,
					path, (int)lang.len, lang.ptr, fence_lang_of(path));
			first = i + 1;
			break;
		}
	}
	if (!open)
		return;
	for (n = 0; first + n < lines->len && !fence_closes(lines->items[first + n], ch, open); n++)
		;
	f = source_get(c, path);
	if (f->missing || !n)
		return;
	/* the excerpt starts at a file line s <= line and covers `line` */
	for (long s0 = line; s0 >= 1 && s0 > line - 500 && !matched; s0--)
		matched = excerpt_matches(lines, first, n, f, s0, line);
	if (!matched)
		problem(pb, "%s: the %zu-line excerpt is not the source around %s:%ld", where, n, path,
			line);
}

/* Every source link of one Markdown page, with the symbol and excerpt beside it. */
static void check_page_sources(ot_buf *pb, source_cache *c, const char *name, const char *md,
			       size_t len)
{
	spanlist lines = {0};
	bool *code;
	ot_buf prefix = OT_BUF_INIT;
	split_lines(&lines, md, len);
	code = code_lines(&lines);
	ot_buf_printf(&prefix, "](%s/%s/", c->s->link_base, c->s->tag);
	for (size_t i = 0; i < lines.len; i++) {
		span l = lines.items[i];
		const char *end = l.ptr + l.len, *p = l.ptr;
		bool table = span_starts(l, "|");
		if (code[i])
			continue;
		while ((p = memstr(p, (size_t)(end - p), prefix.ptr)) != NULL) {
			const char *url = p + 2, *close = memchr(url, ')', (size_t)(end - url));
			const char *open_br = NULL, *after, *sym_end;
			char *u, *path = NULL, *text = NULL, *symbol = NULL, where[300];
			long line;
			if (!close)
				break;
			u = ot_strndup(url, (size_t)(close - url));
			snprintf(where, sizeof(where), "%s:%zu", name, i + 1);
			if (!parse_source_link(c->s, u, &path, &line)) {
				problem(pb, "%s: malformed source link %s", where, u);
				free(u);
				p = close;
				continue;
			}
			/* the link text: `path:line` */
			for (const char *q = p - 1; q >= l.ptr; q--)
				if (*q == '[') {
					open_br = q;
					break;
				}
			if (open_br && open_br[1] == '`')
				text = code_span(open_br + 1, p, table, &after);
			if (text) {
				char expect[600];
				snprintf(expect, sizeof(expect), "%s:%ld", path, line);
				if (strcmp(text, expect))
					problem(pb, "%s: link text %s names another place than %s", where,
						text, u);
			}
			/* the symbol: "](url) — `sym`", "](url) | `sym`", "](url) (`sym`)",
			 * or "`sym` at [..](url)" */
			after = close + 1;
			if (end - after > 4 && (!strncmp(after, " — `", strlen(" — `")) ||
						!strncmp(after, " | `", 4) || !strncmp(after, " (`", 3))) {
				const char *tick = memchr(after, '`', (size_t)(end - after));
				symbol = code_span(tick, end, table, &sym_end);
			} else if (open_br && open_br - l.ptr >= 5 && !strncmp(open_br - 4, " at ", 4) &&
				   open_br[-5] == '`') {
				const char *q = open_br - 5, *start;
				while (q > l.ptr && q[-1] == '`')
					q--;
				/* find the opening run of the span that ends at q..open_br-4 */
				start = q - 1;
				while (start > l.ptr && *start != '`')
					start--;
				while (start > l.ptr && start[-1] == '`')
					start--;
				symbol = code_span(start, open_br - 4, table, &sym_end);
			}
			expect_symbol(pb, c, where, path, line, symbol);
			if (open_br == l.ptr)
				check_excerpt(pb, c, where, &lines, i, path, line);
			free(symbol);
			free(text);
			free(path);
			free(u);
			p = close;
		}
	}
	ot_buf_free(&prefix);
	free(code);
	ot_vec_free(&lines);
}

/* Is overview line l the condition a device path starts under
 * ("│     when      input.dim() == 4 ...")? */
static bool conditional_head(span l)
{
	const char *p = l.ptr, *e = l.ptr + l.len;
	while (p < e && (*p == ' ' || ((size_t)(e - p) >= strlen("│") && !memcmp(p, "│", strlen("│")))))
		p += *p == ' ' ? 1 : strlen("│");
	return (size_t)(e - p) > 5 && !memcmp(p, "when ", 5);
}

/* The step of trace.json's `steps` at file:line on `dev`'s main path. */
static const ot_value *main_step_at(const ot_value *steps, const char *file, long line, const char *dev)
{
	for (size_t i = 0; i < ot_v_len(steps); i++) {
		const ot_value *st = ot_v_at(steps, i), *on = ot_v_get(st, "main");
		if (!step_found(st) || strcmp(op_str(st, "file"), file) || step_line(st) != line)
			continue;
		for (size_t k = 0; k < ot_v_len(on); k++)
			if (!strcmp(ot_v_cstr(ot_v_at(on, k)), dev))
				return st;
	}
	return NULL;
}

/* A device path of the overview that starts with a step only some default
 * calls run says under which condition: the line after its fork is
 * "when  CONDITION" (trace.json's `when` of that step). */
static void check_conditional_heads(ot_buf *pb, const char *name, const ot_value *steps, span ov)
{
	spanlist ls = {0};
	split_lines(&ls, ov.ptr, ov.len);
	for (size_t i = 0; i < ls.len; i++) {
		span l = ls.items[i];
		const char *fork = memstr(l.ptr, l.len, "── "), *open = NULL, *colon = NULL;
		const char *dev = fork && memstr(l.ptr, l.len, "CPU path: ") ? "cpu"
				  : fork && memstr(l.ptr, l.len, "CUDA path: ") ? "cuda" : NULL;
		const ot_value *st, *sure;
		const char *when;
		bool is_sure = false;
		char *file;
		if (!dev)
			continue;
		for (const char *q = l.ptr; q + 3 <= l.ptr + l.len; q++)
			if (!memcmp(q, "  (", 3))
				open = q;
		for (const char *q = open ? open + 3 : l.ptr + l.len; q < l.ptr + l.len && *q != ')'; q++)
			if (*q == ':')
				colon = q;
		if (!colon)
			continue;
		file = ot_strndup(open + 3, (size_t)(colon - open - 3));
		st = main_step_at(steps, file, strtol(colon + 1, NULL, 10), dev);
		free(file);
		/* the device's own condition where the CPU and CUDA reach the
		 * step under different ones (trace.json's when_on) */
		if (!st)
			continue;
		when = ot_v_get(st, "when_on") ? ot_v_cstr(ot_v_get(ot_v_get(st, "when_on"), dev))
					       : ot_v_cstr(ot_v_get(st, "when"));
		if (!when)
			continue;
		sure = ot_v_get(st, "sure");
		for (size_t k = 0; k < ot_v_len(sure); k++)
			is_sure |= !strcmp(ot_v_cstr(ot_v_at(sure, k)), dev);
		if (!is_sure && (i + 1 >= ls.len || !conditional_head(ls.items[i + 1])))
			problem(pb, "%s: the overview's %s path starts with a step only some calls run "
				    "(when %s) but does not say so: %.*s",
				name, dev, when, (int)l.len, l.ptr);
	}
	ot_vec_free(&ls);
}

/*
 * The ASCII overview of a page: every "SYMBOL  (path:line)" entry holds
 * its symbol at that line; layer entries read "LABEL  SYMBOL  (...)" with
 * the label set off by spaces ("▼ LABEL" below the first), forks "├── / └── DEVICE path: SYMBOL  (...)",
 * a device path's further layers "│     LABEL  SYMBOL  (...)".
 */
static void check_overview_sources(ot_buf *pb, source_cache *c, const char *name,
				   const char *md, size_t len)
{
	const char *start = memstr(md, len, "## Overview\n\n```text\n"), *end;
	spanlist lines = {0};
	if (!start)
		return;
	start += strlen("## Overview\n\n```text\n");
	end = memstr(start, len - (size_t)(start - md), "\n```\n");
	if (!end)
		return;
	split_lines(&lines, start, (size_t)(end - start));
	for (size_t i = 0; i < lines.len; i++) {
		span l = lines.items[i];
		const char *open = NULL, *colon, *sym, *sym_end;
		char where[300], *path, *symbol;
		long line;
		for (const char *q = l.ptr; q + 3 <= l.ptr + l.len; q++)
			if (!memcmp(q, "  (", 3))
				open = q;
		snprintf(where, sizeof(where), "%s: overview line %zu", name, i + 1);
		if (!open || conditional_head(l))
			continue; /* a device path's "when  CONDITION" line */
		/* "(path:line)" */
		colon = NULL;
		for (const char *q = open + 3; q < l.ptr + l.len && *q != ')'; q++)
			if (*q == ':')
				colon = q;
		if (!colon) {
			problem(pb, "%s: no path:line in %.*s", where, (int)l.len, l.ptr);
			continue;
		}
		path = ot_strndup(open + 3, (size_t)(colon - open - 3));
		line = strtol(colon + 1, NULL, 10);
		sym_end = open;
		if (l.len && l.ptr[0] != ' ') {
			/* a layer: label (marked "▼ " below the first), spaces, symbol */
			sym = l.ptr;
			if ((size_t)(sym_end - sym) > strlen("▼ ") && !memcmp(sym, "▼ ", strlen("▼ ")))
				sym += strlen("▼ ");
			while (sym < sym_end && *sym != ' ')
				sym++;
			while (sym < sym_end && *sym == ' ')
				sym++;
		} else if (memstr(l.ptr, l.len, "── ")) {
			/* a fork: "├── CPU path: SYMBOL  (...)" */
			const char *fork = memstr(l.ptr, l.len, "── ");
			sym = memstr(fork, (size_t)(sym_end - fork), ": ");
			if (sym)
				sym += 2;
		} else {
			/* a layer of a device's path: "│     LABEL     SYMBOL  (...)" */
			sym = l.ptr;
			while (sym < sym_end && (*sym == ' ' || !memcmp(sym, "│", strlen("│"))))
				sym += *sym == ' ' ? 1 : strlen("│");
			while (sym < sym_end && *sym != ' ')
				sym++;
			while (sym < sym_end && *sym == ' ')
				sym++;
		}
		if (!sym || sym >= sym_end) {
			problem(pb, "%s: no symbol set off from the label in \"%.*s\"", where, (int)l.len,
				l.ptr);
			free(path);
			continue;
		}
		symbol = ot_strndup(sym, (size_t)(sym_end - sym));
		expect_symbol(pb, c, where, path, line, symbol);
		free(symbol);
		free(path);
	}
	ot_vec_free(&lines);
}

static char *xml_unescape(const char *s, size_t n)
{
	ot_buf b = OT_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '&') {
			const char *semi = memchr(s + i, ';', n - i);
			if (semi) {
				size_t k = (size_t)(semi - s - i);
				if (s[i + 1] == '#') {
					long cp = s[i + 2] == 'x' ? strtol(s + i + 3, NULL, 16)
								  : strtol(s + i + 2, NULL, 10);
					if (cp < 0x80) {
						ot_buf_putc(&b, (char)cp);
					} else if (cp < 0x800) {
						ot_buf_putc(&b, (char)(0xC0 | cp >> 6));
						ot_buf_putc(&b, (char)(0x80 | (cp & 0x3F)));
					} else if (cp < 0x10000) {
						ot_buf_putc(&b, (char)(0xE0 | cp >> 12));
						ot_buf_putc(&b, (char)(0x80 | (cp >> 6 & 0x3F)));
						ot_buf_putc(&b, (char)(0x80 | (cp & 0x3F)));
					} else {
						ot_buf_putc(&b, (char)(0xF0 | cp >> 18));
						ot_buf_putc(&b, (char)(0x80 | (cp >> 12 & 0x3F)));
						ot_buf_putc(&b, (char)(0x80 | (cp >> 6 & 0x3F)));
						ot_buf_putc(&b, (char)(0x80 | (cp & 0x3F)));
					}
				} else if (k == 3 && !strncmp(s + i, "&lt;", 4)) {
					ot_buf_putc(&b, '<');
				} else if (k == 3 && !strncmp(s + i, "&gt;", 4)) {
					ot_buf_putc(&b, '>');
				} else if (k == 4 && !strncmp(s + i, "&amp;", 5)) {
					ot_buf_putc(&b, '&');
				} else if (k == 5 && !strncmp(s + i, "&quot;", 6)) {
					ot_buf_putc(&b, '"');
				} else if (k == 5 && !strncmp(s + i, "&apos;", 6)) {
					ot_buf_putc(&b, '\'');
				}
				i += k;
				continue;
			}
		}
		ot_buf_putc(&b, s[i]);
	}
	return ot_buf_detach(&b);
}

/* Diagram nodes: xlink:href is a source link, xlink:title "layer\nsymbol\nfile:line"
 * (the tooltip keeps the label's lines unwrapped). */
static void check_svg_sources(ot_buf *pb, source_cache *c, const char *name, const char *svg)
{
	const char *p = svg;
	while ((p = strstr(p, "<a xlink:href=\"")) != NULL) {
		const char *url = p + strlen("<a xlink:href=\""), *q = strchr(url, '"');
		const char *title = q ? strstr(q, "xlink:title=\"") : NULL, *tend;
		char *u, *path, *t, *parts[3] = {0}, *save = NULL, where[300];
		long line;
		if (!q)
			break;
		u = xml_unescape(url, (size_t)(q - url));
		snprintf(where, sizeof(where), "%s: node linking %s", name, u);
		if (!parse_source_link(c->s, u, &path, &line)) {
			problem(pb, "%s: malformed source link", where);
			free(u);
			p = q;
			continue;
		}
		if (title && title < strchr(q, '>')) {
			title += strlen("xlink:title=\"");
			tend = strchr(title, '"');
			t = xml_unescape(title, (size_t)(tend - title));
			parts[0] = strtok_r(t, "\n", &save);
			parts[1] = parts[0] ? strtok_r(NULL, "\n", &save) : NULL;
			parts[2] = parts[1] ? strtok_r(NULL, "\n", &save) : NULL;
			if (parts[2]) {
				/* the path below aten/src/ATen/native/ (below aten/src/
				 * for the rest of ATen), else the whole path */
				const char *shown = path;
				char expect[600];
				if (ot_starts_with(path, "aten/src/ATen/native/"))
					shown = path + strlen("aten/src/ATen/native/");
				else if (ot_starts_with(path, "aten/src/"))
					shown = path + strlen("aten/src/");
				snprintf(expect, sizeof(expect), "%s:%ld", shown, line);
				if (strcmp(parts[2], expect))
					problem(pb, "%s: label says %s", where, parts[2]);
			}
			expect_symbol(pb, c, where, path, line, parts[1]);
			free(t);
		} else {
			source_line(pb, c, where, path, line);
		}
		free(path);
		free(u);
		p = q;
	}
}

static void check_sources(ot_buf *pb, const site *s, source_cache *c)
{
	strlist files = {0};
	list_files(&files, s->out);
	for (size_t i = 0; i < files.len; i++) {
		const char *rel = files.items[i];
		size_t len;
		char *text;
		if (ot_starts_with(rel, "html/"))
			continue; /* the same links, checked through their Markdown */
		if (ot_ends_with(rel, ".md")) {
			text = read_rel(s->out, rel, &len);
			check_page_sources(pb, c, rel, text, len);
			check_overview_sources(pb, c, rel, text, len);
			free(text);
		} else if (ot_ends_with(rel, ".svg")) {
			text = read_rel(s->out, rel, &len);
			check_svg_sources(pb, c, rel, text);
			free(text);
		}
	}
	strlist_free(&files);
}

/* ---- 6. page content ------------------------------------------------------------------- */

static const char *html_escape(ot_arena *a, const char *s)
{
	ot_buf b = OT_BUF_INIT;
	const char *r;
	for (; *s; s++) {
		switch (*s) {
		case '<': ot_buf_puts(&b, "&lt;"); break;
		case '>': ot_buf_puts(&b, "&gt;"); break;
		case '&': ot_buf_puts(&b, "&amp;"); break;
		case '"': ot_buf_puts(&b, "&quot;"); break;
		default: ot_buf_putc(&b, *s);
		}
	}
	r = ot_arena_strndup(a, b.ptr, b.size);
	ot_buf_free(&b);
	return r;
}

/* Offset of `needle` at or after `from`, or -1. */
static long find_from(const char *md, size_t len, long from, const char *needle)
{
	const char *p;
	if (from < 0 || (size_t)from > len)
		return -1;
	p = memstr(md + from, len - (size_t)from, needle);
	return p ? (long)(p - md) : -1;
}

/* The required sequence of markers, each after the previous one. */
static long expect_after(ot_buf *pb, const char *name, const char *md, size_t len, long from,
			 const char *needle)
{
	long at = find_from(md, len, from, needle);
	if (at < 0) {
		if (find_from(md, len, 0, needle) >= 0)
			problem(pb, "%s: \"%s\" is out of order", name, needle);
		else
			problem(pb, "%s: no \"%s\"", name, needle);
		return from;
	}
	return at + 1;
}

static long long int_of(const ot_value *v);

/* Is step i below a call of a bookkeeping op (an allocation, a view),
 * whose line the page gives but not what it runs? */
static bool below_bookkeeping(const ot_value *steps, size_t i)
{
	long long k = int_of(ot_v_get(ot_v_at(steps, i), "parent"));
	for (; k >= 0; k = int_of(ot_v_get(ot_v_at(steps, (size_t)k), "parent"))) {
		const ot_value *up = ot_v_at(steps, (size_t)k);
		const char *file = op_str(up, "file");
		if (step_found(up) && ot_symbol_is_bookkeeping(op_str(up, "symbol"), file && ot_ends_with(file, ".yaml")))
			return true;
	}
	return false;
}

/* Common head: front matter, H1, release line, licence note. */
static long check_head(ot_buf *pb, const site *s, const char *name, const char *md, size_t len,
		       const char *title, ot_arena *a)
{
	char *h1 = ot_markdown_title(md, len);
	long at = 0;
	const char *release =
		ot_arena_printf(a, "\nPyTorch **%s** · tag `%s` · commit `%.8s`. ", s->version, s->tag,
				s->commit);
	if (strncmp(md, "---\n", 4))
		problem(pb, "%s: does not start with front matter", name);
	if (!h1 || strcmp(h1, title))
		problem(pb, "%s: H1 is \"%s\", not \"%s\"", name, h1 ? h1 : "", title);
	free(h1);
	at = expect_after(pb, name, md, len, at, "\n# ");
	at = expect_after(pb, name, md, len, at, release);
	{
		/* the licence note ends the release line's paragraph */
		long end = find_from(md, len, at, "\n\n");
		span note = {md + at, end > at ? (size_t)(end - at) : 0};
		if (!memstr(note.ptr, note.len, "licence") || !memstr(note.ptr, note.len, s->tag))
			problem(pb, "%s: the note after the release line is not the licence note of %s",
				name, s->tag);
	}
	return at;
}

static bool has_str(const ot_value *list, const char *s)
{
	for (size_t i = 0; i < ot_v_len(list); i++)
		if (!strcmp(ot_v_cstr(ot_v_at(list, i)), s))
			return true;
	return false;
}

/* Every aten overload of `a` is one of `b`'s: `b` is `a` (F.gelu and
 * nn.GELU, torch.addmm and aten::addmm.out) or is built from it. */
static bool aten_within(const ot_value *a, const ot_value *b)
{
	const ot_value *la = ot_v_get(a, "aten"), *lb = ot_v_get(b, "aten");
	if (!ot_v_len(la))
		return false;
	for (size_t i = 0; i < ot_v_len(la); i++)
		if (!has_str(lb, ot_v_cstr(ot_v_at(la, i))))
			return false;
	return true;
}

/* Distinct backends of found kernel and GPU steps. */
static long long int_of(const ot_value *v)
{
	return v && v->type == OT_V_INT ? v->u.i : -1;
}

/* Does some forward step run on one device's main path only (the
 * overview then forks into a CPU and a CUDA path)? */
static bool devices_part(const ot_value *op)
{
	const ot_value *steps = ot_v_get(op, "steps");
	for (size_t i = 0; i < ot_v_len(steps); i++) {
		const ot_value *st = ot_v_at(steps, i), *main = ot_v_get(st, "main");
		bool forward = true;
		if (!step_found(st) || ot_v_len(main) != 1)
			continue;
		for (long long k = (long long)i; k >= 0 && forward;
		     k = int_of(ot_v_get(ot_v_at(steps, (size_t)k), "parent")))
			forward = strcmp(op_str(ot_v_at(steps, (size_t)k), "layer"), "backward") != 0;
		if (forward)
			return true;
	}
	return false;
}

/* Does the Backward section (from `from`, the Summary, to Other paths or the
 * next section) cut its list of conditional entries ("and N more")? */
static bool backward_capped(const char *md, size_t len, long from)
{
	long start = find_from(md, len, from, "\n## Backward\n"), end;
	if (start < 0)
		return false;
	end = find_from(md, len, start + 1, "\n## ");
	if (end < 0)
		end = (long)len;
	start = find_from(md, len, start, "more (trace.json has every step)");
	return start >= 0 && start < end;
}

/* The markdown text of a table cell of the Summary for `layer`, or NULL. */
static span summary_row(const char *md, size_t len, const char *layer)
{
	char key[64];
	const char *p;
	span r = {NULL, 0};
	const char *start = memstr(md, len, "\n## Summary\n");
	if (!start)
		return r;
	/* "| kernel | ..." or, where the devices part, "| kernel (CPU) | ..." */
	snprintf(key, sizeof(key), "\n| %s | ", layer);
	p = memstr(start, len - (size_t)(start - md), key);
	if (!p) {
		snprintf(key, sizeof(key), "\n| %s (", layer);
		p = memstr(start, len - (size_t)(start - md), key);
	}
	if (!p)
		return r;
	r.ptr = p + 1;
	r.len = strcspn(r.ptr, "\n");
	return r;
}

/* A library's set-up call (a handle, a stream, a setting, oneDNN's
 * primitive descriptor), as named on a page. */
static bool setup_symbol(const char *sym, size_t n)
{
	static const char *const words[] = {"SetStream", "Handle", "cudnnSet", "cudnnGet", "cublasSet",
					    "::prepare"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (memstr(sym, n, words[i]))
			return true;
	return false;
}

static void check_traced_page(ot_buf *pb, const site *s, const ot_value *op, const char *name,
			      const char *md, size_t len, long at, ot_arena *a)
{
	const ot_value *steps = ot_v_get(op, "steps");
	const char *slug = op_str(op, "slug");
	long layers, summary;
	ot_buf html = OT_BUF_INIT;
	char *svg = tu_path(s->out, ot_arena_printf(a, "ops/%s.svg", slug));

	at = expect_after(pb, name, md, len, at, "\n## Overview\n\n```text\n");
	{
		long body = find_from(md, len, 0, "\n## Overview\n\n```text\n"), end;
		at = body < 0 ? at : body + (long)strlen("\n## Overview\n\n```text\n");
		end = find_from(md, len, at, "\n```\n");
		span ov = {md + at, end > at ? (size_t)(end - at) : 0};
		size_t nlayers = 0;
		spanlist ls = {0};
		split_lines(&ls, ov.ptr, ov.len);
		for (size_t i = 0; i < ls.len; i++)
			nlayers += ls.items[i].len && ls.items[i].ptr[0] != ' ';
		ot_vec_free(&ls);
		if (nlayers > 1 && !memstr(ov.ptr, ov.len, "▼"))
			problem(pb, "%s: the overview joins its %zu layers without ▼", name, nlayers);
		check_conditional_heads(pb, name, steps, ov);
		if (devices_part(op) && (!memstr(ov.ptr, ov.len, "├── ") || !memstr(ov.ptr, ov.len, "└── ")))
			problem(pb, "%s: the CPU and CUDA main paths part, but the overview has no "
				    "├── / └── fork",
				name);
		at = end > at ? end : at;
	}
	if (!is_file(svg))
		problem(pb, "%s: a traced op without ops/%s.svg", name, slug);
	at = expect_after(pb, name, md, len, at,
			  ot_arena_printf(a, "](%s.svg)\n", slug));
	at = layers = expect_after(pb, name, md, len, at, "\n## Layer by layer\n\n### ");
	at = summary = expect_after(pb, name, md, len, at,
				    "\n## Summary\n\n| Layer | File | Key function |\n|");
	at = expect_after(pb, name, md, len, at, "\n## Backward\n");
	at = expect_after(pb, name, md, len, at, "\n## Performance notes\n\n- ");
	{
		/* a count of GPU calls that names a TensorIterator launcher says
		 * when it is not one launch */
		long note = find_from(md, len, at, "GPU call"), end = find_from(md, len, at, "\n## ");
		long launcher = find_from(md, len, at, "gpu_kernel`");
		if (end < 0)
			end = (long)len;
		if (note >= 0 && note < end && launcher >= 0 && launcher < end &&
		    find_from(md, len, note, "once per piece") < 0)
			problem(pb, "%s: its GPU calls name a TensorIterator launcher but not how it splits "
				    "a tensor 32-bit indexing cannot address",
				name);
	}
	at = expect_after(pb, name, md, len, at, "\n## Related ops\n\n");
	{
		long end = find_from(md, len, at, "\n## "), item = find_from(md, len, at, "\n- ");
		if (end < 0)
			end = (long)len;
		if ((item < 0 || item > end || find_from(md, len, item, ".md)") < 0) &&
		    (find_from(md, len, at, "No other op") < 0 || find_from(md, len, at, "No other op") > end))
			problem(pb, "%s: Related ops lists nothing and does not say so", name);
	}
	/* entries of the list for the same aten op, or one built from the
	 * other's aten ops, are related */
	for (size_t j = 0; j < ot_v_len(s->ops); j++) {
		const ot_value *other = ot_v_at(s->ops, j);
		if (other == op || !strcmp(op_str(other, "status"), "not-found") ||
		    (!aten_within(op, other) && !aten_within(other, op)))
			continue;
		if (find_from(md, len, at, ot_arena_printf(a, "](%s.md)", op_str(other, "slug"))) < 0)
			problem(pb, "%s: %s runs the same aten ops (%s) but is not under Related ops",
				name, op_str(other, "input"),
				ot_v_cstr(ot_v_at(ot_v_get(aten_within(op, other) ? op : other, "aten"), 0)));
	}

	/* the main paths of trace.json on the page: the steps every default
	 * call takes as links in Layer by layer, the derivatives as links in
	 * Backward, missing ones as "not found:" lines; the Summary has a row
	 * for each layer of the forward main path */
	ck_assert(ot_markdown_to_html(&html, md, len, false) == 0);
	for (size_t i = 0; i < ot_v_len(steps); i++) {
		const ot_value *st = ot_v_at(steps, i);
		const char *layer = op_str(st, "layer");
		bool forward = true, main = ot_v_len(ot_v_get(st, "main")) > 0;
		for (long long k = (long long)i; k >= 0 && forward;
		     k = int_of(ot_v_get(ot_v_at(steps, (size_t)k), "parent")))
			forward = strcmp(op_str(ot_v_at(steps, (size_t)k), "layer"), "backward") != 0;
		if (!main)
			continue;
		if (below_bookkeeping(steps, i))
			continue; /* what an allocation or a view runs: trace.json only */
		if (step_found(st)) {
			const char *file = op_str(st, "file");
			long line = (long)step_line(st);
			const char *link = ot_arena_printf(a, "[`%s:%ld`](%s/%s/%s#L%ld)", file, line,
							   s->link_base, s->tag, file, line);
			long where = find_from(md, len, layers, link);
			bool derivative = !strcmp(layer, "backward") && !strcmp(file, "tools/autograd/derivatives.yaml");
			if (forward && ot_v_len(ot_v_get(st, "sure")) && (where < 0 || where > summary))
				problem(pb, "%s: step %zu (%s %s) is not linked in Layer by layer as %s",
					name, i, layer, op_str(st, "symbol"), link);
			/* an entry that carries the gradient only under a condition may
			 * be in the Backward section's "and N more" */
			if (derivative && where < summary &&
			    (ot_v_len(ot_v_get(st, "sure")) || !backward_capped(md, len, summary)))
				problem(pb, "%s: derivative step %zu (%s) is not linked in Backward as %s", name,
					i, op_str(st, "symbol"), link);
			if (forward) {
				span row = summary_row(md, len, layer);
				const char *sym = op_str(st, "symbol");
				const ot_value *on = ot_v_get(st, "main");
				if (!row.ptr)
					problem(pb, "%s: no Summary row for layer %s", name, layer);
				/* where one device's path has a call that does work in a
				 * layer, its row names none of the set-up calls */
				if (row.ptr && ot_v_len(on) == 1 && !setup_symbol(sym, strlen(sym))) {
					const char *dev = !strcmp(ot_v_cstr(ot_v_at(on, 0)), "cpu") ? "CPU" : "CUDA";
					span own = summary_row(md, len, ot_arena_printf(a, "%s (%s)", layer, dev));
					if (own.ptr && setup_symbol(own.ptr, own.len))
						problem(pb, "%s: the Summary row of %s (%s) names a set-up call, though %s "
							    "does the work: %.*s",
							name, layer, dev, sym, (int)own.len, own.ptr);
				}
			}
		} else if (forward) {
			const char *note = op_str(st, "note");
			const char *shown = ot_arena_printf(a, "<strong>%s</strong>", html_escape(a, note));
			if (!ot_starts_with(note, "not found: "))
				problem(pb, "%s: step %zu has no file but its note is not \"not found: "
					    "...\": %s",
					name, i, note);
			if (!strstr(html.ptr, shown))
				problem(pb, "%s: the not-found step %zu is not shown as a bold line: %s",
					name, i, note);
		}
	}
	ot_buf_free(&html);
	free(svg);
}

static void check_op_page(ot_buf *pb, const site *s, const ot_value *op, size_t typical,
			  ot_arena *a)
{
	const char *status = op_str(op, "status"), *page = op_str(op, "page");
	const char *title = *op_str(op, "name") ? op_str(op, "name") : op_str(op, "input");
	char *path = tu_path(s->out, page), *md;
	size_t len;
	long at;
	ot_buf html = OT_BUF_INIT;

	if (!is_file(path)) {
		problem(pb, "%s: no page %s", op_str(op, "input"), page);
		free(path);
		return;
	}
	md = tu_read_file(path, &len);
	ck_assert(ot_markdown_to_html(&html, md, len, false) == 0);
	at = check_head(pb, s, page, md, len, title, a);
	if (!strcmp(status, "traced")) {
		check_traced_page(pb, s, op, page, md, len, at, a);
	} else if (!strcmp(status, "well-known")) {
		const ot_value *steps = ot_v_get(op, "steps");
		if (memstr(md, len, "## Layer by layer"))
			problem(pb, "%s: a well-known op with a Layer by layer section", page);
		if (!strstr(html.ptr, "reference"))
			problem(pb, "%s: does not say it is answered from the reference", page);
		if (typical && len >= typical)
			problem(pb, "%s: a well-known page of %zu bytes, not shorter than the median "
				    "traced page (%zu)",
				page, len, typical);
		for (size_t i = 0; i < ot_v_len(steps); i++) {
			const ot_value *st = ot_v_at(steps, i);
			if (!strcmp(op_str(st, "layer"), "yaml") && step_found(st)) {
				const char *link = ot_arena_printf(a, "](%s/%s/%s#L%lld)", s->link_base,
								   s->tag, op_str(st, "file"),
								   step_line(st));
				if (!memstr(md, len, link))
					problem(pb, "%s: the registry entry %s:%lld is not linked", page,
						op_str(st, "file"), step_line(st));
				break;
			}
		}
	} else if (!strcmp(status, "not-found")) {
		const ot_value *sug = ot_v_get(op, "suggestions");
		if (!strstr(html.ptr, "not found"))
			problem(pb, "%s: a not-found op whose page does not say \"not found\"", page);
		if (ot_v_len(sug) && !strstr(html.ptr, "Did you mean"))
			problem(pb, "%s: no \"Did you mean\" though trace.json has suggestions", page);
		for (size_t i = 0; i < ot_v_len(sug); i++)
			if (!strstr(html.ptr, ot_arena_printf(a, "<code>%s</code>",
							      html_escape(a, ot_v_cstr(ot_v_at(sug, i))))))
				problem(pb, "%s: suggestion %s is not on the page", page,
					ot_v_cstr(ot_v_at(sug, i)));
	}
	ot_buf_free(&html);
	free(md);
	free(path);
}

static const char *const strategy_titles[][2] = {
	{"module", "Modules (torch.nn)"},       {"functional", "Functional (torch.nn.functional)"},
	{"method", "Tensor methods"},           {"torch", "torch namespace"},
	{"aten", "aten ops"},
};

/* The index: groups by strategy in order, one row per op with its status,
 * backends, GPU libraries and link; not-found ops with "did you mean". */
static void check_index(ot_buf *pb, const site *s, ot_arena *a)
{
	size_t len;
	char *md = read_rel(s->out, "index.md", &len);
	long last_group = 0;

	check_head(pb, s, "index.md", md, len, ot_arena_printf(a, "PyTorch %s operators", s->version), a);
	for (size_t g = 0; g < OT_ARRAY_LEN(strategy_titles); g++) {
		const char *head = ot_arena_printf(a, "\n## %s\n", strategy_titles[g][1]);
		long at = find_from(md, len, 0, head), next, row_at;
		bool any = false;
		for (size_t i = 0; i < ot_v_len(s->ops); i++)
			any = any || !strcmp(op_str(ot_v_at(s->ops, i), "strategy"), strategy_titles[g][0]);
		if (!any)
			continue;
		if (at < 0) {
			problem(pb, "index.md: no group \"%s\"", strategy_titles[g][1]);
			continue;
		}
		if (at < last_group)
			problem(pb, "index.md: group \"%s\" is out of order", strategy_titles[g][1]);
		last_group = at;
		next = find_from(md, len, at + 1, "\n## ");
		if (next < 0)
			next = (long)len;
		row_at = at;
		for (size_t i = 0; i < ot_v_len(s->ops); i++) {
			const ot_value *op = ot_v_at(s->ops, i);
			const char *row_start, *cells[5];
			long r;
			span row;
			if (strcmp(op_str(op, "strategy"), strategy_titles[g][0]))
				continue;
			r = find_from(md, len, at, ot_arena_printf(a, "](%s) | ", op_str(op, "page")));
			if (r < 0 || r > next) {
				problem(pb, "index.md: %s is not linked in group \"%s\"", op_str(op, "input"),
					strategy_titles[g][1]);
				continue;
			}
			if (r < row_at)
				problem(pb, "index.md: %s is out of order", op_str(op, "input"));
			row_at = r;
			for (row_start = md + r; row_start > md && row_start[-1] != '\n'; row_start--)
				;
			row.ptr = row_start;
			row.len = strcspn(row_start, "\n");
			{
				/* | link | status | backends | gpu | missing | */
				char *copy = ot_strndup(row.ptr, row.len), *save = NULL, *c;
				size_t n = 0;
				for (c = strtok_r(copy, "|", &save); c && n < 5; c = strtok_r(NULL, "|", &save))
					cells[n++] = ot_arena_strdup(a, c);
				free(copy);
				if (n < 5) {
					problem(pb, "index.md: row of %s has %zu cells", op_str(op, "input"), n);
					continue;
				}
			}
			if (!strstr(cells[1], op_str(op, "status")))
				problem(pb, "index.md: %s shows status %s, trace.json says %s",
					op_str(op, "input"), cells[1], op_str(op, "status"));
			{
				const ot_value *bk = ot_v_get(op, "backends");
				const ot_value *lists[2] = {ot_v_get(bk, "keys"), ot_v_get(bk, "gpu")};
				for (int k = 0; k < 2; k++) {
					const char *cell = cells[2 + k];
					bool more = strstr(cell, " more") != NULL;
					size_t shown = 0, listed = 0;
					for (size_t j = 0; j < ot_v_len(lists[k]); j++) {
						const char *name = ot_v_cstr(ot_v_at(lists[k], j));
						const char *key = ot_arena_printf(a, "`%s`", name);
						/* not shown: a stub's CPU capability variants, and
						 * PyTorch's own kernels (not a library) */
						if (k ? !strcmp(name, "custom CUDA kernel") ||
								!strcmp(name, "TensorIterator CUDA kernel")
						      : ot_starts_with(name, "CPU "))
							continue;
						listed++;
						if (strstr(cell, key))
							shown++;
						else if (!more)
							problem(pb, "index.md: %s does not list %s", op_str(op, "input"), key);
					}
					if (k && !listed && ot_v_len(lists[k]) && !strstr(cell, "PyTorch kernels"))
						problem(pb, "index.md: %s: its own CUDA kernels do the GPU work, the cell "
							    "says %s", op_str(op, "input"), cell);
					if (!shown && listed)
						problem(pb, "index.md: %s lists none of its %s", op_str(op, "input"),
							k ? "GPU libraries" : "backends");
				}
			}
		}
	}
	/* not-found ops, with their suggestions */
	for (size_t i = 0; i < ot_v_len(s->ops); i++) {
		const ot_value *op = ot_v_at(s->ops, i), *sug = ot_v_get(op, "suggestions");
		long nf = find_from(md, len, 0, "\n## Not found\n"), item;
		if (strcmp(op_str(op, "status"), "not-found"))
			continue;
		item = find_from(md, len, nf, ot_arena_printf(a, "\n- `%s`", op_str(op, "input")));
		if (nf < 0 || item < 0) {
			problem(pb, "index.md: not-found op %s is not listed under Not found",
				op_str(op, "input"));
			continue;
		}
		if (ot_v_len(sug)) {
			span l = {md + item + 1, strcspn(md + item + 1, "\n")};
			if (!memstr(l.ptr, l.len, "did you mean"))
				problem(pb, "index.md: %s has suggestions but no \"did you mean\"",
					op_str(op, "input"));
			for (size_t k = 0; k < ot_v_len(sug); k++)
				if (!memstr(l.ptr, l.len, ot_arena_printf(a, "`%s`", ot_v_cstr(ot_v_at(sug, k)))))
					problem(pb, "index.md: %s does not suggest %s", op_str(op, "input"),
						ot_v_cstr(ot_v_at(sug, k)));
		}
	}
	free(md);
}

/* ---- 5. the HTML bundle --------------------------------------------------------------- */

static void check_bundle(ot_buf *pb, const site *s)
{
	strlist files = {0};
	list_files(&files, s->out);
	for (size_t i = 0; i < files.len; i++) {
		const char *rel = files.items[i];
		if (ot_ends_with(rel, ".md") && !ot_starts_with(rel, "html/")) {
			char *h = ot_strndup(rel, strlen(rel) - 3), *want;
			ot_buf b = OT_BUF_INIT;
			ot_buf_printf(&b, "html/%s.html", h);
			want = ot_buf_detach(&b);
			if (!strlist_has(&files, want))
				problem(pb, "%s has no page %s in the bundle", rel, want);
			free(want);
			free(h);
		}
		if (ot_starts_with(rel, "html/") && ot_ends_with(rel, ".svg")) {
			size_t na, nb;
			char *a = read_rel(s->out, rel, &na), *b;
			if (!strlist_has(&files, rel + 5)) {
				problem(pb, "%s has no %s beside the Markdown", rel, rel + 5);
			} else {
				b = read_rel(s->out, rel + 5, &nb);
				if (na != nb || memcmp(a, b, na))
					problem(pb, "%s differs from %s", rel, rel + 5);
				free(b);
			}
			free(a);
		}
		if (ot_starts_with(rel, "html/") && ot_ends_with(rel, ".html")) {
			size_t len, depth = 0;
			char *text = read_rel(s->out, rel, &len), *nav, *css;
			if (utf8_invalid_at(text, len) >= 0)
				problem(pb, "%s: invalid UTF-8 at byte %ld", rel, utf8_invalid_at(text, len));
			strlist links = {0};
			ot_buf root = OT_BUF_INIT;
			for (const char *p = rel + 5; *p; p++)
				depth += *p == '/';
			for (size_t d = 0; d < depth; d++)
				ot_buf_puts(&root, "../");
			nav = ot_arena_printf(s->arena, "<a href=\"%sindex.html\">All ops</a>", root.ptr);
			css = ot_arena_printf(s->arena, "<link rel=\"stylesheet\" href=\"%sstyle.css\">",
					      root.ptr);
			if (!strstr(text, nav))
				problem(pb, "%s: no nav link back to the index (%s)", rel, nav);
			if (!strstr(text, css))
				problem(pb, "%s: no stylesheet link %s", rel, css);
			if (!strstr(text, "<meta charset=\"utf-8\">"))
				problem(pb, "%s: no charset", rel);
			html_links(&links, text);
			for (size_t k = 0; k < links.len; k++) {
				const char *u = links.items[k];
				if (!strncmp(u, "file:", 5) || !strncmp(u, "http:", 5))
					problem(pb, "%s: %s link %s", rel, "non-https absolute", u);
				if (ot_ends_with(u, ".svg") && strchr(u, '/'))
					problem(pb, "%s: diagram %s is not beside the page", rel, u);
			}
			strlist_free(&links);
			ot_buf_free(&root);
			free(text);
		}
	}
	if (!strlist_has(&files, "html/style.css") || !strlist_has(&files, "html/index.html"))
		problem(pb, "the bundle lacks html/index.html or html/style.css");
	strlist_free(&files);
}

/* ---- the tests ------------------------------------------------------------------------- */

/* 1. MkDocs builds the folder strictly and shows the diagram and tables. */
static void test_mkdocs(const site *s)
{
	/* absolute paths: MkDocs resolves relative ones against the config file */
	char *rel_dir = tu_tmpdir("mkdocs"), *dir = realpath(rel_dir, NULL);
	char *yml = tu_path(dir, "mkdocs.yml"), *out = tu_path(dir, "site");
	char *tmpl = tu_read_file("tests/site/mkdocs.yml.in", NULL), *abs = realpath(s->out, NULL);
	const char *mark = strstr(tmpl, "@DOCS_DIR@");
	/* not --quiet: MkDocs 1.4.2 then hides its warnings (strict mode still
	 * fails on them, but silently); its INFO lines name no problem */
	const char *argv[] = {"mkdocs", "build", "--strict", "-f", yml, "-d", out, NULL};
	ot_buf conf = OT_BUF_INIT, err = OT_BUF_INIT;
	const ot_value *pick = NULL;
	int rc;

	site_ready(s);
	ck_assert(mark && abs);
	ot_buf_put(&conf, tmpl, (size_t)(mark - tmpl));
	ot_buf_puts(&conf, abs);
	ot_buf_puts(&conf, mark + strlen("@DOCS_DIR@"));
	tu_write_file(yml, conf.ptr, conf.size);
	rc = tu_run(argv, NULL, &err);
	ck_assert_msg(rc == 0, "mkdocs build --strict exited %d:\n%s", rc, err.ptr);
	ck_assert_msg(!strstr(err.ptr, "WARNING") && !strstr(err.ptr, "ERROR"),
		      "mkdocs warned:\n%s", err.ptr);

	/* a traced op with a diagram: its built page shows the image and tables */
	for (size_t i = 0; i < ot_v_len(s->ops) && !pick; i++)
		if (!strcmp(op_str(ot_v_at(s->ops, i), "status"), "traced"))
			pick = ot_v_at(s->ops, i);
	ck_assert(pick);
	{
		ot_buf rel = OT_BUF_INIT, img = OT_BUF_INIT;
		char *html, *svg;
		ot_buf_printf(&rel, "ops/%s.html", op_str(pick, "slug"));
		ot_buf_printf(&img, "src=\"%s.svg\"", op_str(pick, "slug"));
		html = read_rel(out, rel.ptr, NULL);
		ck_assert_msg(strstr(html, "<img") && strstr(html, img.ptr),
			      "%s: the built page does not show the diagram %s", rel.ptr, img.ptr);
		ck_assert_msg(strstr(html, "<table>"), "%s: the built page has no table", rel.ptr);
		ck_assert_msg(strstr(html, "<th>Key function</th>"),
			      "%s: the Summary table is not a table in MkDocs", rel.ptr);
		svg = tu_path(out, ot_arena_printf(s->arena, "ops/%s.svg", op_str(pick, "slug")));
		ck_assert_msg(is_file(svg), "MkDocs did not copy %s", svg);
		free(svg);
		free(html);
		html = read_rel(out, "index.html", NULL);
		ck_assert_msg(strstr(html, "<table>"), "index.html: no table in MkDocs");
		free(html);
		ot_buf_free(&rel);
		ot_buf_free(&img);
	}
	ot_buf_free(&conf);
	ot_buf_free(&err);
	free(abs);
	free(tmpl);
	free(out);
	free(yml);
	free(dir);
	free(rel_dir);
}

/*
 * A site another generator built from the output folder: every page of
 * the folder became a page of the site (ops/x.md -> ops/x.html, index.md
 * -> index.html), no link is left pointing at a .md file, and every
 * relative link and image of those pages (a folder standing for its
 * index.html) names a file of the built site.
 */
static void check_built_site(ot_buf *pb, const site *s, const char *tool, const char *built)
{
	strlist files = {0}, pages = {0};
	size_t op_links = 0;
	list_files(&files, s->out);
	for (size_t i = 0; i < files.len; i++) {
		const char *rel = files.items[i];
		ot_buf html = OT_BUF_INIT;
		if (!ot_ends_with(rel, ".md") || ot_starts_with(rel, "html/"))
			continue;
		ot_buf_put(&html, rel, strlen(rel) - 3);
		ot_buf_puts(&html, ".html");
		ot_vec_push(&pages, ot_buf_detach(&html));
	}
	for (size_t i = 0; i < pages.len; i++) {
		char *full = tu_path(built, pages.items[i]), *text;
		strlist links = {0};
		if (!is_file(full)) {
			problem(pb, "%s: no page %s for %.*s.md", tool, pages.items[i],
				(int)(strlen(pages.items[i]) - 5), pages.items[i]);
			free(full);
			continue;
		}
		text = tu_read_file(full, NULL);
		html_links(&links, text);
		for (size_t k = 0; k < links.len; k++) {
			const char *u = links.items[k];
			char *target, *resolved, *path;
			if (has_scheme(u) || u[0] == '#' || !u[0])
				continue;
			target = ot_strndup(u, strcspn(u, "#?"));
			if (ot_ends_with(target, ".md"))
				problem(pb, "%s: %s: a link to a .md file is left: %s", tool, pages.items[i], u);
			resolved = target[0] == '/' ? ot_strdup(target + 1) : resolve_rel(pages.items[i], target);
			path = resolved ? tu_path(built, resolved) : NULL;
			if (path && !is_file(path)) {
				char *index = tu_path(path, "index.html");
				if (!is_file(index))
					problem(pb, "%s: %s: link %s: no file %s in the built site", tool,
						pages.items[i], u, resolved);
				free(index);
			} else if (!path) {
				problem(pb, "%s: %s: link %s leaves the built site", tool, pages.items[i], u);
			}
			if (!strcmp(pages.items[i], "index.html") && resolved &&
			    ot_starts_with(resolved, "ops/") && ot_ends_with(resolved, ".html"))
				op_links++;
			free(path);
			free(resolved);
			free(target);
		}
		strlist_free(&links);
		free(text);
		free(full);
	}
	/* every page but index.html and kernels.html is an op's */
	if (op_links < pages.len - 2)
		problem(pb, "%s: index.html links %zu op pages, the folder has %zu", tool, op_links,
			pages.len - 2);
	strlist_free(&files);
	strlist_free(&pages);
}

/* 1b. Sphinx with MyST-Parser builds the folder with warnings as errors. */
static void test_sphinx(const site *s)
{
	char *dir = tu_tmpdir("sphinx"), *built = tu_path(dir, "site"), *doctrees = tu_path(dir, "doctrees");
	const char *argv[] = {"sphinx-build", "-W", "--keep-going", "-q", "-b", "html", "-c",
			      "tests/site/sphinx", "-d", doctrees, s->out, built, NULL};
	ot_buf err = OT_BUF_INIT, pb = OT_BUF_INIT;
	int rc;
	site_ready(s);
	rc = tu_run(argv, NULL, &err);
	ck_assert_msg(rc == 0, "sphinx-build -W exited %d:\n%s", rc, err.ptr);
	ck_assert_msg(!strstr(err.ptr, "WARNING") && !strstr(err.ptr, "ERROR"), "Sphinx warned:\n%s",
		      err.ptr);
	check_built_site(&pb, s, "Sphinx", built);
	assert_clean(&pb, "the Sphinx site");
	ot_buf_free(&err);
	free(doctrees);
	free(built);
	free(dir);
}

/* 1c. Hugo builds the folder, mounted as its content, with warnings as
 * errors (tests/site/hugo.toml.in says what such a site needs). */
static void test_hugo(const site *s)
{
	char *rel_dir = tu_tmpdir("hugo"), *dir = realpath(rel_dir, NULL), *abs = realpath(s->out, NULL);
	char *layouts = realpath("tests/site/hugo/layouts", NULL), *conf_path, *built;
	char *tmpl = tu_read_file("tests/site/hugo.toml.in", NULL);
	ot_buf conf = OT_BUF_INIT, out = OT_BUF_INIT, err = OT_BUF_INIT, pb = OT_BUF_INIT;
	int rc;

	site_ready(s);
	ck_assert(dir && abs && layouts);
	conf_path = tu_path(dir, "hugo.toml");
	built = tu_path(dir, "public");
	for (const char *p = tmpl; *p; p++) {
		if (ot_starts_with(p, "@DOCS_DIR@")) {
			ot_buf_puts(&conf, abs);
			p += strlen("@DOCS_DIR@") - 1;
		} else if (ot_starts_with(p, "@LAYOUTS_DIR@")) {
			ot_buf_puts(&conf, layouts);
			p += strlen("@LAYOUTS_DIR@") - 1;
		} else {
			ot_buf_putc(&conf, *p);
		}
	}
	tu_write_file(conf_path, conf.ptr, conf.size);
	{
		const char *argv[] = {"hugo", "--panicOnWarning", "--source", dir, "--destination", built,
				      NULL};
		rc = tu_run(argv, &out, &err);
	}
	ck_assert_msg(rc == 0, "hugo --panicOnWarning exited %d:\n%s%s", rc, out.ptr, err.ptr);
	ck_assert_msg(!strstr(out.ptr, "WARN") && !strstr(err.ptr, "WARN") && !strstr(err.ptr, "ERROR"),
		      "Hugo warned:\n%s%s", out.ptr, err.ptr);
	check_built_site(&pb, s, "Hugo", built);
	assert_clean(&pb, "the Hugo site");
	ot_buf_free(&conf);
	ot_buf_free(&out);
	ot_buf_free(&err);
	free(built);
	free(conf_path);
	free(tmpl);
	free(layouts);
	free(abs);
	free(dir);
	free(rel_dir);
}

/* 2. Every link and image resolves. */
static void test_links(const site *s)
{
	ot_buf pb = OT_BUF_INIT;
	site_ready(s);
	check_links(&pb, s, s->out);
	assert_clean(&pb, "broken links");
}

/* 3. The Markdown is what GitHub and MkDocs render alike. */
static void test_github(const site *s)
{
	ot_buf pb = OT_BUF_INIT;
	strlist files = {0};
	size_t pages = 0;
	site_ready(s);
	list_files(&files, s->out);
	for (size_t i = 0; i < files.len; i++) {
		size_t len;
		char *md;
		if (!ot_ends_with(files.items[i], ".md"))
			continue;
		md = read_rel(s->out, files.items[i], &len);
		check_markdown_page(&pb, files.items[i], md, len);
		free(md);
		pages++;
	}
	ck_assert_uint_eq(pages, ot_v_len(s->ops) + 2); /* and index.md, kernels.md */
	strlist_free(&files);
	assert_clean(&pb, "Markdown that GitHub or MkDocs would not show as meant");
}

/* 4a. Same bytes for -j1 and -j4, and for two runs in a row. */
static void test_deterministic(const site *s)
{
	char *dir = tu_tmpdir("determinism"), *a = tu_path(dir, "j1"), *b = tu_path(dir, "j4");
	ot_buf pb = OT_BUF_INIT, err = OT_BUF_INIT;
	int rc;
	site_ready(s);
	rc = run_optrace(s, s->list, a, &err, "-j1", NULL);
	ck_assert_msg(rc == s->rc, "-j1 exited %d, not %d: %s", rc, s->rc, err.ptr);
	rc = run_optrace(s, s->list, b, &err, "-j4", NULL);
	ck_assert_msg(rc == s->rc, "-j4 exited %d, not %d: %s", rc, s->rc, err.ptr);
	compare_trees(&pb, a, b);
	compare_trees(&pb, s->out, b);
	assert_clean(&pb, "output differs between runs");
	ot_buf_free(&err);
	free(a);
	free(b);
	free(dir);
}

/* 4b. A second run into the same folder rewrites nothing and says so. */
static void test_rerun_untouched(const site *s)
{
	char *dir = tu_tmpdir("rerun"), *out = tu_path(dir, "out");
	ot_buf before = OT_BUF_INIT, after = OT_BUF_INIT, err = OT_BUF_INIT;
	int rc;
	site_ready(s);
	rc = run_optrace(s, s->list, out, &err, NULL);
	ck_assert_msg(rc == s->rc, "first run exited %d: %s", rc, err.ptr);
	snapshot(&before, out);
	ot_buf_clear(&err);
	rc = run_optrace(s, s->list, out, &err, NULL);
	ck_assert_msg(rc == s->rc, "second run exited %d: %s", rc, err.ptr);
	snapshot(&after, out);
	ck_assert_str_eq(after.ptr, before.ptr);
	ck_assert_msg(strstr(err.ptr, ": 0 files written, "), "the second run wrote files:\n%s",
		      err.ptr);
	ck_assert_msg(strstr(err.ptr, " unchanged, 0 removed"), "the second run removed files:\n%s",
		      err.ptr);
	ot_buf_free(&before);
	ot_buf_free(&after);
	ot_buf_free(&err);
	free(out);
	free(dir);
}

/* The ops list of `s` without the line naming `op`. */
static char *list_without(const site *s, const char *op, const char *dir)
{
	size_t len;
	char *text = tu_read_file(s->list, &len), *path = tu_path(dir, "ops.list"), *line, *save = NULL;
	ot_buf b = OT_BUF_INIT;
	bool dropped = false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strcspn(line, " \t#");
		if (n == strlen(op) && !strncmp(line, op, n) && !dropped) {
			dropped = true;
			continue;
		}
		ot_buf_printf(&b, "%s\n", line);
	}
	ck_assert_msg(dropped, "%s does not list %s", s->list, op);
	tu_write_file(path, b.ptr, b.size);
	ot_buf_free(&b);
	free(text);
	return path;
}

/* 4c. Dropping an op removes exactly its files; files of the user stay. */
static void test_removal(const site *s)
{
	char *dir = tu_tmpdir("removal"), *out = tu_path(dir, "out"), *list;
	static const char *const mine[][2] = {
		{"NOTES.md", "# my notes\n"},
		{"ops/my-op.md", "# not optrace's\n"},
		{"html/extra.css", "body{}\n"},
	};
	const ot_value *op = op_by_input(s, DROPPED_OP);
	strlist before = {0}, after = {0};
	ot_buf pb = OT_BUF_INIT, err = OT_BUF_INIT;
	const char *slug;
	int rc;

	site_ready(s);
	ck_assert_msg(op != NULL, "%s is not in trace.json", DROPPED_OP);
	slug = op_str(op, "slug");
	rc = run_optrace(s, s->list, out, &err, NULL);
	ck_assert_msg(rc == s->rc, "first run exited %d: %s", rc, err.ptr);
	list_files(&before, out);
	for (size_t i = 0; i < OT_ARRAY_LEN(mine); i++) {
		char *p = tu_path(out, mine[i][0]);
		tu_write_file(p, mine[i][1], strlen(mine[i][1]));
		free(p);
	}
	list = list_without(s, DROPPED_OP, dir);
	rc = run_optrace(s, list, out, &err, NULL);
	ck_assert_msg(rc == 0 || rc == 1, "second run exited %d: %s", rc, err.ptr);
	list_files(&after, out);

	for (size_t i = 0; i < before.len; i++) {
		const char *rel = before.items[i], *base = strrchr(rel, '/');
		size_t n = strlen(slug);
		bool own = base && (!strncmp(rel, "ops/", 4) || !strncmp(rel, "html/ops/", 9)) &&
			   !strncmp(base + 1, slug, n) && base[1 + n] == '.' && !strchr(base + 2 + n, '.');
		if (own && strlist_has(&after, rel))
			problem(&pb, "%s of the dropped op is still there", rel);
		if (!own && !strlist_has(&after, rel))
			problem(&pb, "%s was removed, but it is not the dropped op's", rel);
	}
	if (!strlist_has(&before, ot_arena_printf(s->arena, "ops/%s.md", slug)))
		problem(&pb, "the first run wrote no ops/%s.md", slug);
	for (size_t i = 0; i < OT_ARRAY_LEN(mine); i++) {
		char *p = tu_path(out, mine[i][0]);
		if (!is_file(p)) {
			problem(&pb, "the user's %s was removed", mine[i][0]);
		} else {
			char *t = tu_read_file(p, NULL);
			if (strcmp(t, mine[i][1]))
				problem(&pb, "the user's %s was changed", mine[i][0]);
			free(t);
		}
		free(p);
	}
	for (size_t i = 0; i < after.len; i++) {
		bool user = false;
		for (size_t k = 0; k < OT_ARRAY_LEN(mine); k++)
			user = user || !strcmp(after.items[i], mine[k][0]);
		if (!user && !strlist_has(&before, after.items[i]))
			problem(&pb, "%s appeared", after.items[i]);
	}
	/* nothing links to the dropped page any more */
	check_links(&pb, s, out);
	assert_clean(&pb, "removing " DROPPED_OP " from the list");
	strlist_free(&before);
	strlist_free(&after);
	ot_buf_free(&err);
	free(list);
	free(out);
	free(dir);
}

/* 5. The offline bundle. */
static void test_bundle(const site *s)
{
	ot_buf pb = OT_BUF_INIT;
	site_ready(s);
	check_bundle(&pb, s);
	assert_clean(&pb, "HTML bundle");
}

/*
 * 5b. The bundle as a reader sees it: every page opened from file:// in
 * headless Chromium (tests/site/browser.py, the DevTools protocol): no
 * console error; every link, diagram node link, script, stylesheet and
 * image resolves to a file of the bundle (and a fragment to an id of its
 * page) or is a source link; the sidebar lists every op; typing "LSTM"
 * into the search box (and ?q=LSTM) finds nn.LSTM, typing one of its aten
 * overloads finds it too.
 */
static void expect_found(ot_buf *pb, const ot_value *search, const char *query, const char *op)
{
	static const char *const how[] = {"typed", "address"};
	const ot_value *q = ot_v_get(search, query);
	for (size_t h = 0; h < OT_ARRAY_LEN(how); h++) {
		const ot_value *hits = q ? ot_v_get(q, how[h]) : NULL;
		bool found = false;
		for (size_t i = 0; i < ot_v_len(hits); i++) {
			const ot_value *hit = ot_v_at(hits, i);
			if (!ot_v_truthy_scalar(ot_v_get(hit, "resolves")))
				problem(pb, "search %s (%s): result %s links no file", query, how[h],
					ot_v_cstr(ot_v_get(hit, "text")));
			found = found || !strcmp(ot_v_cstr(ot_v_get(hit, "text")), op);
		}
		if (!found)
			problem(pb, "search %s (%s) does not find %s (%zu results)", query, how[h], op,
				ot_v_len(hits));
	}
}


static void test_browser(const site *s)
{
	char *html = tu_path(s->out, "html");
	const ot_value *lstm = op_by_input(s, "nn.LSTM"), *aten, *r, *list;
	const char *overload;
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT, pb = OT_BUF_INIT;
	ot_arena *a = ot_arena_new();
	ot_value *report = NULL;
	size_t with_page = 0;
	int rc;

	site_ready(s);
	ck_assert_msg(lstm != NULL, "%s: nn.LSTM is not in trace.json", s->name);
	aten = ot_v_get(lstm, "aten");
	ck_assert_msg(ot_v_len(aten) > 0, "%s: nn.LSTM has no aten overload", s->name);
	overload = ot_v_cstr(ot_v_at(aten, 0));
	{
		const char *argv[] = {"python3", "tests/site/browser.py", html, "--search", "LSTM",
				      "--search", overload, NULL};
		rc = tu_run(argv, &out, &err);
	}
	ck_assert_msg(rc == 0, "browser.py exited %d:\n%s", rc, err.ptr);
	ck_assert_msg(ot_yaml_load(&report, a, out.ptr, out.size, "browser report") == 0,
		      "the browser's report is not JSON: %s", ot_error_last());

	list = ot_v_get(report, "console");
	for (size_t i = 0; i < ot_v_len(list); i++)
		problem(&pb, "%s: %s", ot_v_cstr(ot_v_get(ot_v_at(list, i), "page")),
			ot_v_cstr(ot_v_get(ot_v_at(list, i), "problem")));
	list = ot_v_get(report, "broken");
	for (size_t i = 0; i < ot_v_len(list); i++)
		problem(&pb, "%s: %s %s resolves to no file of the bundle",
			ot_v_cstr(ot_v_get(ot_v_at(list, i), "page")),
			ot_v_cstr(ot_v_get(ot_v_at(list, i), "kind")),
			ot_v_cstr(ot_v_get(ot_v_at(list, i), "url")));
	list = ot_v_get(report, "external");
	for (size_t i = 0; i < ot_v_len(list); i++) {
		const char *url = ot_v_cstr(ot_v_get(ot_v_at(list, i), "url"));
		char *path;
		long line;
		if (!parse_source_link(s, url, &path, &line))
			problem(&pb, "%s: %s %s is neither a file of the bundle nor a source link",
				ot_v_cstr(ot_v_get(ot_v_at(list, i), "page")),
				ot_v_cstr(ot_v_get(ot_v_at(list, i), "kind")), url);
		free(path);
	}
	r = ot_v_get(report, "pages");
	for (size_t i = 0; i < ot_v_len(s->ops); i++)
		with_page += *op_str(ot_v_at(s->ops, i), "slug") != '\0';
	if (ot_v_len(r) != with_page + 2)
		problem(&pb, "%zu pages opened, expected %zu (every op's, the index and Kernels)", ot_v_len(r),
			with_page + 2);
	if (int_of(ot_v_get(report, "sidebar_links")) != (long long)with_page)
		problem(&pb, "the sidebar lists %lld ops, expected %zu",
			int_of(ot_v_get(report, "sidebar_links")), with_page);
	if (int_of(ot_v_get(report, "diagram_links")) <= 0)
		problem(&pb, "no diagram node link in any page: the diagram is not inline");
	expect_found(&pb, ot_v_get(report, "search"), "LSTM", "nn.LSTM");
	expect_found(&pb, ot_v_get(report, "search"), overload, "nn.LSTM");
	assert_clean(&pb, "the bundle in Chromium");
	ot_arena_free(a);
	ot_buf_free(&out);
	ot_buf_free(&err);
	free(html);
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* 6. Every page says what it must, in order. */
static void test_content(const site *s)
{
	ot_buf pb = OT_BUF_INIT;
	ot_arena *a = ot_arena_new();
	OT_VEC(size_t) sizes = {0};
	size_t typical = 0;
	site_ready(s);
	/* the median size of a traced page: well-known pages must be shorter */
	for (size_t i = 0; i < ot_v_len(s->ops); i++) {
		const ot_value *op = ot_v_at(s->ops, i);
		char *p;
		struct stat st;
		if (strcmp(op_str(op, "status"), "traced"))
			continue;
		p = tu_path(s->out, op_str(op, "page"));
		if (stat(p, &st) == 0)
			ot_vec_push(&sizes, (size_t)st.st_size);
		free(p);
	}
	if (sizes.len) {
		qsort(sizes.items, sizes.len, sizeof(size_t), size_cmp);
		typical = sizes.items[sizes.len / 2];
	}
	ot_vec_free(&sizes);
	for (size_t i = 0; i < ot_v_len(s->ops); i++)
		check_op_page(&pb, s, ot_v_at(s->ops, i), typical, a);
	/* excerpts of every kind of source the sites trace through (a registry
	 * entry has none: its line gives the schema and dispatch) */
	{
		static const char *const langs[] = {"python", "cpp", "cuda"};
		bool seen[OT_ARRAY_LEN(langs)] = {0};
		for (size_t i = 0; i < ot_v_len(s->ops); i++) {
			char *md = read_rel(s->out, op_str(ot_v_at(s->ops, i), "page"), NULL);
			for (size_t k = 0; k < OT_ARRAY_LEN(langs); k++)
				seen[k] = seen[k] || strstr(md, ot_arena_printf(a, "```%s\n", langs[k]));
			free(md);
		}
		for (size_t k = 0; k < OT_ARRAY_LEN(langs); k++)
			if (!seen[k])
				problem(&pb, "no page has a %s excerpt", langs[k]);
	}
	check_index(&pb, s, a);
	ot_arena_free(a);
	assert_clean(&pb, "page content");
}

/* 7. Every file:line shown is real at the tag. */
static void test_sources(const site *s)
{
	ot_buf pb = OT_BUF_INIT;
	source_cache c = {s, ot_map_new(), ot_arena_new(), 0};
	site_ready(s);
	check_sources(&pb, s, &c);
	fprintf(stderr, "%s: %zu file:line references checked\n", s->name, c.checked);
	ck_assert_msg(c.checked > ot_v_len(s->ops), "only %zu file:line references checked",
		      c.checked);
	source_cache_free(&c);
	assert_clean(&pb, "file:line references");
}

static size_t count_status(const site *s, const char *status)
{
	size_t n = 0;
	for (size_t i = 0; i < ot_v_len(s->ops); i++)
		n += !strcmp(op_str(ot_v_at(s->ops, i), "status"), status);
	return n;
}

/*
 * The sites cover what the checks are about: every strategy, traced and
 * well-known ops; the fixture also `!full` (torch.mm, well-known, traced)
 * and unknown names, which make the exit status 1.
 */
static void test_coverage(const site *s)
{
	site_ready(s);
	for (size_t g = 0; g < OT_ARRAY_LEN(strategy_titles); g++) {
		bool any = false;
		for (size_t i = 0; i < ot_v_len(s->ops); i++)
			any = any || !strcmp(op_str(ot_v_at(s->ops, i), "strategy"), strategy_titles[g][0]);
		ck_assert_msg(any, "%s: no op of strategy %s", s->name, strategy_titles[g][0]);
	}
	ck_assert_uint_gt(count_status(s, "traced"), 0);
	ck_assert_uint_gt(count_status(s, "well-known"), 0);
	if (s == &fixture_site) {
		ck_assert_msg(s->rc == 1, "exit %d with unknown ops in the list", s->rc);
		ck_assert_uint_eq(count_status(s, "not-found"), 2);
		ck_assert_str_eq(op_str(op_by_input(s, "torch.mm"), "status"), "traced");
		ck_assert_uint_eq(ot_v_len(ot_v_get(op_by_input(s, "F.softmx"), "suggestions")), 1);
	}
}

/* Each source checker finds a page changed on purpose (the fixture's nn.LSTM page). */
static size_t source_problems(const site *s, const char *name, const char *text, bool svg)
{
	ot_buf pb = OT_BUF_INIT;
	source_cache c = {s, ot_map_new(), ot_arena_new(), 0};
	size_t n;
	if (svg) {
		check_svg_sources(&pb, &c, name, text);
	} else {
		check_page_sources(&pb, &c, name, text, strlen(text));
		check_overview_sources(&pb, &c, name, text, strlen(text));
	}
	n = count_lines(&pb);
	ot_buf_free(&pb);
	source_cache_free(&c);
	return n;
}

START_TEST(fixture_source_checkers_fail)
{
	const site *s = &fixture_site;
	const ot_value *op = op_by_input(s, "nn.LSTM");
	char *md, *svg, *bad, *link, *fence, *excerpt_line, *after_link;
	const char *p, *q;
	size_t base;
	const char *changes[][3] = {
		{NULL, NULL, "a line past the end of the file"},
		{NULL, NULL, "an excerpt line that is not the source"},
		{") — `", ") — `no_such_symbol_here`, not `", "another symbol than the line holds"},
		{".py:", ".py:1", "a link text naming another place than its URL"},
		{"\n```cpp\n", "\n```python\n", "a wrong fence language"},
		{"| `lstm_cudnn` |", "| `not_this_one` |", "a wrong Summary symbol"},
		{"is `cudnnRNNForward` at [", "is `not_this_one` at [", "a wrong symbol in a GPU note"},
		{"`use_cudnn_rnn(_input)` at [", "`not_this_one(_input)` at [", "a wrong selection symbol"},
		{"(torch/nn/modules/rnn.py:", "(torch/nn/modules/rnn.py:1", "a wrong overview line"},
	};
	site_ready(s);
	ck_assert(op && !strcmp(op_str(op, "status"), "traced"));
	md = read_rel(s->out, op_str(op, "page"), NULL);
	svg = read_rel(s->out, ot_arena_printf(s->arena, "ops/%s.svg", op_str(op, "slug")), NULL);
	/* what the page gets wrong already is the subject of fixture_sources */
	base = source_problems(s, "md", md, false);
	ck_assert_uint_eq(source_problems(s, "svg", svg, true), 0);

	/* the first linked location: "[`path:N`](...#LN) — `symbol`" */
	p = strstr(md, "\n[`");
	ck_assert(p);
	q = strstr(p, ") — `");
	ck_assert(q);
	link = ot_strndup(p + 1, (size_t)(q - p));
	{
		/* a line past the end of the file */
		const char *colon = strchr(link, ':'), *hash = strstr(link, "#L");
		const char *url = strstr(link, "](") + 2;
		ot_buf b = OT_BUF_INIT;
		ot_buf_put(&b, link, (size_t)(colon - link));
		ot_buf_puts(&b, ":99999`](");
		ot_buf_put(&b, url, (size_t)(hash - url));
		ot_buf_puts(&b, "#L99999)");
		changes[0][0] = link;
		changes[0][1] = after_link = ot_buf_detach(&b);
	}
	/* an excerpt line that is not the source */
	fence = strstr(md, "\n```cpp\n");
	ck_assert(fence);
	fence += strlen("\n```cpp\n");
	changes[1][0] = excerpt_line = ot_strndup(fence, strcspn(fence, "\n"));
	changes[1][1] = "int changed_by_the_test;";
	for (size_t i = 0; i < OT_ARRAY_LEN(changes); i++) {
		bad = replace_first(md, changes[i][0], changes[i][1]);
		ck_assert_msg(source_problems(s, "md", bad, false) > base, "%s: passed", changes[i][2]);
		free(bad);
	}
	/* a diagram node linking another line than its label */
	bad = replace_first(svg, "#L", "#L9");
	ck_assert_msg(source_problems(s, "svg", bad, true) > 0, "a wrong diagram link passed");
	free(bad);
	free(after_link);
	free(excerpt_line);
	free(link);
	free(svg);
	free(md);
}
END_TEST

#define SITE_TESTS(X)                                                                          \
	X(coverage) X(mkdocs) X(sphinx) X(hugo) X(links) X(github) X(deterministic) X(rerun_untouched)         \
	X(removal) X(bundle) X(browser) X(content) X(sources)

#define DEFINE(name)                                                                           \
	START_TEST(fixture_##name) { test_##name(&fixture_site); }                             \
	END_TEST                                                                               \
	START_TEST(release_##name) { test_##name(&release_site); }                             \
	END_TEST
SITE_TESTS(DEFINE)

/* Pages of the default ops.list that fit a docs site: the median page
 * (well-known ones included) at most 200 lines, none over 600; the
 * traced pages' own distribution reported beside it. */
#define PAGE_LINES_MEDIAN 200
#define PAGE_LINES_MAX 600

static void report_lengths(const char *what, size_t *v, size_t n)
{
	qsort(v, n, sizeof(size_t), size_cmp);
	fprintf(stderr, "release: %zu %s, lines: median %zu, 90th percentile %zu, longest %zu\n", n, what,
		v[(n - 1) / 2], v[n * 9 / 10], v[n - 1]);
}

START_TEST(release_page_lengths)
{
	const site *s = &release_site;
	OT_VEC(size_t) all = {0};
	OT_VEC(size_t) traced = {0};
	site_ready(s);
	for (size_t i = 0; i < ot_v_len(s->ops); i++) {
		const ot_value *op = ot_v_at(s->ops, i);
		size_t len, n = 0;
		char *md = read_rel(s->out, op_str(op, "page"), &len);
		for (size_t k = 0; md && k < len; k++)
			n += md[k] == '\n';
		free(md);
		ck_assert_msg(n <= PAGE_LINES_MAX, "%s: %zu lines (at most %d)", op_str(op, "page"), n, PAGE_LINES_MAX);
		ot_vec_push(&all, n);
		if (!strcmp(op_str(op, "status"), "traced"))
			ot_vec_push(&traced, n);
	}
	ck_assert_msg(all.len > 0 && traced.len > 0, "no page");
	report_lengths("traced pages", traced.items, traced.len);
	report_lengths("pages", all.items, all.len);
	ck_assert_msg(all.items[(all.len - 1) / 2] <= PAGE_LINES_MEDIAN, "median page of %zu lines (at most %d)",
		      all.items[(all.len - 1) / 2], PAGE_LINES_MEDIAN);
	ot_vec_free(&all);
	ot_vec_free(&traced);
}
END_TEST

/* ---- the checkers can fail ------------------------------------------------------------ */

static const char good_page[] = "---\n"
				"title: \"a.b\"\n"
				"description: \"d\"\n"
				"---\n"
				"\n"
				"# a.b\n"
				"\n"
				"Text with `code <T>{}` and \\{ and &lt; entities.\n"
				"\n"
				"| A | B |\n"
				"|---|---|\n"
				"| `x \\| y` is escaped | b |\n"
				"\n"
				"```cpp\n"
				"template <typename T> f() {}\n"
				"```\n";

static size_t problems_of(const char *md)
{
	ot_buf pb = OT_BUF_INIT;
	size_t n;
	check_markdown_page(&pb, "t.md", md, strlen(md));
	n = count_lines(&pb);
	ot_buf_free(&pb);
	return n;
}

START_TEST(checkers_fail_on_bad_markdown)
{
	static const char *const bad[][2] = {
		{"Text with", "<div>raw</div>\n\nText with"},  /* HTML block */
		{"Text with", "A <b>bold</b> text with"},       /* inline HTML */
		{"and \\{", "and {"},                            /* bare '{' */
		{"entities.", "entities <."},                    /* bare '<' */
		{"| b |\n", "| b | c |\n"},                      /* row wider than its header */
		{"| `x \\| y` is escaped | b |", "| narrower |"},
		{"`x \\| y`", "`x | y`"},                        /* pipe in code splits on GitHub */
		{"# a.b\n", "# a.b\n\n# again\n"},               /* two H1 */
		{"# a.b\n", "## a.b\n"},                         /* none */
		{"description: \"d\"\n", "description: \"d\"\nauthor: me\n"},
		{"title: \"a.b\"\n", ""},                        /* no title */
		{"title: \"a.b\"", "title: \"other\""},          /* title is not the H1 */
		{"Text", "Te\xC3\x28xt"},                        /* invalid UTF-8 */
		{"Text", "Te\xED\xA0\x80xt"},                    /* surrogate */
		{"---\ntitle", "title"},                         /* no front matter */
		{"`code <T>{}`", "`aten::\\_softmax`"},          /* escape shown in code */
	};
	ck_assert_uint_eq(problems_of(good_page), 0);
	for (size_t i = 0; i < OT_ARRAY_LEN(bad); i++) {
		char *md = replace_first(good_page, bad[i][0], bad[i][1]);
		ck_assert_msg(problems_of(md) > 0, "no problem found in variant %zu:\n%s", i, md);
		free(md);
	}
}
END_TEST

START_TEST(checkers_fail_on_bad_links)
{
	char *root = tu_tmpdir("links-checker"), *p;
	site s = {.name = "t", .tag = "v9", .link_base = "https://example.org/blob"};
	static const char *const bad[] = {
		"[x](missing.md)",
		"[x](../../outside.md)",
		"![x](nothere.svg)",
		"[x](/etc/passwd)",
		"[x](http://example.org/blob/v9/a.py#L1)",
		"[x](https://example.org/blob/v8/a.py#L1)",
		"[x](https://example.org/blob/v9/a.py)",
		"[x](https://example.org/blob/v9/../a.py#L3)",
		"[x](file:///etc/passwd)",
	};
	p = tu_path(root, "ops");
	ck_assert(mkdir(p, 0755) == 0);
	free(p);
	p = tu_path(root, "ops/ok.md");
	tu_write_file(p, "[self](ok.md) [up](../ops/ok.md#x) [src](https://example.org/blob/v9/a/b.py#L3)\n",
		      strlen("[self](ok.md) [up](../ops/ok.md#x) [src](https://example.org/blob/v9/a/b.py#L3)\n"));
	free(p);
	{
		ot_buf pb = OT_BUF_INIT;
		check_links(&pb, &s, root);
		ck_assert_msg(pb.size == 0, "%s", pb.ptr);
	}
	for (size_t i = 0; i < OT_ARRAY_LEN(bad); i++) {
		ot_buf pb = OT_BUF_INIT;
		p = tu_path(root, "ops/bad.md");
		tu_write_file(p, bad[i], strlen(bad[i]));
		check_links(&pb, &s, root);
		ck_assert_msg(pb.size > 0, "link %s passed", bad[i]);
		ot_buf_free(&pb);
		unlink(p);
		free(p);
	}
	free(root);
}
END_TEST

Suite *site_suite(void)
{
	Suite *s = suite_create("site");
	TCase *fx = tcase_create("fixture"), *rel = tcase_create("v2.6.0");
	TCase *own = tcase_create("checkers");

	tcase_add_test(own, checkers_fail_on_bad_markdown);
	tcase_add_test(own, checkers_fail_on_bad_links);
	suite_add_tcase(s, own);

	tcase_add_unchecked_fixture(fx, fixture_setup, NULL);
	tcase_set_timeout(fx, 300);
#define ADD_FX(name) tcase_add_test(fx, fixture_##name);
	SITE_TESTS(ADD_FX)
	tcase_add_test(fx, fixture_source_checkers_fail);
	suite_add_tcase(s, fx);

	tcase_add_unchecked_fixture(rel, release_setup, NULL);
	tcase_set_timeout(rel, 600);
#define ADD_REL(name) tcase_add_test(rel, release_##name);
	SITE_TESTS(ADD_REL)
	tcase_add_test(rel, release_page_lengths);
	suite_add_tcase(s, rel);
	return s;
}

int main(void)
{
	return tu_run_suite(site_suite()) ? 1 : 0;
}
