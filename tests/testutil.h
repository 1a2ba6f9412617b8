/*
 * testutil.h - helpers shared by the Check suites (tests/check_*.c).
 *
 * Suites run with the repository root as the working directory
 * (tests/run-all.sh does that).
 */
#ifndef OT_TESTUTIL_H
#define OT_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "value.h"

/**
 * A fresh empty directory for this test (named after `tag` and the process
 * id) in the suite's scratch folder: $OT_TEST_SCRATCH, which
 * tests/run-all.sh sets to tests/tmp/<suite> and removes when the suite
 * passes (a failed suite's folder is kept for inspection), else tests/tmp.
 * Caller frees the string.
 */
char *tu_tmpdir(const char *tag);

/**
 * The fixture repository, built from the snapshot folders listed in
 * tests/fixture/releases (one "TAG FOLDER [annotated]" per line, oldest
 * first): each folder is committed in order through libgit2 and tagged
 * (an annotated tag when the line says so). It is built into a temporary
 * folder and renamed to tests/tmp/fixture-repo-<hash of the fixture files>,
 * so every suite (and every forked test) shares one build and a changed
 * fixture gets a new repository. The work tree is checked out at the first
 * release. Returns the path (borrowed). Aborts the test on failure.
 */
const char *tu_fixture_repo(void);

/**
 * Path of the real PyTorch checkout made by ci/fetch-pytorch-source.sh
 * (environment variable OPTRACE_SOURCE, set by `make test`). Aborts the
 * test with a clear message when unset: real-release tests are never
 * silently skipped.
 */
const char *tu_real_source(void);

/** Path of the optrace binary (environment OPTRACE, default build/optrace). */
const char *tu_optrace(void);

/** "DIR/REL" in a new string; caller frees. */
char *tu_path(const char *dir, const char *rel);

/** The absolute, resolved path of an existing file; aborts the test otherwise. */
char *tu_absolute(const char *path);

/** Read a whole file (NUL-terminated); aborts the test when unreadable. */
char *tu_read_file(const char *path, size_t *len);

/** Write a file (creating nothing else); aborts the test on failure. */
void tu_write_file(const char *path, const char *data, size_t len);

/**
 * Run `argv` (argv[0] is looked up in PATH unless it contains '/'), with
 * stdin from /dev/null, capturing stdout and stderr (either may be NULL to
 * discard). Returns the exit status, or 128+signal when killed.
 */
int tu_run(const char *const *argv, ot_buf *out, ot_buf *err);

/**
 * Run the real binary on the real checkout at `release`, JSON only, into
 * `out_dir`, with `extra` arguments (NULL-terminated: an ops list,
 * "--all", ...); status 0 or 1 (written, something not found somewhere)
 * is required. Returns trace.json's root, owned by `arena`; `seconds`
 * (may be NULL) gets the time optrace took.
 */
ot_value *tu_run_trace(ot_arena *arena, const char *out_dir, const char *release,
		       const char *const *extra, double *seconds);

/**
 * `git -C REPO show TAG:PATH` into `out` (cleared first): true when git
 * showed the file, false when it has no such file at that tag.
 */
bool tu_git_show(ot_buf *out, const char *repo, const char *tag, const char *path);

/**
 * Lines `line` .. `line + count - 1` (1-based) of `path` at `tag` of `repo`,
 * joined with newlines, read with `git show` (files are kept for the rest
 * of the process). NULL when git has no such file or it has fewer lines
 * than `line`. Caller frees.
 */
char *tu_git_lines(const char *repo, const char *tag, const char *path, int line, int count);

/** Lines `line` .. `line + count - 1` (1-based) of `text`, joined with
 * newlines; NULL when it has fewer lines than `line`. Caller frees. */
char *tu_text_lines(const char *text, int line, int count);

/** The text of 1-based `line` of a file (without newline); caller frees. */
char *tu_file_line(const char *path, int line);

/**
 * Where a message holds a library's own words (libgit2's, libyaml's,
 * strerror's), which change between the library's versions, a test
 * compares only optrace's part: in `pattern`, each TU_ANY matches any text
 * of one line (no newline, possibly empty); everything else must be equal.
 * True when `text` matches the whole pattern.
 */
#define TU_ANY "@ANY"
bool tu_match(const char *pattern, const char *text);

/** Run a suite with CK_NORMAL output; returns the number of failures. */
int tu_run_suite(Suite *s);

#endif
