#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- errors ------------------------------------------------------------ */

static _Thread_local char error_message[2048];

static void error_vset(const char *fmt, va_list ap)
{
	vsnprintf(error_message, sizeof(error_message), fmt, ap);
}

int ot_error_set(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(fmt, ap);
	va_end(ap);
	return OT_ERROR;
}

int ot_error_at(const char *name, int line, int col, const char *fmt, ...)
{
	va_list ap;
	int n = line > 0 ? snprintf(error_message, sizeof(error_message), "%s:%d:%d: ", name, line, col)
			 : snprintf(error_message, sizeof(error_message), "%s: ", name);
	size_t used = n < 0 ? 0 : (size_t)n < sizeof(error_message) ? (size_t)n : sizeof(error_message) - 1;
	va_start(ap, fmt);
	vsnprintf(error_message + used, sizeof(error_message) - used, fmt, ap);
	va_end(ap);
	return OT_ERROR;
}

int ot_error_setc(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(fmt, ap);
	va_end(ap);
	return code;
}

int ot_error_wrap(const char *fmt, ...)
{
	char old[sizeof(error_message)];
	size_t n;
	int written;
	va_list ap;

	memcpy(old, error_message, sizeof(old));
	va_start(ap, fmt);
	written = vsnprintf(error_message, sizeof(error_message), fmt, ap);
	va_end(ap);
	n = written < 0 ? 0 : (size_t)written;
	if (n >= sizeof(error_message) - 1 || !old[0])
		return OT_ERROR;
	/* Append ": " and the old message, truncating at the buffer's end. */
	n += (size_t)snprintf(error_message + n, sizeof(error_message) - n, ": ");
	if (n < sizeof(error_message) - 1) {
		size_t room = sizeof(error_message) - 1 - n, len = strlen(old);
		memcpy(error_message + n, old, len < room ? len : room);
		error_message[n + (len < room ? len : room)] = '\0';
	}
	return OT_ERROR;
}

const char *ot_error_last(void)
{
	return error_message;
}

/* ---- allocation ---------------------------------------------------------- */

static void out_of_memory(void)
{
	fputs("optrace: out of memory\n", stderr);
	abort();
}

void *ot_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *ot_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *ot_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory();
	return q;
}

char *ot_strndup(const char *s, size_t n)
{
	char *p = ot_malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *ot_strdup(const char *s)
{
	return ot_strndup(s, strlen(s));
}

void ot_grow(void **items, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	if (need <= *cap)
		return;
	n = *cap ? *cap : 8;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			out_of_memory();
		n *= 2;
	}
	*items = ot_realloc(*items, n * elem);
	*cap = n;
}

/* ---- arenas -------------------------------------------------------------- */

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	max_align_t data[];
};

struct ot_arena {
	struct arena_chunk *head;
};

#define ARENA_CHUNK (256 * 1024)
#define ARENA_FIRST (8 * 1024)

ot_arena *ot_arena_new(void)
{
	return ot_calloc(1, sizeof(ot_arena));
}

