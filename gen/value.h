/*
 * value.h - a small JSON-like value tree (null, bool, int, float, string,
 * list, map) living in an arena.
 *
 * It is the one data model that flows between modules that exchange
 * documents: the YAML reader produces it (with source line/column marks),
 * the template engine renders it, and the JSON writer serialises it. Maps keep
 * insertion order, so anything built from a tree is deterministic.
 */
#ifndef OT_VALUE_H
#define OT_VALUE_H

#include "buf.h"
#include "common.h"

typedef enum {
	OT_V_NULL,
	OT_V_BOOL,
	OT_V_INT,
	OT_V_FLOAT,
	OT_V_STR,
	OT_V_LIST,
	OT_V_MAP
} ot_vtype;

typedef struct ot_value ot_value;

/** One key of a map, with the source mark of the key itself. */
typedef struct {
	const char *key;
	int line, col; /**< 1-based mark of the key in its file; 0 if built */
	ot_value *value;
} ot_member;

struct ot_value {
	ot_vtype type;
	int line, col; /**< 1-based mark in the source file; 0 if built */
	bool plain;    /**< a YAML scalar written without quotes */
	const char *text; /**< a YAML scalar's text as written, or NULL */
	union {
		bool b;
		long long i;
		double f;
		struct {
			const char *ptr;
			size_t len;
		} str;
		struct {
			ot_value **items;
			size_t len, cap;
		} list;
		struct {
			ot_member *items;
			size_t len, cap;
		} map;
	} u;
};

/* Constructors: the value (and copies of strings) live in `arena`. */
ot_value *ot_v_null(ot_arena *arena);
ot_value *ot_v_bool(ot_arena *arena, bool b);
ot_value *ot_v_int(ot_arena *arena, long long i);
ot_value *ot_v_float(ot_arena *arena, double f);
ot_value *ot_v_str(ot_arena *arena, const char *s);                /* NULL -> null */
ot_value *ot_v_strn(ot_arena *arena, const char *s, size_t len);
ot_value *ot_v_strf(ot_arena *arena, const char *fmt, ...) OT_PRINTF(2, 3);
/** A string that borrows `s` (must outlive the tree); no copy. */
ot_value *ot_v_str_borrow(ot_arena *arena, const char *s);
ot_value *ot_v_list(ot_arena *arena);
ot_value *ot_v_map(ot_arena *arena);

/** Append `item` to a list. Returns `item`. */
ot_value *ot_v_push(ot_arena *arena, ot_value *list, ot_value *item);

/**
 * Add member `key` (copied) at the end of `map` without looking for it: for
 * a caller that knows the key is new (a parser that checks for duplicates
 * its own way, in constant time). Returns the member (valid until the next
 * addition).
 */
ot_member *ot_v_append(ot_arena *arena, ot_value *map, const char *key, ot_value *value);

/**
 * Set `key` in a map (a copy of the key is kept). Replaces an existing
 * value for the same key. Returns `value`.
 */
ot_value *ot_v_set(ot_arena *arena, ot_value *map, const char *key, ot_value *value);

/* Shorthands for building maps. */
void ot_v_set_str(ot_arena *arena, ot_value *map, const char *key, const char *s);
void ot_v_set_int(ot_arena *arena, ot_value *map, const char *key, long long i);
void ot_v_set_bool(ot_arena *arena, ot_value *map, const char *key, bool b);

/** The value of `key` in a map, or NULL (also when `map` is not a map). */
ot_value *ot_v_get(const ot_value *map, const char *key);

/** The member record of `key` (for its mark), or NULL. */
const ot_member *ot_v_member(const ot_value *map, const char *key);

/** The same for a key given as `len` bytes (not NUL-terminated). */
const ot_member *ot_v_membern(const ot_value *map, const char *key, size_t len);

/** A string's bytes (NUL-terminated), or NULL when not a string. */
const char *ot_v_cstr(const ot_value *v);

/** Length of a list or map, 0 otherwise. */
size_t ot_v_len(const ot_value *v);

/** i-th item of a list. */
ot_value *ot_v_at(const ot_value *list, size_t i);

/**
 * Interpret a scalar as a boolean the way YAML 1.1 / JSON do
 * (true/True/TRUE/yes -> true). Returns false for anything else.
 */
bool ot_v_truthy_scalar(const ot_value *v);

/** Format a scalar as text (used by templates): ints in decimal, floats in
 * shortest round-trip form, bools as true/false, null as "". */
void ot_v_scalar_text(ot_buf *out, const ot_value *v);

/**
 * Serialise as JSON. `indent` > 0 pretty-prints with that many spaces per
 * level and a trailing newline; 0 writes one compact line. Keys keep their
 * insertion order; strings are written by ot_json_escape.
 */
void ot_v_to_json(ot_buf *out, const ot_value *v, int indent);

/** Append `s` (len bytes) as a JSON string literal with quotes: escape.h's
 * ot_esc_json (controls escaped, invalid UTF-8 as U+FFFD). */
void ot_json_escape(ot_buf *out, const char *s, size_t len);

#endif
