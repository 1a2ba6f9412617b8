/*
 * pytok.h - Python source as tokens, string literals kept.
 *
 * The Python scanner (pyscan.c) searches a code view in which strings are
 * blanked; the test databases (testscan.c) need the strings themselves:
 * an OpInfo entry is named by its first string argument. This module cuts
 * a Python file into tokens (names, numbers, strings, operators), each with
 * its byte offset, length and 1-based line, and marks the first token of
 * every logical line (its column is the statement's indentation). Comments
 * and line joins (inside brackets, after a backslash) produce no tokens.
 *
 * Never fails: an unterminated string runs to the end of the file, a stray
 * byte is a one-byte operator token.
 */
#ifndef OT_PYTOK_H
#define OT_PYTOK_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "common.h"

typedef enum {
	OT_TOK_NAME,   /**< an identifier or keyword */
	OT_TOK_NUMBER,
	OT_TOK_STRING, /**< a literal with its prefix and quotes */
	OT_TOK_OP      /**< punctuation: ( ) [ ] { } , : . = += ... one or more bytes */
} ot_tok_kind;

typedef struct {
	uint32_t off;  /**< byte offset in the file */
	uint32_t len;
	uint32_t line; /**< 1-based line of the first byte */
	uint16_t col;  /**< of a `bol` token: its column, the statement's indentation
			    (a tab counts to the next multiple of 8); 0 for others */
	uint8_t kind;  /**< ot_tok_kind */
	bool bol;      /**< the first token of a logical line */
} ot_tok;

typedef struct {
	const char *text; /**< the file (borrowed) */
	const ot_tok *toks;
	uint32_t n;
	uint32_t cap;     /**< tokens allocated */
} ot_toks;

/**
 * Tokenize `text` (`len` bytes), which must outlive the result. The caller
 * frees the token array with ot_toks_free.
 */
void ot_pytok_run(ot_toks *out, const char *text, size_t len);

/**
 * Tokenize `text` from offset `off` (a line start; `line` is its number)
 * and append the tokens to `out` (zero-initialised, or earlier results of
 * this function or ot_pytok_run on the same text); its first token is a
 * `bol` one. With `one`, stop after the first logical line that holds a
 * token (a statement and its bracketed continuation lines). Returns the
 * offset where tokenizing stopped.
 */
size_t ot_pytok_append(ot_toks *out, const char *text, size_t len, size_t off, uint32_t line,
		       bool one);

/** Free the token array of `t` (NULL is a no-op). */
void ot_toks_free(ot_toks *t);

/** Does token `i` (in range) have exactly the text `s`? */
static inline bool ot_tok_is(const ot_toks *t, uint32_t i, const char *s)
{
	size_t n = __builtin_strlen(s);
	return i < t->n && t->toks[i].len == n && !__builtin_memcmp(t->text + t->toks[i].off, s, n);
}

/**
 * The index of the bracket closing the one opened at token `open` ('(', '['
 * or '{'), or t->n when the file ends first.
 */
uint32_t ot_tok_close(const ot_toks *t, uint32_t open);

/**
 * The value of the string literal(s) starting at token `i`, with adjacent
 * literals joined ("a" "b" is "ab"), into `out` (replaced). False when `i`
 * is not a string, or any part is an f-string or holds a backslash escape
 * (its value is then not written out here). `*next` (may be NULL) gets the
 * index after the last literal.
 */
bool ot_tok_string(const ot_toks *t, uint32_t i, ot_buf *out, uint32_t *next);

#endif
