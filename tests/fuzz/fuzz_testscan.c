/*
 * libFuzzer harness: the Python tokenizer and the scanner of test
 * databases, test files and benchmarks (gen/pytok.c, gen/testscan.c), on
 * text a checkout controls. The kind of file is chosen by the input's size.
 */
#include <string.h>

#include "fuzz.h"
#include "testrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ot_tfile_kind kinds[] = {OT_TFILE_DB, OT_TFILE_TEST, OT_TFILE_BENCH};
	char *text = malloc(size + 1);
	ot_arena *arena = ot_arena_new();
	ot_tr_file f;
	uint32_t lines = 1;

	memcpy(text, data, size);
	text[size] = '\0'; /* as the index keeps every file */
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	ot_testscan_file(&f, arena, "x.py", 3, kinds[size % 3], text, size);
	FUZZ_CHECK(f.file == 3 && f.kind == kinds[size % 3]);
	for (uint32_t i = 0; i < f.toks.n; i++)
		FUZZ_CHECK(f.toks.toks[i].off + f.toks.toks[i].len <= size && f.toks.toks[i].line >= 1 &&
			   f.toks.toks[i].line <= lines);
	for (size_t i = 0; i < f.calls.len; i++) {
		const ot_tr_call *c = &f.calls.items[i];
		FUZZ_CHECK(c->cls && c->variant && c->opinfo_variant && c->line >= 1 && c->line <= lines);
		FUZZ_CHECK(c->tok < c->tok_end || c->tok_end == f.toks.n);
		for (uint32_t k = 0; k < c->ndecors; k++)
			FUZZ_CHECK(c->decors[k].decorator && c->decors[k].line <= lines);
	}
	for (size_t i = 0; i < f.assigns.len; i++)
		FUZZ_CHECK(f.assigns.items[i].name && f.assigns.items[i].expr <= f.assigns.items[i].expr_end &&
			   f.assigns.items[i].expr_end <= f.toks.n);
	for (size_t i = 0; i < f.tests.len; i++)
		FUZZ_CHECK(f.tests.items[i].decorator && f.tests.items[i].expr_text &&
			   f.tests.items[i].expr_end <= f.toks.n && f.tests.items[i].line <= lines);
	for (size_t i = 0; i < f.mentions.len; i++)
		FUZZ_CHECK(f.mentions.items[i].name && f.mentions.items[i].variant && f.mentions.items[i].line >= 1 &&
			   f.mentions.items[i].line <= lines);
	for (size_t i = 0; i < f.benches.len; i++)
		FUZZ_CHECK(f.benches.items[i].api && f.benches.items[i].where && f.benches.items[i].line <= lines);
	ot_testscan_free(&f);
	ot_arena_free(arena);
	free(text);
	return 0;
}
