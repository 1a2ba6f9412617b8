/* libFuzzer harness: the schema parser of native_functions.yaml (gen/schema.c). */
#include <string.h>

#include "fuzz.h"
#include "registry.h"

static void check_items(const ot_reg_arg *a, size_t n, bool returns)
{
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(a[i].type && *a[i].type);
		FUZZ_CHECK(returns || a[i].name);
		FUZZ_CHECK(a[i].is_write == (a[i].annotation && strchr(a[i].annotation, '!')));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the registry hands the parser NUL-terminated YAML scalars */
	char *text = malloc(size + 1);
	ot_arena *arena = ot_arena_new();
	ot_reg_schema s;

	memcpy(text, data, size);
	text[size] = '\0';
	if (ot_reg_schema_parse(&s, arena, text) == 0) {
		size_t n = strlen(s.name);
		FUZZ_CHECK(n > 0);
		FUZZ_CHECK(!strncmp(s.full, s.name, n));
		FUZZ_CHECK(*s.overload ? s.full[n] == '.' && !strcmp(s.full + n + 1, s.overload)
				       : s.full[n] == '\0');
		FUZZ_CHECK(s.nargs == 0 || s.args);
		FUZZ_CHECK(s.nreturns == 0 || s.returns);
		check_items(s.args, s.nargs, false);
		check_items(s.returns, s.nreturns, true);
	} else {
		FUZZ_CHECK(*ot_error_last());
	}
	ot_arena_free(arena);
	free(text);
	return 0;
}
