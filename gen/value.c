#include "value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

static ot_value *new_value(ot_arena *arena, ot_vtype type)
{
	ot_value *v = ot_arena_alloc(arena, sizeof(*v));
	v->type = type;
	return v;
}

ot_value *ot_v_null(ot_arena *arena)
{
	return new_value(arena, OT_V_NULL);
}

ot_value *ot_v_bool(ot_arena *arena, bool b)
{
	ot_value *v = new_value(arena, OT_V_BOOL);
	v->u.b = b;
	return v;
}

ot_value *ot_v_int(ot_arena *arena, long long i)
{
	ot_value *v = new_value(arena, OT_V_INT);
	v->u.i = i;
	return v;
}

ot_value *ot_v_float(ot_arena *arena, double f)
{
	ot_value *v = new_value(arena, OT_V_FLOAT);
	v->u.f = f;
	return v;
}

ot_value *ot_v_strn(ot_arena *arena, const char *s, size_t len)
{
	ot_value *v = new_value(arena, OT_V_STR);
	v->u.str.ptr = ot_arena_strndup(arena, s, len);
	v->u.str.len = len;
	return v;
}

ot_value *ot_v_str(ot_arena *arena, const char *s)
{
	return s ? ot_v_strn(arena, s, strlen(s)) : ot_v_null(arena);
}

ot_value *ot_v_str_borrow(ot_arena *arena, const char *s)
{
	ot_value *v;
	if (!s)
		return ot_v_null(arena);
	v = new_value(arena, OT_V_STR);
	v->u.str.ptr = s;
	v->u.str.len = strlen(s);
	return v;
}

ot_value *ot_v_strf(ot_arena *arena, const char *fmt, ...)
{
	ot_buf b = OT_BUF_INIT;
	ot_value *v;
	va_list ap;
	va_start(ap, fmt);
	ot_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	v = ot_v_strn(arena, b.ptr, b.size);
	ot_buf_free(&b);
	return v;
}

ot_value *ot_v_list(ot_arena *arena)
{
	return new_value(arena, OT_V_LIST);
}

ot_value *ot_v_map(ot_arena *arena)
{
	return new_value(arena, OT_V_MAP);
}

/* Grow an arena-held array by doubling; the old block is simply abandoned. */
static void *arena_grow(ot_arena *arena, void *items, size_t *cap, size_t need, size_t elem)
{
	void *n;
	size_t c;
	if (need <= *cap)
		return items;
	c = *cap ? *cap * 2 : 4;
	while (c < need)
		c *= 2;
	n = ot_arena_alloc(arena, c * elem);
	if (*cap)
		memcpy(n, items, *cap * elem);
	*cap = c;
	return n;
}

ot_value *ot_v_push(ot_arena *arena, ot_value *list, ot_value *item)
{
	list->u.list.items = arena_grow(arena, list->u.list.items, &list->u.list.cap,
					list->u.list.len + 1, sizeof(ot_value *));
	list->u.list.items[list->u.list.len++] = item;
	return item;
}

ot_member *ot_v_append(ot_arena *arena, ot_value *map, const char *key, ot_value *value)
{
	map->u.map.items = arena_grow(arena, map->u.map.items, &map->u.map.cap,
				      map->u.map.len + 1, sizeof(ot_member));
	map->u.map.items[map->u.map.len] = (ot_member){ot_arena_strdup(arena, key), 0, 0, value};
	return &map->u.map.items[map->u.map.len++];
}

ot_value *ot_v_set(ot_arena *arena, ot_value *map, const char *key, ot_value *value)
{
	size_t i;
	for (i = 0; i < map->u.map.len; i++) {
		if (strcmp(map->u.map.items[i].key, key) == 0) {
			map->u.map.items[i].value = value;
			return value;
		}
	}
	ot_v_append(arena, map, key, value);
	return value;
}

void ot_v_set_str(ot_arena *arena, ot_value *map, const char *key, const char *s)
{
	ot_v_set(arena, map, key, ot_v_str(arena, s));
}

void ot_v_set_int(ot_arena *arena, ot_value *map, const char *key, long long i)
{
	ot_v_set(arena, map, key, ot_v_int(arena, i));
}

void ot_v_set_bool(ot_arena *arena, ot_value *map, const char *key, bool b)
{
	ot_v_set(arena, map, key, ot_v_bool(arena, b));
}

const ot_member *ot_v_membern(const ot_value *map, const char *key, size_t len)
{
	size_t i;
	if (!map || map->type != OT_V_MAP)
		return NULL;
	for (i = 0; i < map->u.map.len; i++) {
		const char *k = map->u.map.items[i].key;
		if (strnlen(k, len + 1) == len && !memcmp(k, key, len))
			return &map->u.map.items[i];
	}
	return NULL;
}

