/*
 * lines.h - line tables: where each line of a text starts, and which line
 * holds a byte offset. Shared by the index and the scanners.
 */
#ifndef OT_LINES_H
#define OT_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

/**
 * The line table of `text` (`len` bytes): the offset where each line
 * starts (0, then one past every newline that is not the last byte), in
 * `arena`. Returns the number of lines, 0 for an empty text (whose table
 * still holds the 0).
 */
uint32_t ot_line_starts(const uint32_t **out, ot_arena *arena, const char *text, size_t len);

/** The 1-based line holding byte `off`, from a table of `n` line starts. */
uint32_t ot_line_at(const uint32_t *starts, uint32_t n, size_t off);

#endif
