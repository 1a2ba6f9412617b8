#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char ot_buf__empty[1];

void ot_buf_free(ot_buf *buf)
{
	if (buf->asize)
		free(buf->ptr);
	buf->ptr = ot_buf__empty;
	buf->size = buf->asize = 0;
}

void ot_buf_grow_by(ot_buf *buf, size_t n)
{
	size_t need = buf->size + n + 1, cap;
	if (need <= buf->asize)
		return;
	cap = buf->asize ? buf->asize : 64;
	while (cap < need)
		cap = cap + cap / 2 + 64;
	if (buf->asize) {
		buf->ptr = ot_realloc(buf->ptr, cap);
	} else {
		buf->ptr = ot_malloc(cap);
		buf->ptr[0] = '\0';
	}
	buf->asize = cap;
}

void ot_buf_clear(ot_buf *buf)
{
	ot_buf_truncate(buf, 0);
}

void ot_buf_truncate(ot_buf *buf, size_t len)
{
	if (len >= buf->size)
		return;
	buf->size = len;
	buf->ptr[len] = '\0';
}

void ot_buf_shrink(ot_buf *buf)
{
	char *p;
	if (!buf->asize || buf->asize <= buf->size + 1)
		return;
	p = realloc(buf->ptr, buf->size + 1);
	if (p) {
		buf->ptr = p;
		buf->asize = buf->size + 1;
	}
}

void ot_buf_put(ot_buf *buf, const char *data, size_t len)
{
	if (!len)
		return;
	ot_buf_grow_by(buf, len);
	memmove(buf->ptr + buf->size, data, len);
	buf->size += len;
	buf->ptr[buf->size] = '\0';
}

void ot_buf_puts(ot_buf *buf, const char *s)
{
	ot_buf_put(buf, s, strlen(s));
}

void ot_buf_putc(ot_buf *buf, char c)
{
	ot_buf_grow_by(buf, 1);
	buf->ptr[buf->size++] = c;
	buf->ptr[buf->size] = '\0';
}

void ot_buf_vprintf(ot_buf *buf, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n <= 0)
		return;
	ot_buf_grow_by(buf, (size_t)n);
	vsnprintf(buf->ptr + buf->size, (size_t)n + 1, fmt, ap);
	buf->size += (size_t)n;
}

void ot_buf_printf(ot_buf *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ot_buf_vprintf(buf, fmt, ap);
	va_end(ap);
}

void ot_buf_put_int(ot_buf *buf, long long v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	ot_buf_put(buf, p, (size_t)(tmp + sizeof(tmp) - p));
}

void ot_buf_sets(ot_buf *buf, const char *s)
{
	ot_buf_clear(buf);
	ot_buf_puts(buf, s);
}

char *ot_buf_detach(ot_buf *buf)
{
	char *p;
	if (!buf->asize)
		return ot_strdup("");
	p = buf->ptr;
	buf->ptr = ot_buf__empty;
	buf->size = buf->asize = 0;
	return p;
}

bool ot_buf_equal(const ot_buf *a, const ot_buf *b)
{
	return a->size == b->size && memcmp(a->ptr, b->ptr, a->size) == 0;
}