const ot_member *ot_v_member(const ot_value *map, const char *key)
{
	return ot_v_membern(map, key, strlen(key));
}

ot_value *ot_v_get(const ot_value *map, const char *key)
{
	const ot_member *m = ot_v_member(map, key);
	return m ? m->value : NULL;
}

const char *ot_v_cstr(const ot_value *v)
{
	return v && v->type == OT_V_STR ? v->u.str.ptr : NULL;
}

size_t ot_v_len(const ot_value *v)
{
	if (!v)
		return 0;
	if (v->type == OT_V_LIST)
		return v->u.list.len;
	if (v->type == OT_V_MAP)
		return v->u.map.len;
	return 0;
}

ot_value *ot_v_at(const ot_value *list, size_t i)
{
	return list->u.list.items[i];
}

bool ot_v_truthy_scalar(const ot_value *v)
{
	const char *s;
	if (!v)
		return false;
	if (v->type == OT_V_BOOL)
		return v->u.b;
	s = ot_v_cstr(v);
	return s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE") ||
		     !strcmp(s, "yes") || !strcmp(s, "Yes"));
}

void ot_v_scalar_text(ot_buf *out, const ot_value *v)
{
	char tmp[64];
	int prec;
	if (!v)
		return;
	switch (v->type) {
	case OT_V_NULL:
	case OT_V_LIST:
	case OT_V_MAP:
		break;
	case OT_V_BOOL:
		ot_buf_puts(out, v->u.b ? "true" : "false");
		break;
	case OT_V_INT:
		ot_buf_printf(out, "%lld", v->u.i);
		break;
	case OT_V_FLOAT:
		/* Shortest precision that reads back as the same double. */
		for (prec = 1; prec <= 17; prec++) {
			snprintf(tmp, sizeof(tmp), "%.*g", prec, v->u.f);
			if (strtod(tmp, NULL) == v->u.f)
				break;
		}
		ot_buf_puts(out, tmp);
		break;
	case OT_V_STR:
		ot_buf_put(out, v->u.str.ptr, v->u.str.len);
		break;
	}
}

void ot_json_escape(ot_buf *out, const char *s, size_t len)
{
	ot_esc_json(out, s, len);
}

static void json_newline(ot_buf *out, int indent, int depth)
{
	if (indent <= 0)
		return;
	ot_buf_putc(out, '\n');
	for (int i = 0; i < indent * depth; i++)
		ot_buf_putc(out, ' ');
}

static void json_write(ot_buf *out, const ot_value *v, int indent, int depth)
{
	size_t i;
	if (!v) {
		ot_buf_puts(out, "null");
		return;
	}
	switch (v->type) {
	case OT_V_NULL:
		ot_buf_puts(out, "null");
		break;
	case OT_V_BOOL:
	case OT_V_INT:
		ot_v_scalar_text(out, v);
		break;
	case OT_V_FLOAT:
		if (isfinite(v->u.f))
			ot_v_scalar_text(out, v);
		else
			ot_buf_puts(out, "null");
		break;
	case OT_V_STR:
		ot_json_escape(out, v->u.str.ptr, v->u.str.len);
		break;
	case OT_V_LIST:
		if (!v->u.list.len) {
			ot_buf_puts(out, "[]");
			break;
		}
		ot_buf_putc(out, '[');
		for (i = 0; i < v->u.list.len; i++) {
			if (i)
				ot_buf_putc(out, ',');
			json_newline(out, indent, depth + 1);
			json_write(out, v->u.list.items[i], indent, depth + 1);
		}
		json_newline(out, indent, depth);
		ot_buf_putc(out, ']');
		break;
	case OT_V_MAP:
		if (!v->u.map.len) {
			ot_buf_puts(out, "{}");
			break;
		}
		ot_buf_putc(out, '{');
		for (i = 0; i < v->u.map.len; i++) {
			const ot_member *m = &v->u.map.items[i];
			if (i)
				ot_buf_putc(out, ',');
			json_newline(out, indent, depth + 1);
			ot_json_escape(out, m->key, strlen(m->key));
			ot_buf_puts(out, indent > 0 ? ": " : ":");
			json_write(out, m->value, indent, depth + 1);
		}
		json_newline(out, indent, depth);
		ot_buf_putc(out, '}');
		break;
	}
}

void ot_v_to_json(ot_buf *out, const ot_value *v, int indent)
{
	json_write(out, v, indent, 0);
	if (indent > 0)
		ot_buf_putc(out, '\n');
}
