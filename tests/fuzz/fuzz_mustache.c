/*
 * libFuzzer harness: the template engine (gen/mustache.c).
 *
 * Input: a template, optionally followed by a NUL byte and the text every
 * partial gets (so partials can include themselves). Partials named "z..."
 * are missing and "err" fails. The template is rendered twice, parsed per
 * call and compiled, against a fixed context; both must agree.
 */
#include <string.h>

#include "fuzz.h"
#include "mustache.h"
#include "yamldoc.h"

/* Short names the fuzzer can guess; every kind of value. */
static const char context_yaml[] =
	"a: 1\n"
	"b: false\n"
	"c: [1, 2, 3]\n"
	"d: {e: '<&\"x\">', f: {g: deep}, l: [{n: 1}, {n: 2}]}\n"
	"e: ''\n"
	"n: ~\n"
	"s: 'a & b'\n"
	"t: true\n"
	"u: []\n"
	"x: [[a, b], [c], []]\n";

static ot_arena *ctx_arena;
static ot_value *ctx;

struct partials {
	const char *text;
	size_t len;
};

static int get_partial(ot_buf *out, const char *name, void *payload)
{
	const struct partials *p = payload;
	if (name[0] == 'z')
		return OT_ENOTFOUND;
	if (!strcmp(name, "err"))
		return ot_error_set("partial err fails");
	ot_buf_put(out, p->text, p->len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *tmpl = (const char *)data, *nul = memchr(data, '\0', size);
	size_t tlen = nul ? (size_t)(nul - tmpl) : size;
	struct partials p = {nul ? nul + 1 : "", nul ? size - tlen - 1 : 0};
	ot_mustache_opts opts = {get_partial, &p, NULL, "t"};
	ot_buf a = OT_BUF_INIT, b = OT_BUF_INIT;
	ot_mustache *compiled = NULL;
	int rc_a, rc_b;
	char *err_a;

	if (!ctx) {
		ctx_arena = ot_arena_new();
		FUZZ_CHECK(ot_yaml_load(&ctx, ctx_arena, context_yaml, strlen(context_yaml),
					"ctx") == 0);
	}
	ot_buf_puts(&a, "keep");
	rc_a = ot_mustache_render(&a, tmpl, tlen, ctx, &opts);
	err_a = strdup(ot_error_last());
	/* on error the output is restored */
	FUZZ_CHECK(rc_a == 0 || (a.size == 4 && !memcmp(a.ptr, "keep", 4)));
	FUZZ_CHECK(rc_a == 0 || *err_a);

	rc_b = ot_mustache_compile(&compiled, tmpl, tlen, "t");
	if (rc_b == 0) {
		ot_buf_puts(&b, "keep");
		rc_b = ot_mustache_render_compiled(&b, compiled, ctx, &opts);
	}
	FUZZ_CHECK(rc_a == rc_b);
	if (rc_a == 0)
		FUZZ_CHECK(a.size == b.size && !memcmp(a.ptr, b.ptr, a.size));
	else
		FUZZ_CHECK(!strcmp(err_a, ot_error_last()));
	ot_mustache_free(compiled);
	free(err_a);
	ot_buf_free(&a);
	ot_buf_free(&b);
	return 0;
}
