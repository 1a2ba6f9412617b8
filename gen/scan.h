/*
 * scan.h - the scanners: one C/C++/CUDA or Python file's code view in,
 * its records (records.h) out. Used by the index, the tests and the fuzzers.
 */
#ifndef OT_SCAN_H
#define OT_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "records.h"

/**
 * Scan a C/C++/CUDA file. `code` is its code view (ot_lex_code_view), `text`
 * the original (both `len` bytes, with the same newlines), `lines` their
 * line table (ot_line_starts, `nlines` lines). Records get file id `file`;
 * strings and call arrays are allocated in `arena`. Never fails.
 */
void ot_scan_c(ot_scan_result *out, ot_arena *arena, const char *code, const char *text,
	       size_t len, const uint32_t *lines, uint32_t nlines, uint32_t file);

/** Same for a Python file; `path` selects file-specific anchors (docs files). */
void ot_scan_python(ot_scan_result *out, ot_arena *arena, const char *code, const char *text,
		    size_t len, uint32_t file, const char *path);

/**
 * Is offset `i` of a Python code view (`len` bytes) a binary arithmetic
 * operator: one of + - * / @ with an operand before it (a name, a number,
 * a closing bracket) and one after, not part of ** // -> or an augmented
 * assignment? The scanner records each as a call ref named by the
 * operator; pyflow.h finds them again by the same rule.
 */
bool ot_scan_py_binary_operator(const char *code, size_t len, size_t i);

/**
 * Is offset `i` of a Python code view a unary minus of a name or a bracket
 * (`(-input)`, `return -x`, `= -y`)? Recorded as a call ref "-" like the
 * binary one; pyflow.h tells them apart by the same rules.
 */
bool ot_scan_py_unary_minus(const char *code, size_t len, size_t i);

/**
 * Is offset `i` of a Python code view a subscript's '[' (x[0], f(a)[1:],
 * y[i][j]): an operand before it, not a list display ([a, b], `in [...]`)?
 * The scanner records each as a call ref named "["; pyflow.h finds them
 * again by the same rule.
 */
bool ot_scan_py_subscript(const char *code, size_t i);

/** Release the vectors of a scan result (not the arena data). */
void ot_scan_result_free(ot_scan_result *r);

/** "pcre2 X.Y", for --version. Borrowed. */
const char *ot_scan_library_version(void);

#endif
