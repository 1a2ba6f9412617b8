/*
 * libFuzzer harness: native_functions.yaml and derivatives.yaml through the
 * YAML reader and the entry reader (gen/yamldoc.c, gen/registry.c), then the
 * --dump-registry writer.
 *
 * Input: the native file, optionally followed by SEPARATOR and the
 * derivatives file.
 */
#include <string.h>

#include "fuzz.h"
#include "registry.h"

#define SEPARATOR "\n#--derivatives--\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *deriv = NULL;
	size_t native_len = size, deriv_len = 0;
	const char *sep = memmem(text, size, SEPARATOR, strlen(SEPARATOR));
	ot_registry *reg = NULL;

	if (sep) {
		native_len = (size_t)(sep - text);
		deriv = sep + strlen(SEPARATOR);
		deriv_len = size - native_len - strlen(SEPARATOR);
	}
	if (ot_registry_load(&reg, text, native_len, "n.yaml", deriv, deriv_len, "d.yaml") < 0) {
		FUZZ_CHECK(reg == NULL && *ot_error_last());
		return 0;
	}
	for (size_t i = 0; i < ot_registry_func_count(reg); i++) {
		const ot_reg_func *f = ot_registry_func_at(reg, i);
		FUZZ_CHECK(f->index == i);
		FUZZ_CHECK(f->line >= 1 && f->end_line >= f->line);
		FUZZ_CHECK(ot_registry_find(reg, f->schema.full) == f);
		FUZZ_CHECK(!f->structured_delegate || f->delegate);
		for (size_t k = 0; k < f->ndispatch; k++)
			FUZZ_CHECK(f->dispatch[k].key && f->dispatch[k].kernel);
	}
	for (size_t i = 0; i < ot_registry_deriv_count(reg); i++) {
		const ot_reg_deriv *d = ot_registry_deriv_at(reg, i);
		FUZZ_CHECK(d->line >= 1 && d->name);
		FUZZ_CHECK(!d->func || d->func->deriv == d);
	}
	{
		/* must finish: the loader bounds what aliases can expand to */
		ot_buf json = OT_BUF_INIT;
		ot_registry_dump_json(&json, reg);
		FUZZ_CHECK(json.size > 0 && json.ptr[json.size - 1] == '\n');
		ot_buf_free(&json);
	}
	ot_registry_free(reg);
	return 0;
}
