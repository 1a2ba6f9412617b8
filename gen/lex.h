/*
 * lex.h - the "code view" of a source file: what the scanners search.
 *
 * A name in a comment, a string or a disabled `#if 0` block must never be
 * taken for a definition or a call. Rather than teach every pattern about
 * comments, the scanners search a copy of the file in which everything that
 * is not code is replaced by spaces. The copy has exactly the same length and
 * the same newlines, so an offset found in it is an offset in the original
 * file and line numbers need no translation.
 *
 * Blanked in C/C++/CUDA: comments; the contents of string and character
 * literals (the quotes stay, so `f("x")` still reads as a call with an
 * argument), raw strings R"d(...)d" included; preprocessor directive lines
 * with their continuations (so `#define REGISTER_DISPATCH(...)` is not a
 * registration); and everything inside `#if 0` / `#if false` regions (and
 * the `#else` branch of `#if 1`).
 *
 * One exception keeps structure visible: a directive of an #if chain whose
 * condition is unknown here (#ifdef X, #if defined(Y), ...) is blanked but
 * for a 3-character marker where its '#' was: "#if" (if/ifdef/ifndef),
 * "#el" (elif/else) and "#en" (endif). Both branches stay as code; the C++
 * walker uses the markers so that a function header written twice, once per
 * branch, opens one body, not two.
 *
 * Blanked in Python: comments and the contents of all string literals
 * (prefixes r/b/u/f in any combination, single and triple quotes).
 */
#ifndef OT_LEX_H
#define OT_LEX_H

#include <stddef.h>

typedef enum {
	OT_LANG_OTHER = 0,
	OT_LANG_C,      /**< .c .cc .cpp .cxx .h .hpp .cu .cuh .mm .metal */
	OT_LANG_PYTHON, /**< .py .pyi */
	OT_LANG_YAML    /**< .yaml .yml */
} ot_lang;

/** The language of a file, from its name. */
ot_lang ot_lex_lang(const char *path);

/**
 * Write the code view of `text` (`len` bytes) into `out`, which must have
 * room for `len` bytes (it is not NUL-terminated by this function).
 * OT_LANG_OTHER and OT_LANG_YAML are copied unchanged. Never fails; an
 * unterminated comment or string simply runs to the end of the file.
 */
void ot_lex_code_view(char *out, const char *text, size_t len, ot_lang lang);

#endif
