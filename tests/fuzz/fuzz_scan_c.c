/*
 * libFuzzer harness: the C/C++/CUDA code view and scanner (gen/lex.c,
 * gen/cscan.c), fed as ot_index_build feeds them: the text and its code
 * view, both NUL-terminated.
 */
#include <string.h>

#include "fuzz.h"
#include "index.h"
#include "lines.h"
#include "scan.h"

#include "fuzz_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file f;
	ot_scan_result r = {0};
	ot_arena *arena = ot_arena_new();
	const uint32_t *lines;
	uint32_t nlines;

	fuzz_file_open(&f, data, size, OT_LANG_C);
	nlines = ot_line_starts(&lines, arena, f.text, size);
	ot_scan_c(&r, arena, f.code, f.text, size, lines, nlines, 3);
	for (size_t i = 0; i < r.cdefs.len; i++) {
		const ot_ix_cdef *d = &r.cdefs.items[i];
		FUZZ_CHECK(d->name && *d->name && d->qual && d->ns && d->file == 3);
		FUZZ_CHECK(fuzz_line_ok(&f, d->line) && d->end_line >= d->line &&
			   d->end_line <= f.nlines);
		FUZZ_CHECK(d->ncalls == 0 || d->calls);
		for (uint32_t k = 0; k < d->ncalls; k++)
			FUZZ_CHECK(d->calls[k].name && *d->calls[k].name &&
				   fuzz_line_ok(&f, d->calls[k].line));
	}
	for (size_t i = 0; i < r.stubs.len; i++) {
		const ot_ix_stub *s = &r.stubs.items[i];
		FUZZ_CHECK(s->stub && *s->stub && s->macro && fuzz_line_ok(&f, s->line));
	}
	ot_scan_result_free(&r);
	ot_arena_free(arena);
	fuzz_file_close(&f);
	return 0;
}
