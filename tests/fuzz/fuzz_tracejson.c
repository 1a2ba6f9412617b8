/*
 * libFuzzer harness: the trace.json reader of optrace diff
 * (gen/tracejson.c, its own streaming JSON parser), on any bytes.
 */
#include <string.h>

#include "fuzz.h"
#include "tracejson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ot_tj_doc *doc = NULL;

	/* exactly `size` bytes, no terminator: an overread is a finding */
	if (ot_tracejson_read(&doc, (const char *)data, size, "t.json") < 0) {
		FUZZ_CHECK(doc == NULL && *ot_error_last());
		FUZZ_CHECK(!strncmp(ot_error_last(), "t.json", 6));
		return 0;
	}
	FUZZ_CHECK(doc->version && doc->commit);
	for (size_t i = 0; i < doc->ops.len; i++) {
		const ot_tj_op *op = &doc->ops.items[i];
		FUZZ_CHECK(op->input);
		FUZZ_CHECK(op->nsteps == 0 || op->steps);
		FUZZ_CHECK(op->nregistry == 0 || op->registry);
		for (size_t k = 0; k < op->nsteps; k++)
			FUZZ_CHECK((op->steps[k].file != NULL) == op->steps[k].found);
		for (size_t k = 0; k < op->nregistry; k++)
			FUZZ_CHECK(op->registry[k] && op->registry[k]->func);
	}
	ot_tracejson_doc_free(doc);
	return 0;
}
