/*
 * body.h - a definition's code as a fingerprint, so that two releases can
 * tell whether a function's implementation changed without holding its
 * text (optrace diff reads trace.json files).
 *
 * The code is the definition from the line of its name to its last line,
 * read as tokens: comments, blank lines and blanks left out (a blank
 * counts only between two words: `a+b` is `a + b`, and code wrapped
 * differently is the same code; a trailing comma before a closing bracket
 * is none); string literals kept as written (Python's in one kind of
 * quotes), but for Python's triple-quoted strings (docstrings); what the
 * code view leaves of preprocessor directives left out; for Python, the
 * indentation of each statement kept (relative to the def's), as it is
 * the block structure.
 *
 * That code is cut into statements: in C++, after each `;`, `{` and `}`
 * (`if (x) {` is one, `return y;` another); in Python, at the end of a
 * line outside brackets. Counting statements, not lines of the file, a
 * call wrapped on three lines is one statement, so a reformatted function
 * that also changed counts what changed.
 *
 * A fingerprint is 8 lowercase hex digits of a hash of the code, then 8
 * of each statement: two bodies are the same code when their first 8
 * digits are equal, and comparing the rest statement by statement counts
 * the statements added and removed.
 */
#ifndef OT_BODY_H
#define OT_BODY_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "index.h"

/** Characters of one hash in a fingerprint (the code's, or a statement's). */
#define OT_BODY_HASH_CHARS 8

/**
 * The fingerprint of the definition written at `line` of `path` (a C++,
 * CUDA or Python function: a function body, a TORCH_IMPL_FUNC or meta
 * function, a Python def or module-level assignment; not a Python class,
 * whose methods are definitions of their own, nor one a macro generates),
 * in `a`; NULL when no such definition starts there.
 */
const char *ot_body_fingerprint(ot_arena *a, const ot_index *ix, const char *path, uint32_t line);

/**
 * The fingerprints of one index's definitions, each made once and shared by
 * the threads that ask (an op's main path shares most of its functions
 * with other ops': empty_strided_cpu is on 30 of ops.list's).
 */
typedef struct ot_bodies ot_bodies;

ot_bodies *ot_bodies_new(const ot_index *ix);
void ot_bodies_free(ot_bodies *b);

/** ot_body_fingerprint of (`path`, `line`), made on first use; borrowed
 * from `b` until ot_bodies_free. Thread-safe. */
const char *ot_bodies_get(ot_bodies *b, const char *path, uint32_t line);

/** Are the fingerprints the same code (NULL only equals NULL)? */
bool ot_body_same(const char *old, const char *new);

/**
 * Statements of fingerprint `new` that `old` does not have (*added) and
 * the reverse (*removed), by the shortest edit between the two statement
 * sequences. NULL is an empty body.
 */
void ot_body_compare(const char *old, const char *new, uint32_t *added, uint32_t *removed);

#endif
