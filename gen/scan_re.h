/*
 * scan_re.h - pcre2 helpers shared by the scanners (cscan.c, pyscan.c).
 *
 * Internal to the scanners: pcre2 is used nowhere else.
 */
#ifndef OT_SCAN_RE_H
#define OT_SCAN_RE_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/**
 * Compile `pattern` (UTF-less, multiline) and JIT it. Patterns are
 * constants of this program: a compile error is a bug, so it aborts with
 * the pattern and pcre2's message.
 */
pcre2_code *ot_scan_compile(const char *pattern, int *err, PCRE2_SIZE *off);

/**
 * Find the next match of `re` in `subject` at or after `start`, with JIT
 * when available. Returns pcre2's result (> 0 on a match).
 */
int ot_scan_match(const pcre2_code *re, const char *subject, size_t len, size_t start,
		  pcre2_match_data *md);

/**
 * Copy `n` bytes of a (qualified or dotted) name into the arena, dropping
 * the blanks a chain may contain ("at :: native" -> "at::native").
 */
struct ot_arena;
const char *ot_scan_copy_name(struct ot_arena *arena, const char *s, size_t n);
/* A qualifier as written (Foo<T, 2>::bar, at :: native), its template
 * arguments and blanks left out: "Foo::bar", "at::native". */
const char *ot_scan_copy_qual(struct ot_arena *arena, const char *s, size_t n);

#endif
