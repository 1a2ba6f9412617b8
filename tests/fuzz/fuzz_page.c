/*
 * libFuzzer harness: the page writer (gen/page.c, through gen/escape.c)
 * over hostile names and notes, as an untrusted checkout gives them.
 *
 * The input is split at NUL bytes into fields: a derivatives.yaml formula
 * (made a YAML string, every byte outside printable ASCII as \xNN), then
 * five per step (file, symbol, note, aten op, backend) for up to 12 steps
 * over every layer; a step whose file is empty points at a source file
 * full of backticks, line breaks, controls, bidi controls and invalid
 * UTF-8, so its excerpt is written too. The op page and the index are
 * rendered and parsed with cmark-gfm (raw HTML kept): no raw HTML node, no
 * link but to the source or a page, and the text is UTF-8 with no control
 * character but newline and tab, and no bidi control; the Graphviz label
 * of every field has no control character either.
 */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "escape.h"
#include "fuzz.h"
#include "index.h"
#include "page.h"
#include "registry.h"
#include "source.h"

#define BASE "https://github.com/pytorch/pytorch/blob"
#define SOURCE "aten/src/ATen/native/Hostile.cpp"
#define MAX_STEPS 12

static const char native[] = "- func: add.Tensor(Tensor self, Tensor other) -> Tensor\n"
			     "  dispatch:\n    CPU: add_cpu\n";

static ot_index *ix;

/* Once: an unverified plain tree with one hostile source file, indexed. */
static void setup(void)
{
	static const char text[] = "int add_cpu(int x) { return x; } // ```` `` `\n"
				   "  x\r```\r<script>\xe2\x80\xa8</script>\x1b[2J\x07\n"
				   "  \xe2\x80\xae\xff\xfe tail ~~~\n"
				   "```\n}\n";
	char dir[] = "/tmp/optrace-fuzz-page-XXXXXX";
	ot_source_opts so = {0};
	ot_source *src = NULL;
	ot_buf path = OT_BUF_INIT;
	FILE *f;
	FUZZ_CHECK(mkdtemp(dir));
	ot_buf_printf(&path, "mkdir -p %s/aten/src/ATen/native", dir);
	FUZZ_CHECK(system(path.ptr) == 0);
	ot_buf_clear(&path);
	ot_buf_printf(&path, "%s/" SOURCE, dir);
	FUZZ_CHECK((f = fopen(path.ptr, "wb")));
	fwrite(text, 1, sizeof(text) - 1, f);
	fclose(f);
	so.path = dir;
	so.allow_unverified = true;
	FUZZ_CHECK(ot_source_open(&src, &so) == 0);
	FUZZ_CHECK(ot_source_select(src, "1.0", NULL) == 0);
	FUZZ_CHECK(ot_index_build(&ix, src, 1) == 0);
	ot_source_free(src);
	ot_buf_free(&path);
}

/* The next NUL-terminated field of [*p, end), "" past the end. */
static const char *field(ot_arena *a, const char **p, const char *end)
{
	const char *nul = *p < end ? memchr(*p, '\0', (size_t)(end - *p)) : NULL;
	const char *stop = nul ? nul : end, *s;
	if (*p >= end)
		return "";
	s = ot_arena_strndup(a, *p, (size_t)(stop - *p));
	*p = nul ? nul + 1 : end;
	return s;
}

/* Text: valid UTF-8, no control character but \n and \t, no bidi control. */
static void check_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = ot_utf8_len(s + i, len - i);
		const unsigned char *u = (const unsigned char *)s + i;
		FUZZ_CHECK(n > 0);
		FUZZ_CHECK(!(u[0] < 0x20 && u[0] != '\n' && u[0] != '\t') && u[0] != 0x7f);
		FUZZ_CHECK(!(n == 2 && u[0] == 0xc2 && u[1] < 0xa0));
		FUZZ_CHECK(!(n == 3 && u[0] == 0xe2 && u[1] == 0x80 &&
			     ((u[2] >= 0xa8 && u[2] <= 0xae) || u[2] == 0x8e || u[2] == 0x8f)));
		FUZZ_CHECK(!(n == 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9));
		i += n;
	}
}

