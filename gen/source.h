/*
 * source.h - the PyTorch source checkout, read at exactly one release.
 *
 * The only module that talks to libgit2. A git checkout is opened, the
 * release's tag `v<version>` (or a nightly's commit) is resolved, and every
 * file is read as a blob from that commit's tree: the work tree's state
 * (dirty, or checked out at another release) never leaks into a trace, and
 * one clone serves every release.
 *
 * A plain directory (not a git repository) cannot prove its version and is
 * refused unless the caller allows it (--unverified-source); it is then read
 * from the file system and ot_source_verified() is false.
 *
 * Safety: symbolic links (git mode 120000, or a link in a plain directory)
 * are never followed; files over the per-file limit (OT_SOURCE_MAX_FILE
 * bytes unless the options say otherwise) are skipped when listing and
 * refused when read, and a run reads at most OT_SOURCE_MAX_TOTAL bytes in
 * all: one over that is an error, never an allocation that fails.
 */
#ifndef OT_SOURCE_H
#define OT_SOURCE_H

#include "buf.h"
#include "common.h"

/** Defaults of ot_source_opts' limits: one file, and all files of one run. */
#define OT_SOURCE_MAX_FILE (32u * 1024 * 1024)
#define OT_SOURCE_MAX_TOTAL ((size_t)1 << 30)

/** The upstream repository cloned when the checkout is missing. */
#define OT_SOURCE_DEFAULT_URL "https://github.com/pytorch/pytorch.git"

typedef struct ot_source ot_source;

typedef struct {
	const char *path;      /**< the checkout directory (required) */
	const char *clone_url; /**< clone from here when `path` does not exist;
				    NULL: a missing checkout is an error */
	bool allow_unverified; /**< accept a plain directory (--unverified-source) */
	bool progress;         /**< report clone/fetch progress on stderr */
	size_t max_file;       /**< bytes of one file; 0: OT_SOURCE_MAX_FILE */
	size_t max_total;      /**< bytes of all files read (this source and its
				    readers); 0: OT_SOURCE_MAX_TOTAL */
} ot_source_opts;

/**
 * Open the checkout at opts->path. When the path does not exist and
 * opts->clone_url is set, clone it first (libgit2, bare-less clone with a
 * work tree). Errors, each naming the path and what to do: path missing and
 * no URL, path is a file, empty folder, not a git repository (unless
 * allow_unverified), a repository libgit2 cannot open.
 * Caller frees with ot_source_free.
 */
int ot_source_open(ot_source **out, const ot_source_opts *opts);

/** Free; NULL is a no-op. */
void ot_source_free(ot_source *src);

/**
 * Select the release to read. `version` is a normalised release
 * ("2.6.0") or a nightly whose commit is `commit_hint` (the hex after
 * "+git", may be abbreviated; NULL for releases).
 *
 * Release: resolve refs/tags/v<version> (annotated tags are peeled); a tag
 * that does not end at a commit is an error. A missing tag is fetched from
 * the "origin" remote when there is one; still missing: an error naming the
 * version, the checkout and what to do.
 * Nightly: the commit must exist in the repository; else a refusal.
 * Unverified plain directory: nothing is resolved; the version is taken on
 * trust and recorded as such.
 */
int ot_source_select(ot_source *src, const char *version, const char *commit_hint);

/** The selected version ("2.6.0"). Borrowed. */
const char *ot_source_version(const ot_source *src);

/** The tag that was resolved ("v2.6.0"), or NULL (nightly, unverified). Borrowed. */
const char *ot_source_tag(const ot_source *src);

/** The full 40-hex commit id, or "unverified" for a plain directory. Borrowed. */
const char *ot_source_commit(const ot_source *src);

/** False for a plain directory opened with allow_unverified. */
bool ot_source_verified(const ot_source *src);

/** The checkout path as given. Borrowed. */
const char *ot_source_path(const ot_source *src);

/**
 * Read the file at `path` (relative to the repository root, '/'-separated)
 * from the selected tree into `out` (replacing its contents).
 * Returns OT_ENOTFOUND when there is no such regular file (a symlink or a
 * directory counts as missing), OT_ERROR on a read failure (corrupt object,
 * file too large, the run's total limit reached). Thread-safe only through a reader (below).
 */
int ot_source_read(ot_buf *out, ot_source *src, const char *path);

/** One regular file of the selected tree. */
typedef struct {
	const char *path; /**< repository-relative, '/'-separated; owned by the list */
	size_t size;      /**< bytes */
	unsigned char oid[20]; /**< blob id (zero for a plain directory) */
} ot_source_file;

typedef OT_VEC(ot_source_file) ot_source_files;

/**
 * Append to `out` every regular file of the selected tree whose path starts
 * with one of `prefixes` (NULL-terminated list; a prefix is a directory like
 * "aten/src/ATen/" or a file path) and for which `keep(path, payload)` is
 * true (keep may be NULL). Symlinks, submodules and files larger than
 * the per-file limit are left out. Order: by path, byte order. A list whose
 * files add up to more than the run's total limit (with what was read
 * already) is an error.
 * Path strings are owned by `arena`.
 */
int ot_source_list(ot_source_files *out, ot_arena *arena, ot_source *src,
		   const char *const *prefixes, bool (*keep)(const char *path, void *payload),
		   void *payload);

/**
 * A reader for one thread: its own repository handle, so several threads
 * can read blobs of the same source at once.
 */
typedef struct ot_source_reader ot_source_reader;

/** Caller frees with ot_source_reader_free. */
int ot_source_reader_new(ot_source_reader **out, ot_source *src);
void ot_source_reader_free(ot_source_reader *reader);

/** Read a listed file into `out` (replacing its contents). */
int ot_source_reader_read(ot_buf *out, ot_source_reader *reader, const ot_source_file *file);

/** "libgit2 X.Y.Z", for --version. Borrowed. */
const char *ot_source_library_version(void);

#endif
