/*
 * udiff.h - a unified diff (git diff, diff -u) as the lines it changes on
 * its old side.
 *
 * For each file: its old and new paths (the a/ and b/ prefixes of git
 * dropped; NULL for /dev/null: a new or a deleted file), whether git says
 * it was renamed, created or deleted or is binary, and the changed places
 * of the OLD side, in order:
 *
 *  - a run of removed lines (`-`), lines lo..hi of the old file, with or
 *    without added lines in their place;
 *  - an insertion (`+` lines with no `-` line between two context lines):
 *    between old lines lo and lo + 1 (lo = 0: before the first line), with
 *    hi = lo and `insert` set.
 *
 * Accepted: `diff --git a/x b/y` headers with their extended lines (index,
 * old/new mode, new file mode, deleted file mode, similarity index,
 * rename from/to, copy from/to), `--- a/x` / `+++ b/y` (with a tab and a
 * date after the name, as diff -u writes), quoted names with C escapes
 * ("a/with space"), `@@ -l[,n] +l[,n] @@ context` hunks (n omitted is 1,
 * n = 0 is an empty side), `\ No newline at end of file`, and "Binary
 * files a/x and b/y differ" (the whole old file changed). Text before the
 * first header (a commit message) is skipped.
 */
#ifndef OT_UDIFF_H
#define OT_UDIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"

typedef struct {
	uint32_t lo, hi; /**< old lines lo..hi (1-based); an insertion: after lo, hi == lo */
	bool insert;
} ot_udiff_change;

typedef struct {
	const char *old_path;  /**< NULL: the file is new */
	const char *new_path;  /**< NULL: the file was deleted */
	bool renamed, binary;
	const ot_udiff_change *changes;
	size_t nchanges;
	bool whole;            /**< every old line changed (deleted or binary file) */
	uint32_t line;         /**< the diff's line where the file's header starts */
} ot_udiff_file;

typedef struct {
	ot_arena *arena;
	ot_udiff_file *files;
	size_t nfiles;
} ot_udiff;

/**
 * Parse `len` bytes of `text` (`name` names it in messages). Errors name
 * the place ("x.diff:12: hunk header '@@ -a +b @@' is not -l,n +l,n"): a
 * malformed hunk header, a hunk before any file header, more lines in a
 * hunk than its header counts, a file header without its `+++` line.
 * Caller frees with ot_udiff_free.
 */
int ot_udiff_parse(ot_udiff **out, const char *text, size_t len, const char *name);

void ot_udiff_free(ot_udiff *d);

#endif