/* Parsed as GitHub does: no raw HTML, links only to the source or a page. */
static void check_markdown(const ot_buf *md)
{
	static const char *const exts[] = {"table", "autolink", "strikethrough"};
	cmark_parser *parser;
	cmark_node *doc;
	cmark_iter *it;
	cmark_event_type ev;
	check_text(md->ptr, md->size);
	cmark_gfm_core_extensions_ensure_registered();
	parser = cmark_parser_new(CMARK_OPT_UNSAFE);
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		cmark_parser_attach_syntax_extension(parser, cmark_find_syntax_extension(exts[i]));
	cmark_parser_feed(parser, md->ptr, md->size);
	doc = cmark_parser_finish(parser);
	it = cmark_iter_new(doc);
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		cmark_node_type t = cmark_node_get_type(n);
		if (ev != CMARK_EVENT_ENTER)
			continue;
		FUZZ_CHECK(t != CMARK_NODE_HTML_INLINE && t != CMARK_NODE_HTML_BLOCK);
		if (t == CMARK_NODE_LINK || t == CMARK_NODE_IMAGE) {
			const char *url = cmark_node_get_url(n);
			size_t k = strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
			if (!(!strncmp(url, BASE "/", strlen(BASE) + 1) ||
			      (url[k] != ':' && strspn(url, "/\\") < 2)))
				fprintf(stderr, "a link outside: %s\n%.*s\n", url, (int)md->size, md->ptr);
			FUZZ_CHECK(!strncmp(url, BASE "/", strlen(BASE) + 1) ||
				   (url[k] != ':' && strspn(url, "/\\") < 2));
		}
	}
	cmark_iter_free(it);
	cmark_node_free(doc);
	cmark_parser_free(parser);
}

/* A YAML double-quoted string holding the bytes of `s`. */
static void yaml_string(ot_buf *out, const char *s)
{
	ot_buf_putc(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
			ot_buf_printf(out, "\\x%02x", *p);
		else
			ot_buf_putc(out, (char)*p);
	ot_buf_putc(out, '"');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	ot_arena *a = ot_arena_new();
	ot_trace tr;
	ot_trace *traces[1] = {&tr};
	ot_registry *reg = NULL;
	ot_pages *pages = NULL;
	ot_buf deriv = OT_BUF_INIT, md = OT_BUF_INIT, label = OT_BUF_INIT;
	ot_release rel = {"1.0", "v1.0", "0123456789abcdef0123456789abcdef01234567", true, BASE};
	int lines[1] = {1};

	if (!ix)
		setup();
	memset(&tr, 0, sizeof(tr));
	tr.arena = a;
	tr.input = "torch.add";
	FUZZ_CHECK(ot_resolve_parse(&tr.target, "torch.add") == 0);
	tr.status = OT_STATUS_TRACED;
	ot_vec_push(&tr.aten, "add.Tensor");
	ot_buf_puts(&deriv, "- name: add.Tensor(Tensor self, Tensor other) -> Tensor\n  self: ");
	yaml_string(&deriv, field(a, &p, end));
	ot_buf_putc(&deriv, '\n');
	if (ot_registry_load(&reg, native, sizeof(native) - 1, "native", deriv.ptr, deriv.size,
			     "deriv") < 0)
		goto done;
	{
		ot_step s = {.layer = OT_LAYER_BACKWARD, .found = true, .file = OT_REGISTRY_DERIV_PATH,
			     .line = 1, .symbol = "add.Tensor", .note = "", .op = "", .backend = "",
			     .parent = -1};
		ot_vec_push(&tr.steps, s);
	}
	for (int i = 0; i < MAX_STEPS && p < end; i++) {
		ot_step s = {0};
		s.layer = (ot_layer)(i % OT_LAYER_COUNT);
		s.file = field(a, &p, end);
		s.symbol = field(a, &p, end);
		s.note = field(a, &p, end);
		s.op = field(a, &p, end);
		s.backend = field(a, &p, end);
		s.found = i % 5 != 4;
		s.line = 1 + (uint32_t)(i % 4);
		if (!*s.file)
			s.file = SOURCE;
		s.depth = (uint8_t)(i % 3 == 2);
		s.parent = i ? 0 : -1;
		if (!s.found) {
			s.file = NULL;
			s.line = 0;
		}
		ot_vec_push(&tr.steps, s);
		ot_vec_push(&tr.backends, s.backend);
		ot_vec_push(&tr.calls, s.op);
		ot_vec_push(&tr.messages, s.note);
		ot_buf_clear(&label);
		ot_esc_dot_label(&label, s.symbol, strlen(s.symbol));
		check_text(label.ptr, label.size);
		FUZZ_CHECK(!memchr(label.ptr, '\n', label.size));
	}
	FUZZ_CHECK(ot_pages_new(&pages, &rel, traces, lines, 1, ix, reg, NULL) == 0);
	FUZZ_CHECK(ot_pages_render_op(pages, 0, true, &md) == 0);
	check_markdown(&md);
	FUZZ_CHECK(ot_pages_render_index(pages, &md) == 0);
	check_markdown(&md);

done:
	ot_pages_free(pages);
	ot_registry_free(reg);
	ot_vec_free(&tr.aten);
	ot_vec_free(&tr.steps);
	ot_vec_free(&tr.backends);
	ot_vec_free(&tr.calls);
	ot_vec_free(&tr.messages);
	ot_buf_free(&deriv);
	ot_buf_free(&md);
	ot_buf_free(&label);
	ot_arena_free(a);
	return 0;
}
