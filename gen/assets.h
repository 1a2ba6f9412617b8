/*
 * assets.h - the files optrace ships besides its code: page templates and
 * the well-known reference. They are compiled into the binary (embedded.h);
 * `--templates DIR` lets a user replace any of them with a file of DIR.
 */
#ifndef OT_ASSETS_H
#define OT_ASSETS_H

#include "buf.h"

/** The largest template file of --templates DIR, in bytes. */
#define OT_ASSETS_MAX (1 << 20)

/**
 * Put the contents of asset `name` ("page.md.mustache") into `out`
 * (replacing it): DIR/name when `dir` is set and that file exists, else
 * the built-in copy. OT_ENOTFOUND when neither exists; OT_ERROR when
 * DIR/name exists but cannot be read, or is no regular file of at most
 * OT_ASSETS_MAX bytes (a symbolic link, a FIFO, a device: never followed
 * or read). `*from` (may be NULL) receives
 * "built-in" or the path read (caller frees).
 */
int ot_assets_get(ot_buf *out, const char *dir, const char *name, char **from);

#endif
