/*
 * embedded.h - the default templates and reference data, compiled into the
 * binary from templates/ (by ci/embed.sh) so that optrace works from any
 * directory. `--templates DIR` replaces any of them with a file of DIR.
 */
#ifndef OT_EMBEDDED_H
#define OT_EMBEDDED_H

#include <stddef.h>

typedef struct {
	const char *name; /**< file name inside templates/, e.g. "page.md" */
	const char *data; /**< contents, NUL-terminated */
	size_t len;       /**< bytes, without the terminating NUL */
} ot_embedded_file;

/** All embedded files, sorted by name, ending with a {NULL} entry. */
extern const ot_embedded_file ot_embedded_files[];

#endif