void ot_arena_free(ot_arena *arena)
{
	struct arena_chunk *c, *next;
	if (!arena)
		return;
	for (c = arena->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(arena);
}

/* Arena memory, not zeroed. */
static void *arena_alloc_raw(ot_arena *arena, size_t n)
{
	const size_t align = sizeof(max_align_t);
	struct arena_chunk *c = arena->head;
	void *p;

	n = (n + align - 1) / align * align;
	if (!c || c->size - c->used < n) {
		/* Chunks double from ARENA_FIRST up to ARENA_CHUNK: a small
		 * arena (one op's trace) does not hold a quarter megabyte. */
		size_t size = c ? 2 * c->size : ARENA_FIRST;
		if (size > ARENA_CHUNK)
			size = ARENA_CHUNK;
		while (size < n)
			size *= 2;
		if (n > ARENA_CHUNK / 4)
			size = n;
		c = ot_malloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		/* A big one-off block goes behind the current chunk so the
		 * current chunk's free space is not wasted. */
		if (arena->head && n > ARENA_CHUNK / 4) {
			c->next = arena->head->next;
			arena->head->next = c;
		} else {
			c->next = arena->head;
			arena->head = c;
		}
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

void *ot_arena_alloc(ot_arena *arena, size_t n)
{
	void *p = arena_alloc_raw(arena, n);
	memset(p, 0, n);
	return p;
}

char *ot_arena_strndup(ot_arena *arena, const char *s, size_t n)
{
	char *p = arena_alloc_raw(arena, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void *ot_arena_memdup(ot_arena *arena, const void *items, size_t n, size_t size)
{
	void *p;
	if (!n)
		return NULL;
	p = arena_alloc_raw(arena, n * size);
	memcpy(p, items, n * size);
	return p;
}

char *ot_arena_strdup(ot_arena *arena, const char *s)
{
	return ot_arena_strndup(arena, s, strlen(s));
}

char *ot_arena_printf(ot_arena *arena, const char *fmt, ...)
{
	va_list ap, ap2;
	int n;
	char *p;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	p = ot_arena_alloc(arena, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

/* ---- string maps ----------------------------------------------------------- */

struct map_entry {
	const char *key;
	size_t keylen;
	void *value;
};

struct ot_map {
	struct map_entry *entries; /* insertion order */
	size_t len, cap;
	uint32_t *slots; /* open addressing: entry index + 1, 0 = empty */
	size_t nslots;
};

uint64_t ot_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

ot_map *ot_map_new(void)
{
	return ot_calloc(1, sizeof(ot_map));
}

void ot_map_free(ot_map *map)
{
	if (!map)
		return;
	free(map->entries);
	free(map->slots);
	free(map);
}

static size_t map_find_slot(const ot_map *map, const char *key, size_t len)
{
	size_t mask = map->nslots - 1;
	size_t i = (size_t)ot_hash(key, len) & mask;
	for (;;) {
		uint32_t s = map->slots[i];
		if (!s)
			return i;
		const struct map_entry *e = &map->entries[s - 1];
		if (e->keylen == len && memcmp(e->key, key, len) == 0)
			return i;
		i = (i + 1) & mask;
	}
}

static void map_rehash(ot_map *map, size_t nslots)
{
	size_t i;
	free(map->slots);
	map->slots = ot_calloc(nslots, sizeof(uint32_t));
	map->nslots = nslots;
	for (i = 0; i < map->len; i++) {
		size_t s = map_find_slot(map, map->entries[i].key, map->entries[i].keylen);
		map->slots[s] = (uint32_t)(i + 1);
	}
}

void *ot_map_getn(const ot_map *map, const char *key, size_t len)
{
	uint32_t s;
	if (!map->nslots)
		return NULL;
	s = map->slots[map_find_slot(map, key, len)];
	return s ? map->entries[s - 1].value : NULL;
}

void *ot_map_get(const ot_map *map, const char *key)
{
	return ot_map_getn(map, key, strlen(key));
}

void *ot_map_put(ot_map *map, const char *key, void *value)
{
	size_t len = strlen(key), slot;
	uint32_t s;

	if ((map->len + 1) * 2 > map->nslots)
		map_rehash(map, map->nslots ? map->nslots * 2 : 16);
	slot = map_find_slot(map, key, len);
	s = map->slots[slot];
	if (s) {
		void *old = map->entries[s - 1].value;
		map->entries[s - 1].value = value;
		return old;
	}
	ot_grow((void **)&map->entries, &map->cap, map->len + 1, sizeof(*map->entries));
	map->entries[map->len] = (struct map_entry){key, len, value};
	map->len++;
	map->slots[slot] = (uint32_t)map->len;
	return NULL;
}

size_t ot_map_len(const ot_map *map)
{
	return map->len;
}

const char *ot_map_key_at(const ot_map *map, size_t i)
{
	return map->entries[i].key;
}

void *ot_map_value_at(const ot_map *map, size_t i)
{
	return map->entries[i].value;
}

bool ot_is_identifier(const char *s)
{
	if (!ot_is_ident_start(*s))
		return false;
	for (s++; *s; s++)
		if (!ot_is_ident_char(*s))
			return false;
	return true;
}

/* ---- UTF-8 ----------------------------------------------------------------- */

size_t ot_utf8_len(const char *str, size_t left)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];
	size_t n, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

/* ---- time ----------------------------------------------------------------- */

double ot_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- small string helpers ---------------------------------------------------- */

bool ot_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool ot_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool ot_path_nvcc_only(const char *path)
{
	return ot_ends_with(path, ".cu") || ot_ends_with(path, ".cuh");
}

int ot_strptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}
