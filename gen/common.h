/*
 * common.h - error reporting, allocation, arenas, vectors and string maps
 * shared by every optrace module.
 *
 * Conventions (see ../shared/STYLE.md):
 *  - Fallible functions return int: 0 on success, a negative value on error,
 *    with a human-readable message in a thread-local slot (ot_error_last()).
 *  - Allocation never returns NULL: on exhaustion the process prints
 *    "optrace: out of memory" and aborts, as cmark's default allocator does.
 *    That keeps every caller free of checks that could never be tested.
 */
#ifndef OT_COMMON_H
#define OT_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define OT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define OT_UNUSED __attribute__((unused))
#else
#define OT_PRINTF(a, b)
#define OT_UNUSED
#endif

#define OT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/** optrace's own version, printed by --version and recorded in trace.json. */
#define OPTRACE_VERSION "0.1.0"

/* ---- errors ------------------------------------------------------------ */

/** Error codes; every failure is negative. */
enum {
	OT_OK = 0,
	OT_ERROR = -1,    /**< generic failure, message in ot_error_last() */
	OT_ENOTFOUND = -2 /**< the thing asked for does not exist */
};

/**
 * Set this thread's error message (printf-style) and return OT_ERROR so
 * callers can write `return ot_error_set(...)`.
 */
int ot_error_set(const char *fmt, ...) OT_PRINTF(1, 2);

/**
 * Set the message of an error at a place of a named input:
 * "NAME:LINE:COL: reason" ("NAME: reason" when `line` <= 0). Returns OT_ERROR.
 */
int ot_error_at(const char *name, int line, int col, const char *fmt, ...) OT_PRINTF(4, 5);

/** Same as ot_error_set but returns `code`. */
int ot_error_setc(int code, const char *fmt, ...) OT_PRINTF(2, 3);

/**
 * Prefix the current message with `fmt` + ": " (adds context on the way up,
 * e.g. a file name). Returns OT_ERROR.
 */
int ot_error_wrap(const char *fmt, ...) OT_PRINTF(1, 2);

/** This thread's last error message; "" when none. Borrowed. */
const char *ot_error_last(void);

/* ---- allocation ---------------------------------------------------------- */

/** malloc/calloc/realloc/strdup that abort on exhaustion. Caller frees. */
void *ot_malloc(size_t n);
void *ot_calloc(size_t count, size_t size);
void *ot_realloc(void *p, size_t n);
char *ot_strdup(const char *s);
char *ot_strndup(const char *s, size_t n);

/**
 * Grow an array `*items` (element size `elem`) so it can hold `need`
 * elements; `*cap` is updated. Used by OT_VEC.
 */
void ot_grow(void **items, size_t *cap, size_t need, size_t elem);

/* ---- vectors ------------------------------------------------------------- */

/** A growable array of T. Zero-initialise; free `items` with free(). */
#define OT_VEC(T)                                                              \
	struct {                                                               \
		T *items;                                                      \
		size_t len, cap;                                               \
	}

#define ot_vec_push(vec, value)                                                \
	(ot_grow((void **)&(vec)->items, &(vec)->cap, (vec)->len + 1,           \
		 sizeof(*(vec)->items)),                                       \
	 (vec)->items[(vec)->len++] = (value))

#define ot_vec_free(vec)                                                       \
	do {                                                                   \
		free((vec)->items);                                            \
		(vec)->items = NULL;                                           \
		(vec)->len = (vec)->cap = 0;                                   \
	} while (0)

/* ---- arenas -------------------------------------------------------------- */

/**
 * A bump allocator: many small allocations, freed all at once. Not
 * thread-safe; give each thread its own arena.
 */
typedef struct ot_arena ot_arena;

/** New empty arena. Caller frees with ot_arena_free. */
ot_arena *ot_arena_new(void);

/** Free the arena and everything allocated from it. NULL is a no-op. */
void ot_arena_free(ot_arena *arena);

/** Zeroed memory owned by the arena, aligned for any type. */
void *ot_arena_alloc(ot_arena *arena, size_t n);

/** Copies of strings owned by the arena (always NUL-terminated). */
char *ot_arena_strdup(ot_arena *arena, const char *s);
char *ot_arena_strndup(ot_arena *arena, const char *s, size_t n);
char *ot_arena_printf(ot_arena *arena, const char *fmt, ...) OT_PRINTF(2, 3);

/** A copy of `n` items of `size` bytes owned by the arena; NULL when n is 0. */
void *ot_arena_memdup(ot_arena *arena, const void *items, size_t n, size_t size);

/** A copy of an OT_VEC's items owned by the arena (NULL when empty). */
#define OT_ARENA_VEC(arena, vec)                                               \
	ot_arena_memdup((arena), (vec)->items, (vec)->len, sizeof(*(vec)->items))

/* ---- string maps ----------------------------------------------------------- */

/**
 * A hash map from NUL-terminated strings to pointers. Keys are borrowed:
 * they must outlive the map (typically they live in an arena). Iteration
 * order is insertion order, so output built from a map is deterministic.
 */
typedef struct ot_map ot_map;

/** New empty map. Caller frees with ot_map_free. */
ot_map *ot_map_new(void);

/** Free the map (not the keys or values). NULL is a no-op. */
void ot_map_free(ot_map *map);

/** The value stored under `key`, or NULL. */
void *ot_map_get(const ot_map *map, const char *key);

/** Same, with a key that need not be NUL-terminated. */
void *ot_map_getn(const ot_map *map, const char *key, size_t len);

/**
 * Store `value` under `key`, replacing any earlier value (the key keeps its
 * original insertion position). Returns the previous value or NULL.
 */
void *ot_map_put(ot_map *map, const char *key, void *value);

/** Number of keys. */
size_t ot_map_len(const ot_map *map);

/** The i-th key / value in insertion order (0 <= i < ot_map_len). */
const char *ot_map_key_at(const ot_map *map, size_t i);
void *ot_map_value_at(const ot_map *map, size_t i);

/** FNV-1a hash of `len` bytes (shared by the map and the index). */
uint64_t ot_hash(const char *s, size_t len);

/* ---- UTF-8 ----------------------------------------------------------------- */

/**
 * Bytes of the well-formed UTF-8 sequence at `s` (`left` > 0 bytes there),
 * or 0: overlong forms, UTF-16 surrogates and code points past U+10FFFF
 * are not well-formed.
 */
size_t ot_utf8_len(const char *s, size_t left);

/* ---- time ----------------------------------------------------------------- */

/** Seconds on a monotonic clock (for timings and timeouts). */
double ot_clock(void);

/* ---- small string helpers ---------------------------------------------------- */

bool ot_starts_with(const char *s, const char *prefix);
bool ot_ends_with(const char *s, const char *suffix);

/** A source file only nvcc compiles (.cu, .cuh): host C++ never sees it. */
bool ot_path_nvcc_only(const char *path);

/** C and Python identifiers, ASCII: [A-Za-z_][A-Za-z0-9_]*. */
static inline bool ot_is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool ot_is_ident_char(char c)
{
	return ot_is_ident_start(c) || (c >= '0' && c <= '9');
}

/** Is all of `s` one identifier? */
bool ot_is_identifier(const char *s);

/** qsort comparator for an array of `const char *`, byte order (C locale). */
int ot_strptr_cmp(const void *a, const void *b);

#endif
