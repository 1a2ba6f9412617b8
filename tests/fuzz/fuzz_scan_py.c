/*
 * libFuzzer harness: the Python code view and scanner (gen/lex.c,
 * gen/pyscan.c). The file's path (plain module, or one of the two docstring
 * files with their own anchors) is chosen by the input's size.
 */
#include <string.h>

#include "fuzz.h"
#include "index.h"
#include "lines.h"
#include "scan.h"

#include "fuzz_scan.h"

static const char *const paths[] = {"torch/nn/functional.py", "torch/_torch_docs.py",
				    "torch/_tensor_docs.py"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file f;
	ot_scan_result r = {0};
	ot_arena *arena = ot_arena_new();

	fuzz_file_open(&f, data, size, OT_LANG_PYTHON);
	ot_scan_python(&r, arena, f.code, f.text, size, 5, paths[size % 3]);
	for (size_t i = 0; i < r.pydefs.len; i++) {
		const ot_ix_pydef *p = &r.pydefs.items[i];
		FUZZ_CHECK(p->name && *p->name && p->file == 5);
		FUZZ_CHECK(fuzz_line_ok(&f, p->line) && p->end_line >= p->line &&
			   p->end_line <= f.nlines);
		FUZZ_CHECK(!p->parent || (p->parent->line <= p->line &&
					  p->parent->end_line >= p->end_line));
		FUZZ_CHECK(p->nrefs == 0 || p->refs);
		for (uint32_t k = 0; k < p->nrefs; k++)
			FUZZ_CHECK(p->refs[k].path && *p->refs[k].path &&
				   fuzz_line_ok(&f, p->refs[k].line));
	}
	for (size_t i = 0; i < r.decomps.len; i++)
		FUZZ_CHECK(r.decomps.items[i].op && fuzz_line_ok(&f, r.decomps.items[i].line));
	for (size_t i = 0; i < r.docs.len; i++)
		FUZZ_CHECK(r.docs.items[i].name && fuzz_line_ok(&f, r.docs.items[i].line));
	ot_scan_result_free(&r);
	ot_arena_free(arena);
	fuzz_file_close(&f);
	return 0;
}
