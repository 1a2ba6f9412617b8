/*
 * buf.h - the one growable byte/string buffer used everywhere.
 *
 * `ptr` is always NUL-terminated (an empty buffer points at a static "").
 * Initialise with OT_BUF_INIT; release with ot_buf_free.
 */
#ifndef OT_BUF_H
#define OT_BUF_H

#include "common.h"

typedef struct {
	char *ptr;
	size_t size;  /**< bytes used, not counting the terminating NUL */
	size_t asize; /**< bytes allocated; 0 while ptr is the static "" */
} ot_buf;

extern char ot_buf__empty[];
#define OT_BUF_INIT {ot_buf__empty, 0, 0}

/** Release the memory and reset to empty. */
void ot_buf_free(ot_buf *buf);

/** Make room for `n` more bytes. */
void ot_buf_grow_by(ot_buf *buf, size_t n);

/** Truncate to empty, keeping the allocation. */
void ot_buf_clear(ot_buf *buf);

/** Truncate to `len` bytes (no-op when already shorter). */
void ot_buf_truncate(ot_buf *buf, size_t len);

/** Give back the bytes allocated past the contents (a buffer kept long). */
void ot_buf_shrink(ot_buf *buf);

void ot_buf_put(ot_buf *buf, const char *data, size_t len);
void ot_buf_puts(ot_buf *buf, const char *s);
void ot_buf_putc(ot_buf *buf, char c);
void ot_buf_printf(ot_buf *buf, const char *fmt, ...) OT_PRINTF(2, 3);
void ot_buf_vprintf(ot_buf *buf, const char *fmt, va_list ap);

/** Append a number in decimal (faster than ot_buf_printf's "%lld"). */
void ot_buf_put_int(ot_buf *buf, long long v);

/** Replace the contents with a copy of `s`. */
void ot_buf_sets(ot_buf *buf, const char *s);

/**
 * Hand the heap string to the caller (caller frees) and reset the buffer.
 * Always returns a heap pointer, even for an empty buffer.
 */
char *ot_buf_detach(ot_buf *buf);

/** True when both buffers hold the same bytes. */
bool ot_buf_equal(const ot_buf *a, const ot_buf *b);

#endif
