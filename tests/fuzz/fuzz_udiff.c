/*
 * libFuzzer harness: unified diffs (gen/udiff.c). A diff parses into files
 * whose changes are ordered and well-formed, or fails naming its line.
 */
#include <string.h>

#include "fuzz.h"
#include "udiff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ot_udiff *d = NULL;
	if (ot_udiff_parse(&d, (const char *)data, size, "fuzz.diff") == 0) {
		FUZZ_CHECK(d != NULL);
		for (size_t i = 0; i < d->nfiles; i++) {
			const ot_udiff_file *f = &d->files[i];
			for (size_t c = 0; c < f->nchanges; c++)
				FUZZ_CHECK(f->changes[c].lo <= f->changes[c].hi &&
					   (!f->changes[c].insert || f->changes[c].lo == f->changes[c].hi));
		}
		ot_udiff_free(d);
	} else {
		FUZZ_CHECK(d == NULL && !strncmp(ot_error_last(), "fuzz.diff:", 10));
	}
	return 0;
}
