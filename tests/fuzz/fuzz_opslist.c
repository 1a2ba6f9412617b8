/* libFuzzer harness: the ops.list parser (gen/opslist.c). */
#include <string.h>

#include "fuzz.h"
#include "opslist.h"

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exactly `size` bytes, no terminator: an overread is a finding */
	ot_opslist *list = ot_opslist_parse((const char *)data, size, "f.list");
	int last_line = 0;

	for (size_t i = 0; i < list->ops.len; i++) {
		const ot_opslist_entry *e = &list->ops.items[i];
		size_t n = strlen(e->name);
		/* what reaches the tracer and the file names is well-formed */
		FUZZ_CHECK(n > 0 && n <= OT_OPSLIST_MAX_NAME);
		FUZZ_CHECK(strspn(e->name, NAME_CHARS) == n);
		FUZZ_CHECK(e->name[0] == '_' || ((e->name[0] | 0x20) >= 'a' && (e->name[0] | 0x20) <= 'z'));
		FUZZ_CHECK(e->line > last_line);
		last_line = e->line;
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(list->ops.items[j].name, e->name) != 0);
	}
	for (size_t i = 0; i < list->diags.len; i++) {
		const ot_opslist_diag *d = &list->diags.items[i];
		FUZZ_CHECK(d->line >= 1 && d->column >= 1);
		FUZZ_CHECK(!strncmp(d->message, "f.list:", 7));
		/* printed on a terminal: no C0, DEL or (UTF-8) C1 control characters */
		for (const unsigned char *c = (const unsigned char *)d->message; *c; c++)
			FUZZ_CHECK(*c >= 0x20 && *c != 0x7f && !(c[0] == 0xC2 && c[1] < 0xA0));
	}
	if (list->pin)
		FUZZ_CHECK(list->pin_line >= 1 && *list->pin);
	ot_opslist_free(list);
	return 0;
}
