/*
 * output.h - writing the output folder safely.
 *
 * A run writes into a staging folder inside the output folder
 * (OUT/.optrace-staging/) and only publishes at the end
 * (ot_output_commit): each staged file is renamed over its final path
 * (atomic per file), files whose bytes did not change are never rewritten,
 * and files the previous run wrote that this run did not produce are removed
 * — only those listed in the previous manifest (OUT/.optrace-manifest), never
 * anything else. If the run fails before the commit, ot_output_free discards
 * the staging folder and OUT is exactly as it was.
 *
 * Paths given to this module are relative to OUT, '/'-separated, made of
 * [A-Za-z0-9._-] components, never "." or "..", never absolute, and no
 * component starts with ".optrace-" (reserved for the manifest and the
 * staging folder). No symbolic link is followed for writing: a symlink
 * where a folder of ours should be is an error, not a redirection (a
 * symlink in place of a file is replaced by the file; a folder in place of
 * a file is an error).
 *
 * The manifest's first line is "# optrace manifest v2", then one line per
 * file, sorted: its path, a tab and 16 hex digits of ot_output_hash of the
 * bytes written (a path killed while publishing has two, the
 * old and the new). When reading it, a missing or different header means
 * no stale file is removed; malformed lines are skipped; every path is
 * checked by the rules above. A stale file is deleted only when it still
 * holds what the manifest says optrace wrote (a v1 manifest, which has no
 * hashes, deletes nothing), and a published file is replaced only when it
 * is listed and unchanged (unless forced). Warnings (skipped lines, stale
 * paths that are no longer what optrace wrote) go to stderr as
 * "optrace: warning: ...".
 *
 * One run per output folder: OUT/.optrace-lock (an empty file, made once,
 * never written) is locked with flock() from ot_output_open to
 * ot_output_free; a second run fails at once with "OUT/ is in use by pid
 * N" (the holder, from /proc/locks). The staging folder belongs to the run
 * that holds the lock.
 */
#ifndef OT_OUTPUT_H
#define OT_OUTPUT_H

#include "common.h"

#define OT_OUTPUT_MANIFEST ".optrace-manifest"
#define OT_OUTPUT_STAGING ".optrace-staging"
#define OT_OUTPUT_LOCK ".optrace-lock"

typedef struct ot_output ot_output;

typedef struct {
	size_t written;   /**< files created or changed */
	size_t unchanged; /**< files whose bytes were already right */
	size_t removed;   /**< stale files of the previous run deleted */
} ot_output_stats;

/**
 * Create the folder `dir` and its missing parents (mkdir -p; the folders
 * the user named may be links). Errors: a folder cannot be created.
 */
int ot_output_make_dirs(const char *dir);

/**
 * The rules for a folder optrace writes into (also optrace diff's report
 * folder): not a symbolic link; unless `force`, not the root folder, the
 * home folder ($HOME), nor the checkout `checkout` (may be NULL) or a folder
 * inside it (compared once resolved; `dir` need not exist yet).
 */
int ot_output_check_folder(const char *dir, const char *checkout, bool force);

typedef struct {
	const char *checkout; /**< the PyTorch checkout, never an output folder; may be NULL */
	bool force;           /**< --force: any folder (but a link), over any file */
} ot_output_opts;

/**
 * Open (create if needed, with parents) the output folder `dir`, take its
 * lock and make a fresh staging folder inside it. Errors: the rules of
 * ot_output_check_folder; `dir` is a file, not writable, cannot be
 * created; it is not empty and holds no manifest (not made by optrace)
 * unless opts->force; another run holds its lock ("DIR/ is in use by pid
 * N"). A staging folder left by a killed run is removed once the lock is
 * held. `opts` may be NULL (no checkout, not forced). Caller frees with
 * ot_output_free.
 */
int ot_output_open_with(ot_output **out, const char *dir, const ot_output_opts *opts);

/** The manifest's 64-bit hash of a file's bytes (not cryptographic). */
uint64_t ot_output_hash(const char *data, size_t len);

/**
 * Mark the folder `dir`, which optrace just made for a file of its own (an
 * optrace diff report), as optrace's: an empty manifest, unless it has one.
 * A later run into it is then not refused as a folder of someone else's.
 */
int ot_output_mark_folder(const char *dir);

/** ot_output_open_with(out, dir, NULL). */
int ot_output_open(ot_output **out, const char *dir);

/**
 * Stage `len` bytes for `relpath`. Thread-safe. Comparing with the current
 * published file happens here, so unchanged files cost no write.
 * Errors: invalid path, a path given twice or used both as a file and as a
 * folder, a symlink or file where a folder must be, a folder where the file
 * must be, a write error (disk full: "disk full while writing PATH"). Once
 * a write fails for a reason other than the path's form, ot_output_commit
 * refuses to publish.
 */
int ot_output_write(ot_output *o, const char *relpath, const char *data, size_t len);

/** A piece of a file's bytes. */
typedef struct {
	const char *data;
	size_t len;
} ot_output_part;

/**
 * The same for a file made of `nparts` pieces, in order (a large file
 * written from the pieces that make it, never joined in memory).
 */
int ot_output_write_parts(ot_output *o, const char *relpath, const ot_output_part *parts,
			  size_t nparts);

/** A file written piece by piece, as its pieces are made (trace.json of
 * --all: each op's piece is freed once written). */
typedef struct ot_output_stream ot_output_stream;

/**
 * Start writing `relpath` in pieces. Thread-safe; the stream itself is for
 * one thread. Errors as ot_output_write's for the path; *out is NULL then.
 */
int ot_output_stream_open(ot_output *o, const char *relpath, ot_output_stream **out);

/** Append `len` bytes. A write error is kept and returned by close too. */
int ot_output_stream_write(ot_output_stream *s, const char *data, size_t len);

/**
 * Finish and free the stream: the file is staged, or left alone when its
 * bytes equal the published file's (as ot_output_write does).
 */
int ot_output_stream_close(ot_output_stream *s);

/**
 * Publish: rename every staged file into place (creating folders as
 * needed), write the new manifest (every path this run produced, sorted),
 * remove stale files of the previous manifest and then empty folders they
 * leave, and remove the staging folder. fsyncs what it renames. The
 * manifest is not rewritten when its bytes are unchanged, so a run that
 * changes nothing touches nothing. `stats` may be NULL.
 * Errors: a write failed earlier (nothing is published), called twice, a
 * rename or folder creation failed; in that last case OUT holds a mix and
 * the manifest lists both the old and the published paths, so nothing of
 * ours is left untracked.
 */
int ot_output_commit(ot_output *o, ot_output_stats *stats);

/** Discard anything not committed (staging folder) and free. NULL is a no-op. */
void ot_output_free(ot_output *o);

/** The output folder path as given. Borrowed. */
const char *ot_output_dir(const ot_output *o);

#endif
