/*
 * version.h - which PyTorch release to trace (SPEC §4).
 *
 * Order of precedence: --torch-version, else the torch installed for
 * `python3` (found by reading torch-*.dist-info/METADATA or torch/version.py
 * in the directories of its sys.path, never by importing torch), else the
 * `# torch-version:` pin of ops.list, else an error.
 */
#ifndef OT_VERSION_H
#define OT_VERSION_H

#include "common.h"

typedef struct {
	char release[64];  /**< "2.6.0": what the tag is made from (v<release>) */
	char raw[128];     /**< as found: "2.6.0+cu124", "2.7.0a0+git1a2b3c4" */
	char commit[48];   /**< nightly: the hex after "+git"; else "" */
	bool nightly;      /**< a pre-release (a0/dev) that names a commit */
	char origin[512];  /**< where it came from, for messages:
				"--torch-version", "ops.list pin (ops.list:3)",
				"installed torch (/usr/lib/python3/dist-packages/torch-2.6.0.dist-info)" */
} ot_version;

/**
 * Parse and normalise a version string: strip a local part ("+cu124",
 * "+cpu"), keep X.Y.Z; a pre-release with "+git<hex>" becomes a nightly
 * with that commit. Errors (not a version, a pre-release without a commit)
 * return OT_ERROR with a message that names the string.
 */
int ot_version_parse(ot_version *out, const char *raw, const char *origin);

/**
 * Look for an installed torch in `dirs` (NULL-terminated, in sys.path
 * order; the first hit wins): "torch-*.dist-info/METADATA" (its "Version:"
 * header) or "torch/version.py" (its `__version__ = '...'`).
 * Returns 0 and fills *out, OT_ENOTFOUND when none, OT_ERROR for a found
 * but unreadable/unparseable file.
 */
int ot_version_find_installed(ot_version *out, const char *const *dirs);

/**
 * The directories of `python`'s sys.path (python defaults to "python3"),
 * obtained by running it with `-c 'import sys; ...'` (torch is not
 * imported). On success *out is a NULL-terminated array; caller frees with
 * ot_version_free_dirs. OT_ENOTFOUND when python cannot be run.
 */
int ot_version_python_dirs(char ***out, const char *python);
void ot_version_free_dirs(char **dirs);

/**
 * Apply the precedence above. `cli` (--torch-version) and `pin` (with its
 * origin text) may be NULL; `python` may be NULL (= "python3").
 * On failure the message lists what was tried.
 */
int ot_version_detect(ot_version *out, const char *cli, const char *pin,
		      const char *pin_origin, const char *python);

#endif
