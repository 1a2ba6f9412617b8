#include "lines.h"

#include <string.h>

uint32_t ot_line_starts(const uint32_t **out, ot_arena *arena, const char *text, size_t len)
{
	OT_VEC(uint32_t) v = {0};
	ot_vec_push(&v, 0);
	for (const char *p = text, *end = text + len; (p = memchr(p, '\n', (size_t)(end - p)));) {
		p++;
		if (p < end)
			ot_vec_push(&v, (uint32_t)(p - text));
	}
	uint32_t n = len ? (uint32_t)v.len : 0;
	*out = OT_ARENA_VEC(arena, &v);
	ot_vec_free(&v);
	return n;
}

uint32_t ot_line_at(const uint32_t *starts, uint32_t n, size_t off)
{
	uint32_t lo = 0, hi = n;
	while (hi - lo > 1) { /* the last line starting at or before off */
		uint32_t mid = (lo + hi) / 2;
		if (starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo + 1;
}
