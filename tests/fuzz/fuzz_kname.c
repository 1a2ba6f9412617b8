/*
 * libFuzzer harness: kernel names as profilers print them (gen/kname.c):
 * a name either parses into a non-empty name and well-formed parts, or
 * fails with a message; the library table never reads past the name.
 */
#include <string.h>

#include "fuzz.h"
#include "kname.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	ot_arena *arena = ot_arena_new();
	ot_kname k;
	memcpy(text, data, size);
	text[size] = '\0';
	if (ot_kname_parse(&k, arena, text) == 0) {
		FUZZ_CHECK(k.name && *k.name && k.qual && k.text);
		for (size_t i = 0; i < k.ntargs; i++)
			FUZZ_CHECK(k.targs[i] != NULL);
		for (size_t i = 0; i < k.nrefs; i++)
			FUZZ_CHECK(k.refs[i].name && *k.refs[i].name && k.refs[i].qual);
		(void)ot_kname_library(&k);
		FUZZ_CHECK(ot_kname_qual_matches("", k.qual) && ot_kname_qual_matches(k.qual, k.qual));
	} else {
		FUZZ_CHECK(*ot_error_last());
	}
	ot_arena_free(arena);
	free(text);
	return 0;
}
