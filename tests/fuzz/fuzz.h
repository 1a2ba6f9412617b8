/*
 * fuzz.h - shared by the libFuzzer harnesses in this folder.
 *
 * Each harness defines LLVMFuzzerTestOneInput. The same sources are also
 * compiled into tests/check_fuzz.c's binary (with gcc, no libFuzzer), which
 * renames the entry point per harness and replays tests/fuzz/crashes/.
 */
#ifndef OT_FUZZ_H
#define OT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A broken invariant is a finding: abort, so libFuzzer keeps the input. */
#define FUZZ_CHECK(cond)                                                                     \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, \
				#cond);                                                      \
			abort();                                                             \
		}                                                                            \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
