/*
 * version.h - which PyTorch release to trace (SPEC §4).
 *
 * Order of precedence: --torch-version, else the torch installed for
 * `python3` (found in the directories of its sys.path, never by importing
 * torch), else the `# torch-version:` pin of ops.list, else an error.
 *
 * In one sys.path directory that holds torch/__init__.py, the release is
 * read from, in this order (the first that knows it wins; one that is
 * found but cannot be read or parsed is an error, never skipped):
 *   1. the package manager that installed that file: dpkg (the package
 *      whose info/<pkg>.list lists it, and its installed Version in
 *      status: python3-torch 1.13.1+dfsg-4 -> 1.13.1), else conda (the
 *      conda-meta/<name>.json record, in the nearest folder above, whose
 *      "files" list it: its "version");
 *   2. torch-*.dist-info/METADATA, else torch-*.egg-info (a folder's
 *      PKG-INFO, or the file itself): the "Version:" header;
 *   3. torch/version.py: `__version__ = '...'`.
 * Debian's own build says 1.13.0a0 in 2 and 3: a pre-release without a
 * commit, refused; its dpkg record names the release.
 *
 * dpkg's database is read from $OPTRACE_DPKG_ADMINDIR (for tests: a fake
 * database), default /var/lib/dpkg.
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
				"installed torch (/usr/lib/python3/dist-packages/torch-2.6.0.dist-info)",
				"dpkg: python3-torch 1.13.1+dfsg-4 (/usr/lib/python3/dist-packages/torch)",
				"conda: pytorch 2.6.0 (/opt/conda/conda-meta/pytorch-2.6.0-....json)" */
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
 * order; the first directory that has one wins), each read as above.
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
 * origin text) may be NULL; `list_name` names the ops list that was read
 * for a pin (NULL: none was); `python` may be NULL (= "python3").
 * On failure the message lists what was tried.
 */
int ot_version_detect(ot_version *out, const char *cli, const char *pin,
		      const char *pin_origin, const char *list_name, const char *python);

#endif
